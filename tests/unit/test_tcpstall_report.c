// SPDX-License-Identifier: GPL-2.0
/*
 * Unit tests for src/tcpstall/report.c: the interval's ended stalls
 * and flows, their rank, the ACK table's slot read, --fix's flows, the
 * interval record's share, and the rows the sinks write, in their order.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <cmocka.h>

#include "tcpstall/act.h"
#include "tcpstall/report.h"
#include "capture.h"

static const struct ts_storm_cfg storm_cfg = TS_STORM_CFG_DEFAULT;

static struct ts_key key(uint16_t lport)
{
	return (struct ts_key){ .netns = 7, .family = NM_AF_INET, .lport = lport, .rport = 5301,
				.laddr = { 198, 18, 1, 1 }, .raddr = { 198, 18, 1, 2 } };
}

static void report_init(struct ts_report *r)
{
	memset(r, 0, sizeof(*r));
	r->socks = nm_htab_new(sizeof(struct ts_key), sizeof(struct ts_sock), 64);
	assert_non_null(r->socks);
	r->prev_acks = nm_htab_new(sizeof(uint64_t), sizeof(struct ts_prev_acks), 64);
	assert_non_null(r->prev_acks);
	r->threshold_ms = 10;
	r->storm = &storm_cfg;
}

static void report_done(struct ts_report *r)
{
	nm_htab_free(r->socks);
	nm_htab_free(r->prev_acks);
	ts_report_free(r);
}

/* counters of a flow: a storm (an ACK per segment, all from the backlog) or a quiet one */
static struct ts_acks acks(uint16_t lport, uint64_t sk, uint64_t acks_out, bool storm)
{
	return (struct ts_acks){ .sk = sk, .key = key(lport), .acks_out = acks_out,
				 .acks_owned = storm ? acks_out : 0, .segs_in = 1000,
				 .segs_owned = storm ? 1000 : 0, .defer = 0, .rx_ifindex = 3 };
}

/* Past TS_REPORT_ENDED, a stall is counted, not listed; the next interval starts from none. */
static void test_ended(void **state)
{
	static struct ts_report r;
	struct ts_sock s = { .last_start_ns = 5, .cause = TS_RWND, .end = TS_END_SENT };
	struct ts_key k = key(1);

	(void)state;
	report_init(&r);
	for (int i = 0; i < TS_REPORT_ENDED + 2; i++)
		ts_report_ended(&r, &k, &s, 40, "sweep");
	assert_int_equal(r.nended, TS_REPORT_ENDED);
	assert_int_equal(r.ended_dropped, 2);
	assert_int_equal(r.ended[0].start_ns, 5);
	assert_int_equal(r.ended[0].dur_ns, 40);
	assert_int_equal(r.ended[0].cause, TS_RWND);
	assert_int_equal(r.ended[0].end, TS_END_SENT);
	assert_string_equal(r.ended[0].by, "sweep");
	r.samples[TS_RWND] = 3;
	ts_report_next(&r);
	assert_int_equal(r.nended, 0);
	assert_int_equal(r.ended_dropped, 0);
	assert_int_equal(r.samples[TS_RWND], 0);
	report_done(&r);
}

/* Storms first, then by ACKs sent; the counts of storms follow the verdicts. */
static void test_flows_rank(void **state)
{
	static struct ts_report r;
	struct ts_acks a = acks(1, 100, 50, false), b = acks(2, 200, 900, false),
		       c = acks(3, 300, 1000, true);

	(void)state;
	report_init(&r);
	ts_report_flows_start(&r, 42);
	assert_true(ts_report_flow(&r, &a, &a, 0, 0));
	assert_true(ts_report_flow(&r, &b, &b, 1, 0));
	assert_true(ts_report_flow(&r, &c, &c, 2, 0));
	assert_int_equal(r.nflows, 3);
	assert_int_equal(r.storms, 1);
	ts_report_rank(&r);
	assert_int_equal(r.flows[0].sk, 300);
	assert_true(r.flows[0].j.storm);
	assert_int_equal(r.flows[1].sk, 200);
	assert_int_equal(r.flows[2].sk, 100);
	assert_int_equal(r.flows[2].slot, 0);
	assert_int_equal(r.now_ns, 42);
	/* a new report: no flows, none counted */
	ts_report_flows_start(&r, 43);
	assert_int_equal(r.nflows, 0);
	assert_int_equal(r.storms, 0);
	report_done(&r);
}

/*
 * A quiet flow's counters for --sort: under min_segs (200) segments, so
 * never a storm whatever its ratios.
 */
static struct ts_acks counted(uint16_t lport, uint64_t sk, uint64_t acks_out, uint64_t segs,
			      uint64_t acks_owned, uint64_t segs_owned, uint64_t drops)
{
	struct ts_acks a = acks(lport, sk, acks_out, false);

	a.segs_in = segs;
	a.acks_owned = acks_owned;
	a.segs_owned = segs_owned;
	a.backlog_drops = drops;
	return a;
}

/* The report's flows ranked by key, as their sk, into got. */
static void rank_by(struct ts_report *r, enum ts_sort key, uint64_t *got)
{
	r->sort = key;
	ts_report_rank(r);
	for (size_t i = 0; i < r->nflows; i++)
		got[i] = r->flows[i].sk;
}

/*
 * #18: --sort. Each key ranks by its own field, most first, with the
 * storm ahead of every other whatever the key (here it has no drops).
 * The default key is today's order: storms, then ACKs sent.
 */
static void test_sort_keys(void **state)
{
	static struct ts_report r;
	/* ratio: 0.4, 0.2, 2.0, 0.05; owned: 0.1, 0.4, 0.5, 0.9 */
	struct ts_acks f[5] = {
		counted(1, 1, 40, 100, 10, 100, 3), counted(2, 2, 30, 150, 20, 50, 0),
		counted(3, 3, 20, 10, 5, 10, 1), counted(4, 4, 10, 199, 9, 10, 9),
		acks(9, 9, 1000, true),
	};
	static const uint64_t want[TS_NR_SORTS][5] = {
		[TS_SORT_ACKS] = { 9, 1, 2, 3, 4 }, [TS_SORT_SEGS] = { 9, 4, 2, 1, 3 },
		[TS_SORT_RATIO] = { 9, 3, 1, 2, 4 }, [TS_SORT_OWNED] = { 9, 4, 3, 2, 1 },
		[TS_SORT_DROPS] = { 9, 4, 1, 3, 2 },
	};
	uint64_t got[5];

	(void)state;
	report_init(&r);
	assert_int_equal(TS_SORT_ACKS, 0);	/* a zeroed report ranks as it always did */
	assert_string_equal(ts_sort_names[TS_SORT_ACKS], "acks");
	assert_string_equal(ts_sort_names[TS_SORT_SEGS], "segs");
	assert_string_equal(ts_sort_names[TS_SORT_RATIO], "ratio");
	assert_string_equal(ts_sort_names[TS_SORT_OWNED], "owned");
	assert_string_equal(ts_sort_names[TS_SORT_DROPS], "drops");
	ts_report_flows_start(&r, 10);
	for (uint32_t i = 0; i < 5; i++)
		assert_true(ts_report_flow(&r, &f[i], &f[i], i, 0));
	assert_int_equal(r.storms, 1);
	assert_false(r.flows[3].j.storm);
	for (int k = 0; k < TS_NR_SORTS; k++) {
		rank_by(&r, k, got);
		assert_memory_equal(got, want[k], sizeof(got));
	}
	/* back to the default from any order */
	rank_by(&r, TS_SORT_ACKS, got);
	assert_memory_equal(got, want[TS_SORT_ACKS], sizeof(got));
	report_done(&r);
}

/*
 * Ties are deterministic: equal keys go by ACKs sent, then by the flow
 * (here its local port), then by slot, whatever order the flows came in.
 */
static void test_sort_ties(void **state)
{
	static struct ts_report r;
	/* drops 5 each; 7 and 8 have the same ACKs and differ by port only */
	struct ts_acks f[4] = {
		counted(8, 80, 10, 100, 0, 0, 5), counted(6, 60, 20, 100, 0, 0, 5),
		counted(7, 70, 10, 100, 0, 0, 5), counted(5, 50, 10, 100, 0, 0, 1),
	};
	static const int orders[3][4] = { { 0, 1, 2, 3 }, { 3, 2, 1, 0 }, { 2, 0, 3, 1 } };
	static const uint64_t want_drops[4] = { 60, 70, 80, 50 }, want_acks[4] = { 60, 50, 70, 80 };
	uint64_t got[4];

	(void)state;
	report_init(&r);
	for (int o = 0; o < 3; o++) {
		ts_report_flows_start(&r, 10 + o);
		for (uint32_t i = 0; i < 4; i++) {
			const struct ts_acks *a = &f[orders[o][i]];

			assert_true(ts_report_flow(&r, a, a, i, 0));
		}
		rank_by(&r, TS_SORT_DROPS, got);
		assert_memory_equal(got, want_drops, sizeof(got));
		rank_by(&r, TS_SORT_ACKS, got);
		assert_memory_equal(got, want_acks, sizeof(got));
	}
	/* one 4-tuple in two slots (the port reused in the interval): by slot */
	ts_report_flows_start(&r, 20);
	assert_true(ts_report_flow(&r, &f[2], &f[2], 9, 0));
	assert_true(ts_report_flow(&r, &f[2], &f[2], 4, 0));
	ts_report_rank(&r);
	assert_int_equal(r.flows[0].slot, 4);
	assert_int_equal(r.flows[1].slot, 9);
	report_done(&r);
}

/* A free or busy slot holds no socket; a held one is copied. */
static void test_acks_read(void **state)
{
	struct ts_acks slot = { .sk = TS_SLOT_FREE }, cur;

	(void)state;
	assert_false(ts_acks_read(&slot, &cur));
	slot.sk = TS_SLOT_BUSY;
	assert_false(ts_acks_read(&slot, &cur));
	slot = acks(9, 0xffff8880aa, 7, false);
	assert_true(ts_acks_read(&slot, &cur));
	assert_int_equal(cur.sk, 0xffff8880aa);
	assert_int_equal(cur.acks_out, 7);
}

/*
 * --fix's flows: a storm whose slot still holds its socket (not one whose
 * slot went to another), a quiet flow never; then the sockets in tsq_idle
 * now, then the tsq_idle stalls that ended (not others).
 */
static void test_fix_flows(void **state)
{
	static struct ts_report r;
	struct ts_acks tab[3] = { acks(1, 100, 1000, true), acks(2, 200, 1000, true),
				  acks(3, 300, 5, false) };
	struct ts_sock idle = { .stall_start_ns = 1, .cause = TS_TSQ_IDLE },
		       rwnd = { .stall_start_ns = 1, .cause = TS_RWND };
	struct ts_key ki = key(10), kr = key(11), ke = key(12), kf = key(13);
	size_t n;

	(void)state;
	report_init(&r);
	ts_report_flows_start(&r, 1);
	for (uint32_t i = 0; i < 3; i++)
		assert_true(ts_report_flow(&r, &tab[i], &tab[i], i, 0));
	tab[1].sk = 201;	/* slot 1 went to another socket */
	tab[0].defer = 1;	/* read at the plan, not at the collection */
	*(struct ts_sock *)nm_htab_upsert(r.socks, &ki, NULL) = idle;
	*(struct ts_sock *)nm_htab_upsert(r.socks, &kr, NULL) = rwnd;
	idle.last_start_ns = 3;
	ts_report_ended(&r, &ke, &idle, 40, "tcp_push");
	ts_report_ended(&r, &kf, &rwnd, 40, "sweep");
	n = ts_report_fix_flows(&r, tab);
	assert_int_equal(n, 3);
	assert_int_equal(r.fix[0].key.lport, 1);
	assert_true(r.fix[0].storm);
	assert_int_equal(r.fix[0].defer, 1);
	assert_int_equal(r.fix[0].rx_ifindex, 3);
	assert_false(r.fix[0].tsq_idle);
	assert_int_equal(r.fix[1].key.lport, 10);
	assert_true(r.fix[1].tsq_idle);
	assert_int_equal(r.fix[2].key.lport, 12);
	assert_true(r.fix[2].tsq_idle);
	report_done(&r);
}

/*
 * The interval record's share: sockets stalled now, flows, samples,
 * stalls; with one netns, its metrics' row: by cause, the totals.
 */
static void test_interval(void **state)
{
	static struct ts_report r;
	static struct ts_interval_row ir;
	struct ts_sock idle = { .stall_start_ns = 1, .cause = TS_TSQ_IDLE }, ok = { .stalls = 2 };
	struct ts_key k1 = key(1), k2 = key(2);
	struct ts_acks a = acks(1, 100, 1000, true);

	(void)state;
	report_init(&r);
	*(struct ts_sock *)nm_htab_upsert(r.socks, &k1, NULL) = idle;
	*(struct ts_sock *)nm_htab_upsert(r.socks, &k2, NULL) = ok;
	ts_report_flows_start(&r, 1);
	assert_true(ts_report_flow(&r, &a, &a, 0, 0));
	r.samples[TS_SENDING] = 4;
	r.tot.stalls[TS_RWND] = 2;
	r.tot.stall_ns[TS_RWND] = 1500000000;
	r.tot.hist_us[TS_RWND][5] = 2;
	ts_report_ended(&r, &k1, &idle, 1, "sweep");
	r.ended_dropped = 1;
	ts_report_interval(&r, &ir);
	assert_int_equal(ir.sockets_stalled, 1);
	assert_int_equal(ir.ack_flows, 1);
	assert_int_equal(ir.ack_storm_flows, 1);
	assert_int_equal(ir.samples[TS_SENDING], 4);
	assert_int_equal(ir.stalls_ended, 2);
	assert_int_equal(ir.stalls_unlisted, 1);
	/* one row, its label only where --prom-netns asks, the inode */
	r.self_ino = 4026531840ULL;
	r.cross = 2;
	assert_int_equal(ts_report_ns_rows(&r), 1);
	assert_int_equal(r.ns_rows[0].cross_cpu_flows, 2);
	assert_false(r.ns_rows[0].labelled);
	assert_string_equal(r.ns_rows[0].netns, "4026531840");
	assert_int_equal(r.ns_rows[0].stalled_now[TS_TSQ_IDLE], 1);
	assert_int_equal(r.ns_rows[0].ack_storm_flows, 1);
	assert_int_equal(r.ns_rows[0].stalls[TS_RWND], 2);
	assert_int_equal(r.ns_rows[0].hist_us[TS_RWND][5], 2);
	assert_true(r.ns_rows[0].stall_seconds[TS_RWND] == 1.5);
	r.prom_netns = true;
	assert_int_equal(ts_report_ns_rows(&r), 1);
	assert_true(r.ns_rows[0].labelled);
	report_done(&r);
}

/*
 * The whole interval record: the report's share and the collected one's;
 * the episode and kick timer counters only where they run.
 */
static void test_interval_row(void **state)
{
	static struct ts_report r;
	static struct ts_interval_row ir;
	struct ts_sock idle = { .stall_start_ns = 1, .cause = TS_TSQ_IDLE };
	struct ts_kick_stats ks = { .age_max_ns = 30000000, .age_sum_ns = 40000000, .aged = 2 };
	struct ts_interval_in in = {
		.time = 1700000000, .sweeps = 9, .sweep_wait_ns = 2500000, .ack_untracked = 3,
		.kicks = &ks,
		.prom_netns = true, .netns = 4026531840ULL,
	};
	struct ts_key k1 = key(1);

	(void)state;
	report_init(&r);
	*(struct ts_sock *)nm_htab_upsert(r.socks, &k1, NULL) = idle;
	/* the ACK totals are the report's (ts_report_acks) */
	r.acks_sent = 100;
	r.acks_owned = 60;
	r.data_segments = 110;
	ks.kicks[0] = 2;
	ks.kicks[TS_KICK_NRESULTS - 1] = 5;
	in.counters[TS_CNT_TSQ_EPISODES] = 7;
	in.counters[TS_CNT_TSQ_LOST] = 1;
	in.counters[TS_CNT_KICK_DUE] = 4;
	in.counters[TS_CNT_KICK_DUE_LOST] = 2;
	in.counters[TS_CNT_BACKLOG_DROPS] = 11;
	/* a stale row is overwritten whole */
	ir.tsq_episodes = 99;
	ir.sockets_stalled = 99;
	in.netns_named = 5;
	in.netns_swept = 4;
	in.netns_over = 1;
	ts_report_interval_row(&r, &in, &ir);
	assert_int_equal(ir.sockets_stalled, 1);
	assert_int_equal(ir.time, 1700000000);
	assert_int_equal(ir.netns_named, 5);
	assert_int_equal(ir.netns_swept, 4);
	assert_int_equal(ir.netns_over, 1);
	assert_int_equal(ir.sweeps, 9);
	assert_true(ir.sweep_wait_ms == 2.5);
	assert_int_equal(ir.ack_untracked_events, 3);
	/* without the episode hooks and the kicker, their counters are not the row's */
	assert_false(ir.episodes);
	assert_int_equal(ir.tsq_episodes, 0);
	assert_int_equal(ir.tsq_episodes_lost, 0);
	assert_false(ir.kicker);
	assert_int_equal(ir.kick_due, 0);
	assert_int_equal(ir.kick_due_lost, 0);
	/* [0] the kicks attempted, then one per result */
	assert_int_equal(ir.kicks[0], 7);
	assert_int_equal(ir.kicks[1], 2);
	assert_int_equal(ir.kicks[TS_KICK_NRESULTS], 5);
	assert_false(ir.kick);
	assert_true(ir.kick_age_max_ms == 30);
	assert_true(ir.kick_age_mean_ms == 20);
	assert_true(ir.kick_age_max_seconds == 0.03);
	assert_true(ir.prom_netns);
	assert_int_equal(ir.netns, 4026531840ULL);
	assert_int_equal(ts_report_ns_rows(&r), 1);
	assert_int_equal(r.ns_rows[0].acks_sent, 100);
	assert_int_equal(r.ns_rows[0].acks_owned, 60);
	assert_int_equal(r.ns_rows[0].data_segments, 110);
	assert_int_equal(ir.backlog_drops, 11);
	/* host-wide the namespaces' rows carry the label: the interval's series none */
	r.per_ns = true;
	ts_report_interval_row(&r, &in, &ir);
	assert_false(ir.prom_netns);
	r.per_ns = false;

	in.episodes = in.kicker = in.kick = true;
	ks = (struct ts_kick_stats){ 0 };
	ts_report_interval_row(&r, &in, &ir);
	assert_true(ir.episodes);
	assert_int_equal(ir.tsq_episodes, 7);
	assert_int_equal(ir.tsq_episodes_lost, 1);
	assert_true(ir.kicker);
	assert_int_equal(ir.kick_due, 4);
	assert_int_equal(ir.kick_due_lost, 2);
	assert_true(ir.kick);
	/* no stall aged: no mean, and no division by zero */
	assert_int_equal(ir.kicks[0], 0);
	assert_true(ir.kick_age_mean_ms == 0);
	report_done(&r);
}

/*
 * The ACK flow table read: a socket's deltas since the last read, the
 * totals, flows only for slots that moved, and the flows of a slot that
 * changed hands forgotten.
 */
static void test_acks_deltas(void **state)
{
	static struct ts_report r;
	struct ts_acks slots[3] = { acks(1, 100, 1000, true) };	/* slots 1, 2: free */

	(void)state;
	report_init(&r);
	ts_report_flows_start(&r, 1);
	assert_true(ts_report_acks(&r, slots, 3, 0));
	assert_int_equal(r.acks_present, 1);
	assert_int_equal(r.nflows, 1);
	assert_int_equal(r.flows[0].slot, 0);
	assert_int_equal(r.flows[0].delta.acks_out, 1000);
	assert_int_equal(r.acks_sent, 1000);
	assert_int_equal(r.acks_owned, 1000);
	assert_int_equal(r.data_segments, 1000);

	/* 500 more ACKs: the delta is 500, the totals grow by it */
	slots[0].acks_out = slots[0].acks_owned = 1500;
	ts_report_flows_start(&r, 2);
	assert_true(ts_report_acks(&r, slots, 3, 1));
	assert_int_equal(r.nflows, 1);
	assert_int_equal(r.flows[0].delta.acks_out, 500);
	assert_int_equal(r.flows[0].delta.segs_in, 0);
	assert_int_equal(r.acks_sent, 1500);
	assert_int_equal(r.data_segments, 1000);

	/* nothing moved: no flow, the totals stay */
	ts_report_flows_start(&r, 3);
	assert_true(ts_report_acks(&r, slots, 3, 2));
	assert_int_equal(r.nflows, 0);
	assert_int_equal(r.acks_sent, 1500);
	assert_int_equal(nm_htab_count(r.prev_acks), 1);

	/* the slot went to another socket: the first one is forgotten */
	slots[0] = acks(2, 200, 10, false);
	slots[2] = acks(3, 300, 0, false);
	slots[2].segs_in = 0;
	ts_report_flows_start(&r, 4);
	assert_true(ts_report_acks(&r, slots, 3, 3));
	assert_int_equal(r.acks_present, 2);
	assert_int_equal(r.nflows, 1);		/* slot 2 holds a socket that did nothing */
	assert_int_equal(r.flows[0].sk, 200);
	assert_int_equal(nm_htab_count(r.prev_acks), 2);
	assert_null(nm_htab_get(r.prev_acks, &(uint64_t){ 100 }));
	assert_int_equal(r.acks_sent, 1510);
	report_done(&r);
}

/*
 * After a sweep: a stalled socket it missed ends its stall (drained), one
 * it saw stays; one missed for more than TS_FORGET_SWEEPS is forgotten.
 */
static void test_gone(void **state)
{
	static struct ts_report r;
	struct ts_sock stalled = { .stall_start_ns = 1000, .cause = TS_CWND, .seen_sweep = 3 };
	struct ts_sock seen = { .stall_start_ns = 1000, .cause = TS_CWND, .seen_sweep = 4 };
	struct ts_key k1 = key(1), k2 = key(2);

	(void)state;
	report_init(&r);
	*(struct ts_sock *)nm_htab_upsert(r.socks, &k1, NULL) = stalled;
	*(struct ts_sock *)nm_htab_upsert(r.socks, &k2, NULL) = seen;
	ts_report_gone(&r, 4, 5000);
	assert_int_equal(r.nended, 1);
	assert_int_equal(r.ended[0].key.lport, 1);
	assert_int_equal(r.ended[0].end, TS_END_DRAINED);
	assert_string_equal(r.ended[0].by, "sweep");
	assert_int_equal(((struct ts_sock *)nm_htab_get(r.socks, &k2))->stall_start_ns, 1000);
	assert_int_equal(nm_htab_count(r.socks), 2);
	/* unseen for TS_FORGET_SWEEPS: kept; one more: forgotten (k2 too, by then) */
	ts_report_gone(&r, 3 + TS_FORGET_SWEEPS, 6000);
	assert_non_null(nm_htab_get(r.socks, &k1));
	ts_report_gone(&r, 4 + TS_FORGET_SWEEPS, 7000);
	assert_null(nm_htab_get(r.socks, &k1));
	assert_non_null(nm_htab_get(r.socks, &k2));
	/* k2's stall ended once, at the first sweep that missed it */
	assert_int_equal(r.nended, 2);
	report_done(&r);
}

/* The first line's words: the sweeps, the tagger, sock_diag's caveat, the netns, --fix, the kick. */
static void test_first_what(void **state)
{
	struct ts_start_row r = { .sweep_ms = 10, .full_sweep_ms = 1000, .full_sweep_by = "iter/tcp",
				  .senders_tagged_by = "sock_send_length", .netns = "nm-ts-rcv",
				  .names_lost = "" };
	char what[512];

	(void)state;
	ts_report_first_what(&r, false, what, sizeof(what));
	assert_string_equal(what, "sweep 10ms (all sockets every 1000ms, senders tagged by sock_send_length), netns nm-ts-rcv");
	/* what missing privileges lost is not here: emit joins it to the hooks' losses */
	r.netns = "all";
	r.names_lost = "names of other users' namespaces (no CAP_SYS_PTRACE: their inodes)";
	ts_report_first_what(&r, false, what, sizeof(what));
	assert_string_equal(what, "sweep 10ms (all sockets every 1000ms, senders tagged by sock_send_length), netns all");
	r.netns = "nm-ts-rcv";
	r.names_lost = NULL;
	r.full_sweep_by = "sock_diag";
	r.kick = true;
	r.kick_at = "next_sweep";
	ts_report_first_what(&r, true, what, sizeof(what));
	assert_string_equal(what, "sweep 10ms (all sockets every 1000ms, senders tagged by sock_send_length; "
			    "full sweeps by sock_diag: no TSQ flags, pacing or Nagle state, so never tsq_idle "
			    "or host_queue), netns nm-ts-rcv, --fix, kick at next_sweep");
}

static char *types_of(void (*sink)(FILE *, const struct nm_emit *), const struct nm_emit *e)
{
	struct capture c;

	cap_open(&c);
	sink(c.f, e);
	return cap_close(&c);
}

static void json_sink(FILE *f, const struct nm_emit *e)
{
	nm_emit_json(f, e, "tcpstall");
}

/* Each "type" of the JSON lines of s, in order, space-separated, into out. */
static void json_types(const char *s, char *out, size_t len)
{
	size_t off = 0;

	out[0] = 0;
	for (const char *p = s; (p = strstr(p, "{\"type\":\"")) && off < len; p++) {
		const char *t = p + 9, *q = strchr(t, '"');

		off += snprintf(out + off, len - off, "%s%.*s", off ? " " : "", (int)(q - t), t);
	}
}

/* The JSON's records of type t in e. */
static int json_count(const struct nm_emit *e, const char *t)
{
	char types[4096], *s = types_of(json_sink, e);
	int n = 0;

	json_types(s, types, sizeof(types));
	free(s);
	for (char *w = strtok(types, " "); w; w = strtok(NULL, " "))
		n += !strcmp(w, t);
	return n;
}

/* One report's emit, and its interval record's counts from the same report. */
static void emit_counted(struct ts_report *r, struct nm_emit *e, struct ts_interval_row *ir)
{
	memset(e, 0, sizeof(*e));
	memset(ir, 0, sizeof(*ir));
	ts_report_interval(r, ir);
	ts_report_emit(r, e, ir);
}

/*
 * #18: the sinks carry what matters. Flows: those in a storm, on crossed
 * CPUs or with softirq split, then the top ones; sockets: stalled now or
 * whose stall ended in the interval. The interval counts the rest, and
 * --all carries every one.
 */
static void test_emit_what_matters(void **state)
{
	static struct ts_report r;
	static struct ts_interval_row ir;
	struct ts_sock now = { .stall_start_ns = 1, .cause = TS_RWND },
		       ended_before = { .stalls = 1, .last_end_ns = 5, .cause = TS_RWND },
		       ended_in = { .stalls = 2, .last_end_ns = 15, .cause = TS_CWND },
		       never = { .last.state = TS_SENDING };
	struct ts_key k[4] = { key(1), key(2), key(3), key(4) };
	struct nm_emit e;

	(void)state;
	report_init(&r);
	r.top = 2;
	*(struct ts_sock *)nm_htab_upsert(r.socks, &k[0], NULL) = now;
	*(struct ts_sock *)nm_htab_upsert(r.socks, &k[1], NULL) = ended_before;
	*(struct ts_sock *)nm_htab_upsert(r.socks, &k[2], NULL) = ended_in;
	*(struct ts_sock *)nm_htab_upsert(r.socks, &k[3], NULL) = never;
	/* the first report: a stall that ended since the start is the interval's */
	ts_report_flows_start(&r, 10);
	for (uint16_t i = 0; i < 8; i++) {
		struct ts_acks a = acks(10 + i, 100 + i, 3, false);

		a.segs_in = 1;
		assert_true(ts_report_flow(&r, &a, &a, i, 0));
	}
	r.flows[5].place.cross_cpu = true;
	r.flows[6].j.storm = true;
	r.flows[7].place.split_softirq = true;
	assert_false(ts_flow_matters(&r.flows[4]));
	assert_true(ts_flow_matters(&r.flows[5]) && ts_flow_matters(&r.flows[6]) &&
		    ts_flow_matters(&r.flows[7]));
	emit_counted(&r, &e, &ir);
	/* flows 0 and 1 (the top 2), 5, 6 and 7; sockets: now, ended_before and ended_in */
	assert_int_equal(json_count(&e, "acks"), 5);
	assert_int_equal(ir.ack_flows, 8);
	assert_int_equal(ir.ack_flows_not_shown, 3);
	assert_int_equal(json_count(&e, "socket"), 3);
	assert_int_equal(ir.sockets_not_shown, 1);
	/* the next report began at 10: ended_before's stall is not its */
	ts_report_flows_start(&r, 20);
	emit_counted(&r, &e, &ir);
	assert_int_equal(json_count(&e, "socket"), 2);
	assert_int_equal(ir.sockets_not_shown, 2);
	assert_int_equal(json_count(&e, "acks"), 0);
	/* --all: every socket tracked, every flow */
	for (uint16_t i = 0; i < 8; i++) {
		struct ts_acks a = acks(10 + i, 100 + i, 3, false);

		a.segs_in = 1;
		assert_true(ts_report_flow(&r, &a, &a, i, 0));
	}
	r.all = true;
	emit_counted(&r, &e, &ir);
	assert_int_equal(json_count(&e, "socket"), 4);
	assert_int_equal(json_count(&e, "acks"), 8);
	assert_int_equal(ir.sockets_not_shown, 0);
	assert_int_equal(ir.ack_flows_not_shown, 0);
	report_done(&r);
}

/*
 * --sort picks the top N, not what is shown besides it: under segs, with
 * --top 2, the two flows with most segments, and the storm (first) and
 * the misplaced flows (last by segments) whatever their rank.
 */
static void test_sort_what_matters(void **state)
{
	static struct ts_report r;
	static struct ts_interval_row ir;
	struct nm_emit e;
	char *s;

	(void)state;
	report_init(&r);
	r.top = 2;
	ts_report_flows_start(&r, 10);
	for (uint16_t i = 0; i < 6; i++) {
		/* segments 10 .. 60 by port, ACKs the other way round */
		struct ts_acks a = counted(10 + i, 100 + i, 60 - i, 10 * (i + 1), 0, 0, 0);

		assert_true(ts_report_flow(&r, &a, &a, i, 0));
	}
	r.flows[0].place.cross_cpu = true;
	r.flows[1].place.split_softirq = true;
	{
		struct ts_acks st = acks(30, 300, 1000, true);

		st.segs_in = 200;
		st.segs_owned = 200;
		assert_true(ts_report_flow(&r, &st, &st, 6, 0));
	}
	r.sort = TS_SORT_SEGS;
	ts_report_rank(&r);
	/* the storm, then 105 (60 segments) down to 100 (10): the top 2 are the storm and 105 */
	assert_int_equal(r.flows[0].sk, 300);
	assert_int_equal(r.flows[1].sk, 105);
	assert_int_equal(r.flows[2].sk, 104);
	assert_int_equal(r.flows[5].sk, 101);
	assert_int_equal(r.flows[6].sk, 100);
	assert_true(ts_report_flow_shown(&r, 0) && ts_report_flow_shown(&r, 1));
	assert_false(ts_report_flow_shown(&r, 2) || ts_report_flow_shown(&r, 3) ||
		     ts_report_flow_shown(&r, 4));
	assert_true(ts_report_flow_shown(&r, 5) && ts_report_flow_shown(&r, 6));
	emit_counted(&r, &e, &ir);
	assert_int_equal(json_count(&e, "acks"), 4);
	assert_int_equal(ir.ack_flows, 7);
	assert_int_equal(ir.ack_flows_not_shown, 3);
	/* JSON in that order: the storm, then 15, then the misplaced 11 and 10 */
	s = types_of(json_sink, &e);
	assert_non_null(strstr(s, "\"sport\":30,"));
	assert_true(strstr(s, "\"sport\":30,") < strstr(s, "\"sport\":15,"));
	assert_true(strstr(s, "\"sport\":15,") < strstr(s, "\"sport\":11,"));
	assert_true(strstr(s, "\"sport\":11,") < strstr(s, "\"sport\":10,"));
	assert_null(strstr(s, "\"sport\":14,"));
	free(s);
	report_done(&r);
}

/*
 * JSON: the interval, the ended stalls, the sockets worth a line (stalled
 * now or in the interval), each flow's ACKs with its placement when busy. The table:
 * the two parts, at most TS_REPORT_TOP rows each, and with -H one
 * histogram per cause that had stalls.
 */
static void test_emit(void **state)
{
	static struct ts_report r;
	static struct ts_interval_row ir;
	struct ts_sock stalled = { .stall_start_ns = 1, .cause = TS_RWND }, never = { 0 };
	struct ts_acks busy = acks(1, 100, 1000, true), quiet = acks(2, 200, 3, false);
	struct nm_emit e = { 0 };
	char types[512], *s;

	(void)state;
	report_init(&r);
	for (uint16_t i = 0; i < TS_REPORT_TOP + 2; i++) {
		struct ts_key k = key(100 + i);

		*(struct ts_sock *)nm_htab_upsert(r.socks, &k, NULL) = stalled;
	}
	struct ts_key kn = key(99);

	*(struct ts_sock *)nm_htab_upsert(r.socks, &kn, NULL) = never;
	ts_report_flows_start(&r, 10);
	quiet.segs_in = 1;
	assert_true(ts_report_flow(&r, &busy, &busy, 0, 0));
	assert_true(ts_report_flow(&r, &quiet, &quiet, 1, 0));
	assert_true(r.flows[0].place.busy);
	assert_false(r.flows[1].place.busy);
	ts_report_ended(&r, &kn, &stalled, 20, "sweep");
	r.tot.stalls[TS_RWND] = 1;
	r.tot.hist_us[TS_RWND][3] = 1;
	ts_report_emit(&r, &e, &ir);
	s = types_of(json_sink, &e);
	json_types(s, types, sizeof(types));
	assert_string_equal(types, "interval stall socket socket socket socket socket socket "
				   "socket socket socket socket socket socket acks placement acks");
	free(s);
	/* the table: ten sockets, both flows, no histogram without -H */
	s = types_of(nm_emit_table, &e);
	assert_non_null(strstr(s, "sockets stalled >= 10 ms: "));
	assert_non_null(strstr(s, "ACKs in the last interval (storm: >= 0.90 ACK/seg, and >= 0.90 while owned)\n"));
	assert_int_equal(e.nhists, 0);
	{
		int rows = 0;

		for (const char *p = s; (p = strstr(p, "rwnd_limited")); p++)
			rows++;
		assert_int_equal(rows, TS_REPORT_TOP);
	}
	free(s);
	/* -H: one histogram, for the one cause with stalls, after the parts */
	r.hist = true;
	memset(&e, 0, sizeof(e));
	ts_report_emit(&r, &e, &ir);
	assert_int_equal(e.nhists, 1);
	assert_string_equal(e.hists[0].heading, "stall durations, rwnd_limited:");
	s = types_of(nm_emit_table, &e);
	assert_true(strstr(s, "stall durations, rwnd_limited:\n") > strstr(s, "ACKs in the last"));
	free(s);
	/* the textfile: the netns's families (one row, one netns), then the interval's */
	assert_ptr_equal(e.prom[0].rec, &ts_netns_rec);
	assert_int_equal(e.prom[0].n, 1);
	assert_ptr_equal(e.prom[1].rec, &ts_interval_rec);
	report_done(&r);
}

/*
 * A socket row names its cgroup through the report's cgroups (a tree in
 * /tmp: a directory's inode number is its id); one without a path is "?";
 * the report frees them.
 */
static void test_emit_cgroup_paths(void **state)
{
	static struct ts_report r;
	static struct ts_interval_row ir;
	struct ts_sock in_pod = { .stall_start_ns = 1, .cause = TS_RWND }, lost = in_pod;
	char dir[] = "/tmp/nm-tsrep.XXXXXX", pod[64];
	struct ts_key k1 = key(1), k2 = key(2);
	struct nm_emit e = { 0 };
	struct stat st;
	char *s;

	(void)state;
	assert_non_null(mkdtemp(dir));
	snprintf(pod, sizeof(pod), "%s/pod1", dir);
	assert_int_equal(mkdir(pod, 0755), 0);
	assert_int_equal(stat(pod, &st), 0);
	report_init(&r);
	r.cgroups = nm_cgpaths_open_at(NULL, dir, "/", 1000000000);
	assert_non_null(r.cgroups);
	in_pod.last.cgroup_id = st.st_ino;
	lost.last.cgroup_id = 1;	/* no such directory in the tree */
	*(struct ts_sock *)nm_htab_upsert(r.socks, &k1, NULL) = in_pod;
	*(struct ts_sock *)nm_htab_upsert(r.socks, &k2, NULL) = lost;
	ts_report_flows_start(&r, 10);
	ts_report_emit(&r, &e, &ir);
	s = types_of(json_sink, &e);
	assert_non_null(strstr(s, "\"sport\":1,"));
	assert_non_null(strstr(s, "\"cgroup\":\"/pod1\",\"cgroup_id\":"));
	assert_non_null(strstr(s, "\"cgroup\":\"?\",\"cgroup_id\":1,"));
	free(s);
	report_done(&r);
	assert_null(r.cgroups);
	rmdir(pod);
	rmdir(dir);
}

static const char *test_ns_name(void *arg, unsigned long ino, char *buf, size_t len)
{
	(void)arg;
	snprintf(buf, len, ino == 7 ? "nm-ts-rcv" : "ns%lu", ino);
	return buf;
}

/* a stalled sample of netns ns, local port lport, at now (ms): rwnd-limited, sending age 0 */
static struct ts_sample stalled_at(uint32_t ns, uint16_t lport, uint64_t now_ms, bool stalled)
{
	struct ts_sample s = { .key = key(lport), .now_ns = now_ms * 1000000, .unsent = 1000,
			       .packets_out = 0, .snd_wnd = 0, .snd_cwnd = 10, .mss = 1000,
			       .send_age_ms = stalled ? 50 : 0, .wmem_alloc = 1, .truesize1 = 2 };

	s.key.netns = ns;
	return s;
}

/*
 * Host-wide: each netns's stalls, ACKs and storms are its own row, named,
 * in name order; the totals (the -H histograms) are all of them.
 */
static void test_per_netns_rows(void **state)
{
	static struct ts_report r;
	struct ts_acks slots[2] = { acks(1, 100, 1000, true), acks(2, 200, 50, false) };
	enum ts_state st;
	struct ts_sample s;

	(void)state;
	report_init(&r);
	assert_int_equal(ts_report_init(&r), 0);
	r.per_ns = true;
	r.ns_name = test_ns_name;
	slots[1].key.netns = 9;
	/* a stall in netns 9 that ends, one in netns 7 that goes on */
	s = stalled_at(9, 10, 1000, true);
	ts_report_sample(&r, &s, 1, &st);
	s = stalled_at(9, 10, 1100, false);
	ts_report_sample(&r, &s, 2, &st);
	s = stalled_at(7, 11, 1100, true);
	ts_report_sample(&r, &s, 2, &st);
	ts_report_flows_start(&r, 1200);
	assert_true(ts_report_acks(&r, slots, 2, 0));
	/* 9's flow on crossed CPUs (ts_judge_placement's verdict, tested on its own) */
	for (size_t i = 0; i < r.nflows; i++)
		r.flows[i].place.cross_cpu = r.flows[i].key.netns == 9;
	assert_int_equal(ts_report_ns_rows(&r), 2);
	assert_string_equal(r.ns_rows[0].netns, "nm-ts-rcv");
	assert_string_equal(r.ns_rows[1].netns, "ns9");
	assert_true(r.ns_rows[0].labelled && r.ns_rows[1].labelled);
	/* 7: the storm, its ACKs, a socket stalled now, no stall ended */
	assert_int_equal(r.ns_rows[0].ack_storm_flows, 1);
	assert_int_equal(r.ns_rows[0].cross_cpu_flows, 0);
	assert_int_equal(r.ns_rows[0].acks_sent, 1000);
	assert_int_equal(r.ns_rows[0].stalled_now[TS_RWND], 1);
	assert_int_equal(r.ns_rows[0].stalls[TS_RWND], 0);
	/* 9: the ended stall, its quiet flow's ACKs */
	assert_int_equal(r.ns_rows[1].stalls[TS_RWND], 1);
	assert_int_equal(r.ns_rows[1].stalled_now[TS_RWND], 0);
	assert_int_equal(r.ns_rows[1].acks_sent, 50);
	assert_int_equal(r.ns_rows[1].ack_storm_flows, 0);
	assert_int_equal(r.ns_rows[1].cross_cpu_flows, 1);
	/* the report's totals count both */
	assert_int_equal(r.tot.stalls[TS_RWND], 1);
	assert_int_equal(r.acks_sent, 1050);
	report_done(&r);
}

/* A netns that went: its sockets and its row are forgotten, no stall ended for them. */
static void test_drop_netns(void **state)
{
	static struct ts_report r;
	enum ts_state st;
	struct ts_sample s;

	(void)state;
	report_init(&r);
	assert_int_equal(ts_report_init(&r), 0);
	r.per_ns = true;
	for (uint16_t i = 0; i < 40; i++) {
		s = stalled_at(i % 2 ? 9 : 7, 100 + i, 1000, true);
		ts_report_sample(&r, &s, 1, &st);
	}
	assert_int_equal(ts_report_ns_rows(&r), 2);
	ts_report_drop_netns(&r, 9);
	assert_int_equal(nm_htab_count(r.socks), 20);
	assert_int_equal(ts_report_ns_rows(&r), 1);
	assert_int_equal(r.ns_rows[0].stalled_now[TS_RWND], 20);
	ts_report_gone(&r, 2, 3000000000ULL);
	/* only netns 7's stalls ended when the sweep missed them */
	assert_int_equal(r.nended, 20);
	for (size_t i = 0; i < r.nended; i++)
		assert_int_equal(r.ended[i].key.netns, 7);
	report_done(&r);
}

/*
 * Host-wide with no netns seen yet (a quiet, healthy host): one row of
 * zeros for tcpstall's own netns, so that each series it declares has a
 * sample (0, not Grafana's "No data"); the stall histogram has none until
 * a stall ends.
 */
static void test_ns_rows_none(void **state)
{
	static const char *const gauges[] = { "tcpstall_sockets_stalled", "tcpstall_ack_storm_flows",
					      "tcpstall_stalls_total", "tcpstall_cross_cpu_flows",
					      "tcpstall_acks_sent_total" };
	static struct ts_report r;
	struct nm_prom *p = nm_prom_new();
	char line[128];
	const char *got;
	size_t len;

	(void)state;
	report_init(&r);
	assert_int_equal(ts_report_init(&r), 0);
	r.per_ns = true;
	r.ns_name = test_ns_name;
	r.self_ino = 7;
	assert_int_equal(ts_report_ns_rows(&r), 1);
	assert_string_equal(r.ns_rows[0].netns, "nm-ts-rcv");
	assert_true(r.ns_rows[0].labelled);
	assert_int_equal(r.ns_rows[0].stalled_now[TS_RWND], 0);
	assert_non_null(p);
	nm_rec_prom(p, &ts_netns_rec, r.ns_rows, sizeof(r.ns_rows[0]), 1);
	got = nm_prom_text(p, &len);
	for (size_t i = 0; i < sizeof(gauges) / sizeof(gauges[0]); i++) {
		snprintf(line, sizeof(line), "\n%s{netns=\"nm-ts-rcv\"", gauges[i]);
		assert_non_null(strstr(got, line));
	}
	assert_non_null(strstr(got, "tcpstall_sockets_stalled{netns=\"nm-ts-rcv\",state=\"tsq_idle\"} 0\n"));
	/* no stall ended: the histogram is not declared, as it has no series */
	assert_null(strstr(got, "tcpstall_stall_seconds"));
	nm_prom_free(p);
	report_done(&r);
}

static bool odd_gone(unsigned long ino, void *arg)
{
	(*(int *)arg)++;
	return ino % 2;
}

/* The namespaces the predicate says went: each one's sockets dropped, the others kept. */
static void test_drop_gone(void **state)
{
	static struct ts_report r;
	enum ts_state st;
	struct ts_sample s;
	int asked = 0;

	(void)state;
	report_init(&r);
	nm_htab_free(r.socks);
	r.socks = nm_htab_new(sizeof(struct ts_key), sizeof(struct ts_sock), 512);
	assert_int_equal(ts_report_init(&r), 0);
	/* 200 namespaces, 2 sockets each: more gone (100) than one pass takes (64) */
	for (uint16_t i = 0; i < 400; i++) {
		s = stalled_at(1000 + i % 200, 100 + i, 1000, true);
		ts_report_sample(&r, &s, 1, &st);
	}
	assert_int_equal(nm_htab_count(r.socks), 400);
	assert_int_equal(ts_report_drop_gone(&r, odd_gone, &asked), 100);
	assert_true(asked > 0);
	assert_int_equal(nm_htab_count(r.socks), 200);
	{
		size_t pos = 0;
		void *k, *v;

		while (nm_htab_next(r.socks, &pos, &k, &v))
			assert_int_equal(((struct ts_key *)k)->netns % 2, 0);
	}
	assert_int_equal(ts_report_drop_gone(&r, odd_gone, &asked), 0);
	/* stalls that ended in a netns that then went are not reported either */
	ts_report_gone(&r, 2, 3000000000ULL);
	assert_int_equal(r.nended, 200);
	for (uint16_t i = 0; i < 200; i++) {
		s = stalled_at(3001, 1000 + i, 4000, true);
		ts_report_sample(&r, &s, 3, &st);
	}
	ts_report_gone(&r, 4, 5000000000ULL);
	{
		size_t n3001 = 0;

		for (size_t i = 0; i < r.nended; i++)
			n3001 += r.ended[i].key.netns == 3001;
		assert_true(n3001 > 0);
	}
	ts_report_drop_netns(&r, 3001);
	for (size_t i = 0; i < r.nended; i++)
		assert_int_not_equal(r.ended[i].key.netns, 3001);
	report_done(&r);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_ended),
		cmocka_unit_test(test_flows_rank),
		cmocka_unit_test(test_sort_keys),
		cmocka_unit_test(test_sort_ties),
		cmocka_unit_test(test_acks_read),
		cmocka_unit_test(test_fix_flows),
		cmocka_unit_test(test_interval),
		cmocka_unit_test(test_interval_row),
		cmocka_unit_test(test_acks_deltas),
		cmocka_unit_test(test_gone),
		cmocka_unit_test(test_first_what),
		cmocka_unit_test(test_emit),
		cmocka_unit_test(test_emit_cgroup_paths),
		cmocka_unit_test(test_emit_what_matters),
		cmocka_unit_test(test_sort_what_matters),
		cmocka_unit_test(test_per_netns_rows),
		cmocka_unit_test(test_drop_netns),
		cmocka_unit_test(test_drop_gone),
		cmocka_unit_test(test_ns_rows_none),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
