// SPDX-License-Identifier: MIT
/*
 * One-pass statistics over a log (stats.h).  Every CUDA call is added to
 * the histogram of its (node, pid, op) series and window; host events are
 * summed per (type, pid, tid, other pid) and window.  Windows ("ticks")
 * start at 1 ms and double, merging pairs, whenever a node would need 256
 * or more, so memory stays bounded while the run grows.
 */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "ranks_int.h"
#include "steps_int.h"
#include "stats_int.h"
#include "thresholds.h"

#define BASE_WIDTH 1000000ull /* 1 ms */
#define MAXT 256              /* adaptive: merge pairs at this many windows */
#define MAXT_FIXED 65536      /* --window: later events count in the last window */
#define MAXEV 65536
#define MAXCAP 65536
#define MAXPEND (1u << 18)    /* CUDA calls held before they go to their series... */
#define MINPEND (1u << 13)    /* ... at least (see pend_limit) */

/* ---- the tables' lookups (values are indexes; UINT32_MAX: absent) ---- */
static uint32_t hmap_get(const struct ilog_hmap *m, uint64_t a, uint64_t b)
{
	const uint64_t *v = ilog_hmap_get(m, a, b);
	return v ? (uint32_t)*v : UINT32_MAX;
}

static int hmap_put(struct ilog_hmap *m, uint64_t a, uint64_t b, uint32_t val)
{
	return ilog_hmap_set(m, a, b, val);
}

/* ---- histogram buckets ---- */
uint64_t ilog_hb_lower(uint32_t idx)
{
	uint32_t g = idx >> HB_SUB_BITS, sub = idx & (HB_SUB - 1);
	if (!g)
		return idx;
	return (uint64_t)(HB_SUB + sub) << (g - 1);
}

uint64_t ilog_hb_rep(uint32_t idx)
{
	uint32_t g = idx >> HB_SUB_BITS;
	if (!g)
		return idx;
	uint64_t w = 1ull << (g - 1);
	return ilog_hb_lower(idx) + (w - 1) / 2;
}

uint64_t ilog_rank(double q, uint64_t n)
{
	uint64_t pm = (uint64_t)llround(q * 1000.0);
	uint64_t r = (n * pm + 999) / 1000;
	return r ? r : 1;
}

/*
 * A series' sparse histograms, one per window, share one array, s->bins,
 * in the order of the windows: window k's are the t[k].nb from t[k].off
 * (the stick's bins pointer is set when the statistics are finished).  A
 * job of a thousand ranks has thousands of series of a few hundred windows
 * each: one allocation per window cost more than the histograms.
 */

/* Room for n more bins in s->bins; it grows by a quarter, since its
 * slack is memory.  0, or -1 out of memory. */
static int bins_room(struct sseries *s, uint32_t n)
{
	if (s->nbins + n <= s->capbins)
		return 0;
	uint64_t c = (uint64_t)s->capbins + s->capbins / 4 + n + 16;
	if (c > UINT32_MAX)
		return -1;
	uint64_t *b = realloc(s->bins, (size_t)c * sizeof(*b));
	if (!b)
		return -1;
	s->bins = b;
	s->capbins = (uint32_t)c;
	return 0;
}

/* Windows up to k of s, a new one's bins (none) where the bins end. */
static int ticks_room(struct sseries *s, uint32_t k)
{
	uint32_t old = s->nt;
	if (ilog_reserve0((void **)&s->t, &s->nt, k + 1, sizeof(*s->t), 16))
		return -1;
	for (uint32_t q = old; q < s->nt; q++)
		s->t[q].off = s->nbins;
	return 0;
}

/*
 * Merge the sorted bins a[0..m) into window k's: the later windows' bins
 * move up by the buckets new to it, then the two are merged from the top
 * down into the room made (the window's own bins never overwritten before
 * they are read).
 */
static int bins_merge(struct sseries *s, uint32_t k, const uint64_t *a, uint32_t m)
{
	struct stick *t = &s->t[k];
	const uint64_t *o = t->nb ? s->bins + t->off : NULL;
	uint32_t u = 0;
	for (uint32_t i = 0, j = 0; j < m; j++) {
		while (i < t->nb && SB_IDX(o[i]) < SB_IDX(a[j]))
			i++;
		u += !(i < t->nb && SB_IDX(o[i]) == SB_IDX(a[j]));
	}
	if (bins_room(s, u))
		return -1;
	uint64_t *b = s->bins, *ob = b + t->off; /* not NULL: bins there or room made */
	uint32_t end = t->off + t->nb;
	if (u && end < s->nbins)
		memmove(b + end + u, b + end, (size_t)(s->nbins - end) * sizeof(*b));
	uint32_t w = end + u, i = t->nb, j = m;
	while (j) {
		if (i && SB_IDX(ob[i - 1]) > SB_IDX(a[j - 1])) {
			b[--w] = ob[--i];
		} else if (i && SB_IDX(ob[i - 1]) == SB_IDX(a[j - 1])) {
			b[--w] = ob[--i] + SB_CNT(a[j - 1]);
			j--;
		} else {
			b[--w] = a[--j];
		}
	}
	t->nb += u;
	s->nbins += u;
	if (u)
		for (uint32_t q = k + 1; q < s->nt; q++)
			s->t[q].off += u;
	return 0;
}

/* Move a dense histogram (its touched range [lo, hi]) into window k of s,
 * zeroing it; tmp: room for HB_N bins. */
static int flush_dense(struct sseries *s, uint32_t k, uint32_t *dense, uint32_t lo, uint32_t hi,
		       uint64_t *tmp)
{
	uint32_t m = 0;
	for (uint32_t i = lo; i <= hi; i++)
		if (dense[i]) {
			tmp[m++] = ((uint64_t)i << SB_SHIFT) | dense[i];
			dense[i] = 0;
		}
	return m ? bins_merge(s, k, tmp, m) : 0;
}

static void tick_minmax(struct stick *t, uint64_t n, uint64_t total, uint64_t mn, uint64_t mx)
{
	if (!n)
		return;
	if (!t->n || mn < t->min)
		t->min = mn;
	if (mx > t->max)
		t->max = mx;
	t->n += n;
	t->total += total;
}

/* ---- nodes and ticks ---- */
struct snode *ilog_stats_node(struct ilog_stats *st, uint32_t node)
{
	for (uint32_t i = 0; i < st->nnodes; i++)
		if (st->nodes[i].idx == node)
			return &st->nodes[i];
	return NULL;
}

static struct snode *node_get(struct ilog_stats *st, uint32_t node)
{
	struct snode *nd = ilog_stats_node(st, node);
	if (nd)
		return nd;
	struct snode *a = realloc(st->nodes, (st->nnodes + 1) * sizeof(*a));
	if (!a)
		return NULL;
	st->nodes = a;
	nd = &a[st->nnodes++];
	memset(nd, 0, sizeof(*nd));
	nd->idx = node;
	nd->width = st->o.window_ns ? st->o.window_ns : BASE_WIDTH;
	return nd;
}

/*
 * The windows of s merged by pairs: window k is 2k and 2k + 1, their bins
 * merged in place.  Window 2k's are copied to tmp (room for HB_N bins)
 * first: the merge writes no further than it has read of both, so only
 * 2k's, which it writes over, need a copy.  A new array per halving would
 * be memory fresh from the system, each page of it a fault, at every
 * doubling of the windows.
 */
static void series_halve(struct sseries *s, uint64_t *tmp)
{
	uint32_t nn = (s->nt + 1) / 2, w = 0;
	if (!s->nbins) {
		/* no timed calls (no bins): only launches recorded at entry move */
		for (uint32_t k = 0; k < nn; k++) {
			uint64_t u = s->t[2 * k].untimed +
				     (2 * k + 1 < s->nt ? s->t[2 * k + 1].untimed : 0);
			s->t[k] = (struct stick){ .untimed = u };
		}
		memset(s->t + nn, 0, (size_t)(s->nt - nn) * sizeof(*s->t));
		return;
	}
	uint64_t *nb = s->bins;
	for (uint32_t k = 0; k < nn; k++) {
		struct stick empty = { 0 }, r = { 0 };
		const struct stick a = s->t[2 * k], b = 2 * k + 1 < s->nt ? s->t[2 * k + 1] : empty;
		tick_minmax(&r, a.n, a.total, a.min, a.max);
		tick_minmax(&r, b.n, b.total, b.min, b.max);
		r.untimed = a.untimed + b.untimed;
		const uint64_t *x = tmp, *y = s->bins + b.off;
		if (a.nb)
			memcpy(tmp, s->bins + a.off, (size_t)a.nb * sizeof(*tmp));
		uint32_t i = 0, j = 0;
		r.off = w;
		while (i < a.nb || j < b.nb) {
			if (j >= b.nb || (i < a.nb && SB_IDX(x[i]) < SB_IDX(y[j])))
				nb[w++] = x[i++];
			else if (i >= a.nb || SB_IDX(y[j]) < SB_IDX(x[i]))
				nb[w++] = y[j++];
			else
				nb[w++] = x[i++] + SB_CNT(y[j++]);
		}
		r.nb = w - r.off;
		s->t[k] = r;
	}
	memset(s->t + nn, 0, (size_t)(s->nt - nn) * sizeof(*s->t));
	for (uint32_t k = nn; k < s->nt; k++)
		s->t[k].off = w;
	s->nbins = w;
}

static void merge_htick(struct htick *d, const struct htick *a, const struct htick *b)
{
	struct htick r = { a->n + b->n, a->dur + b->dur, a->value + b->value,
			   a->max > b->max ? a->max : b->max };
	*d = r;
}

static void merge_snap(struct snaptick *d, const struct snaptick *a, const struct snaptick *b)
{
	struct snaptick r = *a;
	if (!a->n)
		r = *b;
	else if (b->n) {
		r.n += b->n;
		r.cpu_sum += b->cpu_sum;
		r.steal_sum += b->steal_sum;
		if (b->cpu_max > r.cpu_max)
			r.cpu_max = b->cpu_max;
		if (b->load_max > r.load_max)
			r.load_max = b->load_max;
		if (b->avail_min < r.avail_min)
			r.avail_min = b->avail_min;
		if (b->swap_used_max > r.swap_used_max)
			r.swap_used_max = b->swap_used_max;
		for (int i = 0; i < PSI_N; i++)
			if (b->psi_max[i] > r.psi_max[i])
				r.psi_max[i] = b->psi_max[i];
	}
	*d = r;
}

static int add_pending(struct ilog_stats *st);

/* The scratch histograms of add_pending and series_halve.  0 or -1. */
static int scratch_room(struct ilog_stats *st)
{
	if (!st->dense && !(st->dense = calloc(HB_N, sizeof(*st->dense))))
		return -1;
	if (!st->dbins && !(st->dbins = malloc(HB_N * sizeof(*st->dbins))))
		return -1;
	return 0;
}

/* Double a node's window width, merging pairs of windows everywhere. */
static int node_double(struct ilog_stats *st, struct snode *nd)
{
	/* the calls held were in windows of the old width */
	if (add_pending(st) || scratch_room(st))
		return -1;
	for (uint32_t i = 0; i < st->nser; i++) {
		struct sseries *s = st->ser[i];
		if (s->node == nd->idx)
			series_halve(s, st->dbins);
	}
	for (uint32_t i = 0; i < st->nhs; i++) {
		struct hseries *h = st->hs[i];
		if (h->node != nd->idx)
			continue;
		uint32_t nn = (h->nt + 1) / 2;
		for (uint32_t k = 0; k < nn; k++) {
			struct htick z = { 0 }, a = h->t[2 * k];
			merge_htick(&h->t[k], &a, 2 * k + 1 < h->nt ? &h->t[2 * k + 1] : &z);
		}
		memset(h->t + nn, 0, (size_t)(h->nt - nn) * sizeof(*h->t));
	}
	uint32_t nn = (nd->nsnap + 1) / 2;
	for (uint32_t k = 0; k < nn; k++) {
		struct snaptick z = { 0 }, a = nd->snap[2 * k];
		merge_snap(&nd->snap[k], &a, 2 * k + 1 < nd->nsnap ? &nd->snap[2 * k + 1] : &z);
	}
	if (nd->snap)
		memset(nd->snap + nn, 0, (size_t)(nd->nsnap - nn) * sizeof(*nd->snap));
	nd->width *= 2;
	nd->nticks = (nd->nticks + 1) / 2;
	nd->klo = nd->khi = 0;
	return 0;
}

/* tick_of for an event outside the latest one's window. */
static __attribute__((noinline)) int tick_find(struct ilog_stats *st, struct snode *nd,
					       uint64_t ts, uint32_t *k)
{
	if (!nd->seen) {
		/* windows start at the recording's start when the header has it */
		if (!nd->t0 || nd->t0 > ts)
			nd->t0 = ts;
		nd->seen = 1;
		nd->first_ts = nd->last_ts = ts;
	}
	if (ts < nd->t0) {
		nd->early++; /* before the first window: counted in window 0 */
		ts = nd->t0;
	}
	if (ts < nd->first_ts)
		nd->first_ts = ts;
	if (ts > nd->last_ts)
		nd->last_ts = ts;
	uint64_t q = (ts - nd->t0) / nd->width;
	if (!st->o.window_ns) {
		while (q >= MAXT) {
			if (node_double(st, nd))
				return -1;
			q = (ts - nd->t0) / nd->width;
		}
	} else if (q >= MAXT_FIXED) {
		q = MAXT_FIXED - 1;
	}
	if (q + 1 > nd->nticks)
		nd->nticks = (uint32_t)q + 1;
	*k = (uint32_t)q;
	nd->klo = nd->t0 + q * nd->width; /* <= ts */
	nd->khi = nd->klo + nd->width < nd->klo ? UINT64_MAX : nd->klo + nd->width;
	nd->kcur = (uint32_t)q;
	return 0;
}

/* The window of ts on its node; -1 on out of memory. */
static inline int tick_of(struct ilog_stats *st, struct snode *nd, uint64_t ts, uint32_t *k)
{
	/* most events fall in the latest one's window: no division */
	if (ts >= nd->klo && ts < nd->khi) {
		if (ts < nd->first_ts)
			nd->first_ts = ts;
		if (ts > nd->last_ts)
			nd->last_ts = ts;
		*k = nd->kcur;
		return 0;
	}
	return tick_find(st, nd, ts, k);
}

/* ---- processes and names ---- */
struct sproc *ilog_stats_proc(struct ilog_stats *st, uint32_t node, uint32_t pid)
{
	uint32_t i = hmap_get(&st->procmap, node, pid);
	return i == UINT32_MAX ? NULL : st->procs[i];
}

static struct sproc *proc_get(struct ilog_stats *st, uint32_t node, uint32_t pid)
{
	struct sproc *p = st->last_proc;
	if (p && p->pid == pid && p->node == node)
		return p;
	p = ilog_stats_proc(st, node, pid);
	if (!p) {
		if (ilog_reserve0((void **)&st->procs, &st->capprocs, st->nprocs + 1, sizeof(*st->procs), 16))
			return NULL;
		p = calloc(1, sizeof(*p));
		if (!p || hmap_put(&st->procmap, node, pid, st->nprocs)) {
			free(p);
			return NULL;
		}
		p->node = node;
		p->pid = pid;
		st->procs[st->nprocs++] = p;
	}
	st->last_proc = p;
	return p;
}

static int comm_set(struct ilog_stats *st, uint32_t node, uint32_t pid, const char *c, size_t n)
{
	if (!pid || !n || !*c)
		return 0;
	uint32_t i = hmap_get(&st->commmap, node, pid);
	if (i == UINT32_MAX) {
		if (ilog_reserve0((void **)&st->comms, &st->capcomms, st->ncomms + 1, sizeof(*st->comms), 16) ||
		    hmap_put(&st->commmap, node, pid, st->ncomms))
			return -1;
		i = st->ncomms++;
	}
	if (n > INGERO_COMM_LEN)
		n = INGERO_COMM_LEN;
	memcpy(st->comms[i], c, n);
	st->comms[i][n] = 0;
	return 0;
}

const char *ilog_stats_container(struct ilog_stats *st, uint32_t node, uint32_t pid)
{
	struct sproc *p = ilog_stats_proc(st, node, pid);
	return p ? p->ctr : "";
}

const char *ilog_stats_other_container(struct ilog_stats *st, uint32_t node, uint32_t pid,
				       uint32_t victim)
{
	const char *c = ilog_stats_container(st, node, pid);
	return strcmp(c, ilog_stats_container(st, node, victim)) ? c : "";
}

/*
 * A container's name for reports: the Kubernetes pod and container ids
 * (12 digits of the container's, as docker and crictl show it), or the
 * cgroup path of a process in a cgroup of its own ("" for the root and
 * the usual session and service cgroups of a host's own processes).
 */
static void container_label(char *d, size_t n, const struct ilog_process *pr)
{
	char path[512];
	ilog_str_copy(path, sizeof(path), pr->cgroup);
	d[0] = 0;
	if (pr->container_id.n && pr->pod_uid.n)
		snprintf(d, n, "pod %.36s, container %.12s", pr->pod_uid.p, pr->container_id.p);
	else if (pr->container_id.n)
		snprintf(d, n, "container %.12s", pr->container_id.p);
	else if (path[0] && strcmp(path, "/") && !strstr(path, "/user.slice") &&
		 !strstr(path, "/session-") && strncmp(path, "/system.slice", 13) &&
		 strncmp(path, "/init.scope", 11))
		snprintf(d, n, "cgroup %.100s", path);
}

const char *ilog_stats_comm(struct ilog_stats *st, uint32_t node, uint32_t pid)
{
	struct sproc *p = ilog_stats_proc(st, node, pid);
	if (p && p->comm[0])
		return p->comm;
	uint32_t i = hmap_get(&st->commmap, node, pid);
	return i == UINT32_MAX ? "" : st->comms[i];
}

/* ---- series ---- */
/* The index in st->ser of the (node, pid, op) series; a new one goes last
 * in st->ser and in its process's list (the process is made with it, as
 * the first CUDA call of a pid makes it).  UINT32_MAX: out of memory.
 * The table's ops are found in the process's opser (a process calls a
 * few ops in turn, and its series are looked up per call), named ops in
 * sermap. */
static uint32_t series_find(struct ilog_stats *st, uint32_t node, uint32_t pid, uint16_t op,
			    uint8_t layer)
{
	uint64_t a = ((uint64_t)node << 32) | pid;
	if (st->nser && st->last_a == a && st->last_op == op)
		return st->last_si;
	struct sproc *p = proc_get(st, node, pid);
	if (!p)
		return UINT32_MAX;
	uint32_t i = op < ILOG_OP__COUNT ? p->opser[op] - 1 : hmap_get(&st->sermap, a, op);
	if (i == UINT32_MAX) {
		if (ilog_reserve0((void **)&st->ser, &st->capser, st->nser + 1,
					sizeof(*st->ser), 16) ||
		    ilog_reserve0((void **)&st->pcnt, &st->cappcnt, st->nser + 1,
				  sizeof(*st->pcnt), 16))
			return UINT32_MAX;
		struct sseries *s = calloc(1, sizeof(*s));
		if (!s || (op >= ILOG_OP__COUNT && hmap_put(&st->sermap, a, op, st->nser))) {
			free(s);
			return UINT32_MAX;
		}
		if (op < ILOG_OP__COUNT)
			p->opser[op] = st->nser + 1;
		s->node = node;
		s->pid = pid;
		s->op = op;
		s->layer = layer;
		s->proc = p;
		i = st->nser;
		st->ser[st->nser++] = s;
		if (p->ser_last)
			st->ser[p->ser_last - 1]->next = st->nser;
		else
			p->ser = st->nser;
		p->ser_last = st->nser;
		p->nser++;
	}
	st->last_a = a;
	st->last_op = op;
	st->last_si = i;
	return i;
}

/*
 * Room for n calls in s->top, grown as needed (most series of a job with
 * many processes are short).  The array starts 64-byte aligned one entry
 * before top[0], so that the two children of a heap node (2i + 1, 2i + 2)
 * share a cache line: a sift touches one line per level, not two.
 */
static int top_room(struct sseries *s, uint32_t n)
{
	if (n <= s->captop)
		return 0;
	uint32_t c = s->captop ? s->captop * 2 : 16;
	while (c < n)
		c *= 2;
	struct scall *b = aligned_alloc(64, (size_t)(c + 2) * sizeof(*b));
	if (!b)
		return -1;
	if (s->ntop)
		memcpy(b + 1, s->top, (size_t)s->ntop * sizeof(*b));
	if (s->top)
		free(s->top - 1);
	s->top = b + 1;
	s->captop = c;
	return 0;
}

static int top_push(struct sseries *s, const struct scall *c)
{
	uint32_t i;
	if (s->ntop < NTOP) {
		if (top_room(s, s->ntop + 1))
			return -1;
		struct scall *h = s->top;
		i = s->ntop++;
		while (i && h[(i - 1) / 2].dur > c->dur) {
			h[i] = h[(i - 1) / 2];
			i = (i - 1) / 2;
		}
		h[i] = *c;
		return 0;
	}
	struct scall *h = s->top;
	if (c->dur <= h[0].dur)
		return 0;
	i = 0;
	for (;;) {
		uint32_t l = 2 * i + 1, r = l + 1, m = i;
		uint64_t md = c->dur;
		/* the next level's two lines, while this one is compared */
		if (2 * r + 1 < NTOP) {
			__builtin_prefetch(&h[2 * l + 1]);
			__builtin_prefetch(&h[2 * r + 1]);
		}
		if (l < NTOP && h[l].dur < md)
			m = l, md = h[l].dur;
		if (r < NTOP && h[r].dur < md)
			m = r;
		if (m == i)
			break;
		h[i] = h[m];
		i = m;
	}
	h[i] = *c;
	return 0;
}

/*
 * A call of process p.  The process's figures do not depend on the order
 * of its calls (sums, extremes, and the set of its threads: the first
 * MAXTIDS, or more than that), so they are counted with its series'.
 */
static void proc_call(struct sproc *p, const struct spend *e)
{
	if (!p->ncalls || e->ts < p->first_ts)
		p->first_ts = e->ts;
	uint64_t end = e->ts + e->dur < e->ts ? UINT64_MAX : e->ts + e->dur;
	if (end > p->last_end)
		p->last_end = end;
	p->ncalls++;
	if (e->flags & ILOG_CUDA_F_NO_RETURN)
		p->noret++;
	p->eager_launches += e->eager;
	if (!p->ntids || p->tids[p->ntids - 1] != e->tid) {
		uint32_t i;
		for (i = 0; i < p->ntids && p->tids[i] != e->tid; i++)
			;
		if (i == p->ntids) {
			if (p->ntids < MAXTIDS)
				p->tids[p->ntids++] = e->tid;
			else
				p->tids_over++;
		} else if (i + 1 < p->ntids) { /* keep the latest last: cheap check above */
			uint32_t x = p->tids[i];
			p->tids[i] = p->tids[p->ntids - 1];
			p->tids[p->ntids - 1] = x;
		}
	}
}

/*
 * s's calls c[ord[0..n)], in the order they came.  A window's calls are
 * counted in the dense scratch histogram and moved into its sparse one
 * when the next window begins or the batch ends; a call of an earlier
 * window goes to the sparse one directly.  Either way a window's sparse
 * histogram is the same: its buckets in order, each with its count.
 */
static int series_calls(struct ilog_stats *st, struct sseries *s, const uint32_t *ord,
			uint32_t n)
{
	uint32_t *dense = st->dense, lo = HB_N, hi = 0;
	uint64_t *tmp = st->dbins;
	struct sproc *p = s->proc;
	int64_t cur = -1;
	for (uint32_t j = 0; j < n; j++) {
		const struct spend *e = &st->pend[ord[j]];
		/* the calls are far apart in pend: ask for them early */
		if (j + 8 < n)
			__builtin_prefetch(&st->pend[ord[j + 8]]);
		uint64_t d = e->dur;
		uint32_t k = e->k;
		proc_call(p, e);
		/* a launch recorded at entry (--launch-timing): the process counts
		 * it; the series' figures are its timed calls' (like sampling) */
		if (ticks_room(s, k))
			return -1;
		if (e->flags & ILOG_CUDA_F_UNTIMED) {
			s->untimed++;
			s->t[k].untimed++;
			continue;
		}
		struct stick *t = &s->t[k];
		if (!t->n || d < t->min)
			t->min = d;
		if (d > t->max)
			t->max = d;
		t->n++;
		t->total += d;
		uint32_t b = hb_index(d);
		if ((int64_t)k < cur) {
			uint64_t one = ((uint64_t)b << SB_SHIFT) | 1;
			if (bins_merge(s, k, &one, 1))
				return -1;
		} else {
			if ((int64_t)k > cur) {
				if (cur >= 0 && flush_dense(s, (uint32_t)cur, dense, lo, hi, tmp))
					return -1;
				cur = k;
				lo = HB_N;
				hi = 0;
			}
			dense[b]++;
			if (b < lo)
				lo = b;
			if (b > hi)
				hi = b;
		}
		if (!s->n || d < s->min)
			s->min = d;
		if (d > s->max)
			s->max = d;
		if (!s->n || e->ts < s->first_ts)
			s->first_ts = e->ts;
		uint64_t end = e->ts + d < e->ts ? UINT64_MAX : e->ts + d; /* saturate */
		if (end > s->last_end)
			s->last_end = end;
		s->n++;
		s->total += d;
		s->bytes += e->bytes;
		if (e->kind < 5)
			s->bytes_kind[e->kind] += e->bytes;
		if (e->mflag) {
			uint32_t h = e->mflag & 3u;
			if (h) {
				s->host_n[h - 1]++;
				s->host_ns[h - 1] += d;
				s->host_bytes[h - 1] += e->bytes;
			}
			if (e->mflag & ILOG_MEM_WAITED) {
				s->wait_n++;
				s->wait_ns += d;
				s->wait_bytes += e->bytes;
			} else if (h == ILOG_HOST_PAGEABLE && d >= ILOG_PAGEABLE_BLOCK_NS) {
				s->pg_n++;
				s->pg_ns += d;
				s->pg_bytes += e->bytes;
			}
		}
		if (e->flags & ILOG_CUDA_F_NO_RETURN)
			s->noret++;
		if (e->ret) {
			if (!s->nerr) {
				s->first_err = e->ret;
				s->first_err_ts = e->ts;
				s->first_err_bytes = e->bytes;
			}
			s->nerr++;
			/* cudaErrorMemoryAllocation and CUDA_ERROR_OUT_OF_MEMORY are both 2 */
			if (e->ret == 2)
				s->nerr_oom++;
		}
		struct scall c = { e->ts, d, e->bytes, e->tid, e->ret };
		if (s->nfirst < NFIRST || e->ts < s->first[NFIRST - 1].ts) {
			/* the first NFIRST, then (out of order) an earlier one in
			 * place of the latest; first[] kept sorted by time
			 * (insertion; almost always in order) */
			s->first[s->nfirst < NFIRST ? s->nfirst++ : NFIRST - 1] = c;
			for (uint32_t i = s->nfirst - 1; i > 0 && s->first[i].ts < s->first[i - 1].ts;
			     i--) {
				struct scall x = s->first[i];
				s->first[i] = s->first[i - 1];
				s->first[i - 1] = x;
			}
		}
		/* the longest calls are the stall rules' (causal_stalls.c,
		 * detect_periodic.c): a call that never returned (its process
		 * died, the recording ended) lasted until then, a hang or a
		 * kill the rules of those name, no stall */
		if (!(e->flags & ILOG_CUDA_F_NO_RETURN) && top_push(s, &c))
			return -1;
	}
	return cur >= 0 && flush_dense(s, (uint32_t)cur, dense, lo, hi, tmp) ? -1 : 0;
}

/*
 * The calls held in st->pend to their series: a counting sort by series
 * (each series' calls keep their order), then each series' calls at once
 * (struct spend says why).
 */
static int add_pending(struct ilog_stats *st)
{
	uint32_t n = st->npend, *cnt = st->pcnt;
	if (!n)
		return 0;
	if (scratch_room(st))
		return -1;
	for (uint32_t i = 0; i < n; i++)
		cnt[st->pend[i].ser]++;
	/* each series' first slot in pord, then one past its last */
	uint32_t off = 0;
	for (uint32_t i = 0; i < st->nser; i++) {
		uint32_t c = cnt[i];
		cnt[i] = off;
		off += c;
	}
	for (uint32_t i = 0; i < n; i++)
		st->pord[cnt[st->pend[i].ser]++] = i;
	int rc = 0;
	off = 0;
	for (uint32_t i = 0; i < st->nser; i++) {
		uint32_t end = cnt[i];
		if (end > off && !rc)
			rc = series_calls(st, st->ser[i], st->pord + off, end - off);
		cnt[i] = 0;
		off = end;
	}
	st->npend = 0;
	return rc;
}

/*
 * How many calls are held before they go to their series: enough that
 * each series has ~128 of a batch when many interleave (a job of a
 * thousand ranks: MAXPEND), no more than that when few do.  A batch is
 * written and read back twice (counted, then added): held in the cache
 * (MINPEND calls, 384 KiB) it costs little, spread over 12 MiB it costs
 * a miss per call, a fifth of the statistics' time on a process of a few
 * series.  The batches' sizes change nothing (struct spend).
 */
static uint32_t pend_limit(const struct ilog_stats *st)
{
	uint64_t n = (uint64_t)st->nser * 128;
	return n < MINPEND ? MINPEND : n > MAXPEND ? MAXPEND : (uint32_t)n;
}

/* Hold a call of series si (window k; eager: a kernel launch outside any
 * capture) for add_pending. */
static int series_add(struct ilog_stats *st, uint32_t si, const struct ingero_cuda_event *e,
		      uint32_t k, int eager, uint8_t mflag)
{
	if (st->npend >= pend_limit(st) && add_pending(st))
		return -1;
	if (st->npend == st->cappend) {
		uint32_t nc = st->cappend ? st->cappend * 4 : 1024;
		struct spend *p = realloc(st->pend, (size_t)nc * sizeof(*p));
		if (!p)
			return -1;
		st->pend = p;
		uint32_t *o = realloc(st->pord, (size_t)nc * sizeof(*o));
		if (!o)
			return -1;
		st->pord = o;
		st->cappend = nc;
	}
	st->pend[st->npend++] = (struct spend){ e->ts_ns, e->dur_ns, e->bytes, si, k, e->tid,
						e->ret, e->kind, e->flags, (uint8_t)eager, mflag };
	return 0;
}

/* ---- host series ---- */
static struct hseries *hs_get(struct ilog_stats *st, uint32_t node, uint16_t type,
			      uint32_t pid, uint32_t tid, uint32_t opid)
{
	uint64_t a = ((uint64_t)node << 32) | ((uint64_t)type << 16) | (opid >> 16);
	uint64_t b = ((uint64_t)pid << 32) | tid;
	a ^= (uint64_t)(opid & 0xffff) << 48;
	uint32_t i = hmap_get(&st->hsmap, a, b);
	if (i != UINT32_MAX && st->hs[i]->opid == opid)
		return st->hs[i];
	if (i != UINT32_MAX) /* key collision on the folded opid: scan */
		for (uint32_t j = 0; j < st->nhs; j++) {
			struct hseries *h = st->hs[j];
			if (h->node == node && h->type == type && h->pid == pid && h->tid == tid &&
			    h->opid == opid)
				return h;
		}
	if (ilog_reserve0((void **)&st->hs, &st->caphs, st->nhs + 1, sizeof(*st->hs), 16))
		return NULL;
	struct hseries *h = calloc(1, sizeof(*h));
	if (!h)
		return NULL;
	if (i == UINT32_MAX && hmap_put(&st->hsmap, a, b, st->nhs)) {
		free(h);
		return NULL;
	}
	h->node = node;
	h->type = type;
	h->pid = pid;
	h->tid = tid;
	h->opid = opid;
	st->hs[st->nhs++] = h;
	/* last in the lists of its process and of its type */
	uint64_t *lp = ilog_hmap_put(&st->hspid, node, pid);
	if (!lp)
		return NULL;
	if (*lp)
		st->hs[(uint32_t)*lp - 1]->next_pid = st->nhs;
	*lp = (*lp ? *lp >> 32 : st->nhs) << 32 | st->nhs;
	uint64_t *lt = ilog_hmap_put(&st->hstype, node, type);
	if (!lt)
		return NULL;
	if (*lt)
		st->hs[(uint32_t)*lt - 1]->next_type = st->nhs;
	*lt = (*lt ? *lt >> 32 : st->nhs) << 32 | st->nhs;
	return h;
}

uint32_t ilog_stats_hs_pid(const struct ilog_stats *st, uint32_t node, uint32_t pid)
{
	const uint64_t *v = ilog_hmap_get(&st->hspid, node, pid);
	return v ? (uint32_t)(*v >> 32) : 0;
}

uint32_t ilog_stats_hs_type(const struct ilog_stats *st, uint32_t node, uint16_t type)
{
	const uint64_t *v = ilog_hmap_get(&st->hstype, node, type);
	return v ? (uint32_t)(*v >> 32) : 0;
}

static int hs_add(struct hseries *h, uint32_t k, uint64_t dur, uint64_t value)
{
	if (ilog_reserve0((void **)&h->t, &h->nt, k + 1, sizeof(*h->t), 16))
		return -1;
	struct htick *t = &h->t[k];
	t->n++;
	t->dur += dur;
	t->value += value;
	if (dur > t->max)
		t->max = dur;
	h->n++;
	h->dur += dur;
	h->value += value;
	if (dur > h->max)
		h->max = dur;
	return 0;
}

static int event_keep(struct ilog_stats *st, uint32_t node, const struct ingero_host_event *e)
{
	if (st->nev >= MAXEV) {
		st->ev_over++;
		return 0;
	}
	if (ilog_reserve0((void **)&st->ev, &st->capev, st->nev + 1, sizeof(*st->ev), 16))
		return -1;
	struct sevent *v = &st->ev[st->nev++];
	v->node = node;
	v->pid = e->pid;
	v->tid = e->tid;
	v->opid = e->other_pid;
	v->otid = e->other_tid;
	v->type = e->type;
	v->ts = e->ts_ns;
	v->dur = e->dur_ns;
	v->value = e->value;
	memcpy(v->comm, e->comm, INGERO_COMM_LEN);
	v->comm[INGERO_COMM_LEN] = 0;
	memcpy(v->ocomm, e->other_comm, INGERO_COMM_LEN);
	v->ocomm[INGERO_COMM_LEN] = 0;
	return 0;
}

/* A retrans record: its flow's series of retransmissions (HS_RETRANS). */
static int add_retrans(struct ilog_stats *st, uint32_t node, struct snode *nd,
		       const struct ilog_retrans *r)
{
	uint32_t k, i = 0;
	if (tick_of(st, nd, r->ts_ns, &k))
		return -1;
	struct sflow f = { .node = node, .pid = r->pid, .family = r->family, .state = r->state,
			   .sport = r->sport, .dport = r->dport, .cgroup_id = r->cgroup_id };
	if (r->family && r->saddr.n <= 16 && r->daddr.n <= 16) {
		memcpy(f.saddr, r->saddr.p, r->saddr.n);
		memcpy(f.daddr, r->daddr.p, r->daddr.n);
	} else {
		f.family = 0; /* the rest of a window: one series per node */
		f.pid = 0;
	}
	memcpy(f.comm, r->comm, INGERO_COMM_LEN);
	for (; i < st->nflows; i++) {
		const struct sflow *g = &st->flows[i];
		if (g->node == node && g->pid == f.pid && g->family == f.family &&
		    g->sport == f.sport && g->dport == f.dport &&
		    !memcmp(g->saddr, f.saddr, 16) && !memcmp(g->daddr, f.daddr, 16))
			break;
	}
	if (i == st->nflows && i < MAXFLOWS) {
		if (ilog_reserve0((void **)&st->flows, &st->capflows, i + 1, sizeof(*st->flows), 16))
			return -1;
		st->flows[st->nflows++] = f;
	} else if (i == st->nflows) {
		i = 0; /* over the cap: counted with the first flow seen */
	}
	st->flows[i].state = r->state;
	if (f.pid && comm_set(st, node, f.pid, r->comm, strnlen(r->comm, INGERO_COMM_LEN)))
		return -1;
	struct hseries *h = hs_get(st, node, HS_RETRANS, st->flows[i].pid, 0, i + 1);
	return !h ? -1 : hs_add(h, k, r->dur_ns, r->count);
}

/* A sockio record: its process's TCP bytes (HS_SOCKIO). */
static int add_sockio(struct ilog_stats *st, uint32_t node, struct snode *nd,
		      const struct ilog_sockio *o)
{
	uint32_t k;
	if (tick_of(st, nd, o->ts_ns, &k) ||
	    (o->pid && comm_set(st, node, o->pid, o->comm, strnlen(o->comm, INGERO_COMM_LEN))))
		return -1;
	struct hseries *h = hs_get(st, node, HS_SOCKIO, o->pid, 0, 0);
	return !h ? -1 : hs_add(h, k, o->dur_ns, o->tx_bytes + o->rx_bytes);
}

static int add_host(struct ilog_stats *st, uint32_t node, struct snode *nd,
		    const struct ingero_host_event *e)
{
	uint32_t k;
	if (tick_of(st, nd, e->ts_ns, &k))
		return -1;
	if (comm_set(st, node, e->pid, e->comm, strnlen(e->comm, INGERO_COMM_LEN)) ||
	    comm_set(st, node, e->other_pid, e->other_comm, strnlen(e->other_comm, INGERO_COMM_LEN)))
		return -1;
	struct hseries *h;
	switch (e->type) {
	case ILOG_HOST_SWITCH:
		/* value is the switched-out task's state: 0 = preempted while runnable */
		h = hs_get(st, node, e->value ? HS_BLOCKED : e->type, e->pid, e->tid, e->other_pid);
		break;
	case ILOG_HOST_WAKEUP:
		/* dur_ns: woken to running, time spent waiting for a CPU;
		 * value (1.7): the process that held the CPU until then, 0 =
		 * the CPU was idle, or a log of 1.6 or older (not known) */
		h = hs_get(st, node, e->type, e->pid, e->tid, (uint32_t)e->value);
		break;
	case ILOG_HOST_OOM: {
		struct sproc *p = proc_get(st, node, e->pid);
		if (!p)
			return -1;
		if (!p->oom_killed || e->ts_ns < p->oom_ts)
			p->oom_ts = e->ts_ns;
		p->oom_killed = 1;
		if (event_keep(st, node, e))
			return -1;
		h = hs_get(st, node, e->type, 0, 0, 0);
		break;
	}
	case ILOG_HOST_OOM_MEMCG:
		/* kept whole: the OOM detector reads the limit and usage */
		if (event_keep(st, node, e))
			return -1;
		h = hs_get(st, node, e->type, 0, 0, 0);
		break;
	case ILOG_HOST_EXIT: {
		struct sproc *p = ilog_stats_proc(st, node, e->pid);
		/* thread exits (tid != pid) do not end the process */
		if (p && (!e->tid || e->tid == e->pid)) {
			p->has_exit = 1;
			p->exit_ts = e->ts_ns;
			p->exit_code = (int64_t)e->value;
		}
		h = hs_get(st, node, e->type, 0, 0, 0);
		break;
	}
	case ILOG_HOST_EXEC:
		h = hs_get(st, node, e->type, 0, 0, 0);
		break;
	case ILOG_HOST_CPU_QUOTA:
	case ILOG_HOST_CPU_THROTTLE:
		/* kept whole: the detector reads the periods (other_pid, other_tid) */
		if (event_keep(st, node, e))
			return -1;
		h = hs_get(st, node, e->type, e->pid, 0, 0);
		break;
	case ILOG_HOST_FORK:
		h = hs_get(st, node, e->type, 0, 0, 0);
		break;
	default:
		h = hs_get(st, node, e->type, e->pid, 0, 0);
		break;
	}
	if (!h)
		return -1;
	return hs_add(h, k, e->dur_ns, e->value);
}

static int add_snapshot(struct ilog_stats *st, struct snode *nd, const struct ilog_snapshot *s)
{
	uint32_t k;
	if (tick_of(st, nd, s->ts_ns, &k))
		return -1;
	if (ilog_reserve0((void **)&nd->snap, &nd->nsnap, k + 1, sizeof(*nd->snap), 16))
		return -1;
	uint64_t swap_used = s->swap_total > s->swap_free ? s->swap_total - s->swap_free : 0;
	struct snaptick one = { 1, s->cpu_pct, s->cpu_pct, s->load1, s->mem_avail, s->mem_total,
				swap_used, s->swap_total,
				{ s->psi_cpu_some, s->psi_mem_some, s->psi_mem_full, s->psi_io_some,
				  s->psi_io_full },
				s->steal_pct };
	struct snaptick old = nd->snap[k];
	merge_snap(&nd->snap[k], &old, &one);
	if (!nd->nsnaps || s->mem_avail < nd->avail_min)
		nd->avail_min = s->mem_avail;
	if (!nd->have_swap_first) {
		nd->swap_used_first = swap_used;
		nd->have_swap_first = 1;
	}
	if (swap_used > nd->swap_used_max)
		nd->swap_used_max = swap_used;
	nd->nsnaps++;
	nd->cpu_sum += s->cpu_pct;
	if (s->cpu_pct > nd->cpu_max)
		nd->cpu_max = s->cpu_pct;
	if (s->load1 > nd->load_max)
		nd->load_max = s->load1;
	nd->mem_total = s->mem_total;
	nd->swap_total = s->swap_total;
	nd->ncpu = s->ncpu;
	return 0;
}

/* ---- CUDA graph lifecycle ---- */
/* A call of the graph ops or a kernel launch of process p; *eager: the
 * launch ran outside any capture.  0, or -1 out of memory. */
static int graph_track(struct ilog_stats *st, uint32_t node, struct sproc *p,
		       const struct ingero_cuda_event *e, int *eager)
{
	switch (e->op) {
	case ILOG_OP_cudaStreamBeginCapture:
		/* the process's launches before it: every call held counted */
		if (add_pending(st))
			return -1;
		if (!p->first_capture_ts || e->ts_ns < p->first_capture_ts)
			p->first_capture_ts = e->ts_ns;
		if (st->ncap >= MAXCAP) {
			st->cap_over++;
			return 0;
		}
		if (ilog_reserve0((void **)&st->cap, &st->capcap, st->ncap + 1, sizeof(*st->cap), 16))
			return -1;
		uint64_t *newest = ilog_hmap_put(&st->openmap, (uint64_t)node << 32 | e->pid, e->stream);
		if (!newest)
			return -1;
		st->cap[st->ncap++] = (struct scapture){
			.node = node, .pid = e->pid, .tid = e->tid, .stream = e->stream,
			.begin_ts = e->ts_ns, .open = 1, .prev_open = (uint32_t)*newest,
			.eager_before = p->eager_launches,
		};
		*newest = st->ncap;
		st->nopen++;
		return 0;
	case ILOG_OP_cudaStreamEndCapture: {
		/* it ends the newest open capture of its stream: kept per
		 * stream, so captures never ended cost no search */
		uint64_t *top = ilog_hmap_get(&st->openmap, (uint64_t)node << 32 | e->pid, e->stream);
		if (top && *top) {
			struct scapture *c = &st->cap[*top - 1];
			c->open = 0;
			c->end_ts = e->ts_ns;
			c->end_dur = e->dur_ns;
			c->ret = e->ret;
			st->nopen--;
			*top = c->prev_open;
		}
		return 0;
	}
	case ILOG_OP_cudaGraphInstantiate:
	case ILOG_OP_cudaGraphInstantiateWithFlags:
		if (st->ninst >= MAXCAP) {
			st->inst_over++;
			return 0;
		}
		if (ilog_reserve0((void **)&st->inst, &st->capinst, st->ninst + 1, sizeof(*st->inst), 16))
			return -1;
		st->inst[st->ninst++] = (struct sinst){ node, e->pid, e->ts_ns, e->dur_ns, e->ret };
		return 0;
	case ILOG_OP_cudaGraphLaunch:
		if (!p->first_graph_launch_ts || e->ts_ns < p->first_graph_launch_ts)
			p->first_graph_launch_ts = e->ts_ns;
		return 0;
	case ILOG_OP_cudaLaunchKernel:
	case ILOG_OP_cuLaunchKernel:
	case ILOG_OP_cuLaunchKernelEx:
		/* a launch into a stream being captured is recorded, not run */
		for (uint32_t i = st->ncap; i-- > 0;) {
			struct scapture *c = &st->cap[i];
			if (c->open && c->node == node && c->pid == e->pid &&
			    (c->stream == e->stream || (!e->stream && c->tid == e->tid))) {
				c->launches++;
				return 0;
			}
			if (st->ncap - i > 64)
				break;
		}
		*eager = 1;
		return 0;
	}
	return 0;
}

static int add_cuda(struct ilog_stats *st, uint32_t node, struct snode *nd,
		    const struct ingero_cuda_event *e)
{
	uint32_t k;
	if (tick_of(st, nd, e->ts_ns, &k))
		return -1;
	uint32_t si = series_find(st, node, e->pid, e->op, e->layer);
	if (si == UINT32_MAX)
		return -1;
	int eager = 0;
	if (e->op >= ILOG_OP_cudaStreamBeginCapture && e->op <= ILOG_OP_cudaGraphLaunch) {
		if (graph_track(st, node, st->ser[si]->proc, e, &eager))
			return -1;
	} else if (e->op == ILOG_OP_cudaLaunchKernel || e->op == ILOG_OP_cuLaunchKernel ||
		   e->op == ILOG_OP_cuLaunchKernelEx) {
		if (!st->nopen)
			eager = 1;
		else if (graph_track(st, node, st->ser[si]->proc, e, &eager))
			return -1;
	}
	if (!st->steps && !(st->steps = ilog_steps_new()))
		return -1;
	if (ilog_steps_add(st->steps, node, e))
		return -1;
	/* pinned ranges and device memory, in record order (memory.c) */
	uint8_t mflag = 0;
	if (ilog_smem_call(st->ser[si]->proc, e, &mflag))
		return -1;
	/* the process's figures are counted with its series' (add_pending) */
	return series_add(st, si, e, k, eager, mflag);
}

static int add_loss(struct ilog_stats *st, const struct ilog_loss *l)
{
	/* cumulative counters: keep the latest per source in "src\0" + 2 u64 */
	struct ilog_buf *b = &st->loss_src;
	size_t off = 0;
	while (off < b->len) {
		size_t n = strlen(b->p + off);
		if (n == l->source.n && !memcmp(b->p + off, l->source.p, n)) {
			uint64_t v[2] = { l->lost, l->seen };
			memcpy(b->p + off + n + 1, v, sizeof(v));
			return 0;
		}
		off += n + 1 + 16;
	}
	uint64_t v[2] = { l->lost, l->seen };
	if (ilog_buf_put(b, l->source.p ? l->source.p : "", l->source.n) ||
	    ilog_buf_put(b, "", 1) || ilog_buf_put(b, v, sizeof(v)))
		return -1;
	return 0;
}

/* ---- public ---- */
struct ilog_stats *ilog_stats_new(const struct ilog_stats_opts *o)
{
	struct ilog_stats *st = calloc(1, sizeof(*st));
	if (!st)
		return NULL;
	if (o)
		st->o = *o;
	return st;
}

const char *ilog_stats_error(const struct ilog_stats *st)
{
	return st->err[0] ? st->err : NULL;
}

/* The ranks' common timeline: wall time by the node's anchor (the same
 * offset for every record of a node), its own clock when it has none. */
static uint64_t ranks_clock(void *arg, uint32_t node, uint64_t mono)
{
	uint64_t w = ilog_stats_wall(arg, node, mono);
	return w ? w : mono;
}

/* The job's ranks (ranks.c) see every call, in-flight call and host event
 * once the log has shown an NCCL call. */
static int add_ranks(struct ilog_stats *st, uint32_t node, const struct ilog_record *rec)
{
	if (rec->kind != ILOG_K_CUDA && rec->kind != ILOG_K_INFLIGHT && rec->kind != ILOG_K_HOST)
		return 0;
	if (!st->rk) {
		if (rec->kind == ILOG_K_HOST || rec->u.cuda.layer != ILOG_LAYER_NCCL)
			return 0;
		if (!(st->rk = ilog_ranks_new()))
			return -1;
	}
	return ilog_ranks_add(st->rk, node, rec, ranks_clock, st);
}

int ilog_stats_add(struct ilog_stats *st, const struct ilog_record *rec,
		   const struct ilog_reader *r)
{
	int rc = 0;
	st->records++;
	uint32_t node = rec->node;
	if (rec->kind == ILOG_K_HEADER) {
		int isnew, n = ilog_node_map_header(&st->nodemap, rec, r, &isnew);
		if (n < 0) {
			snprintf(st->err, sizeof(st->err), "out of memory");
			return -1;
		}
		node = (uint32_t)n;
		st->logs += isnew && !rec->node; /* a log's first node */
	} else {
		int n = ilog_node_map_get(&st->nodemap, rec, r);
		if (n >= 0)
			node = (uint32_t)n;
	}
	switch (rec->kind) {
	case ILOG_K_CUDA: {
		struct snode *nd = st->nodes && st->nodes[0].idx == node ? st->nodes
									  : node_get(st, node);
		st->cuda++;
		rc = !nd ? -1 : add_cuda(st, node, nd, &rec->u.cuda);
		break;
	}
	case ILOG_K_HOST: {
		struct snode *nd = node_get(st, node);
		const struct ingero_host_event *e = &rec->u.host;
		st->host++;
		rc = !nd ? -1 : add_host(st, node, nd, e);
		if (!rc && (e->type == ILOG_HOST_IOWAIT || e->type == ILOG_HOST_WAIT) &&
		    !(rc = ilog_reserve0((void **)&st->iow, &st->capiow, st->niow + 1,
					 sizeof(*st->iow), 64)))
			st->iow[st->niow++] = (struct siow){
				node, e->pid,
				e->type == ILOG_HOST_IOWAIT ? -1 : (int32_t)(e->other_tid & 0xffff),
				e->ts_ns, e->dur_ns, e->value, e->other_pid };
		break;
	}
	case ILOG_K_BLKIO: {
		const struct ilog_blkio *b = &rec->u.blkio;
		rc = ilog_reserve0((void **)&st->blk, &st->capblk, st->nblk + 1, sizeof(*st->blk), 64);
		if (rc)
			break;
		struct sblk *d = &st->blk[st->nblk++];
		*d = (struct sblk){ .node = node, .pid = b->pid, .major = b->major, .minor = b->minor,
				    .ts = b->ts_ns, .dur = b->dur_ns, .ios = b->ios, .bytes = b->bytes,
				    .lat_max = b->lat_max_ns };
		for (uint32_t i = 0; i < b->nhist && i < INGERO_BLK_HBUCKETS; i++)
			d->hist[i] = b->hist[i];
		if (b->disk.n)
			ilog_str_copy(d->disk, sizeof(d->disk), b->disk);
		else
			snprintf(d->disk, sizeof(d->disk), "%u:%u", b->major, b->minor);
		break;
	}
	case ILOG_K_RETRANS: {
		struct snode *nd = node_get(st, node);
		rc = !nd ? -1 : add_retrans(st, node, nd, &rec->u.retrans);
		break;
	}
	case ILOG_K_SOCKIO: {
		struct snode *nd = node_get(st, node);
		rc = !nd ? -1 : add_sockio(st, node, nd, &rec->u.sockio);
		break;
	}
	case ILOG_K_SNAPSHOT: {
		struct snode *nd = node_get(st, node);
		st->snapshots++;
		rc = !nd ? -1 : add_snapshot(st, nd, &rec->u.snapshot);
		break;
	}
	case ILOG_K_HEADER: {
		struct snode *nd = node_get(st, node);
		if (!nd) {
			rc = -1;
			break;
		}
		const struct ilog_header *h = &rec->u.header;
		if (!nd->seen && h->mono_ns)
			nd->t0 = h->mono_ns;
		if (!nd->anchor_real && h->real_ns) {
			nd->anchor_mono = h->mono_ns;
			nd->anchor_real = h->real_ns;
		}
		/* the recorder's process name: the first word of its program */
		if (!nd->recorder[0] && h->recorder.n) {
			size_t w = 0;
			while (w < h->recorder.n && w < sizeof(nd->recorder) - 1 &&
			       w < INGERO_COMM_LEN - 1 && h->recorder.p[w] != ' ')
				w++;
			memcpy(nd->recorder, h->recorder.p, w);
			nd->recorder[w] = 0;
		}
		size_t n = h->node.n < sizeof(nd->name) - 1 ? h->node.n : sizeof(nd->name) - 1;
		if (n && !nd->name[0]) {
			memcpy(nd->name, h->node.p, n);
			nd->name[n] = 0;
		}
		break;
	}
	case ILOG_K_PROCESS: {
		const struct ilog_process *pr = &rec->u.process;
		struct sproc *p = proc_get(st, node, pr->pid);
		if (!p) {
			rc = -1;
			break;
		}
		p->ppid = pr->ppid;
		if (pr->cgroup.n || pr->cgroup_id || !p->cgroup_id) {
			container_label(p->ctr, sizeof(p->ctr), pr);
			p->cgroup_id = pr->cgroup_id;
			ilog_str_copy(p->pod, sizeof(p->pod), pr->pod_uid);
			ilog_str_copy(p->cid, sizeof(p->cid), pr->container_id);
			ilog_str_copy(p->cgroup, sizeof(p->cgroup), pr->cgroup);
		}
		size_t n = pr->comm.n < sizeof(p->comm) - 1 ? pr->comm.n : sizeof(p->comm) - 1;
		if (n) {
			memcpy(p->comm, pr->comm.p, n);
			p->comm[n] = 0;
		}
		break;
	}
	case ILOG_K_LOSS:
		rc = add_loss(st, &rec->u.loss);
		break;
	case ILOG_K_CHAIN:
		st->chains_in++;
		break;
	case ILOG_K_PROVENANCE: {
		/* ingero-merge says in it how each node's clock was aligned */
		const struct ilog_provenance *pv = &rec->u.provenance;
		if (pv->tool.n == 12 && !memcmp(pv->tool.p, "ingero-merge", 12)) {
			st->merge_prov.len = 0;
			rc = (pv->args.n && ilog_buf_put(&st->merge_prov, pv->args.p, pv->args.n)) ||
			     ilog_buf_put(&st->merge_prov, "", 1);
		}
		break;
	}
	default:
		if (!ilog_kind_name(rec->kind))
			st->unknown++;
		break;
	}
	if (!rc)
		rc = add_ranks(st, node, rec);
	if (rc)
		snprintf(st->err, sizeof(st->err), "out of memory");
	return rc;
}

int ilog_stats_finish(struct ilog_stats *st)
{
	if (add_pending(st)) {
		snprintf(st->err, sizeof(st->err), "out of memory");
		return -1;
	}
	free(st->pend);
	free(st->pord);
	free(st->dense);
	free(st->dbins);
	st->pend = NULL;
	st->pord = NULL;
	st->dense = NULL;
	st->dbins = NULL;
	st->cappend = 0;
	/* the windows' histograms where readers look for them, the slack of
	 * their arrays given back */
	for (uint32_t i = 0; i < st->nser; i++) {
		struct sseries *s = st->ser[i];
		if (s->capbins > s->nbins && s->nbins) {
			uint64_t *b = realloc(s->bins, (size_t)s->nbins * sizeof(*b));
			if (b) {
				s->bins = b;
				s->capbins = s->nbins;
			}
		}
		for (uint32_t k = 0; k < s->nt && s->bins; k++)
			s->t[k].bins = s->bins + s->t[k].off;
	}
	if (ilog_steps_finish(st->steps)) {
		snprintf(st->err, sizeof(st->err), "out of memory");
		return -1;
	}
	if (st->rk && ilog_ranks_finish(st->rk)) {
		snprintf(st->err, sizeof(st->err), "out of memory");
		return -1;
	}
	st->finished = 1;
	return 0;
}

uint32_t ilog_stats_nwarnings(const struct ilog_stats *st)
{
	return st->rk ? st->rk->nwarn : 0;
}

const char *ilog_stats_warning(const struct ilog_stats *st, uint32_t i)
{
	return st->rk && i < st->rk->nwarn ? st->rk->warn[i] : NULL;
}

int ilog_stats_add_damage(struct ilog_stats *st, const char *input, const struct ilog_damage *d)
{
	char *s = strdup(input ? input : "");
	if (!s || ilog_grow((void **)&st->damage, &st->capdamage, st->ndamage, sizeof(*st->damage), 4)) {
		free(s);
		snprintf(st->err, sizeof(st->err), "out of memory");
		return -1;
	}
	st->damage[st->ndamage++] = (struct sdamage){ s, *d };
	return 0;
}

const struct ilog_damage *ilog_stats_damage(const struct ilog_stats *st, uint32_t i,
					    const char **input)
{
	if (i >= st->ndamage)
		return NULL;
	*input = st->damage[i].input;
	return &st->damage[i].d;
}

void ilog_stats_free(struct ilog_stats *st)
{
	if (!st)
		return;
	for (uint32_t i = 0; i < st->ndamage; i++)
		free(st->damage[i].input);
	free(st->damage);
	for (uint32_t i = 0; i < st->nser; i++) {
		struct sseries *s = st->ser[i];
		free(s->bins);
		free(s->t);
		if (s->top)
			free(s->top - 1);
		free(s);
	}
	for (uint32_t i = 0; i < st->nhs; i++) {
		free(st->hs[i]->t);
		free(st->hs[i]);
	}
	for (uint32_t i = 0; i < st->nprocs; i++) {
		ilog_smem_free(st->procs[i]->mem);
		free(st->procs[i]);
	}
	for (uint32_t i = 0; i < st->nnodes; i++) {
		free(st->nodes[i].snap);
		free(st->nodes[i].calls);
	}
	free(st->nodes);
	free(st->pend);
	free(st->pord);
	free(st->pcnt);
	free(st->dense);
	free(st->dbins);
	ilog_node_map_free(&st->nodemap);
	ilog_buf_free(&st->merge_prov);
	free(st->ser);
	free(st->hs);
	free(st->blk);
	free(st->iow);
	free(st->flows);
	free(st->procs);
	free(st->ev);
	free(st->cap);
	free(st->inst);
	free(st->comms);
	ilog_hmap_free(&st->sermap);
	ilog_hmap_free(&st->hsmap);
	ilog_hmap_free(&st->hspid);
	ilog_hmap_free(&st->hstype);
	ilog_hmap_free(&st->procmap);
	ilog_hmap_free(&st->openmap);
	ilog_hmap_free(&st->commmap);
	ilog_buf_free(&st->loss_src);
	ilog_ranks_free(st->rk);
	ilog_steps_free(st->steps);
	free(st);
}

