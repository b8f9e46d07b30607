# SPDX-License-Identifier: MIT
# A multi-rank job's NCCL calls carry their arguments (SPEC §5.4, 1.4):
# two processes (the workload and its forked child) join the communicator
# of one ncclUniqueId and get the same id_hash, the FNV-1a 64 of the id's
# 128 bytes computed here; reductions their redop, rooted calls their
# root (ncclReduce's eight arguments: comm and stream on the stack),
# point-to-point calls their peer, splits their parent, color and key
# (sign-extended), and groups their start and end around what they hold.
. "$INGERO_TESTS/cli/ingero-record/common.bash"
need_bpf

id=0200c35a0a0000070000000000000000ff
mix=ncclCommInitRank,ncclCommInitRankConfig,ncclGroupStart,ncclSend,ncclRecv,ncclGroupEnd
mix+=,ncclAllReduce,ncclReduceScatter,ncclReduce,ncclBroadcast,ncclBcast,ncclAllGather
mix+=,ncclCommSplit,ncclCommInitAll,ncclCommDestroy
record_workload "" --mix "$mix" --iters 3 --fork 1 --nccl-id "$id" --nranks 4 --rank 2 \
	--redop 3 --root 1 --peer 5 --split 7,-2 --bytes 12345 --stream 0xabc0
pids=$(jq -c '.pids | sort' report.json)
assert_eq "processes" "$(jq length <<<"$pids")" 2

# FNV-1a 64 over the id as the workload passes it: its bytes, then zeros to 128
want=$(python3 -c '
import sys
h = 0xcbf29ce484222325
for c in bytes.fromhex(sys.argv[1]).ljust(128, b"\0"):
    h = ((h ^ c) * 0x100000001b3) % 2**64
print(hex(h))' "$id")
q() { jq -s -c "[.[] | select(.type==\"cuda\" and .op==\"$1\") | $2] | unique" log.jsonl; }
for op in ncclCommInitRank ncclCommInitRankConfig; do
	assert_eq "$op: id_hash, nranks, rank" "$(q $op '[.args, .bytes, .kind]')" "[[[\"$want\"],4,2]]"
	assert_eq "$op: the processes with that id_hash" "$(q $op .pid)" "$pids"
	assert_eq "$op: calls" "$(q $op '[.pid, .ts_ns]' | jq length)" 6
done
assert_eq "ncclAllReduce redop" "$(q ncclAllReduce '[.args,.bytes,.kind,.stream]')" '[[["0x3"],12345,7,"0xabc0"]]'
assert_eq "ncclReduceScatter redop" "$(q ncclReduceScatter .args)" '[["0x3"]]'
assert_eq "ncclReduce redop, root; comm and stream from the stack" \
	"$(q ncclReduce '[.args,.bytes,.kind,.stream,(.handle|startswith("0x5c"))]')" \
	'[[["0x3","0x1"],12345,7,"0xabc0",true]]'
assert_eq "ncclBroadcast root" "$(q ncclBroadcast .args)" '[["0x1"]]'
assert_eq "ncclBcast root" "$(q ncclBcast '[.args,.bytes,.kind,.stream,(.handle|startswith("0x5c"))]')" \
	'[[["0x1"],12345,7,"0xabc0",true]]'
assert_eq "ncclSend peer" "$(q ncclSend .args)" '[["0x5"]]'
assert_eq "ncclRecv peer" "$(q ncclRecv .args)" '[["0x5"]]'
assert_eq "ncclAllGather: no args" "$(q ncclAllGather .args)" '[null]'
assert_eq "ncclCommInitAll ndev, comms[0]" "$(q ncclCommInitAll '[.bytes,(.handle|startswith("0x5c")),.args]')" \
	'[[4,true,null]]'
assert_eq "ncclCommSplit color, key; the new communicator" \
	"$(q ncclCommSplit '[.args[1:],(.handle|startswith("0x5c")),.bytes,.kind]')" \
	'[[["0x7","0xfffffffffffffffe"],true,0,0]]'
# the parent is the communicator the process's ncclCommInitRankConfig made last
ok=$(jq -s '[.[] | select(.type=="cuda")] | group_by(.pid) | map(
	  [foreach .[] as $e ({}; if $e.op=="ncclCommInitRankConfig" then .comm=$e.handle else . end
			       | .e=$e; select(.e.op=="ncclCommSplit") | .e.args[0]==.comm)] )
	| flatten | (length==6 and all)' log.jsonl)
assert_eq "ncclCommSplit's parent" "$ok" true
# per process, in call order: start, send, recv, end, three times
groups=$(jq -s -c '[.[] | select(.type=="cuda" and (.op|test("^nccl(GroupStart|Send|Recv|GroupEnd)$")))]
	| group_by(.pid) | map(map(.op) | join(",")) | unique' log.jsonl)
assert_eq "groups" "$groups" \
	"[\"$(printf 'ncclGroupStart,ncclSend,ncclRecv,ncclGroupEnd%.0s,' 1 2 3 | sed 's/,$//')\"]"
assert_eq "every NCCL op of the mix, in the nccl layer, as often as called" \
	"$(cuda_counts "$(jq -r '.pids | join(" ")' report.json)")" "$(jq -S -c .calls report.json)"
assert_eq "layers" "$(jq -s -c '[.[] | select(.type=="cuda") | .layer] | unique' log.jsonl)" '["nccl"]'
