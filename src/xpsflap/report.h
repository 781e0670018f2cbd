/* SPDX-License-Identifier: GPL-2.0 */
/*
 * xpsflap_report.h - what one xpsflap report holds, and the rows its sinks
 * read: the flows of the table's copy, judged and ranked worst first, those
 * shown (the flapping ones and the top N, or with all every active one),
 * the interval record that counts the rest, and every device queue's
 * totals for the textfile, kept monotonic across reports.
 *
 * No BPF and no I/O: the loader copies the flow table and the per-queue
 * totals into it, and hands it the names of namespaces and devices.
 */
#ifndef NETMEDIC_XPSFLAP_REPORT_H
#define NETMEDIC_XPSFLAP_REPORT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include "xpsflap/xpsflap.h"
#include "xpsflap/judge.h"
#include "lib/emit.h"
#include "lib/scope.h"
#include "xpsflap/records.h"

/* flows shown besides the flapping ones, when --top is not given */
#define XF_REPORT_TOP		20
#define XF_REPORT_DEV_ROWS	(XF_DEV_SLOTS * XF_DEV_QUEUES)

/* A device's own name in its own netns, and a netns's name (the loader's: lib/scope.h). */
typedef const char *(*xf_dev_name_fn)(void *arg, unsigned long netns, unsigned int ifindex,
				      char *buf, size_t len);
typedef const char *(*xf_ns_name_fn)(void *arg, unsigned long netns, char *buf, size_t len);

struct xf_report {
	/* the loader's, set once */
	uint32_t min_switches;
	size_t top;			/* shown besides the flapping ones (0: XF_REPORT_TOP) */
	bool all;			/* --all: every active flow */
	bool link_local;		/* --link-local: link-local control flows too (xf_link_local) */
	enum xf_sort sort;		/* --sort: the key the top ones are ranked by */
	xf_dev_name_fn dev_name;
	xf_ns_name_fn ns_name;
	void *names;			/* their arg */
	/* the flow table's copy: xf_report_add's, from xf_report_start on */
	struct xf_entry *e;
	size_t n, cap;
	uint64_t counters[XF_CNT_MAX];
	uint64_t now_ns, since_ns;	/* the interval: flows active since since_ns */
	uint32_t epoch;			/* the interval being reported */
	/*
	 * xf_report_rank's: e[0, active) the active ones, e[0, shown) those
	 * shown; without link_local, the active link-local ones are left out
	 * of all of them, and counted (hidden)
	 */
	size_t active, flapping, shown, hidden;
	/*
	 * Per device slot and queue (--prom-file): the BPF totals summed
	 * over CPUs with the flows' unflushed counts, the device of each
	 * slot in use, and what each queue last showed (never going back).
	 */
	struct xf_dev_stats totals[XF_DEV_SLOTS][XF_DEV_QUEUES];
	struct xf_dev_stats prev[XF_DEV_SLOTS][XF_DEV_QUEUES];
	struct xf_dev_id slot_dev[XF_DEV_SLOTS];
	bool slot_used[XF_DEV_SLOTS];
	/* what the sinks read, after the step */
	struct xf_interval_row ival;
	struct xf_flow_row row;		/* the flow being written */
	struct xf_dev_row dev_rows[XF_REPORT_DEV_ROWS];
	size_t ndev_rows;
};

/* A new report's flows: the copy emptied (its memory kept). */
void xf_report_start(struct xf_report *r, uint64_t now_ns, uint32_t epoch);
/* Room for the next flow of the copy; NULL when out of memory. */
struct xf_entry *xf_report_add(struct xf_report *r);
/* The per-queue totals zeroed, before the BPF ones are summed into them. */
void xf_report_totals_clear(struct xf_report *r);
/* Slot's device, in use, as the BPF side names it. */
void xf_report_slot(struct xf_report *r, uint32_t slot, const struct xf_dev_id *id);
/* Queue q of slot's BPF totals, one per CPU (ncpu of them), added to its totals. */
void xf_report_queue_sum(struct xf_report *r, uint32_t slot, uint32_t q,
			 const struct xf_dev_stats *percpu, int ncpu);
/* Counts a flow had not flushed to its queue q of slot's device; queues from 63 share the last. */
void xf_report_unflushed(struct xf_report *r, uint32_t slot, uint32_t q, uint64_t packets,
			 uint64_t bytes);
/* Slot's device went: its state dropped, so that the next device starts from 0. */
void xf_report_slot_gone(struct xf_report *r, uint32_t slot);

/*
 * The judge step: the active flows first, judged, worst first by the
 * sort key; counted (active, flapping). Those shown come first: the top ones and the
 * flapping ones after them, in that order (all: every active one). Link-local
 * control flows are noise, not the device's traffic: left out here, before
 * the table, JSON and metrics, unless link_local asks for them.
 */
void xf_report_rank(struct xf_report *r);
/* Whether the i-th of the ranked active flows is shown. */
bool xf_report_shown(const struct xf_report *r, size_t i);

/* The interval record: the ranked report's counts, the scope's (c), the time. */
void xf_report_interval(struct xf_report *r, const struct nm_scope_counts *c, uint64_t time,
			uint64_t max_flows);
/* Every queue of every slot in use that counted anything: the textfile's rows. */
size_t xf_report_dev_rows(struct xf_report *r);
/*
 * What a report holds: the interval, the flows shown, and with prom the
 * textfile's queues and the flow table's fill. After xf_report_interval.
 */
void xf_report_emit(struct xf_report *r, struct nm_emit *e, bool prom);
/* After the sinks: the next picks count toward the next interval. */
void xf_report_next(struct xf_report *r);
void xf_report_free(struct xf_report *r);

#endif
