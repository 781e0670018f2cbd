// SPDX-License-Identifier: GPL-2.0
/*
 * Unit tests for src/lib/qdiscstuck_report.c: a sweep's rows added, their
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

#include "lib/qdiscstuck_report.h"

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
	r.own_bpf = true;
	qs_row_observe(&r, 100, &o);
	assert_int_equal(o.last_deq_ns, 7);
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

	qs_sweep_rows(s, false, name, ns_name);
	assert_int_equal(s->ival.qdiscs, 4);
	assert_int_equal(s->nout, 2);		/* the idle child and the mq root are not shown */
	qs_sweep_rows(s, true, name, ns_name);
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
	qs_sweep_rows(s, false, name, ns_name);
	qs_sweep_emit(s, &e);
	assert_string_equal(e.table[0].heading, "qdiscs: 1 stuck, 0 driver_stopped, 0 shaped, 1 ok, 1 idle");
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

	qs_sweep_rows(s, true, name, ns_name);
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

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_add_and_parent),
		cmocka_unit_test(test_observe),
		cmocka_unit_test(test_judge_tracks),
		cmocka_unit_test(test_rank_and_rows),
		cmocka_unit_test(test_fix_rows),
		cmocka_unit_test(test_two_netns_same_ifindex),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
