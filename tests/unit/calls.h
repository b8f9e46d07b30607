/* SPDX-License-Identifier: MIT */
/*
 * Synthetic CUDA calls for the engine's unit tests (isolated.c,
 * netspan.c): a deterministic xorshift64 (seeded through rs), uniform and
 * normal draws, new statistics, and one call of process PID (tid PID)
 * into them.
 */
#ifndef INGERO_UNIT_CALLS_H
#define INGERO_UNIT_CALLS_H
#include <math.h>
#include "ingero/stats.h"

static uint64_t rs = 0x9e3779b97f4a7c15ull;
static inline uint64_t rnd(void)
{
	rs ^= rs << 13;
	rs ^= rs >> 7;
	rs ^= rs << 17;
	return rs;
}
static inline double u01(void) { return ((double)(rnd() >> 11) + 0.5) / 9007199254740992.0; }
static inline double gauss(void)
{
	return sqrt(-2 * log(u01())) * cos(6.283185307179586 * u01());
}

static inline void put_cuda_f(struct ilog_stats *st, uint32_t pid, uint64_t ts, uint64_t dur,
			      uint16_t op, uint8_t flags)
{
	struct ilog_record r = { .kind = ILOG_K_CUDA };
	r.u.cuda.flags = flags;
	r.u.cuda.ts_ns = ts;
	r.u.cuda.dur_ns = dur;
	r.u.cuda.pid = r.u.cuda.tid = pid;
	r.u.cuda.op = op;
	r.u.cuda.layer = (uint8_t)ilog_op_layer(op);
	ilog_stats_add(st, &r, NULL);
}

/* New statistics whose log's header reads CLOCK_MONOTONIC mono, node "n". */
static inline struct ilog_stats *stats_at(uint64_t mono)
{
	struct ilog_stats *st = ilog_stats_new(NULL);
	struct ilog_record h = { .kind = ILOG_K_HEADER };
	h.u.header.mono_ns = mono;
	h.u.header.real_ns = 1795000000000000000ull;
	h.u.header.node = ILOG_STR("n");
	ilog_stats_add(st, &h, NULL);
	return st;
}
#endif
