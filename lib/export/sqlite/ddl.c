// SPDX-License-Identifier: MIT
/*
 * The SQLite sink's schema (docs/schema.md is the contract): tables,
 * views and indexes, the upgrade of a database an older version wrote,
 * and opening a database for a new session (pragmas: see sqlite.c).
 */
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include "ingero/vec.h"
#include "sqlite.h"

#define SCHEMA_VERSION 9 /* 2: pystacks.entry; 3: summary tables; 4: the whole host
			  * (format 1.2: cgroups, PSI, RSS growth); 5: format 1.3
			  * (blkio, retrans, sockio; new tables only: the DDL below
			  * adds them);
			  * 6: a multi-rank job (collectives, summary_ranks, rank_skew;
			  * new only: ranks.c's DDL adds them);
			  * 7: training steps (summary_steps, steps, step_sites, step_ops;
			  * new only: steps.c's DDL adds them);
			  * 8: format 1.5's records (inflight, triggers; new tables only);
			  * 9: format 1.8's snapshots.steal_pct */
#define APP_ID 0x494e4752 /* "INGR": PRAGMA application_id of an ingero database */

/* Tables (docs/schema.md).  u64 values (ids, handles, addresses) are
 * stored as their 64-bit pattern in a signed INTEGER. */
/* To version 4: the columns format 1.2 added. */
static const char upgrade4[] =
	"ALTER TABLE processes ADD COLUMN cgroup TEXT;"
	"ALTER TABLE processes ADD COLUMN cgroup_id INTEGER;"
	"ALTER TABLE processes ADD COLUMN pod_uid TEXT;"
	"ALTER TABLE processes ADD COLUMN container_id TEXT;"
	"ALTER TABLE host_events ADD COLUMN cgroup_id INTEGER;"
	"ALTER TABLE snapshots ADD COLUMN psi_cpu_some REAL;"
	"ALTER TABLE snapshots ADD COLUMN psi_mem_some REAL;"
	"ALTER TABLE snapshots ADD COLUMN psi_mem_full REAL;"
	"ALTER TABLE snapshots ADD COLUMN psi_io_some REAL;"
	"ALTER TABLE snapshots ADD COLUMN psi_io_full REAL;"
	"ALTER TABLE snapshot_procs ADD COLUMN rss_growth INTEGER;"
	"ALTER TABLE snapshot_procs ADD COLUMN comm TEXT;";
/* To version 9: the column format 1.8 added. */
static const char upgrade9[] = "ALTER TABLE snapshots ADD COLUMN steal_pct REAL";

/* Tables (docs/schema.md) not made from a record kind's fields, in the
 * order sqlite_schema has always kept them (schema dumps show it): the
 * session and its nodes first; the stacks, each stored once by id with its
 * frames as rows, where the kinds' tables put them (ddl_kinds); the
 * lookup and summary tables, indexes and views after those. */
static const char ddl_head[] =
	"CREATE TABLE IF NOT EXISTS sessions("
	" session_id INTEGER PRIMARY KEY, seq INTEGER NOT NULL, imported_ns INTEGER NOT NULL,"
	" tool TEXT NOT NULL, version TEXT NOT NULL, source TEXT NOT NULL,"
	" records INTEGER, events INTEGER, host_events INTEGER, unknown_records INTEGER,"
	" first_ts INTEGER, last_ts INTEGER, complete INTEGER NOT NULL DEFAULT 0);\n"
	"CREATE TABLE IF NOT EXISTS nodes("
	" session_id INTEGER NOT NULL, node INTEGER NOT NULL, name TEXT NOT NULL, host TEXT,"
	" boot_id TEXT, rank INTEGER, log_session INTEGER, recorder TEXT, kernel TEXT, driver TEXT,"
	" format_version TEXT, node_index INTEGER, anchor_mono_ns INTEGER, anchor_real_ns INTEGER,"
	" PRIMARY KEY(session_id, node));\n";
static const char ddl_stacks[] =
	"CREATE TABLE IF NOT EXISTS stacks("
	" session_id INTEGER NOT NULL, node INTEGER NOT NULL, stack_id INTEGER NOT NULL,"
	" pid INTEGER, depth INTEGER, PRIMARY KEY(session_id, node, stack_id)) WITHOUT ROWID;\n"
	"CREATE TABLE IF NOT EXISTS frames("
	" session_id INTEGER NOT NULL, node INTEGER NOT NULL, stack_id INTEGER NOT NULL,"
	" frame INTEGER NOT NULL, ip INTEGER,"
	" PRIMARY KEY(session_id, node, stack_id, frame)) WITHOUT ROWID;\n";
static const char ddl_pystacks[] =
	"CREATE TABLE IF NOT EXISTS pystacks("
	" session_id INTEGER NOT NULL, node INTEGER NOT NULL, pystack_id INTEGER NOT NULL,"
	" pid INTEGER, depth INTEGER, entry INTEGER,"
	" PRIMARY KEY(session_id, node, pystack_id)) WITHOUT ROWID;\n"
	"CREATE TABLE IF NOT EXISTS pyframes("
	" session_id INTEGER NOT NULL, node INTEGER NOT NULL, pystack_id INTEGER NOT NULL,"
	" frame INTEGER NOT NULL, code INTEGER, lasti INTEGER,"
	" PRIMARY KEY(session_id, node, pystack_id, frame)) WITHOUT ROWID;\n";
static const char ddl_tail[] =
	/* names at the edge: small lookup tables the views join */
	"CREATE TABLE IF NOT EXISTS ops(op INTEGER PRIMARY KEY, name TEXT NOT NULL, layer INTEGER);\n"
	"CREATE TABLE IF NOT EXISTS layers(layer INTEGER PRIMARY KEY, name TEXT NOT NULL);\n"
	"CREATE TABLE IF NOT EXISTS host_types(type INTEGER PRIMARY KEY, name TEXT NOT NULL);\n"
	"CREATE TABLE IF NOT EXISTS severities(severity INTEGER PRIMARY KEY, name TEXT NOT NULL);\n"
	/* summaries: computed while the rows load by the code ingero-correlate
	 * runs (lib/analyze: statistics, causal engine, call sites), so the
	 * views below read a few rows per key instead of every event */
	"CREATE TABLE IF NOT EXISTS summary_nodes("
	" session_id INTEGER NOT NULL, node INTEGER NOT NULL, start_ts INTEGER, end_ts INTEGER,"
	" window_ns INTEGER, windows INTEGER, records INTEGER, cuda_events INTEGER,"
	" host_events INTEGER, processes INTEGER, lost INTEGER);\n"
	"CREATE TABLE IF NOT EXISTS summary_ops("
	" session_id INTEGER NOT NULL, node INTEGER NOT NULL, layer INTEGER, op INTEGER,"
	" calls INTEGER, total_ns INTEGER, min_ns INTEGER, max_ns INTEGER, p50_ns INTEGER,"
	" p95_ns INTEGER, p99_ns INTEGER, errors INTEGER, bytes INTEGER, wall_frac REAL);\n"
	"CREATE TABLE IF NOT EXISTS summary_process_ops("
	" session_id INTEGER NOT NULL, node INTEGER NOT NULL, pid INTEGER, comm TEXT, layer INTEGER,"
	" op INTEGER, calls INTEGER, total_ns INTEGER, min_ns INTEGER, max_ns INTEGER,"
	" p50_ns INTEGER, p95_ns INTEGER, p99_ns INTEGER, errors INTEGER, bytes INTEGER,"
	" wall_frac REAL);\n"
	"CREATE TABLE IF NOT EXISTS summary_windows("
	" session_id INTEGER NOT NULL, node INTEGER NOT NULL, layer INTEGER, op INTEGER,"
	" start_ts INTEGER, end_ts INTEGER, calls INTEGER, total_ns INTEGER, busy_frac REAL,"
	" min_ns INTEGER, p50_ns INTEGER, p95_ns INTEGER, p99_ns INTEGER, max_ns INTEGER);\n"
	"CREATE TABLE IF NOT EXISTS summary_process_windows("
	" session_id INTEGER NOT NULL, node INTEGER NOT NULL, pid INTEGER, layer INTEGER,"
	" op INTEGER, start_ts INTEGER, end_ts INTEGER, calls INTEGER, total_ns INTEGER,"
	" busy_frac REAL, min_ns INTEGER, p50_ns INTEGER, p95_ns INTEGER, p99_ns INTEGER,"
	" max_ns INTEGER);\n"
	"CREATE TABLE IF NOT EXISTS summary_callsites("
	" session_id INTEGER NOT NULL, node INTEGER NOT NULL, pid INTEGER, op INTEGER,"
	" stack_id INTEGER, pystack_id INTEGER, calls INTEGER, total_ns INTEGER, max_ns INTEGER);\n"
	"CREATE TABLE IF NOT EXISTS summary_graph_execs("
	" session_id INTEGER NOT NULL, node INTEGER NOT NULL, pid INTEGER, handle INTEGER,"
	" instantiations INTEGER, launches INTEGER, first_ts INTEGER, last_ts INTEGER,"
	" launch_ns INTEGER);\n"
	"CREATE TABLE IF NOT EXISTS summary_graph_lifecycle("
	" session_id INTEGER NOT NULL, pid INTEGER, calls INTEGER, captures INTEGER,"
	" recaptures INTEGER, instantiations INTEGER, instantiate_ns INTEGER, launches INTEGER,"
	" failed INTEGER, capture_ns INTEGER);\n"
	"CREATE TABLE IF NOT EXISTS summary_preemptions("
	" session_id INTEGER NOT NULL, node INTEGER NOT NULL, pid INTEGER, other_pid INTEGER,"
	" other_comm TEXT, switches INTEGER, off_cpu_ns INTEGER);\n"
	/* CUDA Graph calls are few among many launches: a partial index, kept
	 * up row by row (only graph rows pay), in time order and covering the
	 * columns the graph tools read, so they never visit the table */
	"CREATE INDEX IF NOT EXISTS events_graph ON events(session_id, ts, op, pid, stream, handle,"
	" ret, dur_ns) WHERE op BETWEEN 14 AND 18;\n"
	/* views over the summaries */
	"CREATE VIEW IF NOT EXISTS latest_session AS"
	" SELECT session_id FROM sessions ORDER BY seq DESC LIMIT 1;\n"
	"CREATE VIEW IF NOT EXISTS op_stats AS"
	" SELECT s.session_id, s.node, nd.name AS node_name, s.layer, l.name AS layer_name, s.op,"
	"  o.name AS op_name, s.calls, s.total_ns, s.total_ns / max(s.calls, 1) AS mean_ns,"
	"  s.min_ns, s.max_ns, s.p50_ns, s.p95_ns, s.p99_ns, s.errors, s.bytes, s.wall_frac"
	" FROM summary_ops s LEFT JOIN ops o ON o.op = s.op LEFT JOIN layers l ON l.layer = s.layer"
	" LEFT JOIN nodes nd ON nd.session_id = s.session_id AND nd.node = s.node;\n"
	"CREATE VIEW IF NOT EXISTS process_op_stats AS"
	" SELECT s.session_id, s.node, s.pid, s.comm, s.layer, s.op, o.name AS op_name, s.calls,"
	"  s.total_ns, s.total_ns / max(s.calls, 1) AS mean_ns, s.min_ns, s.max_ns, s.p50_ns,"
	"  s.p95_ns, s.p99_ns, s.errors, s.bytes, s.wall_frac"
	" FROM summary_process_ops s LEFT JOIN ops o ON o.op = s.op;\n"
	"CREATE VIEW IF NOT EXISTS window_stats AS"
	" SELECT w.session_id, w.node, w.layer, w.op, o.name AS op_name, w.start_ts, w.end_ts,"
	"  w.calls, w.total_ns, w.busy_frac, w.min_ns, w.p50_ns, w.p95_ns, w.p99_ns, w.max_ns"
	" FROM summary_windows w LEFT JOIN ops o ON o.op = w.op;\n"
	"CREATE VIEW IF NOT EXISTS process_window_stats AS"
	" SELECT w.session_id, w.node, w.pid, w.layer, w.op, o.name AS op_name, w.start_ts,"
	"  w.end_ts, w.calls, w.total_ns, w.busy_frac, w.min_ns, w.p50_ns, w.p95_ns, w.p99_ns,"
	"  w.max_ns FROM summary_process_windows w LEFT JOIN ops o ON o.op = w.op;\n"
	"CREATE VIEW IF NOT EXISTS call_sites AS"
	" SELECT c.session_id, c.node, c.pid, c.op, o.name AS op_name, c.stack_id, c.pystack_id,"
	"  c.calls, c.total_ns, c.max_ns FROM summary_callsites c LEFT JOIN ops o ON o.op = c.op;\n"
	/* launches with the kernel each runs (SPEC §5.18): a driver handle's
	 * kernel record, a runtime launch's stub symbol */
	"CREATE VIEW IF NOT EXISTS launches AS"
	" SELECT e.*, coalesce(k.name, y.function) AS kernel FROM events e"
	" LEFT JOIN kernels k ON e.op IN (19, 20) AND k.session_id = e.session_id"
	"  AND k.node = e.node AND k.pid = e.pid AND k.handle = e.handle"
	" LEFT JOIN symbols y ON e.op = 6 AND y.session_id = e.session_id AND y.node = e.node"
	"  AND y.pid = e.pid AND y.ip = e.handle AND y.inline_depth = 0"
	" WHERE e.op IN (6, 19, 20);\n"
	"CREATE VIEW IF NOT EXISTS events_named AS"
	" SELECT e.*, o.name AS op_name, l.name AS layer_name, nd.name AS node_name"
	" FROM events e LEFT JOIN ops o ON o.op = e.op LEFT JOIN layers l ON l.layer = e.layer"
	" LEFT JOIN nodes nd ON nd.session_id = e.session_id AND nd.node = e.node;\n"
	"CREATE VIEW IF NOT EXISTS preemptions AS"
	" SELECT h.session_id, h.node, h.ts, h.dur_ns, h.pid, h.tid, h.comm, h.other_pid,"
	"  h.other_tid, h.other_comm, h.cpu FROM host_events h WHERE h.type = 1;\n"
	"CREATE VIEW IF NOT EXISTS stack_frames AS"
	" SELECT f.session_id, f.node, f.stack_id, f.frame, f.ip, s.pid, y.module, y.function,"
	"  y.file, y.line FROM frames f JOIN stacks s USING (session_id, node, stack_id)"
	" LEFT JOIN symbols y ON y.session_id = f.session_id AND y.node = f.node"
	"  AND y.pid = s.pid AND y.ip = f.ip AND y.inline_depth = 0;\n"
	"CREATE VIEW IF NOT EXISTS chains_named AS"
	" SELECT c.*, v.name AS severity_name, o.name AS op_name FROM chains c"
	" LEFT JOIN severities v ON v.severity = c.severity LEFT JOIN ops o ON o.op = c.op;\n";

/*
 * Secondary indexes, built once after the load on a new database (a sort
 * of each key is cheaper than keeping the B-trees up row by row), kept up
 * row by row on appends to an existing one: the kinds' (their sql_index
 * in lib/codec/schema.c), then the summaries'.  Op is the second column of
 * the events' time index and the third of their process index rather than
 * the first of an index of its own: per-op questions come with a time
 * window (served by events_ts without reading a row), and over a whole log
 * a scan in storage order beats an op index's random row reads; an op
 * index also cost twice the load itself to build (bench/RESULTS.md,
 * bench/sqlite).
 */
static const char indexes_tail[] =
	"CREATE INDEX IF NOT EXISTS summary_windows_op ON summary_windows(session_id, op, start_ts);\n"
	"CREATE INDEX IF NOT EXISTS summary_process_windows_pid"
	" ON summary_process_windows(session_id, pid, op, start_ts);\n";

/*
 * Upgrading a database of schema version 1 or 2: the views that read the
 * raw rows go, and the summaries of its sessions are made from their rows
 * (exact nearest-rank quantiles, by window functions) -- per-window rows
 * and node summaries need the log and stay empty for those sessions.
 */
#define NEAREST_RANK(key)                                                                    \
	"SELECT session_id, node, " key ", count(*) AS calls, sum(dur_ns) AS t, min(dur_ns) AS mn," \
	" max(dur_ns) AS mx, max(CASE WHEN rn = (n * 50 + 99) / 100 THEN dur_ns END) AS p50,"   \
	" max(CASE WHEN rn = (n * 95 + 99) / 100 THEN dur_ns END) AS p95,"                      \
	" max(CASE WHEN rn = (n * 99 + 99) / 100 THEN dur_ns END) AS p99, sum(ret != 0) AS bad,"\
	" sum(bytes) AS b FROM (SELECT *, row_number() OVER (PARTITION BY session_id, node, "   \
	key " ORDER BY dur_ns) AS rn, count(*) OVER (PARTITION BY session_id, node, " key       \
	") AS n FROM events) GROUP BY session_id, node, " key
static const char backfill[] =
	"INSERT INTO summary_ops SELECT session_id, node, layer, op, calls, t, mn, mx, p50, p95,"
	" p99, bad, b, NULL FROM (" NEAREST_RANK("layer, op") ");\n"
	"INSERT INTO summary_process_ops SELECT r.session_id, r.node, r.pid,"
	" (SELECT comm FROM processes p WHERE p.session_id = r.session_id AND p.node = r.node"
	"  AND p.pid = r.pid ORDER BY p.ts DESC LIMIT 1), r.layer, r.op, calls, t, mn, mx, p50,"
	" p95, p99, bad, b, NULL FROM (" NEAREST_RANK("pid, layer, op") ") r;\n"
	"INSERT INTO summary_callsites SELECT session_id, node, pid, op, stack_id, pystack_id,"
	" count(*), sum(dur_ns), max(dur_ns) FROM events"
	" GROUP BY session_id, node, pid, op, stack_id, pystack_id;\n";
/* summary_graph_execs came after version 3's other summaries: its rows for
 * the sessions of any older database */
static const char backfill_graph[] =
	"INSERT INTO summary_graph_execs SELECT session_id, node, pid, handle, sum(op != 18),"
	" sum(op = 18), min(CASE WHEN op = 18 THEN ts END), max(CASE WHEN op = 18 THEN ts END),"
	" sum(CASE WHEN op = 18 THEN dur_ns ELSE 0 END) FROM events"
	" WHERE op IN (16, 17, 18) AND ret = 0 GROUP BY session_id, node, pid, handle;\n";


static const char *const inserts[S__COUNT] = {
	[S_NODE] = "INSERT INTO nodes VALUES(?,?,?,?,?,?,?,?,?,?,?,?,?,?)",
	[S_STACK] = "INSERT OR IGNORE INTO stacks VALUES(?,?,?,?,?)",
	[S_FRAME] = "INSERT OR IGNORE INTO frames VALUES(?,?,?,?,?)",
	[S_PYSTACK] = "INSERT OR IGNORE INTO pystacks VALUES(?,?,?,?,?,?)",
	[S_PYFRAME] = "INSERT OR IGNORE INTO pyframes VALUES(?,?,?,?,?,?)",
};

/*
 * The kinds' tables (lib/export/sqlcols.c), and indexes, come in the order
 * sqlite_schema has always kept them (it keeps the order things were made
 * in, and schema dumps show it); a kind named in neither list follows the
 * others, in kind order.  STACKS and PYSTACKS stand for ddl_stacks and
 * ddl_pystacks.
 */
#define STACKS (-1)
#define PYSTACKS (-2)
static const int table_order[] = {
	ILOG_K_CLOCK, ILOG_K_PROCESS, ILOG_K_MAPPING, ILOG_K_CUDA, ILOG_K_HOST, STACKS, PYSTACKS,
	ILOG_K_PYCODE, ILOG_K_SYMBOL, ILOG_K_KERNEL, ILOG_K_BLKIO, ILOG_K_RETRANS, ILOG_K_SOCKIO,
	ILOG_K_SNAPSHOT, ILOG_K_LOSS, ILOG_K_CHAIN, ILOG_K_PROVENANCE,
};
static const int index_order[] = {
	ILOG_K_CUDA, ILOG_K_HOST, ILOG_K_SNAPSHOT, ILOG_K_BLKIO, ILOG_K_RETRANS, ILOG_K_SOCKIO,
	ILOG_K_SYMBOL, ILOG_K_PROCESS, ILOG_K_MAPPING, ILOG_K_CHAIN,
};

/* order, then every kind it does not name; the count */
static unsigned in_order(const int *order, unsigned n, int *out)
{
	unsigned m = 0;
	for (unsigned i = 0; i < n; i++)
		out[m++] = order[i];
	for (int k = 0; k < ILOG_K__COUNT; k++) {
		unsigned i = 0;
		while (i < n && order[i] != k)
			i++;
		if (i == n)
			out[m++] = k;
	}
	return m;
}

static const char *col_type(const struct ilog_sqlcol *c)
{
	if (!c->f)
		return "INTEGER"; /* computed */
	switch (c->f->type) {
	case FT_F64: return "REAL";
	case FT_STR: case FT_CHARS: case FT_ARR: return "TEXT";
	case FT_BIN: return c->flags & ILOG_COL_BLOB ? "BLOB" : "TEXT";
	default: return "INTEGER";
	}
}

/* u64 values (ids, handles, addresses) are stored as their 64-bit
 * pattern in a signed INTEGER; an array of scalars as JSON text. */
static int put_table(struct ilog_buf *b, const struct ilog_sqltab *t)
{
	int bad = ilog_buf_printf(b, "CREATE TABLE IF NOT EXISTS %s( session_id INTEGER NOT NULL%s",
				  t->name, t->tab & ILOG_TAB_NONODE ? "" : ", node INTEGER NOT NULL");
	for (unsigned i = 0; i < t->ncols; i++)
		bad |= ilog_buf_printf(b, ", %s %s%s", t->cols[i].name, col_type(&t->cols[i]),
				       t->cols[i].flags & ILOG_COL_NOTNULL ? " NOT NULL" : "");
	return bad | ilog_buf_printf(b, ");\n");
}

/* The whole schema's DDL (tables, indexes kept up row by row, views).
 * 0 or -1 with c->err. */
static int make_ddl(struct ilog_sink_ctx *c, struct sq *s, struct ilog_buf *b)
{
	int order[64];
	unsigned n = in_order(table_order, sizeof(table_order) / sizeof(table_order[0]), order);
	int bad = ilog_buf_printf(b, "%s", ddl_head);
	for (unsigned i = 0; i < n; i++) {
		const struct sq_kind *k = order[i] >= 0 ? &s->k[order[i]] : NULL;
		if (order[i] == STACKS || order[i] == PYSTACKS)
			bad |= ilog_buf_printf(b, "%s", order[i] == STACKS ? ddl_stacks : ddl_pystacks);
		if (k && k->has)
			bad |= put_table(b, &k->tab);
		if (k && k->has_rows)
			bad |= put_table(b, &k->rows);
	}
	bad |= ilog_buf_printf(b, "%s", ddl_tail) | ilog_buf_put(b, "", 1);
	if (bad)
		snprintf(c->err, sizeof(c->err), "out of memory");
	return bad ? -1 : 0;
}

int ilog_sq_indexes(struct ilog_sink_ctx *c, struct sq *s)
{
	struct ilog_buf b = { 0 };
	int order[64];
	unsigned n = in_order(index_order, sizeof(index_order) / sizeof(index_order[0]), order);
	int bad = 0;
	for (unsigned i = 0; i < n; i++) {
		const struct ilog_sqltab *t = &s->k[order[i]].tab;
		for (int x = 0; x < 2 && s->k[order[i]].has && t->sql_index[x]; x++) {
			const char *cols = strchr(t->sql_index[x], '(');
			if (cols)
				bad |= ilog_buf_printf(&b, "CREATE INDEX IF NOT EXISTS %s_%.*s ON %s%s;\n",
						       t->name, (int)(cols - t->sql_index[x]),
						       t->sql_index[x], t->name, cols);
		}
	}
	bad |= ilog_buf_printf(&b, "%s", indexes_tail) | ilog_buf_put(&b, "", 1);
	int rc = bad ? -1 : ilog_sq_exec(c, s, b.p);
	if (bad)
		snprintf(c->err, sizeof(c->err), "out of memory");
	ilog_buf_free(&b);
	return rc;
}

/* "INSERT INTO name VALUES(?,...)", its rows rows times (one statement
 * for many rows), prepared to be kept. */
static int prepare_insert(struct ilog_sink_ctx *c, struct sq *s, const struct ilog_sqltab *t,
			  int rows, sqlite3_stmt **st)
{
	struct ilog_buf q = { 0 };
	unsigned ncols = t->ncols + (t->tab & ILOG_TAB_NONODE ? 1 : 2);
	int bad = ilog_buf_printf(&q, "INSERT INTO %s VALUES", t->name);
	for (int i = 0; i < rows && !bad; i++) {
		bad |= ilog_buf_printf(&q, "%s(", i ? "," : "");
		for (unsigned k = 0; k < ncols; k++)
			bad |= ilog_buf_printf(&q, "%s?", k ? "," : "");
		bad |= ilog_buf_printf(&q, ")");
	}
	bad |= ilog_buf_put(&q, "", 1);
	int rc = bad ? SQLITE_NOMEM : sqlite3_prepare_v3(s->db, q.p, -1, SQLITE_PREPARE_PERSISTENT,
							  st, NULL);
	ilog_buf_free(&q);
	return rc == SQLITE_OK ? 0 : ilog_sq_err(c, s, "prepare");
}

/* The kinds' tables and their statements (after the DDL ran, for those). */
static int kind_tables(struct ilog_sink_ctx *c, struct sq *s, int prepare)
{
	if (!prepare && !s->k && !(s->k = calloc(ILOG_K__COUNT, sizeof(*s->k)))) {
		snprintf(c->err, sizeof(c->err), "out of memory");
		return -1;
	}
	for (uint32_t k = 0; k < ILOG_K__COUNT; k++) {
		struct sq_kind *q = &s->k[k];
		if (!prepare) {
			q->has = !ilog_sqltab_make(k, 0, &q->tab);
			q->has_rows = q->has && !ilog_sqltab_rows(&q->tab, &q->rows);
			continue;
		}
		if ((q->has && prepare_insert(c, s, &q->tab, 1, &q->st)) ||
		    (q->has_rows && prepare_insert(c, s, &q->rows, 1, &q->rst)))
			return -1;
	}
	if (!prepare)
		return 0;
	/* events go in BATCH rows per statement too */
	return prepare_insert(c, s, &s->k[ILOG_K_CUDA].tab, BATCH, &s->batch);
}

int ilog_sq_err(struct ilog_sink_ctx *c, struct sq *s, const char *what)
{
	snprintf(c->err, sizeof(c->err), "%s: %s", what, s->db ? sqlite3_errmsg(s->db) : "no database");
	return -1;
}

int ilog_sq_exec(struct ilog_sink_ctx *c, struct sq *s, const char *sql)
{
	char *msg = NULL;
	if (sqlite3_exec(s->db, sql, NULL, NULL, &msg) != SQLITE_OK) {
		snprintf(c->err, sizeof(c->err), "sqlite: %s", msg ? msg : sqlite3_errmsg(s->db));
		sqlite3_free(msg);
		return -1;
	}
	return 0;
}

static int64_t query_int(struct sq *s, const char *sql)
{
	sqlite3_stmt *st;
	int64_t v = -1;
	if (sqlite3_prepare_v2(s->db, sql, -1, &st, NULL) != SQLITE_OK)
		return -1;
	if (sqlite3_step(st) == SQLITE_ROW)
		v = sqlite3_column_int64(st, 0);
	sqlite3_finalize(st);
	return v;
}

/* A session id unique beyond this file, so sessions from many databases
 * can share one fleet table: 63 random bits. */
static int64_t new_session_id(void)
{
	uint64_t v = 0;
	int fd = open("/dev/urandom", O_RDONLY | O_CLOEXEC);
	if (fd >= 0) {
		if (read(fd, &v, sizeof(v)) != (ssize_t)sizeof(v))
			v = 0;
		close(fd);
	}
	if (!v) {
		struct timespec t;
		clock_gettime(CLOCK_REALTIME, &t);
		v = ((uint64_t)t.tv_sec * 1000000000ull + (uint64_t)t.tv_nsec) ^
		    ((uint64_t)getpid() << 40);
	}
	v &= INT64_MAX;
	return v ? (int64_t)v : 1;
}

static int lookups(struct ilog_sink_ctx *c, struct sq *s)
{
	static const char *const sql[] = {
		"INSERT OR IGNORE INTO ops VALUES(?,?,?)", "INSERT OR IGNORE INTO layers VALUES(?,?)",
		"INSERT OR IGNORE INTO host_types VALUES(?,?)",
		"INSERT OR IGNORE INTO severities VALUES(?,?)",
	};
	for (int t = 0; t < 4; t++) {
		sqlite3_stmt *st;
		if (sqlite3_prepare_v2(s->db, sql[t], -1, &st, NULL) != SQLITE_OK)
			return ilog_sq_err(c, s, "prepare");
		for (uint32_t v = 0; v < 256; v++) {
			const char *name = t == 0 ? (v < ILOG_OP__COUNT ? ilog_op_name(v) : NULL)
				: t == 1 ? ilog_layer_name(v) : t == 2 ? ilog_host_type_name(v)
				: ilog_severity_name(v);
			if (!name)
				continue;
			sqlite3_bind_int64(st, 1, v);
			sqlite3_bind_text(st, 2, name, -1, SQLITE_STATIC);
			if (t == 0)
				sqlite3_bind_int64(st, 3, ilog_op_layer(v));
			if (sqlite3_step(st) != SQLITE_DONE) {
				sqlite3_finalize(st);
				return ilog_sq_err(c, s, "insert");
			}
			sqlite3_reset(st);
		}
		sqlite3_finalize(st);
	}
	return 0;
}

int ilog_sq_open_db(struct ilog_sink_ctx *c, struct sq *s)
{
	/* Allocation statistics take a global mutex per malloc; we read none.
	 * This fails harmlessly (SQLITE_MISUSE) once SQLite is initialized. */
	sqlite3_config(SQLITE_CONFIG_MEMSTATUS, 0);
	/* NOMUTEX: the connection is used by this thread only, so the
	 * per-call connection mutex (a lock per bind) is pure cost. */
	if (sqlite3_open_v2(c->out_path, &s->db, SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE |
			    SQLITE_OPEN_NOMUTEX, NULL) != SQLITE_OK)
		return ilog_sq_err(c, s, "open");
	sqlite3_extended_result_codes(s->db, 1);
	/* An existing file must be an ingero database of our schema version:
	 * never add tables to someone else's. */
	int64_t app = query_int(s, "PRAGMA application_id");
	int64_t ntab = query_int(s, "SELECT count(*) FROM sqlite_schema");
	if (ntab < 0) {
		snprintf(c->err, sizeof(c->err), "not a database (%s)", sqlite3_errmsg(s->db));
		return -1;
	}
	if (ntab > 0 && app != APP_ID) {
		snprintf(c->err, sizeof(c->err), "not an ingero database (it has other tables); "
			 "choose a new file");
		return -1;
	}
	int64_t ver = query_int(s, "PRAGMA user_version");
	/* version 1 lacks pystacks.entry, 2 the summaries, 3 the host columns,
	 * 4 the blkio table, 8 snapshots.steal_pct */
	int upgrade = ntab > 0 && ver >= 1 && ver < SCHEMA_VERSION;
	if (ntab > 0 && ver != SCHEMA_VERSION && !upgrade) {
		snprintf(c->err, sizeof(c->err), "ingero database schema version %lld, this export "
			 "writes version %d; choose a new file", (long long)ver, SCHEMA_VERSION);
		return -1;
	}
	s->fresh = ntab == 0;
	if (s->fresh && ilog_sq_exec(c, s, "PRAGMA page_size=16384"))
		return -1;
	if (ilog_sq_exec(c, s, s->fresh ? "PRAGMA synchronous=OFF" : "PRAGMA synchronous=NORMAL") ||
	    ilog_sq_exec(c, s, "PRAGMA journal_mode=DELETE;"
		       "PRAGMA cache_size=-262144; PRAGMA temp_store=MEMORY;"
		       "PRAGMA locking_mode=EXCLUSIVE") ||
	    ilog_sq_exec(c, s, "BEGIN IMMEDIATE"))
		return -1;
	s->in_txn = 1;
	struct ilog_buf q = { 0 };
	char pragma[96];
	snprintf(pragma, sizeof(pragma), "PRAGMA application_id=%d; PRAGMA user_version=%d", APP_ID,
		 SCHEMA_VERSION);
	if ((upgrade && ver == 1 && ilog_sq_exec(c, s, "ALTER TABLE pystacks ADD COLUMN entry INTEGER")) ||
	    (upgrade && ver < 4 && ilog_sq_exec(c, s, upgrade4)) ||
	    (upgrade && ver < 9 && ilog_sq_exec(c, s, upgrade9)) ||
	    (upgrade && ver < 3 && ilog_sq_exec(c, s, "DROP VIEW IF EXISTS op_stats;"
				   "DROP VIEW IF EXISTS process_op_stats")) ||
	    kind_tables(c, s, 0) || make_ddl(c, s, &q) || ilog_sq_exec(c, s, q.p) ||
	    ilog_sq_exec(c, s, ilog_sq_ranks_ddl) || ilog_sq_exec(c, s, ilog_sq_steps_ddl) ||
	    ilog_sq_exec(c, s, pragma) || lookups(c, s) ||
	    (upgrade && ver < 3 && (ilog_sq_exec(c, s, backfill) || ilog_sq_exec(c, s, ILOG_SQ_PREEMPT_SUMMARY("")))) ||
	    (upgrade && ilog_sq_exec(c, s, backfill_graph))) {
		ilog_buf_free(&q);
		return -1;
	}
	ilog_buf_free(&q);
	if (!s->fresh && ilog_sq_indexes(c, s))
		return -1;
	for (int i = 0; i < S__COUNT; i++)
		if (sqlite3_prepare_v3(s->db, inserts[i], -1, SQLITE_PREPARE_PERSISTENT, &s->st[i],
				       NULL) != SQLITE_OK)
			return ilog_sq_err(c, s, "prepare");
	if (kind_tables(c, s, 1))
		return -1;
	/* the session row, completed at close */
	s->session = new_session_id();
	int64_t seq = query_int(s, "SELECT coalesce(max(seq), 0) + 1 FROM sessions");
	struct timespec t;
	clock_gettime(CLOCK_REALTIME, &t);
	sqlite3_stmt *st;
	if (sqlite3_prepare_v2(s->db, "INSERT INTO sessions(session_id, seq, imported_ns, tool, "
			       "version, source) VALUES(?,?,?,?,?,?)", -1, &st, NULL) != SQLITE_OK)
		return ilog_sq_err(c, s, "prepare");
	sqlite3_bind_int64(st, 1, s->session);
	sqlite3_bind_int64(st, 2, seq);
	sqlite3_bind_int64(st, 3, (int64_t)t.tv_sec * 1000000000 + t.tv_nsec);
	sqlite3_bind_text(st, 4, "ingero-export", -1, SQLITE_STATIC);
	sqlite3_bind_text(st, 5, INGERO_VERSION, -1, SQLITE_STATIC);
	sqlite3_bind_text(st, 6, c->source ? c->source : "", -1, SQLITE_TRANSIENT);
	int rc = sqlite3_step(st);
	sqlite3_finalize(st);
	if (rc != SQLITE_DONE)
		return ilog_sq_err(c, s, "insert session");
	return 0;
}
