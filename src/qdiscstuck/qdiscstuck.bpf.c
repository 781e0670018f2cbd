// SPDX-License-Identifier: GPL-2.0
/*
 * qdiscstuck: when each qdisc that a TX queue runs last ran, dequeued and
 * was enqueued to, and the TX queue state its empty dequeues saw; a sampler
 * program, run on demand by userspace, reads the qdisc's scheduling state
 * (SCHED/MISSED, running) and the TX queue state at report time.
 *
 * Why the sampler: a stuck lockless qdisc (the race of "net: sched: fix
 * packet stuck problem for lockless qdisc") emits no event at all; only
 * its state at a given moment tells "nobody will run it" from "it is
 * scheduled". Backlog comes from rtnetlink, which sums the per-CPU queue
 * lengths of lockless qdiscs (q.qlen does not).
 *
 * Per packet: one LRU lookup keyed by the qdisc's address at enqueue and
 * dequeue, a clock read at most once per jiffy; no events, no strings.
 */
#include "vmlinux.h"
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_tracing.h>
#include <bpf/bpf_core_read.h>
#include "common.bpf.h"
#include "flow.bpf.h"
#include "core_fixes.bpf.h"
#include "qdiscstuck/qdiscstuck.h"


struct {
	__uint(type, BPF_MAP_TYPE_LRU_HASH);
	__uint(max_entries, QS_MAX_QDISCS);
	__type(key, __u64);		/* the qdisc's address */
	__type(value, struct qs_qdisc);
} qdiscs SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_LRU_HASH);
	__uint(max_entries, QS_MAX_TXQS);
	__type(key, struct qs_txq_key);
	__type(value, struct qs_txq);
} txqs SEC(".maps");

NM_COUNTERS(qs, QS_CNT_MAX)

static __always_inline bool qdisc_key(struct Qdisc *q, struct qs_qdisc_key *k)
{
	struct net_device *dev = BPF_CORE_READ(q, dev_queue, dev);

	if (!dev)
		return false;
	k->netns = nm_dev_netns(dev);
	k->ifindex = BPF_CORE_READ(dev, ifindex);
	/* a --dev device (none: every one), in the scope's namespaces (none: every netns) */
	if (!dev_watched(k->netns, k->ifindex) || !netns_in_scope(k->netns))
		return false;
	k->parent = BPF_CORE_READ(q, parent);
	k->handle = BPF_CORE_READ(q, handle);
	return true;
}

/*
 * The address of a BTF pointer as a plain number: the verifier forbids
 * arithmetic on trusted pointers, and a copy through the stack is a scalar.
 */
static __always_inline __u64 addr_of(const void *p)
{
	__u64 v = 0;

	bpf_probe_read_kernel(&v, sizeof(v), &p);
	return v;
}

/* Index of txq in its device's array of TX queues. */
static __always_inline __u32 txq_index(const struct netdev_queue *txq)
{
	__u64 base = addr_of(BPF_CORE_READ(txq, dev, _tx)), t = addr_of(txq);

	if (!base || t < base)
		return QS_NO_TXQ;
	return (t - base) / bpf_core_type_size(struct netdev_queue);
}

/*
 * The qdisc's entry; made on first sight, with its identity read then. A
 * qdisc of an unwatched device (or out of scope) gets an entry too, marked
 * ignored, so its later events cost one lookup.
 */
static __always_inline struct qs_qdisc *qd_get(struct Qdisc *q)
{
	/* privileged programs may use a pointer's value as a key */
	__u64 addr = (__u64)q;
	struct qs_qdisc init = {}, *v;

	v = bpf_map_lookup_elem(&qdiscs, &addr);
	if (v)
		return v->ignored ? NULL : v;
	if (!qdisc_key(q, &init.key))
		init.ignored = 1;
	else
		init.dev_ntxq = BPF_CORE_READ(q, dev_queue, dev, real_num_tx_queues);
	init.qdisc = (__u64)q;
	init.txq_index = QS_NO_TXQ;
	init.flags = BPF_CORE_READ(q, flags);
	bpf_map_update_elem(&qdiscs, &addr, &init, BPF_NOEXIST);
	v = bpf_map_lookup_elem(&qdiscs, &addr);
	if (!v)
		qs_count(QS_CNT_QDISC_UPDATE_FAIL);
	return v && !v->ignored ? v : NULL;
}

/* the clock, read once per jiffy per qdisc: a dequeue's time to 1/HZ */
static __always_inline void note_deq(struct qs_qdisc *v)
{
	__u64 j = bpf_jiffies64();

	if (v->last_deq_jiffies != j) {
		v->last_deq_jiffies = j;
		v->last_deq_ns = bpf_ktime_get_ns();
	}
}

static __always_inline void note_txq(struct qs_qdisc *v, const struct netdev_queue *txq)
{
	if (txq && v->txq != (__u64)txq) {
		v->txq = (__u64)txq;
		v->txq_index = txq_index(txq);
	}
}

/* A run of the qdisc asked it for a packet: skb is NULL when it had none to give. */
static __always_inline void on_dequeue(struct Qdisc *q, const struct netdev_queue *txq,
				       const struct sk_buff *skb, const bool btf)
{
	struct qs_qdisc *v = qd_get(q);

	if (!v)
		return;
	note_txq(v, txq);
	if (!skb) {
		/* the empty dequeue is where a stopped queue or a shaper shows */
		v->last_was_null = 1;
		v->null_txq_state = txq ? RD(btf, txq, state) : 0;
		return;
	}
	if (v->last_was_null)
		v->last_was_null = 0;
	note_deq(v);
}

/*
 * An enqueue makes the qdisc known to the sampler (a stuck qdisc dequeues
 * nothing), and dates bypass progress: a qdisc enqueued to after its last
 * dequeue has held that packet since, so it sent nothing by its bypass
 * after it. The clock again at most once per jiffy.
 */
static __always_inline void on_enqueue(struct Qdisc *q)
{
	struct qs_qdisc *v = qd_get(q);
	__u64 j;

	if (!v)
		return;
	j = bpf_jiffies64();
	if (v->last_enq_jiffies != j) {
		v->last_enq_jiffies = j;
		v->last_enq_ns = bpf_ktime_get_ns();
	}
}

static __always_inline void on_reset(struct Qdisc *q)
{
	__u64 addr = (__u64)q;
	struct qs_qdisc *v = bpf_map_lookup_elem(&qdiscs, &addr);

	if (v)
		v->last_reset_ns = bpf_ktime_get_ns();
}

static __always_inline void on_destroy(struct Qdisc *q)
{
	__u64 addr = (__u64)q;
	struct qs_qdisc *v = bpf_map_lookup_elem(&qdiscs, &addr);
	bool counted = v && !v->ignored;

	if (!bpf_map_delete_elem(&qdiscs, &addr) && counted)
		qs_count(QS_CNT_DESTROYED);
}

static __always_inline struct qs_txq *txq_get(const struct sk_buff *skb, const struct net_device *dev)
{
	struct qs_txq_key k = {};
	struct qs_txq zero = {}, *t;

	k.netns = nm_dev_netns(dev);
	k.ifindex = BPF_CORE_READ(dev, ifindex);
	if (!dev_watched(k.netns, k.ifindex) || !netns_in_scope(k.netns))
		return NULL;
	k.queue = BPF_CORE_READ(skb, queue_mapping);
	t = bpf_map_lookup_elem(&txqs, &k);
	if (t)
		return t;
	bpf_map_update_elem(&txqs, &k, &zero, BPF_NOEXIST);
	return bpf_map_lookup_elem(&txqs, &k);
}

/*
 * net_dev_queue fires after the TX queue was picked: count the kick frames
 * where they went; btf: read through the tp_btf pointer, else probed
 * (raw_tp).
 */
static __always_inline void qs_on_queue(const struct sk_buff *skb, const bool btf)
{
	struct qs_txq *t;

	/* every packet of the host comes here: one load, and out */
	if (RD(btf, skb, mark) != QS_KICK_MARK)
		return;
	t = txq_get(skb, BPF_CORE_READ(skb, dev));
	if (t)
		__sync_fetch_and_add(&t->kicks, 1);
}

/*
 * ---- hook __qdisc_run: rung 1 where fentry/fexit load (the runs, the
 * watchdog arms and the dequeue tracepoint), else the dequeue tracepoint ----
 */

SEC("fentry/__qdisc_run")
int BPF_PROG(qs_run_fentry, struct Qdisc *q)
{
	qd_get(q);
	return 0;
}

/* The run ended: a non-empty qdisc on a stopped queue is what a stopped driver leaves. */
SEC("fexit/__qdisc_run")
int BPF_PROG(qs_run_fexit, struct Qdisc *q)
{
	struct netdev_queue *txq = BPF_CORE_READ(q, dev_queue);
	struct qs_qdisc *v = qd_get(q);
	unsigned long state;

	if (!v)
		return 0;
	note_txq(v, txq);
	/*
	 * A run that ends on a stopped queue is the driver's doing. Otherwise
	 * the dequeue tracepoint of this rung has already said whether the
	 * qdisc gave nothing (a shaper's timer) or made progress.
	 */
	state = txq ? BPF_CORE_READ(txq, state) : 0;
	if (state) {
		v->null_txq_state = state;
		v->last_was_null = 1;
	}
	return 0;
}

/*
 * A shaper arms its watchdog when it holds packets back (tbf, htb, fq, netem,
 * cake, cbs... through qdisc_watchdog_schedule_ns, an inline wrapper of this
 * one): the timer says when it will run again. With it a shaped backlog is
 * told from one that nothing will run: a timer that is due, or a timer that
 * was due long ago without a run since. Its expiry is comparable with
 * bpf_ktime_get_ns() only on CLOCK_MONOTONIC (etf: TAI).
 */
SEC("fentry/qdisc_watchdog_schedule_range_ns")
int BPF_PROG(qs_wd_arm_fentry, struct qdisc_watchdog *wd, u64 expires, u64 delta_ns)
{
	struct Qdisc *q = BPF_CORE_READ(wd, qdisc);
	struct qs_qdisc *v;

	if (!q)
		return 0;
	v = qd_get(q);
	if (!v)
		return 0;
	v->wd_armed_ns = bpf_ktime_get_ns();
	v->wd_expires_ns = BPF_CORE_READ(wd, timer.base, clockid) == 1 /* CLOCK_MONOTONIC */ ?
			   expires : 0;
	return 0;
}

SEC("tp_btf/qdisc_dequeue")
int BPF_PROG(qs_dequeue_tp, struct Qdisc *q, const struct netdev_queue *txq, int packets,
	     struct sk_buff *skb)
{
	on_dequeue(q, txq, skb, true);
	return 0;
}

SEC("raw_tp/qdisc_dequeue")
int BPF_PROG(qs_dequeue_raw, struct Qdisc *q, const struct netdev_queue *txq, int packets,
	     struct sk_buff *skb)
{
	on_dequeue(q, txq, skb, false);
	return 0;
}

/* ---- hook qdisc_enqueue (the qdisc attached to the TX queue only) ---- */

SEC("tp_btf/qdisc_enqueue")
int BPF_PROG(qs_enqueue_tp, struct Qdisc *q, const struct netdev_queue *txq, struct sk_buff *skb)
{
	on_enqueue(q);
	return 0;
}

SEC("raw_tp/qdisc_enqueue")
int BPF_PROG(qs_enqueue_raw, struct Qdisc *q, const struct netdev_queue *txq, struct sk_buff *skb)
{
	on_enqueue(q);
	return 0;
}

/* ---- hook qdisc_reset/qdisc_destroy ---- */

SEC("tp_btf/qdisc_reset")
int BPF_PROG(qs_reset_tp, struct Qdisc *q)
{
	on_reset(q);
	return 0;
}

SEC("tp_btf/qdisc_destroy")
int BPF_PROG(qs_destroy_tp, struct Qdisc *q)
{
	on_destroy(q);
	return 0;
}

SEC("raw_tp/qdisc_reset")
int BPF_PROG(qs_reset_raw, struct Qdisc *q)
{
	on_reset(q);
	return 0;
}

SEC("raw_tp/qdisc_destroy")
int BPF_PROG(qs_destroy_raw, struct Qdisc *q)
{
	on_destroy(q);
	return 0;
}


/* ---- the sampler: BPF_PROG_TEST_RUN by userspace before each report ---- */

struct sample_ctx {
	__u64 now;
	__u32 n;
};

static long sample_one(struct bpf_map *map, __u64 *key, struct qs_qdisc *v,
		       struct sample_ctx *c)
{
	struct Qdisc *q = (struct Qdisc *)v->qdisc;
	struct netdev_queue *txq = (struct netdev_queue *)v->txq;
	const struct Qdisc___state2 *q2 = (const void *)q;	/* core_fixes.bpf.h */
	__u32 running = 0;

	if (!q || v->ignored)
		return 0;
	/*
	 * Probe reads: the qdisc may be going away (its entry is deleted at
	 * qdisc_destroy, before the RCU grace period frees it).
	 */
	v->s_state = BPF_CORE_READ(q, state);
	if (bpf_core_field_exists(q2->state2))
		running = BPF_CORE_READ(q2, state2) & 1;	/* __QDISC_STATE2_RUNNING */
	/* a lockless qdisc runs under q->seqlock (qdisc_run_begin's trylock) */
	if ((v->flags & QS_TCQ_F_NOLOCK) && BPF_CORE_READ(q, seqlock.rlock.raw_lock.val.counter))
		running = 1;
	v->s_running = running;
	if (!txq)
		txq = BPF_CORE_READ(q, dev_queue);
	v->s_txq_state = txq ? BPF_CORE_READ(txq, state) : 0;
	v->s_qlen = BPF_CORE_READ(q, q.qlen);
	v->sample_ns = c->now;
	c->n++;
	return 0;
}

SEC("raw_tp")
int qs_sample(void *ctx)
{
	struct sample_ctx c = { .now = bpf_ktime_get_ns() };
	__u32 idx = QS_CNT_SAMPLED;
	__u64 *n;

	bpf_for_each_map_elem(&qdiscs, sample_one, &c, 0);
	n = bpf_map_lookup_elem(&qs_counters, &idx);
	if (n)
		*n = c.n;
	return 0;
}

/*
 * The sampler for kernels before 5.13, which have no
 * bpf_for_each_map_elem: the same sample of one qdisc, whose key userspace
 * passes as the test-run's first argument (test-run of raw_tp: 5.10), one
 * run per tracked qdisc. Returns 1 when it sampled one.
 */
SEC("raw_tp")
int qs_sample_key(__u64 *ctx)
{
	struct sample_ctx c = { .now = bpf_ktime_get_ns() };
	__u64 key = ctx[0];
	struct qs_qdisc *v = bpf_map_lookup_elem(&qdiscs, &key);

	if (v)
		sample_one((struct bpf_map *)&qdiscs, &key, v, &c);
	return c.n;
}

/* ---- the seed: BPF_PROG_TEST_RUN by userspace once, after the attach ---- */

/*
 * Why: a qdisc gets its entry at its first event, so one whose backlog
 * froze before the start (a queue the driver stopped, nothing enqueued
 * since) has none, and the sampler cannot read its TX queue's state: it
 * would be judged as if its queue could send. The seed walks every
 * netns's devices and each one's TX queues once, and makes the entry of
 * the qdisc each queue runs as its first event would (qd_get: the same
 * key and scope, nothing dated), so the first sweep samples it.
 *
 * The walk starts at the caller's netns and follows net->list round to
 * it; the list's head (net_namespace_list) is no netns and is passed over
 * by the check that its "dev_base_head" is a list. Probe reads only, each
 * loop bounded (bpf_loop), under the RCU read lock that test-run holds.
 */
#define QS_SEED_NETS	65536
#define QS_SEED_DEVS	65536
#define QS_SEED_TXQS	4096

struct seed_ctx {
	struct list_head *start;	/* the netns list: where the walk began */
	struct list_head *pos;		/* its node reached */
	struct list_head *dev_head;	/* the netns's device list */
	struct list_head *dev_pos;
	__u64 txq_base;			/* the device's array of TX queues */
	__u32 ntxq;
	__u32 seeded;
};

static long seed_txq(__u32 i, struct seed_ctx *c)
{
	struct netdev_queue *txq;
	struct qs_qdisc *v;

	if (i >= c->ntxq)
		return 1;
	txq = (struct netdev_queue *)(c->txq_base + (__u64)i * bpf_core_type_size(struct netdev_queue));
	v = qd_get(BPF_CORE_READ(txq, qdisc_sleeping));
	/* a queue the qdisc ran on before wins: the seed only fills a gap */
	if (v && !v->txq) {
		note_txq(v, txq);
		c->seeded++;
	}
	return 0;
}

/* (the context's own fields are read into locals first: CO-RE relocates only kernel types) */
static long seed_dev(__u32 i, struct seed_ctx *c)
{
	struct list_head *pos = c->dev_pos, *next = BPF_CORE_READ(pos, next);
	struct net_device *dev;

	if (!next || next == c->dev_head)
		return 1;
	c->dev_pos = next;
	dev = (void *)next - bpf_core_field_offset(struct net_device, dev_list);
	c->txq_base = addr_of(BPF_CORE_READ(dev, _tx));
	c->ntxq = BPF_CORE_READ(dev, real_num_tx_queues);
	if (c->txq_base && c->ntxq)
		bpf_loop(QS_SEED_TXQS, seed_txq, c, 0);
	return 0;
}

/* A netns's devices: none when node is the list's head, which is no netns. */
static __always_inline void seed_net(struct list_head *node, struct seed_ctx *c)
{
	struct net *net = (void *)node - bpf_core_field_offset(struct net, list);
	struct list_head *head = &net->dev_base_head;
	struct list_head *first = BPF_CORE_READ(net, dev_base_head.next);

	if (!first || BPF_CORE_READ(first, prev) != head)
		return;
	c->dev_head = head;
	c->dev_pos = head;
	bpf_loop(QS_SEED_DEVS, seed_dev, c, 0);
}

static long seed_netns(__u32 i, struct seed_ctx *c)
{
	struct list_head *pos = c->pos, *next = BPF_CORE_READ(pos, next);

	if (!next || next == c->start)
		return 1;
	c->pos = next;
	seed_net(next, c);
	return 0;
}

SEC("raw_tp")
int qs_seed(void *ctx)
{
	struct task_struct *task = (struct task_struct *)bpf_get_current_task();
	struct net *net = BPF_CORE_READ(task, nsproxy, net_ns);
	struct seed_ctx c = {};
	__u32 idx = QS_CNT_SEEDED;
	__u64 *n;

	if (!net)
		return 0;
	c.start = &net->list;
	c.pos = c.start;
	seed_net(c.start, &c);
	bpf_loop(QS_SEED_NETS, seed_netns, &c, 0);
	n = bpf_map_lookup_elem(&qs_counters, &idx);
	if (n)
		*n = c.seeded;
	return 0;
}

/* ---- hook kick_queue: net_dev_queue, for the kick frames ---- */

SEC("tp_btf/net_dev_queue")
int BPF_PROG(qs_queue_tp, struct sk_buff *skb)
{
	qs_on_queue(skb, true);
	return 0;
}

SEC("raw_tp/net_dev_queue")
int BPF_PROG(qs_queue_raw, struct sk_buff *skb)
{
	qs_on_queue(skb, false);
	return 0;
}

char LICENSE[] SEC("license") = "GPL";
