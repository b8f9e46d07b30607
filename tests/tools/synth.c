// SPDX-License-Identifier: MIT
/*
 * synth: writes valid logs with chosen content, for filter tests, fuzz
 * seeds and benchmarks.  Not a user command.  Deterministic for a seed.
 *
 *   synth [-o FILE] [--events N] [--seed S] [--stacks PCT] [--mix launch|all]
 *         [--frame-records N] [--level L] [--pid P] [--node NAME] [--rank R]
 *         [--real-ns NS] [--mono-ns NS] [--unknown-kind]
 */
#include <getopt.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "cli.h"

static uint64_t rng_state;
static uint64_t rnd(void) /* xorshift64* */
{
	rng_state ^= rng_state >> 12;
	rng_state ^= rng_state << 25;
	rng_state ^= rng_state >> 27;
	return rng_state * 2685821657736338717ull;
}

static int put(struct ilog_writer *w, struct ilog_record *rec)
{
	if (ilog_writer_put(w, rec)) {
		ilog_errorf("%s", ilog_writer_error(w));
		exit(ILOG_EXIT_USAGE);
	}
	return 0;
}

int main(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "events", required_argument, 0, 'n' }, { "seed", required_argument, 0, 's' },
		{ "stacks", required_argument, 0, 'S' }, { "mix", required_argument, 0, 'm' },
		{ "frame-records", required_argument, 0, 'F' }, { "level", required_argument, 0, 'L' },
		{ "pid", required_argument, 0, 'p' }, { "node", required_argument, 0, 'N' },
		{ "rank", required_argument, 0, 'r' }, { "real-ns", required_argument, 0, 'R' },
		{ "mono-ns", required_argument, 0, 'M' }, { "unknown-kind", no_argument, 0, 'U' },
		{ 0 },
	};
	uint64_t n = 1000, seed = 1, real_ns = 1795000000000000000ull, mono = 1000000000000ull;
	unsigned stack_pct = 20, pid = 4242;
	int64_t rank = -1;
	const char *out = NULL, *mix = "launch", *node = "node-a";
	int unknown = 0, c;
	struct ilog_writer_opts wo = { 0 };
	ilog_cli_init(argv[0]);
	while ((c = getopt_long(argc, argv, "o:", opts, NULL)) != -1) {
		switch (c) {
		case 'o': out = optarg; break;
		case 'n': n = strtoull(optarg, NULL, 0); break;
		case 's': seed = strtoull(optarg, NULL, 0); break;
		case 'S': stack_pct = (unsigned)atoi(optarg); break;
		case 'm': mix = optarg; break;
		case 'F': wo.frame_records = (uint32_t)atoi(optarg); wo.frame_ms = ILOG_FRAME_MS_OFF; break;
		case 'L': wo.level = atoi(optarg); break;
		case 'p': pid = (unsigned)atoi(optarg); break;
		case 'N': node = optarg; break;
		case 'r': rank = atoll(optarg); break;
		case 'R': real_ns = strtoull(optarg, NULL, 0); break;
		case 'M': mono = strtoull(optarg, NULL, 0); break;
		case 'U': unknown = 1; break;
		default: return ILOG_EXIT_USAGE;
		}
	}
	if (!wo.frame_ms)
		wo.frame_ms = ILOG_FRAME_MS_OFF; /* deterministic framing */
	rng_state = seed * 0x9E3779B97F4A7C15ull + 1;
	int fd = ilog_open_out(out);
	if (fd < 0)
		return ILOG_EXIT_USAGE;
	char err[256];
	struct ilog_writer *w = ilog_writer_open(fd, &wo, err, sizeof(err));
	if (!w) {
		ilog_errorf("%s", err);
		return ILOG_EXIT_USAGE;
	}
	struct ilog_header h = {
		.node = ilog_str_c(node), .boot_id = ILOG_STR("6f1c6a1e-0000-4000-8000-000000000001"),
		.host = ilog_str_c(node), .recorder = ILOG_STR("synth " INGERO_VERSION),
		.kernel = ILOG_STR("6.1.0-synth"), .driver = ILOG_STR(""),
		.session_id = seed, .rank = rank, .mono_ns = mono, .boot_ns = mono + 5000000,
		.real_ns = real_ns,
	};
	if (ilog_writer_begin(w, &h)) {
		ilog_errorf("%s", ilog_writer_error(w));
		return ILOG_EXIT_USAGE;
	}
	struct ilog_record rec = { .kind = ILOG_K_PROCESS };
	static const char argv0[] = "python3\0train.py\0--epochs\0003";
	rec.u.process = (struct ilog_process){
		.ts_ns = mono, .pid = pid, .ppid = 1, .uid = 1000, .start_ns = mono - 1000000,
		.comm = ILOG_STR("python3"), .exe = ILOG_STR("/usr/bin/python3.11"),
		.cmdline = { (const uint8_t *)argv0, sizeof(argv0) },
	};
	put(w, &rec);
	rec.kind = ILOG_K_MAPPING;
	static const uint8_t bid[20] = { 0xde, 0xad, 0xbe, 0xef, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10 };
	rec.u.mapping = (struct ilog_mapping){
		.ts_ns = mono, .pid = pid, .start = 0x7f0000000000ull, .end = 0x7f0000800000ull,
		.offset = 0, .prot = 5, .path = ILOG_STR("/usr/local/cuda/lib64/libcudart.so.13"),
		.build_id = { bid, sizeof(bid) },
	};
	put(w, &rec);

	static const uint16_t launch_mix[] = {
		ILOG_OP_cudaLaunchKernel, ILOG_OP_cudaLaunchKernel, ILOG_OP_cudaLaunchKernel,
		ILOG_OP_cudaLaunchKernel, ILOG_OP_cudaLaunchKernel, ILOG_OP_cudaLaunchKernel,
		ILOG_OP_cuLaunchKernel, ILOG_OP_cudaMemcpyAsync, ILOG_OP_cudaStreamSynchronize,
		ILOG_OP_cudaMalloc,
	};
	static const uint64_t kernels[] = { 0x55d0c0a01230ull, 0x55d0c0a01470ull,
					    0x55d0c0a019a0ull, 0x55d0c0a02000ull };
	uint64_t ts = mono + 1000;
	uint64_t nstacks = 0;
	for (uint64_t i = 0; i < n; i++) {
		struct ingero_cuda_event *e = &rec.u.cuda;
		uint16_t op = !strcmp(mix, "all") ? (uint16_t)(1 + rnd() % (ILOG_OP__COUNT - 1))
						  : launch_mix[rnd() % 10];
		memset(e, 0, sizeof(*e));
		rec.kind = ILOG_K_CUDA;
		/* one launching thread mostly, calls back to back with a
		 * host-side gap between them, as a training loop makes */
		e->ts_ns = ts;
		e->dur_ns = op == ILOG_OP_cudaStreamSynchronize ? 50000 + rnd() % 200000
							       : 3000 + rnd() % 4000;
		ts += e->dur_ns + 500 + rnd() % 1500;
		e->pid = pid;
		e->tid = pid + (uint32_t)(rnd() % 16 == 0);
		e->op = op;
		e->layer = (uint8_t)ilog_op_layer(op);
		e->stream = 0x5600000a0000ull;
		switch (op) {
		case ILOG_OP_cudaLaunchKernel: case ILOG_OP_cuLaunchKernel:
			e->handle = kernels[rnd() % 4];
			e->grid_x = 1024; e->grid_y = 1; e->grid_z = 1;
			e->block_x = 256; e->block_y = 1; e->block_z = 1;
			break;
		case ILOG_OP_cudaMemcpyAsync:
			e->bytes = 4096u << (rnd() % 8);
			e->kind = 1;
			break;
		case ILOG_OP_cudaMalloc:
			e->bytes = 1u << 20;
			e->handle = 0x7f8000000000ull + (rnd() % 1024) * 0x100000;
			break;
		default:
			break;
		}
		if (stack_pct && rnd() % 100 < stack_pct) {
			/* a small set of distinct stacks, each written once */
			uint64_t sid = 1 + rnd() % 64;
			e->stack_id = sid;
			if (sid > nstacks) {
				struct ilog_record s = { .kind = ILOG_K_STACK };
				s.u.stack.id = sid;
				s.u.stack.pid = pid;
				s.u.stack.nr = 8 + (uint32_t)(sid % 16);
				for (uint32_t k = 0; k < s.u.stack.nr; k++)
					s.u.stack.ips[k] = 0x7f0000001000ull + sid * 0x40 + k * 0x1230;
				put(w, &s);
				nstacks = sid;
			}
		}
		put(w, &rec);
		if (i % 97 == 96) {
			struct ilog_record hrec = { .kind = ILOG_K_HOST };
			struct ingero_host_event *he = &hrec.u.host;
			he->ts_ns = ts - 1000;
			he->type = ILOG_HOST_SWITCH;
			he->pid = pid;
			he->tid = pid;
			he->other_pid = 812;
			he->other_tid = 812;
			he->dur_ns = 100000 + rnd() % 900000;
			he->cpu = 1;
			memcpy(he->comm, "python3", 8);
			memcpy(he->other_comm, "backup", 7);
			put(w, &hrec);
		}
		if (i % 5000 == 4999) {
			struct ilog_record sn = { .kind = ILOG_K_SNAPSHOT };
			sn.u.snapshot = (struct ilog_snapshot){
				.ts_ns = ts, .cpu_pct = 37.5, .ncpu = 2, .mem_total = 24ull << 30,
				.mem_avail = 20ull << 30, .load1 = 1.25, .load5 = 1.0, .load15 = 0.5,
				.nprocs = 1,
			};
			sn.u.snapshot.procs[0] = (struct ilog_snapshot_proc){ pid, 98.5, 1ull << 30 };
			put(w, &sn);
		}
	}
	if (unknown) {
		/* a kind from the future with its schema, for forward-compat tests */
		struct ilog_record s = { .kind = ILOG_K_SCHEMA };
		s.u.schema.kind = 99;
		s.u.schema.name = ILOG_STR("future");
		s.u.schema.nfields = 2;
		s.u.schema.fields[0] = ILOG_STR("alpha");
		s.u.schema.fields[1] = ILOG_STR("beta");
		put(w, &s);
		static const uint8_t raw[] = { 0x93, 0x63, 0x2a, 0xa3, 'x', 'y', 'z' };
		struct ilog_raw r = { raw, sizeof(raw) };
		if (ilog_writer_put_raw(w, &r))
			return ILOG_EXIT_USAGE;
	}
	struct ilog_record lo = { .kind = ILOG_K_LOSS };
	lo.u.loss = (struct ilog_loss){ .ts_ns = ts, .source = ILOG_STR("ringbuf:cuda"),
					.lost = 0, .seen = n };
	put(w, &lo);
	if (ilog_writer_close(w, err, sizeof(err))) {
		ilog_errorf("%s", err);
		return ILOG_EXIT_USAGE;
	}
	return 0;
}
