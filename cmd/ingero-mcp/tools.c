// SPDX-License-Identifier: MIT
/*
 * The tools ingero-mcp offers (tools/list, tools/call).  Each is one
 * entry in mcp_tools[]: a name, a description written for the model, a
 * JSON Schema for its arguments (checked by cmd/ingero-mcp/schema.c before the
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

int mcp_emit_table(struct ilog_buf *text, const struct mcp_table *t, int verbose)
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
		.offset = (uint64_t)json_integer_value(json_object_get(args, "offset")),
		.max_bytes = MCP_MAX_BYTES,
		.max_cell = MCP_MAX_CELL,
	};
	struct mcp_table t;
	int rc = mcp_table_query(m, sql, NULL, 1, &caps, &t, err, errlen);
	if (rc)
		return rc;
	rc = mcp_emit_table(text, &t, verbose);
	mcp_table_free(&t);
	return rc;
}

/* ---- get_kernel_stats ---- */

/* Launches per kernel name (the `launches` view: SPEC §5.18), heaviest first. */
static int t_kernel_stats(struct ilog_mcp *m, json_t *args, int verbose, struct ilog_buf *text,
			  char *err, size_t errlen)
{
	struct trace_ctx c;
	int rc = trace_session_for(m, args, "kernels",
				   "this trace has no kernel names (exported by an older ingero)",
				   &c, err, errlen);
	if (rc)
		return rc;
	json_t *pid = json_object_get(args, "pid");
	char sql[768];
	snprintf(sql, sizeof(sql),
		 "SELECT coalesce(kernel, '(unknown)') AS kernel, count(*) AS launches,"
		 " sum(op = 6) AS runtime, sum(op <> 6) AS driver,"
		 " round(sum(dur_ns) / 1e6, 3) AS total_ms, round(max(dur_ns) / 1e3, 1) AS max_us"
		 " FROM launches WHERE session_id = %lld%s GROUP BY 1 ORDER BY sum(dur_ns) DESC",
		 (long long)c.session, pid ? " AND pid = ?" : "");
	json_t *binds = pid ? json_pack("[O]", pid) : NULL;
	json_t *lim = json_object_get(args, "limit");
	struct mcp_table_caps caps = { .max_rows = lim ? (uint64_t)json_integer_value(lim) : 20,
				       .max_bytes = MCP_MAX_BYTES, .max_cell = MCP_MAX_CELL };
	struct mcp_table t;
	rc = mcp_table_query(m, sql, binds, 0, &caps, &t, err, errlen);
	json_decref(binds);
	if (rc)
		return rc;
	rc = mcp_emit_table(text, &t, verbose);
	mcp_table_free(&t);
	return rc;
}

/* ---- get_check ---- */

/* Rows of one query as a table value for get_check; NULL table when the
 * query fails (an older or foreign schema): the check reports what it can. */
static json_t *check_rows(struct ilog_mcp *m, const char *sql, int *oom)
{
	struct mcp_table_caps caps = { .max_rows = 50, .max_cell = 256 };
	struct mcp_table t;
	char err[256];
	int rc = mcp_table_query(m, sql, NULL, 0, &caps, &t, err, sizeof(err));
	if (rc == MCP_NOMEM)
		*oom = 1;
	if (rc)
		return NULL;
	json_t *j = mcp_table_json(&t);
	mcp_table_free(&t);
	if (!j)
		*oom = 1;
	return j;
}

static int t_get_check(struct ilog_mcp *m, json_t *args, int verbose, struct ilog_buf *text,
		       char *err, size_t errlen)
{
	(void)args;
	(void)err;
	(void)errlen;
	int oom = 0;
	/* What was recorded where, by what, and whether it is complete:
	 * sessions (one per export), nodes (host, recorder, kernel, driver),
	 * event loss per source, and which analysis outputs are present. */
	json_t *o = json_pack("{s:s, s:s, s:b}", "source", m->source, "sqlite",
			      sqlite3_libversion(), "read_only", 1);
	if (!o)
		return MCP_NOMEM;
	if (m->note[0])
		json_object_set_new(o, "warning", json_string(m->note));
	static const struct {
		const char *key, *sql;
	} parts[] = {
		{ "sessions", "SELECT seq AS session, source, tool, records, events, host_events,"
			      " unknown_records, round((last_ts - first_ts) / 1e9, 3) AS span_s,"
			      " complete FROM sessions ORDER BY seq" },
		{ "nodes", "SELECT s.seq AS session, n.name, n.host, n.rank, n.recorder, n.kernel,"
			   " n.driver, n.format_version FROM nodes n JOIN sessions s USING (session_id)"
			   " ORDER BY s.seq, n.node" },
		{ "loss", "SELECT s.seq AS session, l.source, max(l.lost) AS lost, max(l.seen) AS seen"
			  " FROM losses l JOIN sessions s USING (session_id)"
			  " GROUP BY s.seq, l.node, l.source ORDER BY lost DESC" },
		{ "analysis", "SELECT (SELECT count(*) FROM stacks) AS stacks,"
			      " (SELECT count(*) FROM symbols) AS symbols,"
			      " (SELECT count(*) FROM pystacks) AS pystacks,"
			      " (SELECT count(*) FROM pycode) AS pycode,"
			      " (SELECT count(*) FROM chains) AS chains" },
	};
	for (size_t i = 0; i < sizeof(parts) / sizeof(parts[0]) && !oom; i++) {
		json_t *j = check_rows(m, parts[i].sql, &oom);
		if (j)
			json_object_set_new(o, parts[i].key, j);
	}
	if (!json_object_get(o, "sessions") && !oom) {
		/* Not an ingero export: still say what is there. */
		json_t *j = check_rows(m, "SELECT name, type FROM sqlite_schema WHERE name NOT "
					  "LIKE 'sqlite_%' ORDER BY name", &oom);
		if (j)
			json_object_set_new(o, "schema", j);
	}
	int rc = MCP_OK;
	if (oom)
		rc = MCP_NOMEM;
	else if (!verbose)
		rc = mcp_buf_json(text, o) ? MCP_NOMEM : MCP_OK;
	else {
		rc = mcp_buf_printf(text, "%s (SQLite %s), served read-only\n", m->source,
				    sqlite3_libversion()) ? MCP_NOMEM : MCP_OK;
		if (!rc && m->note[0] && mcp_buf_printf(text, "WARNING: %s\n", m->note))
			rc = MCP_NOMEM;
		const char *key;
		json_t *v;
		json_object_foreach(o, key, v) {
			if (rc || !json_is_object(v))
				continue;
			struct mcp_table t = { .cols = json_object_get(v, "cols"),
					       .rows = json_object_get(v, "rows"),
					       .nrows = (uint64_t)json_integer_value(json_object_get(v, "n")) };
			if (mcp_buf_printf(text, "\n%s:\n", key) || mcp_table_prose(text, &t))
				rc = MCP_NOMEM;
		}
	}
	json_decref(o);
	return rc;
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
			"above p50 means an intermittent stall: ask get_causal_chains why. Several "
			"nodes: a row per node and op (node column).",
		.schema = SCHEMA(P_PID "," P_OP("only this") "," P_TIME "," P_SESSION ","
				 P_LIMIT(20, 100), ""),
		.trace = tool_trace_stats,
		.cache = 1,
	},
	{
		.name = "get_kernel_stats",
		.title = "Launches per kernel",
		.description =
			"Per kernel name: launches (through the runtime and the driver), total "
			"and max launch-call time; heaviest first. Runtime launches are named "
			"once the trace was symbolized (ingero-symbolize), driver launches by the "
			"recorder; the rest are (unknown).",
		.schema = SCHEMA(P_PID "," P_SESSION "," P_LIMIT(20, 100), ""),
		.run = t_kernel_stats,
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
		.name = "get_ranks",
		.title = "Ranks of a multi-rank job",
		.description =
			"Which rank is slow and where a hung job is stuck: one row per rank of each "
			"NCCL communicator (collectives, times it arrived last and last_pct, its "
			"arrival after the first rank, how long it held the others up, steps/s), "
			"the rank the others waited for most first, each with the cross-rank "
			"finding naming it: straggler (its own host cause), collective-hang (the "
			"collective, the ranks in it, the missing rank's last call) or "
			"collective-desync. Empty for a single-process job.",
		.schema = SCHEMA(P_SESSION "," P_LIMIT(64, 1024), ""),
		.run = tool_ranks,
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
		.trace = tool_stacks,
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
		.trace = tool_graph_lifecycle,
		.cache = 1,
	},
	{
		.name = "graph_frequency",
		.title = "CUDA Graph launch frequency",
		.description =
			"Launches per graph exec with rate and span; hot = the fewest execs making "
			"90% of launches, cold = the rest, unused = instantiated, never launched.",
		.schema = SCHEMA(P_PID "," P_TIME "," P_SESSION "," P_LIMIT(20, 1000), ""),
		.trace = tool_graph_frequency,
		.cache = 1,
	},
	{
		.name = "get_process_breakdown",
		.title = "Per-process breakdown",
		.description =
			"Per process: CUDA calls and time, busiest op, failed calls, how often and "
			"how long its threads were preempted, and by whom most; grouped by container "
			"(pod UID, container id) when the processes are in more than one.",
		.schema = SCHEMA(P_TIME "," P_SESSION, ""),
		.trace = tool_process_breakdown,
		.cache = 1,
	},
	{
		.name = "get_host_context",
		.title = "The rest of the host",
		.description =
			"What the whole host did (any process, not only CUDA ones): the processes "
			"that allocated most pages, with pages/s and their container (id or cgroup; "
			"grouped by it when the processes are in more than one container), "
			"direct reclaim and compaction stalls their tasks suffered, pages of all "
			"other processes, least available memory and the highest pressure stall "
			"information (PSI %) of the snapshots; disk: per block device its requests, "
			"MB/s and latency p50/p99/max, the processes that moved most bytes on it "
			"(with their share and container) and the time the traced processes spent "
			"blocked on I/O; network: the TCP flows that retransmitted most (local and "
			"remote address:port, retransmits and per second, the owning process and its "
			"container) and the processes that sent and received most TCP bytes.",
		.schema = SCHEMA(P_TIME "," P_SESSION, ""),
		.trace = tool_host_context,
		.cache = 1,
	},
	{
		.name = "run_sql",
		.title = "Read-only SQL",
		.description =
			"Run one read-only SQLite statement (SELECT, WITH...SELECT, or a reporting "
			"PRAGMA such as table_info) on the trace database; writes, ATTACH and "
			"load_extension are refused, statements time out. Schema: "
			"SELECT sql FROM sqlite_schema; op_stats, process_op_stats, window_stats and "
			"call_sites read summaries (fast on any trace); raw events need a time "
			"window (ts) or pid. Output {cols,rows,n}; rows capped (truncated says so, "
			"with next_offset: call again with offset for the next page).",
		.schema = "{\"type\":\"object\",\"properties\":{"
			  "\"sql\":{\"type\":\"string\",\"maxLength\":100000,"
			  "\"description\":\"one read-only statement\"},"
			  "\"limit\":{\"type\":\"integer\",\"minimum\":1,\"maximum\":10000,"
			  "\"description\":\"most rows to return (default 200)\"},"
			  "\"offset\":{\"type\":\"integer\",\"minimum\":0,"
			  "\"description\":\"skip this many rows first (the next page)\"}},"
			  "\"required\":[\"sql\"],\"additionalProperties\":false}",
		.run = t_run_sql,
	},
};
const size_t mcp_ntools = sizeof(mcp_tools) / sizeof(mcp_tools[0]);
