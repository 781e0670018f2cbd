// SPDX-License-Identifier: GPL-2.0
/*
 * qdiscstuck - packets that sit in a qdisc (children of mq and other
 * classful roots too), told apart: ok, idle, shaped, driver_stopped, stuck.
 * Remedies: --fix=kick (a frame on the stuck queue makes its qdisc run),
 * --fix=lock (a locked FIFO in place of a lockless child), --kick, --lock.
 *
 * Loader: hook ladder, skeleton, the rtnetlink sweep and the sinks' rows;
 * lib/run.c runs it, lib/qdiscstuck_opts.c has its options. Decisions live in
 * src/detect/qdiscstuck_detect.c, the remedies' policy in
 * src/detect/qdiscstuck_plan.c, their I/O in src/lib/qdiscstuck_act.c;
 * lib/plan.c makes them.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <net/if.h>
#include <bpf/bpf.h>
#include <bpf/libbpf.h>
#include "netmedic/qdiscstuck.h"
#include "qdiscstuck.skel.h"
#include "detect/qdiscstuck_detect.h"
#include "detect/qdiscstuck_plan.h"
#include "lib/cli.h"
#include "lib/emit.h"
#include "lib/htab.h"
#include "lib/journal.h"
#include "lib/qdiscstuck_act.h"
#include "lib/qdiscstuck_hooks.h"
#include "lib/qdiscstuck_opts.h"
#include "lib/qdiscstuck_records.h"
#include "lib/run.h"
#include "lib/rtnl.h"
#include "lib/skel.h"
#include "lib/sysfs.h"

#define TOOL		"qdiscstuck"
#define MAX_Q		QS_MAX_QDISCS
#define TC_H_ROOT_	0xffffffffU

enum { FIX_KICK = QS_FIX_KICK, FIX_LOCK = QS_FIX_LOCK };

static struct qs_env env;

const char *argp_program_version = "qdiscstuck (netmedic) 0.1";
const char *argp_program_bug_address = "the netmedic issue tracker";

/* ---- hooks (the ladder: lib/qdiscstuck_hooks.c) ---- */

static void declare_hooks(struct qdiscstuck_bpf *skel, struct nm_hook *hooks)
{
	nm_hooks_declare(hooks, qs_hook_decls, QS_NR_HOOKS, skel->obj, 0);
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

/*
 * Walks up from each qdisc to the one its TX queue runs (a child of mq, or
 * the root): that one has the events; the leaves of a classful qdisc have
 * none of their own. A shaper anywhere on the way makes the backlog shaped.
 */
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
			if (up && qs_kind_is_mq(up->nl.kind))
				r->txq = qs_mq_child_queue(p->nl.parent, up->nl.handle);
			k.ifindex = p->nl.ifindex;
			k.parent = p->nl.parent;
			k.handle = p->nl.handle;
			if (!r->have_bpf && idx && (v = nm_htab_get(idx, &k))) {
				r->bpf = *v;
				r->have_bpf = true;
				r->own_bpf = p == r;
			}
			if (!up || qs_kind_is_mq(up->nl.kind))
				break;
		}
		if (r->txq < 0 && nm_ifindex_ntxq(r->nl.ifindex) == 1)
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
	return !qs_kind_is_mq(r->nl.kind);
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

/* What a report holds: the interval, the qdiscs shown; for the textfile every queue's metrics. */
static void emit_fill(struct nm_emit *e, const struct sweep *s)
{
	const uint64_t *n = s->ival.per_state;
	struct nm_emit_table *t = &e->table[0];

	e->json[0] = NM_EMIT_ROWS(&qs_interval_rec, &s->ival, 1);
	e->json[1] = NM_EMIT_ROWS(&qs_qdisc_rec, s->out, s->nout);
	e->time = s->ival.time;
	snprintf(t->heading, sizeof(t->heading),
		 "qdiscs: %llu stuck, %llu driver_stopped, %llu shaped, %llu ok, %llu idle",
		 (unsigned long long)n[QS_STUCK], (unsigned long long)n[QS_DRIVER_STOPPED],
		 (unsigned long long)n[QS_SHAPED], (unsigned long long)n[QS_OK],
		 (unsigned long long)n[QS_IDLE]);
	t->rows = e->json[1];
	e->prom[0] = e->json[0];
	e->prom[1] = NM_EMIT_ROWS(&qs_queue_rec, s->qrows, s->ndq);
	e->map = (struct nm_emit_map){ .name = "qdiscs", .entries = s->bpf_entries,
				       .max = QS_MAX_QDISCS };
}

/* ---- remedies: the rows qs_fix_plan reads, for the act step ---- */

static void remedies(struct sweep *s, struct qs_act *qa, unsigned int fix)
{
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
	qs_act_remedies(qa, s->fix, s->n, fix, s->now_ns);
}

/* ---- the report ---- */

/* A failed sweep (said) reports nothing. */
static int report(struct qdiscstuck_bpf *skel, struct sweep *s, struct nm_emit *e)
{
	if (sweep(skel, s))
		return NM_RUN_SKIP;
	if (s->n)
		qsort(s->rows, s->n, sizeof(*s->rows), cmp_rows);
	fill_rows(s);
	emit_fill(e, s);
	return 0;
}

/* After the sinks; without --fix, --verbose still explains the driver_stopped queues. */
static void act(struct sweep *s, struct qs_act *qa)
{
	if (env.fix || env.o.verbose)
		remedies(s, qa, env.fix);
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

	if (!nm_hook_can(&hooks[QS_HOOK_SAMPLE], QS_CAN_SAMPLE))
		return 0;
	err = run_sampler(skel);
	if (err) {
		*failed = skel->progs.qs_sample;
		*stage = "run";
	}
	return err;
}

NM_SKEL_OPS(qdiscstuck, skel_prepare, skel_attach, QS_NR_HOOKS);

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


/* ---- the run's steps (lib/run.h) ---- */

static struct run {
	struct nm_hook hooks[QS_NR_HOOKS];
	struct qs_act qa;
	struct sweep *s;
	char kdev[IF_NAMESIZE], ldev[IF_NAMESIZE];
	unsigned int kif, kq, lif, lq;
} run;

/* lock: tc qdisc replace, undone with tc; kick: AF_PACKET frames */
static void set_caps(struct nm_opts *o)
{
	o->caps.remedy = o->caps.remedy_exec = env.lock || (env.fix & FIX_LOCK);
	o->caps.journal = o->caps.remedy;
	o->caps.raw = env.kick || (env.fix & FIX_KICK);
	o->caps.remedy_opt = env.lock ? "--lock" : env.kick ? "--kick" : "--fix";
}

static int setup(void)
{
	int ret;

	if (env.kick && (ret = qs_act_resolve(&run.qa, env.kick, "--kick", run.kdev, &run.kif, &run.kq)))
		return ret;
	if (env.lock && (ret = qs_act_resolve(&run.qa, env.lock, "--lock", run.ldev, &run.lif, &run.lq)))
		return ret;
	run.s = sweep_new();
	return run.s ? 0 : nm_err(&env.o, NM_EXIT_RUNTIME, "out of memory");
}

static int start(void *p)
{
	struct qdiscstuck_bpf *skel = p;

	run.qa.txqs_fd = bpf_map__fd(skel->maps.txqs);
	return 0;
}

static bool changes(void)
{
	return env.lock;
}

/* a signal at the change point: nothing changed, nothing reported */
static int change(void *p)
{
	(void)p;
	return nm_exiting ? NM_RUN_DONE : qs_act_lock(&run.qa, run.ldev, run.lif, run.lq);
}

/*
 * The first line (none for --kick's one shot): the start record; after
 * the interval, the threshold, the devices and --fix.
 */
static int first_line(void *skel, struct nm_first *l)
{
	static struct qs_start_row r;

	(void)skel;
	if (env.kick)
		return NM_RUN_SKIP;
	r = (struct qs_start_row){
		.tool = TOOL, .kernel = nm_kernel_release(), .hooks = run.hooks,
		.nhooks = QS_NR_HOOKS, .interval = env.o.interval,
		.threshold_ms = env.threshold_ms, .devices = l->devices,
		.fix_kick = env.fix & FIX_KICK, .fix_lock = env.fix & FIX_LOCK,
	};
	l->rec = &qs_start_rec;
	l->row = &r;
	snprintf(l->what, sizeof(l->what), "threshold %ldms, devices %s%s%s", env.threshold_ms,
		 l->devices, env.fix & FIX_KICK ? ", --fix=kick" : "",
		 env.fix & FIX_LOCK ? ", --fix=lock" : "");
	return 0;
}

/* --kick is a one-shot; else a first sweep that only learns the counters */
static int ready(void *skel)
{
	if (env.kick) {
		int ret = qs_act_kick(&run.qa, run.kdev, run.kif, run.kq);

		return ret ? ret : NM_RUN_DONE;
	}
	sweep(skel, run.s);
	return 0;
}

static int report_step(void *skel, struct nm_emit *e)
{
	return report(skel, run.s, e);
}

static void after_report(void *skel)
{
	(void)skel;
	act(run.s, &run.qa);
}

/* a failed undo is said (its journal kept for --cleanup), and exits 1, as the other tools' */
static int stop(void)
{
	return qs_act_stop(&run.qa);
}

static void free_run(void *skel)
{
	(void)skel;
	sweep_free(run.s);
}

/*
 * On a fixed grid: a stall is reported within the threshold plus one
 * interval, which a sleep after each sweep (and kick) would stretch.
 * The capabilities go before the change: the lock's kept ones are kept.
 */
static const struct nm_tool tool = {
	.o = &env.o, .skel = &skel_ops, .hooks = run.hooks,
	.fixes = qs_fixes, .nfixes = QS_NFIXES, .list_fixes = &env.list_fixes,
	.grid = true, .drop_before_change = true,
	.caps = set_caps, .setup = setup, .start = start, .changes = changes, .change = change,
	.first = first_line, .ready = ready, .report = report_step, .after = after_report, .stop = stop,
	.free = free_run,
};

int main(int argc, char **argv)
{
	qs_act_init(&run.qa, &env.o);
	/* --lock undoes its replace with tc; a journal may run nothing else */
	nm_journal_allow_cmd("tc");
	qs_opts_parse(&env, argc, argv);
	return nm_run(&tool);
}
