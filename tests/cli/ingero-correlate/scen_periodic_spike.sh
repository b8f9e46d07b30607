# periodic allocation spikes of the caching allocator
# synthesized (cmd/ingero-demo/scenario.c, random timings per seed): the top chain is
# periodic-spike, and every number in its root cause matches the log (tests/scenarios/check.jq)
. "$INGERO_TESTS/scenarios/check.sh"
for seed in 1 2 3; do
	"$INGERO_OUT/tests/tools/scensynth" periodic-spike --seed $seed -o run.ilog || exit 1
	check_chain run.ilog periodic-spike "" "cudaMalloc" || { echo "seed $seed" >&2; exit 1; }
done
