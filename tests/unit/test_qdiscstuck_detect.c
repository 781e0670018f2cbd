// SPDX-License-Identifier: GPL-2.0
/*
 * qdiscstuck decisions on recorded state sequences: what the sampler and
 * rtnetlink saw, sweep after sweep, including the interleavings of the
 * netdev report "net: sched: fix packet stuck problem for lockless qdisc"
 * (v5.13, a90c57f2cedd) and its follow-ups.
 */
#include <stdarg.h>
#include <stddef.h>
#include <errno.h>
#include <setjmp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>
#include "qdiscstuck/judge.h"

#define MS		1000000ULL
#define THRESH		(100 * MS)
#define T0		(1000000 * MS)	/* an arbitrary monotonic start */

/* One recorded sweep. */
struct rec {
	uint64_t at_ms;
	uint32_t qlen;
	uint64_t packets;
	uint64_t last_deq_ms;	/* 0: no dequeue seen */
	uint32_t q_state;	/* QS_Q_* */
	int running;
	uint32_t txq_state;
	int last_was_null;
	uint64_t wd_expires_ms;	/* the watchdog seen armed for then (fentry rung); 0: not seen */
	enum qs_state want;
};

/* A lockless pfifo_fast child of mq, with events and a sampler snapshot. */
static struct qs_obs obs(const struct rec *r, bool shaper)
{
	struct qs_obs o = {
		.now_ns = T0 + r->at_ms * MS, .qlen = r->qlen, .backlog = r->qlen * 100,
		.packets = r->packets, .shaper = shaper, .have_events = true,
		.last_deq_ns = r->last_deq_ms ? T0 + r->last_deq_ms * MS : 0,
		.last_was_null = r->last_was_null, .null_txq_state = r->txq_state,
		.deq_seen = r->last_deq_ms || r->last_was_null,
		.sampled = true, .q_state = r->q_state, .running = r->running,
		.txq_state = r->txq_state,
		.wd_expires_ns = r->wd_expires_ms ? T0 + r->wd_expires_ms * MS : 0,
	};
	return o;
}

static void replay(const struct rec *recs, int n, bool shaper, struct qs_track *t)
{
	memset(t, 0, sizeof(*t));
	for (int i = 0; i < n; i++) {
		struct qs_obs o = obs(&recs[i], shaper);
		enum qs_state s = qs_update(t, &o, THRESH);

		if (s != recs[i].want)
			fail_msg("sweep %d (t=%llu ms): got %s, want %s", i,
				 (unsigned long long)recs[i].at_ms, qs_state_name(s),
				 qs_state_name(recs[i].want));
	}
}

/*
 * The 5.13 report: CPU0 holds q->seqlock and dequeues; CPU1 enqueues, its
 * spin_trylock fails and it returns, counting on CPU0; CPU0 found the
 * queue empty before CPU1's enqueue and releases the lock. The packet sits
 * there: backlog, not running, not scheduled, MISSED not set, no dequeue.
 */
static void test_race_trylock_lost_is_stuck_after_threshold(void **state)
{
	(void)state;
	const struct rec recs[] = {
		{ .at_ms = 0, .qlen = 0, .packets = 100, .last_deq_ms = 1, .want = QS_IDLE },
		/* CPU0 still running when sampled: not stuck */
		{ .at_ms = 10, .qlen = 1, .packets = 100, .last_deq_ms = 1, .running = 1, .want = QS_OK },
		/* CPU0 released the lock; young: not yet */
		{ .at_ms = 60, .qlen = 1, .packets = 100, .last_deq_ms = 1, .want = QS_OK },
		{ .at_ms = 160, .qlen = 1, .packets = 100, .last_deq_ms = 1, .want = QS_STUCK },
		{ .at_ms = 1160, .qlen = 1, .packets = 100, .last_deq_ms = 1, .want = QS_STUCK },
	};
	struct qs_track t;

	replay(recs, 5, false, &t);
	/* stuck since the last dequeue, not since the sweep that noticed */
	assert_int_equal(qs_state_ms(&t, T0 + 1160 * MS), 1159);
	assert_int_equal(t.entered[QS_STUCK], 1);
	/* the time spent stuck counts from the first stuck sweep on */
	assert_int_equal(t.bad_ns, 1000 * MS);
}

/* The fix: CPU1 sets MISSED, CPU0 sees it at qdisc_run_end and reschedules. */
static void test_race_with_missed_fix_is_scheduled_not_stuck(void **state)
{
	(void)state;
	const struct rec recs[] = {
		{ .at_ms = 0, .qlen = 0, .packets = 100, .last_deq_ms = 1, .want = QS_IDLE },
		{ .at_ms = 10, .qlen = 1, .packets = 100, .last_deq_ms = 1, .running = 1,
		  .q_state = QS_Q_MISSED, .want = QS_OK },
		/* NET_TX softirq is late (busy CPU): scheduled, so the kernel will run it */
		{ .at_ms = 200, .qlen = 1, .packets = 100, .last_deq_ms = 1,
		  .q_state = QS_Q_SCHED | QS_Q_MISSED, .want = QS_OK },
		{ .at_ms = 210, .qlen = 0, .packets = 101, .last_deq_ms = 205, .want = QS_OK },
		{ .at_ms = 400, .qlen = 0, .packets = 101, .last_deq_ms = 205, .want = QS_IDLE },
	};
	struct qs_track t;

	replay(recs, 5, false, &t);
	assert_int_equal(t.entered[QS_STUCK], 0);
	assert_int_equal(t.bad_ns, 0);
}

/*
 * The follow-up race (5.14, "add barrier to fix packet stuck problem"):
 * MISSED is set by CPU1 between CPU0's test and clear, so nobody acts on
 * it. MISSED alone does not run a qdisc: still stuck.
 */
static void test_race_missed_set_but_unscheduled_is_stuck(void **state)
{
	(void)state;
	const struct rec recs[] = {
		{ .at_ms = 0, .qlen = 3, .packets = 50, .last_deq_ms = 1, .want = QS_OK },
		{ .at_ms = 150, .qlen = 3, .packets = 50, .last_deq_ms = 1, .q_state = QS_Q_MISSED,
		  .want = QS_STUCK },
	};
	struct qs_track t;

	replay(recs, 2, false, &t);
}

/* A stopped TX queue is the driver's, never "stuck", whatever the qdisc state. */
static void test_stopped_queue_is_driver_stopped_not_stuck(void **state)
{
	(void)state;
	const struct rec recs[] = {
		{ .at_ms = 0, .qlen = 0, .packets = 0, .want = QS_IDLE },
		{ .at_ms = 20, .qlen = 749, .packets = 257, .last_deq_ms = 15,
		  .txq_state = QS_TXQ_DRV_XOFF, .last_was_null = 1, .want = QS_OK },
		{ .at_ms = 120, .qlen = 749, .packets = 257, .last_deq_ms = 15,
		  .txq_state = QS_TXQ_DRV_XOFF, .last_was_null = 1, .want = QS_DRIVER_STOPPED },
		{ .at_ms = 5120, .qlen = 749, .packets = 257, .last_deq_ms = 15,
		  .txq_state = QS_TXQ_DRV_XOFF, .last_was_null = 1, .want = QS_DRIVER_STOPPED },
	};
	struct qs_track t;

	replay(recs, 4, false, &t);
	assert_int_equal(qs_state_ms(&t, T0 + 5120 * MS), 5105);
	/* it stopped after the first sight: its age is known */
	assert_false(qs_state_since_start(&t));
	assert_int_equal(t.txq_state, QS_TXQ_DRV_XOFF);
	assert_true(t.txq_state_known);
}

/*
 * A backlog already stopped when the tool starts (no dequeue seen yet): its
 * age counts from the first sight and is named a lower bound, until a
 * dequeue starts a state whose age is known.
 */
static void test_stopped_before_start_is_a_lower_bound(void **state)
{
	(void)state;
	const struct rec recs[] = {
		{ .at_ms = 0, .qlen = 749, .packets = 257, .txq_state = QS_TXQ_DRV_XOFF,
		  .last_was_null = 1, .want = QS_OK },
		{ .at_ms = 500, .qlen = 749, .packets = 257, .txq_state = QS_TXQ_DRV_XOFF,
		  .last_was_null = 1, .want = QS_DRIVER_STOPPED },
		{ .at_ms = 1000, .qlen = 749, .packets = 257, .txq_state = QS_TXQ_DRV_XOFF,
		  .last_was_null = 1, .want = QS_DRIVER_STOPPED },
	};
	const struct rec moved = { .at_ms = 1500, .qlen = 10, .packets = 996, .last_deq_ms = 1490,
				   .want = QS_OK };
	struct qs_track t;
	struct qs_obs o = obs(&moved, false);

	replay(recs, 3, false, &t);
	assert_int_equal(qs_state_ms(&t, T0 + 1000 * MS), 1000);
	assert_true(qs_state_since_start(&t));
	assert_int_equal(qs_update(&t, &o, THRESH), QS_OK);
	assert_false(qs_state_since_start(&t));
}

static void test_bql_and_frozen_are_driver_stopped(void **state)
{
	(void)state;
	const uint32_t bits[] = { QS_TXQ_STACK_XOFF, QS_TXQ_FROZEN };

	for (int i = 0; i < 2; i++) {
		const struct rec recs[] = {
			{ .at_ms = 0, .qlen = 5, .packets = 9, .last_deq_ms = 1, .txq_state = bits[i],
			  .want = QS_OK },
			{ .at_ms = 500, .qlen = 5, .packets = 9, .last_deq_ms = 1, .txq_state = bits[i],
			  .want = QS_DRIVER_STOPPED },
		};
		struct qs_track t;

		replay(recs, 2, false, &t);
	}
}

/* The driver wakes the queue: progress again, and the bad time stops growing. */
static void test_recovery_from_driver_stopped(void **state)
{
	(void)state;
	const struct rec recs[] = {
		{ .at_ms = 0, .qlen = 10, .packets = 5, .last_deq_ms = 1, .txq_state = 1, .want = QS_OK },
		{ .at_ms = 200, .qlen = 10, .packets = 5, .last_deq_ms = 1, .txq_state = 1,
		  .want = QS_DRIVER_STOPPED },
		{ .at_ms = 400, .qlen = 10, .packets = 5, .last_deq_ms = 1, .txq_state = 1,
		  .want = QS_DRIVER_STOPPED },
		{ .at_ms = 600, .qlen = 0, .packets = 15, .last_deq_ms = 590, .want = QS_OK },
		{ .at_ms = 800, .qlen = 0, .packets = 15, .last_deq_ms = 590, .want = QS_IDLE },
	};
	struct qs_track t;

	replay(recs, 5, false, &t);
	assert_int_equal(t.bad_ns, 400 * MS);
	assert_int_equal(t.entered[QS_DRIVER_STOPPED], 1);
	assert_int_equal(t.entered[QS_OK], 2);
}

/* tbf at 8 kbit: one dequeue a second, empty dequeues in between. Never an alarm. */
static void test_shaper_is_shaped_never_stuck(void **state)
{
	(void)state;
	struct rec recs[12];
	struct qs_track t;

	for (int i = 0; i < 12; i++) {
		uint64_t at = i * 250;
		struct rec r = { .at_ms = at, .qlen = 30 - at / 1000, .packets = 3 + at / 1000,
				 .last_deq_ms = 1 + (at / 1000) * 1000, .last_was_null = 1,
				 .want = QS_SHAPED };
		recs[i] = r;
	}
	replay(recs, 12, true, &t);
	assert_int_equal(t.entered[QS_SHAPED], 1);
}

/*
 * tbf at 8 kbit on the fentry rung: the watchdog is seen armed for the next
 * packet a second ahead. Shaped at every sweep, even one that lands between
 * a dequeue that gave a packet and the next, empty, one.
 */
static void test_shaper_with_watchdog_due_is_shaped(void **state)
{
	(void)state;
	struct rec recs[12];
	struct qs_track t;

	for (int i = 0; i < 12; i++) {
		uint64_t at = i * 250, sec = at / 1000;
		struct rec r = { .at_ms = at, .qlen = 30 - sec, .packets = 3 + sec,
				 .last_deq_ms = 1 + sec * 1000, .last_was_null = i & 1,
				 .wd_expires_ms = 1 + (sec + 1) * 1000, .want = QS_SHAPED };
		recs[i] = r;
	}
	replay(recs, 12, true, &t);
	assert_int_equal(t.entered[QS_SHAPED], 1);
}

/*
 * A shaper whose timer was due long ago and that has not dequeued since:
 * nothing ran it when the timer fired. Its last empty dequeue no longer
 * makes it shaped: stuck once the timer is overdue by the threshold.
 */
static void test_shaper_with_overdue_watchdog_is_stuck(void **state)
{
	(void)state;
	const struct rec recs[] = {
		{ .at_ms = 0, .qlen = 20, .packets = 10, .last_deq_ms = 1, .last_was_null = 1,
		  .wd_expires_ms = 1001, .want = QS_SHAPED },
		/* due 50 ms ago: the run may be late */
		{ .at_ms = 1050, .qlen = 20, .packets = 10, .last_deq_ms = 1, .last_was_null = 1,
		  .wd_expires_ms = 1001, .want = QS_SHAPED },
		{ .at_ms = 1150, .qlen = 20, .packets = 10, .last_deq_ms = 1, .last_was_null = 1,
		  .wd_expires_ms = 1001, .want = QS_STUCK },
		/* it ran again: a packet left and the timer is armed for the next one */
		{ .at_ms = 1400, .qlen = 19, .packets = 11, .last_deq_ms = 1390, .last_was_null = 1,
		  .wd_expires_ms = 2390, .want = QS_SHAPED },
	};
	struct qs_track t;

	replay(recs, 4, true, &t);
	assert_int_equal(t.entered[QS_STUCK], 1);
}

/*
 * tbf at 8 kbit holding a backlog from before the start, met by the seed
 * (an entry, no dequeue yet) on a rung without the watchdog in view: its
 * next dequeue waits for its timer. Shaped until then, not stuck after
 * the threshold; judged by its dequeues from the first one on.
 */
static void test_shaper_before_its_first_dequeue_is_shaped(void **state)
{
	(void)state;
	const struct rec recs[] = {
		{ .at_ms = 0, .qlen = 20, .packets = 10, .want = QS_SHAPED },
		{ .at_ms = 300, .qlen = 20, .packets = 10, .want = QS_SHAPED },
		{ .at_ms = 1400, .qlen = 20, .packets = 10, .want = QS_SHAPED },
		/* the timer fired: a packet left, the next attempt gave nothing */
		{ .at_ms = 1600, .qlen = 19, .packets = 11, .last_deq_ms = 1500, .last_was_null = 1,
		  .want = QS_SHAPED },
		/* a packet given, then silence past the threshold: judged as ever */
		{ .at_ms = 3200, .qlen = 18, .packets = 12, .last_deq_ms = 3000, .want = QS_STUCK },
	};
	struct qs_track t;

	replay(recs, 5, true, &t);
	assert_int_equal(t.entered[QS_STUCK], 1);
}

/*
 * A lockless pfifo_fast met by the seed with a backlog and no dequeue:
 * no timer will run it. Stuck after the threshold, as before.
 */
static void test_non_shaper_before_its_first_dequeue_is_stuck(void **state)
{
	(void)state;
	const struct rec recs[] = {
		{ .at_ms = 0, .qlen = 20, .packets = 10, .want = QS_OK },
		{ .at_ms = 300, .qlen = 20, .packets = 10, .want = QS_STUCK },
	};
	struct qs_track t;

	replay(recs, 2, false, &t);
}

/* The same backlog on a non-shaper with no progress is stuck. */
static void test_no_progress_without_shaper_is_stuck(void **state)
{
	(void)state;
	const struct rec recs[] = {
		{ .at_ms = 0, .qlen = 30, .packets = 3, .last_deq_ms = 1, .last_was_null = 1, .want = QS_OK },
		{ .at_ms = 300, .qlen = 30, .packets = 3, .last_deq_ms = 1, .last_was_null = 1,
		  .want = QS_STUCK },
	};
	struct qs_track t;

	replay(recs, 2, false, &t);
}

/* A busy healthy flow: backlog present at every sweep, but the counter moves. */
static void test_busy_flow_is_ok(void **state)
{
	(void)state;
	struct rec recs[8];
	struct qs_track t;

	for (int i = 0; i < 8; i++) {
		struct rec r = { .at_ms = i * 1000, .qlen = 40, .packets = 800000ULL * i,
				 .last_deq_ms = i * 1000, .running = i & 1, .want = QS_OK };
		recs[i] = r;
	}
	replay(recs, 8, false, &t);
	assert_true(t.deq_rate > 799999 && t.deq_rate < 800001);
}

/*
 * No events and no sample (the tool started after the qdisc stopped
 * moving, on a kernel without the sampler or the seed): judged by the
 * counters, and a frozen backlog is unknown, not stuck: a stopped queue
 * would look the same.
 */
static void test_without_events_judged_by_counters(void **state)
{
	(void)state;
	struct qs_obs o = { .now_ns = T0, .qlen = 7, .packets = 12 };
	struct qs_track t = {};

	assert_int_equal(qs_update(&t, &o, THRESH), QS_OK);
	o.now_ns += 50 * MS;
	assert_int_equal(qs_update(&t, &o, THRESH), QS_OK);
	o.now_ns += 100 * MS;
	assert_int_equal(qs_update(&t, &o, THRESH), QS_UNKNOWN);
	assert_false(t.txq_state_known);
	/* since its last progress, as stuck and driver_stopped */
	assert_int_equal(qs_state_ms(&t, o.now_ns), 150);
	assert_int_equal(t.entered[QS_UNKNOWN], 1);
	assert_int_equal(t.entered[QS_STUCK], 0);
	/* the test aid (NETMEDIC_TEST_UNKNOWN=stuck) judges it as before */
	o.unknown_is_stuck = true;
	o.now_ns += 100 * MS;
	assert_int_equal(qs_update(&t, &o, THRESH), QS_STUCK);
	o.unknown_is_stuck = false;
	/* the counter moves: progress */
	o.now_ns += 100 * MS;
	o.packets = 13;
	assert_int_equal(qs_update(&t, &o, THRESH), QS_OK);
}

/*
 * Without a sample, an empty dequeue on a running queue still tells the
 * state: the race's own sequence (the qdisc ran dry, a packet came in
 * behind it, nothing ran it again) is stuck; on a stopped queue it is
 * driver_stopped. Only when neither is known is it unknown.
 */
static void test_unsampled_empty_dequeue_tells_the_state(void **state)
{
	(void)state;
	struct qs_obs o = { .now_ns = T0, .qlen = 3, .packets = 40, .have_events = true,
			    .last_deq_ns = T0 - 10 * MS, .deq_seen = true, .last_was_null = true };
	struct qs_track t = {};

	assert_int_equal(qs_update(&t, &o, THRESH), QS_OK);
	o.now_ns += 200 * MS;
	assert_int_equal(qs_update(&t, &o, THRESH), QS_STUCK);
	assert_true(t.txq_state_known);
	memset(&t, 0, sizeof(t));
	o.null_txq_state = QS_TXQ_STOPPED;
	assert_int_equal(qs_update(&t, &o, THRESH), QS_DRIVER_STOPPED);
	/* the last dequeue gave a packet: the queue's state since is not known */
	memset(&t, 0, sizeof(t));
	o.last_was_null = false;
	o.null_txq_state = 0;
	assert_int_equal(qs_update(&t, &o, THRESH), QS_UNKNOWN);
}

/* A replaced qdisc restarts its counters: that is not "no progress". */
static void test_counter_reset_counts_as_progress(void **state)
{
	(void)state;
	struct qs_obs o = { .now_ns = T0, .qlen = 2, .packets = 1000 };
	struct qs_track t = {};

	qs_update(&t, &o, THRESH);
	o.now_ns += 500 * MS;
	o.packets = 3;
	assert_int_equal(qs_update(&t, &o, THRESH), QS_OK);
	assert_true(t.deq_rate == 0);
}

static enum qs_state sweep_enq(struct qs_track *t, const struct rec *r, uint64_t last_enq_ms)
{
	struct qs_obs o = obs(r, false);

	o.last_enq_ns = last_enq_ms ? T0 + last_enq_ms * MS : 0;
	return qs_update(t, &o, THRESH);
}

/*
 * Recorded in the 6.1 guest (tools/faults/qdisc.sh): an empty pfifo_fast
 * sends a burst by its bypass (the counters move, no dequeue event) until
 * the ring is full, the rest is enqueued, and the wake that TX completion
 * should bring is lost. The enqueues date the progress: stuck one threshold
 * after the last of them, not one threshold after the sweep that saw the
 * counters move.
 */
static void test_bypass_burst_then_lost_wake_dated_by_enqueue(void **state)
{
	struct qs_track t;

	(void)state;
	memset(&t, 0, sizeof(t));
	assert_int_equal(sweep_enq(&t, &(struct rec){ 0, 0, 7000, 50, 0, 0, 0, 0, 0, QS_IDLE }, 40),
			 QS_IDLE);
	/* bypass sends at 350-395 ms, enqueues until 400 ms, the wake lost at 420 ms */
	assert_int_equal(sweep_enq(&t, &(struct rec){ 1000, 746, 7238, 50, 0, 0, 0, 0, 0, QS_STUCK }, 400),
			 QS_STUCK);
	assert_int_equal(qs_state_ms(&t, T0 + 1000 * MS), 600);
	/* without enqueue events the sweep dates it: ok now, stuck a sweep later */
	memset(&t, 0, sizeof(t));
	sweep_enq(&t, &(struct rec){ 0, 0, 7000, 50, 0, 0, 0, 0, 0, QS_IDLE }, 0);
	assert_int_equal(sweep_enq(&t, &(struct rec){ 1000, 746, 7238, 50, 0, 0, 0, 0, 0, QS_OK }, 0),
			 QS_OK);
	assert_int_equal(sweep_enq(&t, &(struct rec){ 2000, 746, 7238, 50, 0, 0, 0, 0, 0, QS_STUCK }, 0),
			 QS_STUCK);
}

/* Busy: bypass and enqueues all the time, a dequeue after the last enqueue or just before it. */
static void test_bypass_busy_is_ok(void **state)
{
	struct qs_track t;

	(void)state;
	memset(&t, 0, sizeof(t));
	sweep_enq(&t, &(struct rec){ 0, 0, 100, 0, 0, 0, 0, 0, 0, QS_IDLE }, 0);
	/* the last enqueue before the last dequeue: the dequeue dates it */
	assert_int_equal(sweep_enq(&t, &(struct rec){ 1000, 3, 5000, 999, 0, 0, 0, 0, 0, QS_OK }, 998),
			 QS_OK);
	/* an enqueue after the last dequeue, 10 ms ago: ok */
	assert_int_equal(sweep_enq(&t, &(struct rec){ 2000, 3, 9000, 1980, 0, 0, 0, 0, 0, QS_OK }, 1990),
			 QS_OK);
	/* counters moved, the qdisc empty now: ok whatever the enqueue */
	assert_int_equal(sweep_enq(&t, &(struct rec){ 3000, 0, 12000, 1980, 0, 0, 0, 0, 0, QS_OK }, 2100),
			 QS_OK);
	/* an old enqueue on a stopped queue is the driver's: driver_stopped */
	assert_int_equal(sweep_enq(&t, &(struct rec){ 4000, 700, 12300, 1980, 0, 0,
						    QS_TXQ_DRV_XOFF, 1, 0, QS_DRIVER_STOPPED }, 3100),
			 QS_DRIVER_STOPPED);
}

/*
 * --fix=kick on a qdisc that gets stuck again and again (a lost wake per
 * burst): each new stall is kicked at once; one stall that a kick did not
 * end is kicked again after the retry, not every sweep.
 */
static void test_kick_new_stall_at_once_same_stall_after_retry(void **state)
{
	const uint64_t retry = 5000 * MS;
	const struct rec stall1[] = {
		{ 0, 0, 100, 0, 0, 0, 0, 0, 0, QS_IDLE },
		{ 1000, 700, 300, 950, 0, 0, 0, 0, 0, QS_OK },
		{ 2000, 700, 300, 950, 0, 0, 0, 0, 0, QS_STUCK },
	};
	struct qs_track t;
	struct qs_obs o;
	uint64_t kick;

	(void)state;
	replay(stall1, 3, false, &t);
	assert_true(qs_kick_due(&t, 0, T0 + 2000 * MS, retry));
	kick = T0 + 2000 * MS;
	/* the same stall a sweep later: not again before the retry */
	o = obs(&(struct rec){ 3000, 700, 300, 950, 0, 0, 0, 0, 0, QS_STUCK }, false);
	assert_int_equal(qs_update(&t, &o, THRESH), QS_STUCK);
	assert_false(qs_kick_due(&t, kick, o.now_ns, retry));
	o = obs(&(struct rec){ 7000, 700, 300, 950, 0, 0, 0, 0, 0, QS_STUCK }, false);
	assert_int_equal(qs_update(&t, &o, THRESH), QS_STUCK);
	assert_true(qs_kick_due(&t, kick, o.now_ns, retry));
	kick = o.now_ns;
	/* the kick drained it; a new burst, a new lost wake, 2 s after the kick */
	o = obs(&(struct rec){ 8000, 0, 1000, 7600, 0, 0, 0, 0, 0, QS_OK }, false);
	assert_int_equal(qs_update(&t, &o, THRESH), QS_OK);
	assert_false(qs_kick_due(&t, kick, o.now_ns, retry));
	o = obs(&(struct rec){ 9000, 650, 1300, 8500, 0, 0, 0, 0, 0, QS_STUCK }, false);
	assert_int_equal(qs_update(&t, &o, THRESH), QS_STUCK);
	assert_true(qs_kick_due(&t, kick, o.now_ns, retry));
	/* never a kick for other states */
	o = obs(&(struct rec){ 10000, 650, 1300, 8500, 0, 0, QS_TXQ_DRV_XOFF, 1, 0, QS_DRIVER_STOPPED },
		false);
	assert_int_equal(qs_update(&t, &o, THRESH), QS_DRIVER_STOPPED);
	assert_false(qs_kick_due(&t, 0, o.now_ns, retry));
}

static void test_helpers(void **state)
{
	(void)state;
	char buf[48], dev[16];
	unsigned int q;

	assert_string_equal(qs_fmt_handle(0x10000, buf, sizeof(buf)), "1:");
	assert_string_equal(qs_fmt_handle(0x3e0000, buf, sizeof(buf)), "3e:");
	assert_string_equal(qs_fmt_handle(0, buf, sizeof(buf)), "0:");
	assert_string_equal(qs_fmt_parent(0xffffffff, buf, sizeof(buf)), "root");
	assert_string_equal(qs_fmt_parent(0x10002, buf, sizeof(buf)), "1:2");
	assert_int_equal(qs_mq_child_queue(0x10002, 0x10000), 1);
	assert_int_equal(qs_mq_child_queue(0x10001, 0x10000), 0);
	assert_int_equal(qs_mq_child_queue(0x20001, 0x10000), -1);
	assert_int_equal(qs_mq_child_queue(0xffffffff, 0x10000), -1);
	/* the default mq root has handle 0: its children are 0:1, 0:2... */
	assert_int_equal(qs_mq_child_queue(0x2, 0x0), 1);
	assert_string_equal(qs_txq_state_str(0, buf, sizeof(buf)), "-");
	assert_string_equal(qs_txq_state_str(3, buf, sizeof(buf)), "DRV_XOFF|STACK_XOFF");
	assert_string_equal(qs_txq_state_str(4, buf, sizeof(buf)), "FROZEN");
	assert_true(qs_kind_is_shaper("tbf") && qs_kind_is_shaper("htb"));
	assert_false(qs_kind_is_shaper("pfifo_fast") || qs_kind_is_shaper("pfifo"));
	/* the roots that only sum their children: not judged, their children are */
	assert_true(qs_kind_is_mq("mq") && qs_kind_is_mq("mqprio"));
	assert_false(qs_kind_is_mq("pfifo_fast") || qs_kind_is_mq("mqx") || qs_kind_is_mq("m"));
	assert_string_equal(qs_locked_twin("pfifo_fast"), "pfifo");
	assert_null(qs_locked_twin("pfifo"));
	assert_int_equal(qs_parse_dev_queue("eth0:3", dev, sizeof(dev), &q), 0);
	assert_string_equal(dev, "eth0");
	assert_int_equal(q, 3);
	assert_int_equal(qs_parse_dev_queue("veth:a:0", dev, sizeof(dev), &q), 0);
	assert_string_equal(dev, "veth:a");
	const char *bad[] = { "eth0", ":1", "eth0:", "eth0:x", "eth0:-1", "eth0:70000",
			      "a-very-long-device-name:1" };
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
		assert_int_equal(qs_parse_dev_queue(bad[i], dev, sizeof(dev), &q), -1);
	assert_string_equal(qs_state_name(QS_DRIVER_STOPPED), "driver_stopped");
	assert_string_equal(qs_state_name(QS_NSTATES), "?");
}

/* argv as one string, for comparing */
static const char *joined(const char *const *argv, char *buf, size_t len)
{
	size_t off = 0;

	buf[0] = '\0';
	for (; *argv; argv++)
		off += snprintf(buf + off, len - off, "%s%s", off ? " " : "", *argv);
	return buf;
}

/* #16.7: --lock puts the lockless qdisc back under the handle it had. */
static void test_lock_cmds_keep_handle(void **state)
{
	struct qs_lock_cmd c;
	char buf[256];

	(void)state;
	assert_int_equal(qs_lock_cmds(&c, "qa", 0x10002, 0x80240000, "pfifo_fast", 1000), 0);
	assert_string_equal(joined(c.do_argv, buf, sizeof(buf)),
			    "tc qdisc replace dev qa parent 1:2 pfifo limit 1000");
	assert_string_equal(joined(c.undo_argv, buf, sizeof(buf)),
			    "tc qdisc replace dev qa parent 1:2 handle 8024: pfifo_fast");
	/* the root of a one-queue device */
	assert_int_equal(qs_lock_cmds(&c, "eth0", 0xffffffff, 0x10000, "pfifo_fast", 500), 0);
	assert_string_equal(joined(c.do_argv, buf, sizeof(buf)),
			    "tc qdisc replace dev eth0 root pfifo limit 500");
	assert_string_equal(joined(c.undo_argv, buf, sizeof(buf)),
			    "tc qdisc replace dev eth0 root handle 1: pfifo_fast");
	/* the kernel's default qdisc has handle 0:, which no tc command can ask for */
	assert_int_equal(qs_lock_cmds(&c, "eth0", 0xffffffff, 0, "pfifo_fast", 500), 0);
	assert_string_equal(joined(c.undo_argv, buf, sizeof(buf)),
			    "tc qdisc replace dev eth0 root pfifo_fast");
	assert_int_equal(qs_lock_cmds(&c, "eth0", 0x10002, 0x80240000, "fq_codel", 500), -EINVAL);
}

/*
 * A device's default qdiscs as 6.1 dumps them: mq 0: root, then its
 * children, each handle 0: too, parent 0:N. Only the root is their parent.
 */
static void test_parent_of_default_mq_children(void **state)
{
	(void)state;
	/* the default mq root (0:, root) is the parent of 0:1 and 0:2 */
	assert_true(qs_is_parent_qdisc(0x0, 0xffffffff, 0x1));
	assert_true(qs_is_parent_qdisc(0x0, 0xffffffff, 0x2));
	/* a sibling child (handle 0:, parent 0:1) is nobody's parent */
	assert_false(qs_is_parent_qdisc(0x0, 0x1, 0x2));
	assert_false(qs_is_parent_qdisc(0x0, 0x2, 0x2));
	/* named handles: 1: is the parent of 1:3, not of 2:1; a child 10: of 1:3 is the parent of 10:1 */
	assert_true(qs_is_parent_qdisc(0x10000, 0xffffffff, 0x10003));
	assert_false(qs_is_parent_qdisc(0x10000, 0xffffffff, 0x20001));
	assert_true(qs_is_parent_qdisc(0x100000, 0x10003, 0x100001));
	/* a root has no parent */
	assert_false(qs_is_parent_qdisc(0x0, 0xffffffff, 0xffffffff));
}

/* xps_cpus as sysfs prints it: 32-bit words, most significant first. */
/*
 * Issue #18: the TXQ label of a one-queue device's root was "all" in
 * another netns, where sysfs cannot count its queues and a backlog
 * frozen before the start gives no BPF record: the link message's
 * num_tx_queues names queue 0 there as sysfs does in the tool's netns.
 */
static void test_row_txq(void **state)
{
	/* a root pfifo (3e:) on the lab's one-queue veth */
	const struct qs_txq_facts foreign = { .num_txq = 1 }, own = { .num_txq = 1, .real_txq = 1 },
				  no_rtnl_own = { .real_txq = 1 }, unknown = {};
	struct qs_txq_facts f;

	(void)state;
	assert_int_equal(qs_row_txq(&foreign), 0);
	assert_int_equal(qs_row_txq(&own), 0);
	assert_int_equal(qs_row_txq(&no_rtnl_own), 0);
	/* nothing known of the device: no queue named */
	assert_int_equal(qs_row_txq(&unknown), -1);
	/* a root that is not mq on a device of 2 queues runs both, whatever else is known */
	f = (struct qs_txq_facts){ .num_txq = 2 };
	assert_int_equal(qs_row_txq(&f), -1);
	f.real_txq = 2;
	assert_int_equal(qs_row_txq(&f), -1);
	/* made with 4, set to 1 (ethtool -L): one queue runs, as sysfs or the BPF record says */
	f = (struct qs_txq_facts){ .num_txq = 4, .real_txq = 1 };
	assert_int_equal(qs_row_txq(&f), 0);
	f.real_txq = 0;
	assert_int_equal(qs_row_txq(&f), -1);
	/* children of mq 1: (and what sits under them) name their queue, counts or not */
	f = (struct qs_txq_facts){ .under_mq = true, .mq_child_parent = 0x10002, .mq_handle = 0x10000 };
	assert_int_equal(qs_row_txq(&f), 1);
	f.num_txq = f.real_txq = 2;
	assert_int_equal(qs_row_txq(&f), 1);
	f.mq_child_parent = 0x10001;
	assert_int_equal(qs_row_txq(&f), 0);
	/* the default mq (0:) and its children 0:1, 0:2 */
	f = (struct qs_txq_facts){ .under_mq = true, .mq_child_parent = 0x2, .mq_handle = 0,
				   .num_txq = 2 };
	assert_int_equal(qs_row_txq(&f), 1);
	/* a parent that is not one of the mq's classes: the device decides */
	f = (struct qs_txq_facts){ .under_mq = true, .mq_child_parent = 0x20001, .mq_handle = 0x10000,
				   .num_txq = 2 };
	assert_int_equal(qs_row_txq(&f), -1);
}

static void test_xps_mask(void **state)
{
	char a[] = "00000000,00000003", b[] = "5", c[] = "", d[] = "1,00000000,80000000";

	(void)state;
	assert_true(qs_xps_mask(a) == 3);
	assert_true(qs_xps_mask(b) == 5);
	assert_true(qs_xps_mask(c) == 0);
	/* the first 64 CPUs only */
	assert_true(qs_xps_mask(d) == 0x80000000ULL);
}

/* A queue shows its worst qdisc: an mq child stuck under an ok root is a stuck queue. */
static void test_state_worse(void **state)
{
	(void)state;
	assert_int_equal(qs_state_worse(QS_OK, QS_STUCK), QS_STUCK);
	assert_int_equal(qs_state_worse(QS_STUCK, QS_OK), QS_STUCK);
	assert_int_equal(qs_state_worse(QS_DRIVER_STOPPED, QS_STUCK), QS_STUCK);
	assert_int_equal(qs_state_worse(QS_SHAPED, QS_DRIVER_STOPPED), QS_DRIVER_STOPPED);
	assert_int_equal(qs_state_worse(QS_UNKNOWN, QS_DRIVER_STOPPED), QS_DRIVER_STOPPED);
	assert_int_equal(qs_state_worse(QS_SHAPED, QS_UNKNOWN), QS_UNKNOWN);
	assert_int_equal(qs_state_worse(QS_UNKNOWN, QS_STUCK), QS_STUCK);
	assert_int_equal(qs_state_worse(QS_OK, QS_SHAPED), QS_SHAPED);
	assert_int_equal(qs_state_worse(QS_IDLE, QS_OK), QS_OK);
	assert_int_equal(qs_state_worse(QS_OK, QS_IDLE), QS_OK);
	assert_int_equal(qs_state_worse(QS_IDLE, QS_IDLE), QS_IDLE);
	assert_int_equal(qs_state_worse(QS_NSTATES, QS_SHAPED), QS_SHAPED);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_race_trylock_lost_is_stuck_after_threshold),
		cmocka_unit_test(test_race_with_missed_fix_is_scheduled_not_stuck),
		cmocka_unit_test(test_race_missed_set_but_unscheduled_is_stuck),
		cmocka_unit_test(test_stopped_queue_is_driver_stopped_not_stuck),
		cmocka_unit_test(test_stopped_before_start_is_a_lower_bound),
		cmocka_unit_test(test_bql_and_frozen_are_driver_stopped),
		cmocka_unit_test(test_recovery_from_driver_stopped),
		cmocka_unit_test(test_shaper_is_shaped_never_stuck),
		cmocka_unit_test(test_shaper_with_watchdog_due_is_shaped),
		cmocka_unit_test(test_shaper_with_overdue_watchdog_is_stuck),
		cmocka_unit_test(test_shaper_before_its_first_dequeue_is_shaped),
		cmocka_unit_test(test_non_shaper_before_its_first_dequeue_is_stuck),
		cmocka_unit_test(test_no_progress_without_shaper_is_stuck),
		cmocka_unit_test(test_busy_flow_is_ok),
		cmocka_unit_test(test_without_events_judged_by_counters),
		cmocka_unit_test(test_counter_reset_counts_as_progress),
		cmocka_unit_test(test_bypass_burst_then_lost_wake_dated_by_enqueue),
		cmocka_unit_test(test_bypass_busy_is_ok),
		cmocka_unit_test(test_kick_new_stall_at_once_same_stall_after_retry),
		cmocka_unit_test(test_helpers),
		cmocka_unit_test(test_lock_cmds_keep_handle),
		cmocka_unit_test(test_parent_of_default_mq_children),
		cmocka_unit_test(test_state_worse),
		cmocka_unit_test(test_unsampled_empty_dequeue_tells_the_state),
		cmocka_unit_test(test_xps_mask),
		cmocka_unit_test(test_row_txq),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
