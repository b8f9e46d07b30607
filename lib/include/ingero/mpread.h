/* SPDX-License-Identifier: MIT */
/*
 * Internal: a bounds-checked, zero-copy msgpack cursor.  The writer uses
 * msgpack-c's packer; reading uses this instead of msgpack-c's unpacker
 * because that one builds an object tree per record in a zone, and the
 * reader must hand out views into the frame at tens of millions of
 * records per second with exact error positions (README "Dependencies").
 */
#ifndef ILOG_MPREAD_H
#define ILOG_MPREAD_H

#include <stdint.h>
#include <string.h>

struct mp_cur {
	const uint8_t *p, *end;
	uint64_t badlen;       /* for MP_E_LONG: the declared length */
	uint8_t badbyte;       /* for MP_E_TYPE: the type byte found */
	const char *want;      /* for MP_E_TYPE: what was expected */
};

enum {
	MP_OK = 0, MP_E_TRUNC, MP_E_TYPE, MP_E_RANGE, MP_E_LONG, MP_E_DEPTH,
	MP_E_TOOMANY, MP_E_EMPTY,
};

const char *ilog_mp_strerror(int rc, const struct mp_cur *c);
const char *ilog_mp_type_name(uint8_t b);
int ilog_mp_skip(struct mp_cur *c);

static inline uint64_t mp_be(const uint8_t *p, unsigned n)
{
	uint64_t v = 0;
	for (unsigned i = 0; i < n; i++)
		v = v << 8 | p[i];
	return v;
}

static inline int mp_type(struct mp_cur *c, const char *want)
{
	c->badbyte = *c->p;
	c->want = want;
	return MP_E_TYPE;
}

/* Any integer: bits = value mod 2^64, *neg = value < 0. */
static inline __attribute__((always_inline)) int mp_int(struct mp_cur *c, uint64_t *bits, int *neg)
{
	const uint8_t *p = c->p;
	if (p >= c->end)
		return MP_E_TRUNC;
	uint8_t b = *p;
	if (b < 0x80) {
		*bits = b;
		*neg = 0;
		c->p = p + 1;
		return 0;
	}
	if (b >= 0xe0) {
		*bits = (uint64_t)(int64_t)(int8_t)b;
		*neg = 1;
		c->p = p + 1;
		return 0;
	}
	unsigned n;
	int sig;
	switch (b) {
	case 0xcc: n = 1; sig = 0; break;
	case 0xcd: n = 2; sig = 0; break;
	case 0xce: n = 4; sig = 0; break;
	case 0xcf: n = 8; sig = 0; break;
	case 0xd0: n = 1; sig = 1; break;
	case 0xd1: n = 2; sig = 1; break;
	case 0xd2: n = 4; sig = 1; break;
	case 0xd3: n = 8; sig = 1; break;
	default: return mp_type(c, "integer");
	}
	if ((size_t)(c->end - p - 1) < n)
		return MP_E_TRUNC;
	uint64_t v = mp_be(p + 1, n);
	*neg = 0;
	if (sig && n < 8 && (v >> (8 * n - 1)))
		v |= ~0ull << (8 * n);  /* sign-extend */
	if (sig && (v >> 63))
		*neg = 1;
	*bits = v;
	c->p = p + 1 + n;
	return 0;
}

static inline int mp_len(struct mp_cur *c, const uint8_t *p, unsigned n, uint32_t *len)
{
	if ((size_t)(c->end - p) < n)
		return MP_E_TRUNC;
	uint64_t l = mp_be(p, n);
	p += n;
	if (l > (uint64_t)(c->end - p)) {
		c->badlen = l;
		return MP_E_LONG;
	}
	*len = (uint32_t)l;
	c->p = p;
	return 0;
}

static inline int mp_str(struct mp_cur *c, const uint8_t **s, uint32_t *n)
{
	const uint8_t *p = c->p;
	int rc;
	if (p >= c->end)
		return MP_E_TRUNC;
	uint8_t b = *p;
	if ((b & 0xe0) == 0xa0) {
		*n = b & 0x1f;
		if ((size_t)(c->end - p - 1) < *n) {
			c->badlen = *n;
			return MP_E_LONG;
		}
		c->p = p + 1;
	} else if (b >= 0xd9 && b <= 0xdb) {
		static const unsigned w[] = { 1, 2, 4 };
		if ((rc = mp_len(c, p + 1, w[b - 0xd9], n)))
			return rc;
	} else {
		return mp_type(c, "string");
	}
	*s = c->p;
	c->p += *n;
	return 0;
}

static inline int mp_bin(struct mp_cur *c, const uint8_t **s, uint32_t *n)
{
	const uint8_t *p = c->p;
	int rc;
	if (p >= c->end)
		return MP_E_TRUNC;
	switch (*p) {
	case 0xc4: rc = mp_len(c, p + 1, 1, n); break;
	case 0xc5: rc = mp_len(c, p + 1, 2, n); break;
	case 0xc6: rc = mp_len(c, p + 1, 4, n); break;
	default: return mp_type(c, "bytes");
	}
	if (rc)
		return rc;
	*s = c->p;
	c->p += *n;
	return 0;
}

/* Array header.  Every element takes at least one byte, so a count larger
 * than what is left is reported as truncation up front. */
static inline int mp_array(struct mp_cur *c, uint32_t *n)
{
	const uint8_t *p = c->p;
	if (p >= c->end)
		return MP_E_TRUNC;
	uint8_t b = *p;
	unsigned w;
	if ((b & 0xf0) == 0x90) {
		*n = b & 0x0f;
		w = 0;
	} else if (b == 0xdc) {
		w = 2;
	} else if (b == 0xdd) {
		w = 4;
	} else {
		return mp_type(c, "array");
	}
	if ((size_t)(c->end - p - 1) < w)
		return MP_E_TRUNC;
	if (w)
		*n = (uint32_t)mp_be(p + 1, w);
	c->p = p + 1 + w;
	if (*n > (size_t)(c->end - c->p)) {
		c->badlen = *n;
		return MP_E_LONG;
	}
	return 0;
}

static inline int mp_f64(struct mp_cur *c, double *d)
{
	const uint8_t *p = c->p;
	if (p >= c->end)
		return MP_E_TRUNC;
	if (*p == 0xcb || *p == 0xca) {
		unsigned n = *p == 0xcb ? 8 : 4;
		if ((size_t)(c->end - p - 1) < n)
			return MP_E_TRUNC;
		uint64_t v = mp_be(p + 1, n);
		if (n == 8) {
			memcpy(d, &v, 8);
		} else {
			uint32_t u = (uint32_t)v;
			float f;
			memcpy(&f, &u, 4);
			*d = f;
		}
		c->p = p + 1 + n;
		return 0;
	}
	uint64_t bits;
	int neg;
	int rc = mp_int(c, &bits, &neg);
	if (rc == MP_E_TYPE)
		c->want = "number";
	if (!rc)
		*d = neg ? (double)(int64_t)bits : (double)bits;
	return rc;
}

#endif
