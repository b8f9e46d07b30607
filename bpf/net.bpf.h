/* SPDX-License-Identifier: MIT */
/*
 * ingero-record's view of the network, included by record.bpf.c after
 * host.bpf.h: TCP retransmissions counted per flow in the kernel (a lossy
 * link cannot flood the log: the recorder drains flow_agg once a window
 * and writes its top flows, SPEC §5.20), and the bytes each process sends
 * to and receives from TCP sockets, per process (sock_agg, §5.21).
 *
 * tcp:tcp_retransmit_skb fires mostly from the retransmission timer or a
 * softirq, in whatever task the CPU was running, so the socket's owner
 * comes from sock_owner: the process that last sent on it or connected
 * it, noted in those calls' own context.
 */
#ifndef INGERO_NET_BPF_H
#define INGERO_NET_BPF_H

#include <bpf/bpf_endian.h>

/* 0: sockets and flows of targets only (--host-top 0) */
const volatile bool targ_host_net = true;

#define AF_INET_ 2
#define AF_INET6_ 10
#define IPPROTO_TCP_ 6
#define SOCK_STREAM_ 1
#define MSG_PEEK_ 2
#define TCP_SYN_SENT_ 2

struct {
	__uint(type, BPF_MAP_TYPE_LRU_HASH);
	__uint(max_entries, 65536);
	__type(key, __u64);
	__type(value, struct rec_sock_owner);
} sock_owner SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, 4096);
	__type(key, struct rec_flow_key);
	__type(value, struct rec_flow_agg);
} flow_agg SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, 16384);
	__type(key, __u32);
	__type(value, struct rec_sock_agg);
} sock_agg SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, REC_NET__COUNT);
	__type(key, __u32);
	__type(value, __u64);
} net_stats SEC(".maps");

/* Per CPU: the socket and process this CPU noted last, so a stream of
 * sends on one socket costs one lookup of sock_owner, not one a call. */
struct net_last {
	__u64 sk;
	__u32 tgid;
	__u32 _pad;
};

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct net_last);
} net_last SEC(".maps");

static __always_inline void net_count(__u32 which)
{
	__u64 *v = bpf_map_lookup_elem(&net_stats, &which);
	if (v)
		__sync_fetch_and_add(v, 1);
}

/* An IPv4 or IPv6 TCP socket (a BTF pointer: read directly). */
static __always_inline bool sk_tcp(const struct sock *sk)
{
	__u16 fam = sk->__sk_common.skc_family;
	return (fam == AF_INET_ || fam == AF_INET6_) && sk->sk_type == SOCK_STREAM_ &&
	       sk->sk_protocol == IPPROTO_TCP_;
}

/* The calling process owns sk from now on (called in process context). */
static __always_inline void sock_note_owner(const struct sock *sk, __u32 tgid)
{
	__u64 key = (__u64)(unsigned long)sk;
	__u32 zero = 0;
	struct net_last *last = bpf_map_lookup_elem(&net_last, &zero);
	if (last && last->sk == key && last->tgid == tgid)
		return;
	if (last)
		last->sk = key, last->tgid = tgid;
	struct rec_sock_owner *o = bpf_map_lookup_elem(&sock_owner, &key);
	if (o && o->pid == tgid)
		return;
	struct rec_sock_owner n = { .pid = tgid, .cgroup_id = current_cgid() };
	struct task_struct *t = (void *)bpf_get_current_task();
	BPF_CORE_READ_STR_INTO(&n.comm, t, group_leader, comm);
	bpf_map_update_elem(&sock_owner, &key, &n, BPF_ANY);
}

static __always_inline void sock_count(const struct sock *sk, long ret, bool tx)
{
	if (ret <= 0 || !sk || !sk_tcp(sk))
		return;
	__u32 tgid = bpf_get_current_pid_tgid() >> 32;
	/* a sender owns what it sends, and the retransmissions of it; a
	 * receive does not move the owner (connect() and send() do) */
	if (tx)
		sock_note_owner(sk, tgid);
	if (!targ_host_net && !is_target(tgid))
		return;
	struct rec_sock_agg *a = bpf_map_lookup_elem(&sock_agg, &tgid);
	if (!a) {
		/* the process's first socket call in this window */
		struct rec_sock_agg z = { .cgroup_id = current_cgid() };
		struct task_struct *t = (void *)bpf_get_current_task();
		BPF_CORE_READ_STR_INTO(&z.comm, t, group_leader, comm);
		bpf_map_update_elem(&sock_agg, &tgid, &z, BPF_NOEXIST);
		a = bpf_map_lookup_elem(&sock_agg, &tgid);
		if (!a) {
			net_count(REC_NET_SOCK_FULL);
			return;
		}
	}
	if (tx) {
		__sync_fetch_and_add(&a->tx_bytes, ret);
		__sync_fetch_and_add(&a->tx_calls, 1);
	} else {
		__sync_fetch_and_add(&a->rx_bytes, ret);
		__sync_fetch_and_add(&a->rx_calls, 1);
	}
}

/*
 * BTF tracepoints (tp_btf): the arguments are typed kernel pointers, read
 * directly, no probe read per field - the socket calls are hot.
 * sock_send_length(struct sock *sk, int ret, int flags): every sendmsg of
 * a socket (send, write, sendfile, io_uring), Linux 6.4+
 */
SEC("tp_btf/sock_send_length")
int BPF_PROG(sock_send, struct sock *sk, int ret, int flags)
{
	sock_count(sk, ret, true);
	return 0;
}

/* sock_recv_length(struct sock *sk, int ret, int flags) */
SEC("tp_btf/sock_recv_length")
int BPF_PROG(sock_recv, struct sock *sk, int ret, int flags)
{
	if (flags & MSG_PEEK_)
		return 0; /* the data stays: it is counted when it is read */
	sock_count(sk, ret, false);
	return 0;
}

/* inet_sock_set_state(const struct sock *sk, int oldstate, int newstate):
 * connect() moves a socket to SYN_SENT in the caller's context, so a
 * connection whose SYN is retransmitted has its owner */
SEC("tp_btf/inet_sock_set_state")
int BPF_PROG(sock_state, const struct sock *sk, int oldstate, int newstate)
{
	if (newstate != TCP_SYN_SENT_ || !sk_tcp(sk))
		return 0;
	sock_note_owner(sk, bpf_get_current_pid_tgid() >> 32);
	return 0;
}

/* tcp_retransmit_skb(const struct sock *sk, const struct sk_buff *skb[, int err]) */
SEC("tp_btf/tcp_retransmit_skb")
int BPF_PROG(tcp_retrans, const struct sock *sk)
{
	struct rec_flow_key k = {};
	__u16 fam = sk->__sk_common.skc_family;
	if (fam == AF_INET_) {
		k.family = 4;
		__builtin_memcpy(k.saddr, &sk->__sk_common.skc_rcv_saddr, 4);
		__builtin_memcpy(k.daddr, &sk->__sk_common.skc_daddr, 4);
	} else if (fam == AF_INET6_) {
		k.family = 6;
		BPF_CORE_READ_INTO(&k.saddr, sk, __sk_common.skc_v6_rcv_saddr);
		BPF_CORE_READ_INTO(&k.daddr, sk, __sk_common.skc_v6_daddr);
	} else {
		return 0;
	}
	k.sport = sk->__sk_common.skc_num;
	k.dport = bpf_ntohs(sk->__sk_common.skc_dport);
	__u32 state = sk->__sk_common.skc_state;
	struct rec_flow_agg *a = bpf_map_lookup_elem(&flow_agg, &k);
	if (!a || !a->pid) {
		__u64 key = (__u64)(unsigned long)sk;
		struct rec_sock_owner *o = bpf_map_lookup_elem(&sock_owner, &key);
		if (!targ_host_net && !(o && is_target(o->pid)))
			return 0;
		if (!a) {
			struct rec_flow_agg z = {};
			bpf_map_update_elem(&flow_agg, &k, &z, BPF_NOEXIST);
			a = bpf_map_lookup_elem(&flow_agg, &k);
			if (!a) {
				net_count(REC_NET_RETRANS_FULL);
				return 0;
			}
		}
		if (o) {
			a->pid = o->pid;
			a->cgroup_id = o->cgroup_id;
			__builtin_memcpy(a->comm, o->comm, sizeof(a->comm));
		}
	}
	__sync_fetch_and_add(&a->count, 1);
	a->state = state;
	return 0;
}

#endif /* INGERO_NET_BPF_H */
