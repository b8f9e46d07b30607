// SPDX-License-Identifier: MIT
/*
 * The command line every program shares (README "Common options"): the
 * options each takes, the short letters a program gave up so that no
 * letter means two things across the tools, and "did you mean" for a
 * mistyped name.
 */
#include <arpa/inet.h>
#include <netinet/in.h>
#include <stdio.h>
#include <stdlib.h>
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

int ilog_opt_listen(const char *opt, const char *arg, struct ilog_listen *a)
{
	char host[64];
	memset(a, 0, sizeof(*a));
	snprintf(a->text, sizeof(a->text), "%s", arg);
	const char *colon = strrchr(arg, ':'), *h = arg;
	size_t hn = colon ? (size_t)(colon - arg) : 0;
	if (hn >= 2 && arg[0] == '[' && arg[hn - 1] == ']') {
		h++;
		hn -= 2;
	}
	char *end;
	unsigned long port = colon ? strtoul(colon + 1, &end, 10) : 0;
	if (!colon || !colon[1] || *end || port > 65535 || hn >= sizeof(host)) {
		ilog_errorf("%s: not ADDR:PORT '%s' (e.g. 127.0.0.1:9464, [::1]:9464)", opt, arg);
		return -1;
	}
	memcpy(host, h, hn);
	host[hn] = 0;
	if (!hn || !strcmp(host, "localhost"))
		snprintf(host, sizeof(host), "127.0.0.1");
	struct sockaddr_in *v4 = (struct sockaddr_in *)&a->ss;
	struct sockaddr_in6 *v6 = (struct sockaddr_in6 *)&a->ss;
	if (inet_pton(AF_INET, host, &v4->sin_addr) == 1) {
		v4->sin_family = AF_INET;
		v4->sin_port = htons((uint16_t)port);
		a->loopback = (ntohl(v4->sin_addr.s_addr) >> 24) == 127;
	} else if (inet_pton(AF_INET6, host, &v6->sin6_addr) == 1) {
		v6->sin6_family = AF_INET6;
		v6->sin6_port = htons((uint16_t)port);
		a->loopback = IN6_IS_ADDR_LOOPBACK(&v6->sin6_addr);
	} else {
		ilog_errorf("%s: not an IP address '%s' (give one, or localhost)", opt, host);
		return -1;
	}
	return 0;
}

int ilog_host_is_loopback(const char *host)
{
	static const char *const names[] = { "localhost", "127.0.0.1", "[::1]" };
	if (!host)
		return 0;
	for (int i = 0; i < 3; i++) {
		size_t n = strlen(names[i]);
		if (!strncasecmp(host, names[i], n) && (!host[n] || host[n] == ':')) {
			const char *p = host + n;
			if (*p == ':')
				for (p++; *p >= '0' && *p <= '9'; p++)
					;
			if (!*p)
				return 1;
		}
	}
	return 0;
}
