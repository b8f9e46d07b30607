/* SPDX-License-Identifier: MIT */
/*
 * Renderings of statistics and causal chains: the human incident report
 * (`ingero-correlate --report`), the statistics table and JSON Lines for
 * machines.  Everything
 * is appended to an ilog_buf; nothing here prints.  The regression gate
 * is in gate.h.
 */
#ifndef ILOG_EXPLAIN_H
#define ILOG_EXPLAIN_H

#include "ingero/callsite.h"
#include "ingero/causal.h"

struct ilog_explain_opts {
	int per_process;  /* statistics per (node, pid, layer, op) */
	int windows;      /* also per time window */
	int max_timeline; /* timeline entries shown per chain (0 = all) */
	const char *name; /* input name for the report's header */
	const struct ilog_callsites *sites; /* optional: each chain's call path */
};

/* The incident report: summary, ranked chains with timelines, statistics,
 * host summary.  0 or -1 (out of memory). */
int ilog_explain_report(struct ilog_buf *b, struct ilog_stats *st,
			const struct ilog_chain_set *cs, const struct ilog_explain_opts *o);
/* The statistics table alone (and per-window rows with o->windows). */
int ilog_explain_stats(struct ilog_buf *b, struct ilog_stats *st,
		       const struct ilog_explain_opts *o);
/*
 * JSON Lines: one "summary" object per node, "stat" rows, "window" rows
 * with o->windows, then the ranked "chain" objects (evidence and metrics
 * inline as JSON values).  0 or -1.
 */
int ilog_explain_json(struct ilog_buf *b, struct ilog_stats *st,
		      const struct ilog_chain_set *cs, const struct ilog_explain_opts *o);
/* One chain as a JSON object (no newline), rank 1-based. */
int ilog_explain_chain_json(struct ilog_buf *b, struct ilog_stats *st,
			    const struct ilog_chain *c, uint32_t node, uint32_t rank);

#endif
