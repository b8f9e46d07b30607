// SPDX-License-Identifier: MIT
/*
 * The workload of unwind-dwarf.sh, built there with -fomit-frame-pointer:
 * main -> level1 -> level2 -> cudaLaunchKernel (which, with
 * FAKECUDA_DRIVER=1, calls the driver's cuLaunchKernel), and level1 ->
 * cudaStreamSynchronize.  level2 keeps a buffer on its stack so its frame
 * is not trivial.  Stays alive a moment after its calls, as a real job
 * does, while the recorder unwinds the copies.
 */
#include <stddef.h>
#include <stdlib.h>
#include <unistd.h>

typedef struct { unsigned x, y, z; } dim3;
int cudaLaunchKernel(const void *func, dim3 grid, dim3 block, void **args, size_t shmem,
		     void *stream);
int cudaStreamSynchronize(void *stream);

volatile int sink;

__attribute__((noinline)) void level2(int i)
{
	dim3 one = { 1, 1, 1 };
	char buf[200];
	buf[i % 200] = 1;
	sink = cudaLaunchKernel(buf, one, one, NULL, 0, NULL);
	sink += buf[(i * 7) % 200];
}

__attribute__((noinline)) void level1(int n)
{
	for (int i = 0; i < n; i++)
		level2(i);
	sink = cudaStreamSynchronize(NULL);
}

int main(int argc, char **argv)
{
	level1(argc > 1 ? atoi(argv[1]) : 10);
	usleep(300000);
	return 0;
}
