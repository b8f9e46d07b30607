/* SPDX-License-Identifier: MIT */
/*
 * ingero-merge's engine: a streaming k-way merge of logs by wall time into
 * one multi-node log (docs/merge.md), with clock-skew estimation per node.
 *
 * Use: ilog_merge_open (reads headers; with file inputs also a first pass
 * that gathers clock anchors and NCCL collective sync points), look at the
 * nodes and their offset estimates (ilog_merge_nodes), then
 * ilog_merge_write (the merge proper), ilog_merge_free.  Memory is bounded
 * by the number of inputs, nodes and distinct stacks, not by the log size.
 */
#ifndef ILOG_MERGE_H
#define ILOG_MERGE_H

#include "ingero/ilog.h"

struct ilog_merge_input {
	const char *path;          /* "-" = stdin (then no first pass: anchors only) */
	const char *node;          /* --node NAME for this input, or NULL */
};

struct ilog_merge_opts {
	int align;                 /* apply the offset estimates to the output */
	int force_node;            /* --node replaces a name the header has */
	uint64_t skew_threshold_ns;/* warn when |offset| exceeds this */
	const char *reference;     /* node all offsets are relative to; NULL = first */
	const char *args;          /* command line, for the provenance record */
	uint64_t now_real_ns;      /* provenance time */
	int level;                 /* zstd level, 0 = writer default */
	/* called every 2^20 records read: pass 1 (anchors, collectives) or 2
	 * (the merge), records read so far in that pass; may be NULL */
	void (*progress)(void *arg, int pass, uint64_t records);
	void *progress_arg;
	/* called with "PATH: offset N: problem (...)" for each damaged range
	 * of an input that the merge skips (SPEC §9), in the merge proper; may
	 * be NULL.  ilog_merge_stats counts them. */
	void (*damage)(void *arg, const char *line);
	void *damage_arg;
};

enum ilog_skew_method {
	ILOG_SKEW_REFERENCE = 0,   /* the reference node itself */
	ILOG_SKEW_SAME_BOOT,       /* shares CLOCK_MONOTONIC with the reference */
	ILOG_SKEW_COLLECTIVES,     /* matched NCCL collective sync points */
	ILOG_SKEW_ANCHORS,         /* nothing to compare: wall-clock anchors trusted */
};
const char *ilog_skew_method_name(int method);

/* One node of the output, in output order (node_index = position). */
struct ilog_merge_node {
	char name[256];            /* after --node / duplicate renaming */
	char orig_name[256];       /* as the header had it */
	int64_t rank;
	uint64_t session_id;
	uint32_t input;            /* index of the input it came from */
	int method;                /* enum ilog_skew_method */
	int64_t offset_ns;         /* node wall clock minus the reference's */
	double uncertainty_ns;     /* 1-sigma; < 0 when unknown (anchors only) */
	double spread_ns;          /* robust spread (1.4826 MAD) of matched points */
	uint64_t matched;          /* collective points matched with the reference */
	uint64_t points;           /* collective points this node has (after thinning) */
	uint32_t anchors;          /* header and clock records seen */
	uint64_t anchor_step_ns;   /* largest change of (real - mono) between anchors */
	int warn;                  /* |offset_ns| > skew_threshold_ns */
	int applied;               /* --align shifted this node's wall clock */
	int scanned;               /* 0: read once (stdin), no collectives gathered */
};

struct ilog_merge_stats {
	uint64_t records_in, records_out;
	uint64_t stacks_dedup, pystacks_dedup, pycode_dedup;
	uint64_t unresolved_refs;  /* stack ids used before/without their record */
	uint64_t collectives;      /* collective points gathered, all nodes */
	uint64_t damaged;          /* damaged ranges of the inputs skipped */
};

struct ilog_merge;
/*
 * Open every input, read its headers and (for regular files) run the first
 * pass.  Returns NULL with err filled ("path: offset N: problem") on a bad
 * input: no header, a different major version, an unnamed node, the same
 * recording given twice, unreadable files.
 */
struct ilog_merge *ilog_merge_open(const struct ilog_merge_input *in, uint32_t nin,
				   const struct ilog_merge_opts *opts, char *err, size_t errlen);
/* Nodes known before writing, in output order. */
const struct ilog_merge_node *ilog_merge_nodes(const struct ilog_merge *m, uint32_t *n);
/* Node i's clock estimate as one JSON object, appended to b -- the same
 * object the provenance record's "nodes" array holds: node_index, node,
 * rank, input, method, offset_ns, uncertainty_ns (null: unknown), matched,
 * applied.  0 or -1 (ENOMEM). */
int ilog_merge_node_json(struct ilog_buf *b, uint32_t i, const struct ilog_merge_node *p);
/* Warnings gathered so far (renames, thin evidence), one per line; "" if none. */
const char *ilog_merge_warnings(const struct ilog_merge *m);
/*
 * Write the merged log to fd.  0 on success (damaged ranges skipped are
 * in ilog_merge_stats); -1 with err filled on a write error or an input
 * that cannot be read on (records before it are written).
 */
int ilog_merge_write(struct ilog_merge *m, int fd, char *err, size_t errlen);
void ilog_merge_stats(const struct ilog_merge *m, struct ilog_merge_stats *st);
void ilog_merge_free(struct ilog_merge *m);

#endif
