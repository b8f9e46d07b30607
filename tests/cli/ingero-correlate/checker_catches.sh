# the scenario checker is not a rubber stamp: a chain whose sentence quotes
# a wrong count, a wrong quantile or the wrong time fails it
. "$INGERO_TESTS/scenarios/check.sh"
"$INGERO_OUT/tests/tools/scensynth" incident --seed 9 -o run.ilog || exit 1
check_chain run.ilog cpu-contention backup || exit 1
ingero-export run.ilog >recs.jsonl
for mut in 's/threads \([0-9][0-9]*\) times/threads 1\1 times/' 's/ and p99 \([0-9.]*\) ms to/ and p99 9\1 ms to/' \
	's/between +\([0-9]\)/between +1\1/' 's/"culprit_comm":"backup"/"culprit_comm":"kworker"/'; do
	sed "$mut" corr.jsonl >bad.jsonl
	cmp -s bad.jsonl corr.jsonl && { echo "mutation $mut did not apply" >&2; exit 1; }
	jq -rn --slurpfile c bad.jsonl --slurpfile r recs.jsonl --arg pattern cpu-contention \
		--arg culprit backup --arg op "" -f "$INGERO_TESTS/scenarios/check.jq" | grep -q '^FAIL' ||
		{ echo "mutation $mut not caught" >&2; exit 1; }
done
# and the wrong pattern is caught
! check_chain run.ilog gpu-contention 2>/dev/null
# no_chain_above lets CPU contention the records prove pass (the incident's
# backup job really preempted the training thread: tests/scenarios/busy.jq)
no_chain_above run.ilog HIGH || { echo "no_chain_above refused proven CPU contention" >&2; exit 1; }
# and sees every other chain it looks for (an OOM kill is HIGH)
"$INGERO_OUT/tests/tools/scensynth" oom --seed 1 -o oom.ilog || exit 1
! no_chain_above oom.ilog HIGH 2>/dev/null || { echo "no_chain_above missed a HIGH chain" >&2; exit 1; }
! no_chain_above oom.ilog LOW 2>/dev/null || { echo "no_chain_above missed chains" >&2; exit 1; }
# no_pattern sees the chain it looks for and passes where there is none
! no_pattern run.ilog cpu-contention 2>/dev/null || { echo "no_pattern missed the chain" >&2; exit 1; }
no_pattern run.ilog memory-pressure || exit 1
"$INGERO_OUT/tests/tools/scensynth" clean --seed 9 -o run.ilog || exit 1
no_chain_above run.ilog MEDIUM || exit 1
