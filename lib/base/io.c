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

uint64_t ilog_mono_ns(void)
{
	struct timespec t;
	clock_gettime(CLOCK_MONOTONIC, &t);
	return (uint64_t)t.tv_sec * 1000000000ull + (uint64_t)t.tv_nsec;
}
