// SPDX-License-Identifier: GPL-2.0
/*
 * Unit tests for the netns registry, on a made-up /proc and /run/netns:
 * a process's ns/net is a symlink with the kernel's text, as in /proc.
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

#include "lib/nsreg.h"

static void proc_del(const struct tree *t, int pid)
{
	sh("rm -rf %s/%d", t->proc, pid);
}

static int setup(void **state)
{
	struct tree *t = tree_new("nsreg");

	if (!t)
		return -1;
	*state = t;
	return 0;
}

static const struct nm_ns *find(const struct nm_nsreg *r, unsigned long ino)
{
	const struct nm_ns *ns = nm_nsreg_find(r, ino);

	assert_non_null(ns);
	return ns;
}

static void test_link_ino(void **state)
{
	(void)state;
	assert_int_equal(nm_ns_link_ino("net:[4026531840]"), 4026531840UL);
	assert_int_equal(nm_ns_link_ino("mnt:[4026531840]"), 0);
	assert_int_equal(nm_ns_link_ino("net:[12"), 0);
	assert_int_equal(nm_ns_link_ino("net:[12]x"), 0);
	assert_int_equal(nm_ns_link_ino(""), 0);
}

static void test_proc_name(void **state)
{
	char b[64];

	(void)state;
	nm_ns_proc_name(b, sizeof(b), "nginx\n", 42);
	assert_string_equal(b, "nginx:42");
	/* the process sets its comm: quotes and control bytes never reach a label */
	nm_ns_proc_name(b, sizeof(b), "a\"b\\c\td", 7);
	assert_string_equal(b, "a?b?c?d:7");
	nm_ns_proc_name(b, sizeof(b), "", 9);
	assert_string_equal(b, "?:9");
}

static void test_scan_names(void **state)
{
	struct tree *t = *state;
	struct nm_nsreg_delta d;
	struct nm_nsreg r;

	proc_add(t, 300, "pause", 20);
	proc_add(t, 1, "systemd", 10);
	proc_add(t, 310, "nginx", 20);
	proc_add(t, 200, "containerd", 10);
	sh("ln -s 'net:[30]' %s/blue", t->run);
	assert_int_equal(nm_nsreg_init(&r, t->proc, t->run, 16), 0);
	assert_int_equal(nm_nsreg_scan(&r, &d, NULL, NULL), 0);
	assert_int_equal(d.added, 3);
	assert_int_equal(d.removed, 0);
	assert_int_equal(r.n, 3);
	/* named after its lowest pid, whatever the readdir order */
	assert_string_equal(find(&r, 10)->name, "systemd:1");
	assert_string_equal(find(&r, 20)->name, "pause:300");
	assert_false(find(&r, 20)->named);
	/* a named netns with no process in it */
	assert_string_equal(find(&r, 30)->name, "blue");
	assert_true(find(&r, 30)->named);
	assert_int_equal(find(&r, 30)->live_pid, 0);
	/* sorted by inode */
	assert_int_equal(r.ns[0].ino, 10);
	assert_int_equal(r.ns[2].ino, 30);
	assert_null(nm_nsreg_find(&r, 11));
	nm_nsreg_free(&r);
}

static void test_name_kept(void **state)
{
	struct tree *t = *state;
	struct nm_nsreg_delta d;
	struct nm_nsreg r;
	char want[128];

	proc_add(t, 300, "pause", 20);
	proc_add(t, 310, "nginx", 20);
	assert_int_equal(nm_nsreg_init(&r, t->proc, t->run, 16), 0);
	assert_int_equal(nm_nsreg_scan(&r, &d, NULL, NULL), 0);
	/* a lower pid that comes later does not rename it: names are stable */
	proc_add(t, 250, "sh", 20);
	assert_int_equal(nm_nsreg_scan(&r, &d, NULL, NULL), 0);
	assert_int_equal(d.added, 0);
	assert_string_equal(find(&r, 20)->name, "pause:300");
	assert_int_equal(find(&r, 20)->live_pid, 250);
	/* the process it was named after exits: the name stays, the path is a live one */
	proc_del(t, 300);
	proc_del(t, 250);
	assert_int_equal(nm_nsreg_scan(&r, &d, NULL, NULL), 0);
	assert_string_equal(find(&r, 20)->name, "pause:300");
	snprintf(want, sizeof(want), "%s/310/ns/net", t->proc);
	assert_string_equal(find(&r, 20)->path, want);
	nm_nsreg_free(&r);
}

static void test_run_name_wins(void **state)
{
	struct tree *t = *state;
	struct nm_nsreg_delta d;
	struct nm_nsreg r;
	char want[128];

	proc_add(t, 400, "iperf3", 40);
	assert_int_equal(nm_nsreg_init(&r, t->proc, t->run, 16), 0);
	assert_int_equal(nm_nsreg_scan(&r, &d, NULL, NULL), 0);
	assert_string_equal(find(&r, 40)->name, "iperf3:400");
	sh("ln -s 'net:[40]' %s/red", t->run);
	assert_int_equal(nm_nsreg_scan(&r, &d, NULL, NULL), 0);
	assert_int_equal(d.added, 0);
	assert_string_equal(find(&r, 40)->name, "red");
	assert_true(find(&r, 40)->named);
	snprintf(want, sizeof(want), "%s/red", t->run);
	assert_string_equal(find(&r, 40)->path, want);
	/* ip netns del with a process still in it: the name stays, entered by the pid */
	sh("rm %s/red", t->run);
	assert_int_equal(nm_nsreg_scan(&r, &d, NULL, NULL), 0);
	assert_int_equal(d.removed, 0);
	assert_string_equal(find(&r, 40)->name, "red");
	assert_false(find(&r, 40)->named);
	snprintf(want, sizeof(want), "%s/400/ns/net", t->proc);
	assert_string_equal(find(&r, 40)->path, want);
	nm_nsreg_free(&r);
}

/* The initial netns, kthreadd's (pid 2), is "host", unless /run/netns names it. */
static void test_host_name(void **state)
{
	struct tree *t = *state;
	struct nm_nsreg_delta d;
	struct nm_nsreg r;

	proc_add(t, 1, "systemd", 10);
	proc_add(t, 2, "kthreadd", 10);
	proc_add(t, 300, "pause", 20);
	proc_add(t, 400, "sleep", 40);
	sh("ln -s 'net:[40]' %s/lab", t->run);
	assert_int_equal(nm_nsreg_init(&r, t->proc, t->run, 16), 0);
	assert_int_equal(nm_nsreg_scan(&r, &d, NULL, NULL), 0);
	assert_int_equal(r.init_ino, 10);
	assert_string_equal(find(&r, 10)->name, "host");
	assert_false(find(&r, 10)->named);
	/* the others as before */
	assert_string_equal(find(&r, 20)->name, "pause:300");
	assert_string_equal(find(&r, 40)->name, "lab");
	/* a /run/netns name of the initial netns wins, as for any netns */
	sh("ln -s 'net:[10]' %s/main", t->run);
	assert_int_equal(nm_nsreg_scan(&r, &d, NULL, NULL), 0);
	assert_string_equal(find(&r, 10)->name, "main");
	nm_nsreg_free(&r);
}

/* pid 2 unreadable (no ptrace access): no "host", the netns is named as any other. */
static void test_host_unreadable(void **state)
{
	struct tree *t = *state;
	struct nm_nsreg_delta d;
	struct nm_nsreg r;

	proc_add(t, 1, "systemd", 10);
	sh("mkdir -p %s/2/ns", t->proc);
	assert_int_equal(nm_nsreg_init(&r, t->proc, t->run, 16), 0);
	assert_int_equal(nm_nsreg_scan(&r, &d, NULL, NULL), 0);
	assert_int_equal(r.init_ino, 0);
	assert_string_equal(find(&r, 10)->name, "systemd:1");
	nm_nsreg_free(&r);
}

struct gone_log {
	unsigned long ino[4];
	char name[4][NM_NS_NAME];
	int n;
};

static void on_gone(const struct nm_ns *ns, void *arg)
{
	struct gone_log *g = arg;

	assert_true(g->n < 4);
	g->ino[g->n] = ns->ino;
	snprintf(g->name[g->n], NM_NS_NAME, "%s", ns->name);
	g->n++;
}

static void test_gone(void **state)
{
	struct tree *t = *state;
	struct gone_log g = {};
	struct nm_nsreg_delta d;
	struct nm_nsreg r;

	proc_add(t, 1, "init", 10);
	proc_add(t, 500, "app", 50);
	proc_add(t, 600, "db", 60);
	assert_int_equal(nm_nsreg_init(&r, t->proc, t->run, 16), 0);
	assert_int_equal(nm_nsreg_scan(&r, &d, on_gone, &g), 0);
	proc_del(t, 500);
	proc_add(t, 700, "web", 70);
	assert_int_equal(nm_nsreg_scan(&r, &d, on_gone, &g), 0);
	assert_int_equal(d.added, 1);
	assert_int_equal(d.removed, 1);
	assert_int_equal(g.n, 1);
	assert_int_equal(g.ino[0], 50);
	assert_string_equal(g.name[0], "app:500");
	assert_null(nm_nsreg_find(&r, 50));
	assert_int_equal(r.n, 3);
	assert_string_equal(find(&r, 70)->name, "web:700");
	/* a process whose link is unreadable (it exited mid-scan) is skipped */
	sh("rm %s/600/ns/net", t->proc);
	assert_int_equal(nm_nsreg_scan(&r, &d, on_gone, &g), 0);
	assert_null(nm_nsreg_find(&r, 60));
	nm_nsreg_free(&r);
}

static void test_cap(void **state)
{
	struct tree *t = *state;
	struct nm_nsreg_delta d;
	struct nm_nsreg r;

	for (int i = 1; i <= 5; i++)
		proc_add(t, i, "p", 100 + i);
	assert_int_equal(nm_nsreg_init(&r, t->proc, t->run, 3), 0);
	assert_int_equal(nm_nsreg_scan(&r, &d, NULL, NULL), 0);
	/* bounded: the rest are counted, not tracked */
	assert_int_equal(r.n, 3);
	assert_int_equal(d.added, 3);
	assert_int_equal(r.over, 2);
	nm_nsreg_free(&r);
}

static void test_no_proc(void **state)
{
	struct nm_nsreg_delta d;
	struct nm_nsreg r;

	(void)state;
	assert_int_equal(nm_nsreg_init(&r, "/nonexistent/proc", NULL, 4), 0);
	assert_int_equal(nm_nsreg_scan(&r, &d, NULL, NULL), -ENOENT);
	assert_int_equal(r.n, 0);
	nm_nsreg_free(&r);
}

/* The real /proc: this process's own netns is found, under its own inode. */
static void test_real_proc(void **state)
{
	char text[64];
	struct nm_nsreg_delta d;
	struct nm_nsreg r;
	ssize_t n;

	(void)state;
	n = readlink("/proc/self/ns/net", text, sizeof(text) - 1);
	assert_true(n > 0);
	text[n] = '\0';
	assert_int_equal(nm_nsreg_init(&r, NULL, NULL, 4096), 0);
	assert_int_equal(nm_nsreg_scan(&r, &d, NULL, NULL), 0);
	assert_non_null(nm_nsreg_find(&r, nm_ns_link_ino(text)));
	nm_nsreg_free(&r);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_link_ino),
		cmocka_unit_test(test_proc_name),
		cmocka_unit_test_setup_teardown(test_scan_names, setup, teardown),
		cmocka_unit_test_setup_teardown(test_name_kept, setup, teardown),
		cmocka_unit_test_setup_teardown(test_run_name_wins, setup, teardown),
		cmocka_unit_test_setup_teardown(test_host_name, setup, teardown),
		cmocka_unit_test_setup_teardown(test_host_unreadable, setup, teardown),
		cmocka_unit_test_setup_teardown(test_gone, setup, teardown),
		cmocka_unit_test_setup_teardown(test_cap, setup, teardown),
		cmocka_unit_test(test_no_proc),
		cmocka_unit_test(test_real_proc),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
