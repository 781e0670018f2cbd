// SPDX-License-Identifier: GPL-2.0
/*
 * Unit tests for tcpstall's --fix policy (src/tcpstall/plan.c):
 * every remedy's trigger and each of its non-triggers (its --fix word
 * absent, the cause absent, another netns, made already, the value already
 * right), the facts it asks for, and the order of a report's actions;
 * and --fix=kick's choice of sockets (ts_kick_plan), from each source (a
 * sweep, an open episode, the kick timer), kicked and not.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <cmocka.h>

#include "netmedic/common.h"
#include "tcpstall/plan.h"

#define HERE	4026532180UL	/* tcpstall's netns */
#define OTHER	4026531840U
#define ALL	(TS_FIX_DEFER | TS_FIX_AUTOCORK | TS_FIX_RFS | TS_FIX_ROUTES | TS_FIX_KICK)

static struct ts_fix_flow storm(uint32_t netns, uint8_t defer, bool quickack)
{
	struct ts_fix_flow f = { .key = { .netns = netns, .family = NM_AF_INET }, .defer = defer,
				 .storm = true, .quickack_route = quickack };

	f.key.raddr[0] = 198;
	return f;
}

static struct ts_fix_flow cross(uint32_t netns, unsigned int ifindex)
{
	return (struct ts_fix_flow){ .key = { .netns = netns }, .cross_cpu = true, .rx_ifindex = ifindex };
}

static struct ts_fix_flow tsq(uint32_t netns)
{
	return (struct ts_fix_flow){ .key = { .netns = netns }, .tsq_idle = true };
}

/* A plan that needs no facts: asked for none, made. */
static void plan(unsigned int fix, const struct ts_fix_flow *fl, size_t n, struct ts_fix_done *d,
		 struct nm_plan *p)
{
	struct ts_fix_ask ask;

	assert_int_equal(ts_fix_plan(fix, HERE, fl, n, NULL, d, &ask, p), 0);
	assert_int_equal(ask.need, 0);
}

static const char *line(const struct nm_action *a)
{
	static char buf[1024];

	assert_int_equal(nm_action_line(a, buf, sizeof(buf)), 0);
	return buf;
}

static void test_defer(void **state)
{
	struct ts_fix_flow fl[] = { storm(HERE, 0, false), storm(HERE, 0, false) };
	struct ts_fix_done d = {};
	struct nm_plan p = {};

	(void)state;
	plan(TS_FIX_DEFER, fl, 2, &d, &p);
	assert_int_equal(p.n, 1);
	assert_int_equal(p.a[0].kind, NM_ACT_SYSCTL);
	assert_int_equal(p.a[0].remedy, TS_FIX_DEFER);
	assert_int_equal(p.a[0].flags, 0);
	assert_string_equal(p.a[0].target, "net.ipv4.tcp_backlog_ack_defer");
	assert_string_equal(p.a[0].val, "1");
	assert_int_equal(p.a[0].netns, HERE);
	assert_string_equal(p.a[0].tag, "fix");
	assert_true(d.defer);
	/* once per run */
	nm_plan_truncate(&p, 0);
	plan(TS_FIX_DEFER, fl, 2, &d, &p);
	assert_int_equal(p.n, 0);
	nm_plan_free(&p);
}

static void test_defer_not(void **state)
{
	struct ts_fix_flow on = storm(HERE, 1, false), absent = storm(HERE, TS_DEFER_ABSENT, false);
	struct ts_fix_flow other = storm(OTHER, 0, false), calm = storm(HERE, 0, false);
	struct ts_fix_done d = {};
	struct nm_plan p = {};

	(void)state;
	/* --fix without defer */
	plan(ALL & ~TS_FIX_DEFER, &calm, 1, &d, &p);
	assert_int_equal(p.n, 0);
	assert_false(d.defer);
	/* no storm */
	calm.storm = false;
	plan(TS_FIX_DEFER, &calm, 1, &d, &p);
	assert_int_equal(p.n, 0);
	assert_false(d.defer);
	/* already 1: nothing, and not again */
	plan(TS_FIX_DEFER, &on, 1, &d, &p);
	assert_int_equal(p.n, 0);
	assert_true(d.defer);
	/* a kernel without it: said once */
	d = (struct ts_fix_done){};
	plan(TS_FIX_DEFER, &absent, 1, &d, &p);
	assert_int_equal(p.n, 1);
	assert_int_equal(p.a[0].kind, NM_ACT_NOTE);
	assert_string_equal(line(&p.a[0]),
			    "fix: this kernel has no tcp_backlog_ack_defer (added in 6.7): no sysctl remedy for backlog ACKs");
	assert_true(d.defer);
	/*
	 * another netns: not changed, and still to do here (the loader
	 * says it, once per netns: ts_fix_elsewhere)
	 */
	d = (struct ts_fix_done){};
	nm_plan_truncate(&p, 0);
	plan(TS_FIX_DEFER, &other, 1, &d, &p);
	assert_int_equal(p.n, 0);
	assert_false(d.defer);
	/* ... so a storm of ours after it is still fixed */
	{
		struct ts_fix_flow both[] = { other, storm(HERE, 0, false) };

		plan(TS_FIX_DEFER, both, 2, &d, &p);
		assert_int_equal(p.n, 1);
		assert_int_equal(p.a[0].kind, NM_ACT_SYSCTL);
		assert_int_equal(p.a[0].netns, HERE);
		assert_true(d.defer);
	}
	nm_plan_free(&p);
}

static void test_autocork(void **state)
{
	struct ts_fix_flow fl[] = { tsq(OTHER), tsq(HERE), tsq(HERE) };
	struct ts_fix_done d = {};
	struct nm_plan p = {};

	(void)state;
	plan(TS_FIX_AUTOCORK, fl, 3, &d, &p);
	assert_int_equal(p.n, 1);
	assert_int_equal(p.a[0].kind, NM_ACT_SYSCTL);
	assert_string_equal(p.a[0].target, "net.ipv4.tcp_autocorking");
	assert_string_equal(p.a[0].val, "0");
	assert_int_equal(p.a[0].netns, HERE);
	assert_true(d.autocork);
	nm_plan_truncate(&p, 0);
	plan(TS_FIX_AUTOCORK, fl, 3, &d, &p);
	assert_int_equal(p.n, 0);
	/* another netns only: nothing, and still to do */
	d = (struct ts_fix_done){};
	plan(TS_FIX_AUTOCORK, fl, 1, &d, &p);
	assert_int_equal(p.n, 0);
	assert_false(d.autocork);
	/* without autocork in --fix, or with no tsq_idle stall */
	plan(ALL & ~TS_FIX_AUTOCORK, fl, 3, &d, &p);
	assert_int_equal(p.n, 0);
	assert_false(d.autocork);
	fl[1].tsq_idle = fl[2].tsq_idle = false;
	plan(TS_FIX_AUTOCORK, fl, 3, &d, &p);
	assert_int_equal(p.n, 0);
	assert_false(d.autocork);
	nm_plan_free(&p);
}

/* The first storm with a quickack route is named, with any --fix. */
static void test_name_route(void **state)
{
	struct ts_fix_flow fl[] = { storm(HERE, 1, false), storm(OTHER, 1, true) };
	struct ts_fix_facts f = { .have = TS_NEED_ROUTE_NAME, .route_addr = "198.18.1.1",
				  .route_line = "198.18.1.1 dev ts1 src 198.18.1.2 uid 0 \\    cache  quickack 1 \n" };
	struct ts_fix_done d = {};
	struct ts_fix_ask ask;
	struct nm_plan p = {};

	(void)state;
	assert_int_equal(ts_fix_plan(TS_FIX_DEFER, HERE, fl, 2, NULL, &d, &ask, &p), TS_NEED_ROUTE_NAME);
	assert_int_equal(ask.route_flow, 1);
	/* asked: nothing planned, nothing done yet */
	assert_int_equal(p.n, 0);
	assert_false(d.named);
	assert_false(d.defer);
	assert_int_equal(ts_fix_plan(TS_FIX_DEFER, HERE, fl, 2, &f, &d, &ask, &p), 0);
	assert_int_equal(p.n, 1);
	assert_int_equal(p.a[0].remedy, TS_FIX_NAME);
	assert_string_equal(line(&p.a[0]),
			    "fix: the route to 198.18.1.1 has quickack 1: 198.18.1.1 dev ts1 src 198.18.1.2 uid 0 cache quickack 1  (not changed: --fix=routes drops it while tcpstall runs)");
	assert_true(d.named && d.defer);
	/* named once */
	nm_plan_truncate(&p, 0);
	assert_int_equal(ts_fix_plan(TS_FIX_DEFER, HERE, fl, 2, NULL, &d, &ask, &p), 0);
	assert_int_equal(p.n, 0);
	/* with routes in --fix the line does not say it is left */
	d = (struct ts_fix_done){ .routes = true };
	assert_int_equal(ts_fix_plan(TS_FIX_ROUTES, HERE, fl, 2, &f, &d, &ask, &p), 0);
	assert_string_equal(line(&p.a[0]),
			    "fix: the route to 198.18.1.1 has quickack 1: 198.18.1.1 dev ts1 src 198.18.1.2 uid 0 cache quickack 1 ");
	/* ip said nothing: no line, and not asked again */
	d = (struct ts_fix_done){};
	f.route_line[0] = 0;
	nm_plan_truncate(&p, 0);
	assert_int_equal(ts_fix_plan(TS_FIX_DEFER, HERE, fl, 2, &f, &d, &ask, &p), 0);
	assert_int_equal(p.n, 0);
	assert_true(d.named);
	/* no quickack route, or no storm: never asked */
	d = (struct ts_fix_done){};
	fl[1].quickack_route = false;
	assert_int_equal(ts_fix_plan(ALL, HERE, fl, 2, NULL, &d, &ask, &p), 0);
	fl[1].quickack_route = true;
	fl[1].storm = false;
	assert_int_equal(ts_fix_plan(ALL, HERE, fl, 2, NULL, &d, &ask, &p), 0);
	assert_false(d.named);
	nm_plan_free(&p);
}

static void test_unfold(void **state)
{
	char a[] = "1.2.3.4 via 5.6.7.8 dev x \\    cache \t quickack 1 \n";
	char b[] = "";

	(void)state;
	ts_route_unfold(a);
	assert_string_equal(a, "1.2.3.4 via 5.6.7.8 dev x cache quickack 1 ");
	ts_route_unfold(b);
	assert_string_equal(b, "");
}

static void test_routes(void **state)
{
	const char *lines[] = { "default via 198.18.1.254 dev ts1 \n",
				"198.18.1.1 dev ts1 scope link quickack 1 linkdown \n",
				"198.18.2.0/24 dev ts2 proto kernel scope link quickack 1\n" };
	struct ts_fix_flow fl = storm(HERE, 1, true);
	struct ts_fix_facts f = { .have = TS_NEED_ROUTE_NAME | TS_NEED_ROUTES, .routes = lines, .nroutes = 3 };
	struct ts_fix_done d = { .named = true };
	struct ts_fix_ask ask;
	struct nm_plan p = {};

	(void)state;
	assert_int_equal(ts_fix_plan(TS_FIX_ROUTES, HERE, &fl, 1, NULL, &d, &ask, &p), TS_NEED_ROUTES);
	assert_int_equal(ask.routes_family, NM_AF_INET);
	assert_false(d.routes);
	assert_int_equal(ts_fix_plan(TS_FIX_ROUTES, HERE, &fl, 1, &f, &d, &ask, &p), 0);
	assert_true(d.routes);
	/* the default route has no quickack: left */
	assert_int_equal(p.n, 2);
	assert_int_equal(p.a[0].kind, NM_ACT_CMD);
	assert_string_equal(p.a[0].tag, "fix routes");
	assert_string_equal(p.a[0].target, "ip\troute\treplace\t198.18.1.1\tdev\tts1\tscope\tlink");
	assert_string_equal(p.a[0].undo, "ip\troute\treplace\t198.18.1.1\tdev\tts1\tscope\tlink\tquickack\t1");
	assert_string_equal(line(&p.a[0]),
			    "fix: route '198.18.1.1 dev ts1 scope link quickack 1 linkdown ' -> without quickack (restored at exit)");
	assert_string_equal(p.a[1].target, "ip\troute\treplace\t198.18.2.0/24\tdev\tts2\tproto\tkernel\tscope\tlink");
	/* once */
	nm_plan_truncate(&p, 0);
	assert_int_equal(ts_fix_plan(TS_FIX_ROUTES, HERE, &fl, 1, &f, &d, &ask, &p), 0);
	assert_int_equal(p.n, 0);
	/* IPv6: ip -6 */
	d = (struct ts_fix_done){ .named = true };
	fl.key.family = NM_AF_INET6;
	lines[0] = "2001:db8::1 dev ts1 metric 1024 quickack 1 pref medium\n";
	f.nroutes = 1;
	assert_int_equal(ts_fix_plan(TS_FIX_ROUTES, HERE, &fl, 1, &f, &d, &ask, &p), 0);
	assert_int_equal(ask.routes_family, NM_AF_INET6);
	assert_string_equal(p.a[0].target, "ip\t-6\troute\treplace\t2001:db8::1\tdev\tts1\tmetric\t1024\tpref\tmedium");
	assert_string_equal(p.a[0].undo,
			    "ip\t-6\troute\treplace\t2001:db8::1\tdev\tts1\tmetric\t1024\tquickack\t1\tpref\tmedium");
	nm_plan_free(&p);
}

static void test_routes_not(void **state)
{
	struct ts_fix_flow fl = storm(OTHER, 1, true);
	struct ts_fix_done d = { .named = true };
	struct ts_fix_ask ask;
	struct nm_plan p = {};

	(void)state;
	/* another netns: its routes are not tcpstall's to change */
	assert_int_equal(ts_fix_plan(TS_FIX_ROUTES, HERE, &fl, 1, NULL, &d, &ask, &p), 0);
	assert_false(d.routes);
	/* without routes in --fix; without a quickack route; without a storm */
	fl.key.netns = HERE;
	assert_int_equal(ts_fix_plan(ALL & ~TS_FIX_ROUTES, HERE, &fl, 1, NULL, &d, &ask, &p), 0);
	assert_false(d.routes);
	fl.quickack_route = false;
	assert_int_equal(ts_fix_plan(TS_FIX_ROUTES, HERE, &fl, 1, NULL, &d, &ask, &p), 0);
	fl.quickack_route = true;
	fl.storm = false;
	assert_int_equal(ts_fix_plan(TS_FIX_ROUTES, HERE, &fl, 1, NULL, &d, &ask, &p), 0);
	assert_false(d.routes);
	assert_int_equal(p.n, 0);
	nm_plan_free(&p);
}

static void test_rfs(void **state)
{
	struct ts_rxq q[] = { { "rx-0", 0 }, { "rx-1", 4096 }, { "rx-2", -1 } };
	struct ts_fix_flow fl[] = { tsq(HERE), cross(HERE, 3), cross(HERE, 4) };
	struct ts_fix_facts f = { .have = TS_NEED_RFS, .rfs_dev = "ts1", .flow_entries = 0, .rxq = q, .nrxq = 3 };
	struct ts_fix_done d = {};
	struct ts_fix_ask ask;
	struct nm_plan p = {};

	(void)state;
	assert_int_equal(ts_fix_plan(TS_FIX_RFS, HERE, fl, 3, NULL, &d, &ask, &p), TS_NEED_RFS);
	assert_int_equal(ask.rfs_flow, 1);
	assert_false(d.rfs);
	assert_int_equal(ts_fix_plan(TS_FIX_RFS, HERE, fl, 3, &f, &d, &ask, &p), 0);
	assert_true(d.rfs);
	/* the global table first, from the initial netns; then the queues without one */
	assert_int_equal(p.n, 3);
	assert_int_equal(p.a[0].kind, NM_ACT_SYSCTL);
	assert_int_equal(p.a[0].flags, NM_ACT_INIT_NS | NM_ACT_REQUIRED);
	assert_string_equal(p.a[0].target, "net.core.rps_sock_flow_entries");
	assert_string_equal(p.a[0].val, "32768");
	assert_string_equal(p.a[0].tag, "fix rfs");
	assert_int_equal(p.a[1].kind, NM_ACT_FILE);
	assert_string_equal(p.a[1].target, "/sys/class/net/ts1/queues/rx-0/rps_flow_cnt");
	assert_string_equal(p.a[1].val, "4096");
	assert_string_equal(p.a[2].target, "/sys/class/net/ts1/queues/rx-2/rps_flow_cnt");
	strcpy(p.a[1].old, "0");
	assert_string_equal(line(&p.a[1]), "fix: ts1 rx-0 rps_flow_cnt 0 -> 4096 (restored at exit)");
	/* once */
	nm_plan_truncate(&p, 0);
	assert_int_equal(ts_fix_plan(TS_FIX_RFS, HERE, fl, 3, &f, &d, &ask, &p), 0);
	assert_int_equal(p.n, 0);
	/* the global table large enough: left, said; the queues still */
	d = (struct ts_fix_done){};
	f.flow_entries = 32768;
	assert_int_equal(ts_fix_plan(TS_FIX_RFS, HERE, fl, 3, &f, &d, &ask, &p), 0);
	assert_int_equal(p.n, 3);
	assert_string_equal(line(&p.a[0]),
			    "fix: net.core.rps_sock_flow_entries is already >= 32768: left as it is");
	assert_int_equal(p.a[1].kind, NM_ACT_FILE);
	/* every queue steering already */
	d = (struct ts_fix_done){};
	q[0].flow_cnt = q[2].flow_cnt = 8192;
	nm_plan_truncate(&p, 0);
	assert_int_equal(ts_fix_plan(TS_FIX_RFS, HERE, fl, 3, &f, &d, &ask, &p), 0);
	assert_int_equal(p.n, 1);
	assert_int_equal(p.a[0].kind, NM_ACT_NOTE);
	nm_plan_free(&p);
}

static void test_rfs_not(void **state)
{
	struct ts_fix_flow fl = cross(OTHER, 3);
	struct ts_fix_facts f = { .have = TS_NEED_RFS, .flow_entries = 0 };
	struct ts_fix_done d = {};
	struct ts_fix_ask ask;
	struct nm_plan p = {};

	(void)state;
	/* another netns: nothing, still to do (the loader says it: ts_fix_elsewhere) */
	plan(TS_FIX_RFS, &fl, 1, &d, &p);
	assert_int_equal(p.n, 0);
	assert_false(d.rfs);
	/* the receiving device unknown: not even asked */
	d = (struct ts_fix_done){};
	fl = cross(HERE, 0);
	nm_plan_truncate(&p, 0);
	plan(TS_FIX_RFS, &fl, 1, &d, &p);
	assert_int_equal(p.n, 1);
	assert_string_equal(line(&p.a[0]), "fix rfs: the receiving device of the flow is unknown: nothing changed");
	/* ... or its ifindex names no device any more */
	d = (struct ts_fix_done){};
	fl = cross(HERE, 3);
	nm_plan_truncate(&p, 0);
	assert_int_equal(ts_fix_plan(TS_FIX_RFS, HERE, &fl, 1, &f, &d, &ask, &p), 0);
	assert_int_equal(p.n, 1);
	assert_string_equal(line(&p.a[0]), "fix rfs: the receiving device of the flow is unknown: nothing changed");
	/* the initial netns could not be read (the loader said why): nothing */
	d = (struct ts_fix_done){};
	strcpy(f.rfs_dev, "ts1");
	f.rfs_unread = true;
	nm_plan_truncate(&p, 0);
	assert_int_equal(ts_fix_plan(TS_FIX_RFS, HERE, &fl, 1, &f, &d, &ask, &p), 0);
	assert_int_equal(p.n, 0);
	assert_true(d.rfs);
	/* without rfs in --fix, or not cross_cpu */
	d = (struct ts_fix_done){};
	plan(ALL & ~TS_FIX_RFS, &fl, 1, &d, &p);
	fl.cross_cpu = false;
	plan(TS_FIX_RFS, &fl, 1, &d, &p);
	assert_int_equal(p.n, 0);
	assert_false(d.rfs);
	nm_plan_free(&p);
}

/* --fix=kick is planned socket by socket (ts_kick_plan): alone, the report's plan is empty. */
static void test_kick_alone(void **state)
{
	struct ts_fix_flow fl[] = { storm(HERE, 0, false), cross(HERE, 3), tsq(HERE) };
	struct ts_fix_done d = {};
	struct nm_plan p = {};

	(void)state;
	plan(TS_FIX_KICK, fl, 3, &d, &p);
	assert_int_equal(p.n, 0);
	assert_false(d.defer || d.rfs || d.autocork || d.routes || d.named);
	nm_plan_free(&p);
}

/* A report with every cause: the order of the old code (per row, then stalls). */
static void test_order(void **state)
{
	const char *lines[] = { "198.18.1.1 dev ts1 scope link quickack 1 \n" };
	struct ts_rxq q[] = { { "rx-0", 0 } };
	struct ts_fix_flow fl[] = { cross(HERE, 3), storm(HERE, 0, true), tsq(HERE) };
	struct ts_fix_facts f = { .route_addr = "198.18.1.1", .route_line = "198.18.1.1 dev ts1\n",
				  .routes = lines, .nroutes = 1, .rfs_dev = "ts1", .flow_entries = 0,
				  .rxq = q, .nrxq = 1 };
	struct ts_fix_done d = {};
	struct ts_fix_ask ask;
	struct nm_plan p = {};

	(void)state;
	assert_int_equal(ts_fix_plan(ALL, HERE, fl, 3, NULL, &d, &ask, &p),
			 TS_NEED_ROUTE_NAME | TS_NEED_ROUTES | TS_NEED_RFS);
	assert_int_equal(ask.route_flow, 1);
	assert_int_equal(ask.rfs_flow, 0);
	/* a fact still missing: asked again, nothing planned */
	f.have = TS_NEED_ROUTE_NAME | TS_NEED_ROUTES;
	assert_int_equal(ts_fix_plan(ALL, HERE, fl, 3, &f, &d, &ask, &p), TS_NEED_RFS);
	assert_int_equal(p.n, 0);
	f.have |= TS_NEED_RFS;
	assert_int_equal(ts_fix_plan(ALL, HERE, fl, 3, &f, &d, &ask, &p), 0);
	assert_int_equal(p.n, 6);
	assert_int_equal(p.a[0].remedy, TS_FIX_RFS);
	assert_int_equal(p.a[0].kind, NM_ACT_SYSCTL);
	assert_int_equal(p.a[1].remedy, TS_FIX_RFS);
	assert_int_equal(p.a[2].remedy, TS_FIX_NAME);
	assert_int_equal(p.a[3].remedy, TS_FIX_ROUTES);
	assert_int_equal(p.a[4].remedy, TS_FIX_DEFER);
	assert_int_equal(p.a[5].remedy, TS_FIX_AUTOCORK);
	assert_true(d.named && d.routes && d.defer && d.rfs && d.autocork);
	nm_plan_free(&p);
}

/* ---- --fix=kick: ts_kick_plan ---- */

#define MS		1000000ULL
#define THRESHOLD	(20 * MS)

static const struct ts_kick_cfg kick_cfg = TS_KICK_CFG_DEFAULT;

/* The sockets' memory: one socket, made at first use, counted. */
struct mem {
	struct ts_sock s;
	int lookups;
	bool none;		/* no room: NULL */
};

static struct ts_sock *mem_sock(void *arg, const struct ts_key *k)
{
	struct mem *m = arg;

	(void)k;
	m->lookups++;
	return m->none ? NULL : &m->s;
}

static struct ts_kick_ctx kctx(struct mem *m, const struct ts_kick_cfg *cfg)
{
	return (struct ts_kick_ctx){ .netns = HERE, .threshold_ns = THRESHOLD, .cfg = cfg ? cfg : &kick_cfg,
				     .sock = mem_sock, .arg = m };
}

static struct ts_key sock_key(uint32_t netns, uint16_t lport)
{
	struct ts_key k = { .netns = netns, .family = NM_AF_INET, .lport = lport, .rport = 5000 };

	memcpy(k.laddr, (uint8_t[]){ 198, 18, 0, 1 }, 4);
	memcpy(k.raddr, (uint8_t[]){ 198, 18, 0, 2 }, 4);
	return k;
}

static struct ts_kick_cand swept(uint16_t lport, enum ts_state state, uint64_t now, struct ts_sock *s)
{
	return (struct ts_kick_cand){ .by = TS_KICK_BY_SWEEP, .key = sock_key(HERE, lport), .state = state,
				      .now_ns = now, .nonagle = 0, .s = s };
}

static struct ts_kick_cand marked(uint16_t lport, uint64_t start, uint64_t now, uint8_t nonagle)
{
	return (struct ts_kick_cand){ .by = TS_KICK_BY_MARK, .key = sock_key(HERE, lport), .start_ns = start,
				      .now_ns = now, .nonagle = nonagle };
}

static struct ts_kick_cand timer(uint16_t lport, uint64_t start, uint8_t nonagle)
{
	return (struct ts_kick_cand){ .by = TS_KICK_BY_TIMER, .key = sock_key(HERE, lport), .start_ns = start,
				      .nonagle = nonagle };
}

static int kick(const struct ts_kick_ctx *x, struct ts_kick_cand c, struct nm_plan *p)
{
	return ts_kick_plan(x, &c, p);
}

/* The action is the journal's record of the kick, and carries its socket to the batch. */
static void assert_kick(const struct nm_action *a, uint16_t lport, uint64_t start, int nodelay)
{
	const struct ts_kick_req *q = (const void *)a->data;
	struct ts_key want = sock_key(HERE, lport), k;
	char words[640], expect[256];
	const char *f[16];
	int n, nd;

	assert_int_equal(a->kind, NM_ACT_RECORD);
	assert_int_equal(a->remedy, TS_FIX_KICK);
	assert_string_equal(a->tag, "fix kick");
	assert_string_equal(a->undo, "sockopt");
	assert_string_equal(a->what, "kicked");
	snprintf(expect, sizeof(expect), "tcp\t%lu\t4\t198.18.0.1\t%u\t198.18.0.2\t5000\tTCP_NODELAY\t%d", HERE,
		 lport, nodelay);
	assert_string_equal(a->target, expect);
	/* what --cleanup reads back is the socket kicked */
	snprintf(words, sizeof(words), "%s", a->target);
	n = nm_plan_argv(words, f, 16);
	assert_int_equal(ts_kick_parse(f, n, &k, &nd), 0);
	assert_memory_equal(&k, &want, sizeof(k));
	assert_int_equal(nd, nodelay);
	assert_memory_equal(&q->key, &want, sizeof(want));
	assert_int_equal(q->start_ns, start);
	assert_int_equal(q->nodelay, nodelay);
}

/* A swept tsq_idle socket: kicked at once in each new stall, noted on its socket. */
static void test_kick_swept(void **state)
{
	struct mem m = {};
	struct ts_kick_ctx x = kctx(&m, NULL);
	struct nm_plan p = {};
	struct ts_kick_cand c;

	(void)state;
	m.s.stall_start_ns = 100 * MS;
	c = swept(80, TS_TSQ_IDLE, 130 * MS, &m.s);
	c.nonagle = 1;
	assert_int_equal(ts_kick_plan(&x, &c, &p), 1);
	assert_int_equal(p.n, 1);
	assert_kick(&p.a[0], 80, 100 * MS, 1);
	assert_int_equal(m.s.last_kick_ns, 130 * MS);
	assert_int_equal(m.s.kicked_stall_ns, 100 * MS);
	/* its memory is the sample's: none looked up */
	assert_int_equal(m.lookups, 0);

	/* the same stall again: not before the gap, then again */
	nm_plan_truncate(&p, 0);
	c.now_ns = 130 * MS + kick_cfg.gap_ns - 1;
	assert_int_equal(ts_kick_plan(&x, &c, &p), 0);
	c.now_ns = 130 * MS + kick_cfg.gap_ns;
	assert_int_equal(ts_kick_plan(&x, &c, &p), 1);
	/* a new stall: at once */
	nm_plan_truncate(&p, 0);
	m.s.stall_start_ns = 400 * MS;
	c.now_ns = 410 * MS;
	assert_int_equal(ts_kick_plan(&x, &c, &p), 1);
	assert_kick(&p.a[0], 80, 400 * MS, 1);
	nm_plan_free(&p);
}

/* ... and not: another cause, another netns, no memory, a kicker's socket, a full batch. */
static void test_kick_swept_not(void **state)
{
	struct ts_kick_cfg any = TS_KICK_CFG_DEFAULT, two = TS_KICK_CFG_DEFAULT;
	struct mem m = {};
	struct ts_kick_ctx x = kctx(&m, NULL);
	struct nm_plan p = {};
	struct ts_kick_cand c;

	(void)state;
	m.s.stall_start_ns = 100 * MS;
	for (enum ts_state st = 0; st < TS_NSTATES; st++) {
		c = swept(80, st, 130 * MS, &m.s);
		assert_int_equal(ts_kick_plan(&x, &c, &p), st == TS_TSQ_IDLE);
		nm_plan_truncate(&p, 0);
		m.s.kicked_stall_ns = m.s.last_kick_ns = 0;
	}
	c = swept(80, TS_TSQ_IDLE, 130 * MS, &m.s);
	c.key.netns = OTHER;
	assert_int_equal(ts_kick_plan(&x, &c, &p), 0);
	c = swept(80, TS_TSQ_IDLE, 130 * MS, NULL);
	assert_int_equal(ts_kick_plan(&x, &c, &p), 0);
	/* where the kicker thread runs, tsq_idle is its */
	x.kicker = true;
	c = swept(80, TS_TSQ_IDLE, 130 * MS, &m.s);
	assert_int_equal(ts_kick_plan(&x, &c, &p), 0);
	assert_int_equal(p.n, 0);
	assert_int_equal(m.s.last_kick_ns, 0);
	/* the test aid: any socket with unsent data, the kicker or not; never an app-limited one */
	any.any_state = true;
	x.cfg = &any;
	c = swept(80, TS_RWND, 130 * MS, &m.s);
	assert_int_equal(ts_kick_plan(&x, &c, &p), 1);
	c = swept(81, TS_APP_LIMITED, 130 * MS, &m.s);
	assert_int_equal(ts_kick_plan(&x, &c, &p), 0);
	/* a full batch: left for a later pass, its socket not noted */
	nm_plan_truncate(&p, 0);
	two.batch = 2;
	x = kctx(&m, &two);
	for (uint16_t port = 80; port < 83; port++) {
		m.s = (struct ts_sock){ .stall_start_ns = 100 * MS };
		c = swept(port, TS_TSQ_IDLE, 130 * MS, &m.s);
		assert_int_equal(ts_kick_plan(&x, &c, &p), port < 82 ? 1 : -ENOSPC);
	}
	assert_int_equal(p.n, 2);
	assert_int_equal(m.s.last_kick_ns, 0);
	nm_plan_free(&p);
}

/* An open episode (no kicker): kicked once open for the threshold, from its own start. */
static void test_kick_marked(void **state)
{
	struct mem m = {};
	struct ts_kick_ctx x = kctx(&m, NULL);
	struct nm_plan p = {};
	struct ts_kick_cand c = marked(80, 100 * MS, 100 * MS + THRESHOLD, 3);

	(void)state;
	assert_int_equal(ts_kick_plan(&x, &c, &p), 1);
	/* TCP_NODELAY is nonagle's bit 0 */
	assert_kick(&p.a[0], 80, 100 * MS, 1);
	assert_int_equal(m.lookups, 1);
	assert_int_equal(m.s.kicked_stall_ns, 100 * MS);
	assert_int_equal(m.s.last_kick_ns, 100 * MS + THRESHOLD);
	/* another socket (the fake memory is one) */
	m.s = (struct ts_sock){};
	c = marked(81, 100 * MS, 100 * MS + THRESHOLD, 2);
	assert_int_equal(ts_kick_plan(&x, &c, &p), 1);
	assert_kick(&p.a[1], 81, 100 * MS, 0);
	nm_plan_free(&p);
}

/* ... and not: before the threshold, another netns, in the batch already, kicked in this episode. */
static void test_kick_marked_not(void **state)
{
	struct ts_kick_cfg one = TS_KICK_CFG_DEFAULT;
	struct mem m = {};
	struct ts_kick_ctx x = kctx(&m, NULL);
	struct nm_plan p = {};
	struct ts_kick_cand c = marked(80, 100 * MS, 100 * MS + THRESHOLD - 1, 0);

	(void)state;
	/* young: its socket's memory not even made */
	assert_int_equal(ts_kick_plan(&x, &c, &p), 0);
	assert_int_equal(m.lookups, 0);
	c = marked(80, 100 * MS, 100 * MS + THRESHOLD, 0);
	c.key.netns = OTHER;
	assert_int_equal(ts_kick_plan(&x, &c, &p), 0);
	assert_int_equal(m.lookups, 0);
	/* the sweep queued it this pass (its stall dated otherwise) */
	m.s.stall_start_ns = 90 * MS;
	c = swept(80, TS_TSQ_IDLE, 125 * MS, &m.s);
	assert_int_equal(ts_kick_plan(&x, &c, &p), 1);
	c = marked(80, 100 * MS, 130 * MS, 0);
	assert_int_equal(ts_kick_plan(&x, &c, &p), 0);
	assert_int_equal(p.n, 1);
	assert_int_equal(m.lookups, 0);
	/* kicked in this episode already, by an earlier pass */
	nm_plan_truncate(&p, 0);
	m.s = (struct ts_sock){ .kicked_stall_ns = 100 * MS, .last_kick_ns = 120 * MS };
	c = marked(80, 100 * MS, 100 * MS + 10 * kick_cfg.gap_ns, 0);
	assert_int_equal(ts_kick_plan(&x, &c, &p), 0);
	/* no room for its memory */
	m.s = (struct ts_sock){};
	m.none = true;
	assert_int_equal(ts_kick_plan(&x, &c, &p), 0);
	assert_int_equal(p.n, 0);
	/* a full batch */
	m.none = false;
	one.batch = 1;
	x.cfg = &one;
	assert_int_equal(kick(&x, marked(81, 100 * MS, 200 * MS, 0), &p), 1);
	m.s = (struct ts_sock){};
	assert_int_equal(kick(&x, marked(82, 100 * MS, 200 * MS, 0), &p), -ENOSPC);
	assert_int_equal(m.s.last_kick_ns, 0);
	assert_int_equal(p.n, 1);
	nm_plan_free(&p);
}

/* The kick timer's request: each one a kick, in the kicker's batch; a full one is kicked first. */
static void test_kick_timer(void **state)
{
	struct ts_kick_cfg two = TS_KICK_CFG_DEFAULT;
	struct mem m = {};
	struct ts_kick_ctx x = kctx(&m, &two);
	struct nm_plan p = {};
	struct ts_kick_cand c = timer(80, 100 * MS, 1);

	(void)state;
	two.batch = 2;
	x.kicker = true;
	assert_int_equal(ts_kick_plan(&x, &c, &p), 1);
	assert_kick(&p.a[0], 80, 100 * MS, 1);
	/* the thread touches no socket memory (the main loop's) */
	assert_int_equal(m.lookups, 0);
	/* the same socket twice in one batch: once */
	assert_int_equal(ts_kick_plan(&x, &c, &p), 0);
	/* another netns's: not its */
	c = timer(81, 100 * MS, 0);
	c.key.netns = OTHER;
	assert_int_equal(ts_kick_plan(&x, &c, &p), 0);
	c.key.netns = HERE;
	assert_int_equal(ts_kick_plan(&x, &c, &p), 1);
	assert_int_equal(kick(&x, timer(82, 100 * MS, 0), &p), -ENOSPC);
	assert_int_equal(p.n, 2);
	nm_plan_truncate(&p, 0);
	assert_int_equal(kick(&x, timer(82, 100 * MS, 0), &p), 1);
	assert_kick(&p.a[0], 82, 100 * MS, 0);
	nm_plan_free(&p);
}

/* What a flow of another netns would have had: said by the loader, once per netns and remedy. */
static void test_fix_elsewhere(void **state)
{
	struct ts_fix_flow st = storm(OTHER, 0, true), calm = storm(OTHER, 0, false);

	(void)state;
	assert_int_equal(ts_fix_elsewhere(ALL, HERE, &st), TS_FIX_DEFER | TS_FIX_ROUTES);
	/* no quickack route: no routes to drop */
	assert_int_equal(ts_fix_elsewhere(ALL, HERE, &calm), TS_FIX_DEFER);
	/* only what --fix asks for */
	assert_int_equal(ts_fix_elsewhere(TS_FIX_ROUTES | TS_FIX_KICK, HERE, &st), TS_FIX_ROUTES);
	st = cross(OTHER, 3);
	assert_int_equal(ts_fix_elsewhere(ALL, HERE, &st), TS_FIX_RFS);
	st = tsq(OTHER);
	assert_int_equal(ts_fix_elsewhere(ALL, HERE, &st), TS_FIX_AUTOCORK);
	/* ours: nothing to say */
	st = storm(HERE, 0, true);
	assert_int_equal(ts_fix_elsewhere(ALL, HERE, &st), 0);
}

/* A socket of another netns --fix=kick would kick: stalled in tsq_idle, or open for the threshold. */
static void test_kick_elsewhere(void **state)
{
	struct ts_kick_ctx x = kctx(NULL, NULL);
	struct ts_sock s = { .stall_start_ns = 1 };
	struct ts_kick_cand c = { .by = TS_KICK_BY_SWEEP, .key = sock_key(OTHER, 1), .state = TS_TSQ_IDLE,
				  .s = &s, .now_ns = 10 };

	(void)state;
	assert_true(ts_kick_elsewhere(&x, &c));
	/* another cause, or not stalled: not a kick's */
	c.state = TS_RWND;
	assert_false(ts_kick_elsewhere(&x, &c));
	c.state = TS_TSQ_IDLE;
	s.stall_start_ns = 0;
	assert_false(ts_kick_elsewhere(&x, &c));
	/* an open episode: once it is as old as the threshold */
	c = (struct ts_kick_cand){ .by = TS_KICK_BY_MARK, .key = sock_key(OTHER, 1), .start_ns = 100,
				   .now_ns = 100 + THRESHOLD - 1 };
	assert_false(ts_kick_elsewhere(&x, &c));
	c.now_ns = 100 + THRESHOLD;
	assert_true(ts_kick_elsewhere(&x, &c));
	/* ours: ts_kick_plan's */
	c.key.netns = HERE;
	assert_false(ts_kick_elsewhere(&x, &c));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_defer),
		cmocka_unit_test(test_defer_not),
		cmocka_unit_test(test_autocork),
		cmocka_unit_test(test_name_route),
		cmocka_unit_test(test_unfold),
		cmocka_unit_test(test_routes),
		cmocka_unit_test(test_routes_not),
		cmocka_unit_test(test_rfs),
		cmocka_unit_test(test_rfs_not),
		cmocka_unit_test(test_kick_alone),
		cmocka_unit_test(test_order),
		cmocka_unit_test(test_kick_swept),
		cmocka_unit_test(test_kick_swept_not),
		cmocka_unit_test(test_kick_marked),
		cmocka_unit_test(test_kick_marked_not),
		cmocka_unit_test(test_kick_timer),
		cmocka_unit_test(test_fix_elsewhere),
		cmocka_unit_test(test_kick_elsewhere),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
