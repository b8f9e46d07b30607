# a clean steady workload: no HIGH or MEDIUM chain (at most the LOW note
# that the job is GPU-bound)
. "$INGERO_TESTS/scenarios/check.sh"
for seed in 1 2 3 4 5; do
	"$INGERO_OUT/tests/tools/scensynth" clean --seed $seed -o run.ilog || exit 1
	no_chain_above run.ilog MEDIUM || { echo "seed $seed" >&2; exit 1; }
	jq -se 'any(.[]; .type=="chain" and .pattern=="gpu-bound" and .severity=="LOW")' corr.jsonl >/dev/null || exit 1
done
