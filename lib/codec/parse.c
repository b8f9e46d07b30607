// SPDX-License-Identifier: MIT
/* Durations, sizes, wall times and name lists as users type them. */
#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include "ingero/ilog.h"

/* A decimal number with an optional fraction: "12", "1.5". */
static int number(const char **s, double *v)
{
	char *end;
	if (!isdigit((unsigned char)**s) && **s != '.')
		return -1;
	errno = 0;
	*v = strtod(*s, &end);
	if (end == *s || errno || !isfinite(*v) || *v < 0)
		return -1;
	*s = end;
	return 0;
}

/* Round a non-negative double to uint64; -1 if it does not fit (llround
 * would overflow its long long above 2^63 and garble the result). */
static int to_u64(double v, uint64_t *out)
{
	if (!(v >= 0) || v + 0.5 >= 18446744073709551616.0)
		return -1;
	*out = (uint64_t)(v + 0.5);
	return 0;
}

struct unit { const char *name; double mult; };

/* Longest unit name matching at s. */
static const struct unit *match_unit(const char **s, const struct unit *u)
{
	const struct unit *best = NULL;
	size_t bl = 0;
	for (; u->name; u++) {
		size_t l = strlen(u->name);
		if (l > bl && !strncmp(*s, u->name, l)) {
			best = u;
			bl = l;
		}
	}
	if (best)
		*s += bl;
	return best;
}

int ilog_parse_duration(const char *s, uint64_t *ns)
{
	static const struct unit units[] = {
		{ "ns", 1 }, { "us", 1e3 }, { "ms", 1e6 }, { "s", 1e9 }, { "m", 60e9 },
		{ "h", 3600e9 }, { "d", 86400e9 }, { NULL, 0 },
	};
	double total = 0, v;
	if (!s || !*s)
		return -1;
	if (number(&s, &v))
		return -1;
	if (!*s) { /* bare number: seconds */
		total = v * 1e9;
	} else {
		for (;;) {
			const struct unit *u = match_unit(&s, units);
			if (!u)
				return -1;
			total += v * u->mult;
			if (!*s)
				break;
			if (number(&s, &v))
				return -1;
		}
	}
	return to_u64(total, ns);
}

int ilog_parse_size(const char *s, uint64_t *bytes)
{
	static const struct unit units[] = {
		{ "b", 1 }, { "B", 1 },
		{ "k", 1024.0 }, { "K", 1024.0 }, { "kb", 1024.0 }, { "KB", 1024.0 }, { "KiB", 1024.0 },
		{ "m", 1048576.0 }, { "M", 1048576.0 }, { "mb", 1048576.0 }, { "MB", 1048576.0 },
		{ "MiB", 1048576.0 },
		{ "g", 1073741824.0 }, { "G", 1073741824.0 }, { "gb", 1073741824.0 },
		{ "GB", 1073741824.0 }, { "GiB", 1073741824.0 },
		{ "t", 1099511627776.0 }, { "T", 1099511627776.0 }, { "tb", 1099511627776.0 },
		{ "TB", 1099511627776.0 }, { "TiB", 1099511627776.0 }, { NULL, 0 },
	};
	double v;
	if (!s || number(&s, &v))
		return -1;
	if (*s) {
		const struct unit *u = match_unit(&s, units);
		if (!u || *s)
			return -1;
		v *= u->mult;
	}
	return to_u64(v, bytes);
}

static int digits(const char **s, int n, int *out)
{
	int v = 0;
	for (int i = 0; i < n; i++) {
		if (!isdigit((unsigned char)(*s)[i]))
			return -1;
		v = v * 10 + ((*s)[i] - '0');
	}
	*s += n;
	*out = v;
	return 0;
}

int ilog_parse_walltime(const char *s, uint64_t *real_ns)
{
	if (!s || !*s)
		return -1;
	if (*s == '@') {
		/* integer seconds and fraction apart: a double would round
		 * today's times to 256 ns */
		uint64_t sec = 0, frac = 0, scale = 100000000;
		int nd = 0;
		for (s++; isdigit((unsigned char)*s); s++, nd++) {
			if (sec > UINT64_MAX / 1000000000u / 10)
				return -1;
			sec = sec * 10 + (uint64_t)(*s - '0');
		}
		if (*s == '.') {
			if (!isdigit((unsigned char)*++s))
				return -1;
			for (; isdigit((unsigned char)*s); s++, nd++, scale /= 10)
				frac += (uint64_t)(*s - '0') * scale;
		}
		if (!nd || *s || sec > (UINT64_MAX - frac) / 1000000000u)
			return -1;
		*real_ns = sec * 1000000000u + frac;
		return 0;
	}
	/* RFC 3339: YYYY-MM-DD[T ]HH:MM[:SS[.frac]][Z|±HH:MM]; a bare date is midnight UTC */
	struct tm tm = { 0 };
	int Y, M, D, h = 0, m = 0, sec = 0;
	uint64_t frac = 0;
	if (digits(&s, 4, &Y) || *s++ != '-' || digits(&s, 2, &M) || *s++ != '-' ||
	    digits(&s, 2, &D))
		return -1;
	if (*s == 'T' || *s == 't' || *s == ' ') {
		s++;
		if (digits(&s, 2, &h) || *s++ != ':' || digits(&s, 2, &m))
			return -1;
		if (*s == ':') {
			s++;
			if (digits(&s, 2, &sec))
				return -1;
			if (*s == '.') {
				uint64_t scale = 100000000;
				s++;
				if (!isdigit((unsigned char)*s))
					return -1;
				for (; isdigit((unsigned char)*s); s++, scale /= 10)
					frac += (uint64_t)(*s - '0') * scale;
			}
		}
	}
	long off = 0;
	if (*s == 'Z' || *s == 'z') {
		s++;
	} else if (*s == '+' || *s == '-') {
		int sign = *s++ == '-' ? -1 : 1, oh, om;
		if (digits(&s, 2, &oh) || *s++ != ':' || digits(&s, 2, &om))
			return -1;
		off = sign * (oh * 3600L + om * 60L);
	}
	static const int mdays[] = { 31, 29, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31 };
	int leap = (Y % 4 == 0 && Y % 100 != 0) || Y % 400 == 0;
	if (*s || M < 1 || M > 12 || D < 1 || D > mdays[M - 1] || (M == 2 && D == 29 && !leap) ||
	    h > 23 || m > 59 || sec > 60)
		return -1;
	tm.tm_year = Y - 1900;
	tm.tm_mon = M - 1;
	tm.tm_mday = D;
	tm.tm_hour = h;
	tm.tm_min = m;
	tm.tm_sec = sec;
	time_t t = timegm(&tm);
	if (t == (time_t)-1 || t - off < 0)
		return -1;
	*real_ns = (uint64_t)(t - off) * 1000000000u + frac;
	return 0;
}

int ilog_parse_list(const char *s, int (*lookup)(const char *), uint64_t *mask,
		    char *bad, size_t badlen)
{
	char tok[128];
	*mask = 0;
	while (*s) {
		size_t n = strcspn(s, ",");
		if (n == 0 || n >= sizeof(tok)) {
			snprintf(bad, badlen, "%.*s", (int)(n < 64 ? n : 64), s);
			return -1;
		}
		memcpy(tok, s, n);
		tok[n] = 0;
		int v = lookup(tok);
		if (v < 0 || v > 63) {
			snprintf(bad, badlen, "%s", tok);
			return -1;
		}
		*mask |= 1ull << v;
		s += n;
		if (*s == ',')
			s++;
	}
	return 0;
}
