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
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sqlite3.h>
#include "ingero/callsite.h"
#include "ingero/analysis.h"
#include "ingero/export.h"
#include "ingero/hmap.h"
#include "ingero/stats.h"
#include "ingero/vec.h"
#include "../export_int.h"

#define SCHEMA_VERSION 5 /* 2: pystacks.entry; 3: summary tables; 4: the whole host
			  * (format 1.2: cgroups, PSI, RSS growth); 5: format 1.3
			  * (blkio, retrans, sockio; new tables only: the DDL below
			  * adds them) */
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

static const char ddl[] =
	"CREATE TABLE IF NOT EXISTS sessions("
	" session_id INTEGER PRIMARY KEY, seq INTEGER NOT NULL, imported_ns INTEGER NOT NULL,"
	" tool TEXT NOT NULL, version TEXT NOT NULL, source TEXT NOT NULL,"
	" records INTEGER, events INTEGER, host_events INTEGER, unknown_records INTEGER,"
	" first_ts INTEGER, last_ts INTEGER, complete INTEGER NOT NULL DEFAULT 0);\n"
	"CREATE TABLE IF NOT EXISTS nodes("
	" session_id INTEGER NOT NULL, node INTEGER NOT NULL, name TEXT NOT NULL, host TEXT,"
	" boot_id TEXT, rank INTEGER, log_session INTEGER, recorder TEXT, kernel TEXT, driver TEXT,"
	" format_version TEXT, node_index INTEGER, anchor_mono_ns INTEGER, anchor_real_ns INTEGER,"
	" PRIMARY KEY(session_id, node));\n"
	"CREATE TABLE IF NOT EXISTS clocks("
	" session_id INTEGER NOT NULL, node INTEGER NOT NULL, mono_ns INTEGER, boot_ns INTEGER,"
	" real_ns INTEGER);\n"
	"CREATE TABLE IF NOT EXISTS processes("
	" session_id INTEGER NOT NULL, node INTEGER NOT NULL, ts INTEGER, pid INTEGER, ppid INTEGER,"
	" uid INTEGER, start_ns INTEGER, comm TEXT, exe TEXT, argv TEXT, cgroup TEXT,"
	" cgroup_id INTEGER, pod_uid TEXT, container_id TEXT);\n"
	"CREATE TABLE IF NOT EXISTS mappings("
	" session_id INTEGER NOT NULL, node INTEGER NOT NULL, ts INTEGER, pid INTEGER,"
	" start INTEGER, end INTEGER, file_offset INTEGER, prot INTEGER, path TEXT, build_id TEXT);\n"
	"CREATE TABLE IF NOT EXISTS events("
	" session_id INTEGER NOT NULL, node INTEGER NOT NULL, ts INTEGER NOT NULL,"
	" dur_ns INTEGER NOT NULL, pid INTEGER, tid INTEGER, layer INTEGER, op INTEGER, ret INTEGER,"
	" stream INTEGER, bytes INTEGER, handle INTEGER, kind INTEGER, grid_x INTEGER,"
	" grid_y INTEGER, grid_z INTEGER, block_x INTEGER, block_y INTEGER, block_z INTEGER,"
	" flags INTEGER, stack_id INTEGER, pystack_id INTEGER);\n"
	"CREATE TABLE IF NOT EXISTS host_events("
	" session_id INTEGER NOT NULL, node INTEGER NOT NULL, ts INTEGER NOT NULL, dur_ns INTEGER,"
	" type INTEGER, pid INTEGER, tid INTEGER, other_pid INTEGER, other_tid INTEGER, cpu INTEGER,"
	" value INTEGER, comm TEXT, other_comm TEXT, cgroup_id INTEGER);\n"
	"CREATE TABLE IF NOT EXISTS stacks("
	" session_id INTEGER NOT NULL, node INTEGER NOT NULL, stack_id INTEGER NOT NULL,"
	" pid INTEGER, depth INTEGER, PRIMARY KEY(session_id, node, stack_id)) WITHOUT ROWID;\n"
	"CREATE TABLE IF NOT EXISTS frames("
	" session_id INTEGER NOT NULL, node INTEGER NOT NULL, stack_id INTEGER NOT NULL,"
	" frame INTEGER NOT NULL, ip INTEGER,"
	" PRIMARY KEY(session_id, node, stack_id, frame)) WITHOUT ROWID;\n"
	"CREATE TABLE IF NOT EXISTS pystacks("
	" session_id INTEGER NOT NULL, node INTEGER NOT NULL, pystack_id INTEGER NOT NULL,"
	" pid INTEGER, depth INTEGER, entry INTEGER,"
	" PRIMARY KEY(session_id, node, pystack_id)) WITHOUT ROWID;\n"
	"CREATE TABLE IF NOT EXISTS pyframes("
	" session_id INTEGER NOT NULL, node INTEGER NOT NULL, pystack_id INTEGER NOT NULL,"
	" frame INTEGER NOT NULL, code INTEGER, lasti INTEGER,"
	" PRIMARY KEY(session_id, node, pystack_id, frame)) WITHOUT ROWID;\n"
	"CREATE TABLE IF NOT EXISTS pycode("
	" session_id INTEGER NOT NULL, node INTEGER NOT NULL, pid INTEGER, code INTEGER,"
	" py_version INTEGER, filename TEXT, qualname TEXT, firstlineno INTEGER, linetable BLOB);\n"
	"CREATE TABLE IF NOT EXISTS symbols("
	" session_id INTEGER NOT NULL, node INTEGER NOT NULL, pid INTEGER, ip INTEGER,"
	" build_id TEXT, module TEXT, module_off INTEGER, function TEXT, sym_off INTEGER,"
	" file TEXT, line INTEGER, inline_depth INTEGER);\n"
	"CREATE TABLE IF NOT EXISTS kernels("
	" session_id INTEGER NOT NULL, node INTEGER NOT NULL, pid INTEGER, handle INTEGER,"
	" name TEXT);\n"
	"CREATE TABLE IF NOT EXISTS blkio("
	" session_id INTEGER NOT NULL, node INTEGER NOT NULL, ts INTEGER NOT NULL, dur_ns INTEGER,"
	" major INTEGER, minor INTEGER, disk TEXT, pid INTEGER, nprocs INTEGER, comm TEXT,"
	" cgroup_id INTEGER, ios INTEGER, bytes INTEGER, read_ios INTEGER, read_bytes INTEGER,"
	" lat_sum_ns INTEGER, lat_max_ns INTEGER, p50_ns INTEGER, p99_ns INTEGER, hist TEXT);\n"
	"CREATE TABLE IF NOT EXISTS retrans("
	" session_id INTEGER NOT NULL, node INTEGER NOT NULL, ts INTEGER NOT NULL, dur_ns INTEGER,"
	" pid INTEGER, comm TEXT, cgroup_id INTEGER, family INTEGER, saddr TEXT, daddr TEXT,"
	" sport INTEGER, dport INTEGER, count INTEGER, state INTEGER, flows INTEGER);\n"
	"CREATE TABLE IF NOT EXISTS sockio("
	" session_id INTEGER NOT NULL, node INTEGER NOT NULL, ts INTEGER NOT NULL, dur_ns INTEGER,"
	" pid INTEGER, comm TEXT, cgroup_id INTEGER, tx_bytes INTEGER, rx_bytes INTEGER,"
	" tx_calls INTEGER, rx_calls INTEGER, others INTEGER);\n"
	"CREATE TABLE IF NOT EXISTS snapshots("
	" session_id INTEGER NOT NULL, node INTEGER NOT NULL, ts INTEGER NOT NULL, cpu_pct REAL,"
	" ncpu INTEGER, mem_total INTEGER, mem_avail INTEGER, swap_total INTEGER,"
	" swap_free INTEGER, load1 REAL, load5 REAL, load15 REAL, psi_cpu_some REAL,"
	" psi_mem_some REAL, psi_mem_full REAL, psi_io_some REAL, psi_io_full REAL);\n"
	"CREATE TABLE IF NOT EXISTS snapshot_procs("
	" session_id INTEGER NOT NULL, node INTEGER NOT NULL, ts INTEGER NOT NULL, pid INTEGER,"
	" cpu_pct REAL, rss INTEGER, rss_growth INTEGER, comm TEXT);\n"
	"CREATE TABLE IF NOT EXISTS losses("
	" session_id INTEGER NOT NULL, node INTEGER NOT NULL, ts INTEGER, source TEXT,"
	" lost INTEGER, seen INTEGER);\n"
	"CREATE TABLE IF NOT EXISTS chains("
	" session_id INTEGER NOT NULL, node INTEGER NOT NULL, chain_id INTEGER, ts_start INTEGER,"
	" ts_end INTEGER, severity INTEGER, pattern TEXT, pid INTEGER, op INTEGER, score REAL,"
	" title TEXT, root_cause TEXT, fix TEXT, evidence TEXT, comm TEXT, culprit_pid INTEGER,"
	" culprit_comm TEXT, lost_ns INTEGER, metrics TEXT);\n"
	"CREATE TABLE IF NOT EXISTS provenance("
	" session_id INTEGER NOT NULL, real_ns INTEGER, tool TEXT, version TEXT, args TEXT);\n"
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
 * row by row on appends to an existing one.  Op is the second column of
 * the time index and the third of the process index rather than the first
 * of an index of its own: per-op questions come with a time window (served
 * by events_ts without reading a row), and over a whole log a scan in
 * storage order beats an op index's random row reads; an op index also
 * cost twice the load itself to build (bench/RESULTS.md, bench/sqlite).
 */
static const char indexes[] =
	"CREATE INDEX IF NOT EXISTS events_ts ON events(ts, op);\n"
	"CREATE INDEX IF NOT EXISTS events_pid ON events(pid, ts, op);\n"
	"CREATE INDEX IF NOT EXISTS host_events_ts ON host_events(ts);\n"
	"CREATE INDEX IF NOT EXISTS host_events_pid ON host_events(pid, ts);\n"
	"CREATE INDEX IF NOT EXISTS snapshots_ts ON snapshots(ts);\n"
	"CREATE INDEX IF NOT EXISTS blkio_ts ON blkio(ts);\n"
	"CREATE INDEX IF NOT EXISTS retrans_ts ON retrans(ts);\n"
	"CREATE INDEX IF NOT EXISTS sockio_ts ON sockio(ts);\n"
	"CREATE INDEX IF NOT EXISTS symbols_ip ON symbols(session_id, node, pid, ip);\n"
	"CREATE INDEX IF NOT EXISTS processes_pid ON processes(session_id, node, pid);\n"
	"CREATE INDEX IF NOT EXISTS mappings_pid ON mappings(session_id, node, pid, start);\n"
	"CREATE INDEX IF NOT EXISTS chains_ts ON chains(ts_start);\n"
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

/* Preemptions per (thread's process, preempter): host switch events. */
#define PREEMPT_SUMMARY(where)                                                               \
	"INSERT INTO summary_preemptions SELECT session_id, node, pid, other_pid,"              \
	" max(other_comm), count(*), sum(dur_ns) FROM host_events WHERE type = 1" where         \
	" GROUP BY session_id, node, pid, other_pid"

#define BATCH 64
#define EVENT_COLS 22

enum stmt {
	S_NODE, S_CLOCK, S_PROCESS, S_MAPPING, S_EVENT, S_HOST, S_STACK, S_FRAME, S_PYSTACK,
	S_PYFRAME, S_PYCODE, S_SYMBOL, S_SNAP, S_SNAPPROC, S_LOSS, S_CHAIN, S_PROV, S_KERNEL,
	S_BLKIO, S_RETRANS, S_SOCKIO,
	S__COUNT
};

static const char *const inserts[S__COUNT] = {
	[S_NODE] = "INSERT INTO nodes VALUES(?,?,?,?,?,?,?,?,?,?,?,?,?,?)",
	[S_CLOCK] = "INSERT INTO clocks VALUES(?,?,?,?,?)",
	[S_PROCESS] = "INSERT INTO processes VALUES(?,?,?,?,?,?,?,?,?,?,?,?,?,?)",
	[S_MAPPING] = "INSERT INTO mappings VALUES(?,?,?,?,?,?,?,?,?,?)",
	[S_EVENT] = "INSERT INTO events VALUES(?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?)",
	[S_HOST] = "INSERT INTO host_events VALUES(?,?,?,?,?,?,?,?,?,?,?,?,?,?)",
	[S_STACK] = "INSERT OR IGNORE INTO stacks VALUES(?,?,?,?,?)",
	[S_FRAME] = "INSERT OR IGNORE INTO frames VALUES(?,?,?,?,?)",
	[S_PYSTACK] = "INSERT OR IGNORE INTO pystacks VALUES(?,?,?,?,?,?)",
	[S_PYFRAME] = "INSERT OR IGNORE INTO pyframes VALUES(?,?,?,?,?,?)",
	[S_PYCODE] = "INSERT INTO pycode VALUES(?,?,?,?,?,?,?,?,?)",
	[S_SYMBOL] = "INSERT INTO symbols VALUES(?,?,?,?,?,?,?,?,?,?,?,?)",
	[S_KERNEL] = "INSERT INTO kernels VALUES(?,?,?,?,?)",
	[S_BLKIO] = "INSERT INTO blkio VALUES(?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?)",
	[S_RETRANS] = "INSERT INTO retrans VALUES(?,?,?,?,?,?,?,?,?,?,?,?,?,?,?)",
	[S_SOCKIO] = "INSERT INTO sockio VALUES(?,?,?,?,?,?,?,?,?,?,?,?)",
	[S_SNAP] = "INSERT INTO snapshots VALUES(?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?)",
	[S_SNAPPROC] = "INSERT INTO snapshot_procs VALUES(?,?,?,?,?,?,?,?)",
	[S_LOSS] = "INSERT INTO losses VALUES(?,?,?,?,?,?)",
	[S_CHAIN] = "INSERT INTO chains VALUES(?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?)",
	[S_PROV] = "INSERT INTO provenance VALUES(?,?,?,?,?)",
};

struct sq {
	sqlite3 *db;
	sqlite3_stmt *st[S__COUNT];
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

static void graph_life_add(struct graph_life *l, const struct feed_ent *q)
{
	const struct ingero_cuda_event *e = &q->u.cuda;
	l->calls++;
	l->failed += e->ret != 0;
	switch (e->op) {
	case ILOG_OP_cudaStreamBeginCapture: {
		int k;
		l->captures++;
		l->open_ts = q->wall;
		for (k = 0; k < l->nstreams && l->streams[k] != (int64_t)e->stream; k++)
			;
		if (k == l->nstreams && l->nstreams < 64) {
			l->streams[k] = (int64_t)e->stream;
			l->stream_caps[l->nstreams++] = 0;
		}
		if (k < l->nstreams)
			l->stream_caps[k]++;
		break;
	}
	case ILOG_OP_cudaStreamEndCapture:
		if (l->open_ts)
			l->capture_ns += (uint64_t)(q->wall + (int64_t)e->dur_ns - l->open_ts);
		l->open_ts = 0;
		break;
	case ILOG_OP_cudaGraphInstantiate:
	case ILOG_OP_cudaGraphInstantiateWithFlags:
		l->instantiations++;
		l->instantiate_ns += e->dur_ns;
		break;
	default:
		l->launches++;
		break;
	}
}

/* A graph call (ops 14-18) into the session's lifecycle and its process's.
 * 0 or -1. */
static int graph_life_call(struct feed *f, const struct feed_ent *q)
{
	if (!f->nlives) {
		if (ilog_grow((void **)&f->lives, &f->caplives, 0, sizeof(*f->lives), 8))
			return -1;
		memset(&f->lives[0], 0, sizeof(f->lives[0]));
		f->nlives = 1;
	}
	uint64_t *v = ilog_hmap_put(&f->lifemap, q->u.cuda.pid, 0);
	if (!v)
		return -1;
	if (!*v) {
		if (ilog_grow((void **)&f->lives, &f->caplives, f->nlives, sizeof(*f->lives), 8))
			return -1;
		memset(&f->lives[f->nlives], 0, sizeof(f->lives[0]));
		f->lives[f->nlives].pid = q->u.cuda.pid;
		*v = ++f->nlives;
	}
	graph_life_add(&f->lives[0], q);
	graph_life_add(&f->lives[*v - 1], q);
	return 0;
}

/* A successful instantiation or launch of a graph exec.  0 or -1. */
static int graph_exec_add(struct feed *f, const struct feed_ent *q)
{
	const struct ingero_cuda_event *e = &q->u.cuda;
	uint64_t *v = ilog_hmap_put(&f->execmap, (uint64_t)(uint32_t)q->ord << 32 | e->pid, e->handle);
	if (!v)
		return -1;
	if (!*v) {
		if (ilog_grow((void **)&f->execs, &f->capexecs, f->nexecs, sizeof(*f->execs), 64))
			return -1;
		f->execs[f->nexecs] = (struct graph_exec){ .ord = q->ord, .pid = e->pid,
							   .handle = e->handle };
		*v = ++f->nexecs;
	}
	struct graph_exec *x = &f->execs[*v - 1];
	if (e->op != ILOG_OP_cudaGraphLaunch) {
		x->instantiations++;
		return 0;
	}
	if (!x->launches || q->wall < x->first_ts)
		x->first_ts = q->wall;
	if (!x->launches || q->wall > x->last_ts)
		x->last_ts = q->wall;
	x->launches++;
	x->launch_ns += e->dur_ns;
	return 0;
}

static void feed_apply(struct feed *f, const struct feed_ent *q, unsigned n)
{
	struct ilog_record *rec = &f->rec;
	for (unsigned i = 0; i < n; i++, q++) {
		if (f->failed) { /* out of memory: only free what was given */
			if (q->kind == ILOG_K_SNAPSHOT)
				free(q->u.snap);
			continue;
		}
		rec->kind = q->kind;
		rec->node = q->node;
		if (q->kind == ILOG_K_CUDA)
			rec->u.cuda = q->u.cuda;
		else if (q->kind == ILOG_K_HOST)
			rec->u.host = q->u.host;
		else if (q->kind == ILOG_K_SNAPSHOT) {
			rec->u.snapshot = *q->u.snap;
			free(q->u.snap);
		}
		/* the call sites key a call by the session's node */
		if (ilog_analysis_count(f->an, rec, NULL, (uint32_t)q->ord))
			f->failed = 1;
		if (q->kind == ILOG_K_CUDA) {
			if (q->u.cuda.op >= ILOG_OP_cudaStreamBeginCapture &&
			    q->u.cuda.op <= ILOG_OP_cudaGraphLaunch && graph_life_call(f, q))
				f->failed = 1;
			if ((q->u.cuda.op == ILOG_OP_cudaGraphInstantiate ||
			     q->u.cuda.op == ILOG_OP_cudaGraphInstantiateWithFlags ||
			     q->u.cuda.op == ILOG_OP_cudaGraphLaunch) && !q->u.cuda.ret &&
			    graph_exec_add(f, q))
				f->failed = 1;
		}
	}
}

static void *feed_main(void *arg)
{
	struct feed *f = arg;
	pthread_mutex_lock(&f->mu);
	for (;;) {
		while (!f->todo && !f->stop)
			pthread_cond_wait(&f->cv, &f->mu);
		if (!f->todo)
			break;
		struct feed_ent *q = f->todo;
		unsigned n = f->ntodo;
		f->todo = NULL;
		f->busy = 1;
		pthread_mutex_unlock(&f->mu);
		feed_apply(f, q, n);
		pthread_mutex_lock(&f->mu);
		f->busy = 0;
		pthread_cond_broadcast(&f->cv);
	}
	pthread_mutex_unlock(&f->mu);
	return NULL;
}

/* Hand the filled batch over (once the thread is done with the other)
 * and fill the other.  With wait, also wait until it is worked off. */
static void feed_hand(struct feed *f, int wait)
{
	if (!f->running) {
		feed_apply(f, f->buf[f->cur], f->n);
		f->n = 0;
		return;
	}
	pthread_mutex_lock(&f->mu);
	while (f->todo || f->busy)
		pthread_cond_wait(&f->cv, &f->mu);
	if (f->n) {
		f->todo = f->buf[f->cur];
		f->ntodo = f->n;
		f->cur ^= 1;
		f->n = 0;
		pthread_cond_broadcast(&f->cv);
	}
	while (wait && (f->todo || f->busy))
		pthread_cond_wait(&f->cv, &f->mu);
	pthread_mutex_unlock(&f->mu);
}

/* NULL when out of memory. */
static struct feed *feed_new(struct ilog_analysis *an)
{
	struct feed *f = calloc(1, sizeof(*f));
	if (!f)
		return NULL;
	f->an = an;
	f->buf[0] = malloc(2 * FEED_BATCH * sizeof(struct feed_ent));
	if (!f->buf[0]) {
		free(f);
		return NULL;
	}
	f->buf[1] = f->buf[0] + FEED_BATCH;
	pthread_mutex_init(&f->mu, NULL);
	pthread_cond_init(&f->cv, NULL);
	f->running = !pthread_create(&f->th, NULL, feed_main, f);
	return f;
}

/* Stop the thread after what it was given. */
static void feed_end(struct feed *f)
{
	if (!f || !f->running)
		return;
	pthread_mutex_lock(&f->mu);
	f->stop = 1;
	pthread_cond_broadcast(&f->cv);
	pthread_mutex_unlock(&f->mu);
	pthread_join(f->th, NULL);
	f->running = 0;
}

static void feed_free(struct feed *f)
{
	if (!f)
		return;
	feed_end(f);
	pthread_mutex_destroy(&f->mu);
	pthread_cond_destroy(&f->cv);
	for (unsigned i = 0; i < f->n; i++) /* filled, never handed over */
		if (f->buf[f->cur][i].kind == ILOG_K_SNAPSHOT)
			free(f->buf[f->cur][i].u.snap);
	free(f->buf[0]);
	ilog_hmap_free(&f->execmap);
	free(f->execs);
	ilog_hmap_free(&f->lifemap);
	free(f->lives);
	free(f);
}

/* One record for the summaries.  0, or -1 out of memory. */
static int feed_record(struct feed *f, const struct ilog_record *rec,
		       const struct ilog_reader *r, int ord, int64_t wall)
{
	switch (rec->kind) {
	case ILOG_K_HEADER:
	case ILOG_K_PROCESS:
	case ILOG_K_LOSS:
	case ILOG_K_BLKIO: /* a few a window */
		/* strings: in order, once the thread is idle */
		feed_hand(f, 1);
		return f->failed || ilog_analysis_count(f->an, rec, r, rec->node) ? -1 : 0;
	default:
		break;
	}
	struct feed_ent *q = &f->buf[f->cur][f->n++];
	q->kind = rec->kind;
	q->node = rec->node;
	q->ord = ord;
	q->wall = wall;
	if (rec->kind == ILOG_K_CUDA)
		q->u.cuda = rec->u.cuda;
	else if (rec->kind == ILOG_K_HOST)
		q->u.host = rec->u.host;
	else if (rec->kind == ILOG_K_SNAPSHOT) {
		/* one every few thousand calls, too large to copy inline */
		if (!(q->u.snap = malloc(sizeof(*q->u.snap)))) {
			f->n--;
			return -1;
		}
		*q->u.snap = rec->u.snapshot;
	}
	if (f->n == FEED_BATCH)
		feed_hand(f, 0);
	return f->failed ? -1 : 0;
}

static int sq_err(struct ilog_sink_ctx *c, struct sq *s, const char *what)
{
	snprintf(c->err, sizeof(c->err), "%s: %s", what, s->db ? sqlite3_errmsg(s->db) : "no database");
	return -1;
}

static int exec(struct ilog_sink_ctx *c, struct sq *s, const char *sql)
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
			return sq_err(c, s, "prepare");
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
				return sq_err(c, s, "insert");
			}
			sqlite3_reset(st);
		}
		sqlite3_finalize(st);
	}
	return 0;
}

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
	feed_free(s->feed);
	ilog_analysis_free(s->an);
	free(s->dbop);
	free(s);
}

static int sq_open_db(struct ilog_sink_ctx *c, struct sq *s);

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
	/* the caller's analysis options (its filter chose the records given
	 * here); call sites of every call, for summary_callsites */
	struct ilog_analysis_opts ao = c->analysis ? *c->analysis : (struct ilog_analysis_opts){ 0 };
	ao.callsites = 2;
	ao.kernels = 0;
	if ((s->an = ilog_analysis_new(&ao))) {
		s->stats = ilog_analysis_stats(s->an);
		s->feed = feed_new(s->an);
	}
	if (!s->feed) {
		snprintf(c->err, sizeof(c->err), "out of memory");
		sq_free(s);
		c->state = NULL;
		return -1;
	}
	if (sq_open_db(c, s)) {
		sq_free(s);
		c->state = NULL;
		return -1;
	}
	return 0;
}

static int sq_open_db(struct ilog_sink_ctx *c, struct sq *s)
{
	/* Allocation statistics take a global mutex per malloc; we read none.
	 * This fails harmlessly (SQLITE_MISUSE) once SQLite is initialized. */
	sqlite3_config(SQLITE_CONFIG_MEMSTATUS, 0);
	/* NOMUTEX: the connection is used by this thread only, so the
	 * per-call connection mutex (a lock per bind) is pure cost. */
	if (sqlite3_open_v2(c->out_path, &s->db, SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE |
			    SQLITE_OPEN_NOMUTEX, NULL) != SQLITE_OK)
		return sq_err(c, s, "open");
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
	 * 4 the blkio table */
	int upgrade = ntab > 0 && ver >= 1 && ver < SCHEMA_VERSION;
	if (ntab > 0 && ver != SCHEMA_VERSION && !upgrade) {
		snprintf(c->err, sizeof(c->err), "ingero database schema version %lld, this export "
			 "writes version %d; choose a new file", (long long)ver, SCHEMA_VERSION);
		return -1;
	}
	s->fresh = ntab == 0;
	if (s->fresh && exec(c, s, "PRAGMA page_size=16384"))
		return -1;
	if (exec(c, s, s->fresh ? "PRAGMA synchronous=OFF" : "PRAGMA synchronous=NORMAL") ||
	    exec(c, s, "PRAGMA journal_mode=DELETE;"
		       "PRAGMA cache_size=-262144; PRAGMA temp_store=MEMORY;"
		       "PRAGMA locking_mode=EXCLUSIVE") ||
	    exec(c, s, "BEGIN IMMEDIATE"))
		return -1;
	s->in_txn = 1;
	char pragma[96];
	snprintf(pragma, sizeof(pragma), "PRAGMA application_id=%d; PRAGMA user_version=%d", APP_ID,
		 SCHEMA_VERSION);
	if ((upgrade && ver == 1 && exec(c, s, "ALTER TABLE pystacks ADD COLUMN entry INTEGER")) ||
	    (upgrade && ver < 4 && exec(c, s, upgrade4)) ||
	    (upgrade && ver < 3 && exec(c, s, "DROP VIEW IF EXISTS op_stats;"
				   "DROP VIEW IF EXISTS process_op_stats")) ||
	    exec(c, s, ddl) || exec(c, s, pragma) || lookups(c, s) ||
	    (upgrade && ver < 3 && (exec(c, s, backfill) || exec(c, s, PREEMPT_SUMMARY("")))) ||
	    (upgrade && exec(c, s, backfill_graph)))
		return -1;
	if (!s->fresh && exec(c, s, indexes))
		return -1;
	for (int i = 0; i < S__COUNT; i++)
		if (sqlite3_prepare_v3(s->db, inserts[i], -1, SQLITE_PREPARE_PERSISTENT, &s->st[i],
				       NULL) != SQLITE_OK)
			return sq_err(c, s, "prepare");
	{
		/* INSERT INTO events VALUES(22 ?),(22 ?)... BATCH times */
		struct ilog_buf q = { 0 };
		int bad = ilog_buf_printf(&q, "INSERT INTO events VALUES");
		for (int i = 0; i < BATCH && !bad; i++) {
			bad |= ilog_buf_printf(&q, "%s(", i ? "," : "");
			for (int k = 0; k < EVENT_COLS; k++)
				bad |= ilog_buf_printf(&q, "%s?", k ? "," : "");
			bad |= ilog_buf_printf(&q, ")");
		}
		bad |= ilog_buf_put(&q, "", 1);
		int rc = bad ? SQLITE_NOMEM : sqlite3_prepare_v3(s->db, q.p, -1,
					SQLITE_PREPARE_PERSISTENT, &s->batch, NULL);
		ilog_buf_free(&q);
		if (rc != SQLITE_OK)
			return sq_err(c, s, "prepare");
	}
	/* the session row, completed at close */
	s->session = new_session_id();
	int64_t seq = query_int(s, "SELECT coalesce(max(seq), 0) + 1 FROM sessions");
	struct timespec t;
	clock_gettime(CLOCK_REALTIME, &t);
	sqlite3_stmt *st;
	if (sqlite3_prepare_v2(s->db, "INSERT INTO sessions(session_id, seq, imported_ns, tool, "
			       "version, source) VALUES(?,?,?,?,?,?)", -1, &st, NULL) != SQLITE_OK)
		return sq_err(c, s, "prepare");
	sqlite3_bind_int64(st, 1, s->session);
	sqlite3_bind_int64(st, 2, seq);
	sqlite3_bind_int64(st, 3, (int64_t)t.tv_sec * 1000000000 + t.tv_nsec);
	sqlite3_bind_text(st, 4, "ingero-export", -1, SQLITE_STATIC);
	sqlite3_bind_text(st, 5, INGERO_VERSION, -1, SQLITE_STATIC);
	sqlite3_bind_text(st, 6, c->source ? c->source : "", -1, SQLITE_TRANSIENT);
	int rc = sqlite3_step(st);
	sqlite3_finalize(st);
	if (rc != SQLITE_DONE)
		return sq_err(c, s, "insert session");
	return 0;
}

/* Bind helpers: positional, text without copying (the record's views
 * outlive the step). */
#define BI(st, i, v) sqlite3_bind_int64(st, i, (int64_t)(v))
#define BD(st, i, v) sqlite3_bind_double(st, i, v)
static void bt(sqlite3_stmt *st, int i, struct ilog_str s)
{
	sqlite3_bind_text(st, i, s.n ? s.p : "", (int)s.n, SQLITE_STATIC);
}

static int step(struct ilog_sink_ctx *c, struct sq *s, sqlite3_stmt *st)
{
	int rc = sqlite3_step(st);
	sqlite3_reset(st);
	if (rc != SQLITE_DONE)
		return sq_err(c, s, "insert");
	return 0;
}

/* A named op's number in this database: its row in `ops` by name, or a
 * new row after the highest.  -1 on a database error. */
static int db_op(struct ilog_sink_ctx *c, struct sq *s, uint32_t op)
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
		return sq_err(c, s, "prepare");
	sqlite3_bind_text(st, 1, name, -1, SQLITE_STATIC);
	sqlite3_bind_int64(st, 2, ILOG_OP_NAMED_FIRST);
	if (sqlite3_step(st) == SQLITE_ROW)
		got = sqlite3_column_int64(st, 0);
	sqlite3_finalize(st);
	if (got < ILOG_OP_NAMED_FIRST || got >= ILOG_OP_MAX)
		return sq_err(c, s, "named op numbers");
	if (sqlite3_prepare_v2(s->db, "INSERT OR IGNORE INTO ops VALUES(?,?,?)", -1, &st, NULL) !=
	    SQLITE_OK)
		return sq_err(c, s, "prepare");
	sqlite3_bind_int64(st, 1, got);
	sqlite3_bind_text(st, 2, name, -1, SQLITE_STATIC);
	sqlite3_bind_int64(st, 3, ilog_op_layer(op));
	int rc = sqlite3_step(st);
	sqlite3_finalize(st);
	if (rc != SQLITE_DONE)
		return sq_err(c, s, "insert");
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
		return step(c, s, s->batch);
	}
	for (unsigned i = 0; i < s->npend; i++) {
		bind_event(s->st[S_EVENT], 0, s->session, &s->pend[i]);
		if (step(c, s, s->st[S_EVENT]))
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
static int put_chain(struct ilog_sink_ctx *c, struct sq *s, int node, const struct ilog_chain *ch,
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
	int op = db_op(c, s, ch->op);
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
	return step(c, s, st);
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
	if (rec->kind == ILOG_K_HEADER && feed_record(s->feed, rec, r, 0, 0))
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
		return step(c, s, st);
	}
	int node = ilog_node_map_get(&s->nodes, rec, r);
	if (node < 0) {
		/* a record before any header cannot happen (the reader refuses) */
		node = 0;
	}
	uint64_t ts = ilog_record_ts(rec);
	int64_t wall = ts ? (int64_t)ilog_reader_wall(r, rec->node, ts) : 0;
	if (feed_record(s->feed, rec, r, node, wall))
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
			int op = db_op(c, s, e->op);
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
		return step(c, s, st);
	}
	case ILOG_K_CLOCK:
		st = s->st[S_CLOCK];
		BI(st, 1, s->session);
		BI(st, 2, node);
		BI(st, 3, rec->u.clock.mono_ns);
		BI(st, 4, rec->u.clock.boot_ns);
		BI(st, 5, rec->u.clock.real_ns);
		return step(c, s, st);
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
			return sq_err(c, s, "out of memory");
		sqlite3_bind_text(st, 10, s->tmp.p ? s->tmp.p : "[]", (int)(s->tmp.p ? s->tmp.len : 2),
				  SQLITE_STATIC);
		bt(st, 11, p->cgroup);
		BI(st, 12, p->cgroup_id);
		bt(st, 13, p->pod_uid);
		bt(st, 14, p->container_id);
		return step(c, s, st);
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
		return step(c, s, st);
	}
	case ILOG_K_STACK: {
		const struct ingero_stack *k = &rec->u.stack;
		st = s->st[S_STACK];
		BI(st, 1, s->session);
		BI(st, 2, node);
		BI(st, 3, k->id);
		BI(st, 4, k->pid);
		BI(st, 5, k->nr);
		if (step(c, s, st))
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
			if (step(c, s, st))
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
		if (step(c, s, st))
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
			if (step(c, s, st))
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
		return step(c, s, st);
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
		return step(c, s, st);
	}
	case ILOG_K_KERNEL:
		st = s->st[S_KERNEL];
		BI(st, 1, s->session);
		BI(st, 2, node);
		BI(st, 3, rec->u.kernel.pid);
		BI(st, 4, rec->u.kernel.handle);
		bt(st, 5, rec->u.kernel.name);
		return step(c, s, st);
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
		return step(c, s, st);
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
		return step(c, s, st);
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
		return step(c, s, st);
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
		if (step(c, s, st))
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
			if (step(c, s, st))
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
		return step(c, s, st);
	case ILOG_K_CHAIN:
		s->chain_records++;
		return put_chain(c, s, node, &rec->u.chain, wall,
				 rec->u.chain.ts_end ? (int64_t)ilog_reader_wall(r, rec->node,
									 rec->u.chain.ts_end) : 0);
	case ILOG_K_PROVENANCE:
		st = s->st[S_PROV];
		BI(st, 1, s->session);
		BI(st, 2, rec->u.provenance.real_ns);
		bt(st, 3, rec->u.provenance.tool);
		bt(st, 4, rec->u.provenance.version);
		bt(st, 5, rec->u.provenance.args);
		return step(c, s, st);
	case ILOG_K_SCHEMA:
	case ILOG_K_NODE:
		return 0;
	default:
		s->unknown++;
		return 0;
	}
}

/* ---- summaries, written at close from what the rows fed ---- */

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
	int op = db_op(x->c, x->s, p->op);
	if (op < 0)
		return -1;
	BI(st, 4, op);
	BI(st, 5, p->stack_id);
	BI(st, 6, p->pystack_id);
	BI(st, 7, p->calls);
	BI(st, 8, p->ns);
	BI(st, 9, p->max_ns);
	return step(x->c, x->s, st);
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
		return sq_err(c, s, "prepare");
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
		int op = db_op(c, s, r->op);
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
		rc = step(c, s, st);
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
static int put_summaries(struct ilog_sink_ctx *c, struct sq *s)
{
	sqlite3_stmt *st = NULL;
	int rc = -1;
	feed_hand(s->feed, 1);
	feed_end(s->feed);
	if (s->feed->failed) {
		snprintf(c->err, sizeof(c->err), "out of memory");
		return -1;
	}
	/* the chains ingero-correlate would add, unless the log has its own */
	if (ilog_analysis_finish(s->an, !s->chain_records)) {
		snprintf(c->err, sizeof(c->err), "%s%s", ilog_stats_error(s->stats) ? "" : "correlating: ",
			 ilog_analysis_error(s->an));
		return -1;
	}
	const struct ilog_chain_set *cs = ilog_analysis_chains(s->an);
	for (uint32_t i = 0; i < cs->n; i++) {
		const struct ilog_chain *ch = &cs->chains[i];
		if (put_chain(c, s, (int)cs->nodes[i], ch, wall_of(s, cs->nodes[i], ch->ts_start),
			      wall_of(s, cs->nodes[i], ch->ts_end)))
			goto out;
	}
	if (sqlite3_prepare_v2(s->db, "INSERT INTO summary_nodes VALUES(?,?,?,?,?,?,?,?,?,?,?)",
			       -1, &st, NULL) != SQLITE_OK) {
		sq_err(c, s, "prepare");
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
		if (step(c, s, st))
			goto out;
	}
	sqlite3_finalize(st);
	st = NULL;
	for (int k = 0; k < 4; k++)
		if (put_stat_rows(c, s, k & 1, k >> 1))
			goto out;
	if (sqlite3_prepare_v2(s->db, "INSERT INTO summary_callsites VALUES(?,?,?,?,?,?,?,?,?)", -1,
			       &st, NULL) != SQLITE_OK) {
		sq_err(c, s, "prepare");
		goto out;
	}
	struct sum_ctx x = { c, s, st };
	if (ilog_callsites_each(ilog_analysis_sites(s->an), put_callsite, &x))
		goto out;
	sqlite3_finalize(st);
	st = NULL;
	if (sqlite3_prepare_v2(s->db, PREEMPT_SUMMARY(" AND session_id = ?"), -1, &st, NULL) !=
	    SQLITE_OK) {
		sq_err(c, s, "prepare");
		goto out;
	}
	BI(st, 1, s->session);
	if (step(c, s, st))
		goto out;
	sqlite3_finalize(st);
	if (sqlite3_prepare_v2(s->db, "INSERT INTO summary_graph_execs VALUES(?,?,?,?,?,?,?,?,?)",
			       -1, &st, NULL) != SQLITE_OK) {
		st = NULL;
		sq_err(c, s, "prepare");
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
		if (step(c, s, st))
			goto out;
	}
	sqlite3_finalize(st);
	if (sqlite3_prepare_v2(s->db, "INSERT INTO summary_graph_lifecycle"
			       " VALUES(?,?,?,?,?,?,?,?,?,?)", -1, &st, NULL) != SQLITE_OK) {
		st = NULL;
		sq_err(c, s, "prepare");
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
		if (step(c, s, st))
			goto out;
	}
	rc = 0;
out:
	sqlite3_finalize(st);
	return rc;
}

static int sq_close(struct ilog_sink_ctx *c)
{
	struct sq *s = c->state;
	if (!s)
		return 0;
	int rc = s->in_txn && s->npend ? flush_events(c, s) : 0;
	if (!rc && s->in_txn)
		rc = put_summaries(c, s);
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
				rc = sq_err(c, s, "update session");
			sqlite3_finalize(st);
		} else {
			rc = sq_err(c, s, "prepare");
		}
		if (!rc && s->fresh)
			rc = exec(c, s, indexes);
		/* statistics for the planner, from a sample of each index
		 * (milliseconds): with them it picks the indexes the example
		 * queries are written for, and skips over the node column of
		 * a primary key when a query names no node */
		if (!rc)
			rc = exec(c, s, "PRAGMA analysis_limit=400; ANALYZE");
		if (!rc)
			rc = exec(c, s, "COMMIT");
		if (rc)
			sqlite3_exec(s->db, "ROLLBACK", NULL, NULL, NULL);
		if (!rc)
			rc = exec(c, s, "PRAGMA optimize");
	}
	if (s->db && sqlite3_close(s->db) != SQLITE_OK && !rc)
		rc = sq_err(c, s, "close");
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
