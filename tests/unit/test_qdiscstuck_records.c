// SPDX-License-Identifier: GPL-2.0
/*
 * Unit tests for src/qdiscstuck/records.c: a judged qdisc's row and its
 * JSON and table, and a TX queue's metrics, as the loader wrote them before
 * the tables; and that docs/reference/qdiscstuck.md documents exactly the
 * JSON keys, table columns and qdiscstuck_ metrics that the field tables
 * define, and the man page, docs/qdiscstuck.md, names each record and column.
 */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <cmocka.h>

#include "qdiscstuck/records.h"
#include "capture.h"
#include "docs_check.h"

#ifndef NM_SRCDIR
#define NM_SRCDIR "."
#endif
/* the reference holds every key, column and metric; the man page, the short form, names them */
#define DOC NM_SRCDIR "/docs/reference/qdiscstuck.md"
#define MAN NM_SRCDIR "/docs/qdiscstuck.md"

#define NOW	(10ULL * 1000000000)

/* the doc's example: a mq child whose TX queue the driver stopped */
static void stopped(struct nm_qdisc_stats *nl, struct qs_track *t, struct qs_qdisc *bpf)
{
	memset(nl, 0, sizeof(*nl));
	nl->handle = 0;
	nl->parent = 0x00010002;
	snprintf(nl->kind, sizeof(nl->kind), "pfifo_fast");
	nl->qlen = 743;
	nl->backlog = 31949;
	nl->packets = 257;
	nl->requeues = 1;
	memset(t, 0, sizeof(*t));
	t->state = QS_DRIVER_STOPPED;
	t->since_ns = NOW - 1001500000;
	t->txq_state = QS_TXQ_DRV_XOFF;
	t->txq_state_known = true;
	memset(bpf, 0, sizeof(*bpf));
	bpf->sample_ns = NOW - 1000;
}

static char *json_of(const struct nm_record *rec, const void *row)
{
	struct capture c;

	cap_open(&c);
	nm_rec_json(c.f, rec, row);
	return cap_close(&c);
}

/* The rows as a report's table lays them out, for no terminal (no limit). */
static char *table_of(const struct qs_qdisc_row *rows, int n)
{
	struct capture c;

	cap_open(&c);
	nm_rec_table(c.f, &qs_qdisc_rec, rows, sizeof(rows[0]), n, 0, NULL);
	return cap_close(&c);
}

static void test_qdisc_json_and_table(void **state)
{
	struct nm_qdisc_stats nl;
	struct qs_qdisc_row r[2];
	struct qs_track t;
	struct qs_qdisc bpf;
	char *got;

	(void)state;
	stopped(&nl, &t, &bpf);
	qs_qdisc_row(&r[0], "qa", "nm-qs-a", 4026532177UL, &nl, &t, &bpf, 1, true, NOW);
	got = json_of(&qs_qdisc_rec, &r[0]);
	assert_string_equal(got,
		"{\"type\":\"qdisc\",\"dev\":\"qa\",\"netns\":\"nm-qs-a\",\"netns_ino\":4026532177,"
		"\"handle\":\"0:\",\"parent\":\"1:2\","
		"\"kind\":\"pfifo_fast\",\"txq\":1,\"qlen\":743,\"backlog_bytes\":31949,"
		"\"state\":\"driver_stopped\",\"state_ms\":1001,\"state_since_start\":false,"
		"\"txq_state\":1,"
		"\"txq_state_names\":\"DRV_XOFF\",\"dequeue_rate\":0,\"requeue_rate\":0,"
		"\"packets\":257,\"drops\":0,\"requeues\":1,\"lockless\":true,\"events\":true,"
		"\"scheduled\":false,\"missed\":false,\"running\":false,\"watchdog_ms\":null}\n");
	free(got);

	/* a multiqueue root without events: txq, txq_state and the sample unknown */
	nl.handle = 0x80010000;
	nl.parent = 0xffffffff;
	snprintf(nl.kind, sizeof(nl.kind), "htb");
	nl.qlen = 123456;
	nl.backlog = 98765432;
	t.state = QS_SHAPED;
	t.txq_state_known = false;
	t.deq_rate = 1234.6;
	/* shaped since the first sight, no dequeue known then: at least 1001 ms */
	t.init = true;
	t.first_ns = t.since_ns;
	/* a netns named after a process, and a long device: whole in the table */
	qs_qdisc_row(&r[1], "averylongdev", "containerd:1234", 4026532300UL, &nl, &t, NULL, -1,
		     false, NOW);
	got = json_of(&qs_qdisc_rec, &r[1]);
	assert_string_equal(got,
		"{\"type\":\"qdisc\",\"dev\":\"averylongdev\",\"netns\":\"containerd:1234\","
		"\"netns_ino\":4026532300,\"handle\":\"8001:\",\"parent\":\"root\","
		"\"kind\":\"htb\",\"txq\":null,\"qlen\":123456,\"backlog_bytes\":98765432,"
		"\"state\":\"shaped\",\"state_ms\":1001,\"state_since_start\":true,"
		"\"txq_state\":null,\"dequeue_rate\":1234.6,"
		"\"requeue_rate\":0,\"packets\":257,\"drops\":0,\"requeues\":1,\"lockless\":false,"
		"\"events\":false,\"watchdog_ms\":null}\n");
	free(got);

	got = table_of(r, 2);
	assert_string_equal(got,
		"DEV          NETNS           HANDLE PARENT KIND       TXQ   QLEN    BYTES STATE               MS   DEQ/S TXQ_STATE\n"
		"qa           nm-qs-a         0:     1:2    pfifo_fast 1      743    31949 driver_stopped    1001       0 DRV_XOFF\n"
		"averylongdev containerd:1234 8001:  root   htb        all   123k      99M shaped          1001 +    1235 ?\n");
	free(got);
}

static void test_qdisc_sample_and_watchdog(void **state)
{
	struct nm_qdisc_stats nl;
	struct qs_qdisc_row r;
	struct qs_track t;
	struct qs_qdisc bpf;
	char *got;

	(void)state;
	stopped(&nl, &t, &bpf);
	bpf.s_state = QS_Q_SCHED | QS_Q_MISSED;
	bpf.s_running = 1;
	bpf.wd_expires_ns = NOW - 2500000;	/* overdue by 2.5 ms */
	qs_qdisc_row(&r, "qa", "host", 4026531840UL, &nl, &t, &bpf, 0, true, NOW);
	got = json_of(&qs_qdisc_rec, &r);
	assert_non_null(strstr(got, "\"scheduled\":true,\"missed\":true,\"running\":true,"
				    "\"watchdog_ms\":-2}\n"));
	free(got);
	/* not sampled: the three keys are left out, the watchdog stays */
	bpf.sample_ns = 0;
	bpf.wd_expires_ns = NOW + 40000000;
	qs_qdisc_row(&r, "qa", "host", 4026531840UL, &nl, &t, &bpf, 0, true, NOW);
	got = json_of(&qs_qdisc_rec, &r);
	assert_non_null(strstr(got, "\"events\":true,\"watchdog_ms\":40}\n"));
	free(got);
}

/* the hooks' maps come from the row's hooks and count (here none) */
static void test_start_json(void **state)
{
	const struct qs_start_row r = { .tool = "qdiscstuck", .kernel = "6.18", .interval = 0.5,
					.threshold_ms = 100, .devices = "qa", .fix_kick = true,
					.netns = "all", .names_lost = "" };
	char *got;

	(void)state;
	got = json_of(&qs_start_rec, &r);
	assert_string_equal(got,
		"{\"type\":\"start\",\"tool\":\"qdiscstuck\",\"kernel\":\"6.18\",\"hooks\":{},"
		"\"refused\":{},\"lost\":{},\"interval\":0.5,\"threshold_ms\":100,\"devices\":\"qa\","
		"\"fix_kick\":true,\"fix_lock\":false,\"netns\":\"all\",\"names_lost\":\"\"}\n");
	free(got);
}

static void test_interval_and_kick_json(void **state)
{
	struct qs_interval_row iv = { .time = 1764547200, .mono_ns = NOW, .qdiscs = 7,
				      .per_state = { [QS_OK] = 2, [QS_IDLE] = 3, [QS_STUCK] = 1,
						     [QS_DRIVER_STOPPED] = 1 },
				      .qdiscs_not_shown = 6, .netns_swept = 3, .netns_over = 1,
				      .netns_failed = 2, .devices_over = 4, .qdiscs_over = 5 };
	struct qs_kick_row k = { .mono_ns = NOW, .dev = "qa", .txq = 3, .reached = true,
				 .attempts = 2, .stray = 1, .why = "stuck" };
	char *got;

	(void)state;
	got = json_of(&qs_interval_rec, &iv);
	assert_string_equal(got,
		"{\"type\":\"interval\",\"time\":1764547200,\"mono_ns\":10000000000,\"qdiscs\":7,"
		"\"ok\":2,\"idle\":3,\"shaped\":0,\"driver_stopped\":1,\"stuck\":1,\"unknown\":0,"
		"\"qdiscs_not_shown\":6,\"netns_swept\":3,\"netns_over\":1,\"netns_failed\":2,"
		"\"devices_over\":4,\"qdiscs_over\":5}\n");
	free(got);
	got = json_of(&qs_kick_rec, &k);
	assert_string_equal(got,
		"{\"type\":\"kick\",\"mono_ns\":10000000000,\"dev\":\"qa\",\"txq\":3,\"reached\":true,"
		"\"attempts\":2,\"stray\":1,\"why\":\"stuck\"}\n");
	free(got);
}

/*
 * The textfile of two queues of qa, one gone from this sweep, a root of qb,
 * and a qa of another netns: the netns label keeps the two qa apart.
 */
static void test_queue_metrics(void **state)
{
	const struct qs_queue_row q[] = {
		{ .device = "qa", .netns = "nm-qs-a", .queue = "0", .stuck_seconds = 1.5, .backlog_packets = 743,
		  .backlog_bytes = 31949, .entered = { [QS_OK] = 1, [QS_STUCK] = 2 },
		  .state = QS_STUCK, .present = true },
		{ .device = "qa", .netns = "nm-qs-a", .queue = "1", .stuck_seconds = 0, .backlog_packets = 9,
		  .entered = { [QS_OK] = 1, [QS_IDLE] = 4 }, .state = QS_IDLE, .present = false },
		{ .device = "qb", .netns = "host", .queue = "all", .entered = { [QS_SHAPED] = 1 },
		  .state = QS_SHAPED, .present = true },
		{ .device = "qa", .netns = "host", .queue = "0", .backlog_packets = 1,
		  .entered = { [QS_OK] = 1 }, .state = QS_OK, .present = true },
	};
	/* qdiscs_not_shown is no metric: the states' gauges count those qdiscs already */
	const struct qs_interval_row iv = { .per_state = { [QS_STUCK] = 1, [QS_SHAPED] = 1 },
					    .qdiscs_not_shown = 9 };
	struct nm_prom *p = nm_prom_new();
	char *got;

	(void)state;
	nm_rec_prom(p, &qs_interval_rec, &iv, sizeof(iv), 1);
	nm_rec_prom(p, &qs_queue_rec, q, sizeof(q[0]), 4);
	got = cap_prom(p);
	assert_string_equal(got,
		"# HELP qdiscstuck_qdiscs Qdiscs in each state at the last report\n"
		"# TYPE qdiscstuck_qdiscs gauge\n"
		"qdiscstuck_qdiscs{state=\"ok\"} 0\n"
		"qdiscstuck_qdiscs{state=\"idle\"} 0\n"
		"qdiscstuck_qdiscs{state=\"shaped\"} 1\n"
		"qdiscstuck_qdiscs{state=\"driver_stopped\"} 0\n"
		"qdiscstuck_qdiscs{state=\"stuck\"} 1\n"
		"qdiscstuck_qdiscs{state=\"unknown\"} 0\n"
		"# HELP qdiscstuck_stuck_seconds_total Seconds a qdisc of the queue held packets without progress (stuck, driver_stopped or unknown)\n"
		"# TYPE qdiscstuck_stuck_seconds_total counter\n"
		"qdiscstuck_stuck_seconds_total{device=\"qa\",netns=\"nm-qs-a\",queue=\"0\"} 1.5\n"
		"qdiscstuck_stuck_seconds_total{device=\"qa\",netns=\"nm-qs-a\",queue=\"1\"} 0\n"
		"qdiscstuck_stuck_seconds_total{device=\"qb\",netns=\"host\",queue=\"all\"} 0\n"
		"qdiscstuck_stuck_seconds_total{device=\"qa\",netns=\"host\",queue=\"0\"} 0\n"
		"# HELP qdiscstuck_backlog_packets Packets queued in the queue's qdisc\n"
		"# TYPE qdiscstuck_backlog_packets gauge\n"
		"qdiscstuck_backlog_packets{device=\"qa\",netns=\"nm-qs-a\",queue=\"0\"} 743\n"
		"qdiscstuck_backlog_packets{device=\"qb\",netns=\"host\",queue=\"all\"} 0\n"
		"qdiscstuck_backlog_packets{device=\"qa\",netns=\"host\",queue=\"0\"} 1\n"
		"# HELP qdiscstuck_backlog_bytes Bytes queued in the queue's qdisc\n"
		"# TYPE qdiscstuck_backlog_bytes gauge\n"
		"qdiscstuck_backlog_bytes{device=\"qa\",netns=\"nm-qs-a\",queue=\"0\"} 31949\n"
		"qdiscstuck_backlog_bytes{device=\"qb\",netns=\"host\",queue=\"all\"} 0\n"
		"qdiscstuck_backlog_bytes{device=\"qa\",netns=\"host\",queue=\"0\"} 0\n"
		"# HELP qdiscstuck_events_total Times a qdisc of the device entered a state\n"
		"# TYPE qdiscstuck_events_total counter\n"
		"qdiscstuck_events_total{device=\"qa\",netns=\"nm-qs-a\",state=\"ok\"} 2\n"
		"qdiscstuck_events_total{device=\"qa\",netns=\"nm-qs-a\",state=\"idle\"} 4\n"
		"qdiscstuck_events_total{device=\"qa\",netns=\"nm-qs-a\",state=\"shaped\"} 0\n"
		"qdiscstuck_events_total{device=\"qa\",netns=\"nm-qs-a\",state=\"driver_stopped\"} 0\n"
		"qdiscstuck_events_total{device=\"qa\",netns=\"nm-qs-a\",state=\"stuck\"} 2\n"
		"qdiscstuck_events_total{device=\"qa\",netns=\"nm-qs-a\",state=\"unknown\"} 0\n"
		"qdiscstuck_events_total{device=\"qb\",netns=\"host\",state=\"ok\"} 0\n"
		"qdiscstuck_events_total{device=\"qb\",netns=\"host\",state=\"idle\"} 0\n"
		"qdiscstuck_events_total{device=\"qb\",netns=\"host\",state=\"shaped\"} 1\n"
		"qdiscstuck_events_total{device=\"qb\",netns=\"host\",state=\"driver_stopped\"} 0\n"
		"qdiscstuck_events_total{device=\"qb\",netns=\"host\",state=\"stuck\"} 0\n"
		"qdiscstuck_events_total{device=\"qb\",netns=\"host\",state=\"unknown\"} 0\n"
		"qdiscstuck_events_total{device=\"qa\",netns=\"host\",state=\"ok\"} 1\n"
		"qdiscstuck_events_total{device=\"qa\",netns=\"host\",state=\"idle\"} 0\n"
		"qdiscstuck_events_total{device=\"qa\",netns=\"host\",state=\"shaped\"} 0\n"
		"qdiscstuck_events_total{device=\"qa\",netns=\"host\",state=\"driver_stopped\"} 0\n"
		"qdiscstuck_events_total{device=\"qa\",netns=\"host\",state=\"stuck\"} 0\n"
		"qdiscstuck_events_total{device=\"qa\",netns=\"host\",state=\"unknown\"} 0\n"
		"# HELP qdiscstuck_queue_state 1 for the state the TX queue is in now (the worst of its qdiscs)\n"
		"# TYPE qdiscstuck_queue_state gauge\n"
		"qdiscstuck_queue_state{device=\"qa\",netns=\"nm-qs-a\",queue=\"0\",state=\"ok\"} 0\n"
		"qdiscstuck_queue_state{device=\"qa\",netns=\"nm-qs-a\",queue=\"0\",state=\"idle\"} 0\n"
		"qdiscstuck_queue_state{device=\"qa\",netns=\"nm-qs-a\",queue=\"0\",state=\"shaped\"} 0\n"
		"qdiscstuck_queue_state{device=\"qa\",netns=\"nm-qs-a\",queue=\"0\",state=\"driver_stopped\"} 0\n"
		"qdiscstuck_queue_state{device=\"qa\",netns=\"nm-qs-a\",queue=\"0\",state=\"stuck\"} 1\n"
		"qdiscstuck_queue_state{device=\"qa\",netns=\"nm-qs-a\",queue=\"0\",state=\"unknown\"} 0\n"
		"qdiscstuck_queue_state{device=\"qb\",netns=\"host\",queue=\"all\",state=\"ok\"} 0\n"
		"qdiscstuck_queue_state{device=\"qb\",netns=\"host\",queue=\"all\",state=\"idle\"} 0\n"
		"qdiscstuck_queue_state{device=\"qb\",netns=\"host\",queue=\"all\",state=\"shaped\"} 1\n"
		"qdiscstuck_queue_state{device=\"qb\",netns=\"host\",queue=\"all\",state=\"driver_stopped\"} 0\n"
		"qdiscstuck_queue_state{device=\"qb\",netns=\"host\",queue=\"all\",state=\"stuck\"} 0\n"
		"qdiscstuck_queue_state{device=\"qb\",netns=\"host\",queue=\"all\",state=\"unknown\"} 0\n"
		"qdiscstuck_queue_state{device=\"qa\",netns=\"host\",queue=\"0\",state=\"ok\"} 1\n"
		"qdiscstuck_queue_state{device=\"qa\",netns=\"host\",queue=\"0\",state=\"idle\"} 0\n"
		"qdiscstuck_queue_state{device=\"qa\",netns=\"host\",queue=\"0\",state=\"shaped\"} 0\n"
		"qdiscstuck_queue_state{device=\"qa\",netns=\"host\",queue=\"0\",state=\"driver_stopped\"} 0\n"
		"qdiscstuck_queue_state{device=\"qa\",netns=\"host\",queue=\"0\",state=\"stuck\"} 0\n"
		"qdiscstuck_queue_state{device=\"qa\",netns=\"host\",queue=\"0\",state=\"unknown\"} 0\n");
	free(got);
	nm_prom_free(p);
}

/* ---- the docs ---- */

static struct doc_spec doc(void)
{
	return (struct doc_spec){ .path = DOC, .man = MAN, .records = qs_records, .nrecords = qs_nrecords,
				  .table_rec = "qdisc", .metric_prefix = "qdiscstuck_" };
}

static void test_doc_documents_exactly_the_tables(void **state)
{
	struct doc_spec d = doc();

	(void)state;
	doc_check_exactly_the_tables(&d, 54, 12, 6);
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

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_qdisc_json_and_table),
		cmocka_unit_test(test_qdisc_sample_and_watchdog),
		cmocka_unit_test(test_start_json),
		cmocka_unit_test(test_interval_and_kick_json),
		cmocka_unit_test(test_queue_metrics),
		cmocka_unit_test(test_doc_documents_exactly_the_tables),
		cmocka_unit_test(test_doc_examples_have_the_tables_keys),
		cmocka_unit_test(test_man_names_the_records_and_columns),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
