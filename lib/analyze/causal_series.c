// SPDX-License-Identifier: MIT
/*
 * The analysis of one (process, op) series that the series detectors
 * share (causal_int.h): its baseline (the outlier threshold), its cold
 * calls, and its anomalous intervals - runs of analysis windows whose
 * share of slow calls is significantly above the quiet windows' - with
 * the host signals flagged against them.
 */
#include <stdlib.h>
#include "causal_int.h"

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

/*
 * Runs of windows that lean the same way: a slowdown that also cuts the
 * op's call rate leaves each window few calls (windows are sized at the
 * average rate), so on a host whose quiet windows already have many calls
 * above the threshold no window of a long slow stretch is significant
 * alone.  For each test, every maximal run of windows leaning its way
 * (empty windows inside do not break it) is tested again on its pooled
 * counts, at the family rate shared over every contiguous run of the ng
 * windows and both tests (ng (ng + 1) of them): a long run of leaning
 * windows is the anomaly, however few calls each holds.
 */
static void mark_runs(const uint64_t *const cnt[2], const uint64_t *n, const double p0[2],
		      uint32_t NG, uint32_t ng, uint8_t *gh)
{
	double alpha = ILOG_FAMILY_ALPHA / ((double)ng * (double)(ng + 1) + 1);
	for (int t = 0; t < 2; t++)
		for (uint32_t g = 0; g < NG;) {
			if (!n[g] || (double)cnt[t][g] / (double)n[g] <= p0[t]) {
				g++;
				continue;
			}
			uint64_t sn = 0, sc = 0;
			uint32_t end = g, full = 0, fresh = 0;
			for (uint32_t j = g; j < NG; j++) {
				if (!n[j])
					continue;
				if ((double)cnt[t][j] / (double)n[j] <= p0[t])
					break;
				sn += n[j], sc += cnt[t][j];
				end = j, full++, fresh += !gh[j];
			}
			if (full > 1 && fresh && ilog_chernoff(sn, sc, p0[t]) < alpha)
				for (uint32_t j = g; j <= end; j++)
					if (n[j])
						gh[j] = 1;
			g = end + 1;
		}
}

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
	uint64_t *u = calloc(NG, sizeof(*u));
	uint8_t *gh = calloc(NG, 1);
	if (!fr || !o || !n || !u || !gh) {
		free(fr);
		free(o);
		free(n);
		free(u);
		free(gh);
		x->oom = 1;
		return 0;
	}
	/* an op so steady that its outlier threshold is a few percent over
	 * its median: a drift no one would call a slowdown is none, however
	 * many calls make it significant.  In a quiet CI run, the
	 * isolated-stalls demo's synchronize (2.12 ms, outlier threshold 1.4%
	 * over the median) got a 6.4 s interval that hid 9 of its 12 real
	 * 200 ms stalls from the isolated stall rule.  For such an op both
	 * tests count only calls ILOG_DRIFT_MIN over the median; for the
	 * others nothing changes. */
	uint64_t drift = ilog_sat_add(bs->med, (uint64_t)((double)bs->med * ILOG_DRIFT_MIN));
	int tight = bs->thr < drift;
	uint64_t tthr = tight ? drift : bs->thr, mthr = tight ? drift : bs->med;
	for (uint32_t k = 0; k < T; k++) {
		o[k / G] += ilog_tick_above(&s->t[k], tthr);
		u[k / G] += ilog_tick_above(&s->t[k], mthr);
		n[k / G] += s->t[k].n;
	}
	/*
	 * Two one-sided tests per window, each against the rate of the quiet
	 * half of the windows (Laplace-smoothed): the tail (calls above the
	 * outlier threshold) and the shift (calls above the op's median, a
	 * sign test; for a steady op both ILOG_DRIFT_MIN over it) - a
	 * slowdown of every call is not a tail.
	 */
	const uint64_t *cnt[2] = { o, u };
	double p0[2];
	for (int t = 0; t < 2; t++) {
		ng = 0;
		for (uint32_t g = 0; g < NG; g++)
			if (n[g])
				fr[ng++] = (double)cnt[t][g] / (double)n[g];
		double fmed, fmad;
		ilog_robust(fr, ng, &fmed, &fmad);
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
			    ilog_chernoff(n[g], cnt[t][g], p0[t]) < alpha)
				gh[g] = 1;
	mark_runs(cnt, n, p0, NG, ng, gh);
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

int causal_series_begin(struct ctx *x, struct causal_proc *pc, struct causal_series *sc)
{
	const struct sseries *s = sc->s;
	if (base_of(s, &sc->bs))
		return -1;
	/* cold calls: the leading run of outliers */
	uint32_t nc = 0;
	uint64_t cl_lost = 0;
	while (nc < s->nfirst && nc + 1 < s->n && s->first[nc].dur > sc->bs.thr) {
		cl_lost += s->first[nc].dur - sc->bs.med;
		nc++;
	}
	sc->ncold = nc;
	sc->cold_end = 0;
	if (nc) {
		pc->cl[pc->ncl++] = (struct cold){ s, nc, cl_lost, s->first[0].dur, sc->bs.med };
		sc->cold_end = tick_at(x, s->first[nc - 1].ts + s->first[nc - 1].dur) + 1;
	}
	return 0;
}

int causal_series_anomalies(struct ctx *x, struct causal_proc *pc, struct causal_series *sc)
{
	const struct sseries *s = sc->s;
	const struct sproc *p = pc->p;
	struct ival *iv = sc->iv;
	uint8_t *inany = sc->inany;
	uint32_t niv = find_intervals(x, s, &sc->bs, sc->hot, iv,
				       sizeof(sc->iv) / sizeof(sc->iv[0]));
	memset(inany, 0, x->T);
	for (uint32_t j = 0; j < niv; j++)
		for (uint32_t k = iv[j].a; k < iv[j].b; k++)
			inany[k] = 1;
	/* an interval that cost less than the smallest reported impact is
	 * not an anomaly: it neither gets a chain nor hides spikes */
	uint32_t kept = 0;
	for (uint32_t j = 0; j < niv; j++)
		if ((double)interval_lost(s, iv[j], inany, x->T) >=
		    ILOG_MATERIAL_SHARE * (double)(p->last_end - p->first_ts))
			iv[kept++] = iv[j];
	niv = kept;
	memset(inany, 0, x->T);
	for (uint32_t j = 0; j < niv; j++)
		for (uint32_t k = iv[j].a; k < iv[j].b; k++)
			inany[k] = 1;
	sc->niv = niv;
	/* nor is one that only holds isolated stalls */
	memcpy(sc->hide, inany, x->T);
	if (niv && causal_isolated_intervals(x, pc, sc))
		return -1;
	niv = sc->niv;
	if (niv && causal_sig_flags(x, &pc->g, inany, pc->lo, pc->hi))
		return -1;
	return 0;
}
