/* SPDX-License-Identifier: GPL-2.0 */
/*
 * qdiscstuck_collect.h - the collection of one qdiscstuck sweep: the
 * rtnetlink qdisc dumps of every netns in scope (one kept socket each,
 * qdiscstuck/ns.h), the BPF records of the qdiscs and the counters,
 * and their join into the sweep's rows (qdiscstuck/report.h), which
 * are then judged.
 *
 * No skeleton: the loader gives the maps' file descriptors, and runs the
 * sampler itself before each sweep. The join of a row with the BPF
 * records (qs_join_row) is pure; the rest is the I/O around it.
 */
#ifndef NETMEDIC_QDISCSTUCK_COLLECT_H
#define NETMEDIC_QDISCSTUCK_COLLECT_H

#include <stdbool.h>
#include <stdint.h>
#include "qdiscstuck/judge.h"
#include "lib/cli.h"
#include "lib/htab.h"
#include "qdiscstuck/ns.h"
#include "qdiscstuck/report.h"
#include "lib/scope.h"

/* What the collection reads and keeps across sweeps: the loader's, set before qs_collect_init. */
struct qs_collect {
	const struct nm_opts *o;	/* --dev, the tool's netns; the lines */
	struct nm_scope *scope;		/* the namespaces swept, their devices' queues */
	int qdiscs_fd;			/* the BPF maps: qdiscs (by address), counters */
	int counters_fd;
	struct qs_ns_socks socks;	/* one rtnetlink socket per netns in scope */
};

/* The sockets' room. 0, or -ENOMEM. */
int qs_collect_init(struct qs_collect *c);
/* Closes every socket. */
void qs_collect_free(struct qs_collect *c);

/* --dev names devices of the netns the tool runs in: whether (netns, ifindex) is swept. */
bool qs_dev_selected(const struct nm_opts *o, unsigned long netns, unsigned int ifindex);

/*
 * Joins row r of s with the BPF record of the qdisc its TX queue runs,
 * found in idx (keyed by struct qs_qdisc_key; NULL: none known), and
 * says what the walk up learnt of its queue in f (zeroed by the caller).
 */
void qs_join_row(struct qs_sweep *s, struct qs_row *r, struct nm_htab *idx,
		 struct qs_txq_facts *f);

/*
 * One sweep's facts into s after the sampler ran: the dumps, the join with
 * the BPF records, the counters; the namespaces that left the scope in
 * c->socks.gone. Nothing judged: the caller judges (qs_sweep_judge). 0, or
 * NM_EXIT_RUNTIME when the tool's own netns could not be dumped (said).
 */
int qs_collect_sweep(struct qs_collect *c, struct qs_sweep *s);

#endif /* NETMEDIC_QDISCSTUCK_COLLECT_H */
