// SPDX-License-Identifier: MIT
/*
 * The causal engine (causal.h).  Detectors run per process over the
 * finished statistics; each proposes candidate chains with the time it
 * estimates was lost, and the candidates are deduplicated, graded and
 * ranked.  Every number a root-cause sentence quotes is also written to
 * the chain's metrics object under a stable key, computed over the
 * chain's [ts_start, ts_end) interval so it can be checked against the log.
 */
#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include "ingero/causal.h"
#include "export_int.h"
#include "stats_int.h"

struct cand {
	uint32_t node, pid, culprit;
	uint16_t op;
	int forced;               /* severity, or -1 = by impact */
	const char *pattern;
	uint64_t ts_start, ts_end, lost, wall;
	char comm[32], ccomm[32];
	char title[256], root[1536], fix[768];
	struct ilog_buf met;
	struct { uint64_t ts; char what[240]; } ev[16];
	uint32_t nev;
	int dead, fatal;          /* fatal: a process was killed or an operation failed */
};

/* Per-process host signals, one value per window. */
struct sig {
	double *cpu, *gpu, *mem, *gr;
	double *used, *avail, *total; /* snapshots, carried between them */
	uint8_t *fcpu, *fgpu, *fmem, *fgr, *swapgrow;
	int have_pages;
	uint32_t page_span;       /* windows one page-allocation aggregate covers */
	double page_dur;          /* ns one page-allocation aggregate covers (longest) */
};

struct ctx {
	struct ilog_stats *st;
	struct cand *c;
	uint32_t n, cap;
	struct snode *nd;
	uint32_t T;
	int oom;
	uint32_t G;               /* ticks per analysis window of the current series */
	char fb[16][48];          /* rotating number-format buffers */
	unsigned fi;
};

/* ---- formatting ---- */
static const char *fmt(struct ctx *x, const char *f, ...) __attribute__((format(printf, 2, 3)));
static const char *fmt(struct ctx *x, const char *f, ...)
{
	char *b = x->fb[x->fi++ % 16];
	va_list ap;
	va_start(ap, f);
	vsnprintf(b, sizeof(x->fb[0]), f, ap);
	va_end(ap);
	return b;
}

/* Three significant digits with a unit: 412 ms, 9.81 ms, 42.1 us, 1.24 s. */
static const char *D(struct ctx *x, double ns)
{
	return ilog_fmt_dur(x->fb[x->fi++ % 16], sizeof(x->fb[0]), ns);
}

static const char *B(struct ctx *x, double bytes)
{
	return ilog_fmt_bytes(x->fb[x->fi++ % 16], sizeof(x->fb[0]), bytes);
}

/* Seconds since the node's first window, as the report's timeline shows them. */
static const char *R(struct ctx *x, uint64_t ts)
{
	double s = ts >= x->nd->t0 ? (double)(ts - x->nd->t0) / 1e9
				   : -(double)(x->nd->t0 - ts) / 1e9;
	return fmt(x, "+%.2f s", s);
}

static const char *P(struct ctx *x, double frac)
{
	return fmt(x, "%.1f%%", frac * 100);
}

static void json_str(struct ilog_buf *b, const char *s)
{
	ilog_json_str(b, s, strlen(s));
}

static void met_key(struct cand *c, const char *k)
{
	ilog_buf_put(&c->met, c->met.len ? "," : "{", 1);
	json_str(&c->met, k);
	ilog_buf_put(&c->met, ":", 1);
}

static void met_u(struct cand *c, const char *k, uint64_t v)
{
	char t[32];
	met_key(c, k);
	int n = snprintf(t, sizeof(t), "%llu", (unsigned long long)v);
	ilog_buf_put(&c->met, t, (size_t)n);
}

static void met_f(struct cand *c, const char *k, double v)
{
	char t[48];
	met_key(c, k);
	int n = snprintf(t, sizeof(t), "%.6g", isfinite(v) ? v : 0);
	ilog_buf_put(&c->met, t, (size_t)n);
}

static void met_s(struct cand *c, const char *k, const char *v)
{
	met_key(c, k);
	json_str(&c->met, v);
}

static void ev_add(struct ctx *x, struct cand *c, uint64_t ts, const char *f, ...)
	__attribute__((format(printf, 4, 5)));
static void ev_add(struct ctx *x, struct cand *c, uint64_t ts, const char *f, ...)
{
	(void)x;
	if (c->nev == sizeof(c->ev) / sizeof(c->ev[0]))
		return;
	va_list ap;
	va_start(ap, f);
	vsnprintf(c->ev[c->nev].what, sizeof(c->ev[0].what), f, ap);
	va_end(ap);
	c->ev[c->nev++].ts = ts;
}

/* The timeline as a JSON array, in time order (stable). */
static void ev_render(struct ctx *x, struct cand *c, struct ilog_buf *b)
{
	for (uint32_t i = 1; i < c->nev; i++)
		for (uint32_t j = i; j > 0 && c->ev[j].ts < c->ev[j - 1].ts; j--) {
			__typeof__(c->ev[0]) t = c->ev[j];
			c->ev[j] = c->ev[j - 1];
			c->ev[j - 1] = t;
		}
	ilog_buf_put(b, "[", 1);
	for (uint32_t i = 0; i < c->nev; i++) {
		char t[64];
		int n = snprintf(t, sizeof(t), "%s{\"ts_ns\":%llu,\"t\":", i ? "," : "",
				 (unsigned long long)c->ev[i].ts);
		ilog_buf_put(b, t, (size_t)n);
		json_str(b, R(x, c->ev[i].ts));
		ilog_buf_put(b, ",\"what\":", 8);
		json_str(b, c->ev[i].what);
		ilog_buf_put(b, "}", 1);
	}
	ilog_buf_put(b, "]", 1);
}

static void cpy(char *d, size_t n, const char *s)
{
	snprintf(d, n, "%s", s ? s : "");
}

/* ---- candidates ---- */
static struct cand *cand_new(struct ctx *x, const struct sproc *p, const char *pattern,
			     uint16_t op, uint64_t a, uint64_t b, uint64_t lost)
{
	if (x->n == x->cap) {
		uint32_t nc = x->cap ? x->cap * 2 : 16;
		struct cand *c = realloc(x->c, nc * sizeof(*c));
		if (!c) {
			x->oom = 1;
			return NULL;
		}
		x->c = c;
		x->cap = nc;
	}
	struct cand *c = &x->c[x->n++];
	memset(c, 0, sizeof(*c));
	c->node = x->nd->idx;
	c->pid = p ? p->pid : 0;
	c->op = op;
	c->forced = -1;
	c->pattern = pattern;
	c->ts_start = a;
	c->ts_end = b;
	c->lost = lost;
	c->wall = p && p->last_end > p->first_ts ? p->last_end - p->first_ts : 1;
	cpy(c->comm, sizeof(c->comm), p ? ilog_stats_comm(x->st, x->nd->idx, p->pid) : "");
	met_u(c, "t0_ns", x->nd->t0);
	met_u(c, "window_ns", x->nd->width);
	if (p)
		met_u(c, "wall_ns", c->wall);
	return c;
}

static int severity(const struct cand *c)
{
	if (c->forced >= 0)
		return c->forced;
	double impact = (double)c->lost / (double)c->wall;
	if (impact >= ILOG_SEV_HIGH_IMPACT)
		return ILOG_SEV_HIGH;
	if (impact >= ILOG_SEV_MEDIUM_IMPACT)
		return ILOG_SEV_MEDIUM;
	if (impact >= ILOG_SEV_MIN_IMPACT)
		return ILOG_SEV_LOW;
	return -1;
}

/* ---- small statistics (ilog_robust, ilog_chernoff: lib/analyze/stats.c) ---- */
#define robust ilog_robust
#define chernoff ilog_chernoff

/*
 * Windows of [lo, hi) where a signal is a robust outlier against the
 * windows not set in skip (all of them when skip is NULL).
 */
static void elevated(const double *s, uint32_t lo, uint32_t hi, const uint8_t *skip,
		     uint8_t *flag)
{
	double med = 0, mad = 0;
	double *v = malloc((hi - lo + 1) * sizeof(*v));
	uint32_t n = 0;
	for (uint32_t k = lo; v && k < hi; k++)
		if (!skip || !skip[k])
			v[n++] = s[k];
	if (v)
		robust(v, n, &med, &mad);
	free(v);
	/* a count-like signal varies by at least its square root (Poisson) */
	double sigma = 1.4826 * mad;
	if (sigma < sqrt(med))
		sigma = sqrt(med);
	double thr = med + ILOG_Z_OUTLIER * sigma;
	for (uint32_t k = lo; k < hi; k++)
		flag[k] = s[k] > thr && s[k] > 0;
}

struct base {
	struct dhist all;
	uint64_t med, mad, thr;
};

static int base_of(const struct sseries *s, struct base *b)
{
	if (ilog_dhist_series(&b->all, s, 0, s->nt, NULL, 0))
		return -1;
	b->med = ilog_dhist_quantile(&b->all, 0.5);
	b->mad = ilog_dhist_mad(&b->all, b->med);
	double sigma = 1.4826 * (double)b->mad;
	/* the histogram cannot resolve less than 1/256 of a value */
	if (sigma < (double)b->med / 256)
		sigma = (double)b->med / 256;
	if (sigma < 1)
		sigma = 1;
	b->thr = ilog_sat_add(b->med, ilog_sat_u64(ILOG_Z_OUTLIER * sigma));
	return 0;
}

/* ---- helpers over the node's windows ---- */
static uint32_t tick_at(struct ctx *x, uint64_t ts)
{
	if (ts <= x->nd->t0)
		return 0;
	uint64_t k = (ts - x->nd->t0) / x->nd->width;
	return k >= x->T ? x->T - 1 : (uint32_t)k;
}

static uint64_t tick_ts(struct ctx *x, uint32_t k)
{
	return x->nd->t0 + (uint64_t)k * x->nd->width;
}

/* The op's anomalous intervals (inany, T entries) as [[start, end), ...]. */
static void met_anomalies(struct ctx *x, struct cand *c, const uint8_t *inany)
{
	met_key(c, "anomalies");
	ilog_buf_put(&c->met, "[", 1);
	for (uint32_t k = 0, first = 1; k < x->T; k++) {
		if (!inany[k] || (k > 0 && inany[k - 1]))
			continue;
		uint32_t e = k;
		while (e < x->T && inany[e])
			e++;
		char t[64];
		int n = snprintf(t, sizeof(t), "%s[%llu,%llu]", first ? "" : ",",
				 (unsigned long long)tick_ts(x, k), (unsigned long long)tick_ts(x, e));
		ilog_buf_put(&c->met, t, (size_t)n);
		first = 0;
	}
	ilog_buf_put(&c->met, "]", 1);
}

static int has_tid(const struct sproc *p, uint32_t tid)
{
	if (p->tids_over)
		return 1; /* too many threads to list: count them all */
	for (uint32_t i = 0; i < p->ntids; i++)
		if (p->tids[i] == tid)
			return 1;
	return 0;
}

static int is_memcpy(uint16_t op)
{
	switch (op) {
	case ILOG_OP_cudaMemcpy: case ILOG_OP_cudaMemcpyAsync: case ILOG_OP_cuMemcpy:
	case ILOG_OP_cuMemcpyAsync: case ILOG_OP_cuMemcpyHtoD: case ILOG_OP_cuMemcpyDtoH:
	case ILOG_OP_cuMemcpyDtoD: case ILOG_OP_cuMemcpyHtoDAsync: case ILOG_OP_cuMemcpyDtoHAsync:
		return 1;
	}
	return 0;
}

static int is_sync(uint16_t op)
{
	switch (op) {
	case ILOG_OP_cudaStreamSynchronize: case ILOG_OP_cudaDeviceSynchronize:
	case ILOG_OP_cudaEventSynchronize: case ILOG_OP_cuCtxSynchronize:
	case ILOG_OP_cuStreamSynchronize:
		return 1;
	}
	return 0;
}

static int is_alloc(uint16_t op)
{
	switch (op) {
	case ILOG_OP_cudaMalloc: case ILOG_OP_cudaMallocManaged: case ILOG_OP_cudaMallocHost:
	case ILOG_OP_cuMemAlloc: case ILOG_OP_cudaFree: case ILOG_OP_cuMemFree:
	case ILOG_OP_cudaFreeHost:
		return 1;
	}
	return 0;
}

static int is_graph_setup(uint16_t op)
{
	return op == ILOG_OP_cudaStreamBeginCapture || op == ILOG_OP_cudaStreamEndCapture ||
	       op == ILOG_OP_cudaGraphInstantiate || op == ILOG_OP_cudaGraphInstantiateWithFlags;
}

static const char *opn(uint16_t op)
{
	const char *n = ilog_op_name(op);
	return n ? n : "unknown";
}

static const char *err_name(int32_t e)
{
	switch (e) {
	case 1: return "invalid value";
	case 2: return "out of memory";
	case 3: return "initialization error";
	case 35: return "insufficient driver";
	case 100: return "no device";
	case 700: return "illegal address";
	case 900: return "stream capture unsupported";
	case 901: return "stream capture invalidated";
	case 999: return "unknown";
	}
	return "error";
}

/* Preemptions of p's CUDA threads in windows [a, b), by preempter. */
struct preempt { uint32_t pid; uint64_t n, dur; double excess; };
#define MAXPRE 1024 /* distinct preempters kept per query */

static uint32_t preempters(struct ctx *x, const struct sproc *p, uint32_t a, uint32_t b,
			   struct preempt *out, uint32_t max, uint64_t *n_all, uint64_t *dur_all)
{
	uint32_t m = 0;
	*n_all = *dur_all = 0;
	for (uint32_t i = 0; i < x->st->nhs; i++) {
		const struct hseries *h = x->st->hs[i];
		if (h->node != x->nd->idx || h->type != ILOG_HOST_SWITCH || h->pid != p->pid ||
		    !has_tid(p, h->tid))
			continue;
		uint64_t n = 0, d = 0;
		for (uint32_t k = a; k < b && k < h->nt; k++)
			n += h->t[k].n, d += h->t[k].dur;
		if (!n)
			continue;
		*n_all += n;
		*dur_all += d;
		uint32_t j;
		for (j = 0; j < m && out[j].pid != h->opid; j++)
			;
		if (j == m) {
			if (m == max)
				continue;
			out[m++] = (struct preempt){ h->opid, 0, 0, 0 };
		}
		out[j].n += n;
		out[j].dur += d;
	}
	/* largest off-CPU time first */
	for (uint32_t i = 1; i < m; i++)
		for (uint32_t j = i; j > 0 && out[j].dur > out[j - 1].dur; j--) {
			struct preempt t = out[j];
			out[j] = out[j - 1];
			out[j - 1] = t;
		}
	return m;
}

/* Time p's CUDA threads waited for a CPU after a wakeup, in [a, b). */
static uint64_t runq_wait(struct ctx *x, const struct sproc *p, uint32_t a, uint32_t b)
{
	uint64_t d = 0;
	for (uint32_t i = 0; i < x->st->nhs; i++) {
		const struct hseries *h = x->st->hs[i];
		if (h->node != x->nd->idx || h->type != ILOG_HOST_WAKEUP || h->pid != p->pid ||
		    !has_tid(p, h->tid))
			continue;
		for (uint32_t k = a; k < b && k < h->nt; k++)
			d += h->t[k].dur;
	}
	return d;
}

/* CUDA calls by processes other than p on the node in [a, b): the busiest. */
static uint64_t others_calls(struct ctx *x, const struct sproc *p, uint32_t a, uint32_t b,
			     uint32_t *top_pid, uint64_t *top_n)
{
	uint64_t all = 0;
	*top_pid = 0;
	*top_n = 0;
	for (uint32_t i = 0; i < x->st->nprocs; i++) {
		const struct sproc *o = x->st->procs[i];
		if (o->node != x->nd->idx || o->pid == p->pid || !o->ncalls)
			continue;
		uint64_t n = 0;
		for (uint32_t j = 0; j < x->st->nser; j++) {
			const struct sseries *s = x->st->ser[j];
			if (s->node != o->node || s->pid != o->pid)
				continue;
			for (uint32_t k = a; k < b && k < s->nt; k++)
				n += s->t[k].n;
		}
		all += n;
		if (n > *top_n) {
			*top_n = n;
			*top_pid = o->pid;
		}
	}
	return all;
}

/* Pages allocated in [a, b): all, and the biggest allocator. */
static uint64_t pages(struct ctx *x, uint32_t a, uint32_t b, uint32_t *top_pid, uint64_t *top_n)
{
	uint64_t all = 0;
	*top_pid = 0;
	*top_n = 0;
	for (uint32_t i = 0; i < x->st->nhs; i++) {
		const struct hseries *h = x->st->hs[i];
		if (h->node != x->nd->idx || h->type != ILOG_HOST_PAGE_ALLOC)
			continue;
		uint64_t n = 0;
		for (uint32_t k = a; k < b && k < h->nt; k++)
			n += h->t[k].value;
		all += n;
		if (n > *top_n) {
			*top_n = n;
			*top_pid = h->pid;
		}
	}
	return all;
}

struct snapsum {
	uint32_t n;
	double cpu_avg, cpu_max, load_max;
	uint64_t avail_min, total, swap_growth;
};

static void snaps(struct ctx *x, uint32_t a, uint32_t b, struct snapsum *s)
{
	memset(s, 0, sizeof(*s));
	double sum = 0;
	uint64_t before = x->nd->swap_used_first, peak = 0;
	for (uint32_t k = a; k < b && k < x->nd->nsnap; k++) {
		const struct snaptick *t = &x->nd->snap[k];
		if (!t->n)
			continue;
		if (!s->n || t->avail_min < s->avail_min)
			s->avail_min = t->avail_min;
		s->n += t->n;
		sum += t->cpu_sum;
		if (t->cpu_max > s->cpu_max)
			s->cpu_max = t->cpu_max;
		if (t->load_max > s->load_max)
			s->load_max = t->load_max;
		if (t->swap_used_max > peak)
			peak = t->swap_used_max;
		s->total = t->total;
	}
	s->cpu_avg = s->n ? sum / s->n : 0;
	s->swap_growth = peak > before ? peak - before : 0;
}

/* ---- per-process signals ---- */
static void sig_free(struct sig *g)
{
	free(g->cpu);
	free(g->fcpu);
	free(g->used);
	free(g->swapgrow);
	memset(g, 0, sizeof(*g));
}

static int sig_build(struct ctx *x, const struct sproc *p, struct sig *g, uint32_t lo, uint32_t hi)
{
	uint32_t T = x->T;
	g->cpu = calloc((size_t)T * 4, sizeof(double));
	g->fcpu = calloc((size_t)T * 4, 1);
	if (!g->cpu || !g->fcpu) {
		sig_free(g);
		return -1;
	}
	g->gpu = g->cpu + T;
	g->mem = g->cpu + 2 * T;
	g->gr = g->cpu + 3 * T;
	g->fgpu = g->fcpu + T;
	g->fmem = g->fcpu + 2 * T;
	g->fgr = g->fcpu + 3 * T;
	int have_pages = 0;
	for (uint32_t i = 0; i < x->st->nhs; i++) {
		const struct hseries *h = x->st->hs[i];
		if (h->node != x->nd->idx)
			continue;
		if (h->type == ILOG_HOST_SWITCH && h->pid == p->pid && has_tid(p, h->tid))
			for (uint32_t k = 0; k < T && k < h->nt; k++)
				g->cpu[k] += (double)h->t[k].dur;
		if (h->type == ILOG_HOST_PAGE_ALLOC) {
			have_pages = 1;
			uint64_t span = h->n ? (h->dur / h->n + x->nd->width - 1) / x->nd->width : 1;
			if (span > g->page_span)
				g->page_span = (uint32_t)(span < x->T ? span : x->T);
			if (h->n && (double)(h->dur / h->n) > g->page_dur)
				g->page_dur = (double)(h->dur / h->n);
			for (uint32_t k = 0; k < T && k < h->nt; k++)
				g->mem[k] += (double)h->t[k].value;
		}
	}
	for (uint32_t i = 0; i < x->st->nser; i++) {
		const struct sseries *s = x->st->ser[i];
		if (s->node != x->nd->idx || s->pid == p->pid)
			continue;
		for (uint32_t k = 0; k < T && k < s->nt; k++)
			g->gpu[k] += (double)s->t[k].n;
	}
	for (uint32_t i = 0; i < x->st->ncap; i++) {
		const struct scapture *c = &x->st->cap[i];
		if (c->node == x->nd->idx && c->pid == p->pid)
			g->gr[tick_at(x, c->begin_ts)] += 1;
	}
	for (uint32_t i = 0; i < x->st->ninst; i++) {
		const struct sinst *c = &x->st->inst[i];
		if (c->node == x->nd->idx && c->pid == p->pid)
			g->gr[tick_at(x, c->ts)] += 1;
	}
	g->have_pages = have_pages;
	/* memory in use (snapshots, carried between them) and new swap use */
	if (x->nd->nsnap) {
		g->used = calloc((size_t)T * 3, sizeof(double));
		g->swapgrow = calloc(T, 1);
		if (!g->used || !g->swapgrow) {
			sig_free(g);
			return -1;
		}
		g->avail = g->used + T;
		g->total = g->used + 2 * T;
		uint64_t swap_peak = x->nd->swap_used_first;
		uint32_t prev = 0, first = T;
		for (uint32_t k = 0; k < T; k++) {
			const struct snaptick *t = k < x->nd->nsnap ? &x->nd->snap[k] : NULL;
			if (t && t->n) {
				if (first == T)
					first = k;
				g->avail[k] = (double)(t->avail_min < t->total ? t->avail_min : t->total);
				g->total[k] = (double)t->total;
				if (t->swap_used_max > swap_peak) {
					/* it grew some time since the previous snapshot */
					for (uint32_t j = prev; j <= k; j++)
						g->swapgrow[j] = 1;
					swap_peak = t->swap_used_max;
				}
				prev = k + 1;
			} else if (k) {
				g->avail[k] = g->avail[k - 1];
				g->total[k] = g->total[k - 1];
			}
		}
		/* before the first snapshot the machine looked as at the first */
		for (uint32_t k = 0; k < first && first < T; k++)
			g->avail[k] = g->avail[first], g->total[k] = g->total[first];
		for (uint32_t k = 0; k < T; k++)
			g->used[k] = g->total[k] - g->avail[k];
	}
	(void)lo;
	(void)hi;
	return 0;
}

/*
 * Flag the windows where each signal is a robust outlier against the
 * windows of [lo, hi) outside the op's anomalies (base[k] == 0): the
 * question is whether the host differed when the op was slow.
 */
static int sig_flags(struct ctx *x, struct sig *g, const uint8_t *anom, uint32_t lo, uint32_t hi)
{
	uint32_t nb = 0;
	for (uint32_t k = lo; k < hi; k++)
		nb += !anom[k];
	const uint8_t *mask = nb >= 3 ? anom : NULL; /* too few quiet windows: all of them */
	elevated(g->cpu, lo, hi, mask, g->fcpu);
	elevated(g->gpu, lo, hi, mask, g->fgpu);
	elevated(g->gr, lo, hi, mask, g->fgr);
	/*
	 * Memory pressure needs evidence that memory was scarce, not only that
	 * it moved (a 1% swing of used memory on an idle host is another
	 * process starting, not pressure).  A window is flagged when
	 *   - swap use grew (the kernel pushed pages out), or
	 *   - page allocations are a robust outlier AND ran at >= ILOG_MEM_CHURN
	 *     of the available memory per second (a storm that would take all
	 *     of it within 1 / ILOG_MEM_CHURN seconds), or
	 *   - used memory is a robust outlier AND available memory was below
	 *     ILOG_MEM_SCARCE of the total.
	 * The size of the machine comes from the snapshots; without them page
	 * allocations cannot be weighed and do not count.
	 */
	memset(g->fmem, 0, x->T);
	if (!g->used)
		return 0;
	uint8_t *fu = calloc(x->T, 1);
	if (!fu)
		return -1;
	if (g->have_pages) {
		elevated(g->mem, lo, hi, mask, fu);
		double per = (g->page_dur > (double)x->nd->width ? g->page_dur
								 : (double)x->nd->width) / 1e9;
		for (uint32_t k = x->T; k-- > 0;) {
			double rate = g->mem[k] * ILOG_PAGE_BYTES / per;
			if (!fu[k] || rate < ILOG_MEM_CHURN * g->avail[k])
				continue;
			/* an aggregate covers [ts, ts + dur): so does its flag */
			for (uint32_t j = 0; j < g->page_span && k + j < x->T; j++)
				g->fmem[k + j] = 1;
			if (!g->page_span)
				g->fmem[k] = 1;
		}
	}
	memset(fu, 0, x->T);
	elevated(g->used, lo, hi, mask, fu);
	for (uint32_t k = lo; k < hi; k++)
		g->fmem[k] |= (fu[k] && g->avail[k] < ILOG_MEM_SCARCE * g->total[k]) |
			      g->swapgrow[k];
	free(fu);
	return 0;
}

/*
 * Share of the anomalous analysis windows in [a, b) during which the
 * signal is flagged (in the window or the ticks just around it).
 */
static double coverage(struct ctx *x, const uint8_t *hot, const uint8_t *flag, uint32_t a,
		       uint32_t b)
{
	uint32_t nh = 0, nc = 0, G = x->G ? x->G : 1;
	for (uint32_t w = a; w < b; w += G) {
		uint32_t e = w + G < b ? w + G : b, any = 0, cov = 0;
		for (uint32_t k = w; k < e; k++)
			any |= hot[k];
		if (!any)
			continue;
		nh++;
		for (uint32_t k = w > 0 ? w - 1 : 0; k <= e && k < x->T; k++)
			cov |= flag[k];
		nc += cov;
	}
	return nh ? (double)nc / nh : 0;
}

/* ---- detector: anomalous windows of one series ---- */
struct ival { uint32_t a, b; };

static uint32_t find_intervals(struct ctx *x, const struct sseries *s, const struct base *bs,
			       uint8_t *hot, struct ival *iv, uint32_t max)
{
	uint32_t T = x->T < s->nt ? x->T : s->nt;
	memset(hot, 0, x->T);
	/* analysis windows: whole ticks, enough of them that a window holds
	 * ILOG_WINDOW_CALLS calls of the op on average */
	uint32_t first = T, last = 0;
	for (uint32_t k = 0; k < T; k++)
		if (s->t[k].n) {
			if (first == T)
				first = k;
			last = k;
		}
	if (first == T)
		return 0;
	uint64_t span = last - first + 1;
	uint32_t G = (uint32_t)((ILOG_WINDOW_CALLS * span + s->n - 1) / s->n);
	if (G < 1)
		G = 1;
	x->G = G;
	uint32_t NG = (T + G - 1) / G, ng = 0;
	double *fr = malloc(NG * sizeof(*fr));
	uint64_t *o = calloc(NG, sizeof(*o)), *n = calloc(NG, sizeof(*n));
	uint8_t *gh = calloc(NG, 1);
	if (!fr || !o || !n || !gh) {
		free(fr);
		free(o);
		free(n);
		free(gh);
		x->oom = 1;
		return 0;
	}
	uint64_t *u = calloc(NG, sizeof(*u));
	if (!u) {
		free(fr);
		free(o);
		free(n);
		free(gh);
		x->oom = 1;
		return 0;
	}
	for (uint32_t k = 0; k < T; k++) {
		o[k / G] += ilog_tick_above(&s->t[k], bs->thr);
		u[k / G] += ilog_tick_above(&s->t[k], bs->med);
		n[k / G] += s->t[k].n;
	}
	/*
	 * Two one-sided tests per window, each against the rate of the quiet
	 * half of the windows (Laplace-smoothed): the tail (calls above the
	 * outlier threshold) and the shift (calls above the op's median, a
	 * sign test) - a slowdown of every call is not a tail.
	 */
	const uint64_t *cnt[2] = { o, u };
	double p0[2];
	for (int t = 0; t < 2; t++) {
		ng = 0;
		for (uint32_t g = 0; g < NG; g++)
			if (n[g])
				fr[ng++] = (double)cnt[t][g] / (double)n[g];
		double fmed, fmad;
		robust(fr, ng, &fmed, &fmad);
		uint64_t so = 0, sn = 0;
		for (uint32_t g = 0; g < NG; g++)
			if (n[g] && (double)cnt[t][g] / (double)n[g] <= fmed)
				so += cnt[t][g], sn += n[g];
		p0[t] = ((double)so + 1) / ((double)sn + 2);
	}
	double alpha = ILOG_FAMILY_ALPHA / (2.0 * (ng ? ng : 1));
	for (uint32_t g = 0; g < NG; g++)
		for (int t = 0; t < 2 && n[g]; t++)
			if ((double)cnt[t][g] / (double)n[g] > p0[t] &&
			    chernoff(n[g], cnt[t][g], p0[t]) < alpha)
				gh[g] = 1;
	uint32_t m = 0;
	for (uint32_t g = 0; g < NG && m < max;) {
		if (!gh[g]) {
			g++;
			continue;
		}
		/* neighbouring anomalous windows, bridging windows that lean the same
		 * way without being significant alone, and at most one that does not */
		uint32_t a = g, lastg = g, gap = 0;
		for (uint32_t j = g + 1; j < NG; j++) {
			int lean = n[j] && ((double)o[j] / (double)n[j] > p0[0] ||
					    (double)u[j] / (double)n[j] > p0[1]);
			if (gh[j]) {
				lastg = j;
				gap = 0;
			} else if (n[j] && !lean && ++gap > 1) {
				break;
			}
		}
		uint32_t ta = a * G, tb = (lastg + 1) * G < T ? (lastg + 1) * G : T;
		iv[m++] = (struct ival){ ta, tb };
		for (uint32_t j = a; j <= lastg; j++)
			if (gh[j])
				for (uint32_t k = j * G; k < (j + 1) * G && k < T; k++)
					hot[k] = 1;
		g = lastg + 1;
	}
	free(fr);
	free(o);
	free(u);
	free(n);
	free(gh);
	return m;
}

/* Time the op's calls in the interval took beyond the mean outside all. */
static uint64_t interval_lost(const struct sseries *s, struct ival iv, const uint8_t *inany,
			      uint32_t T)
{
	uint64_t nin = 0, tin = 0, nout = 0, tout = 0;
	for (uint32_t k = 0; k < s->nt && k < T; k++) { /* inany has T entries */
		if (k >= iv.a && k < iv.b)
			nin += s->t[k].n, tin += s->t[k].total;
		else if (!inany[k])
			nout += s->t[k].n, tout += s->t[k].total;
	}
	if (!nout)
		return 0;
	double e = (double)tin - (double)nin * (double)tout / (double)nout;
	return e > 0 ? (uint64_t)e : 0;
}

#define FIX_CPU \
	"Keep other work off the job's CPUs: pin the job and %s to disjoint cores " \
	"(taskset -c / cgroup cpuset.cpus), or lower %s's priority (renice +19, cgroup " \
	"cpu.weight), or move it to another node."
#define FIX_GPU \
	"Give each job its own GPU (CUDA_VISIBLE_DEVICES), or share it predictably with " \
	"MPS or MIG partitions; otherwise schedule %s's GPU work outside this job's run."
#define FIX_MEM \
	"Relieve host memory: cap %s's memory (cgroup memory.max / systemd MemoryMax=), " \
	"keep the job's host buffers pinned, lower DataLoader workers and prefetch, " \
	"and keep the job out of swap (memory.swap.max=0) or add RAM."
#define FIX_GPU_SLOW \
	"Look at the GPU, not the host: compare kernel times of the slow interval in " \
	"Nsight Systems, check clocks and throttling (nvidia-smi -q -d PERFORMANCE,TEMPERATURE) " \
	"and other tenants of the GPU outside this host's view."

static void interval_chain(struct ctx *x, const struct sproc *p, const struct sseries *s,
			   const struct base *bs, const uint8_t *hot, const uint8_t *inany,
			   struct ival iv, struct sig *g, uint32_t lo, uint32_t hi)
{
	struct dhist in, out;
	struct preempt *pr = NULL, *prun = NULL;
	if (ilog_dhist_series(&in, s, iv.a, iv.b, NULL, 0) ||
	    ilog_dhist_series(&out, s, 0, x->T, inany, 0)) { /* inany has T entries */
		ilog_dhist_free(&in);
		x->oom = 1;
		return;
	}
	(void)bs;
	if (!out.n || !in.n) /* nothing to compare with: the run-wide checks cover it */
		goto done;
	uint64_t m_in = ilog_dhist_quantile(&in, 0.5), m_out = ilog_dhist_quantile(&out, 0.5);
	uint64_t q_in = ilog_dhist_quantile(&in, 0.99), q_out = ilog_dhist_quantile(&out, 0.99);
	if (q_in <= q_out && m_in <= m_out)
		goto done;
	/* time accounting: the calls took this much longer than at the mean
	 * duration outside the anomalies */
	double mean_out = (double)out.total / (double)out.n;
	double excess = (double)in.total - (double)in.n * mean_out;
	uint64_t lost = excess > 0 ? (uint64_t)excess : 0;
	if (!lost)
		goto done;
	uint64_t ta = tick_ts(x, iv.a), tb = tick_ts(x, iv.b);
	uint64_t len = tb - ta;

	/* the host signals, joined by window with the anomaly */
	double cov_cpu = coverage(x, hot, g->fcpu, iv.a, iv.b);
	double cov_gpu = coverage(x, hot, g->fgpu, iv.a, iv.b);
	double cov_mem = coverage(x, hot, g->fmem, iv.a, iv.b);
	double cov_gr = coverage(x, hot, g->fgr, iv.a, iv.b);
	/*
	 * CPU contention is a matter of time accounting: the calling threads'
	 * time runnable but off-CPU (preempted, or woken and waiting) above the
	 * rate outside the interval must account for half the lost time.
	 */
	pr = calloc(MAXPRE, sizeof(*pr));
	prun = calloc(MAXPRE, sizeof(*prun));
	if (!pr || !prun) {
		x->oom = 1;
		goto done;
	}
	uint64_t pn, pd, pn_run, pd_run;
	uint32_t npr = preempters(x, p, iv.a, iv.b, pr, MAXPRE, &pn, &pd);
	uint32_t nall = preempters(x, p, lo, hi, prun, MAXPRE, &pn_run, &pd_run);
	uint64_t wq_in = runq_wait(x, p, iv.a, iv.b), wq_run = runq_wait(x, p, lo, hi);
	double len_out = 0;
	for (uint32_t k = lo; k < hi; k++)
		if (k < iv.a || k >= iv.b)
			len_out += (double)x->nd->width;
	double off_in = (double)(pd + wq_in), off_out = (double)(pd_run - pd + wq_run - wq_in);
	double off_rate_out = len_out > 0 ? off_out / len_out : 0;
	double off_excess = off_in - off_rate_out * (double)len;
	double share = lost ? off_excess / (double)lost : 0;
	/* the culprit: the preempter whose off-CPU time rose most over its own
	 * rate outside the interval */
	for (uint32_t i = 0; i < npr; i++) {
		double o_out = 0;
		for (uint32_t j = 0; j < nall; j++)
			if (prun[j].pid == pr[i].pid)
				o_out = (double)(prun[j].dur - pr[i].dur);
		pr[i].excess = (double)pr[i].dur - (len_out > 0 ? o_out / len_out : 0) * (double)len;
	}
	for (uint32_t i = 1; i < npr; i++)
		for (uint32_t j = i; j > 0 && pr[j].excess > pr[j - 1].excess; j--) {
			struct preempt t = pr[j];
			pr[j] = pr[j - 1];
			pr[j - 1] = t;
		}
	int cpu_ok = share >= 0.5 && npr && pr[0].excess > 0;
	int gpu_ok = cov_gpu >= ILOG_COVERAGE;
	int mem_ok = cov_mem >= ILOG_COVERAGE;
	int gr_ok = cov_gr >= ILOG_COVERAGE;
	const char *pat = "gpu-slow";
	double best = 0;
	if (cpu_ok)
		best = share > 1 ? 1 : share, pat = "cpu-contention";
	if (gpu_ok && cov_gpu > best)
		best = cov_gpu, pat = "gpu-contention";
	if (mem_ok && cov_mem > best)
		best = cov_mem, pat = "memory-pressure";
	if (gr_ok && cov_gr > best)
		goto done; /* the graph re-capture chain of this process explains it */

	struct cand *c = cand_new(x, p, pat, s->op, ta, tb, lost);
	if (!c)
		goto done;
	const char *comm = c->comm;
	char head[512];
	snprintf(head, sizeof(head),
		 "%s in PID %u (%s) slowed from p50 %s to %s and p99 %s to %s (%.1fx) between %s and %s",
		 opn(s->op), p->pid, comm, D(x, (double)m_out), D(x, (double)m_in),
		 D(x, (double)q_out), D(x, (double)q_in), (double)q_in / (double)(q_out ? q_out : 1),
		 R(x, ta), R(x, tb));
	met_s(c, "op", opn(s->op));
	met_u(c, "calls_in", in.n);
	met_u(c, "calls_base", out.n);
	met_u(c, "p50_in_ns", m_in);
	met_u(c, "p50_base_ns", m_out);
	met_u(c, "p99_in_ns", q_in);
	met_u(c, "p99_base_ns", q_out);
	met_u(c, "total_in_ns", in.total);
	/* the baseline is every call outside all of the op's anomalies: name them */
	met_anomalies(x, c, inany);
	met_f(c, "mean_base_ns", mean_out);
	met_u(c, "outlier_threshold_ns", bs->thr);
	met_u(c, "preemptions_in", pn);
	met_u(c, "offcpu_in_ns", pd);
	met_f(c, "coverage_cpu", cov_cpu);
	met_f(c, "coverage_gpu", cov_gpu);
	met_f(c, "coverage_mem", cov_mem);
	met_f(c, "offcpu_share_of_lost", share);
	met_u(c, "runq_wait_in_ns", wq_in);
	met_f(c, "offcpu_frac_in", len ? off_in / (double)len : 0);
	met_f(c, "offcpu_frac_out", off_rate_out);
	ev_add(x, c, ta, "%s p99 %s, %.1fx its baseline of %s: anomaly begins", opn(s->op),
	       D(x, (double)q_in), (double)q_in / (double)(q_out ? q_out : 1), D(x, (double)q_out));
	/* the worst window */
	uint32_t worst = iv.a;
	uint64_t wmax = 0;
	for (uint32_t k = iv.a; k < iv.b && k < s->nt; k++)
		if (s->t[k].max > wmax)
			wmax = s->t[k].max, worst = k;
	struct snapsum ss;
	snaps(x, iv.a, iv.b, &ss);
	uint32_t opid;
	uint64_t on;
	uint64_t oth = others_calls(x, p, iv.a, iv.b, &opid, &on);
	uint32_t ppid;
	uint64_t ptop;
	uint64_t pg = pages(x, iv.a, iv.b, &ppid, &ptop);
	met_u(c, "other_cuda_calls_in", oth);
	met_u(c, "pages_in", pg);
	if (ss.n) {
		met_f(c, "cpu_pct_avg_in", ss.cpu_avg);
		met_u(c, "mem_avail_min_in", ss.avail_min);
		met_u(c, "swap_growth_in", ss.swap_growth);
	}

	if (!strcmp(pat, "cpu-contention")) {
		const struct preempt *t = &pr[0];
		const char *cc = ilog_stats_comm(x->st, x->nd->idx, t->pid);
		c->culprit = t->pid;
		cpy(c->ccomm, sizeof(c->ccomm), cc);
		snprintf(c->root, sizeof(c->root),
			 "%s while PID %u (%s) preempted its CUDA threads %llu times for %s off-CPU",
			 head, t->pid, cc, (unsigned long long)t->n, D(x, (double)t->dur));
		if (npr > 1) {
			size_t l = strlen(c->root);
			snprintf(c->root + l, sizeof(c->root) - l, " (all preemptions: %llu, %s)",
				 (unsigned long long)pn, D(x, (double)pd));
		}
		snprintf(c->title, sizeof(c->title), "CPU contention: %s (PID %u) preempted %s (PID %u)",
			 cc, t->pid, comm, p->pid);
		snprintf(c->fix, sizeof(c->fix), FIX_CPU, fmt(x, "%s (PID %u)", cc, t->pid), cc);
		met_u(c, "culprit_preemptions", t->n);
		met_u(c, "culprit_offcpu_ns", t->dur);
		ev_add(x, c, ta, "PID %u (%s) starts preempting the CUDA threads of PID %u", t->pid,
		       cc, p->pid);
		for (uint32_t i = 1; i < npr && i < 3; i++)
			ev_add(x, c, ta, "also preempted by PID %u (%s): %llu times, %s", pr[i].pid,
			       ilog_stats_comm(x->st, x->nd->idx, pr[i].pid),
			       (unsigned long long)pr[i].n, D(x, (double)pr[i].dur));
	} else if (!strcmp(pat, "gpu-contention")) {
		const char *cc = ilog_stats_comm(x->st, x->nd->idx, opid);
		uint64_t all = 0;
		for (uint32_t j = 0; j < x->st->nser; j++) {
			const struct sseries *q = x->st->ser[j];
			if (q->node == x->nd->idx && q->pid == opid)
				all += q->n;
		}
		uint64_t on_out = all > on ? all - on : 0;
		c->culprit = opid;
		cpy(c->ccomm, sizeof(c->ccomm), cc);
		snprintf(c->root, sizeof(c->root),
			 "%s while PID %u (%s) made %llu CUDA calls on the same node (%llu outside the "
			 "interval); its own threads were preempted only %llu times (%s off-CPU): "
			 "the processes share the GPU",
			 head, opid, cc, (unsigned long long)on, (unsigned long long)on_out,
			 (unsigned long long)pn, D(x, (double)pd));
		snprintf(c->title, sizeof(c->title),
			 "GPU contention: %s (PID %u) shares the GPU with %s (PID %u)", cc, opid, comm,
			 p->pid);
		snprintf(c->fix, sizeof(c->fix), FIX_GPU, fmt(x, "%s (PID %u)", cc, opid));
		met_u(c, "culprit_cuda_calls_in", on);
		met_u(c, "culprit_cuda_calls_out", on_out);
		ev_add(x, c, ta, "PID %u (%s) is making CUDA calls: %llu in the interval", opid, cc,
		       (unsigned long long)on);
	} else if (!strcmp(pat, "memory-pressure")) {
		const char *cc = ppid ? ilog_stats_comm(x->st, x->nd->idx, ppid) : "";
		char tail[512] = "";
		size_t l = 0;
		if (pg) {
			l += (size_t)snprintf(tail + l, sizeof(tail) - l, "; %llu pages were allocated",
					      (unsigned long long)pg);
			if (ppid && ppid != p->pid)
				l += (size_t)snprintf(tail + l, sizeof(tail) - l,
						      " (%llu by PID %u (%s))",
						      (unsigned long long)ptop, ppid, cc);
		}
		if (ss.n && ss.total)
			l += (size_t)snprintf(tail + l, sizeof(tail) - l,
					      "; available memory fell to %s (%s of %s)",
					      P(x, (double)ss.avail_min / (double)ss.total),
					      B(x, (double)ss.avail_min), B(x, (double)ss.total));
		if (ss.swap_growth)
			l += (size_t)snprintf(tail + l, sizeof(tail) - l, "; swap use grew by %s",
					      B(x, (double)ss.swap_growth));
		snprintf(c->root, sizeof(c->root), "%s while the host was under memory pressure%s", head,
			 tail);
		if (ppid && ppid != p->pid) {
			c->culprit = ppid;
			cpy(c->ccomm, sizeof(c->ccomm), cc);
		}
		snprintf(c->title, sizeof(c->title), "Host memory pressure slowed %s (PID %u)", comm,
			 p->pid);
		snprintf(c->fix, sizeof(c->fix), FIX_MEM,
			 c->culprit ? fmt(x, "%s (PID %u)", cc, ppid) : "the other processes");
		if (c->culprit)
			met_u(c, "culprit_pages_in", ptop);
		ev_add(x, c, ta, "host memory pressure: %llu pages allocated in the interval",
		       (unsigned long long)pg);
	} else {
		char tail[512];
		size_t l = (size_t)snprintf(tail, sizeof(tail),
					    " with no host cause: its CUDA threads were preempted %llu "
					    "times (%s off-CPU, %s of the interval against %s outside "
					    "it), other processes made %llu CUDA calls, %llu pages were "
					    "allocated",
					    (unsigned long long)pn, D(x, (double)pd),
					    P(x, len ? off_in / (double)len : 0), P(x, off_rate_out),
					    (unsigned long long)oth, (unsigned long long)pg);
		if (ss.n)
			l += (size_t)snprintf(tail + l, sizeof(tail) - l, " and the CPUs were %s busy",
					      P(x, ss.cpu_avg / 100));
		snprintf(tail + l, sizeof(tail) - l, " - the GPU work itself got slower");
		snprintf(c->root, sizeof(c->root), "%s%s", head, tail);
		snprintf(c->title, sizeof(c->title), "GPU slower: %s in %s (PID %u), host not involved",
			 opn(s->op), comm, p->pid);
		snprintf(c->fix, sizeof(c->fix), "%s", FIX_GPU_SLOW);
	}
	ev_add(x, c, tick_ts(x, worst), "worst window: a %s call took %s", opn(s->op),
	       D(x, (double)wmax));
	if (ss.n)
		ev_add(x, c, ta, "CPUs %s busy on average (max %s), load up to %.2f",
		       P(x, ss.cpu_avg / 100), P(x, ss.cpu_max / 100), ss.load_max);
	ev_add(x, c, tb, "%s back to baseline (interval ends); %s lost", opn(s->op), D(x, (double)lost));
done:
	free(pr);
	free(prun);
	ilog_dhist_free(&in);
	ilog_dhist_free(&out);
}

/* ---- detector: periodic spikes ---- */
static int cmp_call_ts(const void *a, const void *b)
{
	const struct scall *x = a, *y = b;
	return x->ts < y->ts ? -1 : x->ts > y->ts;
}

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
	return x < y ? -1 : x > y;
}

/* Spikes v (by time) come in a rhythm: robust CV of the gaps below the bound. */
static int rhythm(const struct scall *v, uint32_t m, double *period)
{
	double g[NTOP];
	for (uint32_t i = 0; i + 1 < m; i++)
		g[i] = (double)(v[i + 1].ts - v[i].ts);
	double gmed, gmad;
	robust(g, m - 1, &gmed, &gmad);
	*period = gmed;
	return gmed > 0 && 1.4826 * gmad / gmed < ILOG_PERIODIC_RCV;
}

static void periodic(struct ctx *x, const struct sproc *p, const struct sseries *s,
		     const struct base *bs, uint32_t ncold, const uint8_t *inany)
{
	/* spikes: outliers outside the op's anomalous intervals (explained there) */
	uint64_t nout = 0;
	for (uint32_t k = 0; k < s->nt; k++)
		if (k >= x->T || !inany[k])
			nout += ilog_tick_above(&s->t[k], bs->thr);
	if (nout < 4 + ncold)
		return; /* too few to see a period */
	/*
	 * The candidates are the outliers among the NTOP slowest calls the
	 * series keeps.  On a loaded machine many calls are delayed a little
	 * and there can be more outliers than that: the slowest are all kept,
	 * so a group above a break is complete, but "all outliers" is not.
	 */
	int partial = 0;
	if (s->ntop == NTOP && s->n > NTOP) {
		partial = 1;
		for (uint32_t i = 0; i < s->ntop && partial; i++)
			if (s->top[i].dur <= bs->thr)
				partial = 0; /* every outlier is in the list */
	}
	struct scall sp[NTOP];
	uint32_t m = 0;
	for (uint32_t i = 0; i < s->ntop; i++)
		if (s->top[i].dur > bs->thr && !inany[tick_at(x, s->top[i].ts)])
			sp[m++] = s->top[i];
	qsort(sp, m, sizeof(*sp), cmp_call_ts);
	/* the cold calls at the start are not part of the rhythm */
	uint32_t skip = 0;
	while (skip < ncold && skip < m && sp[skip].ts <= s->first[ncold - 1].ts)
		skip++;
	struct scall *v = sp + skip;
	m -= skip;
	if (m < 4)
		return;
	/*
	 * Spikes of one kind are alike and far above the other outliers
	 * (calls a loaded machine delayed a little): the groups tried are the
	 * outliers above each break in their sorted durations, widest break
	 * first, then all outliers; the first group of >= 4 whose times keep a
	 * rhythm are the spikes.  A break is a ratio between neighbouring
	 * durations of at least ILOG_SPIKE_BREAK that is also wider than the
	 * spread of the bulk of the durations above it (upper quartile over the
	 * smallest): a continuum is not split, and one or two spikes stretched
	 * by preemption do not hide the break.
	 */
	uint64_t durs[NTOP], cut = 0;
	double gmed = 0;
	for (uint32_t i = 0; i < m; i++)
		durs[i] = v[i].dur;
	qsort(durs, m, sizeof(*durs), cmp_u64);
	struct brk { double r; uint32_t i; } br[NTOP];
	uint32_t nbr = 0;
	for (uint32_t i = 0; i + 4 < m; i++) { /* keep >= 4 above the break */
		uint32_t na = m - 1 - i;
		double r = (double)durs[i + 1] / (double)durs[i];
		double spread = (double)durs[i + ilog_rank(0.75, na)] / (double)durs[i + 1];
		if (r >= ILOG_SPIKE_BREAK && r > spread)
			br[nbr++] = (struct brk){ r, i };
	}
	for (uint32_t i = 1; i < nbr; i++) /* widest first; stable */
		for (uint32_t j = i; j > 0 && br[j].r > br[j - 1].r; j--) {
			struct brk t = br[j];
			br[j] = br[j - 1];
			br[j - 1] = t;
		}
	struct scall grp[NTOP];
	uint32_t ng = 0;
	/* then all outliers, when all of them are known */
	for (uint32_t b = 0; b <= nbr && !ng; b++) {
		if (b == nbr && partial)
			break;
		cut = b < nbr ? durs[br[b].i] : 0;
		for (uint32_t k = 0; k < m; k++)
			if (v[k].dur > cut)
				grp[ng++] = v[k];
		if (!rhythm(grp, ng, &gmed))
			ng = 0;
	}
	if (!ng)
		return;
	v = grp;
	m = ng;
	for (uint32_t i = 0; i < m; i++)
		durs[i] = v[i].dur;
	qsort(durs, m, sizeof(*durs), cmp_u64);
	uint64_t dmed = durs[ilog_rank(0.5, m) - 1];
	uint64_t lost = 0;
	for (uint32_t i = 0; i < m; i++)
		lost += v[i].dur - bs->med;
	struct cand *c = cand_new(x, p, "periodic-spike", s->op, v[0].ts, v[m - 1].ts + v[m - 1].dur,
				  lost);
	if (!c)
		return;
	snprintf(c->root, sizeof(c->root),
		 "%s in PID %u (%s) stalls every %s: %u calls took %s (median) against a median of "
		 "%s for all %llu calls, costing %s (%s of its %s)",
		 opn(s->op), p->pid, c->comm, D(x, gmed), m, D(x, (double)dmed), D(x, (double)bs->med),
		 (unsigned long long)s->n, D(x, (double)lost), P(x, (double)lost / (double)c->wall),
		 D(x, (double)c->wall));
	if (is_alloc(s->op)) {
		snprintf(c->title, sizeof(c->title),
			 "Periodic allocation spikes: %s in %s (PID %u) every %s", opn(s->op), c->comm,
			 p->pid, D(x, gmed));
		snprintf(c->fix, sizeof(c->fix),
			 "Stop returning memory to the driver in the loop: remove "
			 "torch.cuda.empty_cache() from the step, allocate at the peak size once (or "
			 "PYTORCH_CUDA_ALLOC_CONF=expandable_segments:True) and keep tensor shapes "
			 "stable so the caching allocator reuses its blocks.");
	} else {
		snprintf(c->title, sizeof(c->title), "Periodic stalls: %s in %s (PID %u) every %s",
			 opn(s->op), c->comm, p->pid, D(x, gmed));
		snprintf(c->fix, sizeof(c->fix),
			 "Find the task that runs every %s in the job (checkpointing, logging, "
			 "evaluation, garbage collection) and make it asynchronous or less frequent.",
			 D(x, gmed));
	}
	met_s(c, "op", opn(s->op));
	met_u(c, "spikes", m);
	met_u(c, "period_ns", (uint64_t)gmed);
	met_u(c, "spike_median_ns", dmed);
	met_u(c, "median_ns", bs->med);
	met_u(c, "calls", s->n);
	met_u(c, "outlier_threshold_ns", bs->thr);
	met_u(c, "spike_threshold_ns", cut > bs->thr ? cut : bs->thr);
	met_u(c, "lost_ns", lost);
	/* the spikes are the calls above the threshold in [ts_start, ts_end)
	 * outside these intervals */
	met_anomalies(x, c, inany);
	for (uint32_t i = 0; i < m && i < 6; i++)
		ev_add(x, c, v[i].ts, "%s took %s (tid %u)", opn(s->op), D(x, (double)v[i].dur),
		       v[i].tid);
	if (m > 6)
		ev_add(x, c, v[m - 1].ts, "... %u spikes in all, the last took %s", m,
		       D(x, (double)v[m - 1].dur));
}

/* ---- detector: the first calls ---- */
struct cold { const struct sseries *s; uint32_t n; uint64_t lost, first_dur, med; };

static int cmp_cold(const void *a, const void *b)
{
	const struct cold *x = a, *y = b;
	return x->lost > y->lost ? -1 : x->lost < y->lost;
}

static void cold_start(struct ctx *x, const struct sproc *p, struct cold *cl, uint32_t ncl)
{
	if (!ncl)
		return;
	qsort(cl, ncl, sizeof(*cl), cmp_cold);
	uint64_t lost = 0, end = 0;
	uint32_t calls = 0;
	for (uint32_t i = 0; i < ncl; i++) {
		lost += cl[i].lost;
		calls += cl[i].n;
		const struct scall *last = &cl[i].s->first[cl[i].n - 1];
		if (last->ts + last->dur > end)
			end = last->ts + last->dur;
	}
	struct cand *c = cand_new(x, p, "cold-start", cl[0].s->op, p->first_ts, end, lost);
	if (!c)
		return;
	char list[768];
	size_t l = 0;
	for (uint32_t i = 0; i < ncl && i < 3; i++) {
		l += (size_t)snprintf(list + l, sizeof(list) - l, "%s%s %s took %s (median %s over %llu calls)",
				      i ? (i + 1 == ncl || i == 2 ? " and " : ", ") : "",
				      cl[i].n > 1 ? "the first calls of" : "the first",
				      opn(cl[i].s->op), D(x, (double)cl[i].first_dur),
				      D(x, (double)cl[i].med), (unsigned long long)cl[i].s->n);
		if (l >= sizeof(list))
			break;
	}
	snprintf(c->root, sizeof(c->root),
		 "PID %u (%s) lost %s to cold start: %s - CUDA context creation and lazy module "
		 "loading ran inside the first calls (%u slow calls, %s of its %s)",
		 p->pid, c->comm, D(x, (double)lost), list, calls, P(x, (double)lost / (double)c->wall),
		 D(x, (double)c->wall));
	snprintf(c->title, sizeof(c->title), "Cold start: %s (PID %u) spent %s warming up", c->comm,
		 p->pid, D(x, (double)lost));
	snprintf(c->fix, sizeof(c->fix),
		 "Warm up before timing or serving: initialize CUDA at process start "
		 "(torch.cuda.init() or cudaFree(0)), run a few warm-up iterations before the first "
		 "request or measured step, and keep the process resident instead of starting one "
		 "per job.");
	met_u(c, "cold_calls", calls);
	met_u(c, "lost_ns", lost);
	for (uint32_t i = 0; i < ncl && i < 8; i++) {
		char k[64];
		snprintf(k, sizeof(k), "first_%s_ns", opn(cl[i].s->op));
		met_u(c, k, cl[i].first_dur);
		snprintf(k, sizeof(k), "median_%s_ns", opn(cl[i].s->op));
		met_u(c, k, cl[i].med);
		snprintf(k, sizeof(k), "calls_%s", opn(cl[i].s->op));
		met_u(c, k, cl[i].s->n);
	}
	ev_add(x, c, p->first_ts, "first CUDA call of PID %u", p->pid);
	for (uint32_t i = 0; i < ncl && i < 6; i++)
		ev_add(x, c, cl[i].s->first[0].ts, "first %s took %s, %.0fx its median %s",
		       opn(cl[i].s->op), D(x, (double)cl[i].first_dur),
		       (double)cl[i].first_dur / (double)(cl[i].med ? cl[i].med : 1),
		       D(x, (double)cl[i].med));
}

/* ---- detector: memcpy-bound ---- */
static void memcpy_bound(struct ctx *x, const struct sproc *p, struct sseries **ser, uint32_t ns)
{
	/* prefer the runtime layer: a runtime memcpy may call the driver's */
	uint64_t t_lay[ILOG_LAYER__COUNT] = { 0 };
	for (uint32_t i = 0; i < ns; i++)
		if (is_memcpy(ser[i]->op) && ser[i]->layer < ILOG_LAYER__COUNT)
			t_lay[ser[i]->layer] += ser[i]->total;
	int lay = t_lay[ILOG_LAYER_RUNTIME] ? ILOG_LAYER_RUNTIME : ILOG_LAYER_DRIVER;
	uint64_t tmem = 0, bytes = 0, calls = 0, bykind[5] = { 0 };
	const struct sseries *top = NULL;
	uint64_t tsync = 0, tother = 0;
	for (uint32_t i = 0; i < ns; i++) {
		const struct sseries *s = ser[i];
		if (s->layer != lay)
			continue;
		if (is_memcpy(s->op)) {
			tmem += s->total;
			bytes += s->bytes;
			calls += s->n;
			for (int k = 0; k < 5; k++)
				bykind[k] += s->bytes_kind[k];
			if (!top || s->total > top->total)
				top = s;
		} else if (is_sync(s->op)) {
			tsync += s->total;
		} else {
			tother += s->total;
		}
	}
	if (!top)
		return;
	double wall = (double)(p->last_end > p->first_ts ? p->last_end - p->first_ts : 1);
	double frac = (double)tmem / wall;
	/* memcpy-bound: copies are where the job's time goes - the largest
	 * group of calls and most of the wall time */
	if (tmem <= tsync || tmem <= tother || frac < 0.5)
		return;
	struct cand *c = cand_new(x, p, "memcpy-bound", top->op, p->first_ts, p->last_end, tmem);
	if (!c)
		return;
	static const char *const dir[5] = { "host-to-host", "host-to-device", "device-to-host",
					    "device-to-device", "default-direction" };
	int kmax = 0;
	for (int k = 1; k < 5; k++)
		if (bykind[k] > bykind[kmax])
			kmax = k;
	snprintf(c->root, sizeof(c->root),
		 "PID %u (%s) spent %s of its %s in memory copies: %llu calls took %s moving %s "
		 "(mostly %s) at %s/s, more than its %s in synchronization and %s in all other "
		 "CUDA calls",
		 p->pid, c->comm, P(x, frac), D(x, wall), (unsigned long long)calls, D(x, (double)tmem),
		 B(x, (double)bytes), dir[kmax], B(x, (double)bytes / ((double)tmem / 1e9)),
		 D(x, (double)tsync), D(x, (double)tother));
	snprintf(c->title, sizeof(c->title), "Memcpy-bound: %s (PID %u) spends %s copying", c->comm,
		 p->pid, P(x, frac));
	snprintf(c->fix, sizeof(c->fix),
		 "Overlap copies with compute: allocate host buffers pinned (cudaMallocHost, "
		 "pin_memory=True), issue cudaMemcpyAsync on a separate stream, batch small copies "
		 "into large ones and keep tensors resident on the GPU across steps.");
	met_s(c, "layer", ilog_layer_name((uint32_t)lay));
	met_u(c, "memcpy_calls", calls);
	met_u(c, "memcpy_ns", tmem);
	met_u(c, "memcpy_bytes", bytes);
	met_u(c, "sync_ns", tsync);
	met_u(c, "other_ns", tother);
	met_f(c, "memcpy_frac", frac);
	ev_add(x, c, p->first_ts, "%s: %llu calls, %s, %s", opn(top->op),
	       (unsigned long long)top->n, D(x, (double)top->total), B(x, (double)top->bytes));
	ev_add(x, c, p->last_end, "run ends: %s of %s in copies", D(x, (double)tmem), D(x, wall));
}

/* ---- detector: CUDA graphs ---- */
static void graphs(struct ctx *x, const struct sproc *p, struct sig *g)
{
	uint32_t ncap = 0, nfail = 0, ninst = 0, nre = 0, nre_inst = 0;
	const struct scapture *first = NULL;
	uint64_t re_cost = 0, inst_cost = 0;
	uint64_t launches_sum = 0;
	uint32_t nl = 0;
	uint64_t lsorted[64];
	for (uint32_t i = 0; i < x->st->ncap; i++) {
		const struct scapture *c = &x->st->cap[i];
		if (c->node != x->nd->idx || c->pid != p->pid)
			continue;
		ncap++;
		if (!first || c->begin_ts < first->begin_ts)
			first = c;
		if (c->ret)
			nfail++;
		if (p->first_graph_launch_ts && c->begin_ts > p->first_graph_launch_ts) {
			nre++;
			if (!c->open)
				re_cost += c->end_ts + c->end_dur - c->begin_ts;
		}
	}
	for (uint32_t i = 0; i < x->st->ninst; i++) {
		const struct sinst *c = &x->st->inst[i];
		if (c->node != x->nd->idx || c->pid != p->pid)
			continue;
		ninst++;
		if (c->ret)
			nfail++;
		if (p->first_graph_launch_ts && c->ts > p->first_graph_launch_ts) {
			nre_inst++;
			inst_cost += c->dur;
		}
	}
	if (!ncap && !ninst)
		return;
	/* capture without warm-up: the first capture came before any eager launch */
	if (first && !first->eager_before && !first->open) {
		for (uint32_t i = 0; i < x->st->ncap && nl < 64; i++) {
			const struct scapture *c = &x->st->cap[i];
			if (c->node == x->nd->idx && c->pid == p->pid && c != first && !c->open &&
			    !c->ret)
				lsorted[nl++] = c->launches;
		}
		for (uint32_t i = 0; i < nl; i++)
			launches_sum += lsorted[i];
		qsort(lsorted, nl, sizeof(*lsorted), cmp_u64);
		uint64_t lmed = nl ? lsorted[ilog_rank(0.5, nl) - 1] : 0;
		int failed = first->ret != 0;
		int short_ = nl && first->launches * 2 < lmed;
		if (failed || short_) {
			uint64_t dur = first->end_ts + first->end_dur - first->begin_ts;
			struct cand *c = cand_new(x, p, "capture-warmup", ILOG_OP_cudaStreamEndCapture,
						  first->begin_ts, first->end_ts + first->end_dur, dur);
			if (!c)
				return;
			c->forced = failed ? ILOG_SEV_HIGH : ILOG_SEV_MEDIUM;
			c->fatal = failed;
			char how[256];
			if (failed)
				snprintf(how, sizeof(how),
					 "cudaStreamEndCapture failed with error %d (%s)", first->ret,
					 err_name(first->ret));
			else
				snprintf(how, sizeof(how), "the capture ended early");
			snprintf(c->root, sizeof(c->root),
				 "PID %u (%s) captured a CUDA graph %s with no eager warm-up launch before "
				 "it: %s after %s, with %u kernel launches captured%s",
				 p->pid, c->comm,
				 first->begin_ts == p->first_ts
					 ? "in its first CUDA call"
					 : fmt(x, "%s after its first CUDA call",
					       D(x, (double)(first->begin_ts - p->first_ts))),
				 how,
				 D(x, (double)dur), first->launches,
				 nl ? fmt(x, " (later captures hold %llu)", (unsigned long long)lmed) : "");
			snprintf(c->title, sizeof(c->title),
				 "CUDA graph captured without warm-up in %s (PID %u)", c->comm, p->pid);
			snprintf(c->fix, sizeof(c->fix),
				 "Run 2-3 eager warm-up iterations on a side stream before capturing, so "
				 "lazy initialization, library workspaces and allocator growth happen "
				 "outside the capture (torch.cuda.graphs: warm up before "
				 "torch.cuda.graph(...)).");
			met_u(c, "capture_begin_ts", first->begin_ts);
			met_u(c, "since_first_call_ns", first->begin_ts - p->first_ts);
			met_u(c, "capture_ns", dur);
			met_u(c, "captured_launches", first->launches);
			met_u(c, "later_capture_launches_median", lmed);
			met_f(c, "end_capture_ret", first->ret);
			ev_add(x, c, p->first_ts, "first CUDA call of PID %u", p->pid);
			ev_add(x, c, first->begin_ts, "cudaStreamBeginCapture on stream 0x%llx, no eager "
			       "launch so far", (unsigned long long)first->stream);
			ev_add(x, c, first->end_ts, "cudaStreamEndCapture returned %d after %u launches",
			       first->ret, first->launches);
		}
	}
	/* re-capture in steady state: captures/instantiations after graph launches began */
	if (nre + nre_inst) {
		uint64_t lost = re_cost + inst_cost;
		struct cand *c = cand_new(x, p, "graph-recapture", ILOG_OP_cudaGraphInstantiate,
					  p->first_graph_launch_ts, p->last_end, lost);
		if (!c)
			return;
		/* graph launches per second in windows with and without re-capture */
		const struct sseries *gl = NULL;
		for (uint32_t i = 0; i < x->st->nser; i++) {
			const struct sseries *s = x->st->ser[i];
			if (s->node == x->nd->idx && s->pid == p->pid && s->op == ILOG_OP_cudaGraphLaunch)
				gl = s;
		}
		uint64_t n_re = 0, n_no = 0, w_re = 0, w_no = 0;
		uint32_t a = tick_at(x, p->first_graph_launch_ts), b = tick_at(x, p->last_end);
		for (uint32_t k = a + 1; k < b; k++) { /* whole windows only */
			uint64_t n = gl && k < gl->nt ? gl->t[k].n : 0;
			if (g->gr[k] > 0)
				n_re += n, w_re++;
			else
				n_no += n, w_no++;
		}
		double w = (double)x->nd->width / 1e9;
		double r_re = w_re ? (double)n_re / ((double)w_re * w) : 0;
		double r_no = w_no ? (double)n_no / ((double)w_no * w) : 0;
		char rate[256] = "";
		if (w_re && w_no)
			snprintf(rate, sizeof(rate),
				 ", and cudaGraphLaunch ran %.0f/s in windows with a re-capture against "
				 "%.0f/s without",
				 r_re, r_no);
		snprintf(c->root, sizeof(c->root),
			 "PID %u (%s) re-captured CUDA graphs after it started launching them: %u "
			 "captures and %u cudaGraphInstantiate calls cost %s (instantiation %s, %s of its %s)%s",
			 p->pid, c->comm, nre, nre_inst, D(x, (double)lost), D(x, (double)inst_cost),
			 P(x, (double)lost / (double)c->wall), D(x, (double)c->wall), rate);
		snprintf(c->title, sizeof(c->title), "CUDA graph re-capture in %s (PID %u): %u times",
			 c->comm, p->pid, nre_inst > nre ? nre_inst : nre);
		snprintf(c->fix, sizeof(c->fix),
			 "Capture once and replay: keep shapes and input addresses static (static "
			 "input buffers, pad to a few bucket sizes), cache one cudaGraphExec per shape "
			 "and update it with cudaGraphExecUpdate instead of re-capturing and "
			 "re-instantiating.");
		met_u(c, "recaptures", nre);
		met_u(c, "reinstantiations", nre_inst);
		met_u(c, "recapture_ns", re_cost);
		met_u(c, "instantiate_ns", inst_cost);
		met_u(c, "first_graph_launch_ts", p->first_graph_launch_ts);
		if (w_re && w_no) {
			met_f(c, "launch_rate_recapture", r_re);
			met_f(c, "launch_rate_steady", r_no);
		}
		ev_add(x, c, p->first_graph_launch_ts, "first cudaGraphLaunch: steady state begins");
		uint32_t shown = 0;
		for (uint32_t i = 0; i < x->st->ninst && shown < 5; i++) {
			const struct sinst *t = &x->st->inst[i];
			if (t->node == x->nd->idx && t->pid == p->pid && t->ts > p->first_graph_launch_ts) {
				ev_add(x, c, t->ts, "cudaGraphInstantiate took %s", D(x, (double)t->dur));
				shown++;
			}
		}
	}
}

/* ---- detector: preemption over the whole run ---- */
static void cpu_run(struct ctx *x, const struct sproc *p, uint32_t lo, uint32_t hi,
		    uint32_t first_cand)
{
	uint64_t n, d;
	struct preempt *pr = calloc(MAXPRE, sizeof(*pr));
	if (!pr) {
		x->oom = 1;
		return;
	}
	uint32_t m = preempters(x, p, lo, hi, pr, MAXPRE, &n, &d);
	struct cand *c = NULL;
	if (!m)
		goto out;
	/* an interval chain already names this culprit */
	for (uint32_t i = first_cand; i < x->n; i++)
		if (!strcmp(x->c[i].pattern, "cpu-contention") && x->c[i].culprit == pr[0].pid)
			goto out;
	c = cand_new(x, p, "cpu-contention", ILOG_OP_UNKNOWN, tick_ts(x, lo), tick_ts(x, hi), d);
	if (!c)
		goto out;
	const char *cc = ilog_stats_comm(x->st, x->nd->idx, pr[0].pid);
	c->culprit = pr[0].pid;
	cpy(c->ccomm, sizeof(c->ccomm), cc);
	snprintf(c->root, sizeof(c->root),
		 "PID %u (%s) preempted the CUDA threads of PID %u (%s) %llu times for %s off-CPU "
		 "over the whole run (all preemptions: %llu, %s, %s of its %s)",
		 pr[0].pid, cc, p->pid, c->comm, (unsigned long long)pr[0].n, D(x, (double)pr[0].dur),
		 (unsigned long long)n, D(x, (double)d), P(x, (double)d / (double)c->wall),
		 D(x, (double)c->wall));
	snprintf(c->title, sizeof(c->title), "CPU contention: %s (PID %u) preempted %s (PID %u)", cc,
		 pr[0].pid, c->comm, p->pid);
	snprintf(c->fix, sizeof(c->fix), FIX_CPU, fmt(x, "%s (PID %u)", cc, pr[0].pid), cc);
	met_u(c, "culprit_preemptions", pr[0].n);
	met_u(c, "culprit_offcpu_ns", pr[0].dur);
	met_u(c, "preemptions", n);
	met_u(c, "offcpu_ns", d);
	for (uint32_t i = 0; i < m && i < 4; i++)
		ev_add(x, c, tick_ts(x, lo), "PID %u (%s): %llu preemptions, %s off-CPU", pr[i].pid,
		       ilog_stats_comm(x->st, x->nd->idx, pr[i].pid), (unsigned long long)pr[i].n,
		       D(x, (double)pr[i].dur));
out:
	free(pr);
}

/* ---- detector: failures ---- */
static void failures(struct ctx *x, const struct sproc *p, const struct sseries *s)
{
	if (!s->nerr || is_graph_setup(s->op))
		return;
	int oom = s->nerr_oom && is_alloc(s->op);
	struct cand *c = cand_new(x, p, oom ? "gpu-oom" : "cuda-errors", s->op, s->first_err_ts,
				  s->last_end, 0);
	if (!c)
		return;
	c->forced = oom || s->nerr == s->n ? ILOG_SEV_HIGH : ILOG_SEV_MEDIUM;
	c->fatal = c->forced == ILOG_SEV_HIGH;
	if (oom) {
		snprintf(c->root, sizeof(c->root),
			 "%s failed with out-of-memory (error 2) %llu of %llu times in PID %u (%s), "
			 "first at %s asking for %s",
			 opn(s->op), (unsigned long long)s->nerr_oom, (unsigned long long)s->n, p->pid,
			 c->comm, R(x, s->first_err_ts), B(x, (double)s->first_err_bytes));
		snprintf(c->title, sizeof(c->title), "GPU out of memory in %s (PID %u)", c->comm,
			 p->pid);
		snprintf(c->fix, sizeof(c->fix),
			 "Lower peak GPU memory: a smaller batch or activation checkpointing, drop "
			 "references before allocating, PYTORCH_CUDA_ALLOC_CONF=expandable_segments:True "
			 "against fragmentation, and check other processes holding GPU memory "
			 "(nvidia-smi).");
	} else {
		snprintf(c->root, sizeof(c->root),
			 "%s returned error %d (%s) %llu of %llu times in PID %u (%s), first at %s",
			 opn(s->op), s->first_err, err_name(s->first_err), (unsigned long long)s->nerr,
			 (unsigned long long)s->n, p->pid, c->comm, R(x, s->first_err_ts));
		snprintf(c->title, sizeof(c->title), "CUDA errors: %s in %s (PID %u)", opn(s->op),
			 c->comm, p->pid);
		snprintf(c->fix, sizeof(c->fix),
			 s->first_err == 35 || s->first_err == 100
				 ? "No usable GPU driver or device: install or load the NVIDIA driver "
				   "matching the CUDA runtime (nvidia-smi must list the GPU), or run "
				   "where one is present."
				 : "Check the return codes where %s is called: the work behind a failed "
				   "call never ran, and later calls fail with it.",
			 opn(s->op));
	}
	met_s(c, "op", opn(s->op));
	met_u(c, "errors", s->nerr);
	met_u(c, "calls", s->n);
	met_f(c, "first_error", s->first_err);
	ev_add(x, c, s->first_err_ts, "%s returned %d (%s)", opn(s->op), s->first_err,
	       err_name(s->first_err));
}

/* ---- detector: OOM kills ---- */
static void oom_kills(struct ctx *x)
{
	for (uint32_t i = 0; i < x->st->nev; i++) {
		const struct sevent *e = &x->st->ev[i];
		if (e->node != x->nd->idx || e->type != ILOG_HOST_OOM)
			continue;
		struct sproc *v = ilog_stats_proc(x->st, x->nd->idx, e->pid);
		int cuda_victim = v && v->ncalls;
		/* a non-CUDA victim matters when CUDA work was running then */
		const struct sproc *busy = NULL;
		for (uint32_t j = 0; !cuda_victim && j < x->st->nprocs; j++) {
			const struct sproc *q = x->st->procs[j];
			if (q->node == x->nd->idx && q->ncalls && q->first_ts <= e->ts &&
			    q->last_end >= e->ts)
				busy = q;
		}
		if (!cuda_victim && !busy)
			continue;
		const struct sproc *p = cuda_victim ? v : busy;
		uint32_t k = tick_at(x, e->ts), tpid;
		uint64_t tn;
		uint64_t pg = pages(x, 0, k + 1, &tpid, &tn);
		struct snapsum ss;
		snaps(x, 0, k + 1, &ss);
		struct cand *c = cand_new(x, p, "oom", ILOG_OP_UNKNOWN, e->ts, e->ts + 1, 0);
		if (!c)
			return;
		c->forced = cuda_victim ? ILOG_SEV_HIGH : ILOG_SEV_MEDIUM;
		c->fatal = cuda_victim;
		const char *vc = e->comm[0] ? e->comm : ilog_stats_comm(x->st, x->nd->idx, e->pid);
		char tail[512] = "";
		size_t l = 0;
		if (cuda_victim && v->noret)
			l += (size_t)snprintf(tail + l, sizeof(tail) - l,
					      "; %llu of its CUDA calls never returned",
					      (unsigned long long)v->noret);
		if (ss.n && ss.total)
			l += (size_t)snprintf(tail + l, sizeof(tail) - l,
					      "; the least memory available before it was %s (%s of %s)",
					      P(x, (double)ss.avail_min / (double)ss.total),
					      B(x, (double)ss.avail_min), B(x, (double)ss.total));
		if (tpid && tn)
			snprintf(tail + l, sizeof(tail) - l,
				 "; PID %u (%s) allocated the most pages before the kill (%llu of %llu)",
				 tpid, ilog_stats_comm(x->st, x->nd->idx, tpid), (unsigned long long)tn,
				 (unsigned long long)pg);
		if (cuda_victim)
			snprintf(c->root, sizeof(c->root),
				 "The kernel OOM killer killed PID %u (%s) at %s during its GPU work%s",
				 e->pid, vc, R(x, e->ts), tail);
		else
			snprintf(c->root, sizeof(c->root),
				 "The kernel OOM killer killed PID %u (%s) at %s while PID %u (%s) was "
				 "doing GPU work%s",
				 e->pid, vc, R(x, e->ts), p->pid, c->comm, tail);
		if (tpid && tpid != p->pid) {
			c->culprit = tpid;
			cpy(c->ccomm, sizeof(c->ccomm), ilog_stats_comm(x->st, x->nd->idx, tpid));
		}
		snprintf(c->title, sizeof(c->title), "OOM kill of %s (PID %u) during GPU work", vc,
			 e->pid);
		snprintf(c->fix, sizeof(c->fix),
			 "Give the job memory headroom: cap other processes (cgroup memory.max), "
			 "shrink host-side buffers (DataLoader workers, pinned pools), add RAM or swap, "
			 "and protect the job with oom_score_adj=-1000 if it must survive.");
		met_u(c, "victim_pid", e->pid);
		met_u(c, "oom_ts", e->ts);
		met_u(c, "pages_before", pg);
		if (ss.n)
			met_u(c, "mem_avail_min", ss.avail_min);
		ev_add(x, c, e->ts, "OOM kill of PID %u (%s)", e->pid, vc);
	}
}

/* ---- detector: GPU-bound (informational) ---- */
static void gpu_bound(struct ctx *x, const struct sproc *p, struct sseries **ser, uint32_t ns,
		      uint32_t lo, uint32_t hi)
{
	const struct sseries *top = NULL;
	uint64_t tsync = 0;
	for (uint32_t i = 0; i < ns; i++)
		if (is_sync(ser[i]->op) && ser[i]->layer == ILOG_LAYER_RUNTIME) {
			tsync += ser[i]->total;
			if (!top || ser[i]->total > top->total)
				top = ser[i];
		}
	if (!top) /* driver-only programs */
		for (uint32_t i = 0; i < ns; i++)
			if (is_sync(ser[i]->op)) {
				tsync += ser[i]->total;
				if (!top || ser[i]->total > top->total)
					top = ser[i];
			}
	double wall = (double)(p->last_end > p->first_ts ? p->last_end - p->first_ts : 1);
	if (!top || (double)tsync / wall < 0.5)
		return;
	struct preempt pr[4];
	uint64_t n, d;
	preempters(x, p, lo, hi, pr, 4, &n, &d);
	struct snapsum ss;
	snaps(x, lo, hi, &ss);
	struct cand *c = cand_new(x, p, "gpu-bound", top->op, p->first_ts, p->last_end, 0);
	if (!c)
		return;
	c->forced = ILOG_SEV_LOW;
	struct dhist h;
	if (ilog_dhist_series(&h, top, 0, top->nt, NULL, 0)) {
		x->oom = 1;
		return;
	}
	uint64_t m = ilog_dhist_quantile(&h, 0.5), q = ilog_dhist_quantile(&h, 0.99);
	ilog_dhist_free(&h);
	char cpu[64] = "";
	if (ss.n)
		snprintf(cpu, sizeof(cpu), "the CPUs were %s busy, ", P(x, ss.cpu_avg / 100));
	snprintf(c->root, sizeof(c->root),
		 "PID %u (%s) waits on the GPU: synchronization took %s of its %s (%s p50 %s, p99 "
		 "%s) while %sits CUDA threads were preempted %llu times (%s off-CPU) - the GPU work "
		 "itself sets the pace, not the host",
		 p->pid, c->comm, P(x, (double)tsync / wall), D(x, wall), opn(top->op), D(x, (double)m),
		 D(x, (double)q), cpu, (unsigned long long)n, D(x, (double)d));
	snprintf(c->title, sizeof(c->title), "GPU-bound: %s (PID %u) waits on the GPU %s of the time",
		 c->comm, p->pid, P(x, (double)tsync / wall));
	snprintf(c->fix, sizeof(c->fix),
		 "To go faster make the GPU work cheaper: profile the kernels (Nsight Compute), use "
		 "mixed precision and tensor cores, fuse small kernels (torch.compile) or do more "
		 "work per launch; host-side tuning will not help.");
	met_u(c, "sync_ns", tsync);
	met_f(c, "sync_frac", (double)tsync / wall);
	met_u(c, "preemptions", n);
	met_u(c, "offcpu_ns", d);
	ev_add(x, c, p->first_ts, "%s: p50 %s, p99 %s over %llu calls", opn(top->op),
	       D(x, (double)m), D(x, (double)q), (unsigned long long)top->n);
}

static void analyze_proc(struct ctx *x, struct sproc *p)
{
	struct sseries **ser = malloc((x->st->nser ? x->st->nser : 1) * sizeof(*ser));
	uint8_t *hot = calloc(x->T, 1), *inany = calloc(x->T, 1);
	struct cold *cl = calloc(x->st->nser ? x->st->nser : 1, sizeof(*cl));
	struct sig g = { 0 };
	uint32_t ns = 0, ncl = 0;
	uint32_t lo = tick_at(x, p->first_ts), hi = tick_at(x, p->last_end) + 1;
	if (!ser || !hot || !inany || !cl || sig_build(x, p, &g, lo, hi)) {
		x->oom = 1;
		goto out;
	}
	for (uint32_t i = 0; i < x->st->nser; i++)
		if (x->st->ser[i]->node == x->nd->idx && x->st->ser[i]->pid == p->pid)
			ser[ns++] = x->st->ser[i];
	uint32_t before = x->n;
	for (uint32_t i = 0; i < ns && !x->oom; i++) {
		struct sseries *s = ser[i];
		failures(x, p, s);
		if (s->n < 3 || is_graph_setup(s->op))
			continue;
		struct base bs;
		if (base_of(s, &bs)) {
			x->oom = 1;
			break;
		}
		/* cold calls: the leading run of outliers */
		uint32_t nc = 0;
		uint64_t cl_lost = 0;
		while (nc < s->nfirst && nc + 1 < s->n && s->first[nc].dur > bs.thr) {
			cl_lost += s->first[nc].dur - bs.med;
			nc++;
		}
		uint32_t cold_end = 0;
		if (nc) {
			cl[ncl++] = (struct cold){ s, nc, cl_lost, s->first[0].dur, bs.med };
			cold_end = tick_at(x, s->first[nc - 1].ts + s->first[nc - 1].dur) + 1;
		}
		if (s->n >= ILOG_MIN_SERIES) {
			struct ival iv[32];
			uint32_t niv = find_intervals(x, s, &bs, hot, iv, 32);
			memset(inany, 0, x->T);
			for (uint32_t j = 0; j < niv; j++)
				for (uint32_t k = iv[j].a; k < iv[j].b; k++)
					inany[k] = 1;
			/* an interval that cost less than the smallest reported impact is
			 * not an anomaly: it neither gets a chain nor hides spikes */
			uint32_t kept = 0;
			for (uint32_t j = 0; j < niv; j++)
				if ((double)interval_lost(s, iv[j], inany, x->T) >=
				    ILOG_SEV_MIN_IMPACT * (double)(p->last_end - p->first_ts))
					iv[kept++] = iv[j];
			niv = kept;
			memset(inany, 0, x->T);
			for (uint32_t j = 0; j < niv; j++)
				for (uint32_t k = iv[j].a; k < iv[j].b; k++)
					inany[k] = 1;
			if (niv && sig_flags(x, &g, inany, lo, hi)) {
				x->oom = 1;
				ilog_dhist_free(&bs.all);
				break;
			}
			for (uint32_t j = 0; j < niv; j++)
				if (iv[j].b > cold_end) /* not just the cold calls again */
					interval_chain(x, p, s, &bs, hot, inany, iv[j], &g, lo, hi);
			periodic(x, p, s, &bs, nc, inany);
		}
		ilog_dhist_free(&bs.all);
	}
	cold_start(x, p, cl, ncl);
	memcpy_bound(x, p, ser, ns);
	graphs(x, p, &g);
	cpu_run(x, p, lo, hi, before);
	int have_big = 0;
	/* "the GPU sets the pace" only when nothing else explains the time */
	for (uint32_t i = before; i < x->n; i++)
		if (severity(&x->c[i]) >= ILOG_SEV_MEDIUM)
			have_big = 1;
	if (!have_big)
		gpu_bound(x, p, ser, ns, lo, hi);
out:
	sig_free(&g);
	free(ser);
	free(hot);
	free(inany);
	free(cl);
}

/* ---- ranking and output ---- */
static int overlap(const struct cand *a, const struct cand *b)
{
	return a->ts_start < b->ts_end && b->ts_start < a->ts_end;
}

static int cmp_rank(const void *pa, const void *pb, void *base)
{
	const struct cand *cb = base;
	const struct cand *a = &cb[*(const uint32_t *)pa], *b = &cb[*(const uint32_t *)pb];
	int sa = severity(a), sb = severity(b);
	if (sa != sb)
		return sa > sb ? -1 : 1;
	if (a->fatal != b->fatal)
		return a->fatal ? -1 : 1;
	if (a->lost != b->lost)
		return a->lost > b->lost ? -1 : 1;
	return a->ts_start < b->ts_start ? -1 : a->ts_start > b->ts_start;
}

static char *keep(struct ilog_chain_set *cs, const char *s, size_t n)
{
	char **m = realloc(cs->mem, (cs->nmem + 1) * sizeof(*m));
	if (!m)
		return NULL;
	cs->mem = m;
	char *d = malloc(n + 1);
	if (!d)
		return NULL;
	memcpy(d, s, n);
	d[n] = 0;
	cs->mem[cs->nmem++] = d;
	return d;
}

static int kstr(struct ilog_chain_set *cs, struct ilog_str *dst, const char *s, size_t n)
{
	char *d = keep(cs, s ? s : "", s ? n : 0);
	if (!d)
		return -1;
	*dst = (struct ilog_str){ d, (uint32_t)(s ? n : 0) };
	return 0;
}

static uint64_t chain_id(const struct cand *c, uint64_t salt)
{
	/* stable across runs of the same log: FNV-1a over what identifies it,
	 * salted with the chains already in the input so that correlating a
	 * correlated log again keeps ids unique in it (SPEC §7.5) */
	uint64_t h = 0xcbf29ce484222325ull;
	uint64_t parts[6] = { c->node, c->pid, c->op, c->ts_start, c->culprit, salt };
	for (int i = 0; i < 6; i++)
		for (int j = 0; j < 8; j++) {
			h ^= (parts[i] >> (8 * j)) & 0xff;
			h *= 0x100000001b3ull;
		}
	for (const char *s = c->pattern; *s; s++) {
		h ^= (unsigned char)*s;
		h *= 0x100000001b3ull;
	}
	return h ? h : 1;
}

int ilog_causal_run(struct ilog_stats *st, struct ilog_chain_set *cs, char *err, size_t errlen)
{
	memset(cs, 0, sizeof(*cs));
	struct ctx x = { .st = st };
	for (uint32_t i = 0; i < st->nnodes && !x.oom; i++) {
		x.nd = &st->nodes[i];
		x.T = x.nd->nticks ? x.nd->nticks : 1;
		for (uint32_t j = 0; j < st->nprocs && !x.oom; j++)
			if (st->procs[j]->node == x.nd->idx && st->procs[j]->ncalls)
				analyze_proc(&x, st->procs[j]);
		oom_kills(&x);
	}
	/* one chain per (node, pid, pattern, culprit) and overlapping time: the costliest */
	for (uint32_t i = 0; i < x.n; i++)
		for (uint32_t j = 0; j < x.n; j++) {
			struct cand *a = &x.c[i], *b = &x.c[j];
			if (i == j || a->dead || b->dead || a->node != b->node || a->pid != b->pid ||
			    strcmp(a->pattern, b->pattern) || a->culprit != b->culprit || !overlap(a, b))
				continue;
			if (b->lost > a->lost || (b->lost == a->lost && j < i))
				a->dead = 1;
		}
	/* "the GPU got slower" is not credible while a host cause hit the same process */
	for (uint32_t i = 0; i < x.n; i++) {
		struct cand *a = &x.c[i];
		if (strcmp(a->pattern, "gpu-slow"))
			continue;
		for (uint32_t j = 0; j < x.n && !a->dead; j++) {
			const struct cand *b = &x.c[j];
			if (!b->dead && severity(b) >= 0 && b->node == a->node && b->pid == a->pid &&
			    overlap(a, b) &&
			    (!strcmp(b->pattern, "cpu-contention") || !strcmp(b->pattern, "gpu-contention") ||
			     !strcmp(b->pattern, "memory-pressure")))
				a->dead = 1;
		}
	}
	uint32_t *ord = malloc((x.n ? x.n : 1) * sizeof(*ord)), m = 0;
	if (!ord)
		x.oom = 1;
	for (uint32_t i = 0; ord && i < x.n; i++)
		if (!x.c[i].dead && severity(&x.c[i]) >= 0)
			ord[m++] = i;
	if (ord && m)
		qsort_r(ord, m, sizeof(*ord), cmp_rank, x.c);
	if (!x.oom && m) {
		cs->chains = calloc(m, sizeof(*cs->chains));
		cs->nodes = calloc(m, sizeof(*cs->nodes));
		if (!cs->chains || !cs->nodes)
			x.oom = 1;
	}
	for (uint32_t r = 0; !x.oom && r < m; r++) {
		struct cand *c = &x.c[ord[r]];
		struct ilog_chain *o = &cs->chains[cs->n];
		struct ilog_buf ev = { 0 };
		x.nd = ilog_stats_node(st, c->node);
		ev_render(&x, c, &ev);
		met_f(c, "impact", (double)c->lost / (double)c->wall);
		ilog_buf_put(&c->met, "}", 1);
		o->id = chain_id(c, st->chains_in);
		o->ts_start = c->ts_start;
		o->ts_end = c->ts_end;
		o->severity = (uint32_t)severity(c);
		o->pid = c->pid;
		o->op = c->op;
		o->score = (double)c->lost / (double)c->wall;
		if (o->score > 1) /* concurrent threads can lose more than the wall time */
			o->score = 1;
		o->culprit_pid = c->culprit;
		o->lost_ns = c->lost;
		if (kstr(cs, &o->pattern, c->pattern, strlen(c->pattern)) ||
		    kstr(cs, &o->title, c->title, strlen(c->title)) ||
		    kstr(cs, &o->root_cause, c->root, strlen(c->root)) ||
		    kstr(cs, &o->fix, c->fix, strlen(c->fix)) ||
		    kstr(cs, &o->evidence, ev.p, ev.len) ||
		    kstr(cs, &o->comm, c->comm, strlen(c->comm)) ||
		    kstr(cs, &o->culprit_comm, c->ccomm, strlen(c->ccomm)) ||
		    kstr(cs, &o->metrics, c->met.p, c->met.len)) {
			x.oom = 1;
			ilog_buf_free(&ev);
			break;
		}
		ilog_buf_free(&ev);
		cs->nodes[cs->n++] = c->node;
	}
	for (uint32_t i = 0; i < x.n; i++)
		ilog_buf_free(&x.c[i].met);
	free(x.c);
	free(ord);
	if (x.oom) {
		ilog_chain_set_free(cs);
		snprintf(err, errlen, "out of memory");
		return -1;
	}
	return 0;
}

void ilog_chain_set_free(struct ilog_chain_set *cs)
{
	for (uint32_t i = 0; i < cs->nmem; i++)
		free(cs->mem[i]);
	free(cs->mem);
	free(cs->chains);
	free(cs->nodes);
	memset(cs, 0, sizeof(*cs));
}
