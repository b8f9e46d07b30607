// SPDX-License-Identifier: MIT
/*
 * Fake libcudart.so.13: the runtime entry points ingero traces, with the
 * real names and signatures, returning fake handles after a configurable
 * delay.  Device and managed pointers are fake (never dereference them);
 * cudaMallocHost returns real host memory.  _ptsz variants are separate
 * functions, as in the real library, sharing their base op's settings.
 */
#include <dlfcn.h>
#include <stdlib.h>
#include "cudaapi.h"
#include "fake.h"

enum {
	O_Malloc, O_MallocManaged, O_MallocHost, O_Free, O_FreeHost, O_LaunchKernel,
	O_Memcpy, O_MemcpyAsync, O_Memset, O_MemsetAsync, O_StreamSynchronize,
	O_DeviceSynchronize, O_EventSynchronize, O_StreamBeginCapture, O_StreamEndCapture,
	O_GraphInstantiate, O_GraphInstantiateWithFlags, O_GraphLaunch, O_HostAlloc,
	O_HostRegister, O_HostUnregister, O_MallocAsync, O_FreeAsync, O_MallocFromPoolAsync, O__N
};

static struct fk_op ops[O__N] = {
	[O_Malloc] = { "cudaMalloc", 0 },
	[O_MallocManaged] = { "cudaMallocManaged", 0 },
	[O_MallocHost] = { "cudaMallocHost", 0 },
	[O_Free] = { "cudaFree", 0 },
	[O_FreeHost] = { "cudaFreeHost", 0 },
	[O_LaunchKernel] = { "cudaLaunchKernel", 0 },
	[O_Memcpy] = { "cudaMemcpy", 1 },
	[O_MemcpyAsync] = { "cudaMemcpyAsync", 1 },
	[O_Memset] = { "cudaMemset", 1 },
	[O_MemsetAsync] = { "cudaMemsetAsync", 1 },
	[O_StreamSynchronize] = { "cudaStreamSynchronize", 0 },
	[O_DeviceSynchronize] = { "cudaDeviceSynchronize", 0 },
	[O_EventSynchronize] = { "cudaEventSynchronize", 0 },
	[O_StreamBeginCapture] = { "cudaStreamBeginCapture", 0 },
	[O_StreamEndCapture] = { "cudaStreamEndCapture", 0 },
	[O_GraphInstantiate] = { "cudaGraphInstantiate", 0 },
	[O_GraphInstantiateWithFlags] = { "cudaGraphInstantiateWithFlags", 0 },
	[O_GraphLaunch] = { "cudaGraphLaunch", 0 },
	[O_HostAlloc] = { "cudaHostAlloc", 0 },
	[O_HostRegister] = { "cudaHostRegister", 0 },
	[O_HostUnregister] = { "cudaHostUnregister", 0 },
	[O_MallocAsync] = { "cudaMallocAsync", 0 },
	[O_FreeAsync] = { "cudaFreeAsync", 0 },
	[O_MallocFromPoolAsync] = { "cudaMallocFromPoolAsync", 0 },
};

__attribute__((constructor)) static void init(void)
{
	fk_init(ops, O__N);
}

#define DEV_BASE 0x7f0000000000ull
#define GRAPH_BASE 0x6a0000000000ull
#define EXEC_BASE 0x6b0000000000ull

/* A device allocation: out of memory past FAKECUDA_DEVMEM_BYTES. */
static cudaError_t dev_alloc(struct fk_op *op, void **devPtr, size_t size)
{
	int r = fk_run(op, size);
	uint64_t h = r ? 0 : fk_dev_alloc(DEV_BASE, size);
	if (!r && !h)
		r = cudaErrorMemoryAllocation;
	if (devPtr)
		*devPtr = (void *)h;
	return r;
}

FK_API cudaError_t cudaMalloc(void **devPtr, size_t size)
{
	return dev_alloc(&ops[O_Malloc], devPtr, size);
}

FK_API cudaError_t cudaMallocAsync(void **devPtr, size_t size, cudaStream_t stream)
{
	(void)stream;
	return dev_alloc(&ops[O_MallocAsync], devPtr, size);
}

FK_API cudaError_t cudaMallocAsync_ptsz(void **devPtr, size_t size, cudaStream_t stream)
{
	(void)stream;
	return dev_alloc(&ops[O_MallocAsync], devPtr, size);
}

FK_API cudaError_t cudaMallocFromPoolAsync(void **ptr, size_t size, cudaMemPool_t pool,
					   cudaStream_t stream)
{
	(void)pool, (void)stream;
	return dev_alloc(&ops[O_MallocFromPoolAsync], ptr, size);
}

FK_API cudaError_t cudaMallocFromPoolAsync_ptsz(void **ptr, size_t size, cudaMemPool_t pool,
						cudaStream_t stream)
{
	(void)pool, (void)stream;
	return dev_alloc(&ops[O_MallocFromPoolAsync], ptr, size);
}

FK_API cudaError_t cudaFreeAsync(void *devPtr, cudaStream_t stream)
{
	(void)stream;
	fk_dev_free((uint64_t)(uintptr_t)devPtr);
	return fk_run(&ops[O_FreeAsync], 0);
}

FK_API cudaError_t cudaFreeAsync_ptsz(void *devPtr, cudaStream_t stream)
{
	(void)stream;
	fk_dev_free((uint64_t)(uintptr_t)devPtr);
	return fk_run(&ops[O_FreeAsync], 0);
}

FK_API cudaError_t cudaMallocManaged(void **devPtr, size_t size, unsigned int flags)
{
	(void)flags;
	int r = fk_run(&ops[O_MallocManaged], size);
	if (devPtr)
		*devPtr = r ? NULL : (void *)fk_handle(DEV_BASE);
	return r;
}

/* Pinned host memory is real memory (a copy may read it), recorded as pinned. */
static cudaError_t host_alloc(struct fk_op *op, void **ptr, size_t size)
{
	int r = fk_run(op, size);
	if (ptr) {
		*ptr = r ? NULL : malloc(size ? size : 1);
		if (!r && !*ptr)
			return cudaErrorMemoryAllocation;
		if (!r)
			fk_pin(*ptr, size);
	}
	return r;
}

FK_API cudaError_t cudaMallocHost(void **ptr, size_t size)
{
	return host_alloc(&ops[O_MallocHost], ptr, size);
}

FK_API cudaError_t cudaHostAlloc(void **pHost, size_t size, unsigned int flags)
{
	(void)flags;
	return host_alloc(&ops[O_HostAlloc], pHost, size);
}

FK_API cudaError_t cudaHostRegister(void *ptr, size_t size, unsigned int flags)
{
	(void)flags;
	int r = fk_run(&ops[O_HostRegister], size);
	if (!r)
		fk_pin(ptr, size);
	return r;
}

FK_API cudaError_t cudaHostUnregister(void *ptr)
{
	fk_unpin(ptr);
	return fk_run(&ops[O_HostUnregister], 0);
}

FK_API cudaError_t cudaFree(void *devPtr)
{
	fk_dev_free((uint64_t)(uintptr_t)devPtr);
	return fk_run(&ops[O_Free], 0);
}

FK_API cudaError_t cudaFreeHost(void *ptr)
{
	int r = fk_run(&ops[O_FreeHost], 0);
	fk_unpin(ptr);
	free(ptr);
	return r;
}

/* FAKECUDA_DRIVER=1: cudaLaunchKernel goes on into the driver's
 * cuLaunchKernel, as the real runtime does, when a libcuda is loaded (a
 * traced call inside a traced call). */
static __typeof__(cuLaunchKernel) *driver_launch(void)
{
	static __typeof__(cuLaunchKernel) *fn;
	static int looked;
	if (!looked) {
		const char *v = getenv("FAKECUDA_DRIVER");
		if (v && *v == '1')
			fn = (__typeof__(cuLaunchKernel) *)dlsym(RTLD_DEFAULT, "cuLaunchKernel");
		looked = 1;
	}
	return fn;
}

FK_API cudaError_t cudaLaunchKernel(const void *func, dim3 gridDim, dim3 blockDim, void **args,
				    size_t sharedMem, cudaStream_t stream)
{
	(void)func, (void)args, (void)stream;
	__typeof__(cuLaunchKernel) *drv = driver_launch();
	if (drv && drv(NULL, gridDim.x, gridDim.y, gridDim.z, blockDim.x, blockDim.y, blockDim.z,
		       (unsigned)sharedMem, NULL, NULL, NULL))
		return 719; /* cudaErrorLaunchFailure */
	return fk_run(&ops[O_LaunchKernel], 0);
}

FK_API cudaError_t cudaLaunchKernel_ptsz(const void *func, dim3 gridDim, dim3 blockDim,
					 void **args, size_t sharedMem, cudaStream_t stream)
{
	(void)func, (void)gridDim, (void)blockDim, (void)args, (void)sharedMem, (void)stream;
	return fk_run(&ops[O_LaunchKernel], 0);
}

FK_API cudaError_t cudaMemcpy(void *dst, const void *src, size_t count, enum cudaMemcpyKind kind)
{
	(void)dst, (void)src, (void)kind;
	return fk_run(&ops[O_Memcpy], count);
}

/* An async copy's bytes timed: its host side (the source to the device,
 * the destination from it, either for the default kind) pinned or not. */
static uint64_t async_bytes(void *dst, const void *src, size_t count, enum cudaMemcpyKind kind)
{
	if (kind == cudaMemcpyHostToDevice)
		return fk_copy_bytes(count, src, NULL, 1);
	if (kind == cudaMemcpyDeviceToHost)
		return fk_copy_bytes(count, dst, NULL, 1);
	if (kind == cudaMemcpyDefault)
		return fk_copy_bytes(count, src, dst, 1);
	return count;
}

FK_API cudaError_t cudaMemcpyAsync(void *dst, const void *src, size_t count,
				   enum cudaMemcpyKind kind, cudaStream_t stream)
{
	(void)stream;
	return fk_run(&ops[O_MemcpyAsync], async_bytes(dst, src, count, kind));
}

FK_API cudaError_t cudaMemcpyAsync_ptsz(void *dst, const void *src, size_t count,
					enum cudaMemcpyKind kind, cudaStream_t stream)
{
	(void)stream;
	return fk_run(&ops[O_MemcpyAsync], async_bytes(dst, src, count, kind));
}

FK_API cudaError_t cudaMemset(void *devPtr, int value, size_t count)
{
	(void)devPtr, (void)value;
	return fk_run(&ops[O_Memset], count);
}

FK_API cudaError_t cudaMemsetAsync(void *devPtr, int value, size_t count, cudaStream_t stream)
{
	(void)devPtr, (void)value, (void)stream;
	return fk_run(&ops[O_MemsetAsync], count);
}

/* The synchronizes wait for the collectives the fake NCCL enqueued before
 * they spend their own time (the rest of the stream's GPU work). */
FK_API cudaError_t cudaStreamSynchronize(cudaStream_t stream)
{
	fk_nccl_wait(stream, !stream);
	return fk_run(&ops[O_StreamSynchronize], 0);
}

FK_API cudaError_t cudaStreamSynchronize_ptsz(cudaStream_t stream)
{
	fk_nccl_wait(stream, !stream);
	return fk_run(&ops[O_StreamSynchronize], 0);
}

FK_API cudaError_t cudaDeviceSynchronize(void)
{
	fk_nccl_wait(NULL, 1);
	return fk_run(&ops[O_DeviceSynchronize], 0);
}

FK_API cudaError_t cudaEventSynchronize(cudaEvent_t event)
{
	(void)event;
	return fk_run(&ops[O_EventSynchronize], 0);
}

FK_API cudaError_t cudaStreamBeginCapture(cudaStream_t stream, int mode)
{
	(void)stream, (void)mode;
	return fk_run(&ops[O_StreamBeginCapture], 0);
}

FK_API cudaError_t cudaStreamEndCapture(cudaStream_t stream, cudaGraph_t *pGraph)
{
	(void)stream;
	int r = fk_run(&ops[O_StreamEndCapture], 0);
	if (pGraph)
		*pGraph = r ? NULL : (cudaGraph_t)fk_handle(GRAPH_BASE);
	return r;
}

static cudaError_t instantiate(struct fk_op *op, cudaGraphExec_t *pGraphExec)
{
	int r = fk_run(op, 0);
	if (pGraphExec)
		*pGraphExec = r ? NULL : (cudaGraphExec_t)fk_handle(EXEC_BASE);
	return r;
}

FK_API cudaError_t cudaGraphInstantiate(cudaGraphExec_t *pGraphExec, cudaGraph_t graph,
					unsigned long long flags)
{
	(void)graph, (void)flags;
	return instantiate(&ops[O_GraphInstantiate], pGraphExec);
}

FK_API cudaError_t cudaGraphInstantiateWithFlags(cudaGraphExec_t *pGraphExec, cudaGraph_t graph,
						 unsigned long long flags)
{
	(void)graph, (void)flags;
	return instantiate(&ops[O_GraphInstantiateWithFlags], pGraphExec);
}

FK_API cudaError_t cudaGraphLaunch(cudaGraphExec_t graphExec, cudaStream_t stream)
{
	(void)graphExec, (void)stream;
	return fk_run(&ops[O_GraphLaunch], 0);
}

FK_API cudaError_t cudaGraphLaunch_ptsz(cudaGraphExec_t graphExec, cudaStream_t stream)
{
	(void)graphExec, (void)stream;
	return fk_run(&ops[O_GraphLaunch], 0);
}
