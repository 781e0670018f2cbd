/* SPDX-License-Identifier: GPL-2.0 */
/*
 * tcpstall_ns.h - the full sweep's way into each netns in scope.
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
 * gone (the loader drops its records).
 *
 * Without CAP_SYS_ADMIN (setns) other namespaces are not swept in full:
 * the fast sweep's socket-storage iterator and the hooks still see them.
 */
#ifndef NETMEDIC_LIB_TCPSTALL_NS_H
#define NETMEDIC_LIB_TCPSTALL_NS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include "lib/scope.h"
#include "lib/tcpstall_diag.h"

#define TS_NS_MAX	NM_SCOPE_NS_MAX		/* namespaces followed (no fd each) */
#define TS_NS_FDS_MAX	NM_SCOPE_SOCKS_MAX	/* ... with a way in: an fd each */
/* iterators created in one trip through the namespaces, before the way home */
#define TS_NS_BATCH	32

struct mnl_socket;

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
	int home;			/* this thread's netns, to come back to; -1 none */
	unsigned int gen;
	const struct ts_ns_ops *ops;
	/* of the last sync */
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
 * lib's own (home is then this thread's netns, opened here). 0 or -errno.
 */
int ts_nsset_init(struct ts_nsset *s, bool diag, bool setns, size_t max_ns, size_t max_fds,
		  const struct ts_ns_ops *ops);
void ts_nsset_free(struct ts_nsset *s);

/*
 * After the scope's refresh: each netns it lists followed, a way into it
 * opened where there is none yet (retried after a failure); each one it
 * no longer lists closed and dropped, gone(ino) told first.
 */
void ts_nsset_sync(struct ts_nsset *s, const struct nm_scope *sc,
		   void (*gone)(unsigned long ino, void *arg), void *arg);

/* The namespace of ino, or NULL. */
struct ts_ns *ts_nsset_find(struct ts_nsset *s, unsigned long ino);

/* Namespaces with a way in (the sweep covers them), ours included. */
size_t ts_nsset_ways(const struct ts_nsset *s);

/*
 * One sweep through the iter/tcp link link_fd: an iterator created in
 * each netns with a way in (TS_NS_BATCH a trip, then home), each read by
 * read(fd, ino, arg) after the trip. A netns that cannot be entered is
 * counted (sweep_failed) and skipped. 0, -errno when the thread cannot
 * come home (it must not go on), or read's first error of our own netns.
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
 * One sweep through sock_diag: each netns with a socket dumped. A dump
 * that fails in another netns (it is going) is counted, its socket
 * closed (reopened at the next sync); one in ours is returned with err.
 */
int ts_nsset_diag(struct ts_nsset *s, uint16_t port, ts_diag_cb cb, void *arg, char *err,
		  size_t len);

#endif
