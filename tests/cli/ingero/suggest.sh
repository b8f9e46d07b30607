# SPDX-License-Identifier: MIT
# An unknown command: one line, exit 2, naming the closest command when it
# is a typo of one (edit distance, a swap of two letters counting one).
set -u
try() {
	local rc=0
	PATH=/usr/bin:/bin "$INGERO_BIN/ingero" "$@" >out.txt 2>err.txt || rc=$?
	echo "[$*] exit $rc, stdout $(wc -c <out.txt) bytes, $(wc -l <err.txt) line: $(cat err.txt)"
}
try exprot run.ilog
try recrod -o x.ilog
try corelate
try symbolise
try merg
try hlep
try frobnicate
try x
