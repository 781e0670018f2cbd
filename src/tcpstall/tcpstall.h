/* SPDX-License-Identifier: GPL-2.0 */
/*
 * tcpstall: records shared by src/tcpstall/tcpstall.bpf.c and src/tcpstall/main.c.
 *
 * Two parts: a periodic iter/tcp sweep that emits one ts_sample per socket
 * with unsent data (classified in userspace, src/tcpstall/judge.c),
 * and per-flow ACK counters kept by tracepoints (ts_acks).
 */
#ifndef NETMEDIC_TCPSTALL_H
#define NETMEDIC_TCPSTALL_H

#include "netmedic/common.h"

/* A socket's flow as the socket sees it: local address first. */
struct ts_key {
	__u32 netns;		/* inode of the socket's network namespace */
	__u8 family;
	__u8 pad;
	__u16 lport;		/* host order */
	__u16 rport;		/* host order */
	__u16 pad2;
	__u8 laddr[16];
	__u8 raddr[16];
};

/* TSQ bits of sk_tsq_flags (enum tsq_enum) */
#define TS_TSQ_THROTTLED	(1U << 0)
#define TS_TSQ_QUEUED		(1U << 1)

/* One socket's state at the sweep; only sockets with unsent data or out packets. */
struct ts_sample {
	struct ts_key key;
	__u64 now_ns;		/* bpf_ktime_get_ns() at the sample */
	__u64 wstamp_ns;	/* tcp_wstamp_ns: earliest departure (pacing, EDT) */
	__u64 cgroup_id;
	__u32 send_age_ms;	/* since the last data transmit (lsndtime) */
	__u32 tsq_flags;
	__u32 wmem_alloc;	/* bytes below TCP (qdisc, driver), + 1 */
	__u32 unsent;		/* write_seq - snd_nxt */
	__u32 packets_out;
	__u32 snd_cwnd;
	__u32 snd_wnd;		/* the peer's window */
	__u32 in_flight;	/* snd_nxt - snd_una (bytes) */
	__u32 mss;
	__u32 wmem_queued;
	__u32 sndbuf;
	__u32 pacing_status;	/* enum sk_pacing: 0 none */
	__u8 nonagle;		/* TCP_NAGLE_* bits: 1 off, 2 cork, 4 push */
	__u8 state;
	__u8 ca_state;
	__u8 pad;
	__u32 truesize1;	/* SKB_TRUESIZE(1) of this kernel: "nothing below TCP" is less */
	__u32 pid;		/* last reader/writer, when the send/recv hooks saw one; else 0 */
	char comm[16];
	__u64 tsq_mark_ns;	/* fexit/tcp_push rung: when tcp_push() or tcp_wfree() left it
				 * throttled with nothing below TCP (0: no such episode open, or
				 * the rung is not loaded) */
};

/*
 * A tsq_idle episode as the tcp_push/tcp_wfree hooks see it: it starts when
 * either function leaves the socket throttled with nothing below TCP and
 * data waiting, and ends at the socket's next data transmit (net_dev_queue)
 * or when a later call of either finds the state gone. An open episode is
 * a ts_mark in tsq_marks, by socket key; an ended one that lasted at least
 * the threshold is a ts_episode in the tsq_episodes queue, which userspace
 * empties at every sweep; shorter ones are dropped in BPF.
 */
struct ts_mark {
	__u64 start_ns;		/* bpf_ktime_get_ns() (CLOCK_MONOTONIC) */
	__u32 snd_nxt;		/* at the start: a transmit since ends the episode */
	/*
	 * The process whose tcp_push() began it (0: begun by tcp_wfree(), in
	 * any context): where the userspace kick looks for the socket first.
	 */
	__u32 tgid;
	__u8 nonagle;		/* tp->nonagle at the start: --fix=kick journals its bit 0 */
	__u8 pad[7];
};

/*
 * --fix=kick: a tsq_idle episode still open at the threshold (the kick
 * timer's request, in the kick_due ring buffer).
 */
struct ts_kick_due {
	struct ts_key key;
	__u32 tgid;		/* the ts_mark's */
	__u64 start_ns;		/* the episode's, as in its ts_mark */
	__u8 nonagle;		/* the ts_mark's */
	__u8 pad[7];
};

struct ts_episode {
	struct ts_key key;
	__u64 start_ns;
	__u64 end_ns;
};

/*
 * Per-socket ACK counters, a slot of the acks array (cumulative; userspace
 * takes per-interval deltas). Updated under the socket lock, so plain adds,
 * except the CPU masks and the owner (sock_*_length runs unlocked).
 */
struct ts_acks {
	__u64 sk;		/* the socket's address; TS_SLOT_FREE, TS_SLOT_BUSY: no socket */
	struct ts_key key;	/* the socket's flow, filled in when the entry is made */
	/*
	 * Which claim of the slot this is (the slot's own count, one more at
	 * each claim: 5.10 has no fetch-and-add for a global one): counters
	 * restart at each claim, so a new one means no delta against the last
	 * report, even for a new socket at a freed socket's address.
	 */
	__u32 gen;
	__u64 acks_out;		/* pure ACKs transmitted */
	__u64 acks_owned;	/* ... while the user thread owned the socket (backlog run) */
	__u64 acks_quickack_route;	/* ... on a route with quickack 1 */
	__u64 acks_quick_mode;	/* ... in quick-ack mode (icsk_ack.quick) */
	__u64 segs_in;		/* data segments (skbs) received */
	__u64 segs_owned;	/* ... processed while owned: from the backlog */
	__u64 backlog_drops;	/* kfree_skb SOCKET_BACKLOG */
	/* CPU placement in report interval 'epoch' (restarts when the epoch moves on) */
	__u64 softirq_cpus;	/* CPUs that processed segments in softirq */
	__u64 app_cpus;		/* CPUs of the thread reading the socket or running its backlog */
	__u32 epoch;		/* the last report interval the socket had an event in */
	__u32 rx_ifindex;	/* device the last data segment arrived on */
	__u8 defer;		/* tcp_backlog_ack_defer of the netns: 0, 1, or TS_DEFER_ABSENT */
	__u8 route_quickack;	/* RTAX_QUICKACK of route_dst */
	__u8 closed;		/* the socket reached TCP_CLOSE: a new socket may take the slot */
	__u8 pad;
	__u64 route_dst;	/* the socket's cached route when route_quickack was read */
	__u32 pid;		/* tgid of the last thread that read or wrote it (sock_*_length) */
	char comm[16];
};

/*
 * How "owned" is read (release_rung): the owner bit, or inside a backlog
 * run (__release_sock) as its fexit rung marks it, or as its kretprobe rung
 * does, which the kernel may miss: a mark then ages out.
 */
enum ts_release_rung { TS_RELEASE_OWNER_BIT, TS_RELEASE_EXIT, TS_RELEASE_MISSABLE };

#define TS_SLOT_FREE		0	/* ts_acks.sk of a slot never used */
#define TS_SLOT_BUSY		1	/* ... of a slot being given to a socket */
#define TS_DEFER_ABSENT		2	/* kernel < 6.7: no tcp_backlog_ack_defer */
/* a socket with nothing to send for this many fast sweeps leaves the fast sweep */
#define TS_UNTAG_SWEEPS		200

/*
 * A tagged socket's storage: the fast sweeps in a row it had nothing to
 * send, and the tag epoch in which it last marked its netns in ns_tagged.
 * Userspace moves the epoch (tag_epoch) on every TS_TAG_EPOCH_SWEEPS fast
 * sweeps, from 1; a netns whose mark is TS_TAG_EPOCHS_KEPT epochs old has
 * no tagged socket, and rung 2 of the fast sweep skips it.
 */
struct ts_tag {
	__u32 idle;
	__u32 epoch;
};

#define TS_TAG_EPOCH_SWEEPS	8
#define TS_TAG_EPOCHS_KEPT	2
#define TS_NS_TAGGED_MAX	4096	/* ns_tagged's entries (LRU): NM_SCOPE_NS_MAX */

/*
 * --fix=kick: userspace names tsq_idle sockets in the kicks map, and the
 * ts_kick iterator (iter/tcp) pushes each one's pending frames by setting
 * TCP_NODELAY to 1 and back to its old value (src/tcpstall/tcpstall.bpf.c). Where
 * iter/tcp may not set socket options (before 5.15), userspace does the
 * same on the socket taken from its process (pidfd_getfd, tcpstall/kickfd.h),
 * with the same outcome.
 */
#define TS_KICK_BATCH		16	/* sockets one kick pass can name: the map's size */

enum ts_kick_mode {
	TS_KICK_PUSH = 1,	/* nodelay: the value journaled; it must still be it */
	TS_KICK_RESTORE = 2,	/* nodelay: the value to put back (--cleanup) */
};

/* How far the iterator got with a socket; TS_KICK_STEP_DONE: all of it. */
enum ts_kick_step {
	TS_KICK_STEP_NONE,	/* the socket was not found (closed, or another netns) */
	TS_KICK_STEP_TAKE,	/* pidfd_getfd rung only: its process could not lend it */
	TS_KICK_STEP_GET,	/* bpf_getsockopt(TCP_NODELAY) failed */
	TS_KICK_STEP_CHANGED,	/* TCP_NODELAY is no longer the journaled value: not kicked */
	TS_KICK_STEP_SET,	/* bpf_setsockopt(TCP_NODELAY, 1) failed */
	TS_KICK_STEP_RESTORE,	/* bpf_setsockopt(TCP_NODELAY, old) failed */
	TS_KICK_STEP_HALTED,	/* the test aid stopped it after the set (kick_halt) */
	TS_KICK_STEP_DONE,
};

/* A kicks map value: the request, then the outcome. */
struct ts_kick {
	__u32 mode;		/* enum ts_kick_mode */
	__s32 nodelay;		/* see enum ts_kick_mode */
	__s32 found;		/* TCP_NODELAY as the iterator read it */
	__s32 err;		/* the failed step's -errno */
	__u32 step;		/* enum ts_kick_step */
	__u32 pad;
};

enum ts_counter {
	TS_CNT_SWEEPS,
	TS_CNT_SAMPLES,
	TS_CNT_BACKLOG_DROPS,
	TS_CNT_TSQ_MARKS,	/* tsq_idle episodes started (fexit/tcp_push or fexit/tcp_wfree) */
	/* a slot taken from another socket: closed, idle two intervals, or freed at the same address */
	TS_CNT_ACK_FLOWS_EVICTED,
	TS_CNT_ACK_UNTRACKED,	/* events of sockets that found both their slots busy */
	TS_CNT_TSQ_EPISODES,	/* ... that ended after at least the threshold */
	TS_CNT_TSQ_LOST,	/* ... that found the tsq_episodes queue full */
	TS_CNT_KICK_DUE,	/* --fix=kick: episodes open at the threshold, sent to userspace */
	TS_CNT_KICK_DUE_LOST,	/* ... that found the kick_due ring full */
	TS_CNT_MAX,
};

#endif
