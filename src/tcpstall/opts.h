/* SPDX-License-Identifier: GPL-2.0 */
/*
 * tcpstall's options: its own (--threshold, --sweep, --port, --max-flows,
 * -H, --fix, --list-fixes, --prom-netns, --min-segs, --top, --sort, --all) beside the common
 * ones. The argp table is data a test can read as well as --help
 * (OPTIONS of docs/reference/tcpstall.md, and of the man page, docs/tcpstall.md).
 */
#ifndef NETMEDIC_TCPSTALL_OPTS_H
#define NETMEDIC_TCPSTALL_OPTS_H

#include <stdbool.h>
#include "tcpstall/judge.h"
#include "lib/cli.h"
#include "lib/optdoc.h"

struct ts_env {
	struct nm_opts o;
	unsigned int threshold_ms;
	unsigned int sweep_ms;
	unsigned int port;
	long max_flows;		/* slots: a power of two once parsed */
	bool hist;
	struct nm_view view;	/* --sort: enum ts_sort (tcpstall/report.h) */
	bool prom_netns;
	unsigned int fix;	/* TS_FIX_ bits (tcpstall/plan.h) */
	bool list_fixes;
	struct ts_storm_cfg storm;
	struct ts_kick_cfg kick;
	/* not options: the loader sets them after parsing */
	unsigned int hz;	/* the kernel's CONFIG_HZ: lsndtime is in jiffies */
	bool kick_halt;		/* NETMEDIC_TEST_KICK=crash */
};

/* The command line into e, defaults first; a usage error exits with status 2 (argp). */
void ts_opts_parse(struct ts_env *e, int argc, char **argv);

/*
 * NETMEDIC_TEST_KICK (a test aid, docs/reference/tcpstall.md), t its value: with
 * --fix=kick, "any" kicks every swept socket with unsent data, not only
 * tsq_idle ones (a host cannot make one); "crash" also stops the first
 * kick after it set TCP_NODELAY to 1 and kills tcpstall (SIGKILL), so
 * --cleanup has something to restore. NULL, or no --fix=kick: nothing.
 */
void ts_opts_test_aids(struct ts_env *e, const char *t);

/*
 * Its options and their docs: OPTIONS of docs/reference/tcpstall.md, and of
 * docs/tcpstall.md, the man page (make docs).
 */
extern const struct nm_tool_doc tcpstall_tool_doc;

#endif
