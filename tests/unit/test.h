/* SPDX-License-Identifier: MIT */
/*
 * A tiny TAP producer for tests/unit/<name>.c, read by tests/run.sh:
 *
 *   ok N - desc
 *   not ok N - desc          followed by "# ..." diagnostic lines
 *   ok N - desc # SKIP why
 *   1..N                     (printed by done_testing)
 *
 * A test is one call of ok()/is_*()/skip().  Table-driven loops that check
 * thousands of cases should count their own failures and report one line
 * per table (see check_begin/check_fail), so "N passed" counts properties,
 * not iterations.  main() returns done_testing().
 */
#ifndef INGERO_TEST_H
#define INGERO_TEST_H

#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int t_count, t_failures;

static inline __attribute__((format(printf, 4, 0)))
void t_vline(int pass, const char *file, int line, const char *fmt, va_list ap)
{
	printf("%sok %d - ", pass ? "" : "not ", ++t_count);
	vprintf(fmt, ap);
	printf("\n");
	if (!pass) {
		printf("#   failed at %s:%d\n", file, line);
		t_failures++;
	}
	fflush(stdout);
}

static inline __attribute__((format(printf, 4, 5)))
int t_ok(int pass, const char *file, int line, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	t_vline(pass, file, line, fmt, ap);
	va_end(ap);
	return pass;
}

/* "# ..." lines: shown by the harness when the test fails. */
static inline __attribute__((format(printf, 1, 2))) void diag(const char *fmt, ...)
{
	va_list ap;
	printf("#   ");
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	printf("\n");
	fflush(stdout);
}

static inline __attribute__((format(printf, 2, 3))) void skip(const char *why, const char *fmt, ...)
{
	va_list ap;
	printf("ok %d - ", ++t_count);
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	printf(" # SKIP %s\n", why);
	fflush(stdout);
}

#define ok(cond, ...) t_ok(!!(cond), __FILE__, __LINE__, __VA_ARGS__)

#define is_u64(got, want, ...) ({                                               \
	uint64_t g_ = (uint64_t)(got), w_ = (uint64_t)(want);                  \
	int p_ = t_ok(g_ == w_, __FILE__, __LINE__, __VA_ARGS__);              \
	if (!p_)                                                               \
		diag("got %" PRIu64 " (0x%" PRIx64 "), want %" PRIu64 " (0x%" PRIx64 ")", \
		     g_, g_, w_, w_);                                          \
	p_; })

#define is_str(got, want, ...) ({                                               \
	const char *g_ = (got), *w_ = (want);                                  \
	int p_ = t_ok(g_ && w_ && !strcmp(g_, w_), __FILE__, __LINE__, __VA_ARGS__); \
	if (!p_)                                                               \
		diag("got  '%s'\n#   want '%s'", g_ ? g_ : "(null)", w_ ? w_ : "(null)"); \
	p_; })

/* `got` contains `want` (error messages: the part a user relies on). */
#define has_str(got, want, ...) ({                                              \
	const char *g_ = (got), *w_ = (want);                                  \
	int p_ = t_ok(g_ && strstr(g_, w_), __FILE__, __LINE__, __VA_ARGS__);  \
	if (!p_)                                                               \
		diag("got '%s', want it to contain '%s'", g_ ? g_ : "(null)", w_); \
	p_; })

/*
 * Aggregated checks for table-driven loops:
 *   struct check ck; check_begin(&ck);
 *   for (...) if (bad) check_fail(&ck, "case %d: ...", i);
 *   check_end(&ck, "all cuts read back");
 * Only the first few failures are printed as diagnostics.
 */
struct check { int fails; char first[8][256]; };

static inline void check_begin(struct check *c) { memset(c, 0, sizeof(*c)); }

static inline __attribute__((format(printf, 2, 3))) void check_fail(struct check *c, const char *fmt, ...)
{
	va_list ap;
	if (c->fails < 8) {
		va_start(ap, fmt);
		vsnprintf(c->first[c->fails], sizeof(c->first[0]), fmt, ap);
		va_end(ap);
	}
	c->fails++;
}

#define check_end(c, ...) ({                                                    \
	int p_ = t_ok((c)->fails == 0, __FILE__, __LINE__, __VA_ARGS__);       \
	for (int i_ = 0; i_ < (c)->fails && i_ < 8; i_++)                      \
		diag("%s", (c)->first[i_]);                                    \
	if ((c)->fails > 8)                                                    \
		diag("... and %d more", (c)->fails - 8);                       \
	p_; })

static inline int done_testing(void)
{
	printf("1..%d\n", t_count);
	return t_failures ? 1 : 0;
}

/* xorshift64: the same reproducible sequence in every test that draws from it */
static inline uint64_t t_rnd(void)
{
	static uint64_t s = 88172645463325252ull;
	s ^= s << 13;
	s ^= s >> 7;
	s ^= s << 17;
	return s;
}

#endif
