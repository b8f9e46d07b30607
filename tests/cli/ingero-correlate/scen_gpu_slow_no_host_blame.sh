# negative: the GPU work gets 3-4x slower while the host stays idle; the
# chain says the GPU got slower (numbers checked), and nothing blames the
# host: no cpu-contention, memory-pressure or gpu-contention chain, no culprit
. "$INGERO_TESTS/scenarios/check.sh"
for seed in 1 2 3; do
	"$INGERO_OUT/tests/tools/scensynth" gpu-slow --seed $seed -o run.ilog || exit 1
	check_chain run.ilog gpu-slow "" cudaStreamSynchronize || exit 1
	for p in cpu-contention memory-pressure gpu-contention; do
		no_pattern run.ilog $p || exit 1
	done
	[ "$(jq -s '[.[] | select(.type=="chain" and .culprit_pid != 0)] | length' corr.jsonl)" = 0 ] || exit 1
done
