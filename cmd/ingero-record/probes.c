// SPDX-License-Identifier: MIT
/*
 * What to probe and how: the table of traced symbols (name -> op,
 * argument decoder), symbol resolution in a library file with libelf, and
 * uprobe/uretprobe attachment with the decoding recipe in the cookie.
 * Names that resolve to one address (cuMemAlloc = cuMemAlloc_v2,
 * ncclAllReduce = pncclAllReduce) are attached once, so a call is counted
 * once; _ptsz/_ptds twins have addresses of their own and are attached
 * under the same op.
 */
#include <errno.h>
#include <fcntl.h>
#include <fnmatch.h>
#include <gelf.h>
#include <libelf.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>
#include <bpf/bpf.h>
#include <bpf/libbpf.h>
#include "ingero/cli.h"
#include "ingero/vec.h"
#include "rec.h"
#include "bpf/record.skel.h"


struct pdef {
	const char *sym;
	uint8_t op, dec, kind1, sampleable, primary, cls;
};

#define RT_SYM(s, op, dec, smp, pri) { #s, ILOG_OP_##op, REC_DEC_##dec, 0, smp, pri, CL_RT }
#define DRV_SYM(s, op, dec, k1, smp, pri) \
	{ #s, ILOG_OP_##op, REC_DEC_##dec, k1, smp, pri, CL_DRV }
#define NC_SYM(s, op, dec, pri) { #s, ILOG_OP_##op, REC_DEC_##dec, 0, 0, pri, CL_NCCL }
/*
 * An op's symbols.  RT, DRV1: one, named as the op.  RT_PTSZ, RT_PTDS:
 * the op and its per-thread default stream twin (op_ptsz for a call that
 * takes a stream, op_ptds for one that does not).  DRV2: the primary
 * op##p and its twin op##t (either suffix may be empty: cuMemAlloc_v2 and
 * cuMemAlloc).  NC: the op and its profiling alias p##op.
 */
#define RT(op, dec, smp) RT_SYM(op, op, dec, smp, 1)
#define RT_PTSZ(op, dec, smp) RT(op, dec, smp), RT_SYM(op##_ptsz, op, dec, smp, 0)
#define RT_PTDS(op, dec, smp) RT(op, dec, smp), RT_SYM(op##_ptds, op, dec, smp, 0)
#define DRV1(op, dec, k1, smp, pri) DRV_SYM(op, op, dec, k1, smp, pri)
#define DRV2(op, p, t, dec, k1, smp) \
	DRV_SYM(op##p, op, dec, k1, smp, 1), DRV_SYM(op##t, op, dec, k1, smp, 0)
#define NC(op, dec) NC_SYM(op, op, dec, 1), NC_SYM(p##op, op, dec, 0)
/*
 * Sampling (--sampling-rate) may thin out only the high-rate calls:
 * kernel launches, copies, memsets, syncs.  Allocations, frees, every
 * graph call and NCCL are always recorded.  `primary` names are the ones worth reporting
 * when absent; twins and aliases are optional.
 */
static const struct pdef defs[] = {
	RT(cudaMalloc, ALLOC, 0),
	RT(cudaMallocManaged, ALLOC_FLAGS, 0),
	RT(cudaMallocHost, ALLOC, 0),
	RT(cudaFree, HANDLE, 0),
	RT(cudaFreeHost, HANDLE, 0),
	RT_PTSZ(cudaLaunchKernel, RT_LAUNCH, 1),
	RT_PTDS(cudaMemcpy, RT_MEMCPY, 1),
	RT_PTSZ(cudaMemcpyAsync, RT_MEMCPY, 1),
	RT_PTDS(cudaMemset, RT_MEMSET, 1),
	RT_PTSZ(cudaMemsetAsync, RT_MEMSET, 1),
	RT_PTSZ(cudaStreamSynchronize, STREAM, 1),
	RT(cudaDeviceSynchronize, NONE, 1),
	RT(cudaEventSynchronize, HANDLE, 1),
	RT_PTSZ(cudaStreamBeginCapture, BEGIN_CAPTURE, 0),
	RT_PTSZ(cudaStreamEndCapture, END_CAPTURE, 0),
	RT(cudaGraphInstantiate, INSTANTIATE, 0),
	RT(cudaGraphInstantiateWithFlags, INSTANTIATE, 0),
	RT_PTSZ(cudaGraphLaunch, GRAPH_LAUNCH, 0),
	DRV2(cuLaunchKernel, , _ptsz, CU_LAUNCH, 0, 1),
	DRV2(cuLaunchKernelEx, , _ptsz, CU_LAUNCH_EX, 0, 1),
	DRV2(cuMemAlloc, _v2, , ALLOC, 0, 0),
	DRV2(cuMemFree, _v2, , HANDLE, 0, 0),
	/* memcpy kind as cudaMemcpyKind + 1: 1 HtoH, 2 HtoD, 3 DtoH, 4 DtoD, 5 default */
	DRV2(cuMemcpy, , _ptds, CU_MEMCPY, 5, 1),
	DRV2(cuMemcpyAsync, , _ptsz, CU_MEMCPY, 5, 1),
	DRV2(cuMemcpyHtoD, _v2, _v2_ptds, CU_MEMCPY, 2, 1),
	DRV2(cuMemcpyDtoH, _v2, _v2_ptds, CU_MEMCPY, 3, 1),
	DRV2(cuMemcpyDtoD, _v2, _v2_ptds, CU_MEMCPY, 4, 1),
	DRV2(cuMemcpyHtoDAsync, _v2, _v2_ptsz, CU_MEMCPY, 2, 1),
	DRV2(cuMemcpyDtoHAsync, _v2, _v2_ptsz, CU_MEMCPY, 3, 1),
	DRV2(cuCtxSynchronize, , _v2, NONE, 0, 1),
	DRV2(cuStreamSynchronize, , _ptsz, STREAM, 0, 1),
	/* kernel names: the calls that make launch handles (SPEC §5.18) */
	DRV1(cuModuleGetFunction, GETFUNC, 0, 0, 1),
	DRV1(cuLibraryGetKernel, GETFUNC, 0, 0, 0),
	DRV1(cuKernelGetFunction, KERNFUNC, 0, 0, 0),
	NC(ncclAllReduce, NCCL_COLL),
	NC(ncclAllGather, NCCL_GATHER),
	NC(ncclReduceScatter, NCCL_COLL),
	NC(ncclBroadcast, NCCL_COLL),
	NC(ncclSend, NCCL_P2P),
	NC(ncclRecv, NCCL_P2P),
	NC(ncclCommInitRank, NCCL_INIT),
	NC(ncclCommDestroy, HANDLE),
	/* 1.4: the rest of a multi-rank job's calls (SPEC §5.4) */
	NC(ncclReduce, NCCL_REDUCE),
	NC(ncclBcast, NCCL_P2P),
	NC(ncclGroupStart, NONE),
	NC(ncclGroupEnd, NONE),
	NC(ncclCommInitRankConfig, NCCL_INIT),
	NC(ncclCommInitAll, NCCL_INITALL),
	NC(ncclCommSplit, NCCL_SPLIT),
	/* 1.5: pinned host ranges (a copy's host side is pinned or pageable),
	 * stream-ordered and pool allocations (SPEC §5.4) */
	RT(cudaHostAlloc, ALLOC_FLAGS, 0),
	RT(cudaHostRegister, HOST_REG, 0),
	RT(cudaHostUnregister, HANDLE, 0),
	RT_PTSZ(cudaMallocAsync, ALLOC_STREAM, 0),
	RT_PTSZ(cudaFreeAsync, HANDLE_STREAM, 0),
	RT_PTSZ(cudaMallocFromPoolAsync, ALLOC_POOL, 0),
	DRV1(cuMemHostAlloc, ALLOC_FLAGS, 0, 0, 1),
	DRV2(cuMemAllocHost, _v2, , ALLOC, 0, 0),
	DRV2(cuMemHostRegister, _v2, , HOST_REG, 0, 0),
	DRV1(cuMemHostUnregister, HANDLE, 0, 0, 1),
	DRV1(cuMemFreeHost, HANDLE, 0, 0, 1),
	DRV2(cuMemAllocAsync, , _ptsz, ALLOC_STREAM, 0, 0),
	DRV2(cuMemFreeAsync, , _ptsz, HANDLE_STREAM, 0, 0),
	DRV2(cuMemAllocFromPoolAsync, , _ptsz, ALLOC_POOL, 0, 0),
};
#define NDEFS (sizeof(defs) / sizeof(defs[0]))

static const char *base_name(const char *path)
{
	const char *s = strrchr(path, '/');
	return s ? s + 1 : path;
}

int rec_lib_class(const char *path)
{
	const char *b = base_name(path);
	if (!strncmp(b, "libcudart.so", 12))
		return CL_RT;
	if (!strncmp(b, "libcuda.so", 10))
		return CL_DRV;
	if (!strncmp(b, "libnccl.so", 10))
		return CL_NCCL;
	return -1;
}

int rec_is_interp(const char *path)
{
	return !strncmp(base_name(path), "ld-linux", 8);
}

/* A symbol found in the file: which def, at which file offset. */
struct hit {
	uint64_t off;
	unsigned def;
};

static int hit_cmp(const void *a, const void *b)
{
	const struct hit *x = a, *y = b;
	if (x->off != y->off)
		return x->off < y->off ? -1 : 1;
	/* at one address, prefer the primary name (cuMemAlloc_v2 over cuMemAlloc) */
	if (defs[x->def].primary != defs[y->def].primary)
		return defs[x->def].primary ? -1 : 1;
	return (int)x->def - (int)y->def;
}

/* The file offset of a symbol's address: through the PT_LOAD that maps
 * it.  UINT64_MAX when none does. */
static uint64_t sym_file_off(Elf *e, size_t nph, uint64_t value)
{
	for (size_t p = 0; p < nph; p++) {
		GElf_Phdr ph;
		if (gelf_getphdr(e, (int)p, &ph) && ph.p_type == PT_LOAD && value >= ph.p_vaddr &&
		    value < ph.p_vaddr + ph.p_filesz)
			return value - ph.p_vaddr + ph.p_offset;
	}
	return UINT64_MAX;
}

/*
 * fn(arg, name, file offset, symbol) for each defined function symbol of
 * an ELF file's symbol tables (.dynsym and .symtab, or .dynsym alone)
 * that a PT_LOAD maps; fn returns nonzero to stop.  0, or -1 with err set.
 */
static int for_each_func(const char *path, int dyn_only,
			 int (*fn)(void *arg, const char *name, uint64_t off, const GElf_Sym *s),
			 void *arg, char *err, size_t errlen)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0) {
		snprintf(err, errlen, "%s: %s", path, strerror(errno));
		return -1;
	}
	elf_version(EV_CURRENT);
	Elf *e = elf_begin(fd, ELF_C_READ_MMAP, NULL);
	int rc = 0;
	size_t nph = 0;
	if (!e || elf_kind(e) != ELF_K_ELF || elf_getphdrnum(e, &nph)) {
		snprintf(err, errlen, "%s: not an ELF file", path);
		rc = -1;
		goto out;
	}
	Elf_Scn *scn = NULL;
	while ((scn = elf_nextscn(e, scn))) {
		GElf_Shdr sh;
		if (!gelf_getshdr(scn, &sh) ||
		    (sh.sh_type != SHT_DYNSYM && (dyn_only || sh.sh_type != SHT_SYMTAB)))
			continue;
		Elf_Data *d = elf_getdata(scn, NULL);
		if (!d || !sh.sh_entsize)
			continue;
		size_t cnt = sh.sh_size / sh.sh_entsize;
		for (size_t i = 0; i < cnt; i++) {
			GElf_Sym s;
			if (!gelf_getsym(d, (int)i, &s) || GELF_ST_TYPE(s.st_info) != STT_FUNC ||
			    s.st_shndx == SHN_UNDEF || !s.st_value)
				continue;
			const char *name = elf_strptr(e, sh.sh_link, s.st_name);
			uint64_t off = name ? sym_file_off(e, nph, s.st_value) : UINT64_MAX;
			if (off == UINT64_MAX)
				continue;
			if ((rc = fn(arg, name, off, &s)))
				goto out;
		}
	}
out:
	if (e)
		elf_end(e);
	close(fd);
	return rc < 0 ? -1 : 0;
}

struct resolve_ctx {
	int cls;
	const char *only;
	struct hit *hits;
	unsigned cap;
	int n;
	uint64_t *only_off;
};

static int resolve_one(void *arg, const char *name, uint64_t off, const GElf_Sym *s)
{
	(void)s;
	struct resolve_ctx *x = arg;
	if (name[0] != 'c' && name[0] != 'n' && name[0] != 'p' && name[0] != '_')
		return 0;
	if (x->only) {
		if (strcmp(name, x->only))
			return 0;
		*x->only_off = off;
		x->n = 1;
		return 1;
	}
	for (unsigned k = 0; k < NDEFS; k++) {
		if (defs[k].cls != x->cls || strcmp(defs[k].sym, name))
			continue;
		/* the same name in .dynsym and .symtab: once */
		for (int j = 0; j < x->n; j++)
			if (x->hits[j].def == k && x->hits[j].off == off)
				return 0;
		if ((unsigned)x->n < x->cap)
			x->hits[x->n++] = (struct hit){ off, k };
		return 0;
	}
	return 0;
}

/*
 * Resolve the traced symbols of class `cls` (or the single name `only`)
 * in an ELF file to file offsets.  Returns the number of hits, -1 on error.
 */
static int resolve(const char *path, int cls, const char *only, struct hit *hits, unsigned cap,
		   uint64_t *only_off, char *err, size_t errlen)
{
	struct resolve_ctx x = { cls, only, hits, cap, 0, only_off };
	return for_each_func(path, 0, resolve_one, &x, err, errlen) ? -1 : x.n;
}

/* --api: is `name` in the list ("all", or comma-separated names and globs)? */
static int api_match(const char *api, const char *name)
{
	if (!strcmp(api, "all"))
		return 1;
	for (const char *p = api; *p;) {
		size_t n = strcspn(p, ",");
		char pat[256];
		if (n && n < sizeof(pat)) {
			memcpy(pat, p, n);
			pat[n] = 0;
			if (!fnmatch(pat, name, 0))
				return 1;
		}
		p += n;
		if (*p)
			p++;
	}
	return 0;
}

static int is_decoded_name(const char *name)
{
	for (unsigned k = 0; k < NDEFS; k++)
		if (!strcmp(defs[k].sym, name))
			return 1;
	return 0;
}

/* An exported function for --api: its file offset and name. */
struct api_fn {
	uint64_t off;
	char *name;
};

static int api_fn_cmp(const void *a, const void *b)
{
	const struct api_fn *x = a, *y = b;
	if (x->off != y->off)
		return x->off < y->off ? -1 : 1;
	return strcmp(x->name, y->name);
}

struct api_ctx {
	const char *api;
	struct api_fn *v;
	uint32_t n, cap;
};

static int api_one(void *arg, const char *name, uint64_t off, const GElf_Sym *s)
{
	struct api_ctx *x = arg;
	if ((GELF_ST_BIND(s->st_info) != STB_GLOBAL && GELF_ST_BIND(s->st_info) != STB_WEAK) ||
	    GELF_ST_VISIBILITY(s->st_other) != STV_DEFAULT || !*name || strlen(name) > 255 ||
	    is_decoded_name(name) || !api_match(x->api, name))
		return 0;
	if (ilog_grow((void **)&x->v, &x->cap, x->n, sizeof(*x->v), 256))
		return -1;
	if (!(x->v[x->n].name = strdup(name)))
		return -1;
	x->v[x->n++].off = off;
	return 0;
}

/*
 * --api: the functions a library exports (its dynamic symbol table:
 * defined, global or weak, default visibility) that the list selects and
 * the decoded table does not hold, one per address (the first name in
 * byte order among aliases), sorted by offset.  Returns how many (*out
 * allocated, names too), -1 on error.
 */
static int api_collect(const char *path, const char *api, struct api_fn **out, char *err,
		       size_t errlen)
{
	struct api_ctx x = { api, NULL, 0, 0 };
	*out = NULL;
	err[0] = 0;
	if (for_each_func(path, 1, api_one, &x, err, errlen)) {
		if (!err[0])
			snprintf(err, errlen, "out of memory");
		for (size_t i = 0; i < x.n; i++)
			free(x.v[i].name);
		free(x.v);
		return -1;
	}
	if (x.n) /* no match: x.v is NULL, and qsort's base must not be */
		qsort(x.v, x.n, sizeof(*x.v), api_fn_cmp);
	size_t m = 0;
	for (size_t i = 0; i < x.n; i++) {
		if (m && x.v[m - 1].off == x.v[i].off) {
			free(x.v[i].name); /* an alias of the name just kept */
			continue;
		}
		x.v[m++] = x.v[i];
	}
	*out = x.v;
	return (int)m;
}

static struct rec_lib *lib_find_or_add(struct rec *r, const char *path, const char *open_path,
				       int *is_new)
{
	struct stat st;
	*is_new = 0;
	if (stat(open_path, &st)) {
		snprintf(r->err, sizeof(r->err), "%s: %s", path, strerror(errno));
		return NULL;
	}
	for (unsigned i = 0; i < r->nlibs; i++)
		if (r->libs[i].dev == st.st_dev && r->libs[i].ino == st.st_ino)
			return &r->libs[i];
	if (ilog_grow((void **)&r->libs, &r->caplibs, r->nlibs, sizeof(*r->libs), 8)) {
		snprintf(r->err, sizeof(r->err), "out of memory");
		return NULL;
	}
	struct rec_lib *l = &r->libs[r->nlibs++];
	memset(l, 0, sizeof(*l));
	l->mfd[0] = l->mfd[1] = -1;
	l->dev = st.st_dev;
	l->ino = st.st_ino;
	snprintf(l->path, sizeof(l->path), "%s", path);
	*is_new = 1;
	return l;
}

static int add_link(struct rec_lib *l, struct bpf_link *k)
{
	struct bpf_link **n = realloc(l->links, (size_t)(l->nlinks + 1) * sizeof(*n));
	if (!n)
		return -1;
	l->links = n;
	l->links[l->nlinks++] = k;
	return 0;
}

static struct bpf_link *attach_one(struct rec *r, const char *open_path, uint64_t off,
				   uint64_t cookie, int ret)
{
	LIBBPF_OPTS(bpf_uprobe_opts, uo, .bpf_cookie = cookie, .retprobe = ret);
	struct bpf_program *p = ret ? r->skel->progs.cuda_return : r->skel->progs.cuda_entry;
	return bpf_program__attach_uprobe_opts(p, -1, open_path, (size_t)off, &uo);
}

/* BPF_LINK_CREATE for uprobe_multi (Linux 6.6), laid out by hand because
 * the libbpf and UAPI headers this builds against may predate it. */
#define REC_TRACE_UPROBE_MULTI 48
#define REC_TRACE_UPROBE_SESSION 57 /* Linux 6.13 */
#define REC_UPROBE_MULTI_RETURN 1
struct link_create_um {
	uint32_t prog_fd, target_fd, attach_type, flags;
	uint64_t path, offsets, ref_ctr_offsets, cookies;
	uint32_t cnt, um_flags, pid;
	uint8_t tail[92]; /* zero: the rest of union bpf_attr */
};

/* ret: 0 entry, 1 return (uprobe_multi), 2 one session program for both */
static int attach_multi(struct rec *r, const char *open_path, const uint64_t *offs,
			const uint64_t *cookies, unsigned n, int ret)
{
	struct bpf_program *p = ret == 2 ? r->skel->progs.cuda_session
				: ret ? r->skel->progs.cuda_return_multi
				      : r->skel->progs.cuda_entry_multi;
	struct link_create_um a;
	memset(&a, 0, sizeof(a));
	a.prog_fd = (uint32_t)bpf_program__fd(p);
	a.attach_type = ret == 2 ? REC_TRACE_UPROBE_SESSION : REC_TRACE_UPROBE_MULTI;
	a.path = (uint64_t)(uintptr_t)open_path;
	a.offsets = (uint64_t)(uintptr_t)offs;
	a.cookies = (uint64_t)(uintptr_t)cookies;
	a.cnt = n;
	a.um_flags = ret == 1 ? REC_UPROBE_MULTI_RETURN : 0;
	return (int)syscall(__NR_bpf, BPF_LINK_CREATE, &a, sizeof(a));
}

/*
 * Attach n probes (entry and return for each, or entry only) to a file:
 * two uprobe_multi links where the kernel has them, else a pair of perf
 * uprobes per function.  Returns how many functions got probes.
 */
static int attach_set(struct rec *r, struct rec_lib *l, const char *open_path,
		      const uint64_t *offs, const uint64_t *cookies, unsigned n, int with_ret)
{
	if (r->session && with_ret && n) {
		int s = attach_multi(r, open_path, offs, cookies, n, 2);
		if (s >= 0) {
			l->mfd[0] = s;
			return (int)n;
		}
		ilog_warnf("%s: cannot attach the session probes: %s; using probe pairs", l->path,
			   strerror(errno));
		r->session = 0;
	}
	/* with the session program loaded, the return uprobe_multi one is not:
	 * a file the session link refused gets perf uprobe pairs */
	if (r->multi && n && (!with_ret || bpf_program__fd(r->skel->progs.cuda_return_multi) >= 0)) {
		int in = attach_multi(r, open_path, offs, cookies, n, 0);
		int out = in >= 0 && with_ret ? attach_multi(r, open_path, offs, cookies, n, 1) : -1;
		if (in >= 0 && (out >= 0 || !with_ret)) {
			l->mfd[0] = in;
			l->mfd[1] = out;
			return (int)n;
		}
		int e = errno;
		if (in >= 0)
			close(in);
		if (e != EINVAL && e != EOPNOTSUPP && e != ENOSYS && e != E2BIG) {
			ilog_warnf("%s: cannot attach: %s", l->path, strerror(e));
			return 0; /* the file, not the method: e.g. it is gone */
		}
		if (ILOG_VERBOSE(1))
			ilog_warnf("uprobe_multi: %s; using one uprobe per function", strerror(e));
		r->multi = 0;
	}
	int ok = 0, failed = 0;
	for (unsigned j = 0; j < n; j++) {
		struct bpf_link *in = attach_one(r, open_path, offs[j], cookies[j], 0);
		struct bpf_link *out = in && with_ret ? attach_one(r, open_path, offs[j], cookies[j], 1)
						      : NULL;
		if (!in || (with_ret && !out)) {
			int e = errno;
			bpf_link__destroy(in);
			if (!failed++)
				ilog_warnf("%s: cannot attach at offset 0x%llx: %s", l->path,
					   (unsigned long long)offs[j], strerror(e));
			continue;
		}
		if (add_link(l, in) || (out && add_link(l, out))) {
			bpf_link__destroy(in);
			bpf_link__destroy(out);
			continue;
		}
		ok++;
	}
	return ok;
}

int rec_attach_lib(struct rec *r, const char *path, const char *open_path)
{
	int cls = rec_lib_class(path), is_new;
	if (cls < 0)
		return 0;
	struct rec_lib *l = lib_find_or_add(r, path, open_path, &is_new);
	if (!l)
		return -1;
	if (!is_new)
		return 0;
	struct hit hits[NDEFS * 2];
	int n = resolve(open_path, cls, NULL, hits, NDEFS * 2, NULL, r->err, sizeof(r->err));
	if (n < 0)
		return -1;
	qsort(hits, (size_t)n, sizeof(hits[0]), hit_cmp);
	char missing[1024] = "";
	unsigned mlen = 0, nmissing = 0;
	for (unsigned k = 0; k < NDEFS; k++) {
		if (defs[k].cls != cls || !defs[k].primary)
			continue;
		/* an op is missing when none of its names is in the file */
		int have = 0;
		for (int j = 0; j < n && !have; j++)
			have = defs[hits[j].def].op == defs[k].op;
		if (!have) {
			nmissing++;
			if (mlen < sizeof(missing) - 64)
				mlen += (unsigned)snprintf(missing + mlen, sizeof(missing) - mlen,
							   "%s%s", mlen ? ", " : "", defs[k].sym);
		}
	}
	struct api_fn *api = NULL;
	int napi = 0;
	if (r->o.api && (napi = api_collect(open_path, r->o.api, &api, r->err, sizeof(r->err))) < 0)
		return -1;
	uint64_t *offs = malloc((NDEFS * 2 + (size_t)napi) * sizeof(*offs));
	uint64_t *cookies = malloc((NDEFS * 2 + (size_t)napi) * sizeof(*cookies));
	unsigned m = 0, unnumbered = 0;
	if (!offs || !cookies) {
		snprintf(r->err, sizeof(r->err), "out of memory");
		free(offs);
		free(cookies);
		for (int j = 0; j < napi; j++)
			free(api[j].name);
		free(api);
		return -1;
	}
	for (int j = 0; j < n; j++) {
		if (j && hits[j].off == hits[j - 1].off)
			continue; /* an alias of the name just taken: once */
		const struct pdef *d = &defs[hits[j].def];
		offs[m] = hits[j].off;
		cookies[m++] = REC_COOKIE(d->op, d->dec, ilog_op_layer(d->op), d->kind1,
					  d->sampleable);
	}
	/* --api: named ops (SPEC §5.17), after the decoded ones; an address
	 * the table already probes (an alias of a decoded name) stays decoded */
	unsigned ndec = m;
	for (int j = 0; j < napi; j++) {
		int dup = 0;
		for (unsigned k = 0; k < ndec && !dup; k++)
			dup = offs[k] == api[j].off;
		int op = dup ? -1 : ilog_op_intern(api[j].name, strlen(api[j].name), (uint32_t)cls, 0);
		if (!dup && (op < 0 || op >= REC_MAX_OPS))
			unnumbered++;
		else if (!dup) {
			offs[m] = api[j].off;
			cookies[m++] = REC_COOKIE(op, REC_DEC_RAW, cls, 0, 0);
		}
		free(api[j].name);
	}
	free(api);
	if (unnumbered)
		ilog_warnf("%s: %u functions not traced: more than %d named ops", path, unnumbered,
			   REC_MAX_OPS - ILOG_OP_NAMED_FIRST);
	uint64_t t0 = rec_now(CLOCK_MONOTONIC);
	l->nprobes = attach_set(r, l, open_path, offs, cookies, m, 1);
	uint64_t t1 = rec_now(CLOCK_MONOTONIC);
	free(offs);
	free(cookies);
	if (m && !l->nprobes) {
		/* forget it, so a later sighting tries again */
		free(l->links);
		r->nlibs--;
		return 0;
	}
	r->nprobes += (unsigned)l->nprobes;
	rec_hold_file(r, path, open_path, l->dev, l->ino);
	if (nmissing && ILOG_VERBOSE(1))
		ilog_warnf("%s: %u traced function%s not in this library, skipped: %s", path,
			   nmissing, nmissing == 1 ? " is" : "s are", missing);
	if (ILOG_VERBOSE(1))
		fprintf(stderr, "%s: attached %d probes (%u named ops) to %s in %.1f ms\n", ilog_prog,
			l->nprobes, m - ndec, path, (double)(t1 - t0) / 1e6);
	return 0;
}

int rec_attach_dlhook(struct rec *r, const char *path, const char *open_path)
{
	int is_new;
	struct rec_lib *l = lib_find_or_add(r, path, open_path, &is_new);
	if (!l)
		return -1;
	if (!is_new)
		return 0;
	uint64_t off = 0;
	int n = resolve(open_path, -1, "_dl_debug_state", NULL, 0, &off, r->err, sizeof(r->err));
	if (n <= 0) {
		if (ILOG_VERBOSE(1))
			ilog_warnf("%s: no _dl_debug_state: libraries it loads are found by rescans",
				   path);
		return 0;
	}
	uint64_t cookie = REC_COOKIE_DLHOOK;
	if (attach_set(r, l, open_path, &off, &cookie, 1, 0) != 1) {
		free(l->links);
		r->nlibs--;
		return 0;
	}
	if (ILOG_VERBOSE(1))
		fprintf(stderr, "%s: watching dlopen through %s\n", ilog_prog, path);
	return 0;
}

struct detach_job {
	struct bpf_link **links;
	unsigned n, next; /* atomic */
};

static void *detach_worker(void *arg)
{
	struct detach_job *j = arg;
	for (;;) {
		unsigned i = __atomic_fetch_add(&j->next, 1, __ATOMIC_RELAXED);
		if (i >= j->n)
			return NULL;
		bpf_link__destroy(j->links[i]);
	}
}

/*
 * Removing a uprobe waits for an RCU grace period (~0.1 s here), one
 * after another if done in a loop: 100 probes took 10 s.  Waiters in
 * parallel share grace periods, so detach from a pool of threads.
 */
void rec_detach_all(struct rec *r)
{
	unsigned n = 0;
	for (unsigned i = 0; i < r->nlibs; i++)
		n += (unsigned)r->libs[i].nlinks;
	struct bpf_link **all = n ? malloc(n * sizeof(*all)) : NULL;
	struct detach_job j = { all, 0, 0 };
	for (unsigned i = 0; i < r->nlibs; i++) {
		for (int k = 0; k < r->libs[i].nlinks; k++) {
			if (all)
				all[j.n++] = r->libs[i].links[k];
			else
				bpf_link__destroy(r->libs[i].links[k]);
		}
		free(r->libs[i].links);
		r->libs[i].links = NULL;
		r->libs[i].nlinks = 0;
		for (int k = 0; k < 2; k++) {
			if (r->libs[i].mfd[k] >= 0)
				close(r->libs[i].mfd[k]);
			r->libs[i].mfd[k] = -1;
		}
	}
	pthread_t th[64];
	unsigned nt = 0;
	while (nt < 64 && nt * 2 < j.n && !pthread_create(&th[nt], NULL, detach_worker, &j))
		nt++;
	detach_worker(&j);
	for (unsigned t = 0; t < nt; t++)
		pthread_join(th[t], NULL);
	free(all);
}

int rec_probe_count(const char *path, int *found, int *total, char *missing, size_t len)
{
	int cls = rec_lib_class(path);
	char err[256];
	struct hit hits[NDEFS * 2];
	*found = *total = 0;
	if (len)
		missing[0] = 0;
	if (cls < 0)
		return -1;
	int n = resolve(path, cls, NULL, hits, NDEFS * 2, NULL, err, sizeof(err));
	if (n < 0)
		return -1;
	size_t ml = 0;
	for (unsigned k = 0; k < NDEFS; k++) {
		if (defs[k].cls != cls || !defs[k].primary)
			continue;
		(*total)++;
		int have = 0;
		for (int j = 0; j < n && !have; j++)
			have = defs[hits[j].def].op == defs[k].op;
		if (have)
			(*found)++;
		else if (ml + 64 < len)
			ml += (size_t)snprintf(missing + ml, len - ml, "%s%s", ml ? ", " : "",
					       defs[k].sym);
	}
	return 0;
}
