# recorded for real: the workload joins a 64 MiB memory cgroup during its GPU
# work and grows its host memory until the kernel OOM killer kills it while a
# synchronize is in flight; ranked first: oom, HIGH, the call that never
# returned and the memory numbers checked against the recorded events (the
# cgroup's limit and usage from the oom_memcg record)
[ "$(id -u)" = 0 ] || { echo "needs root for eBPF and a memory cgroup (CI runs it)" >&2; exit 77; }
. "$INGERO_TESTS/scenarios/check.sh"
ingero demo --bpf --check -q oom -o run.ilog >out.txt || { cat out.txt >&2; exit 1; }
check_chain run.ilog oom || exit 1
jq -se 'any(.[]; .type=="chain" and .rank==1 and .severity=="HIGH" and (.root_cause | test("1 of its CUDA calls never returned")))' corr.jsonl >/dev/null
# the kill enforced the 64 MiB cgroup's limit, not the host's memory: the
# recorder's oom_memcg record holds that limit, and the chain names it,
# says the host still had memory and gives the limit as the fix
jq -se 'any(.[]; .type=="host" and .host_type=="oom_memcg" and .value==67108864 and .dur_ns > 0)' recs.jsonl >/dev/null ||
	{ echo "no oom_memcg record of the 64 MiB limit" >&2; exit 1; }
jq -se 'any(.[]; .type=="chain" and .rank==1 and
	(.root_cause | test("had reached its limit of 64.0 MiB .*the limit ran out, not the host")) and
	(.fix | test("memory limit of the job.s container")))' corr.jsonl >/dev/null ||
	{ echo "the oom chain does not name the cgroup's limit" >&2; exit 1; }
