/* SPDX-License-Identifier: GPL-2.0 */
/*
 * xpsflap: map keys and values shared by bpf/xpsflap.bpf.c and src/xpsflap.c.
 *
 * One LRU entry per flow and device. The BPF side only counts; every decision
 * (flapping, risky, worst first) is made in userspace from these counters.
 */
#ifndef NETMEDIC_XPSFLAP_H
#define NETMEDIC_XPSFLAP_H

#include "netmedic/common.h"

#define XF_MAX_DEVS		8	/* --dev filters, resolved before load */
#define XF_INFLIGHT_SLOTS	16	/* per-queue in-flight counters (queue & 15) */
#define XF_MAX_QUEUE_BIT	63	/* queues >= 63 share the last bitmap bit */
#define XF_IDLE_RESET_NS	1000000000ULL	/* in-flight counts older than this are stale */
#define XF_DEV_STATS_MAX	4096

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
};

struct xf_flow {
	__u64 packets;		/* segments queued (GSO skbs count gso_segs) */
	__u64 bytes;
	__u64 queues;		/* bitmap of TX queues the flow was queued on */
	__u64 cpus;		/* bitmap of CPUs that picked its queue (cpu & 63) */
	__u64 first_ns;
	__u64 last_ns;		/* last pick */
	__u32 epoch;		/* report interval of the last pick (see xpsflap.bpf.c) */
	__u32 epoch_switches;	/* switches in that interval */
	__u32 last_queue;
	__u32 switches;		/* picks that chose another queue than the previous one */
	__u32 risky_switches;	/* ... while the previous queue still held the flow's packets */
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
	__u8 has_sk;		/* XF_SEEN_* bits */
	__u32 inflight[XF_INFLIGHT_SLOTS];	/* segments picked, not yet transmitted */
};

/* Per device and queue totals: they survive flow eviction, so counters stay monotonic. */
struct xf_dev_key {
	__u32 netns;
	__u32 ifindex;
	__u32 queue;
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
	XF_CNT_FLOWS_CREATED,	/* evictions = created - present */
	XF_CNT_NOT_IP,		/* skbs on watched devices that are not IPv4/IPv6 */
	XF_CNT_FLOW_UPDATE_FAIL,
	XF_CNT_XMIT_NO_FLOW,	/* transmitted skbs whose flow had been evicted */
	XF_CNT_PINNED,		/* skbs the pin program gave a queue */
	XF_CNT_MAX,
};

#endif
