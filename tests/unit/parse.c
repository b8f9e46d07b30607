// SPDX-License-Identifier: MIT
/* lib/codec/parse.c: durations, sizes, wall times and name lists as users type them. */
#include "ingero/ilog.h"
#include "test.h"

#define NS 1ull
#define US 1000ull
#define MS 1000000ull
#define SEC 1000000000ull
#define MIN (60 * SEC)
#define HOUR (60 * MIN)
#define KIB 1024ull
#define MIB (1024 * KIB)
#define GIB (1024 * MIB)
#define TIB (1024 * GIB)

struct good { const char *in; uint64_t want; };

static void durations(void)
{
	static const struct good good[] = {
		{ "5m", 5 * MIN }, { "1h30m", HOUR + 30 * MIN }, { "250ms", 250 * MS },
		{ "1.5s", 1500 * MS }, { "10", 10 * SEC }, { "0", 0 }, { "0s", 0 },
		{ "500m", 500 * MIN }, { "1ns", 1 }, { "7us", 7 * US }, { "2d", 48 * HOUR },
		{ "1h1m1s1ms1us1ns", HOUR + MIN + SEC + MS + US + NS }, { ".5s", 500 * MS },
		{ "0.000000001s", 1 }, { "90s", 90 * SEC }, { "1m30s", 90 * SEC },
		{ "2h", 2 * HOUR }, { "100000h", 100000 * HOUR },
		/* above 2^63 ns (llround's limit), exact in a double */
		{ "10000000000s", 10000000000 * SEC },
	};
	static const char *const bad[] = {
		"", "s", "m5", "-5s", "+5s", "5x", "5 s", " 5s", "5s ", "1h30", "1.5.5s", ".",
		"5sm", "inf", "nan", "1e400s", "18446744074s", "99999999999999999999", "5M",
		"1,5s", "0x", "5mm",
	};
	for (size_t i = 0; i < sizeof(good) / sizeof(good[0]); i++) {
		uint64_t v = 12345;
		int rc = ilog_parse_duration(good[i].in, &v);
		ok(rc == 0 && v == good[i].want, "duration '%s' = %llu ns", good[i].in,
		   (unsigned long long)good[i].want);
		if (rc || v != good[i].want)
			diag("rc %d, got %llu", rc, (unsigned long long)v);
	}
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		uint64_t v = 12345;
		int rc = ilog_parse_duration(bad[i], &v);
		ok(rc == -1 && v == 12345, "duration '%s' is an error, result untouched", bad[i]);
	}
	uint64_t v;
	ok(ilog_parse_duration(NULL, &v) == -1, "duration NULL is an error");
}

static void sizes(void)
{
	static const struct good good[] = {
		{ "500m", 500 * MIB }, { "10g", 10 * GIB }, { "4k", 4 * KIB }, { "1.5GiB", 3 * GIB / 2 },
		{ "123", 123 }, { "0", 0 }, { "1b", 1 }, { "1B", 1 }, { "2K", 2 * KIB },
		{ "2kb", 2 * KIB }, { "2KB", 2 * KIB }, { "2KiB", 2 * KIB }, { "3M", 3 * MIB },
		{ "3mb", 3 * MIB }, { "3MB", 3 * MIB }, { "3MiB", 3 * MIB }, { "1G", GIB },
		{ "1gb", GIB }, { "1GB", GIB }, { "2t", 2 * TIB }, { "2T", 2 * TIB }, { "2TB", 2 * TIB },
		{ "2TiB", 2 * TIB }, { "2tb", 2 * TIB }, { "0.5k", 512 }, { "16777215t", 16777215 * TIB },
	};
	static const char *const bad[] = {
		"", "k", "-1", "-1k", "10x", "10 GB", "10GBs", "10gib", "1.5.5k", "inf", "nan",
		"16777216t", "1e30", "99999999999999999999999", "10g ", " 10g", "1,5g",
	};
	for (size_t i = 0; i < sizeof(good) / sizeof(good[0]); i++) {
		uint64_t v = 12345;
		int rc = ilog_parse_size(good[i].in, &v);
		ok(rc == 0 && v == good[i].want, "size '%s' = %llu bytes", good[i].in,
		   (unsigned long long)good[i].want);
		if (rc || v != good[i].want)
			diag("rc %d, got %llu", rc, (unsigned long long)v);
	}
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		uint64_t v = 12345;
		int rc = ilog_parse_size(bad[i], &v);
		ok(rc == -1 && v == 12345, "size '%s' is an error, result untouched", bad[i]);
	}
	uint64_t v;
	ok(ilog_parse_size(NULL, &v) == -1, "size NULL is an error");
}

static void walltimes(void)
{
	/* date -u -d 2026-11-22T16:20:00Z +%s = 1795364400 */
	const uint64_t t0 = 1795364400ull * SEC;
	const struct good good[] = {
		{ "2026-11-22T16:20:00Z", t0 },
		{ "2026-11-22t16:20:00z", t0 },
		{ "2026-11-22 16:20:00Z", t0 },
		{ "2026-11-22T16:20Z", t0 },
		{ "2026-11-22T16:20", t0 },             /* no offset: UTC */
		{ "2026-11-22T18:20:00+02:00", t0 },
		{ "2026-11-22T10:50:00-05:30", t0 },
		{ "2026-11-22T16:20:00.5Z", t0 + 500 * MS },
		{ "2026-11-22T16:20:00.123456789Z", t0 + 123456789 },
		{ "2026-11-22T16:20:00.1234567891Z", t0 + 123456789 }, /* past ns: dropped */
		{ "2026-11-22", 1795305600ull * SEC },   /* midnight UTC */
		{ "1970-01-01T00:00:00Z", 0 },
		{ "2024-02-29T00:00:00Z", 1709164800ull * SEC },
		{ "@1795364400", t0 },
		{ "@1795364400.25", t0 + 250 * MS },
		{ "@0", 0 },
		{ "@.5", 500 * MS },
		{ "@18446744073.709551615", UINT64_MAX },
	};
	static const char *const bad[] = {
		"", "@", "@-5", "@x", "@5.", "@.", "@18446744073.709551616", "@99999999999999999999", "@1795364400x", "@1e30", "yesterday", "2026-11-22T",
		"2026-13-01", "2026-00-10", "2026-11-00", "2026-11-32", "2026-02-30", "2025-02-29",
		"2026-04-31", "2026-11-22T24:00:00Z", "2026-11-22T16:60:00Z", "2026-11-22T16:20:61Z",
		"2026-11-22T16:20:00+0200", "2026-11-22T16:20:00+02", "2026-11-22T16:20:00.Z",
		"2026-11-22T16:20:00ZZ", "26-11-22", "2026/11/22", "1969-12-31T23:59:59Z",
		"2026-11-22T16:20:00 Z", "2026-11-2", "2026-11-22T1:20",
	};
	for (size_t i = 0; i < sizeof(good) / sizeof(good[0]); i++) {
		uint64_t v = 12345;
		int rc = ilog_parse_walltime(good[i].in, &v);
		ok(rc == 0 && v == good[i].want, "walltime '%s' = %llu ns", good[i].in,
		   (unsigned long long)good[i].want);
		if (rc || v != good[i].want)
			diag("rc %d, got %llu", rc, (unsigned long long)v);
	}
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		uint64_t v = 12345;
		int rc = ilog_parse_walltime(bad[i], &v);
		ok(rc == -1 && v == 12345, "walltime '%s' is an error, result untouched", bad[i]);
		if (rc != -1)
			diag("got %llu", (unsigned long long)v);
	}
	uint64_t v;
	ok(ilog_parse_walltime(NULL, &v) == -1, "walltime NULL is an error");
}

static void lists(void)
{
	uint64_t m = 0;
	char bad[64] = "";
	ok(ilog_parse_list("cuda,host", ilog_kind_from_name, &m, bad, sizeof(bad)) == 0 &&
	   m == ((1ull << ILOG_K_CUDA) | (1ull << ILOG_K_HOST)), "list 'cuda,host' sets two bits");
	ok(ilog_parse_list("cuda", ilog_kind_from_name, &m, bad, sizeof(bad)) == 0 &&
	   m == 1ull << ILOG_K_CUDA, "list 'cuda'");
	ok(ilog_parse_list("cuda,cuda,stack", ilog_kind_from_name, &m, bad, sizeof(bad)) == 0 &&
	   m == ((1ull << ILOG_K_CUDA) | (1ull << ILOG_K_STACK)), "list with a repeat");
	ok(ilog_parse_list("", ilog_kind_from_name, &m, bad, sizeof(bad)) == 0 && m == 0,
	   "empty list: no bits");
	ok(ilog_parse_list("cuda,nope", ilog_kind_from_name, &m, bad, sizeof(bad)) == -1 &&
	   !strcmp(bad, "nope"), "unknown name: error naming it");
	ok(ilog_parse_list("cuda,,host", ilog_kind_from_name, &m, bad, sizeof(bad)) == -1,
	   "an empty item is an error");
	ok(ilog_parse_list(",cuda", ilog_kind_from_name, &m, bad, sizeof(bad)) == -1,
	   "a leading comma is an error");
	ok(ilog_parse_list("cuda,", ilog_kind_from_name, &m, bad, sizeof(bad)) == 0 &&
	   m == 1ull << ILOG_K_CUDA, "a trailing comma is tolerated");
	ok(ilog_parse_list("Cuda", ilog_kind_from_name, &m, bad, sizeof(bad)) == -1,
	   "names are case-sensitive");
	char longname[300];
	memset(longname, 'a', sizeof(longname) - 1);
	longname[sizeof(longname) - 1] = 0;
	ok(ilog_parse_list(longname, ilog_kind_from_name, &m, bad, sizeof(bad)) == -1 &&
	   strlen(bad) < sizeof(bad), "a 299-character name is an error, reported truncated");
	ok(ilog_parse_list("cudaLaunchKernel,ncclAllReduce", ilog_op_from_name, &m, bad,
			   sizeof(bad)) == 0 &&
	   m == ((1ull << ILOG_OP_cudaLaunchKernel) | (1ull << ILOG_OP_ncclAllReduce)),
	   "op names through ilog_op_from_name");
}

/* Containers from cgroup paths: both cgroup drivers, several runtimes. */
static void test_cgroup(void)
{
	static const struct { const char *path, *pod, *ctr; } t[] = {
		{ "/kubepods.slice/kubepods-burstable.slice/kubepods-burstable-pod0f3c1a52_6b1e_4d2a_"
		  "9c41_7e5b2d8a9f10.slice/cri-containerd-4c2d1e0f9a8b7c6d5e4f3a2b1c0d9e8f7a6b5c4d3e2f"
		  "1a0b9c8d7e6f5a4b3c2d.scope",
		  "0f3c1a52-6b1e-4d2a-9c41-7e5b2d8a9f10",
		  "4c2d1e0f9a8b7c6d5e4f3a2b1c0d9e8f7a6b5c4d3e2f1a0b9c8d7e6f5a4b3c2d" },
		{ "/kubepods/besteffort/pod6e1b2c3d-0000-4a4a-8b8b-123456789abc/"
		  "0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef",
		  "6e1b2c3d-0000-4a4a-8b8b-123456789abc",
		  "0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef" },
		{ "/system.slice/docker-aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa.scope",
		  "", "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa" },
		{ "/machine.slice/libpod-bbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbb.scope/container",
		  "", "bbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbb" },
		{ "/kubepods.slice/kubepods-pod11111111_2222_3333_4444_555555555555.slice/"
		  "crio-cccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccc.scope",
		  "11111111-2222-3333-4444-555555555555",
		  "cccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccc" },
		{ "/user.slice/user-1000.slice/session-3.scope", "", "" },
		{ "/", "", "" },
		{ "", "", "" },
		/* 63 hex digits, an upper-case digit, a pod without a UUID: none */
		{ "/docker/0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcde", "", "" },
		{ "/docker/0123456789ABCDEF0123456789abcdef0123456789abcdef0123456789abcdef", "", "" },
		{ "/kubepods/podnotauuid/x", "", "" },
	};
	for (size_t i = 0; i < sizeof(t) / sizeof(t[0]); i++) {
		char pod[37], ctr[65];
		ilog_cgroup_parse(t[i].path, pod, ctr);
		ok(!strcmp(pod, t[i].pod) && !strcmp(ctr, t[i].ctr), "cgroup '%s': pod '%s' container '%s'",
		   t[i].path, pod, ctr);
	}
}

int main(void)
{
	durations();
	sizes();
	walltimes();
	lists();
	test_cgroup();
	return done_testing();
}
