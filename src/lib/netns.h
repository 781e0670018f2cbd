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
