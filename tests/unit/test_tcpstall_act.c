// SPDX-License-Identifier: GPL-2.0
/*
 * Unit tests for what src/tcpstall/act.c decides for the loader, with
 * no BPF: the capabilities each --fix needs, the sockets' memory and the
 * kicks' context from the options (an open episode then queued for its
 * kick), when a kick comes, and the walk of the open episodes: the stale
 * ones dropped at a full sweep, the gate counted, a walk cut short.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <cmocka.h>

#include "tcpstall/act.h"

#define HERE	4026532180UL	/* tcpstall's netns */
#define MS	1000000ULL
#define SEC	1000000000ULL

static struct ts_key sock_key(uint32_t netns, uint16_t lport)
{
	return (struct ts_key){ .netns = netns, .family = NM_AF_INET, .lport = lport, .rport = 5000 };
}

/* Each --fix word's capabilities; --cleanup's are there without one. */
static void test_caps(void **state)
{
	struct nm_caps_run c = {};

	(void)state;
	ts_act_caps(&c, 0);
	assert_false(c.remedy || c.remedy_sysfs || c.remedy_setns || c.remedy_exec || c.journal);
	assert_false(c.getfd || c.getfd_keep);
	/* a sockopt record may be undone from userspace, where BPF may not set it */
	assert_true(c.cleanup_bpf && c.cleanup_sysfs && c.cleanup_getfd);
	assert_string_equal(c.remedy_opt, "--fix");
	ts_act_caps(&c, TS_FIX_DEFER);
	assert_true(c.remedy && c.journal);
	assert_false(c.remedy_sysfs || c.remedy_exec);
	ts_act_caps(&c, TS_FIX_RFS);
	assert_true(c.remedy && c.remedy_sysfs && c.remedy_setns);
	assert_false(c.remedy_exec);
	ts_act_caps(&c, TS_FIX_ROUTES);
	assert_true(c.remedy && c.remedy_exec);
	assert_false(c.remedy_sysfs);
	/* a kick changes a socket, through BPF: a journal, no net admin */
	ts_act_caps(&c, TS_FIX_KICK);
	assert_false(c.remedy);
	assert_true(c.journal);
	/* ... or from userspace, where BPF may not: what that takes is asked for, kept once chosen */
	assert_true(c.getfd);
	assert_false(c.getfd_keep);
}

/* A socket's memory: made once, found again; none when the table is full. */
static void test_sock(void **state)
{
	struct nm_htab *socks = nm_htab_new(sizeof(struct ts_key), sizeof(struct ts_sock), 2);
	struct ts_key a = sock_key(HERE, 1), b = sock_key(HERE, 2), c = sock_key(HERE, 3);
	struct ts_sock *s;

	(void)state;
	assert_non_null(socks);
	s = ts_act_sock(socks, &a);
	assert_non_null(s);
	s->kicks = 7;
	assert_ptr_equal(ts_act_sock(socks, &a), s);
	assert_int_equal(((struct ts_sock *)nm_htab_get(socks, &a))->kicks, 7);
	assert_non_null(ts_act_sock(socks, &b));
	assert_null(ts_act_sock(socks, &c));
	nm_htab_free(socks);
}

/* The options into the kicks' context: an open episode of ours, at the threshold, is queued once. */
static void test_setup(void **state)
{
	static struct ts_env env = { .threshold_ms = 10, .fix = TS_FIX_KICK, .kick = TS_KICK_CFG_DEFAULT };
	struct nm_htab *socks = nm_htab_new(sizeof(struct ts_key), sizeof(struct ts_sock), 16);
	struct ts_kick_prog prog = { .kicks_fd = 42 };
	static struct ts_act a = TS_ACT_INIT;
	struct ts_kick_cand c = { .by = TS_KICK_BY_MARK, .key = sock_key(HERE, 1), .start_ns = SEC };

	(void)state;
	env.o.netns_ino = HERE;
	ts_act_setup(&a, &env, &prog, socks);
	assert_ptr_equal(a.o, &env.o);
	assert_int_equal(a.fix, TS_FIX_KICK);
	assert_int_equal(a.kick.kicks_fd, 42);
	assert_int_equal(a.kx.netns, HERE);
	assert_int_equal(a.kx.threshold_ns, 10 * MS);
	assert_ptr_equal(a.kx.cfg, &env.kick);
	/* open 9 ms: not yet */
	c.now_ns = SEC + 9 * MS;
	ts_act_kick_want(&a, &c);
	assert_int_equal(a.kb.n, 0);
	c.now_ns = SEC + 10 * MS;
	ts_act_kick_want(&a, &c);
	assert_int_equal(a.kb.n, 1);
	/* noted in the socket's memory, made by ts_act_sock */
	assert_int_equal(((struct ts_sock *)nm_htab_get(socks, &c.key))->kicked_stall_ns, SEC);
	ts_act_kick_want(&a, &c);
	assert_int_equal(a.kb.n, 1);
	nm_plan_free(&a.kb);
	nm_htab_free(socks);
}

/* The first line's kick_at: the kicker's timer, else the loop's next pass or sweep. */
static void test_kick_at(void **state)
{
	(void)state;
	assert_string_equal(ts_act_kick_at(true, true, true), "threshold");
	assert_string_equal(ts_act_kick_at(true, true, false), "threshold");
	assert_string_equal(ts_act_kick_at(true, false, true), "threshold_walk");
	assert_string_equal(ts_act_kick_at(false, false, true), "next_pass");
	assert_string_equal(ts_act_kick_at(false, true, false), "next_sweep");
	assert_string_equal(ts_act_kick_at(false, false, false), "next_sweep");
}

static struct ts_mark mark_at(uint64_t start_ns)
{
	return (struct ts_mark){ .start_ns = start_ns, .nonagle = 1 };
}

/*
 * The kicker's own walk, where no kick timer runs: an episode is queued
 * once, when it is --threshold old, as the timer's request would be; a
 * new episode of the same socket is queued again; an ended one forgotten.
 */
static void test_poll(void **state)
{
	static struct ts_env env = { .threshold_ms = 10, .fix = TS_FIX_KICK, .kick = TS_KICK_CFG_DEFAULT };
	static struct ts_act a = TS_ACT_INIT;
	struct ts_kick_prog prog = { .kicks_fd = -1 };
	struct ts_key k = sock_key(HERE, 1), other = sock_key(HERE + 1, 2);
	struct ts_mark m = mark_at(SEC), m2 = mark_at(2 * SEC);

	(void)state;
	env.o.netns_ino = HERE;
	ts_act_setup(&a, &env, &prog, NULL);
	a.poll.kicked = nm_htab_new(sizeof(struct ts_key), 16, 8);
	assert_non_null(a.poll.kicked);
	/* 4 ms to go: not queued, and the walk says when */
	assert_int_equal(ts_act_poll_mark(&a, &k, &m, SEC + 6 * MS), 4 * MS);
	assert_int_equal(a.kt.n, 0);
	/* due: queued once, with the mark's start and Nagle bit */
	assert_int_equal(ts_act_poll_mark(&a, &k, &m, SEC + 10 * MS), UINT64_MAX);
	assert_int_equal(a.kt.n, 1);
	ts_act_poll_done(&a);
	assert_int_equal(ts_act_poll_mark(&a, &k, &m, SEC + 12 * MS), UINT64_MAX);
	assert_int_equal(a.kt.n, 1);
	/* another netns's episode: not ours to kick */
	assert_int_equal(ts_act_poll_mark(&a, &other, &m, SEC + 12 * MS), UINT64_MAX);
	assert_int_equal(a.kt.n, 1);
	nm_plan_truncate(&a.kt, 0);
	ts_act_poll_done(&a);
	/* the next episode of the same socket: its own kick */
	assert_int_equal(ts_act_poll_mark(&a, &k, &m2, 2 * SEC + 10 * MS), UINT64_MAX);
	assert_int_equal(a.kt.n, 1);
	nm_plan_truncate(&a.kt, 0);
	/* a walk that does not see an episode: it ended, and is forgotten */
	assert_int_equal(nm_htab_count(a.poll.kicked), 2);
	ts_act_poll_done(&a);
	assert_int_equal(nm_htab_count(a.poll.kicked), 1);
	ts_act_poll_done(&a);
	assert_int_equal(nm_htab_count(a.poll.kicked), 0);
	/* so the same start seen again is a new episode to it */
	assert_int_equal(ts_act_poll_mark(&a, &k, &m2, 2 * SEC + 20 * MS), UINT64_MAX);
	assert_int_equal(a.kt.n, 1);
	nm_plan_free(&a.kt);
	nm_htab_free(a.poll.kicked);
}

/*
 * At a full sweep: an episode older than TS_EPISODE_FORGET_NS whose socket
 * this sweep did not see is dropped; one it saw, or a young one, stays
 * open, and the gate counts those.
 */
static void test_marks_forget(void **state)
{
	struct nm_htab *socks = nm_htab_new(sizeof(struct ts_key), sizeof(struct ts_sock), 16);
	struct ts_key seen = sock_key(HERE, 1), missed = sock_key(HERE, 2), untracked = sock_key(HERE, 3);
	struct ts_key young = sock_key(HERE, 4);
	uint64_t now = 100 * SEC;
	struct ts_mark old = mark_at(now - TS_EPISODE_FORGET_NS - 1), fresh = mark_at(now - SEC);
	static struct ts_marks w;

	(void)state;
	((struct ts_sock *)nm_htab_upsert(socks, &seen, NULL))->seen_sweep = 5;
	((struct ts_sock *)nm_htab_upsert(socks, &missed, NULL))->seen_sweep = 4;
	w = (struct ts_marks){ .forget = true, .now_ns = now, .sweep = 5, .socks = socks };
	assert_false(ts_marks_take(&w, &seen, &old));
	assert_false(ts_marks_take(&w, &missed, &old));
	assert_false(ts_marks_take(&w, &untracked, &old));
	assert_false(ts_marks_take(&w, &young, &fresh));
	assert_int_equal(w.ndrop, 2);
	assert_memory_equal(&w.drop[0], &missed, sizeof(missed));
	assert_memory_equal(&w.drop[1], &untracked, sizeof(untracked));
	assert_int_equal(w.open, 2);
	assert_int_equal(ts_marks_gate(&w), 2);
	assert_true(ts_marks_more(&w));
	/* --fix=kick without a kicker: the open ones are candidates, the dropped ones not */
	w = (struct ts_marks){ .forget = true, .kick = true, .now_ns = now, .sweep = 5, .socks = socks };
	assert_true(ts_marks_take(&w, &seen, &old));
	assert_false(ts_marks_take(&w, &missed, &old));
	/* a kick walk between full sweeps: nothing dropped, the gate left */
	w = (struct ts_marks){ .kick = true, .now_ns = now, .sweep = 6, .socks = socks };
	assert_true(ts_marks_take(&w, &missed, &old));
	assert_int_equal(w.ndrop, 0);
	assert_int_equal(ts_marks_gate(&w), -1);
	nm_htab_free(socks);
}

/* TS_MARKS_DROP stale ones end the walk; the gate, counted short, is left for the next. */
static void test_marks_cut_short(void **state)
{
	struct nm_htab *socks = nm_htab_new(sizeof(struct ts_key), sizeof(struct ts_sock), 16);
	struct ts_mark old = mark_at(SEC);
	static struct ts_marks w;

	(void)state;
	w = (struct ts_marks){ .forget = true, .now_ns = 100 * SEC, .sweep = 1, .socks = socks };
	for (uint16_t i = 0; ts_marks_more(&w); i++) {
		struct ts_key k = sock_key(HERE, i);

		ts_marks_take(&w, &k, &old);
	}
	assert_int_equal(w.ndrop, TS_MARKS_DROP);
	assert_int_equal(ts_marks_gate(&w), -1);
	nm_htab_free(socks);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_caps),
		cmocka_unit_test(test_sock),
		cmocka_unit_test(test_setup),
		cmocka_unit_test(test_kick_at),
		cmocka_unit_test(test_poll),
		cmocka_unit_test(test_marks_forget),
		cmocka_unit_test(test_marks_cut_short),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
