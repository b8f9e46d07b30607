/* SPDX-License-Identifier: MIT */
/* Base layer (lib/base/): growing arrays and a string pool.  libc only. */
#ifndef INGERO_VEC_H
#define INGERO_VEC_H

#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include "ingero/hmap.h"

/* Room for `need` elements of *v (capacity *cap, doubling from `first`).
 * 0, or -1 out of memory (*v and *cap unchanged). */
static inline int ilog_reserve(void **v, uint32_t *cap, uint32_t need, size_t size, uint32_t first)
{
	if (need <= *cap)
		return 0;
	uint64_t nc = *cap ? *cap * 2ull : first;
	while (nc < need)
		nc *= 2;
	if (nc > UINT32_MAX)
		return -1;
	void *p = realloc(*v, (size_t)nc * size);
	if (!p)
		return -1;
	*v = p;
	*cap = (uint32_t)nc;
	return 0;
}

/* Room for element n of *v: ilog_reserve() of n + 1. */
static inline int ilog_grow(void **v, uint32_t *cap, uint32_t n, size_t size, uint32_t first)
{
	return ilog_reserve(v, cap, n + 1, size, first);
}

/* ilog_reserve() with the new elements zeroed. */
static inline int ilog_reserve0(void **v, uint32_t *cap, uint32_t need, size_t size, uint32_t first)
{
	uint32_t old = *cap;
	if (ilog_reserve(v, cap, need, size, first))
		return -1;
	if (*cap > old)
		__builtin_memset((char *)*v + (size_t)old * size, 0, (size_t)(*cap - old) * size);
	return 0;
}

/*
 * Interned NUL-terminated strings in chunks that never move: equal strings
 * get one copy, so pointers compare as the strings do.  strs[] lists them
 * in the order they were first interned.
 */
struct ilog_strpool {
	struct ilog_strchunk { struct ilog_strchunk *next; size_t used, cap; char data[]; } *chunks;
	struct ilog_hmap index;    /* (hash, length + collision bump) -> strs[] index */
	const char **strs;
	uint32_t nstrs, capstrs;
};

/* The index in strs[] of the pool's copy of s[0..n) (added when absent;
 * the empty string too), or -1 when out of memory. */
int64_t ilog_strpool_add(struct ilog_strpool *p, const char *s, size_t n);
/* The pool's copy of s[0..n), "" for n == 0 (not added); NULL when out of
 * memory. */
const char *ilog_strpool_intern(struct ilog_strpool *p, const char *s, size_t n);
/* The index in strs[] of the pool's copy of s[0..n), or -1 if absent. */
int64_t ilog_strpool_find(const struct ilog_strpool *p, const char *s, size_t n);
void ilog_strpool_free(struct ilog_strpool *p);

#endif
