// SPDX-License-Identifier: GPL-2.0
/*
 * xpsflap's options (xpsflap_opts.h): the table --help prints, the
 * values' checks, their defaults.
 */
#include <argp.h>
#include <limits.h>
#include "xpsflap/judge.h"
#include "lib/fixes.h"
#include "xpsflap/opts.h"
#include "xpsflap/report.h"

enum {
	OPT_PIN = 0x2000, OPT_MAX_FLOWS, OPT_MIN_SWITCHES, OPT_LIST_FIXES, OPT_LINK_LOCAL,
};

static const char doc[] =
"xpsflap: flows whose packets are queued on more than one TX queue of a device.\n"
"\n"
"A forwarded skb (bridge, router, veth) has no socket, so the kernel picks its\n"
"TX queue from the current CPU's XPS map: one flow follows the CPUs that forward\n"
"it, switching queues, and the switches reorder it on the wire.\n"
"\n"
"EXAMPLES:\n"
"  xpsflap                          # every device, table every second\n"
"  xpsflap --netns lab --dev br0p1  # one device in a netns\n"
"  xpsflap --json -c 5              # five JSON reports\n"
"  xpsflap --dev eth0 --pin         # clear XPS maps of eth0 while running\n"
"  xpsflap --cleanup                # undo the remedy of a killed instance";

static const struct argp_option options[] = {
	{ "pin", OPT_PIN, NULL, 0,
	  "Remedy: keep each flow on one queue of the --dev devices while running (undone at exit)", 0 },
	{ "max-flows", OPT_MAX_FLOWS, "N", 0, "Flow table slots, rounded up to a power of two (default 65536)", 0 },
	NM_VIEW_OPTIONS("Flows shown besides the flapping ones (default " NM_STR(XF_REPORT_TOP) ")",
			"Rank flows by switches (default), risky, reordered, packets, bytes or queues",
			"Show every active flow"),
	{ "link-local", OPT_LINK_LOCAL, NULL, 0,
	  "Show the link-local control flows too (ICMPv6 of fe80::/10 or ff02::, as ND and MLD "
	  "are, and IGMP), left out by default", 0 },
	{ "min-switches", OPT_MIN_SWITCHES, "N", 0,
	  "Queue switches in one interval that make a flow flapping (default 2)", 0 },
	NM_LIST_FIXES_OPTION(OPT_LIST_FIXES),
	{},
};

static error_t parse_arg(int key, char *arg, struct argp_state *state)
{
	static const struct nm_view_spec view = { INT_MAX, xf_sort_names, XF_NR_SORTS };
	struct xf_env *e = state->input;

	if (nm_view_arg(key, arg, state, &view, &e->view) != ARGP_ERR_UNKNOWN)
		return 0;
	switch (key) {
	case ARGP_KEY_INIT:
		state->child_inputs[0] = &e->o;
		break;
	case OPT_PIN:
		e->pin = true;
		break;
	case OPT_LIST_FIXES:
		e->list_fixes = true;
		break;
	case OPT_LINK_LOCAL:
		e->link_local = true;
		break;
	case OPT_MAX_FLOWS:
		if (nm_parse_long(arg, 64, 16777216, &e->max_flows))
			nm_usage(state, "invalid --max-flows '%s': 64 to 16777216", arg);
		break;
	case OPT_MIN_SWITCHES:
		if (nm_parse_long(arg, 1, 1000000, &e->min_switches))
			nm_usage(state, "invalid --min-switches '%s': 1 to 1000000", arg);
		break;
	case ARGP_KEY_ARG:
		nm_usage(state, "unexpected argument '%s'", arg);
		break;
	case ARGP_KEY_END:
		if (e->pin && e->o.nnetns > 1)
			nm_usage(state, "--pin needs exactly one --netns: it changes devices of the netns xpsflap runs in");
		if (e->pin && !e->o.ndevs)
			nm_usage(state, "--pin needs --dev: it changes the named devices only");
		break;
	default:
		return ARGP_ERR_UNKNOWN;
	}
	return 0;
}

NM_ARGP(options, parse_arg, doc, &nm_common_argp);

/*
 * The docs' text of each option above, and xpsflap's own of the common
 * options whose common text (lib/cli.c) does not say enough here.
 */
static const struct nm_optdoc docs[] = {
	{ "pin", "Remedy: keep each flow on one queue of the --dev devices while running "
	  "(undone at exit). Needs **--dev**. See **REMEDY: --pin**.", NULL, NULL },
	{ "max-flows", "Flow table slots (default 65536), rounded up to a power of two. From 64 "
	  "to 16777216. Each slot takes 256 bytes, and 4 more in the hash index (about 16 MiB "
	  "for the default).", NULL, NULL },
	{ "top", "Flows shown in each report besides the flapping ones (default 20): the table "
	  "and **--json** carry every flapping flow and the N worst of the others (**--sort**); "
	  "the interval record counts the active flows left out (`flows_not_shown`). From 1 to "
	  "2147483647.", NULL, NULL },
	{ "sort", "What the flows are ranked by, most first: `switches` (the default: switches, "
	  "then risky switches, reordered segments and packets), `risky`, `reordered`, "
	  "`packets`, `bytes`, or `queues` (how many TX queues the flow used). Ties go by the "
	  "default order. Another word is a usage error (status 2).", NULL, NULL },
	{ "all", "Show every active flow, in the table and in **--json**, not only the flapping "
	  "ones and the **--top** others (`flows_not_shown` is then 0). As **qdiscstuck --all**: "
	  "every record.", NULL, NULL },
	{ "link-local", "Show the link-local control flows too: IGMP, and ICMPv6 from or to a "
	  "link-local address (fe80::/10, or a link-scope multicast group such as ff02::1 and "
	  "ff02::1:ffXX:XXXX), MLD's behind its hop-by-hop header included. Neighbour discovery, "
	  "MLD and IGMP are every link's noise, not its traffic: by default they are left out of "
	  "the table, **--json** and the flow counts (`flows_active`, `flows_flapping` and their "
	  "metrics), and the interval record counts them in `flows_link_local`. The per-queue "
	  "totals (`xpsflap_packets_total`...) are the queue's and count every packet.",
	  NULL, NULL },
	{ "min-switches", "Queue switches in one interval that make a flow flapping (default 2). "
	  "From 1 to 1000000.", NULL, NULL },
	{ "list-fixes", "Probe the remedy on this kernel and print one line: **--pin**, its lever "
	  "(the XPS maps cleared in sysfs, and a tc BPF program on egress that picks the queue), "
	  "and `allowed`, or `not allowed:` with the reason (its program `xf_pin_tc` does not "
	  "load, or there is no `tc` on PATH, which takes the filter away at exit). Exit 0. "
	  "With **--json**, one JSON line instead, the columns as keys: `fix`, `lever` and "
	  "`verdict`, with the `tool` and `time` every record has. It needs `CAP_BPF` and "
	  "`CAP_PERFMON`:\n\n"
	  "```\n"
	  "# xpsflap --list-fixes\n"
	  "FIX        LEVER                                                    VERDICT\n"
	  "--pin      sysfs xps_cpus cleared + tc BPF egress picks the queue   allowed\n"
	  "```", NULL, NULL },
	{ "cleanup", "Undo the changes of an instance that died (kill -9), then exit. It reads "
	  "the journals that dead **--pin** instances left in `/run/netmedic`, undoes them newest "
	  "first (entering the network namespace they were made in) and removes them. Journals "
	  "of running instances are left alone. It runs only what root or its own user wrote: "
	  "the run directory and each journal must be owned by root or the effective uid and not "
	  "writable by group or others, and a journal must be a regular file, not a symlink; "
	  "anything else is refused with a line naming the file and the reason, and nothing in "
	  "it is run (status 1). A command record runs only `tc`, the command the tool undoes "
	  "with; any other is not run, and counts as a failed undo. A command gets 10 s, here "
	  "and when a change is made: one that takes longer is killed and named (`tc monitor: "
	  "timed out after 10 s (killed)`), and counts as failed too. A change whose undo fails "
	  "stays in its journal, which then holds only the changes that failed: **--cleanup** "
	  "says which file keeps how many, and exits 1; fix the cause and run it again. With "
	  "**--pin**, **--list-hooks**, **--list-fixes**, **-c**, **-i**, **--prom-file** or "
	  "**--listen** it is a usage error (status 2): it makes no change of its own, and no "
	  "report.", NULL, NULL },
	{ "dev", "Watch this device only (repeatable, up to 8). Names are looked up in the "
	  "network namespace xpsflap runs in: the **--netns** one if one is given, else its "
	  "own. Without **--dev**, every device of every namespace in scope is watched "
	  "(**SCOPE**). Refused with two or more **--netns** (status 2).", NULL, NULL },
	{ "hooks", "auto (default): best rung that attaches; fentry: function probes only "
	  "(fentry/fexit, or kprobes where fexit cannot attach); tracepoint: no function probe. "
	  "*fentry* applies only to hooks that have an fexit rung "
	  "(netdev\\_pick_tx). If that rung cannot attach, xpsflap exits with status 1 and names "
	  "the reason.", NULL, NULL },
	{ "netns", "Narrow the scope to this network namespace: a name under /run/netns, a path "
	  "(such as `/proc/PID/ns/net`), or a PID, for that process's namespace. Without "
	  "**--netns**, xpsflap watches every network namespace of the host (**SCOPE**). "
	  "Repeatable, up to 8. With one, xpsflap runs in it: it also enters a private mount "
	  "namespace with that namespace's sysfs, as `ip netns exec` does, so **--dev** and "
	  "**--pin** act on the devices there. With two or more, it runs in none of them and "
	  "watches those; **--dev** and **--pin** are refused then (status 2: each needs "
	  "exactly one **--netns**). A value that is empty, too long, `.`, `..`, a PID out of "
	  "range, given twice, or not a network namespace, is a usage error (status 2) that "
	  "names it.", NULL, "repeatable" },
	{ "verbose", "Verbose: the first line also names each hook's rung and every program this kernel "
	  "refused (where a later rung made up for it, nothing was lost; **--list-hooks** gives "
	  "the whole ladder), and libbpf's messages (load errors, the verifier's log) go to "
	  "standard error. The `pin:` lines of **--pin** are printed "
	  "with or without it.", NULL, NULL },
	{},
};

const struct nm_tool_doc xpsflap_tool_doc = { "xpsflap", &argp, docs };

void xf_opts_parse(struct xf_env *e, int argc, char **argv)
{
	nm_opts_init(&e->o, "xpsflap");
	e->o.scope = true;	/* every netns, or the --netns given */
	e->max_flows = 65536;
	e->min_switches = XF_MIN_SWITCHES_DEFAULT;
	nm_argp_parse(&argp, argc, argv, e, e->o.tool);
	e->max_flows = nm_table_size(e->max_flows);
}
