// SPDX-License-Identifier: MIT
/*
 * preemptlog: writes a log whose preemptions end after the CUDA call that
 * contains them, as on a real recording (the scheduler's tracepoints and
 * the call's uprobes time the two ends), for the Perfetto export tests.
 * Not a user command.  Deterministic.
 *
 *   preemptlog -o FILE [--calls N]
 *
 * One node; process 4200 "python3" (a process record) with threads 4200
 * and 4201, process 4300 with no process record (its name is unknown).
 * Every call is a cudaStreamSynchronize of 100-300 us at epoch-scale wall
 * times with nanosecond parts; every fourth one is preempted from 20 us
 * in until 1-999 ns after the call returns (the host record comes first,
 * as the recorder writes it).
 */
#include <getopt.h>
#include <stdlib.h>
#include <string.h>
#include "ingero/cli.h"

static struct ilog_writer *w;

static void put(struct ilog_record *rec)
{
	if (ilog_writer_put(w, rec)) {
		ilog_errorf("%s", ilog_writer_error(w));
		exit(ILOG_EXIT_USAGE);
	}
}

int main(int argc, char **argv)
{
	const char *out = NULL;
	unsigned long calls = 30;
	static const struct option lo[] = {
		{ "calls", required_argument, NULL, 'n' }, { 0 },
	};
	for (int c; (c = getopt_long(argc, argv, "o:", lo, NULL)) != -1;) {
		if (c == 'o')
			out = optarg;
		else if (c == 'n')
			calls = strtoul(optarg, NULL, 10);
		else
			return ILOG_EXIT_USAGE;
	}
	if (!out) {
		ilog_errorf("usage: preemptlog -o FILE [--calls N]");
		return ILOG_EXIT_USAGE;
	}
	int fd = ilog_open_out(out);
	char err[256];
	struct ilog_writer_opts wo = { .frame_ms = ILOG_FRAME_MS_OFF };
	if (fd < 0 || !(w = ilog_writer_open(fd, &wo, err, sizeof(err)))) {
		if (fd >= 0)
			ilog_errorf("%s", err);
		return ILOG_EXIT_USAGE;
	}
	uint64_t mono = 900000000000ull;
	struct ilog_header h = {
		.node = ILOG_STR("gpu-node-0"), .boot_id = ILOG_STR("boot-preempt"),
		.host = ILOG_STR("gpu-node-0"), .recorder = ILOG_STR("preemptlog " INGERO_VERSION),
		.kernel = ILOG_STR("6.1.0-synth"), .driver = ILOG_STR("580.65.06"),
		.session_id = 42, .rank = -1, .mono_ns = mono, .boot_ns = mono + 3000000000ull,
		.real_ns = 1795000000123456789ull,
	};
	if (ilog_writer_begin(w, &h)) {
		ilog_errorf("%s", ilog_writer_error(w));
		return ILOG_EXIT_USAGE;
	}
	struct ilog_record rec = { .kind = ILOG_K_PROCESS };
	static const char argv0[] = "python3\0train.py";
	rec.u.process = (struct ilog_process){
		.ts_ns = mono, .pid = 4200, .ppid = 1, .uid = 1000, .start_ns = mono - 1000000,
		.comm = ILOG_STR("python3"), .exe = ILOG_STR("/usr/bin/python3.11"),
		.cmdline = { (const uint8_t *)argv0, sizeof(argv0) },
	};
	put(&rec);
	static const uint32_t pids[3] = { 4200, 4200, 4300 }, tids[3] = { 4200, 4201, 4300 };
	uint64_t t = mono + 1000;
	for (unsigned long i = 0; i < calls; i++) {
		uint32_t pid = pids[i % 3], tid = tids[i % 3];
		uint64_t dur = 100000 + (i * 7919) % 200000 + (i * 131) % 1000;
		if (i % 4 == 0) {
			struct ilog_record hr = { .kind = ILOG_K_HOST };
			struct ingero_host_event *he = &hr.u.host;
			he->ts_ns = t + 20000 + i % 7;
			/* ends 1-999 ns after the call does */
			he->dur_ns = t + dur + 1 + (i * 37) % 999 - he->ts_ns;
			he->type = ILOG_HOST_SWITCH;
			he->pid = pid;
			he->tid = tid;
			he->other_pid = 812;
			he->other_tid = 812;
			he->cpu = 1;
			memcpy(he->comm, "python3", 8);
			memcpy(he->other_comm, "backup", 7);
			put(&hr);
		}
		struct ilog_record cr = { .kind = ILOG_K_CUDA };
		struct ingero_cuda_event *e = &cr.u.cuda;
		e->ts_ns = t;
		e->dur_ns = dur;
		e->pid = pid;
		e->tid = tid;
		e->op = ILOG_OP_cudaStreamSynchronize;
		e->layer = (uint8_t)ilog_op_layer(e->op);
		e->stream = 0x7e0000a00000ull;
		put(&cr);
		t += dur + 3000 + i % 11;
	}
	struct ilog_record lr = { .kind = ILOG_K_LOSS };
	lr.u.loss = (struct ilog_loss){ .ts_ns = t, .source = ILOG_STR("ringbuf:cuda") };
	put(&lr);
	if (ilog_writer_close(w, err, sizeof(err))) {
		ilog_errorf("%s", err);
		return ILOG_EXIT_USAGE;
	}
	return 0;
}
