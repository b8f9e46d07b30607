// SPDX-License-Identifier: MIT
/*
 * The ClickHouse fleet schema (docs/fleet.md): one column list per table
 * drives the DDL, the INSERT column lists and the RowBinary encoder.
 *
 * Only syntax that ClickHouse 18.16 (Debian 12) and current releases both
 * accept: the MergeTree PARTITION BY / ORDER BY form, UInt64 nanoseconds
 * instead of DateTime64, no codecs or TTL, nothing Nullable.
 * LowCardinality(String) needs allow_experimental_low_cardinality_type=1
 * in the 18.16 server's profile (newer servers ignore the setting); the
 * exporter never sets it per request.
 *
 * The logical schema is the SQLite export's (docs/schema.md); what differs
 * and why is in docs/fleet.md: times are `*_ns` UInt64 wall-clock columns,
 * `node` is the node's name (the fleet-wide identity, not a per-export
 * ordinal), stack ids are fleet-wide, and a stack's frames are arrays in
 * its row.
 */
#include <endian.h>
#include <stddef.h>
#include <string.h>
#include "clickhouse.h"

#define C(row, col, sqltype, t) { #col, sqltype, ILOG_CH_##t, offsetof(struct row, col) }
#define CN(row, name, field, sqltype, t) { name, sqltype, ILOG_CH_##t, offsetof(struct row, field) }
#define LC "LowCardinality(String)"
#define NCOLS(a) (sizeof(a) / sizeof((a)[0]))
/* partitions are days of wall time (UTC on a UTC server); toDate of a
 * number above 65535 reads it as Unix seconds on old and new servers */
#define DAY(col) "toDate(intDiv(" col ", 1000000000))"

static const struct ilog_ch_column sessions[] = {
	C(ilog_ch_session_row, session_id, "UInt64", U64),
	C(ilog_ch_session_row, imported_ns, "UInt64", U64),
	C(ilog_ch_session_row, tool, "String", STR),
	C(ilog_ch_session_row, version, "String", STR),
	C(ilog_ch_session_row, source, "String", STR),
	C(ilog_ch_session_row, records, "UInt64", U64),
	C(ilog_ch_session_row, events, "UInt64", U64),
	C(ilog_ch_session_row, host_events, "UInt64", U64),
	C(ilog_ch_session_row, unknown_records, "UInt64", U64),
	C(ilog_ch_session_row, stacks_unknown, "UInt64", U64),
	C(ilog_ch_session_row, first_ts_ns, "UInt64", U64),
	C(ilog_ch_session_row, last_ts_ns, "UInt64", U64),
	C(ilog_ch_session_row, complete, "UInt8", U8),
};

static const struct ilog_ch_column nodes[] = {
	C(ilog_ch_node_row, session_id, "UInt64", U64),
	C(ilog_ch_node_row, node, LC, STR),
	C(ilog_ch_node_row, host, "String", STR),
	C(ilog_ch_node_row, boot_id, "String", STR),
	C(ilog_ch_node_row, rank, "Int64", I64),
	C(ilog_ch_node_row, log_session, "UInt64", U64),
	C(ilog_ch_node_row, recorder, "String", STR),
	C(ilog_ch_node_row, kernel, "String", STR),
	C(ilog_ch_node_row, driver, "String", STR),
	C(ilog_ch_node_row, format_version, "String", STR),
	C(ilog_ch_node_row, node_index, "UInt32", U32),
	C(ilog_ch_node_row, anchor_mono_ns, "UInt64", U64),
	C(ilog_ch_node_row, anchor_real_ns, "UInt64", U64),
};

static const struct ilog_ch_column events[] = {
	C(ilog_ch_event_row, session_id, "UInt64", U64),
	C(ilog_ch_event_row, node, LC, STR),
	C(ilog_ch_event_row, rank, "Int32", I32),
	C(ilog_ch_event_row, pid, "UInt32", U32),
	C(ilog_ch_event_row, tid, "UInt32", U32),
	C(ilog_ch_event_row, ts_ns, "UInt64", U64),
	C(ilog_ch_event_row, dur_ns, "UInt64", U64),
	C(ilog_ch_event_row, layer, "UInt8", U8),
	C(ilog_ch_event_row, op, "UInt16", U16),
	C(ilog_ch_event_row, ret, "Int32", I32),
	C(ilog_ch_event_row, stream, "UInt64", U64),
	C(ilog_ch_event_row, bytes, "UInt64", U64),
	C(ilog_ch_event_row, handle, "UInt64", U64),
	C(ilog_ch_event_row, kind, "UInt32", U32),
	CN(ilog_ch_event_row, "grid_x", grid[0], "UInt32", U32),
	CN(ilog_ch_event_row, "grid_y", grid[1], "UInt32", U32),
	CN(ilog_ch_event_row, "grid_z", grid[2], "UInt32", U32),
	CN(ilog_ch_event_row, "block_x", block[0], "UInt32", U32),
	CN(ilog_ch_event_row, "block_y", block[1], "UInt32", U32),
	CN(ilog_ch_event_row, "block_z", block[2], "UInt32", U32),
	C(ilog_ch_event_row, flags, "UInt8", U8),
	C(ilog_ch_event_row, stack_id, "UInt64", U64),
};

static const struct ilog_ch_column host_events[] = {
	C(ilog_ch_host_row, session_id, "UInt64", U64),
	C(ilog_ch_host_row, node, LC, STR),
	C(ilog_ch_host_row, ts_ns, "UInt64", U64),
	C(ilog_ch_host_row, dur_ns, "UInt64", U64),
	C(ilog_ch_host_row, type, "UInt16", U16),
	C(ilog_ch_host_row, pid, "UInt32", U32),
	C(ilog_ch_host_row, tid, "UInt32", U32),
	C(ilog_ch_host_row, other_pid, "UInt32", U32),
	C(ilog_ch_host_row, other_tid, "UInt32", U32),
	C(ilog_ch_host_row, cpu, "UInt32", U32),
	C(ilog_ch_host_row, value, "UInt64", U64),
	C(ilog_ch_host_row, comm, "String", STR),
	C(ilog_ch_host_row, other_comm, "String", STR),
	C(ilog_ch_host_row, cgroup_id, "UInt64", U64),
};

static const struct ilog_ch_column processes[] = {
	C(ilog_ch_process_row, session_id, "UInt64", U64),
	C(ilog_ch_process_row, node, LC, STR),
	C(ilog_ch_process_row, ts_ns, "UInt64", U64),
	C(ilog_ch_process_row, pid, "UInt32", U32),
	C(ilog_ch_process_row, ppid, "UInt32", U32),
	C(ilog_ch_process_row, uid, "UInt32", U32),
	C(ilog_ch_process_row, start_ns, "UInt64", U64),
	C(ilog_ch_process_row, comm, "String", STR),
	C(ilog_ch_process_row, exe, "String", STR),
	C(ilog_ch_process_row, argv, "Array(String)", ASTR),
	C(ilog_ch_process_row, cgroup, "String", STR),
	C(ilog_ch_process_row, cgroup_id, "UInt64", U64),
	C(ilog_ch_process_row, pod_uid, "String", STR),
	C(ilog_ch_process_row, container_id, "String", STR),
};

static const struct ilog_ch_column snapshots[] = {
	C(ilog_ch_snapshot_row, session_id, "UInt64", U64),
	C(ilog_ch_snapshot_row, node, LC, STR),
	C(ilog_ch_snapshot_row, ts_ns, "UInt64", U64),
	C(ilog_ch_snapshot_row, cpu_pct, "Float64", F64),
	C(ilog_ch_snapshot_row, ncpu, "UInt32", U32),
	C(ilog_ch_snapshot_row, mem_total, "UInt64", U64),
	C(ilog_ch_snapshot_row, mem_avail, "UInt64", U64),
	C(ilog_ch_snapshot_row, swap_total, "UInt64", U64),
	C(ilog_ch_snapshot_row, swap_free, "UInt64", U64),
	C(ilog_ch_snapshot_row, load1, "Float64", F64),
	C(ilog_ch_snapshot_row, load5, "Float64", F64),
	C(ilog_ch_snapshot_row, load15, "Float64", F64),
	C(ilog_ch_snapshot_row, proc_pid, "Array(UInt32)", AU32),
	C(ilog_ch_snapshot_row, proc_cpu_pct, "Array(Float64)", AF64),
	C(ilog_ch_snapshot_row, proc_rss, "Array(UInt64)", AU64),
	C(ilog_ch_snapshot_row, psi_cpu_some, "Float64", F64),
	C(ilog_ch_snapshot_row, psi_mem_some, "Float64", F64),
	C(ilog_ch_snapshot_row, psi_mem_full, "Float64", F64),
	C(ilog_ch_snapshot_row, psi_io_some, "Float64", F64),
	C(ilog_ch_snapshot_row, psi_io_full, "Float64", F64),
	/* Int64 and UInt64 have the same 8 bytes on the wire */
	C(ilog_ch_snapshot_row, proc_rss_growth, "Array(Int64)", AU64),
	C(ilog_ch_snapshot_row, proc_comm, "Array(String)", ASTR),
};

static const struct ilog_ch_column blkio[] = {
	C(ilog_ch_blkio_row, session_id, "UInt64", U64),
	C(ilog_ch_blkio_row, node, LC, STR),
	C(ilog_ch_blkio_row, ts_ns, "UInt64", U64),
	C(ilog_ch_blkio_row, dur_ns, "UInt64", U64),
	C(ilog_ch_blkio_row, major, "UInt32", U32),
	C(ilog_ch_blkio_row, minor, "UInt32", U32),
	C(ilog_ch_blkio_row, disk, LC, STR),
	C(ilog_ch_blkio_row, pid, "UInt32", U32),
	C(ilog_ch_blkio_row, nprocs, "UInt32", U32),
	C(ilog_ch_blkio_row, comm, "String", STR),
	C(ilog_ch_blkio_row, cgroup_id, "UInt64", U64),
	C(ilog_ch_blkio_row, ios, "UInt64", U64),
	C(ilog_ch_blkio_row, bytes, "UInt64", U64),
	C(ilog_ch_blkio_row, read_ios, "UInt64", U64),
	C(ilog_ch_blkio_row, read_bytes, "UInt64", U64),
	C(ilog_ch_blkio_row, lat_sum_ns, "UInt64", U64),
	C(ilog_ch_blkio_row, lat_max_ns, "UInt64", U64),
	C(ilog_ch_blkio_row, p50_ns, "UInt64", U64),
	C(ilog_ch_blkio_row, p99_ns, "UInt64", U64),
	C(ilog_ch_blkio_row, hist, "Array(UInt64)", AU64),
};

static const struct ilog_ch_column chains[] = {
	C(ilog_ch_chain_row, session_id, "UInt64", U64),
	C(ilog_ch_chain_row, node, LC, STR),
	C(ilog_ch_chain_row, chain_id, "UInt64", U64),
	C(ilog_ch_chain_row, ts_start_ns, "UInt64", U64),
	C(ilog_ch_chain_row, ts_end_ns, "UInt64", U64),
	C(ilog_ch_chain_row, severity, "UInt8", U8),
	C(ilog_ch_chain_row, pattern, LC, STR),
	C(ilog_ch_chain_row, pid, "UInt32", U32),
	C(ilog_ch_chain_row, op, "UInt16", U16),
	C(ilog_ch_chain_row, score, "Float64", F64),
	C(ilog_ch_chain_row, title, "String", STR),
	C(ilog_ch_chain_row, root_cause, "String", STR),
	C(ilog_ch_chain_row, fix, "String", STR),
	C(ilog_ch_chain_row, evidence, "String", STR),
	C(ilog_ch_chain_row, comm, "String", STR),
	C(ilog_ch_chain_row, culprit_pid, "UInt32", U32),
	C(ilog_ch_chain_row, culprit_comm, "String", STR),
	C(ilog_ch_chain_row, lost_ns, "UInt64", U64),
	C(ilog_ch_chain_row, metrics, "String", STR),
};

static const struct ilog_ch_column losses[] = {
	C(ilog_ch_loss_row, session_id, "UInt64", U64),
	C(ilog_ch_loss_row, node, LC, STR),
	C(ilog_ch_loss_row, ts_ns, "UInt64", U64),
	C(ilog_ch_loss_row, source, LC, STR),
	C(ilog_ch_loss_row, lost, "UInt64", U64),
	C(ilog_ch_loss_row, seen, "UInt64", U64),
};

static const struct ilog_ch_column stacks[] = {
	C(ilog_ch_stack_row, stack_id, "UInt64", U64),
	C(ilog_ch_stack_row, depth, "UInt16", U16),
	C(ilog_ch_stack_row, unresolved, "UInt16", U16),
	C(ilog_ch_stack_row, symbolized, "UInt16", U16),
	CN(ilog_ch_stack_row, "frame_key", key, "Array(String)", ASTR),
	CN(ilog_ch_stack_row, "frame_offset", offset, "Array(UInt64)", AU64),
	CN(ilog_ch_stack_row, "frame_module", module, "Array(String)", ASTR),
	CN(ilog_ch_stack_row, "frame_function", function, "Array(String)", ASTR),
	CN(ilog_ch_stack_row, "frame_file", file, "Array(String)", ASTR),
	CN(ilog_ch_stack_row, "frame_line", line, "Array(UInt32)", AU32),
};

static const struct ilog_ch_column ops[] = {
	CN(ilog_ch_name_row, "op", id16, "UInt16", U16),
	C(ilog_ch_name_row, name, "String", STR),
	C(ilog_ch_name_row, layer, "UInt8", U8),
};
static const struct ilog_ch_column layers[] = {
	CN(ilog_ch_name_row, "layer", id8, "UInt8", U8),
	C(ilog_ch_name_row, name, "String", STR),
};
static const struct ilog_ch_column host_types[] = {
	CN(ilog_ch_name_row, "type", id16, "UInt16", U16),
	C(ilog_ch_name_row, name, "String", STR),
};
static const struct ilog_ch_column severities[] = {
	CN(ilog_ch_name_row, "severity", id8, "UInt8", U8),
	C(ilog_ch_name_row, name, "String", STR),
};

static const struct ilog_ch_column retrans[] = {
	C(ilog_ch_retrans_row, session_id, "UInt64", U64),
	C(ilog_ch_retrans_row, node, LC, STR),
	C(ilog_ch_retrans_row, ts_ns, "UInt64", U64),
	C(ilog_ch_retrans_row, dur_ns, "UInt64", U64),
	C(ilog_ch_retrans_row, pid, "UInt32", U32),
	C(ilog_ch_retrans_row, comm, "String", STR),
	C(ilog_ch_retrans_row, cgroup_id, "UInt64", U64),
	C(ilog_ch_retrans_row, family, "UInt8", U8),
	C(ilog_ch_retrans_row, saddr, "String", STR),
	C(ilog_ch_retrans_row, daddr, "String", STR),
	C(ilog_ch_retrans_row, sport, "UInt16", U16),
	C(ilog_ch_retrans_row, dport, "UInt16", U16),
	C(ilog_ch_retrans_row, count, "UInt64", U64),
	C(ilog_ch_retrans_row, state, "UInt8", U8),
	C(ilog_ch_retrans_row, flows, "UInt32", U32),
};

static const struct ilog_ch_column sockio[] = {
	C(ilog_ch_sockio_row, session_id, "UInt64", U64),
	C(ilog_ch_sockio_row, node, LC, STR),
	C(ilog_ch_sockio_row, ts_ns, "UInt64", U64),
	C(ilog_ch_sockio_row, dur_ns, "UInt64", U64),
	C(ilog_ch_sockio_row, pid, "UInt32", U32),
	C(ilog_ch_sockio_row, comm, "String", STR),
	C(ilog_ch_sockio_row, cgroup_id, "UInt64", U64),
	C(ilog_ch_sockio_row, tx_bytes, "UInt64", U64),
	C(ilog_ch_sockio_row, rx_bytes, "UInt64", U64),
	C(ilog_ch_sockio_row, tx_calls, "UInt64", U64),
	C(ilog_ch_sockio_row, rx_calls, "UInt64", U64),
	C(ilog_ch_sockio_row, others, "UInt32", U32),
};

#define T(n, e, k, cnt) { #n, n, NCOLS(n), e, k, cnt }
const struct ilog_ch_table_def ilog_ch_tables[ILOG_CH__COUNT] = {
	/* one row when an export starts (complete 0), one when it ends
	 * (complete 1, the counts); the version column keeps the latter */
	[ILOG_CH_SESSIONS] = T(sessions, "ReplacingMergeTree(complete) ORDER BY session_id",
			       "session_id", 0),
	[ILOG_CH_NODES] = T(nodes, "ReplacingMergeTree ORDER BY (node, session_id, log_session)",
			    "cityHash64(node)", 0),
	[ILOG_CH_EVENTS] = T(events, "MergeTree PARTITION BY " DAY("ts_ns")
			     " ORDER BY (node, pid, ts_ns)", "cityHash64(node)", 1),
	[ILOG_CH_HOST_EVENTS] = T(host_events, "MergeTree PARTITION BY " DAY("ts_ns")
				  " ORDER BY (node, pid, ts_ns)", "cityHash64(node)", 1),
	[ILOG_CH_PROCESSES] = T(processes, "MergeTree PARTITION BY " DAY("ts_ns")
				" ORDER BY (node, pid, ts_ns)", "cityHash64(node)", 1),
	[ILOG_CH_SNAPSHOTS] = T(snapshots, "MergeTree PARTITION BY " DAY("ts_ns")
				" ORDER BY (node, ts_ns)", "cityHash64(node)", 1),
	[ILOG_CH_CHAINS] = T(chains, "MergeTree PARTITION BY " DAY("ts_start_ns")
			     " ORDER BY (node, pid, ts_start_ns)", "cityHash64(node)", 1),
	[ILOG_CH_LOSSES] = T(losses, "MergeTree PARTITION BY " DAY("ts_ns")
			     " ORDER BY (node, ts_ns)", "cityHash64(node)", 1),
	[ILOG_CH_BLKIO] = T(blkio, "MergeTree PARTITION BY " DAY("ts_ns")
			    " ORDER BY (node, disk, ts_ns)", "cityHash64(node)", 1),
	/* the same stack from many nodes collapses to one row; the most
	 * symbolized copy wins */
	[ILOG_CH_STACKS] = T(stacks, "ReplacingMergeTree(symbolized) ORDER BY stack_id",
			     "stack_id", 0),
	/* names at the edge: small lookup tables every exporter refreshes on
	 * its own shard, so no Distributed table */
	[ILOG_CH_OPS] = T(ops, "ReplacingMergeTree ORDER BY op", NULL, 0),
	[ILOG_CH_LAYERS] = T(layers, "ReplacingMergeTree ORDER BY layer", NULL, 0),
	[ILOG_CH_HOST_TYPES] = T(host_types, "ReplacingMergeTree ORDER BY type", NULL, 0),
	[ILOG_CH_SEVERITIES] = T(severities, "ReplacingMergeTree ORDER BY severity", NULL, 0),
	[ILOG_CH_RETRANS] = T(retrans, "MergeTree PARTITION BY " DAY("ts_ns")
			      " ORDER BY (node, ts_ns)", "cityHash64(node)", 1),
	[ILOG_CH_SOCKIO] = T(sockio, "MergeTree PARTITION BY " DAY("ts_ns")
			     " ORDER BY (node, pid, ts_ns)", "cityHash64(node)", 1),
};

static const char *const what[ILOG_CH__COUNT] = {
	[ILOG_CH_SESSIONS] = "one export run (complete = 1 once it finished)",
	[ILOG_CH_NODES] = "one recording (log header) per export run",
	[ILOG_CH_EVENTS] = "one CUDA runtime / driver / graph / NCCL call",
	[ILOG_CH_HOST_EVENTS] = "scheduler, memory and process-lifecycle events",
	[ILOG_CH_PROCESSES] = "traced processes",
	[ILOG_CH_SNAPSHOTS] = "system snapshots, per-process columns as arrays",
	[ILOG_CH_CHAINS] = "causal chains from ingero-correlate",
	[ILOG_CH_LOSSES] = "event loss counters (cumulative per source)",
	[ILOG_CH_STACKS] = "user stacks by fleet-wide id, frames as arrays",
	[ILOG_CH_BLKIO] = "block I/O per window, device and process (format 1.3)",
	[ILOG_CH_OPS] = "op number -> name",
	[ILOG_CH_LAYERS] = "layer number -> name",
	[ILOG_CH_HOST_TYPES] = "host event type -> name",
	[ILOG_CH_SEVERITIES] = "chain severity -> name",
	[ILOG_CH_RETRANS] = "TCP retransmissions per flow and window (format 1.3)",
	[ILOG_CH_SOCKIO] = "TCP socket bytes per process and window (format 1.3)",
};

int ilog_ch_ident(const char *s)
{
	size_t n = 0;
	if (!s || !*s || (*s >= '0' && *s <= '9'))
		return 0;
	for (; s[n]; n++) {
		char c = s[n];
		if (!((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
		      c == '_'))
			return 0;
	}
	return n <= 64;
}

int ilog_ch_create(struct ilog_buf *b, const char *db, enum ilog_ch_table t, int distributed)
{
	const struct ilog_ch_table_def *d = &ilog_ch_tables[t];
	if (distributed)
		return ilog_buf_printf(b, "CREATE TABLE IF NOT EXISTS %s.%s" ILOG_CH_DIST_SUFFIX
				       " AS %s.%s ENGINE = Distributed(" ILOG_CH_CLUSTER
				       ", %s, %s, %s)", db, d->name, db, d->name, db, d->name,
				       d->shard_key);
	int bad = ilog_buf_printf(b, "CREATE TABLE IF NOT EXISTS %s.%s\n(\n", db, d->name);
	for (unsigned i = 0; i < d->ncols; i++)
		bad |= ilog_buf_printf(b, "    %s %s%s\n", d->cols[i].name, d->cols[i].sql,
				       i + 1 < d->ncols ? "," : "");
	bad |= ilog_buf_printf(b, ")\nENGINE = %s", d->engine);
	return bad ? -1 : 0;
}

int ilog_ch_ddl(struct ilog_buf *b, const char *db, int comments, int distributed)
{
	int bad = 0;
	if (comments)
		bad |= ilog_buf_printf(b, "-- ingero fleet schema for ClickHouse (docs/fleet.md); "
				       "database %s.\n-- ClickHouse 18.16 needs "
				       "allow_experimental_low_cardinality_type=1 in the "
				       "server's profile.\n", db);
	bad |= ilog_buf_printf(b, "CREATE DATABASE IF NOT EXISTS %s;\n", db);
	for (int t = 0; t < ILOG_CH__COUNT; t++) {
		if (comments)
			bad |= ilog_buf_printf(b, "\n-- %s: %s\n", ilog_ch_tables[t].name, what[t]);
		bad |= ilog_ch_create(b, db, (enum ilog_ch_table)t, 0);
		bad |= ilog_buf_printf(b, ";\n");
	}
	if (distributed) {
		if (comments)
			bad |= ilog_buf_printf(b, "\n-- Multi-shard: tables that read every shard of "
					       "the cluster '" ILOG_CH_CLUSTER "' (remote_servers\n"
					       "-- in each server's config; the local tables "
					       "above must exist on every shard).\n");
		for (int t = 0; t < ILOG_CH__COUNT; t++) {
			if (!ilog_ch_tables[t].shard_key)
				continue;
			bad |= ilog_ch_create(b, db, (enum ilog_ch_table)t, 1);
			bad |= ilog_buf_printf(b, ";\n");
		}
	}
	return bad ? -1 : 0;
}

int ilog_ch_insert_sql(struct ilog_buf *b, const char *db, enum ilog_ch_table t)
{
	const struct ilog_ch_table_def *d = &ilog_ch_tables[t];
	int bad = ilog_buf_printf(b, "INSERT INTO %s.%s (", db, d->name);
	for (unsigned i = 0; i < d->ncols; i++)
		bad |= ilog_buf_printf(b, "%s%s", i ? ", " : "", d->cols[i].name);
	bad |= ilog_buf_printf(b, ") FORMAT RowBinary");
	return bad ? -1 : 0;
}

/* ---- RowBinary ---- */

/*
 * A row is written through a small scratch area: fixed-size columns and
 * length prefixes gather there and go to the batch in one ilog_buf_put
 * before each string's bytes and at the end of the row.
 */
struct enc {
	struct ilog_buf *b;
	char tmp[512];
	size_t n;
	int bad;
};

static void drain(struct enc *e)
{
	if (e->n && ilog_buf_put(e->b, e->tmp, e->n))
		e->bad = 1;
	e->n = 0;
}

static void put_fixed(struct enc *e, const void *p, size_t n)
{
	if (e->n + n > sizeof(e->tmp))
		drain(e);
	memcpy(e->tmp + e->n, p, n);
	e->n += n;
}

static void put_u16(struct enc *e, uint16_t v) { v = htole16(v); put_fixed(e, &v, 2); }
static void put_u32(struct enc *e, uint32_t v) { v = htole32(v); put_fixed(e, &v, 4); }
static void put_u64(struct enc *e, uint64_t v) { v = htole64(v); put_fixed(e, &v, 8); }

static void put_f64(struct enc *e, double d)
{
	uint64_t u;
	memcpy(&u, &d, sizeof(u));
	put_u64(e, u);
}

/* unsigned LEB128, as ClickHouse writes string and array lengths */
static void put_len(struct enc *e, uint64_t v)
{
	char p[10];
	size_t n = 0;
	while (v >= 0x80) {
		p[n++] = (char)(v | 0x80);
		v >>= 7;
	}
	p[n++] = (char)v;
	put_fixed(e, p, n);
}

static void put_str(struct enc *e, const struct ilog_str *s)
{
	put_len(e, s->n);
	if (s->n) {
		drain(e);
		if (ilog_buf_put(e->b, s->p, s->n))
			e->bad = 1;
	}
}

static void put_arr(struct enc *e, enum ilog_ch_type t, const struct ilog_ch_arr *a)
{
	put_len(e, a->n);
	const char *p = a->p;
	for (uint32_t i = 0; i < a->n; i++, p += a->stride) {
		uint32_t u32;
		uint64_t u64;
		double f;
		switch (t) {
		case ILOG_CH_ASTR: put_str(e, (const struct ilog_str *)(const void *)p); break;
		case ILOG_CH_AU32: memcpy(&u32, p, 4); put_u32(e, u32); break;
		case ILOG_CH_AU64: memcpy(&u64, p, 8); put_u64(e, u64); break;
		case ILOG_CH_AF64: memcpy(&f, p, 8); put_f64(e, f); break;
		default: e->bad = 1; break;
		}
	}
}

int ilog_ch_encode(struct ilog_buf *b, enum ilog_ch_table t, const void *row)
{
	const struct ilog_ch_table_def *d = &ilog_ch_tables[t];
	const char *r = row;
	struct enc e = { .b = b };
	size_t len0 = b->len;
	for (unsigned i = 0; i < d->ncols; i++) {
		const struct ilog_ch_column *c = &d->cols[i];
		const void *f = r + c->off;
		switch (c->type) {
		case ILOG_CH_U8: put_fixed(&e, f, 1); break;
		case ILOG_CH_U16: put_u16(&e, *(const uint16_t *)f); break;
		case ILOG_CH_U32: case ILOG_CH_I32: put_u32(&e, *(const uint32_t *)f); break;
		case ILOG_CH_U64: case ILOG_CH_I64: put_u64(&e, *(const uint64_t *)f); break;
		case ILOG_CH_F64: put_f64(&e, *(const double *)f); break;
		case ILOG_CH_STR: put_str(&e, f); break;
		default: put_arr(&e, c->type, f); break;
		}
	}
	drain(&e);
	if (e.bad)
		b->len = len0; /* no part of a row */
	return e.bad ? -1 : 0;
}
