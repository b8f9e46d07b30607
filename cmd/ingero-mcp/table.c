// SPDX-License-Identifier: MIT
/*
 * Query results as small tables for tool output.  Compact form (the
 * default, for a model that pays per token): {"cols":[...],"rows":[[...]]}
 * with the column names once instead of per row.  Verbose form: an
 * aligned text table a person can read.  Every cap (rows, bytes, cell
 * length) that cuts a result says so in the output: silent truncation
 * would let an assistant draw conclusions from a partial answer.
 */
#include <stdio.h>
#include <string.h>
#include "mcp_int.h"

void mcp_table_free(struct mcp_table *t)
{
	json_decref(t->cols);
	json_decref(t->rows);
	memset(t, 0, sizeof(*t));
}

static int bind_all(sqlite3_stmt *st, const json_t *binds)
{
	size_t i;
	const json_t *v;
	json_array_foreach(binds, i, v) {
		int k = (int)i + 1, rc;
		if (json_is_integer(v))
			rc = sqlite3_bind_int64(st, k, json_integer_value(v));
		else if (json_is_real(v))
			rc = sqlite3_bind_double(st, k, json_real_value(v));
		else if (json_is_string(v))
			rc = sqlite3_bind_text(st, k, json_string_value(v), (int)json_string_length(v),
					       SQLITE_TRANSIENT);
		else
			rc = sqlite3_bind_null(st, k);
		if (rc != SQLITE_OK)
			return rc;
	}
	return SQLITE_OK;
}

int mcp_table_query(struct ilog_mcp *m, const char *sql, const json_t *binds, int user,
		    const struct mcp_table_caps *caps, struct mcp_table *t, char *err,
		    size_t errlen)
{
	sqlite3_stmt *st;
	memset(t, 0, sizeof(*t));
	int rc = mcp_prepare(m, sql, user, &st, err, errlen);
	if (rc)
		return rc;
	if (binds && bind_all(st, binds) != SQLITE_OK) {
		snprintf(err, errlen, "%s", sqlite3_errmsg(m->db));
		sqlite3_finalize(st);
		return MCP_TOOL_ERROR;
	}
	int ncol = sqlite3_column_count(st);
	t->cols = json_array();
	t->rows = json_array();
	if (!t->cols || !t->rows)
		goto oom;
	for (int i = 0; i < ncol; i++) {
		const char *name = sqlite3_column_name(st, i);
		json_t *n = json_string(name ? name : "?");
		if (!n) /* a column alias that is not UTF-8 */
			n = json_sprintf("col%d", i + 1);
		if (json_array_append_new(t->cols, n))
			goto oom;
	}
	size_t bytes = 0;
	t->offset = caps->offset;
	for (uint64_t skip = caps->offset;;) {
		rc = mcp_step(m, st, err, errlen);
		if (rc == SQLITE_DONE)
			break;
		if (rc != SQLITE_ROW) {
			sqlite3_finalize(st);
			mcp_table_free(t);
			return MCP_TOOL_ERROR;
		}
		if (skip) { /* paging: rows before the page are stepped over */
			skip--;
			continue;
		}
		if (t->nrows >= caps->max_rows) {
			t->truncated = MCP_CUT_ROWS;
			break;
		}
		if (caps->max_bytes && bytes > caps->max_bytes) {
			t->truncated = MCP_CUT_BYTES;
			break;
		}
		json_t *row = json_array();
		if (!row || json_array_append_new(t->rows, row))
			goto oom;
		for (int i = 0; i < ncol; i++) {
			json_t *v = mcp_column_json(st, i, caps->max_cell);
			if (!v || json_array_append_new(row, v))
				goto oom;
			bytes += sqlite3_column_type(st, i) == SQLITE_TEXT ||
						 sqlite3_column_type(st, i) == SQLITE_BLOB
					 ? (size_t)sqlite3_column_bytes(st, i) + 3
					 : 8;
		}
		t->nrows++;
	}
	sqlite3_finalize(st);
	return MCP_OK;
oom:
	sqlite3_finalize(st);
	mcp_table_free(t);
	return MCP_NOMEM;
}

const char *mcp_cut_note(int truncated)
{
	switch (truncated) {
	case MCP_CUT_ROWS: return "more rows exist: aggregate, filter or raise limit";
	case MCP_CUT_BYTES: return "output size cap reached: select fewer or narrower columns";
	default: return NULL;
	}
}

json_t *mcp_table_json(const struct mcp_table *t)
{
	json_t *o = json_pack("{s:O, s:O, s:I}", "cols", t->cols, "rows", t->rows, "n",
			      (json_int_t)t->nrows);
	if (o && t->offset && json_object_set_new(o, "offset", json_integer((json_int_t)t->offset)))
		return json_decref(o), NULL;
	if (o && t->truncated &&
	    json_object_set_new(o, "truncated",
				json_pack("{s:b, s:s, s:I}", "more", 1, "why",
					  mcp_cut_note(t->truncated), "next_offset",
					  (json_int_t)(t->offset + t->nrows))))
		return json_decref(o), NULL;
	return o;
}

/* A cell as text for the prose table. */
static int cell_text(struct ilog_buf *b, const json_t *v)
{
	if (json_is_string(v))
		return mcp_put(b, json_string_value(v), json_string_length(v));
	if (json_is_null(v))
		return mcp_put(b, "NULL", 4);
	if (json_is_integer(v))
		return mcp_buf_printf(b, "%lld", (long long)json_integer_value(v));
	return mcp_buf_printf(b, "%.6g", json_real_value(v));
}

int mcp_table_prose(struct ilog_buf *b, const struct mcp_table *t)
{
	size_t ncol = json_array_size(t->cols), i, r;
	const json_t *row, *v;
	/* Column widths from the rendered cells, capped so one long cell
	 * does not push the rest off the screen. */
	size_t w[64] = { 0 };
	if (ncol > 64)
		ncol = 64;
	struct ilog_buf tmp = { 0 };
	for (i = 0; i < ncol; i++)
		w[i] = json_string_length(json_array_get(t->cols, i));
	json_array_foreach(t->rows, r, row) {
		for (i = 0; i < ncol; i++) {
			tmp.len = 0;
			if (cell_text(&tmp, json_array_get(row, i)))
				goto oom;
			if (tmp.len > w[i])
				w[i] = tmp.len < 48 ? tmp.len : 48;
		}
	}
	for (i = 0; i < ncol; i++)
		if (mcp_buf_printf(b, "%s%-*s", i ? "  " : "", (int)w[i],
				   json_string_value(json_array_get(t->cols, i))))
			goto oom;
	if (mcp_put(b, "\n", 1))
		goto oom;
	json_array_foreach(t->rows, r, row) {
		for (i = 0; i < ncol; i++) {
			tmp.len = 0;
			v = json_array_get(row, i);
			if (cell_text(&tmp, v))
				goto oom;
			int right = json_is_number(v);
			if (mcp_buf_printf(b, "%s%*s%.*s%*s", i ? "  " : "",
					   right && tmp.len < w[i] ? (int)(w[i] - tmp.len) : 0, "",
					   (int)tmp.len, tmp.p ? tmp.p : "",
					   !right && tmp.len < w[i] ? (int)(w[i] - tmp.len) : 0, ""))
				goto oom;
		}
		if (mcp_put(b, "\n", 1))
			goto oom;
	}
	if (mcp_buf_printf(b, "(%llu row%s)", (unsigned long long)t->nrows,
			   t->nrows == 1 ? "" : "s"))
		goto oom;
	if (t->truncated && mcp_buf_printf(b, " TRUNCATED: %s; the next page: offset %llu",
					   mcp_cut_note(t->truncated),
					   (unsigned long long)(t->offset + t->nrows)))
		goto oom;
	ilog_buf_free(&tmp);
	return mcp_put(b, "\n", 1);
oom:
	ilog_buf_free(&tmp);
	return -1;
}
