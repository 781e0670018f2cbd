/* SPDX-License-Identifier: GPL-2.0 */
/*
 * tcpstall's remedy policy (--fix), pure: from the facts of one report
 * (its flows, the values the loader read, what was done already), the plan
 * of changes that lib/plan.c's executor makes. Each remedy is made once
 * per run, on the first report that calls for it, and only in the netns
 * tcpstall runs in (docs/reference/tcpstall.md, REMEDIES): a flow of another netns
 * is said once (ts_fix_elsewhere, ts_kick_elsewhere), never acted on.
 */
#ifndef NETMEDIC_TCPSTALL_PLAN_H
#define NETMEDIC_TCPSTALL_PLAN_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include "tcpstall/tcpstall.h"
#include "tcpstall/judge.h"
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

/*
 * The remedies of fix (TS_FIX_DEFER, _ROUTES, _RFS, _AUTOCORK) that fl
 * would call for were it in netns, the one tcpstall runs in: a flow of
 * another netns is left alone by ts_fix_plan, and the loader says so,
 * once per netns and remedy (each changes a whole netns). 0 for a flow
 * of netns.
 */
unsigned int ts_fix_elsewhere(unsigned int fix, unsigned long netns, const struct ts_fix_flow *fl);

/* --fix=kick: where a socket to kick was found */
enum ts_kick_by {
	TS_KICK_BY_SWEEP,	/* a swept sample, the main loop's */
	TS_KICK_BY_MARK,	/* an open episode (tsq_marks), walked by the main loop without a kicker */
	TS_KICK_BY_TIMER,	/* the kick timer's request (kick_due), taken by the kicker thread */
};

/* One socket --fix=kick may kick. */
struct ts_kick_cand {
	enum ts_kick_by by;
	struct ts_key key;
	enum ts_state state;	/* SWEEP: ts_classify() of the sample */
	uint64_t start_ns;	/* MARK, TIMER: the episode's start (SWEEP: its ts_sock's stall) */
	uint64_t now_ns;
	uint8_t nonagle;	/* tp->nonagle: its bit 0, TCP_NODELAY, is what the journal keeps */
	pid_t holder;		/* MARK, TIMER: the process that began the episode (0: unknown) */
	struct ts_sock *s;	/* SWEEP: its memory; else looked up (ts_kick_ctx.sock) when needed */
};

/* A kick as its action carries it to the tool's batch (nm_action.data). */
struct ts_kick_req {
	struct ts_key key;
	uint64_t start_ns;	/* the stall's start (0: unknown): the kick's age */
	int nodelay;		/* TCP_NODELAY at the stall's start: its record's old value */
	pid_t holder;		/* a process that likely holds it (0: unknown): the userspace kick asks it first */
};

struct ts_kick_ctx {
	unsigned long netns;		/* tcpstall's: the kick iterator sees its sockets only */
	uint64_t threshold_ns;		/* MARK: an episode is kicked once open this long */
	bool kicker;			/* a kicker thread takes the timer's requests: the sweep leaves tsq_idle to it */
	const struct ts_kick_cfg *cfg;
	/* a socket's memory, made at first use (nm_htab_upsert), NULL when there is no room */
	struct ts_sock *(*sock)(void *arg, const struct ts_key *k);
	void *arg;
};

/*
 * Whether c is kicked in the next pass, p (a batch of at most
 * cfg->batch): its action, a "sockopt" record of its key and old
 * TCP_NODELAY (NM_ACT_RECORD, remedy TS_FIX_KICK, data a ts_kick_req), is
 * added and the kick noted in its socket's memory (SWEEP and MARK; the
 * timer fires once per episode). 1 added, 0 not wanted, -ENOSPC the batch
 * is full (TIMER: kick it, then ask again; SWEEP, MARK: a later pass
 * finds it again), -errno.
 */
int ts_kick_plan(const struct ts_kick_ctx *x, const struct ts_kick_cand *c, struct nm_plan *p);

/*
 * Whether c is a socket of another netns than x's that --fix=kick would
 * kick were it in x's: one stalled in tsq_idle (SWEEP), an episode open
 * for the threshold (MARK). ts_kick_plan leaves it; the loader says so,
 * once per socket.
 */
bool ts_kick_elsewhere(const struct ts_kick_ctx *x, const struct ts_kick_cand *c);

/* `ip -o` folds a route onto one line with "\"s: unfolded, single spaces, in place. */
void ts_route_unfold(char *line);

#endif
