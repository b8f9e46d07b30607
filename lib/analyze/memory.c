// SPDX-License-Identifier: MIT
/*
 * A process's memory as its CUDA calls tell it (format 1.5, SPEC §5.4):
 * the host ranges it pinned, which say whether an async copy's host side
 * was pinned or pageable, and the device memory it holds -- every
 * allocation not yet freed, the outstanding bytes over time, and what was
 * outstanding when an allocation first failed with out of memory.  Fed in
 * record order by stats.c (add_cuda), read by the detectors through
 * sproc.mem.  Bounded by what the process holds at once, not by its calls.
 */
#include <stdlib.h>
#include <string.h>
#include "stats_int.h"
#include "thresholds.h"

static int pin_op(uint16_t op)
{
	switch (op) {
	case ILOG_OP_cudaMallocHost: case ILOG_OP_cudaHostAlloc: case ILOG_OP_cudaHostRegister:
	case ILOG_OP_cuMemHostAlloc: case ILOG_OP_cuMemAllocHost: case ILOG_OP_cuMemHostRegister:
		return 1;
	}
	return 0;
}

static int unpin_op(uint16_t op)
{
	return op == ILOG_OP_cudaFreeHost || op == ILOG_OP_cudaHostUnregister ||
	       op == ILOG_OP_cuMemFreeHost || op == ILOG_OP_cuMemHostUnregister;
}

int ilog_smem_dev_alloc(uint16_t op)
{
	switch (op) {
	case ILOG_OP_cudaMalloc: case ILOG_OP_cuMemAlloc: case ILOG_OP_cudaMallocAsync:
	case ILOG_OP_cuMemAllocAsync: case ILOG_OP_cudaMallocFromPoolAsync:
	case ILOG_OP_cuMemAllocFromPoolAsync:
		return 1;
	}
	return 0;
}

static int dev_free(uint16_t op)
{
	return op == ILOG_OP_cudaFree || op == ILOG_OP_cuMemFree || op == ILOG_OP_cudaFreeAsync ||
	       op == ILOG_OP_cuMemFreeAsync;
}

int ilog_smem_async_copy(uint16_t op)
{
	return op == ILOG_OP_cudaMemcpyAsync || op == ILOG_OP_cuMemcpyAsync ||
	       op == ILOG_OP_cuMemcpyHtoDAsync || op == ILOG_OP_cuMemcpyDtoHAsync;
}

/* The copies and memsets that return only when the device is done with
 * them: the synchronous ones. */
static int sync_data_op(uint16_t op)
{
	switch (op) {
	case ILOG_OP_cudaMemcpy: case ILOG_OP_cudaMemset: case ILOG_OP_cuMemcpy:
	case ILOG_OP_cuMemcpyHtoD: case ILOG_OP_cuMemcpyDtoH: case ILOG_OP_cuMemcpyDtoD:
		return 1;
	}
	return 0;
}

static int mem_op(uint16_t op)
{
	return pin_op(op) || unpin_op(op) || ilog_smem_dev_alloc(op) || dev_free(op) ||
	       ilog_smem_async_copy(op) || sync_data_op(op);
}

/* The pinned range holding address a: its index, or -1. */
static int64_t pin_find(const struct smem *m, uint64_t a)
{
	uint32_t lo = 0, hi = m->npin;
	while (lo < hi) { /* the first range whose base is above a */
		uint32_t mid = (lo + hi) / 2;
		if (m->pin[mid].base <= a)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (lo && a - m->pin[lo - 1].base < m->pin[lo - 1].size)
		return lo - 1;
	return -1;
}

static int pin_add(struct smem *m, uint64_t base, uint64_t size)
{
	uint32_t i = 0;
	while (i < m->npin && m->pin[i].base < base) /* few ranges: a linear walk */
		i++;
	if (i < m->npin && m->pin[i].base == base) {
		m->pin[i].size = size; /* pinned again: the newest size */
		return 0;
	}
	if (ilog_grow((void **)&m->pin, &m->cappin, m->npin, sizeof(*m->pin), 16))
		return -1;
	memmove(&m->pin[i + 1], &m->pin[i], (m->npin - i) * sizeof(*m->pin));
	m->pin[i] = (struct srange){ base, size ? size : 1 };
	m->npin++;
	return 0;
}

static void pin_del(struct smem *m, uint64_t base)
{
	for (uint32_t i = 0; i < m->npin; i++)
		if (m->pin[i].base == base) {
			memmove(&m->pin[i], &m->pin[i + 1], (m->npin - i - 1) * sizeof(*m->pin));
			m->npin--;
			return;
		}
}

/* The class of address a: pinned when a range holds it, else pageable. */
static int host_class(const struct smem *m, uint64_t a)
{
	return m && pin_find(m, a) >= 0 ? ILOG_HOST_PINNED : ILOG_HOST_PAGEABLE;
}

/* The outstanding bytes over time: SMEM_NT buckets of t_width ns from t0,
 * each the least, most and last outstanding in it; pairs are merged and
 * the width doubled when the run outgrows them. */
static void out_sample(struct smem *m, uint64_t ts)
{
	if (!m->nt) {
		m->t0 = ts;
		m->t_width = 1000000; /* 1 ms, doubled as the run grows */
		m->t[0] = (struct sout){ m->out, m->out, m->out };
		m->nt = 1;
		return;
	}
	uint64_t k = ts > m->t0 ? (ts - m->t0) / m->t_width : 0;
	while (k >= SMEM_NT) {
		uint32_t n = 0;
		for (uint32_t i = 0; i < m->nt; i += 2, n++) {
			struct sout a = m->t[i], b = i + 1 < m->nt ? m->t[i + 1] : a;
			m->t[n] = (struct sout){ a.min < b.min ? a.min : b.min,
						 a.max > b.max ? a.max : b.max, b.last };
		}
		m->nt = n;
		m->t_width *= 2;
		k /= 2;
	}
	uint64_t carry = m->t[m->nt - 1].last;
	while (m->nt <= k)
		m->t[m->nt++] = (struct sout){ carry, carry, carry };
	struct sout *o = &m->t[k];
	if (m->out < o->min)
		o->min = m->out;
	if (m->out > o->max)
		o->max = m->out;
	if (k == m->nt - 1)
		o->last = m->out;
}

static int dev_add(struct smem *m, const struct ingero_cuda_event *e)
{
	uint64_t *v = ilog_hmap_put(&m->devmap, e->handle, 0);
	if (!v)
		return -1;
	if (*v) { /* the same address again: the free was not recorded */
		struct salloc *a = &m->live[*v - 1];
		m->out -= a->bytes;
		*a = (struct salloc){ e->ts_ns, e->bytes, e->handle, e->stack_id, e->pystack_id, e->op };
	} else {
		if (ilog_grow((void **)&m->live, &m->caplive, m->nlive, sizeof(*m->live), 64))
			return -1;
		m->live[m->nlive] = (struct salloc){ e->ts_ns, e->bytes, e->handle, e->stack_id,
						     e->pystack_id, e->op };
		*v = ++m->nlive;
	}
	m->out += e->bytes;
	m->nalloc++;
	m->alloc_bytes += e->bytes;
	if (m->out > m->peak) {
		m->peak = m->out;
		m->peak_ts = e->ts_ns + e->dur_ns;
	}
	return 0;
}

static void dev_del(struct smem *m, uint64_t h)
{
	uint64_t *v = ilog_hmap_get(&m->devmap, h, 0);
	if (!v || !*v) {
		m->nfree_unknown++; /* allocated before the recording, or not recorded */
		return;
	}
	uint32_t i = (uint32_t)(*v - 1);
	*v = 0;
	m->out -= m->live[i].bytes;
	m->nfree++;
	if (i != m->nlive - 1) {
		m->live[i] = m->live[m->nlive - 1];
		uint64_t *w = ilog_hmap_get(&m->devmap, m->live[i].ptr, 0);
		if (w)
			*w = i + 1;
	}
	m->nlive--;
}

/* A call of the memory ops (ilog_smem_call); out of line, so that the
 * other calls, most of them, cost a test. */
static __attribute__((noinline)) int mem_call(struct sproc *p, const struct ingero_cuda_event *e,
					      uint8_t *mflag)
{
	struct smem *m = p->mem;
	if (!m && (pin_op(e->op) || ilog_smem_dev_alloc(e->op))) {
		if (!(m = p->mem = calloc(1, sizeof(*m))))
			return -1;
	}
	int ok = !e->ret && !(e->flags & ILOG_CUDA_F_NO_RETURN);
	if (pin_op(e->op)) {
		if (ok && e->handle && pin_add(m, e->handle, e->bytes))
			return -1;
		return 0;
	}
	if (unpin_op(e->op)) {
		if (m)
			pin_del(m, e->handle);
		return 0;
	}
	if (ilog_smem_dev_alloc(e->op)) {
		if (ok && e->handle) {
			if (dev_add(m, e))
				return -1;
			out_sample(m, e->ts_ns + e->dur_ns);
		} else if (e->ret == 2 && !m->oom_ts) {
			/* the first out of memory: what was held then */
			m->oom_ts = e->ts_ns;
			m->oom_bytes = e->bytes;
			m->oom_op = e->op;
			m->oom_out = m->out;
			m->oom_live = m->nlive;
		}
		return 0;
	}
	if (dev_free(e->op)) {
		if (!m && ok && !(m = p->mem = calloc(1, sizeof(*m))))
			return -1;
		if (ok) {
			dev_del(m, e->handle);
			out_sample(m, e->ts_ns + e->dur_ns);
		}
		return 0;
	}
	/* a copy or memset: which side is the host's, and did it wait */
	uint32_t kind = e->kind;
	if (ilog_smem_async_copy(e->op) && !e->nargs) {
		/* no source: a log before 1.5, whose pinning calls were not all
		 * recorded either */
		if (kind == 1 || kind == 2 || kind == 4)
			*mflag = ILOG_HOST_UNKNOWN;
	} else if (ilog_smem_async_copy(e->op)) {
		if (kind == 1) /* to the device: the source */
			*mflag = (uint8_t)host_class(m, e->args[0]);
		else if (kind == 2) /* from it: the destination */
			*mflag = (uint8_t)host_class(m, e->handle);
		else if (kind == 4) /* either way: pinned when a side is */
			*mflag = m && (pin_find(m, e->handle) >= 0 || pin_find(m, e->args[0]) >= 0)
					 ? ILOG_HOST_PINNED
					 : ILOG_HOST_UNKNOWN;
	}
	/* a few bytes that took long: the call waited for the device's queue */
	if ((sync_data_op(e->op) || (ilog_smem_async_copy(e->op) && kind == 2)) &&
	    e->bytes <= ILOG_SMALL_SYNC_BYTES && e->dur_ns >= ILOG_SYNC_WAIT_NS)
		*mflag |= ILOG_MEM_WAITED;
	return 0;
}

int ilog_smem_call(struct sproc *p, const struct ingero_cuda_event *e, uint8_t *mflag)
{
	*mflag = 0;
	return mem_op(e->op) ? mem_call(p, e, mflag) : 0;
}

void ilog_smem_free(struct smem *m)
{
	if (!m)
		return;
	free(m->pin);
	free(m->live);
	ilog_hmap_free(&m->devmap);
	free(m);
}
