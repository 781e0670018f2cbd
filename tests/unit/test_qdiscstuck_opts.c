// SPDX-License-Identifier: GPL-2.0
/* Unit tests for src/qdiscstuck/opts.c: defaults and values as the run sees them. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "qdiscstuck/judge.h"
#include "qdiscstuck/plan.h"
#include "qdiscstuck/opts.h"

const char *argp_program_version = "qdiscstuck (netmedic) test";

static void parse(struct qs_env *e, int argc, char **argv)
{
	*e = (struct qs_env){};
	qs_opts_parse(e, argc, argv);
}

/* no option: the detector's threshold, no remedy, idle qdiscs hidden, the default top and order */
static void test_defaults(void **state)
{
	char *argv[] = { "qdiscstuck", NULL };
	struct qs_env e;

	(void)state;
	parse(&e, 1, argv);
	assert_int_equal(e.threshold_ms, QS_THRESHOLD_MS_DEFAULT);
	assert_int_equal(e.fix, 0);
	assert_false(e.view.all || e.list_fixes);
	assert_int_equal(e.view.top, 0);
	assert_int_equal(e.view.sort, QS_SORT_QLEN);
	assert_null(e.kick);
	assert_null(e.lock);
}

/* --fix's words as bits; --lock kept as given (resolved after --netns); common options in e->o */
static void test_values(void **state)
{
	char *argv[] = { "qdiscstuck", "--threshold", "250", "--fix=lock,kick", "--lock", "eth0:3",
			 "--all", "-c", "4", "--top", "5", "--sort", "deq", NULL };
	struct qs_env e;

	(void)state;
	parse(&e, 13, argv);
	assert_int_equal(e.threshold_ms, 250);
	assert_int_equal(e.fix, QS_FIX_KICK | QS_FIX_LOCK);
	assert_string_equal(e.lock, "eth0:3");
	assert_true(e.view.all);
	assert_int_equal(e.o.count, 4);
	assert_int_equal(e.view.top, 5);
	assert_int_equal(e.view.sort, QS_SORT_DEQ);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_defaults),
		cmocka_unit_test(test_values),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
