# graph_frequency and graph_lifecycle over a whole session read the
# export's summaries (summary_graph_execs, summary_graph_lifecycle; the
# lifecycle's timeline reads only the calls it shows); with a time window
# they read the graph calls themselves.  A window holding the whole trace
# gives the same answer both ways, for every process and for one, with a
# short and a long timeline; the summary's launches are the rows' count.
set -euo pipefail
"$INGERO_OUT/tests/tools/synth" --events 40000 --mix all -o run.ilog
ingero-export --format sqlite -o run.db run.ilog
call() { # tool args
	printf '{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"%s","arguments":%s}}\n' "$1" "$2" |
		ingero-mcp --db run.db | jq -r '.result.content[0].text'
}
all='"since":"+0s","until":"+100000s"'
call graph_frequency '{"limit":1000}' >summary.json
call graph_frequency "{\"limit\":1000,$all}" >rows.json
jq -c '{execs, launches, hot, cold, unused}' summary.json
cmp summary.json rows.json && echo "graph_frequency: the same answer from the summary and from the rows"
for args in '"limit":40' '"limit":1000' '"limit":5,"pid":4242'; do
	call graph_lifecycle "{$args}" >summary.json
	call graph_lifecycle "{$args,$all}" >rows.json
	echo "graph_lifecycle $args: $(jq -c '{captures, recaptures, instantiations, launches,
		failed, more_entries}' summary.json)"
	cmp summary.json rows.json && echo "  the same answer from the summary and from the rows"
done
sqlite3 -separator ' ' run.db 'SELECT (SELECT sum(launches) FROM summary_graph_execs),
	(SELECT count(*) FROM events WHERE op = 18 AND ret = 0)'
