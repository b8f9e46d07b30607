// SPDX-License-Identifier: MIT
/*
 * --format perfetto-proto: Perfetto's native trace format, a stream of
 * TracePacket messages (the repeated field 1 of perfetto.protos.Trace),
 * written by our own protobuf encoder.  Field numbers are those of
 * Perfetto's published protos (protos/perfetto/trace/...); the subset we
 * write is described in docs/perfetto_subset.proto, which tests use with
 * `protoc --decode`.  The mapping is the JSON export's (perfetto.c): a
 * process (ProcessDescriptor) per (node, pid) and one per node, a thread
 * (ThreadDescriptor) per tid, pids and tids unique across nodes
 * (export_int.h), except that a thread's preemptions are on a child track
 * of the thread's track, "preemptions", where JSON needs a thread.
 * Timestamps are integer nanoseconds end to end (the log's, deltas and
 * clock snapshots are integers; no microseconds, no doubles).
 *
 * Size, without losing anything the JSON has:
 *  - every thread track has a packet sequence of its own, whose defaults
 *    name the track (events carry no track id) and whose timestamps are
 *    deltas on an incremental sequence clock (2-3 bytes instead of 9); an
 *    event earlier than its sequence's last (a parent call returns after
 *    its children) carries an absolute CLOCK_REALTIME timestamp instead;
 *  - names, categories, argument names and repeated argument values
 *    (streams, kernel handles, launch shapes, process names) are interned:
 *    written once per sequence, then referred to by small ids;
 *  - descriptors, counters and chains ride on sequence 1, whose clock is
 *    ns after the first header's second.
 * Output is a function of the input only.
 */
#include <inttypes.h>
#include <libdeflate.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include "export_int.h"

/* Perfetto field numbers (facts from the published .proto files) */
enum {
	TRACE_PACKET = 1,
	/* TracePacket */
	TP_TIMESTAMP = 8, TP_TRACK_EVENT = 11, TP_SEQ_ID = 10, TP_INTERNED = 12,
	TP_SEQ_FLAGS = 13, TP_CLOCK_ID = 58, TP_DEFAULTS = 59, TP_TRACK_DESCRIPTOR = 60,
	TP_CLOCK_SNAPSHOT = 6, TP_COMPRESSED = 50,
	/* ClockSnapshot, ClockSnapshot.Clock */
	CS_CLOCKS = 1, CS_PRIMARY = 2, CL_ID = 1, CL_TS = 2, CL_INCREMENTAL = 3,
	/* TracePacketDefaults */
	TPD_CLOCK_ID = 58, TPD_TRACK_EVENT = 11,
	/* TrackEvent */
	TE_CATEGORY_IIDS = 3, TE_ANNOTATIONS = 4, TE_TYPE = 9, TE_NAME_IID = 10,
	TE_TRACK_UUID = 11, TE_DOUBLE_COUNTER = 44,
	TYPE_SLICE_BEGIN = 1, TYPE_SLICE_END = 2, TYPE_INSTANT = 3, TYPE_COUNTER = 4,
	/* DebugAnnotation */
	DA_NAME_IID = 1, DA_UINT = 3, DA_INT = 4, DA_DOUBLE = 5, DA_STRING = 6,
	DA_STRING_IID = 17,
	/* InternedData and its entries ({iid = 1, name/str = 2}) */
	ID_CATEGORIES = 1, ID_EVENT_NAMES = 2, ID_ANNOTATION_NAMES = 3, ID_STRING_VALUES = 29,
	IE_IID = 1, IE_NAME = 2,
	/* TrackDescriptor, ProcessDescriptor, ThreadDescriptor, CounterDescriptor */
	TD_UUID = 1, TD_NAME = 2, TD_PROCESS = 3, TD_THREAD = 4, TD_PARENT = 5, TD_COUNTER = 8,
	PD_PID = 1, PD_NAME = 6, THD_PID = 1, THD_TID = 2, THD_NAME = 5,
	CD_UNIT = 3, UNIT_COUNT = 2, UNIT_SIZE_BYTES = 3,
	SEQ_INCREMENTAL_STATE_CLEARED = 1,
	CLOCK_REALTIME_ID = 1, CLOCK_SEQ = 64,
};

/* ---- protobuf writing ---- */

/* ilog_buf growth failures are remembered here and reported per record */
static __thread int pb_oom;

/* Room for n more bytes; writers below then store without further checks. */
static int room(struct ilog_buf *b, size_t n)
{
	if (!ilog_buf_reserve(b, n))
		return 1;
	pb_oom = 1;
	return 0;
}

static void put(struct ilog_buf *b, const void *q, size_t n)
{
	if (room(b, n)) {
		memcpy(b->p + b->len, q, n);
		b->len += n;
	}
}

static inline void pb_varint(struct ilog_buf *b, uint64_t v)
{
	if (!room(b, 10))
		return;
	uint8_t *d = (uint8_t *)b->p + b->len, *d0 = d;
	while (v > 0x7f) {
		*d++ = (uint8_t)(v | 0x80);
		v >>= 7;
	}
	*d++ = (uint8_t)v;
	b->len += (size_t)(d - d0);
}

static inline void pb_tag(struct ilog_buf *b, uint32_t field, int wt)
{
	pb_varint(b, (uint64_t)field << 3 | (uint32_t)wt);
}

static inline void pb_u64(struct ilog_buf *b, uint32_t field, uint64_t v)
{
	pb_tag(b, field, 0);
	pb_varint(b, v);
}

static void pb_double(struct ilog_buf *b, uint32_t field, double d)
{
	uint64_t v;
	uint8_t t[8];
	memcpy(&v, &d, 8);
	for (int i = 0; i < 8; i++)
		t[i] = (uint8_t)(v >> (8 * i));
	pb_tag(b, field, 1);
	put(b, t, 8);
}

static void pb_bytes(struct ilog_buf *b, uint32_t field, const void *p, size_t n)
{
	pb_tag(b, field, 2);
	pb_varint(b, n);
	put(b, p, n);
}

static void pb_str(struct ilog_buf *b, uint32_t field, const char *s)
{
	pb_bytes(b, field, s, strlen(s));
}

/* A nested message: reserve one length byte, write the body, then widen
 * the length in place if the body turned out longer than 127 bytes. */
static size_t pb_open(struct ilog_buf *b, uint32_t field)
{
	pb_tag(b, field, 2);
	put(b, "", 1);
	return b->len;
}

static void pb_close(struct ilog_buf *b, size_t start)
{
	if (!b->p || b->len < start)
		return;
	size_t len = b->len - start;
	uint8_t t[10];
	int n = 0;
	uint64_t v = len;
	do {
		t[n++] = (uint8_t)((v & 0x7f) | (v > 0x7f ? 0x80 : 0));
		v >>= 7;
	} while (v);
	if (n > 1) {
		if (!room(b, (size_t)n - 1))
			return;
		b->len += (size_t)n - 1;
		memmove(b->p + start + n - 1, b->p + start, len);
	}
	memcpy(b->p + start - 1, t, (size_t)n);
}

/* ---- interning ---- */

enum ann {
	A_RET = 1, A_STREAM, A_BYTES, A_HANDLE, A_KIND, A_GRID, A_BLOCK, A_FLAGS, A_STACK,
	A_PYSTACK, A_BY, A_BY_PID, A_BY_TID, A_CPU, A_OTHER_COMM, A_OTHER_PID, A_VALUE,
	A_PATTERN, A_TITLE, A_ROOT, A_FIX, A_SCORE, A_PID, A_OP, A_UNTIL, A_CLIPPED, A__COUNT
};
static const char *const ann_names[A__COUNT] = {
	[A_RET] = "ret", [A_STREAM] = "stream", [A_BYTES] = "bytes", [A_HANDLE] = "handle",
	[A_KIND] = "kind", [A_GRID] = "grid", [A_BLOCK] = "block", [A_FLAGS] = "flags",
	[A_STACK] = "stack_id", [A_PYSTACK] = "pystack_id", [A_BY] = "by", [A_BY_PID] = "by_pid",
	[A_BY_TID] = "by_tid", [A_CPU] = "cpu", [A_OTHER_COMM] = "other_comm",
	[A_OTHER_PID] = "other_pid", [A_VALUE] = "value", [A_PATTERN] = "pattern",
	[A_TITLE] = "title", [A_ROOT] = "root_cause", [A_FIX] = "fix", [A_SCORE] = "score",
	[A_PID] = "pid", [A_OP] = "op", [A_UNTIL] = "until_ns", [A_CLIPPED] = "clipped_from_ns",
};

/* event-name iids: op + 1, then these */
enum { N_PREEMPTED = 64, N_HOST = 65 /* + host type */, N_SEV = 80 /* + severity */, N__MAX = 96 };
/* category iids: layer + 1, then these */
enum { C_HOST = 8, C_CHAIN = 9, C__MAX = 16 };

#define MAX_INTERNED_STRINGS (1u << 20)

/* Argument strings: one global iid per distinct string (iids may not be
 * reused for another value anywhere in a trace); each sequence writes the
 * entry before its first use there. */
struct seq {                   /* a packet sequence */
	uint32_t id;
	uint64_t last;             /* its clock: wall ns of the last delta-coded packet */
	uint8_t name_done[N__MAX], cat_done[C__MAX], ann_done[A__COUNT];
	struct ilog_hmap sdone;  /* string iids written on it */
};

struct counters {              /* per node, on sequence 1 */
	uint64_t cpu, steal, mem, swap, load, chains;
	uint64_t psi[5];           /* cpu some, mem some, mem full, io some, io full */
	/* counters made on first use, by name: losses, page allocations */
	struct { char src[160]; uint64_t uuid; } *loss;
	uint32_t nloss;
};

struct pf {
	struct ilog_buf b, pkt, intern;
	struct zw *zw;             /* NULL: packets written as they are */
	struct ilog_tracks t;
	uint64_t next_uuid;
	uint64_t *node_uuid;       /* process track per node */
	struct counters *ctr;
	uint32_t nnode_uuid;
	struct tseq { uint64_t uuid, puuid; struct seq s; } *th; /* per thread track;
							   * puuid: preemptions */
	uint32_t nth;
	struct seq glob;           /* sequence 1 */
	struct seq *cur;           /* the sequence of the packet being built */
	struct ilog_strpool st;   /* global iid - 1 -> string */
	struct ilog_hmap hexc, dimc; /* number -> iid of its text */
	int started;
	uint64_t base;             /* sequence 1's clock zero, wall ns */
};

/* 1 if iid was already written on the sequence, else marks it and 0 (-1 oom). */
static int seq_has_str(struct seq *q, uint32_t iid)
{
	uint64_t *v = ilog_hmap_put(&q->sdone, iid, 0);
	if (!v)
		return -1;
	if (*v)
		return 1;
	*v = 1;
	return 0;
}

/* The global iid of a string (0 when the table is full, or ENOMEM). */
static uint32_t global_iid(struct pf *p, const char *s, size_t n)
{
	if (p->st.nstrs >= MAX_INTERNED_STRINGS && ilog_strpool_find(&p->st, s, n) < 0)
		return 0;
	int64_t i = ilog_strpool_add(&p->st, s, n);
	return i < 0 ? 0 : (uint32_t)i + 1;
}

/* Use iid on the current sequence: its entry goes into p->intern the
 * first time.  Returns iid, or 0 on ENOMEM. */
static uint32_t use_iid(struct pf *p, uint32_t iid)
{
	int had = seq_has_str(p->cur, iid);
	if (had < 0)
		return 0;
	if (!had) {
		const char *q = p->st.strs[iid - 1];
		size_t e = pb_open(&p->intern, ID_STRING_VALUES);
		pb_u64(&p->intern, IE_IID, iid);
		pb_bytes(&p->intern, IE_NAME, q, strlen(q));
		pb_close(&p->intern, e);
	}
	return iid;
}

static uint64_t str_iid(struct pf *p, const char *s, size_t n)
{
	uint32_t iid = global_iid(p, s, n);
	return iid ? use_iid(p, iid) : 0;
}

static void intern_entry(struct pf *p, uint32_t field, uint64_t iid, const char *name)
{
	size_t e = pb_open(&p->intern, field);
	pb_u64(&p->intern, IE_IID, iid);
	pb_str(&p->intern, IE_NAME, name);
	pb_close(&p->intern, e);
}

static uint64_t name_iid(struct pf *p, uint32_t iid)
{
	if (!p->cur->name_done[iid]) {
		char tmp[32];
		const char *name;
		if (iid >= N_SEV)
			name = ilog_severity_name(iid - N_SEV);
		else if (iid >= N_HOST)
			name = ilog_host_type_name(iid - N_HOST);
		else if (iid == N_PREEMPTED)
			name = "preempted";
		else
			name = ilog_op_name(iid - 1);
		if (!name) {
			snprintf(tmp, sizeof(tmp), "op%u", iid - 1);
			name = tmp;
		}
		intern_entry(p, ID_EVENT_NAMES, iid, name);
		p->cur->name_done[iid] = 1;
	}
	return iid;
}

static uint64_t cat_iid(struct pf *p, uint32_t iid)
{
	if (!p->cur->cat_done[iid]) {
		const char *name = iid == C_HOST ? "host" : iid == C_CHAIN ? "chain"
				   : ilog_layer_name(iid - 1);
		intern_entry(p, ID_CATEGORIES, iid, name ? name : "unknown");
		p->cur->cat_done[iid] = 1;
	}
	return iid;
}

static uint64_t ann_iid(struct pf *p, enum ann a)
{
	if (!p->cur->ann_done[a]) {
		intern_entry(p, ID_ANNOTATION_NAMES, a, ann_names[a]);
		p->cur->ann_done[a] = 1;
	}
	return a;
}

/* ---- arguments ---- */

static void ann_uint(struct pf *p, enum ann a, uint64_t v)
{
	size_t e = pb_open(&p->pkt, TE_ANNOTATIONS);
	pb_u64(&p->pkt, DA_NAME_IID, ann_iid(p, a));
	pb_u64(&p->pkt, DA_UINT, v);
	pb_close(&p->pkt, e);
}

static void ann_int(struct pf *p, enum ann a, int64_t v)
{
	size_t e = pb_open(&p->pkt, TE_ANNOTATIONS);
	pb_u64(&p->pkt, DA_NAME_IID, ann_iid(p, a));
	pb_u64(&p->pkt, DA_INT, (uint64_t)v);
	pb_close(&p->pkt, e);
}

static void ann_double(struct pf *p, enum ann a, double v)
{
	size_t e = pb_open(&p->pkt, TE_ANNOTATIONS);
	pb_u64(&p->pkt, DA_NAME_IID, ann_iid(p, a));
	pb_double(&p->pkt, DA_DOUBLE, v);
	pb_close(&p->pkt, e);
}

/* a string argument; interned when intern is set (values that repeat) */
static void ann_str(struct pf *p, enum ann a, const char *s, size_t n, int intern)
{
	size_t e = pb_open(&p->pkt, TE_ANNOTATIONS);
	pb_u64(&p->pkt, DA_NAME_IID, ann_iid(p, a));
	uint64_t iid = intern ? str_iid(p, s, n) : 0;
	if (iid)
		pb_u64(&p->pkt, DA_STRING_IID, iid);
	else
		pb_bytes(&p->pkt, DA_STRING, s, n);
	pb_close(&p->pkt, e);
}

/* an argument whose interned text is a function of a number */
/* an argument whose interned text is a function of a number: the number
 * keys the text's iid, so the text is formatted and hashed once per value */
static void ann_num_str(struct pf *p, enum ann a, struct ilog_hmap *c, uint64_t key,
			const char *fmt, ...) __attribute__((format(printf, 5, 6)));
static void ann_num_str(struct pf *p, enum ann a, struct ilog_hmap *c, uint64_t key,
			const char *fmt, ...)
{
	uint64_t *slot = key ? ilog_hmap_put(c, key, 0) : NULL; /* 0: not cacheable */
	uint32_t iid = slot ? (uint32_t)*slot : 0;
	char t[80];
	va_list ap;
	if (!iid) {
		va_start(ap, fmt);
		int n = vsnprintf(t, sizeof(t), fmt, ap);
		va_end(ap);
		iid = global_iid(p, t, (size_t)n);
		if (slot)
			*slot = iid;
	}
	if (iid && use_iid(p, iid)) {
		size_t e = pb_open(&p->pkt, TE_ANNOTATIONS);
		pb_u64(&p->pkt, DA_NAME_IID, ann_iid(p, a));
		pb_u64(&p->pkt, DA_STRING_IID, iid);
		pb_close(&p->pkt, e);
		return;
	}
	va_start(ap, fmt);
	int n = vsnprintf(t, sizeof(t), fmt, ap);
	va_end(ap);
	ann_str(p, a, t, (size_t)n, 0);
}

static void ann_hex(struct pf *p, enum ann a, uint64_t v)
{
	ann_num_str(p, a, &p->hexc, v, "0x%" PRIx64, v);
}

/* "512x1x1"; dimensions of up to 21 bits each key the cache exactly */
static void ann_dims(struct pf *p, enum ann a, uint32_t x, uint32_t y, uint32_t z)
{
	if (x < (1u << 21) && y < (1u << 21) && z < (1u << 21))
		ann_num_str(p, a, &p->dimc, (uint64_t)x | (uint64_t)y << 21 | (uint64_t)z << 42 | 1ull << 63,
			    "%ux%ux%u", x, y, z);
	else
		ann_num_str(p, a, &p->dimc, 0, "%ux%ux%u", x, y, z);
}

/* ---- packets ---- */

/* Wrap p->pkt (a TracePacket body built for p->cur) with its timestamp,
 * sequence id and the interned data it introduced, as field 1 of Trace. */
static void emit_packet(struct pf *p, uint64_t wall, int has_ts)
{
	struct ilog_buf *b = &p->b;
	struct seq *q = p->cur;
	size_t e = pb_open(b, TRACE_PACKET);
	if (has_ts) {
		if (q == &p->glob && wall >= p->base) {
			pb_u64(b, TP_TIMESTAMP, wall - p->base);
		} else if (q != &p->glob && wall >= q->last) {
			pb_u64(b, TP_TIMESTAMP, wall - q->last);
			q->last = wall;
		} else {
			pb_u64(b, TP_TIMESTAMP, wall);
			pb_u64(b, TP_CLOCK_ID, CLOCK_REALTIME_ID);
		}
	}
	put(b, p->pkt.p, p->pkt.len);
	pb_u64(b, TP_SEQ_ID, q->id);
	if (p->intern.len) {
		pb_bytes(b, TP_INTERNED, p->intern.p, p->intern.len);
		p->intern.len = 0;
	}
	pb_close(b, e);
	p->pkt.len = 0;
}

/*
 * The first packet of a sequence: incremental state starts here; clock 64
 * is tied to CLOCK_REALTIME at `zero` (and counts deltas on thread
 * sequences); the defaults make clock 64 the packets' clock and, on a
 * thread sequence, its track the events' track.
 */
static void seq_start(struct pf *p, struct seq *q, uint32_t id, uint64_t zero, uint64_t track)
{
	struct ilog_buf *k = &p->pkt;
	q->id = id;
	q->last = zero;
	p->cur = q;
	size_t cs = pb_open(k, TP_CLOCK_SNAPSHOT);
	size_t c = pb_open(k, CS_CLOCKS);
	pb_u64(k, CL_ID, CLOCK_REALTIME_ID);
	pb_u64(k, CL_TS, zero);
	pb_close(k, c);
	c = pb_open(k, CS_CLOCKS);
	pb_u64(k, CL_ID, CLOCK_SEQ);
	pb_u64(k, CL_TS, 0);
	if (track)
		pb_u64(k, CL_INCREMENTAL, 1);
	pb_close(k, c);
	pb_u64(k, CS_PRIMARY, CLOCK_REALTIME_ID);
	pb_close(k, cs);
	pb_u64(k, TP_SEQ_FLAGS, SEQ_INCREMENTAL_STATE_CLEARED);
	size_t d = pb_open(k, TP_DEFAULTS);
	pb_u64(k, TPD_CLOCK_ID, CLOCK_SEQ);
	if (track) {
		size_t td = pb_open(k, TPD_TRACK_EVENT);
		pb_u64(k, TE_TRACK_UUID, track);
		pb_close(k, td);
	}
	pb_close(k, d);
	emit_packet(p, 0, 0);
}

static void descriptor_begin(struct pf *p, uint64_t uuid, size_t *td)
{
	p->cur = &p->glob;
	*td = pb_open(&p->pkt, TP_TRACK_DESCRIPTOR);
	pb_u64(&p->pkt, TD_UUID, uuid);
}

static void descriptor_end(struct pf *p, size_t td)
{
	pb_close(&p->pkt, td);
	emit_packet(p, 0, 0);
}

static void process_descriptor(struct pf *p, uint64_t uuid, uint64_t pid, const char *name)
{
	size_t td, pd;
	descriptor_begin(p, uuid, &td);
	pd = pb_open(&p->pkt, TD_PROCESS);
	pb_u64(&p->pkt, PD_PID, pid);
	pb_str(&p->pkt, PD_NAME, name);
	pb_close(&p->pkt, pd);
	descriptor_end(p, td);
}

static int node_track(struct pf *p, uint32_t node)
{
	if (node >= p->nnode_uuid) {
		uint32_t n = node + 1;
		uint64_t *u = realloc(p->node_uuid, n * sizeof(*u));
		if (u)
			p->node_uuid = u;
		struct counters *c = realloc(p->ctr, n * sizeof(*c));
		if (c)
			p->ctr = c;
		if (!u || !c)
			return -1;
		memset(u + p->nnode_uuid, 0, (n - p->nnode_uuid) * sizeof(*u));
		memset(c + p->nnode_uuid, 0, (n - p->nnode_uuid) * sizeof(*c));
		p->nnode_uuid = n;
	}
	if (p->node_uuid[node])
		return 0;
	char label[300];
	ilog_node_label(&p->t.nodes.nodes[node], label, sizeof(label));
	p->node_uuid[node] = p->next_uuid++;
	process_descriptor(p, p->node_uuid[node], ilog_trace_id(node, ILOG_TRACE_NODE), label);
	return 0;
}

/* A process's track, written on first use and again (same uuid, the name
 * now) when a process record names it later. */
static void process_track(struct pf *p, int proc)
{
	struct ilog_proc_track *pt = &p->t.procs[proc];
	char label[400];
	ilog_process_label(&p->t, pt->node, pt->pid, label, sizeof(label));
	if (!pt->uuid)
		pt->uuid = p->next_uuid++;
	pt->named = ilog_tracks_comm(&p->t, pt->node, pt->pid) != NULL;
	process_descriptor(p, pt->uuid, ilog_trace_id(pt->node, pt->pid), label);
}

/* A child track of a node: counters (unit: UNIT_*, 0 = plain) or chains. */
static uint64_t child_track(struct pf *p, uint32_t node, const char *name, int counter, int unit)
{
	uint64_t uuid = p->next_uuid++;
	size_t td;
	descriptor_begin(p, uuid, &td);
	pb_u64(&p->pkt, TD_PARENT, p->node_uuid[node]);
	pb_str(&p->pkt, TD_NAME, name);
	if (counter) {
		size_t cd = pb_open(&p->pkt, TD_COUNTER);
		if (unit)
			pb_u64(&p->pkt, CD_UNIT, (uint64_t)unit);
		pb_close(&p->pkt, cd);
	}
	descriptor_end(p, td);
	return uuid;
}

/* The thread's track and sequence (made current), started at wall. */
static struct seq *thread_seq(struct pf *p, uint32_t node, uint32_t pid, uint32_t tid,
			      uint64_t wall, int *track)
{
	int isnew;
	int t = *track = ilog_tracks_thread(&p->t, node, pid, tid, &isnew);
	if (t < 0)
		return NULL;
	if (!isnew) {
		p->cur = &p->th[t].s;
		return p->cur;
	}
	if (ilog_reserve0((void **)&p->th, &p->nth, (uint32_t)t + 1, sizeof(*p->th), 64))
		return NULL;
	int proc = p->t.threads[t].proc;
	if (!p->t.procs[proc].uuid)
		process_track(p, proc);
	uint64_t uuid = p->th[t].uuid = p->next_uuid++;
	/* threads inherit the process's comm; the log has no other name */
	const char *comm = ilog_tracks_comm(&p->t, node, pid);
	size_t td, th;
	descriptor_begin(p, uuid, &td);
	th = pb_open(&p->pkt, TD_THREAD);
	pb_u64(&p->pkt, THD_PID, ilog_trace_id(node, pid));
	pb_u64(&p->pkt, THD_TID, ilog_trace_id(node, tid));
	if (comm)
		pb_str(&p->pkt, THD_NAME, comm);
	pb_close(&p->pkt, th);
	descriptor_end(p, td);
	/* sequence ids: 1 is ours, threads from 2 */
	seq_start(p, &p->th[t].s, (uint32_t)t + 2, wall, uuid);
	return p->cur;
}

/* TrackEvent header fields; the caller adds arguments and closes it.
 * track 0: the sequence's default track. */
static size_t event_begin(struct pf *p, int type, uint64_t track, uint32_t name, uint32_t cat)
{
	size_t te = pb_open(&p->pkt, TP_TRACK_EVENT);
	pb_u64(&p->pkt, TE_TYPE, (uint64_t)type);
	if (track)
		pb_u64(&p->pkt, TE_TRACK_UUID, track);
	if (cat)
		pb_u64(&p->pkt, TE_CATEGORY_IIDS, cat_iid(p, cat));
	if (name)
		pb_u64(&p->pkt, TE_NAME_IID, name_iid(p, name));
	return te;
}

/* The END of a slice names it too, so readers that pair by name can. */
static void slice_end(struct pf *p, uint64_t track, uint32_t name, uint64_t wall)
{
	size_t te = event_begin(p, TYPE_SLICE_END, track, name, 0);
	pb_close(&p->pkt, te);
	emit_packet(p, wall, 1);
}

static int cuda_slice(struct pf *p, uint32_t node, const struct ingero_cuda_event *e, uint64_t wall)
{
	int t;
	if (!thread_seq(p, node, e->pid, e->tid, wall, &t))
		return -1;
	uint64_t end = ilog_tracks_fit_lane(&p->t, t, ILOG_LANE_CALLS, wall, wall + e->dur_ns);
	uint32_t name = (e->op < N_PREEMPTED - 1 ? e->op : 0) + 1;
	size_t te = event_begin(p, TYPE_SLICE_BEGIN, 0, name,
				e->layer < C_HOST - 1 ? e->layer + 1u : 0);
	/* the JSON export's arguments, in its order */
	if (e->ret)
		ann_int(p, A_RET, e->ret);
	if (e->stream)
		ann_hex(p, A_STREAM, e->stream);
	if (e->bytes)
		ann_uint(p, A_BYTES, e->bytes);
	if (e->handle)
		ann_hex(p, A_HANDLE, e->handle);
	if (e->kind)
		ann_uint(p, A_KIND, e->kind);
	if (e->grid_x) {
		ann_dims(p, A_GRID, e->grid_x, e->grid_y, e->grid_z);
		ann_dims(p, A_BLOCK, e->block_x, e->block_y, e->block_z);
	}
	if (e->flags)
		ann_uint(p, A_FLAGS, e->flags);
	if (e->stack_id)
		ann_hex(p, A_STACK, e->stack_id);
	if (e->pystack_id)
		ann_hex(p, A_PYSTACK, e->pystack_id);
	if (end != wall + e->dur_ns)
		ann_uint(p, A_CLIPPED, e->dur_ns);
	pb_close(&p->pkt, te);
	emit_packet(p, wall, 1);
	slice_end(p, 0, name, end);
	return 0;
}

static uint64_t named_counter(struct pf *p, uint32_t node, const char *name, int unit);
static void counter_value(struct pf *p, uint64_t track, uint64_t wall, double v);

static int host_event(struct pf *p, uint32_t node, const struct ingero_host_event *h, uint64_t wall)
{
	if (h->type == ILOG_HOST_PAGE_ALLOC || h->type == ILOG_HOST_PAGE_ALLOC_REST) {
		/* a window's page allocations: a counter track per process */
		char key[64], name[80];
		ilog_page_track_name(key, sizeof(key), h);
		snprintf(name, sizeof(name), "pages/s %s", key);
		uint64_t uuid = named_counter(p, node, name, 0);
		if (!uuid)
			return -1;
		counter_value(p, uuid, wall,
			      h->dur_ns ? (double)h->value * 1e9 / (double)h->dur_ns : 0);
		return 0;
	}
	int sw = h->type == ILOG_HOST_SWITCH;
	if (!sw && h->type != ILOG_HOST_OOM && h->type != ILOG_HOST_FORK &&
	    h->type != ILOG_HOST_EXEC && h->type != ILOG_HOST_EXIT)
		return 0; /* windows and wakeups: in sqlite/jsonl, not on a timeline */
	int t;
	if (!thread_seq(p, node, h->pid, h->tid, wall, &t))
		return -1;
	uint64_t end = sw ? ilog_tracks_fit_lane(&p->t, t, ILOG_LANE_PREEMPT, wall, wall + h->dur_ns)
			  : wall;
	uint64_t lane = 0;
	if (sw) {
		/* the thread's preemption track (export_int.h says why) */
		if (!p->th[t].puuid) {
			uint64_t thread_uuid = p->th[t].uuid;
			size_t td;
			p->th[t].puuid = p->next_uuid++;
			descriptor_begin(p, p->th[t].puuid, &td);
			pb_u64(&p->pkt, TD_PARENT, thread_uuid);
			pb_str(&p->pkt, TD_NAME, "preemptions");
			descriptor_end(p, td);
			p->cur = &p->th[t].s;
		}
		lane = p->th[t].puuid;
	}
	uint32_t name = sw ? N_PREEMPTED : N_HOST + h->type;
	size_t te = event_begin(p, sw ? TYPE_SLICE_BEGIN : TYPE_INSTANT, lane, name, C_HOST);
	size_t cn = strnlen(h->other_comm, INGERO_COMM_LEN);
	if (sw) {
		ann_str(p, A_BY, h->other_comm, cn, 1);
		ann_uint(p, A_BY_PID, h->other_pid);
		ann_uint(p, A_BY_TID, h->other_tid);
		ann_uint(p, A_CPU, h->cpu);
		if (end != wall + h->dur_ns)
			ann_uint(p, A_CLIPPED, h->dur_ns);
	} else {
		ann_str(p, A_OTHER_COMM, h->other_comm, cn, 1);
		ann_uint(p, A_OTHER_PID, h->other_pid);
		ann_uint(p, A_VALUE, h->value);
	}
	pb_close(&p->pkt, te);
	emit_packet(p, wall, 1);
	if (sw)
		slice_end(p, lane, name, end);
	return 0;
}

static void counter_value(struct pf *p, uint64_t track, uint64_t wall, double v)
{
	p->cur = &p->glob;
	size_t te = event_begin(p, TYPE_COUNTER, track, 0, 0);
	pb_double(&p->pkt, TE_DOUBLE_COUNTER, v);
	pb_close(&p->pkt, te);
	emit_packet(p, wall, 1);
}

static int snapshot(struct pf *p, uint32_t node, const struct ilog_snapshot *s, uint64_t wall)
{
	struct counters *c = &p->ctr[node];
	if (!c->cpu) {
		c->cpu = child_track(p, node, "cpu busy %", 1, 0);
		c->mem = child_track(p, node, "mem available", 1, UNIT_SIZE_BYTES);
		c->swap = child_track(p, node, "mem swap used", 1, UNIT_SIZE_BYTES);
		c->load = child_track(p, node, "load 1m", 1, 0);
		c->steal = child_track(p, node, "cpu steal %", 1, 0);
	}
	counter_value(p, c->cpu, wall, s->cpu_pct);
	counter_value(p, c->steal, wall, s->steal_pct);
	counter_value(p, c->mem, wall, (double)s->mem_avail);
	counter_value(p, c->swap, wall, (double)(s->swap_total - s->swap_free));
	counter_value(p, c->load, wall, s->load1);
	static const char *const psi[5] = { "psi cpu some %", "psi mem some %", "psi mem full %",
					    "psi io some %", "psi io full %" };
	const double v[5] = { s->psi_cpu_some, s->psi_mem_some, s->psi_mem_full, s->psi_io_some,
			      s->psi_io_full };
	for (int i = 0; i < 5; i++) {
		if (!c->psi[i])
			c->psi[i] = child_track(p, node, psi[i], 1, 0);
		counter_value(p, c->psi[i], wall, v[i]);
	}
	return 0;
}

/* The node's counter track of this name, made on first use; 0 on ENOMEM. */
static uint64_t named_counter(struct pf *p, uint32_t node, const char *name, int unit)
{
	struct counters *c = &p->ctr[node];
	uint32_t i = 0;
	while (i < c->nloss && strcmp(c->loss[i].src, name))
		i++;
	if (i == c->nloss) {
		void *q = realloc(c->loss, (c->nloss + 1) * sizeof(*c->loss));
		if (!q)
			return 0;
		c->loss = q;
		snprintf(c->loss[i].src, sizeof(c->loss[i].src), "%s", name);
		c->loss[i].uuid = child_track(p, node, name, 1, unit);
		c->nloss++;
	}
	return c->loss[i].uuid;
}

static int loss(struct pf *p, uint32_t node, const struct ilog_loss *l, uint64_t wall)
{
	char name[80];
	snprintf(name, sizeof(name), "lost %.*s", (int)(l->source.n < 64 ? l->source.n : 64),
		 l->source.p);
	uint64_t uuid = named_counter(p, node, name, UNIT_COUNT);
	if (!uuid)
		return -1;
	counter_value(p, uuid, wall, (double)l->lost);
	return 0;
}

static int chain(struct pf *p, uint32_t node, const struct ilog_chain *ch, uint64_t wall,
		 uint64_t end)
{
	struct counters *c = &p->ctr[node];
	if (!c->chains)
		c->chains = child_track(p, node, "causal chains", 0, 0);
	p->cur = &p->glob;
	/* named by severity: the UI colours slices by name, so each severity
	 * gets a colour of its own */
	size_t te = event_begin(p, TYPE_INSTANT, c->chains,
				N_SEV + (ch->severity < 3 ? ch->severity : 2), C_CHAIN);
	ann_str(p, A_PATTERN, ch->pattern.p, ch->pattern.n, 1);
	ann_str(p, A_TITLE, ch->title.p, ch->title.n, 0);
	ann_str(p, A_ROOT, ch->root_cause.p, ch->root_cause.n, 0);
	ann_str(p, A_FIX, ch->fix.p, ch->fix.n, 0);
	ann_double(p, A_SCORE, ch->score);
	ann_uint(p, A_PID, ch->pid);
	const char *op = ilog_op_name(ch->op);
	if (!op)
		op = "unknown";
	ann_str(p, A_OP, op, strlen(op), 1);
	ann_uint(p, A_UNTIL, end);
	pb_close(&p->pkt, te);
	emit_packet(p, wall, 1);
	return 0;
}

static int zw_start(struct pf *p, int fd);

static int pf_open(struct ilog_sink_ctx *c)
{
	struct pf *p = calloc(1, sizeof(*p));
	if (!p) {
		snprintf(c->err, sizeof(c->err), "out of memory");
		return -1;
	}
	p->next_uuid = 1;
	p->cur = &p->glob;
	c->state = p;
	if (!c->uncompressed && zw_start(p, c->out_fd)) {
		snprintf(c->err, sizeof(c->err), "cannot start the compressor: out of memory");
		return -1;
	}
	return 0;
}

/*
 * Compressed output: the packets buffered in b go out as one TracePacket
 * whose compressed_packets (field 50) holds them zlib-deflated -- the
 * packets as a Trace message encodes them (field 1 each), which is how
 * Perfetto's own service compresses and its trace processor reads.  Level 1
 * (libdeflate): ~15x smaller than the JSON export.  A thread of its own
 * deflates and writes one group while the next is encoded (output order is
 * the groups' order, so the file is still a function of the input).
 */
struct zw {
	pthread_t th;
	pthread_mutex_t mu;
	pthread_cond_t cv;
	struct libdeflate_compressor *z;
	struct ilog_buf job, zout;
	int fd, busy, quit, failed;
	char err[256];
};

/* Deflate and write one group.  0, or -1 with w->err set. */
static int zw_write(struct zw *w)
{
	size_t bound = libdeflate_zlib_compress_bound(w->z, w->job.len);
	struct ilog_buf *o = &w->zout;
	o->len = 0;
	if (!room(o, bound + 24)) {
		snprintf(w->err, sizeof(w->err), "out of memory");
		return -1;
	}
	/* deflate after room for the headers; they go right before it */
	uint8_t *z = (uint8_t *)o->p + 24;
	size_t n = libdeflate_zlib_compress(w->z, w->job.p, w->job.len, z, bound);
	if (!n) {
		snprintf(w->err, sizeof(w->err), "deflate failed");
		return -1;
	}
	char hb[24], tb[12];
	struct ilog_buf h = { hb, 0, sizeof(hb) }, t = { tb, 0, sizeof(tb) };
	pb_tag(&t, TP_COMPRESSED, 2);
	pb_varint(&t, n);
	pb_tag(&h, TRACE_PACKET, 2);
	pb_varint(&h, t.len + n);
	put(&h, t.p, t.len);
	memcpy(z - h.len, h.p, h.len);
	struct ilog_buf out = { (char *)z - h.len, h.len + n, h.len + n };
	return ilog_buf_flush_fd(&out, w->fd, w->err, sizeof(w->err));
}

static void *zw_main(void *arg)
{
	struct zw *w = arg;
	pthread_mutex_lock(&w->mu);
	for (;;) {
		while (!w->busy && !w->quit)
			pthread_cond_wait(&w->cv, &w->mu);
		if (!w->busy)
			break;
		pthread_mutex_unlock(&w->mu);
		int rc = w->failed ? 0 : zw_write(w);
		pthread_mutex_lock(&w->mu);
		if (rc)
			w->failed = 1;
		w->job.len = 0;
		w->busy = 0;
		pthread_cond_broadcast(&w->cv);
	}
	pthread_mutex_unlock(&w->mu);
	return NULL;
}

static int zw_start(struct pf *p, int fd)
{
	struct zw *w = calloc(1, sizeof(*w));
	if (!w || !(w->z = libdeflate_alloc_compressor(1))) {
		free(w);
		return -1;
	}
	w->fd = fd;
	pthread_mutex_init(&w->mu, NULL);
	pthread_cond_init(&w->cv, NULL);
	if (pthread_create(&w->th, NULL, zw_main, w)) {
		libdeflate_free_compressor(w->z);
		free(w);
		return -1;
	}
	p->zw = w;
	return 0;
}

/* Wait for the group in flight; 0, or -1 with its error in c->err. */
static int zw_wait(struct ilog_sink_ctx *c, struct zw *w)
{
	pthread_mutex_lock(&w->mu);
	while (w->busy)
		pthread_cond_wait(&w->cv, &w->mu);
	int failed = w->failed;
	pthread_mutex_unlock(&w->mu);
	if (failed)
		snprintf(c->err, sizeof(c->err), "%s", w->err);
	return failed ? -1 : 0;
}

/* At the end: the last group written, the thread gone.  0 or -1. */
static int zw_stop(struct ilog_sink_ctx *c, struct zw *w)
{
	int rc = zw_wait(c, w);
	pthread_mutex_lock(&w->mu);
	w->quit = 1;
	pthread_cond_broadcast(&w->cv);
	pthread_mutex_unlock(&w->mu);
	pthread_join(w->th, NULL);
	pthread_mutex_destroy(&w->mu);
	pthread_cond_destroy(&w->cv);
	libdeflate_free_compressor(w->z);
	ilog_buf_free(&w->job);
	ilog_buf_free(&w->zout);
	free(w);
	return rc;
}

/* Hand the packets buffered in b on: to the compressor (b gets its
 * emptied buffer back), or straight to the output. */
static int pf_flush(struct ilog_sink_ctx *c, struct pf *p)
{
	struct zw *w = p->zw;
	if (!w)
		return ilog_buf_flush_fd(&p->b, c->out_fd, c->err, sizeof(c->err));
	if (!p->b.len)
		return 0;
	if (zw_wait(c, w))
		return -1;
	pthread_mutex_lock(&w->mu);
	struct ilog_buf t = w->job;
	w->job = p->b;
	p->b = t;
	w->busy = 1;
	pthread_cond_broadcast(&w->cv);
	pthread_mutex_unlock(&w->mu);
	return 0;
}

/* ---- the records drawn (ilog_trace_record's callbacks) ---- */
static int pf_node(void *s, uint32_t node, int isnew, const struct ilog_header *h)
{
	struct pf *p = s;
	(void)isnew;
	if (!p->started) {
		/* sequence 1's clock zero: the first header's second */
		p->base = h->real_ns / 1000000000u * 1000000000u;
		seq_start(p, &p->glob, 1, p->base, 0);
		p->started = 1;
	}
	return node_track(p, node);
}

static int pf_cuda(void *s, uint32_t node, const struct ingero_cuda_event *e, uint64_t wall)
{
	return cuda_slice(s, node, e, wall);
}

static int pf_host(void *s, uint32_t node, const struct ingero_host_event *h, uint64_t wall)
{
	return host_event(s, node, h, wall);
}

static int pf_snapshot(void *s, uint32_t node, const struct ilog_snapshot *sn, uint64_t wall)
{
	return snapshot(s, node, sn, wall);
}

static int pf_loss(void *s, uint32_t node, const struct ilog_loss *l, uint64_t wall)
{
	return loss(s, node, l, wall);
}

static int pf_chain(void *s, uint32_t node, const struct ilog_chain *ch, uint64_t wall, uint64_t end)
{
	return chain(s, node, ch, wall, end);
}

static int pf_process(void *s, uint32_t node, uint32_t pid)
{
	struct pf *p = s;
	int isnew, proc = ilog_tracks_process(&p->t, node, pid, &isnew);
	if (proc < 0)
		return -1;
	/* written before a process record named it: the name now */
	if (p->t.procs[proc].uuid && !p->t.procs[proc].named)
		process_track(p, proc);
	return 0;
}

static int pf_counter(void *s, uint32_t node, uint64_t wall, const char *group, const char *key,
		      double v)
{
	char name[160];
	snprintf(name, sizeof(name), "%s %s", group, key);
	uint64_t uuid = named_counter(s, node, name, 0);
	if (!uuid)
		return -1;
	counter_value(s, uuid, wall, v);
	return 0;
}

static const struct ilog_trace_ops pf_ops = {
	.node = pf_node, .cuda = pf_cuda, .host = pf_host, .snapshot = pf_snapshot,
	.loss = pf_loss, .chain = pf_chain, .process = pf_process, .counter = pf_counter,
};

static int pf_record(struct ilog_sink_ctx *c, const struct ilog_record *rec,
		     const struct ilog_reader *r)
{
	struct pf *p = c->state;
	pb_oom = 0;
	if (ilog_trace_record(&p->t, &pf_ops, p, rec, r) || pb_oom) {
		snprintf(c->err, sizeof(c->err), "out of memory");
		return -1;
	}
	if (p->b.len >= (256u << 10))
		return pf_flush(c, p);
	return 0;
}

static int pf_close(struct ilog_sink_ctx *c)
{
	struct pf *p = c->state;
	if (!p)
		return 0;
	pb_oom = 0;
	int rc = ilog_trace_finish(&p->t, &pf_ops, p) || pb_oom ? -1 : 0;
	if (rc)
		snprintf(c->err, sizeof(c->err), "out of memory");
	if (pf_flush(c, p))
		rc = -1;
	if (p->zw && zw_stop(c, p->zw))
		rc = -1;
	ilog_buf_free(&p->b);
	ilog_buf_free(&p->pkt);
	ilog_buf_free(&p->intern);
	ilog_strpool_free(&p->st);
	ilog_hmap_free(&p->hexc);
	ilog_hmap_free(&p->dimc);
	for (uint32_t i = 0; i < p->nnode_uuid; i++)
		free(p->ctr[i].loss);
	for (uint32_t i = 0; i < p->nth; i++)
		ilog_hmap_free(&p->th[i].s.sdone);
	ilog_hmap_free(&p->glob.sdone);
	free(p->ctr);
	free(p->node_uuid);
	free(p->th);
	ilog_tracks_free(&p->t);
	free(p);
	c->state = NULL;
	return rc;
}

const struct ilog_sink ilog_sink_perfetto_proto = {
	.name = "perfetto-proto",
	.help = "Perfetto native protobuf trace (the perfetto tracks; deflated, ~15x smaller)",
	.binary = 1,
	.open = pf_open, .record = pf_record, .close = pf_close,
};
