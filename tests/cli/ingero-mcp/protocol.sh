# JSON-RPC 2.0 and the MCP lifecycle, message by message, checked with jq.
set -euo pipefail
sqlite3 t.db "CREATE TABLE t(a INTEGER, b TEXT); INSERT INTO t VALUES (1,'x'),(2,'y');"
init() { printf '{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"%s","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}\n' "$1"; }
{
	init 2025-06-18
	printf '%s\n' '{"jsonrpc":"2.0","method":"notifications/initialized"}'
	init 2024-11-05
	init 1999-01-01
	printf '%s\n' \
		'{"jsonrpc":"2.0","id":"p","method":"ping"}' \
		'{"jsonrpc":"2.0","id":2,"method":"tools/list"}' \
		'{"jsonrpc":"2.0","id":3,"method":"prompts/list"}' \
		'{"jsonrpc":"2.0","id":4,"method":"resources/list"}' \
		'{"jsonrpc":"2.0","id":5,"method":"tools/call","params":{"name":"no_such_tool"}}' \
		'{"jsonrpc":"2.0","id":6,"method":"tools/call","params":{"name":"run_sql","arguments":{"sql":1}}}' \
		'{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"run_sql","arguments":{"sql":"SELECT 1","bogus":1}}}' \
		'{"jsonrpc":"2.0","id":8,"method":"tools/call","params":{"name":"run_sql","arguments":{"sql":"SELECT a FROM t ORDER BY a","limit":1}}}' \
		'{"jsonrpc":"2.0","id":9,"method":"tools/call","params":{"name":"run_sql","arguments":"x"}}' \
		'{"jsonrpc":"2.0","id":10,"method":"prompts/get","params":{"name":"nope"}}' \
		'{"jsonrpc":"2.0","id":11,"method":"tools/call","params":[1]}' \
		'{"jsonrpc":"1.0","id":12,"method":"ping"}' \
		'{"jsonrpc":"2.0","id":{"a":1},"method":"ping"}' \
		'{"jsonrpc":"2.0","id":13}' \
		'{"jsonrpc":"2.0","id":14,"result":{}}' \
		'{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":1}}' \
		'[{"jsonrpc":"2.0","id":15,"method":"ping"},{"jsonrpc":"2.0","method":"x"},7]' \
		'[{"jsonrpc":"2.0","method":"notifications/initialized"}]' \
		'[]' \
		'{"jsonrpc":"2.0","id":16,"method":"ping"} trailing' \
		'"just a string"'
} | ingero-mcp --db t.db >out.jsonl
# One reply per line, each valid JSON.
jq -c 'if type == "array" then map(.id) else
	{id, v: .result.protocolVersion, err: .error.code,
	 tools: (.result.tools // null | if . then map(.name) else null end),
	 prompts: (.result.prompts // null | if . then map(.name) else null end),
	 isError: .result.isError,
	 text: (.result.content[0].text // null | if . then .[0:60] else null end)}
	| with_entries(select(.value != null)) end' out.jsonl
