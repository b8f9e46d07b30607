// SPDX-License-Identifier: MIT
/*
 * Detector: hidden-sync - small copies and memsets (ILOG_SMALL_SYNC_BYTES
 * or less) that took ILOG_SYNC_WAIT_NS or more: moving a few bytes takes
 * microseconds, so the rest was the call waiting for the work queued on
 * the GPU before it.  A tensor's .item(), .cpu() or printing in the loop
 * is such a copy (device to host), as is a synchronous cudaMemcpy or
 * cudaMemset: each stops the host until the GPU drains, so the host can
 * no longer queue work ahead of it.  The explicit synchronizes are counted
 * beside them, not as the loss: a step ends in one by design.
 */
#include "causal_int.h"

static void hidden_sync(struct ctx *x, struct causal_proc *pc, const struct causal_series *sc)
{
	const struct sproc *p = pc->p;
	(void)sc;
	/* the runtime's calls when it has any that waited: it may call the driver */
	int lay = ILOG_LAYER_DRIVER;
	for (uint32_t i = 0; i < pc->ns; i++)
		if (pc->ser[i]->wait_n && pc->ser[i]->layer == ILOG_LAYER_RUNTIME)
			lay = ILOG_LAYER_RUNTIME;
	uint64_t n = 0, ns = 0, bytes = 0, nsync = 0, tsync = 0;
	const struct sseries *top = NULL;
	for (uint32_t i = 0; i < pc->ns; i++) {
		const struct sseries *s = pc->ser[i];
		if (is_sync(s->op)) {
			nsync += s->n;
			tsync += s->total;
		}
		if (!s->wait_n || s->layer != lay)
			continue;
		n += s->wait_n;
		ns += s->wait_ns;
		bytes += s->wait_bytes;
		if (!top || s->wait_ns > top->wait_ns)
			top = s;
	}
	if (!top || n < ILOG_SYNC_MIN_CALLS)
		return;
	double wall = (double)causal_proc_wall(p);
	struct cand *c = causal_cand_new(x, p, ILOG_PAT_HIDDEN_SYNC, top->op, p->first_ts,
					 p->last_end, ns);
	if (!c)
		return;
	snprintf(c->root, sizeof(c->root),
		 "PID %u (%s) waited for the GPU in %llu small copies and memsets (%s or less "
		 "each, %s in all): %s, %s of its %s; %llu of them were %s calls (%s); besides "
		 "these it made %llu synchronize calls (%s)",
		 p->pid, c->comm, (unsigned long long)n, B(x, ILOG_SMALL_SYNC_BYTES),
		 B(x, (double)bytes), D(x, (double)ns), P(x, (double)ns / wall), D(x, wall),
		 (unsigned long long)top->wait_n, opn(top->op), D(x, (double)top->wait_ns),
		 (unsigned long long)nsync, D(x, (double)tsync));
	snprintf(c->title, sizeof(c->title),
		 "Hidden synchronizations: %s (PID %u) waits for the GPU %s of the time in small "
		 "copies", c->comm, p->pid, P(x, (double)ns / wall));
	snprintf(c->fix, sizeof(c->fix),
		 "Keep the step free of host reads of device values: no .item(), .cpu(), .tolist() "
		 "or printing of tensors, and no Python branching on them, inside the loop; "
		 "accumulate metrics on the GPU and read them once at the end of the step (or "
		 "every N steps); copy with non_blocking=True into pinned memory; use "
		 "cudaMemcpyAsync/cudaMemsetAsync instead of their synchronous forms.");
	causal_met_u(c, "wait_calls", n);
	causal_met_u(c, "wait_ns", ns);
	causal_met_u(c, "wait_bytes", bytes);
	causal_met_f(c, "wait_frac", (double)ns / wall);
	causal_met_u(c, "sync_calls", nsync);
	causal_met_u(c, "sync_ns", tsync);
	causal_ev_add(x, c, p->first_ts, "%s: %llu small calls waited %s", opn(top->op),
		      (unsigned long long)top->wait_n, D(x, (double)top->wait_ns));
}

const struct causal_detector causal_detector_hidden_sync = {
	"hidden_sync", CAUSAL_PROCESS, hidden_sync,
};
