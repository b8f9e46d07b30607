/* SPDX-License-Identifier: MIT */
/*
 * libingero: the .ilog record model, writer, reader and JSON renderer.
 * format/SPEC.md is the contract this implements.  Nothing in lib/ prints
 * or exits (except lib/cli/cli.c, which exists to print for mains): functions
 * return a code and keep a message the caller prints.
 */
#ifndef ILOG_H
#define ILOG_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include "ingero_events.h"
#include "ingero/buf.h"

#define ILOG_MAGIC "ILOG"
#define ILOG_VERSION_MAJOR 1   /* readers reject a larger major (SPEC §8) */
#define ILOG_VERSION_MINOR 8
#define INGERO_VERSION "0.1.0"

/* Exit codes shared by every program (DESIGN "The filters"). */
enum ilog_exit { ILOG_EXIT_OK = 0, ILOG_EXIT_FINDING = 1, ILOG_EXIT_USAGE = 2 };

/* Largest decompressed frame a reader accepts (SPEC §3). */
#define ILOG_MAX_FRAME_CONTENT (64u << 20)
#define ILOG_MAX_SCHEMA_FIELDS 64
#define ILOG_MAX_SNAPSHOT_PROCS 64

/* Views into a reader's buffer: valid until the next ilog_reader_next(). */
struct ilog_str { const char *p; uint32_t n; };
struct ilog_bin { const uint8_t *p; uint32_t n; };
#define ILOG_STR(s) ((struct ilog_str){ (s), (uint32_t)sizeof(s) - 1 })
struct ilog_str ilog_str_c(const char *s); /* NULL gives the empty string */
/* s into dst as a C string, cut to cap - 1 bytes (cap >= 1). */
void ilog_str_copy(char *dst, size_t cap, struct ilog_str s);
/* The Kubernetes pod UID (36 characters) and container id (64 hex
 * digits) a cgroup path names, "" for each it does not (lib/codec/cgroup.c). */
void ilog_cgroup_parse(const char *path, char pod[37], char ctr[65]);

struct ilog_header {
	struct ilog_str magic;     /* "ILOG"; the writer always writes it */
	uint32_t version_major, version_minor;
	struct ilog_str node;      /* stable node identity (machine-id or --node) */
	struct ilog_str boot_id;   /* /proc/sys/kernel/random/boot_id */
	struct ilog_str host;      /* hostname */
	struct ilog_str recorder;  /* writer program and version */
	struct ilog_str kernel;    /* uname -r */
	struct ilog_str driver;    /* NVIDIA driver version, "" if none */
	uint64_t session_id;       /* random per recording */
	int64_t rank;              /* job rank, -1 if unknown */
	uint64_t mono_ns, boot_ns, real_ns; /* clock anchor taken at start */
	uint32_t node_index;       /* 0 in single-node logs (SPEC §5.16) */
};

struct ilog_clock { uint64_t mono_ns, boot_ns, real_ns; };

struct ilog_schema {
	uint32_t kind;
	struct ilog_str name;
	uint32_t nfields;
	struct ilog_str fields[ILOG_MAX_SCHEMA_FIELDS];
};

struct ilog_process {
	uint64_t ts_ns;
	uint32_t pid, ppid, uid;
	uint64_t start_ns;         /* process start, CLOCK_BOOTTIME ns: pid reuse key */
	struct ilog_str comm, exe;
	struct ilog_bin cmdline;   /* NUL-separated argv as in /proc/PID/cmdline */
	struct ilog_str cgroup;    /* cgroup path (1.2) */
	uint64_t cgroup_id;        /* its id, as host events carry it (1.2) */
	struct ilog_str pod_uid, container_id; /* parsed from the path (1.2) */
};

struct ilog_mapping {
	uint64_t ts_ns;
	uint32_t pid;
	uint64_t start, end, offset;
	uint32_t prot;             /* PROT_* bits */
	struct ilog_str path;
	struct ilog_bin build_id;  /* GNU build-id, empty if none */
};

struct ilog_pycode {
	uint32_t pid;
	uint64_t code;             /* PyCodeObject address */
	uint32_t py_version;       /* PY_VERSION_HEX >> 16, e.g. 0x030b */
	struct ilog_str filename, qualname;
	uint32_t firstlineno;
	struct ilog_bin linetable; /* co_linetable bytes (format by py_version) */
};

struct ilog_snapshot_proc {
	uint32_t pid;
	double cpu_pct;
	uint64_t rss;
	int64_t rss_growth;        /* bytes since the previous snapshot (1.2) */
	char comm[16];             /* task name (1.2) */
};

struct ilog_snapshot {
	uint64_t ts_ns;
	double cpu_pct;            /* all CPUs busy fraction, 0..100 */
	uint32_t ncpu;
	uint64_t mem_total, mem_avail, swap_total, swap_free; /* bytes */
	double load1, load5, load15;
	uint32_t nprocs;
	struct ilog_snapshot_proc procs[ILOG_MAX_SNAPSHOT_PROCS];
	/* pressure stall information (1.2): share of the time since the
	 * previous snapshot, 0..100 */
	double psi_cpu_some, psi_mem_some, psi_mem_full, psi_io_some, psi_io_full;
	/* (1.8) share of all CPUs' time since the previous snapshot that the
	 * hypervisor ran something else while they were runnable, 0..100 */
	double steal_pct;
};

struct ilog_loss {
	uint64_t ts_ns;
	struct ilog_str source;    /* "ringbuf:cuda", "probe:cudaMalloc", ... */
	uint64_t lost, seen;       /* cumulative since start */
};

struct ilog_symbol {
	uint32_t pid;
	uint64_t ip;
	struct ilog_bin build_id;
	struct ilog_str module;
	uint64_t module_off;
	struct ilog_str function;  /* demangled */
	uint64_t sym_off;
	struct ilog_str file;
	uint32_t line;
	uint32_t inline_depth;     /* 0 = the frame itself, 1.. = inlined callers */
};

enum ilog_severity { ILOG_SEV_LOW = 0, ILOG_SEV_MEDIUM = 1, ILOG_SEV_HIGH = 2 };

struct ilog_chain {
	uint64_t id;
	uint64_t ts_start, ts_end;
	uint32_t severity;         /* enum ilog_severity */
	struct ilog_str pattern;   /* a causal pattern: ILOG_PATTERNS in ingero/causal.h */
	uint32_t pid;
	uint16_t op;
	double score;
	struct ilog_str title, root_cause, fix;
	struct ilog_str evidence;  /* JSON array of timeline entries */
	/* appended (ingero-correlate): */
	struct ilog_str comm;      /* the affected process's name */
	uint32_t culprit_pid;      /* the process blamed, 0 = none (GPU, the process itself) */
	struct ilog_str culprit_comm;
	uint64_t lost_ns;          /* estimated wall time the cause cost */
	struct ilog_str metrics;   /* JSON object: the numbers quoted in root_cause */
};

struct ilog_provenance {
	uint64_t real_ns;
	struct ilog_str tool, version, args;
};

struct ilog_node { uint32_t node_index; };

/* Names op number `op` (>= ILOG_OP_NAMED_FIRST) for the records after it
 * (SPEC §5.17).  Readers return it renumbered into this program's table. */
/* A kernel's name for a launch handle of a process (SPEC §5.18). */
struct ilog_kernel {
	uint32_t pid;
	uint64_t handle;           /* CUfunction / CUkernel, or a runtime launch's host stub */
	struct ilog_str name;      /* as the module or symbol table names it, demangled */
};

/*
 * Block I/O of one window on one device by one process (SPEC §5.19), or
 * (pid 0) by the processes of the window without a record of their own.
 */
struct ilog_blkio {
	uint64_t ts_ns, dur_ns;    /* window start and length */
	uint32_t major, minor;     /* the device (whole disk) */
	struct ilog_str disk;      /* its name ("sda", "loop3"), "" = not known */
	uint32_t pid;              /* tgid that started the requests, 0 = the rest */
	uint32_t nprocs;           /* processes summed: 1, or the rest's count */
	char comm[INGERO_COMM_LEN];
	uint64_t cgroup_id;
	uint64_t ios, bytes, read_ios, read_bytes;
	uint64_t lat_sum_ns, lat_max_ns; /* issue to completion */
	uint32_t nhist;            /* buckets in use (trailing zeros left out) */
	uint64_t hist[INGERO_BLK_HBUCKETS]; /* log2 latency histogram (ingero_events.h) */
};
/* The q-quantile (0..1) of a latency histogram as above, in ns: the upper
 * edge of the bucket it falls in, at most max_ns (when not 0); 0 when
 * empty.  hist has n buckets. */
uint64_t ilog_blk_quantile(const uint64_t *hist, uint32_t n, double q, uint64_t max_ns);

struct ilog_opname {
	uint32_t op;
	uint32_t layer;            /* enum ilog_layer: the library it is in */
	struct ilog_str name;      /* the exported function's name */
};

/*
 * The TCP retransmissions of one flow in one window (SPEC §5.20), or with
 * family 0 those of the flows not written on their own, summed.
 */
struct ilog_retrans {
	uint64_t ts_ns, dur_ns;    /* window start (CLOCK_MONOTONIC), length */
	uint32_t pid;              /* the process owning the socket, 0 = not known */
	char comm[16];
	uint64_t cgroup_id;
	uint8_t family;            /* 4 or 6 (IP version), 0 = the rest */
	struct ilog_bin saddr, daddr; /* 4 or 16 bytes, network order */
	uint16_t sport, dport;     /* host order */
	uint64_t count;            /* segments retransmitted in the window */
	uint8_t state;             /* TCP state at the last one (Linux numbering) */
	uint32_t flows;            /* flows the record stands for */
};

/* One process's TCP socket volume in one window (SPEC §5.21); pid 0 sums
 * the processes not written on their own. */
struct ilog_sockio {
	uint64_t ts_ns, dur_ns;
	uint32_t pid;
	char comm[16];
	uint64_t cgroup_id;
	uint64_t tx_bytes, rx_bytes, tx_calls, rx_calls;
	uint32_t others;           /* pid 0: how many processes are summed */
};

/* What made a flight recorder write the window around it (SPEC §5.23). */
struct ilog_trigger {
	uint64_t ts_ns;
	struct ilog_str reason;    /* "signal", "hang", "p99" */
	uint32_t pid, tid;         /* hang: the call's process and thread; p99: the
				    * process that went over, tid 0; else 0 */
	uint16_t op;               /* hang, p99: the op; else 0 */
	uint64_t value_ns;         /* hang: the call's time so far; p99: the window's p99 */
	uint64_t baseline_ns;      /* p99: the process's baseline p99 of the op; else 0 */
	uint64_t before_ns, after_ns; /* the window kept before and after ts_ns */
	uint32_t seq;              /* 1 for the run's first dump, 2, ... */
};

/* Unknown kinds: the whole msgpack record, for pass-through and JSON. */
struct ilog_raw { const uint8_t *p; uint32_t n; };

struct ilog_record {
	uint32_t kind;             /* enum ilog_kind, or unknown */
	uint32_t node;             /* node index in force (reader fills) */
	union {
		struct ilog_header header;
		struct ilog_clock clock;
		struct ilog_schema schema;
		struct ingero_cuda_event cuda;
		struct ingero_host_event host;
		struct ingero_stack stack;
		struct ingero_pystack pystack;
		struct ilog_process process;
		struct ilog_mapping mapping;
		struct ilog_pycode pycode;
		struct ilog_snapshot snapshot;
		struct ilog_loss loss;
		struct ilog_symbol symbol;
		struct ilog_chain chain;
		struct ilog_provenance provenance;
		struct ilog_node node;
		struct ilog_opname opname;
		struct ilog_kernel kernel;
		struct ilog_blkio blkio;
		struct ilog_retrans retrans;
		struct ilog_sockio sockio;
		struct ingero_cuda_event inflight; /* a cuda record's fields (1.4) */
		struct ilog_trigger trigger;
	} u;
	struct ilog_raw raw;       /* the encoded record (reader fills) */
};

/* Names at the edges.  Return NULL for out-of-range values. */
const char *ilog_kind_name(uint32_t kind);      /* "cuda", "host", ... */
int ilog_kind_from_name(const char *name);      /* -1 if unknown */
const char *ilog_op_name(uint32_t op);          /* "cudaMalloc"; named ops too */
int ilog_op_from_name(const char *name);        /* -1 if unknown */
enum ilog_layer ilog_op_layer(uint32_t op);
/*
 * Named ops (SPEC §5.17) share one table per program.  ilog_op_intern
 * returns the number of name[0..n) with its layer, adding it when new:
 * as `want` when that number is free (a log's own numbering is kept
 * where it can be), else the next free number.  -1 when the name is
 * empty, over 255 bytes or holds a NUL, or the table is full.
 * ilog_op_limit: one past the highest op number in use, for loops over
 * ops (at least ILOG_OP__COUNT).
 */
int ilog_op_intern(const char *name, size_t n, uint32_t layer, uint32_t want);
/* A number >= ILOG_OP_NAMED_FIRST a log uses without naming it (rendered
 * as the number): `want` when no log named it, else a new unnamed number;
 * either is never given a name.  -1 when the table is full. */
int ilog_op_unnamed(uint32_t want);
uint32_t ilog_op_limit(void);
const char *ilog_layer_name(uint32_t layer);    /* "runtime" */
const char *ilog_host_type_name(uint32_t type); /* "switch" */
const char *ilog_wait_class_name(uint32_t cls); /* "lock"; NULL when unknown */
const char *ilog_severity_name(uint32_t sev);   /* "HIGH" */
const char *ilog_tcp_state_name(uint32_t st);   /* "ESTABLISHED" (Linux numbering) */
/* An address of 4 or 16 bytes as text ("10.0.0.7", "fe80::1"); "" otherwise. */
const char *ilog_inet_str(struct ilog_bin a, char *buf, size_t len);
/* The record's timestamp (CLOCK_MONOTONIC ns) or 0 if the kind has none. */
uint64_t ilog_record_ts(const struct ilog_record *rec);

/* ---- writer (SPEC §3, §4) ---- */
struct ilog_writer_opts {
	int level;              /* zstd level; 0: the default, zstd 3 retuned (writer.c) */
	uint32_t frame_records; /* end a frame after this many records (default 65536) */
	uint32_t frame_bytes;   /* ... or this many uncompressed bytes (default 1 MiB) */
	uint32_t frame_ms;      /* ... or when the frame is this old (default 1000) */
	int context;            /* keep what a reader of a later file needs (the
				 * latest process, mapping, kernel, stack, pystack,
				 * pycode and op name records) for ilog_writer_rotate */
	/* With context: whether a process still runs (1) or is gone (0).  A
	 * process's context (its process, mapping, kernel and pycode records)
	 * is dropped once it is gone, so a recorder left on keeps only the
	 * living: it is found gone by its exit record (SPEC §5.5 exit) or by
	 * alive, asked at each rotation and, with prune_ms, at a tick that
	 * many ms after the last time; it is dropped at the next of these
	 * (one found gone at a rotation is written into the new file once
	 * more, for a record that arrives late).  alive NULL: only exit
	 * records tell. */
	int (*alive)(void *ctx, uint32_t pid);
	void *alive_ctx;
	uint32_t prune_ms;
	/* Where complete frames go instead of the fd (a flight recorder's
	 * memory): 0, or -1 with errno set */
	int (*out)(void *ctx, const uint8_t *frame, size_t n);
	void *out_ctx;
	/* Definitions (header, schema, stack, pystack, process, mapping,
	 * pycode, opname, kernel: what later records refer to) go to this
	 * writer instead, flushed and ticked with this one; NULL: here. */
	struct ilog_writer *defs;
};
/* Is kind one of the definitions above (ilog_writer_opts.defs)? */
int ilog_kind_is_def(uint32_t kind);
#define ILOG_FRAME_MS_OFF UINT32_MAX /* frame_ms: never end frames by age */
struct ilog_writer;
/*
 * Write to fd (not closed by the writer).  Returns NULL and fills err on
 * failure.  Frames go to fd with write(2) as they complete, so a killed
 * writer loses at most the unfinished frame.
 */
struct ilog_writer *ilog_writer_open(int fd, const struct ilog_writer_opts *opts,
				     char *err, size_t errlen);
/* Append one record.  0 on success, -1 on error (see ilog_writer_error).
 * Write errors are sticky; a refused record (over 32 MiB) is not. */
int ilog_writer_put(struct ilog_writer *w, const struct ilog_record *rec);
/* The allocation-free hot path for the recorder. */
int ilog_writer_put_cuda(struct ilog_writer *w, const struct ingero_cuda_event *ev);
/* Append an already-encoded record, for pass-through of kinds this writer
 * does not know.  The bytes are copied as they are: a record of a known
 * kind with a delta-coded time (SPEC §4.3) must already be coded against
 * this frame's base, and does not move it; filters re-encode known kinds
 * with ilog_writer_put instead. */
int ilog_writer_put_raw(struct ilog_writer *w, const struct ilog_raw *raw);
/* Write a header for this program, then one schema record per known kind. */
int ilog_writer_begin(struct ilog_writer *w, const struct ilog_header *h);
/* End the frame if it is older than frame_ms; call when idle.  0 or -1. */
int ilog_writer_tick(struct ilog_writer *w);
/* End the current frame now (no-op when empty).  0 or -1. */
int ilog_writer_flush(struct ilog_writer *w);
/*
 * Go on in a new file (rotation): end the current frame on the old fd
 * (the caller closes it), then write to fd a header h (ilog_writer_begin)
 * and the context kept (opts.context), each op named again when first
 * used, so the new file is a complete log on its own.  After a write
 * error the unwritten frame is dropped (ilog_writer_stats counts its
 * records in `dropped`) and writing goes on in fd.  0, or -1 (the error
 * in ilog_writer_error; ilog_writer_errno says which).
 */
int ilog_writer_rotate(struct ilog_writer *w, int fd, const struct ilog_header *h);
/* errno of the write that failed, 0 if none did. */
int ilog_writer_errno(const struct ilog_writer *w);
/* After a write of a frame to the fd failed (a full disk) and the caller
 * made room and put the file back at its last whole frame (file_bytes:
 * truncated, offset there): writes that frame again.  0, or -1. */
int ilog_writer_retry(struct ilog_writer *w);
/* Flush, then free.  Returns 0, or -1 if any write failed (err filled). */
int ilog_writer_close(struct ilog_writer *w, char *err, size_t errlen);
const char *ilog_writer_error(const struct ilog_writer *w);
struct ilog_writer_stats {
	uint64_t records, frames, raw_bytes, out_bytes;
	uint64_t file_bytes;    /* bytes of whole frames in the current file */
	uint64_t dropped;       /* records of frames a failed write lost (rotate) */
	uint64_t pending;       /* records put but in no frame written yet */
};
void ilog_writer_stats(const struct ilog_writer *w, struct ilog_writer_stats *st);

/* ---- flight recorder: the last frames in memory (flight.c) ---- */
struct ilog_flight;
/* Keeps the events frames of the last window_ns, at most max_bytes of
 * them (the oldest go first), and the definitions frames.  NULL: ENOMEM. */
struct ilog_flight *ilog_flight_new(uint64_t window_ns, uint64_t max_bytes);
/* ilog_writer_opts.out of the events writer and of its defs writer (ctx:
 * the flight).  0, or -1 (ENOMEM). */
int ilog_flight_events(void *ctx, const uint8_t *frame, size_t n);
int ilog_flight_defs(void *ctx, const uint8_t *frame, size_t n);
/* A trigger at now (CLOCK_MONOTONIC ns): the frames of the window before
 * it and all later ones are kept until the dump.  0, or -1 when one is
 * open already. */
int ilog_flight_trigger(struct ilog_flight *fl, uint64_t now);
/* The open trigger's time, 0 if none. */
uint64_t ilog_flight_open(const struct ilog_flight *fl);
struct ilog_flight_stats { uint64_t frames, bytes, dropped; };
/* Write the definitions, then the frames kept for the open trigger, to fd
 * (a complete log); the trigger is closed.  0, or -1 with errno. */
int ilog_flight_dump(struct ilog_flight *fl, int fd, struct ilog_flight_stats *st);
/* The definitions grow with every process met: rewrite them as h and the
 * context of defs, the definitions' writer (opened with opts.context and
 * opts.alive, no prune_ms: each compaction is its prune round), when
 * ilog_flight_compact_due says so (no trigger open, the window and 10 s
 * since the last, 1 MiB and twice what the last left).  A process found
 * gone at one compaction is dropped at the next, so a dump still names
 * every process of its frames.  0 (nothing done while a trigger is open),
 * or -1 with the writer's error, the old definitions kept. */
int ilog_flight_compact_due(const struct ilog_flight *fl, uint64_t now);
int ilog_flight_compact(struct ilog_flight *fl, struct ilog_writer *defs,
			const struct ilog_header *h, uint64_t now);
/* Bytes held: events frames, definitions frames. */
void ilog_flight_usage(const struct ilog_flight *fl, uint64_t *events, uint64_t *defs);
void ilog_flight_free(struct ilog_flight *fl);

/* ---- reader (SPEC §3, §9) ---- */
struct ilog_reader;
/* Read fd (not closed).  name is used in messages only. */
struct ilog_reader *ilog_reader_open(int fd, char *err, size_t errlen);
/* Decompress each next frame on a helper thread while this one is decoded
 * (one thread and a frame's buffers more; for a program reading one log
 * at a time).  Records, errors and offsets are the same as without.
 * 0, or -1 (no thread: reading goes on without). */
int ilog_reader_readahead(struct ilog_reader *r);
/*
 * Next record: 1 and *rec set, 0 at clean end of input, -1 on bad input
 * the reader cannot go on from (not a log, a later major version, a read
 * error; ilog_reader_error says "offset N: problem" and it sticks), or
 * ILOG_READ_DAMAGE (SPEC §9): a damaged range was skipped --
 * ilog_reader_error says "offset N: problem (K bytes skipped, to offset
 * M, about R records lost)" until the next call, ilog_reader_damage gives
 * the figures -- and the next call goes on with the first good frame after
 * it (or returns 0 when the damage ran to the end).  Every record before
 * the damage is returned first; a caller that stops at any value < 0
 * reads what it read before.  *rec and its views stay valid until the
 * next call.
 */
#define ILOG_READ_DAMAGE (-2)
int ilog_reader_next(struct ilog_reader *r, const struct ilog_record **rec);
/* The message of the last -1 or ILOG_READ_DAMAGE, else NULL. */
const char *ilog_reader_error(const struct ilog_reader *r);
/* A damaged range: its offset in the input, its length (to the next good
 * frame or the end), and the records lost: estimated from the log's
 * average record size so far, -1 when there is nothing to go by. */
struct ilog_damage { uint64_t off, bytes; int64_t records; };
/* The last ILOG_READ_DAMAGE's range (zeros before any). */
void ilog_reader_damage(const struct ilog_reader *r, struct ilog_damage *d);
/* Header in force for a node index (NULL if none seen). */
const struct ilog_header *ilog_reader_header(const struct ilog_reader *r, uint32_t node);
/* CLOCK_REALTIME ns for a monotonic ts on a node, from the latest anchor; 0 if none. */
uint64_t ilog_reader_wall(const struct ilog_reader *r, uint32_t node, uint64_t mono_ns);
/* Schema names for a kind seen in the log (for unknown kinds), or NULL. */
const struct ilog_schema *ilog_reader_schema(const struct ilog_reader *r, uint32_t kind);
/* Where the record last returned lies, for filters that copy whole frames
 * byte for byte (ingero-symbolize): its frame's offset in the input
 * (counted from where the reader started) and compressed size, the
 * frame's decompressed size, and the record's offset in that content
 * (its length is rec->raw.n).  Only meaningful after a record. */
struct ilog_reader_where { uint64_t frame_off, frame_size, content_size, rec_off; };
void ilog_reader_where(const struct ilog_reader *r, struct ilog_reader_where *w);
struct ilog_reader_stats {
	uint64_t records, frames, in_bytes, skipped_unknown;
	uint64_t damaged, damaged_bytes; /* ranges skipped (ILOG_READ_DAMAGE) and their bytes */
};
void ilog_reader_stats(const struct ilog_reader *r, struct ilog_reader_stats *st);
void ilog_reader_close(struct ilog_reader *r);

/* ---- JSON (SPEC §6) ---- */
/* Render one record as a single-line JSON object (no newline) appended to b.
 * r (may be NULL) supplies wall-clock anchors and schemas. 0 or -1 (ENOMEM). */
int ilog_json_record(struct ilog_buf *b, const struct ilog_record *rec,
		     const struct ilog_reader *r);
/* NUL-separated argv (a process record's cmdline) as a JSON array of
 * strings; a trailing NUL ends the last argument.  0 or -1 (ENOMEM). */
int ilog_json_argv(struct ilog_buf *b, struct ilog_bin argv);

/* ---- parsers (lib/codec/parse.c) ---- */
/* "1h30m", "5m", "250ms", "1.5s", "10" (seconds).  0 or -1. */
int ilog_parse_duration(const char *s, uint64_t *ns);
/* "500m", "10g", "4k", "1.5GiB", "123" (bytes), binary units.  0 or -1. */
int ilog_parse_size(const char *s, uint64_t *bytes);
/* Wall time: RFC 3339 ("2026-11-22T16:20:00Z", fraction and offset allowed),
 * "@SECONDS[.frac]" since the epoch.  Result: CLOCK_REALTIME ns.  0 or -1. */
int ilog_parse_walltime(const char *s, uint64_t *real_ns);
/* Comma-separated list of names -> bit mask via lookup(name) (-1 unknown). */
int ilog_parse_list(const char *s, int (*lookup)(const char *), uint64_t *mask,
		    char *bad, size_t badlen);

#endif /* ILOG_H */
