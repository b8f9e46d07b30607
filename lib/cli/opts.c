// SPDX-License-Identifier: MIT
/*
 * The command line every program shares (README "Common options"): the
 * options each takes, the short letters a program gave up so that no
 * letter means two things across the tools, and "did you mean" for a
 * mistyped name.
 */
#include <stdio.h>
#include <string.h>
#include "ingero/cli.h"

int ilog_opt_common(int c, void (*usage)(FILE *))
{
	switch (c) {
	case 'q':
		ilog_verbosity = -1;
		return -1;
	case 'v':
		/* -q -v: the later one wins, as with any repeated option */
		ilog_verbosity = ilog_verbosity < 0 ? 1 : ilog_verbosity + 1;
		return -1;
	case 'h':
		usage(stdout);
		return ilog_finish_stdout(ILOG_EXIT_OK);
	case ILOG_OPT_VERSION:
		printf("%s %s\n", ilog_prog_file, INGERO_VERSION);
		return ilog_finish_stdout(ILOG_EXIT_OK);
	default:
		return ilog_try_help();
	}
}

int ilog_opt_moved(int letter, const char *use, const char *elsewhere)
{
	ilog_errorf("-%c: not an option here: use %s (-%c is %s)", letter, use, letter, elsewhere);
	return ILOG_EXIT_USAGE;
}

/*
 * Edit distance with adjacent transpositions (optimal string alignment),
 * the usual typo: "exprot" is one edit from "export".  Names are short;
 * longer ones are not compared.
 */
#define SUGGEST_MAX 64

static unsigned osa(const char *a, const char *b)
{
	size_t n = strlen(a), m = strlen(b);
	unsigned d[SUGGEST_MAX + 1][SUGGEST_MAX + 1];
	if (n > SUGGEST_MAX || m > SUGGEST_MAX)
		return ~0u;
	for (size_t i = 0; i <= n; i++)
		d[i][0] = (unsigned)i;
	for (size_t j = 0; j <= m; j++)
		d[0][j] = (unsigned)j;
	for (size_t i = 1; i <= n; i++)
		for (size_t j = 1; j <= m; j++) {
			unsigned cost = a[i - 1] != b[j - 1];
			unsigned v = d[i - 1][j] + 1;
			if (d[i][j - 1] + 1 < v)
				v = d[i][j - 1] + 1;
			if (d[i - 1][j - 1] + cost < v)
				v = d[i - 1][j - 1] + cost;
			if (i > 1 && j > 1 && a[i - 1] == b[j - 2] && a[i - 2] == b[j - 1] &&
			    d[i - 2][j - 2] + 1 < v)
				v = d[i - 2][j - 2] + 1;
			d[i][j] = v;
		}
	return d[n][m];
}

void ilog_suggest_init(struct ilog_suggest *s, const char *word)
{
	*s = (struct ilog_suggest){ .word = word, .dist = ~0u };
}

void ilog_suggest_add(struct ilog_suggest *s, const char *name)
{
	if (!s->word || !*s->word)
		return;
	unsigned d = osa(s->word, name);
	size_t len = strlen(name) > strlen(s->word) ? strlen(name) : strlen(s->word);
	/* close enough to be a typo, not another word: at most two edits, and
	 * at most a third of the name ("csb" -> csv, not "nope" -> otlp) */
	if (d <= 2 && (size_t)d * 3 <= len && d < s->dist) {
		s->dist = d;
		s->best = name;
	}
}

const char *ilog_suggest_best(const struct ilog_suggest *s)
{
	return s->best;
}
