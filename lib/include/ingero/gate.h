/* SPDX-License-Identifier: MIT */
/*
 * The regression gate: compare the statistics and chains of two runs
 * (`ingero-correlate --baseline OLD NEW`) and render the difference.
 */
#ifndef ILOG_GATE_H
#define ILOG_GATE_H

#include "ingero/callsite.h"
#include "ingero/causal.h"

#define ILOG_GATE_CHUNKS 12

struct ilog_gate_row {
	uint8_t layer;
	uint16_t op;
	const char *comm;           /* "" unless per process */
	int in_old, in_new;
	struct ilog_stat_row old, cur;
	double d_p50, d_p99;        /* relative change, new/old - 1 */
	uint64_t above, above50;    /* new calls above old p99 (p50) * (1 + threshold) */
	/* the rank-sum p of the new run's chunk p99s (p50s) lying above the old
	 * run's (ILOG_GATE_CHUNKS chunks of equal calls each run) */
	double p_shift, p_shift50;
	uint32_t chunks_old, chunks_new;
	double cost;                /* the new run's time in the op beyond the old
				     * run's mean per call, a share of its wall time */
	int significant;            /* bit 0: p99, bit 1: p50 grew, tests (1) to (3) */
	int regressed;              /* the same, where the growth is material (4) */
};

/* An (op, call site) whose calls or time per step changed. */
#define ILOG_GATE_SITE_LEN 256
struct ilog_gate_site {
	uint16_t op;
	char site[ILOG_GATE_SITE_LEN]; /* "" when no call path could be named */
	double old_calls, new_calls;   /* per step */
	double old_ns, new_ns;         /* per step */
};

/* A program's steps in both runs (ilog_gate_steps). */
#define ILOG_GATE_SITES 4
struct ilog_gate_step {
	const char *comm;
	uint32_t old_pid, new_pid, old_steps, new_steps;
	uint16_t marker;
	uint32_t per_step;
	uint64_t old_p50_ns, new_p50_ns; /* median step */
	double d_step;              /* relative change of the median step, new/old - 1 */
	double noise;               /* the runs' own chunk-to-chunk spread of it */
	int regressed;
	struct ilog_gate_site sites[ILOG_GATE_SITES]; /* the largest changes, most time first */
	uint32_t nsites;
};

struct ilog_gate {
	double threshold;
	struct ilog_gate_row *rows;
	uint32_t n;
	uint32_t regressed;         /* ops regressed beyond the threshold */
	const struct ilog_chain **new_chains; /* chains of the new run absent from the old */
	uint32_t nnew, new_high;
	struct ilog_gate_step *steps; /* ilog_gate_steps */
	uint32_t nsteps, steps_regressed;
};

/*
 * Compare two runs.  An op regressed when, for its p99 (or its p50), (1)
 * the quantile grew beyond threshold, (2) the share of new calls above
 * old_quantile * (1 + threshold) is significantly above the quantile's
 * own share (1% for p99, 50% for p50; Chernoff bound, alpha 0.01 / tests),
 * and (3) the growth holds through the run: each run's calls of the op cut
 * into ILOG_GATE_CHUNKS chunks of consecutive calls, the new run's chunk
 * quantiles lie significantly above the old run's (one-sided rank-sum
 * test, exact, at the same alpha).  (3) tells a slower op from a tail that
 * a busy host fattened for a while in one run and not the other: the
 * whole-run p99 of a microsecond call jumps when preemptions reach 1% of
 * its calls, but not in every chunk; and (4) the growth costs the new run
 * ILOG_GATE_MATERIAL (1%) of its wall time or more (its calls' time beyond
 * the old mean per call): a tail that a busy host made slower throughout a
 * run, on a call that takes a few percent of the time, is not why a job
 * got slower.  The p50 test catches a slowdown of every call when the p99
 * is ruled by host noise.  A chain is new when no chain of the old run has
 * its pattern, process name and op at the same or a higher severity.  0 or
 * -1 (out of memory).
 */
int ilog_gate_compare(struct ilog_stats *old, const struct ilog_chain_set *cold,
		      struct ilog_stats *cur, const struct ilog_chain_set *ccur,
		      double threshold, int per_process, struct ilog_gate *g);
/*
 * After ilog_gate_compare: compare each program's training steps (the
 * process of that name with the most steps in each run, ingero/stats.h):
 * its median step time, and per (op, call site) -- told by the call sites
 * sold, scur (may be NULL), so that two recordings' paths meet -- its calls
 * and time per step.  The steps regressed when the median step grew beyond
 * the threshold and beyond the runs' own spread (3.5 robust sigmas of the
 * medians of chunks of 32 steps, relative, the larger of the two runs').
 * 0 or -1 (out of memory).
 */
int ilog_gate_steps(struct ilog_gate *g, struct ilog_stats *old,
		    const struct ilog_callsites *sold, struct ilog_stats *cur,
		    const struct ilog_callsites *scur);
void ilog_gate_free(struct ilog_gate *g);
int ilog_gate_text(struct ilog_buf *b, const struct ilog_gate *g, const char *old_name,
		   const char *new_name);
int ilog_gate_json(struct ilog_buf *b, const struct ilog_gate *g);

#endif
