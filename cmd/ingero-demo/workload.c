// SPDX-License-Identifier: MIT
/*
 * The scenario workloads `ingero demo` records: real processes calling the
 * fake CUDA runtime (tests/fakecuda, real symbol names and ABI, latency set
 * per op by FAKECUDA_* variables read when a copy of the library loads).
 * A scenario that needs a call to behave differently at some point loads
 * a second copy of the library with other settings and switches to it
 * then (the recorder attaches to every copy): that is how the first calls
 * are made slow (cold start) and how a slower GPU is played when the fakes
 * have no GPU to share.  Host effects are real: a CPU hog pinned to the
 * workload's CPU, a second CUDA process, a process churning through memory.
 * Helpers are started by exec through symlinks named backup, infer,
 * memhog and loader, so the log carries those names.
 */
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#include "demo.h"
#include "scenario.h"

/* Scenario, the pattern it stages, seconds, the library copies it loads. */
const struct demo_scenario demo_scenarios[] = {
	{ "incident", ILOG_PAT_CPU_CONTENTION, 10, { "base" } },
	{ "cold-start", ILOG_PAT_COLD_START, 6, { "cold", "base" } },
	{ "memcpy-bottleneck", ILOG_PAT_MEMCPY_BOUND, 8, { "base" } },
	{ "periodic-spike", ILOG_PAT_PERIODIC_SPIKE, 12, { "base" } },
	{ "graph-recapture", ILOG_PAT_GRAPH_RECAPTURE, 10, { "base" } },
	{ "gpu-contention", ILOG_PAT_GPU_CONTENTION, 10, { "base", "slow", "infer" } },
	{ "capture-warmup", ILOG_PAT_CAPTURE_WARMUP, 6, { "fail", "base" } },
	{ "memory-pressure", ILOG_PAT_MEMORY_PRESSURE, 10, { "base", "slow" } },
	{ "gpu-slow", ILOG_PAT_GPU_SLOW, 10, { "base", "slow" } },
	{ "oom", ILOG_PAT_OOM, 8, { "base", "hang" } },
	{ "isolated-stalls", ILOG_PAT_ISOLATED_STALL, 10, { "base", "stall" } },
	{ "clean", DEMO_NONE, 6, { "base" } },
	/* the hog is no process of the job: another tenant's, in a container */
	{ "memory-storm", ILOG_PAT_MEMORY_PRESSURE, 10, { "base", "slow" }, "storm" },
	{ "memory-steady", DEMO_NONE, 8, { "base" }, "steady" },
	/* the same tenant's storm at half the rule's edge, while the job's
	 * copies slow down, or while the job runs steadily */
	{ "memory-mild", ILOG_PAT_MEMORY_PRESSURE, 10, { "base", "slow" }, "mild" },
	{ "memory-mild-ok", DEMO_NONE, 8, { "base" }, "mild" },
	/* the job and a neighbour, each in a container of its own: the
	 * neighbour's CPU load on the job's CPU, or idle on another one */
	{ "noisy-neighbour", ILOG_PAT_CPU_CONTENTION, 10, { "base" }, "hog", 1 },
	{ "neighbour-quiet", DEMO_NONE, 8, { "base" }, "quiet", 1 },
	/* the job's data loader reads a loop device; another tenant's reader
	 * floods it for a while (disk-stall) or reads it lightly (disk-steady) */
	{ "disk-stall", ILOG_PAT_DISK_STALL, 10, { "base" }, "diskhog" },
	{ "disk-steady", DEMO_NONE, 8, { "base" }, "disksteady" },
	/* the job's collective exchanges data with its peer rank over TCP on
	 * loopback; the peer's packets are lost for a while (a firewall rule
	 * of the scenario's own: there is no netem here), or never */
	{ "net-retrans", ILOG_PAT_NET_RETRANSMITS, 10, { "base" }, "lossy" },
	/* the peer's packets lost all run long, three times as often */
	{ "net-lossy", ILOG_PAT_NET_RETRANSMITS, 10, { "base" }, "lossy-all" },
	{ "net-steady", DEMO_NONE, 8, { "base" }, "peer" },
	/* a 4-rank data-parallel job (demo_rank), each rank a process of its
	 * own, rendezvousing in the fake NCCL: rank 2 preempted by a CPU hog
	 * on its CPU (straggler), rank 2 stuck in a read before a collective
	 * (hang), or nothing wrong */
	{ "straggler", ILOG_PAT_STRAGGLER, 8, { "base" }, NULL, 0, 4 },
	{ "hang", ILOG_PAT_COLLECTIVE_HANG, 6, { "base" }, NULL, 0, 4 },
	{ "ranks-clean", DEMO_NONE, 6, { "base" }, NULL, 0, 4 },
	/* steps of 4 micro-batches and the optimizer; the same with a
	 * tensor.item() in each micro-batch: a regression gate's pair */
	{ "microbatch", DEMO_NONE, 6, { "base" } },
	{ "microbatch-item", DEMO_NONE, 6, { "base" } },
	/* the job in a container of its own whose cgroup has a CPU quota: 0.1
	 * of a CPU for a job that needs a third of one (throttled most of the
	 * time, between its CUDA calls), or 2 CPUs (never reached) */
	{ "cpu-quota", ILOG_PAT_CPU_THROTTLE, 8, { "base" }, NULL, 1 },
	{ "cpu-quota-ok", DEMO_NONE, 8, { "base" }, NULL, 1 },
	/* a step's async copies from unpinned memory block the host (the
	 * fakes stage them: FAKECUDA_PINNED), or come from cudaMallocHost
	 * memory and return at once; a loss value read back after each
	 * micro-batch waits for the GPU, or is copied asynchronously into
	 * pinned memory and read after the step's one synchronize */
	{ "pageable-copy", ILOG_PAT_PAGEABLE_COPY, 8, { "base" } },
	{ "pinned-copy", DEMO_NONE, 8, { "base" } },
	{ "hidden-sync", ILOG_PAT_HIDDEN_SYNC, 8, { "base" } },
	{ "sync-free", DEMO_NONE, 8, { "base" } },
	/* device memory: 16 MiB every 20 ms never freed until an allocation
	 * fails with out of memory (the fake device holds 4.5 GiB), or a spike
	 * of 2 GiB freed again */
	{ "gpu-leak", ILOG_PAT_GPU_MEMORY_LEAK, 8, { "base" } },
	{ "gpu-spike", DEMO_NONE, 8, { "base" } },
	/* a loop of small kernels whose launches take longer than their GPU
	 * work; the same step captured in a CUDA graph */
	{ "launch-bound", ILOG_PAT_LAUNCH_BOUND, 6, { "base" } },
	{ "launch-graphs", DEMO_NONE, 6, { "base" } },
	/* time lost between the CUDA calls: the training loop takes its model
	 * lock for a moment before each step while a checkpoint thread of
	 * the job holds it 12 ms of every 16 for a while (lock-wait) or 50 us
	 * (lock-quiet); its data loader child fetches each batch in 12 ms for
	 * a while (loader-wait) or 0.2 ms all along (loader-steady) */
	{ "lock-wait", ILOG_PAT_BETWEEN_CALLS, 8, { "base" } },
	{ "lock-quiet", DEMO_NONE, 8, { "base" } },
	{ "loader-wait", ILOG_PAT_BETWEEN_CALLS, 8, { "base" } },
	{ "loader-steady", DEMO_NONE, 8, { "base" } },
	{ NULL, DEMO_NONE, 0, { NULL } },
};

const char *demo_pattern(int p)
{
	return p >= 0 && p < ILOG_PAT__COUNT ? ilog_patterns[p].name : "";
}

const struct demo_scenario *demo_find(const char *name)
{
	for (const struct demo_scenario *s = demo_scenarios; s->name; s++)
		if (!strcmp(s->name, name))
			return s;
	return NULL;
}

/* What every copy starts from: a 2 ms step of GPU work waited for in a
 * sleeping synchronize, microsecond launches and allocations that spin. */
static const char BASE[] =
	"FAKECUDA_MODE=sleep;FAKECUDA_MODE_cudaLaunchKernel=spin;FAKECUDA_MODE_cudaMalloc=spin;"
	"FAKECUDA_MODE_cudaFree=spin;FAKECUDA_MODE_cudaMemcpyAsync=spin;"
	"FAKECUDA_MODE_cudaStreamBeginCapture=spin;FAKECUDA_MODE_cudaStreamEndCapture=spin;"
	"FAKECUDA_MODE_cudaGraphLaunch=spin;FAKECUDA_LAT_cudaLaunchKernel_NS=5000;"
	"FAKECUDA_LAT_cudaStreamSynchronize_NS=2000000;FAKECUDA_LAT_cudaMalloc_NS=12000;"
	"FAKECUDA_LAT_cudaFree_NS=6000;FAKECUDA_LAT_cudaMemcpyAsync_NS=8000;"
	"FAKECUDA_LAT_cudaStreamBeginCapture_NS=6000;FAKECUDA_LAT_cudaStreamEndCapture_NS=25000;"
	"FAKECUDA_LAT_cudaGraphInstantiate_NS=40000000;FAKECUDA_LAT_cudaGraphLaunch_NS=6000;"
	"FAKECUDA_LAT_cudaMemcpy_NS=400000;";

#define RANK_KNOBS "FAKECUDA_LAT_cudaStreamSynchronize_NS=6000000;" \
	"FAKECUDA_LAT_ncclAllReduce_NS=20000;FAKECUDA_MODE_ncclAllReduce=spin;" \
	"FAKECUDA_LAT_ncclCommInitRank_NS=2000000;"

/* The settings of one library copy of one scenario (after BASE unless cold). */
static const char *copy_knobs(const char *scen, const char *copy)
{
	static const struct { const char *scen, *copy, *knobs; } t[] = {
		/* the synchronize burns its own CPU time: preemption stretches it */
		{ "incident", "base", "FAKECUDA_MODE_cudaStreamSynchronize=cpu;"
				      "FAKECUDA_MODE_cudaLaunchKernel=cpu;" },
		{ "noisy-neighbour", "base", "FAKECUDA_MODE_cudaStreamSynchronize=cpu;"
					     "FAKECUDA_MODE_cudaLaunchKernel=cpu;" },
		{ "cold-start", "cold", "!FAKECUDA_MODE=sleep;FAKECUDA_LAT_cudaMalloc_NS=400000000;"
					"FAKECUDA_LAT_cudaLaunchKernel_NS=120000000;"
					"FAKECUDA_LAT_cudaMemcpyAsync_NS=20000000;" },
		{ "memcpy-bottleneck", "base", "FAKECUDA_BW_cudaMemcpy_MBPS=3000;"
					       "FAKECUDA_LAT_cudaMemcpy_NS=0;FAKECUDA_MODE_cudaMemcpy=spin;" },
		{ "periodic-spike", "base", "FAKECUDA_SPIKE_cudaMalloc=300:50000000;" },
		{ "gpu-contention", "slow", "FAKECUDA_LAT_cudaStreamSynchronize_NS=5600000;" },
		{ "gpu-contention", "infer", "FAKECUDA_LAT_cudaStreamSynchronize_NS=3000000;" },
		{ "capture-warmup", "fail", "FAKECUDA_RET_cudaStreamEndCapture=901;" },
		{ "memory-pressure", "slow", "FAKECUDA_LAT_cudaMemcpy_NS=1600000;" },
		{ "memory-storm", "slow", "FAKECUDA_LAT_cudaMemcpy_NS=1600000;" },
		{ "memory-mild", "slow", "FAKECUDA_LAT_cudaMemcpy_NS=1600000;" },
		{ "gpu-slow", "slow", "FAKECUDA_LAT_cudaStreamSynchronize_NS=7000000;" },
		/* a step whose GPU work stalls */
		{ "isolated-stalls", "stall", "FAKECUDA_LAT_cudaStreamSynchronize_NS=200000000;" },
		/* a synchronize that is still waiting when the process dies */
		{ "oom", "hang", "FAKECUDA_LAT_cudaStreamSynchronize_NS=60000000000;" },
		/* the ranks: 6 ms of GPU work after the all-reduce, whose host
		 * call takes 20 us */
		{ "straggler", "base", RANK_KNOBS },
		{ "hang", "base", RANK_KNOBS },
		{ "ranks-clean", "base", RANK_KNOBS },
		/* launches of 20 us that spin; a synchronize that finds nothing to
		 * wait for, or the graph's 4 ms of GPU work */
		{ "launch-bound", "base", "FAKECUDA_LAT_cudaLaunchKernel_NS=20000;"
					  "FAKECUDA_LAT_cudaStreamSynchronize_NS=10000;" },
		{ "launch-graphs", "base", "FAKECUDA_LAT_cudaStreamSynchronize_NS=4000000;" },
		/* micro-batches of 500 us of GPU work; launches and the zeroing of
		 * the gradients spin */
		{ "microbatch", "base", "FAKECUDA_LAT_cudaStreamSynchronize_NS=500000;"
					"FAKECUDA_MODE_cudaMemsetAsync=spin;"
					"FAKECUDA_LAT_cudaMemsetAsync_NS=4000;" },
		{ "microbatch-item", "base", "FAKECUDA_LAT_cudaStreamSynchronize_NS=500000;"
					     "FAKECUDA_MODE_cudaMemsetAsync=spin;"
					     "FAKECUDA_LAT_cudaMemsetAsync_NS=4000;"
					     "FAKECUDA_LAT_cudaMemcpy_NS=1000000;" },
		/* copies at 4 GB/s, waited for only when from pageable memory */
		{ "pageable-copy", "base", "FAKECUDA_PINNED=1;FAKECUDA_BW_cudaMemcpyAsync_MBPS=4000;" },
		{ "pinned-copy", "base", "FAKECUDA_PINNED=1;FAKECUDA_BW_cudaMemcpyAsync_MBPS=4000;" },
		/* a read-back of a few bytes waits 150 us for the queued work:
		 * well above the 50 us rule, and the step's copies stay below its
		 * synchronize (no memcpy-bound) even when a loaded host stretches
		 * each sleep */
		{ "hidden-sync", "base", "FAKECUDA_PINNED=1;FAKECUDA_LAT_cudaMemcpy_NS=150000;" },
		{ "sync-free", "base", "FAKECUDA_PINNED=1;FAKECUDA_LAT_cudaMemcpy_NS=150000;" },
		{ "gpu-leak", "base", "FAKECUDA_DEVMEM_BYTES=4831838208;" },
		{ "gpu-spike", "base", "FAKECUDA_DEVMEM_BYTES=4831838208;" },
	};
	for (size_t i = 0; i < sizeof(t) / sizeof(t[0]); i++)
		if (!strcmp(t[i].scen, scen) && !strcmp(t[i].copy, copy))
			return t[i].knobs;
	return "";
}

struct dim3 { unsigned x, y, z; };

struct cu {
	void *h;
	int (*malloc_)(void **, size_t);
	int (*free_)(void *);
	int (*launch)(const void *, struct dim3, struct dim3, void **, size_t, void *);
	int (*memcpy_)(void *, const void *, size_t, int);
	int (*memcpy_async)(void *, const void *, size_t, int, void *);
	int (*memset_async)(void *, int, size_t, void *);
	int (*sync)(void *);
	int (*begin)(void *, int);
	int (*end)(void *, void **);
	int (*inst)(void **, void *, unsigned long long);
	int (*glaunch)(void *, void *);
	int (*malloc_host)(void **, size_t);
};

static void *const STREAM = (void *)0x5600000a0000ull;
static const char KERNEL[] = "kernel";

static uint64_t now(void)
{
	struct timespec t;
	clock_gettime(CLOCK_MONOTONIC, &t);
	return (uint64_t)t.tv_sec * 1000000000ull + (uint64_t)t.tv_nsec;
}

static void sleep_until(uint64_t t)
{
	uint64_t n;
	while ((n = now()) < t) {
		uint64_t d = t - n;
		struct timespec ts = { (time_t)(d / 1000000000ull), (long)(d % 1000000000ull) };
		nanosleep(&ts, NULL);
	}
}

/* Replace the FAKECUDA_* environment with "K=V;K=V;" (in order, last wins). */
static void set_knobs(const char *list)
{
	extern char **environ;
	char names[64][64];
	int n = 0;
	for (char **e = environ; *e && n < 64; e++)
		if (!strncmp(*e, "FAKECUDA_", 9)) {
			const char *eq = strchr(*e, '=');
			size_t l = eq ? (size_t)(eq - *e) : strlen(*e);
			if (l < sizeof(names[0])) {
				memcpy(names[n], *e, l);
				names[n++][l] = 0;
			}
		}
	for (int i = 0; i < n; i++)
		unsetenv(names[i]);
	char buf[2400];
	snprintf(buf, sizeof(buf), "%s", list);
	for (char *save = NULL, *kv = strtok_r(buf, ";", &save); kv; kv = strtok_r(NULL, ";", &save)) {
		char *eq = strchr(kv, '=');
		if (eq) {
			*eq = 0;
			setenv(kv, eq + 1, 1);
		}
	}
}

/* --sync-factor: the GPU work of a step, hence the synchronize, scaled */
static double sync_factor = 1;

static int load(struct cu *c, const char *lib_dir, const char *scen, const char *copy)
{
	char path[4096], knobs[2400];
	const char *k = copy_knobs(scen, copy);
	if (k[0] == '!')
		snprintf(knobs, sizeof(knobs), "%s", k + 1); /* not on top of BASE */
	else
		snprintf(knobs, sizeof(knobs), "%s%s", BASE, k);
	const char *key = "FAKECUDA_LAT_cudaStreamSynchronize_NS=", *last = NULL;
	for (const char *q = strstr(knobs, key); q; q = strstr(q + 1, key))
		last = q;
	if (last && sync_factor != 1) {
		double ns = strtod(last + strlen(key), NULL) * sync_factor;
		size_t l = strlen(knobs);
		snprintf(knobs + l, sizeof(knobs) - l, "%s%.0f;", key, ns);
	}
	set_knobs(knobs);
	snprintf(path, sizeof(path), "%s/%s/libcudart.so.13", lib_dir, copy);
	memset(c, 0, sizeof(*c));
	c->h = dlopen(path, RTLD_NOW | RTLD_LOCAL);
	if (!c->h) {
		fprintf(stderr, "ingero-demo: %s\n", dlerror());
		return -1;
	}
#define SYM(f, n) *(void **)&c->f = dlsym(c->h, n)
	SYM(malloc_, "cudaMalloc");
	SYM(free_, "cudaFree");
	SYM(launch, "cudaLaunchKernel");
	SYM(memcpy_, "cudaMemcpy");
	SYM(memcpy_async, "cudaMemcpyAsync");
	SYM(memset_async, "cudaMemsetAsync");
	SYM(sync, "cudaStreamSynchronize");
	SYM(begin, "cudaStreamBeginCapture");
	SYM(end, "cudaStreamEndCapture");
	SYM(inst, "cudaGraphInstantiate");
	SYM(glaunch, "cudaGraphLaunch");
	SYM(malloc_host, "cudaMallocHost");
#undef SYM
	if (!c->malloc_ || !c->free_ || !c->launch || !c->memcpy_ || !c->memcpy_async ||
	    !c->memset_async || !c->sync || !c->begin || !c->end || !c->inst || !c->glaunch ||
	    !c->malloc_host) {
		fprintf(stderr, "ingero-demo: %s: a CUDA runtime function is missing\n", path);
		return -1;
	}
	return 0;
}

static void launches(struct cu *c, int n)
{
	struct dim3 g = { 1024, 1, 1 }, b = { 256, 1, 1 };
	for (int i = 0; i < n; i++)
		c->launch(KERNEL, g, b, NULL, 0, STREAM);
}

/* One training step: host work, launches, an async copy of 1 MiB from
 * host (pageable when NULL), wait for the GPU. */
static void step_from(struct cu *c, int n, void *host)
{
	static char pageable[1 << 20], dev[16];
	uint64_t until = now() + 150000;
	while (now() < until)
		;
	launches(c, n);
	c->memcpy_async(dev, host ? host : pageable, sizeof(pageable), 1, STREAM);
	c->sync(STREAM);
}

static void step(struct cu *c, int n)
{
	step_from(c, n, NULL);
}

/*
 * The copy scenarios' step: a 4 MiB batch copied to the device before the
 * step (pinned: both copies from cudaMallocHost memory); or micro-batches
 * each followed by a read-back of its 4-byte loss - a synchronous copy
 * (.item(): it waits for the GPU), or with sync_free an async one into
 * pinned memory, read after the step's synchronize.
 */
static void copy_step(struct cu *c, const char *scen)
{
	static char batch[4 << 20], dev[16];
	static void *pin_batch, *pin_step, *pin_loss;
	if (!pin_batch && (c->malloc_host(&pin_batch, sizeof(batch)) ||
			   c->malloc_host(&pin_step, 1 << 20) || c->malloc_host(&pin_loss, 64)))
		pin_batch = pin_step = pin_loss = NULL;
	if (!strcmp(scen, "pageable-copy") || !strcmp(scen, "pinned-copy")) {
		int pinned = !strcmp(scen, "pinned-copy") && pin_batch;
		c->memcpy_async(dev, pinned ? pin_batch : batch, sizeof(batch), 1, STREAM);
		step_from(c, 8, pinned ? pin_step : NULL);
		return;
	}
	static float loss[16];
	int sync_free = !strcmp(scen, "sync-free") && pin_loss;
	uint64_t until = now() + 150000;
	while (now() < until)
		;
	for (int mb = 0; mb < 4; mb++) {
		launches(c, 2);
		if (sync_free)
			c->memcpy_async((float *)pin_loss + mb, dev, sizeof(float), 2, STREAM);
		else
			c->memcpy_(&loss[mb], dev, sizeof(float), 2);
	}
	c->sync(STREAM);
}

/*
 * A step of 4 micro-batches (host work, 4 launches, the synchronize that
 * waits for them: 500 us of GPU work each) and the optimizer (3 launches,
 * zeroing the gradients, the step's synchronize: 1 ms); with item, each
 * micro-batch reads its loss back as tensor.item() does, a 4-byte blocking
 * device-to-host cudaMemcpy (1 ms: it waits for the GPU).
 */
static void microbatch_step(struct cu *c, int item)
{
	static char dev[16];
	static float loss;
	for (int m = 0; m < 4; m++) {
		uint64_t until = now() + 100000;
		while (now() < until)
			;
		launches(c, 4);
		if (item)
			c->memcpy_(&loss, dev, sizeof(loss), 2 /* cudaMemcpyDeviceToHost */);
		c->sync(STREAM);
	}
	launches(c, 3);
	c->memset_async(dev, 0, sizeof(dev), STREAM);
	c->sync(STREAM);
}

/* Start a helper through its named symlink next to the workload. */
static pid_t helper(const char *self_dir, const char *name, const char *kind, uint64_t a,
		    uint64_t b, int cpu, const char *scen, const char *lib_dir)
{
	pid_t p = fork();
	if (p)
		return p;
	char path[4096], sa[32], sb[32], sc[16];
	snprintf(path, sizeof(path), "%s/%s", self_dir, name);
	snprintf(sa, sizeof(sa), "%llu", (unsigned long long)a);
	snprintf(sb, sizeof(sb), "%llu", (unsigned long long)b);
	snprintf(sc, sizeof(sc), "%d", cpu);
	execl(path, name, "--child", kind, sa, sb, sc, scen, lib_dir, (char *)NULL);
	fprintf(stderr, "ingero-demo: %s: %s\n", path, strerror(errno));
	_exit(127);
}

static void pin(int cpu)
{
	cpu_set_t set;
	CPU_ZERO(&set);
	CPU_SET(cpu, &set);
	sched_setaffinity(0, sizeof(set), &set);
}

/*
 * Churn through memory until `until`: map len bytes, touch every page (each
 * page faulted in is a page allocation), unmap; with gap_ns, sleep that
 * long between rounds (a steady allocator instead of a storm).  A storm
 * (huge) asks for transparent huge pages: a 4 KiB fault
 * costs microseconds on a virtual machine (about 50 MiB/s a core were
 * measured on a CI-class host), which put the storm's rate at the edge of
 * the memory rule; 2 MiB pages are zeroed at memory speed (GiB/s), so the
 * staged storm is an order of magnitude clear of it.  Where THP is off the
 * advice is ignored and the 4 KiB pages are counted just the same.  With
 * rate (bytes/s), rounds start no sooner than that rate allows.
 */
static int churn(uint64_t until, size_t len, uint64_t gap_ns, int huge, double rate)
{
	const size_t hp = 2u << 20;
	uint64_t start = now();
	for (double done = 0; now() < until; done += (double)len) {
		if (rate > 0) {
			sleep_until(start + (uint64_t)(done / rate * 1e9));
			if (now() >= until)
				break;
		}
		size_t map = len + (huge ? hp : 0);
		char *m = mmap(NULL, map, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
		if (m == MAP_FAILED)
			return 1;
		char *p = huge ? (char *)(((uintptr_t)m + hp - 1) & ~(uintptr_t)(hp - 1)) : m;
		if (huge)
			madvise(p, len, MADV_HUGEPAGE);
		for (size_t i = 0; i < len; i += 4096)
			p[i] = (char)i;
		munmap(m, map);
		if (gap_ns)
			sleep_until(now() + gap_ns);
	}
	return 0;
}

/* The host's available memory in bytes (/proc/meminfo), or -1. */
static double mem_available(void)
{
	FILE *f = fopen("/proc/meminfo", "r");
	char line[256];
	double kib = -1;
	while (f && fgets(line, sizeof(line), f))
		if (sscanf(line, "MemAvailable: %lf kB", &kib) == 1)
			break;
	if (f)
		fclose(f);
	return kib > 0 ? kib * 1024 : -1;
}

/* The workload's timeline, for the sidecar: "T0 SPAN\n" in WORK/t0. */
static void publish_t0(const char *work, uint64_t t0, uint64_t span)
{
	char tmp[4200], path[4200];
	snprintf(tmp, sizeof(tmp), "%s/t0.tmp", work);
	snprintf(path, sizeof(path), "%s/t0", work);
	FILE *f = fopen(tmp, "w");
	if (!f)
		return;
	fprintf(f, "%llu %llu\n", (unsigned long long)t0, (unsigned long long)span);
	if (!fclose(f))
		rename(tmp, path);
}

/* The loop device the orchestrator attached for the disk scenarios
 * (WORK/disk: "PATH SIZE"), or -1. */
static int disk_dev(const char *work, char *dev, size_t n, uint64_t *size)
{
	char path[4200];
	snprintf(path, sizeof(path), "%s/disk", work);
	FILE *f = fopen(path, "r");
	unsigned long long sz = 0;
	char d[256];
	int ok = f && fscanf(f, "%255s %llu", d, &sz) == 2 && sz >= (1u << 20);
	if (f)
		fclose(f);
	if (!ok)
		return -1;
	snprintf(dev, n, "%s", d);
	*size = sz;
	return 0;
}

struct reader {
	const char *dev;
	uint64_t size, until;
	size_t chunk;
	uint64_t gap_ns;
	unsigned seed;
};

/* Read a device with O_DIRECT (no page cache between it and the disk), in
 * chunks at pseudo-random aligned offsets, until `until`. */
static void *read_dev(void *arg)
{
	struct reader *r = arg;
	int fd = open(r->dev, O_RDONLY | O_DIRECT);
	void *buf = NULL;
	if (fd < 0 || posix_memalign(&buf, 4096, r->chunk)) {
		if (fd >= 0)
			close(fd);
		return (void *)1;
	}
	uint64_t blocks = r->size / r->chunk, x = r->seed | 1;
	while (now() < r->until) {
		x ^= x << 13, x ^= x >> 7, x ^= x << 17;
		if (pread(fd, buf, r->chunk, (off_t)((x % blocks) * r->chunk)) < 0)
			break;
		if (r->gap_ns)
			sleep_until(now() + r->gap_ns);
	}
	free(buf);
	close(fd);
	return NULL;
}

/*
 * The peer rank of the net scenarios: answers each request of the job's
 * collective (a chunk size, 8 bytes) with that many bytes, over one TCP
 * connection on loopback, on a port of its own published in WORK/peer.port.
 * "lossy": from AT(0.35) to AT(0.7) of the run, the kernel drops its data
 * segments to the job at random (iptables statistic match on INPUT of lo,
 * this port only, P = NET_LOSS; the rule carries the comment
 * ingero-demo-net-PORT and is removed when the time is up or the peer is
 * stopped), so its flow retransmits for real; "lossy-all": from its start
 * to its end, P = NET_LOSS_ALL.
 */
#define NET_LOSS "0.05"
#define NET_LOSS_ALL "0.15"
static const char *loss_p = NET_LOSS;
static char loss_port[16];
static volatile sig_atomic_t loss_on;

static int iptables_rule(const char *op)
{
	char comment[48];
	snprintf(comment, sizeof(comment), "ingero-demo-net-%s", loss_port);
	char *argv[] = { "iptables", "-w", (char *)op, "INPUT", "-i", "lo", "-p", "tcp", "--sport",
			 loss_port, "-m", "length", "--length", "1000:65535", "-m", "statistic",
			 "--mode", "random", "--probability", (char *)loss_p, "-m", "comment", "--comment",
			 comment, "-j", "DROP", NULL };
	pid_t p = fork();
	if (p == 0) {
		int null = open("/dev/null", O_WRONLY);
		if (null >= 0)
			dup2(null, 2);
		execvp(argv[0], argv);
		_exit(127);
	}
	int st = 0;
	return p < 0 || waitpid(p, &st, 0) < 0 || !WIFEXITED(st) || WEXITSTATUS(st) ? -1 : 0;
}

static void loss_off(int sig)
{
	if (loss_on)
		iptables_rule("-D"); /* fork, exec and wait are async-signal-safe */
	_exit(sig == SIGTERM ? 0 : 1);
}

struct loss_args { uint64_t a, b; };

static void *loss_thread(void *arg)
{
	const struct loss_args *l = arg;
	sleep_until(l->a);
	if (iptables_rule("-I")) {
		fprintf(stderr, "ingero-demo: net-retrans: cannot add the iptables rule that drops "
			"the peer's packets (needs root and iptables)\n");
		return NULL;
	}
	loss_on = 1;
	sleep_until(l->b);
	iptables_rule("-D");
	loss_on = 0;
	return NULL;
}

static int peer(const char *kind, const char *work, uint64_t t0, uint64_t span)
{
	int ls = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
	struct sockaddr_in sa = { .sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_LOOPBACK) };
	socklen_t sl = sizeof(sa);
	if (ls < 0 || bind(ls, (struct sockaddr *)&sa, sizeof(sa)) || listen(ls, 1) ||
	    getsockname(ls, (struct sockaddr *)&sa, &sl))
		return 3;
	snprintf(loss_port, sizeof(loss_port), "%u", ntohs(sa.sin_port));
	char tmp[4200], path[4200];
	snprintf(tmp, sizeof(tmp), "%s/peer.port.tmp", work);
	snprintf(path, sizeof(path), "%s/peer.port", work);
	FILE *f = fopen(tmp, "w");
	if (!f || fprintf(f, "%s\n", loss_port) < 0 || fclose(f) || rename(tmp, path))
		return 3;
	static struct loss_args la;
	pthread_t t;
	if (!strncmp(kind, "lossy", 5)) {
		int all = !strcmp(kind, "lossy-all");
		signal(SIGTERM, loss_off);
		signal(SIGINT, loss_off);
		loss_p = all ? NET_LOSS_ALL : NET_LOSS;
		la = (struct loss_args){ t0 + (uint64_t)((double)span * (all ? 0 : 0.35)),
					 t0 + (uint64_t)((double)span * (all ? 1 : 0.7)) };
		pthread_create(&t, NULL, loss_thread, &la);
	}
	int c = accept(ls, NULL, NULL);
	static char buf[1 << 16];
	uint64_t n;
	while (c >= 0 && recv(c, &n, sizeof(n), MSG_WAITALL) == (ssize_t)sizeof(n) &&
	       n <= sizeof(buf) && send(c, buf, (size_t)n, MSG_NOSIGNAL) == (ssize_t)n)
		;
	if (loss_on) {
		iptables_rule("-D");
		loss_on = 0;
	}
	return 0;
}

int demo_sidecar(const char *kind, const char *work)
{
	char path[4200];
	snprintf(path, sizeof(path), "%s/t0", work);
	unsigned long long t0 = 0, span = 0;
	for (int i = 0; i < 6000 && !t0; i++) { /* the recorder starts first: up to 60 s */
		FILE *f = fopen(path, "r");
		if (!f || fscanf(f, "%llu %llu", &t0, &span) != 2)
			t0 = 0;
		if (f)
			fclose(f);
		if (!t0)
			usleep(10000);
	}
	if (!t0)
		return 3;
	if (!strncmp(kind, "lossy", 5) || !strcmp(kind, "peer"))
		return peer(kind, work, t0, span);
	long ncpu = sysconf(_SC_NPROCESSORS_ONLN);
	int cpu = ncpu > 1 ? (int)ncpu - 1 : 0; /* the job's, as demo_workload pins it */
	if (!strcmp(kind, "hog")) {
		/* another tenant's batch job, pinned to the job's CPU and never
		 * yielding in the middle of the run (as incident's backup) */
		pin(cpu);
		setpriority(PRIO_PROCESS, 0, -10); /* not root: its fair share then */
		sleep_until(t0 + (uint64_t)((double)span * 0.3));
		while (now() < t0 + (uint64_t)((double)span * 0.8))
			__asm__ volatile("" ::: "memory");
		return 0;
	}
	if (!strcmp(kind, "quiet")) {
		/* the same tenant idle: 1 ms of work every 100 ms, on another CPU */
		pin(ncpu > 1 ? 0 : cpu);
		setpriority(PRIO_PROCESS, 0, 19);
		while (now() < t0 + span) {
			uint64_t until = now() + 1000000;
			while (now() < until)
				__asm__ volatile("" ::: "memory");
			sleep_until(now() + 100000000);
		}
		return 0;
	}
	if (!strcmp(kind, "storm")) {
		/* what memory-pressure's memhog does, from outside the job: on a
		 * CPU the job does not use, so what it costs the job is memory,
		 * not CPU time, at the default weight, so that a busy host does
		 * not starve the storm to a trickle (at nice 19 beside a build it
		 * allocated a tenth of its rate for half of its time) */
		pin(ncpu > 1 ? 0 : cpu);
		sleep_until(t0 + (uint64_t)((double)span * 0.35));
		return churn(t0 + (uint64_t)((double)span * 0.7), 256u << 20, 0, 1, 0);
	}
	if (!strcmp(kind, "mild")) {
		/* the same tenant's storm at half the memory rule's edge of
		 * certainty (0.5% of the available memory per second against
		 * 1%), in rounds of 16 MiB: a storm the analysis weighs as likely
		 * (memory-mild), harmless where the job is not slowed
		 * (memory-mild-ok) */
		pin(ncpu > 1 ? 0 : cpu);
		double avail = mem_available();
		if (avail <= 0)
			return 3;
		sleep_until(t0 + (uint64_t)((double)span * 0.35));
		return churn(t0 + (uint64_t)((double)span * 0.7), 16u << 20, 0, 1, 0.005 * avail);
	}
	/* the disk's tenants at the default weight: what they cost the job is
	 * the disk, and readers at nice 19 beside two CPU hogs get so little
	 * CPU that they issue few requests (likely why disk-stall found no
	 * stall in a suite run beside them; the storm tenant above was starved
	 * the same way at nice 19) */
	if (!strcmp(kind, "diskhog") || !strcmp(kind, "disksteady")) {
		char dev[256];
		uint64_t size;
		if (disk_dev(work, dev, sizeof(dev), &size))
			return 3;
		if (!strcmp(kind, "disksteady")) { /* 64 KiB every 20 ms, the whole run */
			struct reader r = { dev, size, t0 + span, 64u << 10, 20000000, 7 };
			return read_dev(&r) ? 1 : 0;
		}
		/* a scan of the job's disk: 8 readers of 1 MiB, queued ahead of
		 * the data loader's requests, from 35% to 70% of the run */
		sleep_until(t0 + (uint64_t)((double)span * 0.35));
		struct reader r[8];
		pthread_t th[8];
		for (unsigned i = 0; i < 8; i++) {
			r[i] = (struct reader){ dev, size, t0 + (uint64_t)((double)span * 0.7), 1u << 20,
						0, 11 + i };
			pthread_create(&th[i], NULL, read_dev, &r[i]);
		}
		for (unsigned i = 0; i < 8; i++)
			pthread_join(th[i], NULL);
		return 0;
	}
	/* a best-effort pod: the lowest CPU weight, so what it costs the job
	 * is memory, not CPU time */
	setpriority(PRIO_PROCESS, 0, 19);
	/* steady: 16 MiB every 50 ms over the whole run, no storm */
	return churn(t0 + span, 16u << 20, 50000000, 0, 0);
}

/* --child KIND A B CPU SCEN LIBDIR: the helpers, active in [A, B). */
int demo_child(int argc, char **argv)
{
	if (argc < 8)
		return 2;
	const char *kind = argv[2];
	uint64_t a = strtoull(argv[3], NULL, 10), b = strtoull(argv[4], NULL, 10);
	int cpu = atoi(argv[5]);
	sleep_until(a);
	if (!strcmp(kind, "hog") || !strcmp(kind, "hog-high")) {
		/* a backup job pinned to the training CPU, never yielding; given a
		 * higher priority where allowed, so it stands out of any background
		 * (hog-high: above the straggler scenario's ranks, at -10) */
		pin(cpu);
		/* not root: its fair share then */
		setpriority(PRIO_PROCESS, 0, !strcmp(kind, "hog") ? -10 : -20);
		while (now() < b)
			__asm__ volatile("" ::: "memory");
		return 0;
	}
	if (!strcmp(kind, "memhog")) {
		/* off the job's CPU: it costs the job memory, not CPU time */
		long ncpu = sysconf(_SC_NPROCESSORS_ONLN);
		pin(ncpu > 1 && cpu == (int)ncpu - 1 ? 0 : cpu);
		return churn(b, 256u << 20, 0, 1, 0);
	}
	if (!strcmp(kind, "loader")) {
		/* the data loader: a batch is four 16 KiB O_DIRECT reads, handed
		 * to the training process as a 1 KiB token on fd 3 (a pipe of 4
		 * tokens: it prefetches 4 batches, then blocks on the pipe) */
		char dev[256];
		uint64_t size;
		if (disk_dev(argv[7], dev, sizeof(dev), &size))
			return 3;
		int fd = open(dev, O_RDONLY | O_DIRECT);
		void *buf = NULL;
		if (fd < 0 || posix_memalign(&buf, 4096, 16384))
			return 1;
		static char tok[1024];
		uint64_t off = 0;
		while (now() < b) {
			for (int i = 0; i < 4; i++, off = (off + 16384) % size)
				if (pread(fd, buf, 16384, (off_t)off) < 0)
					return 1;
			if (write(3, tok, sizeof(tok)) != (ssize_t)sizeof(tok))
				break; /* the training process is done */
		}
		return 0;
	}
	if (!strcmp(kind, "fetch")) {
		/* a data loader fetching each batch from a remote store (it
		 * sleeps): 0.2 ms a batch, 12 ms from 30% to 75% of the run in
		 * loader-wait; a 1 KiB token per batch on fd 3 as above */
		int slow = !strcmp(argv[6], "loader-wait");
		uint64_t sa = a + (b - a) * 3 / 10, sb = a + (b - a) * 3 / 4;
		static char tok[1024];
		while (now() < b) {
			uint64_t t = now();
			sleep_until(t + (slow && t >= sa && t < sb ? 12000000 : 200000));
			if (write(3, tok, sizeof(tok)) != (ssize_t)sizeof(tok))
				break; /* the training process is done */
		}
		return 0;
	}
	if (!strcmp(kind, "infer")) {
		/* a second CUDA process: an inference loop on the same GPU */
		struct cu c;
		if (load(&c, argv[7], argv[6], "infer"))
			return 1;
		while (now() < b) {
			uint64_t gap = now() + 400000;
			while (now() < gap)
				;
			step(&c, 4);
		}
		return 0;
	}
	return 2;
}

/*
 * Put this process in a new memory cgroup limited to limit bytes (cgroup
 * v1 memory controller, or v2 with memory enabled), so that touching more
 * makes the kernel's OOM killer pick it - the same kill as when a node
 * runs out, without touching the rest of the machine.  0, or -1.
 */
static int join_memcg(uint64_t limit)
{
	FILE *f = fopen("/proc/self/cgroup", "r");
	char line[4096], dir[4200] = "", v1[4096] = "", v2[4096] = "";
	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f)) {
		line[strcspn(line, "\n")] = 0;
		char *a = strchr(line, ':'), *b = a ? strchr(a + 1, ':') : NULL;
		if (!b)
			continue;
		*b = 0;
		if (!strcmp(a + 1, "memory") || strstr(a + 1, ",memory") || !strncmp(a + 1, "memory,", 7))
			snprintf(v1, sizeof(v1), "%s", b + 1);
		else if (!strcmp(line, "0") && !a[1])
			snprintf(v2, sizeof(v2), "%s", b + 1);
	}
	fclose(f);
	const char *limit_file;
	if (v1[0] && !access("/sys/fs/cgroup/memory", W_OK)) {
		snprintf(dir, sizeof(dir), "/sys/fs/cgroup/memory%s/ingero-demo-%d", v1, (int)getpid());
		limit_file = "memory.limit_in_bytes";
	} else if (!access("/sys/fs/cgroup/cgroup.controllers", R_OK)) {
		/* v2: the memory controller must be enabled for the children */
		char ctl[4300];
		snprintf(ctl, sizeof(ctl), "/sys/fs/cgroup%s/cgroup.subtree_control", v2);
		FILE *c = fopen(ctl, "w");
		if (c) {
			fputs("+memory", c);
			fclose(c);
		}
		snprintf(dir, sizeof(dir), "/sys/fs/cgroup%s/ingero-demo-%d", v2, (int)getpid());
		limit_file = "memory.max";
	} else {
		return -1;
	}
	char path[4400];
	if (mkdir(dir, 0755) && errno != EEXIST)
		return -1;
	snprintf(path, sizeof(path), "%s/%s", dir, limit_file);
	if (!(f = fopen(path, "w")))
		return -1;
	int bad = fprintf(f, "%llu", (unsigned long long)limit) < 0;
	if (fclose(f) || bad)
		return -1;
	snprintf(path, sizeof(path), "%s/cgroup.procs", dir);
	if (!(f = fopen(path, "w")))
		return -1;
	bad = fprintf(f, "%d", (int)getpid()) < 0;
	return fclose(f) || bad ? -1 : 0;
}

static void *hang_sync(void *arg)
{
	struct cu *c = arg;
	c->sync(STREAM); /* GPU work that will not finish before the kill */
	return NULL;
}

static void capture(struct cu *c, int n)
{
	void *graph = NULL, *exec = NULL;
	c->begin(STREAM, 0);
	launches(c, n);
	if (!c->end(STREAM, &graph))
		c->inst(&exec, graph, 0);
}

static void graph_step(struct cu *c)
{
	uint64_t until = now() + 80000;
	while (now() < until)
		;
	c->glaunch((void *)0x6b0000001000ull, STREAM);
	c->sync(STREAM);
}

/*
 * The net scenarios' job: a training step, then an all-reduce of 512 KiB
 * with its peer rank through the fake NCCL's socket transport
 * (FAKECUDA_NCCL_FD: the connection to the peer, WORK/peer.port).
 */
typedef int (*allreduce_fn)(const void *, void *, size_t, int, int, void *, void *);

static int net_job(struct cu *base, const char *lib_dir, uint64_t end)
{
	char path[4200];
	unsigned port = 0;
	snprintf(path, sizeof(path), "%s/peer.port", lib_dir);
	for (int i = 0; i < 500 && !port; i++) {
		FILE *f = fopen(path, "r");
		if (!f || fscanf(f, "%u", &port) != 1)
			port = 0;
		if (f)
			fclose(f);
		if (!port)
			usleep(10000);
	}
	int fd = socket(AF_INET, SOCK_STREAM, 0);
	struct sockaddr_in sa = { .sin_family = AF_INET, .sin_port = htons((uint16_t)port),
				  .sin_addr.s_addr = htonl(INADDR_LOOPBACK) };
	if (!port || fd < 0 || connect(fd, (struct sockaddr *)&sa, sizeof(sa))) {
		fprintf(stderr, "ingero-demo: cannot reach the peer rank: %s\n",
			port ? strerror(errno) : "no port published");
		return 3;
	}
	char v[16];
	snprintf(v, sizeof(v), "%d", fd);
	setenv("FAKECUDA_NCCL_FD", v, 1);
	snprintf(path, sizeof(path), "%s/base/libnccl.so.2", lib_dir);
	void *h = dlopen(path, RTLD_NOW | RTLD_LOCAL);
	allreduce_fn ar = h ? (allreduce_fn)(uintptr_t)dlsym(h, "ncclAllReduce") : NULL;
	if (!ar) {
		fprintf(stderr, "ingero-demo: %s\n", dlerror());
		return 2;
	}
	static float a[128 << 10], b[128 << 10];
	/* warm the connection up (its windows grow) before the timed steps */
	for (int i = 0; i < 256; i++) {
		uint64_t want = 1 << 16, got = 0;
		if (send(fd, &want, sizeof(want), MSG_NOSIGNAL) != (ssize_t)sizeof(want))
			break;
		while (got < want) {
			ssize_t r = recv(fd, b, (size_t)(want - got), 0);
			if (r <= 0)
				return 3;
			got += (uint64_t)r;
		}
	}
	while (now() < end) {
		step(base, 8);
		ar(a, b, sizeof(a) / sizeof(a[0]), 7 /* ncclFloat */, 0 /* ncclSum */,
		   (void *)0x5c0000001000ull, STREAM);
	}
	close(fd);
	return 0;
}

static void host_cpu(uint64_t ns);

/* lock-wait, lock-quiet: a checkpoint thread of the job that takes the
 * model lock every 16 ms in [a, b) and holds it `hold` ns, asleep */
static pthread_mutex_t model_lock = PTHREAD_MUTEX_INITIALIZER;
struct holder {
	uint64_t a, b, end, hold;
};

static void *checkpoint(void *arg)
{
	const struct holder *h = arg;
	prctl(PR_SET_NAME, "checkpoint");
	sleep_until(h->a);
	for (uint64_t next = now(); now() < h->b; next += 16000000) {
		pthread_mutex_lock(&model_lock);
		sleep_until(now() + h->hold);
		pthread_mutex_unlock(&model_lock);
		sleep_until(next + 16000000);
	}
	return NULL;
}

int demo_workload(const struct demo_scenario *s, double seconds, const char *lib_dir,
		  double factor)
{
	if (factor > 0)
		sync_factor = factor;
	struct cu c[3];
	char self_dir[4096];
	snprintf(self_dir, sizeof(self_dir), "%s/bin", lib_dir);
	const char *n = s->name;
	/* helpers and the workload agree on one timeline */
	uint64_t t0 = now() + 500000000ull, span = (uint64_t)(seconds * 1e9), end = t0 + span;
#define AT(f) (t0 + (uint64_t)((double)span * (f)))
	long ncpu = sysconf(_SC_NPROCESSORS_ONLN);
	int cpu = ncpu > 1 ? (int)ncpu - 1 : 0;
	pid_t kids[2] = { 0, 0 };
	if (!strcmp(n, "incident") || !strcmp(n, "noisy-neighbour")) {
		pin(cpu);
	}
	if (!strcmp(n, "incident")) {
		kids[0] = helper(self_dir, "backup", "hog", AT(0.3), AT(0.8), cpu, n, lib_dir);
	} else if (!strcmp(n, "gpu-contention")) {
		kids[0] = helper(self_dir, "infer", "infer", AT(0.3), AT(0.75), cpu, n, lib_dir);
	} else if (!strcmp(n, "memory-pressure")) {
		kids[0] = helper(self_dir, "memhog", "memhog", AT(0.35), AT(0.7), cpu, n, lib_dir);
	}
	int batches = -1; /* disk and loader scenarios: the data loader's pipe */
	int fetch = !strncmp(n, "loader-", 7);
	if (!strcmp(n, "disk-stall") || !strcmp(n, "disk-steady") || fetch) {
		int pf[2];
		if (pipe(pf))
			return 2;
		fcntl(pf[1], F_SETPIPE_SZ, 4096);
		kids[1] = fork();
		if (kids[1] == 0) {
			/* the read end first: it is fd 3 itself when nothing
			 * else is open, and closing it after the dup2 would
			 * close the loader's pipe */
			close(pf[0]);
			if (pf[1] != 3) {
				dup2(pf[1], 3);
				close(pf[1]);
			}
			char path[4200], sa[32], sb[32];
			snprintf(path, sizeof(path), "%s/loader", self_dir);
			snprintf(sa, sizeof(sa), "%llu", (unsigned long long)t0);
			snprintf(sb, sizeof(sb), "%llu", (unsigned long long)end);
			execl(path, "loader", "--child", fetch ? "fetch" : "loader", sa, sb, "0", n,
			      lib_dir, (char *)NULL);
			_exit(127);
		}
		close(pf[1]);
		batches = pf[0];
	}
	for (int i = 0; s->copies[i]; i++)
		if (strcmp(s->copies[i], "infer") && load(&c[i], lib_dir, n, s->copies[i]))
			return 2;
	if (s->sidecar) {
		/* the job keeps its CPU (as on a node with cores set aside for
		 * it): what an allocating host process costs it is memory, not
		 * CPU time; a neighbour's CPU load competes at equal weight */
		if (strcmp(s->sidecar, "hog") && strcmp(s->sidecar, "quiet"))
			setpriority(PRIO_PROCESS, 0, -10);
		publish_t0(lib_dir, t0, span);
	}
	sleep_until(t0);
	struct cu *base = &c[0], *alt = NULL;
	for (int i = 0; s->copies[i]; i++) {
		if (!strcmp(s->copies[i], "base"))
			base = &c[i];
		if (!strcmp(s->copies[i], "slow") || !strcmp(s->copies[i], "cold") ||
		    !strcmp(s->copies[i], "fail") || !strcmp(s->copies[i], "hang") ||
		    !strcmp(s->copies[i], "stall"))
			alt = &c[i];
	}
	static char host[32 << 20], dev[16];
	void *ptr;
	if (!strcmp(n, "cold-start")) {
		/* context creation and module loading happen inside the first calls */
		alt->malloc_(&ptr, 256u << 20);
		launches(alt, 1);
		alt->memcpy_async(dev, host, 1 << 20, 1, STREAM);
		for (unsigned k = 0; now() < end; k++) {
			if (k % 10 == 0) {
				base->malloc_(&ptr, 4u << 20);
				base->free_(ptr);
			}
			step(base, 8);
		}
	} else if (!strcmp(n, "memcpy-bottleneck")) {
		while (now() < end) {
			base->memcpy_(dev, host, sizeof(host), 1);
			step(base, 8);
		}
	} else if (!strcmp(n, "periodic-spike")) {
		while (now() < end) {
			base->malloc_(&ptr, 64u << 20);
			step(base, 8);
			base->free_(ptr);
		}
	} else if (!strcmp(n, "graph-recapture")) {
		for (int i = 0; i < 3; i++) /* warm up eagerly, then capture once */
			step(base, 20);
		capture(base, 20);
		for (unsigned k = 0; now() < end; k++) {
			if (now() >= AT(0.4) && k % 8 == 0)
				capture(base, 20); /* shapes change: capture again */
			graph_step(base);
		}
	} else if (!strcmp(n, "capture-warmup")) {
		capture(alt, 2); /* before any eager launch: fails */
		for (int i = 0; i < 3; i++)
			step(base, 20);
		capture(base, 20);
		while (now() < end)
			graph_step(base);
	} else if (!strcmp(n, "gpu-contention") || !strcmp(n, "gpu-slow")) {
		double a = !strcmp(n, "gpu-slow") ? 0.4 : 0.3, b = 0.75;
		while (now() < end)
			step(now() >= AT(a) && now() < AT(b) ? alt : base, 8);
	} else if (!strncmp(n, "net-", 4)) {
		return net_job(base, lib_dir, end);
	} else if (!strcmp(n, "memory-pressure") || !strcmp(n, "memory-storm") ||
		   !strncmp(n, "memory-mild", 11)) {
		while (now() < end) {
			/* (memory-mild-ok has no slow copy: the job stays steady) */
			struct cu *u = alt && now() >= AT(0.35) && now() < AT(0.7) ? alt : base;
			u->memcpy_(dev, host, 1 << 20, 1);
			step(u, 8);
		}
	} else if (!strcmp(n, "oom")) {
		while (now() < AT(0.5))
			step(base, 8);
		if (join_memcg(64u << 20)) {
			fprintf(stderr, "ingero-demo: oom: cannot make a memory cgroup (needs root and "
				"the memory controller): %s\n", strerror(errno));
			return 3;
		}
		pthread_t t;
		pthread_create(&t, NULL, hang_sync, alt);
		usleep(100000);
		/* the job's host memory grows until the killer comes */
		for (size_t total = 0; total < (4ull << 30); total += 16u << 20) {
			char *p = mmap(NULL, 16u << 20, PROT_READ | PROT_WRITE,
				       MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
			if (p == MAP_FAILED)
				break;
			for (size_t i = 0; i < (16u << 20); i += 4096)
				p[i] = 1;
		}
		fprintf(stderr, "ingero-demo: oom: 4 GiB in a 64 MiB cgroup and not killed\n");
		return 3;
	} else if (!strncmp(n, "cpu-quota", 9)) {
		/* each step 1 ms of the thread's own CPU time (a data loader's or
		 * an optimizer's host work) beside 2 ms waiting for the GPU: a
		 * third of a CPU, three times the 0.1 CPU of cpu-quota's limit, a
		 * sixth of cpu-quota-ok's */
		while (now() < end) {
			host_cpu(1000000);
			step(base, 8);
		}
	} else if (!strcmp(n, "isolated-stalls")) {
		/* steps at random times wait on the stalling copy, one per time */
		double frac[ILOG_SCENARIO_STALLS];
		ilog_scenario_stall_times(frac);
		for (int next = 0; now() < end || next < ILOG_SCENARIO_STALLS;) {
			int stall = next < ILOG_SCENARIO_STALLS && now() >= AT(frac[next]);
			next += stall;
			step(stall ? alt : base, 8);
		}
	} else if (batches >= 0) {
		/* a training step per batch from the loader */
		static char tok[1024];
		sleep_until(t0);
		while (now() < end && read(batches, tok, sizeof(tok)) > 0)
			step(base, 8);
		close(batches);
	} else if (!strncmp(n, "lock-", 5)) {
		/* the loop reads the model under its lock for a moment per step */
		struct holder h = { .a = AT(0.3), .b = AT(0.75), .end = end,
				    .hold = !strcmp(n, "lock-wait") ? 12000000 : 50000 };
		pthread_t t;
		if (pthread_create(&t, NULL, checkpoint, &h))
			return 2;
		while (now() < end) {
			pthread_mutex_lock(&model_lock);
			pthread_mutex_unlock(&model_lock);
			step(base, 8);
		}
		pthread_join(t, NULL);
	} else if (!strcmp(n, "launch-bound")) {
		/* 200 kernels of a few microseconds each per step, launched one
		 * by one: the synchronize finds the GPU done */
		while (now() < end) {
			launches(base, 200);
			base->sync(STREAM);
		}
	} else if (!strcmp(n, "launch-graphs")) {
		/* the same step as one graph launch; the GPU runs its 200
		 * kernels (4 ms) while the host waits in the synchronize */
		capture(base, 200);
		while (now() < end)
			graph_step(base);
	} else if (!strncmp(n, "microbatch", 10)) {
		while (now() < end)
			microbatch_step(base, !strcmp(n, "microbatch-item"));
	} else if (!strcmp(n, "pageable-copy") || !strcmp(n, "pinned-copy") ||
		   !strcmp(n, "hidden-sync") || !strcmp(n, "sync-free")) {
		while (now() < end)
			copy_step(base, n);
	} else if (!strcmp(n, "gpu-leak") || !strcmp(n, "gpu-spike")) {
		/* time-driven, so that a loaded host leaks as fast */
		int leak = !strcmp(n, "gpu-leak"), dead = 0, phase = 0;
		void *spike[16] = { 0 };
		for (uint64_t next = now(); now() < end && !dead;) {
			while (leak && now() >= next && !dead) {
				next += 20000000;
				dead = base->malloc_(&ptr, 16u << 20) != 0; /* the job dies of it */
			}
			if (!leak && phase == 0 && now() >= AT(0.4)) {
				for (int i = 0; i < 16; i++)
					base->malloc_(&spike[i], 128u << 20);
				phase = 1;
			} else if (phase == 1 && now() >= AT(0.5)) {
				for (int i = 0; i < 16; i++)
					base->free_(spike[i]);
				phase = 2;
			}
			void *q;
			base->malloc_(&q, 64u << 20);
			step(base, 8);
			base->free_(q);
		}
	} else { /* incident, clean */
		while (now() < end)
			step(base, 8);
	}
#undef AT
	for (int i = 0; i < 2; i++)
		if (kids[i])
			waitpid(kids[i], NULL, 0);
	return 0;
}

/*
 * The multi-rank scenarios: rank R (0..s->ranks-1) of a data-parallel job,
 * a process of its own started by the orchestrator (main.c record_ranks)
 * as WORK/bin/rankR.  It loads the runtime and the fake NCCL of WORK/base,
 * says so in WORK/ready.R and waits for WORK/go ("T0 SPAN": the job's
 * timeline; the recorders are attached by then).  Rank 0 makes the NCCL id
 * (ncclGetUniqueId) and hands it over in WORK/nccl.id, as torchrun's store
 * does; every rank joins the world communicator with ncclCommInitRank (the
 * fake NCCL's rendezvous, its files in WORK).  Then each step: host work
 * (2 ms of the thread's own CPU time), 8 kernel launches, an ncclAllReduce
 * of 16 MiB on the world communicator and the stream synchronize that
 * waits for it -- for every rank to have enqueued it -- and for the step's
 * GPU work (6 ms).  The ranks must make the same number of collectives:
 * rank 0 decides when the time is up and writes the last step into
 * WORK/stop before it makes its own collective of that step, so every
 * other rank reads it before its next step.
 *
 *   straggler    rank 2 shares its CPU with "backup", a CPU hog of higher
 *                priority (-20 against the job's -10: 9 in 10 of the
 *                CPU), from AT(0.25) to AT(0.85): its host work takes
 *                ~20 ms, every other rank waits for it in its synchronize
 *   hang         at AT(0.5) rank 2 waits for a batch that never comes (a
 *                read of an empty pipe) before its collective; the others
 *                enter it and wait in their synchronize until killed
 *   ranks-clean  the steady job
 */
#define RANK_SLOW 2 /* the rank the scenarios disturb */

struct nccl_id { char b[128]; }; /* ncclUniqueId: passed by value */
typedef int (*uid_fn)(struct nccl_id *);
typedef int (*init_fn)(void **, int, struct nccl_id, int);
typedef int (*destroy_fn)(void *);

static int put_file(const char *work, const char *name, const char *text)
{
	char tmp[4200], path[4200];
	snprintf(tmp, sizeof(tmp), "%s/%s.tmp%d", work, name, (int)getpid());
	snprintf(path, sizeof(path), "%s/%s", work, name);
	FILE *f = fopen(tmp, "w");
	if (!f || fputs(text, f) < 0 || fclose(f) || rename(tmp, path))
		return -1;
	return 0;
}

/* WORK/name's first line into buf, or -1 when it does not exist yet. */
static int get_file(const char *work, const char *name, char *buf, size_t n)
{
	char path[4200];
	snprintf(path, sizeof(path), "%s/%s", work, name);
	FILE *f = fopen(path, "r");
	if (!f)
		return -1;
	int ok = fgets(buf, (int)n, f) != NULL;
	fclose(f);
	return ok ? 0 : -1;
}

/* Wait for WORK/name (the orchestrator kills a rank that waits too long). */
static void wait_file(const char *work, const char *name, char *buf, size_t n)
{
	while (get_file(work, name, buf, n))
		usleep(5000);
}

/* The host side of a step: ns of this thread's own CPU time, so that a
 * process sharing the CPU stretches it, as it stretches a data loader's
 * or an optimizer's work. */
static void host_cpu(uint64_t ns)
{
	struct timespec t;
	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t);
	uint64_t end = (uint64_t)t.tv_sec * 1000000000ull + (uint64_t)t.tv_nsec + ns;
	do
		clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t);
	while ((uint64_t)t.tv_sec * 1000000000ull + (uint64_t)t.tv_nsec < end);
}

/* The hang: the next batch never comes (its writer is this process). */
static void __attribute__((noinline)) wait_batch(void)
{
	static char tok[1024];
	int pf[2];
	if (pipe(pf))
		pause();
	for (;;)
		if (read(pf[0], tok, sizeof(tok)) < 0)
			pause();
}

int demo_rank(const struct demo_scenario *s, int rank, double seconds, const char *work,
	      double factor)
{
	if (factor > 0)
		sync_factor = factor;
	const char *n = s->name;
	struct cu c;
	char path[4200], line[512];
	if (load(&c, work, n, "base"))
		return 2;
	/* the knobs load() set are the fake NCCL's too; its rendezvous files
	 * go into the work directory, removed with it */
	setenv("FAKECUDA_NCCL_DIR", work, 1);
	snprintf(path, sizeof(path), "%s/base/libnccl.so.2", work);
	void *h = dlopen(path, RTLD_NOW | RTLD_LOCAL);
	uid_fn uid = h ? (uid_fn)(uintptr_t)dlsym(h, "ncclGetUniqueId") : NULL;
	init_fn init = h ? (init_fn)(uintptr_t)dlsym(h, "ncclCommInitRank") : NULL;
	allreduce_fn ar = h ? (allreduce_fn)(uintptr_t)dlsym(h, "ncclAllReduce") : NULL;
	destroy_fn destroy = h ? (destroy_fn)(uintptr_t)dlsym(h, "ncclCommDestroy") : NULL;
	if (!uid || !init || !ar || !destroy) {
		fprintf(stderr, "ingero-demo: %s\n", h ? "an NCCL function is missing" : dlerror());
		return 2;
	}
	snprintf(line, sizeof(line), "%d\n", (int)getpid());
	snprintf(path, sizeof(path), "ready.%d", rank);
	if (put_file(work, path, line))
		return 2;
	unsigned long long t0 = 0, span = 0;
	wait_file(work, "go", line, sizeof(line));
	if (sscanf(line, "%llu %llu", &t0, &span) != 2)
		return 2;
	(void)seconds; /* the orchestrator's timeline says it */
#define AT(f) (t0 + (uint64_t)((double)span * (f)))
	uint64_t end = t0 + span;
	long ncpu = sysconf(_SC_NPROCESSORS_ONLN);
	int cpu = ncpu > 1 ? (int)ncpu - 1 : 0;
	/* the job above the host's other work (a busy CI machine's), as on a
	 * node of its own: each rank a session of its own (the orchestrator
	 * made it) whose scheduler autogroup weighs as nice -10 against the
	 * other sessions' (nice values count only within an autogroup).  In
	 * the straggler scenario rank 2 keeps to the last CPU, where its hog,
	 * its child at -20 against its -10, takes 9 in 10 of its session's
	 * time; elsewhere the ranks go where the scheduler puts them (a rank
	 * kept to one CPU waits there for whatever else runs on it) */
	FILE *ag = fopen("/proc/self/autogroup", "w");
	if (ag) {
		fputs("-10", ag);
		fclose(ag); /* not root, or no autogroups: as it is */
	}
	setpriority(PRIO_PROCESS, 0, -10); /* not root: the fair share then */
	if (rank == RANK_SLOW && !strcmp(n, "straggler"))
		pin(cpu);
	pid_t hog = 0;
	if (!strcmp(n, "straggler") && rank == RANK_SLOW) {
		snprintf(path, sizeof(path), "%s/bin", work);
		hog = helper(path, "backup", "hog-high", AT(0.25), AT(0.85), cpu, n, work);
	}

	struct nccl_id id;
	if (rank == 0) {
		if (uid(&id))
			return 2;
		char hex[2 * sizeof(id.b) + 2];
		for (size_t i = 0; i < sizeof(id.b); i++)
			snprintf(hex + 2 * i, 3, "%02x", (unsigned char)id.b[i]);
		strcat(hex, "\n");
		if (put_file(work, "nccl.id", hex))
			return 2;
	} else {
		char hex[2 * sizeof(id.b) + 8];
		wait_file(work, "nccl.id", hex, sizeof(hex));
		for (size_t i = 0; i < sizeof(id.b); i++) {
			unsigned v = 0;
			if (sscanf(hex + 2 * i, "%2x", &v) != 1)
				return 2;
			id.b[i] = (char)v;
		}
	}
	void *comm = NULL;
	if (init(&comm, s->ranks, id, rank)) {
		fprintf(stderr, "ingero-demo: rank %d: ncclCommInitRank failed\n", rank);
		return 2;
	}
	sleep_until(t0);
	static float grad[4 << 20];
	uint64_t stop = 0;
	for (uint64_t k = 0;; k++) {
		if (!stop && rank == 0 && now() >= end) {
			stop = k + 1; /* this step is the last */
			snprintf(line, sizeof(line), "%llu\n", (unsigned long long)stop);
			if (put_file(work, "stop", line))
				return 2;
		} else if (!stop && !get_file(work, "stop", line, sizeof(line))) {
			stop = strtoull(line, NULL, 10);
		}
		if (stop && k >= stop)
			break;
		if (!strcmp(n, "hang") && rank == RANK_SLOW && now() >= AT(0.5))
			wait_batch();
		host_cpu(2000000);
		launches(&c, 8);
		ar(grad, grad, sizeof(grad) / sizeof(grad[0]), 7 /* ncclFloat */, 0 /* ncclSum */, comm,
		   STREAM);
		c.sync(STREAM);
	}
#undef AT
	destroy(comm);
	if (hog > 0)
		waitpid(hog, NULL, 0);
	return 0;
}
