# recorded for real, the clean counterpart of lock-wait: the same loop and
# checkpoint thread, which holds the model lock 50 us of every 16 ms: the
# loop seldom waits, its call rate holds - no HIGH or MEDIUM chain but CPU
# contention the records prove (a shared machine's), and no between-calls
# chain that blames the lock.
[ "$(id -u)" = 0 ] || { echo "needs root for eBPF (CI runs it)" >&2; exit 77; }
. "$INGERO_TESTS/scenarios/check.sh"
ingero demo --bpf -q lock-quiet -o run.ilog >out.txt || { cat out.txt >&2; exit 1; }
no_chain_above run.ilog MEDIUM || exit 1
# a busy host may cost the loop time between its calls (preempted: the
# records prove it, no_chain_above allows it); never the lock
if jq -se 'any(.[]; .type=="chain" and .pattern=="between-calls" and .metrics.cause=="lock")' corr.jsonl >/dev/null; then
	echo "a between-calls chain blames the lock:" >&2
	jq -r 'select(.type=="chain") | "  #\(.rank) \(.severity) \(.pattern): \(.root_cause)"' corr.jsonl >&2
	exit 1
fi
