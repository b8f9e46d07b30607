// SPDX-License-Identifier: MIT
/*
 * ingero: the umbrella.  `ingero foo ARGS` execs ingero-foo from the same
 * directory as this binary (then $PATH), git style.
 */
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include "ingero/cli.h"

static const struct cmd {
	const char *name, *help;
} cmds[] = {
	{ "record", "record CUDA and host events with eBPF (root)" },
	{ "symbolize", "resolve stack addresses to functions and lines, offline" },
	{ "correlate", "statistics, causal chains, explain, regression gate" },
	{ "merge", "merge logs of several nodes or ranks onto one timeline" },
	{ "export", "convert a log to JSON Lines, SQLite, Perfetto, metrics" },
	{ "mcp", "Model Context Protocol server over a log or database" },
	{ "demo", "run a bundled scenario end to end" },
};

static int available(const char *dir, const char *name)
{
	char p[PATH_MAX + 64];
	int n = snprintf(p, sizeof(p), "%s/ingero-%s", dir, name);
	return n > 0 && (size_t)n < sizeof(p) && access(p, X_OK) == 0;
}

static void usage(FILE *f)
{
	char dir[PATH_MAX] = "";
	ilog_self_path(NULL, 0, dir, sizeof(dir));
	fprintf(f,
		"ingero - why did my GPU job stall? Record CUDA and host events with eBPF,\n"
		"explain them offline as causal chains.\n\n"
		"USAGE\n  ingero COMMAND [ARGS...]\n  ingero help | version\n\nCOMMANDS\n");
	for (size_t i = 0; i < sizeof(cmds) / sizeof(cmds[0]); i++)
		fprintf(f, "  %-10s %s%s\n", cmds[i].name, cmds[i].help,
			available(dir, cmds[i].name) ? "" : " (not installed)");
	fprintf(f, "\n`ingero COMMAND --help` describes one command.\n\n"
		"EXAMPLES\n"
		"  sudo ingero record --duration 30s -o run.ilog\n"
		"  ingero export --format jsonl run.ilog | jq 'select(.type==\"cuda\")'\n\n"
		"EXIT STATUS\n  0 ok, 1 finding (regression gate), 2 usage or input error\n");
}

int main(int argc, char **argv)
{
	ilog_cli_init("ingero");
	if (argc < 2) {
		usage(stderr);
		return ILOG_EXIT_USAGE;
	}
	const char *c = argv[1];
	static char help_flag[] = "--help";
	if (!strcmp(c, "help") || !strcmp(c, "--help") || !strcmp(c, "-h")) {
		if (argc < 3) {
			usage(stdout);
			return ilog_finish_stdout(ILOG_EXIT_OK);
		}
		/* `ingero help foo` = `ingero foo --help` */
		c = argv[2];
		argv[2] = help_flag;
		argv[3] = NULL;
	} else if (!strcmp(c, "version") || !strcmp(c, "--version")) {
		printf("ingero %s (log format %d.%d)\n", INGERO_VERSION, ILOG_VERSION_MAJOR,
		       ILOG_VERSION_MINOR);
		return ilog_finish_stdout(ILOG_EXIT_OK);
	}
	if (c[0] == '-' || strchr(c, '/')) {
		ilog_errorf("unknown option '%s'", c);
		usage(stderr);
		return ILOG_EXIT_USAGE;
	}
	char dir[PATH_MAX], path[PATH_MAX + 256], name[256];
	snprintf(name, sizeof(name), "ingero-%s", c);
	argv[1] = name;
	if (!ilog_self_path(NULL, 0, dir, sizeof(dir))) {
		snprintf(path, sizeof(path), "%s/%s", dir, name);
		execv(path, argv + 1);
		if (errno != ENOENT) {
			ilog_errorf("cannot run '%s': %s", path, strerror(errno));
			return ILOG_EXIT_USAGE;
		}
	}
	execvp(name, argv + 1);
	/* a listed command whose program is missing is a different mistake
	 * (a partial install) from a typo */
	for (size_t i = 0; i < sizeof(cmds) / sizeof(cmds[0]); i++)
		if (!strcmp(cmds[i].name, c)) {
			ilog_errorf("'%s' is not installed: no %s next to ingero or on PATH", c, name);
			return ILOG_EXIT_USAGE;
		}
	ilog_errorf("'%s' is not an ingero command; see 'ingero help'", c);
	return ILOG_EXIT_USAGE;
}
