/* SPDX-License-Identifier: GPL-2.0 */
/*
 * qdiscstuck's records, each defined once as a field table (lib/record.h):
 * start, interval, a qdisc, a kick, and a TX queue's metrics. Rows are
 * filled from the judged tracks (qs_update()), never recomputed here.
 */
#ifndef NETMEDIC_QDISCSTUCK_RECORDS_H
#define NETMEDIC_QDISCSTUCK_RECORDS_H

#include <stdbool.h>
#include <stdint.h>
#include "qdiscstuck/qdiscstuck.h"
#include "qdiscstuck/judge.h"
#include "lib/hooks.h"
#include "lib/record.h"
#include "lib/rtnl.h"

struct qs_start_row {
	const char *tool, *kernel;
	const struct nm_hook *hooks;	/* hooks, refused and lost */
	int nhooks;
	double interval;
	uint64_t threshold_ms;
	const char *devices;
	bool fix_kick, fix_lock;
	const char *netns;		/* the scope: "all", or the --netns names */
	const char *names_lost;		/* what missing privileges lost, or "" */
};

struct qs_interval_row {
	uint64_t time;
	uint64_t mono_ns;		/* the sweep's CLOCK_MONOTONIC */
	uint64_t qdiscs;
	uint64_t per_state[QS_NSTATES];
	uint64_t qdiscs_not_shown;	/* ok qdiscs the table and JSON left out (--top) */
	/* the namespaces dumped, and those not: over a cap, or failed */
	uint64_t netns_swept, netns_over, netns_failed;
	uint64_t devices_over;		/* devices not named (the scope's cap) */
	uint64_t qdiscs_over;		/* qdiscs of the dumps not judged (the sweep's cap) */
};

struct qs_qdisc_row {
	char dev[32];
	char netns[64];			/* the netns's name (lib/scope.h) */
	uint64_t netns_ino;
	char handle[16], parent[16], kind[16];
	int64_t txq;
	bool has_txq;			/* false: not one queue ("all") */
	uint64_t qlen, backlog_bytes;
	uint32_t state;			/* enum qs_state */
	uint64_t state_ms;
	bool state_since_start;		/* qs_state_since_start: state_ms is a lower bound */
	uint64_t txq_state;
	bool txq_state_known;
	char txq_state_names[48];
	double dequeue_rate, requeue_rate;
	uint64_t packets, drops, requeues;
	bool lockless, events;
	bool sampled;			/* the sampler saw it: the three below */
	bool scheduled, missed, running;
	int64_t watchdog_ms;		/* until the shaper's watchdog fires; negative: overdue */
	bool has_watchdog;
};

struct qs_kick_row {
	uint64_t mono_ns;		/* when the first frame went */
	char dev[32];
	uint32_t txq;
	bool reached;
	uint64_t attempts, stray;
	const char *why;
};

/* A TX queue (or "all" for a device-wide qdisc): its metrics. */
struct qs_queue_row {
	char device[32], netns[64], queue[16];
	double stuck_seconds;
	uint64_t backlog_packets, backlog_bytes;
	uint64_t entered[QS_NSTATES];
	uint32_t state;			/* the worst of its qdiscs at this sweep */
	bool present;			/* a qdisc of it was seen at this sweep */
};

extern const struct nm_record qs_start_rec, qs_interval_rec, qs_qdisc_rec, qs_kick_rec,
	qs_queue_rec;
/* Every record of the tool, for the docs' test. */
extern const struct nm_record *const qs_records[];
extern const int qs_nrecords;

/*
 * A judged qdisc as a row: its device's name, its netns's name and inode,
 * its netlink statistics, its track (after qs_update), the BPF record of
 * the qdisc its queue runs (NULL: no events), its TX queue (-1: not one)
 * and whether it is lockless, at now_ns.
 */
void qs_qdisc_row(struct qs_qdisc_row *r, const char *dev, const char *netns,
		  unsigned long netns_ino, const struct nm_qdisc_stats *nl,
		  const struct qs_track *t, const struct qs_qdisc *bpf, int txq, bool lockless,
		  uint64_t now_ns);

#endif
