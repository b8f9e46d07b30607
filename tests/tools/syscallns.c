// SPDX-License-Identifier: MIT
/*
 * syscallns: what one system call costs this process, as dd copying
 * 1-byte blocks makes them (a read of /dev/zero and a write to /dev/null a
 * block), for bench/record/syscall.  Not a user command.
 *
 *   syscallns [BATCHES [BLOCKS]]     (default 4000 batches of 100 blocks)
 *
 * Prints "MIN MEDIAN": ns per system call of the fastest batch and of the
 * median one.  On a shared machine the fastest batches are the ones no
 * other task preempted, so the minimum compares setups where wall times
 * of whole runs would not.
 */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>
#include "ingero/io.h"

static int cmp_dbl(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return (x > y) - (x < y);
}

int main(int argc, char **argv)
{
	long batches = argc > 1 ? atol(argv[1]) : 4000, blocks = argc > 2 ? atol(argv[2]) : 100;
	int in = open("/dev/zero", O_RDONLY | O_CLOEXEC), out = open("/dev/null", O_WRONLY | O_CLOEXEC);
	double *ns = calloc(batches > 0 ? (size_t)batches : 1, sizeof(*ns));
	if (in < 0 || out < 0 || !ns || batches < 1 || blocks < 1) {
		fprintf(stderr, "syscallns: usage: syscallns [BATCHES [BLOCKS]]\n");
		return 2;
	}
	char c;
	for (long b = 0; b < batches; b++) {
		uint64_t t0 = ilog_mono_ns();
		for (long i = 0; i < blocks; i++)
			if (read(in, &c, 1) != 1 || write(out, &c, 1) != 1)
				return 2;
		ns[b] = (double)(ilog_mono_ns() - t0) / (double)(2 * blocks);
	}
	qsort(ns, (size_t)batches, sizeof(*ns), cmp_dbl);
	printf("%.1f %.1f\n", ns[0], ns[batches / 2]);
	free(ns);
	return 0;
}
