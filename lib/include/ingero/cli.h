/* SPDX-License-Identifier: MIT */
/*
 * Conventions every program's main shares: inputs are file arguments or
 * "-" for stdin, output is stdout unless -o FILE, errors are one line
 * "prog: subject: offset N: problem" on stderr, exit codes from
 * enum ilog_exit.  This is the one part of lib/ that prints, and it is
 * only called from mains.
 */
#ifndef ILOG_CLI_H
#define ILOG_CLI_H

#include <stdio.h>
#include <time.h>
#include "ingero/ilog.h"

extern const char *ilog_prog;       /* set by ilog_cli_init from argv[0] */
extern int ilog_verbosity;          /* -q: -1, default 0, -v: 1, -vv: 2 */
#define ILOG_VERBOSE(lvl) (ilog_verbosity >= (lvl))

void ilog_cli_init(const char *argv0);
/* "prog: <formatted>\n" on stderr. */
void ilog_errorf(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
void ilog_warnf(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* Open an input path ("-" = stdin).  Returns an fd or -1 (error printed). */
int ilog_open_in(const char *path);
/* Open an output path ("-" or NULL = stdout), truncating.  fd or -1. */
int ilog_open_out(const char *path);
/* Refuse to write binary logs to a terminal.  0 ok, -1 refused (printed). */
int ilog_refuse_tty(int fd, const char *what);
/* Flush and check stdout at exit; returns ILOG_EXIT_USAGE on a failed write. */
int ilog_finish_stdout(int rc);
/*
 * Progress on a terminal for long runs (DESIGN "The filters"): a line
 * "prog: WHAT: N records, R records/s" on stderr, rewritten in place, once
 * the run is 2 s old and only when stderr is a TTY and not -q.
 */
struct ilog_progress {
	int on, shown;
	struct timespec t0;
	uint64_t last;
};
void ilog_progress_start(struct ilog_progress *p);
/* Show n records of WHAT; with every > 0 only when n moved that far. */
void ilog_progress_show(struct ilog_progress *p, const char *what, uint64_t n, uint64_t every);
/* End an open progress line (before other output, or at exit). */
void ilog_progress_end(struct ilog_progress *p);

/* Display name of an input path. */
const char *ilog_in_name(const char *path);

#endif
