// SPDX-License-Identifier: GPL-2.0
/*
 * xpsflap's act step (xpsflap_act.h): the I/O of --pin, the policy being
 * xf_pin_plan's (src/xpsflap/plan.c).
 */
#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <bpf/bpf.h>
#include "xpsflap/xpsflap.h"
#include "xpsflap/plan.h"
#include "lib/grow.h"
#include "lib/netns.h"
#include "lib/plan.h"
#include "lib/sysfs.h"
#include "xpsflap/act.h"

#define TOOL	"xpsflap"

/* Loaded, built in, or a module of this kernel in any of the compressions distributions use. */
static bool kernel_has_skbedit(void)
{
	static const char *const ext[] = { "", ".xz", ".zst", ".gz" };
	char path[256], line[256];
	bool found = false;
	FILE *f;

	if (!access("/sys/module/act_skbedit", F_OK))
		return true;
	for (size_t i = 0; i < sizeof(ext) / sizeof(ext[0]); i++) {
		snprintf(path, sizeof(path), "/lib/modules/%s/kernel/net/sched/act_skbedit.ko%s",
			 nm_kernel_release(), ext[i]);
		if (!access(path, F_OK))
			return true;
	}
	snprintf(path, sizeof(path), "/lib/modules/%s/modules.builtin", nm_kernel_release());
	f = fopen(path, "re");
	while (f && !found && fgets(line, sizeof(line), f))
		found = !strcmp(line, "kernel/net/sched/act_skbedit.ko\n");
	if (f)
		fclose(f);
	return found;
}

/* dev's TX queues and their XPS maps, in directory order. 0, or an exit code (said). */
static int read_queues(const struct nm_opts *o, const char *dev, struct xf_pin_queue **qp,
		       size_t *n)
{
	char dir[256], path[512];
	struct xf_pin_queue *q = NULL;
	struct dirent *de;
	size_t cap = 0;
	DIR *d;

	*n = 0;
	snprintf(dir, sizeof(dir), "/sys/class/net/%s/queues", dev);
	d = opendir(dir);
	if (!d)
		return nm_err(o, NM_EXIT_RUNTIME, "--pin %s: %s: %s", dev, dir, strerror(errno));
	while ((de = readdir(d))) {
		if (strncmp(de->d_name, "tx-", 3))
			continue;
		if (nm_grow(&q, &cap, *n, sizeof(*q), 16)) {
			closedir(d);
			free(q);
			return nm_err(o, NM_EXIT_RUNTIME, "--pin %s: out of memory", dev);
		}
		memset(&q[*n], 0, sizeof(q[*n]));
		snprintf(q[*n].name, sizeof(q[*n].name), "%s", de->d_name);
		snprintf(path, sizeof(path), "%s/%s/xps_cpus", dir, de->d_name);
		q[*n].read = !nm_sysfs_line(path, q[*n].xps, sizeof(q[*n].xps));
		(*n)++;
	}
	closedir(d);
	*qp = q;
	return 0;
}

/* What --pin changes on device i: read, planned (xf_pin_plan), made in its journal. */
static int pin_dev(struct xf_pin *ps, int i)
{
	const struct nm_opts *o = ps->o;
	const char *dev = o->devs[i];
	struct xf_pin_dev d = { .dev = dev, .tag = ps->tag[i], .ifindex = o->ifindex[i],
				.ntxq = nm_dev_ntxq(dev), .prog_fd = ps->prog_fd };
	struct nm_exec x = { .tool = TOOL, .log = stderr, .j = ps->j[i], .home_fd = -1 };
	struct xf_pin_queue *q = NULL;
	struct nm_plan p = {};
	int ret;

	if (d.ntxq < 0)
		return nm_err(o, NM_EXIT_RUNTIME, "--pin %s: %s", dev, strerror(-d.ntxq));
	snprintf(ps->tag[i], sizeof(ps->tag[i]), "--pin %s", dev);
	if (d.ntxq >= 2 && (ret = read_queues(o, dev, &q, &d.nq)))
		return ret;
	d.q = q;
	/*
	 * The pin program's own state, not a change to the system: how many
	 * queues it chooses among on this device, set before its filter runs.
	 */
	if (d.ntxq >= 2 && d.prog_fd >= 0 &&
	    bpf_map_update_elem(ps->devs_fd, &d.ifindex, &(__u32){ d.nq }, BPF_ANY)) {
		ret = nm_err(o, NM_EXIT_RUNTIME, "%s: pin map: %s", ps->tag[i], strerror(errno));
		free(q);
		return ret;
	}
	ret = xf_pin_plan(&d, &p);
	if (ret)
		ret = nm_err(o, NM_EXIT_RUNTIME, "--pin %s: %s", dev, strerror(-ret));
	else if (nm_exec_plan(&x, &p))
		ret = NM_EXIT_RUNTIME;	/* said by the executor */
	nm_plan_free(&p);
	free(q);
	return ret;
}

int xf_pin_start(struct xf_pin *ps)
{
	const struct nm_opts *o = ps->o;
	char key[64], nspath[256], err[256];
	int ret;

	if (kernel_has_skbedit())
		nm_info(o, "pin: act_skbedit is present, but netmedic does not pin with it yet: clearing XPS maps and choosing queues with a tc BPF program instead");
	else
		nm_info(o, "pin: this kernel has no act_skbedit (CONFIG_NET_ACT_SKBEDIT): clearing XPS maps and choosing queues with a tc BPF program instead");
	for (int i = 0; i < o->ndevs; i++) {
		snprintf(key, sizeof(key), "%lu-%s", o->netns_ino, o->devs[i]);
		ret = nm_journal_open(&ps->j[i], TOOL, key,
				      o->netns ? nm_netns_path(o->netns, nspath, sizeof(nspath)) : NULL,
				      err, sizeof(err));
		if (ret)
			return nm_err(o, NM_EXIT_RUNTIME, "--pin %s: %s", o->devs[i], err);
		ret = pin_dev(ps, i);
		if (ret)
			return ret;
	}
	return 0;
}

int xf_pin_stop(struct xf_pin *ps)
{
	char restoring[64], unrestored[96];
	int ret = 0;

	for (int i = 0; i < NM_MAX_DEVS; i++) {
		struct nm_exec x = { .tool = TOOL, .log = stderr, .j = ps->j[i], .home_fd = -1,
				     .restoring = restoring, .unrestored = unrestored };

		if (!ps->j[i])
			continue;
		snprintf(restoring, sizeof(restoring), "pin: restoring %s", ps->o->devs[i]);
		snprintf(unrestored, sizeof(unrestored), "pin: %s not fully restored (see above)",
			 ps->o->devs[i]);
		if (nm_exec_undo(&x))
			ret = NM_EXIT_RUNTIME;
		ps->j[i] = NULL;
	}
	return ret;
}
