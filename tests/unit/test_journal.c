// SPDX-License-Identifier: GPL-2.0
/*
 * Unit tests for the undo journal (src/lib/journal.c) and the netns path
 * helpers. Plain temp files stand in for sysfs files; NETMEDIC_RUN_DIR
 * points at a fresh temp dir per test. Children created with fork() only
 * report through their exit status: cmocka asserts must stay in the parent.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <errno.h>
#include <ftw.h>
#include <limits.h>
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>
#include <cmocka.h>

#include "lib/journal.h"
#include "lib/netns.h"

#define TOOL "nmtest"

struct fixture {
	char dir[256];		/* temp files ("sysfs") */
	char run[512];		/* NETMEDIC_RUN_DIR */
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
	snprintf(fx->dir, sizeof(fx->dir), "/tmp/nm-journal-test.XXXXXX");
	if (!mkdtemp(fx->dir))
		return -1;
	/* Not created yet: nm_journal_open must create it (mode 0700). */
	snprintf(fx->run, sizeof(fx->run), "%s/run/netmedic", fx->dir);
	setenv(NM_JOURNAL_DIR_ENV, fx->run, 1);
	/* the commands these tests undo with (a tool registers tc or ip) */
	for (const char *const *c = (const char *const[]){ "cp", "touch", "false", "true", "sh",
		"/nonexistent/bin", "/nonexistent/one", "/nonexistent/two", NULL }; *c; c++)
		if (nm_journal_allow_cmd(*c))
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

static void make_path(const struct fixture *fx, const char *name, char *buf)
{
	snprintf(buf, PATH_MAX, "%s/%s", fx->dir, name);
}

static void put(const char *path, const char *s)
{
	FILE *f = fopen(path, "w");

	assert_non_null(f);
	assert_int_equal(fputs(s, f) >= 0, 1);
	assert_int_equal(fclose(f), 0);
}

/* Whole file content; caller frees. */
static char *get(const char *path)
{
	char *buf = calloc(1, 65536);
	FILE *f = fopen(path, "r");
	size_t n;

	assert_non_null(buf);
	assert_non_null(f);
	n = fread(buf, 1, 65535, f);
	buf[n] = '\0';
	fclose(f);
	return buf;
}

static void assert_content(const char *path, const char *want)
{
	char *got = get(path);

	assert_string_equal(got, want);
	free(got);
}

static void journal_path(const struct fixture *fx, const char *key, char *buf)
{
	snprintf(buf, PATH_MAX, "%s/" TOOL "-%s.journal", fx->run, key);
}

static int count_lines(const char *path)
{
	char *s = get(path);
	int n = 0;

	for (char *p = s; *p; p++)
		n += *p == '\n';
	free(s);
	return n;
}

static int wait_child(pid_t pid)
{
	int status;

	assert_int_equal(waitpid(pid, &status, 0), pid);
	return status;
}

/*
 * Child: open a journal, change file to new_value, then die by SIGKILL,
 * leaving a stale journal. Exits 1..3 if something went wrong before.
 */
static void killed_owner(const char *key, const char *netns, const char *file,
			 const char *new_value)
{
	struct nm_journal *j;
	char err[256];
	pid_t pid = fork();

	assert_true(pid >= 0);
	if (pid == 0) {
		if (nm_journal_open(&j, TOOL, key, netns, err, sizeof(err)))
			_exit(1);
		if (file && nm_journal_set_file(j, file, new_value, NULL, 0, err, sizeof(err)))
			_exit(2);
		raise(SIGKILL);
		_exit(3);
	}
	int status = wait_child(pid);

	assert_true(WIFSIGNALED(status));
	assert_int_equal(WTERMSIG(status), SIGKILL);
}

static void test_set_file_undo(void **state)
{
	struct fixture *fx = *state;
	char file[PATH_MAX], jpath[PATH_MAX], old[64], err[256];
	struct nm_journal *j;
	struct stat st;

	make_path(fx, "xps_cpus", file);
	put(file, "00000001\n");
	assert_int_equal(nm_journal_open(&j, TOOL, "eth0", NULL, err, sizeof(err)), 0);
	assert_int_equal(stat(fx->run, &st), 0);
	assert_int_equal(st.st_mode & 0777, 0700);
	assert_int_equal(nm_journal_count(j), 0);
	assert_int_equal(nm_journal_set_file(j, file, "f", old, sizeof(old), err, sizeof(err)), 0);
	assert_string_equal(old, "00000001");
	assert_content(file, "f");
	assert_int_equal(nm_journal_count(j), 1);
	journal_path(fx, "eth0", jpath);
	assert_int_equal(count_lines(jpath), 2);

	assert_int_equal(nm_journal_undo(j, NULL), 0);
	assert_content(file, "00000001\n");
	assert_int_equal(access(jpath, F_OK), -1);
	assert_int_equal(errno, ENOENT);
}

static void test_reverse_order(void **state)
{
	struct fixture *fx = *state;
	char a[PATH_MAX], b[PATH_MAX], old[64], err[256];
	struct nm_journal *j;

	make_path(fx, "a", a);
	make_path(fx, "b", b);
	put(a, "orig-a\n");
	put(b, "orig-b\n");
	assert_int_equal(nm_journal_open(&j, TOOL, "k", "", err, sizeof(err)), 0);
	assert_int_equal(nm_journal_set_file(j, a, "1", old, sizeof(old), err, sizeof(err)), 0);
	assert_int_equal(nm_journal_set_file(j, b, "2", NULL, 0, err, sizeof(err)), 0);
	assert_int_equal(nm_journal_set_file(j, a, "3", old, sizeof(old), err, sizeof(err)), 0);
	assert_string_equal(old, "1");
	assert_int_equal(nm_journal_count(j), 3);
	assert_content(a, "3");
	assert_int_equal(nm_journal_undo(j, NULL), 0);
	assert_content(a, "orig-a\n");
	assert_content(b, "orig-b\n");
}

static void test_second_instance_busy(void **state)
{
	struct fixture *fx = *state;
	struct nm_journal *j;
	char err[256], want[256];
	pid_t pid;

	(void)fx;
	assert_int_equal(nm_journal_open(&j, TOOL, "eth1", NULL, err, sizeof(err)), 0);
	snprintf(want, sizeof(want), "another " TOOL " instance (pid %ld) is already changing eth1",
		 (long)getpid());
	pid = fork();
	assert_true(pid >= 0);
	if (pid == 0) {
		struct nm_journal *j2;
		char e2[256] = "";

		if (nm_journal_open(&j2, TOOL, "eth1", NULL, e2, sizeof(e2)) != -EBUSY)
			_exit(1);
		_exit(strcmp(e2, want) ? 2 : 0);
	}
	int status = wait_child(pid);

	assert_true(WIFEXITED(status));
	assert_int_equal(WEXITSTATUS(status), 0);
	/* A different key is independent. */
	struct nm_journal *j3;

	assert_int_equal(nm_journal_open(&j3, TOOL, "eth2", NULL, err, sizeof(err)), 0);
	assert_int_equal(nm_journal_undo(j3, NULL), 0);
	assert_int_equal(nm_journal_undo(j, NULL), 0);
}

static void test_sigkill_then_cleanup(void **state)
{
	struct fixture *fx = *state;
	char file[PATH_MAX], jpath[PATH_MAX], err[256], *logbuf = NULL;
	struct nm_journal *j;
	size_t loglen = 0;
	FILE *log;

	make_path(fx, "rps", file);
	put(file, "0\n");
	killed_owner("eth3", NULL, file, "ff");
	assert_content(file, "ff");
	journal_path(fx, "eth3", jpath);
	assert_int_equal(access(jpath, F_OK), 0);

	assert_int_equal(nm_journal_open(&j, TOOL, "eth3", NULL, err, sizeof(err)), -EEXIST);
	assert_non_null(strstr(err, TOOL " --cleanup"));

	log = open_memstream(&logbuf, &loglen);
	assert_non_null(log);
	assert_int_equal(nm_journal_cleanup(TOOL, log), 1);
	fclose(log);
	assert_non_null(strstr(logbuf, "restored "));
	assert_non_null(strstr(logbuf, "rps to 0"));
	free(logbuf);
	assert_content(file, "0\n");
	assert_int_equal(access(jpath, F_OK), -1);

	assert_int_equal(nm_journal_open(&j, TOOL, "eth3", NULL, err, sizeof(err)), 0);
	assert_int_equal(nm_journal_undo(j, NULL), 0);
	/* Nothing left. */
	assert_int_equal(nm_journal_cleanup(TOOL, NULL), 0);
}

/* An owner that died before changing anything leaves nothing to refuse over. */
static void test_empty_stale_taken_over(void **state)
{
	struct fixture *fx = *state;
	struct nm_journal *j;
	char err[256];

	(void)fx;
	killed_owner("eth4", NULL, NULL, NULL);
	assert_int_equal(nm_journal_open(&j, TOOL, "eth4", NULL, err, sizeof(err)), 0);
	assert_int_equal(nm_journal_count(j), 0);
	assert_int_equal(nm_journal_undo(j, NULL), 0);
}

static void test_cleanup_leaves_live_journal(void **state)
{
	struct fixture *fx = *state;
	char file[PATH_MAX], err[256], *logbuf = NULL;
	struct nm_journal *j;
	size_t loglen = 0;
	FILE *log;

	make_path(fx, "live", file);
	put(file, "old");
	assert_int_equal(nm_journal_open(&j, TOOL, "live", NULL, err, sizeof(err)), 0);
	assert_int_equal(nm_journal_set_file(j, file, "new", NULL, 0, err, sizeof(err)), 0);
	log = open_memstream(&logbuf, &loglen);
	assert_non_null(log);
	assert_int_equal(nm_journal_cleanup(TOOL, log), 0);
	fclose(log);
	assert_non_null(strstr(logbuf, "left alone"));
	free(logbuf);
	assert_content(file, "new");
	assert_int_equal(nm_journal_undo(j, NULL), 0);
	assert_content(file, "old");
}

static void test_write_failure_leaves_no_record(void **state)
{
	struct fixture *fx = *state;
	char file[PATH_MAX], jpath[PATH_MAX], err[256] = "";
	struct nm_journal *j;

	assert_int_equal(nm_journal_open(&j, TOOL, "wf", NULL, err, sizeof(err)), 0);
	journal_path(fx, "wf", jpath);
	make_path(fx, "no/such/dir/xps_cpus", file);
	assert_int_equal(nm_journal_set_file(j, file, "1", NULL, 0, err, sizeof(err)), -ENOENT);
	assert_non_null(strstr(err, file));
	assert_int_equal(nm_journal_count(j), 0);
	assert_int_equal(count_lines(jpath), 1);

	/* Readable but not writable (even for root): the record is added, then taken back. */
	if (access("/proc/sys/kernel/osrelease", R_OK) == 0) {
		assert_true(nm_journal_set_file(j, "/proc/sys/kernel/osrelease", "x", NULL, 0,
						err, sizeof(err)) < 0);
		assert_int_equal(nm_journal_count(j), 0);
		assert_int_equal(count_lines(jpath), 1);
	}

	/* The journal still works after failures. */
	make_path(fx, "ok", file);
	put(file, "v");
	assert_int_equal(nm_journal_set_file(j, file, "w", NULL, 0, err, sizeof(err)), 0);
	assert_int_equal(nm_journal_count(j), 1);
	assert_int_equal(count_lines(jpath), 2);
	assert_int_equal(nm_journal_undo(j, NULL), 0);
	assert_content(file, "v");
}

static void test_escaping_roundtrip(void **state)
{
	struct fixture *fx = *state;
	static const char weird[] = "a\tb\\c\nd\\t\\n\r\\\n";
	char file[PATH_MAX], out[PATH_MAX], old[64], err[256];
	struct nm_journal *j;

	make_path(fx, "weird", file);
	put(file, weird);
	make_path(fx, "argout", out);
	put(out, "");
	assert_int_equal(nm_journal_open(&j, TOOL, "esc", NULL, err, sizeof(err)), 0);
	assert_int_equal(nm_journal_set_file(j, file, "plain", old, sizeof(old), err, sizeof(err)), 0);
	assert_memory_equal(old, weird, sizeof(weird) - 2);
	assert_int_equal(old[sizeof(weird) - 2], '\0');
	/* Undo argv with the same characters must reach the command intact. */
	const char *const undo[] = { "sh", "-c", "printf '%s' \"$1\" > \"$2\"", "sh", weird, out, NULL };

	assert_int_equal(nm_journal_run(j, NULL, undo, err, sizeof(err)), 0);
	assert_int_equal(nm_journal_undo(j, NULL), 0);
	assert_content(file, weird);
	assert_content(out, weird);
}

/* Escaping must also survive a real crash, where cleanup parses what is on disk. */
static void test_escaping_after_crash(void **state)
{
	struct fixture *fx = *state;
	static const char weird[] = "x\\ty\t\n\\";
	char file[PATH_MAX];

	make_path(fx, "weird2", file);
	put(file, weird);
	killed_owner("esc2", NULL, file, "1");
	assert_int_equal(nm_journal_cleanup(TOOL, NULL), 1);
	assert_content(file, weird);
}

static void test_cmd_undo(void **state)
{
	struct fixture *fx = *state;
	char dst[PATH_MAX], saved[PATH_MAX], fresh[PATH_MAX], err[256];
	struct nm_journal *j;

	make_path(fx, "dst", dst);
	make_path(fx, "saved", saved);
	make_path(fx, "fresh", fresh);
	put(dst, "orig\n");
	put(saved, "orig\n");
	put(fresh, "changed\n");
	const char *const do_argv[] = { "cp", fresh, dst, NULL };
	const char *const undo_argv[] = { "cp", saved, dst, NULL };

	assert_int_equal(nm_journal_open(&j, TOOL, "cmd", NULL, err, sizeof(err)), 0);
	assert_int_equal(nm_journal_run(j, do_argv, undo_argv, err, sizeof(err)), 0);
	assert_int_equal(nm_journal_count(j), 1);
	assert_content(dst, "changed\n");
	assert_int_equal(nm_journal_undo(j, NULL), 0);
	assert_content(dst, "orig\n");
}

static void test_cmd_failures(void **state)
{
	struct fixture *fx = *state;
	char flag[PATH_MAX], err[256], *logbuf = NULL;
	const char *const fail[] = { "false", NULL };
	const char *const missing[] = { "/nonexistent/netmedic-cmd", NULL };
	struct nm_journal *j;
	size_t loglen = 0;
	FILE *log;

	make_path(fx, "flag", flag);
	const char *const touch[] = { "touch", flag, NULL };

	assert_int_equal(nm_journal_open(&j, TOOL, "cmdf", NULL, err, sizeof(err)), 0);
	assert_int_equal(nm_journal_run(j, fail, touch, err, sizeof(err)), -EIO);
	assert_non_null(strstr(err, "exited with status 1"));
	assert_int_equal(nm_journal_run(j, missing, touch, err, sizeof(err)), -ENOENT);
	assert_int_equal(nm_journal_count(j), 0);
	assert_int_equal(access(flag, F_OK), -1);

	/* A failing undo is reported, the others still run, the failed one is kept. */
	assert_int_equal(nm_journal_run(j, NULL, touch, err, sizeof(err)), 0);
	assert_int_equal(nm_journal_run(j, NULL, fail, err, sizeof(err)), 0);
	log = open_memstream(&logbuf, &loglen);
	assert_non_null(log);
	assert_int_equal(nm_journal_undo(j, log), -EIO);
	fclose(log);
	assert_non_null(strstr(logbuf, "failed to undo with false"));
	assert_non_null(strstr(logbuf, "ran touch "));
	free(logbuf);
	assert_int_equal(access(flag, F_OK), 0);
	assert_int_equal(nm_journal_cleanup(TOOL, NULL), -EIO);
}

/* A record ahead of the caller's own change: nothing run until undo, and rewound when the change failed. */
static void test_cmd_ahead(void **state)
{
	struct fixture *fx = *state;
	char flag[PATH_MAX], err[256];
	struct nm_journal_mark m;
	struct nm_journal *j;

	make_path(fx, "ahead", flag);
	const char *const touch[] = { "touch", flag, NULL };

	assert_int_equal(nm_journal_open(&j, TOOL, "ahead", NULL, err, sizeof(err)), 0);
	assert_int_equal(nm_journal_ahead(NULL, touch, err, sizeof(err)), -EINVAL);
	assert_int_equal(nm_journal_ahead(j, (const char *const[]){ NULL }, err, sizeof(err)), -EINVAL);
	assert_int_equal(access(flag, F_OK), -1);
	nm_journal_mark(j, &m);
	assert_int_equal(nm_journal_ahead(j, touch, err, sizeof(err)), 0);
	assert_int_equal(nm_journal_count(j), 1);
	assert_int_equal(access(flag, F_OK), -1);
	assert_int_equal(nm_journal_rewind(j, &m), 0);
	assert_int_equal(nm_journal_count(j), 0);
	assert_int_equal(nm_journal_ahead(j, touch, err, sizeof(err)), 0);
	assert_int_equal(access(flag, F_OK), -1);
	assert_int_equal(nm_journal_undo(j, NULL), 0);
	assert_int_equal(access(flag, F_OK), 0);
}

static void test_key_sanitised(void **state)
{
	struct fixture *fx = *state;
	char jpath[PATH_MAX], err[256];
	struct nm_journal *j;

	assert_int_equal(nm_journal_open(&j, TOOL, "eth0/../x y", NULL, err, sizeof(err)), 0);
	journal_path(fx, "eth0_.._x_y", jpath);
	assert_int_equal(access(jpath, F_OK), 0);
	assert_int_equal(nm_journal_undo(j, NULL), 0);
	assert_int_equal(nm_journal_open(&j, TOOL, "", NULL, err, sizeof(err)), -EINVAL);
}

/* A tool whose name starts with "<tool>-" has its own journals. */
static void test_cleanup_ignores_other_tool(void **state)
{
	struct fixture *fx = *state;
	char file[PATH_MAX], err[256];
	struct nm_journal *j;
	pid_t pid;

	make_path(fx, "other", file);
	put(file, "0");
	pid = fork();
	assert_true(pid >= 0);
	if (pid == 0) {
		if (nm_journal_open(&j, TOOL "-x", "k", NULL, err, sizeof(err)) ||
		    nm_journal_set_file(j, file, "1", NULL, 0, err, sizeof(err)))
			_exit(1);
		raise(SIGKILL);
		_exit(2);
	}
	assert_true(WIFSIGNALED(wait_child(pid)));
	assert_int_equal(nm_journal_cleanup(TOOL, NULL), 0);
	assert_content(file, "1");
	assert_int_equal(nm_journal_cleanup(TOOL "-x", NULL), 1);
	assert_content(file, "0");
}

/* The recorded netns went away (here: the process whose ns path was recorded exited). */
static void test_cleanup_netns_gone(void **state)
{
	struct fixture *fx = *state;
	char file[PATH_MAX], ns[64], *logbuf = NULL;
	size_t loglen = 0;
	FILE *log;
	pid_t sleeper;

	make_path(fx, "nsfile", file);
	put(file, "0");
	sleeper = fork();
	assert_true(sleeper >= 0);
	if (sleeper == 0) {
		pause();
		_exit(0);
	}
	snprintf(ns, sizeof(ns), "/proc/%ld/ns/net", (long)sleeper);
	killed_owner("nsgone", ns, file, "1");
	assert_content(file, "1");
	kill(sleeper, SIGKILL);
	wait_child(sleeper);

	log = open_memstream(&logbuf, &loglen);
	assert_non_null(log);
	assert_int_equal(nm_journal_cleanup(TOOL, log), 0);
	fclose(log);
	assert_non_null(strstr(logbuf, "no longer exists"));
	free(logbuf);
	assert_content(file, "1");
	assert_int_equal(nm_journal_cleanup(TOOL, NULL), 0);
}

/* A recorded netns that is the current one is undone without a netns switch. */
static void test_cleanup_netns_current(void **state)
{
	struct fixture *fx = *state;
	char file[PATH_MAX], ns[64];

	make_path(fx, "nsfile2", file);
	put(file, "0");
	snprintf(ns, sizeof(ns), "/proc/%ld/ns/net", (long)getpid());
	killed_owner("nscur", ns, file, "1");
	assert_int_equal(nm_journal_cleanup(TOOL, NULL), 1);
	assert_content(file, "0");
}

static void test_open_bad_netns(void **state)
{
	struct nm_journal *j;
	char err[256];

	(void)state;
	assert_int_equal(nm_journal_open(&j, TOOL, "k", "/nonexistent/ns", err, sizeof(err)), -ENOENT);
	assert_null(j);
}

static void test_netns_helpers(void **state)
{
	char buf[PATH_MAX], self[64];
	struct stat st;

	(void)state;
	assert_string_equal(nm_netns_path("blue", buf, sizeof(buf)), "/run/netns/blue");
	assert_string_equal(nm_netns_path("/proc/self/ns/net", buf, sizeof(buf)), "/proc/self/ns/net");
	assert_null(nm_netns_path(NULL, buf, sizeof(buf)));
	assert_null(nm_netns_path("", buf, sizeof(buf)));
	assert_null(nm_netns_path("a-rather-long-name", buf, 8));

	assert_int_equal(stat("/proc/self/ns/net", &st), 0);
	assert_int_equal(nm_netns_inode(NULL), st.st_ino);
	snprintf(self, sizeof(self), "/proc/%ld/ns/net", (long)getpid());
	assert_int_equal(nm_netns_inode(self), st.st_ino);
	assert_int_equal(nm_netns_inode("/nonexistent/ns"), 0);
	assert_int_equal(nm_netns_inode("nm-no-such-netns"), 0);
	assert_int_equal(nm_netns_enter("nm-no-such-netns", buf, sizeof(buf)), -ENOENT);
	assert_non_null(strstr(buf, "/run/netns/nm-no-such-netns"));
}


/* The plan executor of the tests: appends "kind-less fields" to a log string, fails on "bad". */
struct plan_log {
	char seen[512];
	int calls;
};

static int plan_exec(const char *const *f, int nf, char *msg, size_t len, void *arg)
{
	struct plan_log *pl = arg;
	size_t off = strlen(pl->seen);

	pl->calls++;
	for (int i = 0; i < nf; i++)
		off += snprintf(pl->seen + off, sizeof(pl->seen) - off, "%s%s", i ? "," : "", f[i]);
	snprintf(pl->seen + off, sizeof(pl->seen) - off, ";");
	if (!strcmp(f[0], "bad")) {
		snprintf(msg, len, "socket %s is busy", f[1]);
		return -EBUSY;
	}
	snprintf(msg, len, "put %s back to %s", f[0], f[nf - 1]);
	return 0;
}

/* Undoes j with its log in memory: the rc; *logbuf to free. */
static int undo_logged(struct nm_journal *j, char **logbuf)
{
	size_t loglen = 0;
	FILE *log = open_memstream(logbuf, &loglen);
	int rc;

	assert_non_null(log);
	rc = nm_journal_undo(j, log);
	fclose(log);
	return rc;
}

static void test_plan_undo(void **state)
{
	struct plan_log pl = { .calls = 0 };
	const char *const a[] = { "sock1", "TCP_NODELAY", "0", NULL };
	const char *const b[] = { "with\ttab\tand\nnewline", "1", NULL };
	char err[256], *logbuf = NULL;
	struct nm_journal *j;

	(void)state;
	assert_int_equal(nm_journal_exec("sockopt", plan_exec, &pl), 0);
	assert_int_equal(nm_journal_open(&j, TOOL, "plan", NULL, err, sizeof(err)), 0);
	assert_int_equal(nm_journal_add(j, "sockopt", a, err, sizeof(err)), 0);
	assert_int_equal(nm_journal_add(j, "sockopt", b, err, sizeof(err)), 0);
	assert_int_equal(nm_journal_count(j), 2);
	assert_int_equal(undo_logged(j, &logbuf), 0);
	/* newest first, fields back as they were given (escapes and all) */
	assert_string_equal(pl.seen, "with\ttab\tand\nnewline,1;sock1,TCP_NODELAY,0;");
	assert_non_null(strstr(logbuf, "put sock1 back to 0\n"));
	free(logbuf);
}

static void test_plan_kinds_checked(void **state)
{
	const char *const a[] = { "x", NULL };
	const char *const none[] = { NULL };
	struct plan_log pl = { .calls = 0 };
	struct nm_journal *j;
	char err[256];

	(void)state;
	/* the journal's own kinds, and anything but a lowercase word, are no plan kinds */
	assert_int_equal(nm_journal_exec("file", plan_exec, &pl), -EINVAL);
	assert_int_equal(nm_journal_exec("cmd", plan_exec, &pl), -EINVAL);
	assert_int_equal(nm_journal_exec("Sock opt", plan_exec, &pl), -EINVAL);
	assert_int_equal(nm_journal_exec("", plan_exec, &pl), -EINVAL);
	assert_int_equal(nm_journal_exec("sockopt", NULL, &pl), -EINVAL);
	assert_int_equal(nm_journal_open(&j, TOOL, "kinds", NULL, err, sizeof(err)), 0);
	assert_int_equal(nm_journal_add(j, "file", a, err, sizeof(err)), -EINVAL);
	assert_int_equal(nm_journal_add(j, "a\tb", a, err, sizeof(err)), -EINVAL);
	assert_int_equal(nm_journal_add(j, "sockopt", none, err, sizeof(err)), -EINVAL);
	assert_int_equal(nm_journal_count(j), 0);
	assert_int_equal(nm_journal_undo(j, NULL), 0);
}

/* A kind no executor applies: reported and kept, the others still undone. */
static void test_plan_without_executor(void **state)
{
	struct fixture *fx = *state;
	const char *const a[] = { "q", NULL };
	char file[PATH_MAX], err[256], *logbuf = NULL;
	struct nm_journal *j;

	make_path(fx, "f", file);
	put(file, "old\n");
	assert_int_equal(nm_journal_open(&j, TOOL, "noexec", NULL, err, sizeof(err)), 0);
	assert_int_equal(nm_journal_set_file(j, file, "new", NULL, 0, err, sizeof(err)), 0);
	assert_int_equal(nm_journal_add(j, "nobody_applies", a, err, sizeof(err)), 0);
	assert_int_equal(undo_logged(j, &logbuf), -ENOEXEC);
	assert_non_null(strstr(logbuf, "failed to undo a nobody_applies record: nothing here applies that kind"));
	free(logbuf);
	assert_content(file, "old\n");
}

static void test_plan_failure_logged(void **state)
{
	struct plan_log pl = { .calls = 0 };
	const char *const bad[] = { "bad", "s7", NULL };
	char err[256], *logbuf = NULL;
	struct nm_journal *j;

	(void)state;
	assert_int_equal(nm_journal_exec("sockopt", plan_exec, &pl), 0);
	assert_int_equal(nm_journal_open(&j, TOOL, "planbad", NULL, err, sizeof(err)), 0);
	assert_int_equal(nm_journal_add(j, "sockopt", bad, err, sizeof(err)), 0);
	assert_int_equal(undo_logged(j, &logbuf), -EBUSY);
	assert_non_null(strstr(logbuf, "failed to undo a sockopt record: socket s7 is busy"));
	free(logbuf);
}

/* Records added after a mark are dropped at once; those before stay, on disk too. */
static void test_rewind(void **state)
{
	struct fixture *fx = *state;
	struct plan_log pl = { .calls = 0 };
	const char *const a[] = { "a", "0", NULL }, *const b[] = { "b", "1", NULL };
	char jpath[PATH_MAX], err[256];
	struct nm_journal_mark m, past;
	struct nm_journal *j;

	assert_int_equal(nm_journal_exec("sockopt", plan_exec, &pl), 0);
	assert_int_equal(nm_journal_open(&j, TOOL, "rew", NULL, err, sizeof(err)), 0);
	journal_path(fx, "rew", jpath);
	assert_int_equal(nm_journal_add(j, "sockopt", a, err, sizeof(err)), 0);
	nm_journal_mark(j, &m);
	assert_int_equal(nm_journal_add(j, "sockopt", b, err, sizeof(err)), 0);
	assert_int_equal(nm_journal_add(j, "sockopt", b, err, sizeof(err)), 0);
	assert_int_equal(count_lines(jpath), 4);
	nm_journal_mark(j, &past);
	assert_int_equal(nm_journal_rewind(j, &m), 0);
	assert_int_equal(nm_journal_count(j), 1);
	assert_int_equal(count_lines(jpath), 2);
	/* a mark past the end is refused; rewinding to the end is nothing */
	assert_int_equal(nm_journal_rewind(j, &past), -EINVAL);
	assert_int_equal(nm_journal_rewind(j, &m), 0);
	assert_int_equal(nm_journal_undo(j, NULL), 0);
	assert_string_equal(pl.seen, "a,0;");
}

/* A plan journaled by an owner killed with -9 is applied by cleanup, then gone. */
static void test_plan_sigkill_then_cleanup(void **state)
{
	struct fixture *fx = *state;
	struct plan_log pl = { .calls = 0 };
	char jpath[PATH_MAX], err[256];
	struct nm_journal *j;
	pid_t pid = fork();

	assert_true(pid >= 0);
	if (pid == 0) {
		const char *const a[] = { "198.18.0.1:5301>198.18.0.2:40000", "TCP_NODELAY", "0", NULL };

		if (nm_journal_open(&j, TOOL, "kick", NULL, err, sizeof(err)))
			_exit(1);
		if (nm_journal_add(j, "sockopt", a, err, sizeof(err)))
			_exit(2);
		raise(SIGKILL);
		_exit(3);
	}
	assert_int_equal(WTERMSIG(wait_child(pid)), SIGKILL);
	journal_path(fx, "kick", jpath);
	assert_int_equal(access(jpath, F_OK), 0);
	assert_int_equal(nm_journal_exec("sockopt", plan_exec, &pl), 0);
	assert_int_equal(nm_journal_cleanup(TOOL, NULL), 1);
	assert_int_equal(pl.calls, 1);
	assert_string_equal(pl.seen, "198.18.0.1:5301>198.18.0.2:40000,TCP_NODELAY,0;");
	assert_int_equal(access(jpath, F_OK), -1);
}

static void test_undo_null(void **state)
{
	(void)state;
	assert_int_equal(nm_journal_undo(NULL, NULL), 0);
	assert_int_equal(nm_journal_count(NULL), 0);
}

/* ---- issue #16: what a failed undo keeps, who may write a journal, clear errors ---- */

static FILE *log_open(char **buf, size_t *len)
{
	FILE *log;

	*buf = NULL;
	*len = 0;
	log = open_memstream(buf, len);
	assert_non_null(log);
	return log;
}

/* The run directory as nm_journal_open makes it, for journals written by hand. */
static void make_run_dir(const struct fixture *fx)
{
	char parent[PATH_MAX];

	snprintf(parent, sizeof(parent), "%s/run", fx->dir);
	assert_int_equal(mkdir(parent, 0700) == 0 || errno == EEXIST, 1);
	assert_int_equal(mkdir(fx->run, 0700) == 0 || errno == EEXIST, 1);
}

/* A journal written by hand (a crash, an attacker, a fuzzer), mode 0600. */
static void put_journal(const struct fixture *fx, const char *key, const char *text)
{
	char jpath[PATH_MAX];

	make_run_dir(fx);
	journal_path(fx, key, jpath);
	put(jpath, text);
	assert_int_equal(chmod(jpath, 0600), 0);
}

/* #16.2: the record whose undo failed stays, alone, for a retry; the rest are undone. */
static void test_failed_undo_kept(void **state)
{
	struct fixture *fx = *state;
	const char *const bad[] = { "/nonexistent/bin", "arg", NULL };
	char a[PATH_MAX], b[PATH_MAX], jpath[PATH_MAX], err[256], *logbuf, *text;
	struct nm_journal *j;
	size_t loglen;
	FILE *log;

	make_path(fx, "a", a);
	make_path(fx, "b", b);
	put(a, "old-a\n");
	put(b, "old-b\n");
	journal_path(fx, "kept", jpath);
	assert_int_equal(nm_journal_open(&j, TOOL, "kept", NULL, err, sizeof(err)), 0);
	assert_int_equal(nm_journal_set_file(j, a, "new-a", NULL, 0, err, sizeof(err)), 0);
	assert_int_equal(nm_journal_run(j, NULL, bad, err, sizeof(err)), 0);
	assert_int_equal(nm_journal_set_file(j, b, "new-b", NULL, 0, err, sizeof(err)), 0);
	log = log_open(&logbuf, &loglen);
	assert_int_equal(nm_journal_undo(j, log), -ENOENT);
	fclose(log);
	assert_content(a, "old-a\n");
	assert_content(b, "old-b\n");
	/* what is left, and how to retry it */
	assert_non_null(strstr(logbuf, jpath));
	assert_non_null(strstr(logbuf, "keeps 1 change(s) that could not be undone"));
	assert_non_null(strstr(logbuf, TOOL " --cleanup"));
	free(logbuf);
	assert_int_equal(count_lines(jpath), 2);
	text = get(jpath);
	assert_non_null(strstr(text, "\ncmd\t/nonexistent/bin\targ\n"));
	free(text);
	/* a retry that fails again keeps it again, and says so */
	log = log_open(&logbuf, &loglen);
	assert_true(nm_journal_cleanup(TOOL, log) < 0);
	fclose(log);
	assert_non_null(strstr(logbuf, "keeps 1 change(s)"));
	free(logbuf);
	assert_int_equal(count_lines(jpath), 2);
	/* and a new instance is told to clean up first */
	assert_int_equal(nm_journal_open(&j, TOOL, "kept", NULL, err, sizeof(err)), -EEXIST);
}

/* #16.2 after kill -9: cleanup keeps the failed record, in order, and undoes the others. */
static void test_cleanup_failed_kept(void **state)
{
	struct fixture *fx = *state;
	char a[PATH_MAX], jpath[PATH_MAX], text[1024];
	char *got;

	make_path(fx, "ca", a);
	put(a, "1");
	snprintf(text, sizeof(text),
		 "netmedic-journal\t1\t999999\t" TOOL "\tck\t\t0\n"
		 "cmd\t/nonexistent/one\n"
		 "file\t%s\t0\n"
		 "cmd\t/nonexistent/two\tx\n", a);
	put_journal(fx, "ck", text);
	journal_path(fx, "ck", jpath);
	assert_true(nm_journal_cleanup(TOOL, NULL) < 0);
	assert_content(a, "0");
	got = get(jpath);
	assert_string_equal(got, "netmedic-journal\t1\t999999\t" TOOL "\tck\t\t0\n"
			    "cmd\t/nonexistent/one\n"
			    "cmd\t/nonexistent/two\tx\n");
	free(got);
}

/* #16.5: the undo is on disk before the change is made (write-ahead). */
static void test_run_journals_first(void **state)
{
	struct fixture *fx = *state;
	char jpath[PATH_MAX], err[256];
	struct nm_journal *j;

	journal_path(fx, "wal", jpath);
	const char *const check[] = { "grep", "-q", "undo-marker-16", jpath, NULL };
	const char *const undo[] = { "true", "undo-marker-16", NULL };
	const char *const fail[] = { "false", NULL };

	assert_int_equal(nm_journal_open(&j, TOOL, "wal", NULL, err, sizeof(err)), 0);
	assert_int_equal(nm_journal_run(j, check, undo, err, sizeof(err)), 0);
	assert_int_equal(nm_journal_count(j), 1);
	/* a change that was not made takes its record back */
	assert_int_equal(nm_journal_run(j, fail, undo, err, sizeof(err)), -EIO);
	assert_int_equal(nm_journal_count(j), 1);
	assert_int_equal(count_lines(jpath), 2);
	assert_int_equal(nm_journal_undo(j, NULL), 0);
}

/* #16.3: the trust decision, on synthetic stats. */
static void test_check_stat(void **state)
{
	struct stat st = { .st_mode = S_IFDIR | 0700, .st_uid = 0 };
	char why[128];

	(void)state;
	assert_int_equal(nm_journal_check_stat(&st, S_IFDIR, 0, why, sizeof(why)), 0);
	st.st_mode = S_IFDIR | 0755;
	assert_int_equal(nm_journal_check_stat(&st, S_IFDIR, 0, why, sizeof(why)), 0);
	st.st_mode = S_IFDIR | 01777;
	assert_int_equal(nm_journal_check_stat(&st, S_IFDIR, 0, why, sizeof(why)), -EPERM);
	assert_string_equal(why, "is writable by group or others (mode 1777)");
	st.st_mode = S_IFDIR | 0720;
	assert_int_equal(nm_journal_check_stat(&st, S_IFDIR, 0, why, sizeof(why)), -EPERM);
	st.st_mode = S_IFDIR | 0700;
	st.st_uid = 65534;
	assert_int_equal(nm_journal_check_stat(&st, S_IFDIR, 0, why, sizeof(why)), -EPERM);
	assert_string_equal(why, "is owned by uid 65534, not 0");
	st.st_uid = 1000;
	assert_int_equal(nm_journal_check_stat(&st, S_IFDIR, 1000, why, sizeof(why)), 0);
	/* #16.9: a non-root run trusts root's, and no other user's */
	assert_int_equal(nm_journal_check_stat(&st, S_IFDIR, 1001, why, sizeof(why)), -EPERM);
	assert_string_equal(why, "is owned by uid 1000, not 1001 nor root");
	st.st_uid = 0;
	assert_int_equal(nm_journal_check_stat(&st, S_IFDIR, 1000, why, sizeof(why)), 0);
	st.st_mode = S_IFDIR | 0770;
	assert_int_equal(nm_journal_check_stat(&st, S_IFDIR, 1000, why, sizeof(why)), -EPERM);
	st.st_mode = S_IFDIR | 0700;
	st.st_uid = 1000;
	st.st_mode = S_IFREG | 0600;
	assert_int_equal(nm_journal_check_stat(&st, S_IFDIR, 1000, why, sizeof(why)), -ENOTDIR);
	assert_string_equal(why, "is not a directory");
	assert_int_equal(nm_journal_check_stat(&st, S_IFREG, 1000, why, sizeof(why)), 0);
	st.st_mode = S_IFREG | 0666;
	assert_int_equal(nm_journal_check_stat(&st, S_IFREG, 1000, why, sizeof(why)), -EPERM);
	assert_string_equal(why, "is writable by group or others (mode 0666)");
	st.st_mode = S_IFLNK | 0777;
	assert_int_equal(nm_journal_check_stat(&st, S_IFREG, 1000, why, sizeof(why)), -ELOOP);
	assert_string_equal(why, "is a symbolic link");
	st.st_mode = S_IFDIR | 0700;
	assert_int_equal(nm_journal_check_stat(&st, S_IFREG, 1000, why, sizeof(why)), -EISDIR);
	assert_string_equal(why, "is a directory, not a regular file");
	st.st_mode = S_IFCHR | 0600;
	assert_int_equal(nm_journal_check_stat(&st, S_IFREG, 1000, why, sizeof(why)), -EINVAL);
	assert_string_equal(why, "is not a regular file");
}

/* #16.3: a run directory others may write is refused, by open and by cleanup. */
static void test_run_dir_mode_refused(void **state)
{
	struct fixture *fx = *state;
	char file[PATH_MAX], err[256], *logbuf;
	struct nm_journal *j;
	size_t loglen;
	FILE *log;

	make_path(fx, "rd", file);
	put(file, "0");
	killed_owner("rd", NULL, file, "1");
	assert_int_equal(chmod(fx->run, 01777), 0);
	assert_int_equal(nm_journal_open(&j, TOOL, "rd2", NULL, err, sizeof(err)), -EPERM);
	assert_null(j);
	assert_non_null(strstr(err, fx->run));
	assert_non_null(strstr(err, "writable by group or others"));
	log = log_open(&logbuf, &loglen);
	assert_int_equal(nm_journal_cleanup(TOOL, log), -EPERM);
	fclose(log);
	assert_non_null(strstr(logbuf, fx->run));
	assert_non_null(strstr(logbuf, "writable by group or others (mode 1777)"));
	free(logbuf);
	assert_content(file, "1");
	/* back to a sane mode, the same journal is undone */
	assert_int_equal(chmod(fx->run, 0700), 0);
	assert_int_equal(nm_journal_cleanup(TOOL, NULL), 1);
	assert_content(file, "0");
}

/* #16.3: a journal others may write is not run, and is named. */
static void test_journal_mode_refused(void **state)
{
	struct fixture *fx = *state;
	char file[PATH_MAX], jpath[PATH_MAX], *logbuf;
	size_t loglen;
	FILE *log;

	make_path(fx, "jm", file);
	put(file, "0");
	killed_owner("jm", NULL, file, "1");
	journal_path(fx, "jm", jpath);
	assert_int_equal(chmod(jpath, 0666), 0);
	log = log_open(&logbuf, &loglen);
	assert_int_equal(nm_journal_cleanup(TOOL, log), -EPERM);
	fclose(log);
	assert_non_null(strstr(logbuf, jpath));
	assert_non_null(strstr(logbuf, "writable by group or others (mode 0666)"));
	free(logbuf);
	assert_content(file, "1");
	assert_int_equal(access(jpath, F_OK), 0);
	assert_int_equal(chmod(jpath, 0600), 0);
	assert_int_equal(nm_journal_cleanup(TOOL, NULL), 1);
	assert_content(file, "0");
}

/* #16.8: every refusal of a journal names the file and says what is wrong with it. */
static void assert_cleanup_says(const char *want1, const char *want2, const char *refuse)
{
	char *logbuf;
	size_t loglen;
	FILE *log;

	log = log_open(&logbuf, &loglen);
	assert_true(nm_journal_cleanup(TOOL, log) < 0);
	fclose(log);
	if (!strstr(logbuf, want1) || !strstr(logbuf, want2) || (refuse && strstr(logbuf, refuse)))
		fail_msg("cleanup said '%s', not '%s' ... '%s'", logbuf, want1, want2);
	free(logbuf);
}

static void test_bad_header_numbers(void **state)
{
	struct fixture *fx = *state;
	char jpath[PATH_MAX];

	journal_path(fx, "ino", jpath);
	put_journal(fx, "ino", "netmedic-journal\t1\t1234\t" TOOL "\tino\t\t99999999999999999999999\n"
		    "cmd\ttrue\n");
	assert_cleanup_says(jpath, "line 1: netns inode '99999999999999999999999' is out of range",
			    "cross-device");
	unlink(jpath);
	journal_path(fx, "pid", jpath);
	put_journal(fx, "pid", "netmedic-journal\t1\t99999999999999999999\t" TOOL "\tpid\t\t0\n"
		    "cmd\ttrue\n");
	assert_cleanup_says(jpath, "line 1: pid '99999999999999999999' is out of range", NULL);
	unlink(jpath);
	put_journal(fx, "pid", "netmedic-journal\t1\t4294967297\t" TOOL "\tpid\t\t0\n"
		    "cmd\ttrue\n");
	assert_cleanup_says(jpath, "line 1: pid '4294967297' is out of range", NULL);
	unlink(jpath);
	put_journal(fx, "pid", "netmedic-journal\t1\t12\t" TOOL "\tpid\t\t0\n"
		    "bogus record\n");
	assert_cleanup_says(jpath, "line 2: ", NULL);
}

static void test_netns_not_a_netns(void **state)
{
	struct fixture *fx = *state;
	char jpath[PATH_MAX], file[PATH_MAX], text[1024];
	struct stat st;

	make_path(fx, "notns", file);
	put(file, "x");
	assert_int_equal(stat(file, &st), 0);
	snprintf(text, sizeof(text), "netmedic-journal\t1\t1234\t" TOOL "\tnn\t%s\t%lu\ncmd\ttrue\n",
		 file, (unsigned long)st.st_ino);
	put_journal(fx, "nn", text);
	journal_path(fx, "nn", jpath);
	assert_cleanup_says(jpath, "is not a network namespace", "Exec format");
	assert_int_equal(access(jpath, F_OK), 0);
}

static void test_netns_inode_mismatch(void **state)
{
	struct fixture *fx = *state;
	char jpath[PATH_MAX], *logbuf;
	size_t loglen;
	FILE *log;

	put_journal(fx, "mm", "netmedic-journal\t1\t1234\t" TOOL "\tmm\t/proc/self/ns/net\t1\ncmd\ttrue\n");
	journal_path(fx, "mm", jpath);
	log = log_open(&logbuf, &loglen);
	assert_int_equal(nm_journal_cleanup(TOOL, log), 0);
	fclose(log);
	assert_non_null(strstr(logbuf, jpath));
	assert_non_null(strstr(logbuf, "/proc/self/ns/net is now another netns"));
	assert_null(strstr(logbuf, "no longer exists"));
	free(logbuf);
}

static void test_journal_not_regular(void **state)
{
	struct fixture *fx = *state;
	char jpath[PATH_MAX], target[PATH_MAX];

	make_path(fx, "target", target);
	put(target, "");
	make_run_dir(fx);
	journal_path(fx, "lnk", jpath);
	assert_int_equal(symlink(target, jpath), 0);
	assert_cleanup_says(jpath, "is a symbolic link", NULL);
	unlink(jpath);
	journal_path(fx, "dir", jpath);
	assert_int_equal(mkdir(jpath, 0700), 0);
	assert_cleanup_says(jpath, "is a directory, not a regular file", NULL);
}

/* #16.3: a cmd record runs only a command the tool registered, whoever wrote it. */
static void test_cmd_not_allowed(void **state)
{
	struct fixture *fx = *state;
	char flag[PATH_MAX], jpath[PATH_MAX], text[1024], *logbuf, *got;
	size_t loglen;
	FILE *log;

	make_path(fx, "ran", flag);
	snprintf(text, sizeof(text), "netmedic-journal\t1\t1234\t" TOOL "\tna\t\t0\n"
		 "cmd\tbash\t-c\ttouch %s\n", flag);
	put_journal(fx, "na", text);
	journal_path(fx, "na", jpath);
	log = log_open(&logbuf, &loglen);
	assert_int_equal(nm_journal_cleanup(TOOL, log), -EPERM);
	fclose(log);
	if (!strstr(logbuf, "bash is not a command " TOOL " undoes with (cp, touch, "))
		fail_msg("cleanup said '%s'", logbuf);
	free(logbuf);
	assert_int_equal(access(flag, F_OK), -1);
	got = get(jpath);
	assert_non_null(strstr(got, "\ncmd\tbash\t-c\t"));
	free(got);
	assert_int_equal(nm_journal_allow_cmd(""), -EINVAL);
	assert_int_equal(nm_journal_allow_cmd(NULL), -EINVAL);
}

/* A copy of s the parse may own (it writes into its buffer). */
static int parse_text(const char *s, size_t len, struct nm_journal_parsed *p)
{
	char *buf = malloc(len + 1);

	assert_non_null(buf);
	memcpy(buf, s, len);
	buf[len] = '\0';
	return nm_journal_parse(buf, len, p);
}

static int parse_str(const char *s, struct nm_journal_parsed *p)
{
	return parse_text(s, strlen(s), p);
}

/* The parse alone, as --cleanup reads a journal: fields, torn tail, errors. */
static void test_parse_text(void **state)
{
	static const char text[] =
		"netmedic-journal\t1\t42\txpsflap\t7-veth0\t/run/netns/a\t4026531840\n"
		"file\t/sys/x\t00000003\\n\n"
		"cmd\ttc\tqdisc\tdel\n"
		"sockopt\ta\\tb\n"
		"cmd\ttc\ttorn";
	static const char nul[] = "netmedic-journal\t1\t1\tt\tk\t\t0\nfile\ta\0\tb\n";
	struct nm_journal_parsed p;

	(void)state;
	assert_int_equal(parse_text(text, sizeof(text) - 1, &p), 0);
	assert_true(p.have_header);
	assert_int_equal(p.pid, 42);
	assert_string_equal(p.tool, "xpsflap");
	assert_string_equal(p.key, "7-veth0");
	assert_string_equal(p.netns, "/run/netns/a");
	assert_int_equal(p.ino, 4026531840UL);
	/* the torn last line is not a record */
	assert_int_equal(p.n, 3);
	assert_int_equal(p.r[0].nf, 3);
	assert_string_equal(p.r[0].f[2], "00000003\n");
	assert_int_equal(p.r[1].nf, 4);
	assert_string_equal(p.r[1].f[3], "del");
	assert_null(p.r[1].f[4]);
	assert_string_equal(p.r[2].f[1], "a\tb");
	assert_int_equal(p.r[1].off, strchr(text + p.r[0].off, '\n') + 1 - text);
	nm_journal_parsed_free(&p);

	assert_int_equal(parse_str("", &p), 0);
	assert_false(p.have_header);
	assert_int_equal(p.n, 0);
	nm_journal_parsed_free(&p);

	assert_int_equal(parse_text(nul, sizeof(nul) - 1, &p), -EBADMSG);
	assert_string_equal(p.why, "line 2: a NUL byte");
	assert_null(p.buf);
	assert_int_equal(parse_str("netmedic-journal\t1\t1\tt\tk\t\t0\nfile\tonly\n", &p), -EBADMSG);
	assert_non_null(strstr(p.why, "line 2: not a record"));
	assert_int_equal(parse_str("netmedic-journal\t2\n", &p), -EBADMSG);
	assert_non_null(strstr(p.why, "line 1: not a netmedic-journal 1 header"));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_set_file_undo, setup, teardown),
		cmocka_unit_test_setup_teardown(test_reverse_order, setup, teardown),
		cmocka_unit_test_setup_teardown(test_second_instance_busy, setup, teardown),
		cmocka_unit_test_setup_teardown(test_sigkill_then_cleanup, setup, teardown),
		cmocka_unit_test_setup_teardown(test_empty_stale_taken_over, setup, teardown),
		cmocka_unit_test_setup_teardown(test_cleanup_leaves_live_journal, setup, teardown),
		cmocka_unit_test_setup_teardown(test_write_failure_leaves_no_record, setup, teardown),
		cmocka_unit_test_setup_teardown(test_escaping_roundtrip, setup, teardown),
		cmocka_unit_test_setup_teardown(test_escaping_after_crash, setup, teardown),
		cmocka_unit_test_setup_teardown(test_cmd_undo, setup, teardown),
		cmocka_unit_test_setup_teardown(test_cmd_failures, setup, teardown),
		cmocka_unit_test_setup_teardown(test_cmd_ahead, setup, teardown),
		cmocka_unit_test_setup_teardown(test_key_sanitised, setup, teardown),
		cmocka_unit_test_setup_teardown(test_cleanup_ignores_other_tool, setup, teardown),
		cmocka_unit_test_setup_teardown(test_cleanup_netns_gone, setup, teardown),
		cmocka_unit_test_setup_teardown(test_cleanup_netns_current, setup, teardown),
		cmocka_unit_test_setup_teardown(test_open_bad_netns, setup, teardown),
		cmocka_unit_test(test_netns_helpers),
		cmocka_unit_test(test_undo_null),
		cmocka_unit_test_setup_teardown(test_plan_undo, setup, teardown),
		cmocka_unit_test_setup_teardown(test_plan_kinds_checked, setup, teardown),
		cmocka_unit_test_setup_teardown(test_plan_without_executor, setup, teardown),
		cmocka_unit_test_setup_teardown(test_plan_failure_logged, setup, teardown),
		cmocka_unit_test_setup_teardown(test_rewind, setup, teardown),
		cmocka_unit_test_setup_teardown(test_plan_sigkill_then_cleanup, setup, teardown),
		cmocka_unit_test_setup_teardown(test_failed_undo_kept, setup, teardown),
		cmocka_unit_test_setup_teardown(test_cleanup_failed_kept, setup, teardown),
		cmocka_unit_test_setup_teardown(test_run_journals_first, setup, teardown),
		cmocka_unit_test(test_check_stat),
		cmocka_unit_test_setup_teardown(test_run_dir_mode_refused, setup, teardown),
		cmocka_unit_test_setup_teardown(test_journal_mode_refused, setup, teardown),
		cmocka_unit_test_setup_teardown(test_bad_header_numbers, setup, teardown),
		cmocka_unit_test_setup_teardown(test_netns_not_a_netns, setup, teardown),
		cmocka_unit_test_setup_teardown(test_netns_inode_mismatch, setup, teardown),
		cmocka_unit_test_setup_teardown(test_journal_not_regular, setup, teardown),
		cmocka_unit_test_setup_teardown(test_cmd_not_allowed, setup, teardown),
		cmocka_unit_test(test_parse_text),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
