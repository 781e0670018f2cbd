// SPDX-License-Identifier: GPL-2.0
/*
 * xpsflap - find flows whose packets are spread over several TX queues of a
 * device, and the reordering that causes; optionally pin them (--pin).
 *
 * Loader: hook ladder, skeleton and collection; lib/run.c runs it,
 * xpsflap/report.c makes the report's rows, xpsflap/opts.c has its
 * options. Decisions live in
 * src/xpsflap/judge.c, --pin's policy in src/xpsflap/plan.c,
 * its I/O in src/xpsflap/act.c.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <bpf/bpf.h>
#include <bpf/libbpf.h>
#include "xpsflap/xpsflap.h"
#include "xpsflap/judge.h"
#include "lib/cli.h"
#include "lib/emit.h"
#include "lib/fixes.h"
#include "lib/journal.h"
#include "lib/run.h"
#include "lib/scope.h"
#include "lib/skel.h"
#include "lib/sysfs.h"
#include "xpsflap/act.h"
#include "xpsflap/hooks.h"
#include "xpsflap/opts.h"
#include "xpsflap/records.h"
#include "xpsflap/report.h"
#include "xpsflap.skel.h"

#define TOOL		"xpsflap"

static struct xf_env env;
/* the namespaces watched, and the names of them and their devices */
static struct nm_scope scope;

/* ---- hooks (the ladder: xpsflap/hooks.c) ---- */

static void declare_hooks(struct xpsflap_bpf *skel, struct nm_hook *hooks)
{
	nm_hooks_declare(hooks, xf_hook_decls, XF_NR_HOOKS, skel->obj, env.pin ? XF_WANT_PIN : 0);
}

/* ---- collection (the report's rows and sinks: xpsflap/report.c) ---- */

static struct xf_report rep;
/* Slots whose device went: out of devs, given back after the flows' pass. */
static uint32_t releasing[XF_DEV_SLOTS];
static size_t nreleasing;

static const char *dev_name(void *arg, unsigned long netns, unsigned int ifindex, char *buf,
			    size_t len)
{
	return nm_scope_dev_name(arg, netns, ifindex, buf, len);
}

static const char *ns_name(void *arg, unsigned long netns, char *buf, size_t len)
{
	return nm_scope_ns_name(arg, netns, buf, len);
}

/*
 * A flow's packets and bytes not yet flushed to its queue's totals, from v,
 * a copy of sl made after switches0 was read. If the flow switched queue or
 * lost its slot meanwhile, the copy's queue and counts may not go together
 * (counts of one queue put on another, which a counter that never goes
 * back would keep): it adds nothing, and the next report has it.
 */
static void add_unflushed(const struct xf_slot *sl, const struct xf_flow *v, uint32_t switches0)
{
	uint64_t packets, bytes;

	__atomic_thread_fence(__ATOMIC_ACQUIRE);
	if (__atomic_load_n(&sl->val.switches, __ATOMIC_RELAXED) != switches0 || v->switches != switches0 ||
	    __atomic_load_n(&sl->val.dev, __ATOMIC_RELAXED) != v->dev || sl->dev_slot >= XF_DEV_SLOTS ||
	    !xf_unflushed(v, &packets, &bytes))
		return;
	xf_report_unflushed(&rep, sl->dev_slot, v->last_queue, packets, bytes);
}

/*
 * A flow of a netns or device that went: its slot is freed, as an eviction
 * would, unless the BPF side took it meanwhile (the compare-and-swap on
 * dev, the claim's own). Its unflushed counts go with it: the device's
 * slot is given back too. So it is neither reported nor kept.
 */
static bool flow_gone(struct xf_slot *sl, uint64_t dev)
{
	if (!nm_scope_went(&scope, sl->key.netns, sl->key.ifindex))
		return false;
	__atomic_compare_exchange_n(&sl->val.dev, &dev, XF_SLOT_FREE, false, __ATOMIC_RELEASE,
				    __ATOMIC_RELAXED);
	return true;
}

/*
 * The flow table is an mmap-ed array: one pass over it copies the slots
 * that hold a flow, with no syscall per flow. The BPF side keeps writing
 * meanwhile, so a slot is a moment's copy, as a map lookup would be. With
 * unflushed, each flow's part of its queue's totals goes into the totals.
 */
static int read_flows(struct xf_slot *tab, size_t slots, bool unflushed)
{
	bool gone = nm_scope_any_went(&scope);

	for (size_t i = 0; i < slots; i++) {
		struct xf_slot *sl = &tab[i];
		uint64_t dev = sl->val.dev;
		struct xf_entry *e;

		if (dev == XF_SLOT_FREE || dev == XF_SLOT_BUSY)
			continue;
		if (gone && flow_gone(sl, dev))
			continue;
		e = xf_report_add(&rep);
		if (!e)
			return -ENOMEM;
		uint32_t switches0 = __atomic_load_n(&sl->val.switches, __ATOMIC_ACQUIRE);

		e->key = sl->key;
		e->val = sl->val;
		if (unflushed)
			add_unflushed(sl, &e->val, switches0);
	}
	return 0;
}

/*
 * Maps the flow table, writable: a gone netns's flows are freed in place.
 * NULL (and a message) on failure.
 */
static struct xf_slot *map_flows(struct xpsflap_bpf *skel, size_t *len)
{
	size_t page = sysconf(_SC_PAGESIZE);
	void *p;

	*len = (size_t)bpf_map__max_entries(skel->maps.flows) * sizeof(struct xf_slot);
	*len = (*len + page - 1) / page * page;
	p = mmap(NULL, *len, PROT_READ | PROT_WRITE, MAP_SHARED, bpf_map__fd(skel->maps.flows), 0);
	if (p != MAP_FAILED)
		return p;
	nm_err(&env.o, NM_EXIT_RUNTIME, "cannot map the flow table: %s", strerror(errno));
	return NULL;
}

static void read_counters(int fd)
{
	for (uint32_t i = 0; i < XF_CNT_MAX; i++)
		rep.counters[i] = nm_percpu_u64(fd, &i);
}

/* The first time a device found every slot taken: one line, the counter says the rest. */
static void note_slots_full(void)
{
	static bool noted;

	if (noted || !rep.counters[XF_CNT_DEVS_FULL])
		return;
	noted = true;
	nm_info(&env.o, "more than %d devices with flows at once: the others have no "
		"per-queue totals until one goes (dev_slot_misses)", XF_DEV_SLOTS);
}

/*
 * The BPF per-queue totals, summed over CPUs, into the report's, and the
 * device of each slot. Read before the flows: a flush in between then
 * makes the sum short, never double.
 */
static void read_dev_totals(struct xpsflap_bpf *skel)
{
	int devs = bpf_map__fd(skel->maps.devs), stats = bpf_map__fd(skel->maps.dev_stats);
	int ncpu = libbpf_num_possible_cpus();
	struct xf_dev_stats vals[ncpu];
	struct xf_dev_id id, next, *prev = NULL;
	uint32_t slot;

	xf_report_totals_clear(&rep);
	while (!bpf_map_get_next_key(devs, prev, &next)) {
		id = next;
		prev = &id;
		if (bpf_map_lookup_elem(devs, &id, &slot) || slot >= XF_DEV_SLOTS)
			continue;
		xf_report_slot(&rep, slot, &id);
		for (uint32_t q = 0; q < XF_DEV_QUEUES; q++) {
			uint32_t i = slot * XF_DEV_QUEUES + q;

			if (!bpf_map_lookup_elem(stats, &i, vals))
				xf_report_queue_sum(&rep, slot, q, vals, ncpu);
		}
	}
}

/*
 * Devices that went (their netns, or RTM_DELLINK) leave devs, so that no
 * new flow gets their slot; the slot is emptied and given back once the
 * flows' pass freed their flows (give_back_slots). Before the totals are
 * read: a slot leaving shows nothing more.
 */
static void forget_gone_devs(struct xpsflap_bpf *skel)
{
	int devs = bpf_map__fd(skel->maps.devs);
	struct xf_dev_id ids[XF_DEV_SLOTS], id, next, *prev = NULL;
	size_t n = 0;
	uint32_t slot;

	nreleasing = 0;
	if (!nm_scope_any_went(&scope))
		return;
	while (n < XF_DEV_SLOTS && !bpf_map_get_next_key(devs, prev, &next)) {
		id = next;
		prev = &id;
		if (nm_scope_went(&scope, id.netns, id.ifindex))
			ids[n++] = id;
	}
	for (size_t i = 0; i < n; i++) {
		if (bpf_map_lookup_elem(devs, &ids[i], &slot) || bpf_map_delete_elem(devs, &ids[i]) ||
		    slot >= XF_DEV_SLOTS)
			continue;
		rep.slot_used[slot] = false;
		releasing[nreleasing++] = slot;
	}
}

/* The slots forget_gone_devs took: zeroed on every CPU, our state of them dropped, pushed back. */
static void give_back_slots(struct xpsflap_bpf *skel)
{
	int stats = bpf_map__fd(skel->maps.dev_stats), q = bpf_map__fd(skel->maps.free_dev_slots);
	int ncpu = libbpf_num_possible_cpus();
	struct xf_dev_stats zero[ncpu];

	memset(zero, 0, sizeof(zero));
	for (size_t i = 0; i < nreleasing; i++) {
		uint32_t slot = releasing[i];

		for (uint32_t k = 0; k < XF_DEV_QUEUES; k++) {
			uint32_t idx = slot * XF_DEV_QUEUES + k;

			bpf_map_update_elem(stats, &idx, zero, BPF_ANY);
		}
		xf_report_slot_gone(&rep, slot);
		bpf_map_update_elem(q, NULL, &slot, BPF_ANY);
	}
	nreleasing = 0;
}

/* the run's rungs, --pin's state and the mapped flow table */
static struct run {
	struct nm_hook hooks[XF_NR_HOOKS];
	struct xf_pin ps;
	struct xf_slot *tab;
	size_t tab_len;
	long max_flows;
} run;

static int report_step(void *p, struct nm_emit *e)
{
	struct xpsflap_bpf *skel = p;
	struct nm_scope_counts c;

	/* namespaces that came or went, renamed devices: before any row names them */
	nm_scope_refresh(&scope);
	xf_report_start(&rep, nm_mono_ns(), skel->bss->xf_epoch);
	read_counters(bpf_map__fd(skel->maps.xf_counters));
	note_slots_full();
	forget_gone_devs(skel);
	if (nm_opts_prom(&env.o))
		read_dev_totals(skel);
	if (read_flows(run.tab, run.max_flows, nm_opts_prom(&env.o)))
		nm_err(&env.o, NM_EXIT_RUNTIME, "out of memory reading flows");
	give_back_slots(skel);
	xf_report_rank(&rep);
	nm_scope_counts(&scope, &c);
	xf_report_interval(&rep, &c, time(NULL), run.max_flows);
	xf_report_emit(&rep, e, nm_opts_prom(&env.o));
	return 0;
}

/* After the sinks: the next picks count toward the next interval. */
static void after_report(void *p)
{
	struct xpsflap_bpf *skel = p;

	xf_report_next(&rep);
	skel->bss->xf_epoch = rep.epoch + 1;
}

/* ---- skeleton ---- */

static void skel_prepare(void *p, struct nm_hook *hooks)
{
	struct xpsflap_bpf *skel = p;

	bpf_map__set_max_entries(skel->maps.flows, env.max_flows);
	bpf_map__set_max_entries(skel->maps.hidx, env.max_flows);
	skel->rodata->xf_flow_mask = env.max_flows - 1;
	nm_set_dev_filter(&env.o, &skel->rodata->targ_ndevs, skel->rodata->targ_netns,
			  skel->rodata->targ_ifindex);
	nm_set_scope_filter(&env.o, &skel->rodata->targ_nscope, skel->rodata->targ_scope);
	bpf_program__set_autoload(skel->progs.xf_pin_tc, false);
	declare_hooks(skel, hooks);
}

NM_SKEL_OPS(xpsflap, skel_prepare, NULL, XF_NR_HOOKS);

/* --pin needs its program and tc, which takes the filter away again (the journal's undo). */
static int probe_pin(const struct nm_fix *f, char *why, size_t len)
{
	const struct nm_fix tc = { .name = "tc", .arg = "tc" };
	int err = nm_fix_probe_prog(f, why, len);

	return err ? err : nm_fix_probe_cmd(&tc, why, len);
}

/* --list-fixes: the remedy, its lever, and whether this kernel allows it. */
static const struct nm_fix fixes[] = {
	{ "--pin", "sysfs xps_cpus cleared + tc BPF egress picks the queue", probe_pin, "xf_pin_tc",
	  &skel_ops },
};

/* ---- the run's steps (lib/run.h) ---- */

/* --pin: a tc program and filter, xps_cpus in sysfs, undone with tc */
static void set_caps(struct nm_opts *o)
{
	o->caps.remedy = o->caps.remedy_sysfs = o->caps.remedy_exec = env.pin;
	o->caps.net_prog = o->caps.journal = env.pin;
	o->caps.remedy_opt = "--pin";
	o->caps.cleanup_sysfs = true;	/* a journal's xps_cpus */
	/* the pick's kfunc rung: absent from vmlinux (before 6.2), libbpf asks the modules */
	o->caps.module_btf = !o->cleanup && nm_kernel_has_func(o, "bpf_rdonly_cast") == 0;
}

static const char *remedy(void)
{
	return env.pin ? "--pin" : NULL;
}

/* Before the load, with the privileges the names need: the scope's first scan. */
static int setup(void)
{
	/* field by field: the report is too big for a compound literal's copy on the stack */
	rep.min_switches = env.min_switches;
	rep.top = env.view.top;
	rep.all = env.view.all;
	rep.link_local = env.link_local;
	rep.sort = env.view.sort;
	rep.dev_name = dev_name;
	rep.ns_name = ns_name;
	rep.names = &scope;
	if (nm_scope_from_opts(&scope, &env.o))
		return nm_err(&env.o, NM_EXIT_RUNTIME, "out of memory for the netns registry");
	return 0;
}

static int start(void *p)
{
	struct xpsflap_bpf *skel = p;

	run.tab = map_flows(skel, &run.tab_len);
	return run.tab ? 0 : NM_EXIT_RUNTIME;
}

static bool changes(void)
{
	return env.pin;
}

static int change(void *p)
{
	struct xpsflap_bpf *skel = p;

	run.ps = (struct xf_pin){ .o = &env.o, .prog_fd = bpf_program__fd(skel->progs.xf_pin_tc),
				  .devs_fd = bpf_map__fd(skel->maps.pin_devs) };
	return nm_exiting ? 0 : xf_pin_start(&run.ps);
}

/*
 * The first line: the start record; after the interval, the devices, the
 * namespaces, --pin, and what missing privileges lost of the names.
 */
static int first_line(void *p, struct nm_first *l)
{
	static struct xf_start_row r;
	static char ns[256], lost[256];

	(void)p;
	nm_scope_str(&scope, ns, sizeof(ns));
	nm_scope_lost(&scope, lost, sizeof(lost));
	r = (struct xf_start_row){
		.tool = TOOL, .kernel = nm_kernel_release(), .hooks = run.hooks, .nhooks = XF_NR_HOOKS,
		.interval = env.o.interval, .devices = l->devices, .max_flows = run.max_flows,
		.pin = env.pin, .netns = ns, .names_lost = lost,
	};
	l->rec = &xf_start_rec;
	l->row = &r;
	snprintf(l->what, sizeof(l->what), "devices %s, netns %s%s", l->devices, ns,
		 env.pin ? ", --pin" : "");
	snprintf(l->lost, sizeof(l->lost), "%s", lost);
	return 0;
}

/* --dev devices with one TX queue in use: the BPF side skips them, say why */
static int ready(void *p)
{
	(void)p;
	for (int i = 0; i < env.o.ndevs; i++) {
		int ntx = nm_dev_ntxq(env.o.devs[i]);

		if (ntx >= 0 && ntx < 2)
			nm_info(&env.o, "%s has %d TX queue: its flows cannot flap, and are not tracked",
				env.o.devs[i], ntx);
	}
	rep.since_ns = nm_mono_ns();
	return 0;
}

static int stop(void)
{
	return xf_pin_stop(&run.ps);
}

static void free_run(void *p)
{
	(void)p;
	if (run.tab)
		munmap((void *)run.tab, run.tab_len);
	xf_report_free(&rep);
	nm_scope_free(&scope);
}

/* the command line into env (the agent: its defaults) */
static void parse(int argc, char **argv)
{
	xf_opts_parse(&env, argc, argv);
	run.max_flows = env.max_flows;
}

/*
 * On a fixed grid: a report's own time (the flow table's pass, the sort,
 * the rows written) must not push every later report back by as much.
 */
const struct nm_tool xpsflap_tool = {
	/* --pin undoes its tc changes with tc; a journal may run nothing else */
	.name = TOOL, .parse = parse, .undo_cmd = "tc",
	.o = &env.o, .skel = &skel_ops, .hooks = run.hooks,
	.fixes = fixes, .nfixes = sizeof(fixes) / sizeof(fixes[0]), .list_fixes = &env.list_fixes,
	.grid = true,
	.caps = set_caps, .remedy = remedy, .setup = setup, .start = start, .changes = changes,
	.change = change,
	.first = first_line, .ready = ready,
	.report = report_step, .after = after_report, .stop = stop, .free = free_run,
};
