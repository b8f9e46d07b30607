# SPDX-License-Identifier: MIT
# Python frames interleaved with native frames (issue 4): pytrain.py calls
# the fake CUDA runtime through ctypes, whose libffi, the ctypes module and
# the interpreter are all built without frame pointers.  With the default
# --unwind=auto the recorder unwinds a copy of the stack with DWARF CFI, so
# the native stack reaches the interpreter's eval-loop calls, and
# `ingero-export --callstacks` (after ingero-symbolize) puts the Python
# frames in their place, for every CPython 3.10-3.13 here (pyenv's and
# Debian's static python3.11):
#   - cudaMemset, called from via_c through map() (a C function calling
#     back into Python), shows via_c, then native frames of the C call
#     (map_next where the interpreter has its symbols), then main and
#     <module>: two eval-loop calls, each replaced by its own frames;
#   - cudaMalloc (Model.forward < step < main < <module>): from 3.11 on one
#     eval-loop call runs all four (no native frame between them), in 3.10
#     each has its own call (native frames between each pair);
#   - no _PyEval_EvalFrameDefault is left over, the stack reaches libc's
#     start, and no stack copy was lost;
#   - ingero-mcp's get_stacks (from the SQLite export) and the folded
#     stacks of ingero-export -f folded merge them alike.
# With --unwind=fp the same workload's native stack stops in libffi, and
# the Python frames can only be put after it: the unwinder is what makes
# the difference.
. "$INGERO_TESTS/cli/ingero-record/common.bash"
. "$INGERO_TESTS/cli/ingero-record/pycommon.bash"
need_bpf
find_pythons

# chain OP: the first call of OP as "sym < sym < [py]func < ...", innermost first
chain() {
	jq -r --arg op "$1" 'select(.op == $op) | [.callstack[] |
		if has("py_func") then "[py]\(.py_func)" else (.symbol // "?") end] | join(" < ")' \
		calls.jsonl | head -1
}

# between CHAIN A B: the frames strictly between the first A and the next B
between() {
	awk -v a="$2" -v b="$3" 'BEGIN { RS = " < " } { sub(/\n$/, "") }
		on && $0 == b { exit } on { print } $0 == a { on = 1 }' <<<"$1"
}

check_one() {
	local py=$1 minor fwd c m n
	minor=$("$py" -c 'import sys; print(sys.version_info[1])')
	fwd=Model.forward
	[[ $minor == 10 ]] && fwd=forward
	record_python "$py"
	ingero-symbolize -q rec.ilog -o sym.ilog || fail "$py: ingero-symbolize failed"
	ingero-export --callstacks -t cuda -p "$ppid" sym.ilog >calls.jsonl ||
		fail "$py: ingero-export --callstacks failed"

	c=$(chain cudaMemset)
	echo "$py cudaMemset: $c" >&2
	[[ $c == "cudaMemset < "* ]] || fail "$py: cudaMemset's stack does not start with it"
	assert_eq "$py: cudaMemset's Python frames" \
		"$(grep -o '\[py\][^ ]*' <<<"$c" | xargs)" "[py]via_c [py]main [py]<module>"
	# the native frames of the ctypes call come before the first Python frame
	between "$c" cudaMemset "[py]via_c" | grep -qx ffi_call ||
		fail "$py: no ffi_call between cudaMemset and via_c (not unwound)"
	between "$c" cudaMemset "[py]via_c" | grep -qx _PyObject_MakeTpCall ||
		fail "$py: no _PyObject_MakeTpCall between cudaMemset and via_c"
	# map() is a C call between via_c's eval loop and main's
	n=$(between "$c" "[py]via_c" "[py]main" | wc -l)
	((n > 0)) || fail "$py: no native frame between via_c and main (map's C call)"
	case $py in
	/usr/bin/*) ;; # static, stripped of local symbols
	*) between "$c" "[py]via_c" "[py]main" | grep -qx map_next ||
		fail "$py: map_next not between via_c and main" ;;
	esac
	[[ $c == *" < __libc_start_main"* || $c == *" < _start" ]] ||
		fail "$py: the stack does not reach the program's start"

	m=$(chain cudaMalloc)
	echo "$py cudaMalloc: $m" >&2
	assert_eq "$py: cudaMalloc's Python frames" \
		"$(grep -o '\[py\][^ ]*' <<<"$m" | xargs)" "[py]$fwd [py]step [py]main [py]<module>"
	n=$(between "$m" "[py]$fwd" "[py]<module>" | grep -vc '^\[py\]')
	if [[ $minor == 10 ]]; then
		((n >= 3)) || fail "$py: 3.10 runs each frame in its own eval-loop call, saw $n native frames"
	else
		assert_eq "$py: native frames among the frames of one eval-loop call" "$n" 0
	fi

	if jq -r '.callstack[] | .symbol // empty' calls.jsonl | grep -qx _PyEval_EvalFrameDefault; then
		fail "$py: an eval-loop frame without its Python frames"
	fi
	# folded stacks (flamegraph.pl input): root first, the same merge; the
	# values add up to the process's CUDA time
	ingero-export -f folded -p "$ppid" sym.ilog >folded.txt || fail "$py: folded export failed"
	assert_eq "$py: folded lines end in a number" "$(grep -cvE ' [0-9]+$' folded.txt)" 0
	assert_eq "$py: folded total = CUDA time" "$(awk '{ s += $NF } END { print s }' folded.txt)" \
		"$(jq -s '[.[] | select(.type == "cuda") | .dur_ns] | add' calls.jsonl)"
	grep -E "^[^;]+ \[$ppid\];.*;<module> \(pytrain.py:[0-9]+\);(.+;)?main \(pytrain.py:[0-9]+\);.+;via_c \(pytrain.py:[0-9]+\);.+;cudaMemset [0-9]+\$" \
		folded.txt >/dev/null || fail "$py: no folded cudaMemset stack through main, C, via_c"
	# ingero-mcp's get_stacks merges them the same way, from SQLite
	ingero-export -f sqlite -o run.db sym.ilog || fail "$py: sqlite export failed"
	printf '%s\n' '{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}' \
		'{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"get_stacks","arguments":{"op":"cudaMemset","frames":64}}}' |
		ingero-mcp --db run.db >mcp.out || fail "$py: ingero-mcp failed"
	m=$(jq -r 'select(.id == 1) | .result.content[0].text | fromjson | .stacks[0].callstack
		| map(if startswith("[py] ") then "[py]" + (split(" in ") | last) else "n" end)
		| join(" ")' mcp.out)
	echo "$py get_stacks: $m" >&2
	[[ $m =~ ^(n\ )+\[py\]via_c(\ n)+\ \[py\]main(\ n)*\ \[py\]\<module\>(\ n)+$ ]] ||
		fail "$py: get_stacks callstack not merged at the eval-loop calls"
	assert_eq "$py: stack copies lost" \
		"$(last_loss stack-copies .lost)" 0

	# frame pointers only: the walk ends in libffi, Python frames come after it
	record_python "$py" --unwind=fp
	ingero-symbolize -q rec.ilog -o sym.ilog || fail "$py: ingero-symbolize failed (fp)"
	ingero-export --callstacks -t cuda -p "$ppid" sym.ilog >calls.jsonl
	c=$(chain cudaMemset)
	echo "$py cudaMemset, --unwind=fp: $c" >&2
	[[ $c == *"[py]via_c < [py]main < [py]<module>" ]] ||
		fail "$py: --unwind=fp: Python frames not last"
	if grep -q _PyObject_MakeTpCall <<<"$c"; then
		fail "$py: --unwind=fp reached the interpreter (frame pointers in libffi?)"
	fi
}

for entry in "${PYS[@]}"; do
	label=${entry%%:*}
	mkdir "$label"
	(cd "$label" && check_one "${entry#*:}") || exit 1
done
