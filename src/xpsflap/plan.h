/* SPDX-License-Identifier: GPL-2.0 */
/*
 * xpsflap's --pin policy, pure: from what the loader read of one device
 * (its TX queues and their XPS maps, whether the pin program loaded), the
 * plan that lib/plan.c's executor carries out: each XPS map cleared (a
 * sysfs file, journaled), then the clsact qdisc and the tc egress filter
 * that choose the queue (nm_plan_tc_bpf: made by the executor through
 * libbpf, undone by tc commands that are journaled first).
 */
#ifndef NETMEDIC_XPSFLAP_PLAN_H
#define NETMEDIC_XPSFLAP_PLAN_H

#include <stdbool.h>
#include <stddef.h>
#include "lib/plan.h"

/* One TX queue as read from /sys/class/net/DEV/queues. */
struct xf_pin_queue {
	char name[16];		/* "tx-3" */
	char xps[256];		/* its xps_cpus, as read */
	bool read;		/* false: no readable xps_cpus (left alone) */
};

struct xf_pin_dev {
	const char *dev;
	const char *tag;	/* its error lines' prefix ("--pin eth0"): outlives the plan */
	unsigned int ifindex;
	int ntxq;		/* nm_dev_ntxq */
	const struct xf_pin_queue *q;	/* the tx-N entries, in directory order */
	size_t nq;
	int prog_fd;		/* the pin program; < 0: its rung was refused */
};

/*
 * --pin on one device: a note when it has fewer than two TX queues; else
 * each set XPS map cleared ("0"), the count, and, with the program, the
 * clsact qdisc and the filter. Every change is required: one that fails
 * leaves the device's later ones, as the loader did. 0 or -errno.
 */
int xf_pin_plan(const struct xf_pin_dev *d, struct nm_plan *p);

#endif
