# SPDX-License-Identifier: MIT
# --flight with --hang-after: a call in progress for longer than the bound
# triggers a dump, once for that call, whose `trigger` record names the
# call (pid, tid, op, how long it had run); the dump holds the calls
# before it and the call's `inflight` records.
. "$INGERO_TESTS/cli/ingero-record/common.bash"
need_bpf

rm -f ready go
FAKECUDA_LAT_ncclAllReduce_NS=5000000000 FAKECUDA_MODE_ncclAllReduce=sleep \
	"$W" --mix ncclCommInitRank,ncclAllReduce --iters 1 --redop 2 --bytes 4096 \
	--ready-file ready --wait-file go --report report.json &
wpid=$!
trap 'kill $wpid 2>/dev/null || true' EXIT
wait_for ready
# a window of 4 s: the call before the hang (1.5 s and a scan before the
# trigger) is in it
start_rec --pid "$wpid" --flight 4s --hang-after 1500ms
touch go
for ((i = 0; i < 400; i++)); do
	ls rec.flight-001-*Z.ilog >/dev/null 2>&1 && break
	sleep 0.05
done
ls rec.flight-001-*Z.ilog >/dev/null 2>&1 || fail "no dump in 20 s: $(cat rec.err)"
wait "$wpid" || fail "workload failed"
stop_rec
[[ $(ls rec.flight-* | wc -l) == 1 ]] || fail "one hang, one dump: $(ls rec.flight-*)"
ingero-export rec.flight-001-*Z.ilog >d.jsonl 2>d.err || fail "dump unreadable: $(cat d.err)"
t=$(jq -s -c '[.[] | select(.type=="trigger")]' d.jsonl)
assert_eq "the trigger names the call" \
	"$(jq -c "map([.reason, .seq, .pid, .tid, .op, .value_ns >= 1500000000, .value_ns < 5000000000])" <<<"$t")" \
	"[[\"hang\",1,$wpid,$wpid,\"ncclAllReduce\",true,true]]"
assert_eq "the call before it" \
	"$(jq -s '[.[] | select(.type=="cuda" and .op=="ncclCommInitRank")] | length' d.jsonl)" 1
(($(jq -s '[.[] | select(.type=="inflight" and .op=="ncclAllReduce")] | length' d.jsonl) >= 1)) ||
	fail "no inflight record of the hanging call in the dump"
