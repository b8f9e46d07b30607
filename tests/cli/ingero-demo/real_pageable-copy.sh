# recorded for real: ingero demo pageable-copy copies each step's batch with
# cudaMemcpyAsync from memory it never pinned, which the fake runtime
# stages while the host waits (FAKECUDA_PINNED); pageable-copy must rank
# first, its numbers recomputed from the records (the pinned ranges and
# each copy's source, format 1.5)
[ "$(id -u)" = 0 ] || { echo "needs root for eBPF (CI runs it)" >&2; exit 77; }
. "$INGERO_TESTS/scenarios/check.sh"
ingero demo --bpf --check -q pageable-copy -o run.ilog >out.txt || { cat out.txt >&2; exit 1; }
check_chain run.ilog pageable-copy "" "cudaMemcpyAsync"
