// SPDX-License-Identifier: MIT
/*
 * lib/analyze/stats.c and lib/analyze/causal.c against exact computations: histogram
 * resolution, nearest-rank quantiles over random mixtures (whole run and
 * per window), window merging, input order, counts and sums, and the
 * engine's decisions on small hand-built logs.
 */
#include <math.h>
#include "test.h"
#include "ingero/causal.h"
#include "stats_int.h"

/* lib/analyze/causal_int.h (its inline helpers clash with this file's) */
int causal_grade(uint64_t lost, uint64_t wall, uint64_t span, uint64_t floor);

static uint64_t rs = 88172645463325252ull;
static uint64_t rnd(void)
{
	rs ^= rs << 13;
	rs ^= rs >> 7;
	rs ^= rs << 17;
	return rs;
}
static double u01(void) { return (double)(rnd() >> 11) / 9007199254740992.0; }

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
	return x < y ? -1 : x > y;
}

/* The exact nearest-rank quantile: the ceil(q*n)-th smallest. */
static uint64_t exact_q(const uint64_t *sorted, uint64_t n, double q)
{
	uint64_t r = (uint64_t)ceil(q * (double)n - 1e-9);
	return sorted[(r ? r : 1) - 1];
}

static struct ilog_record cuda_rec(uint64_t ts, uint64_t dur, uint32_t pid, uint16_t op)
{
	struct ilog_record r = { .kind = ILOG_K_CUDA };
	r.u.cuda.ts_ns = ts;
	r.u.cuda.dur_ns = dur;
	r.u.cuda.pid = pid;
	r.u.cuda.tid = pid;
	r.u.cuda.op = op;
	r.u.cuda.layer = (uint8_t)ilog_op_layer(op);
	return r;
}

static void header(struct ilog_stats *st, uint64_t mono)
{
	struct ilog_record h = { .kind = ILOG_K_HEADER };
	h.u.header.mono_ns = mono;
	h.u.header.real_ns = 1795000000000000000ull;
	h.u.header.node = ILOG_STR("n");
	ilog_stats_add(st, &h, NULL);
}

/* A mixture: mostly log-normal around 2 ms, a slow tail, some tiny values. */
static uint64_t sample(void)
{
	double x = u01();
	if (x < 0.05)
		return 1 + rnd() % 200;
	double z = (u01() + u01() + u01() + u01() - 2) * 1.7;
	double v = 2e6 * exp(0.4 * z);
	if (x > 0.97)
		v *= 10 + 20 * u01();
	return (uint64_t)v;
}

static void test_buckets(void)
{
	struct check c;
	check_begin(&c);
	for (int i = 0; i < 2000000; i++) {
		uint64_t v = rnd() >> (rnd() % 64);
		if (v >> (HB_MAX_EXP + 1))
			continue;
		uint32_t b = hb_index(v);
		uint64_t lo = ilog_hb_lower(b), rep = ilog_hb_rep(b);
		if (b >= HB_N || v < lo || (b + 1 < HB_N && v >= ilog_hb_lower(b + 1)))
			check_fail(&c, "value %llu not in bucket %u", (unsigned long long)v, b);
		else if (v < HB_SUB ? rep != v : fabs((double)rep - (double)v) > (double)v / 256)
			check_fail(&c, "value %llu: representative %llu beyond 1/256", (unsigned long long)v,
				   (unsigned long long)rep);
	}
	check_end(&c, "every value lies in its bucket; representatives within 0.39%% (exact below 128)");
	is_u64(ilog_rank(0.99, 1000), 990, "nearest rank of p99 over 1000 is 990");
	is_u64(ilog_rank(0.5, 7), 4, "nearest rank of p50 over 7 is 4");
	is_u64(ilog_rank(0.99, 1), 1, "a single value is every quantile");
}

static void test_quantiles(void)
{
	enum { N = 200000 };
	static uint64_t v[N], w[N];
	struct ilog_stats *st = ilog_stats_new(NULL);
	header(st, 1000000000000ull);
	uint64_t ts = 1000000000000ull, total = 0;
	for (int i = 0; i < N; i++) {
		v[i] = sample();
		total += v[i];
		struct ilog_record r = cuda_rec(ts, v[i], 100, ILOG_OP_cudaStreamSynchronize);
		ilog_stats_add(st, &r, NULL);
		ts += 30000 + rnd() % 20000;
	}
	ok(!ilog_stats_finish(st), "finish");
	struct ilog_stat_row *rows;
	int n = ilog_stats_rows(st, 0, &rows);
	is_u64((uint64_t)n, 1, "one op, one row");
	memcpy(w, v, sizeof(v));
	qsort(w, N, sizeof(*w), cmp_u64);
	is_u64(rows[0].count, N, "count exact");
	is_u64(rows[0].total_ns, total, "total exact");
	is_u64(rows[0].min_ns, w[0], "min exact");
	is_u64(rows[0].max_ns, w[N - 1], "max exact");
	double q[3] = { 0.5, 0.95, 0.99 };
	uint64_t got[3] = { rows[0].p50_ns, rows[0].p95_ns, rows[0].p99_ns };
	for (int i = 0; i < 3; i++) {
		uint64_t e = exact_q(w, N, q[i]);
		ok(fabs((double)got[i] - (double)e) <= (double)e / 256 + 0.5,
		   "p%.0f %llu within 0.39%% of exact %llu", q[i] * 100, (unsigned long long)got[i],
		   (unsigned long long)e);
	}
	free(rows);

	/* per window: the same bound against the exact values of each window */
	n = ilog_stats_window_rows(st, 0, &rows);
	struct ilog_stats_summary sm;
	ilog_stats_summary(st, 0, &sm);
	ok(sm.nwindows >= 128 && sm.nwindows < 256, "adaptive windows: %llu in [128, 256)",
	   (unsigned long long)sm.nwindows);
	uint64_t sum = 0, tot = 0;
	for (int r = 0; r < n; r++)
		sum += rows[r].count, tot += rows[r].total_ns;
	is_u64(sum, N, "window counts add up to the whole run");
	is_u64(tot, total, "window totals add up to the whole run");
	free(rows);
	ilog_stats_free(st);
}

/* Windows: exact per-window p99 against a fixed window width. */
static void test_windows_exact(void)
{
	enum { N = 60000 };
	static uint64_t d[N], t[N];
	struct ilog_stats_opts o = { .window_ns = 100000000ull }; /* 100 ms */
	struct ilog_stats *st = ilog_stats_new(&o);
	uint64_t t0 = 5000000000ull, ts = t0;
	header(st, t0);
	for (int i = 0; i < N; i++) {
		d[i] = sample();
		t[i] = ts;
		ts += 50000 + rnd() % 50000;
	}
	/* feed in a shuffled order: windows must not depend on arrival order */
	static int idx[N];
	for (int i = 0; i < N; i++)
		idx[i] = i;
	for (int i = N - 1; i > 0; i--) {
		int k = (int)(rnd() % (uint64_t)(i + 1)), x = idx[i];
		idx[i] = idx[k];
		idx[k] = x;
	}
	for (int i = 0; i < N; i++) {
		struct ilog_record r = cuda_rec(t[idx[i]], d[idx[i]], 7, ILOG_OP_cudaLaunchKernel);
		ilog_stats_add(st, &r, NULL);
	}
	ilog_stats_finish(st);
	struct ilog_stat_row *rows;
	int n = ilog_stats_window_rows(st, 0, &rows);
	struct check c;
	check_begin(&c);
	static uint64_t w[N];
	for (int r = 0; r < n; r++) {
		uint64_t m = 0;
		for (int i = 0; i < N; i++)
			if (t[i] >= rows[r].start_ns && t[i] < rows[r].end_ns)
				w[m++] = d[i];
		qsort(w, m, sizeof(*w), cmp_u64);
		if (m != rows[r].count) {
			check_fail(&c, "window %d: count %llu, want %llu", r,
				   (unsigned long long)rows[r].count, (unsigned long long)m);
			continue;
		}
		uint64_t e = exact_q(w, m, 0.99), e50 = exact_q(w, m, 0.5);
		if (fabs((double)rows[r].p99_ns - (double)e) > (double)e / 256 + 0.5 ||
		    fabs((double)rows[r].p50_ns - (double)e50) > (double)e50 / 256 + 0.5 ||
		    rows[r].max_ns != w[m - 1])
			check_fail(&c, "window %d: p50 %llu/%llu p99 %llu/%llu", r,
				   (unsigned long long)rows[r].p50_ns, (unsigned long long)e50,
				   (unsigned long long)rows[r].p99_ns, (unsigned long long)e);
	}
	check_end(&c, "%d shuffled windows of 100 ms: counts and max exact, p50/p99 within 0.39%%", n);
	ok(n >= 20, "the fixed width makes %d windows", n);
	free(rows);
	ilog_stats_free(st);
}

/* Merging windows as the run grows loses nothing: the whole-run answer is
 * the same as with one fixed window covering everything. */
static void test_merge(void)
{
	struct ilog_stats_opts big = { .window_ns = 1ull << 62 };
	struct ilog_stats *a = ilog_stats_new(NULL), *b = ilog_stats_new(&big);
	header(a, 1000);
	header(b, 1000);
	uint64_t ts = 1000;
	for (int i = 0; i < 300000; i++) {
		uint64_t d = sample();
		struct ilog_record r = cuda_rec(ts, d, 9, ILOG_OP_cudaMemcpyAsync);
		ilog_stats_add(a, &r, NULL);
		ilog_stats_add(b, &r, NULL);
		ts += 1000000 + rnd() % 3000000; /* ~10 minutes in all: many merges */
	}
	ilog_stats_finish(a);
	ilog_stats_finish(b);
	struct ilog_stat_row *ra, *rb;
	ilog_stats_rows(a, 0, &ra);
	ilog_stats_rows(b, 0, &rb);
	ok(ra[0].count == rb[0].count && ra[0].total_ns == rb[0].total_ns &&
	   ra[0].p50_ns == rb[0].p50_ns && ra[0].p95_ns == rb[0].p95_ns &&
	   ra[0].p99_ns == rb[0].p99_ns && ra[0].max_ns == rb[0].max_ns,
	   "adaptive windows (merged many times) give the whole-run answer of one window");
	struct ilog_stats_summary s;
	ilog_stats_summary(a, 0, &s);
	ok(s.nwindows < 256 && s.window_ns >= (1ull << 20), "windows stay bounded: %llu of %llu ns",
	   (unsigned long long)s.nwindows, (unsigned long long)s.window_ns);
	free(ra);
	free(rb);
	ilog_stats_free(a);
	ilog_stats_free(b);
}

static void host(struct ilog_stats *st, uint16_t type, uint64_t ts, uint64_t dur, uint32_t pid,
		 uint32_t opid, const char *ocomm, uint64_t value)
{
	struct ilog_record r = { .kind = ILOG_K_HOST };
	r.u.host.ts_ns = ts;
	r.u.host.dur_ns = dur;
	r.u.host.pid = r.u.host.tid = pid;
	r.u.host.other_pid = r.u.host.other_tid = opid;
	r.u.host.type = type;
	r.u.host.value = value;
	snprintf(r.u.host.other_comm, sizeof(r.u.host.other_comm), "%s", ocomm);
	ilog_stats_add(st, &r, NULL);
}

/*
 * A sync-bound loop; in [4 s, 7 s) either a preempter steals the CPU
 * (host), or the GPU work is 3x longer with the host idle.
 */
static void run_engine(int cpu, struct ilog_chain_set *cs, struct ilog_stats **out)
{
	struct ilog_stats *st = ilog_stats_new(NULL);
	uint64_t t0 = 1000000000000ull, ts = t0 + 1000000;
	header(st, t0);
	while (ts < t0 + 10000000000ull) {
		int bad = ts >= t0 + 4000000000ull && ts < t0 + 7000000000ull;
		uint64_t d = 2000000 + rnd() % 60000, off = 0;
		if (bad && cpu && u01() < 0.6) {
			off = 2000000 + rnd() % 3000000;
			host(st, ILOG_HOST_SWITCH, ts + 100000, off, 42, 77, "hog", 0);
		} else if (bad && !cpu) {
			d *= 3;
		}
		struct ilog_record r = cuda_rec(ts, d + off, 42, ILOG_OP_cudaStreamSynchronize);
		ilog_stats_add(st, &r, NULL);
		ts += d + off + 200000;
		r = cuda_rec(ts, 5000, 42, ILOG_OP_cudaLaunchKernel);
		ilog_stats_add(st, &r, NULL);
		ts += 20000;
	}
	ilog_stats_finish(st);
	char err[64];
	ilog_causal_run(st, cs, err, sizeof(err));
	*out = st;
}

static void test_engine(void)
{
	struct ilog_chain_set cs;
	struct ilog_stats *st;
	run_engine(1, &cs, &st);
	ok(cs.n >= 1 && !strncmp(cs.chains[0].pattern.p, "cpu-contention", cs.chains[0].pattern.n) &&
	   cs.chains[0].culprit_pid == 77 && cs.chains[0].op == ILOG_OP_cudaStreamSynchronize,
	   "preemption in [4 s, 7 s): cpu-contention on the sync, PID 77 blamed");
	if (cs.n)
		diag("%.*s", (int)cs.chains[0].root_cause.n, cs.chains[0].root_cause.p);
	ok(cs.n && cs.chains[0].ts_start <= 1004000000000ull + 200000000ull &&
	   cs.chains[0].ts_end >= 1007000000000ull - 200000000ull,
	   "the chain spans the contended interval");
	ok(cs.n && cs.chains[0].severity >= ILOG_SEV_MEDIUM, "severity by the time it cost");
	ilog_chain_set_free(&cs);
	ilog_stats_free(st);

	run_engine(0, &cs, &st);
	int blamed = 0;
	for (uint32_t i = 0; i < cs.n; i++)
		if (!strncmp(cs.chains[i].pattern.p, "cpu-contention", cs.chains[i].pattern.n) ||
		    cs.chains[i].culprit_pid)
			blamed = 1;
	ok(cs.n >= 1 && !strncmp(cs.chains[0].pattern.p, "gpu-slow", cs.chains[0].pattern.n),
	   "slower GPU work with an idle host: gpu-slow first");
	ok(!blamed, "and no process or host is blamed");
	ilog_chain_set_free(&cs);
	ilog_stats_free(st);
}

/* The severity rule (causal_grade): materiality first (5% of the process
 * and 50 ms), then each of its three measures caps the grade on its own. */
static void test_severity(void)
{
	const uint64_t ms = 1000000;
	/* a long job: a quarter of its time lost, and of the recording */
	is_u64(causal_grade(250 * ms, 1000 * ms, 1000 * ms, 10 * ms), ILOG_SEV_HIGH,
	       "25%% of the process and of the recording, above the floor: HIGH");
	is_u64(causal_grade(60 * ms, 1000 * ms, 1000 * ms, 10 * ms), ILOG_SEV_MEDIUM,
	       "6%%: MEDIUM");
	ok(causal_grade(40 * ms, 1000 * ms, 1000 * ms, 0) < 0, "4%%: not material, no chain");
	ok(causal_grade(5 * ms, 1000 * ms, 1000 * ms, 0) < 0, "0.5%%: no chain");
	/* the burst: a 3 ms process losing 1 ms in a 2 s recording */
	ok(causal_grade(1 * ms, 3 * ms, 2000 * ms, 50000) < 0,
	   "a third of a short process but 1 ms: under 50 ms, no chain");
	is_u64(causal_grade(60 * ms, 200 * ms, 20000 * ms, 0), ILOG_SEV_LOW,
	       "30%% of a short process, material, a blip in the recording: LOW");
	is_u64(causal_grade(60 * ms, 150 * ms, 4000 * ms, 0), ILOG_SEV_MEDIUM,
	       "1.5%% of the recording caps 40%% of the process at MEDIUM");
	/* the floor: fewer than ILOG_SEV_FLOOR_CALLS typical calls */
	is_u64(causal_grade(500 * ms, 1000 * ms, 1000 * ms, 501 * ms), ILOG_SEV_LOW,
	       "below the floor of typical calls: LOW");
	is_u64(causal_grade(500 * ms, 1000 * ms, 1000 * ms, 500 * ms), ILOG_SEV_HIGH,
	       "at the floor: HIGH");
}

/* ilog_ranksum_p against the permutation test it computes, by brute force
 * over every split of the pooled values (distinct: no ties). */
static void test_ranksum(void)
{
	int bad = 0;
	for (int t = 0; t < 300; t++) {
		uint32_t m = 1 + rnd() % 7, n = 1 + rnd() % 7, N = m + n;
		double v[14], x[7], y[7];
		for (uint32_t i = 0; i < N; i++)
			v[i] = u01() + (i >= m ? 0.3 * u01() : 0); /* y leans above x, at times */
		for (uint32_t i = 0; i < m; i++)
			x[i] = v[i];
		for (uint32_t j = 0; j < n; j++)
			y[j] = v[m + j];
		double uobs = 0;
		for (uint32_t i = 0; i < m; i++)
			for (uint32_t j = 0; j < n; j++)
				uobs += y[j] > x[i];
		uint64_t all = 0, tail = 0;
		for (uint32_t mask = 0; mask < (1u << N); mask++) {
			if ((uint32_t)__builtin_popcount(mask) != n)
				continue; /* the n positions taken as y */
			double u = 0;
			for (uint32_t a = 0; a < N; a++)
				for (uint32_t b = 0; b < N; b++)
					if (!(mask >> a & 1) && (mask >> b & 1))
						u += v[b] > v[a];
			all++;
			tail += u >= uobs;
		}
		double want = (double)tail / (double)all, got = ilog_ranksum_p(x, m, y, n);
		if (fabs(got - want) > 1e-12 && bad++ < 3)
			diag("m %u n %u: p %.12g, by enumeration %.12g", m, n, got, want);
	}
	ok(!bad, "rank-sum p equals the permutation test's on 300 random pairs of samples");
	double x[12], y[12];
	for (int i = 0; i < 12; i++) {
		x[i] = i;
		y[i] = 100 + i;
	}
	ok(fabs(ilog_ranksum_p(x, 12, y, 12) * 2704156.0 - 1) < 1e-9,
	   "12 above 12: p = 1 / C(24, 12)");
	ok(ilog_ranksum_p(y, 12, x, 12) == 1, "12 below 12: p = 1");
	ok(ilog_ranksum_p(x, 0, y, 12) == 1 && ilog_ranksum_p(x, 17, y, 3) == 1,
	   "no sample, or one above ILOG_RANKSUM_MAX: p = 1");
}

int main(void)
{
	test_ranksum();
	test_severity();
	test_buckets();
	test_quantiles();
	test_windows_exact();
	test_merge();
	test_engine();
	return done_testing();
}
