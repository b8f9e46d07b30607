# recorded for real: ingero demo net-retrans - the job's ncclAllReduce
# exchanges its data with its peer rank (the process "rank1", started
# beside the recorder in a Kubernetes-like container cgroup, so no target)
# over TCP on loopback, through the fake NCCL's socket transport
# (FAKECUDA_NCCL_FD).  This kernel has no sch_netem, so the loss is an
# iptables rule of the scenario's own: for a third of the run the INPUT
# chain of lo drops 5% of the peer's data segments on the scenario's
# private port (-m statistic --mode random), and the peer's flow
# retransmits for real.  The top chain is net-retransmits naming that flow,
# its owner's PID, comm and container, and every number of its root-cause
# sentence recomputed from the exported records (check.jq).
[ "$(id -u)" = 0 ] || { echo "needs root for eBPF (CI runs it)" >&2; exit 77; }
. "$INGERO_TESTS/scenarios/check.sh"
need_loss_rules
ingero demo --bpf --check -q net-retrans -o run.ilog >out.txt || { cat out.txt >&2; exit 1; }
check_chain run.ilog net-retransmits rank1 ncclAllReduce || exit 1
# the network's own numbers were checked, not only the head of the sentence:
# 6 of an interval chain; 4 of a chain of stalls (on a loaded host the loss's
# retransmission timeouts, 200 ms stalls at random times, may be too few in
# any window for an anomalous interval: the isolated stalls' detector names
# the network then)
need=6
jq -se 'map(select(.type=="chain" and .rank==1))[0].root_cause | test("stalled at random times")' \
	corr.jsonl >/dev/null && need=4
[ "$(grep -c "^ok: .*retransmits" check.out)" -ge $need ] || { cat check.out >&2; exit 1; }
pid=$(jq -r 'select(.type=="chain" and .rank==1) | .culprit_pid' corr.jsonl)
# the culprit is the peer rank: no CUDA call, no child of the job
[ "$(jq -s --argjson p "$pid" '[.[] | select(.type=="cuda" and .pid==$p)] | length' recs.jsonl)" = 0 ] ||
	{ echo "culprit $pid made CUDA calls" >&2; exit 1; }
# the flow named is one the retrans records carry, owned by the culprit
flow=$(jq -r 'select(.type=="chain" and .rank==1) | .metrics.flow' corr.jsonl)
jq -se --argjson p "$pid" --arg f "$flow" 'any(.[]; .type=="retrans" and .pid==$p and
	"\(.saddr):\(.sport) > \(.daddr):\(.dport)" == $f)' recs.jsonl >/dev/null ||
	{ echo "flow $flow of $pid is in no retrans record" >&2; exit 1; }
# where cgroups can be made, its container is named from its process record
cg=$(jq -r --argjson p "$pid" 'select(.type=="process" and .pid==$p) | .container_id' recs.jsonl | head -n 1)
if [ -n "$cg" ]; then
	jq -se 'any(.[]; .type=="chain" and .rank==1 and
		(.root_cause | test("of PID [0-9]+ \\(rank1\\) in pod 0d3e0000-1111-4222-8333-444455556666, container c0ffee00c0ff,")))' \
		corr.jsonl >/dev/null || { echo "container not named" >&2; exit 1; }
elif [ "${CI:-}" = true ]; then
	echo "CI: no container cgroup was made" >&2; exit 1
fi
# the rule is gone
! iptables -w -S INPUT | grep -q ingero-demo-net- || { echo "the loss rule was left behind" >&2; exit 1; }
# the HTML report draws the network's lanes from the records
ingero-correlate --html report.html run.ilog >/dev/null || exit 1
grep -q 'TCP retransmissions' report.html && grep -q 'TCP bytes sent and received' report.html ||
	{ echo "no network lanes in the HTML report" >&2; exit 1; }
