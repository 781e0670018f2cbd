// SPDX-License-Identifier: GPL-2.0
/* Unit tests for src/lib/cli.c: the size of a two-way direct-mapped table. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "lib/cli.h"

static void test_table_size(void **state)
{
	(void)state;
	assert_int_equal(nm_table_size(65536), 65536);
	assert_int_equal(nm_table_size(65537), 131072);
	assert_int_equal(nm_table_size(100), 128);
	assert_int_equal(nm_table_size(64), 64);
	assert_int_equal(nm_table_size(1), 2);	/* two ways need two slots */
	assert_int_equal(nm_table_size(16777215), 16777216);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_table_size),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
