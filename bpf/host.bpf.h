/* SPDX-License-Identifier: MIT */
/*
 * ingero-record's view of the whole host, included by record.bpf.c after
 * its ring buffers and host_reserve(): the cgroup of a task, page
 * allocations of every process (not only targets) aggregated per process
 * in the kernel, and the direct reclaim and compaction stalls tasks
 * suffer.  The recorder drains page_agg once a window and writes its top
 * processes (cmd/ingero-record/sink.c); stalls are events of their own.
 */
#ifndef INGERO_HOST_BPF_H
#define INGERO_HOST_BPF_H

/* 0: page allocations of targets only (--host-top 0) */
const volatile bool targ_host_mem = true;
/* stalls shorter than this are not written (--stall-min) */
const volatile __u64 targ_stall_min_ns = 100000;

struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, 16384);
	__type(key, __u32);
	__type(value, struct rec_page_agg);
} page_agg SEC(".maps");

/* A reclaim or compaction in progress: key tid | kind << 32. */
struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, 16384);
	__type(key, __u64);
	__type(value, __u64);
} stall_start SEC(".maps");

/* raw_tp mm_page_alloc(struct page *, unsigned int order, gfp_t, int migratetype) */
SEC("raw_tp/mm_page_alloc")
int mm_page_alloc(struct bpf_raw_tracepoint_args *ctx)
{
	__u32 tgid = bpf_get_current_pid_tgid() >> 32;
	if (!targ_host_mem && !is_target(tgid))
		return 0;
	__u32 order = (__u32)ctx->args[1];
	struct rec_page_agg *a = bpf_map_lookup_elem(&page_agg, &tgid);
	if (!a) {
		/* the first allocation of the process in this window */
		struct rec_page_agg z = { .cgroup_id = current_cgid() };
		struct task_struct *t = (void *)bpf_get_current_task();
		BPF_CORE_READ_STR_INTO(&z.comm, t, group_leader, comm);
		bpf_map_update_elem(&page_agg, &tgid, &z, BPF_NOEXIST);
		a = bpf_map_lookup_elem(&page_agg, &tgid);
		if (!a)
			return 0;
	}
	/* per-process counters touched by one CPU at a time in the common
	 * case: plain adds would lose races between CPUs, atomics do not */
	__sync_fetch_and_add(&a->calls, 1);
	__sync_fetch_and_add(&a->pages, 1ull << (order & 31));
	return 0;
}

#define PF_KTHREAD_ 0x00200000 /* include/linux/sched.h PF_KTHREAD */

static __always_inline void stall_begin(__u32 kind)
{
	struct task_struct *t = (void *)bpf_get_current_task();
	if (BPF_CORE_READ(t, flags) & PF_KTHREAD_)
		return; /* kswapd, kcompactd: background work, nobody waits on it */
	__u64 key = (__u32)bpf_get_current_pid_tgid() | (__u64)kind << 32;
	__u64 now = bpf_ktime_get_ns();
	bpf_map_update_elem(&stall_start, &key, &now, BPF_ANY);
}

static __always_inline void stall_end(__u32 kind, __u64 value)
{
	__u64 id = bpf_get_current_pid_tgid();
	__u64 key = (__u32)id | (__u64)kind << 32;
	__u64 *t0 = bpf_map_lookup_elem(&stall_start, &key);
	if (!t0)
		return;
	__u64 ts = *t0, now = bpf_ktime_get_ns();
	bpf_map_delete_elem(&stall_start, &key);
	if (now - ts < targ_stall_min_ns && !is_target(id >> 32))
		return;
	struct rec_host *m;
	struct ingero_host_event *e = host_reserve(&host_rb, REC_RB_HOST, kind, &m);
	if (!e)
		return;
	struct task_struct *t = (void *)bpf_get_current_task();
	e->ts_ns = ts;
	e->dur_ns = now - ts;
	e->pid = id >> 32;
	e->tid = (__u32)id;
	e->value = value;
	e->cpu = bpf_get_smp_processor_id();
	e->cgroup_id = current_cgid();
	BPF_CORE_READ_STR_INTO(&e->comm, t, comm);
	BPF_CORE_READ_STR_INTO(&e->other_comm, t, group_leader, comm);
	bpf_ringbuf_submit(m, BPF_RB_NO_WAKEUP);
}

/* raw_tp mm_vmscan_direct_reclaim_begin(int order, gfp_t) */
SEC("raw_tp/mm_vmscan_direct_reclaim_begin")
int reclaim_begin(struct bpf_raw_tracepoint_args *ctx)
{
	stall_begin(ILOG_HOST_RECLAIM);
	return 0;
}

/* raw_tp mm_vmscan_direct_reclaim_end(unsigned long nr_reclaimed) */
SEC("raw_tp/mm_vmscan_direct_reclaim_end")
int reclaim_end(struct bpf_raw_tracepoint_args *ctx)
{
	stall_end(ILOG_HOST_RECLAIM, ctx->args[0]);
	return 0;
}

/* the same for a cgroup at its memory limit (memory.max, limit_in_bytes) */
SEC("raw_tp/mm_vmscan_memcg_reclaim_begin")
int memcg_reclaim_begin(struct bpf_raw_tracepoint_args *ctx)
{
	stall_begin(ILOG_HOST_RECLAIM);
	return 0;
}

SEC("raw_tp/mm_vmscan_memcg_reclaim_end")
int memcg_reclaim_end(struct bpf_raw_tracepoint_args *ctx)
{
	stall_end(ILOG_HOST_RECLAIM, ctx->args[0]);
	return 0;
}

/* raw_tp mm_compaction_begin(cc, start, end, free, sync): in a user
 * task's context, compaction is direct (it waits for it) */
SEC("raw_tp/mm_compaction_begin")
int compact_begin(struct bpf_raw_tracepoint_args *ctx)
{
	stall_begin(ILOG_HOST_COMPACT);
	return 0;
}

/* raw_tp mm_compaction_end(cc, zone_start, migrate_pfn, free_pfn, sync, status):
 * five arguments, status the last */
SEC("raw_tp/mm_compaction_end")
int compact_end(struct bpf_raw_tracepoint_args *ctx)
{
	stall_end(ILOG_HOST_COMPACT, (__u32)ctx->args[4]);
	return 0;
}

#endif /* INGERO_HOST_BPF_H */
