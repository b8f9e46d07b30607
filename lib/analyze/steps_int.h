/* SPDX-License-Identifier: MIT */
/*
 * Internal: the training steps of each process (lib/analyze/steps.c), fed
 * by the statistics (stats.c) with every CUDA call in log order and read
 * through ingero/stats.h (ilog_stats_step_*).  Not installed.
 *
 * The step is found from the calls alone.  A marker op is chosen among the
 * process's calls: a collective (the NCCL op with the most calls), else a
 * graph launch, else the dominant synchronize (the synchronizing op with
 * the most time).  The calls between two marker calls are a segment, told
 * by the set of ops in it (a bit per op) and how many calls it holds (or
 * by its ops alone when counts do not repeat: a data-dependent count); a step is the k marker calls whose segments
 * repeat (the smallest k from 1 to STEP_MAXK whose segment i matches
 * segment i + k nearly as often as the best k's do), ending at the marker
 * call of the phase whose commonest segment is most unlike the other
 * phases' (the optimizer's after alike micro-batches), then whose calls take
 * the most time (the synchronize that waits for the whole step).  When the segments
 * ending there have a signature of their own (no other phase's commonest),
 * a step ends wherever that segment comes (or after 2k marker calls with
 * none); else at every k-th marker call.  A step runs from the return of
 * one such call to the return of the next; the calls before the first are
 * no step's.
 *
 * Memory: while the step is being found, the process's first calls (at
 * most STEP_DETECT_MAX); then per step its figures, per (op, call path)
 * its figures summed over the steps, and what each step called -- one
 * entry per (op, call path) -- for the first STEP_KEEP steps and the
 * STEP_SLOW slowest of the others; never anything per call.
 */
#ifndef ILOG_STEPS_INT_H
#define ILOG_STEPS_INT_H

#include <stdint.h>
#include "ingero/hmap.h"
#include "ingero/stats.h"

#define STEP_MAXK 32           /* marker calls per step looked for */
#define STEP_DETECT_MIN 64     /* marker calls that decide the step... */
#define STEP_DETECT_CALLS 1024 /* ... once this many calls were seen */
#define STEP_DETECT_MAX 65536  /* calls kept at most before deciding */
#define STEP_MIN 3             /* fewer steps: no step is told */
#define STEP_KEEP 1024         /* steps whose composition is kept: the first... */
#define STEP_SLOW 16           /* ... and the slowest of the rest */

/* A (op, call path) of a process: what a step's entries count. */
struct stsite {
	uint16_t op;
	uint8_t layer;
	uint64_t stack, pystack;
	uint64_t timed_n, timed_ns; /* its calls with a duration, so far (not UNTIMED) */
};


/*
 * The steps' figures, STEP_BLOCK to a block: a step ends at a marker
 * call's return (monotonic ns) and the next starts there; its duration,
 * CUDA calls and their time, and the start of every STEP_GROUP-th step
 * (the others': the sum of the durations since).  A job's process may
 * take a million steps: blocks, not one array grown by doubling, so that
 * no step is moved once written, and 13 bytes a step.  A duration or time
 * of 2^32 - 1 ns (4.3 s) or more is STEP_WIDE there, its value in
 * stp.wide.  What a step called is stp.comp[i] for the first STEP_KEEP,
 * stp.slowc for the slowest.
 */
#define STEP_BLOCK 1024
#define STEP_GROUP 8
#define STEP_WIDE UINT32_MAX
struct stblock {
	uint64_t start[STEP_BLOCK / STEP_GROUP];
	uint32_t dur[STEP_BLOCK], ns[STEP_BLOCK], calls[STEP_BLOCK];
};
struct stwide { uint64_t dur, ns; uint32_t step; };

/* A site's figures: in the open step (when gen is the open step's) and
 * over every step; one line of memory per call. */
struct stcur {
	uint64_t ns, tot_ns, tot_calls;
	uint32_t gen, calls, tot_steps;
	uint16_t op;
};

/* A kept step's entries: stp.ents[ent .. ent + n); the first STEP_KEEP
 * steps' in their order, then the slowest of the others'. */
struct stcomp { uint32_t ent, n; };

#define STEP_CACHE 1024        /* a process's recent (op, call path) lookups */

/* One of the slowest steps past the first STEP_KEEP, with what it called. */
struct stslow {
	uint64_t dur;
	uint32_t step, n;
	struct ilog_step_op *e;
};

/* A call held while the step is being found. */
struct stcall {
	uint64_t ts, dur;
	uint32_t site;
};

/* The steps of one process. */
struct stp {
	uint32_t node, pid;
	struct ilog_hmap sitemap;  /* (op, stack, pystack) hashed -> site index + 1 */
	struct stsite *sites;
	uint32_t nsites, capsites;
	struct { uint64_t key; uint32_t site; } cache[STEP_CACHE]; /* key: site_key */
	int state;                 /* 0: finding the step, 1: found, 2: none */
	struct stcall *buf;        /* calls held while finding */
	uint32_t nbuf, capbuf;
	uint32_t nmark;            /* marker calls among them */
	uint16_t marker;           /* the marker op */
	uint8_t rule;              /* enum ilog_step_rule */
	uint32_t k, since;         /* marker calls per step, since the latest boundary */
	uint64_t bsig;             /* the segment signature that ends a step */
	int bsig_unique;           /* ... and no other phase's: it realigns */
	uint64_t seg, segn;        /* the ops of the segment being read (seg_bit), its calls */
	int counted;               /* its calls count in its signature (seg_sig) */
	int open;                  /* a step is open (a boundary was seen) */
	uint64_t open_start;
	struct stcur *cur;         /* per site: the open step's figures and the totals */
	uint32_t *touched;         /* the sites the open step called */
	uint32_t ntouched, capcur;
	uint32_t gen;              /* the open step's number + 1 (stcur.gen) */
	uint64_t open_calls, open_ns;
	struct stblock **blk;      /* the steps: step i is blk[i / STEP_BLOCK] */
	uint32_t nsteps, nblk, capblk;
	struct stwide *wide;       /* the steps too long for 32 bits, by step */
	uint32_t nwide, capwide;
	struct ilog_step_op *ents; /* the kept steps' (op, call path) entries */
	uint32_t nents, capents;
	struct stcomp *comp;       /* the kept steps' */
	uint32_t ncomp, capcomp;
	struct stslow slow[STEP_SLOW];
	uint32_t nslow;
	struct { uint32_t step, comp; } slowc[STEP_SLOW]; /* the slowest steps' comp + 1 */
	uint32_t nslowc;
	uint64_t slowmin;          /* the fastest of them, once all are taken */
	/* made by ilog_steps_finish for the queries */
	uint32_t nused;               /* sites that some step called */
	uint32_t top[STEP_SLOW], ntop; /* the slowest steps, slowest first */
	uint64_t p50, p90, min, max, mean; /* step durations */
};

struct steps {
	struct stp **p;
	uint32_t n, cap;
	struct ilog_hmap map;      /* (node, pid) -> index + 1 */
	struct stp *last;
};

struct steps *ilog_steps_new(void);
/* One CUDA call of process (node, pid), in log order.  0 or -1 (memory). */
int ilog_steps_add(struct steps *s, uint32_t node, const struct ingero_cuda_event *e);
/* After the last call: processes still finding their step decide. 0 or -1. */
int ilog_steps_finish(struct steps *s);
void ilog_steps_free(struct steps *s);
/* The process's steps, NULL when it has none. */
const struct stp *ilog_steps_proc(const struct steps *s, uint32_t node, uint32_t pid);

#endif
