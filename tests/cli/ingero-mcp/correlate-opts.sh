# SPDX-License-Identifier: MIT
# ingero-mcp RUN.ilog analyzes the log with ingero-correlate's options: the
# chains it serves (run_sql) under --window 500ms and under --pid with
# --since are correlate's under the same options (id, pattern, metrics),
# which differ from the defaults'; with --db the options are refused.
set -euo pipefail
"$INGERO_OUT"/tests/tools/scensynth incident --seed 2 -o run.ilog
pid=$(ingero-export -t cuda run.ilog | jq -s '.[0].pid')
served() { # OPTIONS...: id, pattern and metrics of each chain loaded
	printf '%s\n' \
		'{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-03-26","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}' \
		'{"jsonrpc":"2.0","method":"notifications/initialized"}' \
		'{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"run_sql","arguments":{"sql":"SELECT printf('"'"'0x%016x'"'"', chain_id), pattern, metrics FROM chains ORDER BY rowid"}}}' |
		ingero-mcp "$@" run.ilog | jq -r 'select(.id == 2) | .result.content[0].text' |
		jq -cS '.rows[] | {id: .[0], pattern: .[1], metrics: (.[2] | fromjson)}'
}
found() { # OPTIONS...: the same from ingero-correlate --json
	ingero-correlate --json "$@" run.ilog |
		jq -cS 'select(.type == "chain") | {id, pattern, metrics}'
}
served >def.txt
for opts in "--window 500ms" "--pid $pid --since +2s"; do
	# shellcheck disable=SC2086 # the options are words
	served $opts >mcp.txt
	# shellcheck disable=SC2086
	found $opts >cor.txt
	if cmp -s mcp.txt cor.txt; then
		echo "$(wc -l <mcp.txt) chains equal correlate's"
	else
		echo "differ:"
		diff mcp.txt cor.txt | head -4 | cut -c1-300
	fi
	cmp -s def.txt mcp.txt && echo "the same chains as the defaults"
done
ingero-export -f sqlite -o run.db run.ilog
ingero-mcp --db run.db --window 1s </dev/null 2>&1 || echo "exit $?"
