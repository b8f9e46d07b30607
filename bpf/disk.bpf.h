/* SPDX-License-Identifier: MIT */
/*
 * ingero-record's view of the host's block devices, included by
 * record.bpf.c after host.bpf.h: every block request's issue-to-completion
 * latency, aggregated in the kernel per window per (device, process that
 * started the request) with a log2 latency histogram (SPEC §5.19).  The
 * process is the task current when the request was started
 * (block_io_start, in the submitter's context; kernels before 6.5: when it
 * was issued), so readahead counts under the reader and writeback under
 * the kernel thread that writes it back.  The recorder drains blk_agg once
 * a window and writes the targets' and the busiest others' records
 * (cmd/ingero-record/sink.c).  The time target threads spend blocked on
 * I/O is summed in sched_switch (record.bpf.c, `iowait` in sched_agg).
 */
#ifndef INGERO_DISK_BPF_H
#define INGERO_DISK_BPF_H

/* A request between its start and its completion (key: struct request *). */
struct blk_req {
	__u64 issue_ts;  /* 0 until issued to the driver */
	__u64 cgroup_id;
	__u32 pid;
	__u32 _pad;
	char comm[INGERO_COMM_LEN];
};

struct {
	__uint(type, BPF_MAP_TYPE_LRU_HASH); /* a completion never seen ages out */
	__uint(max_entries, 16384);
	__type(key, __u64);
	__type(value, struct blk_req);
} blk_req SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, 4096);
	__type(key, struct rec_blk_key);
	__type(value, struct rec_blk_agg);
} blk_agg SEC(".maps");

static __always_inline void blk_owner(struct blk_req *b)
{
	__u64 id = bpf_get_current_pid_tgid();
	struct task_struct *t = (void *)bpf_get_current_task();
	b->pid = id >> 32;
	b->cgroup_id = current_cgid();
	BPF_CORE_READ_STR_INTO(&b->comm, t, group_leader, comm);
}

/* raw_tp block_io_start(struct request *rq): a request is started, in the
 * context of the task that submitted its first bio (Linux 6.5+) */
SEC("raw_tp/block_io_start")
int blk_io_start(struct bpf_raw_tracepoint_args *ctx)
{
	__u64 rq = ctx->args[0];
	struct blk_req b = {};
	blk_owner(&b);
	if (!targ_host_mem && !is_target(b.pid))
		return 0;
	bpf_map_update_elem(&blk_req, &rq, &b, BPF_ANY);
	return 0;
}

/* raw_tp block_rq_issue(struct request *rq): handed to the driver */
SEC("raw_tp/block_rq_issue")
int blk_rq_issue(struct bpf_raw_tracepoint_args *ctx)
{
	__u64 rq = ctx->args[0];
	struct blk_req *b = bpf_map_lookup_elem(&blk_req, &rq);
	if (!b) {
		/* no block_io_start (older kernel): the issuing task is the owner */
		struct blk_req z = {};
		blk_owner(&z);
		if (!targ_host_mem && !is_target(z.pid))
			return 0;
		z.issue_ts = bpf_ktime_get_ns();
		bpf_map_update_elem(&blk_req, &rq, &z, BPF_ANY);
		return 0;
	}
	b->issue_ts = bpf_ktime_get_ns();
	return 0;
}

struct request_queue___old { struct gendisk *disk; };
struct request___old { struct gendisk *rq_disk; };

static __always_inline __u32 rq_dev(struct request *rq)
{
	struct gendisk *d = NULL;
	if (bpf_core_field_exists(((struct request___old *)rq)->rq_disk))
		d = BPF_CORE_READ((struct request___old *)rq, rq_disk);
	else
		d = BPF_CORE_READ(rq, q, disk);
	if (!d)
		return 0;
	return (__u32)BPF_CORE_READ(d, major) << 20 | ((__u32)BPF_CORE_READ(d, first_minor) & 0xfffff);
}

static __always_inline __u32 log2_u64(__u64 v)
{
	__u32 r = 0;
	if (v >> 32) { v >>= 32; r += 32; }
	if (v >> 16) { v >>= 16; r += 16; }
	if (v >> 8) { v >>= 8; r += 8; }
	if (v >> 4) { v >>= 4; r += 4; }
	if (v >> 2) { v >>= 2; r += 2; }
	if (v >> 1) r += 1;
	return r;
}

#define REQ_OP_MASK_ 0xff /* include/linux/blk_types.h: REQ_OP_BITS 8 */

/* raw_tp block_rq_complete(struct request *rq, blk_status_t error, unsigned int nr_bytes) */
SEC("raw_tp/block_rq_complete")
int blk_rq_complete(struct bpf_raw_tracepoint_args *ctx)
{
	__u64 rqp = ctx->args[0];
	struct blk_req *b = bpf_map_lookup_elem(&blk_req, &rqp);
	if (!b)
		return 0; /* started before the recording, or not counted */
	__u64 issued = b->issue_ts, now = bpf_ktime_get_ns();
	if (!issued) {
		bpf_map_delete_elem(&blk_req, &rqp);
		return 0;
	}
	struct request *rq = (void *)rqp;
	struct rec_blk_key k = { .dev = rq_dev(rq), .pid = b->pid };
	struct rec_blk_agg *a = bpf_map_lookup_elem(&blk_agg, &k);
	if (!a) {
		struct rec_blk_agg z = { .cgroup_id = b->cgroup_id };
		__builtin_memcpy(z.comm, b->comm, INGERO_COMM_LEN);
		bpf_map_update_elem(&blk_agg, &k, &z, BPF_NOEXIST);
		a = bpf_map_lookup_elem(&blk_agg, &k);
	}
	bpf_map_delete_elem(&blk_req, &rqp);
	if (!a)
		return 0;
	__u64 lat = now - issued, bytes = (__u32)ctx->args[2];
	__u32 lg = log2_u64(lat);
	__u32 bk = lg > INGERO_BLK_HSHIFT ? lg - INGERO_BLK_HSHIFT : 0;
	if (bk >= INGERO_BLK_HBUCKETS)
		bk = INGERO_BLK_HBUCKETS - 1;
	__sync_fetch_and_add(&a->ios, 1);
	__sync_fetch_and_add(&a->bytes, bytes);
	if ((BPF_CORE_READ(rq, cmd_flags) & REQ_OP_MASK_) == 0) { /* REQ_OP_READ */
		__sync_fetch_and_add(&a->read_ios, 1);
		__sync_fetch_and_add(&a->read_bytes, bytes);
	}
	__sync_fetch_and_add(&a->lat_sum_ns, lat);
	if (lat > a->lat_max_ns)
		a->lat_max_ns = lat; /* a race between CPUs can keep the smaller */
	__sync_fetch_and_add(&a->hist[bk], 1);
	return 0;
}

#endif /* INGERO_DISK_BPF_H */
