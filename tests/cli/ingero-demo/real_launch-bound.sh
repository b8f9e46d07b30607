# recorded for real: 200 small kernels launched one by one per step, the
# synchronize finding the GPU done: launch-bound ranks first, never beside
# gpu-bound; the root cause's numbers (launches, their time and share,
# kernels per step) are recomputed from the recorded events
[ "$(id -u)" = 0 ] || { echo "needs root for eBPF (CI runs it)" >&2; exit 77; }
. "$INGERO_TESTS/scenarios/check.sh"
ingero demo --bpf --check -q launch-bound -o run.ilog >out.txt || { cat out.txt >&2; exit 1; }
check_chain run.ilog launch-bound "" "cudaLaunchKernel" && no_pattern run.ilog gpu-bound
