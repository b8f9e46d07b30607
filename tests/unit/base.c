// SPDX-License-Identifier: MIT
/* lib/base/: the hash map, the string pool, growing arrays, the hash
 * functions, the JSON string escaper, hex, write_all, the latency
 * histogram. */
#include <errno.h>
#include <fcntl.h>
#include <unistd.h>
#include "test.h"
#include "ingero/buf.h"
#include "ingero/hash.h"
#include "ingero/hist.h"
#include "ingero/hmap.h"
#include "ingero/io.h"
#include "ingero/vec.h"

static void test_hmap_u64(void)
{
	struct ilog_hmap m = { 0 };
	struct check c;
	enum { N = 100000 };
	uint64_t *keys = malloc(N * sizeof(*keys));
	check_begin(&c);
	for (int i = 0; i < N; i++) {
		keys[i] = t_rnd() | 1;
		uint64_t *v = ilog_hmap_put(&m, keys[i], 0);
		if (!v)
			check_fail(&c, "put %d failed", i);
		else
			*v = (uint64_t)i + 7;
	}
	for (int i = 0; i < N; i++) {
		uint64_t *v = ilog_hmap_get(&m, keys[i], 0);
		if (!v || *v != (uint64_t)i + 7)
			check_fail(&c, "key %d: %s", i, v ? "wrong value" : "missing");
	}
	for (int i = 0; i < 1000; i++)
		if (ilog_hmap_get(&m, (t_rnd() & ~1ull) | 2, 0))
			check_fail(&c, "an absent (even) key found");
	check_end(&c, "hmap: 100000 keys put and found, absent keys absent");
	is_u64(m.n, N, "hmap counts its keys");
	uint64_t *v = ilog_hmap_put(&m, keys[5], 0);
	ok(v && *v == 12 && m.n == N, "hmap: putting a present key keeps its value");
	ilog_hmap_free(&m);
	ok(!ilog_hmap_get(&m, keys[0], 0), "hmap: empty after free");
	free(keys);
}

/* Keys of two words, zero and near-reserved ones included. */
static void test_hmap_pairs(void)
{
	struct ilog_hmap m = { 0 };
	struct check c;
	check_begin(&c);
	for (uint64_t a = 0; a < 300; a++)
		for (uint64_t b = 0; b < 300; b++)
			if (ilog_hmap_set(&m, a, b, a * 1000 + b))
				check_fail(&c, "set (%llu, %llu) failed", (unsigned long long)a, (unsigned long long)b);
	for (uint64_t a = 0; a < 300; a++)
		for (uint64_t b = 0; b < 300; b++) {
			uint64_t *v = ilog_hmap_get(&m, a, b);
			if (!v || *v != a * 1000 + b)
				check_fail(&c, "(%llu, %llu) lost", (unsigned long long)a, (unsigned long long)b);
		}
	check_end(&c, "hmap: 90000 two-word keys, (0, 0) among them, found again");
	ok(!ilog_hmap_get(&m, 300, 0) && !ilog_hmap_get(&m, 0, 300), "hmap: neighbours of the keys absent");
	ok(!ilog_hmap_set(&m, UINT64_MAX, 0, 1) && !ilog_hmap_set(&m, 0, UINT64_MAX, 2) &&
	   ilog_hmap_get(&m, UINT64_MAX, 0) && ilog_hmap_get(&m, 0, UINT64_MAX) && m.n == 90002,
	   "hmap: keys with one word all ones are ordinary keys");
	ok(m.n * 10 <= m.cap * 7, "hmap: at most 70%% full (%zu of %zu)", m.n, m.cap);
	ilog_hmap_free(&m);
}

static void test_strpool(void)
{
	struct ilog_strpool p = { 0 };
	char tmp[64];
	struct check c;
	check_begin(&c);
	const char *first[5000];
	for (int i = 0; i < 5000; i++) {
		int n = snprintf(tmp, sizeof(tmp), "name-%d", i);
		first[i] = ilog_strpool_intern(&p, tmp, (size_t)n);
		if (!first[i] || strcmp(first[i], tmp))
			check_fail(&c, "intern %d", i);
	}
	for (int i = 0; i < 5000; i++) {
		int n = snprintf(tmp, sizeof(tmp), "name-%d", i);
		if (ilog_strpool_intern(&p, tmp, (size_t)n) != first[i])
			check_fail(&c, "second intern of %d gave another copy", i);
		if (ilog_strpool_find(&p, tmp, (size_t)n) != i)
			check_fail(&c, "index of %d", i);
	}
	check_end(&c, "strpool: 5000 names interned once, in order, pointers stable");
	ok(!strcmp(ilog_strpool_intern(&p, "", 0), "") && p.nstrs == 5000, "strpool: \"\" is not added by intern");
	ok(ilog_strpool_add(&p, "", 0) == 5000 && ilog_strpool_add(&p, "", 0) == 5000, "strpool: add takes \"\" once");
	ok(ilog_strpool_find(&p, "name-1", 5) < 0, "strpool: a prefix of a name is not the name");
	ilog_strpool_free(&p);
}

static void test_reserve(void)
{
	uint32_t *v = NULL, cap = 0;
	ok(!ilog_reserve((void **)&v, &cap, 1, sizeof(*v), 16) && cap == 16, "reserve: first room is `first`");
	ok(!ilog_grow((void **)&v, &cap, 16, sizeof(*v), 16) && cap == 32, "grow: element 16 doubles 16 to 32");
	ok(!ilog_reserve((void **)&v, &cap, 1000, sizeof(*v), 16) && cap == 1024, "reserve: doubles until it fits");
	free(v);
	v = NULL;
	cap = 0;
	ok(!ilog_reserve0((void **)&v, &cap, 3, sizeof(*v), 4) && cap == 4 && !v[0] && !v[3], "reserve0: zeroed");
	v[3] = 9;
	ok(!ilog_reserve0((void **)&v, &cap, 5, sizeof(*v), 4) && cap == 8 && v[3] == 9 && !v[4] && !v[7],
	   "reserve0: old elements kept, new ones zeroed");
	free(v);
}

/* Published FNV-1a 64 vectors, and the finalizer's known value. */
static void test_hash(void)
{
	is_u64(ilog_fnv1a(ILOG_FNV64_INIT, "", 0), 0xcbf29ce484222325ull, "fnv1a: empty");
	is_u64(ilog_fnv1a(ILOG_FNV64_INIT, "a", 1), 0xaf63dc4c8601ec8cull, "fnv1a: \"a\"");
	is_u64(ilog_fnv1a(ILOG_FNV64_INIT, "foobar", 6), 0x85944171f73967e8ull, "fnv1a: \"foobar\"");
	uint64_t v = 0x0807060504030201ull;
	is_u64(ilog_fnv1a_u64(ILOG_FNV64_INIT, v), ilog_fnv1a(ILOG_FNV64_INIT, "\1\2\3\4\5\6\7\10", 8),
	       "fnv1a_u64: the word's bytes, least significant first");
	is_u64(ilog_mix64(0), 0, "mix64: 0 stays 0 (splitmix64's finalizer)");
	is_u64(ilog_mix64(1), 0x5692161d100b05e5ull, "mix64: 1");
	ok(ilog_strhash("abcdefghij", 10) != ilog_strhash("abcdefghik", 10), "strhash: the tail counts");
}

static void test_hex_io(void)
{
	char out[9];
	ilog_hex(out, "\x01\xab\xff\x00", 4);
	is_str(out, "01abff00", "hex: lowercase, NUL-terminated");
	char path[] = "/tmp/ingero-unit-base.XXXXXX";
	int fd = mkstemp(path);
	static char big[1 << 20];
	for (size_t i = 0; i < sizeof(big); i++)
		big[i] = (char)(i * 7);
	ok(fd >= 0 && !ilog_write_all(fd, big, sizeof(big)) && lseek(fd, 0, SEEK_END) == (off_t)sizeof(big),
	   "write_all: 1 MiB written whole");
	if (fd >= 0)
		close(fd);
	unlink(path);
	ok(ilog_write_all(-1, "x", 1) == -1 && errno == EBADF, "write_all: a bad fd fails with errno");
	struct ilog_buf b = { 0 };
	ok(!ilog_buf_printf(&b, "%0600d", 5) && b.len == 600 && b.p[599] == '5', "buf_printf: past its stack buffer");
	ilog_buf_free(&b);
}

static const char *json(const char *s, size_t n)
{
	static struct ilog_buf b;
	b.len = 0;
	ilog_json_str(&b, s, n);
	ilog_buf_put(&b, "", 1);
	return b.p;
}

static void test_json_str(void)
{
	is_str(json("plain", 5), "\"plain\"", "json: plain text as is");
	is_str(json("a\"b\\c", 5), "\"a\\\"b\\\\c\"", "json: quote and backslash escaped");
	is_str(json("t\tn\nx\x01", 6), "\"t\\tn\\nx\\u0001\"", "json: control characters escaped");
	is_str(json("caf\xc3\xa9 \xe2\x82\xac \xf0\x9f\x9a\x80", 14), "\"caf\xc3\xa9 \xe2\x82\xac \xf0\x9f\x9a\x80\"",
	       "json: valid UTF-8 (2, 3, 4 bytes) passes");
	is_str(json("a\xff" "b\xc3", 4), "\"a\\ufffdb\\ufffd\"", "json: invalid and cut UTF-8 become U+FFFD");
	is_str(json("\xed\xa0\x80", 3), "\"\\ufffd\\ufffd\\ufffd\"", "json: an encoded surrogate is not UTF-8");
	is_str(json("x\0y", 3), "\"x\\u0000y\"", "json: NUL inside a string escaped");
	is_str(json("r\r", 2), "\"r\\r\"", "json: carriage return as \\r, as every writer does");
	is_str(json("\x7f", 1), "\"\x7f\"", "json: DEL passes (not a JSON control)");
}

static void test_hist(void)
{
	static uint32_t h[ILOG_HIST_NB];
	struct check c;
	check_begin(&c);
	/* every duration reads back within 1/32 from its bucket's middle */
	for (int i = 0; i < 200000; i++) {
		uint64_t v = t_rnd() >> (2 + t_rnd() % 62); /* v + v / 32 fits */
		uint32_t b = ilog_hist_bucket(v);
		uint64_t m = ilog_hist_value(b);
		if (b >= ILOG_HIST_NB || (v >= 16 && (m > v + v / 32 || m + v / 32 < v)) ||
		    (v < 16 && m != v))
			check_fail(&c, "%llu: bucket %u reads %llu", (unsigned long long)v, b,
				   (unsigned long long)m);
		if (b && ilog_hist_bucket(v - 1) > b)
			check_fail(&c, "%llu: buckets not in order", (unsigned long long)v);
	}
	check_end(&c, "hist: every duration within 1/32 of its bucket's middle, buckets in order");
	/* nearest rank: 99 calls of 1 ms and one of 100 ms: p99 is 1 ms,
	 * p99 of 98 + 2 is 100 ms */
	h[ilog_hist_bucket(1000000)] = 99;
	h[ilog_hist_bucket(100000000)] = 1;
	uint64_t q = ilog_hist_quantile(h, 100, 0.99);
	ok(q > 968000 && q < 1032000, "hist: p99 of 99 x 1 ms, 1 x 100 ms is 1 ms (%llu)",
	   (unsigned long long)q);
	h[ilog_hist_bucket(1000000)] = 98;
	h[ilog_hist_bucket(100000000)] = 2;
	q = ilog_hist_quantile(h, 100, 0.99);
	ok(q > 96800000 && q < 103200000, "hist: p99 of 98 x 1 ms, 2 x 100 ms is 100 ms (%llu)",
	   (unsigned long long)q);
	is_u64(ilog_hist_quantile(h, 0, 0.99), 0, "hist: no calls, 0");
	is_u64(ilog_hist_rank(0.99, 100), 99, "hist: the rank of p99 of 100 is 99, not 100");
}

int main(void)
{
	test_hist();
	test_hmap_u64();
	test_hmap_pairs();
	test_strpool();
	test_reserve();
	test_hash();
	test_hex_io();
	test_json_str();
	return done_testing();
}
