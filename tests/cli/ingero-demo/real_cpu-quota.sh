# recorded for real: ingero demo cpu-quota - the job runs in a Kubernetes-like
# container whose cgroup has a CPU quota of 10 ms per 100 ms period (0.1 CPU)
# while it keeps a CPU busy, so the kernel throttles it most of every period.
# Ranked first: cpu-throttle, naming the quota, the throttled periods and
# time, every number recomputed from the cpu_quota and cpu_throttle records
# (the cgroup's own cpu.stat counters, as the recorder read them); no chain
# blames the idle task, an empty name or another process's preemptions for
# the time the quota took.
[ "$(id -u)" = 0 ] || { echo "needs root for eBPF and a CPU cgroup (CI runs it)" >&2; exit 77; }
. "$INGERO_TESTS/scenarios/check.sh"
. "$INGERO_TESTS/cli/ingero-demo/neighbour.bash"
ingero demo --bpf -q cpu-quota -o run.ilog >out.txt || { cat out.txt >&2; exit 1; }
ingero-export run.ilog >recs.jsonl || exit 1
if ! jq -se 'any(.[]; .type=="host" and .host_type=="cpu_quota")' recs.jsonl >/dev/null; then
	[ "${CI:-}" != true ] || { echo "CI: no CPU quota cgroup could be made" >&2; exit 1; }
	echo "no CPU quota cgroup could be made here" >&2
	exit 77
fi
check_chain run.ilog cpu-throttle || exit 1
jq -se 'any(.[]; .type=="chain" and .rank==1 and (.severity=="HIGH" or .severity=="MEDIUM") and
	(.root_cause | test("ran under a CPU quota of 10.0 ms per 100 ms period \\(0.10 CPU\\)")) and
	.culprit_pid == 0 and .metrics.quota_ns == 10000000 and .metrics.period_ns == 100000000)' \
	corr.jsonl >/dev/null || { echo "the top chain is not the staged quota:" >&2
	jq -c 'select(.type=="chain") | [.rank, .severity, .pattern, .root_cause]' corr.jsonl >&2; exit 1; }
# the job asked for more than its quota: most periods throttled
jq -se '[.[] | select(.type=="host" and .host_type=="cpu_throttle")] |
	(map(.other_pid) | add) * 2 > (map(.other_tid) | add)' recs.jsonl >/dev/null ||
	{ echo "fewer than half the periods throttled: not staged clear of the limit" >&2; exit 1; }
if jq -se 'any(.[]; .type=="chain" and (.pattern=="cpu-contention" or .pattern=="isolated-stall" or
	.pattern=="periodic-spike" or .pattern=="gpu-slow") and (.severity=="HIGH" or .severity=="MEDIUM"))' \
	corr.jsonl >/dev/null; then
	echo "another chain claims the time the quota took:" >&2
	jq -c 'select(.type=="chain") | [.rank, .severity, .pattern, .root_cause]' corr.jsonl >&2
	exit 1
fi
# the HTML report draws the quota (10 ms per 100 ms: 10% of a CPU) and the
# time it throttled, summed from the cpu_throttle records
ingero-correlate --html report.html run.ilog >/dev/null || exit 1
grep -q 'data-signal="cpu-quota" data-label="CPU quota of the job[^ ]*s cgroup (100% = 1 CPU)" data-unit="pct"><text[^>]*>[^<]*</text><text[^>]*>max 10%<' report.html ||
	{ echo "no quota lane of 10% in the HTML report" >&2; grep -o 'data-signal="cpu-quota".\{0,300\}' report.html >&2; exit 1; }
thr=$(jq -s '[.[] | select(.type=="host" and .host_type=="cpu_throttle") | .value] | add' recs.jsonl)
grep -q 'data-signal="cpu-throttled"' report.html && [ "$thr" -gt 0 ] ||
	{ echo "no throttled-time lane in the HTML report ($thr ns throttled)" >&2; exit 1; }
exit 0
