// SPDX-License-Identifier: MIT
/*
 * Detector: recording overhead - the CPU the recorder took from the traced
 * processes' CUDA threads (its preemptions of them), once per node.  It is
 * the cost of observing, not a cause in the job: a note ranked after every
 * finding (LOW), never a culprit of another chain, with its figures so the
 * user knows what recording cost.
 */
#include "causal_int.h"

static void overhead(struct ctx *x, struct causal_proc *pc, const struct causal_series *sc)
{
	(void)pc;
	(void)sc;
	struct preempt rec = { 0 };
	uint64_t wall = 0, all_n = 0, all_d = 0, nproc = 0, first = 0, last = 0;
	for (uint32_t j = 0; j < x->st->nprocs; j++) {
		const struct sproc *p = x->st->procs[j];
		if (p->node != x->nd->idx || !p->ncalls)
			continue;
		uint64_t n, d;
		struct preempt own, r;
		causal_own_preempt(x, p, tick_at(x, p->first_ts), tick_at(x, p->last_end) + 1, &own, &r,
				   &n, &d);
		wall += causal_proc_wall(p);
		all_n += n, all_d += d;
		if (!r.n)
			continue;
		rec.pid = r.pid;
		rec.n += r.n, rec.dur += r.dur;
		nproc++;
		if (!first || p->first_ts < first)
			first = p->first_ts;
		if (p->last_end > last)
			last = p->last_end;
	}
	if (!rec.n)
		return;
	struct cand *c = causal_cand_new(x, NULL, ILOG_PAT_RECORDING_OVERHEAD, ILOG_OP_UNKNOWN, first, last,
					 rec.dur);
	if (!c)
		return;
	c->forced = ILOG_SEV_LOW;
	c->info = 1;
	c->wall = wall;
	const char *rc = ilog_stats_comm(x->st, x->nd->idx, rec.pid);
	snprintf(c->root, sizeof(c->root),
		 "The recorder, %s (PID %u), preempted the traced CUDA threads of %llu processes "
		 "%llu times for %s off-CPU: %s of their %s of CUDA time, %s of all their off-CPU "
		 "time (%s) - the cost of observing, not a cause in the job",
		 rc, rec.pid, (unsigned long long)nproc, (unsigned long long)rec.n,
		 D(x, (double)rec.dur), P(x, (double)rec.dur / (double)wall), D(x, (double)wall),
		 P(x, all_d ? (double)rec.dur / (double)all_d : 0), D(x, (double)all_d));
	snprintf(c->title, sizeof(c->title), "Recording overhead: %s took %s from the traced threads",
		 rc, D(x, (double)rec.dur));
	snprintf(c->fix, sizeof(c->fix),
		 "Nothing to change in the job.  To record with less overhead: record no call "
		 "stacks (--stack=false), sample launches (--sampling-rate N), or give the recorder "
		 "a core the job does not use (taskset -c).");
	causal_met_u(c, "recorder_pid", rec.pid);
	causal_met_preempt(c, "recorder", &rec);
	causal_met_u(c, "processes", nproc);
	causal_met_u(c, "traced_wall_ns", wall);
	causal_met_u(c, "preemptions", all_n);
	causal_met_u(c, "offcpu_ns", all_d);
	causal_ev_add(x, c, first, "%s (PID %u): %llu preemptions of traced threads, %s", rc, rec.pid,
		      (unsigned long long)rec.n, D(x, (double)rec.dur));
}

const struct causal_detector causal_detector_overhead = {
	"overhead", CAUSAL_NODE, overhead,
};
