// SPDX-License-Identifier: MIT
/* The out-of-line half of the msgpack cursor: skipping and messages. */
#include <stdio.h>
#include "ingero/mpread.h"

#define MP_MAX_DEPTH 32

const char *ilog_mp_type_name(uint8_t b)
{
	if (b < 0x80 || b >= 0xe0 || (b >= 0xcc && b <= 0xd3))
		return "integer";
	if (b <= 0x8f || b == 0xde || b == 0xdf)
		return "map";
	if (b <= 0x9f || b == 0xdc || b == 0xdd)
		return "array";
	if (b <= 0xbf || (b >= 0xd9 && b <= 0xdb))
		return "string";
	switch (b) {
	case 0xc0: return "nil";
	case 0xc2: case 0xc3: return "boolean";
	case 0xc4: case 0xc5: case 0xc6: return "bytes";
	case 0xca: case 0xcb: return "float";
	case 0xc1: return "reserved byte 0xc1";
	default: return "extension";
	}
}

static int skip(struct mp_cur *c, int depth)
{
	if (depth > MP_MAX_DEPTH)
		return MP_E_DEPTH;
	if (c->p >= c->end)
		return MP_E_TRUNC;
	const uint8_t *p = c->p;
	uint8_t b = *p;
	uint64_t bits;
	int neg, rc;
	uint32_t n;
	const uint8_t *s;
	double d;
	switch (ilog_mp_type_name(b)[0]) {
	case 'i': return mp_int(c, &bits, &neg);
	case 's': return mp_str(c, &s, &n);
	case 'b':
		if (b == 0xc2 || b == 0xc3) {
			c->p++;
			return 0;
		}
		return mp_bin(c, &s, &n);
	case 'f': return mp_f64(c, &d);
	case 'n': c->p++; return 0;
	case 'a':
		if ((rc = mp_array(c, &n)))
			return rc;
		for (uint32_t i = 0; i < n; i++)
			if ((rc = skip(c, depth + 1)))
				return rc;
		return 0;
	case 'm': {
		unsigned w = b <= 0x8f ? 0 : b == 0xde ? 2 : 4;
		if ((size_t)(c->end - p - 1) < w)
			return MP_E_TRUNC;
		uint64_t cnt = w ? mp_be(p + 1, w) : (b & 0x0f);
		c->p = p + 1 + w;
		if (cnt * 2 > (uint64_t)(c->end - c->p)) {
			c->badlen = cnt;
			return MP_E_LONG;
		}
		for (uint64_t i = 0; i < cnt * 2; i++)
			if ((rc = skip(c, depth + 1)))
				return rc;
		return 0;
	}
	case 'e': {
		unsigned hdr, len;
		switch (b) {
		case 0xd4: hdr = 1; len = 1; break;
		case 0xd5: hdr = 1; len = 2; break;
		case 0xd6: hdr = 1; len = 4; break;
		case 0xd7: hdr = 1; len = 8; break;
		case 0xd8: hdr = 1; len = 16; break;
		default: {
			unsigned w = b == 0xc7 ? 1 : b == 0xc8 ? 2 : 4;
			if ((size_t)(c->end - p - 1) < w)
				return MP_E_TRUNC;
			len = (unsigned)mp_be(p + 1, w);
			hdr = w + 1;
		}
		}
		if ((uint64_t)(c->end - p - 1) < (uint64_t)hdr + len) {
			c->badlen = len;
			return MP_E_LONG;
		}
		c->p = p + 1 + hdr + len;
		return 0;
	}
	default:
		return mp_type(c, "a msgpack value");
	}
}

int ilog_mp_skip(struct mp_cur *c)
{
	return skip(c, 0);
}

const char *ilog_mp_strerror(int rc, const struct mp_cur *c)
{
	static __thread char buf[96];
	switch (rc) {
	case MP_E_TRUNC: return "record truncated";
	case MP_E_TYPE:
		snprintf(buf, sizeof(buf), "expected %s, found %s", c->want,
			 ilog_mp_type_name(c->badbyte));
		return buf;
	case MP_E_RANGE: return "integer out of range";
	case MP_E_LONG:
		snprintf(buf, sizeof(buf), "declared length %llu exceeds the frame",
			 (unsigned long long)c->badlen);
		return buf;
	case MP_E_DEPTH: return "nesting deeper than 32";
	case MP_E_TOOMANY: return "array longer than the kind allows";
	case MP_E_EMPTY: return "empty record";
	default: return "malformed record";
	}
}
