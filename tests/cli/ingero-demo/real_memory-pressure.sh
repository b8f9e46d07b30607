# recorded for real: ingero demo memory-pressure runs its workload on the fake CUDA
# libraries under ingero-record (uprobes + tracepoints) and must rank memory-pressure
# first; the root cause's numbers are recomputed from the recorded events
[ "$(id -u)" = 0 ] || { echo "needs root for eBPF (CI runs it)" >&2; exit 77; }
. "$INGERO_TESTS/scenarios/check.sh"
ingero demo --bpf --check -q memory-pressure -o run.ilog >out.txt || { cat out.txt >&2; exit 1; }
check_chain run.ilog memory-pressure memhog "cudaMemcpy" || exit 1
jq -se 'any(.[]; .type=="host" and .host_type=="page_alloc" and .comm=="memhog")' <(ingero-export run.ilog) >/dev/null
