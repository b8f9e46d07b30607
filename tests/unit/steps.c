// SPDX-License-Identifier: MIT
/*
 * lib/analyze/steps.c: the training step found from hand-built call
 * sequences -- one synchronize per step, micro-batches with a synchronize
 * each and the step's own at the end, a collective beside synchronizes,
 * a graph launch, a prologue of setup calls, a process with no marker --
 * and each step's composition (calls and time per op and call path).
 */
#include "test.h"
#include "ingero/stats.h"
#include "calls.h"

static uint64_t t; /* the clock of the calls being made */

static void call(struct ilog_stats *st, uint32_t pid, uint16_t op, uint64_t dur, uint64_t stack)
{
	struct ilog_record r = { .kind = ILOG_K_CUDA };
	r.u.cuda.ts_ns = t;
	r.u.cuda.dur_ns = dur;
	r.u.cuda.pid = pid;
	r.u.cuda.tid = pid;
	r.u.cuda.op = op;
	r.u.cuda.layer = (uint8_t)ilog_op_layer(op);
	r.u.cuda.stack_id = stack;
	ilog_stats_add(st, &r, NULL);
	t += dur + 1000;
}

static struct ilog_stats *fresh(void)
{
	t = 1000000000ull;
	return stats_at(t);
}

static int one(struct ilog_stats *st, struct ilog_step_proc *out)
{
	struct ilog_step_proc *pr;
	int n = ilog_stats_step_procs(st, &pr);
	if (n > 0)
		*out = pr[0];
	free(pr);
	return n;
}

/* Setup calls, then steps: 8 launches, a copy, the step's synchronize. */
static void test_sync_per_step(void)
{
	struct ilog_stats *st = fresh();
	for (int i = 0; i < 20; i++)
		call(st, 7, ILOG_OP_cudaMalloc, 50000, 0);
	for (int s = 0; s < 200; s++) {
		for (int i = 0; i < 8; i++)
			call(st, 7, ILOG_OP_cudaLaunchKernel, 5000, 1);
		call(st, 7, ILOG_OP_cudaMemcpyAsync, 8000, 2);
		call(st, 7, ILOG_OP_cudaStreamSynchronize, 2000000, 3);
	}
	ilog_stats_finish(st);
	struct ilog_step_proc p;
	is_u64(one(st, &p), 1, "sync per step: one process with steps");
	is_u64(p.marker, ILOG_OP_cudaStreamSynchronize, "sync per step: the synchronize ends it");
	is_u64(p.per_step, 1, "sync per step: one synchronize per step");
	is_u64(p.rule, ILOG_STEP_SYNC, "sync per step: by the synchronize rule");
	is_u64(p.nsteps, 199, "sync per step: 199 whole steps between 200 synchronizes");
	is_u64(p.p50_ns, 8 * 6000 + 9000 + 2001000, "sync per step: a step's duration");
	struct ilog_step_site *ss;
	int n = ilog_stats_step_sites(st, 0, 7, &ss);
	is_u64(n, 3, "sync per step: three (op, call path) pairs in steps (no cudaMalloc)");
	ok(n == 3 && ss[0].op == ILOG_OP_cudaStreamSynchronize && ss[0].calls_per_step == 1.0 &&
	   ss[1].op == ILOG_OP_cudaLaunchKernel && ss[1].calls_per_step == 8.0 &&
	   ss[1].ns_per_step == 40000.0, "sync per step: calls and time per step per op");
	free(ss);
	const struct ilog_step_op *ops;
	uint32_t k = ilog_stats_step_ops(st, 0, 7, 5, &ops);
	is_u64(k, 3, "sync per step: step 5 called three pairs");
	struct ilog_step_row *rows;
	n = ilog_stats_steps(st, 0, 7, &rows);
	ok(n == 199 && ilog_stats_step_at(st, 0, 7, rows[10].start_ns + 5) == 10 &&
	   ilog_stats_step_at(st, 0, 7, rows[0].start_ns - 1) == -1,
	   "sync per step: the step of a time");
	free(rows);
	ilog_stats_free(st);
}

/*
 * Four micro-batches each end in a .item() (a small blocking copy) and a
 * synchronize; the step ends with the optimizer's launches and a longer
 * synchronize: 5 synchronizes per step, the long one last.
 */
static void micro_steps(struct ilog_stats *st, int steps, int copies)
{
	for (int s = 0; s < steps; s++) {
		for (int m = 0; m < 4; m++) {
			for (int i = 0; i < 6; i++)
				call(st, 9, ILOG_OP_cudaLaunchKernel, 5000, 1);
			for (int c = 0; c < copies; c++)
				call(st, 9, ILOG_OP_cudaMemcpy, 400000, 4);
			call(st, 9, ILOG_OP_cudaStreamSynchronize, 300000, 3);
		}
		for (int i = 0; i < 3; i++)
			call(st, 9, ILOG_OP_cudaLaunchKernel, 5000, 5);
		call(st, 9, ILOG_OP_cudaMemsetAsync, 2000, 6);
		call(st, 9, ILOG_OP_cudaStreamSynchronize, 900000, 7);
	}
}

static void test_micro_batches(void)
{
	struct ilog_stats *st = fresh();
	for (int i = 0; i < 7; i++) /* a prologue that is no multiple of anything */
		call(st, 9, ILOG_OP_cudaStreamSynchronize, 100000, 8);
	micro_steps(st, 150, 0);
	ilog_stats_finish(st);
	struct ilog_step_proc p;
	is_u64(one(st, &p), 1, "micro-batches: one process with steps");
	is_u64(p.per_step, 5, "micro-batches: 5 synchronizes per step");
	ok(p.nsteps >= 148 && p.nsteps <= 150, "micro-batches: about 150 steps (%u)", p.nsteps);
	uint64_t want = 4 * (6 * 6000 + 301000) + 3 * 6000 + 3000 + 901000;
	is_u64(p.p50_ns, want, "micro-batches: a step ends at the optimizer's synchronize");
	ilog_stats_free(st);
}

/* Micro-batches and the optimizer calling the same ops, in other numbers:
 * the segments' call counts tell them apart. */
static void test_same_ops(void)
{
	struct ilog_stats *st = fresh();
	for (int s = 0; s < 100; s++) {
		for (int m = 0; m < 3; m++) {
			for (int i = 0; i < 6; i++)
				call(st, 3, ILOG_OP_cudaLaunchKernel, 5000, 1);
			call(st, 3, ILOG_OP_cudaStreamSynchronize, 300000, 3);
		}
		for (int i = 0; i < 2; i++)
			call(st, 3, ILOG_OP_cudaLaunchKernel, 5000, 5);
		call(st, 3, ILOG_OP_cudaStreamSynchronize, 900000, 7);
	}
	ilog_stats_finish(st);
	struct ilog_step_proc p;
	is_u64(one(st, &p), 1, "same ops: one process with steps");
	is_u64(p.per_step, 4, "same ops: 4 synchronizes per step");
	is_u64(p.p50_ns, 3 * (6 * 6000 + 301000) + 2 * 6000 + 901000,
	       "same ops: a step ends at the optimizer's synchronize");
	ilog_stats_free(st);
}

/* A collective per step beside synchronizes: the collective decides. */
static void test_collective(void)
{
	struct ilog_stats *st = fresh();
	for (int s = 0; s < 100; s++) {
		for (int m = 0; m < 3; m++) {
			call(st, 4, ILOG_OP_cudaLaunchKernel, 5000, 1);
			call(st, 4, ILOG_OP_cudaStreamSynchronize, 100000, 3);
		}
		call(st, 4, ILOG_OP_ncclAllReduce, 20000, 9);
		call(st, 4, ILOG_OP_cudaLaunchKernel, 5000, 1);
	}
	ilog_stats_finish(st);
	struct ilog_step_proc p;
	is_u64(one(st, &p), 1, "collective: one process with steps");
	is_u64(p.marker, ILOG_OP_ncclAllReduce, "collective: ncclAllReduce ends the step");
	is_u64(p.rule, ILOG_STEP_COLLECTIVE, "collective: by the collective rule");
	is_u64(p.per_step, 1, "collective: one per step");
	ilog_stats_free(st);
}

/* A graph launch per step, and a process that never synchronizes. */
static void test_graph_and_none(void)
{
	struct ilog_stats *st = fresh();
	for (int s = 0; s < 50; s++) {
		call(st, 5, ILOG_OP_cudaMemcpyAsync, 8000, 2);
		call(st, 5, ILOG_OP_cudaGraphLaunch, 6000, 10);
		call(st, 5, ILOG_OP_cudaStreamSynchronize, 1000000, 3);
		call(st, 6, ILOG_OP_cudaLaunchKernel, 5000, 1);
	}
	ilog_stats_finish(st);
	struct ilog_step_proc *pr;
	int n = ilog_stats_step_procs(st, &pr);
	ok(n == 1 && pr[0].pid == 5 && pr[0].marker == ILOG_OP_cudaGraphLaunch &&
	   pr[0].rule == ILOG_STEP_GRAPH, "graph: the graph launch ends the step; no steps "
	   "without a marker");
	free(pr);
	ilog_stats_free(st);
}

/* Adding a blocking copy per micro-batch: 4 more calls per step from its site. */
static void test_composition_change(void)
{
	struct ilog_stats *st = fresh();
	micro_steps(st, 100, 1);
	ilog_stats_finish(st);
	struct ilog_step_site *ss;
	int n = ilog_stats_step_sites(st, 0, 9, &ss), found = 0;
	for (int i = 0; i < n; i++)
		found |= ss[i].op == ILOG_OP_cudaMemcpy && ss[i].stack_id == 4 &&
			 ss[i].calls_per_step > 3.9 && ss[i].calls_per_step < 4.1;
	ok(found, "copies: 4 blocking copies per step from their call path");
	free(ss);
	ilog_stats_free(st);
}

/* Launches recorded at entry (SPEC §5.4 UNTIMED, dur 0), all but one in 8:
 * each step still counts 8 launches, and their time per step is what the
 * timed ones say (the same as when every launch is timed, above). */
static void test_untimed_launches(void)
{
	struct ilog_stats *st = fresh();
	for (int s = 0; s < 200; s++) {
		for (int i = 0; i < 8; i++) {
			struct ilog_record r = { .kind = ILOG_K_CUDA };
			r.u.cuda.ts_ns = t;
			r.u.cuda.dur_ns = i ? 0 : 5000;
			r.u.cuda.flags = i ? ILOG_CUDA_F_UNTIMED : 0;
			r.u.cuda.pid = r.u.cuda.tid = 7;
			r.u.cuda.op = ILOG_OP_cudaLaunchKernel;
			r.u.cuda.stack_id = 1;
			ilog_stats_add(st, &r, NULL);
			t += 6000;
		}
		call(st, 7, ILOG_OP_cudaStreamSynchronize, 2000000, 3);
	}
	ilog_stats_finish(st);
	struct ilog_step_proc p;
	is_u64(one(st, &p), 1, "untimed: one process with steps");
	is_u64(p.nsteps, 199, "untimed: 199 steps");
	struct ilog_step_site *ss;
	int n = ilog_stats_step_sites(st, 0, 7, &ss);
	ok(n == 2 && ss[1].op == ILOG_OP_cudaLaunchKernel && ss[1].calls_per_step == 8.0 &&
	   ss[1].ns_per_step == 40000.0, "untimed: 8 launches a step, 40 us of them (%g)",
	   n == 2 ? ss[1].ns_per_step : -1.0);
	free(ss);
	ilog_stats_free(st);
}

/*
 * Many steps, a few longer than 32 bits of nanoseconds (4.3 s) in
 * duration or in CUDA time: every step's start, end and time as made,
 * read one by one, all at once, and by time; the longest are the slowest.
 */
static void test_long_steps(void)
{
	enum { N = 3000 };
	static uint64_t end[N], ns[N];
	struct ilog_stats *st = fresh();
	for (int s = 0; s < N; s++) {
		if (s == 1500)
			t += 6000000000ull; /* idle: a long step of little CUDA time */
		uint64_t sync = s == 2500 || s == 2900 ? 5000000000ull : 2000000 + (uint64_t)s;
		call(st, 7, ILOG_OP_cudaLaunchKernel, 5000, 1);
		call(st, 7, ILOG_OP_cudaLaunchKernel, 5000, 1);
		end[s] = t + sync;
		ns[s] = 10000 + sync;
		call(st, 7, ILOG_OP_cudaStreamSynchronize, sync, 3);
	}
	ilog_stats_finish(st);
	struct ilog_step_proc p;
	is_u64(one(st, &p), 1, "long steps: one process with steps");
	is_u64(p.nsteps, N - 1, "long steps: a step between each two synchronizes");
	is_u64(p.first_ns, end[0], "long steps: the first starts at the first return");
	is_u64(p.last_ns, end[N - 1], "long steps: the last ends at the last return");
	is_u64(p.max_ns, end[1500] - end[1499], "long steps: the longest, idle 6 s");
	struct ilog_step_row *rows;
	int n = ilog_stats_steps(st, 0, 7, &rows), bad = n != N - 1;
	for (int i = 0; i < n && !bad; i++) {
		struct ilog_step_row r;
		bad = rows[i].start_ns != end[i] || rows[i].end_ns != end[i + 1] ||
		      rows[i].cuda_ns != ns[i + 1] || rows[i].calls != 3 ||
		      ilog_stats_step(st, 0, 7, (uint32_t)i, &r) || r.step != (uint32_t)i ||
		      r.start_ns != end[i] || r.end_ns != end[i + 1] || r.cuda_ns != ns[i + 1] ||
		      ilog_stats_step_at(st, 0, 7, end[i]) != i ||
		      ilog_stats_step_at(st, 0, 7, end[i + 1] - 1) != i;
		if (bad)
			diag("step %d: %llu..%llu %llu ns", i, (unsigned long long)rows[i].start_ns,
			     (unsigned long long)rows[i].end_ns, (unsigned long long)rows[i].cuda_ns);
	}
	ok(!bad, "long steps: each step's start, end, calls and time, however read");
	free(rows);
	uint32_t top[3];
	const struct ilog_step_op *ops;
	ok(ilog_stats_step_slowest(st, 0, 7, top, 3) == 3 && top[0] == 1499 &&
	   (top[1] == 2499 || top[1] == 2899) && ilog_stats_step_ops(st, 0, 7, top[0], &ops) == 2,
	   "long steps: the slowest, and what the slowest past the first kept called");
	ilog_stats_free(st);
}

int main(void)
{
	test_sync_per_step();
	test_micro_batches();
	test_same_ops();
	test_collective();
	test_graph_and_none();
	test_composition_change();
	test_untimed_launches();
	test_long_steps();
	return done_testing();
}
