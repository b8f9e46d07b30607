/* SPDX-License-Identifier: MIT */
/*
 * The analysis driver: one log (or several) in, the statistics (stats.h),
 * the call sites (callsite.h), the launches per kernel and the causal
 * chains (causal.h) out, built the one way every consumer builds them --
 * ingero-correlate, the demo's explanation, the SQLite sink's summaries
 * (and so ingero-mcp) and the live exporter's chains.  So an option that
 * changes what correlate finds changes it everywhere.
 *
 *	struct ilog_analysis *a = ilog_analysis_new(&opts);
 *	while (... read rec from reader r ...)
 *		if (ilog_analysis_add(a, rec, r)) ... ilog_analysis_error(a) ...
 *	if (ilog_analysis_finish(a, 1)) ...
 *	... ilog_analysis_stats(a), ilog_analysis_chains(a) ...
 *	ilog_analysis_free(a);
 *
 * Adding an option of the analysis: a field here, its parsing in
 * ilog_analysis_opt and ILOG_ANALYSIS_LONG/ILOG_ANALYSIS_HELP, its use in
 * lib/analyze/analysis.c (docs/HACKING.md, "A new CLI option").
 */
#ifndef ILOG_ANALYSIS_H
#define ILOG_ANALYSIS_H

#include <stddef.h>
#include "ingero/callsite.h"
#include "ingero/causal.h"
#include "ingero/filter.h"
#include "ingero/stats.h"

/* The gate's default --threshold: p99/p50 growth of 20% */
#define ILOG_GATE_THRESHOLD 0.20

struct ilog_analysis_opts {
	/* the options of the analysis, from the command line */
	uint64_t window_ns;       /* --window: statistics window width; 0 = adaptive */
	struct ilog_filter filt;  /* --pid, --since, --until: the records analyzed
				   * (ilog_analysis_add; a caller that filters
				   * itself uses ilog_analysis_count) */
	double threshold;         /* --threshold: the regression gate's growth
				   * (0: ILOG_GATE_THRESHOLD); no chain depends on it */
	/* what the caller keeps besides statistics and chains */
	int callsites;            /* 0: none, 1: call paths of calls with a stack
				   * (reports), 2: of every call (SQLite's table) */
	int kernels;              /* launches per kernel (--by kernel) */
};

/*
 * The long options of ilog_analysis_opt, for a getopt_long table (before
 * its { 0 } end), and the lines of their --help.  --stats-window is
 * --window for a program whose --window is another window (ingero-export's
 * live metrics): ILOG_ANALYSIS_LONG_STATS leaves --window out.  --pid maps
 * to 'p', so "p:" in the short options gives -p.  --threshold is the
 * gate's (ingero-correlate --baseline) and is in no table here.
 */
enum {
	ILOG_AOPT_WINDOW = 0x1e00, ILOG_AOPT_STATS_WINDOW, ILOG_AOPT_SINCE, ILOG_AOPT_UNTIL,
	ILOG_AOPT_THRESHOLD,
};
#define ILOG_ANALYSIS_LONG_STATS                                                    \
	{ "stats-window", 1, 0, ILOG_AOPT_STATS_WINDOW }, { "pid", 1, 0, 'p' },    \
	{ "since", 1, 0, ILOG_AOPT_SINCE }, { "until", 1, 0, ILOG_AOPT_UNTIL }
#define ILOG_ANALYSIS_LONG { "window", 1, 0, ILOG_AOPT_WINDOW }, ILOG_ANALYSIS_LONG_STATS

/*
 * Option c of a getopt_long table (ILOG_ANALYSIS_LONG's values, 'p' and
 * ILOG_AOPT_THRESHOLD) with its argument into *o.  1 when c was one and
 * its value is good, 0 when c is no option of the analysis, -1 with err
 * filled ("--window: not a duration '0'") when the value is bad.
 */
int ilog_analysis_opt(struct ilog_analysis_opts *o, int c, const char *arg, char *err,
		      size_t errlen);

struct ilog_analysis;

/* NULL on out of memory.  o may be NULL (the defaults). */
struct ilog_analysis *ilog_analysis_new(const struct ilog_analysis_opts *o);
/*
 * One record read, r its reader: the context it carries (stacks,
 * symbols) whatever the filter, then, when it passes o->filt, its
 * statistics.  0, or -1 (ilog_analysis_error says why).
 */
int ilog_analysis_add(struct ilog_analysis *a, const struct ilog_record *rec,
		      const struct ilog_reader *r);
/* For a caller that filters itself: the context of every record read
 * (ilog_analysis_observe), and the records that passed its filter
 * (ilog_analysis_count; r may be NULL where the statistics read no string
 * of the record: see stats.h).  The call sites key a record by site_node
 * (a caller numbering nodes across several inputs passes its own; else
 * rec->node).  0, or -1 (ilog_analysis_error). */
int ilog_analysis_observe(struct ilog_analysis *a, const struct ilog_record *rec);
int ilog_analysis_count(struct ilog_analysis *a, const struct ilog_record *rec,
			const struct ilog_reader *r, uint32_t site_node);
/* A damaged range its reader skipped (ILOG_READ_DAMAGE, ilog_reader_damage)
 * in input `input`, for the summaries (ilog_stats_add_damage).  0, or -1. */
int ilog_analysis_damage(struct ilog_analysis *a, const char *input, const struct ilog_damage *d);
/*
 * After the last record: close the statistics and, with chains, run the
 * causal engine (a caller that has the log's own chain records passes 0).
 * Once.  0, or -1 (ilog_analysis_error).
 */
int ilog_analysis_finish(struct ilog_analysis *a, int chains);
/* Why the last call failed: a statistics message or "out of memory". */
const char *ilog_analysis_error(const struct ilog_analysis *a);

/* The results, owned by a; chains and kstats once finished (kstats NULL
 * without o->kernels, sites NULL without o->callsites). */
struct ilog_stats *ilog_analysis_stats(const struct ilog_analysis *a);
const struct ilog_chain_set *ilog_analysis_chains(const struct ilog_analysis *a);
const struct ilog_callsites *ilog_analysis_sites(const struct ilog_analysis *a);
struct ilog_kstats *ilog_analysis_kstats(const struct ilog_analysis *a);
/* With o->filt.pid: 1 once a record of that process was read (passing
 * the time window or not); 1 without --pid. */
int ilog_analysis_pid_seen(const struct ilog_analysis *a);
void ilog_analysis_free(struct ilog_analysis *a);

#endif
