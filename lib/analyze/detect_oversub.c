// SPDX-License-Identifier: MIT
/*
 * Detector: oversubscription - a process's CUDA threads taken off the CPU
 * by the process's own threads (more busy threads than the cores it
 * gets), over the whole run.  This is not contention by someone else, so
 * it never names a culprit: the fix is the process's thread count.  Only
 * a material loss is a chain (MEDIUM or worse under the severity rule):
 * threads of one program time-sharing a little is ordinary; and only when
 * its own threads took at least half of its CUDA threads' off-CPU time
 * (preemptions and run-queue waits): on a host others keep busy, its
 * threads preempt each other too, but the cause is the others.
 */
#include "causal_int.h"

static void oversub(struct ctx *x, struct causal_proc *pc, const struct causal_series *sc)
{
	const struct sproc *p = pc->p;
	(void)sc;
	uint64_t n, d;
	struct preempt own, rec;
	causal_own_preempt(x, p, pc->lo, pc->hi, &own, &rec, &n, &d);
	if (!own.n)
		return;
	uint64_t wn, wq = causal_runq_wait(x, p, pc->lo, pc->hi, &wn);
	/* its own threads are what it waits for: at least half of its CUDA
	 * threads' time off-CPU (preempted by anyone, or waiting in the run
	 * queue); on a host others keep busy the fix is elsewhere */
	if (2 * own.dur < d + wq)
		return;
	uint64_t wall = causal_proc_wall(p);
	uint64_t span = x->nd->last_ts > x->nd->t0 ? x->nd->last_ts - x->nd->t0 : 1;
	uint64_t floor = ILOG_SEV_FLOOR_CALLS * causal_typical(x, p, ILOG_OP_UNKNOWN);
	if (causal_grade(own.dur, wall, span > wall ? span : wall, floor) < ILOG_SEV_MEDIUM)
		return;
	struct cand *c = causal_cand_new(x, p, ILOG_PAT_OVERSUBSCRIPTION, ILOG_OP_UNKNOWN,
					 tick_ts(x, pc->lo), tick_ts(x, pc->hi), own.dur);
	if (!c)
		return;
	uint32_t ncpu = x->nd->ncpu;
	snprintf(c->root, sizeof(c->root),
		 "PID %u (%s) preempted its own CUDA threads %llu times for %s off-CPU over the "
		 "whole run (%s of its %s): its threads outnumber the CPUs it gets%s",
		 p->pid, c->comm, (unsigned long long)own.n, D(x, (double)own.dur),
		 P(x, (double)own.dur / (double)c->wall), D(x, (double)c->wall),
		 ncpu ? causal_fmt(x, " (%u CPUs on the host)", ncpu) : "");
	if (wn) {
		size_t l = strlen(c->root);
		snprintf(c->root + l, sizeof(c->root) - l,
			 "; its CUDA threads also waited %s for a CPU after %llu wakeups", D(x, (double)wq),
			 (unsigned long long)wn);
	}
	snprintf(c->title, sizeof(c->title),
		 "Oversubscription: %s (PID %u) runs more busy threads than it has CPUs", c->comm,
		 p->pid);
	snprintf(c->fix, sizeof(c->fix),
		 "Run no more busy threads than the cores the job gets: lower its thread and worker "
		 "counts (OMP_NUM_THREADS, MKL_NUM_THREADS, torch.set_num_threads, DataLoader "
		 "num_workers)%s, or give it more cores (cgroup cpuset.cpus, a larger node).",
		 ncpu ? causal_fmt(x, " to at most %u", ncpu) : "");
	causal_met_preempt(c, "self", &own);
	causal_met_u(c, "preemptions", n);
	causal_met_u(c, "offcpu_ns", d);
	causal_met_u(c, "wakeup_waits", wn);
	causal_met_u(c, "wakeup_wait_ns", wq);
	if (ncpu)
		causal_met_u(c, "ncpu", ncpu);
	causal_ev_add(x, c, tick_ts(x, pc->lo), "PID %u's own threads: %llu preemptions, %s off-CPU",
		      p->pid, (unsigned long long)own.n, D(x, (double)own.dur));
}

const struct causal_detector causal_detector_oversub = {
	"oversub", CAUSAL_PROCESS, oversub,
};
