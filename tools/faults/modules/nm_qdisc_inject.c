// SPDX-License-Identifier: GPL-2.0
/*
 * nm_qdisc_inject: leaves a lockless qdisc (pfifo_fast) in the state of the
 * race of "net: sched: fix packet stuck problem for lockless qdisc" on a
 * kernel that has the fix: packets queued, the TX queue running, the qdisc
 * neither scheduled (__QDISC_STATE_SCHED) nor running, and nothing in the
 * kernel that will run it before the next enqueue. For the vmtest guest
 * only.
 *
 * How: a kprobe on __netif_schedule() (6.1: what netif_tx_wake_queue()
 * calls when TX completion wakes a stopped queue, and what qdisc_run_end()
 * calls for a lockless qdisc left MISSED) skips the call for a qdisc of the
 * chosen device when the skip leaves that state behind: a backlog, the TX
 * queue not stopped, SCHED clear. The race lost exactly that reschedule.
 * A kprobe on __qdisc_run() dates the end of each injected stall: the
 * qdisc's next run (an enqueue, such as qdiscstuck's --fix=kick frame).
 *
 * Skipping a function from a kprobe: on x86 the pre_handler points regs->ip
 * at a bare return and returns 1, as override_function_with_return() does
 * (arch/x86/lib/error-inject.c, not exported). The probe sits on the first
 * instruction (the fentry site when kprobes go through ftrace), before the
 * function pushed anything: that return pops the caller's return address.
 * Popping it from regs->sp instead would not work through ftrace, whose
 * trampoline restores regs->ip into its return slot but not regs->sp.
 *
 * Plain kprobes only: a kretprobe beside BPF's fexit once panicked a guest.
 *
 * Parameters (also under /sys/module/nm_qdisc_inject/parameters/):
 *   dev=NAME    the device whose qdiscs to leave stuck; required
 *   txq=N       only the qdisc of that TX queue (a child of mq: its
 *               siblings run as ever); -1, the default: every queue
 *   enable=0|1  on or off; the log and counters survive
 *   budget=N    skips left (each injection takes one; 0: none; -1: no limit)
 *   phase=N     a tag copied into each record (the runs of one boot)
 * /proc/nm_qdisc_inject: a counters line, then one line per injection:
 *   phase start_ns end_ns handle parent txq qlen backlog end_qlen caller
 * (CLOCK_MONOTONIC, ktime_get_ns(), the clock of bpf_ktime_get_ns(); end_ns
 * 0: not run again yet; handle and parent in hex, as the kernel keeps them).
 */
#include <linux/kprobes.h>
#include <linux/module.h>
#include <linux/netdevice.h>
#include <linux/proc_fs.h>
#include <linux/seq_file.h>
#include <linux/spinlock.h>
#include <linux/uaccess.h>
#include <net/sch_generic.h>

static char dev[IFNAMSIZ];
module_param_string(dev, dev, sizeof(dev), 0644);
MODULE_PARM_DESC(dev, "device whose qdiscs to leave stuck (required)");
static int want_txq = -1;
module_param_named(txq, want_txq, int, 0644);
MODULE_PARM_DESC(txq, "only the qdisc of this TX queue (-1: every queue)");
static bool enable;
module_param(enable, bool, 0644);
MODULE_PARM_DESC(enable, "inject (1) or not (0)");
static int budget = -1;
module_param(budget, int, 0644);
MODULE_PARM_DESC(budget, "skips left (-1: no limit)");
static uint phase;
module_param(phase, uint, 0644);
MODULE_PARM_DESC(phase, "a tag copied into each record");

#define NM_LOG	4096	/* records kept; later injections are counted, not logged */

struct nm_rec {
	u64 start_ns, end_ns;
	unsigned long qdisc;	/* identity only, never dereferenced after the skip */
	unsigned long caller;
	u32 phase, handle, parent, txq, qlen, backlog, end_qlen;
};

static struct nm_rec recs[NM_LOG];
static unsigned int nrecs;
static DEFINE_SPINLOCK(lock);
static atomic64_t calls, chances, injected, ended, unlogged;

/* Where a skipped __netif_schedule() goes: straight back to its caller. */
static noinline void nm_skip(void)
{
	barrier();
}

/*
 * A qdisc of the chosen device and queue. dev_queue is the TX queue the
 * qdisc is attached to: for a child of mq its own queue, which is what
 * tells one child from its siblings.
 */
static bool watched(const struct Qdisc *q)
{
	int want = READ_ONCE(want_txq);

	if (!dev[0] || !q || !q->dev_queue || strncmp(qdisc_dev(q)->name, dev, IFNAMSIZ))
		return false;
	return want < 0 || q->dev_queue - qdisc_dev(q)->_tx == want;
}

static u32 backlog_sum(const struct Qdisc *q)
{
	u32 b = q->qstats.backlog;
	int cpu;

	if (qdisc_is_percpu_stats(q))
		for_each_possible_cpu(cpu)
			b += per_cpu_ptr(q->cpu_qstats, cpu)->backlog;
	return b;
}

/* Takes one from the budget; false when none is left. */
static bool take_budget(void)
{
	int b = READ_ONCE(budget);

	while (b) {
		int old = cmpxchg(&budget, b, b < 0 ? b : b - 1);

		if (old == b)
			return true;
		b = old;
	}
	return false;
}

static void log_skip(struct Qdisc *q, struct pt_regs *regs, int qlen)
{
	struct netdev_queue *txq = q->dev_queue;
	struct nm_rec *r;
	unsigned long flags;

	spin_lock_irqsave(&lock, flags);
	if (nrecs >= NM_LOG) {
		spin_unlock_irqrestore(&lock, flags);
		atomic64_inc(&unlogged);
		return;
	}
	r = &recs[nrecs++];
	memset(r, 0, sizeof(*r));
	r->start_ns = ktime_get_ns();
	r->qdisc = (unsigned long)q;
	/* the return address: nothing is pushed yet at the probe */
	if (get_kernel_nofault(r->caller, (unsigned long *)regs->sp))
		r->caller = 0;
	r->phase = READ_ONCE(phase);
	r->handle = q->handle;
	r->parent = q->parent;
	r->txq = txq - qdisc_dev(q)->_tx;
	r->qlen = qlen;
	r->backlog = backlog_sum(q);
	spin_unlock_irqrestore(&lock, flags);
}

/*
 * The qdisc would be left stuck by a lost reschedule: a backlog, SCHED
 * clear (else the call is a no-op), its TX queue not stopped once the
 * call is done (txq_state: a stopped queue is woken, and the qdisc
 * rescheduled, by the next TX completion). Takes one from the budget when
 * it would; returns the backlog in packets, or 0.
 */
static int chance(struct Qdisc *q, unsigned long txq_state)
{
	int qlen;

	if (test_bit(__QDISC_STATE_SCHED, &q->state) || (txq_state & QUEUE_STATE_ANY_XOFF_OR_FROZEN))
		return 0;
	qlen = qdisc_qlen_sum(q);
	if (qlen <= 0)
		return 0;
	atomic64_inc(&chances);
	if (!take_budget())
		return 0;
	atomic64_inc(&injected);
	return qlen;
}

/*
 * TX completion: virtio_net's TX NAPI poll (netif_wake_subqueue) calls
 * this when its ring has room again. On 6.1 its __netif_schedule() is
 * inlined here (dev.c), so the probe on __netif_schedule never sees the
 * wake: this one does what the function does, without the reschedule.
 */
static int wake_pre(struct kprobe *p, struct pt_regs *regs)
{
	struct netdev_queue *txq = (struct netdev_queue *)regs->di;
	unsigned long st;
	struct Qdisc *q;
	int qlen;

	atomic64_inc(&calls);
	if (!READ_ONCE(enable) || !txq)
		return 0;
	st = READ_ONCE(txq->state);
	if (!(st & (1UL << __QUEUE_STATE_DRV_XOFF)))
		return 0;
	q = rcu_dereference_raw(txq->qdisc);
	if (!watched(q))
		return 0;
	qlen = chance(q, st & ~(1UL << __QUEUE_STATE_DRV_XOFF));
	/* lost to another waker: that one reschedules, nothing was injected */
	if (!qlen || !test_and_clear_bit(__QUEUE_STATE_DRV_XOFF, &txq->state))
		return 0;
	log_skip(q, regs, qlen);
	regs->ip = (unsigned long)nm_skip;
	return 1;
}

/* The reschedule of a lockless qdisc left MISSED (qdisc_run_end()). */
static int sched_pre(struct kprobe *p, struct pt_regs *regs)
{
	struct Qdisc *q = (struct Qdisc *)regs->di;
	int qlen;

	atomic64_inc(&calls);
	if (!READ_ONCE(enable) || !watched(q))
		return 0;
	qlen = chance(q, READ_ONCE(q->dev_queue->state));
	if (!qlen)
		return 0;
	log_skip(q, regs, qlen);
	regs->ip = (unsigned long)nm_skip;
	return 1;
}

/* The qdisc runs again: the stall of its open record ends. */
static int run_pre(struct kprobe *p, struct pt_regs *regs)
{
	struct Qdisc *q = (struct Qdisc *)regs->di;
	unsigned long flags;
	int i;

	if (!READ_ONCE(nrecs) || !watched(q))
		return 0;
	spin_lock_irqsave(&lock, flags);
	for (i = nrecs - 1; i >= 0 && i >= (int)nrecs - 8; i--) {
		struct nm_rec *r = &recs[i];

		if (r->qdisc != (unsigned long)q || r->end_ns)
			continue;
		r->end_ns = ktime_get_ns();
		r->end_qlen = qdisc_qlen_sum(q);
		atomic64_inc(&ended);
		break;
	}
	spin_unlock_irqrestore(&lock, flags);
	return 0;
}

static struct kprobe sched_kp = {
	.symbol_name = "__netif_schedule",
	.pre_handler = sched_pre,
};

static struct kprobe wake_kp = {
	.symbol_name = "netif_tx_wake_queue",
	.pre_handler = wake_pre,
};

static struct kprobe run_kp = {
	.symbol_name = "__qdisc_run",
	.pre_handler = run_pre,
};

static int log_show(struct seq_file *m, void *v)
{
	unsigned int i, n;

	seq_printf(m, "calls %lld chances %lld injected %lld ended %lld unlogged %lld budget %d enable %d dev %s txq %d\n",
		   atomic64_read(&calls), atomic64_read(&chances), atomic64_read(&injected),
		   atomic64_read(&ended), atomic64_read(&unlogged), READ_ONCE(budget),
		   READ_ONCE(enable), dev, READ_ONCE(want_txq));
	spin_lock_irq(&lock);
	n = nrecs;
	spin_unlock_irq(&lock);
	/* records below n are complete; end_ns and end_qlen may still be written */
	for (i = 0; i < n; i++) {
		struct nm_rec r;

		spin_lock_irq(&lock);
		r = recs[i];
		spin_unlock_irq(&lock);
		seq_printf(m, "%u %llu %llu %x %x %u %u %u %u %pS\n", r.phase, r.start_ns,
			   r.end_ns, r.handle, r.parent, r.txq, r.qlen, r.backlog, r.end_qlen,
			   (void *)r.caller);
	}
	return 0;
}

static int __init nm_init(void)
{
	int err;

	if (!proc_create_single("nm_qdisc_inject", 0444, NULL, log_show))
		return -ENOMEM;
	err = register_kprobe(&run_kp);
	if (err)
		goto out_proc;
	err = register_kprobe(&sched_kp);
	if (err)
		goto out_run;
	err = register_kprobe(&wake_kp);
	if (err)
		goto out_sched;
	pr_info("nm_qdisc_inject: on netif_tx_wake_queue and __netif_schedule for dev '%s' txq %d (enable=%d budget=%d)\n",
		dev, want_txq, enable, budget);
	return 0;
out_sched:
	unregister_kprobe(&sched_kp);
out_run:
	unregister_kprobe(&run_kp);
out_proc:
	remove_proc_entry("nm_qdisc_inject", NULL);
	return err;
}

static void __exit nm_exit(void)
{
	unregister_kprobe(&wake_kp);
	unregister_kprobe(&sched_kp);
	unregister_kprobe(&run_kp);
	remove_proc_entry("nm_qdisc_inject", NULL);
}

module_init(nm_init);
module_exit(nm_exit);
MODULE_LICENSE("GPL");
MODULE_DESCRIPTION("netmedic fault injection: a lockless qdisc left unscheduled (vmtest only)");
