# SPDX-License-Identifier: MIT
# --sampling-rate N thins out launches, copies and syncs only, and says so:
# per op, recorded + sampling:OP lost + probe:OP lost = calls made, events
# carry the SAMPLED flag; allocations, frees and graph calls are all
# recorded.  --stack=false records no stacks.
. "$INGERO_TESTS/cli/ingero-record/common.bash"
need_bpf

record_workload "--sampling-rate 4 --stack=false" --mix cudaMalloc,cudaLaunchKernel=16,cudaMemcpyAsync=4,cudaStreamSynchronize,cudaGraphLaunch,cudaFree \
	--iters 300

last() { jq -s "[.[] | select(.type==\"loss\" and .source==\"$1\")] | last | .$2 // 0" log.jsonl; }
for op in cudaLaunchKernel cudaMemcpyAsync cudaStreamSynchronize; do
	made=$(jq .calls.$op report.json)
	got=$(jq -s --arg op $op '[.[] | select(.type=="cuda" and .op==$op)] | length' log.jsonl)
	skipped=$(last sampling:$op lost)
	assert_eq "$op: recorded + skipped + lost" $((got + skipped + $(last probe:$op lost))) "$made"
	# one in 4 is kept; the counter is per CPU, so allow a little slack
	((got >= made / 4 - 8 && got <= made / 4 + 8)) || fail "$op: kept $got of $made with 1 in 4"
	assert_eq "$op SAMPLED flags" \
		"$(jq -s -c --arg op $op '[.[] | select(.type=="cuda" and .op==$op) | .flags] | unique' log.jsonl)" '[2]'
done
for op in cudaMalloc cudaFree cudaGraphLaunch; do
	assert_eq "$op: all recorded" \
		"$(jq -s --arg op $op '[.[] | select(.type=="cuda" and .op==$op and .flags==0)] | length' log.jsonl)" \
		"$(jq .calls.$op report.json)"
done
assert_eq "stack records" "$(jq -s '[.[] | select(.type=="stack")] | length' log.jsonl)" 0
assert_eq "stack ids" "$(jq -s -c '[.[] | select(.type=="cuda") | .stack_id] | unique' log.jsonl)" '["0x0"]'
