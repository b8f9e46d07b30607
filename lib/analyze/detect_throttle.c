// SPDX-License-Identifier: MIT
/*
 * Detector: CPU quota throttling - the process's own cgroup (its
 * container) ran out of its CPU quota and the kernel stopped its threads
 * until the next period (cpu_throttle and cpu_quota records, SPEC §5.5).
 * The threads were runnable and the CPUs often idle: the scheduler's view
 * is a thread switched out for the idle task, which no preemption chain
 * may blame (detect_interval.c and detect_cpu_run.c yield to this one).
 * What the process lost is the time its cgroup was throttled while its
 * CUDA work ran, at most that time's length.
 */
#include "causal_int.h"

static void throttle(struct ctx *x, struct causal_proc *pc, const struct causal_series *sc)
{
	const struct sproc *p = pc->p;
	(void)sc;
	if (!p->ncalls || p->last_end <= p->first_ts)
		return;
	uint64_t a = p->first_ts, b = p->last_end, nthr, nper, quota, period;
	uint64_t thr = causal_throttled(x, p->pid, a, b, &nthr, &nper, &quota, &period);
	if (!thr || !nthr || !quota || !period)
		return;
	uint64_t wall = b - a, lost = thr < wall ? thr : wall;
	struct cand *c = causal_cand_new(x, p, ILOG_PAT_CPU_THROTTLE, ILOG_OP_UNKNOWN, a, b, lost);
	if (!c)
		return;
	const char *ctr = ilog_stats_container(x->st, x->nd->idx, p->pid);
	double cpus = (double)quota / (double)period;
	snprintf(c->root, sizeof(c->root),
		 "PID %u (%s)%s%s ran under a CPU quota of %s per %s period (%.2f CPU) and its "
		 "cgroup was throttled in %llu of %llu periods (%s) for %s between %s and %s, %s "
		 "of the %s its CUDA work ran: its threads waited for the next period, held by "
		 "its own limit, not by another process",
		 p->pid, c->comm, ctr[0] ? " in " : "", ctr, D(x, (double)quota),
		 D(x, (double)period), cpus, (unsigned long long)nthr, (unsigned long long)nper,
		 P(x, nper ? (double)nthr / (double)nper : 0), D(x, (double)thr), R(x, a), R(x, b),
		 P(x, (double)lost / (double)wall), D(x, (double)wall));
	snprintf(c->title, sizeof(c->title), "CPU quota: %s (PID %u) throttled by its cgroup's "
		 "limit of %.2f CPU", c->comm, p->pid, cpus);
	snprintf(c->fix, sizeof(c->fix),
		 "Raise the container's CPU limit to what the job uses (Kubernetes "
		 "resources.limits.cpu; cgroup cpu.max or cpu.cfs_quota_us), or drop the limit and "
		 "keep the request; if it must stay, run fewer busy threads (DataLoader workers, "
		 "OMP_NUM_THREADS) in the container.");
	causal_met_u(c, "quota_ns", quota);
	causal_met_u(c, "period_ns", period);
	causal_met_u(c, "throttled_periods", nthr);
	causal_met_u(c, "periods", nper);
	causal_met_u(c, "throttled_ns", thr);
	if (ctr[0])
		causal_met_s(c, "container", ctr);
	causal_ev_add(x, c, a, "its CUDA work starts under a quota of %s per %s period", D(x, (double)quota),
		      D(x, (double)period));
	causal_ev_add(x, c, b, "throttled in %llu of %llu periods, %s in all",
		      (unsigned long long)nthr, (unsigned long long)nper, D(x, (double)thr));
}

const struct causal_detector causal_detector_throttle = {
	"throttle", CAUSAL_PROCESS, throttle,
};
