/* SPDX-License-Identifier: MIT */
/*
 * A map from nonzero 64-bit keys to 64-bit values (open addressing, linear
 * probing, at most half full), for the id tables of merge and export.
 */
#ifndef ILOG_U64MAP_H
#define ILOG_U64MAP_H

#include <stddef.h>
#include <stdint.h>

struct ilog_u64map {
	uint64_t *k, *v;           /* k == 0: empty slot */
	size_t cap, n;
};

/* The value slot of key (nonzero), or NULL when absent. */
uint64_t *ilog_u64map_get(const struct ilog_u64map *m, uint64_t key);
/* The value slot of key (nonzero), added with value 0 when absent;
 * NULL on ENOMEM.  Slots move when the map grows: use before the next put. */
uint64_t *ilog_u64map_put(struct ilog_u64map *m, uint64_t key);
void ilog_u64map_free(struct ilog_u64map *m);

#endif
