// SPDX-License-Identifier: MIT
/*
 * From ring buffers to the log: each message becomes one record (CUDA
 * events go through the allocation-free ilog_writer_put_cuda straight
 * from ring memory), notes schedule rescans, and once a window the
 * in-kernel aggregates and every loss counter are written as records, so
 * the log states how many events of each kind are missing.
 */
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <bpf/bpf.h>
#include <bpf/libbpf.h>
#include "ingero/cli.h"
#include "ingero/hmap.h"
#include "rec.h"
#include "bpf/record.skel.h"

static unsigned hist_bucket(uint64_t v)
{
	if (v < 4)
		return (unsigned)v;
	unsigned lg = 63u - (unsigned)__builtin_clzll(v);
	unsigned b = lg * 4 + (unsigned)((v >> (lg - 2)) & 3);
	return b < REC_HBUCKETS ? b : REC_HBUCKETS - 1;
}

static uint64_t hist_value(unsigned b)
{
	if (b < 4)
		return b;
	unsigned lg = b / 4;
	return (1ull << lg) + ((uint64_t)(b & 3) << (lg - 2));
}

static uint64_t hist_pct(const struct rec_hist *h, double q)
{
	uint64_t want = (uint64_t)((double)(h->n - h->untimed) * q), seen = 0;
	for (unsigned b = 0; b < REC_HBUCKETS; b++) {
		seen += h->b[b];
		if (seen > want)
			return hist_value(b);
	}
	return 0;
}

/*
 * Kernel names (SPEC §5.18): a kernel record per handle made.  The names
 * of the handles seen are kept, key (pid, handle), so a function made from
 * a CUkernel (cuKernelGetFunction) gets its kernel's name.
 */
static struct ilog_hmap knames;

/* libstdc++'s demangler (linked for it alone) */
char *__cxa_demangle(const char *mangled, char *buf, size_t *len, int *status);

static void on_kname(struct rec *r, const struct rec_kname *k, size_t size)
{
	const char *name = k->name;
	size_t n = strnlen(k->name, size - REC_KNAME_HDR_LEN);
	if (!k->name[0] || !n) {
		const uint64_t *v = ilog_hmap_get(&knames, k->pid, k->parent);
		if (!v)
			return; /* a CUkernel made before the recording began */
		name = (const char *)(uintptr_t)*v;
		n = strlen(name);
	}
	uint64_t *slot = ilog_hmap_put(&knames, k->pid, k->handle);
	if (!slot)
		return;
	char *copy = strndup(name, n);
	if (!copy)
		return;
	int st = -1;
	char *dm = !k->name[0] || strncmp(copy, "_Z", 2) ? NULL : __cxa_demangle(copy, NULL, NULL, &st);
	if (dm && !st) { /* as ingero-symbolize shows a runtime launch's stub */
		free(copy);
		copy = dm;
		n = strlen(copy);
	} else {
		free(dm);
	}
	if (*slot && !strcmp((const char *)(uintptr_t)*slot, copy)) {
		free(copy); /* the same handle asked for again: named once */
		return;
	}
	free((char *)(uintptr_t)*slot); /* a handle of a freed module, made anew */
	*slot = (uint64_t)(uintptr_t)copy;
	struct ilog_record rec = { .kind = ILOG_K_KERNEL };
	rec.u.kernel.pid = k->pid;
	rec.u.kernel.handle = k->handle;
	rec.u.kernel.name = (struct ilog_str){ copy, (uint32_t)n };
	ilog_writer_put(r->w, &rec);
}

static int on_msg(void *ctx, void *data, size_t size)
{
	struct rec *r = ctx;
	const struct rec_hdr *h = data;
	if (size < sizeof(*h))
		return 0;
	switch (h->type) {
	case REC_MSG_CUDA: {
		const struct rec_cuda *m = data;
		r->drain_bytes += size + 8; /* + the ring's own record header */
		if (size < sizeof(*m))
			break;
		uint64_t sid = rec_unwind_stack_id(m);
		if (sid != m->ev.stack_id) {
			struct ingero_cuda_event ev = m->ev;
			ev.stack_id = sid;
			ilog_writer_put_cuda(r->w, &ev);
		} else {
			ilog_writer_put_cuda(r->w, &m->ev);
		}
		r->n_cuda++;
		/* an untimed launch (SPEC §5.4) has no duration to judge */
		if (r->p99 && !(m->ev.flags & ILOG_CUDA_F_UNTIMED))
			rec_p99_add(r->p99, m->ev.pid, m->ev.op, m->ev.dur_ns);
		if (m->ev.op < REC_MAX_OPS) {
			r->cuda_by_op[m->ev.op]++;
			struct rec_hist *hs = &r->hist[m->ev.op];
			hs->n++;
			if (m->ev.flags & ILOG_CUDA_F_UNTIMED)
				hs->untimed++; /* counted; its duration is unknown */
			else
				hs->b[hist_bucket(m->ev.dur_ns)]++;
		}
		return 0;
	}
	case REC_MSG_STACK: {
		const struct rec_stack *m = data;
		if (size < REC_STACK_HDR_LEN)
			break;
		static struct ilog_record rec = { .kind = ILOG_K_STACK };
		uint32_t nr = m->st.nr;
		if (nr > INGERO_MAX_STACK || REC_STACK_HDR_LEN + nr * 8ull > size)
			nr = (uint32_t)((size - REC_STACK_HDR_LEN) / 8);
		rec.u.stack.id = m->st.id;
		rec.u.stack.pid = m->st.pid;
		rec.u.stack.nr = nr;
		memcpy(rec.u.stack.ips, m->st.ips, nr * 8ull);
		ilog_writer_put(r->w, &rec);
		r->n_stack++;
		return 0;
	}
	case REC_MSG_USTACK:
		rec_unwind_copy(r, data, size);
		return 0;
	case REC_MSG_KNAME:
		if (size > REC_KNAME_HDR_LEN)
			on_kname(r, data, size);
		return 0;
	case REC_MSG_PYSTACK:
		rec_py_stack(r, data, size);
		return 0;
	case REC_MSG_HOST: {
		const struct rec_host *m = data;
		if (size < sizeof(*m))
			break;
		/* a preempter or waker of a target thread may be the culprit a
		 * chain names: its process record (and container) first */
		if ((m->ev.type == ILOG_HOST_SWITCH || m->ev.type == ILOG_HOST_WAKEUP) &&
		    m->ev.other_pid && r->others_left &&
		    rec_write_other(r, m->ev.other_pid, m->ev.other_comm, m->other_cgroup_id))
			r->others_left--; /* bounded per window: a busy host forks many */
		/* and a wakeup's occupant, who held the CPU the woken thread
		 * waited for (value, SPEC §5.5) */
		if (m->ev.type == ILOG_HOST_WAKEUP && m->ev.value && r->others_left &&
		    rec_write_other(r, (uint32_t)m->ev.value, m->occ_comm, m->occ_cgroup_id))
			r->others_left--;
		struct ilog_record rec = { .kind = ILOG_K_HOST };
		rec.u.host = m->ev;
		ilog_writer_put(r->w, &rec);
		r->n_host++;
		switch (m->ev.type) {
		case ILOG_HOST_FORK: {
			struct rec_proc *c = rec_proc_get(r, m->ev.other_pid, 1);
			if (c)
				c->fork_parent = m->ev.pid;
			rec_queue_scan(r, m->ev.other_pid);
			break;
		}
		case ILOG_HOST_EXEC: {
			struct rec_proc *p = rec_proc_get(r, m->ev.pid, 1);
			if (p)
				p->exec_gen++;
			rec_queue_scan(r, m->ev.pid);
			break;
		}
		case ILOG_HOST_EXIT: {
			struct rec_proc *p = rec_proc_get(r, m->ev.pid, 0);
			if (p)
				p->exited = 1;
			break;
		}
		}
		return 0;
	}
	case REC_MSG_HOLD:
		if (size < sizeof(struct rec_hold_msg))
			break;
		r->n_note++;
		rec_hold_msg(r, data);
		return 0;
	case REC_MSG_NOTE: {
		const struct rec_note *m = data;
		if (size < sizeof(*m))
			break;
		r->n_note++;
		rec_queue_scan(r, m->pid);
		if (m->what != REC_NOTE_HELD)
			return 0;
		if (r->nheld < sizeof(r->held) / sizeof(r->held[0]))
			r->held[r->nheld++] = m->pid;
		else
			rec_hold_resume(r, m->pid); /* no room to wait for its scan */
		return 0;
	}
	}
	r->n_other++;
	return 0;
}

int rec_sink_open(struct rec *r)
{
	r->others_left = r->o.host_top;
	/* the critical ring first: consume() drains rings in this order */
	r->rb = ring_buffer__new(bpf_map__fd(r->skel->maps.crit_rb), on_msg, r, NULL);
	if (!r->rb) {
		snprintf(r->err, sizeof(r->err), "ring buffer: %s", strerror(errno));
		return -1;
	}
	/* stack copies before the events that use them */
	if (ring_buffer__add(r->rb, bpf_map__fd(r->skel->maps.ustack_rb), on_msg, r) ||
	    ring_buffer__add(r->rb, bpf_map__fd(r->skel->maps.cuda_rb), on_msg, r) ||
	    ring_buffer__add(r->rb, bpf_map__fd(r->skel->maps.host_rb), on_msg, r)) {
		snprintf(r->err, sizeof(r->err), "ring buffer: %s", strerror(errno));
		return -1;
	}
	return 0;
}

int rec_drain(struct rec *r, int timeout_ms)
{
	/* sleeps until a critical event or the timeout, then empties every ring */
	int n = ring_buffer__poll(r->rb, timeout_ms);
	if (n < 0 && n != -EINTR)
		return n;
	r->drain_bytes = 0;
	n = ring_buffer__consume(r->rb);
	if (r->drain_bytes > r->max_drain_bytes)
		r->max_drain_bytes = r->drain_bytes;
	if (r->npending)
		rec_scan_pending(r);
	/* attached to what they loaded: let them go on */
	rec_hold_release(r);
	return n < 0 && n != -EINTR ? n : 0;
}

/* Per-CPU array element i, summed over CPUs, as n u64 counters. */
static int percpu_sum(struct bpf_map *m, uint32_t i, uint64_t *out, unsigned n)
{
	int ncpu = libbpf_num_possible_cpus();
	if (ncpu <= 0)
		return -1;
	uint64_t *v = calloc((size_t)ncpu * n, sizeof(*v));
	if (!v)
		return -1;
	memset(out, 0, n * sizeof(*out));
	int rc = bpf_map__lookup_elem(m, &i, sizeof(i), v, (size_t)ncpu * n * sizeof(*v), 0);
	if (!rc)
		for (int c = 0; c < ncpu; c++)
			for (unsigned k = 0; k < n; k++)
				out[k] += v[(size_t)c * n + k];
	free(v);
	return rc;
}

static void put_loss(struct rec *r, uint64_t ts, const char *source, uint64_t lost, uint64_t seen)
{
	struct ilog_record rec = { .kind = ILOG_K_LOSS };
	rec.u.loss = (struct ilog_loss){ .ts_ns = ts, .source = ilog_str_c(source), .lost = lost,
					 .seen = seen };
	ilog_writer_put(r->w, &rec);
}

static const char *const ring_name[REC_RB__COUNT] = { "ringbuf:cuda", "ringbuf:host",
						      "ringbuf:critical", "ringbuf:ustack" };

/*
 * Loss records (SPEC "loss"): cumulative counters since the start, written
 * when any changed and always at the end.  probe:<op> seen = calls that
 * entered a traced function in a target, lost = of those, not recorded
 * (ring full, nesting too deep, return never paired); sampling:<op> lost =
 * calls skipped on purpose by --sampling-rate.
 */
static void write_losses(struct rec *r, uint64_t ts, int final)
{
	static struct rec_op_stat ops[REC_MAX_OPS];
	uint32_t nops = ilog_op_limit() < REC_MAX_OPS ? ilog_op_limit() : REC_MAX_OPS;
	struct rec_rb_stat rbs[REC_RB__COUNT];
	struct rec_host_stat hs[ILOG_HOST__COUNT];
	struct rec_stack_stat ss;
	uint64_t sum = 0;
	for (uint32_t i = 0; i < nops; i++) {
		if (!ilog_op_name(i))
			continue; /* no probe has its number */
		percpu_sum(r->skel->maps.op_stats, i, (uint64_t *)&ops[i],
			   sizeof(ops[i]) / sizeof(uint64_t));
		sum += ops[i].calls * 3 + ops[i].lost * 5 + ops[i].sampled * 7;
	}
	for (uint32_t i = 0; i < REC_RB__COUNT; i++) {
		percpu_sum(r->skel->maps.rb_stats, i, (uint64_t *)&rbs[i], 2);
		sum += rbs[i].sent * 11 + rbs[i].lost * 13;
	}
	for (uint32_t i = 0; i < ILOG_HOST__COUNT; i++) {
		percpu_sum(r->skel->maps.host_stats, i, (uint64_t *)&hs[i], 2);
		sum += hs[i].seen * 17 + hs[i].lost * 19;
	}
	/* socket calls of processes the kernel's sock_agg table had no room for */
	uint64_t sock_full = 0;
	uint32_t sf = REC_NET_SOCK_FULL;
	bpf_map__lookup_elem(r->skel->maps.net_stats, &sf, sizeof(sf), &sock_full, sizeof(sock_full), 0);
	sum += sock_full * 41;
	percpu_sum(r->skel->maps.stack_stats, 0, (uint64_t *)&ss,
		   sizeof(ss) / sizeof(uint64_t));
	sum += ss.sent * 23 + ss.lost * 29 + ss.copies * 31 + ss.copies_lost * 37;
	sum += rec_hold_sum(r);
	if (!final && sum == r->last_loss_sum)
		return;
	r->last_loss_sum = sum;
	for (uint32_t i = 0; i < REC_RB__COUNT; i++)
		if (i != REC_RB_USTACK || rbs[i].sent || rbs[i].lost)
			put_loss(r, ts, ring_name[i], rbs[i].lost, rbs[i].sent + rbs[i].lost);
	char src[96];
	for (uint32_t i = 1; i < nops; i++) {
		if (!ilog_op_name(i) || !ops[i].calls)
			continue;
		snprintf(src, sizeof(src), "probe:%s", ilog_op_name(i));
		put_loss(r, ts, src, ops[i].lost, ops[i].calls);
		if (ops[i].sampled) {
			snprintf(src, sizeof(src), "sampling:%s", ilog_op_name(i));
			put_loss(r, ts, src, ops[i].sampled, ops[i].calls);
		}
	}
	for (uint32_t i = 1; i < ILOG_HOST__COUNT; i++) {
		if (!hs[i].seen)
			continue;
		snprintf(src, sizeof(src), "host:%s", ilog_host_type_name(i));
		put_loss(r, ts, src, hs[i].lost, hs[i].seen);
	}
	if (sock_full)
		put_loss(r, ts, "table:sockio", sock_full, sock_full);
	if (r->o.stacks)
		put_loss(r, ts, "stacks", ss.lost, ss.sent + ss.lost);
	if (r->o.stacks && (ss.copies || ss.copies_lost))
		put_loss(r, ts, "stack-copies", ss.copies_lost, ss.copies + ss.copies_lost);
	rec_py_losses(r, ts);
	rec_hold_losses(r, ts);
}

/* The value of key in aggregate map m, deleted: 0, or -1 when it is gone.
 * Kernels without lookup-and-delete for hash maps get a lookup, then a
 * delete. */
static int map_take(struct bpf_map *m, const void *key, size_t ks, void *val, size_t vs)
{
	if (!bpf_map__lookup_and_delete_elem(m, key, ks, val, vs, 0))
		return 0;
	return bpf_map__lookup_elem(m, key, ks, val, vs, 0) || bpf_map__delete_elem(m, key, ks, 0)
		       ? -1 : 0;
}

/*
 * Take every entry of aggregate map m (a window's counts, taken so the
 * kernel starts the next window from zero) into ents: at most cap entries
 * of esize bytes, each its key at offset 0 and its value at voff, sorted
 * by cmp (most first; NULL: in the map's order).  Entries gone meanwhile
 * are left out.  The number taken.
 */
static unsigned map_take_all(struct bpf_map *m, void *ents, size_t esize, size_t voff,
			     unsigned cap, int (*cmp)(const void *, const void *))
{
	size_t ks = bpf_map__key_size(m), vs = bpf_map__value_size(m);
	char *e = ents;
	unsigned nk = 0, ne = 0;
	/* the keys first: deleting while walking would restart the walk */
	int more = cap && bpf_map__get_next_key(m, NULL, e, ks) == 0;
	while (more && ++nk < cap)
		more = bpf_map__get_next_key(m, e + (nk - 1) * esize, e + nk * esize, ks) == 0;
	for (unsigned i = 0; i < nk; i++) {
		char *d = e + ne * esize;
		if (i != ne)
			memcpy(d, e + i * esize, ks);
		if (!map_take(m, d, ks, d + voff, vs))
			ne++;
	}
	if (cmp)
		qsort(ents, ne, esize, cmp);
	return ne;
}

/*
 * Does pid get a record of its own in a window's list of the biggest?  A
 * target always; another process (with its process record, once) while
 * fewer than --host-top others have one, counted in *named; the others go
 * to the window's rest.  pid 0 (not known) counts as another, without a
 * process record.
 */
static int own_record(struct rec *r, uint32_t pid, unsigned *named, const char *comm,
		      uint64_t cgroup_id)
{
	if (pid && rec_is_target(r, pid))
		return 1;
	if (*named >= r->o.host_top)
		return 0;
	(*named)++;
	if (pid)
		rec_write_other(r, pid, comm, cgroup_id);
	return 1;
}

struct sched_ent {
	uint32_t pid;
	struct rec_sched_agg a;
};

/* Drain a per-pid aggregate map: one record per pid, then delete it. */
static void drain_sched(struct rec *r, uint64_t now, uint64_t win)
{
	static struct sched_ent ents[8192];
	unsigned ne = map_take_all(r->skel->maps.sched_agg, ents, sizeof(ents[0]),
				   offsetof(struct sched_ent, a), 8192, NULL);
	for (unsigned i = 0; i < ne; i++) {
		const struct rec_sched_agg *a = &ents[i].a;
		struct ilog_record rec = { .kind = ILOG_K_HOST };
		struct ingero_host_event *e = &rec.u.host;
		e->ts_ns = now - win;
		e->type = ILOG_HOST_SCHED_AGG;
		e->pid = ents[i].pid;
		e->dur_ns = win;
		e->value = a->switches;
		memcpy(e->comm, a->comm, sizeof(e->comm));
		if (a->switches) {
			ilog_writer_put(r->w, &rec);
			r->n_host++;
		}
		if (a->iowaits) { /* its threads' time blocked on I/O in the window */
			e->type = ILOG_HOST_IOWAIT;
			e->value = a->iowait_ns;
			e->other_pid = (uint32_t)a->iowaits;
			ilog_writer_put(r->w, &rec);
			r->n_host++;
		}
		/* its calling threads' time blocked between calls, by class */
		for (uint32_t k = 0; k < ILOG_WAIT__COUNT; k++) {
			if (!a->waits[k])
				continue;
			e->type = ILOG_HOST_WAIT;
			e->value = a->wait_ns[k];
			e->other_pid = (uint32_t)a->waits[k];
			e->other_tid = k;
			snprintf(e->other_comm, sizeof(e->other_comm), "%s", ilog_wait_class_name(k));
			ilog_writer_put(r->w, &rec);
			r->n_host++;
		}
	}
}

struct page_ent {
	uint32_t pid;
	struct rec_page_agg a;
};

static int page_cmp(const void *x, const void *y)
{
	const struct page_ent *a = x, *b = y;
	if (a->a.pages != b->a.pages)
		return a->a.pages < b->a.pages ? 1 : -1;
	return a->pid < b->pid ? -1 : a->pid > b->pid;
}

/*
 * Page allocations of the window, counted per process in the kernel for
 * every process: the targets' and the --host-top others that allocated
 * most, one record each; the rest summed in one page_alloc_rest record,
 * so a busy host writes a bounded number of records per window.
 */
static void drain_pages(struct rec *r, uint64_t now, uint64_t win)
{
	static struct page_ent ents[16384];
	unsigned ne = map_take_all(r->skel->maps.page_agg, ents, sizeof(ents[0]),
				   offsetof(struct page_ent, a), 16384, page_cmp);
	unsigned named = 0;
	uint64_t rest_pages = 0, rest_n = 0;
	for (unsigned i = 0; i < ne; i++) {
		const struct page_ent *pe = &ents[i];
		if (!own_record(r, pe->pid, &named, pe->a.comm, pe->a.cgroup_id)) {
			rest_pages += pe->a.pages;
			rest_n++;
			continue;
		}
		struct ilog_record rec = { .kind = ILOG_K_HOST };
		struct ingero_host_event *e = &rec.u.host;
		e->ts_ns = now - win;
		e->type = ILOG_HOST_PAGE_ALLOC;
		e->pid = pe->pid;
		e->dur_ns = win;
		e->value = pe->a.pages;
		e->cgroup_id = pe->a.cgroup_id;
		memcpy(e->comm, pe->a.comm, sizeof(e->comm));
		ilog_writer_put(r->w, &rec);
		r->n_host++;
	}
	if (rest_n) {
		struct ilog_record rec = { .kind = ILOG_K_HOST };
		struct ingero_host_event *e = &rec.u.host;
		e->ts_ns = now - win;
		e->type = ILOG_HOST_PAGE_ALLOC_REST;
		e->other_pid = (uint32_t)rest_n;
		e->dur_ns = win;
		e->value = rest_pages;
		ilog_writer_put(r->w, &rec);
		r->n_host++;
	}
}

struct blk_ent {
	struct rec_blk_key k;
	struct rec_blk_agg a;
};

static int blk_cmp(const void *x, const void *y)
{
	const struct blk_ent *a = x, *b = y;
	if (a->a.bytes != b->a.bytes)
		return a->a.bytes < b->a.bytes ? 1 : -1;
	if (a->a.ios != b->a.ios)
		return a->a.ios < b->a.ios ? 1 : -1;
	if (a->k.dev != b->k.dev)
		return a->k.dev < b->k.dev ? -1 : 1;
	return a->k.pid < b->k.pid ? -1 : a->k.pid > b->k.pid;
}

/* The name of block device dev (major << 20 | minor), from sysfs. */
static const char *blk_name(uint32_t dev)
{
	static struct { uint32_t dev; char name[32]; } cache[64];
	static unsigned n;
	for (unsigned i = 0; i < n; i++)
		if (cache[i].dev == dev)
			return cache[i].name;
	char path[64], link[256] = "";
	snprintf(path, sizeof(path), "/sys/dev/block/%u:%u", dev >> 20, dev & 0xfffff);
	ssize_t len = readlink(path, link, sizeof(link) - 1);
	link[len > 0 ? len : 0] = 0;
	const char *base = strrchr(link, '/');
	base = base ? base + 1 : link;
	if (n >= sizeof(cache) / sizeof(cache[0]))
		return ""; /* full: names of the first 64 devices only */
	cache[n].dev = dev;
	snprintf(cache[n].name, sizeof(cache[n].name), "%s", base);
	return cache[n++].name;
}

static void put_blk(struct rec *r, uint64_t ts, uint64_t win, uint32_t dev, uint32_t pid,
		    uint32_t nprocs, const struct rec_blk_agg *a)
{
	struct ilog_record rec = { .kind = ILOG_K_BLKIO };
	struct ilog_blkio *b = &rec.u.blkio;
	b->ts_ns = ts;
	b->dur_ns = win;
	b->major = dev >> 20;
	b->minor = dev & 0xfffff;
	b->disk = ilog_str_c(blk_name(dev));
	b->pid = pid;
	b->nprocs = nprocs;
	if (pid)
		memcpy(b->comm, a->comm, sizeof(b->comm));
	b->cgroup_id = pid ? a->cgroup_id : 0;
	b->ios = a->ios;
	b->bytes = a->bytes;
	b->read_ios = a->read_ios;
	b->read_bytes = a->read_bytes;
	b->lat_sum_ns = a->lat_sum_ns;
	b->lat_max_ns = a->lat_max_ns;
	for (uint32_t i = 0; i < INGERO_BLK_HBUCKETS; i++)
		if ((b->hist[i] = a->hist[i]))
			b->nhist = i + 1;
	ilog_writer_put(r->w, &rec);
	r->n_host++;
}

/*
 * Block I/O of the window, counted per (device, process) in the kernel:
 * one blkio record (SPEC §5.19) for each target's and for the --host-top
 * (device, process) pairs of others that moved the most bytes, with their
 * process records; the others summed per device (pid 0), so a device's
 * records add up to all its requests and a window writes at most
 * targets' + N + one per device records.
 */
static void drain_blk(struct rec *r, uint64_t now, uint64_t win)
{
	static struct blk_ent ents[4096];
	enum { MAXDEV = 64 };
	static struct rec_blk_agg rest[MAXDEV];
	uint32_t rest_dev[MAXDEV], rest_n[MAXDEV];
	unsigned nrest = 0, named = 0;
	unsigned ne = map_take_all(r->skel->maps.blk_agg, ents, sizeof(ents[0]),
				   offsetof(struct blk_ent, a), 4096, blk_cmp);
	for (unsigned i = 0; i < ne; i++) {
		const struct blk_ent *be = &ents[i];
		/* pid 0: requests started from interrupt context, always in the rest */
		if (be->k.pid && own_record(r, be->k.pid, &named, be->a.comm, be->a.cgroup_id)) {
			put_blk(r, now - win, win, be->k.dev, be->k.pid, 1, &be->a);
			continue;
		}
		unsigned d = 0;
		while (d < nrest && rest_dev[d] != be->k.dev)
			d++;
		if (d == nrest) {
			if (nrest == MAXDEV)
				d = MAXDEV - 1; /* more devices than that: the last sums them */
			else {
				nrest++;
				rest_dev[d] = be->k.dev;
				rest_n[d] = 0;
				memset(&rest[d], 0, sizeof(rest[d]));
			}
		}
		struct rec_blk_agg *ra = &rest[d];
		rest_n[d]++;
		ra->ios += be->a.ios;
		ra->bytes += be->a.bytes;
		ra->read_ios += be->a.read_ios;
		ra->read_bytes += be->a.read_bytes;
		ra->lat_sum_ns += be->a.lat_sum_ns;
		if (be->a.lat_max_ns > ra->lat_max_ns)
			ra->lat_max_ns = be->a.lat_max_ns;
		for (unsigned b = 0; b < INGERO_BLK_HBUCKETS; b++)
			ra->hist[b] += be->a.hist[b];
	}
	for (unsigned d = 0; d < nrest; d++)
		put_blk(r, now - win, win, rest_dev[d], 0, rest_n[d], &rest[d]);
}

/* A cumulative net_stats counter's growth since the previous window. */
static uint64_t net_stat_delta(struct rec *r, uint32_t which)
{
	static uint64_t last[REC_NET__COUNT];
	uint64_t v = 0;
	if (which >= REC_NET__COUNT ||
	    bpf_map__lookup_elem(r->skel->maps.net_stats, &which, sizeof(which), &v, sizeof(v), 0))
		return 0;
	uint64_t d = v - last[which];
	last[which] = v;
	return d;
}

struct flow_ent {
	struct rec_flow_key k;
	struct rec_flow_agg a;
};

static int flow_cmp(const void *x, const void *y)
{
	const struct flow_ent *a = x, *b = y;
	if (a->a.count != b->a.count)
		return a->a.count < b->a.count ? 1 : -1;
	return memcmp(&a->k, &b->k, sizeof(a->k));
}

/*
 * TCP retransmissions of the window (SPEC §5.20), counted per flow in the
 * kernel: the targets' flows and the --host-top others that retransmitted
 * most, one record each with the owner's process record; the rest, and
 * what the kernel's table had no room for, summed in one record.
 */
static void drain_flows(struct rec *r, uint64_t now, uint64_t win)
{
	static struct flow_ent ents[4096];
	unsigned ne = map_take_all(r->skel->maps.flow_agg, ents, sizeof(ents[0]),
				   offsetof(struct flow_ent, a), 4096, flow_cmp);
	unsigned named = 0;
	uint64_t rest = net_stat_delta(r, REC_NET_RETRANS_FULL), rest_flows = 0;
	for (unsigned i = 0; i < ne; i++) {
		const struct flow_ent *fe = &ents[i];
		if (!own_record(r, fe->a.pid, &named, fe->a.comm, fe->a.cgroup_id)) {
			rest += fe->a.count;
			rest_flows++;
			continue;
		}
		uint32_t alen = fe->k.family == 4 ? 4 : 16;
		struct ilog_record rec = { .kind = ILOG_K_RETRANS };
		struct ilog_retrans *t = &rec.u.retrans;
		*t = (struct ilog_retrans){
			.ts_ns = now - win, .dur_ns = win, .pid = fe->a.pid,
			.cgroup_id = fe->a.cgroup_id, .family = fe->k.family,
			.saddr = { fe->k.saddr, alen }, .daddr = { fe->k.daddr, alen },
			.sport = fe->k.sport, .dport = fe->k.dport, .count = fe->a.count,
			.state = (uint8_t)fe->a.state, .flows = 1,
		};
		memcpy(t->comm, fe->a.comm, sizeof(t->comm));
		ilog_writer_put(r->w, &rec);
	}
	if (rest) {
		struct ilog_record rec = { .kind = ILOG_K_RETRANS };
		rec.u.retrans = (struct ilog_retrans){ .ts_ns = now - win, .dur_ns = win,
						       .count = rest, .flows = (uint32_t)rest_flows };
		ilog_writer_put(r->w, &rec);
	}
}

struct sock_ent {
	uint32_t pid;
	struct rec_sock_agg a;
};

static int sock_cmp(const void *x, const void *y)
{
	const struct sock_ent *a = x, *b = y;
	uint64_t va = a->a.tx_bytes + a->a.rx_bytes, vb = b->a.tx_bytes + b->a.rx_bytes;
	if (va != vb)
		return va < vb ? 1 : -1;
	return a->pid < b->pid ? -1 : a->pid > b->pid;
}

/*
 * Socket volume of the window (SPEC §5.21), counted per process in the
 * kernel: the targets and the --host-top others that moved most bytes,
 * the rest summed in one record with pid 0.
 */
static void drain_sockio(struct rec *r, uint64_t now, uint64_t win)
{
	static struct sock_ent ents[16384];
	unsigned ne = map_take_all(r->skel->maps.sock_agg, ents, sizeof(ents[0]),
				   offsetof(struct sock_ent, a), 16384, sock_cmp);
	unsigned named = 0;
	struct ilog_sockio rest = { .ts_ns = now - win, .dur_ns = win };
	for (unsigned i = 0; i < ne; i++) {
		const struct sock_ent *se = &ents[i];
		if (!own_record(r, se->pid, &named, se->a.comm, se->a.cgroup_id)) {
			rest.tx_bytes += se->a.tx_bytes;
			rest.rx_bytes += se->a.rx_bytes;
			rest.tx_calls += se->a.tx_calls;
			rest.rx_calls += se->a.rx_calls;
			rest.others++;
			continue;
		}
		struct ilog_record rec = { .kind = ILOG_K_SOCKIO };
		rec.u.sockio = (struct ilog_sockio){
			.ts_ns = now - win, .dur_ns = win, .pid = se->pid,
			.cgroup_id = se->a.cgroup_id, .tx_bytes = se->a.tx_bytes,
			.rx_bytes = se->a.rx_bytes, .tx_calls = se->a.tx_calls,
			.rx_calls = se->a.rx_calls,
		};
		memcpy(rec.u.sockio.comm, se->a.comm, sizeof(rec.u.sockio.comm));
		ilog_writer_put(r->w, &rec);
	}
	if (rest.others) {
		struct ilog_record rec = { .kind = ILOG_K_SOCKIO };
		rec.u.sockio = rest;
		ilog_writer_put(r->w, &rec);
	}
}

/*
 * The calls in progress (map inflight) as records: while recording, each
 * window's `inflight` records (SPEC §5.22) of the calls running longer
 * than min_ns; at the end, every call still running, with NO_RETURN
 * (SPEC §5.4), timed up to now, so that seen = recorded + lost.  Stacks
 * are taken at return (finish_call in BPF), except for the calls that may
 * block (blocking_op), which take them at entry: those have them here.
 * Returns how many were written.
 */
static unsigned write_inflight(struct rec *r, uint64_t now, uint64_t min_ns, int at_stop)
{
	struct bpf_map *m = r->skel->maps.inflight;
	uint32_t key, next;
	unsigned n = 0;
	int more = bpf_map__get_next_key(m, NULL, &next, sizeof(next)) == 0;
	while (more) {
		key = next;
		more = bpf_map__get_next_key(m, &key, &next, sizeof(next)) == 0;
		struct rec_inflight in;
		if (bpf_map__lookup_elem(m, &key, sizeof(key), &in, sizeof(in), 0))
			continue;
		for (uint32_t d = 0; d < in.depth && d < REC_MAX_DEPTH; d++) {
			const struct rec_frame *f = &in.f[d];
			/* ts is set last at entry: 0 (or ahead of now) is a frame
			 * the kernel was filling as it was read */
			if (f->skip || !f->ts || f->ts > now)
				continue;
			/* the longest call in progress: --hang-after's subject */
			if (!at_stop && now - f->ts > r->longest.dur)
				r->longest = (struct rec_call){ now - f->ts, f->ts, in.tgid, key,
								(uint16_t)REC_COOKIE_OP(f->cookie) };
			if (now - f->ts < min_ns)
				continue;
			struct ingero_cuda_event e = {
				.ts_ns = f->ts, .dur_ns = now - f->ts, .pid = in.tgid, .tid = key,
				.op = (uint16_t)REC_COOKIE_OP(f->cookie),
				.layer = (uint8_t)REC_COOKIE_LAYER(f->cookie),
				.flags = at_stop ? ILOG_CUDA_F_NO_RETURN : 0, .stream = f->stream,
				.bytes = f->bytes, .handle = f->out ? 0 : f->handle, .kind = f->kind,
				.stack_id = f->stack_id, .pystack_id = f->pystack_id,
			};
			/* as fill_event in BPF */
			uint32_t dec = REC_COOKIE_DEC(f->cookie);
			e.nargs = rec_frame_args(f, e.args);
			if (dec == REC_DEC_RAW) {
				e.stream = e.bytes = e.handle = 0;
			} else if (!rec_dec_has_args(dec)) {
				e.grid_x = f->grid[0], e.grid_y = f->grid[1], e.grid_z = f->grid[2];
				e.block_x = f->block[0], e.block_y = f->block[1], e.block_z = f->block[2];
			}
			if (at_stop) {
				ilog_writer_put_cuda(r->w, &e);
				r->n_cuda++;
			} else {
				struct ilog_record rec = { .kind = ILOG_K_INFLIGHT };
				rec.u.inflight = e;
				ilog_writer_put(r->w, &rec);
			}
			n++;
		}
	}
	return n;
}

void rec_flush_inflight(struct rec *r)
{
	write_inflight(r, rec_now(CLOCK_MONOTONIC), 0, 1);
}

void rec_window(struct rec *r, int final)
{
	uint64_t now = rec_now(CLOCK_MONOTONIC);
	uint64_t win = now - (r->last_tick_ns ? r->last_tick_ns : r->t0_ns);
	r->last_tick_ns = now;
	r->others_left = r->o.host_top;
	drain_sched(r, now, win);
	drain_pages(r, now, win);
	drain_blk(r, now, win);
	drain_flows(r, now, win);
	drain_sockio(r, now, win);
	write_losses(r, now, final);
	/* a hang must be in the file while it lasts, whatever ends the
	 * recorder: the frame holding these ends now (SPEC §5.22) */
	r->longest = (struct rec_call){ 0 };
	if (!final && (r->o.inflight_after_ns || r->o.hang_after_ns) &&
	    write_inflight(r, now, r->o.inflight_after_ns ? r->o.inflight_after_ns : UINT64_MAX, 0))
		ilog_writer_flush(r->w);
	/* exited targets leave the set once their last window is written */
	for (unsigned i = 0; i < REC_MAX_PROCS; i++) {
		struct rec_proc *p = &r->procs[i];
		if (p->pid && p->exited == 1) {
			bpf_map__delete_elem(r->skel->maps.targets, &p->pid, sizeof(p->pid), 0);
			p->exited = 2;
		}
	}
}

/*
 * --sampling-rate 0: keep the CUDA ring under half full between drains.
 * Double the rate when the last window lost events or the ring was over
 * half full; halve it when the ring stayed under an eighth.
 */
void rec_adapt_sampling(struct rec *r)
{
	static uint64_t last_lost;
	struct rec_rb_stat s;
	percpu_sum(r->skel->maps.rb_stats, REC_RB_CUDA, (uint64_t *)&s, 2);
	uint64_t lost = s.lost - last_lost;
	last_lost = s.lost;
	/* the fullest the ring got: the most bytes one drain found in it */
	uint64_t fill = r->max_drain_bytes;
	r->max_drain_bytes = 0;
	uint64_t size = bpf_map__max_entries(r->skel->maps.cuda_rb);
	unsigned rate = r->sample_every;
	if (lost || fill > size / 2)
		rate = rate < (1u << 20) ? rate * 2 : rate;
	else if (fill < size / 8 && rate > 1)
		rate /= 2;
	if (rate != r->sample_every) {
		r->sample_every = rate;
		r->skel->data->sample_every = rate;
		if (ILOG_VERBOSE(1))
			fprintf(stderr, "%s: sampling one in %u calls\n", ilog_prog, rate);
	}
}

static void fmt_ns(char *b, size_t n, uint64_t ns)
{
	if (ns < 10000)
		snprintf(b, n, "%lluns", (unsigned long long)ns);
	else if (ns < 10000000)
		snprintf(b, n, "%.1fus", (double)ns / 1e3);
	else if (ns < 10000000000ull)
		snprintf(b, n, "%.1fms", (double)ns / 1e6);
	else
		snprintf(b, n, "%.1fs", (double)ns / 1e9);
}

/* The live table on a TTY, redrawn in place; a one-line tally otherwise. */
void rec_summary(struct rec *r, int final)
{
	uint64_t lost = 0;
	struct rec_rb_stat s;
	for (uint32_t i = 0; i < REC_RB__COUNT; i++) {
		percpu_sum(r->skel->maps.rb_stats, i, (uint64_t *)&s, 2);
		lost += s.lost;
	}
	double secs = (double)(rec_now(CLOCK_MONOTONIC) - r->t0_ns) / 1e9;
	if (!r->tty) {
		if (final && r->o.quiet <= 0)
			fprintf(stderr,
				"%s: %.1fs: %llu cuda events, %llu host events, %llu stacks, "
				"%llu lost\n",
				ilog_prog, secs, (unsigned long long)r->n_cuda,
				(unsigned long long)r->n_host, (unsigned long long)r->n_stack,
				(unsigned long long)lost);
		if (final && r->o.quiet <= 0 && r->flight) {
			uint64_t ev, defs;
			ilog_flight_usage(r->flight, &ev, &defs);
			fprintf(stderr, "%s: flight memory: %.1f MiB of event frames, %.0f KiB of "
				"definitions (rewritten %u times)\n", ilog_prog, (double)ev / 1048576.0,
				(double)defs / 1024.0, r->flight_compactions);
		}
		uint64_t nu, nb, ns;
		rec_unwind_stats(&nu, &nb, &ns);
		if (final && nu && ilog_verbosity > 0)
			fprintf(stderr, "%s: %llu stack copies unwound with DWARF (%llu past the "
				"caller), %.0f us each\n", ilog_prog,
				(unsigned long long)nu, (unsigned long long)nb, (double)ns / 1e3 / (double)nu);
		return;
	}
	if (r->summary_lines)
		fprintf(stderr, "\033[%uA\033[J", r->summary_lines);
	unsigned lines = 0;
	fprintf(stderr, "ingero-record %.0fs  events %llu  drops %llu  probes %u  cpu %.0f%%\n",
		secs, (unsigned long long)(r->n_cuda + r->n_host), (unsigned long long)lost,
		r->nprobes, r->last_cpu_pct);
	lines++;
	fprintf(stderr, "%-30s %10s %9s %9s %9s\n", "OP", "COUNT", "P50", "P95", "P99");
	lines++;
	for (uint32_t op = 1; op < REC_MAX_OPS && op < ilog_op_limit() && lines < 40; op++) {
		const struct rec_hist *h = &r->hist[op];
		if (!h->n)
			continue;
		char p50[16], p95[16], p99[16];
		fmt_ns(p50, sizeof(p50), hist_pct(h, 0.50));
		fmt_ns(p95, sizeof(p95), hist_pct(h, 0.95));
		fmt_ns(p99, sizeof(p99), hist_pct(h, 0.99));
		fprintf(stderr, "%-30s %10llu %9s %9s %9s\n", ilog_op_name(op),
			(unsigned long long)h->n, p50, p95, p99);
		lines++;
	}
	r->summary_lines = final ? 0 : lines;
}
