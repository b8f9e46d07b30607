# recorded for real: ingero demo hidden-sync reads a 4-byte loss back with
# a synchronous cudaMemcpy after each micro-batch (.item()), each waiting
# for the GPU; hidden-sync must rank first, its numbers recomputed from
# the records
[ "$(id -u)" = 0 ] || { echo "needs root for eBPF (CI runs it)" >&2; exit 77; }
. "$INGERO_TESTS/scenarios/check.sh"
ingero demo --bpf --check -q hidden-sync -o run.ilog >out.txt || { cat out.txt >&2; exit 1; }
check_chain run.ilog hidden-sync "" "cudaMemcpy"
