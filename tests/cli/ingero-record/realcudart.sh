# SPDX-License-Identifier: MIT
# Against the real CUDA 13 runtime (no GPU here: every call fails at once
# with cudaErrorInsufficientDriver, 35, but the probes fire): the calls of a
# small program are recorded with their arguments and that return code.
. "$INGERO_TESTS/cli/ingero-record/common.bash"
need_bpf

real=/usr/local/cuda/lib64
[[ -e $real/libcudart.so.13 ]] || skip "no $real/libcudart.so.13"
record_workload "" --lib-dir "$real" --mix cudaMalloc,cudaMemcpy,cudaLaunchKernel,cudaStreamSynchronize \
	--iters 20 --bytes 4096 --stream 0x51

assert_eq "returns the workload saw" "$(jq -c '.ret | [.[]] | unique' report.json)" '[35]'
assert_eq "counts" "$(cuda_counts "$wpid")" "$(jq -S -c .calls report.json)"
# (launches recorded at entry, UNTIMED, flag 4, have no return value: SPEC §5.4)
assert_eq "recorded returns" \
	"$(jq -s -c "[.[] | select(.type==\"cuda\" and .pid==$wpid and .flags % 8 < 4) | .ret] | unique" log.jsonl)" '[35]'
assert_eq "untimed launches: no return value" \
	"$(jq -s -c "[.[] | select(.type==\"cuda\" and .pid==$wpid and .flags % 8 >= 4) | .ret] | unique - [0]" log.jsonl)" '[]'
assert_eq "memcpy args" \
	"$(jq -s -c '[.[] | select(.type=="cuda" and .op=="cudaMemcpy") | [.bytes, .kind]] | unique' log.jsonl)" \
	'[[4096,1]]'
assert_eq "sync stream" \
	"$(jq -s -c '[.[] | select(.type=="cuda" and .op=="cudaStreamSynchronize") | .stream] | unique' log.jsonl)" \
	'["0x51"]'
# the failed cudaMalloc returned no pointer
assert_eq "cudaMalloc handle" \
	"$(jq -s -c '[.[] | select(.type=="cuda" and .op=="cudaMalloc") | [.bytes, .handle]] | unique' log.jsonl)" \
	'[[4096,"0x0"]]'
lib=$(readlink -f "$real/libcudart.so.13")
jq -e -s "any(.[]; .type==\"mapping\" and .pid==$wpid and .path==\"$lib\" and (.build_id|length) == 40)" \
	log.jsonl >/dev/null || fail "no mapping of $lib with its build-id"
