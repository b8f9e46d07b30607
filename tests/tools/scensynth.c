// SPDX-License-Identifier: MIT
/*
 * scensynth: writes a synthetic scenario log (lib/scenario.c) for tests and
 * benchmarks.  Not a user command (users run `ingero demo --no-bpf`).
 *
 *   scensynth SCENARIO [-o FILE] [--seed N] [--seconds S] [--sync-factor F]
 *             [--node NAME] [--mono-ns NS] [--real-ns NS]
 *   scensynth --list
 */
#include <getopt.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "cli.h"
#include "scenario.h"

int main(int argc, char **argv)
{
	static const struct option lo[] = {
		{ "seed", required_argument, 0, 's' }, { "seconds", required_argument, 0, 'S' },
		{ "sync-factor", required_argument, 0, 'f' }, { "node", required_argument, 0, 'N' },
		{ "mono-ns", required_argument, 0, 'M' }, { "real-ns", required_argument, 0, 'R' },
		{ "list", no_argument, 0, 'l' }, { 0 },
	};
	struct ilog_scenario_opts so = { 0 };
	const char *out = NULL;
	int c;
	ilog_cli_init(argv[0]);
	while ((c = getopt_long(argc, argv, "o:", lo, NULL)) != -1) {
		switch (c) {
		case 'o': out = optarg; break;
		case 's': so.seed = strtoull(optarg, NULL, 0); break;
		case 'S': so.seconds = strtod(optarg, NULL); break;
		case 'f': so.sync_factor = strtod(optarg, NULL); break;
		case 'N': so.node = optarg; break;
		case 'M': so.mono_ns = strtoull(optarg, NULL, 0); break;
		case 'R': so.real_ns = strtoull(optarg, NULL, 0); break;
		case 'l':
			for (const char *const *n = ilog_scenario_names(); *n; n++)
				printf("%-18s %s\n", *n, ilog_scenario_help(*n));
			return ilog_finish_stdout(0);
		default: return ILOG_EXIT_USAGE;
		}
	}
	if (optind + 1 != argc) {
		ilog_errorf("usage: scensynth SCENARIO [-o FILE] [--seed N] [--seconds S]");
		return ILOG_EXIT_USAGE;
	}
	so.name = argv[optind];
	int fd = ilog_open_out(out);
	if (fd < 0 || (!out && ilog_refuse_tty(fd, "a log")))
		return ILOG_EXIT_USAGE;
	char err[256];
	struct ilog_writer_opts wo = { .frame_ms = ILOG_FRAME_MS_OFF };
	struct ilog_writer *w = ilog_writer_open(fd, &wo, err, sizeof(err));
	if (!w) {
		ilog_errorf("%s", err);
		return ILOG_EXIT_USAGE;
	}
	int rc = ilog_scenario_write(w, &so, err, sizeof(err));
	if (rc)
		ilog_errorf("%s", err);
	if (ilog_writer_close(w, err, sizeof(err))) {
		ilog_errorf("%s", err);
		rc = -1;
	}
	return rc ? ILOG_EXIT_USAGE : 0;
}
