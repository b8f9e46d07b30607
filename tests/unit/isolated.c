// SPDX-License-Identifier: MIT
/*
 * The isolated-stall chain (lib/analyze/detect_isolated.c) on synthetic
 * series of a sync-bound loop: a few stalls far above the bulk (bimodal),
 * a Pareto tail on a few calls (heavy tail), stalls during which a hog held
 * the CPU (host side), and plain jitter - log-normal durations, however
 * wide - which must not make a stall chain, nor must a call that never
 * returned (its process killed inside it).
 */
#include <math.h>
#include "test.h"
#include "calls.h"
#include "stats_int.h"

enum kind { BIMODAL, HEAVY, HOST, JITTER, NORET };

#define T0 1000000000000ull
#define PID 42

static void put_cuda(struct ilog_stats *st, uint64_t ts, uint64_t dur, uint16_t op)
{
	put_cuda_f(st, PID, ts, dur, op, 0);
}

/*
 * 12 s of steps: a launch, then a synchronize of 2 ms (log-normal, sigma
 * 0.03; sigma `jitter` for JITTER).  BIMODAL and HOST stall `nstall` steps
 * at random times (>= 0.15 s apart, gaps irregular) by 150-250 ms; for HOST a hog (PID 77)
 * preempts the calling thread for all but 1 ms of each.  HEAVY adds a
 * Pareto excess (2 ms, alpha 1.3) to 3% of the synchronizes.  NORET ends
 * 3 s with a synchronize that never returned, 344 ms until the kill (flag
 * NO_RETURN), after steadier ones (sigma 0.01), 0.3% of them 8% over the
 * median (the oom demo's).  Returns the
 * chains; *stalls is how many calls were stalled.
 */
static void run(enum kind k, double jitter, struct ilog_chain_set *cs, uint32_t *stalls)
{
	struct ilog_stats *st = stats_at(T0);
	uint64_t at[12];
	uint32_t nat = (k == BIMODAL || k == HOST) ? 12 : 0, next = 0;
	for (int ok_gap = 0; nat && !ok_gap;) {
		for (uint32_t i = 0; i < nat; i++) {
			uint64_t v = T0 + 500000000ull + (uint64_t)(u01() * 11e9);
			uint32_t j = i;
			for (; j > 0 && at[j - 1] > v; j--)
				at[j] = at[j - 1];
			at[j] = v;
		}
		ok_gap = 1;
		double g[11], gm, gd;
		for (uint32_t i = 1; i < nat; i++) {
			ok_gap &= at[i] - at[i - 1] >= 150000000ull;
			g[i - 1] = (double)(at[i] - at[i - 1]);
		}
		/* a draw whose gaps look alike (robust CV < 0.5, as a third of
		 * the draws of 12 do) is a rhythm to periodic-spike: stage
		 * irregular ones, as a Poisson process's are (~1) */
		ilog_robust(g, nat - 1, &gm, &gd);
		ok_gap &= 1.4826 * gd / gm >= 0.7;
	}
	*stalls = 0;
	uint64_t end = T0 + (k == NORET ? 3000000000ull : 12000000000ull);
	for (uint64_t ts = T0 + 1000000; ts < end;) {
		put_cuda(st, ts, 5000 + rnd() % 1000, ILOG_OP_cudaLaunchKernel);
		ts += 200000;
		double d = 2e6 * exp((k == JITTER ? jitter : k == NORET ? 0.01 : 0.03) * gauss());
		if (next < nat && ts >= at[next]) {
			next++;
			(*stalls)++;
			d = 150e6 + u01() * 100e6;
			if (k == HOST) {
				struct ilog_record r = { .kind = ILOG_K_HOST };
				r.u.host.ts_ns = ts + 500000;
				r.u.host.dur_ns = (uint64_t)d - 1000000;
				r.u.host.pid = r.u.host.tid = PID;
				r.u.host.other_pid = r.u.host.other_tid = 77;
				r.u.host.type = ILOG_HOST_SWITCH;
				snprintf(r.u.host.other_comm, sizeof(r.u.host.other_comm), "hog");
				ilog_stats_add(st, &r, NULL);
			}
		} else if (k == HEAVY && u01() < 0.03) {
			d += 2e6 * pow(u01(), -1 / 1.3);
			(*stalls)++;
		}
		if (k == NORET && u01() < 0.003)
			d *= 1.08;
		put_cuda(st, ts, (uint64_t)d, ILOG_OP_cudaStreamSynchronize);
		ts += (uint64_t)d + 50000;
	}
	if (k == NORET)
		put_cuda_f(st, PID, end, 344000000ull, ILOG_OP_cudaStreamSynchronize,
			   ILOG_CUDA_F_NO_RETURN);
	chains_of(st, cs, T0);
	ilog_stats_free(st);
}

static const struct ilog_chain *find(const struct ilog_chain_set *cs, const char *pattern)
{
	for (uint32_t i = 0; i < cs->n; i++)
		if (is_pattern(&cs->chains[i], pattern))
			return &cs->chains[i];
	return NULL;
}

/* The number after "key": in the chain's metrics, or -1. */
static double metric(const struct ilog_chain *c, const char *key)
{
	char k[64];
	snprintf(k, sizeof(k), "\"%s\":", key);
	const char *m = c ? strstr(c->metrics.p, k) : NULL;
	if (!m)
		return -1;
	return strtod(m + strlen(k), NULL);
}

static int has(const struct ilog_chain *c, const char *kv)
{
	return c && strstr(c->metrics.p, kv) != NULL;
}

int main(void)
{
	struct ilog_chain_set cs;
	uint32_t n;
	const struct ilog_chain *c;

	run(BIMODAL, 0, &cs, &n);
	c = find(&cs, "isolated-stall");
	ok(cs.n && c == &cs.chains[0] && c->op == ILOG_OP_cudaStreamSynchronize,
	   "bimodal: stalls at random times on an idle host rank first");
	ok(metric(c, "stalls") == n, "bimodal: all %u stalled calls counted (%g)", n,
	   metric(c, "stalls"));
	ok(has(c, "\"shape\":\"bimodal\"") && has(c, "\"side\":\"GPU\"") && !c->culprit_pid,
	   "bimodal: the shape is bimodal, the GPU side is named, no process blamed");
	ok(c && c->severity >= ILOG_SEV_MEDIUM, "bimodal: 12 calls of ~5000 cost >= 5%% of the run");
	ilog_chain_set_free(&cs);

	run(HEAVY, 0, &cs, &n);
	c = find(&cs, "isolated-stall");
	ok(c && has(c, "\"shape\":\"heavy-tail\""), "heavy tail: Pareto excess on 3%% of calls");
	ok(c && fabs(metric(c, "stalls") - n) <= 0.1 * n,
	   "heavy tail: the stalls are the tail's calls (%g of %u)", metric(c, "stalls"), n);
	ilog_chain_set_free(&cs);

	run(HOST, 0, &cs, &n);
	c = find(&cs, "isolated-stall");
	ok(c && has(c, "\"side\":\"host\"") && c->culprit_pid == 77 && metric(c, "stalls") == n,
	   "host: stalls while a hog held the CPU name the host and the hog (%u stalls)", n);
	ilog_chain_set_free(&cs);

	double sig[] = { 0.05, 0.3, 0.6, 1.0 };
	for (int i = 0; i < 4; i++)
		for (int rep = 0; rep < 3; rep++) {
			run(JITTER, sig[i], &cs, &n);
			c = find(&cs, "isolated-stall");
			ok(!c, "jitter: log-normal durations (sigma %.2f, run %d) make no stall chain",
			   sig[i], rep + 1);
			ilog_chain_set_free(&cs);
		}

	run(NORET, 0, &cs, &n);
	c = find(&cs, "isolated-stall");
	ok(!c, "a synchronize that never returned (344 ms until its process was killed) is no stall");
	ilog_chain_set_free(&cs);
	return done_testing();
}
