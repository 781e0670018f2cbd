// SPDX-License-Identifier: GPL-2.0
/*
 * tcpstall decisions on synthetic socket states and event orders,
 * including the interleaving of the netdev report "tcp: Add memory
 * barrier to tcp_push()": tcp_wfree() drops sk_wmem_alloc to 1 before
 * tcp_push() sets TSQ_THROTTLED and re-reads it, so nobody ever clears the
 * throttle and the unsent tail waits for the next ACK (a delayed-ACK
 * timeout, ~40 ms).
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <errno.h>
#include <string.h>
#include <cmocka.h>
#include "tcpstall/judge.h"

#define MS 1000000ULL
#define TRUESIZE1 769

/* A healthy bulk sender: cwnd room, window room, data moving. */
static struct ts_sample sending(void)
{
	struct ts_sample s = {
		.now_ns = 1000 * MS, .send_age_ms = 0, .unsent = 200000, .packets_out = 10,
		.snd_cwnd = 100, .snd_wnd = 3000000, .in_flight = 14480, .mss = 1448,
		.wmem_alloc = 1, .wmem_queued = 300000, .sndbuf = 4000000, .truesize1 = TRUESIZE1,
		.nonagle = 0,
	};
	return s;
}

/* The bug's state: THROTTLED, not QUEUED, nothing below TCP, unsent, 40 ms silent. */
static struct ts_sample tsq_idle(void)
{
	struct ts_sample s = sending();

	s.tsq_flags = TS_TSQ_THROTTLED;
	s.wmem_alloc = 1;
	s.send_age_ms = 40;
	return s;
}

static void test_tsq_idle_signature(void **state)
{
	(void)state;
	struct ts_sample s = tsq_idle();

	assert_int_equal(ts_classify(&s, 10), TS_TSQ_IDLE);
	assert_true(ts_stalled(&s, 10));
	/* younger than the threshold: not yet */
	s.send_age_ms = 5;
	assert_int_equal(ts_classify(&s, 10), TS_SENDING);
	/* the handler is queued: tcp_wfree did its job, it will send */
	s = tsq_idle();
	s.tsq_flags |= TS_TSQ_QUEUED;
	assert_int_not_equal(ts_classify(&s, 10), TS_TSQ_IDLE);
	/* nothing out: no ACK will come to release it, but also no packets out */
	s = tsq_idle();
	s.packets_out = 0;
	assert_int_not_equal(ts_classify(&s, 10), TS_TSQ_IDLE);
}

/* Healthy reasons are never called tsq_idle, however long the socket waits. */
static void test_legitimate_holds(void **state)
{
	(void)state;
	struct ts_sample s;

	s = tsq_idle();
	s.wmem_alloc = 131985;	/* two GSO skbs below TCP (LAB.md, tbf) */
	assert_int_equal(ts_classify(&s, 10), TS_HOST_QUEUE);
	s = tsq_idle();
	s.packets_out = s.snd_cwnd;
	assert_int_equal(ts_classify(&s, 10), TS_CWND);
	s = tsq_idle();
	s.snd_wnd = 0;
	assert_int_equal(ts_classify(&s, 10), TS_RWND);
	s = tsq_idle();
	s.snd_wnd = s.in_flight + 100;	/* less than one segment of room */
	assert_int_equal(ts_classify(&s, 10), TS_RWND);
	s = tsq_idle();
	s.pacing_status = 1;
	s.wstamp_ns = s.now_ns + 5 * MS;
	assert_int_equal(ts_classify(&s, 10), TS_PACING);
	s = tsq_idle();
	s.unsent = 100;		/* short tail, Nagle on, packets out */
	assert_int_equal(ts_classify(&s, 10), TS_NAGLE);
	s.nonagle = 1;		/* TCP_NODELAY: Nagle holds nothing */
	assert_int_equal(ts_classify(&s, 10), TS_TSQ_IDLE);
	s.nonagle = 2;		/* TCP_CORK holds it */
	assert_int_equal(ts_classify(&s, 10), TS_NAGLE);
	s = sending();
	s.unsent = 0;
	s.send_age_ms = 5000;
	assert_int_equal(ts_classify(&s, 10), TS_APP_LIMITED);
	assert_false(ts_stalled(&s, 10));
	s = sending();
	s.send_age_ms = 50;
	assert_int_equal(ts_classify(&s, 10), TS_UNKNOWN);
}

/*
 * The report's interleaving, as the sweep sees it: bulk sending with data
 * below TCP; tcp_wfree runs (wmem 1) before tcp_push sets THROTTLED; the
 * socket goes silent; the delayed ACK from the peer ~40 ms later lets it
 * send again. One tsq_idle stall of about 40 ms, ended by a transmit.
 */
static void test_report_interleaving(void **state)
{
	(void)state;
	struct ts_totals tot = {};
	struct ts_sock st = {};
	struct ts_sample s = sending();
	uint64_t ended = 0;

	s.tsq_flags = TS_TSQ_THROTTLED;
	s.wmem_alloc = 131985;
	assert_false(ts_track(&st, &s, 10, 1, &tot, &ended));
	assert_int_equal(ts_classify(&s, 10), TS_HOST_QUEUE);
	/* tcp_wfree() ran: wmem 1; tcp_push() set THROTTLED afterwards: stuck */
	s = tsq_idle();
	s.now_ns = 1010 * MS;
	s.send_age_ms = 8;
	assert_false(ts_track(&st, &s, 10, 2, &tot, &ended));
	assert_int_equal(st.stall_start_ns, 0);
	s.now_ns = 1030 * MS;
	s.send_age_ms = 28;
	assert_false(ts_track(&st, &s, 10, 3, &tot, &ended));
	assert_int_equal(st.stall_start_ns, 1002 * MS);
	assert_int_equal(st.cause, TS_TSQ_IDLE);
	/* the peer's delayed ACK at 1042 ms: tcp_ack -> tcp_tsq... it sends again */
	s = sending();
	s.now_ns = 1045 * MS;
	s.send_age_ms = 3;
	assert_true(ts_track(&st, &s, 10, 4, &tot, &ended));
	assert_int_equal(ended, 40 * MS);
	assert_int_equal(st.stalls, 1);
	assert_int_equal(st.end, TS_END_SENT);
	assert_int_equal(tot.stalls[TS_TSQ_IDLE], 1);
	assert_int_equal(tot.hist_us[TS_TSQ_IDLE][nm_hist_slot(40000)], 1);
}

/* On the fexit rung, tcp_push's mark dates the stall, not lsndtime's jiffies. */
static void test_tsq_mark_dates_the_stall(void **state)
{
	(void)state;
	struct ts_totals tot = {};
	struct ts_sock st = {};
	struct ts_sample s = tsq_idle();
	uint64_t ended = 0;

	s.send_age_ms = 40;		/* lsndtime: 960 ms, jiffy-coarse */
	s.tsq_mark_ns = 961300000;	/* tcp_push returned at 961.3 ms */
	ts_track(&st, &s, 10, 1, &tot, &ended);
	assert_int_equal(st.stall_start_ns, 961300000);
	/* a mark on a socket that is not tsq_idle (window closed) is not used */
	st = (struct ts_sock){};
	s.snd_wnd = 0;
	ts_track(&st, &s, 10, 1, &tot, &ended);
	assert_int_equal(st.stall_start_ns, 960 * MS);
}

/*
 * Episodes that the tcp_push/tcp_wfree hooks measured: one the sweeps
 * missed counts on its own, one they saw going on ends there exactly, one
 * they ended first is not counted twice.
 */
static void test_episodes(void **state)
{
	(void)state;
	struct ts_totals tot = {};
	struct ts_sock st = {};
	struct ts_sample s = tsq_idle();
	uint64_t ended = 0;

	/* between two sweeps: never sampled stalled */
	assert_true(ts_track_episode(&st, 100 * MS, 142 * MS, &tot, &ended));
	assert_int_equal(ended, 42 * MS);
	assert_int_equal(st.stalls, 1);
	assert_int_equal(st.cause, TS_TSQ_IDLE);
	assert_int_equal(st.stall_start_ns, 0);
	assert_int_equal(tot.stalls[TS_TSQ_IDLE], 1);
	/* the same episode again (it must not be): not counted */
	assert_false(ts_track_episode(&st, 100 * MS, 142 * MS, &tot, &ended));
	assert_int_equal(st.stalls, 1);

	/* a sweep saw it going on, dated by its mark; the episode ends it */
	st = (struct ts_sock){};
	s.tsq_mark_ns = 961300000;
	ts_track(&st, &s, 10, 1, &tot, &ended);
	assert_int_equal(st.stall_start_ns, 961300000);
	assert_true(ts_track_episode(&st, 961300000, 1003300000, &tot, &ended));
	assert_int_equal(ended, 42 * MS);
	assert_int_equal(st.stall_start_ns, 0);
	assert_int_equal(st.stalls, 1);

	/* the sweep saw it end first: the overlapping episode is the same stall */
	st = (struct ts_sock){};
	ts_track(&st, &s, 10, 1, &tot, &ended);
	s = sending();
	s.now_ns = 1010 * MS;
	assert_true(ts_track(&st, &s, 10, 2, &tot, &ended));
	assert_false(ts_track_episode(&st, 961300000, 1003300000, &tot, &ended));
	assert_int_equal(st.stalls, 1);

	/* a later stall is open: an earlier episode counts beside it, the open one stays */
	st = (struct ts_sock){};
	s = tsq_idle();
	s.now_ns = 2000 * MS;
	s.snd_wnd = 0;			/* rwnd_limited since 1960 ms */
	ts_track(&st, &s, 10, 1, &tot, &ended);
	assert_int_equal(st.cause, TS_RWND);
	assert_true(ts_track_episode(&st, 1800 * MS, 1850 * MS, &tot, &ended));
	assert_int_equal(st.stalls, 1);
	assert_int_equal(st.stall_start_ns, 1960 * MS);
	assert_int_equal(st.cause, TS_RWND);

	/* an empty or inverted episode is nothing */
	assert_false(ts_track_episode(&st, 5 * MS, 5 * MS, &tot, &ended));
}

/* The same order with the barrier: tcp_wfree sees THROTTLED and queues the handler. */
static void test_fixed_order_is_not_a_stall(void **state)
{
	(void)state;
	struct ts_totals tot = {};
	struct ts_sock st = {};
	struct ts_sample s = tsq_idle();
	uint64_t ended = 0;

	s.tsq_flags = TS_TSQ_QUEUED;	/* THROTTLED swapped for QUEUED */
	s.send_age_ms = 1;
	assert_false(ts_track(&st, &s, 10, 1, &tot, &ended));
	assert_int_equal(st.stall_start_ns, 0);
	assert_int_equal(ts_classify(&s, 10), TS_SENDING);
}

static void test_stall_between_sweeps_and_gone(void **state)
{
	(void)state;
	struct ts_totals tot = {};
	struct ts_sock st = {};
	struct ts_sample s = sending();
	uint64_t ended = 0;

	s.snd_wnd = 0;
	s.send_age_ms = 20;
	ts_track(&st, &s, 10, 1, &tot, &ended);
	assert_int_equal(st.stall_start_ns, 980 * MS);
	/* it sent at 1090 ms, unseen, and is stalled again at 1200 ms */
	s.now_ns = 1200 * MS;
	s.send_age_ms = 110;
	assert_true(ts_track(&st, &s, 10, 2, &tot, &ended));
	assert_int_equal(ended, 110 * MS);
	assert_int_equal(st.stall_start_ns, 1090 * MS);
	/* then the socket vanishes from the sweep: its data drained or it closed */
	assert_true(ts_track_gone(&st, 1300 * MS, TS_END_DRAINED, &tot, &ended));
	assert_int_equal(ended, 210 * MS);
	assert_int_equal(st.stalls, 2);
	assert_int_equal(st.stall_ns_max, 210 * MS);
	assert_int_equal(tot.stalls[TS_RWND], 2);
	assert_false(ts_track_gone(&st, 1400 * MS, TS_END_DRAINED, &tot, &ended));
}

static struct ts_acks acks(uint64_t out, uint64_t owned, uint64_t segs, uint64_t segs_owned)
{
	struct ts_acks a = { .acks_out = out, .acks_owned = owned, .segs_in = segs,
			     .segs_owned = segs_owned };
	return a;
}

/* LAB.md's figures: quickack + defer=0 storms; defer=1 and no quickack do not. */
static void test_ack_storm_judgement(void **state)
{
	(void)state;
	struct ts_storm_cfg cfg = TS_STORM_CFG_DEFAULT;
	struct ts_storm j;
	struct ts_acks a;

	a = acks(56031, 41353, 55265, 40587);
	a.acks_quickack_route = 56031;
	ts_judge_acks(&a, 0, &cfg, &j);
	assert_true(j.storm);
	assert_int_equal(j.ncauses, 2);
	assert_string_equal(j.causes[0], "quickack_route");
	assert_string_equal(j.causes[1], "backlog_ack_defer_off");
	/* defer=1: 0.62 ACK/seg, owned ratio 0.23 */
	a = acks(38333, 7031, 62198, 30896);
	a.acks_quickack_route = 38333;
	ts_judge_acks(&a, 1, &cfg, &j);
	assert_false(j.storm);
	assert_int_equal(j.ncauses, 1);
	/* no quickack: 0.52 ACK/seg */
	a = acks(29346, 27676, 55963, 31716);
	ts_judge_acks(&a, 0, &cfg, &j);
	assert_false(j.storm);
	/* too few segments to judge */
	a = acks(100, 100, 100, 100);
	ts_judge_acks(&a, 0, &cfg, &j);
	assert_false(j.storm);
	/* a kernel without the sysctl says so */
	ts_judge_acks(&a, TS_DEFER_ABSENT, &cfg, &j);
	assert_string_equal(j.causes[0], "no_backlog_ack_defer");
}

static void test_acks_delta(void **state)
{
	(void)state;
	struct ts_acks a = acks(10, 5, 20, 8), b = acks(30, 6, 50, 9), d;

	b.app_cpus = 2;
	ts_acks_delta(&a, &b, &d);
	assert_int_equal(d.acks_out, 20);
	assert_int_equal(d.segs_in, 30);
	assert_int_equal(d.app_cpus, 2);
	/* the slot was claimed again: counters restarted */
	b = acks(3, 0, 4, 0);
	ts_acks_delta(&a, &b, &d);
	assert_int_equal(d.acks_out, 3);
	/*
	 * A new socket at a freed socket's address, claimed within the
	 * interval, already past the old counts: all its counts are new.
	 */
	a.gen = 7;
	b = acks(40, 6, 90, 9);
	b.gen = 8;
	ts_acks_delta(&a, &b, &d);
	assert_int_equal(d.acks_out, 40);
	assert_int_equal(d.segs_in, 90);
	assert_int_equal(d.acks_owned, 6);
}

static void test_placement(void **state)
{
	(void)state;
	struct ts_acks d = acks(1000, 0, 1000, 100);
	struct ts_placement p;

	d.epoch = 3;
	d.softirq_cpus = 1;	/* CPU 0 */
	d.app_cpus = 2;		/* CPU 1 */
	ts_judge_placement(&d, 3, 200, &p);
	assert_true(p.busy);
	assert_true(p.cross_cpu);
	assert_false(p.split_softirq);
	assert_true(p.backlog_share > 0.09 && p.backlog_share < 0.11);
	/* RFS moved the softirq work to the reader's CPU */
	d.softirq_cpus = 2;
	ts_judge_placement(&d, 3, 200, &p);
	assert_false(p.cross_cpu);
	d.softirq_cpus = 3;
	ts_judge_placement(&d, 3, 200, &p);
	assert_true(p.split_softirq);
	assert_false(p.cross_cpu);
	/* masks from an older interval say nothing about this one */
	d.softirq_cpus = 1;
	ts_judge_placement(&d, 4, 200, &p);
	assert_false(p.cross_cpu);
	/* not busy: not judged */
	d = acks(10, 0, 10, 0);
	d.epoch = 3;
	d.softirq_cpus = 1;
	d.app_cpus = 2;
	ts_judge_placement(&d, 3, 200, &p);
	assert_false(p.cross_cpu);
}

/* The sweeps' CPU budget: a cheap sweep keeps the period, a dear one waits 19 times its cost. */
static void test_sweep_wait(void **state)
{
	const uint64_t ms = 1000000;

	(void)state;
	assert_int_equal(ts_sweep_wait_ns(10 * ms, ms / 10, false), 10 * ms);
	/* 0.5 ms at 5 %: 9.5 ms < 10 ms, the period stands */
	assert_int_equal(ts_sweep_wait_ns(10 * ms, ms / 2, false), 10 * ms);
	/* a 12 ms walk of 20000 sockets: 228 ms, not 10 */
	assert_int_equal(ts_sweep_wait_ns(10 * ms, 12 * ms, false), 228 * ms);
	/* the scheduled full sweep is not stretched */
	assert_int_equal(ts_sweep_wait_ns(10 * ms, 60 * ms, true), 10 * ms);
	/* a long period asked for stays long */
	assert_int_equal(ts_sweep_wait_ns(1000 * ms, 12 * ms, false), 1000 * ms);
}

static void test_kick_wanted(void **state)
{
	const struct ts_kick_cfg cfg = TS_KICK_CFG_DEFAULT;
	struct ts_kick_cfg any = cfg;
	const uint64_t ms = 1000000, t = 5000 * ms;
	struct ts_sample s = tsq_idle();

	(void)state;
	/* the report's state, never kicked: kicked */
	assert_true(ts_kick_wanted(ts_classify(&s, 10), 0, 0, 0, t, 0, &cfg));
	/* every other state, stalled or not, is left alone */
	for (int st = 0; st < TS_NSTATES; st++)
		if (st != TS_TSQ_IDLE)
			assert_false(ts_kick_wanted(st, 0, 0, 0, t, 0, &cfg));
	/* not again within the gap, again after it */
	assert_false(ts_kick_wanted(TS_TSQ_IDLE, 0, 0, t - 10 * ms, t, 0, &cfg));
	assert_false(ts_kick_wanted(TS_TSQ_IDLE, 0, 0, t - (TS_KICK_GAP_MS - 1) * ms, t, 0, &cfg));
	assert_true(ts_kick_wanted(TS_TSQ_IDLE, 0, 0, t - TS_KICK_GAP_MS * ms, t, 0, &cfg));
	/* a new stall of the socket within the gap: kicked at once; the same one is not */
	assert_true(ts_kick_wanted(TS_TSQ_IDLE, t - 20 * ms, t - 300 * ms, t - 100 * ms, t, 0, &cfg));
	assert_false(ts_kick_wanted(TS_TSQ_IDLE, t - 20 * ms, t - 20 * ms, t - 10 * ms, t, 0, &cfg));
	/* a clock behind the last kick (a bad input) does not block it forever */
	assert_true(ts_kick_wanted(TS_TSQ_IDLE, 0, 0, t + ms, t, 0, &cfg));
	/* at most a batch per sweep */
	assert_true(ts_kick_wanted(TS_TSQ_IDLE, 0, 0, 0, t, TS_KICK_BATCH - 1, &cfg));
	assert_false(ts_kick_wanted(TS_TSQ_IDLE, 0, 0, 0, t, TS_KICK_BATCH, &cfg));
	/* the test aid: any socket with something unsent, under the same bounds */
	any.any_state = true;
	assert_true(ts_kick_wanted(TS_RWND, 0, 0, 0, t, 0, &any));
	assert_false(ts_kick_wanted(TS_APP_LIMITED, 0, 0, 0, t, 0, &any));
	assert_false(ts_kick_wanted(TS_RWND, 0, 0, t - ms, t, 0, &any));
	assert_false(ts_kick_wanted(TS_RWND, 0, 0, 0, t, TS_KICK_BATCH, &any));
}

static void test_kick_result(void **state)
{
	struct ts_kick k = { .mode = TS_KICK_PUSH };

	(void)state;
	k.step = TS_KICK_STEP_DONE;
	assert_int_equal(ts_kick_result(&k), TS_KICK_DONE);
	k.step = TS_KICK_STEP_NONE;	/* closed before the pass */
	assert_int_equal(ts_kick_result(&k), TS_KICK_SKIPPED);
	k.step = TS_KICK_STEP_CHANGED;	/* the application changed TCP_NODELAY */
	assert_int_equal(ts_kick_result(&k), TS_KICK_SKIPPED);
	/* from the socket not lent by its process (pidfd_getfd rung) on */
	for (k.step = TS_KICK_STEP_TAKE; k.step <= TS_KICK_STEP_HALTED; k.step++)
		if (k.step != TS_KICK_STEP_CHANGED)
			assert_int_equal(ts_kick_result(&k), TS_KICK_FAILED);
	assert_string_equal(ts_kick_result_name(TS_KICK_DONE), "done");
	assert_string_equal(ts_kick_result_name(TS_KICK_FAILED), "failed");
	assert_string_equal(ts_kick_result_name(TS_KICK_SKIPPED), "skipped");
	assert_string_equal(ts_kick_result_name(TS_KICK_NRESULTS), "?");
}

static void test_kick_record_roundtrip(void **state)
{
	struct ts_key k = { .netns = 4026532180, .family = NM_AF_INET, .lport = 40000, .rport = 5301 };
	struct ts_key k6 = { .netns = 7, .family = NM_AF_INET6, .lport = 1, .rport = 65535 };
	char bufs[TS_KICK_FIELDS][64];
	const char *f[TS_KICK_FIELDS + 1];
	struct ts_key back;
	int nd = -1;

	(void)state;
	memcpy(k.laddr, (unsigned char[]){ 198, 18, 1, 1 }, 4);
	memcpy(k.raddr, (unsigned char[]){ 198, 18, 1, 2 }, 4);
	ts_kick_record(&k, 0, bufs, f);
	assert_null(f[TS_KICK_FIELDS]);
	assert_string_equal(f[0], "tcp");
	assert_string_equal(f[1], "4026532180");
	assert_string_equal(f[3], "198.18.1.1");
	assert_string_equal(f[6], "5301");
	assert_string_equal(f[8], "0");
	assert_int_equal(ts_kick_parse(f, TS_KICK_FIELDS, &back, &nd), 0);
	/* the whole key, padding included: it is a map key again */
	assert_memory_equal(&back, &k, sizeof(k));
	assert_int_equal(nd, 0);
	k6.laddr[0] = 0x20, k6.laddr[1] = 0x01, k6.laddr[15] = 1;
	k6.raddr[15] = 2;
	ts_kick_record(&k6, 1, bufs, f);
	assert_string_equal(f[2], "6");
	assert_string_equal(f[3], "2001::1");
	assert_int_equal(ts_kick_parse(f, TS_KICK_FIELDS, &back, &nd), 0);
	assert_memory_equal(&back, &k6, sizeof(k6));
	assert_int_equal(nd, 1);
}

static void test_kick_parse_rejects(void **state)
{
	const char *ok[] = { "tcp", "5", "4", "198.18.1.1", "1", "198.18.1.2", "2", "TCP_NODELAY", "0", NULL };
	const char *f[TS_KICK_FIELDS + 1];
	/* field, bad value */
	const struct { int i; const char *v; } bad[] = {
		{ 0, "udp" }, { 1, "-1" }, { 1, "x" }, { 2, "5" }, { 3, "198.18.1" }, { 3, "::1" },
		{ 4, "65536" }, { 6, "" }, { 7, "TCP_CORK" }, { 8, "2" }, { 8, "-0" },
	};
	struct ts_key k;
	int nd;

	(void)state;
	assert_int_equal(ts_kick_parse(ok, TS_KICK_FIELDS, &k, &nd), 0);
	assert_int_equal(ts_kick_parse(ok, TS_KICK_FIELDS - 1, &k, &nd), -EBADMSG);
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		memcpy(f, ok, sizeof(f));
		f[bad[i].i] = bad[i].v;
		assert_int_equal(ts_kick_parse(f, TS_KICK_FIELDS, &k, &nd), -EBADMSG);
	}
}

/* --fix=routes: a route line back as ip route replace's argv. */
/*
 * An open episode is forgotten once older than TS_EPISODE_FORGET_NS with
 * its socket gone from the sweeps; a socket still swept keeps it, however old.
 */
static void test_mark_stale(void **state)
{
	const uint64_t start = 5000000000ULL, old = start + TS_EPISODE_FORGET_NS + 1;
	struct ts_sock seen = { .seen_sweep = 42 }, unseen = { .seen_sweep = 41 };

	(void)state;
	/* stale: old, and its socket untracked or not in the last sweep */
	assert_true(ts_mark_stale(start, NULL, 42, old));
	assert_true(ts_mark_stale(start, &unseen, 42, old));
	/* not stale: its socket was in the last sweep */
	assert_false(ts_mark_stale(start, &seen, 42, old));
	/* not stale: young, even with its socket gone; at the limit itself too */
	assert_false(ts_mark_stale(start, NULL, 42, start + 1));
	assert_false(ts_mark_stale(start, &unseen, 42, start + TS_EPISODE_FORGET_NS));
	/* a clock before the start (another CPU's stamp): not stale */
	assert_false(ts_mark_stale(start, NULL, 42, start - 1));
}

static void test_route_argv(void **state)
{
	char a[] = "198.18.0.0/24 dev veth0 proto kernel scope link linkdown quickack 1";
	char b[sizeof(a)];
	const char *argv[TS_ROUTE_WORDS];

	(void)state;
	memcpy(b, a, sizeof(a));
	assert_int_equal(ts_route_argv(a, argv, false), 10);
	assert_string_equal(argv[2], "replace");
	assert_string_equal(argv[3], "198.18.0.0/24");
	assert_string_equal(argv[9], "link");
	assert_null(argv[10]);
	assert_int_equal(ts_route_argv(b, argv, true), 12);
	assert_string_equal(argv[10], "quickack");
	assert_string_equal(argv[11], "1");
	/* more words than fit: cut, with room left for "-6" and the NULL */
	char many[400];
	for (int i = 0; i < 100; i++)
		memcpy(many + 4 * i, "xyz ", 4);
	many[399] = '\0';
	assert_int_equal(ts_route_argv(many, argv, false), TS_ROUTE_WORDS - 2);
	assert_null(argv[TS_ROUTE_WORDS - 2]);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_sweep_wait),
		cmocka_unit_test(test_tsq_idle_signature),
		cmocka_unit_test(test_legitimate_holds),
		cmocka_unit_test(test_report_interleaving),
		cmocka_unit_test(test_fixed_order_is_not_a_stall),
		cmocka_unit_test(test_tsq_mark_dates_the_stall),
		cmocka_unit_test(test_episodes),
		cmocka_unit_test(test_stall_between_sweeps_and_gone),
		cmocka_unit_test(test_ack_storm_judgement),
		cmocka_unit_test(test_acks_delta),
		cmocka_unit_test(test_placement),
		cmocka_unit_test(test_kick_wanted),
		cmocka_unit_test(test_kick_result),
		cmocka_unit_test(test_kick_record_roundtrip),
		cmocka_unit_test(test_kick_parse_rejects),
		cmocka_unit_test(test_route_argv),
		cmocka_unit_test(test_mark_stale),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
