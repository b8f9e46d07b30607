# recorded for real: ingero demo capture-warmup runs its workload on the fake CUDA
# libraries under ingero-record (uprobes + tracepoints) and must rank capture-warmup
# first; the root cause's numbers are recomputed from the recorded events
[ "$(id -u)" = 0 ] || { echo "needs root for eBPF (CI runs it)" >&2; exit 77; }
. "$INGERO_TESTS/scenarios/check.sh"
ingero demo --bpf --check -q capture-warmup -o run.ilog >out.txt || { cat out.txt >&2; exit 1; }
check_chain run.ilog capture-warmup "" ""
