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

static void bind_event(sqlite3_stmt *st, int base, int64_t session, const struct ev_row *row)
{
	const struct ingero_cuda_event *e = &row->e;
	BI(st, base + 1, session);
	BI(st, base + 2, row->node);
	BI(st, base + 3, row->wall);
	BI(st, base + 4, e->dur_ns);
	BI(st, base + 5, e->pid);
	BI(st, base + 6, e->tid);
	BI(st, base + 7, e->layer);
	BI(st, base + 8, e->op);
	BI(st, base + 9, e->ret);
	BI(st, base + 10, e->stream);
	BI(st, base + 11, e->bytes);
	BI(st, base + 12, e->handle);
	BI(st, base + 13, e->kind);
	BI(st, base + 14, e->grid_x);
	BI(st, base + 15, e->grid_y);
	BI(st, base + 16, e->grid_z);
	BI(st, base + 17, e->block_x);
	BI(st, base + 18, e->block_y);
	BI(st, base + 19, e->block_z);
	BI(st, base + 20, e->flags);
	BI(st, base + 21, e->stack_id);
	BI(st, base + 22, e->pystack_id);
}

/* Insert the pending events: a full batch in one statement, a partial
 * one (at close) row by row. */
static int flush_events(struct ilog_sink_ctx *c, struct sq *s)
{
	if (s->npend == BATCH) {
		for (unsigned i = 0; i < BATCH; i++)
			bind_event(s->batch, (int)i * EVENT_COLS, s->session, &s->pend[i]);
		s->npend = 0;
		return ilog_sq_step(c, s, s->batch);
	}
	for (unsigned i = 0; i < s->npend; i++) {
		bind_event(s->st[S_EVENT], 0, s->session, &s->pend[i]);
		if (ilog_sq_step(c, s, s->st[S_EVENT]))
			return -1;
	}
	s->npend = 0;
	return 0;
}

/* hex text of bytes into s->tmp (NUL-terminated) */
static const char *hex(struct sq *s, struct ilog_bin b)
{
	static const char d[] = "0123456789abcdef";
	s->tmp.len = 0;
	for (uint32_t i = 0; i < b.n; i++) {
		char two[2] = { d[b.p[i] >> 4], d[b.p[i] & 15] };
		ilog_buf_put(&s->tmp, two, 2);
	}
	ilog_buf_put(&s->tmp, "", 1);
	return s->tmp.p ? s->tmp.p : "";
}

/* One chain row; ts_start and ts_end are wall-clock ns. */
int ilog_sq_put_chain(struct ilog_sink_ctx *c, struct sq *s, int node, const struct ilog_chain *ch,
		     int64_t wall_start, int64_t wall_end)
{
	sqlite3_stmt *st = s->st[S_CHAIN];
	BI(st, 1, s->session);
	BI(st, 2, node);
	BI(st, 3, ch->id);
	BI(st, 4, wall_start);
	BI(st, 5, wall_end);
	BI(st, 6, ch->severity);
	bt(st, 7, ch->pattern);
	BI(st, 8, ch->pid);
	int op = ilog_sq_db_op(c, s, ch->op);
	if (op < 0)
		return -1;
	BI(st, 9, op);
	BD(st, 10, ch->score);
	bt(st, 11, ch->title);
	bt(st, 12, ch->root_cause);
	bt(st, 13, ch->fix);
	bt(st, 14, ch->evidence);
	bt(st, 15, ch->comm);
	BI(st, 16, ch->culprit_pid);
	bt(st, 17, ch->culprit_comm);
	BI(st, 18, ch->lost_ns);
	bt(st, 19, ch->metrics);
	return ilog_sq_step(c, s, st);
}

static int feed_err(struct ilog_sink_ctx *c, struct sq *s)
{
	snprintf(c->err, sizeof(c->err), "%s",
		 s->an ? ilog_analysis_error(s->an) : "out of memory");
	return -1;
}

static int sq_record(struct ilog_sink_ctx *c, const struct ilog_record *rec,
		     const struct ilog_reader *r)
{
	struct sq *s = c->state;
	sqlite3_stmt *st;
	s->records++;
	if (rec->kind == ILOG_K_HEADER && ilog_sq_feed_record(s->feed, rec, r, 0, 0))
		return feed_err(c, s);
	if (rec->kind == ILOG_K_HEADER) {
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
		st = s->st[S_NODE];
		BI(st, 1, s->session);
		BI(st, 2, node);
		bt(st, 3, h->node);
		bt(st, 4, h->host);
		bt(st, 5, h->boot_id);
		BI(st, 6, h->rank);
		BI(st, 7, h->session_id);
		bt(st, 8, h->recorder);
		bt(st, 9, h->kernel);
		bt(st, 10, h->driver);
		sqlite3_bind_text(st, 11, ver, -1, SQLITE_TRANSIENT);
		BI(st, 12, h->node_index);
		BI(st, 13, h->mono_ns);
		BI(st, 14, h->real_ns);
		return ilog_sq_step(c, s, st);
	}
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
	case ILOG_K_CUDA: {
		const struct ingero_cuda_event *e = &rec->u.cuda;
		s->events++;
		if (!s->first_ts || wall < s->first_ts)
			s->first_ts = wall;
		if (wall + (int64_t)e->dur_ns > s->last_ts)
			s->last_ts = wall + (int64_t)e->dur_ns;
		s->pend[s->npend] = (struct ev_row){ *e, wall, node };
		if (e->op >= ILOG_OP_NAMED_FIRST) {
			int op = ilog_sq_db_op(c, s, e->op);
			if (op < 0)
				return -1;
			s->pend[s->npend].e.op = (uint16_t)op;
		}
		s->npend++;
		return s->npend == BATCH ? flush_events(c, s) : 0;
	}
	case ILOG_K_HOST: {
		const struct ingero_host_event *h = &rec->u.host;
		st = s->st[S_HOST];
		BI(st, 1, s->session);
		BI(st, 2, node);
		BI(st, 3, wall);
		BI(st, 4, h->dur_ns);
		BI(st, 5, h->type);
		BI(st, 6, h->pid);
		BI(st, 7, h->tid);
		BI(st, 8, h->other_pid);
		BI(st, 9, h->other_tid);
		BI(st, 10, h->cpu);
		BI(st, 11, h->value);
		sqlite3_bind_text(st, 12, h->comm, (int)strnlen(h->comm, INGERO_COMM_LEN), SQLITE_STATIC);
		sqlite3_bind_text(st, 13, h->other_comm, (int)strnlen(h->other_comm, INGERO_COMM_LEN),
				  SQLITE_STATIC);
		BI(st, 14, h->cgroup_id);
		s->host++;
		return ilog_sq_step(c, s, st);
	}
	case ILOG_K_CLOCK:
		st = s->st[S_CLOCK];
		BI(st, 1, s->session);
		BI(st, 2, node);
		BI(st, 3, rec->u.clock.mono_ns);
		BI(st, 4, rec->u.clock.boot_ns);
		BI(st, 5, rec->u.clock.real_ns);
		return ilog_sq_step(c, s, st);
	case ILOG_K_PROCESS: {
		const struct ilog_process *p = &rec->u.process;
		st = s->st[S_PROCESS];
		BI(st, 1, s->session);
		BI(st, 2, node);
		BI(st, 3, wall);
		BI(st, 4, p->pid);
		BI(st, 5, p->ppid);
		BI(st, 6, p->uid);
		BI(st, 7, p->start_ns);
		bt(st, 8, p->comm);
		bt(st, 9, p->exe);
		s->tmp.len = 0;
		if (ilog_json_argv(&s->tmp, p->cmdline))
			return ilog_sq_err(c, s, "out of memory");
		sqlite3_bind_text(st, 10, s->tmp.p ? s->tmp.p : "[]", (int)(s->tmp.p ? s->tmp.len : 2),
				  SQLITE_STATIC);
		bt(st, 11, p->cgroup);
		BI(st, 12, p->cgroup_id);
		bt(st, 13, p->pod_uid);
		bt(st, 14, p->container_id);
		return ilog_sq_step(c, s, st);
	}
	case ILOG_K_MAPPING: {
		const struct ilog_mapping *mp = &rec->u.mapping;
		st = s->st[S_MAPPING];
		BI(st, 1, s->session);
		BI(st, 2, node);
		BI(st, 3, wall);
		BI(st, 4, mp->pid);
		BI(st, 5, mp->start);
		BI(st, 6, mp->end);
		BI(st, 7, mp->offset);
		BI(st, 8, mp->prot);
		bt(st, 9, mp->path);
		sqlite3_bind_text(st, 10, hex(s, mp->build_id), -1, SQLITE_STATIC);
		return ilog_sq_step(c, s, st);
	}
	case ILOG_K_STACK: {
		const struct ingero_stack *k = &rec->u.stack;
		st = s->st[S_STACK];
		BI(st, 1, s->session);
		BI(st, 2, node);
		BI(st, 3, k->id);
		BI(st, 4, k->pid);
		BI(st, 5, k->nr);
		if (ilog_sq_step(c, s, st))
			return -1;
		if (!sqlite3_changes(s->db))
			return 0; /* the same id again: its frames are there */
		st = s->st[S_FRAME];
		for (uint32_t i = 0; i < k->nr && i < INGERO_MAX_STACK; i++) {
			BI(st, 1, s->session);
			BI(st, 2, node);
			BI(st, 3, k->id);
			BI(st, 4, i);
			BI(st, 5, k->ips[i]);
			if (ilog_sq_step(c, s, st))
				return -1;
		}
		return 0;
	}
	case ILOG_K_PYSTACK: {
		const struct ingero_pystack *k = &rec->u.pystack;
		st = s->st[S_PYSTACK];
		BI(st, 1, s->session);
		BI(st, 2, node);
		BI(st, 3, k->id);
		BI(st, 4, k->pid);
		BI(st, 5, k->nr);
		BI(st, 6, k->entry);
		if (ilog_sq_step(c, s, st))
			return -1;
		if (!sqlite3_changes(s->db))
			return 0;
		st = s->st[S_PYFRAME];
		for (uint32_t i = 0; i < k->nr && i < INGERO_MAX_PYFRAMES; i++) {
			BI(st, 1, s->session);
			BI(st, 2, node);
			BI(st, 3, k->id);
			BI(st, 4, i);
			BI(st, 5, k->frames[i].code);
			BI(st, 6, k->frames[i].lasti);
			if (ilog_sq_step(c, s, st))
				return -1;
		}
		return 0;
	}
	case ILOG_K_PYCODE: {
		const struct ilog_pycode *p = &rec->u.pycode;
		st = s->st[S_PYCODE];
		BI(st, 1, s->session);
		BI(st, 2, node);
		BI(st, 3, p->pid);
		BI(st, 4, p->code);
		BI(st, 5, p->py_version);
		bt(st, 6, p->filename);
		bt(st, 7, p->qualname);
		BI(st, 8, p->firstlineno);
		sqlite3_bind_blob(st, 9, p->linetable.n ? (const void *)p->linetable.p : "",
				  (int)p->linetable.n, SQLITE_STATIC);
		return ilog_sq_step(c, s, st);
	}
	case ILOG_K_SYMBOL: {
		const struct ilog_symbol *y = &rec->u.symbol;
		st = s->st[S_SYMBOL];
		BI(st, 1, s->session);
		BI(st, 2, node);
		BI(st, 3, y->pid);
		BI(st, 4, y->ip);
		sqlite3_bind_text(st, 5, hex(s, y->build_id), -1, SQLITE_STATIC);
		bt(st, 6, y->module);
		BI(st, 7, y->module_off);
		bt(st, 8, y->function);
		BI(st, 9, y->sym_off);
		bt(st, 10, y->file);
		BI(st, 11, y->line);
		BI(st, 12, y->inline_depth);
		return ilog_sq_step(c, s, st);
	}
	case ILOG_K_KERNEL:
		st = s->st[S_KERNEL];
		BI(st, 1, s->session);
		BI(st, 2, node);
		BI(st, 3, rec->u.kernel.pid);
		BI(st, 4, rec->u.kernel.handle);
		bt(st, 5, rec->u.kernel.name);
		return ilog_sq_step(c, s, st);
	case ILOG_K_BLKIO: {
		const struct ilog_blkio *b = &rec->u.blkio;
		char hist[INGERO_BLK_HBUCKETS * 21 + 3];
		size_t hn = 0;
		hist[hn++] = '[';
		for (uint32_t i = 0; i < b->nhist && i < INGERO_BLK_HBUCKETS; i++)
			hn += (size_t)snprintf(hist + hn, sizeof(hist) - hn, "%s%llu", i ? "," : "",
					       (unsigned long long)b->hist[i]);
		hist[hn++] = ']';
		st = s->st[S_BLKIO];
		BI(st, 1, s->session);
		BI(st, 2, node);
		BI(st, 3, wall);
		BI(st, 4, b->dur_ns);
		BI(st, 5, b->major);
		BI(st, 6, b->minor);
		bt(st, 7, b->disk);
		BI(st, 8, b->pid);
		BI(st, 9, b->nprocs);
		sqlite3_bind_text(st, 10, b->comm, (int)strnlen(b->comm, INGERO_COMM_LEN), SQLITE_STATIC);
		BI(st, 11, b->cgroup_id);
		BI(st, 12, b->ios);
		BI(st, 13, b->bytes);
		BI(st, 14, b->read_ios);
		BI(st, 15, b->read_bytes);
		BI(st, 16, b->lat_sum_ns);
		BI(st, 17, b->lat_max_ns);
		BI(st, 18, ilog_blk_quantile(b->hist, b->nhist, 0.50, b->lat_max_ns));
		BI(st, 19, ilog_blk_quantile(b->hist, b->nhist, 0.99, b->lat_max_ns));
		sqlite3_bind_text(st, 20, hist, (int)hn, SQLITE_TRANSIENT);
		return ilog_sq_step(c, s, st);
	}
	case ILOG_K_RETRANS: {
		const struct ilog_retrans *t = &rec->u.retrans;
		char sa[64], da[64];
		st = s->st[S_RETRANS];
		BI(st, 1, s->session);
		BI(st, 2, node);
		BI(st, 3, wall);
		BI(st, 4, t->dur_ns);
		BI(st, 5, t->pid);
		sqlite3_bind_text(st, 6, t->comm, (int)strnlen(t->comm, INGERO_COMM_LEN), SQLITE_STATIC);
		BI(st, 7, t->cgroup_id);
		BI(st, 8, t->family);
		sqlite3_bind_text(st, 9, ilog_inet_str(t->saddr, sa, sizeof(sa)), -1, SQLITE_TRANSIENT);
		sqlite3_bind_text(st, 10, ilog_inet_str(t->daddr, da, sizeof(da)), -1, SQLITE_TRANSIENT);
		BI(st, 11, t->sport);
		BI(st, 12, t->dport);
		BI(st, 13, t->count);
		BI(st, 14, t->state);
		BI(st, 15, t->flows);
		return ilog_sq_step(c, s, st);
	}
	case ILOG_K_SOCKIO: {
		const struct ilog_sockio *o = &rec->u.sockio;
		st = s->st[S_SOCKIO];
		BI(st, 1, s->session);
		BI(st, 2, node);
		BI(st, 3, wall);
		BI(st, 4, o->dur_ns);
		BI(st, 5, o->pid);
		sqlite3_bind_text(st, 6, o->comm, (int)strnlen(o->comm, INGERO_COMM_LEN), SQLITE_STATIC);
		BI(st, 7, o->cgroup_id);
		BI(st, 8, o->tx_bytes);
		BI(st, 9, o->rx_bytes);
		BI(st, 10, o->tx_calls);
		BI(st, 11, o->rx_calls);
		BI(st, 12, o->others);
		return ilog_sq_step(c, s, st);
	}
	case ILOG_K_SNAPSHOT: {
		const struct ilog_snapshot *n = &rec->u.snapshot;
		st = s->st[S_SNAP];
		BI(st, 1, s->session);
		BI(st, 2, node);
		BI(st, 3, wall);
		BD(st, 4, n->cpu_pct);
		BI(st, 5, n->ncpu);
		BI(st, 6, n->mem_total);
		BI(st, 7, n->mem_avail);
		BI(st, 8, n->swap_total);
		BI(st, 9, n->swap_free);
		BD(st, 10, n->load1);
		BD(st, 11, n->load5);
		BD(st, 12, n->load15);
		BD(st, 13, n->psi_cpu_some);
		BD(st, 14, n->psi_mem_some);
		BD(st, 15, n->psi_mem_full);
		BD(st, 16, n->psi_io_some);
		BD(st, 17, n->psi_io_full);
		if (ilog_sq_step(c, s, st))
			return -1;
		st = s->st[S_SNAPPROC];
		for (uint32_t i = 0; i < n->nprocs && i < ILOG_MAX_SNAPSHOT_PROCS; i++) {
			BI(st, 1, s->session);
			BI(st, 2, node);
			BI(st, 3, wall);
			BI(st, 4, n->procs[i].pid);
			BD(st, 5, n->procs[i].cpu_pct);
			BI(st, 6, n->procs[i].rss);
			BI(st, 7, n->procs[i].rss_growth);
			sqlite3_bind_text(st, 8, n->procs[i].comm, (int)strnlen(n->procs[i].comm, 16),
					  SQLITE_STATIC);
			if (ilog_sq_step(c, s, st))
				return -1;
		}
		return 0;
	}
	case ILOG_K_LOSS:
		st = s->st[S_LOSS];
		BI(st, 1, s->session);
		BI(st, 2, node);
		BI(st, 3, wall);
		bt(st, 4, rec->u.loss.source);
		BI(st, 5, rec->u.loss.lost);
		BI(st, 6, rec->u.loss.seen);
		return ilog_sq_step(c, s, st);
	case ILOG_K_CHAIN:
		s->chain_records++;
		return ilog_sq_put_chain(c, s, node, &rec->u.chain, wall,
				 rec->u.chain.ts_end ? (int64_t)ilog_reader_wall(r, rec->node,
									 rec->u.chain.ts_end) : 0);
	case ILOG_K_PROVENANCE:
		st = s->st[S_PROV];
		BI(st, 1, s->session);
		BI(st, 2, rec->u.provenance.real_ns);
		bt(st, 3, rec->u.provenance.tool);
		bt(st, 4, rec->u.provenance.version);
		bt(st, 5, rec->u.provenance.args);
		return ilog_sq_step(c, s, st);
	case ILOG_K_SCHEMA:
	case ILOG_K_NODE:
		return 0;
	default:
		s->unknown++;
		return 0;
	}
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
	sqlite3_finalize(s->batch);
	s->batch = NULL;
	if (s->in_txn) {
		sqlite3_stmt *st;
		if (sqlite3_prepare_v2(s->db, "UPDATE sessions SET records=?, events=?, host_events=?, "
				       "unknown_records=?, first_ts=?, last_ts=?, complete=? "
				       "WHERE session_id=?", -1, &st, NULL) == SQLITE_OK) {
			BI(st, 1, s->records);
			BI(st, 2, s->events);
			BI(st, 3, s->host);
			BI(st, 4, s->unknown);
			BI(st, 5, s->first_ts);
			BI(st, 6, s->last_ts);
			BI(st, 7, (uint64_t)!c->input_cut);
			BI(st, 8, s->session);
			if (sqlite3_step(st) != SQLITE_DONE)
				rc = ilog_sq_err(c, s, "update session");
			sqlite3_finalize(st);
		} else {
			rc = ilog_sq_err(c, s, "prepare");
		}
		if (!rc && s->fresh)
			rc = ilog_sq_exec(c, s, ilog_sq_indexes);
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
