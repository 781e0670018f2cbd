// SPDX-License-Identifier: GPL-2.0
/*
 * xpsflap's --pin policy: what to change on a device, given what the
 * loader read of it. No I/O: the executor writes the files and attaches
 * the tc program.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "xpsflap/xpsflap.h"
#include "xpsflap/judge.h"
#include "xpsflap/plan.h"
#include "lib/cli.h"

/* Every action of a device is one remedy: a failure leaves the rest. */
#define PIN	1u

static int clear_xps(const struct xf_pin_dev *d, struct nm_plan *p, int *cleared)
{
	struct nm_action a = { .kind = NM_ACT_FILE, .flags = NM_ACT_REQUIRED | NM_ACT_BARE,
			       .remedy = PIN, .tag = d->tag };
	int ret;

	*cleared = 0;
	for (size_t i = 0; i < d->nq; i++) {
		const struct xf_pin_queue *q = &d->q[i];

		if (!q->read || !xf_xps_mask_set(q->xps))
			continue;
		if (snprintf(a.target, sizeof(a.target), "/sys/class/net/%s/queues/%s/xps_cpus", d->dev,
			     q->name) >= (int)sizeof(a.target))
			return -ENAMETOOLONG;
		snprintf(a.what, sizeof(a.what), "pin: %s %s xps_cpus", d->dev, q->name);
		snprintf(a.val, sizeof(a.val), "0");
		ret = nm_plan_add(p, &a);
		if (ret < 0)
			return ret;
		*cleared += !ret;
	}
	return 0;
}

static int pin_tc(const struct xf_pin_dev *d, struct nm_plan *p)
{
	int ret = nm_plan_tc_bpf(p, PIN, d->tag, d->dev, d->ifindex, false, XF_PIN_TC_PRIO,
				 XF_PIN_TC_HANDLE, d->prog_fd);

	if (ret)
		return ret < 0 ? ret : 0;
	return nm_plan_line(p, "pin: %s: tc egress filter pref %u handle 0x%x chooses the queue from the 5-tuple",
			    d->dev, XF_PIN_TC_PRIO, XF_PIN_TC_HANDLE);
}

int xf_pin_plan(const struct xf_pin_dev *d, struct nm_plan *p)
{
	int cleared, ret;

	if (d->ntxq < 2) {
		ret = nm_plan_note(p, PIN, "pin", "%s has %d TX queue: nothing can flap there, nothing changed",
				   d->dev, d->ntxq);
		return ret < 0 ? ret : 0;
	}
	ret = clear_xps(d, p, &cleared);
	if (!ret && d->nq >= 2)
		ret = nm_plan_note(p, PIN, "pin", "%s: %d XPS map(s) cleared", d->dev, cleared);
	if (ret < 0)
		return ret;
	/* the pin hook's rung was refused: the first line says so */
	if (d->prog_fd < 0) {
		ret = nm_plan_note(p, PIN, "pin", "%s: no tc program here: the kernel's flow hash picks each flow's queue",
				   d->dev);
		return ret < 0 ? ret : 0;
	}
	return pin_tc(d, p);
}
