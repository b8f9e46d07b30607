/* SPDX-License-Identifier: MIT */
/* The test tools' random numbers: xorshift64*, deterministic for a seed
 * (each tool sets rng_state from its --seed). */
#ifndef INGERO_TESTS_RNG_H
#define INGERO_TESTS_RNG_H
#include <stdint.h>

static uint64_t rng_state;
static inline uint64_t rnd(void)
{
	rng_state ^= rng_state >> 12;
	rng_state ^= rng_state << 25;
	rng_state ^= rng_state >> 27;
	return rng_state * 2685821657736338717ull;
}

/* uniform in [lo, hi] */
static inline uint64_t urange(uint64_t lo, uint64_t hi)
{
	return lo + rnd() % (hi - lo + 1);
}
#endif
