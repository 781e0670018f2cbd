// SPDX-License-Identifier: GPL-2.0
/*
 * Unit tests for src/tcpstall/kickfd.c, --fix=kick's pidfd_getfd
 * rung: a key as sock_diag looks it up; the iterator's steps on a socket
 * of ours, each outcome as ts_kick's (done, changed, halted, restored, a
 * failed read); and the whole kick of a loopback socket that a child
 * process holds: found, taken, kicked, its TCP_NODELAY back; not found
 * when only we hold it or the key is of another netns.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <cmocka.h>
#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/wait.h>

#include "lib/netns.h"
#include "lib/sockfd.h"
#include "tcpstall/kickfd.h"

static void test_id(void **state)
{
	struct ts_key k4 = { .netns = 7, .family = NM_AF_INET, .lport = 55500, .rport = 5201,
			     .laddr = { 198, 18, 1, 1 }, .raddr = { 198, 18, 1, 2 } };
	struct ts_key k6 = { .netns = 7, .family = NM_AF_INET6, .lport = 443, .rport = 40000,
			     .laddr = { 0xfd, [15] = 1 }, .raddr = { 0xfd, [15] = 2 } };
	struct nm_diag_sock id;

	(void)state;
	ts_kickfd_id(&k4, &id);
	assert_int_equal(id.family, AF_INET);
	assert_int_equal(id.lport, 55500);
	assert_int_equal(id.rport, 5201);
	assert_memory_equal(id.laddr, k4.laddr, 16);
	assert_memory_equal(id.raddr, k4.raddr, 16);
	ts_kickfd_id(&k6, &id);
	assert_int_equal(id.family, AF_INET6);
	assert_int_equal(id.lport, 443);
	assert_memory_equal(id.laddr, k6.laddr, 16);
	assert_memory_equal(id.raddr, k6.raddr, 16);
}

static int nodelay(int fd)
{
	socklen_t len = sizeof(int);
	int v = -1;

	assert_int_equal(getsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &v, &len), 0);
	return v;
}

static void nodelay_set(int fd, int v)
{
	assert_int_equal(setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &v, sizeof(v)), 0);
}

static struct ts_kick kick_on(int fd, __u32 mode, int journaled, bool halt)
{
	struct ts_kick k = { .mode = mode, .nodelay = journaled };

	ts_kickfd_sock(fd, halt, &k);
	return k;
}

/* The iterator's steps, on a TCP socket of ours. */
static void test_sock_steps(void **state)
{
	int s = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0), p[2];
	struct ts_kick k;

	(void)state;
	assert_true(s >= 0);
	k = kick_on(s, TS_KICK_PUSH, 0, false);
	assert_int_equal(k.step, TS_KICK_STEP_DONE);
	assert_int_equal(k.found, 0);
	assert_int_equal(k.err, 0);
	assert_int_equal(nodelay(s), 0);
	/* the application set it since the sweep: left as it is */
	nodelay_set(s, 1);
	k = kick_on(s, TS_KICK_PUSH, 0, false);
	assert_int_equal(k.step, TS_KICK_STEP_CHANGED);
	assert_int_equal(k.found, 1);
	assert_int_equal(nodelay(s), 1);
	/* the test aid: stopped after the set */
	nodelay_set(s, 0);
	k = kick_on(s, TS_KICK_PUSH, 0, true);
	assert_int_equal(k.step, TS_KICK_STEP_HALTED);
	assert_int_equal(nodelay(s), 1);
	/* --cleanup's restore: whatever it is now, the journaled value back */
	k = kick_on(s, TS_KICK_RESTORE, 0, false);
	assert_int_equal(k.step, TS_KICK_STEP_DONE);
	assert_int_equal(k.found, 1);
	assert_int_equal(nodelay(s), 0);
	close(s);
	/* not a socket: the read fails, as bpf_getsockopt would */
	assert_int_equal(pipe(p), 0);
	k = kick_on(p[0], TS_KICK_PUSH, 0, false);
	assert_int_equal(k.step, TS_KICK_STEP_GET);
	assert_int_equal(k.err, -ENOTSOCK);
	close(p[0]);
	close(p[1]);
}

/* The key of connected IPv4 socket fd, in this netns. */
static struct ts_key key_of(int fd)
{
	struct sockaddr_in l, r;
	socklen_t ll = sizeof(l), rl = sizeof(r);
	struct ts_key k = { .family = NM_AF_INET };

	assert_int_equal(getsockname(fd, (struct sockaddr *)&l, &ll), 0);
	assert_int_equal(getpeername(fd, (struct sockaddr *)&r, &rl), 0);
	k.netns = nm_netns_inode("/proc/thread-self/ns/net");
	k.lport = ntohs(l.sin_port);
	k.rport = ntohs(r.sin_port);
	memcpy(k.laddr, &l.sin_addr, 4);
	memcpy(k.raddr, &r.sin_addr, 4);
	return k;
}

/* fds: a listener, a client connected to it, the accepted end (loopback). */
static void loop_pair(int fds[3])
{
	struct sockaddr_in a = { .sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_LOOPBACK) };
	socklen_t al = sizeof(a);

	fds[0] = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
	assert_true(fds[0] >= 0);
	assert_int_equal(bind(fds[0], (struct sockaddr *)&a, al), 0);
	assert_int_equal(listen(fds[0], 1), 0);
	assert_int_equal(getsockname(fds[0], (struct sockaddr *)&a, &al), 0);
	fds[1] = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
	assert_int_equal(connect(fds[1], (struct sockaddr *)&a, al), 0);
	fds[2] = accept4(fds[0], NULL, NULL, SOCK_CLOEXEC);
	assert_true(fds[2] >= 0);
}

/* A child holding sock alone (the others closed there, before it returns) until go is closed; its pid. */
static pid_t holder(int sock, const int fds[3], int go[2])
{
	int ready[2];
	pid_t pid;
	char c = 0;

	assert_int_equal(pipe(go), 0);
	assert_int_equal(pipe(ready), 0);
	pid = fork();
	assert_true(pid >= 0);
	if (pid) {
		close(ready[1]);
		assert_int_equal(read(ready[0], &c, 1), 1);
		close(ready[0]);
		return pid;
	}
	for (int i = 0; i < 3; i++)
		if (fds[i] != sock)
			close(fds[i]);
	close(go[1]);
	close(ready[0]);
	if (write(ready[1], &c, 1) != 1)
		_exit(1);
	while (read(go[0], &c, 1) < 0 && errno == EINTR)
		;
	_exit(0);
}

/*
 * A /proc of two processes, us and the holder, links to the real ones:
 * a process of the host that even root may not read (a sandbox's init)
 * would make "no holder" unknown (TAKE, -EACCES).
 */
static char proc[] = "/tmp/nm-kickfd.XXXXXX";

static void proc_of(pid_t holder)
{
	char link[64], target[32];

	assert_non_null(mkdtemp(proc));
	for (int i = 0; i < 2; i++) {
		pid_t pid = i ? holder : getpid();

		snprintf(target, sizeof(target), "/proc/%d", (int)pid);
		snprintf(link, sizeof(link), "%s/%d", proc, (int)pid);
		assert_int_equal(symlink(target, link), 0);
	}
}

static void proc_free(pid_t holder)
{
	char link[64];

	snprintf(link, sizeof(link), "%s/%d", proc, (int)getpid());
	unlink(link);
	snprintf(link, sizeof(link), "%s/%d", proc, (int)holder);
	unlink(link);
	rmdir(proc);
}

/* The child's socket, read through a descriptor taken from it. */
static int held_nodelay(pid_t pid, unsigned long ino, int set)
{
	int fd, fdn = -1, v;

	assert_int_equal(nm_sock_holder(proc, ino, getpid(), &pid, &fdn), 0);
	fd = nm_sock_getfd(pid, fdn, ino);
	assert_true(fd >= 0);
	if (set >= 0)
		nodelay_set(fd, set);
	v = nodelay(fd);
	close(fd);
	return v;
}

/* A kick whose socket is not found: its request untouched, as the iterator leaves it (NONE). */
static void assert_untouched(const struct ts_key *key)
{
	struct ts_kick k = { .mode = TS_KICK_PUSH, .found = -7 };

	ts_kickfd(proc, NULL, key, 0, false, &k);
	assert_int_equal(k.step, TS_KICK_STEP_NONE);
	assert_int_equal(k.err, 0);
	assert_int_equal(k.found, -7);
}

static void test_kick_held(void **state)
{
	int fds[3] = { -1, -1, -1 }, go[2] = { -1, -1 };
	struct ts_kick k = { .mode = TS_KICK_PUSH };
	struct ts_key key, mine;
	unsigned long ino;
	struct stat st;
	pid_t pid;

	(void)state;
	loop_pair(fds);
	key = key_of(fds[1]);
	mine = key_of(fds[2]);
	assert_int_equal(fstat(fds[1], &st), 0);
	ino = st.st_ino;
	pid = holder(fds[1], fds, go);
	close(fds[1]);
	close(go[0]);
	proc_of(pid);
	ts_kickfd(proc, NULL, &key, 0, false, &k);
	assert_int_equal(k.step, TS_KICK_STEP_DONE);
	assert_int_equal(k.err, 0);
	assert_int_equal(k.found, 0);
	assert_int_equal(held_nodelay(pid, ino, -1), 0);
	/* --cleanup's restore, through the same path */
	assert_int_equal(held_nodelay(pid, ino, 1), 1);
	k = (struct ts_kick){ .mode = TS_KICK_RESTORE, .nodelay = 0 };
	ts_kickfd(proc, NULL, &key, 0, false, &k);
	assert_int_equal(k.step, TS_KICK_STEP_DONE);
	assert_int_equal(k.found, 1);
	assert_int_equal(held_nodelay(pid, ino, -1), 0);
	/* the holder hinted (the process a BPF program saw push): taken from it, remembered */
	struct nm_sock_holders h = {};

	k = (struct ts_kick){ .mode = TS_KICK_PUSH };
	ts_kickfd(proc, &h, &key, pid, false, &k);
	assert_int_equal(k.step, TS_KICK_STEP_DONE);
	assert_int_equal(h.pid, pid);
	nm_sock_holders_free(&h);
	/* a key of another netns names another socket: not there */
	key.netns++;
	assert_untouched(&key);
	/* the accepted end: only we hold it, and we are not looked at */
	assert_untouched(&mine);
	close(go[1]);
	assert_int_equal(waitpid(pid, NULL, 0), pid);
	/* the holder gone, its socket closed: not found */
	key.netns--;
	assert_untouched(&key);
	proc_free(pid);
	close(fds[2]);
	close(fds[0]);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_id),
		cmocka_unit_test(test_sock_steps),
		cmocka_unit_test(test_kick_held),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
