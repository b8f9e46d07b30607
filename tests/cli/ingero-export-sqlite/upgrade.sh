# SPDX-License-Identifier: MIT
# A database of schema version 1 (before pystacks.entry) is upgraded in place
# when a session is appended: the column is added (empty for the old rows),
# the old session's rows stay as they were, the new pystacks carry entry.
# A database of version 2 (before the summary tables) gains them, filled for
# its old session from the rows, and its views read them.  Both gain the
# columns of version 4 (cgroups, PSI, RSS growth), empty for the old rows,
# and the tables of version 5 (blkio; retrans, sockio: format 1.3's
# network).  A database of version 4 gains them and takes the new
# session's rows; one of version 7 gains version 8's (inflight, triggers:
# format 1.4's and 1.5's records), whose rows are the log's; one of version
# 8 gains version 9's snapshots.steal_pct (format 1.8), NULL for the old
# rows and the log's for the new.  Any other version is refused.
set -uo pipefail
synth=$INGERO_OUT/tests/tools/synth
$synth --events 2000 --seed 3 -o a.ilog
ingero-export -f sqlite -o run.db "$INGERO_TESTS/vectors/kinds.ilog"
# the columns version 4 added
v4='ALTER TABLE processes DROP COLUMN cgroup; ALTER TABLE processes DROP COLUMN cgroup_id;
	ALTER TABLE processes DROP COLUMN pod_uid; ALTER TABLE processes DROP COLUMN container_id;
	ALTER TABLE host_events DROP COLUMN cgroup_id;
	ALTER TABLE snapshots DROP COLUMN psi_cpu_some; ALTER TABLE snapshots DROP COLUMN psi_mem_some;
	ALTER TABLE snapshots DROP COLUMN psi_mem_full; ALTER TABLE snapshots DROP COLUMN psi_io_some;
	ALTER TABLE snapshots DROP COLUMN psi_io_full;
	ALTER TABLE snapshot_procs DROP COLUMN rss_growth; ALTER TABLE snapshot_procs DROP COLUMN comm;
	DROP TABLE blkio;'
# the tables version 5 added
v5='DROP INDEX retrans_ts; DROP INDEX sockio_ts; DROP TABLE retrans; DROP TABLE sockio;'
# the tables version 8 added
v8='DROP INDEX inflight_pid; DROP TABLE inflight; DROP TABLE triggers;'
# the column version 9 added
v9='ALTER TABLE snapshots DROP COLUMN steal_pct;'
v8="$v9 $v8"
v5="$v8 $v5"
v4="$v5 $v4"
# make it what schema version 1 wrote
sqlite3 run.db "ALTER TABLE pystacks DROP COLUMN entry; $v4 PRAGMA user_version = 1"
sqlite3 run.db 'SELECT count(*) FROM pystacks'
ingero-export -f sqlite -o run.db "$INGERO_TESTS/vectors/kinds.ilog" a.ilog && echo "appended"
sqlite3 run.db 'PRAGMA user_version'
sqlite3 -separator ' ' run.db 'SELECT s.seq, p.depth, quote(p.entry) FROM pystacks p
	JOIN sessions s USING (session_id) ORDER BY s.seq'
sqlite3 -separator ' ' run.db 'SELECT s.seq, quote(p.container_id) FROM processes p
	JOIN sessions s USING (session_id) ORDER BY s.seq LIMIT 2'
sqlite3 run.db 'PRAGMA integrity_check'
# what version 2 wrote: no summaries, op_stats over the rows
ingero-export -f sqlite -o v2.db a.ilog
sqlite3 v2.db "$(sqlite3 v2.db "SELECT 'DROP ' || type || ' ' || name || ';' FROM sqlite_schema
	WHERE (name LIKE 'summary%' OR name = 'events_graph' OR type = 'view')
	AND name NOT LIKE 'sqlite_%' ORDER BY type = 'table'")
	CREATE VIEW op_stats AS SELECT op, count(*) AS calls FROM events GROUP BY op;
	$v4 PRAGMA user_version = 2"
ingero-export -f sqlite -o v2.db a.ilog && echo "appended to version 2"
sqlite3 -separator ' ' v2.db 'PRAGMA user_version' 'SELECT s.seq, s.events, (SELECT sum(calls)
	FROM op_stats o WHERE o.session_id = s.session_id), (SELECT sum(calls) FROM call_sites c
	WHERE c.session_id = s.session_id), (SELECT count(*) FROM window_stats w
	WHERE w.session_id = s.session_id) > 0 FROM sessions s ORDER BY s.seq'
# the old session'"'"'s quantiles are exact; the new one'"'"'s within 0.39% of them
sqlite3 v2.db 'SELECT count(*), sum(abs(a.p99_ns - b.p99_ns) <= b.p99_ns * 0.0039) FROM op_stats a
	JOIN op_stats b ON a.op = b.op AND a.session_id != b.session_id
	JOIN sessions s ON s.session_id = b.session_id AND s.seq = 1'
sqlite3 v2.db 'PRAGMA integrity_check'
# what version 4 wrote: no blkio table
ingero-export -f sqlite -o v4.db a.ilog
sqlite3 v4.db "$v9 DROP TABLE blkio; PRAGMA user_version = 4"
ingero-export -f sqlite -o v4.db "$INGERO_TESTS/vectors/host.ilog" && echo "appended to version 4"
sqlite3 -separator ' ' v4.db 'PRAGMA user_version' 'SELECT s.seq, b.disk, b.pid, b.ios, b.p50_ns,
	b.p99_ns, b.hist FROM blkio b JOIN sessions s USING (session_id) ORDER BY b.pid' \
	'PRAGMA integrity_check'
# what version 4 wrote: neither the network's tables
ingero-export -f sqlite -o v4.db a.ilog
sqlite3 v4.db "$v5 PRAGMA user_version = 4"
ingero-export -f sqlite -o v4.db "$INGERO_TESTS/vectors/net.ilog" && echo "appended to version 4"
sqlite3 -separator ' ' v4.db 'PRAGMA user_version' 'SELECT family, saddr, daddr, sport, dport,
	count, state, flows FROM retrans ORDER BY rowid' 'SELECT pid, comm, tx_bytes, rx_bytes,
	others FROM sockio ORDER BY rowid'
sqlite3 run.db 'SELECT count(*) FROM retrans'
sqlite3 v4.db 'PRAGMA integrity_check'
# rows_match WHAT: got.tsv (the database's rows) is want.tsv (the log's), not empty
rows_match() {
	if [[ -s want.tsv ]] && cmp -s got.tsv want.tsv; then echo "$1 rows: the log's"; else
		echo "$1 rows differ"; diff got.tsv want.tsv; fi
}
# what version 7 wrote: neither inflight nor triggers; appended, their rows
# are the log's records, times as wall clock (the records' time field)
ingero-export -f sqlite -o v7.db a.ilog
sqlite3 v7.db "$v8 PRAGMA user_version = 7"
ingero-export -f sqlite -o v7.db "$INGERO_TESTS/vectors/kinds.ilog" && echo "appended to version 7"
sqlite3 v7.db 'PRAGMA user_version'
ingero-export "$INGERO_TESTS/vectors/kinds.ilog" | jq -r 'select(.type == "inflight")
	| [(.time | sub("\\.[0-9]+Z$"; "Z") | fromdate), .dur_ns, .pid, .tid, .layer, .op, .ret,
	   .bytes, .kind, .flags] | @tsv' >want.tsv
sqlite3 -separator '	' v7.db 'SELECT e.ts / 1000000000, e.dur_ns, e.pid, e.tid, l.name, o.name,
	e.ret, e.bytes, e.kind, e.flags FROM inflight e JOIN layers l USING (layer)
	JOIN ops o USING (op) ORDER BY e.rowid' >got.tsv
rows_match inflight
ingero-export "$INGERO_TESTS/vectors/kinds.ilog" | jq -r 'select(.type == "trigger")
	| [(.time | sub("\\.[0-9]+Z$"; "Z") | fromdate), .reason, .pid, .tid, .op, .value_ns,
	   .baseline_ns, .before_ns, .after_ns, .seq] | @tsv' >want.tsv
sqlite3 -separator '	' v7.db 'SELECT t.ts / 1000000000, t.reason, t.pid, t.tid, o.name,
	t.value_ns, t.baseline_ns, t.before_ns, t.after_ns, t.seq FROM triggers t
	JOIN ops o USING (op) ORDER BY t.rowid' >got.tsv
rows_match trigger
sqlite3 v7.db 'PRAGMA integrity_check'
# what version 8 wrote: no snapshots.steal_pct; the old session's rows read
# NULL, the new one's the log's (kinds: one snapshot, 3.25%)
ingero-export -f sqlite -o v8.db "$INGERO_TESTS/vectors/kinds.ilog"
sqlite3 v8.db "$v9 PRAGMA user_version = 8"
ingero-export -f sqlite -o v8.db "$INGERO_TESTS/vectors/kinds.ilog" && echo "appended to version 8"
sqlite3 -separator ' ' v8.db 'PRAGMA user_version' 'SELECT s.seq, count(*) > 0,
	quote(max(n.steal_pct)) FROM snapshots n JOIN sessions s USING (session_id)
	GROUP BY s.seq ORDER BY s.seq' 'PRAGMA integrity_check'
sqlite3 run.db 'PRAGMA user_version = 10'
ingero-export -f sqlite -o run.db a.ilog 2>&1
echo "exit $?"
