/* SPDX-License-Identifier: GPL-2.0 */
/* tcpstall decisions: classify a swept socket, follow stall episodes, judge ACK storms. */
#ifndef NETMEDIC_TCPSTALL_DETECT_H
#define NETMEDIC_TCPSTALL_DETECT_H

#include <stdbool.h>
#include <stdint.h>
#include "tcpstall/tcpstall.h"
#include "lib/hist.h"

enum ts_state {
	TS_SENDING,		/* unsent data and transmitting: healthy */
	TS_APP_LIMITED,		/* nothing unsent: waiting for the application, not stalled */
	TS_RWND,		/* the peer's window is full or zero */
	TS_CWND,		/* congestion window full: waiting for ACKs */
	TS_PACING,		/* earliest departure time in the future */
	TS_NAGLE,		/* Nagle or cork holds a short tail */
	TS_HOST_QUEUE,		/* TSQ throttled with data below TCP (qdisc, driver): backpressure */
	TS_SNDBUF,		/* send buffer full */
	TS_TSQ_IDLE,		/* the bug: throttled, nothing below, nothing queued, nothing sent */
	TS_UNKNOWN,		/* unsent data, nothing sent, none of the above */
	TS_NSTATES,
};

extern const char *const ts_state_names[TS_NSTATES];
const char *ts_state_name(enum ts_state s);

/* A socket whose unsent data has not moved for at least stall_ms is stalled. */
bool ts_stalled(const struct ts_sample *s, uint32_t stall_ms);
/* Why a socket holds its data; the first cause that applies, in this order:
 * rwnd, cwnd, pacing, nagle, host_queue, tsq_idle, sndbuf, then sending/unknown. */
enum ts_state ts_classify(const struct ts_sample *s, uint32_t stall_ms);

struct nm_diag_sock;	/* lib/sockdiag.h */

/*
 * The sample the BPF sweep would take of a socket, from what sock_diag
 * tells of it (the sweep's rung without BPF); now_ns is CLOCK_MONOTONIC at
 * the dump, netns_ino the namespace that was dumped. What sock_diag cannot
 * read (TSQ flags, pacing, Nagle, the owner) is set so that ts_classify
 * never names a cause from it: see the definition.
 */
/*
 * Sweeps may take at most this share of one CPU: a walk that costs more
 * waits longer before the next (a host with many sockets where only a
 * walk of every socket can find the tagged ones: iter/tcp or sock_diag).
 */
#define TS_SWEEP_BUDGET_PCT	5

/*
 * The wait after a sweep that took took_ns: the period asked for, or
 * longer, so that sweeps stay within TS_SWEEP_BUDGET_PCT. A scheduled
 * full sweep (once a second, beside fast ones that walk the tags alone)
 * is not stretched: its cost is the price of finding new senders, and
 * the fast sweeps after it are cheap.
 */
uint64_t ts_sweep_wait_ns(uint64_t period_ns, uint64_t took_ns, bool scheduled_full);

void ts_sample_from_diag(const struct nm_diag_sock *d, uint64_t now_ns, uint32_t netns_ino,
			 struct ts_sample *s);

/* How a stall ended: it transmitted again, its data drained, or it is gone. */
enum ts_end { TS_END_NONE, TS_END_SENT, TS_END_DRAINED, TS_END_GONE };
extern const char *const ts_end_names[TS_END_GONE + 1];
const char *ts_end_name(enum ts_end e);

/* Userspace state of one socket across sweeps. */
struct ts_sock {
	struct ts_sample last;
	uint64_t seen_sweep;
	uint64_t stall_start_ns;	/* 0: not stalled */
	uint64_t stall_ns_total;
	uint64_t stall_ns_max;
	uint64_t last_start_ns;		/* the last ended stall: its start and end */
	uint64_t last_end_ns;
	uint32_t stalls;
	uint8_t cause;			/* enum ts_state of the current or last stall */
	uint8_t end;			/* enum ts_end of the last stall */
	uint8_t last_kick;		/* enum ts_kick_result of the last kick, with kicks */
	uint8_t pad;
	uint64_t last_kick_ns;		/* --fix=kick: when it was last kicked, 0 never */
	uint64_t kicked_stall_ns;	/* ... the start of the stall it was kicked in */
	uint32_t kicks;			/* kicks attempted on it */
	uint32_t pad2;
};

/* Totals over all sockets, for metrics and the histogram. */
struct ts_totals {
	uint64_t stalls[TS_NSTATES];		/* ended stalls by cause */
	uint64_t stall_ns[TS_NSTATES];
	uint64_t hist_us[TS_NSTATES][NM_HIST_SLOTS];	/* stall durations, log2 usecs */
};

/*
 * Feeds one sample into a socket's state. A stall starts when the socket
 * is first seen stalled, dated back to its last transmit; it ends when the
 * socket transmits again or has nothing left to send. Returns true when a
 * stall ended (its duration is in *ended_ns).
 */
bool ts_track(struct ts_sock *st, const struct ts_sample *s, uint32_t stall_ms, uint64_t sweep,
	      struct ts_totals *tot, uint64_t *ended_ns);
/*
 * A tsq_idle episode that the tcp_push/tcp_wfree hooks measured, from
 * start_ns to end_ns: the stall, exactly. An open stall of the sweep's
 * that began by end_ns is this episode and ends at end_ns as tsq_idle; an
 * ended one that overlaps it was this episode too (the sweep saw the end
 * first) and is not counted again. Else it is a stall the sweeps missed,
 * counted on its own; an open stall that began later stays open. Returns
 * true when a stall ended (its duration in *ended_ns).
 */
bool ts_track_episode(struct ts_sock *st, uint64_t start_ns, uint64_t end_ns, struct ts_totals *tot,
		      uint64_t *ended_ns);
/* The socket was not in the sweep at now_ns: its stall, if any, ended (drained or closed). */
bool ts_track_gone(struct ts_sock *st, uint64_t now_ns, enum ts_end end, struct ts_totals *tot,
		   uint64_t *ended_ns);

/*
 * An open tsq_idle episode (tsq_marks) whose socket the sweeps have not
 * seen for this long closed mid-episode: a closed socket or an LRU
 * eviction never ends it on the BPF side.
 */
#define TS_EPISODE_FORGET_NS	(10 * 1000000000ULL)
/*
 * The episode that began at start_ns is stale at now_ns: older than
 * TS_EPISODE_FORGET_NS, and its socket s (NULL: not tracked) missing from
 * the sweep numbered sweep.
 */
bool ts_mark_stale(uint64_t start_ns, const struct ts_sock *s, uint64_t sweep, uint64_t now_ns);

/* ACK storm on one flow's per-interval deltas. */
struct ts_storm_cfg {
	uint64_t min_segs;		/* data segments in the interval to judge at all */
	double min_acks_per_seg;
	double min_owned_ratio;
};
#define TS_STORM_CFG_DEFAULT { .min_segs = 200, .min_acks_per_seg = 0.9, .min_owned_ratio = 0.9 }

struct ts_storm {
	double acks_per_seg;
	double owned_ratio;		/* ACKs sent while owned / segments processed while owned */
	bool storm;
	const char *causes[4];
	int ncauses;
};

void ts_judge_acks(const struct ts_acks *delta, uint8_t defer, const struct ts_storm_cfg *cfg,
		   struct ts_storm *out);
/* b - a, field by field (cumulative counters; CPU masks and defer taken from b). */
void ts_acks_delta(const struct ts_acks *a, const struct ts_acks *b, struct ts_acks *out);

/* CPU placement of a busy flow in one interval (the dst refcount false-sharing setting). */
struct ts_placement {
	bool busy;
	bool cross_cpu;		/* softirq CPUs and application CPUs never meet */
	bool split_softirq;	/* segments processed in softirq on several CPUs */
	double backlog_share;	/* segments processed from the backlog */
	uint64_t softirq_cpus, app_cpus;
};

/* d: the interval's deltas, masks valid when d->epoch == epoch. */
void ts_judge_placement(const struct ts_acks *d, uint32_t epoch, uint64_t min_segs,
			struct ts_placement *out);

/*
 * --fix=kick. A socket is kicked when its latest sample is tsq_idle: at
 * once in each new stall (a server's socket can stall on every response),
 * and within one stall not more often than once per gap (a kick that did
 * not help is not repeated at the sweep rate); at most batch sockets per
 * sweep (the BPF map's size, and a bound on the cost of one pass).
 */
#define TS_KICK_GAP_MS		200
struct ts_kick_cfg {
	uint64_t gap_ns;
	unsigned int batch;
	/* NETMEDIC_TEST_KICK (a test aid): any socket with unsent data, not only tsq_idle */
	bool any_state;
};
#define TS_KICK_CFG_DEFAULT { .gap_ns = TS_KICK_GAP_MS * 1000000ULL, .batch = TS_KICK_BATCH }

/*
 * state: ts_classify() of the sample; stall_ns: the start of the stall it
 * is in (ts_sock.stall_start_ns, 0: none); kicked_stall_ns: the stall of
 * the last kick; queued: sockets already chosen in this sweep.
 */
bool ts_kick_wanted(enum ts_state state, uint64_t stall_ns, uint64_t kicked_stall_ns,
		    uint64_t last_kick_ns, uint64_t now_ns, unsigned int queued,
		    const struct ts_kick_cfg *cfg);

/* What became of one kick: counted by result in JSON and the metrics. */
enum ts_kick_result {
	TS_KICK_DONE,		/* pushed, and TCP_NODELAY is back to its old value */
	TS_KICK_FAILED,		/* a helper failed: see the error */
	TS_KICK_SKIPPED,	/* the socket was gone, or its TCP_NODELAY changed meanwhile */
	TS_KICK_NRESULTS,
};
const char *ts_kick_result_name(enum ts_kick_result r);
/* The result of a kick from how far the iterator got. */
enum ts_kick_result ts_kick_result(const struct ts_kick *k);

/*
 * The journal's record of a kick: a plan (lib/journal.h, kind "sockopt"),
 * fields "tcp", netns, family (4|6), local address, local port, remote
 * address, remote port, "TCP_NODELAY", old value. bufs holds the strings;
 * fields gets TS_KICK_FIELDS pointers and a NULL.
 */
#define TS_KICK_FIELDS		9
void ts_kick_record(const struct ts_key *k, int nodelay, char bufs[TS_KICK_FIELDS][64],
		    const char *fields[TS_KICK_FIELDS + 1]);
/* The key and old value back from those fields: 0, or -EBADMSG. */
int ts_kick_parse(const char *const *fields, int nfields, struct ts_key *k, int *nodelay);

/*
 * --fix=routes: an `ip route show` line (cut up in place) as the argv of
 * `ip route replace` with the same route, quickack dropped unless
 * keep_quickack, and the flags ip prints but does not take back left out.
 * argv holds TS_ROUTE_WORDS; room is left for "-6" after "ip". Returns the
 * argc; argv[argc] is NULL.
 */
#define TS_ROUTE_WORDS	48
int ts_route_argv(char *line, const char **argv, bool keep_quickack);

#endif
