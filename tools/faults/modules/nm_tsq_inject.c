// SPDX-License-Identifier: GPL-2.0
/*
 * nm_tsq_inject: leaves a TCP socket in the state of the tcp_push() race
 * ("tcp: Add memory barrier to tcp_push()", 7267e8dcad6b) on a kernel that
 * has the barrier: TSQ_THROTTLED set, TSQ_QUEUED clear, nothing below TCP,
 * unsent data waiting for the next ACK. For the vmtest guest only.
 *
 * How: a kprobe on tcp_push() sees it autocork: tcp_should_autocork() holds
 * at its entry, so it is the call that sets TSQ_THROTTLED without the
 * barrier (tcp_small_queue_check() has had one all along, and its throttles
 * are left alone). A kprobe on tcp_wfree() sees the last skb of that
 * socket come back from the device, with nothing written since the cork.
 * It hides TSQ_THROTTLED, so that
 * tcp_wfree() queues no TSQ handler and goes to sk_free(); a kprobe there
 * sets the flag again before the last reference goes. That is the state
 * the race leaves: tcp_push() set the flag, tcp_wfree() did not see it.
 * A kprobe on tcp_event_new_data_sent() dates the end of each injected
 * stall: the socket's next transmit of new data.
 *
 * A kprobe on tcp_v4_destroy_sock() forgets a closing socket.
 *
 * Plain kprobes only: a kretprobe on tcp_wfree beside BPF's fexit on it
 * once panicked a guest.
 *
 * Parameters (also under /sys/module/nm_tsq_inject/parameters/):
 *   port=N     sockets whose local port is N (the server's); required
 *   every=N    inject at every Nth chance (1: every one)
 *   enable=0|1 on or off; the log and counters survive
 *   phase=N    a tag copied into each record (the runs of one boot)
 * /proc/nm_tsq_inject: a counters line, then one line per injection:
 *   phase start_ns end_ns lport rport wmem_alloc packets_out unsent
 * (CLOCK_MONOTONIC, ktime_get_ns(); end_ns 0: not ended yet, or the socket
 * went away first).
 */
#include <linux/kprobes.h>
#include <linux/module.h>
#include <linux/percpu.h>
#include <linux/proc_fs.h>
#include <linux/seq_file.h>
#include <linux/spinlock.h>
#include <net/sock.h>
#include <net/tcp.h>

static ushort port;
module_param(port, ushort, 0644);
MODULE_PARM_DESC(port, "local port of the sockets to stall (required)");
static uint every = 1;
module_param(every, uint, 0644);
MODULE_PARM_DESC(every, "inject at every Nth chance");
static bool enable = true;
module_param(enable, bool, 0644);
MODULE_PARM_DESC(enable, "inject (1) or not (0)");
static uint phase;
module_param(phase, uint, 0644);
MODULE_PARM_DESC(phase, "a tag copied into each record");

#define NM_LOG	8192	/* records kept; later injections are counted, not logged */
#define NM_OPEN	64	/* stalls waiting for their end at once */

struct nm_rec {
	u64 start_ns, end_ns;
	u32 phase, wmem, packets_out, unsent;
	u16 lport, rport;
};

static struct nm_rec recs[NM_LOG];
static unsigned int nrecs;
/* open stalls: the socket and its record */
static struct { struct sock *sk; unsigned int rec; } open_[NM_OPEN];
static atomic_t nopen = ATOMIC_INIT(0);
static DEFINE_SPINLOCK(lock);
static atomic64_t chances, injected, ended, unlogged;
/* the socket whose flag tcp_wfree() hid on this CPU, until its sk_free() */
static DEFINE_PER_CPU(struct sock *, hidden);
/* sockets that tcp_push() autocorked, and their write_seq then */
#define NM_CORKED	256
static struct { struct sock *sk; u32 write_seq; } corked[NM_CORKED];
static DEFINE_SPINLOCK(cork_lock);

static bool watched(const struct sock *sk)
{
	return port && sk->sk_num == port && sk->sk_protocol == IPPROTO_TCP;
}

/* tcp_should_autocork() of 6.1, at tcp_push()'s entry: it will cork */
static bool will_autocork(struct sock *sk, int size_goal)
{
	struct sk_buff *skb = tcp_write_queue_tail(sk);

	return skb && skb->len < size_goal && READ_ONCE(sock_net(sk)->ipv4.sysctl_tcp_autocorking) &&
	       !tcp_rtx_queue_empty(sk) && refcount_read(&sk->sk_wmem_alloc) > skb->truesize &&
	       tcp_skb_can_collapse_to(skb);
}

/* tcp_push(sk, flags, mss_now, nonagle, size_goal) */
static int push_pre(struct kprobe *p, struct pt_regs *regs)
{
	struct sock *sk = (struct sock *)regs_get_kernel_argument(regs, 0);
	unsigned long flags;
	int i, slot = -1;

	if (!READ_ONCE(enable) || !watched(sk) || !will_autocork(sk, (int)regs_get_kernel_argument(regs, 4)))
		return 0;
	spin_lock_irqsave(&cork_lock, flags);
	for (i = 0; i < NM_CORKED; i++) {
		if (corked[i].sk == sk || (!corked[i].sk && slot < 0))
			slot = i;
		if (corked[i].sk == sk)
			break;
	}
	if (slot >= 0) {
		corked[slot].sk = sk;
		corked[slot].write_seq = tcp_sk(sk)->write_seq;
	}
	spin_unlock_irqrestore(&cork_lock, flags);
	return 0;
}

/* sk was autocorked with nothing written since; the entry goes either way */
static bool take_corked(struct sock *sk)
{
	unsigned long flags;
	bool ret = false;
	int i;

	spin_lock_irqsave(&cork_lock, flags);
	for (i = 0; i < NM_CORKED; i++) {
		if (corked[i].sk != sk)
			continue;
		ret = corked[i].write_seq == tcp_sk(sk)->write_seq;
		corked[i].sk = NULL;
		break;
	}
	spin_unlock_irqrestore(&cork_lock, flags);
	return ret;
}

static int wfree_pre(struct kprobe *p, struct pt_regs *regs)
{
	struct sk_buff *skb = (struct sk_buff *)regs_get_kernel_argument(regs, 0);
	struct sock *sk = skb->sk;
	struct tcp_sock *tp;

	this_cpu_write(hidden, NULL);
	if (!READ_ONCE(enable) || !sk || !watched(sk))
		return 0;
	tp = tcp_sk(sk);
	/* throttled, no handler queued, data waiting, and this is the last skb below TCP */
	if (!test_bit(TSQ_THROTTLED, &sk->sk_tsq_flags) || test_bit(TSQ_QUEUED, &sk->sk_tsq_flags) ||
	    READ_ONCE(tp->write_seq) == READ_ONCE(tp->snd_nxt) ||
	    refcount_read(&sk->sk_wmem_alloc) != skb->truesize + 1 || !take_corked(sk))
		return 0;
	if (atomic64_inc_return(&chances) % max(READ_ONCE(every), 1U))
		return 0;
	clear_bit(TSQ_THROTTLED, &sk->sk_tsq_flags);
	this_cpu_write(hidden, sk);
	return 0;
}

static void log_start(struct sock *sk)
{
	struct tcp_sock *tp = tcp_sk(sk);
	struct nm_rec *r;
	unsigned long flags;
	int i;

	spin_lock_irqsave(&lock, flags);
	if (nrecs >= NM_LOG) {
		atomic64_inc(&unlogged);
		goto out;
	}
	r = &recs[nrecs];
	*r = (struct nm_rec){
		.start_ns = ktime_get_ns(),
		.phase = READ_ONCE(phase),
		/* before sk_free() drops the reference tcp_wfree() kept */
		.wmem = refcount_read(&sk->sk_wmem_alloc),
		.packets_out = tp->packets_out,
		.unsent = tp->write_seq - tp->snd_nxt,
		.lport = sk->sk_num,
		.rport = ntohs(sk->sk_dport),
	};
	for (i = 0; i < NM_OPEN; i++) {
		if (open_[i].sk == sk) {
			/* an earlier stall of this socket never saw its end */
			open_[i].rec = nrecs;
			break;
		}
		if (!open_[i].sk) {
			open_[i].sk = sk;
			open_[i].rec = nrecs;
			atomic_inc(&nopen);
			break;
		}
	}
	nrecs++;
out:
	spin_unlock_irqrestore(&lock, flags);
}

/* tcp_wfree()'s tail call: put the flag back, as tcp_push() would have set it */
static int skfree_pre(struct kprobe *p, struct pt_regs *regs)
{
	struct sock *sk = (struct sock *)regs_get_kernel_argument(regs, 0);

	if (likely(this_cpu_read(hidden) != sk))
		return 0;
	this_cpu_write(hidden, NULL);
	/* the last data skb's reference and the socket's own: 2 */
	if (refcount_read(&sk->sk_wmem_alloc) != 2)
		return 0;
	set_bit(TSQ_THROTTLED, &sk->sk_tsq_flags);
	atomic64_inc(&injected);
	log_start(sk);
	return 0;
}

static void close_open(struct sock *sk, bool sent)
{
	unsigned long flags;
	int i;

	spin_lock_irqsave(&lock, flags);
	for (i = 0; i < NM_OPEN; i++) {
		if (open_[i].sk != sk)
			continue;
		if (sent) {
			recs[open_[i].rec].end_ns = ktime_get_ns();
			atomic64_inc(&ended);
		}
		open_[i].sk = NULL;
		atomic_dec(&nopen);
		break;
	}
	spin_unlock_irqrestore(&lock, flags);
}

/* the socket sends new data: its stall, if injected, ended */
static int sent_pre(struct kprobe *p, struct pt_regs *regs)
{
	struct sock *sk = (struct sock *)regs_get_kernel_argument(regs, 0);

	if (likely(!atomic_read(&nopen)) || !watched(sk))
		return 0;
	close_open(sk, true);
	return 0;
}

/* a socket being destroyed ends its stall unmeasured (end_ns stays 0) */
static int destroy_pre(struct kprobe *p, struct pt_regs *regs)
{
	struct sock *sk = (struct sock *)regs_get_kernel_argument(regs, 0);

	if (!watched(sk))
		return 0;
	take_corked(sk);
	if (atomic_read(&nopen))
		close_open(sk, false);
	return 0;
}

static struct kprobe kps[] = {
	{ .symbol_name = "tcp_push", .pre_handler = push_pre },
	{ .symbol_name = "tcp_wfree", .pre_handler = wfree_pre },
	{ .symbol_name = "sk_free", .pre_handler = skfree_pre },
	{ .symbol_name = "tcp_event_new_data_sent", .pre_handler = sent_pre },
	{ .symbol_name = "tcp_v4_destroy_sock", .pre_handler = destroy_pre },
};

static int show(struct seq_file *m, void *v)
{
	unsigned long flags;
	unsigned int i, n;

	seq_printf(m, "# port %u every %u enable %d phase %u chances %lld injected %lld ended %lld unlogged %lld\n",
		   port, every, enable, phase, atomic64_read(&chances), atomic64_read(&injected),
		   atomic64_read(&ended), atomic64_read(&unlogged));
	spin_lock_irqsave(&lock, flags);
	n = nrecs;
	spin_unlock_irqrestore(&lock, flags);
	for (i = 0; i < n; i++) {
		struct nm_rec *r = &recs[i];

		seq_printf(m, "%u %llu %llu %u %u %u %u %u\n", r->phase, r->start_ns, READ_ONCE(r->end_ns),
			   r->lport, r->rport, r->wmem, r->packets_out, r->unsent);
	}
	return 0;
}

static struct proc_dir_entry *proc;

static int __init nm_init(void)
{
	struct kprobe *kpp[ARRAY_SIZE(kps)];
	int i, err;

	if (!port) {
		pr_err("nm_tsq_inject: port=N is required\n");
		return -EINVAL;
	}
	for (i = 0; i < ARRAY_SIZE(kps); i++)
		kpp[i] = &kps[i];
	err = register_kprobes(kpp, ARRAY_SIZE(kps));
	if (err) {
		pr_err("nm_tsq_inject: register_kprobes: %d\n", err);
		return err;
	}
	proc = proc_create_single("nm_tsq_inject", 0444, NULL, show);
	if (!proc) {
		unregister_kprobes(kpp, ARRAY_SIZE(kps));
		return -ENOMEM;
	}
	pr_info("nm_tsq_inject: port %u, every %u\n", port, every);
	return 0;
}

static void __exit nm_exit(void)
{
	struct kprobe *kpp[ARRAY_SIZE(kps)];
	int i;

	for (i = 0; i < ARRAY_SIZE(kps); i++)
		kpp[i] = &kps[i];
	proc_remove(proc);
	unregister_kprobes(kpp, ARRAY_SIZE(kps));
}

module_init(nm_init);
module_exit(nm_exit);
MODULE_LICENSE("GPL");
MODULE_DESCRIPTION("netmedic fault injection: the tcp_push() TSQ race state (test guests only)");
