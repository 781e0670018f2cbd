// SPDX-License-Identifier: GPL-2.0
/*
 * qdiscstuck - packets that sit in a qdisc (children of mq and other
 * classful roots too), told apart: ok, idle, shaped, driver_stopped, stuck.
 * Remedies: --fix=kick (a frame on the stuck queue makes its qdisc run),
 * --fix=lock (a locked FIFO in place of a lockless child), --kick, --lock.
 *
 * Loader: options, hook ladder, skeleton, the rtnetlink sweep, the report
 * loop and the remedies' I/O. Decisions live in src/detect/qdiscstuck_detect.c,
 * the remedies' policy in src/detect/qdiscstuck_plan.c; lib/plan.c makes them.
 */
#include <argp.h>
#include <errno.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <arpa/inet.h>
#include <linux/if_packet.h>
#include <net/ethernet.h>
#include <net/if.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <bpf/bpf.h>
#include <bpf/btf.h>
#include <bpf/libbpf.h>
#include "netmedic/qdiscstuck.h"
#include "qdiscstuck.skel.h"
#include "detect/qdiscstuck_detect.h"
#include "detect/qdiscstuck_plan.h"
#include "lib/cli.h"
#include "lib/htab.h"
#include "lib/fixes.h"
#include "lib/journal.h"
#include "lib/netns.h"
#include "lib/output.h"
#include "lib/plan.h"
#include "lib/qdiscstuck_records.h"
#include "lib/rtnl.h"
#include "lib/selfstats.h"
#include "lib/skel.h"
#include "lib/sysfs.h"

#define TOOL		"qdiscstuck"
#define MAX_Q		QS_MAX_QDISCS
#define KICK_TRIES	32
#define TC_H_ROOT_	0xffffffffU

enum { FIX_KICK = QS_FIX_KICK, FIX_LOCK = QS_FIX_LOCK };

static struct env {
	struct nm_opts o;
	long threshold_ms;
	int fix;
	bool all;
	bool list_fixes;
	const char *kick;	/* --kick DEV:QUEUE */
	const char *lock;	/* --lock DEV:QUEUE */
} env;

enum { OPT_THRESHOLD = 0x2000, OPT_FIX, OPT_ALL, OPT_KICK, OPT_LOCK, OPT_LIST_FIXES };

const char *argp_program_version = "qdiscstuck (netmedic) 0.1";
const char *argp_program_bug_address = "the netmedic issue tracker";
static const char doc[] =
"qdiscstuck: packets sitting in a qdisc, and why.\n"
"\n"
"Every qdisc with packets, children of mq and of other classful roots too, is\n"
"classified each interval: ok, idle, shaped (a shaper's timer holds it),\n"
"driver_stopped (its TX queue is stopped and nothing completes) or stuck\n"
"(backlog on a running queue, and the kernel will not run the qdisc again).\n"
"\n"
"EXAMPLES:\n"
"  qdiscstuck                               # every device, table every second\n"
"  qdiscstuck --netns lab --dev eth1 --json # one device in a netns, JSON lines\n"
"  qdiscstuck --fix=kick                    # kick stuck qdiscs while running\n"
"  qdiscstuck --lock eth0:3                 # locked FIFO on tx-3 until exit\n"
"  qdiscstuck --kick eth0:3                 # one kick frame on tx-3, then exit\n"
"  qdiscstuck --cleanup                     # undo --fix=lock of a killed instance";

static const struct argp_option options[] = {
	{ "threshold", OPT_THRESHOLD, "MS", 0,
	  "No progress for this long with a backlog is driver_stopped or stuck (default 100)", 0 },
	{ "fix", OPT_FIX, "kick|lock|kick,lock", 0,
	  "Remedies for stuck qdiscs while running (logged; lock is journaled and undone at exit)", 0 },
	{ "kick", OPT_KICK, "DEV:QUEUE", 0, "Put one kick frame on that TX queue, report where it went, exit", 0 },
	{ "lock", OPT_LOCK, "DEV:QUEUE", 0,
	  "Replace the lockless qdisc of that TX queue by a locked FIFO while running (undone at exit)", 0 },
	{ "all", OPT_ALL, NULL, 0, "Report idle qdiscs too", 0 },
	NM_LIST_FIXES_OPTION(OPT_LIST_FIXES),
	{},
};

/* --fix's words, in the order of their FIX_ bits */
static const char *const fix_names[] = { "kick", "lock" };

static int parse_fix(const char *arg)
{
	return nm_parse_names(arg, fix_names, 2);
}

static error_t parse_arg(int key, char *arg, struct argp_state *state)
{
	char dev[IF_NAMESIZE];
	unsigned int q;

	switch (key) {
	case ARGP_KEY_INIT:
		state->child_inputs[0] = &env.o;
		break;
	case OPT_THRESHOLD:
		if (nm_parse_long(arg, 1, 3600000, &env.threshold_ms))
			argp_error(state, "invalid --threshold '%s': milliseconds from 1 to 3600000", arg);
		break;
	case OPT_FIX:
		env.fix = parse_fix(arg);
		if (env.fix < 0)
			argp_error(state, "invalid --fix '%s': kick, lock or kick,lock", arg);
		break;
	case OPT_KICK:
	case OPT_LOCK:
		if (qs_parse_dev_queue(arg, dev, sizeof(dev), &q))
			argp_error(state, "invalid --%s '%s': DEV:QUEUE, e.g. eth0:3",
				   key == OPT_KICK ? "kick" : "lock", arg);
		if (key == OPT_KICK)
			env.kick = arg;
		else
			env.lock = arg;
		break;
	case OPT_LIST_FIXES:
		env.list_fixes = true;
		break;
	case OPT_ALL:
		env.all = true;
		break;
	case ARGP_KEY_ARG:
		argp_error(state, "unexpected argument '%s'", arg);
		break;
	case ARGP_KEY_END:
		if (env.kick && (env.lock || env.fix))
			argp_error(state, "--kick is a one-shot action: not with --lock or --fix");
		break;
	default:
		return ARGP_ERR_UNKNOWN;
	}
	return 0;
}

NM_ARGP(options, parse_arg, doc);

/* ---- hooks ---- */

enum { HOOK_RUN, HOOK_ENQ, HOOK_RESET, HOOK_KICK, HOOK_SAMPLE, NR_HOOKS };

/* What a rung can do (nm_hook_can). */
#define CAN_SAMPLE	1u	/* the sampler program, run by test-run each sweep */

static const struct nm_hook_decl hook_decls[NR_HOOKS] = {
	/*
	 * Rung 1: the runs (fentry/fexit), the dequeue tracepoint for what each
	 * dequeue gave, and the watchdog arms, which tell a shaper holding its
	 * backlog until a due time from one that nothing will run again.
	 */
	[HOOK_RUN] = { "__qdisc_run", 0, {
		{ .progs = { "qs_run_fentry", "qs_run_fexit", "qs_dequeue_tp", "qs_wd_arm_fentry" } },
		{ .progs = { "qs_dequeue_tp" } },
		{ .progs = { "qs_dequeue_raw" } },
	} },
	[HOOK_ENQ] = { "qdisc_enqueue", 0, {
		{ .progs = { "qs_enqueue_tp" } },
		{ .progs = { "qs_enqueue_raw" } },
		{ .lost = "a qdisc is tracked from its first dequeue, not its first enqueue" },
	} },
	[HOOK_RESET] = { "qdisc_reset", 0, {
		{ .progs = { "qs_reset_tp", "qs_destroy_tp" } },
		{ .progs = { "qs_reset_raw", "qs_destroy_raw" } },
		{ .lost = "resets and deletions are not seen: a deleted qdisc's record stays until its slot is taken" },
	} },
	/* where the kick frames of --kick/--fix=kick are seen: their queue */
	[HOOK_KICK] = { "kick_queue", 0, {
		{ .progs = { "qs_queue_tp" } },
		{ .progs = { "qs_queue_raw" } },
		{ .lost = "a kick's frame is not seen reaching its queue" },
	} },
	/* each sweep's scheduling state of every tracked qdisc, by test-run */
	[HOOK_SAMPLE] = { "sampler", 0, {
		{ .progs = { "qs_sample" }, .can = CAN_SAMPLE },
		{ .lost = "scheduling state is not sampled: judged by events alone" },
	} },
};

static void declare_hooks(struct qdiscstuck_bpf *skel, struct nm_hook *hooks)
{
	nm_hooks_declare(hooks, hook_decls, NR_HOOKS, skel->obj, 0);
}

/* ---- the sweep ---- */

/* One qdisc of the netlink dump, joined with its BPF record and its history. */
struct qrow {
	struct nm_qdisc_stats nl;
	struct qs_qdisc bpf;	/* of the qdisc the TX queue runs (itself or an ancestor) */
	bool have_bpf, own_bpf;
	int txq;		/* -1: not one queue (root of a multiqueue device) */
	bool shaper, lockless;
	struct qs_track *t;
};

/* History per qdisc, kept across sweeps; matched by device, parent, handle and kind. */
struct track_ent {
	unsigned int ifindex;
	uint32_t parent, handle;
	char kind[16];
	bool seen;
	struct qs_fix_done fd;	/* the remedies' (last kick, driver_stopped told) */
	struct qs_track t;
};

/* Per device and queue, monotonic for the metrics even when qdiscs come and go. */
struct devq {
	unsigned int ifindex;
	int txq;
	double bad_s;
	uint64_t entered[QS_NSTATES];
	uint32_t qlen, backlog;
	enum qs_state state;	/* the worst of its qdiscs at this sweep */
	bool present;
};

struct sweep {
	struct qrow *rows;
	size_t n;
	struct track_ent *tracks;
	size_t ntracks;
	struct devq *dq;
	size_t ndq;
	uint64_t now_ns;
	size_t per_state[QS_NSTATES];
	uint64_t counters[QS_CNT_MAX];
	size_t bpf_entries;
	/* what the sinks read: the interval, the qdiscs shown, every queue */
	struct qs_interval_row ival;
	struct qs_qdisc_row *out;
	size_t nout;
	struct qs_queue_row *qrows;
	struct qs_fix_row *fix;		/* the remedies' view of rows[] */
	char (*fix_dev)[IF_NAMESIZE + 8];
};

static bool dev_selected(unsigned int ifindex)
{
	if (!env.o.ndevs)
		return true;
	for (int i = 0; i < env.o.ndevs; i++)
		if (env.o.ifindex[i] == ifindex)
			return true;
	return false;
}

static int collect(const struct nm_qdisc_stats *q, void *arg)
{
	struct sweep *s = arg;

	/* ingress and clsact hold no packets (parent ffff:fff1) */
	if (q->parent == 0xfffffff1U || !dev_selected(q->ifindex) || s->n >= MAX_Q)
		return 0;
	memset(&s->rows[s->n], 0, sizeof(s->rows[s->n]));
	s->rows[s->n].nl = *q;
	s->rows[s->n].txq = -1;
	s->n++;
	return 0;
}

static bool is_mq(const char *kind)
{
	return !strcmp(kind, "mq") || !strcmp(kind, "mqprio");
}

/* The qdisc of the same device whose handle is the major of parent. */
static struct qrow *parent_row(struct sweep *s, const struct qrow *r)
{
	if (r->nl.parent == TC_H_ROOT_)
		return NULL;
	for (size_t i = 0; i < s->n; i++)
		if (s->rows[i].nl.ifindex == r->nl.ifindex && &s->rows[i] != r &&
		    qs_is_parent_qdisc(s->rows[i].nl.handle, s->rows[i].nl.parent, r->nl.parent))
			return &s->rows[i];
	return NULL;
}

static int ntxq(unsigned int ifindex)
{
	char name[IF_NAMESIZE];
	int n;

	if (!if_indextoname(ifindex, name))
		return 0;
	n = nm_dev_ntxq(name);
	return n > 0 ? n : 0;
}

/*
 * Walks up from each qdisc to the one its TX queue runs (a child of mq, or
 * the root): that one has the events; the leaves of a classful qdisc have
 * none of their own. A shaper anywhere on the way makes the backlog shaped.
 */
/*
 * The BPF map is keyed by qdisc address; the join needs (netns, ifindex,
 * parent, handle): one pass over the map indexes it so.
 */
static struct nm_htab *index_bpf(int bpf_fd)
{
	struct nm_htab *h = nm_htab_new(sizeof(struct qs_qdisc_key), sizeof(struct qs_qdisc),
					QS_MAX_QDISCS);
	uint64_t k, next, *prev = NULL;
	struct qs_qdisc v, *slot;
	size_t n = 0;

	if (!h)
		return NULL;
	/* an evicted key restarts the walk: the map holds at most QS_MAX_QDISCS */
	while (n++ < QS_MAX_QDISCS && !bpf_map_get_next_key(bpf_fd, prev, &next)) {
		k = next;
		prev = &k;
		if (bpf_map_lookup_elem(bpf_fd, &k, &v) || v.ignored)
			continue;
		slot = nm_htab_upsert(h, &v.key, NULL);
		if (slot)
			*slot = v;
	}
	return h;
}

static void join(struct sweep *s, int bpf_fd)
{
	struct nm_htab *idx = index_bpf(bpf_fd);
	struct qs_qdisc *v;

	if (!idx)
		nm_info(&env.o, "warning: out of memory: qdiscs judged without their events");
	for (size_t i = 0; i < s->n; i++) {
		struct qrow *r = &s->rows[i], *p = r, *up;
		struct qs_qdisc_key k = { .netns = env.o.netns_ino };

		r->lockless = !strcmp(r->nl.kind, "pfifo_fast");
		for (int depth = 0; p && depth < 8; depth++, p = up) {
			r->shaper |= qs_kind_is_shaper(p->nl.kind);
			up = parent_row(s, p);
			if (up && is_mq(up->nl.kind))
				r->txq = qs_mq_child_queue(p->nl.parent, up->nl.handle);
			k.ifindex = p->nl.ifindex;
			k.parent = p->nl.parent;
			k.handle = p->nl.handle;
			if (!r->have_bpf && idx && (v = nm_htab_get(idx, &k))) {
				r->bpf = *v;
				r->have_bpf = true;
				r->own_bpf = p == r;
			}
			if (!up || is_mq(up->nl.kind))
				break;
		}
		if (r->txq < 0 && ntxq(r->nl.ifindex) == 1)
			r->txq = 0;
	}
	nm_htab_free(idx);
}

static struct qs_track *track_of(struct sweep *s, const struct qrow *r)
{
	struct track_ent *e;

	for (size_t i = 0; i < s->ntracks; i++) {
		e = &s->tracks[i];
		if (e->ifindex == r->nl.ifindex && e->parent == r->nl.parent &&
		    e->handle == r->nl.handle && !strcmp(e->kind, r->nl.kind)) {
			e->seen = true;
			return &e->t;
		}
	}
	if (s->ntracks >= MAX_Q)
		return NULL;
	e = &s->tracks[s->ntracks++];
	memset(e, 0, sizeof(*e));
	e->ifindex = r->nl.ifindex;
	e->parent = r->nl.parent;
	e->handle = r->nl.handle;
	snprintf(e->kind, sizeof(e->kind), "%s", r->nl.kind);
	e->seen = true;
	return &e->t;
}

static struct track_ent *track_ent_of(struct qs_track *t)
{
	return (struct track_ent *)((char *)t - offsetof(struct track_ent, t));
}

/* Forget the qdiscs that are gone (deleted or replaced). */
static void prune_tracks(struct sweep *s)
{
	size_t n = 0;

	for (size_t i = 0; i < s->ntracks; i++) {
		if (!s->tracks[i].seen)
			continue;
		s->tracks[i].seen = false;
		s->tracks[n++] = s->tracks[i];
	}
	s->ntracks = n;
}

static struct devq *devq_of(struct sweep *s, unsigned int ifindex, int txq)
{
	for (size_t i = 0; i < s->ndq; i++)
		if (s->dq[i].ifindex == ifindex && s->dq[i].txq == txq)
			return &s->dq[i];
	if (s->ndq >= MAX_Q)
		return NULL;
	memset(&s->dq[s->ndq], 0, sizeof(s->dq[0]));
	s->dq[s->ndq].ifindex = ifindex;
	s->dq[s->ndq].txq = txq;
	return &s->dq[s->ndq++];
}

static void observe(const struct qrow *r, uint64_t now, struct qs_obs *o)
{
	memset(o, 0, sizeof(*o));
	o->now_ns = now;
	o->qlen = r->nl.qlen;
	o->backlog = r->nl.backlog;
	o->packets = r->nl.packets;
	o->requeues = r->nl.requeues;
	o->shaper = r->shaper;
	if (!r->have_bpf)
		return;
	o->have_events = true;
	/* a leaf's own progress is its counter; the runner's dequeues are not all its own */
	o->last_deq_ns = r->own_bpf ? r->bpf.last_deq_ns : 0;
	o->last_enq_ns = r->own_bpf ? r->bpf.last_enq_ns : 0;
	o->last_was_null = r->bpf.last_was_null;
	o->null_txq_state = r->bpf.null_txq_state;
	o->wd_expires_ns = r->bpf.wd_expires_ns;
	o->sampled = r->bpf.sample_ns != 0;
	o->q_state = r->bpf.s_state;
	o->running = r->bpf.s_running;
	o->txq_state = r->bpf.s_txq_state;
}

/* A mq root only sums its children: they are judged, it is not. */
static bool judged(const struct qrow *r)
{
	return !is_mq(r->nl.kind);
}

static void classify_all(struct sweep *s)
{
	uint64_t threshold = env.threshold_ms * 1000000ULL;

	memset(s->per_state, 0, sizeof(s->per_state));
	for (size_t i = 0; i < s->ndq; i++) {
		s->dq[i].present = false;
		s->dq[i].state = QS_IDLE;
	}
	for (size_t i = 0; i < s->n; i++) {
		struct qrow *r = &s->rows[i];
		uint64_t bad_before, entered_before[QS_NSTATES];
		struct qs_obs o;
		struct devq *d;

		if (!judged(r) || !(r->t = track_of(s, r)))
			continue;
		bad_before = r->t->bad_ns;
		memcpy(entered_before, r->t->entered, sizeof(entered_before));
		observe(r, s->now_ns, &o);
		qs_update(r->t, &o, threshold);
		s->per_state[r->t->state]++;
		d = devq_of(s, r->nl.ifindex, r->txq);
		if (!d)
			continue;
		d->bad_s += (r->t->bad_ns - bad_before) / 1e9;
		d->state = qs_state_worse(d->state, r->t->state);
		for (int st = 0; st < QS_NSTATES; st++)
			d->entered[st] += r->t->entered[st] - entered_before[st];
		/* the backlog of a queue is what its runner holds (it counts its leaves) */
		if (r->own_bpf || !r->have_bpf || r->nl.parent == TC_H_ROOT_ || r->txq >= 0) {
			if (!d->present || r->own_bpf) {
				d->qlen = r->nl.qlen;
				d->backlog = r->nl.backlog;
			}
			d->present = true;
		}
	}
	prune_tracks(s);
}

static void read_counters(int fd, struct sweep *s)
{
	for (uint32_t i = 0; i < QS_CNT_MAX; i++)
		s->counters[i] = nm_percpu_u64(fd, &i);
}

/* Runs the sampler: every tracked qdisc's scheduling state, now. */
static int run_sampler(struct qdiscstuck_bpf *skel)
{
	LIBBPF_OPTS(bpf_test_run_opts, ro);

	return bpf_prog_test_run_opts(bpf_program__fd(skel->progs.qs_sample), &ro) ? -errno : 0;
}

static void sample(struct qdiscstuck_bpf *skel)
{
	static bool warned;
	int err;

	if (bpf_program__fd(skel->progs.qs_sample) < 0)
		return;	/* its rung was refused: the first line said so */
	err = run_sampler(skel);
	if (err && !warned) {
		warned = true;
		nm_info(&env.o, "warning: the sampler program stopped running (%s): scheduling state unknown, judging by events",
			strerror(-err));
	}
}

static int sweep(struct qdiscstuck_bpf *skel, struct sweep *s)
{
	char err[256];
	int ret;

	sample(skel);
	s->n = 0;
	s->now_ns = nm_mono_ns();
	ret = nm_rtnl_qdisc_dump(0, collect, s, err, sizeof(err));
	if (ret)
		return nm_err(&env.o, NM_EXIT_RUNTIME, "qdisc statistics: %s", err);
	join(s, bpf_map__fd(skel->maps.qdiscs));
	read_counters(bpf_map__fd(skel->maps.counters), s);
	s->bpf_entries = s->counters[QS_CNT_SAMPLED];
	classify_all(s);
	return 0;
}

/* ---- output ---- */

static const char *dev_name(unsigned int ifindex, char *buf, size_t len)
{
	return nm_dev_name(&env.o, env.o.netns_ino, ifindex, buf, len);
}

static bool shown(const struct qrow *r)
{
	return r->t && (env.all || r->t->state != QS_IDLE || r->nl.qlen);
}

/* Worst first: stuck, driver_stopped, then by backlog. */
static int rank_of(const struct qrow *r)
{
	static const int rank[QS_NSTATES] = { [QS_STUCK] = 0, [QS_DRIVER_STOPPED] = 1,
					      [QS_SHAPED] = 2, [QS_OK] = 3, [QS_IDLE] = 4 };

	return r->t ? rank[r->t->state] : 5;
}

static int cmp_rows(const void *a, const void *b)
{
	const struct qrow *x = a, *y = b;

	if (rank_of(x) != rank_of(y))
		return rank_of(x) - rank_of(y);
	return (int)y->nl.qlen - (int)x->nl.qlen;
}

/* A queue's labels: "all" for a device-wide (root) qdisc. */
static void queue_row(struct qs_queue_row *q, const struct devq *d)
{
	memset(q, 0, sizeof(*q));
	dev_name(d->ifindex, q->device, sizeof(q->device));
	if (d->txq < 0)
		snprintf(q->queue, sizeof(q->queue), "all");
	else
		snprintf(q->queue, sizeof(q->queue), "%d", d->txq);
	q->stuck_seconds = d->bad_s;
	q->backlog_packets = d->qlen;
	q->backlog_bytes = d->backlog;
	memcpy(q->entered, d->entered, sizeof(q->entered));
	q->state = d->state;
	q->present = d->present;
}

/* The rows the sinks read, from the judged sweep (rows sorted, worst first). */
static void fill_rows(struct sweep *s)
{
	char dev[IF_NAMESIZE + 8];

	s->ival.time = (uint64_t)time(NULL);
	s->ival.mono_ns = s->now_ns;
	s->ival.qdiscs = s->n;
	for (int st = 0; st < QS_NSTATES; st++)
		s->ival.per_state[st] = s->per_state[st];
	s->nout = 0;
	for (size_t i = 0; i < s->n; i++) {
		const struct qrow *r = &s->rows[i];

		if (!shown(r))
			continue;
		qs_qdisc_row(&s->out[s->nout++], dev_name(r->nl.ifindex, dev, sizeof(dev)), &r->nl,
			     r->t, r->have_bpf ? &r->bpf : NULL, r->txq, r->lockless, s->now_ns);
	}
	for (size_t i = 0; i < s->ndq; i++)
		queue_row(&s->qrows[i], &s->dq[i]);
}

static void print_table(FILE *f, const struct sweep *s)
{
	const uint64_t *n = s->ival.per_state;
	time_t t = time(NULL);
	char ts[16];

	strftime(ts, sizeof(ts), "%H:%M:%S", localtime(&t));
	fprintf(f, "\n%s  qdiscs: %llu stuck, %llu driver_stopped, %llu shaped, %llu ok, %llu idle\n",
		ts, (unsigned long long)n[QS_STUCK], (unsigned long long)n[QS_DRIVER_STOPPED],
		(unsigned long long)n[QS_SHAPED], (unsigned long long)n[QS_OK],
		(unsigned long long)n[QS_IDLE]);
	nm_rec_table_header(f, &qs_qdisc_rec);
	for (size_t i = 0; i < s->nout; i++)
		nm_rec_table_row(f, &qs_qdisc_rec, &s->out[i]);
	fflush(f);
}

static void print_json(const struct sweep *s)
{
	nm_rec_json(stdout, &qs_interval_rec, &s->ival);
	for (size_t i = 0; i < s->nout; i++)
		nm_rec_json(stdout, &qs_qdisc_rec, &s->out[i]);
}

static int write_prom(struct qdiscstuck_bpf *skel, struct sweep *s, const struct nm_hook *hooks)
{
	struct nm_prom *p = nm_prom_new();
	char err[256];
	int ret;

	if (!p)
		return -ENOMEM;
	nm_rec_prom(p, &qs_interval_rec, &s->ival, sizeof(s->ival), 1);
	nm_rec_prom(p, &qs_queue_rec, s->qrows, sizeof(s->qrows[0]), s->ndq);
	nm_self_prom(p, TOOL, skel->obj, hooks, NR_HOOKS);
	nm_self_prom_map(p, TOOL, "qdiscs", s->bpf_entries, QS_MAX_QDISCS, 0);
	ret = nm_prom_write_atomic(p, env.o.prom_file, err, sizeof(err));
	if (ret)
		nm_err(&env.o, NM_EXIT_RUNTIME, "--prom-file: %s", err);
	nm_prom_free(p);
	return ret;
}

/* ---- remedy: kick ---- */

static uint64_t kicks_on(struct qdiscstuck_bpf *skel, unsigned int ifindex, unsigned int queue)
{
	struct qs_txq_key k = { .netns = env.o.netns_ino, .ifindex = ifindex, .queue = queue };
	struct qs_txq v;

	if (bpf_map_lookup_elem(bpf_map__fd(skel->maps.txqs), &k, &v))
		return 0;
	return v.kicks;
}

/* The CPUs whose XPS map sends to tx-queue, as a mask of the first 64. */
static uint64_t xps_cpus(const char *dev, unsigned int queue)
{
	char path[128], buf[256];

	snprintf(path, sizeof(path), "/sys/class/net/%s/queues/tx-%u/xps_cpus", dev, queue);
	if (nm_sysfs_line(path, buf, sizeof(buf)))
		return 0;
	return qs_xps_mask(buf);
}

/*
 * A frame nobody takes: IPv4 protocol 253 (RFC 3692, experiments), TTL 1,
 * to a locally administered MAC that is not the peer's, so the receiver
 * drops it as PACKET_OTHERHOST. The source address varies with 'salt' so
 * that the flow hash, and with it the queue the kernel picks, varies
 * where no XPS map decides.
 */
static size_t kick_frame(unsigned char *buf, const unsigned char *src_mac, unsigned int salt)
{
	static const unsigned char dst[6] = { 0x02, 0x6e, 0x6d, 0x6b, 0x6b, 0x00 };
	unsigned char *ip = buf + 14;
	uint32_t sum = 0;

	memset(buf, 0, 60);
	memcpy(buf, dst, 6);
	memcpy(buf + 6, src_mac, 6);
	buf[12] = 0x08;
	ip[0] = 0x45;
	ip[3] = 46 - 0;		/* total length 46: a minimum-size frame */
	ip[8] = 1;		/* TTL */
	ip[9] = 253;
	ip[12] = 198, ip[13] = 18, ip[14] = 255, ip[15] = salt & 0xff;
	ip[16] = 198, ip[17] = 18, ip[18] = 255, ip[19] = 255;
	for (int i = 0; i < 20; i += 2)
		sum += ip[i] << 8 | ip[i + 1];
	while (sum >> 16)
		sum = (sum & 0xffff) + (sum >> 16);
	ip[10] = ~sum >> 8, ip[11] = ~sum & 0xff;
	return 60;
}

struct kick_result {
	bool reached;
	int attempts;
	int stray;		/* frames that went to another queue */
};

static int kick_send(int fd, unsigned int ifindex, const unsigned char *mac, unsigned int salt)
{
	struct sockaddr_ll sll = { .sll_family = AF_PACKET, .sll_ifindex = ifindex, .sll_halen = 6 };
	unsigned char frame[64];
	size_t len = kick_frame(frame, mac, salt);

	memcpy(sll.sll_addr, frame, 6);
	return sendto(fd, frame, len, 0, (struct sockaddr *)&sll, sizeof(sll)) < 0 ? -errno : 0;
}

static int open_kick_socket(const char *dev, unsigned char *mac)
{
	unsigned int mark = QS_KICK_MARK;
	struct ifreq ifr = {};
	int fd = socket(AF_PACKET, SOCK_RAW, 0);	/* protocol 0: send only */

	if (fd < 0)
		return -errno;
	snprintf(ifr.ifr_name, sizeof(ifr.ifr_name), "%s", dev);
	if (ioctl(fd, SIOCGIFHWADDR, &ifr) < 0)
		memset(mac, 0, 6);
	else
		memcpy(mac, ifr.ifr_hwaddr.sa_data, 6);
	/* the mark lets the BPF side see where the frame was queued */
	if (setsockopt(fd, SOL_SOCKET, SO_MARK, &mark, sizeof(mark)) < 0) {
		int e = -errno;

		close(fd);
		return e;
	}
	return fd;
}

/*
 * Puts one frame on dev's TX queue 'queue', through the qdisc (no
 * PACKET_QDISC_BYPASS): its enqueue runs the qdisc again. The kernel
 * picks the queue: from the sending CPU's XPS map when there is one (so
 * send from a CPU mapped to the queue), else from the flow hash (so vary
 * the frame). The BPF side counts where each frame went.
 */
static int kick(struct qdiscstuck_bpf *skel, const char *dev, unsigned int ifindex,
		unsigned int queue, struct kick_result *res)
{
	uint64_t xps = xps_cpus(dev, queue), before = kicks_on(skel, ifindex, queue);
	int ncpu = libbpf_num_possible_cpus(), fd, ret = 0;
	unsigned char mac[6];
	cpu_set_t old, set;

	memset(res, 0, sizeof(*res));
	fd = open_kick_socket(dev, mac);
	if (fd < 0)
		return fd;
	sched_getaffinity(0, sizeof(old), &old);
	for (int i = 0; i < KICK_TRIES && !res->reached && !ret; i++) {
		int cpu = i % ncpu;

		if (xps) {
			/* only the CPUs whose XPS map names this queue */
			while (!(xps & (1ULL << (cpu & 63))))
				cpu = (cpu + 1) % ncpu;
		}
		CPU_ZERO(&set);
		CPU_SET(cpu, &set);
		if (sched_setaffinity(0, sizeof(set), &set))
			continue;
		ret = kick_send(fd, ifindex, mac, i);
		res->attempts++;
		res->reached = kicks_on(skel, ifindex, queue) > before;
		if (!res->reached && !ret)
			res->stray++;
	}
	sched_setaffinity(0, sizeof(old), &old);
	close(fd);
	return ret;
}

static void json_kick(const char *dev, unsigned int queue, const struct kick_result *k,
		      const char *why, uint64_t start_ns)
{
	/* mono_ns: when the first frame went: its enqueue is what runs the qdisc */
	struct qs_kick_row r = { .mono_ns = start_ns, .txq = queue, .reached = k->reached,
				 .attempts = k->attempts, .stray = k->stray, .why = why };

	snprintf(r.dev, sizeof(r.dev), "%s", dev);
	nm_rec_json(stdout, &qs_kick_rec, &r);
}

/* A kick's outcome into line (made or not), or why it could not be sent into err. */
static int do_kick(struct qdiscstuck_bpf *skel, const char *dev, unsigned int ifindex,
		   unsigned int queue, const char *why, char *line, size_t len, char *err, size_t errlen)
{
	uint64_t start_ns = nm_mono_ns();
	struct kick_result k;
	int ret = kick(skel, dev, ifindex, queue, &k);

	if (ret) {
		snprintf(err, errlen, "kick %s tx-%u: %s", dev, queue, strerror(-ret));
		return ret;
	}
	if (env.o.json)
		json_kick(dev, queue, &k, why, start_ns);
	if (k.reached)
		snprintf(line, len, "kick: %s tx-%u: one frame queued there (%d attempt(s), %d elsewhere): its enqueue runs the qdisc; the next report shows whether the backlog moved",
			 dev, queue, k.attempts, k.stray);
	else
		snprintf(line, len, "kick: %s tx-%u: no frame reached that queue in %d attempts (%d went elsewhere): the kernel picks queues by XPS map or flow hash, not by request",
			 dev, queue, k.attempts, k.stray);
	return k.reached ? 0 : -EAGAIN;
}

/* ---- remedy: lock ---- */

/* CONFIG_NET_SCH_BPF builds the bpf_qdisc kfuncs: their presence in BTF tells. */
/* --fix=kick's lever: one frame sent on the queue (AF_PACKET) runs the qdisc. */
static int probe_kick(const struct nm_fix *f, char *why, size_t len)
{
	int fd = socket(AF_PACKET, SOCK_RAW, 0);

	(void)f;
	if (fd < 0) {
		snprintf(why, len, "AF_PACKET socket: %s", strerror(errno));
		return -errno;
	}
	close(fd);
	return 0;
}

/* --list-fixes: each remedy, its lever, and whether this kernel allows it. */
enum { QFIX_KICK, QFIX_LOCK, QFIX_LOCK_BPF };
static const struct nm_fix fixes[] = {
	[QFIX_KICK] = { "kick", "a frame on the stuck TX queue (AF_PACKET): the qdisc runs", probe_kick, NULL, NULL },
	[QFIX_LOCK] = { "lock", "tc qdisc replace: pfifo (locked) for pfifo_fast", nm_fix_probe_cmd, "tc", NULL },
	/* the struct_ops lever a locked BPF FIFO would use (6.16+); not used yet */
	[QFIX_LOCK_BPF] = { "lock-bpf", "struct_ops Qdisc_ops: a BPF FIFO (6.16+; netmedic has none yet)",
			    nm_fix_probe_btf_type, "bpf_struct_ops_Qdisc_ops", NULL },
};

static bool kernel_has_bpf_qdisc(void)
{
	char why[128];

	return !nm_fix_probe_btf_type(&fixes[QFIX_LOCK_BPF], why, sizeof(why));
}

/* The lock's journal, opened at the first replace (x->open). */
static int lock_open(struct nm_exec *x, const struct nm_action *a, char *err, size_t len)
{
	char key[64], nspath[256];

	(void)a;
	if (kernel_has_bpf_qdisc())
		nm_info(&env.o, "lock: this kernel builds BPF qdiscs (CONFIG_NET_SCH_BPF), but netmedic has no struct_ops FIFO yet: using the kernel's pfifo, which runs under the root qdisc lock");
	else
		nm_info(&env.o, "lock: this kernel has no BPF qdiscs (CONFIG_NET_SCH_BPF is not set): using the kernel's pfifo, which runs under the root qdisc lock");
	snprintf(key, sizeof(key), "%lu-lock", env.o.netns_ino);
	return nm_journal_open(&x->j, TOOL, key,
			       env.o.netns ? nm_netns_path(env.o.netns, nspath, sizeof(nspath)) : NULL,
			       err, len);
}

static int txqueuelen(const char *dev)
{
	char path[128];
	long v;

	snprintf(path, sizeof(path), "/sys/class/net/%s/tx_queue_len", dev);
	v = nm_sysfs_long(path, 1000);
	return v >= 1 && v <= 0x7fffffff ? (int)v : 1000;
}

struct find_ctx {
	unsigned int ifindex;
	unsigned int queue;
	struct nm_qdisc_stats mq, child;
	bool have_mq, have_child, have_root;
	struct nm_qdisc_stats root;
};

static int find_q(const struct nm_qdisc_stats *q, void *arg)
{
	struct find_ctx *c = arg;

	if (q->parent == TC_H_ROOT_) {
		c->root = *q;
		c->have_root = true;
		if (is_mq(q->kind)) {
			c->mq = *q;
			c->have_mq = true;
		}
	}
	return 0;
}

static int find_child(const struct nm_qdisc_stats *q, void *arg)
{
	struct find_ctx *c = arg;

	if (c->have_mq && q->parent == ((c->mq.handle & 0xffff0000U) | (c->queue + 1))) {
		c->child = *q;
		c->have_child = true;
	}
	return 0;
}

/* The qdisc the TX queue runs: the mq child, or the root of a one-queue device. */
static int queue_qdisc(const char *dev, unsigned int ifindex, unsigned int queue,
		       struct find_ctx *c, char *err, size_t errlen)
{
	memset(c, 0, sizeof(*c));
	c->ifindex = ifindex;
	c->queue = queue;
	if (nm_rtnl_qdisc_dump(ifindex, find_q, c, err, errlen) ||
	    nm_rtnl_qdisc_dump(ifindex, find_child, c, err, errlen))
		return -1;
	if (c->have_child)
		return 0;
	if (c->have_root && !c->have_mq && queue == 0 && ntxq(ifindex) == 1) {
		c->child = c->root;
		c->have_child = true;
		return 0;
	}
	snprintf(err, errlen, "%s tx-%u has no qdisc of its own (root %s%s)", dev, queue,
		 c->have_root ? c->root.kind : "none",
		 c->have_mq ? "" : ": only the children of mq, or the root of a one-queue device, can be replaced");
	return -1;
}

/*
 * A lock check (x->call): reads the qdisc the queue runs, after its kick,
 * and carries out what qs_lock_plan makes of it: a note, or the replace by
 * pfifo of the same limit (journaled first; only while it holds nothing).
 */
static int lock_check(struct nm_exec *x, const struct qs_fix_target *t, char *err, size_t len)
{
	struct qs_lock_facts f = {};
	struct nm_plan p = {};
	struct find_ctx c;
	int ret;

	if (queue_qdisc(t->dev, t->ifindex, t->queue, &c, err, len))
		return -EIO;
	snprintf(f.kind, sizeof(f.kind), "%s", c.child.kind);
	f.parent = c.child.parent;
	f.handle = c.child.handle;
	f.qlen = c.child.qlen;
	f.backlog = c.child.backlog;
	f.limit = txqueuelen(t->dev);
	ret = qs_lock_plan(t->dev, t->queue, &f, &p);
	if (ret)
		snprintf(err, len, "%s tx-%u: %s", t->dev, t->queue, strerror(-ret));
	else if (nm_exec_plan(x, &p))
		ret = -EIO;	/* said by the executor */
	nm_plan_free(&p);
	return ret;
}

/* The executor's calls: a kick's frame, a lock's check. */
static int fix_call(struct nm_exec *x, struct nm_action *a, char *err, size_t len)
{
	struct qs_fix_target t;

	if (qs_fix_target(a, &t)) {
		snprintf(err, len, "not a queue: %s", a->target);
		return -EINVAL;
	}
	if (a->remedy == QS_FIX_LOCK)
		return lock_check(x, &t, err, len);
	return do_kick(x->arg, t.dev, t.ifindex, t.queue, a->val, a->line, sizeof(a->line), err, len);
}

/* The one executor of the remedies: kicks, lock checks and the lock's journal. */
static void fix_init(struct nm_exec *x, struct qdiscstuck_bpf *skel)
{
	*x = (struct nm_exec){ .tool = TOOL, .log = stderr, .home_fd = -1, .call = fix_call,
			       .open = lock_open, .arg = skel,
			       .restoring = "lock: restoring the lockless qdiscs", .unrestored = "" };
}

static void remedies(struct sweep *s, struct nm_exec *x, unsigned int fix)
{
	struct nm_plan p = {};
	int ret;

	for (size_t i = 0; i < s->n; i++) {
		struct qrow *r = &s->rows[i];

		s->fix[i] = (struct qs_fix_row){ .t = r->t };
		if (!r->t)
			continue;
		s->fix[i] = (struct qs_fix_row){
			.t = r->t, .done = &track_ent_of(r->t)->fd,
			.dev = dev_name(r->nl.ifindex, s->fix_dev[i], sizeof(s->fix_dev[i])),
			.ifindex = r->nl.ifindex, .txq = r->txq, .lockless = r->lockless,
			.parent = r->nl.parent, .handle = r->nl.handle,
			.qlen = r->nl.qlen, .backlog = r->nl.backlog,
		};
	}
	ret = qs_fix_plan(s->fix, s->n, fix, s->now_ns, &p);
	if (ret)
		nm_info(&env.o, "warning: no remedies at this sweep: %s", strerror(-ret));
	else
		nm_exec_plan(x, &p);
	nm_plan_free(&p);
}

/* ---- main ---- */

static void report(struct qdiscstuck_bpf *skel, struct sweep *s, const struct nm_hook *hooks,
		   struct nm_exec *x)
{
	if (sweep(skel, s))
		return;
	if (s->n)
		qsort(s->rows, s->n, sizeof(*s->rows), cmp_rows);
	fill_rows(s);
	if (env.o.json)
		print_json(s);
	if (env.o.table)
		print_table(env.o.json ? stderr : stdout, s);
	if (env.o.prom_file)
		write_prom(skel, s, hooks);
	/* without --fix, --verbose still explains the driver_stopped queues */
	if (env.fix || env.o.verbose)
		remedies(s, x, env.fix);
}

static void print_start(const struct nm_hook *hooks)
{
	char loss[1024];
	char sum[256], devs[128] = "all";
	size_t off = 0;

	for (int i = 0; i < env.o.ndevs; i++)
		off += snprintf(devs + off, sizeof(devs) - off, "%s%s", i ? "," : "", env.o.devs[i]);
	nm_hooks_summary(hooks, NR_HOOKS, sum, sizeof(sum));
	if (env.o.json) {
		struct qs_start_row r = {
			.tool = TOOL, .kernel = nm_kernel_release(), .hooks = hooks,
			.nhooks = NR_HOOKS, .interval = env.o.interval,
			.threshold_ms = env.threshold_ms, .devices = devs,
			.fix_kick = env.fix & FIX_KICK, .fix_lock = env.fix & FIX_LOCK,
		};

		nm_rec_json(stdout, &qs_start_rec, &r);
	}
	if (env.o.table) {
		FILE *f = env.o.json ? stderr : stdout;

		fprintf(f, "qdiscstuck: kernel %s, hooks %s, interval %gs, threshold %ldms, devices %s%s%s%s\n",
			nm_kernel_release(), sum, env.o.interval, env.threshold_ms, devs,
			env.fix & FIX_KICK ? ", --fix=kick" : "", env.fix & FIX_LOCK ? ", --fix=lock" : "",
			nm_hooks_losses(hooks, NR_HOOKS, loss, sizeof(loss)));
		fflush(f);
	}
}

/* ---- skeleton ---- */

static void skel_prepare(void *p, struct nm_hook *hooks)
{
	struct qdiscstuck_bpf *skel = p;

	nm_set_dev_filter(&env.o, &skel->rodata->targ_ndevs, skel->rodata->targ_netns,
			  skel->rodata->targ_ifindex);
	/* the sampler is run by test-run, never attached */
	bpf_program__set_autoattach(skel->progs.qs_sample, false);
	declare_hooks(skel, hooks);
}

/* The sampler is run by test-run, never attached: its first run is its test. */
static int skel_attach(void *p, struct nm_hook *hooks, struct bpf_program **failed,
		       const char **stage)
{
	struct qdiscstuck_bpf *skel = p;
	int err;

	if (!nm_hook_can(&hooks[HOOK_SAMPLE], CAN_SAMPLE))
		return 0;
	err = run_sampler(skel);
	if (err) {
		*failed = skel->progs.qs_sample;
		*stage = "run";
	}
	return err;
}

NM_SKEL_OPS(qdiscstuck, skel_prepare, skel_attach, NR_HOOKS);

/* Resolves --kick/--lock's DEV:QUEUE after --netns; usage error when absent. */
static int resolve_dev_queue(const char *arg, const char *opt, char *dev, unsigned int *ifindex,
			     unsigned int *queue)
{
	qs_parse_dev_queue(arg, dev, IF_NAMESIZE, queue);
	*ifindex = if_nametoindex(dev);
	if (!*ifindex)
		return nm_err(&env.o, NM_EXIT_USAGE, "%s: unknown device '%s'%s%s", opt, dev,
			      env.o.netns ? " in netns " : "", env.o.netns ? env.o.netns : "");
	if ((int)*queue >= ntxq(*ifindex))
		return nm_err(&env.o, NM_EXIT_USAGE, "%s: %s has %d TX queue(s): no tx-%u", opt, dev,
			      ntxq(*ifindex), *queue);
	return 0;
}

static void sweep_free(struct sweep *s)
{
	if (!s)
		return;
	free(s->rows), free(s->tracks), free(s->dq), free(s->out), free(s->qrows);
	free(s->fix), free(s->fix_dev);
	free(s);
}

static struct sweep *sweep_new(void)
{
	struct sweep *s = calloc(1, sizeof(*s));

	if (!s)
		return NULL;
	s->rows = calloc(MAX_Q, sizeof(*s->rows));
	s->tracks = calloc(MAX_Q, sizeof(*s->tracks));
	s->dq = calloc(MAX_Q, sizeof(*s->dq));
	s->out = calloc(MAX_Q, sizeof(*s->out));
	s->qrows = calloc(MAX_Q, sizeof(*s->qrows));
	s->fix = calloc(MAX_Q, sizeof(*s->fix));
	s->fix_dev = calloc(MAX_Q, sizeof(*s->fix_dev));
	if (!s->rows || !s->tracks || !s->dq || !s->out || !s->qrows || !s->fix || !s->fix_dev) {
		sweep_free(s);
		return NULL;
	}
	return s;
}


int main(int argc, char **argv)
{
	char kdev[IF_NAMESIZE] = "", ldev[IF_NAMESIZE] = "";
	unsigned int kif = 0, kq = 0, lif = 0, lq = 0;
	struct nm_hook hooks[NR_HOOKS];
	struct qdiscstuck_bpf *skel = NULL;
	struct nm_exec fx;
	struct nm_plan p = {};
	struct sweep *s = NULL;
	uint64_t deadline = 0;
	int stats_fd = -1, ret;

	nm_opts_init(&env.o, TOOL);
	fix_init(&fx, NULL);
	/* --lock undoes its replace with tc; a journal may run nothing else */
	nm_journal_allow_cmd("tc");
	env.threshold_ms = QS_THRESHOLD_MS_DEFAULT;
	argp_parse(&argp, argc, argv, 0, NULL, NULL);
	nm_install_signals();	/* before anything is changed */
	/* lock: tc qdisc replace, undone with tc; kick: AF_PACKET frames */
	env.o.caps.remedy = env.o.caps.remedy_exec = env.lock || (env.fix & FIX_LOCK);
	env.o.caps.journal = env.o.caps.remedy;
	env.o.caps.raw = env.kick || (env.fix & FIX_KICK);
	env.o.caps.remedy_opt = env.lock ? "--lock" : env.kick ? "--kick" : "--fix";
	if (env.o.cleanup)
		return nm_cleanup_main(&env.o);
	ret = nm_setup(&env.o);
	if (ret)
		return ret;
	if (env.list_fixes) {
		nm_fixes_list(stdout, fixes, sizeof(fixes) / sizeof(fixes[0]));
		return NM_EXIT_OK;
	}
	if (env.kick && (ret = resolve_dev_queue(env.kick, "--kick", kdev, &kif, &kq)))
		return ret;
	if (env.lock && (ret = resolve_dev_queue(env.lock, "--lock", ldev, &lif, &lq)))
		return ret;
	s = sweep_new();
	if (!s)
		return nm_err(&env.o, NM_EXIT_RUNTIME, "out of memory");
	nm_test_stop("load");
	ret = nm_skel_load(&env.o, &skel_ops, (void **)&skel, hooks);
	if (ret) {
		qdiscstuck_bpf__destroy(skel);
		sweep_free(s);
		return ret == NM_SKEL_LISTED ? NM_EXIT_OK : ret;
	}
	if (nm_exiting)
		goto out;	/* a signal during the load: nothing was changed */
	if (env.o.bpf_stats)
		stats_fd = nm_self_enable_stats(&env.o);
	ret = nm_caps_after_attach(&env.o);
	if (ret)
		goto out;
	fx.arg = skel;
	if (env.kick) {
		ret = qs_plan_kick(&p, kdev, kif, kq, 0, 0, "--kick") < 0 || nm_exec_plan(&fx, &p) ?
		      NM_EXIT_RUNTIME : 0;
		goto out;
	}
	if (env.lock) {
		nm_test_stop("change");
		if (nm_exiting)
			goto out;
		ret = qs_plan_lock_check(&p, ldev, lif, lq) < 0 || nm_exec_plan(&fx, &p) ?
		      NM_EXIT_RUNTIME : 0;
	}
	if (!ret && env.lock && !nm_journal_count(fx.j))
		ret = NM_EXIT_RUNTIME;	/* said why: not lockless, or not empty */
	if (!ret) {
		print_start(hooks);
		/* the first sweep only learns the counters */
		sweep(skel, s);
	}
	/*
	 * On a fixed grid: a stall is reported within the threshold plus one
	 * interval, which a sleep after each sweep (and kick) would stretch
	 */
	for (long n = 0; !ret && !nm_exiting && (!env.o.count || n < env.o.count); n++) {
		deadline = nm_next_deadline(deadline, (uint64_t)(env.o.interval * 1e9), nm_mono_ns());
		nm_sleep_until(deadline);
		report(skel, s, hooks, &fx);
	}
out:
	nm_exec_undo(&fx);
	nm_plan_free(&p);
	if (stats_fd >= 0)
		close(stats_fd);
	qdiscstuck_bpf__destroy(skel);
	sweep_free(s);
	return ret;
}
