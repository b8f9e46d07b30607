# The official MCP TypeScript SDK (@modelcontextprotocol/sdk, Client +
# StdioClientTransport, pinned in tests/mcp/package-lock.json) talks to
# ingero-mcp over stdio: lists the tools and calls each one on a
# synthesized training trace (a python3 process preempted by "backup"),
# served from an exported database and straight from the log; either way
# the causal chains (computed by the export, or while loading the log) name
# the culprit.  The database file is unchanged afterwards.  In the CPU-contention scenario the
# top causal chain names the culprit, with the log correlated while loading
# and with ingero-correlate + ingero-export.
set -euo pipefail
(cd "$INGERO_TESTS/mcp" && npm ci --no-audit --no-fund --loglevel=error >/dev/null)
"$INGERO_OUT/tests/tools/synth" --events 20000 --mix all -o run.ilog
ingero-export --format sqlite -o run.db run.ilog
before=$(sha256sum run.db)
echo "== --db run.db"
EXPECT_CULPRIT=backup node "$INGERO_TESTS/mcp/client.mjs" 20000 -- ingero-mcp --db run.db --timeout 1s
[[ $before == "$(sha256sum run.db)" ]] && echo "run.db unchanged"
echo "== run.ilog"
EXPECT_CULPRIT=backup node "$INGERO_TESTS/mcp/client.mjs" 20000 -- ingero-mcp run.ilog --timeout 1s | grep -c '^ok - '
echo "== CPU contention scenario"
"$INGERO_OUT/tests/tools/scensynth" incident -o incident.ilog
# correlated while loading
node "$INGERO_TESTS/mcp/scenario.mjs" backup -- ingero-mcp incident.ilog
# correlated by ingero-correlate, then exported
ingero-correlate incident.ilog -o correlated.ilog
ingero-export --format sqlite -o incident.db correlated.ilog
node "$INGERO_TESTS/mcp/scenario.mjs" backup -- ingero-mcp --db incident.db | grep -c '^ok - '
