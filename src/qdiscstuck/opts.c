// SPDX-License-Identifier: GPL-2.0
/*
 * qdiscstuck's options (qdiscstuck_opts.h): the table --help prints, the
 * values' checks, their defaults.
 */
#include <argp.h>
#include <limits.h>
#include <net/if.h>
#include "qdiscstuck/judge.h"
#include "lib/fixes.h"
#include "qdiscstuck/opts.h"
#include "qdiscstuck/report.h"

enum {
	OPT_THRESHOLD = 0x2000, OPT_FIX, OPT_KICK, OPT_LOCK, OPT_LIST_FIXES,
};

static const char doc[] =
"qdiscstuck: packets sitting in a qdisc, and why.\n"
"\n"
"Every qdisc with packets, children of mq and of other classful roots too, is\n"
"classified each interval: ok, idle, shaped (a shaper's timer holds it),\n"
"driver_stopped (its TX queue is stopped and nothing completes), stuck\n"
"(backlog on a running queue, and the kernel will not run the qdisc again) or\n"
"unknown (a backlog that does not move, on a kernel where the TX queue's state\n"
"could not be read: stopped and stuck look the same there).\n"
"\n"
"EXAMPLES:\n"
"  qdiscstuck                               # every netns, table every second\n"
"  qdiscstuck --netns lab --dev eth1 --json # one device in a netns, JSON lines\n"
"  qdiscstuck --fix=kick                    # kick stuck qdiscs while running\n"
"  qdiscstuck --lock eth0:3                 # locked FIFO on tx-3 until exit\n"
"  qdiscstuck --kick eth0:3                 # one kick frame on tx-3, then exit\n"
"  qdiscstuck --cleanup                     # undo --fix=lock of a killed instance";

static const struct argp_option options[] = {
	{ "threshold", OPT_THRESHOLD, "MS", 0,
	  "No progress for this long with a backlog is driver_stopped, stuck or unknown (default 100)", 0 },
	{ "fix", OPT_FIX, "kick|lock|kick,lock", 0,
	  "Remedies for stuck qdiscs while running (logged; lock is journaled and undone at exit)", 0 },
	{ "kick", OPT_KICK, "DEV:QUEUE", 0, "Put one kick frame on that TX queue, report where it went, exit", 0 },
	{ "lock", OPT_LOCK, "DEV:QUEUE", 0,
	  "Replace the lockless qdisc of that TX queue by a locked FIFO while running (undone at exit)", 0 },
	NM_VIEW_OPTIONS("Ok qdiscs shown besides the stuck, driver_stopped, unknown and shaped ones (default "
			NM_STR(QS_REPORT_TOP) ")",
			"Rank the qdiscs of each state by qlen (default), bytes, deq, ms or drops",
			"Show every qdisc: idle ones too, and every ok one"),
	NM_LIST_FIXES_OPTION(OPT_LIST_FIXES),
	{},
};

/* --fix's words, in the order of their FIX_ bits */
static const char *const fix_names[] = { "kick", "lock" };

static int parse_fix(const char *arg)
{
	return nm_parse_names(arg, fix_names, 2);
}

const char *qs_remedy_opt(const struct qs_env *e)
{
	return e->kick ? "--kick" : e->lock ? "--lock" : e->fix ? "--fix" : NULL;
}

static error_t parse_arg(int key, char *arg, struct argp_state *state)
{
	static const struct nm_view_spec view = { INT_MAX, qs_sort_names, QS_NR_SORTS };
	struct qs_env *e = state->input;
	char dev[IF_NAMESIZE];
	unsigned int q;

	if (nm_view_arg(key, arg, state, &view, &e->view) != ARGP_ERR_UNKNOWN)
		return 0;
	switch (key) {
	case ARGP_KEY_INIT:
		state->child_inputs[0] = &e->o;
		break;
	case OPT_THRESHOLD:
		if (nm_parse_long(arg, 1, 3600000, &e->threshold_ms))
			nm_usage(state, "invalid --threshold '%s': milliseconds from 1 to 3600000", arg);
		break;
	case OPT_FIX:
		e->fix = parse_fix(arg);
		if (e->fix < 0)
			nm_usage(state, "invalid --fix '%s': kick, lock or kick,lock", arg);
		break;
	case OPT_KICK:
	case OPT_LOCK:
		if (qs_parse_dev_queue(arg, dev, sizeof(dev), &q))
			nm_usage(state, "invalid --%s '%s': DEV:QUEUE, e.g. eth0:3",
				 key == OPT_KICK ? "kick" : "lock", arg);
		if (key == OPT_KICK)
			e->kick = arg;
		else
			e->lock = arg;
		break;
	case OPT_LIST_FIXES:
		e->list_fixes = true;
		break;
	case ARGP_KEY_ARG:
		nm_usage(state, "unexpected argument '%s'", arg);
		break;
	case ARGP_KEY_END:
		if (e->kick && (e->lock || e->fix))
			nm_usage(state, "--kick is a one-shot action: not with --lock or --fix");
		/* a remedy acts in the netns the tool runs in: two --netns enter none */
		if (e->o.nnetns > 1 && (e->kick || e->lock || e->fix))
			nm_usage(state, "%s needs exactly one --netns: it acts in the netns qdiscstuck runs in",
				 qs_remedy_opt(e));
		break;
	default:
		return ARGP_ERR_UNKNOWN;
	}
	return 0;
}

NM_ARGP(options, parse_arg, doc, &nm_common_argp);

/*
 * The docs' text of each option above, and qdiscstuck's own of the common
 * options whose common text (lib/cli.c) does not say enough here.
 */
static const struct nm_optdoc docs[] = {
	{ "threshold", "No progress for this long with a backlog makes driver_stopped, stuck or "
	  "unknown (default 100, 1 to 3600000).", NULL, NULL },
	{ "fix", "Remedies for qdiscs found **stuck**, while running (logged; lock is journaled "
	  "and undone at exit). See REMEDIES.", NULL, NULL },
	{ "kick", "Put one kick frame on that TX queue now, report where it went, exit.", NULL, NULL },
	{ "lock", "Replace the lockless qdisc of that TX queue by a locked FIFO while running; "
	  "restored at exit.", NULL, NULL },
	{ "top", "Ok qdiscs shown in each report besides the stuck, driver_stopped, unknown and "
	  "shaped ones (default 20): the table and **--json** carry every qdisc in one of those states "
	  "and the N first of the ok ones (**--sort**); the interval record counts the ok "
	  "qdiscs left out (`qdiscs_not_shown`), and the summary line says `N not shown`. From "
	  "1 to 2147483647.", NULL, NULL },
	{ "sort", "What the qdiscs of each state are ranked by, most first: `qlen` (the "
	  "default: packets queued, then bytes queued, then packets dequeued per second), "
	  "`bytes` (bytes queued), `deq` (packets dequeued per second, DEQ/S), `ms` (time in "
	  "the state, MS) or `drops` (packets the qdisc dropped since it was made). The states "
	  "keep their order (stuck, driver_stopped, unknown, shaped, ok, idle), so **--top** keeps "
	  "the N first ok ones by that key. Ties go by the default order, then by netns, "
	  "ifindex, parent and handle: one order, report after report. Another word is a "
	  "usage error (status 2).", NULL, NULL },
	{ "all", "Show every qdisc, in the table and in **--json**: the idle ones too (by "
	  "default only those with a backlog or traffic), and every ok one, not only the "
	  "**--top** ones (`qdiscs_not_shown` is then 0). As **xpsflap --all**: every record.",
	  NULL, NULL },
	{ "list-fixes", "Probe each remedy on this kernel and print one line each, its lever and "
	  "`allowed` or `not allowed:` with the reason; exit 0. With **--json**, one JSON line a "
	  "remedy instead, the columns as keys: `fix`, `lever` and `verdict`, with the `tool` "
	  "and `time` every record has. `kick`: an AF_PACKET socket "
	  "opens. `lock`: `tc` is on PATH (the locked pfifo is put in, and taken out at exit, "
	  "with tc). `lock-bpf`: the struct\\_ops lever of a BPF qdisc (6.16+, "
	  "CONFIG\\_NET\\_SCH\\_BPF), there when the kernel's BTF has `bpf_struct_ops_Qdisc_ops`; "
	  "netmedic has no BPF FIFO yet, so **--lock** uses pfifo either way and says which it "
	  "found. Neither 6.18.44-fc-v973 nor Debian's 6.1 has it:\n\n"
	  "```\n"
	  "# qdiscstuck --list-fixes\n"
	  "FIX        LEVER                                                    VERDICT\n"
	  "kick       a frame on the stuck TX queue (AF_PACKET): the qdisc runs allowed\n"
	  "lock       tc qdisc replace: pfifo (locked) for pfifo_fast          allowed\n"
	  "lock-bpf   struct_ops Qdisc_ops: a BPF FIFO (6.16+; netmedic has none yet) not allowed: bpf_struct_ops_Qdisc_ops: not in kernel BTF\n"
	  "```", NULL, NULL },
	{ "cleanup", "Undo the changes of an instance that died (kill -9), then exit: the "
	  "journals of **--fix=lock** and **--lock** (see REMEDIES). With **--fix**, **--kick**, "
	  "**--lock**, **--list-hooks**, **--list-fixes**, **-c**, **-i**, **--prom-file** or "
	  "**--listen** it is a usage error (status 2): it makes no change of its own, and no "
	  "report.", NULL, NULL },
	{ "verbose", "Verbose: the first line also names each hook's rung and every program this kernel "
	  "refused (where a later rung made up for it, nothing was lost; **--list-hooks** gives "
	  "the whole ladder), and libbpf's messages (load errors, the verifier's log) go to "
	  "standard error; it also explains driver_stopped queues without "
	  "**--fix**.", NULL, NULL },
	{ "dev", "Watch this device only (repeatable, up to 8). Names are looked up in the "
	  "network namespace qdiscstuck runs in: the **--netns** one if one is given, else its "
	  "own; only that namespace is swept then. Without **--dev**, every qdisc of every "
	  "namespace in scope is watched (**SCOPE**). Refused with two or more **--netns** "
	  "(status 2).", NULL, NULL },
	{ "netns", "Narrow the scope to this network namespace: a name under /run/netns, a path "
	  "(such as `/proc/PID/ns/net`), or a PID, for that process's namespace. Without "
	  "**--netns**, qdiscstuck watches every network namespace of the host (**SCOPE**). "
	  "Repeatable, up to 8. With one, qdiscstuck runs in it: it also enters a private mount "
	  "namespace with that namespace's sysfs, as `ip netns exec` does, so **--dev** and the "
	  "remedies act on the devices there. With two or more, it runs in none of them and "
	  "watches those; **--dev**, **--fix**, **--kick** and **--lock** are refused then "
	  "(status 2: each needs exactly one **--netns**). A value that is empty, too long, `.`, "
	  "`..`, a PID out of range, given twice, or not a network namespace, is a usage error "
	  "(status 2) that names it.", NULL, "repeatable" },
	{},
};

const struct nm_tool_doc qdiscstuck_tool_doc = { "qdiscstuck", &argp, docs };

void qs_opts_parse(struct qs_env *e, int argc, char **argv)
{
	nm_opts_init(&e->o, "qdiscstuck");
	e->o.scope = true;	/* every netns, or the --netns given */
	e->threshold_ms = QS_THRESHOLD_MS_DEFAULT;
	nm_argp_parse(&argp, argc, argv, e, e->o.tool);
	/*
	 * --dev, --kick and --lock name devices of the netns qdiscstuck runs
	 * in: without --netns that one is the scope, which needs no names of
	 * others (nor their privileges).
	 */
	if ((e->o.ndevs || e->kick || e->lock) && !e->o.nnetns)
		e->o.scope = false;
}
