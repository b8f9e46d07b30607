#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
#
# Start private ClickHouse servers for tests and benchmarks (Debian's
# clickhouse-server, 18.16 in Debian 12).
#
#   tests/clickhouse/start.sh DIR [SHARDS]     start SHARDS servers (default 1)
#   tests/clickhouse/stop.sh DIR               stop them (by their PIDs)
#
# Everything lives under DIR: each server's config, data, logs and PID in
# DIR/s1, DIR/s2, ...  The servers listen on 127.0.0.1 only, on free ports
# picked here (retried with other ports if a race loses one).  Together they
# form the cluster `ingero` (one shard per server, see docs/fleet.md), so a
# Distributed table over them is tested as it is deployed.  The users.xml
# profile sets allow_experimental_low_cardinality_type=1: the 18.16 server
# needs it for LowCardinality columns, and the exporter never sets it per
# request.
#
# On success DIR/env holds shell assignments for the tests to source:
#   CH_URL      http://127.0.0.1:PORT of the first server
#   CH_URL1..N  each server's HTTP URL;  CH_TCP1..N  native ports
#   CH_SHARDS   the number of servers
# Exit status: 0 ready, 77 clickhouse-server is not installed, 1 failure
# (the servers' logs are printed).  Should the shell that ran start.sh
# (or CH_OWNER_PID) end without stop.sh, the servers are stopped anyway.

set -uo pipefail
dir=${1:?usage: start.sh DIR [SHARDS]}
shards=${2:-1}
server=$(command -v clickhouse-server || echo /usr/sbin/clickhouse-server)
if [[ ! -x $server ]]; then
	echo "clickhouse-server is not installed (apt-get install clickhouse-server)" >&2
	exit 77
fi
command -v curl >/dev/null || { echo "curl is not installed" >&2; exit 77; }
mkdir -p "$dir" && dir=$(cd "$dir" && pwd) || exit 1

# A port nobody listens on now (a connect is refused).
port_free() {
	! (exec 3<>"/dev/tcp/127.0.0.1/$1") 2>/dev/null
}

# Ports for every server: HTTP base+2i, native base+2i+1.
pick_ports() {
	local try i ok
	for ((try = 0; try < 50; try++)); do
		base=$((20000 + (RANDOM * 32768 + RANDOM) % 17000 * 2))
		ok=1
		for ((i = 0; i < 2 * shards; i++)); do
			port_free $((base + i)) || { ok=0; break; }
		done
		((ok)) && return 0
	done
	echo "no free ports found" >&2
	return 1
}

write_config() {
	local s=$1 d=$dir/s$1 i
	mkdir -p "$d/data" "$d/tmp" "$d/user_files" "$d/log"
	{
		cat <<-XML
		<?xml version="1.0"?>
		<yandex>
		  <logger>
		    <level>warning</level>
		    <log>$d/log/server.log</log>
		    <errorlog>$d/log/error.log</errorlog>
		  </logger>
		  <listen_host>127.0.0.1</listen_host>
		  <http_port>$((base + 2 * (s - 1)))</http_port>
		  <tcp_port>$((base + 2 * (s - 1) + 1))</tcp_port>
		  <path>$d/data/</path>
		  <tmp_path>$d/tmp/</tmp_path>
		  <user_files_path>$d/user_files/</user_files_path>
		  <format_schema_path>$d/data/format_schemas/</format_schema_path>
		  <users_config>$d/users.xml</users_config>
		  <default_profile>default</default_profile>
		  <default_database>default</default_database>
		  <timezone>UTC</timezone>
		  <mark_cache_size>268435456</mark_cache_size>
		  <uncompressed_cache_size>268435456</uncompressed_cache_size>
		  <max_concurrent_queries>100</max_concurrent_queries>
		  <remote_servers>
		    <ingero>
		XML
		for ((i = 0; i < shards; i++)); do
			cat <<-XML
			      <shard><replica><host>127.0.0.1</host><port>$((base + 2 * i + 1))</port></replica></shard>
			XML
		done
		cat <<-XML
		    </ingero>
		  </remote_servers>
		</yandex>
		XML
	} >"$d/config.xml"
	cat >"$d/users.xml" <<-XML
	<?xml version="1.0"?>
	<yandex>
	  <profiles>
	    <default>
	      <allow_experimental_low_cardinality_type>1</allow_experimental_low_cardinality_type>
	      <max_memory_usage>8000000000</max_memory_usage>
	    </default>
	  </profiles>
	  <users>
	    <default>
	      <password></password>
	      <networks><ip>127.0.0.1</ip></networks>
	      <profile>default</profile>
	      <quota>default</quota>
	    </default>
	  </users>
	  <quotas><default></default></quotas>
	</yandex>
	XML
}

# A server outlives a test that is killed (a timeout's SIGKILL runs no
# trap): a watchdog stops it once the shell that ran start.sh is gone.
# It checks the PID still runs this config before signalling it.
watchdog() { # server-pid config
	setsid bash -c 'while kill -0 "$1" 2>/dev/null && kill -0 "$2" 2>/dev/null; do sleep 1; done
		if grep -qsF -- "$3" "/proc/$2/cmdline"; then kill -TERM "$2"; fi' \
		watchdog "$owner" "$1" "$2" </dev/null >/dev/null 2>&1 &
}
owner=${CH_OWNER_PID:-$PPID}

# Start every server and wait for /ping; 1 if one did not come up.
launch() {
	local s d
	for ((s = 1; s <= shards; s++)); do
		d=$dir/s$s
		write_config "$s"
		# its own session: a test's process group may be signalled
		setsid "$server" --config-file="$d/config.xml" >"$d/log/stdout" 2>&1 </dev/null &
		echo $! >"$d/pid"
		watchdog $! "$d/config.xml"
	done
	local t
	for ((s = 1; s <= shards; s++)); do
		d=$dir/s$s
		for ((t = 0; t < 400; t++)); do
			[[ $(curl -s --max-time 1 "http://127.0.0.1:$((base + 2 * (s - 1)))/ping") == Ok. ]] &&
				continue 2
			kill -0 "$(cat "$d/pid")" 2>/dev/null || return 1
			sleep 0.05
		done
		return 1
	done
	return 0
}

for ((attempt = 0; attempt < 5; attempt++)); do
	pick_ports || exit 1
	if launch; then
		{
			echo "CH_SHARDS=$shards"
			echo "CH_URL=http://127.0.0.1:$base"
			for ((s = 1; s <= shards; s++)); do
				echo "CH_URL$s=http://127.0.0.1:$((base + 2 * (s - 1)))"
				echo "CH_TCP$s=$((base + 2 * (s - 1) + 1))"
			done
		} >"$dir/env"
		exit 0
	fi
	# lost a port race or failed: stop what started, try other ports
	"$(dirname "${BASH_SOURCE[0]}")/stop.sh" "$dir" >/dev/null 2>&1
	if ! grep -qs -e 'Address already in use' -e 'Net Exception' "$dir"/s*/log/error.log "$dir"/s*/log/stdout; then
		break
	fi
	rm -rf "$dir"/s*
done
echo "clickhouse-server did not start:" >&2
tail -n 20 "$dir"/s*/log/error.log "$dir"/s*/log/stdout >&2 2>/dev/null
exit 1
