/* SPDX-License-Identifier: MIT */
/*
 * Base layer (lib/base/): the hash functions, in one place.  Some results
 * are written to logs and databases (stack ids, chain ids, merged ids), so
 * these functions never change; a new need gets a new function.
 */
#ifndef INGERO_HASH_H
#define INGERO_HASH_H

#include <stddef.h>
#include <stdint.h>

#define ILOG_FNV64_INIT 0xcbf29ce484222325ull  /* FNV-1a 64 offset basis */
#define ILOG_FNV64_PRIME 0x100000001b3ull
#define ILOG_GOLDEN64 0x9e3779b97f4a7c15ull    /* 2^64 / golden ratio */

/* FNV-1a 64 over n bytes, continuing from h (ILOG_FNV64_INIT to start). */
static inline uint64_t ilog_fnv1a(uint64_t h, const void *p, size_t n)
{
	const unsigned char *c = p;
	for (size_t i = 0; i < n; i++)
		h = (h ^ c[i]) * ILOG_FNV64_PRIME;
	return h;
}

/* FNV-1a 64 over the 8 bytes of v, least significant first. */
static inline uint64_t ilog_fnv1a_u64(uint64_t h, uint64_t v)
{
	for (int i = 0; i < 8; i++)
		h = (h ^ ((v >> (8 * i)) & 0xff)) * ILOG_FNV64_PRIME;
	return h;
}

/* One FNV-1a-style step over a whole 64-bit word (cheaper, weaker mixing
 * than byte by byte; the recorder's stack ids use it, as its BPF side). */
static inline uint64_t ilog_fnv1a_word(uint64_t h, uint64_t v)
{
	return (h ^ v) * ILOG_FNV64_PRIME;
}

/* splitmix64's finalizer: every input bit reaches every output bit. */
static inline uint64_t ilog_mix64(uint64_t x)
{
	x ^= x >> 30;
	x *= 0xbf58476d1ce4e5b9ull;
	x ^= x >> 27;
	x *= 0x94d049bb133111ebull;
	x ^= x >> 31;
	return x;
}

/* A hash of two words, for in-memory tables (not stable across versions). */
static inline uint64_t ilog_hash2(uint64_t a, uint64_t b)
{
	return ilog_mix64(a * ILOG_GOLDEN64 ^ (b + 0x632be59bd9b4e019ull));
}

/* A hash of s[0..n) for in-memory tables: eight bytes a step (C++ names
 * run to hundreds of bytes), mixed at the end. */
static inline uint64_t ilog_strhash(const char *s, size_t n)
{
	uint64_t h = ILOG_FNV64_INIT ^ n;
	for (; n >= 8; s += 8, n -= 8) {
		uint64_t w;
		__builtin_memcpy(&w, s, 8);
		h = (h ^ w) * ILOG_GOLDEN64;
		h ^= h >> 32;
	}
	uint64_t t = 0;
	__builtin_memcpy(&t, s, n);
	return ilog_hash2(h, t);
}

#endif
