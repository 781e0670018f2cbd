// SPDX-License-Identifier: GPL-2.0
/* One qdiscstuck sweep (qdiscstuck_report.h): its rows joined, judged, ranked and written out. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "qdiscstuck/report.h"

void qs_sweep_free(struct qs_sweep *s)
{
	if (!s)
		return;
	free(s->rows), free(s->tracks), free(s->dq), free(s->out), free(s->qrows);
	free(s->fix), free(s->fix_dev), free(s->fix_ns);
	free(s);
}

struct qs_sweep *qs_sweep_new(void)
{
	struct qs_sweep *s = calloc(1, sizeof(*s));

	if (!s)
		return NULL;
	s->rows = calloc(QS_SWEEP_MAX, sizeof(*s->rows));
	s->tracks = calloc(QS_SWEEP_MAX, sizeof(*s->tracks));
	s->dq = calloc(QS_SWEEP_MAX, sizeof(*s->dq));
	s->out = calloc(QS_SWEEP_MAX, sizeof(*s->out));
	s->qrows = calloc(QS_SWEEP_MAX, sizeof(*s->qrows));
	s->fix = calloc(QS_SWEEP_MAX, sizeof(*s->fix));
	s->fix_dev = calloc(QS_SWEEP_MAX, sizeof(*s->fix_dev));
	s->fix_ns = calloc(QS_SWEEP_MAX, sizeof(*s->fix_ns));
	if (!s->rows || !s->tracks || !s->dq || !s->out || !s->qrows || !s->fix || !s->fix_dev ||
	    !s->fix_ns) {
		qs_sweep_free(s);
		return NULL;
	}
	return s;
}

struct qs_row *qs_sweep_add(struct qs_sweep *s, unsigned long netns,
			    const struct nm_qdisc_stats *q)
{
	struct qs_row *r;

	if (s->n >= QS_SWEEP_MAX) {
		s->over++;
		return NULL;
	}
	r = &s->rows[s->n++];
	memset(r, 0, sizeof(*r));
	r->netns = netns;
	r->nl = *q;
	r->txq = -1;
	return r;
}

struct qs_row *qs_sweep_parent(struct qs_sweep *s, const struct qs_row *r)
{
	if (r->nl.parent == QS_TC_H_ROOT)
		return NULL;
	for (size_t i = 0; i < s->n; i++)
		if (s->rows[i].netns == r->netns && s->rows[i].nl.ifindex == r->nl.ifindex &&
		    &s->rows[i] != r &&
		    qs_is_parent_qdisc(s->rows[i].nl.handle, s->rows[i].nl.parent, r->nl.parent))
			return &s->rows[i];
	return NULL;
}

static struct qs_track *track_of(struct qs_sweep *s, const struct qs_row *r)
{
	struct qs_track_ent *e;

	for (size_t i = 0; i < s->ntracks; i++) {
		e = &s->tracks[i];
		if (e->netns == r->netns && e->ifindex == r->nl.ifindex && e->parent == r->nl.parent &&
		    e->handle == r->nl.handle && !strcmp(e->kind, r->nl.kind)) {
			e->seen = true;
			return &e->t;
		}
	}
	if (s->ntracks >= QS_SWEEP_MAX)
		return NULL;
	e = &s->tracks[s->ntracks++];
	memset(e, 0, sizeof(*e));
	e->netns = r->netns;
	e->ifindex = r->nl.ifindex;
	e->parent = r->nl.parent;
	e->handle = r->nl.handle;
	snprintf(e->kind, sizeof(e->kind), "%s", r->nl.kind);
	e->seen = true;
	return &e->t;
}

static struct qs_track_ent *track_ent_of(struct qs_track *t)
{
	return (struct qs_track_ent *)((char *)t - offsetof(struct qs_track_ent, t));
}

/* Forget the qdiscs that are gone (deleted or replaced). */
static void prune_tracks(struct qs_sweep *s)
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

static struct qs_devq *devq_of(struct qs_sweep *s, unsigned long netns, unsigned int ifindex,
			       int txq)
{
	for (size_t i = 0; i < s->ndq; i++)
		if (s->dq[i].netns == netns && s->dq[i].ifindex == ifindex && s->dq[i].txq == txq)
			return &s->dq[i];
	if (s->ndq >= QS_SWEEP_MAX)
		return NULL;
	memset(&s->dq[s->ndq], 0, sizeof(s->dq[0]));
	s->dq[s->ndq].netns = netns;
	s->dq[s->ndq].ifindex = ifindex;
	s->dq[s->ndq].txq = txq;
	return &s->dq[s->ndq++];
}

void qs_sweep_forget_ns(struct qs_sweep *s, unsigned long ino)
{
	size_t n = 0;

	for (size_t i = 0; i < s->ndq; i++)
		if (s->dq[i].netns != ino)
			s->dq[n++] = s->dq[i];
	s->ndq = n;
}

void qs_row_observe(const struct qs_row *r, uint64_t now, struct qs_obs *o)
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
	o->deq_seen = r->bpf.last_deq_ns || r->bpf.last_was_null;
	o->null_txq_state = r->bpf.null_txq_state;
	o->wd_expires_ns = r->bpf.wd_expires_ns;
	o->sampled = r->bpf.sample_ns != 0;
	o->q_state = r->bpf.s_state;
	o->running = r->bpf.s_running;
	o->txq_state = r->bpf.s_txq_state;
}

/* A mq root only sums its children: they are judged, it is not. */
static bool judged(const struct qs_row *r)
{
	return !qs_kind_is_mq(r->nl.kind);
}

void qs_sweep_judge(struct qs_sweep *s, uint64_t threshold)
{
	memset(s->per_state, 0, sizeof(s->per_state));
	for (size_t i = 0; i < s->ndq; i++) {
		s->dq[i].present = false;
		s->dq[i].state = QS_IDLE;
	}
	for (size_t i = 0; i < s->n; i++) {
		struct qs_row *r = &s->rows[i];
		uint64_t bad_before, entered_before[QS_NSTATES];
		struct qs_devq *d;
		struct qs_obs o;

		if (!judged(r) || !(r->t = track_of(s, r)))
			continue;
		bad_before = r->t->bad_ns;
		memcpy(entered_before, r->t->entered, sizeof(entered_before));
		qs_row_observe(r, s->now_ns, &o);
		o.unknown_is_stuck = s->unknown_is_stuck;
		qs_update(r->t, &o, threshold);
		s->per_state[r->t->state]++;
		d = devq_of(s, r->netns, r->nl.ifindex, r->txq);
		if (!d)
			continue;
		d->bad_s += (r->t->bad_ns - bad_before) / 1e9;
		d->state = qs_state_worse(d->state, r->t->state);
		for (int st = 0; st < QS_NSTATES; st++)
			d->entered[st] += r->t->entered[st] - entered_before[st];
		/* the backlog of a queue is what its runner holds (it counts its leaves) */
		if (r->own_bpf || !r->have_bpf || r->nl.parent == QS_TC_H_ROOT || r->txq >= 0) {
			if (!d->present || r->own_bpf) {
				d->qlen = r->nl.qlen;
				d->backlog = r->nl.backlog;
			}
			d->present = true;
		}
	}
	prune_tracks(s);
}

/* Worst first: stuck, driver_stopped, unknown, shaped, ok, idle; the untracked (mq roots) last. */
static int rank_of(const struct qs_row *r)
{
	static const int rank[QS_NSTATES] = { [QS_STUCK] = 0, [QS_DRIVER_STOPPED] = 1,
					      [QS_UNKNOWN] = 2, [QS_SHAPED] = 3, [QS_OK] = 4,
					      [QS_IDLE] = 5 };

	return r->t ? rank[r->t->state] : 6;
}

/* qsort order, most first */
static int most(uint64_t a, uint64_t b)
{
	return a < b ? 1 : a > b ? -1 : 0;
}

static int most_rate(double a, double b)
{
	return a < b ? 1 : a > b ? -1 : 0;
}

/* Two tracked rows by --sort's key k. */
static int cmp_key(const struct qs_row *x, const struct qs_row *y, enum qs_sort k,
		   uint64_t now_ns)
{
	switch (k) {
	case QS_SORT_BYTES:
		return most(x->nl.backlog, y->nl.backlog);
	case QS_SORT_DEQ:
		return most_rate(x->t->deq_rate, y->t->deq_rate);
	case QS_SORT_MS:
		return most(qs_state_ms(x->t, now_ns), qs_state_ms(y->t, now_ns));
	case QS_SORT_DROPS:
		return most(x->nl.drops, y->nl.drops);
	default:
		return most(x->nl.qlen, y->nl.qlen);
	}
}

/* The last tie: where the qdisc is, unique in a sweep, so that equal rows keep one order. */
static int cmp_place(const struct qs_row *x, const struct qs_row *y)
{
	if (x->netns != y->netns)
		return x->netns < y->netns ? -1 : 1;
	if (x->nl.ifindex != y->nl.ifindex)
		return x->nl.ifindex < y->nl.ifindex ? -1 : 1;
	if (x->nl.parent != y->nl.parent)
		return x->nl.parent < y->nl.parent ? -1 : 1;
	if (x->nl.handle != y->nl.handle)
		return x->nl.handle < y->nl.handle ? -1 : 1;
	return strcmp(x->nl.kind, y->nl.kind);
}

/* By state, then the sort key, then the default order (qlen, bytes, deq), then place. */
static int cmp_rows(const void *a, const void *b, void *arg)
{
	const struct qs_row *x = a, *y = b;
	const struct qs_sweep *s = arg;
	int c = rank_of(x) - rank_of(y);

	if (c || !x->t)
		return c ? c : cmp_place(x, y);
	if ((c = cmp_key(x, y, s->sort, s->now_ns)))
		return c;
	for (enum qs_sort k = QS_SORT_QLEN; k <= QS_SORT_DEQ; k++)
		if ((c = cmp_key(x, y, k, s->now_ns)))
			return c;
	return cmp_place(x, y);
}

void qs_sweep_rank(struct qs_sweep *s)
{
	if (s->n)
		qsort_r(s->rows, s->n, sizeof(*s->rows), cmp_rows, s);
}

static bool shown(const struct qs_row *r, bool all)
{
	return r->t && (all || r->t->state != QS_IDLE || r->nl.qlen);
}

/* Stuck, driver_stopped, unknown and shaped qdiscs are always shown: --top cuts the others only. */
static bool cut_by_top(const struct qs_row *r)
{
	return r->t->state == QS_OK || r->t->state == QS_IDLE;
}

static size_t top_of(const struct qs_sweep *s)
{
	return s->top ? s->top : QS_REPORT_TOP;
}

/* A queue's labels: "all" for a device-wide (root) qdisc. */
static void queue_row(struct qs_queue_row *q, const struct qs_devq *d, qs_dev_name_fn dev,
		      qs_ns_name_fn ns)
{
	memset(q, 0, sizeof(*q));
	dev(d->netns, d->ifindex, q->device, sizeof(q->device));
	ns(d->netns, q->netns, sizeof(q->netns));
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

/*
 * The ranked rows put the ones --top cuts after those it does not, so
 * the first top_of(s) of them are the top ones.
 */
void qs_sweep_rows(struct qs_sweep *s, qs_dev_name_fn dev, qs_ns_name_fn ns)
{
	char dn[IF_NAMESIZE + 8], nn[NM_NS_NAME];
	size_t others = 0;

	s->ival.mono_ns = s->now_ns;
	s->ival.qdiscs = s->n;
	for (int st = 0; st < QS_NSTATES; st++)
		s->ival.per_state[st] = s->per_state[st];
	s->ival.qdiscs_not_shown = 0;
	s->nout = 0;
	for (size_t i = 0; i < s->n; i++) {
		const struct qs_row *r = &s->rows[i];

		if (!shown(r, s->all))
			continue;
		if (!s->all && cut_by_top(r) && others++ >= top_of(s)) {
			s->ival.qdiscs_not_shown++;
			continue;
		}
		qs_qdisc_row(&s->out[s->nout++], dev(r->netns, r->nl.ifindex, dn, sizeof(dn)),
			     ns(r->netns, nn, sizeof(nn)), r->netns, &r->nl, r->t,
			     r->have_bpf ? &r->bpf : NULL, r->txq, r->lockless, s->now_ns);
	}
	for (size_t i = 0; i < s->ndq; i++)
		queue_row(&s->qrows[i], &s->dq[i], dev, ns);
}

void qs_sweep_emit(const struct qs_sweep *s, struct nm_emit *e)
{
	const uint64_t *n = s->ival.per_state;
	struct nm_emit_table *t = &e->table[0];
	int len;

	e->json[0] = NM_EMIT_ROWS(&qs_interval_rec, &s->ival, 1);
	e->json[1] = NM_EMIT_ROWS(&qs_qdisc_rec, s->out, s->nout);
	e->time = s->ival.time;
	len = snprintf(t->heading, sizeof(t->heading),
		       "qdiscs: %llu stuck, %llu driver_stopped, %llu unknown, %llu shaped, %llu ok, %llu idle",
		       (unsigned long long)n[QS_STUCK], (unsigned long long)n[QS_DRIVER_STOPPED],
		       (unsigned long long)n[QS_UNKNOWN], (unsigned long long)n[QS_SHAPED],
		       (unsigned long long)n[QS_OK], (unsigned long long)n[QS_IDLE]);
	/* as xpsflap's: said only when --top left some out */
	if (s->ival.qdiscs_not_shown && len > 0 && (size_t)len < sizeof(t->heading))
		snprintf(t->heading + len, sizeof(t->heading) - len, ", %llu not shown",
			 (unsigned long long)s->ival.qdiscs_not_shown);
	t->rows = e->json[1];
	e->prom[0] = e->json[0];
	e->prom[1] = NM_EMIT_ROWS(&qs_queue_rec, s->qrows, s->ndq);
	e->map = (struct nm_emit_map){ .name = "qdiscs", .entries = s->bpf_entries,
				       .max = QS_MAX_QDISCS };
}

void qs_sweep_fix_rows(struct qs_sweep *s, qs_dev_name_fn dev, qs_ns_name_fn ns)
{
	for (size_t i = 0; i < s->n; i++) {
		struct qs_row *r = &s->rows[i];

		s->fix[i] = (struct qs_fix_row){ .t = r->t };
		if (!r->t)
			continue;
		s->fix[i] = (struct qs_fix_row){
			.t = r->t, .done = &track_ent_of(r->t)->fd,
			.dev = dev(r->netns, r->nl.ifindex, s->fix_dev[i], sizeof(s->fix_dev[i])),
			.netns = ns(r->netns, s->fix_ns[i], sizeof(s->fix_ns[i])),
			.elsewhere = r->netns != s->self_ino,
			.ifindex = r->nl.ifindex, .txq = r->txq, .lockless = r->lockless,
			.parent = r->nl.parent, .handle = r->nl.handle,
			.qlen = r->nl.qlen, .backlog = r->nl.backlog,
		};
	}
}
