/* SPDX-License-Identifier: GPL-2.0 */
/*
 * tcpstall_collect.h - what tcpstall's loader reads from its BPF side into
 * the report (tcpstall/report.h): the tsq_idle episodes that ended,
 * the ACK flow table read in place, the per-CPU counters; and the report
 * set up from the options.
 *
 * It takes the maps' fds, the table's mapping and the .bss word it
 * advances, not the skeleton: lib objects are built without the tools'
 * skeletons (the Makefile, and the fuzz build). The loader binds them
 * once loaded.
 */
#ifndef NETMEDIC_TCPSTALL_COLLECT_H
#define NETMEDIC_TCPSTALL_COLLECT_H

#include <stddef.h>
#include <stdint.h>
#include "tcpstall/tcpstall.h"
#include "lib/emit.h"
#include "lib/scope.h"
#include "tcpstall/ns.h"
#include "tcpstall/opts.h"
#include "tcpstall/report.h"

/* sockets the sweeps track at most */
#define TS_MAX_SOCKS	65536

struct ts_collect {
	/* the loader's, bound to its skeleton once loaded */
	int counters_fd;		/* the per-CPU counters, TS_CNT_* */
	int episodes_fd;		/* tsq_episodes: the episodes tcp_push/tcp_wfree ended */
	uint32_t *epoch;		/* the BPF side's interval, in its .bss */
	const struct ts_acks *acks;	/* the BPF acks array, mapped read-only */
	size_t acks_len;
	uint32_t max_flows;		/* its slots (--max-flows) */
	/* each report's */
	uint64_t acks_untracked;	/* events of sockets that found both their slots held */
};

/*
 * The report's settings from the options (pure): one --netns keeps its
 * metrics as they always were, else each netns has its own, by name.
 */
void ts_collect_settings(struct ts_report *rep, const struct ts_env *env);

/*
 * The report's tables and settings, its names and gone namespaces from
 * scope, its cgroup paths: 0, or -ENOMEM (what was made is the report's,
 * for ts_report_free and nm_htab_free).
 */
int ts_collect_report_init(struct ts_report *rep, const struct ts_env *env, struct nm_scope *scope);

/*
 * The tsq_idle episodes that tcp_push/tcp_wfree measured and ended
 * become stalls. Before each sweep, so that an episode's exact end comes
 * before the sweep that sees the socket sending again.
 */
void ts_collect_episodes(const struct ts_collect *c, struct ts_report *rep);

/* The ACK flow table's deltas into rep; the BPF side's interval moves on when CPU masks restart. */
void ts_collect_acks(struct ts_collect *c, struct ts_report *rep);

/*
 * in's share of what was collected: the counters, and the scope's figures
 * (the netns named, those with a way in, those over a cap: the registry's
 * and nss's).
 */
void ts_collect_interval(const struct ts_collect *c, const struct nm_scope *scope,
			 const struct ts_nsset *nss, struct ts_interval_in *in);

/* The scope's figures of in, from its counts (pure). */
void ts_collect_scope_in(const struct nm_scope_counts *sc, size_t swept, unsigned long nss_over,
			 struct ts_interval_in *in);

/* The textfile's ACK flow table fill (pure): its slots held, evicted and missed. */
struct nm_emit_map ts_collect_acks_map(size_t present, uint32_t max_flows, uint64_t evicted,
				       uint64_t untracked);

/* What a report holds (ts_report_emit); with a textfile (prom), the ACK flow table's fill. */
void ts_collect_emit(const struct ts_collect *c, struct ts_report *rep, struct nm_emit *e,
		     const struct ts_interval_row *ir, bool prom);

#endif
