// SPDX-License-Identifier: GPL-2.0
/*
 * Unit tests for xpsflap's --pin policy (src/xpsflap/plan.c): the
 * XPS maps it clears and those it leaves (empty, unreadable), the count,
 * the device with one queue, the refused program, and the clsact qdisc
 * and tc filter (nm_plan_tc_bpf) with the tc commands that undo them.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <cmocka.h>

#include "xpsflap/xpsflap.h"
#include "xpsflap/plan.h"

static const struct xf_pin_queue four[] = {
	{ .name = "tx-1", .xps = "00000002", .read = true },
	{ .name = "tx-0", .xps = "00000001", .read = true },
	{ .name = "tx-3", .xps = "00000000,00000000", .read = true },	/* no map */
	{ .name = "tx-2", .read = false },				/* no xps_cpus */
};

static struct xf_pin_dev dev(const struct xf_pin_queue *q, size_t n, bool prog)
{
	return (struct xf_pin_dev){ .dev = "veth-a", .tag = "--pin veth-a", .ifindex = 7,
				    .ntxq = (int)n, .q = q, .nq = n, .prog_fd = prog ? 9 : -1 };
}

static void line_is(const struct nm_action *a, const char *want)
{
	char line[1024];

	assert_int_equal(nm_action_line(a, line, sizeof(line)), 0);
	assert_string_equal(line, want);
}

static void test_pin(void **state)
{
	struct xf_pin_dev d = dev(four, 4, true);
	struct nm_tc_target t;
	struct nm_plan p = {};

	(void)state;
	assert_int_equal(xf_pin_plan(&d, &p), 0);
	assert_int_equal(p.n, 5);
	/* the set maps, in directory order, each required */
	for (int i = 0; i < 2; i++) {
		assert_int_equal(p.a[i].kind, NM_ACT_FILE);
		assert_true(p.a[i].flags & NM_ACT_REQUIRED);
		assert_string_equal(p.a[i].tag, "--pin veth-a");
		assert_string_equal(p.a[i].val, "0");
	}
	assert_string_equal(p.a[0].target, "/sys/class/net/veth-a/queues/tx-1/xps_cpus");
	assert_string_equal(p.a[1].target, "/sys/class/net/veth-a/queues/tx-0/xps_cpus");
	/* the old value is the executor's, read when it writes */
	snprintf(p.a[0].old, sizeof(p.a[0].old), "00000002");
	line_is(&p.a[0], "pin: veth-a tx-1 xps_cpus 00000002 -> 0");
	line_is(&p.a[2], "pin: veth-a: 2 XPS map(s) cleared");
	/* then the clsact qdisc and the filter, their undo journaled first */
	assert_int_equal(p.a[3].kind, NM_ACT_TC_CLSACT);
	assert_true(p.a[3].flags & NM_ACT_REQUIRED);
	assert_string_equal(p.a[3].tag, "--pin veth-a");
	assert_string_equal(p.a[3].undo, "tc_clsact\tveth-a\t7");
	t = p.a[3].tc;
	assert_string_equal(t.dev, "veth-a");
	assert_int_equal(t.ifindex, 7);
	/* a clsact found there makes no line */
	assert_string_equal(p.a[3].line, "");
	assert_int_equal(p.a[4].kind, NM_ACT_TC_FILTER);
	assert_true(p.a[4].flags & NM_ACT_REQUIRED);
	assert_string_equal(p.a[4].undo, "tc_filter\tveth-a\t7\tegress\t49374\t0x5f");
	/* the filter runs the pin program, on egress, with the pin's pref and handle */
	t = p.a[4].tc;
	assert_false(t.ingress);
	assert_int_equal(t.ifindex, 7);
	assert_int_equal(t.pref, XF_PIN_TC_PRIO);
	assert_int_equal(t.handle, XF_PIN_TC_HANDLE);
	assert_int_equal(t.prog_fd, 9);
	line_is(&p.a[4], "pin: veth-a: tc egress filter pref 49374 handle 0x5f chooses the queue from the 5-tuple");
	/* one remedy: a failure leaves the device's later changes */
	for (size_t i = 1; i < p.n; i++)
		assert_int_equal(p.a[i].remedy, p.a[0].remedy);
	nm_plan_free(&p);
}

static void test_pin_no_maps(void **state)
{
	struct xf_pin_dev d = dev(four + 2, 2, true);
	struct nm_plan p = {};

	(void)state;
	/* nothing to clear: said, and the queue is still chosen by the filter */
	assert_int_equal(xf_pin_plan(&d, &p), 0);
	assert_int_equal(p.n, 3);
	line_is(&p.a[0], "pin: veth-a: 0 XPS map(s) cleared");
	assert_int_equal(p.a[1].kind, NM_ACT_TC_CLSACT);
	assert_int_equal(p.a[2].kind, NM_ACT_TC_FILTER);
	nm_plan_free(&p);
}

static void test_pin_not(void **state)
{
	struct xf_pin_dev d = dev(four, 1, true);
	struct nm_plan p = {};

	(void)state;
	/* one TX queue: nothing changed */
	assert_int_equal(xf_pin_plan(&d, &p), 0);
	assert_int_equal(p.n, 1);
	assert_int_equal(p.a[0].kind, NM_ACT_NOTE);
	line_is(&p.a[0], "pin: veth-a has 1 TX queue: nothing can flap there, nothing changed");
	nm_plan_free(&p);
	d.ntxq = 0;
	assert_int_equal(xf_pin_plan(&d, &p), 0);
	line_is(&p.a[0], "pin: veth-a has 0 TX queue: nothing can flap there, nothing changed");
	nm_plan_free(&p);

	/* the program refused: the maps only, and said */
	d = dev(four, 4, false);
	assert_int_equal(xf_pin_plan(&d, &p), 0);
	assert_int_equal(p.n, 4);
	assert_int_equal(p.a[0].kind, NM_ACT_FILE);
	assert_int_equal(p.a[1].kind, NM_ACT_FILE);
	line_is(&p.a[3], "pin: veth-a: no tc program here: the kernel's flow hash picks each flow's queue");
	for (size_t i = 0; i < p.n; i++)
		assert_true(p.a[i].kind == NM_ACT_FILE || p.a[i].kind == NM_ACT_NOTE);
	nm_plan_free(&p);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_pin),
		cmocka_unit_test(test_pin_no_maps),
		cmocka_unit_test(test_pin_not),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
