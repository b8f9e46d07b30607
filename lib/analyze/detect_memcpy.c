// SPDX-License-Identifier: MIT
/*
 * Detector: memcpy-bound - a process whose memory copies are where its
 * time goes (more than synchronization, more than all other calls, and
 * at least half of its wall time), counting the copies' own time: the
 * calling threads' time off the CPU in the copies' windows, above its rate
 * elsewhere (causal_offcpu_explains), is the host's take; the copies' part
 * of it (their share of the calls' time in those windows) is taken out of
 * their time and all of it out of the wall time, so that copies a busy
 * host stretched are the CPU's, and copies that dominate a job a busy host
 * also slowed are still named.
 */
#include <stdlib.h>
#include "causal_int.h"

static void memcpy_bound(struct ctx *x, struct causal_proc *pc, const struct causal_series *sc)
{
	const struct sproc *p = pc->p;
	struct sseries **ser = pc->ser;
	uint32_t ns = pc->ns;
	(void)sc;
	/* prefer the runtime layer: a runtime memcpy may call the driver's */
	uint64_t t_lay[ILOG_LAYER__COUNT] = { 0 };
	for (uint32_t i = 0; i < ns; i++)
		if (is_memcpy(ser[i]->op) && ser[i]->layer < ILOG_LAYER__COUNT)
			t_lay[ser[i]->layer] += ser[i]->total;
	int lay = t_lay[ILOG_LAYER_RUNTIME] ? ILOG_LAYER_RUNTIME : ILOG_LAYER_DRIVER;
	uint64_t tmem = 0, bytes = 0, calls = 0, bykind[5] = { 0 };
	const struct sseries *top = NULL;
	uint64_t tsync = 0;
	double tother = 0; /* with untimed launches, an estimate (may pass 2^64 on a corrupt log) */
	for (uint32_t i = 0; i < ns; i++) {
		const struct sseries *s = ser[i];
		if (s->layer != lay)
			continue;
		if (is_memcpy(s->op)) {
			tmem += s->total;
			bytes += s->bytes;
			calls += s->n;
			for (int k = 0; k < 5; k++)
				bykind[k] += s->bytes_kind[k];
			if (!top || s->total > top->total)
				top = s;
		} else if (is_sync(s->op)) {
			tsync += s->total;
		} else {
			tother += causal_ser_total(s);
		}
	}
	if (!top)
		return;
	double wall = (double)causal_proc_wall(p);
	double frac = (double)tmem / wall;
	/* memcpy-bound: copies are where the job's time goes - the largest
	 * group of calls and most of the wall time */
	if (tmem <= tsync || (double)tmem <= tother || frac < 0.5)
		return;
	uint8_t *mark = calloc(x->T, 1);
	if (!mark) {
		x->oom = 1;
		return;
	}
	for (uint32_t i = 0; i < ns; i++)
		if (ser[i]->layer == lay && is_memcpy(ser[i]->op))
			for (uint32_t k = pc->lo; k < pc->hi && k < ser[i]->nt; k++)
				mark[k] |= ser[i]->t[k].n > 0;
	double off_excess;
	causal_offcpu_explains(x, p, mark, pc->lo, pc->hi, tmem, &off_excess, NULL);
	if (off_excess < 0)
		off_excess = 0;
	/* the host's take happened inside the calls of those windows (switch
	 * records are written inside traced calls): the copies' part of it is
	 * their part of the calls' time there (a launch recorded at entry at
	 * its series' timed mean) */
	double in_calls = 0;
	for (uint32_t i = 0; i < ns; i++) {
		double mean = ser[i]->n ? (double)ser[i]->total / (double)ser[i]->n : 0;
		for (uint32_t k = pc->lo; k < pc->hi && k < ser[i]->nt; k++)
			if (mark[k])
				in_calls += (double)ser[i]->t[k].total +
					    (double)ser[i]->t[k].untimed * mean;
	}
	free(mark);
	double take = in_calls > 0 ? off_excess * (double)tmem / in_calls : off_excess;
	/* the copies' own time, without what the host took from them, against
	 * the time the process had (its wall less the host's whole take) */
	double own = (double)tmem - take, had = wall - off_excess;
	if (own <= (double)tsync || own <= (double)tother || had <= 0 || own / had < 0.5)
		return;
	struct cand *c = causal_cand_new(x, p, ILOG_PAT_MEMCPY_BOUND, top->op, p->first_ts, p->last_end,
					 tmem);
	if (!c)
		return;
	static const char *const dir[5] = { "host-to-host", "host-to-device", "device-to-host",
					    "device-to-device", "default-direction" };
	int kmax = 0;
	for (int k = 1; k < 5; k++)
		if (bykind[k] > bykind[kmax])
			kmax = k;
	snprintf(c->root, sizeof(c->root),
		 "PID %u (%s) spent %s of its %s in memory copies: %llu calls took %s moving %s "
		 "(mostly %s) at %s/s, more than its %s in synchronization and %s in all other "
		 "CUDA calls",
		 p->pid, c->comm, P(x, frac), D(x, wall), (unsigned long long)calls, D(x, (double)tmem),
		 B(x, (double)bytes), dir[kmax], B(x, (double)bytes / ((double)tmem / 1e9)),
		 D(x, (double)tsync), D(x, (double)tother));
	snprintf(c->title, sizeof(c->title), "Memcpy-bound: %s (PID %u) spends %s copying", c->comm,
		 p->pid, P(x, frac));
	snprintf(c->fix, sizeof(c->fix),
		 "Overlap copies with compute: allocate host buffers pinned (cudaMallocHost, "
		 "pin_memory=True), issue cudaMemcpyAsync on a separate stream, batch small copies "
		 "into large ones and keep tensors resident on the GPU across steps.");
	causal_met_s(c, "layer", ilog_layer_name((uint32_t)lay));
	causal_met_u(c, "memcpy_calls", calls);
	causal_met_u(c, "memcpy_ns", tmem);
	causal_met_u(c, "memcpy_bytes", bytes);
	causal_met_u(c, "sync_ns", tsync);
	causal_met_u(c, "other_ns", (uint64_t)tother); /* < tmem here */
	causal_met_f(c, "memcpy_frac", frac);
	causal_ev_add(x, c, p->first_ts, "%s: %llu calls, %s, %s", opn(top->op),
		      (unsigned long long)top->n, D(x, (double)top->total),
		      B(x, (double)top->bytes));
	causal_ev_add(x, c, p->last_end, "run ends: %s of %s in copies", D(x, (double)tmem),
		      D(x, wall));
}

const struct causal_detector causal_detector_memcpy = {
	"memcpy", CAUSAL_PROCESS, memcpy_bound,
};
