# isolated stalls: 12 synchronizes at random times wait 150-250 ms on the GPU
# while the host is idle (scensynth isolated-stalls): isolated-stall ranks
# first, counts all 12, calls the durations bimodal and names the GPU side,
# and every number of its root cause matches the log (tests/scenarios/check.jq).
# The same stalls are neither periodic spikes nor an anomalous interval.
. "$INGERO_TESTS/scenarios/check.sh"
for seed in 1 2 3 4 5; do
	"$INGERO_OUT/tests/tools/scensynth" isolated-stalls --seed $seed -o run.ilog || exit 1
	check_chain run.ilog isolated-stall "" cudaStreamSynchronize || { echo "seed $seed" >&2; exit 1; }
	jq -se '[.[] | select(.type=="chain")][0].metrics |
		.stalls == 12 and .shape == "bimodal" and .side == "GPU" and .cause == "gpu"' \
		corr.jsonl >/dev/null || { echo "seed $seed: wrong count, shape or side" >&2; exit 1; }
	for p in periodic-spike gpu-slow cpu-contention; do
		no_pattern run.ilog $p || { echo "seed $seed" >&2; exit 1; }
	done
done
# the scenarios with no stalls staged make no isolated-stall chain
for s in clean cold-start gpu-slow incident periodic-spike memcpy-bottleneck; do
	for seed in 1 2; do
		"$INGERO_OUT/tests/tools/scensynth" $s --seed $seed -o run.ilog || exit 1
		no_pattern run.ilog isolated-stall || { echo "$s seed $seed" >&2; exit 1; }
	done
done
# on a loaded machine (10% of all calls delayed 1 us - 10 ms, scensynth
# --jitter) the stalls are still isolated stalls, all 12 of them
for seed in 1 2 3; do
	"$INGERO_OUT/tests/tools/scensynth" isolated-stalls --seed $seed --jitter 0.1 -o run.ilog || exit 1
	check_chain run.ilog isolated-stall "" cudaStreamSynchronize || { echo "loaded seed $seed" >&2; exit 1; }
	jq -se '[.[] | select(.type=="chain")][0].metrics | .stalls == 12 and .side == "GPU"' \
		corr.jsonl >/dev/null || { echo "loaded seed $seed: wrong count or side" >&2; exit 1; }
done
