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

/* A statement in *st, after finalizing the one there.  0 or -1. */
static int prepare(struct ilog_sink_ctx *c, struct sq *s, const char *sql, sqlite3_stmt **st)
{
	sqlite3_finalize(*st);
	*st = NULL;
	return sqlite3_prepare_v2(s->db, sql, -1, st, NULL) == SQLITE_OK ? 0
									 : ilog_sq_err(c, s, "prepare");
}

struct sum_ctx {
	struct ilog_sink_ctx *c;
	struct sq *s;
	sqlite3_stmt *st;
};

static int put_callsite(void *arg, const struct ilog_callpath *p)
{
	struct sum_ctx *x = arg;
	int op = ilog_sq_db_op(x->c, x->s, p->op);
	if (op < 0)
		return -1;
	BIS(x->st, 1, 0, x->s->session, p->node, p->pid, op, (int64_t)p->stack_id,
	    (int64_t)p->pystack_id, (int64_t)p->calls, (int64_t)p->ns, (int64_t)p->max_ns);
	return ilog_sq_step(x->c, x->s, x->st);
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
			BIS(st, k, 0, wall_of(s, r->node, r->start_ns), wall_of(s, r->node, r->end_ns),
			    (int64_t)r->count, (int64_t)r->total_ns);
			BD(st, k + 4, r->frac);
			BIS(st, k + 5, 0, (int64_t)r->min_ns, (int64_t)r->p50_ns, (int64_t)r->p95_ns,
			    (int64_t)r->p99_ns, (int64_t)r->max_ns);
		} else {
			BIS(st, k, 0, (int64_t)r->count, (int64_t)r->total_ns, (int64_t)r->min_ns,
			    (int64_t)r->max_ns, (int64_t)r->p50_ns, (int64_t)r->p95_ns,
			    (int64_t)r->p99_ns, (int64_t)r->errors, (int64_t)r->bytes);
			BD(st, k + 9, r->frac);
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
	if (prepare(c, s, "INSERT INTO summary_nodes VALUES(?,?,?,?,?,?,?,?,?,?,?)", &st))
		goto out;
	for (uint32_t i = 0; i < ilog_stats_nnodes(s->stats); i++) {
		struct ilog_stats_summary n;
		ilog_stats_summary(s->stats, i, &n);
		BIS(st, 1, 0, s->session, n.node, wall_of(s, n.node, n.start_ns),
		    wall_of(s, n.node, n.end_ns), (int64_t)n.window_ns, n.nwindows,
		    (int64_t)n.records, (int64_t)n.cuda, (int64_t)n.host, (int64_t)n.processes,
		    (int64_t)n.lost);
		if (ilog_sq_step(c, s, st))
			goto out;
	}
	for (int k = 0; k < 4; k++)
		if (put_stat_rows(c, s, k & 1, k >> 1))
			goto out;
	if (prepare(c, s, "INSERT INTO summary_callsites VALUES(?,?,?,?,?,?,?,?,?)", &st))
		goto out;
	struct sum_ctx x = { c, s, st };
	if (ilog_callsites_each(ilog_analysis_sites(s->an), put_callsite, &x))
		goto out;
	if (ilog_sq_ranks(c, s) || ilog_sq_steps(c, s))
		goto out;
	if (prepare(c, s, ILOG_SQ_PREEMPT_SUMMARY(" AND session_id = ?"), &st))
		goto out;
	BI(st, 1, s->session);
	if (ilog_sq_step(c, s, st) ||
	    prepare(c, s, "INSERT INTO summary_graph_execs VALUES(?,?,?,?,?,?,?,?,?)", &st))
		goto out;
	for (uint32_t i = 0; i < s->feed->nexecs; i++) {
		const struct graph_exec *g = &s->feed->execs[i];
		/* no launch: no launch times */
		BIS(st, 1, g->launches ? 0 : 3u << 6, s->session, g->ord, g->pid, (int64_t)g->handle,
		    (int64_t)g->instantiations, (int64_t)g->launches, g->first_ts, g->last_ts,
		    (int64_t)g->launch_ns);
		if (ilog_sq_step(c, s, st))
			goto out;
	}
	if (prepare(c, s, "INSERT INTO summary_graph_lifecycle VALUES(?,?,?,?,?,?,?,?,?,?)", &st))
		goto out;
	for (uint32_t i = 0; i < s->feed->nlives; i++) {
		const struct graph_life *l = &s->feed->lives[i];
		uint64_t recaptures = 0;
		for (int k = 0; k < l->nstreams; k++)
			recaptures += l->stream_caps[k] > 1 ? (uint64_t)l->stream_caps[k] - 1 : 0;
		/* lives[0] is the whole session's: no pid */
		BIS(st, 1, i ? 0 : 1u << 1, s->session, l->pid, (int64_t)l->calls,
		    (int64_t)l->captures, (int64_t)recaptures, (int64_t)l->instantiations,
		    (int64_t)l->instantiate_ns, (int64_t)l->launches, (int64_t)l->failed,
		    (int64_t)l->capture_ns);
		if (ilog_sq_step(c, s, st))
			goto out;
	}
	rc = 0;
out:
	sqlite3_finalize(st);
	return rc;
}
