// SPDX-License-Identifier: GPL-2.0
/*
 * netmedic - the agent: any set of the tools (the Makefile's TOOLS, in
 * its order: NM_TOOL_LIST) in one process, each on its own BPF object
 * through its own ladder, with one JSON stream (each line with its
 * "tool") and one textfile or /metrics.
 *
 * Each tool is its CLI's value (struct nm_tool, src/NAME/main.c): the
 * agent runs each of its steps, in the order nm_run() keeps for one tool
 * (lib/run.h), for every tool, and does once what must happen once: the
 * signals, the privileges (the union of what the tools ask for, dropped
 * once), the sinks.
 *
 * A tool runs with its CLI's defaults, or the options of its own that
 * --opts NAME=ARGS gives it (its CLI's parser reads them), its remedies
 * among them: journaled under its own name, so that its CLI's --cleanup
 * and the agent's undo them alike. Not run: a one-shot (qdiscstuck
 * --kick) and --list-fixes, the CLIs'.
 */
#include <argp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <bpf/libbpf.h>
#include "lib/agent.h"
#include "lib/cli.h"
#include "lib/emit.h"
#include "lib/journal.h"
#include "lib/listen.h"
#include "lib/output.h"
#include "lib/run.h"
#include "lib/selfstats.h"
#include "lib/skel.h"
#include "lib/tcundo.h"

#define TOOL		"netmedic"

const char *argp_program_version = TOOL " (netmedic) " NETMEDIC_VERSION;
const char *argp_program_bug_address = "the netmedic issue tracker";

#ifndef NM_TOOL_LIST
#error "NM_TOOL_LIST: the Makefile's TOOLS as X(NAME) ..."
#endif
#define X(NAME)	extern const struct nm_tool NAME##_tool;
NM_TOOL_LIST
#undef X

/* The tools, in the order they run each step and write their output. */
static struct det {
	const struct nm_tool *t;
	bool on;			/* --detect */
	const char *args;		/* --opts NAME=ARGS: its own options */
	void *skel;			/* its loaded object */
	char prom[4096];		/* --prom-split: its textfile */
} dets[] = {
#define X(NAME)	{ .t = &NAME##_tool },
	NM_TOOL_LIST
#undef X
};

#define NDETS		((int)(sizeof(dets) / sizeof(dets[0])))
#define for_each_det(x)	for (struct det *x = dets; x < dets + NDETS; x++) if (x->on)

/* "tcpstall, qdiscstuck, xpsflap" and "... and xpsflap": the tools' names, for --help and errors */
static char names[128], names_and[128];

static struct agent_env {
	struct nm_opts o;
	const char *detect;
	bool prom_split;
	/* the command line, and which of its words are common options' (each detector's too) */
	int argc;
	char **argv;
	bool *common;
	int next;		/* the first word argp has not given a parser yet */
} env;

/* ---- options ---- */

enum { OPT_DETECT = 1000, OPT_OPTS, OPT_PROM_SPLIT };

static char detect_doc[256], doc[1024];

static const struct argp_option options[] = {
	{ "detect", OPT_DETECT, "LIST", 0, detect_doc, 0 },
	{ "opts", OPT_OPTS, "NAME=ARGS", 0,
	  "Options of detector NAME's own, as its CLI takes them, split at spaces "
	  "(e.g. 'xpsflap=--top 5'); once per detector; no common option, no one-shot", 0 },
	{ "prom-split", OPT_PROM_SPLIT, NULL, 0,
	  "One textfile per detector: --prom-file's name with -NAME before its .prom "
	  "(netmedic-tcpstall.prom); --prom-file itself then holds the program stats of "
	  "every detector's object", 0 },
	{},
};

/* the names, --detect's help and the doc, from the tools' list */
static void say_names(void)
{
	for (int i = 0; i < NDETS; i++) {
		const char *n = dets[i].t->name;

		snprintf(names + strlen(names), sizeof(names) - strlen(names), "%s%s", i ? ", " : "", n);
		snprintf(names_and + strlen(names_and), sizeof(names_and) - strlen(names_and), "%s%s",
			 !i ? "" : i == NDETS - 1 ? " and " : ", ", n);
	}
	snprintf(detect_doc, sizeof(detect_doc), "The detectors to run, comma-separated: %s (default: all)",
		 names);
	snprintf(doc, sizeof(doc), "netmedic -- %s in one process\v"
		 "Each detector runs with its CLI's defaults (or --opts), host-wide unless --netns narrows it. "
		 "JSON lines carry the detector's name in \"tool\"; the textfile (or /metrics) holds "
		 "every detector's metrics. A detector's remedies are its CLI's, given with --opts "
		 "(e.g. 'tcpstall=--fix=autocork'); --cleanup undoes what a run of each detector in --detect left.",
		 names_and);
}

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
			if (!strcmp(w, dets[i].t->name))
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
		if (strlen(dets[i].t->name) == len && !strncmp(name, dets[i].t->name, len))
			return &dets[i];
	return NULL;
}

/* --opts NAME=ARGS: ARGS kept for NAME's parser; NULL, or why not */
static const char *parse_opts(const char *arg)
{
	static char why[160];
	const char *eq = strchr(arg, '=');
	struct det *x = eq ? det_named(arg, eq - arg) : NULL;

	if (!eq)
		return snprintf(why, sizeof(why), "NAME=ARGS, NAME one of %s", names), why;
	if (!x)
		return snprintf(why, sizeof(why), "no detector of that name: %s", names), why;
	if (x->args)
		return "given twice for that detector";
	x->args = eq + 1;
	return NULL;
}

static error_t parse_arg(int key, char *arg, struct argp_state *state)
{
	struct agent_env *e = state->input;
	const char *why;
	char buf[160];

	/* the words since the last call: this option's, its argument's */
	e->next = state->next;
	switch (key) {
	case ARGP_KEY_INIT:
		state->child_inputs[0] = &e->o;
		break;
	case OPT_DETECT:
		if (!parse_detect(arg))
			nm_usage(state, "invalid --detect '%s': a comma-separated list of %s", arg, names);
		e->detect = arg;
		break;
	case OPT_OPTS:
		if ((why = parse_opts(arg)))
			nm_usage(state, "invalid --opts '%s': %s", arg, why);
		break;
	case OPT_PROM_SPLIT:
		e->prom_split = true;
		break;
	case ARGP_KEY_ARG:
		nm_usage(state, "unexpected argument '%s'", arg);
		break;
	case ARGP_KEY_END:
		/* the common options', named by the agent (a detector's remedy: before_load) */
		if (nm_opts_conflict(&e->o, false, NULL, buf, sizeof(buf)))
			nm_usage(state, "%s", buf);
		break;
	default:
		return ARGP_ERR_UNKNOWN;
	}
	return 0;
}

/*
 * The common options' parser, through this one: it marks the words of
 * each common option (argp hands an option to its own group's parser
 * alone), which each detector's parser reads again (det_parse).
 */
static struct argp common_argp;

static error_t parse_common(int key, char *arg, struct argp_state *state)
{
	int from = env.next;

	env.next = state->next;
	/* an option's (argp's own keys, INIT, END..., are above 0xffffff) */
	for (int i = from; key > 0 && key < 0x1000000 && i < state->next && i < env.argc; i++)
		env.common[i] = true;
	return nm_common_argp.parser(key, arg, state);
}

NM_ARGP(options, parse_arg, doc, &common_argp);

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

/* ---- reports ---- */

/* --prom-split: the detector's textfile's name, checked as --prom-file's */
static int split_path(struct det *x)
{
	char err[256];

	if (nm_agent_split_name(x->prom, sizeof(x->prom), env.o.prom_file, x->t->name))
		return nm_err(&env.o, NM_EXIT_USAGE, "--prom-split: --prom-file %s: too long",
			      env.o.prom_file);
	if (nm_prom_check_path(x->prom, err, sizeof(err)))
		return nm_err(&env.o, NM_EXIT_USAGE, "--prom-split: %s: %s", x->prom, err);
	return 0;
}

/* A textfile of p at path (--prom-split's): nm_emit_prom_out's write, to path alone. */
static void write_file(struct nm_prom *p, const char *path)
{
	struct nm_opts o = env.o;

	o.prom_file = path;
	o.http = NULL;
	nm_emit_prom_out(&o, p);
}

/*
 * The tools' programs' stats, once (tool="netmedic"), into all (the
 * textfile, /metrics) and own (--prom-split's --prom-file); both written.
 */
static void prom_out(struct nm_prom *all, struct nm_prom *own)
{
	const struct bpf_object *objs[NDETS];
	struct nm_opts o = env.o;
	int n = 0;

	for_each_det(x)
		objs[n++] = nm_skel_obj(x->skel);
	if (all)
		nm_self_prom_progs(all, TOOL, objs, n);
	if (own) {
		nm_self_prom_progs(own, TOOL, objs, n);
		write_file(own, env.o.prom_file);
		o.prom_file = NULL;	/* all for --listen alone */
	}
	if (all)
		nm_emit_prom_out(&o, all);
}

/*
 * One report of every tool: each one's JSON lines (with its "tool") and
 * table as it comes, one textfile of them all (or one each, with
 * --prom-split, and /metrics all), then each one's after step (its next
 * interval). What a tool's own loop calls when a report is due, too.
 */
static int report(const struct nm_due *due)
{
	bool split = env.prom_split && env.o.prom_file;
	struct nm_prom *all = env.o.http || (env.o.prom_file && !split) ? nm_prom_new() : NULL;
	struct nm_prom *own = split ? nm_prom_new() : NULL;
	int ret = 0;

	(void)due;
	for_each_det(x) {
		const struct nm_tool *t = x->t;
		const struct nm_emit_self self = { .tool = t->name, .hooks = t->hooks,
						   .nhooks = t->skel->nhooks };
		struct nm_prom *p = split ? nm_prom_new() : NULL;
		struct nm_emit e = {};

		ret = t->report(x->skel, &e);
		if (ret == NM_RUN_SKIP) {
			ret = 0;
			nm_prom_free(p);
			continue;
		}
		if (ret) {
			nm_prom_free(p);
			break;
		}
		if (env.o.json)
			nm_emit_json(stdout, &e, t->name);
		if (env.o.table)
			nm_emit_table(env.o.json ? stderr : stdout, &e);
		if (all)
			nm_emit_prom(all, &e, &self);
		if (p) {
			nm_emit_prom(p, &e, &self);
			write_file(p, x->prom);
			nm_prom_free(p);
		}
		if (t->after)
			t->after(x->skel);
	}
	if (all || own)
		prom_out(all, own);
	nm_prom_free(all);
	nm_prom_free(own);
	return ret;
}

static const struct nm_due due = { .report = report };

/* Reports on a grid until --count or a signal; a signal's interval still reports. */
static int interval_loop(void)
{
	struct nm_ticker k;
	int ret = 0;

	nm_ticker_init(&k, env.o.interval, env.o.count, true);
	while (!ret && nm_ticker_more(&k, nm_exiting)) {
		nm_sleep_until(nm_ticker_next(&k, nm_mono_ns()));
		ret = report(&due);
	}
	return ret;
}

/* ---- the run ---- */

/*
 * The detector's options, read by its CLI's parser: the agent's common
 * options, as given (its checks see the --dev, --netns... of the run:
 * xpsflap's --pin needs --dev), then its own, --opts's. A common option
 * among those is refused: it is the agent's, for every detector.
 */
static int det_parse(struct det *x)
{
	static char buf[NDETS][512], **argvs[NDETS];
	const struct argp_option *op;
	char *save = NULL, *w, **argv;
	int argc = 0, i = x - dets;
	size_t max = env.argc + sizeof(buf[i]) / 2 + 2;

	if (x->args && strlen(x->args) >= sizeof(buf[i]))
		return nm_err(&env.o, NM_EXIT_USAGE, "--opts %s=...: longer than %zu bytes",
			      x->t->name, sizeof(buf[i]) - 1);
	argv = argvs[i] = calloc(max, sizeof(*argv));
	if (!argv)
		return nm_err(&env.o, NM_EXIT_RUNTIME, "out of memory");
	argv[argc++] = (char *)x->t->name;
	for (int j = 1; j < env.argc; j++)
		if (env.common[j])
			argv[argc++] = env.argv[j];
	snprintf(buf[i], sizeof(buf[i]), "%s", x->args ? x->args : "");
	for (w = strtok_r(buf[i], " \t", &save); w; w = strtok_r(NULL, " \t", &save)) {
		if ((op = nm_agent_option_of(nm_common_argp.options, w)))
			return nm_err(&env.o, NM_EXIT_USAGE,
				      "--opts %s=%s: %s is the common option --%s: give it to netmedic, for every detector",
				      x->t->name, x->args, w, op->name ? op->name : "?");
		argv[argc++] = w;	/* a word is 2 bytes of buf at least: max holds them */
	}
	argv[argc] = NULL;
	x->t->parse(argc, argv);
	return 0;
}

/*
 * What the agent does not run: a detector's --list-fixes (its CLI lists
 * them) and a one-shot (qdiscstuck --kick), which would end every
 * detector's run. NULL, or the option.
 */
static const char *not_run(const struct nm_tool *t)
{
	if (*t->list_fixes)
		return "--list-fixes";
	return t->one_shot ? t->one_shot() : NULL;
}

/*
 * --cleanup: each detector's, as its CLI's (the journals are the
 * detector's, by its name: RUN_DIR/NAME-KEY.journal). The first failure's
 * status; every detector's journals are tried.
 */
static int cleanup(void)
{
	struct nm_opts *each[NDETS];
	int ret = 0, n = 0;

	if (env.o.print_caps) {
		for_each_det(x)
			each[n++] = x->t->o;
		return nm_cleanup_print_caps(&env.o, each, n);
	}
	for_each_det(x) {
		const struct nm_tool *t = x->t;
		int r = t->cleanup ? t->cleanup(t->o, t->skel) : nm_cleanup_main(t->o);

		if (r && !ret)
			ret = r;
	}
	return ret ? ret : NM_RUN_DONE;
}

/* Before the load: each detector's options, privileges and checks. */
static int before_load(void)
{
	const char *opt;
	int ret;

	nm_install_signals();
	if (nm_tc_undo_register())
		return nm_err(&env.o, NM_EXIT_RUNTIME, "cannot register the undo of tc records");
	for (int i = 0; i < NDETS; i++)
		if (dets[i].args && !dets[i].on)
			return nm_err(&env.o, NM_EXIT_USAGE, "--opts %s=...: %s is not in --detect",
				      dets[i].t->name, dets[i].t->name);
	for_each_det(x) {
		const struct nm_tool *t = x->t;

		if ((ret = det_parse(x)))
			return ret;
		give_opts(t->o);
		if (t->caps)
			t->caps(t->o);
		if ((opt = not_run(t)))
			return nm_err(&env.o, NM_EXIT_USAGE, "--opts %s=%s: the agent does not run %s; %s %s does",
				      x->t->name, x->args, opt, x->t->name, opt);
		/* a remedy of its --opts with --cleanup: as its CLI, named by it */
		if ((ret = nm_run_conflict(t)))
			return ret;
		nm_caps_run_merge(&env.o.caps, &t->o->caps);
		if (t->check && (ret = t->check()))
			return ret;
	}
	if (env.o.cleanup)
		return cleanup();
	if (env.prom_split && !env.o.prom_file)
		return nm_err(&env.o, NM_EXIT_USAGE, "--prom-split: splits --prom-file, which is not given");
	ret = nm_setup(&env.o);
	if (ret)
		return ret;
	/* the detectors' textfiles, where nm_setup checked --prom-file's */
	for_each_det(x)
		if (env.prom_split && (ret = split_path(x)))
			return ret;
	for_each_det(x) {
		const struct nm_tool *t = x->t;

		/* what nm_setup resolved: the namespaces, the devices */
		give_opts(t->o);
		if (t->setup && (ret = t->setup()))
			return ret;
	}
	return 0;
}

static int first_lines(void)
{
	for_each_det(x) {
		const struct nm_tool *t = x->t;
		struct nm_first l = {};
		int ret;

		if (!t->first)
			continue;
		nm_emit_devices(t->o, l.devices, sizeof(l.devices));
		ret = t->first(x->skel, &l);
		if (ret == NM_RUN_SKIP)
			continue;
		if (ret)
			return ret;
		nm_emit_first(t->o, &l, t->hooks, t->skel->nhooks);
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

/*
 * What the first tool with a loop of its own drives (tcpstall's sweeps,
 * which report every tool's when due), or the agent's grid. Only one loop
 * runs: a second tool with one would lose its own.
 */
static int loop(void)
{
	for_each_det(x)
		if (x->t->loop)
			return x->t->loop(x->skel, &due);
	return interval_loop();
}

/* Each tool's change whose drop of capabilities comes after (before: false) or before it. */
static int changes(bool after_drop)
{
	static bool stopped;

	for_each_det(x) {
		const struct nm_tool *t = x->t;
		int ret;

		if (t->drop_before_change != after_drop || !t->changes || !t->changes())
			continue;
		if (!stopped)
			nm_test_stop("change");
		stopped = true;
		if ((ret = t->change(x->skel)))
			return ret;
	}
	return 0;
}

/*
 * The changes and the one drop, in every tool's order: those that need
 * the capabilities the drop takes (tcpstall, xpsflap) before it; those
 * that make threads or children, which must not inherit them
 * (qdiscstuck's --lock), after it, with what the merged set keeps.
 */
static int change_and_drop(void)
{
	int ret = changes(false);

	if (!ret)
		ret = nm_caps_after_attach(&env.o);
	if (!ret)
		ret = changes(true);
	return ret;
}

static int run_loaded(void)
{
	int ret = 0, stop;

	for_each_det(x)
		if (!ret && x->t->start)
			ret = x->t->start(x->skel);
	/* what a tool's rungs keep past the drop (tcpstall's pidfd_getfd kicks): the one drop's too */
	for_each_det(x)
		nm_caps_run_merge(&env.o.caps, &x->t->o->caps);
	if (!ret)
		ret = change_and_drop();
	if (!ret)
		ret = listen_start();
	if (!ret)
		ret = first_lines();
	for_each_det(x)
		if (!ret && x->t->ready)
			ret = x->t->ready(x->skel);
	if (!ret && !nm_exiting)
		ret = loop();
	for_each_det(x) {
		stop = x->t->stop ? x->t->stop() : 0;
		if (stop && ret <= 0)
			ret = stop;
	}
	return ret;
}

/*
 * --list-hooks: each tool's hooks and programs under its name (with
 * --json, in "tool").
 */
static void list_hooks(void)
{
	const char *sep = "";
	time_t now = time(NULL);

	for_each_det(x) {
		const struct nm_tool *t = x->t;

		if (env.o.json) {
			nm_hooks_list_json(stdout, t->hooks, t->skel->nhooks, t->name, now);
			continue;
		}
		printf("%s%s:\n", sep, t->name);
		nm_hooks_list(stdout, t->hooks, t->skel->nhooks);
		sep = "\n";
	}
}

/*
 * Each tool's object through its own ladder, one after the other; then
 * --list-hooks lists them all, in place of nm_skel_load's listing.
 */
static int load(void)
{
	struct nm_opts o = env.o;
	int ret = 0;

	o.list_hooks = false;
	for_each_det(x)
		if (!ret && !nm_exiting)
			ret = nm_skel_load(&o, x->t->skel, &x->skel, x->t->hooks);
	if (!env.o.list_hooks)
		return ret;
	list_hooks();
	return ret ? ret : NM_RUN_DONE;
}

int main(int argc, char **argv)
{
	int ret;

	say_names();
	nm_opts_init(&env.o, TOOL);
	/* the commands the tools' journals may run to undo (each CLI's) */
	for (int i = 0; i < NDETS; i++)
		nm_journal_allow_cmd(dets[i].t->undo_cmd);
	env.o.scope = true;	/* every netns, or the --netns given */
	env.argc = argc;
	env.argv = argv;
	env.common = calloc(argc + 1, sizeof(*env.common));
	if (!env.common)
		return nm_err(&env.o, NM_EXIT_RUNTIME, "out of memory");
	common_argp = nm_common_argp;
	common_argp.parser = parse_common;
	nm_argp_parse(&argp, argc, argv, &env, TOOL);
	if (!env.detect)
		for (int i = 0; i < NDETS; i++)
			dets[i].on = true;
	ret = before_load();
	if (!ret) {
		ret = load();
		if (!ret && !nm_exiting)
			ret = run_loaded();
	}
	for_each_det(x) {
		if (x->t->free)
			x->t->free(x->skel);
		if (x->skel)
			x->t->skel->destroy(x->skel);
	}
	nm_listen_free(env.o.http);
	free(env.common);
	/* all undone by now: a reader of the JSON that went away ends it as SIGPIPE would */
	return nm_out_exit_status(ret == NM_RUN_DONE ? NM_EXIT_OK : ret);
}
