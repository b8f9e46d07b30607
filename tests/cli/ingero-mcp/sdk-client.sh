# The official MCP TypeScript SDK (@modelcontextprotocol/sdk, Client +
# StdioClientTransport, pinned in tests/mcp/package-lock.json) talks to
# ingero-mcp over stdio: lists the tools and calls each one on a
# synthesized training trace (a python3 process preempted by "backup"),
# served from an exported database and straight from the log.  The
# database file is unchanged afterwards.
set -euo pipefail
(cd "$INGERO_TESTS/mcp" && npm ci --no-audit --no-fund --loglevel=error >/dev/null)
"$INGERO_OUT/tests/tools/synth" --events 20000 --mix all -o run.ilog
ingero-export --format sqlite -o run.db run.ilog
before=$(sha256sum run.db)
echo "== --db run.db"
node "$INGERO_TESTS/mcp/client.mjs" 20000 -- ingero-mcp --db run.db --timeout 1s
[[ $before == "$(sha256sum run.db)" ]] && echo "run.db unchanged"
echo "== run.ilog"
node "$INGERO_TESTS/mcp/client.mjs" 20000 -- ingero-mcp run.ilog --timeout 1s | grep -c '^ok - '
