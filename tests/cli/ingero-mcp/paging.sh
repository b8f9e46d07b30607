# run_sql pages a large result: a capped answer says where the next page
# starts (truncated.next_offset), offset asks for it, and the pages put
# together are the whole result, each row once.
set -euo pipefail
"$INGERO_OUT/tests/tools/synth" --events 2500 -o run.ilog
ingero-export --format sqlite -o run.db run.ilog
sql='SELECT rowid, op FROM events ORDER BY rowid'
call() { # offset -> the tool result text
	printf '{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"run_sql","arguments":{"sql":"%s","limit":1000,"offset":%d}}}\n' "$sql" "$1" |
		ingero-mcp --db run.db | jq -r '.result.content[0].text'
}
off=0 pages=0
: >all.txt
while :; do
	call "$off" >page.json
	jq -r '.rows[] | @tsv' page.json >>all.txt
	pages=$((pages + 1))
	next=$(jq -r '.truncated.next_offset // empty' page.json)
	echo "page $pages: offset $(jq -r '.offset // 0' page.json), $(jq -r .n page.json) rows, next ${next:-none}"
	[[ $next ]] || break
	off=$next
done
sqlite3 -separator $'\t' run.db "$sql" | cmp - all.txt && echo "the pages make the whole result"
