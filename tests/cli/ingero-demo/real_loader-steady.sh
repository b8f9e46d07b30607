# recorded for real, the clean counterpart of loader-wait: the loader
# fetches every batch in 0.2 ms and keeps ahead of the loop - no HIGH or
# MEDIUM chain but CPU contention the records prove (a shared machine's),
# and no between-calls chain that blames the loader's pipe.
[ "$(id -u)" = 0 ] || { echo "needs root for eBPF (CI runs it)" >&2; exit 77; }
. "$INGERO_TESTS/scenarios/check.sh"
ingero demo --bpf -q loader-steady -o run.ilog >out.txt || { cat out.txt >&2; exit 1; }
no_chain_above run.ilog MEDIUM || exit 1
# a busy host may cost the loop time between its calls (preempted: the
# records prove it, no_chain_above allows it); never the loader's pipe
if jq -se 'any(.[]; .type=="chain" and .pattern=="between-calls" and .metrics.cause=="read")' corr.jsonl >/dev/null; then
	echo "a between-calls chain blames the loader's pipe:" >&2
	jq -r 'select(.type=="chain") | "  #\(.rank) \(.severity) \(.pattern): \(.root_cause)"' corr.jsonl >&2
	exit 1
fi
