/* SPDX-License-Identifier: GPL-2.0 */
/*
 * rtnl.h - rtnetlink sweeps (libmnl): the statistics of every qdisc, as
 * `tc -s qdisc show` prints them. The kernel sums the per-CPU counters of
 * lockless qdiscs into these, so qlen here is their real length.
 */
#ifndef NETMEDIC_LIB_RTNL_H
#define NETMEDIC_LIB_RTNL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <libmnl/libmnl.h>

/*
 * mnl_cb_run() over the whole messages of a received buffer only: what
 * every dump here (rtnl, sock_diag) walks its replies with. A message
 * whose length runs past the buffer ends the walk there, as one libmnl
 * would misread (see rtnl.c). Returns what mnl_cb_run() returns.
 */
int nm_nl_run(const void *buf, size_t n, unsigned int seq, unsigned int portid, mnl_cb_t cb,
	      void *data);

struct nm_qdisc_stats {
	unsigned int ifindex;
	uint32_t handle;
	uint32_t parent;	/* TC_H_ROOT (0xffffffff) for a root */
	char kind[16];
	bool has_basic;		/* TCA_STATS_BASIC seen */
	bool has_queue;		/* TCA_STATS_QUEUE seen */
	uint64_t bytes;
	uint64_t packets;	/* TCA_STATS_PKT64 when present, else the 32-bit count */
	uint32_t qlen;
	uint32_t backlog;	/* bytes */
	uint32_t drops;
	uint32_t requeues;
	uint32_t overlimits;
};

/*
 * Parses one RTM_NEWQDISC message into out. 0, or -EINVAL when it is not a
 * qdisc message or its attributes do not validate.
 */
int nm_rtnl_qdisc_parse(const struct nlmsghdr *nlh, struct nm_qdisc_stats *out);

/* Called per qdisc; a non-zero return stops the dump and is returned. */
typedef int (*nm_qdisc_cb)(const struct nm_qdisc_stats *q, void *arg);

/*
 * Dumps every qdisc of the current network namespace (RTM_GETQDISC, with
 * TCA_DUMP_INVISIBLE so that default children show too); ifindex 0 for
 * every device, else only that one. 0, the callback's return, or -errno
 * with a one-line reason in err.
 */
int nm_rtnl_qdisc_dump(unsigned int ifindex, nm_qdisc_cb cb, void *arg, char *err, size_t errlen);

/*
 * The tc filters of ifindex under parent (a qdisc's handle, or a clsact
 * direction: TC_H_MAKE(TC_H_CLSACT, TC_H_MIN_EGRESS)) in the current
 * netns, from an RTM_GETTFILTER dump. Their number, or -errno with err.
 */
int nm_rtnl_filter_count(unsigned int ifindex, uint32_t parent, char *err, size_t errlen);

/*
 * A netlink socket of bus (NETLINK_ROUTE, NETLINK_SOCK_DIAG) inside the
 * netns at ns_path (NULL: this thread's), bound to groups, with flags
 * (SOCK_NONBLOCK or 0; always close-on-exec). NULL with a one-line
 * reason in err; the thread is back in its own netns either way. The
 * socket stays in the netns it was made in (and holds it alive).
 */
struct mnl_socket *nm_nl_open_in(int bus, const char *ns_path, unsigned int groups, int flags,
				 char *err, size_t len);

/* nm_nl_open_in for rtnetlink, bound to groups (RTMGRP_*), non-blocking. */
struct mnl_socket *nm_rtnl_open_in(const char *ns_path, unsigned int groups, char *err,
				   size_t len);

/*
 * The same dump on a socket the caller keeps (one per netns: it dumps the
 * netns it was opened in, see nm_rtnl_open_in), blocking or not, bound to
 * no multicast group. The reply is read to its end even when cb stops
 * early, so the socket is ready for the next dump.
 */
int nm_rtnl_qdisc_dump_on(struct mnl_socket *nl, unsigned int ifindex, nm_qdisc_cb cb, void *arg,
			  char *err, size_t errlen);

#endif
