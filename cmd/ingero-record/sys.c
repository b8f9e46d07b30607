// SPDX-License-Identifier: MIT
/*
 * Host facts: the log header and clock anchors, /proc system snapshots,
 * the --check readiness report, and the single-instance lock.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/random.h>
#include <sys/stat.h>
#include <sys/utsname.h>
#include <unistd.h>
#include <bpf/bpf.h>
#include <bpf/libbpf.h>
#include "ingero/cli.h"
#include "ingero/hmap.h"
#include "rec.h"
#include "bpf/record.skel.h"

static void read_line(const char *path, char *buf, size_t cap)
{
	buf[0] = 0;
	FILE *f = fopen(path, "re");
	if (!f)
		return;
	if (fgets(buf, (int)cap, f))
		buf[strcspn(buf, "\n")] = 0;
	fclose(f);
}

const char *rec_driver_version(char *buf, size_t len)
{
	/* "NVRM version: NVIDIA UNIX x86_64 Kernel Module  550.54.14  Thu Feb ..." */
	char line[512];
	read_line("/proc/driver/nvidia/version", line, sizeof(line));
	buf[0] = 0;
	char *p = strstr(line, "Kernel Module");
	if (p) {
		p += strlen("Kernel Module");
		while (*p == ' ')
			p++;
		snprintf(buf, len, "%.*s", (int)strcspn(p, " "), p);
	}
	return buf;
}

void rec_header(struct rec *r, struct ilog_header *h, char (*buf)[256])
{
	struct utsname u;
	uname(&u);
	read_line("/etc/machine-id", buf[0], 128);
	read_line("/proc/sys/kernel/random/boot_id", buf[1], 64);
	gethostname(buf[2], 255);
	snprintf(buf[3], 256, "%s", u.release);
	if (!buf[0][0])
		snprintf(buf[0], 128, "%.127s", buf[2]);
	if (!r->session_id && getrandom(&r->session_id, sizeof(r->session_id), 0) != sizeof(r->session_id))
		r->session_id = rec_now(CLOCK_REALTIME) ^ (uint64_t)getpid();
	*h = (struct ilog_header){
		.node = ilog_str_c(buf[0]), .boot_id = ilog_str_c(buf[1]), .host = ilog_str_c(buf[2]),
		.recorder = ILOG_STR("ingero-record " INGERO_VERSION),
		.kernel = ilog_str_c(buf[3]),
		.driver = ilog_str_c(rec_driver_version(buf[4], 64)),
		.session_id = r->session_id, .rank = r->o.rank,
		.mono_ns = rec_now(CLOCK_MONOTONIC), .boot_ns = rec_now(CLOCK_BOOTTIME),
		.real_ns = rec_now(CLOCK_REALTIME),
	};
}

int rec_write_header(struct rec *r)
{
	char buf[5][256] = { "" };
	struct ilog_header h;
	rec_header(r, &h, buf);
	r->hdr_clock[0] = h.mono_ns;
	r->hdr_clock[1] = h.boot_ns;
	r->hdr_clock[2] = h.real_ns;
	return ilog_writer_begin(r->w, &h);
}

void rec_write_clock(struct rec *r)
{
	struct ilog_record rec = { .kind = ILOG_K_CLOCK };
	/* realtime read between the two others bounds the pairing error */
	rec.u.clock.mono_ns = rec_now(CLOCK_MONOTONIC);
	rec.u.clock.real_ns = rec_now(CLOCK_REALTIME);
	rec.u.clock.boot_ns = rec_now(CLOCK_BOOTTIME);
	ilog_writer_put(r->w, &rec);
}

static uint64_t meminfo(const char *buf, const char *key)
{
	const char *p = strstr(buf, key);
	return p ? strtoull(p + strlen(key), NULL, 10) * 1024 : 0;
}

/* /proc/PID/stat: CPU ticks, resident pages, start time and name.  0 or -1. */
static int proc_rss(uint32_t pid, char *buf, size_t cap, unsigned long long *ut,
		    unsigned long long *st, unsigned long long *rss, unsigned long long *start,
		    char comm[16])
{
	char path[64];
	snprintf(path, sizeof(path), "/proc/%u/stat", pid);
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -1;
	ssize_t n = read(fd, buf, cap - 1);
	close(fd);
	buf[n > 0 ? n : 0] = 0;
	char *o = strchr(buf, '('), *q = strrchr(buf, ')');
	unsigned long long sta = 0;
	if (!o || !q || q < o ||
	    sscanf(q + 2, "%*c %*d %*d %*d %*d %*d %*u %*u %*u %*u %*u %llu %llu %*d %*d "
			  "%*d %*d %*d %*d %llu %*u %llu", ut, st, &sta, rss) != 4)
		return -1;
	size_t l = (size_t)(q - o - 1);
	if (l > 15)
		l = 15;
	memcpy(comm, o + 1, l);
	comm[l] = 0;
	if (start)
		*start = sta;
	return 0;
}

#define REC_GROWTH_TOP 4 /* processes by RSS growth added to each snapshot */

/*
 * The processes whose resident memory grew most since the previous
 * snapshot, targets or not, appended to the snapshot's procs (after the
 * targets, REC_GROWTH_TOP of them, growth > 0 only).  Every process's RSS
 * is kept from one snapshot to the next, keyed by pid and start time.
 */
static void top_growth(struct rec *r, struct ilog_snapshot *s, char *buf, size_t cap,
		       uint64_t page)
{
	static struct ilog_hmap prev, cur;
	static int primed;
	struct { uint32_t pid; int64_t grow; uint64_t rss; char comm[16]; } top[REC_GROWTH_TOP];
	unsigned ntop = 0;
	DIR *d = opendir("/proc");
	struct dirent *e;
	while (d && (e = readdir(d))) {
		if (e->d_name[0] < '1' || e->d_name[0] > '9')
			continue;
		uint32_t pid = (uint32_t)strtoul(e->d_name, NULL, 10);
		unsigned long long ut, st, rss, start;
		char comm[16];
		if (proc_rss(pid, buf, cap, &ut, &st, &rss, &start, comm))
			continue;
		uint64_t *was = ilog_hmap_get(&prev, pid, start);
		if (ilog_hmap_set(&cur, pid, start, rss))
			break;
		if (!primed || !was || rss <= *was)
			continue;
		int64_t grow = (int64_t)((rss - *was) * page);
		unsigned k = ntop < REC_GROWTH_TOP ? ntop++ : REC_GROWTH_TOP;
		if (k == REC_GROWTH_TOP) {
			if (grow <= top[REC_GROWTH_TOP - 1].grow)
				continue;
			k = REC_GROWTH_TOP - 1;
		}
		for (; k > 0 && top[k - 1].grow < grow; k--)
			top[k] = top[k - 1];
		top[k].pid = pid;
		top[k].grow = grow;
		top[k].rss = rss * page;
		memcpy(top[k].comm, comm, 16);
	}
	if (d)
		closedir(d);
	ilog_hmap_free(&prev);
	prev = cur;
	memset(&cur, 0, sizeof(cur));
	primed = 1;
	for (unsigned i = 0; i < ntop; i++) {
		unsigned j;
		for (j = 0; j < s->nprocs && s->procs[j].pid != top[i].pid; j++)
			;
		if (j == s->nprocs) {
			if (s->nprocs == ILOG_MAX_SNAPSHOT_PROCS)
				break;
			s->nprocs++;
			s->procs[j].pid = top[i].pid;
			s->procs[j].rss = top[i].rss;
			memcpy(s->procs[j].comm, top[i].comm, 16);
		}
		s->procs[j].rss_growth = top[i].grow;
	}
	(void)r;
}

/*
 * Pressure stall information: the share of the time since the previous
 * snapshot that some (or all) runnable tasks were stalled on CPU, memory
 * or I/O, from the `total=` microsecond counters in /proc/pressure.
 */
static void read_psi(struct ilog_snapshot *s, double dt)
{
	static const char *const files[3] = { "/proc/pressure/cpu", "/proc/pressure/memory",
					      "/proc/pressure/io" };
	static uint64_t last[3][2];
	double *out[3][2] = { { &s->psi_cpu_some, NULL }, { &s->psi_mem_some, &s->psi_mem_full },
			      { &s->psi_io_some, &s->psi_io_full } };
	for (int i = 0; i < 3; i++) {
		FILE *f = fopen(files[i], "re");
		char line[256];
		while (f && fgets(line, sizeof(line), f)) {
			int full = !strncmp(line, "full", 4);
			const char *t = strstr(line, "total=");
			if (!t || (strncmp(line, "some", 4) && !full))
				continue;
			uint64_t v = strtoull(t + 6, NULL, 10);
			if (out[i][full] && dt > 0 && last[i][full] && v >= last[i][full]) {
				double pct = (double)(v - last[i][full]) / 1e4 / dt;
				*out[i][full] = pct > 100 ? 100 : pct;
			}
			last[i][full] = v;
		}
		if (f)
			fclose(f);
	}
}

void rec_write_snapshot(struct rec *r)
{
	static struct ilog_record rec;
	struct ilog_snapshot *s = &rec.u.snapshot;
	char buf[8192];
	memset(&rec, 0, sizeof(rec));
	rec.kind = ILOG_K_SNAPSHOT;
	s->ts_ns = rec_now(CLOCK_MONOTONIC);
	long ncpu = sysconf(_SC_NPROCESSORS_ONLN);
	s->ncpu = ncpu > 0 ? (uint32_t)ncpu : 1;
	FILE *f = fopen("/proc/stat", "re");
	if (f) {
		unsigned long long v[10] = { 0 };
		if (fscanf(f, "cpu %llu %llu %llu %llu %llu %llu %llu %llu %llu %llu", &v[0], &v[1],
			   &v[2], &v[3], &v[4], &v[5], &v[6], &v[7], &v[8], &v[9]) >= 4) {
			/* guest time is already in user time */
			uint64_t idle = v[3] + v[4], total = 0;
			for (int i = 0; i < 8; i++)
				total += v[i];
			uint64_t busy = total - idle, steal = v[7];
			if (r->cpu_total && total > r->cpu_total) {
				double dtot = (double)(total - r->cpu_total);
				s->cpu_pct = 100.0 * (double)(busy - r->cpu_busy) / dtot;
				/* steal (the 8th column, counted busy above): the
				 * hypervisor ran something else on a runnable vCPU */
				if (steal >= r->cpu_steal) {
					double pct = 100.0 * (double)(steal - r->cpu_steal) / dtot;
					s->steal_pct = pct > 100 ? 100 : pct;
				}
			}
			r->cpu_busy = busy;
			r->cpu_total = total;
			r->cpu_steal = steal;
			r->last_cpu_pct = s->cpu_pct;
		}
		fclose(f);
	}
	int fd = open("/proc/meminfo", O_RDONLY | O_CLOEXEC);
	if (fd >= 0) {
		ssize_t n = read(fd, buf, sizeof(buf) - 1);
		close(fd);
		buf[n > 0 ? n : 0] = 0;
		s->mem_total = meminfo(buf, "MemTotal:");
		s->mem_avail = meminfo(buf, "MemAvailable:");
		s->swap_total = meminfo(buf, "SwapTotal:");
		s->swap_free = meminfo(buf, "SwapFree:");
	}
	f = fopen("/proc/loadavg", "re");
	if (f) {
		if (fscanf(f, "%lf %lf %lf", &s->load1, &s->load5, &s->load15) != 3)
			s->load1 = s->load5 = s->load15 = 0;
		fclose(f);
	}
	/* per target process: CPU % of one core since the last snapshot, RSS */
	long hz = sysconf(_SC_CLK_TCK), page = sysconf(_SC_PAGESIZE);
	static uint64_t last_ns;
	double dt = last_ns ? (double)(s->ts_ns - last_ns) / 1e9 : 0;
	last_ns = s->ts_ns;
	for (unsigned i = 0; i < REC_MAX_PROCS && s->nprocs < ILOG_MAX_SNAPSHOT_PROCS; i++) {
		struct rec_proc *p = &r->procs[i];
		if (!p->pid || p->exited)
			continue;
		unsigned long long ut = 0, st = 0, rss = 0;
		char comm[16];
		if (proc_rss(p->pid, buf, sizeof(buf), &ut, &st, &rss, NULL, comm))
			continue;
		uint64_t ticks = ut + st;
		struct ilog_snapshot_proc *sp = &s->procs[s->nprocs++];
		sp->pid = p->pid;
		sp->rss = rss * (uint64_t)page;
		memcpy(sp->comm, comm, sizeof(sp->comm));
		if (dt > 0 && p->cpu_ticks && ticks >= p->cpu_ticks)
			sp->cpu_pct = 100.0 * (double)(ticks - p->cpu_ticks) / (double)hz / dt;
		p->cpu_ticks = ticks;
		rec_write_limits(r, s->ts_ns, p, comm);
	}
	top_growth(r, s, buf, sizeof(buf), (uint64_t)page);
	read_psi(s, dt);
	ilog_writer_put(r->w, &rec);
}

int rec_lock(const char *path, char *err, size_t len)
{
	/*
	 * flock: the kernel drops the lock when its holder dies, so a lock
	 * file left by a killed recorder is stale by construction and simply
	 * taken over; the pid inside is only for the message.
	 */
	int fd = open(path, O_RDWR | O_CREAT | O_CLOEXEC, 0644);
	if (fd < 0 && errno == ENOENT) {
		/*
		 * A bare root (a container or chroot holding only the static
		 * recorder) has no /run: make the lock's folder, one level,
		 * as systemd would have at boot.
		 */
		char dir[4096];
		snprintf(dir, sizeof(dir), "%s", path);
		char *slash = strrchr(dir, '/');
		if (slash && slash != dir) {
			*slash = 0;
			if (!mkdir(dir, 0755) || errno == EEXIST)
				fd = open(path, O_RDWR | O_CREAT | O_CLOEXEC, 0644);
		}
	}
	if (fd < 0) {
		snprintf(err, len, "%s: %s", path, strerror(errno));
		return -1;
	}
	if (flock(fd, LOCK_EX | LOCK_NB)) {
		char pid[32] = "?";
		ssize_t n = pread(fd, pid, sizeof(pid) - 1, 0);
		pid[n > 0 ? n : 1] = 0;
		pid[strcspn(pid, "\n")] = 0;
		snprintf(err, len,
			 "another ingero-record (pid %s) holds %s: stop it first, or set "
			 "INGERO_RECORD_LOCK to record in parallel",
			 pid, path);
		close(fd);
		return -1;
	}
	char buf[32];
	int n = snprintf(buf, sizeof(buf), "%d\n", (int)getpid());
	if (ftruncate(fd, 0) || pwrite(fd, buf, (size_t)n, 0) != n) {
		/* the lock holds even if the note cannot be written */
	}
	return fd; /* kept open for the life of the process */
}

/* ---- --check ---- */

static int nfail, nwarn;

static void item(int ok, const char *what, const char *detail, const char *fix)
{
	const char *tag = ok > 0 ? "ok  " : ok == 0 ? "FAIL" : "warn";
	if (!ok)
		nfail++;
	if (ok < 0)
		nwarn++;
	printf("%s %-18s %s\n", tag, what, detail);
	if (ok <= 0 && fix)
		printf("     %-18s fix: %s\n", "", fix);
}

static int silent(enum libbpf_print_level l, const char *f, va_list ap)
{
	(void)l, (void)f, (void)ap;
	return 0;
}

static void check_libs(void)
{
	/* every mapped CUDA library, and who maps it */
	struct { char path[512]; char open[544]; char pids[256]; } found[32];
	unsigned nf = 0;
	/* processes with the driver mapped but no runtime: a CUDA runtime
	 * linked into the program (nvcc -cudart static, the default) */
	char statics[512] = "";
	size_t nstatic = 0;
	DIR *d = opendir("/proc");
	struct dirent *e;
	while (d && (e = readdir(d))) {
		if (e->d_name[0] < '0' || e->d_name[0] > '9')
			continue;
		char path[64], line[4608];
		snprintf(path, sizeof(path), "/proc/%.20s/maps", e->d_name);
		FILE *f = fopen(path, "re");
		if (!f)
			continue;
		int rt = 0, drv = 0;
		while (fgets(line, sizeof(line), f)) {
			char *file = strchr(line, '/');
			if (!file || !strstr(line, " r-xp "))
				continue;
			file[strcspn(file, "\n")] = 0;
			int cls = rec_lib_class(file);
			if (cls < 0)
				continue;
			rt |= cls == CL_RT;
			drv |= cls == CL_DRV;
			unsigned i;
			for (i = 0; i < nf && strcmp(found[i].path, file); i++)
				;
			if (i == nf && nf < 32) {
				snprintf(found[nf].path, sizeof(found[nf].path), "%s", file);
				/* read through the process's root: it may not be ours
				 * (a container, or this recorder in a bare root) */
				snprintf(found[nf].open, sizeof(found[nf].open), "/proc/%.20s/root%s",
					 e->d_name, file);
				found[nf++].pids[0] = 0;
			}
			if (i < nf) {
				size_t l = strlen(found[i].pids);
				if (l < sizeof(found[i].pids) - 16)
					snprintf(found[i].pids + l, sizeof(found[i].pids) - l, "%s%.12s",
						 l ? "," : "", e->d_name);
			}
		}
		fclose(f);
		if (drv && !rt && nstatic < sizeof(statics) - 32) {
			char comm[32] = "", cpath[64];
			snprintf(cpath, sizeof(cpath), "/proc/%.20s/comm", e->d_name);
			read_line(cpath, comm, sizeof(comm));
			nstatic += (size_t)snprintf(statics + nstatic, sizeof(statics) - nstatic,
						    "%s%.12s (%.16s)", nstatic ? ", " : "", e->d_name,
						    comm);
		}
	}
	if (d)
		closedir(d);
	if (nstatic) {
		char detail[700];
		snprintf(detail, sizeof(detail), "%s: libcuda mapped, no libcudart.so: the CUDA "
			 "runtime is linked into the program; its driver calls are recorded, "
			 "its runtime calls are not", statics);
		item(-1, "static cuda runtime", detail,
		     "build with -cudart shared (nvcc) to record runtime calls too");
	}
	if (!nf)
		item(-1, "cuda libraries", "none mapped by any process now",
		     "start the workload, or name a library with --cuda-lib PATH");
	for (unsigned i = 0; i < nf; i++) {
		char detail[1400], missing[512];
		int have, total;
		if (rec_probe_count(found[i].open, &have, &total, missing, sizeof(missing)))
			rec_probe_count(found[i].path, &have, &total, missing, sizeof(missing));
		snprintf(detail, sizeof(detail), "%.400s (pids %.200s): %d/%d functions%s%.600s", found[i].path,
			 found[i].pids, have, total, missing[0] ? ", missing " : "", missing);
		item(1, "cuda library", detail, NULL);
	}
}

/* whether /proc/kallsyms names a kernel function (it lists them to any user) */
static int ksym(const char *name)
{
	FILE *f = fopen("/proc/kallsyms", "re");
	char line[256];
	size_t n = strlen(name);
	int found = 0;
	while (f && !found && fgets(line, sizeof(line), f)) {
		char *p = strchr(line, ' ');
		if (p && (p = strchr(p + 1, ' ')) && !strncmp(p + 1, name, n) &&
		    (p[1 + n] == '\n' || p[1 + n] == '\t'))
			found = 1;
	}
	if (f)
		fclose(f);
	return found;
}

/*
 * How a CUDA call will be probed here, cheapest first (bench/RESULTS.md):
 * the trap at the entry dominates, the same for perf-event, uprobe_multi
 * and session attachments; what a kernel can spare is the second one, at
 * the return, which a session program sets only for the calls it times.
 * Probes go at the function's first instruction, which the kernel emulates
 * (push %rbp); one past the prologue would be single-stepped (~3x dearer).
 */
static void probe_path(int lock_arg)
{
	/* the attachment the recorder will use: the session program (6.13+),
	 * else the uprobe_multi pair (6.6+), else perf-event pairs */
	libbpf_print_fn_t old = libbpf_set_print(silent);
	int err = -EINVAL, session = 0, multi = 0;
	for (int k = 0; k < 3 && err; k++) {
		struct record_bpf *s = record_bpf__open();
		if (!s)
			break;
		session = k == 0;
		multi = k < 2;
		rec_mmap_lock_load(s, lock_arg);
		bpf_program__set_autoload(s->progs.cuda_session, session);
		bpf_program__set_autoload(s->progs.cuda_return_multi, k == 1);
		bpf_program__set_autoload(s->progs.cuda_entry_multi, multi);
		if (session)
			bpf_program__set_expected_attach_type(s->progs.cuda_session,
							      (enum bpf_attach_type)57);
		if (multi) {
			bpf_program__set_expected_attach_type(s->progs.cuda_entry_multi,
							      (enum bpf_attach_type)48);
			bpf_program__set_expected_attach_type(s->progs.cuda_return_multi,
							      (enum bpf_attach_type)48);
		}
		err = record_bpf__load(s);
		record_bpf__destroy(s);
	}
	libbpf_set_print(old);
	if (err)
		return;
	char d[400];
	snprintf(d, sizeof(d), "%s at each function's entry; %s%s",
		 session ? "uprobe session programs (6.13+), a return probe only on calls timed,"
		 : multi ? "uprobe_multi entry and return links (6.6+): every call trapped twice"
			 : "a perf-event uprobe and uretprobe per function: every call trapped twice",
		 ksym("__x64_sys_uretprobe") ? "returns by the uretprobe system call (6.11+)"
					     : "returns by a second breakpoint trap",
		 ksym("arch_uprobe_optimize") ? "; a probe on a 5-byte nop would become a "
						"call (6.18+), a function's entry is none"
					      : "");
	item(session ? 1 : -1, "probes", d,
	     "Linux 6.13+ lets untimed calls skip the return trap (uprobe sessions)");
}

int rec_check(const struct rec_opts *o)
{
	char buf[512];
	struct utsname u;
	uname(&u);
	int maj = 0, min = 0;
	sscanf(u.release, "%d.%d", &maj, &min);
	snprintf(buf, sizeof(buf), "%s (uprobe cookies need 5.15+)", u.release);
	item(maj > 5 || (maj == 5 && min >= 15), "kernel", buf, "upgrade to Linux 5.15 or later");
	item(access("/sys/kernel/btf/vmlinux", R_OK) == 0, "btf", "/sys/kernel/btf/vmlinux",
	     "a kernel built with CONFIG_DEBUG_INFO_BTF=y is needed for CO-RE");
	struct stat st;
	int tracefs = !stat("/sys/kernel/tracing/events", &st) ||
		      !stat("/sys/kernel/debug/tracing/events", &st);
	item(tracefs ? 1 : -1, "tracefs",
	     tracefs ? "mounted" : "not mounted (not needed: raw tracepoints and uprobes are used)",
	     "mount -t tracefs nodev /sys/kernel/tracing  (only for other tools)");
	item(!stat("/sys/bus/event_source/devices/uprobe/type", &st), "uprobes",
	     "/sys/bus/event_source/devices/uprobe", "a kernel with CONFIG_UPROBE_EVENTS=y");
	rec_caps_check(item);
	/* BPF permission and the verifier: load the real programs */
	libbpf_print_fn_t old = libbpf_set_print(silent);
	struct record_bpf *s = record_bpf__open();
	/* the programs every kernel must load; the session program is
	 * optional (6.13+) and falls back to the pairs */
	int lock_arg = rec_mmap_lock_arg(), err;
again:
	if (s) {
		bpf_program__set_autoload(s->progs.cuda_session, false);
		rec_mmap_lock_load(s, lock_arg);
	}
	err = s ? record_bpf__load(s) : -errno;
	if (err && lock_arg > 0) {
		/* the recorder falls back to mmap()'s tracepoints alike */
		record_bpf__destroy(s);
		s = record_bpf__open();
		lock_arg = 0;
		goto again;
	}
	int taxed = 0;
	const char *how = err ? NULL : rec_mmap_watch(s, &taxed);
	record_bpf__destroy(s);
	libbpf_set_print(old);
	snprintf(buf, sizeof(buf), "%s", err ? strerror(-err) : "programs load and verify");
	item(!err, "bpf", buf,
	     err == -EPERM ? "need CAP_BPF and CAP_PERFMON (or root): run with sudo"
			   : "see ingero-record -v output for the verifier log");
	if (!err) {
		snprintf(buf, sizeof(buf), "%s%s", how ? how : "none: a CUDA library file never "
			 "attached before can miss its first calls (system-wide)",
			 !how ? "" : taxed ? ": while a system-wide recorder runs, every system "
			 "call of the host takes the kernel's slow path (about +10% on a 1-byte dd)"
			 : " (mmap_lock_released): no cost to other system calls");
		item(how && !taxed ? 1 : -1, "mmap watch", buf,
		     "a kernel with the mmap_lock tracepoints and BTF (5.15+); or record with "
		     "--hold-max 0, --pid or -- COMMAND (no watch)");
	}
	if (!err)
		probe_path(lock_arg);
	read_line("/proc/sys/kernel/yama/ptrace_scope", buf, sizeof(buf));
	if (buf[0]) {
		char d[128];
		snprintf(d, sizeof(d), "%.16s%s", buf,
			 buf[0] > '1' ? " (reading other users' /proc/PID/maps needs root)" : "");
		item(buf[0] > '1' ? -1 : 1, "ptrace_scope", d,
		     "run as root, or echo 1 > /proc/sys/kernel/yama/ptrace_scope");
	}
	check_libs();
	char drv[64];
	if (rec_driver_version(drv, sizeof(drv))[0]) {
		item(1, "nvidia driver", drv, NULL);
		DIR *d = opendir("/proc/driver/nvidia/gpus");
		struct dirent *e;
		int n = 0;
		while (d && (e = readdir(d))) {
			if (e->d_name[0] == '.')
				continue;
			char path[512], model[256] = "";
			snprintf(path, sizeof(path), "/proc/driver/nvidia/gpus/%s/information",
				 e->d_name);
			FILE *f = fopen(path, "re");
			while (f && fgets(model, sizeof(model), f))
				if (!strncmp(model, "Model:", 6))
					break;
			if (f)
				fclose(f);
			model[strcspn(model, "\n")] = 0;
			snprintf(buf, sizeof(buf), "%s %s", e->d_name,
				 model[0] ? model + 6 + strspn(model + 6, " \t") : "");
			item(1, "gpu", buf, NULL);
			n++;
		}
		if (d)
			closedir(d);
		if (!n)
			item(-1, "gpu", "none listed in /proc/driver/nvidia/gpus", NULL);
	} else {
		item(-1, "nvidia driver", "not loaded (/proc/driver/nvidia/version absent)",
		     "CUDA calls will fail fast; they are still traced");
	}
	/* the output's filesystem: what a recording (and --keep-size) has */
	const char *out = o->out && strcmp(o->out, "-") ? o->out : "./ingero.ilog";
	uint64_t avail, total;
	if (ilog_rotate_free_space(out, &avail, &total)) {
		snprintf(buf, sizeof(buf), "%s: %s", out, strerror(errno));
		item(0, "output disk", buf, "-o a path in a folder that exists");
	} else {
		uint64_t need = o->rot.keep_bytes ? o->rot.keep_bytes
						  : o->rot.max_bytes * (o->rot.keep ? o->rot.keep : 1);
		snprintf(buf, sizeof(buf), "%.1f GiB free of %.1f GiB at %s%s", (double)avail / (1u << 30),
			 (double)total / (1u << 30), out,
			 need > avail ? " (less than --rotate/--keep may use)" : "");
		item(need > avail ? -1 : 1, "output disk", buf,
		     "a larger disk, or a smaller --keep/--keep-size");
	}
	printf("%s: %d failed, %d warnings\n", nfail ? "not ready" : "ready", nfail, nwarn);
	return nfail ? ILOG_EXIT_FINDING : ILOG_EXIT_OK;
}
