# SPDX-License-Identifier: MIT
# Unknown commands and options: exit 2, one line saying so.
set -u
try() {
	local rc=0
	PATH=/usr/bin:/bin "$INGERO_BIN/ingero" "$@" >out.txt 2>err.txt || rc=$?
	echo "[$*] exit $rc, stdout $(wc -c <out.txt) bytes: $(head -n 1 err.txt)"
}
try frobnicate
try -x
try --bogus
try ../ingero-export
