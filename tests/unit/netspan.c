// SPDX-License-Identifier: MIT
/*
 * A retransmit aggregate's flag covers its own windows, not the longest
 * aggregate's of the log (lib/analyze/causal_sig.c).  12 s of a training
 * loop's all-reduce over TCP (its process moves bytes every second); the
 * peer's flow retransmits 40 segments in [3 s, 4 s) while the all-reduce
 * is 20x slower, and the all-reduce is as slow again in [7 s, 9 s) with
 * no retransmission at all.  Another flow's one retransmission sits in a
 * 6 s aggregate from the start (a window the recorder's tick was late for,
 * or an older recorder's first window).  The first slowdown is the
 * network's; the second is not: when every aggregate's flag spread as far
 * as that 6 s one, the first's flag reached the second and blamed it on
 * the network too.
 */
#include <math.h>
#include "test.h"
#include "calls.h"
#include "stats_int.h"

#define T0 1000000000000ull
#define S 1000000000ull
#define PID 42
#define PEER 77

static void put_cuda(struct ilog_stats *st, uint64_t ts, uint64_t dur, uint16_t op)
{
	put_cuda_f(st, PID, ts, dur, op, 0);
}


static int in(uint64_t ts, uint64_t a, uint64_t b)
{
	return ts >= T0 + a && ts < T0 + b;
}

int main(void)
{
	rs = 0x2545f4914f6cdd1dull;
	struct ilog_stats *st = stats_at(T0);
	put_retrans(st, T0, 6 * S, 4242, "sh", 50000, 1);
	put_sockio(st, T0, 12, PID, 100u << 20);
	put_retrans(st, T0 + 3 * S, S, PEER, "rank1", 39985, 40);
	for (uint64_t ts = T0 + 1000000; ts < T0 + 12 * S;) {
		put_cuda(st, ts, 5000 + rnd() % 1000, ILOG_OP_cudaLaunchKernel);
		ts += 100000;
		double d = 1e6 * exp(0.05 * gauss());
		if (in(ts, 3 * S, 4 * S) || in(ts, 7 * S, 9 * S))
			d *= 20;
		put_cuda(st, ts, (uint64_t)d, ILOG_OP_ncclAllReduce);
		ts += (uint64_t)d + 50000;
		d = 2e6 * exp(0.03 * gauss());
		put_cuda(st, ts, (uint64_t)d, ILOG_OP_cudaStreamSynchronize);
		ts += (uint64_t)d + 50000;
	}
	struct ilog_chain_set cs;
	chains_of(st, &cs, T0);
	int net_first = 0, net_second = 0, other_second = 0;
	for (uint32_t i = 0; i < cs.n; i++) {
		const struct ilog_chain *c = &cs.chains[i];
		int net = is_pattern(c, "net-retransmits");
		if (c->op != ILOG_OP_ncclAllReduce)
			continue;
		if (c->ts_start < T0 + 5 * S && c->ts_end > T0 + 3 * S)
			net_first |= net && c->culprit_pid == PEER;
		if (c->ts_start < T0 + 9 * S && c->ts_end > T0 + 7 * S && c->ts_start >= T0 + 5 * S) {
			net_second |= net;
			other_second |= !net;
		}
	}
	ok(net_first, "the slowdown under the peer's retransmissions is the network's, its flow named");
	ok(other_second && !net_second,
	   "the slowdown 3 s after the last retransmission has a chain, not the network's");
	ilog_chain_set_free(&cs);
	ilog_stats_free(st);
	return done_testing();
}
