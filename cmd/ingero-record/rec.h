/* SPDX-License-Identifier: MIT */
/*
 * ingero-record internals shared by its files: the recorder state, probe
 * attachment (probes.c), /proc discovery and process records (discover.c),
 * ring-buffer draining, statistics and loss records (sink.c), and host
 * facts: header, snapshots, readiness check, lock (sys.c).
 */
#ifndef INGERO_REC_H
#define INGERO_REC_H

#include <signal.h>
#include <stdint.h>
#include <sys/types.h>
#include <time.h>
#include "ingero/cli.h"
#include "ingero/ilog.h"
#include "record.h"
#include "python.h"

struct record_bpf;
struct ring_buffer;
struct bpf_link;

struct rec_opts {
	enum rec_mode mode;
	uint32_t uid;
	uint32_t pids[256];
	unsigned npids;
	const char *cuda_libs[32];
	unsigned ncuda_libs;
	uint64_t duration_ns;
	const char *out;
	uint64_t ringbuf_size;
	unsigned sampling;        /* 1 = all, N = one in N, 0 = adaptive */
	unsigned launch_timing;   /* one kernel launch in N timed (1 = all) */
	int stacks;
	int py_walker;             /* --py-walker: 1 ebpf, 0 off */
	enum rec_unwind unwind;    /* --unwind */
	int check;
	int quiet;
	int64_t rank;
	uint64_t wakeup_min_ns;
	unsigned host_top;         /* --host-top: processes named per window */
	uint64_t stall_min_ns;     /* --stall-min */
	uint64_t inflight_after_ns; /* --inflight-after: 0 = no inflight records */
	uint64_t cgroup_id;        /* --cgroup: its id, 0 = any */
	char cgroup_path[512];     /* its folder (or the error) */
	const char *lock_path;
	uint64_t hold_max_ns;     /* --hold-max: 0 = never stop a process */
	char **cmd;               /* after "--": run it under recording */
	const char *api;          /* --api: "all" or names and globs; NULL: the table only */
	struct ilog_rotate_opts rot; /* --rotate, --keep, --keep-size (rotate.c) */
	uint64_t flight_ns;       /* --flight: the window kept in memory; 0: write a log */
	uint64_t flight_bytes;    /* --flight-size: at most this much of it */
	uint64_t hang_after_ns;   /* --hang-after: a call this long triggers; 0: never */
	double p99_over;          /* --p99-over: an op's p99 this many times its baseline's; 0: never */
};

/* A call in progress (write_inflight). */
struct rec_call {
	uint64_t dur, ts;
	uint32_t pid, tid;
	uint16_t op;
};

/* One attached library file (identified by device and inode). */
struct rec_lib {
	uint64_t dev, ino;
	char path[4096];
	int nlinks, nprobes;
	int mfd[2];                /* uprobe_multi links (entry, return), -1 if none */
	struct bpf_link **links;
};

/* --launch-timing's default: one launch in 64 timed (and one at least
 * every 100 ms per op and CPU), the others recorded at entry with one probe
 * trap; 64 measured cheapest of 1, 16 and 64 (bench/RESULTS.md), and still
 * gives a launch loop hundreds of timed launches a second */
#define REC_LAUNCH_TIMING 64
#define REC_LAUNCH_TIMING_S "64"
/* Per-op latency histogram for the live summary: log2 with 4 sub-buckets. */
#define REC_HBUCKETS 256
struct rec_hist {
	uint64_t n;
	uint64_t untimed; /* of n: launches recorded at entry, in no bucket */
	uint32_t b[REC_HBUCKETS];
};

/* What the recorder knows about a target process. */
struct rec_proc {
	uint32_t pid;              /* 0 = free slot */
	uint64_t start_ticks;      /* /proc/PID/stat starttime: pid reuse key */
	uint32_t exec_gen;         /* exec events seen; a new exec rewrites records */
	uint32_t written_gen;      /* +1 of exec_gen when records were written */
	uint32_t fork_parent;      /* the parent, when a fork event named it */
	uint64_t cpu_ticks;        /* utime+stime at the last snapshot */
	int exited;
	/* executable mappings already written: start addresses */
	uint64_t *maps;
	unsigned nmaps, capmaps;
	struct rec_pyproc *py;     /* its CPython interpreter (python.c) */
};

#define REC_MAX_PROCS 8192

struct rec {
	struct rec_opts o;
	struct record_bpf *skel;
	struct ring_buffer *rb;
	struct ilog_writer *w;
	int out_fd;
	struct ilog_rotate *rot;   /* --rotate: the files (rotate.c) */
	uint64_t session_id;       /* one per recording, in every file's header */
	int tty;                   /* live table on stderr */
	struct rec_lib *libs;
	unsigned nlibs, caplibs;
	unsigned nprobes;          /* attached uprobe pairs */
	int multi;                 /* uprobe_multi links work here */
	int session;               /* uprobe session programs too (6.13+) */
	struct rec_proc procs[REC_MAX_PROCS];
	/* pids to rescan after this drain (notes, forks, execs) */
	uint32_t pending[1024];
	unsigned npending;
	uint32_t held[1024];       /* stopped at a dlopen, to resume after the scan */
	unsigned nheld;
	/* hold.c: processes stopped at a new library file (system-wide) or
	 * at a COMMAND's library load, until attached */
	int hold, hold_loaded;     /* stopping them system-wide, the map counted */
	int watch;                 /* a watchdog bounds the stops */
	int hold_lock;             /* the lock watch loaded (rec_mmap_lock_arg) */
	const char *hold_how;      /* how mmap() is watched (rec_mmap_watch) */
	int hold_pipe;             /* the watchdog reads its end of file */
	pid_t watchdog;
	struct rec_hold_msg lheld[1024];
	unsigned nlheld;
	uint64_t t0_ns, last_tick_ns;
	/* flight.c: --flight's memory, its definitions' writer, the dumps */
	struct ilog_flight *flight;
	struct ilog_writer *wdef;
	uint64_t flight_until;     /* the open trigger's dump is due */
	unsigned flight_seq, flight_folded, flight_compactions;
	uint64_t hdr_clock[3];     /* the first header's mono, boot, real ns */
	struct ilog_rotate *dumps; /* --keep, --keep-size: the dumps on disk */
	struct rec_call longest;   /* the longest call in progress at the last window */
	struct rec_call hang;      /* the call the last hang trigger named */
	struct rec_p99 *p99;       /* --p99-over (p99.c) */
	uint64_t p99_next;         /* its next second closes (CLOCK_MONOTONIC) */

	/* counts written by the sink */
	uint64_t n_cuda, n_host, n_stack, n_note, n_other, n_pystack;
	uint64_t cuda_by_op[REC_MAX_OPS];
	struct rec_hist hist[REC_MAX_OPS];
	/* process records of preempters and wakers still allowed this window
	 * (--host-top a window) */
	unsigned others_left;
	/* last loss counters written, to write only changes */
	uint64_t last_loss_sum;
	/* previous /proc/stat totals for cpu % and steal % */
	uint64_t cpu_busy, cpu_total, cpu_steal;
	double last_cpu_pct;
	unsigned summary_lines;
	unsigned sample_every;     /* current (adaptive) rate */
	uint64_t drain_bytes, max_drain_bytes;
	char err[512];
};

extern volatile sig_atomic_t rec_stop;

uint64_t rec_now(clockid_t clk);

/* probes.c */
/* Attach every traced symbol found in the library at `path` (opened as
 * `open_path`, e.g. through /proc/PID/root).  0, or -1 with r->err set.
 * A file already attached (same dev/ino) is a no-op returning 0. */
int rec_attach_lib(struct rec *r, const char *path, const char *open_path);
/* The ld.so link-map hook in an interpreter file.  0 or -1. */
int rec_attach_dlhook(struct rec *r, const char *path, const char *open_path);
/* Library class of a file name: 0 runtime, 1 driver, 3 nccl, -1 none. */
/* rec_lib_class's answers */
enum { CL_RT = 0, CL_DRV = 1, CL_NCCL = 3 };
int rec_lib_class(const char *path);
int rec_is_interp(const char *path);
void rec_detach_all(struct rec *r);
/* For --check: count the symbols a file has, listing the missing ones. */
int rec_probe_count(const char *path, int *found, int *total, char *missing, size_t len);

/* discover.c */
/* Scan one process: attach new CUDA libraries it maps and, if it is a
 * target, write its process and new mapping records. */
void rec_scan_pid(struct rec *r, uint32_t pid);
/* Scan every process (start-up and periodic discovery). */
void rec_scan_all(struct rec *r);
void rec_attach_known(struct rec *r);
struct rec_proc *rec_proc_get(struct rec *r, uint32_t pid, int create);
int rec_add_target(struct rec *r, uint32_t pid);
void rec_queue_scan(struct rec *r, uint32_t pid);
void rec_scan_pending(struct rec *r);
/* Read build-id of an ELF file.  Returns its length (0 if none). */
size_t rec_build_id(const char *path, uint8_t *out, size_t cap);
int rec_proc_uid(uint32_t pid, uint32_t *uid);
int rec_is_target(struct rec *r, uint32_t pid);
/* pid's comm from /proc, "?" when it is gone; buf always a string. */
void rec_proc_comm(uint32_t pid, char *buf, size_t n);
/* The process record of a process the log names that is no target (once
 * per process; comm and cgid, the event's, for one already gone).  1 when
 * it wrote one, else 0. */
int rec_write_other(struct rec *r, uint32_t pid, const char *comm, uint64_t cgid);

/* cgroup.c: which cgroup a process is in */
/* 1 on a cgroup v1 host without the unified hierarchy: the memory
 * controller's hierarchy gives a task's cgroup id; 0 when the unified (v2)
 * hierarchy does (a unified or a hybrid host). */
int rec_cgroup_v1(void);
/* Where that hierarchy is mounted: /sys/fs/cgroup, /sys/fs/cgroup/unified
 * (hybrid) or /sys/fs/cgroup/memory. */
const char *rec_cgroup_root(void);
/* pid's cgroup path as its process record shows it (the line of
 * /proc/PID/cgroup that names its container, cgroup.c) and id (the inode
 * of its folder in rec_cgroup_root's hierarchy, as the BPF side reads it).
 * 0, or -1 when /proc/PID/cgroup is gone. */
int rec_cgroup_of(uint32_t pid, char *path, size_t cap, uint64_t *id);
/* --cgroup PATH: a cgroup folder under rec_cgroup_root() or a path in
 * that hierarchy, to its id and folder.  0, or -1 with the reason in dir. */
int rec_cgroup_resolve(const char *arg, uint64_t *id, char *dir, size_t cap);
/* Is pid in the cgroup of this id or below it?  1 for id 0 (--cgroup not
 * given), 0 when pid is gone. */
int rec_cgroup_has(uint64_t id, uint32_t pid);

/* flight.c: --flight */
extern volatile sig_atomic_t rec_flight_sig; /* SIGUSR1 */
/* The writers into memory: 0, or -1 with r->err. */
int rec_flight_open(struct rec *r);
/* Triggers (signal, hang) and a dump that is due.  now: CLOCK_MONOTONIC. */
void rec_flight_tick(struct rec *r, uint64_t now);
/* At stop: an open trigger's dump is written with what it has. */
void rec_flight_close(struct rec *r);
/* main.c: whether pid still runs (ilog_writer_opts.alive) */
int rec_pid_alive(void *ctx, uint32_t pid);

/* p99.c: --p99-over, the latency trigger (the rule: p99.c's comment,
 * --help, README, SPEC §5.23) */
#define P99_RECENT_S 5       /* the recent window, seconds */
#define P99_SLOT_S 5         /* the baseline's slots, seconds */
#define P99_BASE_SLOTS 12    /* the baseline: the 60 s before the recent window */
#define P99_MIN_RECENT 50    /* calls in the recent window to judge it */
#define P99_MIN_BASE 500     /* calls in the baseline */
#define P99_MAX_SERIES 256   /* (process, op) pairs judged at once: 70 KiB each */
struct rec_p99;
struct rec_p99_fire { uint32_t pid; uint16_t op; uint64_t recent_ns, base_ns, nrecent, nbase; };
/* NULL: out of memory. */
struct rec_p99 *rec_p99_new(double factor);
/* A completed call of op in process pid (the sink, per call). */
void rec_p99_add(struct rec_p99 *p, uint32_t pid, uint32_t op, uint64_t dur_ns);
/* A second closed: 1 and *f when a (process, op) went over its bound (the
 * one most over, when several did), else 0. */
int rec_p99_second(struct rec_p99 *p, struct rec_p99_fire *f);
/* The (process, op) pairs held now. */
uint32_t rec_p99_series(const struct rec_p99 *p);
void rec_p99_free(struct rec_p99 *p);

/* hold.c: no call missed after a late dlopen (system-wide) */
/* Attach the CUDA libraries of the linker cache and of earlier runs. */
void rec_attach_cached(struct rec *r);
/* A file was attached: tell the kernel (no hold for it) and remember it. */
void rec_hold_file(struct rec *r, const char *path, const char *open_path, uint64_t dev,
		   uint64_t ino);
/* The raw argument of the tracepoint mmap_lock_released that says
 * `write`, from the kernel's BTF: 1 or 2, or 0 where the kernel has no such
 * tracepoint (or one of another shape), or INGERO_RECORD_HOLD_TP or
 * INGERO_RECORD_HOLD_RAWTP forces an older watch (bench/record, tests). */
int rec_mmap_lock_arg(void);
/* Load the lock watch's program for that argument (none for 0). */
void rec_mmap_lock_load(struct record_bpf *s, int arg);
/* Attach the first mmap() watch the kernel takes of the loaded object's:
 * the lock's tracepoint, mmap()'s tracepoints, every system call's exit.
 * Its description ("by ...", "at ..."), or NULL with errno.  *taxed: 1 when
 * every system call of the host pays for it. */
const char *rec_mmap_watch(struct record_bpf *s, int *taxed);
/* After load: attach the mmap() watch and start the watchdog.  0 or -1. */
int rec_hold_start(struct rec *r);
void rec_hold_msg(struct rec *r, const struct rec_hold_msg *m);
void rec_hold_release(struct rec *r); /* after the held processes were scanned */
void rec_hold_resume(struct rec *r, uint32_t pid); /* unless the watchdog did */
void rec_hold_close(struct rec *r);   /* resume all, stop the watchdog */
void rec_hold_losses(struct rec *r, uint64_t ts);
uint64_t rec_hold_sum(struct rec *r); /* changes when its counters do */

/* sink.c */
int rec_sink_open(struct rec *r);   /* ring buffers -> handlers */
int rec_drain(struct rec *r, int timeout_ms);
void rec_window(struct rec *r, int final); /* aggregates, loss records */
void rec_flush_inflight(struct rec *r);
void rec_summary(struct rec *r, int final);
void rec_adapt_sampling(struct rec *r);

/* sys.c */
int rec_write_header(struct rec *r);
/* The header of a file starting now (anchors read now). */
void rec_header(struct rec *r, struct ilog_header *h, char (*buf)[256]);
/* rotate.c: --rotate.  Start the first file (0, or -1 with r->err: exit 2
 * before anything is attached); go on in the next one when due or after
 * a full disk (0, or -1 when recording cannot go on: r->err says why). */
int rec_rotate_open(struct rec *r);
int rec_rotate_tick(struct rec *r, int force);
int rec_rotate_finish(struct rec *r);
void rec_write_clock(struct rec *r);
void rec_write_snapshot(struct rec *r);
/* limits.c: the CPU quota of target p's cgroup and its throttling since
 * the previous snapshot (now: this snapshot's time), as host records. */
void rec_write_limits(struct rec *r, uint64_t now, const struct rec_proc *p, const char *comm);
int rec_check(const struct rec_opts *o);
int rec_lock(const char *path, char *err, size_t len);
const char *rec_driver_version(char *buf, size_t len);

/* caps.c: least privilege */
struct rec_cap {
	int bit;                   /* CAP_* number */
	const char *name;          /* "CAP_BPF" */
	int command;               /* needed only to run a COMMAND as the sudo user */
	const char *why;
};
extern const struct rec_cap rec_caps[]; /* ends with a NULL name */
uint64_t rec_caps_effective(void);      /* CapEff of /proc/self/status */
/* The capabilities recording needs (plus the COMMAND ones if asked), as a mask. */
uint64_t rec_caps_needed(int command_as_user);
/* Once the probes are attached: no_new_privs, then every capability but
 * rec_caps_needed() (and CAP_KILL if hold) out of the permitted, effective,
 * inheritable, ambient and (with CAP_SETPCAP) bounding sets.  0, or -1 with
 * err set. */
int rec_caps_drop(int command_as_user, int hold, char *err, size_t len);
/* For --check: one item per missing capability (what it is needed for),
 * or one "capabilities" item listing them all when none is missing. */
void rec_caps_check(void (*item)(int ok, const char *what, const char *detail, const char *fix));

/* unwind.c: DWARF unwinding of the stack copies (--unwind) */
/* A REC_MSG_USTACK message: unwind it, write the stack record (once per
 * content) and remember it for the events of the path. */
void rec_unwind_copy(struct rec *r, const void *msg, size_t size);
/* The stack id an event is written with: the unwound one of its pair. */
uint64_t rec_unwind_stack_id(const struct rec_cuda *m);
/* Copies unwound, how many got past the caller, time spent (ns). */
void rec_unwind_stats(uint64_t *unwound, uint64_t *better, uint64_t *ns);
void rec_unwind_close(void);

#endif
