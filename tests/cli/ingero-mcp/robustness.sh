# Hostile input never crashes the server: a 10 MB line, deep nesting, NUL
# bytes, binary noise and a message cut off by end of input each get a
# JSON-RPC error (or no reply), the requests after them are still
# answered, and the server exits 0 at end of input.
set -euo pipefail
sqlite3 t.db "CREATE TABLE t(a INTEGER)"
ping() { printf '{"jsonrpc":"2.0","id":%s,"method":"ping"}\n' "$1"; }
summary() { jq -c '{id, err: .error.code, ok: (if .result then true else null end)} | with_entries(select(.value != null))' "$@"; }

# 10 MB request line (over the 1 MiB default), then a ping.
q="'"
x10m() { head -c 10485760 /dev/zero | tr '\0' x; }
call() { printf '{"jsonrpc":"2.0","id":%s,"method":"tools/call","params":{"name":"run_sql","arguments":{"sql":"%s' "$1" "$2"; }
{ call 1 "SELECT $q"; x10m; printf '%s\n' "$q\"}}}"; ping 2; } | ingero-mcp --db t.db >big.jsonl
summary big.jsonl
# A message of that size is served when the limit allows it.
{ printf '{"jsonrpc":"2.0","id":3,"method":"ping"'; x10m | tr x ' '; printf '}\n'; } |
	ingero-mcp --db t.db --max-request 16MiB | summary

# 100000 nested arrays: a parse error (jansson caps depth), not a stack overflow.
{ head -c 100000 /dev/zero | tr '\0' '['; echo; ping 4; } | ingero-mcp --db t.db | summary

# NUL bytes and random binary in a line; CRLF line ends.
{ printf '{"jsonrpc":"2.0","id":5,"method":"pi\0ng"}\n'; head -c 4096 /dev/urandom | tr -d '\n'; echo
  printf '{"jsonrpc":"2.0","id":6,"method":"ping"}\r\n'; } | ingero-mcp --db t.db | summary

# End of input in the middle of a message: one parse error, clean exit.
printf '{"jsonrpc":"2.0","id":7,"method":"pi' | ingero-mcp --db t.db | summary
# A whole message that lacks only its newline is still answered.
printf '{"jsonrpc":"2.0","id":8,"method":"ping"}' | ingero-mcp --db t.db | summary
# No input at all: no output, exit 0.
ingero-mcp --db t.db </dev/null | wc -c
