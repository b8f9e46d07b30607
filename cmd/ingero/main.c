// SPDX-License-Identifier: MIT
/*
 * ingero: the umbrella.  `ingero foo ARGS` execs ingero-foo from the same
 * directory as this binary (then $PATH), git style.
 */
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
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

/*
 * What people coming from Ingero type, and the command that does that job
 * here.  Answered with a hint, never run: the options and outputs of
 * Ingero's commands differ from these, and a command that quietly did
 * something else would cost more than one line.
 */
static const struct ingero_name {
	const char *name, *is, *how;
} ingero_names[] = {
	{ "trace", "ingero record", "ingero record -- COMMAND ..." },
	{ "check", "ingero record --check", "sudo ingero record --check: kernel, BTF, BPF, libraries, driver" },
	{ "explain", "ingero correlate --report", "ingero correlate --report run.ilog" },
	{ "query", "ingero export --format sqlite",
	  "ingero export -f sqlite -o run.db run.ilog, then sqlite3 run.db or ingero mcp --db run.db" },
	{ "dashboard", "ingero export --format perfetto",
	  "ingero export -f perfetto -o trace.json run.ilog, then open it in ui.perfetto.dev" },
};

#define NELEM(a) (sizeof(a) / sizeof((a)[0]))

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
		"USAGE\n  ingero [-q|-v] COMMAND [ARGS...]\n  ingero help [COMMAND] | version\n\n"
		"COMMANDS\n");
	for (size_t i = 0; i < NELEM(cmds); i++)
		fprintf(f, "  %-10s %s%s\n", cmds[i].name, cmds[i].help,
			available(dir, cmds[i].name) ? "" : " (not installed)");
	/* prose, not a list: the man page and completions take the words of
	 * the COMMANDS list for commands */
	fprintf(f, "\n`ingero COMMAND --help` describes one command.\n\n"
		"Ingero's command names are answered with the command that does that\n"
		"job here, on stderr with exit status 2, and not run (their options and\n"
		"outputs differ): trace is record, check is record --check, explain is\n"
		"correlate --report, query is export --format sqlite (then sqlite3, or\n"
		"mcp), dashboard is export --format perfetto.\n\n"
		"OPTIONS\n"
		"  -q, --quiet    errors only: passed on to COMMAND\n"
		"  -v, --verbose  more detail: passed on to COMMAND (repeatable)\n"
		"  -h, --help     this text\n"
		"      --version  print the version and the log format\n\n"
		"EXAMPLES\n"
		"  sudo ingero record --duration 30s -o run.ilog\n"
		"  ingero export --format jsonl run.ilog | jq 'select(.type==\"cuda\")'\n\n"
		"EXIT STATUS\n  0 ok, 1 finding (regression gate), 2 usage or input error\n");
}

/* -q, -v, -vv, --quiet, --verbose: what is passed on to the command */
static int passed_on(const char *a)
{
	if (!strcmp(a, "--quiet") || !strcmp(a, "--verbose") || !strcmp(a, "-q"))
		return 1;
	if (a[0] != '-' || a[1] != 'v')
		return 0;
	return a[strspn(a + 1, "v") + 1] == 0;
}

/* A command that is not here: not installed, Ingero's name, or a typo. */
static int not_found(const char *c, const char *name)
{
	/* a listed command whose program is missing is a different mistake
	 * (a partial install) from a typo */
	for (size_t i = 0; i < NELEM(cmds); i++)
		if (!strcmp(cmds[i].name, c)) {
			ilog_errorf("'%s' is not installed: no %s next to ingero or on PATH", c, name);
			return ILOG_EXIT_USAGE;
		}
	for (size_t i = 0; i < NELEM(ingero_names); i++)
		if (!strcmp(ingero_names[i].name, c)) {
			ilog_errorf("'%s' is '%s' here (%s)", c, ingero_names[i].is,
				    ingero_names[i].how);
			return ILOG_EXIT_USAGE;
		}
	struct ilog_suggest sg;
	ilog_suggest_init(&sg, c);
	for (size_t i = 0; i < NELEM(cmds); i++)
		ilog_suggest_add(&sg, cmds[i].name);
	ilog_suggest_add(&sg, "help");
	ilog_suggest_add(&sg, "version");
	if (ilog_suggest_best(&sg))
		ilog_errorf("'%s' is not an ingero command; did you mean '%s'?", c,
			    ilog_suggest_best(&sg));
	else
		ilog_errorf("'%s' is not an ingero command; see 'ingero help'", c);
	return ILOG_EXIT_USAGE;
}

int main(int argc, char **argv)
{
	ilog_cli_init("ingero");
	int first = 1; /* the command's index, after the options passed on */
	while (first < argc && passed_on(argv[first]))
		first++;
	if (first >= argc) {
		usage(stderr);
		return ILOG_EXIT_USAGE;
	}
	const char *c = argv[first];
	static char help_flag[] = "--help";
	char *help_argv[2] = { help_flag, NULL };
	char **rest = argv + first + 1; /* the command's own arguments */
	if (!strcmp(c, "help") || !strcmp(c, "--help") || !strcmp(c, "-h")) {
		if (first + 1 >= argc) {
			usage(stdout);
			return ilog_finish_stdout(ILOG_EXIT_OK);
		}
		/* `ingero help foo` = `ingero foo --help` */
		c = argv[first + 1];
		rest = help_argv;
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
	/* ingero-foo, the options passed on, then foo's arguments */
	size_t nrest = 0;
	while (rest[nrest])
		nrest++;
	char **av = calloc((size_t)first + nrest + 1, sizeof(*av));
	if (!av) {
		ilog_errorf("out of memory");
		return ILOG_EXIT_USAGE;
	}
	size_t n = 0;
	av[n++] = name;
	for (int i = 1; i < first; i++)
		av[n++] = argv[i];
	for (size_t i = 0; i < nrest; i++)
		av[n++] = rest[i];
	av[n] = NULL;
	if (!ilog_self_path(NULL, 0, dir, sizeof(dir))) {
		snprintf(path, sizeof(path), "%s/%s", dir, name);
		execv(path, av);
		if (errno != ENOENT) {
			ilog_errorf("cannot run '%s': %s", path, strerror(errno));
			free(av);
			return ILOG_EXIT_USAGE;
		}
	}
	execvp(name, av);
	free(av);
	return not_found(c, name);
}
