// SPDX-License-Identifier: MIT
/*
 * Containers from cgroup paths (format/SPEC.md §5.8): the Kubernetes pod
 * UID and the container id that container runtimes write into the cgroup
 * path of a container's processes, in both cgroup drivers:
 *   cgroupfs: /kubepods/burstable/pod<uid>/<id>, /docker/<id>
 *   systemd:  /kubepods.slice/kubepods-burstable.slice/
 *             kubepods-burstable-pod<uid_with_underscores>.slice/
 *             cri-containerd-<id>.scope (docker-, crio-, libpod- likewise)
 * A container id is 64 hex digits; a pod UID is a UUID.
 */
#include <string.h>
#include "ingero/ilog.h"

static int is_hex(const char *s, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (!((s[i] >= '0' && s[i] <= '9') || (s[i] >= 'a' && s[i] <= 'f')))
			return 0;
	return 1;
}

/* A UUID, with '-' or (systemd escaping) '_' between its groups. */
static int is_uuid(const char *s, size_t n)
{
	if (n != 36)
		return 0;
	for (size_t i = 0; i < n; i++) {
		int sep = i == 8 || i == 13 || i == 18 || i == 23;
		if (sep ? (s[i] != '-' && s[i] != '_') : !is_hex(s + i, 1))
			return 0;
	}
	return 1;
}

void ilog_cgroup_parse(const char *path, char pod[37], char ctr[65])
{
	pod[0] = ctr[0] = 0;
	for (const char *c = path; c && *c;) {
		while (*c == '/')
			c++;
		size_t n = strcspn(c, "/");
		const char *e = c + n;
		/* drop a systemd unit suffix */
		size_t m = n;
		if (m > 6 && !memcmp(c + m - 6, ".scope", 6))
			m -= 6;
		else if (m > 6 && !memcmp(c + m - 6, ".slice", 6))
			m -= 6;
		/* pod<uid> anywhere in the component (kubepods-burstable-pod<uid>) */
		const char *p = NULL;
		for (const char *q = c; q + 3 + 36 <= c + m; q++)
			if (!memcmp(q, "pod", 3) && is_uuid(q + 3, 36) && q + 3 + 36 == c + m)
				p = q + 3;
		if (p) {
			for (int i = 0; i < 36; i++)
				pod[i] = p[i] == '_' ? '-' : p[i];
			pod[36] = 0;
		}
		/* <runtime>-<64 hex> or <64 hex> */
		if (m >= 64 && is_hex(c + m - 64, 64) && (m == 64 || c[m - 65] == '-')) {
			memcpy(ctr, c + m - 64, 64);
			ctr[64] = 0;
		}
		c = e;
	}
}
