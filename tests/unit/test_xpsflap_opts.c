// SPDX-License-Identifier: GPL-2.0
/* Unit tests for src/xpsflap/opts.c: defaults and values as the run sees them. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "xpsflap/judge.h"
#include "xpsflap/opts.h"

const char *argp_program_version = "xpsflap (netmedic) test";

static void parse(struct xf_env *e, int argc, char **argv)
{
	*e = (struct xf_env){};
	xf_opts_parse(e, argc, argv);
}

/* no option: 65536 slots, the detector's switch threshold, the default top and order */
static void test_defaults(void **state)
{
	char *argv[] = { "xpsflap", NULL };
	struct xf_env e;

	(void)state;
	parse(&e, 1, argv);
	assert_int_equal(e.max_flows, 65536);
	assert_int_equal(e.min_switches, XF_MIN_SWITCHES_DEFAULT);
	assert_int_equal(e.view.top, 0);
	assert_int_equal(e.view.sort, XF_SORT_SWITCHES);
	assert_false(e.pin || e.list_fixes || e.o.json || e.view.all || e.link_local);
}

/* --max-flows is rounded up to a power of two; the common options reach e->o */
static void test_values(void **state)
{
	char *argv[] = { "xpsflap", "--max-flows", "100", "--top", "5", "--min-switches", "3",
			 "--pin", "--dev", "eth9", "--json", "--list-fixes", "--all", "--sort",
			 "reordered", "--link-local", NULL };
	struct xf_env e;

	(void)state;
	parse(&e, 16, argv);
	assert_int_equal(e.max_flows, 128);
	assert_int_equal(e.view.top, 5);
	assert_int_equal(e.min_switches, 3);
	assert_true(e.pin && e.list_fixes && e.o.json && e.view.all && e.link_local);
	assert_int_equal(e.view.sort, XF_SORT_REORDERED);
	assert_int_equal(e.o.ndevs, 1);
	assert_string_equal(e.o.devs[0], "eth9");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_defaults),
		cmocka_unit_test(test_values),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
