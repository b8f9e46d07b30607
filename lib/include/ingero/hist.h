/* SPDX-License-Identifier: MIT */
/*
 * Base layer (lib/base/hist.c): the log-linear latency histogram of the
 * live model (ingero-export --listen) and of the recorder's p99 trigger
 * (ingero-record --p99-over).  Durations below ILOG_HIST_SUB ns have a
 * bucket each; above, each power of two has ILOG_HIST_SUB buckets, so a
 * bucket's middle is within 1/32 of every duration in it.  libc only.
 */
#ifndef INGERO_HIST_H
#define INGERO_HIST_H

#include <stdint.h>

#define ILOG_HIST_SUB 16                               /* buckets per power of two */
#define ILOG_HIST_NB (ILOG_HIST_SUB + 60 * ILOG_HIST_SUB) /* covers 0 .. 2^64 ns */

/* The bucket of a duration, 0 .. ILOG_HIST_NB - 1. */
static inline uint32_t ilog_hist_bucket(uint64_t v)
{
	if (v < ILOG_HIST_SUB)
		return (uint32_t)v;
	int e = 63 - __builtin_clzll(v); /* >= 4 */
	uint32_t sub = (uint32_t)(v >> (e - 4)) & (ILOG_HIST_SUB - 1);
	return ILOG_HIST_SUB + (uint32_t)(e - 4) * ILOG_HIST_SUB + sub;
}
/* The middle of bucket b: what a quantile falling in it reads as. */
uint64_t ilog_hist_value(uint32_t b);
/* The nearest-rank quantile q (0..1: the ceil(q n)-th smallest of the n
 * counts in h[0 .. ILOG_HIST_NB)), as ilog_hist_value; 0 when n is 0. */
uint64_t ilog_hist_quantile(const uint32_t *h, uint64_t n, double q);
/* The nearest rank of quantile q among n values, at least 1. */
uint64_t ilog_hist_rank(double q, uint64_t n);

#endif
