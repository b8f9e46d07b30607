// SPDX-License-Identifier: MIT
/*
 * Detector: gpu-memory-leak - device memory (cudaMalloc, cuMemAlloc and
 * the stream-ordered and pool allocations, format 1.5) that the process
 * kept allocating and never freed.  memory.c keeps the allocations not
 * yet freed and the outstanding bytes over time; a leak is growth that is
 * never returned: the least outstanding of the last quarter of the
 * process's time (up to its first out of memory) at least
 * ILOG_LEAK_MIN_BYTES above the least of the first quarter, with at least
 * ILOG_LEAK_MIN_ALLOCS allocations made after the first quarter still
 * held.  A spike that is freed again leaves the last quarter's least
 * where it was: no chain.  When an allocation then failed with out of
 * memory the chain is HIGH (a failed GPU operation) and says what was
 * outstanding; without one it is a LOW warning: nothing was lost yet.
 */
#include <stdlib.h>
#include "causal_int.h"

/* The least outstanding in the buckets of [a, b). */
static uint64_t out_min(const struct smem *m, uint64_t a, uint64_t b)
{
	uint64_t v = UINT64_MAX;
	for (uint32_t i = 0; i < m->nt; i++) {
		uint64_t t = m->t0 + (uint64_t)i * m->t_width;
		if (t + m->t_width > a && t < b && m->t[i].min < v)
			v = m->t[i].min;
	}
	return v;
}

struct path {
	uint64_t stack_id, pystack_id, n, bytes;
	uint16_t op;
};

static int by_path(const void *pa, const void *pb)
{
	const struct salloc *a = pa, *b = pb;
	if (a->stack_id != b->stack_id)
		return a->stack_id < b->stack_id ? -1 : 1;
	if (a->pystack_id != b->pystack_id)
		return a->pystack_id < b->pystack_id ? -1 : 1;
	return (int)a->op - (int)b->op;
}

static void devmem(struct ctx *x, struct causal_proc *pc, const struct causal_series *sc)
{
	const struct sproc *p = pc->p;
	const struct smem *m = p->mem;
	(void)sc;
	/* most frees of addresses no recorded allocation returned: the ledger
	 * does not see the process's memory (allocated before the recording,
	 * or a synthetic log) */
	if (!m || m->nt < 8 || p->last_end <= p->first_ts || m->nfree_unknown > m->nfree)
		return;
	uint64_t end = m->oom_ts ? m->oom_ts : p->last_end;
	if (end <= p->first_ts)
		return;
	uint64_t q = (end - p->first_ts) / 4, a = p->first_ts + q;
	uint64_t first = out_min(m, p->first_ts, a), last = out_min(m, end - q, end);
	if (first == UINT64_MAX || last == UINT64_MAX || last < first + ILOG_LEAK_MIN_BYTES)
		return;
	/* the allocations since the first quarter still held, by call path */
	struct salloc *kept = malloc((m->nlive ? m->nlive : 1) * sizeof(*kept));
	if (!kept) {
		x->oom = 1;
		return;
	}
	uint32_t nk = 0;
	uint64_t kb = 0;
	for (uint32_t i = 0; i < m->nlive; i++)
		if (m->live[i].ts >= a) {
			kept[nk++] = m->live[i];
			kb += m->live[i].bytes;
		}
	if (nk < ILOG_LEAK_MIN_ALLOCS || kb < ILOG_LEAK_MIN_BYTES) {
		free(kept);
		return;
	}
	qsort(kept, nk, sizeof(*kept), by_path);
	struct path top = { 0 }, cur = { 0 };
	uint32_t npaths = 0;
	for (uint32_t i = 0; i <= nk; i++) {
		if (i == nk || (i && by_path(&kept[i], &kept[i - 1]))) {
			npaths++;
			if (cur.bytes > top.bytes || (cur.bytes == top.bytes && cur.n > top.n))
				top = cur;
			cur = (struct path){ 0 };
		}
		if (i == nk)
			break;
		cur.stack_id = kept[i].stack_id;
		cur.pystack_id = kept[i].pystack_id;
		cur.op = kept[i].op;
		cur.n++;
		cur.bytes += kept[i].bytes;
	}
	free(kept);
	double secs = (double)(end - a) / 1e9;
	struct cand *c = causal_cand_new(x, p, ILOG_PAT_GPU_MEMORY_LEAK, top.op, a, end,
					 m->oom_ts ? p->last_end - m->oom_ts : 0);
	if (!c)
		return;
	char oom[400] = "";
	if (m->oom_ts) {
		c->forced = ILOG_SEV_HIGH;
		c->fatal = 1;
		snprintf(oom, sizeof(oom),
			 "; at %s %s failed with out of memory asking for %s while %s was outstanding "
			 "in %u allocations",
			 R(x, m->oom_ts), opn(m->oom_op), B(x, (double)m->oom_bytes),
			 B(x, (double)m->oom_out), m->oom_live);
	} else {
		c->forced = ILOG_SEV_LOW;
	}
	snprintf(c->root, sizeof(c->root),
		 "PID %u (%s) leaked device memory: %u allocations made between %s and %s "
		 "(%s, %s/s) were never freed, %llu of them (%s) from one call path of %s (%u paths "
		 "in all); it held %s at the end of the recording, %s at most%s",
		 p->pid, c->comm, nk, R(x, a), R(x, end), B(x, (double)kb), B(x, (double)kb / secs),
		 (unsigned long long)top.n, B(x, (double)top.bytes), opn(top.op), npaths,
		 B(x, (double)m->out), B(x, (double)m->peak), oom);
	snprintf(c->title, sizeof(c->title), "GPU memory leak: %s (PID %u) holds %s more each second",
		 c->comm, p->pid, B(x, (double)kb / secs));
	snprintf(c->fix, sizeof(c->fix),
		 "Free what the call path below allocates, or stop keeping references to it: tensors "
		 "appended to a list across steps (losses kept with their graph: use loss.item() or "
		 ".detach()), caches keyed by shapes that keep changing; torch.cuda.memory_summary() "
		 "and torch.cuda.memory._record_memory_history() name the owners.");
	causal_met_u(c, "leaked_allocs", nk);
	causal_met_u(c, "leaked_bytes", kb);
	causal_met_f(c, "leak_bytes_per_s", (double)kb / secs);
	causal_met_u(c, "path_allocs", top.n);
	causal_met_u(c, "path_bytes", top.bytes);
	causal_met_u(c, "path_stack_id", top.stack_id);
	causal_met_u(c, "path_pystack_id", top.pystack_id);
	causal_met_u(c, "paths", npaths);
	causal_met_u(c, "outstanding_end", m->out);
	causal_met_u(c, "outstanding_peak", m->peak);
	causal_met_u(c, "outstanding_first_quarter_min", first);
	causal_met_u(c, "outstanding_last_quarter_min", last);
	if (m->oom_ts) {
		causal_met_u(c, "oom_ts", m->oom_ts);
		causal_met_u(c, "oom_outstanding", m->oom_out);
		causal_met_u(c, "oom_allocs", m->oom_live);
	}
	causal_ev_add(x, c, a, "%s outstanding", B(x, (double)first));
	causal_ev_add(x, c, end, "%s outstanding%s", B(x, (double)last),
		      m->oom_ts ? ": out of memory" : "");
}

const struct causal_detector causal_detector_devmem = {
	"devmem", CAUSAL_PROCESS, devmem,
};
