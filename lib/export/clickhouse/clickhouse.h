/* SPDX-License-Identifier: MIT */
/*
 * Internal to the ClickHouse sinks (lib/export_clickhouse*.c): the fleet
 * schema, its RowBinary encoding, the HTTP client and fleet-wide stack
 * ids.  docs/fleet.md is the contract for the tables; one column list
 * per table is what the DDL, the INSERT column lists and the row encoder
 * all walk, so they cannot drift apart: a record kind's is made from the
 * kind table (lib/export/sqlcols.c), the others' are written in schema.c.
 */
#ifndef ILOG_EXPORT_CLICKHOUSE_H
#define ILOG_EXPORT_CLICKHOUSE_H

#include "../export_int.h"
#include "ingero/hmap.h"

/* ---- schema (export_clickhouse_schema.c) ---- */

/* The tables not made from a kind's fields; the kinds' tables follow,
 * ILOG_CH_KIND + kind (those with one: ilog_ch_tables[t].name). */
enum ilog_ch_table {
	ILOG_CH_SESSIONS, ILOG_CH_NODES, ILOG_CH_STACKS,
	ILOG_CH_OPS, ILOG_CH_LAYERS, ILOG_CH_HOST_TYPES, ILOG_CH_SEVERITIES,
	ILOG_CH_KIND,
	ILOG_CH__COUNT = ILOG_CH_KIND + ILOG_K__COUNT
};

/* How a column is read from its row struct and written as RowBinary. */
enum ilog_ch_type {
	ILOG_CH_U8, ILOG_CH_U16, ILOG_CH_U32, ILOG_CH_U64, ILOG_CH_I32, ILOG_CH_I64,
	ILOG_CH_F64,
	ILOG_CH_STR,      /* struct ilog_str */
	ILOG_CH_ASTR,     /* struct ilog_ch_arr of struct ilog_str */
	ILOG_CH_AU32, ILOG_CH_AU64, ILOG_CH_AF64, /* struct ilog_ch_arr of numbers */
	/* a kind's table: from struct ilog_ch_rec */
	ILOG_CH_SESSION, ILOG_CH_NODE, ILOG_CH_RANK,
	ILOG_CH_FIELD,    /* a column of the record (sc) */
};

/* An array column: n elements, stride bytes apart from p. */
struct ilog_ch_arr { const void *p; uint32_t n, stride; };

struct ilog_ch_column {
	const char *name;
	const char *sql;          /* the ClickHouse type */
	enum ilog_ch_type type;
	uint16_t off;             /* offset in the table's row struct */
	const struct ilog_sqlcol *sc; /* ILOG_CH_FIELD */
};

struct ilog_ch_table_def {
	const char *name;         /* NULL: no such table */
	const struct ilog_ch_column *cols;
	unsigned ncols;
	const char *engine;       /* ENGINE = ... clause */
	const char *shard_key;    /* Distributed sharding key; NULL: no Distributed table */
	int counted;              /* a plain MergeTree with session_id: a batch whose
				   * fate is unknown is settled by counting rows */
	const char *what;         /* a line about it, for the DDL's comments */
};

/* The tables; made on the first ilog_ch_schema() (any thread), which
 * returns 0, or -1 when a kind's table cannot be made (a bug). */
extern struct ilog_ch_table_def ilog_ch_tables[ILOG_CH__COUNT];
int ilog_ch_schema(void);
/* The tables in the DDL's order (docs/fleet.md's): the i-th, or -1 past
 * the last. */
int ilog_ch_order(unsigned i);

/* The cluster the Distributed tables span (remote_servers in the server's
 * config) and the suffix of their names. */
#define ILOG_CH_CLUSTER "ingero"
#define ILOG_CH_DIST_SUFFIX "_all"

/* Rows, one struct per table not made from a kind; the tables' column
 * lists point into them. */
struct ilog_ch_session_row {
	uint64_t session_id, imported_ns;
	struct ilog_str tool, version, source;
	uint64_t records, events, host_events, unknown_records, stacks_unknown;
	uint64_t first_ts_ns, last_ts_ns;
	uint8_t complete;
};

struct ilog_ch_node_row {
	uint64_t session_id;
	struct ilog_str node, host, boot_id;
	int64_t rank;
	uint64_t log_session;
	struct ilog_str recorder, kernel, driver, format_version;
	uint32_t node_index;
	uint64_t anchor_mono_ns, anchor_real_ns;
};

struct ilog_ch_stack_row {
	uint64_t stack_id;
	uint16_t depth, unresolved, symbolized;
	struct ilog_ch_arr key, offset, module, function, file, line;
};

/* A row of a kind's table: the record and what the row adds to it. */
struct ilog_ch_stacks;
struct ilog_ch_rec {
	const void *base;         /* the kind's member of union ilog_record */
	uint64_t session;
	struct ilog_str node;     /* the node's name */
	int32_t rank;
	const struct ilog_reader *r; /* wall times: the reader, at node rnode */
	uint32_t rnode;
	const struct ilog_ch_stacks *stacks; /* stack ids: fleet ids of export node xnode */
	uint32_t xnode;
	uint64_t *stacks_unknown; /* counts stack ids without a stack record */
};

/* lookup tables: ops and host_types key by id16, layers and severities by id8 */
struct ilog_ch_name_row { uint16_t id16; uint8_t id8, layer; struct ilog_str name; };

/*
 * The DDL of the whole schema in database db: CREATE DATABASE, then the
 * tables, then (distributed) the Distributed tables over ILOG_CH_CLUSTER.
 * Statements end with ";\n"; comments are "-- " lines.  0 or -1 (ENOMEM).
 */
int ilog_ch_ddl(struct ilog_buf *b, const char *db, int comments, int distributed);
/* One table's CREATE TABLE IF NOT EXISTS (no ";"), local or Distributed. */
int ilog_ch_create(struct ilog_buf *b, const char *db, enum ilog_ch_table t, int distributed);
/* "INSERT INTO db.table (c1, c2, ...) FORMAT RowBinary".  0 or -1. */
int ilog_ch_insert_sql(struct ilog_buf *b, const char *db, enum ilog_ch_table t);
/* Append one row (row points to the table's row struct, for a kind's
 * table to a struct ilog_ch_rec) as RowBinary:
 * little-endian numbers, strings and arrays prefixed by their LEB128
 * length.  0 or -1 (ENOMEM). */
int ilog_ch_encode(struct ilog_buf *b, enum ilog_ch_table t, const void *row);
/* 1 if s is a plain identifier ([A-Za-z_][A-Za-z0-9_]*, at most 64). */
int ilog_ch_ident(const char *s);

/* ---- HTTP (export_clickhouse_http.c) ---- */

enum ilog_ch_result {
	ILOG_CH_OK = 0,
	ILOG_CH_RETRY,        /* not delivered; safe and worth trying again */
	ILOG_CH_UNKNOWN,      /* the connection broke after the request went out:
			       * the server may have taken some or all of it */
	ILOG_CH_REFUSED,      /* the server answered with an error that a retry
			       * will not change */
};

struct ilog_ch_http;

/* A client for url (http:// or https://, credentials allowed).  NULL and
 * err filled when the URL is not one. */
struct ilog_ch_http *ilog_ch_http_new(const char *url, char *err, size_t errlen);
void ilog_ch_http_free(struct ilog_ch_http *h);
/* The URL with any password replaced by "***", for messages. */
const char *ilog_ch_http_label(const struct ilog_ch_http *h);
/*
 * One POST.  query goes in the URL when body is non-NULL (an INSERT with
 * its data as the body), else as the body.  query_id may be NULL.  On OK
 * the answer is in *resp (NUL-terminated).  Otherwise err says what
 * happened in one line: the curl error, or the HTTP status and the first
 * line of the server's answer ("Code: 81, ...").
 */
enum ilog_ch_result ilog_ch_http_post(struct ilog_ch_http *h, const char *query,
				      const void *body, size_t len, const char *query_id,
				      struct ilog_buf *resp, char *err, size_t errlen);

/* Retry schedule: the first retry after ILOG_CH_BACKOFF0_MS, doubling up
 * to ILOG_CH_BACKOFF_MAX_MS, for up to retry_ms in all (default
 * ILOG_CH_RETRY_MS; INGERO_CLICKHOUSE_RETRY=SECONDS changes it). */
#define ILOG_CH_BACKOFF0_MS 100
#define ILOG_CH_BACKOFF_MAX_MS 5000
#define ILOG_CH_RETRY_MS 10000

/*
 * A POST retried on ILOG_CH_RETRY (and, for idempotent requests, on
 * ILOG_CH_UNKNOWN) until retry_ms is spent.  *tries counts the attempts.
 * Returns the last result.
 */
enum ilog_ch_result ilog_ch_http_post_retry(struct ilog_ch_http *h, const char *query,
					    const void *body, size_t len, const char *query_id,
					    int idempotent, uint64_t retry_ms, unsigned *tries,
					    struct ilog_buf *resp, char *err, size_t errlen);
/* Sleep for the n-th backoff step (n from 0), cut short at deadline_ns
 * (CLOCK_MONOTONIC): 0 after sleeping, -1 (no sleep) when the deadline
 * has passed.  So the last try falls on the deadline. */
int ilog_ch_backoff(unsigned n, uint64_t deadline_ns);

/* ---- fleet stack ids (export_clickhouse_stack.c) ---- */

/*
 * Addresses are node-local; a stack's fleet id is a hash of what its
 * frames are in their files (docs/fleet.md "Stack ids"):
 *   key(frame)    = lowercase hex build-id of the mapping holding the ip,
 *                   or "path:" + its path when the file has no build-id,
 *                   or "" when no mapping holds the ip (then offset = ip);
 *   offset(frame) = ip - mapping start + mapping file offset;
 *   id = splitmix64 finalizer of FNV-1a 64 over, for each frame innermost
 *        first: key bytes, one 0 byte, offset as 8 little-endian bytes;
 *        0 becomes 1.
 * The same code path therefore has one id on every node, in every
 * process, whatever its load addresses.
 */
struct ilog_symmap;

struct ilog_ch_frames {
	uint32_t n, unresolved, symbolized;
	struct ilog_str key[INGERO_MAX_STACK], module[INGERO_MAX_STACK];
	struct ilog_str function[INGERO_MAX_STACK], file[INGERO_MAX_STACK];
	uint64_t offset[INGERO_MAX_STACK];
	uint32_t line[INGERO_MAX_STACK];
};

struct ilog_ch_stacks *ilog_ch_stacks_new(void);
void ilog_ch_stacks_free(struct ilog_ch_stacks *s);
/* Keep process (drops the pid's mappings: a new image) and mapping
 * records of export node `node`.  0 or -1 (ENOMEM). */
int ilog_ch_stacks_note(struct ilog_ch_stacks *s, uint32_t node, const struct ilog_record *rec);
/*
 * A stack record of export node `node` (reader node rnode, for symbols
 * in sym, which may be NULL): its fleet id, remembered for
 * ilog_ch_stacks_id; with f, the frames as the stacks table stores them
 * (views into s and sym, valid until the next call).  0 on ENOMEM.
 */
uint64_t ilog_ch_stacks_add(struct ilog_ch_stacks *s, uint32_t node, uint32_t rnode,
			    const struct ingero_stack *st, const struct ilog_symmap *sym,
			    struct ilog_ch_frames *f);
/* The fleet id of a recorder stack id of a node; 0 if no stack record
 * for it was seen (yet). */
uint64_t ilog_ch_stacks_id(const struct ilog_ch_stacks *s, uint32_t node, uint64_t rid);
/* 1 the first time a fleet id is passed, 0 after (rows once per run);
 * -1 on ENOMEM. */
int ilog_ch_stacks_first(struct ilog_ch_stacks *s, uint64_t fid);
/* The hash of the documented rule over ready frames (exposed for tests). */
uint64_t ilog_ch_stack_hash(const struct ilog_ch_frames *f);

/* ---- the sink's state, shared by its thread (clickhouse.c) and the
 * sender (send.c) ---- */
#include <pthread.h>

#define BATCH_ROWS (1u << 19)          /* 524288: >= 100k, < max_insert_block_size */
#define BATCH_BYTES (48u << 20)
#define FLUSH_NS (5ull * 1000000000ull)
#define MAX_QUEUED 2
#define DEFAULT_DB "ingero"

struct batch {
	struct batch *next;
	enum ilog_ch_table t;
	struct ilog_buf rows;
	uint32_t *offs;                /* row starts, to resend a remainder */
	uint32_t capoffs;
	uint64_t nrows;
	uint64_t born_ns;
};

struct ch {
	struct ilog_ch_http *http;
	char db[65];
	uint64_t session, retry_ms;
	char *sql[ILOG_CH__COUNT];     /* INSERT statements */

	/* the caller's thread */
	struct ilog_node_map nodes;    /* recordings, as every tool numbers them */
	struct ilog_ch_stacks *stacks;
	struct ilog_symmap *sym;
	struct ilog_ch_frames frames;  /* of the stack record being read */
	uint64_t frames_fid;
	struct ilog_str *argv;
	uint32_t capargv;
	struct ilog_ch_session_row sess;
	struct ilog_hmap named_ops;    /* named ops whose `ops` row was sent */

	/* shared, under mu */
	pthread_mutex_t mu;
	pthread_cond_t wake_sender, wake_main;
	struct batch *cur[ILOG_CH__COUNT];
	struct batch *qhead, *qtail, *spare;
	unsigned queued;
	int closing, failed, started;
	char err[512];
	pthread_t th;

	/* the sender's */
	uint64_t confirmed[ILOG_CH__COUNT]; /* rows of this session the table has */
	uint64_t seq;
	struct ilog_buf resp;
	char qid[96];
};

/* " (--create makes ...)" when err says the database or a table is missing. */
const char *ilog_ch_hint(const char *err);
/* Set the first error (later ones are consequences) and wake both
 * threads.  Under mu. */
void ilog_ch_fail_locked(struct ch *s, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* The server's one-number answer in b.  0, or -1 when it is not one. */
int ilog_ch_answer_u64(const struct ilog_buf *b, uint64_t *v);
/* A count from the server, retried until deadline.  0, or -1 with why. */
int ilog_ch_ask_count(struct ch *s, const char *q, uint64_t deadline, uint64_t *v, char *why,
		      size_t whylen);
/* Queue table t's open batch for the sender.  Under mu. */
void ilog_ch_enqueue_locked(struct ch *s, enum ilog_ch_table t);
/* Queue every open batch.  Under mu. */
void ilog_ch_finish_all_locked(struct ch *s);
/* The sender thread's body (arg: struct ch). */
void *ilog_ch_sender(void *arg);

#endif
