# SPDX-License-Identifier: MIT
# --threshold has no short letter in --help (-t is --type in ingero-export);
# the old spelling -t PCT still works, since no percentage is a record
# type, and -t with a record type says what -t is here.
set -uo pipefail
"$INGERO_OUT/tests/tools/synth" --events 200 -o a.ilog
try() {
	local rc=0
	ingero-correlate "$@" >out.txt 2>err.txt || rc=$?
	echo "[$*] exit $rc, stdout $(wc -l <out.txt) lines; stderr: $(cat err.txt)"
}
try --baseline a.ilog -t 10 a.ilog
try --baseline a.ilog --threshold 10% a.ilog
try --baseline a.ilog -t cuda a.ilog
try --baseline a.ilog --threshold cuda a.ilog
try --baseline a.ilog -t x a.ilog
ingero-correlate --help | grep -c -- '-t, --threshold'
ingero-correlate -v --stats a.ilog 2>&1 >/dev/null
