/* SPDX-License-Identifier: MIT */
/*
 * Private contract between the CPython frame walker (bpf/pywalk.bpf.h)
 * and cmd/ingero-record/python.c: the per-process interpreter description
 * the recorder computes and the walker uses, and the ring message carrying
 * a Python stack.  Not a log format; the log record is struct
 * ingero_pystack (ingero_events.h).
 */
#ifndef INGERO_PYWALK_H
#define INGERO_PYWALK_H

#include "record.h"

/* How a frame says which instruction it is at. */
enum rec_py_instr {
	REC_PY_LASTI = 0,      /* 3.10 PyFrameObject.f_lasti: int, code units, -1 = none */
	REC_PY_PREV_INSTR = 1, /* 3.11/3.12 _PyInterpreterFrame.prev_instr: the last started */
	REC_PY_INSTR_PTR = 2,  /* 3.13 instr_ptr: the one executing now */
};

#define REC_PY_NONE 0xffff     /* offset absent in this version */
#define REC_PY_NO_OWNER 0xff   /* frame owner value absent in this version */
#define REC_PY_LASTI_NONE 0xffffffffu /* no instruction run yet (SPEC §5.7) */
#define REC_PY_FRAME_READ 128  /* most bytes of one frame the walker reads */

/*
 * One process's interpreter, as the walker needs it (map `py_procs`, key:
 * tgid).  Addresses are in that process; offsets are in bytes from the
 * start of the named struct of that CPython version.
 */
struct rec_py_proc {
	__u64 runtime;          /* &_PyRuntime */
	__u16 version;          /* PY_VERSION_HEX >> 16 */
	__u8 instr;             /* enum rec_py_instr */
	__u8 owner_cstack;      /* owner of C-stack shim frames (3.12+), else REC_PY_NO_OWNER */
	__u8 owner_generator;   /* owner of generator frames (3.11+), else REC_PY_NO_OWNER */
	__u8 _pad[3];
	__u16 rt_interp_head;   /* _PyRuntimeState.interpreters.head */
	__u16 interp_next;      /* PyInterpreterState.next */
	__u16 interp_threads;   /* PyInterpreterState.tstate_head / threads.head */
	__u16 ts_next;          /* PyThreadState.next */
	__u16 ts_thread_id;     /* PyThreadState.thread_id (pthread_self) */
	__u16 ts_frame;         /* PyThreadState.frame / cframe / current_frame */
	__u16 cframe_current;   /* _PyCFrame.current_frame, REC_PY_NONE if ts_frame is the frame */
	__u16 fr_back;          /* f_back / previous */
	__u16 fr_code;          /* f_code / f_executable */
	__u16 fr_instr;         /* f_lasti / prev_instr / instr_ptr */
	__u16 fr_owner;         /* owner, REC_PY_NONE before 3.11 */
	__u16 co_code;          /* PyCodeObject.co_code_adaptive, REC_PY_NONE before 3.11 */
	__u16 co_firsttraceable;/* PyCodeObject._co_firsttraceable, REC_PY_NONE if unknown */
	__u16 fr_size;          /* bytes of a frame holding its fields used (<= REC_PY_FRAME_READ) */
	__u16 fr_is_entry;      /* 3.11 _PyInterpreterFrame.is_entry, else REC_PY_NONE */
};

/*
 * A pystack message: frames truncated to nr (REC_PYSTACK_HDR_LEN + 16 * nr).
 * Each frame's _pad carries its code object's free count (py_code_gen)
 * to the recorder; the log record has no such field.
 */
struct rec_pystack {
	struct rec_hdr h;
	struct ingero_pystack st;
};
#define REC_PYSTACK_HDR_LEN (sizeof(struct rec_hdr) + __builtin_offsetof(struct ingero_pystack, frames))

/* Per CPU: what the walker did. */
struct rec_py_stat {
	__u64 walks;     /* CUDA events of processes with an interpreter */
	__u64 sent;      /* new pystacks written to the ring */
	__u64 lost;      /* new pystacks the ring had no room for */
	__u64 nothread;  /* the calling thread has no Python thread state */
	__u64 empty;     /* a thread state with no Python frame */
	__u64 truncated; /* deeper than INGERO_MAX_PYFRAMES: outermost frames dropped */
};

/*
 * Code objects freed so far at one address (map `py_code_gen`): CPython
 * reuses the memory of a freed code object for the next one, so the
 * address alone does not say which code a frame ran.  The walker puts
 * this count into a pystack's id (and the message's frame _pad), so a
 * replaced code object makes a new pystack, whose code objects the
 * recorder reads afresh.
 */
struct rec_py_code_key {
	__u64 code;
	__u32 tgid;
	__u32 _pad;
};

/* The thread-state cache (map `py_threads`, key: tid). */
struct rec_py_thread {
	__u64 tstate;    /* 0: none found */
	__u64 fsbase;    /* the thread's pthread_self when found */
	__u64 ts;        /* when a miss was last checked */
	__u32 tgid;
	__u32 _pad;
};

#endif /* INGERO_PYWALK_H */
