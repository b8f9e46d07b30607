/* SPDX-License-Identifier: MIT */
/*
 * Internal to the export sinks (lib/export_*.c): node numbering, JSON
 * string escaping, buffered output, per-op aggregation for the metrics
 * formats.
 */
#ifndef ILOG_EXPORT_INT_H
#define ILOG_EXPORT_INT_H

#include "ingero/export.h"
#include "ingero/nodemap.h"
#include "ingero/hist.h"
#include "ingero/hmap.h"
#include "ingero/vec.h"
#include "ingero/schema.h"

/*
 * The SQL sinks' tables of record kinds (sqlcols.c): SQLite's and
 * ClickHouse's columns come from the kind table (ingero/schema.h: the
 * fields and their SQL members), plus the columns computed from a record,
 * named here in one place.  Each sink adds its own leading columns
 * (session, node) and maps types.
 */
#define ILOG_SQL_MAXCOLS 40

enum ilog_sqlc_src {
	ILOG_SQLC_FIELD,      /* a field of the record */
	ILOG_SQLC_ELEM,       /* a field of an array's elements (arr): ClickHouse
			       * an array of it, SQLite's rows table one value */
	ILOG_SQLC_P50,        /* blkio: the median latency of its histogram */
	ILOG_SQLC_P99,        /* blkio: the 99th percentile */
};

struct ilog_sqlcol {
	const char *name;
	const struct ilog_field *f;   /* FIELD, ELEM: the field */
	const struct ilog_field *arr; /* ELEM: the array */
	uint8_t src;                  /* enum ilog_sqlc_src */
	uint16_t flags;               /* f's ILOG_COL_*, with ILOG_COL_WALL on every time */
};

struct ilog_sqltab {
	uint32_t kind;
	const char *name;
	uint8_t tab;                  /* ILOG_TAB_* */
	const char *sql_index[2], *ch_key; /* the kind's (ingero/schema.h) */
	unsigned ncols;
	struct ilog_sqlcol cols[ILOG_SQL_MAXCOLS];
	/* SQLite: the array of records stored as rows of a table of its own,
	 * whose columns ilog_sqltab_rows makes; NULL none */
	const struct ilog_field *rows;
	char names[512];              /* the names made here */
	unsigned nnames;
};

/*
 * Kind's table in SQLite (ch 0) or ClickHouse (ch 1): its columns after
 * the sink's own, in the order the sinks store them.  0, or -1 when the
 * kind has no table there (unknown, ILOG_TAB_NONE, ILOG_TAB_LOCAL in
 * ClickHouse).
 */
int ilog_sqltab_make(uint32_t kind, int ch, struct ilog_sqltab *t);
/* SQLite: the table of parent->rows, one row per element: the parent's
 * times, then the element's fields (ELEM columns).  0 or -1 (none). */
int ilog_sqltab_rows(const struct ilog_sqltab *parent, struct ilog_sqltab *t);
/* A scalar column's value in a record (base) or element (elem): integers
 * as their 64 bits (signed ones sign-extended), a double's bits for F64
 * (ilog_sqlcol_f64 reads it), computed columns computed. */
uint64_t ilog_sqlcol_u64(const struct ilog_sqlcol *c, const void *base, const void *elem);
double ilog_sqlcol_f64(const struct ilog_sqlcol *c, const void *base, const void *elem);
/* A text column (FT_STR, FT_CHARS) as a view. */
struct ilog_str ilog_sqlcol_str(const struct ilog_sqlcol *c, const void *base, const void *elem);
/* The bytes of an FT_BIN column. */
struct ilog_bin ilog_sqlcol_bin(const struct ilog_sqlcol *c, const void *base, const void *elem);
/* An array field's element count (at most its max) and first element. */
uint32_t ilog_sqlarr_n(const struct ilog_field *arr, const void *base);
const void *ilog_sqlarr_at(const struct ilog_field *arr, const void *base, uint32_t i);



/*
 * Per (node, op) call statistics for prometheus and otlp: counts, errors,
 * bytes, total and a fixed latency histogram (bucket upper bounds in
 * ILOG_LAT_BOUNDS_NS, a 1-2.5-5 series from 1 us to 10 s; the last bucket
 * is +Inf).  Host preemptions and losses per node ride along.
 */
#define ILOG_LAT_NBOUNDS 22
extern const uint64_t ilog_lat_bounds_ns[ILOG_LAT_NBOUNDS];

struct ilog_opagg {
	uint64_t calls, errors, bytes, sum_ns, min_ns, max_ns;
	uint64_t bucket[ILOG_LAT_NBOUNDS + 1];  /* non-cumulative counts */
};

struct ilog_loss_agg { char source[64]; uint64_t lost, seen; };

struct ilog_nodeagg {
	struct ilog_opagg *op;                 /* by op number; named ops too */
	uint32_t nop;
	uint64_t preempt, preempt_ns;
	uint64_t first_ns, last_ns;            /* wall clock span of the events */
	struct ilog_loss_agg *loss;
	uint32_t nloss;
};

struct ilog_metrics {
	struct ilog_node_map nodes;
	struct ilog_nodeagg *agg;              /* per export node */
	uint32_t nagg;
};

/* Account one record.  0 or -1 (ENOMEM). */
int ilog_metrics_add(struct ilog_metrics *m, const struct ilog_record *rec,
		     const struct ilog_reader *r);
void ilog_metrics_free(struct ilog_metrics *m);

/* The metrics sinks' shared state and callbacks: aggregate every record,
 * render once at close with the sink's render(m, out) (0 or -1 ENOMEM). */
struct ilog_metrics_sink {
	struct ilog_metrics m;
	struct ilog_buf b;
};
int ilog_metrics_sink_open(struct ilog_sink_ctx *c);
int ilog_metrics_sink_record(struct ilog_sink_ctx *c, const struct ilog_record *rec,
			     const struct ilog_reader *r);
int ilog_metrics_sink_close(struct ilog_sink_ctx *c,
			    int (*render)(const struct ilog_metrics *m, struct ilog_buf *b));

/*
 * The live model (ingero/export.h, lib/export/live.c).  The sliding
 * window is ILOG_LIVE_SLOTS slots of window/ILOG_LIVE_SLOTS each, indexed
 * by slot number (wall ns / slot ns) modulo the count; a slot is cleared
 * and reused when the stream reaches a later slot number.  A slot holds,
 * per node and op, a log-linear latency histogram (allocated on the op's
 * first call and then reused) and the node's preemptions.
 */
#define ILOG_LIVE_SLOTS 12
#define ILOG_LIVE_NB ILOG_HIST_NB             /* ingero/hist.h's buckets */
struct ilog_live_cell { uint32_t *h; uint64_t calls; };
struct ilog_live_slotnode { struct ilog_live_cell op[ILOG_OP__COUNT]; uint64_t preempt; };
struct ilog_live_slot {
	uint64_t id;                        /* slot number + 1; 0 = never used */
	struct ilog_live_slotnode *n;       /* per export node */
	uint32_t nn;
};
struct ilog_live_host {
	int seen;
	double cpu_pct, load1;
	uint64_t mem_total, mem_avail, swap_total, swap_free;
};
struct ilog_live_chains { uint32_t node, sev; char kind[48]; uint64_t n; };
struct ilog_live {
	struct ilog_live_opts o;
	struct ilog_metrics m;                 /* cumulative, as --format prometheus */
	uint64_t slot_ns, latest_slot, first_wall, latest_wall;
	struct ilog_live_slot slot[ILOG_LIVE_SLOTS];
	struct ilog_live_host *host;           /* per export node */
	uint32_t nhost;
	struct ilog_live_chains *chains;
	uint32_t nchains;
	uint64_t chain_windows;                /* chain windows analyzed */
	struct ilog_analysis *an;              /* the open chain window */
	uint64_t st_end;                       /* its end (wall ns) */
	uint8_t *st_hdr;                       /* per reader node: header fed */
	uint32_t nst_hdr;
	uint64_t records, push[ILOG_PUSH__N];
	int oom;
	void *mu;                              /* pthread_mutex_t */
};
void ilog_live_lock(struct ilog_live *l);
void ilog_live_unlock(struct ilog_live *l);
/* Which export nodes a figure is about: node g alone (first NULL), or
 * every node i with first[i] == g (the Prometheus export's node groups). */
struct ilog_live_nodes { const uint32_t *first; uint32_t g; };
/* Nearest-rank quantiles qs[0..nq) (0..1) of the window's calls of op on
 * the nodes, in ns, into out; returns the number of calls in the window
 * (0: out untouched).  Under the lock. */
uint64_t ilog_live_quantiles(const struct ilog_live *l, struct ilog_live_nodes on, int op,
			     const double *qs, int nq, uint64_t *out);
/* Preemptions per second on the nodes over the window.  Under the lock. */
double ilog_live_preempt_rate(const struct ilog_live *l, struct ilog_live_nodes on);
/* The window actually covered so far (the full window once the stream is
 * longer), ns. */
uint64_t ilog_live_span(const struct ilog_live *l);

/*
 * Timeline tracks for the trace formats, created in order of first use so
 * output is a function of the input only:
 *  - a process per (export node, pid), named from process records
 *    ("python3 (pid 812) on gpu-node-1 (rank 1)", "pid 812 on ..." when
 *    no process record named it), its threads by tid under it;
 *  - a process per export node for what is the node's, not a process's
 *    (system counters, losses, causal chains), named by the node's label;
 *  - per thread, a second track for its preemptions (see ilog_tracks_fit).
 * Perfetto keys processes and threads by pid and tid alone, so ids must be
 * unique across nodes: export node k's pid (tid) P is written as
 * k * ILOG_TRACE_STRIDE + P.  Node 0 (the only one of a single-node log)
 * keeps the real ids; Linux ids are below 2^22, so the ranges do not meet,
 * and k * 10^7 + P still reads as the real id.  Unique while
 * k * 10^7 + 10^7 fits in Perfetto's 32-bit pid, i.e. for 214 nodes.
 */
#define ILOG_TRACE_STRIDE 10000000u
#define ILOG_TRACE_LANE   5000000u   /* JSON preemption lanes: + tid */
#define ILOG_TRACE_NODE   9999999u   /* the node's own process */
static inline uint64_t ilog_trace_id(uint32_t node, uint32_t id)
{
	return (uint64_t)node * ILOG_TRACE_STRIDE + id;
}

struct ilog_thread_track {
	uint32_t node, pid, tid;
	int proc;                  /* its process (ilog_tracks_process) */
	int lane;                  /* its preemption track was written */
};

struct ilog_proc_track {
	uint32_t node, pid;
	uint64_t uuid;             /* the format's own use (protobuf track) */
	int named;                 /* written with a name from a process record */
};

/*
 * Slices on one track must nest (a child inside its parent) for Perfetto
 * to pair BEGIN and END events, and for Chrome DevTools' trace engine,
 * which rejects a partial overlap.  CUDA calls of one thread nest by
 * construction (a runtime call around the driver calls it makes), but a
 * preemption is measured by the scheduler's tracepoints while the call
 * around it is timed by uprobes: real recordings have preemptions that
 * end a fraction of a microsecond after the call that contains them.
 * Clamping one into the other would falsify a measurement, so each thread
 * has two tracks (lanes): its CUDA calls, and its preemptions.  A lane
 * whose slices still do not nest (a synthetic or damaged log) gets the
 * later slice's end clipped so that they do, and the exports say so in an
 * argument.  The check looks at the last ILOG_NEST_RECENT slices of the
 * lane, in the order written, and at up to ILOG_NEST_OPEN earlier ones
 * still open at the latest start.
 */
#define ILOG_NEST_RECENT 64
#define ILOG_NEST_OPEN 32
struct ilog_nest {
	uint64_t s[ILOG_NEST_RECENT], e[ILOG_NEST_RECENT];
	uint32_t n, head;
	uint64_t os[ILOG_NEST_OPEN], oe[ILOG_NEST_OPEN];
	uint32_t nopen;
	uint64_t max_end;          /* the largest end of all the above */
};
enum { ILOG_LANE_CALLS, ILOG_LANE_PREEMPT, ILOG_LANES };

struct ilog_tracks {
	struct ilog_node_map nodes;
	struct ilog_nest *nest;    /* per thread track, ILOG_LANES each */
	struct ilog_thread_track *threads;
	uint32_t nthreads, cap;
	struct ilog_proc_track *procs;
	uint32_t nprocs, pcap;
	struct ilog_hmap tmap;   /* (node, tid) key + 1 -> thread index + 1 */
	struct ilog_hmap pmap;   /* (node, pid) key + 1 -> process index + 1 */
	struct ilog_hmap cmap;   /* (node, pid) key + 1 -> comm index + 1 */
	size_t ncomm;
	char (*comms)[INGERO_COMM_LEN];
	struct ilog_disk_win *disks; /* per (node, device): the window being summed */
	uint32_t ndisks;
};

/* A device's blkio records of one window, summed for its counter tracks. */
struct ilog_disk_win {
	uint32_t node, major, minor;
	char disk[32];
	uint64_t ts, dur_ns, ios, bytes, lat_max_ns;
	uint64_t hist[INGERO_BLK_HBUCKETS];
};

/* The process track of (node, pid), created (*isnew = 1) on first use.
 * Returns its index or -1 on ENOMEM. */
int ilog_tracks_process(struct ilog_tracks *t, uint32_t node, uint32_t pid, int *isnew);
/* The thread track of (node, tid), created (*isnew = 1) on first use, and
 * its process's with it (ilog_tracks_thread's caller writes that first).
 * Returns its index or -1 on ENOMEM. */
int ilog_tracks_thread(struct ilog_tracks *t, uint32_t node, uint32_t pid, uint32_t tid,
		       int *isnew);
/* The end a slice [start, end] on lane `lane` of thread track t may have so
 * that it nests with the slices written before it on that lane (end itself
 * when it does); the slice is then recorded as written. */
uint64_t ilog_tracks_fit_lane(struct ilog_tracks *t, int track, int lane, uint64_t start,
			      uint64_t end);
/* The same on the thread's calls lane. */
static inline uint64_t ilog_tracks_fit(struct ilog_tracks *t, int track, uint64_t start,
				       uint64_t end)
{
	return ilog_tracks_fit_lane(t, track, ILOG_LANE_CALLS, start, end);
}
/* "python3 (pid 812) on gpu-node-1 (rank 1)", "pid 812 on gpu-node-1". */
void ilog_process_label(const struct ilog_tracks *t, uint32_t node, uint32_t pid, char *buf,
			size_t len);
/* Remember a process name.  0 or -1. */
int ilog_tracks_comm_set(struct ilog_tracks *t, uint32_t node, uint32_t pid, const char *comm,
			 size_t n);
/* A process name, or NULL if none was recorded. */
const char *ilog_tracks_comm(const struct ilog_tracks *t, uint32_t node, uint32_t pid);
void ilog_tracks_free(struct ilog_tracks *t);
/*
 * The trace formats (Perfetto JSON and protobuf) draw the same records:
 * ilog_trace_record() numbers nodes from headers, names processes from
 * process records, and hands every other drawn record to the format's
 * callback with its export node and wall-clock time in ns (records of a node
 * whose header was not seen are skipped).  Callbacks return 0 or -1
 * (ENOMEM), and so does ilog_trace_record.
 */
struct ilog_trace_ops {
	int (*node)(void *s, uint32_t node, int isnew, const struct ilog_header *h);
	int (*cuda)(void *s, uint32_t node, const struct ingero_cuda_event *e, uint64_t wall);
	int (*host)(void *s, uint32_t node, const struct ingero_host_event *h, uint64_t wall);
	int (*snapshot)(void *s, uint32_t node, const struct ilog_snapshot *sn, uint64_t wall);
	int (*loss)(void *s, uint32_t node, const struct ilog_loss *l, uint64_t wall);
	int (*chain)(void *s, uint32_t node, const struct ilog_chain *ch, uint64_t wall,
		     uint64_t end);
	/* a process record named (node, pid): its track, if written, may
	 * need the name (optional) */
	int (*process)(void *s, uint32_t node, uint32_t pid);
	/* a value of the node's counter track "GROUP KEY" */
	int (*counter)(void *s, uint32_t node, uint64_t wall, const char *group, const char *key,
		       double v);
};
int ilog_trace_record(struct ilog_tracks *t, const struct ilog_trace_ops *ops, void *s,
		      const struct ilog_record *rec, const struct ilog_reader *r);
/* At the end of the stream: the counters of windows still being summed. */
int ilog_trace_finish(struct ilog_tracks *t, const struct ilog_trace_ops *ops, void *s);
/* The key of a page_alloc(_rest) record's counter track, after "pages/s ":
 * "COMM (pid PID)" or "other processes". */
void ilog_page_track_name(char *buf, size_t n, const struct ingero_host_event *h);

#endif
