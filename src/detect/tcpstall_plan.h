/* SPDX-License-Identifier: GPL-2.0 */
/*
 * tcpstall's remedy policy (--fix), pure: from the facts of one report
 * (its flows, the values the loader read, what was done already), the plan
 * of changes that lib/plan.c's executor makes. Each remedy is made once
 * per run, on the first report that calls for it, and only in the netns
 * tcpstall runs in (docs/tcpstall.md, REMEDIES).
 */
#ifndef NETMEDIC_TCPSTALL_PLAN_H
#define NETMEDIC_TCPSTALL_PLAN_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include "netmedic/tcpstall.h"
#include "lib/plan.h"

/* --fix's words, in the order of their bits */
enum ts_fix {
	TS_FIX_DEFER = 1,
	TS_FIX_AUTOCORK = 2,
	TS_FIX_RFS = 4,
	TS_FIX_ROUTES = 8,
	TS_FIX_KICK = 16,
};
/* a note that belongs to no --fix word: the quickack route's name */
#define TS_FIX_NAME	32

/* One flow at a report: an ACK row, or a socket in (or just out of) a stall. */
struct ts_fix_flow {
	struct ts_key key;	/* its netns and family decide; the rest is for the loader */
	uint8_t defer;		/* tcp_backlog_ack_defer of its netns: 0, 1 or TS_DEFER_ABSENT */
	bool storm;		/* an ACK storm (ts_judge_acks) */
	bool quickack_route;	/* ... with ACKs on a quickack route */
	bool cross_cpu;		/* softirq and application CPUs differ */
	bool tsq_idle;		/* a tsq_idle stall open, or ended in the interval */
	unsigned int rx_ifindex;	/* the device its last segment came in on, 0: unknown */
};

/* What was done already this run: each remedy is made once. */
struct ts_fix_done {
	bool named, routes, defer, rfs, autocork;
};

/* Facts the loader reads only when the policy asks (ts_fix_ask.need). */
#define TS_NEED_ROUTE_NAME	1u	/* ip -o route get, to the flow's remote address */
#define TS_NEED_ROUTES		2u	/* ip -4|-6 route show */
#define TS_NEED_RFS		4u	/* the device, rps_sock_flow_entries, its queues' rps_flow_cnt */

struct ts_fix_ask {
	unsigned int need;
	size_t route_flow;	/* TS_NEED_ROUTE_NAME: of this flow */
	uint8_t routes_family;	/* TS_NEED_ROUTES: of this family */
	size_t rfs_flow;	/* TS_NEED_RFS: this flow's rx_ifindex */
};

struct ts_rxq {
	char name[16];		/* "rx-0" */
	long flow_cnt;		/* rps_flow_cnt, -1: unread */
};

struct ts_fix_facts {
	unsigned int have;		/* TS_NEED_ bits read */
	char route_addr[64];		/* TS_NEED_ROUTE_NAME: the address, as printed */
	char route_line[256];		/* ... ip's first line, as read ("": none) */
	const char *const *routes;	/* TS_NEED_ROUTES: ip's lines, as read */
	size_t nroutes;
	char rfs_dev[16];		/* TS_NEED_RFS: the device's name, "": unknown */
	bool rfs_unread;		/* ... the initial netns could not be read (the loader said why) */
	long flow_entries;		/* ... net.core.rps_sock_flow_entries, -1: unread */
	const struct ts_rxq *rxq;	/* ... the device's RX queues */
	size_t nrxq;
};

/*
 * The remedies of one report: fix is --fix's mask, netns the inode of the
 * netns tcpstall runs in. The flows are judged in order (ACK rows, then
 * stalled sockets). When a fact the plan needs is not in facts, returns
 * its TS_NEED_ bits, with ask saying for which flow, and leaves done and
 * the plan as they were: read them and call again. Else returns 0, the
 * plan has the report's actions and done what they did.
 */
unsigned int ts_fix_plan(unsigned int fix, unsigned long netns, const struct ts_fix_flow *fl, size_t n,
			 const struct ts_fix_facts *facts, struct ts_fix_done *done,
			 struct ts_fix_ask *ask, struct nm_plan *p);

/* `ip -o` folds a route onto one line with "\"s: unfolded, single spaces, in place. */
void ts_route_unfold(char *line);

#endif
