/* SPDX-License-Identifier: GPL-2.0 */
/*
 * xpsflap's records, each defined once as a field table (lib/record.h):
 * the start and interval records, a flow, and a device queue's totals.
 * Rows are filled from judged entries (xf_judge()), never recomputed here.
 */
#ifndef NETMEDIC_XPSFLAP_RECORDS_H
#define NETMEDIC_XPSFLAP_RECORDS_H

#include <stdbool.h>
#include <stdint.h>
#include "xpsflap/judge.h"
#include "lib/hooks.h"
#include "lib/record.h"

struct xf_start_row {
	const char *tool, *kernel;
	const struct nm_hook *hooks;	/* hooks, refused and lost */
	int nhooks;
	double interval;
	const char *devices;
	uint64_t max_flows;
	bool pin;
	const char *netns;		/* the scope: "all", or the --netns names */
	const char *names_lost;		/* what missing privileges lost of the names, or "" */
};

struct xf_interval_row {
	uint64_t time;
	uint64_t flows_active, flows_flapping, flows_tracked, max_flows;
	uint64_t flows_not_shown;	/* active flows the table and JSON left out */
	uint64_t flows_link_local;	/* active link-local control flows left out (--link-local) */
	uint64_t evictions, untracked_picks, parsed_skbs, one_queue_picks;
	uint64_t out_of_scope_skbs;
	uint64_t netns_named, netns_over, devices_over;	/* the scope's (lib/scope.h) */
	uint64_t dev_slot_misses;	/* flows that found every device slot taken */
};

struct xf_flow_row {
	char dev[32];
	char netns[64];			/* the netns's name (lib/scope.h) */
	uint64_t netns_ino;
	char saddr[48], daddr[48];
	uint32_t sport, dport;
	char proto[8];
	bool has_sk;
	uint64_t packets, bytes;
	uint64_t queues;		/* bitmap */
	uint32_t last_queue;
	uint64_t switches, risky_switches, in_flight_bytes, reordered;
	uint64_t cpus;			/* bitmap */
	uint32_t interval_switches;
	bool flapping;
	char flow[128];			/* the table's FLOW */
};

/* A device's TX queue: its totals since start. */
struct xf_dev_row {
	char netns[64];
	char device[32];
	uint32_t queue;
	uint64_t packets, bytes, switches, risky_switches, reordered;
};

extern const struct nm_record xf_start_rec, xf_interval_rec, xf_flow_rec, xf_dev_rec;
/* Every record of the tool, for the docs' test. */
extern const struct nm_record *const xf_records[];
extern const int xf_nrecords;

/* A judged entry as a row; dev is its device's name, netns its netns's. */
void xf_flow_row(struct xf_flow_row *r, const struct xf_entry *e, const char *dev,
		 const char *netns);

#endif
