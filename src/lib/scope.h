/* SPDX-License-Identifier: GPL-2.0 */
/*
 * scope.h - the network namespaces a tool watches, and their names.
 *
 * Without --netns the scope is every netns of the host; with one it is
 * that one (the tool runs in it); with two or more, those (the tool runs
 * in none of them). A scope holds:
 *   - the set of inodes (empty: every netns), for the tool's BPF filter
 *     and its own checks (nm_scope_has);
 *   - the host's registry of namespaces (nsreg.h), scanned at start and
 *     once a report, which names each netns;
 *   - the device names of each netns in scope, and their TX queue counts
 *     (devnames.h), one socket each: added when a netns comes, dropped
 *     when the registry says it went, polled each report (renames,
 *     moves, deletions);
 *   - a walk over the namespaces in scope, with the path to enter each
 *     (a tool opens its own per-netns sockets from it).
 * Bounded: at most max_ns namespaces named, and max_ns_socks of them with
 * device names (a socket, so a file descriptor, each), and max_devs
 * devices; what did not fit is counted, and shown by inode or "ifN".
 *
 * Names of other namespaces than the tool's need privileges: reading
 * other users' /proc/PID/ns/net (CAP_SYS_PTRACE), entering a netns to
 * open its socket (CAP_SYS_ADMIN). Without them the scope degrades, it
 * never fails: such a netns is named by its inode, its devices "ifN", and
 * nm_scope_lost() says what was lost.
 */
#ifndef NETMEDIC_LIB_SCOPE_H
#define NETMEDIC_LIB_SCOPE_H

#include <limits.h>
#include <stdbool.h>
#include <stddef.h>
#include <sys/resource.h>

#include "lib/devnames.h"
#include "lib/nsreg.h"
#include "netmedic/common.h"

#define NM_SCOPE_NS_MAX		4096	/* namespaces named (no fd each) */
#define NM_SCOPE_SOCKS_MAX	512	/* namespaces with device names: an fd each */
#define NM_SCOPE_DEVS_MAX	16384	/* devices named, all namespaces */
#define NM_SCOPE_GONE_MAX	4096	/* namespaces and devices remembered gone */
#define NM_SCOPE_GONE_SCANS	16	/* refreshes a netns or device is remembered gone */

struct nm_opts;

struct nm_scope_cfg {
	/* the --netns set, n of them (0: every netns) */
	int n;
	const unsigned long *inos;
	const char *const *paths;	/* to enter each; NULL: the netns the tool runs in */
	const char *const *args;	/* as given: a name when the registry has none */
	unsigned long self_ino;		/* the netns the tool runs in */
	bool read_procs;		/* other users' /proc/PID/ns/net (CAP_SYS_PTRACE) */
	bool setns;			/* sockets in other namespaces (CAP_SYS_ADMIN) */
	size_t max_ns, max_ns_socks, max_devs;	/* 0: the defaults above */
	const char *proc, *run;		/* NULL: /proc and /run/netns (tests: a tree) */
	bool no_devnames;		/* no sockets at all (tests, a tool that names no device) */
};

/* A netns in scope, as the walk gives it. */
struct nm_scope_ns {
	unsigned long ino;
	char name[NM_NS_NAME];		/* nm_scope_ns_name's */
	const char *path;		/* to enter it (setns); NULL: the netns the tool runs in */
};

/* What did not fit, or could not be named. */
struct nm_scope_counts {
	size_t ns;			/* namespaces in scope that the registry knows */
	unsigned long ns_over;		/* namespaces not named: the registry's cap */
	unsigned long socks_over;	/* namespaces whose devices are not named: the socket cap */
	unsigned long socks_failed;	/* ... the socket could not be opened (setns refused) */
	unsigned long devs_over;	/* devices not named: the device cap */
};

struct nm_htab;

struct nm_scope {
	int n;
	unsigned long ino[NM_MAX_NETNS];
	char path[NM_MAX_NETNS][PATH_MAX];	/* "": the tool's own netns */
	char arg[NM_MAX_NETNS][NM_NS_NAME];
	unsigned long self_ino;
	bool read_procs, setns;
	struct nm_nsreg reg;
	struct nm_devnames *dev;		/* NULL: no device names (tests) */
	unsigned long socks_over, socks_failed;	/* of the last refresh */
	/*
	 * What went: namespaces the registry found gone, devices their
	 * socket said were deleted (key: inode, ifindex, 0 for the netns;
	 * value: the refresh that found it gone). NULL: out of memory.
	 */
	struct nm_htab *gone;
	unsigned int gen;			/* refreshes so far */
	unsigned long gone_over;		/* gone ones not remembered: the cap */
};

/*
 * The scope of cfg, its registry scanned once and its device names read:
 * 0, or -ENOMEM. A netns that cannot be named is not an error.
 */
int nm_scope_init(struct nm_scope *s, const struct nm_scope_cfg *cfg);
/* The scope o's --netns say (after nm_setup), with the privileges it found. */
int nm_scope_from_opts(struct nm_scope *s, const struct nm_opts *o);
/* The same without device names (no socket per netns): a tool that names no device. */
int nm_scope_from_opts_nodev(struct nm_scope *s, const struct nm_opts *o);
void nm_scope_free(struct nm_scope *s);

/*
 * Once a report: the registry scanned again, the device names of
 * namespaces that came added, of those gone dropped, and every socket's
 * changes taken (no wait).
 */
void nm_scope_refresh(struct nm_scope *s);

/*
 * Whether netns ino went (ifindex 0), or device ifindex of it: the
 * registry found the netns gone at one of the last NM_SCOPE_GONE_SCANS
 * refreshes and has not seen a netns of that inode since (inodes are
 * reused), or its socket said RTM_DELLINK and no device took the ifindex
 * since. A tool drops what it holds of them, quietly: packets a netns
 * sends while it is torn down come after the scan that found it gone. A
 * netns made since the last scan is not gone, just not known yet; one
 * whose inode a new netns took before a scan saw it gone never is.
 */
bool nm_scope_gone(const struct nm_scope *s, unsigned long ino, unsigned int ifindex);
/*
 * What a tool drops: nm_scope_gone's, and, host-wide with every /proc
 * readable, a netns the registry does not know right after its scan (a
 * tool's report scans first): one made and gone between two scans, which
 * BPF saw and no scan ever named. A netns held by nothing but an fd is
 * never in the registry either, and is dropped too (SCOPE in
 * docs/reference/NAME.md).
 * Not while the registry was over its cap at its last scan: it left live
 * namespaces out then.
 */
bool nm_scope_went(const struct nm_scope *s, unsigned long ino, unsigned int ifindex);
/* Whether nm_scope_went may say yes of anything: a tool may skip its pass when not. */
bool nm_scope_any_went(const struct nm_scope *s);
/* Whether anything is remembered gone: a tool may skip its pass when not. */
bool nm_scope_any_gone(const struct nm_scope *s);
/* Device ifindex of netns ino was deleted (RTM_DELLINK): remembered gone. */
void nm_scope_dev_deleted(struct nm_scope *s, unsigned long ino, unsigned int ifindex);

/* Whether ino is in scope (every netns when no --netns). */
bool nm_scope_has(const struct nm_scope *s, unsigned long ino);

/* The netns's name: the registry's, else its --netns as given, else its inode. */
const char *nm_scope_ns_name(const struct nm_scope *s, unsigned long ino, char *buf, size_t len);

/* A device's own name in its own netns, else "if<ifindex>" (not known yet, or over the cap). */
const char *nm_scope_dev_name(const struct nm_scope *s, unsigned long ino, unsigned int ifindex,
			      char *buf, size_t len);
/*
 * A device's TX queues (num_tx_queues), as its netns's socket says, in
 * any netns; 0 when not known (not named: see nm_scope_dev_name).
 */
unsigned int nm_scope_dev_ntxq(const struct nm_scope *s, unsigned long ino, unsigned int ifindex);

/*
 * The namespaces in scope, one a call from *pos = 0 on, into out: with
 * --netns, each of them; else each the registry knows. false at the end.
 */
bool nm_scope_next(const struct nm_scope *s, size_t *pos, struct nm_scope_ns *out);

/* The scope for a first line: "all", or the names of the --netns, comma-separated. */
const char *nm_scope_str(const struct nm_scope *s, char *buf, size_t len);

/* What the missing privileges lost, "a (why), b (why)"; "" when nothing was. */
const char *nm_scope_lost(const struct nm_scope *s, char *buf, size_t len);
/* ... where what no CAP_SYS_ADMIN loses is the tool's own: setns_lost, not the device names. */
const char *nm_scope_lost_as(const struct nm_scope *s, const char *setns_lost, char *buf, size_t len);

void nm_scope_counts(const struct nm_scope *s, struct nm_scope_counts *c);

/* The soft RLIMIT_NOFILE for want files: raised to want, at most hard, never lowered. */
rlim_t nm_scope_nofile(rlim_t soft, rlim_t hard, rlim_t want);

#endif /* NETMEDIC_LIB_SCOPE_H */
