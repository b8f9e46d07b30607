// SPDX-License-Identifier: MIT
/* Helpers the export sinks share (export_int.h). */
#include <errno.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "export_int.h"

/* ---- metrics aggregation ---- */

const uint64_t ilog_lat_bounds_ns[ILOG_LAT_NBOUNDS] = {
	1000, 2500, 5000, 10000, 25000, 50000, 100000, 250000, 500000,
	1000000, 2500000, 5000000, 10000000, 25000000, 50000000, 100000000,
	250000000, 500000000, 1000000000, 2500000000ull, 5000000000ull, 10000000000ull,
};

static struct ilog_nodeagg *agg_for(struct ilog_metrics *m, int node)
{
	if (node < 0)
		return NULL;
	if ((uint32_t)node >= m->nagg) {
		uint32_t n = (uint32_t)node + 1;
		struct ilog_nodeagg *a = realloc(m->agg, n * sizeof(*a));
		if (!a)
			return NULL;
		memset(a + m->nagg, 0, (n - m->nagg) * sizeof(*a));
		m->agg = a;
		m->nagg = n;
	}
	return &m->agg[node];
}

int ilog_metrics_add(struct ilog_metrics *m, const struct ilog_record *rec,
		     const struct ilog_reader *r)
{
	int node, isnew;
	if (rec->kind == ILOG_K_HEADER) {
		node = ilog_node_map_header(&m->nodes, rec, r, &isnew);
		return node < 0 || !agg_for(m, node) ? -1 : 0;
	}
	node = ilog_node_map_get(&m->nodes, rec, r);
	struct ilog_nodeagg *a = node >= 0 && (uint32_t)node < m->nagg ? &m->agg[node] : NULL;
	if (!a)
		return 0;
	switch (rec->kind) {
	case ILOG_K_CUDA: {
		const struct ingero_cuda_event *e = &rec->u.cuda;
		if (e->op >= a->nop) {
			uint32_t n = ilog_op_limit() > e->op ? ilog_op_limit() : (uint32_t)e->op + 1;
			struct ilog_opagg *no = realloc(a->op, n * sizeof(*no));
			if (!no)
				return -1;
			memset(no + a->nop, 0, (n - a->nop) * sizeof(*no));
			a->op = no;
			a->nop = n;
		}
		struct ilog_opagg *o = &a->op[e->op];
		if (!o->calls || e->dur_ns < o->min_ns)
			o->min_ns = e->dur_ns;
		if (e->dur_ns > o->max_ns)
			o->max_ns = e->dur_ns;
		o->calls++;
		o->errors += e->ret != 0;
		o->bytes += e->bytes;
		o->sum_ns += e->dur_ns;
		unsigned b = 0;
		while (b < ILOG_LAT_NBOUNDS && e->dur_ns > ilog_lat_bounds_ns[b])
			b++;
		o->bucket[b]++;
		uint64_t w = ilog_reader_wall(r, rec->node, e->ts_ns);
		if (w && (!a->first_ns || w < a->first_ns))
			a->first_ns = w;
		if (w + e->dur_ns > a->last_ns)
			a->last_ns = w + e->dur_ns;
		return 0;
	}
	case ILOG_K_HOST:
		if (rec->u.host.type == ILOG_HOST_SWITCH) {
			a->preempt++;
			a->preempt_ns += rec->u.host.dur_ns;
		}
		return 0;
	case ILOG_K_LOSS: {
		/* cumulative counters: the latest record per source wins */
		const struct ilog_loss *l = &rec->u.loss;
		char src[64];
		ilog_str_copy(src, sizeof(src), l->source);
		uint32_t i = 0;
		while (i < a->nloss && strcmp(a->loss[i].source, src))
			i++;
		if (i == a->nloss) {
			struct ilog_loss_agg *p = realloc(a->loss, (a->nloss + 1) * sizeof(*p));
			if (!p)
				return -1;
			a->loss = p;
			memcpy(p[i].source, src, sizeof(src));
			a->nloss++;
		}
		a->loss[i].lost = l->lost;
		a->loss[i].seen = l->seen;
		return 0;
	}
	default:
		return 0;
	}
}

int ilog_metrics_sink_open(struct ilog_sink_ctx *c)
{
	if (!(c->state = calloc(1, sizeof(struct ilog_metrics_sink)))) {
		snprintf(c->err, sizeof(c->err), "out of memory");
		return -1;
	}
	return 0;
}

int ilog_metrics_sink_record(struct ilog_sink_ctx *c, const struct ilog_record *rec,
			     const struct ilog_reader *r)
{
	struct ilog_metrics_sink *s = c->state;
	if (ilog_metrics_add(&s->m, rec, r)) {
		snprintf(c->err, sizeof(c->err), "out of memory");
		return -1;
	}
	return 0;
}

int ilog_metrics_sink_close(struct ilog_sink_ctx *c,
			    int (*render)(const struct ilog_metrics *m, struct ilog_buf *b))
{
	struct ilog_metrics_sink *s = c->state;
	if (!s)
		return 0;
	int rc = render(&s->m, &s->b);
	if (rc)
		snprintf(c->err, sizeof(c->err), "out of memory");
	else
		rc = ilog_buf_flush_fd(&s->b, c->out_fd, c->err, sizeof(c->err));
	ilog_buf_free(&s->b);
	ilog_metrics_free(&s->m);
	free(s);
	c->state = NULL;
	return rc;
}

void ilog_metrics_free(struct ilog_metrics *m)
{
	for (uint32_t i = 0; i < m->nagg; i++) {
		free(m->agg[i].loss);
		free(m->agg[i].op);
	}
	free(m->agg);
	ilog_node_map_free(&m->nodes);
	memset(m, 0, sizeof(*m));
}

/* ---- timeline tracks ---- */

static uint64_t key64(uint32_t a, uint32_t b)
{
	return ((uint64_t)a << 32 | b) + 1;
}

int ilog_tracks_process(struct ilog_tracks *t, uint32_t node, uint32_t pid, int *isnew)
{
	uint64_t key = key64(node, pid);
	*isnew = 0;
	uint64_t *v = ilog_hmap_get(&t->pmap, key, 0);
	if (v)
		return (int)*v - 1;
	if (ilog_grow((void **)&t->procs, &t->pcap, t->nprocs, sizeof(*t->procs), 16))
		return -1;
	if (!(v = ilog_hmap_put(&t->pmap, key, 0)))
		return -1;
	*v = t->nprocs + 1;
	t->procs[t->nprocs] = (struct ilog_proc_track){ .node = node, .pid = pid };
	*isnew = 1;
	return (int)t->nprocs++;
}

int ilog_tracks_thread(struct ilog_tracks *t, uint32_t node, uint32_t pid, uint32_t tid,
		       int *isnew)
{
	uint64_t key = key64(node, tid);
	*isnew = 0;
	uint64_t *v = ilog_hmap_get(&t->tmap, key, 0);
	if (v)
		return (int)*v - 1;
	int pnew, proc = ilog_tracks_process(t, node, pid, &pnew);
	if (proc < 0)
		return -1;
	if (t->nthreads == t->cap) {
		uint32_t nc = t->cap ? t->cap * 2 : 64;
		struct ilog_thread_track *th = realloc(t->threads, nc * sizeof(*th));
		if (!th)
			return -1;
		t->threads = th;
		struct ilog_nest *ns = realloc(t->nest, (size_t)nc * ILOG_LANES * sizeof(*ns));
		if (!ns)
			return -1;
		t->nest = ns;
		t->cap = nc;
	}
	if (!(v = ilog_hmap_put(&t->tmap, key, 0)))
		return -1;
	*v = t->nthreads + 1;
	memset(&t->nest[(size_t)t->nthreads * ILOG_LANES], 0, ILOG_LANES * sizeof(t->nest[0]));
	t->threads[t->nthreads] = (struct ilog_thread_track){ node, pid, tid, proc, 0 };
	*isnew = 1;
	return (int)t->nthreads++;
}

void ilog_process_label(const struct ilog_tracks *t, uint32_t node, uint32_t pid, char *buf,
			size_t len)
{
	char nl[300];
	ilog_node_label(&t->nodes.nodes[node], nl, sizeof(nl));
	const char *comm = ilog_tracks_comm(t, node, pid);
	if (comm && *comm)
		snprintf(buf, len, "%s (pid %u) on %s", comm, pid, nl);
	else
		snprintf(buf, len, "pid %u on %s", pid, nl);
}

int ilog_tracks_comm_set(struct ilog_tracks *t, uint32_t node, uint32_t pid, const char *comm,
			 size_t n)
{
	uint64_t *v = ilog_hmap_put(&t->cmap, key64(node, pid), 0);
	if (!v)
		return -1;
	if (!*v) {
		char (*cs)[INGERO_COMM_LEN] = realloc(t->comms, (t->ncomm + 1) * sizeof(*cs));
		if (!cs)
			return -1;
		t->comms = cs;
		*v = ++t->ncomm;
	}
	char *c = t->comms[*v - 1];
	n = n < INGERO_COMM_LEN - 1 ? n : INGERO_COMM_LEN - 1;
	memcpy(c, comm, n);
	c[n] = 0;
	return 0;
}

const char *ilog_tracks_comm(const struct ilog_tracks *t, uint32_t node, uint32_t pid)
{
	const uint64_t *v = ilog_hmap_get(&t->cmap, key64(node, pid), 0);
	return v ? t->comms[*v - 1] : NULL;
}

void ilog_tracks_free(struct ilog_tracks *t)
{
	ilog_node_map_free(&t->nodes);
	free(t->threads);
	free(t->nest);
	free(t->procs);
	ilog_hmap_free(&t->tmap);
	ilog_hmap_free(&t->pmap);
	ilog_hmap_free(&t->cmap);
	free(t->comms);
	free(t->disks);
	memset(t, 0, sizeof(*t));
}

/*
 * Against an earlier-written slice R = [rs, re], the new slice S = [s, e]
 * is fine when it is after R (s >= re), strictly before it (e < rs: at
 * equal times R's begin, written first, would sort first), inside it with
 * an earlier end (rs <= s, e < re), or around it with an earlier start
 * (s < rs, re <= e).  Anything else clips e, which only ever shrinks, so
 * the loop ends.
 */
static uint64_t clip_end(uint64_t s, uint64_t e, uint64_t rs, uint64_t re)
{
	if (s >= re || e < rs)
		return e;
	if (rs <= s && e < re)
		return e;
	if (s < rs && re <= e)
		return e;
	if (rs <= s)               /* starts inside R, ends at or after its end */
		return re > s ? re - 1 : s;
	return rs > s ? rs - 1 : s; /* starts before R, ends inside it or at its start */
}

uint64_t ilog_tracks_fit_lane(struct ilog_tracks *t, int track, int lane, uint64_t start,
			      uint64_t end)
{
	struct ilog_nest *n = &t->nest[(size_t)track * ILOG_LANES + lane];
	uint64_t e = end;
	if (start < n->max_end) {
		for (int changed = 1; changed;) {
			changed = 0;
			for (uint32_t i = 0; i < n->n + n->nopen; i++) {
				uint64_t c = i < n->n ? clip_end(start, e, n->s[i], n->e[i])
						      : clip_end(start, e, n->os[i - n->n], n->oe[i - n->n]);
				if (c != e) {
					e = c;
					changed = 1;
				}
			}
		}
	}
	/* the ring of recent slices; what it drops may live on as open */
	uint64_t ds = n->s[n->head], de = n->e[n->head];
	int dropped = n->n == ILOG_NEST_RECENT;
	n->s[n->head] = start;
	n->e[n->head] = e;
	n->head = (n->head + 1) % ILOG_NEST_RECENT;
	if (n->n < ILOG_NEST_RECENT)
		n->n++;
	/* open slices: those ending after this start; when full, the one
	 * ending first makes room */
	/* max_end is recomputed only when an entry holding it leaves */
	int stale = dropped && de == n->max_end;
	uint32_t k = 0;
	for (uint32_t i = 0; i < n->nopen; i++) {
		if (n->oe[i] > start) {
			n->os[k] = n->os[i];
			n->oe[k++] = n->oe[i];
		} else if (n->oe[i] == n->max_end) {
			stale = 1;
		}
	}
	n->nopen = k;
	if (dropped && de > start) {
		uint32_t slot = n->nopen;
		if (slot == ILOG_NEST_OPEN) {
			slot = 0;
			for (uint32_t i = 1; i < n->nopen; i++)
				if (n->oe[i] < n->oe[slot])
					slot = i;
			if (n->oe[slot] >= de)
				slot = ILOG_NEST_OPEN;
		} else {
			n->nopen++;
		}
		if (slot < ILOG_NEST_OPEN) {
			/* kept (a replaced entry ends before it, so is not the max) */
			n->os[slot] = ds;
			n->oe[slot] = de;
		}
	}
	if (stale) {
		n->max_end = 0;
		for (uint32_t i = 0; i < n->n; i++)
			if (n->e[i] > n->max_end)
				n->max_end = n->e[i];
		for (uint32_t i = 0; i < n->nopen; i++)
			if (n->oe[i] > n->max_end)
				n->max_end = n->oe[i];
	} else if (e > n->max_end) {
		n->max_end = e;
	}
	return e;
}

static int trace_blkio(struct ilog_tracks *t, const struct ilog_trace_ops *ops, void *s,
		       uint32_t node, const struct ilog_blkio *b, uint64_t wall);

int ilog_trace_record(struct ilog_tracks *t, const struct ilog_trace_ops *ops, void *s,
		      const struct ilog_record *rec, const struct ilog_reader *r)
{
	int isnew;
	if (rec->kind == ILOG_K_HEADER) {
		int node = ilog_node_map_header(&t->nodes, rec, r, &isnew);
		return node < 0 ? -1 : ops->node(s, (uint32_t)node, isnew, &rec->u.header);
	}
	int node = ilog_node_map_get(&t->nodes, rec, r);
	if (node < 0)
		return 0;
	uint64_t ts = ilog_record_ts(rec);
	uint64_t wall = ts ? ilog_reader_wall(r, rec->node, ts) : 0;
	uint32_t n = (uint32_t)node;
	switch (rec->kind) {
	case ILOG_K_PROCESS:
		if (ilog_tracks_comm_set(t, n, rec->u.process.pid, rec->u.process.comm.p,
					 rec->u.process.comm.n))
			return -1;
		return ops->process ? ops->process(s, n, rec->u.process.pid) : 0;
	case ILOG_K_CUDA:
		return ops->cuda(s, n, &rec->u.cuda, wall);
	case ILOG_K_HOST: {
		const struct ingero_host_event *h = &rec->u.host;
		if (h->type == ILOG_HOST_IOWAIT) {
			/* a target's threads blocked on I/O, in % of the window
			 * (over 100 when several threads waited at once) */
			char key[64];
			snprintf(key, sizeof(key), "%.16s (pid %u)", h->comm, h->pid);
			return ops->counter(s, n, wall, "iowait %", key,
					    h->dur_ns ? (double)h->value * 100 / (double)h->dur_ns : 0);
		}
		return ops->host(s, n, h, wall);
	}
	case ILOG_K_BLKIO:
		return trace_blkio(t, ops, s, n, &rec->u.blkio, wall);
	case ILOG_K_RETRANS: {
		/* a flow's retransmissions per second of its window */
		const struct ilog_retrans *x = &rec->u.retrans;
		char key[192], sa[64], da[64];
		const char *o = x->family == 6 ? "[" : "", *c = x->family == 6 ? "]" : "";
		if (x->family)
			snprintf(key, sizeof(key), "%.16s (pid %u) %s%s%s:%u > %s%s%s:%u", x->comm,
				 x->pid, o, ilog_inet_str(x->saddr, sa, sizeof(sa)), c, x->sport, o,
				 ilog_inet_str(x->daddr, da, sizeof(da)), c, x->dport);
		else
			snprintf(key, sizeof(key), "other flows");
		double secs = x->dur_ns ? (double)x->dur_ns / 1e9 : 1;
		return ops->counter(s, n, wall, "retransmits/s", key, (double)x->count / secs);
	}
	case ILOG_K_SOCKIO: {
		/* a process's TCP bytes per second, each way */
		const struct ilog_sockio *o = &rec->u.sockio;
		char key[64];
		if (o->pid)
			snprintf(key, sizeof(key), "%.16s (pid %u)", o->comm, o->pid);
		else
			snprintf(key, sizeof(key), "other processes");
		double secs = o->dur_ns ? (double)o->dur_ns / 1e9 : 1;
		return ops->counter(s, n, wall, "net tx MB/s", key, (double)o->tx_bytes / 1e6 / secs) ||
		       ops->counter(s, n, wall, "net rx MB/s", key, (double)o->rx_bytes / 1e6 / secs)
			       ? -1 : 0;
	}
	case ILOG_K_SNAPSHOT:
		return ops->snapshot(s, n, &rec->u.snapshot, wall);
	case ILOG_K_LOSS:
		return ops->loss(s, n, &rec->u.loss, wall);
	case ILOG_K_CHAIN: {
		const struct ilog_chain *ch = &rec->u.chain;
		return ops->chain(s, n, ch, wall,
				  ch->ts_end ? ilog_reader_wall(r, rec->node, ch->ts_end) : wall);
	}
	default:
		return 0;
	}
}

/* The counters of a device's window: throughput and latency quantiles. */
static int disk_win_out(const struct ilog_trace_ops *ops, void *s, const struct ilog_disk_win *d)
{
	if (!d->ios)
		return 0;
	double secs = d->dur_ns ? (double)d->dur_ns / 1e9 : 1;
	return ops->counter(s, d->node, d->ts, "disk MB/s", d->disk, (double)d->bytes / 1e6 / secs) ||
	       ops->counter(s, d->node, d->ts, "disk IOPS", d->disk, (double)d->ios / secs) ||
	       ops->counter(s, d->node, d->ts, "disk p50 ms", d->disk,
			    (double)ilog_blk_quantile(d->hist, INGERO_BLK_HBUCKETS, 0.50,
						      d->lat_max_ns) / 1e6) ||
	       ops->counter(s, d->node, d->ts, "disk p99 ms", d->disk,
			    (double)ilog_blk_quantile(d->hist, INGERO_BLK_HBUCKETS, 0.99,
						      d->lat_max_ns) / 1e6)
		       ? -1 : 0;
}

/*
 * A blkio record: its process's throughput on its own track ("disk MB/s
 * DISK COMM (pid P)"), and the device's window summed over its records,
 * written as the device's tracks when its next window begins or the
 * stream ends (ilog_trace_finish).
 */
static int trace_blkio(struct ilog_tracks *t, const struct ilog_trace_ops *ops, void *s,
		       uint32_t node, const struct ilog_blkio *b, uint64_t wall)
{
	char disk[32], key[96];
	if (b->disk.n)
		snprintf(disk, sizeof(disk), "%.*s", (int)(b->disk.n < 31 ? b->disk.n : 31), b->disk.p);
	else
		snprintf(disk, sizeof(disk), "%u:%u", b->major, b->minor);
	if (b->pid)
		snprintf(key, sizeof(key), "%s %.16s (pid %u)", disk, b->comm, b->pid);
	else
		snprintf(key, sizeof(key), "%s other processes", disk);
	double secs = b->dur_ns ? (double)b->dur_ns / 1e9 : 1;
	if (ops->counter(s, node, wall, "disk MB/s", key, (double)b->bytes / 1e6 / secs))
		return -1;
	uint32_t i = 0;
	while (i < t->ndisks && (t->disks[i].node != node || t->disks[i].major != b->major ||
				 t->disks[i].minor != b->minor))
		i++;
	if (i == t->ndisks) {
		struct ilog_disk_win *d = realloc(t->disks, (i + 1) * sizeof(*d));
		if (!d)
			return -1;
		t->disks = d;
		t->ndisks++;
		memset(&d[i], 0, sizeof(d[i]));
		d[i].node = node, d[i].major = b->major, d[i].minor = b->minor;
	}
	struct ilog_disk_win *d = &t->disks[i];
	if (d->ts != wall) {
		if (disk_win_out(ops, s, d))
			return -1;
		d->ts = wall, d->dur_ns = b->dur_ns, d->ios = d->bytes = d->lat_max_ns = 0;
		memset(d->hist, 0, sizeof(d->hist));
	}
	snprintf(d->disk, sizeof(d->disk), "%s", disk);
	d->ios += b->ios;
	d->bytes += b->bytes;
	if (b->lat_max_ns > d->lat_max_ns)
		d->lat_max_ns = b->lat_max_ns;
	for (uint32_t k = 0; k < b->nhist && k < INGERO_BLK_HBUCKETS; k++)
		d->hist[k] += b->hist[k];
	return 0;
}

int ilog_trace_finish(struct ilog_tracks *t, const struct ilog_trace_ops *ops, void *s)
{
	for (uint32_t i = 0; i < t->ndisks; i++) {
		if (disk_win_out(ops, s, &t->disks[i]))
			return -1;
		t->disks[i].ios = 0;
	}
	return 0;
}

void ilog_page_track_name(char *buf, size_t n, const struct ingero_host_event *h)
{
	if (h->type == ILOG_HOST_PAGE_ALLOC_REST)
		snprintf(buf, n, "other processes");
	else
		snprintf(buf, n, "%.16s (pid %u)", h->comm, h->pid);
}
