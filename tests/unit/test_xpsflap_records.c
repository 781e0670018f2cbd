// SPDX-License-Identifier: GPL-2.0
/*
 * Unit tests for src/xpsflap/records.c: a judged entry's row and its
 * output, and that docs/reference/xpsflap.md documents exactly the JSON
 * keys, table columns and xpsflap_ metrics that the field tables define
 * (netmedic_ self-metrics come from lib/selfstats.c, not from these
 * tables), and the man page, docs/xpsflap.md, names each record and column.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "xpsflap/records.h"
#include "capture.h"
#include "docs_check.h"

#ifndef NM_SRCDIR
#define NM_SRCDIR "."
#endif
/* the reference holds every key, column and metric; the man page, the short form, names them */
#define DOC NM_SRCDIR "/docs/reference/xpsflap.md"
#define MAN NM_SRCDIR "/docs/xpsflap.md"

static struct xf_entry entry(void)
{
	struct xf_entry e = {
		.key = { .netns = 4026532246, .ifindex = 3, .family = 2, .proto = 6, .sport = 42592,
			 .dport = 5201, .saddr = { 198, 18, 0, 1 }, .daddr = { 198, 18, 0, 2 } },
		.val = { .queues = 0x3, .cpus = 0x3, .last_queue = 1, .switches = 475,
			 .risky_switches = 132, .packets = 1952724, .bytes = 2817794605,
			 .reordered = 2559, .epoch = 9, .epoch_switches = 475 },
	};

	e.val.inflight[0] = 5;
	e.val.inflight[7] = 6;
	xf_judge(&e, 9, 2);
	return e;
}

static char *capture(void (*emit)(FILE *f, const void *arg), const void *arg)
{
	struct capture c;

	cap_open(&c);
	emit(c.f, arg);
	return cap_close(&c);
}

static void emit_json(FILE *f, const void *row)
{
	nm_rec_json(f, &xf_flow_rec, row);
}

static void emit_table(FILE *f, const void *row)
{
	nm_rec_table_header(f, &xf_flow_rec);
	nm_rec_table_row(f, &xf_flow_rec, row);
}

/* a lab run's bulk flow, as the loader wrote it before the tables */
static void test_flow_json_and_table(void **state)
{
	struct xf_entry e = entry();
	struct xf_flow_row r;
	char *got;

	(void)state;
	assert_true(e.flapping);
	assert_int_equal(e.interval_switches, 475);
	assert_int_equal(e.in_flight, 11);
	xf_flow_row(&r, &e, "xqm", "nm-xf-mid");
	got = capture(emit_json, &r);
	assert_string_equal(got,
		"{\"type\":\"flow\",\"dev\":\"xqm\",\"netns\":\"nm-xf-mid\",\"netns_ino\":4026532246,"
		"\"saddr\":\"198.18.0.1\","
		"\"daddr\":\"198.18.0.2\",\"sport\":42592,\"dport\":5201,\"proto\":\"tcp\","
		"\"has_sk\":false,\"packets\":1952724,\"bytes\":2817794605,\"queues\":[0,1],"
		"\"last_queue\":1,\"switches\":475,\"risky_switches\":132,\"in_flight_bytes\":11,"
		"\"reordered\":2559,\"cpus\":[0,1],\"interval_switches\":475,\"flapping\":true}\n");
	free(got);
	got = capture(emit_table, &r);
	assert_string_equal(got,
		"DEV      NETNS      QUEUE SWITCH  RISKY  REORD   PKTS CPUS FLOW (worst first)\n"
		"xqm      nm-xf-mid  0,1      475    132   2559   2.0M 0,1  198.18.0.1:42592>198.18.0.2:5201\n");
	free(got);
}

static void test_flow_strings(void **state)
{
	struct xf_entry e = entry();
	struct xf_flow_row r;

	(void)state;
	e.key.proto = 17;
	xf_flow_row(&r, &e, "averylongdevicename", "pause:4242");
	assert_string_equal(r.flow, "udp 198.18.0.1:42592>198.18.0.2:5201");
	e.key.family = 10;
	memset(e.key.saddr, 0, 16);
	memset(e.key.daddr, 0, 16);
	e.key.daddr[15] = 1;
	xf_flow_row(&r, &e, "x", "host");
	assert_string_equal(r.flow, "udp [::]:42592>[::1]:5201");
	e.key.proto = 58;
	xf_flow_row(&r, &e, "x", "host");
	assert_string_equal(r.flow, "icmp6 ::>::1");
	e.key.proto = 47;
	xf_flow_row(&r, &e, "x", "host");
	assert_string_equal(r.proto, "47");
	/* the verdicts are the entry's: not judged again */
	e.flapping = false;
	xf_flow_row(&r, &e, "x", "host");
	assert_false(r.flapping);
}

/*
 * The per-device metrics: labelled by netns and device (two devices of one
 * name in two namespaces stay apart), per queue or summed over queues.
 */
static void test_dev_metrics(void **state)
{
	const struct xf_dev_row rows[] = {
		{ .netns = "nm-xf-mid", .device = "xqm", .queue = 0, .packets = 5, .switches = 2 },
		{ .netns = "nm-xf-mid", .device = "xqm", .queue = 1, .packets = 7, .switches = 3 },
		{ .netns = "pause:42", .device = "xqm", .queue = 0, .packets = 11, .switches = 1 },
	};
	struct nm_prom *p = nm_prom_new();
	char *s;

	(void)state;
	assert_non_null(p);
	nm_rec_prom(p, &xf_dev_rec, rows, sizeof(rows[0]), 3);
	s = cap_prom(p);
	nm_prom_free(p);
	assert_non_null(strstr(s, "xpsflap_packets_total{device=\"xqm\",netns=\"nm-xf-mid\",queue=\"1\"} 7\n"));
	assert_non_null(strstr(s, "xpsflap_packets_total{device=\"xqm\",netns=\"pause:42\",queue=\"0\"} 11\n"));
	assert_non_null(strstr(s, "xpsflap_queue_switches_total{device=\"xqm\",netns=\"nm-xf-mid\"} 5\n"));
	assert_non_null(strstr(s, "xpsflap_queue_switches_total{device=\"xqm\",netns=\"pause:42\"} 1\n"));
	free(s);
}

/* ---- the docs ---- */

static struct doc_spec doc(void)
{
	return (struct doc_spec){ .path = DOC, .man = MAN, .records = xf_records, .nrecords = xf_nrecords,
				  .table_rec = "flow", .metric_prefix = "xpsflap_" };
}

/* Every JSON line the doc shows has the keys of its record, in the table's order. */
static void test_doc_examples_have_the_tables_keys(void **state)
{
	struct doc_spec d = doc();

	(void)state;
	doc_check_examples(&d, 3);
}

/* the man page's OUTPUT names every record and column, as the reference documents them */
static void test_man_names_the_records_and_columns(void **state)
{
	struct doc_spec d = doc();

	(void)state;
	doc_check_man_names(&d, 10);
}

static void test_doc_documents_exactly_the_tables(void **state)
{
	struct doc_spec d = doc();

	(void)state;
	doc_check_exactly_the_tables(&d, 30, 9, 7);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_flow_json_and_table),
		cmocka_unit_test(test_flow_strings),
		cmocka_unit_test(test_dev_metrics),
		cmocka_unit_test(test_doc_documents_exactly_the_tables),
		cmocka_unit_test(test_doc_examples_have_the_tables_keys),
		cmocka_unit_test(test_man_names_the_records_and_columns),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
