// SPDX-License-Identifier: MIT
/* The hash map (ingero/hmap.h). */
#include <stdlib.h>
#include <string.h>
#include "ingero/hmap.h"

static struct ilog_hmap_slot *slot_for(struct ilog_hmap_slot *s, size_t cap, uint64_t a, uint64_t b)
{
	size_t i = (size_t)ilog_hash2(a, b) & (cap - 1);
	while (!(s[i].a == a && s[i].b == b) &&
	       !(s[i].a == ILOG_HMAP_EMPTY && s[i].b == ILOG_HMAP_EMPTY))
		i = (i + 1) & (cap - 1);
	return &s[i];
}

uint64_t *ilog_hmap_put(struct ilog_hmap *m, uint64_t a, uint64_t b)
{
	uint64_t *v = ilog_hmap_get(m, a, b);
	if (v)
		return v;
	if ((m->n + 1) * 10 > m->cap * 7) {
		size_t cap = m->cap ? m->cap * 2 : 64;
		struct ilog_hmap_slot *s = malloc(cap * sizeof(*s));
		if (!s)
			return NULL;
		memset(s, 0xff, cap * sizeof(*s)); /* every key (EMPTY, EMPTY) */
		for (size_t i = 0; i < m->cap; i++) {
			const struct ilog_hmap_slot *e = &m->s[i];
			if (!(e->a == ILOG_HMAP_EMPTY && e->b == ILOG_HMAP_EMPTY))
				*slot_for(s, cap, e->a, e->b) = *e;
		}
		free(m->s);
		m->s = s;
		m->cap = cap;
	}
	struct ilog_hmap_slot *e = slot_for(m->s, m->cap, a, b);
	*e = (struct ilog_hmap_slot){ a, b, 0 };
	m->n++;
	return &e->v;
}

void ilog_hmap_free(struct ilog_hmap *m)
{
	free(m->s);
	memset(m, 0, sizeof(*m));
}
