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

struct ilog_field {
	const char *name;
	uint8_t type, view;
	uint16_t off;
	/* FT_ARR only */
	uint16_t cnt_off, esize, max;
	uint8_t nsub;             /* 1: flat array of scalars; >1: array of arrays */
	const struct ilog_field *sub;
};

struct ilog_kind_desc {
	const char *name;
	uint16_t size;            /* sizeof the union member */
	uint16_t nfields;
	const struct ilog_field *fields;
};

/*
 * The hot kind's fields as an X-macro, so the table below and the
 * straight-line hot-path encoder/decoder come from one list.
 * X(member, json name, wire type, view)
 */
#define ILOG_CUDA_FIELDS(X) \
	X(ts_ns, "ts_ns", FT_TS, FV_NUM) \
	X(dur_ns, "dur_ns", FT_U64, FV_NUM) \
	X(pid, "pid", FT_U32, FV_NUM) \
	X(tid, "tid", FT_U32, FV_NUM) \
	X(layer, "layer", FT_U8, FV_LAYER) \
	X(op, "op", FT_U16, FV_OP) \
	X(ret, "ret", FT_S32, FV_NUM) \
	X(stream, "stream", FT_U64, FV_HEX) \
	X(bytes, "bytes", FT_U64, FV_NUM) \
	X(handle, "handle", FT_U64, FV_HEX) \
	X(kind, "kind", FT_U32, FV_NUM) \
	X(grid_x, "grid_x", FT_U32, FV_NUM) \
	X(grid_y, "grid_y", FT_U32, FV_NUM) \
	X(grid_z, "grid_z", FT_U32, FV_NUM) \
	X(block_x, "block_x", FT_U32, FV_NUM) \
	X(block_y, "block_y", FT_U32, FV_NUM) \
	X(block_z, "block_z", FT_U32, FV_NUM) \
	X(flags, "flags", FT_U8, FV_NUM) \
	X(stack_id, "stack_id", FT_U64, FV_HEX) \
	X(pystack_id, "pystack_id", FT_U64, FV_HEX)

/* NULL for kinds this build does not know. */
const struct ilog_kind_desc *ilog_kind_desc(uint32_t kind);

#endif
