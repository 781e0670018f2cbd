/* SPDX-License-Identifier: GPL-2.0 */
/*
 * qdiscstuck: map keys and values shared by src/qdiscstuck/qdiscstuck.bpf.c and
 * src/qdiscstuck/main.c.
 *
 * The BPF side keeps one entry per qdisc that runs (the qdisc attached to a
 * TX queue: a root, or a child of mq): when it last ran, dequeued and was
 * enqueued to, the TX queue state it saw, and, on demand, a sample of its
 * scheduling state. Backlog and counters of every qdisc come from rtnetlink;
 * every decision is made in userspace (src/qdiscstuck/judge.c).
 */
#ifndef NETMEDIC_QDISCSTUCK_H
#define NETMEDIC_QDISCSTUCK_H

#include "netmedic/common.h"

#define QS_MAX_DEVS		8	/* --dev filters, resolved before load */
#define QS_MAX_QDISCS		4096	/* qdiscs tracked (LRU) */
#define QS_MAX_TXQS		4096	/* (device, TX queue) pairs tracked (LRU) */

/* txq->state bits (include/linux/netdevice.h, enum netdev_queue_state_t) */
#define QS_TXQ_DRV_XOFF		(1U << 0)
#define QS_TXQ_STACK_XOFF	(1U << 1)	/* BQL */
#define QS_TXQ_FROZEN		(1U << 2)
#define QS_TXQ_STOPPED		(QS_TXQ_DRV_XOFF | QS_TXQ_STACK_XOFF | QS_TXQ_FROZEN)

/* qdisc->state bits (enum qdisc_state_t) */
#define QS_Q_SCHED		(1U << 0)	/* on a CPU's output queue, NET_TX will run it */
#define QS_Q_DEACTIVATED	(1U << 1)
#define QS_Q_MISSED		(1U << 2)	/* lockless: a CPU failed the trylock meanwhile */
#define QS_Q_DRAINING		(1U << 3)

#define QS_TCQ_F_NOLOCK		0x100	/* lockless qdisc: q.qlen is not its length */

#define QS_NO_TXQ		0xffffffffU

/* The --fix=kick frame: an SO_MARK the BPF side recognises at net_dev_queue. */
#define QS_KICK_MARK		0x6e6d6b6bU	/* "nmkk" */

struct qs_qdisc_key {
	__u32 netns;		/* inode of the device's network namespace */
	__u32 ifindex;
	__u32 parent;		/* TC_H_ROOT for a root; mq children are parent MAJ:queue+1 */
	__u32 handle;		/* 0 for the default children mq creates */
};

/*
 * One entry per qdisc, keyed by the qdisc's address: the hooks get the
 * qdisc, and the key needs no reads. Its identity (key) is read once, when
 * the entry is made.
 */
struct qs_qdisc {
	struct qs_qdisc_key key;
	__u64 qdisc;		/* struct Qdisc *, for the sampler only (never dereferenced in userspace) */
	__u64 txq;		/* struct netdev_queue * of the last run */
	__u64 last_deq_ns;	/* a dequeue that returned a packet, in the latest jiffy that had one */
	__u64 last_deq_jiffies;	/* that jiffy: the clock is read once per jiffy, not per packet */
	__u64 last_reset_ns;
	__u32 txq_index;	/* QS_NO_TXQ until known */
	__u32 flags;		/* qdisc->flags (TCQ_F_*) */
	__u32 null_txq_state;	/* txq->state at the last NULL dequeue */
	__u8 last_was_null;	/* the last dequeue attempt returned nothing */
	__u8 ignored;		/* not on a --dev device, or out of scope: the entry only makes its events cheap */
	/*
	 * The device's real_num_tx_queues when the entry was made: in another
	 * netns than the tool's, sysfs cannot say it.
	 */
	__u16 dev_ntxq;
	/*
	 * fentry rung only: the qdisc's watchdog (the timer of tbf, htb, fq,
	 * netem...) asked to fire at wd_expires_ns (CLOCK_MONOTONIC, as
	 * bpf_ktime_get_ns; 0 when its clock is another one, e.g. TAI).
	 */
	__u64 wd_armed_ns;	/* last qdisc_watchdog_schedule_range_ns; 0: never seen */
	__u64 wd_expires_ns;
	/*
	 * An enqueue, in the latest jiffy that had one (qdisc_enqueue rung):
	 * dates the progress that the counters show without a dequeue, the
	 * packets an empty qdisc sent by its bypass.
	 */
	__u64 last_enq_ns;
	__u64 last_enq_jiffies;
	/* filled by the sampler program, run by userspace before each report */
	__u64 sample_ns;
	__u32 s_state;		/* qdisc->state (QS_Q_*) */
	__u32 s_running;	/* qdisc is running: state2 RUNNING or seqlock held */
	__u32 s_txq_state;	/* txq->state now */
	__u32 s_qlen;		/* q.qlen (not the length of a lockless qdisc) */
};

/* Per device and TX queue: the kick frames that reached it. */
struct qs_txq_key {
	__u32 netns;
	__u32 ifindex;
	__u32 queue;
	__u32 pad;
};

struct qs_txq {
	__u64 kicks;		/* QS_KICK_MARK frames queued on this queue */
};

enum qs_counter {
	QS_CNT_QDISC_UPDATE_FAIL,
	QS_CNT_DESTROYED,	/* qdisc entries removed at qdisc_destroy */
	QS_CNT_SAMPLED,		/* entries the last sampler run read */
	QS_CNT_SEEDED,		/* entries the seed made (qdiscs with no event before it) */
	QS_CNT_MAX,
};

#endif
