# recorded for real: ingero demo loader-wait - the training loop reads each
# batch from its data loader child's pipe; for a while the loader takes
# 12 ms to fetch a batch (it sleeps, as on a slow remote store) instead of
# 0.2 ms.  The loop's calls keep their latency, its call rate falls: the
# time goes between the calls, in reads of the empty pipe.  The top chain
# is between-calls naming the read class, its numbers recomputed from the
# exported records (check.jq); no disk is involved, so no disk-stall chain.
[ "$(id -u)" = 0 ] || { echo "needs root for eBPF (CI runs it)" >&2; exit 77; }
. "$INGERO_TESTS/scenarios/check.sh"
ingero demo --bpf --check -q loader-wait -o run.ilog >out.txt || { cat out.txt >&2; exit 1; }
check_chain run.ilog between-calls || exit 1
jq -se 'any(.[]; .type=="chain" and .rank==1 and .metrics.cause=="read" and
	(.title | test("reading an empty pipe")))' corr.jsonl >/dev/null ||
	{ echo "the top chain does not name the reads" >&2; exit 1; }
no_pattern run.ilog disk-stall || exit 1
# the loader is the job's child
train=$(jq -r 'select(.type=="chain" and .rank==1) | .pid' corr.jsonl)
jq -se --argjson t "$train" 'any(.[]; .type=="process" and .comm=="loader" and .ppid==$t)' recs.jsonl >/dev/null ||
	{ echo "no loader child of the training process" >&2; exit 1; }
