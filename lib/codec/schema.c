// SPDX-License-Identifier: MIT
/* Record layouts (SPEC §5) and the names used at the edges. */
#include <stddef.h>
#include <pthread.h>
#include <string.h>
#include <arpa/inet.h>
#include "ingero/schema.h"

/* After the layout, a field's SQL members (schema.h), if any. */
#define F(st, fld, nm, ty, vw, ...) \
	{ .name = nm, .type = ty, .view = vw, .off = offsetof(st, fld), __VA_ARGS__ }
#define A(st, fld, cnt, nm, elem, mx, subtab, ...) \
	{ .name = nm, .type = FT_ARR, .view = FV_NUM, .off = offsetof(st, fld), \
	  .cnt_off = offsetof(st, cnt), .esize = sizeof(elem), .max = mx, \
	  .nsub = sizeof(subtab) / sizeof(subtab[0]), .sub = subtab, __VA_ARGS__ }
#define SQL_ARGS(...) __VA_ARGS__

#define H struct ilog_header
static const struct ilog_field header_f[] = {
	F(H, magic, "magic", FT_STR, FV_STR),
	F(H, version_major, "version_major", FT_U32, FV_NUM),
	F(H, version_minor, "version_minor", FT_U32, FV_NUM),
	F(H, node, "node", FT_STR, FV_STR),
	F(H, boot_id, "boot_id", FT_STR, FV_STR),
	F(H, host, "host", FT_STR, FV_STR),
	F(H, recorder, "recorder", FT_STR, FV_STR),
	F(H, kernel, "kernel", FT_STR, FV_STR),
	F(H, driver, "driver", FT_STR, FV_STR),
	F(H, session_id, "session_id", FT_U64, FV_HEX),
	F(H, rank, "rank", FT_S64, FV_NUM),
	F(H, mono_ns, "mono_ns", FT_U64, FV_NUM),
	F(H, boot_ns, "boot_ns", FT_U64, FV_NUM),
	F(H, real_ns, "real_ns", FT_U64, FV_NUM),
	F(H, node_index, "node_index", FT_U32, FV_NUM),
};
#undef H

#define C struct ilog_clock
static const struct ilog_field clock_f[] = {
	F(C, mono_ns, "mono_ns", FT_U64, FV_NUM),
	F(C, boot_ns, "boot_ns", FT_U64, FV_NUM),
	F(C, real_ns, "real_ns", FT_U64, FV_NUM),
};
#undef C

static const struct ilog_field str_elem[] = {
	{ .name = "", .type = FT_STR, .view = FV_STR, .off = 0 },
};
#define S struct ilog_schema
static const struct ilog_field schema_f[] = {
	F(S, kind, "kind", FT_U32, FV_NUM),
	F(S, name, "name", FT_STR, FV_STR),
	A(S, fields, nfields, "fields", struct ilog_str, ILOG_MAX_SCHEMA_FIELDS, str_elem),
};
#undef S

static const struct ilog_field u64_elem[] = {
	{ .name = "", .type = FT_U64, .view = FV_HEX, .off = 0 },
};
#define E struct ingero_cuda_event
#define CUDA_F(fld, nm, ty, vw, sql) F(E, fld, nm, ty, vw, SQL_ARGS sql),
/* appended in 1.2: raw arguments of a named op (1.4: an NCCL op's decoded
 * ones); writers leave the field out when empty (§4.4) and JSON shows it
 * only when present; in no SQL table */
#define CUDA_ARGS_F \
	{ .name = "args", .type = FT_ARR, .view = FV_OMIT_EMPTY, .off = offsetof(E, args), \
	  .cnt_off = offsetof(E, nargs), .esize = sizeof(__u64), .max = ILOG_CUDA_MAX_ARGS, \
	  .nsub = 1, .sub = u64_elem, .sql = ILOG_COL_SKIP }
static const struct ilog_field cuda_f[] = {
	ILOG_CUDA_FIELDS(CUDA_F)
	CUDA_ARGS_F,
};
/* 1.4: a call in progress, with cuda's fields; a kind after 1.0 is not
 * delta coded (§8.2), so its ts_ns is a plain time, followed by "time" */
#define INFLIGHT_F(fld, nm, ty, vw, sql) \
	F(E, fld, nm, (ty) == FT_TS ? FT_U64 : (ty), (ty) == FT_TS ? FV_MONO : (vw), SQL_ARGS sql),
static const struct ilog_field inflight_f[] = {
	ILOG_CUDA_FIELDS(INFLIGHT_F)
	CUDA_ARGS_F,
};
#undef INFLIGHT_F
#undef CUDA_ARGS_F
#undef CUDA_F
#undef E

#define E struct ingero_host_event
static const struct ilog_field host_f[] = {
	F(E, ts_ns, "ts_ns", FT_TS, FV_NUM, .col = "ts", .sql = ILOG_COL_NOTNULL),
	F(E, type, "host_type", FT_U16, FV_HOST, .col = "type"),
	F(E, pid, "pid", FT_U32, FV_NUM),
	F(E, tid, "tid", FT_U32, FV_NUM),
	F(E, other_pid, "other_pid", FT_U32, FV_NUM),
	F(E, other_tid, "other_tid", FT_U32, FV_NUM),
	/* the tables list the duration beside the time, the cpu before the value */
	F(E, dur_ns, "dur_ns", FT_U64, FV_NUM, .after = "ts_ns"),
	F(E, value, "value", FT_U64, FV_NUM),
	F(E, cpu, "cpu", FT_U32, FV_NUM, .after = "other_tid"),
	F(E, comm, "comm", FT_CHARS, FV_STR),
	F(E, other_comm, "other_comm", FT_CHARS, FV_STR),
	F(E, cgroup_id, "cgroup_id", FT_U64, FV_NUM),
};
#undef E

static const struct ilog_field ip_elem[] = {
	{ .name = "", .type = FT_U64, .view = FV_HEX, .off = 0 },
};
#define E struct ingero_stack
static const struct ilog_field stack_f[] = {
	F(E, id, "id", FT_U64, FV_HEX),
	F(E, pid, "pid", FT_U32, FV_NUM),
	A(E, ips, nr, "ips", __u64, INGERO_MAX_STACK, ip_elem),
};
#undef E

#define P struct ingero_pyframe
static const struct ilog_field pyframe_elem[] = {
	F(P, code, "code", FT_U64, FV_HEX),
	F(P, lasti, "lasti", FT_U32, FV_NUM),
};
#undef P
#define E struct ingero_pystack
static const struct ilog_field pystack_f[] = {
	F(E, id, "id", FT_U64, FV_HEX),
	F(E, pid, "pid", FT_U32, FV_NUM),
	A(E, frames, nr, "frames", struct ingero_pyframe, INGERO_MAX_PYFRAMES, pyframe_elem),
	F(E, entry, "entry", FT_U64, FV_HEX),
};
#undef E

#define E struct ilog_process
static const struct ilog_field process_f[] = {
	F(E, ts_ns, "ts_ns", FT_TS, FV_NUM, .col = "ts"),
	F(E, pid, "pid", FT_U32, FV_NUM),
	F(E, ppid, "ppid", FT_U32, FV_NUM),
	F(E, uid, "uid", FT_U32, FV_NUM),
	F(E, start_ns, "start_ns", FT_U64, FV_NUM),
	F(E, comm, "comm", FT_STR, FV_STR),
	F(E, exe, "exe", FT_STR, FV_STR),
	F(E, cmdline, "argv", FT_BIN, FV_ARGV),
	F(E, cgroup, "cgroup", FT_STR, FV_STR),
	F(E, cgroup_id, "cgroup_id", FT_U64, FV_NUM),
	F(E, pod_uid, "pod_uid", FT_STR, FV_STR),
	F(E, container_id, "container_id", FT_STR, FV_STR),
};
#undef E

#define E struct ilog_mapping
static const struct ilog_field mapping_f[] = {
	F(E, ts_ns, "ts_ns", FT_TS, FV_NUM, .col = "ts"),
	F(E, pid, "pid", FT_U32, FV_NUM),
	F(E, start, "start", FT_U64, FV_HEX),
	F(E, end, "end", FT_U64, FV_HEX),
	F(E, offset, "offset", FT_U64, FV_HEX, .col = "file_offset"),
	F(E, prot, "prot", FT_U32, FV_NUM),
	F(E, path, "path", FT_STR, FV_STR),
	F(E, build_id, "build_id", FT_BIN, FV_HEXBYTES),
};
#undef E

#define E struct ilog_pycode
static const struct ilog_field pycode_f[] = {
	F(E, pid, "pid", FT_U32, FV_NUM),
	F(E, code, "code", FT_U64, FV_HEX),
	F(E, py_version, "py_version", FT_U32, FV_HEX),
	F(E, filename, "filename", FT_STR, FV_STR),
	F(E, qualname, "qualname", FT_STR, FV_STR),
	F(E, firstlineno, "firstlineno", FT_U32, FV_NUM),
	F(E, linetable, "linetable", FT_BIN, FV_HEXBYTES, .sql = ILOG_COL_BLOB),
};
#undef E

#define P struct ilog_snapshot_proc
static const struct ilog_field sproc_elem[] = {
	F(P, pid, "pid", FT_U32, FV_NUM),
	F(P, cpu_pct, "cpu_pct", FT_F64, FV_NUM),
	F(P, rss, "rss", FT_U64, FV_NUM),
	/* appended in 1.2: ClickHouse's arrays of them follow the PSI columns */
	F(P, rss_growth, "rss_growth", FT_S64, FV_NUM, .ch_after = "psi_io_full"),
	F(P, comm, "comm", FT_CHARS, FV_STR, .ch_after = "psi_io_full"),
};
#undef P
#define E struct ilog_snapshot
static const struct ilog_field snapshot_f[] = {
	F(E, ts_ns, "ts_ns", FT_TS, FV_NUM, .col = "ts", .sql = ILOG_COL_NOTNULL),
	F(E, cpu_pct, "cpu_pct", FT_F64, FV_NUM),
	F(E, ncpu, "ncpu", FT_U32, FV_NUM),
	F(E, mem_total, "mem_total", FT_U64, FV_NUM),
	F(E, mem_avail, "mem_avail", FT_U64, FV_NUM),
	F(E, swap_total, "swap_total", FT_U64, FV_NUM),
	F(E, swap_free, "swap_free", FT_U64, FV_NUM),
	F(E, load1, "load1", FT_F64, FV_NUM),
	F(E, load5, "load5", FT_F64, FV_NUM),
	F(E, load15, "load15", FT_F64, FV_NUM),
	A(E, procs, nprocs, "procs", struct ilog_snapshot_proc, ILOG_MAX_SNAPSHOT_PROCS, sproc_elem,
	  .ch = "proc"),
	F(E, psi_cpu_some, "psi_cpu_some", FT_F64, FV_NUM),
	F(E, psi_mem_some, "psi_mem_some", FT_F64, FV_NUM),
	F(E, psi_mem_full, "psi_mem_full", FT_F64, FV_NUM),
	F(E, psi_io_some, "psi_io_some", FT_F64, FV_NUM),
	F(E, psi_io_full, "psi_io_full", FT_F64, FV_NUM),
};
#undef E

#define E struct ilog_loss
static const struct ilog_field loss_f[] = {
	F(E, ts_ns, "ts_ns", FT_TS, FV_NUM, .col = "ts"),
	F(E, source, "source", FT_STR, FV_STR, .sql = ILOG_COL_LOWCARD),
	F(E, lost, "lost", FT_U64, FV_NUM),
	F(E, seen, "seen", FT_U64, FV_NUM),
};
#undef E

#define E struct ilog_trigger
static const struct ilog_field trigger_f[] = {
	/* 1.5: not delta coded (§8.2) */
	F(E, ts_ns, "ts_ns", FT_U64, FV_MONO, .col = "ts"),
	F(E, reason, "reason", FT_STR, FV_STR),
	F(E, pid, "pid", FT_U32, FV_NUM),
	F(E, tid, "tid", FT_U32, FV_NUM),
	F(E, op, "op", FT_U16, FV_OP),
	F(E, value_ns, "value_ns", FT_U64, FV_NUM),
	F(E, baseline_ns, "baseline_ns", FT_U64, FV_NUM),
	F(E, before_ns, "before_ns", FT_U64, FV_NUM),
	F(E, after_ns, "after_ns", FT_U64, FV_NUM),
	F(E, seq, "seq", FT_U32, FV_NUM),
};
#undef E

#define E struct ilog_symbol
static const struct ilog_field symbol_f[] = {
	F(E, pid, "pid", FT_U32, FV_NUM),
	F(E, ip, "ip", FT_U64, FV_HEX),
	F(E, build_id, "build_id", FT_BIN, FV_HEXBYTES),
	F(E, module, "module", FT_STR, FV_STR),
	F(E, module_off, "module_off", FT_U64, FV_HEX),
	F(E, function, "function", FT_STR, FV_STR),
	F(E, sym_off, "sym_off", FT_U64, FV_NUM),
	F(E, file, "file", FT_STR, FV_STR),
	F(E, line, "line", FT_U32, FV_NUM),
	F(E, inline_depth, "inline_depth", FT_U32, FV_NUM),
};
#undef E

#define E struct ilog_chain
static const struct ilog_field chain_f[] = {
	F(E, id, "id", FT_U64, FV_HEX, .col = "chain_id"),
	F(E, ts_start, "ts_start", FT_U64, FV_MONO),
	F(E, ts_end, "ts_end", FT_U64, FV_NUM, .sql = ILOG_COL_WALL),
	F(E, severity, "severity", FT_U32, FV_SEV, .sql = ILOG_COL_CH8),
	F(E, pattern, "pattern", FT_STR, FV_STR, .sql = ILOG_COL_LOWCARD),
	F(E, pid, "pid", FT_U32, FV_NUM),
	F(E, op, "op", FT_U16, FV_OP),
	F(E, score, "score", FT_F64, FV_NUM),
	F(E, title, "title", FT_STR, FV_STR),
	F(E, root_cause, "root_cause", FT_STR, FV_STR),
	F(E, fix, "fix", FT_STR, FV_STR),
	F(E, evidence, "evidence", FT_STR, FV_STR),
	F(E, comm, "comm", FT_STR, FV_STR),
	F(E, culprit_pid, "culprit_pid", FT_U32, FV_NUM),
	F(E, culprit_comm, "culprit_comm", FT_STR, FV_STR),
	F(E, lost_ns, "lost_ns", FT_U64, FV_NUM),
	F(E, metrics, "metrics", FT_STR, FV_STR),
};
#undef E

#define E struct ilog_provenance
static const struct ilog_field provenance_f[] = {
	F(E, real_ns, "real_ns", FT_U64, FV_NUM),
	F(E, tool, "tool", FT_STR, FV_STR),
	F(E, version, "version", FT_STR, FV_STR),
	F(E, args, "args", FT_STR, FV_STR),
};
#undef E

static const struct ilog_field node_f[] = {
	F(struct ilog_node, node_index, "node_index", FT_U32, FV_NUM),
};

#define E struct ilog_kernel
static const struct ilog_field kernel_f[] = {
	F(E, pid, "pid", FT_U32, FV_NUM),
	F(E, handle, "handle", FT_U64, FV_HEX),
	F(E, name, "name", FT_STR, FV_STR),
};
#undef E

#define E struct ilog_opname
static const struct ilog_field opname_f[] = {
	F(E, op, "op", FT_U16, FV_NUM),
	F(E, layer, "layer", FT_U8, FV_LAYER),
	F(E, name, "name", FT_STR, FV_STR),
};
#undef E

static const struct ilog_field count_elem[] = {
	{ .name = "", .type = FT_U64, .view = FV_NUM, .off = 0 },
};
#define E struct ilog_blkio
static const struct ilog_field blkio_f[] = {
	F(E, ts_ns, "ts_start", FT_U64, FV_MONO, .col = "ts", .sql = ILOG_COL_NOTNULL),
	F(E, dur_ns, "dur_ns", FT_U64, FV_NUM),
	F(E, major, "major", FT_U32, FV_NUM),
	F(E, minor, "minor", FT_U32, FV_NUM),
	F(E, disk, "disk", FT_STR, FV_STR, .sql = ILOG_COL_LOWCARD),
	F(E, pid, "pid", FT_U32, FV_NUM),
	F(E, nprocs, "nprocs", FT_U32, FV_NUM),
	F(E, comm, "comm", FT_CHARS, FV_STR),
	F(E, cgroup_id, "cgroup_id", FT_U64, FV_NUM),
	F(E, ios, "ios", FT_U64, FV_NUM),
	F(E, bytes, "bytes", FT_U64, FV_NUM),
	F(E, read_ios, "read_ios", FT_U64, FV_NUM),
	F(E, read_bytes, "read_bytes", FT_U64, FV_NUM),
	F(E, lat_sum_ns, "lat_sum_ns", FT_U64, FV_NUM),
	F(E, lat_max_ns, "lat_max_ns", FT_U64, FV_NUM),
	A(E, hist, nhist, "hist", __u64, INGERO_BLK_HBUCKETS, count_elem),
};
#undef E

#define E struct ilog_retrans
static const struct ilog_field retrans_f[] = {
	F(E, ts_ns, "ts_start", FT_U64, FV_MONO, .col = "ts", .sql = ILOG_COL_NOTNULL),
	F(E, dur_ns, "dur_ns", FT_U64, FV_NUM),
	F(E, pid, "pid", FT_U32, FV_NUM),
	F(E, comm, "comm", FT_CHARS, FV_STR),
	F(E, cgroup_id, "cgroup_id", FT_U64, FV_NUM),
	F(E, family, "family", FT_U8, FV_NUM),
	F(E, saddr, "saddr", FT_BIN, FV_INET),
	F(E, daddr, "daddr", FT_BIN, FV_INET),
	F(E, sport, "sport", FT_U16, FV_NUM),
	F(E, dport, "dport", FT_U16, FV_NUM),
	F(E, count, "count", FT_U64, FV_NUM),
	F(E, state, "state", FT_U8, FV_TCPSTATE),
	F(E, flows, "flows", FT_U32, FV_NUM),
};
#undef E

#define E struct ilog_sockio
static const struct ilog_field sockio_f[] = {
	F(E, ts_ns, "ts_start", FT_U64, FV_MONO, .col = "ts", .sql = ILOG_COL_NOTNULL),
	F(E, dur_ns, "dur_ns", FT_U64, FV_NUM),
	F(E, pid, "pid", FT_U32, FV_NUM),
	F(E, comm, "comm", FT_CHARS, FV_STR),
	F(E, cgroup_id, "cgroup_id", FT_U64, FV_NUM),
	F(E, tx_bytes, "tx_bytes", FT_U64, FV_NUM),
	F(E, rx_bytes, "rx_bytes", FT_U64, FV_NUM),
	F(E, tx_calls, "tx_calls", FT_U64, FV_NUM),
	F(E, rx_calls, "rx_calls", FT_U64, FV_NUM),
	F(E, others, "others", FT_U32, FV_NUM),
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
	};
	return type < ILOG_HOST__COUNT ? n[type] : NULL;
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
