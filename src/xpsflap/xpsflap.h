/* SPDX-License-Identifier: GPL-2.0 */
/*
 * xpsflap: map keys and values shared by src/xpsflap/xpsflap.bpf.c and src/xpsflap/main.c.
 *
 * One slot per flow and device in a direct-mapped table (two ways). The BPF
 * side only counts; every decision (flapping, risky, worst first) is made in
 * userspace from these counters.
 */
#ifndef NETMEDIC_XPSFLAP_H
#define NETMEDIC_XPSFLAP_H

#include "netmedic/common.h"

#define XF_MAX_DEVS		8	/* --dev filters, resolved before load */
#define XF_INFLIGHT_SLOTS	8	/* per-queue in-flight counters (queue & 7): one cache line */
#define XF_MAX_QUEUE_BIT	63	/* queues >= 63 share the last bitmap bit */
#define XF_DEV_SLOTS		32	/* devices with per-queue totals */
#define XF_DEV_QUEUES		64	/* per-queue totals; queues >= 63 share the last */
#define XF_NO_DEV_SLOT		0xffffffffU

/* has_sk bits: whether the flow's skbs carried a socket when the queue was picked */
#define XF_SEEN_WITH_SK		1
#define XF_SEEN_WITHOUT_SK	2

struct xf_flow_key {
	__u32 netns;		/* inode of the device's network namespace */
	__u32 ifindex;
	__u8 family;		/* AF_INET or AF_INET6 */
	__u8 proto;		/* IPPROTO_* */
	__u16 sport;		/* host order */
	__u16 dport;		/* host order */
	__u16 pad;
	__u8 saddr[16];		/* network order; IPv4 uses the first 4 bytes */
	__u8 daddr[16];
} __attribute__((aligned(8)));	/* compared 8 bytes at a time */

/*
 * Laid out by who touches it: the first cache line is all a pick or a
 * transmit reads to know the flow (written on a switch or a new interval);
 * the second is written by every pick and every transmit, so a flow that
 * moves between CPUs moves one line; the third is cold.
 */
struct xf_flow {
	/*
	 * The slot's owner: the net_device's address while the slot holds a
	 * flow, 0 while it is free, 1 while a CPU fills it (XF_SLOT_*).
	 */
	__u64 dev;
	__u32 hash;		/* skb->hash of the flow's last parsed skb: the hash index's check */
	__u32 epoch;		/* report interval of the last pick (see xpsflap.bpf.c) */
	__u64 queues;		/* bitmap of TX queues the flow was queued on */
	__u64 cpus;		/* bitmap of CPUs that picked its queue (cpu & 63) */
	__u32 epoch_switches;	/* switches in that interval */
	__u32 last_queue;
	__u32 switches;		/* picks that chose another queue than the previous one */
	__u32 risky_switches;	/* ... while the previous queue still held the flow's packets */
	__u8 has_sk;		/* XF_SEEN_* bits */
	/*
	 * hdrlen was read from an skb that carried payload. A SYN's options make
	 * its header longer than the data segments' that follow: a length
	 * learned from it would leave each data segment's in-flight count short.
	 */
	__u8 hdr_ok;
	__u16 hdrlen;		/* TCP/UDP: header bytes before the payload, at the last parse */

	__u64 packets __attribute__((aligned(64)));	/* segments queued (GSO: gso_segs) */
	__u64 bytes;
	/* TCP/UDP payload bytes picked for each queue (queue & 7), not yet transmitted */
	__u32 inflight[XF_INFLIGHT_SLOTS];
	/*
	 * Data segments transmitted below the highest sequence the flow already
	 * sent, from another queue than the one that sent it: the reordering a
	 * queue switch puts on the wire (a retransmission on the same queue is
	 * not reordering and is not counted).
	 */
	__u32 reordered;
	__u32 max_seq_end;	/* highest TCP end sequence transmitted */
	__u16 max_seq_queue;	/* the queue that transmitted it */
	__u8 seq_valid;
	__u8 pad2;
	/*
	 * Nonzero while a reordering is possible: from a risky switch until
	 * every queue but the flow's current one has transmitted its in-flight
	 * bytes. Only then does transmit read the sequence. Bumped by each
	 * risky switch, so that a transmit closing a window it saw does not
	 * close one opened since.
	 */
	__u32 watch;

	__u64 first_ns __attribute__((aligned(64)));
	__u64 last_ns;		/* first pick of the latest interval it was picked in */
	/*
	 * packets and bytes already added to the per-queue totals (dev_stats),
	 * when the flow last left a queue or lost its slot. What came since
	 * belongs to last_queue; userspace adds it when it reads the totals.
	 * So a pick adds to a per-queue total only on a switch.
	 */
	__u64 packets_flushed;
	__u64 bytes_flushed;
} __attribute__((aligned(64)));

/*
 * One slot of the flow table (an mmap-able array). The flow is val.dev and
 * key's tuple; key's netns and ifindex are filled in when the slot is
 * claimed, for userspace.
 */
#define XF_SLOT_FREE	0
#define XF_SLOT_BUSY	1
struct xf_slot {
	struct xf_flow_key key;
	__u32 dev_slot;		/* index into dev_stats / XF_DEV_QUEUES, or XF_NO_DEV_SLOT */
	struct xf_flow val;	/* from the second cache line on */
};

/*
 * Per device and queue totals, per CPU: they survive flow eviction, so
 * counters stay monotonic. A device gets a slot (devs map) with its first
 * flow; its queue q is entry slot * XF_DEV_QUEUES + min(q, XF_DEV_QUEUES - 1).
 * packets and bytes are a flow's, added when it leaves the queue or its
 * slot (see xf_flow.packets_flushed); the other counters as they happen.
 */
struct xf_dev_id {
	__u32 netns;
	__u32 ifindex;
};

struct xf_dev_stats {
	__u64 packets;
	__u64 bytes;
	__u64 switches;		/* switches *to* this queue */
	__u64 risky_switches;
	__u64 reordered;	/* out-of-order segments transmitted from this queue */
};

/* --pin's tc program: TX queue count of each pinned device, by ifindex. */
#define XF_PIN_DEVS		XF_MAX_DEVS
/* tc priority and handle of the pin filter, so the undo command names exactly it */
#define XF_PIN_TC_PRIO		0xc0de
#define XF_PIN_TC_HANDLE	0x5f

enum xf_counter {
	XF_CNT_FLOWS_CREATED,	/* slots claimed for a new flow */
	XF_CNT_NOT_IP,		/* skbs on watched devices that are not IPv4/IPv6 */
	XF_CNT_UNTRACKED,	/* picks not tracked: both slots of the flow held live flows */
	XF_CNT_XMIT_NO_FLOW,	/* transmitted skbs whose flow had been evicted */
	XF_CNT_PINNED,		/* skbs the pin program gave a queue */
	XF_CNT_EVICTED,		/* flows whose slot another flow took (idle a whole interval) */
	XF_CNT_DEVS_FULL,	/* flows on a device beyond XF_DEV_SLOTS: no per-queue totals */
	XF_CNT_PARSED,		/* skbs whose flow was found by parsing headers: hash index misses */
	XF_CNT_ONE_QUEUE,	/* picks on devices with one TX queue in use: not tracked */
	XF_CNT_OUT_OF_SCOPE,	/* skbs of devices outside the --netns scope: not tracked */
	XF_CNT_MAX,
};

#endif
