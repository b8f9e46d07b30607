# SPDX-License-Identifier: MIT
# Loss is counted, never silent: with a deliberately tiny CUDA ring buffer
# and a workload making calls as fast as it can, events are lost, and the
# log's counters say exactly how many: per op, lost = calls made - events
# recorded, seen = calls made.  Critical events (fork, exit) still all
# arrive.
. "$INGERO_TESTS/cli/ingero-record/common.bash"
need_bpf

record_workload "--ringbuf-size 4096 --stack=false" \
	--mix cudaLaunchKernel=20,cudaMemcpyAsync=5,cudaMalloc,cudaFree --fork 2 --threads 2 --iters 3000

pids=$(jq -r '.pids | join(" ")' report.json)
last() { jq -s "[.[] | select(.type==\"loss\" and .source==\"$1\")] | last | .$2" log.jsonl; }
total_lost=0
for op in cudaLaunchKernel cudaMemcpyAsync cudaMalloc cudaFree; do
	made=$(jq .calls.$op report.json)
	got=$(jq -s --arg op $op "[.[] | select(.type==\"cuda\" and .op==\$op)] | length" log.jsonl)
	assert_eq "probe:$op seen" "$(last probe:$op seen)" "$made"
	assert_eq "probe:$op lost = made - recorded" "$(last probe:$op lost)" $((made - got))
	total_lost=$((total_lost + made - got))
done
((total_lost > 0)) || fail "a 4 KiB ring lost nothing; the case tests nothing"
echo "lost $total_lost of $(jq .total report.json) calls" >&2
rb_lost=$(last ringbuf:cuda lost)
assert_eq "ringbuf:cuda lost" "$rb_lost" "$total_lost"
assert_eq "ringbuf:critical lost" "$(last ringbuf:critical lost)" 0
for c in $(jq -r ".pids[] | select(. != $wpid)" report.json); do
	assert_eq "fork event of child $c" \
		"$(jq -s "[.[] | select(.type==\"host\" and .host_type==\"fork\" and .other_pid==$c)] | length" log.jsonl)" 1
done
for p in $pids; do
	assert_eq "exit event of $p" \
		"$(jq -s "[.[] | select(.type==\"host\" and .host_type==\"exit\" and .pid==$p)] | length" log.jsonl)" 1
done
