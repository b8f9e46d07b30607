/* SPDX-License-Identifier: MIT */
/*
 * Base layer (lib/base/): the hash map every table in lib/ and the programs
 * uses, from a key of two 64-bit words (a, b) to a 64-bit value.  Open
 * addressing with linear probing, at most 70% full; a slot holds its whole
 * key and value, so a probe touches one cache line.  An empty slot has the
 * key (UINT64_MAX, UINT64_MAX), which callers may not use.  Iteration order
 * is the table's, not insertion order: outputs must not depend on it.
 */
#ifndef INGERO_HMAP_H
#define INGERO_HMAP_H

#include <stddef.h>
#include <stdint.h>
#include "ingero/hash.h"

struct ilog_hmap_slot { uint64_t a, b, v; };

struct ilog_hmap {
	struct ilog_hmap_slot *s;
	size_t cap, n;             /* cap: 0 or a power of two */
};

#define ILOG_HMAP_EMPTY UINT64_MAX

/* The value slot of (a, b), or NULL when absent. */
static inline uint64_t *ilog_hmap_get(const struct ilog_hmap *m, uint64_t a, uint64_t b)
{
	if (!m->cap)
		return NULL;
	for (size_t i = (size_t)ilog_hash2(a, b) & (m->cap - 1);; i = (i + 1) & (m->cap - 1)) {
		struct ilog_hmap_slot *e = &m->s[i];
		if (e->a == a && e->b == b)
			return &e->v;
		if (e->a == ILOG_HMAP_EMPTY && e->b == ILOG_HMAP_EMPTY)
			return NULL;
	}
}

/* The value slot of (a, b), added with value 0 when absent; NULL when out
 * of memory.  Slots move when the map grows: use one before the next put. */
uint64_t *ilog_hmap_put(struct ilog_hmap *m, uint64_t a, uint64_t b);
/* Set (a, b) to v.  0, or -1 when out of memory. */
static inline int ilog_hmap_set(struct ilog_hmap *m, uint64_t a, uint64_t b, uint64_t v)
{
	uint64_t *p = ilog_hmap_put(m, a, b);
	if (!p)
		return -1;
	*p = v;
	return 0;
}
void ilog_hmap_free(struct ilog_hmap *m);

#endif
