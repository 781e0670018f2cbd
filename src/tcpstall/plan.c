// SPDX-License-Identifier: GPL-2.0
/*
 * tcpstall's --fix policy: what to change, given one report's facts. No
 * I/O: the loader reads what a decision needs (asked for by TS_NEED_
 * bits) and hands the plan to lib/plan.c's executor.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include "netmedic/common.h"
#include "tcpstall/judge.h"
#include "tcpstall/plan.h"

#define RFS_FLOW_ENTRIES	32768	/* net.core.rps_sock_flow_entries, global */
#define RFS_FLOW_CNT		4096	/* rps_flow_cnt of each RX queue */

void ts_route_unfold(char *line)
{
	char *w = line;

	for (char *r = line; *r && *r != '\n'; r++) {
		if (*r == '\\' || ((*r == ' ' || *r == '\t') && w > line && w[-1] == ' '))
			continue;
		*w++ = *r == '\t' ? ' ' : *r;
	}
	*w = 0;
}

struct ctx {
	unsigned int fix;
	unsigned long netns;
	const struct ts_fix_facts *f;
	struct ts_fix_done *done;
	struct ts_fix_ask *ask;
	struct nm_plan *p;
};

/* Whether the facts of need are in; else asked for, for flow i. */
static bool have(struct ctx *c, unsigned int need, size_t i)
{
	if (c->f && (c->f->have & need))
		return true;
	c->ask->need |= need;
	if (need == TS_NEED_ROUTE_NAME)
		c->ask->route_flow = i;
	else if (need == TS_NEED_RFS)
		c->ask->rfs_flow = i;
	return false;
}

/* Any --fix names the first storm's quickack route (the change is --fix=routes'). */
static void name_route(struct ctx *c, const struct ts_fix_flow *fl, size_t i)
{
	char line[sizeof(c->f->route_line)];

	if (c->done->named || !fl->quickack_route)
		return;
	c->done->named = true;
	if (!have(c, TS_NEED_ROUTE_NAME, i) || !*c->f->route_line)
		return;
	snprintf(line, sizeof(line), "%s", c->f->route_line);
	ts_route_unfold(line);
	nm_plan_note(c->p, TS_FIX_NAME, "fix", "the route to %s has quickack 1: %s%s", c->f->route_addr,
		     line, c->fix & TS_FIX_ROUTES ? "" :
		     " (not changed: --fix=routes drops it while tcpstall runs)");
}

/* One listed route with quickack 1: `ip route replace` without it, the undo with it. */
static void replace_route(struct ctx *c, const char *listed, uint8_t family)
{
	char line[512], a[512], b[512], what[540];
	const char *do_argv[TS_ROUTE_WORDS], *undo_argv[TS_ROUTE_WORDS];

	snprintf(line, sizeof(line), "%s", listed);
	line[strcspn(line, "\n")] = 0;
	snprintf(a, sizeof(a), "%s", line);
	snprintf(b, sizeof(b), "%s", line);
	ts_route_argv(a, do_argv, false);
	ts_route_argv(b, undo_argv, true);
	if (family == NM_AF_INET6) {
		/* ip -6 route replace ... */
		memmove(&do_argv[2], &do_argv[1], (TS_ROUTE_WORDS - 2) * sizeof(*do_argv));
		memmove(&undo_argv[2], &undo_argv[1], (TS_ROUTE_WORDS - 2) * sizeof(*undo_argv));
		do_argv[1] = undo_argv[1] = "-6";
	}
	snprintf(what, sizeof(what), "route '%s'", line);
	nm_plan_cmd(c->p, TS_FIX_ROUTES, "fix routes", do_argv, undo_argv, what, "without quickack");
}

/* --fix=routes: every route of the storm's family that carries quickack 1. */
static void routes(struct ctx *c, const struct ts_fix_flow *fl, size_t i)
{
	if (!(c->fix & TS_FIX_ROUTES) || c->done->routes || !fl->quickack_route ||
	    fl->key.netns != c->netns)
		return;
	c->done->routes = true;
	c->ask->routes_family = fl->key.family;
	if (!have(c, TS_NEED_ROUTES, i))
		return;
	for (size_t r = 0; r < c->f->nroutes; r++)
		if (strstr(c->f->routes[r], " quickack 1"))
			replace_route(c, c->f->routes[r], fl->key.family);
}

/* --fix=defer: tcp_backlog_ack_defer 1 where it is 0. */
static void defer(struct ctx *c, const struct ts_fix_flow *fl)
{
	/* another netns's storm: not ours to change (ts_fix_elsewhere), and still to do here */
	if (!(c->fix & TS_FIX_DEFER) || c->done->defer || fl->key.netns != c->netns)
		return;
	c->done->defer = true;
	if (fl->defer == TS_DEFER_ABSENT)
		nm_plan_note(c->p, TS_FIX_DEFER, "fix",
			     "this kernel has no tcp_backlog_ack_defer (added in 6.7): no sysctl remedy for backlog ACKs");
	else if (fl->defer == 0)
		nm_plan_sysctl(c->p, TS_FIX_DEFER, 0, "fix", "net.ipv4.tcp_backlog_ack_defer", "1", c->netns);
}

/*
 * --fix=rfs: Receive Flow Steering for the first cross_cpu flow's device,
 * so that its softirq work follows the reader's CPU. The global table is
 * set first: without it the queues' tables steer nothing.
 */
static void rfs(struct ctx *c, const struct ts_fix_flow *fl, size_t i)
{
	const struct ts_fix_facts *f = c->f;
	char path[128], what[64], val[16];

	if (!(c->fix & TS_FIX_RFS) || c->done->rfs || fl->key.netns != c->netns)
		return;
	c->done->rfs = true;
	if (fl->rx_ifindex && !have(c, TS_NEED_RFS, i))
		return;
	if (!fl->rx_ifindex || !*f->rfs_dev) {
		nm_plan_note(c->p, TS_FIX_RFS, "fix rfs", "the receiving device of the flow is unknown: nothing changed");
		return;
	}
	if (f->rfs_unread)
		return;
	if (f->flow_entries >= RFS_FLOW_ENTRIES)
		nm_plan_note(c->p, TS_FIX_RFS, "fix",
			     "net.core.rps_sock_flow_entries is already >= %d: left as it is", RFS_FLOW_ENTRIES);
	else
		nm_plan_sysctl(c->p, TS_FIX_RFS, NM_ACT_INIT_NS | NM_ACT_REQUIRED, "fix rfs",
			       "net.core.rps_sock_flow_entries", "32768", 0);
	snprintf(val, sizeof(val), "%d", RFS_FLOW_CNT);
	for (size_t q = 0; q < f->nrxq; q++) {
		if (f->rxq[q].flow_cnt >= RFS_FLOW_CNT)
			continue;	/* already steering: leave the admin's value */
		snprintf(path, sizeof(path), "/sys/class/net/%s/queues/%s/rps_flow_cnt", f->rfs_dev,
			 f->rxq[q].name);
		snprintf(what, sizeof(what), "%s %s rps_flow_cnt", f->rfs_dev, f->rxq[q].name);
		nm_plan_file(c->p, TS_FIX_RFS, "fix rfs", path, what, val);
	}
}

/* --fix=autocork: tcp_autocorking 0 at the first tsq_idle stall in tcpstall's netns. */
static void autocork(struct ctx *c, const struct ts_fix_flow *fl)
{
	if (!(c->fix & TS_FIX_AUTOCORK) || c->done->autocork || fl->key.netns != c->netns)
		return;
	c->done->autocork = true;
	nm_plan_sysctl(c->p, TS_FIX_AUTOCORK, 0, "fix", "net.ipv4.tcp_autocorking", "0", c->netns);
}

unsigned int ts_fix_plan(unsigned int fix, unsigned long netns, const struct ts_fix_flow *fl, size_t n,
			 const struct ts_fix_facts *facts, struct ts_fix_done *done,
			 struct ts_fix_ask *ask, struct nm_plan *p)
{
	struct ts_fix_done d = *done;
	struct ctx c = { .fix = fix, .netns = netns, .f = facts, .done = &d, .ask = ask, .p = p };
	size_t n0 = p->n;

	*ask = (struct ts_fix_ask){};
	for (size_t i = 0; i < n; i++) {
		if (fl[i].storm) {
			name_route(&c, &fl[i], i);
			routes(&c, &fl[i], i);
			defer(&c, &fl[i]);
		}
		if (fl[i].cross_cpu)
			rfs(&c, &fl[i], i);
		if (fl[i].tsq_idle)
			autocork(&c, &fl[i]);
	}
	if (ask->need) {
		nm_plan_truncate(p, n0);
		return ask->need;
	}
	*done = d;
	return 0;
}

/* The batch holds the socket already (its stall dated otherwise). */
static bool kick_queued(const struct nm_plan *p, const struct ts_key *k)
{
	for (size_t i = 0; i < p->n; i++)
		if (p->a[i].kind == NM_ACT_RECORD && p->a[i].remedy == TS_FIX_KICK &&
		    !memcmp(&((const struct ts_kick_req *)p->a[i].data)->key, k, sizeof(*k)))
			return true;
	return false;
}

/* c's record, written before the kick: the key and the TCP_NODELAY --cleanup puts back. */
static int kick_add(struct nm_plan *p, const struct ts_kick_cand *c, uint64_t start_ns)
{
	struct ts_kick_req q = { .key = c->key, .start_ns = start_ns, .nodelay = c->nonagle & 1,
				 .holder = c->holder };
	char bufs[TS_KICK_FIELDS][64];
	const char *f[TS_KICK_FIELDS + 1];
	int ret;

	_Static_assert(sizeof(q) <= NM_ACT_DATA, "a kick request fits an action's data");
	ts_kick_record(&c->key, q.nodelay, bufs, f);
	ret = nm_plan_record(p, TS_FIX_KICK, "fix kick", "sockopt", f, "kicked", &q, sizeof(q));
	return ret < 0 ? ret : !ret;
}

/* A swept sample: tsq_idle (the test aid: any with unsent data), where no kicker takes them. */
static int kick_swept(const struct ts_kick_ctx *x, const struct ts_kick_cand *c, struct nm_plan *p)
{
	struct ts_sock *s = c->s;

	if (!s || (x->kicker && !x->cfg->any_state) ||
	    !ts_kick_wanted(c->state, s->stall_start_ns, s->kicked_stall_ns, s->last_kick_ns, c->now_ns,
			    p->n, x->cfg))
		return p->n >= x->cfg->batch ? -ENOSPC : 0;
	s->last_kick_ns = c->now_ns;
	s->kicked_stall_ns = s->stall_start_ns;
	return kick_add(p, c, s->stall_start_ns);
}

/*
 * Where the episode hooks run, an open episode is a tsq_idle socket for
 * sure, from its exact start: one open for --threshold is kicked even if
 * no sweep sampled it (a 40-ms stall may fall between two stretched
 * sweeps), and a socket that no sweep has seen lately too. Its old
 * TCP_NODELAY is the one the hooks saw at the start; the kick program
 * skips a socket whose TCP_NODELAY changed since.
 */
static int kick_marked(const struct ts_kick_ctx *x, const struct ts_kick_cand *c, struct nm_plan *p)
{
	struct ts_sock *s;

	if (c->now_ns < c->start_ns + x->threshold_ns || kick_queued(p, &c->key))
		return 0;
	s = x->sock ? x->sock(x->arg, &c->key) : NULL;
	if (!s || s->kicked_stall_ns == c->start_ns)
		return 0;
	if (!ts_kick_wanted(TS_TSQ_IDLE, c->start_ns, s->kicked_stall_ns, s->last_kick_ns, c->now_ns, p->n,
			    x->cfg))
		return p->n >= x->cfg->batch ? -ENOSPC : 0;
	s->last_kick_ns = c->now_ns;
	s->kicked_stall_ns = c->start_ns;
	return kick_add(p, c, c->start_ns);
}

unsigned int ts_fix_elsewhere(unsigned int fix, unsigned long netns, const struct ts_fix_flow *fl)
{
	unsigned int want = 0;

	if (fl->key.netns == netns)
		return 0;
	if (fl->storm)
		want |= TS_FIX_DEFER | (fl->quickack_route ? TS_FIX_ROUTES : 0);
	if (fl->cross_cpu)
		want |= TS_FIX_RFS;
	if (fl->tsq_idle)
		want |= TS_FIX_AUTOCORK;
	return want & fix;
}

bool ts_kick_elsewhere(const struct ts_kick_ctx *x, const struct ts_kick_cand *c)
{
	if (c->key.netns == x->netns)
		return false;
	switch (c->by) {
	case TS_KICK_BY_SWEEP:
		return c->s && c->s->stall_start_ns &&
		       (c->state == TS_TSQ_IDLE || (x->cfg && x->cfg->any_state));
	case TS_KICK_BY_MARK:
		return c->now_ns >= c->start_ns + x->threshold_ns;
	case TS_KICK_BY_TIMER:
		return true;
	}
	return false;
}

int ts_kick_plan(const struct ts_kick_ctx *x, const struct ts_kick_cand *c, struct nm_plan *p)
{
	if (c->key.netns != x->netns)
		return 0;
	switch (c->by) {
	case TS_KICK_BY_SWEEP:
		return kick_swept(x, c, p);
	case TS_KICK_BY_MARK:
		return kick_marked(x, c, p);
	case TS_KICK_BY_TIMER:
		/* one request per episode: each is one kick */
		if (p->n >= x->cfg->batch)
			return -ENOSPC;
		return kick_queued(p, &c->key) ? 0 : kick_add(p, c, c->start_ns);
	}
	return -EINVAL;
}
