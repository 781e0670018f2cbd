/* SPDX-License-Identifier: GPL-2.0 */
/*
 * run.h - one lifecycle for every tool. A tool describes itself (its
 * skeleton, its remedies, what it does at each step) in a struct nm_tool;
 * nm_run() does the rest, in the one order every tool keeps:
 *
 *   signals, the options' needs (caps), usage checks, --cleanup,
 *   nm_setup (--print-caps, --netns, --dev), --list-fixes, the tool's
 *   setup, [stop "load"], load and attach (the ladder), --bpf-stats,
 *   start, the change [stop "change"] and the drop of capabilities (in
 *   the tool's order), the first line, ready, the report loop (each
 *   report's sinks: lib/emit.h), stop (the undo), free, destroy.
 *
 * A signal during the load ends the run there: nothing was changed
 * (unless the tool says signal_in_load_goes_on).
 */
#ifndef NETMEDIC_LIB_RUN_H
#define NETMEDIC_LIB_RUN_H

#include <stdbool.h>
#include <stdint.h>
#include "lib/cli.h"
#include "lib/emit.h"
#include "lib/fixes.h"
#include "lib/skel.h"

/* A step's return: 0 go on, an exit code, or this: end the run now with status 0. */
#define NM_RUN_DONE	(-1)
/* The report step's: nothing to report this interval (it said why); the run goes on. */
#define NM_RUN_SKIP	(-2)

struct nm_due;

/*
 * A tool, as a value: what its CLI runs alone (nm_main) and the agent
 * runs beside the others (src/agent), each exported by src/NAME/main.c as
 * NAME_tool.
 */
struct nm_tool {
	const char *name;
	/*
	 * The command line into the tool's state, argv[0] its name: with no
	 * argument its defaults, else its own options (the agent's --opts).
	 */
	void (*parse)(int argc, char **argv);
	const char *undo_cmd;			/* the one command its journals may run to undo */
	struct nm_opts *o;
	const struct nm_skel_ops *skel;
	struct nm_hook *hooks;			/* skel->nhooks of them */
	const struct nm_fix *fixes;		/* --list-fixes */
	int nfixes;
	const bool *list_fixes;			/* the tool's --list-fixes flag */
	/*
	 * The report loop: true, on a fixed grid (nm_next_deadline: a report
	 * within one interval of what it reports, whatever a sweep took);
	 * false, one interval's sleep before each report.
	 */
	bool grid;
	/* capabilities dropped before the change (qdiscstuck), else after it */
	bool drop_before_change;
	/*
	 * A signal during the load does not end the run there: the steps go
	 * on, theirs to skip what a signal makes pointless (tcpstall's order:
	 * it still drops, and says so with -v).
	 */
	bool signal_in_load_goes_on;
	/*
	 * The steps, each may be NULL. Those returning int return 0, an exit
	 * code or NM_RUN_DONE; skel is the loaded skeleton.
	 */
	void (*caps)(struct nm_opts *o);	/* after the signals: o->caps from the options */
	int (*check)(void);			/* usage checks answered before --print-caps, --cleanup */
	/*
	 * The option that makes this run a one-shot (qdiscstuck --kick: its
	 * ready step ends the run), or NULL: an agent runs no one-shot.
	 */
	const char *(*one_shot)(void);
	/* The remedy option given (--fix, --pin...), or NULL: --cleanup and --list-fixes run none */
	const char *(*remedy)(void);
	/* --cleanup (NULL: nm_cleanup_main); o and skel are the tool's own */
	int (*cleanup)(struct nm_opts *o, const struct nm_skel_ops *skel);
	/* --list-fixes before nm_setup (NULL: after it, the table) */
	int (*list)(struct nm_opts *o, const struct nm_skel_ops *skel);
	int (*setup)(void);			/* after nm_setup, before the load: resolve, allocate */
	int (*start)(void *skel);		/* after the load: map tables, read the rungs */
	bool (*changes)(void);			/* whether there is a change ("change" stop point) */
	int (*change)(void *skel);		/* the change; nm_exiting is the tool's to check */
	/*
	 * After change and drop: the first line's record, row and what
	 * (lib/emit.h), l->devices filled in; NM_RUN_SKIP: no first line.
	 */
	int (*first)(void *skel, struct nm_first *l);
	int (*ready)(void *skel);		/* after the first line, before the first report */
	/*
	 * Each interval: fills e (lib/emit.h), which nm_run writes to the
	 * sinks, then after. 0, NM_RUN_SKIP, or non-zero ends the loop.
	 */
	int (*report)(void *skel, struct nm_emit *e);
	void (*after)(void *skel);		/* after the sinks: remedies, the next interval's start */
	/*
	 * Instead of the interval loop (tcpstall's sweeps); not run after a
	 * signal. It makes a report when one is due through due.
	 */
	int (*loop)(void *skel, const struct nm_due *due);
	int (*stop)(void);			/* undoes the changes: 0 or an exit code */
	void (*free)(void *skel);		/* the tool's state, before the skeleton goes */
};

/* The whole run, after argp_parse: its exit code. */
int nm_run(const struct nm_tool *t);

/*
 * Options given together that cannot both be (nm_opts_conflict, with t's
 * --list-fixes and remedy): 0, or the usage error said, NM_EXIT_USAGE.
 * Before --cleanup, --list-fixes or anything else answers.
 */
int nm_run_conflict(const struct nm_tool *t);

/*
 * A CLI's main: the one command its journals may run to undo
 * (lib/journal.h), the command line into the tool's state, then nm_run.
 */
int nm_main(const struct nm_tool *t, int argc, char **argv);

/*
 * One report: the report step, the sinks, the after step; what the
 * interval loop runs. The report step's return (NM_RUN_SKIP: 0).
 */
int nm_run_report(const struct nm_tool *t, void *skel);

/*
 * A report due in a tool's own loop: the CLI's is its tool's report
 * (nm_run_report), the agent's every tool's. 0, or non-zero ends the loop.
 */
struct nm_due {
	int (*report)(const struct nm_due *d);
	const struct nm_tool *tool;
	void *skel;
};

/*
 * The interval loop's clock, pure: how many reports, when the next.
 * count 0: until a signal.
 */
struct nm_ticker {
	uint64_t interval_ns;
	long count;
	long done;		/* reports made */
	bool grid;
	uint64_t deadline;	/* the last wake-up (grid), 0 before the first */
};

void nm_ticker_init(struct nm_ticker *k, double interval, long count, bool grid);
/* Whether another report is due: count not reached, no signal (exiting). */
bool nm_ticker_more(const struct nm_ticker *k, bool exiting);
/*
 * When to wake for the next report (CLOCK_MONOTONIC ns), now the time the
 * previous ended: on the grid, one interval after the last wake-up (now
 * when late, nm_next_deadline); else one interval from now. Counts it.
 */
uint64_t nm_ticker_next(struct nm_ticker *k, uint64_t now);

#endif /* NETMEDIC_LIB_RUN_H */
