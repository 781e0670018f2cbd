// SPDX-License-Identifier: GPL-2.0
/*
 * Unit tests for src/qdiscstuck/ns.c: one socket per netns in scope,
 * opened once when it comes and kept, closed when it leaves the scope,
 * bounded (the tool's own netns never refused), a failed open retried.
 * The sockets are fakes: the bookkeeping is what is tested.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <cmocka.h>

#include "qdiscstuck/ns.h"

struct fake {
	int opens, closes;
	int live;			/* sockets open now */
	bool fail;			/* the next opens fail (setns refused, netns gone) */
	int socks[16];
};

static void *fake_open(const char *path, void *arg)
{
	struct fake *f = arg;

	(void)path;
	if (f->fail)
		return NULL;
	f->live++;
	return &f->socks[f->opens++ % 16];
}

static void fake_close(void *sock, void *arg)
{
	struct fake *f = arg;

	assert_non_null(sock);
	f->closes++;
	f->live--;
}

static void sweep(struct qs_ns_socks *t, const unsigned long *inos, int n)
{
	qs_ns_begin(t);
	for (int i = 0; i < n; i++)
		qs_ns_want(t, inos[i], inos[i] == 1 ? NULL : "/run/netns/x");
	qs_ns_end(t);
}

static void test_kept_and_closed(void **state)
{
	const unsigned long three[] = { 1, 10, 11 }, two[] = { 1, 11 };
	struct qs_ns_socks t;
	struct fake f = {};
	void *s10;

	(void)state;
	assert_int_equal(qs_ns_init(&t, 0, fake_open, fake_close, &f), 0);
	assert_int_equal(t.max, QS_NS_SOCKS_MAX);
	sweep(&t, three, 3);
	assert_int_equal(f.opens, 3);
	assert_int_equal(t.n, 3);
	/* kept: the same socket at the next sweeps, no open */
	qs_ns_begin(&t);
	s10 = qs_ns_want(&t, 10, "/run/netns/x");
	assert_ptr_equal(qs_ns_want(&t, 10, "/run/netns/x"), s10);
	qs_ns_want(&t, 1, NULL);
	qs_ns_want(&t, 11, "/run/netns/x");
	qs_ns_end(&t);
	assert_int_equal(f.opens, 3);
	assert_int_equal(f.closes, 0);
	/* 10 left the scope: its socket is closed at the end of that sweep, once */
	sweep(&t, two, 2);
	assert_int_equal(f.closes, 1);
	/* the netns that left, for the caller to forget */
	assert_int_equal(t.ngone, 1);
	assert_int_equal(t.gone[0], 10);
	assert_int_equal(t.closed, 1);
	assert_int_equal(t.n, 2);
	sweep(&t, two, 2);
	assert_int_equal(f.closes, 1);
	assert_int_equal(t.closed, 0);
	assert_int_equal(t.ngone, 0);
	/* back in scope: a new socket */
	sweep(&t, three, 3);
	assert_int_equal(f.opens, 4);
	qs_ns_free(&t);
	assert_int_equal(f.live, 0);
}

/* At most max other namespaces; the tool's own always; over the cap counted each sweep. */
static void test_cap(void **state)
{
	const unsigned long inos[] = { 10, 11, 12, 1 };
	struct qs_ns_socks t;
	struct fake f = {};

	(void)state;
	assert_int_equal(qs_ns_init(&t, 2, fake_open, fake_close, &f), 0);
	sweep(&t, inos, 4);
	assert_int_equal(t.n, 3);		/* 10, 11 and the own */
	assert_int_equal(t.over, 1);		/* 12 */
	assert_int_equal(f.live, 3);
	sweep(&t, inos, 4);
	assert_int_equal(t.over, 1);
	assert_int_equal(f.opens, 3);
	/*
	 * one goes: closed at the end of the walk that missed it, so the one
	 * over the cap gets its room at the next
	 */
	sweep(&t, &inos[1], 3);
	assert_int_equal(t.over, 1);
	assert_int_equal(f.live, 2);
	sweep(&t, &inos[1], 3);
	assert_int_equal(t.over, 0);
	assert_int_equal(f.live, 3);
	qs_ns_free(&t);
	assert_int_equal(f.live, 0);
}

/* A failed open is counted, holds nothing, and is tried again at the next sweep. */
static void test_failed_open(void **state)
{
	const unsigned long inos[] = { 1, 10 };
	struct qs_ns_socks t;
	struct fake f = { .fail = true };

	(void)state;
	assert_int_equal(qs_ns_init(&t, 0, fake_open, fake_close, &f), 0);
	qs_ns_begin(&t);
	assert_null(qs_ns_want(&t, 10, "/run/netns/x"));
	qs_ns_end(&t);
	assert_int_equal(t.failed, 1);
	assert_int_equal(t.n, 0);
	f.fail = false;
	sweep(&t, inos, 2);
	assert_int_equal(t.failed, 0);
	assert_int_equal(t.n, 2);
	qs_ns_free(&t);
	assert_int_equal(f.live, 0);
	assert_int_equal(f.closes, 2);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_kept_and_closed),
		cmocka_unit_test(test_cap),
		cmocka_unit_test(test_failed_open),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
