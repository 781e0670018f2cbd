// SPDX-License-Identifier: GPL-2.0
/*
 * tcpstall's options (tcpstall_opts.h): the table --help prints, the
 * values' checks, their defaults.
 */
#include <argp.h>
#include <stdlib.h>
#include <string.h>
#include "tcpstall/plan.h"
#include "lib/fixes.h"
#include "tcpstall/opts.h"
#include "tcpstall/report.h"

enum { OPT_THRESHOLD = 0x2000, OPT_SWEEP, OPT_PORT, OPT_MAX_FLOWS, OPT_FIX, OPT_PROM_NETNS,
       OPT_MIN_SEGS, OPT_LIST_FIXES };

/* lines under 80 columns: argp wraps a longer one, and its tail stands alone */
static const char doc[] =
"tcpstall: TCP sockets holding unsent data that send nothing, by cause, and ACK\n"
"storms.\n"
"\n"
"Stalls are told apart: rwnd_limited, cwnd_limited, pacing, nagle, host_queue\n"
"(TSQ throttled with data below TCP), sndbuf_limited, and tsq_idle, the netdev\n"
"report's state (TSQ_THROTTLED set, nothing below TCP, nothing queued: it waits\n"
"a delayed-ACK timeout). ACK storms: pure ACKs per data segment and ACKs sent\n"
"while the user thread runs the socket backlog, with causes read from the\n"
"kernel.\n"
"\n"
"EXAMPLES:\n"
"  tcpstall                          # every netns's sockets, a table a second\n"
"  tcpstall --netns lab --port 5201 --json -c 5\n"
"  tcpstall --netns lab --fix        # tcp_backlog_ack_defer=1 while it runs\n"
"  tcpstall --cleanup                # undo the remedy of a killed instance";

static const struct argp_option options[] = {
	{ "threshold", OPT_THRESHOLD, "MS", 0, "Unsent data not moving this long is a stall (default 10)", 0 },
	{ "sweep", OPT_SWEEP, "MS", 0, "Socket sweep period (default 10)", 0 },
	{ "port", OPT_PORT, "PORT", 0, "Only flows with this local or remote port (a number, or a service's name: http)", 0 },
	{ "max-flows", OPT_MAX_FLOWS, "N", 0, "Slots of the ACK flow table, rounded up to a power of two (default 65536)", 0 },
	{ "histogram", 'H', NULL, 0, "Print log2 histograms of stall durations", 0 },
	{ "fix", OPT_FIX, "WHAT", OPTION_ARG_OPTIONAL,
	  "Remedies while running, undone at exit: defer (ACK storms: tcp_backlog_ack_defer=1), "
	  "autocork (tsq_idle: tcp_autocorking=0), rfs (cross-CPU flows: RFS on the receiving "
	  "device), routes (drop quickack 1 from the storm's routes), kick (tsq_idle: push "
	  "one socket's pending data, TCP_NODELAY 1 and back, from BPF); comma-separated; "
	  "default: defer,autocork", 0 },
	NM_LIST_FIXES_OPTION(OPT_LIST_FIXES),
	{ "prom-netns", OPT_PROM_NETNS, NULL, 0, "Label the metrics with the netns inode (several instances, one textfile directory)", 0 },
	{ "min-segs", OPT_MIN_SEGS, "N", 0, "Data segments per interval before a flow is judged (default 200)", 0 },
	NM_VIEW_OPTIONS("Table rows per part, and ACK flows in JSON beyond those in a storm or "
			"misplaced (default " NM_STR(TS_REPORT_TOP) ")",
			"Rank ACK flows after the storms by acks (default), segs, ratio, owned or drops",
			"Every tracked socket and every ACK flow, in JSON and the table"),
	{},
};

/* --fix's words, in the order of their FIX_ bits */
static const char *const fix_names[] = { "defer", "autocork", "rfs", "routes", "kick" };

static int parse_fix(const char *arg)
{
	if (!arg)
		return TS_FIX_DEFER | TS_FIX_AUTOCORK;
	return nm_parse_names(arg, fix_names, 5);
}

static error_t parse_arg(int key, char *arg, struct argp_state *state)
{
	static const struct nm_view_spec view = { 1000000, ts_sort_names, TS_NR_SORTS };
	struct ts_env *e = state->input;
	unsigned long v;
	int fix;

	if (nm_view_arg(key, arg, state, &view, &e->view) != ARGP_ERR_UNKNOWN)
		return 0;
	switch (key) {
	case ARGP_KEY_INIT:
		state->child_inputs[0] = &e->o;
		break;
	case OPT_THRESHOLD:
		if (nm_parse_ulong(arg, 1, 3600000, &v))
			nm_usage(state, "invalid --threshold '%s': milliseconds, 1 to 3600000", arg);
		e->threshold_ms = v;
		break;
	case OPT_SWEEP:
		if (nm_parse_ulong(arg, 1, 60000, &v))
			nm_usage(state, "invalid --sweep '%s': milliseconds, 1 to 60000", arg);
		e->sweep_ms = v;
		break;
	case OPT_PORT:
		e->port = nm_parse_port(arg);
		if (!e->port)
			nm_usage(state, "invalid --port '%s': 1 to 65535, or a TCP service's name (/etc/services)",
				 arg);
		break;
	case OPT_MAX_FLOWS:
		if (nm_parse_ulong(arg, 64, 16777216, &v))
			nm_usage(state, "invalid --max-flows '%s': 64 to 16777216", arg);
		e->max_flows = v;
		break;
	case OPT_MIN_SEGS:
		if (nm_parse_ulong(arg, 1, 1000000000, &v))
			nm_usage(state, "invalid --min-segs '%s'", arg);
		e->storm.min_segs = v;
		break;
	case 'H':
		e->hist = true;
		break;
	case OPT_PROM_NETNS:
		e->prom_netns = true;
		break;
	case OPT_FIX:
		fix = parse_fix(arg);
		if (fix < 0)
			nm_usage(state, "invalid --fix '%s': defer, autocork, rfs, routes, kick, comma-separated", arg);
		e->fix = fix;
		break;
	case OPT_LIST_FIXES:
		e->list_fixes = true;
		break;
	case ARGP_KEY_ARG:
		nm_usage(state, "unexpected argument '%s'", arg);
		break;
	case ARGP_KEY_END:
		/* one line, as every --netns refusal is (lib/cli.c) */
		if (e->fix && e->o.nnetns > 1)
			exit(nm_err(&e->o, NM_EXIT_USAGE,
				    "--fix needs exactly one --netns: it changes the netns tcpstall runs in"));
		break;
	default:
		return ARGP_ERR_UNKNOWN;
	}
	return 0;
}

/* --dev hidden: tcpstall watches sockets, and refuses it (src/tcpstall/main.c, check) */
NM_ARGP(options, parse_arg, doc, &nm_common_argp_nodev);

/*
 * The docs' text of each option above, and tcpstall's own of the common
 * options whose common text (lib/cli.c) does not say enough here.
 */
static const struct nm_optdoc docs[] = {
	{ "threshold", "Unsent data not moving this long is a stall (default 10), from 1 to "
	  "3600000 ms.", NULL, NULL },
	{ "sweep", "Socket sweep period (default 10), from 1 to 60000 ms.", NULL, NULL },
	{ "port", "Only flows with this local or remote port: a number from 1 to 65535, or the "
	  "name of a TCP service in the services database (/etc/services), as `ss` and "
	  "`tcpdump` take it: `--port http` is `--port 80`. A name it does not hold is a usage "
	  "error (status 2). It applies to the sweep and to every tracepoint.", NULL, NULL },
	{ "max-flows", "Slots of the ACK flow table, one socket each, rounded up to a power of two "
	  "(default 65536). From 64 to 16777216. See **Cost and bounds** "
	  "(docs/design/tcpstall.md) for how slots are shared.", NULL, NULL },
	{ "histogram", "Print log2 histograms of stall durations, one per cause that has ended "
	  "stalls, below each table (in microseconds, since start). Not printed in JSON.",
	  NULL, NULL },
	{ "fix", "Remedies while running, undone at exit: defer (ACK storms: "
	  "tcp\\_backlog\\_ack\\_defer=1), autocork (tsq\\_idle: tcp_autocorking=0), rfs "
	  "(cross-CPU flows: RFS on the receiving device), routes (ACK storms: the routes that "
	  "carry quickack 1, without it), kick (tsq\\_idle: the socket's pending data pushed from "
	  "BPF, TCP\\_NODELAY 1 and back; one socket, no setting changed for others); "
	  "comma-separated; default: defer,autocork. *WHAT* must follow an equals sign "
	  "(`--fix=rfs`): `--fix rfs` is **--fix** followed by a stray argument, a usage error. "
	  "`--fix=` with nothing after it is a usage error too: `tcpstall: invalid --fix '': "
	  "defer, autocork, rfs, routes, kick, comma-separated`. See **REMEDIES**.", NULL, NULL },
	{ "list-fixes", "Probe every remedy on this kernel, print one line for each (its "
	  "**--fix** value, its lever, and `allowed` or `not allowed:` with the reason), exit 0. "
	  "The probes are real: a sysctl's file must open for writing, `ip` must be on PATH, and "
	  "the kick's program must load and run once. They run in the namespace tcpstall starts "
	  "in (**--netns** does not apply: `rps_sock_flow_entries` exists in the initial one "
	  "only). It needs `CAP_BPF` and `CAP_PERFMON`; the probes find what this user may do. "
	  "See **REMEDIES** for its output. With **--json**, one JSON line a remedy instead, "
	  "the columns as keys: `fix`, `lever` and `verdict`, with the `tool` and `time` every "
	  "record has.", NULL, NULL },
	{ "prom-netns", "With one **--netns**: label every `tcpstall_` metric with "
	  "`netns=\"INODE\"`, the inode number of the network namespace tcpstall runs in, so that "
	  "several instances, one per namespace, can write their textfiles into one textfile "
	  "directory without clashing series. The `netmedic_` metrics get no such label. A run "
	  "that watches more than one namespace labels each namespace's series with its name "
	  "anyway, and this adds nothing. Without **--prom-file** it has no effect. See "
	  "**METRICS**.", NULL, NULL },
	{ "min-segs", "Data segments per interval before a flow is judged (default 200). It "
	  "applies to both the ACK storm and the placement (busy flows). From 1 to 1000000000.",
	  NULL, NULL },
	{ "top", "Rows in each part of the table (default 10), from 1 to 1000000; and the ACK "
	  "flows that JSON carries besides those that matter: the flows in an ACK storm, on "
	  "crossed CPUs or with softirq split over CPUs are always written, then the others in "
	  "the order of **--sort** (by default the most ACKs sent), up to *N* in all. The "
	  "interval record counts the flows left out (`ack_flows_not_shown`). **--all** lifts "
	  "the bound.", NULL, NULL },
	{ "sort", "What the ACK flows are ranked by, most first, after the flows in an ACK storm, "
	  "which always come first: `acks` (the default: pure ACKs sent), `segs` (data segments "
	  "received), `ratio` (ACKs per segment, `acks_per_seg`), `owned` (`owned_ratio`) or "
	  "`drops` (backlog drops). It orders the table's ACK rows and the `acks` records, and "
	  "picks which flows make the **--top** *N*; the flows that matter are written whatever "
	  "their rank. Ties go by ACKs sent, then by the flow. Another word is a usage error "
	  "(status 2): `tcpstall: invalid --sort 'x': acks, segs, ratio, owned or drops`. The "
	  "socket rows are not ranked.", NULL, NULL },
	{ "all", "Write every record: every socket the sweeps track (by default only those "
	  "stalled now or whose stall ended in the interval; the interval record counts the "
	  "others in `sockets_not_shown`) and every flow with ACKs or data in the interval, in "
	  "JSON and in the table. Host-wide on a busy host that is a record per connection "
	  "per interval.", NULL, NULL },
	{ "cleanup", "Undo the changes of an instance that died (kill -9), then exit. It reads "
	  "the journals that dead **--fix** instances left in `/run/netmedic` "
	  "(`tcpstall-*.journal`), undoes them newest first, entering the network namespace they "
	  "were made in, and removes them. Journals of running instances are left alone. It "
	  "runs only what root or its own user wrote: the run directory and each journal must be "
	  "owned by root or the effective uid and not writable by group or others, and a journal "
	  "must be a regular file, not a symlink; anything else is refused with a line naming "
	  "the file and the reason, and nothing in it is run (status 1). A command record runs "
	  "only `ip`, the command the tool undoes with; any other is not run, and counts as a "
	  "failed undo. A command gets 10 s, here and when a change is made: one that takes "
	  "longer is killed and named (`tc monitor: timed out after 10 s (killed)`), and counts "
	  "as failed too. A change whose undo fails stays in its journal, which then holds only "
	  "the changes that failed: **--cleanup** says which file keeps how many, and exits 1; "
	  "fix the cause and run it again. With **--fix**, **--list-hooks**, **--list-fixes**, "
	  "**-c**, **-i**, **--prom-file** or **--listen** it is a usage error (status 2): "
	  "it makes no change of its own, and no report.", NULL, NULL },
	{ "hooks", "auto (default): best rung that attaches; fentry: function probes only "
	  "(fentry/fexit, or kprobes where fentry cannot attach: arm64 before 6.4); "
	  "tracepoint: no function probe. *fentry* applies to the hooks that have an fentry/fexit "
	  "rung (`tcp_push`, `__release_sock`). If such a rung cannot attach, tcpstall exits "
	  "with status 1 and names the reason. On the 6.18 VM: `hook tcp_push: no rung "
	  "left on this kernel: kprobe/tcp_push: this kernel has no kprobes (CONFIG_KPROBE_EVENTS)`. "
	  "With *auto*, "
	  "fentry/fexit programs that pass the attach probe but fail the verifier (an older "
	  "kernel) are dropped for the tracepoint rungs, with a warning.", NULL, NULL },
	{ "interval", "Seconds between reports (default 1), from 0.01 to 86400; fractions are "
	  "allowed. ACK counts, storms and placement are per interval.", NULL, NULL },
	{ "netns", "Narrow the scope to this network namespace: a name under /run/netns, a path "
	  "(such as `/proc/PID/ns/net`), or a PID, for its process's namespace. Without it "
	  "tcpstall watches every namespace of the host (see **SCOPE**). Given once, tcpstall "
	  "also runs in that namespace, which is where **--fix** acts: it enters a private mount "
	  "namespace with that namespace's sysfs, as `ip netns exec` does, so that **--fix=rfs** "
	  "finds the receiving device there. Repeatable (up to 8): with two or more, only those "
	  "are watched and tcpstall runs in none of them, so **--fix** is refused (status 2). A "
	  "value that is empty, too long, not a PID, or the same namespace twice is a usage "
	  "error (status 2), and so is one that does not exist.", NULL, "repeatable" },
	{ "verbose", "Verbose: the first line also names each hook's rung and every program this kernel "
	  "refused (where a later rung made up for it, nothing was lost; **--list-hooks** gives "
	  "the whole ladder), and libbpf's messages (load errors, the verifier's log) go to "
	  "standard error. The `fix:` lines of **--fix** are "
	  "printed with or without it.", NULL, NULL },
	{},
};

const struct nm_tool_doc tcpstall_tool_doc = { "tcpstall", &argp, docs };


void ts_opts_parse(struct ts_env *e, int argc, char **argv)
{
	nm_opts_init(&e->o, "tcpstall");
	e->o.scope = true;	/* every netns, or the --netns given */
	e->threshold_ms = 10;
	e->sweep_ms = 10;
	e->max_flows = 65536;
	e->storm = (struct ts_storm_cfg)TS_STORM_CFG_DEFAULT;
	e->kick = (struct ts_kick_cfg)TS_KICK_CFG_DEFAULT;
	nm_argp_parse(&argp, argc, argv, e, e->o.tool);
	e->max_flows = nm_table_size(e->max_flows);
}

void ts_opts_test_aids(struct ts_env *e, const char *t)
{
	if (!t || !(e->fix & TS_FIX_KICK))
		return;
	e->kick.any_state = !strcmp(t, "any") || !strcmp(t, "crash");
	e->kick_halt = !strcmp(t, "crash");
}
