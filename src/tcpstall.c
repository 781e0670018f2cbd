// SPDX-License-Identifier: GPL-2.0
/*
 * tcpstall - TCP sockets that hold unsent data and send nothing (and why),
 * and ACK storms; with reversible remedies (--fix).
 *
 * Loader: the hook ladder, the skeleton, the collection (sweeps, episodes,
 * the ACK flow table) and the run's steps. Decisions live in
 * src/detect/tcpstall_detect.c, the report's rows in lib/tcpstall_report.c
 * (written by lib/emit.c), the remedies in lib/tcpstall_act.c.
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
#include "netmedic/tcpstall.h"
#include "tcpstall.skel.h"
#include "detect/tcpstall_detect.h"
#include "detect/tcpstall_plan.h"
#include "lib/cli.h"
#include "lib/emit.h"
#include "lib/htab.h"
#include "lib/journal.h"
#include "lib/kconfig.h"
#include "lib/run.h"
#include "lib/scope.h"
#include "lib/skel.h"
#include "lib/tcpstall_act.h"
#include "lib/tcpstall_hooks.h"
#include "lib/tcpstall_ns.h"
#include "lib/tcpstall_opts.h"
#include "lib/tcpstall_records.h"
#include "lib/tcpstall_report.h"
#include "lib/worker.h"

/* the full sweep's period: it finds sockets the fast sweep does not follow yet */
#define FULL_SWEEP_MS	1000
#define TOOL		"tcpstall"
#define MAX_SOCKS	65536

static struct ts_env env;
/* the namespaces watched and their names; the full sweep's way into each */
static struct nm_scope scope;
static struct ts_nsset nss;

const char *argp_program_version = "tcpstall (netmedic) 0.1";
const char *argp_program_bug_address = "the netmedic issue tracker";

/* ---- hooks (the ladder: lib/tcpstall_hooks.c) ---- */

/* the run's rungs, as the load chose them */
static struct nm_hook run_hooks[TS_NR_HOOKS];

static void declare_hooks(struct tcpstall_bpf *skel, struct nm_hook *hooks)
{
	nm_hooks_declare(hooks, ts_hook_decls, TS_NR_HOOKS, skel->obj, ts_hooks_want(env.fix));
}

/* ---- state ---- */

static struct state {
	struct nm_htab *socks;		/* ts_key -> ts_sock */
	const struct ts_acks *acks;	/* the BPF acks array, mapped read-only */
	size_t acks_len;
	uint64_t acks_untracked;	/* events of sockets that found both their slots held */
	uint64_t sweep;
	uint32_t epoch;			/* the interval being reported */
	struct bpf_link *fast;		/* the fast sweep's iterator, NULL: full sweeps only */
	struct bpf_link *fast_own;	/* ... when attached by hand (rung 1): destroyed by us */
	const char *tag_source;		/* what tags a sender for the fast sweep */
	bool diag;			/* full sweeps through sock_diag: iter/tcp refused */
	uint64_t sweep_wait_ns;		/* the wait after the last sweep (the CPU budget) */
	uint64_t full_sweeps;
	bool episodes;			/* tcp_push/tcp_wfree measure tsq_idle episodes */
	/* --fix=kick */
	struct bpf_link *kick;		/* the ts_kick iterator; NULL: no kicks here */
	struct ts_kick_stats kick_report;	/* the report's copy of the kicks' counters, for its sinks */
} st;

/* what the reports show: the interval's flows and ended stalls, the totals (lib/tcpstall_report.c) */
static struct ts_report rep;

/* --fix carried out: the journals, the kick passes (lib/tcpstall_act.c) */
static struct ts_act act = TS_ACT_INIT;

/* The kicker thread takes the kick timer's requests as they come. */
static bool kicker_on(void)
{
	return nm_worker_alive(act.kicker);
}

/* ---- sweep ---- */

/*
 * One sweep. The full one walks every TCP socket of each netns in scope
 * (its cost is the size of the established hash table, not the number of
 * sockets: about a millisecond here); the fast one walks only the tagged
 * sockets, those that sent or had something to send lately.
 */
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

/* An iterator's samples, whichever netns it walks (ino). */
static int read_iter(int fd, unsigned long ino, void *arg)
{
	static struct ts_sample buf[256];
	ssize_t n;

	(void)ino;
	(void)arg;
	while ((n = read(fd, buf, sizeof(buf))) > 0)
		for (size_t i = 0; i < (size_t)n / sizeof(buf[0]); i++)
			take_sample(&buf[i], NULL);
	return n < 0 ? -errno : 0;
}

/* The socket storage map's iterator: the tagged sockets of every netns at once. */
static int sweep_map(struct bpf_link *l)
{
	int fd = bpf_iter_create(bpf_link__fd(l)), ret;

	if (fd < 0)
		return -errno;
	ret = read_iter(fd, 0, NULL);
	close(fd);
	return ret;
}

/* Rung 2's walks: the namespaces with a fresh tag mark only (lib/tcpstall_ns.h). */
static bool ns_tagged_lately(unsigned long ino, void *arg)
{
	struct tcpstall_bpf *skel = arg;
	__u64 key = ino;
	__u32 mark;
	bool marked = !bpf_map_lookup_elem(bpf_map__fd(skel->maps.ns_tagged), &key, &mark);

	return ts_tag_fresh(marked, mark, skel->bss->tag_epoch);
}

static int sweep(struct tcpstall_bpf *skel, bool full)
{
	const struct ts_nsset_want tagged = { ns_tagged_lately, skel };
	char err[256];
	int ret;

	full |= !st.fast;
	st.sweep++;
	st.full_sweeps += full;
	skel->bss->tag_epoch = st.sweep / TS_TAG_EPOCH_SWEEPS + 1;
	if (!full && st.fast == st.fast_own)
		return sweep_map(st.fast);
	/* iter/tcp walks the netns it was made in: one iterator each, where sockets are tagged */
	if (!full)
		return ts_nsset_iter_some(&nss, bpf_link__fd(st.fast), &tagged, read_iter, NULL);
	if (!st.diag)
		return ts_nsset_iter(&nss, bpf_link__fd(skel->links.ts_sweep), read_iter, NULL);
	ret = ts_nsset_diag(&nss, env.port, take_sample, NULL, err, sizeof(err));
	if (ret)
		nm_info(&env.o, "sock_diag sweep: %s", err);
	return ret;
}

/* ---- the scope: names, and the namespaces that come and go ---- */

static const char *ns_name(void *arg, unsigned long ino, char *buf, size_t len)
{
	(void)arg;
	return nm_scope_ns_name(&scope, ino, buf, len);
}

/* A netns's name, and the --netns value that enters it: its /run/netns name, else a pid in it. */
static void ns_where(void *arg, unsigned long ino, char *name, size_t nlen, char *opt, size_t olen)
{
	const struct nm_ns *ns = nm_nsreg_find(&scope.reg, ino);

	(void)arg;
	nm_scope_ns_name(&scope, ino, name, nlen);
	if (!opt)
		return;
	if (ns && ns->named)
		snprintf(opt, olen, "%s", ns->name);
	else if (ns && (ns->live_pid || ns->pid))
		snprintf(opt, olen, "%d", ns->live_pid ? ns->live_pid : ns->pid);
	else
		opt[0] = '\0';
}

/* A netns that went: its records dropped, quietly (its way in is closed after). */
static void ns_gone(unsigned long ino, void *arg)
{
	(void)arg;
	ts_report_drop_netns(&rep, ino);
}

/* A netns that went (lib/scope.h nm_scope_went): its sockets and ACK flows are not reported. */
static bool scope_gone(unsigned long ino, void *arg)
{
	return nm_scope_went(arg, ino, 0);
}

/*
 * Once a report: namespaces that came are swept from now on, those gone
 * are forgotten, with the sockets the fast sweep found in them.
 */
static void follow_scope(void)
{
	nm_scope_refresh(&scope);
	ts_nsset_sync(&nss, &scope, ns_gone, NULL);
	if (nm_scope_any_went(&scope))
		ts_report_drop_gone(&rep, scope_gone, &scope);
}

/* What missing privileges lost: the names, and the full sweeps of other namespaces. */
static const char *names_lost(char *buf, size_t len)
{
	buf[0] = '\0';
	if (!scope.read_procs)
		snprintf(buf, len, "names of other users' namespaces (no CAP_SYS_PTRACE: their inodes)");
	if (!scope.setns)
		snprintf(buf + strlen(buf), len - strlen(buf), "%sfull sweeps of other namespaces "
			 "(no CAP_SYS_ADMIN: their sockets only once a send tags them)",
			 buf[0] ? ", " : "");
	return buf;
}

/* The fast sweep's iterator link, as its rung says: NULL without one. */
static struct bpf_link *fast_link(struct tcpstall_bpf *skel, const struct nm_hook *hooks)
{
	if (nm_hook_can(&hooks[TS_HOOK_FAST], TS_CAN_TAG_MAP))
		return st.fast_own;
	return nm_hook_can(&hooks[TS_HOOK_FAST], TS_CAN_TAG_SWEEP) ? skel->links.ts_sweep_fast : NULL;
}

/* The iterators' first runs: a refused one takes its hook's next rung. */
static int check_iters(struct tcpstall_bpf *skel, const struct nm_hook *hooks,
		       struct bpf_program **failed, const char **stage)
{
	struct bpf_link *fast = fast_link(skel, hooks);
	int err;

	*stage = "run";
	err = nm_hook_can(&hooks[TS_HOOK_SWEEP], TS_CAN_ITER) ? nm_iter_read(skel->links.ts_sweep) : 0;
	if (err) {
		*failed = skel->progs.ts_sweep;
		return err;
	}
	err = fast ? nm_iter_read(fast) : 0;
	if (err) {
		*failed = nm_hook_can(&hooks[TS_HOOK_FAST], TS_CAN_TAG_MAP) ? skel->progs.ts_sweep_tagged :
									skel->progs.ts_sweep_fast;
		return err;
	}
	/* the kicks map is empty: a pass that kicks nothing */
	err = ts_hooks_kick(hooks) ? nm_iter_read(skel->links.ts_kick) : 0;
	if (err)
		*failed = skel->progs.ts_kick;
	return err;
}

/*
 * Rung 1 of the fast sweep iterates the socket storage map of tagged
 * sockets: a map iterator needs its map, so it is attached here, by hand.
 */
static int skel_attach(void *p, struct nm_hook *hooks, struct bpf_program **failed,
		       const char **stage)
{
	struct tcpstall_bpf *skel = p;
	LIBBPF_OPTS(bpf_iter_attach_opts, opts);
	union bpf_iter_link_info li = {};
	int err;

	if (!ts_hooks_can_tag(hooks)) {
		ts_hooks_fast_aside(hooks);
		bpf_link__destroy(skel->links.ts_sweep_fast);
		skel->links.ts_sweep_fast = NULL;
	}
	if (!nm_hook_can(&hooks[TS_HOOK_FAST], TS_CAN_TAG_MAP))
		return check_iters(skel, hooks, failed, stage);
	li.map.map_fd = bpf_map__fd(skel->maps.tagged);
	opts.link_info = &li;
	opts.link_info_len = sizeof(li);
	st.fast_own = bpf_program__attach_iter(skel->progs.ts_sweep_tagged, &opts);
	if (!st.fast_own) {
		*failed = skel->progs.ts_sweep_tagged;
		*stage = "attach";
		return -errno;
	}
	err = check_iters(skel, hooks, failed, stage);
	if (err) {
		/* the next attempt reopens the object: this link goes with it */
		bpf_link__destroy(st.fast_own);
		st.fast_own = NULL;
	}
	return err;
}

/* The fast sweep's iterator, from its rung: without one every sweep is a full one. */
static void use_fast_sweep(struct tcpstall_bpf *skel, const struct nm_hook *hooks)
{
	st.fast = fast_link(skel, hooks);
	skel->bss->tagging = st.fast != NULL;
}

static uint64_t thread_cpu_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
	return ts.tv_sec * 1000000000ULL + ts.tv_nsec;
}

/*
 * The tsq_idle episodes that tcp_push/tcp_wfree measured and ended (the
 * tsq_episodes queue) become stalls. Runs before each sweep, so that an
 * episode's exact end comes before the sweep that sees the socket sending
 * again.
 */
static void take_episodes(struct tcpstall_bpf *skel)
{
	int fd = bpf_map__fd(skel->maps.tsq_episodes);
	struct ts_episode e;

	while (!bpf_map_lookup_and_delete_elem(fd, NULL, &e))
		ts_report_episode(&rep, &e.key, e.start_ns, e.end_ns);
}

/* ---- ACK flows: the table read in place, its deltas into the report ---- */

static void collect_acks(struct tcpstall_bpf *skel)
{
	uint32_t untracked = TS_CNT_ACK_UNTRACKED;

	st.epoch = skel->bss->epoch;
	st.acks_untracked = nm_percpu_u64(bpf_map__fd(skel->maps.counters), &untracked);
	/* CPU masks restart for the next interval */
	if (ts_report_acks(&rep, st.acks, env.max_flows, st.epoch))
		skel->bss->epoch = st.epoch + 1;
}

/* ---- the report (lib/tcpstall_report.c holds its rows; lib/emit.c writes them) ---- */

static uint64_t counter(struct tcpstall_bpf *skel, uint32_t idx)
{
	return nm_percpu_u64(bpf_map__fd(skel->maps.counters), &idx);
}

/* The report's row, its JSON record and the textfile's tcpstall_ metrics, from what was collected. */
static void interval_row(struct tcpstall_bpf *skel, struct ts_interval_row *r)
{
	struct ts_interval_in in = {
		.time = (uint64_t)time(NULL), .sweeps = st.sweep, .sweep_wait_ns = st.sweep_wait_ns,
		.ack_untracked = st.acks_untracked,
		.episodes = st.episodes, .kicker = act.kicker, .kick = st.kick,
		.kicks = &st.kick_report, .prom_netns = env.prom_netns, .netns = env.o.netns_ino,
		.netns_swept = ts_nsset_ways(&nss),
	};
	struct nm_scope_counts c;

	nm_scope_counts(&scope, &c);
	in.netns_named = c.ns;
	in.netns_over = c.ns_over + nss.over;

	for (uint32_t i = 0; i < TS_CNT_MAX; i++)
		in.counters[i] = counter(skel, i);
	ts_report_interval_row(&rep, &in, r);
}

/* What a report holds (ts_report_emit); for the textfile, the ACK flow table's fill. */
static void emit_fill(struct nm_emit *e, struct tcpstall_bpf *skel, const struct ts_interval_row *ir)
{
	ts_report_emit(&rep, e, ir);
	if (!env.o.prom_file)
		return;
	e->map = (struct nm_emit_map){ .name = "acks", .entries = rep.acks_present,
				       .max = env.max_flows,
				       .evictions = counter(skel, TS_CNT_ACK_FLOWS_EVICTED),
				       .direct = true, .untracked = st.acks_untracked };
}

/* ---- remedy: --fix=kick (lib/tcpstall_act.c makes it; the sweeps and the marks find its sockets) ---- */

/* A socket's memory for the kick decision, made at first use. */
static struct ts_sock *kick_sock(void *arg, const struct ts_key *k)
{
	(void)arg;
	return nm_htab_upsert(st.socks, k, NULL);
}

/* An open episode of a socket gone from the sweeps (ts_mark_stale). */
static bool mark_stale(const struct ts_key *k, const struct ts_mark *m, uint64_t now)
{
	return ts_mark_stale(m->start_ns, nm_htab_get(st.socks, k), st.sweep, now);
}

/*
 * One walk of the open episodes (tsq_marks). forget, at each full sweep:
 * the stale ones leave, and the BPF side's gate (marks_open) is set to the
 * open ones left, since a closed socket or an LRU eviction never ends its
 * episode. kick (--fix=kick with no kicker thread): those open for the
 * threshold are queued (ts_kick_plan), at each loop pass.
 */
static void walk_marks(struct tcpstall_bpf *skel, bool forget, bool kick)
{
	int fd = bpf_map__fd(skel->maps.tsq_marks), open = 0;
	struct ts_key k, next, drop[256];
	uint64_t now = nm_mono_ns();
	size_t ndrop = 0;
	bool first = true;

	while (ndrop < 256 && !bpf_map_get_next_key(fd, first ? NULL : &k, &next)) {
		struct ts_mark m;

		first = false;
		k = next;
		if (bpf_map_lookup_elem(fd, &k, &m))
			continue;
		if (forget && mark_stale(&k, &m, now)) {
			drop[ndrop++] = k;
			continue;
		}
		open++;
		if (kick)
			ts_act_kick_want(&act, &(struct ts_kick_cand){ .by = TS_KICK_BY_MARK, .key = k,
					 .start_ns = m.start_ns, .now_ns = now, .nonagle = m.nonagle });
	}
	for (size_t i = 0; i < ndrop; i++)
		bpf_map_delete_elem(fd, &drop[i]);
	/* a walk cut short at 256 drops counted too few: the next one sets it */
	if (forget && ndrop < 256)
		skel->bss->marks_open = open;
}

/* --fix: act told what it acts on, the journal opened. */
static int fix_start(struct tcpstall_bpf *skel)
{
	act.o = &env.o;
	act.fix = env.fix;
	act.kx = (struct ts_kick_ctx){ .netns = env.o.netns_ino, .threshold_ns = env.threshold_ms * 1000000ULL,
				       .cfg = &env.kick, .sock = kick_sock };
	act.ns_where = ns_where;
	act.kick = (struct ts_kick_prog){ .link = st.kick, .kicks_fd = bpf_map__fd(skel->maps.kicks) };
	return ts_act_fix_start(&act, TOOL);
}

/* ---- main ---- */

/*
 * One report: the flows judged and ranked, the kicks' outcomes taken,
 * --fix's plan made (before the sinks, whose lines follow its log), and
 * the interval's row built once for JSON and the textfile.
 */
static int report_step(void *p, struct nm_emit *e)
{
	static struct ts_interval_row ir;	/* the sinks read it after the step */
	struct tcpstall_bpf *skel = p;

	/* namespaces that came or went: before any row names them */
	follow_scope();
	ts_report_flows_start(&rep, nm_mono_ns());
	collect_acks(skel);
	ts_report_rank(&rep);
	ts_act_take_stats(&act, &st.kick_report);
	if (env.fix) {
		size_t n = ts_report_fix_flows(&rep, st.acks);

		ts_act_fixes(&act, rep.fix, n);
	}
	interval_row(skel, &ir);
	emit_fill(e, skel, &ir);
	return 0;
}

/* After the sinks: the next interval's samples and ended stalls start from none. */
static void after_report(void *p)
{
	(void)p;
	ts_report_next(&rep);
}

/* When --fix=kick acts on a stall: its timer at the threshold, or a loop pass after it. */
static const char *kick_at(void)
{
	if (kicker_on())
		return "threshold";
	return st.episodes ? "next_pass" : "next_sweep";
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
		.netns = nm_scope_str(&scope, ns, sizeof(ns)), .names_lost = names_lost(lost, sizeof(lost)),
		.threshold_ms = env.threshold_ms, .sweep_ms = env.sweep_ms,
		.full_sweep_ms = st.fast ? FULL_SWEEP_MS : env.sweep_ms,
		.full_sweep_by = st.diag ? "sock_diag" : "iter/tcp",
		.sweep_cpu_budget_pct = TS_SWEEP_BUDGET_PCT,
		.senders_tagged_by = st.tag_source, .kick = st.kick,
	};
	if (st.kick) {
		r.kick_at = kick_at();
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
	skel->rodata->targ_flow_mask = env.max_flows - 1;
	/* a map iterator needs its map: attached by hand, in skel_attach */
	bpf_program__set_autoattach(skel->progs.ts_sweep_tagged, false);
	skel->rodata->targ_port = env.port;
	/* what is watched: the scope; where --fix=kick acts: the netns tcpstall runs in */
	nm_set_scope_filter(&env.o, &skel->rodata->targ_nscope, skel->rodata->targ_scope);
	skel->rodata->targ_netns_ino = env.o.netns_ino;
	skel->rodata->targ_hz = env.hz;
	skel->rodata->targ_stall_ns = env.threshold_ms * 1000000ULL;
	/* --fix=kick's programs: on only where their hooks choose them */
	bpf_program__set_autoload(skel->progs.ts_kick, false);
	bpf_program__set_autoload(skel->progs.ts_push_exit_kick, false);
	bpf_program__set_autoload(skel->progs.ts_wfree_exit_kick, false);
	/* ... and the kick timer's maps: a run without --fix=kick creates neither */
	bpf_map__set_autocreate(skel->maps.kick_timers, env.fix & TS_FIX_KICK);
	bpf_map__set_autocreate(skel->maps.kick_due, env.fix & TS_FIX_KICK);
	declare_hooks(skel, hooks);
}

NM_SKEL_OPS(tcpstall, skel_prepare, skel_attach, TS_NR_HOOKS);

/* the run's steps, below: a report due in the sweep loop is nm_run_report's */
static const struct nm_tool tool;

/*
 * One sweep, and what follows it: the marks walked, the kicks made. It
 * sets when the next full sweep and the next sweep are due; 0, or the
 * exit code.
 */
static int sweep_step(struct tcpstall_bpf *skel, uint64_t *full_at, uint64_t *sweep_at)
{
	/* a full sweep first, then every FULL_SWEEP_MS: it tags what the fast ones follow */
	bool full = !st.fast || nm_mono_ns() >= *full_at;
	uint64_t t0 = nm_mono_ns(), c0 = thread_cpu_ns();
	int ret;

	if (st.episodes)
		take_episodes(skel);
	ret = sweep(skel, full);
	if (ret)
		return nm_err(&env.o, NM_EXIT_RUNTIME, "socket sweep: %s", strerror(-ret));
	/*
	 * Each netns's walk is one of the whole established table (the
	 * namespaces share it unless tcp_child_ehash_entries is set): on
	 * a host of many, the full sweeps alone keep to the budget too.
	 */
	if (full && st.fast)
		*full_at = t0 + ts_sweep_wait_ns(FULL_SWEEP_MS * 1000000ULL, thread_cpu_ns() - c0,
						 false);
	/*
	 * The budget counts the sweep's CPU time (the kernel's walk runs
	 * in our read or recvmsg), not its wall time: a sweep preempted
	 * on a busy host must not space the next ones out. A full sweep
	 * is spared it only beside fast sweeps that walk the tags alone.
	 */
	st.sweep_wait_ns = ts_sweep_wait_ns(env.sweep_ms * 1000000ULL, thread_cpu_ns() - c0,
					    full && st.fast && st.fast == st.fast_own);
	ts_report_gone(&rep, st.sweep, nm_mono_ns());
	if (st.episodes && (full || (st.kick && !kicker_on())))
		walk_marks(skel, full, st.kick && !kicker_on());
	ts_act_kick_pass(&act);
	*sweep_at = nm_mono_ns() + st.sweep_wait_ns;
	return 0;
}

static int run(struct tcpstall_bpf *skel)
{
	uint64_t next = nm_mono_ns() + (uint64_t)(env.o.interval * 1e9), full_at = 0, sweep_at = 0;
	long reports = 0;

	while (!nm_exiting) {
		int ret = 0;

		if (nm_mono_ns() >= sweep_at)
			ret = sweep_step(skel, &full_at, &sweep_at);
		if (ret)
			return ret;
		/*
		 * The sweep budget spaces sweeps, not reports: where a sweep of
		 * many namespaces takes long, its wait may pass the interval
		 * (seen in the scope churn: 43 reports in 50 s at -i 0.5).
		 */
		if (nm_mono_ns() >= next) {
			nm_run_report(&tool, skel);
			next = nm_next_deadline(next, (uint64_t)(env.o.interval * 1e9), nm_mono_ns());
			if (env.o.count && ++reports >= env.o.count)
				return 0;
		}
		nm_sleep_until(sweep_at < next ? sweep_at : next);
	}
	/* a signal: one last report */
	nm_run_report(&tool, skel);
	return 0;
}

/* ---- the run's steps (lib/run.h) ---- */

static void set_caps(struct nm_opts *o)
{
	ts_opts_test_aids(&env, getenv("NETMEDIC_TEST_KICK"));
	/* before --netns moves us: RFS's global sysctl lives here */
	act.fx.home_fd = open("/proc/self/ns/net", O_RDONLY | O_CLOEXEC);
	/* sysctls; rfs: sysfs and the initial netns; routes: ip */
	o->caps.remedy = env.fix & (TS_FIX_DEFER | TS_FIX_AUTOCORK | TS_FIX_RFS | TS_FIX_ROUTES);
	o->caps.remedy_sysfs = o->caps.remedy_setns = env.fix & TS_FIX_RFS;
	o->caps.remedy_exec = env.fix & TS_FIX_ROUTES;
	o->caps.journal = env.fix;
	o->caps.remedy_opt = "--fix";
	/* a sockopt record (--fix=kick) is undone by a program */
	o->caps.cleanup_bpf = true;
	/* --fix=rfs: rps_flow_cnt */
	o->caps.cleanup_sysfs = true;
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
	env.hz = nm_kconfig_long("CONFIG_HZ") > 0 ? nm_kconfig_long("CONFIG_HZ") : 0;
	if (!env.hz)
		nm_info(&env.o, "warning: CONFIG_HZ not found (/proc/config.gz, /boot/config-*): stall ages assume 250 Hz");
	st.socks = nm_htab_new(sizeof(struct ts_key), sizeof(struct ts_sock), MAX_SOCKS);
	rep.prev_acks = nm_htab_new(sizeof(uint64_t), sizeof(struct ts_prev_acks), env.max_flows);
	if (!st.socks || !rep.prev_acks || ts_report_init(&rep))
		return nm_err(&env.o, NM_EXIT_RUNTIME, "out of memory");
	rep.socks = st.socks;
	rep.threshold_ms = env.threshold_ms;
	rep.storm = &env.storm;
	rep.gone = scope_gone;
	rep.gone_arg = &scope;
	rep.hist = env.hist;
	rep.all = env.all;
	rep.top = env.top;
	/* one --netns: its metrics as they always were; else each netns's, by name */
	rep.per_ns = env.o.nnetns != 1;
	rep.prom_netns = env.prom_netns;
	rep.self_ino = env.o.netns_ino;
	rep.ns_name = ns_name;
	/* the socket records' cgroup paths: a miss walks the cgroup2 tree, once an interval at most */
	rep.cgroups = nm_cgpaths_open(&env.o, NULL, (uint64_t)(env.o.interval * 1e9));
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

	st.acks = nm_map_mmap(skel->maps.acks, &st.acks_len);
	if (!st.acks)
		return nm_err(&env.o, NM_EXIT_RUNTIME, "cannot map the ACK flow table: %s", strerror(errno));
	/* owned = inside __release_sock, where the fentry rung runs; else the owner bit */
	skel->bss->release_rung = nm_hook_can(&run_hooks[TS_HOOK_RELEASE], TS_CAN_OWNED);
	st.diag = nm_hook_can(&run_hooks[TS_HOOK_SWEEP], TS_CAN_DIAG);
	/* the way into each netns in scope: a sock_diag socket, or its netns file for iter/tcp */
	if (ts_nsset_init(&nss, st.diag, scope.setns, 0, 0, NULL))
		return nm_err(&env.o, NM_EXIT_RUNTIME, "cannot open this netns: %s", strerror(errno));
	ts_nsset_sync(&nss, &scope, NULL, NULL);
	/* fexit/tcp_push + fexit/tcp_wfree: tsq_idle episodes, measured where they happen */
	st.episodes = ts_hooks_exact(run_hooks);
	use_fast_sweep(skel, run_hooks);
	st.tag_source = ts_hooks_tag_source(run_hooks, st.fast);
	/* only where nothing else sees a send: it costs every data skb a branch */
	skel->bss->tag_on_queue = !strcmp(st.tag_source, "net_dev_queue");
	st.kick = ts_hooks_kick(run_hooks) ? skel->links.ts_kick : NULL;
	skel->bss->kick_halt = env.kick_halt;
	/* a signal during the start: nothing is changed, nothing reported */
	ret = env.fix && !nm_exiting ? fix_start(skel) : 0;
	/*
	 * Once the journal is open: its first request may come at once. And
	 * before the drop: the main thread sets the kicker's SCHED_FIFO, which
	 * takes CAP_SYS_NICE; the kicker drops what this thread drops, first.
	 */
	if (!ret && st.kick && ts_hooks_kick_timer(run_hooks))
		ts_act_kicker_start(&act, bpf_map__fd(skel->maps.kick_due));
	return ret;
}

static int loop(void *skel)
{
	return nm_exiting ? 0 : run(skel);
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
	if (st.acks)
		munmap((void *)st.acks, st.acks_len);
	nm_htab_free(st.socks);
	nm_htab_free(rep.prev_acks);
	ts_report_free(&rep);
	ts_nsset_free(&nss);
	nm_scope_free(&scope);
	if (act.fx.home_fd >= 0)
		close(act.fx.home_fd);
}

/* --list-fixes: kick's probe loads ts_kick alone */
static int list_fixes(void)
{
	return ts_act_list_fixes(&env.o, &skel_ops);
}

/* --cleanup: a sockopt record is undone through ts_kick, opened alone */
static int cleanup(void)
{
	return ts_act_cleanup(&env.o, &skel_ops);
}

static const struct nm_tool tool = {
	.o = &env.o, .skel = &skel_ops, .hooks = run_hooks,
	.fixes = ts_fixes, .nfixes = TS_NFIXES, .list_fixes = &env.list_fixes,
	.signal_in_load_goes_on = true,
	.caps = set_caps, .check = check, .cleanup = cleanup, .list = list_fixes,
	.setup = setup, .start = start, .first = first_line, .report = report_step,
	.after = after_report, .loop = loop, .stop = stop, .free = free_run,
};

int main(int argc, char **argv)
{
	/* --fix=routes undoes its route replaces with ip; a journal may run nothing else */
	nm_journal_allow_cmd("ip");
	ts_opts_parse(&env, argc, argv);
	return nm_run(&tool);
}
