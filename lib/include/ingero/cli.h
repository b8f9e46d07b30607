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
#include <sys/socket.h>
#include <time.h>
#include "ingero/ilog.h"

extern const char *ilog_prog;       /* set by ilog_cli_init from argv[0] */
extern const char *ilog_prog_file;  /* the same, kept when a main renames ilog_prog */
extern int ilog_verbosity;          /* -q: -1, default 0, -v: 1, -vv: 2 */
#define ILOG_VERBOSE(lvl) (ilog_verbosity >= (lvl))

void ilog_cli_init(const char *argv0);
/* "prog: <formatted>\n" on stderr. */
void ilog_errorf(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
void ilog_warnf(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* "Try 'prog --help'." on stderr, after getopt named a bad option;
 * returns ILOG_EXIT_USAGE. */
int ilog_try_help(void);
/*
 * The options every program takes alike (README "Common options"):
 * -q/--quiet (errors only: no progress or warnings, ilog_verbosity -1),
 * -v/--verbose (more detail; each -v one level more), -h/--help (the
 * usage on stdout, exit 0) and --version ("PROG VERSION" on stdout, exit
 * 0).  A main puts ILOG_COMMON_SHORT in its getopt string and
 * ILOG_COMMON_LONG in its option table (before the { 0 } end), and hands
 * every option its switch does not handle to ilog_opt_common:
 *
 *	default:
 *		if ((rc = ilog_opt_common(c, usage)) >= 0)
 *			return rc;
 *
 * Returns -1 after -q or -v (parsing goes on), else the exit code to
 * return now: ILOG_EXIT_OK after --help or --version, ILOG_EXIT_USAGE
 * after an unknown option ("Try 'prog --help'.", as ilog_try_help).
 */
#define ILOG_OPT_VERSION 0x1f00
#define ILOG_COMMON_SHORT "qvh"
#define ILOG_COMMON_LONG                                                            \
	{ "quiet", 0, 0, 'q' }, { "verbose", 0, 0, 'v' }, { "help", 0, 0, 'h' },   \
	{ "version", 0, 0, ILOG_OPT_VERSION }
int ilog_opt_common(int c, void (*usage)(FILE *));
/*
 * A short option a program gave up because another program's same letter
 * means something else (no letter means two things across the tools):
 * "prog: -L: not an option here: use USE (-L is ELSEWHERE)", e.g.
 * ilog_opt_moved('d', "--db FILE", "--duration in ingero-record").
 * Returns ILOG_EXIT_USAGE.
 */
int ilog_opt_moved(int letter, const char *use, const char *elsewhere);
/*
 * "Did you mean": the name closest to a mistyped word, by edit distance
 * with transpositions, if close enough to be a typo (at most 2 edits and
 * a third of the name).  Offer each candidate with ilog_suggest_add; the
 * first of equally close ones wins; best is NULL when none is close.
 */
struct ilog_suggest {
	const char *word, *best;
	unsigned dist;
};
void ilog_suggest_init(struct ilog_suggest *s, const char *word);
void ilog_suggest_add(struct ilog_suggest *s, const char *name);
const char *ilog_suggest_best(const struct ilog_suggest *s);

/* Open an input path ("-" = stdin).  Returns an fd or -1 (error printed). */
int ilog_open_in(const char *path);
/* Open an output path ("-" or NULL = stdout), truncating.  fd or -1.
 * For a log written as it goes (ingero-record); filters use ilog_out_open. */
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

/* The running program's file (/proc/self/exe) into exe and its directory
 * into dir, either NULL to skip; 0, or -1 when it cannot be read. */
int ilog_self_path(char *exe, size_t en, char *dir, size_t dn);

/* Display name of an input path. */
const char *ilog_in_name(const char *path);

/* --pid, --since, --until and --window are parsed by the analysis
 * (ilog_analysis_opt, ingero/analysis.h) for every program that takes
 * them, the filter's own with ilog_filter_opt (ingero/filter.h). */

/* The n strings of v joined by single spaces ("" for none), for the
 * provenance record's args or a sink's source.  malloc'ed, the caller
 * frees; NULL on ENOMEM (nothing printed). */
char *ilog_join_args(int n, char *const *v);

/*
 * Read the inputs in turn, like cat: each path opened ("-" = stdin; no
 * paths = stdin), its records returned one at a time, progress shown on a
 * terminal every `every` records.  An input that cannot be opened, read or
 * decoded is reported ("prog: NAME: offset N: problem", after the records
 * before the damage) and skipped; a damaged range inside one (SPEC §9) is
 * reported the same way, kept in `damage` for the summaries, and reading
 * goes on after it.  rc is then ILOG_EXIT_USAGE.  What a filter wrote from
 * the rest is still its whole result (README: a damaged log yields every
 * complete record but those of its damaged frames), to be kept.
 *
 *	struct ilog_inputs in;
 *	ilog_inputs_start(&in, paths, n, 1u << 20);
 *	while (ilog_inputs_next(&in, &rec) > 0)
 *		... in.r is rec's reader, in.name its input ...
 *	ilog_inputs_end(&in);
 */
struct ilog_inputs {
	char *const *paths;
	int n;
	int index;              /* the input being read, from 0 */
	const char *name;       /* its display name (ilog_in_name) */
	struct ilog_reader *r;  /* its reader while records come */
	int fd;
	int rc;                 /* ILOG_EXIT_OK, or ILOG_EXIT_USAGE once one failed */
	uint64_t total, every;
	struct ilog_progress pg;
	struct ilog_inputs_damage {
		const char *name;       /* the input's display name */
		struct ilog_damage d;
	} *damage;              /* the damaged ranges skipped, in order */
	uint32_t ndamage, capdamage;
};
void ilog_inputs_start(struct ilog_inputs *in, char *const *paths, int n, uint64_t every);
/* 1 and *rec set (valid until the next call), or 0 after the last input. */
int ilog_inputs_next(struct ilog_inputs *in, const struct ilog_record **rec);
/* Close the input being read (when stopping early), end the progress
 * line and free `damage` (read it before).  Safe to call again. */
void ilog_inputs_end(struct ilog_inputs *in);
/* 1 when a library's error message is a damaged or unreadable input in
 * the documented form "NAME: offset N: problem" (the records before it
 * were written: the output is complete, as for ilog_inputs), 0 for any
 * other failure (output, memory). */
int ilog_err_is_damage(const char *err);

/*
 * An output named by -o, written so that a failed run never destroys
 * anything: a regular file (new or existing) is written to a temporary
 * file DIR/.NAME.XXXXXX beside it (mode 0666 & ~umask for a new file, the
 * existing file's mode otherwise) and renamed over NAME only by
 * ilog_out_close(o, 1), once the output is complete; a failed write, an
 * early exit and SIGINT, SIGTERM, SIGHUP or SIGXFSZ remove it.  A symbolic link is followed (the link stays);
 * "-" or NULL is stdout; anything else (a device, a FIFO) is opened and
 * written in place as before.  One output per process.
 */
struct ilog_out {
	const char *path;       /* as given; NULL for stdout */
	int fd;                 /* where to write */
	char *tmp, *target;     /* the temporary file and what it replaces */
};
/*
 * Refuse an output that is the same regular file (st_dev, st_ino) as one
 * of the n inputs (n == 0: stdin), through links of either kind:
 * "prog: 'OUT': output is the same file as input 'IN'" and -1 (exit
 * ILOG_EXIT_USAGE).  0 when distinct, when out is stdout, or not there yet.
 * For outputs not opened with ilog_out_open (a database the sink opens).
 */
int ilog_out_check(const char *out, char *const *inputs, int n);
/*
 * Open the output path after ilog_out_check against the n inputs.  With
 * tty_what and no path, stdout on a terminal is refused
 * (ilog_refuse_tty).  0 with o->fd ready, or -1 with the error printed
 * ("prog: PATH: reason"); nothing was created then.
 */
int ilog_out_open(struct ilog_out *o, const char *path, char *const *inputs, int n,
		  const char *tty_what);
/*
 * Finish the output.  ok (the output is complete, damaged inputs
 * included; not after a failed write or a run cut short): close and
 * rename the temporary file over the path; 0, or -1 with "prog: PATH: close failed" or "prog: PATH: reason"
 * printed and the temporary file removed.  !ok: close and remove the
 * temporary file (what was at the path is untouched); returns 0.
 * Stdout stays open (ilog_finish_stdout checks it).  Safe to call again.
 */
int ilog_out_close(struct ilog_out *o, int ok);

/*
 * ilog_opt_listen: "--listen" and its ADDR:PORT ("127.0.0.1:9464",
 * "[::1]:8080", "localhost:9464", ":9464" = 127.0.0.1) into *a; prints
 * "prog: OPT: ..." and returns -1 (exit ILOG_EXIT_USAGE) when it is not
 * an IP address (or localhost) and a port.
 */
struct ilog_listen {
	struct sockaddr_storage ss;
	int loopback;            /* 127.0.0.0/8 or ::1 */
	char text[80];           /* as given, for messages */
};
int ilog_opt_listen(const char *opt, const char *arg, struct ilog_listen *a);
/* 1 when a Host header names the loopback interface: localhost,
 * 127.0.0.1 or [::1], with or without a port. */
int ilog_host_is_loopback(const char *host);
/*
 * Rotation of a recording's files (ingero-record --rotate; lib/cli/rotate.c).
 * -o DIR/NAME.ilog names the files DIR/NAME.YYYYMMDDTHHMMSSZ.ilog, each
 * started at that UTC time (-N added when two start in one second: past
 * every -N of that second in the folder, even one deleted since), so that
 * their names sort in the order written; a clock stepped back keeps the
 * last file's time with the next -N.  The dumps of a flight
 * recorder (ingero-record --flight; opts.flight) are
 * DIR/NAME.flight-SEQ-YYYYMMDDTHHMMSSZ.ilog (ilog_rotate_dump_path), the
 * oldest by time, then by SEQ; --keep and --keep-size prune them alike.
 */
struct ilog_rotate_opts {
	const char *path;          /* the -o name */
	int flight;                /* the files are flight dumps, not a series */
	uint64_t max_bytes;        /* a new file once the current one is this big, */
	uint64_t max_ns;           /* or this old (0: not) */
	uint32_t keep;             /* files kept, the current one counted (0: all) */
	uint64_t keep_bytes;       /* bytes kept, the current one counted (0: no limit) */
};
/* --rotate's value: a size (an upper-case unit or a b: 1G, 512MiB, 64mb)
 * into *bytes or a duration (a lower-case time unit: 30s, 10m, 1h) into
 * *ns, the other 0.  0, or -1 (a bare number, 0, not a size or time). */
int ilog_rotate_parse(const char *s, uint64_t *bytes, uint64_t *ns);
struct ilog_rotate;
/* Check that the folder of o->path can take the files.  NULL with err. */
struct ilog_rotate *ilog_rotate_open(const struct ilog_rotate_opts *o, char *err, size_t errlen);
/* Create the next file, started at real_ns (CLOCK_REALTIME) and mono_ns
 * (CLOCK_MONOTONIC, for the age rule).  Its fd (the caller closes it), or
 * -1 with err. */
int ilog_rotate_next(struct ilog_rotate *rt, uint64_t mono_ns, uint64_t real_ns, char *err,
		     size_t errlen);
/* 1 when the current file, file_bytes long, is due to be rotated at mono_ns. */
int ilog_rotate_due(const struct ilog_rotate *rt, uint64_t file_bytes, uint64_t mono_ns);
/* The current file's path ("" before the first). */
const char *ilog_rotate_current(const struct ilog_rotate *rt);
/* The path of flight dump seq of -o out, written at real_ns (UTC):
 * out less .ilog, then .flight-SEQ-YYYYMMDDTHHMMSSZ.ilog (SEQ at least 3
 * digits).  0, or -1 when it does not fit in n. */
int ilog_rotate_dump_path(const char *out, uint32_t seq, uint64_t real_ns, char *buf, size_t n);
/* path, a file the caller wrote itself (a flight dump), becomes the
 * current one: the newest, never pruned. */
void ilog_rotate_set_current(struct ilog_rotate *rt, const char *path);
/* Delete the oldest files of the recording (of this run or earlier ones,
 * by name) beyond keep and keep_bytes, then `extra` more (never the
 * current one).  The number deleted, or -1 with err. */
int ilog_rotate_prune(struct ilog_rotate *rt, uint32_t extra, char *err, size_t errlen);
/* Free and total bytes of the filesystem holding path's folder.  0 or -1. */
int ilog_rotate_free_space(const char *path, uint64_t *avail, uint64_t *total);
void ilog_rotate_free(struct ilog_rotate *rt);

#endif
