/* SPDX-License-Identifier: MIT */
/*
 * Internal: the ranks of a multi-rank job, matched by communicator
 * (lib/analyze/ranks.c), for the job detector (detect_ranks.c) and the
 * statistics that feed it (stats.c).  Not installed.
 *
 * A communicator is known by the hash of the ncclUniqueId its ranks passed
 * to ncclCommInitRank(Config) (SPEC §5.4, format 1.4), so it is the same on
 * every process and node; a communicator made by ncclCommSplit is known by
 * its parent's identity, the color and how many splits of the parent came
 * before it in that process (NCCL requires every rank to split in the same
 * order), its ranks ordered by (key, rank in the parent).  The n-th
 * collective a rank issues on a communicator is collective n of that
 * communicator on every rank (NCCL requires the same order everywhere).
 *
 * Per collective: each rank's arrival (entry into the call), and its
 * completion (the return of the first synchronize of that process, on the
 * collective's stream, the legacy default stream or the whole device,
 * after it).  Times are compared on the job's common timeline: wall time
 * from each node's first clock anchor (ingero-merge writes the aligned
 * ones), the node's monotonic time when it has none.
 *
 * Memory: the open collectives (not yet reached by every rank) with one
 * arrival per rank, and a fixed-size summary of each finished one.
 */
#ifndef ILOG_RANKS_INT_H
#define ILOG_RANKS_INT_H

#include <stdint.h>
#include "ingero/hmap.h"
#include "ingero/ilog.h"

/* One finished collective (every rank arrived). */
struct rk_coll {
	uint64_t seq;
	uint64_t first_t, second_t, last_t; /* arrivals: first, last but one, last */
	uint64_t last_mono;       /* the last rank's arrival, on its node's clock */
	uint64_t gap_mono;        /* its previous completion (or arrival) on that clock */
	uint64_t done_t;          /* the earliest completion seen, 0 = none */
	uint64_t wait;            /* sum over ranks of (last_t - arrival) */
	uint32_t last;            /* the rank that arrived last */
	uint16_t op;
};

/* Buckets of collectives (by number) a rank's lateness is drawn in. */
#define RK_LANE 64

/* A rank's process on a communicator. */
struct rk_member {
	uint32_t node, pid, tid;
	uint64_t handle;          /* the communicator pointer in that process */
	uint32_t comm;            /* index in ranks.comms */
	uint32_t rank;
	int64_t key;              /* ncclCommSplit's key (split communicators) */
	uint32_t prank;           /* rank in the parent (split communicators) */
	uint64_t nseq;            /* collectives issued: the next one's number */
	uint64_t done_seq;        /* collectives before it have completed */
	uint64_t splits;          /* ncclCommSplit calls on it so far */
	uint64_t stream;          /* stream of its latest collective */
	uint64_t prev_done_mono;  /* its latest completion, on its node's clock */
	uint64_t last_arr_mono;   /* its latest arrival, on its node's clock */
	int in_coll;              /* its latest collective is in flight (inflight / NO_RETURN) */
	uint64_t stuck_ns;        /* ... for this long when last written */
	int waiting;              /* a synchronize after it is in flight */
	uint64_t wait_ns;         /* ... for this long */
	uint16_t wait_op;
	uint64_t wait_ts;
	uint32_t next;             /* the process's next member + 1, 0 = none */
	/* its finished collectives (arrival lateness: after the first rank's) */
	uint64_t ncoll, nlast, late_sum, late_max, held;
	uint64_t first_t, last_t;  /* its first and latest arrival, common time */
	uint64_t lane[RK_LANE];    /* lateness summed per bucket of the communicator */
	uint32_t lane_n[RK_LANE];
};

/* A collective some ranks have reached and some not. */
struct rk_open {
	uint64_t seq;
	uint16_t op;
	uint32_t dtype;
	uint64_t count;
	uint32_t narr, first_rank;
	uint64_t *arr;            /* per rank: common time, 0 = not yet */
	uint64_t *mono, *gap;     /* per rank: arrival and previous completion, own clock */
	uint64_t *done;           /* per rank: completion, common time, 0 = none */
};

/* A mismatch: two ranks called different collectives at one number. */
struct rk_desync {
	uint64_t seq;
	uint32_t rank_a, rank_b;
	uint16_t op_a, op_b;
	uint64_t count_a, count_b;
	uint32_t dtype_a, dtype_b;
	uint64_t ts_mono;         /* rank_b's arrival, its node's clock */
	uint32_t node_b, pid_b;
};

struct rk_comm {
	uint64_t id;              /* identity hash */
	uint32_t nranks;          /* as the ranks declared it; 0 = split: counted */
	int split, bad;           /* bad: ranks disagree (nranks, a repeated rank) */
	uint32_t *members;        /* member index per rank, UINT32_MAX = none */
	uint32_t nmem, capmem;    /* members (split: in order of joining) */
	uint32_t *mem;            /* ... their indexes */
	struct rk_open *open;     /* open collectives, by seq from open_base */
	uint32_t nopen, capopen;
	uint64_t open_base;
	struct rk_coll *done;     /* finished collectives, by seq */
	uint32_t ndone, capdone;
	uint64_t lane_w;          /* collectives per lane bucket (doubles as they come) */
	struct rk_desync ds[8];
	uint32_t nds;
	uint64_t ndesync;
};

/* The last CUDA call of a process and its threads' host events since. */
struct rk_proc {
	uint32_t node, pid;
	uint16_t op;
	uint8_t flags;
	uint64_t ts, end, stack_id, pystack_id;
	uint16_t in_op;           /* a call in flight at the end (inflight / NO_RETURN) */
	uint64_t in_ts, in_dur, in_stack, in_pystack;
	uint64_t sw_n, sw_blocked, sw_ns; /* switches since the last call: all, blocked, off-CPU */
	uint64_t sw_last_ts;
	int64_t sw_last_state;
	uint32_t members;         /* its first member + 1, 0 = none */
	int dead;                 /* it exited */
	uint64_t exit_ts;
};

struct ranks {
	struct rk_comm *comms;
	uint32_t ncomms, capcomms;
	struct ilog_hmap commmap;     /* id -> comm index + 1 */
	struct rk_member *mem;
	uint32_t nmem, capmem;
	struct ilog_hmap memmap;      /* (node << 32 | pid, handle) -> member index + 1 */
	struct ilog_hmap rejmap;      /* ... of inits left out (warned about once) */
	struct rk_proc *procs;
	uint32_t nprocs, capprocs;
	struct ilog_hmap procmap;     /* (node, pid) -> proc index + 1 */
	uint32_t nodes_seen;          /* distinct nodes of members (2: use wall time) */
	uint32_t first_node;
	int multi;                    /* members on several nodes: reports name them */
	uint64_t orphan_calls;        /* collectives on a communicator with no init */
	uint64_t orphan_pid, orphan_handle;
	uint64_t noid_inits;          /* inits without an identity (logs before 1.4) */
	int oom;
	char warn[8][256];
	uint32_t nwarn;
	uint64_t warn_over;
};

/* The common time of a monotonic ts on a node (wall when its anchor is known). */
typedef uint64_t (*rk_clock_fn)(void *arg, uint32_t node, uint64_t mono);

/* The number of ranks c has now (a split one: its members so far). */
static inline uint32_t rk_comm_size(const struct rk_comm *c)
{
	return c->split ? c->nmem : c->nranks;
}

struct ranks *ilog_ranks_new(void);
/* A cuda, inflight or host record of node; 0, or -1 out of memory. */
int ilog_ranks_add(struct ranks *rk, uint32_t node, const struct ilog_record *rec,
		   rk_clock_fn clk, void *arg);
/* Finish every collective that all ranks reached; 0 or -1. */
int ilog_ranks_finish(struct ranks *rk);
void ilog_ranks_free(struct ranks *rk);
/* The process record of (node, pid), NULL when it made no CUDA call. */
const struct rk_proc *ilog_ranks_proc(const struct ranks *rk, uint32_t node, uint32_t pid);
/* Whether the op is a collective NCCL numbers on a communicator. */
int ilog_ranks_is_collective(uint16_t op);

#endif
