# SPDX-License-Identifier: MIT
# The recorder's CPython layout table (cmd/ingero-record/pyoffsets.h)
# against the headers of every CPython 3.10-3.13 on the machine: pylayout.c
# is compiled with each interpreter's own include directory (pyenv's, and
# Debian's python3.11-dev for /usr/bin/python3.11) and compares every
# entry with offsetof/sizeof there, including where a 3.13 interpreter's
# _Py_DebugOffsets keeps each offset.  No root needed.
set -euo pipefail
fail() { echo "FAIL: $*" >&2; exit 1; }
ci=0
case ${CI:-} in true | 1 | yes) ci=1 ;; esac
src=$INGERO_TESTS/cli/ingero-record/pylayout.c
repo=$(dirname "$INGERO_TESTS")
command -v cc >/dev/null || fail "no C compiler"

root=${PYENV_ROOT:-}
[[ -n $root && -d $root/versions ]] || root=${HOME:-/root}/.pyenv
[[ -d $root/versions ]] || root=/root/.pyenv
incs=() missing=()
for m in 10 11 12 13; do
	got=
	for d in "$root"/versions/3.$m.*/include/python3.$m; do
		[[ -f $d/Python.h ]] || continue
		incs+=("$d")
		got=1
	done
	[[ $got ]] || missing+=("pyenv 3.$m")
done
# Debian's headers are those of /usr/bin/python3.11 only if the versions agree
if [[ -f /usr/include/python3.11/Python.h && -x /usr/bin/python3.11 ]]; then
	incs+=("/usr/include/python3.11 -I/usr/include/x86_64-linux-gnu/python3.11")
	want=$(/usr/bin/python3.11 -c 'import sys; print("%d.%d.%d" % sys.version_info[:3])')
else
	missing+=("python3.11-dev")
fi
if ((${#missing[@]})); then
	((ci)) && fail "CPython headers missing on a CI machine: ${missing[*]}"
	echo "not checked here (absent): ${missing[*]}" >&2
fi
((${#incs[@]})) || { echo "no CPython 3.10-3.13 headers here" >&2; exit 77; }

for inc in "${incs[@]}"; do
	# shellcheck disable=SC2086 # the Debian entry is two -I options on purpose
	cc -std=gnu11 -I$inc -I"$repo/bpf" -I"$repo/cmd/ingero-record" -o pylayout "$src" ||
		fail "pylayout.c does not build against $inc"
	./pylayout >out || { grep -v '^ok ' out >&2; fail "layout table differs from $inc"; }
	ver=$(sed -n 's/^python //p' out)
	if [[ $inc == /usr/include/* && $ver != "$want" ]]; then
		fail "python3.11-dev headers are $ver, /usr/bin/python3.11 is $want"
	fi
	grep -q '^[0-9]* entries, 0 mismatched$' out || fail "$inc: no summary"
done
