/* SPDX-License-Identifier: MIT */
/*
 * The latency engine each fake library links in: one struct fk_op per
 * exported API function, configured once from the environment (README.md
 * lists the knobs), and fk_run() to spend the configured time.
 */
#ifndef FAKECUDA_FAKE_H
#define FAKECUDA_FAKE_H

#include <stdint.h>

#define FK_API __attribute__((visibility("default")))
/* Two exported names, one address: how libcuda exports cuMemAlloc/_v2. */
#define FK_ALIAS(name, target) \
	extern __typeof__(target) name __attribute__((alias(#target), visibility("default")))

enum fk_mode { FK_SPIN, FK_SLEEP, FK_CPU };

struct fk_op {
	const char *name;         /* the op's base name, used in env var names */
	int data;                 /* 1: time grows with bytes (FAKECUDA_BW_MBPS) */
	/* filled by fk_init */
	uint64_t lat_ns, bw_mbps, spike_every, spike_ns;
	uint64_t first_ns;        /* the first call in the process takes this more */
	double jitter;            /* log-normal sigma of each call's time (0 = exact) */
	enum fk_mode mode;
	int ret;
	uint64_t calls;           /* atomic */
	uint64_t slow_ns;         /* FAKECUDA_SLOW_<op>_NS: more once FAKECUDA_SLOW_FILE exists */
};

/* Read FAKECUDA_* for every op in the table.  Call from a constructor. */
void fk_init(struct fk_op *ops, unsigned n);
/* Spend the op's configured time for a call moving `bytes`; returns its
 * configured return code (0 unless FAKECUDA_RET_<op> is set). */
int fk_run(struct fk_op *op, uint64_t bytes);
/* The body of the generated API functions (genapi.sh): spends
 * FAKECUDA_LAT_API_NS, returns FAKECUDA_RET_API (0). */
int fk_api(uint64_t a, uint64_t b, uint64_t c, uint64_t d);
/* A fresh, never-repeating fake handle in a range chosen by `base`. */
uint64_t fk_handle(uint64_t base);

/*
 * Pinned host memory: the ranges the library's allocation and
 * registration calls pinned.  With FAKECUDA_PINNED=1 an async copy whose
 * host side lies in one spends no bandwidth time (the DMA engine copies
 * while the call returns); from pageable memory it spends all of it, as
 * the real runtime stages the data through a pinned buffer before
 * returning.  fk_copy_bytes gives the bytes a copy is timed on.
 */
void fk_pin(const void *p, uint64_t size);
void fk_unpin(const void *p);
uint64_t fk_copy_bytes(uint64_t bytes, const void *host, const void *host2, int async);

/*
 * Device memory: FAKECUDA_DEVMEM_BYTES (0 = unlimited) is the device's
 * size; an allocation that would exceed it with what is outstanding fails
 * with out of memory (2 in both APIs).  fk_dev_alloc returns a handle of
 * `base`'s range, or 0 when it fails; fk_dev_free returns its bytes.
 */
uint64_t fk_dev_alloc(uint64_t base, uint64_t size);
void fk_dev_free(uint64_t h);

/*
 * What the fake NCCL offers the runtime and driver: wait for the device
 * work of the collectives enqueued on a stream (all: on any stream).  A
 * data symbol, fakecuda_nccl_hooks, of libnccl.so.2 (no function of its own
 * in the libraries' export tables, which ingero-record --api would time).
 */
#define FK_NCCL_HOOKS_VERSION 1
struct fk_nccl_hooks {
	uint32_t version;
	void (*wait)(void *stream, int all);
};
/* A synchronize's wait for the collectives on `stream` (all: every
 * stream), when the fake NCCL is loaded; returns at once otherwise. */
void fk_nccl_wait(void *stream, int all);

#endif
