// SPDX-License-Identifier: MIT
/* ingero-symbolize: add symbol records (function, file:line, inlined
 * frames) for the stacks of a log, or --collect the ELF files a log
 * needs.  Thin: options, inputs, lib/symbolize/symbolize.c, exit code. */
#include <getopt.h>
#include <malloc.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include "ingero/cli.h"
#include "ingero/symbolize.h"

static void usage(FILE *f)
{
	fprintf(f,
		"ingero-symbolize - name the functions and source lines of a log's stacks\n\n"
		"USAGE\n  ingero-symbolize [OPTIONS] [LOG...]\n"
		"  ingero-symbolize --collect DIR [OPTIONS] [LOG...]\n\n"
		"Reads each LOG in turn (none or - = stdin) and writes the same records to\n"
		"stdout or -o FILE, with a symbol record for each new (pid, ip) of its stacks\n"
		"placed before the first stack that uses it: module, function+offset (ELF\n"
		".symtab, then .dynsym), source file:line and inlined callers (DWARF), C++\n"
		"names demangled.  Running it again on its output adds nothing.\n\n"
		"Each mapped file is looked up by the GNU build-id the recorder wrote, in\n"
		"this order: the recorded path (under --sysroot), then each --debug-dir and\n"
		"/usr/lib/debug as DIR/.build-id/xx/rest and DIR/.build-id/xx/rest.debug\n"
		"(the layout --collect writes and debug packages install).  A file whose\n"
		"build-id differs is reported and not used: its frames stay module+offset.\n\n"
		"OPTIONS\n"
		"  -o, --output FILE    write the log here instead of stdout\n"
		"      --debug-dir DIR  also look here by build-id (repeatable, in order; no\n"
		"                       -d: it is --duration in ingero-record)\n"
		"      --sysroot DIR    recorded paths are under DIR (a copy of the node's /)\n"
		"      --no-system-debug  do not look in /usr/lib/debug\n"
		"      --collect DIR    instead of symbolizing, copy every ELF file the log's\n"
		"                       mappings name into DIR/.build-id/ (skipping those\n"
		"                       there), for symbolizing elsewhere with --debug-dir DIR\n"
		"      --redo           drop the input's symbol records and resolve every ip\n"
		"                       again (after adding a --debug-dir)\n"
		"      --threads N      1, or 2: a second thread resolves while the log is\n"
		"                       read (default: 2 where two CPUs may be used)\n"
		"  -q, --quiet          errors only: no progress or warnings\n"
		"  -v, --verbose        also say which files have no debug info, and a summary\n"
		"  -h, --help           this text\n"
		"      --version        print the version\n\n"
		"EXAMPLES\n"
		"  ingero-symbolize run.ilog -o run.sym.ilog\n"
		"  ingero-symbolize run.ilog | ingero-export -t stack | jq -c '.frames'\n"
		"  ingero-symbolize --collect bundle/ run.ilog      # on the recording node\n"
		"  ingero-symbolize --debug-dir bundle/ run.ilog -o run.sym.ilog   # elsewhere\n\n"
		"EXIT STATUS\n  0 ok (frames that cannot be named stay module+offset, with a warning\n"
		"  per file), 2 usage error, damaged input (records before the damage are\n"
		"  still written) or output error\n");
}

static int damage_shown;

static void on_report(void *arg, enum ilog_sym_level level, const char *msg)
{
	(void)arg;
	if (level == ILOG_SYM_DAMAGE) {
		ilog_errorf("%s", msg);
		damage_shown = 1;
	} else if (level == ILOG_SYM_WARN)
		ilog_warnf("%s", msg);
	else if (ILOG_VERBOSE(1))
		fprintf(stderr, "%s: %s\n", ilog_prog, msg);
}

/* Progress on a TTY once a run takes a while (DESIGN "The filters"). */
static struct timespec t0;
static int progress_shown;

static void on_progress(void *arg, int pass, uint64_t records)
{
	(void)arg;
	struct timespec t;
	clock_gettime(CLOCK_MONOTONIC, &t);
	double e = (double)(t.tv_sec - t0.tv_sec) + (double)(t.tv_nsec - t0.tv_nsec) / 1e9;
	if (e < 2)
		return;
	fprintf(stderr, "\r%s: %s: %llu records, %.1fs ", ilog_prog,
		pass == 1 ? "reading mappings" : "symbolizing", (unsigned long long)records, e);
	progress_shown = 1;
}

/* --collect DIR: the files the inputs' mappings name (read like cat: a
 * damaged input is reported, what was read of it is collected, and so are
 * the other inputs). */
static int run_collect(const struct ilog_symbolize_opts *o, const char *dir, char *const *paths,
		       int n)
{
	char err[1024];
	struct ilog_collect *c = ilog_collect_new(o, dir, err, sizeof(err));
	if (!c) {
		ilog_errorf("%s", err);
		return ILOG_EXIT_USAGE;
	}
	struct ilog_inputs in;
	const struct ilog_record *rec;
	int rc = 0;
	ilog_inputs_start(&in, paths, n, 1u << 20);
	while (!rc && ilog_inputs_next(&in, &rec) > 0)
		if (rec->kind == ILOG_K_MAPPING && (rc = ilog_collect_add(c, &rec->u.mapping, err, sizeof(err))))
			ilog_errorf("%s", err);
	ilog_inputs_end(&in);
	const struct ilog_collect_stats *st = ilog_collect_stats(c);
	if (!rc && !in.rc && ilog_verbosity >= 0)
		fprintf(stderr, "%s: %s: %llu files copied (%llu bytes), %llu already there, %llu not collected\n",
			ilog_prog, dir, (unsigned long long)st->copied, (unsigned long long)st->bytes,
			(unsigned long long)st->present, (unsigned long long)st->missing);
	ilog_collect_free(c);
	return rc || in.rc ? ILOG_EXIT_USAGE : ILOG_EXIT_OK;
}

static int run(int argc, char **argv, const char **dirs, struct ilog_symbolize_input *in)
{
	static const struct option opts[] = {
		{ "output", required_argument, 0, 'o' }, { "debug-dir", required_argument, 0, 'D' },
		{ "sysroot", required_argument, 0, 'S' }, { "collect", required_argument, 0, 'C' },
		{ "no-system-debug", no_argument, 0, 'N' }, { "redo", no_argument, 0, 'R' },
		{ "threads", required_argument, 0, 'T' }, ILOG_COMMON_LONG, { 0 },
	};
	struct ilog_symbolize_opts o = { .report = on_report, .debug_dirs = dirs };
	const char *out = NULL, *collect = NULL;
	int c, rc;

	/* "d": the old -d DIR, refused with the new spelling (a directory
	 * and ingero-record's -d DUR cannot be told apart: "60s" is both) */
	while ((c = getopt_long(argc, argv, "o:d" ILOG_COMMON_SHORT, opts, NULL)) != -1) {
		switch (c) {
		case 'o': out = optarg; break;
		case 'd': return ilog_opt_moved('d', "--debug-dir DIR", "--duration in ingero-record");
		case 'D': dirs[o.ndebug_dirs++] = optarg; break;
		case 'S': o.sysroot = optarg; break;
		case 'C': collect = optarg; break;
		case 'N': o.no_system_debug = 1; break;
		case 'R': o.redo = 1; break;
		case 'T':
			if (strcmp(optarg, "1") && strcmp(optarg, "2")) {
				ilog_errorf("--threads takes 1 or 2, not '%s'", optarg);
				return ILOG_EXIT_USAGE;
			}
			o.threads = optarg[0] - '0';
			break;
		default:
			if ((rc = ilog_opt_common(c, usage)) >= 0)
				return rc;
		}
	}
	if (collect && out) {
		ilog_errorf("--collect writes files into its directory, not a log to -o");
		return ILOG_EXIT_USAGE;
	}

	char err[1024];
	if (collect)
		return run_collect(&o, collect, argv + optind, argc - optind);

	/* the filter reads each input twice: opened here, all of them first */
	unsigned nin = argc > optind ? (unsigned)(argc - optind) : 1;
	for (unsigned i = 0; i < nin; i++) {
		const char *path = argc > optind ? argv[optind + (int)i] : "-";
		in[i].name = ilog_in_name(path);
		if ((in[i].fd = ilog_open_in(path)) < 0)
			return ILOG_EXIT_USAGE;
	}

	struct ilog_out dst;
	if (ilog_out_open(&dst, out, argv + optind, argc - optind, "a log"))
		return ILOG_EXIT_USAGE;
	struct ilog_symbolize_stats st;
	if (isatty(STDERR_FILENO) && ilog_verbosity >= 0) {
		o.progress = on_progress;
		clock_gettime(CLOCK_MONOTONIC, &t0);
	}
	rc = ilog_symbolize_filter(&o, in, nin, dst.fd, &st, err, sizeof(err));
	if (progress_shown)
		fprintf(stderr, "\n");
	if (rc && !(damage_shown && ilog_err_is_damage(err)))
		ilog_errorf("%s", err);
	if (ILOG_VERBOSE(1))
		fprintf(stderr, "%s: %llu stacks, %llu new ips (%llu named), %llu symbol records written, %llu ips kept from the input; %llu of %llu files found\n",
			ilog_prog, (unsigned long long)st.stacks, (unsigned long long)st.ips,
			(unsigned long long)st.resolved, (unsigned long long)st.symbols,
			(unsigned long long)st.kept, (unsigned long long)st.modules_found,
			(unsigned long long)st.modules);
	if (ILOG_VERBOSE(1) && !rc)
		fprintf(stderr, "%s: %u thread%s; read %.1f ms, then resolved %.1f ms, wrote %.1f ms\n",
			ilog_prog, st.threads, st.threads == 1 ? "" : "s", st.read_ns / 1e6,
			st.resolve_ns / 1e6, st.write_ns / 1e6);
	/* kept after a damaged input (the records before it), not after a
	 * failed write */
	if (ilog_out_close(&dst, !rc || ilog_err_is_damage(err)))
		rc = -1;
	return ilog_finish_stdout(rc ? ILOG_EXIT_USAGE : ILOG_EXIT_OK);
}

int main(int argc, char **argv)
{
	ilog_cli_init(argv[0]);
	/* Memory for a short-lived filter with two threads: one malloc arena
	 * (a second one grows its heap by mprotect a few pages at a time, ~280
	 * calls on bench/symbolize) and no mmap'ed blocks or trimming (each
	 * munmap of a grown array stops the other thread for the TLB flush);
	 * 5-8% less wall time there. */
	mallopt(M_ARENA_MAX, 1);
	mallopt(M_MMAP_THRESHOLD, 256 << 20);
	mallopt(M_TRIM_THRESHOLD, 1 << 30);
	/* at most one debug directory or input per argument */
	const char **dirs = calloc((size_t)argc + 1, sizeof(*dirs));
	struct ilog_symbolize_input *in = calloc((size_t)argc + 1, sizeof(*in));
	int rc = ILOG_EXIT_USAGE;
	if (dirs && in)
		rc = run(argc, argv, dirs, in);
	else
		ilog_errorf("out of memory");
	free(dirs);
	free(in);
	return rc;
}
