// SPDX-License-Identifier: MIT
/*
 * Record -> one-line JSON object (SPEC §6).  Field names come from the
 * kind tables; values are rendered by each field's view: 64-bit handles,
 * addresses and ids as "0x..." strings (jq's doubles would round them),
 * ops/layers/host types/severities by name, argv as an array, bytes as hex.
 * Unknown kinds render generically, named by the log's schema records.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include "ingero/mpread.h"
#include "ingero/schema.h"


static void put(struct ilog_buf *b, const char *s, size_t n)
{
	if (!n || ilog_buf_reserve(b, n))
		return;
	memcpy(b->p + b->len, s, n);
	b->len += n;
}


#define PUTS(b, lit) put(b, lit, sizeof(lit) - 1)

static void put_u64(struct ilog_buf *b, uint64_t v)
{
	char t[24];
	int i = sizeof(t);
	do {
		t[--i] = (char)('0' + v % 10);
		v /= 10;
	} while (v);
	put(b, t + i, sizeof(t) - (size_t)i);
}

static void put_i64(struct ilog_buf *b, int64_t v)
{
	if (v < 0) {
		PUTS(b, "-");
		put_u64(b, (uint64_t)0 - (uint64_t)v);
	} else {
		put_u64(b, (uint64_t)v);
	}
}

static void put_f64(struct ilog_buf *b, double d)
{
	char t[40];
	if (!isfinite(d)) {
		PUTS(b, "null");
		return;
	}
	int n = snprintf(t, sizeof(t), "%.15g", d);
	put(b, t, (size_t)n);
}

static const char hexd[] = "0123456789abcdef";

static void put_hex64(struct ilog_buf *b, uint64_t v)
{
	char t[20];
	int i = sizeof(t);
	t[--i] = '"';
	do {
		t[--i] = hexd[v & 15];
		v >>= 4;
	} while (v);
	t[--i] = 'x';
	t[--i] = '0';
	t[--i] = '"';
	put(b, t + i, sizeof(t) - (size_t)i);
}

static void put_hexbytes(struct ilog_buf *b, const uint8_t *p, uint32_t n)
{
	if (ilog_buf_reserve(b, 2 * (size_t)n + 2))
		return;
	char *q = b->p + b->len;
	*q++ = '"';
	for (uint32_t i = 0; i < n; i++) {
		*q++ = hexd[p[i] >> 4];
		*q++ = hexd[p[i] & 15];
	}
	*q++ = '"';
	b->len = (size_t)(q - b->p);
}

/* A JSON string; invalid UTF-8 bytes become U+FFFD (a failed put shows
 * at the end of ilog_json_record). */
static void put_jstr(struct ilog_buf *b, const char *s, size_t n)
{
	(void)ilog_json_str(b, s, n);
}

static void put_key(struct ilog_buf *b, const char *k)
{
	PUTS(b, ",\"");
	put(b, k, strlen(k));
	PUTS(b, "\":");
}

static void put_name_or_num(struct ilog_buf *b, const char *name, uint64_t v)
{
	if (name)
		put_jstr(b, name, strlen(name));
	else
		put_u64(b, v);
}

/* RFC 3339 UTC with nanoseconds. */
static void put_time(struct ilog_buf *b, uint64_t real_ns)
{
	char t[48];
	time_t sec = (time_t)(real_ns / 1000000000u);
	struct tm tm;
	gmtime_r(&sec, &tm);
	size_t n = strftime(t, sizeof(t), "\"%Y-%m-%dT%H:%M:%S", &tm);
	n += (size_t)snprintf(t + n, sizeof(t) - n, ".%09lluZ\"",
			      (unsigned long long)(real_ns % 1000000000u));
	put(b, t, n);
}

static uint64_t load_uint(const uint8_t *p, int type)
{
	switch (type) {
	case FT_U8: return *p;
	case FT_U16: { uint16_t v; memcpy(&v, p, 2); return v; }
	case FT_U32: { uint32_t v; memcpy(&v, p, 4); return v; }
	default: { uint64_t v; memcpy(&v, p, 8); return v; }
	}
}

static void put_fields(struct ilog_buf *b, const struct ilog_field *f, unsigned nf,
		       const uint8_t *base, int named, const struct ilog_reader *r,
		       const struct ilog_record *rec);

static void put_value(struct ilog_buf *b, const struct ilog_field *f, const uint8_t *base)
{
	const uint8_t *p = base + f->off;
	switch (f->type) {
	case FT_U8: case FT_U16: case FT_U32: case FT_U64: case FT_TS: {
		uint64_t v = load_uint(p, f->type == FT_TS ? FT_U64 : f->type);
		switch (f->view) {
		case FV_HEX: put_hex64(b, v); break;
		case FV_OP: put_name_or_num(b, ilog_op_name((uint32_t)v), v); break;
		case FV_LAYER: put_name_or_num(b, ilog_layer_name((uint32_t)v), v); break;
		case FV_HOST: put_name_or_num(b, ilog_host_type_name((uint32_t)v), v); break;
		case FV_SEV: put_name_or_num(b, ilog_severity_name((uint32_t)v), v); break;
		case FV_KIND: put_name_or_num(b, ilog_kind_name((uint32_t)v), v); break;
		case FV_TCPSTATE: put_name_or_num(b, ilog_tcp_state_name((uint32_t)v), v); break;
		default: put_u64(b, v);
		}
		break;
	}
	case FT_S32: { int32_t v; memcpy(&v, p, 4); put_i64(b, v); break; }
	case FT_S64: { int64_t v; memcpy(&v, p, 8); put_i64(b, v); break; }
	case FT_F64: { double d; memcpy(&d, p, 8); put_f64(b, d); break; }
	case FT_STR: {
		const struct ilog_str *s = (const void *)p;
		put_jstr(b, s->p, s->n);
		break;
	}
	case FT_CHARS:
		put_jstr(b, (const char *)p, strnlen((const char *)p, INGERO_COMM_LEN));
		break;
	case FT_BIN: {
		const struct ilog_bin *bn = (const void *)p;
		char ip[64];
		if (f->view == FV_INET && (bn->n == 4 || bn->n == 16)) {
			ilog_inet_str(*bn, ip, sizeof(ip));
			put_jstr(b, ip, strlen(ip));
			break;
		}
		if (f->view == FV_INET && !bn->n) {
			PUTS(b, "\"\"");
			break;
		}
		if (f->view != FV_ARGV) {
			put_hexbytes(b, bn->p, bn->n);
			break;
		}
		(void)ilog_json_argv(b, *bn); /* a failed put shows at the end */
		break;
	}
	case FT_ARR: {
		uint32_t n;
		memcpy(&n, base + f->cnt_off, 4);
		PUTS(b, "[");
		for (uint32_t i = 0; i < n && i < f->max; i++) {
			const uint8_t *e = p + (size_t)i * f->esize;
			if (i)
				PUTS(b, ",");
			if (f->nsub == 1) {
				put_value(b, f->sub, e);
			} else {
				PUTS(b, "{");
				put_fields(b, f->sub, f->nsub, e, 1, NULL, NULL);
				PUTS(b, "}");
			}
		}
		PUTS(b, "]");
		break;
	}
	}
}

static void put_fields(struct ilog_buf *b, const struct ilog_field *f, unsigned nf,
		       const uint8_t *base, int first, const struct ilog_reader *r,
		       const struct ilog_record *rec)
{
	for (unsigned i = 0; i < nf; i++) {
		if (f[i].view == FV_OMIT_EMPTY) {
			uint32_t n;
			memcpy(&n, base + f[i].cnt_off, 4);
			if (!n)
				continue;
		}
		if (first) {
			PUTS(b, "\"");
			put(b, f[i].name, strlen(f[i].name));
			PUTS(b, "\":");
			first = 0;
		} else {
			put_key(b, f[i].name);
		}
		put_value(b, &f[i], base);
		if ((f[i].type == FT_TS || f[i].view == FV_MONO) && r) {
			uint64_t ts;
			memcpy(&ts, base + f[i].off, 8);
			uint64_t wall = ilog_reader_wall(r, rec->node, ts);
			if (wall) {
				put_key(b, "time");
				put_time(b, wall);
			}
		}
	}
}

int ilog_json_argv(struct ilog_buf *b, struct ilog_bin argv)
{
	if (ilog_buf_put(b, "[", 1))
		return -1;
	size_t i = 0, first = 1;
	while (i < argv.n) {
		const char *a = (const char *)argv.p + i;
		size_t len = strnlen(a, argv.n - i);
		/* a trailing NUL ends the last argument, it does not add one */
		if ((!first && ilog_buf_put(b, ",", 1)) || ilog_json_str(b, a, len))
			return -1;
		first = 0;
		i += len + 1;
	}
	return ilog_buf_put(b, "]", 1);
}

/* The next msgpack value's whole encoding, as a hex string. */
static int put_encoding(struct ilog_buf *b, struct mp_cur *c)
{
	const uint8_t *start = c->p;
	if (ilog_mp_skip(c))
		return -1;
	put_hexbytes(b, start, (uint32_t)(c->p - start));
	return 0;
}

/* Generic msgpack value -> JSON, for kinds this build does not know. */
static int put_any(struct ilog_buf *b, struct mp_cur *c, int depth)
{
	if (c->p >= c->end || depth > 32)
		return -1;
	uint8_t t = *c->p;
	const char *tn = ilog_mp_type_name(t);
	uint64_t bits;
	int neg;
	uint32_t n;
	const uint8_t *s;
	double d;
	switch (tn[0]) {
	case 'i':
		if (mp_int(c, &bits, &neg))
			return -1;
		if (neg)
			put_i64(b, (int64_t)bits);
		else
			put_u64(b, bits);
		return 0;
	case 's':
		if (mp_str(c, &s, &n))
			return -1;
		put_jstr(b, (const char *)s, n);
		return 0;
	case 'b':
		if (t == 0xc2 || t == 0xc3) {
			c->p++;
			if (t == 0xc3)
				PUTS(b, "true");
			else
				PUTS(b, "false");
			return 0;
		}
		if (mp_bin(c, &s, &n))
			return -1;
		put_hexbytes(b, s, n);
		return 0;
	case 'f':
		if (mp_f64(c, &d))
			return -1;
		put_f64(b, d);
		return 0;
	case 'n':
		c->p++;
		PUTS(b, "null");
		return 0;
	case 'a':
		if (mp_array(c, &n))
			return -1;
		PUTS(b, "[");
		for (uint32_t i = 0; i < n; i++) {
			if (i)
				PUTS(b, ",");
			if (put_any(b, c, depth + 1))
				return -1;
		}
		PUTS(b, "]");
		return 0;
	case 'm': {
		/* keys are rendered as JSON text, then quoted */
		unsigned w = t <= 0x8f ? 0 : t == 0xde ? 2 : 4;
		if ((size_t)(c->end - c->p - 1) < w)
			return -1;
		uint64_t cnt = w ? mp_be(c->p + 1, w) : (t & 0x0f);
		c->p += 1 + w;
		PUTS(b, "{");
		for (uint64_t i = 0; i < cnt; i++) {
			if (i)
				PUTS(b, ",");
			char kt = c->p < c->end ? ilog_mp_type_name(*c->p)[0] : 0;
			if (kt == 's') {
				if (put_any(b, c, depth + 1))
					return -1;
			} else if (kt == 'a' || kt == 'm') {
				/* a container key: the hex of its encoding, since
				 * quoting JSON text inside quoted JSON text doubles
				 * its escapes at each level */
				if (put_encoding(b, c))
					return -1;
			} else {
				struct ilog_buf k = { 0 };
				if (put_any(&k, c, depth + 1)) {
					ilog_buf_free(&k);
					return -1;
				}
				put_jstr(b, k.p ? k.p : "", k.len);
				ilog_buf_free(&k);
			}
			PUTS(b, ":");
			if (put_any(b, c, depth + 1))
				return -1;
		}
		PUTS(b, "}");
		return 0;
	}
	default: /* extension or reserved byte: show the raw bytes */
		return put_encoding(b, c);
	}
}

static int put_unknown(struct ilog_buf *b, const struct ilog_record *rec,
		       const struct ilog_reader *r)
{
	const struct ilog_schema *sc = r ? ilog_reader_schema(r, rec->kind) : NULL;
	struct mp_cur c = { rec->raw.p, rec->raw.p + rec->raw.n };
	uint32_t n;
	uint64_t kind;
	int neg;
	if (!rec->raw.p || mp_array(&c, &n) || mp_int(&c, &kind, &neg))
		return -1;
	PUTS(b, "{\"type\":");
	if (sc) {
		put_jstr(b, sc->name.p, sc->name.n);
	} else {
		char t[32];
		int k = snprintf(t, sizeof(t), "\"kind_%u\"", rec->kind);
		put(b, t, (size_t)k);
	}
	if (rec->node) { /* SPEC §6: as for known kinds */
		put_key(b, "node_index");
		put_u64(b, rec->node);
	}
	put_key(b, "kind");
	put_u64(b, rec->kind);
	for (uint32_t i = 1; i < n; i++) {
		if (sc && i - 1 < sc->nfields && sc->fields[i - 1].n) {
			PUTS(b, ",");
			put_jstr(b, sc->fields[i - 1].p, sc->fields[i - 1].n);
			PUTS(b, ":");
		} else {
			char t[32];
			snprintf(t, sizeof(t), "f%u", i);
			put_key(b, t);
		}
		if (put_any(b, &c, 0))
			return -1;
	}
	PUTS(b, "}");
	return 0;
}

int ilog_json_record(struct ilog_buf *b, const struct ilog_record *rec,
		     const struct ilog_reader *r)
{
	size_t start = b->len;
	const struct ilog_kind_desc *d = ilog_kind_desc(rec->kind);
	if (!d) {
		if (put_unknown(b, rec, r)) {
			b->len = start;
			return -1;
		}
	} else {
		PUTS(b, "{\"type\":\"");
		put(b, d->name, strlen(d->name));
		PUTS(b, "\"");
		/* SPEC §6: header and node records state it as their own field */
		if (rec->node && rec->kind != ILOG_K_HEADER && rec->kind != ILOG_K_NODE) {
			put_key(b, "node_index");
			put_u64(b, rec->node);
		}
		put_fields(b, d->fields, d->nfields, (const uint8_t *)&rec->u, 0, r, rec);
		PUTS(b, "}");
	}
	if (ilog_buf_reserve(b, 1)) { /* a failed put above shows up here too */
		b->len = start;
		return -1;
	}
	return 0;
}
