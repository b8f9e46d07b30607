# recorded for real: the hidden-sync workload done right (its loss values copied
# asynchronously into pinned memory and read after the step's one
# synchronize): no chain blames its copies.  Other chains are not judged:
# on a loaded machine the host may really slow it
[ "$(id -u)" = 0 ] || { echo "needs root for eBPF (CI runs it)" >&2; exit 77; }
. "$INGERO_TESTS/scenarios/check.sh"
ingero demo --bpf -q sync-free -o run.ilog >out.txt || { cat out.txt >&2; exit 1; }
no_pattern run.ilog hidden-sync || exit 1
no_pattern run.ilog pageable-copy || exit 1
no_pattern run.ilog memcpy-bound
