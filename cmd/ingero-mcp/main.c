// SPDX-License-Identifier: MIT
/* ingero-mcp: a Model Context Protocol server over stdio on a trace.
 * Thin: options, open the database (or load a log), serve, exit code. */
#include <errno.h>
#include <getopt.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "ingero/analysis.h"
#include "ingero/cli.h"
#include "mcp.h"
#include "mcp_http.h"

static void usage(FILE *f)
{
	fprintf(f,
		"ingero-mcp - let an AI assistant investigate a trace (Model Context Protocol)\n\n"
		"USAGE\n  ingero-mcp --db RUN.db [OPTIONS]\n  ingero-mcp [OPTIONS] RUN.ilog\n\n"
		"Serves MCP over stdio: JSON-RPC 2.0 messages, one per line, on stdin and\n"
		"stdout (protocol revisions 2025-11-25, 2025-06-18, 2025-03-26, 2024-11-05).\n"
		"An MCP client (an AI assistant) starts it; it is not used interactively.\n"
		"With --http it serves the Streamable HTTP transport at /mcp instead.\n"
		"RUN.db comes from `ingero-export --format sqlite`; a RUN.ilog is loaded\n"
		"into an in-memory database first (and correlated on the way when it has\n"
		"no chain records).  The database is strictly read-only.\n\n"
		"Tools: get_check, get_trace_stats, get_causal_chains, get_stacks,\n"
		"graph_lifecycle, graph_frequency, get_process_breakdown, run_sql.\n"
		"Prompt: investigate.\n\nOPTIONS\n"
		"      --db FILE          the SQLite database to serve (no -d: it is\n"
		"                         --duration in ingero-record)\n"
		"      --max-rows N       rows run_sql returns unless asked (default 200)\n"
		"      --timeout DUR      longest one statement may run (default 5s; 0 = none)\n"
		"      --max-request SIZE longest request line (default 1MiB); longer lines\n"
		"                         are answered with an error and skipped\n"
		"      --no-cache         recompute repeated tool calls (for benchmarks)\n"
		"      --http ADDR:PORT   serve MCP over HTTP at http://ADDR:PORT/mcp (Streamable\n"
		"                         HTTP: POST JSON-RPC, JSON or SSE replies, Mcp-Session-Id)\n"
		"                         until SIGTERM, instead of stdio.  127.0.0.1:PORT (or\n"
		"                         :PORT) by default; the Host header must then name\n"
		"                         loopback and an Origin header, if any, a loopback\n"
		"                         origin (DNS rebinding).  Any other address needs\n"
		"                         --token-file\n"
		"      --token-file FILE  require \"Authorization: Bearer TOKEN\", TOKEN the\n"
		"                         file's first line\n"
		"      --allow-origin LIST  browser origins also accepted (comma-separated,\n"
		"                         e.g. https://app.example)\n"
		"      --window DUR       RUN.ilog: the statistics window of the chains and\n"
		"                         summaries loaded (default adaptive; --stats-window\n"
		"                         too), as ingero-correlate and ingero-export\n"
		"                         --format sqlite take it: the same chains\n"
		"  -p, --pid PID          RUN.ilog: load only this process's records (and host\n"
		"                         events naming it)\n"
		"      --since TIME       RUN.ilog: load only events at or after TIME\n"
		"      --until TIME       RUN.ilog: load only events before TIME\n"
		"                         TIME: RFC 3339, @EPOCH_SECONDS or +DURATION from the start\n"
		"  -q, --quiet            errors only: no warnings\n"
		"  -v, --verbose          also say what is served, and when the input ends\n"
		"  -h, --help             this text\n"
		"      --version          print the version\n\n"
		"MCP CLIENT CONFIGURATION\n"
		"  {\"mcpServers\":{\"ingero\":{\"command\":\"ingero-mcp\",\"args\":[\"--db\",\"run.db\"]}}}\n"
		"  over HTTP: ingero-mcp --db run.db --http 127.0.0.1:8765, then\n"
		"  {\"mcpServers\":{\"ingero\":{\"type\":\"http\",\"url\":\"http://127.0.0.1:8765/mcp\"}}}\n\n"
		"EXAMPLES\n"
		"  ingero-export --format sqlite -o run.db run.ilog && ingero-mcp --db run.db\n"
		"  printf '%%s\\n' '{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"tools/list\"}' |\n"
		"    ingero-mcp --db run.db | jq -r '.result.tools[].name'\n\n"
		"EXIT STATUS\n  0 at end of input, 2 usage error, unreadable database or I/O error\n");
}

int main(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "db", required_argument, 0, 'D' }, { "max-rows", required_argument, 0, 'r' },
		{ "timeout", required_argument, 0, 't' }, { "max-request", required_argument, 0, 'm' },
		{ "no-cache", no_argument, 0, 'C' }, { "http", required_argument, 0, 'H' },
		{ "token-file", required_argument, 0, 'T' }, { "allow-origin", required_argument, 0, 'O' },
		ILOG_ANALYSIS_LONG, ILOG_COMMON_LONG, { 0 },
	};
	/* a log's analysis (ingero/analysis.h): correlate's options */
	struct ilog_analysis_opts ao = { 0 };
	const char *aopt = NULL; /* one given, for the message with --db */
	struct ilog_mcp_opts o = { .timeout_ms = 5000 };
	const char *db = NULL, *token_file = NULL;
	struct ilog_listen listen;
	struct mcp_http_opts ho = { 0 };
	char token[512], aerr[256];
	int c, rc, li = -1;
	ilog_cli_init(argv[0]);
	/* "d": the old -d FILE, refused with the new spelling (a file name
	 * and ingero-record's -d DUR cannot be told apart: "60s" is both) */
	while ((c = getopt_long(argc, argv, "dp:" ILOG_COMMON_SHORT, opts, &li)) != -1) {
		switch (c) {
		case 'd': return ilog_opt_moved('d', "--db FILE", "--duration in ingero-record");
		case 'D': db = optarg; break;
		case 'r': {
			char *end;
			unsigned long v = strtoul(optarg, &end, 10);
			if (*end || !*optarg || !v || v > 10000) {
				ilog_errorf("--max-rows: not a count from 1 to 10000 '%s'", optarg);
				return ILOG_EXIT_USAGE;
			}
			o.max_rows = (uint32_t)v;
			break;
		}
		case 't': {
			uint64_t ns;
			if (ilog_parse_duration(optarg, &ns) || ns / 1000000 > UINT32_MAX) {
				ilog_errorf("--timeout: not a duration '%s'", optarg);
				return ILOG_EXIT_USAGE;
			}
			o.timeout_ms = (uint32_t)(ns / 1000000);
			if (ns && !o.timeout_ms)
				o.timeout_ms = 1;
			break;
		}
		case 'm': {
			uint64_t n;
			if (ilog_parse_size(optarg, &n) || n < 1024 || n > (1ull << 30)) {
				ilog_errorf("--max-request: not a size from 1KiB to 1GiB '%s'", optarg);
				return ILOG_EXIT_USAGE;
			}
			o.max_request = (size_t)n;
			break;
		}
		case 'C': o.no_cache = 1; break;
		case 'H':
			if (ilog_opt_listen("--http", optarg, &listen))
				return ILOG_EXIT_USAGE;
			ho.listen = &listen;
			break;
		case 'T': token_file = optarg; break;
		case 'O': ho.allow_origin = optarg; break;
		default:
			if ((rc = ilog_analysis_opt(&ao, c, optarg, aerr, sizeof(aerr))) < 0) {
				ilog_errorf("%s", aerr);
				return ILOG_EXIT_USAGE;
			}
			if (rc)
				aopt = li >= 0 ? opts[li].name : "pid";
			else if ((rc = ilog_opt_common(c, usage)) >= 0)
				return rc;
		}
		li = -1;
	}
	if ((db != NULL) + (argc - optind) != 1) {
		ilog_errorf("give one trace: --db RUN.db or RUN.ilog");
		return ILOG_EXIT_USAGE;
	}
	if (db && aopt) {
		ilog_errorf("--%s: analyzes a log as it is loaded, not a --db", aopt);
		return ILOG_EXIT_USAGE;
	}
	o.analysis = &ao;
	if ((token_file || ho.allow_origin) && !ho.listen) {
		ilog_errorf("%s: only with --http", token_file ? "--token-file" : "--allow-origin");
		return ILOG_EXIT_USAGE;
	}
	if (token_file) {
		FILE *f = fopen(token_file, "r");
		if (!f || !fgets(token, sizeof(token), f)) {
			ilog_errorf("--token-file: '%s': %s", token_file,
				    f ? "empty" : strerror(errno));
			if (f)
				fclose(f);
			return ILOG_EXIT_USAGE;
		}
		fclose(f);
		token[strcspn(token, "\r\n")] = 0;
		if (strlen(token) < 16) {
			ilog_errorf("--token-file: '%s': a token of at least 16 characters", token_file);
			return ILOG_EXIT_USAGE;
		}
		ho.token = token;
	}
	if (ho.listen && !ho.listen->loopback && !ho.token) {
		ilog_errorf("--http: '%s' is not loopback: give --token-file", ho.listen->text);
		return ILOG_EXIT_USAGE;
	}
	char err[1024];
	struct ilog_mcp *m;
	if (db) {
		m = ilog_mcp_open_db(db, &o, err, sizeof(err));
	} else {
		const char *log = argv[optind];
		if (!strcmp(log, "-") && !ho.listen) {
			ilog_errorf("the log must be a file: stdin carries the protocol");
			return ILOG_EXIT_USAGE;
		}
		m = ilog_mcp_open_log(log, &o, err, sizeof(err));
	}
	if (!m) {
		ilog_errorf("%s", err);
		return ILOG_EXIT_USAGE;
	}
	if (*ilog_mcp_note(m))
		ilog_warnf("%s", ilog_mcp_note(m));
	if (ho.listen) {
		ho.max_request = o.max_request ? o.max_request : 1u << 20;
		if (ILOG_VERBOSE(1))
			fprintf(stderr, "%s: serving %s at http://%s/mcp\n", ilog_prog,
				db ? db : argv[optind], ho.listen->text);
		rc = mcp_http_serve(m, &ho, err, sizeof(err));
		ilog_mcp_free(m);
		if (rc) {
			ilog_errorf("--http: %s", err);
			return ILOG_EXIT_USAGE;
		}
		return ILOG_EXIT_OK;
	}
	if (isatty(STDIN_FILENO) && ILOG_VERBOSE(0))
		ilog_warnf("waiting for MCP messages (JSON-RPC, one per line) on stdin; "
			   "an MCP client normally starts this program");
	/* A client that goes away mid-reply must not kill us with SIGPIPE
	 * before we can say so. */
	signal(SIGPIPE, SIG_IGN);
	if (ILOG_VERBOSE(1))
		fprintf(stderr, "%s: serving %s over stdio\n", ilog_prog, db ? db : argv[optind]);
	rc = ilog_mcp_serve(m, STDIN_FILENO, STDOUT_FILENO, err, sizeof(err));
	ilog_mcp_free(m);
	if (rc) {
		ilog_errorf("%s", err);
		return ILOG_EXIT_USAGE;
	}
	if (ILOG_VERBOSE(1))
		fprintf(stderr, "%s: end of input\n", ilog_prog);
	return ILOG_EXIT_OK;
}
