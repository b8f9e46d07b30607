// SPDX-License-Identifier: MIT
#include <stdlib.h>
#include <string.h>
#include "ingero/u64map.h"

static size_t home(uint64_t key, size_t cap)
{
	key ^= key >> 31;
	key *= 0x9e3779b97f4a7c15ull;
	return (size_t)(key >> 17) & (cap - 1);
}

uint64_t *ilog_u64map_get(const struct ilog_u64map *m, uint64_t key)
{
	if (!m->cap)
		return NULL;
	size_t j = home(key, m->cap);
	while (m->k[j] && m->k[j] != key)
		j = (j + 1) & (m->cap - 1);
	return m->k[j] ? &m->v[j] : NULL;
}

uint64_t *ilog_u64map_put(struct ilog_u64map *m, uint64_t key)
{
	if ((m->n + 1) * 2 > m->cap) {
		size_t cap = m->cap ? m->cap * 2 : 256;
		uint64_t *k = calloc(cap, sizeof(*k)), *v = calloc(cap, sizeof(*v));
		if (!k || !v) {
			free(k);
			free(v);
			return NULL;
		}
		for (size_t i = 0; i < m->cap; i++) {
			if (!m->k[i])
				continue;
			size_t j = home(m->k[i], cap);
			while (k[j])
				j = (j + 1) & (cap - 1);
			k[j] = m->k[i];
			v[j] = m->v[i];
		}
		free(m->k);
		free(m->v);
		m->k = k;
		m->v = v;
		m->cap = cap;
	}
	size_t j = home(key, m->cap);
	while (m->k[j] && m->k[j] != key)
		j = (j + 1) & (m->cap - 1);
	if (!m->k[j]) {
		m->k[j] = key;
		m->v[j] = 0;
		m->n++;
	}
	return &m->v[j];
}

void ilog_u64map_free(struct ilog_u64map *m)
{
	free(m->k);
	free(m->v);
	memset(m, 0, sizeof(*m));
}
