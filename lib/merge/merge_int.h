/* SPDX-License-Identifier: MIT */
/*
 * Internal to lib/merge/: what the merge engine (merge.c) and the clock-skew
 * estimation (skew.c) share beyond the public ingero/merge.h: the merge's
 * state, its nodes and inputs, and the functions each file calls in the
 * other.  A node's collective points (struct cpoint, cproc, pending) are
 * skew.c's alone.
 */
#ifndef ILOG_MERGE_INT_H
#define ILOG_MERGE_INT_H

#include <stddef.h>
#include <stdint.h>
#include "ingero/merge.h"
#include "ingero/buf.h"
#include "ingero/hmap.h"
#include "ingero/vec.h"

struct cpoint;
struct cproc;
struct pending;

struct mnode {
	struct ilog_merge_node pub;
	uint32_t out;              /* output node_index */
	char boot_id[128];
	struct ilog_header hdr;    /* first header; strings point into hstr */
	char hstr[6][256];
	int upfront;               /* its first header is written before the records */
	int first_seen;            /* pass 2 has met its first header */
	/* the headers' anchors (mono_ns) and inputs of its files: a recording
	 * in several files (ingero-record --rotate) is one node, the same file
	 * given twice an error */
	struct mstart { uint64_t mono; uint32_t input; } *starts;
	uint32_t nstarts, capstarts;
	/* pass 1 */
	uint64_t a_mono, a_real;
	struct cproc *procs;
	uint32_t nprocs, capprocs;
	struct pending *pend;
	uint32_t npend, cappend;
	struct cpoint *pts;
	uint32_t npts, stride;
	/* pass 2 */
	uint64_t name_hash;
	struct ilog_hmap stack_map;   /* old stack id -> new id */
	struct ilog_hmap pystack_map;
	struct ilog_hmap emitted;     /* new stack/pystack/pycode ids already written */
};

struct minput {
	const char *path;
	const char *node;          /* --node */
	int is_file;
	int fd;
	struct ilog_reader *r;     /* pass 2 */
	struct mnode **bynode;     /* reader node index -> node; zeroed beyond nbynode */
	uint32_t nbynode, capbynode;
	const struct ilog_record *rec; /* pending record, NULL when done */
	struct mnode *cur;         /* node of the pending record */
	int64_t key, last_key;
	int done;
};

struct ilog_merge {
	struct ilog_merge_opts o;
	struct minput *in;
	uint32_t nin;
	struct mnode **nodes;      /* output order */
	uint32_t nnodes, capnodes;
	struct ilog_merge_node *pub; /* copy for ilog_merge_nodes */
	uint32_t cappub;
	struct ilog_buf warn;       /* lines, NUL-terminated (not counted) */
	struct ilog_merge_stats st;
	uint64_t scanned;          /* records read by pass 1 */
	uint32_t *heap;
	uint32_t nheap;
	struct ilog_writer *w;
	uint32_t cur_out;          /* node context of the output stream */
	uint8_t schema_done[256];  /* unknown-kind schemas passed through */
	char *err;
	size_t errlen;
};

/* merge.c */

/* Add a line to the warnings (ilog_merge_warnings); out of memory drops it. */
void ilog_merge_warnf(struct ilog_merge *m, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
/* Fill err with a message; returns -1. */
int ilog_merge_errf(char *err, size_t errlen, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
/* An input's name in messages: "(stdin)" for "-". */
const char *ilog_merge_in_name(const char *path);
/* The node header h of input `in` belongs to, made if new; NULL with err
 * filled when the header cannot be placed. */
struct mnode *ilog_merge_resolve(struct ilog_merge *m, uint32_t in, const struct ilog_header *h,
				 char *err, size_t errlen);

/* skew.c */

/* Pass 1 over input `in` (a regular file): its nodes, clock anchors and
 * collective points.  0, or -1 with err filled. */
int ilog_merge_scan_input(struct ilog_merge *m, uint32_t in, char *err, size_t errlen);
/* Each node's offset against the reference (method, offset, uncertainty),
 * then the points freed.  0, or -1 with err filled. */
int ilog_merge_estimate_all(struct ilog_merge *m, char *err, size_t errlen);

#endif
