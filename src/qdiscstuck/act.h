/* SPDX-License-Identifier: GPL-2.0 */
/*
 * qdiscstuck's act step: the remedies' levers, pulled by the one executor
 * (lib/plan.c). A kick puts one frame on a TX queue (AF_PACKET, through the
 * qdisc: its enqueue runs the qdisc again) and reads from the BPF side's
 * count where it went; a lock check reads the qdisc a queue runs and makes
 * what qs_lock_plan says of it (a locked pfifo in place of pfifo_fast,
 * journaled first, undone at exit or by `qdiscstuck --cleanup`).
 */
#ifndef NETMEDIC_QDISCSTUCK_ACT_H
#define NETMEDIC_QDISCSTUCK_ACT_H

#include <stddef.h>
#include <stdint.h>
#include "qdiscstuck/plan.h"
#include "lib/cli.h"
#include "lib/fixes.h"
#include "lib/plan.h"

struct qs_act {
	const struct nm_opts *o;	/* --netns, --json, and the lines' prefix */
	int txqs_fd;			/* the BPF map of kick frames seen per TX queue */
	struct nm_exec x;		/* the executor: kicks, lock checks, the lock's journal */
};

/* --list-fixes: kick, lock, and the struct_ops lever not used yet. */
#define QS_NFIXES	3
extern const struct nm_fix qs_fixes[QS_NFIXES];

void qs_act_init(struct qs_act *qa, const struct nm_opts *o);
/*
 * --kick's or --lock's (opt) DEV:QUEUE, after --netns: dev (IF_NAMESIZE),
 * its ifindex and the queue. 0, or a usage error (said): no such device
 * or queue.
 */
int qs_act_resolve(const struct qs_act *qa, const char *arg, const char *opt, char *dev,
		   unsigned int *ifindex, unsigned int *queue);
/* --kick DEV:QUEUE, the one-shot: 0, or an exit code (said). */
int qs_act_kick(struct qs_act *qa, const char *dev, unsigned int ifindex, unsigned int queue);
/* --lock DEV:QUEUE: 0 once replaced, else an exit code (said: not lockless, not empty). */
int qs_act_lock(struct qs_act *qa, const char *dev, unsigned int ifindex, unsigned int queue);
/* A sweep's remedies: qs_fix_plan of its rows, carried out. */
void qs_act_remedies(struct qs_act *qa, const struct qs_fix_row *rows, size_t n, unsigned int fix,
		     uint64_t now_ns);
/* Undoes the locks: 0, or NM_EXIT_RUNTIME when something is not restored (said). */
int qs_act_stop(struct qs_act *qa);

#endif
