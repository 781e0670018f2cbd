// SPDX-License-Identifier: GPL-2.0
/*
 * tcpstall's options (tcpstall_opts.h): the table --help prints, the
 * values' checks, their defaults.
 */
#include <argp.h>
#include "detect/tcpstall_plan.h"
#include "lib/fixes.h"
#include "lib/tcpstall_opts.h"

enum { OPT_THRESHOLD = 0x2000, OPT_SWEEP, OPT_PORT, OPT_MAX_FLOWS, OPT_FIX, OPT_PROM_NETNS,
       OPT_MIN_SEGS, OPT_LIST_FIXES };

static const char doc[] =
"tcpstall: TCP sockets holding unsent data that send nothing, by cause, and ACK storms.\n"
"\n"
"Stalls are told apart: rwnd_limited, cwnd_limited, pacing, nagle, host_queue (TSQ\n"
"throttled with data below TCP), sndbuf_limited, and tsq_idle, the netdev report's\n"
"state (TSQ_THROTTLED set, nothing below TCP, nothing queued: it waits a delayed-ACK\n"
"timeout). ACK storms: pure ACKs per data segment and ACKs sent while the user\n"
"thread runs the socket backlog, with causes read from the kernel.\n"
"\n"
"EXAMPLES:\n"
"  tcpstall                          # every socket of this netns, table every second\n"
"  tcpstall --netns lab --port 5201 --json -c 5\n"
"  tcpstall --netns lab --fix        # tcp_backlog_ack_defer=1 while it runs\n"
"  tcpstall --cleanup                # undo the remedy of a killed instance";

static const struct argp_option options[] = {
	{ "threshold", OPT_THRESHOLD, "MS", 0, "Unsent data not moving this long is a stall (default 10)", 0 },
	{ "sweep", OPT_SWEEP, "MS", 0, "Socket sweep period (default 10)", 0 },
	{ "port", OPT_PORT, "PORT", 0, "Only flows with this local or remote port", 0 },
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
	struct ts_env *e = state->input;
	unsigned long v;
	int fix;

	switch (key) {
	case ARGP_KEY_INIT:
		state->child_inputs[0] = &e->o;
		break;
	case OPT_THRESHOLD:
		if (nm_parse_ulong(arg, 1, 3600000, &v))
			argp_error(state, "invalid --threshold '%s': milliseconds, 1 to 3600000", arg);
		e->threshold_ms = v;
		break;
	case OPT_SWEEP:
		if (nm_parse_ulong(arg, 1, 60000, &v))
			argp_error(state, "invalid --sweep '%s': milliseconds, 1 to 60000", arg);
		e->sweep_ms = v;
		break;
	case OPT_PORT:
		if (nm_parse_ulong(arg, 1, 65535, &v))
			argp_error(state, "invalid --port '%s': 1 to 65535", arg);
		e->port = v;
		break;
	case OPT_MAX_FLOWS:
		if (nm_parse_ulong(arg, 64, 16777216, &v))
			argp_error(state, "invalid --max-flows '%s': 64 to 16777216", arg);
		e->max_flows = v;
		break;
	case OPT_MIN_SEGS:
		if (nm_parse_ulong(arg, 1, 1000000000, &v))
			argp_error(state, "invalid --min-segs '%s'", arg);
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
			argp_error(state, "invalid --fix '%s': defer, autocork, rfs, routes, kick, comma-separated", arg);
		e->fix = fix;
		break;
	case OPT_LIST_FIXES:
		e->list_fixes = true;
		break;
	case ARGP_KEY_ARG:
		argp_error(state, "unexpected argument '%s'", arg);
		break;
	default:
		return ARGP_ERR_UNKNOWN;
	}
	return 0;
}

NM_ARGP(options, parse_arg, doc);


void ts_opts_parse(struct ts_env *e, int argc, char **argv)
{
	nm_opts_init(&e->o, "tcpstall");
	e->threshold_ms = 10;
	e->sweep_ms = 10;
	e->max_flows = 65536;
	e->storm = (struct ts_storm_cfg)TS_STORM_CFG_DEFAULT;
	e->kick = (struct ts_kick_cfg)TS_KICK_CFG_DEFAULT;
	argp_parse(&argp, argc, argv, 0, NULL, e);
	e->max_flows = nm_table_size(e->max_flows);
}
