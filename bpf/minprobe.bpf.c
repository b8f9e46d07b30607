// SPDX-License-Identifier: MIT
/*
 * bench/record's reference probes: the least a uprobe can run, attached
 * each way the kernel offers (bench/record/minprobe.c says which program
 * goes with which attachment), plus a bpftrace-like timing pair, so the
 * recorder's attachment and its own work can be measured against a
 * program that does nothing else and loads nothing else.
 */
#include "vmlinux.h"
#include <bpf/bpf_helpers.h>

char LICENSE[] SEC("license") = "Dual MIT/GPL";

/* session: 0 = also run at the return, 1 = entry only */
const volatile int session_ret = 0;

SEC("uprobe")
int empty_entry(void *ctx)
{
	return 0;
}

SEC("uretprobe")
int empty_return(void *ctx)
{
	return 0;
}

/* the same bodies under uprobe_multi (expected attach type set at load) */
SEC("uprobe")
int empty_multi(void *ctx)
{
	return 0;
}

SEC("uprobe")
int empty_multi_return(void *ctx)
{
	return 0;
}

SEC("uprobe")
int empty_session(void *ctx)
{
	return session_ret;
}

/* what bpftrace's `@s[tid] = nsecs` / `@h = hist(nsecs - @s[tid])` do */
struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, 4096);
	__type(key, __u32);
	__type(value, __u64);
} start SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 64);
	__type(key, __u32);
	__type(value, __u64);
} hist SEC(".maps");

SEC("uprobe")
int time_entry(void *ctx)
{
	__u32 tid = (__u32)bpf_get_current_pid_tgid();
	__u64 t = bpf_ktime_get_ns();
	bpf_map_update_elem(&start, &tid, &t, BPF_ANY);
	return 0;
}

SEC("uretprobe")
int time_return(void *ctx)
{
	__u32 tid = (__u32)bpf_get_current_pid_tgid();
	__u64 *t = bpf_map_lookup_elem(&start, &tid);
	if (!t)
		return 0;
	__u64 d = bpf_ktime_get_ns() - *t;
	__u32 b = 0;
	while (d > 1 && b < 63) {
		d >>= 1;
		b++;
	}
	__u64 *c = bpf_map_lookup_elem(&hist, &b);
	if (c)
		(*c)++;
	bpf_map_delete_elem(&start, &tid);
	return 0;
}
