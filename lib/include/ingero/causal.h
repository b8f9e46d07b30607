/* SPDX-License-Identifier: MIT */
/*
 * The causal engine: turns the statistics of a log (stats.h) into causal
 * chains - an anomaly in the CUDA calls of a process, joined by time and
 * pid/tid with the host evidence that explains it, with a severity, a
 * timeline, a one-sentence root cause quoting the log's numbers and a fix.
 *
 * How the engine decides (its thresholds are private to lib/analyze:
 * lib/analyze/thresholds.h) is in `ingero-correlate --help`; the patterns a
 * chain can have are below.
 */
#ifndef ILOG_CAUSAL_H
#define ILOG_CAUSAL_H

#include "ingero/stats.h"

struct ilog_chain_set {
	struct ilog_chain *chains; /* ranked: severity, then lost time */
	uint32_t *nodes;           /* node index of each chain */
	uint32_t n;
	char **mem;                /* owned strings */
	uint32_t nmem;
};

/*
 * Run every detector over finished statistics (ilog_stats_finish done).
 * 0, or -1 on out of memory (err filled).  Free with ilog_chain_set_free.
 */
int ilog_causal_run(struct ilog_stats *st, struct ilog_chain_set *cs, char *err,
		    size_t errlen);
void ilog_chain_set_free(struct ilog_chain_set *cs);

#endif
