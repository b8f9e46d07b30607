# graph_frequency over a whole session reads the export's per-exec summary
# (summary_graph_execs); with a time window it reads the graph calls
# themselves.  A window holding the whole trace gives the same answer both
# ways, and the summary's launches are the rows' count.
set -euo pipefail
"$INGERO_OUT/tests/tools/synth" --events 40000 --mix all -o run.ilog
ingero-export --format sqlite -o run.db run.ilog
call() {
	printf '{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"graph_frequency","arguments":%s}}\n' "$1" |
		ingero-mcp --db run.db | jq -r '.result.content[0].text'
}
call '{"limit":1000}' >summary.json
call '{"limit":1000,"since":"+0s","until":"+100000s"}' >rows.json
jq -c '{execs, launches, hot, cold, unused}' summary.json
cmp summary.json rows.json && echo "the same answer from the summary and from the rows"
sqlite3 -separator ' ' run.db 'SELECT (SELECT sum(launches) FROM summary_graph_execs),
	(SELECT count(*) FROM events WHERE op = 18 AND ret = 0)'
