// SPDX-License-Identifier: MIT
/*
 * Detector: periodic spikes - slow calls of one series, outside its
 * anomalous intervals, that come in a rhythm (a task every few seconds,
 * the caching allocator going back to the driver).  Spikes the calling
 * threads' time off the CPU accounts for (a loaded host's scheduler
 * delaying wakeups or preempting every slice) are the CPU's, not a
 * periodic stall.
 */
#include <stdlib.h>
#include "causal_int.h"

static int cmp_call_ts(const void *a, const void *b)
{
	const struct scall *x = a, *y = b;
	return x->ts < y->ts ? -1 : x->ts > y->ts;
}

static void periodic(struct ctx *x, struct causal_proc *pc, const struct causal_series *sc)
{
	const struct sproc *p = pc->p;
	const struct sseries *s = sc->s;
	const struct base *bs = &sc->bs;
	uint32_t ncold = sc->ncold;
	const uint8_t *inany = sc->hide;
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
	int partial = !causal_top_complete(s, bs->thr);
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
	/*
	 * Spikes are also more than the op's spread predicts: as many outliers
	 * as a log-normal through the quartiles of its calls puts above the
	 * group (the geometric middle of the gap below it, from its break or
	 * from the outlier threshold: no call lies in that gap) are
	 * jitter, and a dozen of those fall into a rhythm by chance (a clean
	 * 3-thread synchronize loop with 38% jitter "stalled every 53.5 ms").
	 * The test is the isolated stalls' (causal_find_stalls).
	 */
	struct lognorm fit;
	int have_fit = 0;
	uint64_t n = 0;
	uint64_t durs[NTOP], cut = 0, at = 0;
	double gmed = 0, expect = 0;
	for (uint32_t i = 0; i < m; i++)
		durs[i] = v[i].dur;
	qsort(durs, m, sizeof(*durs), cmp_u64);
	struct causal_brk br[NTOP];
	uint32_t nbr = causal_breaks(durs, m, 4, br); /* keep >= 4 above the break */
	struct scall grp[NTOP];
	uint32_t ng = 0;
	double alpha = ILOG_FAMILY_ALPHA / ((double)(nbr + 1) * (pc->ns ? pc->ns : 1));
	/* then all outliers, when all of them are known */
	for (uint32_t b = 0; b <= nbr && !ng; b++) {
		if (b == nbr && partial)
			break;
		cut = b < nbr ? durs[br[b].i] : 0;
		/* the middle of the empty gap below the group: from the break's
		 * lower edge, or the threshold for all outliers */
		at = causal_gap_mid(b < nbr ? cut : bs->thr, durs[b < nbr ? br[b].i + 1 : 0]);
		for (uint32_t k = 0; k < m; k++)
			if (v[k].dur > cut)
				grp[ng++] = v[k];
		if (!causal_rhythm(grp, ng, &gmed)) {
			ng = 0;
			continue;
		}
		/* the fit, once, when a group keeps a rhythm */
		if (!have_fit) {
			struct dhist h;
			if (ilog_dhist_series(&h, s, 0, x->T, inany, 0)) {
				x->oom = 1;
				return;
			}
			causal_lognorm(&h, &fit);
			n = h.n;
			ilog_dhist_free(&h);
			for (uint32_t i = 0; i < ncold; i++)
				if (!inany[tick_at(x, s->first[i].ts)] && n)
					n--;
			have_fit = 1;
		}
		if (!causal_lognorm_exceeds(&fit, n, ng, at, alpha, &expect))
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
	uint8_t *mark = calloc(x->T, 1);
	if (!mark) {
		x->oom = 1;
		return;
	}
	for (uint32_t i = 0; i < m; i++)
		mark[tick_at(x, v[i].ts)] = 1;
	double off_excess, off_in;
	int cpu = causal_offcpu_explains(x, p, mark, pc->lo, pc->hi, lost, &off_excess, &off_in);
	/*
	 * A collective's spikes around most of which the node retransmitted
	 * are the network's: a segment lost with none after it is resent at
	 * its timeout (200 ms or more), so a lossy flow's stalls come as alike
	 * as a task's and may fall into a rhythm by chance; the isolated-stall
	 * detector names the flow.  Beside two CPU hogs the net-retrans demo's
	 * nine 205-ms allreduce stalls "came every 311 ms".
	 */
	int net = 0;
	if (net_op(s) && causal_net_bytes(x, p->pid, pc->lo, pc->hi, NULL)) {
		if (causal_sig_flags(x, &pc->g, mark, pc->lo, pc->hi)) {
			free(mark);
			x->oom = 1;
			return;
		}
		net = causal_call_coverage(x, v, m, pc->g.fnet) >= ILOG_COVERAGE;
		/* the flags of the series' intervals again, for whoever reads
		 * them next */
		if (sc->niv && causal_sig_flags(x, &pc->g, sc->inany, pc->lo, pc->hi)) {
			free(mark);
			x->oom = 1;
			return;
		}
	}
	free(mark);
	if (net)
		return;
	/*
	 * Also the CPU's when the threads were off-CPU in the spikes' windows
	 * at least as long as the spikes lost, on a host busy all along (no
	 * excess over the other windows): the scheduler preempting a thread
	 * after each slice of a loop's work delays the same call of each
	 * iteration, a rhythm that is the loaded host's.  Beside two CPU hogs
	 * a clean loop's first copy after its launches "stalled every 3.21
	 * ms", 76 ms lost, in windows where its thread was preempted or
	 * waiting for a CPU 112 ms (81 ms inside those very copies).  Spikes
	 * of a job's own task spend their time in the task, not off-CPU.
	 */
	if (cpu || off_in >= (double)lost)
		return;
	/* the rhythm is its cgroup's CPU quota period (detect_throttle.c) */
	if (causal_quota_held(x, p->pid, v[0].ts, v[m - 1].ts + v[m - 1].dur + 1, (double)lost))
		return;
	struct cand *c = causal_cand_new(x, p, ILOG_PAT_PERIODIC_SPIKE, s->op, v[0].ts,
					 v[m - 1].ts + v[m - 1].dur, lost);
	if (!c)
		return;
	snprintf(c->root, sizeof(c->root),
		 "%s in PID %u (%s) stalls every %s: %u calls took %s (median) against a median of "
		 "%s for all %llu calls, costing %s (%s of its %s)",
		 opn(s->op), p->pid, c->comm, D(x, gmed), m, D(x, (double)dmed), D(x, (double)bs->med),
		 (unsigned long long)causal_ser_calls(s), D(x, (double)lost), P(x, (double)lost / (double)c->wall),
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
	causal_met_s(c, "op", opn(s->op));
	causal_met_u(c, "spikes", m);
	causal_met_u(c, "period_ns", (uint64_t)gmed);
	causal_met_u(c, "spike_median_ns", dmed);
	causal_met_u(c, "median_ns", bs->med);
	causal_met_u(c, "calls", causal_ser_calls(s));
	causal_met_u(c, "outlier_threshold_ns", bs->thr);
	causal_met_u(c, "spike_threshold_ns", cut > bs->thr ? cut : bs->thr);
	/* the spread's test: the calls the fit predicts above this point */
	causal_met_u(c, "expected_at_ns", at);
	causal_met_f(c, "expected_above_threshold", expect);
	causal_met_u(c, "calls_considered", n);
	causal_met_u(c, "fit_q1_ns", fit.q[0]);
	causal_met_u(c, "fit_median_ns", fit.q[1]);
	causal_met_u(c, "fit_q3_ns", fit.q[2]);
	causal_met_f(c, "fit_sigma", fit.sig);
	causal_met_u(c, "lost_ns", lost);
	/* the spikes are the calls above the threshold in [ts_start, ts_end)
	 * outside these intervals */
	causal_met_anomalies(x, c, inany);
	for (uint32_t i = 0; i < m && i < 6; i++)
		causal_ev_add(x, c, v[i].ts, "%s took %s (tid %u)", opn(s->op),
			      D(x, (double)v[i].dur), v[i].tid);
	if (m > 6)
		causal_ev_add(x, c, v[m - 1].ts, "... %u spikes in all, the last took %s", m,
			      D(x, (double)v[m - 1].dur));
}

const struct causal_detector causal_detector_periodic = {
	"periodic", CAUSAL_SERIES_ANALYZED, periodic,
};
