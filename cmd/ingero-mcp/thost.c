// SPDX-License-Identifier: MIT
/*
 * get_host_context: what the rest of the host did in a time window (format
 * 1.2): the processes that allocated most pages, with their containers and
 * the direct reclaim and compaction stalls their tasks suffered, the pages
 * of all others, and the low point of available memory and the peaks of
 * pressure stall information from the snapshots.
 */
#include <string.h>
#include "mcp_trace.h"

int tool_host_context(struct ilog_mcp *m, json_t *args, int verbose, struct ilog_buf *text,
		      char *err, size_t errlen)
{
	struct trace_ctx c;
	struct trace_filter f;
	int rc = trace_session(m, args, &c, err, errlen);
	if (rc || (rc = trace_where(&c, args, TF_TIME, &f, err, errlen)))
		return rc;
	const char *hw = strstr(f.sql, " AND") ? strstr(f.sql, " AND") : "";
	long long s = (long long)c.session;
	char sql[4096];
	snprintf(sql, sizeof(sql),
		 "WITH h AS (SELECT * FROM host_events WHERE session_id = %lld%s),"
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
		 "   ORDER BY q.ts DESC LIMIT 1),"
		 "  coalesce(pg.pages, 0), coalesce(pg.pages * 1e9 / nullif(pg.ns, 0), 0),"
		 "  coalesce(st.n, 0), coalesce(st.ns, 0)"
		 " FROM ids LEFT JOIN pg USING (pid) LEFT JOIN st USING (pid)"
		 " ORDER BY 4 DESC, 7 DESC LIMIT %d",
		 s, hw, s, s, 20);
	char sum_sql[1024];
	snprintf(sum_sql, sizeof(sum_sql),
		 "SELECT (SELECT coalesce(sum(value), 0) FROM host_events WHERE session_id = %lld"
		 "   AND type = 9%s),"
		 "  min(mem_avail), max(mem_total), max(psi_cpu_some), max(psi_mem_some),"
		 "  max(psi_io_some), max(swap_total - swap_free)"
		 " FROM snapshots WHERE session_id = %lld%s", s, hw, s, hw);
	trace_filter_free(&f);
	sqlite3_stmt *st;
	if ((rc = mcp_prepare(m, sql, 0, &st, err, errlen)))
		return rc;
	json_t *rows = json_array();
	int r, e = !rows;
	while (!e && (r = mcp_step(m, st, err, errlen)) == SQLITE_ROW) {
		json_t *comm = mcp_column_json(st, 1, 64), *ctr = mcp_column_json(st, 2, 256);
		if (verbose) {
			e = mcp_buf_printf(text, "pid %lld (%s)%s%s: %lld pages (%.0f pages/s)",
					   (long long)sqlite3_column_int64(st, 0),
					   json_string_value(comm) ? json_string_value(comm) : "?",
					   json_string_length(ctr) ? " in " : "",
					   json_string_length(ctr) ? json_string_value(ctr) : "",
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
		return e ? MCP_NOMEM : MCP_TOOL_ERROR;
	}
	if ((rc = mcp_prepare(m, sum_sql, 0, &st, err, errlen))) {
		json_decref(rows);
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
		json_decref(mem);
		return rc ? MCP_NOMEM : MCP_OK;
	}
	json_t *o = json_pack("{s:I, s:o, s:I, s:[s,s,s,s,s,s,s], s:o}", "session",
			      (json_int_t)c.seq, "memory", mem, "other_pages", (json_int_t)rest,
			      "cols", "pid", "comm", "container", "pages", "pages_per_s", "stalls",
			      "stall_ms", "rows", rows);
	rc = !o || mcp_buf_json(text, o) ? MCP_NOMEM : MCP_OK;
	json_decref(o);
	return rc;
}
