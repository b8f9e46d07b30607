// SPDX-License-Identifier: MIT
/*
 * get_trace_stats and get_process_breakdown.
 *
 * Over a whole session both read the summaries the export wrote at load
 * (docs/schema.md: summary_ops, summary_process_ops, summary_preemptions),
 * a few rows per op, whatever the trace's size; quantiles are then
 * ingero-correlate's (nearest-rank from its histogram, within 0.39%).
 * With a time window, or on a database written before the summaries
 * (schema version 2), they read the events: through the time index, or
 * in one storage-order pass, with exact nearest-rank quantiles (the
 * ceil(q*n)-th smallest duration) selected in memory.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "ingero/vec.h"
#include "mcp_trace.h"

struct op_row {
	int op;
	uint32_t node;
	uint64_t n, total, min, max, p50, p95, p99, errors;
	uint64_t qtotal;          /* summaries: the total of the row the quantiles are from */
	uint64_t *d;              /* the op's durations while collecting */
	uint32_t cap;
};

/* The k-th smallest (0-based) of v[lo..hi], rearranging v (Hoare
 * selection, middle pivot: durations arrive in time order, which is no
 * worst case for it). */
static uint64_t select_k(uint64_t *v, int64_t lo, int64_t hi, int64_t k)
{
	while (lo < hi) {
		uint64_t piv = v[lo + (hi - lo) / 2];
		int64_t i = lo, j = hi;
		while (i <= j) {
			while (v[i] < piv)
				i++;
			while (v[j] > piv)
				j--;
			if (i <= j) {
				uint64_t t = v[i];
				v[i++] = v[j];
				v[j--] = t;
			}
		}
		/* v[lo..j] <= piv <= v[i..hi]; between them all equal piv */
		if (k <= j)
			hi = j;
		else if (k >= i)
			lo = i;
		else
			return v[k];
	}
	return v[k];
}

/* Nearest rank: the ceil(n * pct / 100)-th smallest. */
static uint64_t rank(uint64_t *v, uint64_t n, unsigned pct)
{
	uint64_t k = (n * pct + 99) / 100;
	return select_k(v, 0, (int64_t)n - 1, k ? (int64_t)k - 1 : 0);
}

static int by_total(const void *a, const void *b)
{
	const struct op_row *x = a, *y = b;
	return x->total < y->total ? 1 : x->total > y->total ? -1 : x->op - y->op;
}

/*
 * One pass over the matching events, durations collected per op, then
 * three selections per op.  The pass reads the table in storage order
 * (NOT INDEXED) unless a time window is given: an index on op or pid
 * would visit the rows in another order, one random page read per row,
 * which on 5M events is ten times slower than reading them all.  A time
 * window follows events_ts, which is the storage order anyway.
 */
static int collect(struct ilog_mcp *m, const struct trace_filter *f, int timed,
		   struct op_row **rowsp, size_t *nrowsp, char *err, size_t errlen)
{
	char sql[512];
	sqlite3_stmt *st;
	snprintf(sql, sizeof(sql), "SELECT op, dur_ns, ret FROM events%s WHERE %s",
		 timed ? "" : " NOT INDEXED", f->sql);
	int rc = trace_prepare(m, sql, f, &st, err, errlen);
	if (rc)
		return rc;
	struct op_row *rows = NULL;
	size_t nrows = 0;
	uint32_t rcap = 0;
	int slot_of[UINT16_MAX + 1]; /* op -> index in rows, -1 = none yet */
	memset(slot_of, 0xff, sizeof(slot_of));
	int s;
	while ((s = mcp_step(m, st, err, errlen)) == SQLITE_ROW) {
		int64_t op = sqlite3_column_int64(st, 0), v = sqlite3_column_int64(st, 1);
		int idx = op >= 0 && op <= UINT16_MAX ? slot_of[op] : -1;
		if (idx < 0) {
			if (op < 0 || op > UINT16_MAX)
				continue; /* not an op any writer can produce */
			if (ilog_grow((void **)&rows, &rcap, nrows, sizeof(*rows), 16)) {
				rc = MCP_NOMEM;
				break;
			}
			memset(&rows[nrows], 0, sizeof(rows[0]));
			rows[nrows].op = (int)op;
			rows[nrows].min = UINT64_MAX;
			idx = slot_of[op] = (int)nrows++;
		}
		struct op_row *r = &rows[idx];
		if (ilog_grow((void **)&r->d, &r->cap, r->n, sizeof(*r->d), 256)) {
			rc = MCP_NOMEM;
			break;
		}
		uint64_t d = v > 0 ? (uint64_t)v : 0;
		r->d[r->n++] = d;
		r->total += d;
		r->min = d < r->min ? d : r->min;
		r->max = d > r->max ? d : r->max;
		r->errors += sqlite3_column_int64(st, 2) != 0;
	}
	sqlite3_finalize(st);
	if (rc == MCP_OK && s != SQLITE_DONE)
		rc = MCP_TOOL_ERROR;
	for (size_t i = 0; i < nrows; i++) {
		struct op_row *r = &rows[i];
		if (rc == MCP_OK) {
			/* p99 first: the later selections reuse its partition */
			r->p99 = rank(r->d, r->n, 99);
			r->p95 = rank(r->d, r->n, 95);
			r->p50 = rank(r->d, r->n, 50);
		}
		free(r->d);
		r->d = NULL;
	}
	/* the caller frees rows, also when memory ran out */
	*rowsp = rows;
	*nrowsp = nrows;
	return rc;
}

/* The same rows from the summaries: one per (node, op) -- quantiles of
 * several nodes do not merge, so a session of several nodes gets a row
 * per node and op.  *nodes: how many nodes the rows span. */
static int collect_summary(struct ilog_mcp *m, const struct trace_ctx *c,
			   const struct trace_filter *f, struct op_row **rowsp, size_t *nrowsp,
			   int *nodes, char *err, size_t errlen)
{
	char sql[512];
	sqlite3_stmt *st;
	snprintf(sql, sizeof(sql),
		 "SELECT node, op, calls, total_ns, min_ns, max_ns, p50_ns, p95_ns, p99_ns, errors"
		 " FROM %s WHERE session_id = %lld%s%s ORDER BY node, op",
		 f->pid ? "summary_process_ops" : "summary_ops", (long long)c->session,
		 f->pid ? " AND pid = ?" : "", f->op ? " AND op = ?" : "");
	int rc = mcp_prepare(m, sql, 0, &st, err, errlen);
	if (rc)
		return rc;
	int k = 1;
	if (f->pid)
		sqlite3_bind_int64(st, k++, f->pid);
	if (f->op)
		sqlite3_bind_int64(st, k++, f->op);
	struct op_row *rows = NULL;
	uint32_t nrows = 0, rcap = 0;
	int s;
	int64_t last_node = -1;
	*nodes = 0;
	while ((s = mcp_step(m, st, err, errlen)) == SQLITE_ROW) {
		if (ilog_grow((void **)&rows, &rcap, nrows, sizeof(*rows), 16)) {
			sqlite3_finalize(st);
			free(rows);
			return MCP_NOMEM;
		}
		struct op_row *r = &rows[nrows];
		memset(r, 0, sizeof(*r));
		int64_t node = sqlite3_column_int64(st, 0);
		/* one pid may have rows of several processes (a reused pid):
		 * counts add up, the quantiles are those of the one with the
		 * most time */
		if (nrows && node == last_node && rows[nrows - 1].op == sqlite3_column_int(st, 1))
			r = &rows[nrows - 1];
		else
			nrows++;
		*nodes += node != last_node;
		last_node = node;
		uint64_t total = (uint64_t)sqlite3_column_int64(st, 3);
		uint64_t mn = (uint64_t)sqlite3_column_int64(st, 4), mx = (uint64_t)sqlite3_column_int64(st, 5);
		if (!r->n || total > r->qtotal) {
			r->qtotal = total;
			r->p50 = (uint64_t)sqlite3_column_int64(st, 6);
			r->p95 = (uint64_t)sqlite3_column_int64(st, 7);
			r->p99 = (uint64_t)sqlite3_column_int64(st, 8);
		}
		r->min = !r->n || mn < r->min ? mn : r->min;
		r->max = mx > r->max ? mx : r->max;
		r->node = (uint32_t)node;
		r->op = sqlite3_column_int(st, 1);
		r->n += (uint64_t)sqlite3_column_int64(st, 2);
		r->total += total;
		r->errors += (uint64_t)sqlite3_column_int64(st, 9);
	}
	sqlite3_finalize(st);
	*rowsp = rows;
	*nrowsp = nrows;
	return s == SQLITE_DONE ? MCP_OK : MCP_TOOL_ERROR;
}

int tool_trace_stats(struct ilog_mcp *m, const struct trace_ctx *c, const struct trace_filter *f,
		     json_t *args, int verbose, struct ilog_buf *text, char *err, size_t errlen)
{
	int rc = MCP_OK;
	struct op_row *rows = NULL;
	size_t nrows = 0;
	uint64_t all = 0, alltime = 0;
	int timed = json_object_get(args, "since") || json_object_get(args, "until"), nodes = 1;
	if (!timed && mcp_has_table(m, "summary_ops"))
		rc = collect_summary(m, c, f, &rows, &nrows, &nodes, err, errlen);
	else
		rc = collect(m, f, timed, &rows, &nrows, err, errlen);
	if (rc)
		goto out;
	for (size_t i = 0; i < nrows; i++) {
		all += rows[i].n;
		alltime += rows[i].total;
	}
	if (nrows)
		qsort(rows, nrows, sizeof(rows[0]), by_total);
	json_t *lim = json_object_get(args, "limit");
	size_t show = lim ? (size_t)json_integer_value(lim) : 20;
	if (show > nrows)
		show = nrows;
	if (verbose) {
		int e = mcp_buf_printf(text, "session %lld, %.3f s traced, %llu CUDA calls match\n",
				       (long long)c->seq, trace_s(c->last_ts - c->first_ts),
				       (unsigned long long)all);
		for (size_t i = 0; i < show; i++) {
			const struct op_row *r = &rows[i];
			if (nodes > 1)
				e = e || mcp_buf_printf(text, "node %u: ", r->node);
			e = e || mcp_buf_printf(
				text,
				"%s (%s): %llu calls, p50 %.1f us, p95 %.1f us, p99 %.1f us, max %.1f us, "
				"total %.3f ms (%.1f%% of CUDA call time)%s",
				trace_op_name(r->op), ilog_layer_name(ilog_op_layer((uint32_t)r->op)),
				(unsigned long long)r->n, trace_us(r->p50), trace_us(r->p95),
				trace_us(r->p99), trace_us(r->max), (double)r->total / 1e6,
				alltime ? 100.0 * (double)r->total / (double)alltime : 0.0,
				r->errors ? "" : "\n");
			if (r->errors)
				e = e || mcp_buf_printf(text, ", %llu failed\n",
							(unsigned long long)r->errors);
		}
		if (show < nrows)
			e = e || mcp_buf_printf(text, "(%zu more ops; raise limit)\n", nrows - show);
		if (!nrows)
			e = e || mcp_buf_printf(text, "no CUDA calls match\n");
		rc = e ? MCP_NOMEM : MCP_OK;
		goto out;
	}
	json_t *jr = json_array();
	for (size_t i = 0; jr && i < show; i++) {
		const struct op_row *r = &rows[i];
		if (json_array_append_new(
			    jr, json_pack("[s, s, I, f, f, f, f, f, f, I]", trace_op_name(r->op),
					  ilog_layer_name(ilog_op_layer((uint32_t)r->op)),
					  (json_int_t)r->n, trace_us(r->p50), trace_us(r->p95),
					  trace_us(r->p99), trace_us(r->max),
					  (double)(r->total / 1000) / 1000.0,
					  alltime ? (double)(int)(1000.0 * (double)r->total /
								  (double)alltime) / 10.0
						  : 0.0,
					  (json_int_t)r->errors)) ||
		    (nodes > 1 && json_array_append_new(json_array_get(jr, i),
							json_integer(r->node)))) {
			json_decref(jr);
			jr = NULL;
		}
	}
	json_t *o = jr ? json_pack("{s:I, s:f, s:I, s:[s,s,s,s,s,s,s,s,s,s], s:o}",
				   "session", (json_int_t)c->seq, "span_s",
				   trace_s(c->last_ts - c->first_ts), "calls", (json_int_t)all, "cols",
				   "op", "layer", "n", "p50_us", "p95_us", "p99_us", "max_us",
				   "total_ms", "time_pct", "failed", "rows", jr)
		       : NULL;
	if (o && show < nrows)
		json_object_set_new(o, "more_ops", json_integer((json_int_t)(nrows - show)));
	if (o && nodes > 1) /* a row per (node, op): the node ordinal last */
		json_array_append_new(json_object_get(o, "cols"), json_string("node"));
	rc = !o || mcp_buf_json(text, o) ? MCP_NOMEM : MCP_OK;
	json_decref(o);
out:
	free(rows);
	return rc;
}

/*
 * Per process: its CUDA calls and time, its busiest op, how often other
 * threads preempted it and for how long, and who did most of it.  The
 * host columns come from host_events type 1 (a target thread switched
 * out and back in, SPEC host types).
 */

/* The container id and pod UID columns of a process and the container id
 * of its top preempter (from their latest process records). */
static const char *ctr_sql(int64_t session)
{
	static char q[512];
	snprintf(q, sizeof(q),
		 ", (SELECT coalesce(q.container_id, '') FROM processes q WHERE q.session_id = %lld"
		 "   AND q.pid = p.pid ORDER BY q.ts DESC LIMIT 1) AS ctr,"
		 "  (SELECT coalesce(q.pod_uid, '') FROM processes q WHERE q.session_id = %lld"
		 "   AND q.pid = p.pid ORDER BY q.ts DESC LIMIT 1),"
		 "  (SELECT coalesce(q.container_id, '') FROM processes q WHERE q.session_id = %lld"
		 "   AND q.pid = w.other_pid ORDER BY q.ts DESC LIMIT 1)",
		 (long long)session, (long long)session, (long long)session);
	return q;
}

int tool_process_breakdown(struct ilog_mcp *m, const struct trace_ctx *c,
			   const struct trace_filter *f, json_t *args, int verbose,
			   struct ilog_buf *text, char *err, size_t errlen)
{
	(void)args; /* the filter holds what it says */
	int rc = MCP_OK;
	char sql[4608], e_sql[512], h_sql[512];
	const char *hw = trace_where_rest(f);
	/* processes in more than one container (format 1.2): grouped by it */
	int grouped = trace_containers(m, c->session) > 1;
	if (!*hw && mcp_has_table(m, "summary_process_ops")) {
		/* the whole session: from the summaries */
		snprintf(e_sql, sizeof(e_sql),
			 "SELECT pid, op, sum(calls) AS n, sum(total_ns) AS t, sum(errors) AS bad"
			 " FROM summary_process_ops WHERE session_id = %lld GROUP BY pid, op",
			 (long long)c->session);
		snprintf(h_sql, sizeof(h_sql),
			 "SELECT pid, other_pid, other_comm, switches AS n, off_cpu_ns AS d"
			 " FROM summary_preemptions WHERE session_id = %lld", (long long)c->session);
	} else {
		snprintf(e_sql, sizeof(e_sql),
			 "SELECT pid, op, count(*) AS n, sum(dur_ns) AS t, sum(ret != 0) AS bad"
			 " FROM events%s WHERE %s GROUP BY pid, op", *hw ? "" : " NOT INDEXED", f->sql);
		snprintf(h_sql, sizeof(h_sql),
			 "SELECT pid, other_pid, other_comm, 1 AS n, dur_ns AS d FROM host_events"
			 " WHERE session_id = %lld AND type = 1%s", (long long)c->session, hw);
	}
	snprintf(sql, sizeof(sql),
		 "WITH e AS (%s),"
		 " p AS (SELECT pid, sum(n) AS calls, sum(t) AS cuda_ns, sum(bad) AS failed,"
		 "  (SELECT op FROM e e2 WHERE e2.pid = e.pid ORDER BY t DESC LIMIT 1) AS top_op"
		 "  FROM e GROUP BY pid),"
		 " hs AS (%s),"
		 " h AS (SELECT pid, sum(n) AS preempted, sum(d) AS off_ns FROM hs GROUP BY pid),"
		 " w AS (SELECT pid, other_pid, other_comm, sum(d) AS s,"
		 "  row_number() OVER (PARTITION BY pid ORDER BY sum(d) DESC) AS k"
		 "  FROM hs GROUP BY pid, other_pid, other_comm)"
		 " SELECT p.pid,"
		 "  (SELECT comm FROM processes q WHERE q.session_id = %lld AND q.pid = p.pid"
		 "   ORDER BY q.ts DESC LIMIT 1) AS comm,"
		 "  p.calls, p.cuda_ns, p.failed, p.top_op, coalesce(h.preempted, 0),"
		 "  coalesce(h.off_ns, 0), w.other_pid, w.other_comm%s"
		 " FROM p LEFT JOIN h USING (pid) LEFT JOIN w ON w.pid = p.pid AND w.k = 1"
		 " ORDER BY %sp.cuda_ns DESC LIMIT 100",
		 e_sql, h_sql, (long long)c->session, grouped ? ctr_sql(c->session) : "",
		 grouped ? "sum(p.cuda_ns) OVER (PARTITION BY ctr) DESC, ctr, " : "");
	sqlite3_stmt *st;
	if ((rc = mcp_prepare(m, sql, 0, &st, err, errlen)))
		return rc;
	json_t *rows = json_array();
	int s, e = !rows;
	char last[200] = "\001";
	while (!e && (s = mcp_step(m, st, err, errlen)) == SQLITE_ROW) {
		json_t *comm = mcp_column_json(st, 1, 64), *culprit = mcp_column_json(st, 9, 64);
		int64_t cuda = sqlite3_column_int64(st, 3), off = sqlite3_column_int64(st, 7);
		const char *ctr = grouped ? (const char *)sqlite3_column_text(st, 10) : NULL;
		const char *pod = grouped ? (const char *)sqlite3_column_text(st, 11) : NULL;
		const char *oct = grouped ? (const char *)sqlite3_column_text(st, 12) : NULL;
		if (verbose && ctr)
			e = trace_ctr_heading(text, last, sizeof(last), ctr, pod);
		if (verbose) {
			if (ctr)
				e = e || mcp_buf_printf(text, "  ");
			e = e || mcp_buf_printf(text,
					   "pid %lld (%s): %lld CUDA calls, %.3f ms in them, busiest %s",
					   (long long)sqlite3_column_int64(st, 0),
					   json_string_value(comm) ? json_string_value(comm) : "?",
					   (long long)sqlite3_column_int64(st, 2), (double)cuda / 1e6,
					   trace_op_name(sqlite3_column_int64(st, 5)));
			if (sqlite3_column_int64(st, 4))
				e = e || mcp_buf_printf(text, ", %lld failed",
							(long long)sqlite3_column_int64(st, 4));
			if (sqlite3_column_int64(st, 6))
				e = e || mcp_buf_printf(
					text, "; preempted %lld times for %.3f ms, mostly by pid %lld (%s)",
					(long long)sqlite3_column_int64(st, 6), (double)off / 1e6,
					(long long)sqlite3_column_int64(st, 8),
					json_string_value(culprit) ? json_string_value(culprit) : "?");
			if (sqlite3_column_int64(st, 6) && oct && *oct && strcmp(oct, ctr))
				e = e || mcp_buf_printf(text, " in container %s", oct);
			e = e || mcp_buf_printf(text, "\n");
		} else {
			/* "o" steals the fresh culprit pid; "O" keeps comm and culprit,
			 * released below */
			json_t *r = json_pack("[I, O, I, f, I, s, I, f, o, O]",
					      (json_int_t)sqlite3_column_int64(st, 0), comm,
					      (json_int_t)sqlite3_column_int64(st, 2),
					      (double)(cuda / 1000) / 1000.0,
					      (json_int_t)sqlite3_column_int64(st, 4),
					      trace_op_name(sqlite3_column_int64(st, 5)),
					      (json_int_t)sqlite3_column_int64(st, 6),
					      (double)(off / 1000) / 1000.0,
					      sqlite3_column_type(st, 8) == SQLITE_NULL
						      ? json_null()
						      : json_integer(sqlite3_column_int64(st, 8)),
					      culprit);
			if (r && ctr && (json_array_append_new(r, json_string(pod ? pod : "")) ||
					 json_array_append_new(r, json_string(ctr)) ||
					 json_array_append_new(r, json_string(oct ? oct : ""))))
				e = 1;
			e = e || !r || json_array_append_new(rows, r);
		}
		json_decref(comm);
		json_decref(culprit);
	}
	sqlite3_finalize(st);
	if (e) {
		json_decref(rows);
		return MCP_NOMEM;
	}
	if (s != SQLITE_DONE) {
		json_decref(rows);
		return MCP_TOOL_ERROR;
	}
	if (verbose) {
		json_decref(rows);
		if (!text->len && mcp_buf_printf(text, "no CUDA calls in this window\n"))
			return MCP_NOMEM;
		return MCP_OK;
	}
	json_t *o = json_pack("{s:I, s:[s,s,s,s,s,s,s,s,s,s], s:o}", "session", (json_int_t)c->seq,
			      "cols", "pid", "comm", "calls", "cuda_ms", "failed", "top_op",
			      "preempted", "off_cpu_ms", "top_preempter_pid", "top_preempter",
			      "rows", rows);
	json_t *cols = o ? json_object_get(o, "cols") : NULL;
	if (cols && grouped &&
	    (json_array_append_new(cols, json_string("pod_uid")) ||
	     json_array_append_new(cols, json_string("container_id")) ||
	     json_array_append_new(cols, json_string("top_preempter_container_id")))) {
		json_decref(o);
		o = NULL;
	}
	rc = !o || mcp_buf_json(text, o) ? MCP_NOMEM : MCP_OK;
	json_decref(o);
	return rc;
}
