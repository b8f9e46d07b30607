// SPDX-License-Identifier: MIT
/*
 * get_stacks: the code paths that make an op's calls, heaviest (most
 * total time) first.  Native frames come from frames + symbols
 * (ingero-symbolize's output, exported), and fall back to module+offset
 * from the process's mappings when a frame has no symbol.  Python frames
 * come from pyframes + pycode: the source line is decoded from the code
 * object's line table with lib/codec/pyline.c, as the interpreter would.
 * Frames are listed innermost first, as a traceback reads bottom-up;
 * "callstack" merges both, the Python frames in place of the eval-loop
 * calls that ran them (SPEC §5.7 entry).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "mcp_trace.h"
#include "ingero/pyline.h"
#include "ingero/symbolize_map.h"

static const char *base_name(const char *path)
{
	const char *s = path ? strrchr(path, '/') : NULL;
	return s ? s + 1 : path ? path : "?";
}

/* A frame list: one frame a row of `sql`, its text written by row() (at:
 * the row's index); a text that is not UTF-8 (bytes from an ELF file)
 * stands as `prefix` and column 0 in hex.  NULL on failure: *err_oom, or
 * a query that failed (err says why). */
typedef void frame_text_fn(sqlite3_stmt *st, size_t at, char *buf, size_t len, void *arg);
static json_t *frame_list(struct ilog_mcp *m, const char *sql, frame_text_fn *row, void *arg,
			  const char *prefix, int *err_oom, char *err, size_t errlen)
{
	sqlite3_stmt *st;
	json_t *out = json_array();
	if (!out || mcp_prepare(m, sql, 0, &st, err, errlen)) {
		*err_oom = !out;
		json_decref(out);
		return NULL;
	}
	int s;
	while ((s = mcp_step(m, st, err, errlen)) == SQLITE_ROW) {
		char buf[640];
		row(st, json_array_size(out), buf, sizeof(buf), arg);
		json_t *v = json_string(buf);
		if (!v)
			v = json_sprintf("%s0x%llx", prefix,
					 (unsigned long long)sqlite3_column_int64(st, 0));
		if (!v || json_array_append_new(out, v)) {
			*err_oom = 1;
			break;
		}
	}
	sqlite3_finalize(st);
	if (*err_oom || s != SQLITE_DONE) {
		json_decref(out);
		return NULL;
	}
	return out;
}

/* One native frame as "function (file:line) [module]" or "module+0xoff";
 * is_eval[at]: whether the frame ran the Python eval loop. */
static void native_text(sqlite3_stmt *st, size_t at, char *buf, size_t len, void *arg)
{
	uint8_t *is_eval = arg;
	const char *fn = (const char *)sqlite3_column_text(st, 1);
	if (fn && !*fn)
		fn = NULL; /* a symbol record that found no function */
	const char *file = (const char *)sqlite3_column_text(st, 2);
	const char *where = (const char *)sqlite3_column_text(st, 5);
	if (fn && file && sqlite3_column_int(st, 3) > 0)
		snprintf(buf, len, "%s (%s:%d)", fn, base_name(file), sqlite3_column_int(st, 3));
	else if (fn)
		snprintf(buf, len, "%s+0x%llx", fn, (unsigned long long)sqlite3_column_int64(st, 4));
	else if (where)
		snprintf(buf, len, "%s", base_name(where));
	else
		snprintf(buf, len, "0x%llx", (unsigned long long)sqlite3_column_int64(st, 0));
	if (at < INGERO_MAX_STACK)
		is_eval[at] = sqlite3_column_int(st, 6) != 0; /* any of its inlined frames */
}

static json_t *native_frames(struct ilog_mcp *m, const struct trace_ctx *c, int64_t sid,
			     int64_t pid, int64_t max, uint8_t *is_eval, int *err_oom, char *err,
			     size_t errlen)
{
	char sql[1536];
	snprintf(sql, sizeof(sql),
		 "SELECT f.ip, y.function, y.file, y.line, y.sym_off,"
		 " (SELECT path || '+0x' || printf('%%x', f.ip - start + file_offset) FROM mappings mp"
		 "  WHERE mp.session_id = f.session_id AND mp.node = f.node AND mp.pid = %lld"
		 "  AND f.ip >= mp.start AND f.ip < mp.end ORDER BY mp.ts DESC LIMIT 1),"
		 " EXISTS(SELECT 1 FROM symbols z WHERE z.session_id = f.session_id"
		 "  AND z.node = f.node AND z.pid = %lld AND z.ip = f.ip"
		 "  AND z.function = '_PyEval_EvalFrameDefault')"
		 " FROM frames f LEFT JOIN symbols y ON y.session_id = f.session_id"
		 "  AND y.node = f.node AND y.pid = %lld AND y.ip = f.ip AND y.inline_depth = 0"
		 " WHERE f.session_id = %lld AND f.stack_id = %lld ORDER BY f.frame LIMIT %lld",
		 (long long)pid, (long long)pid, (long long)pid, (long long)c->session,
		 (long long)sid, (long long)max);
	return frame_list(m, sql, native_text, is_eval, "", err_oom, err, errlen);
}

/* Python frames as "file.py:line in qualname". */
static void py_text(sqlite3_stmt *st, size_t at, char *buf, size_t len, void *arg)
{
	(void)at;
	(void)arg;
	const char *file = (const char *)sqlite3_column_text(st, 2);
	const char *name = (const char *)sqlite3_column_text(st, 3);
	if (!file) {
		snprintf(buf, len, "code 0x%llx (no pycode record)",
			 (unsigned long long)sqlite3_column_int64(st, 0));
		return;
	}
	int line = ilog_py_addr2line((uint32_t)sqlite3_column_int(st, 6), sqlite3_column_blob(st, 5),
				     (size_t)sqlite3_column_bytes(st, 5),
				     (uint32_t)sqlite3_column_int(st, 4),
				     (uint32_t)sqlite3_column_int64(st, 1));
	if (line > 0)
		snprintf(buf, len, "%s:%d in %s", base_name(file), line, name ? name : "?");
	else
		snprintf(buf, len, "%s in %s", base_name(file), name ? name : "?");
}

static json_t *py_frames(struct ilog_mcp *m, const struct trace_ctx *c, int64_t pyid, int64_t pid,
			 int64_t max, int *err_oom, char *err, size_t errlen)
{
	char sql[768];
	snprintf(sql, sizeof(sql),
		 "SELECT p.code, p.lasti, k.filename, k.qualname, k.firstlineno, k.linetable,"
		 " k.py_version FROM pyframes p LEFT JOIN pycode k ON k.session_id = p.session_id"
		 " AND k.node = p.node AND k.pid = %lld AND k.code = p.code"
		 " WHERE p.session_id = %lld AND p.pystack_id = %lld ORDER BY p.frame LIMIT %lld",
		 (long long)pid, (long long)c->session, (long long)pyid, (long long)max);
	return frame_list(m, sql, py_text, NULL, "code ", err_oom, err, errlen);
}

/* pystacks.entry (SPEC §5.7); 0 when unknown, also in a database of
 * schema version 1, which has no such column. */
static uint64_t py_entry(struct ilog_mcp *m, const struct trace_ctx *c, int64_t pyid)
{
	char sql[256], e[128];
	snprintf(sql, sizeof(sql),
		 "SELECT entry FROM pystacks WHERE session_id = %lld AND pystack_id = %lld LIMIT 1",
		 (long long)c->session, (long long)pyid);
	sqlite3_stmt *st;
	if (mcp_prepare(m, sql, 0, &st, e, sizeof(e)))
		return 0;
	uint64_t v = mcp_step(m, st, e, sizeof(e)) == SQLITE_ROW ? (uint64_t)sqlite3_column_int64(st, 0)
								: 0;
	sqlite3_finalize(st);
	return v;
}

/* The native and Python frames merged, innermost first: each group of
 * Python frames ("[py] ...") in place of the eval-loop call that ran it
 * (lib/include/ingero/symbolize_map.h ilog_py_place).  NULL when memory ran out. */
static json_t *merged(json_t *nat, const uint8_t *is_eval, json_t *py, uint64_t entry)
{
	unsigned nn = (unsigned)json_array_size(nat), np = (unsigned)json_array_size(py);
	unsigned at[INGERO_MAX_PYFRAMES];
	if (nn > INGERO_MAX_STACK)
		nn = INGERO_MAX_STACK;
	if (np > INGERO_MAX_PYFRAMES)
		np = INGERO_MAX_PYFRAMES;
	ilog_py_place(is_eval, nn, np, entry, at);
	json_t *out = json_array();
	unsigned k = 0;
	int bad = !out;
	for (unsigned i = 0; i <= nn && !bad; i++) {
		int replaced = 0;
		for (; k < np && at[k] == i; k++, replaced = 1)
			bad |= json_array_append_new(out, json_sprintf("[py] %s", json_string_value(
									       json_array_get(py, k))));
		if (i < nn && !replaced)
			bad |= json_array_append(out, json_array_get(nat, i));
	}
	if (bad) {
		json_decref(out);
		return NULL;
	}
	return out;
}

int tool_stacks(struct ilog_mcp *m, const struct trace_ctx *c, const struct trace_filter *f,
		json_t *args, int verbose, struct ilog_buf *text, char *err, size_t errlen)
{
	int rc = MCP_OK;
	json_t *lim = json_object_get(args, "limit"), *fr = json_object_get(args, "frames");
	int64_t limit = lim ? json_integer_value(lim) : 5, frames = fr ? json_integer_value(fr) : 16;
	char sql[768];
	/* Calls with no stack are counted too, so the share of time the
	 * listed stacks explain is honest. */
	int timed = json_object_get(args, "since") || json_object_get(args, "until");
	if (!timed && mcp_has_table(m, "summary_callsites"))
		/* the whole session: the call-site totals the export wrote
		 * (the filter's columns are the summary's too) */
		snprintf(sql, sizeof(sql),
			 "SELECT stack_id, pystack_id, sum(calls) AS n, sum(total_ns) AS t, min(pid),"
			 " max(max_ns) FROM summary_callsites WHERE %s GROUP BY stack_id, pystack_id"
			 " ORDER BY t DESC",
			 f->sql);
	else
		snprintf(sql, sizeof(sql),
			 "SELECT stack_id, pystack_id, count(*) AS n, sum(dur_ns) AS t, min(pid),"
			 " max(dur_ns) FROM events WHERE %s GROUP BY stack_id, pystack_id"
			 " ORDER BY t DESC",
			 f->sql);
	sqlite3_stmt *st;
	if ((rc = trace_prepare(m, sql, f, &st, err, errlen)))
		return rc;
	json_t *list = json_array();
	int64_t shown = 0, nostack_n = 0, nostack_t = 0, total_t = 0, more = 0;
	int s = SQLITE_DONE, oom = !list, failed = 0;
	while (!oom && (s = mcp_step(m, st, err, errlen)) == SQLITE_ROW) {
		int64_t sid = sqlite3_column_int64(st, 0), pyid = sqlite3_column_int64(st, 1);
		int64_t n = sqlite3_column_int64(st, 2), t = sqlite3_column_int64(st, 3);
		int64_t pid = sqlite3_column_int64(st, 4);
		total_t += t;
		if (!sid && !pyid) {
			nostack_n += n;
			nostack_t += t;
			continue;
		}
		if (shown >= limit) {
			more++;
			continue;
		}
		uint8_t is_eval[INGERO_MAX_STACK] = { 0 };
		json_t *nat = sid ? native_frames(m, c, sid, pid, frames, is_eval, &oom, err, errlen)
				  : json_array();
		json_t *py = pyid ? py_frames(m, c, pyid, pid, frames, &oom, err, errlen)
				  : json_array();
		if (!nat || !py) {
			json_decref(nat);
			json_decref(py);
			if (!oom)
				failed = 1; /* a query failed: err says why */
			break;
		}
		json_t *all = merged(nat, is_eval, py, pyid ? py_entry(m, c, pyid) : 0);
		if (!all) {
			json_decref(nat);
			json_decref(py);
			oom = 1;
			break;
		}
		/* "o" steals the arrays, also when packing fails */
		json_t *o = json_pack("{s:I, s:f, s:f, s:I, s:o, s:o, s:o}", "calls", (json_int_t)n,
				      "total_ms", (double)(t / 1000) / 1000.0, "max_us",
				      trace_us((uint64_t)sqlite3_column_int64(st, 5)), "pid",
				      (json_int_t)pid, "python", py, "native", nat, "callstack", all);
		if (!o)
			oom = 1;
		if (o && json_array_append_new(list, o))
			oom = 1;
		shown++;
	}
	sqlite3_finalize(st);
	if (oom) {
		rc = MCP_NOMEM;
		goto out;
	}
	if (failed || (s != SQLITE_DONE && s != SQLITE_ROW)) {
		rc = MCP_TOOL_ERROR;
		goto out;
	}
	const char *op = json_string_value(json_object_get(args, "op"));
	if (verbose) {
		int e = mcp_buf_printf(text, "%s: %lld stacks shown%s; %lld calls (%.1f%% of the "
					     "time) carry no stack\n",
				       op ? op : "all ops", (long long)shown,
				       more ? " (more exist: raise limit)" : "", (long long)nostack_n,
				       total_t ? 100.0 * (double)nostack_t / (double)total_t : 0.0);
		size_t i;
		json_t *o;
		json_array_foreach(list, i, o) {
			e = e || mcp_buf_printf(text, "\n#%zu  %lld calls, %.3f ms total, max %.1f us, "
						      "pid %lld\n",
						i + 1, (long long)json_integer_value(json_object_get(o, "calls")),
						json_real_value(json_object_get(o, "total_ms")),
						json_real_value(json_object_get(o, "max_us")),
						(long long)json_integer_value(json_object_get(o, "pid")));
			size_t k;
			json_t *fv;
			json_array_foreach(json_object_get(o, "callstack"), k, fv) {
				const char *fs = json_string_value(fv);
				int py = fs && !strncmp(fs, "[py] ", 5);
				e = e || mcp_buf_printf(text, "  %s  %s\n", py ? "py" : "at",
							py ? fs + 5 : fs);
			}
		}
		rc = e ? MCP_NOMEM : MCP_OK;
		goto out;
	}
	json_t *res = json_pack("{s:I, s:s, s:O, s:I, s:f}", "session", (json_int_t)c->seq, "op",
				op ? op : "*", "stacks", list, "no_stack_calls", (json_int_t)nostack_n,
				"no_stack_time_pct",
				total_t ? (double)(int)(1000.0 * (double)nostack_t / (double)total_t) / 10.0
					: 0.0);
	if (res && more)
		json_object_set_new(res, "more_stacks", json_integer(more));
	rc = !res || mcp_buf_json(text, res) ? MCP_NOMEM : MCP_OK;
	json_decref(res);
out:
	json_decref(list);
	return rc;
}
