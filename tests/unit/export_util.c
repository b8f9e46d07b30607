// SPDX-License-Identifier: MIT
/* lib/export/util.c and lib/base/u64map.c: the id map, JSON strings, and the
 * nesting check that keeps Perfetto slices pairable. */
#include "test.h"
#include "export_int.h"
#include "ingero/u64map.h"


static void test_u64map(void)
{
	struct ilog_u64map m = { 0 };
	struct check c;
	enum { N = 100000 };
	uint64_t *keys = malloc(N * sizeof(*keys));
	check_begin(&c);
	for (int i = 0; i < N; i++) {
		keys[i] = t_rnd() | 1;
		uint64_t *v = ilog_u64map_put(&m, keys[i]);
		if (!v)
			check_fail(&c, "put %d failed", i);
		else
			*v = (uint64_t)i + 7;
	}
	for (int i = 0; i < N; i++) {
		uint64_t *v = ilog_u64map_get(&m, keys[i]);
		if (!v || *v != (uint64_t)i + 7)
			check_fail(&c, "key %d: %s", i, v ? "wrong value" : "missing");
	}
	for (int i = 0; i < 1000; i++)
		if (ilog_u64map_get(&m, (t_rnd() & ~1ull) | 2))
			check_fail(&c, "an absent (even) key found");
	check_end(&c, "u64map: 100000 keys put and found, absent keys absent");
	is_u64(m.n, N, "u64map counts its keys");
	uint64_t *v = ilog_u64map_put(&m, keys[5]);
	ok(v && *v == 12 && m.n == N, "u64map: putting a present key keeps its value");
	ilog_u64map_free(&m);
	ok(!ilog_u64map_get(&m, keys[0]), "u64map: empty after free");
	free(keys);
}

static const char *json(const char *s, size_t n)
{
	static struct ilog_buf b;
	b.len = 0;
	ilog_json_str(&b, s, n);
	ilog_buf_put(&b, "", 1);
	return b.p;
}

static void test_json(void)
{
	is_str(json("plain", 5), "\"plain\"", "json: plain text as is");
	is_str(json("a\"b\\c", 5), "\"a\\\"b\\\\c\"", "json: quote and backslash escaped");
	is_str(json("t\tn\nx\x01", 6), "\"t\\tn\\nx\\u0001\"", "json: control characters escaped");
	is_str(json("caf\xc3\xa9 \xe2\x82\xac \xf0\x9f\x9a\x80", 14), "\"caf\xc3\xa9 \xe2\x82\xac \xf0\x9f\x9a\x80\"",
	       "json: valid UTF-8 (2, 3, 4 bytes) passes");
	is_str(json("a\xff" "b\xc3", 4), "\"a\\ufffdb\\ufffd\"", "json: invalid and cut UTF-8 become U+FFFD");
	is_str(json("\xed\xa0\x80", 3), "\"\\ufffd\\ufffd\\ufffd\"", "json: an encoded surrogate is not UTF-8");
	is_str(json("x\0y", 3), "\"x\\u0000y\"", "json: NUL inside a string escaped");
	struct ilog_buf b = { 0 };
	static const char argv[] = "python3\0train.py\0--a b\0";
	ilog_json_argv(&b, (struct ilog_bin){ (const uint8_t *)argv, sizeof(argv) - 1 });
	ilog_buf_put(&b, "", 1);
	is_str(b.p, "[\"python3\",\"train.py\",\"--a b\"]", "json: argv, the last NUL ends the last argument");
	b.len = 0;
	ilog_json_argv(&b, (struct ilog_bin){ (const uint8_t *)"", 0 });
	ilog_buf_put(&b, "", 1);
	is_str(b.p, "[]", "json: empty argv");
	ilog_buf_free(&b);
}

/* Perfetto's view of a track: slices sorted by start, ties in written
 * order; a slice must nest in or follow the ones before it.  Returns the
 * number of violations of the rule lib/export/util.c keeps. */
static int pairs_bad(const uint64_t *s, const uint64_t *e, int n)
{
	int bad = 0;
	for (int j = 0; j < n; j++)
		for (int i = 0; i < j; i++) {
			/* i written before j */
			int ok = s[j] >= e[i] || e[j] < s[i] || (s[i] <= s[j] && e[j] < e[i]) ||
				 (s[j] < s[i] && e[i] <= e[j]);
			bad += !ok;
		}
	return bad;
}

static void test_nesting(void)
{
	struct ilog_tracks t = { 0 };
	int isnew;
	struct check c;
	uint64_t s[60], e[60];
	/* calls as a thread makes them: children return (are written) before
	 * their parents, siblings in order; nothing may be clipped */
	int tr = ilog_tracks_thread(&t, 0, 1, 1, &isnew);
	int clipped = 0;
	uint64_t now = 1000;
	for (int k = 0; k < 2000; k++) {
		uint64_t ps = now, cs = ps + 10 + t_rnd() % 50, ce = cs + 1 + t_rnd() % 100;
		uint64_t pe = ce + 1 + t_rnd() % 30;
		clipped += ilog_tracks_fit(&t, tr, cs, ce) != ce;
		clipped += ilog_tracks_fit(&t, tr, ps, pe) != pe;
		now = pe + t_rnd() % 20;
	}
	is_u64(clipped, 0, "nesting: calls that nest (child written first) are never clipped");
	/* a long preemption, then 200 short calls inside it, the last one
	 * crossing its end: only that one is clipped, to end inside */
	tr = ilog_tracks_thread(&t, 0, 1, 2, &isnew);
	ilog_tracks_fit(&t, tr, 100000, 200000);
	clipped = 0;
	uint64_t last = 0;
	for (int k = 0; k < 200; k++) {
		uint64_t cs = 100010 + (uint64_t)k * 500, ce = cs + (k == 199 ? 5000 : 300);
		last = ilog_tracks_fit(&t, tr, cs, ce);
		clipped += last != ce;
	}
	ok(clipped == 1 && last == 199999,
	   "nesting: a long slice is remembered past %d later ones (clipped %d, end %" PRIu64 ")",
	   ILOG_NEST_RECENT, clipped, last);
	/* random slices: whatever the overlaps, the fitted ones nest */
	check_begin(&c);
	for (int round = 0; round < 300; round++) {
		tr = ilog_tracks_thread(&t, 1, 1, (uint32_t)round + 10, &isnew);
		int n = 10 + (int)(t_rnd() % 50);
		for (int i = 0; i < n; i++) {
			s[i] = t_rnd() % 1000;
			uint64_t want = s[i] + t_rnd() % 300;
			e[i] = ilog_tracks_fit(&t, tr, s[i], want);
			if (e[i] < s[i] || e[i] > want)
				check_fail(&c, "round %d: slice %d fitted outside [start, end]", round, i);
		}
		int bad = pairs_bad(s, e, n);
		if (bad)
			check_fail(&c, "round %d: %d pairs do not nest", round, bad);
	}
	check_end(&c, "nesting: 300 rounds of random overlapping slices all nest once fitted");
	ilog_tracks_free(&t);
}

int main(void)
{
	test_u64map();
	test_json();
	test_nesting();
	return done_testing();
}
