// SPDX-License-Identifier: MIT
/*
 * Detector: time lost between CUDA calls (format 1.6 `wait` records).
 * Per recorder window inside the process's CUDA span (causal_windows.c),
 * its CUDA call rate and its time in calls; the stalled windows are a run
 * whose rate is under ILOG_BETWEEN_RATE_DROP of the median window's.  The
 * run is taken when the time between its calls - the run's length less
 * its time in calls - grew, over what its calls needed at the gap per
 * call of the other windows, by at least ILOG_BETWEEN_SHARE of the time
 * the GPU work stalled (the missing calls at the median rate), and by more
 * than the calls' own time grew: the calls kept their latency, the time
 * went between them.  Of the run with the largest such growth, the chain
 * says where that time went, each cause's time in the run above what the
 * calls needed of it outside (per call, as the gap):
 *   - the process's calling threads blocked between calls, by the class of
 *     the system call they slept in (lock, poll, read, write, child, sleep,
 *     kernel, other: the wait records), or on I/O (its iowait records);
 *   - its CUDA threads preempted or waiting for a CPU (the switch and
 *     wakeup records, as the CPU-contention rule counts them), with the
 *     preempter whose own time rose there;
 *   - its cgroup throttled by its CPU quota (a run the quota holds for
 *     half of is the throttle chain's, not this one);
 *   - the rest: on the CPU, its own host work between calls.
 * Most first; when none of the host's causes reaches half of the growth
 * the chain says that the host does not explain it.  A run another chain
 * of the process already covers (disk-stall: its children's I/O) is left
 * to that chain (one that is material and lost at least half as much).
 */
#include <stdlib.h>
#include "causal_int.h"

enum { C_IO = ILOG_WAIT__COUNT, C_PREEMPT, C_THROTTLE, C_CPU, C_N };

static const char *const what[C_N] = {
	[ILOG_WAIT_OTHER] = "blocked in other system calls",
	[ILOG_WAIT_LOCK] = "waiting on a futex (a lock, a condition variable or a queue another "
			   "thread fills)",
	[ILOG_WAIT_POLL] = "waiting in poll/select/epoll on descriptors (sockets, pipes, events)",
	[ILOG_WAIT_READ] = "reading an empty pipe or socket (its producer, a data loader or a "
			   "peer, fell behind)",
	[ILOG_WAIT_WRITE] = "writing to a full pipe or socket (its reader fell behind)",
	[ILOG_WAIT_CHILD] = "waiting for a child process (wait4/waitid)",
	[ILOG_WAIT_SLEEP] = "sleeping as asked (nanosleep, pause, sigsuspend)",
	[ILOG_WAIT_KERNEL] = "in uninterruptible sleep not on I/O (a kernel lock, page faults)",
	[C_IO] = "blocked on I/O (disk reads, page-cache misses)",
	[C_PREEMPT] = "preempted or waiting for a CPU",
	[C_THROTTLE] = "throttled by its cgroup's CPU quota",
	[C_CPU] = "on the CPU (its own work between calls)",
};

/* A cause's name in the metrics: a wait class's as the log names it
 * (SPEC §5.5), or the analysis's own for the others. */
static const char *key(uint32_t k)
{
	static const char *const more[C_N - C_IO] = { "io", "preempted", "throttled", "cpu" };
	return k < C_IO ? ilog_wait_class_name(k) : more[k - C_IO];
}

static const char *const fix[C_N] = {
	[ILOG_WAIT_OTHER] = "find the system call with `strace -f -T -p PID` or `perf trace` and "
			    "take it off the training loop's path",
	[ILOG_WAIT_LOCK] = "find the lock or queue the loop waits on (py-spy dump, `perf lock "
			   "contention`, gdb thread apply all bt) and shorten the holder's "
			   "critical section or move that work off the loop's thread",
	[ILOG_WAIT_POLL] = "the loop waits on a descriptor: feed it faster (more DataLoader "
			   "workers, a deeper prefetch) or check the peer at the other end",
	[ILOG_WAIT_READ] = "the loop waits for data from a pipe or socket: more DataLoader workers "
			   "and a deeper prefetch (prefetch_factor), or a faster producer",
	[ILOG_WAIT_WRITE] = "the loop waits to hand data on: drain the pipe or socket faster "
			    "(a faster consumer, a larger buffer)",
	[ILOG_WAIT_CHILD] = "the loop waits for a child process to exit: start helpers "
			    "asynchronously and reap them off the training loop",
	[ILOG_WAIT_SLEEP] = "the loop sleeps by its own request: remove the sleep or back-off "
			    "from the step",
	[ILOG_WAIT_KERNEL] = "uninterruptible waits outside I/O are kernel locks or page faults: "
			     "check memory (major faults, swapping) and mmap_lock contention "
			     "(perf lock, /proc/PID/stack)",
	[C_IO] = "the loop itself reads from disk: prefetch in DataLoader workers, cache the "
		 "dataset in memory or on faster storage",
	[C_PREEMPT] = "keep other work off the job's CPUs (cpuset, isolcpus, CPU affinity) or "
		      "raise the job's priority",
	[C_THROTTLE] = "raise the job's CPU limit (the container's CPU quota) or its request",
	[C_CPU] = "the host is not involved: profile the loop's own work between calls "
		  "(py-spy, perf) - data preparation, Python overhead, logging",
};

static void between(struct ctx *x, struct causal_proc *pc, const struct causal_series *sc)
{
	const struct sproc *p = pc->p;
	(void)sc;
	int have = 0;
	for (uint32_t i = 0; i < x->st->niow && !have; i++)
		have = x->st->iow[i].cls >= 0 && x->st->iow[i].pid == p->pid &&
		       x->st->iow[i].node == x->nd->idx;
	if (!have) /* a recorder without wait records: nothing to tell the gaps by */
		return;
	struct rwin *w = NULL;
	uint8_t *mark = NULL;
	uint32_t nw = causal_rwindows(x, p->first_ts, p->last_end, 1, &w);
	if (nw < 4)
		goto out;
	double med = causal_rwin_calls(x, pc, w, nw);
	if (med <= 0)
		goto out;
	uint64_t len_all = 0, calls_all = 0;
	double busy_all = 0;
	for (uint32_t j = 0; j < nw; j++)
		len_all += w[j].dur, calls_all += w[j].calls, busy_all += w[j].busy;
	/* the run of slow windows whose gaps between calls grew most */
	double best = 0, best_lost = 0, best_calls_ex = 0;
	uint32_t ba = 0, bb = 0;
	for (uint32_t a = 0; a < nw;) {
		if ((double)w[a].calls / (double)w[a].dur >= ILOG_BETWEEN_RATE_DROP * med) {
			a++;
			continue;
		}
		uint32_t b = a;
		uint64_t len_in = 0, calls_in = 0;
		double busy_in = 0, lost = 0;
		while (b < nw && (double)w[b].calls / (double)w[b].dur < ILOG_BETWEEN_RATE_DROP * med) {
			len_in += w[b].dur, calls_in += w[b].calls, busy_in += w[b].busy;
			lost += (double)w[b].dur * (1 - (double)w[b].calls / (double)w[b].dur / med);
			b++;
		}
		uint64_t c_out = calls_all - calls_in;
		double gap_out = (double)(len_all - len_in) - (busy_all - busy_in);
		if (c_out && len_all > len_in) {
			double gap_per = gap_out > 0 ? gap_out / (double)c_out : 0;
			double busy_per = (busy_all - busy_in) / (double)c_out;
			double gap_in = (double)len_in - busy_in;
			double ex = (gap_in > 0 ? gap_in : 0) - gap_per * (double)calls_in;
			double cex = busy_in - busy_per * (double)calls_in;
			if (ex > best && ex > cex)
				best = ex, best_lost = lost, best_calls_ex = cex, ba = a, bb = b;
		}
		a = b;
	}
	if (bb <= ba || best_lost <= 0 || best < ILOG_BETWEEN_SHARE * best_lost)
		goto out;
	uint64_t ta = w[ba].ts, tb = w[bb - 1].ts + w[bb - 1].dur;
	/* another chain of the process covers the run: its cause is the
	 * specific one (disk-stall: the children's I/O), or the quota's */
	for (uint32_t i = 0; i < x->n; i++) {
		const struct cand *o = &x->c[i];
		if (!o->dead && !o->info && o->node == x->nd->idx && o->pid == p->pid &&
		    o->ts_start < tb && o->ts_end > ta && causal_severity(o) >= 0 &&
		    (double)o->lost >= 0.5 * best)
			goto out;
	}
	if (causal_quota_held(x, p->pid, ta, tb, best))
		goto out;
	uint64_t len_in = 0, calls_in = 0;
	double busy_in = 0;
	for (uint32_t j = ba; j < bb; j++)
		w[j].in = 1, len_in += w[j].dur, calls_in += w[j].calls, busy_in += w[j].busy;
	uint64_t len_out = len_all - len_in, calls_out = calls_all - calls_in;
	double busy_out = busy_all - busy_in;

	/* each cause's time in the run and outside it */
	double in[C_N] = { 0 }, out[C_N] = { 0 }, ex[C_N] = { 0 };
	uint64_t waits_in[C_N] = { 0 };
	for (uint32_t i = 0; i < x->st->niow; i++) {
		const struct siow *v = &x->st->iow[i];
		int j = v->node == x->nd->idx && v->pid == p->pid ? causal_rwin_of(w, nw, v->ts) : -1;
		if (j < 0 || v->cls >= ILOG_WAIT__COUNT)
			continue;
		uint32_t k = v->cls < 0 ? C_IO : (uint32_t)v->cls;
		*(w[j].in ? &in[k] : &out[k]) += (double)v->ns;
		if (w[j].in)
			waits_in[k] += v->n;
	}
	for (uint32_t k = 0; k <= C_IO; k++)
		ex[k] = in[k] - (double)calls_in * out[k] / (double)calls_out;
	/* preemption of its CUDA threads, as the CPU-contention rule counts it */
	mark = calloc(x->T ? x->T : 1, 1);
	if (!mark) {
		x->oom = 1;
		goto out;
	}
	uint32_t ka = tick_at(x, ta), kb = tick_at(x, tb);
	for (uint32_t k = ka; k < kb && k < x->T; k++)
		mark[k] = 1;
	struct offcpu oc = { 0 };
	uint32_t lo = tick_at(x, p->first_ts), hi = tick_at(x, p->last_end) + 1;
	if (causal_offcpu(x, p, mark, lo, hi > x->T ? x->T : hi, ilog_sat_u64(best), &oc)) {
		x->oom = 1;
		goto out;
	}
	in[C_PREEMPT] = oc.off_in;
	ex[C_PREEMPT] = oc.off_in - oc.rate_out * oc.len;
	uint32_t culprit = oc.npr && oc.named ? oc.pr[0].pid : 0;
	causal_offcpu_free(&oc);
	in[C_THROTTLE] = (double)causal_throttled(x, p->pid, ta, tb, NULL, NULL, NULL, NULL);
	double thr_all = (double)causal_throttled(x, p->pid, w[0].ts, w[nw - 1].ts + w[nw - 1].dur,
						  NULL, NULL, NULL, NULL);
	out[C_THROTTLE] = thr_all > in[C_THROTTLE] ? thr_all - in[C_THROTTLE] : 0;
	ex[C_THROTTLE] = in[C_THROTTLE] - (double)len_in * out[C_THROTTLE] / (double)len_out;
	double host = 0;
	for (uint32_t k = 0; k < C_CPU; k++)
		host += ex[k] > 0 ? ex[k] : 0;
	ex[C_CPU] = best > host ? best - host : 0;
	uint32_t ord[C_N];
	for (uint32_t k = 0; k < C_N; k++)
		ord[k] = k;
	for (uint32_t i = 1; i < C_N; i++) /* most first; ties by class */
		for (uint32_t j = i; j > 0 && ex[ord[j]] > ex[ord[j - 1]]; j--) {
			uint32_t t = ord[j];
			ord[j] = ord[j - 1], ord[j - 1] = t;
		}
	uint32_t top = ord[0];
	int explained = top != C_CPU && ex[top] >= 0.5 * best;

	struct cand *c = causal_cand_new(x, p, ILOG_PAT_BETWEEN_CALLS, ILOG_OP_UNKNOWN, ta, tb,
					 ilog_sat_u64(best));
	if (!c)
		goto out;
	if (top == C_PREEMPT && culprit && explained) {
		c->culprit = culprit;
		cpy(c->ccomm, sizeof(c->ccomm), ilog_stats_comm(x->st, x->nd->idx, culprit));
	}
	double r_in = (double)calls_in * 1e9 / (double)len_in;
	double r_out = (double)calls_out * 1e9 / (double)len_out;
	double gap_in = (double)len_in - busy_in;
	char tail[1024] = "";
	size_t l = 0;
	for (uint32_t i = 0; i < C_N && l < sizeof(tail); i++) {
		uint32_t k = ord[i];
		if (ex[k] < 0.05 * best || ex[k] <= 0)
			break;
		l += (size_t)snprintf(tail + l, sizeof(tail) - l, "%s%s %s (%s%s)", i ? "; " : "",
				      D(x, ex[k]), what[k], P(x, ex[k] > best ? 1 : ex[k] / best),
				      k <= C_IO ? causal_fmt(x, ", %llu waits",
							     (unsigned long long)waits_in[k]) : "");
		if (k == C_PREEMPT && c->culprit && l < sizeof(tail))
			l += (size_t)snprintf(tail + l, sizeof(tail) - l, ", most by PID %u (%s)",
					      c->culprit, c->ccomm);
	}
	snprintf(c->root, sizeof(c->root),
		 "PID %u (%s) made %.1f CUDA calls/s between %s and %s against %.1f/s outside "
		 "that interval while its calls took %s each against %s: %s of the interval went "
		 "between its calls, %s more than its calls needed outside it; %s%s", p->pid,
		 c->comm, r_in, R(x, ta), R(x, tb), r_out,
		 D(x, calls_in ? busy_in / (double)calls_in : 0),
		 D(x, calls_out ? busy_out / (double)calls_out : 0), D(x, gap_in > 0 ? gap_in : 0),
		 D(x, best), explained ? "" : "nothing on the host accounts for most of it: ",
		 tail[0] ? tail : "no cause recorded");
	if (explained)
		snprintf(c->title, sizeof(c->title), "%s (PID %u) lost time between its CUDA calls, %s",
			 c->comm, p->pid, what[top]);
	else
		snprintf(c->title, sizeof(c->title),
			 "%s (PID %u) lost time between its CUDA calls; the host does not explain it",
			 c->comm, p->pid);
	snprintf(c->fix, sizeof(c->fix), "%s", fix[explained ? top : C_CPU]);
	causal_rwin_metrics(c, w, nw, ta, tb, calls_in, calls_out, r_in, r_out, med);
	causal_met_u(c, "len_in_ns", len_in);
	causal_met_u(c, "len_out_ns", len_out);
	causal_met_u(c, "in_calls_in_ns", ilog_sat_u64(busy_in));
	causal_met_u(c, "in_calls_out_ns", ilog_sat_u64(busy_out));
	causal_met_f(c, "gap_excess_ns", best);
	causal_met_f(c, "call_excess_ns", best_calls_ex);
	causal_met_s(c, "cause", explained ? key(top) : "none");
	for (uint32_t k = 0; k < C_N; k++) {
		if (k < C_CPU && in[k] <= 0 && out[k] <= 0)
			continue;
		if (k < C_CPU) {
			causal_met_u(c, causal_fmt(x, "%s_in_ns", key(k)), ilog_sat_u64(in[k]));
			if (k <= C_IO)
				causal_met_u(c, causal_fmt(x, "%s_waits_in", key(k)), waits_in[k]);
		}
		causal_met_f(c, causal_fmt(x, "%s_excess_ns", key(k)), ex[k]);
	}
	causal_ev_add(x, c, ta, "CUDA calls fall to %.1f/s from %.1f/s, each call no slower",
		      r_in, r_out);
	causal_ev_add(x, c, ta, "%s", explained ? causal_fmt(x, "%s: %s of the lost time",
							  key(top), P(x, ex[top] > best ? 1 : ex[top] / best))
						: "the host explains less than half of the lost time");
out:
	free(mark);
	free(w);
}

const struct causal_detector causal_detector_between = {
	"between", CAUSAL_PROCESS, between,
};
