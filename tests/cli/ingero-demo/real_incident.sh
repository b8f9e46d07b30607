# recorded for real: ingero demo incident runs its workload on the fake CUDA
# libraries under ingero-record (uprobes + tracepoints) and must rank cpu-contention
# first; the root cause's numbers are recomputed from the recorded events
[ "$(id -u)" = 0 ] || { echo "needs root for eBPF (CI runs it)" >&2; exit 77; }
. "$INGERO_TESTS/scenarios/check.sh"
ingero demo --bpf --check -q incident -o run.ilog >out.txt || { cat out.txt >&2; exit 1; }
check_chain run.ilog cpu-contention "backup" ""
# ... and says where the slowed calls came from: the workload's own code
# (step, demo_workload where the compiler made the sync a tail call, or
# launches for a chain on cudaLaunchKernel; a whole-run chain names the
# process's heaviest path over all its calls), innermost first, the frames
# that called it after it
grep -Eq '^   Called from: (step|demo_workload|launches) \(workload\.c:[0-9]+\)( < [A-Za-z_]+ \([^)]*\))* \([0-9]+% of its (cuda[A-Za-z]+|CUDA) time' out.txt ||
	{ echo "no call site for the chain:" >&2; grep -A1 'Root cause' out.txt >&2; exit 1; }
