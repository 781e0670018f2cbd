// SPDX-License-Identifier: GPL-2.0
/*
 * Unit tests for src/lib/plan.c: a sysctl's path from its name, building
 * a plan (dedup, fields that do not fit), the log lines, and the executor
 * against temp files (a temp dir stands in for /proc/sys, NETMEDIC_RUN_DIR
 * for /run/netmedic), undone through the journal.
 */
#include <errno.h>
#include <ftw.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>
#include <cmocka.h>

#include "lib/journal.h"
#include "lib/plan.h"
#include "lib/tcundo.h"

static void test_sysctl_path(void **state)
{
	char buf[256];

	(void)state;
	assert_int_equal(nm_sysctl_path(NULL, "net.ipv4.tcp_backlog_ack_defer", buf, sizeof(buf)), 0);
	assert_string_equal(buf, "/proc/sys/net/ipv4/tcp_backlog_ack_defer");
	assert_int_equal(nm_sysctl_path(NULL, "net.core.rps_sock_flow_entries", buf, sizeof(buf)), 0);
	assert_string_equal(buf, "/proc/sys/net/core/rps_sock_flow_entries");
	/* sysctl(8): a slash is a dot inside a component (a VLAN device) */
	assert_int_equal(nm_sysctl_path("/tmp/x", "net.ipv4.conf.eth0/100.rp_filter", buf, sizeof(buf)), 0);
	assert_string_equal(buf, "/tmp/x/net/ipv4/conf/eth0.100/rp_filter");
	assert_int_equal(nm_sysctl_path(NULL, "kernel", buf, sizeof(buf)), 0);
	assert_string_equal(buf, "/proc/sys/kernel");
	/* empty names and components, and escapes out of the root */
	assert_int_equal(nm_sysctl_path(NULL, "", buf, sizeof(buf)), -EINVAL);
	assert_int_equal(nm_sysctl_path(NULL, NULL, buf, sizeof(buf)), -EINVAL);
	assert_int_equal(nm_sysctl_path(NULL, "net..ipv4", buf, sizeof(buf)), -EINVAL);
	assert_int_equal(nm_sysctl_path(NULL, ".net", buf, sizeof(buf)), -EINVAL);
	assert_int_equal(nm_sysctl_path(NULL, "net.", buf, sizeof(buf)), -EINVAL);
	assert_int_equal(nm_sysctl_path(NULL, "net.//.x", buf, sizeof(buf)), -EINVAL);
	assert_int_equal(nm_sysctl_path(NULL, "net./.x", buf, sizeof(buf)), -EINVAL);
	/* a component ".x" is a name, not an escape */
	assert_int_equal(nm_sysctl_path(NULL, "net./x", buf, sizeof(buf)), 0);
	assert_string_equal(buf, "/proc/sys/net/.x");
	/* too long: said, never cut */
	assert_int_equal(nm_sysctl_path(NULL, "net.ipv4.tcp_autocorking", buf, 20), -ENAMETOOLONG);
	assert_int_equal(nm_sysctl_path("/a/very/long/root", "x", buf, 10), -ENAMETOOLONG);
}

static void test_build_and_dedup(void **state)
{
	const char *do_argv[] = { "ip", "route", "replace", "1.2.3.4", "dev", "x", NULL };
	const char *undo_argv[] = { "ip", "route", "replace", "1.2.3.4", "dev", "x", "quickack", "1", NULL };
	const char *tab[] = { "ip", "a\tb", NULL };
	struct nm_plan p = {};
	char big[700];

	(void)state;
	assert_int_equal(nm_plan_sysctl(&p, 1, 0, "fix", "net.ipv4.tcp_autocorking", "0", 7), 0);
	/* asked twice, planned once */
	assert_int_equal(nm_plan_sysctl(&p, 1, 0, "fix", "net.ipv4.tcp_autocorking", "0", 7), 1);
	/* the same sysctl from the initial netns is another change */
	assert_int_equal(nm_plan_sysctl(&p, 1, NM_ACT_INIT_NS, "fix", "net.ipv4.tcp_autocorking", "0", 0), 0);
	assert_int_equal(nm_plan_sysctl(&p, 1, 0, "fix", "net..x", "0", 7), -EINVAL);
	assert_int_equal(nm_plan_file(&p, 2, "fix rfs", "/sys/a", "a", "4096"), 0);
	assert_int_equal(nm_plan_file(&p, 2, "fix rfs", "/sys/a", "a", "4096"), 1);
	assert_int_equal(nm_plan_cmd(&p, 3, "fix routes", do_argv, undo_argv, "route", "without"), 0);
	assert_int_equal(nm_plan_cmd(&p, 3, "fix routes", do_argv, undo_argv, "route", "without"), 1);
	assert_int_equal(nm_plan_cmd(&p, 3, "fix routes", tab, undo_argv, "route", "without"), -EINVAL);
	assert_int_equal(nm_plan_cmd(&p, 3, "fix routes", (const char *[]){ NULL }, undo_argv, "r", "w"),
			 -EINVAL);
	assert_int_equal(nm_plan_note(&p, 4, "fix", "left as it is"), 0);
	assert_int_equal(nm_plan_note(&p, 4, "fix", "left as it is"), 1);
	assert_int_equal(nm_plan_note(&p, 4, "fix", "another %d", 2), 0);
	memset(big, 'x', sizeof(big) - 1);
	big[sizeof(big) - 1] = 0;
	assert_int_equal(nm_plan_file(&p, 2, "fix", big, "a", "1"), -ENAMETOOLONG);
	assert_int_equal(nm_plan_note(&p, 4, "fix", "%s", big), -ENAMETOOLONG);
	assert_int_equal(p.n, 6);
	assert_int_equal(p.a[0].kind, NM_ACT_SYSCTL);
	assert_string_equal(p.a[0].target, "net.ipv4.tcp_autocorking");
	assert_int_equal(p.a[3].kind, NM_ACT_CMD);
	assert_string_equal(p.a[3].target, "ip\troute\treplace\t1.2.3.4\tdev\tx");
	assert_string_equal(p.a[3].undo, "ip\troute\treplace\t1.2.3.4\tdev\tx\tquickack\t1");
	nm_plan_truncate(&p, 2);
	assert_int_equal(p.n, 2);
	nm_plan_truncate(&p, 5);
	assert_int_equal(p.n, 2);
	/* taken back, so planned again */
	assert_int_equal(nm_plan_note(&p, 4, "fix", "left as it is"), 0);
	nm_plan_free(&p);
	assert_null(p.a);
	assert_int_equal(p.n, 0);
}

static void test_lines(void **state)
{
	struct nm_action a = { .kind = NM_ACT_SYSCTL, .tag = "fix", .target = "net.ipv4.tcp_backlog_ack_defer",
			       .old = "0", .val = "1", .netns = 4026532180UL };
	char buf[256];

	(void)state;
	assert_int_equal(nm_action_line(&a, buf, sizeof(buf)), 0);
	assert_string_equal(buf, "fix: net.ipv4.tcp_backlog_ack_defer 0 -> 1 in netns 4026532180 (restored at exit)");
	a = (struct nm_action){ .kind = NM_ACT_SYSCTL, .flags = NM_ACT_INIT_NS, .tag = "fix rfs",
				.target = "net.core.rps_sock_flow_entries", .old = "0", .val = "32768" };
	nm_action_line(&a, buf, sizeof(buf));
	assert_string_equal(buf, "fix: net.core.rps_sock_flow_entries 0 -> 32768 (global; restored at exit)");
	a = (struct nm_action){ .kind = NM_ACT_FILE, .tag = "fix rfs", .target = "/sys/x",
				.what = "ts1 rx-0 rps_flow_cnt", .old = "0", .val = "4096" };
	nm_action_line(&a, buf, sizeof(buf));
	assert_string_equal(buf, "fix: ts1 rx-0 rps_flow_cnt 0 -> 4096 (restored at exit)");
	/* a command has no old value */
	a = (struct nm_action){ .kind = NM_ACT_CMD, .tag = "fix routes", .target = "ip\troute",
				.what = "route '1.2.3.4 dev x quickack 1 '", .val = "without quickack" };
	nm_action_line(&a, buf, sizeof(buf));
	assert_string_equal(buf, "fix: route '1.2.3.4 dev x quickack 1 ' -> without quickack (restored at exit)");
	a = (struct nm_action){ .kind = NM_ACT_NOTE, .tag = "fix rfs", .what = "nothing changed" };
	nm_action_line(&a, buf, sizeof(buf));
	assert_string_equal(buf, "fix rfs: nothing changed");
	assert_int_equal(nm_action_line(&a, buf, 8), -ENAMETOOLONG);
	/* a note without a tag is its line alone */
	a.tag = NULL;
	nm_action_line(&a, buf, sizeof(buf));
	assert_string_equal(buf, "nothing changed");
	/* the tool's own line, when it has one, whatever the kind */
	a = (struct nm_action){ .kind = NM_ACT_CMD, .tag = "lock", .target = "tc", .what = "q",
				.val = "pfifo", .line = "lock: eth0 tx-3: replaced" };
	nm_action_line(&a, buf, sizeof(buf));
	assert_string_equal(buf, "lock: eth0 tx-3: replaced");
	/* bare: the tool's prefix in what, no "(restored at exit)" */
	a = (struct nm_action){ .kind = NM_ACT_FILE, .flags = NM_ACT_BARE, .tag = "--pin eth0",
				.target = "/sys/x", .what = "pin: eth0 tx-1 xps_cpus", .old = "00000002",
				.val = "0" };
	nm_action_line(&a, buf, sizeof(buf));
	assert_string_equal(buf, "pin: eth0 tx-1 xps_cpus 00000002 -> 0");
}

static void test_call_and_line(void **state)
{
	const char *words[] = { "kick", "eth0", "3", NULL }, *undo[] = { "tc", "filter", "del", NULL };
	char big[700];
	struct nm_plan p = {};

	(void)state;
	/* nm_plan_line needs an action to set */
	assert_int_equal(nm_plan_line(&p, "x"), -EINVAL);
	assert_int_equal(nm_plan_call(&p, 1, NULL, words, NULL, "stuck", NULL, 0), 0);
	assert_int_equal(nm_plan_call(&p, 1, NULL, words, NULL, "stuck", NULL, 0), 1);
	/* another undo: another action */
	assert_int_equal(nm_plan_call(&p, 2, "pin", words, undo, "", NULL, 0), 0);
	assert_int_equal(p.n, 2);
	assert_int_equal(p.a[0].kind, NM_ACT_CALL);
	assert_string_equal(p.a[0].target, "kick	eth0	3");
	assert_string_equal(p.a[0].undo, "");
	assert_string_equal(p.a[0].val, "stuck");
	assert_string_equal(p.a[1].undo, "tc	filter	del");
	assert_int_equal(nm_plan_line(&p, "pin: %s", "eth0"), 0);
	assert_string_equal(p.a[1].line, "pin: eth0");
	assert_string_equal(p.a[0].line, "");
	memset(big, 'x', sizeof(big) - 1);
	big[sizeof(big) - 1] = 0;
	/* too long: said, and no line cut */
	assert_int_equal(nm_plan_line(&p, "%s", big), -ENAMETOOLONG);
	assert_string_equal(p.a[1].line, "");
	assert_int_equal(nm_plan_call(&p, 1, NULL, (const char *[]){ NULL }, NULL, "", NULL, 0), -EINVAL);
	/* a word with a tab would split */
	assert_int_equal(nm_plan_call(&p, 1, NULL, (const char *[]){ "a\tb", NULL }, NULL, "", NULL, 0), -EINVAL);
	assert_int_equal(nm_plan_call(&p, 1, NULL, words, (const char *[]){ "x\ty", NULL }, "", NULL, 0), -EINVAL);
	assert_int_equal(p.n, 2);
	/* what the call acts on: the tool's struct, copied; more than data holds is refused */
	struct { unsigned int ifindex, queue; } q = { 3, 7 }, back;
	assert_int_equal(nm_plan_call(&p, 3, NULL, (const char *[]){ "kick", "eth1", NULL }, NULL, "",
				      &q, sizeof(q)), 0);
	memcpy(&back, p.a[2].data, sizeof(back));
	assert_int_equal(back.ifindex, 3);
	assert_int_equal(back.queue, 7);
	assert_int_equal(nm_plan_call(&p, 4, NULL, words, NULL, "", big, NM_ACT_DATA + 1), -E2BIG);
	assert_int_equal(p.n, 3);
	nm_plan_free(&p);
}

/* A tc BPF program's two actions: the clsact qdisc, then the filter, each with its undo record. */
static void test_tc_bpf(void **state)
{
	struct nm_tc_target t;
	struct nm_plan p = {};

	(void)state;
	assert_int_equal(nm_plan_tc_bpf(&p, 3, "--pin eth0", "eth0", 7, false, 49374, 0x5f, 9), 0);
	assert_int_equal(p.n, 2);
	assert_int_equal(p.a[0].kind, NM_ACT_TC_CLSACT);
	assert_int_equal(p.a[1].kind, NM_ACT_TC_FILTER);
	for (int i = 0; i < 2; i++) {
		assert_int_equal(p.a[i].remedy, 3);
		assert_true(p.a[i].flags & NM_ACT_REQUIRED);
		assert_string_equal(p.a[i].tag, "--pin eth0");
	}
	assert_string_equal(p.a[0].target, "clsact\teth0\t7");
	assert_string_equal(p.a[0].undo, "tc_clsact\teth0\t7");
	assert_string_equal(p.a[1].target, "filter\teth0\t7\tegress\t49374\t0x5f");
	assert_string_equal(p.a[1].undo, "tc_filter\teth0\t7\tegress\t49374\t0x5f");
	/* typed: what the executor makes, with no words parsed back */
	assert_string_equal(p.a[0].tc.dev, "eth0");
	assert_int_equal(p.a[0].tc.ifindex, 7);
	assert_int_equal(p.a[0].tc.prog_fd, -1);
	assert_string_equal(p.a[1].tc.dev, "eth0");
	assert_int_equal(p.a[1].tc.ifindex, 7);
	assert_false(p.a[1].tc.ingress);
	assert_int_equal(p.a[1].tc.pref, 49374);
	assert_int_equal(p.a[1].tc.handle, 0x5f);
	assert_int_equal(p.a[1].tc.prog_fd, 9);
	/* the words, as a journal record holds them, read back to the same (no fd: a record has none) */
	assert_int_equal(nm_tc_target(&p.a[0], &t), 0);
	assert_string_equal(t.dev, "eth0");
	assert_int_equal(t.ifindex, 7);
	assert_int_equal(t.prog_fd, -1);
	assert_int_equal(nm_tc_target(&p.a[1], &t), 0);
	assert_false(t.ingress);
	assert_int_equal(t.pref, 49374);
	assert_int_equal(t.handle, 0x5f);
	assert_int_equal(t.prog_fd, -1);
	/* asked twice: planned once */
	assert_int_equal(nm_plan_tc_bpf(&p, 3, "--pin eth0", "eth0", 7, false, 49374, 0x5f, 9), 1);
	assert_int_equal(p.n, 2);
	/* ingress: the same qdisc (not planned again), another filter */
	assert_int_equal(nm_plan_tc_bpf(&p, 3, "x", "eth0", 7, true, 1, 0xffffffffu, 4), 0);
	assert_int_equal(p.n, 3);
	assert_true(p.a[2].tc.ingress);
	assert_int_equal(p.a[2].tc.handle, 0xffffffffu);
	assert_int_equal(p.a[2].tc.prog_fd, 4);
	assert_int_equal(nm_tc_target(&p.a[2], &t), 0);
	assert_true(t.ingress);
	assert_int_equal(t.handle, 0xffffffffu);
	assert_string_equal(p.a[2].undo, "tc_filter\teth0\t7\tingress\t1\t0xffffffff");
	/* no program, no filter; a name with a tab would split the words */
	assert_int_equal(nm_plan_tc_bpf(&p, 3, "x", "eth1", 8, false, 1, 1, -1), -EBADF);
	assert_int_equal(nm_plan_tc_bpf(&p, 3, "x", "a\tb", 8, false, 1, 1, 4), -EINVAL);
	assert_int_equal(p.n, 3);
	nm_plan_free(&p);
}

/* nm_tc_target refuses what nm_plan_tc_bpf would not write. */
static void test_tc_target_bad(void **state)
{
	static const char *const bad_filters[] = {
		"filter\teth0\t7\tegress\t1",		/* a word short */
		"filter\teth0\t7\tegress\t1\t0x5f\tx",	/* one too many */
		"filter\teth0\t7\tsideways\t1\t0x5f",	/* no such direction */
		"filter\teth0\t7\tegress\tx\t0x5f",	/* pref */
		"filter\teth0\t7\tegress\t1\t5f",		/* handle without 0x */
		"filter\teth0\t7\tegress\t1\t0x",
		"filter\teth0\t7\tegress\t1\t0x5g",
		"filter\teth0\t7\tegress\t1\t0x100000000",
		"filter\teth0\t0\tegress\t1\t0x5f",	/* ifindex 0 */
		"clsact\teth0\t7\tegress\t1\t0x5f",	/* not a filter's word */
	};
	struct nm_action a = { .kind = NM_ACT_TC_FILTER };
	struct nm_tc_target t;

	(void)state;
	for (size_t i = 0; i < sizeof(bad_filters) / sizeof(*bad_filters); i++) {
		snprintf(a.target, sizeof(a.target), "%s", bad_filters[i]);
		if (nm_tc_target(&a, &t) != -EINVAL)
			fail_msg("accepted: %s", bad_filters[i]);
	}
	a.kind = NM_ACT_TC_CLSACT;
	snprintf(a.target, sizeof(a.target), "clsact\teth0");
	assert_int_equal(nm_tc_target(&a, &t), -EINVAL);
	snprintf(a.target, sizeof(a.target), "filter\teth0\t7");
	assert_int_equal(nm_tc_target(&a, &t), -EINVAL);
	snprintf(a.target, sizeof(a.target), "clsact\teth0\t7");
	assert_int_equal(nm_tc_target(&a, &t), 0);
	/* another kind's words are not a tc action */
	a.kind = NM_ACT_CALL;
	assert_int_equal(nm_tc_target(&a, &t), -EINVAL);
}

static void test_argv(void **state)
{
	char words[] = "ip\troute\treplace\t1.2.3.4";
	const char *argv[8];

	(void)state;
	assert_int_equal(nm_plan_argv(words, argv, 8), 4);
	assert_string_equal(argv[0], "ip");
	assert_string_equal(argv[3], "1.2.3.4");
	/* bounded: max - 1 words and the NULL */
	char w2[] = "a\tb\tc\td\te";
	assert_int_equal(nm_plan_argv(w2, argv, 4), 3);
	assert_null(argv[3]);
}

/* ---- the executor ---- */

struct fixture {
	char dir[64];		/* the temp dir: sysctl root, files, run dir */
	char run[128];
	char log[160];
};

static int rm_entry(const char *path, const struct stat *st, int flag, struct FTW *ftw)
{
	(void)st;
	(void)flag;
	(void)ftw;
	return remove(path);
}

static int setup(void **state)
{
	struct fixture *fx = calloc(1, sizeof(*fx));

	if (!fx)
		return -1;
	snprintf(fx->dir, sizeof(fx->dir), "/tmp/nm-plan-test.XXXXXX");
	if (!mkdtemp(fx->dir))
		return -1;
	snprintf(fx->run, sizeof(fx->run), "%s/run", fx->dir);
	snprintf(fx->log, sizeof(fx->log), "%s/log", fx->dir);
	setenv(NM_JOURNAL_DIR_ENV, fx->run, 1);
	if (nm_journal_allow_cmd("sh"))
		return -1;
	*state = fx;
	return 0;
}

static int teardown(void **state)
{
	struct fixture *fx = *state;

	nftw(fx->dir, rm_entry, 16, FTW_DEPTH | FTW_PHYS);
	unsetenv(NM_JOURNAL_DIR_ENV);
	free(fx);
	return 0;
}

static void put(const char *path, const char *s)
{
	FILE *f = fopen(path, "w");

	assert_non_null(f);
	fputs(s, f);
	assert_int_equal(fclose(f), 0);
}

static char *get(const char *path)
{
	static char buf[8192];
	FILE *f = fopen(path, "r");
	size_t n;

	if (!f)
		return NULL;
	n = fread(buf, 1, sizeof(buf) - 1, f);
	buf[n] = 0;
	fclose(f);
	return buf;
}

static void test_exec_and_undo(void **state)
{
	struct fixture *fx = *state;
	char sysctl[256], file[256], flag[256], cmd[512], undo[512], err[256], *log;
	const char *do_argv[] = { "sh", "-c", cmd, NULL }, *undo_argv[] = { "sh", "-c", undo, NULL };
	struct nm_exec x = { .tool = "nmtest", .home_fd = -1, .sysctl_root = fx->dir };
	struct nm_plan p = {};

	snprintf(sysctl, sizeof(sysctl), "%s/net", fx->dir);
	assert_int_equal(mkdir(sysctl, 0700), 0);
	snprintf(sysctl, sizeof(sysctl), "%s/net/ipv4", fx->dir);
	assert_int_equal(mkdir(sysctl, 0700), 0);
	snprintf(sysctl, sizeof(sysctl), "%s/net/ipv4/tcp_autocorking", fx->dir);
	put(sysctl, "1\n");
	snprintf(file, sizeof(file), "%s/rps_flow_cnt", fx->dir);
	put(file, "0\n");
	snprintf(flag, sizeof(flag), "%s/route", fx->dir);
	put(flag, "quickack\n");
	snprintf(cmd, sizeof(cmd), "echo plain > %s", flag);
	snprintf(undo, sizeof(undo), "echo quickack > %s", flag);

	x.log = fopen(fx->log, "w");
	assert_non_null(x.log);
	assert_int_equal(nm_journal_open(&x.j, "nmtest", "1", NULL, err, sizeof(err)), 0);
	nm_plan_note(&p, 1, "fix", "the route has quickack 1");
	nm_plan_sysctl(&p, 2, 0, "fix", "net.ipv4.tcp_autocorking", "0", 42);
	nm_plan_file(&p, 3, "fix rfs", file, "ts1 rx-0 rps_flow_cnt", "4096");
	nm_plan_cmd(&p, 4, "fix routes", do_argv, undo_argv, "route 'x'", "without quickack");
	assert_int_equal(nm_exec_plan(&x, &p), 0);
	for (size_t i = 0; i < p.n; i++)
		assert_int_equal(p.a[i].err, 0);
	/* the old values, as the journal read them */
	assert_string_equal(p.a[1].old, "1");
	assert_string_equal(p.a[2].old, "0");
	assert_string_equal(get(sysctl), "0");
	assert_string_equal(get(file), "4096");
	assert_string_equal(get(flag), "plain\n");
	assert_int_equal(nm_journal_count(x.j), 3);

	assert_int_equal(nm_exec_undo(&x), 0);
	assert_null(x.j);
	assert_string_equal(get(sysctl), "1\n");
	assert_string_equal(get(file), "0\n");
	assert_string_equal(get(flag), "quickack\n");
	fclose(x.log);
	log = get(fx->log);
	assert_non_null(strstr(log, "nmtest: fix: the route has quickack 1\n"
				    "nmtest: fix: net.ipv4.tcp_autocorking 1 -> 0 in netns 42 (restored at exit)\n"
				    "nmtest: fix: ts1 rx-0 rps_flow_cnt 0 -> 4096 (restored at exit)\n"
				    "nmtest: fix: route 'x' -> without quickack (restored at exit)\n"
				    "nmtest: fix: restoring\n"));
	assert_non_null(strstr(log, "restored "));
	assert_null(strstr(log, "error"));
	nm_plan_free(&p);
}

/*
 * A failed action is said with its tag and not logged as made; a required
 * one stops its remedy's later actions, not another remedy's.
 */
static void test_exec_failures(void **state)
{
	struct fixture *fx = *state;
	char file[256], q0[256], missing[256], err[256], *log;
	struct nm_exec x = { .tool = "nmtest", .home_fd = -1, .sysctl_root = fx->dir,
			     .global_key = "global" };
	struct nm_plan p = {};

	snprintf(file, sizeof(file), "%s/ok", fx->dir);
	put(file, "5\n");
	snprintf(q0, sizeof(q0), "%s/q0", fx->dir);
	put(q0, "0\n");
	snprintf(missing, sizeof(missing), "%s/no/such/file", fx->dir);
	x.log = fopen(fx->log, "w");
	assert_non_null(x.log);
	assert_int_equal(nm_journal_open(&x.j, "nmtest", "2", NULL, err, sizeof(err)), 0);
	/* no /net/ipv4 under the root: the sysctl is absent */
	nm_plan_sysctl(&p, 1, 0, "fix", "net.ipv4.tcp_backlog_ack_defer", "1", 42);
	/* the initial netns cannot be entered (no home_fd): its remedy stops there */
	nm_plan_sysctl(&p, 2, NM_ACT_INIT_NS | NM_ACT_REQUIRED, "fix rfs", "net.core.rps_sock_flow_entries",
		       "32768", 0);
	nm_plan_file(&p, 2, "fix rfs", q0, "q0", "4096");
	nm_plan_file(&p, 3, "fix", file, "other", "7");
	/* a file that is not there, not required: the next one of its remedy is made */
	nm_plan_file(&p, 4, "fix rfs", missing, "q1", "4096");
	nm_plan_note(&p, 4, "fix", "after");
	assert_int_equal(nm_exec_plan(&x, &p), 3);
	assert_true(p.a[0].err < 0);
	assert_true(p.a[1].err < 0);
	assert_int_equal(p.a[2].err, -ECANCELED);
	assert_int_equal(p.a[3].err, 0);
	assert_true(p.a[4].err < 0);
	assert_int_equal(p.a[5].err, 0);
	assert_string_equal(get(file), "7");
	assert_string_equal(get(q0), "0\n");
	assert_null(x.global);
	/* only what was made is journaled */
	assert_int_equal(nm_journal_count(x.j), 1);
	assert_int_equal(nm_exec_undo(&x), 0);
	assert_string_equal(get(file), "5\n");
	fclose(x.log);
	log = get(fx->log);
	assert_non_null(strstr(log, "nmtest: error: fix: "));
	assert_non_null(strstr(log, "nmtest: error: fix rfs: cannot enter the initial netns: "));
	assert_null(strstr(log, "q0"));
	assert_non_null(strstr(log, "nmtest: fix: other 5 -> 7 (restored at exit)\n"));
	assert_non_null(strstr(log, "nmtest: fix: after\n"));
	assert_null(strstr(log, "tcp_backlog_ack_defer 0 -> 1"));
	/* without a journal nothing is made */
	x = (struct nm_exec){ .tool = "nmtest", .home_fd = -1, .log = stderr };
	nm_plan_truncate(&p, 0);
	nm_plan_file(&p, 3, "fix", file, "other", "8");
	assert_int_equal(nm_exec_plan(&x, &p), 1);
	assert_int_equal(p.a[0].err, -EBADF);
	assert_string_equal(get(file), "5\n");
	assert_int_equal(nm_exec_undo(&x), 0);
	nm_plan_free(&p);
}

/* What the calls of test_exec_calls saw and do: a callback, as a tool's. */
struct calls {
	int made, opened;
	char flag[256];		/* a call with an undo writes "pinned" here */
	char key[32];		/* the journal opened at the first journaled action */
};

static int call_fn(struct nm_exec *x, struct nm_action *a, char *err, size_t len)
{
	struct calls *c = x->arg;
	FILE *f;

	c->made++;
	if (!strcmp(a->val, "miss")) {
		snprintf(a->line, sizeof(a->line), "kick: %s: no frame reached it", a->target);
		return -EAGAIN;
	}
	if (!strcmp(a->val, "fail")) {
		snprintf(err, len, "kick %s: No such device", a->target);
		return -ENODEV;
	}
	if (*a->undo) {
		f = fopen(c->flag, "w");
		if (!f)
			return -errno;
		fputs("pinned\n", f);
		fclose(f);
		if (!strcmp(a->val, "half"))
			return -EIO;	/* err left empty: said by the call */
	}
	if (!strcmp(a->val, "there"))
		return 1;	/* found made already: nothing to undo */
	snprintf(a->line, sizeof(a->line), "kick: %s: reached", a->target);
	return 0;
}

static int open_fn(struct nm_exec *x, const struct nm_action *a, char *err, size_t len)
{
	struct calls *c = x->arg;

	(void)a;
	c->opened++;
	return nm_journal_open(&x->j, "nmtest", c->key, NULL, err, len);
}

/*
 * Calls: without an undo, made and logged but never journaled (no journal
 * opened for them); with one, journaled first (the journal opened at the
 * first), taken back when the call fails; their lines, made or not, and
 * the tool's undo lines.
 */
static void test_exec_calls(void **state)
{
	struct fixture *fx = *state;
	struct calls c = { .key = "4" };
	char cmd[512], *log;
	const char *undo[] = { "sh", "-c", cmd, NULL };
	struct nm_exec x = { .tool = "nmtest", .home_fd = -1, .call = call_fn, .open = open_fn, .arg = &c,
			     .restoring = "pin: restoring", .unrestored = "" };
	struct nm_plan p = {};

	snprintf(c.flag, sizeof(c.flag), "%s/flag", fx->dir);
	put(c.flag, "free\n");
	snprintf(cmd, sizeof(cmd), "echo free > %s", c.flag);
	x.log = fopen(fx->log, "w");
	assert_non_null(x.log);
	nm_plan_call(&p, 1, NULL, (const char *[]){ "q0", NULL }, NULL, "ok", NULL, 0);
	nm_plan_call(&p, 1, NULL, (const char *[]){ "q1", NULL }, NULL, "miss", NULL, 0);
	nm_plan_call(&p, 1, NULL, (const char *[]){ "q2", NULL }, NULL, "fail", NULL, 0);
	nm_plan_call(&p, 1, "lock", (const char *[]){ "q3", NULL }, NULL, "fail", NULL, 0);
	assert_int_equal(nm_exec_plan(&x, &p), 3);
	assert_int_equal(c.made, 4);
	assert_int_equal(p.a[0].err, 0);
	assert_int_equal(p.a[1].err, -EAGAIN);
	assert_int_equal(p.a[2].err, -ENODEV);
	/* nothing to undo: no journal */
	assert_int_equal(c.opened, 0);
	assert_null(x.j);

	nm_plan_truncate(&p, 0);
	nm_plan_call(&p, 2, "pin", (const char *[]){ "p0", NULL }, undo, "half", NULL, 0);
	nm_plan_call(&p, 2, "pin", (const char *[]){ "p1", NULL }, undo, "ok", NULL, 0);
	nm_plan_call(&p, 2, "pin", (const char *[]){ "p2", NULL }, undo, "there", NULL, 0);
	assert_int_equal(nm_exec_plan(&x, &p), 1);
	/* nothing to make is not a failure, and leaves no record */
	assert_int_equal(p.a[2].err, 0);
	assert_int_equal(c.opened, 1);
	assert_non_null(x.j);
	/* the failed call's record was taken back: one undo, the made one's */
	assert_int_equal(nm_journal_count(x.j), 1);
	assert_string_equal(get(c.flag), "pinned\n");
	assert_int_equal(nm_exec_undo(&x), 0);
	assert_null(x.j);
	assert_string_equal(get(c.flag), "free\n");
	fclose(x.log);
	log = get(fx->log);
	assert_non_null(strstr(log, "nmtest: kick: q0: reached\n"
				    "nmtest: kick: q1: no frame reached it\n"
				    "nmtest: error: kick q2: No such device\n"
				    "nmtest: error: lock: kick q3: No such device\n"
				    "nmtest: kick: p1: reached\n"
				    "nmtest: pin: restoring\n"));
	assert_null(strstr(log, "p2"));
	nm_plan_free(&p);
}

/* What the executor's tc maker saw: a stand-in for libbpf's, as x->tc. */
struct tcs {
	int clsact, filter;
	int clsact_ret, filter_ret;
	int prog_fd;
	size_t records;		/* the journal's records when the filter was made */
};

static int tc_fn(struct nm_exec *x, struct nm_action *a, char *err, size_t len)
{
	struct tcs *c = x->arg;
	const struct nm_tc_target t = a->tc;

	assert_true(t.ifindex > 0);
	if (a->kind == NM_ACT_TC_CLSACT) {
		c->clsact++;
		return c->clsact_ret;
	}
	c->filter++;
	c->prog_fd = t.prog_fd;
	c->records = nm_journal_count(x->j);
	if (c->filter_ret < 0)
		snprintf(err, len, "tc egress filter: %s", strerror(-c->filter_ret));
	return c->filter_ret;
}

/*
 * tc actions: each undo journaled before the change; a clsact found there
 * leaves no record; a filter that fails takes its record back and stops
 * its remedy (required), and the filter's line is said once it is made.
 */
static void test_exec_tc(void **state)
{
	struct fixture *fx = *state;
	struct tcs c = { .clsact_ret = 0 };
	char err[256], *log;
	struct nm_exec x = { .tool = "nmtest", .home_fd = -1, .tc = tc_fn, .arg = &c };
	struct nm_journal_mark empty;
	struct nm_plan p = {};

	x.log = fopen(fx->log, "w");
	assert_non_null(x.log);
	assert_int_equal(nm_journal_open(&x.j, "nmtest", "6", NULL, err, sizeof(err)), 0);
	nm_journal_mark(x.j, &empty);
	nm_plan_tc_bpf(&p, 1, "--pin eth0", "eth0", 7, false, 49374, 0x5f, 11);
	nm_plan_line(&p, "pin: eth0: filtered");
	assert_int_equal(nm_exec_plan(&x, &p), 0);
	assert_int_equal(c.clsact, 1);
	assert_int_equal(c.filter, 1);
	assert_int_equal(c.prog_fd, 11);
	/* the filter's undo was in the journal before the filter was made */
	assert_int_equal(c.records, 2);
	assert_int_equal(nm_journal_count(x.j), 2);
	/* as records of the tc kinds, which look before they delete (tcundo.c) */
	snprintf(err, sizeof(err), "%s/nmtest-6.journal", fx->run);
	log = get(err);
	assert_non_null(log);
	assert_non_null(strstr(log, "\ntc_clsact\teth0\t7\ntc_filter\teth0\t7\tegress\t49374\t0x5f\n"));

	/* a clsact there already: not deleted again; the filter fails: no record, its remedy stops */
	nm_plan_free(&p);
	p = (struct nm_plan){};
	c = (struct tcs){ .clsact_ret = 1, .filter_ret = -EPERM };
	nm_plan_tc_bpf(&p, 2, "--pin eth1", "eth1", 8, false, 49374, 0x5f, 12);
	nm_plan_note(&p, 2, "pin", "after the filter");
	assert_int_equal(nm_exec_plan(&x, &p), 1);
	assert_int_equal(p.a[0].err, 0);
	assert_int_equal(p.a[1].err, -EPERM);
	assert_int_equal(p.a[2].err, -ECANCELED);
	assert_int_equal(c.records, 3);
	assert_int_equal(nm_journal_count(x.j), 2);
	fclose(x.log);
	x.log = NULL;
	log = get(fx->log);
	assert_non_null(strstr(log, "nmtest: pin: eth0: filtered\n"
				    "nmtest: error: --pin eth1: tc egress filter: Operation not permitted\n"));
	assert_null(strstr(log, "after the filter"));
	/* the records are the first plan's: dropped, never run (their tc would act on this host) */
	assert_int_equal(nm_journal_rewind(x.j, &empty), 0);
	assert_int_equal(nm_journal_count(x.j), 0);
	assert_int_equal(nm_journal_undo(x.j, NULL), 0);
	x.j = NULL;
	nm_plan_free(&p);
}

/* The undo of a tc record deletes only what is there; what is gone is restored already. */
static void test_tc_undo_step(void **state)
{
	(void)state;
	for (int filter = 0; filter < 2; filter++) {
		for (int busy = 0; busy < 2; busy++) {
			assert_int_equal(nm_tc_undo_step(filter, false, true, true, busy), NM_TC_UNDO_DEV_GONE);
			assert_int_equal(nm_tc_undo_step(filter, false, false, false, busy), NM_TC_UNDO_DEV_GONE);
			assert_int_equal(nm_tc_undo_step(filter, true, false, false, busy), NM_TC_UNDO_NO_CLSACT);
			assert_int_equal(nm_tc_undo_step(filter, true, false, true, busy), NM_TC_UNDO_NO_CLSACT);
		}
	}
	/* a filter: deleted when there, whatever else the clsact holds */
	assert_int_equal(nm_tc_undo_step(true, true, true, true, false), NM_TC_UNDO_DELETE);
	assert_int_equal(nm_tc_undo_step(true, true, true, true, true), NM_TC_UNDO_DELETE);
	assert_int_equal(nm_tc_undo_step(true, true, true, false, false), NM_TC_UNDO_NO_FILTER);
	/* the clsact: deleted when empty, left when it holds another's filters */
	assert_int_equal(nm_tc_undo_step(false, true, true, false, false), NM_TC_UNDO_DELETE);
	assert_int_equal(nm_tc_undo_step(false, true, true, false, true), NM_TC_UNDO_IN_USE);
}

/* A journal of one tc record of kind and fields, undone: its status; the log's text in *log. */
static int undo_record(struct fixture *fx, const char *key, const char *kind, const char *const *fields,
		       char **log)
{
	struct nm_journal *j = NULL;
	char err[256];
	FILE *f;
	int ret;

	assert_int_equal(nm_journal_open(&j, "nmtest", key, NULL, err, sizeof(err)), 0);
	assert_int_equal(nm_journal_add(j, kind, fields, err, sizeof(err)), 0);
	f = fopen(fx->log, "w");
	assert_non_null(f);
	ret = nm_journal_undo(j, f);
	fclose(f);
	*log = get(fx->log);
	return ret;
}

/*
 * A crash between a tc record and its change (the soak's kill -9) leaves a
 * record of a change never made: its undo, on a device not there, says so
 * and succeeds, and a record that does not parse fails and is kept.
 */
static void test_tc_undo_gone(void **state)
{
	struct fixture *fx = *state;
	const char *clsact[] = { "nm-gone0", "4000000", NULL };
	const char *filter[] = { "nm-gone0", "4000000", "egress", "49374", "0x5f", NULL };
	const char *bad[] = { "nm-gone0", "x", NULL };
	char path[256], *log;

	assert_int_equal(nm_tc_undo_register(), 0);
	assert_int_equal(undo_record(fx, "7", NM_TC_FILTER_KIND, filter, &log), 0);
	assert_non_null(strstr(log, "tc egress filter pref 49374 handle 0x5f of nm-gone0: gone with its device"));
	assert_int_equal(undo_record(fx, "8", NM_TC_CLSACT_KIND, clsact, &log), 0);
	assert_non_null(strstr(log, "the clsact qdisc of nm-gone0: gone with its device"));
	assert_int_not_equal(undo_record(fx, "9", NM_TC_CLSACT_KIND, bad, &log), 0);
	assert_non_null(strstr(log, "not a tc_clsact record"));
	/* kept for --cleanup */
	snprintf(path, sizeof(path), "%s/nmtest-9.journal", fx->run);
	assert_int_equal(access(path, F_OK), 0);
}

/* The tool's undo lines: none when it says "", and no journal opened when the open fails. */
static void test_exec_open_fails(void **state)
{
	struct fixture *fx = *state;
	struct calls c = { .key = "5" };
	struct nm_journal *held = NULL;
	char err[256], *log;
	struct nm_exec x = { .tool = "nmtest", .home_fd = -1, .call = call_fn, .open = open_fn, .arg = &c };
	struct nm_plan p = {};

	snprintf(c.flag, sizeof(c.flag), "%s/flag", fx->dir);
	put(c.flag, "free\n");
	/* another instance holds the journal */
	assert_int_equal(nm_journal_open(&held, "nmtest", "5", NULL, err, sizeof(err)), 0);
	x.log = fopen(fx->log, "w");
	assert_non_null(x.log);
	nm_plan_call(&p, 2, "pin", (const char *[]){ "p0", NULL }, (const char *[]){ "true", NULL }, "ok", NULL, 0);
	assert_int_equal(nm_exec_plan(&x, &p), 1);
	assert_int_equal(p.a[0].err, -EBUSY);
	assert_int_equal(c.opened, 1);
	assert_int_equal(c.made, 0);
	assert_null(x.j);
	assert_string_equal(get(c.flag), "free\n");
	assert_int_equal(nm_exec_undo(&x), 0);
	fclose(x.log);
	log = get(fx->log);
	assert_non_null(strstr(log, "nmtest: error: pin: another nmtest instance"));
	assert_null(strstr(log, "restoring"));
	assert_int_equal(nm_journal_undo(held, NULL), 0);
	nm_plan_free(&p);
}

/* Killed after a plan's change: --cleanup finds the journal it made, and undoes it. */
static void test_exec_then_cleanup(void **state)
{
	struct fixture *fx = *state;
	char file[256], err[256];
	struct nm_exec x = { .tool = "nmtest", .home_fd = -1, .log = stderr };
	struct nm_plan p = {};
	FILE *log = fopen("/dev/null", "w");
	pid_t pid;
	int status;

	assert_non_null(log);
	x.log = log;
	snprintf(file, sizeof(file), "%s/f", fx->dir);
	put(file, "old\n");
	nm_plan_file(&p, 1, "fix", file, "f", "new");
	pid = fork();
	assert_true(pid >= 0);
	if (!pid) {
		if (nm_journal_open(&x.j, "nmtest", "3", NULL, err, sizeof(err)) || nm_exec_plan(&x, &p))
			_exit(1);
		_exit(0);	/* no undo: a crash */
	}
	assert_int_equal(waitpid(pid, &status, 0), pid);
	assert_true(WIFEXITED(status) && WEXITSTATUS(status) == 0);
	assert_string_equal(get(file), "new");
	assert_int_equal(nm_journal_cleanup("nmtest", log), 1);
	assert_string_equal(get(file), "old\n");
	fclose(log);
	nm_plan_free(&p);
}

/* What the batches of test_exec_batch saw, and what they return. */
struct batches {
	int calls, undone;
	size_t n;		/* the last batch's actions */
	int journaled;		/* the journal's records when it was called */
	int ret;
};

/* As tcpstall's kick pass: data[0] says each one's outcome (o: made, f: failed, s: nothing to do). */
static int batch_fn(struct nm_exec *x, struct nm_action *a, size_t n, char *err, size_t len)
{
	struct batches *b = x->arg;

	b->calls++;
	b->n = n;
	b->journaled = nm_journal_count(x->j);
	for (size_t i = 0; i < n; i++) {
		a[i].err = a[i].data[0] == 'f' ? -EPERM : 0;
		if (a[i].data[0] == 'o')
			snprintf(a[i].line, sizeof(a[i].line), "kick: %s: pushed", a[i].target);
		else if (a[i].data[0] == 'f')
			snprintf(a[i].line, sizeof(a[i].line), "fix kick: %s: failed", a[i].target);
	}
	if (b->ret < 0)
		snprintf(err, len, "the kick iterator: %s", strerror(-b->ret));
	return b->ret;
}

/* The undo of an "nmrec" record: counted. */
static int rec_undo(const char *const *f, int nf, char *msg, size_t len, void *arg)
{
	struct batches *b = arg;

	(void)nf;
	b->undone++;
	snprintf(msg, len, "undid %s", f[0]);
	return 0;
}

static void records(struct nm_plan *p, unsigned int remedy, const char *kind, const char *outcomes)
{
	char name[8];

	for (const char *o = outcomes; *o; o++) {
		snprintf(name, sizeof(name), "r%u%d", remedy, (int)(o - outcomes));
		assert_int_equal(nm_plan_record(p, remedy, "fix kick", kind, (const char *[]){ name, "x", NULL },
						"kicked", o, 1), 0);
	}
}

/*
 * Records: a run of one remedy is one batch, its records journaled before
 * it is called, dropped after unless it keeps them (a change left, or the
 * batch failed as a whole); its lines, as errors for the failed; a record
 * that cannot be written stops the run there, and nothing is made.
 */
static void test_exec_batch(void **state)
{
	struct fixture *fx = *state;
	struct batches b = {};
	char err[256], file[256], *log;
	struct nm_exec x = { .tool = "nmtest", .home_fd = -1, .batch = batch_fn, .arg = &b };
	struct nm_plan p = {};

	/* the tool's datum fits, or the record is not planned */
	assert_int_equal(nm_plan_record(&p, 1, "fix kick", "nmrec", (const char *[]){ "r", NULL }, "kicked",
					(char[NM_ACT_DATA + 1]){ 0 }, NM_ACT_DATA + 1), -ENAMETOOLONG);
	assert_int_equal(p.n, 0);
	assert_int_equal(nm_journal_exec("nmrec", rec_undo, &b), 0);
	snprintf(file, sizeof(file), "%s/f", fx->dir);
	put(file, "old\n");
	x.log = fopen(fx->log, "w");
	assert_non_null(x.log);
	assert_int_equal(nm_journal_open(&x.j, "nmtest", "6", NULL, err, sizeof(err)), 0);

	/* two remedies' runs, then a file: two batches, the records dropped, the file's kept */
	records(&p, 1, "nmrec", "ofs");
	records(&p, 2, "nmrec", "o");
	nm_plan_file(&p, 3, "fix", file, "f", "new");
	assert_int_equal(nm_exec_plan(&x, &p), 1);
	assert_int_equal(b.calls, 2);
	assert_int_equal(b.n, 1);
	assert_int_equal(p.a[0].err, 0);
	assert_int_equal(p.a[1].err, -EPERM);
	assert_int_equal(p.a[2].err, 0);
	assert_int_equal(p.a[4].err, 0);
	assert_string_equal(get(file), "new");
	assert_int_equal(nm_journal_count(x.j), 1);

	/* the first batch saw its three records on disk before it was called */
	nm_plan_truncate(&p, 0);
	b = (struct batches){ .ret = 1 };
	records(&p, 1, "nmrec", "oo");
	assert_int_equal(nm_exec_plan(&x, &p), 0);
	assert_int_equal(b.journaled, 1 + 2);
	/* kept: undone at exit */
	assert_int_equal(nm_journal_count(x.j), 3);

	/* failed as a whole: said first, its records kept */
	nm_plan_truncate(&p, 0);
	b.ret = -EIO;
	records(&p, 1, "nmrec", "f");
	assert_int_equal(nm_exec_plan(&x, &p), 1);
	assert_int_equal(nm_journal_count(x.j), 4);

	/* a record that cannot be written: not made, and neither is the rest of its run */
	nm_plan_truncate(&p, 0);
	b.calls = 0;
	records(&p, 1, "BAD", "oo");
	assert_int_equal(nm_exec_plan(&x, &p), 2);
	assert_int_equal(b.calls, 0);
	assert_int_equal(p.a[0].err, -EIO);
	assert_int_equal(p.a[1].err, -ECANCELED);
	assert_int_equal(nm_journal_count(x.j), 4);

	b.undone = 0;
	assert_int_equal(nm_exec_undo(&x), 0);
	assert_int_equal(b.undone, 3);
	assert_string_equal(get(file), "old\n");
	fclose(x.log);
	log = get(fx->log);
	assert_non_null(strstr(log, "nmtest: kick: r10\tx: pushed\n"
				    "nmtest: error: fix kick: r11\tx: failed\n"
				    "nmtest: kick: r20\tx: pushed\n"
				    "nmtest: fix: f old -> new (restored at exit)\n"));
	assert_null(strstr(log, "r12"));
	assert_non_null(strstr(log, "nmtest: error: fix kick: the kick iterator: Input/output error\n"
				    "nmtest: error: fix kick: r10\tx: failed\n"));
	assert_non_null(strstr(log, "nmtest: error: fix kick: invalid argument: not kicked\n"));
	nm_plan_free(&p);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_sysctl_path),
		cmocka_unit_test(test_build_and_dedup),
		cmocka_unit_test(test_lines),
		cmocka_unit_test(test_argv),
		cmocka_unit_test(test_call_and_line),
		cmocka_unit_test(test_tc_bpf),
		cmocka_unit_test(test_tc_target_bad),
		cmocka_unit_test(test_tc_undo_step),
		cmocka_unit_test_setup_teardown(test_tc_undo_gone, setup, teardown),
		cmocka_unit_test_setup_teardown(test_exec_and_undo, setup, teardown),
		cmocka_unit_test_setup_teardown(test_exec_failures, setup, teardown),
		cmocka_unit_test_setup_teardown(test_exec_calls, setup, teardown),
		cmocka_unit_test_setup_teardown(test_exec_tc, setup, teardown),
		cmocka_unit_test_setup_teardown(test_exec_open_fails, setup, teardown),
		cmocka_unit_test_setup_teardown(test_exec_then_cleanup, setup, teardown),
		cmocka_unit_test_setup_teardown(test_exec_batch, setup, teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
