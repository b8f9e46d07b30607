// SPDX-License-Identifier: MIT
/*
 * The recorder's windows of a process (format 1.3 and later): the windows
 * its per-window aggregates (blkio, iowait and wait records) name, with
 * the gaps between them as windows of their own, and the process's CUDA
 * calls and time in calls in each.  What the detectors that judge a
 * process's call rate (detect_disk.c, detect_between.c) share.
 */
#include <stdlib.h>
#include "causal_int.h"

#define JOB_DEPTH 8 /* ppid links followed up to the job's process */

int causal_in_job(struct ctx *x, const struct sproc *p, uint32_t pid)
{
	for (int d = 0; d < JOB_DEPTH && pid; d++) {
		if (pid == p->pid)
			return 1;
		const struct sproc *q = ilog_stats_proc(x->st, x->nd->idx, pid);
		if (!q || q->ppid == pid)
			return 0;
		pid = q->ppid;
	}
	return 0;
}

static int by_ts(const void *a, const void *b)
{
	const struct rwin *x = a, *y = b;
	return (x->ts > y->ts) - (x->ts < y->ts);
}

static int by_rate(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return (x > y) - (x < y);
}

uint32_t causal_rwindows(struct ctx *x, uint64_t t0, uint64_t t1, int extend, struct rwin **out)
{
	const struct ilog_stats *st = x->st;
	uint32_t n = 0, cap = st->nblk + st->niow + 1;
	/* extend: room for the windows before the first and after the last */
	uint64_t dmin = UINT64_MAX;
	for (uint32_t i = 0; extend && i < st->niow; i++)
		if (st->iow[i].node == x->nd->idx && st->iow[i].dur && st->iow[i].dur < dmin)
			dmin = st->iow[i].dur;
	uint64_t more = extend && dmin != UINT64_MAX && t1 > t0 ? (t1 - t0) / dmin + 2 : 0;
	if (more > (1u << 20))
		more = 1u << 20;
	struct rwin *w = calloc(cap * 2 + more, sizeof(*w));
	*out = w;
	if (!w)
		return 0;
	for (uint32_t i = 0; i < st->nblk + st->niow; i++) {
		int b = i < st->nblk;
		uint32_t node = b ? st->blk[i].node : st->iow[i - st->nblk].node;
		uint64_t ts = b ? st->blk[i].ts : st->iow[i - st->nblk].ts;
		uint64_t dur = b ? st->blk[i].dur : st->iow[i - st->nblk].dur;
		if (node == x->nd->idx && dur && ts >= t0 && ts + dur <= t1)
			w[n++] = (struct rwin){ .ts = ts, .dur = dur };
	}
	qsort(w, n, sizeof(*w), by_ts);
	uint32_t m = 0;
	for (uint32_t i = 0; i < n; i++)
		if (!m || w[i].ts >= w[m - 1].ts + w[m - 1].dur)
			w[m++] = w[i];
	n = m;
	for (uint32_t i = 0; i + 1 < m; i++) /* gaps: windows of their own */
		if (w[i].ts + w[i].dur < w[i + 1].ts)
			w[n++] = (struct rwin){ .ts = w[i].ts + w[i].dur,
						.dur = w[i + 1].ts - w[i].ts - w[i].dur };
	if (m && more) {
		/* the process's span before the first and after the last: whole
		 * windows of the recorder's length, on the same grid */
		uint64_t d = w[0].dur, a = w[0].ts, b = w[m - 1].ts + w[m - 1].dur;
		for (uint32_t i = 0; i < m; i++)
			d = w[i].dur < d ? w[i].dur : d;
		for (uint64_t k = 1; more && a >= t0 + k * d; k++, more--)
			w[n++] = (struct rwin){ .ts = a - k * d, .dur = d };
		for (uint64_t k = 0; more && b + (k + 1) * d <= t1; k++, more--)
			w[n++] = (struct rwin){ .ts = b + k * d, .dur = d };
	}
	qsort(w, n, sizeof(*w), by_ts);
	return n;
}

int causal_rwin_of(const struct rwin *w, uint32_t n, uint64_t ts)
{
	uint32_t lo = 0, hi = n;
	while (lo < hi) {
		uint32_t mid = lo + (hi - lo) / 2;
		if (w[mid].ts < ts)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo < n && w[lo].ts == ts ? (int)lo : -1;
}

double causal_rwin_calls(struct ctx *x, const struct causal_proc *pc, struct rwin *w, uint32_t nw)
{
	double *rates = calloc(nw ? nw : 1, sizeof(*rates));
	if (!rates) {
		x->oom = 1;
		return 0;
	}
	for (uint32_t j = 0; j < nw; j++) {
		/* the calls of the analysis windows it overlaps, each in the share
		 * of it that the recorder's window covers */
		uint64_t t0 = w[j].ts, t1 = w[j].ts + w[j].dur;
		uint32_t a = tick_at(x, t0), b = tick_at(x, t1);
		double n = 0, busy = 0;
		for (uint32_t k = a; k <= b; k++) {
			uint64_t k0 = tick_ts(x, k), k1 = k0 + x->nd->width;
			uint64_t o0 = k0 > t0 ? k0 : t0, o1 = k1 < t1 ? k1 : t1;
			if (o1 <= o0)
				continue;
			double share = (double)(o1 - o0) / (double)x->nd->width;
			for (uint32_t i = 0; i < pc->ns; i++) {
				const struct sseries *s = pc->ser[i];
				if (k >= s->nt)
					continue;
				double mean = s->n ? (double)s->total / (double)s->n : 0;
				n += (double)causal_tick_calls(&s->t[k]) * share;
				busy += ((double)s->t[k].total + (double)s->t[k].untimed * mean) * share;
			}
		}
		w[j].calls = (uint64_t)(n + 0.5);
		w[j].busy = busy;
		rates[j] = (double)w[j].calls / (double)w[j].dur;
	}
	qsort(rates, nw, sizeof(*rates), by_rate);
	double med = nw ? rates[nw / 2] : 0;
	free(rates);
	return med;
}

void causal_rwin_metrics(struct cand *c, const struct rwin *w, uint32_t nw, uint64_t ta,
			 uint64_t tb, uint64_t calls_in, uint64_t calls_out, double r_in,
			 double r_out, double med)
{
	causal_met_u(c, "iv_from_ns", ta);
	causal_met_u(c, "iv_to_ns", tb);
	causal_met_u(c, "base_from_ns", w[0].ts);
	causal_met_u(c, "base_to_ns", w[nw - 1].ts + w[nw - 1].dur);
	causal_met_u(c, "calls_in", calls_in);
	causal_met_u(c, "calls_out", calls_out);
	causal_met_f(c, "calls_per_s_in", r_in);
	causal_met_f(c, "calls_per_s_out", r_out);
	causal_met_f(c, "calls_per_s_median", med * 1e9);
}
