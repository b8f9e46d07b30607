// SPDX-License-Identifier: MIT
/*
 * Detector: pageable-copy - async copies whose host side lies in no range
 * the process pinned (format 1.5: memory.c tells pinned from pageable)
 * and that returned only after ILOG_PAGEABLE_BLOCK_NS or more: the
 * runtime staged the data through a pinned buffer of its own while the
 * host waited, so the "async" copy blocked.  Memory pinned before the
 * recording began looks pageable; such copies return at once and are not
 * counted, which is why only copies that blocked make the chain.  A small
 * device-to-host copy that waited is the GPU's queue, not the staging: the
 * hidden-sync detector's.  Most of the pageable copies must have blocked:
 * when only a few did, preemption stretched them, not the staging.
 */
#include "causal_int.h"

static void pageable(struct ctx *x, struct causal_proc *pc, const struct causal_series *sc)
{
	const struct sproc *p = pc->p;
	(void)sc;
	/* the runtime's copies when it has any: a runtime copy may call the driver's */
	int lay = ILOG_LAYER_DRIVER;
	for (uint32_t i = 0; i < pc->ns; i++)
		if (ilog_smem_async_copy(pc->ser[i]->op) && pc->ser[i]->layer == ILOG_LAYER_RUNTIME)
			lay = ILOG_LAYER_RUNTIME;
	uint64_t n = 0, ns = 0, bytes = 0, cls[3] = { 0 };
	const struct sseries *top = NULL;
	for (uint32_t i = 0; i < pc->ns; i++) {
		const struct sseries *s = pc->ser[i];
		if (!ilog_smem_async_copy(s->op) || s->layer != lay)
			continue;
		n += s->pg_n;
		ns += s->pg_ns;
		bytes += s->pg_bytes;
		for (int k = 0; k < 3; k++)
			cls[k] += s->host_n[k];
		if (s->pg_n && (!top || s->pg_ns > top->pg_ns))
			top = s;
	}
	/* most pageable copies blocked: a few stretched by preemption are the
	 * CPU's, not the staging's */
	if (!top || n < ILOG_PAGEABLE_MIN_CALLS || 2 * n < cls[1])
		return;
	double wall = (double)causal_proc_wall(p);
	struct cand *c = causal_cand_new(x, p, ILOG_PAT_PAGEABLE_COPY, top->op, p->first_ts,
					 p->last_end, ns);
	if (!c)
		return;
	snprintf(c->root, sizeof(c->root),
		 "PID %u (%s) made %llu async copies from pageable host memory that blocked it: "
		 "they moved %s in %s, %s of its %s, the host waiting for each transfer (of its "
		 "%llu async copies %llu had a pinned host side, %llu a pageable one, %llu an "
		 "unknown one)",
		 p->pid, c->comm, (unsigned long long)n, B(x, (double)bytes), D(x, (double)ns),
		 P(x, (double)ns / wall), D(x, wall), (unsigned long long)(cls[0] + cls[1] + cls[2]),
		 (unsigned long long)cls[0], (unsigned long long)cls[1], (unsigned long long)cls[2]);
	snprintf(c->title, sizeof(c->title),
		 "Pageable copies: %s (PID %u) blocked %s in async copies from unpinned memory",
		 c->comm, p->pid, P(x, (double)ns / wall));
	snprintf(c->fix, sizeof(c->fix),
		 "Pin the host buffers the copies use: DataLoader(pin_memory=True) or "
		 "tensor.pin_memory() with .to(device, non_blocking=True); in C/C++ allocate them "
		 "with cudaMallocHost/cudaHostAlloc or pin an existing buffer once with "
		 "cudaHostRegister. A copy from pinned memory returns at once and overlaps the "
		 "GPU's work.");
	causal_met_u(c, "pageable_calls", n);
	causal_met_u(c, "pageable_ns", ns);
	causal_met_u(c, "pageable_bytes", bytes);
	causal_met_f(c, "pageable_frac", (double)ns / wall);
	causal_met_u(c, "copies_pinned", cls[0]);
	causal_met_u(c, "copies_pageable", cls[1]);
	causal_met_u(c, "copies_unknown", cls[2]);
	causal_met_u(c, "block_ns", ILOG_PAGEABLE_BLOCK_NS);
	causal_ev_add(x, c, p->first_ts, "%s: %llu blocking copies from pageable memory, %s, %s",
		      opn(top->op), (unsigned long long)top->pg_n, D(x, (double)top->pg_ns),
		      B(x, (double)top->pg_bytes));
}

const struct causal_detector causal_detector_pageable = {
	"pageable", CAUSAL_PROCESS, pageable,
};
