# SPDX-License-Identifier: MIT
# A call that blocks is written while it blocks (SPEC §5.22): each second
# an `inflight` record of it, with its op and the arguments decoded at
# entry, once it has run longer than --inflight-after (1 s by default), in
# a frame that ends at once, so that a recorder killed with SIGKILL during
# the hang leaves them in the log.  An NCCL call's stack is taken at entry,
# so they name it.
. "$INGERO_TESTS/cli/ingero-record/common.bash"
need_bpf

rm -f ready go
FAKECUDA_LAT_ncclAllReduce_NS=8000000000 FAKECUDA_MODE_ncclAllReduce=sleep \
	"$W" --mix ncclCommInitRank,ncclAllReduce --iters 1 --redop 2 --bytes 4096 --stream 0xabc0 \
	--ready-file ready --wait-file go --report report.json &
wpid=$!
wait_for ready
start_rec --pid "$wpid"
touch go
# until the log holds two inflight records (the call lasts 8 s)
inflight() {
	{ ingero-export --type inflight rec.ilog 2>/dev/null || true; } | jq -s -c .
}
for ((i = 0; i < 140; i++)); do
	n=$(inflight | jq length)
	((n >= 2)) && break
	sleep 0.05
done
((n >= 2)) || fail "$n inflight records in the log after 7 s"
kill -KILL "$RECPID"
wait "$RECPID" 2>/dev/null || true
wait "$wpid" || fail "workload failed"
rc=0
ingero-export rec.ilog >log.jsonl 2>export.err || rc=$?
# killed between frames: every frame is whole (or one is cut short)
[[ $rc == 0 ]] || grep -q 'truncated frame' export.err || fail "export: $(cat export.err)"
recs=$(jq -s -c '[.[] | select(.type=="inflight")]' log.jsonl)
((n = $(jq length <<<"$recs"), n >= 2)) || fail "$n inflight records after the SIGKILL"
assert_eq "the call, its arguments" \
	"$(jq -c "map([.pid, .tid, .op, .layer, .args, .bytes, .kind, .stream, .ret, .flags,
	              (.handle|startswith(\"0x5c\"))]) | unique" <<<"$recs")" \
	"[[$wpid,$wpid,\"ncclAllReduce\",\"nccl\",[\"0x2\"],4096,7,\"0xabc0\",0,0,true]]"
assert_eq "one call: one entry time" "$(jq -c 'map(.ts_ns) | unique | length' <<<"$recs")" 1
assert_eq "each longer than --inflight-after (1 s)" "$(jq 'map(.dur_ns >= 1e9) | all' <<<"$recs")" true
assert_eq "one a window: a second or more apart" \
	"$(jq '[range(1; length) as $i | .[$i].dur_ns - .[$i-1].dur_ns >= 9e8] | all' <<<"$recs")" true
assert_eq "the call never returned while recorded" \
	"$(jq -s '[.[] | select(.type=="cuda" and .op=="ncclAllReduce")] | length' log.jsonl)" 0
stack=$(jq -r '.[0].stack_id' <<<"$recs")
assert_eq "the stack taken at entry" "$(jq -c 'map(.stack_id) | unique' <<<"$recs")" "[\"$stack\"]"
assert_eq "its stack record is in the log" \
	"$(jq -s --arg id "$stack" '[.[] | select(.type=="stack" and .id==$id) | .ips | length > 2] | .[0]' log.jsonl)" true
