// SPDX-License-Identifier: MIT
/*
 * ranks: writes one log per rank of a simulated data-parallel training job,
 * for ingero-merge and export tests and benchmarks.  Not a user command.
 * Deterministic for a seed.
 *
 *   ranks -o PREFIX [--ranks N] [--skews LIST] [--steps N] [--kernels K]
 *         [--jitter DUR] [--seed S] [--dup-stacks] [--chains]
 *
 * writes PREFIX0.ilog .. PREFIX<N-1>.ilog.  The simulation runs on one true
 * timeline: every step each rank launches K kernels, arrives at an
 * ncclAllReduce on the world communicator (every 4th step also an
 * ncclAllGather on a second one) at its own time, and the
 * cudaStreamSynchronize after it returns when the slowest rank has arrived
 * plus the transfer time, within +-jitter (uniform) on each rank.  Rank r's
 * wall clock reads true time + skew[r] (the injected error ingero-merge must
 * find); its CLOCK_MONOTONIC has its own base (separate boots).  Clock
 * anchors (header, then a clock record every second) are taken from those
 * clocks, so the anchors alone cannot reveal the skew.  Preemptions happen
 * inside the sync calls, as they physically must (a thread that is off-CPU
 * cannot enter or leave a call).
 */
#include <getopt.h>
#include <stdlib.h>
#include <string.h>
#include "ingero/cli.h"

#define MAX_RANKS 64

#include "rng.h"

struct rank {
	struct ilog_writer *w;
	int64_t skew;          /* wall clock error, ns */
	uint64_t mono_base;    /* CLOCK_MONOTONIC at true time t0 */
	uint32_t pid, tid;
	uint64_t comm[2];      /* this rank's ncclComm_t values */
	uint64_t stream;
	uint64_t t;            /* true time the host thread is at */
	uint64_t next_clock;   /* true time of the next clock record */
	uint64_t arrive[2];    /* true time it enters the collective */
	uint64_t nstacks;
};

static uint64_t t0 = 1795000000000000000ull; /* true time of the job start */

static void put(struct rank *k, const struct ilog_record *rec)
{
	if (ilog_writer_put(k->w, rec)) {
		ilog_errorf("%s", ilog_writer_error(k->w));
		exit(ILOG_EXIT_USAGE);
	}
}

static uint64_t mono(const struct rank *k, uint64_t t)
{
	return k->mono_base + (t - t0);
}

static void clock_rec(struct rank *k, uint64_t t)
{
	struct ilog_record rec = { .kind = ILOG_K_CLOCK };
	rec.u.clock.mono_ns = mono(k, t);
	rec.u.clock.boot_ns = mono(k, t) + 3000000000ull;
	rec.u.clock.real_ns = (uint64_t)((int64_t)t + k->skew);
	put(k, &rec);
}

static void cuda(struct rank *k, uint16_t op, uint64_t t, uint64_t dur, uint64_t handle,
		 uint64_t bytes, uint64_t stack)
{
	struct ilog_record rec = { .kind = ILOG_K_CUDA };
	struct ingero_cuda_event *e = &rec.u.cuda;
	e->ts_ns = mono(k, t);
	e->dur_ns = dur;
	e->pid = k->pid;
	e->tid = k->tid;
	e->op = op;
	e->layer = (uint8_t)ilog_op_layer(op);
	e->stream = k->stream;
	e->handle = handle;
	e->bytes = bytes;
	e->stack_id = stack;
	if (op == ILOG_OP_cudaLaunchKernel) {
		e->grid_x = 512;
		e->grid_y = e->grid_z = 1;
		e->block_x = 256;
		e->block_y = e->block_z = 1;
	}
	if (op == ILOG_OP_ncclAllReduce || op == ILOG_OP_ncclAllGather)
		e->kind = 7; /* ncclFloat32 */
	put(k, &rec);
}

/* A stack for a kernel launch site; with dup, the same content is written
 * again under a second id (as after a recorder's stack-map reset), and
 * events use both ids. */
static uint64_t stack_for(struct rank *k, uint64_t site, int dup)
{
	uint64_t id = 1 + site * 2 + (dup && (rnd() & 1));
	if (id > k->nstacks) {
		for (uint64_t s = k->nstacks + 1; s <= id; s++) {
			struct ilog_record rec = { .kind = ILOG_K_STACK };
			uint64_t content = dup ? (s - 1) / 2 : s;
			rec.u.stack.id = s;
			rec.u.stack.pid = k->pid;
			rec.u.stack.nr = 6 + (uint32_t)(content % 5);
			for (uint32_t i = 0; i < rec.u.stack.nr; i++)
				rec.u.stack.ips[i] = 0x7f3a00001000ull + content * 0x80 + i * 0x2210;
			put(k, &rec);
		}
		k->nstacks = id;
	}
	return id;
}

static int parse_skew(const char *s, int64_t *ns)
{
	int neg = *s == '-';
	uint64_t v;
	if (*s == '-' || *s == '+')
		s++;
	if (ilog_parse_duration(s, &v) || v > INT64_MAX)
		return -1;
	*ns = neg ? -(int64_t)v : (int64_t)v;
	return 0;
}

int main(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "ranks", required_argument, 0, 'n' }, { "skews", required_argument, 0, 'k' },
		{ "steps", required_argument, 0, 's' }, { "kernels", required_argument, 0, 'K' },
		{ "jitter", required_argument, 0, 'j' }, { "seed", required_argument, 0, 'S' },
		{ "dup-stacks", no_argument, 0, 'D' }, { "chains", no_argument, 0, 'C' },
		{ 0 },
	};
	unsigned nranks = 4, kernels = 8, dup = 0, chains = 0;
	uint64_t steps = 200, seed = 1, jitter = 20000;
	int64_t skews[MAX_RANKS] = { 0 };
	const char *prefix = NULL;
	int c;
	ilog_cli_init(argv[0]);
	while ((c = getopt_long(argc, argv, "o:", opts, NULL)) != -1) {
		switch (c) {
		case 'o': prefix = optarg; break;
		case 'n': nranks = (unsigned)atoi(optarg); break;
		case 's': steps = strtoull(optarg, NULL, 0); break;
		case 'K': kernels = (unsigned)atoi(optarg); break;
		case 'S': seed = strtoull(optarg, NULL, 0); break;
		case 'D': dup = 1; break;
		case 'C': chains = 1; break;
		case 'j':
			if (ilog_parse_duration(optarg, &jitter)) {
				ilog_errorf("--jitter: not a duration '%s'", optarg);
				return ILOG_EXIT_USAGE;
			}
			break;
		case 'k': {
			char *dupl = strdup(optarg), *save = NULL;
			unsigned i = 0;
			for (char *tok = strtok_r(dupl, ",", &save); tok;
			     tok = strtok_r(NULL, ",", &save), i++)
				if (i >= MAX_RANKS || parse_skew(tok, &skews[i])) {
					ilog_errorf("--skews: bad skew '%s'", tok);
					return ILOG_EXIT_USAGE;
				}
			free(dupl);
			break;
		}
		default: return ILOG_EXIT_USAGE;
		}
	}
	if (!prefix || !nranks || nranks > MAX_RANKS || kernels < 1) {
		ilog_errorf("usage: ranks -o PREFIX [--ranks N<=%d] [--skews LIST] [--steps N] "
			    "[--kernels K>=1] [--jitter DUR] [--seed S] [--dup-stacks] [--chains]",
			    MAX_RANKS);
		return ILOG_EXIT_USAGE;
	}
	rng_state = seed * 0x9E3779B97F4A7C15ull + 1;
	struct rank rk[MAX_RANKS];
	struct ilog_writer_opts wo = { .frame_ms = ILOG_FRAME_MS_OFF };
	for (unsigned r = 0; r < nranks; r++) {
		struct rank *k = &rk[r];
		memset(k, 0, sizeof(*k));
		char path[4096], node[64], boot[64];
		snprintf(path, sizeof(path), "%s%u.ilog", prefix, r);
		int fd = ilog_open_out(path);
		char err[256];
		if (fd < 0)
			return ILOG_EXIT_USAGE;
		if (!(k->w = ilog_writer_open(fd, &wo, err, sizeof(err)))) {
			ilog_errorf("%s", err);
			return ILOG_EXIT_USAGE;
		}
		k->skew = skews[r];
		k->mono_base = 500000000000ull + r * 73000000000ull + rnd() % 1000000000ull;
		k->pid = 3100 + r * 10;
		k->tid = k->pid;
		k->comm[0] = 0x55aa00100000ull + r * 0x10000;
		k->comm[1] = 0x55aa00200000ull + r * 0x10000;
		k->stream = 0x7e0000a00000ull + r * 0x1000;
		k->t = t0 + 2000000 + rnd() % 1000000;
		k->next_clock = t0 + 1000000000ull;
		snprintf(node, sizeof(node), "gpu-node-%u", r);
		snprintf(boot, sizeof(boot), "b0075eed-0000-4000-8000-%012x", r + 1);
		struct ilog_header h = {
			.node = ilog_str_c(node), .boot_id = ilog_str_c(boot), .host = ilog_str_c(node),
			.recorder = ILOG_STR("ranks " INGERO_VERSION), .kernel = ILOG_STR("6.1.0-synth"),
			.driver = ILOG_STR("580.65.06"), .session_id = seed * 1000 + r, .rank = r,
			.mono_ns = mono(k, t0), .boot_ns = mono(k, t0) + 3000000000ull,
			.real_ns = (uint64_t)((int64_t)t0 + k->skew),
		};
		if (ilog_writer_begin(k->w, &h)) {
			ilog_errorf("%s", ilog_writer_error(k->w));
			return ILOG_EXIT_USAGE;
		}
		struct ilog_record rec = { .kind = ILOG_K_PROCESS };
		static const char argv0[] = "python3\0train.py\0--ddp";
		rec.u.process = (struct ilog_process){
			.ts_ns = mono(k, t0), .pid = k->pid, .ppid = 1, .uid = 1000,
			.start_ns = mono(k, t0) - 1000000, .comm = ILOG_STR("python3"),
			.exe = ILOG_STR("/usr/bin/python3.11"),
			.cmdline = { (const uint8_t *)argv0, sizeof(argv0) },
		};
		put(k, &rec);
		/* both communicators are created before the loop, in the same
		 * order on every rank (NCCL requires it) */
		for (int cm = 0; cm < 2; cm++) {
			cuda(k, ILOG_OP_ncclCommInitRank, k->t, 800000, k->comm[cm], nranks, 0);
			k->t += 800000 + 5000;
		}
	}

	for (uint64_t s = 0; s < steps; s++) {
		int ncoll = s % 4 == 3 ? 2 : 1;
		/* launch phase and arrival at the collective(s) */
		for (unsigned r = 0; r < nranks; r++) {
			struct rank *k = &rk[r];
			while (k->t >= k->next_clock) {
				clock_rec(k, k->next_clock);
				k->next_clock += 1000000000ull;
			}
			for (unsigned i = 0; i < kernels; i++) {
				uint64_t dur = urange(3000, 7000);
				uint64_t stack = i % 3 == 0 ? stack_for(k, i % 6, dup) : 0;
				cuda(k, ILOG_OP_cudaLaunchKernel, k->t, dur, 0x55d0c0a01000ull + i * 0x40,
				     0, stack);
				k->t += dur + urange(500, 2000);
			}
			/* a straggler now and then */
			k->t += rnd() % 8 == 0 ? urange(100000, 600000) : urange(0, 50000);
			k->arrive[0] = k->t;
		}
		uint64_t done = 0;
		for (int cm = 0; cm < ncoll; cm++) {
			uint64_t last = 0;
			for (unsigned r = 0; r < nranks; r++) {
				struct rank *k = &rk[r];
				if (cm)
					k->arrive[1] = k->t;
				last = k->arrive[cm] > last ? k->arrive[cm] : last;
				uint64_t dur = urange(12000, 30000);
				cuda(k, cm ? ILOG_OP_ncclAllGather : ILOG_OP_ncclAllReduce, k->t, dur,
				     k->comm[cm], 1u << 22, 0);
				k->t += dur + urange(1000, 3000);
			}
			/* the transfer completes for all ranks at once */
			done = last + urange(800000, 1600000);
			for (unsigned r = 0; r < nranks; r++) {
				struct rank *k = &rk[r];
				uint64_t end = done + urange(0, 2 * jitter) - jitter;
				if (end < k->t + 2000)
					end = k->t + 2000;
				uint64_t dur = end - k->t;
				if (rnd() % 16 == 0 && dur > 200000) {
					/* preempted while waiting in the sync */
					struct ilog_record hr = { .kind = ILOG_K_HOST };
					struct ingero_host_event *he = &hr.u.host;
					he->ts_ns = mono(k, k->t + 20000);
					he->dur_ns = urange(20000, dur - 100000);
					he->type = ILOG_HOST_SWITCH;
					he->pid = k->pid;
					he->tid = k->tid;
					he->other_pid = 812;
					he->other_tid = 812;
					he->cpu = r % 2;
					memcpy(he->comm, "python3", 8);
					memcpy(he->other_comm, "backup", 7);
					put(k, &hr);
				}
				cuda(k, ILOG_OP_cudaStreamSynchronize, k->t, dur, 0, 0, 0);
				k->t = end + urange(2000, 8000);
			}
		}
		if (s % 100 == 99) {
			for (unsigned r = 0; r < nranks; r++) {
				struct rank *k = &rk[r];
				struct ilog_record sn = { .kind = ILOG_K_SNAPSHOT };
				sn.u.snapshot = (struct ilog_snapshot){
					.ts_ns = mono(k, k->t), .cpu_pct = 20 + (double)(rnd() % 600) / 10,
					.ncpu = 16, .mem_total = 64ull << 30,
					.mem_avail = (40ull << 30) - (rnd() % 1024) * (1u << 20),
					.load1 = 2.5, .load5 = 2.0, .load15 = 1.5, .nprocs = 1,
				};
				sn.u.snapshot.procs[0] = (struct ilog_snapshot_proc){ k->pid, 99.0, 3ull << 30 };
				put(k, &sn);
			}
		}
		if (chains && s % 50 == 49) {
			for (unsigned r = 0; r < nranks; r++) {
				struct rank *k = &rk[r];
				struct ilog_record ch = { .kind = ILOG_K_CHAIN };
				ch.u.chain = (struct ilog_chain){
					.id = s + 1, .ts_start = mono(k, k->t - 2000000),
					.ts_end = mono(k, k->t), .severity = (uint32_t)(s / 50 % 3),
					.pattern = ILOG_STR("cpu-contention"), .pid = k->pid,
					.op = ILOG_OP_cudaStreamSynchronize, .score = 0.5 + (double)(s % 7) / 10,
					.title = ILOG_STR("cudaStreamSynchronize slowed by preemption"),
					.root_cause = ILOG_STR("PID 812 (backup) preempted the training thread"),
					.fix = ILOG_STR("pin the job to its own CPUs"),
					.evidence = ILOG_STR("[]"),
				};
				put(k, &ch);
			}
		}
		(void)done;
	}
	for (unsigned r = 0; r < nranks; r++) {
		struct rank *k = &rk[r];
		struct ilog_record lo = { .kind = ILOG_K_LOSS };
		lo.u.loss = (struct ilog_loss){ .ts_ns = mono(k, k->t), .source = ILOG_STR("ringbuf:cuda"),
						.lost = 0, .seen = 0 };
		put(k, &lo);
		char err[256];
		if (ilog_writer_close(k->w, err, sizeof(err))) {
			ilog_errorf("%s", err);
			return ILOG_EXIT_USAGE;
		}
	}
	return 0;
}
