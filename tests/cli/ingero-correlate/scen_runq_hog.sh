# CPU contention with no preemptions: another process (cpuhog) holds the
# CPU each synchronize's thread is woken to, so the thread waits to run
# after its wakeups (scensynth --runq: wakeup records whose value, format
# 1.7, names the occupant).  The top chain is cpu-contention naming cpuhog
# for those waits, every number checked against the records (check.jq:
# the waits it held, their time); the run's other waits, on an idle CPU
# (no occupant), are nobody's.
. "$INGERO_TESTS/scenarios/check.sh"
for seed in 1 2; do
	"$INGERO_OUT/tests/tools/scensynth" clean --seed $seed --runq 31337 -o run.ilog || exit 1
	check_chain run.ilog cpu-contention cpuhog cudaStreamSynchronize ||
		{ echo "seed $seed" >&2; exit 1; }
	jq -se 'map(select(.type == "chain"))[0] | .culprit_pid == 31337 and
		.metrics.culprit_runq_waits > 100 and .metrics.culprit_preemptions == 0 and
		(.root_cause | test("kept its CUDA threads waiting for a CPU after [0-9]+ wakeups"))' \
		corr.jsonl >/dev/null || { echo "seed $seed: chain" >&2; exit 1; }
	# the waits on an idle CPU are in the log too (value 0: nobody's)
	jq -se '[.[] | select(.type == "host" and .host_type == "wakeup" and .value == 0)] |
		length > 100' recs.jsonl >/dev/null || { echo "seed $seed: no idle waits" >&2; exit 1; }
done
