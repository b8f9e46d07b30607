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
#include <stdlib.h>
#include <string.h>
#include "cudaapi.h"
#include "fake.h"

enum {
	O_LaunchKernel, O_LaunchKernelEx, O_MemAlloc, O_MemFree, O_Memcpy, O_MemcpyAsync,
	O_MemcpyHtoD, O_MemcpyDtoH, O_MemcpyDtoD, O_MemcpyHtoDAsync, O_MemcpyDtoHAsync,
	O_CtxSynchronize, O_StreamSynchronize, O_MemHostAlloc, O_MemAllocHost, O_MemHostRegister,
	O_MemHostUnregister, O_MemFreeHost, O_MemAllocAsync, O_MemFreeAsync, O_MemAllocFromPoolAsync,
	O__N
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
	[O_MemHostAlloc] = { "cuMemHostAlloc", 0 },
	[O_MemAllocHost] = { "cuMemAllocHost", 0 },
	[O_MemHostRegister] = { "cuMemHostRegister", 0 },
	[O_MemHostUnregister] = { "cuMemHostUnregister", 0 },
	[O_MemFreeHost] = { "cuMemFreeHost", 0 },
	[O_MemAllocAsync] = { "cuMemAllocAsync", 0 },
	[O_MemFreeAsync] = { "cuMemFreeAsync", 0 },
	[O_MemAllocFromPoolAsync] = { "cuMemAllocFromPoolAsync", 0 },
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

/* A device allocation: CUDA_ERROR_OUT_OF_MEMORY past FAKECUDA_DEVMEM_BYTES. */
static CUresult dev_alloc(struct fk_op *op, CUdeviceptr *dptr, size_t bytesize)
{
	int r = fk_run(op, bytesize);
	uint64_t h = r ? 0 : fk_dev_alloc(DEV_BASE, bytesize);
	if (!r && !h)
		r = 2;
	if (dptr)
		*dptr = h;
	return r;
}

FK_API CUresult cuMemAlloc_v2(CUdeviceptr *dptr, size_t bytesize)
{
	return dev_alloc(&ops[O_MemAlloc], dptr, bytesize);
}
FK_ALIAS(cuMemAlloc, cuMemAlloc_v2);

FK_API CUresult cuMemFree_v2(CUdeviceptr dptr)
{
	fk_dev_free(dptr);
	return fk_run(&ops[O_MemFree], 0);
}
FK_ALIAS(cuMemFree, cuMemFree_v2);

FK_API CUresult cuMemAllocAsync(CUdeviceptr *dptr, size_t bytesize, CUstream hStream)
{
	(void)hStream;
	return dev_alloc(&ops[O_MemAllocAsync], dptr, bytesize);
}

FK_API CUresult cuMemAllocAsync_ptsz(CUdeviceptr *dptr, size_t bytesize, CUstream hStream)
{
	(void)hStream;
	return dev_alloc(&ops[O_MemAllocAsync], dptr, bytesize);
}

FK_API CUresult cuMemAllocFromPoolAsync(CUdeviceptr *dptr, size_t bytesize, CUmemoryPool pool,
					CUstream hStream)
{
	(void)pool, (void)hStream;
	return dev_alloc(&ops[O_MemAllocFromPoolAsync], dptr, bytesize);
}

FK_API CUresult cuMemAllocFromPoolAsync_ptsz(CUdeviceptr *dptr, size_t bytesize,
					     CUmemoryPool pool, CUstream hStream)
{
	(void)pool, (void)hStream;
	return dev_alloc(&ops[O_MemAllocFromPoolAsync], dptr, bytesize);
}

FK_API CUresult cuMemFreeAsync(CUdeviceptr dptr, CUstream hStream)
{
	(void)hStream;
	fk_dev_free(dptr);
	return fk_run(&ops[O_MemFreeAsync], 0);
}

FK_API CUresult cuMemFreeAsync_ptsz(CUdeviceptr dptr, CUstream hStream)
{
	(void)hStream;
	fk_dev_free(dptr);
	return fk_run(&ops[O_MemFreeAsync], 0);
}

/* Pinned host memory: real memory, recorded as pinned (fake.h). */
static CUresult host_alloc(struct fk_op *op, void **pp, size_t bytesize)
{
	int r = fk_run(op, bytesize);
	if (pp) {
		*pp = r ? NULL : malloc(bytesize ? bytesize : 1);
		if (!r && !*pp)
			return 2;
		if (!r)
			fk_pin(*pp, bytesize);
	}
	return r;
}

FK_API CUresult cuMemHostAlloc(void **pp, size_t bytesize, unsigned int Flags)
{
	(void)Flags;
	return host_alloc(&ops[O_MemHostAlloc], pp, bytesize);
}

FK_API CUresult cuMemAllocHost_v2(void **pp, size_t bytesize)
{
	return host_alloc(&ops[O_MemAllocHost], pp, bytesize);
}
FK_ALIAS(cuMemAllocHost, cuMemAllocHost_v2);

FK_API CUresult cuMemHostRegister_v2(void *p, size_t bytesize, unsigned int Flags)
{
	(void)Flags;
	int r = fk_run(&ops[O_MemHostRegister], bytesize);
	if (!r)
		fk_pin(p, bytesize);
	return r;
}
FK_ALIAS(cuMemHostRegister, cuMemHostRegister_v2);

FK_API CUresult cuMemHostUnregister(void *p)
{
	fk_unpin(p);
	return fk_run(&ops[O_MemHostUnregister], 0);
}

FK_API CUresult cuMemFreeHost(void *p)
{
	int r = fk_run(&ops[O_MemFreeHost], 0);
	fk_unpin(p);
	free(p);
	return r;
}

FK_API CUresult cuMemcpy(CUdeviceptr dst, CUdeviceptr src, size_t ByteCount)
{
	(void)dst, (void)src;
	return fk_run(&ops[O_Memcpy], ByteCount);
}

FK_API CUresult cuMemcpyAsync(CUdeviceptr dst, CUdeviceptr src, size_t ByteCount,
			      CUstream hStream)
{
	(void)hStream;
	return fk_run(&ops[O_MemcpyAsync],
		      fk_copy_bytes(ByteCount, (void *)(uintptr_t)src, (void *)(uintptr_t)dst, 1));
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
	(void)dstDevice, (void)hStream;
	return fk_run(&ops[O_MemcpyHtoDAsync], fk_copy_bytes(ByteCount, srcHost, NULL, 1));
}

FK_API CUresult cuMemcpyDtoHAsync_v2(void *dstHost, CUdeviceptr srcDevice, size_t ByteCount,
				     CUstream hStream)
{
	(void)srcDevice, (void)hStream;
	return fk_run(&ops[O_MemcpyDtoHAsync], fk_copy_bytes(ByteCount, dstHost, NULL, 1));
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
