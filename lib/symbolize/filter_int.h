/* SPDX-License-Identifier: MIT */
/*
 * Internal to the symbolize filter: what filter.c (the passes over the
 * log) and resolve.c (the resolvers, their queues and thread) share.  The
 * passes' own tables (struct fproc, iframe, ipset, drop) are filter.c's,
 * a resolver's job (struct job) is resolve.c's.
 */
#ifndef ILOG_FILTER_INT_H
#define ILOG_FILTER_INT_H

#include <pthread.h>
#include <stdint.h>
#include "ingero/symbolize.h"
#include "ingero/vec.h"

#define MAX_BID 64
#define MAX_FRAMES 64

struct fproc;
struct iframe;
struct ipset;
struct drop;
struct job;

struct fmap {
	uint64_t start, end, offset, seq;
	uint64_t maxend;              /* max end of this and all before, once sorted */
	uint32_t prot, nbid;
	const char *path;             /* pool */
	uint8_t bid[MAX_BID];
};

/* An ip first seen in a stack, with no symbol record in the input (yet). */
struct use {
	uint64_t ip, seq;             /* seq: the stack's place, for ilog_sym_find_map */
	uint32_t node, pid;
	uint32_t frame;               /* filt.frames[] */
	uint32_t at;                  /* the stack's offset in the frame's content */
	uint8_t ret;                  /* a return address (not a stack's first ip) */
	uint8_t barrier;              /* after a header or node record in its frame */
	uint8_t kept;                 /* the input has symbols for it after all */
	uint8_t nans;                 /* plan(): its frames, ans[ans..ans+nans) of */
	uint8_t src;                  /* filt.ans (0) or filt.rout[src - 1].a */
	uint32_t ans;
};

/* A new ip waiting in the reader's hands; fm stays put until the next
 * mapping record (add_mapping() hands them over first). */
struct pjob {
	const struct fmap *fm;
	uint64_t ip;
	uint32_t use, pid;
	uint8_t ret;
};

/* A report the resolver thread made, for plan() to pass on. */
struct held {
	uint32_t use, seq;            /* seq: the order they came in */
	enum ilog_sym_level level;
	char *msg;
};

/* A module the resolvers share out (resolve.c). */
struct wmod {
	const char *path;             /* pool */
	uint8_t bid[MAX_BID];
	uint32_t nbid;
	int owner;                    /* 0 none yet, 1 the main thread, 2 the second */
	struct job *q;                /* its jobs; q[next..n) not taken yet */
	uint32_t n, cap, next;
};

/* What a resolver found (resolve_jobs()), for plan() to take instead of
 * asking again: use's frames are a[first..first+k), of module wm[w]. */
struct rdone {
	uint32_t use, first, w, k;
};

struct rout {
	struct ilog_symbol *a;        /* build_id left to plan() (the job's copy is gone) */
	uint32_t n, cap;
	struct rdone *d;
	uint32_t nd, capd;
};

/* The filter's state: pass 1's findings (filter.c), the resolvers' queues
 * and answers (resolve.c). */
struct filt {
	struct ilog_strpool pool;
	struct fproc *procs;
	uint32_t nprocs, capprocs;
	struct ilog_hmap procidx;      /* (node << 32 | pid, 0) -> procs[] */
	struct ilog_hmap ipidx;        /* (node << 32 | pid, 0) -> ipsets[] */
	struct ipset *ipsets;         /* per process: ip -> uses[] or HAVE */
	uint32_t nipsets, capipsets;
	struct use *uses;             /* in stream order */
	uint32_t nuses, capuses;
	struct iframe *frames;
	uint32_t nframes, capframes;
	struct drop *drops;
	uint32_t ndrops, capdrops;
	struct ilog_symbol *ans;      /* plan()'s answers, for pass 2 to write */
	uint32_t nans, capans;
	uint64_t nkept;               /* distinct ips with symbols in the input */
	/* The resolvers (resolve_jobs(): the second thread's while pass 1
	 * reads, the main thread's after it): the new ips whose mapping is
	 * known (one recorded before its stack), module by module; their
	 * answers (rout) are what plan() and pass 2 use. */
	struct ilog_symbolizer *sym[2]; /* the main thread's, the second's */
	const struct ilog_symbolize_opts *o;
	pthread_t thr;
	int nthreads;                 /* 1, or 2: start the second thread */
	int thr_state;                /* 0 not started, 1 running, -1 not any more */
	int started, joined;
	int warming;                  /* reports are held */
	pthread_mutex_t mu;
	pthread_cond_t cv;
	struct wmod *wm;              /* under mu while the thread runs */
	uint32_t nwm, capwm;
	struct ilog_hmap wmidx;        /* (module hash, n) -> wm[] */
	struct rout rout[2];          /* each resolver's own */
	struct rdone *byuse;          /* after the join: uses[] -> its answer (k 0: none) */
	struct pjob pend[64];         /* the reader's, handed over together */
	uint32_t npend;
	int jobs_end, waiting;        /* under mu */
	struct held *held;
	uint32_t nheld, capheld, nreplayed;
};

/* filter.c: the mapping for ip in (node, pid) as seen from stream position
 * seq: the latest covering mapping before it, else the first one after. */
const struct fmap *ilog_sym_find_map(const struct filt *f, uint32_t node, uint32_t pid,
				     uint64_t ip, uint64_t seq);

/* resolve.c: opts.threads, with 0: 2 where this process may run on two
 * CPUs or more (lib/include/ingero/symbolize.h). */
int ilog_sym_want_threads(const struct ilog_symbolize_opts *o);
/* resolve.c: the symbolizers' reports (opts.report of both): held while
 * two resolvers run, passed on in stream order by ilog_sym_replay. */
void ilog_sym_on_report(void *arg, enum ilog_sym_level level, const char *msg);
/* resolve.c: pass on the held reports made for uses up to `use` (all:
 * UINT32_MAX). */
void ilog_sym_replay(struct filt *f, uint32_t use);
/* resolve.c: hand the pending jobs to the resolvers, starting the thread
 * the first time (before the mappings the jobs point at may move). */
void ilog_sym_warm_hand(struct filt *f);
/* resolve.c: a new ip (uses[idx]) for the resolvers, when its mapping is
 * already known. */
void ilog_sym_warm_push(struct filt *f, const struct use *u, uint32_t idx);
/* resolve.c: after pass 1, resolve what is left and wait for the thread;
 * help 0: an error, nothing more to resolve. */
void ilog_sym_warm_join(struct filt *f, int help);
/* resolve.c: the symbolizer that resolves fm's module: its owner's, else
 * the main one. */
struct ilog_symbolizer *ilog_sym_symbolizer_for(struct filt *f, const struct fmap *fm);

#endif
