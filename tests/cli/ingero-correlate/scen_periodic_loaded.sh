# periodic allocation spikes on a loaded machine: 15% of all CUDA calls are
# delayed by 1 us - 10 ms (preemption inside the call), so the op has more
# outliers than the 512 slowest calls kept per series and ms-long ones
# besides the spikes; the spikes must still be found, numbers checked
# (tests/scenarios/check.jq).  Negative: the same delays on scenarios with no
# periodic stall must not make one up.
. "$INGERO_TESTS/scenarios/check.sh"
for seed in 1 2 3; do
	"$INGERO_OUT/tests/tools/scensynth" periodic-spike --seed $seed --jitter 0.15 -o run.ilog || exit 1
	check_chain run.ilog periodic-spike "" cudaMalloc || { echo "seed $seed" >&2; exit 1; }
done
for s in clean cold-start gpu-slow; do
	for seed in 1 2; do
		"$INGERO_OUT/tests/tools/scensynth" $s --seed $seed --jitter 0.3 -o run.ilog || exit 1
		no_pattern run.ilog periodic-spike || { echo "$s seed $seed" >&2; exit 1; }
	done
done
