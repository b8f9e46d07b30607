# SPDX-License-Identifier: MIT
# Shared by the live export cases (sourced; not a case itself).
set -euo pipefail

# free_port: a TCP port nothing listens on now, on 127.0.0.1.
free_port() {
	python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'
}

# wait_http URL [TRIES]: until URL answers (0.1 s apart; default 20 s).
wait_http() {
	local i
	for ((i = 0; i < ${2:-200}; i++)); do
		curl -sf -o /dev/null "$1" && return 0
		sleep 0.1
	done
	echo "FAIL: $1 never answered" >&2
	return 1
}

# stop_pid PID: SIGTERM, and its exit status within 20 s in STOP_RC (124
# if it is still running, then killed).
stop_pid() {
	STOP_RC=0
	kill -TERM "$1" 2>/dev/null || true
	local i
	for ((i = 0; i < 200; i++)); do
		kill -0 "$1" 2>/dev/null || break
		sleep 0.1
	done
	if kill -0 "$1" 2>/dev/null; then
		kill -KILL "$1"
		wait "$1" 2>/dev/null || true
		STOP_RC=124
		return
	fi
	wait "$1" || STOP_RC=$?
}
