# SPDX-License-Identifier: MIT
# Shared by the python*.sh cases (sourced after common.bash; not a case
# itself): the CPython interpreters to test and a recording of pytrain.py.

PYTRAIN=$INGERO_TESTS/cli/ingero-record/pytrain.py

# find_pythons: PYS=("label:path" ...), every CPython 3.10-3.13 under pyenv
# (libpython3.N.so based) and Debian's /usr/bin/python3.11 (statically
# linked).  CI machines have them all: there an absent one fails the case;
# elsewhere it is left out, and none at all is a skip.
find_pythons() {
	PYS=()
	local root=${PYENV_ROOT:-}
	[[ -n $root && -d $root/versions ]] || root=${HOME:-/root}/.pyenv
	[[ -d $root/versions ]] || root=/root/.pyenv
	local m d got missing=()
	for m in 10 11 12 13; do
		got=
		for d in "$root"/versions/3.$m.*; do
			[[ -x $d/bin/python3.$m ]] || continue
			PYS+=("pyenv-${d##*/}:$d/bin/python3.$m")
			got=1
		done
		[[ $got ]] || missing+=("pyenv 3.$m")
	done
	if [[ -x /usr/bin/python3.11 ]]; then
		PYS+=("debian-3.11:/usr/bin/python3.11")
	else
		missing+=("/usr/bin/python3.11")
	fi
	if ((${#missing[@]})); then
		case ${CI:-} in true | 1 | yes) fail "CPython missing on a CI machine: ${missing[*]}" ;; esac
		echo "not tested here (absent): ${missing[*]}" >&2
	fi
	((${#PYS[@]})) || skip "no CPython 3.10-3.13 here"
}

# start_py OUT PY ARGS...: start PY ARGS in the background, output to OUT,
# its pid in PYPID; with the sanitizer runtimes preloaded when the fake
# libraries come from an ASan/UBSan build (make asan): a library built so
# loads only into a process that has them, and an interpreter is not built
# with them.  Leak reports would be the interpreter's, not ours: off.
start_py() {
	local out=$1 pre
	shift
	pre=$(ldd "$FAKE/libcudart.so.13" 2>/dev/null | awk '/lib(a|ub)san[.]so/ {print $3}' | xargs)
	if [[ -n $pre ]]; then
		LD_PRELOAD="$pre" ASAN_OPTIONS="detect_leaks=0${ASAN_OPTIONS:+:$ASAN_OPTIONS}" \
			"$@" >"$out" 2>&1 &
	else
		"$@" >"$out" 2>&1 &
	fi
	PYPID=$!
}

# pyline NAME: the line of pytrain.py marked "# @NAME"
pyline() {
	local n
	n=$(grep -n "# @$1\$" "$PYTRAIN" | cut -d: -f1)
	[[ $n ]] || fail "pytrain.py has no @$1"
	echo "$n"
}

# record_python PY [RECORDER ARGS...]: run pytrain.py (ITERS iterations,
# default 3) under PY, recorded with --pid from its first call to its
# exit, into rec.ilog and log.jsonl of the current directory.  Sets ppid.
record_python() {
	local py=$1
	shift
	rm -f ready go
	start_py py.out "$py" "$PYTRAIN" "$FAKE/libcudart.so.13" "${ITERS:-3}"
	ppid=$PYPID
	wait_for ready
	start_rec --pid "$ppid" "$@"
	touch go
	wait "$ppid" || fail "$py pytrain.py failed: $(cat py.out)"
	stop_rec
	export_log
}

# py_calls [LOG.jsonl]: one line per distinct (op, thread, Python stack)
# among the CUDA events of the log (default log.jsonl) with its count: "N op | main|thread|child | frames",
# frames innermost first, "func:line" for pytrain.py ($PYSRC if set),
# "file:func" for others (library line numbers differ between versions), "?" when the
# event names a pystack with no record, "-" for none.
py_calls() {
	jq -r -s --argjson p "$ppid" --arg src "/${PYSRC:-pytrain.py}" '
		(map(select(.type=="pystack")) | map({key: .id, value: .py_frames}) | from_entries) as $ps
		| .[] | select(.type=="cuda")
		| [.op,
		   (if .pid != $p then "child" elif .tid != .pid then "thread" else "main" end),
		   (if .pystack_id == "0x0" then "-"
		    elif $ps[.pystack_id] == null then "?"
		    else $ps[.pystack_id] | map(
			if (.py_file // "" | endswith($src)) then "\(.py_func):\(.py_line)"
			else "\(.py_file // "null" | split("/") | last):\(.py_func)" end) | join(" < ")
		    end)] | join(" | ")' "${1:-log.jsonl}" | sort | uniq -c | sed 's/^ *//'
}
