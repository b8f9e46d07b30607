# SPDX-License-Identifier: MIT
# A process that is not Python is unaffected by the walker, also when a
# Python process is recorded beside it: the C workload's calls are all
# there with pystack_id 0 and no Python records of its pid, while the
# Python process beside it gets its stacks as usual.
. "$INGERO_TESTS/cli/ingero-record/common.bash"
. "$INGERO_TESTS/cli/ingero-record/pycommon.bash"
need_bpf
find_pythons

"$W" --mix cudaMalloc,cudaLaunchKernel=4,cudaFree --iters 50 --ready-file wready --wait-file go \
	--report report.json &
wpid=$!
py=${PYS[0]#*:}
start_py py.out "$py" "$PYTRAIN" "$FAKE/libcudart.so.13" 3
ppid=$PYPID
wait_for wready
wait_for ready
start_rec --pid "$wpid,$ppid"
touch go
wait "$wpid" || fail "workload failed"
wait "$ppid" || fail "$py pytrain.py failed: $(cat py.out)"
stop_rec
export_log

assert_eq "workload counts" "$(cuda_counts "$wpid")" "$(jq -S -c .calls report.json)"
assert_eq "workload pystack ids" \
	"$(jq -s -c "[.[] | select(.type==\"cuda\" and .pid==$wpid) | .pystack_id] | unique" log.jsonl)" \
	'["0x0"]'
assert_eq "workload python records" \
	"$(jq -s "[.[] | select((.type==\"pystack\" or .type==\"pycode\") and .pid==$wpid)] | length" \
		log.jsonl)" 0
# the Python side: its 12 calls, each with a resolved stack
jq -c "select(.pid != $wpid)" log.jsonl >py.jsonl
py_calls py.jsonl >calls
assert_eq "python calls" "$(awk '{n += $1} END {print n}' calls)" 12
if grep -e ' | -$' -e ' | ?$' -e 'null' calls >&2; then
	fail "python calls without a resolved stack"
fi
