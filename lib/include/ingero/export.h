/* SPDX-License-Identifier: MIT */
/*
 * Export sinks that ingero-export (and any other program) drives.  A
 * format is one entry in ilog_sinks[]: adding one is a new
 * lib/export/<name>.c (a heavy one in a subfolder of its own) plus a line
 * in lib/export/export.c.
 */
#ifndef ILOG_EXPORT_H
#define ILOG_EXPORT_H

#include "ingero/analysis.h"
#include "ingero/buf.h"
#include "ingero/filter.h"
#include "ingero/ilog.h"

struct ilog_sink_ctx {
	int out_fd;               /* the -o file or stdout */
	const char *out_path;     /* NULL for stdout */
	void *state;              /* the sink's own */
	char err[512];            /* message when a callback returns -1 */
	const char *url, *database; /* network sinks */
	int create;
	int callstacks;           /* jsonl: each cuda event gets its merged "callstack" */
	int uncompressed;         /* perfetto-proto: packets not deflated */
	const char *source;       /* the inputs, space-separated, for provenance */
	int input_cut;            /* set by the caller before close: an input was
				   * damaged or missing, so the export holds only
				   * what came before (sinks that record whether a
				   * session is complete say it is not) */
	const char *label;        /* set by open, optional: the output as messages name
				   * it (a URL without its password); NULL: out_path */
	const struct ilog_analysis_opts *analysis; /* sqlite: how its summaries and
				   * chains are analyzed (ingero-correlate's
				   * options; NULL: the defaults).  The records
				   * given are the caller's choice: filt is not
				   * applied again */
};

struct ilog_sink {
	const char *name;
	const char *help;
	int binary;               /* refuse a terminal as output */
	int path_output;          /* opens out_path itself (required): the caller
				   * must not create or truncate it first */
	int no_input;             /* writes from nothing (a schema): the caller
				   * reads no log */
	int (*open)(struct ilog_sink_ctx *c);
	int (*record)(struct ilog_sink_ctx *c, const struct ilog_record *rec,
		      const struct ilog_reader *r);
	/* Called once at the end (also after errors); flushes. 0 or -1. */
	int (*close)(struct ilog_sink_ctx *c);
	/* Optional: sees every record before the filter, for context that
	 * filtered-out records carry (symbols for stacks).  0 or -1. */
	int (*observe)(struct ilog_sink_ctx *c, const struct ilog_record *rec);
};

extern const struct ilog_sink *const ilog_sinks[];

/*
 * Live metrics of a stream (ingero-export --listen, --format otlp --url):
 * the metrics of --format prometheus kept current record by record, plus
 * what only makes sense while the stream runs, over a sliding window of
 * the stream's own time (the newest record's wall clock, so a replayed log
 * gives the same numbers as the live run):
 *  - latency quantiles (0.5, 0.9, 0.99) per (node, op) over the window,
 *    read from a log-linear histogram (16 sub-buckets per power of two:
 *    within 3.2% of the nearest-rank sample), and the calls in the window;
 *  - host gauges from the newest snapshot (CPU busy, memory, swap, load)
 *    and preemptions per second over the window;
 *  - causal chains by kind and severity, as ingero-correlate finds them,
 *    in consecutive chain windows of the stream (each window analyzed
 *    once, when the stream passes its end, and at the end of the stream).
 * Memory is flat: bounded by nodes x ops x window slots and one chain
 * window's statistics, never by the stream's length.
 *
 * Every function is safe to call from several threads: one reads the
 * stream (ilog_live_add), others render for a scraper or a push.
 */
struct ilog_live_opts {
	uint64_t window_ns;        /* quantile and rate window (default 60 s) */
	uint64_t chain_window_ns;  /* chain analysis window (default 60 s) */
	/* how each chain window is analyzed (its window_ns: the statistics
	 * window inside it); the records are the caller's, filtered by it:
	 * analysis.filt is not applied here */
	struct ilog_analysis_opts analysis;
};
struct ilog_live;
/* NULL on out of memory. */
struct ilog_live *ilog_live_new(const struct ilog_live_opts *o);
/* Account one record; r is its reader.  0, or -1 on out of memory. */
int ilog_live_add(struct ilog_live *l, const struct ilog_record *rec,
		  const struct ilog_reader *r);
/* The stream ended: analyze the open chain window.  0 or -1 (ENOMEM). */
int ilog_live_end(struct ilog_live *l);
/* Counters of the pushes that ilog_live_otlp's caller made, rendered with
 * the metrics: sent, failed (after retries), dropped (a push was due while
 * one was still being tried). */
enum { ILOG_PUSH_SENT, ILOG_PUSH_FAILED, ILOG_PUSH_DROPPED, ILOG_PUSH__N };
void ilog_live_push_count(struct ilog_live *l, int which);
/* The current metrics appended to b: Prometheus text format 0.0.4, or one
 * OTLP/HTTP JSON ExportMetricsServiceRequest.  0, or -1 on out of memory. */
int ilog_live_prometheus(struct ilog_live *l, struct ilog_buf *b);
int ilog_live_otlp(struct ilog_live *l, struct ilog_buf *b);
void ilog_live_free(struct ilog_live *l);
const struct ilog_sink *ilog_sink_find(const char *name);

#endif
