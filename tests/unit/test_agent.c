// SPDX-License-Identifier: GPL-2.0
/*
 * The agent's command line (lib/agent.h): the option a word of --opts
 * gives, and --prom-split's textfiles' names.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <cmocka.h>

#include "lib/agent.h"

static void test_option_of(void **state)
{
	static const struct argp_option opts[] = {
		{ "interval", 'i', "SEC", 0, "", 0 },
		{ "json", 1001, NULL, 0, "", 0 },
		{ "prom-file", 1002, "PATH", 0, "", 0 },
		{},
	};

	(void)state;
	assert_ptr_equal(nm_agent_option_of(opts, "-i"), &opts[0]);
	assert_ptr_equal(nm_agent_option_of(opts, "-i5"), &opts[0]);
	assert_ptr_equal(nm_agent_option_of(opts, "--interval=5"), &opts[0]);
	assert_ptr_equal(nm_agent_option_of(opts, "--inter=5"), &opts[0]);
	assert_ptr_equal(nm_agent_option_of(opts, "--j"), &opts[1]);
	assert_ptr_equal(nm_agent_option_of(opts, "--prom"), &opts[2]);
	/* a detector's own, and what is no option's */
	assert_null(nm_agent_option_of(opts, "--top"));
	assert_null(nm_agent_option_of(opts, "--intervals"));
	assert_null(nm_agent_option_of(opts, "--"));
	assert_null(nm_agent_option_of(opts, "-x"));
	assert_null(nm_agent_option_of(opts, "5"));
}

static void test_split_name(void **state)
{
	char b[64];

	(void)state;
	assert_int_equal(nm_agent_split_name(b, sizeof(b), "/var/lib/ne/netmedic.prom", "xpsflap"), 0);
	assert_string_equal(b, "/var/lib/ne/netmedic-xpsflap.prom");
	assert_int_equal(nm_agent_split_name(b, sizeof(b), "out", "tcpstall"), 0);
	assert_string_equal(b, "out-tcpstall");
	/* a dot of a directory's name is not the file's */
	assert_int_equal(nm_agent_split_name(b, sizeof(b), "/d.prom/m", "qdiscstuck"), 0);
	assert_string_equal(b, "/d.prom/m-qdiscstuck");
	assert_int_equal(nm_agent_split_name(b, sizeof(b), "/d/.prom", "qdiscstuck"), 0);
	assert_string_equal(b, "/d/.prom-qdiscstuck");
	assert_int_equal(nm_agent_split_name(b, 12, "/var/lib/netmedic.prom", "xpsflap"), -ENAMETOOLONG);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_option_of),
		cmocka_unit_test(test_split_name),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
