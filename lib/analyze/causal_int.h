/* SPDX-License-Identifier: MIT */
/*
 * Internal: what the causal engine (lib/analyze/causal.c) and its detectors
 * (lib/analyze/detect_*.c, run in the order of lib/analyze/detectors.c)
 * share.  Not installed; programs use causal.h.
 *
 * Functions here are causal_-prefixed where they are defined once in a .c
 * file; the static inline ones (the one-line formatters D, B, R and P, the
 * op classes, the window arithmetic) are small enough to read in place.
 */
#ifndef ILOG_CAUSAL_INT_H
#define ILOG_CAUSAL_INT_H

#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include "ingero/buf.h"
#include "ingero/causal.h"
#include "stats_int.h"
#include "thresholds.h"

/* A proposed chain, before deduplication and ranking. */
struct cand {
	uint32_t node, pid, culprit;
	uint16_t op;
	int forced;               /* severity, or -1 = by impact */
	enum ilog_pattern pattern;
	uint64_t ts_start, ts_end, lost, wall;
	uint64_t span, floor;     /* the severity rule's recording length and floor */
	uint64_t spread;          /* of lost, what the op's own spread (or the host) explains */
	int info;                 /* a note, no finding (gpu-bound, recording overhead) */
	char comm[32], ccomm[32];
	char title[256], root[1536], fix[768];
	struct ilog_buf met;
	struct { uint64_t ts; char what[240]; } ev[16];
	uint32_t nev;
	int dead, fatal;          /* fatal: a process was killed or an operation failed */
};

/* Per-process host signals, one value per window. */
struct sig {
	double *cpu, *gpu, *mem, *gr;
	double *used, *avail, *total; /* snapshots, carried between them */
	uint8_t *fcpu, *fgpu, *fmem, *fgr, *swapgrow;
	/* page allocations an outlier at any rate (fmem: at a rate that is
	 * pressure for certain) */
	uint8_t *fmemw;
	int have_pages;
	/* per window: pages allocated per second (each series' pages there
	 * over the time its aggregates there covered, summed over series) and
	 * how many windows the longest of those aggregates covers */
	double *memrate, *memspan;
	/* the network (format 1.3): the node's TCP retransmissions per window
	 * (HS_RETRANS, at the window their aggregate starts in), flagged when
	 * an outlier; netspan: per window, how many windows the longest
	 * aggregate starting there covers (its flag covers as many), and
	 * net_span the most of them (how far back an aggregate can reach) */
	double *net, *netspan;
	uint8_t *fnet;
	uint32_t net_span;
};

/* The engine's state: the statistics, the candidates, the current node. */
struct ctx {
	struct ilog_stats *st;
	struct cand *c;
	uint32_t n, cap;
	struct snode *nd;
	uint32_t T;
	int oom;
	uint32_t G;               /* ticks per analysis window of the current series */
	char fb[16][48];          /* rotating number-format buffers */
	unsigned fi;
};

/* ---- formatting (causal_fmt.c): into the rotating buffers of x ---- */
const char *causal_fmt(struct ctx *x, const char *f, ...) __attribute__((format(printf, 2, 3)));

/* Three significant digits with a unit: 412 ms, 9.81 ms, 42.1 us, 1.24 s. */
static inline const char *D(struct ctx *x, double ns)
{
	return ilog_fmt_dur(x->fb[x->fi++ % 16], sizeof(x->fb[0]), ns);
}

static inline const char *B(struct ctx *x, double bytes)
{
	return ilog_fmt_bytes(x->fb[x->fi++ % 16], sizeof(x->fb[0]), bytes);
}

/* Seconds since the node's first window, as the report's timeline shows them. */
static inline const char *R(struct ctx *x, uint64_t ts)
{
	double s = ts >= x->nd->t0 ? (double)(ts - x->nd->t0) / 1e9
				   : -(double)(x->nd->t0 - ts) / 1e9;
	return causal_fmt(x, "+%.2f s", s);
}

static inline const char *P(struct ctx *x, double frac)
{
	return causal_fmt(x, "%.1f%%", frac * 100);
}

static inline void cpy(char *d, size_t n, const char *s)
{
	snprintf(d, n, "%s", s ? s : "");
}

static inline void json_str(struct ilog_buf *b, const char *s)
{
	ilog_json_str(b, s, strlen(s));
}

/* A pattern's name, as chains write it. */
static inline const char *patn(enum ilog_pattern p)
{
	return ilog_patterns[p].name;
}

static inline const char *opn(uint16_t op)
{
	const char *n = ilog_op_name(op);
	return n ? n : "unknown";
}

/* A CUDA error code in words. */
const char *causal_err_name(int32_t e);

/* ---- a chain's metrics object (causal_fmt.c), one key at a time ---- */
void causal_met_u(struct cand *c, const char *k, uint64_t v);
void causal_met_f(struct cand *c, const char *k, double v);
void causal_met_s(struct cand *c, const char *k, const char *v);
/* The op's anomalous intervals (inany, T entries) as [[start, end), ...]. */
void causal_met_anomalies(struct ctx *x, struct cand *c, const uint8_t *inany);
struct preempt;
/* One party's preemptions of the threads (who: "culprit", "self", ...) and
 * the off-CPU time they cost, as WHO_preemptions and WHO_offcpu_ns. */
void causal_met_preempt(struct cand *c, const char *who, const struct preempt *q);
/* What q's party did to the threads (whom; them: its pronoun), for a
 * chain's text, into b[n]: "preempted WHOM N times for D", or with waits
 * after a wakeup while it held the CPU, "kept WHOM waiting for a CPU after
 * N wakeups, for D" (and both).  Returns b. */
const char *causal_took(struct ctx *x, char *b, size_t n, const struct preempt *q,
			const char *whom, const char *them);

/* ---- candidates (causal.c) ---- */
/* A process's CUDA wall time: first call to last return, at least 1 ns
 * (a chain's share of it is a division by it). */
static inline uint64_t causal_proc_wall(const struct sproc *p)
{
	return p->last_end > p->first_ts ? p->last_end - p->first_ts : 1;
}
/*
 * A series' calls and time with its launches recorded at entry (SPEC §5.4
 * UNTIMED, --launch-timing N) counted: each is a call, timed at the mean of
 * the series' timed calls, as the stats rows count them (stats_query.c).
 * Its quantiles, slowest and first calls stay the timed ones'.
 */
static inline uint64_t causal_ser_calls(const struct sseries *s)
{
	return s->n + s->untimed;
}
static inline uint64_t causal_tick_calls(const struct stick *t)
{
	return t->n + t->untimed;
}
static inline double causal_ser_total(const struct sseries *s)
{
	return s->n && s->untimed ? (double)s->total * (double)(s->n + s->untimed) / (double)s->n
				  : (double)s->total;
}
/* A new candidate for p (NULL: none) in [a, b) that lost `lost` ns; NULL
 * (and x->oom set) when out of memory. */
struct cand *causal_cand_new(struct ctx *x, const struct sproc *p, enum ilog_pattern pattern,
			     uint16_t op, uint64_t a, uint64_t b, uint64_t lost);
/*
 * The severity rule, the one place every chain is graded (the engine calls
 * causal_severity on each candidate; a detector that proposes a chain only
 * sets its lost time, and may widen c->wall or c->floor):
 *
 *   material: lost >= 5% of wall and >= 50 ms (else no chain)
 *   HIGH    lost >= 25% of wall, >= 5% of span and >= floor
 *   MEDIUM  lost >=  5% of wall, >= 1% of span and >= floor
 *   LOW     material, short of MEDIUM's span or floor
 *   none    below (no chain)
 *
 * wall:  the process's CUDA wall time (first call to last return);
 * span:  the recording's length on the node (header to last record): a
 *        loss that is a blip in what was recorded is not an alarm;
 * floor: ILOG_SEV_FLOOR_CALLS typical calls (the median duration of the
 *        chain's op in that process, or of the process's busiest op): a
 *        loss shorter than a few ordinary calls is call-to-call variation.
 * A killed process or a failed GPU operation is HIGH whatever it cost
 * (c->forced).  The constants are in thresholds.h and the rule is in
 * ingero-correlate --help and the README.
 */
int causal_grade(uint64_t lost, uint64_t wall, uint64_t span, uint64_t floor);
/* The candidate's severity (ILOG_SEV_*, its forced one or causal_grade),
 * or -1 when below the smallest impact. */
int causal_severity(const struct cand *c);
/* The typical (median) duration of op's calls in p; of p's busiest op
 * when op is ILOG_OP_UNKNOWN or p has no such series; 0 when none. */
uint64_t causal_typical(struct ctx *x, const struct sproc *p, uint16_t op);
/* A line of the candidate's timeline (at most 16 are kept). */
void causal_ev_add(struct ctx *x, struct cand *c, uint64_t ts, const char *f, ...)
	__attribute__((format(printf, 4, 5)));

/* ---- the node's windows ---- */
static inline uint32_t tick_at(struct ctx *x, uint64_t ts)
{
	if (ts <= x->nd->t0)
		return 0;
	uint64_t k = (ts - x->nd->t0) / x->nd->width;
	return k >= x->T ? x->T - 1 : (uint32_t)k;
}

static inline uint64_t tick_ts(struct ctx *x, uint32_t k)
{
	return x->nd->t0 + (uint64_t)k * x->nd->width;
}

/* ---- classes of ops ---- */
static inline int is_memcpy(uint16_t op)
{
	switch (op) {
	case ILOG_OP_cudaMemcpy: case ILOG_OP_cudaMemcpyAsync: case ILOG_OP_cuMemcpy:
	case ILOG_OP_cuMemcpyAsync: case ILOG_OP_cuMemcpyHtoD: case ILOG_OP_cuMemcpyDtoH:
	case ILOG_OP_cuMemcpyDtoD: case ILOG_OP_cuMemcpyHtoDAsync: case ILOG_OP_cuMemcpyDtoHAsync:
		return 1;
	}
	return 0;
}

static inline int is_sync(uint16_t op)
{
	switch (op) {
	case ILOG_OP_cudaStreamSynchronize: case ILOG_OP_cudaDeviceSynchronize:
	case ILOG_OP_cudaEventSynchronize: case ILOG_OP_cuCtxSynchronize:
	case ILOG_OP_cuStreamSynchronize:
		return 1;
	}
	return 0;
}

static inline int is_alloc(uint16_t op)
{
	switch (op) {
	case ILOG_OP_cudaMalloc: case ILOG_OP_cudaMallocManaged: case ILOG_OP_cudaMallocHost:
	case ILOG_OP_cuMemAlloc: case ILOG_OP_cudaFree: case ILOG_OP_cuMemFree:
	case ILOG_OP_cudaFreeHost:
		return 1;
	}
	return 0;
}

static inline int is_graph_setup(uint16_t op)
{
	return op == ILOG_OP_cudaStreamBeginCapture || op == ILOG_OP_cudaStreamEndCapture ||
	       op == ILOG_OP_cudaGraphInstantiate || op == ILOG_OP_cudaGraphInstantiateWithFlags;
}

static inline int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
	return x < y ? -1 : x > y;
}

/* ---- host signals (causal_sig.c) ---- */
static inline int has_tid(const struct sproc *p, uint32_t tid)
{
	if (p->tids_over)
		return 1; /* too many threads to list: count them all */
	for (uint32_t i = 0; i < p->ntids; i++)
		if (p->tids[i] == tid)
			return 1;
	return 0;
}

/* Whether pid is the recorder that wrote the node's log (its process name
 * is the header's program, "ingero-record") or the recorder's watchdog
 * (INGERO_WATCHDOG_COMM): the cost of observing, never a culprit. */
static inline int causal_is_recorder(struct ctx *x, uint32_t pid)
{
	const char *r = x->nd->recorder[0] ? x->nd->recorder : "ingero-record";
	const char *c = ilog_stats_comm(x->st, x->nd->idx, pid);
	return pid && (!strcmp(c, r) || !strcmp(c, INGERO_WATCHDOG_COMM));
}

/* Preemptions of p's CUDA threads in windows [a, b), by preempter. */
/* One party's take of a process's CUDA threads' CPU: n preemptions and,
 * in causal_offcpu's list, wn waits after a wakeup while it held the CPU;
 * dur the off-CPU ns of both. */
struct preempt { uint32_t pid; uint64_t n, wn, dur; double excess; };
#define MAXPRE 1024 /* distinct preempters kept per query */
uint32_t causal_preempters(struct ctx *x, const struct sproc *p, uint32_t a, uint32_t b,
			   struct preempt *out, uint32_t max, uint64_t *n_all, uint64_t *dur_all);
/* Time p's CUDA threads waited for a CPU after a wakeup in windows [a, b);
 * the number of such waits in n (NULL: not wanted). */
uint64_t causal_runq_wait(struct ctx *x, const struct sproc *p, uint32_t a, uint32_t b,
			  uint64_t *n);
/* Whether the time p's CUDA threads spent off-CPU (preempted, or woken
 * and waiting for a CPU) in the windows of [lo, hi) set in mark, above
 * their rate in the other windows, is at least half of lost: the CPU, not
 * the GPU, took that time.  The excess (ns) in *excess, all of that time
 * in the marked windows in *in (NULL: not wanted). */
int causal_offcpu_explains(struct ctx *x, const struct sproc *p, const uint8_t *mark,
			   uint32_t lo, uint32_t hi, uint64_t lost, double *excess, double *in);
/* Preemptions of p's CUDA threads in windows [a, b) by p's own threads
 * (own) and by the recorder (rec), and by anyone (n_all, dur_all). */
void causal_own_preempt(struct ctx *x, const struct sproc *p, uint32_t a, uint32_t b,
			struct preempt *own, struct preempt *rec, uint64_t *n_all, uint64_t *dur_all);
/* Take the process itself and the recorder out of pr[0..m) (order kept):
 * neither is ever a culprit.  Their preemptions are added to own and rec
 * (NULL: not wanted); returns how many remain. */
uint32_t causal_drop_own(struct ctx *x, const struct sproc *p, struct preempt *pr, uint32_t m,
			 struct preempt *own, struct preempt *rec);
/*
 * CPU contention is a matter of time accounting: the off-CPU time (preempted
 * by others than the process and the recorder, or woken and waiting for a
 * CPU) of p's CUDA threads in the windows set in `in` (x->T entries), above
 * its rate in the other windows of [lo, hi), must account for half of the
 * `lost` ns, and a preempter's own off-CPU time must have risen there (or
 * the threads waited in the run queue of a saturated host).  0, or -1 (out
 * of memory); free with causal_offcpu_free.
 */
struct offcpu {
	struct preempt *pr;       /* the windows' preempters, most excess first */
	uint32_t npr;
	uint64_t pn, pd;          /* preemptions in the windows (by anyone), their off-CPU ns */
	uint64_t wq;              /* run-queue wait in the windows */
	double len;               /* ns the windows cover */
	double off_in;            /* off-CPU ns in them (pd + wq) others caused */
	uint64_t self;            /* the rest of pd + wq: behind the process's own
				   * threads or the recorder */
	double rate_out;          /* off-CPU per ns in the other windows */
	double share;             /* (off_in - rate_out * len) / lost */
	int named;                /* pr[0]'s off-CPU time rose there: the culprit */
	int host;                 /* share >= 0.5, and named or waits: the host is the cause */
};
int causal_offcpu(struct ctx *x, const struct sproc *p, const uint8_t *in, uint32_t lo,
		  uint32_t hi, uint64_t lost, struct offcpu *o);
void causal_offcpu_free(struct offcpu *o);

/* Share of the calls v[0..m) whose windows (+-1) have the flag set. */
double causal_call_coverage(struct ctx *x, const struct scall *v, uint32_t m, const uint8_t *flag);

/* ---- the network (causal_sig.c; format 1.3) ---- */
/* Ops a collective over the network is waited for in: NCCL's calls and
 * the synchronizations that wait for its kernels. */
static inline int net_op(const struct sseries *s)
{
	return s->layer == ILOG_LAYER_NCCL || is_sync(s->op);
}
/* A flow's or the node's retransmissions in and outside some windows. */
struct net_flow {
	uint32_t i;               /* index in the stats' flows */
	uint64_t in, out;
};
/*
 * The windows k in which retransmit aggregates start that reach a window
 * set in in (T entries): from k through the longest of them that starts in
 * k, in windows rounded up, into nin (T entries).
 */
void causal_net_reach(struct ctx *x, const uint8_t *in, uint8_t *nin);
/* The first window, not before lo, in which a retransmit aggregate starts
 * that reaches window a (g->netspan); a when none before it does. */
uint32_t causal_net_from(const struct sig *g, uint32_t a, uint32_t lo);
/*
 * TCP retransmissions: the retransmit aggregates that start in the
 * windows k of [lo, hi) that are "in" (in[k], or with in NULL k in
 * [a, b): an interval's start less the ticks one aggregate spans, so the
 * window that covers its start is in), against those of the other windows
 * of [lo, hi), the node's into *all_in and *all_out; the flows ranked by
 * their retransmissions in, the top cap into f (returns how many).
 */
uint32_t causal_net_flows(struct ctx *x, uint32_t a, uint32_t b, const uint8_t *in, uint32_t lo,
			  uint32_t hi, struct net_flow *f, uint32_t cap, uint64_t *all_in,
			  uint64_t *all_out);
/*
 * Whether n_in retransmissions in len_in of time are more than the rate of
 * the rest (n_out in len_out) explains: P(X >= n_in) < ILOG_NET_ALPHA for X
 * Poisson with mean (n_out + 1) * len_in / len_out - one retransmission
 * added to the rest, so that on a quiet node one or two retransmissions
 * (a busy host's spurious timeouts) are not a burst; len_out 0 (the
 * interval is the whole run): one retransmission per len_in.
 */
int causal_net_significant(uint64_t n_in, uint64_t n_out, double len_in, double len_out);
/* "saddr:sport > daddr:dport" ([v6]). */
void causal_flow_text(const struct sflow *f, char *buf, size_t n);
/*
 * The flow fl named for a chain c on process subject: its text into ft,
 * " of PID n (comm) in <container>," into who (empty for a flow of no known
 * process); its owner becomes c's culprit unless it is subject or the
 * recorder; the metrics flow and flow_pid.
 */
void causal_flow_owner(struct ctx *x, struct cand *c, uint32_t subject, const struct sflow *fl,
		       char *ft, size_t nft, char *who, size_t nwho);
/* The process's TCP bytes (its sockio aggregates) in ticks [a, b), only
 * those with in[k] when in is given. */
uint64_t causal_net_bytes(struct ctx *x, uint32_t pid, uint32_t a, uint32_t b, const uint8_t *in);
#define FIX_NET \
	"Find why %s loses packets: check the NIC and switch port counters (ethtool -S, " \
	"ip -s link), the path's MTU and any traffic shaping or firewall rule on it; move the " \
	"collective to a clean link (NCCL_SOCKET_IFNAME) or to RDMA/NVLink where the nodes have it."
/* The CPU quota throttling of pid's cgroup (cpu_throttle records) in
 * [a, b) ns: the throttled time, each record's share of it that falls in
 * [a, b); the throttled periods and periods into *nthr, *nper (either may
 * be NULL), the latest quota and its period before b into *quota, *period
 * (ns; may be NULL). */
uint64_t causal_throttled(struct ctx *x, uint32_t pid, uint64_t a, uint64_t b, uint64_t *nthr,
			  uint64_t *nper, uint64_t *quota, uint64_t *period);
/* Did pid's own CPU quota hold it for at least half of lost in [a, b)?
 * A detector that would blame that time on something else yields to the
 * throttle chain (detect_throttle.c).  0 where nothing was throttled. */
int causal_quota_held(struct ctx *x, uint32_t pid, uint64_t a, uint64_t b, double lost);
/*
 * The recorder's windows of a process (causal_windows.c): those its
 * per-window aggregates name within [t0, t1) (blkio, iowait and wait
 * records of the node), the gaps between them windows of their own, and
 * with extend the rest of [t0, t1) before the first and after the last in
 * whole windows of the recorder's length (a quiet host writes those
 * records only while something happens), sorted by start; into *out (free
 * it), their number returned.
 */
struct causal_proc;
struct rwin {
	uint64_t ts, dur;
	uint64_t calls;          /* the process's CUDA calls (causal_rwin_calls) */
	double busy;             /* ns of them in calls, untimed launches at the mean */
	uint64_t io;             /* the detector's own */
	int in;                  /* in the detector's interval */
};
uint32_t causal_rwindows(struct ctx *x, uint64_t t0, uint64_t t1, int extend, struct rwin **out);
/* The window starting at ts (w sorted by start), -1 when none. */
int causal_rwin_of(const struct rwin *w, uint32_t n, uint64_t ts);
/* pc's calls and time in calls in each window; the median window's call
 * rate (per ns), 0 with none (or out of memory, x->oom set). */
double causal_rwin_calls(struct ctx *x, const struct causal_proc *pc, struct rwin *w, uint32_t nw);
/* The metrics of a chain over windows [ta, tb) of w[0..nw): its bounds,
 * the baseline's, the calls and call rates (per s) in and outside it, and
 * the median window's rate (med, per ns). */
void causal_rwin_metrics(struct cand *c, const struct rwin *w, uint32_t nw, uint64_t ta,
			 uint64_t tb, uint64_t calls_in, uint64_t calls_out, double r_in,
			 double r_out, double med);
/* Is pid p or a descendant of it (up to 8 generations)? */
int causal_in_job(struct ctx *x, const struct sproc *p, uint32_t pid);
/* Pages allocated in [a, b): all, and the biggest allocator. */
uint64_t causal_pages(struct ctx *x, uint32_t a, uint32_t b, uint32_t *top_pid, uint64_t *top_n);
/* The same in the windows set in `in` (x->T entries). */
uint64_t causal_pages_in(struct ctx *x, const uint8_t *in, uint32_t *top_pid, uint64_t *top_n);
/* CUDA calls by processes other than p on the node in the windows set in
 * `in` (x->T entries): all, and the busiest process. */
uint64_t causal_others_calls(struct ctx *x, const struct sproc *p, const uint8_t *in,
			     uint32_t *top_pid, uint64_t *top_n);

/*
 * Page allocations of windows [a, b) against the rest of [lo, hi), per
 * process: the culprit is the process other than p whose allocations rose
 * most over its own rate outside [a, b) (pid 0: none rose).  Rates are
 * pages per second of the windows its page_alloc records cover; the
 * machine's include page_alloc_rest.  Returns -1 when out of memory.
 */
struct page_storm {
	uint32_t pid;                 /* the culprit, 0 = none */
	uint64_t pages_in, ns_in;     /* its pages in [a, b) and the time they cover */
	uint64_t pages_out, ns_out;   /* the same outside [a, b) */
	double excess;                /* pages above its own rate outside */
	double machine_excess;        /* the machine's pages above its rate outside */
};
int causal_page_storm(struct ctx *x, const struct sproc *p, uint32_t a, uint32_t b, uint32_t lo,
		      uint32_t hi, struct page_storm *out);
/* Direct reclaim and compaction stalls of any task in [a, b). */
void causal_stalls(struct ctx *x, uint32_t a, uint32_t b, uint64_t *n, uint64_t *ns);

/* The system snapshots of windows [a, b), summed up. */
struct snapsum {
	uint32_t n;
	double cpu_avg, cpu_max, load_max;
	uint64_t avail_min, total, swap_growth;
	double psi_mem_max;
};
void causal_snaps(struct ctx *x, uint32_t a, uint32_t b, struct snapsum *s);
/*
 * Whether the node's CPUs were saturated over windows [a, b): the mean of
 * its snapshots there and of the first one after b (a snapshot's PSI
 * covers the time since the one before) shows PSI "cpu some" of at least
 * ILOG_SAT_PSI or CPUs at least ILOG_SAT_CPU busy.  *psi and *busy: those
 * means (0 without snapshots: not saturated).
 */
int causal_cpu_saturated(struct ctx *x, uint32_t a, uint32_t b, double *psi, double *busy);
/*
 * CPU time the hypervisor gave to others while this VM's CPUs were
 * runnable (steal, snapshot format 1.8) in the spans of the snapshots that
 * cover a window set in `in` (x->T entries), above its rate in the spans
 * of the other snapshots of [lo, hi): ns per CPU (the mean over them:
 * what a thread on any one lost, on average), 0 when none rose; with
 * every_cpu, of all the CPUs together (a collective waits on work that
 * runs on any of them: its peer ranks, its proxy thread, the network
 * stack's processing).  A snapshot's span is the windows after the snapshot before it up
 * to its own.  st: the stolen share of the CPUs' time in those spans and
 * in the others (%; NULL: not wanted).  Such time can account for calls
 * that waited with no cause the guest can see: the CPU that was to run
 * them, or to wake them, was not running at all.
 */
double causal_stolen(struct ctx *x, const uint8_t *in, uint32_t lo, uint32_t hi, int every_cpu,
		     double st[2]);
/* How STEAL_TEXT says whose time it counted. */
#define STEAL_WHOSE(every_cpu) \
	((every_cpu) ? "of all its CPUs' time (a collective waits on work on any of them)" \
		     : "per CPU")
/* Its metrics: stolen_ns, steal_in_pct, steal_out_pct. */
void causal_met_steal(struct cand *c, double stolen, const double st[2]);
/* Whether time stolen so (stolen ns) accounts for half of lost ns. */
static inline int causal_steal_explains(double stolen, double lost)
{
	return stolen > 0 && stolen >= 0.5 * lost;
}
/* What a GPU-side verdict says instead on a saturated host, and its fix:
 * the calling threads' own off-CPU time does not explain the loss, but the
 * work a call waits on outside them may have waited for a CPU; such a
 * chain is LOW (the cause is not shown). */
#define SAT_TEXT \
	" - undetermined: the host's CPUs were saturated (PSI cpu some %s, %s busy), so " \
	"work the calls wait on outside their own threads (a peer process, a helper " \
	"thread, the driver's) may have waited for a CPU as well; the GPU is not shown to " \
	"be at fault"
#define FIX_SATURATED \
	"Rerun on a quiet host, or with CPUs reserved for the job (cgroup cpuset.cpus, " \
	"taskset -c), to tell the GPU's share from the host's; if the calls stay slow there, " \
	"look at the GPU (kernel times in Nsight Systems, nvidia-smi -q -d PERFORMANCE)."

/* What a verdict of no cause says instead when only the op's slowest calls
 * grew (the median call's growth explains under ILOG_SLOW_TYPICAL of the
 * time lost), and its fix; such a chain is LOW (the cause is not shown). */
#define TAIL_TEXT \
	" - but only its slowest calls grew: the median call's growth accounts for %s of " \
	"the time lost.  A GPU that slows (clocks, power or thermal throttling, a co-tenant's " \
	"time slices) lengthens the typical call; a few much slower calls are as likely " \
	"interference this host cannot see (a hypervisor holding the VM's CPUs without " \
	"steal accounting, firmware interrupts), so the GPU is not shown to be at fault"
#define FIX_TAIL \
	"Compare the slow calls' kernel times in Nsight Systems: kernels that took as long " \
	"as elsewhere mean the wait was outside the GPU (the host's hypervisor or firmware); " \
	"kernels that took longer point at the GPU (nvidia-smi -q -d PERFORMANCE)."

/* What a verdict of no cause says instead when the hypervisor took this
 * VM's CPUs (causal_stolen): the time stolen in its spans, in and around
 * the slow calls against elsewhere, and above that rate; such a chain is
 * LOW (the guest cannot see what ran instead). */
#define STEAL_TEXT \
	" - the hypervisor: it gave this VM's CPUs to other work for %s of their time " \
	"around the slow calls (steal) against %s elsewhere in the run, %s %s above that " \
	"rate, enough for half the time lost; a CPU that is not running at all runs " \
	"and wakes nothing, and the guest sees no cause, so the GPU is not shown to be at fault"
#define FIX_STEAL \
	"Steal time is CPU the hypervisor gave to other guests: run the job on dedicated " \
	"(not overcommitted) or larger instances, or ask the provider; compare with a run " \
	"without steal (the snapshots' steal_pct) before looking at the GPU."

/* A CPU-contention chain with no one culprit (the calling threads waited
 * for a CPU, no process took it from them most): how its root cause ends
 * and its fix, for the interval and the isolated-stall chains alike. */
#define NO_CULPRIT_TEXT "found no free CPU, and no one process took them"
#define FIX_NO_CULPRIT \
	"Give the job CPUs of its own: reserve cores for it (cgroup cpuset.cpus, " \
	"taskset -c) and keep other work (builds, data jobs) on the rest, or run it on " \
	"a less loaded node."

/* p's signals over all of the node's windows; 0 or -1 (out of memory). */
int causal_sig_build(struct ctx *x, const struct sproc *p, struct sig *g, uint32_t lo,
		     uint32_t hi);
void causal_sig_free(struct sig *g);
/* Flag the windows where each signal is an outlier (anom: the op's
 * anomalous windows); 0 or -1 (out of memory). */
int causal_sig_flags(struct ctx *x, struct sig *g, const uint8_t *anom, uint32_t lo, uint32_t hi);

/* ---- one series: baseline, cold calls, anomalous intervals (causal_series.c) ---- */
struct base {
	struct dhist all;
	uint64_t med, mad, thr;
};

struct ival { uint32_t a, b; };

/* The leading run of outliers of a series. */
struct cold { const struct sseries *s; uint32_t n; uint64_t lost, first_dur, med; };

/* The process being analyzed, and what the engine computed for it. */
struct causal_proc {
	const struct sproc *p;
	struct sseries **ser;     /* its series */
	uint32_t ns;
	uint32_t lo, hi;          /* its windows */
	struct sig g;             /* its host signals (flags: of the last analyzed series) */
	struct cold *cl;          /* its series' cold calls */
	uint32_t ncl;
	uint32_t before;          /* x->c[before..]: its candidates */
};

/* The series being analyzed; past causal_series_begin, its baseline and
 * cold calls; past causal_series_anomalies, its anomalous intervals. */
struct causal_series {
	const struct sseries *s;
	struct base bs;
	uint32_t ncold;           /* its leading outliers (in the process's cl) */
	uint32_t cold_end;        /* the window after them; 0 without */
	uint8_t *hot;             /* T entries: its significant analysis windows */
	uint8_t *inany;           /* T entries: in one of the intervals */
	uint8_t *hide;            /* T entries: in one that explains its outliers
				   * (not one that only holds isolated stalls at
				   * their rate): spikes and stalls are looked for
				   * outside these */
	struct ival iv[32];       /* its anomalous intervals that cost enough */
	uint32_t niv;
};

/* The baseline and the cold calls (added to pc->cl); 0 or -1 (out of memory). */
int causal_series_begin(struct ctx *x, struct causal_proc *pc, struct causal_series *sc);
/* The anomalous intervals and the signals' flags against them; 0 or -1
 * (out of memory). */
int causal_series_anomalies(struct ctx *x, struct causal_proc *pc, struct causal_series *sc);

/* ---- the slow calls of a series (causal_stalls.c) ---- */
/* Whether every call of s slower than thr is among its slowest calls kept
 * (s->top): the list is not full, or it reaches down to thr. */
int causal_top_complete(const struct sseries *s, uint64_t thr);

/*
 * Breaks in sorted durations durs[0..m): a ratio between neighbours
 * durs[i + 1] / durs[i] of at least ILOG_SPIKE_BREAK that is also wider
 * than the spread of the bulk of the durations above it (upper quartile
 * over the smallest), with at least min_above durations above it - so a
 * continuum is not split, and one or two values stretched further do not
 * hide the break.  Fills br (room for m) widest first, ties in order of i;
 * returns how many.  The group above break b is durs[br[b].i + 1 ..].
 */
struct causal_brk { double r; uint32_t i; };
/* Calls v[0..m) (m >= 2, by time): the robust CV of their gaps (1.4826 MAD
 * over median; a Poisson process's ~1), *period the median gap. */
double causal_gap_rcv(const struct scall *v, uint32_t m, double *period);
/* They come in a rhythm: that robust CV is below ILOG_PERIODIC_RCV, and
 * so is that of the time from each one's end to the next one's start. */
int causal_rhythm(const struct scall *v, uint32_t m, double *period);
uint32_t causal_breaks(const uint64_t *durs, uint32_t m, uint32_t min_above,
		       struct causal_brk *br);

/* The outlier threshold as an exact duration: the calls slower than it are
 * those in buckets above the threshold's (the histograms' count). */
static inline uint64_t bs_cut(const struct base *bs)
{
	return ilog_hb_lower(hb_index(bs->thr) + 1) - 1;
}

/*
 * The lowest duration a stall (an isolated stall, a periodic spike's
 * search) may have: the outlier cut, and for an op so steady that its
 * threshold is under ILOG_DRIFT_MIN over its median, that far over it (a
 * call 3% over the median of a 2 ms synchronize is no stall, however few
 * the spread predicts), on the histogram's grid as bs_cut is.
 */
static inline uint64_t bs_stall_cut(const struct base *bs)
{
	uint64_t drift = ilog_sat_add(bs->med, (uint64_t)((double)bs->med * ILOG_DRIFT_MIN));
	return bs->thr < drift ? ilog_hb_lower(hb_index(drift) + 1) - 1 : bs_cut(bs);
}

static inline int cmp_ts(const void *a, const void *b)
{
	const struct scall *x = a, *y = b;
	return x->ts < y->ts ? -1 : x->ts > y->ts;
}

/*
 * The spread of an op's calls as a log-normal through the quartiles of
 * their histogram h: mu = ln(median), sigma = ln(q3 / q1) / 1.349, floored
 * at the histograms' resolution (so jitter, however wide, is expected).
 */
struct lognorm { uint64_t q[3]; double mu, sig; };
void causal_lognorm(const struct dhist *h, struct lognorm *f);
/* The share of the calls the fit puts above d. */
double causal_lognorm_above(const struct lognorm *f, double d);
/*
 * Whether k of n calls above at (ns) are significantly more than the fit
 * predicts there (Chernoff, p < alpha); the prediction into *expect.
 */
int causal_lognorm_exceeds(const struct lognorm *f, uint64_t n, uint64_t k, uint64_t at,
			   double alpha, double *expect);
/* The middle (geometric) of the empty gap between lo and hi. */
static inline uint64_t causal_gap_mid(uint64_t lo, uint64_t hi)
{
	return (uint64_t)sqrt((double)lo * (double)hi);
}

/* The isolated stalls of a series. */
struct stalls {
	uint64_t cut;             /* the stalls are the calls slower than this */
	uint64_t k, n;            /* of the n calls considered */
	uint64_t at;              /* the significance test's point: cut, or the
				   * middle of the break (geometric) for a mode */
	double expect;            /* calls above at the spread predicts */
	double ratio;             /* the break's width; 0 for a heavy tail */
	uint64_t lo, hi;          /* the durations either side of the break */
	const struct scall *v;    /* the stalls kept verbatim (all, or the slowest) */
	uint32_t m;
	double above;             /* the stalls' time above the op's median */
	double spread;            /* the time above it the spread puts above cut */
	double lost;              /* above - spread */
	double mu, sig;           /* the log-normal's */
	uint64_t q[3];            /* through these quartiles of the calls */
	uint64_t med;             /* the stalls' median duration */
	int frequent;             /* more than ILOG_ISOLATED_SHARE of the calls */
	struct scall *buf;        /* owned: v points into it */
};

/*
 * The isolated stalls of the series among its calls outside the windows
 * set in skip (x->T entries) and after its cold calls: 1 found (g filled;
 * free g->buf), 0 none, -1 out of memory.  With frequent set, only a mode
 * of their own (a break) holding more than ILOG_ISOLATED_SHARE of the
 * calls: stalls too many to be isolated (detect_isolated.c says when such
 * stalls make a chain).
 */
int causal_find_stalls(struct ctx *x, struct causal_proc *pc, const struct causal_series *sc,
		       const uint8_t *skip, int frequent, struct stalls *out);

/*
 * The intervals of sc that hold the series' isolated stalls
 * (causal_find_stalls) at their rate outside all intervals (Chernoff, p >=
 * 0.01 / intervals; where none are found outside the intervals - a loaded
 * host's intervals can cover nearly all the run - the stalls among all the
 * calls, at their rate over the whole series) do not explain them: such an interval is dropped when,
 * without the stalls, it costs less than the smallest reported impact
 * (stalls at random times fall together in a window now and then: that is
 * no anomaly of the window), and is otherwise kept but left out of
 * sc->hide (a load swing that happens to hold a stall does not hide it).
 * Sets sc->hide; 0, or -1 (out of memory).
 */
int causal_isolated_intervals(struct ctx *x, struct causal_proc *pc, struct causal_series *sc);

/* ---- detectors (detect_*.c, listed in detectors.c) ---- */
/* Why there are two series scopes: CUDA errors count in every series,
 * while the statistical detectors need enough calls for a baseline. */
enum causal_scope {
	CAUSAL_SERIES_ALL,        /* each series of the process, as it is (sc->s only) */
	CAUSAL_SERIES_ANALYZED,   /* each series of >= ILOG_MIN_SERIES calls, analyzed */
	CAUSAL_PROCESS,           /* each process, after its series (sc NULL) */
	CAUSAL_NODE,              /* each node, after its processes (pc and sc NULL) */
	CAUSAL_JOB,               /* once, after every node: across processes and nodes
				   * (pc and sc NULL; x->nd is the detector's to set) */
};

struct causal_detector {
	const char *name;
	enum causal_scope scope;
	/* Adds candidates with causal_cand_new; x->nd is the node. */
	void (*run)(struct ctx *x, struct causal_proc *pc, const struct causal_series *sc);
};

/* Every detector, in the order they run within a scope (detectors.c). */
extern const struct causal_detector *const causal_detectors[];
extern const uint32_t causal_ndetectors;

/* The fix for CPU contention (interval and whole-run chains): %s the
 * culprit with its PID, %s its name. */
#define FIX_CPU \
	"Keep other work off the job's CPUs: pin the job and %s to disjoint cores " \
	"(taskset -c / cgroup cpuset.cpus), or lower %s's priority (renice +19, cgroup " \
	"cpu.weight), or move it to another node."
/* ... for GPU contention: %s the other process with its PID */
#define FIX_GPU \
	"Give each job its own GPU (CUDA_VISIBLE_DEVICES), or share it predictably with " \
	"MPS or MIG partitions; otherwise schedule %s's GPU work outside this job's run."
/* ... for host memory pressure: %s the biggest allocator, or "the other processes" */
#define FIX_MEM \
	"Relieve host memory: cap %s's memory (cgroup memory.max / systemd MemoryMax=), " \
	"keep the job's host buffers pinned, lower DataLoader workers and prefetch, " \
	"and keep the job out of swap (memory.swap.max=0) or add RAM."

#endif
