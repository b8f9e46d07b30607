# SPDX-License-Identifier: MIT
# --pid of a process the input never names: the run is the same (headers
# and other context only), then one warning line on stderr, exit 0; none
# with -q, none for a process that is there (even when --type leaves none
# of its records), none without --pid.
set -uo pipefail
"$INGERO_OUT/tests/tools/synth" --events 50 -o ok.ilog
try() {
	local rc=0
	ingero-export "$@" >out.txt 2>err.txt || rc=$?
	echo "[$*] exit $rc, $(wc -l <out.txt) lines; stderr: $(cat err.txt)"
}
try -p 999 ok.ilog
try -q -p 999 ok.ilog
try -p 4242 ok.ilog
try -p 4242 -t loss ok.ilog
try -f csv -p 999 ok.ilog
try ok.ilog
