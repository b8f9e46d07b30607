// SPDX-License-Identifier: MIT
/*
 * The SQLite sink's summary tables, written at close from what the rows
 * fed (feed.c): statistics, call sites, preemptions, CUDA Graph execs and
 * lifecycles, and the chains ingero-correlate would add.
 */
#include <stdlib.h>
#include <string.h>
#include "sqlite.h"

static int64_t wall_of(struct sq *s, uint32_t node, uint64_t mono)
{
	return mono ? (int64_t)ilog_stats_wall(s->stats, node, mono) : 0;
}

struct sum_ctx {
	struct ilog_sink_ctx *c;
	struct sq *s;
	sqlite3_stmt *st;
};

static int put_callsite(void *arg, const struct ilog_callpath *p)
{
	struct sum_ctx *x = arg;
	sqlite3_stmt *st = x->st;
	BI(st, 1, x->s->session);
	BI(st, 2, p->node);
	BI(st, 3, p->pid);
	int op = ilog_sq_db_op(x->c, x->s, p->op);
	if (op < 0)
		return -1;
	BI(st, 4, op);
	BI(st, 5, p->stack_id);
	BI(st, 6, p->pystack_id);
	BI(st, 7, p->calls);
	BI(st, 8, p->ns);
	BI(st, 9, p->max_ns);
	return ilog_sq_step(x->c, x->s, st);
}

/* Statistics rows (whole run or per window, per node or per process)
 * into their summary table. */
static int put_stat_rows(struct ilog_sink_ctx *c, struct sq *s, int per_process, int windows)
{
	static const char *const sql[2][2] = {
		{ "INSERT INTO summary_ops VALUES(?,?,?,?,?,?,?,?,?,?,?,?,?,?)",
		  "INSERT INTO summary_windows VALUES(?,?,?,?,?,?,?,?,?,?,?,?,?,?)" },
		{ "INSERT INTO summary_process_ops VALUES(?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?)",
		  "INSERT INTO summary_process_windows VALUES(?,?,?,?,?,?,?,?,?,?,?,?,?,?,?)" },
	};
	struct ilog_stat_row *rows;
	int n = windows ? ilog_stats_window_rows(s->stats, per_process, &rows)
			: ilog_stats_rows(s->stats, per_process, &rows);
	if (n < 0) {
		snprintf(c->err, sizeof(c->err), "out of memory");
		return -1;
	}
	sqlite3_stmt *st;
	if (sqlite3_prepare_v2(s->db, sql[per_process][windows], -1, &st, NULL) != SQLITE_OK) {
		free(rows);
		return ilog_sq_err(c, s, "prepare");
	}
	int rc = 0;
	for (int i = 0; i < n && !rc; i++) {
		const struct ilog_stat_row *r = &rows[i];
		int k = 1;
		BI(st, k++, s->session);
		BI(st, k++, r->node);
		if (per_process)
			BI(st, k++, r->pid);
		if (per_process && !windows)
			sqlite3_bind_text(st, k++, r->comm ? r->comm : "", -1, SQLITE_STATIC);
		BI(st, k++, r->layer);
		int op = ilog_sq_db_op(c, s, r->op);
		if (op < 0) {
			rc = -1;
			break;
		}
		BI(st, k++, op);
		if (windows) {
			BI(st, k++, wall_of(s, r->node, r->start_ns));
			BI(st, k++, wall_of(s, r->node, r->end_ns));
			BI(st, k++, r->count);
			BI(st, k++, r->total_ns);
			BD(st, k++, r->frac);
			BI(st, k++, r->min_ns);
			BI(st, k++, r->p50_ns);
			BI(st, k++, r->p95_ns);
			BI(st, k++, r->p99_ns);
			BI(st, k++, r->max_ns);
		} else {
			BI(st, k++, r->count);
			BI(st, k++, r->total_ns);
			BI(st, k++, r->min_ns);
			BI(st, k++, r->max_ns);
			BI(st, k++, r->p50_ns);
			BI(st, k++, r->p95_ns);
			BI(st, k++, r->p99_ns);
			BI(st, k++, r->errors);
			BI(st, k++, r->bytes);
			BD(st, k++, r->frac);
		}
		rc = ilog_sq_step(c, s, st);
	}
	sqlite3_finalize(st);
	free(rows);
	return rc;
}

/*
 * The session's summaries: per node, per (node, layer, op) and per
 * process, the same per time window, call sites, preemptions, and -- for
 * a log without chain records -- the chains ingero-correlate would add.
 */
int ilog_sq_summaries(struct ilog_sink_ctx *c, struct sq *s)
{
	sqlite3_stmt *st = NULL;
	int rc = -1;
	const struct ilog_chain_set *cs = ilog_sq_analysis_finish(c, s);
	if (!cs)
		return -1;
	for (uint32_t i = 0; i < cs->n; i++) {
		const struct ilog_chain *ch = &cs->chains[i];
		struct sq_wall w = { .stats = s->stats, .node = cs->nodes[i] };
		if (ilog_sq_put_row(c, s, ILOG_K_CHAIN, (int)cs->nodes[i], ch, &w))
			goto out;
	}
	if (sqlite3_prepare_v2(s->db, "INSERT INTO summary_nodes VALUES(?,?,?,?,?,?,?,?,?,?,?)",
			       -1, &st, NULL) != SQLITE_OK) {
		ilog_sq_err(c, s, "prepare");
		goto out;
	}
	for (uint32_t i = 0; i < ilog_stats_nnodes(s->stats); i++) {
		struct ilog_stats_summary n;
		ilog_stats_summary(s->stats, i, &n);
		BI(st, 1, s->session);
		BI(st, 2, n.node);
		BI(st, 3, wall_of(s, n.node, n.start_ns));
		BI(st, 4, wall_of(s, n.node, n.end_ns));
		BI(st, 5, n.window_ns);
		BI(st, 6, n.nwindows);
		BI(st, 7, n.records);
		BI(st, 8, n.cuda);
		BI(st, 9, n.host);
		BI(st, 10, n.processes);
		BI(st, 11, n.lost);
		if (ilog_sq_step(c, s, st))
			goto out;
	}
	sqlite3_finalize(st);
	st = NULL;
	for (int k = 0; k < 4; k++)
		if (put_stat_rows(c, s, k & 1, k >> 1))
			goto out;
	if (sqlite3_prepare_v2(s->db, "INSERT INTO summary_callsites VALUES(?,?,?,?,?,?,?,?,?)", -1,
			       &st, NULL) != SQLITE_OK) {
		ilog_sq_err(c, s, "prepare");
		goto out;
	}
	struct sum_ctx x = { c, s, st };
	if (ilog_callsites_each(ilog_analysis_sites(s->an), put_callsite, &x))
		goto out;
	sqlite3_finalize(st);
	st = NULL;
	if (sqlite3_prepare_v2(s->db, ILOG_SQ_PREEMPT_SUMMARY(" AND session_id = ?"), -1, &st, NULL) !=
	    SQLITE_OK) {
		ilog_sq_err(c, s, "prepare");
		goto out;
	}
	BI(st, 1, s->session);
	if (ilog_sq_step(c, s, st))
		goto out;
	sqlite3_finalize(st);
	if (sqlite3_prepare_v2(s->db, "INSERT INTO summary_graph_execs VALUES(?,?,?,?,?,?,?,?,?)",
			       -1, &st, NULL) != SQLITE_OK) {
		st = NULL;
		ilog_sq_err(c, s, "prepare");
		goto out;
	}
	for (uint32_t i = 0; i < s->feed->nexecs; i++) {
		const struct graph_exec *g = &s->feed->execs[i];
		BI(st, 1, s->session);
		BI(st, 2, g->ord);
		BI(st, 3, g->pid);
		BI(st, 4, g->handle);
		BI(st, 5, g->instantiations);
		BI(st, 6, g->launches);
		if (g->launches) {
			BI(st, 7, g->first_ts);
			BI(st, 8, g->last_ts);
		} else {
			sqlite3_bind_null(st, 7);
			sqlite3_bind_null(st, 8);
		}
		BI(st, 9, g->launch_ns);
		if (ilog_sq_step(c, s, st))
			goto out;
	}
	sqlite3_finalize(st);
	if (sqlite3_prepare_v2(s->db, "INSERT INTO summary_graph_lifecycle"
			       " VALUES(?,?,?,?,?,?,?,?,?,?)", -1, &st, NULL) != SQLITE_OK) {
		st = NULL;
		ilog_sq_err(c, s, "prepare");
		goto out;
	}
	for (uint32_t i = 0; i < s->feed->nlives; i++) {
		const struct graph_life *l = &s->feed->lives[i];
		uint64_t recaptures = 0;
		for (int k = 0; k < l->nstreams; k++)
			recaptures += l->stream_caps[k] > 1 ? (uint64_t)l->stream_caps[k] - 1 : 0;
		BI(st, 1, s->session);
		if (i)
			BI(st, 2, l->pid);
		else
			sqlite3_bind_null(st, 2);
		BI(st, 3, l->calls);
		BI(st, 4, l->captures);
		BI(st, 5, recaptures);
		BI(st, 6, l->instantiations);
		BI(st, 7, l->instantiate_ns);
		BI(st, 8, l->launches);
		BI(st, 9, l->failed);
		BI(st, 10, l->capture_ns);
		if (ilog_sq_step(c, s, st))
			goto out;
	}
	rc = 0;
out:
	sqlite3_finalize(st);
	return rc;
}
