// SPDX-License-Identifier: GPL-2.0
/*
 * Unit tests for src/tcpstall/collect.c's pure parts: the report's
 * settings from the options, the scope's figures of the interval record,
 * and the ACK flow table's fill for the textfile. The reads of the BPF
 * side are the integration tests' (tests/integration/tcpstall*.bats).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <cmocka.h>

#include "tcpstall/collect.h"

static void test_settings(void **state)
{
	struct ts_env env = { .threshold_ms = 200, .hist = true, .view = { .top = 3, .all = true },
			      .prom_netns = true };
	struct ts_report rep;

	(void)state;
	memset(&rep, 0, sizeof(rep));
	env.o.nnetns = 1;
	env.o.netns_ino = 4026531840ul;
	ts_collect_settings(&rep, &env);
	assert_int_equal(rep.threshold_ms, 200);
	assert_ptr_equal(rep.storm, &env.storm);
	assert_true(rep.hist && rep.all && rep.prom_netns);
	assert_int_equal(rep.top, 3);
	assert_int_equal(rep.self_ino, 4026531840ul);
	/* one --netns: one set of metrics */
	assert_false(rep.per_ns);
	/* host-wide, or several --netns: each netns its own */
	env.o.nnetns = 0;
	ts_collect_settings(&rep, &env);
	assert_true(rep.per_ns);
	env.o.nnetns = 2;
	ts_collect_settings(&rep, &env);
	assert_true(rep.per_ns);
}

static void test_scope_in(void **state)
{
	struct nm_scope_counts sc = { .ns = 12, .ns_over = 3, .socks_over = 9, .devs_over = 5 };
	struct ts_interval_in in = { .sweeps = 7 };

	(void)state;
	ts_collect_scope_in(&sc, 10, 2, &in);
	assert_int_equal(in.netns_named, 12);
	assert_int_equal(in.netns_swept, 10);
	/* the registry's cap and the sweeps' both count; the device caps do not */
	assert_int_equal(in.netns_over, 5);
	assert_int_equal(in.sweeps, 7);
}

static void test_acks_map(void **state)
{
	struct nm_emit_map m = ts_collect_acks_map(17, 4096, 4, 9);

	(void)state;
	assert_string_equal(m.name, "acks");
	assert_int_equal(m.entries, 17);
	assert_int_equal(m.max, 4096);
	assert_int_equal(m.evictions, 4);
	assert_true(m.direct);
	assert_int_equal(m.untracked, 9);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_settings),
		cmocka_unit_test(test_scope_in),
		cmocka_unit_test(test_acks_map),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
