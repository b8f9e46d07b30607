// SPDX-License-Identifier: MIT
/*
 * Detector: OOM kills - the kernel OOM killer killing a process with
 * CUDA work, or any process while CUDA work was running on the node.
 */
#include "causal_int.h"

/* The oom_memcg record of the kill e (its victim, within 1 ms), or NULL:
 * the kill enforced a memory cgroup's limit, not the host's memory. */
static const struct sevent *memcg_of(struct ctx *x, const struct sevent *e)
{
	for (uint32_t i = 0; i < x->st->nev; i++) {
		const struct sevent *m = &x->st->ev[i];
		if (m->node == e->node && m->type == ILOG_HOST_OOM_MEMCG && m->pid == e->pid &&
		    m->ts + 1000000 >= e->ts && m->ts <= e->ts + 1000000)
			return m;
	}
	return NULL;
}

/* The first process after the kill at ts of the victim's program (its
 * name) that made CUDA calls: the job's replacement, or NULL. */
static const struct sproc *replacement(struct ctx *x, const struct sproc *v, uint64_t ts)
{
	const struct sproc *best = NULL;
	const char *vc = ilog_stats_comm(x->st, x->nd->idx, v->pid);
	for (uint32_t j = 0; j < x->st->nprocs; j++) {
		const struct sproc *q = x->st->procs[j];
		if (q != v && q->node == x->nd->idx && q->ncalls && q->first_ts > ts &&
		    !strcmp(ilog_stats_comm(x->st, x->nd->idx, q->pid), vc) &&
		    (!best || q->first_ts < best->first_ts))
			best = q;
	}
	return best;
}

static void oom_kills(struct ctx *x, struct causal_proc *pc, const struct causal_series *sc)
{
	(void)pc;
	(void)sc;
	for (uint32_t i = 0; i < x->st->nev; i++) {
		const struct sevent *e = &x->st->ev[i];
		if (e->node != x->nd->idx || e->type != ILOG_HOST_OOM)
			continue;
		struct sproc *v = ilog_stats_proc(x->st, x->nd->idx, e->pid);
		int cuda_victim = v && v->ncalls;
		/* a non-CUDA victim matters when CUDA work was running then */
		const struct sproc *busy = NULL;
		for (uint32_t j = 0; !cuda_victim && j < x->st->nprocs; j++) {
			const struct sproc *q = x->st->procs[j];
			if (q->node == x->nd->idx && q->ncalls && q->first_ts <= e->ts &&
			    q->last_end >= e->ts)
				busy = q;
		}
		if (!cuda_victim && !busy)
			continue;
		const struct sproc *p = cuda_victim ? v : busy;
		uint32_t k = tick_at(x, e->ts), tpid;
		uint64_t tn;
		uint64_t pg = causal_pages(x, 0, k + 1, &tpid, &tn);
		struct snapsum ss;
		causal_snaps(x, 0, k + 1, &ss);
		struct cand *c = causal_cand_new(x, p, ILOG_PAT_OOM, ILOG_OP_UNKNOWN, e->ts, e->ts + 1, 0);
		if (!c)
			return;
		c->forced = cuda_victim ? ILOG_SEV_HIGH : ILOG_SEV_MEDIUM;
		c->fatal = cuda_victim;
		const char *vc = e->comm[0] ? e->comm : ilog_stats_comm(x->st, x->nd->idx, e->pid);
		char tail[512] = "";
		size_t l = 0;
		if (cuda_victim && v->noret)
			l += (size_t)snprintf(tail + l, sizeof(tail) - l,
					      "; %llu of its CUDA calls never returned",
					      (unsigned long long)v->noret);
		const struct sevent *mcg = memcg_of(x, e);
		if (mcg) {
			const char *ctr = ilog_stats_container(x->st, x->nd->idx, e->pid);
			l += (size_t)snprintf(tail + l, sizeof(tail) - l,
					      "; its memory cgroup%s%s%s had reached its limit of %s "
					      "(usage %s at the kill)",
					      ctr[0] ? " (" : "", ctr, ctr[0] ? ")" : "", B(x, (double)mcg->value),
					      B(x, (double)mcg->dur));
			if (ss.n && ss.total)
				l += (size_t)snprintf(tail + l, sizeof(tail) - l,
						      ", while the host still had %s of its memory "
						      "available (%s): the limit ran out, not the host",
						      P(x, (double)ss.avail_min / (double)ss.total),
						      B(x, (double)ss.avail_min));
			causal_met_u(c, "memcg_limit_bytes", mcg->value);
			causal_met_u(c, "memcg_usage_bytes", mcg->dur);
			if (ctr[0])
				causal_met_s(c, "container", ctr);
		} else if (ss.n && ss.total)
			l += (size_t)snprintf(tail + l, sizeof(tail) - l,
					      "; the least memory available before it was %s (%s of %s)",
					      P(x, (double)ss.avail_min / (double)ss.total),
					      B(x, (double)ss.avail_min), B(x, (double)ss.total));
		if (cuda_victim && l < sizeof(tail)) {
			/* what the job lost after it: until a new process of the
			 * same program resumed CUDA work, or to the recording's end */
			const struct sproc *r = replacement(x, v, e->ts);
			if (r) {
				l += (size_t)snprintf(tail + l, sizeof(tail) - l,
						      "; a new %s (PID %u) resumed CUDA work %s after "
						      "the kill", vc, r->pid,
						      D(x, (double)(r->first_ts - e->ts)));
				causal_met_u(c, "replacement_pid", r->pid);
				causal_met_u(c, "stall_ns", r->first_ts - e->ts);
			} else if (x->nd->last_ts > e->ts) {
				l += (size_t)snprintf(tail + l, sizeof(tail) - l,
						      "; no process of it resumed CUDA work in the "
						      "%s recorded after the kill",
						      D(x, (double)(x->nd->last_ts - e->ts)));
				causal_met_u(c, "stall_ns", x->nd->last_ts - e->ts);
			}
		}
		if (tpid && tn && l < sizeof(tail))
			snprintf(tail + l, sizeof(tail) - l,
				 "; PID %u (%s) allocated the most pages before the kill (%llu of %llu)",
				 tpid, ilog_stats_comm(x->st, x->nd->idx, tpid), (unsigned long long)tn,
				 (unsigned long long)pg);
		if (cuda_victim)
			snprintf(c->root, sizeof(c->root),
				 "The kernel OOM killer killed PID %u (%s) at %s during its GPU work%s",
				 e->pid, vc, R(x, e->ts), tail);
		else
			snprintf(c->root, sizeof(c->root),
				 "The kernel OOM killer killed PID %u (%s) at %s while PID %u (%s) was "
				 "doing GPU work%s",
				 e->pid, vc, R(x, e->ts), p->pid, c->comm, tail);
		if (tpid && tpid != p->pid) {
			c->culprit = tpid;
			cpy(c->ccomm, sizeof(c->ccomm), ilog_stats_comm(x->st, x->nd->idx, tpid));
		}
		snprintf(c->title, sizeof(c->title), "OOM kill of %s (PID %u) during GPU work", vc,
			 e->pid);
		if (mcg)
			snprintf(c->fix, sizeof(c->fix),
				 "Raise the memory limit of the job's container (cgroup memory.max, "
				 "v1 memory.limit_in_bytes; a pod's resources.limits.memory) above its "
				 "peak, or cut its host memory (DataLoader workers and prefetch depth, "
				 "pinned pools, caches): adding RAM to the host would not help.");
		else
			snprintf(c->fix, sizeof(c->fix),
				 "Give the job memory headroom: cap other processes (cgroup "
				 "memory.max), shrink host-side buffers (DataLoader workers, pinned "
				 "pools), add RAM or swap, and protect the job with "
				 "oom_score_adj=-1000 if it must survive.");
		causal_met_u(c, "victim_pid", e->pid);
		causal_met_u(c, "oom_ts", e->ts);
		causal_met_u(c, "pages_before", pg);
		if (ss.n)
			causal_met_u(c, "mem_avail_min", ss.avail_min);
		causal_ev_add(x, c, e->ts, "OOM kill of PID %u (%s)", e->pid, vc);
	}
}

const struct causal_detector causal_detector_oom_kill = {
	"oom_kill", CAUSAL_NODE, oom_kills,
};
