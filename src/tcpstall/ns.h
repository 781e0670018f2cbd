/* SPDX-License-Identifier: GPL-2.0 */
/*
 * tcpstall_ns.h - the full sweep's way into each netns in scope, and
 * what the loader asks of the scope and of its sweeps.
 *
 * An iter/tcp iterator walks the TCP hash of one netns: the one its
 * creator was in at bpf_iter_create() (the seq_file's net, taken from
 * current->nsproxy). A sock_diag socket dumps the netns it was made in.
 * So a host-wide sweep needs, for each netns in scope, a way in: its
 * netns file, kept open, to setns into it on the sweep thread, create an
 * iterator and come back; or, on the sock_diag rung, a socket made there
 * (nm_nl_open_in). The netns tcpstall runs in needs neither.
 *
 * Each is opened once, when its netns comes into scope, and kept; closed
 * when the scope no longer lists it (a kept fd holds its netns alive).
 * Bounded: at most max_fds of them (counted when over); the namespaces
 * themselves are followed up to max_ns, so that one that goes is known
 * gone (the loop drops its records: s->gone, after each sync).
 *
 * Without CAP_SYS_ADMIN (setns) other namespaces are not swept in full:
 * the fast sweep's socket-storage iterator and the hooks still see them.
 *
 * Beside the set, what the loader asks of the sweeps: the scope's names
 * and its namespaces that come and go (the report's callbacks), which
 * iterator each rung gives and their first runs, one sweep's walk, and
 * the loop's clock (when to sweep, when to report, how long to sleep).
 * The decisions are pure; the iterators are the loader's, handed as
 * plain links (no skeleton here).
 */
#ifndef NETMEDIC_LIB_TCPSTALL_NS_H
#define NETMEDIC_LIB_TCPSTALL_NS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include "lib/run.h"
#include "lib/scope.h"
#include "tcpstall/diag.h"

#define TS_NS_MAX	NM_SCOPE_NS_MAX		/* namespaces followed (no fd each) */
#define TS_NS_FDS_MAX	NM_SCOPE_SOCKS_MAX	/* ... with a way in: an fd each */
/* iterators created in one trip through the namespaces (a visiting thread each) */
#define TS_NS_BATCH	32

struct bpf_link;
struct bpf_program;
struct mnl_socket;
struct nm_hook;

struct ts_ns {
	unsigned long ino;
	bool self;			/* the netns tcpstall runs in: no fd, no setns */
	int fd;				/* iterators: the netns, entered to create one; -1 none */
	struct mnl_socket *diag;	/* sock_diag: a socket made there; NULL none */
	unsigned int seen;		/* the sync that last listed it */
};

struct ts_nsset;

/* The way in, opened and closed: lib's own, or a test's. */
struct ts_ns_ops {
	/* ns's way in from path (NULL: the netns the thread is in); 0 or -errno, why in err */
	int (*open)(struct ts_nsset *s, struct ts_ns *ns, const char *path, char *err, size_t len);
	void (*close)(struct ts_nsset *s, struct ts_ns *ns);
};

struct ts_nsset {
	struct ts_ns *ns;		/* sorted by inode */
	size_t n, max_ns, max_fds, fds;
	bool diag;			/* sock_diag sockets, else netns fds for iterators */
	bool setns;			/* other namespaces may be entered (CAP_SYS_ADMIN) */
	bool trips;			/* the sweep visits the others (lib's ways in, iterators, setns) */
	unsigned int gen;
	const struct ts_ns_ops *ops;
	/* of the last sync */
	unsigned long *gone;		/* the namespaces it dropped: their inodes (max_ns room) */
	size_t ngone;
	size_t listed;			/* namespaces the scope listed */
	unsigned long over;		/* ... not followed, or with no way in: a cap */
	unsigned long failed;		/* ... whose way in could not be opened (retried) */
	unsigned long unentered;	/* ... not entered: no CAP_SYS_ADMIN */
	/* since the start */
	unsigned long closed;		/* ways in closed: their netns went */
	unsigned long sweep_failed;	/* namespaces a sweep could not enter or dump */
};

/*
 * A set for the sweeps of diag (sock_diag) or iterators, setns whether
 * others may be entered; max_ns, max_fds 0: the defaults; ops NULL:
 * lib's own (then, iterators and setns, the sweep visits the others). 0 or -errno.
 */
int ts_nsset_init(struct ts_nsset *s, bool diag, bool setns, size_t max_ns, size_t max_fds,
		  const struct ts_ns_ops *ops);
void ts_nsset_free(struct ts_nsset *s);

/*
 * After the scope's refresh: each netns it lists followed, a way into it
 * opened where there is none yet (retried after a failure); each one it
 * no longer lists closed and dropped, its inode in s->gone for the
 * loop to tell the report.
 */
void ts_nsset_sync(struct ts_nsset *s, const struct nm_scope *sc);

/* The namespace of ino, or NULL. */
struct ts_ns *ts_nsset_find(struct ts_nsset *s, unsigned long ino);

/* Namespaces with a way in (the sweep covers them), ours included. */
size_t ts_nsset_ways(const struct ts_nsset *s);

/*
 * One sweep through the iter/tcp link link_fd: an iterator created in
 * each netns with a way in (TS_NS_BATCH a trip, on a thread of its own:
 * nm_netns_visit), each read by read(fd, ino, arg) after the trip. A netns
 * that cannot be entered is counted (sweep_failed) and skipped. 0, -errno
 * when no visiting thread could be made, or read's first error of our own
 * netns.
 */
int ts_nsset_iter(struct ts_nsset *s, int link_fd,
		  int (*read)(int fd, unsigned long ino, void *arg), void *arg);

/* Which namespaces a sweep walks: those whose inode want(ino, arg) takes. */
struct ts_nsset_want {
	bool (*want)(unsigned long ino, void *arg);
	void *arg;
};

/* ts_nsset_iter through the namespaces w takes only (w NULL: every one). */
int ts_nsset_iter_some(struct ts_nsset *s, int link_fd, const struct ts_nsset_want *w,
		       int (*read)(int fd, unsigned long ino, void *arg), void *arg);

/*
 * The fast sweep's rung 2 (iter/tcp, one walk per netns) walks a netns
 * only while it has tagged sockets: the BPF side marks a netns
 * (ns_tagged) with the tag epoch whenever one of its sockets is tagged or
 * stays tagged in a sweep. marked: the netns has a mark, mark its epoch.
 * A netns unmarked for TS_TAG_EPOCHS_KEPT epochs has no tagged socket
 * (the full sweep still walks it, and tags what it finds sending).
 */
bool ts_tag_fresh(bool marked, uint32_t mark, uint32_t epoch);

/*
 * The tag epoch of the sweep numbered sweep (from 1): it moves every
 * TS_TAG_EPOCH_SWEEPS sweeps, so that a tagged socket marks its netns
 * once an epoch, not once a packet. Never 0: that is no mark.
 */
uint32_t ts_tag_epoch(uint64_t sweep);

/* Where ts_ns_tagged reads: the ns_tagged map, and the BPF side's tag epoch (its .bss). */
struct ts_tags {
	int ns_tagged_fd;
	const uint32_t *epoch;
};

/* Rung 2's want (struct ts_nsset_want, arg a struct ts_tags): the netns has a fresh mark. */
bool ts_ns_tagged(unsigned long ino, void *arg);

/*
 * One sweep through sock_diag: each netns with a socket dumped. A dump
 * that fails in another netns (it is going) is counted, its socket
 * closed (reopened at the next sync); one in ours is returned with err.
 */
int ts_nsset_diag(struct ts_nsset *s, uint16_t port, ts_diag_cb cb, void *arg, char *err,
		  size_t len);

/* ---- the scope: names, and the namespaces that come and go ---- */

/* A netns's name (ts_report.ns_name; scope: the struct nm_scope). */
const char *ts_ns_name(void *scope, unsigned long ino, char *buf, size_t len);
/*
 * A netns's name, and the --netns value that enters it (ts_act.ns_where;
 * scope: the struct nm_scope): its /run/netns name, else a pid in it,
 * else "". opt NULL: the name only.
 */
void ts_ns_where(void *scope, unsigned long ino, char *name, size_t nlen, char *opt, size_t olen);
/* Whether netns ino went (ts_report.gone; scope: the struct nm_scope): nm_scope_went. */
bool ts_ns_went(unsigned long ino, void *scope);
/* What missing privileges lost: the names, and the full sweeps of other namespaces ("": nothing). */
const char *ts_ns_lost(const struct nm_scope *sc, char *buf, size_t len);

/* ---- the sweeps' iterators ---- */

/* An iterator: its link (NULL: none) and the program a refusal of its run is put on. */
struct ts_iter {
	struct bpf_link *link;
	struct bpf_program *prog;
};

/* The loader's iterators, as its skeleton has them. */
struct ts_iters {
	struct ts_iter full;	/* ts_sweep: iter/tcp, every socket */
	struct ts_iter tags;	/* ts_sweep_tagged: the tagged sockets' storage map (by hand) */
	struct ts_iter fast;	/* ts_sweep_fast: iter/tcp, the tagged sockets sampled */
	struct ts_iter kick;	/* ts_kick: --fix=kick */
};

/*
 * After the skeleton's attach: with no rung that tags senders, the fast
 * hook set aside (its "none" rung) and it->fast's link destroyed; rung 1
 * of the fast sweep iterates the storage map of tagged sockets (map_fd),
 * and a map iterator needs its map: it->tags's link attached here, by
 * hand (destroyed again when a first run fails: the next attempt reopens
 * the object). Then ts_iters_check. 0, or -errno, *failed and *stage
 * ("attach", "run") as a skeleton's attach step says them (lib/skel.h).
 */
int ts_iters_attach(struct ts_iters *it, struct nm_hook *hooks, int map_fd,
		    struct bpf_program **failed, const char **stage);

/* The fast sweep's iterator, as its rung says (TS_HOOK_FAST): NULL without one. */
const struct ts_iter *ts_iters_fast(const struct ts_iters *it, const struct nm_hook *hooks);

/* iterators whose first run checks their rung, at most */
#define TS_ITERS_RUNS	3
/*
 * Those the chosen rungs run, in the order of their first runs (the full
 * sweep's, the fast one's, the kick's): their number, in out.
 */
size_t ts_iters_runs(const struct ts_iters *it, const struct nm_hook *hooks, struct ts_iter *out);
/*
 * Their first runs (the kicks map is empty: a kick pass that kicks
 * nothing). 0, or the first refusal's -errno, *failed its program; *stage
 * is "run": a refused one takes its hook's next rung.
 */
int ts_iters_check(const struct ts_iters *it, const struct nm_hook *hooks,
		   struct bpf_program **failed, const char **stage);

/* The walk a sweep takes. */
enum ts_walk {
	TS_WALK_TAGS,	/* the tagged sockets' storage map: every netns at once */
	TS_WALK_FAST,	/* the fast iter/tcp, in each netns with a way in and tags (want) */
	TS_WALK_FULL,	/* the full iter/tcp, in each */
	TS_WALK_DIAG,	/* sock_diag, in each (iter/tcp refused) */
};

/*
 * A sweep's walk: a full one (every sweep without a fast sweep, fast
 * false) by iter/tcp, or sock_diag where diag; a fast one by the tagged
 * map (tags: its rung) or by iter/tcp.
 */
enum ts_walk ts_walk_of(bool full, bool fast, bool tags, bool diag);

/*
 * One sweep by walk w, each sample to cb: link its iterator (TAGS, FAST,
 * FULL), port sock_diag's filter (DIAG, err why it failed); want the
 * namespaces FAST walks (NULL: every one). 0 or -errno.
 */
int ts_nsset_sweep(struct ts_nsset *s, enum ts_walk w, struct bpf_link *link,
		   const struct ts_nsset_want *want, uint16_t port, ts_diag_cb cb, void *arg,
		   char *err, size_t len);

/* ---- the sweep loop's clock ---- */

/* the full sweep's period beside fast ones: it finds sockets they do not follow yet */
#define TS_FULL_SWEEP_MS	1000

/*
 * When the loop sweeps, which sweeps are full, when it reports, when it
 * wakes; pure, in CLOCK_MONOTONIC ns. A sweep is due its period after
 * the last one's pass ended, longer when it cost more CPU than the budget
 * allows (ts_sweep_wait_ns). Beside fast sweeps a full one comes first,
 * then every TS_FULL_SWEEP_MS, budgeted too: each netns's walk is one of
 * the whole established table (shared unless tcp_child_ehash_entries is
 * set), so on a host of many the full sweeps alone keep to it. Reports
 * keep the interval's grid (lib/run.h's ticker) whatever a sweep's wait:
 * where a sweep of many namespaces takes long, its wait may pass the
 * interval (the scope churn saw 43 reports in 50 s at -i 0.5).
 */
struct ts_sched {
	uint64_t sweep_ns;		/* the sweep's period (--sweep) */
	bool fast;			/* fast sweeps run: full ones keep a clock of their own */
	struct nm_ticker reports;
	uint64_t sweep_at, full_at;	/* 0: at once */
	uint64_t report_at;
	uint64_t wait_ns;		/* the wait after the last sweep (the report shows it) */
};

/* Sweeps every sweep_ms, fast ones or not; reports as lib/run.h's ticker. */
void ts_sched_init(struct ts_sched *k, unsigned int sweep_ms, bool fast, double interval, long count);
/* The loop starts at now: a full sweep at once, the first report one interval on. */
void ts_sched_start(struct ts_sched *k, uint64_t now);
/* Whether a sweep is due at now, and whether it is a full one. */
bool ts_sched_sweep_due(const struct ts_sched *k, uint64_t now);
bool ts_sched_full(const struct ts_sched *k, uint64_t now);
/*
 * A sweep (full or not) that began at t0 took cpu_ns of the thread's CPU
 * (the kernel's walk runs in our read or recvmsg: a sweep preempted on a
 * busy host must not space the next ones out); its pass ended at now.
 */
void ts_sched_swept(struct ts_sched *k, bool full, uint64_t t0, uint64_t cpu_ns, uint64_t now);
bool ts_sched_report_due(const struct ts_sched *k, uint64_t now);
/* A report was made at now: false when it was --count's last, else the next one's time set. */
bool ts_sched_reported(struct ts_sched *k, uint64_t now);
/* When the loop wakes: the next sweep or the next report, whichever is first. */
uint64_t ts_sched_wake(const struct ts_sched *k);
/* This thread's CPU time, ns: what the budget counts. */
uint64_t ts_thread_cpu_ns(void);
/* The full sweeps' period (the first line): TS_FULL_SWEEP_MS beside fast ones, else the sweep's. */
uint64_t ts_sched_full_ms(const struct ts_sched *k);

#endif
