// SPDX-License-Identifier: MIT
/*
 * libFuzzer target: the analysis (lib/analyze/stats.c, lib/analyze/causal.c, lib/analyze/explain.c,
 * lib/analyze/gate.c) on adversarial record streams.  The bytes are not a log: they
 * drive a sequence of decoded records directly (kind, then field values),
 * so every value the reader could hand over - timestamps out of order or
 * before the start, 2^64-1 durations, any op, host type, pid and state,
 * snapshots with more free than total memory - reaches the statistics and
 * the detectors without first having to survive zstd.  Checks: no crash,
 * leak or undefined behaviour; chains are ranked by severity and their
 * evidence and metrics are JSON arrays/objects; the gate of a run against
 * itself finds no regression.
 */
#include <stdlib.h>
#include <string.h>
#include "ingero/explain.h"
#include "ingero/gate.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

struct in { const uint8_t *p; size_t n; };

static uint64_t take(struct in *in, unsigned bytes)
{
	uint64_t v = 0;
	for (unsigned i = 0; i < bytes; i++) {
		v = v << 8 | (in->n ? *in->p : 0);
		if (in->n)
			in->p++, in->n--;
	}
	return v;
}

static struct ilog_stats *feed(const uint8_t *data, size_t size, uint64_t window)
{
	struct ilog_stats_opts o = { .window_ns = window };
	struct ilog_stats *st = ilog_stats_new(&o);
	if (!st)
		abort();
	struct in in = { data, size };
	uint64_t ts = 1000000000000ull;
	struct ilog_record h = { .kind = ILOG_K_HEADER };
	h.u.header.mono_ns = take(&in, 1) ? ts : 0;
	h.u.header.real_ns = 1795000000000000000ull;
	h.u.header.node = ILOG_STR("fuzz");
	ilog_stats_add(st, &h, NULL);
	for (int n = 0; in.n && n < 4096; n++) {
		struct ilog_record r = { 0 };
		uint8_t k = (uint8_t)take(&in, 1);
		/* small steps in time mostly, now and then a jump or a step back */
		uint64_t step = take(&in, 2);
		if (k & 0x80)
			step <<= (take(&in, 1) % 40);
		ts = k & 0x40 ? ts - (step < ts ? step : 0) : ts + step;
		r.node = (k & 0x20) ? 1 : 0;
		switch (k % 5) {
		case 0: case 1:
			r.kind = ILOG_K_CUDA;
			r.u.cuda.ts_ns = ts;
			r.u.cuda.dur_ns = take(&in, 1) == 0xff ? UINT64_MAX : take(&in, 3) << (take(&in, 1) % 24);
			r.u.cuda.pid = (uint32_t)take(&in, 1) % 4 + 100;
			r.u.cuda.tid = r.u.cuda.pid + (uint32_t)take(&in, 1) % 3;
			r.u.cuda.op = (uint16_t)(take(&in, 1) % (ILOG_OP__COUNT + 2));
			r.u.cuda.layer = (uint8_t)take(&in, 1);
			r.u.cuda.ret = (int32_t)take(&in, 1) % 4 == 0 ? (int32_t)take(&in, 2) : 0;
			r.u.cuda.flags = (uint8_t)take(&in, 1);
			r.u.cuda.stream = take(&in, 1) % 3;
			r.u.cuda.bytes = take(&in, 4);
			r.u.cuda.kind = (uint32_t)take(&in, 1) % 7;
			break;
		case 2: case 3:
			r.kind = ILOG_K_HOST;
			r.u.host.ts_ns = ts;
			r.u.host.type = (uint16_t)(take(&in, 1) % (ILOG_HOST__COUNT + 2));
			r.u.host.dur_ns = take(&in, 1) == 0xff ? UINT64_MAX : take(&in, 3);
			r.u.host.value = take(&in, 1) % 3 ? take(&in, 1) % 2 : take(&in, 4);
			r.u.host.pid = (uint32_t)take(&in, 1) % 6 + 99;
			r.u.host.tid = r.u.host.pid + (uint32_t)take(&in, 1) % 3;
			r.u.host.other_pid = (uint32_t)take(&in, 1) % 8 + 98;
			memcpy(r.u.host.comm, "victim", 7);
			memcpy(r.u.host.other_comm, "culprit\\\"x", 11);
			break;
		default:
			r.kind = ILOG_K_SNAPSHOT;
			r.u.snapshot.ts_ns = ts;
			r.u.snapshot.cpu_pct = (double)take(&in, 1);
			r.u.snapshot.ncpu = (uint32_t)take(&in, 1);
			r.u.snapshot.mem_total = take(&in, 2) << 20;
			r.u.snapshot.mem_avail = take(&in, 2) << 20;
			r.u.snapshot.swap_total = take(&in, 1) << 20;
			r.u.snapshot.swap_free = take(&in, 1) << 20;
			r.u.snapshot.load1 = (double)take(&in, 1) / 8;
			break;
		}
		if (ilog_stats_add(st, &r, NULL))
			abort();
	}
	if (ilog_stats_finish(st))
		abort();
	return st;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	/* adaptive windows and a fixed width, from the same stream */
	for (int pass = 0; pass < 2; pass++) {
		struct ilog_stats *st = feed(data, size, pass ? 50000000ull : 0);
		struct ilog_chain_set cs;
		char err[64];
		if (ilog_causal_run(st, &cs, err, sizeof(err)))
			abort();
		for (uint32_t i = 0; i < cs.n; i++) {
			const struct ilog_chain *c = &cs.chains[i];
			if (c->severity > ILOG_SEV_HIGH || (i && c->severity > cs.chains[i - 1].severity) ||
			    !c->evidence.n || c->evidence.p[0] != '[' || !c->metrics.n ||
			    c->metrics.p[0] != '{' || c->metrics.p[c->metrics.n - 1] != '}' || !c->id ||
			    !(c->score >= 0 && c->score <= 1))
				abort();
		}
		struct ilog_buf b = { 0 };
		struct ilog_explain_opts eo = { .per_process = pass, .windows = 1, .max_timeline = 4 };
		if (ilog_explain_report(&b, st, &cs, &eo) || ilog_explain_json(&b, st, &cs, &eo))
			abort();
		struct ilog_gate g;
		if (ilog_gate_compare(st, &cs, st, &cs, 0.2, pass, &g))
			abort();
		if (g.regressed || g.nnew)
			abort(); /* a run is no regression of itself */
		ilog_gate_text(&b, &g, "a", "b");
		ilog_gate_free(&g);
		ilog_buf_free(&b);
		ilog_chain_set_free(&cs);
		ilog_stats_free(st);
	}
	return 0;
}
