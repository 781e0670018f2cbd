// SPDX-License-Identifier: GPL-2.0
/*
 * qdiscstuck - packets that sit in a qdisc (children of mq and other
 * classful roots too), told apart: ok, idle, shaped, driver_stopped, stuck.
 * Remedies: --fix=kick (a frame on the stuck queue makes its qdisc run),
 * --fix=lock (a locked FIFO in place of a lockless child), --kick, --lock.
 *
 * Loader: the skeleton bound to the hook ladder (lib/qdiscstuck_hooks.c),
 * the collection (the rtnetlink dumps of every netns in scope, one kept
 * socket each: lib/qdiscstuck_ns.c; the BPF maps, the sampler) and the
 * run's steps; lib/run.c runs it, lib/qdiscstuck_opts.c has its options.
 * The sweep's rows are judged, ranked and written out in
 * lib/qdiscstuck_report.c, with the decisions of
 * src/detect/qdiscstuck_detect.c; the remedies' policy is in
 * src/detect/qdiscstuck_plan.c, their I/O in src/lib/qdiscstuck_act.c;
 * lib/plan.c makes them.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <net/if.h>
#include <bpf/bpf.h>
#include <bpf/libbpf.h>
#include "netmedic/qdiscstuck.h"
#include "qdiscstuck.skel.h"
#include "detect/qdiscstuck_detect.h"
#include "detect/qdiscstuck_plan.h"
#include "lib/cli.h"
#include "lib/emit.h"
#include "lib/htab.h"
#include "lib/journal.h"
#include "lib/qdiscstuck_act.h"
#include "lib/qdiscstuck_hooks.h"
#include "lib/qdiscstuck_ns.h"
#include "lib/qdiscstuck_opts.h"
#include "lib/qdiscstuck_records.h"
#include "lib/qdiscstuck_report.h"
#include "lib/run.h"
#include "lib/rtnl.h"
#include "lib/scope.h"
#include "lib/skel.h"
#include "lib/sysfs.h"

#define TOOL		"qdiscstuck"

enum { FIX_KICK = QS_FIX_KICK, FIX_LOCK = QS_FIX_LOCK };

static struct qs_env env;
/* the namespaces watched, and the names of them and their devices */
static struct nm_scope scope;

const char *argp_program_version = "qdiscstuck (netmedic) 0.1";
const char *argp_program_bug_address = "the netmedic issue tracker";

/* ---- hooks (the ladder: lib/qdiscstuck_hooks.c) ---- */

static void declare_hooks(struct qdiscstuck_bpf *skel, struct nm_hook *hooks)
{
	nm_hooks_declare(hooks, qs_hook_decls, QS_NR_HOOKS, skel->obj, 0);
}

/* ---- the sweep ---- */

/* --dev names devices of the netns the tool runs in */
static bool dev_selected(unsigned long netns, unsigned int ifindex)
{
	if (!env.o.ndevs)
		return true;
	if (netns != env.o.netns_ino)
		return false;
	for (int i = 0; i < env.o.ndevs; i++)
		if (env.o.ifindex[i] == ifindex)
			return true;
	return false;
}

struct collect_ctx {
	struct qs_sweep *s;
	unsigned long netns;
};

static int collect(const struct nm_qdisc_stats *q, void *arg)
{
	struct collect_ctx *c = arg;

	/* ingress and clsact hold no packets (parent ffff:fff1) */
	if (q->parent == 0xfffffff1U || !dev_selected(c->netns, q->ifindex))
		return 0;
	qs_sweep_add(c->s, c->netns, q);
	return 0;
}

/*
 * The BPF map is keyed by qdisc address; the join needs (netns, ifindex,
 * parent, handle): one pass over the map indexes it so.
 */
static struct nm_htab *index_bpf(int bpf_fd)
{
	struct nm_htab *h = nm_htab_new(sizeof(struct qs_qdisc_key), sizeof(struct qs_qdisc),
					QS_MAX_QDISCS);
	uint64_t k, next, *prev = NULL;
	struct qs_qdisc v, *slot;
	size_t n = 0;

	if (!h)
		return NULL;
	/* an evicted key restarts the walk: the map holds at most QS_MAX_QDISCS */
	while (n++ < QS_MAX_QDISCS && !bpf_map_get_next_key(bpf_fd, prev, &next)) {
		k = next;
		prev = &k;
		if (bpf_map_lookup_elem(bpf_fd, &k, &v) || v.ignored)
			continue;
		slot = nm_htab_upsert(h, &v.key, NULL);
		if (slot)
			*slot = v;
	}
	return h;
}

/*
 * What the kernel says of the TX queues of r's device, for qs_row_txq:
 * num_tx_queues from its link messages, which the scope's socket in its
 * netns reads whatever netns that is; real_num_tx_queues from sysfs in
 * the tool's netns (sysfs is per netns: another's devices are not in it),
 * else from the BPF record, which a qdisc has only once it had an event
 * since the start (a backlog frozen before it has none). No sysfs read
 * when the rest names the queue already (a child of mq, one queue).
 */
static void dev_txqs(const struct qs_row *r, struct qs_txq_facts *f)
{
	f->num_txq = nm_scope_dev_ntxq(&scope, r->netns, r->nl.ifindex);
	if (qs_row_txq(f) >= 0)
		return;
	if (r->netns == env.o.netns_ino)
		f->real_txq = nm_ifindex_ntxq(r->nl.ifindex);
	if (!f->real_txq && r->have_bpf)
		f->real_txq = r->bpf.dev_ntxq;
}

/*
 * Walks up from each qdisc to the one its TX queue runs (a child of mq, or
 * the root): that one has the events; the leaves of a classful qdisc have
 * none of their own. A shaper anywhere on the way makes the backlog shaped.
 */
static void join(struct qs_sweep *s, int bpf_fd)
{
	struct nm_htab *idx = index_bpf(bpf_fd);
	struct qs_qdisc *v;

	if (!idx)
		nm_info(&env.o, "warning: out of memory: qdiscs judged without their events");
	for (size_t i = 0; i < s->n; i++) {
		struct qs_row *r = &s->rows[i], *p = r, *up;
		struct qs_qdisc_key k = { .netns = r->netns };
		struct qs_txq_facts f = {};

		r->lockless = !strcmp(r->nl.kind, "pfifo_fast");
		for (int depth = 0; p && depth < 8; depth++, p = up) {
			r->shaper |= qs_kind_is_shaper(p->nl.kind);
			up = qs_sweep_parent(s, p);
			if (up && qs_kind_is_mq(up->nl.kind))
				f = (struct qs_txq_facts){ .under_mq = true,
							   .mq_child_parent = p->nl.parent,
							   .mq_handle = up->nl.handle };
			k.ifindex = p->nl.ifindex;
			k.parent = p->nl.parent;
			k.handle = p->nl.handle;
			if (!r->have_bpf && idx && (v = nm_htab_get(idx, &k))) {
				r->bpf = *v;
				r->have_bpf = true;
				r->own_bpf = p == r;
			}
			if (!up || qs_kind_is_mq(up->nl.kind))
				break;
		}
		dev_txqs(r, &f);
		r->txq = qs_row_txq(&f);
	}
	nm_htab_free(idx);
}

static void read_counters(int fd, struct qs_sweep *s)
{
	for (uint32_t i = 0; i < QS_CNT_MAX; i++)
		s->counters[i] = nm_percpu_u64(fd, &i);
}

/* Runs the sampler: every tracked qdisc's scheduling state, now. */
static int run_sampler(struct qdiscstuck_bpf *skel)
{
	LIBBPF_OPTS(bpf_test_run_opts, ro);

	return bpf_prog_test_run_opts(bpf_program__fd(skel->progs.qs_sample), &ro) ? -errno : 0;
}

static void sample(struct qdiscstuck_bpf *skel)
{
	static bool warned;
	int err;

	if (bpf_program__fd(skel->progs.qs_sample) < 0)
		return;	/* its rung was refused: the first line said so */
	err = run_sampler(skel);
	if (err && !warned) {
		warned = true;
		nm_info(&env.o, "warning: the sampler program stopped running (%s): scheduling state unknown, judging by events",
			strerror(-err));
	}
}

/* The sockets of the namespaces in scope, one each, kept across sweeps (lib/qdiscstuck_ns.h). */
static struct qs_ns_socks socks;

static void *sock_open(const char *path, void *arg)
{
	char err[256];
	struct mnl_socket *nl = nm_rtnl_open_in(path, 0, err, sizeof(err));

	(void)arg;
	/* another netns can be gone by now: counted, retried while in scope */
	if (!nl && !path)
		nm_err(&env.o, NM_EXIT_RUNTIME, "qdisc statistics: %s", err);
	return nl;
}

/* Its netns left the scope: the socket (which holds it alive) and its queues' metrics go. */
static void sock_close(void *sock, unsigned long ino, void *arg)
{
	struct qs_sweep *s = arg;

	mnl_socket_close(sock);
	if (s)
		qs_sweep_forget_ns(s, ino);
}

/*
 * One netns's qdiscs into the sweep. A failed dump adds none of them:
 * the tool's own is said (the sweep fails, as before), another's counted.
 */
static int dump_ns(struct qs_sweep *s, unsigned long ino, const char *path)
{
	struct collect_ctx c = { .s = s, .netns = ino };
	struct mnl_socket *nl;
	size_t n0 = s->n;
	char err[256];
	int ret;

	/* --dev devices are the tool's netns's; without CAP_SYS_ADMIN no other is entered */
	if (path && (env.o.ndevs || !scope.setns)) {
		s->ival.netns_failed += !env.o.ndevs;
		return 0;
	}
	nl = qs_ns_want(&socks, ino, path);
	if (!nl)
		return path ? 0 : NM_EXIT_RUNTIME;
	ret = nm_rtnl_qdisc_dump_on(nl, 0, collect, &c, err, sizeof(err));
	if (!ret) {
		s->ival.netns_swept++;
		return 0;
	}
	s->n = n0;
	if (path) {
		s->ival.netns_failed++;
		return 0;
	}
	return nm_err(&env.o, NM_EXIT_RUNTIME, "qdisc statistics: %s", err);
}

/*
 * Every netns in scope: the tool's own first when the scope is every
 * netns (whether or not the registry lists it), then the others; the
 * sockets of namespaces gone are closed.
 */
static int dump_scope(struct qs_sweep *s)
{
	struct nm_scope_counts c;
	struct nm_scope_ns ns;
	size_t pos = 0;
	int ret = 0;

	nm_scope_refresh(&scope);
	qs_ns_begin(&socks);
	s->ival.netns_swept = s->ival.netns_failed = 0;
	if (!scope.n)
		ret = dump_ns(s, env.o.netns_ino, NULL);
	while (!ret && nm_scope_next(&scope, &pos, &ns))
		if (scope.n || ns.ino != env.o.netns_ino)
			ret = dump_ns(s, ns.ino, ns.path);
	if (ret)
		return ret;	/* no socket closed on a failed walk */
	qs_ns_end(&socks);
	nm_scope_counts(&scope, &c);
	s->ival.netns_over = socks.over + c.ns_over;
	s->ival.netns_failed += socks.failed;
	s->ival.devices_over = c.devs_over;
	return 0;
}

static int sweep(struct qdiscstuck_bpf *skel, struct qs_sweep *s)
{
	sample(skel);
	s->n = 0;
	s->over = 0;
	s->now_ns = nm_mono_ns();
	if (dump_scope(s))
		return NM_EXIT_RUNTIME;
	s->ival.qdiscs_over = s->over;
	join(s, bpf_map__fd(skel->maps.qdiscs));
	read_counters(bpf_map__fd(skel->maps.counters), s);
	s->bpf_entries = s->counters[QS_CNT_SAMPLED];
	qs_sweep_judge(s, env.threshold_ms * 1000000ULL);
	return 0;
}

/* ---- the report (lib/qdiscstuck_report.c holds the sweep's rows; lib/emit.c writes them) ---- */

/*
 * A device's own name in its own netns, for the rows and the remedies'
 * lines: the tool's netns's read live, as before; another's from the scope.
 */
static const char *dev_name(unsigned long netns, unsigned int ifindex, char *buf, size_t len)
{
	if (netns == env.o.netns_ino)
		return nm_dev_name(&env.o, netns, ifindex, buf, len);
	return nm_scope_dev_name(&scope, netns, ifindex, buf, len);
}

static const char *ns_name(unsigned long netns, char *buf, size_t len)
{
	return nm_scope_ns_name(&scope, netns, buf, len);
}

/* A failed sweep (said) reports nothing. */
static int report(struct qdiscstuck_bpf *skel, struct qs_sweep *s, struct nm_emit *e)
{
	if (sweep(skel, s))
		return NM_RUN_SKIP;
	qs_sweep_rank(s);
	s->ival.time = (uint64_t)time(NULL);
	qs_sweep_rows(s, env.all, dev_name, ns_name);
	qs_sweep_emit(s, e);
	return 0;
}

/* After the sinks; without --fix, --verbose still explains the driver_stopped queues. */
static void act(struct qs_sweep *s, struct qs_act *qa)
{
	if (!env.fix && !env.o.verbose)
		return;
	qs_sweep_fix_rows(s, dev_name, ns_name);
	qs_act_remedies(qa, s->fix, s->n, env.fix, s->now_ns);
}

/* ---- skeleton ---- */

static void skel_prepare(void *p, struct nm_hook *hooks)
{
	struct qdiscstuck_bpf *skel = p;

	nm_set_dev_filter(&env.o, &skel->rodata->targ_ndevs, skel->rodata->targ_netns,
			  skel->rodata->targ_ifindex);
	nm_set_scope_filter(&env.o, &skel->rodata->targ_nscope, skel->rodata->targ_scope);
	/* the sampler is run by test-run, never attached */
	bpf_program__set_autoattach(skel->progs.qs_sample, false);
	declare_hooks(skel, hooks);
}

/* The sampler is run by test-run, never attached: its first run is its test. */
static int skel_attach(void *p, struct nm_hook *hooks, struct bpf_program **failed,
		       const char **stage)
{
	struct qdiscstuck_bpf *skel = p;
	int err;

	if (!nm_hook_can(&hooks[QS_HOOK_SAMPLE], QS_CAN_SAMPLE))
		return 0;
	err = run_sampler(skel);
	if (err) {
		*failed = skel->progs.qs_sample;
		*stage = "run";
	}
	return err;
}

NM_SKEL_OPS(qdiscstuck, skel_prepare, skel_attach, QS_NR_HOOKS);

/* ---- the run's steps (lib/run.h) ---- */

static struct run {
	struct nm_hook hooks[QS_NR_HOOKS];
	struct qs_act qa;
	struct qs_sweep *s;
	char kdev[IF_NAMESIZE], ldev[IF_NAMESIZE];
	unsigned int kif, kq, lif, lq;
} run;

/* lock: tc qdisc replace, undone with tc; kick: AF_PACKET frames */
static void set_caps(struct nm_opts *o)
{
	o->caps.remedy = o->caps.remedy_exec = env.lock || (env.fix & FIX_LOCK);
	o->caps.journal = o->caps.remedy;
	o->caps.raw = env.kick || (env.fix & FIX_KICK);
	o->caps.remedy_opt = env.lock ? "--lock" : env.kick ? "--kick" : "--fix";
}

/*
 * The scope the options say; the tool's own netns alone when it watches no
 * other (qdiscstuck_opts.c: --dev, --kick, --lock without --netns).
 */
static int scope_init(void)
{
	static unsigned long self;
	struct nm_scope_cfg own = { .n = 1, .inos = &self, .read_procs = true, .setns = true };

	if (env.o.scope || env.o.nnetns)
		return nm_scope_from_opts(&scope, &env.o);
	self = own.self_ino = env.o.netns_ino;
	return nm_scope_init(&scope, &own);
}

static int setup(void)
{
	int ret;

	if (env.kick && (ret = qs_act_resolve(&run.qa, env.kick, "--kick", run.kdev, &run.kif, &run.kq)))
		return ret;
	if (env.lock && (ret = qs_act_resolve(&run.qa, env.lock, "--lock", run.ldev, &run.lif, &run.lq)))
		return ret;
	run.s = qs_sweep_new();
	if (!run.s || scope_init() ||
	    qs_ns_init(&socks, 0, sock_open, sock_close, run.s))
		return nm_err(&env.o, NM_EXIT_RUNTIME, "out of memory");
	/* the remedies act in the netns the tool runs in */
	run.s->self_ino = env.o.netns_ino;
	return 0;
}

static int start(void *p)
{
	struct qdiscstuck_bpf *skel = p;

	run.qa.txqs_fd = bpf_map__fd(skel->maps.txqs);
	return 0;
}

static bool changes(void)
{
	return env.lock;
}

/* a signal at the change point: nothing changed, nothing reported */
static int change(void *p)
{
	(void)p;
	return nm_exiting ? NM_RUN_DONE : qs_act_lock(&run.qa, run.ldev, run.lif, run.lq);
}

/*
 * The first line (none for --kick's one shot): the start record; after
 * the interval, the threshold, the devices and --fix.
 */
static int first_line(void *skel, struct nm_first *l)
{
	static struct qs_start_row r;
	static char ns[256], lost[320];

	(void)skel;
	if (env.kick)
		return NM_RUN_SKIP;
	nm_scope_str(&scope, ns, sizeof(ns));
	nm_scope_lost(&scope, lost, sizeof(lost));
	if (!scope.setns)
		snprintf(lost + strlen(lost), sizeof(lost) - strlen(lost),
			 "%sqdiscs of other namespaces (no CAP_SYS_ADMIN: not swept)",
			 lost[0] ? ", " : "");
	r = (struct qs_start_row){
		.tool = TOOL, .kernel = nm_kernel_release(), .hooks = run.hooks,
		.nhooks = QS_NR_HOOKS, .interval = env.o.interval,
		.threshold_ms = env.threshold_ms, .devices = l->devices,
		.fix_kick = env.fix & FIX_KICK, .fix_lock = env.fix & FIX_LOCK,
		.netns = ns, .names_lost = lost,
	};
	l->rec = &qs_start_rec;
	l->row = &r;
	snprintf(l->what, sizeof(l->what), "threshold %ldms, devices %s, netns %s%s%s",
		 env.threshold_ms, l->devices, ns, env.fix & FIX_KICK ? ", --fix=kick" : "",
		 env.fix & FIX_LOCK ? ", --fix=lock" : "");
	snprintf(l->lost, sizeof(l->lost), "%s", lost);
	return 0;
}

/* --kick is a one-shot; else a first sweep that only learns the counters */
static int ready(void *skel)
{
	if (env.kick) {
		int ret = qs_act_kick(&run.qa, run.kdev, run.kif, run.kq);

		return ret ? ret : NM_RUN_DONE;
	}
	sweep(skel, run.s);
	return 0;
}

static int report_step(void *skel, struct nm_emit *e)
{
	return report(skel, run.s, e);
}

static void after_report(void *skel)
{
	(void)skel;
	act(run.s, &run.qa);
}

/* a failed undo is said (its journal kept for --cleanup), and exits 1, as the other tools' */
static int stop(void)
{
	return qs_act_stop(&run.qa);
}

static void free_run(void *skel)
{
	(void)skel;
	socks.arg = NULL;	/* the sweep goes next: nothing to forget in it */
	if (socks.s)
		qs_ns_free(&socks);
	qs_sweep_free(run.s);
	nm_scope_free(&scope);
}

/*
 * On a fixed grid: a stall is reported within the threshold plus one
 * interval, which a sleep after each sweep (and kick) would stretch.
 * The capabilities go before the change: the lock's kept ones are kept.
 */
static const struct nm_tool tool = {
	.o = &env.o, .skel = &skel_ops, .hooks = run.hooks,
	.fixes = qs_fixes, .nfixes = QS_NFIXES, .list_fixes = &env.list_fixes,
	.grid = true, .drop_before_change = true,
	.caps = set_caps, .setup = setup, .start = start, .changes = changes, .change = change,
	.first = first_line, .ready = ready, .report = report_step, .after = after_report, .stop = stop,
	.free = free_run,
};

int main(int argc, char **argv)
{
	qs_act_init(&run.qa, &env.o);
	/* --lock undoes its replace with tc; a journal may run nothing else */
	nm_journal_allow_cmd("tc");
	qs_opts_parse(&env, argc, argv);
	return nm_run(&tool);
}
