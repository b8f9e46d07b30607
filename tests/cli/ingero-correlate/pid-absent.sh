# SPDX-License-Identifier: MIT
# --pid of a process the input never names: one warning line after the
# run (for the gate: per log that lacks it), not with -q, not for a
# process that is there; the exit status is unchanged.
set -uo pipefail
"$INGERO_OUT/tests/tools/synth" --events 200 -o a.ilog
try() {
	local rc=0
	ingero-correlate "$@" >out.txt 2>err.txt || rc=$?
	echo "[$*] exit $rc; stderr: $(cat err.txt)"
}
try --stats -p 999 a.ilog
try --json -q -p 999 a.ilog
try --report -p 4242 a.ilog
try -p 999 a.ilog -o out.ilog
try --baseline a.ilog -p 999 a.ilog
