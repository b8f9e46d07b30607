// SPDX-License-Identifier: MIT
/*
 * The ClickHouse fleet schema (docs/fleet.md): one column list per table
 * drives the DDL, the INSERT column lists and the RowBinary encoder.  A
 * record kind's table comes from the kind table (lib/export/sqlcols.c),
 * with the node's name and the session in front and wall times as `*_ns`;
 * the sessions, nodes, stacks and lookup tables are written here.
 *
 * Only syntax that ClickHouse 18.16 (Debian 12) and current releases both
 * accept: the MergeTree PARTITION BY / ORDER BY form, UInt64 nanoseconds
 * instead of DateTime64, no codecs or TTL, nothing Nullable.
 * LowCardinality(String) needs allow_experimental_low_cardinality_type=1
 * in the 18.16 server's profile (newer servers ignore the setting); the
 * exporter never sets it per request.
 *
 * The logical schema is the SQLite export's (docs/schema.md); what differs
 * and why is in docs/fleet.md: times are `*_ns` UInt64 wall-clock columns,
 * `node` is the node's name (the fleet-wide identity, not a per-export
 * ordinal), stack ids are fleet-wide, and a stack's frames are arrays in
 * its row.
 */
#include <endian.h>
#include <pthread.h>
#include <stddef.h>
#include <string.h>
#include "clickhouse.h"

#define LC "LowCardinality(String)"
/*
 * A column of struct R (each table defines R as its row): CN named nm,
 * the others after their member, by their encoding and its ClickHouse type.
 */
#define CN(nm, fld, sqltype, t) { nm, sqltype, ILOG_CH_##t, offsetof(R, fld) }
#define U8(fld) CN(#fld, fld, "UInt8", U8)
#define U16(fld) CN(#fld, fld, "UInt16", U16)
#define U32(fld) CN(#fld, fld, "UInt32", U32)
#define U64(fld) CN(#fld, fld, "UInt64", U64)
#define I64(fld) CN(#fld, fld, "Int64", I64)
#define STR(fld) CN(#fld, fld, "String", STR)
#define LC_STR(fld) CN(#fld, fld, LC, STR)
#define NCOLS(a) (sizeof(a) / sizeof((a)[0]))
/* partitions are days of wall time (UTC on a UTC server); toDate of a
 * number above 65535 reads it as Unix seconds on old and new servers */
#define DAY(col) "toDate(intDiv(" col ", 1000000000))"

#define R struct ilog_ch_session_row
static const struct ilog_ch_column sessions[] = {
	U64(session_id),
	U64(imported_ns),
	STR(tool),
	STR(version),
	STR(source),
	U64(records),
	U64(events),
	U64(host_events),
	U64(unknown_records),
	U64(stacks_unknown),
	U64(first_ts_ns),
	U64(last_ts_ns),
	U8(complete),
};
#undef R

#define R struct ilog_ch_node_row
static const struct ilog_ch_column nodes[] = {
	U64(session_id),
	LC_STR(node),
	STR(host),
	STR(boot_id),
	I64(rank),
	U64(log_session),
	STR(recorder),
	STR(kernel),
	STR(driver),
	STR(format_version),
	U32(node_index),
	U64(anchor_mono_ns),
	U64(anchor_real_ns),
};
#undef R

#define R struct ilog_ch_stack_row
static const struct ilog_ch_column stacks[] = {
	U64(stack_id),
	U16(depth),
	U16(unresolved),
	U16(symbolized),
	CN("frame_key", key, "Array(String)", ASTR),
	CN("frame_offset", offset, "Array(UInt64)", AU64),
	CN("frame_module", module, "Array(String)", ASTR),
	CN("frame_function", function, "Array(String)", ASTR),
	CN("frame_file", file, "Array(String)", ASTR),
	CN("frame_line", line, "Array(UInt32)", AU32),
};
#undef R

#define R struct ilog_ch_name_row
static const struct ilog_ch_column ops[] = {
	CN("op", id16, "UInt16", U16),
	STR(name),
	U8(layer),
};
static const struct ilog_ch_column layers[] = {
	CN("layer", id8, "UInt8", U8),
	STR(name),
};
static const struct ilog_ch_column host_types[] = {
	CN("type", id16, "UInt16", U16),
	STR(name),
};
static const struct ilog_ch_column severities[] = {
	CN("severity", id8, "UInt8", U8),
	STR(name),
};
#undef R

#define T(n, e, k, cnt, w) { #n, n, NCOLS(n), e, k, cnt, w }
static const struct ilog_ch_table_def fixed[ILOG_CH_KIND] = {
	/* one row when an export starts (complete 0), one when it ends
	 * (complete 1, the counts); the version column keeps the latter */
	[ILOG_CH_SESSIONS] = T(sessions, "ReplacingMergeTree(complete) ORDER BY session_id",
			       "session_id", 0, "one export run (complete = 1 once it finished)"),
	[ILOG_CH_NODES] = T(nodes, "ReplacingMergeTree ORDER BY (node, session_id, log_session)",
			    "cityHash64(node)", 0, "one recording (log header) per export run"),
	/* the same stack from many nodes collapses to one row; the most
	 * symbolized copy wins */
	[ILOG_CH_STACKS] = T(stacks, "ReplacingMergeTree(symbolized) ORDER BY stack_id",
			     "stack_id", 0, "user stacks by fleet-wide id, frames as arrays"),
	/* names at the edge: small lookup tables every exporter refreshes on
	 * its own shard, so no Distributed table */
	[ILOG_CH_OPS] = T(ops, "ReplacingMergeTree ORDER BY op", NULL, 0, "op number -> name"),
	[ILOG_CH_LAYERS] = T(layers, "ReplacingMergeTree ORDER BY layer", NULL, 0,
			     "layer number -> name"),
	[ILOG_CH_HOST_TYPES] = T(host_types, "ReplacingMergeTree ORDER BY type", NULL, 0,
				 "host event type -> name"),
	[ILOG_CH_SEVERITIES] = T(severities, "ReplacingMergeTree ORDER BY severity", NULL, 0,
				 "chain severity -> name"),
};

/* The kinds' tables' comment lines; another kind's says "KIND records". */
static const char *const kind_what[ILOG_K__COUNT] = {
	[ILOG_K_CUDA] = "one CUDA runtime / driver / graph / NCCL call",
	[ILOG_K_HOST] = "scheduler, memory and process-lifecycle events",
	[ILOG_K_PROCESS] = "traced processes",
	[ILOG_K_SNAPSHOT] = "system snapshots, per-process columns as arrays",
	[ILOG_K_CHAIN] = "causal chains from ingero-correlate",
	[ILOG_K_LOSS] = "event loss counters (cumulative per source)",
	[ILOG_K_BLKIO] = "block I/O per window, device and process (format 1.3)",
	[ILOG_K_RETRANS] = "TCP retransmissions per flow and window (format 1.3)",
	[ILOG_K_SOCKIO] = "TCP socket bytes per process and window (format 1.3)",
	[ILOG_K_INFLIGHT] = "calls still in progress when written, each second (format 1.4)",
	[ILOG_K_TRIGGER] = "what made a flight recording write its log (format 1.5)",
};

/* The order of the DDL (docs/fleet.md's); a kind's table not named here
 * follows, in kind order. */
#define K(kind) (ILOG_CH_KIND + (kind))
static const int ddl_order[] = {
	ILOG_CH_SESSIONS, ILOG_CH_NODES, K(ILOG_K_CUDA), K(ILOG_K_HOST), K(ILOG_K_PROCESS),
	K(ILOG_K_SNAPSHOT), K(ILOG_K_CHAIN), K(ILOG_K_LOSS), ILOG_CH_STACKS, K(ILOG_K_BLKIO),
	ILOG_CH_OPS, ILOG_CH_LAYERS, ILOG_CH_HOST_TYPES, ILOG_CH_SEVERITIES, K(ILOG_K_RETRANS),
	K(ILOG_K_SOCKIO),
};
#undef K

struct ilog_ch_table_def ilog_ch_tables[ILOG_CH__COUNT];
static struct kind_table {
	struct ilog_sqltab t;
	struct ilog_ch_column cols[ILOG_SQL_MAXCOLS + 3];
	char engine[192], what[64];
} kt[ILOG_K__COUNT];
static pthread_once_t made = PTHREAD_ONCE_INIT;
static int bad_kind = -1;

/* A column's ClickHouse type: its own, or (array) an array of it. */
static const char *ch_type(const struct ilog_sqlcol *c, int array)
{
	static const char *const type[][2] = {
		[FT_U8] = { "UInt8", "Array(UInt8)" }, [FT_U16] = { "UInt16", "Array(UInt16)" },
		[FT_U32] = { "UInt32", "Array(UInt32)" }, [FT_U64] = { "UInt64", "Array(UInt64)" },
		[FT_S32] = { "Int32", "Array(Int32)" }, [FT_S64] = { "Int64", "Array(Int64)" },
		[FT_F64] = { "Float64", "Array(Float64)" }, [FT_STR] = { "String", "Array(String)" },
		[FT_BIN] = { "String", "Array(String)" }, [FT_CHARS] = { "String", "Array(String)" },
		[FT_TS] = { "UInt64", "Array(UInt64)" },
	};
	if (!c->f)
		return "UInt64"; /* computed */
	if (c->f->type == FT_ARR)
		return ch_type(&(struct ilog_sqlcol){ .f = &c->f->sub[0] }, 1);
	if (c->f->view == FV_ARGV)
		return "Array(String)";
	if (c->flags & ILOG_COL_LOWCARD)
		return LC;
	if (c->flags & ILOG_COL_CH8)
		return type[FT_U8][array];
	return type[c->f->type][array];
}

/*
 * A kind's table: session_id, node (its name; CUDA events add the rank),
 * then the kind's columns (lib/export/sqlcols.c); partitioned by the day
 * of its first time, sorted by node, the kind's sort key and that time.
 * 0, or -1 when it does not fit.
 */
static int make_kind(uint32_t kind)
{
	struct kind_table *k = &kt[kind];
	if (ilog_sqltab_make(kind, 1, &k->t))
		return 0; /* none */
	struct ilog_ch_column *c = k->cols;
	unsigned n = 0;
	c[n++] = (struct ilog_ch_column){ "session_id", "UInt64", ILOG_CH_SESSION, 0, NULL };
	c[n++] = (struct ilog_ch_column){ "node", LC, ILOG_CH_NODE, 0, NULL };
	if (kind == ILOG_K_CUDA)
		c[n++] = (struct ilog_ch_column){ "rank", "Int32", ILOG_CH_RANK, 0, NULL };
	const char *ts = NULL, *key = k->t.ch_key;
	for (unsigned i = 0; i < k->t.ncols; i++) {
		const struct ilog_sqlcol *sc = &k->t.cols[i];
		c[n++] = (struct ilog_ch_column){ sc->name, ch_type(sc, sc->src == ILOG_SQLC_ELEM),
						  ILOG_CH_FIELD, 0, sc };
		if (!ts && (sc->flags & ILOG_COL_WALL) && sc->src != ILOG_SQLC_ELEM)
			ts = sc->name;
	}
	int w = ts ? snprintf(k->engine, sizeof(k->engine), "MergeTree PARTITION BY " DAY("%s")
			      " ORDER BY (node, %s%s%s)", ts, key ? key : "", key ? ", " : "", ts)
		   : snprintf(k->engine, sizeof(k->engine), "MergeTree ORDER BY (node%s%s)",
			      key ? ", " : "", key ? key : "");
	if (w < 0 || (size_t)w >= sizeof(k->engine))
		return -1;
	snprintf(k->what, sizeof(k->what), "%s records", ilog_kind_name(kind));
	ilog_ch_tables[ILOG_CH_KIND + kind] = (struct ilog_ch_table_def){
		k->t.name, c, n, k->engine, "cityHash64(node)", 1,
		kind_what[kind] ? kind_what[kind] : k->what,
	};
	return 0;
}

static void make_tables(void)
{
	for (int t = 0; t < ILOG_CH_KIND; t++)
		ilog_ch_tables[t] = fixed[t];
	for (uint32_t kind = 0; kind < ILOG_K__COUNT; kind++)
		if (make_kind(kind) && bad_kind < 0)
			bad_kind = (int)kind;
}

int ilog_ch_schema(void)
{
	pthread_once(&made, make_tables);
	return bad_kind < 0 ? 0 : -1;
}

int ilog_ch_order(unsigned i)
{
	unsigned n = sizeof(ddl_order) / sizeof(ddl_order[0]);
	if (i < n)
		return ddl_order[i];
	for (int t = ILOG_CH_KIND; t < ILOG_CH__COUNT; t++) {
		unsigned j = 0;
		while (j < n && ddl_order[j] != t)
			j++;
		if (j == n && ilog_ch_tables[t].name && i-- == n)
			return t;
	}
	return -1;
}

int ilog_ch_ident(const char *s)
{
	size_t n = 0;
	if (!s || !*s || (*s >= '0' && *s <= '9'))
		return 0;
	for (; s[n]; n++) {
		char c = s[n];
		if (!((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
		      c == '_'))
			return 0;
	}
	return n <= 64;
}

int ilog_ch_create(struct ilog_buf *b, const char *db, enum ilog_ch_table t, int distributed)
{
	const struct ilog_ch_table_def *d = &ilog_ch_tables[t];
	if (distributed)
		return ilog_buf_printf(b, "CREATE TABLE IF NOT EXISTS %s.%s" ILOG_CH_DIST_SUFFIX
				       " AS %s.%s ENGINE = Distributed(" ILOG_CH_CLUSTER
				       ", %s, %s, %s)", db, d->name, db, d->name, db, d->name,
				       d->shard_key);
	int bad = ilog_buf_printf(b, "CREATE TABLE IF NOT EXISTS %s.%s\n(\n", db, d->name);
	for (unsigned i = 0; i < d->ncols; i++)
		bad |= ilog_buf_printf(b, "    %s %s%s\n", d->cols[i].name, d->cols[i].sql,
				       i + 1 < d->ncols ? "," : "");
	bad |= ilog_buf_printf(b, ")\nENGINE = %s", d->engine);
	return bad ? -1 : 0;
}

int ilog_ch_ddl(struct ilog_buf *b, const char *db, int comments, int distributed)
{
	int bad = 0;
	if (comments)
		bad |= ilog_buf_printf(b, "-- ingero fleet schema for ClickHouse (docs/fleet.md); "
				       "database %s.\n-- ClickHouse 18.16 needs "
				       "allow_experimental_low_cardinality_type=1 in the "
				       "server's profile.\n", db);
	bad |= ilog_buf_printf(b, "CREATE DATABASE IF NOT EXISTS %s;\n", db);
	if (ilog_ch_schema())
		return -1;
	for (int i = 0, t; (t = ilog_ch_order((unsigned)i)) >= 0; i++) {
		if (comments)
			bad |= ilog_buf_printf(b, "\n-- %s: %s\n", ilog_ch_tables[t].name,
					       ilog_ch_tables[t].what);
		bad |= ilog_ch_create(b, db, (enum ilog_ch_table)t, 0);
		bad |= ilog_buf_printf(b, ";\n");
	}
	if (distributed) {
		if (comments)
			bad |= ilog_buf_printf(b, "\n-- Multi-shard: tables that read every shard of "
					       "the cluster '" ILOG_CH_CLUSTER "' (remote_servers\n"
					       "-- in each server's config; the local tables "
					       "above must exist on every shard).\n");
		for (int i = 0, t; (t = ilog_ch_order((unsigned)i)) >= 0; i++) {
			if (!ilog_ch_tables[t].shard_key)
				continue;
			bad |= ilog_ch_create(b, db, (enum ilog_ch_table)t, 1);
			bad |= ilog_buf_printf(b, ";\n");
		}
	}
	return bad ? -1 : 0;
}

int ilog_ch_insert_sql(struct ilog_buf *b, const char *db, enum ilog_ch_table t)
{
	const struct ilog_ch_table_def *d = &ilog_ch_tables[t];
	int bad = ilog_buf_printf(b, "INSERT INTO %s.%s (", db, d->name);
	for (unsigned i = 0; i < d->ncols; i++)
		bad |= ilog_buf_printf(b, "%s%s", i ? ", " : "", d->cols[i].name);
	bad |= ilog_buf_printf(b, ") FORMAT RowBinary");
	return bad ? -1 : 0;
}

/* ---- RowBinary ---- */

/*
 * A row is written through a small scratch area: fixed-size columns and
 * length prefixes gather there and go to the batch in one ilog_buf_put
 * before each string's bytes and at the end of the row.
 */
struct enc {
	struct ilog_buf *b;
	char tmp[512];
	size_t n;
	int bad;
};

static void drain(struct enc *e)
{
	if (e->n && ilog_buf_put(e->b, e->tmp, e->n))
		e->bad = 1;
	e->n = 0;
}

static void put_fixed(struct enc *e, const void *p, size_t n)
{
	if (e->n + n > sizeof(e->tmp))
		drain(e);
	memcpy(e->tmp + e->n, p, n);
	e->n += n;
}

static void put_u16(struct enc *e, uint16_t v) { v = htole16(v); put_fixed(e, &v, 2); }
static void put_u32(struct enc *e, uint32_t v) { v = htole32(v); put_fixed(e, &v, 4); }
static void put_u64(struct enc *e, uint64_t v) { v = htole64(v); put_fixed(e, &v, 8); }

static void put_f64(struct enc *e, double d)
{
	uint64_t u;
	memcpy(&u, &d, sizeof(u));
	put_u64(e, u);
}

/* unsigned LEB128, as ClickHouse writes string and array lengths */
static void put_len(struct enc *e, uint64_t v)
{
	char p[10];
	size_t n = 0;
	while (v >= 0x80) {
		p[n++] = (char)(v | 0x80);
		v >>= 7;
	}
	p[n++] = (char)v;
	put_fixed(e, p, n);
}

static void put_str(struct enc *e, const struct ilog_str *s)
{
	put_len(e, s->n);
	if (s->n) {
		drain(e);
		if (ilog_buf_put(e->b, s->p, s->n))
			e->bad = 1;
	}
}

static void put_arr(struct enc *e, enum ilog_ch_type t, const struct ilog_ch_arr *a)
{
	put_len(e, a->n);
	const char *p = a->p;
	for (uint32_t i = 0; i < a->n; i++, p += a->stride) {
		uint32_t u32;
		uint64_t u64;
		double f;
		switch (t) {
		case ILOG_CH_ASTR: put_str(e, (const struct ilog_str *)(const void *)p); break;
		case ILOG_CH_AU32: memcpy(&u32, p, 4); put_u32(e, u32); break;
		case ILOG_CH_AU64: memcpy(&u64, p, 8); put_u64(e, u64); break;
		case ILOG_CH_AF64: memcpy(&f, p, 8); put_f64(e, f); break;
		default: e->bad = 1; break;
		}
	}
}

/* argv: NUL-separated, each argument ended by a NUL (the last may not be):
 * the count, or with e, the arguments written. */
static uint32_t put_argv(struct enc *e, struct ilog_bin a)
{
	uint32_t na = 0;
	for (uint32_t i = 0, st = 0; i < a.n; i++) {
		if (a.p[i] && i + 1 < a.n)
			continue;
		uint32_t end = a.p[i] ? i + 1 : i;
		if (e)
			put_str(e, &(struct ilog_str){ (const char *)a.p + st, end - st });
		na++;
		st = i + 1;
	}
	return na;
}

/* One value of a record's column (of element elem of an array). */
static void put_value(struct enc *e, const struct ilog_sqlcol *c, const struct ilog_ch_rec *rec,
		      const void *elem)
{
	uint8_t type = c->f ? c->f->type : FT_U64;
	if (type == FT_STR || type == FT_CHARS) {
		struct ilog_str s = ilog_sqlcol_str(c, rec->base, elem);
		put_str(e, &s);
	} else if (type == FT_BIN) {
		struct ilog_bin v = ilog_sqlcol_bin(c, rec->base, elem);
		char a[64];
		if (c->f->view == FV_ARGV) {
			put_len(e, put_argv(NULL, v));
			put_argv(e, v);
		} else if (c->f->view == FV_INET) {
			put_str(e, &(struct ilog_str){ a, (uint32_t)strlen(ilog_inet_str(v, a, sizeof(a))) });
		} else {
			put_len(e, v.n * 2);
			for (uint32_t i = 0; i < v.n; i++) {
				char x[3];
				snprintf(x, sizeof(x), "%02x", v.p[i]);
				put_fixed(e, x, 2);
			}
		}
	} else if (type == FT_F64) {
		put_f64(e, ilog_sqlcol_f64(c, rec->base, elem));
	} else {
		uint64_t v = ilog_sqlcol_u64(c, rec->base, elem);
		if ((c->flags & ILOG_COL_WALL) && v)
			v = ilog_reader_wall(rec->r, rec->rnode, v);
		if (c->f && !strcmp(c->f->name, "stack_id") && v) {
			/* the fleet-wide id (docs/fleet.md) */
			uint64_t fid = ilog_ch_stacks_id(rec->stacks, rec->xnode, v);
			*rec->stacks_unknown += !fid;
			v = fid;
		}
		if (type == FT_U8 || (c->flags & ILOG_COL_CH8))
			put_fixed(e, &(uint8_t){ (uint8_t)v }, 1);
		else if (type == FT_U16)
			put_u16(e, (uint16_t)v);
		else if (type == FT_U32 || type == FT_S32)
			put_u32(e, (uint32_t)v);
		else
			put_u64(e, v);
	}
}

/* A column of a record: a value, or an array of them (an array of
 * scalars, one field of an array of records). */
static void put_column(struct enc *e, const struct ilog_sqlcol *c, const struct ilog_ch_rec *rec)
{
	const struct ilog_field *arr = c->src == ILOG_SQLC_ELEM ? c->arr
				       : c->f && c->f->type == FT_ARR ? c->f : NULL;
	if (!arr) {
		put_value(e, c, rec, NULL);
		return;
	}
	struct ilog_sqlcol ec = { .f = c->src == ILOG_SQLC_ELEM ? c->f : &arr->sub[0], .arr = arr,
				  .src = ILOG_SQLC_ELEM, .flags = c->flags };
	uint32_t n = ilog_sqlarr_n(arr, rec->base);
	put_len(e, n);
	for (uint32_t i = 0; i < n; i++)
		put_value(e, &ec, rec, ilog_sqlarr_at(arr, rec->base, i));
}

int ilog_ch_encode(struct ilog_buf *b, enum ilog_ch_table t, const void *row)
{
	const struct ilog_ch_table_def *d = &ilog_ch_tables[t];
	const char *r = row;
	struct enc e = { .b = b };
	size_t len0 = b->len;
	for (unsigned i = 0; i < d->ncols; i++) {
		const struct ilog_ch_column *c = &d->cols[i];
		const void *f = r + c->off;
		switch (c->type) {
		case ILOG_CH_U8: put_fixed(&e, f, 1); break;
		case ILOG_CH_U16: put_u16(&e, *(const uint16_t *)f); break;
		case ILOG_CH_U32: case ILOG_CH_I32: put_u32(&e, *(const uint32_t *)f); break;
		case ILOG_CH_U64: case ILOG_CH_I64: put_u64(&e, *(const uint64_t *)f); break;
		case ILOG_CH_F64: put_f64(&e, *(const double *)f); break;
		case ILOG_CH_STR: put_str(&e, f); break;
		case ILOG_CH_SESSION: put_u64(&e, ((const struct ilog_ch_rec *)row)->session); break;
		case ILOG_CH_NODE: put_str(&e, &((const struct ilog_ch_rec *)row)->node); break;
		case ILOG_CH_RANK: put_u32(&e, (uint32_t)((const struct ilog_ch_rec *)row)->rank); break;
		case ILOG_CH_FIELD: put_column(&e, c->sc, row); break;
		default: put_arr(&e, c->type, f); break;
		}
	}
	drain(&e);
	if (e.bad)
		b->len = len0; /* no part of a row */
	return e.bad ? -1 : 0;
}
