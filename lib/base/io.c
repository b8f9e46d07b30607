// SPDX-License-Identifier: MIT
/* I/O loops and clocks (ingero/io.h). */
#include <errno.h>
#include <time.h>
#include <unistd.h>
#include "ingero/io.h"

int ilog_write_all(int fd, const void *p, size_t n)
{
	const char *c = p;
	while (n) {
		ssize_t k = write(fd, c, n);
		if (k < 0) {
			if (errno == EINTR)
				continue;
			return -1;
		}
		c += k;
		n -= (size_t)k;
	}
	return 0;
}

int ilog_copy_fd(int in, int out, uint64_t *copied)
{
	char buf[1 << 16];
	for (;;) {
		ssize_t n = read(in, buf, sizeof(buf));
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			return -1;
		if (!n)
			return 0;
		if (ilog_write_all(out, buf, (size_t)n))
			return -2;
		if (copied)
			*copied += (uint64_t)n;
	}
}

uint64_t ilog_mono_ns(void)
{
	struct timespec t;
	clock_gettime(CLOCK_MONOTONIC, &t);
	return (uint64_t)t.tv_sec * 1000000000ull + (uint64_t)t.tv_nsec;
}
