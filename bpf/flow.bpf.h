/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Flow parsing for skbs seen at the device layer (net_dev_queue,
 * net_dev_start_xmit, fexit of netdev_core_pick_tx). CO-RE reads only, so
 * one object runs on every kernel with BTF.
 */
#ifndef NETMEDIC_FLOW_BPF_H
#define NETMEDIC_FLOW_BPF_H

#include "vmlinux.h"
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_core_read.h>
#include <bpf/bpf_endian.h>
#include "netmedic/common.h"

#define NM_ETH_P_IP	0x0800
#define NM_ETH_P_IPV6	0x86DD
#define NM_IPPROTO_TCP	6
#define NM_IPPROTO_UDP	17

struct nm_flow {
	__u8 family;
	__u8 proto;
	__u16 sport;		/* host order */
	__u16 dport;
	__u8 saddr[16];
	__u8 daddr[16];
	/* TCP only */
	__u32 seq;
	__u32 payload;		/* bytes of TCP payload in this skb (all segments of a GSO skb) */
};

/*
 * RD(btf, p, field): a direct load where p is a BTF-typed pointer (tp_btf,
 * fentry: the verifier turns it into a fault-safe load, no helper call),
 * BPF_CORE_READ where it is not (raw_tp). btf is a constant after inlining,
 * so only one of the two reaches the verifier. Both are CO-RE relocated.
 */
#define RD(btf, p, field) ((btf) ? (p)->field : BPF_CORE_READ(p, field))

/*
 * The L4 header follows the network header at a fixed offset for IPv4
 * (ihl) and for IPv6 without extension headers; anything else keeps ports 0.
 */
static __always_inline int nm_parse_l4(const struct sk_buff *skb, unsigned char *head,
				       __u32 l4off, struct nm_flow *f, const bool btf)
{
	struct {
		__be16 source;
		__be16 dest;
		__be32 seq;
		__be32 ack_seq;
		__u8 doff_res;
	} th;
	__u32 data_off, len, hdr;

	if (f->proto != NM_IPPROTO_TCP && f->proto != NM_IPPROTO_UDP)
		return 0;
	if (bpf_probe_read_kernel(&th, sizeof(th), head + l4off))
		return 0;
	f->sport = bpf_ntohs(th.source);
	f->dport = bpf_ntohs(th.dest);
	if (f->proto != NM_IPPROTO_TCP)
		return 0;
	f->seq = bpf_ntohl(th.seq);
	/* skb->len counts from skb->data (the MAC header here) */
	data_off = (__u32)(RD(btf, skb, data) - head);
	len = RD(btf, skb, len);
	hdr = l4off - data_off + (th.doff_res >> 4) * 4;
	f->payload = len > hdr ? len - hdr : 0;
	return 0;
}

/* Returns 0 when skb carries IPv4 or IPv6, -1 otherwise. */
static __always_inline int nm_parse_skb_x(const struct sk_buff *skb, struct nm_flow *f,
					  const bool btf)
{
	unsigned char *head = RD(btf, skb, head);
	__u16 proto = bpf_ntohs(RD(btf, skb, protocol));
	__u32 nh = RD(btf, skb, network_header);

	if (proto == NM_ETH_P_IP) {
		struct {
			__u8 ver_ihl;
			__u8 tos;
			__be16 tot_len;
			__be16 id;
			__be16 frag_off;
			__u8 ttl;
			__u8 protocol;
			__u16 check;
			__be32 saddr;
			__be32 daddr;
		} iph;

		if (bpf_probe_read_kernel(&iph, sizeof(iph), head + nh))
			return -1;
		f->family = NM_AF_INET;
		f->proto = iph.protocol;
		__builtin_memcpy(f->saddr, &iph.saddr, 4);
		__builtin_memcpy(f->daddr, &iph.daddr, 4);
		/* later fragments carry no L4 header */
		if (bpf_ntohs(iph.frag_off) & 0x1fff)
			return 0;
		return nm_parse_l4(skb, head, nh + (iph.ver_ihl & 0xf) * 4, f, btf);
	}
	if (proto == NM_ETH_P_IPV6) {
		struct {
			__be32 ver_tc_flow;
			__be16 payload_len;
			__u8 nexthdr;
			__u8 hop_limit;
			__u8 saddr[16];
			__u8 daddr[16];
		} ip6;

		if (bpf_probe_read_kernel(&ip6, sizeof(ip6), head + nh))
			return -1;
		f->family = NM_AF_INET6;
		f->proto = ip6.nexthdr;
		__builtin_memcpy(f->saddr, ip6.saddr, 16);
		__builtin_memcpy(f->daddr, ip6.daddr, 16);
		return nm_parse_l4(skb, head, nh + 40, f, btf);
	}
	return -1;
}

static __always_inline int nm_parse_skb(const struct sk_buff *skb, struct nm_flow *f)
{
	return nm_parse_skb_x(skb, f, false);
}

/* Segments on the wire for this skb: gso_segs for GSO skbs, else 1. */
static __always_inline __u32 nm_skb_segs_x(const struct sk_buff *skb, const bool btf)
{
	unsigned char *head = RD(btf, skb, head);
	struct skb_shared_info *shinfo;
	__u16 segs;

	/* head + end is not a BTF pointer: a CO-RE probe read either way */
	shinfo = (struct skb_shared_info *)(head + RD(btf, skb, end));
	segs = BPF_CORE_READ(shinfo, gso_segs);
	return segs ? segs : 1;
}

static __always_inline __u32 nm_skb_segs(const struct sk_buff *skb)
{
	return nm_skb_segs_x(skb, false);
}

/* Inode of the device's netns: identifies the device together with ifindex. */
static __always_inline __u32 nm_dev_netns_x(const struct net_device *dev, const bool btf)
{
	return btf ? dev->nd_net.net->ns.inum : BPF_CORE_READ(dev, nd_net.net, ns.inum);
}

static __always_inline __u32 nm_dev_netns(const struct net_device *dev)
{
	return nm_dev_netns_x(dev, false);
}

/* Serial number arithmetic (RFC 1982), as the kernel's before(). */
static __always_inline int nm_seq_before(__u32 a, __u32 b)
{
	return (__s32)(a - b) < 0;
}

#endif
