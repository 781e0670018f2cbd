// SPDX-License-Identifier: GPL-2.0
/*
 * netmedic - the agent: any set of the three detectors (tcpstall,
 * qdiscstuck, xpsflap) in one process, on one BPF object
 * (bpf/netmedic.bpf.c), with one program on net_dev_queue for every
 * detector that takes it, one JSON stream (each line with its "tool") and
 * one textfile or /metrics.
 *
 * Each detector is its CLI's loader built with -DNM_AGENT
 * (agent/detector.h): the agent runs each step of theirs, in the order
 * nm_run() keeps for one tool (lib/run.h), for every detector, and does
 * once what must happen once: the signals, the privileges (the union of
 * what the detectors ask for, dropped once), the load of the one object
 * through one ladder (every detector's rungs, lib/agent.h), the sinks.
 *
 * A detector runs with its CLI's defaults, or the options of its own that
 * --opts NAME=ARGS gives it (its CLI's parser reads them). Not yet: the
 * remedies (--fix, --pin, --kick, --lock), which --opts refuses.
 */
#include <argp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <bpf/libbpf.h>
#include "agent_maps.h"
#include "agent/detector.h"
#include "lib/agent.h"
#include "lib/cli.h"
#include "lib/emit.h"
#include "lib/journal.h"
#include "lib/listen.h"
#include "lib/output.h"
#include "lib/qdiscstuck_hooks.h"
#include "lib/run.h"
#include "lib/selfstats.h"
#include "lib/skel.h"
#include "lib/tcpstall_hooks.h"
#include "lib/tcundo.h"
#include "lib/xpsflap_hooks.h"
#include "netmedic.skel.h"

#define TOOL		"netmedic"

const char *argp_program_version = TOOL " (netmedic) " NETMEDIC_VERSION;
const char *argp_program_bug_address = "the netmedic issue tracker";

struct nm_hook_decl ts_agent_decls[TS_NR_HOOKS], qs_agent_decls[QS_NR_HOOKS],
	xf_agent_decls[XF_NR_HOOKS];

/*
 * The detectors, in the order they run each step (the order the CLIs'
 * programs would run on net_dev_queue, bpf/netmedic.bpf.c): each with its
 * ladder, its programs on the shared tracepoint, the agent's copy of its
 * ladder, and the rodata flag that has the shared program call it.
 */
static struct det {
	const struct nm_detector *d;
	const struct nm_hook_decl *decls;
	const struct nm_shared_prog *shared;
	struct nm_hook_decl *agent_decls;
	size_t queue_flag;		/* offsetof(rodata, nm_queue_X) */
	const char *const *maps;	/* its maps, by name (build/agent_maps.h) */
	bool on;			/* --detect */
	const char *args;		/* --opts NAME=ARGS: its own options */
	int first_hook;			/* its hooks in the agent's array */
} dets[] = {
	{ .d = &tcpstall_detector, .decls = ts_hook_decls, .shared = ts_shared_progs,
	  .agent_decls = ts_agent_decls, .queue_flag = offsetof(struct netmedic_bpf__rodata, nm_queue_ts),
	  .maps = (const char *const []){ NM_AGENT_MAPS_tcpstall NULL } },
	{ .d = &qdiscstuck_detector, .decls = qs_hook_decls, .shared = qs_shared_progs,
	  .agent_decls = qs_agent_decls, .queue_flag = offsetof(struct netmedic_bpf__rodata, nm_queue_qs),
	  .maps = (const char *const []){ NM_AGENT_MAPS_qdiscstuck NULL } },
	{ .d = &xpsflap_detector, .decls = xf_hook_decls, .shared = xf_shared_progs,
	  .agent_decls = xf_agent_decls, .queue_flag = offsetof(struct netmedic_bpf__rodata, nm_queue_xf),
	  .maps = (const char *const []){ NM_AGENT_MAPS_xpsflap NULL } },
};

#define NDETS		((int)(sizeof(dets) / sizeof(dets[0])))
#define for_each_det(x)	for (struct det *x = dets; x < dets + NDETS; x++) if (x->on)

static struct agent_env {
	struct nm_opts o;
	const char *detect;
} env;

/* every detector's hooks, one after the other (a static array: rungs point into it) */
static struct nm_hook hooks[TS_NR_HOOKS + QS_NR_HOOKS + XF_NR_HOOKS];
static int nhooks;

/* ---- options ---- */

enum { OPT_DETECT = 1000, OPT_OPTS };

static const struct argp_option options[] = {
	{ "detect", OPT_DETECT, "LIST", 0,
	  "The detectors to run, comma-separated: tcpstall, qdiscstuck, xpsflap (default: all)", 0 },
	{ "opts", OPT_OPTS, "NAME=ARGS", 0,
	  "Options of detector NAME's own, as its CLI takes them, split at spaces "
	  "(e.g. 'xpsflap=--top 5'); once per detector; no remedy, no common option", 0 },
	{},
};

static const char doc[] =
	"netmedic -- tcpstall, qdiscstuck and xpsflap in one process, on one BPF object\v"
	"Each detector runs with its CLI's defaults (or --opts), host-wide unless --netns narrows it. "
	"JSON lines carry the detector's name in \"tool\"; the textfile (or /metrics) holds "
	"every detector's metrics. The remedies are the CLIs' (tcpstall --fix, ...).";

/* --detect's list into dets[].on; false on a name that is no detector's, or none */
static bool parse_detect(const char *list)
{
	char buf[128], *save = NULL, *w;
	bool any = false;

	if (strlen(list) >= sizeof(buf))
		return false;
	snprintf(buf, sizeof(buf), "%s", list);
	for (w = strtok_r(buf, ",", &save); w; w = strtok_r(NULL, ",", &save)) {
		struct det *x = NULL;

		for (int i = 0; i < NDETS; i++)
			if (!strcmp(w, dets[i].d->name))
				x = &dets[i];
		if (!x)
			return false;
		x->on = any = true;
	}
	return any;
}

static struct det *det_named(const char *name, size_t len)
{
	for (int i = 0; i < NDETS; i++)
		if (strlen(dets[i].d->name) == len && !strncmp(name, dets[i].d->name, len))
			return &dets[i];
	return NULL;
}

/* --opts NAME=ARGS: ARGS kept for NAME's parser; NULL, or why not */
static const char *parse_opts(const char *arg)
{
	const char *eq = strchr(arg, '=');
	struct det *x = eq ? det_named(arg, eq - arg) : NULL;

	if (!eq)
		return "NAME=ARGS, NAME one of tcpstall, qdiscstuck, xpsflap";
	if (!x)
		return "no detector of that name: tcpstall, qdiscstuck, xpsflap";
	if (x->args)
		return "given twice for that detector";
	x->args = eq + 1;
	return NULL;
}

static error_t parse_arg(int key, char *arg, struct argp_state *state)
{
	struct agent_env *e = state->input;
	const char *why;

	switch (key) {
	case ARGP_KEY_INIT:
		state->child_inputs[0] = &e->o;
		break;
	case OPT_DETECT:
		if (!parse_detect(arg))
			argp_error(state, "invalid --detect '%s': a comma-separated list of tcpstall, qdiscstuck, xpsflap",
				   arg);
		e->detect = arg;
		break;
	case OPT_OPTS:
		if ((why = parse_opts(arg)))
			argp_error(state, "invalid --opts '%s': %s", arg, why);
		break;
	case ARGP_KEY_ARG:
		argp_error(state, "unexpected argument '%s'", arg);
		break;
	default:
		return ARGP_ERR_UNKNOWN;
	}
	return 0;
}

NM_ARGP(options, parse_arg, doc, &nm_common_argp);

/*
 * The agent's common options into a detector's: the same run, under the
 * detector's name and its own scope rule and capabilities. Its --listen
 * server is the agent's (it reports through the agent's sinks).
 */
static void give_opts(struct nm_opts *to)
{
	const char *tool = to->tool;
	struct nm_caps_run caps = to->caps;
	bool scope = to->scope;

	*to = env.o;
	to->tool = tool;
	to->caps = caps;
	to->scope = scope;
	to->http = NULL;
}

/* ---- the one object ---- */

void *nm_agent_open(const struct bpf_object_open_opts *opts)
{
	return netmedic_bpf__open_opts(opts);
}

void nm_agent_destroy(void *skel)
{
	netmedic_bpf__destroy(skel);
}

/*
 * A map of a detector not run, at its least: none of its programs load,
 * but the shared net_dev_queue program refers to its maps (behind a flag
 * that stays off), so they are created. Sizes as each type allows: a ring
 * buffer one page; storage maps have none. The tool's own tables would
 * take tens of MiB (xpsflap's flows and tcpstall's ACK flows: 16 MiB each
 * at the defaults).
 */
static void shrink_map(struct bpf_map *m)
{
	if (!m || bpf_map__is_internal(m))
		return;
	switch (bpf_map__type(m)) {
	case BPF_MAP_TYPE_HASH:
	case BPF_MAP_TYPE_ARRAY:
	case BPF_MAP_TYPE_PERCPU_HASH:
	case BPF_MAP_TYPE_PERCPU_ARRAY:
	case BPF_MAP_TYPE_LRU_HASH:
	case BPF_MAP_TYPE_LRU_PERCPU_HASH:
	case BPF_MAP_TYPE_QUEUE:
	case BPF_MAP_TYPE_STACK:
		bpf_map__set_max_entries(m, 1);
		break;
	case BPF_MAP_TYPE_RINGBUF:
		bpf_map__set_max_entries(m, sysconf(_SC_PAGESIZE));
		break;
	default:
		break;
	}
}

/*
 * Every program off, then each detector's prepare: its rungs declared
 * (its ladder as the agent rewrote it) in its part of the agent's hooks;
 * the choice turns on the chosen rungs' programs. A detector not run
 * loads nothing.
 */
static void prepare(void *skel, struct nm_hook *h)
{
	struct bpf_program *p;

	bpf_object__for_each_program(p, nm_skel_obj(skel))
		bpf_program__set_autoload(p, false);
	for (int i = 0; i < NDETS; i++)
		for (const char *const *m = dets[i].maps; !dets[i].on && *m; m++)
			shrink_map(bpf_object__find_map_by_name(nm_skel_obj(skel), *m));
	for_each_det(x)
		x->d->ops->prepare(skel, h + x->first_hook);
}

/* Whose handler the shared net_dev_queue program calls: each detector that chose it. */
static void chosen(void *p, const struct nm_hook *h)
{
	struct netmedic_bpf *skel = p;

	for (int i = 0; i < NDETS; i++) {
		struct det *x = &dets[i];
		bool *flag = (bool *)((char *)skel->rodata + x->queue_flag);

		*flag = x->on && nm_agent_takes_queue(h + x->first_hook, x->d->ops->nhooks);
	}
}

/* Each detector's own attach step (tcpstall's iterators), on its hooks. */
static int attach(void *skel, struct nm_hook *h, struct bpf_program **failed, const char **stage)
{
	for_each_det(x) {
		int ret = x->d->ops->attach ?
			  x->d->ops->attach(skel, h + x->first_hook, failed, stage) : 0;

		if (ret)
			return ret;
	}
	return 0;
}

static struct nm_skel_ops agent_ops = {
	.open = nm_agent_open, .destroy = nm_agent_destroy,
	.prepare = prepare, .attach = attach, .chosen = chosen,
};

/* ---- reports ---- */

/*
 * One report of every detector: each one's JSON lines (with its "tool")
 * and table as it comes, one textfile of them all, then each one's after
 * step (its next interval).
 */
int nm_agent_report(void *skel)
{
	struct nm_prom *p = nm_opts_prom(&env.o) ? nm_prom_new() : NULL;
	int ret = 0;

	for_each_det(x) {
		const struct nm_tool *t = x->d->tool;
		const struct nm_emit_self self = { .tool = x->d->name, .hooks = t->hooks,
						   .nhooks = x->d->ops->nhooks };
		struct nm_emit e = {};

		ret = t->report(skel, &e);
		if (ret == NM_RUN_SKIP) {
			ret = 0;
			continue;
		}
		if (ret)
			break;
		if (env.o.json)
			nm_emit_json_tool(stdout, &e, x->d->name);
		if (env.o.table)
			nm_emit_table(env.o.json ? stderr : stdout, &e);
		if (p)
			nm_emit_prom(p, &e, &self);
		if (t->after)
			t->after(skel);
	}
	if (p) {
		/* the one object's programs, once */
		nm_self_prom_progs(p, TOOL, nm_skel_obj(skel));
		nm_emit_prom_out(&env.o, p);
		nm_prom_free(p);
	}
	return ret;
}

/* Reports on a grid until --count or a signal; a signal's interval still reports. */
static int interval_loop(void *skel)
{
	struct nm_ticker k;
	int ret = 0;

	nm_ticker_init(&k, env.o.interval, env.o.count, true);
	while (!ret && nm_ticker_more(&k, nm_exiting)) {
		nm_sleep_until(nm_ticker_next(&k, nm_mono_ns()));
		ret = nm_agent_report(skel);
	}
	return ret;
}

/* ---- the run ---- */

/* The common option tok names (-i, --interval=1, --json), or NULL. */
static const char *common_option(const char *tok)
{
	for (const struct argp_option *op = nm_common_argp.options; op->name || op->doc; op++) {
		size_t n = op->name ? strlen(op->name) : 0;

		if (op->key > 0 && op->key < 256 && tok[0] == '-' && tok[1] == op->key)
			return tok;
		if (n && !strncmp(tok, "--", 2) && !strncmp(tok + 2, op->name, n) &&
		    (!tok[n + 2] || tok[n + 2] == '='))
			return tok;
	}
	return NULL;
}

/*
 * The detector's options: its defaults, or --opts's, read by its CLI's
 * parser (which exits 2 on its own options' errors). The common options
 * are the agent's, for every detector: refused here.
 */
static int det_parse(struct det *x)
{
	static char buf[NDETS][512];
	char *argv[64], *save = NULL, *w;
	int argc = 0, i = x - dets;

	argv[argc++] = (char *)x->d->name;
	if (x->args && strlen(x->args) >= sizeof(buf[i]))
		return nm_err(&env.o, NM_EXIT_USAGE, "--opts %s=...: longer than %zu bytes",
			      x->d->name, sizeof(buf[i]) - 1);
	snprintf(buf[i], sizeof(buf[i]), "%s", x->args ? x->args : "");
	for (w = strtok_r(buf[i], " \t", &save); w; w = strtok_r(NULL, " \t", &save)) {
		if (common_option(w))
			return nm_err(&env.o, NM_EXIT_USAGE,
				      "--opts %s=%s: %s is a common option: give it to netmedic, for every detector",
				      x->d->name, x->args, w);
		if (argc >= (int)(sizeof(argv) / sizeof(argv[0])) - 1)
			return nm_err(&env.o, NM_EXIT_USAGE, "--opts %s=...: too many words",
				      x->d->name);
		argv[argc++] = w;
	}
	argv[argc] = NULL;
	x->d->parse(argc, argv);
	return 0;
}

/* Before the load: each detector's options, privileges and checks. */
static int before_load(void)
{
	int ret;

	nm_install_signals();
	if (nm_tc_undo_register())
		return nm_err(&env.o, NM_EXIT_RUNTIME, "cannot register the undo of tc records");
	if (env.o.cleanup)
		return nm_err(&env.o, NM_EXIT_USAGE,
			      "--cleanup: the agent makes no change; each CLI undoes its own (tcpstall --cleanup, ...)");
	for (int i = 0; i < NDETS; i++)
		if (dets[i].args && !dets[i].on)
			return nm_err(&env.o, NM_EXIT_USAGE, "--opts %s=...: %s is not in --detect",
				      dets[i].d->name, dets[i].d->name);
	for_each_det(x) {
		const struct nm_tool *t = x->d->tool;

		if ((ret = det_parse(x)))
			return ret;
		give_opts(t->o);
		if (t->caps)
			t->caps(t->o);
		if (t->o->caps.remedy || t->o->caps.journal || *t->list_fixes)
			return nm_err(&env.o, NM_EXIT_USAGE,
				      "--opts %s=%s: the agent runs no remedy yet; %s runs it (%s)",
				      x->d->name, x->args, x->d->name,
				      *t->list_fixes ? "--list-fixes" : t->o->caps.remedy_opt);
		nm_caps_run_merge(&env.o.caps, &t->o->caps);
		if (t->check && (ret = t->check()))
			return ret;
	}
	ret = nm_setup(&env.o);
	if (ret)
		return ret;
	for_each_det(x) {
		const struct nm_tool *t = x->d->tool;

		/* what nm_setup resolved: the namespaces, the devices */
		give_opts(t->o);
		if (t->setup && (ret = t->setup()))
			return ret;
	}
	return 0;
}

/* The agent's ladder: each detector's, rewritten for the agent's object, one after the other. */
static int ladder(void)
{
	nhooks = 0;
	for (int i = 0; i < NDETS; i++) {
		struct det *x = &dets[i];

		if (nm_agent_decls(x->decls, x->d->ops->nhooks, x->shared, x->agent_decls) < 0)
			return nm_err(&env.o, NM_EXIT_RUNTIME, "%s: its ladder does not fit the agent's",
				      x->d->name);
		x->first_hook = nhooks;
		if (x->on)
			nhooks += x->d->ops->nhooks;
	}
	agent_ops.nhooks = nhooks;
	return 0;
}

static int first_lines(void *skel)
{
	for_each_det(x) {
		const struct nm_tool *t = x->d->tool;
		struct nm_first l = {};
		int ret;

		if (!t->first)
			continue;
		nm_emit_devices(t->o, l.devices, sizeof(l.devices));
		ret = t->first(skel, &l);
		if (ret == NM_RUN_SKIP)
			continue;
		if (ret)
			return ret;
		nm_emit_first(t->o, &l, t->hooks, x->d->ops->nhooks);
	}
	return 0;
}

static int listen_start(void)
{
	char err[160];

	if (!env.o.http || !nm_listen_start(env.o.http, err, sizeof(err)))
		return 0;
	return nm_err(&env.o, NM_EXIT_RUNTIME, "--listen %s: %s", env.o.listen.text, err);
}

/* What tcpstall's sweeps drive (they report when due), or the agent's grid. */
static int loop(void *skel)
{
	if (dets[0].on && dets[0].d->tool->loop)
		return dets[0].d->tool->loop(skel);
	return interval_loop(skel);
}

/* -v: which program on net_dev_queue serves which detectors (rodata, as chosen() set it) */
static void say_queue(struct netmedic_bpf *skel)
{
	const char *prog = "none";
	char who[64] = "";
	struct bpf_program *p;

	bpf_object__for_each_program(p, nm_skel_obj(skel))
		if (bpf_program__fd(p) >= 0 && !strncmp(bpf_program__name(p), NM_AGENT_QUEUE_PREFIX,
							 strlen(NM_AGENT_QUEUE_PREFIX)))
			prog = bpf_program__name(p);
	for (int i = 0; i < NDETS; i++)
		if (*(const bool *)((const char *)skel->rodata + dets[i].queue_flag))
			snprintf(who + strlen(who), sizeof(who) - strlen(who), "%s%s", *who ? "," : "",
				 dets[i].d->name);
	nm_info(&env.o, "net_dev_queue: %s, for %s", prog, *who ? who : "no detector");
}

static int run_loaded(void *skel)
{
	int ret = 0, stop;

	/* each detector's rungs, as the load chose them */
	for_each_det(x)
		memcpy(x->d->tool->hooks, hooks + x->first_hook,
		       x->d->ops->nhooks * sizeof(hooks[0]));
	if (env.o.verbose)
		say_queue(skel);
	for_each_det(x)
		if (!ret && x->d->tool->start)
			ret = x->d->tool->start(skel);
	if (!ret)
		ret = nm_caps_after_attach(&env.o);
	if (!ret)
		ret = listen_start();
	if (!ret)
		ret = first_lines(skel);
	for_each_det(x)
		if (!ret && x->d->tool->ready)
			ret = x->d->tool->ready(skel);
	if (!ret && !nm_exiting)
		ret = loop(skel);
	for_each_det(x) {
		stop = x->d->tool->stop ? x->d->tool->stop() : 0;
		if (stop && ret <= 0)
			ret = stop;
	}
	return ret;
}

int main(int argc, char **argv)
{
	void *skel = NULL;
	int ret;

	nm_opts_init(&env.o, TOOL);
	env.o.scope = true;	/* every netns, or the --netns given */
	argp_parse(&argp, argc, argv, 0, NULL, &env);
	if (!env.detect)
		for (int i = 0; i < NDETS; i++)
			dets[i].on = true;
	ret = ladder();
	if (!ret)
		ret = before_load();
	if (!ret) {
		ret = nm_skel_load(&env.o, &agent_ops, &skel, hooks);
		if (ret)
			ret = ret == NM_SKEL_LISTED ? NM_EXIT_OK : ret;
		else if (!nm_exiting)
			ret = run_loaded(skel);
	}
	for_each_det(x)
		if (x->d->tool->free)
			x->d->tool->free(skel);
	if (skel)
		nm_agent_destroy(skel);
	nm_listen_free(env.o.http);
	return ret == NM_RUN_DONE ? NM_EXIT_OK : ret;
}
