# OOM during GPU work: the OOM killer kills the training process in a synchronize
# synthesized (cmd/ingero-demo/scenario.c, random timings per seed): the top chain is
# oom, and every number in its root cause matches the log (tests/scenarios/check.jq)
. "$INGERO_TESTS/scenarios/check.sh"
for seed in 1 2 3; do
	"$INGERO_OUT/tests/tools/scensynth" oom --seed $seed -o run.ilog || exit 1
	check_chain run.ilog oom "memhog" "" || { echo "seed $seed" >&2; exit 1; }
done
