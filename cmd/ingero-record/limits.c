// SPDX-License-Identifier: MIT
/*
 * The targets' container limits (SPEC §5.5, host types cpu_quota and
 * cpu_throttle): with each snapshot, for each target process, the nearest
 * cgroup at or above its own that has a CPU quota (cgroup v1 cpu
 * controller: cpu.cfs_quota_us and cpu.cfs_period_us; v2: cpu.max), and
 * that cgroup's throttling counters from cpu.stat (nr_periods,
 * nr_throttled, throttled_time in ns on v1, throttled_usec on v2).  The
 * quota is written with each snapshot, not only when it changes: a file
 * of a --rotate series and a --flight dump hold only the host records of
 * their own time, and a throttle record without its quota names no limit
 * (one record a second per target under a quota).  The counters' growth
 * over the window since the previous snapshot is one cpu_throttle record.
 * A process under no quota costs the read of /proc/PID/cgroup and of one
 * file per level of its cgroup path a second, and writes nothing.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "ingero/ilog.h"
#include "rec.h"

#define LIM_MAX 256 /* targets followed at once; more are not followed */

struct lim {
	uint32_t pid;
	uint64_t start;           /* its start time: pid reuse */
	uint64_t seen;            /* the snapshot that last saw it */
	uint64_t periods, throttled, thr_ns, ts; /* counters at ts */
	char dir[512];            /* the cgroup those are of */
};

static struct lim lims[LIM_MAX];

static int read_text(const char *path, char *buf, size_t cap)
{
	FILE *f = fopen(path, "re");
	if (!f)
		return -1;
	size_t n = fread(buf, 1, cap - 1, f);
	buf[n] = 0;
	fclose(f);
	return 0;
}

/* Is word one of the words of list (separated by sep)? */
static int has_word(const char *list, const char *word, char sep)
{
	size_t n = strlen(word);
	for (const char *c = list; c && *c; c = strchr(c, sep), c = c ? c + 1 : NULL)
		if (!strncmp(c, word, n) && (c[n] == sep || !c[n] || c[n] == '\n'))
			return 1;
	return 0;
}

/* The folder of pid's cgroup in the hierarchy that has the cpu
 * controller: the unified one when it offers cpu, else the v1 cpu
 * controller's mount; *root: the length of the hierarchy's mount path.
 * -1 when there is none. */
static int cpu_dir(uint32_t pid, char *dir, size_t cap, int *v2, size_t *root)
{
	char file[64], line[4200], ctl[512];
	snprintf(file, sizeof(file), "/proc/%u/cgroup", pid);
	FILE *f = fopen(file, "re");
	if (!f)
		return -1;
	const char *uroot = !access("/sys/fs/cgroup/cgroup.controllers", F_OK)
				    ? "/sys/fs/cgroup"
				    : "/sys/fs/cgroup/unified";
	char path[512];
	snprintf(path, sizeof(path), "%s/cgroup.controllers", uroot);
	int ucpu = !read_text(path, ctl, sizeof(ctl)) && has_word(ctl, "cpu", ' ');
	int found = -1;
	while (found && fgets(line, sizeof(line), f)) {
		line[strcspn(line, "\n")] = 0;
		char *a = strchr(line, ':'), *b = a ? strchr(a + 1, ':') : NULL;
		if (!b)
			continue;
		*b = 0;
		const char *ctls = a + 1, *cg = b + 1;
		if (!strncmp(line, "0:", 2) && !*ctls) {
			if (ucpu) {
				snprintf(dir, cap, "%s%s", uroot, strcmp(cg, "/") ? cg : "");
				*v2 = 1;
				*root = strlen(uroot);
				found = 0;
			}
			continue;
		}
		/* the controller list: "cpu" or "cpu,cpuacct" */
		if (!has_word(ctls, "cpu", ','))
			continue;
		snprintf(path, sizeof(path), "/sys/fs/cgroup/%s", ctls);
		if (access(path, F_OK))
			snprintf(path, sizeof(path), "/sys/fs/cgroup/cpu");
		snprintf(dir, cap, "%s%s", path, strcmp(cg, "/") ? cg : "");
		*v2 = 0;
		*root = strlen(path);
		found = 0;
	}
	fclose(f);
	return found;
}

/* The quota of the cgroup at dir: 0 and *quota, *period in ns, or -1
 * when it has none. */
static int quota_of(const char *dir, int v2, uint64_t *quota, uint64_t *period)
{
	char path[700], buf[128];
	if (v2) {
		snprintf(path, sizeof(path), "%s/cpu.max", dir);
		unsigned long long q, p;
		if (read_text(path, buf, sizeof(buf)) || sscanf(buf, "%llu %llu", &q, &p) != 2)
			return -1; /* "max 100000": none */
		*quota = q * 1000, *period = p * 1000;
		return 0;
	}
	long long q;
	unsigned long long p;
	snprintf(path, sizeof(path), "%s/cpu.cfs_quota_us", dir);
	if (read_text(path, buf, sizeof(buf)) || sscanf(buf, "%lld", &q) != 1 || q <= 0)
		return -1;
	snprintf(path, sizeof(path), "%s/cpu.cfs_period_us", dir);
	if (read_text(path, buf, sizeof(buf)) || sscanf(buf, "%llu", &p) != 1)
		return -1;
	*quota = (uint64_t)q * 1000, *period = p * 1000;
	return 0;
}

/* cpu.stat's periods, throttled periods and throttled time (ns). */
static int stat_of(const char *dir, int v2, uint64_t *periods, uint64_t *throttled,
		   uint64_t *thr_ns)
{
	char path[700], buf[1024];
	snprintf(path, sizeof(path), "%s/cpu.stat", dir);
	if (read_text(path, buf, sizeof(buf)))
		return -1;
	*periods = *throttled = *thr_ns = 0;
	for (char *save = NULL, *l = strtok_r(buf, "\n", &save); l; l = strtok_r(NULL, "\n", &save)) {
		unsigned long long v;
		if (sscanf(l, "nr_periods %llu", &v) == 1)
			*periods = v;
		else if (sscanf(l, "nr_throttled %llu", &v) == 1)
			*throttled = v;
		else if (!v2 && sscanf(l, "throttled_time %llu", &v) == 1)
			*thr_ns = v;
		else if (v2 && sscanf(l, "throttled_usec %llu", &v) == 1)
			*thr_ns = v * 1000;
	}
	return 0;
}

static void put(struct rec *r, uint16_t type, const struct rec_proc *p, uint64_t ts,
		uint64_t dur, uint64_t value, uint32_t a, uint32_t b, const char *comm)
{
	struct ilog_record rec = { .kind = ILOG_K_HOST };
	struct ingero_host_event *e = &rec.u.host;
	char path[4096];
	e->ts_ns = ts;
	e->type = type;
	e->pid = p->pid;
	e->dur_ns = dur;
	e->value = value;
	e->other_pid = a;
	e->other_tid = b;
	memcpy(e->comm, comm, sizeof(e->comm));
	uint64_t cg = 0;
	rec_cgroup_of(p->pid, path, sizeof(path), &cg);
	e->cgroup_id = cg;
	ilog_writer_put(r->w, &rec);
	r->n_host++;
}

static struct lim *lim_of(const struct rec_proc *p, uint64_t gen)
{
	struct lim *free_slot = NULL;
	for (unsigned i = 0; i < LIM_MAX; i++) {
		struct lim *l = &lims[i];
		if (l->pid == p->pid && l->start == p->start_ticks)
			return l;
		if (!free_slot && (!l->pid || l->seen + 2 < gen))
			free_slot = l; /* empty, or a process gone since */
	}
	if (free_slot)
		*free_slot = (struct lim){ .pid = p->pid, .start = p->start_ticks };
	return free_slot;
}

void rec_write_limits(struct rec *r, uint64_t now, const struct rec_proc *p, const char *comm)
{
	static uint64_t gen, gen_ts;
	if (now != gen_ts)
		gen++, gen_ts = now;
	char dir[512];
	int v2 = 0;
	uint64_t quota = 0, period = 0;
	size_t root = 0;
	if (cpu_dir(p->pid, dir, sizeof(dir), &v2, &root))
		return;
	/* the nearest cgroup with a quota, up to the controller's root */
	for (;;) {
		if (!quota_of(dir, v2, &quota, &period))
			break;
		char *slash = strrchr(dir, '/');
		if (!slash || (size_t)(slash - dir) < root)
			return; /* no quota anywhere above it */
		*slash = 0;
	}
	struct lim *l = lim_of(p, gen);
	if (!l)
		return;
	l->seen = gen;
	uint64_t periods, throttled, thr_ns;
	if (stat_of(dir, v2, &periods, &throttled, &thr_ns))
		return;
	put(r, ILOG_HOST_CPU_QUOTA, p, now, period, quota, 0, 0, comm);
	if (strcmp(l->dir, dir)) {
		l->ts = 0; /* another cgroup's counters: no window yet */
		snprintf(l->dir, sizeof(l->dir), "%s", dir);
	}
	if (l->ts && now > l->ts && periods >= l->periods && throttled >= l->throttled &&
	    thr_ns >= l->thr_ns) {
		uint64_t dp = periods - l->periods, dt = throttled - l->throttled;
		put(r, ILOG_HOST_CPU_THROTTLE, p, l->ts, now - l->ts, thr_ns - l->thr_ns,
		    dt > UINT32_MAX ? UINT32_MAX : (uint32_t)dt,
		    dp > UINT32_MAX ? UINT32_MAX : (uint32_t)dp, comm);
	}
	l->periods = periods, l->throttled = throttled, l->thr_ns = thr_ns, l->ts = now;
}
