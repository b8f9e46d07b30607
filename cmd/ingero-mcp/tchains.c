// SPDX-License-Identifier: MIT
/*
 * get_causal_chains: the chains ingero-correlate computed (chain records,
 * exported to the chains table), ranked and deduplicated for a model.
 *
 * Dedup rule: chains with the same pattern, process, op and culprit are
 * one explanation seen in several intervals; they are merged into the
 * strongest of them (highest severity, then score), with the count, the
 * union of the time ranges and the summed lost time.  Ranking: severity,
 * then lost time (when the schema has it), then score.
 *
 * Columns are looked up by name, so chain fields added later (SPEC:
 * append-only) show up without a change here.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "ingero/vec.h"
#include "mcp_trace.h"

struct chain {
	json_t *row;              /* name -> value, what is output */
	int64_t sev, pid, op, culprit, ts0, ts1, lost;
	double score;
	const char *pattern;
	uint64_t merged;
};

static int64_t jint(json_t *o, const char *k)
{
	json_t *v = json_object_get(o, k);
	return json_is_integer(v) ? json_integer_value(v) : json_is_real(v) ? (int64_t)json_real_value(v) : 0;
}

static int rank_cmp(const void *a, const void *b)
{
	const struct chain *x = a, *y = b;
	if (x->sev != y->sev)
		return x->sev > y->sev ? -1 : 1;
	if (x->lost != y->lost)
		return x->lost > y->lost ? -1 : 1;
	if (x->score != y->score)
		return x->score > y->score ? -1 : 1;
	return x->ts0 < y->ts0 ? -1 : x->ts0 > y->ts0;
}

static int same(const struct chain *a, const struct chain *b)
{
	return a->pid == b->pid && a->op == b->op && a->culprit == b->culprit &&
	       !strcmp(a->pattern, b->pattern);
}

int tool_causal_chains(struct ilog_mcp *m, json_t *args, int verbose, struct ilog_buf *text,
		       char *err, size_t errlen)
{
	struct trace_ctx c;
	int rc = trace_session_for(m, args, "chains",
				   "this database has no chains table (export it with a newer "
				   "ingero-export)",
				   &c, err, errlen);
	if (rc)
		return rc;
	char sql[256];
	snprintf(sql, sizeof(sql), "SELECT * FROM chains WHERE session_id = %lld",
		 (long long)c.session);
	sqlite3_stmt *st;
	if ((rc = mcp_prepare(m, sql, 0, &st, err, errlen)))
		return rc;
	int64_t minsev = 0, want_pid = json_integer_value(json_object_get(args, "pid"));
	const char *ms = json_string_value(json_object_get(args, "min_severity"));
	for (int64_t k = 0; ms && k <= ILOG_SEV_HIGH; k++)
		if (!strcmp(ms, ilog_severity_name((uint32_t)k)))
			minsev = k;
	int with_evidence = verbose || json_is_true(json_object_get(args, "evidence"));
	struct chain *ch = NULL;
	size_t n = 0, total = 0;
	uint32_t cap = 0;
	int s, ncol = sqlite3_column_count(st);
	while ((s = mcp_step(m, st, err, errlen)) == SQLITE_ROW) {
		json_t *row = json_object();
		if (!row)
			goto oom;
		for (int i = 0; i < ncol; i++) {
			const char *name = sqlite3_column_name(st, i);
			if (!strcmp(name, "session_id") || !strcmp(name, "node") ||
			    !strcmp(name, "chain_id") || (!with_evidence && !strcmp(name, "evidence")) ||
			    sqlite3_column_type(st, i) == SQLITE_NULL)
				continue;
			json_t *v = mcp_column_json(st, i, with_evidence ? 8192 : 1024);
			if (!v || json_object_set_new(row, name, v)) {
				json_decref(row);
				goto oom;
			}
		}
		struct chain k = { .row = row, .merged = 1 };
		k.sev = jint(row, "severity");
		k.pid = jint(row, "pid");
		k.op = jint(row, "op");
		k.culprit = jint(row, "culprit_pid");
		k.ts0 = jint(row, "ts_start");
		k.ts1 = jint(row, "ts_end");
		k.lost = jint(row, "lost_ns");
		k.score = json_number_value(json_object_get(row, "score"));
		k.pattern = json_string_value(json_object_get(row, "pattern"));
		if (!k.pattern)
			k.pattern = "";
		total++;
		if (k.sev < minsev || (want_pid && k.pid != want_pid && k.culprit != want_pid)) {
			json_decref(row);
			continue;
		}
		size_t j;
		for (j = 0; j < n && !same(&ch[j], &k); j++)
			;
		if (j < n) {
			struct chain *d = &ch[j];
			int64_t lost = d->lost + k.lost, ts0 = d->ts0 < k.ts0 ? d->ts0 : k.ts0;
			int64_t ts1 = d->ts1 > k.ts1 ? d->ts1 : k.ts1;
			uint64_t merged = d->merged + 1;
			if (rank_cmp(&k, d) < 0) { /* the stronger one speaks */
				json_decref(d->row);
				*d = k;
			} else {
				json_decref(k.row);
			}
			d->lost = lost;
			d->ts0 = ts0;
			d->ts1 = ts1;
			d->merged = merged;
			continue;
		}
		if (ilog_grow((void **)&ch, &cap, n, sizeof(*ch), 16)) {
			json_decref(row);
			goto oom;
		}
		ch[n++] = k;
	}
	sqlite3_finalize(st);
	st = NULL;
	if (s != SQLITE_DONE) {
		rc = MCP_TOOL_ERROR;
		goto out;
	}
	if (n)
		qsort(ch, n, sizeof(*ch), rank_cmp);
	json_t *lim = json_object_get(args, "limit");
	size_t show = lim ? (size_t)json_integer_value(lim) : 5;
	if (show > n)
		show = n;
	if (!total) {
		snprintf(err, errlen, "no causal chains in session %lld: run `ingero-correlate` on "
				      "the log and export its output, or serve the log itself "
				      "(`ingero-mcp run.ilog`), which correlates while loading",
			 (long long)c.seq);
		rc = MCP_TOOL_ERROR;
		goto out;
	}
	/* Present names and times relative to the session start; the raw
	 * numbers stay available through run_sql. */
	json_t *list = json_array();
	int e = !list;
	for (size_t i = 0; !e && i < show; i++) {
		json_t *r = ch[i].row;
		json_object_set_new(r, "severity", json_string(ilog_severity_name((uint32_t)ch[i].sev)
								  ? ilog_severity_name((uint32_t)ch[i].sev)
								  : "?"));
		if (json_object_get(r, "op") && ch[i].op) /* op 0: not about one op */
			json_object_set_new(r, "op", json_string(trace_op_name(ch[i].op)));
		else
			json_object_del(r, "op");
		/* evidence is JSON text: embed it as JSON, no second escaping */
		json_t *ev = json_object_get(r, "evidence");
		if (json_is_string(ev)) {
			json_t *parsed = json_loads(json_string_value(ev), 0, NULL);
			if (parsed)
				json_object_set_new(r, "evidence", parsed);
		}
		json_object_del(r, "ts_start");
		json_object_del(r, "ts_end");
		json_object_set_new(r, "t_s", json_pack("[f, f]", trace_s(ch[i].ts0 - c.first_ts),
							trace_s(ch[i].ts1 - c.first_ts)));
		if (json_object_get(r, "lost_ns")) {
			json_object_del(r, "lost_ns");
			json_object_set_new(r, "lost_ms", json_real((double)(ch[i].lost / 1000) / 1000.0));
		}
		if (ch[i].merged > 1)
			json_object_set_new(r, "merged", json_integer((json_int_t)ch[i].merged));
		if (verbose) {
			const char *title = json_string_value(json_object_get(r, "title"));
			const char *cause = json_string_value(json_object_get(r, "root_cause"));
			const char *fix = json_string_value(json_object_get(r, "fix"));
			e = mcp_buf_printf(text, "%zu. [%s] %s (pid %lld, %.3f-%.3f s%s)\n",
					   i + 1, json_string_value(json_object_get(r, "severity")),
					   title ? title : json_string_value(json_object_get(r, "pattern")),
					   (long long)ch[i].pid, trace_s(ch[i].ts0 - c.first_ts),
					   trace_s(ch[i].ts1 - c.first_ts),
					   ch[i].merged > 1 ? ", seen in several intervals" : "");
			if (!e && cause)
				e = mcp_buf_printf(text, "   cause: %s\n", cause);
			if (!e && fix)
				e = mcp_buf_printf(text, "   fix: %s\n", fix);
		} else {
			e = json_array_append(list, r);
		}
	}
	if (!e && verbose && show < n)
		e = mcp_buf_printf(text, "(%zu more; raise limit)\n", n - show);
	if (!e && !verbose) {
		json_t *o = json_pack("{s:I, s:I, s:I, s:O}", "session", (json_int_t)c.seq, "found",
				      (json_int_t)total, "distinct", (json_int_t)n, "chains", list);
		e = !o || mcp_buf_json(text, o);
		json_decref(o);
	}
	json_decref(list);
	if (!e && verbose && !n)
		e = mcp_buf_printf(text, "no chains match the filters (%zu in the session)\n", total);
	rc = e ? MCP_NOMEM : MCP_OK;
	goto out;
oom:
	rc = MCP_NOMEM;
out:
	sqlite3_finalize(st);
	for (size_t i = 0; i < n; i++)
		json_decref(ch[i].row);
	free(ch);
	return rc;
}
