/* SPDX-License-Identifier: MIT */
/* Shared helpers of the trace tools (cmd/ingero-mcp/trace.c); internal. */
#ifndef ILOG_MCP_TRACE_H
#define ILOG_MCP_TRACE_H

#include "mcp_int.h"

/* The export session a tool call looks at. */
struct trace_ctx {
	int64_t session;           /* sessions.session_id, for queries */
	int64_t seq;               /* sessions.seq: what tools show and take */
	int64_t first_ts, last_ts; /* wall-clock ns */
};
/* args.session, or the newest session.  MCP_OK / MCP_TOOL_ERROR. */
int trace_session(struct ilog_mcp *m, json_t *args, struct trace_ctx *c, char *err,
		  size_t errlen);

enum { TF_PID = 1, TF_OP = 2, TF_TIME = 4 };
/* A WHERE clause over events-like tables (session_id, pid, op, ts). */
struct trace_filter {
	char sql[256];   /* "session_id = N AND pid = ? ..." */
	json_t *binds;   /* values for the ?s, in order */
	int64_t pid;     /* 0 = all */
	int op;          /* 0 = all */
};
/* From args pid/op/since/until as `use` allows.  MCP_OK, MCP_TOOL_ERROR
 * (unknown op name, bad time), MCP_NOMEM.  Free with trace_filter_free. */
int trace_where(const struct trace_ctx *c, json_t *args, unsigned use, struct trace_filter *f,
		char *err, size_t errlen);
void trace_filter_free(struct trace_filter *f);
/* trace_session for a tool that reads `table`: MCP_TOOL_ERROR with
 * `missing` as err when the database has none (an older export). */
int trace_session_for(struct ilog_mcp *m, json_t *args, const char *table, const char *missing,
		      struct trace_ctx *c, char *err, size_t errlen);
/* Run t->trace: trace_session, trace_where with the filters t's input
 * schema (parsed) has properties for (pid, op, since), the tool, then
 * trace_filter_free.  The tool's result, or trace_session's or
 * trace_where's failure. */
int trace_run(struct ilog_mcp *m, const struct mcp_tool *t, const json_t *schema, json_t *args,
	      int verbose, struct ilog_buf *text, char *err, size_t errlen);
/* The filter's terms after its session's (" AND pid = ? ..."), or "":
 * for queries that name the session themselves. */
const char *trace_where_rest(const struct trace_filter *f);
/* mcp_prepare of a query whose WHERE is f's, with f's values bound. */
int trace_prepare(struct ilog_mcp *m, const char *sql, const struct trace_filter *f,
		  sqlite3_stmt **st, char *err, size_t errlen);

/* How many containers (distinct container ids) a session's processes are
 * in (tools group by container above one); 0 before schema 4. */
int trace_containers(struct ilog_mcp *m, int64_t session);

/* Verbose output grouped by container: a heading ("container ID[ in pod
 * UID]:" or "no container:") when ctr differs from last (the caller's
 * buffer, "\001" at first), which then holds it.  0, or -1 (memory). */
int trace_ctr_heading(struct ilog_buf *text, char *last, size_t lastlen, const char *ctr,
		      const char *pod);

double trace_us(uint64_t ns);   /* ns as µs, one decimal */
double trace_s(int64_t ns);     /* ns as s, three decimals */
const char *trace_op_name(int64_t op);

/* Tool handlers over the trace schema: struct mcp_tool.run ... */
#define TRACE_TOOL(name)                                                              \
	int name(struct ilog_mcp *m, json_t *args, int verbose, struct ilog_buf *text, \
		 char *err, size_t errlen)
TRACE_TOOL(tool_causal_chains);
TRACE_TOOL(tool_ranks);
/* ... and struct mcp_tool.trace (a session and the arguments' filter) */
#define TRACE_FILTERED(name)                                                                \
	int name(struct ilog_mcp *m, const struct trace_ctx *c, const struct trace_filter *f, \
		 json_t *args, int verbose, struct ilog_buf *text, char *err, size_t errlen)
TRACE_FILTERED(tool_trace_stats);
TRACE_FILTERED(tool_process_breakdown);
TRACE_FILTERED(tool_host_context);
TRACE_FILTERED(tool_stacks);
TRACE_FILTERED(tool_graph_lifecycle);
TRACE_FILTERED(tool_graph_frequency);
/* A table as the tools answer: compact JSON, or prose with verbose.  MCP_OK / MCP_NOMEM. */
int mcp_emit_table(struct ilog_buf *text, const struct mcp_table *t, int verbose);

#endif
