// SPDX-License-Identifier: MIT
/* The log-linear latency histogram (ingero/hist.h). */
#include "ingero/hist.h"

uint64_t ilog_hist_value(uint32_t b)
{
	if (b < ILOG_HIST_SUB)
		return b;
	uint32_t e = (b - ILOG_HIST_SUB) / ILOG_HIST_SUB + 4, sub = b % ILOG_HIST_SUB;
	uint64_t w = 1ull << (e - 4);
	return ((uint64_t)(ILOG_HIST_SUB + sub) << (e - 4)) + w / 2;
}

uint64_t ilog_hist_rank(double q, uint64_t n)
{
	/* ceil(q n), with room for q n's rounding: 0.99 * 100 is 99.000...01 */
	uint64_t rank = (uint64_t)(q * (double)n + 0.999999999);
	return rank < 1 ? 1 : rank;
}

uint64_t ilog_hist_quantile(const uint32_t *h, uint64_t n, double q)
{
	if (!n)
		return 0;
	uint64_t rank = ilog_hist_rank(q, n), cum = 0;
	for (uint32_t b = 0; b < ILOG_HIST_NB; b++)
		if ((cum += h[b]) >= rank)
			return ilog_hist_value(b);
	return ilog_hist_value(ILOG_HIST_NB - 1);
}
