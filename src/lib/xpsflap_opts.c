// SPDX-License-Identifier: GPL-2.0
/*
 * xpsflap's options (xpsflap_opts.h): the table --help prints, the
 * values' checks, their defaults.
 */
#include <argp.h>
#include <limits.h>
#include "detect/xpsflap_detect.h"
#include "lib/fixes.h"
#include "lib/xpsflap_opts.h"

enum { OPT_PIN = 0x2000, OPT_MAX_FLOWS, OPT_TOP, OPT_MIN_SWITCHES, OPT_LIST_FIXES };

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
	{ "top", OPT_TOP, "N", 0, "Table rows (default 20)", 0 },
	{ "min-switches", OPT_MIN_SWITCHES, "N", 0,
	  "Queue switches in one interval that make a flow flapping (default 2)", 0 },
	NM_LIST_FIXES_OPTION(OPT_LIST_FIXES),
	{},
};

static error_t parse_arg(int key, char *arg, struct argp_state *state)
{
	struct xf_env *e = state->input;
	long v;

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
	case OPT_MAX_FLOWS:
		if (nm_parse_long(arg, 64, 16777216, &e->max_flows))
			argp_error(state, "invalid --max-flows '%s': 64 to 16777216", arg);
		break;
	case OPT_TOP:
		/* into a long first: an int would wrap 4294967297 to 1 */
		if (nm_parse_long(arg, 1, INT_MAX, &v))
			argp_error(state, "invalid --top '%s'", arg);
		e->top = v;
		break;
	case OPT_MIN_SWITCHES:
		if (nm_parse_long(arg, 1, 1000000, &e->min_switches))
			argp_error(state, "invalid --min-switches '%s': 1 to 1000000", arg);
		break;
	case ARGP_KEY_ARG:
		argp_error(state, "unexpected argument '%s'", arg);
		break;
	case ARGP_KEY_END:
		if (e->pin && !e->o.ndevs)
			argp_error(state, "--pin needs --dev: it changes the named devices only");
		break;
	default:
		return ARGP_ERR_UNKNOWN;
	}
	return 0;
}

NM_ARGP(options, parse_arg, doc);

void xf_opts_parse(struct xf_env *e, int argc, char **argv)
{
	nm_opts_init(&e->o, "xpsflap");
	e->max_flows = 65536;
	e->min_switches = XF_MIN_SWITCHES_DEFAULT;
	argp_parse(&argp, argc, argv, 0, NULL, e);
	e->max_flows = nm_table_size(e->max_flows);
}
