/* SPDX-License-Identifier: MIT */
/*
 * Internal: the accumulators behind lib/analyze/stats.c, shared by the causal
 * engine (lib/analyze/causal.c), the renderers (lib/analyze/explain.c) and the regression
 * gate (lib/analyze/gate.c).  Not installed; programs use stats.h and causal.h.
 *
 * Memory is bounded by series x windows (and the small per-series
 * reservoirs), never by the number of events: every CUDA call lands in a
 * log-linear histogram of its (node, pid, op) series and time window.
 */
#ifndef ILOG_STATS_INT_H
#define ILOG_STATS_INT_H

#include "ingero/hmap.h"
#include "ingero/ilog.h"
#include "ingero/nodemap.h"
#include "ingero/stats.h"
#include "ingero/vec.h"

/*
 * Log-linear histogram of nanosecond values: values below 2^HB_SUB_BITS
 * are exact; above, each power of two is cut into 2^HB_SUB_BITS equal
 * buckets.  A bucket's representative is its midpoint, so any quantile is
 * within 1/2^(HB_SUB_BITS+1) = 0.39% of the true sample value.  Values at
 * or above 2^(HB_MAX_EXP+1) ns (about 18 minutes) share the top bucket;
 * the exact min and max are kept beside the histogram and clamp estimates.
 */
/* x as a u64, clamped (a cast of a double out of range is undefined);
 * NaN and negatives give 0. */
static inline uint64_t ilog_sat_u64(double x)
{
	return !(x > 0) ? 0 : x >= 18446744073709551616.0 ? UINT64_MAX : (uint64_t)x;
}

static inline uint64_t ilog_sat_add(uint64_t a, uint64_t b)
{
	return a + b < a ? UINT64_MAX : a + b;
}

#define HB_SUB_BITS 7
#define HB_SUB (1u << HB_SUB_BITS)
#define HB_MAX_EXP 39
#define HB_N ((HB_MAX_EXP - HB_SUB_BITS + 2) << HB_SUB_BITS)

static inline uint32_t hb_index(uint64_t v)
{
	if (v < HB_SUB)
		return (uint32_t)v;
	if (v >> (HB_MAX_EXP + 1))
		return HB_N - 1;
	int e = 63 - __builtin_clzll(v);
	return ((uint32_t)(e - HB_SUB_BITS + 1) << HB_SUB_BITS) |
	       (uint32_t)((v >> (e - HB_SUB_BITS)) & (HB_SUB - 1));
}
uint64_t ilog_hb_lower(uint32_t idx);
uint64_t ilog_hb_rep(uint32_t idx); /* midpoint */

/* Sparse histogram: sorted (index << 51 | count) words. */
#define SB_SHIFT 51
#define SB_CNT(w) ((w) & ((1ull << SB_SHIFT) - 1))
#define SB_IDX(w) ((uint32_t)((w) >> SB_SHIFT))

/* Calls kept verbatim: the first few of every series and its slowest. */
struct scall {
	uint64_t ts, dur, bytes;
	uint32_t tid;
	int32_t ret;
};
#define NFIRST 16
#define NTOP 512

/* A series' window: its calls, and its sparse histogram, nb bins from
 * the series' bins[off] (bins: that address once the statistics are
 * finished). */
struct stick {
	uint64_t n, total, min, max;
	uint64_t untimed;         /* launches recorded at entry: not in n */
	const uint64_t *bins;
	uint32_t nb, off;
};

/* One (node, pid, op) series of CUDA calls. */
struct sseries {
	uint32_t node, pid;
	uint16_t op;
	uint8_t layer;
	uint32_t next;            /* the next series of its process: index + 1, 0 none */
	struct sproc *proc;       /* its process */
	uint64_t n, total, min, max, bytes;
	uint64_t bytes_kind[5];   /* memcpy bytes by cudaMemcpyKind 0..4 */
	uint64_t nerr, noret;
	uint64_t untimed;          /* launches recorded at entry: not in n or the
				    * times; the rows count them (stats_query.c) */
	int32_t first_err;
	uint64_t first_err_ts, first_err_bytes;
	uint64_t nerr_oom;        /* ret == out of memory (2 in both APIs) */
	/* async copies by host side (ILOG_HOST_* - 1): calls, time, bytes; the
	 * pageable ones that blocked the host (ILOG_PAGEABLE_BLOCK_NS or
	 * longer, not a small copy that waited); small synchronizing calls
	 * that waited for the device (ILOG_MEM_WAITED) */
	uint64_t host_n[3], host_ns[3], host_bytes[3];
	uint64_t pg_n, pg_ns, pg_bytes;
	uint64_t wait_n, wait_ns, wait_bytes;
	uint64_t first_ts, last_end;
	struct stick *t;
	uint32_t nt;              /* ticks allocated */
	uint64_t *bins;           /* the windows' sparse histograms (struct stick) */
	uint32_t nbins, capbins;
	struct scall first[NFIRST];
	uint32_t nfirst;
	struct scall *top;        /* min-heap on dur, NTOP slowest calls that returned */
	uint32_t ntop, captop;
};

/*
 * A CUDA call waiting to be added to its series and process.  Calls are
 * added in batches, each series' calls together and in the order they
 * came (stats.c, add_pending): a job of a thousand ranks interleaves
 * thousands of series record by record, and touching each one's histogram,
 * slowest calls and process per record costs cache and TLB misses each
 * time.  Nothing reads a series before ilog_stats_finish, nor a process's
 * call figures before then (but a capture's start: held calls are added
 * first), a series' state depends only on its own calls in order, and a
 * process's on none, so the batches change nothing.
 */
struct spend {
	uint64_t ts, dur, bytes;
	uint32_t ser, k;          /* its series (index in ilog_stats.ser), its window */
	uint32_t tid;
	int32_t ret;
	uint8_t kind, flags;
	uint8_t eager;            /* a kernel launch outside any capture */
	uint8_t mflag;            /* ILOG_HOST_* | ILOG_MEM_WAITED (memory.c) */
};

struct htick { uint64_t n, dur, value, max; };

/*
 * Internal host series type: a switch record whose value (the task state)
 * is not 0 - the thread blocked inside a traced call rather than being
 * preempted while runnable (SPEC host events).
 */
#define HS_BLOCKED 0x8001
/* Internal host series types of the network (format 1.3): a TCP flow's
 * retransmissions (pid: the socket's owner, opid: the flow's index in
 * ilog_stats.flows + 1; value: segments) and a process's TCP socket bytes
 * (value: sent + received). */
#define HS_RETRANS 0x8002
#define HS_SOCKIO 0x8003

/* A TCP flow that retransmitted (a retrans record's identity). */
struct sflow {
	uint32_t node, pid;
	uint8_t family, state;
	uint8_t saddr[16], daddr[16];
	uint16_t sport, dport;
	uint64_t cgroup_id;
	char comm[INGERO_COMM_LEN + 1];
};
#define MAXFLOWS 4096 /* beyond: the rest's series (index 0, family 0) */

/*
 * Format 1.3 disk records, kept as written (the recorder bounds them: per
 * window the targets' and --host-top others'): blkio records, and the
 * iowait and (1.6) wait host records of target processes, with their window.
 */
struct sblk {
	uint32_t node, pid, major, minor;
	uint64_t ts, dur, ios, bytes, lat_max;
	uint64_t hist[INGERO_BLK_HBUCKETS];
	char disk[32];
};
struct siow {
	uint32_t node, pid;
	int32_t cls;              /* -1: iowait; else a wait record's class (1.6) */
	uint64_t ts, dur, ns, n;
};

/* Host events aggregated per (node, type, pid, tid, other pid) and tick. */
struct hseries {
	uint32_t node;
	uint16_t type;
	uint32_t pid, tid, opid;
	/* the next host series of the same (node, pid) and of the same (node,
	 * type), in the order of ilog_stats.hs: index + 1, 0 none (the lists'
	 * heads: ilog_stats_hs_pid, ilog_stats_hs_type) */
	uint32_t next_pid, next_type;
	uint64_t n, dur, value, max;
	struct htick *t;
	uint32_t nt;
};

/* Pressure stall information of a snapshot (format 1.2), 0..100. */
enum { PSI_CPU_SOME, PSI_MEM_SOME, PSI_MEM_FULL, PSI_IO_SOME, PSI_IO_FULL, PSI_N };

struct snaptick {
	uint32_t n;
	double cpu_sum, cpu_max, load_max;
	uint64_t avail_min, total, swap_used_max, swap_total;
	double psi_max[PSI_N];    /* the highest of the window's snapshots */
	double steal_sum;         /* their steal_pct, summed (format 1.8) */
};

#define MAXTIDS 64

/*
 * A process's memory from its CUDA calls (memory.c, format 1.5): the host
 * ranges it pinned, sorted by base; its device allocations not yet freed
 * (devmap: address -> index in live + 1); the outstanding device bytes
 * over time; the first allocation that failed with out of memory.
 */
struct srange { uint64_t base, size; };
struct salloc {
	uint64_t ts, bytes, ptr, stack_id, pystack_id;
	uint16_t op;
};
struct sout { uint64_t min, max, last; };
#define SMEM_NT 512
struct smem {
	struct srange *pin;
	uint32_t npin, cappin;
	struct salloc *live;
	uint32_t nlive, caplive;
	struct ilog_hmap devmap;
	uint64_t out, peak, peak_ts;      /* outstanding device bytes, the most */
	uint64_t nalloc, nfree, alloc_bytes;
	uint64_t nfree_unknown;           /* frees of addresses no recorded allocation returned */
	struct sout t[SMEM_NT];           /* bucket k: [t0 + k*t_width, ... + t_width) */
	uint32_t nt;
	uint64_t t0, t_width;
	uint64_t oom_ts, oom_bytes, oom_out; /* the first out of memory; 0 none */
	uint32_t oom_live;
	uint16_t oom_op;
};
/* The host side of an async copy (spend.mflag, low bits), and a small
 * synchronizing call that waited for the device (a flag bit). */
#define ILOG_HOST_PINNED 1
#define ILOG_HOST_PAGEABLE 2
#define ILOG_HOST_UNKNOWN 3
#define ILOG_MEM_WAITED 4
/* A call's memory facts: pinned ranges and device allocations to p->mem,
 * the copy's host side and whether it waited into *mflag.  0, or -1 out
 * of memory. */
int ilog_smem_call(struct sproc *p, const struct ingero_cuda_event *e, uint8_t *mflag);
void ilog_smem_free(struct smem *m);
/* Whether op allocates device memory (the ops memory.c keeps a ledger of). */
int ilog_smem_dev_alloc(uint16_t op);
/* Whether op is an async copy (the copies whose host side is classified). */
int ilog_smem_async_copy(uint16_t op);

struct sproc {
	uint32_t node, pid, ppid;
	char comm[32];
	uint32_t tids[MAXTIDS];   /* threads that made CUDA calls */
	uint32_t ntids, tids_over;
	uint64_t ncalls, first_ts, last_end, noret;
	uint64_t eager_launches;  /* kernel launches outside any capture */
	uint64_t first_capture_ts, first_graph_launch_ts;
	int has_exit, oom_killed;
	uint64_t exit_ts, oom_ts;
	int64_t exit_code;
	/* its container (format 1.2 process record): "pod UID, container ID",
	 * "container ID" or the cgroup path; "" when none is known */
	char ctr[128];
	uint64_t cgroup_id;
	char pod[37], cid[65];    /* pod UID, container id; "" = none */
	char cgroup[256];         /* the cgroup path, "" = not known */
	uint32_t ser, ser_last;   /* its series, in the order of ilog_stats.ser:
				   * the first's and the last's index + 1, 0 none */
	uint32_t nser;
	uint32_t opser[ILOG_OP__COUNT]; /* its series of each table op: index + 1, 0 none */
	struct smem *mem;         /* its pinned and device memory; NULL: no such call */
};

/* Discrete host events worth a line each (OOM kills, exits). */
struct sevent {
	uint32_t node, pid, tid, opid, otid;
	uint16_t type;
	uint64_t ts, dur, value;
	char comm[INGERO_COMM_LEN + 1], ocomm[INGERO_COMM_LEN + 1];
};

/* A stream-capture region: cudaStreamBeginCapture .. EndCapture. */
struct scapture {
	uint32_t node, pid, tid;
	uint64_t stream;
	uint64_t begin_ts, end_ts, end_dur;
	int32_t ret;
	uint32_t launches;
	int open;
	uint32_t prev_open;       /* the open capture of the same (node, pid, stream)
				   * before this one began: index + 1, 0 none */
	uint64_t eager_before;    /* the process's eager launches before it */
};

/* Graph instantiations (cheap to keep: a few per capture). */
struct sinst {
	uint32_t node, pid;
	uint64_t ts, dur;
	int32_t ret;
};

struct snode {
	uint32_t idx;
	int seen;
	char name[64];
	uint64_t t0, width;       /* tick k covers [t0 + k*width, t0 + (k+1)*width) */
	uint32_t nticks;          /* highest used tick + 1 */
	uint64_t klo, khi;        /* the latest event's window: [klo, khi), tick kcur */
	uint32_t kcur;            /* (none: klo == khi; stats.c, tick_of) */
	uint64_t first_ts, last_ts, early;
	uint64_t anchor_mono, anchor_real;
	struct snaptick *snap;
	uint32_t nsnap;
	uint64_t *calls;          /* CUDA calls per window of all its processes, for the
				   * causal engine (causal_sig.c: counted once) */
	uint32_t ncalls;          /* ... windows in it */
	/* snapshot summary */
	uint64_t nsnaps;
	double cpu_sum, cpu_max, load_max;
	uint64_t mem_total, avail_min, swap_total, swap_used_first, swap_used_max;
	uint32_t ncpu;
	int have_swap_first;
	char recorder[INGERO_COMM_LEN + 1]; /* the recorder's comm (header's program) */
};

struct ilog_stats {
	struct ilog_stats_opts o;
	struct snode *nodes;
	uint32_t nnodes;
	struct sseries **ser;
	uint32_t nser, capser;
	struct ilog_hmap sermap;
	struct spend *pend;       /* CUDA calls not yet added to their series */
	uint32_t npend, cappend;
	uint32_t *pord;           /* scratch of add_pending: the order to add them in */
	uint32_t *pcnt;           /* ... per series: its calls, then their slots */
	uint32_t cappcnt;
	uint32_t *dense;          /* scratch of add_pending: one window's histogram */
	uint64_t *dbins;          /* ... and its sparse one (series_halve's: a window's bins) */
	struct hseries **hs;
	uint32_t nhs, caphs;
	struct ilog_hmap hsmap;
	struct ilog_hmap hspid;   /* (node, pid) -> its host series: first << 32 | last (index + 1) */
	struct ilog_hmap hstype;  /* (node, type) -> the same */
	struct sproc **procs;
	uint32_t nprocs, capprocs;
	struct ilog_hmap procmap;
	struct sevent *ev;
	uint32_t nev, capev;
	struct sblk *blk;
	uint32_t nblk, capblk;
	struct siow *iow;
	uint32_t niow, capiow;
	uint64_t ev_over;
	struct scapture *cap;
	uint32_t ncap, capcap;
	struct ilog_hmap openmap; /* (node << 32 | pid, stream) -> the newest open
				   * capture there, index + 1 */
	uint64_t cap_over;
	uint32_t nopen;           /* captures not yet ended */
	struct sinst *inst;
	uint32_t ninst, capinst;
	struct sflow *flows;      /* TCP flows that retransmitted */
	uint32_t nflows, capflows;
	uint64_t inst_over;
	/* comms seen for pids that never sent a process record */
	struct ilog_hmap commmap;
	char (*comms)[INGERO_COMM_LEN + 1];
	uint32_t ncomms, capcomms;
	/* Nodes are recordings (ingero/nodemap.h): each input's reader numbers
	 * its nodes from 0, so two unmerged logs given together would
	 * otherwise share node 0.  A stats node id is its node map ordinal. */
	struct ilog_node_map nodemap;
	uint32_t logs;            /* new recordings at reader index 0: logs given */
	uint64_t records, cuda, host, snapshots, chains_in, unknown;
	uint64_t lost, seen_loss;
	struct ilog_buf loss_src;  /* "source=lost/seen;..." latest per source */
	struct ilog_buf merge_prov; /* args of the latest ingero-merge provenance
				     * record (its "nodes": each clock's offset) */
	uint64_t last_a;          /* the latest CUDA call's series: node << 32 | pid, */
	uint16_t last_op;         /* op, */
	uint32_t last_si;         /* index */
	struct sproc *last_proc;
	struct ranks *rk;         /* the job's ranks (ranks_int.h), from the first NCCL call */
	struct sdamage {          /* damaged input ranges skipped (ilog_stats_add_damage) */
		char *input;
		struct ilog_damage d;
	} *damage;
	uint32_t ndamage, capdamage;
	struct steps *steps;      /* each process's training steps (steps_int.h) */
	int finished;
	char err[256];
};

/* The first host series of (node, pid) or of (node, type), index + 1 in
 * st->hs, 0 when none; the rest follow in h->next_pid, h->next_type. */
uint32_t ilog_stats_hs_pid(const struct ilog_stats *st, uint32_t node, uint32_t pid);
uint32_t ilog_stats_hs_type(const struct ilog_stats *st, uint32_t node, uint16_t type);

/* Lookups used by the engine. NULL when absent. */
struct snode *ilog_stats_node(struct ilog_stats *st, uint32_t node);
struct sproc *ilog_stats_proc(struct ilog_stats *st, uint32_t node, uint32_t pid);
const char *ilog_stats_comm(struct ilog_stats *st, uint32_t node, uint32_t pid);
/* The container of pid (sproc.ctr), "" when not known. */
const char *ilog_stats_container(struct ilog_stats *st, uint32_t node, uint32_t pid);
/* The container of pid when it is not victim's (a neighbour's), else "". */
const char *ilog_stats_other_container(struct ilog_stats *st, uint32_t node, uint32_t pid,
				       uint32_t victim);

/* A dense histogram summed over ticks [a, b) of a series; with filter
 * "skip" (NULL = none) ticks for which skip[k] is set are left out. */
struct dhist {
	uint64_t *c;              /* HB_N counters, NULL when n == 0 */
	uint64_t n, total, min, max;
};
int ilog_dhist_series(struct dhist *h, const struct sseries *s, uint32_t a, uint32_t b,
		      const uint8_t *skip, int invert);
void ilog_dhist_free(struct dhist *h);
/* Nearest-rank quantile: the ceil(q*n)-th smallest value (q in [0,1]). */
uint64_t ilog_dhist_quantile(const struct dhist *h, double q);
/* Sample standard deviation (bucket representatives, the exact mean). */
double ilog_dhist_sd(const struct dhist *h);
/* Median absolute deviation around med. */
uint64_t ilog_dhist_mad(const struct dhist *h, uint64_t med);
/* Calls in ticks [a,b) whose bucket lies above thr's bucket. */
uint64_t ilog_series_above(const struct sseries *s, uint32_t a, uint32_t b, uint64_t thr);
uint64_t ilog_tick_above(const struct stick *t, uint64_t thr);
/* Nearest-rank index helper shared with tests: ceil(q*n), at least 1. */
uint64_t ilog_rank(double q, uint64_t n);
/* Median and median absolute deviation of v[0..n) (nearest rank); 0 and 0
 * when n is 0 or memory runs out. */
void ilog_robust(const double *v, uint32_t n, double *med, double *mad);
/*
 * Upper bound on P(X >= k) for X ~ Binomial(n, p): exp(-n KL(k/n || p))
 * (Chernoff).  Conservative, so "significant" is never overstated.
 */
double ilog_chernoff(uint64_t n, uint64_t k, double p);
/*
 * One-sided rank-sum (Mann-Whitney) test, exact: the probability, when
 * x[0..m) and y[0..n) come from one distribution, that y ranks at least
 * as far above x as it does (pairs y > x, ties counted half).  1 when m or
 * n is 0 or above ILOG_RANKSUM_MAX.
 */
#define ILOG_RANKSUM_MAX 16
double ilog_ranksum_p(const double *x, uint32_t m, const double *y, uint32_t n);

#endif
