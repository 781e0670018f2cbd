// SPDX-License-Identifier: GPL-2.0
/*
 * xpsflap's --pin policy: what to change on a device, given what the
 * loader read of it. No I/O: the executor writes the files, and the
 * loader's call attaches through libbpf.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "netmedic/xpsflap.h"
#include "detect/xpsflap_detect.h"
#include "detect/xpsflap_plan.h"
#include "lib/cli.h"

#define XF_PIN_WORDS	8

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
	char ifs[16], ntx[16], prio[16], handle[16];
	const char *del_qdisc[] = { "tc", "qdisc", "del", "dev", d->dev, "clsact", NULL };
	const char *del_filter[] = { "tc", "filter", "del", "dev", d->dev, "egress", "pref", prio,
				     "handle", handle, "bpf", NULL };
	int ret;

	snprintf(ifs, sizeof(ifs), "%u", d->ifindex);
	snprintf(ntx, sizeof(ntx), "%zu", d->nq);
	snprintf(prio, sizeof(prio), "%u", XF_PIN_TC_PRIO);
	snprintf(handle, sizeof(handle), "0x%x", XF_PIN_TC_HANDLE);
	/* only a clsact qdisc this instance creates is deleted again: one found there is 1 */
	ret = nm_plan_call(p, PIN, d->tag, (const char *const[]){ "clsact", d->dev, ifs, ntx, NULL },
			   del_qdisc, "");
	if (ret < 0)
		return ret;
	p->a[p->n - 1].flags |= NM_ACT_REQUIRED;
	ret = nm_plan_call(p, PIN, d->tag, (const char *const[]){ "filter", d->dev, ifs, ntx, NULL },
			   del_filter, "");
	if (ret)
		return ret < 0 ? ret : 0;
	p->a[p->n - 1].flags |= NM_ACT_REQUIRED;
	return nm_plan_line(p, "pin: %s: tc egress filter pref %s handle %s chooses the queue from the 5-tuple",
			    d->dev, prio, handle);
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
	if (!d->have_prog) {
		ret = nm_plan_note(p, PIN, "pin", "%s: no tc program here: the kernel's flow hash picks each flow's queue",
				   d->dev);
		return ret < 0 ? ret : 0;
	}
	return pin_tc(d, p);
}

int xf_pin_target(const struct nm_action *a, struct xf_pin_target *t)
{
	char words[sizeof(a->target)];
	const char *w[XF_PIN_WORDS];

	if (a->kind != NM_ACT_CALL)
		return -EINVAL;
	snprintf(words, sizeof(words), "%s", a->target);
	if (nm_plan_argv(words, w, XF_PIN_WORDS) != 4)
		return -EINVAL;
	if (!strcmp(w[0], "clsact"))
		t->what = XF_PIN_CLSACT;
	else if (!strcmp(w[0], "filter"))
		t->what = XF_PIN_FILTER;
	else
		return -EINVAL;
	if (snprintf(t->dev, sizeof(t->dev), "%s", w[1]) >= (int)sizeof(t->dev) ||
	    nm_parse_uint(w[2], &t->ifindex) || nm_parse_uint(w[3], &t->ntx))
		return -EINVAL;
	return 0;
}
