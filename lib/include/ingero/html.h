/* SPDX-License-Identifier: MIT */
/*
 * The incident report as one self-contained HTML page
 * (`ingero-correlate --html FILE`, `ingero demo --html FILE`): a header
 * (nodes, duration, processes, the verdict, loss), the causal chains as
 * cards, a timeline of per-op latency (p50 and p99 per window, log scale)
 * with the chains' intervals shaded and the host signals in lanes under
 * it on one time axis, the per-op and per-process statistics as sortable
 * tables, and a call-path icicle per op.  After ingero-merge each node
 * (rank) gets its own lanes on the shared wall-clock axis, with the clock
 * offset the merge applied.
 *
 * Everything is drawn from the statistics' per-window aggregates, never
 * from events: the page's size is bounded by ops x windows and host
 * signals x windows whatever the log's length.  The page is inline SVG,
 * CSS and a little JavaScript (hover values, sorting, chain links); it
 * loads nothing.  The same statistics give the same bytes.
 */
#ifndef ILOG_HTML_H
#define ILOG_HTML_H

#include "ingero/callsite.h"
#include "ingero/causal.h"

#define ILOG_HTML_OPS 6        /* op series per node drawn (heaviest by time) */
#define ILOG_HTML_PATHS 24     /* call paths per op in its icicle (the rest: "other") */

struct ilog_html_opts {
	const char *name;   /* input name for the title, or NULL */
	const char *note;   /* a line under the title (the demo's scenario), or NULL */
	const struct ilog_callsites *sites; /* optional: chain call paths, icicles */
};

/*
 * Append the page to b.  Op series per node: the ILOG_HTML_OPS ops with
 * the most CUDA time, plus any op a chain of that node is about.  0, or
 * -1 on out of memory.
 */
int ilog_html_report(struct ilog_buf *b, struct ilog_stats *st, const struct ilog_chain_set *cs,
		     const struct ilog_html_opts *o);

#endif
