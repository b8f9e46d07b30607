// SPDX-License-Identifier: MIT
/*
 * Detector: GPU-bound (informational) - a process that spends most of its
 * time waiting for the GPU while the host is not in the way.  It runs
 * after the other detectors of the process and only when none of them
 * found a cause of medium severity or more.
 */
#include "causal_int.h"

static void gpu_bound(struct ctx *x, struct causal_proc *pc, const struct causal_series *sc)
{
	const struct sproc *p = pc->p;
	struct sseries **ser = pc->ser;
	uint32_t ns = pc->ns, lo = pc->lo, hi = pc->hi;
	(void)sc;
	/* "the GPU sets the pace" only when nothing else explains the time, and
	 * never beside launch-bound (the CPU sets it) */
	for (uint32_t i = pc->before; i < x->n; i++)
		if (causal_severity(&x->c[i]) >= ILOG_SEV_MEDIUM ||
		    x->c[i].pattern == ILOG_PAT_LAUNCH_BOUND)
			return;
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
	double wall = (double)causal_proc_wall(p);
	if (!top || (double)tsync / wall < 0.5)
		return;
	struct preempt pr[4];
	uint64_t n, d;
	causal_preempters(x, p, lo, hi, pr, 4, &n, &d);
	struct snapsum ss;
	causal_snaps(x, lo, hi, &ss);
	struct cand *c = causal_cand_new(x, p, ILOG_PAT_GPU_BOUND, top->op, p->first_ts, p->last_end, 0);
	if (!c)
		return;
	c->forced = ILOG_SEV_LOW;
	c->info = 1; /* a note: how the process spends its time, no finding */
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
	causal_met_u(c, "sync_ns", tsync);
	causal_met_f(c, "sync_frac", (double)tsync / wall);
	causal_met_u(c, "preemptions", n);
	causal_met_u(c, "offcpu_ns", d);
	causal_ev_add(x, c, p->first_ts, "%s: p50 %s, p99 %s over %llu calls", opn(top->op),
		      D(x, (double)m), D(x, (double)q), (unsigned long long)top->n);
}

const struct causal_detector causal_detector_gpu_bound = {
	"gpu_bound", CAUSAL_PROCESS, gpu_bound,
};
