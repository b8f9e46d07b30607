/* SPDX-License-Identifier: MIT */
/*
 * Internals shared by lib/mcp_*.c (not part of libingero's API): the
 * server state, the read-only query layer and the tool/prompt tables.
 */
#ifndef ILOG_MCP_INT_H
#define ILOG_MCP_INT_H

#include <jansson.h>
#include <sqlite3.h>
#include "mcp.h"

#define MCP_CACHE_SLOTS 64
#define MCP_CACHE_BYTES (16u << 20)

/* One remembered tool result: the database never changes under us, so a
 * repeated call with the same arguments has the same answer. */
struct mcp_cache_slot {
	char *key;        /* "tool\0canonical-args-json" */
	size_t keylen;
	char *text;
	size_t textlen;
	uint64_t used;    /* LRU clock */
};

struct ilog_mcp {
	sqlite3 *db;
	struct ilog_mcp_opts o;
	char source[512];
	char note[640];           /* warning about what is served, "" if none */
	char version[16];         /* negotiated protocol revision */
	int initialized;          /* saw notifications/initialized */
	uint64_t deadline_ns;     /* CLOCK_MONOTONIC; 0 = none */
	int timed_out;
	int refused;              /* the read-only layer said no or timed out */
	char deny[192];           /* why the authorizer said no */
	json_t **schemas;         /* parsed input schema per tool */
	json_t *prompt_cache;
	struct mcp_cache_slot cache[MCP_CACHE_SLOTS];
	size_t cache_bytes;
	uint64_t cache_clock;
	uint64_t cache_hits, cache_misses;
};

/* ---- cmd/ingero-mcp/db.c ---- */
/* Install the read-only guards on m->db.  0, or -1 with err filled. */
int mcp_db_lockdown(struct ilog_mcp *m, char *err, size_t errlen);
/* Arm the statement deadline (opts.timeout_ms from now); 0 disarms. */
void mcp_deadline(struct ilog_mcp *m, int arm);
/*
 * Prepare one statement.  user=1 (run_sql) also requires the text to be
 * one read-only statement.  0 ok; 1 rejected or bad SQL (err says why).
 */
int mcp_prepare(struct ilog_mcp *m, const char *sql, int user, sqlite3_stmt **st,
		char *err, size_t errlen);
/* sqlite3_step with the deadline's message: SQLITE_ROW, SQLITE_DONE, or
 * another code with err filled ("statement timed out after N ms"). */
int mcp_step(struct ilog_mcp *m, sqlite3_stmt *st, char *err, size_t errlen);
/* Bytes as a JSON string: at most max bytes (0 = all, then "…"), invalid
 * UTF-8 and NULs replaced by U+FFFD.  NULL only when memory ran out. */
json_t *mcp_text_json(const unsigned char *s, size_t n, size_t max);
/* Column i as JSON (text is made valid UTF-8, blobs become hex). */
json_t *mcp_column_json(sqlite3_stmt *st, int i, size_t max_text);
/* 1 if the schema has table `name`. */
int mcp_has_table(struct ilog_mcp *m, const char *name);

/* ---- cmd/ingero-mcp/table.c: query results as tool output ---- */
enum { MCP_CUT_NONE = 0, MCP_CUT_ROWS = 1, MCP_CUT_BYTES = 2 };
struct mcp_table {
	json_t *cols;             /* array of column names */
	json_t *rows;             /* array of arrays */
	uint64_t nrows;
	uint64_t offset;          /* rows skipped before the first kept */
	int truncated;            /* MCP_CUT_*: why rows stopped early */
};
struct mcp_table_caps {
	uint64_t max_rows;
	uint64_t offset;          /* skip this many rows first (paging) */
	size_t max_bytes;         /* rough size of kept cells; 0 = no cap */
	size_t max_cell;          /* bytes of one text cell; 0 = no cap */
};
/* Run sql with positional binds (a JSON array or NULL).  user=1 applies
 * run_sql's checks.  MCP_OK, MCP_TOOL_ERROR (err), MCP_NOMEM. */
int mcp_table_query(struct ilog_mcp *m, const char *sql, const json_t *binds, int user,
		    const struct mcp_table_caps *caps, struct mcp_table *t, char *err,
		    size_t errlen);
void mcp_table_free(struct mcp_table *t);
/* {"cols","rows","n"[,"offset"][,"truncated":{"more":true,"why","next_offset"}]},
 * NULL on OOM. */
json_t *mcp_table_json(const struct mcp_table *t);
/* An aligned text table and a row count line.  0 or -1. */
int mcp_table_prose(struct ilog_buf *b, const struct mcp_table *t);
const char *mcp_cut_note(int truncated);

/* ---- cmd/ingero-mcp/tools.c ---- */
struct trace_ctx;
struct trace_filter;
enum { MCP_OK = 0, MCP_TOOL_ERROR = 1, MCP_NOMEM = -1 };
struct mcp_tool {
	const char *name, *title, *description;
	const char *schema;       /* JSON Schema of the arguments, as text */
	/* Fill *text (compact JSON or, with verbose, prose).  MCP_OK,
	 * MCP_TOOL_ERROR with err filled, or MCP_NOMEM. */
	int (*run)(struct ilog_mcp *m, json_t *args, int verbose, struct ilog_buf *text,
		   char *err, size_t errlen);
	/* Or, for a tool over the trace tables: the same with its session and
	 * filter, opened from the arguments before and freed after (the
	 * filter has the terms of the schema's pid, op and since/until) */
	int (*trace)(struct ilog_mcp *m, const struct trace_ctx *c, const struct trace_filter *f,
		     json_t *args, int verbose, struct ilog_buf *text, char *err, size_t errlen);
	int cache;                /* results may be remembered */
};
extern const struct mcp_tool mcp_tools[];
extern const size_t mcp_ntools;

/* ---- cmd/ingero-mcp/prompt.c ---- */
struct mcp_prompt_arg { const char *name, *description; int required; };
struct mcp_prompt {
	const char *name, *title, *description;
	const struct mcp_prompt_arg *args;
	/* The messages array for prompts/get, or NULL on OOM. */
	json_t *(*render)(struct ilog_mcp *m, json_t *args);
};
extern const struct mcp_prompt mcp_prompts[];
extern const size_t mcp_nprompts;

/* ---- cmd/ingero-mcp/schema.c: the subset of JSON Schema our tools declare ---- */
/* 0 if args satisfy schema, else 1 with err naming the argument. */
int mcp_schema_check(const json_t *schema, const json_t *args, char *err, size_t errlen);

/* ---- helpers (cmd/ingero-mcp/rpc.c) ---- */
/* ilog_buf_put, but a no-op for n == 0: memcpy into a buffer not yet
 * allocated is undefined even for zero bytes (UBSan, the fuzz target). */
static inline int mcp_put(struct ilog_buf *b, const void *p, size_t n)
{
	return n ? ilog_buf_put(b, p, n) : 0;
}
/* Formatted append: the export helpers' one (lib/export/util.c). */
#define mcp_buf_printf ilog_buf_printf
/* Append compact JSON of v to b.  0 or -1. */
int mcp_buf_json(struct ilog_buf *b, const json_t *v);

#endif
