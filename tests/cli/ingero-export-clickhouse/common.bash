# SPDX-License-Identifier: MIT
# Shared by the ingero-export-clickhouse cases (sourced; not a case itself).
# The cases start private ClickHouse servers (tests/clickhouse/start.sh),
# load synthesized or recorded logs with the real exporter, and compare
# what SQL says with what the logs say (jq, tests' logcalc.py, SQLite,
# ingero-correlate).
set -euo pipefail

CH_DIR=$PWD/ch
SYNTH=$INGERO_OUT/tests/tools/synth
RANKS=$INGERO_OUT/tests/tools/ranks
SCENSYNTH=$INGERO_OUT/tests/tools/scensynth
HERE=$INGERO_TESTS/cli/ingero-export-clickhouse
FLEET_MD=$INGERO_TESTS/../docs/fleet.md

fail() {
	echo "FAIL: $*" >&2
	exit 1
}

# start_ch [SHARDS]: servers forming the cluster `ingero`, stopped at exit.
# Sets CH_URL (the first), CH_URL1.., CH_TCP1..
start_ch() {
	local rc=0
	"$INGERO_TESTS/clickhouse/start.sh" "$CH_DIR" "${1:-1}" || rc=$?
	if ((rc == 77)); then
		echo "clickhouse-server is not installed (tests/deps.txt)" >&2
		exit 77
	fi
	((rc == 0)) || fail "clickhouse-server did not start"
	trap '"$INGERO_TESTS/clickhouse/stop.sh" "$CH_DIR"' EXIT
	. "$CH_DIR/env"
}

# chq URL SQL: the answer (TSV) to a query; an error answer fails the case.
chq() {
	curl -sS --fail-with-body "$1" --data-binary "$2" || fail "query failed: $2"
}

# docq NAME: the query of that name in docs/fleet.md, as written there.
docq() {
	local q
	q=$(awk -v n="-- query: $1" '$0 == n { on = 1; next } on && /^```/ { exit } on' "$FLEET_MD")
	[[ -n $q ]] || fail "no query '$1' in docs/fleet.md"
	printf '%s\n' "$q"
}

# opnums URL: the ops lookup table as "number<TAB>name" lines, for logcalc.py
opnums() {
	chq "$1" "SELECT op, any(name) FROM ingero.ops GROUP BY op ORDER BY op" >opnums.tsv
}

# same WHAT GOT WANT: files must be identical
same() {
	if ! cmp -s "$2" "$3"; then
		echo "FAIL: $1 differs (< ClickHouse, > from the logs):" >&2
		diff "$2" "$3" | head -n 20 >&2
		exit 1
	fi
}

export_ch() {
	ingero-export --format clickhouse "$@"
}
