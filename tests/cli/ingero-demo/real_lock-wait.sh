# recorded for real: ingero demo lock-wait - the training loop takes its
# model lock for a moment before each step; for a while a checkpoint thread
# of the job holds that lock 12 ms of every 16 (asleep).  The loop's CUDA
# calls keep their latency, its call rate falls to a fraction: the time
# goes between the calls, in futex waits.  The top chain is between-calls
# naming the lock class, its numbers recomputed from the exported records
# (check.jq: call rates, the calls' mean time, the time between calls, the
# futex waits of the interval from the recorder's wait records).
[ "$(id -u)" = 0 ] || { echo "needs root for eBPF (CI runs it)" >&2; exit 77; }
. "$INGERO_TESTS/scenarios/check.sh"
ingero demo --bpf --check -q lock-wait -o run.ilog >out.txt || { cat out.txt >&2; exit 1; }
check_chain run.ilog between-calls || exit 1
jq -se 'any(.[]; .type=="chain" and .rank==1 and .metrics.cause=="lock" and
	(.title | test("waiting on a futex")))' corr.jsonl >/dev/null ||
	{ echo "the top chain does not name the lock" >&2; exit 1; }
# the wait records are the training thread's process's, class 1 (lock)
jq -se 'any(.[]; .type=="host" and .host_type=="wait" and .comm=="train" and
	.other_tid==1 and .other_comm=="lock" and .value > 0 and .other_pid > 0)' recs.jsonl >/dev/null ||
	{ echo "no lock wait record of train" >&2; exit 1; }
