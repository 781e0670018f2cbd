/* SPDX-License-Identifier: GPL-2.0 */
/*
 * nsreg.h - the host's network namespaces, found and named.
 *
 * On a container host the sick socket or queue is usually inside a pod's
 * netns. A registry scan finds every netns a process is in
 * (/proc/PID/ns/net) and every one `ip netns add` bind-mounted
 * (/run/netns/NAME), deduplicated by inode (what BPF sees as
 * net->ns.inum), and follows them as they come and go, one scan an
 * interval.
 *
 * A netns is named once, when first seen, and keeps its name while it
 * lives: its /run/netns name if it has one, else "host" for the initial
 * netns (kthreadd's, pid 2: kernel threads never leave init_net), else
 * "COMM:PID" of the lowest pid in it when it was found. A /run/netns name that appears later wins;
 * one that goes leaves the name as it was, and the path a live pid's.
 * The registry holds no file descriptor: it never keeps a dead
 * container's namespace alive.
 */
#ifndef NETMEDIC_LIB_NSREG_H
#define NETMEDIC_LIB_NSREG_H

#include <stdbool.h>
#include <stddef.h>

#define NM_NS_NAME	64

struct nm_ns {
	unsigned long ino;
	char name[NM_NS_NAME];	/* the /run/netns name, "host", or "COMM:PID" */
	char path[80];		/* to enter it: /run/netns/NAME or /proc/PID/ns/net */
	int pid;		/* the pid it was named after; 0 for a /run/netns name */
	bool named;		/* name is a /run/netns name, still there */
	unsigned int seen;	/* the scan that last saw it */
	unsigned int born;	/* the scan that found it */
	unsigned int run_seen;	/* the scan that last saw its /run/netns name */
	int live_pid;		/* the lowest pid in it in the last scan, 0: none */
};

struct nm_nsreg {
	struct nm_ns *ns;
	size_t n, cap;
	unsigned int gen;
	const char *proc;	/* "/proc", or a test's tree */
	const char *run;	/* "/run/netns", or a test's tree */
	/* lookups of the last scan whose netns was not tracked: cap is reached */
	unsigned long over;
	/* the initial netns (pid 2's), 0 until read: its link needs ptrace access */
	unsigned long init_ino;
};

/* The result of one scan: namespaces new in it, and gone since the last. */
struct nm_nsreg_delta {
	size_t added, removed;
};

/*
 * A registry of at most cap namespaces; proc and run NULL for /proc and
 * /run/netns. 0 or -ENOMEM.
 */
int nm_nsreg_init(struct nm_nsreg *r, const char *proc, const char *run, size_t cap);
void nm_nsreg_free(struct nm_nsreg *r);

/*
 * Scans /proc and /run/netns. A namespace no longer found is removed,
 * after gone (may be NULL) is called with it. 0, or -errno when /proc
 * cannot be read (the registry is then unchanged).
 */
int nm_nsreg_scan(struct nm_nsreg *r, struct nm_nsreg_delta *d,
		  void (*gone)(const struct nm_ns *ns, void *arg), void *arg);

/* The namespace of inode ino, or NULL. */
const struct nm_ns *nm_nsreg_find(const struct nm_nsreg *r, unsigned long ino);

/* The inode in a /proc/PID/ns/net link's text, "net:[4026531840]"; 0 for another text. */
unsigned long nm_ns_link_ino(const char *text);

/* The name of the initial netns, unless a /run/netns name names it. */
#define NM_NS_HOST	"host"

/* The name a netns gets after a process in it: "COMM:PID", comm's odd bytes as '?'. */
void nm_ns_proc_name(char *buf, size_t len, const char *comm, int pid);

#endif /* NETMEDIC_LIB_NSREG_H */
