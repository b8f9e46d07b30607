// SPDX-License-Identifier: MIT
/*
 * Controllable latency for the fake CUDA libraries.  Three ways to spend
 * a call's time, because scenarios need different interactions with the
 * scheduler: spin (busy-wait on the wall clock: duration exact, CPU busy),
 * sleep (nanosleep: CPU free), cpu (burn this thread's own CPU time: a hog
 * sharing the CPU stretches the wall-clock duration, as a preempted host
 * thread stretches a real CUDA call).
 */
#include <dlfcn.h>
#include <link.h>
#include <math.h>
#include <stddef.h>
#include <stdio.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include "fake.h"

static uint64_t seed; /* FAKECUDA_SEED, else the pid: each process differs */
static const char *slow_file; /* FAKECUDA_SLOW_FILE */
static int slow_seen;         /* it existed once: every later call is slow */

/* FAKECUDA_<what>[_<op>][_<unit>]: the per-op setting, else def. */
static uint64_t env_u64(const char *what, const char *op, const char *unit, uint64_t def)
{
	char key[128];
	snprintf(key, sizeof(key), "FAKECUDA_%s%s%s%s%s", what, *op ? "_" : "", op,
		 *unit ? "_" : "", unit);
	const char *v = getenv(key);
	return v && *v ? strtoull(v, NULL, 0) : def;
}

static enum fk_mode parse_mode(const char *v, enum fk_mode def)
{
	if (!v || !*v)
		return def;
	if (!strcmp(v, "sleep"))
		return FK_SLEEP;
	if (!strcmp(v, "cpu"))
		return FK_CPU;
	return FK_SPIN;
}

void fk_init(struct fk_op *ops, unsigned n)
{
	uint64_t lat = env_u64("LAT", "", "NS", 0);
	uint64_t bw = env_u64("BW", "", "MBPS", 0);
	enum fk_mode mode = parse_mode(getenv("FAKECUDA_MODE"), FK_SPIN);
	uint64_t first = env_u64("FIRST", "", "NS", 0);
	uint64_t jit = env_u64("JITTER", "", "PCT", 0);
	seed = env_u64("SEED", "", "", (uint64_t)getpid());
	slow_file = getenv("FAKECUDA_SLOW_FILE");
	for (unsigned i = 0; i < n; i++) {
		struct fk_op *o = &ops[i];
		char key[128];
		o->lat_ns = env_u64("LAT", o->name, "NS", lat);
		o->bw_mbps = env_u64("BW", o->name, "MBPS", bw);
		o->ret = (int)env_u64("RET", o->name, "", 0);
		o->first_ns = env_u64("FIRST", o->name, "NS", first);
		o->jitter = (double)env_u64("JITTER", o->name, "PCT", jit) / 100.0;
		o->slow_ns = env_u64("SLOW", o->name, "NS", 0);
		snprintf(key, sizeof(key), "FAKECUDA_MODE_%s", o->name);
		o->mode = parse_mode(getenv(key), mode);
		snprintf(key, sizeof(key), "FAKECUDA_SPIKE_%s", o->name);
		const char *sp = getenv(key);
		if (sp && *sp) {
			char *end;
			o->spike_every = strtoull(sp, &end, 0);
			o->spike_ns = *end == ':' ? strtoull(end + 1, NULL, 0) : 0;
		}
	}
}

static uint64_t clk(clockid_t id)
{
	struct timespec t;
	clock_gettime(id, &t);
	return (uint64_t)t.tv_sec * 1000000000ull + (uint64_t)t.tv_nsec;
}

static void spend(enum fk_mode mode, uint64_t ns)
{
	if (!ns)
		return;
	if (mode == FK_SLEEP) {
		struct timespec t = { (time_t)(ns / 1000000000ull), (long)(ns % 1000000000ull) };
		while (nanosleep(&t, &t))
			;
		return;
	}
	clockid_t id = mode == FK_CPU ? CLOCK_THREAD_CPUTIME_ID : CLOCK_MONOTONIC;
	uint64_t end = clk(id) + ns;
	while (clk(id) < end)
		__asm__ volatile("pause");
}

/* A standard normal draw from a per-thread generator (splitmix64 seeded by
 * FAKECUDA_SEED and the thread, Box-Muller). */
static double normal(void)
{
	static __thread uint64_t s;
	static __thread int init;
	if (!init) {
		s = seed * 0x9e3779b97f4a7c15ull ^ (uint64_t)gettid();
		init = 1;
	}
	double u[2];
	for (int i = 0; i < 2; i++) {
		uint64_t z = (s += 0x9e3779b97f4a7c15ull);
		z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
		z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
		z ^= z >> 31;
		u[i] = ((double)(z >> 11) + 0.5) / 9007199254740992.0; /* (0, 1) */
	}
	return sqrt(-2 * log(u[0])) * cos(6.283185307179586 * u[1]);
}

int fk_run(struct fk_op *op, uint64_t bytes)
{
	uint64_t n = __atomic_add_fetch(&op->calls, 1, __ATOMIC_RELAXED);
	uint64_t ns = op->lat_ns;
	if (op->data && op->bw_mbps)
		ns += bytes * 1000 / op->bw_mbps; /* MB/s = bytes per microsecond */
	if (op->jitter > 0 && ns) /* natural variation: log-normal around the setting */
		ns = (uint64_t)((double)ns * exp(op->jitter * normal() - op->jitter * op->jitter / 2));
	if (op->spike_every && n % op->spike_every == 0)
		ns += op->spike_ns;
	if (n == 1)
		ns += op->first_ns;
	/* a step in latency at a time the test picks (it creates the file);
	 * looked for at each call of the op until it is there */
	if (op->slow_ns && slow_file &&
	    (__atomic_load_n(&slow_seen, __ATOMIC_RELAXED) || !access(slow_file, F_OK))) {
		__atomic_store_n(&slow_seen, 1, __ATOMIC_RELAXED);
		ns += op->slow_ns;
	}
	spend(op->mode, ns);
	return op->ret;
}

uint64_t fk_handle(uint64_t base)
{
	static uint64_t next;
	/* 4 KiB apart, as real allocations are at least page aligned */
	return base + (__atomic_add_fetch(&next, 1, __ATOMIC_RELAXED) << 12);
}

static struct fk_op api_op = { "API", 0, 0, 0, 0, 0, FK_SPIN, 0, 0 };
static pthread_once_t api_once = PTHREAD_ONCE_INIT;

static void api_init(void)
{
	fk_init(&api_op, 1);
}

int fk_api(uint64_t a, uint64_t b, uint64_t c, uint64_t d)
{
	pthread_once(&api_once, api_init);
	__asm__ volatile("" : : "r"(a), "r"(b), "r"(c), "r"(d) : "memory");
	return fk_run(&api_op, 0);
}

/* The number of objects the dynamic loader has loaded so far. */
static int adds_cb(struct dl_phdr_info *i, size_t size, void *arg)
{
	*(unsigned long long *)arg =
		size >= offsetof(struct dl_phdr_info, dlpi_adds) + sizeof(i->dlpi_adds) ? i->dlpi_adds : 0;
	return 1;
}

/*
 * The fake NCCL's hooks, looked up by its soname among the libraries
 * already loaded (it may be loaded with RTLD_LOCAL, after this one): again
 * only when the loader has loaded something since the last look, so a
 * synchronize of a process without NCCL costs one walk of one entry.
 */
static const struct fk_nccl_hooks *nccl_hooks(void)
{
	static const struct fk_nccl_hooks *hooks;
	static unsigned long long seen;
	static pthread_mutex_t mu = PTHREAD_MUTEX_INITIALIZER;
	const struct fk_nccl_hooks *h = __atomic_load_n(&hooks, __ATOMIC_ACQUIRE);
	if (h)
		return h;
	unsigned long long adds = 0;
	dl_iterate_phdr(adds_cb, &adds);
	pthread_mutex_lock(&mu);
	if (!hooks && adds != seen) {
		seen = adds;
		void *lib = dlopen("libnccl.so.2", RTLD_NOLOAD | RTLD_LAZY);
		/* the reference is kept: the hooks stay mapped */
		h = lib ? dlsym(lib, "fakecuda_nccl_hooks") : NULL;
		if (h && h->version == FK_NCCL_HOOKS_VERSION)
			__atomic_store_n(&hooks, h, __ATOMIC_RELEASE);
		else if (lib)
			dlclose(lib);
	}
	h = hooks;
	pthread_mutex_unlock(&mu);
	return h;
}

void fk_nccl_wait(void *stream, int all)
{
	const struct fk_nccl_hooks *h = nccl_hooks();
	if (h)
		h->wait(stream, all);
}

/* ---- pinned host ranges and device memory (fake.h) ---- */
#define FK_MAXRANGES 65536
static struct { uint64_t a, n; } pins[FK_MAXRANGES], devs[FK_MAXRANGES];
static unsigned npins, ndevs;
static uint64_t dev_out;
static pthread_mutex_t mem_lock = PTHREAD_MUTEX_INITIALIZER;

void fk_pin(const void *p, uint64_t size)
{
	pthread_mutex_lock(&mem_lock);
	if (p && npins < FK_MAXRANGES)
		pins[npins++] = (__typeof__(pins[0])){ (uint64_t)(uintptr_t)p, size ? size : 1 };
	pthread_mutex_unlock(&mem_lock);
}

void fk_unpin(const void *p)
{
	pthread_mutex_lock(&mem_lock);
	for (unsigned i = 0; i < npins; i++)
		if (pins[i].a == (uint64_t)(uintptr_t)p) {
			pins[i] = pins[--npins];
			break;
		}
	pthread_mutex_unlock(&mem_lock);
}

static int pinned(const void *p)
{
	uint64_t a = (uint64_t)(uintptr_t)p;
	int in = 0;
	pthread_mutex_lock(&mem_lock);
	for (unsigned i = 0; i < npins && !in; i++)
		in = a >= pins[i].a && a - pins[i].a < pins[i].n;
	pthread_mutex_unlock(&mem_lock);
	return in;
}

uint64_t fk_copy_bytes(uint64_t bytes, const void *host, const void *host2, int async)
{
	static int mode = -1;
	if (mode < 0)
		mode = (int)env_u64("PINNED", "", "", 0);
	if (!mode || !async)
		return bytes;
	return pinned(host) || (host2 && pinned(host2)) ? 0 : bytes;
}

uint64_t fk_dev_alloc(uint64_t base, uint64_t size)
{
	static uint64_t cap = UINT64_MAX;
	static int read;
	pthread_mutex_lock(&mem_lock);
	if (!read) {
		uint64_t v = env_u64("DEVMEM", "", "BYTES", 0);
		cap = v ? v : UINT64_MAX;
		read = 1;
	}
	uint64_t h = 0;
	if (size <= cap && dev_out <= cap - size) {
		h = fk_handle(base);
		if (ndevs < FK_MAXRANGES) {
			devs[ndevs++] = (__typeof__(devs[0])){ h, size };
			dev_out += size;
		}
	}
	pthread_mutex_unlock(&mem_lock);
	return h;
}

void fk_dev_free(uint64_t h)
{
	pthread_mutex_lock(&mem_lock);
	for (unsigned i = 0; i < ndevs; i++)
		if (devs[i].a == h) {
			dev_out -= devs[i].n;
			devs[i] = devs[--ndevs];
			break;
		}
	pthread_mutex_unlock(&mem_lock);
}
