# a clean steady workload: no chain at all, and the note that the job is
# GPU-bound (a note, not a chain)
. "$INGERO_TESTS/scenarios/check.sh"
for seed in 1 2 3 4 5; do
	"$INGERO_OUT/tests/tools/scensynth" clean --seed $seed -o run.ilog || exit 1
	no_chain_above run.ilog LOW || { echo "seed $seed" >&2; exit 1; }
	jq -se 'any(.[]; .type=="note" and .pattern=="gpu-bound")' corr.jsonl >/dev/null || exit 1
done
