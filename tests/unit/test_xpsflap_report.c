// SPDX-License-Identifier: GPL-2.0
/*
 * Unit tests for src/xpsflap/report.c: which flows a report shows
 * (the flapping ones and the top N, or with all every active one), in
 * what order (--sort), what the interval record counts of the rest, the
 * table's heading, and the textfile's queues (monotonic, a gone device's
 * slot starting again from 0).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "xpsflap/report.h"
#include "capture.h"

#define NS	4026532246UL
#define EPOCH	9
#define SINCE	1000

static const char *dev_name(void *arg, unsigned long netns, unsigned int ifindex, char *buf,
			    size_t len)
{
	(void)arg;
	snprintf(buf, len, "%s%u", netns == NS ? "xqm" : "if", ifindex);
	return buf;
}

static const char *ns_name(void *arg, unsigned long netns, char *buf, size_t len)
{
	(void)arg;
	snprintf(buf, len, "%s", netns == NS ? "nm-xf-mid" : "host");
	return buf;
}

static struct xf_report *new_report(size_t top, bool all)
{
	struct xf_report *r = calloc(1, sizeof(*r));

	assert_non_null(r);
	r->min_switches = 2;
	r->top = top;
	r->all = all;
	r->dev_name = dev_name;
	r->ns_name = ns_name;
	r->since_ns = SINCE;
	xf_report_start(r, 2000, EPOCH);
	return r;
}

static void free_report(struct xf_report *r)
{
	xf_report_free(r);
	free(r);
}

/*
 * A flow of sport port: switches in all, flapping ones switched this
 * interval, idle ones picked before it.
 */
static struct xf_entry *flow(struct xf_report *r, uint16_t port, uint32_t switches,
			     uint64_t packets, bool flapping, bool idle)
{
	struct xf_entry *e = xf_report_add(r);

	assert_non_null(e);
	e->key = (struct xf_flow_key){ .netns = NS, .ifindex = 3, .family = 2, .proto = 17,
				       .sport = port, .dport = 9, .saddr = { 198, 18, 0, 1 },
				       .daddr = { 198, 18, 0, 2 } };
	e->val = (struct xf_flow){ .queues = 0x3, .switches = switches, .packets = packets,
				   .bytes = packets * 100, .last_ns = idle ? SINCE - 1 : SINCE,
				   .epoch = flapping ? EPOCH : EPOCH - 1,
				   .epoch_switches = flapping ? 2 : 0 };
	return e;
}

static void assert_ports(const struct xf_report *r, const uint16_t *ports, size_t n)
{
	assert_int_equal(r->shown, n);
	for (size_t i = 0; i < n; i++)
		assert_int_equal(r->e[i].key.sport, ports[i]);
}

static const struct nm_scope_counts no_scope;

/* 6 active flows, 2 of them flapping below the top 2, one idle: 2 + 2 shown, 2 counted */
static void test_top_and_flapping(void **state)
{
	struct xf_report *r = new_report(2, false);
	static const uint16_t want[] = { 1, 2, 5, 6 };

	(void)state;
	flow(r, 4, 5, 10, false, false);
	flow(r, 6, 1, 10, true, false);
	flow(r, 2, 8, 10, false, false);
	flow(r, 7, 50, 10, false, true);	/* idle: neither shown nor counted */
	flow(r, 3, 6, 10, false, false);
	flow(r, 1, 9, 10, false, false);
	flow(r, 5, 3, 10, true, false);
	xf_report_rank(r);
	assert_int_equal(r->active, 6);
	assert_int_equal(r->flapping, 2);
	/* the top two, then the flapping ones after them, worst first */
	assert_ports(r, want, 4);
	assert_true(xf_report_shown(r, 0));
	assert_true(xf_report_shown(r, 3));
	assert_false(xf_report_shown(r, 4));
	assert_false(xf_report_shown(r, 6));	/* not active */
	xf_report_interval(r, &no_scope, 1796177158, 65536);
	assert_int_equal(r->ival.flows_active, 6);
	assert_int_equal(r->ival.flows_not_shown, 2);
	assert_int_equal(r->ival.flows_tracked, 7);
	free_report(r);
}

/* all: every active flow, worst first, none left out */
static void test_all(void **state)
{
	struct xf_report *r = new_report(2, true);
	static const uint16_t want[] = { 1, 2, 3, 4, 5, 6 };

	(void)state;
	for (uint16_t p = 6; p >= 1; p--)
		flow(r, p, 10 - p, 10, p == 6, false);
	flow(r, 7, 50, 10, false, true);
	xf_report_rank(r);
	assert_ports(r, want, 6);
	xf_report_interval(r, &no_scope, 0, 65536);
	assert_int_equal(r->ival.flows_not_shown, 0);
	free_report(r);
}

/*
 * #37: link-local control flows (ND, MLD, IGMP) are left out of the report
 * and of its counts, and counted apart; link_local (--link-local) keeps
 * them as any flow.
 */
static void test_link_local(void **state)
{
	struct xf_report *r = new_report(0, true);
	static const uint16_t want[] = { 1, 2 };
	struct nm_emit e = {};
	struct xf_entry *mld, *igmp;

	(void)state;
	flow(r, 1, 9, 10, true, false);
	mld = flow(r, 0, 40, 10, true, false);
	mld->key = (struct xf_flow_key){ .netns = NS, .ifindex = 3, .family = NM_AF_INET6,
					 .proto = 0, .daddr = { 0xff, 0x02, [15] = 0x16 } };
	igmp = flow(r, 0, 30, 10, false, false);
	igmp->key = (struct xf_flow_key){ .netns = NS, .ifindex = 3, .family = NM_AF_INET,
					  .proto = 2, .daddr = { 224, 0, 0, 22 } };
	flow(r, 2, 1, 10, false, false);
	xf_report_rank(r);
	/* --all: every active flow but those two, which are not active nor flapping either */
	assert_ports(r, want, 2);
	assert_int_equal(r->active, 2);
	assert_int_equal(r->flapping, 1);
	xf_report_interval(r, &no_scope, 1796177158, 65536);
	assert_int_equal(r->ival.flows_active, 2);
	assert_int_equal(r->ival.flows_not_shown, 0);
	assert_int_equal(r->ival.flows_link_local, 2);
	xf_report_emit(r, &e, true);
	assert_string_equal(e.table[0].heading, "flows: 2 active, 1 flapping, 4 tracked of 65536, "
				"0 evicted, 2 link-local left out");
	/* --link-local: they are flows as any other, the worst first */
	r->link_local = true;
	xf_report_rank(r);
	assert_int_equal(r->active, 4);
	assert_int_equal(r->flapping, 2);
	assert_int_equal(r->e[0].key.proto, 0);
	xf_report_interval(r, &no_scope, 1796177158, 65536);
	assert_int_equal(r->ival.flows_link_local, 0);
	free_report(r);
}

/* fewer active flows than the top: all shown; top 0 is the default, 20 */
static void test_fewer_than_top(void **state)
{
	struct xf_report *r = new_report(0, false);

	(void)state;
	for (uint16_t p = 1; p <= 21; p++)
		flow(r, p, 100 - p, 10, false, false);
	xf_report_rank(r);
	assert_int_equal(r->active, 21);
	assert_int_equal(r->shown, XF_REPORT_TOP);
	assert_int_equal(r->e[XF_REPORT_TOP - 1].key.sport, 20);
	free_report(r);
	r = new_report(5, false);
	flow(r, 1, 0, 10, false, false);
	flow(r, 2, 0, 10, false, true);
	xf_report_rank(r);
	assert_int_equal(r->shown, 1);
	assert_int_equal(r->active, 1);
	free_report(r);
}

/* --sort packets: the top one by packets, the flapping one still shown */
static void test_sort(void **state)
{
	struct xf_report *r = new_report(1, false);
	static const uint16_t want[] = { 2, 3 };

	(void)state;
	r->sort = XF_SORT_PACKETS;
	flow(r, 1, 90, 10, false, false);
	flow(r, 2, 1, 5000, false, false);
	flow(r, 3, 2, 20, true, false);
	xf_report_rank(r);
	assert_ports(r, want, 2);
	/* queues: port 1 on three; the ties (two queues each) go by the default order */
	r->sort = XF_SORT_QUEUES;
	assert_int_equal(r->e[2].key.sport, 1);
	r->e[2].val.queues = 0x7;
	xf_report_start(r, 2000, EPOCH);
	r->n = 3;
	xf_report_rank(r);
	assert_int_equal(r->e[0].val.queues, 0x7);
	assert_int_equal(r->e[0].val.switches, 90);
	assert_int_equal(r->e[1].key.sport, 3);
	free_report(r);
}

/* the interval's counts, the flows shown as rows, and the heading saying the rest */
static void test_emit(void **state)
{
	struct xf_report *r = new_report(1, false);
	struct nm_emit e = {};
	struct capture c;
	char *got;

	(void)state;
	flow(r, 1, 9, 10, false, false);
	flow(r, 2, 1, 10, false, false);
	flow(r, 3, 1, 10, false, false);
	xf_report_rank(r);
	xf_report_interval(r, &no_scope, 1796177158, 65536);
	xf_report_emit(r, &e, false);
	assert_null(e.prom[0].rec);
	assert_string_equal(e.table[0].heading,
			    "flows: 3 active, 0 flapping, 3 tracked of 65536, 0 evicted, 2 not shown");
	assert_int_equal(e.table[0].top, 0);
	cap_open(&c);
	nm_emit_json(c.f, &e, "xpsflap");
	got = cap_close(&c);
	assert_non_null(strstr(got, "\"flows_active\":3,\"flows_flapping\":0,\"flows_not_shown\":2,"));
	/* one flow record: the worst, with its tool and the interval's time */
	assert_non_null(strstr(got, "\"type\":\"interval\",\"tool\":\"xpsflap\",\"time\":1796177158,"));
	assert_non_null(strstr(got, "\"type\":\"flow\",\"tool\":\"xpsflap\",\"time\":1796177158,"
				    "\"dev\":\"xqm3\",\"netns\":\"nm-xf-mid\""));
	assert_non_null(strstr(got, "\"sport\":1,"));
	assert_null(strstr(got, "\"sport\":2,"));
	assert_null(strstr(strstr(got, "\"type\":\"flow\"") + 1, "\"type\":\"flow\""));
	free(got);
	/* nothing left out: the heading as before */
	r->all = true;
	xf_report_rank(r);
	xf_report_interval(r, &no_scope, 1796177158, 65536);
	memset(&e, 0, sizeof(e));
	xf_report_emit(r, &e, true);
	assert_string_equal(e.table[0].heading,
			    "flows: 3 active, 0 flapping, 3 tracked of 65536, 0 evicted");
	assert_string_equal(e.map.name, "flows");
	assert_int_equal(e.map.entries, 3);
	free_report(r);
}

/* the textfile's queues: summed over CPUs, never going back, a gone slot from 0 again */
static void test_dev_rows(void **state)
{
	struct xf_report *r = new_report(1, false);
	const struct xf_dev_id id = { .netns = NS, .ifindex = 3 };
	struct xf_dev_stats cpu[2] = { { .packets = 10, .bytes = 1000, .switches = 1 },
				       { .packets = 5, .bytes = 500, .reordered = 2 } };

	(void)state;
	xf_report_totals_clear(r);
	xf_report_slot(r, 4, &id);
	xf_report_queue_sum(r, 4, 1, cpu, 2);
	xf_report_unflushed(r, 4, 1, 3, 300);
	xf_report_unflushed(r, 4, 200, 1, 100);	/* from 63 up: the last queue */
	assert_int_equal(xf_report_dev_rows(r), 2);
	assert_string_equal(r->dev_rows[0].device, "xqm3");
	assert_string_equal(r->dev_rows[0].netns, "nm-xf-mid");
	assert_int_equal(r->dev_rows[0].queue, 1);
	assert_int_equal(r->dev_rows[0].packets, 18);
	assert_int_equal(r->dev_rows[0].bytes, 1800);
	assert_int_equal(r->dev_rows[0].reordered, 2);
	assert_int_equal(r->dev_rows[1].queue, XF_DEV_QUEUES - 1);
	/* a flush between the reads made the next sums short: the rows show what they showed */
	xf_report_totals_clear(r);
	xf_report_queue_sum(r, 4, 1, cpu, 2);
	assert_int_equal(xf_report_dev_rows(r), 2);
	assert_int_equal(r->dev_rows[0].packets, 18);
	assert_int_equal(r->dev_rows[1].packets, 1);
	/* the device went: its slot's next device starts from 0 */
	xf_report_slot_gone(r, 4);
	assert_int_equal(xf_report_dev_rows(r), 0);
	xf_report_slot(r, 4, &id);
	xf_report_queue_sum(r, 4, 1, cpu, 1);
	assert_int_equal(xf_report_dev_rows(r), 1);
	assert_int_equal(r->dev_rows[0].packets, 10);
	/* slots and queues out of range are ignored */
	xf_report_slot(r, XF_DEV_SLOTS, &id);
	xf_report_queue_sum(r, XF_DEV_SLOTS, 0, cpu, 2);
	xf_report_queue_sum(r, 4, XF_DEV_QUEUES, cpu, 2);
	assert_int_equal(xf_report_dev_rows(r), 1);
	free_report(r);
}

/* the copy grows past its first allocation, and a new report empties it */
static void test_add_grows(void **state)
{
	struct xf_report *r = new_report(0, false);

	(void)state;
	for (uint16_t p = 0; p < 3000; p++)
		flow(r, p, 0, 1, false, p % 2);
	assert_int_equal(r->n, 3000);
	xf_report_rank(r);
	assert_int_equal(r->active, 1500);
	assert_int_equal(r->shown, XF_REPORT_TOP);
	xf_report_next(r);
	assert_int_equal(r->since_ns, 2000);
	xf_report_start(r, 3000, EPOCH + 1);
	assert_int_equal(r->n, 0);
	assert_true(r->cap >= 3000);
	free_report(r);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_top_and_flapping),
		cmocka_unit_test(test_all),
		cmocka_unit_test(test_link_local),
		cmocka_unit_test(test_fewer_than_top),
		cmocka_unit_test(test_sort),
		cmocka_unit_test(test_emit),
		cmocka_unit_test(test_dev_rows),
		cmocka_unit_test(test_add_grows),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
