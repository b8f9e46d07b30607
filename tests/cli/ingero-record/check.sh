# SPDX-License-Identifier: MIT
# --check: a readiness report on stdout, one line per item with a fix hint
# for what fails; with a CUDA process running it names the library, the
# pids mapping it and how many traced functions it has.
. "$INGERO_TESTS/cli/ingero-record/common.bash"
need_bpf

"$W" --seconds 30 --gap-ns 1000000 --ready-file ready --report /dev/null &
wpid=$!
trap 'kill $wpid 2>/dev/null || true' EXIT
wait_for ready
rc=0
ingero-record --check >check.out 2>check.err || rc=$?
cat check.out >&2
[[ $rc == 0 || $rc == 1 ]] || fail "--check exited $rc"
for item in kernel btf uprobes bpf; do
	grep -Eq "^ok +$item " check.out || fail "item $item not ok"
done
# the mmap() watch: the lock's tracepoint where the kernel has it, a
# warning naming the system-call tracepoints where forced to them
if grep -qa btf_trace_mmap_lock_released /sys/kernel/btf/vmlinux; then
	grep -Eq "^ok +mmap watch +by the address space lock's tracepoint .*no cost" check.out ||
		fail "the mmap() watch is not the lock's tracepoint"
	INGERO_RECORD_HOLD_TP=1 ingero-record --check >tp.out 2>&1 || true
	grep -Eq "^warn +mmap watch +by its system call's tracepoints: .*slow path" tp.out ||
		fail "forced to the system-call tracepoints, --check does not say so"
else
	grep -Eq "^(ok|warn) +mmap watch " check.out || fail "no mmap watch item"
fi
# how calls will be probed: the attachment this kernel allows
grep -Eq "^(ok|warn) +probes +(uprobe session programs|uprobe_multi entry and return links|a perf-event uprobe and uretprobe per function) .* at each function's entry; returns by " check.out ||
	fail "no probes line naming the attachment"
grep -Eq "^ok +cuda library +$FAKE/libcudart.so.13 \(pids [0-9,]*$wpid[0-9,]*\): ([0-9]+)/\1 functions$" check.out ||
	fail "the workload's library is not reported with all its functions found"
last=$(tail -n 1 check.out)
if [[ $rc == 0 ]]; then
	[[ $last == "ready: 0 failed, "* ]] || fail "last line: $last"
else
	[[ $last == "not ready: "* ]] || fail "last line: $last"
fi
