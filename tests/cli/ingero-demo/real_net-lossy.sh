# recorded for real: ingero demo net-lossy - net-retrans's all-reduce with
# its peer rank ("rank1") over TCP on loopback, the peer's data segments
# dropped at 15% for the whole run (an iptables rule of the scenario's own):
# the all-reduce stalls in about 1 call in 6, 200 ms each (the
# retransmission timeout), at random times all run long - too many for
# isolated stalls, and no interval stands out.  The top chain is still
# net-retransmits naming the peer's flow, and every number of its root
# cause recomputed from the exported records (check.jq).  (Before the rule
# for stalls too many to be isolated, this run made no chain at all.)
[ "$(id -u)" = 0 ] || { echo "needs root for eBPF (CI runs it)" >&2; exit 77; }
. "$INGERO_TESTS/scenarios/check.sh"
need_loss_rules
ingero demo --bpf --check -q net-lossy -o run.ilog >out.txt || { cat out.txt >&2; exit 1; }
check_chain run.ilog net-retransmits rank1 ncclAllReduce || exit 1
# the flow named is the culprit's, and it retransmitted a segment or more
# for each stall around them (the rule for stalls too many to be isolated)
# or in the interval
jq -se 'map(select(.type=="chain"))[0] | .metrics as $m |
	(.metrics.flow_retrans_in // 0) >= (if $m.frequent == 1 then $m.stalls else 1 end)' \
	corr.jsonl >/dev/null || { jq -c 'select(.type=="chain") | .metrics' corr.jsonl >&2; exit 1; }
! iptables -w -S INPUT | grep -q ingero-demo-net- || { echo "the loss rule was left behind" >&2; exit 1; }
