// SPDX-License-Identifier: MIT
/*
 * --format perfetto: Chrome trace-event JSON, which Perfetto's UI and
 * trace processor (and chrome://tracing) load.  The mapping, shared with
 * --format perfetto-proto (lib/export/pftrace.c):
 *   (node, pid)      -> a process "python3 (pid 812) on gpu-node-1 (rank 1)"
 *                       (pid and tid unique across nodes: export_int.h)
 *   thread           -> a thread of its process, named by the comm
 *   export node      -> a process of its own, named by the node's label,
 *                       for the node's counters and chains
 *   CUDA call        -> complete event ("X") named by op, category = layer
 *   host preemption  -> complete event "preempted" on the preempted
 *                       thread's preemption lane: a thread of its own
 *                       (tid + ILOG_TRACE_LANE, "preemptions (tid N)"),
 *                       as JSON has no child tracks (export_int.h says why
 *                       preemptions do not share the calls' track)
 *   oom/fork/exec/exit -> thread instant
 *   snapshot         -> counters "cpu %", "mem available", "swap used", "load1",
 *                       "psi cpu some %", "psi mem some %", ... (format 1.2)
 *   page_alloc       -> counter "pages/s COMM (pid PID)", one per named process;
 *                       page_alloc_rest -> "pages/s other processes"
 *   iowait           -> counter "iowait % COMM (pid PID)": a target's threads'
 *                       time blocked on I/O in % of the window (format 1.3)
 *   blkio            -> counters "disk MB/s DISK COMM (pid PID)" per record,
 *                       "disk MB/s DISK other processes" for the rest, and per
 *                       device and window "disk MB/s DISK", "disk IOPS DISK",
 *                       "disk p50 ms DISK", "disk p99 ms DISK" (format 1.3)
 *   retrans          -> counter "retransmits/s COMM (pid PID) SADDR:SPORT > DADDR:DPORT"
 *                       per flow, "retransmits/s other flows" (format 1.3)
 *   sockio           -> counters "net tx MB/s COMM (pid PID)", "net rx MB/s ..."
 *                       per process, "... other processes" (format 1.3)
 *   loss             -> counter "lost <source>"
 *   chain            -> process instant named by severity, coloured by it
 * Times are wall clock (the node's anchors) relative to a time zero, the
 * first header's whole second (otherData.ingero_time_zero_unix_ns), in
 * microseconds with three decimals.  Readers parse them as doubles: at
 * epoch scale (1.8e15 us) a double keeps only ~0.25 us, relative to the
 * zero it keeps every nanosecond for 52 days.  Output depends on the input
 * only: no clocks, no addresses, no hash order.
 */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include "export_int.h"

struct pj {
	struct ilog_buf b;
	struct ilog_tracks t;
	uint64_t nevents;
	int first;
	int zero_set;
	uint64_t zero;             /* wall ns of ts 0 */
};

static int pj_open(struct ilog_sink_ctx *c)
{
	struct pj *p = calloc(1, sizeof(*p));
	if (!p) {
		snprintf(c->err, sizeof(c->err), "out of memory");
		return -1;
	}
	p->first = 1;
	if (ilog_buf_printf(&p->b, "{\"displayTimeUnit\":\"ns\",\"traceEvents\":[\n")) {
		free(p);
		snprintf(c->err, sizeof(c->err), "out of memory");
		return -1;
	}
	c->state = p;
	return 0;
}

/* "2210.319": ns as microseconds, exactly */
static int put_us(struct ilog_buf *b, uint64_t ns)
{
	char t[32];
	int n = snprintf(t, sizeof(t), "%" PRIu64 ".%03u", ns / 1000, (unsigned)(ns % 1000));
	return ilog_buf_put(b, t, (size_t)n);
}

/* A wall time as microseconds after the time zero (negative before it). */
static int put_ts(struct pj *p, uint64_t wall)
{
	if (wall >= p->zero)
		return put_us(&p->b, wall - p->zero);
	return ilog_buf_put(&p->b, "-", 1) || put_us(&p->b, p->zero - wall);
}

/* Start an event object: separator, ph, pid (and tid when >= 0). */
static int ev_begin(struct pj *p, const char *ph, uint64_t pid, int64_t tid)
{
	int rc = ilog_buf_printf(&p->b, "%s{\"ph\":\"%s\",\"pid\":%" PRIu64, p->first ? "" : ",\n",
				 ph, pid);
	p->first = 0;
	if (!rc && tid >= 0)
		rc = ilog_buf_printf(&p->b, ",\"tid\":%" PRId64, tid);
	return rc;
}

/* "key":"string", with a comma unless it opens an object */
static int key_str(struct ilog_buf *b, const char *key, const char *s, size_t n)
{
	int first = b->len && b->p[b->len - 1] == '{';
	return ilog_buf_printf(b, "%s\"%s\":", first ? "" : ",", key) || ilog_json_str(b, s, n);
}

/* process_name (or thread_name) and the sort index of a track */
static int name_meta(struct pj *p, uint64_t pid, int64_t tid, const char *name, uint64_t sort)
{
	const char *what = tid >= 0 ? "thread" : "process";
	return ev_begin(p, "M", pid, tid) ||
	       ilog_buf_printf(&p->b, ",\"name\":\"%s_name\",\"args\":{", what) ||
	       key_str(&p->b, "name", name, strlen(name)) || ilog_buf_printf(&p->b, "}}") ||
	       ev_begin(p, "M", pid, tid) ||
	       ilog_buf_printf(&p->b, ",\"name\":\"%s_sort_index\",\"args\":"
			       "{\"sort_index\":%" PRIu64 "}}", what, sort);
}

/* A process's name, written when its track is first used and again when
 * a process record names it later. */
static int process_meta(struct pj *p, int proc)
{
	struct ilog_proc_track *pt = &p->t.procs[proc];
	char label[400];
	ilog_process_label(&p->t, pt->node, pt->pid, label, sizeof(label));
	pt->uuid = 1; /* written */
	pt->named = ilog_tracks_comm(&p->t, pt->node, pt->pid) != NULL;
	uint64_t pid = ilog_trace_id(pt->node, pt->pid);
	return name_meta(p, pid, -1, label, pid);
}

/* The thread's track index (its process's and its name written on first
 * use), or -1. */
static int thread_meta(struct pj *p, uint32_t node, uint32_t pid, uint32_t tid)
{
	int isnew;
	int t = ilog_tracks_thread(&p->t, node, pid, tid, &isnew);
	if (t < 0 || !isnew)
		return t;
	struct ilog_thread_track *th = &p->t.threads[t];
	if (!p->t.procs[th->proc].uuid && process_meta(p, th->proc))
		return -1;
	/* threads inherit the process's comm; the log has no other name */
	const char *comm = ilog_tracks_comm(&p->t, node, pid);
	if (comm && name_meta(p, ilog_trace_id(node, pid), (int64_t)ilog_trace_id(node, tid),
			      comm, tid))
		return -1;
	return t;
}

/* A counter sample.  Trace processor names a JSON counter track "name key",
 * so the track names match the protobuf export's: "cpu busy %", ... */
static int counter(struct pj *p, uint32_t node, uint64_t ts, const char *name, const char *key,
		   double v)
{
	return ev_begin(p, "C", ilog_trace_id(node, ILOG_TRACE_NODE), -1) ||
	       ilog_buf_printf(&p->b, ",\"ts\":") || put_ts(p, ts) ||
	       key_str(&p->b, "name", name, strlen(name)) || ilog_buf_printf(&p->b, ",\"args\":{") ||
	       ilog_json_str(&p->b, key, strlen(key)) || ilog_buf_printf(&p->b, ":%.17g}}", v);
}

static void dims(char *b, size_t n, uint32_t x, uint32_t y, uint32_t z)
{
	snprintf(b, n, "%ux%ux%u", x, y, z);
}

static int cuda_event(struct pj *p, uint32_t node, const struct ingero_cuda_event *e, uint64_t ts)
{
	const char *op = ilog_op_name(e->op), *layer = ilog_layer_name(e->layer);
	char opb[16];
	if (!op) {
		snprintf(opb, sizeof(opb), "op%u", e->op);
		op = opb;
	}
	struct ilog_buf *b = &p->b;
	int t = thread_meta(p, node, e->pid, e->tid);
	if (t < 0)
		return -1;
	uint64_t dur = ilog_tracks_fit_lane(&p->t, t, ILOG_LANE_CALLS, ts, ts + e->dur_ns) - ts;
	if (ev_begin(p, "X", ilog_trace_id(node, e->pid), (int64_t)ilog_trace_id(node, e->tid)) ||
	    ilog_buf_printf(b, ",\"ts\":") || put_ts(p, ts) || ilog_buf_printf(b, ",\"dur\":") ||
	    put_us(b, dur) ||
	    ilog_buf_printf(b, ",\"name\":\"%s\",\"cat\":\"%s\",\"args\":{", op,
			    layer ? layer : "unknown"))
		return -1;
	/* the same arguments, in the same order, as the protobuf export; the
	 * process is in the thread's name */
	int rc = 0;
	size_t open = b->len;
	if (e->ret)
		rc |= ilog_buf_printf(b, ",\"ret\":%d", e->ret);
	if (e->stream)
		rc |= ilog_buf_printf(b, ",\"stream\":\"0x%" PRIx64 "\"", (uint64_t)e->stream);
	if (e->bytes)
		rc |= ilog_buf_printf(b, ",\"bytes\":%" PRIu64, (uint64_t)e->bytes);
	if (e->handle)
		rc |= ilog_buf_printf(b, ",\"handle\":\"0x%" PRIx64 "\"", (uint64_t)e->handle);
	if (e->kind)
		rc |= ilog_buf_printf(b, ",\"kind\":%u", e->kind);
	if (e->grid_x) {
		char g[40], k[40];
		dims(g, sizeof(g), e->grid_x, e->grid_y, e->grid_z);
		dims(k, sizeof(k), e->block_x, e->block_y, e->block_z);
		rc |= ilog_buf_printf(b, ",\"grid\":\"%s\",\"block\":\"%s\"", g, k);
	}
	if (e->flags)
		rc |= ilog_buf_printf(b, ",\"flags\":%u", e->flags);
	if (e->stack_id)
		rc |= ilog_buf_printf(b, ",\"stack_id\":\"0x%" PRIx64 "\"", (uint64_t)e->stack_id);
	if (e->pystack_id)
		rc |= ilog_buf_printf(b, ",\"pystack_id\":\"0x%" PRIx64 "\"", (uint64_t)e->pystack_id);
	if (dur != e->dur_ns)
		rc |= ilog_buf_printf(b, ",\"clipped_from_ns\":%" PRIu64, (uint64_t)e->dur_ns);
	if (!rc && b->len > open)
		memmove(b->p + open, b->p + open + 1, --b->len - open); /* the first comma */
	return rc | ilog_buf_printf(b, "}}");
}

static int host_event(struct pj *p, uint32_t node, const struct ingero_host_event *h, uint64_t ts)
{
	struct ilog_buf *b = &p->b;
	const char *type = ilog_host_type_name(h->type);
	if (h->type == ILOG_HOST_SWITCH) {
		int t = thread_meta(p, node, h->pid, h->tid);
		if (t < 0)
			return -1;
		uint64_t pid = ilog_trace_id(node, h->pid);
		int64_t lane = (int64_t)ilog_trace_id(node, ILOG_TRACE_LANE + h->tid);
		if (!p->t.threads[t].lane) {
			char name[64];
			snprintf(name, sizeof(name), "preemptions (tid %u)", h->tid);
			if (name_meta(p, pid, lane, name, ILOG_TRACE_LANE + (uint64_t)h->tid))
				return -1;
			p->t.threads[t].lane = 1;
		}
		uint64_t dur = ilog_tracks_fit_lane(&p->t, t, ILOG_LANE_PREEMPT, ts, ts + h->dur_ns) - ts;
		return ev_begin(p, "X", pid, lane) ||
		       ilog_buf_printf(b, ",\"ts\":") || put_ts(p, ts) ||
		       ilog_buf_printf(b, ",\"dur\":") || put_us(b, dur) ||
		       ilog_buf_printf(b, ",\"name\":\"preempted\",\"cat\":\"host\",\"args\":{") ||
		       key_str(b, "by", h->other_comm, strnlen(h->other_comm, INGERO_COMM_LEN)) ||
		       ilog_buf_printf(b, ",\"by_pid\":%u,\"by_tid\":%u,\"cpu\":%u", h->other_pid,
				       h->other_tid, h->cpu) ||
		       (dur != h->dur_ns && ilog_buf_printf(b, ",\"clipped_from_ns\":%" PRIu64,
							   (uint64_t)h->dur_ns)) ||
		       ilog_buf_printf(b, "}}");
	}
	if (h->type == ILOG_HOST_PAGE_ALLOC || h->type == ILOG_HOST_PAGE_ALLOC_REST) {
		/* a window's page allocations: a counter track per process */
		char key[64];
		ilog_page_track_name(key, sizeof(key), h);
		return counter(p, node, ts, "pages/s", key,
			       h->dur_ns ? (double)h->value * 1e9 / (double)h->dur_ns : 0);
	}
	if (h->type != ILOG_HOST_OOM && h->type != ILOG_HOST_FORK && h->type != ILOG_HOST_EXEC &&
	    h->type != ILOG_HOST_EXIT)
		return 0; /* windows and wakeups: in sqlite/jsonl, not on a timeline */
	return thread_meta(p, node, h->pid, h->tid) < 0 ||
	       ev_begin(p, "i", ilog_trace_id(node, h->pid), (int64_t)ilog_trace_id(node, h->tid)) ||
	       ilog_buf_printf(b, ",\"s\":\"t\",\"ts\":") || put_ts(p, ts) ||
	       ilog_buf_printf(b, ",\"name\":\"%s\",\"cat\":\"host\",\"args\":{", type) ||
	       key_str(b, "other_comm", h->other_comm, strnlen(h->other_comm, INGERO_COMM_LEN)) ||
	       ilog_buf_printf(b, ",\"other_pid\":%u,\"value\":%" PRIu64 "}}", h->other_pid,
			       (uint64_t)h->value);
}

/* Chrome's reserved colour names, by severity. */
static const char *sev_colour(uint32_t sev)
{
	return sev >= ILOG_SEV_HIGH ? "terrible" : sev == ILOG_SEV_MEDIUM ? "bad" : "yellow";
}

static int chain_event(struct pj *p, uint32_t node, const struct ilog_chain *ch, uint64_t ts,
		       uint64_t end)
{
	struct ilog_buf *b = &p->b;
	const char *sev = ilog_severity_name(ch->severity), *op = ilog_op_name(ch->op);
	return ev_begin(p, "i", ilog_trace_id(node, ILOG_TRACE_NODE), -1) ||
	       ilog_buf_printf(b, ",\"s\":\"p\",\"ts\":") || put_ts(p, ts) ||
	       ilog_buf_printf(b, ",\"name\":\"%s\",\"cat\":\"chain\",\"cname\":\"%s\",\"args\":{",
			       sev ? sev : "LOW", sev_colour(ch->severity)) ||
	       key_str(b, "pattern", ch->pattern.p, ch->pattern.n) ||
	       key_str(b, "title", ch->title.p, ch->title.n) ||
	       key_str(b, "root_cause", ch->root_cause.p, ch->root_cause.n) ||
	       key_str(b, "fix", ch->fix.p, ch->fix.n) ||
	       ilog_buf_printf(b, ",\"score\":%.17g,\"pid\":%u,\"op\":\"%s\",\"until_ns\":%" PRIu64
			       "}}", ch->score, ch->pid, op ? op : "unknown", end);
}

/* ---- the records drawn (ilog_trace_record's callbacks) ---- */
static int pj_node(void *s, uint32_t node, int isnew, const struct ilog_header *h)
{
	struct pj *p = s;
	if (!p->zero_set) {
		/* the time zero: the first header's second, as the protobuf
		 * export's sequence 1 clock */
		p->zero = h->real_ns / 1000000000u * 1000000000u;
		p->zero_set = 1;
	}
	if (!isnew)
		return 0;
	char label[300];
	ilog_node_label(&p->t.nodes.nodes[node], label, sizeof(label));
	/* first among the node's processes */
	return name_meta(p, ilog_trace_id(node, ILOG_TRACE_NODE), -1, label,
			 ilog_trace_id(node, 0)) ? -1 : 0;
}

static int pj_process(void *s, uint32_t node, uint32_t pid)
{
	struct pj *p = s;
	int isnew, proc = ilog_tracks_process(&p->t, node, pid, &isnew);
	if (proc < 0)
		return -1;
	/* written before a process record named it: the name now */
	struct ilog_proc_track *pt = &p->t.procs[proc];
	return pt->uuid && !pt->named ? process_meta(p, proc) : 0;
}

static int pj_cuda(void *s, uint32_t node, const struct ingero_cuda_event *e, uint64_t wall)
{
	struct pj *p = s;
	p->nevents++;
	return cuda_event(p, node, e, wall);
}

static int pj_host(void *s, uint32_t node, const struct ingero_host_event *h, uint64_t wall)
{
	return host_event(s, node, h, wall);
}

static int pj_snapshot(void *s, uint32_t node, const struct ilog_snapshot *sn, uint64_t wall)
{
	return counter(s, node, wall, "cpu", "busy %", sn->cpu_pct) ||
	       counter(s, node, wall, "cpu", "steal %", sn->steal_pct) ||
	       counter(s, node, wall, "mem", "available", (double)sn->mem_avail) ||
	       counter(s, node, wall, "mem", "swap used", (double)(sn->swap_total - sn->swap_free)) ||
	       counter(s, node, wall, "load", "1m", sn->load1) ||
	       counter(s, node, wall, "psi", "cpu some %", sn->psi_cpu_some) ||
	       counter(s, node, wall, "psi", "mem some %", sn->psi_mem_some) ||
	       counter(s, node, wall, "psi", "mem full %", sn->psi_mem_full) ||
	       counter(s, node, wall, "psi", "io some %", sn->psi_io_some) ||
	       counter(s, node, wall, "psi", "io full %", sn->psi_io_full) ? -1 : 0;
}

static int pj_loss(void *s, uint32_t node, const struct ilog_loss *l, uint64_t wall)
{
	char key[80];
	snprintf(key, sizeof(key), "%.*s", (int)l->source.n, l->source.p);
	return counter(s, node, wall, "lost", key, (double)l->lost);
}

static int pj_chain(void *s, uint32_t node, const struct ilog_chain *ch, uint64_t wall, uint64_t end)
{
	return chain_event(s, node, ch, wall, end);
}

static int pj_counter(void *s, uint32_t node, uint64_t wall, const char *group, const char *key,
		      double v)
{
	return counter(s, node, wall, group, key, v);
}

static const struct ilog_trace_ops pj_ops = {
	.node = pj_node, .cuda = pj_cuda, .host = pj_host, .snapshot = pj_snapshot,
	.loss = pj_loss, .chain = pj_chain, .process = pj_process, .counter = pj_counter,
};

static int pj_record(struct ilog_sink_ctx *c, const struct ilog_record *rec,
		     const struct ilog_reader *r)
{
	struct pj *p = c->state;
	if (ilog_trace_record(&p->t, &pj_ops, p, rec, r)) {
		snprintf(c->err, sizeof(c->err), "out of memory");
		return -1;
	}
	if (p->b.len >= (256u << 10))
		return ilog_buf_flush_fd(&p->b, c->out_fd, c->err, sizeof(c->err));
	return 0;
}

static int pj_close(struct ilog_sink_ctx *c)
{
	struct pj *p = c->state;
	if (!p)
		return 0;
	int rc = ilog_trace_finish(&p->t, &pj_ops, p) ||
		 ilog_buf_printf(&p->b, "\n],\"otherData\":{\"ingero_time_zero_unix_ns\":\"%" PRIu64
				 "\"}}\n", p->zero);
	if (rc)
		snprintf(c->err, sizeof(c->err), "out of memory");
	else
		rc = ilog_buf_flush_fd(&p->b, c->out_fd, c->err, sizeof(c->err));
	ilog_buf_free(&p->b);
	ilog_tracks_free(&p->t);
	free(p);
	c->state = NULL;
	return rc;
}

const struct ilog_sink ilog_sink_perfetto = {
	.name = "perfetto",
	.help = "Chrome trace-event JSON for ui.perfetto.dev: a process per (node, pid), a thread per tid",
	.open = pj_open, .record = pj_record, .close = pj_close,
};
