// SPDX-License-Identifier: MIT
/*
 * ingero-demo (`ingero demo`): run a scenario workload on the fake CUDA
 * libraries under ingero-record, then explain the log.  --no-bpf writes the
 * equivalent log with the scenario synthesizer (cmd/ingero-demo/scenario.c) instead.
 * The explanation is the analysis driver's (lib/analyze/analysis.c), the same
 * as ingero-correlate --report.
 */
#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <getopt.h>
#include <glob.h>
#include <limits.h>
#include <spawn.h>
#include <stdlib.h>
#include <string.h>
#include <linux/loop.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>
#include "ingero/analysis.h"
#include "ingero/cli.h"
#include "demo.h"
#include "ingero/explain.h"
#include "ingero/html.h"
#include "ingero/io.h"
#include "scenario.h"
#if __has_include("demo_config.h")
#include "demo_config.h" /* INGERO_FAKECUDA_DIR, written by cmd/ingero-demo/build.mk */
#endif

extern char **environ;

static void usage(FILE *f)
{
	fprintf(f,
		"ingero-demo - run a bundled scenario end to end and explain it\n\n"
		"USAGE\n  ingero demo [SCENARIO] [OPTIONS]\n  ingero demo --list\n\n"
		"Runs the scenario's workload (real processes calling the fake CUDA libraries\n"
		"built in tests/fakecuda) under ingero-record from the same directory, then\n"
		"prints ingero-correlate's incident report.  Recording needs root; without it\n"
		"(or with --no-bpf) the log is synthesized instead, with the same pattern.\n\n"
		"SCENARIOS (default incident)\n");
	for (const char *const *n = ilog_scenario_names(); *n; n++)
		fprintf(f, "  %-18s %s%s\n", *n, ilog_scenario_help(*n),
			demo_find(*n) ? "" : " (synthetic only)");
	fprintf(f,
		"\nOPTIONS\n"
		"      --no-bpf        synthesize the log instead of recording it\n"
		"      --bpf           record or fail (no synthetic fallback)\n"
		"  -o, --output LOG    keep the log here (default: a temporary file)\n"
		"      --seconds S     run length (default: the scenario's)\n"
		"      --seed N        synthetic runs: the random seed (default 1)\n"
		"      --sync-factor F the GPU work of a step F times longer (regression\n"
		"                      gate demonstrations; default 1)\n"
		"      --two-nodes     the multi-rank scenarios (straggler, hang,\n"
		"                      ranks-clean): record ranks 0-1 and ranks 2-3 with a\n"
		"                      recorder each, as on two nodes (a lock file of its\n"
		"                      own each), and explain the logs merged by\n"
		"                      ingero-merge (default: one recorder for the job)\n"
		"      --sigkill       hang: end the recording with SIGKILL, as when a node\n"
		"                      is lost (the log holds what was written each second)\n"
		"  -j, --json          print ingero-correlate --json instead of the report\n"
		"      --html FILE     also write the report as one web page (ingero-correlate\n"
		"                      --html's)\n"
		"      --check         exit 1 unless the top chain is the staged pattern\n"
		"                      (clean: no HIGH or MEDIUM chain)\n"
		"      --keep          keep the work directory (library copies, log)\n"
		"      --list          list the scenarios\n"
		"  -q, --quiet         errors only: no progress lines or warnings\n"
		"  -v, --verbose       also print the commands run (ingero-record, ...)\n"
		"  -h, --help          this text\n"
		"      --version       print the version\n\n"
		"ENVIRONMENT\n"
		"  INGERO_FAKECUDA_DIR  where libcudart.so.13 of the fake CUDA libraries is\n\n"
		"EXAMPLES\n"
		"  sudo ingero demo incident\n"
		"  ingero demo --no-bpf gpu-contention\n"
		"  sudo ingero demo incident --html incident.html\n"
		"  sudo ingero demo cold-start -o cold.ilog && ingero-export cold.ilog | head\n"
		"  sudo ingero demo straggler --two-nodes -o job.ilog\n\n"
		"EXIT STATUS\n  0 ok, 1 --check: not diagnosed as staged, 2 usage error or failure\n");
}

struct opts {
	const char *scen, *out, *html;
	double seconds, sync_factor;
	uint64_t seed;
	int no_bpf, bpf, json, check, keep, list, two_nodes, sigkill;
};

/* The fake CUDA runtime: $INGERO_FAKECUDA_DIR, an installed tree's
 * (bin/../libexec/ingero, `make install`), the build's, next to bin/. */
static int find_fakecuda(const char *bindir, char *out, size_t n)
{
	const char *cand[5] = { getenv("INGERO_FAKECUDA_DIR"), NULL, NULL, NULL, NULL };
	char a[PATH_MAX + 32], b[PATH_MAX + 32], l[PATH_MAX + 32];
	snprintf(l, sizeof(l), "%s/../libexec/ingero", bindir);
	cand[1] = l;
#ifdef INGERO_FAKECUDA_DIR
	cand[2] = INGERO_FAKECUDA_DIR;
#endif
	snprintf(a, sizeof(a), "%s/../tests/fakecuda", bindir);
	snprintf(b, sizeof(b), "%s/../.output/tests/fakecuda", bindir);
	cand[3] = a;
	cand[4] = b;
	for (int i = 0; i < 5; i++) {
		char p[PATH_MAX + 64];
		if (!cand[i])
			continue;
		snprintf(p, sizeof(p), "%s/libcudart.so.13", cand[i]);
		if (!access(p, R_OK)) {
			snprintf(out, n, "%s", cand[i]);
			return 0;
		}
	}
	return -1;
}

static int copy_file(const char *from, const char *to)
{
	int in = open(from, O_RDONLY | O_CLOEXEC), out = -1, rc = -1;
	if (in < 0)
		return -1;
	out = open(to, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0755);
	char buf[65536];
	ssize_t k;
	if (out >= 0) {
		while ((k = read(in, buf, sizeof(buf))) > 0)
			if (write(out, buf, (size_t)k) != k)
				break;
		rc = k == 0 ? 0 : -1;
	}
	close(in);
	if (out >= 0 && close(out))
		rc = -1;
	return rc;
}

static int rm_entry(const char *p, const struct stat *sb, int flag, struct FTW *ftw)
{
	(void)sb;
	(void)flag;
	(void)ftw;
	return remove(p);
}

static int run_wait(char *const argv[])
{
	pid_t pid;
	int st;
	if (posix_spawn(&pid, argv[0], NULL, NULL, argv, environ)) {
		ilog_errorf("%s: %s", argv[0], strerror(errno));
		return -1;
	}
	while (waitpid(pid, &st, 0) < 0)
		if (errno != EINTR)
			return -1;
	return WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
}

/* The oom workload's memory cgroups (workload.c join_memcg), empty once it
 * is dead: remove them, in this process's cgroup (v1 memory or v2). */
static void rm_cgroups(void)
{
	FILE *f = fopen("/proc/self/cgroup", "r");
	char line[4096];
	while (f && fgets(line, sizeof(line), f)) {
		line[strcspn(line, "\n")] = 0;
		char *a = strchr(line, ':'), *b = a ? strchr(a + 1, ':') : NULL, pat[4300];
		if (!b)
			continue;
		*b = 0;
		if (strstr(a + 1, "memory"))
			snprintf(pat, sizeof(pat), "/sys/fs/cgroup/memory%s/ingero-demo-*", b + 1);
		else if (!a[1])
			snprintf(pat, sizeof(pat), "/sys/fs/cgroup%s/ingero-demo-*", b + 1);
		else
			continue;
		glob_t g;
		if (!glob(pat, GLOB_ONLYDIR, NULL, &g)) {
			for (size_t i = 0; i < g.gl_pathc; i++)
				rmdir(g.gl_pathv[i]);
			globfree(&g);
		}
	}
	if (f)
		fclose(f);
}

/* The demo's Kubernetes-like containers: the cgroup path a container
 * runtime gives a pod's container (cgroupfs driver), under ours.  The
 * sidecar's (another tenant's pod) and, in the scenarios with neighbours,
 * the job's own. */
#define SIDECAR_POD "0d3e0000-1111-4222-8333-444455556666"
#define SIDECAR_CTR "c0ffee00c0ffee00c0ffee00c0ffee00c0ffee00c0ffee00c0ffee00c0ffee00"
#define JOB_POD "7a1b0000-2222-4333-8444-555566667777"
#define JOB_CTR "feed0000feed0000feed0000feed0000feed0000feed0000feed0000feed0000"
#define NCGDIRS 4
static const char *const sidecar_dirs[NCGDIRS] = { "kubepods", "besteffort", "pod" SIDECAR_POD,
						   SIDECAR_CTR };
static const char *const job_dirs[NCGDIRS] = { "kubepods", "besteffort", "pod" JOB_POD, JOB_CTR };

/* Make a container's cgroup folders under this process's cgroup (in the
 * hierarchy the recorder reads: v1 memory, or v2).  The leaf into cg, or
 * "" when cgroups cannot be made (the process then runs in ours). */
static void make_ctr_cgroup(const char *const dirs[NCGDIRS], char *cg, size_t n)
{
	FILE *f = fopen("/proc/self/cgroup", "r");
	char line[4096], self[4096] = "";
	int v1 = access("/sys/fs/cgroup/cgroup.controllers", F_OK) &&
		 !access("/sys/fs/cgroup/memory", F_OK);
	while (f && fgets(line, sizeof(line), f)) {
		line[strcspn(line, "\n")] = 0;
		char *a = strchr(line, ':'), *b = a ? strchr(a + 1, ':') : NULL;
		if (!b)
			continue;
		*b = 0;
		if (v1 ? !!strstr(a + 1, "memory") : (!strcmp(line, "0") && !a[1]))
			snprintf(self, sizeof(self), "%s", strcmp(b + 1, "/") ? b + 1 : "");
	}
	if (f)
		fclose(f);
	cg[0] = 0;
	char dir[PATH_MAX];
	int l = snprintf(dir, sizeof(dir), "/sys/fs/cgroup%s%s", v1 ? "/memory" : "", self);
	for (size_t i = 0; i < NCGDIRS; i++) {
		l += snprintf(dir + l, sizeof(dir) - (size_t)l, "/%s", dirs[i]);
		if (l >= (int)sizeof(dir) || (mkdir(dir, 0755) && errno != EEXIST))
			return;
	}
	snprintf(cg, n, "%s", dir);
}

/* Remove a container's cgroup and the folders above it that are empty. */
static void rm_ctr_cgroup(const char *cg)
{
	char dir[PATH_MAX];
	snprintf(dir, sizeof(dir), "%s", cg);
	for (size_t i = 0; dir[0] && i < NCGDIRS; i++) {
		rmdir(dir);
		char *slash = strrchr(dir, '/');
		if (!slash)
			break;
		*slash = 0;
	}
}

#define DISK_BYTES (64u << 20)

/*
 * The disk scenarios' device: a loop device (CONFIG_BLK_DEV_LOOP) over
 * WORK/disk.img, 64 MiB of data, named with its size in WORK/disk for the
 * workload and the sidecar.  Returns the device's descriptor, held open
 * until the run ends: the device is set to clear itself when its last user
 * closes it, so nothing is left attached however the run ends.  -1 after
 * a message when none can be made.
 */
static int attach_disk(const char *work)
{
	char img[PATH_MAX + 64], dev[64] = "";
	snprintf(img, sizeof(img), "%s/disk.img", work);
	int fi = open(img, O_RDWR | O_CREAT | O_EXCL, 0644), fd = -1;
	static char chunk[1u << 20];
	uint64_t x = 0x9E3779B97F4A7C15ull;
	for (unsigned i = 0; fi >= 0 && i < DISK_BYTES / sizeof(chunk); i++) {
		for (size_t k = 0; k < sizeof(chunk); k += 8) {
			x ^= x << 13, x ^= x >> 7, x ^= x << 17;
			memcpy(chunk + k, &x, 8);
		}
		if (write(fi, chunk, sizeof(chunk)) != (ssize_t)sizeof(chunk)) {
			ilog_errorf("%s: %s", img, strerror(errno));
			close(fi);
			return -1;
		}
	}
	int ctl = fi >= 0 ? open("/dev/loop-control", O_RDWR) : -1;
	for (int tries = 0; ctl >= 0 && fd < 0 && tries < 8; tries++) {
		int nr = ioctl(ctl, LOOP_CTL_GET_FREE);
		if (nr < 0)
			break;
		snprintf(dev, sizeof(dev), "/dev/loop%d", nr);
		if (access(dev, F_OK)) /* no udev here: make the node */
			mknod(dev, S_IFBLK | 0660, makedev(7, (unsigned)nr));
		fd = open(dev, O_RDWR);
		if (fd >= 0 && ioctl(fd, LOOP_SET_FD, fi)) {
			close(fd); /* taken meanwhile: the next free one */
			fd = -1;
		}
	}
	if (ctl >= 0)
		close(ctl);
	if (fd < 0) {
		ilog_errorf("cannot attach a loop device to %s: %s", img, strerror(errno));
		if (fi >= 0)
			close(fi);
		return -1;
	}
	struct loop_info64 li = { .lo_flags = LO_FLAGS_AUTOCLEAR };
	snprintf((char *)li.lo_file_name, sizeof(li.lo_file_name), "%.63s", img);
	ioctl(fd, LOOP_SET_STATUS64, &li);
	/* the loop device reads its file with direct I/O: requests reach the
	 * disk under it and queue there, as on a real one (a file system
	 * without O_DIRECT keeps the page cache: the device is then fast) */
	fsync(fi);
	if (ioctl(fd, LOOP_SET_DIRECT_IO, 1ul))
		ilog_warnf("%s: the loop device reads it through the page cache (%s): another "
			   "reader may not slow it down", img, strerror(errno));
	close(fi);
	char path[PATH_MAX + 64];
	snprintf(path, sizeof(path), "%s/disk", work);
	FILE *f = fopen(path, "w");
	if (!f || fprintf(f, "%s %u\n", dev, DISK_BYTES) < 0 || fclose(f)) {
		ilog_errorf("%s: %s", path, strerror(errno));
		close(fd);
		return -1;
	}
	if (ilog_verbosity >= 0)
		fprintf(stderr, "%s: the job's data on %s (a loop device over %s)\n", ilog_prog, dev,
			img);
	return fd;
}

/* Start the scenario's host process (not the job's: not a target) through
 * the preproc symlink (a neighbour's CPU load: the neighbour one; the disk
 * readers: the indexer one), in a container's cgroup where one can be made. */
static pid_t start_sidecar(const char *kind, const char *work, char *cg, size_t n)
{
	char path[PATH_MAX + 64];
	snprintf(path, sizeof(path), "%s/bin/%s", work,
		 !strcmp(kind, "hog") || !strcmp(kind, "quiet") ? "neighbour"
		 : !strncmp(kind, "disk", 4)			 ? "indexer"
		 : !strncmp(kind, "lossy", 5) || !strcmp(kind, "peer") ? "rank1"
								 : "preproc");
	make_ctr_cgroup(sidecar_dirs, cg, n);
	char *argv[] = { path, "--sidecar", (char *)kind, (char *)work, cg, NULL };
	pid_t pid;
	if (posix_spawn(&pid, path, NULL, NULL, argv, environ)) {
		ilog_warnf("%s: %s", path, strerror(errno));
		rm_ctr_cgroup(cg);
		return -1;
	}
	return pid;
}

/* A line of a cgroup file (cpu.max, cgroup.subtree_control): 0 or -1. */
static int put_cg(const char *dir, const char *file, const char *text)
{
	char path[PATH_MAX + 64];
	snprintf(path, sizeof(path), "%s/%s", dir, file);
	FILE *f = fopen(path, "w");
	if (!f)
		return -1;
	int bad = fputs(text, f) < 0;
	return fclose(f) || bad ? -1 : 0;
}

/* The CPU quota of the cpu-quota scenarios' container, in microseconds per
 * 100 ms period: 0.1 CPU (the job needs a third of a CPU: it is throttled
 * most of the time, well below what it gets even on a busy 2-CPU host) or
 * 2 CPUs (never reached); 0 for the other scenarios. */
static long job_quota_us(const char *scen)
{
	return !strcmp(scen, "cpu-quota") ? 10000 : !strcmp(scen, "cpu-quota-ok") ? 200000 : 0;
}

/*
 * The job container's cgroup in the hierarchy of the cpu controller, with
 * a quota of quota microseconds per 100 ms: the unified hierarchy where it
 * offers cpu (enabled from this process's cgroup down to the container's),
 * else the v1 cpu controller's.  Its folder into cg ("" when none can be
 * made, or when it is v2's folder v2cg the job joins anyway).
 */
static void make_cpu_cgroup(long quota, const char *v2cg, char *cg, size_t n)
{
	char ctl[256] = "", q[64];
	int v2 = !access("/sys/fs/cgroup/cgroup.controllers", F_OK);
	FILE *f = v2 ? fopen("/sys/fs/cgroup/cgroup.controllers", "r") : NULL;
	if (f) {
		if (!fgets(ctl, sizeof(ctl), f))
			ctl[0] = 0;
		fclose(f);
	}
	cg[0] = 0;
	if (v2) {
		/* each folder from ours down to the pod's hands cpu down */
		char dir[PATH_MAX];
		snprintf(dir, sizeof(dir), "%s", v2cg);
		if (!dir[0] || !strstr(ctl, "cpu"))
			return;
		for (int i = 0; i < NCGDIRS; i++) {
			char *slash = strrchr(dir, '/');
			if (!slash)
				return;
			*slash = 0;
		}
		char *end = dir + strlen(dir);
		for (int i = 0; i < NCGDIRS; i++) {
			if (put_cg(dir, "cgroup.subtree_control", "+cpu"))
				ilog_warnf("%s: cannot enable the cpu controller: %s", dir,
					   strerror(errno));
			if (i < NCGDIRS - 1)
				end += snprintf(end, sizeof(dir) - (size_t)(end - dir), "/%s",
						job_dirs[i]);
		}
		snprintf(q, sizeof(q), "%ld 100000", quota);
		if (put_cg(v2cg, "cpu.max", q))
			ilog_warnf("%s/cpu.max: %s", v2cg, strerror(errno));
		return;
	}
	/* v1: the cpu controller's mount and our cgroup in it */
	char line[4096], self[4096] = "", root[64] = "/sys/fs/cgroup/cpu";
	f = fopen("/proc/self/cgroup", "r");
	while (f && fgets(line, sizeof(line), f)) {
		line[strcspn(line, "\n")] = 0;
		char *a = strchr(line, ':'), *b = a ? strchr(a + 1, ':') : NULL;
		if (!b)
			continue;
		*b = 0;
		char list[300];
		snprintf(list, sizeof(list), ",%s,", a + 1);
		if (strstr(list, ",cpu,")) {
			snprintf(self, sizeof(self), "%s", strcmp(b + 1, "/") ? b + 1 : "");
			snprintf(root, sizeof(root), "/sys/fs/cgroup/%.40s", a + 1);
			if (access(root, F_OK))
				snprintf(root, sizeof(root), "/sys/fs/cgroup/cpu");
		}
	}
	if (f)
		fclose(f);
	char dir[PATH_MAX];
	int l = snprintf(dir, sizeof(dir), "%s%s", root, self);
	for (size_t i = 0; i < NCGDIRS; i++) {
		l += snprintf(dir + l, sizeof(dir) - (size_t)l, "/%s", job_dirs[i]);
		if (l >= (int)sizeof(dir) || (mkdir(dir, 0755) && errno != EEXIST))
			return;
	}
	snprintf(q, sizeof(q), "%ld", quota);
	if (put_cg(dir, "cpu.cfs_period_us", "100000") || put_cg(dir, "cpu.cfs_quota_us", q)) {
		ilog_warnf("%s: cannot set a CPU quota: %s", dir, strerror(errno));
		rm_ctr_cgroup(dir);
		return;
	}
	snprintf(cg, n, "%s", dir);
}

/* The job's own container (scenarios with a neighbour, the CPU quota
 * ones): its cgroup into cg (and, with a CPU quota, its cpu controller's
 * into cpucg when that is another folder) and WORK/job.cg, the folders a
 * line each, which the workload joins before it starts (and exec's itself
 * again there, so the recorder reads its cgroup anew). */
static void make_job_cgroup(const char *work, const char *scen, char *cg, char *cpucg, size_t n)
{
	char path[PATH_MAX + 64];
	make_ctr_cgroup(job_dirs, cg, n);
	cpucg[0] = 0;
	if (job_quota_us(scen))
		make_cpu_cgroup(job_quota_us(scen), cg, cpucg, n);
	snprintf(path, sizeof(path), "%s/job.cg", work);
	FILE *f = cg[0] || cpucg[0] ? fopen(path, "w") : NULL;
	if (f && (fprintf(f, "%s\n%s\n", cg, cpucg) < 0) + fclose(f))
		unlink(path);
}

/* WORK/bin: the names the workload and its helpers are exec'd by (links
 * to this program), so the log shows them.  0, or -1 after a message. */
static int make_bin(const char *work, const char *exe)
{
	char path[PATH_MAX + 64];
	snprintf(path, sizeof(path), "%s/bin", work);
	if (mkdir(path, 0755)) {
		ilog_errorf("%s: %s", path, strerror(errno));
		return -1;
	}
	static const char *const names[] = { "train",	  "backup", "infer",   "memhog", "preproc",
					     "neighbour", "loader", "indexer", "rank0",	 "rank1",
					     "rank2",	  "rank3" };
	for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++) {
		snprintf(path, sizeof(path), "%s/bin/%s", work, names[i]);
		if (symlink(exe, path)) {
			ilog_errorf("%s: %s", path, strerror(errno));
			return -1;
		}
	}
	return 0;
}

/* Record the scenario for real into log.  0, or -1 after a message. */
static int record(const struct opts *o, const struct demo_scenario *s, const char *bindir,
		  const char *exe, const char *fake, const char *work, const char *log)
{
	char path[PATH_MAX + 64], dst[PATH_MAX + 64], secs[32];
	char *argv[32];
	char libs[4][PATH_MAX + 160];
	int n = 0;
	if (make_bin(work, exe))
		return -1;
	snprintf(path, sizeof(path), "%s/ingero-record", bindir);
	argv[n++] = path;
	argv[n++] = "-q";
	argv[n++] = "-o";
	argv[n++] = (char *)log;
	snprintf(dst, sizeof(dst), "%s/libcudart.so.13", fake);
	for (int i = 0; s->copies[i]; i++) {
		char dir[PATH_MAX + 80];
		snprintf(dir, sizeof(dir), "%s/%s", work, s->copies[i]);
		snprintf(libs[i], sizeof(libs[i]), "%s/libcudart.so.13", dir);
		if (mkdir(dir, 0755) || copy_file(dst, libs[i])) {
			ilog_errorf("%s: cannot copy %s: %s", libs[i], dst, strerror(errno));
			return -1;
		}
		argv[n++] = "--cuda-lib";
		argv[n++] = libs[i];
	}
	/* the net scenarios' collectives: the fake NCCL beside the base copy */
	char nccl[2][PATH_MAX + 160];
	if (!strncmp(s->name, "net-", 4)) {
		snprintf(nccl[0], sizeof(nccl[0]), "%s/libnccl.so.2", fake);
		snprintf(nccl[1], sizeof(nccl[1]), "%s/base/libnccl.so.2", work);
		if (copy_file(nccl[0], nccl[1])) {
			ilog_errorf("%s: cannot copy %s: %s", nccl[1], nccl[0], strerror(errno));
			return -1;
		}
		argv[n++] = "--cuda-lib";
		argv[n++] = nccl[1];
	}
	char train[PATH_MAX + 64], factor[32];
	snprintf(train, sizeof(train), "%s/bin/train", work);
	snprintf(secs, sizeof(secs), "%g", o->seconds > 0 ? o->seconds : s->seconds);
	snprintf(factor, sizeof(factor), "%g", o->sync_factor > 0 ? o->sync_factor : 1);
	argv[n++] = "--";
	argv[n++] = train;
	argv[n++] = "--workload";
	argv[n++] = (char *)s->name;
	argv[n++] = secs;
	argv[n++] = (char *)work;
	argv[n++] = factor;
	argv[n] = NULL;
	if (ILOG_VERBOSE(1)) {
		fprintf(stderr, "%s: running", ilog_prog);
		for (int i = 0; i < n; i++)
			fprintf(stderr, " %s", argv[i]);
		fprintf(stderr, "\n");
	}
	if (ilog_verbosity >= 0)
		fprintf(stderr, "%s: recording '%s' for %s s with ingero-record (fake CUDA libraries, "
			"real eBPF)...\n", ilog_prog, s->name, secs);
	char cg[PATH_MAX] = "", jcg[PATH_MAX] = "", ccg[PATH_MAX] = "";
	if (s->job_container)
		make_job_cgroup(work, s->name, jcg, ccg, sizeof(jcg));
	int disk = !strncmp(s->name, "disk-", 5) ? attach_disk(work) : -1;
	if (!strncmp(s->name, "disk-", 5) && disk < 0)
		return -1;
	pid_t side = s->sidecar ? start_sidecar(s->sidecar, work, cg, sizeof(cg)) : -1;
	int rc = run_wait(argv);
	if (side > 0) {
		kill(side, SIGTERM);
		waitpid(side, NULL, 0);
		rm_ctr_cgroup(cg);
	}
	if (jcg[0])
		rm_ctr_cgroup(jcg); /* the job has exited: its cgroup is empty */
	if (ccg[0])
		rm_ctr_cgroup(ccg);
	if (!strcmp(s->name, "oom"))
		rm_cgroups();
	if (disk >= 0)
		close(disk); /* the last user: the loop device clears itself */
	struct stat sb;
	/* the oom scenario's workload dies by design; the log still tells */
	if (rc && !(!strcmp(s->name, "oom") && !stat(log, &sb) && sb.st_size > 0)) {
		ilog_errorf("ingero-record failed (exit %d)", rc);
		return -1;
	}
	return 0;
}

/* ---- the multi-rank scenarios ---- */

#define MAX_RANKS 8
#define NODE_RANKS 2 /* --two-nodes: ranks per node */

static uint64_t mono_ns(void)
{
	struct timespec t;
	clock_gettime(CLOCK_MONOTONIC, &t);
	return (uint64_t)t.tv_sec * 1000000000ull + (uint64_t)t.tv_nsec;
}

/* Start argv with stderr into errpath (NULL: ours) and the environment
 * plus `extra` (NAME=VALUE strings replacing ours, NULL-terminated); in a
 * session of its own when setsid. */
static pid_t spawn_env(char *const argv[], const char *errpath, char *const extra[], int setsid)
{
	size_t n = 0, k = 0;
	while (environ[n])
		n++;
	char **env = calloc(n + 8, sizeof(*env));
	if (!env)
		return -1;
	for (size_t i = 0; i < n; i++) {
		int replaced = 0;
		for (size_t j = 0; extra && extra[j] && !replaced; j++) {
			size_t l = strcspn(extra[j], "=");
			replaced = !strncmp(environ[i], extra[j], l + 1);
		}
		if (!replaced)
			env[k++] = environ[i];
	}
	for (size_t j = 0; extra && extra[j] && j < 7; j++)
		env[k++] = extra[j];
	posix_spawn_file_actions_t fa;
	posix_spawnattr_t at;
	posix_spawn_file_actions_init(&fa);
	posix_spawnattr_init(&at);
	if (errpath)
		posix_spawn_file_actions_addopen(&fa, 2, errpath, O_WRONLY | O_CREAT | O_TRUNC, 0644);
	if (setsid)
		posix_spawnattr_setflags(&at, POSIX_SPAWN_SETSID);
	pid_t pid;
	int e = posix_spawn(&pid, argv[0], &fa, &at, argv, env);
	posix_spawn_file_actions_destroy(&fa);
	posix_spawnattr_destroy(&at);
	free(env);
	if (e) {
		ilog_errorf("%s: %s", argv[0], strerror(e));
		return -1;
	}
	return pid;
}

/* Has pid exited?  Its status into *st then (reaped). */
static int exited(pid_t pid, int *st)
{
	return waitpid(pid, st, WNOHANG) == pid;
}

/* Does the file hold the text (a recorder's start line)? */
static int file_has(const char *path, const char *text)
{
	FILE *f = fopen(path, "r");
	char line[1024];
	int found = 0;
	while (f && !found && fgets(line, sizeof(line), f))
		found = !!strstr(line, text);
	if (f)
		fclose(f);
	return found;
}

/* A recorder's stderr, indented, after a failure. */
static void show_err(const char *path)
{
	FILE *f = fopen(path, "r");
	char line[1024];
	while (f && fgets(line, sizeof(line), f))
		fprintf(stderr, "  %s", line);
	if (f)
		fclose(f);
}

/* SIGINT (sig) the recorders, wait for them; 0 if each exited 0 (by
 * SIGKILL when that was sig). */
static int stop_recorders(pid_t *rec, int nrec, char errs[][PATH_MAX + 64], int sig)
{
	int rc = 0;
	for (int i = 0; i < nrec; i++)
		if (rec[i] > 0)
			kill(rec[i], sig);
	for (int i = 0; i < nrec; i++) {
		int st = 0;
		if (rec[i] <= 0)
			continue;
		while (waitpid(rec[i], &st, 0) < 0 && errno == EINTR)
			;
		rec[i] = 0;
		if (sig == SIGKILL && WIFSIGNALED(st) && WTERMSIG(st) == SIGKILL)
			continue;
		if (!WIFEXITED(st) || WEXITSTATUS(st)) {
			ilog_errorf("ingero-record (node %d) failed (%s %d)", i,
				    WIFEXITED(st) ? "exit" : "signal",
				    WIFEXITED(st) ? WEXITSTATUS(st) : WTERMSIG(st));
			show_err(errs[i]);
			rc = -1;
		}
	}
	return rc;
}

/*
 * Record a multi-rank scenario (s->ranks ranks, workload.c demo_rank) into
 * log.  The ranks are processes of their own, started here as a launcher
 * starts them (RANK, WORLD_SIZE, LOCAL_RANK set), named WORK/bin/rankR.
 * Once each has loaded the libraries, the recorders attach to them by
 * --pid: one for the job, or with --two-nodes one per "node" of
 * NODE_RANKS ranks, each with a lock file of its own (INGERO_RECORD_LOCK)
 * as on machines of their own, their logs merged by ingero-merge with the
 * nodes named node-a, node-b.  Then the job starts (WORK/go, with its
 * timeline) and ends by itself -- but for the hang, whose recording is
 * stopped after the scenario's seconds, the job then killed.  0, or -1
 * after a message.
 */
static int record_ranks(const struct opts *o, const struct demo_scenario *s, const char *bindir,
			const char *exe, const char *fake, const char *work, const char *log)
{
	char path[PATH_MAX + 64], from[PATH_MAX + 64], secs[32], factor[32];
	int nr = s->ranks < MAX_RANKS ? s->ranks : MAX_RANKS;
	int nrec = o->two_nodes ? (nr + NODE_RANKS - 1) / NODE_RANKS : 1;
	pid_t rank[MAX_RANKS] = { 0 }, rec[MAX_RANKS] = { 0 };
	char errs[MAX_RANKS][PATH_MAX + 64], logs[MAX_RANKS][PATH_MAX + 64];
	int rc = -1, hang = !strcmp(s->name, "hang");
	if (make_bin(work, exe))
		return -1;
	snprintf(path, sizeof(path), "%s/base", work);
	if (mkdir(path, 0755))
		goto io;
	static const char *const libs[] = { "libcudart.so.13", "libnccl.so.2" };
	for (int i = 0; i < 2; i++) {
		snprintf(from, sizeof(from), "%s/%s", fake, libs[i]);
		snprintf(path, sizeof(path), "%s/base/%s", work, libs[i]);
		if (copy_file(from, path)) {
			ilog_errorf("%s: cannot copy %s: %s", path, from, strerror(errno));
			return -1;
		}
	}
	double sec = o->seconds > 0 ? o->seconds : s->seconds;
	snprintf(secs, sizeof(secs), "%g", sec);
	snprintf(factor, sizeof(factor), "%g", o->sync_factor > 0 ? o->sync_factor : 1);
	for (int r = 0; r < nr; r++) {
		char name[PATH_MAX + 64], rs[16], env[3][32];
		snprintf(name, sizeof(name), "%s/bin/rank%d", work, r);
		snprintf(rs, sizeof(rs), "%d", r);
		snprintf(env[0], sizeof(env[0]), "RANK=%d", r);
		snprintf(env[1], sizeof(env[1]), "WORLD_SIZE=%d", nr);
		snprintf(env[2], sizeof(env[2]), "LOCAL_RANK=%d", o->two_nodes ? r % NODE_RANKS : r);
		char *argv[] = { name, "--rank", (char *)s->name, rs, secs, (char *)work, factor, NULL };
		char *extra[] = { env[0], env[1], env[2], NULL };
		if ((rank[r] = spawn_env(argv, NULL, extra, 1)) < 0)
			goto out;
	}
	/* every rank has loaded the libraries: 30 s at most */
	for (int r = 0, i = 0; r < nr; i++) {
		int st;
		snprintf(path, sizeof(path), "%s/ready.%d", work, r);
		if (!access(path, F_OK)) {
			r++;
			continue;
		}
		if (exited(rank[r], &st)) {
			rank[r] = 0;
			ilog_errorf("rank %d exited before it started (status %d)", r, st);
			goto out;
		}
		if (i > 3000) {
			ilog_errorf("rank %d did not load its libraries in 30 s", r);
			goto out;
		}
		usleep(10000);
	}
	if (ilog_verbosity >= 0) {
		fprintf(stderr, "%s: recording '%s' for %s s with ingero-record (fake CUDA and NCCL "
			"libraries, real eBPF): %d ranks, ", ilog_prog, s->name, secs, nr);
		if (nrec == 1)
			fprintf(stderr, "one recorder\n");
		else
			fprintf(stderr, "a recorder for each %d (two nodes)...\n", NODE_RANKS);
	}
	for (int i = 0; i < nrec; i++) {
		char pids[MAX_RANKS * 16] = "", lock[PATH_MAX + 64], cudart[PATH_MAX + 64];
		char nccl[PATH_MAX + 64], rpath[PATH_MAX + 64];
		int a = nrec == 1 ? 0 : i * NODE_RANKS, b = nrec == 1 ? nr : a + NODE_RANKS;
		for (int r = a; r < b && r < nr; r++)
			snprintf(pids + strlen(pids), sizeof(pids) - strlen(pids), "%s%d",
				 pids[0] ? "," : "", (int)rank[r]);
		snprintf(logs[i], sizeof(logs[i]), "%s", log);
		if (nrec > 1)
			snprintf(logs[i], sizeof(logs[i]), "%s/node-%c.ilog", work, 'a' + i);
		snprintf(errs[i], sizeof(errs[i]), "%s/record-%c.err", work, 'a' + i);
		snprintf(rpath, sizeof(rpath), "%s/ingero-record", bindir);
		snprintf(cudart, sizeof(cudart), "%s/base/libcudart.so.13", work);
		snprintf(nccl, sizeof(nccl), "%s/base/libnccl.so.2", work);
		snprintf(lock, sizeof(lock), "INGERO_RECORD_LOCK=%s/node-%c.lock", work, 'a' + i);
		char *argv[] = { rpath, "-o", logs[i], "--pid", pids, "--cuda-lib", cudart,
				 "--cuda-lib", nccl, NULL };
		char *extra[] = { lock, NULL };
		if (ILOG_VERBOSE(1)) {
			fprintf(stderr, "%s: running%s%s", ilog_prog, nrec > 1 ? " " : "",
				nrec > 1 ? lock : "");
			for (int k = 0; argv[k]; k++)
				fprintf(stderr, " %s", argv[k]);
			fprintf(stderr, "\n");
		}
		/* the one recorder of a job takes the machine's lock, as a
		 * recorder of its own would */
		if ((rec[i] = spawn_env(argv, errs[i], nrec > 1 ? extra : NULL, 0)) < 0)
			goto out;
	}
	/* attached: each says so on stderr (not -q), 30 s at most */
	for (int i = 0, k = 0; i < nrec; k++) {
		int st;
		if (file_has(errs[i], "recording to")) {
			i++;
			continue;
		}
		if (exited(rec[i], &st) || k > 3000) {
			ilog_errorf("ingero-record (node %d) %s", i,
				    k > 3000 ? "did not attach in 30 s" : "failed to start");
			if (k <= 3000)
				rec[i] = 0;
			show_err(errs[i]);
			goto out;
		}
		usleep(10000);
	}
	uint64_t t0 = mono_ns() + 300000000ull, span = (uint64_t)(sec * 1e9);
	snprintf(from, sizeof(from), "%llu %llu\n", (unsigned long long)t0, (unsigned long long)span);
	snprintf(path, sizeof(path), "%s/go", work);
	FILE *f = fopen(path, "w");
	if (!f || fputs(from, f) < 0 || fclose(f))
		goto io;
	if (hang) {
		/* the job hangs: stop recording after its time, then kill it */
		while (mono_ns() < t0 + span)
			usleep(20000);
	} else {
		/* the job ends by itself, a little after its time */
		for (int r = 0; r < nr;) {
			int st;
			if (exited(rank[r], &st)) {
				rank[r] = 0;
				if (!WIFEXITED(st) || WEXITSTATUS(st)) {
					ilog_errorf("rank %d failed (status %d)", r, st);
					goto out;
				}
				r++;
				continue;
			}
			if (mono_ns() > t0 + span + 30000000000ull) {
				ilog_errorf("the job did not end 30 s after its time");
				goto out;
			}
			usleep(20000);
		}
	}
	/* --sigkill: as when a node is lost, the log up to its last frame */
	rc = stop_recorders(rec, nrec, errs, hang && o->sigkill ? SIGKILL : SIGINT);
	if (!rc && nrec > 1) {
		char mpath[PATH_MAX + 64], names[MAX_RANKS][16];
		char *argv[8 + 3 * MAX_RANKS];
		int n = 0;
		snprintf(mpath, sizeof(mpath), "%s/ingero-merge", bindir);
		argv[n++] = mpath;
		argv[n++] = "-q";
		argv[n++] = "-o";
		argv[n++] = (char *)log;
		argv[n++] = "--force-node"; /* one host: name each recording a node */
		for (int i = 0; i < nrec; i++) {
			snprintf(names[i], sizeof(names[i]), "node-%c", 'a' + i);
			argv[n++] = "--node";
			argv[n++] = names[i];
			argv[n++] = logs[i];
		}
		argv[n] = NULL;
		if (ILOG_VERBOSE(1)) {
			fprintf(stderr, "%s: running", ilog_prog);
			for (int k = 0; argv[k]; k++)
				fprintf(stderr, " %s", argv[k]);
			fprintf(stderr, "\n");
		}
		int m = run_wait(argv);
		if (m) {
			ilog_errorf("ingero-merge failed (exit %d)", m);
			rc = -1;
		}
	}
	goto out;
io:
	ilog_errorf("%s: %s", path, strerror(errno));
	rc = -1;
out:
	stop_recorders(rec, nrec, errs, SIGINT); /* after a failure: none left running */
	for (int r = 0; r < nr; r++)
		if (rank[r] > 0) {
			kill(rank[r], SIGKILL);
			waitpid(rank[r], NULL, 0);
		}
	return rc;
}

/* ingero-symbolize LOG -o OUT, from the same directory; 0 when it worked
 * (without it the report still stands, with Python call sites only). */
static int symbolize(const char *bindir, const char *log, const char *out)
{
	char path[PATH_MAX + 64];
	snprintf(path, sizeof(path), "%s/ingero-symbolize", bindir);
	if (access(path, X_OK))
		return -1;
	char *argv[] = { path, "-q", (char *)log, "-o", (char *)out, NULL };
	return run_wait(argv);
}

static int synthesize(const struct opts *o, const char *log)
{
	int fd = open(log, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
	if (fd < 0) {
		ilog_errorf("%s: %s", log, strerror(errno));
		return -1;
	}
	char err[256];
	struct ilog_writer_opts wo = { .frame_ms = ILOG_FRAME_MS_OFF };
	struct ilog_writer *w = ilog_writer_open(fd, &wo, err, sizeof(err));
	struct ilog_scenario_opts so = { .name = o->scen, .seed = o->seed, .seconds = o->seconds,
					 .sync_factor = o->sync_factor };
	int rc = !w || ilog_scenario_write(w, &so, err, sizeof(err));
	if (w && ilog_writer_close(w, rc ? NULL : err, sizeof(err)))
		rc = 1;
	close(fd);
	if (rc)
		ilog_errorf("%s: %s", log, err);
	return rc ? -1 : 0;
}

/* Explain the log as ingero-correlate --report (or --json) would. */
static int explain(const struct opts *o, const char *log, const char *expect, int synthetic)
{
	int fd = open(log, O_RDONLY | O_CLOEXEC);
	char err[256];
	struct ilog_reader *r = fd < 0 ? NULL : ilog_reader_open(fd, err, sizeof(err));
	if (!r) {
		ilog_errorf("%s: %s", log, fd < 0 ? strerror(errno) : err);
		if (fd >= 0)
			close(fd);
		return ILOG_EXIT_USAGE;
	}
	/* the analysis of ingero-correlate with its default options */
	struct ilog_analysis *a = ilog_analysis_new(&(struct ilog_analysis_opts){ .callsites = 1 });
	const struct ilog_record *rec;
	int k = 0, rc = 0;
	while (a && (k = ilog_reader_next(r, &rec)) > 0)
		if (ilog_analysis_add(a, rec, r))
			break;
	if (k < 0) {
		ilog_errorf("%s: %s", log, ilog_reader_error(r));
		rc = ILOG_EXIT_USAGE;
	}
	ilog_reader_close(r);
	close(fd);
	if (!a || ilog_analysis_finish(a, 1)) {
		ilog_errorf("out of memory");
		ilog_analysis_free(a);
		return ILOG_EXIT_USAGE;
	}
	struct ilog_stats *st = ilog_analysis_stats(a);
	const struct ilog_chain_set *cs = ilog_analysis_chains(a);
	const struct ilog_callsites *sites = ilog_analysis_sites(a);
	struct ilog_buf b = { 0 };
	struct ilog_explain_opts eo = { .max_timeline = 8, .name = o->out, /* temp: no name */
					.sites = sites };
	if (o->json) {
		ilog_explain_json(&b, st, cs, &eo);
	} else {
		char line[512];
		snprintf(line, sizeof(line), "ingero demo: %s - %s\n(%s)\n\n", o->scen,
			 ilog_scenario_help(o->scen) ? ilog_scenario_help(o->scen) : "",
			 synthetic ? "synthesized log: --no-bpf" : "recorded with ingero-record: fake CUDA "
			 "libraries, real eBPF uprobes and tracepoints");
		ilog_buf_put(&b, line, strlen(line));
		ilog_explain_report(&b, st, cs, &eo);
	}
	if (o->html) {
		char note[512];
		snprintf(note, sizeof(note), "ingero demo %s: %s (%s)", o->scen,
			 ilog_scenario_help(o->scen) ? ilog_scenario_help(o->scen) : "",
			 synthetic ? "synthesized log" : "recorded with ingero-record on the fake CUDA "
			 "libraries");
		struct ilog_html_opts ho = { .name = o->out, .note = note, .sites = sites };
		struct ilog_buf h = { 0 };
		struct ilog_out dst;
		if (ilog_out_open(&dst, o->html, NULL, 0, NULL)) {
			rc = ILOG_EXIT_USAGE;
		} else {
			int bad = ilog_html_report(&h, st, cs, &ho) || ilog_write_all(dst.fd, h.p, h.len);
			if (bad)
				ilog_errorf("%s: write error", o->html);
			if (ilog_out_close(&dst, !bad) || bad)
				rc = ILOG_EXIT_USAGE;
		}
		ilog_buf_free(&h);
	}
	/* did ingero find what the scenario staged? */
	int as_staged;
	if (!expect[0]) {
		as_staged = 1;
		for (uint32_t i = 0; i < cs->n; i++)
			if (cs->chains[i].severity >= ILOG_SEV_MEDIUM)
				as_staged = 0;
	} else {
		as_staged = cs->n && cs->chains[0].pattern.n == strlen(expect) &&
			    !memcmp(cs->chains[0].pattern.p, expect, cs->chains[0].pattern.n);
	}
	if (!o->json) {
		char line[256];
		if (expect[0])
			snprintf(line, sizeof(line), "\ndemo check: staged %s; %s\n", expect,
				 as_staged ? "ingero ranked it first" : "ingero did NOT rank it first");
		else
			snprintf(line, sizeof(line), "\ndemo check: nothing staged; %s\n",
				 as_staged ? "no HIGH or MEDIUM chain" : "ingero reported a HIGH or MEDIUM chain");
		ilog_buf_put(&b, line, strlen(line));
	}
	if (fwrite(b.p, 1, b.len, stdout) != b.len)
		rc = ILOG_EXIT_USAGE;
	ilog_buf_free(&b);
	ilog_analysis_free(a);
	if (!rc && o->check && !as_staged)
		rc = ILOG_EXIT_FINDING;
	return rc;
}

int main(int argc, char **argv)
{
	/* the hidden modes the recorder runs */
	if (argc >= 5 && !strcmp(argv[1], "--workload")) {
		const struct demo_scenario *s = demo_find(argv[2]);
		if (s && s->job_container && !getenv("INGERO_DEMO_JOINED")) {
			/* into the job's container, then exec'd again: the recorder
			 * writes the process record anew, with that cgroup */
			char path[PATH_MAX + 16], cg[PATH_MAX];
			snprintf(path, sizeof(path), "%s/job.cg", argv[4]);
			FILE *f = fopen(path, "r");
			while (f && fgets(cg, sizeof(cg), f)) { /* a folder a line */
				cg[strcspn(cg, "\n")] = 0;
				if (!cg[0])
					continue;
				snprintf(path, sizeof(path), "%s/cgroup.procs", cg);
				FILE *p = fopen(path, "w");
				if (p) {
					fprintf(p, "%d", (int)getpid());
					fclose(p);
				}
			}
			if (f)
				fclose(f);
			setenv("INGERO_DEMO_JOINED", "1", 1);
			execv(argv[0], argv);
		}
		return s ? demo_workload(s, strtod(argv[3], NULL), argv[4],
					 argc > 5 ? strtod(argv[5], NULL) : 1) : 2;
	}
	if (argc >= 7 && !strcmp(argv[1], "--rank")) {
		const struct demo_scenario *s = demo_find(argv[2]);
		return s && s->ranks ? demo_rank(s, atoi(argv[3]), strtod(argv[4], NULL), argv[5],
						 strtod(argv[6], NULL))
				     : 2;
	}
	if (argc >= 2 && !strcmp(argv[1], "--child"))
		return demo_child(argc, argv);
	if (argc >= 5 && !strcmp(argv[1], "--sidecar")) {
		if (argv[4][0]) { /* join the container's cgroup */
			char procs[PATH_MAX + 16];
			snprintf(procs, sizeof(procs), "%s/cgroup.procs", argv[4]);
			FILE *f = fopen(procs, "w");
			if (f) {
				fprintf(f, "%d", (int)getpid());
				fclose(f);
			}
		}
		return demo_sidecar(argv[2], argv[3]);
	}

	static const struct option lo[] = {
		{ "no-bpf", no_argument, 0, 'N' }, { "bpf", no_argument, 0, 'B' },
		{ "output", required_argument, 0, 'o' }, { "seconds", required_argument, 0, 's' },
		{ "seed", required_argument, 0, 'S' }, { "json", no_argument, 0, 'j' },
		{ "check", no_argument, 0, 'c' }, { "keep", no_argument, 0, 'k' },
		{ "sync-factor", required_argument, 0, 'F' }, { "html", required_argument, 0, 'H' },
		{ "list", no_argument, 0, 'l' }, { "two-nodes", no_argument, 0, '2' },
		{ "sigkill", no_argument, 0, 'K' },
		ILOG_COMMON_LONG, { 0 },
	};
	struct opts o = { .scen = "incident", .seed = 1 };
	int c, rc;
	ilog_cli_init(argv[0]);
	if (!strcmp(ilog_prog, "ingero-demo") || !strcmp(ilog_prog, "demo"))
		ilog_prog = "ingero demo";
	while ((c = getopt_long(argc, argv, "o:j" ILOG_COMMON_SHORT, lo, NULL)) != -1) {
		switch (c) {
		case 'N': o.no_bpf = 1; break;
		case 'B': o.bpf = 1; break;
		case 'o': o.out = optarg; break;
		case 's': {
			char *end;
			o.seconds = strtod(optarg, &end);
			if (*end || !(o.seconds >= 1 && o.seconds <= 3600)) {
				ilog_errorf("--seconds: not a number of seconds from 1 to 3600 '%s'", optarg);
				return ILOG_EXIT_USAGE;
			}
			break;
		}
		case 'S': o.seed = strtoull(optarg, NULL, 0); break;
		case 'F': {
			char *end;
			o.sync_factor = strtod(optarg, &end);
			if (*end || !(o.sync_factor >= 0.1 && o.sync_factor <= 100)) {
				ilog_errorf("--sync-factor: not a factor from 0.1 to 100 '%s'", optarg);
				return ILOG_EXIT_USAGE;
			}
			break;
		}
		case 'j': o.json = 1; break;
		case 'H': o.html = optarg; break;
		case 'c': o.check = 1; break;
		case 'k': o.keep = 1; break;
		case 'l': o.list = 1; break;
		case '2': o.two_nodes = 1; break;
		case 'K': o.sigkill = 1; break;
		default:
			/* "Try 'ingero demo --help'.": ilog_prog is that here */
			if ((rc = ilog_opt_common(c, usage)) >= 0)
				return rc;
		}
	}
	if (o.list) {
		for (const char *const *n = ilog_scenario_names(); *n; n++)
			printf("%-18s %s%s\n", *n, ilog_scenario_help(*n),
			       demo_find(*n) ? "" : " (synthetic only)");
		return ilog_finish_stdout(ILOG_EXIT_OK);
	}
	if (optind < argc)
		o.scen = argv[optind++];
	if (optind < argc || (o.no_bpf && o.bpf)) {
		ilog_errorf(optind < argc ? "one scenario at a time" : "--bpf and --no-bpf conflict");
		return ILOG_EXIT_USAGE;
	}
	if (!ilog_scenario_help(o.scen)) {
		ilog_errorf("unknown scenario '%s' (see --list)", o.scen);
		return ILOG_EXIT_USAGE;
	}
	const struct demo_scenario *s = demo_find(o.scen);
	if (o.sigkill && strcmp(o.scen, "hang")) {
		ilog_errorf("--sigkill: only for the hang scenario");
		return ILOG_EXIT_USAGE;
	}
	if (o.two_nodes && !(s && s->ranks)) {
		ilog_errorf("--two-nodes: '%s' is not a multi-rank scenario (straggler, hang, "
			    "ranks-clean)", o.scen);
		return ILOG_EXIT_USAGE;
	}
	char bindir[PATH_MAX], exe[PATH_MAX], fake[PATH_MAX], rec[PATH_MAX + 64];
	const char *why = NULL;
	if (ilog_self_path(exe, sizeof(exe), bindir, sizeof(bindir)))
		why = "cannot find my own directory";
	snprintf(rec, sizeof(rec), "%s/ingero-record", bindir);
	if (o.no_bpf)
		why = "--no-bpf";
	else if (!s)
		why = "this scenario is synthetic only";
	else if (!why && access(rec, X_OK))
		why = "ingero-record is not installed next to ingero-demo";
	else if (!why && find_fakecuda(bindir, fake, sizeof(fake)))
		why = "the fake CUDA libraries are not built (make; or set INGERO_FAKECUDA_DIR)";
	else if (!why && geteuid())
		why = "recording needs root (CAP_BPF and CAP_PERFMON): run it with sudo";
	if (why && o.bpf) {
		ilog_errorf("cannot record: %s", why);
		return ILOG_EXIT_USAGE;
	}
	if (why && !o.no_bpf && ilog_verbosity >= 0)
		fprintf(stderr, "%s: %s; showing a synthesized log instead (--no-bpf)\n", ilog_prog, why);

	char work[] = "/tmp/ingero-demo.XXXXXX", log[PATH_MAX];
	if (!mkdtemp(work) || chmod(work, 0755)) {
		ilog_errorf("cannot make a work directory: %s", strerror(errno));
		return ILOG_EXIT_USAGE;
	}
	snprintf(log, sizeof(log), "%s", o.out ? o.out : "");
	if (!o.out)
		snprintf(log, sizeof(log), "%s/run.ilog", work);
	rc = why ? synthesize(&o, log)
	     : s->ranks ? record_ranks(&o, s, bindir, exe, fake, work, log)
			: record(&o, s, bindir, exe, fake, work, log);
	/* a recorded log gets its native frames named, for the call sites */
	char sym[PATH_MAX + 64];
	const char *explained = log;
	if (!rc && !why) {
		snprintf(sym, sizeof(sym), "%s/run.sym.ilog", work);
		if (!symbolize(bindir, log, sym))
			explained = sym;
	}
	if (!rc)
		rc = explain(&o, explained,
			     demo_pattern(s ? s->expect
					    : !strcmp(o.scen, "oom") ? ILOG_PAT_OOM : DEMO_NONE),
			     !!why);
	else
		rc = ILOG_EXIT_USAGE;
	if (o.keep)
		fprintf(stderr, "%s: work directory kept: %s\n", ilog_prog, work);
	else
		nftw(work, rm_entry, 16, FTW_DEPTH | FTW_PHYS);
	return ilog_finish_stdout(rc);
}
