// SPDX-License-Identifier: MIT
/*
 * Fake libcuda.so.1: the driver entry points ingero traces.  As in the
 * real driver, cuMemAlloc and cuMemAlloc_v2 (and cuMemFree/_v2,
 * cuCtxSynchronize/_v2) are two exported names at one address, which the
 * recorder must attach and count once; _ptsz/_ptds variants are separate
 * functions.  Device pointers are fake.
 */
#include <pthread.h>
#include <stdio.h>
#include <string.h>
#include "cudaapi.h"
#include "fake.h"

enum {
	O_LaunchKernel, O_LaunchKernelEx, O_MemAlloc, O_MemFree, O_Memcpy, O_MemcpyAsync,
	O_MemcpyHtoD, O_MemcpyDtoH, O_MemcpyDtoD, O_MemcpyHtoDAsync, O_MemcpyDtoHAsync,
	O_CtxSynchronize, O_StreamSynchronize, O__N
};

static struct fk_op ops[O__N] = {
	[O_LaunchKernel] = { "cuLaunchKernel", 0 },
	[O_LaunchKernelEx] = { "cuLaunchKernelEx", 0 },
	[O_MemAlloc] = { "cuMemAlloc", 0 },
	[O_MemFree] = { "cuMemFree", 0 },
	[O_Memcpy] = { "cuMemcpy", 1 },
	[O_MemcpyAsync] = { "cuMemcpyAsync", 1 },
	[O_MemcpyHtoD] = { "cuMemcpyHtoD", 1 },
	[O_MemcpyDtoH] = { "cuMemcpyDtoH", 1 },
	[O_MemcpyDtoD] = { "cuMemcpyDtoD", 1 },
	[O_MemcpyHtoDAsync] = { "cuMemcpyHtoDAsync", 1 },
	[O_MemcpyDtoHAsync] = { "cuMemcpyDtoHAsync", 1 },
	[O_CtxSynchronize] = { "cuCtxSynchronize", 0 },
	[O_StreamSynchronize] = { "cuStreamSynchronize", 0 },
};

__attribute__((constructor)) static void init(void)
{
	fk_init(ops, O__N);
}

#define DEV_BASE 0x7d0000000000ull

FK_API CUresult cuLaunchKernel(CUfunction f, unsigned int gridDimX, unsigned int gridDimY,
			       unsigned int gridDimZ, unsigned int blockDimX,
			       unsigned int blockDimY, unsigned int blockDimZ,
			       unsigned int sharedMemBytes, CUstream hStream, void **kernelParams,
			       void **extra)
{
	(void)f, (void)gridDimX, (void)gridDimY, (void)gridDimZ, (void)blockDimX;
	(void)blockDimY, (void)blockDimZ, (void)sharedMemBytes, (void)hStream;
	(void)kernelParams, (void)extra;
	return fk_run(&ops[O_LaunchKernel], 0);
}

FK_API CUresult cuLaunchKernel_ptsz(CUfunction f, unsigned int gridDimX, unsigned int gridDimY,
				    unsigned int gridDimZ, unsigned int blockDimX,
				    unsigned int blockDimY, unsigned int blockDimZ,
				    unsigned int sharedMemBytes, CUstream hStream,
				    void **kernelParams, void **extra)
{
	(void)f, (void)gridDimX, (void)gridDimY, (void)gridDimZ, (void)blockDimX;
	(void)blockDimY, (void)blockDimZ, (void)sharedMemBytes, (void)hStream;
	(void)kernelParams, (void)extra;
	return fk_run(&ops[O_LaunchKernel], 0);
}

FK_API CUresult cuLaunchKernelEx(const CUlaunchConfig *config, CUfunction f, void **kernelParams,
				 void **extra)
{
	(void)config, (void)f, (void)kernelParams, (void)extra;
	return fk_run(&ops[O_LaunchKernelEx], 0);
}

FK_API CUresult cuMemAlloc_v2(CUdeviceptr *dptr, size_t bytesize)
{
	int r = fk_run(&ops[O_MemAlloc], bytesize);
	if (dptr)
		*dptr = r ? 0 : fk_handle(DEV_BASE);
	return r;
}
FK_ALIAS(cuMemAlloc, cuMemAlloc_v2);

FK_API CUresult cuMemFree_v2(CUdeviceptr dptr)
{
	(void)dptr;
	return fk_run(&ops[O_MemFree], 0);
}
FK_ALIAS(cuMemFree, cuMemFree_v2);

FK_API CUresult cuMemcpy(CUdeviceptr dst, CUdeviceptr src, size_t ByteCount)
{
	(void)dst, (void)src;
	return fk_run(&ops[O_Memcpy], ByteCount);
}

FK_API CUresult cuMemcpyAsync(CUdeviceptr dst, CUdeviceptr src, size_t ByteCount,
			      CUstream hStream)
{
	(void)dst, (void)src, (void)hStream;
	return fk_run(&ops[O_MemcpyAsync], ByteCount);
}

FK_API CUresult cuMemcpyHtoD_v2(CUdeviceptr dstDevice, const void *srcHost, size_t ByteCount)
{
	(void)dstDevice, (void)srcHost;
	return fk_run(&ops[O_MemcpyHtoD], ByteCount);
}

FK_API CUresult cuMemcpyDtoH_v2(void *dstHost, CUdeviceptr srcDevice, size_t ByteCount)
{
	(void)dstHost, (void)srcDevice;
	return fk_run(&ops[O_MemcpyDtoH], ByteCount);
}

FK_API CUresult cuMemcpyDtoD_v2(CUdeviceptr dstDevice, CUdeviceptr srcDevice, size_t ByteCount)
{
	(void)dstDevice, (void)srcDevice;
	return fk_run(&ops[O_MemcpyDtoD], ByteCount);
}

FK_API CUresult cuMemcpyHtoDAsync_v2(CUdeviceptr dstDevice, const void *srcHost,
				     size_t ByteCount, CUstream hStream)
{
	(void)dstDevice, (void)srcHost, (void)hStream;
	return fk_run(&ops[O_MemcpyHtoDAsync], ByteCount);
}

FK_API CUresult cuMemcpyDtoHAsync_v2(void *dstHost, CUdeviceptr srcDevice, size_t ByteCount,
				     CUstream hStream)
{
	(void)dstHost, (void)srcDevice, (void)hStream;
	return fk_run(&ops[O_MemcpyDtoHAsync], ByteCount);
}

/* The synchronizes wait for the fake NCCL's collectives first (cudart.c). */
FK_API CUresult cuCtxSynchronize(void)
{
	fk_nccl_wait(NULL, 1);
	return fk_run(&ops[O_CtxSynchronize], 0);
}
FK_ALIAS(cuCtxSynchronize_v2, cuCtxSynchronize);

FK_API CUresult cuStreamSynchronize(CUstream hStream)
{
	fk_nccl_wait(hStream, !hStream);
	return fk_run(&ops[O_StreamSynchronize], 0);
}

FK_API CUresult cuStreamSynchronize_ptsz(CUstream hStream)
{
	fk_nccl_wait(hStream, !hStream);
	return fk_run(&ops[O_StreamSynchronize], 0);
}

/*
 * Kernel handles (ingero-record names launches by them): one handle per
 * (module or library, name), so the same name asked for again gets the
 * same handle, as from the real driver; a function made from a CUkernel
 * is one handle per kernel.  Fake: never launched for real.
 */
#define KH_MAX 256
static struct { uint64_t owner, h; char name[256]; } kh[KH_MAX];
static unsigned nkh;
static pthread_mutex_t kh_mu = PTHREAD_MUTEX_INITIALIZER;

static uint64_t kernel_handle(uint64_t owner, const char *name, uint64_t base)
{
	uint64_t h = 0;
	pthread_mutex_lock(&kh_mu);
	for (unsigned i = 0; i < nkh && !h; i++)
		if (kh[i].owner == owner && !strcmp(kh[i].name, name))
			h = kh[i].h;
	if (!h && nkh < KH_MAX) {
		h = fk_handle(base);
		kh[nkh].owner = owner;
		kh[nkh].h = h;
		snprintf(kh[nkh++].name, sizeof(kh[0].name), "%s", name);
	}
	pthread_mutex_unlock(&kh_mu);
	return h;
}

FK_API CUresult cuModuleGetFunction(CUfunction *hfunc, CUmodule hmod, const char *name)
{
	if (!hfunc || !name)
		return 1; /* CUDA_ERROR_INVALID_VALUE */
	*hfunc = (CUfunction)(uintptr_t)kernel_handle((uint64_t)(uintptr_t)hmod, name,
						      0x6c0000000000ull);
	return 0;
}

FK_API CUresult cuLibraryGetKernel(CUkernel *pKernel, CUlibrary library, const char *name)
{
	if (!pKernel || !name)
		return 1;
	*pKernel = (CUkernel)(uintptr_t)kernel_handle((uint64_t)(uintptr_t)library, name,
						      0x6d0000000000ull);
	return 0;
}

FK_API CUresult cuKernelGetFunction(CUfunction *pFunc, CUkernel kernel)
{
	if (!pFunc)
		return 1;
	*pFunc = (CUfunction)(uintptr_t)kernel_handle((uint64_t)(uintptr_t)kernel, "",
						      0x6e0000000000ull);
	return 0;
}
