/* SPDX-License-Identifier: GPL-2.0 */
/*
 * tcpstall_report.h - what one tcpstall report holds, and the rows its
 * sinks read: the interval's flows (their ACK deltas judged and ranked,
 * worst first), the stalls that ended in it, the swept samples by state
 * and the stall totals since the start. From them come --fix's flows
 * (tcpstall/plan.h), the report's share of the interval record,
 * and the struct nm_emit (lib/emit.h) that nm_run writes.
 *
 * No BPF and no I/O of its own: the loader collects into it (sweeps,
 * episodes, the ACK flow table) and hands it the sockets it tracks; the
 * socket rows' cgroup names may walk the cgroup2 tree (lib/cgpath.h).
 */
#ifndef NETMEDIC_TCPSTALL_REPORT_H
#define NETMEDIC_TCPSTALL_REPORT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include "tcpstall/tcpstall.h"
#include "tcpstall/judge.h"
#include "tcpstall/plan.h"
#include "lib/emit.h"
#include "lib/htab.h"
#include "tcpstall/records.h"

/* ended stalls listed in one interval's JSON (stall records); more are counted */
#define TS_REPORT_ENDED	1024
/* rows in each part of the table, and flows in JSON beyond those that matter (--top) */
#define TS_REPORT_TOP	10
/* sockets unseen this many sweeps are dropped from memory */
#define TS_FORGET_SWEEPS	100

/* A stall that ended in the interval: its stall record. */
struct ts_ended {
	struct ts_key key;
	uint64_t start_ns;	/* CLOCK_MONOTONIC */
	uint64_t dur_ns;
	uint8_t cause;		/* enum ts_state */
	uint8_t end;		/* enum ts_end */
	const char *by;		/* what measured it: "sweep" or "tcp_push" (the hooks' episode) */
};

/* A flow with ACKs or data in the interval: its deltas and their verdicts. */
struct ts_flow {
	struct ts_key key;
	uint64_t sk;			/* the socket's address */
	uint32_t slot;			/* its slot in the ACK flow table */
	struct ts_acks delta;
	struct ts_storm j;
	struct ts_placement place;
};

/*
 * The keys --sort ranks the ACK flows by, each most first, after the
 * storms (which always come first): ACKs sent (the default), data
 * segments, ACKs per segment, the owned ratio, backlog drops. Ties go by
 * ACKs sent, then by the flow, so that each report's order is the same.
 */
enum ts_sort {
	TS_SORT_ACKS,
	TS_SORT_SEGS,
	TS_SORT_RATIO,
	TS_SORT_OWNED,
	TS_SORT_DROPS,
	TS_NR_SORTS,
};
extern const char *const ts_sort_names[TS_NR_SORTS];

/* A netns's share of the metrics (ts_netns_row), kept while its netns is. */
struct ts_ns_stats {
	struct ts_totals tot;		/* its ended stalls, since the start */
	uint64_t acks_sent, acks_owned, data_segments;
	/* a report's, made by ts_report_ns_rows */
	uint64_t stalled_now[TS_NSTATES];
	uint64_t storms, cross;
};

/* namespaces with metrics of their own; those beyond count in no netns's */
#define TS_REPORT_NS_MAX	1024

/* A flow's counters at the last report, and the report that last saw it in the table. */
struct ts_prev_acks {
	struct ts_acks a;
	uint64_t report;
};

struct ts_report {
	/* the loader's, set once */
	struct nm_htab *socks;		/* ts_key -> ts_sock: the sockets the sweeps track */
	struct nm_htab *prev_acks;	/* socket address -> struct ts_prev_acks */
	uint32_t threshold_ms;
	const struct ts_storm_cfg *storm;
	bool hist;			/* -H: the table ends with the stalls' durations */
	/*
	 * What the sinks carry: without all, the sockets stalled in the
	 * interval and the flows that matter (ts_flow_matters) or rank in
	 * the top (0: TS_REPORT_TOP); the interval record counts the rest.
	 * With all (--all), every socket tracked and every flow.
	 */
	bool all;
	size_t top;
	enum ts_sort sort;		/* --sort: what the flows after the storms are ranked by */
	/* whether a netns went (NULL: none ever): its ACK flows are not reported */
	bool (*gone)(unsigned long ino, void *arg);
	void *gone_arg;
	/*
	 * Host-wide (per_ns): each netns's metrics its own, labelled by
	 * name; else (one --netns) all in one, labelled netns="INODE" with
	 * prom_netns. Set before the first sample.
	 */
	bool per_ns, prom_netns;
	uint64_t self_ino;		/* the netns tcpstall runs in */
	/* a netns's name for the rows (NULL: its inode) */
	const char *(*ns_name)(void *arg, unsigned long ino, char *buf, size_t len);
	void *ns_arg;
	/* the socket rows' cgroup paths (NULL: none, "?"); freed with the report */
	struct nm_cgpaths *cgroups;
	/* since the start: ts_track's, and the ACK flow table's (ts_report_acks) */
	struct ts_totals tot;
	uint64_t acks_sent, acks_owned, data_segments;
	/* per netns (per_ns) or the one (not): netns inode -> struct ts_ns_stats * */
	struct nm_htab *ns;
	struct ts_ns_stats one;		/* the one netns's (not per_ns), and those over the cap */
	unsigned long ns_over;		/* namespaces that found the table full */
	struct ts_totals ended_tot;	/* ts_track's, until added to the above: zero between calls */
	uint64_t reports;		/* ACK table reads so far: marks the prev_acks seen */
	size_t acks_present;		/* slots holding a socket at the last read */
	/* the interval's, emptied by ts_report_next */
	uint64_t samples[TS_NSTATES];	/* swept samples by state */
	struct ts_ended ended[TS_REPORT_ENDED];
	size_t nended;
	uint64_t ended_dropped;		/* ... beyond TS_REPORT_ENDED: counted, not listed */
	/* the report's, from ts_report_flows_start on */
	struct ts_flow *flows;
	size_t nflows, capflows;
	size_t storms, cross;
	uint64_t now_ns;		/* CLOCK_MONOTONIC: the rows' ages are taken at it */
	uint64_t since_ns;		/* ... the last report's: the interval began then (0: the start) */
	struct ts_fix_flow *fix;	/* ts_report_fix_flows' */
	size_t capfix;
	struct nm_emit_hist hists[TS_NSTATES];
	struct ts_netns_row *ns_rows;	/* the textfile's, one per netns */
	size_t nns_rows, capns_rows;
};

/* The report's per-netns table, before the first sample: 0 or -ENOMEM. */
int ts_report_init(struct ts_report *r);

/*
 * A netns that went: its sockets and its metrics are forgotten, quietly
 * (no stall is ended for them).
 */
void ts_report_drop_netns(struct ts_report *r, unsigned long ino);
/*
 * The sockets of every netns gone says went (and its stats), as
 * ts_report_drop_netns: also those of a netns the tool never swept itself
 * (its sockets found by the host-wide fast sweep). The namespaces dropped.
 */
size_t ts_report_drop_gone(struct ts_report *r, bool (*gone)(unsigned long ino, void *arg), void *arg);
/*
 * What the loop tells the report once the sweeps' set has followed the
 * scope: the namespaces the set dropped (gone, n), then, with went, every
 * other one went says went. Both as above.
 */
void ts_report_forget(struct ts_report *r, const unsigned long *gone, size_t n,
		      bool (*went)(unsigned long ino, void *arg), void *arg);

/*
 * One swept sample of the sweep numbered sweep: its socket tracked (a
 * stall that ended listed), counted by state (in *state). The socket's
 * memory, NULL when the table is full.
 */
struct ts_sock *ts_report_sample(struct ts_report *r, const struct ts_sample *smp, uint64_t sweep,
				 enum ts_state *state);
/* A tsq_idle episode that tcp_push/tcp_wfree measured, from start_ns to end_ns. */
void ts_report_episode(struct ts_report *r, const struct ts_key *k, uint64_t start_ns,
		       uint64_t end_ns);
/*
 * After the sweep numbered sweep, at now_ns: the sockets it missed have
 * nothing unsent (or are gone), their stalls end; those missed for
 * TS_FORGET_SWEEPS are forgotten.
 */
void ts_report_gone(struct ts_report *r, uint64_t sweep, uint64_t now_ns);

/* A stall of s that ended, dur_ns long, measured by by. */
void ts_report_ended(struct ts_report *r, const struct ts_key *k, const struct ts_sock *s,
		     uint64_t dur_ns, const char *by);

/* A report begins at now: no flows yet. */
void ts_report_flows_start(struct ts_report *r, uint64_t now_ns);
/*
 * A flow of slot: cur its counters now, d since the last report, judged
 * with the CPU masks of epoch. False when out of memory (it is not added).
 */
bool ts_report_flow(struct ts_report *r, const struct ts_acks *cur, const struct ts_acks *d,
		    uint32_t slot, uint32_t epoch);
/*
 * The ACK flow table's n slots, read in place: each socket's deltas since
 * the last read added to the totals, those with ACKs or data become flows
 * (judged with the CPU masks of epoch), and the flows no slot holds now
 * are forgotten. False when out of memory (the read stopped there).
 */
bool ts_report_acks(struct ts_report *r, const struct ts_acks *slots, uint32_t n, uint32_t epoch);
/* The flows worst first: storms, then by r->sort (ts_sort), ties as it says. */
void ts_report_rank(struct ts_report *r);

/* A flow worth a record whatever its rank: in a storm, on crossed CPUs, or softirq split. */
bool ts_flow_matters(const struct ts_flow *f);
/* Whether the sinks carry the ranked flow at index i (after ts_report_rank). */
bool ts_report_flow_shown(const struct ts_report *r, size_t i);
/*
 * Whether the sinks carry socket s: stalled now, or a stall of it ended
 * in the interval (every socket tracked, with all).
 */
bool ts_report_socket_shown(const struct ts_report *r, const struct ts_sock *s);

/*
 * One slot of the ACK flow table, copied: false when it holds no socket,
 * or changed hands during the copy (the BPF side keeps writing it).
 */
bool ts_acks_read(const struct ts_acks *slot, struct ts_acks *cur);

/*
 * --fix's flows, in r->fix: the flows in a storm or on crossed CPUs whose
 * slot (in acks) still holds their socket, then the sockets stalled in
 * tsq_idle now, then the tsq_idle stalls that ended in the interval. Their number.
 */
size_t ts_report_fix_flows(struct ts_report *r, const struct ts_acks *acks);

/*
 * The interval record's fields that come from the report: the sockets
 * stalled now, the flows, the samples, the ended stalls.
 */
void ts_report_interval(const struct ts_report *r, struct ts_interval_row *ir);

/*
 * The textfile's netns rows (r->ns_rows): each netns's totals, its
 * sockets stalled now and its storms of this report's flows; host-wide
 * those of each netns that has any, labelled by name, else the one.
 * Their number (a row that finds no memory is left out).
 */
size_t ts_report_ns_rows(struct ts_report *r);

struct ts_kick_stats;	/* tcpstall/act.h */

/*
 * What the loader collected for the interval record beyond the report's
 * own: the sweeps, the BPF side's counters, the ACK totals, the kicks.
 */
struct ts_interval_in {
	uint64_t time;			/* Unix time */
	uint64_t sweeps;
	uint64_t sweep_wait_ns;		/* the wait after the last sweep */
	uint64_t ack_untracked;		/* events of sockets that found both their slots held */
	uint64_t counters[TS_CNT_MAX];	/* the BPF side's, summed over CPUs */
	bool episodes;			/* tcp_push/tcp_wfree measure tsq_idle episodes */
	bool kicker;			/* the kick timer's thread was started */
	bool kick;			/* --fix=kick kicks here (ts_kick, or pidfd_getfd) */
	const struct ts_kick_stats *kicks;	/* what became of the kicks */
	bool prom_netns;		/* --prom-netns (one netns) */
	uint64_t netns;
	uint64_t netns_named, netns_swept, netns_over;	/* the scope's */
};

/*
 * The whole interval record, JSON's and the textfile's: the report's
 * share (ts_report_interval, the ACK totals) and in's. The episode counters only where
 * the episodes are measured, the kick timer's where its thread runs.
 */
void ts_report_interval_row(const struct ts_report *r, const struct ts_interval_in *in,
			    struct ts_interval_row *ir);

/*
 * The sinks' rows: ir, the ended stalls, the sockets worth a line (stalled
 * now or once; the table's at most TS_REPORT_TOP), each flow's ACKs (with
 * its placement in JSON when busy); the table's two parts and, with -H,
 * a histogram per cause that had stalls; ir's textfile families. The map
 * is the loader's. r and ir are read while the sinks write.
 */
void ts_report_emit(struct ts_report *r, struct nm_emit *e, const struct ts_interval_row *ir);

/*
 * The first line's words after the interval, from its start record: the
 * sweeps, what tags senders, the netns, --fix (fix), the kick and what
 * missing privileges lost.
 */
void ts_report_first_what(const struct ts_start_row *r, bool fix, char *what, size_t len);

/* After the sinks: the next interval's samples and ended stalls start from none. */
void ts_report_next(struct ts_report *r);
void ts_report_free(struct ts_report *r);

#endif
