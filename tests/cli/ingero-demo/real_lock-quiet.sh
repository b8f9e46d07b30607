# recorded for real, the clean counterpart of lock-wait: the same loop and
# checkpoint thread, which holds the model lock 50 us of every 16 ms: the
# loop seldom waits, its call rate holds - no between-calls chain, no HIGH
# or MEDIUM chain.
[ "$(id -u)" = 0 ] || { echo "needs root for eBPF (CI runs it)" >&2; exit 77; }
. "$INGERO_TESTS/scenarios/check.sh"
ingero demo --bpf --check -q lock-quiet -o run.ilog >out.txt || { cat out.txt >&2; exit 1; }
no_chain_above run.ilog MEDIUM || exit 1
no_pattern run.ilog between-calls || exit 1
