// SPDX-License-Identifier: GPL-2.0
/*
 * --fix=kick from userspace (tcpstall_kickfd.h): the socket of a kick
 * request taken from its process, and the ts_kick iterator's steps made
 * on it with the socket calls the BPF helpers stand for.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include "lib/hooks.h"
#include "lib/netns.h"
#include "lib/sockfd.h"
#include "tcpstall/kickfd.h"

int ts_kickfd_probe(char *why, size_t len)
{
	bool injected = nm_refuse_match(getenv("NETMEDIC_REFUSE"), TS_KICKFD_LABEL, "");
	int err = injected ? -EPERM : nm_sock_getfd_probe();

	if (err)
		snprintf(why, len, "%s: %s%s", TS_KICKFD_LABEL, strerror(-err),
			 injected ? " by NETMEDIC_REFUSE" : "");
	return err;
}

void ts_kickfd_warm(void)
{
	struct nm_diag_sock id = { .family = AF_INET }, d;
	char err[64];

	nm_sockdiag_tcp_find(&id, &d, err, sizeof(err));
}

void ts_kickfd_id(const struct ts_key *key, struct nm_diag_sock *id)
{
	memset(id, 0, sizeof(*id));
	id->family = key->family == NM_AF_INET6 ? AF_INET6 : AF_INET;
	id->lport = key->lport;
	id->rport = key->rport;
	/* IPv4: the first 4 bytes, as both the BPF key and sock_diag have it */
	memcpy(id->laddr, key->laddr, sizeof(id->laddr));
	memcpy(id->raddr, key->raddr, sizeof(id->raddr));
}

static void kick_fail(struct ts_kick *k, __u32 step, int err)
{
	k->step = step;
	k->err = err;
}

static int nodelay_set(int fd, int val)
{
	return setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &val, sizeof(val)) ? -errno : 0;
}

/*
 * setsockopt(2) runs do_tcp_setsockopt() under the socket lock, as
 * bpf_setsockopt() does from iter/tcp (sol_tcp_sockopt(), 6.1 on): setting
 * 1 pushes the pending frames (__tcp_sock_set_nodelay(), 5.10 too), and
 * why that sends a tsq_idle socket's data is said above kick_sock() in
 * src/tcpstall/tcpstall.bpf.c.
 */
void ts_kickfd_sock(int fd, bool halt, struct ts_kick *k)
{
	socklen_t len = sizeof(int);
	int val = 0, err;

	if (getsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &val, &len)) {
		kick_fail(k, TS_KICK_STEP_GET, -errno);
		return;
	}
	k->found = val;
	if (k->mode == TS_KICK_PUSH) {
		/* the journal holds the value read at the sweep: restore only that one */
		if (val != k->nodelay) {
			k->step = TS_KICK_STEP_CHANGED;
			return;
		}
		err = nodelay_set(fd, 1);
		if (err) {
			kick_fail(k, TS_KICK_STEP_SET, err);
			return;
		}
		if (halt) {
			k->step = TS_KICK_STEP_HALTED;
			return;
		}
	}
	err = nodelay_set(fd, k->nodelay);
	if (err) {
		kick_fail(k, TS_KICK_STEP_RESTORE, err);
		return;
	}
	k->step = TS_KICK_STEP_DONE;
}

/* The holder, or its descriptor, went after the walk (or since h learnt it). */
static bool went(int ret)
{
	return ret == -ESRCH || ret == -EBADF || ret == -ESTALE;
}

/* Socket inode ino taken from its holder (h, then hint, asked first): the descriptor, or -errno. */
static int take_ino(const char *proc, struct nm_sock_holders *h, unsigned long ino, pid_t hint)
{
	pid_t pid;
	int fd, ret;

	ret = nm_sock_holder_cached(h, proc, ino, getpid(), hint, &pid, &fd);
	if (!ret)
		ret = nm_sock_getfd(pid, fd, ino);
	if (h && went(ret)) {
		/* what h remembered is stale: a walk anew */
		nm_sock_holders_forget(h);
		ret = nm_sock_holder_cached(h, proc, ino, getpid(), 0, &pid, &fd);
		if (!ret)
			ret = nm_sock_getfd(pid, fd, ino);
	}
	return ret;
}

/* key's socket taken into *sfd (-1: it is gone, NONE): 0, or -errno when it cannot be taken. */
static int take(const char *proc, struct nm_sock_holders *h, const struct ts_key *key, pid_t hint, int *sfd)
{
	struct nm_diag_sock id, d;
	char err[160];
	int ret;

	*sfd = -1;
	/* the lookup sees this thread's netns only: a key of another is not there */
	if (key->netns != nm_netns_inode("/proc/thread-self/ns/net"))
		return 0;
	ts_kickfd_id(key, &id);
	ret = nm_sockdiag_tcp_find(&id, &d, err, sizeof(err));
	/* a timewait socket has no inode, and no process */
	if (ret == -ENOENT || (!ret && !d.inode))
		return 0;
	if (!ret)
		ret = take_ino(proc, h, d.inode, hint);
	/* a socket no process holds, or its holder went */
	if (ret == -ENOENT || went(ret))
		return 0;
	if (ret < 0)
		return ret;
	*sfd = ret;
	return 0;
}

void ts_kickfd(const char *proc, struct nm_sock_holders *h, const struct ts_key *key, pid_t hint,
	       bool halt, struct ts_kick *k)
{
	int fd, err = take(proc, h, key, hint, &fd);

	if (err) {
		kick_fail(k, TS_KICK_STEP_TAKE, err);
		return;
	}
	if (fd < 0)
		return;
	ts_kickfd_sock(fd, halt, k);
	close(fd);
}
