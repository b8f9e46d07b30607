# SPDX-License-Identifier: MIT
# Format 1.5 memory calls are decoded per the real ABI (SPEC §5.4): pinned
# host ranges (runtime and driver allocations and registrations, their
# releases), stream-ordered and pool allocations with their streams, and a
# copy's source pointer in args, the pinned buffer the copy reads.
. "$INGERO_TESTS/cli/ingero-record/common.bash"
need_bpf

mix=cudaHostAlloc,cudaMemcpyAsync,cudaFreeHost,cudaHostRegister,cudaMemcpyAsync,cudaHostUnregister
mix+=,cuMemHostAlloc,cuMemcpyHtoDAsync_v2,cuMemFreeHost,cuMemAllocHost_v2,cuMemFreeHost
mix+=,cuMemHostRegister_v2,cuMemHostUnregister,cudaMemcpyAsync
mix+=,cudaMallocAsync,cudaFreeAsync,cudaMallocFromPoolAsync,cudaFreeAsync
mix+=,cuMemAllocAsync,cuMemFreeAsync,cuMemAllocFromPoolAsync,cuMemFreeAsync
record_workload "" --mix "$mix" --iters 10 --bytes 12345 --kind 1 --stream 0xabc0
q() { jq -s -c "[.[] | select(.type==\"cuda\" and .op==\"$1\") | $2] | unique" log.jsonl; }
h() { jq -s -c "[.[] | select(.type==\"cuda\" and .op==\"$1\") | .handle] | sort" log.jsonl; }

for op in cudaHostAlloc cudaHostRegister cuMemHostAlloc cuMemAllocHost cuMemHostRegister \
	cudaMallocAsync cudaMallocFromPoolAsync cuMemAllocAsync cuMemAllocFromPoolAsync; do
	assert_eq "$op calls" "$(q "$op" .op | jq length)" 1
	assert_eq "$op bytes" "$(q "$op" .bytes)" '[12345]'
done
assert_eq "cudaHostAlloc layer" "$(q cudaHostAlloc .layer)" '["runtime"]'
assert_eq "cuMemHostAlloc layer" "$(q cuMemHostAlloc .layer)" '["driver"]'
for op in cudaMallocAsync cudaFreeAsync cudaMallocFromPoolAsync cuMemAllocAsync cuMemFreeAsync \
	cuMemAllocFromPoolAsync; do
	assert_eq "$op stream" "$(q "$op" .stream)" '["0xabc0"]'
done
# each release names what its allocation or registration returned or took
assert_eq "cudaFreeHost frees cudaHostAlloc's" "$(h cudaFreeHost)" "$(h cudaHostAlloc)"
assert_eq "cudaHostUnregister ends cudaHostRegister's" "$(h cudaHostUnregister)" "$(h cudaHostRegister)"
assert_eq "cuMemHostUnregister ends cuMemHostRegister's" "$(h cuMemHostUnregister)" "$(h cuMemHostRegister)"
assert_eq "cuMemFreeHost frees cuMemHostAlloc's and cuMemAllocHost's" "$(h cuMemFreeHost)" \
	"$(jq -s -c '[.[] | select(.type=="cuda" and (.op=="cuMemHostAlloc" or .op=="cuMemAllocHost")) | .handle] | sort' log.jsonl)"
assert_eq "cudaFreeAsync frees the stream-ordered allocations" "$(h cudaFreeAsync)" \
	"$(jq -s -c '[.[] | select(.type=="cuda" and (.op=="cudaMallocAsync" or .op=="cudaMallocFromPoolAsync")) | .handle] | sort' log.jsonl)"
assert_eq "cuMemFreeAsync frees the driver's" "$(h cuMemFreeAsync)" \
	"$(jq -s -c '[.[] | select(.type=="cuda" and (.op=="cuMemAllocAsync" or .op=="cuMemAllocFromPoolAsync")) | .handle] | sort' log.jsonl)"
# copies carry their source: within an iteration the first cudaMemcpyAsync
# reads cudaHostAlloc's buffer, the second cudaHostRegister's, the third
# nothing pinned (0x10000); cuMemcpyHtoDAsync reads cuMemHostAlloc's
ok=$(jq -s '[.[] | select(.type=="cuda")] as $c
	| [$c[] | select(.op=="cudaHostAlloc") | .handle] as $ha
	| [$c[] | select(.op=="cudaHostRegister") | .handle] as $hr
	| [$c[] | select(.op=="cuMemHostAlloc") | .handle] as $ch
	| [$c[] | select(.op=="cudaMemcpyAsync") | .args[0]] as $src
	| [$c[] | select(.op=="cuMemcpyHtoDAsync") | .args[0]] as $dsrc
	| [range(0; 10) as $i | $src[3*$i] == $ha[$i] and $src[3*$i+1] == $hr[$i]
	   and $src[3*$i+2] == "0x10000" and $dsrc[$i] == $ch[$i]] | (length == 10 and all)' log.jsonl)
assert_eq "copies' sources are the pinned buffers" "$ok" true
assert_eq "copies carry one arg" "$(q cudaMemcpyAsync '.args | length')" '[1]'
