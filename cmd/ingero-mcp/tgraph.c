// SPDX-License-Identifier: MIT
/*
 * graph_lifecycle and graph_frequency: CUDA Graphs as the trace shows
 * them.  The events: cudaStreamBeginCapture / cudaStreamEndCapture on a
 * stream (the capture), cudaGraphInstantiate[WithFlags] (handle = the
 * graph exec made), cudaGraphLaunch (handle = the graph exec launched)
 * (SPEC §5.4 argument meanings).
 *
 * Hot/cold rule (graph_frequency), from the data alone: execs sorted by
 * launches, the fewest that together make 90% of all launches are hot,
 * the rest cold; an exec instantiated and never launched is unused.  A
 * stream captured more than once is re-captured: each capture pays
 * instantiation again, the pattern behind "graph re-capture" stalls.
 *
 * Graph calls are few among a trace's launches: both tools read them
 * through the export's partial index events_graph (ops 14-18 only, in
 * time order, covering the columns read), so their cost follows the
 * number of graph calls, not of events.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "ingero/vec.h"
#include "mcp_trace.h"

#define GRAPH_OPS "14,15,16,17,18"
_Static_assert(ILOG_OP_cudaStreamBeginCapture == 14 && ILOG_OP_cudaGraphLaunch == 18 &&
		       ILOG_OP_cudaStreamEndCapture == 15 && ILOG_OP_cudaGraphInstantiate == 16 &&
		       ILOG_OP_cudaGraphInstantiateWithFlags == 17,
	       "GRAPH_OPS lists the graph ops");

/* The FROM and WHERE head that reads graph calls through events_graph
 * (its condition repeated, so the planner may use it) where the database
 * has it. */
static const char *graph_from(struct ilog_mcp *m)
{
	sqlite3_stmt *st = NULL;
	int has = 0;
	if (sqlite3_prepare_v2(m->db, "SELECT 1 FROM sqlite_schema WHERE type = 'index'"
				      " AND name = 'events_graph'", -1, &st, NULL) == SQLITE_OK)
		has = sqlite3_step(st) == SQLITE_ROW;
	sqlite3_finalize(st);
	return has ? "events INDEXED BY events_graph WHERE op BETWEEN 14 AND 18 AND"
		   : "events WHERE";
}

/* The session's (or with pid, the process's) row of summary_graph_lifecycle
 * into sum[8].  1 when there is one; 0 (read the calls) when the database
 * has no such summary, or the process made no graph call. */
static int graph_summary(struct ilog_mcp *m, const struct trace_ctx *c, json_t *pid,
			 int64_t sum[8])
{
	sqlite3_stmt *st = NULL;
	int found = 0;
	if (!mcp_has_table(m, "summary_graph_lifecycle") ||
	    sqlite3_prepare_v2(m->db, "SELECT calls, captures, recaptures, instantiations,"
				      " instantiate_ns, launches, failed, capture_ns"
				      " FROM summary_graph_lifecycle WHERE session_id = ?1 AND pid IS ?2",
			       -1, &st, NULL) != SQLITE_OK) {
		sqlite3_finalize(st);
		return 0;
	}
	sqlite3_bind_int64(st, 1, c->session);
	if (pid) /* else ?2 stays NULL: the session's row */
		sqlite3_bind_int64(st, 2, json_integer_value(pid));
	if (sqlite3_step(st) == SQLITE_ROW) {
		found = 1;
		for (int i = 0; i < 8; i++)
			sum[i] = sqlite3_column_int64(st, i);
	}
	sqlite3_finalize(st);
	return found;
}

int tool_graph_lifecycle(struct ilog_mcp *m, const struct trace_ctx *c,
			 const struct trace_filter *f, json_t *args, int verbose,
			 struct ilog_buf *text, char *err, size_t errlen)
{
	int rc = MCP_OK;
	char sql[512];
	snprintf(sql, sizeof(sql),
		 "SELECT ts, dur_ns, op, stream, handle, ret, pid FROM %s %s"
		 " AND op IN (" GRAPH_OPS ") ORDER BY ts",
		 graph_from(m), f->sql);
	sqlite3_stmt *st;
	if ((rc = trace_prepare(m, sql, f, &st, err, errlen)))
		return rc;
	/* Over a whole session the totals come from the export's summary
	 * (summary_graph_lifecycle, counted as this loop counts), and the
	 * loop reads only the calls the timeline shows. */
	int64_t sum[8] = { 0 }; /* calls, captures, recaptures, instantiations,
				 * instantiate_ns, launches, failed, capture_ns */
	int summed = !json_object_get(args, "since") && !json_object_get(args, "until") &&
		     graph_summary(m, c, json_object_get(args, "pid"), sum);
	json_t *lim = json_object_get(args, "limit");
	int64_t limit = lim ? json_integer_value(lim) : 40, entries = 0, more = 0, read = 0;
	int64_t captures = 0, instantiations = 0, launches = 0, failed = 0, inst_ns = 0;
	int64_t capture_ns = 0, open_ts = 0, last_exec = 0;
	int64_t streams[64], stream_caps[64];
	int nstreams = 0;
	json_t *tl = json_array(), *run = NULL; /* run: the open launch entry */
	int s, oom = !tl;
	while (!oom && (s = mcp_step(m, st, err, errlen)) == SQLITE_ROW) {
		int64_t ts = sqlite3_column_int64(st, 0), dur = sqlite3_column_int64(st, 1);
		int op = sqlite3_column_int(st, 2);
		int64_t stream = sqlite3_column_int64(st, 3), handle = sqlite3_column_int64(st, 4);
		int ret = sqlite3_column_int(st, 5);
		read++;
		failed += ret != 0;
		const char *what = NULL;
		char detail[96] = "";
		switch (op) {
		case ILOG_OP_cudaStreamBeginCapture: {
			captures++;
			open_ts = ts;
			int k;
			for (k = 0; k < nstreams && streams[k] != stream; k++)
				;
			if (k == nstreams && nstreams < 64) {
				streams[nstreams] = stream;
				stream_caps[nstreams++] = 0;
			}
			if (k < nstreams)
				stream_caps[k]++;
			what = k < nstreams && stream_caps[k] > 1 ? "recapture" : "capture";
			snprintf(detail, sizeof(detail), "stream 0x%llx", (unsigned long long)stream);
			break;
		}
		case ILOG_OP_cudaStreamEndCapture:
			if (open_ts)
				capture_ns += ts + dur - open_ts;
			open_ts = 0;
			what = "end_capture";
			snprintf(detail, sizeof(detail), "stream 0x%llx", (unsigned long long)stream);
			break;
		case ILOG_OP_cudaGraphInstantiate:
		case ILOG_OP_cudaGraphInstantiateWithFlags:
			instantiations++;
			inst_ns += dur;
			what = "instantiate";
			snprintf(detail, sizeof(detail), "exec 0x%llx", (unsigned long long)handle);
			break;
		default:
			launches++;
			/* consecutive launches of one exec are one entry */
			if (run && handle == last_exec && !ret) {
				json_array_set_new(run, 3, json_integer(json_integer_value(
								   json_array_get(run, 3)) + 1));
				continue;
			}
			last_exec = handle;
			what = "launch";
			snprintf(detail, sizeof(detail), "exec 0x%llx", (unsigned long long)handle);
			break;
		}
		if (entries >= limit) {
			if (summed) { /* this call and the rest are the ones not shown */
				more = sum[0] - read + 1;
				s = SQLITE_DONE;
				break;
			}
			more++;
			run = NULL;
			continue;
		}
		if (ret)
			snprintf(detail + strlen(detail), sizeof(detail) - strlen(detail), " failed %d",
				 ret);
		/* [t_s, what, detail, dur_us | launches] */
		json_t *e = json_pack("[f, s, s, f]", trace_s(ts - c->first_ts), what, detail,
				      trace_us((uint64_t)(dur > 0 ? dur : 0)));
		if (e && op == ILOG_OP_cudaGraphLaunch)
			json_array_set_new(e, 3, json_integer(1));
		oom = !e || json_array_append_new(tl, e);
		entries++;
		run = op == ILOG_OP_cudaGraphLaunch && !ret ? e : NULL;
	}
	sqlite3_finalize(st);
	if (oom) {
		json_decref(tl);
		return MCP_NOMEM;
	}
	if (s != SQLITE_DONE) {
		json_decref(tl);
		return MCP_TOOL_ERROR;
	}
	int64_t recaptures = 0;
	for (int k = 0; k < nstreams; k++)
		recaptures += stream_caps[k] > 1 ? stream_caps[k] - 1 : 0;
	if (summed) {
		captures = sum[1];
		recaptures = sum[2];
		instantiations = sum[3];
		inst_ns = sum[4];
		launches = sum[5];
		failed = sum[6];
		capture_ns = sum[7];
	}
	json_t *o = json_pack("{s:I, s:I, s:I, s:I, s:I, s:I, s:f, s:f, s:[s,s,s,s], s:o}",
			      "session", (json_int_t)c->seq, "captures", (json_int_t)captures,
			      "recaptures", (json_int_t)recaptures, "instantiations",
			      (json_int_t)instantiations, "launches", (json_int_t)launches,
			      "failed", (json_int_t)failed, "capture_ms",
			      (double)(capture_ns / 1000) / 1000.0, "instantiate_ms",
			      (double)(inst_ns / 1000) / 1000.0, "cols", "t_s", "what", "detail",
			      "dur_us|launches", "timeline", tl);
	if (o && more)
		json_object_set_new(o, "more_entries", json_integer(more));
	if (!o)
		return MCP_NOMEM;
	if (verbose) {
		int e = mcp_buf_printf(text,
				       "%lld captures (%lld re-captures of a stream already captured, "
				       "%.3f ms capturing), %lld instantiations (%.3f ms), %lld launches, "
				       "%lld failed graph calls\n",
				       (long long)captures, (long long)recaptures,
				       (double)capture_ns / 1e6, (long long)instantiations,
				       (double)inst_ns / 1e6, (long long)launches, (long long)failed);
		if (!captures && !instantiations && !launches)
			e = e || mcp_buf_printf(text, "no CUDA Graph calls in this trace\n");
		size_t i;
		json_t *v;
		json_array_foreach(tl, i, v) {
			const char *w = json_string_value(json_array_get(v, 1));
			if (!strcmp(w, "launch"))
				e = e || mcp_buf_printf(text, "  %10.3f s  launch %s x%lld\n",
							json_real_value(json_array_get(v, 0)),
							json_string_value(json_array_get(v, 2)),
							(long long)json_integer_value(json_array_get(v, 3)));
			else
				e = e || mcp_buf_printf(text, "  %10.3f s  %s %s (%.1f us)\n",
							json_real_value(json_array_get(v, 0)), w,
							json_string_value(json_array_get(v, 2)),
							json_real_value(json_array_get(v, 3)));
		}
		if (more)
			e = e || mcp_buf_printf(text, "  (%lld more entries; raise limit or narrow "
						      "since/until)\n", (long long)more);
		rc = e ? MCP_NOMEM : MCP_OK;
	} else {
		rc = mcp_buf_json(text, o) ? MCP_NOMEM : MCP_OK;
	}
	json_decref(o);
	return rc;
}

struct exec_row {
	int64_t handle, n, first, last, total;
};

int tool_graph_frequency(struct ilog_mcp *m, const struct trace_ctx *c,
			 const struct trace_filter *f, json_t *args, int verbose,
			 struct ilog_buf *text, char *err, size_t errlen)
{
	int rc = MCP_OK;
	char sql[768];
	/* Launches per exec, plus execs instantiated and never launched:
	 * over the whole session from the export's per-exec summary */
	int timed = json_object_get(args, "since") || json_object_get(args, "until");
	if (!timed && mcp_has_table(m, "summary_graph_execs"))
		snprintf(sql, sizeof(sql),
			 "SELECT handle, sum(launches), min(first_ts), max(last_ts), sum(launch_ns)"
			 " FROM summary_graph_execs WHERE %s GROUP BY handle ORDER BY 2 DESC, 1",
			 f->sql);
	else
		snprintf(sql, sizeof(sql),
			 "SELECT handle, sum(op = 18), min(CASE WHEN op = 18 THEN ts END),"
			 " max(CASE WHEN op = 18 THEN ts END),"
			 " sum(CASE WHEN op = 18 THEN dur_ns ELSE 0 END)"
			 " FROM %s %s AND op IN (16, 17, 18) AND ret = 0"
			 " GROUP BY handle ORDER BY 2 DESC, 1",
			 graph_from(m), f->sql);
	sqlite3_stmt *st;
	if ((rc = trace_prepare(m, sql, f, &st, err, errlen)))
		return rc;
	struct exec_row *rows = NULL;
	size_t n = 0;
	uint32_t cap = 0;
	int64_t all = 0;
	int s;
	while ((s = mcp_step(m, st, err, errlen)) == SQLITE_ROW) {
		if (ilog_grow((void **)&rows, &cap, n, sizeof(*rows), 64)) {
			sqlite3_finalize(st);
			free(rows);
			return MCP_NOMEM;
		}
		struct exec_row *r = &rows[n++];
		r->handle = sqlite3_column_int64(st, 0);
		r->n = sqlite3_column_int64(st, 1);
		r->first = sqlite3_column_int64(st, 2);
		r->last = sqlite3_column_int64(st, 3);
		r->total = sqlite3_column_int64(st, 4);
		all += r->n;
	}
	sqlite3_finalize(st);
	if (s != SQLITE_DONE) {
		free(rows);
		return MCP_TOOL_ERROR;
	}
	json_t *lim = json_object_get(args, "limit");
	size_t show = lim ? (size_t)json_integer_value(lim) : 20;
	json_t *list = json_array();
	int64_t cum = 0, hot = 0, cold = 0, unused = 0;
	int e = !list;
	for (size_t i = 0; i < n; i++) {
		struct exec_row *r = &rows[i];
		/* hot while the launches before this exec are under 90% */
		const char *cls = !r->n ? "unused" : cum * 10 < all * 9 ? "hot" : "cold";
		cum += r->n;
		hot += cls[0] == 'h';
		cold += cls[0] == 'c';
		unused += cls[0] == 'u';
		if (i >= show || e)
			continue;
		double span = r->n > 1 ? (double)(r->last - r->first) / 1e9 : 0;
		char h[32];
		snprintf(h, sizeof(h), "0x%llx", (unsigned long long)r->handle);
		json_t *row = json_pack("[s, s, I, f, f, f, f]", h, cls, (json_int_t)r->n,
					span > 0 ? (double)(int64_t)((double)(r->n - 1) / span * 10) / 10
						 : 0.0,
					r->n ? trace_s(r->first - c->first_ts) : 0.0,
					r->n ? trace_s(r->last - c->first_ts) : 0.0,
					r->n ? trace_us((uint64_t)(r->total / r->n)) : 0.0);
		e = !row || json_array_append_new(list, row);
	}
	free(rows);
	if (e) {
		json_decref(list);
		return MCP_NOMEM;
	}
	if (verbose) {
		e = mcp_buf_printf(text,
				   "%zu graph execs, %lld launches: %lld hot (together 90%% of "
				   "launches), %lld cold, %lld instantiated but never launched\n",
				   n, (long long)all, (long long)hot, (long long)cold, (long long)unused);
		size_t i;
		json_t *v;
		json_array_foreach(list, i, v)
			e = e || mcp_buf_printf(text,
						"  exec %s  %-6s %lld launches, %.1f/s, %.3f-%.3f s, "
						"mean %.1f us\n",
						json_string_value(json_array_get(v, 0)),
						json_string_value(json_array_get(v, 1)),
						(long long)json_integer_value(json_array_get(v, 2)),
						json_real_value(json_array_get(v, 3)),
						json_real_value(json_array_get(v, 4)),
						json_real_value(json_array_get(v, 5)),
						json_real_value(json_array_get(v, 6)));
		if (n > show)
			e = e || mcp_buf_printf(text, "  (%zu more execs; raise limit)\n", n - show);
		json_decref(list);
		return e ? MCP_NOMEM : MCP_OK;
	}
	json_t *o = json_pack("{s:I, s:I, s:I, s:I, s:I, s:I, s:[s,s,s,s,s,s,s], s:o}", "session",
			      (json_int_t)c->seq, "execs", (json_int_t)n, "launches", (json_int_t)all,
			      "hot", (json_int_t)hot, "cold", (json_int_t)cold, "unused",
			      (json_int_t)unused, "cols", "exec", "class", "launches", "per_s",
			      "first_s", "last_s", "mean_us", "rows", list);
	if (o && n > show)
		json_object_set_new(o, "more_execs", json_integer((json_int_t)(n - show)));
	rc = !o || mcp_buf_json(text, o) ? MCP_NOMEM : MCP_OK;
	json_decref(o);
	return rc;
}
