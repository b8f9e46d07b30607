// SPDX-License-Identifier: MIT
/*
 * ingero-record's kernel half: CUDA/driver/graph/NCCL uprobes paired with
 * uretprobes (durations and arguments computed here), scheduler, memory
 * and process-lifecycle raw tracepoints, and the target-process set; the
 * whole host (every process's page allocations, reclaim and compaction
 * stalls, cgroups) in host.bpf.h, the network in net.bpf.h.
 *
 * Only raw tracepoints and uprobes are used: they need neither kprobes
 * nor tracefs, and raw tracepoints read their arguments with CO-RE (the
 * network's hot socket calls use BTF-typed raw tracepoints, tp_btf, whose
 * arguments are read directly).
 * CUDA events go to the `cuda` ring without waking the reader (it drains
 * on a short timer: a wakeup per event costs more than the event), host
 * events to `host`, and the few events that must never be lost (fork,
 * exec, exit, OOM, notes) to `crit`, which wakes the reader.
 */
#include "vmlinux.h"
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_tracing.h>
#include <bpf/bpf_core_read.h>
#include "record.h"

char LICENSE[] SEC("license") = "Dual MIT/GPL";

const volatile __u32 targ_mode = REC_MODE_ALL;
const volatile __u32 targ_uid = 0;
const volatile bool targ_stacks = true;
const volatile __u64 targ_wakeup_min_ns = 50000;
/* benchmark floor: the CUDA probes fire and return at once (bench/record) */
const volatile bool targ_empty = false;
const volatile __u32 targ_unwind = REC_UNWIND_AUTO;
/* 1 = every call; N = one in N of the sampleable ops.  Written by the
 * recorder while running (adaptive sampling), hence .bss not .rodata. */
__u32 sample_every = 1;
/* --launch-timing: one kernel launch in N is timed (entry and return); the
 * others are recorded at entry with no return probe (session programs
 * only: a pair traps at the return anyway).  1 = every launch timed. */
const volatile __u32 targ_launch_every = 1;

struct {
	__uint(type, BPF_MAP_TYPE_RINGBUF);
	__uint(max_entries, 8 << 20);
} cuda_rb SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_RINGBUF);
	__uint(max_entries, 1 << 20);
} host_rb SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_RINGBUF);
	__uint(max_entries, 256 << 10);
} crit_rb SEC(".maps");

/* --unwind stack copies: a ring of their own, so a burst of new call paths
 * (a job's first steps) can lose copies but never CUDA events */
struct {
	__uint(type, BPF_MAP_TYPE_RINGBUF);
	__uint(max_entries, 4 << 20);
} ustack_rb SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, 8192);
	__type(key, __u32);
	__type(value, struct rec_target);
} targets SEC(".maps");

/*
 * Processes the recorder started itself (ingero-record -- COMMAND) and
 * their children: stopped at each change of their link map until the
 * recorder has attached to what was loaded, so no call of a library loaded
 * a moment before is missed.
 */
struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, 1024);
	__type(key, __u32);
	__type(value, __u8);
} hold SEC(".maps");

/*
 * The processes stopped by us, whichever the reason (a COMMAND's library
 * load above, a new CUDA library file system-wide below), with when: the
 * recorder deletes an entry and resumes its process once it has attached
 * to what was mapped; the watchdog resumes those older than --hold-max,
 * and all of them when the recorder dies.  Whoever deletes the entry
 * resumes the process.  targ_watch: a watchdog runs (entries are made).
 */
const volatile bool targ_watch = false;

struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, 1024);
	__type(key, __u32);
	__type(value, struct rec_hold_ent);
} holds SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, REC_HOLD__COUNT);
	__type(key, __u32);
	__type(value, __u64);
} hold_stats SEC(".maps");

static __always_inline void hold_count(__u32 what)
{
	__u64 *v = bpf_map_lookup_elem(&hold_stats, &what);
	if (v)
		__sync_fetch_and_add(v, 1);
}

/* The watchdog found the recorder gone: a process stopped now would be
 * resumed by nobody once the watchdog is gone too, and a dying recorder's
 * probes stay in for seconds on a loaded host. */
static __always_inline bool hold_off(void)
{
	__u32 k = REC_HOLD_OFF;
	__u64 *v = bpf_map_lookup_elem(&hold_stats, &k);
	return v && *v;
}

struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, 65536);
	__type(key, __u32);           /* tid */
	__type(value, struct rec_inflight);
} inflight SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct rec_inflight);
} inflight_zero SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, REC_MAX_OPS);
	__type(key, __u32);
	__type(value, struct rec_op_stat);
} op_stats SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, REC_RB__COUNT);
	__type(key, __u32);
	__type(value, struct rec_rb_stat);
} rb_stats SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, ILOG_HOST__COUNT);
	__type(key, __u32);
	__type(value, struct rec_host_stat);
} host_stats SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct rec_stack_stat);
} stack_stats SEC(".maps");

/* Stack scratch: too big for the BPF stack. */
struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct rec_stack);
} stack_buf SEC(".maps");

/* The top of the user stack, read at once by emit_stack(). */
struct rec_stack_win {
	__u64 b[REC_STACK_WIN / 8];
	__u32 frames;   /* frames the kernel may walk */
	__u32 have_win; /* b holds the bytes from sp up */
	__u64 sp, fp, prev;
};

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct rec_stack_win);
} stack_win SEC(".maps");

/* Stack ids already sent; an evicted id is sent again (same content). */
struct {
	__uint(type, BPF_MAP_TYPE_LRU_HASH);
	__uint(max_entries, 65536);
	__type(key, __u64);
	__type(value, __u8);
} stacks_seen SEC(".maps");

/* A target thread switched out: when, why, and who took the CPU. */
struct offcpu {
	__u64 ts;
	__u32 state;     /* 0: still runnable, i.e. preempted */
	__u32 other_pid, other_tid, cpu;
	__u32 flags;     /* OFFCPU_* */
	char other_comm[INGERO_COMM_LEN];
	__u64 other_cgid; /* the cgroup of the task that took the CPU */
};
#define OFFCPU_DETAIL 1 /* write a `switch` event when it runs again */
#define OFFCPU_IOWAIT 2 /* blocked on I/O: add the time to its process's iowait */
#define OFFCPU_WAIT 4   /* blocked between calls: add the time to its class's wait */
#define OFFCPU_CLASS(f) ((f) >> 8) /* enum ilog_wait_class, with OFFCPU_WAIT */

struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, 65536);
	__type(key, __u32);
	__type(value, struct offcpu);
} offcpu SEC(".maps");

struct waking {
	__u64 ts;
	__u32 waker_pid, waker_tid;
	char waker_comm[INGERO_COMM_LEN];
	__u64 waker_cgid;
};

struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, 65536);
	__type(key, __u32);
	__type(value, struct waking);
} wakeups SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, 8192);
	__type(key, __u32);
	__type(value, struct rec_sched_agg);
} sched_agg SEC(".maps");

static __always_inline void count_rb(__u32 ring, int ok)
{
	struct rec_rb_stat *s = bpf_map_lookup_elem(&rb_stats, &ring);
	if (!s)
		return;
	if (ok)
		s->sent++;
	else
		s->lost++;
}

static __always_inline int is_target(__u32 tgid)
{
	return bpf_map_lookup_elem(&targets, &tgid) != NULL;
}

/* A note for the recorder: reserved (NULL, counted, when the ring is
 * full), then sent. */
static __always_inline struct rec_note *note_reserve(void)
{
	struct rec_note *n = bpf_ringbuf_reserve(&crit_rb, sizeof(*n), 0);
	if (!n)
		count_rb(REC_RB_CRIT, 0);
	return n;
}

static __always_inline void note_send(struct rec_note *n, __u32 what, __u32 pid)
{
	n->h.type = REC_MSG_NOTE;
	n->h.len = sizeof(*n);
	n->what = what;
	n->pid = pid;
	n->ts_ns = bpf_ktime_get_ns();
	bpf_ringbuf_submit(n, 0);
	count_rb(REC_RB_CRIT, 1);
}

static __always_inline void note(__u32 what, __u32 pid)
{
	struct rec_note *n = note_reserve();
	if (n)
		note_send(n, what, pid);
}

/*
 * A COMMAND's process changed its link map: stop it until the recorder
 * has rescanned it (REC_NOTE_HELD), or, when a stop of it is under way
 * already (another thread), have it rescanned (REC_NOTE_DLOPEN).  The stop
 * is made pending before the note can be read: the recorder's SIGCONT,
 * sent once it has read the note, always comes after it (a note readable
 * first could be answered while this program is preempted, and the late
 * SIGSTOP would then stop the process for good).  No note, no stop: a
 * process the recorder is not told about is never stopped.
 */
static __always_inline void dl_hold(__u32 tgid)
{
	struct rec_note *n = note_reserve();
	if (!n) {
		hold_count(REC_HOLD_MISSED);
		return;
	}
	__u32 what = REC_NOTE_DLOPEN;
	if (!bpf_map_lookup_elem(&holds, &tgid) && !hold_off()) {
		struct rec_hold_ent h = { .ts_ns = bpf_ktime_get_ns() };
		if (bpf_map_update_elem(&holds, &tgid, &h, BPF_NOEXIST)) {
			hold_count(REC_HOLD_MISSED);
		} else {
			bpf_send_signal(19 /* SIGSTOP */);
			hold_count(REC_HOLD_HELD);
			what = REC_NOTE_HELD;
		}
	}
	note_send(n, what, tgid);
}

/* task cgroups and --cgroup */
#include "cgroup.bpf.h"

/*
 * Is the calling process traced?  In --pid mode only the target set
 * counts; otherwise a process becomes a target on its first call (of the
 * right user), and the recorder is told so it can write its records.
 */
static __always_inline int want_caller(__u32 tgid)
{
	if (is_target(tgid))
		return 1;
	if (targ_mode == REC_MODE_PIDS)
		return 0;
	if (targ_mode == REC_MODE_UID && (__u32)bpf_get_current_uid_gid() != targ_uid)
		return 0;
	if (!in_target_cgroup())
		return 0;
	struct rec_target t = { .flags = REC_TARGET_NOTED };
	if (bpf_map_update_elem(&targets, &tgid, &t, BPF_NOEXIST) == 0)
		note(REC_NOTE_NEW_TARGET, tgid);
	return 1;
}

static __always_inline __u64 stack_arg(struct pt_regs *ctx, int n)
{
	/* at entry, sp points at the return address; argument 7 is above it */
	__u64 v = 0;
	bpf_probe_read_user(&v, sizeof(v), (void *)(PT_REGS_SP(ctx) + 8 * (n - 6)));
	return v;
}

/* arguments 7, 8, ... at once into v */
static __always_inline void stack_args(struct pt_regs *ctx, __u64 *v, __u32 size)
{
	bpf_probe_read_user(v, size, (void *)(PT_REGS_SP(ctx) + 8));
}

/*
 * A communicator's identity across processes (SPEC §5.4): FNV-1a 64 over
 * the 128 bytes of the ncclUniqueId, which is passed by value, in memory
 * above the return address; 0 when it cannot be read.
 */
static __always_inline __u64 nccl_id_hash(struct pt_regs *ctx)
{
	__u64 v[16];
	if (bpf_probe_read_user(v, sizeof(v), (void *)(PT_REGS_SP(ctx) + 8)))
		return 0;
	__u64 h = 0xcbf29ce484222325ull;
	for (int i = 0; i < 16; i++) {
		__u64 w = v[i];
		for (int b = 0; b < 8; b++) {
			h = (h ^ (w & 0xff)) * 0x100000001b3ull;
			w >>= 8;
		}
	}
	return h;
}

/* an int argument as SPEC §5.4 writes it: sign-extended to 64 bits */
#define INT_ARG(a) ((__u64)(__s64)(__s32)(a))

static __always_inline void decode(struct pt_regs *ctx, struct rec_frame *f, __u32 dec)
{
	__u64 a1 = PT_REGS_PARM1(ctx), a2 = PT_REGS_PARM2(ctx), a3 = PT_REGS_PARM3(ctx);
	__u64 a4 = PT_REGS_PARM4(ctx), a5 = PT_REGS_PARM5(ctx), a6 = ctx->r9; /* x86-64: the 6th argument register */
	switch (dec) {
	case REC_DEC_ALLOC:
		f->out = a1;
		f->bytes = a2;
		break;
	case REC_DEC_ALLOC_FLAGS:
		f->out = a1;
		f->bytes = a2;
		f->kind = (__u32)a3;
		break;
	case REC_DEC_HANDLE:
		f->handle = a1;
		break;
	case REC_DEC_HOST_REG:
		f->handle = a1;
		f->bytes = a2;
		f->kind = (__u32)a3;
		break;
	case REC_DEC_ALLOC_STREAM:
		f->out = a1;
		f->bytes = a2;
		f->stream = a3;
		break;
	case REC_DEC_ALLOC_POOL:
		f->out = a1;
		f->bytes = a2;
		f->stream = a4;
		break;
	case REC_DEC_HANDLE_STREAM:
		f->handle = a1;
		f->stream = a2;
		break;
	case REC_DEC_RT_LAUNCH:
		/* dim3 (12 bytes) travels in two registers: x|y<<32, then z */
		f->handle = a1;
		f->grid[0] = (__u32)a2;
		f->grid[1] = (__u32)(a2 >> 32);
		f->grid[2] = (__u32)a3;
		f->block[0] = (__u32)a4;
		f->block[1] = (__u32)(a4 >> 32);
		f->block[2] = (__u32)a5;
	{
		/* sharedMem, stream: arguments 7 and 8, one user read (~60 ns each) */
		__u64 v[2] = {};
		stack_args(ctx, v, sizeof(v));
		f->bytes = v[0];
		f->stream = v[1];
		break;
	}
	case REC_DEC_RT_MEMCPY:
		f->handle = a1;
		f->args[0] = a2; /* the source: a host copy's pinned or pageable side */
		f->bytes = a3;
		f->kind = (__u32)a4;
		f->stream = a5; /* only the Async cookie's op reads it; 0 otherwise below */
		break;
	case REC_DEC_RT_MEMSET:
		f->handle = a1;
		f->kind = (__u32)a2; /* the fill value */
		f->bytes = a3;
		f->stream = a4;
		break;
	case REC_DEC_STREAM:
		f->stream = a1;
		break;
	case REC_DEC_BEGIN_CAPTURE:
		f->stream = a1;
		f->kind = (__u32)a2;
		break;
	case REC_DEC_END_CAPTURE:
		f->stream = a1;
		f->out = a2;
		break;
	case REC_DEC_INSTANTIATE:
		f->out = a1;
		f->kind = (__u32)a3;
		break;
	case REC_DEC_GRAPH_LAUNCH:
		f->handle = a1;
		f->stream = a2;
		break;
	case REC_DEC_CU_LAUNCH:
		f->handle = a1;
		f->grid[0] = (__u32)a2;
		f->grid[1] = (__u32)a3;
		f->grid[2] = (__u32)a4;
		f->block[0] = (__u32)a5;
		f->block[1] = (__u32)a6;
	{
		__u64 v[3] = {};
		stack_args(ctx, v, sizeof(v));
		f->block[2] = (__u32)v[0];
		f->bytes = (__u32)v[1];
		f->stream = v[2];
		break;
	}
	case REC_DEC_CU_LAUNCH_EX: {
		/* CUlaunchConfig: 7 unsigned ints, then hStream at offset 32 */
		__u32 c[7] = {};
		bpf_probe_read_user(c, sizeof(c), (void *)a1);
		f->grid[0] = c[0];
		f->grid[1] = c[1];
		f->grid[2] = c[2];
		f->block[0] = c[3];
		f->block[1] = c[4];
		f->block[2] = c[5];
		f->bytes = c[6];
		bpf_probe_read_user(&f->stream, sizeof(f->stream), (void *)(a1 + 32));
		f->handle = a2;
		break;
	}
	case REC_DEC_CU_MEMCPY:
		f->handle = a1;
		f->args[0] = a2; /* the source */
		f->bytes = a3;
		f->stream = a4;
		break;
	case REC_DEC_NCCL_COLL:
		f->bytes = a3;
		f->kind = (__u32)a4;
		f->args[0] = INT_ARG(a5); /* redop, or a broadcast's root */
		f->handle = a6;
		f->stream = stack_arg(ctx, 7);
		break;
	case REC_DEC_NCCL_REDUCE: {
		f->bytes = a3;
		f->kind = (__u32)a4;
		f->args[0] = INT_ARG(a5); /* redop */
		f->args[1] = INT_ARG(a6); /* root */
		__u64 v[2] = {};
		stack_args(ctx, v, sizeof(v)); /* comm, stream: arguments 7 and 8 */
		f->handle = v[0];
		f->stream = v[1];
		break;
	}
	case REC_DEC_NCCL_GATHER:
		f->bytes = a3;
		f->kind = (__u32)a4;
		f->handle = a5;
		f->stream = a6;
		break;
	case REC_DEC_NCCL_P2P:
		f->bytes = a2;
		f->kind = (__u32)a3;
		f->args[0] = INT_ARG(a4); /* peer, or ncclBcast's root */
		f->handle = a5;
		f->stream = a6;
		break;
	case REC_DEC_NCCL_INIT:
		/* ncclUniqueId (128 bytes) goes on the stack, so rank is in rdx */
		f->out = a1;
		f->bytes = (__u32)a2;
		f->kind = (__u32)a3;
		f->args[0] = nccl_id_hash(ctx);
		break;
	case REC_DEC_NCCL_INITALL:
		f->out = a1; /* comms[0] at return */
		f->bytes = (__u32)a2;
		break;
	case REC_DEC_NCCL_SPLIT:
		f->args[0] = a1; /* the parent */
		f->args[1] = INT_ARG(a2); /* color */
		f->args[2] = INT_ARG(a3); /* key */
		f->out = a4;
		break;
	case REC_DEC_GETFUNC:
		/* the name pointer rides in bytes until the return (emit_kname) */
		f->out = a1;
		f->bytes = a3;
		break;
	case REC_DEC_KERNFUNC:
		f->out = a1;
		f->bytes = a2; /* the CUkernel */
		break;
	case REC_DEC_RAW:
		/* --api: kept in the frame's fields, moved to args by fill_event */
		f->handle = a1;
		f->bytes = a2;
		f->stream = a3;
		f->grid[0] = (__u32)a4;
		f->grid[1] = (__u32)(a4 >> 32);
		break;
	}
}

/* Which decoders' 4th/5th argument is really a stream (Async variants). */
static __always_inline int op_has_stream(__u32 op)
{
	switch (op) {
	case ILOG_OP_cudaMemcpy:
	case ILOG_OP_cudaMemset:
	case ILOG_OP_cuMemcpy:
	case ILOG_OP_cuMemcpyHtoD:
	case ILOG_OP_cuMemcpyDtoH:
	case ILOG_OP_cuMemcpyDtoD:
		return 0;
	}
	return 1;
}

/*
 * Calls that can wait long on others (every NCCL call, the synchronizes):
 * their stacks are taken at entry, so that a call still running has them
 * (SPEC §5.22), and at return they are not taken again.
 */
static __always_inline void entry_stacks(struct pt_regs *ctx, struct rec_inflight *in,
					 struct rec_frame *f, __u32 tgid);

static __always_inline bool unwound(__u64 pystack_id);
static __always_inline void emit_untimed(struct rec_frame *f, struct rec_op_stat *st, __u32 tgid,
					 __u32 tid);

/* A kernel launch: its duration is only the enqueue (--launch-timing). */
static __always_inline int launch_op(__u64 cookie)
{
	if (REC_COOKIE_DEC(cookie) == REC_DEC_RAW)
		return 0;
	switch (REC_COOKIE_OP(cookie)) {
	case ILOG_OP_cudaLaunchKernel:
	case ILOG_OP_cuLaunchKernel:
	case ILOG_OP_cuLaunchKernelEx:
		return 1;
	}
	return 0;
}

static __always_inline int blocking_op(__u64 cookie)
{
	if (REC_COOKIE_DEC(cookie) == REC_DEC_RAW)
		return 0;
	if (REC_COOKIE_LAYER(cookie) == ILOG_LAYER_NCCL)
		return 1;
	switch (REC_COOKIE_OP(cookie)) {
	case ILOG_OP_cudaStreamSynchronize:
	case ILOG_OP_cudaDeviceSynchronize:
	case ILOG_OP_cudaEventSynchronize:
	case ILOG_OP_cuCtxSynchronize:
	case ILOG_OP_cuStreamSynchronize:
		return 1;
	}
	return 0;
}

/*
 * Push the frame of a traced call on its thread's stack: its slot, or -1
 * when no frame was pushed (not a target, the ld.so hook, lost, or -- for
 * a session program, which then needs no return probe -- sampled out).
 */
static __always_inline int on_entry(struct pt_regs *ctx, bool session)
{
	__u64 id = bpf_get_current_pid_tgid();
	__u32 tgid = id >> 32, tid = (__u32)id;
	__u64 cookie = bpf_get_attach_cookie(ctx);
	__u32 zero = 0;

	if (cookie == REC_COOKIE_DLHOOK) {
		/* ld.so mapped or unmapped objects: rescan soon */
		if (bpf_map_lookup_elem(&hold, &tgid)) {
			dl_hold(tgid);
			return -1;
		}
		if (is_target(tgid) || (targ_mode == REC_MODE_ALL) ||
		    (targ_mode == REC_MODE_UID && (__u32)bpf_get_current_uid_gid() == targ_uid))
			note(REC_NOTE_DLOPEN, tgid);
		return -1;
	}
	/*
	 * A thread with an inflight entry belongs to a target (entries are
	 * made only for targets and die with their thread), so the common case
	 * is one hash lookup; the target set is asked only on a thread's first
	 * call.
	 */
	__u32 op = REC_COOKIE_OP(cookie);
	struct rec_op_stat *st;
	struct rec_inflight *in = bpf_map_lookup_elem(&inflight, &tid);
	if (!in) {
		if (!want_caller(tgid))
			return -1;
		struct rec_inflight *z = bpf_map_lookup_elem(&inflight_zero, &zero);
		if (z)
			bpf_map_update_elem(&inflight, &tid, z, BPF_NOEXIST);
		in = bpf_map_lookup_elem(&inflight, &tid);
		if (!in) {
			st = bpf_map_lookup_elem(&op_stats, &op);
			if (st) {
				st->calls++;
				st->lost++;
			}
			return -1;
		}
	}
	st = bpf_map_lookup_elem(&op_stats, &op);
	if (st)
		st->calls++;
	in->tgid = tgid;
	__u32 d = in->depth;
	if (d >= REC_MAX_DEPTH) {
		if (st)
			st->lost++;
		return -1;
	}
	struct rec_frame *f = &in->f[d & (REC_MAX_DEPTH - 1)];
	__builtin_memset(f, 0, sizeof(*f));
	f->cookie = cookie;
	/* one in N per op (per CPU): the first call of each op is kept */
	if (REC_COOKIE_SAMPLEABLE(cookie) && sample_every > 1 && st &&
	    (st->calls - 1) % sample_every != 0) {
		f->skip = 1;
		st->sampled++;
		if (session)
			return -1; /* counted; no frame, no return probe */
	}
	if (!f->skip) {
		decode(ctx, f, REC_COOKIE_DEC(cookie));
		if (!op_has_stream(op))
			f->stream = 0;
		if (REC_COOKIE_KIND1(cookie))
			f->kind = REC_COOKIE_KIND1(cookie) - 1;
	}
	f->ip = PT_REGS_IP(ctx);
	/*
	 * A launch left untimed: its record is written now, with its stacks
	 * taken at entry, and no return probe is set (the session program
	 * returns 1).  One launch in N of this op on this CPU is timed, and
	 * one at least every REC_LAUNCH_TIMED_NS.  Under
	 * --sampling-rate the launches kept are all timed (the others set no
	 * return probe already); a stack that must be unwound from a copy at
	 * return keeps its launch timed.
	 */
	if (session && targ_launch_every > 1 && sample_every == 1 && !f->skip && st &&
	    launch_op(cookie)) {
		__u64 now = bpf_ktime_get_ns();
		if ((st->calls - 1) % targ_launch_every != 0 &&
		    now - st->timed_ts < REC_LAUNCH_TIMED_NS) {
			entry_stacks(ctx, in, f, tgid);
			if (!unwound(f->pystack_id)) {
				f->ts = now;
				emit_untimed(f, st, tgid, tid);
				return -1;
			}
		}
		st->timed_ts = now;
	}
	if (!f->skip && !f->estack && blocking_op(cookie))
		entry_stacks(ctx, in, f, tgid);
	in->depth = d + 1;
	f->ts = bpf_ktime_get_ns(); /* last, so decoding and stacks are not timed */
	return (int)(d & (REC_MAX_DEPTH - 1));
}

/* the CPython frame walker: py_walk() and its maps */
#include "pywalk.bpf.h"

/*
 * The stack of a call, taken at its return: there the frame-pointer walk
 * starts in the caller with nothing skipped (at entry the caller's frame
 * is not set up yet and the walk would miss it).  ips[0] is the function's
 * entry, as SPEC §5.6 lays it out, then the return addresses.
 */
/*
 * One step of the frame walk in emit_stack(): 0 to go on, 1 to stop.  The
 * frame's return address goes into the stack buffer at once (ips[1] is
 * the caller's, put there by emit_stack; frame k's goes to ips[k + 1]), so
 * that where no return probe is pending the kernel need not walk again.
 */
static long count_frame(__u64 i, void *unused)
{
	__u32 zero = 0;
	struct rec_stack_win *w = bpf_map_lookup_elem(&stack_win, &zero);
	struct rec_stack *s = bpf_map_lookup_elem(&stack_buf, &zero);
	if (!w || !s)
		return 1;
	__u64 fp = w->fp, sp = w->sp, fr[2], off = fp - sp;
	if (fp < w->prev || off > REC_STACK_SPAN || (fp & 7))
		return 1;
	if (w->have_win && off <= sizeof(w->b) - 16) {
		fr[0] = w->b[(off / 8) & (REC_STACK_WIN / 8 - 1)];
		fr[1] = w->b[(off / 8 + 1) & (REC_STACK_WIN / 8 - 1)];
	} else if (bpf_probe_read_user(fr, sizeof(fr), (void *)fp)) {
		return 1; /* the kernel's walk reads both words too, and stops */
	}
	__u32 k = w->frames + 1;
	if (k >= INGERO_MAX_STACK)
		return 1;
	s->st.ips[k] = fr[1];
	w->frames++;
	w->prev = fp + 16;
	w->fp = fr[0];
	return 0;
}

/*
 * Whether the calling thread has return probes pending (uretprobes, or the
 * return half of a session, of calls it is inside): their return addresses
 * on its stack are the trampoline's, which only the kernel's walk puts
 * back.  This call's own is not among them: at entry it is not set yet,
 * and at return the kernel takes it off the list before the programs run
 * (6.12+; before, it is still there and the kernel walks).
 */
static __always_inline bool returns_pending(void)
{
	struct task_struct *task = (void *)bpf_get_current_task();
	struct uprobe_task *ut = BPF_CORE_READ(task, utask);
	return ut && BPF_CORE_READ(ut, return_instances);
}

static __always_inline __u64 emit_stack(void *ctx, __u32 tgid, __u64 entry_ip, bool at_entry)
{
	__u32 zero = 0;
	struct rec_stack *s = bpf_map_lookup_elem(&stack_buf, &zero);
	struct rec_stack_stat *ss = bpf_map_lookup_elem(&stack_stats, &zero);
	if (!s || !ss)
		return 0;
	s->st.ips[0] = entry_ip;
	/*
	 * The kernel's frame-pointer walk stops only when a read fails, and
	 * the frame that ends a stack (glibc's start_thread, a function built
	 * without frame pointers) usually leaves a register value in rbp that
	 * points at no mapping: every call then took a page fault in the walk
	 * (~1 us here, most of what a stack cost).  Count first the frames
	 * whose pointers can be frames: each above the last (the stack grows
	 * down) and within REC_STACK_SPAN of the stack pointer; then let the
	 * kernel walk exactly those (it also puts back return addresses that
	 * pending uretprobes replaced).  A bad pointer that passes costs one
	 * failed read here, as before.
	 */
	/* the top of the stack in one read: most frames are found there
	 * without a helper call each (a user read costs ~60 ns here) */
	struct rec_stack_win *w = bpf_map_lookup_elem(&stack_win, &zero);
	if (!w)
		return 0;
	w->sp = PT_REGS_SP((struct pt_regs *)ctx);
	w->fp = PT_REGS_FP((struct pt_regs *)ctx);
	w->prev = w->sp;
	w->have_win = bpf_probe_read_user(w->b, sizeof(w->b), (void *)w->sp) == 0;
	w->frames = 1; /* the return address in the caller, from regs */
	/* bpf_loop: the step is verified once (an unrolled loop took the
	 * verifier seconds at every start) */
	bpf_loop(INGERO_MAX_STACK - 2, count_frame, NULL, 0);
	__u64 ret = 0;
	long n = -1;
	__u32 nr = 0;
	/*
	 * The walk above found what the kernel's would (the same frames, each
	 * read whole; where a read fails both stop): the stack is ips[0], the
	 * return address into the caller (at entry the word at sp, at return
	 * the instruction pointer), and the frames' return addresses.  Only
	 * with return probes pending does the kernel walk again, to put their
	 * addresses back.
	 */
	if (!returns_pending()) {
		if (at_entry) {
			ret = w->b[0];
			if (!w->have_win && bpf_probe_read_user(&ret, sizeof(ret), (void *)w->sp))
				ret = 0;
		} else {
			ret = PT_REGS_IP((struct pt_regs *)ctx);
		}
		s->st.ips[1] = ret;
		nr = (w->frames & 127) + 1;
		if (nr > INGERO_MAX_STACK)
			nr = INGERO_MAX_STACK;
		goto hash;
	}
	__u64 size = (__u64)(w->frames & 127) * 8;
	if (size > sizeof(s->st.ips) - 8)
		size = sizeof(s->st.ips) - 8;
	barrier_var(size); /* the helper gets the clamped register */
	/*
	 * At entry the walk begins at the function itself, its caller's frame
	 * not set up yet: the return address into the caller is at sp (the
	 * return probe is put there only after the entry programs ran).  x86
	 * kernels since 6.10 put it in the walk themselves (entry, caller,
	 * ...: the stack return would take, from ips[0]); older ones go on
	 * with the caller's caller, and it is put in here.  Either way the
	 * stack, and so its id, is the one taken at return.
	 */
	if (at_entry) {
		ret = w->b[0];
		if (!w->have_win && bpf_probe_read_user(&ret, sizeof(ret), (void *)w->sp))
			ret = 0;
		__u64 esize = size + 8;
		barrier_var(esize);
		if (esize > sizeof(s->st.ips))
			esize = sizeof(s->st.ips);
		n = bpf_get_stack(ctx, &s->st.ips[0], esize, BPF_F_USER_STACK);
		if (n >= 16 && ret && s->st.ips[1] == ret)
			nr = (__u32)n / 8;
		s->st.ips[0] = entry_ip;
	}
	if (!nr) {
		n = bpf_get_stack(ctx, &s->st.ips[1], size, BPF_F_USER_STACK);
		if (n < 0) {
			ss->failed++;
			n = 0;
		}
		if (at_entry && n >= 8)
			s->st.ips[1] = ret;
		nr = (__u32)n / 8 + 1;
	}
hash:;
	/* content hash of (pid, ips): ips mean something only in one address space */
	__u64 h = 0xcbf29ce484222325ull ^ tgid;
	for (__u32 i = 0; i < INGERO_MAX_STACK; i++) {
		if (i >= nr)
			break;
		h = (h ^ s->st.ips[i]) * 0x100000001b3ull;
		h ^= h >> 29;
	}
	if (!h)
		h = 1;
	/* look first: an LRU update takes a node off the free list even when
	 * the key is there, which costs more than the lookup */
	if (bpf_map_lookup_elem(&stacks_seen, &h))
		return h; /* already sent */
	__u8 one = 1;
	if (bpf_map_update_elem(&stacks_seen, &h, &one, BPF_NOEXIST) != 0)
		return h; /* another CPU just sent it */
	s->h.type = REC_MSG_STACK;
	__u64 len = REC_STACK_HDR_LEN + (__u64)nr * 8;
	s->h.len = (__u32)len;
	s->st.id = h;
	s->st.pid = tgid;
	s->st.nr = nr;
	if (len > sizeof(*s))
		len = sizeof(*s);
	if (bpf_ringbuf_output(&cuda_rb, s, len, BPF_RB_NO_WAKEUP)) {
		bpf_map_delete_elem(&stacks_seen, &h);
		ss->lost++;
		count_rb(REC_RB_CUDA, 0);
		return h; /* the event still names it; the loss record says it is missing */
	}
	ss->sent++;
	count_rb(REC_RB_CUDA, 1);
	return h;
}

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct rec_ustack);
} ustack_buf SEC(".maps");

/* (pid, stack, pystack) pairs whose stack was copied; evicted: copied again */
struct {
	__uint(type, BPF_MAP_TYPE_LRU_HASH);
	__uint(max_entries, 16384);
	__type(key, __u64);
	__type(value, __u8);
} ustacks_seen SEC(".maps");

struct vma_end {
	__u64 end;
};

static long vma_end_cb(struct task_struct *task, struct vm_area_struct *vma, void *data)
{
	((struct vma_end *)data)->end = BPF_CORE_READ(vma, vm_end);
	return 0;
}

/* Read the top of the user stack: REC_USTACK_MAX bytes, or up to the end
 * of the stack's mapping when that comes sooner (a shallow stack: a read
 * past it fails as a whole).  Bytes read, 0 if none. */
static __always_inline __u32 read_stack_top(__u8 *dst, __u64 sp)
{
	if (bpf_core_enum_value_exists(enum bpf_func_id, BPF_FUNC_find_vma)) {
		struct vma_end v = { 0 };
		struct task_struct *task = bpf_get_current_task_btf();
		if (!bpf_find_vma(task, sp, vma_end_cb, &v, 0) && v.end > sp) {
			__u64 size = v.end - sp;
			if (size > REC_USTACK_MAX)
				size = REC_USTACK_MAX;
			barrier_var(size);
			if (size >= 8 && !bpf_probe_read_user(dst, size, (void *)sp))
				return (__u32)size;
		}
	}
	/* no bpf_find_vma, or the mm lock was busy: halve until a read works */
	if (!bpf_probe_read_user(dst, REC_USTACK_MAX, (void *)sp))
		return REC_USTACK_MAX;
	if (!bpf_probe_read_user(dst, REC_USTACK_MAX / 2, (void *)sp))
		return REC_USTACK_MAX / 2;
	if (!bpf_probe_read_user(dst, REC_USTACK_MAX / 4, (void *)sp))
		return REC_USTACK_MAX / 4;
	if (!bpf_probe_read_user(dst, REC_USTACK_MAX / 8, (void *)sp))
		return REC_USTACK_MAX / 8;
	if (!bpf_probe_read_user(dst, REC_USTACK_MAX / 16, (void *)sp))
		return REC_USTACK_MAX / 16;
	return 0;
}

/*
 * For --unwind: the registers and top of the stack of a call whose
 * (stack, pystack) pair is new, for the recorder to unwind with DWARF
 * (record.h).  Sent ahead of the event, which the recorder then gives the
 * unwound stack's id.
 */
static __always_inline __u64 emit_ustack(struct pt_regs *ctx, __u32 tgid, __u32 tid,
					 __u64 entry_ip, __u64 pystack_id)
{
	__u32 zero = 0;
	/* at the return, the instruction pointer is the return address in the caller */
	__u64 caller = PT_REGS_IP(ctx);
	__u64 k = (pystack_id ^ ((__u64)tgid << 17)) * 0x9e3779b97f4a7c15ull;
	k = (k ^ entry_ip) * 0x9e3779b97f4a7c15ull;
	k = (k ^ caller) * 0x9e3779b97f4a7c15ull;
	k ^= k >> 31;
	if (!k)
		k = 1;
	if (bpf_map_lookup_elem(&ustacks_seen, &k))
		return k;
	__u8 one = 1;
	if (bpf_map_update_elem(&ustacks_seen, &k, &one, BPF_NOEXIST) != 0)
		return k;
	struct rec_ustack *u = bpf_map_lookup_elem(&ustack_buf, &zero);
	struct rec_stack_stat *ss = bpf_map_lookup_elem(&stack_stats, &zero);
	if (!u || !ss)
		return k;
	u->h.type = REC_MSG_USTACK;
	u->key = k;
	u->entry_ip = entry_ip;
	u->regs[REC_UREG_IP] = PT_REGS_IP(ctx);
	u->regs[REC_UREG_SP] = PT_REGS_SP(ctx);
	u->regs[REC_UREG_BP] = PT_REGS_FP(ctx);
	u->regs[REC_UREG_BX] = ctx->bx;
	u->regs[REC_UREG_R12] = ctx->r12;
	u->regs[REC_UREG_R13] = ctx->r13;
	u->regs[REC_UREG_R14] = ctx->r14;
	u->regs[REC_UREG_R15] = ctx->r15;
	u->pid = tgid;
	u->tid = tid;
	/* the pending uretprobes of this thread, innermost first (this call's
	 * own instance is off the list while its handlers run) */
	struct task_struct *task = (void *)bpf_get_current_task();
	struct return_instance *ri = BPF_CORE_READ(task, utask, return_instances);
	__u32 np = 0;
	for (int i = 0; i < REC_USTACK_PENDING; i++) {
		if (!ri)
			break;
		u->pend_slot[i] = BPF_CORE_READ(ri, stack);
		u->pend_ret[i] = BPF_CORE_READ(ri, orig_ret_vaddr);
		ri = BPF_CORE_READ(ri, next);
		np = i + 1;
	}
	u->npend = np;
	__u32 size = read_stack_top(u->data, u->regs[REC_UREG_SP]);
	u->size = size;
	__u64 len = REC_USTACK_HDR_LEN + (__u64)size;
	barrier_var(len);
	if (len > sizeof(*u))
		len = sizeof(*u);
	u->h.len = (__u32)len;
	if (bpf_ringbuf_output(&ustack_rb, u, len, BPF_RB_NO_WAKEUP)) {
		bpf_map_delete_elem(&ustacks_seen, &k); /* a later call tries again */
		ss->copies_lost++;
		count_rb(REC_RB_USTACK, 0);
		return k;
	}
	ss->copies++;
	count_rb(REC_RB_USTACK, 1);
	return k;
}

static __always_inline void fill_event(struct ingero_cuda_event *e, struct rec_frame *f, __u64 now,
				       __u32 tgid, __u32 tid)
{
	__u64 c = f->cookie;
	e->ts_ns = f->ts;
	e->dur_ns = now - f->ts;
	e->pid = tgid;
	e->tid = tid;
	e->op = (__u16)REC_COOKIE_OP(c);
	e->layer = (__u8)REC_COOKIE_LAYER(c);
	e->flags = sample_every > 1 && REC_COOKIE_SAMPLEABLE(c) ? ILOG_CUDA_F_SAMPLED : 0;
	e->stream = f->stream;
	e->bytes = f->bytes;
	e->handle = f->handle;
	e->kind = f->kind;
	e->grid_x = f->grid[0];
	e->grid_y = f->grid[1];
	e->grid_z = f->grid[2];
	e->block_x = f->block[0];
	e->block_y = f->block[1];
	e->block_z = f->block[2];
	e->stack_id = 0;
	e->pystack_id = 0;
	e->args[0] = e->args[1] = e->args[2] = e->args[3] = 0;
	e->nargs = rec_frame_args(f, e->args);
	__u32 dec = REC_COOKIE_DEC(c);
	if (dec == REC_DEC_RAW) {
		/* a named op (--api): raw arguments, nothing decoded (SPEC §5.4) */
		e->stream = 0;
		e->bytes = 0;
		e->handle = 0;
		e->grid_x = 0;
		e->grid_y = 0;
	} else if (rec_dec_has_args(dec)) {
		/* NCCL: its args were where the grid and block are */
		e->grid_x = e->grid_y = e->grid_z = 0;
		e->block_x = e->block_y = e->block_z = 0;
	}
}

/*
 * Kernel names (SPEC §5.18): a handle-making call that succeeded tells the
 * recorder the handle's name (cuModuleGetFunction, cuLibraryGetKernel) or
 * the CUkernel it came from (cuKernelGetFunction), ahead of its event.
 */
static __always_inline void emit_kname(struct rec_frame *f, __u32 tgid, __u64 handle)
{
	__u32 dec = REC_COOKIE_DEC(f->cookie);
	struct rec_kname *k = bpf_ringbuf_reserve(&cuda_rb, sizeof(*k), 0);
	if (!k) {
		count_rb(REC_RB_CUDA, 0);
		return;
	}
	k->h.type = REC_MSG_KNAME;
	k->h.len = sizeof(*k);
	k->pid = tgid;
	k->_pad = 0;
	k->handle = handle;
	k->parent = 0;
	k->name[0] = 0;
	if (dec == REC_DEC_GETFUNC)
		bpf_probe_read_user_str(k->name, sizeof(k->name), (void *)f->bytes);
	else
		k->parent = f->bytes;
	bpf_ringbuf_submit(k, BPF_RB_NO_WAKEUP);
	count_rb(REC_RB_CUDA, 1);
}

static __always_inline int finish_call(struct pt_regs *ctx, struct rec_inflight *in,
				       struct rec_frame *f, __u64 now,
				       __u32 tgid, __u32 tid, __u32 op);

static __always_inline int on_return(struct pt_regs *ctx)
{
	__u64 now = bpf_ktime_get_ns();
	__u64 id = bpf_get_current_pid_tgid();
	__u32 tgid = id >> 32, tid = (__u32)id;
	__u64 cookie = bpf_get_attach_cookie(ctx);
	__u32 op = REC_COOKIE_OP(cookie);

	struct rec_inflight *in = bpf_map_lookup_elem(&inflight, &tid);
	if (!in || in->depth == 0) {
		/* attached while the call was running, or not a target */
		if (in || is_target(tgid)) {
			struct rec_op_stat *st = bpf_map_lookup_elem(&op_stats, &op);
			if (st)
				st->orphan_returns++;
		}
		return 0;
	}
	/* Pop to the frame of this probe; frames above it lost their return. */
	__u32 d = in->depth;
	struct rec_frame *f = NULL;
	for (int i = 0; i < REC_MAX_DEPTH; i++) {
		if (d == 0)
			break;
		d--;
		struct rec_frame *t = &in->f[d & (REC_MAX_DEPTH - 1)];
		if (t->cookie == cookie) {
			f = t;
			break;
		}
		__u32 lop = REC_COOKIE_OP(t->cookie);
		struct rec_op_stat *ls = bpf_map_lookup_elem(&op_stats, &lop);
		if (ls && !t->skip)
			ls->lost++;
	}
	in->depth = d;
	if (!f)
		return 0;
	return finish_call(ctx, in, f, now, tgid, tid, op);
}

/* Whether a call's native stack comes from a copy unwound with DWARF. */
static __always_inline bool unwound(__u64 pystack_id)
{
	return targ_stacks && (targ_unwind == REC_UNWIND_DWARF ||
			       (targ_unwind == REC_UNWIND_AUTO && pystack_id));
}

/*
 * The stacks of a call that may block (blocking_op), at its entry: the
 * Python stack is the same then as at return, the frame-pointer one the
 * same once emit_stack has put the caller in (at_entry).  A stack that
 * comes from DWARF is still copied at return, with the caller's registers.
 */
static __always_inline void entry_stacks(struct pt_regs *ctx, struct rec_inflight *in,
					 struct rec_frame *f, __u32 tgid)
{
	f->pystack_id = py_stack(&in->py_none, tgid);
	if (targ_stacks && !unwound(f->pystack_id))
		f->stack_id = emit_stack(ctx, tgid, PT_REGS_IP(ctx), true);
	f->estack = 1;
}

/* A traced call returned: its event (with its stacks) from its frame. */
static __always_inline int finish_call(struct pt_regs *ctx, struct rec_inflight *in,
				       struct rec_frame *f, __u64 now,
				       __u32 tgid, __u32 tid, __u32 op)
{
	if (f->skip)
		return 0;
	/* new stacks go into the ring ahead of the event naming them; at
	 * return the frame-pointer walk starts in the caller: no frame
	 * skipped (a blocking call's were taken at entry: entry_stacks) */
	__u64 pystack_id = f->estack ? f->pystack_id : py_stack(&in->py_none, tgid);
	/* --unwind: the call's stack comes from DWARF (a copy per new call
	 * path, of the registers at return), so the frame-pointer walk, which
	 * such code ends early, is not made at all; the event gets the
	 * unwound stack's id from the recorder */
	__u64 stack_id = 0, ukey = 0;
	if (unwound(pystack_id))
		ukey = emit_ustack(ctx, tgid, tid, f->ip, pystack_id);
	else if (f->estack)
		stack_id = f->stack_id;
	else if (targ_stacks)
		stack_id = emit_stack(ctx, tgid, f->ip, false);
	struct rec_cuda *m = bpf_ringbuf_reserve(&cuda_rb, sizeof(*m), 0);
	if (!m) {
		struct rec_op_stat *st = bpf_map_lookup_elem(&op_stats, &op);
		if (st)
			st->lost++;
		count_rb(REC_RB_CUDA, 0);
		return 0;
	}
	m->h.type = REC_MSG_CUDA;
	m->h.len = sizeof(*m);
	fill_event(&m->ev, f, now, tgid, tid);
	m->ev.ret = (__s32)PT_REGS_RC(ctx);
	m->ev.pystack_id = pystack_id;
	if (f->out) {
		__u64 h = 0;
		bpf_probe_read_user(&h, sizeof(h), (void *)f->out);
		m->ev.handle = h;
	}
	if (REC_COOKIE_DEC(f->cookie) == REC_DEC_GETFUNC || REC_COOKIE_DEC(f->cookie) == REC_DEC_KERNFUNC) {
		if (m->ev.ret == 0 && m->ev.handle)
			emit_kname(f, tgid, m->ev.handle);
		m->ev.bytes = 0;
	}
	m->ev.stack_id = stack_id;
	m->ukey = ukey;
	bpf_ringbuf_submit(m, BPF_RB_NO_WAKEUP);
	count_rb(REC_RB_CUDA, 1);
	return 0;
}

/* A launch recorded at its entry (--launch-timing): no duration, no return value. */
static __always_inline void emit_untimed(struct rec_frame *f, struct rec_op_stat *st, __u32 tgid,
					 __u32 tid)
{
	struct rec_cuda *m = bpf_ringbuf_reserve(&cuda_rb, sizeof(*m), 0);
	if (!m) {
		st->lost++;
		count_rb(REC_RB_CUDA, 0);
		return;
	}
	m->h.type = REC_MSG_CUDA;
	m->h.len = sizeof(*m);
	fill_event(&m->ev, f, f->ts, tgid, tid);
	m->ev.flags |= ILOG_CUDA_F_UNTIMED;
	m->ev.ret = 0;
	m->ev.stack_id = f->stack_id;
	m->ev.pystack_id = f->pystack_id;
	m->ukey = 0;
	bpf_ringbuf_submit(m, BPF_RB_NO_WAKEUP);
	count_rb(REC_RB_CUDA, 1);
}

/*
 * Two attachment styles with one body: perf-event uprobes (any 5.15+
 * kernel) and uprobe_multi links (6.6+: one link per library and
 * direction; removing it waits for one RCU grace period instead of one
 * per probe).  The recorder loads the _multi pair only where it works.
 */
SEC("uprobe")
int cuda_entry(struct pt_regs *ctx)
{
	if (!targ_empty)
		on_entry(ctx, false);
	return 0;
}

SEC("uretprobe")
int cuda_return(struct pt_regs *ctx)
{
	return targ_empty ? 0 : on_return(ctx);
}

SEC("uprobe")
int cuda_entry_multi(struct pt_regs *ctx)
{
	if (!targ_empty)
		on_entry(ctx, false);
	return 0;
}

SEC("uprobe")
int cuda_return_multi(struct pt_regs *ctx)
{
	return targ_empty ? 0 : on_return(ctx);
}

/*
 * The cheaper probe pair (Linux 6.13+): one uprobe session program runs at
 * the entry and, if the entry returned 0, at the return of the same call,
 * sharing an 8-byte cookie.  The cookie names the call's frame slot, so
 * the return takes its frame at once (no search down the thread's stack,
 * no second program), and a call that needs no return -- not a target, or
 * left out by --sampling-rate (still counted) -- sets no return probe at
 * all: no second trap.  The frames stay in `inflight`, which the scheduler
 * and exit probes read.  The recorder loads it where the kernel has it
 * (expected attach type BPF_TRACE_UPROBE_SESSION) and the pairs elsewhere.
 */
extern bool bpf_session_is_return(void) __ksym __weak;
extern __u64 *bpf_session_cookie(void) __ksym __weak;
/* bench/record: 1 = an empty session that sets no return probe (the floor
 * of an entry-only probe) */
const volatile bool targ_empty_entry = false;

SEC("uprobe")
int cuda_session(struct pt_regs *ctx)
{
	__u64 *ck = bpf_session_cookie();
	if (targ_empty)
		return targ_empty_entry;
	if (!bpf_session_is_return()) {
		int slot = on_entry(ctx, true);
		if (slot < 0)
			return 1;
		*ck = (__u64)slot + 1;
		return 0;
	}
	__u64 now = bpf_ktime_get_ns();
	__u64 id = bpf_get_current_pid_tgid();
	__u32 tid = (__u32)id, slot = (__u32)(*ck - 1) & (REC_MAX_DEPTH - 1);
	struct rec_inflight *in = bpf_map_lookup_elem(&inflight, &tid);
	if (!in || *ck == 0 || in->depth <= slot)
		return 0; /* its thread's frames were flushed meanwhile */
	struct rec_frame *f = &in->f[slot];
	in->depth = slot; /* calls above it that did not return are gone with it */
	return finish_call(ctx, in, f, now, id >> 32, tid, REC_COOKIE_OP(f->cookie));
}

/* ---- holding a process that maps a CUDA library not attached yet ---- */

/*
 * Probes attached to a file for every process are put in by the kernel
 * when any process maps the file, so files attached ahead of time miss no
 * call.  A file never attached before (a venv's copy, a new install) is
 * the one race left: the process that maps it is stopped here, as its
 * mmap() returns, until the recorder has attached to it (REC_MSG_HOLD,
 * record.h).  The recorder's watchdog process resumes it when that takes
 * longer than --hold-max or the recorder dies; hold_stats counts both.
 */
const volatile bool targ_hold = false;

struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, 4096);
	__type(key, struct rec_file_key);
	__type(value, __u8);
} lib_files SEC(".maps");

/* a process that died while stopped: nobody is to resume it */
static __always_inline void hold_forget(struct task_struct *p, __u32 tgid)
{
	if (targ_watch && BPF_CORE_READ(p, signal, live.counter) == 0)
		bpf_map_delete_elem(&holds, &tgid);
}

/* libcudart.so*, libcuda.so*, libnccl.so* (rec_lib_class's names) */
static __always_inline int cuda_lib_name(const char *n)
{
	if (n[0] != 'l' || n[1] != 'i' || n[2] != 'b')
		return 0;
	if (n[3] == 'c' && n[4] == 'u' && n[5] == 'd' && n[6] == 'a') {
		if (n[7] == '.' && n[8] == 's' && n[9] == 'o')
			return 1;
		return n[7] == 'r' && n[8] == 't' && n[9] == '.' && n[10] == 's' && n[11] == 'o';
	}
	return n[3] == 'n' && n[4] == 'c' && n[5] == 'c' && n[6] == 'l' && n[7] == '.' &&
	       n[8] == 's' && n[9] == 'o';
}

/*
 * As mmap() returns: an executable mapping of a CUDA library the recorder
 * has not attached stops the process; the signal is taken on the way out
 * of the system call, with the mapping in place.
 */
static __always_inline int hold_mmap(__u64 prot, __u64 fd_arg, long ret)
{
	if (!targ_hold || (ret < 0 && ret > -4096) || !(prot & 4 /* PROT_EXEC */))
		return 0;
	if (targ_mode == REC_MODE_PIDS ||
	    (targ_mode == REC_MODE_UID && (__u32)bpf_get_current_uid_gid() != targ_uid))
		return 0;
	__u32 fd = (__u32)fd_arg;
	struct task_struct *task = (void *)bpf_get_current_task();
	struct fdtable *fdt = BPF_CORE_READ(task, files, fdt);
	if (!fdt || fd >= BPF_CORE_READ(fdt, max_fds))
		return 0;
	struct file **fds = BPF_CORE_READ(fdt, fd), *file = NULL;
	bpf_probe_read_kernel(&file, sizeof(file), &fds[fd]);
	if (!file)
		return 0;
	struct inode *ino = BPF_CORE_READ(file, f_inode);
	struct rec_file_key k = { .dev = BPF_CORE_READ(ino, i_sb, s_dev),
				  .ino = BPF_CORE_READ(ino, i_ino) };
	if (bpf_map_lookup_elem(&lib_files, &k))
		return 0;
	char name[16] = {};
	bpf_probe_read_kernel_str(name, sizeof(name), BPF_CORE_READ(file, f_path.dentry, d_name.name));
	if (!cuda_lib_name(name))
		return 0;
	__u32 tgid = bpf_get_current_pid_tgid() >> 32;
	struct rec_hold_ent h = { .ts_ns = bpf_ktime_get_ns(), .file = k };
	if (bpf_map_lookup_elem(&holds, &tgid))
		return 0; /* already stopping (another thread) */
	if (hold_off())
		return 0;
	struct rec_hold_msg *m = bpf_ringbuf_reserve(&crit_rb, sizeof(*m), 0);
	if (!m) {
		count_rb(REC_RB_CRIT, 0);
		hold_count(REC_HOLD_MISSED);
		return 0;
	}
	if (bpf_map_update_elem(&holds, &tgid, &h, BPF_NOEXIST)) {
		bpf_ringbuf_discard(m, 0);
		hold_count(REC_HOLD_MISSED);
		return 0;
	}
	bpf_send_signal(19 /* SIGSTOP */);
	m->h.type = REC_MSG_HOLD;
	m->h.len = sizeof(*m);
	m->pid = tgid;
	m->_pad = 0;
	m->file = k;
	bpf_ringbuf_submit(m, 0);
	count_rb(REC_RB_CRIT, 1);
	hold_count(REC_HOLD_HELD);
	return 0;
}

/* mmap() calls with PROT_EXEC on their way: tid -> fd */
struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, 4096);
	__type(key, __u32);
	__type(value, __u64);
} hold_mmaps SEC(".maps");

/*
 * The watch with no cost to the rest of the host: the raw tracepoint of
 * the release of an address space's lock for writing, which mmap() takes
 * around the mapping (vm_mmap_pgoff), so it fires with the mapping in
 * place; the system call's number and arguments are read from the task's
 * saved registers.  A process that does not map, unmap or protect memory
 * runs nothing, and no task is put on the kernel's slow system-call path
 * as a system call's tracepoints do.  The mmap() being a system call of
 * its own, a failure cannot be told from here: a failed executable
 * mapping of a new CUDA library stops its process as a mapped one would,
 * as briefly.  The recorder loads the program that matches the kernel's
 * arguments (its BTF): (mm, write), or (mm, memcg_path, write) where the
 * tracepoint still passes a memory cgroup's path.
 */
static __always_inline int hold_mmap_locked(__u64 mm, __u64 write)
{
	if (!targ_hold || !(__u8)write)
		return 0;
	struct task_struct *t = bpf_get_current_task_btf();
	if ((t->flags & 0x00200000 /* PF_KTHREAD */) || (__u64)t->mm != mm)
		return 0;
	struct pt_regs *regs = (struct pt_regs *)bpf_task_pt_regs(t);
	if (!regs || regs->orig_ax != 9 /* x86-64 __NR_mmap */ ||
	    (regs->r10 & 0x20 /* MAP_ANONYMOUS */))
		return 0;
	return hold_mmap(regs->dx, regs->r8, 0);
}

SEC("raw_tp/mmap_lock_released")
int hold_mmap_lock(struct bpf_raw_tracepoint_args *ctx)
{
	return hold_mmap_locked(ctx->args[0], ctx->args[1]);
}

SEC("raw_tp/mmap_lock_released")
int hold_mmap_lock_path(struct bpf_raw_tracepoint_args *ctx)
{
	return hold_mmap_locked(ctx->args[0], ctx->args[2]);
}

/* Where that tracepoint is missing: the tracepoints of mmap() alone.  The
 * other system calls of the host run no program, but while any system
 * call's tracepoint is on, every task takes the kernel's slower path into
 * and out of each system call (bench/record: +9% on a 1-byte dd).  The
 * raw tracepoint below runs a program on every one, about 100 ns each. */
SEC("tp/syscalls/sys_enter_mmap")
int hold_mmap_enter(struct trace_event_raw_sys_enter *ctx)
{
	if (!targ_hold || !(ctx->args[2] & 4 /* PROT_EXEC */) || (long)ctx->args[4] < 0)
		return 0;
	__u32 tid = (__u32)bpf_get_current_pid_tgid();
	__u64 fd = ctx->args[4];
	bpf_map_update_elem(&hold_mmaps, &tid, &fd, BPF_ANY);
	return 0;
}

SEC("tp/syscalls/sys_exit_mmap")
int hold_mmap_exit(struct trace_event_raw_sys_exit *ctx)
{
	__u32 tid = (__u32)bpf_get_current_pid_tgid();
	__u64 *fd = bpf_map_lookup_elem(&hold_mmaps, &tid);
	if (!fd)
		return 0;
	__u64 f = *fd;
	bpf_map_delete_elem(&hold_mmaps, &tid);
	return hold_mmap(4 /* PROT_EXEC */, f, ctx->ret);
}

/* Where the kernel has no per-system-call tracepoints: the raw tracepoint
 * of every system call's exit, filtered on the number first. */
SEC("raw_tp/sys_exit")
int hold_new_lib(struct bpf_raw_tracepoint_args *ctx)
{
	if (!targ_hold)
		return 0;
	struct pt_regs *regs = (void *)ctx->args[0];
	if (BPF_CORE_READ(regs, orig_ax) != 9 /* x86-64 __NR_mmap */)
		return 0;
	return hold_mmap(BPF_CORE_READ(regs, dx), BPF_CORE_READ(regs, r8), (long)ctx->args[1]);
}

/* ---- host ---- */

static __always_inline struct ingero_host_event *host_reserve(void *rb, __u32 ring, __u16 type,
							      struct rec_host **mp)
{
	struct rec_host_stat *hs;
	__u32 t = type;
	hs = bpf_map_lookup_elem(&host_stats, &t);
	if (hs)
		hs->seen++;
	struct rec_host *m = bpf_ringbuf_reserve(rb, sizeof(*m), 0);
	if (!m) {
		if (hs)
			hs->lost++;
		count_rb(ring, 0);
		return NULL;
	}
	count_rb(ring, 1);
	__builtin_memset(m, 0, sizeof(*m));
	m->h.type = REC_MSG_HOST;
	m->h.len = sizeof(*m);
	m->ev.type = type;
	*mp = m;
	return &m->ev;
}

/* the whole host: cgroups, page allocations, reclaim and compaction */
#include "host.bpf.h"
/* block devices: request latency per device and process */
#include "disk.bpf.h"
/* the network: TCP retransmissions per flow, socket volume per process */
#include "net.bpf.h"

static __always_inline __u32 task_state(struct task_struct *t)
{
	if (bpf_core_field_exists(t->__state))
		return BPF_CORE_READ(t, __state);
	struct task_struct___old {
		long state;
	} *o = (void *)t;
	return (__u32)BPF_CORE_READ(o, state);
}

/* The window aggregate of target process tgid (t: one of its tasks). */
static __always_inline struct rec_sched_agg *sched_agg_of(__u32 tgid, struct task_struct *t)
{
	struct rec_sched_agg *a = bpf_map_lookup_elem(&sched_agg, &tgid);
	if (a)
		return a;
	struct rec_sched_agg z = {};
	BPF_CORE_READ_STR_INTO(&z.comm, t, group_leader, comm);
	bpf_map_update_elem(&sched_agg, &tgid, &z, BPF_NOEXIST);
	return bpf_map_lookup_elem(&sched_agg, &tgid);
}

/*
 * What the current thread, blocking (state, not 0), is waiting for: the class of
 * the system call it sleeps in (x86-64 numbers, from its saved registers;
 * -1 outside a system call), or ILOG_WAIT_KERNEL for an uninterruptible
 * sleep (TASK_UNINTERRUPTIBLE, 0x2) that is not I/O: a kernel lock or a
 * page fault, whatever the call.
 */
static __always_inline __u32 wait_class(__u32 state)
{
	if (state & 0x2)
		return ILOG_WAIT_KERNEL;
	/* sched_switch runs on the thread being switched out */
	struct pt_regs *regs = (struct pt_regs *)bpf_task_pt_regs(bpf_get_current_task_btf());
	if (!regs)
		return ILOG_WAIT_OTHER;
	switch ((long)BPF_CORE_READ(regs, orig_ax)) {
	case 202: /* futex */
	case 449: /* futex_waitv */
		return ILOG_WAIT_LOCK;
	case 7:   /* poll */
	case 23:  /* select */
	case 232: /* epoll_wait */
	case 270: /* pselect6 */
	case 271: /* ppoll */
	case 281: /* epoll_pwait */
	case 441: /* epoll_pwait2 */
		return ILOG_WAIT_POLL;
	case 0:   /* read */
	case 17:  /* pread64 */
	case 19:  /* readv */
	case 45:  /* recvfrom */
	case 47:  /* recvmsg */
	case 295: /* preadv */
	case 299: /* recvmmsg */
	case 327: /* preadv2 */
		return ILOG_WAIT_READ;
	case 1:   /* write */
	case 18:  /* pwrite64 */
	case 20:  /* writev */
	case 44:  /* sendto */
	case 46:  /* sendmsg */
	case 296: /* pwritev */
	case 307: /* sendmmsg */
	case 328: /* pwritev2 */
		return ILOG_WAIT_WRITE;
	case 61:  /* wait4 */
	case 247: /* waitid */
		return ILOG_WAIT_CHILD;
	case 34:  /* pause */
	case 35:  /* nanosleep */
	case 128: /* rt_sigtimedwait */
	case 130: /* rt_sigsuspend */
	case 230: /* clock_nanosleep */
		return ILOG_WAIT_SLEEP;
	}
	return ILOG_WAIT_OTHER;
}

/* raw_tp sched_switch(bool preempt, prev, next[, prev_state]) */
SEC("raw_tp/sched_switch")
int sched_switch(struct bpf_raw_tracepoint_args *ctx)
{
	struct task_struct *prev = (void *)ctx->args[1], *next = (void *)ctx->args[2];
	__u64 now = bpf_ktime_get_ns();
	__u32 cpu = bpf_get_smp_processor_id();
	__u32 prev_tgid = BPF_CORE_READ(prev, tgid);

	if (is_target(prev_tgid)) {
		__u32 prev_tid = BPF_CORE_READ(prev, pid);
		__u32 state = task_state(prev);
		struct rec_inflight *in = bpf_map_lookup_elem(&inflight, &prev_tid);
		/* preempted, or off CPU inside a traced call: keep the detail */
		__u32 flags = state == 0 || (in && in->depth > 0) ? OFFCPU_DETAIL : 0;
		/* blocked in io_schedule() (disk reads, page-cache misses) */
		if (state && BPF_CORE_READ_BITFIELD_PROBED(prev, in_iowait))
			flags |= OFFCPU_IOWAIT;
		else if (state && in && in->depth == 0) /* a calling thread, between calls */
			flags |= OFFCPU_WAIT | wait_class(state) << 8;
		if (flags) {
			struct offcpu oc = { .ts = now, .cpu = cpu, .state = state, .flags = flags };
			if (flags & OFFCPU_DETAIL) {
				oc.other_pid = BPF_CORE_READ(next, tgid);
				oc.other_tid = BPF_CORE_READ(next, pid);
				BPF_CORE_READ_STR_INTO(&oc.other_comm, next, comm);
				oc.other_cgid = task_cgid_live(next);
			}
			bpf_map_update_elem(&offcpu, &prev_tid, &oc, BPF_ANY);
		}
		if (!(flags & OFFCPU_DETAIL)) {
			struct rec_sched_agg *a = sched_agg_of(prev_tgid, prev);
			if (a)
				__sync_fetch_and_add(&a->switches, 1);
		}
	}

	__u32 next_tid = BPF_CORE_READ(next, pid);
	struct waking *w = bpf_map_lookup_elem(&wakeups, &next_tid);
	if (w) {
		__u64 wait = now - w->ts;
		if (wait >= targ_wakeup_min_ns) {
			struct rec_host *m;
			struct ingero_host_event *e = host_reserve(&host_rb, REC_RB_HOST,
								   ILOG_HOST_WAKEUP, &m);
			if (e) {
				e->ts_ns = w->ts;
				e->dur_ns = wait;
				e->pid = BPF_CORE_READ(next, tgid);
				e->tid = next_tid;
				e->other_pid = w->waker_pid;
				e->other_tid = w->waker_tid;
				e->cpu = cpu;
				e->cgroup_id = task_cgid(next);
				BPF_CORE_READ_STR_INTO(&e->comm, next, comm);
				__builtin_memcpy(e->other_comm, w->waker_comm, INGERO_COMM_LEN);
				m->other_cgroup_id = w->waker_cgid;
				/* the occupant: who held this CPU until the woken
				 * thread got it (the idle task: tgid 0, nobody) */
				e->value = prev_tgid;
				if (prev_tgid) {
					BPF_CORE_READ_STR_INTO(&m->occ_comm, prev, group_leader, comm);
					m->occ_cgroup_id = task_cgid_live(prev);
				}
				bpf_ringbuf_submit(m, BPF_RB_NO_WAKEUP);
			}
		}
		bpf_map_delete_elem(&wakeups, &next_tid);
	}

	struct offcpu *oc = bpf_map_lookup_elem(&offcpu, &next_tid);
	if (!oc)
		return 0;
	if (oc->flags & (OFFCPU_IOWAIT | OFFCPU_WAIT)) {
		__u32 tgid = BPF_CORE_READ(next, tgid);
		struct rec_sched_agg *a = sched_agg_of(tgid, next);
		__u32 cls = OFFCPU_CLASS(oc->flags);
		if (a && (oc->flags & OFFCPU_IOWAIT)) {
			__sync_fetch_and_add(&a->iowait_ns, now - oc->ts);
			__sync_fetch_and_add(&a->iowaits, 1);
		} else if (a && cls < ILOG_WAIT__COUNT) {
			__sync_fetch_and_add(&a->wait_ns[cls], now - oc->ts);
			__sync_fetch_and_add(&a->waits[cls], 1);
		}
		if (!(oc->flags & OFFCPU_DETAIL)) {
			bpf_map_delete_elem(&offcpu, &next_tid);
			return 0;
		}
	}
	/* who took the CPU from a target thread, and for how long */
	struct rec_host *m;
	struct ingero_host_event *e = host_reserve(&host_rb, REC_RB_HOST, ILOG_HOST_SWITCH, &m);
	if (e) {
		e->ts_ns = oc->ts;
		e->dur_ns = now - oc->ts;
		e->pid = BPF_CORE_READ(next, tgid);
		e->tid = next_tid;
		e->other_pid = oc->other_pid;
		e->other_tid = oc->other_tid;
		e->cpu = oc->cpu;
		e->value = oc->state;
		e->cgroup_id = task_cgid(next);
		BPF_CORE_READ_STR_INTO(&e->comm, next, comm);
		__builtin_memcpy(e->other_comm, oc->other_comm, INGERO_COMM_LEN);
		m->other_cgroup_id = oc->other_cgid;
		bpf_ringbuf_submit(m, BPF_RB_NO_WAKEUP);
	}
	bpf_map_delete_elem(&offcpu, &next_tid);
	return 0;
}

/* raw_tp sched_wakeup(struct task_struct *p) */
SEC("raw_tp/sched_wakeup")
int sched_wakeup(struct bpf_raw_tracepoint_args *ctx)
{
	struct task_struct *p = (void *)ctx->args[0];
	__u32 tgid = BPF_CORE_READ(p, tgid);
	if (!is_target(tgid))
		return 0;
	__u32 tid = BPF_CORE_READ(p, pid);
	__u64 id = bpf_get_current_pid_tgid();
	struct waking w = { .ts = bpf_ktime_get_ns(), .waker_pid = id >> 32,
			    .waker_tid = (__u32)id };
	bpf_get_current_comm(&w.waker_comm, sizeof(w.waker_comm));
	w.waker_cgid = task_cgid_live((struct task_struct *)bpf_get_current_task());
	bpf_map_update_elem(&wakeups, &tid, &w, BPF_ANY);
	return 0;
}

static __always_inline void crit_event(__u16 type, struct task_struct *t, __u32 other_pid,
				       __u32 other_tid, struct task_struct *other, __u64 value)
{
	struct rec_host *m;
	struct ingero_host_event *e = host_reserve(&crit_rb, REC_RB_CRIT, type, &m);
	if (!e)
		return;
	e->ts_ns = bpf_ktime_get_ns();
	e->pid = BPF_CORE_READ(t, tgid);
	e->tid = BPF_CORE_READ(t, pid);
	e->other_pid = other_pid;
	e->other_tid = other_tid;
	e->cpu = bpf_get_smp_processor_id();
	e->value = value;
	e->cgroup_id = task_cgid(t);
	BPF_CORE_READ_STR_INTO(&e->comm, t, comm);
	if (other)
		BPF_CORE_READ_STR_INTO(&e->other_comm, other, comm);
	bpf_ringbuf_submit(m, 0);
}

/* raw_tp sched_process_fork(struct task_struct *parent, struct task_struct *child) */
SEC("raw_tp/sched_process_fork")
int sched_process_fork(struct bpf_raw_tracepoint_args *ctx)
{
	struct task_struct *parent = (void *)ctx->args[0], *child = (void *)ctx->args[1];
	__u32 ptgid = BPF_CORE_READ(parent, tgid), ctgid = BPF_CORE_READ(child, tgid);
	if (ptgid == ctgid || !is_target(ptgid))
		return 0; /* a new thread, or not ours */
	struct rec_target t = { .flags = REC_TARGET_NOTED };
	bpf_map_update_elem(&targets, &ctgid, &t, BPF_ANY);
	py_fork(ptgid, ctgid);
	if (bpf_map_lookup_elem(&hold, &ptgid)) {
		__u8 one = 1;
		bpf_map_update_elem(&hold, &ctgid, &one, BPF_ANY);
	}
	crit_event(ILOG_HOST_FORK, parent, ctgid, BPF_CORE_READ(child, pid), child, 0);
	return 0;
}

/* raw_tp sched_process_exec(struct task_struct *p, pid_t old_pid, struct linux_binprm *) */
SEC("raw_tp/sched_process_exec")
int sched_process_exec(struct bpf_raw_tracepoint_args *ctx)
{
	struct task_struct *p = (void *)ctx->args[0];
	__u32 tgid = BPF_CORE_READ(p, tgid);
	if (!is_target(tgid))
		return 0;
	py_forget(tgid);
	crit_event(ILOG_HOST_EXEC, p, 0, 0, NULL, 0);
	return 0;
}

/* A thread died inside traced calls: report them as never returning. */
static __always_inline void flush_inflight(__u32 tgid, __u32 tid)
{
	struct rec_inflight *in = bpf_map_lookup_elem(&inflight, &tid);
	if (!in)
		return;
	__u64 now = bpf_ktime_get_ns();
	__u32 d = in->depth;
	for (int i = 0; i < REC_MAX_DEPTH; i++) {
		if (d == 0)
			break;
		d--;
		struct rec_frame *f = &in->f[d & (REC_MAX_DEPTH - 1)];
		if (f->skip)
			continue;
		struct rec_cuda *m = bpf_ringbuf_reserve(&cuda_rb, sizeof(*m), 0);
		__u32 op = REC_COOKIE_OP(f->cookie);
		if (!m) {
			struct rec_op_stat *st = bpf_map_lookup_elem(&op_stats, &op);
			if (st)
				st->lost++;
			count_rb(REC_RB_CUDA, 0);
			continue;
		}
		m->h.type = REC_MSG_CUDA;
		m->h.len = sizeof(*m);
		fill_event(&m->ev, f, now, tgid, tid);
		m->ev.ret = 0;
		m->ev.flags |= ILOG_CUDA_F_NO_RETURN;
		bpf_ringbuf_submit(m, 0);
		count_rb(REC_RB_CUDA, 1);
	}
	bpf_map_delete_elem(&inflight, &tid);
}

/* raw_tp sched_process_exit(struct task_struct *p[, bool group_dead]) */
SEC("raw_tp/sched_process_exit")
int sched_process_exit(struct bpf_raw_tracepoint_args *ctx)
{
	struct task_struct *p = (void *)ctx->args[0];
	__u32 tgid = BPF_CORE_READ(p, tgid), tid = BPF_CORE_READ(p, pid);
	bpf_map_delete_elem(&offcpu, &tid);
	bpf_map_delete_elem(&wakeups, &tid);
	hold_forget(p, tgid);
	if (!is_target(tgid)) {
		bpf_map_delete_elem(&inflight, &tid);
		return 0;
	}
	flush_inflight(tgid, tid);
	py_thread_exit(tid);
	/* do_exit() counts live threads down before this tracepoint */
	if (BPF_CORE_READ(p, signal, live.counter) != 0)
		return 0; /* a thread; the process lives on */
	bpf_map_delete_elem(&hold, &tgid);
	py_forget(tgid);
	/* exit_code: status << 8 | signal, as wait(2) reports it */
	crit_event(ILOG_HOST_EXIT, p, 0, 0, NULL, (__u32)BPF_CORE_READ(p, exit_code));
	/* the entry stays until the recorder drains the aggregates of the last
	 * window; it deletes exited targets then */
	return 0;
}

/* raw_tp mark_victim: the OOM killer chose a victim.  Since 6.8 the
 * first argument is the victim's task, before that its pid. */
SEC("raw_tp/mark_victim")
int mark_victim(struct bpf_raw_tracepoint_args *ctx)
{
	__u64 a0 = ctx->args[0];
	struct task_struct *victim = a0 > 0xffffffffull ? (void *)a0 : NULL;
	struct rec_host *m;
	struct ingero_host_event *e = host_reserve(&crit_rb, REC_RB_CRIT, ILOG_HOST_OOM, &m);
	if (!e)
		return 0;
	__u64 id = bpf_get_current_pid_tgid();
	e->ts_ns = bpf_ktime_get_ns();
	e->pid = victim ? BPF_CORE_READ(victim, tgid) : (__u32)a0;
	e->tid = victim ? BPF_CORE_READ(victim, pid) : (__u32)a0;
	e->other_pid = id >> 32;   /* the task that ran out of memory */
	e->other_tid = (__u32)id;
	e->cpu = bpf_get_smp_processor_id();
	if (victim) {
		e->cgroup_id = task_cgid(victim);
		BPF_CORE_READ_STR_INTO(&e->comm, victim, comm);
	}
	bpf_get_current_comm(&e->other_comm, sizeof(e->other_comm));
	__u64 ts = e->ts_ns;
	bpf_ringbuf_submit(m, 0);
	/* a cgroup's limit enforced: which, its limit and usage (x86-64 pages) */
	__u64 limit = 0, usage = 0, cg = victim ? memcg_at_limit(victim, &limit, &usage) : 0;
	if (!cg)
		return 0;
	e = host_reserve(&crit_rb, REC_RB_CRIT, ILOG_HOST_OOM_MEMCG, &m);
	if (!e)
		return 0;
	e->ts_ns = ts;
	e->pid = BPF_CORE_READ(victim, tgid);
	e->tid = BPF_CORE_READ(victim, pid);
	e->other_pid = id >> 32;
	e->other_tid = (__u32)id;
	e->cpu = bpf_get_smp_processor_id();
	e->value = limit * 4096;
	e->dur_ns = usage * 4096;
	e->cgroup_id = cg;
	BPF_CORE_READ_STR_INTO(&e->comm, victim, comm);
	bpf_get_current_comm(&e->other_comm, sizeof(e->other_comm));
	bpf_ringbuf_submit(m, 0);
	return 0;
}
