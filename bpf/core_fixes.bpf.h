/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Kernel types and fields that differ between the kernels netmedic runs on.
 *
 * The objects compile against one committed vmlinux.h (bpf/vmlinux/), but
 * load on kernels older and newer than it. A field that only some kernels
 * have is named here through a flavour, struct NAME___SUFFIX: libbpf
 * matches it against the running kernel's NAME (the suffix is dropped), so
 * the code compiles whether or not the committed header has the field, and
 * bpf_core_field_exists() or bpf_core_type_exists() on the flavour tells at
 * load time whether this kernel has it. Only the fields the code reads are
 * declared; their offsets come from the running kernel.
 */
#ifndef NETMEDIC_CORE_FIXES_BPF_H
#define NETMEDIC_CORE_FIXES_BPF_H

#include "vmlinux.h"
#include <bpf/bpf_core_read.h>

/*
 * net.ipv4.tcp_backlog_ack_defer: 6.7 (133c4c0d3717) defers the ACKs a
 * backlog run would send to tcp_release_cb; 6.1 has no such sysctl and
 * sends each of them.
 */
struct netns_ipv4___ack_defer {
	u8 sysctl_tcp_backlog_ack_defer;
} __attribute__((preserve_access_index));

/* &net->ipv4, seen as the flavour that may have the 6.7 sysctl */
static __always_inline struct netns_ipv4___ack_defer *
netns_ipv4_ack_defer(struct net *net)
{
	return (struct netns_ipv4___ack_defer *)&net->ipv4;
}

/*
 * A socket's cgroup v2, as sock_cgroup_ptr() reads it. Since 5.15 ("bpf,
 * cgroups: Fix cgroup v2 fallback on v1/v2 mixed mode") sk_cgrp_data is
 * { struct cgroup *cgroup; u32 classid; u16 prioidx; }, the v1 fields
 * only with CONFIG_CGROUP_NET_CLASSID/PRIO (6.1 and 6.18 alike, both
 * set in Debian's and this host's configs). Before, a union whose u64 val
 * is the pointer unless its low bits are set (a v1 classid or prioidx
 * borrowed it), when the kernel takes the root. Without
 * CONFIG_SOCK_CGROUP_DATA there is no field at all.
 */
struct sock_cgroup_data___val {
	u64 val;
} __attribute__((preserve_access_index));

struct sock___cgrp_val {
	struct sock_cgroup_data___val sk_cgrp_data;
} __attribute__((preserve_access_index));

/* ... and the 5.15 one, by a flavour too: 5.10's types have no .cgroup to compile against */
struct sock_cgroup_data___ptr {
	struct cgroup *cgroup;
} __attribute__((preserve_access_index));

struct sock___cgrp_ptr {
	struct sock_cgroup_data___ptr sk_cgrp_data;
} __attribute__((preserve_access_index));

/*
 * The socket's cgroup v2 id (cgroup_id(): its kernfs node's id, the
 * cgroup directory's inode number on 64-bit kernels); 1 is the root,
 * 0 unknown. Probe reads: any socket pointer will do, and it is read
 * once per sampled socket, never per packet.
 */
static __always_inline __u64 sk_cgroup_id(const struct sock *sk)
{
	const struct sock___cgrp_val *old = (const void *)sk;
	const struct sock___cgrp_ptr *cur = (const void *)sk;
	struct cgroup *cg;
	__u64 v;

	if (bpf_core_field_exists(cur->sk_cgrp_data.cgroup)) {
		cg = BPF_CORE_READ(cur, sk_cgrp_data.cgroup);
	} else if (bpf_core_field_exists(old->sk_cgrp_data.val)) {
		v = BPF_CORE_READ(old, sk_cgrp_data.val);
		if (!v || (v & 3))
			return 1;
		cg = (struct cgroup *)(unsigned long)v;
	} else {
		return 0;
	}
	return cg ? BPF_CORE_READ(cg, kn, id) : 0;
}

/*
 * Qdisc.state2 (__QDISC_STATE2_RUNNING): the running bit of a qdisc that
 * is not lockless. Newer than 5.10, which keeps it in q->running (a
 * seqcount): there the sampler sees only a lockless qdisc's seqlock.
 */
struct Qdisc___state2 {
	unsigned long state2;
} __attribute__((preserve_access_index));

/*
 * kfree_skb's drop reasons (5.17+; the tracepoint's third argument).
 * 5.10 has neither the enum nor the argument: the enumerator is named by
 * a flavour (libbpf matches enumerators without their ___suffix), so the
 * code compiles against either, and the value comes from the running
 * kernel. tcpstall's loader does not take the rung where it is missing
 * (tcpstall/hooks.c: the rung needs the enumerator in kernel BTF).
 */
enum skb_drop_reason___nm {
	SKB_DROP_REASON_SOCKET_BACKLOG___nm = 0,
};

static __always_inline bool drop_reason_backlog(int reason)
{
	return bpf_core_enum_value_exists(enum skb_drop_reason___nm, SKB_DROP_REASON_SOCKET_BACKLOG___nm) &&
	       reason == bpf_core_enum_value(enum skb_drop_reason___nm, SKB_DROP_REASON_SOCKET_BACKLOG___nm);
}

/*
 * struct bpf_timer (5.15) is uapi, and the map value that holds one must
 * name a struct of exactly that name: the kernel finds the timer by it.
 * Kernel types older than 5.15 (5.10's) have none; the Makefile says so
 * (NM_NO_BPF_TIMER, from a look at the vmlinux.h it compiles against) and
 * it is declared here as uapi has it. The objects built against the
 * committed header take that header's, which is the same 16 bytes.
 * The programs that arm one sit on a rung a kernel without timers refuses.
 */
#ifdef NM_NO_BPF_TIMER
struct bpf_timer {
	__u64 __opaque[2];
} __attribute__((aligned(8)));
#endif

#endif
