// SPDX-License-Identifier: MIT
/*
 * The SQLite sink's training-step tables (schema 7, docs/schema.md): per
 * process with steps a row of `summary_steps` (how the step was found, its
 * durations), a row per step (`steps`), a row per (op, call site) of its
 * steps with its calls and time per step (`step_sites`), and what each kept
 * step called (`step_ops`: the first 1,024 steps and the 16 slowest),
 * written at close from the analysis (ingero/stats.h: ilog_stats_step_*).
 */
#include <stdio.h>
#include <stdlib.h>
#include "sqlite.h"

const char ilog_sq_steps_ddl[] =
	"CREATE TABLE IF NOT EXISTS summary_steps("
	" session_id INTEGER NOT NULL, node INTEGER, pid INTEGER, comm TEXT, rule TEXT,"
	" marker_op INTEGER, per_step INTEGER, steps INTEGER, start_ts INTEGER, end_ts INTEGER,"
	" p50_ns INTEGER, p90_ns INTEGER, min_ns INTEGER, max_ns INTEGER, mean_ns INTEGER);\n"
	"CREATE TABLE IF NOT EXISTS steps("
	" session_id INTEGER NOT NULL, node INTEGER, pid INTEGER, step INTEGER,"
	" start_ts INTEGER, end_ts INTEGER, dur_ns INTEGER, calls INTEGER, cuda_ns INTEGER);\n"
	"CREATE TABLE IF NOT EXISTS step_sites("
	" session_id INTEGER NOT NULL, node INTEGER, pid INTEGER, site INTEGER, op INTEGER,"
	" call_site TEXT, stack_id INTEGER, pystack_id INTEGER, steps INTEGER, calls INTEGER,"
	" total_ns INTEGER, calls_per_step REAL, ns_per_step REAL);\n"
	"CREATE TABLE IF NOT EXISTS step_ops("
	" session_id INTEGER NOT NULL, node INTEGER, pid INTEGER, step INTEGER, site INTEGER,"
	" calls INTEGER, ns INTEGER);\n";

static int64_t wall(struct sq *s, uint32_t node, uint64_t mono)
{
	uint64_t w = ilog_stats_wall(s->stats, node, mono);
	return (int64_t)(w ? w : mono);
}

static int prep(struct ilog_sink_ctx *c, struct sq *s, const char *sql, sqlite3_stmt **st)
{
	return sqlite3_prepare_v2(s->db, sql, -1, st, NULL) == SQLITE_OK ? 0
		: ilog_sq_err(c, s, "prepare");
}

/* One process's rows of steps, step_sites and step_ops. */
static int proc_rows(struct ilog_sink_ctx *c, struct sq *s, const struct ilog_step_proc *p,
		     sqlite3_stmt *const st[3])
{
	struct ilog_step_site *ss;
	int n = ilog_stats_step_sites(s->stats, p->node, p->pid, &ss);
	if (n < 0) {
		snprintf(c->err, sizeof(c->err), "out of memory");
		return -1;
	}
	int rc = -1;
	for (int i = 0; i < n; i++) {
		char site[512];
		ilog_callsites_describe(ilog_analysis_sites(s->an), p->node, p->pid, ss[i].op,
					ss[i].stack_id, ss[i].pystack_id, site, sizeof(site));
		BIS(st[0], 1, 0, s->session, p->node, p->pid, ss[i].site,
		    ilog_sq_db_op(c, s, ss[i].op));
		sqlite3_bind_text(st[0], 6, site, -1, SQLITE_TRANSIENT);
		BIS(st[0], 7, 0, (int64_t)ss[i].stack_id, (int64_t)ss[i].pystack_id, ss[i].steps,
		    (int64_t)ss[i].calls, (int64_t)ss[i].ns);
		BD(st[0], 12, ss[i].calls_per_step);
		BD(st[0], 13, ss[i].ns_per_step);
		if (ilog_sq_step(c, s, st[0]))
			goto out;
	}
	for (uint32_t i = 0; i < p->nsteps; i++) {
		struct ilog_step_row r;
		if (ilog_stats_step(s->stats, p->node, p->pid, i, &r))
			break;
		BIS(st[1], 1, 0, s->session, p->node, p->pid, i, wall(s, p->node, r.start_ns),
		    wall(s, p->node, r.end_ns), (int64_t)(r.end_ns - r.start_ns), (int64_t)r.calls,
		    (int64_t)r.cuda_ns);
		if (ilog_sq_step(c, s, st[1]))
			goto out;
		const struct ilog_step_op *ops;
		uint32_t m = ilog_stats_step_ops(s->stats, p->node, p->pid, i, &ops);
		for (uint32_t k = 0; k < m; k++) {
			BIS(st[2], 1, 0, s->session, p->node, p->pid, i, ops[k].site, ops[k].calls,
			    (int64_t)ops[k].ns);
			if (ilog_sq_step(c, s, st[2]))
				goto out;
		}
	}
	rc = 0;
out:
	free(ss);
	return rc;
}

int ilog_sq_steps(struct ilog_sink_ctx *c, struct sq *s)
{
	struct ilog_step_proc *p;
	int n = ilog_stats_step_procs(s->stats, &p), rc = -1;
	if (n < 0) {
		snprintf(c->err, sizeof(c->err), "out of memory");
		return -1;
	}
	if (!n)
		return 0;
	sqlite3_stmt *sum = NULL, *st[3] = { NULL, NULL, NULL };
	if (prep(c, s, "INSERT INTO summary_steps VALUES(?,?,?,?,?,?,?,?,?,?,?,?,?,?,?)", &sum) ||
	    prep(c, s, "INSERT INTO step_sites VALUES(?,?,?,?,?,?,?,?,?,?,?,?,?)", &st[0]) ||
	    prep(c, s, "INSERT INTO steps VALUES(?,?,?,?,?,?,?,?,?)", &st[1]) ||
	    prep(c, s, "INSERT INTO step_ops VALUES(?,?,?,?,?,?,?)", &st[2]))
		goto out;
	for (int i = 0; i < n; i++) {
		BIS(sum, 1, 0, s->session, p[i].node, p[i].pid);
		sqlite3_bind_text(sum, 4, p[i].comm, -1, SQLITE_TRANSIENT);
		sqlite3_bind_text(sum, 5, ilog_step_rule_name(p[i].rule), -1, SQLITE_STATIC);
		BIS(sum, 6, 0, ilog_sq_db_op(c, s, p[i].marker), p[i].per_step, p[i].nsteps,
		    wall(s, p[i].node, p[i].first_ns), wall(s, p[i].node, p[i].last_ns),
		    (int64_t)p[i].p50_ns, (int64_t)p[i].p90_ns, (int64_t)p[i].min_ns,
		    (int64_t)p[i].max_ns, (int64_t)p[i].mean_ns);
		if (ilog_sq_step(c, s, sum) || proc_rows(c, s, &p[i], st))
			goto out;
	}
	rc = 0;
out:
	sqlite3_finalize(sum);
	for (int i = 0; i < 3; i++)
		sqlite3_finalize(st[i]);
	free(p);
	return rc;
}
