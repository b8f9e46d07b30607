// SPDX-License-Identifier: MIT
/*
 * Detector: preemption over the whole run - the process that took the
 * CPU from a process's CUDA threads the longest, when no interval chain
 * of that process already names it.  The process itself (its own threads:
 * detect_oversub.c) and the recorder (detect_overhead.c) are never the
 * culprit, and their preemptions are not counted as lost to contention.
 */
#include <stdlib.h>
#include "causal_int.h"

static void cpu_run(struct ctx *x, struct causal_proc *pc, const struct causal_series *sc)
{
	const struct sproc *p = pc->p;
	uint32_t lo = pc->lo, hi = pc->hi, first_cand = pc->before;
	(void)sc;
	uint64_t n, d;
	struct preempt *pr = calloc(MAXPRE, sizeof(*pr));
	if (!pr) {
		x->oom = 1;
		return;
	}
	uint32_t m = causal_preempters(x, p, lo, hi, pr, MAXPRE, &n, &d);
	m = causal_drop_own(x, p, pr, m, NULL, NULL);
	struct cand *c = NULL;
	if (!m)
		goto out;
	uint64_t ext = 0; /* off-CPU time other processes took */
	for (uint32_t i = 0; i < m; i++)
		ext += pr[i].dur;
	/* its own cgroup's CPU quota held it (detect_throttle.c) */
	if (causal_quota_held(x, p->pid, tick_ts(x, lo), tick_ts(x, hi), (double)ext))
		goto out;
	/* an interval chain already names this culprit */
	for (uint32_t i = first_cand; i < x->n; i++)
		if (x->c[i].pattern == ILOG_PAT_CPU_CONTENTION && x->c[i].culprit == pr[0].pid)
			goto out;
	c = causal_cand_new(x, p, ILOG_PAT_CPU_CONTENTION, ILOG_OP_UNKNOWN, tick_ts(x, lo), tick_ts(x, hi),
			    ext);
	if (!c)
		goto out;
	const char *cc = ilog_stats_comm(x->st, x->nd->idx, pr[0].pid);
	c->culprit = pr[0].pid;
	cpy(c->ccomm, sizeof(c->ccomm), cc);
	const char *ctr = ilog_stats_other_container(x->st, x->nd->idx, pr[0].pid, p->pid);
	snprintf(c->root, sizeof(c->root),
		 "PID %u (%s)%s%s%s preempted the CUDA threads of PID %u (%s) %llu times for %s "
		 "off-CPU over the whole run (all preemptions: %llu, %s, %s of its %s)",
		 pr[0].pid, cc, ctr[0] ? " in " : "", ctr, ctr[0] ? "," : "", p->pid, c->comm,
		 (unsigned long long)pr[0].n, D(x, (double)pr[0].dur),
		 (unsigned long long)n, D(x, (double)d), P(x, (double)d / (double)c->wall),
		 D(x, (double)c->wall));
	snprintf(c->title, sizeof(c->title), "CPU contention: %s (PID %u) preempted %s (PID %u)", cc,
		 pr[0].pid, c->comm, p->pid);
	snprintf(c->fix, sizeof(c->fix), FIX_CPU, causal_fmt(x, "%s (PID %u)", cc, pr[0].pid), cc);
	causal_met_preempt(c, "culprit", &pr[0]);
	causal_met_u(c, "preemptions", n);
	causal_met_u(c, "offcpu_ns", d);
	causal_met_u(c, "offcpu_others_ns", ext);
	for (uint32_t i = 0; i < m && i < 4; i++)
		causal_ev_add(x, c, tick_ts(x, lo), "PID %u (%s): %llu preemptions, %s off-CPU",
			      pr[i].pid, ilog_stats_comm(x->st, x->nd->idx, pr[i].pid),
			      (unsigned long long)pr[i].n, D(x, (double)pr[i].dur));
out:
	free(pr);
}

const struct causal_detector causal_detector_cpu_run = {
	"cpu_run", CAUSAL_PROCESS, cpu_run,
};
