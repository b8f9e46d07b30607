// SPDX-License-Identifier: MIT
/*
 * Shared pieces of the trace tools (cmd/ingero-mcp/tools.c): which export
 * session a call looks at, time arguments, and the WHERE clause the
 * filters make.  The database is the one `ingero-export --format sqlite`
 * writes (docs/schema.md): events.ts and sessions.first_ts are wall-clock
 * (CLOCK_REALTIME) nanoseconds, ops are numbers named at the edge with
 * ilog_op_name().
 */
#include <stdio.h>
#include <string.h>
#include "mcp_trace.h"

int trace_session(struct ilog_mcp *m, json_t *args, struct trace_ctx *c, char *err,
		  size_t errlen)
{
	memset(c, 0, sizeof(*c));
	if (!mcp_has_table(m, "sessions") || !mcp_has_table(m, "events")) {
		snprintf(err, errlen, "not an ingero trace database (no sessions/events tables); "
				      "make one with `ingero-export --format sqlite -o run.db run.ilog`");
		return MCP_TOOL_ERROR;
	}
	json_t *want = json_object_get(args, "session");
	sqlite3_stmt *st;
	/* A database may hold several exports; by default the newest. */
	/* Sessions are named by seq (1, 2, ...): session_id is a 64-bit
	 * random number that a JavaScript client would round. */
	int rc = mcp_prepare(m, want ? "SELECT session_id, first_ts, last_ts, seq FROM sessions "
				       "WHERE seq = ?1"
				     : "SELECT session_id, first_ts, last_ts, seq FROM sessions "
				       "ORDER BY seq DESC, imported_ns DESC LIMIT 1",
			     0, &st, err, errlen);
	if (rc)
		return rc;
	if (want)
		sqlite3_bind_int64(st, 1, json_integer_value(want));
	rc = mcp_step(m, st, err, errlen);
	if (rc == SQLITE_ROW) {
		c->session = sqlite3_column_int64(st, 0);
		c->first_ts = sqlite3_column_int64(st, 1);
		c->last_ts = sqlite3_column_int64(st, 2);
		c->seq = sqlite3_column_int64(st, 3);
		rc = MCP_OK;
	} else {
		if (rc == SQLITE_DONE)
			snprintf(err, errlen, want ? "no session %lld (get_check lists them)"
						   : "the database holds no session",
				 (long long)json_integer_value(want));
		rc = MCP_TOOL_ERROR;
	}
	sqlite3_finalize(st);
	return rc;
}

/* "+90s"/"90s" after the session's first event, or a wall time. */
static int trace_time(const char *s, const struct trace_ctx *c, int64_t *ts)
{
	uint64_t v;
	if (!ilog_parse_duration(s[0] == '+' ? s + 1 : s, &v)) {
		*ts = c->first_ts + (int64_t)v;
		return 0;
	}
	if (!ilog_parse_walltime(s, &v)) {
		*ts = (int64_t)v;
		return 0;
	}
	return -1;
}

int trace_where(const struct trace_ctx *c, json_t *args, unsigned use, struct trace_filter *f,
		char *err, size_t errlen)
{
	memset(f, 0, sizeof(*f));
	f->binds = json_array();
	if (!f->binds)
		return MCP_NOMEM;
	int n = snprintf(f->sql, sizeof(f->sql), "session_id = %lld", (long long)c->session);
	json_t *pid = json_object_get(args, "pid");
	if ((use & TF_PID) && pid) {
		n += snprintf(f->sql + n, sizeof(f->sql) - (size_t)n, " AND pid = ?");
		json_array_append(f->binds, pid);
		f->pid = (int64_t)json_integer_value(pid);
	}
	const char *op = json_string_value(json_object_get(args, "op"));
	if ((use & TF_OP) && op) {
		int num = ilog_op_from_name(op);
		if (num < 0) {
			snprintf(err, errlen, "unknown op '%.64s' (names as in get_trace_stats, "
					      "e.g. cudaStreamSynchronize)", op);
			goto bad;
		}
		f->op = num;
		n += snprintf(f->sql + n, sizeof(f->sql) - (size_t)n, " AND op = %d", num);
	}
	static const char *const keys[] = { "since", "until" };
	for (int i = 0; i < 2; i++) {
		const char *s = json_string_value(json_object_get(args, keys[i]));
		int64_t ts;
		if (!(use & TF_TIME) || !s)
			continue;
		if (trace_time(s, c, &ts)) {
			snprintf(err, errlen, "%s: not a time '%.64s' (+30s from the start, or "
					      "2026-11-22T16:20:00Z)", keys[i], s);
			goto bad;
		}
		n += snprintf(f->sql + n, sizeof(f->sql) - (size_t)n, i ? " AND ts < %lld"
									  : " AND ts >= %lld",
			      (long long)ts);
	}
	return MCP_OK;
bad:
	json_decref(f->binds);
	f->binds = NULL;
	return MCP_TOOL_ERROR;
}

void trace_filter_free(struct trace_filter *f)
{
	json_decref(f->binds);
	f->binds = NULL;
}

int trace_session_for(struct ilog_mcp *m, json_t *args, const char *table, const char *missing,
		      struct trace_ctx *c, char *err, size_t errlen)
{
	int rc = trace_session(m, args, c, err, errlen);
	if (rc || mcp_has_table(m, table))
		return rc;
	snprintf(err, errlen, "%s", missing);
	return MCP_TOOL_ERROR;
}

int trace_run(struct ilog_mcp *m, const struct mcp_tool *t, const json_t *schema, json_t *args,
	      int verbose, struct ilog_buf *text, char *err, size_t errlen)
{
	/* the schema refuses any other argument (additionalProperties): what
	 * it has a property for is what the tool is filtered by */
	const json_t *props = json_object_get(schema, "properties");
	unsigned use = (json_object_get(props, "pid") ? TF_PID : 0) |
		       (json_object_get(props, "op") ? TF_OP : 0) |
		       (json_object_get(props, "since") ? TF_TIME : 0);
	struct trace_ctx c;
	struct trace_filter f;
	int rc = trace_session(m, args, &c, err, errlen);
	if (rc || (rc = trace_where(&c, args, use, &f, err, errlen)))
		return rc;
	rc = t->trace(m, &c, &f, args, verbose, text, err, errlen);
	trace_filter_free(&f);
	return rc;
}

const char *trace_where_rest(const struct trace_filter *f)
{
	const char *a = strstr(f->sql, " AND");
	return a ? a : "";
}

int trace_prepare(struct ilog_mcp *m, const char *sql, const struct trace_filter *f,
		  sqlite3_stmt **st, char *err, size_t errlen)
{
	int rc = mcp_prepare(m, sql, 0, st, err, errlen);
	for (size_t i = 0; !rc && i < json_array_size(f->binds); i++)
		sqlite3_bind_int64(*st, (int)i + 1, json_integer_value(json_array_get(f->binds, i)));
	return rc;
}

int trace_ctr_heading(struct ilog_buf *text, char *last, size_t lastlen, const char *ctr,
		      const char *pod)
{
	if (!strcmp(ctr, last))
		return 0;
	snprintf(last, lastlen, "%s", ctr);
	return *ctr ? mcp_buf_printf(text, "container %s%s%s:\n", ctr, pod && *pod ? " in pod " : "",
				     pod && *pod ? pod : "")
		    : mcp_buf_printf(text, "no container:\n");
}

/* Milliseconds/microseconds rounded for output: enough digits to compare,
 * no more (each digit is a token the model pays for). */
double trace_us(uint64_t ns)
{
	return (double)(int64_t)((ns + 50) / 100) / 10.0;
}

double trace_s(int64_t ns)
{
	int64_t ms = ns >= 0 ? (ns + 500000) / 1000000 : -((-ns + 500000) / 1000000);
	return (double)ms / 1000.0;
}

const char *trace_op_name(int64_t op)
{
	const char *s = op >= 0 && op <= UINT32_MAX ? ilog_op_name((uint32_t)op) : NULL;
	return s ? s : "unknown";
}

/* How many containers (distinct container ids) a session's processes are
 * in; 0 for a database without them (before schema 4). */
int trace_containers(struct ilog_mcp *m, int64_t session)
{
	sqlite3_stmt *st = NULL;
	int n = 0;
	if (sqlite3_prepare_v2(m->db, "SELECT count(DISTINCT container_id) FROM processes"
				      " WHERE session_id = ? AND container_id != ''", -1, &st, NULL) ==
	    SQLITE_OK) {
		sqlite3_bind_int64(st, 1, session);
		if (sqlite3_step(st) == SQLITE_ROW)
			n = sqlite3_column_int(st, 0);
	}
	sqlite3_finalize(st);
	return n;
}
