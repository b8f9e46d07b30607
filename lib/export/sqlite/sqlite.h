/* SPDX-License-Identifier: MIT */
/*
 * Internal to the SQLite sink (lib/export/sqlite/): its state, shared by
 * the sink (sqlite.c), the schema and its upgrades (ddl.c), the second
 * thread that feeds the summaries (feed.c) and the summaries written at
 * close (summary.c).
 */
#ifndef ILOG_EXPORT_SQLITE_H
#define ILOG_EXPORT_SQLITE_H

#include <pthread.h>
#include <sqlite3.h>
#include "ingero/analysis.h"
#include "ingero/callsite.h"
#include "ingero/causal.h"
#include "ingero/hmap.h"
#include "ingero/stats.h"
#include "../export_int.h"

/* Preemptions per (thread's process, preempter): host switch events. */
#define ILOG_SQ_PREEMPT_SUMMARY(where)                                                           \
	"INSERT INTO summary_preemptions SELECT session_id, node, pid, other_pid,"              \
	" max(other_comm), count(*), sum(dur_ns) FROM host_events WHERE type = 1" where         \
	" GROUP BY session_id, node, pid, other_pid"


#define BATCH 64

/* the tables not made from a kind's fields */
enum stmt { S_NODE, S_STACK, S_FRAME, S_PYSTACK, S_PYFRAME, S__COUNT };

/* A kind's table (lib/export/sqlcols.c) and, for an array of records,
 * the table of its elements, with their INSERT statements. */
struct sq_kind {
	struct ilog_sqltab tab, rows;
	int has, has_rows;
	sqlite3_stmt *st, *rst;
};

/*
 * The summaries are computed on a second thread while this one inserts
 * rows.  Records whose statistics need only fixed-size fields (CUDA and
 * host events, snapshots -- these through a copy; every other kind, which
 * the statistics only count, as its kind) are copied into batches of
 * FEED_BATCH and handed over, one batch worked on while the next fills;
 * the few whose statistics read strings (headers, processes, losses) wait
 * for the thread to finish what it was given and are added here, in
 * order.  Without a
 * thread (it could not start) everything is added here.
 */
#define FEED_BATCH 4096
struct feed_ent {
	uint32_t kind, node;  /* node: the record's, as the statistics map it */
	int ord;              /* the session's node: call sites are keyed by it */
	int64_t wall;         /* the record's wall-clock time */
	union {
		struct ingero_cuda_event cuda;
		struct ingero_host_event host;
		struct ilog_snapshot *snap; /* a copy, freed by whoever adds it */
	} u;
};
struct feed {
	struct ilog_analysis *an;
	pthread_t th;
	int running;
	pthread_mutex_t mu;
	pthread_cond_t cv;
	struct feed_ent *buf[2];
	unsigned cur, n;      /* this thread fills buf[cur], n entries so far */
	struct feed_ent *todo; /* handed over, not yet taken; NULL: none */
	unsigned ntodo;
	int busy, stop, failed;
	struct ilog_record rec; /* the worker's record, rebuilt per entry */
	/* CUDA Graph execs: instantiations and launches that succeeded */
	struct ilog_hmap execmap; /* (ord << 32 | pid, handle) -> execs[] + 1 */
	struct graph_exec {
		int ord;
		uint32_t pid;
		uint64_t handle, instantiations, launches, launch_ns;
		int64_t first_ts, last_ts; /* of the launches, wall clock */
	} *execs;
	uint32_t nexecs, capexecs;
	/* CUDA Graph lifecycles, the whole session's (lives[0]) and each
	 * process's, counted the way ingero-mcp's graph_lifecycle counts the
	 * graph calls it reads in time order (cmd/ingero-mcp/tgraph.c) */
	struct ilog_hmap lifemap; /* pid -> lives[] + 1 */
	struct graph_life {
		uint32_t pid;     /* 0 in lives[0]: every process */
		uint64_t calls, captures, instantiations, launches, failed;
		uint64_t instantiate_ns, capture_ns;
		int64_t open_ts;  /* the capture begun last and not ended */
		int64_t streams[64], stream_caps[64]; /* the first 64 streams captured */
		int nstreams;
	} *lives;
	uint32_t nlives, caplives;
};

struct sq {
	sqlite3 *db;
	sqlite3_stmt *st[S__COUNT];
	struct sq_kind *k;         /* [ILOG_K__COUNT] */
	int64_t session;
	int fresh;                 /* the database was new: build indexes at the end */
	int in_txn;
	struct ilog_node_map nodes;
	uint64_t records, events, host, unknown;
	int64_t first_ts, last_ts;
	struct ilog_buf tmp;
	/* events go in BATCH rows per statement: the per-statement work
	 * (step, reset, VM start and halt) is paid once per batch */
	sqlite3_stmt *batch;
	struct ev_row { struct ingero_cuda_event e; int64_t wall; int node; } pend[BATCH];
	unsigned npend;
	/* the summaries: the analysis of ingero-correlate (statistics,
	 * chains, call sites), fed the rows as they load (by struct feed);
	 * stats is its statistics */
	struct ilog_analysis *an;
	struct ilog_stats *stats;
	uint64_t chain_records;
	struct feed *feed;
	/* named ops (SPEC §5.17): this program's number -> the database's,
	 * found by name in `ops` so that sessions appended to one database
	 * share numbers; 0 = not looked up yet */
	uint16_t *dbop;
};

/* Bind helpers: positional, text without copying (the record's views
 * outlive the step). */
#define BI(st, i, v) sqlite3_bind_int64(st, i, (int64_t)(v))
#define BD(st, i, v) sqlite3_bind_double(st, i, v)
static inline void bt(sqlite3_stmt *st, int i, struct ilog_str s)
{
	sqlite3_bind_text(st, i, s.n ? s.p : "", (int)s.n, SQLITE_STATIC);
}

/* Integers bound from placeholder k on; the values whose bit (from 0) is
 * set in nulls are NULL instead. */
static inline void bind_ints(sqlite3_stmt *st, int k, const int64_t *v, unsigned n, unsigned nulls)
{
	for (unsigned i = 0; i < n; i++, k++)
		if (nulls >> i & 1)
			sqlite3_bind_null(st, k);
		else
			sqlite3_bind_int64(st, k, v[i]);
}
#define BIS(st, k, nulls, ...)                                                              \
	bind_ints(st, k, (const int64_t[]){ __VA_ARGS__ },                                  \
		  sizeof((const int64_t[]){ __VA_ARGS__ }) / sizeof(int64_t), nulls)

/* ddl.c: the schema (new, or upgraded from an older version), the
 * session's row and the prepared statements.  0 or -1 with c->err. */
int ilog_sq_open_db(struct ilog_sink_ctx *c, struct sq *s);
/* the secondary indexes, built at close on a new database */
int ilog_sq_indexes(struct ilog_sink_ctx *c, struct sq *s);
/* c->err from the connection's error; -1 */
int ilog_sq_err(struct ilog_sink_ctx *c, struct sq *s, const char *what);
/* run SQL; 0 or -1 with c->err */
int ilog_sq_exec(struct ilog_sink_ctx *c, struct sq *s, const char *sql);

/* sqlite.c */
int ilog_sq_step(struct ilog_sink_ctx *c, struct sq *s, sqlite3_stmt *st);
int ilog_sq_db_op(struct ilog_sink_ctx *c, struct sq *s, uint32_t op);
/* How a row's monotonic times become wall-clock ns: by the reader at the
 * record's node while reading, by the statistics for what is made at
 * close, else the one time given (a pending event's). */
struct sq_wall {
	const struct ilog_reader *r;
	const struct ilog_stats *stats;
	uint32_t node;
	int64_t fixed;
};
/* A row of kind's table (and its elements' rows) from the record at base
 * (the kind's member of union ilog_record).  0 or -1 with c->err. */
int ilog_sq_put_row(struct ilog_sink_ctx *c, struct sq *s, uint32_t kind, int node,
		    const void *base, const struct sq_wall *w);

/* feed.c */
struct feed *ilog_sq_feed_new(struct ilog_analysis *an);
void ilog_sq_feed_hand(struct feed *f, int wait);
void ilog_sq_feed_end(struct feed *f);
void ilog_sq_feed_free(struct feed *f);
int ilog_sq_feed_record(struct feed *f, const struct ilog_record *rec,
			const struct ilog_reader *r, int ord, int64_t wall);

/* analysis.c: the analysis the summaries come from (the driver, with the
 * caller's options).  new: 0, or -1 out of memory (free frees what was
 * made); finish: waits for the feed and finishes it; the causal chains to
 * store (none when the log had chain records), or NULL with c->err. */
int ilog_sq_analysis_new(struct ilog_sink_ctx *c, struct sq *s);
void ilog_sq_analysis_free(struct sq *s);
const struct ilog_chain_set *ilog_sq_analysis_finish(struct ilog_sink_ctx *c, struct sq *s);

/* summary.c: the session's summaries, at close.  0 or -1 with c->err. */
int ilog_sq_summaries(struct ilog_sink_ctx *c, struct sq *s);

/* ranks.c: a multi-rank job's tables (schema 6): their DDL, and their rows
 * from the analysis at close.  0 or -1 with c->err. */
extern const char ilog_sq_ranks_ddl[];
int ilog_sq_ranks(struct ilog_sink_ctx *c, struct sq *s);

/* steps.c: the training steps' tables (schema 7): their DDL, and their rows
 * from the analysis at close.  0 or -1 with c->err. */
extern const char ilog_sq_steps_ddl[];
int ilog_sq_steps(struct ilog_sink_ctx *c, struct sq *s);

#endif
