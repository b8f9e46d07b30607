// SPDX-License-Identifier: MIT
/* ingero-export: convert logs to other formats.  Thin: options, inputs,
 * the filter and a sink from lib/export.c. */
#include <getopt.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include "ingero/analysis.h"
#include "ingero/cli.h"
#include "ingero/export.h"
#include "live.h"

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
		"      --url URL        ClickHouse HTTP interface (clickhouse), http://HOST:8123;\n"
		"                       otlp: push the live metrics of the stream there every\n"
		"                       --interval (OTLP/HTTP JSON, e.g. http://HOST:4318/v1/metrics)\n"
		"      --database D     ClickHouse database (clickhouse, clickhouse-sql; ingero)\n"
		"      --create         create the database and tables if absent, add the columns\n"
		"                       this version has to tables an older one made (clickhouse)\n"
		"      --listen ADDR:PORT  prometheus, live: serve the metrics of a stream (e.g.\n"
		"                       `ingero-record -o - | ingero-export ...`) at\n"
		"                       http://ADDR:PORT/metrics, updated as records arrive\n"
		"                       (127.0.0.1:9464; :PORT is loopback).  Besides the counters and histograms of the\n"
		"                       log so far: latency quantiles (0.5, 0.9, 0.99) and calls\n"
		"                       over the last --window of the stream's time, preemptions\n"
		"                       per second, CPU, memory, swap and load of the newest\n"
		"                       snapshot, and causal chains by kind and severity as\n"
		"                       ingero-correlate finds them in each --chain-window.\n"
		"                       Memory stays flat however long the stream runs\n"
		"      --interval DUR   otlp --url: time between pushes (default 10s).  A push\n"
		"                       that fails is retried with doubling backoff from 1 s\n"
		"                       (at most DUR); intervals that pass meanwhile are dropped\n"
		"                       and counted (ingero.export.otlp.pushes); the stream is\n"
		"                       never held up\n"
		"      --linger DUR     after the stream ends, keep serving (and pushing) this\n"
		"                       long (default 0: exit at once; an otlp push is made at\n"
		"                       the end); SIGTERM or SIGINT end it cleanly at any time\n"
		"      --window DUR     the sliding window of the quantiles and rates (default 60s)\n"
		"      --chain-window DUR  the windows the causal engine analyzes (default 60s)\n"
		"      --stats-window DUR  sqlite: the statistics window of the summaries and of\n"
		"                       the chains found (ingero-correlate --window; default\n"
		"                       adaptive); live: the one inside each --chain-window.\n"
		"                       --pid, --since and --until choose what sqlite analyzes\n"
		"                       as they do for ingero-correlate, so its chains are\n"
		"                       correlate's given the same options\n"
		"  -q, --quiet          errors only: no progress or warnings\n"
		"  -v, --verbose        also say how many records were read and written\n"
		"  -h, --help           this text\n"
		"      --version        print the version\n\n"
		"EXAMPLES\n"
		"  ingero-export run.ilog | jq -c 'select(.type==\"cuda\") | {op, dur_ns}'\n"
		"  cat a.ilog b.ilog | ingero-export -t cuda | jq -s length\n"
		"  ingero-export --since +10s --until +20s -t host run.ilog\n"
		"  ingero-symbolize run.ilog | ingero-export --callstacks -t cuda |\n"
		"    jq -r '[.callstack[] | .py_func // .symbol] | join(\" < \")'\n\n"
		"EXIT STATUS\n  0 ok, 2 usage error or damaged input (records before the damage\n"
		"  are still written)\n");
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
		{ "type", required_argument, 0, 't' }, { "url", required_argument, 0, 'u' },
		{ "database", required_argument, 0, 'd' },
		{ "create", no_argument, 0, 'C' }, { "callstacks", no_argument, 0, 'K' },
		{ "no-compress", no_argument, 0, 'Z' }, { "listen", required_argument, 0, 'L' },
		{ "interval", required_argument, 0, 'I' }, { "linger", required_argument, 0, 'G' },
		{ "window", required_argument, 0, 'W' }, { "chain-window", required_argument, 0, 'X' },
		ILOG_ANALYSIS_LONG_STATS, ILOG_COMMON_LONG, { 0 },
	};
	const char *fmt = "jsonl", *out = NULL;
	/* --pid, --since, --until, --stats-window: ingero-correlate's, parsed
	 * by the analysis (ingero/analysis.h); its filter is the export's */
	struct ilog_analysis_opts ao = { 0 };
	struct ilog_filter *const filt = &ao.filt;
	struct ilog_sink_ctx ctx = { .analysis = &ao };
	char bad[128], err[256];
	int c, rc;
	struct ilog_listen listen;
	struct export_live_opts live = { .interval_ns = 10000000000ull };

	ilog_cli_init(argv[0]);
	while ((c = getopt_long(argc, argv, "f:o:t:p:" ILOG_COMMON_SHORT, opts, NULL)) != -1) {
		switch (c) {
		case 'f': fmt = optarg; break;
		case 'o': out = optarg; break;
		case 't':
			if (ilog_parse_list(optarg, kind_lookup, &filt->kinds, bad, sizeof(bad))) {
				ilog_errorf("--type: unknown record type '%s'", bad);
				return ILOG_EXIT_USAGE;
			}
			break;
		case 'u': ctx.url = optarg; break;
		case 'd': ctx.database = optarg; break;
		case 'C': ctx.create = 1; break;
		case 'K': ctx.callstacks = 1; break;
		case 'Z': ctx.uncompressed = 1; break;
		case 'L':
			if (ilog_opt_listen("--listen", optarg, &listen))
				return ILOG_EXIT_USAGE;
			live.listen = &listen;
			break;
		case 'I': case 'G': case 'W': case 'X': {
			static const char *const names[] = { "--interval", "--linger", "--window",
							     "--chain-window" };
			int k = c == 'I' ? 0 : c == 'G' ? 1 : c == 'W' ? 2 : 3;
			uint64_t ns;
			if (ilog_parse_duration(optarg, &ns) || (k != 1 && ns < 1000000)) {
				ilog_errorf("%s: not a duration%s '%s'", names[k],
					    k != 1 ? " of at least 1ms" : "", optarg);
				return ILOG_EXIT_USAGE;
			}
			*(k == 0 ? &live.interval_ns : k == 1 ? &live.linger_ns
				   : k == 2 ? &live.window_ns : &live.chain_window_ns) = ns;
			break;
		}
		default:
			if ((rc = ilog_analysis_opt(&ao, c, optarg, err, sizeof(err))) < 0) {
				ilog_errorf("%s", err);
				return ILOG_EXIT_USAGE;
			}
			if (!rc && (rc = ilog_opt_common(c, usage)) >= 0)
				return rc;
		}
	}
	const struct ilog_sink *sink = ilog_sink_find(fmt);
	if (!sink) {
		struct ilog_suggest sg;
		ilog_suggest_init(&sg, fmt);
		for (int i = 0; ilog_sinks[i]; i++)
			ilog_suggest_add(&sg, ilog_sinks[i]->name);
		if (ilog_suggest_best(&sg))
			ilog_errorf("--format: unknown format '%s': did you mean '%s'?", fmt,
				    ilog_suggest_best(&sg));
		else
			ilog_errorf("--format: unknown format '%s' (see --help)", fmt);
		return ILOG_EXIT_USAGE;
	}
	if (sink->no_input && optind < argc) {
		ilog_errorf("--format %s reads no log", sink->name);
		return ILOG_EXIT_USAGE;
	}
	int ninputs = argc - optind;
	char *const *inputs = argv + optind;
	int otlp_push = !strcmp(sink->name, "otlp") && ctx.url;
	if (live.listen || otlp_push) {
		if (live.listen && strcmp(sink->name, "prometheus")) {
			ilog_errorf("--listen serves --format prometheus, not '%s'", sink->name);
			return ILOG_EXIT_USAGE;
		}
		if (out) {
			ilog_errorf("-o: the live metrics go to %s, not to a file",
				    live.listen ? "--listen" : "--url");
			return ILOG_EXIT_USAGE;
		}
		live.inputs = inputs;
		live.ninputs = ninputs;
		live.filt = filt;
		live.analysis = &ao;
		live.url = otlp_push ? ctx.url : NULL;
		return export_live(&live);
	}
	struct ilog_out o = { .fd = -1 };
	ctx.out_path = out && strcmp(out, "-") ? out : NULL;
	if (sink->path_output) {
		/* a database: the sink opens (and appends to) the file itself */
		if (!ctx.out_path) {
			ilog_errorf("--format %s writes a file: give -o FILE", sink->name);
			return ILOG_EXIT_USAGE;
		}
		if (ilog_out_check(out, inputs, ninputs))
			return ILOG_EXIT_USAGE;
		ctx.out_fd = -1;
	} else {
		if (ilog_out_open(&o, out, inputs, ninputs, sink->binary ? sink->name : NULL))
			return ILOG_EXIT_USAGE;
		ctx.out_fd = o.fd;
	}
	/* the inputs, for sinks that record where their rows came from */
	char *source = ninputs ? ilog_join_args(ninputs, inputs) : strdup("-");
	ctx.source = source;
	if (sink->open(&ctx)) {
		ilog_errorf("%s: %s", oname(&ctx, out), ctx.err);
		ilog_out_close(&o, 0);
		free(source);
		return ILOG_EXIT_USAGE;
	}

	struct ilog_inputs in;
	const struct ilog_record *rec;
	uint64_t written = 0;
	/* --pid of a process the input never names: said after the run */
	int pid_seen = !filt->pid;
	ilog_inputs_start(&in, inputs, ninputs, 1u << 20);
	while (!sink->no_input && ilog_inputs_next(&in, &rec) > 0) {
		int keep = ilog_filter_match(filt, rec, in.r);
		if (!pid_seen)
			pid_seen = ilog_record_of_pid(rec, filt->pid);
		written += (uint64_t)keep;
		if ((sink->observe && sink->observe(&ctx, rec)) ||
		    (keep && sink->record(&ctx, rec, in.r))) {
			ilog_inputs_end(&in);
			ilog_errorf("%s: %s", oname(&ctx, out), ctx.err);
			sink->close(&ctx);
			ilog_out_close(&o, 0);
			free(source);
			return ILOG_EXIT_USAGE;
		}
	}
	ilog_inputs_end(&in);
	/* a damaged input leaves the output whole (what came before the
	 * damage); a sink that failed does not */
	int whole = 1;
	rc = in.rc;
	ctx.input_cut = in.rc != ILOG_EXIT_OK;
	if (sink->close(&ctx)) {
		ilog_errorf("%s: %s", oname(&ctx, out), ctx.err);
		rc = ILOG_EXIT_USAGE;
		whole = 0;
	}
	free(source);
	if (ilog_out_close(&o, whole))
		rc = ILOG_EXIT_USAGE;
	if (!sink->no_input && !pid_seen)
		ilog_warnf("--pid: '%u': no record of this process in the input", filt->pid);
	if (ILOG_VERBOSE(1) && !sink->no_input)
		fprintf(stderr, "%s: %llu records read, %llu passed the filters to %s\n", ilog_prog,
			(unsigned long long)in.total, (unsigned long long)written, sink->name);
	return ilog_finish_stdout(rc);
}
