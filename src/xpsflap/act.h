/* SPDX-License-Identifier: GPL-2.0 */
/*
 * xpsflap's act step: --pin carried out. Each --dev device is read (its TX
 * queues and their XPS maps), planned (xf_pin_plan, pure) and made by the
 * one executor in a journal of its own, which also adds the clsact qdisc
 * and the tc egress filter (through libbpf). The pin map's entry, the pin
 * program's own state, is set here before.
 * Everything is undone at exit, or by `xpsflap --cleanup` after a crash.
 */
#ifndef NETMEDIC_XPSFLAP_ACT_H
#define NETMEDIC_XPSFLAP_ACT_H

#include "lib/cli.h"
#include "lib/journal.h"

struct xf_pin {
	const struct nm_opts *o;	/* --dev, --netns, and the lines' prefix */
	int prog_fd;			/* the pin program (xf_pin_tc); < 0: its rung was refused */
	int devs_fd;			/* the pin_devs map */
	struct nm_journal *j[NM_MAX_DEVS];
	char tag[NM_MAX_DEVS][48];	/* "--pin DEV": its plan's error lines */
};

/* Pins every --dev device, in order: 0, or an exit code (said). */
int xf_pin_start(struct xf_pin *ps);
/* Undoes every device's changes; a failed undo makes the exit status 1. */
int xf_pin_stop(struct xf_pin *ps);

#endif
