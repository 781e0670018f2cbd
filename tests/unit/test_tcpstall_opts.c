// SPDX-License-Identifier: GPL-2.0
/* Unit tests for src/tcpstall/opts.c: defaults and values as the run sees them. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "tcpstall/plan.h"
#include "tcpstall/opts.h"
#include "tcpstall/report.h"

const char *argp_program_version = "tcpstall (netmedic) test";

static void parse(struct ts_env *e, int argc, char **argv)
{
	*e = (struct ts_env){};
	ts_opts_parse(e, argc, argv);
}

/* no option: 10 ms threshold and sweep, 65536 slots, the detector's storm and kick settings */
static void test_defaults(void **state)
{
	const struct ts_storm_cfg storm = TS_STORM_CFG_DEFAULT;
	const struct ts_kick_cfg kick = TS_KICK_CFG_DEFAULT;
	char *argv[] = { "tcpstall", NULL };
	struct ts_env e;

	(void)state;
	parse(&e, 1, argv);
	assert_int_equal(e.threshold_ms, 10);
	assert_int_equal(e.sweep_ms, 10);
	assert_int_equal(e.max_flows, 65536);
	assert_int_equal(e.port, 0);
	assert_int_equal(e.fix, 0);
	assert_int_equal(e.storm.min_segs, storm.min_segs);
	assert_true(e.storm.min_owned_ratio == storm.min_owned_ratio);
	assert_int_equal(e.kick.gap_ns, kick.gap_ns);
	assert_int_equal(e.kick.batch, kick.batch);
	assert_false(e.hist || e.prom_netns || e.list_fixes || e.o.json);
	assert_int_equal(e.view.sort, TS_SORT_ACKS);
}

/* every option reaches its field; --max-flows is rounded up to a power of two */
static void test_values(void **state)
{
	char *argv[] = { "tcpstall", "--threshold", "25", "--sweep", "5", "--port", "5201",
			 "--max-flows", "1000", "-H", "--prom-netns", "--min-segs", "50",
			 "--fix=kick,rfs", "--list-fixes", "--json", "--sort", "owned", NULL };
	char *named[] = { "tcpstall", "--port", "http", NULL };
	struct ts_env e;

	(void)state;
	parse(&e, 18, argv);
	assert_int_equal(e.threshold_ms, 25);
	assert_int_equal(e.sweep_ms, 5);
	assert_int_equal(e.port, 5201);
	assert_int_equal(e.max_flows, 1024);
	assert_int_equal(e.storm.min_segs, 50);
	assert_int_equal(e.fix, TS_FIX_KICK | TS_FIX_RFS);
	assert_true(e.hist && e.prom_netns && e.list_fixes && e.o.json);
	assert_int_equal(e.view.sort, TS_SORT_OWNED);
	/* #37: a port by its TCP service's name, as ss takes it */
	parse(&e, 3, named);
	assert_int_equal(e.port, 80);
}

/* --fix alone: the storm's and tsq_idle's sysctls */
static void test_fix_default(void **state)
{
	char *argv[] = { "tcpstall", "--fix", NULL };
	struct ts_env e;

	(void)state;
	parse(&e, 2, argv);
	assert_int_equal(e.fix, TS_FIX_DEFER | TS_FIX_AUTOCORK);
}

/* NETMEDIC_TEST_KICK: only with --fix=kick; "any" and "crash" widen the kick, "crash" halts it. */
static void test_test_aids(void **state)
{
	struct ts_env e = { .fix = TS_FIX_DEFER };

	(void)state;
	ts_opts_test_aids(&e, "crash");
	assert_false(e.kick.any_state || e.kick_halt);
	e.fix |= TS_FIX_KICK;
	ts_opts_test_aids(&e, NULL);
	assert_false(e.kick.any_state || e.kick_halt);
	ts_opts_test_aids(&e, "other");
	assert_false(e.kick.any_state || e.kick_halt);
	ts_opts_test_aids(&e, "any");
	assert_true(e.kick.any_state);
	assert_false(e.kick_halt);
	e.kick.any_state = false;
	ts_opts_test_aids(&e, "crash");
	assert_true(e.kick.any_state && e.kick_halt);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_defaults),
		cmocka_unit_test(test_values),
		cmocka_unit_test(test_fix_default),
		cmocka_unit_test(test_test_aids),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
