// SPDX-License-Identifier: MIT
/*
 * Reading the statistics that stats.c accumulates: dense histograms over a
 * range of windows and their quantiles, the small robust statistics the
 * causal engine and the gate share, formatting of durations and sizes, and
 * the rows (per node, process and op) that reports and exports print.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include "stats_int.h"

/* ---- dense histograms over tick ranges ---- */
void ilog_dhist_free(struct dhist *h)
{
	free(h->c);
	memset(h, 0, sizeof(*h));
}

int ilog_dhist_series(struct dhist *h, const struct sseries *s, uint32_t a, uint32_t b,
		      const uint8_t *skip, int invert)
{
	memset(h, 0, sizeof(*h));
	if (b > s->nt)
		b = s->nt;
	for (uint32_t k = a; k < b; k++) {
		const struct stick *t = &s->t[k];
		if (!t->n || (skip && (!!skip[k]) != !!invert))
			continue;
		if (!h->c && !(h->c = calloc(HB_N, sizeof(*h->c))))
			return -1;
		for (uint32_t i = 0; i < t->nb; i++)
			h->c[SB_IDX(t->bins[i])] += SB_CNT(t->bins[i]);
		if (!h->n || t->min < h->min)
			h->min = t->min;
		if (t->max > h->max)
			h->max = t->max;
		h->n += t->n;
		h->total += t->total;
	}
	return 0;
}

uint64_t ilog_dhist_quantile(const struct dhist *h, double q)
{
	if (!h->n)
		return 0;
	uint64_t r = ilog_rank(q, h->n), acc = 0;
	for (uint32_t i = 0; i < HB_N; i++) {
		acc += h->c[i];
		if (acc >= r) {
			uint64_t v = ilog_hb_rep(i);
			if (v < h->min)
				v = h->min;
			if (v > h->max)
				v = h->max;
			return v;
		}
	}
	return h->max;
}

double ilog_dhist_sd(const struct dhist *h)
{
	if (h->n < 2)
		return 0;
	double mean = (double)h->total / (double)h->n, ss = 0;
	for (uint32_t i = 0; i < HB_N; i++)
		if (h->c[i]) {
			double d = (double)ilog_hb_rep(i) - mean;
			ss += d * d * (double)h->c[i];
		}
	return sqrt(ss / (double)(h->n - 1));
}

struct devb { uint64_t dev, n; };

static int cmp_devb(const void *a, const void *b)
{
	const struct devb *x = a, *y = b;
	return x->dev < y->dev ? -1 : x->dev > y->dev;
}

uint64_t ilog_dhist_mad(const struct dhist *h, uint64_t med)
{
	if (!h->n)
		return 0;
	uint32_t m = 0;
	for (uint32_t i = 0; i < HB_N; i++)
		m += h->c[i] != 0;
	struct devb *d = malloc((size_t)m * sizeof(*d));
	if (!d)
		return 0;
	m = 0;
	for (uint32_t i = 0; i < HB_N; i++)
		if (h->c[i]) {
			uint64_t v = ilog_hb_rep(i);
			d[m++] = (struct devb){ v > med ? v - med : med - v, h->c[i] };
		}
	qsort(d, m, sizeof(*d), cmp_devb);
	uint64_t r = ilog_rank(0.5, h->n), acc = 0, out = 0;
	for (uint32_t i = 0; i < m; i++) {
		acc += d[i].n;
		if (acc >= r) {
			out = d[i].dev;
			break;
		}
	}
	free(d);
	return out;
}

uint64_t ilog_tick_above(const struct stick *t, uint64_t thr)
{
	uint32_t tb = hb_index(thr);
	uint64_t n = 0;
	if (!t->n || t->max <= thr)
		return 0;
	for (uint32_t i = t->nb; i-- > 0;) {
		if (SB_IDX(t->bins[i]) <= tb)
			break;
		n += SB_CNT(t->bins[i]);
	}
	return n;
}

uint64_t ilog_series_above(const struct sseries *s, uint32_t a, uint32_t b, uint64_t thr)
{
	uint64_t n = 0;
	if (b > s->nt)
		b = s->nt;
	for (uint32_t k = a; k < b; k++)
		n += ilog_tick_above(&s->t[k], thr);
	return n;
}

/* ---- formatting ---- */
char *ilog_fmt_dur(char *b, size_t n, double ns)
{
	const char *u;
	double v;
	if (ns < 1e3) {
		snprintf(b, n, "%.0f ns", ns);
		return b;
	}
	if (ns < 1e6)
		v = ns / 1e3, u = "us";
	else if (ns < 1e9)
		v = ns / 1e6, u = "ms";
	else
		v = ns / 1e9, u = "s";
	snprintf(b, n, v < 10 ? "%.2f %s" : v < 100 ? "%.1f %s" : "%.0f %s", v, u);
	return b;
}

char *ilog_fmt_wall(char *out, size_t n, uint64_t real_ns)
{
	time_t s = (time_t)(real_ns / 1000000000ull);
	struct tm tm;
	if (!real_ns || !gmtime_r(&s, &tm))
		snprintf(out, n, "unknown time");
	else
		strftime(out, n, "%Y-%m-%dT%H:%M:%SZ", &tm);
	return out;
}

char *ilog_fmt_bytes(char *b, size_t n, double bytes)
{
	static const char *const u[] = { "B", "KiB", "MiB", "GiB", "TiB" };
	int i = 0;
	while (bytes >= 1024 && i < 4)
		bytes /= 1024, i++;
	if (!i)
		snprintf(b, n, "%.0f B", bytes);
	else
		snprintf(b, n, bytes < 10 ? "%.2f %s" : bytes < 100 ? "%.1f %s" : "%.0f %s", bytes, u[i]);
	return b;
}

/* ---- small statistics shared by the engine and the gate ---- */
static int cmp_dbl(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return x < y ? -1 : x > y;
}

void ilog_robust(const double *v, uint32_t n, double *med, double *mad)
{
	*med = *mad = 0;
	if (!n)
		return;
	double *w = malloc(n * sizeof(*w));
	if (!w)
		return;
	memcpy(w, v, n * sizeof(*w));
	qsort(w, n, sizeof(*w), cmp_dbl);
	uint64_t r = ilog_rank(0.5, n) - 1;
	*med = w[r];
	for (uint32_t i = 0; i < n; i++)
		w[i] = fabs(v[i] - *med);
	qsort(w, n, sizeof(*w), cmp_dbl);
	*mad = w[r];
	free(w);
}

double ilog_chernoff(uint64_t n, uint64_t k, double p)
{
	if (!n)
		return 1;
	double a = (double)k / (double)n;
	if (a <= p)
		return 1;
	if (p <= 0)
		return 0;
	double d = a * log(a / p);
	if (a < 1)
		d += (1 - a) * log((1 - a) / (1 - p));
	return exp(-(double)n * d);
}

double ilog_ranksum_p(const double *x, uint32_t m, const double *y, uint32_t n)
{
	if (!m || !n || m > ILOG_RANKSUM_MAX || n > ILOG_RANKSUM_MAX)
		return 1;
	/* u: pairs with y above x, a tie counting half; under the null every
	 * order of the m + n values is as likely, and f[i][j][u] counts the
	 * orders of i x's and j y's with u such pairs (the largest value is a
	 * y, above all i x's, or an x) */
	double u = 0;
	for (uint32_t i = 0; i < m; i++)
		for (uint32_t j = 0; j < n; j++)
			u += y[j] > x[i] ? 1 : y[j] == x[i] ? 0.5 : 0;
	uint32_t U = m * n + 1;
	double *f = malloc((size_t)(m + 1) * (n + 1) * U * sizeof(*f));
	if (!f)
		return 1; /* nothing shown */
#define F(i, j, k) f[((size_t)(i) * (n + 1) + (j)) * U + (k)]
	for (uint32_t i = 0; i <= m; i++)
		for (uint32_t j = 0; j <= n; j++)
			for (uint32_t k = 0; k <= i * j; k++)
				F(i, j, k) = !i || !j ? (k == 0)
						      : (k >= i ? F(i, j - 1, k - i) : 0) +
							(k <= (i - 1) * j ? F(i - 1, j, k) : 0);
	double tail = 0, all = 0;
	for (uint32_t k = 0; k < U; k++) {
		all += F(m, n, k);
		if ((double)k >= u)
			tail += F(m, n, k);
	}
#undef F
	free(f);
	return all > 0 ? tail / all : 1;
}

/* ---- logs given unmerged ---- */
uint32_t ilog_stats_logs(struct ilog_stats *st, int *overlap, char *ranks, size_t rlen)
{
	*overlap = 0;
	if (rlen)
		ranks[0] = 0;
	if (st->logs < 2)
		return st->logs;
	/* any two nodes' wall-clock spans overlapping: recorded at once */
	for (uint32_t i = 0; i < st->nnodes && !*overlap; i++)
		for (uint32_t j = i + 1; j < st->nnodes && !*overlap; j++) {
			struct ilog_stats_summary a, b;
			ilog_stats_summary(st, i, &a);
			ilog_stats_summary(st, j, &b);
			if (!a.real_start_ns || !b.real_start_ns)
				continue;
			uint64_t ae = a.real_start_ns + (a.end_ns - a.start_ns);
			uint64_t be = b.real_start_ns + (b.end_ns - b.start_ns);
			*overlap = a.real_start_ns < be && b.real_start_ns < ae;
		}
	size_t len = 0;
	for (uint32_t i = 0; i < st->nodemap.nnodes && rlen; i++)
		if (st->nodemap.nodes[i].rank >= 0 && len + 24 < rlen)
			len += (size_t)snprintf(ranks + len, rlen - len, "%s%lld", len ? ", " : "",
						(long long)st->nodemap.nodes[i].rank);
	return st->logs;
}

/* ---- rows ---- */
uint32_t ilog_stats_nnodes(const struct ilog_stats *st)
{
	return st->nnodes;
}

uint64_t ilog_stats_wall(const struct ilog_stats *st, uint32_t node, uint64_t mono)
{
	for (uint32_t i = 0; i < st->nnodes; i++) {
		const struct snode *nd = &st->nodes[i];
		if (nd->idx != node)
			continue;
		if (!nd->anchor_real)
			return 0;
		return (uint64_t)((int64_t)nd->anchor_real + ((int64_t)mono - (int64_t)nd->anchor_mono));
	}
	return 0;
}

void ilog_stats_summary(struct ilog_stats *st, uint32_t i, struct ilog_stats_summary *s)
{
	memset(s, 0, sizeof(*s));
	if (i >= st->nnodes)
		return;
	const struct snode *nd = &st->nodes[i];
	s->node = nd->idx;
	s->node_name = nd->name;
	s->records = st->records;
	s->cuda = st->cuda;
	s->host = st->host;
	s->snapshots = st->snapshots;
	s->unknown = st->unknown;
	s->start_ns = nd->t0;
	s->end_ns = nd->last_ts;
	for (uint32_t k = 0; k < st->nser; k++)
		if (st->ser[k]->node == nd->idx && st->ser[k]->last_end > s->end_ns)
			s->end_ns = st->ser[k]->last_end;
	s->window_ns = nd->width;
	s->nwindows = nd->nticks;
	s->real_start_ns = ilog_stats_wall(st, nd->idx, nd->t0);
	for (uint32_t k = 0; k < st->nprocs; k++)
		if (st->procs[k]->node == nd->idx && st->procs[k]->ncalls)
			s->processes++;
	const struct ilog_buf *b = &st->loss_src;
	for (size_t off = 0; off < b->len;) {
		size_t n = strlen(b->p + off);
		uint64_t v[2];
		memcpy(v, b->p + off + n + 1, sizeof(v));
		s->lost += v[0];
		s->seen += v[1];
		off += n + 1 + 16;
	}
	s->nsnaps = nd->nsnaps;
	s->ncpu = nd->ncpu;
	s->cpu_avg = nd->nsnaps ? nd->cpu_sum / (double)nd->nsnaps : 0;
	s->cpu_max = nd->cpu_max;
	s->load1_max = nd->load_max;
	s->mem_total = nd->mem_total;
	s->mem_avail_min = nd->avail_min;
	s->swap_total = nd->swap_total;
	s->swap_used_max = nd->swap_used_max;
	s->swap_used_growth = nd->swap_used_max > nd->swap_used_first
				      ? nd->swap_used_max - nd->swap_used_first : 0;
}

static uint64_t node_wall(struct ilog_stats *st, uint32_t node)
{
	for (uint32_t i = 0; i < st->nnodes; i++)
		if (st->nodes[i].idx == node) {
			struct ilog_stats_summary s;
			ilog_stats_summary(st, i, &s);
			return s.end_ns > s.start_ns ? s.end_ns - s.start_ns : 1;
		}
	return 1;
}

static int cmp_rows(const void *a, const void *b)
{
	const struct ilog_stat_row *x = a, *y = b;
	if (x->node != y->node)
		return x->node < y->node ? -1 : 1;
	if (x->start_ns != y->start_ns)
		return x->start_ns < y->start_ns ? -1 : 1;
	if (x->pid != y->pid)
		return x->pid < y->pid ? -1 : 1;
	if (x->total_ns != y->total_ns)
		return x->total_ns > y->total_ns ? -1 : 1;
	return x->op < y->op ? -1 : x->op > y->op;
}

/* Rows for [a,b) windows of the series group; whole run when a == UINT32_MAX. */
static int fill_row(struct ilog_stat_row *row, struct sseries **g,
		    uint32_t ng, uint32_t a, uint32_t b, double wall)
{
	struct dhist acc = { 0 };
	for (uint32_t i = 0; i < ng; i++) {
		struct dhist h;
		if (ilog_dhist_series(&h, g[i], a, b, NULL, 0))
			return -1;
		if (!h.n)
			continue;
		if (!acc.c) {
			acc = h;
			continue;
		}
		for (uint32_t j = 0; j < HB_N; j++)
			acc.c[j] += h.c[j];
		if (h.min < acc.min)
			acc.min = h.min;
		if (h.max > acc.max)
			acc.max = h.max;
		acc.n += h.n;
		acc.total += h.total;
		ilog_dhist_free(&h);
	}
	/* launches recorded at entry (--launch-timing N, SPEC §5.4 UNTIMED)
	 * are calls of the row: counted, and timed at the mean of the timed
	 * ones they were sampled beside; the quantiles, min and max are the
	 * timed calls' (as under --sample) */
	uint64_t untimed = 0;
	for (uint32_t i = 0; i < ng; i++) {
		if (a == 0 && b == UINT32_MAX) {
			untimed += g[i]->untimed;
			continue;
		}
		for (uint32_t k = a; k < b && k < g[i]->nt; k++)
			untimed += g[i]->t[k].untimed;
	}
	row->count = acc.n + untimed;
	row->total_ns = acc.total;
	if (untimed && acc.n)
		row->total_ns = ilog_sat_u64((double)acc.total * (double)row->count / (double)acc.n);
	row->min_ns = acc.min;
	row->max_ns = acc.max;
	row->p50_ns = ilog_dhist_quantile(&acc, 0.5);
	row->p95_ns = ilog_dhist_quantile(&acc, 0.95);
	row->p99_ns = ilog_dhist_quantile(&acc, 0.99);
	row->frac = wall > 0 ? (double)row->total_ns / wall : 0;
	for (uint32_t i = 0; i < ng; i++) {
		row->bytes += g[i]->bytes;
		row->errors += g[i]->nerr;
	}
	if (a != 0 || b != UINT32_MAX) {
		row->bytes = row->errors = 0; /* whole-run only */
	}
	ilog_dhist_free(&acc);
	return 0;
}

/* Timed calls of the series g[0..ng) in tick k. */
static uint64_t tick_calls(struct sseries **g, uint32_t ng, uint32_t k)
{
	uint64_t c = 0;
	for (uint32_t i = 0; i < ng; i++)
		c += k < g[i]->nt ? g[i]->t[k].n : 0;
	return c;
}

/* windows: a row per window; chunks (with windows): a row per run of
 * windows holding 1/chunks of the group's timed calls (at least 1) */
static int rows_impl(struct ilog_stats *st, int per_process, int windows, uint32_t chunks,
		     struct ilog_stat_row **out)
{
	*out = NULL;
	uint8_t *done = calloc(st->nser ? st->nser : 1, 1);
	struct sseries **g = malloc((st->nser ? st->nser : 1) * sizeof(*g));
	struct ilog_stat_row *rows = NULL;
	uint32_t nrows = 0, caprows = 0;
	if (!done || !g)
		goto oom;
	for (uint32_t i = 0; i < st->nser; i++) {
		if (done[i])
			continue;
		struct sseries *s = st->ser[i];
		uint32_t ng = 0;
		for (uint32_t j = i; j < st->nser; j++) {
			struct sseries *o = st->ser[j];
			if (!done[j] && o->node == s->node && o->op == s->op && o->layer == s->layer &&
			    (!per_process || o->pid == s->pid)) {
				g[ng++] = o;
				done[j] = 1;
			}
		}
		struct snode *nd = ilog_stats_node(st, s->node);
		double wall = (double)node_wall(st, s->node);
		if (per_process) {
			struct sproc *p = ilog_stats_proc(st, s->node, s->pid);
			wall = p && p->last_end > p->first_ts ? (double)(p->last_end - p->first_ts) : 1;
		}
		uint32_t nw = windows ? nd->nticks : 1;
		uint64_t per = 0;
		for (uint32_t j = 0; chunks && j < ng; j++)
			per += g[j]->n;
		per = chunks ? (per + chunks - 1) / chunks : 0;
		for (uint32_t w = 0, b; w < nw; w = b) {
			struct ilog_stat_row row = { 0 };
			uint32_t a = windows ? w : 0;
			b = windows ? w + 1 : UINT32_MAX;
			if (per) { /* the windows up to the chunk's calls; a last, short one is left out */
				uint64_t c = 0;
				for (b = w; b < nw && c < per; b++)
					c += tick_calls(g, ng, b);
				if (c < per)
					break;
			}
			double span = windows ? (double)nd->width * (b - a) : wall;
			if (fill_row(&row, g, ng, a, b, span))
				goto oom;
			if (!row.count)
				continue;
			row.node = s->node;
			row.node_name = nd->name;
			row.pid = per_process ? s->pid : 0;
			row.comm = per_process ? ilog_stats_comm(st, s->node, s->pid) : "";
			row.layer = s->layer;
			row.op = s->op;
			if (windows) {
				row.start_ns = nd->t0 + (uint64_t)w * nd->width;
				row.end_ns = row.start_ns + (uint64_t)(b - a) * nd->width;
			}
			if (ilog_reserve0((void **)&rows, &caprows, nrows + 1, sizeof(*rows), 16))
				goto oom;
			rows[nrows++] = row;
		}
	}
	free(done);
	free(g);
	if (nrows)
		qsort(rows, nrows, sizeof(*rows), cmp_rows);
	*out = rows;
	return (int)nrows;
oom:
	free(done);
	free(g);
	free(rows);
	return -1;
}

int ilog_stats_rows(struct ilog_stats *st, int per_process, struct ilog_stat_row **rows)
{
	return rows_impl(st, per_process, 0, 0, rows);
}

int ilog_stats_window_rows(struct ilog_stats *st, int per_process, struct ilog_stat_row **rows)
{
	return rows_impl(st, per_process, 1, 0, rows);
}

int ilog_stats_chunk_rows(struct ilog_stats *st, int per_process, uint32_t chunks,
			  struct ilog_stat_row **rows)
{
	return rows_impl(st, per_process, 1, chunks ? chunks : 1, rows);
}

/* ---- processes by container ---- */
static int cproc_cmp(const void *a, const void *b)
{
	const struct ilog_stats_cproc *x = a, *y = b;
	if (x->cuda_ns != y->cuda_ns)
		return x->cuda_ns > y->cuda_ns ? -1 : 1;
	return (x->pid > y->pid) - (x->pid < y->pid);
}

static int cgroup_cmp(const void *a, const void *b)
{
	const struct ilog_stats_container *x = a, *y = b;
	if (!x->label[0] != !y->label[0])
		return x->label[0] ? -1 : 1; /* the host's own last */
	if (!x->calls != !y->calls)
		return x->calls ? -1 : 1;
	if (!x->container_id[0] != !y->container_id[0])
		return x->container_id[0] ? -1 : 1; /* containers before plain cgroups */
	if (x->cuda_ns != y->cuda_ns)
		return x->cuda_ns > y->cuda_ns ? -1 : 1;
	return strcmp(x->label, y->label);
}

void ilog_stats_containers_free(struct ilog_stats_container *c, int n)
{
	for (int i = 0; c && i < n; i++)
		free(c[i].procs);
	free(c);
}

int ilog_stats_containers(struct ilog_stats *st, uint32_t node,
			  struct ilog_stats_container **out)
{
	struct ilog_stats_container *g = NULL;
	uint32_t ng = 0, nctr = 0;
	*out = NULL;
	for (uint32_t k = 0; k < st->nprocs; k++) {
		const struct sproc *p = st->procs[k];
		if (p->node != node || (!p->ctr[0] && !p->ncalls))
			continue;
		uint32_t i = 0;
		while (i < ng && strcmp(g[i].label, p->ctr))
			i++;
		if (i == ng) {
			struct ilog_stats_container *ng2 = realloc(g, (ng + 1) * sizeof(*g));
			if (!ng2)
				goto oom;
			g = ng2;
			g[ng++] = (struct ilog_stats_container){ .label = p->ctr, .pod_uid = p->pod,
								 .container_id = p->cid,
								 .cgroup = p->cgroup };
			nctr += p->ctr[0] != 0;
		}
		uint64_t ns = 0;
		for (uint32_t j = 0; j < st->nser; j++)
			if (st->ser[j]->node == node && st->ser[j]->pid == p->pid)
				ns += st->ser[j]->total;
		struct ilog_stats_cproc *pr = realloc(g[i].procs, (g[i].nprocs + 1) * sizeof(*pr));
		if (!pr)
			goto oom;
		g[i].procs = pr;
		pr[g[i].nprocs++] = (struct ilog_stats_cproc){ p->pid, p->comm, p->ncalls, ns };
		g[i].calls += p->ncalls;
		g[i].cuda_ns += ns;
	}
	if (nctr < 2) {
		ilog_stats_containers_free(g, (int)ng);
		return 0;
	}
	for (uint32_t i = 0; i < ng; i++)
		qsort(g[i].procs, g[i].nprocs, sizeof(*g[i].procs), cproc_cmp);
	qsort(g, ng, sizeof(*g), cgroup_cmp);
	*out = g;
	return (int)ng;
oom:
	ilog_stats_containers_free(g, (int)ng);
	return -1;
}
