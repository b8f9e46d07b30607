# SPDX-License-Identifier: MIT
# A multi-rank job's ranks through the SQLite export and get_ranks: the
# simulated straggler job (tests/tools/job) stored with its collectives
# (one row per collective, rank 2 last at each of the 300) and a row per
# rank (rank_skew); get_ranks answers "which rank is slow" with rank 2
# first and its straggler chain, and, over the hung job's log, "where is
# the job stuck" with the collective-hang chain on the rank that never
# entered all-reduce #60.
set -uo pipefail
job="$INGERO_OUT"/tests/tools/job
"$job" -o strag.ilog --steps 300 --straggler 2:6ms || exit 1
"$job" -o hang.ilog --steps 100 --hang 1:60:8s || exit 1
ingero-export --format sqlite -o run.db strag.ilog || exit 1
[[ $(sqlite3 run.db 'SELECT count(*), sum(last_pid = 4002), sum(lead_ns > 5000000) FROM collectives') == '300|300|300' ]] ||
	{ echo "collectives: $(sqlite3 run.db 'SELECT count(*), sum(last_pid = 4002) FROM collectives')"; exit 1; } >&2
[[ $(sqlite3 run.db 'SELECT rank, pid, last_count, last_pct FROM rank_skew ORDER BY held_ns DESC LIMIT 1') == '2|4002|300|100.0' ]] ||
	{ echo "rank_skew:"; sqlite3 run.db 'SELECT * FROM rank_skew'; exit 1; } >&2
call() { # SOURCE...: get_ranks' table as JSON
	printf '%s\n' '{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}' \
		'{"jsonrpc":"2.0","method":"notifications/initialized"}' \
		'{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"get_ranks","arguments":{}}}' |
		ingero-mcp "$@" | jq -c 'select(.id == 2) | .result.content[0].text | fromjson'
}
call --db run.db >slow.json || exit 1
jq -e '.cols as $c | .rows[0] as $r | ([$c, $r] | transpose | map({(.[0]): .[1]}) | add) as $o
	| $o.rank == 2 and $o.pid == 4002 and ($o.finding | startswith("HIGH: straggler: Rank 2 (PID 4002)"))' \
	slow.json >/dev/null || { echo "which rank is slow:"; cat slow.json; exit 1; } >&2
call hang.ilog >stuck.json || exit 1
jq -e '.cols as $c | .rows[0] as $r | ([$c, $r] | transpose | map({(.[0]): .[1]}) | add) as $o
	| $o.rank == 1 and ($o.finding | test("^HIGH: collective-hang: Ranks 0, 2, 3 entered ncclAllReduce #60"))' \
	stuck.json >/dev/null || { echo "where is the job stuck:"; cat stuck.json; exit 1; } >&2
