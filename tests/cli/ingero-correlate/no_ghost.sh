# No chain is about PID 0, the idle task or an empty comm, as its subject or
# its culprit, over every synthesized scenario (scensynth --list: the
# demos' scenarios, including the recorded-only ones), with and without a
# loaded host's jitter, and over the synthesized clean runs; the recorded
# demos check the same through tests/scenarios/check.sh.  The recorder's
# cost and a GPU-bound process are notes, never chains.
. "$INGERO_TESTS/scenarios/check.sh"
n=0
for s in $("$INGERO_OUT/tests/tools/scensynth" --list | awk '{ print $1 }'); do
	for j in 0 0.02; do
		"$INGERO_OUT/tests/tools/scensynth" "$s" --seed 7 --jitter $j -o run.ilog 2>/dev/null || continue
		ingero-correlate --json run.ilog >corr.jsonl || { echo "$s: ingero-correlate failed" >&2; exit 1; }
		no_ghost_chain corr.jsonl || { echo "in scenario $s (jitter $j)" >&2; exit 1; }
		if jq -se 'any(.[]; .type=="chain" and (.pattern=="recording-overhead" or .pattern=="gpu-bound"))' corr.jsonl >/dev/null; then
			echo "$s: a note reported as a chain" >&2
			exit 1
		fi
		n=$((n + 1))
	done
done
# every scenario was judged, not skipped
[ "$n" -ge 38 ] || { echo "only $n scenario runs (19 scenarios synthesize, twice each)" >&2; exit 1; }
