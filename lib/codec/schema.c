// SPDX-License-Identifier: MIT
/* Record layouts (SPEC §5) and the names used at the edges. */
#include <stddef.h>
#include <pthread.h>
#include <string.h>
#include <arpa/inet.h>
#include "ingero/schema.h"

/* A table of fields (below: a kind's, or an array's elements'). */
#define FIELDS(name) static const struct ilog_field name[] =
/*
 * A field of struct E (each table defines E as the struct it lays out):
 * FN names it, F names it after its member; after the layout, its SQL
 * members (schema.h), if any.  The shorthands are the common layouts.
 */
#define FN(fld, nm, ty, vw, ...) \
	{ .name = nm, .type = ty, .view = vw, .off = offsetof(E, fld), __VA_ARGS__ }
#define F(fld, ty, vw, ...) FN(fld, #fld, ty, vw, __VA_ARGS__)
#define U8(fld) F(fld, FT_U8, FV_NUM)
#define U16(fld) F(fld, FT_U16, FV_NUM)
#define U32(fld) F(fld, FT_U32, FV_NUM)
#define U64(fld) F(fld, FT_U64, FV_NUM)
#define S64(fld) F(fld, FT_S64, FV_NUM)
#define F64(fld) F(fld, FT_F64, FV_NUM)
#define HEX(fld) F(fld, FT_U64, FV_HEX)
#define STR(fld) F(fld, FT_STR, FV_STR)
#define CHARS(fld) F(fld, FT_CHARS, FV_STR)
#define BYTES(fld) F(fld, FT_BIN, FV_HEXBYTES)
/* A record's time, the SQL sinks' column "ts": delta coded (§4.3), or in
 * a kind after 1.0 a plain monotonic time (§8.2) named nm. */
#define TS(sql_flags) F(ts_ns, FT_TS, FV_NUM, .col = "ts", .sql = sql_flags)
#define MONO_TS(nm, sql_flags) FN(ts_ns, nm, FT_U64, FV_MONO, .col = "ts", .sql = sql_flags)
/* An array member and its count, the array's elements laid out by subtab. */
#define A(fld, cnt, subtab, ...) \
	{ .name = #fld, .type = FT_ARR, .view = FV_NUM, .off = offsetof(E, fld), \
	  .cnt_off = offsetof(E, cnt), .esize = sizeof(((E *)0)->fld[0]), \
	  .max = sizeof(((E *)0)->fld) / sizeof(((E *)0)->fld[0]), \
	  .nsub = sizeof(subtab) / sizeof(subtab[0]), .sub = subtab, __VA_ARGS__ }
#define SQL_ARGS(...) __VA_ARGS__

/* The elements of the arrays of scalars: strings, hex and plain numbers. */
#define SCALAR(ty, vw) { { .name = "", .type = ty, .view = vw, .off = 0 } }
FIELDS(str_elem) SCALAR(FT_STR, FV_STR);
FIELDS(hex_elem) SCALAR(FT_U64, FV_HEX);
FIELDS(count_elem) SCALAR(FT_U64, FV_NUM);

#define E struct ilog_header
FIELDS(header_f) {
	STR(magic),
	U32(version_major),
	U32(version_minor),
	STR(node),
	STR(boot_id),
	STR(host),
	STR(recorder),
	STR(kernel),
	STR(driver),
	HEX(session_id),
	S64(rank),
	U64(mono_ns),
	U64(boot_ns),
	U64(real_ns),
	U32(node_index),
};
#undef E

#define E struct ilog_clock
FIELDS(clock_f) {
	U64(mono_ns),
	U64(boot_ns),
	U64(real_ns),
};
#undef E

#define E struct ilog_schema
FIELDS(schema_f) {
	U32(kind),
	STR(name),
	A(fields, nfields, str_elem),
};
#undef E

#define E struct ingero_cuda_event
#define CUDA_F(fld, nm, ty, vw, sql) FN(fld, nm, ty, vw, SQL_ARGS sql),
/* appended in 1.2: raw arguments of a named op (1.4: an NCCL op's decoded
 * ones); writers leave the field out when empty (§4.4) and JSON shows it
 * only when present; in no SQL table */
#define CUDA_ARGS_F \
	{ .name = "args", .type = FT_ARR, .view = FV_OMIT_EMPTY, .off = offsetof(E, args), \
	  .cnt_off = offsetof(E, nargs), .esize = sizeof(__u64), .max = ILOG_CUDA_MAX_ARGS, \
	  .nsub = 1, .sub = hex_elem, .sql = ILOG_COL_SKIP }
FIELDS(cuda_f) {
	ILOG_CUDA_FIELDS(CUDA_F)
	CUDA_ARGS_F,
};
/* 1.4: a call in progress, with cuda's fields; a kind after 1.0 is not
 * delta coded (§8.2), so its ts_ns is a plain time, followed by "time" */
#define INFLIGHT_F(fld, nm, ty, vw, sql) \
	FN(fld, nm, (ty) == FT_TS ? FT_U64 : (ty), (ty) == FT_TS ? FV_MONO : (vw), SQL_ARGS sql),
FIELDS(inflight_f) {
	ILOG_CUDA_FIELDS(INFLIGHT_F)
	CUDA_ARGS_F,
};
#undef INFLIGHT_F
#undef CUDA_ARGS_F
#undef CUDA_F
#undef E

#define E struct ingero_host_event
FIELDS(host_f) {
	TS(ILOG_COL_NOTNULL),
	FN(type, "host_type", FT_U16, FV_HOST, .col = "type"),
	U32(pid),
	U32(tid),
	U32(other_pid),
	U32(other_tid),
	/* the tables list the duration beside the time, the cpu before the value */
	F(dur_ns, FT_U64, FV_NUM, .after = "ts_ns"),
	U64(value),
	F(cpu, FT_U32, FV_NUM, .after = "other_tid"),
	CHARS(comm),
	CHARS(other_comm),
	U64(cgroup_id),
};
#undef E

#define E struct ingero_stack
FIELDS(stack_f) {
	HEX(id),
	U32(pid),
	A(ips, nr, hex_elem),
};
#undef E

#define E struct ingero_pyframe
FIELDS(pyframe_elem) {
	HEX(code),
	U32(lasti),
};
#undef E
#define E struct ingero_pystack
FIELDS(pystack_f) {
	HEX(id),
	U32(pid),
	A(frames, nr, pyframe_elem),
	HEX(entry),
};
#undef E

#define E struct ilog_process
FIELDS(process_f) {
	TS(0),
	U32(pid),
	U32(ppid),
	U32(uid),
	U64(start_ns),
	STR(comm),
	STR(exe),
	FN(cmdline, "argv", FT_BIN, FV_ARGV),
	STR(cgroup),
	U64(cgroup_id),
	STR(pod_uid),
	STR(container_id),
};
#undef E

#define E struct ilog_mapping
FIELDS(mapping_f) {
	TS(0),
	U32(pid),
	HEX(start),
	HEX(end),
	F(offset, FT_U64, FV_HEX, .col = "file_offset"),
	U32(prot),
	STR(path),
	BYTES(build_id),
};
#undef E

#define E struct ilog_pycode
FIELDS(pycode_f) {
	U32(pid),
	HEX(code),
	F(py_version, FT_U32, FV_HEX),
	STR(filename),
	STR(qualname),
	U32(firstlineno),
	F(linetable, FT_BIN, FV_HEXBYTES, .sql = ILOG_COL_BLOB),
};
#undef E

#define E struct ilog_snapshot_proc
FIELDS(sproc_elem) {
	U32(pid),
	F64(cpu_pct),
	U64(rss),
	/* appended in 1.2: ClickHouse's arrays of them follow the PSI columns */
	F(rss_growth, FT_S64, FV_NUM, .ch_after = "psi_io_full"),
	F(comm, FT_CHARS, FV_STR, .ch_after = "psi_io_full"),
};
#undef E
#define E struct ilog_snapshot
FIELDS(snapshot_f) {
	TS(ILOG_COL_NOTNULL),
	F64(cpu_pct),
	U32(ncpu),
	U64(mem_total),
	U64(mem_avail),
	U64(swap_total),
	U64(swap_free),
	F64(load1),
	F64(load5),
	F64(load15),
	A(procs, nprocs, sproc_elem, .ch = "proc"),
	F64(psi_cpu_some),
	F64(psi_mem_some),
	F64(psi_mem_full),
	F64(psi_io_some),
	F64(psi_io_full),
	F64(steal_pct),
};
#undef E

#define E struct ilog_loss
FIELDS(loss_f) {
	TS(0),
	F(source, FT_STR, FV_STR, .sql = ILOG_COL_LOWCARD),
	U64(lost),
	U64(seen),
};
#undef E

#define E struct ilog_trigger
FIELDS(trigger_f) {
	/* 1.5: not delta coded (§8.2) */
	MONO_TS("ts_ns", 0),
	STR(reason),
	U32(pid),
	U32(tid),
	F(op, FT_U16, FV_OP),
	U64(value_ns),
	U64(baseline_ns),
	U64(before_ns),
	U64(after_ns),
	U32(seq),
};
#undef E

#define E struct ilog_symbol
FIELDS(symbol_f) {
	U32(pid),
	HEX(ip),
	BYTES(build_id),
	STR(module),
	HEX(module_off),
	STR(function),
	U64(sym_off),
	STR(file),
	U32(line),
	U32(inline_depth),
};
#undef E

#define E struct ilog_chain
FIELDS(chain_f) {
	F(id, FT_U64, FV_HEX, .col = "chain_id"),
	F(ts_start, FT_U64, FV_MONO),
	F(ts_end, FT_U64, FV_NUM, .sql = ILOG_COL_WALL),
	F(severity, FT_U32, FV_SEV, .sql = ILOG_COL_CH8),
	F(pattern, FT_STR, FV_STR, .sql = ILOG_COL_LOWCARD),
	U32(pid),
	F(op, FT_U16, FV_OP),
	F64(score),
	STR(title),
	STR(root_cause),
	STR(fix),
	STR(evidence),
	STR(comm),
	U32(culprit_pid),
	STR(culprit_comm),
	U64(lost_ns),
	STR(metrics),
};
#undef E

#define E struct ilog_provenance
FIELDS(provenance_f) {
	U64(real_ns),
	STR(tool),
	STR(version),
	STR(args),
};
#undef E

#define E struct ilog_node
FIELDS(node_f) {
	U32(node_index),
};
#undef E

#define E struct ilog_kernel
FIELDS(kernel_f) {
	U32(pid),
	HEX(handle),
	STR(name),
};
#undef E

#define E struct ilog_opname
FIELDS(opname_f) {
	U16(op),
	F(layer, FT_U8, FV_LAYER),
	STR(name),
};
#undef E

#define E struct ilog_blkio
FIELDS(blkio_f) {
	MONO_TS("ts_start", ILOG_COL_NOTNULL),
	U64(dur_ns),
	U32(major),
	U32(minor),
	F(disk, FT_STR, FV_STR, .sql = ILOG_COL_LOWCARD),
	U32(pid),
	U32(nprocs),
	CHARS(comm),
	U64(cgroup_id),
	U64(ios),
	U64(bytes),
	U64(read_ios),
	U64(read_bytes),
	U64(lat_sum_ns),
	U64(lat_max_ns),
	A(hist, nhist, count_elem),
};
#undef E

#define E struct ilog_retrans
FIELDS(retrans_f) {
	MONO_TS("ts_start", ILOG_COL_NOTNULL),
	U64(dur_ns),
	U32(pid),
	CHARS(comm),
	U64(cgroup_id),
	U8(family),
	F(saddr, FT_BIN, FV_INET),
	F(daddr, FT_BIN, FV_INET),
	U16(sport),
	U16(dport),
	U64(count),
	F(state, FT_U8, FV_TCPSTATE),
	U32(flows),
};
#undef E

#define E struct ilog_sockio
FIELDS(sockio_f) {
	MONO_TS("ts_start", ILOG_COL_NOTNULL),
	U64(dur_ns),
	U32(pid),
	CHARS(comm),
	U64(cgroup_id),
	U64(tx_bytes),
	U64(rx_bytes),
	U64(tx_calls),
	U64(rx_calls),
	U32(others),
};
#undef E

/* After the layout, the kind's SQL members (schema.h), if any. */
#define K(id, nm, member, tab, ...) \
	[id] = { nm, sizeof(((struct ilog_record *)0)->u.member), \
		 sizeof(tab) / sizeof(tab[0]), tab, __VA_ARGS__ }
#define NONE .tab = ILOG_TAB_NONE
#define LOCAL ILOG_TAB_LOCAL
static const struct ilog_kind_desc kinds[ILOG_K__COUNT] = {
	K(ILOG_K_HEADER, "header", header, header_f, NONE),
	K(ILOG_K_CLOCK, "clock", clock, clock_f, .table = "clocks", .tab = LOCAL),
	K(ILOG_K_SCHEMA, "schema", schema, schema_f, NONE),
	K(ILOG_K_CUDA, "cuda", cuda, cuda_f, .table = "events",
	  .sql_index = { "ts(ts, op)", "pid(pid, ts, op)" }, .ch_key = "pid"),
	K(ILOG_K_HOST, "host", host, host_f, .table = "host_events",
	  .sql_index = { "ts(ts)", "pid(pid, ts)" }, .ch_key = "pid"),
	K(ILOG_K_STACK, "stack", stack, stack_f, NONE),
	K(ILOG_K_PYSTACK, "pystack", pystack, pystack_f, NONE),
	K(ILOG_K_PROCESS, "process", process, process_f, .table = "processes",
	  .sql_index = { "pid(session_id, node, pid)" }, .ch_key = "pid"),
	K(ILOG_K_MAPPING, "mapping", mapping, mapping_f, .table = "mappings", .tab = LOCAL,
	  .sql_index = { "pid(session_id, node, pid, start)" }),
	K(ILOG_K_PYCODE, "pycode", pycode, pycode_f, .tab = LOCAL),
	K(ILOG_K_SNAPSHOT, "snapshot", snapshot, snapshot_f, .table = "snapshots",
	  .sql_index = { "ts(ts)" }),
	K(ILOG_K_LOSS, "loss", loss, loss_f, .table = "losses"),
	K(ILOG_K_SYMBOL, "symbol", symbol, symbol_f, .table = "symbols", .tab = LOCAL,
	  .sql_index = { "ip(session_id, node, pid, ip)" }),
	K(ILOG_K_CHAIN, "chain", chain, chain_f, .table = "chains",
	  .sql_index = { "ts(ts_start)" }, .ch_key = "pid"),
	K(ILOG_K_PROVENANCE, "provenance", provenance, provenance_f,
	  .tab = LOCAL | ILOG_TAB_NONODE),
	K(ILOG_K_NODE, "node", node, node_f, NONE),
	K(ILOG_K_OPNAME, "opname", opname, opname_f, NONE),
	K(ILOG_K_KERNEL, "kernel", kernel, kernel_f, .table = "kernels", .tab = LOCAL),
	K(ILOG_K_BLKIO, "blkio", blkio, blkio_f, .sql_index = { "ts(ts)" }, .ch_key = "disk"),
	K(ILOG_K_RETRANS, "retrans", retrans, retrans_f, .sql_index = { "ts(ts)" }),
	K(ILOG_K_SOCKIO, "sockio", sockio, sockio_f, .sql_index = { "ts(ts)" }, .ch_key = "pid"),
	K(ILOG_K_INFLIGHT, "inflight", inflight, inflight_f, .table = "inflight",
	  .sql_index = { "pid(pid, ts)" }, .ch_key = "pid"),
	K(ILOG_K_TRIGGER, "trigger", trigger, trigger_f, .table = "triggers"),
};
#undef NONE
#undef LOCAL

const struct ilog_kind_desc *ilog_kind_desc(uint32_t kind)
{
	if (kind >= ILOG_K__COUNT || !kinds[kind].name)
		return NULL;
	return &kinds[kind];
}

const char *ilog_kind_name(uint32_t kind)
{
	const struct ilog_kind_desc *d = ilog_kind_desc(kind);
	return d ? d->name : NULL;
}

int ilog_kind_from_name(const char *name)
{
	for (uint32_t k = 0; k < ILOG_K__COUNT; k++)
		if (kinds[k].name && !strcmp(kinds[k].name, name))
			return (int)k;
	return -1;
}

#define OP(name, layer) [ILOG_OP_##name] = { #name, ILOG_LAYER_##layer }
static const struct { const char *name; uint8_t layer; } ops[ILOG_OP__COUNT] = {
	[ILOG_OP_UNKNOWN] = { "unknown", ILOG_LAYER_RUNTIME },
	OP(cudaMalloc, RUNTIME), OP(cudaMallocManaged, RUNTIME),
	OP(cudaMallocHost, RUNTIME), OP(cudaFree, RUNTIME),
	OP(cudaFreeHost, RUNTIME), OP(cudaLaunchKernel, RUNTIME),
	OP(cudaMemcpy, RUNTIME), OP(cudaMemcpyAsync, RUNTIME),
	OP(cudaMemset, RUNTIME), OP(cudaMemsetAsync, RUNTIME),
	OP(cudaStreamSynchronize, RUNTIME), OP(cudaDeviceSynchronize, RUNTIME),
	OP(cudaEventSynchronize, RUNTIME),
	OP(cudaStreamBeginCapture, GRAPH), OP(cudaStreamEndCapture, GRAPH),
	OP(cudaGraphInstantiate, GRAPH), OP(cudaGraphInstantiateWithFlags, GRAPH),
	OP(cudaGraphLaunch, GRAPH),
	OP(cuLaunchKernel, DRIVER), OP(cuLaunchKernelEx, DRIVER),
	OP(cuMemAlloc, DRIVER), OP(cuMemFree, DRIVER), OP(cuMemcpy, DRIVER),
	OP(cuMemcpyAsync, DRIVER), OP(cuMemcpyHtoD, DRIVER),
	OP(cuMemcpyDtoH, DRIVER), OP(cuMemcpyDtoD, DRIVER),
	OP(cuMemcpyHtoDAsync, DRIVER), OP(cuMemcpyDtoHAsync, DRIVER),
	OP(cuCtxSynchronize, DRIVER), OP(cuStreamSynchronize, DRIVER),
	OP(ncclAllReduce, NCCL), OP(ncclAllGather, NCCL),
	OP(ncclReduceScatter, NCCL), OP(ncclBroadcast, NCCL), OP(ncclSend, NCCL),
	OP(ncclRecv, NCCL), OP(ncclCommInitRank, NCCL), OP(ncclCommDestroy, NCCL),
	OP(cuModuleGetFunction, DRIVER), OP(cuLibraryGetKernel, DRIVER),
	OP(cuKernelGetFunction, DRIVER),
	OP(ncclReduce, NCCL), OP(ncclBcast, NCCL), OP(ncclGroupStart, NCCL),
	OP(ncclGroupEnd, NCCL), OP(ncclCommInitRankConfig, NCCL), OP(ncclCommInitAll, NCCL),
	OP(ncclCommSplit, NCCL),
	OP(cudaHostAlloc, RUNTIME), OP(cudaHostRegister, RUNTIME), OP(cudaHostUnregister, RUNTIME),
	OP(cuMemHostAlloc, DRIVER), OP(cuMemAllocHost, DRIVER), OP(cuMemHostRegister, DRIVER),
	OP(cuMemHostUnregister, DRIVER), OP(cuMemFreeHost, DRIVER),
	OP(cudaMallocAsync, RUNTIME), OP(cudaFreeAsync, RUNTIME),
	OP(cuMemAllocAsync, DRIVER), OP(cuMemFreeAsync, DRIVER),
	OP(cudaMallocFromPoolAsync, RUNTIME), OP(cuMemAllocFromPoolAsync, DRIVER),
};

/*
 * Named ops (SPEC §5.17): one table for the whole process, so that every
 * reader, writer and tool of a program agrees on their numbers.  Readers
 * put the names of a log's `opname` records here and renumber its records
 * into this table when two logs number them differently (ilog_op_intern);
 * writers name each number they write once (writer.c).  Entries are never
 * removed; lookups take no lock (a name is published after it is written).
 */
#define NNAMED (ILOG_OP_MAX - ILOG_OP_NAMED_FIRST)
/* reserved: a number a log used without naming it, kept unnamed */
static struct named_op { const char *name; uint8_t layer, reserved; } named[NNAMED];
static uint32_t named_hi = ILOG_OP_NAMED_FIRST; /* one past the highest in use */
static pthread_mutex_t named_mu = PTHREAD_MUTEX_INITIALIZER;

static const struct named_op *named_get(uint32_t op)
{
	if (op < ILOG_OP_NAMED_FIRST || op >= ILOG_OP_MAX)
		return NULL;
	const struct named_op *o = &named[op - ILOG_OP_NAMED_FIRST];
	return __atomic_load_n(&o->name, __ATOMIC_ACQUIRE) ? o : NULL;
}

/* A number neither named nor reserved: past the highest in use, else the
 * lowest gap; 0 when none (named_mu held). */
static uint32_t free_slot(uint32_t hi)
{
	if (hi < ILOG_OP_MAX)
		return hi;
	for (uint32_t i = 0; i < NNAMED; i++)
		if (!named[i].name && !named[i].reserved)
			return i + ILOG_OP_NAMED_FIRST;
	return 0;
}

int ilog_op_intern(const char *name, size_t n, uint32_t layer, uint32_t want)
{
	if (!n || n > 255 || memchr(name, 0, n))
		return -1;
	int got = -1;
	pthread_mutex_lock(&named_mu);
	uint32_t hi = named_hi;
	for (uint32_t i = 0; i < hi - ILOG_OP_NAMED_FIRST; i++) {
		const char *nm = named[i].name;
		if (nm && !strncmp(nm, name, n) && !nm[n]) {
			got = (int)(i + ILOG_OP_NAMED_FIRST);
			goto out;
		}
	}
	uint32_t slot;
	if (want >= ILOG_OP_NAMED_FIRST && want < ILOG_OP_MAX && !named[want - ILOG_OP_NAMED_FIRST].name &&
	    !named[want - ILOG_OP_NAMED_FIRST].reserved)
		slot = want;
	else if (!(slot = free_slot(hi)))
		goto out; /* full: 65280 distinct numbers */
	char *copy = strndup(name, n);
	if (!copy)
		goto out;
	named[slot - ILOG_OP_NAMED_FIRST].layer = (uint8_t)layer;
	__atomic_store_n(&named[slot - ILOG_OP_NAMED_FIRST].name, copy, __ATOMIC_RELEASE);
	if (slot >= hi)
		__atomic_store_n(&named_hi, slot + 1, __ATOMIC_RELEASE);
	got = (int)slot;
out:
	pthread_mutex_unlock(&named_mu);
	return got;
}

int ilog_op_unnamed(uint32_t want)
{
	if (want < ILOG_OP_NAMED_FIRST || want >= ILOG_OP_MAX)
		return (int)want;
	int got = -1;
	pthread_mutex_lock(&named_mu);
	struct named_op *o = &named[want - ILOG_OP_NAMED_FIRST];
	uint32_t hi = named_hi;
	if (!o->name) {
		o->reserved = 1; /* its own number, unnamed (a later name gets another) */
		got = (int)want;
		if (want >= hi)
			__atomic_store_n(&named_hi, want + 1, __ATOMIC_RELEASE);
	} else {
		uint32_t slot = free_slot(hi);
		if (slot) {
			named[slot - ILOG_OP_NAMED_FIRST].reserved = 1;
			if (slot >= hi)
				__atomic_store_n(&named_hi, slot + 1, __ATOMIC_RELEASE);
			got = (int)slot;
		}
	}
	pthread_mutex_unlock(&named_mu);
	return got;
}

uint32_t ilog_op_limit(void)
{
	uint32_t hi = __atomic_load_n(&named_hi, __ATOMIC_ACQUIRE);
	return hi > ILOG_OP_NAMED_FIRST ? hi : ILOG_OP__COUNT;
}

const char *ilog_op_name(uint32_t op)
{
	if (op < ILOG_OP__COUNT)
		return ops[op].name;
	const struct named_op *o = named_get(op);
	return o ? o->name : NULL;
}

int ilog_op_from_name(const char *name)
{
	for (uint32_t i = 1; i < ILOG_OP__COUNT; i++)
		if (!strcmp(ops[i].name, name))
			return (int)i;
	uint32_t hi = __atomic_load_n(&named_hi, __ATOMIC_ACQUIRE);
	for (uint32_t i = ILOG_OP_NAMED_FIRST; i < hi; i++) {
		const struct named_op *o = named_get(i);
		if (o && !strcmp(o->name, name))
			return (int)i;
	}
	return -1;
}

enum ilog_layer ilog_op_layer(uint32_t op)
{
	if (op < ILOG_OP__COUNT)
		return (enum ilog_layer)ops[op].layer;
	const struct named_op *o = named_get(op);
	return o ? (enum ilog_layer)o->layer : ILOG_LAYER_RUNTIME;
}

const char *ilog_layer_name(uint32_t layer)
{
	static const char *const n[ILOG_LAYER__COUNT] = { "runtime", "driver", "graph", "nccl" };
	return layer < ILOG_LAYER__COUNT ? n[layer] : NULL;
}

const char *ilog_host_type_name(uint32_t type)
{
	static const char *const n[ILOG_HOST__COUNT] = {
		[ILOG_HOST_SWITCH] = "switch", [ILOG_HOST_SCHED_AGG] = "sched_agg",
		[ILOG_HOST_WAKEUP] = "wakeup", [ILOG_HOST_PAGE_ALLOC] = "page_alloc",
		[ILOG_HOST_OOM] = "oom", [ILOG_HOST_FORK] = "fork",
		[ILOG_HOST_EXEC] = "exec", [ILOG_HOST_EXIT] = "exit",
		[ILOG_HOST_PAGE_ALLOC_REST] = "page_alloc_rest", [ILOG_HOST_RECLAIM] = "reclaim",
		[ILOG_HOST_COMPACT] = "compact", [ILOG_HOST_IOWAIT] = "iowait",
		[ILOG_HOST_CPU_QUOTA] = "cpu_quota", [ILOG_HOST_CPU_THROTTLE] = "cpu_throttle",
		[ILOG_HOST_WAIT] = "wait", [ILOG_HOST_OOM_MEMCG] = "oom_memcg",
	};
	return type < ILOG_HOST__COUNT ? n[type] : NULL;
}

const char *ilog_wait_class_name(uint32_t cls)
{
	static const char *const n[ILOG_WAIT__COUNT] = {
		[ILOG_WAIT_OTHER] = "other", [ILOG_WAIT_LOCK] = "lock",
		[ILOG_WAIT_POLL] = "poll",   [ILOG_WAIT_READ] = "read",
		[ILOG_WAIT_WRITE] = "write", [ILOG_WAIT_CHILD] = "child",
		[ILOG_WAIT_SLEEP] = "sleep", [ILOG_WAIT_KERNEL] = "kernel",
	};
	return cls < ILOG_WAIT__COUNT ? n[cls] : NULL;
}

const char *ilog_severity_name(uint32_t sev)
{
	static const char *const n[] = { "LOW", "MEDIUM", "HIGH" };
	return sev < 3 ? n[sev] : NULL;
}

/* include/net/tcp_states.h; the states a socket can be in when it sends */
const char *ilog_tcp_state_name(uint32_t st)
{
	static const char *const n[] = { NULL, "ESTABLISHED", "SYN_SENT", "SYN_RECV",
					 "FIN_WAIT1", "FIN_WAIT2", "TIME_WAIT", "CLOSE",
					 "CLOSE_WAIT", "LAST_ACK", "LISTEN", "CLOSING",
					 "NEW_SYN_RECV", "BOUND_INACTIVE" };
	return st < sizeof(n) / sizeof(n[0]) ? n[st] : NULL;
}

const char *ilog_inet_str(struct ilog_bin a, char *buf, size_t len)
{
	if (!len)
		return buf;
	buf[0] = 0;
	if (a.n == 4 || a.n == 16)
		inet_ntop(a.n == 4 ? AF_INET : AF_INET6, a.p, buf, (socklen_t)len);
	return buf;
}

void ilog_str_copy(char *dst, size_t cap, struct ilog_str s)
{
	size_t n = s.n < cap - 1 ? s.n : cap - 1;
	if (n) /* an absent field's view is NULL */
		memcpy(dst, s.p, n);
	dst[n] = 0;
}

uint64_t ilog_blk_quantile(const uint64_t *hist, uint32_t n, double q, uint64_t max_ns)
{
	uint64_t tot = 0, seen = 0;
	if (n > INGERO_BLK_HBUCKETS)
		n = INGERO_BLK_HBUCKETS;
	for (uint32_t b = 0; b < n; b++)
		tot += hist[b];
	if (!tot)
		return 0;
	/* the rank of the quantile, 1..tot: the smallest with rank/tot >= q */
	double want = q * (double)tot;
	uint64_t rank = want <= 1 ? 1 : (uint64_t)want + ((double)(uint64_t)want < want);
	for (uint32_t b = 0; b < n; b++) {
		seen += hist[b];
		if (seen >= rank) {
			uint64_t edge = 1ull << (b + INGERO_BLK_HSHIFT + 1);
			return max_ns && max_ns < edge ? max_ns : edge;
		}
	}
	return max_ns;
}

struct ilog_str ilog_str_c(const char *s)
{
	return (struct ilog_str){ s ? s : "", s ? (uint32_t)strlen(s) : 0 };
}

uint64_t ilog_record_ts(const struct ilog_record *rec)
{
	switch (rec->kind) {
	case ILOG_K_CUDA: return rec->u.cuda.ts_ns;
	case ILOG_K_HOST: return rec->u.host.ts_ns;
	case ILOG_K_PROCESS: return rec->u.process.ts_ns;
	case ILOG_K_MAPPING: return rec->u.mapping.ts_ns;
	case ILOG_K_SNAPSHOT: return rec->u.snapshot.ts_ns;
	case ILOG_K_LOSS: return rec->u.loss.ts_ns;
	case ILOG_K_CHAIN: return rec->u.chain.ts_start;
	case ILOG_K_BLKIO: return rec->u.blkio.ts_ns;
	case ILOG_K_RETRANS: return rec->u.retrans.ts_ns;
	case ILOG_K_SOCKIO: return rec->u.sockio.ts_ns;
	case ILOG_K_INFLIGHT: return rec->u.inflight.ts_ns;
	case ILOG_K_TRIGGER: return rec->u.trigger.ts_ns;
	case ILOG_K_CLOCK: return rec->u.clock.mono_ns;
	case ILOG_K_HEADER: return rec->u.header.mono_ns;
	default: return 0;
	}
}
