# SPDX-License-Identifier: MIT
# --since/--until with a bare duration ("10s" where a wall time or
# +DURATION is expected): exit 2, and the message says to write '+10s'.
set -uo pipefail
"$INGERO_OUT/tests/tools/synth" --events 10 -o ok.ilog
try() {
	local rc=0
	"$@" >out.txt 2>err.txt || rc=$?
	echo "[$*] exit $rc, stdout $(wc -c <out.txt) bytes: $(cat err.txt)"
}
try ingero-export --since 10s ok.ilog
try ingero-export --until 1h30m ok.ilog
try ingero-export --since 250ms ok.ilog
try ingero-export --since tomorrow ok.ilog
try ingero-correlate --stats --since 10s ok.ilog
try ingero-correlate --stats --until 2m ok.ilog
