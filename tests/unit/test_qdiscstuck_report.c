// SPDX-License-Identifier: GPL-2.0
/*
 * Unit tests for src/qdiscstuck/report.c: a sweep's rows added, their
 * parents found, judged against their histories (kept across sweeps,
 * forgotten when the qdisc goes), the queues' sums, the rank, the rows the
 * sinks read and the remedies' view; host-wide, the same ifindex in two
 * namespaces kept apart.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <cmocka.h>

#include "qdiscstuck/report.h"

#define NS_SELF	4026531840UL
#define NS_POD	4026532500UL

static const char *name(unsigned long netns, unsigned int ifindex, char *buf, size_t len)
{
	snprintf(buf, len, "%s%u", netns == NS_SELF ? "eth" : "pod", ifindex);
	return buf;
}

static const char *ns_name(unsigned long netns, char *buf, size_t len)
{
	snprintf(buf, len, "%s", netns == NS_SELF ? "host" : "nm-pod");
	return buf;
}

static struct nm_qdisc_stats q(unsigned int ifindex, uint32_t handle, uint32_t parent,
			       const char *kind, uint32_t qlen)
{
	struct nm_qdisc_stats s = { .ifindex = ifindex, .handle = handle, .parent = parent,
				    .qlen = qlen, .backlog = qlen * 100, .packets = 10 };

	snprintf(s.kind, sizeof(s.kind), "%s", kind);
	return s;
}

/* eth2: mq 1: with two pfifo_fast children (queues 0 and 1); eth3: a root tbf holding 5 */
static void dump(struct qs_sweep *s, uint64_t now, bool with_child1)
{
	struct nm_qdisc_stats mq = q(2, 0x10000, QS_TC_H_ROOT, "mq", 3);
	struct nm_qdisc_stats c0 = q(2, 0, 0x10001, "pfifo_fast", 3);
	struct nm_qdisc_stats c1 = q(2, 0, 0x10002, "pfifo_fast", 0);
	struct nm_qdisc_stats tbf = q(3, 0x80000000, QS_TC_H_ROOT, "tbf", 5);
	struct qs_row *r;

	s->n = 0;
	s->now_ns = now;
	s->self_ino = NS_SELF;
	assert_non_null(qs_sweep_add(s, NS_SELF, &mq));
	r = qs_sweep_add(s, NS_SELF, &c0);
	assert_int_equal(r->txq, -1);		/* the join's to say */
	r->txq = 0;
	r->lockless = true;
	if (with_child1) {
		r = qs_sweep_add(s, NS_SELF, &c1);
		r->txq = 1;
	}
	r = qs_sweep_add(s, NS_SELF, &tbf);
	r->txq = 0;
	r->shaper = true;
}

static void test_add_and_parent(void **state)
{
	struct qs_sweep *s = qs_sweep_new();

	(void)state;
	assert_non_null(s);
	dump(s, 1000000000ULL, true);
	assert_int_equal(s->n, 4);
	/* a root has none; a child of mq has the mq of its device */
	assert_null(qs_sweep_parent(s, &s->rows[0]));
	assert_ptr_equal(qs_sweep_parent(s, &s->rows[1]), &s->rows[0]);
	assert_ptr_equal(qs_sweep_parent(s, &s->rows[2]), &s->rows[0]);
	assert_null(qs_sweep_parent(s, &s->rows[3]));
	/* full: the next one is not added */
	s->n = QS_SWEEP_MAX;
	assert_int_equal(s->over, 0);
	assert_null(qs_sweep_add(s, NS_SELF, &s->rows[0].nl));
	assert_int_equal(s->n, QS_SWEEP_MAX);
	assert_int_equal(s->over, 1);	/* counted for the interval record */
	qs_sweep_free(s);
}

/* What qs_update sees: the events only with a BPF record, a leaf's times only its own. */
static void test_observe(void **state)
{
	struct qs_row r = { .nl = q(2, 0, 0x10001, "pfifo_fast", 4), .shaper = true };
	struct qs_obs o;

	(void)state;
	r.bpf.last_deq_ns = 7;
	r.bpf.sample_ns = 9;
	qs_row_observe(&r, 100, &o);
	assert_int_equal(o.now_ns, 100);
	assert_int_equal(o.qlen, 4);
	assert_true(o.shaper);
	assert_false(o.have_events);
	assert_int_equal(o.last_deq_ns, 0);
	r.have_bpf = true;
	qs_row_observe(&r, 100, &o);
	assert_true(o.have_events && o.sampled);
	assert_int_equal(o.last_deq_ns, 0);	/* the runner's record, not its own */
	assert_true(o.deq_seen);		/* but the runner ran: it is no first sight */
	r.own_bpf = true;
	qs_row_observe(&r, 100, &o);
	assert_int_equal(o.last_deq_ns, 7);
	/* an entry the seed made: no dequeue of it yet */
	r.bpf.last_deq_ns = 0;
	qs_row_observe(&r, 100, &o);
	assert_false(o.deq_seen);
	r.bpf.last_was_null = 1;
	qs_row_observe(&r, 100, &o);
	assert_true(o.deq_seen);
}

/*
 * The mq root is not judged; its children and the tbf are, each with a
 * history that outlives the sweep and goes with its qdisc; one queue
 * entry per device and queue.
 */
static void test_judge_tracks(void **state)
{
	struct qs_sweep *s = qs_sweep_new();
	struct qs_track *t0;
	size_t judged = 0;

	(void)state;
	assert_non_null(s);
	dump(s, 1000000000ULL, true);
	qs_sweep_judge(s, 10000000ULL);
	assert_null(s->rows[0].t);
	assert_non_null(s->rows[1].t);
	assert_non_null(s->rows[2].t);
	assert_non_null(s->rows[3].t);
	assert_int_equal(s->ntracks, 3);
	for (int st = 0; st < QS_NSTATES; st++)
		judged += s->per_state[st];
	assert_int_equal(judged, 3);
	assert_int_equal(s->ndq, 3);		/* eth2:0, eth2:1, eth3:0 */
	assert_int_equal(s->dq[0].ifindex, 2);
	assert_int_equal(s->dq[0].txq, 0);
	assert_true(s->dq[0].present);
	assert_int_equal(s->dq[0].qlen, 3);
	assert_int_equal(s->dq[2].backlog, 500);
	t0 = s->rows[1].t;

	/* the next sweep: the same histories; child 1 gone, its history forgotten */
	dump(s, 2000000000ULL, false);
	qs_sweep_judge(s, 10000000ULL);
	assert_ptr_equal(s->rows[1].t, t0);
	assert_int_equal(s->ntracks, 2);
	/* its queue stays for the metrics, not present */
	assert_int_equal(s->ndq, 3);
	assert_false(s->dq[1].present);
	qs_sweep_free(s);
}

/* Worst first, then by backlog; the rows shown: not idle, or holding packets, or all. */
static void test_rank_and_rows(void **state)
{
	struct qs_sweep *s = qs_sweep_new();
	struct nm_emit e;

	(void)state;
	assert_non_null(s);
	dump(s, 1000000000ULL, true);
	qs_sweep_judge(s, 10000000ULL);
	s->rows[1].t->state = QS_OK;
	s->rows[2].t->state = QS_IDLE;
	s->rows[3].t->state = QS_STUCK;
	qs_sweep_rank(s);
	assert_string_equal(s->rows[0].nl.kind, "tbf");
	assert_string_equal(s->rows[1].nl.kind, "pfifo_fast");
	assert_int_equal(s->rows[1].nl.qlen, 3);
	assert_string_equal(s->rows[2].nl.kind, "pfifo_fast");	/* idle */
	assert_string_equal(s->rows[3].nl.kind, "mq");		/* not judged: last */

	qs_sweep_rows(s, name, ns_name);
	assert_int_equal(s->ival.qdiscs, 4);
	assert_int_equal(s->nout, 2);		/* the idle child and the mq root are not shown */
	s->all = true;
	qs_sweep_rows(s, name, ns_name);
	assert_int_equal(s->nout, 3);		/* all: the idle one too, never an untracked one */
	assert_string_equal(s->qrows[0].device, "eth2");
	assert_string_equal(s->qrows[0].queue, "0");
	assert_string_equal(s->qrows[2].device, "eth3");

	memset(&e, 0, sizeof(e));
	/* the heading counts the states the judge found */
	memset(s->per_state, 0, sizeof(s->per_state));
	s->per_state[QS_STUCK] = 1;
	s->per_state[QS_OK] = 1;
	s->per_state[QS_IDLE] = 1;
	s->all = false;
	qs_sweep_rows(s, name, ns_name);
	qs_sweep_emit(s, &e);
	assert_string_equal(e.table[0].heading, "qdiscs: 1 stuck, 0 driver_stopped, 0 unknown, 0 shaped, 1 ok, 1 idle");
	assert_int_equal(e.map.max, QS_MAX_QDISCS);
	qs_sweep_free(s);
}

/* The remedies' view: every tracked row with its device and history; an untracked one left alone. */
static void test_fix_rows(void **state)
{
	struct qs_sweep *s = qs_sweep_new();

	(void)state;
	assert_non_null(s);
	dump(s, 1000000000ULL, true);
	qs_sweep_judge(s, 10000000ULL);
	qs_sweep_fix_rows(s, name, ns_name);
	assert_null(s->fix[0].t);		/* mq */
	assert_null(s->fix[0].dev);
	assert_ptr_equal(s->fix[1].t, s->rows[1].t);
	assert_non_null(s->fix[1].done);
	assert_string_equal(s->fix[1].dev, "eth2");
	assert_true(s->fix[1].lockless);
	assert_int_equal(s->fix[1].parent, 0x10001);
	assert_int_equal(s->fix[3].txq, 0);
	assert_int_equal(s->fix[3].qlen, 5);
	/* each qdisc its own remedies' state */
	assert_ptr_not_equal(s->fix[1].done, s->fix[2].done);
	/* all in the tool's netns: the remedies may act on them */
	assert_false(s->fix[1].elsewhere);
	assert_string_equal(s->fix[1].netns, "host");
	qs_sweep_free(s);
}

/*
 * Host-wide: a pod's eth2 has the ifindex of the host's eth2. Its mq child
 * finds its own mq as parent, never the host's; its history and queue are
 * its own; its rows name it and its netns, and the remedies see it as
 * elsewhere. When its netns leaves the scope its queue's metrics go.
 */
static void test_two_netns_same_ifindex(void **state)
{
	struct nm_qdisc_stats pmq = q(2, 0x10000, QS_TC_H_ROOT, "mq", 9);
	struct nm_qdisc_stats pc1 = q(2, 0, 0x10002, "pfifo_fast", 9);
	struct qs_sweep *s = qs_sweep_new();
	struct qs_row *pod_mq, *pod_c1;
	size_t i, pod_rows = 0;

	(void)state;
	assert_non_null(s);
	dump(s, 1000000000ULL, true);
	pod_mq = qs_sweep_add(s, NS_POD, &pmq);
	pod_c1 = qs_sweep_add(s, NS_POD, &pc1);
	pod_c1->txq = 1;
	assert_ptr_equal(qs_sweep_parent(s, pod_c1), pod_mq);
	/* the host's child on 1:2 has the host's mq */
	assert_ptr_equal(qs_sweep_parent(s, &s->rows[2]), &s->rows[0]);
	qs_sweep_judge(s, 10000000ULL);
	assert_int_equal(s->ntracks, 4);
	assert_ptr_not_equal(s->rows[5].t, s->rows[2].t);
	assert_int_equal(s->ndq, 4);		/* eth2:0, eth2:1, eth3:0, pod eth2:1 */
	assert_int_equal(s->dq[3].netns, NS_POD);
	assert_int_equal(s->dq[3].qlen, 9);
	assert_int_equal(s->dq[1].qlen, 0);	/* the host's queue 1 keeps its own backlog */

	s->all = true;
	qs_sweep_rows(s, name, ns_name);
	for (i = 0; i < s->nout; i++) {
		if (strcmp(s->out[i].netns, "nm-pod"))
			continue;
		pod_rows++;
		assert_string_equal(s->out[i].dev, "pod2");
		assert_int_equal(s->out[i].netns_ino, NS_POD);
	}
	assert_int_equal(pod_rows, 1);		/* its child; its mq is not judged */
	assert_string_equal(s->qrows[3].device, "pod2");
	assert_string_equal(s->qrows[3].netns, "nm-pod");
	assert_string_equal(s->qrows[1].netns, "host");

	qs_sweep_fix_rows(s, name, ns_name);
	assert_true(s->fix[5].elsewhere);
	assert_string_equal(s->fix[5].netns, "nm-pod");
	assert_string_equal(s->fix[5].dev, "pod2");
	assert_false(s->fix[2].elsewhere);

	/* its netns gone: its queue's metrics go, the host's stay in order */
	qs_sweep_forget_ns(s, NS_POD);
	assert_int_equal(s->ndq, 3);
	assert_int_equal(s->dq[2].ifindex, 3);
	/* the next sweep without it: its history is forgotten too */
	dump(s, 2000000000ULL, true);
	qs_sweep_judge(s, 10000000ULL);
	assert_int_equal(s->ntracks, 3);
	qs_sweep_free(s);
}

/*
 * n one-queue roots of the tool's netns, eth10 on, judged (each has its
 * history) then made ok, row i dequeuing i + 1 packets a second.
 */
static void busy(struct qs_sweep *s, size_t n)
{
	s->n = 0;
	s->now_ns = 1000000000ULL;
	s->self_ino = NS_SELF;
	for (size_t i = 0; i < n; i++) {
		struct nm_qdisc_stats st = q(10 + i, 0, QS_TC_H_ROOT, "pfifo_fast", 0);
		struct qs_row *r = qs_sweep_add(s, NS_SELF, &st);

		assert_non_null(r);
		r->txq = 0;
	}
	qs_sweep_judge(s, 10000000ULL);
	for (size_t i = 0; i < n; i++) {
		s->rows[i].t->state = QS_OK;
		s->rows[i].t->deq_rate = i + 1;
	}
}

static void sick(struct qs_row *r, enum qs_state st, uint32_t qlen)
{
	r->t->state = st;
	r->nl.qlen = qlen;
	r->nl.backlog = qlen * 100;
}

/* The devices of the rows shown, in their order, joined by spaces. */
static const char *shown_devs(const struct qs_sweep *s)
{
	static char buf[512];
	size_t off = 0;

	buf[0] = 0;
	for (size_t i = 0; i < s->nout && off < sizeof(buf); i++)
		off += snprintf(buf + off, sizeof(buf) - off, "%s%s", i ? " " : "", s->out[i].dev);
	return buf;
}

static void rank_rows(struct qs_sweep *s)
{
	qs_sweep_rank(s);
	qs_sweep_rows(s, name, ns_name);
}

/*
 * #18: host-wide, every busy mq child was a row each interval. Now the
 * stuck, driver_stopped and shaped ones always are, however many, and
 * --top of the ok ones (the busiest first by default); the interval and
 * the heading count the ok ones left out.
 */
static void test_top_cut(void **state)
{
	struct qs_sweep *s = qs_sweep_new();
	struct nm_emit e = {};

	(void)state;
	assert_non_null(s);
	s->top = 3;
	busy(s, 8);
	/* the last of the dump, and quieter than every ok one */
	sick(&s->rows[5], QS_SHAPED, 4);
	sick(&s->rows[6], QS_DRIVER_STOPPED, 700);
	sick(&s->rows[7], QS_STUCK, 50);
	s->rows[7].t->deq_rate = s->rows[6].t->deq_rate = s->rows[5].t->deq_rate = 0;
	rank_rows(s);
	/* ok ones: eth10..eth14 dequeue 1..5 a second; the top three are the busiest */
	assert_string_equal(shown_devs(s), "eth17 eth16 eth15 eth14 eth13 eth12");
	assert_int_equal(s->ival.qdiscs_not_shown, 2);
	memset(s->per_state, 0, sizeof(s->per_state));
	s->per_state[QS_OK] = 5;
	s->per_state[QS_SHAPED] = s->per_state[QS_DRIVER_STOPPED] = s->per_state[QS_STUCK] = 1;
	qs_sweep_rows(s, name, ns_name);
	qs_sweep_emit(s, &e);
	assert_string_equal(e.table[0].heading,
			    "qdiscs: 1 stuck, 1 driver_stopped, 0 unknown, 1 shaped, 5 ok, 0 idle, 2 not shown");
	assert_int_equal(e.json[1].n, 6);	/* JSON carries the table's rows */

	/* one: the three sick ones beyond it, all the same */
	s->top = 1;
	rank_rows(s);
	assert_string_equal(shown_devs(s), "eth17 eth16 eth15 eth14");
	assert_int_equal(s->ival.qdiscs_not_shown, 4);

	/* as many as the ok ones: none left out, the heading as before */
	s->top = 5;
	rank_rows(s);
	assert_int_equal(s->nout, 8);
	assert_int_equal(s->ival.qdiscs_not_shown, 0);
	memset(&e, 0, sizeof(e));
	qs_sweep_emit(s, &e);
	assert_null(strstr(e.table[0].heading, "not shown"));

	/* no --top: QS_REPORT_TOP of them */
	s->top = 0;
	busy(s, QS_REPORT_TOP + 7);
	rank_rows(s);
	assert_int_equal(s->nout, QS_REPORT_TOP);
	assert_int_equal(s->ival.qdiscs_not_shown, 7);
	assert_int_equal(s->out[0].dequeue_rate, QS_REPORT_TOP + 7);
	qs_sweep_free(s);
}

/*
 * Each --sort key picks its own top one out of five ok qdiscs, each the
 * most of one key: A queues the most packets, B the most bytes, C
 * dequeues the fastest, D has been ok the longest, E dropped the most.
 */
static void test_sort_keys(void **state)
{
	static const char *const want[QS_NR_SORTS] = {
		[QS_SORT_QLEN] = "eth10", [QS_SORT_BYTES] = "eth11", [QS_SORT_DEQ] = "eth12",
		[QS_SORT_MS] = "eth13", [QS_SORT_DROPS] = "eth14",
	};
	static const struct { uint32_t qlen, backlog; double deq; uint64_t ms, drops; } v[] = {
		{ 9, 100, 1, 10, 0 }, { 1, 900, 2, 20, 1 }, { 2, 200, 50, 5, 2 },
		{ 0, 0, 3, 900, 3 }, { 0, 0, 0, 0, 70 },
	};
	struct qs_sweep *s = qs_sweep_new();

	(void)state;
	assert_non_null(s);
	busy(s, 5);
	for (size_t i = 0; i < 5; i++) {
		s->rows[i].nl.qlen = v[i].qlen;
		s->rows[i].nl.backlog = v[i].backlog;
		s->rows[i].nl.drops = v[i].drops;
		s->rows[i].t->deq_rate = v[i].deq;
		s->rows[i].t->since_ns = s->now_ns - v[i].ms * 1000000;
	}
	s->top = 1;
	for (int k = 0; k < QS_NR_SORTS; k++) {
		s->sort = k;
		rank_rows(s);
		assert_string_equal(shown_devs(s), want[k]);
		assert_int_equal(s->ival.qdiscs_not_shown, 4);
	}
	/* the default's whole order: qlen; D and E tie on it and on bytes, D dequeues more */
	s->sort = QS_SORT_QLEN;
	s->all = true;
	rank_rows(s);
	assert_string_equal(shown_devs(s), "eth10 eth12 eth11 eth13 eth14");
	/* a key ranks within a state: a stuck qdisc with no drops stays ahead */
	s->all = false;
	s->sort = QS_SORT_DROPS;
	sick(&s->rows[0], QS_STUCK, 3);
	rank_rows(s);
	assert_string_equal(shown_devs(s), "eth10 eth14");
	assert_string_equal(qs_sort_names[QS_SORT_DEQ], "deq");
	qs_sweep_free(s);
}

/*
 * Equal on every key: by netns, ifindex, parent, handle, whatever the
 * dump's order, so that the same qdiscs make the cut report after
 * report. Equal on --sort's key: the default order decides first.
 */
static void test_ties(void **state)
{
	static const struct { unsigned long ns; unsigned int ifindex; uint32_t parent; } d[] = {
		{ NS_POD, 2, QS_TC_H_ROOT }, { NS_SELF, 3, QS_TC_H_ROOT }, { NS_SELF, 2, 0x10002 },
		{ NS_SELF, 2, 0x10001 },
	};
	struct qs_sweep *s = qs_sweep_new();

	(void)state;
	assert_non_null(s);
	s->now_ns = 1000000000ULL;
	for (size_t i = 0; i < 4; i++) {
		struct nm_qdisc_stats st = q(d[i].ifindex, 0, d[i].parent, "pfifo_fast", 0);

		assert_non_null(qs_sweep_add(s, d[i].ns, &st));
	}
	qs_sweep_judge(s, 10000000ULL);
	for (size_t i = 0; i < 4; i++)
		s->rows[i].t->state = QS_OK;
	s->top = 3;
	rank_rows(s);
	assert_int_equal(s->rows[0].nl.parent, 0x10001);
	assert_int_equal(s->rows[1].nl.parent, 0x10002);
	assert_int_equal(s->rows[2].nl.ifindex, 3);
	assert_int_equal(s->rows[3].netns, NS_POD);	/* the one cut */
	assert_int_equal(s->ival.qdiscs_not_shown, 1);
	assert_string_equal(shown_devs(s), "eth2 eth2 eth3");
	/* ranked again, the same order */
	rank_rows(s);
	assert_int_equal(s->rows[0].nl.parent, 0x10001);
	assert_int_equal(s->rows[3].netns, NS_POD);

	/* --sort=ms, all ok as long: the pod's, dequeuing most, goes first */
	s->sort = QS_SORT_MS;
	s->rows[3].t->deq_rate = 9;
	rank_rows(s);
	assert_int_equal(s->rows[0].netns, NS_POD);
	assert_int_equal(s->rows[1].nl.parent, 0x10001);
	qs_sweep_free(s);
}

/* --all: idle ones too, and every ok one whatever --top says: none counted as not shown. */
static void test_all(void **state)
{
	struct qs_sweep *s = qs_sweep_new();

	(void)state;
	assert_non_null(s);
	busy(s, 7);
	s->rows[0].t->state = s->rows[1].t->state = QS_IDLE;
	s->top = 2;
	rank_rows(s);
	/* idle ones are not cut by --top, nor counted: they are not shown at all */
	assert_string_equal(shown_devs(s), "eth16 eth15");
	assert_int_equal(s->ival.qdiscs_not_shown, 3);
	s->all = true;
	rank_rows(s);
	assert_int_equal(s->nout, 7);
	assert_int_equal(s->ival.qdiscs_not_shown, 0);
	/* ok first, then idle */
	assert_string_equal(shown_devs(s), "eth16 eth15 eth14 eth13 eth12 eth11 eth10");
	assert_int_equal(s->out[5].state, QS_IDLE);
	qs_sweep_free(s);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_add_and_parent),
		cmocka_unit_test(test_observe),
		cmocka_unit_test(test_judge_tracks),
		cmocka_unit_test(test_rank_and_rows),
		cmocka_unit_test(test_fix_rows),
		cmocka_unit_test(test_two_netns_same_ifindex),
		cmocka_unit_test(test_top_cut),
		cmocka_unit_test(test_sort_keys),
		cmocka_unit_test(test_ties),
		cmocka_unit_test(test_all),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
