// SPDX-License-Identifier: MIT
/* The string pool (ingero/vec.h). */
#include <string.h>
#include "ingero/hash.h"
#include "ingero/vec.h"

/* Equal strings whose hashes collide are keyed one step further along in
 * the length word, so lookups stay exact. */
#define BUMP (1ull << 32)

int64_t ilog_strpool_find(const struct ilog_strpool *p, const char *s, size_t n)
{
	uint64_t h = ilog_strhash(s, n);
	for (uint64_t k = n;; k += BUMP) {
		uint64_t *v = ilog_hmap_get(&p->index, h, k);
		if (!v)
			return -1;
		const char *q = p->strs[*v];
		if (!memcmp(q, s, n) && !q[n])
			return (int64_t)*v;
	}
}

int64_t ilog_strpool_add(struct ilog_strpool *p, const char *s, size_t n)
{
	int64_t i = ilog_strpool_find(p, s, n);
	if (i >= 0)
		return i;
	if (!p->chunks || p->chunks->cap - p->chunks->used < n + 1) {
		size_t cap = n + 1 > 60000 ? n + 1 : 65536 - sizeof(struct ilog_strchunk);
		struct ilog_strchunk *c = malloc(sizeof(*c) + cap);
		if (!c)
			return -1;
		c->next = p->chunks;
		c->used = 0;
		c->cap = cap;
		p->chunks = c;
	}
	if (ilog_grow((void **)&p->strs, &p->capstrs, p->nstrs, sizeof(*p->strs), 256))
		return -1;
	uint64_t h = ilog_strhash(s, n), k = n;
	while (ilog_hmap_get(&p->index, h, k))
		k += BUMP;
	if (ilog_hmap_set(&p->index, h, k, p->nstrs))
		return -1;
	char *q = p->chunks->data + p->chunks->used;
	memcpy(q, s, n);
	q[n] = 0;
	p->chunks->used += n + 1;
	p->strs[p->nstrs] = q;
	return p->nstrs++;
}

const char *ilog_strpool_intern(struct ilog_strpool *p, const char *s, size_t n)
{
	if (!n)
		return "";
	int64_t i = ilog_strpool_add(p, s, n);
	return i < 0 ? NULL : p->strs[i];
}

void ilog_strpool_free(struct ilog_strpool *p)
{
	while (p->chunks) {
		struct ilog_strchunk *c = p->chunks;
		p->chunks = c->next;
		free(c);
	}
	ilog_hmap_free(&p->index);
	free(p->strs);
	memset(p, 0, sizeof(*p));
}
