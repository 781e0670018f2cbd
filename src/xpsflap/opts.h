/* SPDX-License-Identifier: GPL-2.0 */
/*
 * xpsflap's options: its own (--pin, --max-flows, --top, --sort, --all,
 * --link-local, --min-switches, --list-fixes) beside the common ones. The
 * argp table is data a test can read as well as --help (OPTIONS of
 * docs/reference/xpsflap.md and docs/xpsflap.md).
 */
#ifndef NETMEDIC_XPSFLAP_OPTS_H
#define NETMEDIC_XPSFLAP_OPTS_H

#include <stdbool.h>
#include "lib/cli.h"
#include "lib/optdoc.h"

struct xf_env {
	struct nm_opts o;
	bool pin;
	bool list_fixes;
	long max_flows;		/* slots: a power of two once parsed */
	long min_switches;
	bool link_local;	/* --link-local: ICMPv6 ND/MLD and IGMP flows shown too */
	struct nm_view view;	/* --all: every active flow; --sort: enum xf_sort */
};

/* The command line into e, defaults first; a usage error exits with status 2 (argp). */
void xf_opts_parse(struct xf_env *e, int argc, char **argv);

/*
 * Its options and their docs: OPTIONS of docs/reference/xpsflap.md, and of
 * docs/xpsflap.md, the man page (make docs).
 */
extern const struct nm_tool_doc xpsflap_tool_doc;

#endif
