// SPDX-License-Identifier: MIT
/*
 * Detector: isolated stalls - an op whose lost time sits in a few of its
 * calls at random times: calls outside its anomalous intervals (the
 * interval chains explain those), after its cold calls (the cold-start
 * chain), in a series with no periodic-spike chain (a rhythm explains
 * them), that are too many and too slow for the spread of its other calls.
 *
 * The stalls are found by causal_find_stalls (causal_stalls.c, which
 * says how), and the time they lost with them.  The severity follows from
 * it like every chain's (a few calls can cost a quarter of the run).  The
 * side is judged on the stalls' windows with the interval
 * chains' evidence rules: the calling threads' off-CPU time there above
 * its rate elsewhere accounts for half the lost time (host: the top
 * preempter); other processes' CUDA calls or host memory scarcity flagged
 * around most stalls (GPU shared with that process; host memory);
 * otherwise the GPU work itself stalled.
 */
#include <math.h>
#include <stdlib.h>
#include "causal_int.h"

static void isolated_chain(struct ctx *x, struct causal_proc *pc, const struct causal_series *sc,
			   struct stalls *st);

static void isolated(struct ctx *x, struct causal_proc *pc, const struct causal_series *sc)
{
	struct stalls g;
	int rc = causal_find_stalls(x, pc, sc, sc->hide, 0, &g);
	/* none isolated: a collective's stalls may be too many for that (a
	 * lossy flow all run long); the chain keeps them only when the
	 * network accounts for them (isolated_chain) */
	if (rc == 0 && net_op(sc->s) &&
	    causal_net_bytes(x, pc->p->pid, pc->lo, pc->hi, NULL) > 0)
		rc = causal_find_stalls(x, pc, sc, sc->hide, 1, &g);
	if (rc < 0)
		x->oom = 1;
	if (rc <= 0)
		return;
	/*
	 * A rhythm explains them: the series' periodic-spike chain, unless the
	 * stalls (all of them kept) keep no rhythm of their own - then that
	 * chain found its rhythm only with the op's small outliers mixed in,
	 * and the stalls are what cost the time.
	 */
	struct scall *t = malloc((g.m ? g.m : 1) * sizeof(*t));
	double period = 0;
	if (!t) {
		x->oom = 1;
		goto out;
	}
	memcpy(t, g.v, g.m * sizeof(*t));
	qsort(t, g.m, sizeof(*t), cmp_ts);
	int own = g.m == g.k && g.m >= 4 && !causal_rhythm(t, g.m, &period);
	free(t);
	for (uint32_t i = pc->before; i < x->n; i++)
		if (x->c[i].op == sc->s->op && x->c[i].pattern == ILOG_PAT_PERIODIC_SPIKE &&
		    !x->c[i].dead) {
			if (!own)
				goto out;
			x->c[i].dead = 1;
		}
	if (g.lost > 0)
		isolated_chain(x, pc, sc, &g);
out:
	free(g.buf);
}

#define FIX_GPU_STALL \
	"Look at what the GPU ran before the slow calls (their times are in the timeline): " \
	"compare those iterations with the others in Nsight Systems (an occasional much " \
	"larger or data-dependent kernel, a copy queued before the wait, a library's lazy " \
	"work), and check clocks, throttling and Xid errors at those times " \
	"(nvidia-smi -q -d PERFORMANCE, dmesg)."

/* What the stalls' windows hold. */
struct stall_ev {
	struct offcpu oc;         /* the calling threads' off-CPU accounting there */
	double cov_gpu, cov_mem;  /* share of the stalls other processes' CUDA calls, host
				   * memory scarcity were flagged around */
	uint32_t nwin;            /* ticks the windows cover */
	uint64_t oth;             /* all other processes' CUDA calls there */
	uint32_t opid;            /* ... of which this one made the most, */
	uint64_t on;              /* this many */
	uint64_t pg;              /* pages allocated there */
	uint32_t ppid;            /* ... of which this one allocated the most, */
	uint64_t ptop;            /* this many */
	/* a collective's (net_op) process that moved TCP bytes: the share of
	 * the stalls the node's retransmissions were flagged around, the
	 * retransmissions around them and elsewhere, the flow of most */
	double cov_net;
	uint64_t tcp, rin, rout;
	struct net_flow nf;
	uint32_t nnf;
	/* the hypervisor's take of the VM's CPUs around the stalls
	 * (causal_stolen): ns above its rate elsewhere, the shares in and out */
	double stolen, steal[2];
	int stole;                /* it accounts for them: nothing else is named */
	int every_cpu;            /* counted on all the CPUs (a collective's) */
};

/*
 * The stalls' side in the chain's root cause and its fix, by the cause
 * found in their windows (e; sat: the host's CPU saturation where the GPU
 * side is not shown).
 */
static void stall_side(struct ctx *x, struct cand *c, const struct sproc *p,
		       enum ilog_pattern cause, const struct stall_ev *e, const double *sat)
{
	const struct offcpu *oc = &e->oc;
	size_t l = strlen(c->root);
	if (cause == ILOG_PAT_GPU_SLOW && e->stole) {
		/* the guest saw no cause, the hypervisor took its CPUs (LOW) */
		snprintf(c->root + l, sizeof(c->root) - l, STEAL_TEXT, P(x, e->steal[0] / 100),
			 P(x, e->steal[1] / 100), D(x, e->stolen), STEAL_WHOSE(e->every_cpu));
		snprintf(c->fix, sizeof(c->fix), "%s", FIX_STEAL);
		c->forced = ILOG_SEV_LOW;
	} else if (cause == ILOG_PAT_GPU_SLOW && sat) {
		/* the GPU side, but on a saturated host: not shown (LOW) */
		snprintf(c->root + l, sizeof(c->root) - l, SAT_TEXT, P(x, sat[0] / 100),
			 P(x, sat[1] / 100));
		snprintf(c->fix, sizeof(c->fix), "%s", FIX_SATURATED);
		c->forced = ILOG_SEV_LOW;
	} else if (cause == ILOG_PAT_CPU_CONTENTION && !oc->named) {
		char self[96] = "";
		if (oc->self)
			snprintf(self, sizeof(self), ", %s of it behind its own threads or the "
				 "recorder", D(x, (double)oc->self));
		snprintf(c->root + l, sizeof(c->root) - l,
			 " - host side: in the stalls' windows its CUDA threads waited %s for a CPU "
			 "after wakeups and were preempted %llu times (%s off-CPU)%s: they "
			 NO_CULPRIT_TEXT,
			 D(x, (double)oc->wq), (unsigned long long)oc->pn, D(x, (double)oc->pd), self);
		snprintf(c->fix, sizeof(c->fix), "%s", FIX_NO_CULPRIT);
	} else if (cause == ILOG_PAT_CPU_CONTENTION) {
		const struct preempt *q = &oc->pr[0];
		const char *cc = ilog_stats_comm(x->st, x->nd->idx, q->pid);
		char took[160];
		c->culprit = q->pid;
		cpy(c->ccomm, sizeof(c->ccomm), cc);
		const char *ctr = ilog_stats_other_container(x->st, x->nd->idx, q->pid, p->pid);
		snprintf(c->root + l, sizeof(c->root) - l,
			 " - host side: PID %u (%s)%s%s%s %s off-CPU in the stalls' windows (all "
			 "preemptions there: %llu, %s)",
			 q->pid, cc, ctr[0] ? " in " : "", ctr, ctr[0] ? "," : "",
			 causal_took(x, took, sizeof(took), q, "its CUDA threads", "them"),
			 (unsigned long long)oc->pn, D(x, (double)oc->pd));
		snprintf(c->fix, sizeof(c->fix), FIX_CPU, causal_fmt(x, "%s (PID %u)", cc, q->pid),
			 cc);
	} else if (cause == ILOG_PAT_GPU_CONTENTION) {
		const char *cc = ilog_stats_comm(x->st, x->nd->idx, e->opid);
		c->culprit = e->opid;
		cpy(c->ccomm, sizeof(c->ccomm), cc);
		snprintf(c->root + l, sizeof(c->root) - l,
			 " - GPU side, shared: PID %u (%s) made %llu CUDA calls in the stalls' "
			 "windows while its own threads were preempted %llu times (%s off-CPU) there",
			 e->opid, cc, (unsigned long long)e->on, (unsigned long long)oc->pn,
			 D(x, (double)oc->pd));
		snprintf(c->fix, sizeof(c->fix), FIX_GPU, causal_fmt(x, "%s (PID %u)", cc, e->opid));
	} else if (cause == ILOG_PAT_MEMORY_PRESSURE) {
		const char *cc = e->ppid ? ilog_stats_comm(x->st, x->nd->idx, e->ppid) : "";
		if (e->ppid && e->ppid != p->pid) {
			c->culprit = e->ppid;
			cpy(c->ccomm, sizeof(c->ccomm), cc);
		}
		snprintf(c->root + l, sizeof(c->root) - l,
			 " - host side: the host was short of memory around %s of the stalls "
			 "(%llu pages allocated in their windows)",
			 P(x, e->cov_mem), (unsigned long long)e->pg);
		snprintf(c->fix, sizeof(c->fix), FIX_MEM,
			 c->culprit ? causal_fmt(x, "%s (PID %u)", cc, e->ppid) : "the other processes");
	} else if (cause == ILOG_PAT_NET_RETRANSMITS) {
		char tail[512] = "";
		if (e->nnf) {
			const struct sflow *fl = &x->st->flows[e->nf.i];
			char ft[160], who[256];
			causal_flow_owner(x, c, p->pid, fl, ft, sizeof(ft), who, sizeof(who));
			snprintf(tail, sizeof(tail), "; TCP flow %s%s retransmitted %llu segments "
				 "around them against %llu elsewhere", ft, who,
				 (unsigned long long)e->nf.in, (unsigned long long)e->nf.out);
			causal_met_u(c, "flow_retrans_in", e->nf.in);
			causal_met_u(c, "flow_retrans_out", e->nf.out);
		}
		snprintf(c->root + l, sizeof(c->root) - l,
			 " - network: the node's TCP retransmissions were an outlier around %s of the "
			 "stalls, %llu segments in the retransmit aggregates around them against %llu "
			 "in the rest of the run%s; the process moved %s over TCP",
			 P(x, e->cov_net), (unsigned long long)e->rin, (unsigned long long)e->rout, tail,
			 B(x, (double)e->tcp));
		snprintf(c->fix, sizeof(c->fix), FIX_NET, e->nnf ? "the flow" : "the node");
	} else {
		snprintf(c->root + l, sizeof(c->root) - l,
			 " - GPU side: in the stalls' windows its CUDA threads were preempted %llu "
			 "times (%s off-CPU) and waited %s for a CPU, other processes made %llu CUDA "
			 "calls and %llu pages were allocated: the host was not in the way, the "
			 "waits were on the GPU",
			 (unsigned long long)oc->pn, D(x, (double)oc->pd), D(x, (double)oc->wq),
			 (unsigned long long)e->oth, (unsigned long long)e->pg);
		snprintf(c->fix, sizeof(c->fix), "%s", FIX_GPU_STALL);
	}
}

/* Marks the ticks of the stalls t[0..m) (by time) in in[], their count
 * into *nwin; returns the time they lost over the median med. */
static double stall_windows(struct ctx *x, const struct scall *t, uint32_t m, uint64_t med,
			    uint8_t *in, uint32_t *nwin)
{
	double lost = 0;
	for (uint32_t i = 0; i < m; i++) {
		for (uint32_t k = tick_at(x, t[i].ts); k <= tick_at(x, t[i].ts + t[i].dur); k++)
			in[k] = 1;
		lost += (double)(t[i].dur - med);
	}
	*nwin = 0;
	for (uint32_t k = 0; k < x->T; k++)
		*nwin += in[k];
	return lost;
}

/* The cause, as the interval chain's pattern would name it (lost_kept:
 * the time the kept stalls lost); gpu-slow: the GPU work itself, or with
 * e->stole set the hypervisor's (found here). */
static enum ilog_pattern stall_cause(struct stall_ev *e, double lost_kept)
{
	enum ilog_pattern cause = ILOG_PAT_GPU_SLOW;
	double best = 0;
	if (e->oc.host)
		best = e->oc.share > 1 ? 1 : e->oc.share, cause = ILOG_PAT_CPU_CONTENTION;
	/*
	 * A host busy all along (a build on every core) raises no excess in
	 * the stalls' windows over the others, yet preempts calls at random
	 * times, which is what random stalls look like.  When the threads'
	 * off-CPU time in the stalls' windows is as much as the kept stalls
	 * lost, the CPU explains them as well as the GPU does: the host side,
	 * whoever held the CPU - the process's own threads too (a clean
	 * 3-thread loop beside two CPU hogs waited 62 ms for a CPU, mostly
	 * behind its own threads, in stalls that lost 52 ms: not the GPU's),
	 * never "the host was not in the way".
	 */
	else if ((double)(e->oc.pd + e->oc.wq) >= lost_kept)
		cause = ILOG_PAT_CPU_CONTENTION;
	/* another process's calls around the stalls say only that it was
	 * busy then; when the threads' own off-CPU excess accounts for half
	 * the time lost, the time was spent waiting for a CPU (a sibling that
	 * calls more while the victim waits is taking its CPU, not its GPU) */
	if (e->cov_gpu >= ILOG_COVERAGE && e->cov_gpu > best && !e->oc.host)
		best = e->cov_gpu, cause = ILOG_PAT_GPU_CONTENTION;
	if (e->cov_mem >= ILOG_COVERAGE && e->cov_mem > best)
		best = e->cov_mem, cause = ILOG_PAT_MEMORY_PRESSURE;
	/* a collective's stalls around most of which the node retransmitted
	 * (a lost segment with no later one to tell the sender is resent only
	 * at its timeout, 200 ms or more, whatever the CPU was doing) */
	if (e->cov_net >= ILOG_COVERAGE && e->cov_net > best)
		best = e->cov_net, cause = ILOG_PAT_NET_RETRANSMITS;
	/* nothing the guest accounts for, but the hypervisor took the VM's
	 * CPUs around the stalls for half their time or more: that, not what
	 * the guest saw meanwhile, is the cause (as for an interval) */
	if (cause != ILOG_PAT_CPU_CONTENTION && causal_steal_explains(e->stolen, lost_kept)) {
		e->stole = 1;
		cause = ILOG_PAT_GPU_SLOW;
	}
	return cause;
}

/* How the stalls stand apart from the other calls, for the root cause. */
static void stall_shape(struct ctx *x, const struct stalls *g, const struct base *bs,
			char *shape, size_t n)
{
	if (g->ratio > 0 && g->lo == bs_stall_cut(bs))
		snprintf(shape, n,
			 "no call between the outlier threshold %s and %s (%.1fx): the stalls are "
			 "a mode of their own (bimodal)",
			 D(x, (double)g->lo), D(x, (double)g->hi), g->ratio);
	else if (g->ratio > 0)
		snprintf(shape, n,
			 "the durations break %.1fx between %s and %s: the stalls are a mode of "
			 "their own (bimodal)",
			 g->ratio, D(x, (double)g->lo), D(x, (double)g->hi));
	else
		snprintf(shape, n, "the durations thin out above %s with no break (heavy tail)",
			 D(x, (double)g->cut));
}

/* The chain's metrics: the stalls (t, by time) and their fit, then what
 * their windows held (e). */
static void isolated_metrics(struct ctx *x, struct cand *c, const struct causal_series *sc,
			     const struct stalls *g, const struct scall *t,
			     const struct stall_ev *e, enum ilog_pattern cause, const char *side)
{
	const struct base *bs = &sc->bs;
	causal_met_s(c, "op", opn(sc->s->op));
	causal_met_u(c, "stalls", g->k);
	causal_met_u(c, "calls", causal_ser_calls(sc->s));
	causal_met_u(c, "calls_considered", g->n);
	causal_met_u(c, "stall_median_ns", g->med);
	causal_met_u(c, "median_ns", bs->med);
	causal_met_u(c, "outlier_threshold_ns", bs->thr);
	/* the stalls are the calls slower than this in [ts_start, ts_end)
	 * outside these intervals */
	causal_met_u(c, "stall_threshold_ns", g->cut);
	causal_met_anomalies(x, c, sc->hide);
	causal_met_s(c, "shape", g->ratio > 0 ? "bimodal" : "heavy-tail");
	causal_met_u(c, "frequent", (uint64_t)g->frequent);
	if (g->ratio > 0)
		causal_met_f(c, "break_ratio", g->ratio);
	/* the significance test's point (stall_threshold_ns, or the middle of
	 * the break for a bimodal group) and the calls the fit predicts above it */
	causal_met_u(c, "expected_at_ns", g->at);
	causal_met_f(c, "expected_above_threshold", g->expect);
	causal_met_u(c, "above_median_ns", ilog_sat_u64(g->above));
	causal_met_u(c, "spread_above_median_ns", ilog_sat_u64(g->spread));
	/* the log-normal: median e^mu, sigma = ln(q3 / q1) / 1.349 (or its floor) */
	causal_met_u(c, "fit_q1_ns", g->q[0]);
	causal_met_u(c, "fit_median_ns", g->q[1]);
	causal_met_u(c, "fit_q3_ns", g->q[2]);
	causal_met_f(c, "fit_sigma", g->sig);
	causal_met_u(c, "lost_ns", ilog_sat_u64(g->lost));
	causal_met_s(c, "side", side);
	causal_met_s(c, "cause",
		     e->stole ? "steal" : cause == ILOG_PAT_GPU_SLOW ? "gpu" : patn(cause));
	if (e->stolen > 0)
		causal_met_steal(c, e->stolen, e->steal);
	causal_met_u(c, "stall_windows", e->nwin);
	causal_met_u(c, "preemptions_in", e->oc.pn);
	causal_met_u(c, "offcpu_in_ns", e->oc.pd);
	causal_met_u(c, "runq_wait_in_ns", e->oc.wq);
	causal_met_u(c, "offcpu_self_in_ns", e->oc.self);
	causal_met_f(c, "offcpu_share_of_lost", e->oc.share);
	causal_met_f(c, "coverage_gpu", e->cov_gpu);
	causal_met_f(c, "coverage_mem", e->cov_mem);
	if (e->tcp) {
		causal_met_f(c, "coverage_net", e->cov_net);
		causal_met_u(c, "retrans_in", e->rin);
		causal_met_u(c, "retrans_out", e->rout);
		causal_met_u(c, "tcp_bytes", e->tcp);
	}
	causal_met_u(c, "other_cuda_calls_in", e->oth);
	causal_met_u(c, "pages_in", e->pg);
	if (c->culprit && cause == ILOG_PAT_CPU_CONTENTION)
		causal_met_preempt(c, "culprit", &e->oc.pr[0]);
	/* random times: the gaps between stalls vary like a Poisson process's */
	if (g->m >= 3) {
		double period;
		causal_met_f(c, "gap_rcv", causal_gap_rcv(t, g->m, &period));
	}
}

static void isolated_chain(struct ctx *x, struct causal_proc *pc, const struct causal_series *sc,
			   struct stalls *g)
{
	const struct sproc *p = pc->p;
	const struct sseries *s = sc->s;
	const struct base *bs = &sc->bs;
	struct stall_ev e = { 0 };
	struct scall *t = malloc((g->m ? g->m : 1) * sizeof(*t));
	uint8_t *in = calloc(x->T, 1);
	if (!t || !in) {
		x->oom = 1;
		goto done;
	}
	memcpy(t, g->v, g->m * sizeof(*t));
	qsort(t, g->m, sizeof(*t), cmp_ts);
	double lost_kept = stall_windows(x, t, g->m, bs->med, in, &e.nwin);
	if (causal_offcpu(x, p, in, pc->lo, pc->hi, ilog_sat_u64(lost_kept), &e.oc) ||
	    causal_sig_flags(x, &pc->g, in, pc->lo, pc->hi)) {
		x->oom = 1;
		goto done;
	}
	e.every_cpu = s->layer == ILOG_LAYER_NCCL;
	e.stolen = causal_stolen(x, in, pc->lo, pc->hi, e.every_cpu, e.steal);
	e.cov_gpu = causal_call_coverage(x, t, g->m, pc->g.fgpu);
	e.cov_mem = causal_call_coverage(x, t, g->m, pc->g.fmem);
	e.tcp = net_op(s) ? causal_net_bytes(x, p->pid, pc->lo, pc->hi, NULL) : 0;
	if (e.tcp) {
		e.cov_net = causal_call_coverage(x, t, g->m, pc->g.fnet);
		/* the retransmit aggregates that reach a stall's window (the
		 * recorder's first aggregate can span seconds: no global span) */
		uint8_t *nin = malloc(x->T ? x->T : 1);
		if (!nin) {
			x->oom = 1;
			goto done;
		}
		causal_net_reach(x, in, nin);
		e.nnf = causal_net_flows(x, 0, 0, nin, pc->lo, pc->hi, &e.nf, 1, &e.rin, &e.rout);
		free(nin);
	}
	/* the flags of the series' intervals again, for whoever reads them next */
	if (sc->niv && causal_sig_flags(x, &pc->g, sc->inany, pc->lo, pc->hi)) {
		x->oom = 1;
		goto done;
	}
	enum ilog_pattern cause = stall_cause(&e, lost_kept);
	/* stalls too many to be isolated are a chain only as the network's,
	 * with one flow that retransmitted a segment at least for each of them
	 * around them (a segment lost is resent before the call it holds up
	 * returns; fewer, or a busy node's retransmissions spread over many
	 * flows, are not the cause) */
	if (g->frequent &&
	    (cause != ILOG_PAT_NET_RETRANSMITS || !e.nnf || e.nf.in < g->k))
		goto done;
	int host = cause == ILOG_PAT_CPU_CONTENTION || cause == ILOG_PAT_MEMORY_PRESSURE;
	uint64_t a = g->m ? t[0].ts : p->first_ts, b = g->m ? t[g->m - 1].ts + t[g->m - 1].dur : 0;
	if (g->m < g->k) { /* not all are kept: every call after the cold ones */
		a = sc->ncold ? s->first[sc->ncold - 1].ts + 1 : p->first_ts;
		b = p->last_end;
	}
	/* its own cgroup's CPU quota held it over the stalls: the throttle
	 * chain names the limit (detect_throttle.c) */
	if (causal_quota_held(x, p->pid, a, b + 1, g->lost))
		goto done;
	/* the network's stalls are a chain of the network's pattern */
	struct cand *c = causal_cand_new(x, p, cause == ILOG_PAT_NET_RETRANSMITS
						       ? ILOG_PAT_NET_RETRANSMITS
						       : ILOG_PAT_ISOLATED_STALL,
					 s->op, a, b + 1, ilog_sat_u64(g->lost));
	if (!c)
		goto done;
	e.oth = causal_others_calls(x, p, in, &e.opid, &e.on);
	e.pg = causal_pages_in(x, in, &e.ppid, &e.ptop);
	char shape[256];
	stall_shape(x, g, bs, shape, sizeof(shape));
	snprintf(c->root, sizeof(c->root),
		 "%s in PID %u (%s) stalled at random times in %llu of %llu calls%s: they took %s "
		 "(median) against a median of %s for all calls, costing %s (%s of its %s); %s, "
		 "%llu calls above %s where the spread of the other calls predicts %.3g (the "
		 "cost is their %s above the median less the %s the spread puts there)",
		 opn(s->op), p->pid, c->comm, (unsigned long long)g->k,
		 (unsigned long long)causal_ser_calls(s),
		 g->frequent ? " (more than 1 in 20: too many to be isolated, and no interval "
			       "stands out)" : "",
		 D(x, (double)g->med), D(x, (double)bs->med),
		 D(x, g->lost), P(x, g->lost / (double)c->wall), D(x, (double)c->wall), shape,
		 (unsigned long long)g->k, D(x, (double)g->at), g->expect, D(x, g->above),
		 D(x, g->spread));
	/* a heavy tail on a saturated host (the span of the kept stalls, else
	 * of the process's calls) is what scheduling delays of the work the
	 * calls wait on look like: the GPU side is not shown then; stalls of
	 * a mode of their own (bimodal) are the work's */
	double sat[2] = { 0, 0 };
	int saturated = cause == ILOG_PAT_GPU_SLOW && !e.stole && g->ratio <= 0 &&
			causal_cpu_saturated(x, tick_at(x, a), tick_at(x, b) + 1, &sat[0], &sat[1]);
	const char *side = host ? "host" : cause == ILOG_PAT_NET_RETRANSMITS ? "network"
				  : e.stole ? "hypervisor" : saturated ? "undetermined" : "GPU";
	stall_side(x, c, p, cause, &e, saturated ? sat : NULL);
	causal_met_u(c, "host_saturated", (uint64_t)saturated);
	if (cause == ILOG_PAT_NET_RETRANSMITS && c->culprit)
		snprintf(c->title, sizeof(c->title), "Retransmits: the TCP flow of %s (PID %u) "
			 "stalled %s in %s (PID %u), %llu of %llu calls", c->ccomm, c->culprit,
			 opn(s->op), c->comm, p->pid, (unsigned long long)g->k,
			 (unsigned long long)causal_ser_calls(s));
	else if (cause == ILOG_PAT_NET_RETRANSMITS)
		snprintf(c->title, sizeof(c->title), "Retransmits stalled %s in %s (PID %u), %llu of "
			 "%llu calls", opn(s->op), c->comm, p->pid, (unsigned long long)g->k,
			 (unsigned long long)causal_ser_calls(s));
	else
		snprintf(c->title, sizeof(c->title), "Isolated stalls: %s in %s (PID %u), %llu of "
			 "%llu calls (%s side)", opn(s->op), c->comm, p->pid, (unsigned long long)g->k,
			 (unsigned long long)causal_ser_calls(s), side);
	isolated_metrics(x, c, sc, g, t, &e, cause, side);
	if (e.tcp) { /* the windows "the rest of the run" is counted over */
		causal_met_u(c, "base_from_ns", tick_ts(x, pc->lo));
		causal_met_u(c, "base_to_ns", tick_ts(x, pc->hi));
	}
	for (uint32_t i = 0; i < g->m && i < 6; i++)
		causal_ev_add(x, c, t[i].ts, "%s took %s (tid %u)", opn(s->op),
			      D(x, (double)t[i].dur), t[i].tid);
	if (g->m > 6)
		causal_ev_add(x, c, t[g->m - 1].ts, "... %llu stalls in all, the last kept took %s",
			      (unsigned long long)g->k, D(x, (double)t[g->m - 1].dur));
done:
	causal_offcpu_free(&e.oc);
	free(in);
	free(t);
}

const struct causal_detector causal_detector_isolated = {
	"isolated", CAUSAL_SERIES_ANALYZED, isolated,
};
