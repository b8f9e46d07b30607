# recorded for real: a steady workload yields no HIGH or MEDIUM chain (CPU
# contention the records prove aside: on a busy machine that is real)
[ "$(id -u)" = 0 ] || { echo "needs root for eBPF (CI runs it)" >&2; exit 77; }
. "$INGERO_TESTS/scenarios/check.sh"
ingero demo --bpf -q clean -o run.ilog >out.txt || { cat out.txt >&2; exit 1; }
no_chain_above run.ilog MEDIUM
