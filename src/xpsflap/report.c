// SPDX-License-Identifier: GPL-2.0
/* One xpsflap report (xpsflap_report.h): its flows ranked and chosen, its rows written out. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "lib/grow.h"
#include "xpsflap/report.h"

void xf_report_start(struct xf_report *r, uint64_t now_ns, uint32_t epoch)
{
	r->n = 0;
	r->now_ns = now_ns;
	r->epoch = epoch;
}

struct xf_entry *xf_report_add(struct xf_report *r)
{
	if (nm_grow(&r->e, &r->cap, r->n, sizeof(*r->e), 1024))
		return NULL;
	memset(&r->e[r->n], 0, sizeof(r->e[0]));
	return &r->e[r->n++];
}

void xf_report_totals_clear(struct xf_report *r)
{
	memset(r->totals, 0, sizeof(r->totals));
}

void xf_report_slot(struct xf_report *r, uint32_t slot, const struct xf_dev_id *id)
{
	if (slot >= XF_DEV_SLOTS)
		return;
	r->slot_dev[slot] = *id;
	r->slot_used[slot] = true;
}

void xf_report_queue_sum(struct xf_report *r, uint32_t slot, uint32_t q,
			 const struct xf_dev_stats *percpu, int ncpu)
{
	struct xf_dev_stats *t;

	if (slot >= XF_DEV_SLOTS || q >= XF_DEV_QUEUES)
		return;
	t = &r->totals[slot][q];
	for (int c = 0; c < ncpu; c++) {
		t->packets += percpu[c].packets;
		t->bytes += percpu[c].bytes;
		t->switches += percpu[c].switches;
		t->risky_switches += percpu[c].risky_switches;
		t->reordered += percpu[c].reordered;
	}
}

void xf_report_unflushed(struct xf_report *r, uint32_t slot, uint32_t q, uint64_t packets,
			 uint64_t bytes)
{
	struct xf_dev_stats *t;

	if (slot >= XF_DEV_SLOTS)
		return;
	t = &r->totals[slot][q < XF_DEV_QUEUES ? q : XF_DEV_QUEUES - 1];
	t->packets += packets;
	t->bytes += bytes;
}

void xf_report_slot_gone(struct xf_report *r, uint32_t slot)
{
	if (slot >= XF_DEV_SLOTS)
		return;
	memset(r->totals[slot], 0, sizeof(r->totals[slot]));
	memset(r->prev[slot], 0, sizeof(r->prev[slot]));
	memset(&r->slot_dev[slot], 0, sizeof(r->slot_dev[slot]));
	r->slot_used[slot] = false;
}

static size_t top_of(const struct xf_report *r)
{
	return r->top ? r->top : XF_REPORT_TOP;
}

bool xf_report_shown(const struct xf_report *r, size_t i)
{
	return i < r->active && (r->all || i < top_of(r) || r->e[i].flapping);
}

static void swap(struct xf_entry *a, struct xf_entry *b)
{
	struct xf_entry t = *a;

	*a = *b;
	*b = t;
}

/*
 * The flapping flows after the top ones move up behind them, in their
 * order: what is left behind is not shown, so its order does not matter.
 */
static void pick_shown(struct xf_report *r)
{
	size_t k = top_of(r);

	if (r->all || k >= r->active) {
		r->shown = r->active;
		return;
	}
	for (size_t i = k; i < r->active; i++)
		if (r->e[i].flapping)
			swap(&r->e[k++], &r->e[i]);
	r->shown = k;
}

void xf_report_rank(struct xf_report *r)
{
	size_t n = 0;

	r->flapping = r->hidden = 0;
	for (size_t i = 0; i < r->n; i++) {
		if (!xf_active(&r->e[i].val, r->since_ns))
			continue;
		if (!r->link_local && xf_link_local(&r->e[i].key)) {
			r->hidden++;
			continue;
		}
		xf_judge(&r->e[i], r->epoch, r->min_switches);
		r->flapping += r->e[i].flapping;
		if (i != n)
			swap(&r->e[n], &r->e[i]);
		n++;
	}
	r->active = n;
	if (n)
		qsort_r(r->e, n, sizeof(*r->e), xf_cmp_by, &r->sort);
	pick_shown(r);
}

void xf_report_interval(struct xf_report *r, const struct nm_scope_counts *c, uint64_t time,
			uint64_t max_flows)
{
	const uint64_t *k = r->counters;

	r->ival = (struct xf_interval_row){
		.time = time, .flows_active = r->active, .flows_flapping = r->flapping,
		.flows_not_shown = r->active - r->shown, .flows_link_local = r->hidden,
		.flows_tracked = r->n, .max_flows = max_flows,
		.evictions = k[XF_CNT_EVICTED], .untracked_picks = k[XF_CNT_UNTRACKED],
		.parsed_skbs = k[XF_CNT_PARSED], .one_queue_picks = k[XF_CNT_ONE_QUEUE],
		.out_of_scope_skbs = k[XF_CNT_OUT_OF_SCOPE], .dev_slot_misses = k[XF_CNT_DEVS_FULL],
		.netns_named = c->ns, .netns_over = c->ns_over + c->socks_over,
		.devices_over = c->devs_over,
	};
}

/* The sinks' flows: those shown, worst first, each made into a row as it is written. */
static const void *next_flow(void *ctx, size_t *pos, const struct nm_record **rec)
{
	struct xf_report *r = ctx;
	const struct xf_entry *e;
	char dev[32], ns[NM_NS_NAME];

	(void)rec;
	if (*pos >= r->shown)
		return NULL;
	e = &r->e[(*pos)++];
	xf_flow_row(&r->row, e,
		    r->dev_name(r->names, e->key.netns, e->key.ifindex, dev, sizeof(dev)),
		    r->ns_name(r->names, e->key.netns, ns, sizeof(ns)));
	return &r->row;
}

/* Queue q of slot as a row, its counters never going back; false: it counted nothing. */
static bool dev_row(struct xf_report *r, uint32_t slot, uint32_t q, struct xf_dev_row *row)
{
	const struct xf_dev_stats *t = &r->totals[slot][q];
	struct xf_dev_stats *p = &r->prev[slot][q];
	const struct xf_dev_id *id = &r->slot_dev[slot];

	p->packets = xf_monotonic(p->packets, t->packets);
	p->bytes = xf_monotonic(p->bytes, t->bytes);
	p->switches = t->switches;
	p->risky_switches = t->risky_switches;
	p->reordered = t->reordered;
	if (!p->packets && !p->reordered)
		return false;
	r->ns_name(r->names, id->netns, row->netns, sizeof(row->netns));
	r->dev_name(r->names, id->netns, id->ifindex, row->device, sizeof(row->device));
	row->queue = q;
	row->packets = p->packets;
	row->bytes = p->bytes;
	row->switches = p->switches;
	row->risky_switches = p->risky_switches;
	row->reordered = p->reordered;
	return true;
}

size_t xf_report_dev_rows(struct xf_report *r)
{
	size_t n = 0;

	for (uint32_t slot = 0; slot < XF_DEV_SLOTS; slot++) {
		if (!r->slot_used[slot])
			continue;
		for (uint32_t q = 0; q < XF_DEV_QUEUES; q++)
			n += dev_row(r, slot, q, &r->dev_rows[n]);
	}
	r->ndev_rows = n;
	return n;
}

void xf_report_emit(struct xf_report *r, struct nm_emit *e, bool prom)
{
	const struct xf_interval_row *ir = &r->ival;
	const struct nm_emit_rows flows = { .rec = &xf_flow_rec, .next = next_flow, .ctx = r };
	struct nm_emit_table *t = &e->table[0];
	int len;

	e->json[0] = NM_EMIT_ROWS(&xf_interval_rec, ir, 1);
	e->json[1] = flows;
	e->time = ir->time;
	len = snprintf(t->heading, sizeof(t->heading),
		       "flows: %llu active, %llu flapping, %llu tracked of %llu, %llu evicted",
		       (unsigned long long)ir->flows_active, (unsigned long long)ir->flows_flapping,
		       (unsigned long long)ir->flows_tracked, (unsigned long long)ir->max_flows,
		       (unsigned long long)ir->evictions);
	if (ir->flows_not_shown && len > 0 && (size_t)len < sizeof(t->heading))
		len += snprintf(t->heading + len, sizeof(t->heading) - len, ", %llu not shown",
				(unsigned long long)ir->flows_not_shown);
	if (ir->flows_link_local && len > 0 && (size_t)len < sizeof(t->heading))
		snprintf(t->heading + len, sizeof(t->heading) - len, ", %llu link-local left out",
			 (unsigned long long)ir->flows_link_local);
	t->rows = flows;
	if (!prom)
		return;
	e->prom[0] = NM_EMIT_ROWS(&xf_interval_rec, ir, 1);
	e->prom[1] = NM_EMIT_ROWS(&xf_dev_rec, r->dev_rows, xf_report_dev_rows(r));
	e->map = (struct nm_emit_map){ .name = "flows", .entries = ir->flows_tracked,
				       .max = ir->max_flows, .evictions = ir->evictions,
				       .direct = true, .untracked = ir->untracked_picks };
}

void xf_report_next(struct xf_report *r)
{
	r->since_ns = r->now_ns;
}

void xf_report_free(struct xf_report *r)
{
	free(r->e);
	r->e = NULL;
	r->n = r->cap = 0;
}
