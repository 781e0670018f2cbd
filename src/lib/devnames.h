/* SPDX-License-Identifier: GPL-2.0 */
/*
 * devnames.h - device names in every netns, kept current, and each
 * device's count of TX queues (its link message has both).
 *
 * BPF sees a device as (netns inode, ifindex); a user knows it as eth0 in
 * a pod. For each netns followed, one rtnetlink socket is opened inside
 * it (setns there and back, on the calling thread only) and kept: a dump
 * of its links names every device at once, and its RTMGRP_LINK
 * subscription brings renames, moves and deletions as they happen. A
 * socket keeps its netns, so no setns is needed after the open; it also
 * holds a reference to it: drop a netns as soon as the registry (nsreg.h)
 * says it is gone, and it outlives its last process by one scan at most.
 */
#ifndef NETMEDIC_LIB_DEVNAMES_H
#define NETMEDIC_LIB_DEVNAMES_H

#include <net/if.h>
#include <stdbool.h>
#include <stddef.h>

#include <libmnl/libmnl.h>

struct nm_devnames;

/* A link message's facts: what RTM_NEWLINK or RTM_DELLINK says of a device. */
struct nm_link_msg {
	unsigned int ifindex;
	char name[IF_NAMESIZE];
	/*
	 * IFLA_NUM_TX_QUEUES: the TX queues the device was made with
	 * (num_tx_queues; real_num_tx_queues is never more); 0: not said.
	 */
	unsigned int ntxq;
	bool gone;		/* RTM_DELLINK */
};

/* 0, or -EINVAL for another message or one that does not validate. */
int nm_link_parse(const struct nlmsghdr *nlh, struct nm_link_msg *out);

/* Room for max_ns namespaces and max_devs devices in all. NULL on ENOMEM. */
struct nm_devnames *nm_devnames_new(size_t max_ns, size_t max_devs);
void nm_devnames_free(struct nm_devnames *d);

/*
 * Follows netns ino, entered by path: opens its socket and names its
 * devices. 0 (also when already followed), or -errno with err.
 */
int nm_devnames_add(struct nm_devnames *d, unsigned long ino, const char *path, char *err,
		    size_t len);

/* Stops following netns ino (it is gone): its socket and names go. */
void nm_devnames_drop(struct nm_devnames *d, unsigned long ino);

/*
 * Takes what every followed netns said since the last call, without
 * waiting. A socket that overran (ENOBUFS: events were lost) dumps its
 * links again. The number of changes taken.
 */
size_t nm_devnames_poll(struct nm_devnames *d);

/* The name of ifindex in netns ino, or NULL when not known. */
const char *nm_devnames_get(struct nm_devnames *d, unsigned long ino, unsigned int ifindex);
/*
 * The TX queues of ifindex in netns ino (its num_tx_queues, as its link
 * messages say: in any netns, where sysfs shows only the tool's own),
 * or 0 when not known.
 */
unsigned int nm_devnames_ntxq(struct nm_devnames *d, unsigned long ino, unsigned int ifindex);

/*
 * fn is called with each device a followed netns's socket says was deleted
 * (RTM_DELLINK: removed, or moved to another netns), as nm_devnames_poll
 * takes it. Not for the devices of a netns dropped, nor those an overrun
 * hid (the new dump just lacks them).
 */
void nm_devnames_on_deleted(struct nm_devnames *d,
			    void (*fn)(unsigned long ino, unsigned int ifindex, void *arg), void *arg);

/* Devices that could not be named because the table is full (bounded). */
unsigned long nm_devnames_over(const struct nm_devnames *d);

#endif /* NETMEDIC_LIB_DEVNAMES_H */
