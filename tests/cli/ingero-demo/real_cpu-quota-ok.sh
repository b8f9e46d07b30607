# recorded for real, the clean counterpart of cpu-quota: the same job in the
# same container, its cgroup's quota 2 CPUs, which its one busy thread (a
# third of a CPU) never reaches: the quota is recorded (cpu_quota), no
# period is throttled, no cpu-throttle chain, and no HIGH or MEDIUM chain
# names a culprit that is absent (the idle task, an empty name) or the
# quota.  (Other processes of a shared test machine may really preempt
# the job: such a chain names them and is allowed.)
[ "$(id -u)" = 0 ] || { echo "needs root for eBPF and a CPU cgroup (CI runs it)" >&2; exit 77; }
. "$INGERO_TESTS/scenarios/check.sh"
. "$INGERO_TESTS/cli/ingero-demo/neighbour.bash"
ingero demo --bpf -q cpu-quota-ok -o run.ilog >out.txt || { cat out.txt >&2; exit 1; }
ingero-export run.ilog >recs.jsonl || exit 1
if ! jq -se 'any(.[]; .type=="host" and .host_type=="cpu_quota" and .value==200000000)' recs.jsonl >/dev/null; then
	[ "${CI:-}" != true ] || { echo "CI: no CPU quota cgroup could be made" >&2; exit 1; }
	echo "no CPU quota cgroup could be made here" >&2
	exit 77
fi
jq -se '[.[] | select(.type=="host" and .host_type=="cpu_throttle") | .other_pid] | add == 0' \
	recs.jsonl >/dev/null || { echo "periods throttled under a quota of 2 CPUs" >&2; exit 1; }
no_pattern run.ilog cpu-throttle || exit 1
if jq -se 'any(.[]; .type=="chain" and (.severity=="HIGH" or .severity=="MEDIUM") and
	.culprit_pid != 0 and (.culprit_comm == "" or .culprit_comm == "swapper/0" or
	.culprit_comm == "swapper/1"))' corr.jsonl >/dev/null; then
	echo "a chain blames an absent culprit:" >&2
	jq -c 'select(.type=="chain") | [.rank, .severity, .pattern, .root_cause]' corr.jsonl >&2
	exit 1
fi
if [ "${CI:-}" = true ]; then
	no_chain_above run.ilog MEDIUM || exit 1 # a machine of its own: nothing at all
fi
exit 0
