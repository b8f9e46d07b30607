// SPDX-License-Identifier: MIT
/*
 * The slow calls of a series, for the detectors of spikes and stalls and
 * for the anomalous intervals that hold stalls (causal_int.h): breaks in
 * their sorted durations, the rhythm of their gaps, and the isolated
 * stalls.  It calls nothing of the engine or the detectors: the engine
 * (causal_series.c) and the detectors (detect_periodic.c,
 * detect_isolated.c) call it.
 *
 * The stalls are found like the periodic spikes (detect_periodic.c): the
 * outliers of the series (median + 3.5 x 1.4826 x MAD, causal_series.c),
 * and the groups tried are the outliers above each break in their sorted
 * durations with >= 4 above it, or above a break between the outlier
 * threshold and all of them (widest break first: a mode of their own,
 * "bimodal"), then all outliers (no break: a "heavy tail").  A group is
 * taken when
 *   - it holds at most ILOG_ISOLATED_SHARE of the op's calls (isolated: a
 *     larger share is a slowdown of the op, not stalls), and
 *   - it is more calls than the spread of the op's calls predicts: a
 *     log-normal through their quartiles (median e^mu, sigma = IQR of the
 *     logs / 1.349, at least the histogram's resolution) puts a share p of
 *     the calls above the group's lower edge; the group's count k of the n
 *     calls must have a Chernoff-bounded P(X >= k), X ~ Binomial(n, p),
 *     below ILOG_FAMILY_ALPHA / (groups tried x the process's series), so
 *     plain jitter, however wide, never makes a chain.
 * The time lost is the stalls' time above the op's median, less the time
 * above the median the log-normal itself puts above the group's edge c:
 * n (E[X; X > c] - median P(X > c)), E[X; X > c] = e^(mu + sigma^2 / 2)
 * Phi((mu + sigma^2 - ln c) / sigma) (a heavy tail only a little thicker
 * than the fit costs little; stalls far beyond the spread cost it all).
 */
#include <math.h>
#include <stdlib.h>
#include "causal_int.h"

/* Calls of h in buckets above cut's bucket: how many, their sum and the
 * representative of the one of rank r (1-based; 0 = none asked). */
static uint64_t hist_above(const struct dhist *h, uint64_t cut, double *sum, uint64_t r,
			   uint64_t *at_r)
{
	uint64_t k = 0;
	*sum = 0;
	if (!h->c)
		return 0;
	for (uint32_t i = hb_index(cut) + 1; i < HB_N; i++) {
		if (!h->c[i])
			continue;
		uint64_t rep = ilog_hb_rep(i);
		if (rep > h->max)
			rep = h->max;
		if (r && k < r && k + h->c[i] >= r)
			*at_r = rep;
		k += h->c[i];
		*sum += (double)h->c[i] * (double)rep;
	}
	return k;
}

static int cmp_dur(const void *a, const void *b)
{
	const struct scall *x = a, *y = b;
	return x->dur < y->dur ? -1 : x->dur > y->dur;
}

int causal_top_complete(const struct sseries *s, uint64_t thr)
{
	if (s->ntop < NTOP || s->n <= NTOP)
		return 1;
	for (uint32_t i = 0; i < s->ntop; i++)
		if (s->top[i].dur <= thr)
			return 1; /* the list reaches below thr */
	return 0;
}

double causal_gap_rcv(const struct scall *v, uint32_t m, double *period)
{
	double g[NTOP];
	for (uint32_t i = 0; i + 1 < m && i < NTOP; i++)
		g[i] = (double)(v[i + 1].ts - v[i].ts);
	double gmed, gmad;
	ilog_robust(g, m > NTOP + 1 ? NTOP : m - 1, &gmed, &gmad);
	*period = gmed;
	return gmed > 0 ? 1.4826 * gmad / gmed : 0;
}

int causal_rhythm(const struct scall *v, uint32_t m, double *period)
{
	double r = causal_gap_rcv(v, m, period);
	if (!(*period > 0 && r < ILOG_PERIODIC_RCV))
		return 0;
	/* and the time between them, from one's end to the next one's start:
	 * stalls that fill most of the time between them are as far apart as
	 * they are long, however randomly they come (1 all-reduce in 7 stalled
	 * 200 ms at random "stalled every 217 ms"); a rhythm of a clock or of
	 * every Nth step keeps that time regular too (calls that overlap
	 * leave none: their starts alone say) */
	double g[NTOP], gmed, gmad;
	uint32_t n = 0;
	for (uint32_t i = 0; i + 1 < m && i < NTOP; i++) {
		uint64_t end = v[i].ts + v[i].dur;
		g[n++] = v[i + 1].ts > end ? (double)(v[i + 1].ts - end) : 0;
	}
	ilog_robust(g, n, &gmed, &gmad);
	return gmed <= 0 || 1.4826 * gmad / gmed < ILOG_PERIODIC_RCV;
}

uint32_t causal_breaks(const uint64_t *durs, uint32_t m, uint32_t min_above,
		       struct causal_brk *br)
{
	uint32_t nbr = 0;
	for (uint32_t i = 0; i + min_above < m; i++) {
		uint32_t na = m - 1 - i;
		double r = (double)durs[i + 1] / (double)durs[i];
		double spread = (double)durs[i + ilog_rank(0.75, na)] / (double)durs[i + 1];
		if (r >= ILOG_SPIKE_BREAK && r > spread)
			br[nbr++] = (struct causal_brk){ r, i };
	}
	for (uint32_t i = 1; i < nbr; i++) /* widest first; stable */
		for (uint32_t j = i; j > 0 && br[j].r > br[j - 1].r; j--) {
			struct causal_brk t = br[j];
			br[j] = br[j - 1];
			br[j - 1] = t;
		}
	return nbr;
}

void causal_lognorm(const struct dhist *h, struct lognorm *f)
{
	f->q[0] = ilog_dhist_quantile(h, 0.25);
	f->q[1] = ilog_dhist_quantile(h, 0.5) | 1;
	f->q[2] = ilog_dhist_quantile(h, 0.75);
	double q1 = (double)f->q[0], q3 = (double)f->q[2];
	f->mu = log((double)f->q[1]);
	f->sig = log((q3 > 1 ? q3 : 1) / (q1 > 1 ? q1 : 1)) / 1.349;
	if (f->sig < log(1 + 1.0 / HB_SUB) / 1.349)
		f->sig = log(1 + 1.0 / HB_SUB) / 1.349;
}

double causal_lognorm_above(const struct lognorm *f, double d)
{
	return 0.5 * erfc((log(d) - f->mu) / (f->sig * M_SQRT2));
}

int causal_lognorm_exceeds(const struct lognorm *f, uint64_t n, uint64_t k, uint64_t at,
			   double alpha, double *expect)
{
	double p = causal_lognorm_above(f, (double)(at ? at : 1));
	*expect = p * (double)n;
	return ilog_chernoff(n, k, p) < alpha;
}

int causal_find_stalls(struct ctx *x, struct causal_proc *pc, const struct causal_series *sc,
		       const uint8_t *skip, int frequent, struct stalls *out)
{
	const struct sseries *s = sc->s;
	const struct base *bs = &sc->bs;
	struct dhist h;
	memset(out, 0, sizeof(*out));
	if (ilog_dhist_series(&h, s, 0, x->T, skip, 0)) /* skip has T entries */
		return -1;
	uint64_t cut0 = bs_stall_cut(bs);
	uint64_t cold_ts = sc->ncold ? s->first[sc->ncold - 1].ts : 0;
	uint64_t ncold_out = 0, kcold = 0;
	double cold_sum = 0;
	for (uint32_t i = 0; i < sc->ncold; i++)
		if (!skip[tick_at(x, s->first[i].ts)]) {
			ncold_out++;
			if (s->first[i].dur > cut0)
				kcold++, cold_sum += (double)s->first[i].dur;
		}
	uint64_t n = h.n - ncold_out;
	int rc = -1, found = 0;
	struct scall *v = malloc(NTOP * sizeof(*v));
	uint64_t *durs = malloc((NTOP + 1) * sizeof(*durs));
	struct causal_brk *br = malloc((NTOP + 1) * sizeof(*br));
	if (!v || !durs || !br)
		goto out;
	rc = 0;
	if (n < ILOG_MIN_SERIES)
		goto out;
	struct lognorm fit;
	causal_lognorm(&h, &fit);
	double mu = fit.mu, sig = fit.sig;
	/* the outliers kept verbatim, slowest last */
	uint32_t m = 0;
	for (uint32_t i = 0; i < s->ntop; i++)
		if (s->top[i].dur > cut0 && !skip[tick_at(x, s->top[i].ts)] &&
		    !(sc->ncold && s->top[i].ts <= cold_ts))
			v[m++] = s->top[i];
	qsort(v, m, sizeof(*v), cmp_dur);
	int all_kept = causal_top_complete(s, cut0);
	/* breaks; the threshold is the lowest value when every outlier is kept */
	uint32_t base = all_kept ? 1 : 0;
	durs[0] = cut0;
	for (uint32_t i = 0; i < m; i++)
		durs[base + i] = v[i].dur;
	/* a mode of its own is >= 4 calls above a break among them (the top few
	 * of a heavy tail are far apart), or any number above the threshold */
	uint32_t nbr = causal_breaks(durs, m + base, 1, br), nb = 0;
	for (uint32_t b = 0; b < nbr; b++)
		if ((base && br[b].i == 0) || m + base - 1 - br[b].i >= 4)
			br[nb++] = br[b];
	nbr = nb;
	double alpha = ILOG_FAMILY_ALPHA / ((double)(nbr + 1) * (pc->ns ? pc->ns : 1));
	for (uint32_t b = 0; b < nbr + !frequent && !found; b++) {
		struct stalls g = { .n = n, .frequent = frequent };
		double sum = 0;
		if (b < nbr) {
			g.cut = durs[br[b].i];
			g.ratio = br[b].r;
			g.lo = durs[br[b].i];
			g.hi = durs[br[b].i + 1];
			g.m = m - (br[b].i + 1 - base);
			g.v = v + (m - g.m);
			g.k = g.m;
			for (uint32_t i = 0; i < g.m; i++)
				sum += (double)g.v[i].dur;
			g.med = g.v[ilog_rank(0.5, g.m) - 1].dur;
		} else { /* all outliers */
			g.cut = cut0;
			g.v = v;
			g.m = m;
			if (all_kept) {
				g.k = m;
				for (uint32_t i = 0; i < m; i++)
					sum += (double)v[i].dur;
				if (m)
					g.med = v[ilog_rank(0.5, m) - 1].dur;
			} else {
				/* more than are kept: the histogram's count, less the
				 * cold calls (the median stays near enough) */
				double dummy;
				uint64_t all = hist_above(&h, cut0, &sum, 0, &g.med);
				hist_above(&h, cut0, &dummy, ilog_rank(0.5, all), &g.med);
				g.k = all - kcold;
				sum -= cold_sum;
			}
		}
		if (!g.k || ((double)g.k > ILOG_ISOLATED_SHARE * (double)n) != frequent)
			continue;
		/* a mode of its own is judged in the middle of its break: no
		 * call lies between lo and hi, so the stalls are as many above
		 * any point of the gap, and the log-normal of a spread-out bulk
		 * (a loaded host's) predicts far fewer there than at lo, while
		 * hi, chosen by the data as the group's floor, would credit
		 * the whole gap; a heavy tail at its threshold */
		g.at = g.ratio > 0 ? causal_gap_mid(g.lo, g.hi) : g.cut;
		if (g.at <= g.cut)
			g.at = g.cut;
		if (!causal_lognorm_exceeds(&fit, n, g.k, g.at, alpha, &g.expect))
			continue;
		/* the cost: above the median, less what the spread puts above cut */
		double p = causal_lognorm_above(&fit, (double)g.cut);
		g.above = sum - (double)g.k * (double)bs->med;
		double part = exp(mu + sig * sig / 2) *
			      0.5 * erfc((log((double)g.cut) - mu - sig * sig) / (sig * M_SQRT2));
		g.spread = (double)n * (part - (double)bs->med * p);
		if (g.spread < 0)
			g.spread = 0;
		g.lost = g.above > g.spread ? g.above - g.spread : 0;
		g.mu = mu;
		g.sig = sig;
		memcpy(g.q, fit.q, sizeof(fit.q));
		g.buf = v;
		*out = g;
		found = 1;
	}
	rc = found;
out:
	if (!found)
		free(v);
	free(durs);
	free(br);
	ilog_dhist_free(&h);
	return rc;
}

/*
 * Calls slower than cut in the windows of [a, b) (skip: with those set left
 * out; NULL none): how many of how many, and the time of both.
 */
static int above_in(const struct sseries *s, uint32_t a, uint32_t b,
		    const uint8_t *skip, uint64_t cut, uint64_t *k, double *ksum, uint64_t *n,
		    double *total)
{
	struct dhist h;
	if (ilog_dhist_series(&h, s, a, b, skip, 0))
		return -1;
	*k = hist_above(&h, cut, ksum, 0, &(uint64_t){ 0 });
	*n = h.n;
	*total = (double)h.total;
	ilog_dhist_free(&h);
	return 0;
}

int causal_isolated_intervals(struct ctx *x, struct causal_proc *pc, struct causal_series *sc)
{
	const struct sseries *s = sc->s;
	struct stalls g;
	int rc = causal_find_stalls(x, pc, sc, sc->inany, 0, &g), whole = 0;
	if (rc == 0) {
		/* none outside: on a loaded host the intervals can hold nearly all
		 * the run and its stalls with it - look for them in every call,
		 * at their rate over the whole series */
		uint8_t *none = calloc(x->T ? x->T : 1, 1);
		if (!none)
			return -1;
		rc = causal_find_stalls(x, pc, sc, none, 0, &g);
		free(none);
		whole = 1;
	}
	if (rc <= 0)
		return rc;
	free(g.buf);
	/* the stalls' rate and the op's time outside all intervals, less them */
	uint64_t ko, no, ki, ni, ka, na;
	double kso, to, ksi, ti, ksa, ta;
	if (above_in(s, 0, x->T, sc->inany, g.cut, &ko, &kso, &no, &to))
		return -1;
	if (no <= ko)
		return 0;
	double rate = (double)ko / (double)no, mean = (to - kso) / (double)(no - ko);
	if (whole) {
		if (above_in(s, 0, x->T, NULL, g.cut, &ka, &ksa, &na, &ta))
			return -1;
		rate = na ? (double)ka / (double)na : 0;
	}
	double min = ILOG_MATERIAL_SHARE * (double)(pc->p->last_end - pc->p->first_ts);
	uint32_t kept = 0, niv = sc->niv;
	for (uint32_t j = 0; j < niv; j++) {
		struct ival iv = sc->iv[j];
		if (above_in(s, iv.a, iv.b, NULL, g.cut, &ki, &ksi, &ni, &ti))
			return -1;
		/* stalls there at their random rate */
		int stalls = ki && ilog_chernoff(ni, ki, rate) >= ILOG_FAMILY_ALPHA / niv;
		if (stalls && (ti - ksi) - (double)(ni - ki) * mean < min)
			continue; /* and little cost without them */
		sc->iv[kept++] = iv;
		for (uint32_t k = iv.a; k < iv.b && stalls; k++)
			sc->hide[k] = 0;
	}
	sc->niv = kept;
	memset(sc->inany, 0, x->T);
	for (uint32_t j = 0; j < kept; j++)
		for (uint32_t k = sc->iv[j].a; k < sc->iv[j].b; k++)
			sc->inany[k] = 1;
	for (uint32_t k = 0; k < x->T; k++)
		sc->hide[k] &= sc->inany[k];
	return 0;
}

