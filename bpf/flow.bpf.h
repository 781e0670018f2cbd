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
	__u32 payload;		/* TCP or UDP payload bytes in this skb (all segments of a GSO skb) */
	__u32 hdrlen;		/* TCP/UDP: bytes of skb->len before the payload (MAC to L4 header) */
};

/*
 * RD(btf, p, field): a direct load where p is a BTF-typed pointer (tp_btf,
 * fentry: the verifier turns it into a fault-safe load, no helper call),
 * BPF_CORE_READ where it is not (raw_tp). btf is a constant after inlining,
 * so only one of the two reaches the verifier. Both are CO-RE relocated.
 */
#define RD(btf, p, field) ((btf) ? (p)->field : BPF_CORE_READ(p, field))

/* The L4 header fields read: ports, and for TCP the sequence and data offset. */
struct nm_l4hdr {
	__be16 source;
	__be16 dest;
	__be32 seq;
	__be32 ack_seq;
	__u8 doff_res;
	__u8 pad[3];
};

/*
 * The network header and the L4 header after it, read at once: a probe read
 * costs as much as the parse (about 25 ns here), so one read covers IPv4
 * without options and IPv6 without extension headers, the L4 header
 * included. skb head buffers end with skb_shared_info, so reading 56 bytes
 * past the network header stays inside the buffer.
 */
union nm_hdrs {
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
		struct nm_l4hdr l4;	/* where it is when ihl is 5 */
	} v4;
	struct {
		__be32 ver_tc_flow;
		__be16 payload_len;
		__u8 nexthdr;
		__u8 hop_limit;
		__u8 saddr[16];
		__u8 daddr[16];
		struct nm_l4hdr l4;	/* where it is without extension headers */
	} v6;
};

/*
 * Ports, and for TCP the sequence; payload: L4 payload bytes of the skb (all
 * segments of a GSO skb) for TCP and UDP. l4off is from skb->head.
 */
static __always_inline void nm_parse_l4(const struct sk_buff *skb, unsigned char *head,
					__u32 l4off, const struct nm_l4hdr *th, struct nm_flow *f,
					const bool btf)
{
	__u32 data_off, len, hdr;

	if (f->proto != NM_IPPROTO_TCP && f->proto != NM_IPPROTO_UDP)
		return;
	f->sport = bpf_ntohs(th->source);
	f->dport = bpf_ntohs(th->dest);
	/* skb->len counts from skb->data (the MAC header at the device layer) */
	data_off = (__u32)(RD(btf, skb, data) - head);
	len = RD(btf, skb, len);
	hdr = l4off - data_off;
	if (f->proto == NM_IPPROTO_TCP) {
		f->seq = bpf_ntohl(th->seq);
		hdr += (th->doff_res >> 4) * 4;
	} else {
		hdr += 8;
	}
	f->payload = len > hdr ? len - hdr : 0;
	f->hdrlen = hdr;
}

/* Returns 0 when skb carries IPv4 or IPv6, -1 otherwise. */
static __always_inline int nm_parse_skb_x(const struct sk_buff *skb, struct nm_flow *f,
					  const bool btf)
{
	unsigned char *head = RD(btf, skb, head);
	__u16 proto = bpf_ntohs(RD(btf, skb, protocol));
	__u32 nh = RD(btf, skb, network_header), ihl;
	struct nm_l4hdr th;
	union nm_hdrs h;

	if (proto != NM_ETH_P_IP && proto != NM_ETH_P_IPV6)
		return -1;
	if (bpf_probe_read_kernel(&h, sizeof(h), head + nh))
		return -1;
	if (proto == NM_ETH_P_IPV6) {
		f->family = NM_AF_INET6;
		f->proto = h.v6.nexthdr;
		__builtin_memcpy(f->saddr, h.v6.saddr, 16);
		__builtin_memcpy(f->daddr, h.v6.daddr, 16);
		nm_parse_l4(skb, head, nh + 40, &h.v6.l4, f, btf);
		return 0;
	}
	f->family = NM_AF_INET;
	f->proto = h.v4.protocol;
	__builtin_memcpy(f->saddr, &h.v4.saddr, 4);
	__builtin_memcpy(f->daddr, &h.v4.daddr, 4);
	/* later fragments carry no L4 header */
	if (bpf_ntohs(h.v4.frag_off) & 0x1fff)
		return 0;
	ihl = (h.v4.ver_ihl & 0xf) * 4;
	if (ihl == 20) {
		nm_parse_l4(skb, head, nh + 20, &h.v4.l4, f, btf);
	} else if (f->proto == NM_IPPROTO_TCP || f->proto == NM_IPPROTO_UDP) {
		/* IPv4 options: the L4 header is further on */
		if (!bpf_probe_read_kernel(&th, sizeof(th), head + nh + ihl))
			nm_parse_l4(skb, head, nh + ihl, &th, f, btf);
	}
	return 0;
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

/*
 * 6.2+: an untrusted BTF pointer from an address. Loads through it are
 * inline (faults read as 0), not a helper call. __weak: a kernel without it
 * loads the object; only a program that calls it must not be loaded there.
 */
extern void *bpf_rdonly_cast(const void *obj, __u32 btf_id) __ksym __weak;

/* nm_skb_segs_x for tp_btf/fentry programs, where bpf_rdonly_cast exists */
static __always_inline __u32 nm_skb_segs_cast(const struct sk_buff *skb)
{
	const struct skb_shared_info *sh;
	__u16 segs;

	sh = bpf_rdonly_cast(skb->head + skb->end, bpf_core_type_id_kernel(struct skb_shared_info));
	segs = sh->gso_segs;
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

/* murmur3's finaliser: spreads nearby values (ports, addresses) over all bits */
static __always_inline __u32 nm_mix32(__u32 h)
{
	h ^= h >> 16;
	h *= 0x85ebca6b;
	h ^= h >> 13;
	h *= 0xc2b2ae35;
	h ^= h >> 16;
	return h;
}

/* Serial number arithmetic (RFC 1982), as the kernel's before(). */
static __always_inline int nm_seq_before(__u32 a, __u32 b)
{
	return (__s32)(a - b) < 0;
}

#endif
