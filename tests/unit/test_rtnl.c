// SPDX-License-Identifier: GPL-2.0
/* Unit tests for the qdisc dumps, on this netns's real qdiscs, over a kept socket. */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <cmocka.h>

#include "lib/rtnl.h"

struct count {
	int seen, stop_at;
};

static int count_q(const struct nm_qdisc_stats *q, void *arg)
{
	struct count *c = arg;

	assert_true(q->ifindex > 0);
	assert_true(q->kind[0] != '\0');
	return ++c->seen == c->stop_at ? 42 : 0;
}

/* A kept socket dumps again after a dump its callback stopped early. */
static void test_dump_on_kept_socket(void **state)
{
	struct count all = {}, first = { .stop_at = 1 }, again = {};
	char err[256] = "";
	struct mnl_socket *nl;

	(void)state;
	assert_int_equal(nm_rtnl_qdisc_dump(0, count_q, &all, err, sizeof(err)), 0);
	/* lo's noqueue at least */
	assert_true(all.seen >= 1);
	nl = nm_rtnl_open_in(NULL, 0, err, sizeof(err));
	assert_non_null(nl);
	/* the callback's return is the dump's */
	assert_int_equal(nm_rtnl_qdisc_dump_on(nl, 0, count_q, &first, err, sizeof(err)), 42);
	assert_int_equal(first.seen, 1);
	assert_int_equal(nm_rtnl_qdisc_dump_on(nl, 0, count_q, &again, err, sizeof(err)), 0);
	assert_int_equal(again.seen, all.seen);
	/* one device only: lo is ifindex 1 */
	again.seen = 0;
	assert_int_equal(nm_rtnl_qdisc_dump_on(nl, 1, count_q, &again, err, sizeof(err)), 0);
	assert_true(again.seen >= 1 && again.seen <= all.seen);
	mnl_socket_close(nl);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_dump_on_kept_socket),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
