// SPDX-License-Identifier: MIT
/*
 * scensynth: writes a synthetic scenario log (cmd/ingero-demo/scenario.c) for tests and
 * benchmarks.  Not a user command (users run `ingero demo --no-bpf`).
 *
 *   scensynth SCENARIO [-o FILE] [--seed N] [--seconds S] [--sync-factor F]
 *             [--node NAME] [--mono-ns NS] [--real-ns NS]
 *             [--mem-dip FRAC [--mem-dip-at FROM,TO]] [--jitter FRAC]
 *             [--saturate PCT] [--runq PID] [--steal PCT [--steal-slow NS]]
 *             [--first-window NS]
 *   scensynth --list
 *
 * --mem-dip rewrites the scenario's system snapshots the way an idle but
 * shared host looks: available memory wiggles by up to 0.2% of the total
 * in every snapshot (deterministic), and in the snapshots taken between
 * FROM and TO (fractions of the span of the CUDA calls; default 0.4,0.75,
 * inside every staged slowdown of gpu-slow) it is lower by FRAC of the
 * total - another process holding memory for a while, no page allocations
 * by the traced processes, no swap.  Not memory pressure: correlate must
 * not blame the host for it.
 *
 * --jitter delays FRAC of all CUDA calls (chosen at random, deterministic
 * for the seed) by a log-uniform 1 us - 10 ms, as a loaded machine does
 * when it preempts a thread inside a call (up to a few scheduler slices);
 * the calls keep their start times.
 *
 * --saturate sets the snapshots taken between FROM and TO (--mem-dip-at)
 * to a saturated host's: CPUs 100% busy, PSI cpu some PCT.
 *
 * --runq PID makes another process, PID "cpuhog" (a process record),
 * hold the CPU each synchronizing call's thread is woken to when the call
 * ends between FROM and TO: the call is 1-4 ms longer (log-uniform), and a
 * `wakeup` record of its thread says it waited that long with PID as the
 * occupant (format 1.7).  Everywhere, one call in ten also waits 60-150 us
 * on an idle CPU (a wakeup with no occupant), as any host's wakeups do.
 *
 * --steal sets the snapshots taken between FROM and TO to a VM's whose
 * hypervisor gave PCT of its CPUs' time to others (steal_pct, format 1.8;
 * counted in cpu_pct too, as /proc/stat's busy time counts it); with
 * --steal-slow, the snapshots instead whose span (since the one before)
 * saw a synchronizing call longer than NS begin: a hypervisor that paused
 * the VM at those times.  The calls are left as they are.
 *
 * --first-window adds what an older recorder's first window looked like on
 * a loaded host (its programs took seconds to load, and the window held
 * them): process 4242 "sh", gone early, allocated 64 pages in one
 * page_alloc aggregate NS long, ending where the CUDA calls begin.
 */
#include <getopt.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "ingero/cli.h"
#include "scenario.h"

struct dip {
	double frac, from, to, jitter, sat, steal;
	uint64_t seed, steal_slow, first_window;
	uint32_t runq;
};

/* Whether the scenario's log is rewritten (rewrite). */
static int rewriting(const struct dip *d)
{
	return d->frac > 0 || d->jitter > 0 || d->sat > 0 || d->runq || d->steal > 0 ||
	       d->first_window;
}

/* xorshift64: uniform in [0, 1) */
static double uni01(uint64_t *x)
{
	*x ^= *x << 13, *x ^= *x >> 7, *x ^= *x << 17;
	return (double)(*x >> 11) / 9007199254740992.0;
}

/* The CUDA calls' time span in the log on fd (read from the start). */
static int cuda_span(int fd, uint64_t *a, uint64_t *b, char *err, size_t errlen)
{
	struct ilog_reader *r = ilog_reader_open(fd, err, errlen);
	if (!r)
		return -1;
	const struct ilog_record *rec;
	int k;
	*a = UINT64_MAX;
	*b = 0;
	while ((k = ilog_reader_next(r, &rec)) > 0)
		if (rec->kind == ILOG_K_CUDA) {
			if (rec->u.cuda.ts_ns < *a)
				*a = rec->u.cuda.ts_ns;
			if (rec->u.cuda.ts_ns > *b)
				*b = rec->u.cuda.ts_ns;
		}
	if (k < 0)
		snprintf(err, errlen, "%s", ilog_reader_error(r));
	ilog_reader_close(r);
	return k < 0 || *b < *a ? -1 : 0;
}

static int sync_op(uint16_t op)
{
	return op == ILOG_OP_cudaStreamSynchronize || op == ILOG_OP_cudaDeviceSynchronize ||
	       op == ILOG_OP_cudaEventSynchronize || op == ILOG_OP_cuCtxSynchronize ||
	       op == ILOG_OP_cuStreamSynchronize;
}

/* --runq: the call c waits w ns for a CPU after its wakeup at its end,
 * held by occ (0: idle): the call is w longer, and its wakeup record. */
static int runq_wait(struct ilog_writer *w, struct ilog_record *c, uint64_t wait, uint32_t occ)
{
	struct ilog_record h = { .kind = ILOG_K_HOST };
	h.u.host = (struct ingero_host_event){
		.ts_ns = c->u.cuda.ts_ns + c->u.cuda.dur_ns, .type = ILOG_HOST_WAKEUP,
		.pid = c->u.cuda.pid, .tid = c->u.cuda.tid, .dur_ns = wait, .value = occ,
	};
	c->u.cuda.dur_ns += wait;
	return ilog_writer_put(w, &h);
}

/* Copy the log on in to w with snapshots and CUDA call durations changed. */
static int rewrite(int in, struct ilog_writer *w, const struct dip *d, char *err, size_t errlen)
{
	uint64_t a, b;
	if (cuda_span(in, &a, &b, err, errlen) || lseek(in, 0, SEEK_SET) < 0)
		return -1;
	uint64_t da = a + (uint64_t)(d->from * (double)(b - a));
	uint64_t db = a + (uint64_t)(d->to * (double)(b - a));
	struct ilog_reader *r = ilog_reader_open(in, err, errlen);
	if (!r)
		return -1;
	const struct ilog_record *rec;
	uint64_t x = d->seed * 0x9e3779b97f4a7c15ull + 1, y = x ^ 0x5bd1e995ull;
	int k, rc = 0;
	uint64_t z = d->seed * 0xd1b54a32d192ed03ull + 7;
	int hog_written = 0, slow_seen = 0, fw_written = 0;
	while (!rc && (k = ilog_reader_next(r, &rec)) > 0) {
		if (rec->kind == ILOG_K_CUDA && d->steal_slow && sync_op(rec->u.cuda.op) &&
		    rec->u.cuda.dur_ns > d->steal_slow)
			slow_seen = 1;
		if (d->runq && !hog_written && rec->kind != ILOG_K_HEADER &&
		    rec->kind != ILOG_K_CLOCK) {
			struct ilog_record p = { .kind = ILOG_K_PROCESS };
			p.u.process = (struct ilog_process){ .ts_ns = a, .pid = d->runq, .ppid = 1,
							     .comm = ILOG_STR("cpuhog") };
			rc = ilog_writer_put(w, &p);
			hog_written = 1;
		}
		if (d->first_window && !fw_written && rec->kind != ILOG_K_HEADER &&
		    rec->kind != ILOG_K_CLOCK) {
			struct ilog_record p = { .kind = ILOG_K_PROCESS }, h = { .kind = ILOG_K_HOST };
			uint64_t t0 = a > d->first_window ? a - d->first_window : 0;
			p.u.process = (struct ilog_process){ .ts_ns = t0, .pid = 4242, .ppid = 1,
							     .comm = ILOG_STR("sh") };
			h.u.host = (struct ingero_host_event){ .ts_ns = t0, .dur_ns = a - t0,
							       .pid = 4242, .value = 64,
							       .type = ILOG_HOST_PAGE_ALLOC, .comm = "sh" };
			rc = ilog_writer_put(w, &p) || ilog_writer_put(w, &h);
			fw_written = 1;
		}
		if (rec->kind == ILOG_K_CUDA && d->runq && sync_op(rec->u.cuda.op)) {
			struct ilog_record c = *rec;
			uint64_t end = c.u.cuda.ts_ns + c.u.cuda.dur_ns;
			if (end >= da && end < db)
				rc = runq_wait(w, &c, (uint64_t)exp(log(1e6) + uni01(&z) * log(4.0)),
					       d->runq);
			else if (uni01(&z) < 0.1)
				rc = runq_wait(w, &c, (uint64_t)(60e3 + uni01(&z) * 90e3), 0);
			if (!rc)
				rc = ilog_writer_put(w, &c);
			continue;
		}
		if (rec->kind == ILOG_K_CUDA && d->jitter > 0) {
			struct ilog_record c = *rec;
			if (uni01(&y) < d->jitter)
				c.u.cuda.dur_ns += (uint64_t)exp(log(1e3) + uni01(&y) * (log(1e7) - log(1e3)));
			rc = ilog_writer_put(w, &c);
			continue;
		}
		if (rec->kind != ILOG_K_SNAPSHOT ||
		    (d->frac <= 0 && d->sat <= 0 && d->steal <= 0)) {
			rc = ilog_writer_put(w, rec);
			continue;
		}
		struct ilog_record c = *rec;
		struct ilog_snapshot *s = &c.u.snapshot;
		if (d->sat > 0 && s->ts_ns >= da && s->ts_ns < db) {
			s->cpu_pct = 100;
			s->psi_cpu_some = d->sat;
		}
		if (d->steal > 0 &&
		    (d->steal_slow ? slow_seen : s->ts_ns >= da && s->ts_ns < db)) {
			s->steal_pct = d->steal;
			s->cpu_pct = s->cpu_pct + d->steal > 100 ? 100 : s->cpu_pct + d->steal;
		}
		slow_seen = 0;
		if (d->frac <= 0) {
			rc = ilog_writer_put(w, &c);
			continue;
		}
		double wig = (uni01(&x) * 2 - 1) * 0.002;
		double av = (double)s->mem_avail + wig * (double)s->mem_total;
		if (s->ts_ns >= da && s->ts_ns < db)
			av -= d->frac * (double)s->mem_total;
		s->mem_avail = av < 0 ? 0 : av > (double)s->mem_total ? s->mem_total : (uint64_t)av;
		rc = ilog_writer_put(w, &c);
	}
	if (rc)
		snprintf(err, errlen, "%s", ilog_writer_error(w));
	else if (k < 0)
		snprintf(err, errlen, "%s", ilog_reader_error(r)), rc = -1;
	ilog_reader_close(r);
	return rc;
}

int main(int argc, char **argv)
{
	static const struct option lo[] = {
		{ "seed", required_argument, 0, 's' }, { "seconds", required_argument, 0, 'S' },
		{ "sync-factor", required_argument, 0, 'f' }, { "node", required_argument, 0, 'N' },
		{ "mono-ns", required_argument, 0, 'M' }, { "real-ns", required_argument, 0, 'R' },
		{ "list", no_argument, 0, 'l' }, { "mem-dip", required_argument, 0, 'm' },
		{ "mem-dip-at", required_argument, 0, 'a' }, { "jitter", required_argument, 0, 'j' },
		{ "saturate", required_argument, 0, 'p' }, { "runq", required_argument, 0, 'q' },
		{ "steal", required_argument, 0, 't' }, { "steal-slow", required_argument, 0, 'T' },
		{ "first-window", required_argument, 0, 'F' },
		{ 0 },
	};
	struct ilog_scenario_opts so = { 0 };
	struct dip dip = { .from = 0.4, .to = 0.75 };
	const char *out = NULL;
	int c;
	ilog_cli_init(argv[0]);
	while ((c = getopt_long(argc, argv, "o:", lo, NULL)) != -1) {
		switch (c) {
		case 'o': out = optarg; break;
		case 's': so.seed = strtoull(optarg, NULL, 0); break;
		case 'S': so.seconds = strtod(optarg, NULL); break;
		case 'f': so.sync_factor = strtod(optarg, NULL); break;
		case 'N': so.node = optarg; break;
		case 'M': so.mono_ns = strtoull(optarg, NULL, 0); break;
		case 'R': so.real_ns = strtoull(optarg, NULL, 0); break;
		case 'm': dip.frac = strtod(optarg, NULL); break;
		case 'j': dip.jitter = strtod(optarg, NULL); break;
		case 'p': dip.sat = strtod(optarg, NULL); break;
		case 'q': dip.runq = (uint32_t)strtoul(optarg, NULL, 0); break;
		case 't': dip.steal = strtod(optarg, NULL); break;
		case 'T': dip.steal_slow = strtoull(optarg, NULL, 0); break;
		case 'F': dip.first_window = strtoull(optarg, NULL, 0); break;
		case 'a':
			if (sscanf(optarg, "%lf,%lf", &dip.from, &dip.to) != 2 || dip.from >= dip.to) {
				ilog_errorf("--mem-dip-at: want FROM,TO (fractions of the run)");
				return ILOG_EXIT_USAGE;
			}
			break;
		case 'l':
			for (const char *const *n = ilog_scenario_names(); *n; n++)
				printf("%-18s %s\n", *n, ilog_scenario_help(*n));
			return ilog_finish_stdout(0);
		default: return ILOG_EXIT_USAGE;
		}
	}
	if (optind + 1 != argc) {
		ilog_errorf("usage: scensynth SCENARIO [-o FILE] [--seed N] [--seconds S]");
		return ILOG_EXIT_USAGE;
	}
	so.name = argv[optind];
	int fd = ilog_open_out(out);
	if (fd < 0 || (!out && ilog_refuse_tty(fd, "a log")))
		return ILOG_EXIT_USAGE;
	char err[256];
	struct ilog_writer_opts wo = { .frame_ms = ILOG_FRAME_MS_OFF };
	struct ilog_writer *w = ilog_writer_open(fd, &wo, err, sizeof(err));
	if (!w) {
		ilog_errorf("%s", err);
		return ILOG_EXIT_USAGE;
	}
	/* rewritten, the scenario goes to a temporary file first */
	FILE *tmp = rewriting(&dip) ? tmpfile() : NULL;
	struct ilog_writer *sw = w;
	if (rewriting(&dip)) {
		sw = tmp ? ilog_writer_open(fileno(tmp), &wo, err, sizeof(err)) : NULL;
		if (!sw) {
			ilog_errorf("temporary log: %s", tmp ? err : "cannot create");
			return ILOG_EXIT_USAGE;
		}
	}
	dip.seed = so.seed ? so.seed : 1;
	int rc = ilog_scenario_write(sw, &so, err, sizeof(err));
	if (rc)
		ilog_errorf("%s", err);
	if (sw != w) {
		if (ilog_writer_close(sw, err, sizeof(err)) && !rc) {
			ilog_errorf("temporary log: %s", err);
			rc = -1;
		}
		if (!rc && (lseek(fileno(tmp), 0, SEEK_SET) < 0 ||
			    rewrite(fileno(tmp), w, &dip, err, sizeof(err)))) {
			ilog_errorf("%s", err);
			rc = -1;
		}
		fclose(tmp);
	}
	if (ilog_writer_close(w, err, sizeof(err))) {
		ilog_errorf("%s", err);
		rc = -1;
	}
	return rc ? ILOG_EXIT_USAGE : 0;
}
