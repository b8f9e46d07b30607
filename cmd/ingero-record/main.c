// SPDX-License-Identifier: MIT
/*
 * ingero-record: record CUDA runtime/driver/graph/NCCL calls and the host
 * events around them into an .ilog (format/SPEC.md).  This file: options,
 * set-up, the poll loop and a clean shutdown; the parts live in probes.c,
 * discover.c, sink.c and sys.c.
 */
#include <linux/capability.h>
#include <errno.h>
#include <malloc.h>
#include <fcntl.h>
#include <getopt.h>
#include <pwd.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#include <bpf/bpf.h>
#include <bpf/btf.h>
#include <bpf/libbpf.h>
#include "ingero/cli.h"
#include "rec.h"
#include "bpf/record.skel.h"

volatile sig_atomic_t rec_stop;

static void on_signal(int sig)
{
	if (sig == SIGUSR1)
		rec_flight_sig = 1;
	else
		rec_stop = 1;
}

static void usage(FILE *f)
{
	fprintf(f,
		"ingero-record - record CUDA calls and the host events around them\n\n"
		"USAGE\n  ingero-record [OPTIONS] [-o FILE|-] [-- COMMAND [ARG...]]\n\n"
		"Traces every process that maps libcudart.so*, libcuda.so* or libnccl.so*\n"
		"(of the invoking user by default) with eBPF uprobes, plus scheduler,\n"
		"memory and process events of those processes, into an .ilog event log.\n"
		"With a COMMAND, runs it (as the invoking user under sudo), traces it and\n"
		"its children, and stops when it exits.  Runs as root; of root's capabilities\n"
		"it needs only those below, and drops every other once attached.\n\n"
		"OPTIONS\n"
		"  -o, --output FILE      log to write, - for stdout (default ingero-DATE.ilog)\n"
		"  -p, --pid LIST         trace only these processes (and their children)\n"
		"  -u, --user NAME        trace CUDA processes of this user\n"
		"      --all-users        trace CUDA processes of every user\n"
		"      --cuda-lib PATH    attach to this library only, no discovery (repeatable)\n"
		"      --cgroup PATH      trace only CUDA processes in this cgroup or below it\n"
		"                         (/sys/fs/cgroup/..., or a path as /proc/PID/cgroup\n"
		"                         shows it: a container's); the host-wide page\n"
		"                         allocations still cover every process\n"
		"      --api all|LIST     also time every other exported function of the\n"
		"                         libraries (all), or those named in LIST: names and\n"
		"                         globs, comma-separated ('cudaStream*,cuInit');\n"
		"                         each call is recorded with its duration, return\n"
		"                         value and first four integer arguments, raw; the\n"
		"                         functions decoded by default keep their arguments\n"
		"  -d, --duration DUR     stop DUR (5s, 2m, 1h) after the probes are attached\n"
		"                         (and a COMMAND started); one still running then\n"
		"                         gets SIGTERM\n"
		"      --ringbuf-size SIZE  CUDA ring buffer (default 8m; host gets a quarter,\n"
		"                         --unwind stack copies half)\n"
		"      --sampling-rate N  record one in N launches/copies/syncs (default 1 =\n"
		"                         all; 0 = adaptive); allocations, graphs and NCCL\n"
		"                         are always all recorded; skips are counted\n"
		"      --launch-timing N  time one kernel launch in N (default "
		REC_LAUNCH_TIMING_S "); the\n"
		"                         others are recorded at entry, with arguments and\n"
		"                         stacks but no duration or return value, and cost\n"
		"                         one probe trap instead of two (Linux 6.13+); 1 =\n"
		"                         time every launch\n"
		"      --stack=BOOL       user stacks of every call (default true)\n"
		"      --py-walker=MODE   Python stacks of calls from CPython 3.10-3.13:\n"
		"                         ebpf (default: file, function, line per frame,\n"
		"                         resolved offline) or off\n"
		"      --unwind=MODE      native stacks through code built without frame\n"
		"                         pointers (CPython, libffi, PyTorch): auto (default:\n"
		"                         calls with a Python stack), dwarf (every call) or\n"
		"                         fp (frame pointers only).  The top 16 KiB of the\n"
		"                         stack is copied once per new call path and\n"
		"                         unwound here with the files' DWARF CFI\n"
		"      --wakeup-min DUR   record wakeups that waited at least DUR (50us)\n"
		"      --host-top N       page allocations, block I/O (requests, bytes,\n"
		"                         latency per device), TCP socket bytes (sent and\n"
		"                         received) and TCP retransmissions are counted in\n"
		"                         the kernel for every process and flow; each second\n"
		"                         the targets and the N other processes (flows) that\n"
		"                         allocated (moved, retransmitted) most are written,\n"
		"                         the rest summed in one record (per device); and\n"
		"                         the process records of at most N new processes a\n"
		"                         second that preempted or woke a target's thread\n"
		"                         (default 8; 0 = targets only)\n"
		"      --stall-min DUR    record direct reclaim and compaction stalls of at\n"
		"                         least DUR (default 100us; a target's: all)\n"
		"      --inflight-after DUR  each second, write every traced call running for\n"
		"                         longer than DUR as an inflight record, at once to\n"
		"                         the file, so a hang is logged while it lasts, even\n"
		"                         if the recorder is killed (default 1s; 0: never)\n"
		"      --hold-max DUR     without --pid: a process that maps a CUDA library\n"
		"                         file not attached yet (with a COMMAND: a command's\n"
		"                         process that loads any library) is stopped until\n"
		"                         attached, so no first call is missed; a watchdog\n"
		"                         process resumes it after DUR (default 1s) or when\n"
		"                         the recorder dies (loss \"holds\").  0: never stop\n"
		"                         one (calls in the first ms after such a mapping\n"
		"                         can be missed)\n"
		"      --rotate SIZE|DUR  write a series of files, each a complete log, a new\n"
		"                         one when the current reaches SIZE (1G, 512MiB) or\n"
		"                         is DUR old (10m, 1h): -o DIR/NAME.ilog names them\n"
		"                         DIR/NAME.YYYYMMDDTHHMMSSZ.ilog by their start (UTC);\n"
		"                         a file opens with the processes, mappings and names\n"
		"                         its records need, of the processes still running\n"
		"                         (one that ended is forgotten within 20 s)\n"
		"      --keep N           with --rotate: keep the newest N files (the current\n"
		"                         one counted), delete older ones, of earlier runs too;\n"
		"                         with --flight: the newest N dumps, after each dump\n"
		"      --keep-size SIZE   with --rotate: keep at most SIZE of files (the\n"
		"                         current one counted at its full --rotate size).\n"
		"                         A full disk: the file being written ends at its last\n"
		"                         whole frame, the oldest file goes and recording goes\n"
		"                         on in a new file; with none left to delete it stops.\n"
		"                         The last frame at the end goes in after the oldest\n"
		"                         files, as many as it takes.\n"
		"                         With --flight: at most SIZE of dumps, the newest\n"
		"                         always kept; a full disk deletes the oldest dump\n"
		"                         and writes the new one again\n"
		"      --flight DUR       flight recorder: keep the last DUR of compressed\n"
		"                         frames in memory and write nothing until a trigger\n"
		"                         (SIGUSR1, --hang-after, --p99-over); each trigger\n"
		"                         writes a log of the DUR before it and the DUR\n"
		"                         after it, with a trigger record, to OUT's name\n"
		"                         less .ilog plus .flight-N-UTCTIME.ilog (never over\n"
		"                         another file; --keep, --keep-size bound them)\n"
		"      --flight-size SIZE  memory bound of --flight: at most SIZE of event\n"
		"                         frames (default 256M; the oldest go first), plus\n"
		"                         the definitions a dump needs (processes, their\n"
		"                         mappings, stacks, names), rewritten from the\n"
		"                         living processes' and the stacks and names when\n"
		"                         over 1 MiB and twice their size after the last\n"
		"                         rewrite: a process gone for DUR + 10 s is dropped\n"
		"      --hang-after DUR   with --flight: a traced call in progress for longer\n"
		"                         than DUR triggers a dump, once per call (checked\n"
		"                         each second)\n"
		"      --p99-over FACTOR  with --flight: a process's p99 of an op over the\n"
		"                         last 5 s above FACTOR (> 1) times its own p99 over\n"
		"                         the 60 s before triggers a dump, once until it is\n"
		"                         back under; each (process, op) judged each second\n"
		"                         when its 5 s hold 50 calls and its 60 s 500 (the\n"
		"                         live model's histogram: p99s within 1/32).  Memory:\n"
		"                         70 KiB per (process, op) with a call in the last\n"
		"                         65 s, at most 256 of them (18 MiB); more go\n"
		"                         unjudged until some are quiet\n"
		"      --rank N           job rank in the header (default $RANK or -1)\n"
		"      --check            print a readiness report and exit\n"
		"  -q, --quiet            errors only: no status lines, live table or warnings\n"
		"  -v, --verbose          more detail (repeat for libbpf debug output)\n"
		"  -h, --help             this text\n"
		"      --version          print the version\n\n"
		"A live table (per-op count, p50/p95/p99, drops) is shown when stderr is\n"
		"a terminal.  SIGINT/SIGTERM stop cleanly; the log is valid even after\n"
		"SIGKILL up to its last complete frame (about a second).  One recorder\n"
		"runs at a time (lock: $INGERO_RECORD_LOCK or /run/ingero-record.lock;\n"
		"its folder is made if missing, as in a bare container root).\n\n"
		"EXAMPLES\n"
		"  sudo ingero-record --check\n"
		"  sudo ingero-record -d 60s -o run.ilog\n"
		"  sudo ingero-record -o run.ilog -- python3 train.py\n"
		"  sudo ingero-record -o - --pid 812 | ingero-export | jq -c 'select(.type==\"cuda\")'\n\n"
		"CAPABILITIES (--check names any missing)\n"
		"  needed:        CAP_BPF CAP_PERFMON CAP_SYS_PTRACE CAP_DAC_READ_SEARCH\n"
		"  with COMMAND:  CAP_SETUID CAP_SETGID CAP_KILL (only to run it as the sudo user)\n"
		"  system-wide:   CAP_KILL (kept to resume a process held by --hold-max;\n"
		"                 without it no process is held)\n\n"
		"EXIT STATUS\n  0 recorded, 1 --check found a problem, 2 usage error or failure\n");
}

static int parse_pids(const char *s, struct rec_opts *o)
{
	char *dup = strdup(s), *save = NULL;
	int rc = 0;
	for (char *t = strtok_r(dup, ",", &save); t; t = strtok_r(NULL, ",", &save)) {
		char *end;
		unsigned long v = strtoul(t, &end, 10);
		if (*end || !v || v > 0x7fffffff || o->npids == 256) {
			rc = -1;
			break;
		}
		o->pids[o->npids++] = (uint32_t)v;
	}
	free(dup);
	return rc;
}

static int bool_arg(const char *s, int *out)
{
	if (!s || !strcmp(s, "true") || !strcmp(s, "1") || !strcmp(s, "yes"))
		*out = 1;
	else if (!strcmp(s, "false") || !strcmp(s, "0") || !strcmp(s, "no"))
		*out = 0;
	else
		return -1;
	return 0;
}

static int libbpf_log(enum libbpf_print_level l, const char *fmt, va_list ap)
{
	if ((l == LIBBPF_DEBUG && !ILOG_VERBOSE(2)) || (l == LIBBPF_INFO && !ILOG_VERBOSE(1)))
		return 0;
	return vfprintf(stderr, fmt, ap);
}

static uint32_t round_ring(uint64_t v)
{
	uint64_t r = 4096;
	while (r < v && r < (1ull << 30))
		r <<= 1;
	return (uint32_t)r;
}

/*
 * BTF tracepoints (tp_btf, the network's) are resolved when the object
 * loads, so one the kernel lacks (sock_send_length before Linux 6.4) would
 * fail the whole load: leave its program out, say so, record the rest.
 */
static void drop_missing_tp_btf(struct record_bpf *skel)
{
	struct btf *vmlinux = btf__load_vmlinux_btf();
	struct bpf_program *p;
	if (!vmlinux)
		return; /* CO-RE needs it anyway: the load says why */
	bpf_object__for_each_program(p, skel->obj) {
		const char *sec = bpf_program__section_name(p);
		char name[160];
		if (!bpf_program__autoload(p) || strncmp(sec, "tp_btf/", 7))
			continue;
		snprintf(name, sizeof(name), "btf_trace_%s", sec + 7);
		if (btf__find_by_name_kind(vmlinux, name, BTF_KIND_TYPEDEF) >= 0)
			continue;
		bpf_program__set_autoload(p, false);
		ilog_warnf("the kernel has no tracepoint %s: what %s records is not recorded",
			   sec + 7, bpf_program__name(p));
	}
	btf__free(vmlinux);
}

/*
 * The host tracepoints the recorder attaches itself after the load and
 * detaches before the last drain: one list, so the two cannot drift.  An
 * optional one is attached when the kernel has it and its absence is not
 * warned about: block_io_start (Linux 6.5+) makes a block request's owner
 * the task that started it; before, the task that issued it (disk.bpf.h).
 */
#define REC_TRACEPOINTS(X)                                                                 \
	X(sched_switch, 0) X(sched_wakeup, 0) X(mm_page_alloc, 0) X(sched_process_fork, 0) \
	X(sched_process_exec, 0) X(sched_process_exit, 0) X(mark_victim, 0)                \
	X(reclaim_begin, 0) X(reclaim_end, 0) X(memcg_reclaim_begin, 0)                    \
	X(memcg_reclaim_end, 0) X(compact_begin, 0) X(compact_end, 0) X(blk_rq_issue, 0)   \
	X(blk_rq_complete, 0) X(sock_send, 0) X(sock_recv, 0) X(sock_state, 0)             \
	X(tcp_retrans, 0) X(blk_io_start, 1)

struct rec_tp {
	struct bpf_program *prog;
	struct bpf_link **link;
	int optional;
};

#define REC_TP_ONE(name, opt) +1
enum { REC_NTP = 0 REC_TRACEPOINTS(REC_TP_ONE) };
#undef REC_TP_ONE

/* The tracepoints' programs and link slots in the skeleton, in attach order. */
static size_t rec_tracepoints(struct record_bpf *s, struct rec_tp tp[REC_NTP])
{
	size_t n = 0;
#define REC_TP_ONE(name, opt) tp[n++] = (struct rec_tp){ s->progs.name, &s->links.name, opt };
	REC_TRACEPOINTS(REC_TP_ONE)
#undef REC_TP_ONE
	return n;
}

/* A duration option's value into *ns; -1 with the message when it is not one. */
static int opt_duration(const char *opt, const char *arg, uint64_t *ns)
{
	if (!ilog_parse_duration(arg, ns))
		return 0;
	ilog_errorf("%s: bad duration '%s'", opt, arg);
	return -1;
}

static int parse_args(int argc, char **argv, struct rec_opts *o)
{
	enum { O_ALL = 256, O_LIB, O_RB, O_SAMPLE, O_LAUNCH_TIMING, O_STACK, O_NOSTACK, O_WAKE,
	       O_RANK, O_CHECK, O_PYWALK, O_UNWIND, O_HOSTTOP, O_STALL, O_API, O_HOLDMAX, O_CGROUP,
	       O_INFLIGHT, O_ROTATE, O_KEEP, O_KEEPSIZE, O_FLIGHT, O_FLIGHTSZ, O_HANG, O_P99 };
	static const struct option lo[] = {
		{ "output", 1, 0, 'o' }, { "pid", 1, 0, 'p' }, { "user", 1, 0, 'u' },
		{ "all-users", 0, 0, O_ALL }, { "cuda-lib", 1, 0, O_LIB },
		{ "duration", 1, 0, 'd' }, { "ringbuf-size", 1, 0, O_RB },
		{ "sampling-rate", 1, 0, O_SAMPLE }, { "launch-timing", 1, 0, O_LAUNCH_TIMING },
		{ "stack", 2, 0, O_STACK },
		{ "no-stack", 0, 0, O_NOSTACK }, { "wakeup-min", 1, 0, O_WAKE },
		{ "rank", 1, 0, O_RANK }, { "check", 0, 0, O_CHECK }, { "quiet", 0, 0, 'q' },
		{ "py-walker", 1, 0, O_PYWALK }, { "unwind", 1, 0, O_UNWIND },
		{ "host-top", 1, 0, O_HOSTTOP }, { "stall-min", 1, 0, O_STALL },
		{ "inflight-after", 1, 0, O_INFLIGHT },
		{ "cgroup", 1, 0, O_CGROUP },
		{ "api", 1, 0, O_API },
		{ "hold-max", 1, 0, O_HOLDMAX },
		{ "rotate", 1, 0, O_ROTATE }, { "keep", 1, 0, O_KEEP }, { "keep-size", 1, 0, O_KEEPSIZE },
		{ "flight", 1, 0, O_FLIGHT }, { "flight-size", 1, 0, O_FLIGHTSZ },
		{ "hang-after", 1, 0, O_HANG }, { "p99-over", 1, 0, O_P99 },
		{ "verbose", 0, 0, 'v' }, { "help", 0, 0, 'h' },
		{ "version", 0, 0, ILOG_OPT_VERSION }, { 0, 0, 0, 0 },
	};
	int c, have_mode = 0;
	const char *user = NULL;
	char *sudo_uid = getenv("SUDO_UID");
	o->mode = REC_MODE_UID;
	o->uid = sudo_uid ? (uint32_t)strtoul(sudo_uid, NULL, 10) : (uint32_t)getuid();
	o->ringbuf_size = 8 << 20;
	o->sampling = 1;
	o->launch_timing = REC_LAUNCH_TIMING;
	o->stacks = 1;
	o->py_walker = 1;
	o->unwind = REC_UNWIND_AUTO;
	o->wakeup_min_ns = 50000;
	o->host_top = 8;
	o->stall_min_ns = 100000;
	o->inflight_after_ns = 1000000000ull;
	o->hold_max_ns = 1000000000ull;
	o->rank = getenv("RANK") ? strtoll(getenv("RANK"), NULL, 10) : -1;
	o->lock_path = getenv("INGERO_RECORD_LOCK");
	if (!o->lock_path || !*o->lock_path)
		o->lock_path = "/run/ingero-record.lock";
	opterr = 0;
	while ((c = getopt_long(argc, argv, "+o:p:u:d:qvh", lo, NULL)) != -1) {
		switch (c) {
		case 'o': o->out = optarg; break;
		case 'p':
			if (parse_pids(optarg, o)) {
				ilog_errorf("--pid: bad process list '%s'", optarg);
				return -1;
			}
			o->mode = REC_MODE_PIDS;
			have_mode = 1;
			break;
		case 'u': user = optarg; have_mode = 1; break;
		case O_ALL: o->mode = REC_MODE_ALL; have_mode = 1; break;
		case O_LIB:
			if (o->ncuda_libs == 32) {
				ilog_errorf("--cuda-lib: at most 32");
				return -1;
			}
			o->cuda_libs[o->ncuda_libs++] = optarg;
			break;
		case 'd':
			if (ilog_parse_duration(optarg, &o->duration_ns) || !o->duration_ns) {
				ilog_errorf("--duration: bad duration '%s'", optarg);
				return -1;
			}
			break;
		case O_RB:
			if (ilog_parse_size(optarg, &o->ringbuf_size) || o->ringbuf_size < 1) {
				ilog_errorf("--ringbuf-size: bad size '%s'", optarg);
				return -1;
			}
			break;
		case O_SAMPLE: {
			char *end;
			unsigned long v = strtoul(optarg, &end, 10);
			if (*end || !*optarg || v > (1u << 20)) {
				ilog_errorf("--sampling-rate: want N >= 0, got '%s'", optarg);
				return -1;
			}
			o->sampling = (unsigned)v;
			break;
		}
		case O_LAUNCH_TIMING: {
			char *end;
			unsigned long v = strtoul(optarg, &end, 10);
			if (*end || !*optarg || v < 1 || v > (1u << 20)) {
				ilog_errorf("--launch-timing: want N >= 1, got '%s'", optarg);
				return -1;
			}
			o->launch_timing = (unsigned)v;
			break;
		}
		case O_STACK:
			if (bool_arg(optarg, &o->stacks)) {
				ilog_errorf("--stack: want true or false, got '%s'", optarg);
				return -1;
			}
			break;
		case O_NOSTACK: o->stacks = 0; break;
		case O_PYWALK:
			if (!strcmp(optarg, "ebpf")) {
				o->py_walker = 1;
			} else if (!strcmp(optarg, "off")) {
				o->py_walker = 0;
			} else {
				ilog_errorf("--py-walker: want ebpf or off, got '%s'", optarg);
				return -1;
			}
			break;
		case O_UNWIND:
			if (!strcmp(optarg, "auto")) {
				o->unwind = REC_UNWIND_AUTO;
			} else if (!strcmp(optarg, "dwarf")) {
				o->unwind = REC_UNWIND_DWARF;
			} else if (!strcmp(optarg, "fp")) {
				o->unwind = REC_UNWIND_FP;
			} else {
				ilog_errorf("--unwind: want auto, dwarf or fp, got '%s'", optarg);
				return -1;
			}
			break;
		case O_WAKE:
			if (opt_duration("--wakeup-min", optarg, &o->wakeup_min_ns))
				return -1;
			break;
		case O_HOSTTOP: {
			char *end;
			unsigned long v = strtoul(optarg, &end, 10);
			if (*end || !*optarg || v > 4096) {
				ilog_errorf("--host-top: want N from 0 to 4096, got '%s'", optarg);
				return -1;
			}
			o->host_top = (unsigned)v;
			break;
		}
		case O_CGROUP:
			if (rec_cgroup_resolve(optarg, &o->cgroup_id, o->cgroup_path,
					       sizeof(o->cgroup_path))) {
				ilog_errorf("--cgroup: %s", o->cgroup_path);
				return -1;
			}
			break;
		case O_STALL:
			if (opt_duration("--stall-min", optarg, &o->stall_min_ns))
				return -1;
			break;
		case O_INFLIGHT:
			if (opt_duration("--inflight-after", optarg, &o->inflight_after_ns))
				return -1;
			break;
		case O_API:
			if (!*optarg || strspn(optarg, ",") == strlen(optarg)) {
				ilog_errorf("--api: want all or a list of names, got '%s'", optarg);
				return -1;
			}
			o->api = optarg;
			break;
		case O_HOLDMAX:
			if (opt_duration("--hold-max", optarg, &o->hold_max_ns))
				return -1;
			break;
		case O_ROTATE:
			if (ilog_rotate_parse(optarg, &o->rot.max_bytes, &o->rot.max_ns)) {
				ilog_errorf("--rotate: bad size or duration '%s' (1G, 512MiB; 10m, 1h)", optarg);
				return -1;
			}
			break;
		case O_KEEP: {
			char *end;
			unsigned long v = strtoul(optarg, &end, 10);
			if (*end || !*optarg || !v || v > 1000000) {
				ilog_errorf("--keep: bad number of files '%s' (1 or more)", optarg);
				return -1;
			}
			o->rot.keep = (uint32_t)v;
			break;
		}
		case O_KEEPSIZE:
			if (ilog_parse_size(optarg, &o->rot.keep_bytes) || !o->rot.keep_bytes) {
				ilog_errorf("--keep-size: bad size '%s' (8G, 500MiB)", optarg);
				return -1;
			}
			break;
		case O_FLIGHT:
			if (opt_duration("--flight", optarg, &o->flight_ns))
				return -1;
			if (!o->flight_ns) {
				ilog_errorf("--flight: the window must be longer than 0");
				return -1;
			}
			break;
		case O_FLIGHTSZ:
			if (ilog_parse_size(optarg, &o->flight_bytes) || !o->flight_bytes) {
				ilog_errorf("--flight-size: bad size '%s'", optarg);
				return -1;
			}
			break;
		case O_HANG:
			if (opt_duration("--hang-after", optarg, &o->hang_after_ns))
				return -1;
			break;
		case O_P99: {
			char *end;
			double f = strtod(optarg, &end);
			if (end == optarg || *end || !(f > 1) || f > 1e6) {
				ilog_errorf("--p99-over: want a factor over 1 (3, 2.5), got '%s'", optarg);
				return -1;
			}
			o->p99_over = f;
			break;
		}
		case O_RANK: o->rank = strtoll(optarg, NULL, 10); break;
		case O_CHECK: o->check = 1; break;
		case 'q': o->quiet = 1; ilog_verbosity = -1; break;
		case 'v': ilog_verbosity++; break;
		case 'h': usage(stdout); exit(ilog_finish_stdout(ILOG_EXIT_OK));
		case ILOG_OPT_VERSION: exit(ilog_opt_common(c, usage));
		default:
			ilog_errorf("unknown or incomplete option '%s' (see --help)", argv[optind - 1]);
			return -1;
		}
	}
	if (optind < argc) {
		if (strcmp(argv[optind - 1], "--")) {
			ilog_errorf("unexpected argument '%s' (a command goes after --)", argv[optind]);
			return -1;
		}
		o->cmd = &argv[optind];
		if (!have_mode)
			o->mode = REC_MODE_PIDS; /* the command and its children */
	}
	if ((o->rot.keep || o->rot.keep_bytes) && !o->rot.max_bytes && !o->rot.max_ns &&
	    !o->flight_ns) {
		ilog_errorf("--keep and --keep-size need --rotate or --flight");
		return -1;
	}
	if ((o->rot.max_bytes || o->rot.max_ns) && o->out && !strcmp(o->out, "-")) {
		ilog_errorf("--rotate writes files: not with -o -");
		return -1;
	}
	if (o->flight_ns && (o->rot.max_bytes || o->rot.max_ns)) {
		ilog_errorf("--flight writes dumps, not a series: not with --rotate");
		return -1;
	}
	if (!o->flight_ns && (o->flight_bytes || o->hang_after_ns || o->p99_over > 0)) {
		ilog_errorf("--flight-size, --hang-after and --p99-over need --flight");
		return -1;
	}
	if (o->flight_ns && o->out && !strcmp(o->out, "-")) {
		ilog_errorf("--flight writes its dumps to files: -o - is not one");
		return -1;
	}
	if (!o->flight_bytes)
		o->flight_bytes = 256ull << 20;
	if (user) {
		struct passwd *pw = getpwnam(user);
		char *end;
		unsigned long v = strtoul(user, &end, 10);
		if (!pw && *end) {
			ilog_errorf("--user: no such user '%s'", user);
			return -1;
		}
		o->uid = pw ? pw->pw_uid : (uint32_t)v;
		if (o->mode != REC_MODE_PIDS)
			o->mode = REC_MODE_UID;
	}
	return 0;
}

static pid_t start_command(char **cmd, int *gate)
{
	int p[2];
	if (pipe2(p, O_CLOEXEC))
		return -1;
	pid_t pid = fork();
	if (pid < 0)
		return -1;
	if (pid == 0) {
		char c;
		close(p[1]);
		/* wait until the probes are in place, so the first call is traced */
		if (read(p[0], &c, 1) != 1)
			_exit(127);
		const char *su = getenv("SUDO_UID"), *sg = getenv("SUDO_GID");
		if (su && sg && geteuid() == 0) {
			if (setgid((gid_t)strtoul(sg, NULL, 10)) ||
			    setuid((uid_t)strtoul(su, NULL, 10)))
				_exit(126);
		}
		signal(SIGPIPE, SIG_DFL);
		execvp(cmd[0], cmd);
		fprintf(stderr, "%s: %s: %s\n", ilog_prog, cmd[0], strerror(errno));
		_exit(127);
	}
	close(p[0]);
	*gate = p[1];
	return pid;
}

static int libbpf_quiet(enum libbpf_print_level l, const char *fmt, va_list ap)
{
	(void)l, (void)fmt, (void)ap;
	return 0;
}

static int setup_bpf(struct rec *r)
{
	struct rec_opts *o = &r->o;
	/* first with the uprobe_multi programs; a kernel before 6.6 rejects
	 * them, and then they are left out */
	r->multi = !getenv("INGERO_RECORD_NO_MULTI"); /* to test the fallback */
	/* system-wide: stop a process at its first mapping of a new library
	 * file (hold.c) */
	int want_hold = o->mode != REC_MODE_PIDS && !o->ncuda_libs && o->hold_max_ns > 0;
	/* a held process of another user can be resumed (by us or by the
	 * watchdog) only with CAP_KILL: without it, never stop one */
	if (want_hold && !(rec_caps_effective() & (1ull << CAP_KILL))) {
		ilog_warnf("no CAP_KILL: --hold-max is off (a process that maps a CUDA library "
			   "file never attached before can miss its first calls)");
		want_hold = 0;
	}
	r->hold = want_hold;
	/* the mmap() watch that costs the host's other system calls nothing,
	 * where the kernel has its tracepoint (and takes the program: below) */
	int lock_arg = want_hold ? rec_mmap_lock_arg() : 0;
	r->hold_lock = lock_arg > 0;
	/* one session program per call where the kernel has them (6.13+) */
	r->session = r->multi && !getenv("INGERO_RECORD_NO_SESSION");
	int want_session = r->session;
again:
	r->skel = record_bpf__open();
	if (!r->skel) {
		snprintf(r->err, sizeof(r->err), "cannot open the BPF object: %s", strerror(errno));
		return -1;
	}
	r->skel->rodata->targ_mode = o->mode;
	r->skel->rodata->targ_uid = o->uid;
	r->skel->rodata->targ_stacks = o->stacks;
	r->skel->rodata->targ_unwind = o->unwind;
	rec_py_setup(r);
	r->skel->rodata->targ_wakeup_min_ns = o->wakeup_min_ns;
	r->skel->rodata->targ_host_mem = o->host_top > 0;
	r->skel->rodata->targ_host_net = o->host_top > 0;
	r->skel->rodata->targ_stall_min_ns = o->stall_min_ns;
	r->skel->rodata->targ_cgv1 = rec_cgroup_v1();
	r->skel->rodata->targ_cgroup_id = o->cgroup_id;
	r->skel->rodata->targ_hold = r->hold;
	/* a watchdog bounds every stop: system-wide holds, a COMMAND's
	 * library loads */
	r->watch = r->hold || (o->cmd && o->hold_max_ns > 0);
	r->skel->rodata->targ_watch = r->watch;
	rec_mmap_lock_load(r->skel, r->hold && r->hold_lock ? lock_arg : 0);
	if (!r->hold) {
		bpf_program__set_autoload(r->skel->progs.hold_new_lib, false);
		bpf_program__set_autoload(r->skel->progs.hold_mmap_enter, false);
		bpf_program__set_autoload(r->skel->progs.hold_mmap_exit, false);
	}
	drop_missing_tp_btf(r->skel);
	/* bench/hostnet: the recorder without its network hooks, to measure them */
	if (getenv("INGERO_RECORD_BENCH_NO_NET")) {
		bpf_program__set_autoload(r->skel->progs.sock_send, false);
		bpf_program__set_autoload(r->skel->progs.sock_recv, false);
		bpf_program__set_autoload(r->skel->progs.sock_state, false);
		bpf_program__set_autoload(r->skel->progs.tcp_retrans, false);
	}
	/* bench/record: measure the bare uprobe+uretprobe cost, recording nothing */
	r->skel->rodata->targ_empty = getenv("INGERO_RECORD_BENCH_EMPTY") != NULL;
	/* ... =entry: the empty session sets no return probe */
	r->skel->rodata->targ_empty_entry = getenv("INGERO_RECORD_BENCH_EMPTY") &&
					    !strcmp(getenv("INGERO_RECORD_BENCH_EMPTY"), "entry");
	r->sample_every = o->sampling ? o->sampling : 1;
	r->skel->data->sample_every = r->sample_every;
	/* untimed launches need the session program (no return probe set):
	 * with the pairs (a kernel that refused it) every launch is timed */
	r->skel->rodata->targ_launch_every = r->session ? o->launch_timing : 1;
	uint32_t cuda = round_ring(o->ringbuf_size);
	uint32_t host = round_ring(cuda / 4);
	/* copies: half the CUDA ring (256 of them at the default), a page without --unwind */
	uint32_t ustack = o->unwind == REC_UNWIND_FP || !o->stacks ? 4096 : round_ring(cuda / 2);
	if (bpf_map__set_max_entries(r->skel->maps.cuda_rb, cuda) ||
	    bpf_map__set_max_entries(r->skel->maps.host_rb, host) ||
	    bpf_map__set_max_entries(r->skel->maps.ustack_rb, ustack)) {
		snprintf(r->err, sizeof(r->err), "ring buffer size: %s", strerror(errno));
		return -1;
	}
	if (r->multi) {
		bpf_program__set_expected_attach_type(r->skel->progs.cuda_entry_multi,
						      (enum bpf_attach_type)48);
		bpf_program__set_expected_attach_type(r->skel->progs.cuda_return_multi,
						      (enum bpf_attach_type)48);
	} else {
		bpf_program__set_autoload(r->skel->progs.cuda_entry_multi, false);
		bpf_program__set_autoload(r->skel->progs.cuda_return_multi, false);
	}
	if (r->session) {
		bpf_program__set_expected_attach_type(r->skel->progs.cuda_session,
						      (enum bpf_attach_type)57);
		/* not needed with it: its verification is start-up time */
		bpf_program__set_autoload(r->skel->progs.cuda_return_multi, false);
	} else
		bpf_program__set_autoload(r->skel->progs.cuda_session, false);
	int optional = r->multi || r->hold || r->session;
	libbpf_print_fn_t old = optional ? libbpf_set_print(libbpf_quiet) : NULL;
	int err = record_bpf__load(r->skel);
	if (optional)
		libbpf_set_print(old);
	/* the verifier's refusals are EACCES too: the lock's watch is
	 * dropped for those before giving up */
	int perm = err == -EPERM || err == -EACCES;
	if (err && optional && (!perm || (r->hold && r->hold_lock))) {
		/* without the session program, then without the lock's mmap()
		 * watch (mmap()'s tracepoints instead), then without the hold
		 * (with the sessions again), then without multi (with the hold
		 * again) */
		record_bpf__destroy(r->skel);
		if (r->session && !perm) {
			r->session = 0;
		} else if (r->hold && r->hold_lock) {
			r->hold_lock = 0;
			r->session = want_session && r->multi;
		} else if (r->hold) {
			r->hold = 0;
			r->session = want_session && r->multi;
		} else {
			r->multi = 0;
			r->session = 0;
			r->hold = want_hold;
		}
		goto again;
	}
	if (ILOG_VERBOSE(1))
		fprintf(stderr, "%s: CUDA calls timed by %s\n", ilog_prog,
			r->session ? "one uprobe session program (a return probe only where needed)"
			: r->multi ? "uprobe_multi entry and return links"
				   : "a uprobe and a uretprobe per function");
	if (want_hold && !r->hold)
		ilog_warnf("cannot load the mmap() watch: a CUDA library file never attached "
			   "before can miss its first calls");
	r->hold_loaded = r->watch;
	if (err) {
		if (err == -EPERM || err == -EACCES)
			snprintf(r->err, sizeof(r->err),
				 "cannot load BPF programs: %s: need CAP_BPF and CAP_PERFMON: "
				 "run as root",
				 strerror(-err));
		else
			snprintf(r->err, sizeof(r->err),
				 "cannot load BPF programs: %s (ingero-record --check; -vv shows "
				 "the verifier log)",
				 strerror(-err));
		return -1;
	}
	struct rec_tp tp[REC_NTP];
	for (size_t i = 0, n = rec_tracepoints(r->skel, tp); i < n; i++) {
		if (!bpf_program__autoload(tp[i].prog))
			continue; /* left out on purpose */
		*tp[i].link = bpf_program__attach(tp[i].prog);
		if (!*tp[i].link && !tp[i].optional) {
			/* a missing host tracepoint costs that event kind, not the recording */
			ilog_warnf("cannot attach %s: %s; those events are not recorded",
				   bpf_program__name(tp[i].prog), strerror(errno));
		}
	}
	/* the first window's aggregates count from here, not from the start:
	 * loading the programs takes seconds on a loaded host, and a window
	 * that claims them would dilute every rate taken from it */
	r->last_tick_ns = rec_now(CLOCK_MONOTONIC);
	return 0;
}

static void detach_tracepoints(struct rec *r)
{
	struct rec_tp tp[REC_NTP];
	for (size_t i = 0, n = rec_tracepoints(r->skel, tp); i < n; i++) {
		bpf_link__destroy(*tp[i].link);
		*tp[i].link = NULL;
	}
}

static int run(struct rec *r)
{
	struct rec_opts *o = &r->o;
	pid_t child = -1;
	int gate = -1, child_status = 0, child_done = 0;
	for (unsigned i = 0; i < o->npids; i++)
		if (rec_add_target(r, o->pids[i])) {
			ilog_errorf("--pid %u: cannot add target: %s", o->pids[i], strerror(errno));
			return ILOG_EXIT_USAGE;
		}
	if (o->cmd) {
		child = start_command(o->cmd, &gate);
		if (child < 0) {
			ilog_errorf("cannot start '%s': %s", o->cmd[0], strerror(errno));
			return ILOG_EXIT_USAGE;
		}
		uint32_t cp = (uint32_t)child;
		uint8_t one = 1;
		rec_add_target(r, cp);
		/* --hold-max 0: never stopped (the rescan at the ld.so hook
		 * still comes, a few ms late) */
		if (r->watch &&
		    bpf_map__update_elem(r->skel->maps.hold, &cp, sizeof(cp), &one, 1, BPF_ANY))
			ilog_warnf("cannot watch the command's library loads: %s", strerror(errno));
	}
	for (unsigned i = 0; i < o->ncuda_libs; i++) {
		char real[4096];
		if (!realpath(o->cuda_libs[i], real) || rec_lib_class(real) < 0) {
			/* a renamed copy still counts: class from the name given */
			snprintf(real, sizeof(real), "%s", o->cuda_libs[i]);
		}
		if (rec_attach_lib(r, real, real)) {
			ilog_errorf("--cuda-lib: %s", r->err);
			return ILOG_EXIT_USAGE;
		}
	}
	if (!o->ncuda_libs)
		rec_attach_known(r);
	if (rec_hold_start(r)) {
		ilog_errorf("%s", r->err);
		return ILOG_EXIT_USAGE;
	}
	rec_scan_all(r);
	rec_write_snapshot(r);
	/*
	 * Attached: keep only what recording goes on needing (probes on
	 * libraries loaded later, /proc and memory of new processes, and for
	 * a COMMAND run as the sudo user, signalling it), drop the rest.
	 */
	if (rec_caps_drop(o->cmd && getenv("SUDO_UID"), r->hold, r->err, sizeof(r->err)))
		ilog_warnf("%s", r->err);
	if (!o->quiet) {
		char where[4200];
		if (o->flight_ns)
			snprintf(where, sizeof(where), "memory (the last %.1f s; dumps beside %s on "
				 "SIGUSR1%s%s)", (double)o->flight_ns / 1e9, o->out,
				 o->hang_after_ns ? ", a hang" : "", o->p99_over > 0 ? ", a p99" : "");
		else
			snprintf(where, sizeof(where), "%s", o->out);
		fprintf(stderr, "%s: recording to %s: %u probes in %u files; %s\n", ilog_prog,
			where, r->nprobes, r->nlibs,
			o->cmd ? "running the command" : "Ctrl-C to stop");
	}
	if (gate >= 0) {
		if (write(gate, "g", 1) != 1)
			ilog_warnf("cannot release the command: %s", strerror(errno));
		close(gate);
	}
	/* --duration counts from here, the probes attached and the command
	 * released: loading the programs can take seconds on a loaded host
	 * (beside two CPU hogs, --duration 2s recorded no call at all) */
	uint64_t live = rec_now(CLOCK_MONOTONIC);
	uint64_t next_sec = live + 1000000000ull, next_full = next_sec + 9e9;
	int rc = ILOG_EXIT_OK;
	while (!rec_stop) {
		int err = rec_drain(r, 10);
		if (err) {
			ilog_errorf("ring buffer: %s", strerror(-err));
			rc = ILOG_EXIT_USAGE;
			break;
		}
		uint64_t now = rec_now(CLOCK_MONOTONIC);
		if (o->duration_ns && now - live >= o->duration_ns)
			break;
		if (child > 0 && waitpid(child, &child_status, WNOHANG) == child) {
			child_done = 1;
			break;
		}
		if (now >= next_sec) {
			next_sec = now + 1000000000ull;
			rec_window(r, 0);
			rec_write_snapshot(r);
			rec_write_clock(r);
			/* libraries loaded without the ld.so hook are found by this */
			for (unsigned i = 0; i < REC_MAX_PROCS; i++)
				if (r->procs[i].pid && !r->procs[i].exited)
					rec_scan_pid(r, r->procs[i].pid);
			if (o->mode != REC_MODE_PIDS && !o->ncuda_libs && now >= next_full) {
				next_full = now + 10000000000ull;
				rec_scan_all(r);
			}
			if (!o->sampling)
				rec_adapt_sampling(r);
			if (o->quiet <= 0)
				rec_summary(r, 0);
		}
		rec_flight_tick(r, now);
		int terr = ilog_writer_tick(r->w);
		if (r->rot ? rec_rotate_tick(r, 0) : terr) {
			if (r->rot)
				ilog_errorf("%s", r->err);
			else
				ilog_errorf("%s: %s", o->out, ilog_writer_error(r->w));
			rc = ILOG_EXIT_USAGE;
			break;
		}
	}
	/* stop producing, then take everything already produced */
	rec_detach_all(r);
	detach_tracepoints(r);
	ring_buffer__consume(r->rb);
	rec_flush_inflight(r);
	rec_window(r, 1);
	rec_write_clock(r);
	rec_flight_close(r);
	if (o->quiet <= 0)
		rec_summary(r, 1);
	/* nothing may stay stopped: resume every held process */
	rec_hold_close(r);
	if (child > 0 && !child_done) {
		kill(child, SIGTERM);
		waitpid(child, &child_status, 0);
	}
	if (child > 0 && !o->quiet && WIFEXITED(child_status) && WEXITSTATUS(child_status))
		ilog_warnf("the command exited with status %d", WEXITSTATUS(child_status));
	return rc;
}

/* For the writer's context at a rotation (and --flight's compaction): a
 * process the recorder named (a preempter, a page allocator: no exit
 * record unless it was traced) and that is gone no longer needs its
 * records in later files. */
int rec_pid_alive(void *ctx, uint32_t pid)
{
	(void)ctx;
	return !pid || kill((pid_t)pid, 0) == 0 || errno != ESRCH;
}

int main(int argc, char **argv)
{
	static struct rec r; /* large: the process table */
	ilog_cli_init(argv[0]);
	/* A recorder left on: glibc raises its mmap threshold whenever a large
	 * block is freed, and such blocks then come from the heap and leave it
	 * fragmented.  Measured (bench/soak/run, 63,000 calls/s) the heap's
	 * resident size grew ~5 KiB/s for 30 minutes with its live blocks
	 * constant (heaptrack).  A threshold set (which stops the adjustment)
	 * keeps blocks of 64 KiB and more in mmap(): the heap stays flat (at
	 * 128 KiB it still grew). */
	mallopt(M_MMAP_THRESHOLD, 64 * 1024);
	if (parse_args(argc, argv, &r.o))
		return ILOG_EXIT_USAGE;
	libbpf_set_print(libbpf_log);
	if (r.o.check)
		return ilog_finish_stdout(rec_check(&r.o));
	char defname[64];
	if (!r.o.out) {
		time_t t = time(NULL);
		strftime(defname, sizeof(defname), "ingero-%Y%m%d-%H%M%S.ilog", localtime(&t));
		r.o.out = defname;
	}
	char err[512];
	if (rec_lock(r.o.lock_path, err, sizeof(err)) < 0) {
		ilog_errorf("%s", err);
		return ILOG_EXIT_USAGE;
	}
	signal(SIGPIPE, SIG_IGN);
	struct sigaction sa = { .sa_handler = on_signal };
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	if (r.o.flight_ns)
		sigaction(SIGUSR1, &sa, NULL);
	struct rlimit rl = { RLIM_INFINITY, RLIM_INFINITY };
	if (setrlimit(RLIMIT_NOFILE, &rl)) {
		getrlimit(RLIMIT_NOFILE, &rl);
		rl.rlim_cur = rl.rlim_max;
		setrlimit(RLIMIT_NOFILE, &rl);
	}
	int rc = ILOG_EXIT_USAGE;
	r.out_fd = -1;
	int rotate = r.o.rot.max_bytes || r.o.rot.max_ns;
	if (r.o.flight_ns) {
		if (rec_flight_open(&r)) {
			ilog_errorf("%s", r.err);
			goto cleanup;
		}
	} else {
		if (!strcmp(r.o.out, "-") && ilog_refuse_tty(STDOUT_FILENO, "a binary log"))
			goto cleanup;
		if (rotate && rec_rotate_open(&r)) {
			ilog_errorf("%s", r.err);
			goto cleanup;
		}
		if (!rotate && (r.out_fd = ilog_open_out(r.o.out)) < 0)
			goto cleanup;
		if (!strcmp(r.o.out, "-"))
			r.o.out = "stdout";
		if (rotate)
			r.o.out = ilog_rotate_current(r.rot);
		/* rotation: each file gets the context a reader needs */
		r.w = ilog_writer_open(r.out_fd,
				       &(struct ilog_writer_opts){ .context = rotate, .alive = rec_pid_alive,
							     .prune_ms = 10000 },
				       err, sizeof(err));
		if (!r.w) {
			ilog_errorf("%s: %s", r.o.out, err);
			goto cleanup;
		}
	}
	r.t0_ns = rec_now(CLOCK_MONOTONIC);
	if (rec_write_header(&r)) {
		ilog_errorf("%s: %s", r.o.out, ilog_writer_error(r.w));
		goto cleanup;
	}
	if (setup_bpf(&r) || rec_sink_open(&r)) {
		ilog_errorf("%s", r.err);
		goto cleanup;
	}
	r.tty = !r.o.quiet && isatty(STDERR_FILENO);
	rc = run(&r);
cleanup:;
	/* rotated: a full disk at the end is a full disk like any other */
	int fin = r.w && r.rot && !rc ? rec_rotate_finish(&r) : 0;
	if (fin < 0) {
		ilog_errorf("%s", r.err);
		rc = ILOG_EXIT_USAGE;
	}
	if (r.w && ilog_writer_close(r.w, err, sizeof(err)) && !fin) {
		ilog_errorf("%s: %s", r.o.out, err);
		rc = ILOG_EXIT_USAGE;
	}
	ilog_writer_close(r.wdef, NULL, 0);
	ilog_flight_free(r.flight);
	rec_p99_free(r.p99);
	ring_buffer__free(r.rb);
	rec_detach_all(&r);
	rec_py_close(&r);
	rec_unwind_close();
	record_bpf__destroy(r.skel);
	free(r.libs);
	if (r.out_fd > STDERR_FILENO)
		close(r.out_fd);
	ilog_rotate_free(r.rot);
	ilog_rotate_free(r.dumps);
	return rc;
}
