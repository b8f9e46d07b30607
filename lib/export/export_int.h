/* SPDX-License-Identifier: MIT */
/*
 * Internal to the export sinks (lib/export_*.c): node numbering, JSON
 * string escaping, buffered output, per-op aggregation for the metrics
 * formats.
 */
#ifndef ILOG_EXPORT_INT_H
#define ILOG_EXPORT_INT_H

#include "ingero/export.h"
#include "ingero/hmap.h"
#include "ingero/vec.h"

/*
 * Export nodes: every distinct recording (node name, log session, boot id)
 * met in a header gets the next ordinal, in order of appearance, whatever
 * node_index it has in its log, so several logs in one export (each with
 * node_index 0) stay apart and a merged log keeps its order.
 */
struct ilog_export_node {
	char name[128], host[128];
	int64_t rank;
	uint64_t log_session;
	char boot_id[64];
};

struct ilog_node_map {
	int32_t *by_index;         /* reader node index -> export node, -1 none */
	uint32_t nidx;
	struct ilog_export_node *nodes;
	uint32_t nnodes;
};

/* For a header record: its export node (>= 0) and *isnew, or -1 on ENOMEM. */
int ilog_node_map_header(struct ilog_node_map *m, const struct ilog_record *rec,
			 const struct ilog_reader *r, int *isnew);
/* Export node of any record, or -1 when no header was seen for its node. */
static inline int ilog_node_map_get(const struct ilog_node_map *m, const struct ilog_record *rec,
				    const struct ilog_reader *r)
{
	(void)r;
	return rec->node < m->nidx ? m->by_index[rec->node] : -1;
}
void ilog_node_map_free(struct ilog_node_map *m);

/* NUL-separated argv as a JSON array of strings.  0 or -1. */
int ilog_json_argv(struct ilog_buf *b, struct ilog_bin argv);

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
	struct ilog_opagg op[ILOG_OP__COUNT];
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
 * Timeline tracks for the trace formats: one per export node, one per
 * (node, thread), created in order of first use so output is a function
 * of the input only.  Process names come from process records.
 */
struct ilog_thread_track {
	uint32_t node, pid, tid;
};

/*
 * Slices on one track must nest (a child inside its parent) for Perfetto
 * to pair BEGIN and END events.  Real recordings nest by construction (a
 * thread cannot enter or leave a call while switched out); a log that
 * does not (synthetic or damaged) gets the later slice's end clipped so
 * that it does, and the exports say so in an argument.  The check looks
 * at the last ILOG_NEST_RECENT slices of the track, in the order written,
 * and at up to ILOG_NEST_OPEN earlier ones still open at the latest start.
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

struct ilog_tracks {
	struct ilog_node_map nodes;
	struct ilog_nest *nest;    /* per thread track */
	struct ilog_thread_track *threads;
	uint32_t nthreads, cap;
	struct ilog_hmap tmap;   /* (node, tid) key + 1 -> thread index + 1 */
	struct ilog_hmap cmap;   /* (node, pid) key + 1 -> comm index + 1 */
	size_t ncomm;
	char (*comms)[INGERO_COMM_LEN];
};

/* The thread track of (node, tid), created (*isnew = 1) on first use.
 * Returns its index or -1 on ENOMEM. */
int ilog_tracks_thread(struct ilog_tracks *t, uint32_t node, uint32_t pid, uint32_t tid,
		       int *isnew);
/* The end a slice [start, end] on thread track t may have so that it nests
 * with the slices written before it on that track (end itself when it
 * does); the slice is then recorded as written. */
uint64_t ilog_tracks_fit(struct ilog_tracks *t, int track, uint64_t start, uint64_t end);
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
 * callback with its export node and wall-clock time (records of a node
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
};
int ilog_trace_record(struct ilog_tracks *t, const struct ilog_trace_ops *ops, void *s,
		      const struct ilog_record *rec, const struct ilog_reader *r);
/* Display name of an export node: "name (rank R)" or "name". */
void ilog_node_label(const struct ilog_export_node *n, char *buf, size_t len);

#endif
