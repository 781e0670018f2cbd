/* SPDX-License-Identifier: GPL-2.0 */
/*
 * qdiscstuck decisions: one state per qdisc and report interval, from what
 * one sweep saw (rtnetlink counters, the BPF record of the qdisc that the
 * TX queue runs, the sampler's snapshot) and what the previous sweeps saw.
 * Pure functions, no I/O: unit-tested on recorded state sequences.
 */
#ifndef NETMEDIC_QDISCSTUCK_DETECT_H
#define NETMEDIC_QDISCSTUCK_DETECT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include "qdiscstuck/qdiscstuck.h"

enum qs_state {
	QS_OK,			/* backlog moving, or packets went through */
	QS_IDLE,		/* empty, nothing went through */
	QS_SHAPED,		/* a shaper holds the backlog on purpose (its timer is armed) */
	QS_DRIVER_STOPPED,	/* TX queue stopped with backlog, no progress > threshold */
	QS_STUCK,		/* backlog, queue running, qdisc neither scheduled nor running */
	/*
	 * Backlog, no progress > threshold, and the TX queue's state was not
	 * read (no sampler on this kernel, no empty dequeue since the start):
	 * stopped and stuck look the same, and neither is guessed
	 */
	QS_UNKNOWN,
	QS_NSTATES,
};

#define QS_THRESHOLD_MS_DEFAULT	100

/* What one sweep saw of one qdisc. Times are CLOCK_MONOTONIC ns (the BPF clock). */
struct qs_obs {
	uint64_t now_ns;
	/* rtnetlink (per-CPU counters summed by the kernel) */
	uint32_t qlen;
	uint32_t backlog;
	uint64_t packets;		/* sent */
	uint64_t requeues;
	bool shaper;			/* kind shapes with a watchdog timer (qs_kind_is_shaper) */
	/* events of the qdisc the TX queue runs (this one, or its ancestor) */
	bool have_events;
	uint64_t last_deq_ns;		/* 0: none seen */
	uint64_t last_enq_ns;		/* an enqueue (qdisc_enqueue rung); 0: none seen */
	bool last_was_null;		/* its last dequeue attempt gave nothing */
	uint32_t null_txq_state;	/* txq->state at that empty dequeue */
	/*
	 * A dequeue of the qdisc the TX queue runs, since its entry was
	 * made: false for one met by the seed, until its first run
	 */
	bool deq_seen;
	/*
	 * The watchdog of that qdisc (fentry rung): when it was last asked to
	 * fire, on the same clock as now_ns. 0: not seen (the tracepoint
	 * rungs, a shaper that never armed it, or a clock other than
	 * CLOCK_MONOTONIC).
	 */
	uint64_t wd_expires_ns;
	/* the sampler's snapshot of that qdisc, taken just before the sweep */
	bool sampled;
	uint32_t q_state;		/* QS_Q_* */
	bool running;
	uint32_t txq_state;
	/* NETMEDIC_TEST_UNKNOWN=stuck (a test aid): judge unknown as stuck */
	bool unknown_is_stuck;
};

/* What the tool keeps of one qdisc from sweep to sweep. Zero it to start. */
struct qs_track {
	bool init;
	enum qs_state state;
	uint64_t since_ns;		/* in this state since */
	/*
	 * First sight, and whether a dequeue was known then: when not, a state
	 * that held from first sight on has since_ns == first_ns, a bound
	 * (qs_state_since_start)
	 */
	uint64_t first_ns;
	bool first_deq_known;
	uint64_t last_sweep_ns;
	uint64_t last_progress_ns;	/* last dequeue seen (or first sight) */
	uint64_t packets, requeues;	/* counters at the last sweep */
	double deq_rate, requeue_rate;	/* per second over the last interval */
	uint64_t bad_ns;		/* time spent stuck, driver_stopped or unknown, total */
	uint64_t entered[QS_NSTATES];	/* times the qdisc entered each state */
	uint32_t txq_state;		/* the TX queue state used for the decision */
	bool txq_state_known;
};

/* Feeds one sweep; returns the new state (also in t->state). */
enum qs_state qs_update(struct qs_track *t, const struct qs_obs *o, uint64_t threshold_ns);

/*
 * --fix=kick: a stuck qdisc is kicked when its stall began after the last
 * kick (a new stall: at once), or, while one stall lasts, every retry_ns.
 * last_kick_ns 0: never kicked.
 */
bool qs_kick_due(const struct qs_track *t, uint64_t last_kick_ns, uint64_t now_ns,
		 uint64_t retry_ns);

/* Milliseconds in the current state at o->now_ns. */
uint64_t qs_state_ms(const struct qs_track *t, uint64_t now_ns);
/*
 * Whether the current state already held when the tool first saw the
 * qdisc, with no dequeue known before: then qs_state_ms counts from that
 * first sight and is a lower bound (a backlog stopped an hour before the
 * tool started shows the seconds since its start). Neither the qdisc nor
 * its TX queue keeps when it last moved for every driver (an LLTX device
 * such as veth never updates the queue's trans_start), so the age is named
 * for what it is rather than guessed.
 */
bool qs_state_since_start(const struct qs_track *t);

/* "ok", "idle", "shaped", "driver_stopped", "stuck", "unknown" */
const char *qs_state_name(enum qs_state s);
/* The names by state, for tables keyed by them (the records' state sets). */
extern const char *const qs_state_names[QS_NSTATES];
/*
 * The keys --sort ranks the qdiscs of one state by, each most first:
 * packets queued (QLEN), bytes queued (BYTES), packets dequeued per
 * second (DEQ/S), time in the state (MS), packets dropped since the
 * qdisc was made. Ties go by QS_SORT_QLEN's order: qlen, bytes, deq.
 */
enum qs_sort {
	QS_SORT_QLEN,
	QS_SORT_BYTES,
	QS_SORT_DEQ,
	QS_SORT_MS,
	QS_SORT_DROPS,
	QS_NR_SORTS,
};
extern const char *const qs_sort_names[QS_NR_SORTS];

/*
 * The state a TX queue shows when its qdiscs (an mq child, an htb leaf and
 * its root) differ: the worse of a and b, stuck > driver_stopped > unknown > shaped
 * > ok > idle.
 */
enum qs_state qs_state_worse(enum qs_state a, enum qs_state b);

/* tbf, htb, hfsc, cbq, fq, netem, cbs, taprio, etf, sfb...: dequeue waits for a timer. */
bool qs_kind_is_shaper(const char *kind);

/* mq, mqprio: a root that only sums its children, one per TX queue. */
bool qs_kind_is_mq(const char *kind);

/* Lockless qdisc kinds whose locked twin --fix=lock can put in their place. */
const char *qs_locked_twin(const char *kind);

/*
 * --lock's two tc commands for the qdisc (kind, handle) on parent of dev:
 * replace it by its locked twin of that limit, and put it back under the
 * same handle (a new automatic one would break whatever refers to the
 * old). Handle 0: (the kernel's default qdisc) cannot be asked for, so
 * that undo takes a new one. 0, or -EINVAL when kind has no locked twin.
 */
#define QS_LOCK_ARGC	12
struct qs_lock_cmd {
	char parent[16], handle[16], limit[16];
	const char *do_argv[QS_LOCK_ARGC], *undo_argv[QS_LOCK_ARGC];
};
int qs_lock_cmds(struct qs_lock_cmd *c, const char *dev, uint32_t parent, uint32_t handle,
		 const char *kind, int limit);

/* "DRV_XOFF|STACK_XOFF" ("-" for 0); buf of 48 bytes is enough. */
const char *qs_txq_state_str(uint32_t state, char *buf, size_t len);

/* "1:2", "root", "3e:" as tc prints handles and parents. */
const char *qs_fmt_handle(uint32_t h, char *buf, size_t len);
const char *qs_fmt_parent(uint32_t p, char *buf, size_t len);

/*
 * The TX queue a child of mq/mqprio runs on: its parent's minor - 1, when
 * the parent qdisc (major) is a multiqueue root; else -1.
 */
int qs_mq_child_queue(uint32_t parent, uint32_t mq_handle);

/* What a row's TX queue is chosen from: where the qdisc sits, and its device's queues. */
struct qs_txq_facts {
	/*
	 * The qdisc is a child of mq (mq, mqprio), or sits under one: that
	 * child's parent (MAJ:queue+1) and the mq's handle.
	 */
	bool under_mq;
	uint32_t mq_child_parent;
	uint32_t mq_handle;
	/*
	 * The device's TX queues, 0 where not known: num_txq, its
	 * num_tx_queues (its link message, in any netns); real_txq, its
	 * real_num_tx_queues (sysfs, which shows the tool's netns only, or
	 * the BPF record, made at the qdisc's first event since the start).
	 */
	unsigned int num_txq;
	unsigned int real_txq;
};

/*
 * The TX queue a qdisc's row names (its TXQ column, its metrics' queue
 * label), or -1 for all of them ("all"): the queue of the child of mq it
 * is or sits under; else 0 on a device of one TX queue (either count
 * says 1); else -1, a root that every queue of the device runs. Where
 * the device is, and which tool's netns, do not enter into it.
 */
int qs_row_txq(const struct qs_txq_facts *f);

/*
 * Whether the qdisc (handle, parent) of a device is the parent qdisc of
 * one whose parent is child_parent, on the same device.
 */
bool qs_is_parent_qdisc(uint32_t handle, uint32_t parent, uint32_t child_parent);

/* Parses "DEV:QUEUE" (for --kick). 0, or -1 when malformed. */
int qs_parse_dev_queue(const char *s, char *dev, size_t devlen, unsigned int *queue);

/*
 * An xps_cpus line as sysfs prints it ("00000000,00000003", newline
 * stripped) as a mask of the first 64 CPUs. buf is cut up in place.
 */
uint64_t qs_xps_mask(char *buf);

#endif
