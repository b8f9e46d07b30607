// SPDX-License-Identifier: MIT
/*
 * mkvectors: writes the format test vectors (format/SPEC.md §11) with the
 * real writer, then describes what it wrote.  Not a user command.
 *
 *   mkvectors [-o DIR]     (default DIR: .)
 *
 * For every vector NAME it writes DIR/NAME.ilog with lib/codec/writer.c (some
 * are then cut or damaged on purpose, or concatenated) and DIR/NAME.hex:
 * the decompressed record stream of each zstd frame of NAME.ilog, as hex
 * annotated record by record from the kind tables.  The expected export
 * output (NAME.jsonl, NAME.stderr) comes from ingero-export itself:
 * tests/vectors/regen.sh runs both.  Records that a writer of this
 * version cannot produce (extra or missing trailing fields, kinds from a
 * later version, wrong shapes, a later major) are packed with msgpack-c's
 * packer and added with ilog_writer_put_raw.
 */
#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <msgpack.h>
#include <zstd.h>
#include "ingero/cli.h"
#include "ingero/mpread.h"
#include "ingero/schema.h"

static const char *outdir = ".";

/* a container of a Kubernetes pod, as containerd's systemd driver names it */
#define KUBE_CTR "4c2d1e0f9a8b7c6d5e4f3a2b1c0d9e8f7a6b5c4d3e2f1a0b9c8d7e6f5a4b3c2d"
#define KUBE_CGROUP \
	"/kubepods.slice/kubepods-burstable.slice/kubepods-burstable-pod0f3c1a52_6b1e_4d2a_" \
	"9c41_7e5b2d8a9f10.slice/cri-containerd-" KUBE_CTR ".scope"

static void die(const char *fmt, ...) __attribute__((format(printf, 1, 2), noreturn));
static void die(const char *fmt, ...)
{
	char m[512];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(m, sizeof(m), fmt, ap);
	va_end(ap);
	ilog_errorf("%s", m);
	exit(ILOG_EXIT_USAGE);
}

static char *path_of(const char *name, const char *ext)
{
	static char p[4096];
	snprintf(p, sizeof(p), "%s/%s%s", outdir, name, ext);
	return p;
}

/* ---- writing ---- */

static struct ilog_writer *wopen(const char *name, int *fd)
{
	char err[256];
	const char *p = path_of(name, ".ilog");
	*fd = open(p, O_WRONLY | O_CREAT | O_TRUNC, 0644);
	if (*fd < 0)
		die("%s: %s", p, strerror(errno));
	/* frames end only where a vector says so */
	struct ilog_writer_opts o = { .level = 3, .frame_records = 1u << 30,
				      .frame_ms = ILOG_FRAME_MS_OFF };
	struct ilog_writer *w = ilog_writer_open(*fd, &o, err, sizeof(err));
	if (!w)
		die("%s: %s", p, err);
	return w;
}

static void wclose(struct ilog_writer *w, int fd)
{
	char err[256];
	if (ilog_writer_close(w, err, sizeof(err)))
		die("close: %s", err);
	if (close(fd))
		die("close: %s", strerror(errno));
}

static void put(struct ilog_writer *w, const struct ilog_record *rec)
{
	if (ilog_writer_put(w, rec))
		die("put: %s", ilog_writer_error(w));
}

static void flush(struct ilog_writer *w)
{
	if (ilog_writer_flush(w))
		die("flush: %s", ilog_writer_error(w));
}

static void put_raw(struct ilog_writer *w, const msgpack_sbuffer *sb)
{
	struct ilog_raw r = { (const uint8_t *)sb->data, (uint32_t)sb->size };
	if (ilog_writer_put_raw(w, &r))
		die("put_raw: %s", ilog_writer_error(w));
}

/* The examples' clock: 1000 s after boot, 2026-03-01T12:00:00Z. */
#define MONO0 1000000000000ull
#define REAL0 1772366400000000000ull
#define PID 4242

static struct ilog_header header_for(const char *node, int64_t rank, uint32_t node_index,
				     uint64_t mono, uint64_t real)
{
	return (struct ilog_header){
		.magic = ILOG_STR(ILOG_MAGIC),
		.version_major = ILOG_VERSION_MAJOR, .version_minor = ILOG_VERSION_MINOR,
		.node = ilog_str_c(node),
		.boot_id = ILOG_STR("6f1c6a1e-93d4-4b0e-8c55-2f0d9e7a41b3"),
		.host = ilog_str_c(node),
		.recorder = ILOG_STR("mkvectors 1.0"),
		.kernel = ILOG_STR("6.1.0-28-amd64"), .driver = ILOG_STR("550.54.15"),
		.session_id = 0x5eed00000000a001ull + node_index, .rank = rank,
		.mono_ns = mono, .boot_ns = mono + 5000000, .real_ns = real,
		.node_index = node_index,
	};
}

/* A header record alone (ilog_writer_begin adds every schema record). */
static void header(struct ilog_writer *w, const struct ilog_header *h)
{
	struct ilog_record rec = { .kind = ILOG_K_HEADER };
	rec.u.header = *h;
	put(w, &rec);
}

/* A log of node gpu-node-07 with its header written. */
static struct ilog_writer *log_open(const char *name, int *fd)
{
	struct ilog_writer *w = wopen(name, fd);
	struct ilog_header h = header_for("gpu-node-07", -1, 0, MONO0, REAL0);
	header(w, &h);
	return w;
}

/* FNV-1a 64 over bytes, written out here rather than taken from lib/. */
static uint64_t fnv1a(const uint8_t *p, size_t n)
{
	uint64_t h = 0xcbf29ce484222325ull;
	for (size_t i = 0; i < n; i++) {
		h ^= p[i];
		h *= 0x100000001b3ull;
	}
	return h;
}

/* Stack ids are content hashes (SPEC §7.1); FNV-1a over the ips here. */
static uint64_t stack_hash(const uint64_t *ips, uint32_t nr)
{
	uint8_t b[INGERO_MAX_STACK * 8];
	for (uint32_t i = 0; i < nr; i++)
		for (int k = 0; k < 8; k++)
			b[i * 8 + k] = (uint8_t)(ips[i] >> (8 * k));
	return fnv1a(b, (size_t)nr * 8);
}

static struct ilog_record stack_rec(uint32_t pid, const uint64_t *ips, uint32_t nr)
{
	struct ilog_record rec = { .kind = ILOG_K_STACK };
	rec.u.stack.pid = pid;
	rec.u.stack.nr = nr;
	memcpy(rec.u.stack.ips, ips, nr * sizeof(ips[0]));
	rec.u.stack.id = stack_hash(ips, nr);
	return rec;
}

static struct ilog_record cuda(uint64_t ts, uint64_t dur, uint32_t tid, uint16_t op)
{
	struct ilog_record rec = { .kind = ILOG_K_CUDA };
	struct ingero_cuda_event *e = &rec.u.cuda;
	e->ts_ns = ts;
	e->dur_ns = dur;
	e->pid = PID;
	e->tid = tid;
	e->op = op;
	e->layer = (uint8_t)ilog_op_layer(op);
	e->stream = 0x5600000a0000ull;
	return rec;
}

static struct ilog_record launch(uint64_t ts, uint64_t dur)
{
	struct ilog_record rec = cuda(ts, dur, PID, ILOG_OP_cudaLaunchKernel);
	struct ingero_cuda_event *e = &rec.u.cuda;
	e->handle = 0x55d0c0a01230ull; /* the kernel's host-side stub */
	e->grid_x = 1024, e->grid_y = 1, e->grid_z = 1;
	e->block_x = 256, e->block_y = 1, e->block_z = 1;
	return rec;
}

static struct ilog_record host_switch(uint64_t ts, uint64_t dur)
{
	struct ilog_record rec = { .kind = ILOG_K_HOST };
	struct ingero_host_event *h = &rec.u.host;
	h->ts_ns = ts;
	h->type = ILOG_HOST_SWITCH;
	h->pid = PID, h->tid = PID;
	h->other_pid = 812, h->other_tid = 812;
	h->dur_ns = dur;
	h->value = 0;   /* TASK_RUNNING when switched out: preempted */
	h->cpu = 3;
	memcpy(h->comm, "python3", 8);
	memcpy(h->other_comm, "backup", 7);
	return rec;
}

static struct ilog_record schema_of(uint32_t kind)
{
	const struct ilog_kind_desc *d = ilog_kind_desc(kind);
	struct ilog_record rec = { .kind = ILOG_K_SCHEMA };
	rec.u.schema.kind = kind;
	rec.u.schema.name = ilog_str_c(d->name);
	rec.u.schema.nfields = d->nfields;
	for (unsigned i = 0; i < d->nfields; i++)
		rec.u.schema.fields[i] = ilog_str_c(d->fields[i].name);
	return rec;
}

static void pack_s(msgpack_packer *pk, const char *s)
{
	msgpack_pack_str(pk, strlen(s));
	msgpack_pack_str_body(pk, s, strlen(s));
}

/* The worked examples of SPEC §11.1: one frame, one record of each sort. */
static void v_examples(void)
{
	int fd;
	struct ilog_writer *w = log_open("examples", &fd);
	struct ilog_record rec = schema_of(ILOG_K_HOST);
	put(w, &rec);
	static const uint64_t ips[] = { 0x7f3a1c02b4e0ull, 0x7f3a1c01f9a8ull,
					0x55d0c0a01288ull, 0x55d0c09ff010ull };
	struct ilog_record st = stack_rec(PID, ips, 4);
	put(w, &st);
	rec = launch(MONO0 + 250000, 4200);
	rec.u.cuda.stack_id = st.u.stack.id;
	put(w, &rec);
	/* 1300 ns after the launch returned */
	rec = cuda(MONO0 + 255500, 18000, PID, ILOG_OP_cudaMemcpyAsync);
	rec.u.cuda.bytes = 4u << 20;
	rec.u.cuda.kind = 1; /* cudaMemcpyHostToDevice */
	rec.u.cuda.handle = 0x7f8000200000ull;
	put(w, &rec);
	/* another thread, entered before the copy returned: a negative delta */
	rec = cuda(MONO0 + 270000, 950000, PID + 1, ILOG_OP_cudaStreamSynchronize);
	put(w, &rec);
	rec = host_switch(MONO0 + 271000, 930000);
	put(w, &rec);
	/* a kind from a later version: its schema record, then the record */
	rec = (struct ilog_record){ .kind = ILOG_K_SCHEMA };
	rec.u.schema.kind = 99;
	rec.u.schema.name = ILOG_STR("future");
	rec.u.schema.nfields = 2;
	rec.u.schema.fields[0] = ILOG_STR("alpha");
	rec.u.schema.fields[1] = ILOG_STR("beta");
	put(w, &rec);
	msgpack_sbuffer sb;
	msgpack_packer pk;
	msgpack_sbuffer_init(&sb);
	msgpack_packer_init(&pk, &sb, msgpack_sbuffer_write);
	msgpack_pack_array(&pk, 4);
	msgpack_pack_uint32(&pk, 99);
	msgpack_pack_uint32(&pk, 42);
	pack_s(&pk, "xyz");
	msgpack_pack_array(&pk, 2);
	msgpack_pack_uint32(&pk, 1);
	msgpack_pack_int32(&pk, -2);
	put_raw(w, &sb);
	msgpack_sbuffer_destroy(&sb);
	wclose(w, fd);
}

/* What ilog_writer_begin writes: the header and one schema per kind. */
static void v_begin(void)
{
	int fd;
	struct ilog_writer *w = wopen("begin", &fd);
	struct ilog_header h = header_for("gpu-node-07", -1, 0, MONO0, REAL0);
	if (ilog_writer_begin(w, &h))
		die("begin: %s", ilog_writer_error(w));
	wclose(w, fd);
}

/*
 * Launches under --launch-timing 4 (§5.4, 1.5): one timed, three recorded
 * at entry (UNTIMED: no duration, no return value), all with one stack.
 */
static void v_launches(void)
{
	int fd;
	struct ilog_writer *w = log_open("launches", &fd);
	const uint64_t ips[3] = { 0x7f3a00004d60ull, 0x55d0c0a01290ull, 0x55d0c0a00f10ull };
	struct ilog_record st = stack_rec(PID, ips, 3);
	put(w, &st);
	for (int i = 0; i < 4; i++) {
		struct ilog_record rec = launch(MONO0 + 250000 + (uint64_t)i * 9000, i ? 0 : 4200);
		rec.u.cuda.stack_id = st.u.stack.id;
		if (i)
			rec.u.cuda.flags = ILOG_CUDA_F_UNTIMED;
		put(w, &rec);
	}
	wclose(w, fd);
}

/* A data loader's reads from an NVMe disk in one window (§5.19). */
static struct ilog_blkio blkio_loader(void)
{
	struct ilog_blkio b = {
		.ts_ns = MONO0 + 1000000000, .dur_ns = 1000000000, .major = 259, .minor = 0,
		.disk = ILOG_STR("nvme0n1"), .pid = PID + 6, .nprocs = 1, .comm = "pt_data_worker",
		.cgroup_id = 8812, .ios = 480, .bytes = 62914560, .read_ios = 480,
		.read_bytes = 62914560, .lat_sum_ns = 57600000, .lat_max_ns = 1900000, .nhist = 11,
		.hist = { 0, 0, 0, 0, 0, 12, 51, 240, 160, 15, 2 },
	};
	return b;
}

static const uint8_t ip4_a[4] = { 10, 0, 0, 7 }, ip4_b[4] = { 10, 0, 0, 8 };
static const uint8_t ip6_a[16] = { 0xfd, 0x00, 0x0a, 0x11, [15] = 0x07 };
static const uint8_t ip6_b[16] = { 0xfd, 0x00, 0x0a, 0x11, [15] = 0x08 };

/* A flow's retransmissions in the window from ts (§5.20), owned by PID. */
static struct ilog_record retrans_rec(uint64_t ts, uint8_t fam, const uint8_t *sa,
				      const uint8_t *da, uint16_t sport, uint16_t dport,
				      uint64_t count)
{
	uint32_t n = fam == 4 ? 4 : 16;
	struct ilog_record rec = { .kind = ILOG_K_RETRANS };
	rec.u.retrans = (struct ilog_retrans){
		.ts_ns = ts, .dur_ns = 1000000000, .pid = PID, .cgroup_id = 8812, .family = fam,
		.saddr = { sa, n }, .daddr = { da, n }, .sport = sport, .dport = dport,
		.count = count, .state = 1, .flows = 1,
	};
	memcpy(rec.u.retrans.comm, "python3", 8);
	return rec;
}

/* A process's socket volume in the window from ts (§5.21). */
static struct ilog_record sockio_rec(uint64_t ts, uint32_t pid, const char *comm, uint64_t cg,
				     uint64_t tx, uint64_t rx)
{
	struct ilog_record rec = { .kind = ILOG_K_SOCKIO };
	rec.u.sockio = (struct ilog_sockio){
		.ts_ns = ts, .dur_ns = 1000000000, .pid = pid, .cgroup_id = cg,
		.tx_bytes = tx, .rx_bytes = rx, .tx_calls = tx ? tx / 65536 + 1 : 0,
		.rx_calls = rx ? rx / 16384 + 1 : 0,
	};
	snprintf(rec.u.sockio.comm, sizeof(rec.u.sockio.comm), "%s", comm);
	return rec;
}

/* One record of every kind, in kind order (SPEC §5.1 .. §5.21). */
static void v_kinds(void)
{
	int fd;
	struct ilog_writer *w = wopen("kinds", &fd);
	struct ilog_header h = header_for("gpu-node-07", 0, 0, MONO0, REAL0);
	header(w, &h);
	struct ilog_record rec = { .kind = ILOG_K_CLOCK };
	/* one second later; the wall clock ran 250 ns fast meanwhile */
	rec.u.clock = (struct ilog_clock){ MONO0 + 1000000000, MONO0 + 1005000000,
					   REAL0 + 1000000250 };
	put(w, &rec);
	rec = schema_of(ILOG_K_LOSS);
	put(w, &rec);
	rec = cuda(MONO0 + 1000100000, 91000, PID, ILOG_OP_cudaMalloc);
	rec.u.cuda.stream = 0;
	rec.u.cuda.bytes = 256u << 20;
	rec.u.cuda.handle = 0x7f8000000000ull;
	put(w, &rec);
	/* 1.5: pinned host memory, and a copy from it carrying its source */
	rec = cuda(MONO0 + 1000120000, 412000, PID, ILOG_OP_cudaHostAlloc);
	rec.u.cuda.stream = 0;
	rec.u.cuda.bytes = 64u << 20;
	rec.u.cuda.handle = 0x7f3a40000000ull;
	put(w, &rec);
	rec = cuda(MONO0 + 1000150000, 7200, PID, ILOG_OP_cudaMemcpyAsync);
	rec.u.cuda.bytes = 4u << 20;
	rec.u.cuda.kind = 1;
	rec.u.cuda.handle = 0x7f8000000000ull;
	rec.u.cuda.args[0] = 0x7f3a40000000ull;
	rec.u.cuda.nargs = 1;
	put(w, &rec);
	rec = (struct ilog_record){ .kind = ILOG_K_HOST };
	rec.u.host = (struct ingero_host_event){
		.ts_ns = MONO0 + 1000200000, .type = ILOG_HOST_FORK, .pid = PID, .tid = PID,
		.other_pid = 4300, .other_tid = 4300, .cpu = 5, .cgroup_id = 8812,
	};
	memcpy(rec.u.host.comm, "python3", 8);
	memcpy(rec.u.host.other_comm, "python3", 8);
	put(w, &rec);
	static const uint64_t ips[] = { 0x7f3a1c02b4e0ull, 0x55d0c0a01288ull };
	rec = stack_rec(PID, ips, 2);
	put(w, &rec);
	rec = (struct ilog_record){ .kind = ILOG_K_PYSTACK };
	rec.u.pystack.pid = PID;
	rec.u.pystack.nr = 2;
	rec.u.pystack.entry = 0x2; /* frames[1] was entered from C */
	rec.u.pystack.frames[0] = (struct ingero_pyframe){ 0x7f3a2b400030ull, 58 };
	rec.u.pystack.frames[1] = (struct ingero_pyframe){ 0x7f3a2b401a70ull, 212 };
	rec.u.pystack.id = 0x2c0b7e1d94f3a658ull;
	put(w, &rec);
	static const char argv[] = "python3\0train.py\0--epochs\0" "3";
	rec = (struct ilog_record){ .kind = ILOG_K_PROCESS };
	rec.u.process = (struct ilog_process){
		.ts_ns = MONO0 + 1000300000, .pid = PID, .ppid = 4100, .uid = 1000,
		.start_ns = MONO0 - 2000000000, .comm = ILOG_STR("python3"),
		.exe = ILOG_STR("/usr/bin/python3.11"),
		.cmdline = { (const uint8_t *)argv, sizeof(argv) },
		.cgroup = ILOG_STR(KUBE_CGROUP), .cgroup_id = 8812,
		.pod_uid = ILOG_STR("0f3c1a52-6b1e-4d2a-9c41-7e5b2d8a9f10"),
		.container_id = ILOG_STR(KUBE_CTR),
	};
	put(w, &rec);
	static const uint8_t bid[20] = { 0x3f, 0x8a, 0x41, 0x07, 0xc2, 0x9e, 0x51, 0xd0, 0x6b, 0x14,
					 0xe9, 0x27, 0x88, 0x0d, 0xa3, 0x5c, 0x71, 0xb6, 0x02, 0xfe };
	rec = (struct ilog_record){ .kind = ILOG_K_MAPPING };
	rec.u.mapping = (struct ilog_mapping){
		.ts_ns = MONO0 + 1000300000, .pid = PID, .start = 0x7f3a1c000000ull,
		.end = 0x7f3a1c0a2000ull, .offset = 0x1000, .prot = 5,
		.path = ILOG_STR("/usr/local/cuda/lib64/libcudart.so.13"),
		.build_id = { bid, sizeof(bid) },
	};
	put(w, &rec);
	static const uint8_t lt[] = { 0x80, 0x00, 0xd8, 0x08, 0x0c };
	rec = (struct ilog_record){ .kind = ILOG_K_PYCODE };
	rec.u.pycode = (struct ilog_pycode){
		.pid = PID, .code = 0x7f3a2b400030ull, .py_version = 0x030b,
		.filename = ILOG_STR("train.py"), .qualname = ILOG_STR("Model.forward"),
		.firstlineno = 140, .linetable = { lt, sizeof(lt) },
	};
	put(w, &rec);
	rec = (struct ilog_record){ .kind = ILOG_K_SNAPSHOT };
	rec.u.snapshot = (struct ilog_snapshot){
		.ts_ns = MONO0 + 2000000000, .cpu_pct = 37.5, .ncpu = 8,
		.mem_total = 32ull << 30, .mem_avail = 20ull << 30, .swap_total = 2ull << 30,
		.swap_free = 2ull << 30, .load1 = 1.25, .load5 = 0.75, .load15 = 0.5, .nprocs = 1,
	};
	rec.u.snapshot.nprocs = 2;
	rec.u.snapshot.procs[0] = (struct ilog_snapshot_proc){ PID, 98.5, 3ull << 30, 0, "python3" };
	/* not a target: the process whose resident memory grew most */
	rec.u.snapshot.procs[1] = (struct ilog_snapshot_proc){ 5120, 97.0, 6ull << 30, 1ull << 30,
							       "preproc" };
	rec.u.snapshot.psi_cpu_some = 2.5;
	rec.u.snapshot.psi_mem_some = 12.25;
	rec.u.snapshot.psi_mem_full = 4.5;
	rec.u.snapshot.psi_io_some = 0.75;
	/* 1.8: the hypervisor ran something else 3.25% of the CPUs' time */
	rec.u.snapshot.steal_pct = 3.25;
	put(w, &rec);
	rec = (struct ilog_record){ .kind = ILOG_K_LOSS };
	rec.u.loss = (struct ilog_loss){ .ts_ns = MONO0 + 2000000000,
					 .source = ILOG_STR("ringbuf:cuda"), .lost = 3, .seen = 120000 };
	put(w, &rec);
	rec = (struct ilog_record){ .kind = ILOG_K_SYMBOL };
	rec.u.symbol = (struct ilog_symbol){
		.pid = PID, .ip = 0x55d0c0a01288ull, .build_id = { bid, 4 },
		.module = ILOG_STR("/opt/app/bin/trainer"), .module_off = 0x1288,
		.function = ILOG_STR("launch_gemm(int)"), .sym_off = 0x58,
		.file = ILOG_STR("src/gemm.cu"), .line = 88, .inline_depth = 0,
	};
	put(w, &rec);
	rec = (struct ilog_record){ .kind = ILOG_K_CHAIN };
	rec.u.chain = (struct ilog_chain){
		.id = 0x1, .ts_start = MONO0 + 270000, .ts_end = MONO0 + 1220000,
		.severity = ILOG_SEV_HIGH, .pattern = ILOG_STR("cpu-contention"), .pid = PID,
		.op = ILOG_OP_cudaStreamSynchronize, .score = 0.92,
		.title = ILOG_STR("cudaStreamSynchronize stalled by preemption"),
		.root_cause = ILOG_STR("pid 812 (backup) ran on cpu 3 for 930 us"),
		.fix = ILOG_STR("pin backup away from the training cpus"),
		.evidence = ILOG_STR("[{\"ts_ns\":1000000271000,\"what\":\"switch\"}]"),
		.comm = ILOG_STR("python3"), .culprit_pid = 812, .culprit_comm = ILOG_STR("backup"),
		.lost_ns = 930000, .metrics = ILOG_STR("{\"off_cpu_ns\":930000}"),
	};
	put(w, &rec);
	rec = (struct ilog_record){ .kind = ILOG_K_PROVENANCE };
	rec.u.provenance = (struct ilog_provenance){
		.real_ns = REAL0 + 3600000000000ull, .tool = ILOG_STR("ingero-symbolize"),
		.version = ILOG_STR("0.1.0"), .args = ILOG_STR("ingero-symbolize run.ilog"),
	};
	put(w, &rec);
	rec = (struct ilog_record){ .kind = ILOG_K_NODE };
	rec.u.node.node_index = 0;
	put(w, &rec);
	/* §5.17: a named op (--api), named once, then a call of it with its
	 * raw arguments (a cudaStream_t * and flags) */
	int op = ilog_op_intern("cudaStreamCreateWithFlags", 25, ILOG_LAYER_RUNTIME, 0);
	if (op < 0)
		die("ilog_op_intern failed");
	rec = (struct ilog_record){ .kind = ILOG_K_OPNAME };
	rec.u.opname = (struct ilog_opname){ (uint32_t)op, ILOG_LAYER_RUNTIME,
					     ILOG_STR("cudaStreamCreateWithFlags") };
	put(w, &rec);
	rec = cuda(MONO0 + 2000100000, 5300, PID, (uint16_t)op);
	rec.u.cuda.stream = 0;
	rec.u.cuda.nargs = 2;
	rec.u.cuda.args[0] = 0x7ffd5c2a1e40ull;
	rec.u.cuda.args[1] = 1;
	put(w, &rec);
	/* §5.18: a kernel's name for a driver handle, then a launch of it,
	 * which the JSON rendering names */
	rec = (struct ilog_record){ .kind = ILOG_K_KERNEL };
	rec.u.kernel = (struct ilog_kernel){ PID, 0x6c0000001000ull,
					     ILOG_STR("vecAdd(float*, float*, float*, int)") };
	put(w, &rec);
	rec = cuda(MONO0 + 2000200000, 3100, PID, ILOG_OP_cuLaunchKernel);
	rec.u.cuda.handle = 0x6c0000001000ull;
	rec.u.cuda.grid_x = 256, rec.u.cuda.grid_y = 1, rec.u.cuda.grid_z = 1;
	rec.u.cuda.block_x = 128, rec.u.cuda.block_y = 1, rec.u.cuda.block_z = 1;
	put(w, &rec);
	/* §5.19: a window of block I/O on one device by one process */
	rec = (struct ilog_record){ .kind = ILOG_K_BLKIO };
	rec.u.blkio = blkio_loader();
	put(w, &rec);
	/* §5.20, §5.21: the network of a window */
	rec = retrans_rec(MONO0 + 2000000000, 4, ip4_a, ip4_b, 41872, 29500, 7);
	put(w, &rec);
	rec = sockio_rec(MONO0 + 2000000000, PID, "python3", 8812, 268435456, 1048576);
	put(w, &rec);
	/* §5.22: an all-reduce still in progress at a window's end */
	rec = cuda(MONO0 + 1800000000, 1200000000, PID, ILOG_OP_ncclAllReduce);
	rec.kind = ILOG_K_INFLIGHT;
	rec.u.cuda.bytes = 1 << 20;
	rec.u.cuda.kind = 7; /* float32 */
	rec.u.cuda.handle = 0x5c0000001000ull;
	rec.u.cuda.nargs = 1; /* redop: sum */
	rec.u.cuda.stack_id = stack_hash(ips, 2);
	put(w, &rec);
	/* §5.23: a flight recorder's dump, triggered by that call's hang */
	rec = (struct ilog_record){ .kind = ILOG_K_TRIGGER };
	rec.u.trigger = (struct ilog_trigger){
		.ts_ns = MONO0 + 3000000000, .reason = ILOG_STR("hang"), .pid = PID, .tid = PID,
		.op = ILOG_OP_ncclAllReduce, .value_ns = 1200000000, .before_ns = 60000000000,
		.after_ns = 60000000000, .seq = 1,
	};
	put(w, &rec);
	wclose(w, fd);
}

/*
 * §5.4 (1.4): a two-rank job on one node.  Both ranks join the
 * communicator of one ncclUniqueId (its hash in args), rank 0 sends to
 * and receives from rank 1 in a group, both all-reduce, reduce to rank 0
 * and broadcast; rank 1 leaves a split of the communicator
 * (NCCL_SPLIT_NOCOLOR, -1), then its second all-reduce hangs: inflight
 * records at two window ends, then its cuda record at stop (NO_RETURN),
 * while rank 0 splits and a third process opens four devices'
 * communicators alone (ncclCommInitAll).
 */
static struct ilog_record nccl(uint64_t ts, uint64_t dur, uint32_t pid, uint16_t op,
			       uint64_t comm, uint64_t count)
{
	struct ilog_record rec = cuda(ts, dur, pid, op);
	rec.u.cuda.pid = pid;
	rec.u.cuda.stream = 0x5600000b0000ull + (pid - PID) * 0x10000;
	rec.u.cuda.handle = comm;
	rec.u.cuda.bytes = count;
	rec.u.cuda.kind = 7; /* float32 */
	return rec;
}

static void nccl_args(struct ilog_record *rec, uint32_t n, uint64_t a0, uint64_t a1, uint64_t a2)
{
	rec->u.cuda.nargs = n;
	rec->u.cuda.args[0] = a0;
	rec->u.cuda.args[1] = a1;
	rec->u.cuda.args[2] = a2;
}

static void v_nccl(void)
{
	int fd;
	struct ilog_writer *w = log_open("nccl", &fd);
	const uint32_t r0 = PID, r1 = PID + 1;
	const uint64_t c0 = 0x5c0000001000ull, c1 = 0x5c0000002000ull;
	/* an id as NCCL makes it: the root's socket address, then zeros */
	uint8_t id[128] = { 0x02, 0x00, 0x9c, 0x40, 10, 0, 0, 7 };
	const uint64_t idh = fnv1a(id, sizeof(id));
	const uint64_t t = MONO0 + 100000000;
	struct ilog_record rec = nccl(t, 812000000, r0, ILOG_OP_ncclCommInitRank, c0, 2);
	rec.u.cuda.stream = 0;
	rec.u.cuda.kind = 0; /* rank */
	nccl_args(&rec, 1, idh, 0, 0);
	put(w, &rec);
	rec = nccl(t + 3000000, 809000000, r1, ILOG_OP_ncclCommInitRankConfig, c1, 2);
	rec.u.cuda.stream = 0;
	rec.u.cuda.kind = 1;
	nccl_args(&rec, 1, idh, 0, 0);
	put(w, &rec);
	const uint64_t s = t + 900000000;
	rec = nccl(s, 1200, r0, ILOG_OP_ncclGroupStart, 0, 0);
	rec.u.cuda.stream = 0, rec.u.cuda.kind = 0;
	put(w, &rec);
	rec = nccl(s + 2000, 3100, r0, ILOG_OP_ncclSend, c0, 4096);
	nccl_args(&rec, 1, 1, 0, 0); /* peer */
	put(w, &rec);
	rec = nccl(s + 6000, 2900, r0, ILOG_OP_ncclRecv, c0, 4096);
	nccl_args(&rec, 1, 1, 0, 0);
	put(w, &rec);
	rec = nccl(s + 10000, 41000, r0, ILOG_OP_ncclGroupEnd, 0, 0);
	rec.u.cuda.stream = 0, rec.u.cuda.kind = 0;
	put(w, &rec);
	rec = nccl(s + 100000, 8000, r0, ILOG_OP_ncclAllReduce, c0, 1 << 20);
	nccl_args(&rec, 1, 0, 0, 0); /* ncclSum */
	put(w, &rec);
	rec = nccl(s + 130000, 8200, r1, ILOG_OP_ncclAllReduce, c1, 1 << 20);
	nccl_args(&rec, 1, 0, 0, 0);
	put(w, &rec);
	rec = nccl(s + 200000, 5000, r0, ILOG_OP_ncclReduce, c0, 1 << 16);
	nccl_args(&rec, 2, 2, 0, 0); /* ncclMax to rank 0 */
	put(w, &rec);
	rec = nccl(s + 300000, 4000, r1, ILOG_OP_ncclBcast, c1, 1 << 16);
	nccl_args(&rec, 1, 0, 0, 0); /* from rank 0 */
	put(w, &rec);
	rec = nccl(s + 400000, 6000, r0, ILOG_OP_ncclBroadcast, c0, 1 << 16);
	nccl_args(&rec, 1, 0, 0, 0);
	put(w, &rec);
	rec = nccl(s + 450000, 9000, r1, ILOG_OP_ncclCommSplit, 0, 0);
	rec.u.cuda.stream = 0, rec.u.cuda.kind = 0;
	nccl_args(&rec, 3, c1, (uint64_t)(int64_t)-1, 0); /* NCCL_SPLIT_NOCOLOR: no communicator */
	put(w, &rec);
	/* rank 1 enters an all-reduce that rank 0 never joins */
	const uint64_t hang = s + 500000;
	struct ilog_record hr = nccl(hang, 0, r1, ILOG_OP_ncclAllReduce, c1, 1 << 20);
	nccl_args(&hr, 1, 0, 0, 0);
	hr.kind = ILOG_K_INFLIGHT;
	hr.u.inflight.dur_ns = MONO0 + 2100000000 - hang;
	put(w, &hr);
	rec = nccl(s + 600000, 120000, r0, ILOG_OP_ncclCommSplit, 0x5c0000003000ull, 0);
	rec.u.cuda.stream = 0, rec.u.cuda.kind = 0;
	nccl_args(&rec, 3, c0, 1, 0); /* parent, color 1, key 0 */
	put(w, &rec);
	rec = nccl(MONO0 + 1500000000, 15000000, PID + 2, ILOG_OP_ncclCommInitAll,
		   0x5c0000004000ull, 4);
	rec.u.cuda.stream = 0, rec.u.cuda.kind = 0;
	put(w, &rec);
	hr.u.inflight.dur_ns = MONO0 + 3100000000 - hang;
	put(w, &hr);
	/* at stop: the call never returned */
	hr.kind = ILOG_K_CUDA;
	hr.u.cuda.dur_ns = MONO0 + 3400000000 - hang;
	hr.u.cuda.flags = ILOG_CUDA_F_NO_RETURN;
	put(w, &hr);
	wclose(w, fd);
}

static void symbol(struct ilog_writer *w, uint64_t ip, uint32_t depth, const char *fn,
		   uint64_t sym_off, const char *file, uint32_t line)
{
	static const uint8_t bid[4] = { 0x9a, 0x41, 0x5c, 0x0e };
	struct ilog_record rec = { .kind = ILOG_K_SYMBOL };
	rec.u.symbol = (struct ilog_symbol){
		.pid = PID, .ip = ip, .build_id = { bid, sizeof(bid) },
		.module = ILOG_STR("/opt/app/bin/trainer"), .module_off = ip - 0x55d0c09fe000ull,
		.function = ilog_str_c(fn), .sym_off = sym_off, .file = ilog_str_c(file),
		.line = line, .inline_depth = depth,
	};
	put(w, &rec);
}

/*
 * A symbolized log (§5.13, §6.4): symbol records before the stack that
 * uses their ips, one ip inside an inlined function; a pycode record
 * before the pystack that uses its code object.
 */
static void v_symbolized(void)
{
	int fd;
	struct ilog_writer *w = log_open("symbolized", &fd);
	symbol(w, 0x55d0c0a01288ull, 0, "gemm_tile(float const*)", 0, "include/gemm.h", 31);
	symbol(w, 0x55d0c0a01288ull, 1, "launch_gemm(int)", 0x58, "src/gemm.cu", 88);
	symbol(w, 0x55d0c09ff010ull, 0, "main", 0x40, "src/main.cu", 12);
	/* the first ip (in libcudart) was not resolved */
	static const uint64_t ips[] = { 0x7f3a1c02b4e0ull, 0x55d0c0a01288ull, 0x55d0c09ff010ull };
	struct ilog_record rec = stack_rec(PID, ips, 3);
	put(w, &rec);
	/* CPython 3.11 locations: code unit 0 at line 140, unit 1 at 141 */
	static const uint8_t lt[] = { 0x80, 0x00, 0xd8, 0x08, 0x0c };
	rec = (struct ilog_record){ .kind = ILOG_K_PYCODE };
	rec.u.pycode = (struct ilog_pycode){
		.pid = PID, .code = 0x7f3a2b400030ull, .py_version = 0x030b,
		.filename = ILOG_STR("train.py"), .qualname = ILOG_STR("Model.forward"),
		.firstlineno = 140, .linetable = { lt, sizeof(lt) },
	};
	put(w, &rec);
	rec = (struct ilog_record){ .kind = ILOG_K_PYSTACK };
	rec.u.pystack.pid = PID;
	rec.u.pystack.nr = 2;
	rec.u.pystack.entry = 0x2;
	rec.u.pystack.frames[0] = (struct ingero_pyframe){ 0x7f3a2b400030ull, 1 };
	rec.u.pystack.frames[1] = (struct ingero_pyframe){ 0x7f3a2b401a70ull, 212 };
	rec.u.pystack.id = 0x2c0b7e1d94f3a658ull;
	put(w, &rec);
	wclose(w, fd);
}

/* Two frames: the delta bases start again at 0 in the second (§4.3). */
/* The whole host (§5.5): a window's page allocations of every process,
 * top ones named and the rest summed, the stalls tasks suffered, and a
 * target's I/O wait, block I/O and CPU quota throttling. */
static void v_host(void)
{
	int fd;
	struct ilog_writer *w = log_open("host", &fd);
	struct ilog_record rec = { .kind = ILOG_K_HOST };
	struct ingero_host_event *h = &rec.u.host;
	const uint64_t win = MONO0 + 1000000000;
	*h = (struct ingero_host_event){ .ts_ns = win, .type = ILOG_HOST_PAGE_ALLOC, .pid = PID,
					 .dur_ns = 1000000000, .value = 1536, .cgroup_id = 8812 };
	memcpy(h->comm, "python3", 8);
	put(w, &rec);
	*h = (struct ingero_host_event){ .ts_ns = win, .type = ILOG_HOST_PAGE_ALLOC, .pid = 5120,
					 .dur_ns = 1000000000, .value = 262144,
					 .cgroup_id = 9310 };
	memcpy(h->comm, "preproc", 8);
	put(w, &rec);
	*h = (struct ingero_host_event){ .ts_ns = win, .type = ILOG_HOST_PAGE_ALLOC_REST,
					 .other_pid = 37, .dur_ns = 1000000000, .value = 5120 };
	put(w, &rec);
	*h = (struct ingero_host_event){ .ts_ns = win + 420000000, .type = ILOG_HOST_RECLAIM,
					 .pid = PID, .tid = PID + 3, .dur_ns = 2300000, .value = 96,
					 .cpu = 3, .cgroup_id = 8812 };
	memcpy(h->comm, "pt_data_worker", 15);
	memcpy(h->other_comm, "python3", 8);
	put(w, &rec);
	*h = (struct ingero_host_event){ .ts_ns = win + 610000000, .type = ILOG_HOST_COMPACT,
					 .pid = 5120, .tid = 5120, .dur_ns = 850000, .value = 3,
					 .cpu = 1, .cgroup_id = 9310 };
	memcpy(h->comm, "preproc", 8);
	memcpy(h->other_comm, "preproc", 8);
	put(w, &rec);
	/* 1.3: a target's time blocked on I/O in the window, and the window's
	 * block I/O: the job's data loader, a backup job named as one of the
	 * busiest, the device's other requests summed */
	*h = (struct ingero_host_event){ .ts_ns = win, .type = ILOG_HOST_IOWAIT, .pid = PID + 6,
					 .other_pid = 431, .dur_ns = 1000000000, .value = 612000000,
					 .cgroup_id = 8812 };
	memcpy(h->comm, "pt_data_worker", 15);
	put(w, &rec);
	/* 1.6: the target's calling threads' time blocked between its CUDA
	 * calls in the window, in futex waits: 212 of them, 405 ms */
	*h = (struct ingero_host_event){ .ts_ns = win, .type = ILOG_HOST_WAIT, .pid = PID,
					 .other_pid = 212, .other_tid = ILOG_WAIT_LOCK,
					 .dur_ns = 1000000000, .value = 405000000, .cgroup_id = 8812 };
	memcpy(h->comm, "python3", 8);
	memcpy(h->other_comm, "lock", 5);
	put(w, &rec);
	/* 1.7: a training thread woken from interrupt context (no waker, as
	 * a GPU completion wakes it) waited 1.2 ms for its CPU, which PID 812
	 * (backup) held until then (value: the occupant) */
	*h = (struct ingero_host_event){ .ts_ns = win + 500000000, .type = ILOG_HOST_WAKEUP,
					 .pid = PID, .tid = PID + 1, .dur_ns = 1200000, .value = 812,
					 .cpu = 3, .cgroup_id = 8812 };
	memcpy(h->comm, "python3", 8);
	put(w, &rec);
	/* 1.6: an OOM kill that enforced a memory cgroup's limit: the kill
	 * (the victim, its resident set) and the cgroup at its limit (8 GiB,
	 * 400 KiB under it at the kill) */
	*h = (struct ingero_host_event){ .ts_ns = win + 730000000, .type = ILOG_HOST_OOM,
					 .pid = PID + 6, .tid = PID + 6, .other_pid = PID + 6,
					 .other_tid = PID + 6, .value = 7516192768, .cpu = 2,
					 .cgroup_id = 8812 };
	memcpy(h->comm, "pt_data_worker", 15);
	memcpy(h->other_comm, "pt_data_worker", 15);
	put(w, &rec);
	h->type = ILOG_HOST_OOM_MEMCG;
	h->value = 8589934592;
	h->dur_ns = 8589934592 - 409600;
	h->cgroup_id = 8790;
	put(w, &rec);
	/* 1.5: the target's cgroup's CPU quota (half a CPU: 50 ms per 100 ms
	 * period), read at the window's start, and its throttling in the
	 * window: 7 of 10 periods, 310 ms */
	*h = (struct ingero_host_event){ .ts_ns = win, .type = ILOG_HOST_CPU_QUOTA,
					 .pid = PID, .dur_ns = 100000000, .value = 50000000,
					 .cgroup_id = 8812 };
	memcpy(h->comm, "python3", 8);
	put(w, &rec);
	*h = (struct ingero_host_event){ .ts_ns = win, .type = ILOG_HOST_CPU_THROTTLE, .pid = PID,
					 .other_pid = 7, .other_tid = 10, .dur_ns = 1000000000,
					 .value = 310000000, .cgroup_id = 8812 };
	memcpy(h->comm, "python3", 8);
	put(w, &rec);
	rec = (struct ilog_record){ .kind = ILOG_K_BLKIO };
	rec.u.blkio = blkio_loader();
	put(w, &rec);
	rec.u.blkio = (struct ilog_blkio){
		.ts_ns = win, .dur_ns = 1000000000, .major = 259, .minor = 0,
		.disk = ILOG_STR("nvme0n1"), .pid = 7311, .nprocs = 1, .comm = "restic",
		.cgroup_id = 9412, .ios = 2048, .bytes = 268435456, .read_ios = 2048,
		.read_bytes = 268435456, .lat_sum_ns = 655360000, .lat_max_ns = 4100000,
		.nhist = 13, .hist = { 0, 0, 0, 0, 0, 0, 0, 64, 1210, 701, 60, 11, 2 },
	};
	put(w, &rec);
	rec.u.blkio = (struct ilog_blkio){
		.ts_ns = win, .dur_ns = 1000000000, .major = 259, .minor = 0,
		.disk = ILOG_STR("nvme0n1"), .nprocs = 5, .ios = 9, .bytes = 94208,
		.lat_sum_ns = 1350000, .lat_max_ns = 410000, .nhist = 9,
		.hist = { 0, 0, 0, 0, 0, 0, 3, 4, 2 },
	};
	put(w, &rec);
	wclose(w, fd);
}

/* §5.20, §5.21: a window of the network: an IPv4 and an IPv6 flow that
 * retransmitted, the other flows summed; two processes' socket volume,
 * the others summed */
static void v_net(void)
{
	int fd;
	struct ilog_writer *w = log_open("net", &fd);
	const uint64_t win = MONO0 + 1000000000;
	struct ilog_record rec = retrans_rec(win, 4, ip4_a, ip4_b, 41872, 29500, 37);
	put(w, &rec);
	rec = retrans_rec(win, 6, ip6_a, ip6_b, 50112, 29501, 4);
	rec.u.retrans.state = 2; /* a SYN_SENT socket's SYN again */
	put(w, &rec);
	rec = (struct ilog_record){ .kind = ILOG_K_RETRANS };
	rec.u.retrans = (struct ilog_retrans){ .ts_ns = win, .dur_ns = 1000000000, .count = 3,
					       .flows = 2 };
	put(w, &rec);
	rec = sockio_rec(win, PID, "python3", 8812, 268435456, 1048576);
	put(w, &rec);
	rec = sockio_rec(win, 5120, "rsync", 9310, 33554432, 0);
	put(w, &rec);
	rec = sockio_rec(win, 0, "", 0, 65536, 131072);
	rec.u.sockio.others = 12;
	put(w, &rec);
	wclose(w, fd);
}

static void v_frames(void)
{
	int fd;
	struct ilog_writer *w = log_open("frames", &fd);
	struct ilog_record rec = launch(MONO0 + 250000, 4200);
	put(w, &rec);
	rec = launch(MONO0 + 256000, 4100);
	put(w, &rec);
	flush(w);
	rec = (struct ilog_record){ .kind = ILOG_K_CLOCK };
	rec.u.clock = (struct ilog_clock){ MONO0 + 1000000000, MONO0 + 1005000000,
					   REAL0 + 1000000250 };
	put(w, &rec);
	rec = launch(MONO0 + 1000001000, 4000);
	put(w, &rec);
	wclose(w, fd);
}

/* Logs from two nodes in one stream: node records say whose records follow. */
static void v_merged(void)
{
	int fd;
	struct ilog_writer *w = wopen("merged", &fd);
	struct ilog_header h = header_for("gpu-node-07", 0, 0, MONO0, REAL0);
	header(w, &h);
	/* node 1 booted later: its monotonic clock reads less at the same instant */
	h = header_for("gpu-node-08", 1, 1, 400000000000ull, REAL0 + 20000);
	header(w, &h);
	struct ilog_record nrec = { .kind = ILOG_K_NODE };
	nrec.u.node.node_index = 0;
	put(w, &nrec);
	struct ilog_record rec = launch(MONO0 + 250000, 4200);
	put(w, &rec);
	nrec.u.node.node_index = 1;
	put(w, &nrec);
	rec = launch(400000000000ull + 240000, 4300);
	put(w, &rec);
	nrec.u.node.node_index = 0;
	put(w, &nrec);
	rec = host_switch(MONO0 + 271000, 930000);
	put(w, &rec);
	wclose(w, fd);
}

/* Append src's bytes to dst. */
static void append_file(const char *dst, const char *src)
{
	char buf[65536];
	int in = open(src, O_RDONLY), out = open(dst, O_WRONLY | O_APPEND);
	ssize_t k;
	if (in < 0 || out < 0)
		die("append: %s", strerror(errno));
	while ((k = read(in, buf, sizeof(buf))) > 0)
		if (write(out, buf, (size_t)k) != k)
			die("append: %s", strerror(errno));
	close(in);
	close(out);
}

/* `cat a.ilog b.ilog`: two logs from two nodes, one after the other (§3.3). */
static void v_concat(void)
{
	int fd;
	struct ilog_writer *w = log_open("concat", &fd);
	struct ilog_record rec = launch(MONO0 + 250000, 4200);
	put(w, &rec);
	wclose(w, fd);
	w = wopen("concat.tmp", &fd);
	struct ilog_header h = header_for("gpu-node-08", -1, 0, 400000000000ull, REAL0 + 20000);
	header(w, &h);
	rec = launch(400000000000ull + 240000, 4300);
	put(w, &rec);
	wclose(w, fd);
	char tmp[4096];
	snprintf(tmp, sizeof(tmp), "%s", path_of("concat.tmp", ".ilog"));
	append_file(path_of("concat", ".ilog"), tmp);
	unlink(tmp);
}

/* A skippable zstd frame (§3.2): magic 0x184D2A5?, length, payload. */
static void skippable(int fd, uint32_t magic, const char *payload)
{
	uint32_t n = (uint32_t)strlen(payload);
	uint8_t hdr[8] = { (uint8_t)magic, (uint8_t)(magic >> 8), (uint8_t)(magic >> 16),
			   (uint8_t)(magic >> 24), (uint8_t)n, (uint8_t)(n >> 8),
			   (uint8_t)(n >> 16), (uint8_t)(n >> 24) };
	if (write(fd, hdr, 8) != 8 || write(fd, payload, n) != (ssize_t)n)
		die("write: %s", strerror(errno));
}

/*
 * Forward compatibility (§8): a log of version 1.7 with a cuda record
 * carrying two trailing fields this version does not know, a host record
 * from a writer that stopped early, a kind with no schema record, and a
 * skippable frame between data frames.
 */
static void v_forward(void)
{
	int fd;
	struct ilog_writer *w = wopen("forward", &fd);
	struct ilog_header h = header_for("gpu-node-07", -1, 0, MONO0, REAL0);
	h.version_minor = ILOG_VERSION_MINOR + 1;
	header(w, &h);
	msgpack_sbuffer sb;
	msgpack_packer pk;
	msgpack_sbuffer_init(&sb);
	msgpack_packer_init(&pk, &sb, msgpack_sbuffer_write);
	/* the first cuda record of the frame: its delta is the whole ts */
	struct ingero_cuda_event e = launch(MONO0 + 250000, 4200).u.cuda;
	msgpack_pack_array(&pk, 1 + 21 + 2);
	msgpack_pack_uint32(&pk, ILOG_K_CUDA);
	msgpack_pack_int64(&pk, (int64_t)e.ts_ns);
	msgpack_pack_uint64(&pk, e.dur_ns);
	msgpack_pack_uint32(&pk, e.pid);
	msgpack_pack_uint32(&pk, e.tid);
	msgpack_pack_uint8(&pk, e.layer);
	msgpack_pack_uint16(&pk, e.op);
	msgpack_pack_int32(&pk, e.ret);
	msgpack_pack_uint64(&pk, e.stream);
	msgpack_pack_uint64(&pk, e.bytes);
	msgpack_pack_uint64(&pk, e.handle);
	msgpack_pack_uint32(&pk, e.kind);
	msgpack_pack_uint32(&pk, e.grid_x);
	msgpack_pack_uint32(&pk, e.grid_y);
	msgpack_pack_uint32(&pk, e.grid_z);
	msgpack_pack_uint32(&pk, e.block_x);
	msgpack_pack_uint32(&pk, e.block_y);
	msgpack_pack_uint32(&pk, e.block_z);
	msgpack_pack_uint8(&pk, e.flags);
	msgpack_pack_uint64(&pk, e.stack_id);
	msgpack_pack_uint64(&pk, e.pystack_id);
	msgpack_pack_array(&pk, 0);           /* args (1.2): none for a decoded op */
	msgpack_pack_uint32(&pk, 7);          /* fields of a later 1.x */
	pack_s(&pk, "sm_90");
	put_raw(w, &sb);
	/* the raw record moved the cuda delta base; start a new frame */
	flush(w);
	skippable(fd, 0x184D2A5E, "not records");
	sb.size = 0;
	msgpack_pack_array(&pk, 1 + 6);       /* host with 6 of its 11 fields */
	msgpack_pack_uint32(&pk, ILOG_K_HOST);
	msgpack_pack_int64(&pk, (int64_t)(MONO0 + 271000));
	msgpack_pack_uint16(&pk, ILOG_HOST_SWITCH);
	msgpack_pack_uint32(&pk, PID);
	msgpack_pack_uint32(&pk, PID);
	msgpack_pack_uint32(&pk, 812);
	msgpack_pack_uint32(&pk, 812);
	put_raw(w, &sb);
	sb.size = 0;
	msgpack_pack_array(&pk, 6);           /* a kind no schema names */
	msgpack_pack_uint32(&pk, 100);
	msgpack_pack_true(&pk);
	msgpack_pack_nil(&pk);
	msgpack_pack_double(&pk, 1.5);
	msgpack_pack_map(&pk, 1);
	pack_s(&pk, "k");
	msgpack_pack_int32(&pk, -1);
	msgpack_pack_bin(&pk, 2);
	msgpack_pack_bin_body(&pk, "\x01\xff", 2);
	put_raw(w, &sb);
	msgpack_sbuffer_destroy(&sb);
	struct ilog_record rec = launch(MONO0 + 300000, 4000);
	put(w, &rec);
	wclose(w, fd);
}

/* Offsets of the zstd frames in a file (data and skippable). */
static int frame_offsets(const uint8_t *p, size_t n, size_t *offs, int max)
{
	size_t off = 0;
	int k = 0;
	while (off < n && k < max) {
		size_t cs = ZSTD_findFrameCompressedSize(p + off, n - off);
		if (ZSTD_isError(cs))
			break;
		offs[k++] = off;
		off += cs;
	}
	return k;
}

static uint8_t *slurp(const char *path, size_t *n)
{
	FILE *f = fopen(path, "rb");
	if (!f)
		die("%s: %s", path, strerror(errno));
	size_t cap = 1 << 16, len = 0, k;
	uint8_t *b = malloc(cap);
	while (b && (k = fread(b + len, 1, cap - len, f)) > 0) {
		len += k;
		if (len == cap)
			b = realloc(b, cap *= 2);
	}
	if (!b)
		die("out of memory");
	fclose(f);
	*n = len;
	return b;
}

static void two_frame_log(const char *name)
{
	int fd;
	struct ilog_writer *w = log_open(name, &fd);
	struct ilog_record rec = launch(MONO0 + 250000, 4200);
	put(w, &rec);
	flush(w);
	rec = launch(MONO0 + 256000, 4100);
	put(w, &rec);
	rec = launch(MONO0 + 261000, 4300);
	put(w, &rec);
	flush(w);
	rec = launch(MONO0 + 266000, 4000);
	put(w, &rec);
	wclose(w, fd);
}

/* A writer killed in the middle of writing its second frame (§9). */
static void v_truncated(void)
{
	two_frame_log("truncated");
	size_t n, offs[8];
	const char *p = path_of("truncated", ".ilog");
	uint8_t *b = slurp(p, &n);
	if (frame_offsets(b, n, offs, 8) != 3)
		die("truncated: expected 3 frames");
	/* keep the first frame and half of the second */
	if (truncate(p, (off_t)(offs[1] + (offs[2] - offs[1]) / 2)))
		die("%s: %s", p, strerror(errno));
	free(b);
}

/* One flipped bit in the last frame's checksum (§3.1, §9): a reader goes
 * on after a damaged frame, so one in the middle would show the frames
 * after it too (tests/unit/codec.c covers that). */
static void v_corrupt(void)
{
	two_frame_log("corrupt");
	size_t n, offs[8];
	const char *p = path_of("corrupt", ".ilog");
	uint8_t *b = slurp(p, &n);
	if (frame_offsets(b, n, offs, 8) != 3)
		die("corrupt: expected 3 frames");
	b[n - 1] ^= 0x01; /* the last byte of frame 3 is its checksum's */
	FILE *f = fopen(p, "wb");
	if (!f || fwrite(b, 1, n, f) != n || fclose(f))
		die("%s: %s", p, strerror(errno));
	free(b);
}

/* A well-formed msgpack record of the wrong shape: op is a string (§9). */
static void v_badrecord(void)
{
	int fd;
	struct ilog_writer *w = log_open("bad-record", &fd);
	struct ilog_record rec = launch(MONO0 + 250000, 4200);
	put(w, &rec);
	msgpack_sbuffer sb;
	msgpack_packer pk;
	msgpack_sbuffer_init(&sb);
	msgpack_packer_init(&pk, &sb, msgpack_sbuffer_write);
	msgpack_pack_array(&pk, 7);
	msgpack_pack_uint32(&pk, ILOG_K_CUDA);
	msgpack_pack_int64(&pk, 1300);        /* 1300 ns after the launch returned */
	msgpack_pack_uint64(&pk, 18000);
	msgpack_pack_uint32(&pk, PID);
	msgpack_pack_uint32(&pk, PID);
	msgpack_pack_uint8(&pk, ILOG_LAYER_RUNTIME);
	pack_s(&pk, "cudaMemcpyAsync");       /* op must be an integer */
	put_raw(w, &sb);
	msgpack_sbuffer_destroy(&sb);
	/* the rest of its frame is lost, and a reader goes on with the next:
	 * none, so that the JSON lines are the records before it */
	wclose(w, fd);
}

/* A log of a later major version whose header layout changed (§8.3). */
static void v_future_major(void)
{
	int fd;
	struct ilog_writer *w = wopen("future-major", &fd);
	msgpack_sbuffer sb;
	msgpack_packer pk;
	msgpack_sbuffer_init(&sb);
	msgpack_packer_init(&pk, &sb, msgpack_sbuffer_write);
	msgpack_pack_array(&pk, 6);
	msgpack_pack_uint32(&pk, ILOG_K_HEADER);
	pack_s(&pk, ILOG_MAGIC);
	msgpack_pack_uint32(&pk, 2);
	msgpack_pack_uint32(&pk, 0);
	msgpack_pack_map(&pk, 1);             /* 2.0 might describe the node as a map */
	pack_s(&pk, "node");
	pack_s(&pk, "gpu-node-07");
	msgpack_pack_uint64(&pk, MONO0);
	put_raw(w, &sb);
	msgpack_sbuffer_destroy(&sb);
	struct ilog_record rec = launch(MONO0 + 250000, 4200);
	put(w, &rec);
	wclose(w, fd);
}

/* ---- describing: NAME.hex ---- */

struct schema_names {
	uint32_t kind;
	char name[64];
	uint32_t n;
	char fields[ILOG_MAX_SCHEMA_FIELDS][64];
};

struct ann {
	FILE *o;
	uint64_t base[ILOG_K__COUNT];    /* §4.3, as a reader keeps them */
	struct schema_names sch[16];
	int nsch;
	uint32_t kind;
	uint64_t vals[4];               /* the record's first values, for cuda's base */
	uint32_t alien;                 /* a header of this later major was seen */
	const char *bad;                /* a field of the record had the wrong type */
	const uint8_t *frame;           /* the current frame's records */
};

/* Bytes in lines of up to 9, the comment after the first line's bytes. */
static void emit(struct ann *a, const uint8_t *p, size_t n, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));
static void emit(struct ann *a, const uint8_t *p, size_t n, const char *fmt, ...)
{
	char com[1024], hex[32];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(com, sizeof(com), fmt, ap);
	va_end(ap);
	size_t i = 0;
	do {
		size_t k = n - i < 9 ? n - i : 9, h = 0;
		for (size_t j = 0; j < k; j++)
			h += (size_t)snprintf(hex + h, sizeof(hex) - h, "%s%02x", j ? " " : "", p[i + j]);
		hex[h] = 0;
		if (i == 0 && com[0])
			fprintf(a->o, "%-26s  # %s\n", hex, com);
		else
			fprintf(a->o, "%s\n", hex);
		i += k;
	} while (i < n);
}

/* A string for a comment: printable ASCII as is, the rest as \xNN. */
static void quote(char *out, size_t cap, const uint8_t *s, uint32_t n)
{
	size_t o = 0;
	out[o++] = '"';
	for (uint32_t i = 0; i < n && o + 6 < cap; i++) {
		if (s[i] >= 0x20 && s[i] < 0x7f && s[i] != '"' && s[i] != '\\')
			out[o++] = (char)s[i];
		else if (s[i] == 0)
			o += (size_t)snprintf(out + o, cap - o, "\\0");
		else
			o += (size_t)snprintf(out + o, cap - o, "\\x%02x", s[i]);
	}
	out[o++] = '"';
	out[o] = 0;
}

static const char *named(const char *name, uint64_t v)
{
	static char t[96];
	snprintf(t, sizeof(t), "%" PRIu64 " (%s)", v, name ? name : "unknown");
	return t;
}

static void ann_value(struct ann *a, struct mp_cur *c, const char *label,
		      const struct ilog_field *f, int depth, int top_index);

/* Whether a msgpack value (first byte b) has a type the field accepts (§4.2). */
static int fits(const struct ilog_field *f, uint8_t b)
{
	char t = ilog_mp_type_name(b)[0];
	switch (f->type) {
	case FT_STR: case FT_CHARS: return t == 's';
	case FT_BIN: return b >= 0xc4 && b <= 0xc6;
	case FT_ARR: return t == 'a';
	case FT_F64: return t == 'i' || t == 'f';
	default: return t == 'i';
	}
}

static void ann_fields(struct ann *a, struct mp_cur *c, uint32_t n, const struct ilog_field *f,
		       unsigned nf, int depth)
{
	int top = depth == 0;
	for (uint32_t i = 0; i < n; i++) {
		char lab[64];
		if (i < nf)
			snprintf(lab, sizeof(lab), "%s", f[i].name);
		else
			snprintf(lab, sizeof(lab), "(value %u: unknown to version %d.%d, skipped)",
				 i + 1, ILOG_VERSION_MAJOR, ILOG_VERSION_MINOR);
		if (a->alien && top && i >= 3)
			snprintf(lab, sizeof(lab), "(value %u of a %u.x header: not read)", i + 1,
				 a->alien);
		ann_value(a, c, lab, i < nf && !(a->alien && top) ? &f[i] : NULL, depth,
			  top ? (int)i : -1);
		if (top && a->kind == ILOG_K_HEADER && i == 1 && a->vals[1] > ILOG_VERSION_MAJOR)
			a->alien = (uint32_t)a->vals[1];
	}
}

static void ann_value(struct ann *a, struct mp_cur *c, const char *label,
		      const struct ilog_field *f, int depth, int top_index)
{
	const uint8_t *p = c->p;
	char ind[40], txt[1200];
	snprintf(ind, sizeof(ind), "%*s", depth * 2, "");
	uint8_t b = *p;
	uint64_t v;
	int neg;
	uint32_t n;
	const uint8_t *s;
	double d;
	if (f && !fits(f, b) && !a->bad)
		a->bad = f->name;
	switch (ilog_mp_type_name(b)[0]) {
	case 'i':
		if (mp_int(c, &v, &neg))
			die("annotate: bad integer");
		if (top_index >= 0 && top_index < 4)
			a->vals[top_index] = v;
		if (f && f->type == FT_TS && a->kind < ILOG_K__COUNT) {
			uint64_t base = a->base[a->kind], ts = base + v;
			snprintf(txt, sizeof(txt), "%s%s: %s%" PRId64 " from base %" PRIu64 " = %" PRIu64,
				 ind, label, neg ? "" : "+", (int64_t)v, base, ts);
			a->base[a->kind] = ts;
			if (top_index >= 0 && top_index < 4)
				a->vals[top_index] = ts;
		} else if (neg) {
			snprintf(txt, sizeof(txt), "%s%s = %" PRId64, ind, label, (int64_t)v);
		} else {
			const char *vt;
			char num[32];
			snprintf(num, sizeof(num), "%" PRIu64, v);
			vt = num;
			switch (f ? f->view : FV_NUM) {
			case FV_HEX: snprintf(num, sizeof(num), "0x%" PRIx64, v); break;
			case FV_OP: vt = named(ilog_op_name((uint32_t)v), v); break;
			case FV_LAYER: vt = named(ilog_layer_name((uint32_t)v), v); break;
			case FV_HOST: vt = named(ilog_host_type_name((uint32_t)v), v); break;
			case FV_SEV: vt = named(ilog_severity_name((uint32_t)v), v); break;
			case FV_TCPSTATE: vt = named(ilog_tcp_state_name((uint32_t)v), v); break;
			default:
				/* a schema record's subject */
				if (a->kind == ILOG_K_SCHEMA && top_index == 0)
					vt = named(ilog_kind_name((uint32_t)v), v);
				break;
			}
			snprintf(txt, sizeof(txt), "%s%s = %s", ind, label, vt);
		}
		emit(a, p, (size_t)(c->p - p), "%s", txt);
		return;
	case 's': {
		char q[1024];
		if (mp_str(c, &s, &n))
			die("annotate: bad string");
		quote(q, sizeof(q), s, n);
		emit(a, p, (size_t)(c->p - p), "%s%s = %s", ind, label, q);
		return;
	}
	case 'b':
		if (b == 0xc2 || b == 0xc3) {
			c->p++;
			emit(a, p, 1, "%s%s = %s", ind, label, b == 0xc3 ? "true" : "false");
			return;
		}
		if (mp_bin(c, &s, &n))
			die("annotate: bad bytes");
		if (f && f->view == FV_INET && (n == 4 || n == 16)) {
			char ip[64];
			ilog_inet_str((struct ilog_bin){ s, n }, ip, sizeof(ip));
			emit(a, p, (size_t)(c->p - p), "%s%s = %u bytes %s", ind, label, n, ip);
		} else if (f && f->view == FV_ARGV) {
			char q[1024];
			quote(q, sizeof(q), s, n);
			emit(a, p, (size_t)(c->p - p), "%s%s = %u bytes %s", ind, label, n, q);
		} else {
			emit(a, p, (size_t)(c->p - p), "%s%s = %u bytes", ind, label, n);
		}
		return;
	case 'f':
		if (mp_f64(c, &d))
			die("annotate: bad float");
		emit(a, p, (size_t)(c->p - p), "%s%s = %.17g", ind, label, d);
		return;
	case 'n':
		c->p++;
		emit(a, p, 1, "%s%s = nil", ind, label);
		return;
	case 'a':
		if (mp_array(c, &n))
			die("annotate: bad array");
		emit(a, p, (size_t)(c->p - p), "%s%s: array of %u", ind, label, n);
		for (uint32_t i = 0; i < n; i++) {
			char lab[64];
			snprintf(lab, sizeof(lab), "[%u]", i);
			if (f && f->type == FT_ARR && f->nsub > 1) {
				const uint8_t *q = c->p;
				uint32_t m;
				if (mp_array(c, &m))
					die("annotate: bad element");
				emit(a, q, (size_t)(c->p - q), "%s  %s: array of %u", ind, lab, m);
				ann_fields(a, c, m, f->sub, f->nsub, depth + 2);
			} else {
				ann_value(a, c, lab, f && f->type == FT_ARR ? f->sub : NULL, depth + 1, -1);
			}
		}
		return;
	case 'm': {
		unsigned w = b <= 0x8f ? 0 : b == 0xde ? 2 : 4;
		uint64_t cnt = w ? mp_be(p + 1, w) : (b & 0x0f);
		c->p = p + 1 + w;
		emit(a, p, 1 + w, "%s%s: map of %" PRIu64, ind, label, cnt);
		for (uint64_t i = 0; i < cnt; i++) {
			ann_value(a, c, "key", NULL, depth + 1, -1);
			ann_value(a, c, "value", NULL, depth + 1, -1);
		}
		return;
	}
	default:
		if (ilog_mp_skip(c))
			die("annotate: bad value");
		emit(a, p, (size_t)(c->p - p), "%s%s: extension", ind, label);
	}
}

/* Remember a schema record's names (for kinds this build does not know). */
static void note_schema(struct ann *a, const uint8_t *p, const uint8_t *end)
{
	struct mp_cur c = { p, end };
	uint32_t n, m, sl;
	uint64_t v;
	int neg;
	const uint8_t *s;
	struct schema_names *sn = &a->sch[a->nsch];
	if (a->nsch >= 16 || mp_array(&c, &n) || n < 4 || mp_int(&c, &v, &neg) ||
	    mp_int(&c, &v, &neg))
		return;
	sn->kind = (uint32_t)v;
	if (ilog_kind_desc(sn->kind) || mp_str(&c, &s, &sl))
		return;
	snprintf(sn->name, sizeof(sn->name), "%.*s", (int)sl, s);
	if (mp_array(&c, &m))
		return;
	for (sn->n = 0; sn->n < m && sn->n < ILOG_MAX_SCHEMA_FIELDS; sn->n++) {
		if (mp_str(&c, &s, &sl))
			return;
		snprintf(sn->fields[sn->n], sizeof(sn->fields[0]), "%.*s", (int)sl, s);
	}
	a->nsch++;
}

static const struct schema_names *schema_for(const struct ann *a, uint32_t kind)
{
	for (int i = 0; i < a->nsch; i++)
		if (a->sch[i].kind == kind)
			return &a->sch[i];
	return NULL;
}

static void ann_record(struct ann *a, struct mp_cur *c, unsigned idx)
{
	const uint8_t *start = c->p;
	uint32_t n;
	uint64_t kind;
	int neg;
	if (mp_array(c, &n) || n == 0)
		die("annotate: record %u is not an array", idx);
	const uint8_t *kp = c->p;
	if (mp_int(c, &kind, &neg) || neg)
		die("annotate: record %u has no kind", idx);
	a->kind = (uint32_t)kind;
	memset(a->vals, 0, sizeof(a->vals));
	const struct ilog_kind_desc *d = ilog_kind_desc(a->kind);
	const struct schema_names *sn = d ? NULL : schema_for(a, a->kind);
	size_t at = (size_t)(start - a->frame);
	if (d)
		fprintf(a->o, "# record %u (byte %zu): %s\n", idx, at, d->name);
	else if (sn)
		fprintf(a->o, "# record %u (byte %zu): kind %u, unknown to this version; its schema "
			"record calls it \"%s\"\n", idx, at, a->kind, sn->name);
	else
		fprintf(a->o, "# record %u (byte %zu): kind %u, unknown to this version, no schema "
			"record\n", idx, at, a->kind);
	if (d)
		emit(a, start, (size_t)(kp - start), "array of %u: the kind, %u field%s%s", n, n - 1,
		     n == 2 ? "" : "s",
		     n - 1 < d->nfields ? " (fewer than this version has)" :
		     n - 1 > d->nfields ? " (more than this version has)" : "");
	else
		emit(a, start, (size_t)(kp - start), "array of %u: the kind, %u value%s", n, n - 1,
		     n == 2 ? "" : "s");
	emit(a, kp, (size_t)(c->p - kp), "kind = %s",
	     named(d ? d->name : sn ? sn->name : NULL, kind));
	if (d) {
		ann_fields(a, c, n - 1, d->fields, d->nfields, 0);
		if (n - 1 < d->nfields && !a->alien && !a->bad)
			fprintf(a->o, "# (%s .. %s missing: read as 0 or empty)\n",
				d->fields[n - 1].name, d->fields[d->nfields - 1].name);
	} else {
		for (uint32_t i = 1; i < n; i++) {
			char lab[80];
			if (sn && i - 1 < sn->n)
				snprintf(lab, sizeof(lab), "%s", sn->fields[i - 1]);
			else
				snprintf(lab, sizeof(lab), "f%u", i);
			ann_value(a, c, lab, NULL, 0, -1);
		}
	}
	if (a->bad) {
		fprintf(a->o, "# (a reader stops at this record: %s has the wrong type)\n", a->bad);
		a->bad = NULL;
	} else if (a->kind == ILOG_K_CUDA) {
		/* §4.3: the next cuda ts is coded against this call's end */
		a->base[ILOG_K_CUDA] = a->vals[0] + (n > 2 ? a->vals[1] : 0);
		fprintf(a->o, "# (cuda base := ts_ns + dur_ns = %" PRIu64 ")\n",
			a->base[ILOG_K_CUDA]);
	}
	if (a->kind == ILOG_K_SCHEMA)
		note_schema(a, start, c->end);
}

/* NAME.hex: every data frame of NAME.ilog, decompressed and annotated,
 * up to the first damaged frame. */
static void describe(const char *name)
{
	size_t n;
	uint8_t *b = slurp(path_of(name, ".ilog"), &n);
	FILE *o = fopen(path_of(name, ".hex"), "w");
	if (!o)
		die("%s: %s", path_of(name, ".hex"), strerror(errno));
	struct ann a = { .o = o };
	fprintf(o, "# %s.hex: the records in %s.ilog (format/SPEC.md §11).  Records and\n"
		"# bytes are counted from 0 in each frame, as reader errors count them.\n",
		name, name);
	size_t off = 0;
	unsigned frame = 0, rec = 0;
	while (off < n) {
		uint32_t magic = n - off >= 4 ? (uint32_t)b[off] | (uint32_t)b[off + 1] << 8 |
			(uint32_t)b[off + 2] << 16 | (uint32_t)b[off + 3] << 24 : 0;
		size_t cs = ZSTD_findFrameCompressedSize(b + off, n - off);
		if (ZSTD_isError(cs)) {
			fprintf(o, "# (byte %zu of %s.ilog: damaged frame: %s; a reader stops here)\n",
				off, name, ZSTD_getErrorName(cs));
			break;
		}
		if ((magic & ZSTD_MAGIC_SKIPPABLE_MASK) == ZSTD_MAGIC_SKIPPABLE_START) {
			fprintf(o, "# (byte %zu of %s.ilog: a skippable frame of %zu bytes: "
				"no records, skipped)\n", off, name, cs);
			off += cs;
			continue;
		}
		unsigned long long sz = ZSTD_getFrameContentSize(b + off, cs);
		if (sz == ZSTD_CONTENTSIZE_ERROR || sz == ZSTD_CONTENTSIZE_UNKNOWN)
			die("%s: frame without a content size", name);
		uint8_t *fr = malloc(sz ? sz : 1);
		size_t got = ZSTD_decompress(fr, sz, b + off, cs);
		if (ZSTD_isError(got)) {
			fprintf(o, "# (byte %zu of %s.ilog: damaged frame: %s; a reader stops here)\n",
				off, name, ZSTD_getErrorName(got));
			free(fr);
			break;
		}
		fprintf(o, "@frame                      # frame %u: %zu bytes of records; "
			"the delta bases start at 0\n", ++frame, got);
		memset(a.base, 0, sizeof(a.base));
		struct mp_cur c = { fr, fr + got };
		a.frame = fr;
		rec = 0;
		while (c.p < c.end) {
			ann_record(&a, &c, rec++);
			if (a.alien) {
				fprintf(o, "# (a reader of version %d stops at this header: "
					"a later major)\n", ILOG_VERSION_MAJOR);
				a.alien = 0;
			}
		}
		free(fr);
		off += cs;
	}
	if (fclose(o))
		die("%s: %s", path_of(name, ".hex"), strerror(errno));
	free(b);
}

static const struct { const char *name; void (*make)(void); } vectors[] = {
	{ "examples", v_examples }, { "begin", v_begin }, { "kinds", v_kinds },
	{ "frames", v_frames }, { "merged", v_merged }, { "concat", v_concat },
	{ "symbolized", v_symbolized }, { "host", v_host }, { "net", v_net }, { "nccl", v_nccl },
	{ "launches", v_launches },
	{ "forward", v_forward }, { "truncated", v_truncated }, { "corrupt", v_corrupt },
	{ "bad-record", v_badrecord }, { "future-major", v_future_major },
};

int main(int argc, char **argv)
{
	int c;
	ilog_cli_init(argv[0]);
	while ((c = getopt(argc, argv, "o:")) != -1) {
		if (c != 'o') {
			fprintf(stderr, "usage: %s [-o DIR]\n", ilog_prog);
			return ILOG_EXIT_USAGE;
		}
		outdir = optarg;
	}
	for (size_t i = 0; i < sizeof(vectors) / sizeof(vectors[0]); i++) {
		vectors[i].make();
		describe(vectors[i].name);
	}
	return 0;
}
