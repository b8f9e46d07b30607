// SPDX-License-Identifier: MIT
/*
 * Detector: OOM kills - the kernel OOM killer killing a process with
 * CUDA work, or any process while CUDA work was running on the node.
 */
#include "causal_int.h"

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
		if (ss.n && ss.total)
			l += (size_t)snprintf(tail + l, sizeof(tail) - l,
					      "; the least memory available before it was %s (%s of %s)",
					      P(x, (double)ss.avail_min / (double)ss.total),
					      B(x, (double)ss.avail_min), B(x, (double)ss.total));
		if (tpid && tn)
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
		snprintf(c->fix, sizeof(c->fix),
			 "Give the job memory headroom: cap other processes (cgroup memory.max), "
			 "shrink host-side buffers (DataLoader workers, pinned pools), add RAM or swap, "
			 "and protect the job with oom_score_adj=-1000 if it must survive.");
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
