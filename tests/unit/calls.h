/* SPDX-License-Identifier: MIT */
/*
 * Synthetic CUDA calls for the engine's unit tests (isolated.c,
 * netspan.c, ...): a deterministic xorshift64 (seeded through rs), uniform
 * and normal draws, new statistics, and one call of process PID (tid PID)
 * or one retrans record into them; the engine's chains over them, each a
 * diagnostic line.  Include after test.h.
 */
#ifndef INGERO_UNIT_CALLS_H
#define INGERO_UNIT_CALLS_H
#include <math.h>
#include <stdio.h>
#include "ingero/causal.h"
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

/* A retrans record (SPEC §5.20): flow 127.0.0.1:sport > 127.0.0.1:40000 of
 * pid retransmitted count segments in the window [ts, ts + dur). */
static inline void put_retrans(struct ilog_stats *st, uint64_t ts, uint64_t dur, uint32_t pid,
			       const char *comm, uint16_t sport, uint64_t count)
{
	static const uint8_t lo[4] = { 127, 0, 0, 1 };
	struct ilog_record r = { .kind = ILOG_K_RETRANS };
	struct ilog_retrans *t = &r.u.retrans;
	t->ts_ns = ts;
	t->dur_ns = dur;
	t->pid = pid;
	snprintf(t->comm, sizeof(t->comm), "%s", comm);
	t->family = 4;
	t->saddr = t->daddr = (struct ilog_bin){ lo, 4 };
	t->sport = sport;
	t->dport = 40000;
	t->count = count;
	t->state = 1;
	t->flows = 1;
	ilog_stats_add(st, &r, NULL);
}

/* The sockio records of process pid "train" (SPEC §5.21): bytes sent and
 * as many received in each 1 s window from ts for secs seconds. */
static inline void put_sockio(struct ilog_stats *st, uint64_t ts, uint32_t secs, uint32_t pid,
			      uint64_t bytes)
{
	for (uint32_t i = 0; i < secs; i++) {
		struct ilog_record r = { .kind = ILOG_K_SOCKIO };
		r.u.sockio = (struct ilog_sockio){ .ts_ns = ts + i * 1000000000ull,
						   .dur_ns = 1000000000ull, .pid = pid,
						   .tx_bytes = bytes, .rx_bytes = bytes,
						   .tx_calls = 100, .rx_calls = 100 };
		snprintf(r.u.sockio.comm, sizeof(r.u.sockio.comm), "train");
		ilog_stats_add(st, &r, NULL);
	}
}

/* Finishes st and runs the engine over it into cs (empty when it fails);
 * each chain is a diagnostic line, its times from t0. */
static inline void chains_of(struct ilog_stats *st, struct ilog_chain_set *cs, uint64_t t0)
{
	char err[64];
	ilog_stats_finish(st);
	if (ilog_causal_run(st, cs, err, sizeof(err)))
		memset(cs, 0, sizeof(*cs));
	for (uint32_t i = 0; i < cs->n; i++) {
		const struct ilog_chain *c = &cs->chains[i];
		diag("#%u %s %.*s [%.3f s, %.3f s): %.*s", i + 1, ilog_severity_name(c->severity),
		     (int)c->pattern.n, c->pattern.p, (double)(c->ts_start - t0) / 1e9,
		     (double)(c->ts_end - t0) / 1e9, (int)c->root_cause.n, c->root_cause.p);
	}
}

/* Whether chain c (NULL: none) is of the named pattern. */
static inline int is_pattern(const struct ilog_chain *c, const char *name)
{
	return c && c->pattern.n == strlen(name) && !memcmp(c->pattern.p, name, c->pattern.n);
}
#endif
