// SPDX-License-Identifier: GPL-2.0
/* Unit tests for src/lib/run.c: the report loop's count and wake-ups. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "lib/run.h"

#define S	1000000000ULL
#define MS	1000000ULL

/* -c 3: three reports, then no more; a signal ends it at once. */
static void test_ticker_count(void **state)
{
	struct nm_ticker k;

	(void)state;
	nm_ticker_init(&k, 1.0, 3, false);
	for (int i = 0; i < 3; i++) {
		assert_true(nm_ticker_more(&k, false));
		nm_ticker_next(&k, 10 * S);
	}
	assert_false(nm_ticker_more(&k, false));
	assert_int_equal(k.done, 3);
	nm_ticker_init(&k, 1.0, 3, false);
	assert_false(nm_ticker_more(&k, true));
}

/* no -c: until a signal, however many reports */
static void test_ticker_unbounded(void **state)
{
	struct nm_ticker k;

	(void)state;
	nm_ticker_init(&k, 0.5, 0, true);
	for (int i = 0; i < 100000; i++)
		nm_ticker_next(&k, (uint64_t)i * S);
	assert_true(nm_ticker_more(&k, false));
	assert_false(nm_ticker_more(&k, true));
}

/* a sleep after each report: a report that took 300 ms pushes the next */
static void test_ticker_sleep(void **state)
{
	struct nm_ticker k;

	(void)state;
	nm_ticker_init(&k, 1.0, 0, false);
	assert_true(nm_ticker_next(&k, 5 * S) == 6 * S);
	assert_true(nm_ticker_next(&k, 6 * S + 300 * MS) == 7 * S + 300 * MS);
	nm_ticker_init(&k, 0.01, 0, false);
	assert_true(nm_ticker_next(&k, 5 * S) == 5 * S + 10 * MS);
}

/* on the grid: a slow report does not push the next; one more than an interval late starts it again */
static void test_ticker_grid(void **state)
{
	struct nm_ticker k;

	(void)state;
	nm_ticker_init(&k, 1.0, 0, true);
	assert_true(nm_ticker_next(&k, 5 * S) == 6 * S);
	assert_true(nm_ticker_next(&k, 6 * S + 300 * MS) == 7 * S);
	assert_true(nm_ticker_next(&k, 8 * S + 500 * MS) == 8 * S + 500 * MS);
	assert_true(nm_ticker_next(&k, 8 * S + 600 * MS) == 9 * S + 500 * MS);
	assert_int_equal(k.done, 4);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_ticker_count),
		cmocka_unit_test(test_ticker_unbounded),
		cmocka_unit_test(test_ticker_sleep),
		cmocka_unit_test(test_ticker_grid),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
