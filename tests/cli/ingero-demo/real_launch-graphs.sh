# recorded for real: the launch-bound step captured in a CUDA graph, one
# launch per step while the GPU works: no launch-bound chain, nothing MEDIUM
[ "$(id -u)" = 0 ] || { echo "needs root for eBPF (CI runs it)" >&2; exit 77; }
. "$INGERO_TESTS/scenarios/check.sh"
ingero demo --bpf -q launch-graphs -o run.ilog >out.txt || { cat out.txt >&2; exit 1; }
no_pattern run.ilog launch-bound && no_chain_above run.ilog MEDIUM
