// SPDX-License-Identifier: MIT
/*
 * The fake NCCL's rendezvous (rendezvous.h).
 *
 * A communicator is a small file shared by its ranks, named from the
 * random part of the ncclUniqueId (FAKECUDA_NCCL_DIR/fakenccl-<hex>, the
 * folder /dev/shm by default), so that ranks in separate processes, under
 * separate recorders, meet there: one 64-byte slot per rank holds its pid
 * (joined), the number of collectives it has enqueued, and its color and
 * key for ncclCommSplit.  A collective is enqueued, not run: the host call
 * returns, and the n-th collective of a communicator is complete when every
 * rank has enqueued n of them.  The stream synchronizes of the fake
 * runtime and driver wait for that (fake.c looks this library's
 * fakecuda_nccl_hooks up), as a GPU's kernel of the collective waits for
 * its peers.  Waiting is a futex on a generation word of the file, bumped
 * at every change, with a timeout so that nothing is lost to a race.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <linux/futex.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/random.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>
#include "fake.h"
#include "rendezvous.h"

#define RV_MAGIC "FKNCCL01" /* the first 8 bytes of the ids of rv_new_id */
#define RV_MAX 64           /* ranks of one communicator */
#define RV_COMMS 64         /* communicators of one process */
#define RV_PENDING 256      /* (stream, communicator) pairs with work queued */

struct rv_slot {
	uint32_t pid;      /* joined by this process; 0: not yet */
	uint32_t split_n;  /* ncclCommSplit calls entered */
	uint64_t seq;      /* collectives enqueued */
	int32_t color[2], key[2]; /* of split number n at [n % 2] */
	uint8_t pad[32];
};
_Static_assert(sizeof(struct rv_slot) == 64, "one cache line a rank");

struct rv_file {
	uint32_t gen;    /* bumped at every change: the futex word */
	uint32_t nranks; /* set by the first rank to join */
	uint32_t left;   /* ranks that destroyed their communicator */
	uint8_t pad[52];
	struct rv_slot slot[RV_MAX];
};

struct rv_comm {
	uint64_t handle; /* 0: free entry */
	struct rv_file *f;
	char path[256];
	int rank, nranks;
	uint64_t seq;     /* collectives this rank enqueued */
	uint32_t split_n; /* splits this rank entered */
};

struct rv_pending {
	void *stream;
	struct rv_comm *c; /* NULL: free entry */
	uint64_t seq;      /* wait until this collective completes */
};

static struct rv_comm comms[RV_COMMS];
static struct rv_pending pending[RV_PENDING];
static pthread_mutex_t mu = PTHREAD_MUTEX_INITIALIZER;
static __thread int group_depth;
static __thread uint64_t group_joins[RV_COMMS];
static __thread int group_n;

static void hex(char *out, const unsigned char *p, size_t n)
{
	for (size_t i = 0; i < n; i++)
		sprintf(out + 2 * i, "%02x", p[i]);
}

void rv_new_id(ncclUniqueId *id)
{
	memset(id, 0, sizeof(*id));
	memcpy(id->internal, RV_MAGIC, 8);
	unsigned char *r = (unsigned char *)id->internal + 8;
	if (getrandom(r, 16, 0) != 16) {
		/* no entropy source: the clock and pid are unique enough here */
		struct timespec t;
		clock_gettime(CLOCK_REALTIME, &t);
		uint64_t a = (uint64_t)t.tv_nsec ^ ((uint64_t)t.tv_sec << 30), b = (uint64_t)getpid();
		memcpy(r, &a, 8);
		memcpy(r + 8, &b, 8);
	}
}

int rv_is_ours(const ncclUniqueId *id)
{
	return !memcmp(id->internal, RV_MAGIC, 8);
}

static long futex(uint32_t *w, int op, uint32_t val, const struct timespec *ts)
{
	return syscall(SYS_futex, w, op, val, ts, NULL, 0);
}

static void bump(struct rv_file *f)
{
	__atomic_add_fetch(&f->gen, 1, __ATOMIC_SEQ_CST);
	futex(&f->gen, FUTEX_WAKE, INT_MAX, NULL);
}

/* Wait until done(c, arg) holds, sleeping on the file's generation. */
static void wait_until(const struct rv_comm *c, int (*done)(const struct rv_comm *, uint64_t),
		       uint64_t arg)
{
	for (;;) {
		uint32_t g = __atomic_load_n(&c->f->gen, __ATOMIC_SEQ_CST);
		if (done(c, arg))
			return;
		struct timespec ts = { 0, 50000000 }; /* 50 ms: a missed wake costs no more */
		futex(&c->f->gen, FUTEX_WAIT, g, &ts);
	}
}

static int all_joined(const struct rv_comm *c, uint64_t unused)
{
	(void)unused;
	for (int r = 0; r < c->nranks; r++)
		if (!__atomic_load_n(&c->f->slot[r].pid, __ATOMIC_ACQUIRE))
			return 0;
	return 1;
}

static int all_enqueued(const struct rv_comm *c, uint64_t seq)
{
	for (int r = 0; r < c->nranks; r++)
		if (__atomic_load_n(&c->f->slot[r].seq, __ATOMIC_ACQUIRE) < seq)
			return 0;
	return 1;
}

static int all_split(const struct rv_comm *c, uint64_t n)
{
	for (int r = 0; r < c->nranks; r++)
		if (__atomic_load_n(&c->f->slot[r].split_n, __ATOMIC_ACQUIRE) < n)
			return 0;
	return 1;
}

static struct rv_comm *find(uint64_t handle)
{
	for (int i = 0; handle && i < RV_COMMS; i++)
		if (comms[i].handle == handle)
			return &comms[i];
	return NULL;
}

/* Open (or make) the communicator file `name`, join it as `rank` of
 * nranks under `handle`.  Does not wait for the others. */
static int join(const char *name, int nranks, int rank, uint64_t handle)
{
	if (nranks < 1 || nranks > RV_MAX || rank < 0 || rank >= nranks || !handle)
		return RV_INVALID_ARGUMENT;
	const char *dir = getenv("FAKECUDA_NCCL_DIR");
	char path[256];
	if (snprintf(path, sizeof(path), "%s/%s", dir && *dir ? dir : "/dev/shm", name) >=
	    (int)sizeof(path))
		return RV_INVALID_ARGUMENT;
	int fd = open(path, O_RDWR | O_CREAT | O_CLOEXEC, 0600);
	struct stat st;
	if (fd < 0 || fstat(fd, &st) ||
	    (st.st_size < (off_t)sizeof(struct rv_file) && ftruncate(fd, sizeof(struct rv_file)))) {
		if (fd >= 0)
			close(fd);
		return RV_SYSTEM_ERROR;
	}
	struct rv_file *f = mmap(NULL, sizeof(*f), PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	close(fd);
	if (f == MAP_FAILED)
		return RV_SYSTEM_ERROR;
	uint32_t want = 0, me = (uint32_t)getpid();
	/* every rank must agree on the size; a rank is joined once */
	if ((!__atomic_compare_exchange_n(&f->nranks, &want, (uint32_t)nranks, 0, __ATOMIC_SEQ_CST,
					  __ATOMIC_SEQ_CST) && want != (uint32_t)nranks)) {
		munmap(f, sizeof(*f));
		return RV_INVALID_USAGE;
	}
	pthread_mutex_lock(&mu);
	struct rv_comm *c = NULL;
	for (int i = 0; i < RV_COMMS && !c; i++)
		if (!comms[i].handle)
			c = &comms[i];
	want = 0;
	if (!c || !__atomic_compare_exchange_n(&f->slot[rank].pid, &want, me, 0, __ATOMIC_SEQ_CST,
					       __ATOMIC_SEQ_CST)) {
		pthread_mutex_unlock(&mu);
		munmap(f, sizeof(*f));
		return c ? RV_INVALID_USAGE : RV_SYSTEM_ERROR;
	}
	*c = (struct rv_comm){ .handle = handle, .f = f, .rank = rank, .nranks = nranks };
	snprintf(c->path, sizeof(c->path), "%s", path);
	pthread_mutex_unlock(&mu);
	bump(f);
	return RV_OK;
}

static void wait_joined(uint64_t handle)
{
	pthread_mutex_lock(&mu);
	struct rv_comm *c = find(handle);
	pthread_mutex_unlock(&mu);
	if (c)
		wait_until(c, all_joined, 0);
}

int rv_init_rank(const ncclUniqueId *id, int nranks, int rank, uint64_t handle)
{
	char name[64] = "fakenccl-";
	hex(name + 9, (const unsigned char *)id->internal + 8, 16);
	int r = join(name, nranks, rank, handle);
	if (r)
		return r;
	if (group_depth && group_n < RV_COMMS)
		group_joins[group_n++] = handle; /* one thread joins several ranks */
	else
		wait_joined(handle);
	return RV_OK;
}

void rv_group_start(void)
{
	group_depth++;
}

void rv_group_end(void)
{
	if (group_depth > 0 && --group_depth == 0) {
		for (int i = 0; i < group_n; i++)
			wait_joined(group_joins[i]);
		group_n = 0;
	}
}

void rv_enqueue(uint64_t handle, void *stream)
{
	pthread_mutex_lock(&mu);
	struct rv_comm *c = find(handle);
	if (!c) {
		pthread_mutex_unlock(&mu);
		return;
	}
	uint64_t seq = ++c->seq;
	struct rv_pending *p = NULL, *free_ = NULL;
	for (int i = 0; i < RV_PENDING && !p; i++) {
		if (pending[i].c == c && pending[i].stream == stream)
			p = &pending[i];
		else if (!pending[i].c && !free_)
			free_ = &pending[i];
	}
	if (!p)
		p = free_;
	if (p) /* full: that work is never waited for (256 streams and comms) */
		*p = (struct rv_pending){ stream, c, seq };
	pthread_mutex_unlock(&mu);
	__atomic_store_n(&c->f->slot[c->rank].seq, seq, __ATOMIC_RELEASE);
	bump(c->f);
}

/* The runtime's synchronizes (fake.c): wait for the collectives enqueued
 * on the stream (all: on any stream) to complete. */
static void rv_wait(void *stream, int all)
{
	struct rv_pending w[RV_PENDING];
	int n = 0;
	pthread_mutex_lock(&mu);
	for (int i = 0; i < RV_PENDING; i++)
		if (pending[i].c && (all || pending[i].stream == stream))
			w[n++] = pending[i];
	pthread_mutex_unlock(&mu);
	for (int i = 0; i < n; i++)
		wait_until(w[i].c, all_enqueued, w[i].seq);
	pthread_mutex_lock(&mu);
	for (int i = 0; i < RV_PENDING; i++)
		for (int k = 0; k < n && pending[i].c; k++)
			if (pending[i].c == w[k].c && pending[i].stream == w[k].stream &&
			    pending[i].seq <= w[k].seq)
				pending[i].c = NULL;
	pthread_mutex_unlock(&mu);
}

FK_API const struct fk_nccl_hooks fakecuda_nccl_hooks = { FK_NCCL_HOOKS_VERSION, rv_wait };

int rv_split(uint64_t parent, int color, int key, uint64_t handle, int *joined)
{
	*joined = 0;
	pthread_mutex_lock(&mu);
	struct rv_comm *c = find(parent);
	pthread_mutex_unlock(&mu);
	if (!c)
		return RV_OK;
	/* publish this rank's color and key for split n, then wait for every
	 * rank's: none can reach split n + 2 before this one has read them */
	uint32_t n = c->split_n++;
	struct rv_slot *me = &c->f->slot[c->rank];
	me->color[n % 2] = color;
	me->key[n % 2] = key;
	__atomic_store_n(&me->split_n, n + 1, __ATOMIC_RELEASE);
	bump(c->f);
	wait_until(c, all_split, n + 1);
	if (color < 0) /* NCCL_SPLIT_NOCOLOR: no new communicator */
		return RV_OK;
	int nr = 0, rank = 0;
	for (int r = 0; r < c->nranks; r++) {
		const struct rv_slot *s = &c->f->slot[r];
		if (s->color[n % 2] != color)
			continue;
		nr++;
		if (s->key[n % 2] < key || (s->key[n % 2] == key && r < c->rank))
			rank++;
	}
	char name[320]; /* the parent's name (< 256) and "-s%uc%d" */
	const char *base = strrchr(c->path, '/');
	snprintf(name, sizeof(name), "%s-s%uc%d", base ? base + 1 : c->path, n, color);
	int r = join(name, nr, rank, handle);
	if (r)
		return r;
	wait_joined(handle);
	*joined = 1;
	return RV_OK;
}

void rv_destroy(uint64_t handle)
{
	pthread_mutex_lock(&mu);
	struct rv_comm *c = find(handle);
	if (!c) {
		pthread_mutex_unlock(&mu);
		return;
	}
	for (int i = 0; i < RV_PENDING; i++)
		if (pending[i].c == c)
			pending[i].c = NULL;
	struct rv_comm gone = *c;
	c->handle = 0;
	pthread_mutex_unlock(&mu);
	if (__atomic_add_fetch(&gone.f->left, 1, __ATOMIC_SEQ_CST) == (uint32_t)gone.nranks)
		unlink(gone.path);
	bump(gone.f);
	munmap(gone.f, sizeof(*gone.f));
}
