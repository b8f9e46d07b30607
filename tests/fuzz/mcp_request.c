// SPDX-License-Identifier: MIT
/*
 * libFuzzer target for ingero-mcp's request handling: one input is one
 * stdio line handed to ilog_mcp_handle() (JSON parsing, JSON-RPC
 * validation, method dispatch, tool-argument checks, and the tools
 * themselves against a small in-memory trace database).  Every reply
 * must be one line of valid JSON; anything else is a crash.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <jansson.h>
#include <sqlite3.h>
#include "mcp.h"

static struct ilog_mcp *server(void)
{
	static struct ilog_mcp *m;
	if (m)
		return m;
	sqlite3 *db;
	if (sqlite3_open(":memory:", &db) != SQLITE_OK)
		abort();
	/* A few rows so run_sql has something to return. */
	if (sqlite3_exec(db,
			 "CREATE TABLE t(a INTEGER, b TEXT, c BLOB);"
			 "INSERT INTO t VALUES (1,'x',x'00ff'),(2,'\xc3\xa9',NULL),(3,NULL,x'');",
			 NULL, NULL, NULL) != SQLITE_OK)
		abort();
	struct ilog_mcp_opts o = { .timeout_ms = 200, .max_rows = 50, .source = "fuzz" };
	char err[256];
	m = ilog_mcp_adopt_db(db, &o, err, sizeof(err));
	if (!m) {
		fprintf(stderr, "%s\n", err);
		abort();
	}
	return m;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct ilog_mcp *m = server();
	struct ilog_buf out = { 0 };
	if (ilog_mcp_handle(m, (const char *)data, size, &out))
		abort(); /* only out-of-memory may fail */
	if (out.len) {
		if (memchr(out.p, '\n', out.len))
			abort(); /* a reply must be one line */
		json_error_t je;
		json_t *j = json_loadb(out.p, out.len, 0, &je);
		if (!j)
			abort();
		json_decref(j);
	}
	ilog_buf_free(&out);
	return 0;
}
