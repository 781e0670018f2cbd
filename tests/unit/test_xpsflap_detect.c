// SPDX-License-Identifier: GPL-2.0
/* xpsflap decisions on synthetic flow counters. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>
#include "xpsflap/judge.h"

static struct xf_flow flow(uint64_t queues, uint32_t epoch, uint32_t epoch_switches, uint64_t last_ns)
{
	struct xf_flow f = { .packets = 10, .queues = queues, .switches = 100 + epoch_switches,
			     .epoch = epoch, .epoch_switches = epoch_switches, .last_ns = last_ns };
	return f;
}

static void test_flapping_needs_switches_in_this_interval(void **state)
{
	(void)state;
	struct xf_flow f = flow(0x3, 7, 5, 2000);

	assert_true(xf_flapping(&f, 7, 2));
	assert_int_equal(xf_interval_switches(&f, 7), 5);
	/* its switches belong to an older interval: flapped before, not now */
	assert_false(xf_flapping(&f, 8, 2));
	assert_int_equal(xf_interval_switches(&f, 8), 0);
	/* one switch is a move (rehash after RTO), not flapping */
	f = flow(0x3, 7, 1, 2000);
	assert_false(xf_flapping(&f, 7, 2));
	assert_true(xf_flapping(&f, 7, 1));
	/* min_switches 0 still needs a switch */
	f = flow(0x3, 7, 0, 2000);
	assert_false(xf_flapping(&f, 7, 0));
	/* one queue cannot flap */
	f = flow(0x1, 7, 5, 2000);
	assert_false(xf_flapping(&f, 7, 2));
}

static void test_in_flight_sums_every_slot(void **state)
{
	(void)state;
	struct xf_flow f = flow(0x3, 7, 5, 2000);

	assert_int_equal(xf_in_flight(&f), 0);
	f.inflight[0] = 4000000000u;	/* per slot a u32: the sum must not wrap */
	f.inflight[1] = 1448;
	f.inflight[XF_INFLIGHT_SLOTS - 1] = 2000000000u;
	assert_true(xf_in_flight(&f) == 6000001448ull);
}

static void test_unflushed_and_monotonic(void **state)
{
	(void)state;
	struct xf_flow f = flow(0x3, 7, 5, 2000);
	uint64_t p = 7, b = 7;

	f.packets = 100;
	f.bytes = 150000;
	f.packets_flushed = 60;
	f.bytes_flushed = 90000;
	assert_true(xf_unflushed(&f, &p, &b));
	assert_true(p == 40 && b == 60000);
	/* a slot caught mid-claim: counts zeroed, flushed not yet */
	f.packets = 0;
	assert_false(xf_unflushed(&f, &p, &b));
	f.packets = 100;
	f.bytes = 0;
	assert_false(xf_unflushed(&f, &p, &b));
	/* a short read never takes a counter back */
	assert_true(xf_monotonic(500, 480) == 500);
	assert_true(xf_monotonic(500, 520) == 520);
	assert_true(xf_monotonic(0, 0) == 0);
}

static void test_active(void **state)
{
	(void)state;
	struct xf_flow f = flow(0x1, 0, 0, 2000);

	assert_true(xf_active(&f, 2000));
	assert_false(xf_active(&f, 2001));
	f.packets = 0;
	assert_false(xf_active(&f, 0));
}

static void test_bits_and_queues(void **state)
{
	(void)state;
	uint32_t b[64];

	assert_int_equal(xf_nqueues(0), 0);
	assert_int_equal(xf_nqueues(0x8000000000000001ULL), 2);
	assert_int_equal(xf_bits(0x8000000000000005ULL, b, 64), 3);
	assert_int_equal(b[0], 0);
	assert_int_equal(b[1], 2);
	assert_int_equal(b[2], 63);
	/* bounded by max */
	assert_int_equal(xf_bits(0xff, b, 2), 2);
	assert_int_equal(b[1], 1);
}

static void test_worst_first(void **state)
{
	(void)state;
	struct xf_entry e[4] = {};

	e[0].val.switches = 1;
	e[1].val.switches = 9;
	e[2].val.switches = 9;
	e[2].val.risky_switches = 3;
	e[3].val.switches = 0;
	e[3].val.packets = 1000;
	qsort(e, 4, sizeof(e[0]), xf_cmp_worst);
	assert_int_equal(e[0].val.risky_switches, 3);
	assert_int_equal(e[1].val.switches, 9);
	assert_int_equal(e[2].val.switches, 1);
	assert_int_equal(e[3].val.packets, 1000);
}

/* each --sort key ranks by its counter first, the default order breaking ties */
static void test_sort_keys(void **state)
{
	(void)state;
	struct xf_entry a = { .val = { .switches = 9, .queues = 0x3 } }, b = a;
	enum xf_sort k;

	b.val.switches = 1;
	b.val.risky_switches = b.val.reordered = 5;
	b.val.packets = 500;
	b.val.bytes = 50000;
	b.val.queues = 0x7;
	for (k = XF_SORT_RISKY; k < XF_NR_SORTS; k++) {
		assert_true(xf_cmp_by(&b, &a, &k) < 0);
		assert_true(xf_cmp_by(&a, &b, &k) > 0);
		assert_non_null(xf_sort_names[k]);
	}
	k = XF_SORT_SWITCHES;
	assert_true(xf_cmp_by(&a, &b, &k) < 0);
	assert_int_equal(xf_cmp_by(&a, &b, &k), xf_cmp_worst(&a, &b));
	/* a tie on the key: the default order */
	b.val.packets = 0;
	k = XF_SORT_PACKETS;
	assert_true(xf_cmp_by(&a, &b, &k) < 0);
	assert_string_equal(xf_sort_names[XF_SORT_SWITCHES], "switches");
}

static void test_proto_and_xps_mask(void **state)
{
	(void)state;
	char buf[8];

	assert_string_equal(xf_proto_name(6, buf, sizeof(buf)), "tcp");
	assert_string_equal(xf_proto_name(17, buf, sizeof(buf)), "udp");
	assert_string_equal(xf_proto_name(58, buf, sizeof(buf)), "icmp6");
	assert_string_equal(xf_proto_name(132, buf, sizeof(buf)), "132");
	assert_false(xf_xps_mask_set("00000000"));
	assert_false(xf_xps_mask_set("00000000,00000000\n"));
	assert_false(xf_xps_mask_set(""));
	assert_true(xf_xps_mask_set("00000001"));
	assert_true(xf_xps_mask_set("00000000,00000100"));
}

/* #37: neighbour discovery, MLD and IGMP are every link's noise, not its traffic */
static void test_link_local(void **state)
{
	struct xf_flow_key k = { .family = NM_AF_INET6, .proto = 58,
				 .saddr = { 0xfe, 0x80, [15] = 1 }, .daddr = { 0xfe, 0x80, [15] = 2 } };
	static const uint8_t global[16] = { 0x20, 0x01, 0x0d, 0xb8, [15] = 1 };
	static const uint8_t all_nodes[16] = { 0xff, 0x02, [15] = 1 };
	static const uint8_t site_mcast[16] = { 0xff, 0x05, [15] = 1 };
	static const uint8_t unspec[16] = {};

	(void)state;
	/* ICMPv6 between link-local addresses (a ping of fe80::, ND) */
	assert_true(xf_link_local(&k));
	/* ... from an address not yet there (DAD, an early MLD report) to a link-scope group */
	memcpy(k.saddr, unspec, 16);
	memcpy(k.daddr, all_nodes, 16);
	assert_true(xf_link_local(&k));
	k.proto = 0;	/* MLD: a hop-by-hop header before the ICMPv6 one */
	assert_true(xf_link_local(&k));
	/* a global one's ping, a site-scope group's, and UDP to fe80:: are traffic */
	k.proto = 58;
	memcpy(k.saddr, global, 16);
	memcpy(k.daddr, global, 16);
	assert_false(xf_link_local(&k));
	memcpy(k.daddr, site_mcast, 16);
	assert_false(xf_link_local(&k));
	k.proto = 17;
	memcpy(k.daddr, all_nodes, 16);
	assert_false(xf_link_local(&k));
	/* IPv4: IGMP only, whatever its addresses; an ICMP ping is traffic */
	k = (struct xf_flow_key){ .family = NM_AF_INET, .proto = 2, .daddr = { 224, 0, 0, 22 } };
	assert_true(xf_link_local(&k));
	k.proto = 1;
	assert_false(xf_link_local(&k));
}

/* The verdicts the sinks read, set once: flapping, this interval's switches, in flight. */
static void test_judge_sets_the_verdicts(void **state)
{
	struct xf_entry e = { .val = { .queues = 0x3, .epoch = 4, .epoch_switches = 3 } };

	(void)state;
	e.val.inflight[1] = 10;
	e.val.inflight[6] = 5;
	xf_judge(&e, 4, 2);
	assert_true(e.flapping);
	assert_int_equal(e.interval_switches, 3);
	assert_int_equal(e.in_flight, 15);
	/* the next interval: nothing switched in it yet */
	xf_judge(&e, 5, 2);
	assert_false(e.flapping);
	assert_int_equal(e.interval_switches, 0);
	/* one queue: switches alone do not make it flap */
	e.val.queues = 0x1;
	xf_judge(&e, 4, 2);
	assert_false(e.flapping);
	assert_int_equal(e.interval_switches, 3);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_flapping_needs_switches_in_this_interval),
		cmocka_unit_test(test_in_flight_sums_every_slot),
		cmocka_unit_test(test_unflushed_and_monotonic),
		cmocka_unit_test(test_active),
		cmocka_unit_test(test_bits_and_queues),
		cmocka_unit_test(test_worst_first),
		cmocka_unit_test(test_sort_keys),
		cmocka_unit_test(test_proto_and_xps_mask),
		cmocka_unit_test(test_judge_sets_the_verdicts),
		cmocka_unit_test(test_link_local),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
