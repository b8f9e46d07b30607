/* SPDX-License-Identifier: MIT */
/*
 * Internal: the field tables that define every record kind's wire layout
 * (SPEC §5).  The encoder, decoder, JSON renderer and schema records all
 * walk these tables, so a kind's layout is written down exactly once.
 */
#ifndef ILOG_SCHEMA_H
#define ILOG_SCHEMA_H

#include "ingero/ilog.h"

enum ilog_ftype {
	FT_U8, FT_U16, FT_U32, FT_U64, FT_S32, FT_S64, FT_F64,
	FT_STR,   /* struct ilog_str, msgpack str */
	FT_BIN,   /* struct ilog_bin, msgpack bin */
	FT_CHARS, /* char[INGERO_COMM_LEN], msgpack str */
	FT_TS,    /* uint64 ns, delta-coded per kind per frame (SPEC §4.3) */
	FT_ARR,   /* counted array of sub-records */
};

/* How the JSON renderer shows a value (SPEC §6). */
enum ilog_fview {
	FV_NUM, FV_HEX, FV_OP, FV_LAYER, FV_HOST, FV_SEV, FV_KIND,
	FV_ARGV, FV_HEXBYTES, FV_STR,
	FV_MONO,  /* a plain u64 that is a monotonic time: a number, then "time" (§6.1) */
	FV_OMIT_EMPTY, /* an array left out of the JSON object when it has no element */
	FV_INET,  /* a bin of 4 or 16 bytes: an IP address as text (1.3) */
	FV_TCPSTATE, /* a TCP state by name (1.3) */
};

/*
 * How the SQL sinks (SQLite, ClickHouse: lib/export/sqlcols.c) store a
 * field.  By default a field is a column named as the field, typed after
 * its wire type; a monotonic time (FT_TS, FV_MONO) is wall-clock ns; an
 * array of scalars is one column (SQLite: JSON text; ClickHouse: an
 * array); an array of records is, in SQLite, rows of a table of its own
 * (KIND_FIELD: session, node, the record's times, the element's fields)
 * and, in ClickHouse, one array column per element field.
 */
enum ilog_col_flag {
	ILOG_COL_SKIP = 1 << 0,    /* in no table */
	ILOG_COL_NOCH = 1 << 1,    /* not in the ClickHouse table */
	ILOG_COL_NOTNULL = 1 << 2, /* SQLite: NOT NULL */
	ILOG_COL_WALL = 1 << 3,    /* a monotonic time of another type or view */
	ILOG_COL_LOWCARD = 1 << 4, /* ClickHouse: LowCardinality(String) */
	ILOG_COL_BLOB = 1 << 5,    /* SQLite: the bytes as a BLOB, not as hex text */
	ILOG_COL_CH8 = 1 << 6,     /* ClickHouse: UInt8 (its values stay below 256) */
};

struct ilog_field {
	const char *name;
	uint8_t type, view;
	uint16_t off;
	/* FT_ARR only */
	uint16_t cnt_off, esize, max;
	uint8_t nsub;             /* 1: flat array of scalars; >1: array of arrays */
	const struct ilog_field *sub;
	/* the SQL sinks (above) */
	uint16_t sql;             /* enum ilog_col_flag */
	const char *col;          /* the column's name where it is not `name`; ClickHouse
				   * names a wall time's column COL_ns */
	const char *ch;           /* ClickHouse: its columns' prefix, for an array of records */
	const char *after;        /* its column follows this field's (by name), not the one before */
	const char *ch_after;     /* the same in ClickHouse only */
};

/* How the SQL sinks store a kind's records (its table). */
enum ilog_tab_flag {
	ILOG_TAB_NONE = 1 << 0,   /* no table from its fields: header, stacks (the sinks
				   * store them their own way), records about the log */
	ILOG_TAB_LOCAL = 1 << 1,  /* SQLite only: not in the fleet schema (docs/fleet.md) */
	ILOG_TAB_NONODE = 1 << 2, /* about the session, not a node: no node column */
};

struct ilog_kind_desc {
	const char *name;
	uint16_t size;            /* sizeof the union member */
	uint16_t nfields;
	const struct ilog_field *fields;
	/* the SQL sinks (lib/export/sqlcols.c; docs/schema.md, docs/fleet.md) */
	const char *table;        /* its table; NULL: the kind's name */
	uint8_t tab;              /* enum ilog_tab_flag */
	const char *sql_index[2]; /* SQLite indexes "NAME(COLUMNS)": TABLE_NAME ON TABLE(COLUMNS) */
	const char *ch_key;       /* ClickHouse: sort key columns between node and the time */
};

/*
 * The hot kind's fields as an X-macro, so the table below and the
 * straight-line hot-path encoder/decoder come from one list.
 * X(member, json name, wire type, view, (the SQL sinks' members, above))
 * The SQL tables list the duration beside the time; ClickHouse's puts
 * the process and thread first (its sort key's order, docs/fleet.md).
 */
#define ILOG_CUDA_FIELDS(X) \
	X(ts_ns, "ts_ns", FT_TS, FV_NUM, (.col = "ts", .sql = ILOG_COL_NOTNULL, .ch_after = "tid")) \
	X(dur_ns, "dur_ns", FT_U64, FV_NUM, (.sql = ILOG_COL_NOTNULL, .ch_after = "ts_ns")) \
	X(pid, "pid", FT_U32, FV_NUM, ()) \
	X(tid, "tid", FT_U32, FV_NUM, ()) \
	X(layer, "layer", FT_U8, FV_LAYER, ()) \
	X(op, "op", FT_U16, FV_OP, ()) \
	X(ret, "ret", FT_S32, FV_NUM, ()) \
	X(stream, "stream", FT_U64, FV_HEX, ()) \
	X(bytes, "bytes", FT_U64, FV_NUM, ()) \
	X(handle, "handle", FT_U64, FV_HEX, ()) \
	X(kind, "kind", FT_U32, FV_NUM, ()) \
	X(grid_x, "grid_x", FT_U32, FV_NUM, ()) \
	X(grid_y, "grid_y", FT_U32, FV_NUM, ()) \
	X(grid_z, "grid_z", FT_U32, FV_NUM, ()) \
	X(block_x, "block_x", FT_U32, FV_NUM, ()) \
	X(block_y, "block_y", FT_U32, FV_NUM, ()) \
	X(block_z, "block_z", FT_U32, FV_NUM, ()) \
	X(flags, "flags", FT_U8, FV_NUM, ()) \
	X(stack_id, "stack_id", FT_U64, FV_HEX, ()) \
	X(pystack_id, "pystack_id", FT_U64, FV_HEX, (.sql = ILOG_COL_NOCH))

/* NULL for kinds this build does not know. */
const struct ilog_kind_desc *ilog_kind_desc(uint32_t kind);

#endif
