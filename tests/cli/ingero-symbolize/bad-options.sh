# SPDX-License-Identifier: MIT
# Usage errors: exit 2, nothing on stdout, one message naming the problem.
set -uo pipefail
synth=$INGERO_OUT/tests/tools/synth
"$synth" --events 10 -o ok.ilog
try() {
	local rc=0
	ingero-symbolize "$@" >out.txt 2>err.txt || rc=$?
	echo "[$*] exit $rc, stdout $(wc -c <out.txt) bytes"
	sed 's/^/  /' err.txt
}
try --nope ok.ilog
try --collect dir -o out.ilog ok.ilog
try missing.ilog -o out.ilog
try --debug-dir
try --threads 3 ok.ilog
echo "not a log" >text.txt
try text.txt -o out.ilog
try --collect bundle text.txt
