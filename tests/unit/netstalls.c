// SPDX-License-Identifier: MIT
/*
 * Stalls too many to be isolated (detect_isolated.c): a collective whose
 * peer's flow loses segments all run long stalls in 1 call in 7, at random
 * times, 200 ms each (the retransmission timeout) - more than the isolated
 * stall rule's 1 in 20, and no interval stands out.  With the peer's flow
 * retransmitting a segment or more for each stall around them, that is
 * the network's chain.  The same stalls with no retransmission, or beside
 * a busy node's retransmissions spread over many flows (as many segments
 * in all, fewer than the stalls in each flow), are no chain of the
 * network's - nor periodic spikes: their starts are about a stall apart,
 * which looked like a rhythm until the time between them counted too.
 */
#include "test.h"
#include "calls.h"
#include "stats_int.h"

#define T0 1000000000000ull
#define S 1000000000ull
#define PID 42
#define PEER 77

enum kind { LOSSY, NO_RETRANS, SPREAD };


/* The chains of 12 s of steps (launch, all-reduce of 0.5 ms, synchronize
 * of 2 ms), 1 all-reduce in 7 stalled 200-210 ms; *stalls of them. */
static void run(enum kind k, struct ilog_chain_set *cs, uint32_t *stalls)
{
	rs = 0x9e3779b97f4a7c15ull;
	struct ilog_stats *st = stats_at(T0);
	uint64_t per_s[12] = { 0 };
	*stalls = 0;
	put_sockio(st, T0, 12, PID, 50u << 20);
	for (uint64_t ts = T0 + 1000000; ts < T0 + 12 * S;) {
		put_cuda_f(st, PID, ts, 8000 + rnd() % 2000, ILOG_OP_cudaLaunchKernel, 0);
		ts += 20000;
		double d = 0.5e6 * exp(0.1 * gauss());
		if (u01() < 1.0 / 7) {
			d = 200e6 + u01() * 10e6;
			per_s[(ts - T0) / S]++;
			(*stalls)++;
		}
		put_cuda_f(st, PID, ts, (uint64_t)d, ILOG_OP_ncclAllReduce, 0);
		ts += (uint64_t)d + 20000;
		d = 2e6 * exp(0.02 * gauss());
		put_cuda_f(st, PID, ts, (uint64_t)d, ILOG_OP_cudaStreamSynchronize, 0);
		ts += (uint64_t)d + 20000;
	}
	uint64_t all = 0;
	for (uint64_t s = 0; s < 12; s++)
		all += per_s[s];
	for (uint64_t s = 0; s < 12; s++) {
		if (k == LOSSY && per_s[s])
			put_retrans(st, T0 + s * S, S, PEER, "rank1", 39985, per_s[s] + 2 + rnd() % 5);
		/* the busy node: as many segments in all, from 8 flows a second */
		for (uint16_t f = 0; k == SPREAD && f < 8; f++)
			put_retrans(st, T0 + s * S, S, 300 + f, "svc", (uint16_t)(41000 + s * 8 + f),
				    (all + 12 * 8 - 1) / (12 * 8));
	}
	chains_of(st, cs, T0);
	ilog_stats_free(st);
}

static const struct ilog_chain *net_chain(const struct ilog_chain_set *cs)
{
	for (uint32_t i = 0; i < cs->n; i++)
		if (is_pattern(&cs->chains[i], "net-retransmits"))
			return &cs->chains[i];
	return NULL;
}

int main(void)
{
	struct ilog_chain_set cs;
	uint32_t n;
	run(LOSSY, &cs, &n);
	const struct ilog_chain *c = net_chain(&cs);
	ok(c && c == &cs.chains[0] && c->op == ILOG_OP_ncclAllReduce && c->culprit_pid == PEER &&
		   strstr(c->metrics.p, "\"frequent\":1") && strstr(c->metrics.p, "\"shape\":\"bimodal\""),
	   "a lossy flow all run long: %u stalls (1 in 7) are the network's, the peer's flow named", n);
	ok(c && c->severity >= ILOG_SEV_MEDIUM, "and they cost the run enough to rank MEDIUM or HIGH");
	ilog_chain_set_free(&cs);

	run(NO_RETRANS, &cs, &n);
	ok(!net_chain(&cs), "the same %u stalls with no retransmission: not the network", n);
	int periodic = 0;
	for (uint32_t i = 0; i < cs.n; i++)
		periodic |= cs.chains[i].pattern.n == 14 &&
			    !memcmp(cs.chains[i].pattern.p, "periodic-spike", 14);
	ok(!periodic, "nor periodic spikes: stalls as far apart as they are long keep no rhythm");
	ilog_chain_set_free(&cs);

	run(SPREAD, &cs, &n);
	ok(!net_chain(&cs), "beside a busy node's retransmissions over many flows: not the network");
	ilog_chain_set_free(&cs);
	return done_testing();
}
