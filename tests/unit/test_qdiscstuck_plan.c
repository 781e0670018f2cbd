// SPDX-License-Identifier: GPL-2.0
/*
 * Unit tests for qdiscstuck's remedy policy (src/qdiscstuck/plan.c):
 * the kick's trigger and its non-triggers (no --fix, not one queue, not
 * stuck, kicked too recently), its retry and a new stall, the lock check
 * of --fix=lock (lockless only), the driver_stopped explanation once per
 * episode, a stuck queue of another netns never acted on (said once),
 * and --lock's plan: its two notes and its tc commands.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <cmocka.h>

#include "qdiscstuck/plan.h"

#define MS	1000000ULL
#define NOW	(100000 * MS)
#define ROOT	0xffffffffU

static struct qs_track track(enum qs_state st, uint64_t since)
{
	return (struct qs_track){ .init = true, .state = st, .since_ns = since };
}

static struct qs_fix_row row(const struct qs_track *t, struct qs_fix_done *d, int txq, bool lockless)
{
	return (struct qs_fix_row){ .t = t, .done = d, .dev = "eth0", .ifindex = 2, .txq = txq,
				    .lockless = lockless, .parent = 0x10000 | (txq + 1), .qlen = 7,
				    .backlog = 420 };
}

static void check_target(const struct nm_action *a, const char *dev, unsigned int ifindex,
			 unsigned int queue)
{
	struct qs_fix_target t;

	assert_int_equal(a->kind, NM_ACT_CALL);
	assert_int_equal(qs_fix_target(a, &t), 0);
	assert_string_equal(t.dev, dev);
	assert_int_equal(t.ifindex, ifindex);
	assert_int_equal(t.queue, queue);
	/* nothing to undo: never journaled */
	assert_string_equal(a->undo, "");
}

static void test_kick(void **state)
{
	struct qs_track t = track(QS_STUCK, NOW - 300 * MS);
	struct qs_fix_done d = {};
	struct qs_fix_row r = row(&t, &d, 3, false);
	struct nm_plan p = {};

	(void)state;
	assert_int_equal(qs_fix_plan(&r, 1, QS_FIX_KICK, NOW, &p), 0);
	assert_int_equal(p.n, 1);
	assert_int_equal(p.a[0].remedy, QS_FIX_KICK);
	assert_null(p.a[0].tag);
	assert_string_equal(p.a[0].val, "stuck");
	check_target(&p.a[0], "eth0", 2, 3);
	assert_int_equal(d.last_kick_ns, NOW);

	/* the same stall, 1 s later: within the retry, not kicked again */
	nm_plan_truncate(&p, 0);
	assert_int_equal(qs_fix_plan(&r, 1, QS_FIX_KICK, NOW + 1000 * MS, &p), 0);
	assert_int_equal(p.n, 0);
	assert_int_equal(d.last_kick_ns, NOW);
	/* still stuck after the retry: again */
	assert_int_equal(qs_fix_plan(&r, 1, QS_FIX_KICK, NOW + QS_KICK_RETRY_NS, &p), 0);
	assert_int_equal(p.n, 1);
	assert_int_equal(d.last_kick_ns, NOW + QS_KICK_RETRY_NS);
	/* a new stall (its progress after the last kick): at once */
	nm_plan_truncate(&p, 0);
	t.since_ns = NOW + QS_KICK_RETRY_NS + 200 * MS;
	assert_int_equal(qs_fix_plan(&r, 1, QS_FIX_KICK, NOW + QS_KICK_RETRY_NS + 400 * MS, &p), 0);
	assert_int_equal(p.n, 1);
	nm_plan_free(&p);
}

static void test_kick_not(void **state)
{
	struct qs_track stuck = track(QS_STUCK, NOW - 300 * MS), ok = track(QS_OK, NOW - 300 * MS);
	struct qs_track shaped = track(QS_SHAPED, NOW - 300 * MS), idle = track(QS_IDLE, 0);
	struct qs_track fresh = { .state = QS_STUCK };
	struct qs_fix_done d[8] = {};
	struct qs_fix_row rows[] = {
		row(NULL, &d[0], 0, true),		/* not tracked */
		row(&stuck, &d[1], -1, true),		/* the root of a multiqueue device */
		row(&ok, &d[2], 1, true),
		row(&shaped, &d[3], 2, true),
		row(&idle, &d[4], 3, true),
		row(&fresh, &d[5], 4, true),		/* not judged yet */
	};
	struct nm_plan p = {};

	(void)state;
	assert_int_equal(qs_fix_plan(rows, 6, QS_FIX_KICK | QS_FIX_LOCK, NOW, &p), 0);
	assert_int_equal(p.n, 0);
	for (int i = 0; i < 6; i++)
		assert_int_equal(d[i].last_kick_ns, 0);
	/* no --fix: a stuck queue is only looked at */
	rows[1].txq = 0;
	assert_int_equal(qs_fix_plan(&rows[1], 1, 0, NOW, &p), 0);
	assert_int_equal(p.n, 0);
	assert_int_equal(d[1].last_kick_ns, 0);
	nm_plan_free(&p);
}

/*
 * A stuck queue of another netns: neither kicked nor checked for a lock,
 * at any sweep; one note says so, with the --netns that would act there.
 * Without --fix nothing is said.
 */
static void test_elsewhere(void **state)
{
	struct qs_track t = track(QS_STUCK, NOW - 300 * MS);
	struct qs_fix_done d = {};
	struct qs_fix_row r = row(&t, &d, 1, true);
	struct nm_plan p = {};

	(void)state;
	r.elsewhere = true;
	r.netns = "nm-qs-a";
	r.dev = "qa";
	assert_int_equal(qs_fix_plan(&r, 1, 0, NOW, &p), 0);
	assert_int_equal(p.n, 0);
	assert_false(d.told_elsewhere);
	assert_int_equal(qs_fix_plan(&r, 1, QS_FIX_KICK | QS_FIX_LOCK, NOW, &p), 0);
	assert_int_equal(p.n, 1);
	assert_int_equal(p.a[0].kind, NM_ACT_NOTE);
	assert_string_equal(p.a[0].tag, "fix");
	assert_string_equal(p.a[0].what,
		"qa tx-1 in netns nm-qs-a: stuck, not acted on: remedies act only in the netns qdiscstuck runs in (--netns nm-qs-a would)");
	assert_int_equal(d.last_kick_ns, 0);
	/* the next sweeps, after the retry too: nothing more */
	nm_plan_truncate(&p, 0);
	assert_int_equal(qs_fix_plan(&r, 1, QS_FIX_KICK, NOW + 1000 * MS, &p), 0);
	assert_int_equal(qs_fix_plan(&r, 1, QS_FIX_KICK, NOW + 2 * QS_KICK_RETRY_NS, &p), 0);
	assert_int_equal(p.n, 0);
	assert_int_equal(d.last_kick_ns, 0);
	/* the same queue in the tool's netns is kicked */
	r.elsewhere = false;
	assert_int_equal(qs_fix_plan(&r, 1, QS_FIX_KICK, NOW + 3 * QS_KICK_RETRY_NS, &p), 0);
	assert_int_equal(p.n, 1);
	assert_int_equal(p.a[0].kind, NM_ACT_CALL);
	/* a driver_stopped queue elsewhere is explained as usual, its netns named */
	nm_plan_truncate(&p, 0);
	r.elsewhere = true;
	t = track(QS_DRIVER_STOPPED, NOW - 1500 * MS);
	t.txq_state = QS_TXQ_DRV_XOFF;
	assert_int_equal(qs_fix_plan(&r, 1, QS_FIX_KICK, NOW, &p), 0);
	assert_int_equal(p.n, 1);
	assert_int_equal(p.a[0].kind, NM_ACT_NOTE);
	assert_non_null(strstr(p.a[0].what, "qa tx-1 in netns nm-qs-a: driver_stopped for 1500 ms"));
	nm_plan_free(&p);
}

static void test_lock_check(void **state)
{
	struct qs_track a = track(QS_STUCK, NOW - 300 * MS), b = track(QS_STUCK, NOW - 300 * MS);
	struct qs_fix_done d[2] = {};
	struct qs_fix_row rows[] = { row(&a, &d[0], 0, true), row(&b, &d[1], 1, false) };
	struct nm_plan p = {};

	(void)state;
	/* --fix=lock kicks first (a replace needs an empty qdisc), then checks the lockless one */
	assert_int_equal(qs_fix_plan(rows, 2, QS_FIX_LOCK, NOW, &p), 0);
	assert_int_equal(p.n, 3);
	assert_int_equal(p.a[0].remedy, QS_FIX_KICK);
	check_target(&p.a[0], "eth0", 2, 0);
	assert_int_equal(p.a[1].remedy, QS_FIX_LOCK);
	assert_string_equal(p.a[1].tag, "lock");
	check_target(&p.a[1], "eth0", 2, 0);
	assert_int_equal(p.a[2].remedy, QS_FIX_KICK);
	check_target(&p.a[2], "eth0", 2, 1);
	nm_plan_free(&p);

	/* --fix=kick alone never checks a lock */
	d[0] = d[1] = (struct qs_fix_done){};
	assert_int_equal(qs_fix_plan(rows, 2, QS_FIX_KICK, NOW, &p), 0);
	assert_int_equal(p.n, 2);
	assert_int_equal(p.a[0].remedy, QS_FIX_KICK);
	assert_int_equal(p.a[1].remedy, QS_FIX_KICK);
	nm_plan_free(&p);
}

/* Two qdiscs stuck on one queue (a classful child's leaves) are kicked each, as before. */
static void test_two_on_one_queue(void **state)
{
	struct qs_track a = track(QS_STUCK, NOW - 300 * MS), b = track(QS_STUCK, NOW - 300 * MS);
	struct qs_fix_done d[2] = {};
	struct qs_fix_row rows[] = { row(&a, &d[0], 0, false), row(&b, &d[1], 0, false) };
	struct nm_plan p = {};

	(void)state;
	rows[1].parent = 0x20001;
	rows[1].handle = 0x30000;
	assert_int_equal(qs_fix_plan(rows, 2, QS_FIX_KICK, NOW, &p), 0);
	assert_int_equal(p.n, 2);
	nm_plan_free(&p);
}

static const char tail[] = ". A kick cannot restart a stopped queue and netmedic does not try; the kernel offers no wake from userspace, only driver-level recovery (link down/up, device reset), which drops these packets: left to you";

static void check_note(const struct nm_action *a, const char *head)
{
	char want[1024], line[1024];

	snprintf(want, sizeof(want), "%s%s", head, tail);
	assert_int_equal(a->kind, NM_ACT_NOTE);
	assert_int_equal(a->remedy, QS_FIX_NOTE);
	assert_int_equal(nm_action_line(a, line, sizeof(line)), 0);
	/* no tag: the line is the note alone */
	assert_string_equal(line, want);
}

static void test_stopped(void **state)
{
	struct qs_track t = track(QS_DRIVER_STOPPED, NOW - 1500 * MS);
	struct qs_fix_done d = {};
	struct qs_fix_row r = row(&t, &d, 1, true);
	struct nm_plan p = {};

	(void)state;
	t.txq_state = QS_TXQ_DRV_XOFF;
	/* told without --fix too (--verbose), and never kicked */
	assert_int_equal(qs_fix_plan(&r, 1, 0, NOW, &p), 0);
	assert_int_equal(p.n, 1);
	check_note(&p.a[0], "eth0 tx-1: driver_stopped for 1500 ms with 7 packets (420 bytes) queued, txq_state DRV_XOFF: the driver stopped it (ring full) and has not completed a packet since: only its completion path (TX interrupt or NAPI poll) wakes it");
	assert_true(d.told);
	/* once per episode, --fix or not */
	nm_plan_truncate(&p, 0);
	assert_int_equal(qs_fix_plan(&r, 1, QS_FIX_KICK | QS_FIX_LOCK, NOW + 1000 * MS, &p), 0);
	assert_int_equal(p.n, 0);
	assert_int_equal(d.last_kick_ns, 0);
	/* out of it, then back: told again */
	t.state = QS_OK;
	assert_int_equal(qs_fix_plan(&r, 1, QS_FIX_KICK, NOW + 2000 * MS, &p), 0);
	assert_int_equal(p.n, 0);
	assert_false(d.told);
	t = track(QS_DRIVER_STOPPED, NOW + 2500 * MS);
	t.txq_state = QS_TXQ_STACK_XOFF;
	assert_int_equal(qs_fix_plan(&r, 1, QS_FIX_KICK, NOW + 3000 * MS, &p), 0);
	assert_int_equal(p.n, 1);
	check_note(&p.a[0], "eth0 tx-1: driver_stopped for 500 ms with 7 packets (420 bytes) queued, txq_state STACK_XOFF: BQL stopped it: the driver has not reported the completion of bytes in flight");
	nm_plan_free(&p);
}

/* The longest note fits, and two stopped qdiscs with the same numbers are told each. */
static void test_stopped_frozen(void **state)
{
	struct qs_track a = track(QS_DRIVER_STOPPED, 0), b = track(QS_DRIVER_STOPPED, 0);
	struct qs_fix_done d[2] = {};
	struct qs_fix_row rows[] = { row(&a, &d[0], 0, false), row(&b, &d[0], 0, false) };
	struct nm_plan p = {};

	(void)state;
	rows[1].done = &d[1];
	rows[1].handle = 0x30000;
	rows[0].dev = rows[1].dev = "eth0.4094xxxxxxxxxxxxxxx";
	rows[0].qlen = rows[1].qlen = 4294967295U;
	rows[0].backlog = rows[1].backlog = 4294967295U;
	a.txq_state = b.txq_state = QS_TXQ_FROZEN | QS_TXQ_DRV_XOFF | QS_TXQ_STACK_XOFF;
	assert_int_equal(qs_fix_plan(rows, 2, 0, UINT64_MAX, &p), 0);
	assert_int_equal(p.n, 2);
	assert_non_null(strstr(p.a[0].what, "txq_state DRV_XOFF|STACK_XOFF|FROZEN: the driver stopped it"));
	nm_plan_free(&p);

	a.txq_state = QS_TXQ_FROZEN;
	d[0] = (struct qs_fix_done){};
	assert_int_equal(qs_fix_plan(rows, 1, 0, 2000 * MS, &p), 0);
	assert_int_equal(p.n, 1);
	check_note(&p.a[0], "eth0.4094xxxxxxxxxxxxxxx tx-0: driver_stopped for 2000 ms with 4294967295 packets (4294967295 bytes) queued, txq_state FROZEN: the stack froze it (device reconfiguration in progress)");
	nm_plan_free(&p);
}

static void test_target(void **state)
{
	struct nm_action a = { .kind = NM_ACT_CALL };
	struct qs_fix_target t;
	struct nm_plan p = {};

	(void)state;
	assert_int_equal(qs_plan_kick(&p, "veth-a", 17, 5, 0, 0, "--kick"), 0);
	assert_int_equal(qs_plan_kick(&p, "veth-a", 17, 5, 0, 0, "--kick"), 1);
	assert_int_equal(qs_plan_lock_check(&p, "veth-a", 17, 5), 0);
	assert_int_equal(p.n, 2);
	check_target(&p.a[0], "veth-a", 17, 5);
	assert_string_equal(p.a[0].val, "--kick");
	check_target(&p.a[1], "veth-a", 17, 5);

	/* the queue is the action's data, never read back from its words */
	snprintf(a.target, sizeof(a.target), "kick\teth0\t2\t1");
	a.remedy = QS_FIX_KICK;
	assert_int_equal(qs_fix_target(&a, &t), -EINVAL);
	a.remedy = QS_FIX_LOCK;
	assert_int_equal(qs_fix_target(&a, &t), -EINVAL);
	a = p.a[1];
	assert_int_equal(qs_fix_target(&a, &t), 0);
	a.remedy = 0;
	assert_int_equal(qs_fix_target(&a, &t), -EINVAL);
	a = p.a[1];
	a.kind = NM_ACT_CMD;
	assert_int_equal(qs_fix_target(&a, &t), -EINVAL);
	nm_plan_free(&p);
}

static void test_lock_plan(void **state)
{
	struct qs_lock_facts f = { .kind = "pfifo_fast", .parent = 0x10004, .handle = 0x80000,
				   .limit = 1000 };
	char line[1024];
	struct nm_plan p = {};

	(void)state;
	assert_int_equal(qs_lock_plan("eth0", 3, &f, &p), 0);
	assert_int_equal(p.n, 1);
	assert_int_equal(p.a[0].kind, NM_ACT_CMD);
	assert_int_equal(p.a[0].remedy, QS_FIX_LOCK);
	assert_string_equal(p.a[0].tag, "lock");
	assert_string_equal(p.a[0].target, "tc\tqdisc\treplace\tdev\teth0\tparent\t1:4\tpfifo\tlimit\t1000");
	assert_string_equal(p.a[0].undo, "tc\tqdisc\treplace\tdev\teth0\tparent\t1:4\thandle\t8:\tpfifo_fast");
	assert_int_equal(nm_action_line(&p.a[0], line, sizeof(line)), 0);
	assert_string_equal(line, "lock: eth0 tx-3: 1:4 pfifo_fast (handle 8:, lockless) -> pfifo limit 1000 (locked); restored at exit or by --cleanup");
	nm_plan_free(&p);

	/* the root of a one-queue device, the kernel's default (handle 0:) */
	f.parent = ROOT;
	f.handle = 0;
	f.limit = 500;
	assert_int_equal(qs_lock_plan("lo1", 0, &f, &p), 0);
	assert_string_equal(p.a[0].target, "tc\tqdisc\treplace\tdev\tlo1\troot\tpfifo\tlimit\t500");
	assert_string_equal(p.a[0].undo, "tc\tqdisc\treplace\tdev\tlo1\troot\tpfifo_fast");
	assert_int_equal(nm_action_line(&p.a[0], line, sizeof(line)), 0);
	assert_string_equal(line, "lock: lo1 tx-0: root pfifo_fast (handle 0:, lockless) -> pfifo limit 500 (locked); restored at exit or by --cleanup");
	nm_plan_free(&p);
}

static void test_lock_plan_not(void **state)
{
	struct qs_lock_facts f = { .kind = "fq_codel", .parent = 0x10004, .handle = 0x80000,
				   .limit = 1000 };
	char line[1024];
	struct nm_plan p = {};

	(void)state;
	assert_int_equal(qs_lock_plan("eth0", 3, &f, &p), 0);
	assert_int_equal(p.n, 1);
	assert_int_equal(p.a[0].kind, NM_ACT_NOTE);
	assert_int_equal(nm_action_line(&p.a[0], line, sizeof(line)), 0);
	assert_string_equal(line, "lock: eth0 tx-3 runs fq_codel, which is not lockless: nothing to replace");
	nm_plan_free(&p);
	/* already replaced: pfifo is not lockless */
	snprintf(f.kind, sizeof(f.kind), "pfifo");
	assert_int_equal(qs_lock_plan("eth0", 3, &f, &p), 0);
	assert_int_equal(p.a[0].kind, NM_ACT_NOTE);
	nm_plan_free(&p);
	/* a replace would drop what it holds */
	snprintf(f.kind, sizeof(f.kind), "pfifo_fast");
	f.qlen = 12;
	f.backlog = 18000;
	assert_int_equal(qs_lock_plan("eth0", 3, &f, &p), 0);
	assert_int_equal(p.n, 1);
	assert_int_equal(p.a[0].kind, NM_ACT_NOTE);
	assert_int_equal(nm_action_line(&p.a[0], line, sizeof(line)), 0);
	assert_string_equal(line, "lock: eth0 tx-3: not replaced now: its pfifo_fast holds 12 packets (18000 bytes), which a replace would drop");
	nm_plan_free(&p);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_kick),
		cmocka_unit_test(test_kick_not),
		cmocka_unit_test(test_elsewhere),
		cmocka_unit_test(test_lock_check),
		cmocka_unit_test(test_two_on_one_queue),
		cmocka_unit_test(test_stopped),
		cmocka_unit_test(test_stopped_frozen),
		cmocka_unit_test(test_target),
		cmocka_unit_test(test_lock_plan),
		cmocka_unit_test(test_lock_plan_not),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
