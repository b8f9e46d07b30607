// SPDX-License-Identifier: MIT
/*
 * The tools ingero-mcp offers (tools/list, tools/call).  Each is one
 * entry in mcp_tools[]: a name, a description written for the model, a
 * JSON Schema for its arguments (checked by lib/mcp_schema.c before the
 * handler runs) and a handler that answers from the read-only database
 * (docs/schema.md).  Compact JSON by default; verbose:true gives prose.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "mcp_trace.h"

/* Upper bound of rows any tool returns, whatever `limit` asks. */
#define MCP_HARD_ROWS 10000
/* One text cell: stacks and cmdlines are long, a model needs the start. */
#define MCP_MAX_CELL 2048
/* About 64k tokens: more would crowd the model's context. */
#define MCP_MAX_BYTES (256u << 10)

static int emit_table(struct ilog_buf *text, const struct mcp_table *t, int verbose)
{
	if (verbose)
		return mcp_table_prose(text, t) ? MCP_NOMEM : MCP_OK;
	json_t *j = mcp_table_json(t);
	int rc = !j || mcp_buf_json(text, j) ? MCP_NOMEM : MCP_OK;
	json_decref(j);
	return rc;
}

/* ---- run_sql ---- */

static int t_run_sql(struct ilog_mcp *m, json_t *args, int verbose, struct ilog_buf *text,
		     char *err, size_t errlen)
{
	const char *sql = json_string_value(json_object_get(args, "sql"));
	json_t *lim = json_object_get(args, "limit");
	struct mcp_table_caps caps = {
		.max_rows = lim ? (uint64_t)json_integer_value(lim) : m->o.max_rows,
		.max_bytes = MCP_MAX_BYTES,
		.max_cell = MCP_MAX_CELL,
	};
	struct mcp_table t;
	int rc = mcp_table_query(m, sql, NULL, 1, &caps, &t, err, errlen);
	if (rc)
		return rc;
	rc = emit_table(text, &t, verbose);
	mcp_table_free(&t);
	return rc;
}

/* ---- get_check ---- */

static int t_get_check(struct ilog_mcp *m, json_t *args, int verbose, struct ilog_buf *text,
		       char *err, size_t errlen)
{
	(void)args;
	/* Which tables hold how much: tells the model (and a person) whether
	 * the log was symbolized, correlated, and whether anything was lost. */
	struct mcp_table_caps caps = { .max_rows = 200, .max_cell = MCP_MAX_CELL };
	struct mcp_table t;
	int rc = mcp_table_query(m,
				 "SELECT name FROM sqlite_schema WHERE type='table' "
				 "AND name NOT LIKE 'sqlite_%' ORDER BY name",
				 NULL, 0, &caps, &t, err, errlen);
	if (rc)
		return rc;
	json_t *counts = json_object();
	size_t i;
	json_t *row;
	json_array_foreach(t.rows, i, row) {
		const char *name = json_string_value(json_array_get(row, 0));
		char sql[256];
		sqlite3_stmt *st;
		if (!name || strchr(name, '"'))
			continue;
		snprintf(sql, sizeof(sql), "SELECT count(*) FROM \"%s\"", name);
		if (mcp_prepare(m, sql, 0, &st, err, errlen))
			continue;
		if (mcp_step(m, st, err, errlen) == SQLITE_ROW)
			json_object_set_new(counts, name, json_integer(sqlite3_column_int64(st, 0)));
		sqlite3_finalize(st);
	}
	mcp_table_free(&t);
	json_t *o = json_pack("{s:s, s:s, s:o}", "source", m->source, "sqlite", sqlite3_libversion(),
			      "tables", counts);
	if (!o)
		return MCP_NOMEM;
	if (verbose) {
		rc = mcp_buf_printf(text, "source %s (SQLite %s), read-only\ntables:\n", m->source,
				    sqlite3_libversion());
		const char *k;
		json_t *v;
		json_object_foreach(counts, k, v)
			rc = rc || mcp_buf_printf(text, "  %-16s %lld rows\n", k,
						  (long long)json_integer_value(v));
	} else {
		rc = mcp_buf_json(text, o);
	}
	json_decref(o);
	return rc ? MCP_NOMEM : MCP_OK;
}

/* Arguments several tools share, as JSON Schema property text. */
#define P_SESSION "\"session\":{\"type\":\"integer\",\"description\":" \
	"\"export session id (default: the newest; get_check lists them)\"}"
#define P_PID "\"pid\":{\"type\":\"integer\",\"minimum\":0,\"description\":\"only this process\"}"
#define P_OP(what) "\"op\":{\"type\":\"string\",\"maxLength\":64,\"description\":" \
	"\"" what " CUDA call name, e.g. cudaStreamSynchronize\"}"
#define P_TIME "\"since\":{\"type\":\"string\",\"maxLength\":64,\"description\":" \
	"\"start of the window: +30s after the trace start, or RFC 3339 wall time\"}," \
	"\"until\":{\"type\":\"string\",\"maxLength\":64,\"description\":" \
	"\"end of the window, same forms as since\"}"
#define P_LIMIT(def, max) "\"limit\":{\"type\":\"integer\",\"minimum\":1,\"maximum\":" \
	#max ",\"description\":\"at most this many (default " #def ")\"}"
#define SCHEMA(props, req) "{\"type\":\"object\",\"properties\":{" props "}," req \
	"\"additionalProperties\":false}"

const struct mcp_tool mcp_tools[] = {
	{
		.name = "get_check",
		.title = "Trace readiness check",
		.description =
			"What this trace is and whether it is complete: source, host and recorder, "
			"tables with row counts (stacks symbolized? chains computed?), event loss. "
			"Call first.",
		.schema = "{\"type\":\"object\",\"properties\":{},\"additionalProperties\":false}",
		.run = t_get_check,
		.cache = 1,
	},
	{
		.name = "get_trace_stats",
		.title = "CUDA call statistics",
		.description =
			"Per CUDA op: calls, p50/p95/p99/max latency (us, nearest-rank), total time "
			"(ms), share of all CUDA call time, failed calls; heaviest first. A p99 far "
			"above p50 means an intermittent stall: ask get_causal_chains why.",
		.schema = SCHEMA(P_PID "," P_OP("only this") "," P_TIME "," P_SESSION ","
				 P_LIMIT(20, 100), ""),
		.run = tool_trace_stats,
		.cache = 1,
	},
	{
		.name = "get_causal_chains",
		.title = "Causal chains",
		.description =
			"Why the job stalled: causal chains from ingero-correlate (severity, pattern, "
			"process, op, culprit, root cause quoting the numbers, fix, time window t_s "
			"in seconds from the trace start), strongest first; repeats of one "
			"explanation are merged (merged=N). evidence:true adds the timeline.",
		.schema = SCHEMA(P_PID ",\"min_severity\":{\"type\":\"string\","
				 "\"enum\":[\"LOW\",\"MEDIUM\",\"HIGH\"],"
				 "\"description\":\"leave out weaker chains\"},"
				 "\"evidence\":{\"type\":\"boolean\",\"description\":"
				 "\"include each chain's evidence timeline (longer)\"},"
				 P_SESSION "," P_LIMIT(5, 50), ""),
		.run = tool_causal_chains,
		.cache = 1,
	},
	{
		.name = "get_stacks",
		.title = "Stacks of an op",
		.description =
			"Which code makes an op's calls: distinct call stacks, heaviest total time "
			"first, each with Python frames (file:line in function) and native frames "
			"(symbolized function (file:line), or module+offset), innermost first.",
		.schema = SCHEMA(P_OP("the") "," P_PID "," P_TIME "," P_SESSION ","
				 P_LIMIT(5, 50) ",\"frames\":{\"type\":\"integer\",\"minimum\":1,"
				 "\"maximum\":127,\"description\":\"frames per stack (default 16)\"}",
				 "\"required\":[\"op\"],"),
		.run = tool_stacks,
		.cache = 1,
	},
	{
		.name = "graph_lifecycle",
		.title = "CUDA Graph lifecycle",
		.description =
			"CUDA Graph timeline: captures (re-captures of a stream flagged), "
			"instantiations, launches (consecutive launches of one exec merged), with "
			"counts and time spent capturing and instantiating. t_s: seconds from the "
			"trace start.",
		.schema = SCHEMA(P_PID "," P_TIME "," P_SESSION "," P_LIMIT(40, 1000), ""),
		.run = tool_graph_lifecycle,
		.cache = 1,
	},
	{
		.name = "graph_frequency",
		.title = "CUDA Graph launch frequency",
		.description =
			"Launches per graph exec with rate and span; hot = the fewest execs making "
			"90% of launches, cold = the rest, unused = instantiated, never launched.",
		.schema = SCHEMA(P_PID "," P_TIME "," P_SESSION "," P_LIMIT(20, 1000), ""),
		.run = tool_graph_frequency,
		.cache = 1,
	},
	{
		.name = "get_process_breakdown",
		.title = "Per-process breakdown",
		.description =
			"Per process: CUDA calls and time, busiest op, failed calls, how often and "
			"how long its threads were preempted, and by whom most.",
		.schema = SCHEMA(P_TIME "," P_SESSION, ""),
		.run = tool_process_breakdown,
		.cache = 1,
	},
	{
		.name = "run_sql",
		.title = "Read-only SQL",
		.description =
			"Run one read-only SQLite statement (SELECT, WITH...SELECT, or a reporting "
			"PRAGMA such as table_info) on the trace database; writes, ATTACH and "
			"load_extension are refused, statements time out. Schema: "
			"SELECT sql FROM sqlite_schema. Output {cols,rows,n}; rows capped "
			"(truncated says so).",
		.schema = "{\"type\":\"object\",\"properties\":{"
			  "\"sql\":{\"type\":\"string\",\"maxLength\":100000,"
			  "\"description\":\"one read-only statement\"},"
			  "\"limit\":{\"type\":\"integer\",\"minimum\":1,\"maximum\":10000,"
			  "\"description\":\"most rows to return (default 200)\"}},"
			  "\"required\":[\"sql\"],\"additionalProperties\":false}",
		.run = t_run_sql,
	},
};
const size_t mcp_ntools = sizeof(mcp_tools) / sizeof(mcp_tools[0]);
