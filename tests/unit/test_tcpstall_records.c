// SPDX-License-Identifier: GPL-2.0
/*
 * Unit tests for src/tcpstall/records.c: a tracked socket's, a judged
 * flow's and an ended stall's rows and their JSON and table lines, the
 * report's record and textfile, as the loader wrote them before the
 * tables; and that docs/reference/tcpstall.md documents exactly the JSON
 * keys, table columns and tcpstall_ metrics that the field tables define,
 * and the man page, docs/tcpstall.md, names each record and column.
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

#include "tcpstall/records.h"
#include "capture.h"
#include "docs_check.h"

#ifndef NM_SRCDIR
#define NM_SRCDIR "."
#endif
/* the reference holds every key, column and metric; the man page, the short form, names them */
#define DOC NM_SRCDIR "/docs/reference/tcpstall.md"
#define MAN NM_SRCDIR "/docs/tcpstall.md"

#define NOW	(100ULL * 1000000000)

static const struct ts_key key4 = { .netns = 4026532180, .family = NM_AF_INET, .lport = 51780,
				    .rport = 5301, .laddr = { 198, 18, 1, 1 },
				    .raddr = { 198, 18, 1, 2 } };

static struct ts_key key6(void)
{
	struct ts_key k = { .netns = 7, .family = NM_AF_INET6, .lport = 5301, .rport = 65535 };

	k.laddr[0] = k.raddr[0] = 0x20;
	k.laddr[1] = k.raddr[1] = 0x01;
	k.laddr[2] = k.raddr[2] = 0x0d;
	k.laddr[3] = k.raddr[3] = 0xb8;
	k.laddr[4] = 0x12;
	k.raddr[4] = 0x34;
	k.laddr[15] = 1;
	k.raddr[15] = 2;
	return k;
}

/* the doc's rwnd stall: the window at 0 for 667 ms, ten stalls ended */
static struct ts_sock rwnd_sock(void)
{
	struct ts_sock s = {
		.last = { .unsent = 4170240, .packets_out = 0, .snd_cwnd = 2226, .snd_wnd = 0,
			  .wmem_alloc = 1, .send_age_ms = 668, .cgroup_id = 1, .pid = 28631,
			  .comm = "nm-tcp" },
		.stall_start_ns = NOW - 667319000,
		.stall_ns_total = 370538000,
		.stall_ns_max = 49501100,
		.stalls = 10,
		.cause = TS_RWND,
		.end = TS_END_SENT,
	};

	return s;
}

static char *json_of(const struct nm_record *rec, const void *row)
{
	struct capture c;

	cap_open(&c);
	nm_rec_json(c.f, rec, row);
	return cap_close(&c);
}

/* The rows as a report's table lays them out, for no terminal (no limit). */
static char *table_of(const struct nm_record *rec, const void *rows, size_t stride, int n)
{
	struct capture c;

	cap_open(&c);
	nm_rec_table(c.f, rec, rows, stride, n, 0, NULL);
	return cap_close(&c);
}

static void test_socket_json_and_table(void **state)
{
	struct ts_sock s = rwnd_sock();
	struct ts_socket_row r[2];
	struct ts_key k6 = key6();
	char *got;

	(void)state;
	ts_socket_row(&r[0], &key4, "nm-ts-snd", &s, "/", NOW, 10);
	got = json_of(&ts_socket_rec, &r[0]);
	assert_string_equal(got,
		"{\"type\":\"socket\",\"netns\":\"nm-ts-snd\",\"netns_ino\":4026532180,"
		"\"saddr\":\"198.18.1.1\","
		"\"daddr\":\"198.18.1.2\",\"sport\":51780,\"dport\":5301,\"proto\":\"tcp\","
		"\"state\":\"rwnd_limited\",\"stalled\":true,\"stalled_ms\":667.319,\"stalls\":10,"
		"\"stall_ms_total\":370.538,\"stall_ms_max\":49.5011,\"last_cause\":\"rwnd_limited\","
		"\"last_end\":\"sent\",\"unsent\":4170240,\"packets_out\":0,\"cwnd\":2226,"
		"\"snd_wnd\":0,\"tsq_flags\":0,\"wmem_alloc\":1,\"send_age_ms\":668,\"cgroup\":\"/\","
		"\"cgroup_id\":1,"
		"\"pid\":28631,\"comm\":\"nm-tcp\",\"kicks\":0,\"last_kick\":\"none\"}\n");
	free(got);

	/* not stalled now: the state is the last sample's, classified; kicked once */
	s.stall_start_ns = 0;
	s.last = (struct ts_sample){ .unsent = 0, .pid = 0, .comm = "stale" };
	s.kicks = 1;
	s.last_kick = TS_KICK_SKIPPED;
	/* a name longer than its column widens it; a cgroup without a path is "?" */
	ts_socket_row(&r[1], &k6, "containerd-shim:4242", &s, NULL, NOW, 10);
	got = json_of(&ts_socket_rec, &r[1]);
	assert_non_null(strstr(got, "\"saddr\":\"2001:db8:1200::1\",\"daddr\":\"2001:db8:3400::2\","
				    "\"sport\":5301,\"dport\":65535,\"proto\":\"tcp\","
				    "\"state\":\"app_limited\",\"stalled\":false,\"stalled_ms\":0,"));
	assert_non_null(strstr(got, "\"cgroup\":\"?\",\"cgroup_id\":0,\"pid\":0,\"comm\":\"\","
				    "\"kicks\":1,\"last_kick\":\"skipped\"}\n"));
	free(got);

	got = table_of(&ts_socket_rec, r, sizeof(r[0]), 2);
	assert_string_equal(got,
		"STATE          STALLS    NOW_MS    MAX_MS   UNSENT NETNS                FLOW\n"
		"rwnd_limited       10     667.3      49.5     4.2M nm-ts-snd            "
		"198.18.1.1:51780>198.18.1.2:5301\n"
		"app_limited        10       0.0      49.5        0 containerd-shim:4242 "
		"[2001:db8:1200::1]:5301>[2001:db8:3400::2]:65535\n");
	free(got);
}

static void test_acks_placement_json_and_table(void **state)
{
	struct ts_acks d = { .acks_out = 20213, .segs_in = 20113, .acks_owned = 3833,
			     .segs_owned = 3733, .pid = 26044, .comm = "nm-tcp" };
	struct ts_storm j = { .acks_per_seg = 20213.0 / 20113, .owned_ratio = 3833.0 / 3733,
			      .storm = true, .causes = { "quickack_route", "backlog_ack_defer_off" },
			      .ncauses = 2 };
	struct ts_placement p = { .busy = true, .split_softirq = true, .backlog_share = 0.185601,
				  .softirq_cpus = 0x3, .app_cpus = 0x2 };
	struct ts_key k = key4;
	struct ts_acks_row r[2];
	struct ts_placement_row pr;
	char *got;

	(void)state;
	k.lport = 5301;
	k.rport = 38754;
	memcpy(k.laddr, key4.raddr, 4);
	memcpy(k.raddr, key4.laddr, 4);
	ts_acks_row(&r[0], &k, "nm-ts-rcv", &d, &j);
	got = json_of(&ts_acks_rec, &r[0]);
	assert_string_equal(got,
		"{\"type\":\"acks\",\"netns\":\"nm-ts-rcv\",\"netns_ino\":4026532180,"
		"\"saddr\":\"198.18.1.2\","
		"\"daddr\":\"198.18.1.1\",\"sport\":5301,\"dport\":38754,\"proto\":\"tcp\","
		"\"acks_out\":20213,\"data_segs_in\":20113,\"acks_per_seg\":1.00497,"
		"\"acks_owned\":3833,\"segs_owned\":3733,\"owned_ratio\":1.02679,\"backlog_drops\":0,"
		"\"pid\":26044,\"comm\":\"nm-tcp\",\"storm\":true,"
		"\"causes\":[\"quickack_route\",\"backlog_ack_defer_off\"]}\n");
	free(got);
	ts_placement_row(&pr, &k, "nm-ts-rcv", &d, &p);
	got = json_of(&ts_placement_rec, &pr);
	assert_string_equal(got,
		"{\"type\":\"placement\",\"netns\":\"nm-ts-rcv\",\"netns_ino\":4026532180,"
		"\"saddr\":\"198.18.1.2\","
		"\"daddr\":\"198.18.1.1\",\"sport\":5301,\"dport\":38754,\"proto\":\"tcp\","
		"\"data_segs_in\":20113,\"softirq_cpus\":[0,1],\"app_cpus\":[1],"
		"\"backlog_share\":0.185601,\"cross_cpu\":false,\"split_softirq\":true}\n");
	free(got);

	/* no storm, no causes: the flow ends the line; counts shortened */
	d = (struct ts_acks){ .acks_out = 1234567, .segs_in = 100000, .backlog_drops = 123456 };
	j = (struct ts_storm){ .acks_per_seg = 12.34567 };
	ts_acks_row(&r[1], &k, "host", &d, &j);
	got = json_of(&ts_acks_rec, &r[1]);
	assert_non_null(strstr(got, "\"pid\":0,\"comm\":\"\",\"storm\":false,\"causes\":[]}\n"));
	free(got);
	got = table_of(&ts_acks_rec, r, sizeof(r[0]), 2);
	assert_string_equal(got,
		"STORM    ACKS    SEGS ACK/SG  OWNED DROPS NETNS      FLOW / CAUSES\n"
		"YES     20213   20113   1.00   1.03     0 nm-ts-rcv  198.18.1.2:5301>198.18.1.1:38754 "
		"quickack_route,backlog_ack_defer_off\n"
		"-        1.2M    100k  12.35   0.00  123k host       198.18.1.2:5301>198.18.1.1:38754\n");
	free(got);
}

static void test_stall_json(void **state)
{
	struct ts_stall_row r;
	char *got;

	(void)state;
	/* ended 0.5 s before the report, after 844.243 ms */
	ts_stall_row(&r, &key4, "nm-ts-snd", NOW - 1344243033, 844243033, TS_RWND, TS_END_GONE,
		     "sweep", NOW, 1796009291.5);
	got = json_of(&ts_stall_rec, &r);
	assert_string_equal(got,
		"{\"type\":\"stall\",\"netns\":\"nm-ts-snd\",\"netns_ino\":4026532180,"
		"\"saddr\":\"198.18.1.1\","
		"\"daddr\":\"198.18.1.2\",\"sport\":51780,\"dport\":5301,\"proto\":\"tcp\","
		"\"cause\":\"rwnd_limited\",\"ms\":844.243,\"start_mono_ns\":98655756967,"
		"\"time\":1796009290.156,\"end\":\"gone\",\"by\":\"sweep\"}\n");
	free(got);
	assert_true(fabs(r.time - 1796009290.155757) < 1e-3);
}

static struct ts_interval_row interval(void)
{
	struct ts_interval_row r = {
		.time = 1796009291, .sweeps = 127, .sweep_wait_ms = 10, .sockets_stalled = 1,
		.samples = { [TS_RWND] = 15, [TS_CWND] = 27 }, .stalls_ended = 2,
		.kicks = { 6, 4, 1, 1 }, .netns = 4026532252, .backlog_drops = 3,
		.ack_storm_flows = 1, .kick_age_max_ms = 12.5, .kick_age_mean_ms = 8,
		.kick_age_max_seconds = 0.0125, .netns_named = 3, .netns_swept = 2,
		.sockets_not_shown = 4, .ack_flows_not_shown = 7,
	};

	return r;
}

/* the same report's netns share: one netns, as with one --netns */
static struct ts_netns_row netns_row(void)
{
	struct ts_netns_row r = {
		.netns = "4026532252",
		.stalls = { [TS_RWND] = 1, [TS_CWND] = 13 }, .stalled_now = { [TS_RWND] = 1 },
		.stall_seconds = { [TS_RWND] = 0.844243033, [TS_CWND] = 0.5 },
		.acks_sent = 22500, .acks_owned = 7697, .data_segments = 22305, .ack_storm_flows = 1,
		.cross_cpu_flows = 2,
	};

	r.hist_us[TS_RWND][19] = 1;
	r.hist_us[TS_CWND][13] = 1;
	r.hist_us[TS_CWND][14] = 3;
	r.hist_us[TS_CWND][15] = 9;
	return r;
}

/* The textfile as the loader writes it: the netns rows, then the interval's. */
static char *prom_of(const struct ts_netns_row *ns, size_t n, const struct ts_interval_row *r)
{
	struct nm_prom *p = nm_prom_new();
	char *got;

	nm_rec_prom(p, &ts_netns_rec, ns, sizeof(*ns), n);
	nm_rec_prom(p, &ts_interval_rec, r, sizeof(*r), 1);
	got = cap_prom(p);
	nm_prom_free(p);
	return got;
}

static void test_interval_json(void **state)
{
	struct ts_interval_row r = interval();
	char *got;

	(void)state;
	got = json_of(&ts_interval_rec, &r);
	assert_string_equal(got,
		"{\"type\":\"interval\",\"time\":1796009291,\"sweeps\":127,\"sweep_wait_ms\":10,"
		"\"sockets_stalled\":1,\"ack_flows\":0,\"ack_untracked_events\":0,"
		"\"ack_storm_flows\":1,\"sockets_not_shown\":4,\"ack_flows_not_shown\":7,"
		"\"cross_cpu_flows\":0,\"samples\":{\"sending\":0,"
		"\"app_limited\":0,\"rwnd_limited\":15,\"cwnd_limited\":27,\"pacing\":0,\"nagle\":0,"
		"\"host_queue\":0,\"sndbuf_limited\":0,\"tsq_idle\":0,\"unknown\":0},"
		"\"stalls_ended\":2,\"stalls_unlisted\":0,"
		"\"kicks\":{\"attempted\":6,\"done\":4,\"failed\":1,\"skipped\":1},"
		"\"netns_named\":3,\"netns_swept\":2,\"netns_over\":0}\n");
	free(got);
	/* the episode hooks, the kicker and the kick: their keys */
	r.episodes = r.kicker = r.kick = true;
	r.tsq_episodes = 9;
	r.tsq_episodes_lost = 1;
	r.kick_due = 5;
	got = json_of(&ts_interval_rec, &r);
	assert_non_null(strstr(got, "\"stalls_unlisted\":0,\"tsq_episodes\":9,"
				    "\"tsq_episodes_lost\":1,\"kick_due\":5,\"kick_due_lost\":0,"
				    "\"kicks\":{\"attempted\":6,\"done\":4,\"failed\":1,\"skipped\":1},"
				    "\"kick_age_max_ms\":12.5,\"kick_age_mean_ms\":8,"
				    "\"netns_named\":3,"));
	free(got);
}

/*
 * The textfile's tcpstall_ part, as prom_totals() wrote it, its states
 * one per line: with one netns, its row and the interval's give it in
 * the order it always had.
 */
static void test_interval_metrics(void **state)
{
	struct ts_interval_row r = interval();
	struct ts_netns_row ns = netns_row();
	char *got, want[8192], *w = want;
	size_t n = sizeof(want);
	int k;

	(void)state;
	got = prom_of(&ns, 1, &r);
#define ADD(...)	(k = snprintf(w, n, __VA_ARGS__), w += k, n -= k)
	ADD("# HELP tcpstall_stalls_total Ended stalls by cause\n"
	    "# TYPE tcpstall_stalls_total counter\n");
	for (int s = 0; s < TS_NSTATES; s++)
		ADD("tcpstall_stalls_total{state=\"%s\"} %d\n", ts_state_name(s),
		    s == TS_RWND ? 1 : s == TS_CWND ? 13 : 0);
	ADD("# HELP tcpstall_sockets_stalled Sockets stalled now, by cause\n"
	    "# TYPE tcpstall_sockets_stalled gauge\n");
	for (int s = 0; s < TS_NSTATES; s++)
		ADD("tcpstall_sockets_stalled{state=\"%s\"} %d\n", ts_state_name(s), s == TS_RWND);
	ADD("# HELP tcpstall_stall_seconds Durations of ended stalls\n"
	    "# TYPE tcpstall_stall_seconds histogram\n");
	/* buckets up to the highest in use, microseconds as seconds */
	for (int i = 0; i <= 19; i++)
		ADD("tcpstall_stall_seconds_bucket{state=\"rwnd_limited\",le=\"%.15g\"} %d\n",
		    ((1 << (i + 1)) - 1) * 1e-6, i == 19);
	ADD("tcpstall_stall_seconds_bucket{state=\"rwnd_limited\",le=\"+Inf\"} 1\n"
	    "tcpstall_stall_seconds_sum{state=\"rwnd_limited\"} 0.844243033\n"
	    "tcpstall_stall_seconds_count{state=\"rwnd_limited\"} 1\n");
	for (int i = 0; i <= 15; i++)
		ADD("tcpstall_stall_seconds_bucket{state=\"cwnd_limited\",le=\"%.15g\"} %d\n",
		    ((1 << (i + 1)) - 1) * 1e-6, i < 13 ? 0 : i == 13 ? 1 : i == 14 ? 4 : 13);
	ADD("tcpstall_stall_seconds_bucket{state=\"cwnd_limited\",le=\"+Inf\"} 13\n"
	    "tcpstall_stall_seconds_sum{state=\"cwnd_limited\"} 0.5\n"
	    "tcpstall_stall_seconds_count{state=\"cwnd_limited\"} 13\n");
	ADD("# HELP tcpstall_ack_storm_flows Flows in an ACK storm in the last interval\n"
	    "# TYPE tcpstall_ack_storm_flows gauge\n"
	    "tcpstall_ack_storm_flows 1\n"
	    "# HELP tcpstall_cross_cpu_flows Flows whose softirq and application CPUs never met in the last interval\n"
	    "# TYPE tcpstall_cross_cpu_flows gauge\n"
	    "tcpstall_cross_cpu_flows 2\n"
	    "# HELP tcpstall_acks_sent_total Pure ACKs transmitted by watched sockets\n"
	    "# TYPE tcpstall_acks_sent_total counter\n"
	    "tcpstall_acks_sent_total 22500\n"
	    "# HELP tcpstall_acks_owned_total Pure ACKs transmitted while the user thread owned the socket (backlog)\n"
	    "# TYPE tcpstall_acks_owned_total counter\n"
	    "tcpstall_acks_owned_total 7697\n"
	    "# HELP tcpstall_data_segments_total Data segments received by watched sockets\n"
	    "# TYPE tcpstall_data_segments_total counter\n"
	    "tcpstall_data_segments_total 22305\n"
	    "# HELP tcpstall_backlog_drops_total Segments dropped because a socket backlog was full (SKB_DROP_REASON_SOCKET_BACKLOG)\n"
	    "# TYPE tcpstall_backlog_drops_total counter\n"
	    "tcpstall_backlog_drops_total 3\n"
	    "# HELP tcpstall_kicks_total Kicks of tsq_idle sockets (--fix=kick) by result\n"
	    "# TYPE tcpstall_kicks_total counter\n"
	    "tcpstall_kicks_total{result=\"done\"} 4\n"
	    "tcpstall_kicks_total{result=\"failed\"} 1\n"
	    "tcpstall_kicks_total{result=\"skipped\"} 1\n"
	    "# HELP tcpstall_kick_age_max_seconds The oldest stall's age at its kick in the last interval (--fix=kick), 0 if none\n"
	    "# TYPE tcpstall_kick_age_max_seconds gauge\n"
	    "tcpstall_kick_age_max_seconds 0.0125\n");
#undef ADD
	assert_string_equal(got, want);
	free(got);
}

/* --prom-netns: every series gets netns="INODE", before its other labels */
static void test_interval_metrics_with_netns(void **state)
{
	struct ts_interval_row r = interval();
	struct ts_netns_row ns = netns_row();
	char *got;

	(void)state;
	r.prom_netns = ns.labelled = true;
	got = prom_of(&ns, 1, &r);
	assert_non_null(strstr(got, "\ntcpstall_stalls_total{netns=\"4026532252\",state=\"rwnd_limited\"} 1\n"));
	assert_non_null(strstr(got, "\ntcpstall_stall_seconds_bucket{netns=\"4026532252\","
				    "state=\"cwnd_limited\",le=\"+Inf\"} 13\n"));
	assert_non_null(strstr(got, "\ntcpstall_ack_storm_flows{netns=\"4026532252\"} 1\n"));
	assert_non_null(strstr(got, "\ntcpstall_kicks_total{netns=\"4026532252\",result=\"done\"} 4\n"));
	assert_null(strstr(got, "} 1\ntcpstall_ack_storm_flows 1"));
	free(got);
}

static int count_of(const char *s, const char *what)
{
	int n = 0;

	for (const char *p = s; (p = strstr(p, what)); p++)
		n++;
	return n;
}

/*
 * Host-wide: each netns's series labelled with its name, before its
 * other labels; the interval's (drops, kicks) are no netns's: no label.
 */
static void test_netns_metrics_by_name(void **state)
{
	struct ts_interval_row r = interval();
	struct ts_netns_row ns[2] = { netns_row(), netns_row() };
	char *got;

	(void)state;
	snprintf(ns[0].netns, sizeof(ns[0].netns), "host");
	snprintf(ns[1].netns, sizeof(ns[1].netns), "nm-ts-rcv");
	ns[0].labelled = ns[1].labelled = true;
	ns[1].ack_storm_flows = 0;
	ns[1].acks_sent = 7;
	got = prom_of(ns, 2, &r);
	assert_non_null(strstr(got, "\ntcpstall_stalls_total{netns=\"host\",state=\"rwnd_limited\"} 1\n"));
	assert_non_null(strstr(got, "\ntcpstall_stalls_total{netns=\"nm-ts-rcv\",state=\"rwnd_limited\"} 1\n"));
	assert_non_null(strstr(got, "\ntcpstall_ack_storm_flows{netns=\"host\"} 1\n"
				    "tcpstall_ack_storm_flows{netns=\"nm-ts-rcv\"} 0\n"));
	assert_non_null(strstr(got, "\ntcpstall_acks_sent_total{netns=\"nm-ts-rcv\"} 7\n"));
	assert_non_null(strstr(got, "\ntcpstall_kicks_total{result=\"done\"} 4\n"));
	assert_non_null(strstr(got, "\ntcpstall_backlog_drops_total 3\n"));
	/* one family each, however many namespaces */
	assert_int_equal(count_of(got, "# TYPE tcpstall_stalls_total "), 1);
	assert_int_equal(count_of(got, "\ntcpstall_stalls_total{"), 2 * TS_NSTATES);
	free(got);
}

static void test_start_json(void **state)
{
	struct ts_start_row r = { .tool = "tcpstall", .kernel = "6.18", .interval = 3,
				  .netns = "all", .names_lost = "", .threshold_ms = 10, .sweep_ms = 10,
				  .full_sweep_ms = 1000, .full_sweep_by = "iter/tcp",
				  .sweep_cpu_budget_pct = 5, .senders_tagged_by = "net_dev_queue" };
	char *got;

	(void)state;
	got = json_of(&ts_start_rec, &r);
	assert_string_equal(got,
		"{\"type\":\"start\",\"tool\":\"tcpstall\",\"kernel\":\"6.18\",\"hooks\":{},"
		"\"refused\":{},\"lost\":{},\"interval\":3,\"netns\":\"all\",\"names_lost\":\"\","
		"\"threshold_ms\":10,"
		"\"sweep_ms\":10,\"full_sweep_ms\":1000,\"full_sweep_by\":\"iter/tcp\","
		"\"sweep_cpu_budget_pct\":5,\"senders_tagged_by\":\"net_dev_queue\"}\n");
	free(got);
	r.kick = true;
	r.kick_at = "threshold";
	r.kicker = "SCHED_FIFO 1";
	got = json_of(&ts_start_rec, &r);
	assert_non_null(strstr(got, "\"senders_tagged_by\":\"net_dev_queue\",\"kick_at\":\"threshold\","
				    "\"kicker\":\"SCHED_FIFO 1\"}\n"));
	free(got);
}

/* the JSON's kicks and the metric's results name what detect/ names */
static void test_kick_names_are_detects(void **state)
{
	(void)state;
	assert_string_equal(ts_kick_count_names[0], "attempted");
	for (int r = 0; r < TS_KICK_NRESULTS; r++)
		assert_string_equal(ts_kick_count_names[r + 1], ts_kick_result_name(r));
}

/* ---- the docs ---- */

static struct doc_spec doc(void)
{
	return (struct doc_spec){ .path = DOC, .man = MAN, .records = ts_records, .nrecords = ts_nrecords,
				  .table_rec = "socket,acks", .metric_prefix = "tcpstall_" };
}

static void test_doc_documents_exactly_the_tables(void **state)
{
	struct doc_spec d = doc();

	(void)state;
	doc_check_exactly_the_tables(&d, 100, 14, 10);
}

static void test_doc_examples_have_the_tables_keys(void **state)
{
	struct doc_spec d = doc();

	(void)state;
	doc_check_examples(&d, 8);
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
		cmocka_unit_test(test_socket_json_and_table),
		cmocka_unit_test(test_acks_placement_json_and_table),
		cmocka_unit_test(test_stall_json),
		cmocka_unit_test(test_interval_json),
		cmocka_unit_test(test_interval_metrics),
		cmocka_unit_test(test_interval_metrics_with_netns),
		cmocka_unit_test(test_netns_metrics_by_name),
		cmocka_unit_test(test_start_json),
		cmocka_unit_test(test_kick_names_are_detects),
		cmocka_unit_test(test_doc_documents_exactly_the_tables),
		cmocka_unit_test(test_doc_examples_have_the_tables_keys),
		cmocka_unit_test(test_man_names_the_records_and_columns),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
