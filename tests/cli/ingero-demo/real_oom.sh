# recorded for real: the workload joins a 64 MiB memory cgroup during its GPU
# work and grows its host memory until the kernel OOM killer kills it while a
# synchronize is in flight; ranked first: oom, HIGH, the call that never
# returned and the memory numbers checked against the recorded events
[ "$(id -u)" = 0 ] || { echo "needs root for eBPF and a memory cgroup (CI runs it)" >&2; exit 77; }
. "$INGERO_TESTS/scenarios/check.sh"
ingero demo --bpf --check -q oom -o run.ilog >out.txt || { cat out.txt >&2; exit 1; }
check_chain run.ilog oom || exit 1
jq -se 'any(.[]; .type=="chain" and .rank==1 and .severity=="HIGH" and (.root_cause | test("1 of its CUDA calls never returned")))' corr.jsonl >/dev/null
