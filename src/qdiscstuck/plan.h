/* SPDX-License-Identifier: GPL-2.0 */
/*
 * qdiscstuck's remedy policy (--fix, --kick, --lock), pure: from one
 * sweep's rows, the plan that lib/plan.c's executor carries out. A stuck
 * queue is kicked (a frame, nothing to undo), then, with --fix=lock and a
 * lockless qdisc, checked and replaced by its locked twin (a tc command,
 * journaled). A driver_stopped queue is explained once per episode.
 * Remedies act only in the netns the tool runs in: a stuck queue of
 * another netns is not kicked, and that is said once per qdisc.
 */
#ifndef NETMEDIC_QDISCSTUCK_PLAN_H
#define NETMEDIC_QDISCSTUCK_PLAN_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include "qdiscstuck/judge.h"
#include "lib/plan.h"

/* --fix's words, in the order of their bits; the remedy of each action */
enum qs_fix {
	QS_FIX_KICK = 1,
	QS_FIX_LOCK = 2,
	QS_FIX_NOTE = 4,	/* the driver_stopped explanation: belongs to no --fix word */
};

#define QS_KICK_RETRY_NS	5000000000ULL	/* kick a qdisc that stays stuck again after 5 s */

/* What the plan keeps of one qdisc from sweep to sweep. Zero it to start. */
struct qs_fix_done {
	uint64_t last_kick_ns;	/* 0: never kicked */
	bool told;		/* driver_stopped explained in this episode */
	bool told_elsewhere;	/* said once: in another netns, not acted on */
};

/* One qdisc of a sweep, as the policy sees it. */
struct qs_fix_row {
	const struct qs_track *t;	/* NULL: not tracked, left alone */
	struct qs_fix_done *done;	/* its state across sweeps (the caller's) */
	const char *dev;		/* its device's name, as the lines print it */
	const char *netns;		/* its netns's name */
	bool elsewhere;			/* not the netns the tool runs in: no remedy acts on it */
	unsigned int ifindex;
	int txq;			/* -1: not one TX queue */
	bool lockless;
	uint32_t parent, handle;	/* which qdisc: two stuck on one queue are kicked each */
	uint32_t qlen, backlog;
};

/*
 * The remedies of one sweep at now_ns: fix is --fix's mask (0: the
 * explanations only, as --verbose gives them). Any --fix kicks a stuck
 * queue when qs_kick_due says so; --fix=lock then checks a lockless one
 * (a QS_FIX_LOCK call: the loader reads its qdisc after the kick and asks
 * qs_lock_plan). A row elsewhere that a remedy would have acted on gets
 * a note instead, once. Updates each row's done. 0, or -errno from the plan.
 */
int qs_fix_plan(const struct qs_fix_row *rows, size_t n, unsigned int fix, uint64_t now_ns,
		struct nm_plan *p);

/* A kick (--kick, or of --fix): an NM_ACT_CALL of QS_FIX_KICK, why its JSON's "why". */
int qs_plan_kick(struct nm_plan *p, const char *dev, unsigned int ifindex, unsigned int queue,
		 uint32_t parent, uint32_t handle, const char *why);
/* A lock check (--lock, or --fix=lock): an NM_ACT_CALL of QS_FIX_LOCK, tagged "lock". */
int qs_plan_lock_check(struct nm_plan *p, const char *dev, unsigned int ifindex, unsigned int queue);

/*
 * The queue a kick or a lock check is for: the action's data, put there by
 * qs_plan_kick and qs_plan_lock_check (its words only name it in the log).
 * 0, or -EINVAL for an action that is neither.
 */
struct qs_fix_target {
	char dev[32];
	unsigned int ifindex, queue;
};
int qs_fix_target(const struct nm_action *a, struct qs_fix_target *t);

/* The qdisc a TX queue runs, as the loader read it after the kick. */
struct qs_lock_facts {
	char kind[16];
	uint32_t parent, handle;
	uint32_t qlen, backlog;
	int limit;			/* the device's tx_queue_len */
};

/*
 * --lock on dev's queue: a note when its qdisc is not lockless, or holds
 * packets a replace would drop; else the tc command that puts the locked
 * twin in its place, its undo the one that puts the lockless one back
 * (qs_lock_cmds). 0 (a note or the command added), or -errno.
 */
int qs_lock_plan(const char *dev, unsigned int queue, const struct qs_lock_facts *f, struct nm_plan *p);

#endif
