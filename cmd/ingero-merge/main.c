// SPDX-License-Identifier: MIT
/* ingero-merge: merge per-node logs into one multi-node log by wall time,
 * estimating clock skew.  Thin: options, inputs, lib/merge/merge.c, report. */
#include <getopt.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include "ingero/cli.h"
#include "ingero/merge.h"

static void usage(FILE *f)
{
	fprintf(f,
		"ingero-merge - merge per-node/per-rank logs into one log by wall time\n\n"
		"USAGE\n  ingero-merge [OPTIONS] [--node NAME] LOG [[--node NAME] LOG...]\n\n"
		"Streams a k-way merge of the LOGs (- = stdin, at most once) into one log whose\n"
		"headers describe every node (node_index in header order: by rank, then name).\n"
		"Stack and Python-stack ids are re-derived from content per node, so ids never\n"
		"collide and identical stacks are written once; a provenance record says what\n"
		"was merged.  Clock offsets between nodes are estimated from matching NCCL\n"
		"collectives (the n-th collective on a communicator completes at nearly the\n"
		"same true time on every rank) and reported per node on stderr; a merged log\n"
		"can be merged again.\n\nOPTIONS\n"
		"  -o, --output FILE            write here instead of stdout\n"
		"      --node NAME              name the node of the next LOG (for logs whose\n"
		"                               header has no node identity)\n"
		"      --force-node             let --node replace the name a header has\n"
		"      --align                  shift each node's clock by its estimated offset\n"
		"      --clock-skew-threshold DUR  warn when a node's offset exceeds DUR\n"
		"                               (default 10ms; 0 = never)\n"
		"      --reference NODE         offsets relative to NODE (default: the first node)\n"
		"  -n, --dry-run                estimate and report, write no log\n"
		"  -j, --json                   the report as JSON Lines on stdout, one object per\n"
		"                               node (as in the provenance record); needs -o FILE\n"
		"                               or -n\n"
		"  -L, --level N                zstd level of the output (default 3)\n"
		"  -q, --quiet                  errors only: no report, progress or warnings\n"
		"  -v, --verbose                also say how many records were read and written\n"
		"                               and how many collectives were matched\n"
		"  -h, --help                   this text\n"
		"      --version                print the version\n\n"
		"The first pass over each input needs a regular file; a log on stdin takes its\n"
		"offset from its clock anchors only.\n\n"
		"EXAMPLES\n"
		"  ingero-merge rank0.ilog rank1.ilog rank2.ilog rank3.ilog -o job.ilog\n"
		"  ingero-merge --align --clock-skew-threshold 2ms node*.ilog -o job.ilog\n"
		"  ingero-merge --node gpu-a --force-node old.ilog new.ilog -o both.ilog\n"
		"  ingero-merge -n rank*.ilog          # offsets only\n"
		"  ingero-merge -n -j rank*.ilog | jq -r '.node + \" \" + (.offset_ns|tostring)'\n\n"
		"EXIT STATUS\n  0 merged (skew warnings included), 2 usage error or bad input\n");
}

static void fmt_ms(char *b, size_t n, double ns, int sign)
{
	snprintf(b, n, sign ? "%+.3f ms" : "%.3f ms", ns / 1e6);
}

/* uncertainties and spreads: microseconds below a millisecond */
static void fmt_small(char *b, size_t n, double ns)
{
	if (ns < 1e6)
		snprintf(b, n, "%.1f us", ns / 1e3);
	else
		fmt_ms(b, n, ns, 0);
}

/* Progress on a terminal for long merges: the engine calls back per pass. */
static void progress(void *arg, int pass, uint64_t records)
{
	ilog_progress_show(arg, pass == 1 ? "reading anchors and collectives" : "merging",
			   records, 0);
}

/* End an open progress line before other output. */
static void progress_end(const struct ilog_merge_opts *mo)
{
	if (mo->progress_arg)
		ilog_progress_end(mo->progress_arg);
}

/* A damaged range the merge skipped (SPEC §9): one line, exit 2 at the end. */
static void on_damage(void *arg, const char *line)
{
	progress_end(arg);
	ilog_errorf("%s", line);
}

/* The engine's warnings from w on, one per line. */
static void warn_lines(const char *w)
{
	while (*w && ilog_verbosity >= 0) {
		const char *e = strchr(w, '\n');
		ilog_warnf("%.*s", (int)(e - w), w);
		w = e + 1;
	}
}

static int json_report; /* --json */

static void report(const struct ilog_merge *m, const struct ilog_merge_opts *o)
{
	progress_end(o);
	uint32_t nn;
	const struct ilog_merge_node *nodes = ilog_merge_nodes(m, &nn);
	warn_lines(ilog_merge_warnings(m));
	for (uint32_t i = 0; i < nn && json_report; i++) {
		struct ilog_buf b = { 0 };
		if (ilog_merge_node_json(&b, i, &nodes[i]) || ilog_buf_put(&b, "\n", 1))
			ilog_errorf("out of memory");
		else
			fwrite(b.p, 1, b.len, stdout);
		ilog_buf_free(&b);
	}
	for (uint32_t i = 0; i < nn && ilog_verbosity >= 0; i++) {
		const struct ilog_merge_node *p = &nodes[i];
		if (json_report && !p->warn)
			continue; /* the text report, but its warnings, is in the JSON */
		char off[48], unc[48], spread[48], rank[32] = "";
		fmt_ms(off, sizeof(off), (double)p->offset_ns, 1);
		fmt_small(unc, sizeof(unc), p->uncertainty_ns);
		fmt_small(spread, sizeof(spread), p->spread_ns);
		if (p->rank >= 0)
			snprintf(rank, sizeof(rank), " rank %lld", (long long)p->rank);
		switch (json_report ? -1 : p->method) {
		case -1:
			break;
		case ILOG_SKEW_REFERENCE:
			fprintf(stderr, "%s: node %u %s%s: reference clock (%u anchors, largest step %.3f ms)\n",
				ilog_prog, i, p->name, rank, p->anchors, (double)p->anchor_step_ns / 1e6);
			break;
		case ILOG_SKEW_COLLECTIVES:
			fprintf(stderr, "%s: node %u %s%s: offset %s +- %s from %llu collectives "
				"(spread %s; %u anchors, largest step %.3f ms)%s\n",
				ilog_prog, i, p->name, rank, off, unc, (unsigned long long)p->matched,
				spread, p->anchors, (double)p->anchor_step_ns / 1e6,
				p->applied ? ", aligned" : "");
			break;
		case ILOG_SKEW_SAME_BOOT:
			fprintf(stderr, "%s: node %u %s%s: offset %s +- %s (same boot as the reference)%s\n",
				ilog_prog, i, p->name, rank, off, unc, p->applied ? ", aligned" : "");
			break;
		default:
			fprintf(stderr, "%s: node %u %s%s: offset unknown (%s; %u anchors, largest step "
				"%.3f ms): wall clock trusted\n", ilog_prog, i, p->name, rank,
				p->scanned ? "no collectives to compare" : "read once from stdin",
				p->anchors, (double)p->anchor_step_ns / 1e6);
		}
		if (p->warn) {
			char thr[48];
			fmt_ms(thr, sizeof(thr), (double)o->skew_threshold_ns, 0);
			ilog_warnf("node %s: clock offset %s exceeds --clock-skew-threshold %s%s", p->name,
				   off, thr, p->applied ? " (corrected by --align)"
							: " (--align corrects it)");
		}
	}
}

/* Merge (or with dry, only estimate) and report.  Returns the exit code. */
static int run(struct ilog_merge_input *in, uint32_t nin, const struct ilog_merge_opts *mo,
	       const char *out, int dry)
{
	int rc = ILOG_EXIT_OK;
	char err[1024];
	struct ilog_out dst = { .fd = -1 };
	if (!dry) {
		/* the inputs' paths, to refuse writing over one of them */
		char **paths = calloc(nin, sizeof(*paths));
		for (uint32_t i = 0; paths && i < nin; i++)
			paths[i] = (char *)in[i].path;
		int bad = !paths || ilog_out_open(&dst, out, paths, (int)nin, "a log");
		if (!paths)
			ilog_errorf("out of memory");
		free(paths);
		if (bad)
			return ILOG_EXIT_USAGE;
	}
	struct ilog_merge *m = ilog_merge_open(in, nin, mo, err, sizeof(err));
	if (!m) {
		ilog_errorf("%s", err);
		ilog_out_close(&dst, 0);
		return ILOG_EXIT_USAGE;
	}
	report(m, mo);
	if (!dry) {
		size_t wlen = strlen(ilog_merge_warnings(m)); /* printed by report */
		int wrc = ilog_merge_write(m, dst.fd, err, sizeof(err));
		progress_end(mo);
		if (wrc) {
			ilog_errorf("%s", err);
			rc = ILOG_EXIT_USAGE;
		}
		struct ilog_merge_stats dst_st;
		ilog_merge_stats(m, &dst_st);
		if (dst_st.damaged)
			rc = ILOG_EXIT_USAGE;
		/* nodes met only while writing (stdin) may have added warnings */
		warn_lines(ilog_merge_warnings(m) + wlen);
		struct ilog_merge_stats st;
		ilog_merge_stats(m, &st);
		if (ILOG_VERBOSE(0) && (st.stacks_dedup || st.pystacks_dedup || st.pycode_dedup ||
					st.unresolved_refs))
			fprintf(stderr, "%s: %llu stacks, %llu python stacks, %llu code objects deduplicated; "
				"%llu stack references without a stack record\n", ilog_prog,
				(unsigned long long)st.stacks_dedup, (unsigned long long)st.pystacks_dedup,
				(unsigned long long)st.pycode_dedup, (unsigned long long)st.unresolved_refs);
		if (ILOG_VERBOSE(1))
			fprintf(stderr, "%s: %llu records read, %llu written; %llu collective points\n",
				ilog_prog, (unsigned long long)st.records_in,
				(unsigned long long)st.records_out, (unsigned long long)st.collectives);
		/* kept after a damaged input (the records before it), not
		 * after a failed write */
		if (ilog_out_close(&dst, !wrc || ilog_err_is_damage(err)))
			rc = ILOG_EXIT_USAGE;
	}
	ilog_merge_free(m);
	return rc;
}

int main(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "output", required_argument, 0, 'o' }, { "node", required_argument, 0, 'N' },
		{ "force-node", no_argument, 0, 'F' }, { "align", no_argument, 0, 'A' },
		{ "clock-skew-threshold", required_argument, 0, 'T' },
		{ "reference", required_argument, 0, 'R' }, { "dry-run", no_argument, 0, 'n' },
		{ "level", required_argument, 0, 'L' }, { "json", no_argument, 0, 'j' },
		ILOG_COMMON_LONG, { 0 },
	};
	struct ilog_merge_opts mo = { .skew_threshold_ns = 10000000 };
	const char *out = NULL, *node = NULL;
	uint32_t nin = 0;
	int dry = 0, c, rc = ILOG_EXIT_USAGE;

	ilog_cli_init(argv[0]);
	struct ilog_merge_input *in = calloc((size_t)argc + 1, sizeof(*in));
	/* the command line, for the provenance record */
	char *args = ilog_join_args(argc, argv);
	if (!in || !args) {
		ilog_errorf("out of memory");
		goto out;
	}
	/* "-" first: inputs come back in order, so --node binds to the next LOG */
	while ((c = getopt_long(argc, argv, "-o:nL:j" ILOG_COMMON_SHORT, opts, NULL)) != -1) {
		switch (c) {
		case 1:
			in[nin].path = optarg;
			in[nin++].node = node;
			node = NULL;
			break;
		case 'o': out = optarg; break;
		case 'N':
			if (!*optarg) {
				ilog_errorf("--node: empty name");
				goto out;
			}
			node = optarg;
			break;
		case 'F': mo.force_node = 1; break;
		case 'A': mo.align = 1; break;
		case 'T':
			if (ilog_parse_duration(optarg, &mo.skew_threshold_ns)) {
				ilog_errorf("--clock-skew-threshold: not a duration '%s'", optarg);
				goto out;
			}
			break;
		case 'R': mo.reference = optarg; break;
		case 'n': dry = 1; break;
		case 'j': json_report = 1; break;
		case 'L': mo.level = atoi(optarg); break;
		default:
			if ((rc = ilog_opt_common(c, usage)) >= 0)
				goto out;
			rc = ILOG_EXIT_USAGE;
		}
	}
	if (node) {
		ilog_errorf("--node %s: no LOG follows it", node);
		goto out;
	}
	if (json_report && !dry && (!out || !strcmp(out, "-"))) {
		ilog_errorf("--json: the report goes to stdout, so the log needs -o FILE (or -n)");
		goto out;
	}
	if (!nin)
		in[nin++].path = "-";
	mo.args = args;
	/* SOURCE_DATE_EPOCH makes the output reproducible byte for byte */
	const char *sde = getenv("SOURCE_DATE_EPOCH");
	if (sde && *sde) {
		mo.now_real_ns = strtoull(sde, NULL, 10) * 1000000000ull;
	} else {
		struct timespec t;
		clock_gettime(CLOCK_REALTIME, &t);
		mo.now_real_ns = (uint64_t)t.tv_sec * 1000000000ull + (uint64_t)t.tv_nsec;
	}
	struct ilog_progress prog;
	ilog_progress_start(&prog);
	if (prog.on) {
		mo.progress = progress;
		mo.progress_arg = &prog;
	}
	mo.damage = on_damage;
	mo.damage_arg = &mo;
	rc = run(in, nin, &mo, out, dry);
	progress_end(&mo);
	rc = ilog_finish_stdout(rc);
out:
	free(args);
	free(in);
	return rc;
}
