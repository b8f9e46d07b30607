// SPDX-License-Identifier: MIT
/*
 * Which cgroup a process is in: its path from /proc/PID/cgroup and its id,
 * the inode number of its folder under /sys/fs/cgroup, which is the
 * kernfs node id the BPF side reads from the task (bpf/host.bpf.h).  On a
 * unified (v2) host the v2 hierarchy names it; on v1 or hybrid hosts the
 * memory controller's hierarchy does, since that is where container
 * runtimes put each container.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include "rec.h"

int rec_cgroup_v1(void)
{
	static int v1 = -1;
	if (v1 < 0)
		v1 = access("/sys/fs/cgroup/cgroup.controllers", F_OK) != 0 &&
		     access("/sys/fs/cgroup/memory", F_OK) == 0;
	return v1;
}

int rec_cgroup_of(uint32_t pid, char *path, size_t cap, uint64_t *id)
{
	char file[64], line[4200];
	snprintf(file, sizeof(file), "/proc/%u/cgroup", pid);
	FILE *f = fopen(file, "re");
	if (!f)
		return -1;
	int v1 = rec_cgroup_v1(), found = 0;
	path[0] = 0;
	*id = 0;
	while (!found && fgets(line, sizeof(line), f)) {
		line[strcspn(line, "\n")] = 0;
		/* "hierarchy-id:controller,list:/path" */
		char *a = strchr(line, ':'), *b = a ? strchr(a + 1, ':') : NULL;
		if (!b)
			continue;
		*b = 0;
		const char *ctl = a + 1;
		int mem = !strcmp(ctl, "memory") || strstr(ctl, ",memory") ||
			  !strncmp(ctl, "memory,", 7);
		if (v1 ? mem : (!strncmp(line, "0:", 2) && !*ctl)) {
			snprintf(path, cap, "%s", b + 1);
			found = 1;
		}
	}
	fclose(f);
	if (!found)
		return 0; /* no such hierarchy: path "" and id 0 */
	char dir[4400];
	struct stat st;
	snprintf(dir, sizeof(dir), "/sys/fs/cgroup%s%s", v1 ? "/memory" : "", path);
	if (!stat(dir, &st))
		*id = (uint64_t)st.st_ino;
	return 0;
}

int rec_cgroup_resolve(const char *arg, uint64_t *id, char *dir, size_t cap)
{
	struct stat st;
	if (!strncmp(arg, "/sys/fs/cgroup/", 15))
		snprintf(dir, cap, "%s", arg);
	else
		snprintf(dir, cap, "/sys/fs/cgroup%s%s%s", rec_cgroup_v1() ? "/memory" : "",
			 arg[0] == '/' ? "" : "/", arg);
	int bad = stat(dir, &st);
	const char *why = bad ? strerror(errno) : "not a cgroup folder";
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
	char path[4096], dir[4200];
	uint64_t own;
	if (!id)
		return 1;
	if (rec_cgroup_of(pid, path, sizeof(path), &own) || !path[0])
		return 0;
	/* the folder and each one above it, as the BPF side walks up */
	int root = snprintf(dir, sizeof(dir), "/sys/fs/cgroup%s", rec_cgroup_v1() ? "/memory" : "");
	snprintf(dir + root, sizeof(dir) - (size_t)root, "%s", path);
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
