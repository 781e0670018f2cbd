// SPDX-License-Identifier: GPL-2.0
#include <errno.h>
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdlib.h>
#include <cmocka.h>
#include "lib/grow.h"

/* Elements appended one by one keep their values; the room doubles. */
static void test_doubles_and_keeps(void **state)
{
	uint32_t *a = NULL;
	size_t cap = 0;

	(void)state;
	for (size_t i = 0; i < 1000; i++) {
		assert_int_equal(nm_grow(&a, &cap, i, sizeof(*a), 8), 0);
		assert_true(cap > i);
		a[i] = i * 7;
		if (i == 0)
			assert_int_equal(cap, 8);
		if (i == 8)
			assert_int_equal(cap, 16);
	}
	assert_int_equal(cap, 1024);
	for (size_t i = 0; i < 1000; i++)
		assert_int_equal(a[i], i * 7);
	/* room left: nothing moves */
	assert_int_equal(nm_grow(&a, &cap, 1000, sizeof(*a), 8), 0);
	assert_int_equal(cap, 1024);
	free(a);
}

/* An index past twice the room gets room for itself. */
static void test_jump(void **state)
{
	char *a = NULL;
	size_t cap = 0;

	(void)state;
	assert_int_equal(nm_grow(&a, &cap, 100, 1, 4), 0);
	assert_int_equal(cap, 101);
	a[100] = 1;
	free(a);
}

/* A size that would overflow is refused, and the array is left as it was. */
static void test_overflow(void **state)
{
	uint64_t *a = malloc(4 * sizeof(*a));
	uint64_t *old = a;
	size_t cap = 4;

	(void)state;
	assert_non_null(a);
	a[3] = 42;
	assert_int_equal(nm_grow(&a, &cap, 4, SIZE_MAX / 4, 4), -ENOMEM);
	assert_ptr_equal(a, old);
	assert_int_equal(cap, 4);
	cap = SIZE_MAX / 2 + 1;
	assert_int_equal(nm_grow(&a, &cap, cap, 1, 4), -ENOMEM);
	assert_ptr_equal(a, old);
	assert_int_equal(a[3], 42);
	free(a);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_doubles_and_keeps),
		cmocka_unit_test(test_jump),
		cmocka_unit_test(test_overflow),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
