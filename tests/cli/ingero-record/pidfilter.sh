# SPDX-License-Identifier: MIT
# --pid traces the named process only: a second CUDA process running the
# same library at the same time leaves no event of its own in the log (a
# process record only if it preempted or woke the traced one; the whole
# host's records may name it).
. "$INGERO_TESTS/cli/ingero-record/common.bash"
need_bpf

"$W" --iters 100 --ready-file ready1 --wait-file go --report one.json &
p1=$!
"$W" --iters 100 --ready-file ready2 --wait-file go --report two.json &
p2=$!
wait_for ready1
wait_for ready2
start_rec --pid "$p1"
touch go
wait "$p1" || fail "workload 1 failed"
wait "$p2" || fail "workload 2 failed"
stop_rec
export_log

assert_eq "counts of the traced process" "$(cuda_counts "$p1")" "$(jq -S -c .calls one.json)"
# its process record only where it preempted or woke the traced one, or
# held the CPU a traced thread waited for (a wakeup's value, format 1.7: a
# culprit is named by its record), and the whole host's records (SPEC
# §5.5, §5.19-5.21: the top page allocators, block I/O, sockets of any
# process, with theirs), none of its own events
host_wide='(.type == "host" and (.host_type | IN("page_alloc", "reclaim", "compact")))
	or (.type | IN("process", "blkio", "retrans", "sockio"))'
assert_eq "events of the other process" \
	"$(jq -s "[.[] | select(.pid==$p2 and (($host_wide) | not))] | length" log.jsonl)" 0
if [[ $(jq -s "[.[] | select(.type==\"process\" and .pid==$p2)] | length" log.jsonl) != 0 ]]; then
	assert_eq "the other process named as a preempter, waker, occupant or by a whole-host record" \
		"$(jq -s "[.[] | select((.type==\"host\" and .other_pid==$p2) or
			(.type==\"host\" and .host_type==\"wakeup\" and .value==$p2) or
			(.pid==$p2 and .type != \"process\" and ($host_wide)))] | length > 0" log.jsonl)" true
fi
assert_eq "processes in the log" \
	"$(jq -s -c '[.[] | select(.type=="cuda") | .pid] | unique' log.jsonl)" "[$p1]"
