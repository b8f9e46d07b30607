// SPDX-License-Identifier: MIT
/*
 * Which cgroup a process is in: its path from /proc/PID/cgroup and its id,
 * the inode number of its folder in the hierarchy the BPF side reads the
 * task's cgroup from (bpf/cgroup.bpf.h).  That hierarchy is the unified
 * (v2) one wherever it is mounted: at /sys/fs/cgroup on a unified host, at
 * /sys/fs/cgroup/unified on a hybrid one (v1 controllers beside it); only a
 * v1 host without it has the memory controller's hierarchy read instead.
 *
 * The path a process record shows is the one that names its container: on
 * a hybrid host a container runtime may have put the container in the
 * unified hierarchy and some v1 controllers (cpu, say) while the memory
 * controller still holds the host's own slice, or in v1 controllers only.
 * So the path is the unified hierarchy's when it names a pod or container,
 * else that of the first v1 line that does, else the unified one if it is
 * not the root, else the memory controller's.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include "ingero/ilog.h"
#include "rec.h"

enum { CG_V2, CG_HYBRID, CG_V1 };

static int layout(void)
{
	static int l = -1;
	if (l < 0) {
		if (!access("/sys/fs/cgroup/cgroup.controllers", F_OK))
			l = CG_V2;
		else if (!access("/sys/fs/cgroup/unified/cgroup.controllers", F_OK))
			l = CG_HYBRID;
		else
			l = access("/sys/fs/cgroup/memory", F_OK) ? CG_V2 : CG_V1;
	}
	return l;
}

int rec_cgroup_v1(void)
{
	return layout() == CG_V1;
}

const char *rec_cgroup_root(void)
{
	static const char *const roots[] = { "/sys/fs/cgroup", "/sys/fs/cgroup/unified",
					     "/sys/fs/cgroup/memory" };
	return roots[layout()];
}

static int names_container(const char *path)
{
	char pod[37], ctr[65];
	ilog_cgroup_parse(path, pod, ctr);
	return pod[0] || ctr[0];
}

/* pid's cgroup in the hierarchy the BPF side reads (own) and the path a
 * record shows (shown, as the head comment says).  -1 when pid is gone. */
static int read_cgroups(uint32_t pid, char *own, char *shown, size_t cap)
{
	char file[64], line[4200], named[4200] = "", mem[4200] = "";
	snprintf(file, sizeof(file), "/proc/%u/cgroup", pid);
	FILE *f = fopen(file, "re");
	if (!f)
		return -1;
	int v1 = rec_cgroup_v1();
	own[0] = shown[0] = 0;
	while (fgets(line, sizeof(line), f)) {
		line[strcspn(line, "\n")] = 0;
		/* "hierarchy-id:controller,list:/path" */
		char *a = strchr(line, ':'), *b = a ? strchr(a + 1, ':') : NULL;
		if (!b)
			continue;
		*b = 0;
		const char *ctl = a + 1, *path = b + 1;
		int ismem = !strcmp(ctl, "memory") || strstr(ctl, ",memory") ||
			    !strncmp(ctl, "memory,", 7);
		int unified = !strncmp(line, "0:", 2) && !*ctl;
		if (v1 ? ismem : unified)
			snprintf(own, cap, "%s", path);
		if (ismem)
			snprintf(mem, sizeof(mem), "%s", path);
		if (!unified && !named[0] && names_container(path))
			snprintf(named, sizeof(named), "%s", path);
	}
	fclose(f);
	if (own[0] && names_container(own))
		snprintf(shown, cap, "%s", own);
	else if (named[0])
		snprintf(shown, cap, "%s", named);
	else if (own[0] && strcmp(own, "/"))
		snprintf(shown, cap, "%s", own);
	else
		snprintf(shown, cap, "%s", mem[0] ? mem : own);
	return 0;
}

int rec_cgroup_of(uint32_t pid, char *path, size_t cap, uint64_t *id)
{
	char own[4096], dir[4200];
	struct stat st;
	*id = 0;
	if (read_cgroups(pid, own, path, cap))
		return -1;
	snprintf(dir, sizeof(dir), "%s%s", rec_cgroup_root(), own);
	if (own[0] && !stat(dir, &st))
		*id = (uint64_t)st.st_ino;
	return 0;
}

int rec_cgroup_resolve(const char *arg, uint64_t *id, char *dir, size_t cap)
{
	struct stat st;
	const char *root = rec_cgroup_root();
	size_t rl = strlen(root);
	if (!strncmp(arg, "/sys/fs/cgroup/", 15))
		snprintf(dir, cap, "%s", arg);
	else
		snprintf(dir, cap, "%s%s%s", root, arg[0] == '/' ? "" : "/", arg);
	int bad = stat(dir, &st);
	char outside[64];
	const char *why = bad ? strerror(errno) : "not a cgroup folder";
	if (!bad && S_ISDIR(st.st_mode) && (strncmp(dir, root, rl) || (dir[rl] && dir[rl] != '/'))) {
		bad = 1; /* the BPF side would never see its id */
		snprintf(outside, sizeof(outside), "not under %s", root);
		why = outside;
	}
	if (bad || !S_ISDIR(st.st_mode)) {
		char tried[256];
		snprintf(tried, sizeof(tried), "%.200s", dir);
		snprintf(dir, cap, "'%s': %s", tried, why);
		return -1;
	}
	*id = (uint64_t)st.st_ino;
	return 0;
}

int rec_cgroup_has(uint64_t id, uint32_t pid)
{
	char own[4096], shown[4096], dir[4200];
	if (!id)
		return 1;
	if (read_cgroups(pid, own, shown, sizeof(own)) || !own[0])
		return 0;
	/* the folder and each one above it, as the BPF side walks up */
	int root = snprintf(dir, sizeof(dir), "%s", rec_cgroup_root());
	snprintf(dir + root, sizeof(dir) - (size_t)root, "%s", own);
	for (int depth = 0; depth < 64; depth++) {
		struct stat st;
		if (!stat(dir, &st) && (uint64_t)st.st_ino == id)
			return 1;
		char *slash = strrchr(dir, '/');
		if (!slash || slash - dir < root)
			break; /* not above the hierarchy's root */
		*slash = 0;
	}
	return 0;
}
