// SPDX-License-Identifier: MIT
/* ingero-export: convert logs to other formats.  Thin: options, inputs,
 * the filter and a sink from lib/export.c. */
#include <getopt.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include "ingero/cli.h"
#include "ingero/export.h"

static void usage(FILE *f)
{
	fprintf(f,
		"ingero-export - convert ingero logs for other tools\n\n"
		"USAGE\n  ingero-export [--format FMT] [OPTIONS] [LOG...]\n\n"
		"Reads each LOG in turn (none or - = stdin), like cat, and writes one\n"
		"output to stdout or -o FILE.\n\nOPTIONS\n"
		"  -f, --format FMT     output format (default jsonl):\n");
	for (int i = 0; ilog_sinks[i]; i++)
		fprintf(f, "                         %-14s %s\n", ilog_sinks[i]->name,
			ilog_sinks[i]->help);
	fprintf(f,
		"  -o, --output FILE    write here instead of stdout\n"
		"  -t, --type LIST      only these record types, e.g. cuda,host (see SPEC §5)\n"
		"  -p, --pid PID        only records of this process\n"
		"      --since TIME     only records at or after TIME\n"
		"      --until TIME     only records before TIME\n"
		"                       TIME: RFC 3339 (2026-11-22T16:20:00Z), @EPOCH_SECONDS,\n"
		"                       or +DURATION after the log's start (+90s, +1h30m)\n"
		"      --callstacks     jsonl: each cuda event gets \"callstack\", its native and\n"
		"                       Python frames merged, innermost first: the Python\n"
		"                       frames stand where the eval loop ran them (run\n"
		"                       ingero-symbolize first for native names)\n"
		"      --no-compress    perfetto-proto: plain packets (for protoc --decode_raw)\n"
		"                       instead of deflated groups of them\n"
		"      --url URL        ClickHouse HTTP interface (clickhouse), http://HOST:8123\n"
		"      --database D     ClickHouse database (clickhouse, clickhouse-sql; ingero)\n"
		"      --create         create the database and tables if absent (clickhouse)\n"
		"  -q, --quiet          no warnings or progress\n"
		"  -h, --help           this text\n\n"
		"EXAMPLES\n"
		"  ingero-export run.ilog | jq -c 'select(.type==\"cuda\") | {op, dur_ns}'\n"
		"  cat a.ilog b.ilog | ingero-export -t cuda | jq -s length\n"
		"  ingero-export --since +10s --until +20s -t host run.ilog\n"
		"  ingero-symbolize run.ilog | ingero-export --callstacks -t cuda |\n"
		"    jq -r '[.callstack[] | .py_func // .symbol] | join(\" < \")'\n\n"
		"EXIT STATUS\n  0 ok, 2 usage error or damaged input (records before the damage\n"
		"  are still written)\n");
}

static int parse_time(const char *s, uint64_t *abs, const char **rel, uint64_t *rel_ns)
{
	if (s[0] == '+') {
		*rel = s;
		return ilog_parse_duration(s + 1, rel_ns);
	}
	return ilog_parse_walltime(s, abs);
}

/* What error messages call the output. */
static const char *oname(const struct ilog_sink_ctx *c, const char *out)
{
	return c->label ? c->label : out ? out : "(stdout)";
}

static int kind_lookup(const char *name)
{
	return ilog_kind_from_name(name);
}

int main(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "format", required_argument, 0, 'f' }, { "output", required_argument, 0, 'o' },
		{ "type", required_argument, 0, 't' }, { "pid", required_argument, 0, 'p' },
		{ "since", required_argument, 0, 'S' }, { "until", required_argument, 0, 'U' },
		{ "url", required_argument, 0, 'u' }, { "database", required_argument, 0, 'd' },
		{ "create", no_argument, 0, 'C' }, { "callstacks", no_argument, 0, 'K' },
		{ "no-compress", no_argument, 0, 'Z' },
		{ "quiet", no_argument, 0, 'q' }, { "help", no_argument, 0, 'h' }, { 0 },
	};
	const char *fmt = "jsonl", *out = NULL;
	struct ilog_filter filt = { 0 };
	struct ilog_sink_ctx ctx = { 0 };
	char bad[128];
	int c;

	ilog_cli_init(argv[0]);
	while ((c = getopt_long(argc, argv, "f:o:t:p:qh", opts, NULL)) != -1) {
		switch (c) {
		case 'f': fmt = optarg; break;
		case 'o': out = optarg; break;
		case 't':
			if (ilog_parse_list(optarg, kind_lookup, &filt.kinds, bad, sizeof(bad))) {
				ilog_errorf("--type: unknown record type '%s'", bad);
				return ILOG_EXIT_USAGE;
			}
			break;
		case 'p': {
			char *end;
			unsigned long v = strtoul(optarg, &end, 10);
			if (*end || !*optarg || !v || v > UINT32_MAX) {
				ilog_errorf("--pid: not a process id '%s'", optarg);
				return ILOG_EXIT_USAGE;
			}
			filt.pid = (uint32_t)v;
			break;
		}
		case 'S':
			if (parse_time(optarg, &filt.since, &filt.since_rel, &filt.since_rel_ns)) {
				ilog_errorf("--since: not a time '%s'", optarg);
				return ILOG_EXIT_USAGE;
			}
			break;
		case 'U':
			if (parse_time(optarg, &filt.until, &filt.until_rel, &filt.until_rel_ns)) {
				ilog_errorf("--until: not a time '%s'", optarg);
				return ILOG_EXIT_USAGE;
			}
			break;
		case 'u': ctx.url = optarg; break;
		case 'd': ctx.database = optarg; break;
		case 'C': ctx.create = 1; break;
		case 'K': ctx.callstacks = 1; break;
		case 'Z': ctx.uncompressed = 1; break;
		case 'q': ilog_verbosity = -1; break;
		case 'h': usage(stdout); return ilog_finish_stdout(ILOG_EXIT_OK);
		default:
			fprintf(stderr, "Try '%s --help'.\n", ilog_prog);
			return ILOG_EXIT_USAGE;
		}
	}
	const struct ilog_sink *sink = ilog_sink_find(fmt);
	if (!sink) {
		ilog_errorf("--format: unknown format '%s' (see --help)", fmt);
		return ILOG_EXIT_USAGE;
	}
	if (sink->no_input && optind < argc) {
		ilog_errorf("--format %s reads no log", sink->name);
		return ILOG_EXIT_USAGE;
	}
	ctx.out_path = out && strcmp(out, "-") ? out : NULL;
	if (sink->path_output) {
		/* a database: the sink opens (and appends to) the file itself */
		if (!ctx.out_path) {
			ilog_errorf("--format %s writes a file: give -o FILE", sink->name);
			return ILOG_EXIT_USAGE;
		}
		ctx.out_fd = -1;
	} else {
		if ((ctx.out_fd = ilog_open_out(out)) < 0)
			return ILOG_EXIT_USAGE;
		if (sink->binary && !out && ilog_refuse_tty(ctx.out_fd, sink->name))
			return ILOG_EXIT_USAGE;
	}
	/* the inputs, for sinks that record where their rows came from */
	size_t slen = 1;
	for (int i = optind; i < argc; i++)
		slen += strlen(argv[i]) + 1;
	char *source = calloc(1, slen + 8);
	if (source) {
		for (int i = optind; i < argc; i++) {
			if (i > optind)
				strcat(source, " ");
			strcat(source, argv[i]);
		}
		if (optind == argc)
			strcpy(source, "-");
	}
	ctx.source = source;
	if (sink->open(&ctx)) {
		ilog_errorf("%s: %s", oname(&ctx, out), ctx.err);
		free(source);
		return ILOG_EXIT_USAGE;
	}

	int rc = ILOG_EXIT_OK, ninputs = argc - optind;
	struct ilog_progress prog;
	ilog_progress_start(&prog);
	uint64_t total = 0;
	for (int i = 0; !sink->no_input && i < (ninputs ? ninputs : 1) && rc != ILOG_EXIT_USAGE + 1;
	     i++) {
		const char *path = ninputs ? argv[optind + i] : "-";
		const char *name = ilog_in_name(path);
		int fd = ilog_open_in(path);
		if (fd < 0) {
			rc = ILOG_EXIT_USAGE;
			continue;
		}
		char err[256];
		struct ilog_reader *r = ilog_reader_open(fd, err, sizeof(err));
		if (!r) {
			ilog_errorf("%s: %s", name, err);
			free(source);
			return ILOG_EXIT_USAGE;
		}
		const struct ilog_record *rec;
		int k;
		while ((k = ilog_reader_next(r, &rec)) > 0) {
			ilog_progress_show(&prog, name, ++total, 1u << 20);
			if (sink->observe && sink->observe(&ctx, rec)) {
				ilog_errorf("%s: %s", oname(&ctx, out), ctx.err);
				ilog_reader_close(r);
				sink->close(&ctx);
				free(source);
				return ILOG_EXIT_USAGE;
			}
			if (!ilog_filter_match(&filt, rec, r))
				continue;
			if (sink->record(&ctx, rec, r)) {
				ilog_errorf("%s: %s", oname(&ctx, out), ctx.err);
				ilog_reader_close(r);
				sink->close(&ctx);
				free(source);
				return ILOG_EXIT_USAGE;
			}
		}
		if (k < 0) {
			ilog_errorf("%s: %s", name, ilog_reader_error(r));
			rc = ILOG_EXIT_USAGE;
		}
		ilog_reader_close(r);
		if (fd != STDIN_FILENO)
			close(fd);
	}
	ilog_progress_end(&prog);
	if (sink->close(&ctx)) {
		ilog_errorf("%s: %s", oname(&ctx, out), ctx.err);
		rc = ILOG_EXIT_USAGE;
	}
	free(source);
	if (ctx.out_fd >= 0 && ctx.out_fd != STDOUT_FILENO && close(ctx.out_fd)) {
		ilog_errorf("%s: close failed", out);
		rc = ILOG_EXIT_USAGE;
	}
	return ilog_finish_stdout(rc);
}
