// SPDX-License-Identifier: GPL-2.0
/*
 * Unit tests for the tables' layout (src/lib/record.c, nm_emit_table_in in
 * src/lib/emit.c) and the width they may take (nm_out_columns_of in
 * src/lib/output.c): a flow, an address, a device or a namespace is never
 * cut; at 200 columns an IPv6 flow ends its row, at 80 it takes a line of
 * its own, and without a terminal nothing limits a row.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <arpa/inet.h>
#include <cmocka.h>

#include "lib/emit.h"
#include "qdiscstuck/records.h"
#include "tcpstall/records.h"
#include "xpsflap/records.h"
#include "capture.h"

#define V6_FLOW	"[fd00:198:18:0:aaaa:bbbb:cccc:1]:40000>[fd00:198:18:0:aaaa:bbbb:cccc:2]:5201"
#define V4_FLOW	"198.18.0.1:42592>198.18.0.2:5201"
#define ICMP6	"icmp6 fe80::54eb:18ff:fed3:e385>fe80::a8c1:abff:fe12:3456"

/* An xpsflap flow of family AF_INET or AF_INET6 between src and dst. */
static void flow(struct xf_flow_row *r, int family, uint8_t proto, const char *src,
		 const char *dst)
{
	struct xf_entry e = {
		.key = { .netns = 4026532246, .ifindex = 3, .family = family, .proto = proto,
			 .sport = 40000, .dport = 5201 },
		.val = { .queues = 0x3, .cpus = 0x3, .switches = 475, .risky_switches = 132,
			 .packets = 1952724, .reordered = 2559 },
	};

	if (family == AF_INET)
		e.key.sport = 42592;
	assert_int_equal(inet_pton(family, src, e.key.saddr), 1);
	assert_int_equal(inet_pton(family, dst, e.key.daddr), 1);
	xf_flow_row(r, &e, "xqm", "nm-xf-mid");
}

/* xpsflap's table of rows at columns wide (0: not a terminal), as a report writes it. */
static char *xf_table(const struct xf_flow_row *rows, size_t n, int columns)
{
	struct nm_emit e = { .time = 0 };
	struct capture c;

	setenv("TZ", "UTC", 1);
	tzset();
	snprintf(e.table[0].heading, sizeof(e.table[0].heading), "flows: %zu active", n);
	e.table[0].rows = NM_EMIT_ROWS(&xf_flow_rec, rows, n);
	cap_open(&c);
	nm_emit_table_in(c.f, &e, columns);
	return cap_close(&c);
}

/* The longest line of s. */
static size_t widest(const char *s)
{
	size_t w = 0;

	while (*s) {
		size_t n = strcspn(s, "\n");

		w = n > w ? n : w;
		s += n + (s[n] == '\n');
	}
	return w;
}

static bool starts(const char *s, const char *prefix)
{
	return !strncmp(s, prefix, strlen(prefix));
}

/* Line i of s (from 0), into buf. */
static const char *line(const char *s, int i, char *buf, size_t len)
{
	for (; i > 0 && s; i--)
		s = strchr(s, '\n') ? strchr(s, '\n') + 1 : NULL;
	snprintf(buf, len, "%.*s", s ? (int)strcspn(s, "\n") : 0, s ? s : "");
	return buf;
}

/* 200 columns: the IPv6 flow ends its row, whole, the IPv4 one's row aligned with it. */
static void test_ipv6_flow_at_200(void **state)
{
	struct xf_flow_row r[2];
	char *got;

	(void)state;
	flow(&r[0], AF_INET6, 6, "fd00:198:18:0:aaaa:bbbb:cccc:1", "fd00:198:18:0:aaaa:bbbb:cccc:2");
	flow(&r[1], AF_INET, 6, "198.18.0.1", "198.18.0.2");
	assert_string_equal(r[0].flow, V6_FLOW);
	got = xf_table(r, 2, 200);
	assert_string_equal(got,
		"\n00:00:00  flows: 2 active\n"
		"DEV      NETNS      QUEUE SWITCH  RISKY  REORD   PKTS CPUS FLOW (worst first)\n"
		"xqm      nm-xf-mid  0,1      475    132   2559   2.0M 0,1  " V6_FLOW "\n"
		"xqm      nm-xf-mid  0,1      475    132   2559   2.0M 0,1  " V4_FLOW "\n");
	assert_true(widest(got) <= 200);
	free(got);
}

/*
 * 80 columns: the IPv6 flow would pass the edge, so every flow of the
 * table goes on a line of its own below its row, indented, whole; no line
 * is wider than 80. An IPv4 table still fits on one line a row.
 */
static void test_ipv6_flow_at_80(void **state)
{
	struct xf_flow_row r[2];
	char buf[256], *got;

	(void)state;
	flow(&r[0], AF_INET6, 6, "fd00:198:18:0:aaaa:bbbb:cccc:1", "fd00:198:18:0:aaaa:bbbb:cccc:2");
	flow(&r[1], AF_INET, 6, "198.18.0.1", "198.18.0.2");
	got = xf_table(r, 2, 80);
	assert_string_equal(got,
		"\n00:00:00  flows: 2 active\n"
		"DEV      NETNS      QUEUE SWITCH  RISKY  REORD   PKTS CPUS\n"
		"  FLOW (worst first)\n"
		"xqm      nm-xf-mid  0,1      475    132   2559   2.0M 0,1\n"
		"  " V6_FLOW "\n"
		"xqm      nm-xf-mid  0,1      475    132   2559   2.0M 0,1\n"
		"  " V4_FLOW "\n");
	assert_true(widest(got) <= 80);
	free(got);
	/* an IPv4 row takes 91 columns: on one line from there */
	got = xf_table(r + 1, 1, 91);
	assert_string_equal(line(got, 3, buf, sizeof(buf)),
			    "xqm      nm-xf-mid  0,1      475    132   2559   2.0M 0,1  " V4_FLOW);
	assert_int_equal(widest(got), 91);
	free(got);
	got = xf_table(r + 1, 1, 90);
	assert_string_equal(line(got, 5, buf, sizeof(buf)), "  " V4_FLOW);
	free(got);
}

/* The link-local ICMPv6 flow: whole at either width. */
static void test_icmp6_flow_whole(void **state)
{
	struct xf_flow_row r;
	char *got;

	(void)state;
	flow(&r, AF_INET6, 58, "fe80::54eb:18ff:fed3:e385", "fe80::a8c1:abff:fe12:3456");
	assert_string_equal(r.flow, ICMP6);
	for (int columns = 80; columns <= 200; columns += 120) {
		got = xf_table(&r, 1, columns);
		assert_non_null(strstr(got, ICMP6 "\n"));
		assert_true(widest(got) <= (size_t)columns);
		free(got);
	}
}

/* No terminal (a pipe, a file, the journal): one line a row, whatever its length. */
static void test_no_terminal_no_limit(void **state)
{
	struct xf_flow_row r;
	char *got;

	(void)state;
	flow(&r, AF_INET6, 6, "fd00:198:18:0:aaaa:bbbb:cccc:1", "fd00:198:18:0:aaaa:bbbb:cccc:2");
	snprintf(r.dev, sizeof(r.dev), "averylongdevice");
	snprintf(r.netns, sizeof(r.netns), "cni-0f8e2d1c-4b7a-9e3f-aa01-5c6d7e8f9a0b");
	got = xf_table(&r, 1, 0);
	assert_string_equal(got,
		"\n00:00:00  flows: 1 active\n"
		"DEV             NETNS                                    QUEUE SWITCH  RISKY  REORD"
		"   PKTS CPUS FLOW (worst first)\n"
		"averylongdevice cni-0f8e2d1c-4b7a-9e3f-aa01-5c6d7e8f9a0b 0,1      475    132   2559"
		"   2.0M 0,1  " V6_FLOW "\n");
	free(got);
}

/* tcpstall's sockets: the same rule for its FLOW (it was cut at 35). */
static void test_tcpstall_socket_at_80(void **state)
{
	struct ts_key k = { .netns = 7, .family = NM_AF_INET6, .lport = 40000, .rport = 5201 };
	struct ts_sock s = { .last = { .unsent = 4170240 }, .stalls = 1, .cause = TS_RWND };
	struct nm_rec_layout l;
	struct ts_socket_row r;
	struct capture c;
	char *got;

	(void)state;
	assert_int_equal(inet_pton(AF_INET6, "fd00:198:18:0:aaaa:bbbb:cccc:1", k.laddr), 1);
	assert_int_equal(inet_pton(AF_INET6, "fd00:198:18:0:aaaa:bbbb:cccc:2", k.raddr), 1);
	ts_socket_row(&r, &k, "nm-ts-snd", &s, NULL, 0, 10);
	cap_open(&c);
	nm_rec_table(c.f, &ts_socket_rec, &r, sizeof(r), 1, 80, &l);
	got = cap_close(&c);
	/* the flow, the last column, starts a line of its own */
	assert_true(l.brk[l.last]);
	assert_non_null(strstr(got, "\n  FLOW\n"));
	assert_non_null(strstr(got, "\n  " V6_FLOW "\n"));
	assert_true(widest(got) <= 80);
	free(got);
}

/* The lab's driver-stopped child of mq, as qdiscstuck's table shows it. */
static void stopped_row(struct qs_qdisc_row *r, const char *dev, const char *netns)
{
	*r = (struct qs_qdisc_row){ .handle = "866c:", .parent = "1:2", .kind = "pfifo_fast",
				    .txq = 1, .has_txq = true, .qlen = 743, .backlog_bytes = 31949,
				    .state = QS_DRIVER_STOPPED, .state_ms = 1002,
				    .state_since_start = true, .txq_state_names = "DRV_XOFF",
				    .txq_state_known = true };
	snprintf(r->dev, sizeof(r->dev), "%s", dev);
	snprintf(r->netns, sizeof(r->netns), "%s", netns);
}

/*
 * qdiscstuck's table at 80 columns (it wrapped at 106): the row goes on
 * two lines, its STATE on the first, and the header the same way; at 200
 * it is one line.
 */
static void test_qdiscstuck_at_80(void **state)
{
	struct qs_qdisc_row r;
	struct nm_rec_layout l;
	struct capture c;
	char *got;

	(void)state;
	stopped_row(&r, "qa", "nm-qs-a");
	cap_open(&c);
	nm_rec_table(c.f, &qs_qdisc_rec, &r, sizeof(r), 1, 80, &l);
	got = cap_close(&c);
	assert_string_equal(got,
		"DEV      NETNS      HANDLE PARENT KIND       TXQ   QLEN    BYTES STATE\n"
		"       MS   DEQ/S TXQ_STATE\n"
		"qa       nm-qs-a    866c:  1:2    pfifo_fast 1      743    31949 driver_stopped\n"
		"   1002 +       0 DRV_XOFF\n");
	assert_int_equal(l.lines, 2);
	assert_true(widest(got) <= 80);
	free(got);
	cap_open(&c);
	nm_rec_table(c.f, &qs_qdisc_rec, &r, sizeof(r), 1, 200, &l);
	got = cap_close(&c);
	assert_int_equal(l.lines, 1);
	assert_non_null(strstr(got, " driver_stopped  1002 +       0 DRV_XOFF\n"));
	free(got);
}

/*
 * qdiscstuck's DEV and NETNS (cut at 8 and 10): whole, the columns as wide
 * as the longest, the rest of the row on lines below, none wider than 80.
 */
static void test_qdiscstuck_names_whole(void **state)
{
	struct qs_qdisc_row r[2];
	struct nm_rec_layout l;
	struct capture c;
	char buf[256], *got;

	(void)state;
	stopped_row(&r[0], "qa", "nm-qs-a");
	stopped_row(&r[1], "averylongdevice", "cni-0f8e2d1c-4b7a-9e3f-aa01-5c6d7e8f9a0b");
	cap_open(&c);
	nm_rec_table(c.f, &qs_qdisc_rec, r, sizeof(r[0]), 2, 80, &l);
	got = cap_close(&c);
	assert_true(l.lines > 1);
	assert_true(starts(line(got, 0, buf, sizeof(buf)),
			   "DEV             NETNS                                    HANDLE "));
	assert_true(starts(line(got, l.lines, buf, sizeof(buf)),
			   "qa              nm-qs-a                                  866c:  "));
	assert_true(starts(line(got, 2 * l.lines, buf, sizeof(buf)),
			   "averylongdevice cni-0f8e2d1c-4b7a-9e3f-aa01-5c6d7e8f9a0b 866c:  "));
	assert_non_null(strstr(got, " DRV_XOFF\n"));
	assert_true(widest(got) <= 80);
	free(got);
}

/*
 * COLUMNS first (a number only), then the terminal's width, 80 when it
 * says 0; no terminal: no limit.
 */
/*
 * An interval with nothing to list is its heading alone: no header of an
 * empty table (#37: an idle unit wrote one every interval, saying nothing).
 */
static void test_empty_table_heading_only(void **state)
{
	char *got;

	(void)state;
	got = xf_table(NULL, 0, 80);
	assert_string_equal(got, "\n00:00:00  flows: 0 active\n");
	free(got);
}

/*
 * A part after the first prints its heading only above rows: an idle
 * tcpstall printed "ACKs in the last interval ..." every interval.
 */
static void test_empty_later_part_no_heading(void **state)
{
	struct nm_emit e = { .time = 0 };
	struct xf_flow_row r;
	struct capture c;
	char *got;

	(void)state;
	setenv("TZ", "UTC", 1);
	tzset();
	flow(&r, AF_INET, 6, "198.18.0.1", "198.18.0.2");
	snprintf(e.table[0].heading, sizeof(e.table[0].heading), "summary: 0 of this");
	e.table[0].rows = NM_EMIT_ROWS(&xf_flow_rec, &r, 0);
	snprintf(e.table[1].heading, sizeof(e.table[1].heading), "the second part");
	e.table[1].rows = NM_EMIT_ROWS(&xf_flow_rec, &r, 0);
	cap_open(&c);
	nm_emit_table_in(c.f, &e, 80);
	got = cap_close(&c);
	assert_string_equal(got, "\n00:00:00  summary: 0 of this\n");
	free(got);
	e.table[1].rows = NM_EMIT_ROWS(&xf_flow_rec, &r, 1);
	cap_open(&c);
	nm_emit_table_in(c.f, &e, 80);
	got = cap_close(&c);
	assert_non_null(strstr(got, "\n00:00:00  summary: 0 of this\nthe second part\nDEV "));
	free(got);
}

static void test_columns(void **state)
{
	(void)state;
	assert_int_equal(nm_out_columns_of("132", true, 200), 132);
	assert_int_equal(nm_out_columns_of("132", false, 0), 132);
	assert_int_equal(nm_out_columns_of(NULL, true, 200), 200);
	assert_int_equal(nm_out_columns_of(NULL, true, 0), 80);
	assert_int_equal(nm_out_columns_of(NULL, false, 0), 0);
	assert_int_equal(nm_out_columns_of("", false, 0), 0);
	/* not a number, or not a width: as if unset */
	assert_int_equal(nm_out_columns_of("80x", true, 100), 100);
	assert_int_equal(nm_out_columns_of("0", true, 100), 100);
	assert_int_equal(nm_out_columns_of("-5", false, 0), 0);
	assert_int_equal(nm_out_columns_of("99999999999999999999", true, 90), 90);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_ipv6_flow_at_200),
		cmocka_unit_test(test_ipv6_flow_at_80),
		cmocka_unit_test(test_icmp6_flow_whole),
		cmocka_unit_test(test_no_terminal_no_limit),
		cmocka_unit_test(test_tcpstall_socket_at_80),
		cmocka_unit_test(test_qdiscstuck_at_80),
		cmocka_unit_test(test_qdiscstuck_names_whole),
		cmocka_unit_test(test_empty_table_heading_only),
		cmocka_unit_test(test_empty_later_part_no_heading),
		cmocka_unit_test(test_columns),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
