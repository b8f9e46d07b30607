# SPDX-License-Identifier: MIT
# Failures: a server that is down (retried, then one error line, exit 2), a
# missing database without --create (the server's Code: 81), bad URLs and
# names, busy and refusing answers (tests/clickhouse/faulty.py answering for
# the server), and connections closed mid-batch by a proxy in front of the
# real server, at a row boundary and inside a row, once and every time:
# the rows that reach the table are exactly the log's, or the error says
# exactly what the table holds.  A batch the server rejects leaves no rows.
. "$INGERO_TESTS/cli/ingero-export-clickhouse/common.bash"
start_ch 1
FAULTY=$INGERO_TESTS/clickhouse/faulty.py
export INGERO_CLICKHOUSE_RETRY=1   # a short retry window keeps the case quick

"$SYNTH" --events 3000 --mix all --stacks 30 --node node-a -o small.ilog
"$SYNTH" --events 20000 --node node-a -o big.ilog
"$SYNTH" --events 60000 --node node-a --seed 2 -o huge.ilog

# the stderr of a failed export with the run-dependent parts named
norm() {
	sed -E -e 's/127\.0\.0\.1:[0-9]+/127.0.0.1:PORT/g' -e 's/port [0-9]+/port PORT/g' \
		-e 's/after [0-9]+ ms/after N ms/' -e 's/\([0-9]+ tries in [0-9.]+ s\)/(N tries in T s)/' \
		-e 's/session [0-9]+/session S/g' -e 's/first [0-9]+ of/first N of/' "$@"
}
try() {
	local rc=0
	"$@" >out.txt 2>err.txt || rc=$?
	if [[ -s err.txt ]]; then
		echo "exit $rc, $(wc -l <err.txt) line: $(norm err.txt)"
	else
		echo "exit $rc"
	fi
	[[ ! -s out.txt ]] || fail "stdout: $(cat out.txt)"
}
tries() { sed -nE 's/.*\(([0-9]+) tries in ([0-9.]+) s\).*/\1 \2/p' err.txt; }
free_port() {
	python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'
}
FPID=
faulty() { # ARGS...: start faulty.py, set FURL
	rm -f port faulty.log
	python3 "$FAULTY" port faulty.log "$@" &
	FPID=$!
	for ((i = 0; i < 200; i++)); do
		[[ -s port ]] && break
		sleep 0.05
	done
	[[ -s port ]] || fail "faulty.py did not start"
	FURL=http://127.0.0.1:$(cat port)
}
unfaulty() {
	kill "$FPID"
	wait "$FPID" 2>/dev/null || true
	FPID=
}
trap '[[ -z $FPID ]] || kill $FPID 2>/dev/null || true; "$INGERO_TESTS/clickhouse/stop.sh" "$CH_DIR"' EXIT

echo "== server down"
try export_ch --url "http://127.0.0.1:$(free_port)" small.ilog
read -r n secs < <(tries)
((n >= 4)) || fail "only $n tries"
awk -v s="$secs" 'BEGIN { exit !(s >= 0.9) }' || fail "gave up after $secs s"

echo "== no database, no --create"
try export_ch --url "$CH_URL" --database nosuch small.ilog

echo "== bad URLs and names"
try export_ch --url ftp://example.org/ small.ilog
try export_ch --url 'http//127.0.0.1:8123' small.ilog
try export_ch --url '' small.ilog
try export_ch small.ilog
try export_ch --url "$CH_URL" --database 'x;DROP' small.ilog
INGERO_CLICKHOUSE_RETRY=soon try export_ch --url "$CH_URL" small.ilog

echo "== busy: retried"
faulty answer 500 'Code: 252, e.displayText() = DB::Exception: Too many parts (300). Merges are processing significantly slower than inserts., e.what() = DB::Exception'
try export_ch --url "$FURL" small.ilog
unfaulty
(($(wc -l <faulty.log) >= 4)) || fail "busy answers were not retried: $(cat faulty.log)"
faulty answer 503 'upstream overloaded'
try export_ch --url "$FURL" small.ilog
unfaulty
(($(wc -l <faulty.log) >= 4)) || fail "503 was not retried: $(cat faulty.log)"

echo "== refused: not retried"
faulty answer 500 'Code: 62, e.displayText() = DB::Exception: Syntax error: failed at position 1, e.what() = DB::Exception'
try export_ch --url "$FURL" small.ilog
unfaulty
echo "requests: $(wc -l <faulty.log)"

export_ch --url "$CH_URL" --create small.ilog || fail "--create"
rows() { chq "$CH_URL" "SELECT count() FROM ingero.events WHERE session_id = $1"; }
last_session() { chq "$CH_URL" "SELECT session_id FROM ingero.sessions ORDER BY imported_ns DESC LIMIT 1"; }
# an events row of a node named node-a is 111 bytes (docs/fleet.md columns)
ROW=111

# cut_export BYTES TIMES LOG: export LOG through a proxy that closes the
# connection of the first TIMES inserts into events after BYTES of body
cut_export() {
	faulty cut "${CH_URL##*:}" ingero.events "$1" "$2"
	try export_ch --url "$FURL" "$3"
	unfaulty
	S=$(last_session)
}

echo "== connection closed once, at a row boundary: the rest is sent, nothing twice"
cut_export $((ROW * 7000)) 1 big.ilog
grep 'INSERT INTO ingero.events' faulty.log | cut -d' ' -f1,2
echo "rows: $(rows "$S") of 20000"

echo "== connection closed once, inside a row: the server kept nothing, all is sent again"
cut_export $((ROW * 7000 + 50)) 1 big.ilog
grep 'INSERT INTO ingero.events' faulty.log | cut -d' ' -f1,2
echo "rows: $(rows "$S") of 20000"

echo "== connection closed every time at a row boundary: the error says what is there"
cut_export $((ROW * 7000)) 1000 huge.ilog
said=$(sed -nE "s/.*holds the first ([0-9]+) of this batch's 60000 rows \(session $S\).*/\1/p" err.txt)
[[ -n $said && $said == $(rows "$S") && $said -gt 0 ]] ||
	fail "the error says '$said' rows, the table holds $(rows "$S")"
echo "the table holds what the error says"

echo "== connection closed every time inside a row: nothing is there"
cut_export $((ROW * 7000 + 50)) 1000 huge.ilog
echo "rows: $(rows "$S")"

echo "== a batch the server rejects leaves no rows"
# a table whose node column is a UInt64: the server reads 8 bytes where
# the exporter sent 7 (a length and "node-a"), so every row comes out one
# byte long, and only at the end of the batch is a row short: the server
# refuses the whole batch, having read all of it
chq "$CH_URL" "CREATE DATABASE strict"
ingero-export --format clickhouse-sql --database strict >ddl.sql
sed -i '/^CREATE TABLE IF NOT EXISTS strict.events$/,/^ENGINE/ s/^    node LowCardinality(String),$/    node UInt64,/' ddl.sql
(($(grep -c 'node UInt64' ddl.sql) == 1)) || fail "the events node column was not changed"
sed '/^-- Multi-shard/,$d' ddl.sql | clickhouse-client --port "$CH_TCP1" -n || fail "ddl"
try export_ch --url "$CH_URL" --database strict big.ilog
echo "rows: $(chq "$CH_URL" "SELECT count() FROM strict.events"), complete sessions: $(chq "$CH_URL" "SELECT count() FROM strict.sessions WHERE complete = 1")"
