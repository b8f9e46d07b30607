// SPDX-License-Identifier: MIT
/*
 * Detector: CUDA graphs - a graph captured before any eager warm-up
 * launch (the capture failed or ended early), and graphs re-captured and
 * re-instantiated after the process started launching them.
 */
#include <stdlib.h>
#include "causal_int.h"

/*
 * The process's first capture, taken before any eager launch, failed or
 * held fewer than half the launches of its later captures: a
 * capture-warmup chain.  0, or -1 (out of memory).
 */
static int warmup_chain(struct ctx *x, const struct sproc *p, const struct scapture *first)
{
	uint64_t launches_sum = 0;
	uint32_t nl = 0;
	uint64_t lsorted[64];
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
		struct cand *c = causal_cand_new(x, p, ILOG_PAT_CAPTURE_WARMUP,
						 ILOG_OP_cudaStreamEndCapture, first->begin_ts,
						 first->end_ts + first->end_dur, dur);
		if (!c)
			return -1;
		c->forced = failed ? ILOG_SEV_HIGH : ILOG_SEV_MEDIUM;
		c->fatal = failed;
		char how[256];
		if (failed)
			snprintf(how, sizeof(how),
				 "cudaStreamEndCapture failed with error %d (%s)", first->ret,
				 causal_err_name(first->ret));
		else
			snprintf(how, sizeof(how), "the capture ended early");
		snprintf(c->root, sizeof(c->root),
			 "PID %u (%s) captured a CUDA graph %s with no eager warm-up launch before "
			 "it: %s after %s, with %u kernel launches captured%s",
			 p->pid, c->comm,
			 first->begin_ts == p->first_ts
				 ? "in its first CUDA call"
				 : causal_fmt(x, "%s after its first CUDA call",
					      D(x, (double)(first->begin_ts - p->first_ts))),
			 how,
			 D(x, (double)dur), first->launches,
			 nl ? causal_fmt(x, " (later captures hold %llu)",
					 (unsigned long long)lmed)
			    : "");
		snprintf(c->title, sizeof(c->title),
			 "CUDA graph captured without warm-up in %s (PID %u)", c->comm, p->pid);
		snprintf(c->fix, sizeof(c->fix),
			 "Run 2-3 eager warm-up iterations on a side stream before capturing, so "
			 "lazy initialization, library workspaces and allocator growth happen "
			 "outside the capture (torch.cuda.graphs: warm up before "
			 "torch.cuda.graph(...)).");
		causal_met_u(c, "capture_begin_ts", first->begin_ts);
		causal_met_u(c, "since_first_call_ns", first->begin_ts - p->first_ts);
		causal_met_u(c, "capture_ns", dur);
		causal_met_u(c, "captured_launches", first->launches);
		causal_met_u(c, "later_capture_launches_median", lmed);
		causal_met_f(c, "end_capture_ret", first->ret);
		causal_ev_add(x, c, p->first_ts, "first CUDA call of PID %u", p->pid);
		causal_ev_add(x, c, first->begin_ts,
			      "cudaStreamBeginCapture on stream 0x%llx, no eager launch so far",
			      (unsigned long long)first->stream);
		causal_ev_add(x, c, first->end_ts,
			      "cudaStreamEndCapture returned %d after %u launches", first->ret,
			      first->launches);
	}
	return 0;
}

/*
 * Captures (nre, costing re_cost) and instantiations (nre_inst, inst_cost)
 * after the process's first graph launch: a graph-recapture chain, with
 * the launch rate in windows with a re-capture (g->gr) and without.
 */
static void recapture_chain(struct ctx *x, const struct sproc *p, const struct sig *g,
			    uint32_t nre, uint32_t nre_inst, uint64_t re_cost, uint64_t inst_cost)
{
	uint64_t lost = re_cost + inst_cost;
	struct cand *c = causal_cand_new(x, p, ILOG_PAT_GRAPH_RECAPTURE,
					 ILOG_OP_cudaGraphInstantiate,
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
	causal_met_u(c, "recaptures", nre);
	causal_met_u(c, "reinstantiations", nre_inst);
	causal_met_u(c, "recapture_ns", re_cost);
	causal_met_u(c, "instantiate_ns", inst_cost);
	causal_met_u(c, "first_graph_launch_ts", p->first_graph_launch_ts);
	if (w_re && w_no) {
		causal_met_f(c, "launch_rate_recapture", r_re);
		causal_met_f(c, "launch_rate_steady", r_no);
	}
	causal_ev_add(x, c, p->first_graph_launch_ts,
		      "first cudaGraphLaunch: steady state begins");
	uint32_t shown = 0;
	for (uint32_t i = 0; i < x->st->ninst && shown < 5; i++) {
		const struct sinst *t = &x->st->inst[i];
		if (t->node == x->nd->idx && t->pid == p->pid && t->ts > p->first_graph_launch_ts) {
			causal_ev_add(x, c, t->ts, "cudaGraphInstantiate took %s",
				      D(x, (double)t->dur));
			shown++;
		}
	}
}

static void graphs(struct ctx *x, struct causal_proc *pc, const struct causal_series *sc)
{
	const struct sproc *p = pc->p;
	(void)sc;
	uint32_t ncap = 0, nfail = 0, ninst = 0, nre = 0, nre_inst = 0;
	const struct scapture *first = NULL;
	uint64_t re_cost = 0, inst_cost = 0;
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
	if (first && !first->eager_before && !first->open && warmup_chain(x, p, first))
		return;
	/* re-capture in steady state: captures/instantiations after graph launches began */
	if (nre + nre_inst)
		recapture_chain(x, p, &pc->g, nre, nre_inst, re_cost, inst_cost);
}

const struct causal_detector causal_detector_graphs = {
	"graphs", CAUSAL_PROCESS, graphs,
};
