// SPDX-License-Identifier: MIT
/*
 * Synthetic scenario logs (scenario.h).
 *
 * The model: a training process runs steps of host work (150-250 us), eight
 * kernel launches (~5 us each), an async copy and a stream synchronize that
 * waits for the step's GPU work (2 ms +-3%, scaled by sync_factor).  A
 * preempted thread loses the CPU for a scheduler slice (2-5 ms) with a
 * probability that grows with the time it is running (1 - exp(-t/3 ms));
 * a kworker preempts it briefly a few times a second in every scenario.
 * System snapshots come every second.  Each scenario adds one pattern, with
 * its start, length and magnitudes drawn from the seed:
 *
 *   clean             the steady loop only
 *   incident          = cpu-contention: "backup" shares the training CPU
 *                       for 60-65% of the run from 20-25% of it
 *   gpu-slow          the GPU work of a step grows 3-4x for a third of the
 *                       run; the host stays idle
 *   cold-start        the first cudaMalloc (context creation, 350-450 ms),
 *                       first launch (module load) and first copy are slow
 *   memcpy-bottleneck each step copies 32 MiB from pageable memory at
 *                       ~3 GiB/s with cudaMemcpy
 *   periodic-spike    cudaMalloc/cudaFree every step; every 280-340 steps
 *                       (~0.7 s) the allocator goes to the driver (40-60 ms)
 *   graph-recapture   a CUDA graph is captured once, then re-captured and
 *                       re-instantiated (30-50 ms) every 8 steps
 *   capture-warmup    the first capture comes before any eager launch and
 *                       fails (901); it works after warm-up steps
 *   gpu-contention    "infer" runs its own CUDA loop for 40-50% of the run;
 *                       the training steps' GPU work takes 2.5-3x longer then
 *   memory-pressure   "memhog" allocates ~4 GiB/s for a third of the run:
 *                       available memory and swap show it, and the training
 *                       process's pageable copies slow down 3-5x
 *   oom               memory pressure that ends with the OOM killer killing
 *                       the training process in a synchronize
 *   isolated-stalls   12 steps at random times (ilog_scenario_stall_times)
 *                       wait 150-250 ms for their GPU work: no rhythm, no
 *                       slow period; the host stays idle
 *   memory-storm      memory-pressure, synthesized the same way (recorded for
 *                       real, the hog is a host process outside the job)
 *   memory-steady     clean, synthesized the same way (recorded for real, a
 *                       host process allocates steadily all along)
 *   memory-mild,      recorded only: memory-storm's process at 0.5% of the
 *   memory-mild-ok      available memory per second, half the rule's edge,
 *                       while the job's copies slow down, or while it runs
 *                       steadily
 *   noisy-neighbour   incident, the job and "neighbour" each in a container
 *                       of its own (Kubernetes pods, cgroupfs driver)
 *   neighbour-quiet   clean, with the idle neighbour's container beside it
 *   disk-stall        recorded only (real block I/O on a loop device); its
 *                       synthesized log is the clean loop
 *   disk-steady       clean, synthesized the same way (recorded for real)
 *   net-retrans       recorded only: the job's ncclAllReduce exchanges data
 *                       with its peer rank ("rank1") over TCP on loopback
 *                       while an iptables rule drops the peer's segments
 *                       for a third of the run (workload.c)
 *   net-lossy         recorded only: the same, the peer's segments dropped
 *                       three times as often for the whole run
 *   net-steady        clean, synthesized the same way (recorded for real,
 *                       the same all-reduce with no loss)
 *   straggler, hang,  recorded only: a 4-rank job whose ranks rendezvous
 *   ranks-clean         in the fake NCCL (workload.c demo_rank)
 *   microbatch,       recorded only: steps of 4 micro-batches, with or
 *   microbatch-item     without a blocking copy in each (the gate's pair)
 *   cpu-quota,        recorded only: the job in a container whose cgroup has
 *   cpu-quota-ok        a CPU quota of 0.1 CPU (throttled) or 2 CPUs (not)
 *   launch-bound,     recorded only: 200 kernels launched one by one per
 *   launch-graphs       step, or the same step as one CUDA graph
 *   lock-wait,        recorded only: the loop's model lock held by a
 *   lock-quiet          checkpoint thread 12 ms of every 16 for a while, or
 *                       50 us (time lost between calls, in futex waits)
 *   loader-wait,      recorded only: the loop reads each batch from a loader
 *   loader-steady       child's pipe; the loader takes 12 ms a batch for a
 *                       while, or 0.2 ms (time lost between calls, in reads)
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "ingero/vec.h"
#include "scenario.h"

enum { E_CUDA, E_HOST, E_SNAP, E_PROC };

struct sev {
	uint8_t kind;
	uint64_t ts;
	union {
		struct ingero_cuda_event c;
		struct ingero_host_event h;
		struct { double cpu, load, pcpu; uint64_t avail, swap_used, rss; uint32_t pid; } s;
		struct { uint32_t pid, ppid; char comm[16]; const char *cg; } p;
	} u;
};

struct gen {
	uint64_t rng;
	struct sev *ev;
	uint32_t n, cap;
	int oom;
	uint64_t t0, end;
	double sync_factor;
};

/* A simulated CUDA-calling thread and what disturbs it. */
struct sim {
	uint32_t pid, tid;
	char comm[16];
	uint64_t t;
	uint64_t pre_a, pre_b;    /* preempted by pre_pid in [pre_a, pre_b) */
	uint32_t pre_pid;
	const char *pre_comm;
	uint64_t stream;
	uint32_t calls;
};

static uint64_t rnd(struct gen *g)
{
	g->rng ^= g->rng >> 12;
	g->rng ^= g->rng << 25;
	g->rng ^= g->rng >> 27;
	return g->rng * 2685821657736338717ull;
}

static double u01(struct gen *g)
{
	return (double)(rnd(g) >> 11) / 9007199254740992.0;
}

static double uni(struct gen *g, double a, double b)
{
	return a + (b - a) * u01(g);
}

/* Roughly normal (Irwin-Hall of 4) with mean m and relative sd f. */
static double nrm(struct gen *g, double m, double f)
{
	double s = u01(g) + u01(g) + u01(g) + u01(g) - 2.0;
	return m * (1 + f * s * 1.7320508);
}

static struct sev *add(struct gen *g, uint8_t kind, uint64_t ts)
{
	if (ilog_grow((void **)&g->ev, &g->cap, g->n, sizeof(*g->ev), 65536)) {
		g->oom = 1;
		return NULL;
	}
	struct sev *e = &g->ev[g->n++];
	memset(e, 0, sizeof(*e));
	e->kind = (uint8_t)kind;
	e->ts = ts;
	return e;
}

static void host_ev(struct gen *g, uint16_t type, uint64_t ts, uint64_t dur, uint64_t value,
		    uint32_t pid, uint32_t tid, const char *comm, uint32_t opid, uint32_t otid,
		    const char *ocomm)
{
	struct sev *e = add(g, E_HOST, ts);
	if (!e)
		return;
	struct ingero_host_event *h = &e->u.h;
	h->ts_ns = ts;
	h->dur_ns = dur;
	h->value = value;
	h->pid = pid;
	h->tid = tid;
	h->other_pid = opid;
	h->other_tid = otid;
	h->type = type;
	h->cpu = 0;
	snprintf(h->comm, sizeof(h->comm), "%s", comm ? comm : "");
	snprintf(h->other_comm, sizeof(h->other_comm), "%s", ocomm ? ocomm : "");
}

/* A process record; cg: its cgroup path (a container's), NULL for none. */
static void proc_ev_cg(struct gen *g, uint64_t ts, uint32_t pid, uint32_t ppid, const char *comm,
		       const char *cg)
{
	struct sev *e = add(g, E_PROC, ts);
	if (!e)
		return;
	e->u.p.pid = pid;
	e->u.p.ppid = ppid;
	e->u.p.cg = cg;
	snprintf(e->u.p.comm, sizeof(e->u.p.comm), "%s", comm);
}

static void proc_ev(struct gen *g, uint64_t ts, uint32_t pid, uint32_t ppid, const char *comm)
{
	proc_ev_cg(g, ts, pid, ppid, comm, NULL);
}

/* The containers of the neighbour scenarios (as ingero demo makes them). */
#define CG_JOB "/kubepods/besteffort/pod7a1b0000-2222-4333-8444-555566667777/" \
	       "feed0000feed0000feed0000feed0000feed0000feed0000feed0000feed0000"
#define CG_NEIGHBOUR "/kubepods/besteffort/pod0d3e0000-1111-4222-8333-444455556666/" \
		     "c0ffee00c0ffee00c0ffee00c0ffee00c0ffee00c0ffee00c0ffee00c0ffee00"

/*
 * The thread runs for dur ns starting at s->t; while a preempter shares its
 * CPU it loses slices.  Returns the extra off-CPU time and records the
 * switch events.
 */
static uint64_t preempt(struct gen *g, struct sim *s, uint64_t dur)
{
	if (!s->pre_pid || s->t + dur <= s->pre_a || s->t >= s->pre_b)
		return 0;
	uint64_t off = 0;
	double run = (double)dur, at = 0;
	/* CFS with two runnable tasks on one CPU: ~3 ms of running, then the
	 * other task's slice of 2-5 ms */
	for (;;) {
		double next = -log(1 - u01(g)) * 3e6;
		if (at + next >= run)
			break;
		at += next;
		uint64_t d = (uint64_t)uni(g, 2e6, 5e6);
		host_ev(g, ILOG_HOST_SWITCH, s->t + (uint64_t)at + off, d, 0, s->pid, s->tid, s->comm,
			s->pre_pid, s->pre_pid, s->pre_comm);
		off += d;
	}
	return off;
}

static void call(struct gen *g, struct sim *s, uint16_t op, double dur, uint64_t bytes,
		 uint32_t kind, int32_t ret, uint8_t flags)
{
	uint64_t d = dur < 1 ? 1 : (uint64_t)dur;
	d += preempt(g, s, d);
	struct sev *e = add(g, E_CUDA, s->t);
	if (!e)
		return;
	struct ingero_cuda_event *c = &e->u.c;
	c->ts_ns = s->t;
	c->dur_ns = d;
	c->pid = s->pid;
	c->tid = s->tid;
	c->op = op;
	c->layer = (uint8_t)ilog_op_layer(op);
	c->flags = flags;
	c->ret = ret;
	c->stream = s->stream;
	c->bytes = bytes;
	c->kind = kind;
	if (op == ILOG_OP_cudaLaunchKernel) {
		c->handle = 0x55d0c0a01230ull + (s->calls % 4) * 0x240;
		c->grid_x = 1024, c->grid_y = c->grid_z = 1;
		c->block_x = 256, c->block_y = c->block_z = 1;
	} else if (op == ILOG_OP_cudaMalloc || op == ILOG_OP_cudaFree) {
		c->handle = 0x7f8000000000ull + (s->calls % 1024) * 0x100000;
	} else if (op == ILOG_OP_cudaGraphLaunch || op == ILOG_OP_cudaGraphInstantiate) {
		c->handle = 0x6b0000001000ull;
	}
	s->calls++;
	s->t += d;
}

static void host_work(struct gen *g, struct sim *s, double ns)
{
	uint64_t d = (uint64_t)ns;
	d += preempt(g, s, d);
	s->t += d;
}

/* One training step: launches, a copy, then wait for gpu_ns of GPU work. */
static void step(struct gen *g, struct sim *s, double gpu_ns, int launches)
{
	host_work(g, s, uni(g, 150e3, 250e3));
	uint64_t first = s->t;
	for (int i = 0; i < launches; i++) {
		call(g, s, ILOG_OP_cudaLaunchKernel, nrm(g, 5e3, 0.15), 0, 0, 0, 0);
		host_work(g, s, uni(g, 1e3, 3e3));
	}
	call(g, s, ILOG_OP_cudaMemcpyAsync, nrm(g, 8e3, 0.15), 1u << 20, 1, 0, 0);
	double w = nrm(g, gpu_ns, 0.03) * g->sync_factor - (double)(s->t - first);
	call(g, s, ILOG_OP_cudaStreamSynchronize, w > 4e3 ? w : nrm(g, 4e3, 0.2), 0, 0, 0, 0);
}

/* The kworker that preempts every thread briefly now and then. */
static void noise(struct gen *g, const struct sim *s, uint64_t a, uint64_t b)
{
	for (double t = (double)a + uni(g, 0.1e9, 0.5e9); t < (double)b; t += uni(g, 0.15e9, 0.6e9))
		host_ev(g, ILOG_HOST_SWITCH, (uint64_t)t, (uint64_t)uni(g, 15e3, 60e3), 0, s->pid,
			s->tid, s->comm, 57, 57, "kworker/0:1");
}

struct snapcfg {
	double base_cpu;          /* % of all CPUs */
	uint64_t hog_a, hog_b;    /* an extra busy CPU in [a, b) */
	uint64_t mem_a, mem_b;    /* memory being eaten in [a, b) */
	uint32_t pid;
};

#define GiB (1024.0 * 1024 * 1024)
#define NCPU 8

static void snapshots(struct gen *g, const struct snapcfg *c)
{
	double avail = 24 * GiB, swap = 0;
	for (uint64_t t = g->t0 + 1000000000ull; t <= g->end; t += 1000000000ull) {
		double cpu = nrm(g, c->base_cpu, 0.05), load = nrm(g, 1.1, 0.1);
		if (t > c->hog_a && t <= c->hog_b + 1000000000ull && c->hog_b)
			cpu += 100.0 / NCPU, load += 1;
		if (c->mem_b && t > c->mem_a && t <= c->mem_b) {
			/* the hog takes ~4 GiB/s; past the low watermark pages go to swap */
			avail -= 4 * GiB;
			if (avail < 0.4 * GiB) {
				swap += 0.4 * GiB - avail + uni(g, 0.1, 0.3) * GiB;
				avail = uni(g, 0.25, 0.4) * GiB;
			}
			cpu += 100.0 / NCPU;
			load += 1.5;
		} else if (c->mem_b && t > c->mem_b && avail < 24 * GiB) {
			avail = 24 * GiB - swap; /* the hog exited; swapped pages stay out */
		}
		struct sev *e = add(g, E_SNAP, t);
		if (!e)
			return;
		e->u.s.cpu = cpu > 100 ? 100 : cpu;
		e->u.s.load = load;
		e->u.s.avail = (uint64_t)avail;
		e->u.s.swap_used = (uint64_t)swap;
		e->u.s.pid = c->pid;
		e->u.s.pcpu = nrm(g, 97, 0.02);
		e->u.s.rss = (uint64_t)(3.2 * GiB);
	}
}

static uint32_t pick_pid(struct gen *g, uint32_t avoid)
{
	uint32_t p;
	do
		p = 1000 + (uint32_t)(rnd(g) % 60000);
	while (p == avoid);
	return p;
}

static uint64_t at(const struct gen *g, double frac)
{
	return g->t0 + (uint64_t)(frac * (double)(g->end - g->t0));
}

static void sim_init(struct gen *g, struct sim *s, uint32_t pid, const char *comm, uint64_t t)
{
	memset(s, 0, sizeof(*s));
	s->pid = s->tid = pid;
	snprintf(s->comm, sizeof(s->comm), "%s", comm);
	s->t = t;
	s->stream = 0x5600000a0000ull;
	proc_ev(g, t, pid, 1, comm);
}

/* ---- the scenarios ---- */
/* The training process most scenarios stage: python3, starting 20-60 ms
 * into the run.  Its pid. */
static uint32_t sim_job(struct gen *g, struct sim *s)
{
	uint32_t pid = pick_pid(g, 0);
	sim_init(g, s, pid, "python3", g->t0 + (uint64_t)uni(g, 20e6, 60e6));
	return pid;
}

/* A scenario of the job alone on the node: it starts, the host's noise,
 * the scenario's own calls (body, with its variant), the node's snapshots
 * when nothing but the job loads it. */
typedef void job_body(struct gen *g, struct sim *s, int variant);
static void job_alone(struct gen *g, job_body *body, int variant)
{
	struct sim s;
	uint32_t pid = sim_job(g, &s);
	noise(g, &s, s.t, g->end);
	body(g, &s, variant);
	struct snapcfg sc = { .base_cpu = 100.0 / NCPU + 1.5, .pid = pid };
	snapshots(g, &sc);
}

static void sc_train(struct gen *g, const char *name)
{
	struct sim s;
	uint32_t pid = sim_job(g, &s);
	/* the neighbour scenarios: the job in a container, another beside it */
	int ctr = !strcmp(name, "noisy-neighbour") || !strcmp(name, "neighbour-quiet");
	if (ctr)
		g->ev[g->n - 1].u.p.cg = CG_JOB; /* sim_init's process record */
	struct snapcfg sc = { .base_cpu = 100.0 / NCPU + 1.5, .pid = pid };
	double slow_a = 0, slow_b = 0, slow_f = 1;
	uint64_t stall[ILOG_SCENARIO_STALLS];
	uint32_t nstall = 0, next = 0;
	if (!strcmp(name, "incident") || !strcmp(name, "noisy-neighbour")) {
		double a = uni(g, 0.20, 0.25), len = uni(g, 0.60, 0.65);
		s.pre_a = at(g, a);
		s.pre_b = at(g, a + len);
		s.pre_pid = pick_pid(g, pid);
		s.pre_comm = ctr ? "neighbour" : "backup";
		sc.hog_a = s.pre_a;
		sc.hog_b = s.pre_b;
		proc_ev_cg(g, s.pre_a - 1000000, s.pre_pid, 1, s.pre_comm, ctr ? CG_NEIGHBOUR : NULL);
	} else if (ctr) {
		/* idle beside the job */
		s.pre_pid = pick_pid(g, pid);
		proc_ev_cg(g, s.t, s.pre_pid, 1, "neighbour", CG_NEIGHBOUR);
	} else if (!strcmp(name, "gpu-slow")) {
		slow_a = uni(g, 0.35, 0.45);
		slow_b = slow_a + uni(g, 0.30, 0.35);
		slow_f = uni(g, 3, 4);
	} else if (!strcmp(name, "isolated-stalls")) {
		double frac[ILOG_SCENARIO_STALLS];
		ilog_scenario_stall_times(frac);
		for (nstall = 0; nstall < ILOG_SCENARIO_STALLS; nstall++)
			stall[nstall] = at(g, frac[nstall]);
	}
	noise(g, &s, s.t, g->end);
	/* the containers' page allocations per 100 ms window, steady */
	for (uint64_t t = g->t0; ctr && t < g->end; t += 100000000ull) {
		host_ev(g, ILOG_HOST_PAGE_ALLOC, t, 100000000ull, (uint64_t)nrm(g, 1500, 0.2), pid, pid,
			"python3", 0, 0, "");
		host_ev(g, ILOG_HOST_PAGE_ALLOC, t, 100000000ull, (uint64_t)nrm(g, 600, 0.2), s.pre_pid,
			s.pre_pid, "neighbour", 0, 0, "");
	}
	while (s.t < g->end) {
		double f = 1;
		if (slow_f > 1 && s.t >= at(g, slow_a) && s.t < at(g, slow_b))
			f = slow_f;
		if (next < nstall && s.t >= stall[next]) { /* one stalled step per time */
			next++;
			f = uni(g, 150e6, 250e6) / 2e6;
		}
		step(g, &s, 2e6 * f, 8);
	}
	snapshots(g, &sc);
}

static void sc_cold(struct gen *g, struct sim *s, int variant)
{
	(void)variant;
	/* context creation in the first call, module loading in the first launch */
	call(g, s, ILOG_OP_cudaMalloc, uni(g, 350e6, 450e6), 256u << 20, 0, 0, 0);
	host_work(g, s, uni(g, 2e6, 5e6));
	call(g, s, ILOG_OP_cudaLaunchKernel, uni(g, 100e6, 140e6), 0, 0, 0, 0);
	call(g, s, ILOG_OP_cudaMemcpyAsync, uni(g, 15e6, 25e6), 1u << 20, 1, 0, 0);
	uint32_t k = 0;
	while (s->t < g->end) {
		if (k++ % 10 == 0)
			call(g, s, ILOG_OP_cudaMalloc, nrm(g, 12e3, 0.2), 4u << 20, 0, 0, 0);
		step(g, s, 2e6, 8);
	}
}

static void sc_memcpy(struct gen *g, struct sim *s, int variant)
{
	(void)variant;
	double bw = uni(g, 2.8, 3.4) * GiB; /* pageable host memory */
	while (s->t < g->end) {
		call(g, s, ILOG_OP_cudaMemcpy, nrm(g, 32 * 1048576.0 / bw * 1e9, 0.04), 32u << 20, 1,
		     0, 0);
		step(g, s, 2e6, 8);
	}
}

static void sc_spike(struct gen *g, struct sim *s, int variant)
{
	(void)variant;
	/* every K steps the cache is emptied and the next allocation hits the driver */
	uint32_t every = 280 + (uint32_t)(rnd(g) % 60), k = 0;
	while (s->t < g->end) {
		int spike = ++k % every == 0;
		call(g, s, ILOG_OP_cudaMalloc, spike ? uni(g, 40e6, 60e6) : nrm(g, 10e3, 0.2), 64u << 20,
		     0, 0, 0);
		step(g, s, 2e6, 8);
		call(g, s, ILOG_OP_cudaFree, nrm(g, 7e3, 0.2), 0, 0, 0, 0);
	}
}

static void capture(struct gen *g, struct sim *s, int launches, int32_t ret, int instantiate)
{
	call(g, s, ILOG_OP_cudaStreamBeginCapture, nrm(g, 6e3, 0.2), 0, 0, 0, 0);
	for (int i = 0; i < launches; i++) {
		call(g, s, ILOG_OP_cudaLaunchKernel, nrm(g, 2e3, 0.2), 0, 0, 0, 0);
		host_work(g, s, uni(g, 1e3, 3e3));
	}
	call(g, s, ILOG_OP_cudaStreamEndCapture, nrm(g, 25e3, 0.2), 0, 0, ret, 0);
	if (instantiate && !ret)
		call(g, s, ILOG_OP_cudaGraphInstantiate, uni(g, 30e6, 50e6), 0, 0, 0, 0);
}

static void graph_step(struct gen *g, struct sim *s)
{
	host_work(g, s, uni(g, 60e3, 100e3));
	uint64_t first = s->t;
	call(g, s, ILOG_OP_cudaGraphLaunch, nrm(g, 6e3, 0.15), 0, 0, 0, 0);
	double w = nrm(g, 2e6, 0.03) * g->sync_factor - (double)(s->t - first);
	call(g, s, ILOG_OP_cudaStreamSynchronize, w > 4e3 ? w : 4e3, 0, 0, 0, 0);
}

static void sc_graph(struct gen *g, struct sim *s, int warmup_fail)
{
	if (warmup_fail) {
		/* captured before anything ran eagerly: lazy init inside the capture */
		capture(g, s, 2, 901, 0);
		for (int i = 0; i < 3; i++)
			step(g, s, 2e6, 20);
	}
	capture(g, s, 20, 0, 1);
	uint64_t re = warmup_fail ? g->end : at(g, uni(g, 0.35, 0.45));
	uint32_t k = 0;
	while (s->t < g->end) {
		if (s->t >= re && ++k % 8 == 0)
			capture(g, s, 20, 0, 1);
		graph_step(g, s);
	}
}

static void sc_contention(struct gen *g)
{
	struct sim a, b;
	uint32_t pa = pick_pid(g, 0), pb = pick_pid(g, pa);
	sim_init(g, &a, pa, "train", g->t0 + (uint64_t)uni(g, 20e6, 60e6));
	double x = uni(g, 0.25, 0.35), len = uni(g, 0.40, 0.50), f = uni(g, 2.5, 3.0);
	uint64_t ba = at(g, x), bb = at(g, x + len);
	sim_init(g, &b, pb, "infer", ba);
	b.stream = 0x5600000b0000ull;
	noise(g, &a, a.t, g->end);
	while (a.t < g->end)
		step(g, &a, 2e6 * (a.t >= ba && a.t < bb ? f : 1), 8);
	while (b.t < bb) {
		host_work(g, &b, uni(g, 300e3, 600e3));
		step(g, &b, 1.5e6 * f, 4);
	}
	host_ev(g, ILOG_HOST_EXIT, b.t, 0, 0, pb, pb, "infer", 0, 0, "");
	struct snapcfg sc = { .base_cpu = 100.0 / NCPU + 1.5, .hog_a = ba, .hog_b = bb, .pid = pa };
	snapshots(g, &sc);
}

static void sc_memory(struct gen *g, int oom)
{
	struct sim s;
	uint32_t pid = pick_pid(g, 0), hog = pick_pid(g, pid);
	sim_init(g, &s, pid, "python3", g->t0 + (uint64_t)uni(g, 20e6, 60e6));
	double a = uni(g, 0.30, 0.40), len = uni(g, 0.30, 0.35);
	uint64_t ma = at(g, a), mb = at(g, a + len), kill = 0;
	if (oom) { /* memory runs out ~6 s in; the killer strikes 1-2 s later */
		kill = ma + (uint64_t)uni(g, 7e9, 8e9);
		if (kill > g->end - 1000000000ull)
			kill = g->end - 1000000000ull;
		mb = kill;
	}
	proc_ev(g, ma - 1000000, hog, 1, "memhog");
	noise(g, &s, s.t, oom ? kill : g->end);
	/* page allocations per 100 ms window: the hog's ~4 GiB/s, the job's own */
	for (uint64_t t = g->t0; t < g->end; t += 100000000ull) {
		host_ev(g, ILOG_HOST_PAGE_ALLOC, t, 100000000ull, (uint64_t)nrm(g, 1500, 0.2), pid, pid,
			"python3", 0, 0, "");
		if (t >= ma && t < (oom ? g->end : mb))
			host_ev(g, ILOG_HOST_PAGE_ALLOC, t, 100000000ull,
				(uint64_t)nrm(g, 104000, 0.1), hog, hog, "memhog", 0, 0, "");
	}
	while (s.t < g->end) {
		int press = s.t >= ma && s.t < mb;
		/* pageable copies: page faults and reclaim under pressure */
		double cf = press ? uni(g, 3, 5) : 1;
		if (oom && s.t >= kill) {
			/* killed inside the synchronize: the call never returns */
			call(g, &s, ILOG_OP_cudaStreamSynchronize, uni(g, 1e6, 2e6), 0, 0, 0,
			     ILOG_CUDA_F_NO_RETURN);
			host_ev(g, ILOG_HOST_OOM, s.t, 0, (uint64_t)(3.2 * GiB / 4096), pid, pid, "python3",
				hog, hog, "memhog");
			host_ev(g, ILOG_HOST_EXIT, s.t + 2000000, 0, 137, pid, pid, "python3", 0, 0, "");
			break;
		}
		call(g, &s, ILOG_OP_cudaMemcpy, nrm(g, 0.4e6, 0.05) * cf, 1u << 20, 1, 0, 0);
		step(g, &s, 2e6, 8);
	}
	struct snapcfg sc = { .base_cpu = 100.0 / NCPU + 1.5, .mem_a = ma,
			      .mem_b = oom ? kill : mb, .pid = pid };
	snapshots(g, &sc);
}

void ilog_scenario_stall_times(double *frac)
{
	/* redrawn until no two are closer than 1/40 of the run */
	uint64_t r = 0x54cda58fbbee87e0ull;
	double gap;
	do {
		for (int i = 0; i < ILOG_SCENARIO_STALLS; i++) {
			r ^= r << 13, r ^= r >> 7, r ^= r << 17;
			double u = 0.05 + 0.9 * (double)(r >> 11) / 9007199254740992.0;
			int j = i;
			for (; j > 0 && frac[j - 1] > u; j--) /* sorted */
				frac[j] = frac[j - 1];
			frac[j] = u;
		}
		gap = 1;
		for (int i = 1; i < ILOG_SCENARIO_STALLS; i++)
			if (frac[i] - frac[i - 1] < gap)
				gap = frac[i] - frac[i - 1];
	} while (gap < 1.0 / 40);
}

static const struct { const char *name, *help; double seconds; } scen[] = {
	{ "incident", "CPU contention: a backup job shares the training thread's CPU", 20 },
	{ "cold-start", "CUDA context creation and module loading in the first calls", 6 },
	{ "memcpy-bottleneck", "pageable 32 MiB host-to-device copies dominate each step", 12 },
	{ "periodic-spike", "the caching allocator goes to the driver every ~0.7 s", 20 },
	{ "graph-recapture", "a CUDA graph re-captured and re-instantiated every 8 steps", 16 },
	{ "gpu-contention", "a second process's CUDA work time-slices the GPU", 20 },
	{ "capture-warmup", "a CUDA graph captured before any warm-up iteration fails", 8 },
	{ "memory-pressure", "a memory hog drives the host into swap", 20 },
	{ "oom", "a memory hog ends in the OOM killer killing the job", 16 },
	{ "gpu-slow", "the GPU gets slower for a while; the host stays idle", 20 },
	{ "isolated-stalls", "12 synchronizes at random times wait ~200 ms on the GPU", 12 },
	{ "clean", "a steady training loop, nothing wrong", 12 },
	{ "memory-storm", "another tenant's process, in a container, floods the host with page "
			  "faults", 20 },
	{ "memory-steady", "another tenant's process allocates steadily; nothing wrong", 12 },
	{ "memory-mild", "another tenant's process allocates at half the memory rule's edge while "
			 "the job's copies slow down: a likely cause (recorded only)", 10 },
	{ "memory-mild-ok", "the same allocations while the job runs steadily; nothing wrong "
			    "(recorded only)", 8 },
	{ "noisy-neighbour", "another pod's container shares the job container's CPU", 20 },
	{ "neighbour-quiet", "another pod's container idles beside the job's; nothing wrong",
	  12 },
	{ "disk-stall", "another tenant's reader floods the disk the job's data loader reads "
			"(recorded only)", 10 },
	{ "disk-steady", "the data loader reads its disk beside a light reader; nothing wrong", 8 },
	{ "net-retrans", "the peer rank's TCP flow loses packets under the job's all-reduce "
			 "(recorded only)", 10 },
	{ "net-lossy", "the peer rank's TCP flow loses packets all run long: the all-reduce "
		       "stalls often (recorded only)", 10 },
	{ "net-steady", "the job's all-reduce over TCP to its peer rank, no loss; nothing wrong",
	  8 },
	{ "straggler", "4 ranks: a CPU hog preempts rank 2, the others wait for it in every "
		       "all-reduce (recorded only)", 8 },
	{ "hang", "4 ranks: rank 2 blocks before an all-reduce the others entered (recorded "
		  "only)", 6 },
	{ "ranks-clean", "4 ranks in step, nothing wrong (recorded only)", 6 },
	{ "launch-bound", "200 small kernels launched one by one per step: the GPU waits for "
			  "the CPU (recorded only)", 6 },
	{ "launch-graphs", "the same step captured in a CUDA graph; nothing wrong (recorded "
			   "only)", 6 },
	{ "microbatch", "steps of 4 micro-batches and the optimizer, nothing wrong (recorded "
			"only)", 6 },
	{ "microbatch-item", "the same with a tensor.item() per micro-batch: a blocking copy "
			     "(recorded only)", 6 },
	{ "cpu-quota", "the job's own container's CPU quota (0.1 CPU) throttles it (recorded "
		       "only)", 8 },
	{ "cpu-quota-ok", "the job's container has a CPU limit (2 CPUs) it stays under; nothing "
			  "wrong (recorded only)", 8 },
	{ "pageable-copy", "each step's async host-to-device copies come from unpinned memory and "
			   "block (recorded only)", 8 },
	{ "pinned-copy", "the same copies from pinned memory return at once; nothing wrong "
			 "(recorded only)", 8 },
	{ "hidden-sync", "each micro-batch reads a loss value back (.item()) and waits for the "
			 "GPU (recorded only)", 8 },
	{ "sync-free", "the loss values copied back asynchronously into pinned memory, one wait "
		       "per step; nothing wrong (recorded only)", 8 },
	{ "gpu-leak", "device memory allocated every 20 ms is never freed until cudaMalloc fails "
		      "(recorded only)", 8 },
	{ "gpu-spike", "2 GiB of device memory allocated and freed again; nothing wrong "
		       "(recorded only)", 8 },
	{ "lock-wait", "a checkpoint thread holds the model lock the training loop takes "
		       "before each step, 12 ms of every 16 for a while (recorded only)", 8 },
	{ "lock-quiet", "the same lock held 50 us of every 16 ms; nothing wrong (recorded only)",
	  8 },
	{ "loader-wait", "the data loader child fetches each batch in 12 ms for a while: the "
			 "loop waits on its pipe (recorded only)", 8 },
	{ "loader-steady", "the same loader fetches each batch in 0.2 ms; nothing wrong "
			   "(recorded only)", 8 },
};
#define NSCEN (sizeof(scen) / sizeof(scen[0]))

const char *const *ilog_scenario_names(void)
{
	static const char *names[NSCEN + 1];
	for (size_t i = 0; i < NSCEN; i++)
		names[i] = scen[i].name;
	return names;
}

const char *ilog_scenario_help(const char *name)
{
	for (size_t i = 0; i < NSCEN; i++)
		if (!strcmp(scen[i].name, name))
			return scen[i].help;
	return NULL;
}

static int cmp_sev(const void *a, const void *b)
{
	const struct sev *x = a, *y = b;
	if (x->ts != y->ts)
		return x->ts < y->ts ? -1 : 1;
	return x->kind < y->kind ? -1 : x->kind > y->kind;
}

static int emit(struct ilog_writer *w, const struct gen *g)
{
	char pod[37], cid[65];
	for (size_t i = 0; i < g->n; i++) {
		const struct sev *e = &g->ev[i];
		struct ilog_record rec = { 0 };
		switch (e->kind) {
		case E_CUDA:
			if (ilog_writer_put_cuda(w, &e->u.c))
				return -1;
			continue;
		case E_HOST:
			rec.kind = ILOG_K_HOST;
			rec.u.host = e->u.h;
			break;
		case E_PROC:
			rec.kind = ILOG_K_PROCESS;
			rec.u.process = (struct ilog_process){
				.ts_ns = e->ts, .pid = e->u.p.pid, .ppid = e->u.p.ppid, .uid = 1000,
				.start_ns = e->ts, .comm = ilog_str_c(e->u.p.comm),
				.exe = ilog_str_c(!strcmp(e->u.p.comm, "python3") || !strcmp(e->u.p.comm, "train") ||
							  !strcmp(e->u.p.comm, "infer")
						  ? "/usr/bin/python3.11" : "/usr/bin/env"),
			};
			if (e->u.p.cg) {
				ilog_cgroup_parse(e->u.p.cg, pod, cid);
				rec.u.process.cgroup = ilog_str_c(e->u.p.cg);
				rec.u.process.cgroup_id = 8800 + (strcmp(e->u.p.cg, CG_JOB) ? 13 : 12);
				rec.u.process.pod_uid = ilog_str_c(pod);
				rec.u.process.container_id = ilog_str_c(cid);
			}
			break;
		case E_SNAP:
			rec.kind = ILOG_K_SNAPSHOT;
			rec.u.snapshot = (struct ilog_snapshot){
				.ts_ns = e->ts, .cpu_pct = e->u.s.cpu, .ncpu = NCPU,
				.mem_total = (uint64_t)(31.2 * GiB), .mem_avail = e->u.s.avail,
				.swap_total = (uint64_t)(8 * GiB),
				.swap_free = (uint64_t)(8 * GiB) - e->u.s.swap_used,
				.load1 = e->u.s.load, .load5 = e->u.s.load * 0.8, .load15 = e->u.s.load * 0.5,
				.nprocs = 1,
			};
			rec.u.snapshot.procs[0] = (struct ilog_snapshot_proc){ e->u.s.pid, e->u.s.pcpu,
									      e->u.s.rss };
			break;
		}
		if (ilog_writer_put(w, &rec))
			return -1;
	}
	return 0;
}

int ilog_scenario_write(struct ilog_writer *w, const struct ilog_scenario_opts *o, char *err,
			size_t errlen)
{
	size_t i;
	for (i = 0; i < NSCEN && strcmp(scen[i].name, o->name); i++)
		;
	if (i == NSCEN) {
		snprintf(err, errlen, "unknown scenario '%s'", o->name);
		return -1;
	}
	struct gen g = { 0 };
	g.rng = (o->seed ? o->seed : 1) * 0x9E3779B97F4A7C15ull + 0x1234567;
	g.t0 = o->mono_ns ? o->mono_ns : 1000000000000ull;
	g.end = g.t0 + (uint64_t)((o->seconds > 0 ? o->seconds : scen[i].seconds) * 1e9);
	g.sync_factor = o->sync_factor > 0 ? o->sync_factor : 1;
	const char *n = o->name;
	if (!strcmp(n, "incident") || !strcmp(n, "gpu-slow") || !strcmp(n, "clean") ||
	    !strcmp(n, "isolated-stalls") || !strcmp(n, "noisy-neighbour") ||
	    !strcmp(n, "neighbour-quiet"))
		sc_train(&g, n);
	else if (!strcmp(n, "memory-steady") || !strncmp(n, "disk-", 5) ||
		 !strcmp(n, "net-steady"))
		sc_train(&g, "clean");
	else if (!strcmp(n, "net-retrans") || !strcmp(n, "net-lossy") ||
		 !strcmp(n, "straggler") || !strcmp(n, "hang") ||
		 !strcmp(n, "ranks-clean") || !strncmp(n, "microbatch", 10) ||
		 !strncmp(n, "cpu-quota", 9) ||
		 !strcmp(n, "pageable-copy") || !strcmp(n, "pinned-copy") ||
		 !strcmp(n, "hidden-sync") || !strcmp(n, "sync-free") || !strcmp(n, "gpu-leak") ||
		 !strcmp(n, "gpu-spike") || !strncmp(n, "launch-", 7) ||
		 !strncmp(n, "memory-mild", 11)) {
		/* its retransmissions are the kernel's: nothing to synthesize */
		snprintf(err, errlen, "'%s' is recorded only (ingero demo --bpf, as root)", n);
		return -1;
	}
	else if (!strcmp(n, "cold-start"))
		job_alone(&g, sc_cold, 0);
	else if (!strcmp(n, "memcpy-bottleneck"))
		job_alone(&g, sc_memcpy, 0);
	else if (!strcmp(n, "periodic-spike"))
		job_alone(&g, sc_spike, 0);
	else if (!strcmp(n, "graph-recapture"))
		job_alone(&g, sc_graph, 0);
	else if (!strcmp(n, "capture-warmup"))
		job_alone(&g, sc_graph, 1);
	else if (!strcmp(n, "gpu-contention"))
		sc_contention(&g);
	else if (!strcmp(n, "memory-pressure") || !strcmp(n, "memory-storm"))
		sc_memory(&g, 0);
	else if (!strcmp(n, "oom"))
		sc_memory(&g, 1);
	if (g.oom) {
		free(g.ev);
		snprintf(err, errlen, "out of memory");
		return -1;
	}
	qsort(g.ev, g.n, sizeof(*g.ev), cmp_sev);
	const char *node = o->node ? o->node : "demo-node";
	struct ilog_header h = {
		.node = ilog_str_c(node), .boot_id = ILOG_STR("0b5e55ed-0000-4000-8000-00000000d3m0"),
		.host = ilog_str_c(node), .recorder = ILOG_STR("ingero scenario synthesizer " INGERO_VERSION),
		.kernel = ILOG_STR("synthetic"), .driver = ILOG_STR(""),
		.session_id = o->seed, .rank = -1, .mono_ns = g.t0, .boot_ns = g.t0 + 7000000000ull,
		.real_ns = o->real_ns ? o->real_ns : 1795000000000000000ull,
	};
	int rc = ilog_writer_begin(w, &h) || emit(w, &g);
	if (!rc) {
		struct ilog_record lo = { .kind = ILOG_K_LOSS };
		lo.u.loss = (struct ilog_loss){ .ts_ns = g.end, .source = ILOG_STR("ringbuf:cuda"),
						.lost = 0, .seen = g.n };
		rc = ilog_writer_put(w, &lo);
	}
	free(g.ev);
	if (rc) {
		snprintf(err, errlen, "%s", ilog_writer_error(w) ? ilog_writer_error(w) : "write error");
		return -1;
	}
	return 0;
}
