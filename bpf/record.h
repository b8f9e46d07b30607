/* SPDX-License-Identifier: MIT */
/*
 * Private contract between bpf/record.bpf.c and cmd/ingero-record: ring
 * buffer message framing, probe cookies, argument decoders and the
 * counter/aggregate maps.  None of this is in the log format; the log
 * records are the structs of ingero_events.h carried inside the messages.
 */
#ifndef INGERO_RECORD_H
#define INGERO_RECORD_H

#include "ingero_events.h"

/* Every ring buffer message starts with this; len includes it. */
struct rec_hdr {
	__u32 type;   /* enum rec_msg */
	__u32 len;
};

enum rec_msg {
	REC_MSG_CUDA = 1,   /* struct rec_cuda */
	REC_MSG_STACK = 2,  /* struct rec_stack, ips truncated to nr */
	REC_MSG_HOST = 3,   /* struct rec_host */
	REC_MSG_NOTE = 4,   /* struct rec_note: work for the recorder, not a log record */
	REC_MSG_PYSTACK = 5, /* struct rec_pystack (pywalk.h), frames truncated to nr */
	REC_MSG_USTACK = 6, /* struct rec_ustack, data truncated to size */
	REC_MSG_KNAME = 7,  /* struct rec_kname, name truncated to its NUL */
	REC_MSG_HOLD = 16,  /* struct rec_hold_msg: stopped at a new library (hold below) */
};

/*
 * A kernel function handle was made (SPEC §5.18): cuModuleGetFunction and
 * cuLibraryGetKernel give the name, cuKernelGetFunction the CUkernel the
 * function comes from (name empty: the recorder knows the kernel's).
 */
#define REC_KNAME_MAX 512
struct rec_kname {
	struct rec_hdr h;
	__u32 pid, _pad;
	__u64 handle, parent;
	char name[REC_KNAME_MAX];
};
#define REC_KNAME_HDR_LEN __builtin_offsetof(struct rec_kname, name)

struct rec_cuda {
	struct rec_hdr h;
	struct ingero_cuda_event ev;
	__u64 ukey;   /* --unwind: the call path's copy key (rec_ustack), 0 = none */
};

struct rec_stack {
	struct rec_hdr h;
	struct ingero_stack st;
};
#define REC_STACK_HDR_LEN (sizeof(struct rec_hdr) + 16)

/*
 * --unwind: where native stacks come from.  Frame pointers are walked in
 * the kernel for every call; code built without them (CPython, libffi,
 * most of PyTorch and cuBLAS) ends that walk early.  For those, the top of
 * the user stack is copied, once per distinct (stack, pystack) pair, and
 * the recorder unwinds it with the libraries' DWARF call-frame
 * information (.eh_frame), like `perf record --call-graph dwarf` but only
 * for new call paths.
 */
enum rec_unwind {
	REC_UNWIND_FP = 0,    /* frame pointers only */
	REC_UNWIND_AUTO = 1,  /* DWARF for calls with a Python stack */
	REC_UNWIND_DWARF = 2, /* DWARF for every call */
};

#define REC_USTACK_MAX 16384 /* bytes of stack copied from the stack pointer up */
#define REC_USTACK_PENDING 8 /* outer traced calls whose return addresses travel along */

/* Registers at the return of the traced call, in the caller. */
enum rec_ureg { REC_UREG_IP, REC_UREG_SP, REC_UREG_BP, REC_UREG_BX, REC_UREG_R12,
		REC_UREG_R13, REC_UREG_R14, REC_UREG_R15, REC_UREG__COUNT };

/*
 * A copy is taken once per key: (pid, pystack, traced function, return
 * address in its caller).  Not the frame-pointer stack's id: past the first
 * function without frame pointers that walk reads whatever rbp held, which
 * can differ on every call.  The Python stack (code object and instruction
 * of every frame) and the immediate caller pin the path; two paths that
 * differ only in native frames between them share the first one's copy.
 */
struct rec_ustack {
	struct rec_hdr h;
	__u64 key;
	__u64 entry_ip;    /* the traced function (ips[0] of the stack) */
	__u64 regs[REC_UREG__COUNT];
	__u32 pid, tid;
	__u32 size;        /* bytes of data, from regs[REC_UREG_SP] up */
	/* Outer traced calls still running (a runtime call inside which the
	 * driver call returned): their return addresses on the stack are the
	 * uretprobe trampoline's now; the kernel keeps the real ones.  slot:
	 * the stack address, ret: what it held. */
	__u32 npend;
	__u64 pend_slot[REC_USTACK_PENDING], pend_ret[REC_USTACK_PENDING];
	__u8 data[REC_USTACK_MAX];
};
#define REC_USTACK_HDR_LEN __builtin_offsetof(struct rec_ustack, data)

struct rec_host {
	struct rec_hdr h;
	struct ingero_host_event ev;
	/* the cgroup id of other_pid (a preempter's, a waker's) when the
	 * kernel knew it, 0 otherwise: the recorder names a culprit's cgroup
	 * with it once the process is gone (not a log field) */
	__u64 other_cgroup_id;
	/* a wakeup's occupant (its value: the process whose task the woken
	 * thread took the CPU from): its cgroup id and name, for the same
	 * process record; zero for other types (not log fields) */
	__u64 occ_cgroup_id;
	char occ_comm[INGERO_COMM_LEN];
};

enum rec_note_what {
	REC_NOTE_NEW_TARGET = 1, /* first traced call of a process: write its records */
	REC_NOTE_DLOPEN = 2,     /* ld.so changed the link map: rescan its mappings */
	REC_NOTE_HELD = 3,       /* ... and the process is stopped: rescan, then SIGCONT */
};

struct rec_note {
	struct rec_hdr h;
	__u32 what;    /* enum rec_note_what */
	__u32 pid;
	__u64 ts_ns;
};

/* Ring buffers, also the index of struct rec_rb_stat. */
enum rec_ring { REC_RB_CUDA = 0, REC_RB_HOST = 1, REC_RB_CRIT = 2, REC_RB_USTACK = 3,
		REC_RB__COUNT };

/*
 * A probe's attach cookie says how to decode its call:
 *   bits 32-47 op (enum ilog_op, or a named op: --api), 8-15 decoder
 *   (enum rec_dec), 16-19 layer, 20-23 fixed memcpy kind + 1 (0: none),
 *   bit 24 sampling may skip it.
 */
#define REC_COOKIE(op, dec, layer, kind1, sampleable) \
	(((__u64)(op) << 32) | ((__u64)(dec) << 8) | ((__u64)(layer) << 16) | \
	 ((__u64)(kind1) << 20) | ((__u64)(sampleable) << 24))
#define REC_COOKIE_OP(c) (((c) >> 32) & 0xffff)
#define REC_COOKIE_DEC(c) (((c) >> 8) & 0xff)
#define REC_COOKIE_LAYER(c) (((c) >> 16) & 0xf)
#define REC_COOKIE_KIND1(c) (((c) >> 20) & 0xf)
#define REC_COOKIE_SAMPLEABLE(c) (((c) >> 24) & 1)
/* the ld.so link-map hook, not a CUDA call */
#define REC_COOKIE_DLHOOK 0xffffffffull

/*
 * Argument decoders: which registers / stack slots (x86-64 SysV) hold the
 * fields of struct ingero_cuda_event for a function's signature.
 * "out" means a pointer argument the call writes a handle through; the
 * handle is read at return.
 */
enum rec_dec {
	REC_DEC_NONE = 0,
	REC_DEC_ALLOC,         /* (void **out, size_t bytes) */
	REC_DEC_ALLOC_FLAGS,   /* (void **out, size_t bytes, unsigned flags) */
	REC_DEC_HANDLE,        /* (handle, ...) */
	REC_DEC_RT_LAUNCH,     /* (func, dim3 grid, dim3 block, args, shared, stream) */
	REC_DEC_RT_MEMCPY,     /* (dst, src, count, kind[, stream]) */
	REC_DEC_RT_MEMSET,     /* (dst, value, count[, stream]) */
	REC_DEC_STREAM,        /* (stream) */
	REC_DEC_BEGIN_CAPTURE, /* (stream, mode) */
	REC_DEC_END_CAPTURE,   /* (stream, cudaGraph_t *out) */
	REC_DEC_INSTANTIATE,   /* (exec *out, graph, flags) */
	REC_DEC_GRAPH_LAUNCH,  /* (exec, stream) */
	REC_DEC_CU_LAUNCH,     /* (f, gx, gy, gz, bx, by, bz, shared, stream, ...) */
	REC_DEC_CU_LAUNCH_EX,  /* (const CUlaunchConfig *, f, ...) */
	REC_DEC_CU_MEMCPY,     /* (dst, src, bytes[, stream]), kind from the cookie */
	REC_DEC_NCCL_COLL,     /* (send, recv, count, dtype, op|root, comm, stream) */
	REC_DEC_NCCL_GATHER,   /* (send, recv, count, dtype, comm, stream) */
	REC_DEC_NCCL_P2P,      /* (buf, count, dtype, peer|root, comm, stream): also ncclBcast */
	REC_DEC_NCCL_INIT,     /* (comm *out, nranks, ncclUniqueId by value, rank[, config]) */
	REC_DEC_RAW,           /* --api: the first four integer arguments, undecoded */
	REC_DEC_GETFUNC,       /* (handle *out, module or library, const char *name) */
	REC_DEC_KERNFUNC,      /* (CUfunction *out, CUkernel) */
	REC_DEC_NCCL_REDUCE,   /* (send, recv, count, dtype, op, root, comm, stream) */
	REC_DEC_NCCL_INITALL,  /* (comm *out (an array), ndev, devlist) */
	REC_DEC_NCCL_SPLIT,    /* (comm, color, key, comm *out, config) */
	REC_DEC_HOST_REG,      /* (ptr, bytes, flags): cudaHostRegister, cuMemHostRegister */
	REC_DEC_ALLOC_STREAM,  /* (void **out, size_t bytes, stream) */
	REC_DEC_ALLOC_POOL,    /* (void **out, size_t bytes, pool, stream) */
	REC_DEC_HANDLE_STREAM, /* (handle, stream): the stream-ordered frees */
	REC_DEC__COUNT
};

/* Op numbers the recorder gives probes: the table and named ops (--api)
 * from ILOG_OP_NAMED_FIRST up; the size of the per-op statistics. */
#define REC_MAX_OPS 4096

/* Per op, per CPU: calls seen at entry, not recorded, skipped by sampling. */
struct rec_op_stat {
	__u64 calls, lost, sampled, orphan_returns;
	__u64 timed_ts; /* --launch-timing: when a launch was last timed (not a count) */
};
/* --launch-timing also times a launch when none of its op was timed on its
 * CPU for this long, so a slow launcher's every second has timed launches */
#define REC_LAUNCH_TIMED_NS (100 * 1000000ull)

/* Per ring, per CPU: messages submitted and reserve/output failures. */
struct rec_rb_stat {
	__u64 sent, lost;
};

/* Per host event type, per CPU. */
struct rec_host_stat {
	__u64 seen, lost;
};

/* Per CPU: stack records. */
struct rec_stack_stat {
	__u64 sent, lost, failed; /* failed: bpf_get_stack returned nothing */
	__u64 copies, copies_lost; /* --unwind stack copies */
};

/* Per process window aggregates, drained by the recorder each window. */
struct rec_sched_agg {
	__u64 switches;  /* switch-outs not written as `switch` events */
	char comm[INGERO_COMM_LEN];
	__u64 iowait_ns; /* off CPU blocked on I/O (task->in_iowait), all threads */
	__u64 iowaits;   /* how many such switch-outs ended in the window */
	/* its calling threads (those with an `inflight` entry) blocked between
	 * their calls, not on I/O, by enum ilog_wait_class: ns and how many
	 * such waits ended in the window */
	__u64 wait_ns[ILOG_WAIT__COUNT];
	__u64 waits[ILOG_WAIT__COUNT];
};

struct rec_page_agg {
	__u64 calls, pages;
	__u64 cgroup_id;
	char comm[INGERO_COMM_LEN];
};

/* Block requests completed in the window, per (device, issuing process). */
struct rec_blk_key {
	__u32 dev;       /* major << 20 | minor, as the kernel's dev_t */
	__u32 pid;       /* tgid of the task that started the request */
};

struct rec_blk_agg {
	__u64 ios, bytes, read_ios, read_bytes;
	__u64 lat_sum_ns, lat_max_ns;
	__u64 cgroup_id;
	char comm[INGERO_COMM_LEN];
	__u64 hist[INGERO_BLK_HBUCKETS];
};

/*
 * The network (net.bpf.h).  flow_agg: TCP retransmissions per flow in
 * the window; sock_owner: the process that last used a socket (key: the
 * struct sock address), since retransmissions are sent from timers and
 * softirqs that run in whatever task; sock_agg: socket volume per process.
 */
struct rec_flow_key {
	__u8 saddr[16], daddr[16]; /* network order; IPv4: the first 4 bytes */
	__u16 sport, dport;        /* host order */
	__u8 family;               /* 4 or 6 */
	__u8 _pad[3];
};

struct rec_flow_agg {
	__u64 count;
	__u64 cgroup_id;
	__u32 pid;                 /* owner, 0 = not known */
	__u32 state;               /* TCP state at the last retransmission */
	char comm[INGERO_COMM_LEN];
};

struct rec_sock_owner {
	__u64 cgroup_id;
	__u32 pid;
	__u32 _pad;
	char comm[INGERO_COMM_LEN];
};

struct rec_sock_agg {
	__u64 tx_bytes, rx_bytes, tx_calls, rx_calls;
	__u64 cgroup_id;
	char comm[INGERO_COMM_LEN];
};

/* map net_stats (array of __u64, cumulative): what the tables had no room for */
enum rec_net_stat {
	REC_NET_RETRANS_FULL = 0, /* retransmissions of flows flow_agg could not hold */
	REC_NET_SOCK_FULL = 1,    /* socket calls of processes sock_agg could not hold */
	REC_NET__COUNT
};

/* Target set entry (key: tgid). */
struct rec_target {
	__u32 flags;
	__u32 _pad;
};
#define REC_TARGET_NOTED 1 /* the recorder was told about it */

/* --target modes */
enum rec_mode { REC_MODE_ALL = 0, REC_MODE_UID = 1, REC_MODE_PIDS = 2 };

/* Frame pointers farther than this above the stack pointer are not
 * followed (thread stacks are 8 MiB by default). */
#define REC_STACK_SPAN (64ull << 20)
/* Bytes above the stack pointer emit_stack() reads in one go (a power of 2). */
#define REC_STACK_WIN 1024

#define REC_MAX_DEPTH 4 /* nested traced calls per thread (runtime -> driver) */

/* A traced call in progress: entry time and decoded arguments. */
struct rec_frame {
	__u64 ts;
	__u64 cookie;
	__u64 ip;        /* the function's entry address */
	__u64 out;       /* user pointer the call writes its handle through */
	__u64 stream, bytes, handle;
	union {
		struct { __u32 grid[3], block[3]; };
		__u64 args[3]; /* NCCL ops, which have no grid: their args (SPEC §5.4) */
	};
	/* calls that may block (NCCL, synchronizes) take their stacks at
	 * entry, so that they are known while the call runs (inflight) */
	__u64 stack_id, pystack_id;
	__u32 kind;
	__u16 skip;      /* sampled out: keep the pairing, emit nothing */
	__u16 estack;    /* stack_id and pystack_id were taken at entry */
};

/*
 * The args of a call's record (SPEC §5.4) from its frame, for the return
 * (BPF) and for the calls written in flight or at stop (the recorder):
 * a named op's four raw arguments (kept in handle, bytes, stream and
 * grid), an NCCL op's decoded ones.  Their count; 0 for other ops.
 */
static inline __attribute__((always_inline)) __u32 rec_frame_args(const struct rec_frame *f,
								   __u64 *args)
{
	switch (REC_COOKIE_DEC(f->cookie)) {
	case REC_DEC_RAW:
		args[0] = f->handle;
		args[1] = f->bytes;
		args[2] = f->stream;
		args[3] = (__u64)f->grid[0] | ((__u64)f->grid[1] << 32);
		return 4;
	case REC_DEC_NCCL_INIT: /* [id_hash]; 0: the id could not be read */
		args[0] = f->args[0];
		return f->args[0] ? 1 : 0;
	case REC_DEC_NCCL_COLL: /* [redop] or [root] */
	case REC_DEC_NCCL_P2P:  /* [peer] or [root] */
		args[0] = f->args[0];
		return 1;
	case REC_DEC_NCCL_REDUCE: /* [redop, root] */
		args[0] = f->args[0];
		args[1] = f->args[1];
		return 2;
	case REC_DEC_NCCL_SPLIT: /* [parent, color, key] */
		args[0] = f->args[0];
		args[1] = f->args[1];
		args[2] = f->args[2];
		return 3;
	case REC_DEC_RT_MEMCPY: /* [src] (1.5) */
	case REC_DEC_CU_MEMCPY:
		args[0] = f->args[0];
		return 1;
	}
	return 0;
}

/* Decoders whose frames keep args where the grid and block would be. */
static inline __attribute__((always_inline)) int rec_dec_has_args(__u32 dec)
{
	return dec == REC_DEC_NCCL_INIT || dec == REC_DEC_NCCL_COLL || dec == REC_DEC_NCCL_P2P ||
	       dec == REC_DEC_NCCL_REDUCE || dec == REC_DEC_NCCL_SPLIT || dec == REC_DEC_RT_MEMCPY ||
	       dec == REC_DEC_CU_MEMCPY;
}

/* The calls in progress on one thread (map `inflight`, key: tid). */
struct rec_inflight {
	__u32 depth;
	__u32 tgid;
	struct rec_frame f[REC_MAX_DEPTH];
	/* py_gen + 1 when the thread's process had no interpreter for the
	 * walker at that generation (0: not known): its calls skip the look */
	__u32 py_none;
	__u32 _pad;
};

/*
 * Holding a process that maps a CUDA library file no probe is attached to
 * yet (system-wide modes): the kernel stops it as its mmap() returns, the
 * recorder attaches to the file and resumes it, so the library's first
 * call is traced.  A watchdog process resumes it instead when the recorder
 * takes longer than --hold-max or dies.
 */
struct rec_file_key {   /* map lib_files: files the recorder has attached */
	__u64 dev;      /* the kernel's s_dev (MAJOR << 20 | MINOR) */
	__u64 ino;
};

struct rec_hold_ent {   /* map holds, key: tgid */
	__u64 ts_ns;    /* CLOCK_MONOTONIC when stopped */
	struct rec_file_key file;
};

struct rec_hold_msg {
	struct rec_hdr h;
	__u32 pid;
	__u32 _pad;
	struct rec_file_key file;
};

/* map hold_stats (array of __u64): */
enum rec_hold_stat {
	REC_HOLD_HELD = 0,     /* processes stopped (BPF) */
	REC_HOLD_EXPIRED = 1,  /* resumed by the watchdog, not the recorder */
	REC_HOLD_MISSED = 2,   /* could not be stopped: map or ring full (BPF) */
	REC_HOLD_OFF = 3,      /* non-zero once the watchdog found the recorder gone:
				* nothing is stopped after (BPF reads it) */
	REC_HOLD__COUNT
};

#endif /* INGERO_RECORD_H */
