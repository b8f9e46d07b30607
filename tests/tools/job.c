// SPDX-License-Identifier: MIT
/*
 * job: writes a simulated multi-rank data-parallel job for the cross-rank
 * analysis (ingero-correlate's straggler, hang and desync chains) and its
 * scale benchmark.  Not a user command.  Deterministic for a seed.
 *
 *   job -o OUT [--ranks N] [--steps N] [--seed S] [--per-rank]
 *       [--straggler R:DELAY] [--hang R:STEP:DUR] [--desync R:STEP]
 *
 * Each step every rank launches a kernel, works on the host for ~2 ms
 * (+-jitter), enters ncclAllReduce on the world communicator (ncclCommInitRank
 * with one ncclUniqueId hash, format 1.4) and synchronizes its stream; the
 * synchronize returns when the last rank has arrived plus the transfer.
 *   --straggler R:DELAY  rank R arrives DELAY late every step: PID 812
 *                        (backup) preempts it for most of the delay
 *   --hang R:STEP:DUR    rank R blocks before collective STEP (off-CPU, in a
 *                        wait); the others enter it and wait in their
 *                        synchronize for DUR until the recording ends
 *                        (NO_RETURN at the end)
 *   --desync R:STEP      rank R calls ncclAllGather at collective STEP
 *   --bad KIND           the last rank's init is wrong: `nranks` (it declares
 *                        one rank more), `repeat` (it claims rank 0 again),
 *                        `noinit` (its init is missing from the log)
 * Output: OUT, one system-wide log of one node with every rank a process;
 * with --per-rank, OUT0.ilog .. OUT<N-1>.ilog, one node each (same boot,
 * so ingero-merge aligns them exactly), to merge.
 */
#include <getopt.h>
#include <stdlib.h>
#include <string.h>
#include "ingero/cli.h"
#include "ingero/hash.h"

#include "rng.h"

static const uint64_t MONO0 = 700000000000ull, REAL0 = 1795000000000000000ull;

/* records of a step, written in the order the recorder would (by return) */
struct out {
	struct ilog_record *r;
	uint32_t *w;   /* writer index */
	uint64_t *key; /* time the record is written */
	uint32_t n, cap;
};

static struct ilog_writer **W;
static unsigned nw;

static void push(struct out *o, unsigned w, uint64_t key, const struct ilog_record *rec)
{
	if (o->n == o->cap) {
		o->cap = o->cap ? o->cap * 2 : 1024;
		o->r = realloc(o->r, o->cap * sizeof(*o->r));
		o->w = realloc(o->w, o->cap * sizeof(*o->w));
		o->key = realloc(o->key, o->cap * sizeof(*o->key));
		if (!o->r || !o->w || !o->key) {
			ilog_errorf("out of memory");
			exit(ILOG_EXIT_USAGE);
		}
	}
	o->r[o->n] = *rec;
	o->w[o->n] = w;
	o->key[o->n++] = key;
}

static uint32_t *ord_idx;
static struct out *ord_out;
static int cmp_key(const void *a, const void *b)
{
	uint64_t x = ord_out->key[*(const uint32_t *)a], y = ord_out->key[*(const uint32_t *)b];
	return x < y ? -1 : x > y ? 1 : (*(const uint32_t *)a > *(const uint32_t *)b) -
					   (*(const uint32_t *)a < *(const uint32_t *)b);
}

static void flush(struct out *o)
{
	ord_idx = realloc(ord_idx, (o->n ? o->n : 1) * sizeof(*ord_idx));
	for (uint32_t i = 0; i < o->n; i++)
		ord_idx[i] = i;
	ord_out = o;
	qsort(ord_idx, o->n, sizeof(*ord_idx), cmp_key);
	for (uint32_t i = 0; i < o->n; i++)
		if (ilog_writer_put(W[o->w[ord_idx[i]]], &o->r[ord_idx[i]])) {
			ilog_errorf("%s", ilog_writer_error(W[o->w[ord_idx[i]]]));
			exit(ILOG_EXIT_USAGE);
		}
	o->n = 0;
}

static void call(struct out *o, unsigned w, uint32_t pid, uint16_t op, uint64_t ts, uint64_t dur,
		 uint64_t handle, uint64_t bytes, uint32_t kind, uint8_t flags)
{
	struct ilog_record rec = { .kind = ILOG_K_CUDA };
	struct ingero_cuda_event *e = &rec.u.cuda;
	e->ts_ns = ts;
	e->dur_ns = dur;
	e->pid = e->tid = pid;
	e->op = op;
	e->layer = (uint8_t)ilog_op_layer(op);
	e->handle = handle;
	e->bytes = bytes;
	e->kind = kind;
	e->flags = flags;
	e->stream = op == ILOG_OP_cudaLaunchKernel || op == ILOG_OP_cudaStreamSynchronize ||
				    ilog_op_layer(op) == ILOG_LAYER_NCCL
			    ? 0x7e0000a00000ull + pid
			    : 0;
	if (op == ILOG_OP_ncclCommInitRank)
		e->stream = 0;
	if (op == ILOG_OP_ncclAllReduce) {
		e->nargs = 1; /* ncclSum */
	}
	push(o, w, ts + dur, &rec);
}

static void host_switch(struct out *o, unsigned w, uint32_t pid, uint64_t ts, uint64_t dur,
			uint32_t other, const char *ocomm, uint64_t state)
{
	struct ilog_record rec = { .kind = ILOG_K_HOST };
	struct ingero_host_event *h = &rec.u.host;
	h->ts_ns = ts;
	h->dur_ns = dur;
	h->type = ILOG_HOST_SWITCH;
	h->pid = h->tid = pid;
	h->other_pid = h->other_tid = other;
	h->value = state;
	memcpy(h->comm, "python3", 8);
	if (ocomm)
		memcpy(h->other_comm, ocomm, strlen(ocomm) + 1);
	push(o, w, ts + dur, &rec);
}

static int parse3(const char *s, uint64_t *a, uint64_t *b, uint64_t *c, int n)
{
	char *e;
	*a = strtoull(s, &e, 0);
	if (*e != ':')
		return -1;
	if (n == 2) {
		if (ilog_parse_duration(e + 1, b))
			return -1;
		return 0;
	}
	*b = strtoull(e + 1, &e, 0);
	if (n == 3 && *e == ':')
		return ilog_parse_duration(e + 1, c);
	return n == 4 && !*e ? 0 : -1; /* R:STEP */
}

int main(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "ranks", required_argument, 0, 'n' }, { "steps", required_argument, 0, 's' },
		{ "seed", required_argument, 0, 'S' }, { "per-rank", no_argument, 0, 'P' },
		{ "straggler", required_argument, 0, 'L' }, { "hang", required_argument, 0, 'H' },
		{ "desync", required_argument, 0, 'D' }, { "bad", required_argument, 0, 'B' }, { 0 },
	};
	unsigned nranks = 4, per_rank = 0;
	uint64_t steps = 200, seed = 1;
	uint64_t late_rank = UINT64_MAX, late = 0, hang_rank = UINT64_MAX, hang_step = 0,
		 hang_dur = 0, ds_rank = UINT64_MAX, ds_step = 0, unused;
	const char *outp = NULL, *bad = "";
	int c;
	ilog_cli_init(argv[0]);
	while ((c = getopt_long(argc, argv, "o:", opts, NULL)) != -1) {
		switch (c) {
		case 'o': outp = optarg; break;
		case 'n': nranks = (unsigned)atoi(optarg); break;
		case 's': steps = strtoull(optarg, NULL, 0); break;
		case 'S': seed = strtoull(optarg, NULL, 0); break;
		case 'P': per_rank = 1; break;
		case 'B':
			bad = optarg;
			if (strcmp(bad, "nranks") && strcmp(bad, "repeat") && strcmp(bad, "noinit"))
				goto usage;
			break;
		case 'L':
			if (parse3(optarg, &late_rank, &late, &unused, 2))
				goto usage;
			break;
		case 'H':
			if (parse3(optarg, &hang_rank, &hang_step, &hang_dur, 3))
				goto usage;
			break;
		case 'D':
			if (parse3(optarg, &ds_rank, &ds_step, &unused, 4))
				goto usage;
			break;
		default: goto usage;
		}
	}
	if (!outp || nranks < 2 || nranks > 65536) {
usage:
		ilog_errorf("usage: job -o OUT [--ranks N] [--steps N] [--seed S] [--per-rank] "
			    "[--straggler R:DELAY] [--hang R:STEP:DUR] [--desync R:STEP]");
		return ILOG_EXIT_USAGE;
	}
	rng_state = seed * 0x9E3779B97F4A7C15ull + 1;
	nw = per_rank ? nranks : 1;
	W = calloc(nw, sizeof(*W));
	struct ilog_writer_opts wo = { .frame_ms = ILOG_FRAME_MS_OFF };
	for (unsigned i = 0; i < nw; i++) {
		char path[4096], node[64], err[256];
		if (per_rank)
			snprintf(path, sizeof(path), "%s%u.ilog", outp, i);
		else
			snprintf(path, sizeof(path), "%s", outp);
		int fd = ilog_open_out(path);
		if (fd < 0 || !(W[i] = ilog_writer_open(fd, &wo, err, sizeof(err)))) {
			if (fd >= 0)
				ilog_errorf("%s", err);
			return ILOG_EXIT_USAGE;
		}
		snprintf(node, sizeof(node), per_rank ? "gpu-node-%u" : "gpu-node", i);
		struct ilog_header h = {
			.node = ilog_str_c(node), .boot_id = ILOG_STR("b0075eed-0000-4000-8000-00000000a11b"),
			.host = ilog_str_c(node), .recorder = ILOG_STR("job " INGERO_VERSION),
			.kernel = ILOG_STR("6.1.0-synth"), .driver = ILOG_STR("580.65.06"),
			.session_id = seed * 1000 + i, .rank = per_rank ? i : 0,
			.mono_ns = MONO0, .boot_ns = MONO0 + 3000000000ull, .real_ns = REAL0,
		};
		if (ilog_writer_begin(W[i], &h)) {
			ilog_errorf("%s", ilog_writer_error(W[i]));
			return ILOG_EXIT_USAGE;
		}
	}
	struct out o = { 0 };
	uint64_t *t = calloc(nranks, sizeof(*t)), *arr = calloc(nranks, sizeof(*arr));
	static const uint8_t uid[128] = "synthetic ncclUniqueId of the job";
	uint64_t id = ilog_fnv1a(ILOG_FNV64_INIT, uid, sizeof(uid));
	for (unsigned r = 0; r < nranks; r++) {
		unsigned w = per_rank ? r : 0;
		uint32_t pid = 4000 + r;
		/* records are held until the step is flushed: their strings are static */
		struct ilog_record rec = { .kind = ILOG_K_PROCESS };
		rec.u.process = (struct ilog_process){
			.ts_ns = MONO0, .pid = pid, .ppid = 1, .uid = 1000, .start_ns = MONO0 - 1000000,
			.comm = ILOG_STR("python3"), .exe = ILOG_STR("/usr/bin/python3.11"),
		};
		push(&o, w, MONO0, &rec);
		if (late && r == late_rank) {
			rec.u.process = (struct ilog_process){
				.ts_ns = MONO0, .pid = 812, .ppid = 1, .uid = 0,
				.start_ns = MONO0 - 1000000, .comm = ILOG_STR("backup"),
				.exe = ILOG_STR("/usr/bin/backup"),
			};
			push(&o, w, MONO0, &rec);
		}
		t[r] = MONO0 + 1000000 + rnd() % 1000000;
		struct ilog_record ir = { .kind = ILOG_K_CUDA };
		int lastr = r == nranks - 1;
		if (!(lastr && !strcmp(bad, "noinit"))) {
			call(&o, w, pid, ILOG_OP_ncclCommInitRank, t[r], 50000000, 0x55aa00100000ull + r,
			     nranks + (lastr && !strcmp(bad, "nranks")),
			     lastr && !strcmp(bad, "repeat") ? 0 : r, 0);
			o.r[o.n - 1].u.cuda.nargs = 1;
			o.r[o.n - 1].u.cuda.args[0] = id;
		}
		(void)ir;
		t[r] += 50000000;
	}
	flush(&o);
	uint64_t end_all = 0, next_clock = MONO0 + 1000000000ull;
	for (uint64_t s = 0; s < steps; s++) {
		int hang_now = hang_rank < nranks && s == hang_step;
		uint64_t last = 0;
		for (unsigned r = 0; r < nranks; r++) {
			unsigned w = per_rank ? r : 0;
			uint32_t pid = 4000 + r;
			call(&o, w, pid, ILOG_OP_cudaLaunchKernel, t[r], urange(4000, 8000), 0x55d0c0a01000ull,
			     0, 0, 0);
			uint64_t work = urange(1800000, 2200000);
			if (late && r == late_rank) {
				/* preempted by the backup for most of the delay */
				host_switch(&o, w, pid, t[r] + 200000, late * 9 / 10, 812, "backup", 0);
				work += late;
			}
			arr[r] = t[r] + 10000 + work;
			if (hang_now && r == hang_rank) {
				host_switch(&o, w, pid, t[r] + 20000, hang_dur - 40000, 0, NULL, 1);
				continue;
			}
			uint16_t op = ds_rank < nranks && r == ds_rank && s == ds_step ? ILOG_OP_ncclAllGather
										     : ILOG_OP_ncclAllReduce;
			call(&o, w, pid, op, arr[r], urange(8000, 15000), 0x55aa00100000ull + r,
			     1u << 22, 7, 0);
			if (arr[r] > last)
				last = arr[r];
		}
		uint64_t done = last + 20000 + urange(300000, 500000);
		for (unsigned r = 0; r < nranks; r++) {
			unsigned w = per_rank ? r : 0;
			uint32_t pid = 4000 + r;
			if (hang_now && r == hang_rank)
				continue;
			uint64_t st = arr[r] + 20000;
			if (hang_now) {
				call(&o, w, pid, ILOG_OP_cudaStreamSynchronize, st, last + hang_dur - st, 0,
				     0, 0, ILOG_CUDA_F_NO_RETURN);
				if (last + hang_dur > end_all)
					end_all = last + hang_dur;
				continue;
			}
			uint64_t e = done + urange(0, 20000);
			call(&o, w, pid, ILOG_OP_cudaStreamSynchronize, st, e - st, 0, 0, 0, 0);
			t[r] = e + urange(5000, 15000);
			if (t[r] > end_all)
				end_all = t[r];
		}
		while (next_clock < end_all) {
			for (unsigned i = 0; i < nw; i++) {
				struct ilog_record cr = { .kind = ILOG_K_CLOCK };
				cr.u.clock.mono_ns = next_clock;
				cr.u.clock.boot_ns = next_clock + 3000000000ull;
				cr.u.clock.real_ns = REAL0 + (next_clock - MONO0);
				push(&o, i, next_clock, &cr);
			}
			next_clock += 1000000000ull;
		}
		flush(&o);
		if (hang_now)
			break;
	}
	for (unsigned i = 0; i < nw; i++) {
		char err[256];
		if (ilog_writer_close(W[i], err, sizeof(err))) {
			ilog_errorf("%s", err);
			return ILOG_EXIT_USAGE;
		}
	}
	free(t);
	free(arr);
	free(o.r);
	free(o.w);
	free(o.key);
	free(ord_idx);
	free(W);
	return 0;
}
