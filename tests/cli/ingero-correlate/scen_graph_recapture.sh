# CUDA graph re-captured and re-instantiated in steady state
# synthesized (cmd/ingero-demo/scenario.c, random timings per seed): the top chain is
# graph-recapture, and every number in its root cause matches the log (tests/scenarios/check.jq)
. "$INGERO_TESTS/scenarios/check.sh"
for seed in 1 2 3; do
	"$INGERO_OUT/tests/tools/scensynth" graph-recapture --seed $seed -o run.ilog || exit 1
	check_chain run.ilog graph-recapture "" "" || { echo "seed $seed" >&2; exit 1; }
done
