// SPDX-License-Identifier: GPL-2.0
/* Unit tests for src/lib/hist.c: slot selection and libbpf-tools printing. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "lib/hist.h"

/*
 * Prints into memory, *out gets the text; caller frees. The buffer pointer
 * lives in the caller's frame: with a local one gcc 12 -O2 wrongly reports
 * -Wdangling-pointer for every use of the result.
 */
static void print_hist(char **out, const uint64_t *slots, int nslots,
		       const char *unit)
{
	size_t len = 0;
	FILE *f = open_memstream(out, &len);

	assert_non_null(f);
	nm_hist_print_log2(f, slots, nslots, unit);
	fclose(f);
}

static void test_log2_edges(void **state)
{
	(void)state;
	assert_int_equal(nm_log2(0), 0);
	assert_int_equal(nm_log2(1), 0);
	assert_int_equal(nm_log2(2), 1);
	assert_int_equal(nm_log2(3), 1);
	assert_int_equal(nm_log2(4), 2);
	assert_int_equal(nm_log2(7), 2);
	assert_int_equal(nm_log2(8), 3);
	assert_int_equal(nm_log2(UINT64_C(1) << 31), 31);
	assert_int_equal(nm_log2((UINT64_C(1) << 32) - 1), 31);
	assert_int_equal(nm_log2(UINT64_C(1) << 32), 32);
	assert_int_equal(nm_log2(UINT64_C(1) << 63), 63);
	assert_int_equal(nm_log2(UINT64_MAX), 63);
}

static void test_slot_edges(void **state)
{
	(void)state;
	assert_int_equal(nm_hist_slot(0), 0);
	assert_int_equal(nm_hist_slot(1), 0);
	assert_int_equal(nm_hist_slot(2), 1);
	assert_int_equal(nm_hist_slot(3), 1);
	assert_int_equal(nm_hist_slot(4), 2);
	assert_int_equal(nm_hist_slot(UINT64_C(1) << 30), 30);
	assert_int_equal(nm_hist_slot(UINT64_C(1) << 31), 31);
	/* everything above is clamped into the last slot, never past it */
	assert_int_equal(nm_hist_slot(UINT64_C(1) << 32), NM_HIST_SLOTS - 1);
	assert_int_equal(nm_hist_slot(UINT64_MAX), NM_HIST_SLOTS - 1);
}

static void test_print_basic_trimmed(void **state)
{
	uint64_t slots[NM_HIST_SLOTS] = { 1, 2, 4 };
	char *got;

	(void)state;
	print_hist(&got, slots, NM_HIST_SLOTS, "usecs");
	assert_string_equal(got,
		"     usecs               : count    distribution\n"
		"         0 -> 1          : 1        |**********                              |\n"
		"         2 -> 3          : 2        |********************                    |\n"
		"         4 -> 7          : 4        |****************************************|\n");
	free(got);
}

static void test_print_keeps_inner_empty_slots(void **state)
{
	uint64_t slots[NM_HIST_SLOTS] = { [1] = 3, [3] = 1 };
	char *got;

	(void)state;
	print_hist(&got, slots, NM_HIST_SLOTS, "nsecs");
	assert_string_equal(got,
		"     nsecs               : count    distribution\n"
		"         0 -> 1          : 0        |                                        |\n"
		"         2 -> 3          : 3        |****************************************|\n"
		"         4 -> 7          : 0        |                                        |\n"
		"         8 -> 15         : 1        |*************                           |\n");
	free(got);
}

static void test_print_empty(void **state)
{
	uint64_t slots[NM_HIST_SLOTS] = { 0 };
	char *got;

	(void)state;
	print_hist(&got, slots, NM_HIST_SLOTS, "usecs");
	assert_string_equal(got, "");
	free(got);
	print_hist(&got, NULL, 0, "usecs");
	assert_string_equal(got, "");
	free(got);
}

static void test_print_last_slot(void **state)
{
	uint64_t slots[NM_HIST_SLOTS] = { [NM_HIST_SLOTS - 1] = 9 };
	char *got, *last;

	(void)state;
	print_hist(&got, slots, NM_HIST_SLOTS, "usecs");
	/* header plus one row per slot, nothing trimmed before the last */
	last = strrchr(got, '\n');
	*last = '\0';
	last = strrchr(got, '\n') + 1;
	assert_string_equal(last,
		"2147483648 -> 4294967295 : 9        |****************************************|");
	free(got);
}

/* Counts near 2^64 must not overflow the star arithmetic. */
static void test_print_huge_counts(void **state)
{
	uint64_t slots[2] = { UINT64_MAX, UINT64_MAX / 2 };
	char *got;

	(void)state;
	print_hist(&got, slots, 2, "bytes");
	assert_string_equal(got,
		"     bytes               : count    distribution\n"
		"         0 -> 1          : 18446744073709551615 |****************************************|\n"
		"         2 -> 3          : 9223372036854775807 |********************                    |\n");
	free(got);
}

/* More than 33 slots: libbpf-tools switches to wider columns, 20 stars. */
static void test_print_wide(void **state)
{
	uint64_t slots[64] = { [0] = 2, [63] = 1 };
	char *got, *nl;

	(void)state;
	print_hist(&got, slots, 64, "bytes");
	nl = strchr(got, '\n');
	*nl = '\0';
	assert_string_equal(got,
		"               bytes                         : count    distribution");
	assert_non_null(strstr(nl + 1,
		"                   0 -> 1                    : 2        |********************|\n"));
	assert_non_null(strstr(nl + 1,
		" 9223372036854775808 -> 18446744073709551615 : 1        |**********          |\n"));
	free(got);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_log2_edges),
		cmocka_unit_test(test_slot_edges),
		cmocka_unit_test(test_print_basic_trimmed),
		cmocka_unit_test(test_print_keeps_inner_empty_slots),
		cmocka_unit_test(test_print_empty),
		cmocka_unit_test(test_print_last_slot),
		cmocka_unit_test(test_print_huge_counts),
		cmocka_unit_test(test_print_wide),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
