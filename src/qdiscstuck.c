// SPDX-License-Identifier: GPL-2.0
/*
 * qdiscstuck - packets that sit in a qdisc (children of mq and other
 * classful roots too), told apart: ok, idle, shaped, driver_stopped, stuck.
 * Remedies: --fix=kick (a frame on the stuck queue makes its qdisc run),
 * --fix=lock (a locked FIFO in place of a lockless child), --kick, --lock.
 *
 * Loader: the skeleton bound to the hook ladder (lib/qdiscstuck_hooks.c),
 * the collection (the rtnetlink dump, the BPF maps, the sampler) and the
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
#include "lib/qdiscstuck_opts.h"
#include "lib/qdiscstuck_records.h"
#include "lib/qdiscstuck_report.h"
#include "lib/run.h"
#include "lib/rtnl.h"
#include "lib/skel.h"
#include "lib/sysfs.h"

#define TOOL		"qdiscstuck"

enum { FIX_KICK = QS_FIX_KICK, FIX_LOCK = QS_FIX_LOCK };

static struct qs_env env;

const char *argp_program_version = "qdiscstuck (netmedic) 0.1";
const char *argp_program_bug_address = "the netmedic issue tracker";

/* ---- hooks (the ladder: lib/qdiscstuck_hooks.c) ---- */

static void declare_hooks(struct qdiscstuck_bpf *skel, struct nm_hook *hooks)
{
	nm_hooks_declare(hooks, qs_hook_decls, QS_NR_HOOKS, skel->obj, 0);
}

/* ---- the sweep ---- */

static bool dev_selected(unsigned int ifindex)
{
	if (!env.o.ndevs)
		return true;
	for (int i = 0; i < env.o.ndevs; i++)
		if (env.o.ifindex[i] == ifindex)
			return true;
	return false;
}

static int collect(const struct nm_qdisc_stats *q, void *arg)
{
	struct qs_sweep *s = arg;

	/* ingress and clsact hold no packets (parent ffff:fff1) */
	if (q->parent == 0xfffffff1U || !dev_selected(q->ifindex))
		return 0;
	qs_sweep_add(s, q);
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
		struct qs_qdisc_key k = { .netns = env.o.netns_ino };

		r->lockless = !strcmp(r->nl.kind, "pfifo_fast");
		for (int depth = 0; p && depth < 8; depth++, p = up) {
			r->shaper |= qs_kind_is_shaper(p->nl.kind);
			up = qs_sweep_parent(s, p);
			if (up && qs_kind_is_mq(up->nl.kind))
				r->txq = qs_mq_child_queue(p->nl.parent, up->nl.handle);
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
		if (r->txq < 0 && nm_ifindex_ntxq(r->nl.ifindex) == 1)
			r->txq = 0;
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

static int sweep(struct qdiscstuck_bpf *skel, struct qs_sweep *s)
{
	char err[256];
	int ret;

	sample(skel);
	s->n = 0;
	s->now_ns = nm_mono_ns();
	ret = nm_rtnl_qdisc_dump(0, collect, s, err, sizeof(err));
	if (ret)
		return nm_err(&env.o, NM_EXIT_RUNTIME, "qdisc statistics: %s", err);
	join(s, bpf_map__fd(skel->maps.qdiscs));
	read_counters(bpf_map__fd(skel->maps.counters), s);
	s->bpf_entries = s->counters[QS_CNT_SAMPLED];
	qs_sweep_judge(s, env.threshold_ms * 1000000ULL);
	return 0;
}

/* ---- the report (lib/qdiscstuck_report.c holds the sweep's rows; lib/emit.c writes them) ---- */

/* A device's name in the watched netns, for the rows and the remedies' lines. */
static const char *dev_name(unsigned int ifindex, char *buf, size_t len)
{
	return nm_dev_name(&env.o, env.o.netns_ino, ifindex, buf, len);
}

/* A failed sweep (said) reports nothing. */
static int report(struct qdiscstuck_bpf *skel, struct qs_sweep *s, struct nm_emit *e)
{
	if (sweep(skel, s))
		return NM_RUN_SKIP;
	qs_sweep_rank(s);
	s->ival.time = (uint64_t)time(NULL);
	qs_sweep_rows(s, env.all, dev_name);
	qs_sweep_emit(s, e);
	return 0;
}

/* After the sinks; without --fix, --verbose still explains the driver_stopped queues. */
static void act(struct qs_sweep *s, struct qs_act *qa)
{
	if (!env.fix && !env.o.verbose)
		return;
	qs_sweep_fix_rows(s, dev_name);
	qs_act_remedies(qa, s->fix, s->n, env.fix, s->now_ns);
}

/* ---- skeleton ---- */

static void skel_prepare(void *p, struct nm_hook *hooks)
{
	struct qdiscstuck_bpf *skel = p;

	nm_set_dev_filter(&env.o, &skel->rodata->targ_ndevs, skel->rodata->targ_netns,
			  skel->rodata->targ_ifindex);
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

static int setup(void)
{
	int ret;

	if (env.kick && (ret = qs_act_resolve(&run.qa, env.kick, "--kick", run.kdev, &run.kif, &run.kq)))
		return ret;
	if (env.lock && (ret = qs_act_resolve(&run.qa, env.lock, "--lock", run.ldev, &run.lif, &run.lq)))
		return ret;
	run.s = qs_sweep_new();
	return run.s ? 0 : nm_err(&env.o, NM_EXIT_RUNTIME, "out of memory");
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

	(void)skel;
	if (env.kick)
		return NM_RUN_SKIP;
	r = (struct qs_start_row){
		.tool = TOOL, .kernel = nm_kernel_release(), .hooks = run.hooks,
		.nhooks = QS_NR_HOOKS, .interval = env.o.interval,
		.threshold_ms = env.threshold_ms, .devices = l->devices,
		.fix_kick = env.fix & FIX_KICK, .fix_lock = env.fix & FIX_LOCK,
	};
	l->rec = &qs_start_rec;
	l->row = &r;
	snprintf(l->what, sizeof(l->what), "threshold %ldms, devices %s%s%s", env.threshold_ms,
		 l->devices, env.fix & FIX_KICK ? ", --fix=kick" : "",
		 env.fix & FIX_LOCK ? ", --fix=lock" : "");
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
	qs_sweep_free(run.s);
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
