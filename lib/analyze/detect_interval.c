// SPDX-License-Identifier: MIT
/*
 * Detector: the anomalous intervals of one series (causal_series.c finds
 * them), each explained by the host signal that moved with it - CPU
 * contention (the calling threads were preempted or waited for a CPU),
 * GPU contention (another process's CUDA calls), host memory pressure,
 * TCP retransmissions under a collective - or, when none did, the GPU
 * itself got slower.  The causes compete for
 * the one chain of an interval and share its accounting, so they stay in
 * one detector.
 */
#include <math.h>
#include <stdlib.h>
#include "causal_int.h"

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

/*
 * The share of an interval's lost time - each analysis window's calls over
 * mean, where positive - that lies in the windows flagged (as coverage:
 * in the window or the ticks just around it).  A lossy flow's damage is
 * its timeouts, a few windows of 200 ms stalls, while a busy host slows
 * the other windows a little: counted by windows, the loss's are a
 * minority of an interval that the host's load stretched.
 */
static double lost_coverage(struct ctx *x, const struct sseries *s, const uint8_t *flag,
			    uint32_t a, uint32_t b, double mean)
{
	double all = 0, cov = 0;
	uint32_t G = x->G ? x->G : 1;
	for (uint32_t w = a; w < b; w += G) {
		uint32_t e = w + G < b ? w + G : b, f = 0;
		double d = 0;
		for (uint32_t k = w; k < e && k < s->nt; k++)
			d += (double)s->t[k].total - (double)s->t[k].n * mean;
		if (d <= 0)
			continue;
		all += d;
		for (uint32_t k = w > 0 ? w - 1 : 0; k <= e && k < x->T; k++)
			f |= flag[k];
		if (f)
			cov += d;
	}
	return all > 0 ? cov / all : 0;
}

/*
 * The network's share of an interval's anomalous windows once TCP's loss
 * recovery is counted.  A flow runs below its earlier rate after its last
 * retransmission until its congestion window regrows, and on a collective's
 * request-response flow the window grows only while the flow fills it: it
 * takes seconds (the net-retrans demo's all-reduce stayed 3x slower for
 * 2.5 s after the last retransmission on loopback).  So when the flag
 * (retransmissions an outlier) is set within the interval's first span
 * ticks - one retransmit aggregate, the precision of the onset - the
 * anomalous windows from the first flagged one to the interval's end are
 * the network's; otherwise the share is 0.
 */
static double net_recovery(struct ctx *x, const uint8_t *hot, const uint8_t *flag, uint32_t a,
			   uint32_t b, uint32_t span)
{
	uint32_t nh = 0, nc = 0, G = x->G ? x->G : 1, from = UINT32_MAX;
	for (uint32_t w = a; w < b; w += G) {
		uint32_t e = w + G < b ? w + G : b, any = 0, cov = 0;
		for (uint32_t k = w; k < e; k++)
			any |= hot[k];
		for (uint32_t k = w > 0 ? w - 1 : 0; k <= e && k < x->T; k++)
			cov |= flag[k];
		if (cov && from == UINT32_MAX)
			from = w;
		nh += any;
		nc += any && from != UINT32_MAX;
	}
	return nh && from < a + span ? (double)nc / nh : 0;
}

/* The windows the first aggregate starting in [a, b) covers (span: per
 * window, the longest aggregate starting there, 0 where none does), the
 * precision of an onset net_recovery is given; 1 when none starts there. */
static uint32_t onset_span(const double *span, uint32_t a, uint32_t b, uint32_t T)
{
	for (uint32_t k = a; k < b && k < T; k++)
		if (span[k] > 0)
			return (uint32_t)span[k];
	return 1;
}

#define FIX_GPU_SLOW \
	"Look at the GPU, not the host: compare kernel times of the slow interval in " \
	"Nsight Systems, check clocks and throttling (nvidia-smi -q -d PERFORMANCE,TEMPERATURE) " \
	"and other tenants of the GPU outside this host's view."

/* Whether a storm's top process is its culprit: it rose by at least half
 * the machine's rise, with pages in the interval. */
static int page_culprit(const struct page_storm *ps)
{
	return ps->pid && ps->excess > 0 && ps->excess >= 0.5 * ps->machine_excess && ps->ns_in;
}

/* The available memory of the last snapshot before window a, or 0. */
static uint64_t avail_before(struct ctx *x, uint32_t a)
{
	for (uint32_t k = a; k-- > 0 && k < x->nd->nsnap;)
		if (x->nd->snap[k].n)
			return x->nd->snap[k].avail_min;
	return 0;
}

/* The rise of the culprit's page allocations in the interval over its
 * rate outside it, as a share of avail bytes a second: a process that
 * allocates steadily (a TCP peer's socket buffers, 100 MiB/s beside two
 * CPU hogs) and a little faster in the interval is no storm. */
static double storm_share(const struct page_storm *ps, uint64_t avail)
{
	if (!avail || !ps->ns_in)
		return 0;
	double r_in = (double)ps->pages_in * 1e9 / (double)ps->ns_in;
	double r_out = ps->ns_out ? (double)ps->pages_out * 1e9 / (double)ps->ns_out : 0;
	return r_in > r_out ? (r_in - r_out) * ILOG_PAGE_BYTES / (double)avail : 0;
}

/*
 * Host memory pressure: the culprit is the process (other than the job)
 * whose page allocations rose most over its own rate outside the interval
 * - named when it accounts for at least half of the machine's rise - with
 * its pages per second in and outside the interval and how far available
 * memory fell.  Scarcity (direct reclaim or compaction stalls, memory PSI
 * of at least ILOG_MEM_PSI, swap growth, available memory under
 * ILOG_MEM_SCARCE of the total) raises the severity one step.  On graded
 * evidence (likely: a storm under ILOG_MEM_CHURN, cov its coverage of the
 * anomalous windows) the chain says so with the culprit's share of the
 * available memory per second, and its severity is one step lower.  A
 * slowdown that outlasted the pressure (g's flags) by an analysis window
 * or more says for how long.
 */
static void memory_chain(struct ctx *x, struct cand *c, const struct sproc *p, const char *head,
			 struct ival iv, uint32_t lo, uint32_t hi, uint64_t pg, uint32_t ppid,
			 uint64_t ptop, const struct snapsum *ss, int likely, double cov,
			 const struct sig *g)
{
	struct page_storm ps;
	causal_page_storm(x, p, iv.a, iv.b, lo, hi, &ps);
	uint64_t nst, nsst;
	causal_stalls(x, iv.a, iv.b, &nst, &nsst);
	/* available memory just before the interval (carried from the last
	 * snapshot before it) */
	uint64_t before = avail_before(x, iv.a);
	char tail[768] = "";
	size_t l = 0;
	uint32_t cul = 0;
	const char *cc = "";
	if (page_culprit(&ps)) {
		cul = ps.pid;
		cc = ilog_stats_comm(x->st, x->nd->idx, cul);
		const char *ctr = ilog_stats_other_container(x->st, x->nd->idx, cul, p->pid);
		double r_in = (double)ps.pages_in * 1e9 / (double)ps.ns_in;
		double r_out = ps.ns_out ? (double)ps.pages_out * 1e9 / (double)ps.ns_out : 0;
		l += (size_t)snprintf(tail + l, sizeof(tail) - l,
				      " while PID %u (%s)%s%s%s allocated %.0f pages/s (%s/s) against "
				      "%.0f pages/s outside the interval",
				      cul, cc, ctr[0] ? " in " : "", ctr, ctr[0] ? "," : "", r_in,
				      B(x, r_in * ILOG_PAGE_BYTES), r_out);
		causal_met_u(c, "culprit_pages_in", ps.pages_in);
		causal_met_u(c, "culprit_page_ns_in", ps.ns_in);
		causal_met_u(c, "culprit_pages_out", ps.pages_out);
		causal_met_u(c, "culprit_page_ns_out", ps.ns_out);
		causal_met_f(c, "culprit_pages_per_s_in", r_in);
		causal_met_f(c, "culprit_pages_per_s_out", r_out);
		if (likely) { /* the share interval_cause weighed */
			double share = storm_share(&ps, before);
			l += (size_t)snprintf(tail + l, sizeof(tail) - l,
					      "; likely the cause, though under the memory rule's "
					      "edge: a rise of %s of the %s available per second (certain from "
					      "%s), page allocations an outlier in %s of the slow "
					      "windows",
					      causal_fmt(x, "%.2f%%", share * 100), B(x, (double)before),
					      P(x, ILOG_MEM_CHURN),
					      P(x, cov));
			causal_met_f(c, "culprit_share_of_avail_per_s", share);
		}
		if (r_out > 0)
			causal_ev_add(x, c, tick_ts(x, iv.a), "PID %u (%s) allocates %.0f pages/s, "
				      "%.1fx its rate outside the interval", cul, cc, r_in, r_in / r_out);
		else
			causal_ev_add(x, c, tick_ts(x, iv.a), "PID %u (%s) allocates %.0f pages/s, "
				      "none outside the interval", cul, cc, r_in);
	} else if (pg) {
		l += (size_t)snprintf(tail + l, sizeof(tail) - l,
				      " while the host was under memory pressure; %llu pages were "
				      "allocated", (unsigned long long)pg);
		if (ppid && ppid != p->pid && !causal_is_recorder(x, ppid))
			l += (size_t)snprintf(tail + l, sizeof(tail) - l, " (%llu by PID %u (%s))",
					      (unsigned long long)ptop, ppid,
					      ilog_stats_comm(x->st, x->nd->idx, ppid));
	} else {
		l += (size_t)snprintf(tail + l, sizeof(tail) - l,
				      " while the host was under memory pressure");
	}
	if (ss->n && ss->total) {
		if (before > ss->avail_min)
			l += (size_t)snprintf(tail + l, sizeof(tail) - l,
					      "; available memory fell from %s to %s (%s of %s)",
					      B(x, (double)before), B(x, (double)ss->avail_min),
					      P(x, (double)ss->avail_min / (double)ss->total),
					      B(x, (double)ss->total));
		else
			l += (size_t)snprintf(tail + l, sizeof(tail) - l,
					      "; available memory was %s (%s of %s) at its lowest",
					      B(x, (double)ss->avail_min),
					      P(x, (double)ss->avail_min / (double)ss->total),
					      B(x, (double)ss->total));
		causal_met_u(c, "mem_avail_before", before);
	}
	if (nst)
		l += (size_t)snprintf(tail + l, sizeof(tail) - l,
				      "; tasks stalled %llu times in direct reclaim or compaction (%s)",
				      (unsigned long long)nst, D(x, (double)nsst));
	if (ss->psi_mem_max >= ILOG_MEM_PSI)
		l += (size_t)snprintf(tail + l, sizeof(tail) - l,
				      "; memory pressure stalled tasks %.1f%% of the time",
				      ss->psi_mem_max);
	if (ss->swap_growth)
		l += (size_t)snprintf(tail + l, sizeof(tail) - l, "; swap use grew by %s",
				      B(x, (double)ss->swap_growth));
	/* the slowdown outlasted the pressure by an analysis window or more
	 * (the storm's flags cover its aggregates): how long */
	uint32_t last = iv.b;
	for (uint32_t k = iv.a; k < iv.b && k < x->T; k++)
		if (g->fmem[k])
			last = k;
	if (last < iv.b && iv.b - (last + 1) >= (x->G ? x->G : 1)) {
		uint64_t end = tick_ts(x, last + 1), rec = tick_ts(x, iv.b) - end;
		l += (size_t)snprintf(tail + l, sizeof(tail) - l,
				      "; the calls stayed slow %s after the last window of pressure",
				      D(x, (double)rec));
		causal_met_u(c, "recovery_ns", rec);
		causal_ev_add(x, c, end, "the last window of memory pressure ends; %s stays slow",
			      opn(c->op));
	}
	causal_met_u(c, "base_from_ns", tick_ts(x, lo));
	causal_met_u(c, "base_to_ns", tick_ts(x, hi));
	causal_met_u(c, "stalls_in", nst);
	causal_met_u(c, "stall_ns_in", nsst);
	causal_met_f(c, "psi_mem_max_in", ss->psi_mem_max);
	snprintf(c->root, sizeof(c->root), "%s%s", head, tail);
	if (!cul && ppid && ppid != p->pid && !causal_is_recorder(x, ppid))
		cul = ppid, cc = ilog_stats_comm(x->st, x->nd->idx, ppid);
	if (cul) {
		c->culprit = cul;
		cpy(c->ccomm, sizeof(c->ccomm), cc);
	}
	if (cul)
		snprintf(c->title, sizeof(c->title), "Memory storm%s: %s (PID %u) slowed %s (PID %u)",
			 likely ? " (likely)" : "", cc, cul, c->comm, p->pid);
	else
		snprintf(c->title, sizeof(c->title), "Host memory pressure slowed %s (PID %u)",
			 c->comm, p->pid);
	snprintf(c->fix, sizeof(c->fix), FIX_MEM,
		 cul ? causal_fmt(x, "%s (PID %u)", cc, cul) : "the other processes");
	causal_ev_add(x, c, tick_ts(x, iv.a),
		      "host memory pressure: %llu pages allocated in the interval",
		      (unsigned long long)pg);
	int scarce = nst || ss->psi_mem_max >= ILOG_MEM_PSI || ss->swap_growth ||
		     (ss->n && ss->avail_min < ILOG_MEM_SCARCE * (double)ss->total);
	causal_met_u(c, "scarce", (uint64_t)scarce);
	causal_met_u(c, "likely", (uint64_t)likely);
	int sev = causal_severity(c); /* after interval_chain set its spread */
	if (likely && sev > ILOG_SEV_LOW) /* graded evidence: one step lower */
		c->forced = sev - 1;
	else if (!likely && scarce && sev >= ILOG_SEV_LOW && sev < ILOG_SEV_HIGH &&
		 c->lost >= c->floor)
		c->forced = sev + 1;
}

/*
 * A collective slowed by retransmissions: the op's calls stretched while
 * the node's TCP retransmissions were an outlier and the process itself
 * moved TCP bytes.  Names the flows that retransmitted most in the
 * interval (4-tuple, owner, container), the retransmissions in and
 * outside the interval (the flow's and the node's), per second.
 */
static void net_chain(struct ctx *x, struct cand *c, const struct sproc *p, const char *head,
		      struct ival iv, uint32_t lo, uint32_t hi, const struct sig *g)
{
	uint32_t a = causal_net_from(g, iv.a, lo), b = iv.b;
	struct net_flow f[3];
	uint64_t all_in, all_out;
	uint32_t nf = causal_net_flows(x, a, b, NULL, lo, hi, f, 3, &all_in, &all_out);
	double w = (double)x->nd->width / 1e9;
	double len_in = (double)(b - a) * w, len_out = (double)(hi - lo - (b - a)) * w;
	double r_in = len_in > 0 ? (double)all_in / len_in : 0;
	double r_out = len_out > 0 ? (double)all_out / len_out : 0;
	char tail[1024];
	size_t l = 0;
	if (nf) {
		const struct sflow *fl = &x->st->flows[f[0].i];
		char ft[160], who[256];
		causal_flow_owner(x, c, p->pid, fl, ft, sizeof(ft), who, sizeof(who));
		l += (size_t)snprintf(tail + l, sizeof(tail) - l,
				      " while TCP flow %s%s retransmitted %llu segments in the interval "
				      "against %llu outside it", ft, who, (unsigned long long)f[0].in,
				      (unsigned long long)f[0].out);
		causal_met_u(c, "flow_sport", fl->sport);
		causal_met_u(c, "flow_dport", fl->dport);
		causal_met_u(c, "flow_retrans_in", f[0].in);
		causal_met_u(c, "flow_retrans_out", f[0].out);
		causal_ev_add(x, c, tick_ts(x, iv.a), "TCP flow %s retransmits %llu segments in the "
			      "interval", ft, (unsigned long long)f[0].in);
		for (uint32_t i = 1; i < nf; i++) {
			const struct sflow *o = &x->st->flows[f[i].i];
			causal_flow_text(o, ft, sizeof(ft));
			causal_ev_add(x, c, tick_ts(x, iv.a), "also TCP flow %s of PID %u (%s): %llu "
				      "retransmits", ft, o->pid,
				      o->pid ? ilog_stats_comm(x->st, x->nd->idx, o->pid) : "?",
				      (unsigned long long)f[i].in);
		}
		l += (size_t)snprintf(tail + l, sizeof(tail) - l, "; ");
	} else {
		l += (size_t)snprintf(tail + l, sizeof(tail) - l, " while ");
	}
	l += (size_t)snprintf(tail + l, sizeof(tail) - l,
			      "the node retransmitted %llu TCP segments in the interval (%.1f/s) "
			      "against %llu outside it (%.1f/s)",
			      (unsigned long long)all_in, r_in, (unsigned long long)all_out, r_out);
	/* the slowdown outlasted the retransmissions by more than an
	 * aggregate: the flow's loss recovery (net_recovery) */
	uint32_t last = b;
	for (uint32_t k = a; k < b && k < x->T; k++)
		if (g->net[k] > 0)
			last = k;
	uint32_t span = last < b ? (uint32_t)g->netspan[last] : 0;
	if (last < b && last + span < b) {
		uint64_t end = tick_ts(x, last + span), rec = tick_ts(x, b) - end;
		l += (size_t)snprintf(tail + l, sizeof(tail) - l, "; the calls stayed slow %s after "
				      "the last retransmitting window, while the flow's congestion "
				      "window regrew", D(x, (double)rec));
		causal_met_u(c, "recovery_ns", rec);
		causal_ev_add(x, c, end, "the last retransmitting window ends; %s stays slow "
			      "(loss recovery)", opn(c->op));
	}
	uint64_t bytes = causal_net_bytes(x, p->pid, a, b, NULL);
	if (bytes)
		l += (size_t)snprintf(tail + l, sizeof(tail) - l, "; the process moved %s over TCP "
				      "in it", B(x, (double)bytes));
	snprintf(c->root, sizeof(c->root), "%s%s", head, tail);
	causal_met_u(c, "retrans_in", all_in);
	causal_met_u(c, "retrans_out", all_out);
	causal_met_f(c, "retrans_per_s_in", r_in);
	causal_met_f(c, "retrans_per_s_out", r_out);
	causal_met_u(c, "net_in_from_ns", tick_ts(x, a));
	causal_met_u(c, "net_in_to_ns", tick_ts(x, b));
	causal_met_u(c, "base_from_ns", tick_ts(x, lo));
	causal_met_u(c, "base_to_ns", tick_ts(x, hi));
	causal_met_u(c, "tcp_bytes_in", bytes);
	if (c->culprit)
		snprintf(c->title, sizeof(c->title), "Retransmits: the TCP flow of %s (PID %u) slowed "
			 "%s in %s (PID %u)", c->ccomm, c->culprit, opn(c->op), c->comm, p->pid);
	else
		snprintf(c->title, sizeof(c->title), "Retransmits slowed %s in %s (PID %u)",
			 opn(c->op), c->comm, p->pid);
	snprintf(c->fix, sizeof(c->fix), FIX_NET, nf ? "the flow" : "the node");
	causal_ev_add(x, c, tick_ts(x, iv.a), "the node retransmits %llu TCP segments in the "
		      "interval, %.1f/s against %.1f/s outside it", (unsigned long long)all_in, r_in,
		      r_out);
}

/*
 * The text of an interval chain, by its cause (memory_chain and net_chain
 * above, these below): head is the sentence that says how the op slowed;
 * oc the calling threads' off-CPU accounting in the interval [ta, ta +
 * len); ss the system snapshots there.
 *
 * CPU contention: the top preempter, or no one process (saturated).
 */
static void cpu_chain(struct ctx *x, struct cand *c, const struct sproc *p, const char *head,
		      const struct offcpu *oc, uint64_t ta, uint64_t len, const struct snapsum *ss)
{
	const char *comm = c->comm;
	const struct preempt *pr = oc->pr;
	uint32_t npr = oc->npr;
	uint64_t pn = oc->pn, pd = oc->pd, wq_in = oc->wq;
	double off_in = oc->off_in, off_rate_out = oc->rate_out;
	if (!oc->named) {
		snprintf(c->root, sizeof(c->root),
			 "%s while its CUDA threads waited %s for a CPU after wakeups and were "
			 "preempted %llu times (%s off-CPU, %s of the interval against %s outside it)%s: "
			 "its threads " NO_CULPRIT_TEXT,
			 head, D(x, (double)wq_in), (unsigned long long)pn, D(x, (double)pd),
			 P(x, len ? off_in / (double)len : 0), P(x, off_rate_out),
			 ss->n ? causal_fmt(x, "; the CPUs were %s busy on average over it, load "
					   "up to %.2f", P(x, ss->cpu_avg / 100), ss->load_max) : "");
		snprintf(c->title, sizeof(c->title), "CPU contention: %s (PID %u) waited for a CPU, "
			 "no one process to blame", comm, p->pid);
		snprintf(c->fix, sizeof(c->fix), "%s", FIX_NO_CULPRIT);
		causal_ev_add(x, c, ta, "the CUDA threads of PID %u wait %s for a CPU in the interval",
			      p->pid, D(x, (double)wq_in));
		return;
	}
	const struct preempt *t = &pr[0];
	const char *cc = ilog_stats_comm(x->st, x->nd->idx, t->pid);
	char took[160];
	c->culprit = t->pid;
	cpy(c->ccomm, sizeof(c->ccomm), cc);
	const char *ctr = ilog_stats_other_container(x->st, x->nd->idx, t->pid, p->pid);
	snprintf(c->root, sizeof(c->root), "%s while PID %u (%s)%s%s%s %s off-CPU", head, t->pid,
		 cc, ctr[0] ? " in " : "", ctr, ctr[0] ? "," : "",
		 causal_took(x, took, sizeof(took), t, "its CUDA threads", "them"));
	if (npr > 1) {
		size_t l = strlen(c->root);
		snprintf(c->root + l, sizeof(c->root) - l, " (all preemptions: %llu, %s)",
			 (unsigned long long)pn, D(x, (double)pd));
	}
	snprintf(c->title, sizeof(c->title), "CPU contention: %s (PID %u) %s %s (PID %u)%s", cc,
		 t->pid, t->n ? "preempted" : "kept", comm, p->pid,
		 t->n ? "" : " waiting for a CPU");
	snprintf(c->fix, sizeof(c->fix), FIX_CPU, causal_fmt(x, "%s (PID %u)", cc, t->pid),
		 cc);
	causal_met_preempt(c, "culprit", t);
	causal_ev_add(x, c, ta, "PID %u (%s) starts %s the CUDA threads of PID %u", t->pid, cc,
		      t->n ? "preempting" : "holding the CPUs wanted by", p->pid);
	for (uint32_t i = 1; i < npr && i < 3; i++)
		causal_ev_add(x, c, ta, "also %s by PID %u (%s): %s", pr[i].n ? "preempted" : "held up",
			      pr[i].pid, ilog_stats_comm(x->st, x->nd->idx, pr[i].pid),
			      pr[i].wn ? causal_fmt(x, "%llu times, %llu waits after a wakeup, %s",
						    (unsigned long long)pr[i].n,
						    (unsigned long long)pr[i].wn,
						    D(x, (double)pr[i].dur))
				       : causal_fmt(x, "%llu times, %s", (unsigned long long)pr[i].n,
						    D(x, (double)pr[i].dur)));
}

/* GPU contention: opid made `on` CUDA calls in the interval. */
static void gpu_chain(struct ctx *x, struct cand *c, const struct sproc *p, const char *head,
		      const struct offcpu *oc, uint64_t ta, uint32_t opid, uint64_t on)
{
	const char *comm = c->comm;
	uint64_t pn = oc->pn, pd = oc->pd;
	const char *cc = ilog_stats_comm(x->st, x->nd->idx, opid);
	uint64_t all = 0;
	for (uint32_t j = 0; j < x->st->nser; j++) {
		const struct sseries *q = x->st->ser[j];
		if (q->node == x->nd->idx && q->pid == opid)
			all += causal_ser_calls(q);
	}
	uint64_t on_out = all > on ? all - on : 0;
	c->culprit = opid;
	cpy(c->ccomm, sizeof(c->ccomm), cc);
	/* a neighbour in another container is named with it */
	const char *ctr = ilog_stats_other_container(x->st, x->nd->idx, opid, p->pid);
	snprintf(c->root, sizeof(c->root),
		 "%s while PID %u (%s)%s%s%s made %llu CUDA calls on the same node (%llu "
		 "outside the interval); its own threads were preempted only %llu times (%s "
		 "off-CPU): the processes share the GPU",
		 head, opid, cc, ctr[0] ? " in " : "", ctr, ctr[0] ? "," : "",
		 (unsigned long long)on, (unsigned long long)on_out, (unsigned long long)pn,
		 D(x, (double)pd));
	snprintf(c->title, sizeof(c->title),
		 "GPU contention: %s (PID %u) shares the GPU with %s (PID %u)", cc, opid, comm,
		 p->pid);
	snprintf(c->fix, sizeof(c->fix), FIX_GPU, causal_fmt(x, "%s (PID %u)", cc, opid));
	causal_met_u(c, "culprit_cuda_calls_in", on);
	causal_met_u(c, "culprit_cuda_calls_out", on_out);
	causal_ev_add(x, c, ta, "PID %u (%s) is making CUDA calls: %llu in the interval",
		      opid, cc, (unsigned long long)on);
}

/* A slow_chain whose cause is not shown (why: the title's end): LOW. */
static void slow_low(struct cand *c, const struct sproc *p, const struct sseries *s,
		     const char *head, const char *tail, const char *why, const char *fix)
{
	snprintf(c->root, sizeof(c->root), "%s%s", head, tail);
	snprintf(c->title, sizeof(c->title), "Slower calls: %s in %s (PID %u), %s", opn(s->op),
		 c->comm, p->pid, why);
	snprintf(c->fix, sizeof(c->fix), "%s", fix);
	c->forced = ILOG_SEV_LOW;
}

/* No host cause: the GPU work itself got slower - when the typical call
 * did (typical: the share of the lost time the median call's growth
 * explains, ILOG_SLOW_TYPICAL or more). */
static void slow_chain(struct ctx *x, struct cand *c, const struct sproc *p,
		       const struct sseries *s, const char *head, const struct offcpu *oc,
		       uint64_t len, uint64_t oth, uint64_t pg, const struct snapsum *ss,
		       const double sat[2], const double stl[3], double typical)
{
	const char *comm = c->comm;
	uint64_t pn = oc->pn, pd = oc->pd;
	double off_in = oc->off_in, off_rate_out = oc->rate_out;
	char tail[1024];
	size_t l = (size_t)snprintf(tail, sizeof(tail),
				    " with no %s cause: its CUDA threads were preempted %llu "
				    "times (%s off-CPU, %s of the interval against %s outside "
				    "it), other processes made %llu CUDA calls, %llu pages were "
				    "allocated",
				    stl ? "guest" : "host", (unsigned long long)pn,
				    D(x, (double)pd),
				    P(x, len ? off_in / (double)len : 0), P(x, off_rate_out),
				    (unsigned long long)oth, (unsigned long long)pg);
	if (ss->n)
		l += (size_t)snprintf(tail + l, sizeof(tail) - l, " and the CPUs were %s busy",
				      P(x, ss->cpu_avg / 100));
	if (stl) {
		/* the guest saw no cause, the hypervisor took its CPUs: LOW */
		snprintf(tail + l, sizeof(tail) - l, STEAL_TEXT, P(x, stl[1] / 100),
			 P(x, stl[2] / 100), D(x, stl[0]),
			 STEAL_WHOSE(s->layer == ILOG_LAYER_NCCL));
		slow_low(c, p, s, head, tail, "on a VM whose CPUs were taken (steal)", FIX_STEAL);
		return;
	}
	if (sat) {
		/* the threads' own accounting clears the host, a saturated one
		 * does not: the cause is not shown (causal_cpu_saturated) */
		snprintf(tail + l, sizeof(tail) - l, SAT_TEXT, P(x, sat[0] / 100),
			 P(x, sat[1] / 100));
		slow_low(c, p, s, head, tail, "on a saturated host", FIX_SATURATED);
		return;
	}
	if (typical < ILOG_SLOW_TYPICAL) {
		/* a few calls much slower, the rest as before: a GPU that
		 * slows lengthens every call, and what stalls a few is as
		 * often outside the guest's view (a clean loop's synchronize
		 * on a CI machine: p50 441 -> 468 us, p99 2.91 -> 6.90 ms,
		 * the median's growth 17% of the 93 ms lost) */
		snprintf(tail + l, sizeof(tail) - l, TAIL_TEXT, P(x, typical));
		slow_low(c, p, s, head, tail, "its slowest calls only, cause not shown", FIX_TAIL);
		return;
	}
	snprintf(tail + l, sizeof(tail) - l, " - the GPU work itself got slower");
	snprintf(c->root, sizeof(c->root), "%s%s", head, tail);
	snprintf(c->title, sizeof(c->title), "GPU slower: %s in %s (PID %u), host not involved",
		 opn(s->op), comm, p->pid);
	snprintf(c->fix, sizeof(c->fix), "%s", FIX_GPU_SLOW);
}

/*
 * An interval chain's metrics: the op's calls in the interval (in) and
 * outside every anomaly of it (out), their p50 and p99 (q: in, out, in,
 * out), the signals' coverage of the anomalous windows (cpu, gpu, memory,
 * network) and the off-CPU accounting oc over the interval's len ns.
 */
static void interval_metrics(struct ctx *x, struct cand *c, const struct dhist *in,
			     const struct dhist *out, const uint64_t q[4], const uint8_t *inany,
			     const struct base *bs, const struct offcpu *oc, const double cov[4],
			     uint64_t len)
{
	static const char *const qk[4] = { "p50_in_ns", "p50_base_ns", "p99_in_ns", "p99_base_ns" };
	static const char *const ck[4] = { "coverage_cpu", "coverage_gpu", "coverage_mem",
					   "coverage_net" };
	causal_met_s(c, "op", opn(c->op));
	causal_met_u(c, "calls_in", in->n);
	causal_met_u(c, "calls_base", out->n);
	for (int i = 0; i < 4; i++)
		causal_met_u(c, qk[i], q[i]);
	causal_met_u(c, "total_in_ns", in->total);
	/* the baseline is every call outside all of the op's anomalies: name them */
	causal_met_anomalies(x, c, inany);
	causal_met_f(c, "mean_base_ns", (double)out->total / (double)out->n);
	causal_met_u(c, "outlier_threshold_ns", bs->thr);
	causal_met_u(c, "preemptions_in", oc->pn);
	causal_met_u(c, "offcpu_in_ns", oc->pd);
	for (int i = 0; i < 4; i++)
		causal_met_f(c, ck[i], cov[i]);
	causal_met_f(c, "offcpu_share_of_lost", oc->share);
	causal_met_u(c, "runq_wait_in_ns", oc->wq);
	causal_met_f(c, "offcpu_frac_in", len ? oc->off_in / (double)len : 0);
	causal_met_f(c, "offcpu_frac_out", oc->rate_out);
}

/*
 * Which host signal an interval of s in process p is blamed on (an enum
 * ilog_pattern; ILOG_PAT_GPU_SLOW when none), or -1 when none is to be
 * reported here (another chain explains it, or out of memory: x->oom).
 * Fills cov (the signals' coverage of the anomalous windows: cpu, gpu,
 * memory, network, graphs), *in_iv (the interval's ticks, for the caller
 * to free), oc (the off-CPU accounting) and *likely (memory pressure on
 * graded evidence: a storm under ILOG_MEM_CHURN, cov[2] its coverage).
 */
static int interval_cause(struct ctx *x, const struct sproc *p, const struct sseries *s,
			  struct ival iv, const uint8_t *hot, struct sig *g, uint64_t lost,
			  uint32_t lo, uint32_t hi, double mean, double cov[5], uint8_t **in_iv,
			  struct offcpu *oc, int *likely, double stl[3])
{
	*likely = 0;
	uint64_t ta = tick_ts(x, iv.a), tb = tick_ts(x, iv.b);
	/* the host signals, joined by window with the anomaly */
	const uint8_t *flag[5] = { g->fcpu, g->fgpu, g->fmem, g->fnet, g->fgr };
	for (int i = 0; i < 5; i++)
		cov[i] = coverage(x, hot, flag[i], iv.a, iv.b);
	/*
	 * CPU contention is a matter of time accounting: the calling threads'
	 * time runnable but off-CPU (preempted, or woken and waiting) above the
	 * rate outside the interval must account for half the lost time.
	 */
	uint8_t *t = *in_iv = calloc(x->T, 1);
	if (!t) {
		x->oom = 1;
		return -1;
	}
	for (uint32_t k = iv.a; k < iv.b && k < x->T; k++)
		t[k] = 1;
	/* the process's own threads and the recorder are no culprits, and the
	 * time they took is not contention by others (detect_oversub.c and
	 * detect_overhead.c report it) */
	if (causal_offcpu(x, p, t, lo, hi, lost, oc)) {
		x->oom = 1;
		return -1;
	}
	double share = oc->share;
	int cpu_ok = oc->host;
	int gpu_ok = cov[1] >= ILOG_COVERAGE;
	int mem_ok = cov[2] >= ILOG_COVERAGE;
	int gr_ok = cov[4] >= ILOG_COVERAGE;
	/* the network only for a collective, only when the process moved TCP
	 * bytes around the interval (retransmits of flows it never used cannot
	 * have held it up), and only when the interval's retransmissions are
	 * more than the rest of the run's rate explains (a busy host's one or
	 * two spurious timeouts are no burst; an aggregate spans a second, so
	 * one retransmission flags a second of windows); its share: of the
	 * anomalous windows, or of the time lost, whichever is larger */
	uint32_t na = causal_net_from(g, iv.a, lo);
	int net_sig = 0;
	if (net_op(s) && causal_net_bytes(x, p->pid, na, iv.b, NULL) > 0) {
		struct net_flow f1;
		uint64_t rin, rout;
		causal_net_flows(x, na, iv.b, NULL, lo, hi, &f1, 1, &rin, &rout);
		net_sig = causal_net_significant(rin, rout, (double)(iv.b - na),
						 (double)(hi - lo) - (double)(iv.b - na));
		double lc = lost_coverage(x, s, g->fnet, iv.a, iv.b, mean);
		if (lc > cov[3])
			cov[3] = lc;
	}
	int net_ok = cov[3] >= ILOG_COVERAGE && net_sig;
	enum ilog_pattern pat = ILOG_PAT_GPU_SLOW;
	double best = 0;
	if (cpu_ok)
		best = share > 1 ? 1 : share, pat = ILOG_PAT_CPU_CONTENTION;
	/* co-occurring calls of others do not outweigh time accounted for:
	 * with half the lost time spent off-CPU, it is not the GPU's */
	if (gpu_ok && cov[1] > best && !cpu_ok)
		best = cov[1], pat = ILOG_PAT_GPU_CONTENTION;
	if (mem_ok && cov[2] > best)
		best = cov[2], pat = ILOG_PAT_MEMORY_PRESSURE;
	if (net_ok && cov[3] > best)
		best = cov[3], pat = ILOG_PAT_NET_RETRANSMITS;
	if (gr_ok && cov[4] > best)
		return -1; /* the graph re-capture chain of this process explains it */
	/* no cause yet: a slowdown that began under a page storm that was
	 * pressure for certain and outlasted it is the storm's (the job's
	 * copies stayed slow for seconds after a storm beside two CPU hogs
	 * ended, while reclaim and compaction caught up), as a flow's loss
	 * recovery is its retransmissions': the anomalous windows from the
	 * first flagged one, when that is within the onset's aggregate */
	if (pat == ILOG_PAT_GPU_SLOW) {
		double r = net_recovery(x, hot, g->fmem, iv.a, iv.b,
					onset_span(g->memspan, iv.a, iv.b, x->T));
		if (r >= ILOG_COVERAGE)
			cov[2] = r, pat = ILOG_PAT_MEMORY_PRESSURE;
	}
	/*
	 * Nothing the guest accounts for, but the hypervisor took the VM's
	 * CPUs for half the lost time or more (steal): a CPU that is not
	 * running at all delays the calls, their wakeups and their peers
	 * alike, and what the guest saw meanwhile (retransmission timers that
	 * fired late, co-occurring calls) is its consequence, not the cause
	 * (a clean loop's synchronize and a clean all-reduce over loopback
	 * both slowed 8x on a CI machine, with 3 spurious retransmissions).
	 * A page storm that is pressure for certain is the exception: on a VM
	 * the hypervisor backs the memory a guest touches as it is touched,
	 * and that time shows as steal (a memory-storm demo beside two CPU
	 * hogs: steal 15.9% around the slow calls against 3.5% elsewhere), so
	 * there the steal is the storm's consequence.
	 */
	if (pat != ILOG_PAT_CPU_CONTENTION && pat != ILOG_PAT_MEMORY_PRESSURE) {
		stl[0] = causal_stolen(x, t, lo, hi, s->layer == ILOG_LAYER_NCCL, &stl[1]);
		if (causal_steal_explains(stl[0], (double)lost))
			return ILOG_PAT_GPU_SLOW;
	}
	/* no cause found: a slowdown that began under retransmissions and
	 * outlasted them is the flow's loss recovery (net_recovery) */
	if (pat == ILOG_PAT_GPU_SLOW && net_sig) {
		/* the onset's precision: the first aggregate that reaches it */
		double r = net_recovery(x, hot, g->fnet, iv.a, iv.b,
					onset_span(g->netspan, na, iv.b, x->T));
		if (r >= ILOG_COVERAGE)
			cov[3] = r, pat = ILOG_PAT_NET_RETRANSMITS;
	}
	/* still no cause: page allocations an outlier in most anomalous
	 * windows, under the rate that is pressure for certain, by one process
	 * that is not the job, rose by half the machine's rise and by
	 * ILOG_MEM_LIKELY of the available memory per second or more, are the
	 * likely cause - graded, not switched between "host not involved" and
	 * a culprit at one rate.  A culprit whose rise over the interval
	 * reaches the rate of certainty is pressure for certain, though the
	 * windows flagged for certain were a minority of the anomalous ones
	 * (beside two CPU hogs a memory-pressure demo's 3.43 GiB/s storm filled
	 * half of an interval the hogs had stretched, and was called "likely,
	 * under the edge" at 14.9% of the available memory per second) */
	if (pat == ILOG_PAT_GPU_SLOW) {
		double w = coverage(x, hot, g->fmemw, iv.a, iv.b), sh = 0;
		struct page_storm ps;
		if (w >= ILOG_COVERAGE && !causal_page_storm(x, p, iv.a, iv.b, lo, hi, &ps) &&
		    page_culprit(&ps) && (sh = storm_share(&ps, avail_before(x, iv.a))) >= ILOG_MEM_LIKELY)
			cov[2] = w, pat = ILOG_PAT_MEMORY_PRESSURE, *likely = sh < ILOG_MEM_CHURN;
	}
	/* its own cgroup's CPU quota held it: the time off the CPU is no other
	 * process's doing (detect_throttle.c names the limit) */
	if (pat == ILOG_PAT_CPU_CONTENTION &&
	    causal_quota_held(x, p->pid, ta, tb, (double)lost))
		return -1;
	return (int)pat;
}

/*
 * Whether a slower op's interval was on a saturated host (sat: its PSI and
 * CPU busy there, for slow_chain).
 */
static int interval_saturated(struct ctx *x, const struct sseries *s, struct ival iv,
			      uint32_t lo, uint32_t hi, const struct offcpu *oc, uint64_t lost,
			      double sat[2])
{
	/* saturated in the interval, and more than over the process's
	 * run: a host saturated all along (a build on every core) slowed
	 * the calls outside the interval as much.  Or saturated all
	 * along and the threads were off-CPU in the interval (preempted,
	 * waiting for a CPU) at least as long as the calls lost: then
	 * the CPU accounts for the loss as well as the GPU does, and a
	 * loaded host's varying load makes such intervals (beside two
	 * CPU hogs a clean loop's synchronize p99 doubled for 0.9 s, 86
	 * ms lost, while its thread waited 278 ms for a CPU there; a
	 * GPU staged 2.3 s slower had 307 ms).  And an NCCL call on a
	 * host saturated there: it waits for its peers, whose progress
	 * a saturated host delays where the caller's own accounting
	 * cannot see it (beside two CPU hogs a TCP all-reduce's p50
	 * went 235 us -> 1.27 ms with its caller off-CPU 1.2% of the
	 * time, its peer rank a process starved of CPU) */
	double all[2];
	int saturated = causal_cpu_saturated(x, iv.a, iv.b, &sat[0], &sat[1]);
	causal_cpu_saturated(x, lo, hi, &all[0], &all[1]);
	return saturated && ((sat[0] >= ILOG_SAT_PSI && sat[0] >= ILOG_SAT_RISE * all[0]) ||
			     (sat[1] >= ILOG_SAT_CPU && sat[1] >= all[1] + 10) ||
			     oc->off_in >= (double)lost || s->layer == ILOG_LAYER_NCCL);
}

static void interval_chain(struct ctx *x, const struct sproc *p, const struct sseries *s,
			   const struct base *bs, const uint8_t *hot, const uint8_t *inany,
			   struct ival iv, struct sig *g, uint32_t lo, uint32_t hi)
{
	struct dhist in, out;
	struct offcpu oc = { 0 };
	uint8_t *in_iv = NULL;
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
	/* what the op's own spread explains: n calls drawn from the calls
	 * outside the anomalies exceed n times their mean by this much now and
	 * then (ILOG_SPREAD_Z standard errors of the sum) - a heavy tail that
	 * happened to bunch up loses nothing above it */
	double spread = ILOG_SPREAD_Z * ilog_dhist_sd(&out) * sqrt((double)in.n);
	uint64_t ta = tick_ts(x, iv.a), tb = tick_ts(x, iv.b);
	uint64_t len = tb - ta;

	double cov[5], stl[3] = { 0, 0, 0 };
	int likely;
	int pat = interval_cause(x, p, s, iv, hot, g, lost, lo, hi, mean_out, cov, &in_iv, &oc,
				 &likely, stl);
	if (pat < 0)
		goto done;

	struct cand *c = causal_cand_new(x, p, pat, s->op, ta, tb, lost);
	if (!c)
		goto done;
	c->spread = spread < (double)lost ? (uint64_t)spread : lost;
	const char *comm = c->comm;
	char head[512];
	snprintf(head, sizeof(head),
		 "%s in PID %u (%s) slowed from p50 %s to %s and p99 %s to %s (%.1fx) between %s and %s",
		 opn(s->op), p->pid, comm, D(x, (double)m_out), D(x, (double)m_in),
		 D(x, (double)q_out), D(x, (double)q_in), (double)q_in / (double)(q_out ? q_out : 1),
		 R(x, ta), R(x, tb));
	interval_metrics(x, c, &in, &out, (const uint64_t[]){ m_in, m_out, q_in, q_out }, inany,
			 bs, &oc, cov, len);
	causal_ev_add(x, c, ta, "%s p99 %s, %.1fx its baseline of %s: anomaly begins",
		      opn(s->op), D(x, (double)q_in), (double)q_in / (double)(q_out ? q_out : 1),
		      D(x, (double)q_out));
	/* the worst window */
	uint32_t worst = iv.a;
	uint64_t wmax = 0;
	for (uint32_t k = iv.a; k < iv.b && k < s->nt; k++)
		if (s->t[k].max > wmax)
			wmax = s->t[k].max, worst = k;
	struct snapsum ss;
	causal_snaps(x, iv.a, iv.b, &ss);
	uint32_t opid;
	uint64_t on;
	uint64_t oth = causal_others_calls(x, p, in_iv, &opid, &on);
	uint32_t ppid;
	uint64_t ptop;
	uint64_t pg = causal_pages(x, iv.a, iv.b, &ppid, &ptop);
	causal_met_u(c, "other_cuda_calls_in", oth);
	causal_met_u(c, "pages_in", pg);
	if (ss.n) {
		causal_met_f(c, "cpu_pct_avg_in", ss.cpu_avg);
		causal_met_u(c, "mem_avail_min_in", ss.avail_min);
		causal_met_u(c, "swap_growth_in", ss.swap_growth);
	}

	if (pat == ILOG_PAT_CPU_CONTENTION)
		cpu_chain(x, c, p, head, &oc, ta, len, &ss);
	else if (pat == ILOG_PAT_GPU_CONTENTION)
		gpu_chain(x, c, p, head, &oc, ta, opid, on);
	else if (pat == ILOG_PAT_MEMORY_PRESSURE)
		memory_chain(x, c, p, head, iv, lo, hi, pg, ppid, ptop, &ss, likely, cov[2], g);
	else if (pat == ILOG_PAT_NET_RETRANSMITS)
		net_chain(x, c, p, head, iv, lo, hi, g);
	else {
		double sat[2];
		int stolen = causal_steal_explains(stl[0], (double)lost);
		int saturated = !stolen && interval_saturated(x, s, iv, lo, hi, &oc, lost, sat);
		causal_met_u(c, "host_saturated", (uint64_t)saturated);
		if (stl[0] > 0)
			causal_met_steal(c, stl[0], &stl[1]);
		/* the share of the graded loss the median call's growth makes */
		double graded = (double)(lost - c->spread);
		double shift = m_in > m_out ? (double)in.n * (double)(m_in - m_out) : 0;
		double typical = graded > 0 ? shift / graded : 1;
		causal_met_f(c, "typical_share", typical > 1 ? 1 : typical);
		slow_chain(x, c, p, s, head, &oc, len, oth, pg, &ss, saturated ? sat : NULL,
			   stolen ? stl : NULL, typical);
	}
	causal_ev_add(x, c, tick_ts(x, worst), "worst window: a %s call took %s", opn(s->op),
		      D(x, (double)wmax));
	if (ss.n)
		causal_ev_add(x, c, ta, "CPUs %s busy on average (max %s), load up to %.2f",
			      P(x, ss.cpu_avg / 100), P(x, ss.cpu_max / 100), ss.load_max);
	causal_ev_add(x, c, tb, "%s back to baseline (interval ends); %s lost", opn(s->op),
		      D(x, (double)lost));
done:
	causal_offcpu_free(&oc);
	free(in_iv);
	ilog_dhist_free(&in);
	ilog_dhist_free(&out);
}

static void intervals(struct ctx *x, struct causal_proc *pc, const struct causal_series *sc)
{
	for (uint32_t j = 0; j < sc->niv; j++)
		if (sc->iv[j].b > sc->cold_end) /* not just the cold calls again */
			interval_chain(x, pc->p, sc->s, &sc->bs, sc->hot, sc->inany, sc->iv[j],
				       &pc->g, pc->lo, pc->hi);
}

const struct causal_detector causal_detector_interval = {
	"interval", CAUSAL_SERIES_ANALYZED, intervals,
};
