# SPDX-License-Identifier: MIT
# get_host_context (format 1.2): the processes of the whole host that
# allocated most pages, with pages/s, their container (from the process
# record) and the reclaim and compaction stalls of their tasks; the pages of
# all other processes; the snapshots' least available memory and PSI peaks.
# The vectors 'host' (page_alloc of a target and of another process, the
# rest, a reclaim and a compaction stall) and 'kinds' (the target's process
# record in a Kubernetes container, a snapshot with PSI), in one database.
# Format 1.3, disk: per device its requests, bytes, MB/s over its windows and
# the p50/p99 of the summed histograms, the processes that moved most bytes
# with their share of the device's, and a target's time blocked on I/O (the
# data loader's blkio records are in both vectors: counted twice).  The
# network (vector 'net' added): the flows that retransmitted most with the
# owner and its container, the rest's retransmits, and the processes that
# moved most TCP bytes.
set -euo pipefail
ingero-export --format sqlite -o run.db "$INGERO_TESTS/vectors/host.ilog" "$INGERO_TESTS/vectors/kinds.ilog" \
	"$INGERO_TESTS/vectors/net.ilog"
printf '%s\n' \
	'{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-03-26","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}' \
	'{"jsonrpc":"2.0","method":"notifications/initialized"}' \
	'{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"get_host_context","arguments":{}}}' \
	'{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"get_host_context","arguments":{"verbose":true}}}' |
	ingero-mcp --db run.db | jq -c 'select(.id >= 2) | .result.content[0].text' | jq -r '.'
