# SPDX-License-Identifier: MIT
# --unwind=dwarf for a program without frame pointers (as PyTorch's and
# cuBLAS's code is built): a C workload compiled with -fomit-frame-pointer
# calls the fake runtime from main -> level1 -> level2, and the runtime's
# cudaLaunchKernel calls the driver's cuLaunchKernel inside (FAKECUDA_DRIVER).
#   - dwarf: every stack reaches main and libc's start, the driver call's
#     too, whose stack runs through the runtime call still in progress
#     (its return address on the stack is the uretprobe trampoline's; the
#     recorder puts back the real one the kernel kept);
#   - fp: the frame-pointer walk ends in level2 or level1 (the unwinder is
#     what makes the difference); the default (auto) copies nothing for a
#     process without a Python stack.
. "$INGERO_TESTS/cli/ingero-record/common.bash"
need_bpf
command -v gcc >/dev/null || fail "gcc missing"
gcc -O2 -g -fomit-frame-pointer -o app "$INGERO_TESTS/cli/ingero-record/unwind-dwarf.c" \
	-Wl,--no-as-needed "$FAKE/libcudart.so.13" "$FAKE/libcuda.so.1" -Wl,-rpath,"$FAKE" ||
	fail "cannot build the workload"

# stacks OP: each distinct symbolized stack of OP's events, "a < b < ...", with its count
stacks() {
	jq -r --arg op "$1" 'select(.op == $op) |
		[.callstack[] | .symbol // "?"] | join(" < ")' calls.jsonl | sort | uniq -c |
		sed 's/^ *//'
}

for mode in dwarf fp auto; do
	rm -f rec.ilog
	FAKECUDA_DRIVER=1 ingero-record -q -o rec.ilog --unwind=$mode -- ./app 20 2>rec.err ||
		fail "$mode: ingero-record exited $?: $(cat rec.err)"
	ingero-symbolize -q rec.ilog -o sym.ilog || fail "$mode: ingero-symbolize failed"
	ingero-export --callstacks -t cuda sym.ilog >calls.jsonl
	ingero-export -t loss sym.ilog >loss.jsonl
	copies=$(jq -s '[.[] | select(.source == "stack-copies")] | last | .seen // 0' loss.jsonl)
	start="main < __libc_start_call_main < __libc_start_main_impl < _start"
	case $mode in
	dwarf)
		assert_eq "dwarf: cuLaunchKernel stacks" "$(stacks cuLaunchKernel)" \
			"20 cuLaunchKernel < cudaLaunchKernel < level2 < level1 < $start"
		assert_eq "dwarf: cudaLaunchKernel stacks" "$(stacks cudaLaunchKernel)" \
			"20 cudaLaunchKernel < level2 < level1 < $start"
		assert_eq "dwarf: cudaStreamSynchronize stacks" "$(stacks cudaStreamSynchronize)" \
			"1 cudaStreamSynchronize < level1 < $start"
		((copies >= 3)) || fail "dwarf: $copies stack copies, want one per path (3)"
		assert_eq "dwarf: copies lost" \
			"$(jq -s '[.[] | select(.source == "stack-copies")] | last | .lost' loss.jsonl)" 0
		;;
	fp | auto)
		if grep -q ' < main < ' <(stacks cudaLaunchKernel) <(stacks cuLaunchKernel); then
			fail "$mode: a frame-pointer walk reached main through code without frame pointers"
		fi
		assert_eq "$mode: stack copies" "$copies" 0
		;;
	esac
done
