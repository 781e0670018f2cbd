// SPDX-License-Identifier: GPL-2.0
/*
 * Unit tests for src/lib/sockfd.c: the holder of a socket found in a
 * /proc of the test's own (PID/fd/N links), the first one but ours, past
 * what is not a process or has gone; and pidfd_getfd on this process's
 * own descriptors, checked against the inode the walk found; the holder
 * remembered for the next socket, and a hinted one asked first.
 */
#include <errno.h>
#include <fcntl.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <unistd.h>
#include <cmocka.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/wait.h>

#include "fake_proc.h"
#include "lib/sockfd.h"

/* Descriptor fd of process pid, a link to target. */
static void fd_add(const struct tree *t, int pid, int fd, const char *target)
{
	sh("mkdir -p %s/%d/fd && ln -sf '%s' %s/%d/fd/%d", t->proc, pid, target, t->proc, pid, fd);
}

static int setup(void **state)
{
	struct tree *t = tree_new("sockfd");

	if (!t)
		return -1;
	fd_add(t, 100, 0, "/dev/null");
	fd_add(t, 100, 3, "socket:[111]");
	fd_add(t, 200, 5, "socket:[222]");
	fd_add(t, 300, 1, "pipe:[222]");
	fd_add(t, 300, 7, "socket:[222]");
	/* a longer inode with the same start is another socket */
	fd_add(t, 400, 9, "socket:[2222]");
	/* gone between the walk of /proc and the look at its descriptors */
	sh("mkdir -p %s/500", t->proc);
	/* not processes */
	sh("ln -sf 100 %s/self && mkdir -p %s/net/fd %s/1x/fd && ln -sf 'socket:[333]' %s/1x/fd/1",
	   t->proc, t->proc, t->proc, t->proc);
	*state = t;
	return 0;
}

static void test_holder(void **state)
{
	const struct tree *t = *state;
	pid_t pid = 0;
	int fd = -1;

	assert_int_equal(nm_sock_holder(t->proc, 111, 0, &pid, &fd), 0);
	assert_int_equal(pid, 100);
	assert_int_equal(fd, 3);
	/* two hold it: the first the walk meets, whichever; then the other one when that is us */
	assert_int_equal(nm_sock_holder(t->proc, 222, 0, &pid, &fd), 0);
	assert_true((pid == 200 && fd == 5) || (pid == 300 && fd == 7));
	assert_int_equal(nm_sock_holder(t->proc, 222, 200, &pid, &fd), 0);
	assert_int_equal(pid, 300);
	assert_int_equal(fd, 7);
	assert_int_equal(nm_sock_holder(t->proc, 222, 300, &pid, &fd), 0);
	assert_int_equal(pid, 200);
	assert_int_equal(fd, 5);
	assert_int_equal(nm_sock_holder(t->proc, 2222, 0, &pid, &fd), 0);
	assert_int_equal(pid, 400);
}

static void test_holder_none(void **state)
{
	const struct tree *t = *state;
	char missing[160];
	pid_t pid = 0;
	int fd = -1;

	/* held by us alone: as good as by nobody */
	assert_int_equal(nm_sock_holder(t->proc, 111, 100, &pid, &fd), -ENOENT);
	assert_int_equal(nm_sock_holder(t->proc, 22, 0, &pid, &fd), -ENOENT);
	/* names that are not pids are not looked into */
	assert_int_equal(nm_sock_holder(t->proc, 333, 0, &pid, &fd), -ENOENT);
	assert_int_equal(pid, 0);
	assert_int_equal(fd, -1);
	snprintf(missing, sizeof(missing), "%s/none", t->root);
	assert_int_equal(nm_sock_holder(missing, 111, 0, &pid, &fd), -ENOENT);
}

/*
 * The holder remembered: a second socket of the same process is found in
 * what the first walk read, a socket it opened since by reading it again,
 * and none of its sockets by the walk; forgotten, the walk finds anew.
 */
static void test_holder_cached(void **state)
{
	const struct tree *t = *state;
	struct nm_sock_holders h = {};
	pid_t pid = 0;
	int fd = -1;

	fd_add(t, 300, 8, "socket:[333]");
	assert_int_equal(nm_sock_holder_cached(&h, t->proc, 222, 200, 0, &pid, &fd), 0);
	assert_int_equal(pid, 300);
	assert_int_equal(fd, 7);
	assert_int_equal(h.pid, 300);
	assert_int_equal(h.n, 2);
	/* the walk is not needed: a tree without 300 would not find it */
	sh("mv %s/300 %s/300.kept", t->proc, t->proc);
	assert_int_equal(nm_sock_holder_cached(&h, t->proc, 333, 0, 0, &pid, &fd), 0);
	assert_int_equal(pid, 300);
	assert_int_equal(fd, 8);
	sh("mv %s/300.kept %s/300", t->proc, t->proc);
	/* a socket it opened since: read again */
	fd_add(t, 300, 9, "socket:[444]");
	assert_int_equal(nm_sock_holder_cached(&h, t->proc, 444, 0, 0, &pid, &fd), 0);
	assert_int_equal(pid, 300);
	assert_int_equal(fd, 9);
	/* another process's socket: the walk, which the holder then is */
	assert_int_equal(nm_sock_holder_cached(&h, t->proc, 111, 0, 0, &pid, &fd), 0);
	assert_int_equal(pid, 100);
	assert_int_equal(fd, 3);
	assert_int_equal(h.pid, 100);
	/* the remembered one is this process: the walk passes it */
	assert_int_equal(nm_sock_holder_cached(&h, t->proc, 111, 100, 0, &pid, &fd), -ENOENT);
	nm_sock_holders_forget(&h);
	assert_int_equal(h.pid, 0);
	assert_int_equal(nm_sock_holder_cached(&h, t->proc, 2222, 0, 0, &pid, &fd), 0);
	assert_int_equal(pid, 400);
	nm_sock_holders_free(&h);
	/* none: the walk alone */
	assert_int_equal(nm_sock_holder_cached(NULL, t->proc, 2222, 0, 0, &pid, &fd), 0);
	assert_int_equal(pid, 400);
}

/*
 * A hint (the process a BPF program saw push on the socket) is asked
 * before the walk: socket 222 is held by 200 and by 300, and each hint
 * gets its own, whichever the walk would meet first. A hint that does not
 * hold it, or has gone, leaves the walk to find it.
 */
static void test_holder_hint(void **state)
{
	const struct tree *t = *state;
	struct nm_sock_holders h = {};
	pid_t pid = 0;
	int fd = -1;

	assert_int_equal(nm_sock_holder_cached(&h, t->proc, 222, 0, 200, &pid, &fd), 0);
	assert_int_equal(pid, 200);
	assert_int_equal(fd, 5);
	nm_sock_holders_forget(&h);
	assert_int_equal(nm_sock_holder_cached(&h, t->proc, 222, 0, 300, &pid, &fd), 0);
	assert_int_equal(pid, 300);
	assert_int_equal(fd, 7);
	/* the holder remembered is asked before a hint */
	assert_int_equal(nm_sock_holder_cached(&h, t->proc, 222, 0, 200, &pid, &fd), 0);
	assert_int_equal(pid, 300);
	nm_sock_holders_forget(&h);
	/* a hint that holds other sockets, then one that has gone: the walk */
	assert_int_equal(nm_sock_holder_cached(&h, t->proc, 111, 0, 400, &pid, &fd), 0);
	assert_int_equal(pid, 100);
	assert_int_equal(fd, 3);
	nm_sock_holders_forget(&h);
	assert_int_equal(nm_sock_holder_cached(&h, t->proc, 2222, 0, 999, &pid, &fd), 0);
	assert_int_equal(pid, 400);
	assert_int_equal(h.pid, 400);
	/* the hint is this process itself: passed over */
	nm_sock_holders_forget(&h);
	assert_int_equal(nm_sock_holder_cached(&h, t->proc, 111, 100, 100, &pid, &fd), -ENOENT);
	nm_sock_holders_free(&h);
}

/* Our own descriptors, lent back to us: the same socket, a new descriptor. */
static void test_getfd_self(void **state)
{
	int s = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0), got, closed;
	struct stat st, gst;

	(void)state;
	assert_int_equal(nm_sock_getfd_probe(), 0);
	assert_true(s >= 0);
	assert_int_equal(fstat(s, &st), 0);
	got = nm_sock_getfd(getpid(), s, st.st_ino);
	assert_true(got >= 0 && got != s);
	assert_int_equal(fstat(got, &gst), 0);
	assert_int_equal(gst.st_ino, st.st_ino);
	close(got);
	/* the number now stands for another file: not taken */
	assert_int_equal(nm_sock_getfd(getpid(), s, st.st_ino + 1), -ESTALE);
	/* a number no file has (not the last one closed: the pidfd would take it) */
	closed = 1000;
	assert_int_equal(fcntl(closed, F_GETFD), -1);
	assert_int_equal(nm_sock_getfd(getpid(), closed, st.st_ino), -EBADF);
	close(s);
}

/* A process that went: -ESRCH, as the kick takes a socket whose holder exited. */
static void test_getfd_gone(void **state)
{
	pid_t pid = fork();

	(void)state;
	assert_true(pid >= 0);
	if (!pid)
		_exit(0);
	assert_int_equal(waitpid(pid, NULL, 0), pid);
	assert_int_equal(nm_sock_getfd(pid, 0, 1), -ESRCH);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_holder, setup, teardown),
		cmocka_unit_test_setup_teardown(test_holder_none, setup, teardown),
		cmocka_unit_test_setup_teardown(test_holder_cached, setup, teardown),
		cmocka_unit_test_setup_teardown(test_holder_hint, setup, teardown),
		cmocka_unit_test(test_getfd_self),
		cmocka_unit_test(test_getfd_gone),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
