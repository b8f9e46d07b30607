# SPDX-License-Identifier: MIT
# An unknown --format names the closest format when it is a typo of one
# ("did you mean"), and --help otherwise; exit 2, nothing written.
set -uo pipefail
"$INGERO_OUT/tests/tools/synth" --events 10 -o ok.ilog
try() {
	local rc=0
	ingero-export "$@" >out.txt 2>err.txt || rc=$?
	echo "[$*] exit $rc, stdout $(wc -c <out.txt) bytes: $(cat err.txt)"
}
try --format perfeto ok.ilog
try -f josnl ok.ilog
try -f csb ok.ilog
try -f prometeus ok.ilog
try -f clickhouse-sq
try -f nope ok.ilog
try -f json-lines ok.ilog
