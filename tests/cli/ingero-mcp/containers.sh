# SPDX-License-Identifier: MIT
# get_process_breakdown groups the processes by container when a session's
# processes are in more than one (the synthesized noisy-neighbour log: the
# job's pod and the neighbour's): the pod UID and container id of each, and
# of its top preempter; get_host_context lists the top page allocators
# under their containers; one container or none (the incident log): the
# columns and lines are as before.
set -euo pipefail
ingero demo --no-bpf noisy-neighbour -o nn.ilog >/dev/null
ingero demo --no-bpf incident -o inc.ilog >/dev/null
for log in nn inc; do
	ingero-export --format sqlite -o $log.db $log.ilog
	printf '%s\n' \
		'{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-03-26","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}' \
		'{"jsonrpc":"2.0","method":"notifications/initialized"}' \
		'{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"get_process_breakdown","arguments":{}}}' \
		'{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"get_process_breakdown","arguments":{"verbose":true}}}' \
		'{"jsonrpc":"2.0","id":4,"method":"tools/call","params":{"name":"get_host_context","arguments":{"verbose":true}}}' |
		ingero-mcp --db $log.db | jq -c 'select(.id >= 2) | .result.content[0].text' | jq -r '.'
done
