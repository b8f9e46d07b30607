# run_sql refuses every way of changing anything: DELETE, ATTACH (which
# would create a file), PRAGMA writable_schema, load_extension, VACUUM
# INTO, a second statement smuggled after a SELECT; a runaway recursive
# CTE is stopped by the statement timeout.  Each is a tool error the
# model can read, and the database files are byte for byte unchanged
# (sha256 before and after), in rollback-journal and in WAL mode.
set -euo pipefail
mkdir plain wal
sqlite3 plain/t.db "CREATE TABLE cuda(ts_ns INTEGER, dur_ns INTEGER); INSERT INTO cuda VALUES (1,10),(2,20);"
sqlite3 wal/t.db "PRAGMA journal_mode=WAL; CREATE TABLE cuda(ts_ns INTEGER, dur_ns INTEGER); INSERT INTO cuda VALUES (1,10);" >/dev/null
sql() { jq -nc --arg s "$2" --argjson id "$1" \
	'{jsonrpc:"2.0",id:$id,method:"tools/call",params:{name:"run_sql",arguments:{sql:$s}}}'; }
for dir in plain wal; do
	before=$(sha256sum $dir/t.db; ls $dir)
	{
		sql 1 "DELETE FROM cuda"
		sql 2 "ATTACH DATABASE 'evil.db' AS evil"
		sql 3 "PRAGMA writable_schema=1"
		sql 4 "SELECT load_extension('/tmp/evil.so')"
		sql 5 "WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x+1 FROM c) SELECT max(x) FROM c"
		sql 6 "VACUUM INTO 'copy.db'"
		sql 7 "SELECT 1; DROP TABLE cuda"
		sql 8 "UPDATE cuda SET dur_ns=0"
		sql 9 "PRAGMA query_only=0"
		sql 10 "SELECT count(*) FROM cuda"
	} | ingero-mcp --db $dir/t.db --timeout 500ms >out.jsonl
	jq -r 'if .error then "\(.id) error \(.error.code) \(.error.message)"
		else "\(.id) \(.result.isError) \(.result.content[0].text)" end' out.jsonl
	after=$(sha256sum $dir/t.db; ls $dir)
	[[ $before == "$after" ]] && echo "$dir: unchanged"
	[[ ! -e evil.db && ! -e copy.db && ! -e $dir/evil.db ]] && echo "$dir: no files created"
done
