// SPDX-License-Identifier: GPL-2.0
/*
 * Unit tests for src/qdiscstuck/collect.c: the --dev filter, and the
 * join of rtnetlink rows with the BPF records, which sit on the qdisc a
 * TX queue runs (a child of mq, or the root), never on a classful
 * qdisc's leaves; host-wide, the same device in two namespaces kept apart.
 * The records are an index as the loader's walk of the map makes it.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <cmocka.h>

#include "qdiscstuck/collect.h"

#define NS_SELF	4026531840UL
#define NS_POD	4026532500UL

static struct qs_row *add(struct qs_sweep *s, unsigned long netns, unsigned int ifindex,
			  uint32_t handle, uint32_t parent, const char *kind)
{
	struct nm_qdisc_stats q = { .ifindex = ifindex, .handle = handle, .parent = parent };
	struct qs_row *r;

	snprintf(q.kind, sizeof(q.kind), "%s", kind);
	r = qs_sweep_add(s, netns, &q);
	assert_non_null(r);
	return r;
}

/* A BPF record of qdisc (netns, ifindex, parent, handle); its txq_index tells them apart. */
static void bpf(struct nm_htab *idx, unsigned long netns, unsigned int ifindex,
		uint32_t handle, uint32_t parent, uint32_t id)
{
	struct qs_qdisc v = { .key = { .netns = netns, .ifindex = ifindex, .parent = parent,
				       .handle = handle },
			      .txq_index = id, .dev_ntxq = 4 };
	struct qs_qdisc *slot = nm_htab_upsert(idx, &v.key, NULL);

	assert_non_null(slot);
	*slot = v;
}

static struct nm_htab *index_new(void)
{
	struct nm_htab *idx = nm_htab_new(sizeof(struct qs_qdisc_key), sizeof(struct qs_qdisc),
					  64);

	assert_non_null(idx);
	return idx;
}

static int setup(void **state)
{
	*state = qs_sweep_new();
	return *state ? 0 : -1;
}

static int teardown(void **state)
{
	qs_sweep_free(*state);
	return 0;
}

/* Without --dev every device; with it, only those named, of the tool's own netns. */
static void test_dev_selected(void **state)
{
	struct nm_opts o = { .netns_ino = NS_SELF };

	(void)state;
	assert_true(qs_dev_selected(&o, NS_POD, 7));
	o.ndevs = 2;
	o.ifindex[0] = 2;
	o.ifindex[1] = 5;
	assert_true(qs_dev_selected(&o, NS_SELF, 5));
	assert_false(qs_dev_selected(&o, NS_SELF, 3));
	assert_false(qs_dev_selected(&o, NS_POD, 5));
}

/* A child of mq has its own record and names its queue; the mq root has none of its own. */
static void test_mq_child(void **state)
{
	struct qs_sweep *s = *state;
	struct nm_htab *idx = index_new();
	struct qs_row *mq, *c1;
	struct qs_txq_facts f = {};

	mq = add(s, NS_SELF, 2, 0x10000, QS_TC_H_ROOT, "mq");
	add(s, NS_SELF, 2, 0, 0x10001, "fq_codel");
	c1 = add(s, NS_SELF, 2, 0, 0x10002, "pfifo_fast");
	bpf(idx, NS_SELF, 2, 0, 0x10001, 10);
	bpf(idx, NS_SELF, 2, 0, 0x10002, 11);

	qs_join_row(s, c1, idx, &f);
	assert_true(c1->have_bpf);
	assert_true(c1->own_bpf);
	assert_int_equal(c1->bpf.txq_index, 11);
	assert_true(c1->lockless);
	assert_false(c1->shaper);
	assert_true(f.under_mq);
	assert_int_equal(f.mq_child_parent, 0x10002);
	assert_int_equal(f.mq_handle, 0x10000);
	assert_int_equal(qs_row_txq(&f), 1);

	f = (struct qs_txq_facts){};
	qs_join_row(s, mq, idx, &f);
	assert_false(mq->have_bpf);
	assert_false(mq->lockless);
	assert_false(f.under_mq);
	nm_htab_free(idx);
}

/*
 * A leaf of a classful child of mq: the events are its ancestor's (the mq
 * child), not its own; a shaper on the way makes it shaped.
 */
static void test_leaf_under_mq(void **state)
{
	struct qs_sweep *s = *state;
	struct nm_htab *idx = index_new();
	struct qs_row *leaf;
	struct qs_txq_facts f = {};

	add(s, NS_SELF, 2, 0x10000, QS_TC_H_ROOT, "mq");
	add(s, NS_SELF, 2, 0x20000, 0x10003, "htb");
	leaf = add(s, NS_SELF, 2, 0x30000, 0x20001, "pfifo");
	bpf(idx, NS_SELF, 2, 0x20000, 0x10003, 20);

	qs_join_row(s, leaf, idx, &f);
	assert_true(leaf->have_bpf);
	assert_false(leaf->own_bpf);
	assert_int_equal(leaf->bpf.txq_index, 20);
	assert_true(leaf->shaper);
	assert_false(leaf->lockless);
	assert_true(f.under_mq);
	assert_int_equal(f.mq_child_parent, 0x10003);
	assert_int_equal(qs_row_txq(&f), 2);
	nm_htab_free(idx);
}

/* A classful root: its leaf takes the root's record; no mq, so the queue is the device's to say. */
static void test_leaf_under_root(void **state)
{
	struct qs_sweep *s = *state;
	struct nm_htab *idx = index_new();
	struct qs_row *root, *leaf;
	struct qs_txq_facts f = {};

	root = add(s, NS_SELF, 3, 0x10000, QS_TC_H_ROOT, "prio");
	leaf = add(s, NS_SELF, 3, 0x20000, 0x10001, "pfifo_fast");
	bpf(idx, NS_SELF, 3, 0x10000, QS_TC_H_ROOT, 30);

	qs_join_row(s, leaf, idx, &f);
	assert_true(leaf->have_bpf);
	assert_false(leaf->own_bpf);
	assert_int_equal(leaf->bpf.txq_index, 30);
	assert_true(leaf->lockless);
	assert_false(leaf->shaper);
	assert_false(f.under_mq);
	assert_int_equal(qs_row_txq(&f), -1);

	f = (struct qs_txq_facts){};
	qs_join_row(s, root, idx, &f);
	assert_true(root->own_bpf);
	nm_htab_free(idx);
}

/* The same device and handles in another netns: neither row takes the other's record. */
static void test_netns_apart(void **state)
{
	struct qs_sweep *s = *state;
	struct nm_htab *idx = index_new();
	struct qs_row *self, *pod;
	struct qs_txq_facts f = {};

	self = add(s, NS_SELF, 2, 0x10000, QS_TC_H_ROOT, "tbf");
	pod = add(s, NS_POD, 2, 0x10000, QS_TC_H_ROOT, "tbf");
	bpf(idx, NS_POD, 2, 0x10000, QS_TC_H_ROOT, 40);

	qs_join_row(s, self, idx, &f);
	assert_false(self->have_bpf);
	assert_true(self->shaper);
	qs_join_row(s, pod, idx, &f);
	assert_true(pod->have_bpf);
	assert_int_equal(pod->bpf.txq_index, 40);
	nm_htab_free(idx);
}

/* No index (out of memory): the row is joined without its events, its kind still told. */
static void test_no_index(void **state)
{
	struct qs_sweep *s = *state;
	struct qs_row *c0;
	struct qs_txq_facts f = {};

	add(s, NS_SELF, 2, 0x10000, QS_TC_H_ROOT, "mq");
	c0 = add(s, NS_SELF, 2, 0, 0x10001, "pfifo_fast");
	qs_join_row(s, c0, NULL, &f);
	assert_false(c0->have_bpf);
	assert_true(c0->lockless);
	assert_int_equal(qs_row_txq(&f), 0);
}

/* A loop of parents (a dump that names one) ends after 8 steps, joined with what was found. */
static void test_parent_loop(void **state)
{
	struct qs_sweep *s = *state;
	struct nm_htab *idx = index_new();
	struct qs_row *a;
	struct qs_txq_facts f = {};

	a = add(s, NS_SELF, 4, 0x10000, 0x20001, "htb");
	add(s, NS_SELF, 4, 0x20000, 0x10001, "htb");
	qs_join_row(s, a, idx, &f);
	assert_false(a->have_bpf);
	assert_true(a->shaper);
	assert_false(f.under_mq);
	nm_htab_free(idx);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_dev_selected),
		cmocka_unit_test_setup_teardown(test_mq_child, setup, teardown),
		cmocka_unit_test_setup_teardown(test_leaf_under_mq, setup, teardown),
		cmocka_unit_test_setup_teardown(test_leaf_under_root, setup, teardown),
		cmocka_unit_test_setup_teardown(test_netns_apart, setup, teardown),
		cmocka_unit_test_setup_teardown(test_no_index, setup, teardown),
		cmocka_unit_test_setup_teardown(test_parent_loop, setup, teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
