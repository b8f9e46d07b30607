// SPDX-License-Identifier: MIT
/*
 * A CUDA-shaped workload for recorder tests, scenarios and benchmarks.
 * It dlopens the CUDA libraries (the fakes next to it by default, or the
 * real ones with --lib-dir), makes a known mix of calls from N threads in
 * M processes, times every call itself, and prints a JSON report of what
 * it did: calls per op, summed durations, return codes, handles.  Tests
 * compare that report with what ingero-record saw.  README.md documents it.
 */
#include <ctype.h>
#include <dlfcn.h>
#include <errno.h>
#include <getopt.h>
#include <limits.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#include "cudaapi.h"

enum lib { L_CUDART, L_CUDA, L_NCCL, L__N };
static const char *const lib_file[L__N] = { "libcudart.so.13", "libcuda.so.1", "libnccl.so.2" };

/* One callable symbol: its library, its name, the op the recorder files it under. */
struct sym {
	const char *name, *op;
	enum lib lib;
	int (*call)(void *fn, struct sym *s);
	int kernel;               /* a launch of kernels[kernel - 1] (NAME@KERNEL); 0 none */
};

/*
 * Kernels the workload launches by name (--mix cudaLaunchKernel@vecAdd,
 * cuLaunchKernel@gemm, cuLaunchKernelEx@softmax): a runtime launch passes
 * the kernel's host stub, a function of this program with the kernel's
 * C++ (mangled) name as nvcc makes it; a driver launch passes the handle
 * cuModuleGetFunction (cuLaunchKernel) or cuLibraryGetKernel and
 * cuKernelGetFunction (cuLaunchKernelEx) return for that name, once per
 * thread.  The report counts launches per demangled name ("kernels").
 */
/* the host stubs (kernels.cc), by their C++ names */
extern void k_vecadd(void) __asm__("_Z6vecAddPfS_S_i");
extern void k_gemm(void) __asm__("_Z4gemmILi128EEvPKfS1_Pfiii");
extern void k_softmax(void) __asm__("_Z7softmaxPfi");
extern void k_relu(void) __asm__("_ZN5torch6layers4reluEPfi");
static const struct kdef {
	const char *id, *mangled, *demangled;
	void (*stub)(void);
} kernels[] = {
	{ "vecAdd", "_Z6vecAddPfS_S_i", "vecAdd(float*, float*, float*, int)", k_vecadd },
	{ "gemm", "_Z4gemmILi128EEvPKfS1_Pfiii",
	  "void gemm<128>(float const*, float const*, float*, int, int, int)", k_gemm },
	{ "softmax", "_Z7softmaxPfi", "softmax(float*, int)", k_softmax },
	{ "relu", "_ZN5torch6layers4reluEPfi", "torch::layers::relu(float*, int)", k_relu },
};
#define NKERNELS (sizeof(kernels) / sizeof(kernels[0]))

/* Per-thread state that calls thread through (allocations to free, graphs). */
struct tstate {
	uint64_t ptrs[64];
	unsigned nptr;
	void *host[64];
	unsigned nhost;
	cudaGraph_t graph;
	cudaGraphExec_t exec;
	ncclComm_t comm;
	void *copy;               /* which loaded copy of libcudart this call uses */
	CUfunction kfn[2][8];     /* [Ex][kernel]: driver handles made so far */
};
static __thread struct tstate ts_;

static struct {
	size_t bytes;
	int kind;
	uint64_t stream, func;
	dim3 grid, block;
	unsigned shared;
	int dtype;
	/* NCCL: the communicator's id, size and this rank; reduction op,
	 * root, peer; ncclCommSplit's color and key */
	int nranks, rank, redop, root, peer, color, key;
	ncclUniqueId id;
} a = { 1 << 20, cudaMemcpyHostToDevice, 0x1000, 0, { 4, 2, 1 }, { 128, 1, 1 }, 0, 7,
	2, 0, 0, 0, 1, 1, 0, { { 0 } } };

#define S(p) ((cudaStream_t)(uintptr_t)(p))
/* A copy's host side: the thread's newest pinned buffer, else an address
 * no call pinned (pageable; never dereferenced by the fakes) */
static int pin_host;
static void *pinned_buf(void);
#define HOSTP (ts_.nhost ? ts_.host[ts_.nhost - 1] : pin_host ? pinned_buf() : (void *)0x10000)
#define FN(type, fn) ((__typeof__(type) *)(fn))

static int c_cudaMalloc(void *fn, struct sym *s)
{
	(void)s;
	void *p = NULL;
	int r = FN(cudaMalloc, fn)(&p, a.bytes);
	if (ts_.nptr < 64)
		ts_.ptrs[ts_.nptr++] = (uintptr_t)p;
	return r;
}
static int c_cudaMallocManaged(void *fn, struct sym *s)
{
	(void)s;
	void *p = NULL;
	int r = FN(cudaMallocManaged, fn)(&p, a.bytes, 1);
	if (ts_.nptr < 64)
		ts_.ptrs[ts_.nptr++] = (uintptr_t)p;
	return r;
}
static int c_cudaMallocHost(void *fn, struct sym *s)
{
	(void)s;
	void *p = NULL;
	int r = FN(cudaMallocHost, fn)(&p, a.bytes);
	if (ts_.nhost < 64)
		ts_.host[ts_.nhost++] = p;
	return r;
}
static int c_cudaHostAlloc(void *fn, struct sym *s)
{
	(void)s;
	void *p = NULL;
	int r = FN(cudaHostAlloc, fn)(&p, a.bytes, 0);
	if (ts_.nhost < 64)
		ts_.host[ts_.nhost++] = p;
	return r;
}
/* registers a buffer of its own, which cudaFreeHost or cudaHostUnregister releases */
static int c_cudaHostRegister(void *fn, struct sym *s)
{
	(void)s;
	void *p = malloc(a.bytes ? a.bytes : 1);
	int r = FN(cudaHostRegister, fn)(p, a.bytes, 0);
	if (ts_.nhost < 64)
		ts_.host[ts_.nhost++] = p;
	else
		free(p);
	return r;
}
static int c_cudaHostUnregister(void *fn, struct sym *s)
{
	(void)s;
	void *p = ts_.nhost ? ts_.host[--ts_.nhost] : NULL;
	int r = FN(cudaHostUnregister, fn)(p);
	free(p);
	return r;
}
static int c_cudaMallocAsync(void *fn, struct sym *s)
{
	(void)s;
	void *p = NULL;
	int r = FN(cudaMallocAsync, fn)(&p, a.bytes, S(a.stream));
	if (ts_.nptr < 64)
		ts_.ptrs[ts_.nptr++] = (uintptr_t)p;
	return r;
}
static int c_cudaMallocFromPoolAsync(void *fn, struct sym *s)
{
	(void)s;
	void *p = NULL;
	int r = FN(cudaMallocFromPoolAsync, fn)(&p, a.bytes, (cudaMemPool_t)0x7700, S(a.stream));
	if (ts_.nptr < 64)
		ts_.ptrs[ts_.nptr++] = (uintptr_t)p;
	return r;
}
static int c_cudaFreeAsync(void *fn, struct sym *s)
{
	(void)s;
	return FN(cudaFreeAsync, fn)((void *)(uintptr_t)(ts_.nptr ? ts_.ptrs[--ts_.nptr] : 0),
				     S(a.stream));
}
static int c_cuMemHostAlloc(void *fn, struct sym *s)
{
	(void)s;
	void *p = NULL;
	int r = FN(cuMemHostAlloc, fn)(&p, a.bytes, 0);
	if (ts_.nhost < 64)
		ts_.host[ts_.nhost++] = p;
	return r;
}
static int c_cuMemAllocHost(void *fn, struct sym *s)
{
	(void)s;
	void *p = NULL;
	int r = FN(cuMemAllocHost_v2, fn)(&p, a.bytes);
	if (ts_.nhost < 64)
		ts_.host[ts_.nhost++] = p;
	return r;
}
static int c_cuMemHostRegister(void *fn, struct sym *s)
{
	(void)s;
	void *p = malloc(a.bytes ? a.bytes : 1);
	int r = FN(cuMemHostRegister_v2, fn)(p, a.bytes, 0);
	if (ts_.nhost < 64)
		ts_.host[ts_.nhost++] = p;
	else
		free(p);
	return r;
}
static int c_cuMemHostUnregister(void *fn, struct sym *s)
{
	(void)s;
	void *p = ts_.nhost ? ts_.host[--ts_.nhost] : NULL;
	int r = FN(cuMemHostUnregister, fn)(p);
	free(p);
	return r;
}
static int c_cuMemFreeHost(void *fn, struct sym *s)
{
	(void)s;
	return FN(cuMemFreeHost, fn)(ts_.nhost ? ts_.host[--ts_.nhost] : NULL);
}
static int c_cuMemAllocAsync(void *fn, struct sym *s)
{
	(void)s;
	CUdeviceptr p = 0;
	int r = FN(cuMemAllocAsync, fn)(&p, a.bytes, (CUstream)(uintptr_t)a.stream);
	if (ts_.nptr < 64)
		ts_.ptrs[ts_.nptr++] = p;
	return r;
}
static int c_cuMemAllocFromPoolAsync(void *fn, struct sym *s)
{
	(void)s;
	CUdeviceptr p = 0;
	int r = FN(cuMemAllocFromPoolAsync, fn)(&p, a.bytes, (CUmemoryPool)0x7700,
						 (CUstream)(uintptr_t)a.stream);
	if (ts_.nptr < 64)
		ts_.ptrs[ts_.nptr++] = p;
	return r;
}
static int c_cuMemFreeAsync(void *fn, struct sym *s)
{
	(void)s;
	return FN(cuMemFreeAsync, fn)(ts_.nptr ? ts_.ptrs[--ts_.nptr] : 0,
				      (CUstream)(uintptr_t)a.stream);
}
static int c_cudaFree(void *fn, struct sym *s)
{
	(void)s;
	return FN(cudaFree, fn)((void *)(uintptr_t)(ts_.nptr ? ts_.ptrs[--ts_.nptr] : 0));
}
static int c_cudaFreeHost(void *fn, struct sym *s)
{
	(void)s;
	return FN(cudaFreeHost, fn)(ts_.nhost ? ts_.host[--ts_.nhost] : NULL);
}
static int c_cudaLaunchKernel(void *fn, struct sym *s)
{
	(void)s;
	return FN(cudaLaunchKernel, fn)((const void *)(uintptr_t)a.func, a.grid, a.block, NULL,
					a.shared, S(a.stream));
}
static int c_cudaMemcpy(void *fn, struct sym *s)
{
	(void)s;
	return FN(cudaMemcpy, fn)((void *)0x7f0000001000, (void *)0x10000, a.bytes,
				  (enum cudaMemcpyKind)a.kind);
}
static int c_cudaMemcpyAsync(void *fn, struct sym *s)
{
	(void)s;
	int d2h = a.kind == cudaMemcpyDeviceToHost;
	return FN(cudaMemcpyAsync, fn)(d2h ? HOSTP : (void *)0x7f0000001000,
				       d2h ? (void *)0x7f0000001000 : HOSTP, a.bytes,
				       (enum cudaMemcpyKind)a.kind, S(a.stream));
}
static int c_cudaMemset(void *fn, struct sym *s)
{
	(void)s;
	return FN(cudaMemset, fn)((void *)0x7f0000001000, 0, a.bytes);
}
static int c_cudaMemsetAsync(void *fn, struct sym *s)
{
	(void)s;
	return FN(cudaMemsetAsync, fn)((void *)0x7f0000001000, 0, a.bytes, S(a.stream));
}
static int c_stream(void *fn, struct sym *s)
{
	(void)s;
	return FN(cudaStreamSynchronize, fn)(S(a.stream));
}
static int c_void(void *fn, struct sym *s)
{
	(void)s;
	return FN(cudaDeviceSynchronize, fn)();
}
static int c_cudaEventSynchronize(void *fn, struct sym *s)
{
	(void)s;
	return FN(cudaEventSynchronize, fn)((cudaEvent_t)(uintptr_t)0xe0e0);
}
static int c_cudaStreamBeginCapture(void *fn, struct sym *s)
{
	(void)s;
	return FN(cudaStreamBeginCapture, fn)(S(a.stream), 0);
}
static int c_cudaStreamEndCapture(void *fn, struct sym *s)
{
	(void)s;
	return FN(cudaStreamEndCapture, fn)(S(a.stream), &ts_.graph);
}
static int c_cudaGraphInstantiate(void *fn, struct sym *s)
{
	(void)s;
	return FN(cudaGraphInstantiate, fn)(&ts_.exec, ts_.graph, 0);
}
static int c_cudaGraphLaunch(void *fn, struct sym *s)
{
	(void)s;
	return FN(cudaGraphLaunch, fn)(ts_.exec, S(a.stream));
}
static int c_cuLaunchKernel(void *fn, struct sym *s)
{
	(void)s;
	return FN(cuLaunchKernel, fn)((CUfunction)(uintptr_t)a.func, a.grid.x, a.grid.y,
				      a.grid.z, a.block.x, a.block.y, a.block.z, a.shared,
				      S(a.stream), NULL, NULL);
}
static int c_cuLaunchKernelEx(void *fn, struct sym *s)
{
	(void)s;
	CUlaunchConfig c = { a.grid.x, a.grid.y, a.grid.z, a.block.x, a.block.y, a.block.z,
			     a.shared, S(a.stream), NULL, 0 };
	return FN(cuLaunchKernelEx, fn)(&c, (CUfunction)(uintptr_t)a.func, NULL, NULL);
}
static int c_cuMemAlloc(void *fn, struct sym *s)
{
	(void)s;
	CUdeviceptr p = 0;
	int r = FN(cuMemAlloc_v2, fn)(&p, a.bytes);
	if (ts_.nptr < 64)
		ts_.ptrs[ts_.nptr++] = p;
	return r;
}
static int c_cuMemFree(void *fn, struct sym *s)
{
	(void)s;
	return FN(cuMemFree_v2, fn)(ts_.nptr ? ts_.ptrs[--ts_.nptr] : 0);
}
static int c_cuMemcpy(void *fn, struct sym *s)
{
	(void)s;
	return FN(cuMemcpy, fn)(0x7d0000001000, 0x7d0000002000, a.bytes);
}
static int c_cuMemcpyAsync(void *fn, struct sym *s)
{
	(void)s;
	return FN(cuMemcpyAsync, fn)(0x7d0000001000, 0x7d0000002000, a.bytes, S(a.stream));
}
static int c_cuMemcpyHtoD(void *fn, struct sym *s)
{
	(void)s;
	return FN(cuMemcpyHtoD_v2, fn)(0x7d0000001000, (void *)0x10000, a.bytes);
}
static int c_cuMemcpyDtoH(void *fn, struct sym *s)
{
	(void)s;
	return FN(cuMemcpyDtoH_v2, fn)((void *)0x10000, 0x7d0000001000, a.bytes);
}
static int c_cuMemcpyDtoD(void *fn, struct sym *s)
{
	(void)s;
	return FN(cuMemcpyDtoD_v2, fn)(0x7d0000001000, 0x7d0000002000, a.bytes);
}
static int c_cuMemcpyHtoDAsync(void *fn, struct sym *s)
{
	(void)s;
	return FN(cuMemcpyHtoDAsync_v2, fn)(0x7d0000001000, HOSTP, a.bytes, S(a.stream));
}
static int c_cuMemcpyDtoHAsync(void *fn, struct sym *s)
{
	(void)s;
	return FN(cuMemcpyDtoHAsync_v2, fn)(HOSTP, 0x7d0000001000, a.bytes, S(a.stream));
}
static int c_nccl_coll7(void *fn, struct sym *s)
{
	/* AllReduce, ReduceScatter: (send, recv, count, type, redop, comm, stream) */
	(void)s;
	return FN(ncclAllReduce, fn)((void *)0x7f0000001000, (void *)0x7f0000002000, a.bytes,
				     a.dtype, a.redop, ts_.comm, S(a.stream));
}
static int c_ncclAllGather(void *fn, struct sym *s)
{
	(void)s;
	return FN(ncclAllGather, fn)((void *)0x7f0000001000, (void *)0x7f0000002000, a.bytes,
				     a.dtype, ts_.comm, S(a.stream));
}
static int c_ncclBroadcast(void *fn, struct sym *s)
{
	(void)s;
	return FN(ncclBroadcast, fn)((void *)0x7f0000001000, (void *)0x7f0000002000, a.bytes,
				     a.dtype, a.root, ts_.comm, S(a.stream));
}
static int c_ncclSend(void *fn, struct sym *s)
{
	/* ncclSend and ncclRecv share one shape */
	(void)s;
	return FN(ncclSend, fn)((void *)0x7f0000001000, a.bytes, a.dtype, a.peer, ts_.comm,
				S(a.stream));
}
static int c_ncclCommInitRank(void *fn, struct sym *s)
{
	(void)s;
	return FN(ncclCommInitRank, fn)(&ts_.comm, a.nranks, a.id, a.rank);
}
static int c_ncclCommInitRankConfig(void *fn, struct sym *s)
{
	(void)s;
	return FN(ncclCommInitRankConfig, fn)(&ts_.comm, a.nranks, a.id, a.rank, NULL);
}
static int c_ncclCommInitAll(void *fn, struct sym *s)
{
	(void)s;
	ncclComm_t comms[64];
	int n = a.nranks < 64 ? a.nranks : 64;
	int r = FN(ncclCommInitAll, fn)(comms, n, NULL);
	if (!r && n > 0)
		ts_.comm = comms[0];
	return r;
}
static int c_ncclCommSplit(void *fn, struct sym *s)
{
	/* the parent stays the communicator of later calls */
	(void)s;
	ncclComm_t sub = NULL;
	return FN(ncclCommSplit, fn)(ts_.comm, a.color, a.key, &sub, NULL);
}
static int c_ncclGetUniqueId(void *fn, struct sym *s)
{
	(void)s;
	ncclUniqueId id;
	return FN(ncclGetUniqueId, fn)(&id);
}
static int c_ncclReduce(void *fn, struct sym *s)
{
	(void)s;
	return FN(ncclReduce, fn)((void *)0x7f0000001000, (void *)0x7f0000002000, a.bytes,
				  a.dtype, a.redop, a.root, ts_.comm, S(a.stream));
}
static int c_ncclBcast(void *fn, struct sym *s)
{
	(void)s;
	return FN(ncclBcast, fn)((void *)0x7f0000001000, a.bytes, a.dtype, a.root, ts_.comm,
				 S(a.stream));
}
static int c_ncclCommDestroy(void *fn, struct sym *s)
{
	(void)s;
	return FN(ncclCommDestroy, fn)(ts_.comm);
}

static void *libh[L__N];      /* the first copy's libraries */
/* --pin-host: the thread's copies read a buffer of cudaMallocHost's, made
 * at its first copy (a recorded call), as a clean job's do */
static void *pinned_buf(void)
{
	static __thread void *buf;
	if (!buf) {
		__typeof__(cudaMallocHost) *fn =
			libh[L_CUDART] ? (__typeof__(cudaMallocHost) *)dlsym(libh[L_CUDART], "cudaMallocHost")
				       : NULL;
		if (!fn || fn(&buf, a.bytes ? a.bytes : 1))
			buf = (void *)0x10000;
	}
	return buf;
}
static int sym_index(const char *name);
static void count_call(int sym, int r);
__attribute__((format(printf, 1, 2), noreturn)) static void die(const char *fmt, ...);

typedef CUresult getfunc_fn(CUfunction *, void *, const char *);
typedef CUresult getkernel_fn(void **, void *, const char *);
typedef CUresult kernfunc_fn(CUfunction *, void *);

/* a helper call of a launch by name, counted under its own name */
static int helper(const char *name, void **fn)
{
	if (!*fn && !(*fn = dlsym(libh[L_CUDA], name)))
		die("%s not in the driver", name);
	return sym_index(name);
}

static int c_launch_named(void *fn, struct sym *s)
{
	const struct kdef *k = &kernels[s->kernel - 1];
	if (!strcmp(s->op, "cudaLaunchKernel"))
		return FN(cudaLaunchKernel, fn)((const void *)k->stub, a.grid, a.block, NULL,
						 a.shared, S(a.stream));
	int ex = !strcmp(s->op, "cuLaunchKernelEx");
	CUfunction *f = &ts_.kfn[ex][s->kernel - 1];
	if (!*f) {
		static void *gf, *gk, *kf;
		int r;
		if (!ex) {
			int i = helper("cuModuleGetFunction", &gf);
			r = ((getfunc_fn *)gf)(f, (void *)0x4d0d, k->mangled);
			count_call(i, r);
		} else {
			void *kern = NULL;
			int i = helper("cuLibraryGetKernel", &gk);
			r = ((getkernel_fn *)gk)(&kern, (void *)0x4c1b, k->mangled);
			count_call(i, r);
			i = helper("cuKernelGetFunction", &kf);
			r = ((kernfunc_fn *)kf)(f, kern);
			count_call(i, r);
		}
	}
	if (!ex)
		return FN(cuLaunchKernel, fn)(*f, a.grid.x, a.grid.y, a.grid.z, a.block.x,
					       a.block.y, a.block.z, a.shared, S(a.stream), NULL,
					       NULL);
	CUlaunchConfig cfg = { a.grid.x, a.grid.y, a.grid.z, a.block.x, a.block.y, a.block.z,
			       a.shared, S(a.stream), NULL, 0 };
	return FN(cuLaunchKernelEx, fn)(&cfg, *f, NULL, NULL);
}

/* the helpers called on their own: a handle for kernels[0] */
static int c_getfunc(void *fn, struct sym *s)
{
	(void)s;
	CUfunction f;
	return ((getfunc_fn *)fn)(&f, (void *)0x4d0d, kernels[0].mangled);
}

static int c_getkernel(void *fn, struct sym *s)
{
	(void)s;
	void *k;
	return ((getkernel_fn *)fn)(&k, (void *)0x4c1b, kernels[0].mangled);
}

static int c_kernfunc(void *fn, struct sym *s)
{
	(void)s;
	CUfunction f;
	return ((kernfunc_fn *)fn)(&f, (void *)0x6d0000001000ull);
}

/* (0x1111, --bytes, --kind, 0x4444): what --api must show as args */
static int c_generic(void *fn, struct sym *s)
{
	(void)s;
	return FN(int(uint64_t, uint64_t, uint64_t, uint64_t), fn)(0x1111, a.bytes,
								    (uint64_t)a.kind, 0x4444);
}

#define R L_CUDART
#define D L_CUDA
#define N L_NCCL
#define SYMCAP 1024
/* the table; then, up to SYMCAP, generic symbols --mix names (c_generic) */
static struct sym syms[SYMCAP] = {
	{ "cudaMalloc", "cudaMalloc", R, c_cudaMalloc },
	{ "cudaMallocManaged", "cudaMallocManaged", R, c_cudaMallocManaged },
	{ "cudaMallocHost", "cudaMallocHost", R, c_cudaMallocHost },
	{ "cudaFree", "cudaFree", R, c_cudaFree },
	{ "cudaFreeHost", "cudaFreeHost", R, c_cudaFreeHost },
	{ "cudaLaunchKernel", "cudaLaunchKernel", R, c_cudaLaunchKernel },
	{ "cudaLaunchKernel_ptsz", "cudaLaunchKernel", R, c_cudaLaunchKernel },
	{ "cudaMemcpy", "cudaMemcpy", R, c_cudaMemcpy },
	{ "cudaMemcpyAsync", "cudaMemcpyAsync", R, c_cudaMemcpyAsync },
	{ "cudaMemcpyAsync_ptsz", "cudaMemcpyAsync", R, c_cudaMemcpyAsync },
	{ "cudaMemset", "cudaMemset", R, c_cudaMemset },
	{ "cudaMemsetAsync", "cudaMemsetAsync", R, c_cudaMemsetAsync },
	{ "cudaStreamSynchronize", "cudaStreamSynchronize", R, c_stream },
	{ "cudaStreamSynchronize_ptsz", "cudaStreamSynchronize", R, c_stream },
	{ "cudaDeviceSynchronize", "cudaDeviceSynchronize", R, c_void },
	{ "cudaEventSynchronize", "cudaEventSynchronize", R, c_cudaEventSynchronize },
	{ "cudaStreamBeginCapture", "cudaStreamBeginCapture", R, c_cudaStreamBeginCapture },
	{ "cudaStreamEndCapture", "cudaStreamEndCapture", R, c_cudaStreamEndCapture },
	{ "cudaGraphInstantiate", "cudaGraphInstantiate", R, c_cudaGraphInstantiate },
	{ "cudaGraphInstantiateWithFlags", "cudaGraphInstantiateWithFlags", R,
	  c_cudaGraphInstantiate },
	{ "cudaGraphLaunch", "cudaGraphLaunch", R, c_cudaGraphLaunch },
	{ "cudaGraphLaunch_ptsz", "cudaGraphLaunch", R, c_cudaGraphLaunch },
	{ "cuLaunchKernel", "cuLaunchKernel", D, c_cuLaunchKernel },
	{ "cuLaunchKernel_ptsz", "cuLaunchKernel", D, c_cuLaunchKernel },
	{ "cuLaunchKernelEx", "cuLaunchKernelEx", D, c_cuLaunchKernelEx },
	{ "cuMemAlloc", "cuMemAlloc", D, c_cuMemAlloc },
	{ "cuMemAlloc_v2", "cuMemAlloc", D, c_cuMemAlloc },
	{ "cuMemFree", "cuMemFree", D, c_cuMemFree },
	{ "cuMemFree_v2", "cuMemFree", D, c_cuMemFree },
	{ "cuMemcpy", "cuMemcpy", D, c_cuMemcpy },
	{ "cuMemcpyAsync", "cuMemcpyAsync", D, c_cuMemcpyAsync },
	{ "cuMemcpyHtoD_v2", "cuMemcpyHtoD", D, c_cuMemcpyHtoD },
	{ "cuMemcpyDtoH_v2", "cuMemcpyDtoH", D, c_cuMemcpyDtoH },
	{ "cuMemcpyDtoD_v2", "cuMemcpyDtoD", D, c_cuMemcpyDtoD },
	{ "cuMemcpyHtoDAsync_v2", "cuMemcpyHtoDAsync", D, c_cuMemcpyHtoDAsync },
	{ "cuMemcpyDtoHAsync_v2", "cuMemcpyDtoHAsync", D, c_cuMemcpyDtoHAsync },
	{ "cudaHostAlloc", "cudaHostAlloc", R, c_cudaHostAlloc },
	{ "cudaHostRegister", "cudaHostRegister", R, c_cudaHostRegister },
	{ "cudaHostUnregister", "cudaHostUnregister", R, c_cudaHostUnregister },
	{ "cudaMallocAsync", "cudaMallocAsync", R, c_cudaMallocAsync },
	{ "cudaMallocAsync_ptsz", "cudaMallocAsync", R, c_cudaMallocAsync },
	{ "cudaFreeAsync", "cudaFreeAsync", R, c_cudaFreeAsync },
	{ "cudaFreeAsync_ptsz", "cudaFreeAsync", R, c_cudaFreeAsync },
	{ "cudaMallocFromPoolAsync", "cudaMallocFromPoolAsync", R, c_cudaMallocFromPoolAsync },
	{ "cuMemHostAlloc", "cuMemHostAlloc", D, c_cuMemHostAlloc },
	{ "cuMemAllocHost", "cuMemAllocHost", D, c_cuMemAllocHost },
	{ "cuMemAllocHost_v2", "cuMemAllocHost", D, c_cuMemAllocHost },
	{ "cuMemHostRegister", "cuMemHostRegister", D, c_cuMemHostRegister },
	{ "cuMemHostRegister_v2", "cuMemHostRegister", D, c_cuMemHostRegister },
	{ "cuMemHostUnregister", "cuMemHostUnregister", D, c_cuMemHostUnregister },
	{ "cuMemFreeHost", "cuMemFreeHost", D, c_cuMemFreeHost },
	{ "cuMemAllocAsync", "cuMemAllocAsync", D, c_cuMemAllocAsync },
	{ "cuMemFreeAsync", "cuMemFreeAsync", D, c_cuMemFreeAsync },
	{ "cuMemAllocFromPoolAsync", "cuMemAllocFromPoolAsync", D, c_cuMemAllocFromPoolAsync },
	{ "cuCtxSynchronize", "cuCtxSynchronize", D, c_void },
	{ "cuCtxSynchronize_v2", "cuCtxSynchronize", D, c_void },
	{ "cuStreamSynchronize", "cuStreamSynchronize", D, c_stream },
	{ "cuStreamSynchronize_ptsz", "cuStreamSynchronize", D, c_stream },
	{ "cuModuleGetFunction", "cuModuleGetFunction", D, c_getfunc },
	{ "cuLibraryGetKernel", "cuLibraryGetKernel", D, c_getkernel },
	{ "cuKernelGetFunction", "cuKernelGetFunction", D, c_kernfunc },
	{ "ncclAllReduce", "ncclAllReduce", N, c_nccl_coll7 },
	{ "ncclAllGather", "ncclAllGather", N, c_ncclAllGather },
	{ "ncclReduceScatter", "ncclReduceScatter", N, c_nccl_coll7 },
	{ "ncclBroadcast", "ncclBroadcast", N, c_ncclBroadcast },
	{ "ncclSend", "ncclSend", N, c_ncclSend },
	{ "ncclRecv", "ncclRecv", N, c_ncclSend },
	{ "ncclCommInitRank", "ncclCommInitRank", N, c_ncclCommInitRank },
	{ "ncclCommDestroy", "ncclCommDestroy", N, c_ncclCommDestroy },
	{ "ncclReduce", "ncclReduce", N, c_ncclReduce },
	{ "ncclBcast", "ncclBcast", N, c_ncclBcast },
	{ "ncclGroupStart", "ncclGroupStart", N, c_void },
	{ "ncclGroupEnd", "ncclGroupEnd", N, c_void },
	{ "ncclGetUniqueId", "ncclGetUniqueId", N, c_ncclGetUniqueId },
	{ "ncclCommInitRankConfig", "ncclCommInitRankConfig", N, c_ncclCommInitRankConfig },
	{ "ncclCommInitAll", "ncclCommInitAll", N, c_ncclCommInitAll },
	{ "ncclCommSplit", "ncclCommSplit", N, c_ncclCommSplit },
};
#undef R
#undef D
#undef N
static unsigned nsym;
#define NSYM SYMCAP
#define MAXMIX 1024
#define MAXPROC 256

struct mix { unsigned sym, n; };
static struct mix mix[MAXMIX];
static unsigned nmix;
static void *fns[2][NSYM];  /* [copy][sym]: copy 1 is --second-copy */
static int ncopies = 1;

/* Shared with forked children (MAP_SHARED), updated atomically. */
struct shared {
	uint64_t calls[NSYM], dur[NSYM], errors[NSYM];
	int32_t last_ret[NSYM];
	uint64_t first_call_ns;
	uint32_t npids;
	uint32_t pids[MAXPROC];
};
static struct shared *sh;

static struct {
	unsigned iters, threads, forks;
	double seconds;
	unsigned dlopen_delay_ms, after_load_ms, start_delay_ms;
	const char *wait_file, *ready_file, *report, *lib_dir, *second_dir;
	unsigned libs;             /* bit per enum lib */
	int pin;
	uint64_t gap_ns;
	uint64_t loaded_ns;
} o = { .iters = 100, .threads = 1, .pin = -1, .libs = 1u << L_CUDART };

static uint64_t now_ns(void)
{
	struct timespec t;
	clock_gettime(CLOCK_MONOTONIC, &t);
	return (uint64_t)t.tv_sec * 1000000000ull + (uint64_t)t.tv_nsec;
}

static void sleep_ms(unsigned ms)
{
	struct timespec t = { ms / 1000, (long)(ms % 1000) * 1000000 };
	while (nanosleep(&t, &t) && errno == EINTR)
		;
}

__attribute__((format(printf, 1, 2), noreturn)) static void die(const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	fprintf(stderr, "workload: ");
	vfprintf(stderr, fmt, ap);
	fprintf(stderr, "\n");
	va_end(ap);
	exit(2);
}

static int sym_index(const char *name)
{
	if (!nsym)
		while (syms[nsym].name)
			nsym++;
	for (unsigned i = 0; i < nsym; i++)
		if (!strcmp(syms[i].name, name))
			return (int)i;
	const char *at = strchr(name, '@');
	if (at) { /* LAUNCH@KERNEL */
		char base[64];
		snprintf(base, sizeof(base), "%.*s", (int)(at - name), name);
		int b = sym_index(base);
		unsigned k = 0;
		while (k < NKERNELS && strcmp(kernels[k].id, at + 1))
			k++;
		if (b < 0 || k == NKERNELS || nsym == SYMCAP ||
		    (strcmp(base, "cudaLaunchKernel") && strcmp(base, "cuLaunchKernel") &&
		     strcmp(base, "cuLaunchKernelEx")))
			return -1;
		syms[nsym] = (struct sym){ strdup(name), syms[b].op, syms[b].lib, c_launch_named,
					   (int)k + 1 };
		if (strcmp(base, "cudaLaunchKernel"))
			o.libs |= 1u << L_CUDA; /* the handle calls */
		return (int)nsym++;
	}
	/* any other exported name of the fakes (genapi.sh): called with four
	 * integer arguments, filed under its own name, as --api records it */
	enum lib l = !strncmp(name, "nccl", 4) ? L_NCCL
		   : !strncmp(name, "cuda", 4) || !strncmp(name, "__cuda", 6) ? L_CUDART
		   : !strncmp(name, "cu", 2) ? L_CUDA : L__N;
	if (l == L__N || nsym == SYMCAP)
		return -1;
	syms[nsym] = (struct sym){ strdup(name), NULL, l, c_generic };
	syms[nsym].op = syms[nsym].name;
	return (int)nsym++;
}

static void parse_mix(const char *s)
{
	char *dup = strdup(s), *save = NULL;
	nmix = 0;
	for (char *t = strtok_r(dup, ",", &save); t; t = strtok_r(NULL, ",", &save)) {
		char *eq = strchr(t, '=');
		unsigned n = 1;
		if (eq) {
			*eq = 0;
			n = (unsigned)strtoul(eq + 1, NULL, 0);
		}
		int i = sym_index(t);
		if (i < 0)
			die("unknown symbol in --mix: '%s'", t);
		if (nmix == MAXMIX)
			die("--mix: too many entries");
		mix[nmix++] = (struct mix){ (unsigned)i, n };
		o.libs |= 1u << syms[i].lib;
	}
	free(dup);
}

static void parse_dim(const char *s, dim3 *d)
{
	if (sscanf(s, "%u,%u,%u", &d->x, &d->y, &d->z) != 3)
		die("bad dimensions '%s' (want X,Y,Z)", s);
}

/* --nccl-id: up to 128 bytes as hex digits; the rest of the id is 0 */
static void parse_id(const char *s)
{
	size_t n = strlen(s);
	if (n % 2 || n > 2 * sizeof(a.id.internal))
		die("bad --nccl-id (want up to 256 hex digits, an even number)");
	memset(&a.id, 0, sizeof(a.id));
	for (size_t i = 0; i < n; i += 2) {
		unsigned v;
		if (sscanf(s + i, "%2x", &v) != 1 || !isxdigit((unsigned char)s[i + 1]))
			die("bad --nccl-id: '%.2s' is not a hex byte", s + i);
		a.id.internal[i / 2] = (char)v;
	}
}

static void load_copy(int copy, const char *dir)
{
	void *h[L__N] = { 0 };
	for (int l = 0; l < L__N; l++) {
		if (!(o.libs & (1u << l)))
			continue;
		char path[PATH_MAX];
		snprintf(path, sizeof(path), "%s/%s", dir, lib_file[l]);
		h[l] = dlopen(path, RTLD_NOW | RTLD_LOCAL);
		if (!h[l])
			die("%s", dlerror());
	}
	if (copy == 0)
		memcpy(libh, h, sizeof(libh));
	for (unsigned i = 0; i < nsym; i++) {
		if (!h[syms[i].lib])
			continue;
		char base[256];
		snprintf(base, sizeof(base), "%.*s", (int)strcspn(syms[i].name, "@"), syms[i].name);
		fns[copy][i] = dlsym(h[syms[i].lib], base);
	}
	for (unsigned m = 0; m < nmix; m++)
		if (!fns[copy][mix[m].sym])
			die("symbol '%s' not found in the loaded libraries", syms[mix[m].sym].name);
}

static int stop_now(uint64_t t0, unsigned it)
{
	if (o.seconds > 0)
		return (double)(now_ns() - t0) >= o.seconds * 1e9;
	return it >= o.iters;
}

static void count_call(int i, int r)
{
	if (i < 0)
		return;
	__atomic_add_fetch(&sh->calls[i], 1, __ATOMIC_RELAXED);
	if (r)
		__atomic_add_fetch(&sh->errors[i], 1, __ATOMIC_RELAXED);
	__atomic_store_n(&sh->last_ret[i], r, __ATOMIC_RELAXED);
}

static void *run_thread(void *arg)
{
	(void)arg;
	uint64_t t0 = now_ns();
	unsigned flip = 0;
	uint64_t first = 0;
	for (unsigned it = 0; !stop_now(t0, it); it++) {
		for (unsigned m = 0; m < nmix; m++) {
			struct sym *s = &syms[mix[m].sym];
			for (unsigned k = 0; k < mix[m].n; k++) {
				void *fn = fns[ncopies > 1 ? (flip++ & 1) : 0][mix[m].sym];
				uint64_t c0 = now_ns();
				if (!first)
					first = c0;
				int r = s->call(fn, s);
				uint64_t c1 = now_ns();
				unsigned i = mix[m].sym;
				__atomic_add_fetch(&sh->calls[i], 1, __ATOMIC_RELAXED);
				__atomic_add_fetch(&sh->dur[i], c1 - c0, __ATOMIC_RELAXED);
				if (r)
					__atomic_add_fetch(&sh->errors[i], 1, __ATOMIC_RELAXED);
				__atomic_store_n(&sh->last_ret[i], r, __ATOMIC_RELAXED);
				if (o.gap_ns) {
					uint64_t until = c1 + o.gap_ns;
					while (now_ns() < until)
						;
				}
			}
		}
	}
	uint64_t cur = __atomic_load_n(&sh->first_call_ns, __ATOMIC_RELAXED);
	while (first && (!cur || first < cur) &&
	       !__atomic_compare_exchange_n(&sh->first_call_ns, &cur, first, 0, __ATOMIC_RELAXED,
					    __ATOMIC_RELAXED))
		;
	return NULL;
}

static void run_process(void)
{
	uint32_t slot = __atomic_fetch_add(&sh->npids, 1, __ATOMIC_RELAXED);
	if (slot < MAXPROC)
		sh->pids[slot] = (uint32_t)getpid();
	pthread_t th[256];
	unsigned nt = o.threads > 256 ? 256 : o.threads;
	for (unsigned t = 1; t < nt; t++)
		if (pthread_create(&th[t], NULL, run_thread, NULL))
			die("pthread_create failed");
	run_thread(NULL);
	for (unsigned t = 1; t < nt; t++)
		pthread_join(th[t], NULL);
}

/* Report keys are the recorder's op names, so tests can join on them. */
static void report(FILE *f, uint64_t elapsed)
{
	uint64_t total = 0;
	fprintf(f, "{\"pid\":%d,\"pids\":[", (int)getpid());
	for (uint32_t i = 0; i < sh->npids && i < MAXPROC; i++)
		fprintf(f, "%s%u", i ? "," : "", sh->pids[i]);
	fprintf(f, "],\"threads\":%u,\"loaded_ns\":%llu,\"first_call_ns\":%llu,\"elapsed_ns\":%llu",
		o.threads, (unsigned long long)o.loaded_ns,
		(unsigned long long)sh->first_call_ns, (unsigned long long)elapsed);
	fprintf(f, ",\"bytes\":%zu,\"kind\":%d,\"stream\":\"0x%llx\",\"func\":\"0x%llx\"", a.bytes,
		a.kind, (unsigned long long)a.stream, (unsigned long long)a.func);
	fprintf(f, ",\"grid\":[%u,%u,%u],\"block\":[%u,%u,%u]", a.grid.x, a.grid.y, a.grid.z,
		a.block.x, a.block.y, a.block.z);
	static const char *const sect[] = { "calls", "dur_ns", "errors", "ret", "symbols" };
	for (int s = 0; s < 5; s++) {
		fprintf(f, ",\"%s\":{", sect[s]);
		int first = 1;
		for (unsigned i = 0; i < nsym; i++) {
			if (!sh->calls[i])
				continue;
			/* aggregate symbols that share an op, except in "symbols" */
			int dup = 0;
			for (unsigned j = 0; j < i && s != 4; j++)
				if (sh->calls[j] && !strcmp(syms[j].op, syms[i].op))
					dup = 1;
			if (dup)
				continue;
			uint64_t v = 0;
			int32_t ret = sh->last_ret[i];
			for (unsigned j = 0; j < nsym; j++) {
				if (s == 4 ? j != i : strcmp(syms[j].op, syms[i].op))
					continue;
				v += s == 0 || s == 4 ? sh->calls[j] : s == 1 ? sh->dur[j] : sh->errors[j];
				if (sh->calls[j])
					ret = sh->last_ret[j];
			}
			if (s == 0)
				total += v;
			fprintf(f, "%s\"%s\":", first ? "" : ",", s == 4 ? syms[i].name : syms[i].op);
			if (s == 3)
				fprintf(f, "%d", ret);
			else
				fprintf(f, "%llu", (unsigned long long)v);
			first = 0;
		}
		fprintf(f, "}");
	}
	/* launches per kernel, by the name a recorder shows (demangled) */
	fprintf(f, ",\"kernels\":{");
	int firstk = 1;
	for (unsigned k = 0; k < NKERNELS; k++) {
		uint64_t v = 0;
		for (unsigned i = 0; i < nsym; i++)
			if (syms[i].kernel == (int)k + 1)
				v += sh->calls[i];
		if (v)
			fprintf(f, "%s\"%s\":%llu", firstk ? "" : ",", kernels[k].demangled,
				(unsigned long long)v);
		firstk &= !v;
	}
	fprintf(f, "}");
	fprintf(f, ",\"total\":%llu,\"calls_per_s\":%.0f}\n", (unsigned long long)total,
		elapsed ? (double)total * 1e9 / (double)elapsed : 0.0);
}

static void usage(FILE *f)
{
	fprintf(f,
		"workload - make a known mix of CUDA calls (tests/fakecuda/README.md)\n\n"
		"USAGE\n  workload [OPTIONS]\n\nOPTIONS\n"
		"  --mix LIST           SYMBOL=N,... calls per iteration, in order\n"
		"                       (default cudaMalloc=1,cudaMemcpy=2,cudaLaunchKernel=8,\n"
		"                       cudaStreamSynchronize=1,cudaFree=1)\n"
		"  --iters N            iterations per thread (default 100)\n"
		"  --seconds S          run for S seconds instead of --iters\n"
		"  --threads N          calling threads per process (default 1)\n"
		"  --fork N             fork N children after loading; all run the mix\n"
		"  --lib-dir DIR        load libraries from DIR (default: this program's dir)\n"
		"  --second-copy DIR    also load DIR/libcudart.so.13 etc.; calls alternate\n"
		"  --dlopen-delay MS    wait MS before loading the libraries\n"
		"  --after-load MS      wait MS after loading before the first call\n"
		"  --ready-file PATH    create PATH once the libraries are loaded\n"
		"  --wait-file PATH     then wait until PATH exists before calling\n"
		"  --pin CPU            run on this CPU only\n"
		"  --gap-ns N           spin N ns of host work between calls\n"
		"  --pin-host           async copies read a pinned buffer (one cudaMallocHost\n"
		"                       per thread) when the thread has none of its own\n"
		"  --bytes N            size for malloc/memcpy/memset, count for NCCL (1048576)\n"
		"  --kind N             cudaMemcpyKind (default 1, host to device)\n"
		"  --stream HEX         stream handle passed to every call (0x1000)\n"
		"  --func HEX           kernel function pointer (default: an address in this program)\n"
		"  --grid X,Y,Z         grid dims (4,2,1)   --block X,Y,Z  block dims (128,1,1)\n"
		"  --shared N           dynamic shared memory bytes (0)\n"
		"  --nccl-id HEX        ncclUniqueId bytes for the init calls, the rest 0\n"
		"                       (default: 128 bytes 0x5a)\n"
		"  --nranks N           communicator size (2)   --rank R  this rank (0)\n"
		"  --redop N            reduction op (0)   --root N  root (0)   --peer N  peer (1)\n"
		"  --split COLOR,KEY    ncclCommSplit's color and key (1,0)\n"
		"  --report FILE        write the JSON report here (default stdout)\n");
}

static void kernel_stub(void) {}

int main(int argc, char **argv)
{
	enum { O_MIX = 256, O_ITERS, O_SECONDS, O_THREADS, O_FORK, O_LIBDIR, O_SECOND, O_DLDELAY,
	       O_AFTER, O_READY, O_WAIT, O_PIN, O_GAP, O_BYTES, O_KIND, O_STREAM, O_FUNC, O_GRID,
	       O_BLOCK, O_SHARED, O_REPORT, O_NCCLID, O_NRANKS, O_RANK, O_REDOP, O_ROOT, O_PEER,
	       O_SPLIT, O_PINHOST };
	static const struct option lo[] = {
		{ "mix", 1, 0, O_MIX }, { "iters", 1, 0, O_ITERS }, { "seconds", 1, 0, O_SECONDS },
		{ "threads", 1, 0, O_THREADS }, { "fork", 1, 0, O_FORK },
		{ "lib-dir", 1, 0, O_LIBDIR }, { "second-copy", 1, 0, O_SECOND },
		{ "dlopen-delay", 1, 0, O_DLDELAY }, { "after-load", 1, 0, O_AFTER },
		{ "ready-file", 1, 0, O_READY }, { "wait-file", 1, 0, O_WAIT },
		{ "pin", 1, 0, O_PIN }, { "gap-ns", 1, 0, O_GAP }, { "bytes", 1, 0, O_BYTES },
		{ "kind", 1, 0, O_KIND }, { "stream", 1, 0, O_STREAM }, { "func", 1, 0, O_FUNC },
		{ "grid", 1, 0, O_GRID }, { "block", 1, 0, O_BLOCK }, { "shared", 1, 0, O_SHARED },
		{ "report", 1, 0, O_REPORT }, { "nccl-id", 1, 0, O_NCCLID },
		{ "nranks", 1, 0, O_NRANKS }, { "rank", 1, 0, O_RANK }, { "redop", 1, 0, O_REDOP },
		{ "root", 1, 0, O_ROOT }, { "peer", 1, 0, O_PEER }, { "split", 1, 0, O_SPLIT },
		{ "pin-host", 0, 0, O_PINHOST }, { "help", 0, 0, 'h' }, { 0, 0, 0, 0 },
	};
	static char self_dir[PATH_MAX];
	a.func = (uint64_t)(uintptr_t)kernel_stub;
	parse_mix("cudaMalloc=1,cudaMemcpy=2,cudaLaunchKernel=8,cudaStreamSynchronize=1,cudaFree=1");
	o.libs = 0;
	unsigned libs_from_mix = 0;
	int c;
	memset(&a.id, 0x5a, sizeof(a.id)); /* the default id, as before --nccl-id */
	while ((c = getopt_long(argc, argv, "h", lo, NULL)) != -1) {
		switch (c) {
		case O_MIX: o.libs = 0; parse_mix(optarg); libs_from_mix = o.libs; break;
		case O_ITERS: o.iters = (unsigned)strtoul(optarg, NULL, 0); break;
		case O_SECONDS: o.seconds = strtod(optarg, NULL); break;
		case O_THREADS: o.threads = (unsigned)strtoul(optarg, NULL, 0); break;
		case O_FORK: o.forks = (unsigned)strtoul(optarg, NULL, 0); break;
		case O_LIBDIR: o.lib_dir = optarg; break;
		case O_SECOND: o.second_dir = optarg; break;
		case O_DLDELAY: o.dlopen_delay_ms = (unsigned)strtoul(optarg, NULL, 0); break;
		case O_AFTER: o.after_load_ms = (unsigned)strtoul(optarg, NULL, 0); break;
		case O_READY: o.ready_file = optarg; break;
		case O_WAIT: o.wait_file = optarg; break;
		case O_PIN: o.pin = atoi(optarg); break;
		case O_GAP: o.gap_ns = strtoull(optarg, NULL, 0); break;
		case O_PINHOST: pin_host = 1; break;
		case O_BYTES: a.bytes = strtoull(optarg, NULL, 0); break;
		case O_KIND: a.kind = atoi(optarg); break;
		case O_STREAM: a.stream = strtoull(optarg, NULL, 16); break;
		case O_FUNC: a.func = strtoull(optarg, NULL, 16); break;
		case O_GRID: parse_dim(optarg, &a.grid); break;
		case O_BLOCK: parse_dim(optarg, &a.block); break;
		case O_SHARED: a.shared = (unsigned)strtoul(optarg, NULL, 0); break;
		case O_REPORT: o.report = optarg; break;
		case O_NCCLID: parse_id(optarg); break;
		case O_NRANKS: a.nranks = atoi(optarg); break;
		case O_RANK: a.rank = atoi(optarg); break;
		case O_REDOP: a.redop = atoi(optarg); break;
		case O_ROOT: a.root = atoi(optarg); break;
		case O_PEER: a.peer = atoi(optarg); break;
		case O_SPLIT:
			if (sscanf(optarg, "%d,%d", &a.color, &a.key) != 2)
				die("bad --split '%s' (want COLOR,KEY)", optarg);
			break;
		case 'h': usage(stdout); return 0;
		default: usage(stderr); return 2;
		}
	}
	if (optind < argc) {
		usage(stderr);
		return 2;
	}
	o.libs = libs_from_mix ? libs_from_mix : 1u << L_CUDART;
	if (!o.lib_dir) {
		ssize_t n = readlink("/proc/self/exe", self_dir, sizeof(self_dir) - 1);
		if (n <= 0)
			die("cannot read /proc/self/exe");
		self_dir[n] = 0;
		*strrchr(self_dir, '/') = 0;
		o.lib_dir = self_dir;
	}
	if (o.pin >= 0) {
		cpu_set_t set;
		CPU_ZERO(&set);
		CPU_SET(o.pin, &set);
		if (sched_setaffinity(0, sizeof(set), &set))
			die("cannot pin to CPU ");
	}
	sh = mmap(NULL, sizeof(*sh), PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	if (sh == MAP_FAILED)
		die("mmap failed");
	if (o.dlopen_delay_ms)
		sleep_ms(o.dlopen_delay_ms);
	load_copy(0, o.lib_dir);
	if (o.second_dir) {
		load_copy(1, o.second_dir);
		ncopies = 2;
	}
	o.loaded_ns = now_ns();
	if (o.ready_file) {
		FILE *f = fopen(o.ready_file, "w");
		if (!f)
			die("cannot create '%s'", o.ready_file);
		fprintf(f, "%d\n", (int)getpid());
		fclose(f);
	}
	if (o.wait_file) {
		struct stat st;
		while (stat(o.wait_file, &st))
			sleep_ms(5);
	}
	if (o.after_load_ms)
		sleep_ms(o.after_load_ms);
	uint64_t t0 = now_ns();
	pid_t kids[MAXPROC];
	unsigned nk = 0;
	for (unsigned k = 0; k < o.forks && k < MAXPROC - 1; k++) {
		pid_t p = fork();
		if (p < 0)
			die("fork failed");
		if (p == 0) {
			run_process();
			_exit(0);
		}
		kids[nk++] = p;
	}
	run_process();
	int bad = 0;
	for (unsigned k = 0; k < nk; k++) {
		int st;
		if (waitpid(kids[k], &st, 0) < 0 || !WIFEXITED(st) || WEXITSTATUS(st))
			bad = 1;
	}
	uint64_t elapsed = now_ns() - t0;
	FILE *f = o.report ? fopen(o.report, "w") : stdout;
	if (!f)
		die("cannot create '%s'", o.report);
	report(f, elapsed);
	if (f != stdout)
		fclose(f);
	else
		fflush(stdout);
	return bad ? 1 : 0;
}
