# SPDX-License-Identifier: MIT
# Every call is recorded exactly once: per-op counts in the log equal the
# workload's own counts for runtime, graph, driver and NCCL calls, including
# allocations and frees, _ptsz twins, and aliases at one address
# (cuMemAlloc = cuMemAlloc_v2, ncclAllReduce = pncclAllReduce) counted once.
. "$INGERO_TESTS/cli/ingero-record/common.bash"
need_bpf

mix=cudaMalloc=2,cudaMallocManaged,cudaMallocHost,cudaMemcpy=3,cudaMemcpyAsync,cudaMemcpyAsync_ptsz
mix+=,cudaMemset,cudaMemsetAsync,cudaLaunchKernel=5,cudaLaunchKernel_ptsz=2,cudaStreamSynchronize
mix+=,cudaStreamSynchronize_ptsz,cudaDeviceSynchronize,cudaEventSynchronize,cudaStreamBeginCapture
mix+=,cudaStreamEndCapture,cudaGraphInstantiate,cudaGraphInstantiateWithFlags,cudaGraphLaunch=3
mix+=,cudaFree=3,cudaFreeHost
mix+=,cuMemAlloc=2,cuMemAlloc_v2=3,cuLaunchKernel=4,cuLaunchKernel_ptsz,cuLaunchKernelEx=2
mix+=,cuMemcpy,cuMemcpyAsync,cuMemcpyHtoD_v2,cuMemcpyDtoH_v2,cuMemcpyDtoD_v2,cuMemcpyHtoDAsync_v2
mix+=,cuMemcpyDtoHAsync_v2,cuCtxSynchronize,cuCtxSynchronize_v2,cuStreamSynchronize,cuMemFree=4
mix+=,cuMemFree_v2
mix+=,ncclCommInitRank,ncclAllReduce=2,ncclAllGather,ncclReduceScatter,ncclBroadcast,ncclSend
mix+=,ncclRecv,ncclCommDestroy

record_workload "" --mix "$mix" --iters 40 --threads 2

want=$(jq -c '.calls | to_entries | sort_by(.key) | from_entries' report.json)
got=$(cuda_counts "$wpid" | jq -c 'to_entries | sort_by(.key) | from_entries')
assert_eq "per-op counts" "$got" "$want"
# 40 iterations x 2 threads x (2 + 3) names of one function
assert_eq "cuMemAlloc via both aliases" "$(jq .calls.cuMemAlloc report.json)" 400
assert_eq "nothing else recorded" "$(jq -s '[.[] | select(.type=="cuda")] | length' log.jsonl)" \
	"$(jq .total report.json)"
# layers
assert_eq "graph layer" "$(jq -s -c '[.[] | select(.type=="cuda" and .layer=="graph") | .op] | unique' log.jsonl)" \
	'["cudaGraphInstantiate","cudaGraphInstantiateWithFlags","cudaGraphLaunch","cudaStreamBeginCapture","cudaStreamEndCapture"]'
assert_eq "nccl layer count" "$(jq -s '[.[] | select(.type=="cuda" and .layer=="nccl")] | length' log.jsonl)" 720
# every return code 0, no loss
assert_eq "non-zero returns" "$(jq -s '[.[] | select(.type=="cuda" and .ret != 0)] | length' log.jsonl)" 0
assert_eq "losses" "$(jq -s '[.[] | select(.type=="loss") | .lost] | add' log.jsonl)" 0
# the loss records saw exactly the calls made
assert_eq "probe:cudaLaunchKernel seen" \
	"$(last_loss probe:cudaLaunchKernel .seen)" \
	"$(jq .calls.cudaLaunchKernel report.json)"
# tids: two threads
assert_eq "threads" "$(jq -s "[.[] | select(.type==\"cuda\") | .tid] | unique | length" log.jsonl)" 2
# process and mapping records for the target
jq -e -s "any(.[]; .type==\"process\" and .pid==$wpid)" log.jsonl >/dev/null || fail "no process record"
jq -e -s "any(.[]; .type==\"mapping\" and .pid==$wpid and (.path | endswith(\"libcudart.so.13\")) and (.build_id | length) > 0)" \
	log.jsonl >/dev/null || fail "no mapping record with a build-id for libcudart"
