// SPDX-License-Identifier: GPL-2.0
/* Unit tests for src/qdiscstuck/act.c: --kick's and --lock's DEV:QUEUE, resolved. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <net/if.h>
#include <cmocka.h>

#include "qdiscstuck/act.h"

/* lo has one TX queue: tx-0 is there, tx-1 and an unknown device are usage errors. */
static void test_resolve(void **state)
{
	unsigned int ifindex = 0, queue = 9;
	char dev[IF_NAMESIZE];
	struct qs_act qa;
	struct nm_opts o;

	(void)state;
	nm_opts_init(&o, "qdiscstuck");
	qs_act_init(&qa, &o);
	assert_int_equal(qs_act_resolve(&qa, "lo:0", "--kick", dev, &ifindex, &queue), 0);
	assert_string_equal(dev, "lo");
	assert_int_equal(ifindex, if_nametoindex("lo"));
	assert_int_equal(queue, 0);
	assert_int_equal(qs_act_resolve(&qa, "lo:1", "--kick", dev, &ifindex, &queue), NM_EXIT_USAGE);
	assert_int_equal(qs_act_resolve(&qa, "nm-no-such0:0", "--lock", dev, &ifindex, &queue),
			 NM_EXIT_USAGE);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_resolve),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
