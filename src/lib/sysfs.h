/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Reading the small files of sysfs and /proc/sys: a line, a number, the TX
 * queues of a device. /sys/class/net is the tool's netns's (--netns mounts
 * that netns's sysfs).
 */
#ifndef NETMEDIC_LIB_SYSFS_H
#define NETMEDIC_LIB_SYSFS_H

#include <stddef.h>

/* The first line of path, its newline stripped ("" when empty): 0 or -errno. */
int nm_sysfs_line(const char *path, char *buf, size_t len);
/* The number path starts with, else dflt (absent, unreadable, not a number). */
long nm_sysfs_long(const char *path, long dflt);
/* How many entries of directory dir start with prefix: the count or -errno. */
int nm_dir_count(const char *dir, const char *prefix);
/* The TX queues of device dev (its /sys/class/net/DEV/queues/tx-N): the count or -errno. */
int nm_dev_ntxq(const char *dev);
/* The same by ifindex, in the tool's netns: 0 when the device or its queues are not found. */
int nm_ifindex_ntxq(unsigned int ifindex);

#endif
