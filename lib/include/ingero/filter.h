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

/* 1 for a per-process record (cuda, host, process, mapping, stack,
 * pystack, pycode, chain), with *pid the process it is about and *other a
 * host event's other process (who preempted or woke it; 0 when none or not
 * a host event); 0 for a record of no process. */
int ilog_record_pid(const struct ilog_record *rec, uint32_t *pid, uint32_t *other);
/* 1 if rec is a record of process pid (nonzero): its own, or a host event
 * naming pid as the other process, as --pid keeps them.  0 for other
 * processes' records and records of no process. */
int ilog_record_of_pid(const struct ilog_record *rec, uint32_t pid);

/* 1 if the record passes.  Records without a timestamp (stacks, symbols,
 * schemas, headers) pass the time window; they are context. */
int ilog_filter_match(struct ilog_filter *f, const struct ilog_record *rec,
		      const struct ilog_reader *r);

/*
 * The filter's options, as every program spells them: opt is "--pid" (a
 * process id from 1 to 2^32-1), "--since" or "--until" (RFC 3339 or
 * @EPOCH into since/until, or +DURATION from the log's start into
 * since_rel/until_rel; a bare DURATION is refused with "use '+DURATION'").
 * 0, or -1 with err filled ("--since: not a time 'x'").
 */
int ilog_filter_opt(struct ilog_filter *f, const char *opt, const char *arg, char *err,
		    size_t errlen);

#endif
