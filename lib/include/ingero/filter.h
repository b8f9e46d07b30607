/* SPDX-License-Identifier: MIT */
/* Codec layer: which records a filter keeps (kinds, a process, a time window). */
#ifndef INGERO_FILTER_H
#define INGERO_FILTER_H

#include "ingero/ilog.h"

struct ilog_filter {
	uint64_t kinds;           /* bit per kind; 0 = all */
	uint64_t since, until;    /* CLOCK_REALTIME ns; 0 = open */
	const char *since_rel, *until_rel; /* "+DURATION" from the log start, resolved lazily */
	uint64_t since_rel_ns, until_rel_ns;
	uint32_t pid;             /* 0 = all */
};

/* 1 if the record passes.  Records without a timestamp (stacks, symbols,
 * schemas, headers) pass the time window; they are context. */
int ilog_filter_match(struct ilog_filter *f, const struct ilog_record *rec,
		      const struct ilog_reader *r);

#endif
