// SPDX-License-Identifier: MIT
/*
 * The causal patterns (ingero/causal.h's ILOG_PATTERNS): SPEC §5.14's list
 * is the table, row for row (name and rule, in its order), and the table
 * is well formed - names unique, as a chain writes them, short enough for
 * --help's column; every rule one sentence without a final period.
 */
#include <ctype.h>
#include "test.h"
#include "ingero/causal.h"

/* A whole text file, NUL-terminated; NULL if it cannot be read. */
static char *slurp(const char *path)
{
	FILE *f = fopen(path, "rb");
	char *b = NULL;
	long n;
	if (f && !fseek(f, 0, SEEK_END) && (n = ftell(f)) >= 0 && !fseek(f, 0, SEEK_SET) &&
	    (b = malloc((size_t)n + 1)) && fread(b, 1, (size_t)n, f) == (size_t)n)
		b[n] = 0;
	else if (b) {
		free(b);
		b = NULL;
	}
	if (f)
		fclose(f);
	return b;
}

int main(void)
{
	const char *t = getenv("INGERO_TESTS");
	char path[4096];
	snprintf(path, sizeof(path), "%s/../format/SPEC.md", t && *t ? t : "tests");
	char *spec = slurp(path);
	ok(spec != NULL, "read %s", path);
	if (!spec)
		return done_testing();

	/* the table is well formed */
	int names_ok = 1, rules_ok = 1;
	for (int i = 0; i < ILOG_PAT__COUNT; i++) {
		const struct ilog_pattern_def *p = &ilog_patterns[i];
		size_t n = p->name ? strlen(p->name) : 0;
		int good = n > 0 && n <= 18; /* --help's name column */
		for (size_t k = 0; k < n; k++)
			good &= islower((unsigned char)p->name[k]) || p->name[k] == '-';
		for (int j = 0; j < i; j++)
			good &= strcmp(ilog_patterns[j].name, p->name) != 0;
		if (!good)
			diag("pattern %d: bad or repeated name '%s'", i, p->name ? p->name : "(null)");
		names_ok &= good;
		size_t r = p->rule ? strlen(p->rule) : 0;
		if (!r || p->rule[r - 1] == '.' || strchr(p->rule, '|') || strchr(p->rule, '\n')) {
			diag("pattern %s: rule empty, ends in a period or holds | or a newline", p->name);
			rules_ok = 0;
		}
	}
	ok(names_ok, "%d patterns, names unique, lowercase and hyphens, at most 18 characters",
	   ILOG_PAT__COUNT);
	ok(rules_ok, "every rule is one line without a final period");

	/* SPEC's list: the rows after its header, up to the first line that is
	 * no row */
	const char *hdr = "| pattern | found when |\n|---|---|\n";
	char *s = strstr(spec, hdr);
	ok(s != NULL, "SPEC has the pattern list");
	int rows = 0, same = s != NULL;
	for (s = s ? s + strlen(hdr) : NULL; s && *s == '|'; rows++) {
		char *eol = strchr(s, '\n');
		if (!eol)
			break;
		*eol = 0;
		char want[1024] = "";
		if (rows < ILOG_PAT__COUNT)
			snprintf(want, sizeof(want), "| `%s` | %s |", ilog_patterns[rows].name,
				 ilog_patterns[rows].rule);
		if (strcmp(s, want)) {
			diag("SPEC row %d: %s", rows + 1, s);
			diag("the table's:  %s", rows < ILOG_PAT__COUNT ? want : "(none)");
			same = 0;
		}
		s = eol + 1;
	}
	if (rows != ILOG_PAT__COUNT)
		diag("SPEC lists %d patterns, the table %d", rows, ILOG_PAT__COUNT);
	ok(same && rows == ILOG_PAT__COUNT, "SPEC's list is the table: %d rows, names and rules",
	   rows);
	free(spec);
	return done_testing();
}
