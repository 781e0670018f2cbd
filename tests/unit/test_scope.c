// SPDX-License-Identifier: GPL-2.0
/*
 * Unit tests for src/lib/scope.c on a made-up /proc and /run/netns (as in
 * test_nsreg.c): what is in scope, the names and their fallbacks, the walk,
 * what missing privileges lose. Device names come from a real socket in
 * this process's own netns, filed under the made-up inode of "its" netns.
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

#include "lib/scope.h"

static int setup(void **state)
{
	struct tree *t = tree_new("scope");

	if (!t)
		return -1;
	/* the host (kthreadd's), a pod, a named lab netns */
	proc_add(t, 1, "systemd", 10);
	proc_add(t, 2, "kthreadd", 10);
	proc_add(t, 300, "pause", 20);
	proc_add(t, 310, "nginx", 20);
	proc_add(t, 400, "iperf3", 40);
	sh("ln -s 'net:[40]' %s/lab", t->run);
	*state = t;
	return 0;
}

static struct nm_scope_cfg cfg_of(const struct tree *t)
{
	return (struct nm_scope_cfg){ .self_ino = 10, .read_procs = true, .setns = true,
				      .proc = t->proc, .run = t->run, .no_devnames = true };
}

/* No --netns: every netns, each by its name, the walk over all of them. */
static void test_host_wide(void **state)
{
	struct nm_scope_cfg cfg = cfg_of(*state);
	struct nm_scope_counts c;
	struct nm_scope_ns ns;
	struct nm_scope s;
	char b[64];
	size_t pos = 0;

	assert_int_equal(nm_scope_init(&s, &cfg), 0);
	assert_true(nm_scope_has(&s, 10));
	assert_true(nm_scope_has(&s, 99));
	assert_string_equal(nm_scope_ns_name(&s, 10, b, sizeof(b)), "host");
	assert_string_equal(nm_scope_ns_name(&s, 20, b, sizeof(b)), "pause:300");
	assert_string_equal(nm_scope_ns_name(&s, 40, b, sizeof(b)), "lab");
	/* one the registry does not know (another user's, over the cap): its inode */
	assert_string_equal(nm_scope_ns_name(&s, 4026532999UL, b, sizeof(b)), "4026532999");
	assert_string_equal(nm_scope_str(&s, b, sizeof(b)), "all");
	/* the walk: each, sorted by inode; the tool's own is entered by no path */
	assert_true(nm_scope_next(&s, &pos, &ns));
	assert_int_equal(ns.ino, 10);
	assert_string_equal(ns.name, "host");
	assert_null(ns.path);
	assert_true(nm_scope_next(&s, &pos, &ns));
	assert_int_equal(ns.ino, 20);
	assert_non_null(strstr(ns.path, "/300/ns/net"));
	assert_true(nm_scope_next(&s, &pos, &ns));
	assert_string_equal(ns.name, "lab");
	assert_non_null(strstr(ns.path, "/run/lab"));
	assert_false(nm_scope_next(&s, &pos, &ns));
	nm_scope_counts(&s, &c);
	assert_int_equal(c.ns, 3);
	assert_int_equal(c.ns_over, 0);
	/* no device names here: every device is "ifN" */
	assert_string_equal(nm_scope_dev_name(&s, 20, 3, b, sizeof(b)), "if3");
	assert_string_equal(nm_scope_lost(&s, b, sizeof(b)), "");
	nm_scope_free(&s);
}

/* --netns a --netns b: only those; the walk gives their paths; names as given if unknown. */
static void test_narrowed(void **state)
{
	struct tree *t = *state;
	struct nm_scope_cfg cfg = cfg_of(t);
	const unsigned long inos[] = { 40, 77 };
	const char *paths[] = { "/run/netns/lab", "/var/run/other" };
	const char *args[] = { "lab", "/var/run/other" };
	struct nm_scope_counts c;
	struct nm_scope_ns ns;
	struct nm_scope s;
	char b[64];
	size_t pos = 0;

	cfg.n = 2;
	cfg.inos = inos;
	cfg.paths = paths;
	cfg.args = args;
	assert_int_equal(nm_scope_init(&s, &cfg), 0);
	assert_true(nm_scope_has(&s, 40));
	assert_true(nm_scope_has(&s, 77));
	assert_false(nm_scope_has(&s, 10));
	assert_false(nm_scope_has(&s, 20));
	/* a bind mount the registry does not scan: named as given */
	assert_string_equal(nm_scope_ns_name(&s, 77, b, sizeof(b)), "/var/run/other");
	assert_string_equal(nm_scope_str(&s, b, sizeof(b)), "lab,/var/run/other");
	assert_true(nm_scope_next(&s, &pos, &ns));
	assert_int_equal(ns.ino, 40);
	assert_string_equal(ns.name, "lab");
	assert_string_equal(ns.path, "/run/netns/lab");
	assert_true(nm_scope_next(&s, &pos, &ns));
	assert_int_equal(ns.ino, 77);
	assert_string_equal(ns.path, "/var/run/other");
	assert_false(nm_scope_next(&s, &pos, &ns));
	nm_scope_counts(&s, &c);
	assert_int_equal(c.ns, 1);	/* the registry knows lab only */
	nm_scope_free(&s);
}

/* One --netns, the tool's own: its walk has no path to enter. */
static void test_one(void **state)
{
	struct nm_scope_cfg cfg = cfg_of(*state);
	const unsigned long inos[] = { 20 };
	struct nm_scope_ns ns;
	struct nm_scope s;
	char b[64];
	size_t pos = 0;

	cfg.n = 1;
	cfg.inos = inos;
	cfg.self_ino = 20;
	assert_int_equal(nm_scope_init(&s, &cfg), 0);
	assert_string_equal(nm_scope_str(&s, b, sizeof(b)), "pause:300");
	assert_true(nm_scope_next(&s, &pos, &ns));
	assert_null(ns.path);
	assert_false(nm_scope_next(&s, &pos, &ns));
	assert_false(nm_scope_has(&s, 10));
	nm_scope_free(&s);
}

/* Without the privileges: what is lost is said, in one line's part. */
static void test_lost(void **state)
{
	struct nm_scope_cfg cfg = cfg_of(*state);
	struct nm_scope s;
	char b[256];

	cfg.read_procs = false;
	assert_int_equal(nm_scope_init(&s, &cfg), 0);
	assert_string_equal(nm_scope_lost(&s, b, sizeof(b)),
			    "names of other users' namespaces (no CAP_SYS_PTRACE: their inodes)");
	nm_scope_free(&s);
	cfg.setns = false;
	assert_int_equal(nm_scope_init(&s, &cfg), 0);
	assert_string_equal(nm_scope_lost(&s, b, sizeof(b)),
			    "names of other users' namespaces (no CAP_SYS_PTRACE: their inodes), "
			    "device names in other namespaces (no CAP_SYS_ADMIN: ifN)");
	nm_scope_free(&s);
}

/* Bounded: namespaces over the registry's cap are counted, and named by inode. */
static void test_cap(void **state)
{
	struct nm_scope_cfg cfg = cfg_of(*state);
	struct nm_scope_counts c;
	struct nm_scope s;
	char b[64], want[32];

	cfg.max_ns = 2;
	assert_int_equal(nm_scope_init(&s, &cfg), 0);
	nm_scope_counts(&s, &c);
	assert_int_equal(c.ns, 2);
	assert_true(c.ns_over >= 1);
	/* which one missed is readdir's order: one of the three, by its inode */
	const unsigned long inos[] = { 10, 20, 40 };
	int by_ino = 0;

	for (int i = 0; i < 3; i++) {
		snprintf(want, sizeof(want), "%lu", inos[i]);
		by_ino += !strcmp(nm_scope_ns_name(&s, inos[i], b, sizeof(b)), want);
	}
	assert_int_equal(by_ino, 1);
	nm_scope_free(&s);
}

/*
 * Device names: the tool's own netns by a real socket (no setns); another
 * without CAP_SYS_ADMIN is not opened at all; gone namespaces are dropped.
 */
static void test_devices(void **state)
{
	struct tree *t = *state;
	struct nm_scope_cfg cfg = cfg_of(t);
	struct nm_scope_counts c;
	struct nm_scope s;
	char b[64];

	cfg.no_devnames = false;
	cfg.setns = false;
	assert_int_equal(nm_scope_init(&s, &cfg), 0);
	/* this process's loopback, filed under "its" netns 10 */
	assert_string_equal(nm_scope_dev_name(&s, 10, 1, b, sizeof(b)), "lo");
	assert_string_equal(nm_scope_dev_name(&s, 10, 0x7fffffff, b, sizeof(b)), "if2147483647");
	assert_string_equal(nm_scope_dev_name(&s, 20, 1, b, sizeof(b)), "if1");
	nm_scope_counts(&s, &c);
	assert_int_equal(c.socks_failed, 0);
	nm_scope_free(&s);

	/* with setns: the made-up paths do not open, counted, retried each refresh */
	cfg.setns = true;
	assert_int_equal(nm_scope_init(&s, &cfg), 0);
	nm_scope_counts(&s, &c);
	assert_int_equal(c.socks_failed, 2);
	nm_scope_refresh(&s);
	nm_scope_counts(&s, &c);
	assert_int_equal(c.socks_failed, 2);
	assert_string_equal(nm_scope_dev_name(&s, 10, 1, b, sizeof(b)), "lo");
	/* the tool's netns is gone from the registry (its processes left): its names go */
	sh("rm -rf %s/1 %s/2", t->proc, t->proc);
	nm_scope_refresh(&s);
	assert_string_equal(nm_scope_dev_name(&s, 10, 1, b, sizeof(b)), "if1");
	nm_scope_free(&s);
}

/*
 * What went: a netns the registry found gone, until a netns of its inode
 * is seen again or NM_SCOPE_GONE_SCANS refreshes passed; never one it has
 * not scanned yet; its devices with it.
 */
static void test_gone(void **state)
{
	struct tree *t = *state;
	struct nm_scope_cfg cfg = cfg_of(t);
	struct nm_scope s;

	assert_int_equal(nm_scope_init(&s, &cfg), 0);
	assert_false(nm_scope_any_gone(&s));
	assert_false(nm_scope_gone(&s, 20, 0));
	/* the pod's processes leave */
	sh("rm -rf %s/300 %s/310", t->proc, t->proc);
	nm_scope_refresh(&s);
	assert_true(nm_scope_any_gone(&s));
	assert_true(nm_scope_gone(&s, 20, 0));
	assert_true(nm_scope_gone(&s, 20, 3));	/* a device of it */
	assert_false(nm_scope_gone(&s, 10, 0));
	assert_false(nm_scope_gone(&s, 40, 3));
	/* made since the last scan (or never seen): not gone, just not known */
	assert_false(nm_scope_gone(&s, 4026532999UL, 0));
	/* still gone at the next refresh: a netns sends while it is taken down */
	nm_scope_refresh(&s);
	assert_true(nm_scope_gone(&s, 20, 0));
	/* its inode taken by a new netns: not gone any more */
	proc_add(t, 500, "runc", 20);
	nm_scope_refresh(&s);
	assert_false(nm_scope_gone(&s, 20, 0));
	assert_false(nm_scope_any_gone(&s));
	/* gone again, then forgotten after NM_SCOPE_GONE_SCANS refreshes */
	sh("rm -rf %s/500", t->proc);
	for (int i = 0; i < NM_SCOPE_GONE_SCANS; i++) {
		nm_scope_refresh(&s);
		assert_true(nm_scope_gone(&s, 20, 0));
	}
	nm_scope_refresh(&s);
	assert_false(nm_scope_gone(&s, 20, 0));
	nm_scope_free(&s);
}

/*
 * What a tool drops (nm_scope_went): the gone ones, and, host-wide with
 * /proc readable, one the registry does not know after its scan; never
 * the tool's own netns, and never with --netns (their set) or without
 * /proc to read (unknown is then no sign of gone).
 */
static void test_went(void **state)
{
	struct tree *t = *state;
	struct nm_scope_cfg cfg = cfg_of(t);
	unsigned long inos[1] = { 40 };
	struct nm_scope s;

	cfg.read_procs = true;
	cfg.self_ino = 10;
	assert_int_equal(nm_scope_init(&s, &cfg), 0);
	assert_true(nm_scope_any_went(&s));
	assert_false(nm_scope_went(&s, 10, 0));
	assert_false(nm_scope_went(&s, 20, 2));
	assert_true(nm_scope_went(&s, 4026532999UL, 0));
	sh("rm -rf %s/300 %s/310", t->proc, t->proc);
	nm_scope_refresh(&s);
	assert_true(nm_scope_went(&s, 20, 0));
	/* the tool's own netns, even if the registry lost it */
	cfg.self_ino = 77;
	nm_scope_free(&s);
	assert_int_equal(nm_scope_init(&s, &cfg), 0);
	assert_false(nm_scope_went(&s, 77, 0));
	nm_scope_free(&s);
	/* no /proc to read: unknown is not gone */
	cfg.read_procs = false;
	assert_int_equal(nm_scope_init(&s, &cfg), 0);
	assert_false(nm_scope_went(&s, 4026532999UL, 0));
	nm_scope_free(&s);
	/* a registry over its cap left live namespaces out: unknown is not gone then */
	cfg.max_ns = 1;
	assert_int_equal(nm_scope_init(&s, &cfg), 0);
	assert_true(s.reg.over > 0);
	assert_false(nm_scope_any_went(&s));
	assert_false(nm_scope_went(&s, 4026532999UL, 0));
	nm_scope_free(&s);
	cfg.max_ns = 0;
	/* a --netns set: only what the scope says went */
	cfg.read_procs = true;
	cfg.n = 1;
	cfg.inos = inos;
	assert_int_equal(nm_scope_init(&s, &cfg), 0);
	assert_false(nm_scope_went(&s, 4026532999UL, 0));
	nm_scope_free(&s);
}

/* A deleted device: gone, its netns not; forgotten once a device has its ifindex again. */
static void test_gone_dev(void **state)
{
	struct nm_scope_cfg cfg = cfg_of(*state);
	struct nm_scope s;

	assert_int_equal(nm_scope_init(&s, &cfg), 0);
	nm_scope_dev_deleted(&s, 40, 7);
	nm_scope_dev_deleted(&s, 40, 0);	/* no such device: ignored */
	assert_true(nm_scope_gone(&s, 40, 7));
	assert_false(nm_scope_gone(&s, 40, 8));
	assert_false(nm_scope_gone(&s, 40, 0));
	assert_false(nm_scope_gone(&s, 20, 7));
	nm_scope_free(&s);

	/* with device names: this process's loopback (ifindex 1, in "its" netns 10) is there */
	cfg.no_devnames = false;
	cfg.setns = false;
	assert_int_equal(nm_scope_init(&s, &cfg), 0);
	nm_scope_dev_deleted(&s, 10, 1);
	nm_scope_dev_deleted(&s, 10, 0x7fffffff);
	assert_true(nm_scope_gone(&s, 10, 1));
	nm_scope_refresh(&s);
	assert_false(nm_scope_gone(&s, 10, 1));
	assert_true(nm_scope_gone(&s, 10, 0x7fffffff));
	nm_scope_free(&s);
}

/* The soft file limit: raised toward want, capped by hard, never lowered. */
static void test_nofile(void **state)
{
	(void)state;
	assert_int_equal(nm_scope_nofile(1024, 524288, 1280), 1280);
	assert_int_equal(nm_scope_nofile(1024, 1100, 1280), 1100);
	assert_int_equal(nm_scope_nofile(4096, 524288, 1280), 4096);
	assert_true(nm_scope_nofile(1024, RLIM_INFINITY, 1280) == 1280);
	assert_true(nm_scope_nofile(RLIM_INFINITY, RLIM_INFINITY, 1280) == RLIM_INFINITY);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_host_wide, setup, teardown),
		cmocka_unit_test_setup_teardown(test_narrowed, setup, teardown),
		cmocka_unit_test_setup_teardown(test_one, setup, teardown),
		cmocka_unit_test_setup_teardown(test_lost, setup, teardown),
		cmocka_unit_test_setup_teardown(test_cap, setup, teardown),
		cmocka_unit_test_setup_teardown(test_devices, setup, teardown),
		cmocka_unit_test_setup_teardown(test_gone, setup, teardown),
		cmocka_unit_test_setup_teardown(test_gone_dev, setup, teardown),
		cmocka_unit_test(test_nofile),
		cmocka_unit_test_setup_teardown(test_went, setup, teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
