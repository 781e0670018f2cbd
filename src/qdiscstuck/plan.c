// SPDX-License-Identifier: GPL-2.0
/*
 * qdiscstuck's remedy policy: what to kick, check and replace, given one
 * sweep's rows. No I/O: the loader sends the kick, reads the qdisc a lock
 * check asks about, and hands the plans to lib/plan.c's executor.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "qdiscstuck/plan.h"

_Static_assert(sizeof(struct qs_fix_target) <= NM_ACT_DATA, "a queue fits an action's data");

/* t: the queue of a kick or a lock check, the action's data. -1: dev too long. */
static int fix_target(struct qs_fix_target *t, const char *dev, unsigned int ifindex,
		      unsigned int queue)
{
	*t = (struct qs_fix_target){ .ifindex = ifindex, .queue = queue };
	return snprintf(t->dev, sizeof(t->dev), "%s", dev) >= (int)sizeof(t->dev) ? -1 : 0;
}

/*
 * Why a queue the driver stopped is left alone, and who could wake it.
 * The target names the qdisc, so that two on one queue are told each.
 */
static int note_stopped(const struct qs_fix_row *r, uint64_t now, struct nm_plan *p)
{
	struct nm_action a = { .kind = NM_ACT_NOTE, .remedy = QS_FIX_NOTE };
	const char *who;
	char st[48];
	int n;

	if (r->t->txq_state & QS_TXQ_DRV_XOFF)
		who = "the driver stopped it (ring full) and has not completed a packet since: only its completion path (TX interrupt or NAPI poll) wakes it";
	else if (r->t->txq_state & QS_TXQ_STACK_XOFF)
		who = "BQL stopped it: the driver has not reported the completion of bytes in flight";
	else
		who = "the stack froze it (device reconfiguration in progress)";
	snprintf(a.target, sizeof(a.target), "%s %u %x:%x", r->elsewhere ? r->netns : "",
		 r->ifindex, r->parent, r->handle);
	n = snprintf(a.what, sizeof(a.what),
		     "%s tx-%d%s%s: driver_stopped for %llu ms with %u packets (%u bytes) queued, txq_state %s: %s. A kick cannot restart a stopped queue and netmedic does not try; the kernel offers no wake from userspace, only driver-level recovery (link down/up, device reset), which drops these packets: left to you",
		     r->dev, r->txq, r->elsewhere ? " in netns " : "", r->elsewhere ? r->netns : "",
		     (unsigned long long)qs_state_ms(r->t, now), r->qlen, r->backlog,
		     qs_txq_state_str(r->t->txq_state, st, sizeof(st)), who);
	if (n < 0 || n >= (int)sizeof(a.what))
		return -ENAMETOOLONG;
	return nm_plan_add(p, &a);
}

/* Explained once per episode: again only after the queue left that state. */
static int tell_stopped(const struct qs_fix_row *r, uint64_t now, struct nm_plan *p)
{
	int ret;

	if (r->t->state != QS_DRIVER_STOPPED) {
		r->done->told = false;
		return 0;
	}
	if (r->done->told)
		return 0;
	ret = note_stopped(r, now, p);
	if (ret)
		return ret;
	r->done->told = true;
	return 0;
}

/*
 * A stuck queue of another netns, which a remedy would have kicked: said
 * once per qdisc, with the --netns that would let it act there.
 */
static int tell_elsewhere(const struct qs_fix_row *r, struct nm_plan *p)
{
	int ret;

	if (r->done->told_elsewhere)
		return 0;
	ret = nm_plan_note(p, QS_FIX_KICK, "fix",
			   "%s tx-%d in netns %s: stuck, not acted on: remedies act only in the netns qdiscstuck runs in (--netns %s would)",
			   r->dev, r->txq, r->netns, r->netns);
	if (ret < 0)
		return ret;
	r->done->told_elsewhere = true;
	return 0;
}

int qs_fix_plan(const struct qs_fix_row *rows, size_t n, unsigned int fix, uint64_t now_ns,
		struct nm_plan *p)
{
	for (size_t i = 0; i < n; i++) {
		const struct qs_fix_row *r = &rows[i];
		int ret;

		if (!r->t)
			continue;
		ret = tell_stopped(r, now_ns, p);
		if (ret)
			return ret;
		if (!fix || r->txq < 0 ||
		    !qs_kick_due(r->t, r->done->last_kick_ns, now_ns, QS_KICK_RETRY_NS))
			continue;
		if (r->elsewhere) {
			ret = tell_elsewhere(r, p);
			if (ret)
				return ret;
			continue;
		}
		r->done->last_kick_ns = now_ns;
		/* any --fix kicks: a lock replaces only an empty qdisc, the kick empties it */
		ret = qs_plan_kick(p, r->dev, r->ifindex, r->txq, r->parent, r->handle, "stuck");
		if (ret >= 0 && (fix & QS_FIX_LOCK) && r->lockless)
			ret = qs_plan_lock_check(p, r->dev, r->ifindex, r->txq);
		if (ret < 0)
			return ret;
	}
	return 0;
}

int qs_plan_kick(struct nm_plan *p, const char *dev, unsigned int ifindex, unsigned int queue,
		 uint32_t parent, uint32_t handle, const char *why)
{
	struct qs_fix_target t;
	char ifs[16], qs[16], id[24];

	if (fix_target(&t, dev, ifindex, queue))
		return -ENAMETOOLONG;
	snprintf(ifs, sizeof(ifs), "%u", ifindex);
	snprintf(qs, sizeof(qs), "%u", queue);
	snprintf(id, sizeof(id), "%x:%x", parent, handle);
	return nm_plan_call(p, QS_FIX_KICK, NULL, (const char *const[]){ "kick", dev, ifs, qs, id, NULL },
			    NULL, why, &t, sizeof(t));
}

int qs_plan_lock_check(struct nm_plan *p, const char *dev, unsigned int ifindex, unsigned int queue)
{
	struct qs_fix_target t;
	char ifs[16], qs[16];

	if (fix_target(&t, dev, ifindex, queue))
		return -ENAMETOOLONG;
	snprintf(ifs, sizeof(ifs), "%u", ifindex);
	snprintf(qs, sizeof(qs), "%u", queue);
	return nm_plan_call(p, QS_FIX_LOCK, "lock", (const char *const[]){ "lock", dev, ifs, qs, NULL },
			    NULL, "", &t, sizeof(t));
}

int qs_fix_target(const struct nm_action *a, struct qs_fix_target *t)
{
	if (a->kind != NM_ACT_CALL || (a->remedy != QS_FIX_KICK && a->remedy != QS_FIX_LOCK))
		return -EINVAL;
	memcpy(t, a->data, sizeof(*t));
	return t->dev[0] && t->ifindex ? 0 : -EINVAL;
}

int qs_lock_plan(const char *dev, unsigned int queue, const struct qs_lock_facts *f, struct nm_plan *p)
{
	const char *twin = qs_locked_twin(f->kind);
	struct qs_lock_cmd cmd;
	char what[64];
	int ret;

	if (!twin)
		return nm_plan_note(p, QS_FIX_LOCK, "lock", "%s tx-%u runs %s, which is not lockless: nothing to replace",
				    dev, queue, f->kind);
	/* a replace drops whatever the old qdisc holds */
	if (f->qlen)
		return nm_plan_note(p, QS_FIX_LOCK, "lock",
				    "%s tx-%u: not replaced now: its %s holds %u packets (%u bytes), which a replace would drop",
				    dev, queue, f->kind, f->qlen, f->backlog);
	ret = qs_lock_cmds(&cmd, dev, f->parent, f->handle, f->kind, f->limit);
	if (ret)
		return ret;
	snprintf(what, sizeof(what), "%s tx-%u %s", dev, queue, f->kind);
	ret = nm_plan_cmd(p, QS_FIX_LOCK, "lock", cmd.do_argv, cmd.undo_argv, what, twin);
	if (ret)
		return ret < 0 ? ret : 0;
	return nm_plan_line(p, "lock: %s tx-%u: %s %s (handle %s, lockless) -> %s limit %s (locked); restored at exit or by --cleanup",
			    dev, queue, cmd.parent, f->kind, cmd.handle, twin, cmd.limit);
}
