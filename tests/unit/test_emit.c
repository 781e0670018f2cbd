// SPDX-License-Identifier: GPL-2.0
/* Unit tests for src/lib/emit.c: one report's JSON lines, table and textfile. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "lib/emit.h"
#include "capture.h"

struct ival {
	uint64_t flows;
};

struct flow {
	char dev[8];
	uint64_t packets;
};

static const struct nm_field ival_fields[] = {
	{ .json = "flows", .type = NM_REC_U64, .off = offsetof(struct ival, flows),
	  .prom = "t_flows", .kind = NM_PROM_GAUGE, .help = "Flows" },
};

static const struct nm_field flow_fields[] = {
	{ .json = "dev", .type = NM_REC_STR, .off = offsetof(struct flow, dev), .prom = "device",
	  .kind = NM_PROM_LABEL, .col = "DEV", .colno = 1, .width = -4 },
	{ .json = "packets", .type = NM_REC_U64, .off = offsetof(struct flow, packets),
	  .prom = "t_packets_total", .kind = NM_PROM_COUNTER, .help = "Packets", .col = "PKTS",
	  .colno = 2, .width = 4 },
};

static const struct nm_record ival_rec = NM_RECORD("interval", ival_fields);
static const struct nm_record flow_rec = NM_RECORD("flow", flow_fields);
static const struct nm_record other_rec = NM_RECORD("other", flow_fields);

static const struct flow flows[] = { { "a", 5 }, { "b", 7 }, { "c", 9 } };
static const struct ival iv = { 3 };

/* A row at a time, as xpsflap's flows: every second one of another record. */
static const void *next_flow(void *ctx, size_t *pos, const struct nm_record **rec)
{
	const struct flow *f = ctx;

	if (*pos >= 3)
		return NULL;
	if (*pos % 2)
		*rec = &other_rec;
	return &f[(*pos)++];
}

static char *json_of(const struct nm_emit *e)
{
	struct capture c;

	cap_open(&c);
	nm_emit_json(c.f, e, NULL);
	return cap_close(&c);
}

static char *table_of(const struct nm_emit *e)
{
	struct capture c;

	cap_open(&c);
	nm_emit_table(c.f, e);
	return cap_close(&c);
}

/* The interval's line first, then each set's, in order; an empty set writes nothing. */
static void test_json_order(void **state)
{
	struct nm_emit e = { .json = { NM_EMIT_ROWS(&ival_rec, &iv, 1),
				       NM_EMIT_ROWS(&flow_rec, flows, 0),
				       NM_EMIT_ROWS(&flow_rec, flows, 2) } };
	char *s = json_of(&e);

	(void)state;
	assert_string_equal(s, "{\"type\":\"interval\",\"flows\":3}\n"
			       "{\"type\":\"flow\",\"dev\":\"a\",\"packets\":5}\n"
			       "{\"type\":\"flow\",\"dev\":\"b\",\"packets\":7}\n");
	free(s);
}

/* Rows from next: until NULL, each with the record next names. */
static void test_json_next(void **state)
{
	struct nm_emit e = { .json = { { .rec = &flow_rec, .next = next_flow, .ctx = (void *)flows } } };
	char *s = json_of(&e);

	(void)state;
	assert_string_equal(s, "{\"type\":\"flow\",\"dev\":\"a\",\"packets\":5}\n"
			       "{\"type\":\"other\",\"dev\":\"b\",\"packets\":7}\n"
			       "{\"type\":\"flow\",\"dev\":\"c\",\"packets\":9}\n");
	free(s);
}

/* A blank line, the time and the heading, the columns, at most top rows. */
static void test_table_top(void **state)
{
	struct nm_emit e = { .time = 0 };
	char *s;

	(void)state;
	setenv("TZ", "UTC", 1);
	tzset();
	e.time = 3600 + 120 + 3;
	snprintf(e.table[0].heading, sizeof(e.table[0].heading), "flows: 3");
	e.table[0].rows = NM_EMIT_ROWS(&flow_rec, flows, 3);
	e.table[0].top = 2;
	s = table_of(&e);
	assert_string_equal(s, "\n01:02:03  flows: 3\n"
			       "DEV  PKTS\n"
			       "a       5\n"
			       "b       7\n");
	free(s);
	/* top 0: every row, from next as from an array */
	e.table[0].rows = (struct nm_emit_rows){ .rec = &flow_rec, .next = next_flow,
						 .ctx = (void *)flows };
	e.table[0].top = 0;
	s = table_of(&e);
	assert_string_equal(s, "\n01:02:03  flows: 3\nDEV  PKTS\na       5\nb       7\nc       9\n");
	free(s);
}

/* tcpstall's shape: a second part with its heading, and no time before it. */
static void test_table_parts(void **state)
{
	struct nm_emit e = { .time = 0 };
	char *s;

	(void)state;
	setenv("TZ", "UTC", 1);
	tzset();
	snprintf(e.table[0].heading, sizeof(e.table[0].heading), "one");
	e.table[0].rows = NM_EMIT_ROWS(&flow_rec, flows, 1);
	snprintf(e.table[1].heading, sizeof(e.table[1].heading), "two");
	e.table[1].rows = NM_EMIT_ROWS(&flow_rec, flows + 2, 1);
	s = table_of(&e);
	assert_string_equal(s, "\n00:00:00  one\nDEV  PKTS\na       5\ntwo\nDEV  PKTS\nc       9\n");
	free(s);
}

/*
 * After the parts, each histogram under its heading, in order (-H); one
 * with empty slots prints its heading alone, the tool's to leave it out.
 */
static void test_table_hists(void **state)
{
	static const uint64_t one[4] = { 0, 2, 1 }, none[4];
	const struct nm_emit_hist hists[] = {
		{ .heading = "durations, a:", .slots = one, .nslots = 4, .unit = "usecs" },
		{ .heading = "durations, b:", .slots = none, .nslots = 4, .unit = "usecs" },
	};
	struct nm_emit e = { .time = 0 };
	char *s;

	(void)state;
	setenv("TZ", "UTC", 1);
	tzset();
	snprintf(e.table[0].heading, sizeof(e.table[0].heading), "one");
	e.table[0].rows = NM_EMIT_ROWS(&flow_rec, flows, 1);
	e.hists = hists;
	e.nhists = 2;
	s = table_of(&e);
	assert_string_equal(s, "\n00:00:00  one\nDEV  PKTS\na       5\n"
			       "durations, a:\n"
			       "     usecs               : count    distribution\n"
			       "         0 -> 1          : 0        |                                        |\n"
			       "         2 -> 3          : 2        |****************************************|\n"
			       "         4 -> 7          : 1        |********************                    |\n"
			       "durations, b:\n");
	free(s);
	/* none: the table ends with its last part */
	e.nhists = 0;
	s = table_of(&e);
	assert_string_equal(s, "\n00:00:00  one\nDEV  PKTS\na       5\n");
	free(s);
}

static char *prom_of(const struct nm_emit *e, const struct nm_emit_self *self)
{
	struct nm_prom *p = nm_prom_new();
	char *s;

	assert_non_null(p);
	nm_emit_prom(p, e, self);
	s = cap_prom(p);
	nm_prom_free(p);
	return s;
}

/* The records' families in their sets' order, then the map's, the untracked count when direct. */
static void test_prom(void **state)
{
	struct nm_emit e = { .prom = { NM_EMIT_ROWS(&ival_rec, &iv, 1),
				       NM_EMIT_ROWS(&flow_rec, flows, 2) },
			     .map = { .name = "flows", .entries = 3, .max = 8, .evictions = 1,
				      .direct = true, .untracked = 4 } };
	const struct nm_emit_self self = { .tool = "t" };
	char *s = prom_of(&e, &self), *a, *b, *m, *u;

	(void)state;
	a = strstr(s, "t_flows 3\n");
	b = strstr(s, "t_packets_total{device=\"b\"} 7\n");
	m = strstr(s, "netmedic_map_entries{tool=\"t\",map=\"flows\"} 3\n");
	u = strstr(s, "netmedic_map_untracked_total{tool=\"t\",map=\"flows\"} 4\n");
	assert_non_null(a);
	assert_non_null(strstr(s, "t_packets_total{device=\"a\"} 5\n"));
	assert_non_null(b);
	assert_non_null(strstr(s, "netmedic_map_max_entries{tool=\"t\",map=\"flows\"} 8\n"));
	assert_non_null(strstr(s, "netmedic_map_evictions_total{tool=\"t\",map=\"flows\"} 1\n"));
	assert_non_null(m);
	assert_non_null(u);
	assert_true(a < b && b < m && m < u);
	/* no object: no hook or program families */
	assert_null(strstr(s, "netmedic_hook_info"));
	free(s);
	/* not direct (an LRU map): no untracked count; no map: none of its families */
	e.map.direct = false;
	s = prom_of(&e, &self);
	assert_null(strstr(s, "netmedic_map_untracked_total"));
	assert_non_null(strstr(s, "netmedic_map_entries"));
	free(s);
	e.map.name = NULL;
	s = prom_of(&e, &self);
	assert_null(strstr(s, "netmedic_map_"));
	assert_non_null(strstr(s, "t_flows 3\n"));
	free(s);
}

/* --dev's names, comma-separated; none: "all" */
static void test_devices(void **state)
{
	struct nm_opts o;
	char buf[16];

	(void)state;
	nm_opts_init(&o, "t");
	assert_string_equal(nm_emit_devices(&o, buf, sizeof(buf)), "all");
	o.devs[0] = "eth0";
	o.devs[1] = "veth1";
	o.ndevs = 2;
	assert_string_equal(nm_emit_devices(&o, buf, sizeof(buf)), "eth0,veth1");
	/* too long: cut, never past the buffer */
	o.devs[2] = "a-long-name";
	o.ndevs = 3;
	assert_string_equal(nm_emit_devices(&o, buf, sizeof(buf)), "eth0,veth1,a-lo");
}

/* The table's first line: tool, kernel, interval, then the tool's what; with -v the hooks too. */
static void test_first_line(void **state)
{
	struct nm_first l = { .what = "devices all, --pin" };
	struct capture c;
	struct nm_opts o;
	char want[256];
	char *s;

	(void)state;
	nm_opts_init(&o, "t");
	o.interval = 0.5;
	cap_open(&c);
	nm_emit_first_line(c.f, &o, &l, NULL, 0);
	s = cap_close(&c);
	snprintf(want, sizeof(want), "t: kernel %s, interval 0.5s, devices all, --pin\n",
		 nm_kernel_release());
	assert_string_equal(s, want);
	free(s);
	o.verbose = 1;
	cap_open(&c);
	nm_emit_first_line(c.f, &o, &l, NULL, 0);
	s = cap_close(&c);
	snprintf(want, sizeof(want), "t: kernel %s, hooks , interval 0.5s, devices all, --pin\n",
		 nm_kernel_release());
	assert_string_equal(s, want);
	free(s);
}

/*
 * The first line at a terminal's width: broken after a ", " or "; ",
 * indented, nothing cut; one line with no limit (tcpstall's was 132
 * characters at 80 columns).
 */
static void test_wrapped(void **state)
{
	const char *line = "tcpstall: kernel 6.18.44-fc-v1294, interval 1s, sweep 10ms (all sockets "
			   "every 1000ms, senders tagged by sock_send_length), netns all; lost: "
			   "kick (ts_kick: load: Operation not permitted)";
	struct capture c;
	char *s;

	(void)state;
	cap_open(&c);
	nm_emit_wrapped(c.f, line, 80);
	s = cap_close(&c);
	assert_string_equal(s,
		"tcpstall: kernel 6.18.44-fc-v1294, interval 1s,\n"
		"  sweep 10ms (all sockets every 1000ms, senders tagged by sock_send_length),\n"
		"  netns all; lost: kick (ts_kick: load: Operation not permitted)\n");
	free(s);
	cap_open(&c);
	nm_emit_wrapped(c.f, line, 0);
	s = cap_close(&c);
	assert_int_equal(strlen(s), strlen(line) + 1);
	assert_string_equal(s + strlen(line), "\n");
	free(s);
}

/* Losses besides the hooks' join their "; lost:" part, after any "; refused:". */
static void test_losses(void **state)
{
	char buf[256];

	(void)state;
	assert_string_equal(nm_emit_losses("", "", buf, sizeof(buf)), "");
	assert_string_equal(nm_emit_losses("", "names (no CAP_SYS_ADMIN)", buf, sizeof(buf)),
			    "; lost: names (no CAP_SYS_ADMIN)");
	assert_string_equal(nm_emit_losses("; refused: a (EPERM)", "names (x)", buf, sizeof(buf)),
			    "; refused: a (EPERM); lost: names (x)");
	assert_string_equal(nm_emit_losses("; refused: a (EPERM); lost: pick (no queue)", "names (x)",
					   buf, sizeof(buf)),
			    "; refused: a (EPERM); lost: pick (no queue), names (x)");
	assert_string_equal(nm_emit_losses("; lost: pick (no queue)", "", buf, sizeof(buf)),
			    "; lost: pick (no queue)");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_json_order),
		cmocka_unit_test(test_json_next),
		cmocka_unit_test(test_table_top),
		cmocka_unit_test(test_table_parts),
		cmocka_unit_test(test_table_hists),
		cmocka_unit_test(test_prom),
		cmocka_unit_test(test_devices),
		cmocka_unit_test(test_first_line),
		cmocka_unit_test(test_losses),
		cmocka_unit_test(test_wrapped),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
