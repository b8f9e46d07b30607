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
# no_chain_above and no_pattern see the chains they look for (the incident
# is HIGH cpu-contention) and pass where there are none
! no_chain_above run.ilog HIGH 2>/dev/null || { echo "no_chain_above missed a HIGH chain" >&2; exit 1; }
! no_chain_above run.ilog LOW 2>/dev/null || { echo "no_chain_above missed chains" >&2; exit 1; }
! no_pattern run.ilog cpu-contention 2>/dev/null || { echo "no_pattern missed the chain" >&2; exit 1; }
no_pattern run.ilog memory-pressure || exit 1
"$INGERO_OUT/tests/tools/scensynth" clean --seed 9 -o run.ilog || exit 1
no_chain_above run.ilog MEDIUM || exit 1
