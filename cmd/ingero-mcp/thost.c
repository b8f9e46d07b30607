// SPDX-License-Identifier: MIT
/*
 * get_host_context: what the rest of the host did in a time window (format
 * 1.2): the processes that allocated most pages, with their containers and
 * the direct reclaim and compaction stalls their tasks suffered, the pages
 * of all others, and the low point of available memory and the peaks of
 * pressure stall information from the snapshots; and (format 1.3) the
 * disks: per device its requests, throughput and latency quantiles (from
 * the summed histograms), its busiest processes and the traced processes'
 * time blocked on I/O; and the network: the TCP flows that retransmitted
 * most with their owner, and the processes that moved most socket bytes.
 */
#include <stdlib.h>
#include <string.h>
#include "mcp_trace.h"

/* Rows of sql as JSON arrays of their columns (NULL: error, err filled). */
static json_t *rows_of(struct ilog_mcp *m, const char *sql, int *rc, char *err, size_t errlen)
{
	sqlite3_stmt *st;
	if ((*rc = mcp_prepare(m, sql, 0, &st, err, errlen)))
		return NULL;
	json_t *rows = json_array();
	int r = SQLITE_DONE, e = !rows;
	while (!e && (r = mcp_step(m, st, err, errlen)) == SQLITE_ROW) {
		json_t *row = json_array();
		for (int i = 0; row && i < sqlite3_column_count(st); i++)
			e |= json_array_append_new(row, mcp_column_json(st, i, 256));
		e |= !row || json_array_append_new(rows, row);
	}
	sqlite3_finalize(st);
	if (e || r != SQLITE_DONE) {
		json_decref(rows);
		*rc = e ? MCP_NOMEM : MCP_TOOL_ERROR;
		return NULL;
	}
	return rows;
}

/*
 * The disks of the window: [disk, ios, bytes, MB/s, p50 ms, p99 ms, max ms]
 * per device, its 8 busiest processes [disk, pid, comm, container, ios,
 * bytes, share of the device's bytes] and the targets' I/O wait [pid,
 * comm, ms blocked, waits].
 */
static json_t *disk_context(struct ilog_mcp *m, long long s, const char *hw, int *rc, char *err,
			    size_t errlen)
{
	char sql[2048];
	/* per device: its windows' requests summed in SQL, its histograms here */
	snprintf(sql, sizeof(sql),
		 "SELECT disk, sum(ios), sum(bytes), sum(bytes) * 1e3 / nullif(sum(dur_ns), 0)"
		 "  * count(*) / count(DISTINCT ts), max(lat_max_ns), group_concat(hist, ';')"
		 " FROM blkio WHERE session_id = %lld%s GROUP BY disk ORDER BY 3 DESC LIMIT 16",
		 s, hw);
	json_t *dev = rows_of(m, sql, rc, err, errlen);
	if (!dev)
		return NULL;
	json_t *devs = json_array();
	size_t i;
	json_t *d;
	json_array_foreach(dev, i, d) {
		uint64_t h[INGERO_BLK_HBUCKETS] = { 0 };
		const char *p = json_string_value(json_array_get(d, 5));
		for (uint32_t k = 0; p && *p; p++) { /* "[a,b,...];[c,...]" */
			if (*p == '[' || *p == ';')
				k = 0;
			else if (*p >= '0' && *p <= '9') {
				char *end;
				uint64_t v = strtoull(p, &end, 10);
				if (k < INGERO_BLK_HBUCKETS)
					h[k++] += v;
				p = end - 1;
			}
		}
		uint64_t mx = (uint64_t)json_integer_value(json_array_get(d, 4));
		json_t *row = json_pack("[O, O, O, f, f, f, f]", json_array_get(d, 0),
					json_array_get(d, 1), json_array_get(d, 2),
					(double)(int64_t)(json_number_value(json_array_get(d, 3)) * 10) / 10,
					(double)ilog_blk_quantile(h, INGERO_BLK_HBUCKETS, 0.50, mx) / 1e6,
					(double)ilog_blk_quantile(h, INGERO_BLK_HBUCKETS, 0.99, mx) / 1e6,
					(double)mx / 1e6);
		if (!row || json_array_append_new(devs, row))
			*rc = MCP_NOMEM;
	}
	json_decref(dev);
	snprintf(sql, sizeof(sql),
		 "WITH b AS (SELECT * FROM blkio WHERE session_id = %lld%s),"
		 " t AS (SELECT disk, sum(bytes) AS bytes FROM b GROUP BY disk)"
		 " SELECT b.disk, b.pid, max(b.comm),"
		 "  (SELECT coalesce(nullif(q.container_id, ''), nullif(q.cgroup, ''), '')"
		 "   FROM processes q WHERE q.session_id = %lld AND q.pid = b.pid"
		 "   ORDER BY q.ts DESC LIMIT 1),"
		 "  sum(b.ios), sum(b.bytes), round(sum(b.bytes) * 1.0 / nullif(t.bytes, 0), 3)"
		 " FROM b JOIN t USING (disk) WHERE b.pid != 0 GROUP BY b.disk, b.pid"
		 " ORDER BY 6 DESC LIMIT 8", s, hw, s);
	json_t *procs = rows_of(m, sql, rc, err, errlen);
	snprintf(sql, sizeof(sql),
		 "SELECT pid, max(comm), round(sum(value) / 1e6, 3), sum(other_pid) FROM host_events"
		 " WHERE session_id = %lld AND type = 12%s GROUP BY pid ORDER BY 3 DESC LIMIT 16",
		 s, hw);
	json_t *iow = procs ? rows_of(m, sql, rc, err, errlen) : NULL;
	if (!procs || !iow || *rc) {
		json_decref(devs);
		json_decref(procs);
		json_decref(iow);
		return NULL;
	}
	return json_pack("{s:[s,s,s,s,s,s,s], s:o, s:[s,s,s,s,s,s,s], s:o, s:[s,s,s,s], s:o}",
			 "device_cols", "disk", "ios", "bytes", "mb_per_s", "p50_ms", "p99_ms",
			 "max_ms", "devices", devs, "proc_cols", "disk", "pid", "comm", "container",
			 "ios", "bytes", "share", "procs", procs, "iowait_cols", "pid", "comm",
			 "blocked_ms", "waits", "iowait", iow);
}

/*
 * The network of the window: the 8 flows that retransmitted most [pid,
 * comm, container, local, remote, retransmits, per second] (the rest
 * summed in other_retransmits) and the 8 processes that moved most TCP
 * bytes [pid, comm, container, tx bytes, rx bytes, tx MB/s, rx MB/s].
 */
static json_t *net_context(struct ilog_mcp *m, long long s, const char *hw, int *rc, char *err,
			   size_t errlen)
{
	char sql[2048];
#define CTR "(SELECT coalesce(nullif(q.container_id, ''), nullif(q.cgroup, ''), '')" \
	    " FROM processes q WHERE q.session_id = %lld AND q.pid = x.pid" \
	    " ORDER BY q.ts DESC LIMIT 1)"
	snprintf(sql, sizeof(sql),
		 "WITH x AS (SELECT * FROM retrans WHERE session_id = %lld AND family != 0%s)"
		 " SELECT x.pid, max(x.comm), " CTR ","
		 "  CASE x.family WHEN 6 THEN '[' || saddr || ']' ELSE saddr END || ':' || sport,"
		 "  CASE x.family WHEN 6 THEN '[' || daddr || ']' ELSE daddr END || ':' || dport,"
		 "  sum(count), round(sum(count) * 1e9 / nullif(sum(dur_ns), 0), 1)"
		 " FROM x GROUP BY x.pid, saddr, sport, daddr, dport ORDER BY 6 DESC LIMIT 8",
		 s, hw, s);
	json_t *flows = rows_of(m, sql, rc, err, errlen);
	snprintf(sql, sizeof(sql),
		 "SELECT coalesce(sum(count), 0) FROM retrans WHERE session_id = %lld%s", s, hw);
	json_t *all = flows ? rows_of(m, sql, rc, err, errlen) : NULL;
	snprintf(sql, sizeof(sql),
		 "WITH x AS (SELECT * FROM sockio WHERE session_id = %lld AND pid != 0%s)"
		 " SELECT x.pid, max(x.comm), " CTR ", sum(tx_bytes), sum(rx_bytes),"
		 "  round(sum(tx_bytes) * 1e3 / nullif(sum(dur_ns), 0), 3),"
		 "  round(sum(rx_bytes) * 1e3 / nullif(sum(dur_ns), 0), 3)"
		 " FROM x GROUP BY x.pid ORDER BY sum(tx_bytes) + sum(rx_bytes) DESC LIMIT 8",
		 s, hw, s);
#undef CTR
	json_t *procs = all ? rows_of(m, sql, rc, err, errlen) : NULL;
	if (!flows || !all || !procs || *rc) {
		json_decref(flows);
		json_decref(all);
		json_decref(procs);
		return NULL;
	}
	json_int_t total = json_integer_value(json_array_get(json_array_get(all, 0), 0)), named = 0;
	size_t i;
	json_t *d;
	json_array_foreach(flows, i, d)
		named += json_integer_value(json_array_get(d, 5));
	json_decref(all);
	return json_pack("{s:[s,s,s,s,s,s,s], s:o, s:I, s:[s,s,s,s,s,s,s], s:o}", "flow_cols",
			 "pid", "comm", "container", "local", "remote", "retransmits", "per_s",
			 "flows", flows, "other_retransmits", total - named, "proc_cols", "pid",
			 "comm", "container", "tx_bytes", "rx_bytes", "tx_mb_per_s", "rx_mb_per_s",
			 "procs", procs);
}

int tool_host_context(struct ilog_mcp *m, const struct trace_ctx *c, const struct trace_filter *f,
		      json_t *args, int verbose, struct ilog_buf *text, char *err, size_t errlen)
{
	(void)args; /* the filter holds what it says */
	int rc = MCP_OK;
	const char *hw = trace_where_rest(f);
	long long s = (long long)c->session;
	/* the top allocators; in more than one container: grouped by it */
	int grouped = trace_containers(m, c->session) > 1;
	char sql[4096];
	snprintf(sql, sizeof(sql),
		 "%sWITH h AS (SELECT * FROM host_events WHERE session_id = %lld%s),"
		 " pg AS (SELECT pid, sum(value) AS pages, sum(dur_ns) AS ns FROM h"
		 "  WHERE type = 4 GROUP BY pid),"
		 " st AS (SELECT pid, count(*) AS n, sum(dur_ns) AS ns FROM h"
		 "  WHERE type IN (10, 11) GROUP BY pid),"
		 " ids AS (SELECT pid FROM pg UNION SELECT pid FROM st)"
		 " SELECT ids.pid,"
		 "  (SELECT comm FROM processes q WHERE q.session_id = %lld AND q.pid = ids.pid"
		 "   ORDER BY q.ts DESC LIMIT 1),"
		 "  (SELECT coalesce(nullif(q.container_id, ''), nullif(q.cgroup, ''), '')"
		 "   FROM processes q WHERE q.session_id = %lld AND q.pid = ids.pid"
		 "   ORDER BY q.ts DESC LIMIT 1) AS ctr,"
		 "  coalesce(pg.pages, 0) AS pages, coalesce(pg.pages * 1e9 / nullif(pg.ns, 0), 0),"
		 "  coalesce(st.n, 0), coalesce(st.ns, 0)"
		 " FROM ids LEFT JOIN pg USING (pid) LEFT JOIN st USING (pid)"
		 " ORDER BY 4 DESC, 7 DESC LIMIT %d%s",
		 grouped ? "SELECT * FROM (" : "", s, hw, s, s, 20,
		 grouped ? ") ORDER BY sum(pages) OVER (PARTITION BY ctr) DESC, ctr, 4 DESC, 7 DESC"
			 : "");
	char sum_sql[1024];
	snprintf(sum_sql, sizeof(sum_sql),
		 "SELECT (SELECT coalesce(sum(value), 0) FROM host_events WHERE session_id = %lld"
		 "   AND type = 9%s),"
		 "  min(mem_avail), max(mem_total), max(psi_cpu_some), max(psi_mem_some),"
		 "  max(psi_io_some), max(swap_total - swap_free)"
		 " FROM snapshots WHERE session_id = %lld%s", s, hw, s, hw);
	json_t *disk = disk_context(m, s, hw, &rc, err, errlen);
	json_t *net = disk ? net_context(m, s, hw, &rc, err, errlen) : NULL;
	if (!disk || !net) {
		json_decref(disk);
		return rc ? rc : MCP_NOMEM;
	}
	sqlite3_stmt *st;
	if ((rc = mcp_prepare(m, sql, 0, &st, err, errlen))) {
		json_decref(disk);
		json_decref(net);
		return rc;
	}
	json_t *rows = json_array();
	int r, e = !rows;
	char last[300] = "\001";
	while (!e && (r = mcp_step(m, st, err, errlen)) == SQLITE_ROW) {
		json_t *comm = mcp_column_json(st, 1, 64), *ctr = mcp_column_json(st, 2, 256);
		const char *cs = json_string_value(ctr) ? json_string_value(ctr) : "";
		if (verbose && grouped)
			e = trace_ctr_heading(text, last, sizeof(last), cs, NULL);
		if (verbose) {
			e = e || mcp_buf_printf(text, "%spid %lld (%s)%s%s: %lld pages (%.0f pages/s)",
					   grouped ? "  " : "",
					   (long long)sqlite3_column_int64(st, 0),
					   json_string_value(comm) ? json_string_value(comm) : "?",
					   json_string_length(ctr) && !grouped ? " in " : "",
					   json_string_length(ctr) && !grouped ? json_string_value(ctr) : "",
					   (long long)sqlite3_column_int64(st, 3),
					   sqlite3_column_double(st, 4));
			if (sqlite3_column_int64(st, 5))
				e = e || mcp_buf_printf(text, ", %lld reclaim/compaction stalls "
							"(%.3f ms)",
							(long long)sqlite3_column_int64(st, 5),
							(double)sqlite3_column_int64(st, 6) / 1e6);
			e = e || mcp_buf_printf(text, "\n");
		} else {
			json_t *row = json_pack("[I, O, O, I, f, I, f]",
						(json_int_t)sqlite3_column_int64(st, 0), comm, ctr,
						(json_int_t)sqlite3_column_int64(st, 3),
						(double)(int64_t)sqlite3_column_double(st, 4),
						(json_int_t)sqlite3_column_int64(st, 5),
						(double)(sqlite3_column_int64(st, 6) / 1000) / 1000.0);
			e = !row || json_array_append_new(rows, row);
		}
		json_decref(comm);
		json_decref(ctr);
	}
	sqlite3_finalize(st);
	if (e || r != SQLITE_DONE) {
		json_decref(rows);
		json_decref(disk);
		json_decref(net);
		return e ? MCP_NOMEM : MCP_TOOL_ERROR;
	}
	if ((rc = mcp_prepare(m, sum_sql, 0, &st, err, errlen))) {
		json_decref(rows);
		json_decref(disk);
		json_decref(net);
		return rc;
	}
	json_t *mem = NULL;
	int64_t rest = 0;
	if ((r = mcp_step(m, st, err, errlen)) == SQLITE_ROW) {
		rest = sqlite3_column_int64(st, 0);
		mem = json_pack("{s:o, s:o, s:o, s:o, s:o, s:o}",
				"mem_avail_min", mcp_column_json(st, 1, 32),
				"mem_total", mcp_column_json(st, 2, 32),
				"psi_cpu_some_max", mcp_column_json(st, 3, 32),
				"psi_mem_some_max", mcp_column_json(st, 4, 32),
				"psi_io_some_max", mcp_column_json(st, 5, 32),
				"swap_used_max", mcp_column_json(st, 6, 32));
	}
	sqlite3_finalize(st);
	if (!mem) {
		json_decref(rows);
		json_decref(disk);
		json_decref(net);
		return r == SQLITE_ROW ? MCP_NOMEM : MCP_TOOL_ERROR;
	}
	if (verbose) {
		json_decref(rows);
		rc = mcp_buf_printf(text, "other processes: %lld pages\n", (long long)rest);
		if (!rc && json_is_integer(json_object_get(mem, "mem_total")))
			rc = mcp_buf_printf(
				text, "least memory available: %lld of %lld bytes; PSI (some) "
				"up to cpu %.1f%%, memory %.1f%%, io %.1f%%\n",
				(long long)json_integer_value(json_object_get(mem, "mem_avail_min")),
				(long long)json_integer_value(json_object_get(mem, "mem_total")),
				json_number_value(json_object_get(mem, "psi_cpu_some_max")),
				json_number_value(json_object_get(mem, "psi_mem_some_max")),
				json_number_value(json_object_get(mem, "psi_io_some_max")));
		size_t i;
		json_t *d;
		json_array_foreach(json_object_get(disk, "devices"), i, d)
			rc = rc || mcp_buf_printf(text, "disk %s: %lld requests, %lld bytes (%.1f MB/s), "
						  "latency p50 %.3f ms, p99 %.3f ms, max %.3f ms\n",
						  json_string_value(json_array_get(d, 0)),
						  (long long)json_integer_value(json_array_get(d, 1)),
						  (long long)json_integer_value(json_array_get(d, 2)),
						  json_number_value(json_array_get(d, 3)),
						  json_number_value(json_array_get(d, 4)),
						  json_number_value(json_array_get(d, 5)),
						  json_number_value(json_array_get(d, 6)));
		json_array_foreach(json_object_get(disk, "procs"), i, d) {
			const char *ctr = json_string_value(json_array_get(d, 3));
			rc = rc || mcp_buf_printf(text, "  %s: pid %lld (%s)%s%s: %lld bytes, %.0f%% of "
						  "the device's\n", json_string_value(json_array_get(d, 0)),
						  (long long)json_integer_value(json_array_get(d, 1)),
						  json_string_value(json_array_get(d, 2)),
						  ctr && *ctr ? " in " : "", ctr && *ctr ? ctr : "",
						  (long long)json_integer_value(json_array_get(d, 5)),
						  json_number_value(json_array_get(d, 6)) * 100);
		}
		json_array_foreach(json_object_get(disk, "iowait"), i, d)
			rc = rc || mcp_buf_printf(text, "pid %lld (%s) blocked on I/O %.3f ms (%lld "
						  "waits)\n", (long long)json_integer_value(json_array_get(d, 0)),
						  json_string_value(json_array_get(d, 1)),
						  json_number_value(json_array_get(d, 2)),
						  (long long)json_integer_value(json_array_get(d, 3)));
		json_array_foreach(json_object_get(net, "flows"), i, d) {
			const char *ctr = json_string_value(json_array_get(d, 2));
			rc = rc || mcp_buf_printf(text, "tcp %s > %s: %lld retransmits (%.1f/s), pid "
						  "%lld (%s)%s%s\n",
						  json_string_value(json_array_get(d, 3)),
						  json_string_value(json_array_get(d, 4)),
						  (long long)json_integer_value(json_array_get(d, 5)),
						  json_number_value(json_array_get(d, 6)),
						  (long long)json_integer_value(json_array_get(d, 0)),
						  json_string_value(json_array_get(d, 1)),
						  ctr && *ctr ? " in " : "", ctr && *ctr ? ctr : "");
		}
		if (json_integer_value(json_object_get(net, "other_retransmits")))
			rc = rc || mcp_buf_printf(text, "tcp, other flows: %lld retransmits\n",
						  (long long)json_integer_value(
							  json_object_get(net, "other_retransmits")));
		json_array_foreach(json_object_get(net, "procs"), i, d) {
			const char *ctr = json_string_value(json_array_get(d, 2));
			rc = rc || mcp_buf_printf(text, "pid %lld (%s)%s%s: tcp sent %lld bytes (%.3f "
						  "MB/s), received %lld bytes (%.3f MB/s)\n",
						  (long long)json_integer_value(json_array_get(d, 0)),
						  json_string_value(json_array_get(d, 1)),
						  ctr && *ctr ? " in " : "", ctr && *ctr ? ctr : "",
						  (long long)json_integer_value(json_array_get(d, 3)),
						  json_number_value(json_array_get(d, 5)),
						  (long long)json_integer_value(json_array_get(d, 4)),
						  json_number_value(json_array_get(d, 6)));
		}
		json_decref(disk);
		json_decref(net);
		json_decref(mem);
		return rc ? MCP_NOMEM : MCP_OK;
	}
	json_t *o = json_pack("{s:I, s:o, s:I, s:[s,s,s,s,s,s,s], s:o, s:o, s:o}", "session",
			      (json_int_t)c->seq, "memory", mem, "other_pages", (json_int_t)rest,
			      "cols", "pid", "comm", "container", "pages", "pages_per_s", "stalls",
			      "stall_ms", "rows", rows, "disk", disk, "network", net);
	rc = !o || mcp_buf_json(text, o) ? MCP_NOMEM : MCP_OK;
	json_decref(o);
	return rc;
}
