/* SPDX-License-Identifier: MIT */
/*
 * Internal to lib/symbolize*.c: a hash map from two 64-bit words to a
 * 32-bit value (keys such as (node << 32 | pid, ip)) and a string pool
 * that keeps one copy of each name.  Both grow; neither ever moves a
 * string it handed out, so names stay valid until the owner is freed.
 */
#ifndef ILOG_SYMBOLIZE_INT_H
#define ILOG_SYMBOLIZE_INT_H

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

static inline uint64_t sym_mix(uint64_t a, uint64_t b)
{
	uint64_t x = a * 0x9e3779b97f4a7c15ull ^ (b + 0x632be59bd9b4e019ull);
	x ^= x >> 31;
	x *= 0xbf58476d1ce4e5b9ull;
	x ^= x >> 29;
	x *= 0x94d049bb133111ebull;
	return x ^ (x >> 32);
}

/* Room for `need` elements of *v (capacity *cap, doubling from `first`).
 * 0, or -1 out of memory (*v unchanged). */
static inline int sym_reserve(void **v, uint32_t *cap, uint32_t need, size_t size, uint32_t first)
{
	if (need <= *cap)
		return 0;
	uint32_t nc = *cap ? *cap * 2 : first;
	while (nc < need)
		nc *= 2;
	void *p = realloc(*v, (size_t)nc * size);
	if (!p)
		return -1;
	*v = p;
	*cap = nc;
	return 0;
}

/* Room for element n of *v: sym_reserve() of n + 1. */
static inline int sym_grow(void **v, uint32_t *cap, uint32_t n, size_t size, uint32_t first)
{
	return sym_reserve(v, cap, n + 1, size, first);
}

/* Open addressing, linear probing; val 0 marks an empty slot, so values
 * are stored plus one.  A slot holds its whole key and value, so a probe
 * touches one cache line. */
struct sym_hslot {
	uint64_t a, b;
	uint32_t val;
};

struct sym_hmap {
	struct sym_hslot *s;
	uint32_t cap, n;
};

static inline void sym_hmap_free(struct sym_hmap *h)
{
	free(h->s);
	memset(h, 0, sizeof(*h));
}

/* The value for (a, b), or NULL. */
static inline uint32_t *sym_hmap_get(const struct sym_hmap *h, uint64_t a, uint64_t b)
{
	if (!h->cap)
		return NULL;
	for (uint32_t i = (uint32_t)sym_mix(a, b) & (h->cap - 1);; i = (i + 1) & (h->cap - 1)) {
		struct sym_hslot *e = &h->s[i];
		if (!e->val)
			return NULL;
		if (e->a == a && e->b == b)
			return &e->val;
	}
}

static inline void sym_hmap_slot(struct sym_hmap *h, uint64_t a, uint64_t b, uint32_t v1)
{
	uint32_t i = (uint32_t)sym_mix(a, b) & (h->cap - 1);
	while (h->s[i].val && !(h->s[i].a == a && h->s[i].b == b))
		i = (i + 1) & (h->cap - 1);
	if (!h->s[i].val)
		h->n++;
	h->s[i] = (struct sym_hslot){ a, b, v1 };
}

/* Set (a, b) to v (v < UINT32_MAX).  0, or -1 out of memory. */
static inline int sym_hmap_put(struct sym_hmap *h, uint64_t a, uint64_t b, uint32_t v)
{
	uint32_t *p = sym_hmap_get(h, a, b);
	if (p) {
		*p = v + 1;
		return 0;
	}
	if ((uint64_t)(h->n + 1) * 10 > (uint64_t)h->cap * 7) {
		struct sym_hmap g = { 0 };
		g.cap = h->cap ? h->cap * 2 : 256;
		g.s = calloc(g.cap, sizeof(*g.s));
		if (!g.s)
			return -1;
		for (uint32_t i = 0; i < h->cap; i++)
			if (h->s[i].val)
				sym_hmap_slot(&g, h->s[i].a, h->s[i].b, h->s[i].val);
		sym_hmap_free(h);
		*h = g;
	}
	sym_hmap_slot(h, a, b, v + 1);
	return 0;
}

/* Interned NUL-terminated strings in chunks that never move. */
struct sym_pool {
	struct sym_chunk { struct sym_chunk *next; size_t used, cap; char data[]; } *chunks;
	struct sym_hmap index; /* (hash, length) -> strs[] index */
	const char **strs;
	uint32_t nstrs, capstrs;
};

/* A hash of s[0..n): eight bytes a step (C++ names run to hundreds of
 * bytes, and every name is hashed when interned), mixed at the end. */
static inline uint64_t sym_strhash(const char *s, size_t n)
{
	uint64_t h = 0xcbf29ce484222325ull ^ n;
	for (; n >= 8; s += 8, n -= 8) {
		uint64_t w;
		memcpy(&w, s, 8);
		h = (h ^ w) * 0x9e3779b97f4a7c15ull;
		h ^= h >> 32;
	}
	uint64_t t = 0;
	memcpy(&t, s, n);
	return sym_mix(h, t);
}

static inline void sym_pool_free(struct sym_pool *p)
{
	while (p->chunks) {
		struct sym_chunk *c = p->chunks;
		p->chunks = c->next;
		free(c);
	}
	sym_hmap_free(&p->index);
	free(p->strs);
	memset(p, 0, sizeof(*p));
}

/* The pool's copy of s[0..n), "" for n == 0; NULL when out of memory.
 * Equal strings whose hashes collide fall back to a second copy keyed
 * one further along, so lookups stay exact. */
static inline const char *sym_pool_intern(struct sym_pool *p, const char *s, size_t n)
{
	if (!n)
		return "";
	uint64_t h = sym_strhash(s, n);
	for (uint64_t k = n;; k += 1ull << 32) {
		uint32_t *v = sym_hmap_get(&p->index, h, k);
		if (!v)
			break;
		const char *q = p->strs[*v - 1];
		if (!memcmp(q, s, n) && !q[n])
			return q;
	}
	if (!p->chunks || p->chunks->cap - p->chunks->used < n + 1) {
		size_t cap = n + 1 > 60000 ? n + 1 : 65536 - sizeof(struct sym_chunk);
		struct sym_chunk *c = malloc(sizeof(*c) + cap);
		if (!c)
			return NULL;
		c->next = p->chunks;
		c->used = 0;
		c->cap = cap;
		p->chunks = c;
	}
	char *q = p->chunks->data + p->chunks->used;
	memcpy(q, s, n);
	q[n] = 0;
	p->chunks->used += n + 1;
	if (p->nstrs == p->capstrs) {
		uint32_t cap = p->capstrs ? p->capstrs * 2 : 256;
		const char **ns = realloc(p->strs, cap * sizeof(*ns));
		if (!ns)
			return NULL;
		p->strs = ns;
		p->capstrs = cap;
	}
	uint64_t k = n;
	while (sym_hmap_get(&p->index, h, k))
		k += 1ull << 32;
	if (sym_hmap_put(&p->index, h, k, p->nstrs))
		return NULL;
	p->strs[p->nstrs++] = q;
	return q;
}

/* Lowercase hex of p[0..n) into out (2n + 1 bytes). */
static inline void sym_hex(char *out, const uint8_t *p, uint32_t n)
{
	static const char d[] = "0123456789abcdef";
	for (uint32_t i = 0; i < n; i++) {
		out[2 * i] = d[p[i] >> 4];
		out[2 * i + 1] = d[p[i] & 15];
	}
	out[2 * n] = 0;
}

/* Length of a recorded path without the " (deleted)" that /proc/PID/maps
 * appends to files unlinked since they were mapped. */
static inline size_t sym_path_len(const char *path, size_t n)
{
	static const char deleted[] = " (deleted)";
	const size_t k = sizeof(deleted) - 1;
	return n > k && !memcmp(path + n - k, deleted, k) ? n - k : n;
}

/*
 * lib/symbolize/symbolize.c: is file an ELF file with build-id bid (any, when nbid
 * is 0), whole (PT_LOAD bytes present) when asked?  1 yes, 0 no such
 * file, -1 rejected with the reason ("FILE: problem") in why.
 */
int ilog_sym_check_file(const char *file, const uint8_t *bid, uint32_t nbid, int whole,
			char *why, size_t whylen);

#endif
