// SPDX-License-Identifier: GPL-2.0
/*
 * xpsflap - find flows whose packets are spread over several TX queues of a
 * device, and the reordering that causes; optionally pin them (--pin).
 *
 * Loader: options, hook ladder, skeleton, the report loop and the remedy.
 * Decisions live in src/detect/xpsflap_detect.c.
 */
#include <argp.h>
#include <dirent.h>
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <bpf/bpf.h>
#include <bpf/libbpf.h>
#include "netmedic/xpsflap.h"
#include "xpsflap.skel.h"
#include "detect/xpsflap_detect.h"
#include "detect/xpsflap_plan.h"
#include "lib/cli.h"
#include "lib/fixes.h"
#include "lib/journal.h"
#include "lib/netns.h"
#include "lib/output.h"
#include "lib/plan.h"
#include "lib/selfstats.h"
#include "lib/skel.h"
#include "lib/sysfs.h"
#include "lib/xpsflap_records.h"

#define TOOL		"xpsflap"
#define TABLE_ROWS	20

static struct env {
	struct nm_opts o;
	bool pin;
	bool list_fixes;
	long max_flows;
	long min_switches;
	int top;
} env;

enum { OPT_PIN = 0x2000, OPT_MAX_FLOWS, OPT_TOP, OPT_MIN_SWITCHES, OPT_LIST_FIXES };

const char *argp_program_version = "xpsflap (netmedic) 0.1";
const char *argp_program_bug_address = "the netmedic issue tracker";
static const char doc[] =
"xpsflap: flows whose packets are queued on more than one TX queue of a device.\n"
"\n"
"A forwarded skb (bridge, router, veth) has no socket, so the kernel picks its\n"
"TX queue from the current CPU's XPS map: one flow follows the CPUs that forward\n"
"it, switching queues, and the switches reorder it on the wire.\n"
"\n"
"EXAMPLES:\n"
"  xpsflap                          # every device, table every second\n"
"  xpsflap --netns lab --dev br0p1  # one device in a netns\n"
"  xpsflap --json -c 5              # five JSON reports\n"
"  xpsflap --dev eth0 --pin         # clear XPS maps of eth0 while running\n"
"  xpsflap --cleanup                # undo the remedy of a killed instance";

static const struct argp_option options[] = {
	{ "pin", OPT_PIN, NULL, 0,
	  "Remedy: keep each flow on one queue of the --dev devices while running (undone at exit)", 0 },
	{ "max-flows", OPT_MAX_FLOWS, "N", 0, "Flow table slots, rounded up to a power of two (default 65536)", 0 },
	{ "top", OPT_TOP, "N", 0, "Table rows (default 20)", 0 },
	{ "min-switches", OPT_MIN_SWITCHES, "N", 0,
	  "Queue switches in one interval that make a flow flapping (default 2)", 0 },
	NM_LIST_FIXES_OPTION(OPT_LIST_FIXES),
	{},
};

static error_t parse_arg(int key, char *arg, struct argp_state *state)
{
	long v;

	switch (key) {
	case ARGP_KEY_INIT:
		state->child_inputs[0] = &env.o;
		break;
	case OPT_PIN:
		env.pin = true;
		break;
	case OPT_LIST_FIXES:
		env.list_fixes = true;
		break;
	case OPT_MAX_FLOWS:
		if (nm_parse_long(arg, 64, 16777216, &env.max_flows))
			argp_error(state, "invalid --max-flows '%s': 64 to 16777216", arg);
		break;
	case OPT_TOP:
		/* into a long first: an int would wrap 4294967297 to 1 */
		if (nm_parse_long(arg, 1, INT_MAX, &v))
			argp_error(state, "invalid --top '%s'", arg);
		env.top = v;
		break;
	case OPT_MIN_SWITCHES:
		if (nm_parse_long(arg, 1, 1000000, &env.min_switches))
			argp_error(state, "invalid --min-switches '%s': 1 to 1000000", arg);
		break;
	case ARGP_KEY_ARG:
		argp_error(state, "unexpected argument '%s'", arg);
		break;
	case ARGP_KEY_END:
		if (env.pin && !env.o.ndevs)
			argp_error(state, "--pin needs --dev: it changes the named devices only");
		break;
	default:
		return ARGP_ERR_UNKNOWN;
	}
	return 0;
}

NM_ARGP(options, parse_arg, doc);

/* ---- hooks ---- */

enum { HOOK_PICK, HOOK_XMIT, HOOK_PIN, NR_HOOKS };

/* the runs a hook or rung is for (nm_hook_decl.when) */
#define WANT_PIN	1u

static const struct nm_hook_decl hook_decls[NR_HOOKS] = {
	[HOOK_PICK] = { "netdev_pick_tx", 0, {
		{ .progs = { "xf_pick_fexit" } },
		{ .progs = { "xf_pick_tp" }, .kfunc = "bpf_rdonly_cast" },
		{ .progs = { "xf_pick_tp_read" } },
		{ .progs = { "xf_pick_raw" } },
	} },
	[HOOK_XMIT] = { "net_dev_xmit", 0, {
		{ .progs = { "xf_xmit_tp" } },
		{ .progs = { "xf_xmit_raw" } },
		{ .lost = "no reordering counts: queue switches only" },
	} },
	/* --pin only: without its program, clearing XPS leaves the queue to the kernel's flow hash */
	[HOOK_PIN] = { "pin", WANT_PIN, {
		{ .progs = { "xf_pin_tc" } },
		{ .lost = "--pin clears the XPS maps only: the kernel's flow hash picks the queue" },
	} },
};

static void declare_hooks(struct xpsflap_bpf *skel, struct nm_hook *hooks)
{
	nm_hooks_declare(hooks, hook_decls, NR_HOOKS, skel->obj, env.pin ? WANT_PIN : 0);
}

/* ---- remedy: --pin ---- */

struct pin_state {
	struct nm_journal *j[NM_MAX_DEVS];
	char tag[NM_MAX_DEVS][48];	/* "--pin DEV": its plan's error lines */
};

static bool kernel_has_skbedit(void)
{
	char path[256];

	if (!access("/sys/module/act_skbedit", F_OK))
		return true;
	snprintf(path, sizeof(path), "/lib/modules/%s/kernel/net/sched/act_skbedit.ko",
		 nm_kernel_release());
	return !access(path, F_OK) || !access(strcat(path, ".xz"), F_OK);
}

/* dev's TX queues and their XPS maps, in directory order. 0, or an exit code (said). */
static int read_queues(const char *dev, struct xf_pin_queue **qp, size_t *n)
{
	char dir[256], path[512];
	struct xf_pin_queue *q = NULL, *nq;
	struct dirent *de;
	size_t cap = 0;
	DIR *d;

	*n = 0;
	snprintf(dir, sizeof(dir), "/sys/class/net/%s/queues", dev);
	d = opendir(dir);
	if (!d)
		return nm_err(&env.o, NM_EXIT_RUNTIME, "--pin %s: %s: %s", dev, dir, strerror(errno));
	while ((de = readdir(d))) {
		if (strncmp(de->d_name, "tx-", 3))
			continue;
		if (*n == cap) {
			cap = cap ? 2 * cap : 16;
			nq = realloc(q, cap * sizeof(*q));
			if (!nq) {
				closedir(d);
				free(q);
				return nm_err(&env.o, NM_EXIT_RUNTIME, "--pin %s: out of memory", dev);
			}
			q = nq;
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

/*
 * The executor's calls (x->arg: the skeleton): the clsact qdisc on dev's
 * egress, the pin map's entry first (1: a clsact was there already, and
 * is not deleted again), or the tc filter that runs the pin program.
 * Their undo, a tc command, is journaled before; --cleanup runs it after
 * a crash.
 */
static int pin_call(struct nm_exec *x, struct nm_action *a, char *err, size_t len)
{
	struct xpsflap_bpf *skel = x->arg;
	struct xf_pin_target t;
	int ret;

	if (xf_pin_target(a, &t)) {
		snprintf(err, len, "not a pin: %s", a->target);
		return -EINVAL;
	}
	LIBBPF_OPTS(bpf_tc_hook, hook, .ifindex = t.ifindex, .attach_point = BPF_TC_EGRESS);
	LIBBPF_OPTS(bpf_tc_opts, tco, .handle = XF_PIN_TC_HANDLE, .priority = XF_PIN_TC_PRIO,
		    .prog_fd = bpf_program__fd(skel->progs.xf_pin_tc));
	if (t.what == XF_PIN_FILTER) {
		ret = bpf_tc_attach(&hook, &tco);
		if (ret)
			snprintf(err, len, "tc egress filter: %s", strerror(-ret));
		return ret;
	}
	if (bpf_map_update_elem(bpf_map__fd(skel->maps.pin_devs), &t.ifindex, &t.ntx, BPF_ANY)) {
		ret = -errno;
		snprintf(err, len, "pin map: %s", strerror(-ret));
		return ret;
	}
	ret = bpf_tc_hook_create(&hook);
	if (ret == -EEXIST)
		return 1;
	if (ret)
		snprintf(err, len, "clsact: %s", strerror(-ret));
	return ret;
}

/* What --pin changes on device i: read, planned (xf_pin_plan), made in its journal. */
static int pin_dev(struct xpsflap_bpf *skel, struct pin_state *ps, int i)
{
	const char *dev = env.o.devs[i];
	struct xf_pin_dev d = { .dev = dev, .tag = ps->tag[i], .ifindex = env.o.ifindex[i],
				.ntxq = nm_dev_ntxq(dev),
				.have_prog = bpf_program__fd(skel->progs.xf_pin_tc) >= 0 };
	struct nm_exec x = { .tool = TOOL, .log = stderr, .j = ps->j[i], .home_fd = -1,
			     .call = pin_call, .arg = skel };
	struct xf_pin_queue *q = NULL;
	struct nm_plan p = {};
	int ret;

	if (d.ntxq < 0)
		return nm_err(&env.o, NM_EXIT_RUNTIME, "--pin %s: %s", dev, strerror(-d.ntxq));
	snprintf(ps->tag[i], sizeof(ps->tag[i]), "--pin %s", dev);
	if (d.ntxq >= 2 && (ret = read_queues(dev, &q, &d.nq)))
		return ret;
	d.q = q;
	ret = xf_pin_plan(&d, &p);
	if (ret)
		ret = nm_err(&env.o, NM_EXIT_RUNTIME, "--pin %s: %s", dev, strerror(-ret));
	else if (nm_exec_plan(&x, &p))
		ret = NM_EXIT_RUNTIME;	/* said by the executor */
	nm_plan_free(&p);
	free(q);
	return ret;
}

static int pin_start(struct xpsflap_bpf *skel, struct pin_state *ps)
{
	char key[64], nspath[256], err[256];
	int ret;

	if (kernel_has_skbedit())
		nm_info(&env.o, "pin: act_skbedit is present, but netmedic does not pin with it yet: clearing XPS maps and choosing queues with a tc BPF program instead");
	else
		nm_info(&env.o, "pin: this kernel has no act_skbedit (CONFIG_NET_ACT_SKBEDIT): clearing XPS maps and choosing queues with a tc BPF program instead");
	for (int i = 0; i < env.o.ndevs; i++) {
		snprintf(key, sizeof(key), "%lu-%s", env.o.netns_ino, env.o.devs[i]);
		ret = nm_journal_open(&ps->j[i], TOOL, key,
				      env.o.netns ? nm_netns_path(env.o.netns, nspath, sizeof(nspath)) : NULL,
				      err, sizeof(err));
		if (ret)
			return nm_err(&env.o, NM_EXIT_RUNTIME, "--pin %s: %s", env.o.devs[i], err);
		ret = pin_dev(skel, ps, i);
		if (ret)
			return ret;
	}
	return 0;
}

/* Undoes every device's changes; a failed undo makes the exit status 1. */
static int pin_stop(struct pin_state *ps)
{
	char restoring[64], unrestored[96];
	int ret = 0;

	for (int i = 0; i < NM_MAX_DEVS; i++) {
		struct nm_exec x = { .tool = TOOL, .log = stderr, .j = ps->j[i], .home_fd = -1,
				     .restoring = restoring, .unrestored = unrestored };

		if (!ps->j[i])
			continue;
		snprintf(restoring, sizeof(restoring), "pin: restoring %s", env.o.devs[i]);
		snprintf(unrestored, sizeof(unrestored), "pin: %s not fully restored (see above)",
			 env.o.devs[i]);
		if (nm_exec_undo(&x))
			ret = NM_EXIT_RUNTIME;
		ps->j[i] = NULL;
	}
	return ret;
}

/* ---- collection ---- */

struct snapshot {
	struct xf_entry *e;
	size_t n, cap;
	uint64_t counters[XF_CNT_MAX];
	uint64_t now_ns, since_ns;
	uint32_t epoch;		/* the interval being reported */
	size_t active, flapping;
};

/* Per device slot and queue totals (--prom-file): the BPF ones summed over CPUs, then flows'. */
static struct xf_dev_stats totals[XF_DEV_SLOTS][XF_DEV_QUEUES];
/* The device of each slot in use, as read with totals. */
static struct xf_dev_id slot_dev[XF_DEV_SLOTS];
static bool slot_used[XF_DEV_SLOTS];

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
	struct xf_dev_stats *t;

	__atomic_thread_fence(__ATOMIC_ACQUIRE);
	if (__atomic_load_n(&sl->val.switches, __ATOMIC_RELAXED) != switches0 || v->switches != switches0 ||
	    __atomic_load_n(&sl->val.dev, __ATOMIC_RELAXED) != v->dev || sl->dev_slot >= XF_DEV_SLOTS ||
	    !xf_unflushed(v, &packets, &bytes))
		return;
	t = &totals[sl->dev_slot][v->last_queue < XF_DEV_QUEUES ? v->last_queue : XF_DEV_QUEUES - 1];
	t->packets += packets;
	t->bytes += bytes;
}

/*
 * The flow table is an mmap-ed array: one pass over it copies the slots
 * that hold a flow, with no syscall per flow. The BPF side keeps writing
 * meanwhile, so a slot is a moment's copy, as a map lookup would be. With
 * unflushed, each flow's part of its queue's totals goes into totals.
 */
static int read_flows(const struct xf_slot *tab, size_t slots, struct snapshot *s, bool unflushed)
{
	s->n = 0;
	for (size_t i = 0; i < slots; i++) {
		const struct xf_slot *sl = &tab[i];

		if (sl->val.dev == XF_SLOT_FREE || sl->val.dev == XF_SLOT_BUSY)
			continue;
		if (s->n == s->cap) {
			size_t cap = s->cap ? s->cap * 2 : 1024;
			void *p = realloc(s->e, cap * sizeof(*s->e));

			if (!p)
				return -ENOMEM;
			s->e = p;
			s->cap = cap;
		}
		uint32_t switches0 = __atomic_load_n(&sl->val.switches, __ATOMIC_ACQUIRE);

		s->e[s->n].key = sl->key;
		s->e[s->n].val = sl->val;
		if (unflushed)
			add_unflushed(sl, &s->e[s->n].val, switches0);
		s->n++;
	}
	return 0;
}

/* Maps the flow table read-only; NULL (and a message) on failure. */
static const struct xf_slot *map_flows(struct xpsflap_bpf *skel, size_t *len)
{
	const struct xf_slot *p = nm_map_mmap(skel->maps.flows, len);

	if (!p)
		nm_err(&env.o, NM_EXIT_RUNTIME, "cannot map the flow table: %s", strerror(errno));
	return p;
}

static void read_counters(int fd, struct snapshot *s)
{
	for (uint32_t i = 0; i < XF_CNT_MAX; i++)
		s->counters[i] = nm_percpu_u64(fd, &i);
}

/* The judge step: active flows first, judged, worst first; counts active and flapping. */
static void rank(struct snapshot *s)
{
	size_t i, n = 0;

	s->active = s->flapping = 0;
	for (i = 0; i < s->n; i++) {
		if (!xf_active(&s->e[i].val, s->since_ns))
			continue;
		xf_judge(&s->e[i], s->epoch, env.min_switches);
		s->flapping += s->e[i].flapping;
		if (i != n) {
			struct xf_entry t = s->e[n];

			s->e[n] = s->e[i];
			s->e[i] = t;
		}
		n++;
	}
	s->active = n;
	if (n)
		qsort(s->e, n, sizeof(*s->e), xf_cmp_worst);
}

/* ---- output ---- */

static void flow_row(struct xf_flow_row *r, const struct xf_entry *e)
{
	char dev[32];

	xf_flow_row(r, e, nm_dev_name(&env.o, e->key.netns, e->key.ifindex, dev, sizeof(dev)));
}

static void interval_row(struct xf_interval_row *r, const struct snapshot *s, long max_flows)
{
	*r = (struct xf_interval_row){
		.time = time(NULL), .flows_active = s->active, .flows_flapping = s->flapping,
		.flows_tracked = s->n, .max_flows = max_flows,
		.evictions = s->counters[XF_CNT_EVICTED],
		.untracked_picks = s->counters[XF_CNT_UNTRACKED],
		.parsed_skbs = s->counters[XF_CNT_PARSED],
		.one_queue_picks = s->counters[XF_CNT_ONE_QUEUE],
	};
}

static void print_table(FILE *f, const struct snapshot *s, const struct xf_interval_row *ir)
{
	int rows = env.top ? env.top : TABLE_ROWS;
	time_t t = ir->time;
	struct xf_flow_row r;
	char ts[16];

	strftime(ts, sizeof(ts), "%H:%M:%S", localtime(&t));
	fprintf(f, "\n%s  flows: %llu active, %llu flapping, %llu tracked of %llu, %llu evicted\n", ts,
		(unsigned long long)ir->flows_active, (unsigned long long)ir->flows_flapping,
		(unsigned long long)ir->flows_tracked, (unsigned long long)ir->max_flows,
		(unsigned long long)ir->evictions);
	nm_rec_table_header(f, &xf_flow_rec);
	for (size_t i = 0; i < s->active && (int)i < rows; i++) {
		flow_row(&r, &s->e[i]);
		nm_rec_table_row(f, &xf_flow_rec, &r);
	}
	fflush(f);
}

static void print_json(const struct snapshot *s, const struct xf_interval_row *ir)
{
	struct xf_flow_row r;

	nm_rec_json(stdout, &xf_interval_rec, ir);
	for (size_t i = 0; i < s->active; i++) {
		flow_row(&r, &s->e[i]);
		nm_rec_json(stdout, &xf_flow_rec, &r);
	}
}

#define DEV_ROWS_MAX	(XF_DEV_SLOTS * XF_DEV_QUEUES)

/*
 * The BPF per-queue totals, summed over CPUs, into totals, and the device
 * of each slot. Read before the flows: a flush in between then makes the
 * sum short, never double.
 */
static void read_dev_totals(struct xpsflap_bpf *skel)
{
	int devs = bpf_map__fd(skel->maps.devs), stats = bpf_map__fd(skel->maps.dev_stats);
	int ncpu = libbpf_num_possible_cpus();
	struct xf_dev_stats vals[ncpu];
	struct xf_dev_id id, next, *prev = NULL;
	uint32_t slot;

	memset(totals, 0, sizeof(totals));
	while (!bpf_map_get_next_key(devs, prev, &next)) {
		id = next;
		prev = &id;
		if (bpf_map_lookup_elem(devs, &id, &slot) || slot >= XF_DEV_SLOTS)
			continue;
		slot_dev[slot] = id;
		slot_used[slot] = true;
		for (uint32_t q = 0; q < XF_DEV_QUEUES; q++) {
			uint32_t i = slot * XF_DEV_QUEUES + q;
			struct xf_dev_stats *t = &totals[slot][q];

			if (bpf_map_lookup_elem(stats, &i, vals))
				continue;
			for (int c = 0; c < ncpu; c++) {
				t->packets += vals[c].packets;
				t->bytes += vals[c].bytes;
				t->switches += vals[c].switches;
				t->risky_switches += vals[c].risky_switches;
				t->reordered += vals[c].reordered;
			}
		}
	}
}

/* Every queue of every device with a slot that counted anything: totals, never going back. */
static size_t dev_rows(struct xf_dev_row *rows)
{
	static struct xf_dev_stats shown[XF_DEV_SLOTS][XF_DEV_QUEUES];
	size_t n = 0;

	for (uint32_t slot = 0; slot < XF_DEV_SLOTS; slot++) {
		if (!slot_used[slot])
			continue;
		for (uint32_t q = 0; q < XF_DEV_QUEUES && n < DEV_ROWS_MAX; q++) {
			struct xf_dev_stats *t = &totals[slot][q], *sh = &shown[slot][q];

			sh->packets = xf_monotonic(sh->packets, t->packets);
			sh->bytes = xf_monotonic(sh->bytes, t->bytes);
			sh->switches = t->switches;
			sh->risky_switches = t->risky_switches;
			sh->reordered = t->reordered;
			if (!sh->packets && !sh->reordered)
				continue;
			nm_dev_name(&env.o, slot_dev[slot].netns, slot_dev[slot].ifindex, rows[n].device,
				    sizeof(rows[n].device));
			rows[n].queue = q;
			rows[n].packets = sh->packets;
			rows[n].bytes = sh->bytes;
			rows[n].switches = sh->switches;
			rows[n].risky_switches = sh->risky_switches;
			rows[n].reordered = sh->reordered;
			n++;
		}
	}
	return n;
}

static int write_prom(struct xpsflap_bpf *skel, const struct xf_interval_row *ir,
		      const struct nm_hook *hooks)
{
	static struct xf_dev_row rows[DEV_ROWS_MAX];
	size_t n = dev_rows(rows);
	struct nm_prom *p = nm_prom_new();
	char err[256];
	int ret;

	if (!p)
		return -ENOMEM;
	nm_rec_prom(p, &xf_interval_rec, ir, sizeof(*ir), 1);
	nm_rec_prom(p, &xf_dev_rec, rows, sizeof(rows[0]), n);
	nm_self_prom(p, TOOL, skel->obj, hooks, NR_HOOKS);
	nm_self_prom_map(p, TOOL, "flows", ir->flows_tracked, ir->max_flows, ir->evictions);
	nm_self_prom_map_untracked(p, TOOL, "flows", ir->untracked_picks);
	ret = nm_prom_write_atomic(p, env.o.prom_file, err, sizeof(err));
	if (ret)
		nm_err(&env.o, NM_EXIT_RUNTIME, "--prom-file: %s", err);
	nm_prom_free(p);
	return ret;
}

static void report(struct xpsflap_bpf *skel, const struct xf_slot *tab, struct snapshot *s,
		   const struct nm_hook *hooks, long max_flows)
{
	struct xf_interval_row ir;

	s->now_ns = nm_mono_ns();
	s->epoch = skel->bss->epoch;
	read_counters(bpf_map__fd(skel->maps.counters), s);
	if (env.o.prom_file)
		read_dev_totals(skel);
	if (read_flows(tab, max_flows, s, env.o.prom_file != NULL))
		nm_err(&env.o, NM_EXIT_RUNTIME, "out of memory reading flows");
	rank(s);
	interval_row(&ir, s, max_flows);
	if (env.o.json)
		print_json(s, &ir);
	if (env.o.table)
		print_table(env.o.json ? stderr : stdout, s, &ir);
	if (env.o.prom_file)
		write_prom(skel, &ir, hooks);
	s->since_ns = s->now_ns;
	/* the next picks count toward the next interval */
	skel->bss->epoch = s->epoch + 1;
}

static void print_start(const struct nm_hook *hooks, long max_flows)
{
	char loss[1024];
	char sum[256], devs[128] = "all";
	size_t off = 0;

	for (int i = 0; i < env.o.ndevs; i++)
		off += snprintf(devs + off, sizeof(devs) - off, "%s%s", i ? "," : "", env.o.devs[i]);
	nm_hooks_summary(hooks, NR_HOOKS, sum, sizeof(sum));
	if (env.o.json) {
		const struct xf_start_row r = {
			.tool = TOOL, .kernel = nm_kernel_release(), .hooks = hooks, .nhooks = NR_HOOKS,
			.interval = env.o.interval, .devices = devs, .max_flows = max_flows,
			.pin = env.pin,
		};

		nm_rec_json(stdout, &xf_start_rec, &r);
	}
	if (env.o.table) {
		FILE *f = env.o.json ? stderr : stdout;

		fprintf(f, "xpsflap: kernel %s, hooks %s, interval %gs, devices %s%s%s\n",
			nm_kernel_release(), sum, env.o.interval, devs, env.pin ? ", --pin" : "",
			nm_hooks_losses(hooks, NR_HOOKS, loss, sizeof(loss)));
		fflush(f);
	}
}


/* --dev devices with one TX queue in use: the BPF side skips them, say why */
static void note_one_queue_devs(void)
{
	for (int i = 0; i < env.o.ndevs; i++) {
		int ntx = nm_dev_ntxq(env.o.devs[i]);

		if (ntx >= 0 && ntx < 2)
			nm_info(&env.o, "%s has %d TX queue: its flows cannot flap, and are not tracked",
				env.o.devs[i], ntx);
	}
}

/* ---- skeleton ---- */

static void skel_prepare(void *p, struct nm_hook *hooks)
{
	struct xpsflap_bpf *skel = p;

	bpf_map__set_max_entries(skel->maps.flows, env.max_flows);
	bpf_map__set_max_entries(skel->maps.hidx, env.max_flows);
	skel->rodata->targ_flow_mask = env.max_flows - 1;
	nm_set_dev_filter(&env.o, &skel->rodata->targ_ndevs, skel->rodata->targ_netns,
			  skel->rodata->targ_ifindex);
	bpf_program__set_autoload(skel->progs.xf_pin_tc, false);
	declare_hooks(skel, hooks);
}

NM_SKEL_OPS(xpsflap, skel_prepare, NULL, NR_HOOKS);

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

int main(int argc, char **argv)
{
	struct nm_hook hooks[NR_HOOKS];
	struct xpsflap_bpf *skel = NULL;
	struct pin_state ps = {};
	struct snapshot snap = {};
	const struct xf_slot *tab = NULL;
	size_t tab_len = 0;
	long max_flows;
	int stats_fd = -1, ret;

	nm_opts_init(&env.o, TOOL);
	/* --pin undoes its tc changes with tc; a journal may run nothing else */
	nm_journal_allow_cmd("tc");
	env.max_flows = 65536;
	env.min_switches = XF_MIN_SWITCHES_DEFAULT;
	argp_parse(&argp, argc, argv, 0, NULL, NULL);
	env.max_flows = nm_table_size(env.max_flows);
	max_flows = env.max_flows;
	nm_install_signals();	/* before anything is changed */
	/* --pin: a tc program and filter, xps_cpus in sysfs, undone with tc */
	env.o.caps.remedy = env.o.caps.remedy_sysfs = env.o.caps.remedy_exec = env.pin;
	env.o.caps.net_prog = env.o.caps.journal = env.pin;
	env.o.caps.remedy_opt = "--pin";
	env.o.caps.cleanup_sysfs = true;	/* a journal's xps_cpus */
	/* the pick's kfunc rung: absent from vmlinux (before 6.2), libbpf asks the modules */
	env.o.caps.module_btf = !env.o.cleanup && nm_kernel_has_func(&env.o, "bpf_rdonly_cast") == 0;

	if (env.o.cleanup)
		return nm_cleanup_main(&env.o);
	ret = nm_setup(&env.o);
	if (ret)
		return ret;
	if (env.list_fixes) {
		nm_fixes_list(stdout, fixes, sizeof(fixes) / sizeof(fixes[0]));
		return NM_EXIT_OK;
	}
	nm_test_stop("load");
	ret = nm_skel_load(&env.o, &skel_ops, (void **)&skel, hooks);
	if (ret) {
		xpsflap_bpf__destroy(skel);
		return ret == NM_SKEL_LISTED ? NM_EXIT_OK : ret;
	}
	if (nm_exiting) {
		/* a signal during the load: nothing was changed */
		xpsflap_bpf__destroy(skel);
		return NM_EXIT_OK;
	}
	if (env.o.bpf_stats)
		stats_fd = nm_self_enable_stats(&env.o);
	tab = map_flows(skel, &tab_len);
	if (!tab)
		ret = NM_EXIT_RUNTIME;
	if (!ret && env.pin) {
		nm_test_stop("change");
		ret = nm_exiting ? 0 : pin_start(skel, &ps);
	}
	if (!ret)
		ret = nm_caps_after_attach(&env.o);
	if (!ret) {
		print_start(hooks, max_flows);
		note_one_queue_devs();
		snap.since_ns = nm_mono_ns();
	}
	for (long n = 0; !ret && !nm_exiting && (!env.o.count || n < env.o.count); n++) {
		/* a signal cuts the interval short; its report is still printed */
		nm_sleep(env.o.interval);
		report(skel, tab, &snap, hooks, max_flows);
	}
	if (pin_stop(&ps) && !ret)
		ret = NM_EXIT_RUNTIME;
	if (stats_fd >= 0)
		close(stats_fd);
	if (tab)
		munmap((void *)tab, tab_len);
	xpsflap_bpf__destroy(skel);
	free(snap.e);
	return ret;
}
