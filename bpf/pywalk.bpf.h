/* SPDX-License-Identifier: MIT */
/*
 * The CPython frame walker, run on each recorded CUDA event of a process
 * the recorder found an interpreter in (cmd/ingero-record/python.c fills
 * `py_procs`).  It finds the calling thread's PyThreadState, walks the
 * frame chain from the innermost frame outwards, and keeps per frame only
 * the code object's address and the instruction offset: 16 bytes a frame,
 * no strings.  The recorder reads each code object once, later, from user
 * space.  Included by record.bpf.c after its maps and count_rb().
 *
 * Finding the thread state.  The obvious pointers do not work here:
 * _PyRuntime's "current thread state" is the GIL holder, and ctypes,
 * PyTorch and most CUDA bindings release the GIL around the very calls
 * traced; the thread-local copies (autoTSSkey, 3.12's _Py_tss_tstate)
 * need glibc's or the loader's TLS layout, which differ between a static
 * interpreter and libpython.  What every version has is the list of
 * thread states of each interpreter, each stamped with the pthread_self()
 * of its thread (PyThreadState.thread_id), and on x86-64 pthread_self() is
 * the thread's FS base, which the kernel keeps in task->thread.fsbase.  So
 * the walker looks for the thread state whose thread_id is the caller's FS
 * base, the same way for a static python and for libpython, in and out of
 * pid namespaces, and caches the answer per thread.
 */
#ifndef INGERO_PYWALK_BPF_H
#define INGERO_PYWALK_BPF_H

#include "pywalk.h"

/* --py-walker=off clears it */
const volatile bool targ_pywalk = true;
/* Bumped by the recorder after it puts an interpreter in py_procs: a
 * thread that found none at an older generation looks again. */
__u32 py_gen = 0;

#define PY_MAX_THREADS 256   /* thread states looked at to find the caller's */
#define PY_MAX_WALK 64       /* frames looked at, shim frames included */
#define PY_MISS_RECHECK_NS 1000000000ull /* a thread without a state: look again after 1s */

struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, 8192);
	__type(key, __u32);              /* tgid */
	__type(value, struct rec_py_proc);
} py_procs SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_LRU_HASH);
	__uint(max_entries, 65536);
	__type(key, __u32);              /* tid */
	__type(value, struct rec_py_thread);
} py_threads SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct rec_pystack);
} pystack_buf SEC(".maps");

/* Python stack ids already sent; an evicted id is sent again (same content). */
struct {
	__uint(type, BPF_MAP_TYPE_LRU_HASH);
	__uint(max_entries, 65536);
	__type(key, __u64);
	__type(value, __u8);
} pystacks_seen SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct rec_py_stat);
} py_stats SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_LRU_HASH);
	__uint(max_entries, 131072);
	__type(key, struct rec_py_code_key);
	__type(value, __u32);
} py_code_gen SEC(".maps");

/* One frame's first bytes, read at once (struct rec_py_proc.fr_size). */
#define PY_FRAME_READ REC_PY_FRAME_READ
struct py_frame_bytes {
	__u8 b[PY_FRAME_READ + 8];
};

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct py_frame_bytes);
} py_frame_buf SEC(".maps");

/* A field of the frame bytes; the mask bounds the offset for the verifier
 * (the recorder keeps every offset below fr_size <= PY_FRAME_READ). */
#define PY_FIELD(buf, off, type) (*(type *)((buf) + ((off) & (PY_FRAME_READ - 1))))

static __always_inline __u64 py_ptr(__u64 addr)
{
	__u64 v = 0;
	if (bpf_probe_read_user(&v, sizeof(v), (void *)addr))
		return 0;
	return v;
}

static __always_inline __s32 py_int(__u64 addr)
{
	__s32 v = 0;
	bpf_probe_read_user(&v, sizeof(v), (void *)addr);
	return v;
}

/* The thread state whose thread_id is `self`, in any interpreter; 0 if none. */
static __always_inline __u64 py_find_tstate(const struct rec_py_proc *p, __u64 self)
{
	__u64 interp = py_ptr(p->runtime + p->rt_interp_head);
	__u64 t = interp ? py_ptr(interp + p->interp_threads) : 0;
	for (int i = 0; i < PY_MAX_THREADS; i++) {
		if (!t) {
			if (!interp)
				break;
			interp = py_ptr(interp + p->interp_next);
			if (!interp)
				break;
			t = py_ptr(interp + p->interp_threads);
			continue;
		}
		if (py_ptr(t + p->ts_thread_id) == self)
			return t;
		t = py_ptr(t + p->ts_next);
	}
	return 0;
}

/* The calling thread's state: cached per thread, checked on each use. */
static __always_inline __u64 py_tstate(const struct rec_py_proc *p, __u32 tgid,
				       struct rec_py_stat *st)
{
	struct task_struct *task = (void *)bpf_get_current_task();
	__u64 self = BPF_CORE_READ(task, thread.fsbase);
	__u32 tid = (__u32)bpf_get_current_pid_tgid();
	__u64 now = bpf_ktime_get_ns();
	struct rec_py_thread *c = bpf_map_lookup_elem(&py_threads, &tid);
	if (c && c->tgid == tgid && c->fsbase == self) {
		if (c->tstate && py_ptr(c->tstate + p->ts_thread_id) == self)
			return c->tstate;
		if (!c->tstate && now - c->ts < PY_MISS_RECHECK_NS) {
			st->nothread++;
			return 0;
		}
	}
	struct rec_py_thread n = { .fsbase = self, .ts = now, .tgid = tgid };
	n.tstate = py_find_tstate(p, self);
	bpf_map_update_elem(&py_threads, &tid, &n, BPF_ANY);
	if (!n.tstate)
		st->nothread++;
	return n.tstate;
}

/*
 * Walk the calling thread's Python frames into a pystack message, send it
 * unless an identical one was, and return its id (0: no Python stack).
 * A global function: the verifier checks it once, apart from its callers.
 */
__noinline __u64 py_walk(__u32 tgid)
{
	__u32 zero = 0;
	struct rec_py_proc *p = bpf_map_lookup_elem(&py_procs, &tgid);
	if (!p)
		return 0;
	struct rec_py_stat *st = bpf_map_lookup_elem(&py_stats, &zero);
	struct rec_pystack *s = bpf_map_lookup_elem(&pystack_buf, &zero);
	if (!st || !s)
		return 0;
	st->walks++;
	__u64 ts = py_tstate(p, tgid, st);
	if (!ts)
		return 0;
	__u64 f = py_ptr(ts + p->ts_frame);
	if (f && p->cframe_current != REC_PY_NONE)
		f = py_ptr(f + p->cframe_current);

	__u8 *fb = bpf_map_lookup_elem(&py_frame_buf, &zero);
	if (!fb)
		return 0;
	__u32 fr_size = p->fr_size;
	if (fr_size > PY_FRAME_READ)
		fr_size = PY_FRAME_READ;
	/* the frame count lives in the map value, not in a register: the
	 * verifier then sees one state per iteration, not one per count */
	s->st.nr = 0;
	s->st.entry = 0;
	for (int i = 0; i < PY_MAX_WALK; i++) {
		/* one read per frame: the fields the walk needs are all near its start */
		if (!f || bpf_probe_read_user(fb, fr_size, (void *)f))
			break;
		__u64 code = PY_FIELD(fb, p->fr_code, __u64);
		__u32 lasti = REC_PY_LASTI_NONE;
		int keep = code != 0, entry = 0;
		if (p->instr == REC_PY_LASTI) {
			__s32 l = PY_FIELD(fb, p->fr_instr, __s32);
			lasti = l < 0 ? REC_PY_LASTI_NONE : (__u32)l;
			entry = 1; /* 3.10: every frame has its own C call of the eval loop */
		} else if (keep) {
			__u8 owner = p->fr_owner != REC_PY_NONE ? PY_FIELD(fb, p->fr_owner, __u8)
								 : REC_PY_NO_OWNER;
			__u64 base = code + p->co_code;
			__u64 ip = PY_FIELD(fb, p->fr_instr, __u64);
			if (p->fr_is_entry != REC_PY_NONE)
				entry = PY_FIELD(fb, p->fr_is_entry, __u8) != 0; /* 3.11 */
			/* A frame of the C stack, or one pushed whose first traceable
			 * instruction has not run: CPython hides both.  A frame that
			 * has not started cannot have called anything, so only the
			 * innermost frames can be incomplete: once one is kept, the
			 * code object need not be read for the others. */
			if (owner == p->owner_cstack) {
				/* 3.12+: the shim an eval-loop call pushes below the
				 * first frame it runs, so the frame kept last was
				 * entered from C */
				keep = 0;
				__u32 last = s->st.nr - 1;
				if (s->st.nr)
					s->st.entry |= 1ull << (last & 63);
			} else if (s->st.nr == 0 && owner != p->owner_generator &&
				 p->co_firsttraceable != REC_PY_NONE &&
				 ip < base + 2 * (__s64)py_int(code + p->co_firsttraceable))
				keep = 0;
			else if (ip >= base && ip - base < 0x1ffffffffull)
				lasti = (__u32)((ip - base) / 2);
		}
		if (keep) {
			__u32 n = s->st.nr;
			if (n >= INGERO_MAX_PYFRAMES) {
				st->truncated++;
				break;
			}
			struct rec_py_code_key k = { .code = code, .tgid = tgid };
			__u32 *gen = bpf_map_lookup_elem(&py_code_gen, &k);
			struct ingero_pyframe *fr = &s->st.frames[n & (INGERO_MAX_PYFRAMES - 1)];
			fr->code = code;
			fr->lasti = lasti;
			fr->_pad = gen ? *gen : 0; /* the recorder's: not in the log record */
			if (entry)
				s->st.entry |= 1ull << (n & 63);
			s->st.nr = n + 1;
		}
		f = PY_FIELD(fb, p->fr_back, __u64);
	}
	__u32 nr = s->st.nr;
	if (!nr || nr > INGERO_MAX_PYFRAMES) {
		st->empty++;
		return 0;
	}
	/* content hash of (pid, frames with their code generations) */
	__u64 h = 0xcbf29ce484222325ull ^ tgid;
	for (__u32 i = 0; i < INGERO_MAX_PYFRAMES; i++) {
		if (i >= nr)
			break;
		h = (h ^ s->st.frames[i].code) * 0x100000001b3ull;
		h = (h ^ s->st.frames[i].lasti) * 0x100000001b3ull;
		h = (h ^ s->st.frames[i]._pad) * 0x100000001b3ull;
		h ^= h >> 29;
	}
	h = (h ^ s->st.entry) * 0x100000001b3ull;
	if (!h)
		h = 1;
	/* a lookup first: much cheaper than an LRU update that finds the key */
	if (bpf_map_lookup_elem(&pystacks_seen, &h))
		return h; /* already sent */
	__u8 one = 1;
	if (bpf_map_update_elem(&pystacks_seen, &h, &one, BPF_NOEXIST) != 0)
		return h; /* sent by another CPU just now */
	s->h.type = REC_MSG_PYSTACK;
	__u64 len = REC_PYSTACK_HDR_LEN + (__u64)nr * sizeof(struct ingero_pyframe);
	/* the compiler knows nr <= 32 from above, the verifier no longer
	 * does: keep the bound check in the program */
	barrier_var(len);
	if (len > sizeof(*s))
		len = sizeof(*s);
	s->h.len = (__u32)len;
	s->st.id = h;
	s->st.pid = tgid;
	s->st.nr = nr;
	if (bpf_ringbuf_output(&cuda_rb, s, len, BPF_RB_NO_WAKEUP)) {
		bpf_map_delete_elem(&pystacks_seen, &h);
		st->lost++;
		count_rb(REC_RB_CUDA, 0);
		return h; /* the event still names it; the loss record says it is missing */
	}
	st->sent++;
	count_rb(REC_RB_CUDA, 1);
	return h;
}

/*
 * The Python stack of a call of the thread whose inflight entry is `in`:
 * py_walk() where its process has an interpreter; where it had none at
 * this generation of py_procs, nothing, without a look (the common case
 * of a process that is not Python costs one read).  The generation is read
 * before the look: an interpreter added after it bumps it again.
 */
static __always_inline __u64 py_stack(__u32 *py_none, __u32 tgid)
{
	if (!targ_pywalk)
		return 0;
	__u32 gen = *(volatile __u32 *)&py_gen + 1;
	if (*py_none == gen)
		return 0;
	if (!bpf_map_lookup_elem(&py_procs, &tgid)) {
		*py_none = gen;
		return 0;
	}
	return py_walk(tgid);
}

/*
 * PyCode_Type's tp_dealloc, attached by the recorder in each interpreter
 * file: a code object of a walked process is being freed, so the next one
 * at its address is another.
 */
SEC("uprobe")
int py_code_free(struct pt_regs *ctx)
{
	__u32 tgid = bpf_get_current_pid_tgid() >> 32;
	if (!bpf_map_lookup_elem(&py_procs, &tgid))
		return 0;
	struct rec_py_code_key k = { .code = PT_REGS_PARM1(ctx), .tgid = tgid };
	__u32 *gen = bpf_map_lookup_elem(&py_code_gen, &k);
	if (gen) {
		__sync_fetch_and_add(gen, 1);
	} else {
		__u32 one = 1;
		bpf_map_update_elem(&py_code_gen, &k, &one, BPF_NOEXIST);
	}
	return 0;
}

/* A forked child runs the same interpreter at the same addresses. */
static __always_inline void py_fork(__u32 parent, __u32 child)
{
	struct rec_py_proc *p = bpf_map_lookup_elem(&py_procs, &parent);
	if (p)
		bpf_map_update_elem(&py_procs, &child, p, BPF_ANY);
}

/* exec replaced the interpreter, or the process exited: the recorder
 * looks again at the new image */
static __always_inline void py_forget(__u32 tgid)
{
	bpf_map_delete_elem(&py_procs, &tgid);
}

static __always_inline void py_thread_exit(__u32 tid)
{
	bpf_map_delete_elem(&py_threads, &tid);
}

#endif /* INGERO_PYWALK_BPF_H */
