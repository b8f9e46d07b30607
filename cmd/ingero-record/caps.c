// SPDX-License-Identifier: MIT
/*
 * Least privilege: the capabilities the recorder needs, reported by
 * --check, and dropping every other one once the probes are attached.
 * No libcap: /proc/self/status gives the sets, prctl and capset change them.
 *
 * What each capability is for was found by experiment (README.md,
 * "Capabilities"): the recorder run as uid 0 with only a given set
 * (setpriv --bounding-set) against workloads of root, of another user,
 * from a 0700 folder, and as a COMMAND, removing one capability at a time.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <unistd.h>
#include <linux/capability.h>
#include "rec.h"

#ifndef CAP_PERFMON
#define CAP_PERFMON 38
#endif
#ifndef CAP_BPF
#define CAP_BPF 39
#endif
#ifndef PR_CAP_AMBIENT
#define PR_CAP_AMBIENT 47
#define PR_CAP_AMBIENT_CLEAR_ALL 4
#endif

/* Needed while recording, before and after the probes are attached. */
const struct rec_cap rec_caps[] = {
	{ CAP_BPF, "CAP_BPF", 0,
	  "load the BPF programs, make their maps, and update them while recording" },
	{ CAP_PERFMON, "CAP_PERFMON", 0,
	  "load tracing programs and attach uprobes and tracepoints, also to libraries "
	  "loaded later" },
	{ CAP_SYS_PTRACE, "CAP_SYS_PTRACE", 0,
	  "read /proc/PID/maps, root and exe and Python frames of processes of other "
	  "users or with capabilities this one lacks" },
	{ CAP_DAC_READ_SEARCH, "CAP_DAC_READ_SEARCH", 0,
	  "open CUDA libraries that file permissions hide from root without "
	  "CAP_DAC_OVERRIDE (a venv in a 0700 home)" },
	/* only with -- COMMAND run as the sudo user */
	{ CAP_SETUID, "CAP_SETUID", 1, "run the COMMAND as the sudo user" },
	{ CAP_SETGID, "CAP_SETGID", 1, "run the COMMAND as the sudo user" },
	{ CAP_KILL, "CAP_KILL", 1,
	  "stop the sudo user's COMMAND at --duration, and resume its processes held "
	  "at a dlopen after they left the recorder's session (kept without a COMMAND too "
	  "while processes that map a new CUDA library are held, --hold-max)" },
	{ -1, NULL, 0, NULL },
};

/* A "CapXxx:" mask of /proc/self/status; 0 if unreadable. */
static uint64_t status_mask(const char *key)
{
	char line[256];
	uint64_t v = 0;
	size_t kl = strlen(key);
	FILE *f = fopen("/proc/self/status", "re");
	if (!f)
		return 0;
	while (fgets(line, sizeof(line), f))
		if (!strncmp(line, key, kl) && line[kl] == ':') {
			v = strtoull(line + kl + 1, NULL, 16);
			break;
		}
	fclose(f);
	return v;
}

uint64_t rec_caps_effective(void)
{
	return status_mask("CapEff");
}

uint64_t rec_caps_needed(int command_as_user)
{
	uint64_t m = 0;
	for (const struct rec_cap *c = rec_caps; c->name; c++)
		if (!c->command || command_as_user)
			m |= 1ull << c->bit;
	return m;
}

int rec_caps_drop(int command_as_user, int hold, char *err, size_t len)
{
	uint64_t keep = rec_caps_needed(command_as_user), prm = status_mask("CapPrm");
	if (hold)
		keep |= 1ull << CAP_KILL; /* resume held processes of any user */
	/*
	 * A uid 0 process regains its bounding set at every execve: without
	 * no_new_privs (and, where CAP_SETPCAP allows, a smaller bounding
	 * set) the drop below would last only until the next exec.  The
	 * COMMAND was forked before this, with the caller's privileges.
	 */
	if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0)) {
		snprintf(err, len, "capabilities: no_new_privs: %s", strerror(errno));
		return -1;
	}
	if (prm & (1ull << CAP_SETPCAP)) {
		for (int b = 0; b < 64; b++)
			if (!(keep & (1ull << b)) && prctl(PR_CAPBSET_READ, b, 0, 0, 0) == 1)
				prctl(PR_CAPBSET_DROP, b, 0, 0, 0);
	}
	prctl(PR_CAP_AMBIENT, PR_CAP_AMBIENT_CLEAR_ALL, 0, 0, 0);
	keep &= prm;
	struct __user_cap_header_struct h = { _LINUX_CAPABILITY_VERSION_3, 0 };
	struct __user_cap_data_struct d[2] = {
		{ (uint32_t)keep, (uint32_t)keep, 0 },
		{ (uint32_t)(keep >> 32), (uint32_t)(keep >> 32), 0 },
	};
	if (syscall(SYS_capset, &h, d)) {
		snprintf(err, len, "capabilities: capset: %s", strerror(errno));
		return -1;
	}
	return 0;
}

void rec_caps_check(void (*item)(int ok, const char *what, const char *detail, const char *fix))
{
	uint64_t eff = rec_caps_effective();
	int missing = 0, command = getenv("SUDO_UID") != NULL;
	char list[256] = "", d[512], fix[256];
	for (const struct rec_cap *c = rec_caps; c->name; c++) {
		if (c->command && !command)
			continue;
		if (eff & (1ull << c->bit)) {
			size_t l = strlen(list);
			snprintf(list + l, sizeof(list) - l, "%s%s", l ? " " : "", c->name);
			continue;
		}
		/* the COMMAND ones only matter for -- COMMAND: a warning */
		missing += !c->command;
		snprintf(d, sizeof(d), "missing: needed to %s", c->why);
		snprintf(fix, sizeof(fix),
			 "run as root with it (setpriv --bounding-set, capsh --caps, or "
			 "securityContext.capabilities.add: [%s])",
			 c->name + 4);
		item(c->command ? -1 : 0, c->name, d, fix);
	}
	if (!missing)
		item(1, "capabilities", list, NULL);
}
