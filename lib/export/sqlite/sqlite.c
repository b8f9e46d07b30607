// SPDX-License-Identifier: MIT
/*
 * --format sqlite: the log as relational tables (docs/schema.md is the
 * contract; its column names and types are chosen to load 1:1 into a
 * column store for fleets).  One export run is one session: it appends to
 * an existing ingero database and never rewrites what is there.
 *
 * The rows also feed the analysis of ingero-correlate (lib/analyze's
 * driver: statistics, call sites, causal engine, with the caller's
 * options), on a second thread (struct feed); at close its results go into
 * the summary tables the views read.
 *
 * Speed (bench/sqlite): prepared statements with positional binds and
 * static text; events inserted BATCH rows per statement (the per-statement
 * VM start, halt and reset paid once per batch); everything in one
 * transaction; the connection opened NOMUTEX and allocation statistics off
 * (both take a mutex per call otherwise); secondary indexes built once
 * after the load on a new database.  Pragmas, and why:
 *   page_size=16384      new databases only; measured against 4K-64K on
 *                        the events table, 16K made the load and the
 *                        index builds cheapest;
 *   journal_mode=DELETE  the rollback journal stays: a failed or killed
 *                        append leaves the earlier sessions as they were.
 *                        It costs little, because pages added past the old
 *                        end of the file are never journaled;
 *   synchronous=OFF      on a new database: an OS crash mid-export can
 *                        leave it damaged, and the log it came from (the
 *                        source of truth) makes it again;
 *   synchronous=NORMAL   when appending: earlier sessions survive an OS
 *                        crash too; one transaction means one commit, so
 *                        that is a few fsyncs per export;
 *   cache_size=-262144   up to 256 MiB of page cache for index pages;
 *   temp_store=MEMORY    the sorter that builds indexes works in memory;
 *   locking_mode=EXCLUSIVE  one writer, no lock traffic per statement.
 */
#include <stdlib.h>
#include <string.h>
#include "ingero/export.h"
#include "sqlite.h"

/* Statements, connection and state; an open transaction is rolled back. */
static void sq_free(struct sq *s)
{
	for (int i = 0; i < S__COUNT; i++)
		sqlite3_finalize(s->st[i]);
	for (int k = 0; k < ILOG_K__COUNT && s->k; k++) {
		sqlite3_finalize(s->k[k].st);
		sqlite3_finalize(s->k[k].rst);
	}
	free(s->k);
	sqlite3_finalize(s->batch);
	if (s->db)
		sqlite3_close(s->db); /* uncommitted work is rolled back */
	ilog_node_map_free(&s->nodes);
	ilog_buf_free(&s->tmp);
	ilog_sq_analysis_free(s);
	free(s->dbop);
	free(s);
}

/* The caller does not close a sink whose open failed: clean up here. */
static int sq_open(struct ilog_sink_ctx *c)
{
	if (!c->out_path) {
		snprintf(c->err, sizeof(c->err), "the sqlite format writes a database file: give -o FILE");
		return -1;
	}
	struct sq *s = calloc(1, sizeof(*s));
	if (!s) {
		snprintf(c->err, sizeof(c->err), "out of memory");
		return -1;
	}
	c->state = s;
	if (ilog_sq_analysis_new(c, s)) {
		snprintf(c->err, sizeof(c->err), "out of memory");
		sq_free(s);
		c->state = NULL;
		return -1;
	}
	if (ilog_sq_open_db(c, s)) {
		sq_free(s);
		c->state = NULL;
		return -1;
	}
	return 0;
}

int ilog_sq_step(struct ilog_sink_ctx *c, struct sq *s, sqlite3_stmt *st)
{
	int rc = sqlite3_step(st);
	sqlite3_reset(st);
	if (rc != SQLITE_DONE)
		return ilog_sq_err(c, s, "insert");
	return 0;
}

/* A named op's number in this database: its row in `ops` by name, or a
 * new row after the highest.  -1 on a database error. */
int ilog_sq_db_op(struct ilog_sink_ctx *c, struct sq *s, uint32_t op)
{
	const char *name = ilog_op_name(op);
	if (op < ILOG_OP_NAMED_FIRST || op >= ILOG_OP_MAX || !name)
		return (int)op;
	if (!s->dbop && !(s->dbop = calloc(ILOG_OP_MAX - ILOG_OP_NAMED_FIRST, sizeof(*s->dbop)))) {
		snprintf(c->err, sizeof(c->err), "out of memory");
		return -1;
	}
	uint16_t *m = &s->dbop[op - ILOG_OP_NAMED_FIRST];
	if (*m)
		return *m;
	sqlite3_stmt *st;
	int64_t got = -1;
	if (sqlite3_prepare_v2(s->db, "SELECT op FROM ops WHERE name=?1 AND op>=?2 UNION ALL "
			       "SELECT max(max(op)+1, ?2) FROM ops LIMIT 1", -1, &st, NULL) != SQLITE_OK)
		return ilog_sq_err(c, s, "prepare");
	sqlite3_bind_text(st, 1, name, -1, SQLITE_STATIC);
	sqlite3_bind_int64(st, 2, ILOG_OP_NAMED_FIRST);
	if (sqlite3_step(st) == SQLITE_ROW)
		got = sqlite3_column_int64(st, 0);
	sqlite3_finalize(st);
	if (got < ILOG_OP_NAMED_FIRST || got >= ILOG_OP_MAX)
		return ilog_sq_err(c, s, "named op numbers");
	if (sqlite3_prepare_v2(s->db, "INSERT OR IGNORE INTO ops VALUES(?,?,?)", -1, &st, NULL) !=
	    SQLITE_OK)
		return ilog_sq_err(c, s, "prepare");
	sqlite3_bind_int64(st, 1, got);
	sqlite3_bind_text(st, 2, name, -1, SQLITE_STATIC);
	sqlite3_bind_int64(st, 3, ilog_op_layer(op));
	int rc = sqlite3_step(st);
	sqlite3_finalize(st);
	if (rc != SQLITE_DONE)
		return ilog_sq_err(c, s, "insert");
	*m = (uint16_t)got;
	return (int)got;
}

/* A row's monotonic time as wall-clock ns; 0 stays 0. */
static int64_t wall_of(const struct sq_wall *w, uint64_t mono)
{
	if (!mono)
		return 0;
	if (w->r)
		return (int64_t)ilog_reader_wall(w->r, w->node, mono);
	if (w->stats)
		return (int64_t)ilog_stats_wall(w->stats, w->node, mono);
	return w->fixed;
}

/* A column that is text made from the record: an array of scalars as JSON
 * ([1,2]), an address as text, argv as a JSON array, other bytes as hex
 * (or as a BLOB).  0 or -1. */
static int bind_made(struct ilog_sink_ctx *c, struct sq *s, sqlite3_stmt *st, int k,
		     const struct ilog_sqlcol *col, const void *base)
{
	const struct ilog_field *f = col->f;
	struct ilog_buf *b = &s->tmp;
	int bad = 0;
	b->len = 0;
	if (f->type == FT_ARR) {
		struct ilog_sqlcol e = { .f = &f->sub[0], .arr = f, .src = ILOG_SQLC_ELEM };
		int sign = f->sub[0].type == FT_S32 || f->sub[0].type == FT_S64;
		bad |= ilog_buf_put(b, "[", 1);
		for (uint32_t i = 0, n = ilog_sqlarr_n(f, base); i < n; i++) {
			uint64_t v = ilog_sqlcol_u64(&e, base, ilog_sqlarr_at(f, base, i));
			bad |= sign ? ilog_buf_printf(b, "%s%lld", i ? "," : "", (long long)v)
				    : ilog_buf_printf(b, "%s%llu", i ? "," : "", (unsigned long long)v);
		}
		bad |= ilog_buf_put(b, "]", 1);
	} else {
		struct ilog_bin v = ilog_sqlcol_bin(col, base, NULL);
		char a[64];
		if (col->flags & ILOG_COL_BLOB)
			return sqlite3_bind_blob(st, k, v.n ? (const void *)v.p : "", (int)v.n,
						 SQLITE_STATIC) == SQLITE_OK ? 0 : ilog_sq_err(c, s, "bind");
		if (f->view == FV_INET)
			bad |= ilog_buf_printf(b, "%s", ilog_inet_str(v, a, sizeof(a)));
		else if (f->view == FV_ARGV)
			bad |= ilog_json_argv(b, v);
		for (uint32_t i = 0; i < v.n && f->view != FV_INET && f->view != FV_ARGV; i++)
			bad |= ilog_buf_printf(b, "%02x", v.p[i]);
	}
	if (bad) {
		snprintf(c->err, sizeof(c->err), "out of memory");
		return -1;
	}
	sqlite3_bind_text(st, k, b->p ? b->p : "", (int)b->len, SQLITE_TRANSIENT);
	return 0;
}

/*
 * A row of table t bound from placeholder k + 1 on: the session, the node,
 * then the columns of the record at base (of its element elem in a rows
 * table).  The last placeholder bound, or -1.
 */
static int bind_row(struct ilog_sink_ctx *c, struct sq *s, sqlite3_stmt *st, int k,
		    const struct ilog_sqltab *t, int node, const void *base, const void *elem,
		    const struct sq_wall *w)
{
	BI(st, ++k, s->session);
	if (!(t->tab & ILOG_TAB_NONODE))
		BI(st, ++k, node);
	for (unsigned i = 0; i < t->ncols; i++) {
		const struct ilog_sqlcol *col = &t->cols[i];
		uint8_t type = col->f ? col->f->type : FT_U64;
		k++;
		if (type == FT_F64) {
			BD(st, k, ilog_sqlcol_f64(col, base, elem));
		} else if (type == FT_STR || type == FT_CHARS) {
			bt(st, k, ilog_sqlcol_str(col, base, elem));
		} else if (type == FT_BIN || type == FT_ARR) {
			if (bind_made(c, s, st, k, col, base))
				return -1;
		} else {
			uint64_t v = ilog_sqlcol_u64(col, base, elem);
			int op = col->f && col->f->view == FV_OP ? ilog_sq_db_op(c, s, (uint32_t)v) : 0;
			if (op < 0)
				return -1;
			if (col->flags & ILOG_COL_WALL)
				v = (uint64_t)wall_of(w, v);
			BI(st, k, col->f && col->f->view == FV_OP ? (uint64_t)op : v);
		}
	}
	return k;
}

int ilog_sq_put_row(struct ilog_sink_ctx *c, struct sq *s, uint32_t kind, int node,
		    const void *base, const struct sq_wall *w)
{
	struct sq_kind *q = &s->k[kind];
	if (bind_row(c, s, q->st, 0, &q->tab, node, base, NULL, w) < 0 || ilog_sq_step(c, s, q->st))
		return -1;
	uint32_t n = q->has_rows ? ilog_sqlarr_n(q->tab.rows, base) : 0;
	for (uint32_t i = 0; i < n; i++)
		if (bind_row(c, s, q->rst, 0, &q->rows, node, base, ilog_sqlarr_at(q->tab.rows, base, i),
			     w) < 0 ||
		    ilog_sq_step(c, s, q->rst))
			return -1;
	return 0;
}

/* Insert the pending events: a full batch in one statement, a partial
 * one (at close) row by row. */
static int flush_events(struct ilog_sink_ctx *c, struct sq *s)
{
	const struct ilog_sqltab *t = &s->k[ILOG_K_CUDA].tab;
	sqlite3_stmt *st = s->npend == BATCH ? s->batch : s->k[ILOG_K_CUDA].st;
	for (unsigned i = 0, k = 0; i < s->npend; i++) {
		const struct ev_row *row = &s->pend[i];
		struct sq_wall w = { .fixed = row->wall };
		int last = bind_row(c, s, st, (int)k, t, row->node, &row->e, NULL, &w);
		if (last < 0)
			return -1;
		k = st == s->batch ? (unsigned)last : 0;
		if (st != s->batch && ilog_sq_step(c, s, st))
			return -1;
	}
	unsigned n = s->npend;
	s->npend = 0;
	return n == BATCH ? ilog_sq_step(c, s, st) : 0;
}

static int feed_err(struct ilog_sink_ctx *c, struct sq *s)
{
	snprintf(c->err, sizeof(c->err), "%s",
		 s->an ? ilog_analysis_error(s->an) : "out of memory");
	return -1;
}

/* A header's node: a row the first time it is seen.  0 or -1. */
static int put_node(struct ilog_sink_ctx *c, struct sq *s, const struct ilog_record *rec,
		    const struct ilog_reader *r)
{
	int isnew;
	int node = ilog_node_map_header(&s->nodes, rec, r, &isnew);
	if (node < 0) {
		snprintf(c->err, sizeof(c->err), "out of memory");
		return -1;
	}
	if (!isnew)
		return 0;
	const struct ilog_header *h = &rec->u.header;
	char ver[32];
	snprintf(ver, sizeof(ver), "%u.%u", h->version_major, h->version_minor);
	sqlite3_stmt *st = s->st[S_NODE];
	BIS(st, 1, 0, s->session, node);
	bt(st, 3, h->node);
	bt(st, 4, h->host);
	bt(st, 5, h->boot_id);
	BIS(st, 6, 0, h->rank, (int64_t)h->session_id);
	bt(st, 8, h->recorder);
	bt(st, 9, h->kernel);
	bt(st, 10, h->driver);
	sqlite3_bind_text(st, 11, ver, -1, SQLITE_TRANSIENT);
	BIS(st, 12, 0, h->node_index, (int64_t)h->mono_ns, (int64_t)h->real_ns);
	return ilog_sq_step(c, s, st);
}

/* A native or Python stack: stored once per id, its frames as rows. */
static int put_stack(struct ilog_sink_ctx *c, struct sq *s, const struct ilog_record *rec, int node)
{
	int py = rec->kind == ILOG_K_PYSTACK;
	const struct ingero_stack *k = &rec->u.stack;
	const struct ingero_pystack *p = &rec->u.pystack;
	uint64_t id = py ? p->id : k->id;
	uint32_t nr = py ? p->nr : k->nr, max = py ? INGERO_MAX_PYFRAMES : INGERO_MAX_STACK;
	sqlite3_stmt *st = s->st[py ? S_PYSTACK : S_STACK];
	BI(st, 1, s->session);
	BI(st, 2, node);
	BI(st, 3, id);
	BI(st, 4, py ? p->pid : k->pid);
	BI(st, 5, nr);
	if (py)
		BI(st, 6, p->entry);
	if (ilog_sq_step(c, s, st))
		return -1;
	if (!sqlite3_changes(s->db))
		return 0; /* the same id again: its frames are there */
	st = s->st[py ? S_PYFRAME : S_FRAME];
	for (uint32_t i = 0; i < nr && i < max; i++) {
		BI(st, 1, s->session);
		BI(st, 2, node);
		BI(st, 3, id);
		BI(st, 4, i);
		BI(st, 5, py ? p->frames[i].code : k->ips[i]);
		if (py)
			BI(st, 6, p->frames[i].lasti);
		if (ilog_sq_step(c, s, st))
			return -1;
	}
	return 0;
}

/* A CUDA event: pending until a batch is full. */
static int put_event(struct ilog_sink_ctx *c, struct sq *s, const struct ingero_cuda_event *e,
		     int node, int64_t wall)
{
	s->events++;
	if (!s->first_ts || wall < s->first_ts)
		s->first_ts = wall;
	if (wall + (int64_t)e->dur_ns > s->last_ts)
		s->last_ts = wall + (int64_t)e->dur_ns;
	s->pend[s->npend++] = (struct ev_row){ *e, wall, node };
	return s->npend == BATCH ? flush_events(c, s) : 0;
}

static int sq_record(struct ilog_sink_ctx *c, const struct ilog_record *rec,
		     const struct ilog_reader *r)
{
	struct sq *s = c->state;
	s->records++;
	if (rec->kind == ILOG_K_HEADER)
		return ilog_sq_feed_record(s->feed, rec, r, 0, 0) ? feed_err(c, s)
								  : put_node(c, s, rec, r);
	int node = ilog_node_map_get(&s->nodes, rec, r);
	if (node < 0) {
		/* a record before any header cannot happen (the reader refuses) */
		node = 0;
	}
	uint64_t ts = ilog_record_ts(rec);
	int64_t wall = ts ? (int64_t)ilog_reader_wall(r, rec->node, ts) : 0;
	if (ilog_sq_feed_record(s->feed, rec, r, node, wall))
		return feed_err(c, s);
	switch (rec->kind) {
	case ILOG_K_CUDA:
		return put_event(c, s, &rec->u.cuda, node, wall);
	case ILOG_K_STACK:
	case ILOG_K_PYSTACK:
		return put_stack(c, s, rec, node);
	case ILOG_K_HOST:
		s->host++;
		break;
	case ILOG_K_CHAIN:
		s->chain_records++;
		break;
	case ILOG_K_SCHEMA:
	case ILOG_K_NODE:
		return 0;
	default:
		break;
	}
	if (rec->kind >= ILOG_K__COUNT || !s->k[rec->kind].has) {
		s->unknown++;
		return 0;
	}
	struct sq_wall w = { .r = r, .node = rec->node };
	return ilog_sq_put_row(c, s, rec->kind, node, &rec->u, &w);
}

static int sq_close(struct ilog_sink_ctx *c)
{
	struct sq *s = c->state;
	if (!s)
		return 0;
	int rc = s->in_txn && s->npend ? flush_events(c, s) : 0;
	if (!rc && s->in_txn)
		rc = ilog_sq_summaries(c, s);
	for (int i = 0; i < S__COUNT; i++) {
		sqlite3_finalize(s->st[i]);
		s->st[i] = NULL;
	}
	for (int k = 0; k < ILOG_K__COUNT && s->k; k++) {
		sqlite3_finalize(s->k[k].st);
		sqlite3_finalize(s->k[k].rst);
		s->k[k].st = s->k[k].rst = NULL;
	}
	sqlite3_finalize(s->batch);
	s->batch = NULL;
	if (s->in_txn) {
		sqlite3_stmt *st;
		if (sqlite3_prepare_v2(s->db, "UPDATE sessions SET records=?, events=?, host_events=?, "
				       "unknown_records=?, first_ts=?, last_ts=?, complete=? "
				       "WHERE session_id=?", -1, &st, NULL) == SQLITE_OK) {
			BIS(st, 1, 0, (int64_t)s->records, (int64_t)s->events, (int64_t)s->host,
			    (int64_t)s->unknown, s->first_ts, s->last_ts, !c->input_cut, s->session);
			if (sqlite3_step(st) != SQLITE_DONE)
				rc = ilog_sq_err(c, s, "update session");
			sqlite3_finalize(st);
		} else {
			rc = ilog_sq_err(c, s, "prepare");
		}
		if (!rc && s->fresh)
			rc = ilog_sq_indexes(c, s);
		/* statistics for the planner, from a sample of each index
		 * (milliseconds): with them it picks the indexes the example
		 * queries are written for, and skips over the node column of
		 * a primary key when a query names no node */
		if (!rc)
			rc = ilog_sq_exec(c, s, "PRAGMA analysis_limit=400; ANALYZE");
		if (!rc)
			rc = ilog_sq_exec(c, s, "COMMIT");
		if (rc)
			sqlite3_exec(s->db, "ROLLBACK", NULL, NULL, NULL);
		if (!rc)
			rc = ilog_sq_exec(c, s, "PRAGMA optimize");
	}
	if (s->db && sqlite3_close(s->db) != SQLITE_OK && !rc)
		rc = ilog_sq_err(c, s, "close");
	s->db = NULL;
	sq_free(s);
	c->state = NULL;
	return rc;
}

const struct ilog_sink ilog_sink_sqlite = {
	.name = "sqlite",
	.help = "SQLite database (-o FILE; appends a session); schema in docs/schema.md",
	.binary = 1,
	.path_output = 1,
	.open = sq_open, .record = sq_record, .close = sq_close,
};
