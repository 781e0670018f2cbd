// SPDX-License-Identifier: GPL-2.0
/*
 * qdiscstuck - packets that sit in a qdisc (children of mq and other
 * classful roots too), told apart: ok, idle, shaped, driver_stopped, stuck,
 * and unknown where the TX queue state cannot be read.
 * Remedies: --fix=kick (a frame on the stuck queue makes its qdisc run),
 * --fix=lock (a locked FIFO in place of a lockless child), --kick, --lock.
 *
 * Loader: the skeleton bound to the hook ladder (qdiscstuck/hooks.c),
 * the sampler and the run's steps; lib/run.c runs it, qdiscstuck/opts.c
 * has its options. qdiscstuck/collect.c collects each sweep: the
 * rtnetlink dumps of every netns in scope (one kept socket each:
 * qdiscstuck/ns.c), the BPF maps, and their join into rows.
 * The sweep's rows are judged, ranked and written out in
 * qdiscstuck/report.c, with the decisions of
 * src/qdiscstuck/judge.c; the remedies' policy is in
 * src/qdiscstuck/plan.c, their I/O in src/qdiscstuck/act.c;
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
#include "qdiscstuck/qdiscstuck.h"
#include "qdiscstuck/judge.h"
#include "qdiscstuck/plan.h"
#include "lib/cli.h"
#include "lib/emit.h"
#include "lib/journal.h"
#include "qdiscstuck/act.h"
#include "qdiscstuck/collect.h"
#include "qdiscstuck/hooks.h"
#include "qdiscstuck/opts.h"
#include "qdiscstuck/records.h"
#include "qdiscstuck/report.h"
#include "lib/run.h"
#include "lib/scope.h"
#include "lib/skel.h"
#include "qdiscstuck.skel.h"

#define TOOL		"qdiscstuck"

enum { FIX_KICK = QS_FIX_KICK, FIX_LOCK = QS_FIX_LOCK };

static struct qs_env env;
/* the namespaces watched, and the names of them and their devices */
static struct nm_scope scope;

/* ---- hooks (the ladder: qdiscstuck/hooks.c) ---- */

static void declare_hooks(struct qdiscstuck_bpf *skel, struct nm_hook *hooks)
{
	nm_hooks_declare(hooks, qs_hook_decls, QS_NR_HOOKS, skel->obj, 0);
}

/* ---- the sweep (qdiscstuck/collect.c collects and joins it) ---- */

/* Runs a program made to be test-run: the sampler, every tracked qdisc's scheduling state now, or the seed. */
static int test_run(struct bpf_program *prog)
{
	LIBBPF_OPTS(bpf_test_run_opts, ro);

	return bpf_prog_test_run_opts(bpf_program__fd(prog), &ro) ? -errno : 0;
}

/*
 * The sampler's rung 2, for kernels without bpf_for_each_map_elem: a run
 * per tracked qdisc, its key the argument. Returns how many it sampled,
 * or -errno when a run fails (a key deleted meanwhile is no failure).
 */
static long sample_key(struct qdiscstuck_bpf *skel, __u64 key)
{
	LIBBPF_OPTS(bpf_test_run_opts, ro, .ctx_in = &key, .ctx_size_in = sizeof(key));

	if (bpf_prog_test_run_opts(bpf_program__fd(skel->progs.qs_sample_key), &ro))
		return -errno;
	return ro.retval;
}

static long sample_each(struct qdiscstuck_bpf *skel)
{
	int fd = bpf_map__fd(skel->maps.qdiscs);
	__u64 key, next, *prev = NULL;
	long n = 0, r;

	/* bounded: a deleted key restarts the walk from the first */
	for (int i = 0; i < QS_MAX_QDISCS && !bpf_map_get_next_key(fd, prev, &next); i++) {
		r = sample_key(skel, next);
		if (r < 0)
			return r;
		n += r;
		key = next;
		prev = &key;
	}
	return n;
}

static long run_sampler(struct qdiscstuck_bpf *skel)
{
	if (bpf_program__fd(skel->progs.qs_sample_key) >= 0)
		return sample_each(skel);
	return test_run(skel->progs.qs_sample);
}

static long sample(struct qdiscstuck_bpf *skel)
{
	static bool warned;
	long err;

	if (bpf_program__fd(skel->progs.qs_sample) < 0 && bpf_program__fd(skel->progs.qs_sample_key) < 0)
		return -1;	/* its rungs were refused: the first line said so */
	err = run_sampler(skel);
	if (err < 0 && !warned) {
		warned = true;
		nm_info(&env.o, "warning: the sampler program stopped running (%s): scheduling state unknown, judging by events",
			strerror((int)-err));
	}
	/* rung 1 counts in the map; rung 2's count is the runs' */
	return bpf_program__fd(skel->progs.qs_sample_key) >= 0 ? err : -1;
}

/* The collection's sockets and maps, kept across sweeps. */
static struct qs_collect col = { .o = &env.o, .scope = &scope };

/*
 * One sweep, one way: the sampler first (the join reads the scheduling
 * state it leaves in the map), then the facts (I/O), then the judge: the
 * namespaces that left the scope take their queues' history with them,
 * and each qdisc is judged against its own.
 */
static int sweep(struct qdiscstuck_bpf *skel, struct qs_sweep *s)
{
	long n = sample(skel);
	int ret = qs_collect_sweep(&col, s);

	if (n >= 0)
		s->bpf_entries = n;
	if (ret)
		return ret;
	for (size_t i = 0; i < col.socks.ngone; i++)
		qs_sweep_forget_ns(s, col.socks.gone[i]);
	qs_sweep_judge(s, env.threshold_ms * 1000000ULL);
	return 0;
}

/* ---- the report (qdiscstuck/report.c holds the sweep's rows; lib/emit.c writes them) ---- */

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
	qs_sweep_rows(s, dev_name, ns_name);
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
	/* the sampler and the seed are run by test-run, never attached */
	bpf_program__set_autoattach(skel->progs.qs_sample, false);
	bpf_program__set_autoattach(skel->progs.qs_sample_key, false);
	bpf_program__set_autoattach(skel->progs.qs_seed, false);
	declare_hooks(skel, hooks);
}

/*
 * The sampler and the seed are run by test-run, never attached: a first
 * run is the test of each. The seed's is its only one, once the event
 * programs are attached: a qdisc it misses has an event by then.
 */
static int skel_attach(void *p, struct nm_hook *hooks, struct bpf_program **failed,
		       const char **stage)
{
	struct qdiscstuck_bpf *skel = p;
	struct bpf_program *prog = NULL;
	int err = 0;
	long r;

	if (nm_hook_can(&hooks[QS_HOOK_SAMPLE], QS_CAN_SAMPLE_KEY)) {
		/* no qdisc is tracked yet: a run with no such key is the check */
		prog = skel->progs.qs_sample_key;
		r = sample_key(skel, 0);
		err = r < 0 ? (int)r : 0;
	} else if (nm_hook_can(&hooks[QS_HOOK_SAMPLE], QS_CAN_SAMPLE)) {
		prog = skel->progs.qs_sample;
		err = test_run(prog);
	}
	if (!err && nm_hook_can(&hooks[QS_HOOK_SEED], QS_CAN_SEED)) {
		prog = skel->progs.qs_seed;
		err = test_run(prog);
	}
	if (err) {
		*failed = prog;
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
	/*
	 * The kick's socket is marked (SO_MARK), which CAP_NET_RAW allows
	 * since 5.17; before, only CAP_NET_ADMIN (make faults KERNEL=5.10:
	 * every kick refused with EPERM)
	 */
	if (o->caps.raw && nm_caps_release_before(nm_kernel_release(), 5, 17))
		o->caps.remedy = true;
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
	const char *t;
	int ret;

	if (env.kick && (ret = qs_act_resolve(&run.qa, env.kick, "--kick", run.kdev, &run.kif, &run.kq)))
		return ret;
	if (env.lock && (ret = qs_act_resolve(&run.qa, env.lock, "--lock", run.ldev, &run.lif, &run.lq)))
		return ret;
	run.s = qs_sweep_new();
	if (!run.s || scope_init() || qs_collect_init(&col))
		return nm_err(&env.o, NM_EXIT_RUNTIME, "out of memory");
	/* the remedies act in the netns the tool runs in */
	run.s->self_ino = env.o.netns_ino;
	run.s->all = env.view.all;
	run.s->top = env.view.top;
	run.s->sort = env.view.sort;
	t = getenv("NETMEDIC_TEST_UNKNOWN");
	run.s->unknown_is_stuck = t && !strcmp(t, "stuck");
	return 0;
}

static int start(void *p)
{
	struct qdiscstuck_bpf *skel = p;

	run.qa.txqs_fd = bpf_map__fd(skel->maps.txqs);
	col.qdiscs_fd = bpf_map__fd(skel->maps.qdiscs);
	col.counters_fd = bpf_map__fd(skel->maps.qs_counters);
	return 0;
}

static const char *one_shot(void)
{
	return env.kick ? "--kick" : NULL;
}

static const char *remedy(void)
{
	return qs_remedy_opt(&env);
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
	qs_collect_free(&col);
	qs_sweep_free(run.s);
	nm_scope_free(&scope);
}

/* the command line into env (the agent: its defaults) */
static void parse(int argc, char **argv)
{
	qs_act_init(&run.qa, &env.o);
	qs_opts_parse(&env, argc, argv);
}

/*
 * On a fixed grid: a stall is reported within the threshold plus one
 * interval, which a sleep after each sweep (and kick) would stretch.
 * The capabilities go before the change: the lock's kept ones are kept.
 */
const struct nm_tool qdiscstuck_tool = {
	/* --lock undoes its replace with tc; a journal may run nothing else */
	.name = TOOL, .parse = parse, .undo_cmd = "tc",
	.o = &env.o, .skel = &skel_ops, .hooks = run.hooks,
	.fixes = qs_fixes, .nfixes = QS_NFIXES, .list_fixes = &env.list_fixes,
	.grid = true, .drop_before_change = true,
	.caps = set_caps, .one_shot = one_shot, .remedy = remedy, .setup = setup, .start = start,
	.changes = changes, .change = change,
	.first = first_line, .ready = ready, .report = report_step, .after = after_report, .stop = stop,
	.free = free_run,
};
