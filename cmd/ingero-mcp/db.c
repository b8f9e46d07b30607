// SPDX-License-Identifier: MIT
/*
 * The read-only SQLite layer under ingero-mcp.  An assistant may send any
 * SQL it likes through run_sql, so "read-only" is enforced in depth, each
 * layer on its own sufficient for the common attacks:
 *   1. the file is opened SQLITE_OPEN_READONLY (an in-memory database
 *      gets PRAGMA query_only instead);
 *   2. extension loading is off, defensive mode is on (no writable_schema
 *      tricks), ATTACH is limited to zero databases, schema code is not
 *      trusted;
 *   3. an authorizer lets through only reads, functions other than
 *      load_extension/fts3_tokenizer, recursive CTEs and a list of
 *      pragmas that only report;
 *   4. run_sql text must be one statement that sqlite3_stmt_readonly()
 *      accepts.
 * A progress handler interrupts any statement that outlives its deadline,
 * so a runaway recursive CTE ends with an error instead of a hung server.
 */
#include <stdarg.h>
#include <stdlib.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>
#include <time.h>
#include "ingero/cli.h"
#include "ingero/io.h"
#include "mcp_int.h"

/* Called every few hundred VM instructions: a clock read is ~20 ns. */
static int progress(void *arg)
{
	struct ilog_mcp *m = arg;
	if (m->deadline_ns && ilog_mono_ns() > m->deadline_ns) {
		m->timed_out = 1;
		return 1;
	}
	return 0;
}

void mcp_deadline(struct ilog_mcp *m, int arm)
{
	m->timed_out = 0;
	m->deadline_ns = arm && m->o.timeout_ms ? ilog_mono_ns() + m->o.timeout_ms * 1000000ull : 0;
}

/* Pragmas that only report.  Anything else (writable_schema, journal_mode
 * with an argument, query_only=0, ...) is refused. */
static const char *const report_pragmas[] = {
	"table_info", "table_xinfo", "table_list", "index_list", "index_info",
	"index_xinfo", "foreign_key_list", "database_list", "collation_list",
	"function_list", "module_list", "pragma_list", "compile_options",
	NULL,
};
/* These report when given no value and change state when given one. */
static const char *const value_pragmas[] = {
	"page_count", "page_size", "user_version", "application_id",
	"schema_version", "encoding", "freelist_count", "data_version", NULL,
};

static int in_list(const char *const *list, const char *s)
{
	for (; s && *list; list++)
		if (!strcasecmp(*list, s))
			return 1;
	return 0;
}

static const char *action_name(int code)
{
	switch (code) {
	case SQLITE_INSERT: return "INSERT";
	case SQLITE_UPDATE: return "UPDATE";
	case SQLITE_DELETE: return "DELETE";
	case SQLITE_ATTACH: return "ATTACH";
	case SQLITE_DETACH: return "DETACH";
	case SQLITE_TRANSACTION: return "a transaction statement";
	case SQLITE_SAVEPOINT: return "SAVEPOINT";
	case SQLITE_ALTER_TABLE: return "ALTER TABLE";
	case SQLITE_REINDEX: return "REINDEX";
	case SQLITE_ANALYZE: return "ANALYZE";
	case SQLITE_CREATE_VTABLE: case SQLITE_DROP_VTABLE: return "a virtual table change";
	default: return code <= SQLITE_DROP_VIEW ? "a schema change" : "this statement";
	}
}

static int authorize(void *arg, int code, const char *a1, const char *a2, const char *db,
		     const char *trigger)
{
	struct ilog_mcp *m = arg;
	(void)db;
	(void)trigger;
	switch (code) {
	case SQLITE_SELECT:
	case SQLITE_READ:
	case SQLITE_RECURSIVE:
		return SQLITE_OK;
	case SQLITE_FUNCTION:
		if (a2 && (!strcasecmp(a2, "load_extension") || !strcasecmp(a2, "fts3_tokenizer"))) {
			snprintf(m->deny, sizeof(m->deny), "%s() is not allowed", a2);
			return SQLITE_DENY;
		}
		return SQLITE_OK;
	case SQLITE_PRAGMA:
		if (in_list(report_pragmas, a1) || (!a2 && in_list(value_pragmas, a1)))
			return SQLITE_OK;
		snprintf(m->deny, sizeof(m->deny), "PRAGMA %s%s%s is not allowed",
			 a1 ? a1 : "?", a2 ? "=" : "", a2 ? a2 : "");
		return SQLITE_DENY;
	default:
		snprintf(m->deny, sizeof(m->deny), "%s is not allowed", action_name(code));
		return SQLITE_DENY;
	}
}

int mcp_db_lockdown(struct ilog_mcp *m, char *err, size_t errlen)
{
	sqlite3 *db = m->db;
	int on = 1, off = 0;
	/* Before the authorizer: query_only is itself a state change. */
	if (sqlite3_db_readonly(db, "main") != 1 &&
	    sqlite3_exec(db, "PRAGMA query_only=1", NULL, NULL, NULL) != SQLITE_OK) {
		snprintf(err, errlen, "cannot make the database read-only: %s", sqlite3_errmsg(db));
		return -1;
	}
	if (sqlite3_db_config(db, SQLITE_DBCONFIG_ENABLE_LOAD_EXTENSION, off, NULL) ||
	    sqlite3_db_config(db, SQLITE_DBCONFIG_DEFENSIVE, on, NULL) ||
	    sqlite3_db_config(db, SQLITE_DBCONFIG_TRUSTED_SCHEMA, off, NULL) ||
	    sqlite3_db_config(db, SQLITE_DBCONFIG_ENABLE_TRIGGER, off, NULL)) {
		snprintf(err, errlen, "cannot configure sqlite: %s", sqlite3_errmsg(db));
		return -1;
	}
	sqlite3_limit(db, SQLITE_LIMIT_ATTACHED, 0);
	/* One value at most 16 MiB: a CTE that grows a string cannot take
	 * the machine's memory before the deadline stops it. */
	sqlite3_limit(db, SQLITE_LIMIT_LENGTH, 16 << 20);
	sqlite3_set_authorizer(db, authorize, m);
	sqlite3_progress_handler(db, 256, progress, m);
	return 0;
}

/* 1 if s holds only whitespace and semicolons. */
static int blank_sql(const char *s)
{
	for (; *s; s++)
		if (!strchr(" \t\r\n\f\v;", *s))
			return 0;
	return 1;
}

int mcp_prepare(struct ilog_mcp *m, const char *sql, int user, sqlite3_stmt **st, char *err,
		size_t errlen)
{
	const char *tail = NULL;
	*st = NULL;
	m->deny[0] = 0;
	int rc = sqlite3_prepare_v2(m->db, sql, -1, st, &tail);
	if (rc != SQLITE_OK) {
		if (m->deny[0]) {
			snprintf(err, errlen, "rejected: %s (read-only server)", m->deny);
			m->refused = 1;
		} else
			snprintf(err, errlen, "%s", sqlite3_errmsg(m->db));
		sqlite3_finalize(*st);
		*st = NULL;
		return MCP_TOOL_ERROR;
	}
	if (!*st) {
		snprintf(err, errlen, "no SQL statement given");
		return MCP_TOOL_ERROR;
	}
	if (!user)
		return MCP_OK;
	if (!sqlite3_stmt_readonly(*st)) {
		snprintf(err, errlen, "rejected: only read-only statements are allowed");
		goto reject;
	}
	/* The remainder may only be comments: it must prepare to nothing. */
	if (tail && !blank_sql(tail)) {
		sqlite3_stmt *more = NULL;
		rc = sqlite3_prepare_v2(m->db, tail, -1, &more, NULL);
		sqlite3_finalize(more);
		if (rc != SQLITE_OK || more) {
			snprintf(err, errlen, "rejected: one statement per call");
			goto reject;
		}
	}
	return MCP_OK;
reject:
	m->refused = 1;
	sqlite3_finalize(*st);
	*st = NULL;
	return MCP_TOOL_ERROR;
}

int mcp_step(struct ilog_mcp *m, sqlite3_stmt *st, char *err, size_t errlen)
{
	int rc = sqlite3_step(st);
	if (rc == SQLITE_ROW || rc == SQLITE_DONE)
		return rc;
	if (rc == SQLITE_INTERRUPT && m->timed_out) {
		snprintf(err, errlen, "statement timed out after %u ms (narrow the query, add LIMIT)",
			 m->o.timeout_ms);
		m->refused = 1;
	} else if (rc == SQLITE_AUTH && m->deny[0]) {
		snprintf(err, errlen, "rejected: %s (read-only server)", m->deny);
		m->refused = 1;
	} else
		snprintf(err, errlen, "%s", sqlite3_errmsg(m->db));
	return rc;
}

/* Length of the valid UTF-8 character at s (n bytes left), 0 if none.
 * jansson refuses invalid UTF-8, and trace strings (comm, paths) are
 * bytes from the kernel. */
static size_t utf8_char(const unsigned char *s, size_t n)
{
	unsigned c = s[0], len, min;
	if (c < 0x80)
		return 1;
	if ((c & 0xe0) == 0xc0) { len = 2; min = 0x80; c &= 0x1f; }
	else if ((c & 0xf0) == 0xe0) { len = 3; min = 0x800; c &= 0x0f; }
	else if ((c & 0xf8) == 0xf0) { len = 4; min = 0x10000; c &= 0x07; }
	else return 0;
	if (len > n)
		return 0;
	for (unsigned k = 1; k < len; k++) {
		if ((s[k] & 0xc0) != 0x80)
			return 0;
		c = (c << 6) | (s[k] & 0x3f);
	}
	if (c < min || c > 0x10ffff || (c >= 0xd800 && c <= 0xdfff))
		return 0;
	return len;
}

/* Text as a JSON string: at most max bytes (then "…"), bad bytes and NULs
 * as U+FFFD, a character split by the cut dropped. */
json_t *mcp_text_json(const unsigned char *s, size_t n, size_t max)
{
	static const char repl[] = "\xef\xbf\xbd", ell[] = "\xe2\x80\xa6";
	int cut = max && n > max;
	if (cut)
		n = max;
	struct ilog_buf b = { 0 };
	size_t i = 0, run = 0; /* s[run..i) is clean and not yet copied */
	while (i < n) {
		size_t len = s[i] ? utf8_char(s + i, n - i) : 0;
		if (len) {
			i += len;
			continue;
		}
		if (mcp_put(&b, s + run, i - run))
			goto oom;
		if (!(cut && n - i < 4 && s[i] >= 0xc0) && mcp_put(&b, repl, 3))
			goto oom;
		run = ++i;
	}
	if (!b.p && !cut)
		return json_stringn((const char *)s, n);
	if (mcp_put(&b, s + run, n - run) || (cut && mcp_put(&b, ell, 3)))
		goto oom;
	json_t *j = json_stringn(b.p ? b.p : "", b.len);
	ilog_buf_free(&b);
	return j;
oom:
	ilog_buf_free(&b);
	return NULL;
}

json_t *mcp_column_json(sqlite3_stmt *st, int i, size_t max_text)
{
	switch (sqlite3_column_type(st, i)) {
	case SQLITE_INTEGER:
		return json_integer(sqlite3_column_int64(st, i));
	case SQLITE_FLOAT:
		return json_real(sqlite3_column_double(st, i));
	case SQLITE_TEXT:
		return mcp_text_json(sqlite3_column_text(st, i), (size_t)sqlite3_column_bytes(st, i),
				 max_text);
	case SQLITE_BLOB: {
		const unsigned char *p = sqlite3_column_blob(st, i);
		size_t n = (size_t)sqlite3_column_bytes(st, i), show = n;
		if (max_text && show * 2 > max_text)
			show = max_text / 2;
		char *hex = malloc(show * 2 + 32);
		if (!hex)
			return NULL;
		hex[0] = 0; /* an empty blob is "" */
		for (size_t k = 0; k < show; k++)
			sprintf(hex + 2 * k, "%02x", p[k]);
		if (show < n)
			sprintf(hex + 2 * show, "…(%zu bytes)", n);
		json_t *j = json_string(hex);
		free(hex);
		return j;
	}
	default:
		return json_null();
	}
}

int mcp_has_table(struct ilog_mcp *m, const char *name)
{
	sqlite3_stmt *st = NULL;
	int has = 0;
	if (sqlite3_prepare_v2(m->db,
			       "SELECT 1 FROM sqlite_schema WHERE type IN ('table','view') AND name=?",
			       -1, &st, NULL) == SQLITE_OK) {
		sqlite3_bind_text(st, 1, name, -1, SQLITE_STATIC);
		has = sqlite3_step(st) == SQLITE_ROW;
	}
	sqlite3_finalize(st);
	return has;
}
