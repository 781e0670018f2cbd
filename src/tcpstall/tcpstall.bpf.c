// SPDX-License-Identifier: GPL-2.0
/*
 * tcpstall: TCP sockets that hold unsent data and send nothing, told apart
 * by cause, and ACK storms (pure ACKs per data segment, ACKs sent while the
 * user thread processes the socket backlog in __release_sock).
 *
 * The stall side is a sweep: iter/tcp emits a compact sample for every
 * socket with unsent data or packets out, and userspace classifies it. The
 * ACK side counts per socket at tracepoints, no events: in a slot of a
 * direct-mapped array (the verifier inlines its lookup: no hash map, no
 * helper call per segment), found from the socket's own ehash; the flow's
 * tuple is read once, when the slot is claimed.
 */
#include "vmlinux.h"
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_tracing.h>
#include <bpf/bpf_core_read.h>
#include "common.bpf.h"
#include "flow.bpf.h"
#include "core_fixes.bpf.h"
#include "tcpstall/tcpstall.h"

#define TCP_ESTABLISHED	1
#define TCP_FIN_WAIT1	4
#define TCP_CLOSE	7
#define TCP_CLOSE_WAIT	8
#define TCP_LAST_ACK	9
#define TCP_CLOSING	11
#define RTAX_QUICKACK	15	/* uapi: include/uapi/linux/rtnetlink.h */
#define DST_METRICS_FLAGS	0x3UL

/* CONFIG_HZ, from userspace (src/lib/kconfig.c): jiffies to ms */
const volatile __u32 targ_hz = 250;

const volatile __u16 targ_port = 0;	/* --port: local or remote port, 0 = all */
/*
 * The netns tcpstall runs in: --fix=kick acts there only, so only its
 * episodes arm a kick timer. What is watched is the scope's
 * (netns_in_scope, common.bpf.h): every netns, or the --netns ones.
 */
const volatile __u32 targ_netns_ino = 0;
/* report interval, bumped by userspace: CPU masks restart with each one */
__u32 ts_epoch = 0;

/* --max-flows - 1: the table size is a power of two */
const volatile __u32 ts_flow_mask = 65535;

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(map_flags, BPF_F_MMAPABLE);	/* userspace reads it in place */
	__uint(max_entries, 65536);		/* --max-flows, resized before load */
	__type(key, __u32);
	__type(value, struct ts_acks);
} acks SEC(".maps");

/* tuple -> slot in acks, for the one hook that sees a packet, not a socket (drops) */
struct {
	__uint(type, BPF_MAP_TYPE_LRU_HASH);
	__uint(max_entries, 65536);	/* --max-flows */
	__type(key, struct ts_key);
	__type(value, __u32);
} ack_index SEC(".maps");

NM_COUNTERS(ts, TS_CNT_MAX)
/* ts_claims: an acks slot is filled by one CPU at a time (acks_claim) */
NM_CLAIMS(ts)

/*
 * __release_sock rungs 1 and 2 (fentry/fexit, kprobe/kretprobe): the
 * sockets whose backlog is being run now, and since when. Keyed by socket,
 * not by CPU: softirqs run nested in a backlog run (its spin_unlock_bh, its
 * transmits) and deliver to other sockets on that CPU, which a per-CPU flag
 * took for owned (in the 6.1 guest the sender's backlog runs made the
 * receiver's softirq CPU look like its reader's). LRU: a kretprobe the
 * kernel missed (maxactive) leaves an entry behind, which must not fill it.
 */
struct {
	__uint(type, BPF_MAP_TYPE_LRU_HASH);
	__uint(max_entries, 1024);
	__type(key, __u64);	/* struct sock * */
	__type(value, __u64);	/* bpf_ktime_get_ns() at entry */
} in_release SEC(".maps");

static __always_inline bool flow_match(const struct ts_key *k)
{
	if (!netns_in_scope(k->netns))
		return false;
	return !targ_port || k->lport == targ_port || k->rport == targ_port;
}

/*
 * Sockets the fast sweep walks: those that sent (sock_send_length) or that
 * the full sweep found with something to send. Socket-local storage dies
 * with its socket; a socket with nothing to send for TS_UNTAG_SWEEPS fast
 * sweeps is untagged.
 */
struct {
	__uint(type, BPF_MAP_TYPE_SK_STORAGE);
	__uint(map_flags, BPF_F_NO_PREALLOC);
	__type(key, int);
	__type(value, struct ts_tag);
} tagged SEC(".maps");

/*
 * netns inode -> the tag epoch in which one of its sockets was last
 * tagged or stayed tagged: where the fast sweep walks each netns
 * (iter/tcp), it walks only those with a recent mark. Written once per
 * socket per epoch, not per packet.
 */
struct {
	__uint(type, BPF_MAP_TYPE_LRU_HASH);
	__uint(max_entries, TS_NS_TAGGED_MAX);
	__type(key, __u64);
	__type(value, __u32);
} ns_tagged SEC(".maps");

/* userspace's, moved every TS_TAG_EPOCH_SWEEPS fast sweeps (from 1) */
__u32 tag_epoch = 0;

/* set by userspace once the fast sweep's iterator is attached: tag sockets */
__u32 tagging = 0;

/*
 * Socket storage from tracing programs (bpf_sk_storage_get in tp_btf,
 * fexit and iterators: 5.11). Where the kernel lacks it (5.10) userspace
 * clears this before the load (nm_probe_tracing_helper): the verifier
 * reads a frozen rodata constant as a constant and never visits a call
 * it rules out, so the full sweep and the tracepoint programs that tag
 * load there, and tag nothing. The fast sweep's programs are not gated:
 * storage is all they work on, and their rungs need the helper
 * (tcpstall/hooks.c), so the hook says it is lost. (A helper can hide
 * behind such a flag, an instruction cannot: common.bpf.h.)
 */
const volatile bool ts_sk_storage = true;
/*
 * Set by userspace where neither sock_send_length (6.3) nor fexit/tcp_push
 * tags a sending socket: its data skbs at net_dev_queue do. Without a tag,
 * only a full sweep (1 s apart) that catches the socket with data to send
 * has the fast sweep follow it, and a sender often idle between its writes
 * can go unsampled.
 */
__u32 tag_on_queue = 0;

/* The socket's netns marked in this epoch, once. */
static __always_inline void tag_mark(struct sock *sk, struct ts_tag *t)
{
	__u32 e = tag_epoch;
	__u64 ino;

	if (t->epoch == e)
		return;
	t->epoch = e;
	ino = BPF_CORE_READ(sk, __sk_common.skc_net.net, ns.inum);
	bpf_map_update_elem(&ns_tagged, &ino, &e, BPF_ANY);
}

static __always_inline void tag(struct sock *sk)
{
	struct ts_tag *t;

	if (!ts_sk_storage)
		return;
	/* the constant's test stays a branch of its own, not merged with the next */
	barrier();
	if (!tagging)
		return;
	t = bpf_sk_storage_get(&tagged, sk, 0, BPF_SK_STORAGE_GET_F_CREATE);
	if (!t)
		return;
	if (t->idle)
		t->idle = 0;
	tag_mark(sk, t);
}

/*
 * The socket's netns and ports, and whether the filters (--netns, --port)
 * take it: every hook asks this first, so flows of other namespaces or
 * ports cost these loads only.
 */
static __always_inline bool sk_watched(const struct sock *sk, struct ts_key *k, const bool btf)
{
	k->netns = btf ? sk->__sk_common.skc_net.net->ns.inum :
			 BPF_CORE_READ(sk, __sk_common.skc_net.net, ns.inum);
	if (!netns_in_scope(k->netns))
		return false;
	k->lport = RD(btf, sk, __sk_common.skc_num);
	k->rport = bpf_ntohs(RD(btf, sk, __sk_common.skc_dport));
	return !targ_port || k->lport == targ_port || k->rport == targ_port;
}

/* The rest of the flow key of a watched socket: its addresses, local end first. */
static __always_inline void sk_key_addrs(const struct sock *sk, struct ts_key *k, const bool btf)
{
	k->family = RD(btf, sk, __sk_common.skc_family);
	if (k->family == NM_AF_INET6) {
		/* &array: the read takes sizeof(*dst), all 16 bytes */
		BPF_CORE_READ_INTO(&k->laddr, sk, __sk_common.skc_v6_rcv_saddr.in6_u.u6_addr8);
		BPF_CORE_READ_INTO(&k->raddr, sk, __sk_common.skc_v6_daddr.in6_u.u6_addr8);
	} else {
		*(__u32 *)k->laddr = RD(btf, sk, __sk_common.skc_rcv_saddr);
		*(__u32 *)k->raddr = RD(btf, sk, __sk_common.skc_daddr);
	}
}

/* The socket's flow key, if the filters take it. btf: sk is a BTF pointer (direct loads). */
static __always_inline bool sk_key_match(const struct sock *sk, struct ts_key *k, const bool btf)
{
	if (!sk_watched(sk, k, btf))
		return false;
	sk_key_addrs(sk, k, btf);
	return true;
}

/*
 * Owned: the user thread holds the socket lock, so this runs from the
 * backlog in __release_sock (or from tcp_release_cb right after it). The
 * fentry or kprobe rung marks __release_sock itself; else sk_lock.owned says it.
 */
/* enum ts_release_rung, set by userspace once a __release_sock rung is attached */
__u32 release_rung = TS_RELEASE_OWNER_BIT;
/* A backlog run older than this is an entry whose kretprobe was missed. */
#define TS_RELEASE_STALE_NS	(1000ULL * 1000 * 1000)

static __always_inline bool sk_owned(const struct sock *sk, const bool btf)
{
	__u64 key = (__u64)sk, *since;

	if (release_rung == TS_RELEASE_OWNER_BIT)
		return RD(btf, sk, sk_lock.owned) != 0;
	/* the rung sees the backlog run itself: only what happens inside it */
	since = bpf_map_lookup_elem(&in_release, &key);
	if (!since)
		return false;
	return release_rung == TS_RELEASE_EXIT || bpf_ktime_get_ns() - *since < TS_RELEASE_STALE_NS;
}

/*
 * The slot is the socket's (k: its netns and ports). A socket freed and
 * another one allocated at the same address would find the old slot: the
 * ports tell them apart (a 4-tuple reused at the same address at once is
 * not told apart). Privileged programs may compare a pointer's value.
 */
static __always_inline bool acks_mine(const struct ts_acks *a, const struct sock *sk,
				      const struct ts_key *k)
{
	return a->sk == (__u64)sk && a->key.lport == k->lport && a->key.rport == k->rport;
}

/*
 * A slot a new socket may take: never used, or its socket closed, or had
 * no event in this interval or the one before, or it was this address's
 * previous socket (freed, since the address is now this one's).
 */
static __always_inline bool acks_free(const struct ts_acks *a, const struct sock *sk)
{
	if (a->sk == TS_SLOT_BUSY)
		return false;
	return a->sk == TS_SLOT_FREE || a->closed || a->sk == (__u64)sk || a->epoch + 1 < ts_epoch;
}

/*
 * Slot i becomes the socket's. One CPU at a time claims it (ts_claims, in
 * place of a compare-and-swap, common.bpf.h); under the claim the slot is
 * looked at again: another CPU may have given it to this very socket (it
 * is used as it is) or to another one since acks_find looked. sk is BUSY
 * while the slot is filled and the address is published last. The tuple
 * is read once, here.
 */
static __always_inline struct ts_acks *acks_claim(struct ts_acks *a, __u32 i, const struct sock *sk,
						  const struct ts_key *k, const bool btf)
{
	__u64 old;
	__u32 gen;

	if (!ts_claim_take(i))
		return NULL;
	if (acks_mine(a, sk, k) || !acks_free(a, sk)) {
		ts_claim_drop(i);
		return acks_mine(a, sk, k) ? a : NULL;
	}
	old = a->sk;
	a->sk = TS_SLOT_BUSY;
	if (old != TS_SLOT_FREE)
		ts_count(TS_CNT_ACK_FLOWS_EVICTED);
	/* the slot's own count of claims: a new one, for userspace, is a new socket */
	gen = a->gen + 1;
	__builtin_memset((char *)a + sizeof(a->sk), 0, sizeof(*a) - sizeof(a->sk));
	a->key.netns = k->netns;
	a->key.lport = k->lport;
	a->key.rport = k->rport;
	sk_key_addrs(sk, &a->key, btf);
	a->gen = gen;
	a->epoch = ts_epoch;
	bpf_map_update_elem(&ack_index, &a->key, &i, BPF_ANY);
	a->sk = (__u64)sk;
	ts_claim_drop(i);
	return a;
}

/*
 * The first of the socket's two slots (the second is its neighbour, i0 ^ 1):
 * from its ehash, since the verifier allows no arithmetic on its address,
 * and skc_hash is one load next to the ports.
 */
static __always_inline __u32 acks_index(const struct sock *sk, const bool btf)
{
	return RD(btf, sk, __sk_common.skc_hash) & ts_flow_mask;
}

/* The socket's slot, one of its two; create: claim one if neither is the socket's. */
static __always_inline struct ts_acks *acks_find(const struct sock *sk, const struct ts_key *k,
						 bool create, const bool btf)
{
	__u32 i0 = acks_index(sk, btf), i1 = i0 ^ 1;
	struct ts_acks *a, *b;

	a = bpf_map_lookup_elem(&acks, &i0);
	if (!a)
		return NULL;
	if (acks_mine(a, sk, k))
		return a;
	b = bpf_map_lookup_elem(&acks, &i1);
	if (!b)
		return NULL;
	if (acks_mine(b, sk, k))
		return b;
	if (!create)
		return NULL;
	if (acks_free(a, sk))
		return acks_claim(a, i0, sk, k, btf);
	if (acks_free(b, sk))
		return acks_claim(b, i1, sk, k, btf);
	ts_count(TS_CNT_ACK_UNTRACKED);
	return NULL;
}

/*
 * The socket's slot, claimed on first use if the filters take the socket.
 * A new interval (epoch) restarts the CPU masks: the first event in it
 * clears them, so the array needs no reset.
 */
static __always_inline struct ts_acks *acks_get_make(const struct sock *sk, const bool btf)
{
	/* only netns and ports are written and read on the way to the lookup */
	struct ts_key k;
	struct ts_acks *a;

	if (!sk_watched(sk, &k, btf))
		return NULL;
	a = acks_find(sk, &k, true, btf);
	if (a && a->epoch != ts_epoch) {
		a->epoch = ts_epoch;
		a->softirq_cpus = 0;
		a->app_cpus = 0;
	}
	return a;
}

/* tcp_backlog_ack_defer of the socket's netns, read where the kernel has it (>= 6.7). */
static __always_inline __u8 netns_defer(const struct sock *sk, const bool btf)
{
	struct net *net = RD(btf, sk, __sk_common.skc_net.net);
	struct netns_ipv4___ack_defer *ipv4 = netns_ipv4_ack_defer(net);

	if (!bpf_core_field_exists(ipv4->sysctl_tcp_backlog_ack_defer))
		return TS_DEFER_ABSENT;
	return RD(btf, ipv4, sysctl_tcp_backlog_ack_defer);
}

/*
 * Route attribute quickack 1 on the socket's cached route (RTAX_QUICKACK).
 * The metrics need a probe read: it is done once per route the socket
 * caches (a changed route is a new dst), not per ACK.
 */
static __always_inline bool route_quickack(const struct sock *sk, struct ts_acks *a, const bool btf)
{
	struct dst_entry *dst = RD(btf, sk, sk_dst_cache);
	unsigned long m;
	__u32 q = 0;

	if (!dst)
		return false;
	if (a->route_dst == (__u64)dst)
		return a->route_quickack;
	m = RD(btf, dst, _metrics) & ~DST_METRICS_FLAGS;
	if (m)
		bpf_probe_read_kernel(&q, sizeof(q), (void *)(m + (RTAX_QUICKACK - 1) * 4));
	a->route_dst = (__u64)dst;
	a->route_quickack = q != 0;
	return q != 0;
}

/*
 * quick-ack mode: icsk_ack.quick of the socket. A probe read: skb->sk is an
 * RCU pointer that bpf_skc_to_tcp_sock() does not take, and icsk_ack lies
 * past struct sock for a direct load.
 */
static __always_inline bool ack_quick(const struct sock *sk)
{
	const struct inet_connection_sock *icsk = (const void *)sk;

	return BPF_CORE_READ(icsk, icsk_ack.quick) != 0;
}

/* CPU placement: masks of the current report interval only (acks_get_make). */
static __always_inline void note_cpu(struct ts_acks *a, bool app)
{
	__u64 cpu = 1ULL << (bpf_get_smp_processor_id() & 63);

	nm_set_bits(app ? &a->app_cpus : &a->softirq_cpus, cpu);
}

/* ---- stall side: tcp_push/tcp_wfree rung 1, where fexit is allowed ---- */

/* key -> the socket's open tsq_idle episode */
struct {
	__uint(type, BPF_MAP_TYPE_LRU_HASH);
	__uint(max_entries, 16384);
	__type(key, struct ts_key);
	__type(value, struct ts_mark);
} tsq_marks SEC(".maps");

/* ended episodes of at least the threshold, for userspace (emptied every sweep) */
struct {
	__uint(type, BPF_MAP_TYPE_QUEUE);
	__uint(max_entries, 4096);
	__type(value, struct ts_episode);
} tsq_episodes SEC(".maps");

/* --threshold in ns: shorter episodes are not stalls and are dropped here */
const volatile __u64 targ_stall_ns = 10000000;
/* episodes going on: the per-packet end check costs a load when there are none */
__s32 marks_open = 0;

static __always_inline __u32 truesize1(void)
{
	/* SKB_TRUESIZE(1), as tcp_small_queue_check compares against it */
	return 1 + ((bpf_core_type_size(struct sk_buff) + 63) & ~63) +
	       ((bpf_core_type_size(struct skb_shared_info) + 63) & ~63);
}

/* THROTTLED, no handler queued, nothing below TCP, data waiting. */
static __always_inline bool throttled_idle(struct sock *sk)
{
	struct tcp_sock *tp = (struct tcp_sock *)sk;
	unsigned long f = BPF_CORE_READ(sk, sk_tsq_flags);

	return (f & TS_TSQ_THROTTLED) && !(f & TS_TSQ_QUEUED) &&
	       BPF_CORE_READ(sk, sk_wmem_alloc.refs.counter) < truesize1() &&
	       BPF_CORE_READ(tp, write_seq) != BPF_CORE_READ(tp, snd_nxt);
}

/* The episode ends now: queued for userspace when it lasted a stall. */
static __always_inline void mark_end(struct ts_mark *m, const struct ts_key *k, __u64 now)
{
	struct ts_episode e = { .key = *k, .start_ns = m->start_ns, .end_ns = now };

	__sync_fetch_and_add(&marks_open, -1);
	bpf_map_delete_elem(&tsq_marks, k);
	if (now - e.start_ns < targ_stall_ns)
		return;
	ts_count(bpf_map_push_elem(&tsq_episodes, &e, 0) ? TS_CNT_TSQ_LOST : TS_CNT_TSQ_EPISODES);
}

/*
 * --fix=kick, where the kick rung of tcp_push loads: each episode arms its
 * socket's timer for the threshold, and one still open then is a request
 * in the kick_due ring, which wakes userspace at once. Without it a stall
 * waits for the next loop pass, which the sweep budget may space 40 ms
 * apart under load: past the delayed ACK the kick exists to beat.
 */
struct kick_timer {
	struct bpf_timer t;
	__u64 start_ns;		/* the episode it was armed for */
};

struct {
	__uint(type, BPF_MAP_TYPE_LRU_HASH);
	__uint(max_entries, 4096);
	__type(key, struct ts_key);
	__type(value, struct kick_timer);
} kick_timers SEC(".maps");

/* one request per stall that outlived the threshold: a few a second at worst */
struct {
	__uint(type, BPF_MAP_TYPE_RINGBUF);
	__uint(max_entries, 64 * 1024);
} kick_due SEC(".maps");

#define NM_CLOCK_MONOTONIC	1	/* bpf_ktime_get_ns()'s clock */

/* The threshold is reached: the episode it was armed for, if still open, asks for a kick. */
static int kick_fire(void *map, struct ts_key *key, struct kick_timer *t)
{
	struct ts_mark *m = bpf_map_lookup_elem(&tsq_marks, key);
	struct ts_kick_due *d;

	if (!m || m->start_ns != t->start_ns)
		return 0;	/* it ended in time, or another one began */
	d = bpf_ringbuf_reserve(&kick_due, sizeof(*d), 0);
	if (!d) {
		ts_count(TS_CNT_KICK_DUE_LOST);
		return 0;
	}
	d->key = *key;
	d->start_ns = m->start_ns;
	d->nonagle = m->nonagle;
	d->tgid = m->tgid;
	bpf_ringbuf_submit(d, 0);
	ts_count(TS_CNT_KICK_DUE);
	return 0;
}

static __always_inline void kick_arm(const struct ts_key *k, __u64 start)
{
	struct kick_timer zero = {}, *t = bpf_map_lookup_elem(&kick_timers, k);

	if (!t) {
		bpf_map_update_elem(&kick_timers, k, &zero, BPF_NOEXIST);
		t = bpf_map_lookup_elem(&kick_timers, k);
		if (!t)
			return;
		/* -EBUSY when another CPU got there first: its callback is this one */
		bpf_timer_init(&t->t, &kick_timers, NM_CLOCK_MONOTONIC);
		bpf_timer_set_callback(&t->t, kick_fire);
	}
	t->start_ns = start;
	bpf_timer_start(&t->t, targ_stall_ns, 0);
}

static __always_inline void mark_start(struct sock *sk, const struct ts_key *k, __u32 snd_nxt, __u64 now,
				       __u32 tgid)
{
	struct ts_mark m = { .start_ns = now, .snd_nxt = snd_nxt, .tgid = tgid,
			     .nonagle = BPF_CORE_READ_BITFIELD_PROBED((struct tcp_sock *)sk, nonagle) };

	bpf_map_update_elem(&tsq_marks, k, &m, BPF_ANY);
	__sync_fetch_and_add(&marks_open, 1);
	ts_count(TS_CNT_TSQ_MARKS);
}

/*
 * tcp_push() or tcp_wfree() returns. The race's state is made by the later
 * of the two: tcp_push() set TSQ_THROTTLED and read a stale sk_wmem_alloc,
 * tcp_wfree() read a stale flag and queued no handler. So both look: the
 * state, found first, starts an episode (its exact start); its absence, or
 * a transmit since the start (snd_nxt moved), ends the open one.
 * push: the look is tcp_push()'s, in the process that holds the socket.
 */
static __always_inline void tsq_look(struct sock *sk, const struct ts_key *k, const bool kick, const bool push)
{
	__u32 snd_nxt = BPF_CORE_READ((struct tcp_sock *)sk, snd_nxt);
	bool idle = throttled_idle(sk);
	struct ts_mark *m = bpf_map_lookup_elem(&tsq_marks, k);
	__u64 now = bpf_ktime_get_ns();

	if (m) {
		if (idle && m->snd_nxt == snd_nxt)
			return;		/* the same episode goes on */
		mark_end(m, k, now);
	}
	if (!idle)
		return;
	mark_start(sk, k, snd_nxt, now, push ? bpf_get_current_pid_tgid() >> 32 : 0);
	/* another netns's episode is reported, never kicked: no timer for it */
	if (kick && (!targ_netns_ino || k->netns == targ_netns_ino))
		kick_arm(k, now);
}

static __always_inline int push_exit(struct sock *sk, const bool kick)
{
	struct ts_key k = {};

	if (!sk_key_match(sk, &k, true))
		return 0;
	/* it sends: the fast sweep follows it (sock_send_length does so on 6.3+) */
	tag(sk);
	tsq_look(sk, &k, kick, true);
	return 0;
}

static __always_inline int wfree_exit(struct sock *sk, const bool kick)
{
	struct ts_key k = {};

	if (!sk || !sk_key_match(sk, &k, true))
		return 0;
	tsq_look(sk, &k, kick, false);
	return 0;
}

SEC("fexit/tcp_push")
int BPF_PROG(ts_push_exit, struct sock *sk, int flags, int mss_now, int nonagle, int size_goal)
{
	return push_exit(sk, false);
}

/* a direct load of skb->sk keeps it a BTF pointer, as sk_key_match() needs */
SEC("fexit/tcp_wfree")
int BPF_PROG(ts_wfree_exit, struct sk_buff *skb)
{
	return wfree_exit(skb->sk, false);
}

/* The same, with --fix=kick: each episode also arms its socket's kick timer. */
SEC("fexit/tcp_push")
int BPF_PROG(ts_push_exit_kick, struct sock *sk, int flags, int mss_now, int nonagle, int size_goal)
{
	return push_exit(sk, true);
}

SEC("fexit/tcp_wfree")
int BPF_PROG(ts_wfree_exit_kick, struct sk_buff *skb)
{
	return wfree_exit(skb->sk, true);
}

/*
 * Rung 2, where fexit cannot attach (arm64 before 6.4 has no BPF
 * trampoline on a kernel function: Debian 11's 5.10, Debian 12's 6.1): the
 * same looks from a kprobe/kretprobe pair. A return has no arguments, so
 * the entry keeps the socket for its call's owner (probe_owner), by
 * function: tcp_wfree() can run inside tcp_push() (a transmit frees an
 * skb). One nested in another tcp_wfree() of the same owner (a softirq
 * over process context) takes the entry, and the outer return finds none:
 * a look missed, never one made on the wrong socket. LRU: a return the
 * kernel missed (kretprobe's maxactive) leaves an entry that ages out. sk
 * is no BTF pointer here: no socket storage, so this rung does not tag,
 * and it arms no kick timer (the walk of the episodes kicks,
 * tcpstall/act.c).
 */
enum { TS_PROBE_PUSH, TS_PROBE_WFREE, TS_PROBE_RELEASE };
struct ts_probe_key {
	__u64 owner;
	__u32 fn;
	__u32 pad;
};

/*
 * Whose call it is: its thread (pid_tgid), which runs on one CPU at a time.
 * A softirq on an idle CPU runs as that CPU's idle task, pid 0 on every
 * CPU: there the CPU tells two calls apart.
 */
static __always_inline __u64 probe_owner(void)
{
	__u64 id = bpf_get_current_pid_tgid();

	return id ? id : (1ULL << 63) | bpf_get_smp_processor_id();
}
struct {
	__uint(type, BPF_MAP_TYPE_LRU_HASH);
	__uint(max_entries, 1024);
	__type(key, struct ts_probe_key);
	__type(value, __u64);
} probe_args SEC(".maps");

/* only a watched socket is kept: the others cost the entry these loads */
static __always_inline void probe_keep(__u32 fn, struct sock *sk)
{
	struct ts_probe_key pk = { .owner = probe_owner(), .fn = fn };
	struct ts_key k = {};
	__u64 v = (__u64)sk;

	if (sk && sk_watched(sk, &k, false))
		bpf_map_update_elem(&probe_args, &pk, &v, BPF_ANY);
}

static __always_inline int probe_look(__u32 fn)
{
	struct ts_probe_key pk = { .owner = probe_owner(), .fn = fn };
	struct ts_key k = {};
	struct sock *sk;
	__u64 *v = bpf_map_lookup_elem(&probe_args, &pk);

	if (!v)
		return 0;
	sk = (struct sock *)*v;
	bpf_map_delete_elem(&probe_args, &pk);
	if (sk_key_match(sk, &k, false))
		tsq_look(sk, &k, false, fn == TS_PROBE_PUSH);
	return 0;
}

SEC("kprobe/tcp_push")
int BPF_KPROBE(ts_push_kp, struct sock *sk)
{
	probe_keep(TS_PROBE_PUSH, sk);
	return 0;
}

SEC("kretprobe/tcp_push")
int BPF_KRETPROBE(ts_push_krp)
{
	return probe_look(TS_PROBE_PUSH);
}

SEC("kprobe/tcp_wfree")
int BPF_KPROBE(ts_wfree_kp, struct sk_buff *skb)
{
	probe_keep(TS_PROBE_WFREE, BPF_CORE_READ(skb, sk));
	return 0;
}

SEC("kretprobe/tcp_wfree")
int BPF_KRETPROBE(ts_wfree_krp)
{
	return probe_look(TS_PROBE_WFREE);
}

/*
 * A data skb of a socket reaches the device layer (net_dev_queue): the
 * socket transmits, so its episode, if one is open, ended. Runs for every
 * data packet; with no episode open anywhere it costs one load. On the
 * raw_tp rung (no BTF pointers) the next tcp_push()/tcp_wfree() ends it.
 * marks_open is a gate, not a count: userspace sets it again from the
 * map, since an LRU eviction or a closed socket never decrements it.
 */
static __always_inline void tsq_sent(const struct sock *sk)
{
	struct ts_key k = {};
	struct ts_mark *m;

	if (marks_open <= 0 || sk->sk_protocol != NM_IPPROTO_TCP || !sk_key_match((struct sock *)sk, &k, true))
		return;
	m = bpf_map_lookup_elem(&tsq_marks, &k);
	if (m)
		mark_end(m, &k, bpf_ktime_get_ns());
}

/* ---- ACK side ---- */

/* A data skb leaves a watched TCP socket: tag it for the fast sweep. */
static __always_inline void tag_sender(const struct sock *sk)
{
	struct ts_key k = {};

	if (sk->sk_protocol != NM_IPPROTO_TCP || !sk_watched(sk, &k, true))
		return;
	tag((struct sock *)sk);
}

/*
 * A pure ACK leaves: skb->sk is its socket, truesize 2 marks it
 * (skb_set_tcp_pure_ack). btf: read through the tp_btf pointer, else
 * probed (raw_tp).
 */
static __always_inline void ts_on_queue(const struct sk_buff *skb, const bool btf)
{
	const struct sock *sk = RD(btf, skb, sk);
	struct ts_acks *a;
	__u8 defer;

	if (!sk)
		return;
	if (RD(btf, skb, truesize) != 2) {
		if (btf && tag_on_queue)
			tag_sender(sk);
		if (btf)
			tsq_sent(sk);
		return;
	}
	if (RD(btf, sk, sk_protocol) != NM_IPPROTO_TCP)
		return;
	a = acks_get_make(sk, btf);
	if (!a)
		return;
	a->acks_out++;
	if (sk_owned(sk, btf))
		a->acks_owned++;
	if (route_quickack(sk, a, btf))
		a->acks_quickack_route++;
	if (ack_quick(sk))
		a->acks_quick_mode++;
	defer = netns_defer(sk, btf);
	if (a->defer != defer)
		a->defer = defer;
}

/*
 * A segment reaches tcp_rcv_established (tcp_probe fires at its top). Its
 * control block has seq and end_seq already: a data segment is one whose
 * end_seq is past seq by more than a FIN. No probe read of the header.
 */
static __always_inline bool data_segment(const struct sk_buff *skb, const bool btf)
{
	const struct tcp_skb_cb *cb = (const void *)&skb->cb[0];
	__u32 seq, end;
	__u8 flags;

	if (btf) {
		seq = cb->seq;
		end = cb->end_seq;
		flags = cb->tcp_flags;
	} else {
		seq = BPF_CORE_READ(cb, seq);
		end = BPF_CORE_READ(cb, end_seq);
		flags = BPF_CORE_READ(cb, tcp_flags);
	}
	return end - seq > (flags & 0x01 ? 1u : 0u);	/* TCPHDR_FIN */
}

static __always_inline void on_rcv(const struct sock *sk, const struct sk_buff *skb,
				   const bool btf)
{
	struct ts_acks *a;
	__u32 iif;
	__u8 defer;
	bool owned;

	if (!data_segment(skb, btf))
		return;	/* pure ACK or window update: not data */
	a = acks_get_make(sk, btf);
	if (!a)
		return;
	a->segs_in++;
	/* a receiver that sends no pure ACK still names it right */
	defer = netns_defer(sk, btf);
	if (a->defer != defer)
		a->defer = defer;
	owned = sk_owned(sk, btf);
	if (owned)
		a->segs_owned++;
	/* from the backlog, the user thread's CPU processes it */
	note_cpu(a, owned);
	iif = RD(btf, skb, skb_iif);
	if (a->rx_ifindex != iif)
		a->rx_ifindex = iif;
}

/*
 * The application reads or writes (sock_recv_length / sock_send_length,
 * 6.3+): its CPU, and who it is. comm is copied only when the owner changes.
 * This runs without the socket lock: the CPU masks take atomic ORs.
 */
static __always_inline void on_app_io(const struct sock *sk, int ret, bool rx)
{
	struct ts_acks *a;
	__u32 tgid;

	if (ret <= 0 || sk->sk_protocol != NM_IPPROTO_TCP)
		return;
	a = acks_get_make(sk, true);
	if (!a)
		return;
	if (rx)
		note_cpu(a, true);
	else
		tag((struct sock *)sk);
	tgid = bpf_get_current_pid_tgid() >> 32;
	if (a->pid != tgid) {
		a->pid = tgid;
		bpf_get_current_comm(a->comm, sizeof(a->comm));
	}
}

/*
 * A socket closes: its slot may go to the next socket at once, so short
 * connections do not hold the table for two intervals. Its counts stay
 * readable until then. The slot is found by address alone: by now
 * inet_put_port() has cleared the local port, and whichever socket a slot
 * with this address names is gone.
 */
static __always_inline void on_state(const struct sock *sk, int newstate, const bool btf)
{
	__u32 i0, i1;
	struct ts_acks *a;

	if (newstate != TCP_CLOSE || RD(btf, sk, sk_protocol) != NM_IPPROTO_TCP)
		return;
	i0 = acks_index(sk, btf);
	i1 = i0 ^ 1;
	a = bpf_map_lookup_elem(&acks, &i0);
	if (a && a->sk == (__u64)sk)
		a->closed = 1;
	a = bpf_map_lookup_elem(&acks, &i1);
	if (a && a->sk == (__u64)sk)
		a->closed = 1;
}

/* Two flow keys, word by word (both zeroed before they were filled: the padding is equal). */
static __always_inline bool key_eq(const struct ts_key *a, const struct ts_key *b)
{
	const __u32 *x = (const __u32 *)a, *y = (const __u32 *)b;

#pragma unroll
	for (int i = 0; i < sizeof(*a) / 4; i++)
		if (x[i] != y[i])
			return false;
	return true;
}

/* Backlog full: tcp_add_backlog drops with SKB_DROP_REASON_SOCKET_BACKLOG. */
static __always_inline void on_drop(const struct sk_buff *skb, int reason)
{
	struct nm_flow f = {};
	struct ts_key k = {};
	struct ts_acks *a;
	const struct net_device *dev;
	__u32 *slot;

	if (!drop_reason_backlog(reason))
		return;
	if (nm_parse_skb(skb, &f) || f.proto != NM_IPPROTO_TCP)
		return;
	/* a received segment: its destination is the socket's local end */
	dev = BPF_CORE_READ(skb, dev);
	k.netns = dev ? nm_dev_netns(dev) : 0;
	k.family = f.family;
	k.lport = f.dport;
	k.rport = f.sport;
	__builtin_memcpy(k.laddr, f.daddr, 16);
	__builtin_memcpy(k.raddr, f.saddr, 16);
	if (!flow_match(&k))
		return;
	ts_count(TS_CNT_BACKLOG_DROPS);
	/* the skb has no socket here: find its slot by its tuple */
	slot = bpf_map_lookup_elem(&ack_index, &k);
	if (!slot)
		return;
	a = bpf_map_lookup_elem(&acks, slot);
	if (a && a->sk != TS_SLOT_BUSY && key_eq(&a->key, &k))
		__sync_fetch_and_add(&a->backlog_drops, 1);
}

SEC("tp_btf/tcp_probe")
int BPF_PROG(ts_rcv_tp, struct sock *sk, struct sk_buff *skb)
{
	on_rcv(sk, skb, true);
	return 0;
}

SEC("raw_tp/tcp_probe")
int BPF_PROG(ts_rcv_raw, struct sock *sk, struct sk_buff *skb)
{
	on_rcv(sk, skb, false);
	return 0;
}

SEC("tp_btf/inet_sock_set_state")
int BPF_PROG(ts_state_tp, struct sock *sk, int oldstate, int newstate)
{
	on_state(sk, newstate, true);
	return 0;
}

SEC("raw_tp/inet_sock_set_state")
int BPF_PROG(ts_state_raw, struct sock *sk, int oldstate, int newstate)
{
	on_state(sk, newstate, false);
	return 0;
}

SEC("tp_btf/sock_recv_length")
int BPF_PROG(ts_recv_len_tp, struct sock *sk, int ret, int flags)
{
	on_app_io(sk, ret, true);
	return 0;
}

SEC("tp_btf/sock_send_length")
int BPF_PROG(ts_send_len_tp, struct sock *sk, int ret, int flags)
{
	on_app_io(sk, ret, false);
	return 0;
}

SEC("tp_btf/kfree_skb")
int BPF_PROG(ts_drop_tp, struct sk_buff *skb, void *location, int reason)
{
	on_drop(skb, reason);
	return 0;
}

/* __release_sock rung 1: the backlog run itself, where fentry is allowed (and rung 2's entry). */
static __always_inline void release_enter(struct sock *sk)
{
	__u64 key = (__u64)sk, now = bpf_ktime_get_ns();

	bpf_map_update_elem(&in_release, &key, &now, BPF_ANY);
}

SEC("fentry/__release_sock")
int BPF_PROG(ts_release_enter, struct sock *sk)
{
	release_enter(sk);
	return 0;
}

SEC("fexit/__release_sock")
int BPF_PROG(ts_release_exit, struct sock *sk)
{
	__u64 key = (__u64)sk;

	bpf_map_delete_elem(&in_release, &key);
	return 0;
}

/*
 * Rung 2, where fentry cannot attach (arm64 before 6.4's direct calls):
 * the same marks from a kprobe pair. The return has no argument, so the
 * entry keeps sk for its thread (release_sock runs in process context, and
 * __release_sock may sleep and move to another CPU).
 */
SEC("kprobe/__release_sock")
int BPF_KPROBE(ts_release_kp, struct sock *sk)
{
	struct ts_probe_key pk = { .owner = probe_owner(), .fn = TS_PROBE_RELEASE };
	__u64 v = (__u64)sk;

	release_enter(sk);
	bpf_map_update_elem(&probe_args, &pk, &v, BPF_ANY);
	return 0;
}

SEC("kretprobe/__release_sock")
int BPF_KRETPROBE(ts_release_krp)
{
	struct ts_probe_key pk = { .owner = probe_owner(), .fn = TS_PROBE_RELEASE };
	__u64 *v = bpf_map_lookup_elem(&probe_args, &pk), key;

	if (!v)
		return 0;
	key = *v;
	bpf_map_delete_elem(&probe_args, &pk);
	bpf_map_delete_elem(&in_release, &key);
	return 0;
}

/* ---- stall side: the sweep ---- */

static __always_inline __u32 jiffies_to_ms(__u32 j)
{
	__u32 hz = targ_hz ? targ_hz : 250;

	return (__u64)j * 1000 / hz;
}

/*
 * The sample, from direct loads: the iterators hand a BTF pointer to the
 * whole tcp_sock (bpf_skc_to_tcp_sock), so no probe read is needed.
 */
static __always_inline void fill_sample(struct ts_sample *s, struct tcp_sock *tp,
					__u32 write_seq, __u32 snd_nxt)
{
	struct inet_connection_sock *icsk = &tp->inet_conn;
	struct sock *sk = &icsk->icsk_inet.sk;

	s->now_ns = bpf_ktime_get_ns();
	s->unsent = write_seq - snd_nxt;
	s->in_flight = snd_nxt - tp->snd_una;
	s->packets_out = tp->packets_out;
	s->snd_cwnd = tp->snd_cwnd;
	s->snd_wnd = tp->snd_wnd;
	s->mss = tp->mss_cache;
	s->send_age_ms = jiffies_to_ms((__u32)bpf_jiffies64() - tp->lsndtime);
	s->tsq_flags = sk->sk_tsq_flags;
	s->wmem_alloc = sk->sk_wmem_alloc.refs.counter;
	s->wmem_queued = sk->sk_wmem_queued;
	s->sndbuf = sk->sk_sndbuf;
	s->pacing_status = sk->sk_pacing_status;
	s->wstamp_ns = tp->tcp_wstamp_ns;
	s->nonagle = BPF_CORE_READ_BITFIELD(tp, nonagle);
	s->ca_state = BPF_CORE_READ_BITFIELD(icsk, icsk_ca_state);
	s->state = sk->__sk_common.skc_state;
	s->cgroup_id = sk_cgroup_id(sk);
	s->truesize1 = truesize1();
}

/*
 * One socket of a sweep: a sample when it has something to send and is
 * watched. Returns whether it had something to send.
 */
static __always_inline bool sweep_sock(struct seq_file *seq, struct sock *sk, struct tcp_sock *tp)
{
	struct ts_sample s = {};
	struct ts_acks *a;
	__u32 write_seq, snd_nxt;
	struct ts_mark *mark;

	/* the states that can still hold data to send */
	switch (sk->__sk_common.skc_state) {
	case TCP_ESTABLISHED:
	case TCP_CLOSE_WAIT:
	case TCP_FIN_WAIT1:
	case TCP_LAST_ACK:
	case TCP_CLOSING:
		break;
	default:
		return false;
	}
	write_seq = tp->write_seq;
	snd_nxt = tp->snd_nxt;
	if (write_seq == snd_nxt && !tp->packets_out)
		return false;	/* nothing to send: cannot be stalled */
	if (!sk_key_match(sk, &s.key, true))
		return true;
	fill_sample(&s, tp, write_seq, snd_nxt);
	a = acks_find(sk, &s.key, false, true);
	if (a) {
		s.pid = a->pid;
		__builtin_memcpy(s.comm, a->comm, sizeof(s.comm));
	}
	mark = bpf_map_lookup_elem(&tsq_marks, &s.key);
	if (mark)
		s.tsq_mark_ns = mark->start_ns;
	ts_count(TS_CNT_SAMPLES);
	bpf_seq_write(seq, &s, sizeof(s));
	return true;
}

/* The full sweep: every TCP socket of the host's hash tables (userspace: every second). */
SEC("iter/tcp")
int ts_sweep(struct bpf_iter__tcp *ctx)
{
	struct sock_common *skc = ctx->sk_common;
	struct tcp_sock *tp;
	struct sock *sk;

	if (!skc)
		return 0;
	if (!ctx->meta->seq_num)
		ts_count(TS_CNT_SWEEPS);
	tp = bpf_skc_to_tcp_sock(skc);
	if (!tp)
		return 0;	/* listener, request or timewait socket */
	sk = (struct sock *)tp;
	if (sweep_sock(ctx->meta->seq, sk, tp))
		tag(sk);
	return 0;
}

/*
 * A tagged socket in a fast sweep: sampled, and untagged after
 * TS_UNTAG_SWEEPS sweeps in a row with nothing to send.
 */
static __always_inline void sweep_tagged(struct seq_file *seq, struct sock *sk, struct tcp_sock *tp,
					 struct ts_tag *t)
{
	if (sweep_sock(seq, sk, tp))
		t->idle = 0;
	else if (++t->idle >= TS_UNTAG_SWEEPS) {
		bpf_sk_storage_delete(&tagged, sk);
		return;
	}
	/* still tagged: its netns stays in the fast sweep */
	tag_mark(sk, t);
}

/* The fast sweep (every --sweep ms), rung 1: the tagged sockets only. */
SEC("iter/bpf_sk_storage_map")
int ts_sweep_tagged(struct bpf_iter__bpf_sk_storage_map *ctx)
{
	struct sock *sk = ctx->sk;
	struct ts_tag *t = ctx->value;
	struct tcp_sock *tp;

	if (!ctx->meta->seq_num)
		ts_count(TS_CNT_SWEEPS);
	if (!sk || !t)
		return 0;
	tp = bpf_skc_to_tcp_sock(sk);
	if (tp)
		sweep_tagged(ctx->meta->seq, sk, tp, t);
	return 0;
}

/*
 * The fast sweep, rung 2, where map iterators are refused (some kernels
 * refuse iter/bpf_sk_storage_map with EPERM): it walks every socket, as
 * the full sweep does, but samples only the tagged ones, so an untagged
 * socket costs a storage lookup instead of a sample.
 */
SEC("iter/tcp")
int ts_sweep_fast(struct bpf_iter__tcp *ctx)
{
	struct sock_common *skc = ctx->sk_common;
	struct tcp_sock *tp;
	struct ts_tag *t;

	if (!skc)
		return 0;
	if (!ctx->meta->seq_num)
		ts_count(TS_CNT_SWEEPS);
	tp = bpf_skc_to_tcp_sock(skc);
	if (!tp)
		return 0;
	t = bpf_sk_storage_get(&tagged, (struct sock *)tp, 0, 0);
	if (t)
		sweep_tagged(ctx->meta->seq, (struct sock *)tp, tp, t);
	return 0;
}

/* ---- remedy: --fix=kick ---- */

#define SOL_TCP		6
#define TCP_NODELAY	1

/* the sockets of one kick pass, named by userspace; the outcome in the value */
struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, TS_KICK_BATCH);
	__type(key, struct ts_key);
	__type(value, struct ts_kick);
} kicks SEC(".maps");

/* NETMEDIC_TEST_KICK=crash (a test aid): stop after the set, as a crash would */
__u32 kick_halt = 0;

static __always_inline void kick_fail(struct ts_kick *k, __u32 step, long err)
{
	k->step = step;
	k->err = err;
}

/*
 * Why this pushes, and why it may run here (checked in the kernel source,
 * v6.1 and v6.18):
 * - iter/tcp may call both helpers: bpf_iter_tcp_get_func_proto()
 *   (net/ipv4/tcp_ipv4.c, since 5.15) returns bpf_sk_setsockopt_proto and
 *   bpf_sk_getsockopt_proto, and bpf_iter_tcp_seq_show() holds the socket
 *   lock of a full socket while the program runs (lock_sock_fast() up to
 *   6.3, lock_sock() since 6.4), the context the helpers require
 *   (sock_owned_by_me() in _bpf_setsockopt, net/core/filter.c).
 * - TCP_NODELAY is accepted at SOL_TCP by sol_tcp_sockopt() (net/core/
 *   filter.c, 6.1 on; getsockopt too), which calls do_tcp_setsockopt() /
 *   do_tcp_getsockopt(): the same code as setsockopt(2).
 * - Setting it to 1 runs __tcp_sock_set_nodelay(sk, true): nonagle |=
 *   TCP_NAGLE_OFF | TCP_NAGLE_PUSH, then tcp_push_pending_frames() ->
 *   __tcp_push_pending_frames() -> tcp_write_xmit(). There the TSQ check,
 *   tcp_small_queue_check(), throttles only while sk_wmem_alloc is above
 *   its limit (at least 2 * skb->truesize): a tsq_idle socket has less
 *   than SKB_TRUESIZE(1) below TCP, so it returns false and the data goes
 *   out, TSQ_THROTTLED or not. Nagle cannot hold it (TCP_NAGLE_PUSH), nor
 *   TSO deferral (tcp_tso_should_defer() sends when the last transmit is
 *   a jiffy old, and a tsq_idle socket has sent nothing for longer), nor
 *   autocork (tcp_push_pending_frames() does not autocork: only tcp_push()
 *   from sendmsg does). cwnd and the peer's window still apply, as they
 *   must: ts_classify() names those states before tsq_idle.
 * - Setting it back to 0 only clears TCP_NAGLE_OFF; TCP_NAGLE_PUSH stays
 *   until the next skb is queued (skb_entail()), exactly as after a
 *   setsockopt(2) of 1 then 0 by the application. getsockopt(TCP_NODELAY)
 *   reads TCP_NAGLE_OFF, so the old value reads back as it was.
 */
static __always_inline void kick_sock(struct sock_common *skc, struct ts_kick *k)
{
	int one = 1, val = 0;
	long err;

	err = bpf_getsockopt(skc, SOL_TCP, TCP_NODELAY, &val, sizeof(val));
	if (err) {
		kick_fail(k, TS_KICK_STEP_GET, err);
		return;
	}
	k->found = val;
	if (k->mode == TS_KICK_PUSH) {
		/* the journal holds the value read at the sweep: restore only that one */
		if (val != k->nodelay) {
			k->step = TS_KICK_STEP_CHANGED;
			return;
		}
		err = bpf_setsockopt(skc, SOL_TCP, TCP_NODELAY, &one, sizeof(one));
		if (err) {
			kick_fail(k, TS_KICK_STEP_SET, err);
			return;
		}
		if (kick_halt) {
			k->step = TS_KICK_STEP_HALTED;
			return;
		}
	}
	val = k->nodelay;
	err = bpf_setsockopt(skc, SOL_TCP, TCP_NODELAY, &val, sizeof(val));
	if (err) {
		kick_fail(k, TS_KICK_STEP_RESTORE, err);
		return;
	}
	k->step = TS_KICK_STEP_DONE;
}

/*
 * A pass over the sockets named in kicks: each one found is kicked (or,
 * in restore mode, given its old TCP_NODELAY back). Userspace runs it once
 * per sweep that found tsq_idle sockets, and once at load as its check.
 */
SEC("iter/tcp")
int ts_kick(struct bpf_iter__tcp *ctx)
{
	struct sock_common *skc = ctx->sk_common;
	struct ts_key key = {};
	struct tcp_sock *tp;
	struct ts_kick *k;

	if (!skc)
		return 0;
	tp = bpf_skc_to_tcp_sock(skc);
	if (!tp || !sk_key_match((struct sock *)tp, &key, true))
		return 0;	/* listener, request or timewait socket; or filtered */
	k = bpf_map_lookup_elem(&kicks, &key);
	if (k && k->step == TS_KICK_STEP_NONE)
		kick_sock(skc, k);
	return 0;
}

/* ---- hook ack_xmit: the pure ACKs that leave (ts_on_queue) ---- */

SEC("tp_btf/net_dev_queue")
int BPF_PROG(ts_queue_tp, struct sk_buff *skb)
{
	ts_on_queue(skb, true);
	return 0;
}

SEC("raw_tp/net_dev_queue")
int BPF_PROG(ts_queue_raw, struct sk_buff *skb)
{
	ts_on_queue(skb, false);
	return 0;
}

char LICENSE[] SEC("license") = "GPL";
