// SPDX-License-Identifier: MIT
/*
 * Detector: cold start - the leading slow calls of a process's series
 * (causal_series.c collects them), from CUDA context creation and lazy
 * module loading, as one chain.  What the calling threads spent off the
 * CPU in those calls' windows above their usual rate is the host's (a busy
 * host stretches first calls too) and does not count toward materiality.
 */
#include <stdlib.h>
#include "causal_int.h"

static int cmp_cold(const void *a, const void *b)
{
	const struct cold *x = a, *y = b;
	return x->lost > y->lost ? -1 : x->lost < y->lost;
}

static void cold_start(struct ctx *x, struct causal_proc *pc, const struct causal_series *sc)
{
	const struct sproc *p = pc->p;
	struct cold *cl = pc->cl;
	uint32_t ncl = pc->ncl;
	(void)sc;
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
	/* first calls a busy host stretched are the CPU's, not a cold start:
	 * the calling threads' off-CPU time in the cold calls' windows, above
	 * its rate in the process's other windows, is taken out of the loss */
	uint8_t *mark = calloc(x->T, 1);
	if (!mark) {
		x->oom = 1;
		return;
	}
	for (uint32_t k = pc->lo; k < pc->hi && k <= tick_at(x, end); k++)
		mark[k] = 1;
	double off = 0;
	causal_offcpu_explains(x, p, mark, pc->lo, pc->hi, lost, &off, NULL);
	free(mark);
	struct cand *c = causal_cand_new(x, p, ILOG_PAT_COLD_START, cl[0].s->op, p->first_ts, end, lost);
	if (!c)
		return;
	c->spread = off > 0 ? (off < (double)lost ? (uint64_t)off : lost) : 0;
	char list[768];
	size_t l = 0;
	for (uint32_t i = 0; i < ncl && i < 3; i++) {
		l += (size_t)snprintf(list + l, sizeof(list) - l, "%s%s %s took %s (median %s over %llu calls)",
				      i ? (i + 1 == ncl || i == 2 ? " and " : ", ") : "",
				      cl[i].n > 1 ? "the first calls of" : "the first",
				      opn(cl[i].s->op), D(x, (double)cl[i].first_dur),
				      D(x, (double)cl[i].med), (unsigned long long)causal_ser_calls(cl[i].s));
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
	causal_met_u(c, "cold_calls", calls);
	causal_met_u(c, "lost_ns", lost);
	for (uint32_t i = 0; i < ncl && i < 8; i++) {
		char k[64];
		snprintf(k, sizeof(k), "first_%s_ns", opn(cl[i].s->op));
		causal_met_u(c, k, cl[i].first_dur);
		snprintf(k, sizeof(k), "median_%s_ns", opn(cl[i].s->op));
		causal_met_u(c, k, cl[i].med);
		snprintf(k, sizeof(k), "calls_%s", opn(cl[i].s->op));
		causal_met_u(c, k, causal_ser_calls(cl[i].s));
	}
	causal_ev_add(x, c, p->first_ts, "first CUDA call of PID %u", p->pid);
	for (uint32_t i = 0; i < ncl && i < 6; i++)
		causal_ev_add(x, c, cl[i].s->first[0].ts, "first %s took %s, %.0fx its median %s",
			      opn(cl[i].s->op), D(x, (double)cl[i].first_dur),
			      (double)cl[i].first_dur / (double)(cl[i].med ? cl[i].med : 1),
			      D(x, (double)cl[i].med));
}

const struct causal_detector causal_detector_cold_start = {
	"cold_start", CAUSAL_PROCESS, cold_start,
};
