/* SPDX-License-Identifier: MIT */
/*
 * Export sinks that ingero-export (and any other program) drives.  A
 * format is one entry in ilog_sinks[]: adding one is a new
 * lib/export/<name>.c (a heavy one in a subfolder of its own) plus a line
 * in lib/export/export.c.
 */
#ifndef ILOG_EXPORT_H
#define ILOG_EXPORT_H

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
const struct ilog_sink *ilog_sink_find(const char *name);

#endif
