// SPDX-License-Identifier: MIT
/*
 * Detector: failures - CUDA calls of a series that returned an error,
 * out-of-memory errors of allocations as GPU OOM.  Graph capture and
 * instantiation errors are the CUDA graph detector's.
 */
#include "causal_int.h"

#define FIX_GPU_OOM \
	"Lower peak GPU memory: a smaller batch or activation checkpointing, drop references " \
	"before allocating, PYTORCH_CUDA_ALLOC_CONF=expandable_segments:True against " \
	"fragmentation, and check other processes holding GPU memory (nvidia-smi)."

static void failures(struct ctx *x, struct causal_proc *pc, const struct causal_series *sc)
{
	const struct sproc *p = pc->p;
	const struct sseries *s = sc->s;
	if (!s->nerr || is_graph_setup(s->op))
		return;
	int oom = s->nerr_oom && is_alloc(s->op);
	struct cand *c = causal_cand_new(x, p, oom ? ILOG_PAT_GPU_OOM : ILOG_PAT_CUDA_ERRORS, s->op,
					 s->first_err_ts, s->last_end, 0);
	if (!c)
		return;
	c->forced = oom || s->nerr == s->n ? ILOG_SEV_HIGH : ILOG_SEV_MEDIUM;
	c->fatal = c->forced == ILOG_SEV_HIGH;
	if (oom) {
		snprintf(c->root, sizeof(c->root),
			 "%s failed with out-of-memory (error 2) %llu of %llu times in PID %u (%s), "
			 "first at %s asking for %s",
			 opn(s->op), (unsigned long long)s->nerr_oom, (unsigned long long)s->n, p->pid,
			 c->comm, R(x, s->first_err_ts), B(x, (double)s->first_err_bytes));
		snprintf(c->title, sizeof(c->title), "GPU out of memory in %s (PID %u)", c->comm,
			 p->pid);
		snprintf(c->fix, sizeof(c->fix), "%s", FIX_GPU_OOM);
	} else {
		snprintf(c->root, sizeof(c->root),
			 "%s returned error %d (%s) %llu of %llu times in PID %u (%s), first at %s",
			 opn(s->op), s->first_err, causal_err_name(s->first_err),
			 (unsigned long long)s->nerr, (unsigned long long)s->n, p->pid, c->comm,
			 R(x, s->first_err_ts));
		snprintf(c->title, sizeof(c->title), "CUDA errors: %s in %s (PID %u)", opn(s->op),
			 c->comm, p->pid);
		snprintf(c->fix, sizeof(c->fix),
			 s->first_err == 35 || s->first_err == 100
				 ? "No usable GPU driver or device: install or load the NVIDIA driver "
				   "matching the CUDA runtime (nvidia-smi must list the GPU), or run "
				   "where one is present."
				 : "Check the return codes where %s is called: the work behind a failed "
				   "call never ran, and later calls fail with it.",
			 opn(s->op));
	}
	causal_met_s(c, "op", opn(s->op));
	causal_met_u(c, "errors", s->nerr);
	causal_met_u(c, "calls", s->n);
	causal_met_f(c, "first_error", s->first_err);
	causal_ev_add(x, c, s->first_err_ts, "%s returned %d (%s)", opn(s->op), s->first_err,
		      causal_err_name(s->first_err));
}

const struct causal_detector causal_detector_failures = {
	"failures", CAUSAL_SERIES_ALL, failures,
};
