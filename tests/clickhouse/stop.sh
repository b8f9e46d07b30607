#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Stop the servers tests/clickhouse/start.sh started under DIR, by the PIDs
# it wrote: SIGTERM, then SIGKILL after 10 s.  Their data stays in DIR.
dir=${1:?usage: stop.sh DIR}
pids=()
for f in "$dir"/s*/pid; do
	[[ -f $f ]] || continue
	pid=$(cat "$f")
	# only a clickhouse-server we started: the PID may have been reused
	if [[ $(cat "/proc/$pid/comm" 2>/dev/null) == clickhouse-serv* ]]; then
		kill -TERM "$pid" 2>/dev/null && pids+=("$pid")
	fi
	rm -f "$f"
done
for pid in "${pids[@]}"; do
	for ((t = 0; t < 200; t++)); do
		kill -0 "$pid" 2>/dev/null || continue 2
		# a zombie has exited: its parent (the test shell) reaps it
		[[ $(awk '{print $3}' "/proc/$pid/stat" 2>/dev/null) == Z ]] && continue 2
		sleep 0.05
	done
	kill -KILL "$pid" 2>/dev/null
done
exit 0
