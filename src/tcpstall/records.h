/* SPDX-License-Identifier: GPL-2.0 */
/*
 * tcpstall's records, each defined once as a field table (lib/record.h):
 * start, interval (with the textfile's tcpstall_ metrics), an ended stall,
 * a socket, a flow's ACKs and its CPU placement. Rows are filled from the
 * tracked sockets and judged flows (ts_track, ts_judge_acks...), verdicts
 * included, never recomputed in a sink.
 */
#ifndef NETMEDIC_TCPSTALL_RECORDS_H
#define NETMEDIC_TCPSTALL_RECORDS_H

#include <stdbool.h>
#include <stdint.h>
#include "tcpstall/tcpstall.h"
#include "tcpstall/judge.h"
#include "lib/cgpath.h"
#include "lib/hist.h"
#include "lib/hooks.h"
#include "lib/nsreg.h"
#include "lib/record.h"

struct ts_start_row {
	const char *tool, *kernel;
	const struct nm_hook *hooks;	/* hooks, refused and lost */
	int nhooks;
	double interval;
	const char *netns;		/* the scope: "all", or the --netns names */
	const char *names_lost;		/* what missing privileges lost ("": nothing) */
	uint64_t threshold_ms, sweep_ms, full_sweep_ms;
	const char *full_sweep_by;
	uint64_t sweep_cpu_budget_pct;
	const char *senders_tagged_by;
	bool kick;			/* --fix=kick's kick is loaded: the two below */
	const char *kick_at, *kicker;
};

/* "attempted" (their sum), then a count per enum ts_kick_result */
#define TS_KICK_COUNTS	(TS_KICK_NRESULTS + 1)
extern const char *const ts_kick_count_names[TS_KICK_COUNTS];

/*
 * One report: its JSON record, and the textfile's tcpstall_ metrics that
 * are not a netns's (ts_netns_row).
 */
struct ts_interval_row {
	uint64_t time;
	uint64_t sweeps;
	double sweep_wait_ms;
	uint64_t sockets_stalled, ack_flows, ack_untracked_events, ack_storm_flows;
	/* the tracked sockets and the interval's flows the sinks left out (without --all) */
	uint64_t sockets_not_shown, ack_flows_not_shown;
	uint64_t cross_cpu_flows;
	uint64_t samples[TS_NSTATES];	/* swept samples by state, this interval */
	uint64_t stalls_ended, stalls_unlisted;
	bool episodes;			/* the tsq_idle episode hooks run */
	uint64_t tsq_episodes, tsq_episodes_lost;
	bool kicker;			/* the kick timer's thread runs */
	uint64_t kick_due, kick_due_lost;
	uint64_t kicks[TS_KICK_COUNTS];	/* since start */
	bool kick;			/* --fix=kick's kick is loaded */
	double kick_age_max_ms, kick_age_mean_ms;
	/* the scope's bounds: namespaces named, swept in full, and what did not fit */
	uint64_t netns_named, netns_swept, netns_over;
	/* the textfile only */
	bool prom_netns;		/* --prom-netns (one netns): the netns label */
	uint64_t netns;
	uint64_t backlog_drops;
	double kick_age_max_seconds;
};

/*
 * One netns's tcpstall_ metrics: its stalls, ACKs and storms. Host-wide,
 * one row per netns, labelled with its name; with one --netns, one row,
 * labelled with its inode where --prom-netns asks.
 */
struct ts_netns_row {
	char netns[NM_NS_NAME];		/* the label's value */
	bool labelled;
	uint64_t stalls[TS_NSTATES];	/* ended stalls by cause, since start */
	uint64_t stalled_now[TS_NSTATES];	/* sockets stalled now, by cause */
	uint64_t hist_us[TS_NSTATES][NM_HIST_SLOTS];	/* ended stalls' durations */
	double stall_seconds[TS_NSTATES];	/* ... their sums */
	uint64_t ack_storm_flows;	/* this interval */
	uint64_t cross_cpu_flows;	/* this interval */
	uint64_t acks_sent, acks_owned, data_segments;	/* since start */
};

/* A flow's keys, as every flow record begins, and the table's NETNS and FLOW. */
struct ts_flow_cols {
	char netns[NM_NS_NAME];		/* its name */
	uint64_t netns_ino;
	char saddr[48], daddr[48];
	uint32_t sport, dport;
	const char *proto;
	char flow[128];			/* LOCAL:PORT>REMOTE:PORT, IPv6 in brackets */
};

struct ts_stall_row {
	struct ts_flow_cols flow;
	uint32_t cause;			/* enum ts_state */
	double ms;
	uint64_t start_mono_ns;
	double time;			/* its start, Unix time */
	uint32_t end;			/* enum ts_end */
	const char *by;
};

struct ts_socket_row {
	struct ts_flow_cols flow;
	uint32_t state;			/* enum ts_state: the stall's cause, or the last sample's */
	bool stalled;
	double stalled_ms;
	uint64_t stalls;
	double stall_ms_total, stall_ms_max;
	uint32_t last_cause;		/* enum ts_state */
	uint32_t last_end;		/* enum ts_end */
	uint64_t unsent, packets_out, cwnd, snd_wnd, tsq_flags, wmem_alloc, send_age_ms;
	char cgroup[NM_CG_PATH];	/* cgroup_id's path (lib/cgpath.h), "?" without one */
	uint64_t cgroup_id, pid;
	char comm[16];
	uint64_t kicks;
	const char *last_kick;
};

struct ts_acks_row {
	struct ts_flow_cols flow;
	uint64_t acks_out, data_segs_in;
	double acks_per_seg;
	uint64_t acks_owned, segs_owned;
	double owned_ratio;
	uint64_t backlog_drops, pid;
	char comm[16];
	bool storm;
	const char *causes[4];
	uint32_t ncauses;
};

struct ts_placement_row {
	struct ts_flow_cols flow;
	uint64_t data_segs_in;
	uint64_t softirq_cpus, app_cpus;	/* bitmaps */
	double backlog_share;
	bool cross_cpu, split_softirq;
};

extern const struct nm_record ts_start_rec, ts_interval_rec, ts_stall_rec, ts_socket_rec,
	ts_acks_rec, ts_placement_rec, ts_netns_rec;
/* Every record of the tool, for the docs' test. */
extern const struct nm_record *const ts_records[];
extern const int ts_nrecords;

/* Each row's flow: k, in the netns named netns (k->netns its inode). */
void ts_flow_cols(struct ts_flow_cols *c, const struct ts_key *k, const char *netns);
/*
 * An ended stall, measured by "by", at now (CLOCK_MONOTONIC) and realtime
 * (the wall clock then, in seconds).
 */
void ts_stall_row(struct ts_stall_row *r, const struct ts_key *k, const char *netns,
		  uint64_t start_ns, uint64_t dur_ns, enum ts_state cause, enum ts_end end,
		  const char *by, uint64_t now, double realtime);
/*
 * A tracked socket at now, its last sample classified with threshold_ms;
 * cgroup: the path of its cgroup id, NULL when it has none.
 */
void ts_socket_row(struct ts_socket_row *r, const struct ts_key *k, const char *netns,
		   const struct ts_sock *s, const char *cgroup, uint64_t now, uint32_t threshold_ms);
/* A flow's deltas of the interval and their verdicts. */
void ts_acks_row(struct ts_acks_row *r, const struct ts_key *k, const char *netns,
		 const struct ts_acks *d, const struct ts_storm *j);
void ts_placement_row(struct ts_placement_row *r, const struct ts_key *k, const char *netns,
		      const struct ts_acks *d, const struct ts_placement *p);

#endif
