/* SPDX-License-Identifier: GPL-2.0 */
/*
 * netns.h - entering network namespaces the way `ip netns exec` does.
 */
#ifndef NETMEDIC_LIB_NETNS_H
#define NETMEDIC_LIB_NETNS_H

#include <stddef.h>

/* Where `ip netns add NAME` bind-mounts named namespaces. */
#define NM_NETNS_RUN_DIR "/run/netns"

/*
 * Enter a network namespace given as a name (looked up as /run/netns/NAME, like `ip netns`) or a path
 * (e.g. /proc/PID/ns/net). Like `ip netns exec`, also unshare the mount namespace and remount /sys so that
 * /sys/class/net shows the devices of the new netns. Returns 0 or -errno, reason in err.
 *
 * Unlike `ip netns exec`, the mounts below /sys (/sys/fs/bpf, /sys/kernel/tracing, /sys/fs/cgroup, ...)
 * are carried over into the new /sys when the kernel allows it, because BPF loading needs them.
 * Must be called while the process is single-threaded (unshare(CLONE_NEWNS) fails otherwise).
 * On failure after the netns switch the process is left half-switched; callers should give up.
 */
int nm_netns_enter(const char *name_or_path, char *err, size_t errlen);

/*
 * fn(arg) run on a thread of its own, which ends after it: fn may enter
 * other network namespaces (setns) and need not come back. Why: another
 * process learns the namespaces in use from /proc/PID/ns/net, which is
 * the main thread's (lib/nsreg.c does, as ip netns identify does). A main
 * thread that visits a netns just deleted shows it in use; a tool that
 * looks then opens it and keeps it, and two netmedic tools each kept it
 * for the other for as long as both ran. A socket or BPF iterator made on
 * the visiting thread keeps that netns when the caller uses it.
 * fn's value, or -errno when no thread could be made.
 */
int nm_netns_visit(int (*fn)(void *arg), void *arg);

/* 0 when path is a network namespace (nsfs, CLONE_NEWNET), else -errno (-EINVAL: another file). */
int nm_netns_check(const char *path);

/* Inode number of a netns (name/path), or of the current one when name_or_path is NULL; 0 on error. */
unsigned long nm_netns_inode(const char *name_or_path);

/*
 * Resolve to the path used for entering ("/run/netns/NAME" for a name, or the path itself).
 * Anything containing a '/' is a path. Returns buf, or NULL when name_or_path is NULL/empty or does not fit.
 */
const char *nm_netns_path(const char *name_or_path, char *buf, size_t len);

/*
 * One line of /proc/self/mountinfo: its mount id, parent id and mount point
 * (as the kernel escapes it, at most NM_MOUNTINFO_PATH - 1 bytes kept).
 * 0, or -1 for a line without them.
 */
#define NM_MOUNTINFO_PATH	512
int nm_mountinfo_line(const char *line, int *id, int *parent, char mnt[NM_MOUNTINFO_PATH]);

#endif /* NETMEDIC_LIB_NETNS_H */
