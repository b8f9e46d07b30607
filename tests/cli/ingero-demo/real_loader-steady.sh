# recorded for real, the clean counterpart of loader-wait: the loader
# fetches every batch in 0.2 ms and keeps ahead of the loop - no
# between-calls chain, no HIGH or MEDIUM chain.
[ "$(id -u)" = 0 ] || { echo "needs root for eBPF (CI runs it)" >&2; exit 77; }
. "$INGERO_TESTS/scenarios/check.sh"
ingero demo --bpf --check -q loader-steady -o run.ilog >out.txt || { cat out.txt >&2; exit 1; }
no_chain_above run.ilog MEDIUM || exit 1
no_pattern run.ilog between-calls || exit 1
