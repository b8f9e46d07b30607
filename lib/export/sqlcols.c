// SPDX-License-Identifier: MIT
/*
 * The tables of record kinds in the SQL sinks (SQLite, ClickHouse), made
 * from the kind table (lib/codec/schema.c): a kind's fields in order,
 * each where its SQL members (ingero/schema.h) put it, and the columns
 * computed from a record, which are named here and nowhere else.
 */
#include <stdio.h>
#include <string.h>
#include "export_int.h"

/* Computed columns: kind, name, the field they come before, source. */
static const struct derived {
	uint32_t kind;
	const char *name, *before;
	uint8_t src;
} derived[] = {
	{ ILOG_K_BLKIO, "p50_ns", "hist", ILOG_SQLC_P50 },
	{ ILOG_K_BLKIO, "p99_ns", "hist", ILOG_SQLC_P99 },
};

static const char *keep(struct ilog_sqltab *t, const char *a, const char *b, const char *c)
{
	int n = snprintf(t->names + t->nnames, sizeof(t->names) - t->nnames, "%s%s%s", a, b, c);
	if (n < 0 || (size_t)n >= sizeof(t->names) - t->nnames)
		return NULL;
	const char *p = t->names + t->nnames;
	t->nnames += (unsigned)n + 1;
	return p;
}

static int is_records(const struct ilog_field *f)
{
	return f->type == FT_ARR && f->sub[0].name[0];
}

static uint16_t col_flags(const struct ilog_field *f)
{
	uint16_t fl = f->sql;
	if (f->type == FT_TS || f->view == FV_MONO)
		fl |= ILOG_COL_WALL;
	return fl;
}

/* A wall time's column in ClickHouse is named in ns. */
static const char *col_name(struct ilog_sqltab *t, const struct ilog_field *f, int ch)
{
	const char *n = f->col ? f->col : f->name;
	size_t len = strlen(n);
	if (!ch || !(col_flags(f) & ILOG_COL_WALL) || (len > 3 && !strcmp(n + len - 3, "_ns")))
		return n;
	return keep(t, n, "_ns", "");
}

struct cand {
	struct ilog_sqlcol c;
	const char *anchor;   /* the field name others' `after` may name */
	const char *after;
	int done;
};

static void emit(struct ilog_sqltab *t, struct cand *cs, unsigned n, unsigned k)
{
	cs[k].done = 1;
	t->cols[t->ncols++] = cs[k].c;
	for (unsigned j = 0; j < n && cs[k].anchor; j++)
		if (!cs[j].done && cs[j].after && !strcmp(cs[j].after, cs[k].anchor))
			emit(t, cs, n, j);
}

static void add(struct cand *cs, unsigned *n, struct ilog_sqlcol c, const char *anchor,
		const char *after)
{
	if (*n < ILOG_SQL_MAXCOLS)
		cs[(*n)++] = (struct cand){ c, anchor, after, 0 };
}

/* One field's columns (several for an array of records in ClickHouse). */
static void field_cands(struct ilog_sqltab *t, struct cand *cs, unsigned *n,
			const struct ilog_field *f, int ch)
{
	for (size_t d = 0; d < sizeof(derived) / sizeof(derived[0]); d++)
		if (derived[d].kind == t->kind && !strcmp(derived[d].before, f->name))
			add(cs, n, (struct ilog_sqlcol){ .name = derived[d].name,
							 .src = derived[d].src }, NULL, NULL);
	if (!is_records(f)) {
		const char *after = ch && f->ch_after ? f->ch_after : f->after;
		add(cs, n, (struct ilog_sqlcol){ .name = col_name(t, f, ch), .f = f,
						 .flags = col_flags(f) }, f->name, after);
		return;
	}
	if (!ch) {
		t->rows = f;
		return;
	}
	for (unsigned k = 0; k < f->nsub; k++) {
		const struct ilog_field *e = &f->sub[k];
		add(cs, n, (struct ilog_sqlcol){ .name = keep(t, f->ch ? f->ch : f->name, "_", e->name),
						 .f = e, .arr = f, .src = ILOG_SQLC_ELEM,
						 .flags = col_flags(e) },
		    NULL, e->ch_after ? e->ch_after : e->after);
	}
}

int ilog_sqltab_make(uint32_t kind, int ch, struct ilog_sqltab *t)
{
	const struct ilog_kind_desc *d = ilog_kind_desc(kind);
	if (!d || (d->tab & ILOG_TAB_NONE) || (ch && (d->tab & ILOG_TAB_LOCAL)))
		return -1;
	memset(t, 0, sizeof(*t));
	t->kind = kind;
	t->name = d->table ? d->table : d->name;
	t->tab = d->tab;
	t->sql_index[0] = d->sql_index[0];
	t->sql_index[1] = d->sql_index[1];
	t->ch_key = d->ch_key;
	struct cand cs[ILOG_SQL_MAXCOLS];
	unsigned n = 0;
	for (unsigned i = 0; i < d->nfields; i++) {
		const struct ilog_field *f = &d->fields[i];
		if (!(f->sql & ILOG_COL_SKIP) && !(ch && (f->sql & ILOG_COL_NOCH)))
			field_cands(t, cs, &n, f, ch);
	}
	for (unsigned k = 0; k < n; k++)
		if (!cs[k].after)
			emit(t, cs, n, k);
	for (unsigned k = 0; k < n; k++) /* an `after` naming no field: last */
		if (!cs[k].done)
			emit(t, cs, n, k);
	for (unsigned k = 0; k < t->ncols; k++)
		if (!t->cols[k].name)
			return -1; /* names[] too small */
	return 0;
}

int ilog_sqltab_rows(const struct ilog_sqltab *parent, struct ilog_sqltab *t)
{
	const struct ilog_field *f = parent->rows;
	if (!f)
		return -1;
	memset(t, 0, sizeof(*t));
	t->kind = parent->kind;
	t->tab = parent->tab;
	t->name = keep(t, ilog_kind_name(parent->kind), "_", f->name);
	for (unsigned k = 0; k < parent->ncols; k++)
		if ((parent->cols[k].flags & ILOG_COL_WALL) && t->ncols < ILOG_SQL_MAXCOLS)
			t->cols[t->ncols++] = parent->cols[k];
	for (unsigned k = 0; k < f->nsub && t->ncols < ILOG_SQL_MAXCOLS; k++)
		t->cols[t->ncols++] = (struct ilog_sqlcol){ .name = f->sub[k].col ? f->sub[k].col
										  : f->sub[k].name,
							    .f = &f->sub[k], .arr = f,
							    .src = ILOG_SQLC_ELEM,
							    .flags = col_flags(&f->sub[k]) };
	return t->name ? 0 : -1;
}

uint32_t ilog_sqlarr_n(const struct ilog_field *arr, const void *base)
{
	uint32_t n; /* counts are uint32 (as the codec reads them) */
	memcpy(&n, (const char *)base + arr->cnt_off, sizeof(n));
	return n < arr->max ? n : arr->max;
}

const void *ilog_sqlarr_at(const struct ilog_field *arr, const void *base, uint32_t i)
{
	return (const char *)base + arr->off + (size_t)i * arr->esize;
}

static const void *where(const struct ilog_sqlcol *c, const void *base, const void *elem)
{
	return (const char *)(c->src == ILOG_SQLC_ELEM ? elem : base) + c->f->off;
}

static uint64_t blk_quantile(const void *base, double q)
{
	const struct ilog_blkio *b = base;
	return ilog_blk_quantile(b->hist, b->nhist, q, b->lat_max_ns);
}

uint64_t ilog_sqlcol_u64(const struct ilog_sqlcol *c, const void *base, const void *elem)
{
	if (c->src == ILOG_SQLC_P50)
		return blk_quantile(base, 0.50);
	if (c->src == ILOG_SQLC_P99)
		return blk_quantile(base, 0.99);
	const void *p = where(c, base, elem);
	union { uint8_t u8; uint16_t u16; uint32_t u32; int32_t s32; uint64_t u64; } v;
	switch (c->f->type) {
	case FT_U8: memcpy(&v.u8, p, 1); return v.u8;
	case FT_U16: memcpy(&v.u16, p, 2); return v.u16;
	case FT_U32: memcpy(&v.u32, p, 4); return v.u32;
	case FT_S32: memcpy(&v.s32, p, 4); return (uint64_t)(int64_t)v.s32;
	case FT_U64: case FT_S64: case FT_F64: case FT_TS: memcpy(&v.u64, p, 8); return v.u64;
	default: return 0;
	}
}

double ilog_sqlcol_f64(const struct ilog_sqlcol *c, const void *base, const void *elem)
{
	double d;
	uint64_t u = ilog_sqlcol_u64(c, base, elem);
	memcpy(&d, &u, sizeof(d));
	return d;
}

struct ilog_str ilog_sqlcol_str(const struct ilog_sqlcol *c, const void *base, const void *elem)
{
	const void *p = where(c, base, elem);
	if (c->f->type == FT_CHARS)
		return (struct ilog_str){ p, (uint32_t)strnlen(p, INGERO_COMM_LEN) };
	struct ilog_str s;
	memcpy(&s, p, sizeof(s));
	return s;
}

struct ilog_bin ilog_sqlcol_bin(const struct ilog_sqlcol *c, const void *base, const void *elem)
{
	struct ilog_bin b;
	memcpy(&b, where(c, base, elem), sizeof(b));
	return b;
}
