// SPDX-License-Identifier: GPL-2.0
/*
 * Unit tests for src/lib/tcpstall_ns.c on a made-up /proc and /run/netns
 * (as in test_scope.c), with ways in that open nothing: each netns in
 * scope gets one once and keeps it, one that goes is told gone and its
 * way closed, the caps count, and without setns only ours is swept.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <cmocka.h>
#include "fake_proc.h"

#include "lib/tcpstall_ns.h"

static int setup(void **state)
{
	struct tree *t = tree_new("tsns");

	if (!t)
		return -1;
	/* ours (the host), a pod, a named lab netns */
	proc_add(t, 1, "systemd", 10);
	proc_add(t, 2, "kthreadd", 10);
	proc_add(t, 300, "pause", 20);
	proc_add(t, 400, "iperf3", 40);
	sh("ln -s 'net:[40]' %s/lab", t->run);
	*state = t;
	return 0;
}

/* The ways opened and closed, by inode; opens of fail_ino fail. */
static struct fake {
	int opens, closes, open_fds;
	unsigned long fail_ino, last_open;
	char last_path[128];
	unsigned long gone[8];
	int ngone;
} fk;

static int fake_open(struct ts_nsset *s, struct ts_ns *ns, const char *path, char *err, size_t len)
{
	(void)s;
	fk.opens++;
	fk.last_open = ns->ino;
	snprintf(fk.last_path, sizeof(fk.last_path), "%s", path ? path : "");
	if (ns->ino == fk.fail_ino) {
		snprintf(err, len, "refused");
		return -EPERM;
	}
	if (!ns->self) {
		ns->fd = 1000 + (int)ns->ino;
		fk.open_fds++;
	}
	return 0;
}

static void fake_close(struct ts_nsset *s, struct ts_ns *ns)
{
	(void)s;
	fk.closes++;
	if (ns->fd >= 0)
		fk.open_fds--;
}

static const struct ts_ns_ops fake_ops = { .open = fake_open, .close = fake_close };

static void gone(unsigned long ino, void *arg)
{
	(void)arg;
	fk.gone[fk.ngone++] = ino;
}

static void scope_of(struct nm_scope *sc, const struct tree *t, bool setns)
{
	struct nm_scope_cfg cfg = { .self_ino = 10, .read_procs = true, .setns = setns,
				    .proc = t->proc, .run = t->run, .no_devnames = true };

	assert_int_equal(nm_scope_init(sc, &cfg), 0);
}

/* Each test's start: the fakes reset (fail_ino none). */
static int fresh(void **state)
{
	(void)state;
	memset(&fk, 0, sizeof(fk));
	return 0;
}

/* A set of iterators' ways (diag: sockets) on the fakes, bounds max_ns, max_fds, synced once with sc. */
static void synced(struct ts_nsset *s, const struct nm_scope *sc, bool diag, bool setns, size_t max_ns,
		   size_t max_fds)
{
	assert_int_equal(ts_nsset_init(s, diag, setns, max_ns, max_fds, &fake_ops), 0);
	ts_nsset_sync(s, sc, gone, NULL);
}

/* Host-wide: a way into each other netns, opened once; ours needs none (iterators). */
static void test_sync_opens_once(void **state)
{
	struct tree *t = *state;
	struct ts_nsset s;
	struct nm_scope sc;

	scope_of(&sc, t, true);
	synced(&s, &sc, false, true, 0, 0);
	assert_int_equal(s.n, 3);
	assert_int_equal(s.listed, 3);
	assert_true(ts_nsset_find(&s, 10)->self);
	assert_int_equal(ts_nsset_find(&s, 10)->fd, -1);
	assert_int_equal(ts_nsset_find(&s, 20)->fd, 1020);
	assert_int_equal(ts_nsset_find(&s, 40)->fd, 1040);
	assert_int_equal(fk.open_fds, 2);
	assert_int_equal(ts_nsset_ways(&s), 3);
	/* the lab's by its /run/netns path */
	assert_null(ts_nsset_find(&s, 30));
	/* again: nothing new opened, nothing closed */
	fk.opens = 0;
	nm_scope_refresh(&sc);
	ts_nsset_sync(&s, &sc, gone, NULL);
	assert_int_equal(fk.opens, 0);
	assert_int_equal(fk.closes, 0);
	assert_int_equal(fk.ngone, 0);
	ts_nsset_free(&s);
	assert_int_equal(fk.open_fds, 0);
	nm_scope_free(&sc);
}

/* A netns that goes: told gone, its way closed; one that comes: opened. */
static void test_sync_gone_and_new(void **state)
{
	struct tree *t = *state;
	struct ts_nsset s;
	struct nm_scope sc;

	scope_of(&sc, t, true);
	synced(&s, &sc, false, true, 0, 0);
	sh("rm -rf %s/300", t->proc);
	proc_add(t, 500, "sleep", 50);
	nm_scope_refresh(&sc);
	ts_nsset_sync(&s, &sc, gone, NULL);
	assert_int_equal(fk.ngone, 1);
	assert_int_equal(fk.gone[0], 20);
	assert_null(ts_nsset_find(&s, 20));
	assert_int_equal(s.closed, 1);
	assert_int_equal(ts_nsset_find(&s, 50)->fd, 1050);
	assert_non_null(strstr(fk.last_path, "/proc/500/ns/net"));
	assert_int_equal(fk.open_fds, 2);
	ts_nsset_free(&s);
	nm_scope_free(&sc);
	proc_add(t, 300, "pause", 20);
	sh("rm -rf %s/500", t->proc);
}

/* The caps: ways beyond max_fds, namespaces beyond max_ns, counted; a failed open retried. */
static void test_sync_bounds(void **state)
{
	struct tree *t = *state;
	struct ts_nsset s;
	struct nm_scope sc;

	scope_of(&sc, t, true);
	synced(&s, &sc, false, true, 0, 1);
	assert_int_equal(fk.open_fds, 1);
	assert_int_equal(s.over, 1);
	assert_int_equal(ts_nsset_ways(&s), 2);
	ts_nsset_free(&s);
	synced(&s, &sc, false, true, 2, 0);
	assert_int_equal(s.n, 2);
	assert_int_equal(s.over, 1);
	ts_nsset_free(&s);
	/* a failed open: counted, and tried again at the next sync */
	memset(&fk, 0, sizeof(fk));
	fk.fail_ino = 40;
	synced(&s, &sc, false, true, 0, 0);
	assert_int_equal(s.failed, 1);
	assert_int_equal(ts_nsset_find(&s, 40)->fd, -1);
	fk.fail_ino = 0;
	ts_nsset_sync(&s, &sc, gone, NULL);
	assert_int_equal(s.failed, 0);
	assert_int_equal(ts_nsset_find(&s, 40)->fd, 1040);
	ts_nsset_free(&s);
	nm_scope_free(&sc);
}

/* Without CAP_SYS_ADMIN: no other netns entered, said; ours only. */
static void test_no_setns(void **state)
{
	struct tree *t = *state;
	struct ts_nsset s;
	struct nm_scope sc;

	scope_of(&sc, t, false);
	synced(&s, &sc, true, false, 0, 0);
	assert_int_equal(s.unentered, 2);
	assert_int_equal(fk.opens, 1);
	assert_int_equal(fk.last_open, 10);
	assert_string_equal(fk.last_path, "");
	ts_nsset_free(&s);
	nm_scope_free(&sc);
}

/* Two --netns: those only; one the host no longer has is gone, though the scope lists it. */
static void test_netns_set(void **state)
{
	struct tree *t = *state;
	unsigned long inos[] = { 20, 40 };
	char p20[128], p40[128];
	const char *paths[] = { p20, p40 };
	struct nm_scope_cfg cfg = { .n = 2, .inos = inos, .paths = paths, .self_ino = 10,
				    .read_procs = true, .setns = true, .proc = t->proc, .run = t->run,
				    .no_devnames = true };
	struct ts_nsset s;
	struct nm_scope sc;

	snprintf(p20, sizeof(p20), "%s/300/ns/net", t->proc);
	snprintf(p40, sizeof(p40), "%s/lab", t->run);
	assert_int_equal(nm_scope_init(&sc, &cfg), 0);
	synced(&s, &sc, false, true, 0, 0);
	assert_int_equal(s.n, 2);
	assert_null(ts_nsset_find(&s, 10));
	sh("rm -rf %s/300", t->proc);
	nm_scope_refresh(&sc);
	ts_nsset_sync(&s, &sc, gone, NULL);
	assert_int_equal(fk.ngone, 1);
	assert_int_equal(fk.gone[0], 20);
	assert_int_equal(fk.open_fds, 1);
	ts_nsset_free(&s);
	nm_scope_free(&sc);
	proc_add(t, 300, "pause", 20);
}

/*
 * Rung 2 of the fast sweep walks a netns while it has tagged sockets: a
 * mark of this epoch or of the TS_TAG_EPOCHS_KEPT before it; none, or an
 * older one, and the netns is skipped.
 */
static void test_tag_fresh(void **state)
{
	(void)state;
	assert_false(ts_tag_fresh(false, 0, 1));
	assert_false(ts_tag_fresh(false, 7, 7));
	assert_true(ts_tag_fresh(true, 7, 7));
	assert_true(ts_tag_fresh(true, 7, 7 + TS_TAG_EPOCHS_KEPT));
	assert_false(ts_tag_fresh(true, 7, 8 + TS_TAG_EPOCHS_KEPT));
	/* a mark of a later epoch than userspace's (set before the sweep read it) */
	assert_true(ts_tag_fresh(true, 9, 8));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup(test_sync_opens_once, fresh),
		cmocka_unit_test_setup(test_sync_gone_and_new, fresh),
		cmocka_unit_test_setup(test_sync_bounds, fresh),
		cmocka_unit_test_setup(test_no_setns, fresh),
		cmocka_unit_test_setup(test_netns_set, fresh),
		cmocka_unit_test(test_tag_fresh),
	};

	return cmocka_run_group_tests(tests, setup, teardown);
}
