# SPDX-License-Identifier: MIT
# Ingero's command names (trace, check, explain, query, dashboard): one
# line on stderr naming the command that does that job here, nothing on
# stdout, exit 2; `ingero help NAME` says the same.  A program of that name
# installed next to ingero is still run (git style).
set -u
try() {
	local rc=0
	PATH=/usr/bin:/bin "$INGERO_BIN/ingero" "$@" >out.txt 2>err.txt || rc=$?
	echo "[$*] exit $rc, stdout $(wc -c <out.txt) bytes, $(wc -l <err.txt) line: $(cat err.txt)"
}
for n in trace check explain query dashboard; do
	try "$n"
done
try trace -d 10s python3 train.py
try help explain
try -v query run.ilog
mkdir bin
cp "$INGERO_BIN/ingero" bin/
printf '#!/bin/sh\necho "ingero-trace ran: $*"\n' >bin/ingero-trace
chmod +x bin/ingero-trace
bin/ingero trace x
