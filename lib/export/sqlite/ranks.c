// SPDX-License-Identifier: MIT
/*
 * The SQLite sink's multi-rank tables (schema 6, docs/schema.md): a row per
 * finished collective of each communicator with an identity (`collectives`)
 * and a row per rank of it (`summary_ranks`), and the view `rank_skew`
 * over the latter, written at close from the analysis's ranks
 * (ingero/stats.h: ilog_stats_collectives, ilog_stats_ranks).  Times are
 * on the job's common timeline (wall clock ns).
 */
#include <stdio.h>
#include <stdlib.h>
#include "sqlite.h"

const char ilog_sq_ranks_ddl[] =
	"CREATE TABLE IF NOT EXISTS collectives("
	" session_id INTEGER NOT NULL, comm TEXT NOT NULL, seq INTEGER NOT NULL, op INTEGER,"
	" nranks INTEGER, last_rank INTEGER, last_node INTEGER, last_pid INTEGER,"
	" first_ts INTEGER, last_but_one_ts INTEGER, last_ts INTEGER, done_ts INTEGER,"
	" skew_ns INTEGER, lead_ns INTEGER, wait_ns INTEGER);\n"
	"CREATE TABLE IF NOT EXISTS summary_ranks("
	" session_id INTEGER NOT NULL, comm TEXT NOT NULL, nranks INTEGER, rank INTEGER,"
	" node INTEGER, pid INTEGER, collectives INTEGER, last_count INTEGER,"
	" late_mean_ns INTEGER, late_max_ns INTEGER, held_ns INTEGER, steps_per_s REAL);\n"
	"CREATE VIEW IF NOT EXISTS rank_skew AS"
	" SELECT r.*, round(100.0 * r.last_count / max(r.collectives, 1), 1) AS last_pct"
	" FROM summary_ranks r;\n";

struct coll_ctx {
	struct ilog_sink_ctx *c;
	struct sq *s;
	sqlite3_stmt *st;
};

static int put_coll(void *arg, const struct ilog_coll_row *r)
{
	struct coll_ctx *x = arg;
	char id[24];
	snprintf(id, sizeof(id), "%016llx", (unsigned long long)r->comm);
	BI(x->st, 1, x->s->session);
	sqlite3_bind_text(x->st, 2, id, -1, SQLITE_TRANSIENT);
	BIS(x->st, 3, r->done_ns ? 0 : 1u << 9, (int64_t)r->seq, r->op, r->nranks, r->last_rank,
	    r->last_node, r->last_pid, (int64_t)r->first_ns, (int64_t)r->second_ns,
	    (int64_t)r->last_ns, (int64_t)r->done_ns, (int64_t)(r->last_ns - r->first_ns),
	    (int64_t)(r->last_ns - r->second_ns), (int64_t)r->wait_ns);
	return ilog_sq_step(x->c, x->s, x->st);
}

int ilog_sq_ranks(struct ilog_sink_ctx *c, struct sq *s)
{
	sqlite3_stmt *st = NULL;
	struct ilog_rank_row *r = NULL;
	int rc = -1, n = ilog_stats_ranks(s->stats, &r);
	if (n < 0) {
		snprintf(c->err, sizeof(c->err), "out of memory");
		return -1;
	}
	if (!n)
		return 0;
	if (sqlite3_prepare_v2(s->db, "INSERT INTO collectives VALUES(?,?,?,?,?,?,?,?,?,?,?,?,?,?,?)",
			       -1, &st, NULL) != SQLITE_OK) {
		ilog_sq_err(c, s, "prepare");
		goto out;
	}
	struct coll_ctx x = { c, s, st };
	if (ilog_stats_collectives(s->stats, put_coll, &x))
		goto out;
	sqlite3_finalize(st);
	if (sqlite3_prepare_v2(s->db, "INSERT INTO summary_ranks VALUES(?,?,?,?,?,?,?,?,?,?,?,?)",
			       -1, &st, NULL) != SQLITE_OK) {
		st = NULL;
		ilog_sq_err(c, s, "prepare");
		goto out;
	}
	for (int i = 0; i < n; i++) {
		char id[24];
		snprintf(id, sizeof(id), "%016llx", (unsigned long long)r[i].comm);
		BI(st, 1, s->session);
		sqlite3_bind_text(st, 2, id, -1, SQLITE_TRANSIENT);
		BIS(st, 3, r[i].pid ? 0 : 0x1fc, r[i].nranks, r[i].rank, r[i].node, r[i].pid,
		    (int64_t)r[i].collectives, (int64_t)r[i].last, (int64_t)r[i].late_mean_ns,
		    (int64_t)r[i].late_max_ns, (int64_t)r[i].held_ns);
		if (r[i].pid)
			BD(st, 12, r[i].rate_hz);
		else
			sqlite3_bind_null(st, 12);
		if (ilog_sq_step(c, s, st))
			goto out;
	}
	rc = 0;
out:
	sqlite3_finalize(st);
	free(r);
	return rc;
}
