// SPDX-License-Identifier: GPL-2.0
/*
 * tcpstall - TCP sockets that hold unsent data and send nothing (and why),
 * and ACK storms; with reversible remedies (--fix).
 *
 * Loader: the hook ladder bound to the skeleton, the sweeps and the run's
 * steps. Decisions live in src/tcpstall/judge.c, the report's rows
 * in tcpstall/report.c (written by lib/emit.c), what fills it from the
 * BPF side (episodes, the ACK flow table, the counters) in
 * tcpstall/collect.c, the remedies in tcpstall/act.c; the scope's
 * namespaces, the sweeps' iterators and walks and the loop's clock in
 * tcpstall/ns.c.
 */
#include <argp.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <bpf/bpf.h>
#include <bpf/libbpf.h>
#include "tcpstall/tcpstall.h"
#include "tcpstall/judge.h"
#include "tcpstall/plan.h"
#include "lib/cli.h"
#include "lib/emit.h"
#include "lib/htab.h"
#include "lib/journal.h"
#include "lib/kconfig.h"
#include "lib/run.h"
#include "lib/scope.h"
#include "lib/skel.h"
#include "tcpstall/act.h"
#include "tcpstall/collect.h"
#include "tcpstall/hooks.h"
#include "tcpstall/kickfd.h"
#include "tcpstall/ns.h"
#include "tcpstall/opts.h"
#include "tcpstall/records.h"
#include "tcpstall/report.h"
#include "lib/worker.h"
#include "tcpstall.skel.h"

#define TOOL		"tcpstall"

static struct ts_env env;
/* the namespaces watched and their names; the full sweep's way into each */
static struct nm_scope scope;
static struct ts_nsset nss;

/* the run's rungs, as the load chose them (the ladder: tcpstall/hooks.c) */
static struct nm_hook run_hooks[TS_NR_HOOKS];

/* ---- state ---- */

static struct state {
	struct nm_htab *socks;		/* ts_key -> ts_sock */
	uint64_t sweep;
	struct bpf_link *fast;		/* the fast sweep's iterator, NULL: full sweeps only */
	struct bpf_link *fast_own;	/* ... when attached by hand (rung 1): destroyed by us */
	const char *tag_source;		/* what tags a sender for the fast sweep */
	bool diag;			/* full sweeps through sock_diag: iter/tcp refused */
	struct ts_sched clock;		/* when to sweep, and report (tcpstall/ns.c) */
	bool episodes;			/* tcp_push/tcp_wfree measure tsq_idle episodes */
	/* --fix=kick */
	bool kick;			/* it kicks here: ts_kick, or from userspace (pidfd_getfd) */
	struct ts_kick_stats kick_report;	/* the report's copy of the kicks' counters, for its sinks */
	uint64_t marks_at;		/* the loop's next walk of the open episodes between sweeps (0: none) */
} st;

/* what the reports show: the interval's flows and ended stalls, the totals (tcpstall/report.c) */
static struct ts_report rep;
/* what fills it from the BPF side: episodes, ACK flows, counters (tcpstall/collect.c) */
static struct ts_collect coll;

/* --fix carried out: the journals, the kick passes (tcpstall/act.c) */
static struct ts_act act = TS_ACT_INIT;

/* ---- sweep ---- */

/* A swept socket: into the report, and --fix=kick's candidate. */
static void take_sample(const struct ts_sample *smp, void *arg)
{
	enum ts_state state;
	struct ts_sock *s = ts_report_sample(&rep, smp, st.sweep, &state);

	(void)arg;
	/* TCP_NAGLE_OFF is what getsockopt(TCP_NODELAY) reads */
	if (s && st.kick)
		ts_act_kick_want(&act, &(struct ts_kick_cand){ .by = TS_KICK_BY_SWEEP, .key = smp->key,
				 .state = state, .now_ns = smp->now_ns, .nonagle = smp->nonagle, .s = s });
}

/*
 * One sweep. The full one walks every TCP socket of each netns in scope
 * (its cost is the size of the established hash table, not the number of
 * sockets: about a millisecond here); the fast one walks only the tagged
 * sockets, those that sent or had something to send lately.
 */
static int sweep(struct tcpstall_bpf *skel, bool full)
{
	enum ts_walk w = ts_walk_of(full, st.fast != NULL, st.fast == st.fast_own, st.diag);
	/* rung 2's walks: the namespaces with a fresh tag mark only */
	struct ts_tags tags = { bpf_map__fd(skel->maps.ns_tagged), &skel->bss->tag_epoch };
	const struct ts_nsset_want tagged = { ts_ns_tagged, &tags };
	char err[256];
	int ret;

	st.sweep++;
	skel->bss->tag_epoch = ts_tag_epoch(st.sweep);
	ret = ts_nsset_sweep(&nss, w, w == TS_WALK_FULL ? skel->links.ts_sweep : st.fast, &tagged,
			     env.port, take_sample, NULL, err, sizeof(err));
	if (ret && w == TS_WALK_DIAG)
		nm_info(&env.o, "sock_diag sweep: %s", err);
	return ret;
}

/* ---- the iterators (tcpstall/ns.c says which a rung runs) ---- */

static struct ts_iters iters_of(struct tcpstall_bpf *skel)
{
	return (struct ts_iters){
		.full = { skel->links.ts_sweep, skel->progs.ts_sweep },
		.tags = { st.fast_own, skel->progs.ts_sweep_tagged },
		.fast = { skel->links.ts_sweep_fast, skel->progs.ts_sweep_fast },
		.kick = { skel->links.ts_kick, skel->progs.ts_kick },
	};
}

/* What the skeleton does not attach, and the iterators' first runs (ts_iters_attach). */
static int skel_attach(void *p, struct nm_hook *hooks, struct bpf_program **failed,
		       const char **stage)
{
	struct tcpstall_bpf *skel = p;
	struct ts_iters it = iters_of(skel);
	int err = ts_iters_attach(&it, hooks, bpf_map__fd(skel->maps.tagged), failed, stage);
	char why[96];

	/* the userspace kick stands in for ts_kick only where pidfd_getfd works */
	if (ts_hooks_kick_getfd(hooks) && ts_kickfd_probe(why, sizeof(why)))
		ts_hooks_kick_aside(hooks, why);

	skel->links.ts_sweep_fast = it.fast.link;
	st.fast_own = it.tags.link;
	return err;
}

/* The fast sweep's iterator, from its rung: without one every sweep is a full one. */
static void use_fast_sweep(struct tcpstall_bpf *skel, const struct nm_hook *hooks)
{
	struct ts_iters it = iters_of(skel);
	const struct ts_iter *fast = ts_iters_fast(&it, hooks);

	st.fast = fast ? fast->link : NULL;
	skel->bss->tagging = st.fast != NULL;
}

/* ---- the report (tcpstall/report.c holds its rows; lib/emit.c writes them) ---- */

/* The report's row, its JSON record and the textfile's tcpstall_ metrics, from what was collected. */
static void interval_row(struct ts_interval_row *r)
{
	struct ts_interval_in in = {
		.time = (uint64_t)time(NULL), .sweeps = st.sweep, .sweep_wait_ns = st.clock.wait_ns,
		.episodes = st.episodes, .kick = st.kick,
		/* the timer's requests: none where the kicker walks the episodes itself */
		.kicker = act.kicker && act.poll.marks_fd < 0,
		.kicks = &st.kick_report, .prom_netns = env.prom_netns, .netns = env.o.netns_ino,
	};

	ts_collect_interval(&coll, &scope, &nss, &in);
	ts_report_interval_row(&rep, &in, r);
}

/* ---- remedy: --fix=kick (tcpstall/act.c makes it; the sweeps and the marks find its sockets) ---- */

/* The open tsq_idle episodes walked (ts_act_walk_marks): the stale ones dropped (forget), the kicks. */
static void walk_marks(struct tcpstall_bpf *skel, bool forget, bool kick)
{
	struct ts_marks w = { .forget = forget, .kick = kick, .now_ns = nm_mono_ns(),
			      .sweep = st.sweep, .socks = st.socks };
	int open = ts_act_walk_marks(&act, bpf_map__fd(skel->maps.tsq_marks), &w);

	if (open >= 0)
		skel->bss->marks_open = open;
}

/* --fix: act told what it acts on, the journal opened. */
static int fix_start(struct tcpstall_bpf *skel)
{
	struct ts_kick_prog kick = { .kicks_fd = bpf_map__fd(skel->maps.kicks),
				     .getfd = ts_hooks_kick_getfd(run_hooks) };

	if (ts_hooks_kick_iter(run_hooks))
		kick.link = skel->links.ts_kick;
	if (kick.getfd)
		ts_kickfd_warm();
	ts_act_setup(&act, &env, &kick, st.socks);
	act.ns_where = ts_ns_where;
	act.ns_arg = &scope;
	return ts_act_fix_start(&act, TOOL);
}

/* ---- main ---- */

/*
 * Once a report: the scope refreshed, the namespaces that came swept from
 * now on, those gone forgotten, with their records (the sockets the fast
 * sweep found in them too).
 */
static void follow_scope(void)
{
	nm_scope_refresh(&scope);
	ts_nsset_sync(&nss, &scope);
	ts_report_forget(&rep, nss.gone, nss.ngone, nm_scope_any_went(&scope) ? ts_ns_went : NULL,
			 &scope);
}

/*
 * One report: the flows judged and ranked, the kicks' outcomes taken,
 * --fix's plan made (before the sinks, whose lines follow its log), and
 * the interval's row built once for JSON and the textfile.
 */
static int report_step(void *p, struct nm_emit *e)
{
	static struct ts_interval_row ir;	/* the sinks read it after the step */

	(void)p;
	/* namespaces that came or went: before any row names them */
	follow_scope();
	ts_report_flows_start(&rep, nm_mono_ns());
	ts_collect_acks(&coll, &rep);
	ts_report_rank(&rep);
	ts_act_take_stats(&act, &st.kick_report);
	if (env.fix) {
		size_t n = ts_report_fix_flows(&rep, coll.acks);

		ts_act_fixes(&act, rep.fix, n);
	}
	interval_row(&ir);
	ts_collect_emit(&coll, &rep, e, &ir, nm_opts_prom(&env.o));
	return 0;
}

/* After the sinks: the next interval's samples and ended stalls start from none. */
static void after_report(void *p)
{
	(void)p;
	ts_report_next(&rep);
}

/*
 * The first line: the start record; after the interval, the sweeps, what
 * tags senders, the netns and the remedies. None when a signal came first.
 */
static int first_line(void *p, struct nm_first *l)
{
	static struct ts_start_row r;
	static char ns[256], lost[256];

	(void)p;
	if (nm_exiting)
		return NM_RUN_SKIP;
	r = (struct ts_start_row){
		.tool = TOOL, .kernel = nm_kernel_release(), .hooks = run_hooks,
		.nhooks = TS_NR_HOOKS, .interval = env.o.interval,
		.netns = nm_scope_str(&scope, ns, sizeof(ns)), .names_lost = ts_ns_lost(&scope, lost, sizeof(lost)),
		.threshold_ms = env.threshold_ms, .sweep_ms = env.sweep_ms,
		.full_sweep_ms = ts_sched_full_ms(&st.clock),
		.full_sweep_by = st.diag ? "sock_diag" : "iter/tcp",
		.sweep_cpu_budget_pct = TS_SWEEP_BUDGET_PCT,
		.senders_tagged_by = st.tag_source, .kick = st.kick,
	};
	if (st.kick) {
		r.kick_at = ts_act_kick_at(nm_worker_alive(act.kicker), act.poll.marks_fd < 0, st.episodes);
		r.kicker = nm_worker_priority(act.kicker);
	}
	l->rec = &ts_start_rec;
	l->row = &r;
	ts_report_first_what(&r, env.fix, l->what, sizeof(l->what));
	snprintf(l->lost, sizeof(l->lost), "%s", r.names_lost ? r.names_lost : "");
	return 0;
}

/* ---- skeleton ---- */

static void skel_prepare(void *p, struct nm_hook *hooks)
{
	struct tcpstall_bpf *skel = p;

	bpf_map__set_max_entries(skel->maps.acks, env.max_flows);
	bpf_map__set_max_entries(skel->maps.ack_index, env.max_flows);
	skel->rodata->ts_flow_mask = env.max_flows - 1;
	/* a map iterator needs its map: attached by hand, in skel_attach */
	bpf_program__set_autoattach(skel->progs.ts_sweep_tagged, false);
	skel->rodata->targ_port = env.port;
	/* what is watched: the scope; where --fix=kick acts: the netns tcpstall runs in */
	nm_set_scope_filter(&env.o, &skel->rodata->targ_nscope, skel->rodata->targ_scope);
	skel->rodata->targ_netns_ino = env.o.netns_ino;
	skel->rodata->targ_hz = env.hz;
	skel->rodata->targ_stall_ns = env.threshold_ms * 1000000ULL;
	/*
	 * No socket storage in tracing programs (5.10): the calls that tag
	 * are ruled out, so the programs that make them load (the fast
	 * sweep's rungs, which need it, are refused). Unknown: kept, and a
	 * refusal, if any, takes the next rung.
	 */
	skel->rodata->ts_sk_storage = nm_probe_tracing_helper(BPF_FUNC_sk_storage_get) != 0;
	/* --fix=kick's programs: on only where their hooks choose them */
	bpf_program__set_autoload(skel->progs.ts_kick, false);
	bpf_program__set_autoload(skel->progs.ts_push_exit_kick, false);
	bpf_program__set_autoload(skel->progs.ts_wfree_exit_kick, false);
	/* ... and the kick timer's maps: a run without --fix=kick creates neither */
	bpf_map__set_autocreate(skel->maps.kick_timers, env.fix & TS_FIX_KICK);
	bpf_map__set_autocreate(skel->maps.kick_due, env.fix & TS_FIX_KICK);
	nm_hooks_declare(hooks, ts_hook_decls, TS_NR_HOOKS, skel->obj, ts_hooks_want(env.fix));
}

NM_SKEL_OPS(tcpstall, skel_prepare, skel_attach, TS_NR_HOOKS);

/* One sweep, and what follows it: the marks walked, the kicks made; 0, or the exit code. */
static int sweep_step(struct tcpstall_bpf *skel)
{
	bool full = ts_sched_full(&st.clock, nm_mono_ns()), pass_kicks;
	uint64_t t0 = nm_mono_ns(), c0 = ts_thread_cpu_ns(), cpu;
	int ret;

	if (st.episodes)
		ts_collect_episodes(&coll, &rep);
	ret = sweep(skel, full);
	if (ret)
		return nm_err(&env.o, NM_EXIT_RUNTIME, "socket sweep: %s", strerror(-ret));
	/* the sweep's CPU time, not its wall time, counts for the budget */
	cpu = ts_thread_cpu_ns() - c0;
	ts_report_gone(&rep, st.sweep, nm_mono_ns());
	/* without a kicker thread (the kick timer's) the loop kicks: the open episodes too */
	pass_kicks = st.kick && !nm_worker_alive(act.kicker);
	if (st.episodes && (full || pass_kicks))
		walk_marks(skel, full, pass_kicks);
	ts_act_kick_pass(&act);
	ts_sched_swept(&st.clock, full, t0, cpu, nm_mono_ns());
	return 0;
}

/*
 * Where no kicker thread runs (none could start: the kick timer's, or
 * where fexit has no bpf_timer, before 5.15, the one that walks the open
 * episodes), the loop kicks them at each sweep; where sweeps are far
 * apart (every one a full one, within its CPU budget: 5.10), a stall
 * waited for the next one, past the peer's delayed ACK (make faults
 * KERNEL=5.10: 150 of 770 long stalls kicked in time). So the loop also
 * walks the episodes every half threshold between sweeps: a walk of the
 * marks map, not of the sockets. Returns when the loop must wake for it,
 * or UINT64_MAX.
 */
static uint64_t marks_tick(struct tcpstall_bpf *skel, uint64_t now)
{
	if (!st.kick || !st.episodes || nm_worker_alive(act.kicker))
		return UINT64_MAX;
	if (st.marks_at && now >= st.marks_at) {
		walk_marks(skel, false, true);
		ts_act_kick_pass(&act);
	}
	if (!st.marks_at || now >= st.marks_at)
		st.marks_at = now + env.threshold_ms * 1000000ULL / 2;
	return st.marks_at;
}

/*
 * Sweeps and reports, each when due (tcpstall/ns.c's clock), until --count
 * or a signal; a report through due (the CLI's: this tool's; the agent's:
 * every tool's).
 */
static int loop(void *skel, const struct nm_due *due)
{
	ts_sched_start(&st.clock, nm_mono_ns());
	while (!nm_exiting) {
		int ret = ts_sched_sweep_due(&st.clock, nm_mono_ns()) ? sweep_step(skel) : 0;
		uint64_t wake, marks;

		if (ret)
			return ret;
		if (ts_sched_report_due(&st.clock, nm_mono_ns())) {
			due->report(due);
			if (!ts_sched_reported(&st.clock, nm_mono_ns()))
				return 0;
		}
		wake = ts_sched_wake(&st.clock);
		marks = marks_tick(skel, nm_mono_ns());
		nm_sleep_until(marks < wake ? marks : wake);
	}
	/* a signal: one last report */
	due->report(due);
	return 0;
}

/* ---- the run's steps (lib/run.h) ---- */

static void set_caps(struct nm_opts *o)
{
	ts_opts_test_aids(&env, getenv("NETMEDIC_TEST_KICK"));
	/* before --netns moves us: RFS's global sysctl lives here */
	act.fx.home_fd = open("/proc/self/ns/net", O_RDONLY | O_CLOEXEC);
	ts_act_caps(&o->caps, env.fix);
}

static const char *remedy(void)
{
	return env.fix ? "--fix" : NULL;
}

/* a usage error, before anything (--print-caps, --cleanup) answers */
static int check(void)
{
	if (env.o.ndevs)
		return nm_err(&env.o, NM_EXIT_USAGE, "--dev: tcpstall watches sockets; use --netns and --port");
	return 0;
}

static int setup(void)
{
	int ret;

	env.hz = nm_kconfig_long("CONFIG_HZ") > 0 ? nm_kconfig_long("CONFIG_HZ") : 0;
	if (!env.hz)
		nm_info(&env.o, "warning: CONFIG_HZ not found (/proc/config.gz, /boot/config-*): stall ages assume 250 Hz");
	/* the sockets the sweeps track: the report's, and --fix=kick's */
	ret = ts_collect_report_init(&rep, &env, &scope);
	st.socks = rep.socks;
	if (ret)
		return nm_err(&env.o, NM_EXIT_RUNTIME, "out of memory");
	/* before the load, with the privileges the names need: the scope's first scan */
	if (nm_scope_from_opts_nodev(&scope, &env.o))
		return nm_err(&env.o, NM_EXIT_RUNTIME, "out of memory for the netns registry");
	return 0;
}

/* The table, the rungs' choices, the journal and the kicker: all before the drop. */
static int start(void *p)
{
	struct tcpstall_bpf *skel = p;
	int ret;

	coll.acks = nm_map_mmap(skel->maps.acks, &coll.acks_len);
	if (!coll.acks)
		return nm_err(&env.o, NM_EXIT_RUNTIME, "cannot map the ACK flow table: %s", strerror(errno));
	coll.counters_fd = bpf_map__fd(skel->maps.ts_counters);
	coll.episodes_fd = bpf_map__fd(skel->maps.tsq_episodes);
	coll.epoch = &skel->bss->ts_epoch;
	coll.max_flows = env.max_flows;
	/* owned = inside __release_sock, where its rung runs; else the owner bit */
	skel->bss->release_rung = ts_hooks_release(run_hooks);
	st.diag = nm_hook_can(&run_hooks[TS_HOOK_SWEEP], TS_CAN_DIAG);
	/* the way into each netns in scope: a sock_diag socket, or its netns file for iter/tcp */
	if (ts_nsset_init(&nss, st.diag, scope.setns, 0, 0, NULL))
		return nm_err(&env.o, NM_EXIT_RUNTIME, "cannot open this netns: %s", strerror(errno));
	ts_nsset_sync(&nss, &scope);
	/* fexit/tcp_push + fexit/tcp_wfree: tsq_idle episodes, measured where they happen */
	st.episodes = ts_hooks_exact(run_hooks);
	use_fast_sweep(skel, run_hooks);
	ts_sched_init(&st.clock, env.sweep_ms, st.fast != NULL, env.o.interval, env.o.count);
	st.tag_source = ts_hooks_tag_source(run_hooks, st.fast);
	/* only where nothing else sees a send: it costs every data skb a branch */
	skel->bss->tag_on_queue = !strcmp(st.tag_source, "net_dev_queue");
	st.kick = ts_hooks_kick(run_hooks);
	skel->bss->kick_halt = env.kick_halt;
	/* pidfd_getfd's kicks take each socket anew: the drop leaves what that takes (lib/caps.h) */
	env.o.caps.getfd_keep = ts_hooks_kick_getfd(run_hooks);
	/* a signal during the start: nothing is changed, nothing reported */
	ret = env.fix && !nm_exiting ? fix_start(skel) : 0;
	/*
	 * Once the journal is open: its first request may come at once. And
	 * before the drop: the main thread sets the kicker's SCHED_FIFO, which
	 * takes CAP_SYS_NICE; the kicker drops what this thread drops, first.
	 */
	if (!ret && st.kick && ts_hooks_kick_timer(run_hooks))
		ts_act_kicker_start(&act, bpf_map__fd(skel->maps.kick_due));
	else if (!ret && st.kick && st.episodes)
		ts_act_poller_start(&act, bpf_map__fd(skel->maps.tsq_marks));
	return ret;
}

static int stop(void)
{
	ts_act_kicker_stop(&act);
	return ts_act_fix_stop(&act);
}

static void free_run(void *skel)
{
	(void)skel;
	bpf_link__destroy(st.fast_own);
	if (coll.acks)
		munmap((void *)coll.acks, coll.acks_len);
	nm_htab_free(st.socks);
	nm_htab_free(rep.prev_acks);
	ts_report_free(&rep);
	ts_nsset_free(&nss);
	nm_scope_free(&scope);
	if (act.fx.home_fd >= 0)
		close(act.fx.home_fd);
}

/* the command line into env (the agent: its defaults) */
static void parse(int argc, char **argv)
{
	ts_opts_parse(&env, argc, argv);
}

const struct nm_tool tcpstall_tool = {
	/* --fix=routes undoes its route replaces with ip; a journal may run nothing else */
	.name = TOOL, .parse = parse, .undo_cmd = "ip",
	.o = &env.o, .skel = &skel_ops, .hooks = run_hooks,
	.fixes = ts_fixes, .nfixes = TS_NFIXES, .list_fixes = &env.list_fixes,
	.signal_in_load_goes_on = true,
	/* --list-fixes: kick's probe loads ts_kick alone; --cleanup undoes a sockopt through it */
	.caps = set_caps, .remedy = remedy, .check = check, .cleanup = ts_act_cleanup,
	.list = ts_act_list_fixes,
	.setup = setup, .start = start, .first = first_line, .report = report_step,
	.after = after_report, .loop = loop, .stop = stop, .free = free_run,
};
