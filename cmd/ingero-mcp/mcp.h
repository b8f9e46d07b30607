/* SPDX-License-Identifier: MIT */
/*
 * The Model Context Protocol server behind ingero-mcp: JSON-RPC 2.0 over
 * newline-delimited stdio (one message per line), the MCP lifecycle
 * (initialize with protocol-version negotiation, ping), tools over a
 * read-only SQLite view of a trace (docs/schema.md) and an `investigate`
 * prompt.  JSON is parsed and written with jansson.
 *
 * Nothing here prints or exits: ilog_mcp_serve() writes protocol messages
 * to the fd it is given and returns; everything else returns a code and
 * fills an error buffer the caller prints.
 */
#ifndef ILOG_MCP_H
#define ILOG_MCP_H

#include <stddef.h>
#include <stdint.h>
#include "ingero/ilog.h"

struct ilog_mcp;
struct sqlite3;
struct ilog_analysis_opts;

struct ilog_mcp_opts {
	uint32_t max_rows;      /* rows a run_sql result keeps (default 200) */
	uint32_t timeout_ms;    /* per statement, 0 = none (default 5000) */
	size_t max_request;     /* bytes in one request line (default 1 MiB) */
	int no_cache;           /* 1: recompute every tool call (benchmarks) */
	const char *source;     /* what was opened, for get_check ("run.db") */
	/* a log loaded: which of its records, and how its chains are found
	 * (ingero-correlate's --window, --pid, --since, --until); NULL: all,
	 * the defaults */
	const struct ilog_analysis_opts *analysis;
};

/*
 * Open an SQLite file strictly read-only: SQLITE_OPEN_READONLY, extension
 * loading off, defensive mode on, no ATTACH, and an authorizer that only
 * lets reads through (cmd/ingero-mcp/db.c).  Returns NULL and fills err.
 */
struct ilog_mcp *ilog_mcp_open_db(const char *path, const struct ilog_mcp_opts *opts,
				  char *err, size_t errlen);
/*
 * Take ownership of an already populated connection (e.g. an in-memory
 * database loaded from a log) and lock it down the same way: query_only,
 * extension loading off, the authorizer.  On failure db is closed, NULL
 * returned and err filled.
 */
struct ilog_mcp *ilog_mcp_adopt_db(struct sqlite3 *db, const struct ilog_mcp_opts *opts,
				   char *err, size_t errlen);
/*
 * Load a log (a file: stdin carries the protocol) into an in-memory
 * database through the sqlite export sink, then as ilog_mcp_adopt_db.
 * A damaged tail is not fatal: the records before it are served and
 * ilog_mcp_note() says where the damage is.  NULL and err on failure.
 */
struct ilog_mcp *ilog_mcp_open_log(const char *log, const struct ilog_mcp_opts *opts,
				   char *err, size_t errlen);
/* A warning about what is served ("" if none): e.g. a damaged log tail. */
const char *ilog_mcp_note(const struct ilog_mcp *m);
void ilog_mcp_free(struct ilog_mcp *m);

/*
 * Handle one message (a JSON-RPC request, notification or batch) of n
 * bytes.  The reply, if any, is appended to out as one line of compact
 * JSON without the newline; nothing is appended for notifications.
 * Malformed input produces a JSON-RPC error reply, never a failure.
 * Returns 0, or -1 when memory ran out.
 */
int ilog_mcp_handle(struct ilog_mcp *m, const char *msg, size_t n, struct ilog_buf *out);

/*
 * Serve requests read from in_fd until end of input, writing replies
 * (one per line) to out_fd.  A line over opts.max_request bytes is
 * discarded and answered with an Invalid Request error; an unterminated
 * last line is handled as a message.  Returns 0 at end of input, -1 on a
 * read/write error or out of memory (err filled).
 */
int ilog_mcp_serve(struct ilog_mcp *m, int in_fd, int out_fd, char *err, size_t errlen);

/* Protocol revisions this server speaks, newest first, NULL-terminated. */
extern const char *const ilog_mcp_versions[];

#endif
