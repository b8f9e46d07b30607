/* SPDX-License-Identifier: MIT */
/*
 * The synthetic event stream shared by tests/tools/synth.c (logs for tests
 * and fuzz seeds) and bench/codec (throughput and size), so the benchmark
 * measures the logs the tests use.  Shaped like a PyTorch training loop
 * seen by the recorder: one launching thread (a second one now and then),
 * calls back to back with a 0.5-2 us host gap, launch-heavy (7 in 10 are
 * kernel launches over 4 kernels), memcpys of 4 KB-512 KB, a stream sync
 * of 50-250 us every 10 calls; STACK_PCT% of the calls carry one of 64
 * user stacks (8-23 frames, each written once before its first use); a
 * preemption (host switch) every 97 calls, a system snapshot every 5000.
 * Deterministic for a seed.
 */
#ifndef INGERO_TESTS_MIX_H
#define INGERO_TESTS_MIX_H

#include <string.h>
#include "ingero/ilog.h"

struct mix {
	uint64_t rng, ts, made;           /* made: CUDA events so far */
	uint64_t written;                 /* bit id-1: stack id written */
	uint32_t pid;
	unsigned stack_pct;
	int all_ops;                      /* every op, not the launch-heavy mix */
	struct ilog_record q[4];          /* records queued around one event */
	int qn, qi;
};

static inline uint64_t mix_rnd(struct mix *m) /* xorshift64* */
{
	m->rng ^= m->rng >> 12;
	m->rng ^= m->rng << 25;
	m->rng ^= m->rng >> 27;
	return m->rng * 2685821657736338717ull;
}

static inline void mix_init(struct mix *m, uint64_t seed, uint64_t mono_ns, uint32_t pid,
			    unsigned stack_pct, int all_ops)
{
	memset(m, 0, sizeof(*m));
	m->rng = seed * 0x9E3779B97F4A7C15ull + 1;
	m->ts = mono_ns + 1000;
	m->pid = pid;
	m->stack_pct = stack_pct;
	m->all_ops = all_ops;
}

static inline void mix_event(struct mix *m)
{
	static const uint16_t launch_mix[] = {
		ILOG_OP_cudaLaunchKernel, ILOG_OP_cudaLaunchKernel, ILOG_OP_cudaLaunchKernel,
		ILOG_OP_cudaLaunchKernel, ILOG_OP_cudaLaunchKernel, ILOG_OP_cudaLaunchKernel,
		ILOG_OP_cuLaunchKernel, ILOG_OP_cudaMemcpyAsync, ILOG_OP_cudaStreamSynchronize,
		ILOG_OP_cudaMalloc,
	};
	static const uint64_t kernels[] = { 0x55d0c0a01230ull, 0x55d0c0a01470ull,
					    0x55d0c0a019a0ull, 0x55d0c0a02000ull };
	struct ilog_record *rec = &m->q[m->qn];
	struct ingero_cuda_event *e = &rec->u.cuda;
	/* the ops of format 1.0 (1..39): a fixed set, so that what the tools
	 * make from a seed does not change when the table grows */
	uint16_t op = m->all_ops ? (uint16_t)(1 + mix_rnd(m) % (ILOG_OP_ncclCommDestroy))
				 : launch_mix[mix_rnd(m) % 10];
	rec->kind = ILOG_K_CUDA;
	memset(e, 0, sizeof(*e));
	e->ts_ns = m->ts;
	e->dur_ns = op == ILOG_OP_cudaStreamSynchronize ? 50000 + mix_rnd(m) % 200000
						       : 3000 + mix_rnd(m) % 4000;
	m->ts += e->dur_ns + 500 + mix_rnd(m) % 1500;
	e->pid = m->pid;
	e->tid = m->pid + (uint32_t)(mix_rnd(m) % 16 == 0);
	e->op = op;
	e->layer = (uint8_t)ilog_op_layer(op);
	e->stream = 0x5600000a0000ull;
	switch (op) {
	case ILOG_OP_cudaLaunchKernel: case ILOG_OP_cuLaunchKernel:
		e->handle = kernels[mix_rnd(m) % 4];
		e->grid_x = 1024; e->grid_y = 1; e->grid_z = 1;
		e->block_x = 256; e->block_y = 1; e->block_z = 1;
		break;
	case ILOG_OP_cudaMemcpyAsync:
		e->bytes = 4096u << (mix_rnd(m) % 8);
		e->kind = 1;
		break;
	case ILOG_OP_cudaMalloc:
		e->bytes = 1u << 20;
		e->handle = 0x7f8000000000ull + (mix_rnd(m) % 1024) * 0x100000;
		break;
	default:
		break;
	}
	if (m->stack_pct && mix_rnd(m) % 100 < m->stack_pct) {
		uint64_t sid = 1 + mix_rnd(m) % 64;
		e->stack_id = sid;
		if (!(m->written >> (sid - 1) & 1)) {
			/* the stack goes first: move the event one slot on */
			m->q[m->qn + 1] = *rec;
			struct ilog_record *s = rec;
			memset(s, 0, sizeof(*s));
			s->kind = ILOG_K_STACK;
			s->u.stack.id = sid;
			s->u.stack.pid = m->pid;
			s->u.stack.nr = 8 + (uint32_t)(sid % 16);
			for (uint32_t k = 0; k < s->u.stack.nr; k++)
				s->u.stack.ips[k] = 0x7f0000001000ull + sid * 0x40 + k * 0x1230;
			m->written |= 1ull << (sid - 1);
			m->qn++;
		}
	}
	m->qn++;
}

/* The next record; returns 1 when it is a CUDA event. */
static inline int mix_next(struct mix *m, struct ilog_record *out)
{
	if (m->qi == m->qn) {
		uint64_t i = m->made++;
		m->qn = m->qi = 0;
		mix_event(m);
		if (i % 97 == 96) {
			struct ilog_record *h = &m->q[m->qn++];
			memset(h, 0, sizeof(*h));
			h->kind = ILOG_K_HOST;
			h->u.host.ts_ns = m->ts - 1000;
			h->u.host.type = ILOG_HOST_SWITCH;
			h->u.host.pid = m->pid;
			h->u.host.tid = m->pid;
			h->u.host.other_pid = 812;
			h->u.host.other_tid = 812;
			h->u.host.dur_ns = 100000 + mix_rnd(m) % 900000;
			h->u.host.cpu = 1;
			memcpy(h->u.host.comm, "python3", 8);
			memcpy(h->u.host.other_comm, "backup", 7);
		}
		if (i % 5000 == 4999) {
			struct ilog_record *s = &m->q[m->qn++];
			memset(s, 0, sizeof(*s));
			s->kind = ILOG_K_SNAPSHOT;
			s->u.snapshot = (struct ilog_snapshot){
				.ts_ns = m->ts, .cpu_pct = 37.5, .ncpu = 2, .mem_total = 24ull << 30,
				.mem_avail = 20ull << 30, .load1 = 1.25, .load5 = 1.0, .load15 = 0.5,
				.nprocs = 1,
			};
			s->u.snapshot.procs[0] = (struct ilog_snapshot_proc){ m->pid, 98.5, 1ull << 30 };
		}
	}
	*out = m->q[m->qi++];
	return out->kind == ILOG_K_CUDA;
}

#endif
