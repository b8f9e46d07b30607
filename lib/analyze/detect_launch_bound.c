// SPDX-License-Identifier: MIT
/*
 * Detector: launch-bound - the host's kernel launches (cudaLaunchKernel,
 * cuLaunchKernel, cuLaunchKernelEx) take most of the process's time while
 * its synchronizes return at once: the GPU runs out of work and waits for
 * the CPU to enqueue more.  It runs before gpu_bound, which stays silent
 * where it holds (a process waiting on its own launches is not waiting on
 * the GPU).  It may sit beside cpu-contention: a preempted launching
 * thread launches slower still, and the fix for both is fewer launches.
 * Launches recorded at entry only (SPEC 5.4 UNTIMED, --launch-timing)
 * count at the mean of the timed ones.
 */
#include "causal_int.h"
#include "thresholds.h"

static int is_launch(uint16_t op)
{
	return op == ILOG_OP_cudaLaunchKernel || op == ILOG_OP_cuLaunchKernel ||
	       op == ILOG_OP_cuLaunchKernelEx;
}

static void launch_bound(struct ctx *x, struct causal_proc *pc, const struct causal_series *sc)
{
	const struct sproc *p = pc->p;
	(void)sc;
	/* the runtime's launches where it has any (a runtime launch may reach
	 * the driver's probe too), else the driver's */
	int have_rt = 0;
	for (uint32_t i = 0; i < pc->ns; i++)
		have_rt |= is_launch(pc->ser[i]->op) && pc->ser[i]->layer == ILOG_LAYER_RUNTIME;
	uint64_t nl = 0, ts = 0, ns = 0;
	double tl = 0;
	const struct sseries *top = NULL;
	double ttop = 0;
	for (uint32_t i = 0; i < pc->ns; i++) {
		const struct sseries *s = pc->ser[i];
		if (is_launch(s->op) && (!have_rt || s->layer == ILOG_LAYER_RUNTIME)) {
			/* the timed launches stand for the untimed ones */
			double t = causal_ser_total(s);
			tl += t;
			nl += causal_ser_calls(s);
			if (!top || t > ttop)
				top = s, ttop = t;
		} else if (is_sync(s->op)) {
			ts += s->total;
			ns += s->n;
		}
	}
	double wall = (double)causal_proc_wall(p);
	if (!top || nl < ILOG_LAUNCH_BOUND_MIN || tl < ILOG_LAUNCH_BOUND_SHARE * wall)
		return;
	/* the synchronizes less the time the threads waited for a CPU after
	 * waking: on a busy host a synchronize that found the GPU done still
	 * waits for the CPU it sleeps off (launches spin, they never sleep) */
	uint64_t rq = causal_runq_wait(x, p, pc->lo, pc->hi, NULL);
	double ts_gpu = ts > rq ? (double)(ts - rq) : 0;
	if (ts_gpu > ILOG_LAUNCH_BOUND_SYNC * wall)
		return;
	struct cand *c = causal_cand_new(x, p, ILOG_PAT_LAUNCH_BOUND, top->op, p->first_ts,
					 p->last_end, ilog_sat_u64(tl));
	if (!c)
		return;
	/* per step, when the process has steps */
	struct ilog_step_proc *pr;
	int np = ilog_stats_step_procs(x->st, &pr);
	double per_step = 0;
	uint32_t nsteps = 0;
	for (int i = 0; i < np; i++)
		if (pr[i].node == p->node && pr[i].pid == p->pid) {
			struct ilog_step_site *ss;
			int n = ilog_stats_step_sites(x->st, p->node, p->pid, &ss);
			for (int k = 0; k < n; k++)
				per_step += is_launch(ss[k].op) ? ss[k].calls_per_step : 0;
			free(ss);
			nsteps = pr[i].nsteps;
		}
	free(pr);
	if (np < 0)
		x->oom = 1;
	double rate = (double)nl / (wall / 1e9), share = tl / wall;
	char steps[96] = "";
	if (nsteps)
		snprintf(steps, sizeof(steps), ", %.0f kernels per step over %u steps", per_step,
			 nsteps);
	snprintf(c->root, sizeof(c->root),
		 "PID %u (%s) is launch-bound: %llu kernel launches took %s, %s of its %s "
		 "(%.0f launches/s, %s each on average%s), while its synchronizes took %s (%s; "
		 "its CUDA threads waited %s for a CPU after waking) - the GPU waits for the CPU "
		 "to enqueue work",
		 p->pid, c->comm, (unsigned long long)nl, D(x, tl), P(x, share), D(x, wall),
		 rate, D(x, tl / (double)nl), steps, D(x, (double)ts),
		 P(x, (double)ts / wall), D(x, (double)rq));
	snprintf(c->title, sizeof(c->title),
		 "Launch-bound: %s (PID %u) spends %s of its time launching kernels", c->comm,
		 p->pid, P(x, share));
	snprintf(c->fix, sizeof(c->fix),
		 "Launch fewer, larger kernels: capture the step in a CUDA graph (torch.cuda.graphs, "
		 "cudaGraphLaunch), use torch.compile(mode=\"reduce-overhead\"), fuse small kernels, "
		 "or batch more work per launch.");
	causal_met_u(c, "launches", nl);
	causal_met_u(c, "launch_ns", ilog_sat_u64(tl));
	causal_met_f(c, "launch_frac", share);
	causal_met_f(c, "launches_per_s", rate);
	causal_met_u(c, "sync_ns", ts);
	causal_met_u(c, "syncs", ns);
	causal_met_f(c, "sync_frac", (double)ts / wall);
	causal_met_u(c, "runq_wait_ns", rq);
	if (nsteps) {
		causal_met_f(c, "kernels_per_step", per_step);
		causal_met_u(c, "steps", nsteps);
	}
	causal_ev_add(x, c, p->first_ts, "%llu launches, %s in all (%s of the wall time)",
		      (unsigned long long)nl, D(x, tl), P(x, share));
}

const struct causal_detector causal_detector_launch_bound = {
	"launch_bound", CAUSAL_PROCESS, launch_bound,
};
