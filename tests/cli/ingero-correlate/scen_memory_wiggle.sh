# negative: on a shared but idle host other processes move used memory by a
# few percent; the GPU work gets slower at the same time (gpu-slow, no page
# allocations, no swap).  Memory that moved without becoming scarce is not
# memory pressure: the chain says the GPU got slower (numbers checked).
# Positive control: the same dip taken down to 7% available is pressure.
. "$INGERO_TESTS/scenarios/check.sh"
for seed in 1 2 3; do
	for dip in 0.01 0.03; do
		"$INGERO_OUT/tests/tools/scensynth" gpu-slow --seed $seed --mem-dip $dip -o run.ilog || exit 1
		check_chain run.ilog gpu-slow "" cudaStreamSynchronize || { echo "seed $seed dip $dip" >&2; exit 1; }
		no_pattern run.ilog memory-pressure || { echo "seed $seed dip $dip" >&2; exit 1; }
	done
done
"$INGERO_OUT/tests/tools/scensynth" gpu-slow --seed 1 --mem-dip 0.7 -o run.ilog || exit 1
check_chain run.ilog memory-pressure "" cudaStreamSynchronize || exit 1
jq -se 'any(.[]; .type=="chain" and .pattern=="memory-pressure" and (.root_cause | test("available memory (fell from [^;]* to|was) [0-9.]+ \\w+ \\([0-9]\\.[0-9]% of")))' corr.jsonl >/dev/null || { echo "no scarce-memory wording" >&2; exit 1; }
