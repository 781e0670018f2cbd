/* SPDX-License-Identifier: GPL-2.0 */
/*
 * qdiscstuck_ns.h - one rtnetlink socket per netns in scope, for the qdisc
 * dumps of a host-wide sweep.
 *
 * A dump sees the netns its socket was made in, so each netns gets its
 * own: opened when the netns comes into scope (setns there and back, once),
 * kept across sweeps, and closed as soon as the scope no longer lists it,
 * because a socket holds its netns alive. Bounded: at most max sockets;
 * a netns beyond that, or whose socket cannot be opened (retried at the
 * next sweep: a netns can be mid-creation), is counted and not swept.
 *
 * The bookkeeping is pure: the open and the close are the caller's
 * (nm_rtnl_open_in and mnl_socket_close in qdiscstuck/collect.c,
 * fakes in tests).
 * Each sweep: qs_ns_begin, qs_ns_want for each netns in scope, qs_ns_end.
 */
#ifndef NETMEDIC_QDISCSTUCK_NS_H
#define NETMEDIC_QDISCSTUCK_NS_H

#include <stdbool.h>
#include <stddef.h>

/* Sockets kept for other namespaces than the tool's: a file descriptor each. */
#define QS_NS_SOCKS_MAX	256

/* Opens a socket in the netns at path (NULL: the tool's own); NULL on failure. */
typedef void *(*qs_ns_open_fn)(const char *path, void *arg);
/* Closes the socket of a netns that left the scope (or the run ends). */
typedef void (*qs_ns_close_fn)(void *sock, void *arg);

struct qs_ns_sock {
	unsigned long ino;
	void *sock;
	bool wanted;		/* listed since the last qs_ns_begin */
	bool own;		/* the tool's own netns (opened without a path) */
};

struct qs_ns_socks {
	struct qs_ns_sock *s;
	size_t n, max;
	qs_ns_open_fn open;
	qs_ns_close_fn close;
	void *arg;
	/* of the current sweep (from qs_ns_begin on) */
	unsigned long over;	/* namespaces not swept: the cap */
	unsigned long failed;	/* ... their socket could not be opened */
	unsigned long closed;	/* sockets closed by qs_ns_end: their netns left the scope */
	unsigned long *gone;	/* ... those namespaces' inodes, for the caller to forget */
	size_t ngone;
};

/* Room for max sockets (0: QS_NS_SOCKS_MAX). 0, or -ENOMEM. */
int qs_ns_init(struct qs_ns_socks *t, size_t max, qs_ns_open_fn open, qs_ns_close_fn close,
	       void *arg);
/* Closes every socket. */
void qs_ns_free(struct qs_ns_socks *t);

/* A sweep starts: its counts zeroed, no netns wanted yet. */
void qs_ns_begin(struct qs_ns_socks *t);
/*
 * Netns ino is in scope, entered by path (NULL: the tool's own, which is
 * never over the cap): its socket, opened now when it has none. NULL when
 * over the cap or the open failed (counted).
 */
void *qs_ns_want(struct qs_ns_socks *t, unsigned long ino, const char *path);
/*
 * The sweep's walk is over: the sockets of namespaces not wanted are
 * closed, and their inodes put in t->gone.
 */
void qs_ns_end(struct qs_ns_socks *t);

#endif /* NETMEDIC_QDISCSTUCK_NS_H */
