/* SPDX-License-Identifier: MIT */
/*
 * Statistics over a log: per (node, process, layer, op) counts, totals,
 * fractions of wall time and latency quantiles, for the whole run and per
 * time window, plus host aggregates (preemptions, page allocations,
 * snapshots) that the causal engine (causal.h) joins with them.
 *
 * One pass, any input order, memory bounded by series x windows.
 * Quantiles are nearest-rank (the ceil(q*n)-th smallest value, q in
 * thousandths) read from a log-linear histogram: exact below 128 ns and
 * within 0.39% of the true sample above (see stats_int.h); min and max are
 * exact.
 */
#ifndef ILOG_STATS_H
#define ILOG_STATS_H

#include "ingero/ilog.h"

struct ilog_stats_opts {
	uint64_t window_ns;  /* fixed window width; 0 = adaptive (128..255 windows) */
};

struct ilog_stats;

/* NULL on out of memory. */
struct ilog_stats *ilog_stats_new(const struct ilog_stats_opts *o);
/*
 * Account one record (any kind; unknown kinds are counted and ignored).
 * r supplies the header of the record's node (may be NULL).
 * 0, or -1 on out of memory (ilog_stats_error says so).
 */
int ilog_stats_add(struct ilog_stats *st, const struct ilog_record *rec,
		   const struct ilog_reader *r);
/* Close open windows; call once after the last record.  0 or -1. */
int ilog_stats_finish(struct ilog_stats *st);
const char *ilog_stats_error(const struct ilog_stats *st);
/*
 * Warnings about the input found while reading it (ranks that disagree on
 * a communicator, collectives whose communicator has no init in the log):
 * one line each, no program name, for the caller to print.  Valid after
 * ilog_stats_finish, until ilog_stats_free.
 */
uint32_t ilog_stats_nwarnings(const struct ilog_stats *st);
const char *ilog_stats_warning(const struct ilog_stats *st, uint32_t i);
/*
 * A damaged range of an input that its reader skipped (SPEC §9:
 * ILOG_READ_DAMAGE, ilog_reader_damage), for the summaries to name: the
 * figures below are lower bounds then.  input is copied.  0, or -1 out
 * of memory.  ilog_stats_damage gives range i (NULL past the last) and
 * its input's name.
 */
int ilog_stats_add_damage(struct ilog_stats *st, const char *input, const struct ilog_damage *d);
const struct ilog_damage *ilog_stats_damage(const struct ilog_stats *st, uint32_t i,
					    const char **input);
void ilog_stats_free(struct ilog_stats *st);

/* One row of the statistics table. */
struct ilog_stat_row {
	uint32_t node;
	const char *node_name;
	uint32_t pid;              /* 0 when aggregated over processes */
	const char *comm;          /* "" when aggregated or unknown */
	uint8_t layer;
	uint16_t op;
	uint64_t count, total_ns, min_ns, max_ns;
	uint64_t p50_ns, p95_ns, p99_ns;
	double frac;               /* total / wall time of the node (or process) */
	uint64_t bytes, errors;
	uint64_t start_ns, end_ns; /* window rows: [start, end) monotonic ns */
};

/*
 * Statistics rows, sorted by node, (pid,) total time descending.
 * per_process: one row per (node, pid, layer, op) with frac relative to
 * that process's wall time (first call to last return); otherwise one row
 * per (node, layer, op) with frac relative to the node's wall time.
 * Returns the number of rows written to *rows (caller frees with free()),
 * or -1 on out of memory.
 */
int ilog_stats_rows(struct ilog_stats *st, int per_process, struct ilog_stat_row **rows);
/* The same per window (rows with count 0 are left out). */
int ilog_stats_window_rows(struct ilog_stats *st, int per_process,
			   struct ilog_stat_row **rows);
/* The same per chunk: consecutive windows holding 1/chunks of the row's
 * timed calls (at least 1; a last, shorter run of windows left out), so
 * each row's calls have about chunks rows of equal calls. */
int ilog_stats_chunk_rows(struct ilog_stats *st, int per_process, uint32_t chunks,
			  struct ilog_stat_row **rows);

struct ilog_stats_summary {
	uint32_t node;
	const char *node_name;
	uint64_t records, cuda, host, snapshots, unknown;
	uint64_t start_ns, end_ns, window_ns, nwindows;
	uint64_t real_start_ns;    /* wall clock of start_ns, 0 if unknown */
	uint32_t processes;
	uint64_t lost, seen;       /* from loss records (latest per source) */
	/* snapshots */
	uint64_t nsnaps;
	uint32_t ncpu;
	double cpu_avg, cpu_max, load1_max;
	uint64_t mem_total, mem_avail_min, swap_total, swap_used_max, swap_used_growth;
};
/* Number of nodes; fills *s for node i (0-based order of appearance). */
uint32_t ilog_stats_nnodes(const struct ilog_stats *st);
void ilog_stats_summary(struct ilog_stats *st, uint32_t i, struct ilog_stats_summary *s);

/*
 * How many logs were given (each is a recording, analyzed on its own node
 * timeline: several logs are never mixed into one node).  When more than
 * one: *overlap tells whether two were recorded at the same time (ranks of
 * one job, which ingero-merge aligns and joins), and ranks (rlen bytes)
 * lists the ranks their headers name ("0, 1"; "" when none).
 */
uint32_t ilog_stats_logs(struct ilog_stats *st, int *overlap, char *ranks, size_t rlen);

/* A process of a container group (ilog_stats_containers). */
struct ilog_stats_cproc {
	uint32_t pid;
	const char *comm;          /* "" when unknown */
	uint64_t calls, cuda_ns;   /* its CUDA calls and their time */
};
/* The processes of one node in one container. */
struct ilog_stats_container {
	/* as reports name it: "pod UID, container ID" (12 digits), "container
	 * ID", "cgroup PATH"; "" for the host's own processes */
	const char *label;
	const char *pod_uid, *container_id, *cgroup; /* "" when not known */
	struct ilog_stats_cproc *procs; /* by CUDA time, then pid */
	uint32_t nprocs;
	uint64_t calls, cuda_ns;   /* summed over its processes */
};
/*
 * Reports group processes by container when a node's processes are in
 * more than one (format 1.2 process records): the groups of node (a
 * summary's node id) into *out, those holding CUDA processes first (by
 * CUDA time), then containers (a container id) before plain cgroups, then
 * by label, the host's own processes ("" label: only those that made CUDA
 * calls) last.  A container group lists every process
 * of it the log names.  Returns the number of groups, 0 (and *out NULL)
 * when there are fewer than two containers, -1 when out of memory; free
 * with ilog_stats_containers_free.
 */
int ilog_stats_containers(struct ilog_stats *st, uint32_t node,
			  struct ilog_stats_container **out);
void ilog_stats_containers_free(struct ilog_stats_container *c, int n);

/*
 * The ranks of a multi-rank job: every communicator with an identity (the
 * hash of its ncclUniqueId, format 1.4) and each rank of it, over the
 * collectives every rank reached (lib/analyze/ranks.c).  Times are on the
 * job's common timeline: wall clock ns from each node's clock anchor (the
 * node's own clock when it has none).
 */
#define ILOG_RANK_LANE 64
struct ilog_rank_row {
	uint64_t comm;             /* the communicator's identity */
	uint32_t nranks, rank;
	uint32_t node, pid;        /* the rank's process (stats node id) */
	uint64_t collectives;      /* finished collectives it took part in */
	uint64_t last;             /* ... at which it arrived last */
	uint64_t late_mean_ns, late_max_ns; /* its arrival after the first rank's */
	uint64_t held_ns;          /* the others' wait for it: (its arrival - the last
				    * but one's) summed where it was last */
	uint64_t first_ns, last_ns; /* its first and latest arrival */
	double rate_hz;            /* its collectives per second: its step rate */
	/* lateness over the run: the mean in each bucket of lane_w collectives
	 * (by number), UINT64_MAX where it has none */
	uint64_t lane_w;
	uint32_t nlane;
	uint64_t lane_ns[ILOG_RANK_LANE];
};
/* Every rank row, by communicator (first seen) and rank; *rows malloc'd.
 * Count (0: no communicator with an identity), -1 out of memory. */
int ilog_stats_ranks(struct ilog_stats *st, struct ilog_rank_row **rows);

/* One collective every rank of its communicator reached. */
struct ilog_coll_row {
	uint64_t comm, seq;        /* the communicator, the collective's number on it */
	uint16_t op;
	uint32_t nranks;
	uint32_t last_rank, last_node, last_pid; /* who arrived last */
	uint64_t first_ns, second_ns, last_ns; /* arrivals: first, last but one, last */
	uint64_t done_ns;          /* the first completion seen (a synchronize's return), 0 none */
	uint64_t wait_ns;          /* the ranks' waits for the last, summed */
};
/* fn for each finished collective, by communicator then number; stops at
 * and returns fn's first nonzero result, else 0. */
int ilog_stats_collectives(struct ilog_stats *st,
			   int (*fn)(void *arg, const struct ilog_coll_row *c), void *arg);

/*
 * Training steps (lib/analyze/steps.c), found per process from its calls
 * alone: a marker op (a collective, else a graph launch, else the
 * dominant synchronize) and how many of its calls make one step (the
 * period of the segments between them); the rule in full in
 * lib/analyze/steps_int.h and ingero-correlate --help.  Valid after
 * ilog_stats_finish.
 */
enum ilog_step_rule { ILOG_STEP_COLLECTIVE = 1, ILOG_STEP_GRAPH, ILOG_STEP_SYNC };
/* "collective", "graph launch", "synchronize"; NULL for another value. */
const char *ilog_step_rule_name(int rule);

/* A process's steps. */
struct ilog_step_proc {
	uint32_t node, pid;
	const char *comm;          /* "" when unknown; valid until ilog_stats_free */
	uint16_t marker;           /* the op whose calls end a step */
	uint8_t marker_layer;
	uint8_t rule;              /* enum ilog_step_rule */
	uint32_t per_step;         /* marker calls per step */
	uint32_t nsteps;
	uint64_t first_ns, last_ns; /* the first step's start, the last one's end */
	uint64_t p50_ns, p90_ns, min_ns, max_ns, mean_ns; /* step durations (quantiles
				    * within 0.4%, as the statistics') */
	uint32_t nsites;           /* (op, call path) pairs of its steps */
};
/* Every process with steps, by node and pid; *out malloc'd.  Count, -1 OOM. */
int ilog_stats_step_procs(struct ilog_stats *st, struct ilog_step_proc **out);

/* One step of a process. */
struct ilog_step_row {
	uint32_t step;             /* 0, 1, ... in time order */
	uint64_t start_ns, end_ns; /* monotonic */
	uint64_t calls, cuda_ns;   /* its CUDA calls (the marker call that ends it
				    * included) and their time */
};
/* The steps of (node, pid); *out malloc'd.  Count (0: no steps), -1 OOM. */
int ilog_stats_steps(struct ilog_stats *st, uint32_t node, uint32_t pid,
		     struct ilog_step_row **out);
/* Step i of (node, pid) into *r; 0, or -1 when there is no such step. */
int ilog_stats_step(struct ilog_stats *st, uint32_t node, uint32_t pid, uint32_t i,
		    struct ilog_step_row *r);
/* The numbers of (node, pid)'s slowest steps, slowest first (ties: the
 * earlier), at most n (up to 16) into idx.  Count. */
uint32_t ilog_stats_step_slowest(struct ilog_stats *st, uint32_t node, uint32_t pid,
				 uint32_t *idx, uint32_t n);

/* One (op, call path) of a process's steps: its figures per step. */
struct ilog_step_site {
	uint32_t site;             /* its index: ilog_stats_step_ops' site */
	uint16_t op;
	uint8_t layer;
	uint64_t stack_id, pystack_id; /* the call path (0: none; ingero/callsite.h tells it) */
	uint32_t steps;            /* steps that called it */
	uint64_t calls, ns;        /* over every step */
	double calls_per_step, ns_per_step; /* means over all the process's steps */
};
/* The (op, call path) pairs of (node, pid)'s steps, most time per step
 * first; *out malloc'd.  Count, -1 OOM.  The per-step counts another
 * analysis needs (blocking copies per step, launches per step). */
int ilog_stats_step_sites(struct ilog_stats *st, uint32_t node, uint32_t pid,
			  struct ilog_step_site **out);

/* One (op, call path) entry of one step. */
struct ilog_step_op {
	uint32_t site;             /* index of ilog_stats_step_sites' row with that site */
	uint32_t calls;
	uint64_t ns;
};
/* What step i of (node, pid) called: *ops points into the statistics
 * (valid until ilog_stats_free).  Kept for the first 1,024 steps of a
 * process and the 16 slowest of the rest (memory does not grow with the
 * steps' calls); count, 0 for another step or none. */
uint32_t ilog_stats_step_ops(struct ilog_stats *st, uint32_t node, uint32_t pid, uint32_t i,
			     const struct ilog_step_op **ops);
/* The step of (node, pid) that holds monotonic time ts, or -1 (before the
 * first, after the last, no steps). */
int64_t ilog_stats_step_at(struct ilog_stats *st, uint32_t node, uint32_t pid, uint64_t ts);

/* "412 ms", "9.81 ms", "42.1 us", "1.24 s": three significant digits. Returns buf. */
char *ilog_fmt_dur(char *buf, size_t n, double ns);
/* "2026-11-26T20:44:33Z" (UTC) of a CLOCK_REALTIME ns, "unknown time" for 0.
 * Returns buf. */
char *ilog_fmt_wall(char *buf, size_t n, uint64_t real_ns);
/* "1.50 GiB", "12.0 MiB", "512 B" (binary units).  Returns buf. */
char *ilog_fmt_bytes(char *buf, size_t n, double bytes);

/* Wall time (CLOCK_REALTIME ns) of a monotonic ts on a node, 0 if unknown. */
uint64_t ilog_stats_wall(const struct ilog_stats *st, uint32_t node, uint64_t mono_ns);

/*
 * Launches per kernel (ingero-correlate --by kernel): cudaLaunchKernel,
 * cuLaunchKernel and cuLaunchKernelEx calls grouped by node and kernel
 * name (SPEC §5.18; "(unknown)" when no record names the kernel: a runtime
 * launch before ingero-symbolize ran, a driver handle made before the
 * recording).  Feed every record, in log order.
 */
struct ilog_kstats;
struct ilog_kstat_row {
	uint32_t node;
	const char *kernel;        /* valid until ilog_kstats_free */
	uint64_t launches, total_ns, p50_ns, p99_ns, max_ns; /* exact quantiles */
	uint64_t runtime, driver;  /* launches through each API */
};
struct ilog_kstats *ilog_kstats_new(void);      /* NULL out of memory */
int ilog_kstats_add(struct ilog_kstats *k, const struct ilog_record *rec); /* 0, -1 OOM */
/* Rows by node, then total time, largest first; *rows malloc'd.  Count, -1 OOM. */
int ilog_kstats_rows(struct ilog_kstats *k, struct ilog_kstat_row **rows);
void ilog_kstats_free(struct ilog_kstats *k);

#endif
