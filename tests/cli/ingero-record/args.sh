# SPDX-License-Identifier: MIT
# Arguments are decoded per the real ABI (SPEC §5.4): sizes, memcpy kinds,
# streams, launch dims (dim3 by value in registers, 7th+ arguments on the
# stack, CUlaunchConfig through a pointer), handles returned through
# pointers, NCCL counts/types/communicators, graph handles linking
# capture -> instantiate -> launch.
. "$INGERO_TESTS/cli/ingero-record/common.bash"
need_bpf

mix=cudaMalloc=2,cudaMemcpy,cudaMemcpyAsync,cudaMemsetAsync,cudaLaunchKernel,cudaFree=2
mix+=,cudaStreamBeginCapture,cudaStreamEndCapture,cudaGraphInstantiate,cudaGraphLaunch=2
mix+=,cuLaunchKernel,cuLaunchKernelEx,cuMemcpyDtoHAsync_v2,cuMemAlloc,cuMemFree
mix+=,ncclCommInitRank,ncclAllReduce,ncclSend,ncclCommDestroy
record_workload "" --mix "$mix" --iters 25 --bytes 12345 --kind 2 --stream 0xabc0 \
	--func 0x4242f0 --grid 7,5,3 --block 64,2,1 --shared 1536
q() { jq -s -c "[.[] | select(.type==\"cuda\" and .op==\"$1\") | $2] | unique" log.jsonl; }

assert_eq "cudaMalloc bytes" "$(q cudaMalloc .bytes)" '[12345]'
assert_eq "cudaMemcpy bytes,kind,stream" "$(q cudaMemcpy '[.bytes,.kind,.stream]')" '[[12345,2,"0x0"]]'
assert_eq "cudaMemcpyAsync bytes,kind,stream" "$(q cudaMemcpyAsync '[.bytes,.kind,.stream]')" \
	'[[12345,2,"0xabc0"]]'
assert_eq "cudaMemsetAsync bytes,stream" "$(q cudaMemsetAsync '[.bytes,.stream]')" '[[12345,"0xabc0"]]'
assert_eq "cudaLaunchKernel" "$(q cudaLaunchKernel '[.handle,.grid_x,.grid_y,.grid_z,.block_x,.block_y,.block_z,.bytes,.stream]')" \
	'[["0x4242f0",7,5,3,64,2,1,1536,"0xabc0"]]'
assert_eq "cuLaunchKernel" "$(q cuLaunchKernel '[.handle,.grid_x,.grid_y,.grid_z,.block_x,.block_y,.block_z,.bytes,.stream]')" \
	'[["0x4242f0",7,5,3,64,2,1,1536,"0xabc0"]]'
assert_eq "cuLaunchKernelEx" "$(q cuLaunchKernelEx '[.handle,.grid_x,.grid_y,.grid_z,.block_x,.block_y,.block_z,.bytes,.stream]')" \
	'[["0x4242f0",7,5,3,64,2,1,1536,"0xabc0"]]'
assert_eq "cuMemcpyDtoHAsync" "$(q cuMemcpyDtoHAsync '[.bytes,.kind,.stream,.layer]')" \
	'[[12345,2,"0xabc0","driver"]]'
assert_eq "ncclAllReduce" "$(q ncclAllReduce '[.bytes,.kind,.stream,(.handle|startswith("0x5c"))]')" \
	'[[12345,7,"0xabc0",true]]'
assert_eq "ncclSend" "$(q ncclSend '[.bytes,.kind,.stream]')" '[[12345,7,"0xabc0"]]'
assert_eq "ncclCommInitRank nranks,rank" "$(q ncclCommInitRank '[.bytes,.kind]')" '[[2,0]]'

# handles returned through pointers are the ones the calls use later
allocs=$(jq -s -c '[.[] | select(.type=="cuda" and .op=="cudaMalloc") | .handle] | sort' log.jsonl)
frees=$(jq -s -c '[.[] | select(.type=="cuda" and .op=="cudaFree") | .handle] | sort' log.jsonl)
assert_eq "cudaFree frees what cudaMalloc returned" "$frees" "$allocs"
assert_eq "distinct allocations" "$(jq length <<<"$allocs")" 50
[[ $(jq -c 'map(startswith("0x7f")) | unique' <<<"$allocs") == '[true]' ]] || fail "cudaMalloc handles $allocs"
assert_eq "cuMemFree frees what cuMemAlloc returned" \
	"$(jq -s -c '[.[] | select(.type=="cuda" and .op=="cuMemFree") | .handle] | sort' log.jsonl)" \
	"$(jq -s -c '[.[] | select(.type=="cuda" and .op=="cuMemAlloc") | .handle] | sort' log.jsonl)"
# each iteration: capture on the stream -> graph G -> exec E -> E launched twice
ok=$(jq -s '[.[] | select(.type=="cuda" and .layer=="graph")] as $g
	| [range(0; 25) as $i | $g[$i*5:($i+1)*5]
	   | .[0].op=="cudaStreamBeginCapture" and .[0].stream=="0xabc0"
	     and .[1].op=="cudaStreamEndCapture" and (.[1].handle|startswith("0x6a"))
	     and .[2].op=="cudaGraphInstantiate" and (.[2].handle|startswith("0x6b"))
	     and .[3].handle==.[2].handle and .[4].handle==.[2].handle and .[3].stream=="0xabc0"]
	| all' log.jsonl)
assert_eq "graph handles link capture, instantiate and launch" "$ok" true
