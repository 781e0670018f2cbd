// SPDX-License-Identifier: GPL-2.0
/*
 * The undo of tc records (tcundo.h): it runs in the journal's netns, at
 * exit or in --cleanup, and looks before it deletes.
 */
#include <errno.h>
#include <net/if.h>
#include <stdio.h>
#include <string.h>
#include <linux/pkt_sched.h>
#include <bpf/libbpf.h>
#include "lib/plan.h"
#include "lib/rtnl.h"
#include "lib/tcundo.h"

enum nm_tc_undo_step nm_tc_undo_step(bool filter, bool dev, bool clsact, bool found, bool busy)
{
	if (!dev)
		return NM_TC_UNDO_DEV_GONE;
	if (!clsact)
		return NM_TC_UNDO_NO_CLSACT;
	if (filter)
		return found ? NM_TC_UNDO_DELETE : NM_TC_UNDO_NO_FILTER;
	return busy ? NM_TC_UNDO_IN_USE : NM_TC_UNDO_DELETE;
}

/* A record's fields read back as the action they undo (nm_tc_target). 0, or -EINVAL. */
static int record_target(const char *const *f, int nf, bool filter, struct nm_tc_target *t)
{
	struct nm_action a = { .kind = filter ? NM_ACT_TC_FILTER : NM_ACT_TC_CLSACT };
	size_t n = snprintf(a.target, sizeof(a.target), "%s", filter ? "filter" : "clsact");

	if (nf != (filter ? 5 : 2))
		return -EINVAL;
	for (int i = 0; i < nf && n < sizeof(a.target); i++)
		n += snprintf(a.target + n, sizeof(a.target) - n, "\t%s", f[i]);
	if (n >= sizeof(a.target))
		return -EINVAL;
	return nm_tc_target(&a, t);
}

static int is_clsact(const struct nm_qdisc_stats *q, void *arg)
{
	(void)arg;
	return !strcmp(q->kind, "clsact");
}

/* The filters on the clsact of t's device, both directions: their number, or -errno with msg. */
static int clsact_filters(const struct nm_tc_target *t, char *msg, size_t len)
{
	const unsigned int dirs[] = { TC_H_MIN_INGRESS, TC_H_MIN_EGRESS };
	char err[256];
	int n = 0, ret;

	for (int i = 0; i < 2; i++) {
		ret = nm_rtnl_filter_count(t->ifindex, TC_H_MAKE(TC_H_CLSACT, dirs[i]), err, sizeof(err));
		if (ret < 0) {
			snprintf(msg, len, "%s: tc filters: %s", t->dev, err);
			return ret;
		}
		n += ret;
	}
	return n;
}

/* What is there now, for nm_tc_undo_step. 0, or -errno with msg. */
static int look(const struct nm_tc_target *t, bool filter, bool *dev, bool *clsact, bool *found,
		bool *busy, char *msg, size_t len)
{
	char name[IF_NAMESIZE], err[256];
	int ret;

	*dev = *clsact = *found = *busy = false;
	if (!if_indextoname(t->ifindex, name)) {
		if (errno == ENXIO || errno == ENODEV)
			return 0;
		ret = -errno;
		snprintf(msg, len, "%s (ifindex %u): %s", t->dev, t->ifindex, strerror(errno));
		return ret;
	}
	*dev = true;
	ret = nm_rtnl_qdisc_dump(t->ifindex, is_clsact, NULL, err, sizeof(err));
	if (ret < 0) {
		snprintf(msg, len, "%s: qdiscs: %s", t->dev, err);
		return ret;
	}
	*clsact = ret == 1;
	if (!*clsact)
		return 0;
	if (!filter) {
		ret = clsact_filters(t, msg, len);
		*busy = ret > 0;
		return ret < 0 ? ret : 0;
	}
	LIBBPF_OPTS(bpf_tc_hook, hook, .ifindex = t->ifindex,
		    .attach_point = t->ingress ? BPF_TC_INGRESS : BPF_TC_EGRESS);
	LIBBPF_OPTS(bpf_tc_opts, q, .handle = t->handle, .priority = t->pref);
	ret = bpf_tc_query(&hook, &q);
	if (ret && ret != -ENOENT) {
		snprintf(msg, len, "%s: tc filter query: %s", t->dev, strerror(-ret));
		return ret;
	}
	*found = !ret;
	return 0;
}

static int undo_tc(const char *const *f, int nf, char *msg, size_t len, bool filter)
{
	const char *dir;
	struct nm_tc_target t;
	bool dev, clsact, found, busy;
	char what[128];
	int ret;

	if (record_target(f, nf, filter, &t)) {
		snprintf(msg, len, "not a %s record", filter ? NM_TC_FILTER_KIND : NM_TC_CLSACT_KIND);
		return -EINVAL;
	}
	dir = t.ingress ? "ingress" : "egress";
	if (filter)
		snprintf(what, sizeof(what), "tc %s filter pref %u handle 0x%x of %s", dir, t.pref, t.handle, t.dev);
	else
		snprintf(what, sizeof(what), "the clsact qdisc of %s", t.dev);
	ret = look(&t, filter, &dev, &clsact, &found, &busy, msg, len);
	if (ret)
		return ret;
	switch (nm_tc_undo_step(filter, dev, clsact, found, busy)) {
	case NM_TC_UNDO_DEV_GONE:
		snprintf(msg, len, "%s: gone with its device", what);
		return 0;
	case NM_TC_UNDO_NO_CLSACT:
		snprintf(msg, len, "%s: %s", what, filter ? "gone with its clsact qdisc" : "not there, nothing to remove");
		return 0;
	case NM_TC_UNDO_NO_FILTER:
		snprintf(msg, len, "%s: not there, nothing to remove", what);
		return 0;
	case NM_TC_UNDO_IN_USE:
		snprintf(msg, len, "%s: left in place: it holds tc filters netmedic did not make", what);
		return 0;
	case NM_TC_UNDO_DELETE:
		break;
	}
	LIBBPF_OPTS(bpf_tc_hook, hook, .ifindex = t.ifindex,
		    .attach_point = filter ? (t.ingress ? BPF_TC_INGRESS : BPF_TC_EGRESS)
					   : BPF_TC_INGRESS | BPF_TC_EGRESS);
	LIBBPF_OPTS(bpf_tc_opts, o, .handle = t.handle, .priority = t.pref);
	ret = filter ? bpf_tc_detach(&hook, &o) : bpf_tc_hook_destroy(&hook);
	if (ret)
		snprintf(msg, len, "cannot remove %s: %s", what, strerror(-ret));
	else
		snprintf(msg, len, "removed %s", what);
	return ret;
}

static int undo_clsact(const char *const *f, int nf, char *msg, size_t len, void *arg)
{
	(void)arg;
	return undo_tc(f, nf, msg, len, false);
}

static int undo_filter(const char *const *f, int nf, char *msg, size_t len, void *arg)
{
	(void)arg;
	return undo_tc(f, nf, msg, len, true);
}

int nm_tc_undo_register(void)
{
	int ret = nm_journal_exec(NM_TC_CLSACT_KIND, undo_clsact, NULL);

	return ret ? ret : nm_journal_exec(NM_TC_FILTER_KIND, undo_filter, NULL);
}
