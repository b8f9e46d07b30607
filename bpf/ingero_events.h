/* SPDX-License-Identifier: MIT */
/*
 * The one definition of every fixed-size event that crosses the BPF ring
 * buffers, and of the record kinds, layers, ops and host-event types that
 * the log format (format/SPEC.md) numbers.  Included by the bpf/ programs (after
 * vmlinux.h) and by user space (lib/include/ingero/ilog.h).  Numbers are a wire contract:
 * append only, never renumber, never reuse a retired value.
 */
#ifndef INGERO_EVENTS_H
#define INGERO_EVENTS_H

#ifndef __VMLINUX_H__
#include <linux/types.h>
#endif

#define INGERO_COMM_LEN 16
/* The task name of ingero-record's watchdog, its second process
 * (cmd/ingero-record/hold.c): analysis counts its CPU time as the
 * recorder's own, never as a culprit's. */
#define INGERO_WATCHDOG_COMM "ingero-watchdog"
#define INGERO_MAX_STACK 127   /* kernel perf_event_max_stack default */
#define INGERO_MAX_PYFRAMES 32

/* Record kinds (SPEC §5).  Small numbers for hot kinds. */
enum ilog_kind {
	ILOG_K_HEADER = 1,
	ILOG_K_CLOCK = 2,
	ILOG_K_SCHEMA = 3,
	ILOG_K_CUDA = 4,
	ILOG_K_HOST = 5,
	ILOG_K_STACK = 6,
	ILOG_K_PYSTACK = 7,
	ILOG_K_PROCESS = 8,
	ILOG_K_MAPPING = 9,
	ILOG_K_PYCODE = 10,
	ILOG_K_SNAPSHOT = 11,
	ILOG_K_LOSS = 12,
	ILOG_K_SYMBOL = 13,
	ILOG_K_CHAIN = 14,
	ILOG_K_PROVENANCE = 15,
	ILOG_K_NODE = 16,
	ILOG_K_OPNAME = 17,
	ILOG_K_KERNEL = 18,
	ILOG_K_BLKIO = 19,
	ILOG_K_RETRANS = 20,  /* TCP retransmissions of a flow in a window (1.3) */
	ILOG_K_SOCKIO = 21,   /* a process's socket volume in a window (1.3) */
	ILOG_K_INFLIGHT = 22, /* a call still in progress when written (1.4) */
	ILOG_K_TRIGGER = 23,  /* what made a flight recorder write its window (1.5) */
	ILOG_K__COUNT
};

/* Which API layer a CUDA event came from (SPEC §5.4). */
enum ilog_layer {
	ILOG_LAYER_RUNTIME = 0,
	ILOG_LAYER_DRIVER = 1,
	ILOG_LAYER_GRAPH = 2,
	ILOG_LAYER_NCCL = 3,
	ILOG_LAYER__COUNT
};

/*
 * Traced API functions.  The meaning of the generic argument fields
 * (bytes, kind, handle, grid/block) per op is in SPEC §5.4.
 */
enum ilog_op {
	ILOG_OP_UNKNOWN = 0,
	/* runtime */
	ILOG_OP_cudaMalloc = 1,
	ILOG_OP_cudaMallocManaged = 2,
	ILOG_OP_cudaMallocHost = 3,
	ILOG_OP_cudaFree = 4,
	ILOG_OP_cudaFreeHost = 5,
	ILOG_OP_cudaLaunchKernel = 6,
	ILOG_OP_cudaMemcpy = 7,
	ILOG_OP_cudaMemcpyAsync = 8,
	ILOG_OP_cudaMemset = 9,
	ILOG_OP_cudaMemsetAsync = 10,
	ILOG_OP_cudaStreamSynchronize = 11,
	ILOG_OP_cudaDeviceSynchronize = 12,
	ILOG_OP_cudaEventSynchronize = 13,
	/* graph */
	ILOG_OP_cudaStreamBeginCapture = 14,
	ILOG_OP_cudaStreamEndCapture = 15,
	ILOG_OP_cudaGraphInstantiate = 16,
	ILOG_OP_cudaGraphInstantiateWithFlags = 17,
	ILOG_OP_cudaGraphLaunch = 18,
	/* driver */
	ILOG_OP_cuLaunchKernel = 19,
	ILOG_OP_cuLaunchKernelEx = 20,
	ILOG_OP_cuMemAlloc = 21,
	ILOG_OP_cuMemFree = 22,
	ILOG_OP_cuMemcpy = 23,
	ILOG_OP_cuMemcpyAsync = 24,
	ILOG_OP_cuMemcpyHtoD = 25,
	ILOG_OP_cuMemcpyDtoH = 26,
	ILOG_OP_cuMemcpyDtoD = 27,
	ILOG_OP_cuMemcpyHtoDAsync = 28,
	ILOG_OP_cuMemcpyDtoHAsync = 29,
	ILOG_OP_cuCtxSynchronize = 30,
	ILOG_OP_cuStreamSynchronize = 31,
	/* nccl */
	ILOG_OP_ncclAllReduce = 32,
	ILOG_OP_ncclAllGather = 33,
	ILOG_OP_ncclReduceScatter = 34,
	ILOG_OP_ncclBroadcast = 35,
	ILOG_OP_ncclSend = 36,
	ILOG_OP_ncclRecv = 37,
	ILOG_OP_ncclCommInitRank = 38,
	ILOG_OP_ncclCommDestroy = 39,
	/* driver: the calls that make kernel function handles (SPEC §5.18) */
	ILOG_OP_cuModuleGetFunction = 40,
	ILOG_OP_cuLibraryGetKernel = 41,
	ILOG_OP_cuKernelGetFunction = 42,
	/* nccl (1.4): the rest of the collectives, groups, communicators */
	ILOG_OP_ncclReduce = 43,
	ILOG_OP_ncclBcast = 44,
	ILOG_OP_ncclGroupStart = 45,
	ILOG_OP_ncclGroupEnd = 46,
	ILOG_OP_ncclCommInitRankConfig = 47,
	ILOG_OP_ncclCommInitAll = 48,
	ILOG_OP_ncclCommSplit = 49,
	/* 1.5: pinned host memory, stream-ordered and pool allocations */
	ILOG_OP_cudaHostAlloc = 50,
	ILOG_OP_cudaHostRegister = 51,
	ILOG_OP_cudaHostUnregister = 52,
	ILOG_OP_cuMemHostAlloc = 53,
	ILOG_OP_cuMemAllocHost = 54,
	ILOG_OP_cuMemHostRegister = 55,
	ILOG_OP_cuMemHostUnregister = 56,
	ILOG_OP_cuMemFreeHost = 57,
	ILOG_OP_cudaMallocAsync = 58,
	ILOG_OP_cudaFreeAsync = 59,
	ILOG_OP_cuMemAllocAsync = 60,
	ILOG_OP_cuMemFreeAsync = 61,
	ILOG_OP_cudaMallocFromPoolAsync = 62,
	ILOG_OP_cuMemAllocFromPoolAsync = 63,
	ILOG_OP__COUNT
};

/*
 * Named ops (SPEC §5.17): `--api` times functions outside the table above.
 * A log numbers them itself, from ILOG_OP_NAMED_FIRST up, and names each
 * number once with an `opname` record before its first call; their
 * records carry raw arguments (`args`) instead of decoded ones.
 */
#define ILOG_OP_NAMED_FIRST 256
#define ILOG_OP_MAX 65536        /* op is a u16 */
#define ILOG_CUDA_MAX_ARGS 4     /* a named op's raw arguments; an NCCL op's decoded ones */

/* Host event types (SPEC §5.5). */
enum ilog_host_type {
	ILOG_HOST_SWITCH = 1,     /* a target thread was switched out and back in */
	ILOG_HOST_SCHED_AGG = 2,  /* per-pid window aggregate of other switches */
	ILOG_HOST_WAKEUP = 3,
	ILOG_HOST_PAGE_ALLOC = 4, /* per-pid window aggregate of mm_page_alloc */
	ILOG_HOST_OOM = 5,
	ILOG_HOST_FORK = 6,
	ILOG_HOST_EXEC = 7,
	ILOG_HOST_EXIT = 8,
	ILOG_HOST_PAGE_ALLOC_REST = 9, /* window sum of mm_page_alloc of processes not listed */
	ILOG_HOST_RECLAIM = 10,   /* a direct (or cgroup) reclaim stall of a task */
	ILOG_HOST_COMPACT = 11,   /* a direct compaction stall of a task */
	ILOG_HOST_IOWAIT = 12,    /* per-target window sum of time blocked on I/O */
	ILOG_HOST_CPU_QUOTA = 13, /* the CPU quota of a target's cgroup (recorder) */
	ILOG_HOST_CPU_THROTTLE = 14, /* that cgroup's throttling in a window (recorder) */
	ILOG_HOST_WAIT = 15,      /* per-target window sum of time blocked between calls, by class */
	ILOG_HOST_OOM_MEMCG = 16, /* the memory cgroup whose limit an OOM kill enforced */
	ILOG_HOST__COUNT
};

/*
 * What a target's calling thread was blocked in between its CUDA calls
 * (SPEC §5.5 `wait`, 1.6): the class of the system call it slept in, from
 * the call's number, or `kernel` for an uninterruptible sleep that is not
 * I/O (a kernel lock, a page fault).  The recorder classifies; readers
 * take the class as written.
 */
enum ilog_wait_class {
	ILOG_WAIT_OTHER = 0,  /* another system call, or none */
	ILOG_WAIT_LOCK = 1,   /* futex: a mutex, condition variable, queue */
	ILOG_WAIT_POLL = 2,   /* poll, select, epoll: waiting on descriptors */
	ILOG_WAIT_READ = 3,   /* read, recv: a pipe, socket or terminal empty */
	ILOG_WAIT_WRITE = 4,  /* write, send: a pipe or socket full */
	ILOG_WAIT_CHILD = 5,  /* wait4, waitid: a child process */
	ILOG_WAIT_SLEEP = 6,  /* nanosleep, pause, sigsuspend: asked to */
	ILOG_WAIT_KERNEL = 7, /* uninterruptible, not on I/O */
	ILOG_WAIT__COUNT
};

/* struct ingero_cuda_event.flags */
#define ILOG_CUDA_F_NO_RETURN 0x01 /* return never observed (process died) */
#define ILOG_CUDA_F_SAMPLED   0x02 /* one of N under --sampling-rate */
#define ILOG_CUDA_F_UNTIMED   0x04 /* recorded at entry, no return probe: dur_ns, ret 0 */

/* One CUDA runtime/driver/graph/NCCL call: entry time, duration, args. */
struct ingero_cuda_event {
	__u64 ts_ns;      /* CLOCK_MONOTONIC at entry */
	__u64 dur_ns;     /* entry to return */
	__u32 pid;        /* tgid */
	__u32 tid;
	__u16 op;         /* enum ilog_op */
	__u8 layer;       /* enum ilog_layer */
	__u8 flags;       /* ILOG_CUDA_F_* */
	__s32 ret;        /* cudaError_t / CUresult / ncclResult_t */
	__u64 stream;     /* cudaStream_t / CUstream, 0 = legacy default */
	__u64 bytes;      /* size, byte count or element count */
	__u64 handle;     /* device pointer, function, graph exec, comm */
	__u32 kind;       /* memcpy kind, datatype, capture mode, flags */
	__u32 grid_x, grid_y, grid_z;
	__u32 block_x, block_y, block_z;
	__u32 nargs;      /* args in use: named ops, NCCL ops (1.4; SPEC §5.4), else 0 */
	__u64 stack_id;   /* 0 = none */
	__u64 pystack_id; /* 0 = none */
	__u64 args[ILOG_CUDA_MAX_ARGS]; /* a named op's first integer arguments, raw;
					  * an NCCL op's id hash, redop, root, peer... */
};
_Static_assert(sizeof(struct ingero_cuda_event) == 136, "cuda event layout");

/* A scheduler, memory or process-lifecycle event (SPEC §5.5). */
struct ingero_host_event {
	__u64 ts_ns;      /* CLOCK_MONOTONIC */
	__u64 dur_ns;     /* off-CPU time / window length */
	__u64 value;      /* count, pages, exit code, ... */
	__u32 pid;
	__u32 tid;
	__u32 other_pid;  /* preempter, child, killer, ... */
	__u32 other_tid;
	__u32 cpu;
	__u16 type;       /* enum ilog_host_type */
	__u16 _pad;
	char comm[INGERO_COMM_LEN];
	char other_comm[INGERO_COMM_LEN];
	__u64 cgroup_id;  /* cgroup of pid (SPEC §5.5), 0 = not known; since 1.2 */
};
_Static_assert(sizeof(struct ingero_host_event) == 88, "host event layout");

/*
 * Block I/O latency histogram (SPEC §5.19): bucket b counts requests whose
 * issue-to-completion time t has floor(log2(t ns)) - 10 == b, i.e. t in
 * [2^(b+10), 2^(b+11)) ns; bucket 0 also holds t < 1024 ns, the last one
 * everything from 2^(INGERO_BLK_HBUCKETS+9) ns (about 8.6 s) up.
 */
#define INGERO_BLK_HBUCKETS 24
#define INGERO_BLK_HSHIFT 10

/* A deduplicated user stack (SPEC §5.6). */
struct ingero_stack {
	__u64 id;
	__u32 pid;
	__u32 nr;
	__u64 ips[INGERO_MAX_STACK];
};

struct ingero_pyframe {
	__u64 code;  /* address of the PyCodeObject in the process */
	__u32 lasti; /* instruction offset in code units */
	__u32 _pad;
};

/* A Python stack: code objects and instruction offsets (SPEC §5.7). */
struct ingero_pystack {
	__u64 id;
	__u32 pid;
	__u32 nr;
	/* bit i: frames[i] is the outermost Python frame its C call of the
	 * eval loop runs (entered from C); 0 = not known (SPEC §5.7) */
	__u64 entry;
	struct ingero_pyframe frames[INGERO_MAX_PYFRAMES];
};

#endif /* INGERO_EVENTS_H */
