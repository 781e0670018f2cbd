/* SPDX-License-Identifier: GPL-2.0 */
/*
 * plan.h - remedies as data. A tool's policy is a pure function that
 * returns a plan, a list of actions (a sysctl, a file, a command, a tc
 * BPF filter and its clsact qdisc, a call the tool makes, or a note that
 * says why nothing is done); one executor
 * journals each action (lib/journal.h) before it makes it, and the
 * journal's undo puts it back.
 * The plan is what the unit tests look at; the executor is the only code
 * that changes the system for the remedies written this way.
 */
#ifndef NETMEDIC_LIB_PLAN_H
#define NETMEDIC_LIB_PLAN_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>
#include "lib/journal.h"

#define NM_SYSCTL_ROOT		"/proc/sys"

/*
 * A sysctl's file from its name, as sysctl(8) reads one: the dots are
 * directories, a slash stands for a dot inside a component
 * ("net.ipv4.conf.eth0/100.rp_filter" -> ROOT/net/ipv4/conf/eth0.100/
 * rp_filter). root NULL: /proc/sys. 0; -EINVAL for an empty name or
 * component, or one that would be "." or ".."; -ENAMETOOLONG.
 */
int nm_sysctl_path(const char *root, const char *name, char *buf, size_t len);

enum nm_act_kind {
	NM_ACT_NOTE,		/* changes nothing: a line for the log (why not) */
	NM_ACT_SYSCTL,		/* target: the sysctl's name */
	NM_ACT_FILE,		/* target: a file's path (sysfs) */
	NM_ACT_CMD,		/* target and undo: argv words, tab-separated */
	NM_ACT_CALL,		/* made by the tool's call (libbpf, a frame): target its words */
	NM_ACT_RECORD,		/* made in a batch by the tool's nm_exec.batch: target a journal record's fields */
	NM_ACT_TC_CLSACT,	/* the clsact qdisc on a device (tc): target "clsact DEV IFINDEX"; undo its record */
	NM_ACT_TC_FILTER,	/* a tc BPF filter (tc): target "filter DEV IFINDEX DIR PREF HANDLE" */
};

/* Made from the initial netns, in a journal of its own (a global sysctl). */
#define NM_ACT_INIT_NS		1u
/* When it fails, the later actions of the same remedy are not made. */
#define NM_ACT_REQUIRED		2u
/* Its line is "WHAT[ OLD] -> VAL" alone: the tool's prefix in what, no "(restored at exit)". */
#define NM_ACT_BARE		4u

#define NM_ACT_DATA	64

/* A tc action (NM_ACT_TC_*) as the executor makes it. */
struct nm_tc_target {
	char dev[32];
	unsigned int ifindex;
	bool ingress;		/* the filter's: egress or ingress */
	unsigned int pref, handle;
	int prog_fd;		/* the filter's */
};

struct nm_action {
	enum nm_act_kind kind;
	unsigned int flags;
	unsigned int remedy;	/* the tool's word for the remedy it serves (a --fix bit) */
	const char *tag;	/* its lines' prefix: "fix", "fix rfs" */
	char target[640];
	char undo[640];		/* NM_ACT_CMD, NM_ACT_CALL: the undo's argv; NM_ACT_TC_*: its record */
	char what[640];		/* the log's name for it ("" : target); a note: its line */
	char line[640];		/* the tool's line once made, instead of "fix: ..." ("": that) */
	char old[64];		/* the value before: the executor sets it from the file */
	char val[64];		/* the value written; a command: what it makes ("without quickack") */
	unsigned long netns;	/* the netns the log line names, 0: none */
	/* the tool's, for its call or batch: what it acts on (a queue; tcpstall: the socket's key) */
	unsigned char data[NM_ACT_DATA];
	struct nm_tc_target tc;	/* NM_ACT_TC_*: what the executor makes (target: its words, for the log) */
	int err;		/* the executor's: 0 made, -errno, -ECANCELED not tried */
};

struct nm_plan {
	struct nm_action *a;
	size_t n, cap;
};

/*
 * Appends a copy of a, unless the plan has it already (the same kind,
 * target, undo, note line and NM_ACT_INIT_NS): a remedy asked for twice is
 * made once. 0 added, 1 already there, -ENOMEM.
 */
int nm_plan_add(struct nm_plan *p, const struct nm_action *a);
/* Builders for nm_plan_add: 0, 1, -errno (-ENAMETOOLONG when a field does not fit). */
int nm_plan_sysctl(struct nm_plan *p, unsigned int remedy, unsigned int flags, const char *tag,
		   const char *name, const char *val, unsigned long netns);
int nm_plan_file(struct nm_plan *p, unsigned int remedy, const char *tag, const char *path,
		 const char *what, const char *val);
/* do_argv and undo_argv NULL-terminated; words must not hold a tab */
int nm_plan_cmd(struct nm_plan *p, unsigned int remedy, const char *tag, const char *const *do_argv,
		const char *const *undo_argv, const char *what, const char *val);
int nm_plan_note(struct nm_plan *p, unsigned int remedy, const char *tag, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));
/*
 * A change the tool's nm_exec.call makes (through libbpf, a frame sent):
 * data, len bytes (at most NM_ACT_DATA), is what the call acts on, as the
 * tool's own struct; words (its target, tab-joined) name it in the log and
 * tell two calls apart. undo_argv NULL: nothing to undo, never journaled
 * (a kick); else the undo command is journaled before the call makes the
 * change, and taken back when it fails.
 */
int nm_plan_call(struct nm_plan *p, unsigned int remedy, const char *tag, const char *const *words,
		 const char *const *undo_argv, const char *val, const void *data, size_t len);
/*
 * A change the tool's nm_exec.batch makes for a run of such actions at
 * once (one pass of a BPF iterator: tcpstall's kicks), each undone by a
 * record of kind (an executor's, nm_journal_exec) with fields (tab-joined
 * into target, undo holds kind). Each record is journaled before the batch
 * is made, and dropped after it unless the batch keeps them. what: the
 * participle of the failure line when its record cannot be written ("TAG:
 * ERR: not WHAT"). data: the tool's, len bytes (at most NM_ACT_DATA), for
 * its batch.
 */
int nm_plan_record(struct nm_plan *p, unsigned int remedy, const char *tag, const char *kind,
		   const char *const *fields, const char *what, const void *data, size_t len);
/*
 * A tc BPF program on dev's egress (or ingress): two actions, the clsact
 * qdisc (made when absent; one found there is not deleted again) and the
 * filter with pref and handle that runs prog_fd (direct action). Each is
 * undone by a record journaled before it is made (lib/tcundo.h: a crash
 * in between leaves a record whose undo finds nothing to remove), so that
 * --cleanup undoes it after a crash; the executor makes them through
 * libbpf. Both
 * are NM_ACT_REQUIRED: no filter without its qdisc, and nothing of the
 * remedy after a filter that failed. The filter's line, when the plan
 * wants one, is nm_plan_line's. 0, 1 (the filter was planned already),
 * -errno.
 */
int nm_plan_tc_bpf(struct nm_plan *p, unsigned int remedy, const char *tag, const char *dev,
		   unsigned int ifindex, bool ingress, unsigned int pref, unsigned int handle, int prog_fd);

/*
 * A tc action's words read back (its target, as its journal record holds
 * them, lib/tcundo.h): what --cleanup finds to undo. 0, or -EINVAL.
 */
int nm_tc_target(const struct nm_action *a, struct nm_tc_target *t);

/* Sets the line (nm_action.line) of the action a builder has just added (it returned 0). 0, -ENAMETOOLONG, -EINVAL on an empty plan. */
int nm_plan_line(struct nm_plan *p, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* Drops the actions from the n-th on (a policy taking back what it began). */
void nm_plan_truncate(struct nm_plan *p, size_t n);
void nm_plan_free(struct nm_plan *p);

/*
 * The log line of an action, without the "TOOL: " prefix. Its line when
 * set. A note: "TAG: LINE" ("LINE" without a tag). NM_ACT_BARE: "WHAT[ OLD]
 * -> VAL". A change, once made: "fix: WHAT[ OLD] -> VAL[ in netns N]
 * ([global; ]restored at exit)". 0, or -ENAMETOOLONG (cut).
 */
int nm_action_line(const struct nm_action *a, char *buf, size_t len);

/*
 * A command's argv from its tab-separated words, in place: up to max - 1
 * words and a NULL. Returns the number of words.
 */
int nm_plan_argv(char *words, const char **argv, int max);

struct nm_exec;
/*
 * Makes an NM_ACT_CALL action. It may set a->line (logged, made or not:
 * a kick's outcome) and err (logged as an error, "TAG: ERR", or ERR alone
 * without a tag). 0 made; 1 nothing to make (found made already: its undo
 * record is taken back, not a failure); -errno.
 */
typedef int (*nm_exec_call_fn)(struct nm_exec *x, struct nm_action *a, char *err, size_t len);
/*
 * Makes the n NM_ACT_RECORD actions of a run (of one remedy), their records
 * journaled: sets each one's err (0 made, -errno) and may set its line
 * (logged as an error when err < 0: "TAG: ..." whole, without the tool's
 * prefix). Returns 0 when every change is undone already (by the batch
 * itself): the records are dropped. 1: they stay, undone at exit (a
 * change left). -errno with err: the batch failed as a whole (logged "TAG:
 * ERR" before the actions' lines), and the records stay too, since what it
 * changed is not known.
 */
typedef int (*nm_exec_batch_fn)(struct nm_exec *x, struct nm_action *a, size_t n, char *err, size_t len);
/* Opens x->j at the first action that needs a journal. 0, or -errno with err. */
typedef int (*nm_exec_open_fn)(struct nm_exec *x, const struct nm_action *a, char *err, size_t len);

struct nm_exec {
	const char *tool;
	FILE *log;			/* where the lines go (stderr) */
	struct nm_journal *j;		/* the tool's netns: the caller opens it */
	struct nm_journal *global;	/* NM_ACT_INIT_NS: opened at the first such action */
	const char *global_key;		/* its key ("rfs-global") */
	int home_fd;			/* the initial netns, for NM_ACT_INIT_NS; -1: none */
	const char *sysctl_root;	/* NULL: /proc/sys (tests: a temp dir) */
	nm_exec_call_fn call;		/* NM_ACT_CALL */
	nm_exec_batch_fn batch;		/* NM_ACT_RECORD */
	nm_exec_open_fn open;		/* NULL: the caller opened j */
	nm_exec_call_fn tc;		/* NM_ACT_TC_*: NULL, libbpf's (nm_exec_tc); tests set their own */
	void *arg;			/* the tool's, for call and open */
	const char *restoring;		/* undo's first line (NULL: "fix: restoring"; "": none) */
	const char *unrestored;		/* its error (NULL: "fix: not fully restored (see above)"; "": none) */
};

/*
 * The executor's own maker of NM_ACT_TC_CLSACT and NM_ACT_TC_FILTER,
 * through libbpf: 0 made, 1 the clsact qdisc was there already, -errno
 * with err.
 */
int nm_exec_tc(struct nm_exec *x, struct nm_action *a, char *err, size_t len);

/*
 * Makes the plan, in order: a note is logged, a change is journaled, made
 * and logged (a.err and a.old are set), a failure is logged with the
 * action's tag. A run of NM_ACT_RECORD actions of one remedy is one batch:
 * their records journaled in order (a record that cannot be written stops
 * the batch there), then made at once by x->batch. Returns the number of actions that failed.
 */
int nm_exec_plan(struct nm_exec *x, struct nm_plan *p);

/*
 * Undoes everything made (x->restoring when the tool's journal has
 * records), the initial netns' journal from there. 0, or -1 when something
 * is not restored (said, with `TOOL --cleanup` where that helps).
 */
int nm_exec_undo(struct nm_exec *x);

#endif /* NETMEDIC_LIB_PLAN_H */
