// SPDX-License-Identifier: GPL-2.0
/* tcpstall's report (tcpstall_report.h): its flows, ended stalls and the rows of its sinks. */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include "lib/grow.h"
#include "tcpstall/act.h"
#include "tcpstall/report.h"

int ts_report_init(struct ts_report *r)
{
	r->ns = nm_htab_new(sizeof(uint64_t), sizeof(struct ts_ns_stats *), TS_REPORT_NS_MAX);
	return r->ns ? 0 : -ENOMEM;
}

/*
 * Host-wide, the metrics of netns ino, made at first use; those over the
 * cap (or out of memory) share r->one, which no row shows. NULL with one
 * netns: the report's totals are its.
 */
static struct ts_ns_stats *ns_stats(struct ts_report *r, uint64_t ino)
{
	struct ts_ns_stats **p;
	bool created;

	if (!r->per_ns)
		return NULL;
	p = r->ns ? nm_htab_upsert(r->ns, &ino, &created) : NULL;
	if (!p) {
		r->ns_over++;
		return &r->one;
	}
	if (created && !(*p = calloc(1, sizeof(**p)))) {
		nm_htab_del(r->ns, &ino);
		r->ns_over++;
		return &r->one;
	}
	return *p;
}

static void totals_add(struct ts_totals *to, const struct ts_totals *t)
{
	for (int c = 0; c < TS_NSTATES; c++) {
		to->stalls[c] += t->stalls[c];
		to->stall_ns[c] += t->stall_ns[c];
		for (int i = 0; i < NM_HIST_SLOTS; i++)
			to->hist_us[c][i] += t->hist_us[c][i];
	}
}

/* A stall ended, counted by ts_track* in r->ended_tot: into the totals, and its netns's. */
static void count_ended(struct ts_report *r, uint64_t ino)
{
	struct ts_ns_stats *n = ns_stats(r, ino);

	totals_add(&r->tot, &r->ended_tot);
	if (n)
		totals_add(&n->tot, &r->ended_tot);
	memset(&r->ended_tot, 0, sizeof(r->ended_tot));
}

/* A netns's name for the rows: the loader's, else its inode. */
static const char *ns_name(const struct ts_report *r, uint64_t ino, char *buf, size_t len)
{
	if (r->ns_name)
		return r->ns_name(r->ns_arg, ino, buf, len);
	snprintf(buf, len, "%llu", (unsigned long long)ino);
	return buf;
}

struct ts_sock *ts_report_sample(struct ts_report *r, const struct ts_sample *smp, uint64_t sweep,
				 enum ts_state *state)
{
	struct ts_sock *s = nm_htab_upsert(r->socks, &smp->key, NULL);
	uint64_t ended;

	*state = ts_classify(smp, r->threshold_ms);
	if (s && ts_track(s, smp, r->threshold_ms, sweep, &r->ended_tot, &ended)) {
		count_ended(r, smp->key.netns);
		ts_report_ended(r, &smp->key, s, ended, "sweep");
	}
	r->samples[*state]++;
	return s;
}

void ts_report_episode(struct ts_report *r, const struct ts_key *k, uint64_t start_ns,
		       uint64_t end_ns)
{
	struct ts_sock *s = nm_htab_upsert(r->socks, k, NULL);
	uint64_t ended;

	if (s && ts_track_episode(s, start_ns, end_ns, &r->ended_tot, &ended)) {
		count_ended(r, k->netns);
		ts_report_ended(r, k, s, ended, "tcp_push");
	}
}

void ts_report_gone(struct ts_report *r, uint64_t sweep, uint64_t now_ns)
{
	struct ts_key gone[256];
	size_t pos = 0, ngone = 0;
	uint64_t ended;
	void *k, *v;

	while (nm_htab_next(r->socks, &pos, &k, &v)) {
		struct ts_sock *s = v;

		if (s->seen_sweep == sweep)
			continue;
		/*
		 * A window-limited socket cannot drain between two sweeps
		 * without being seen sending: it closed or was reset.
		 */
		if (ts_track_gone(s, now_ns, s->stall_start_ns && s->last.unsent &&
				  ts_classify(&s->last, r->threshold_ms) == TS_RWND ?
				  TS_END_GONE : TS_END_DRAINED, &r->ended_tot, &ended)) {
			count_ended(r, ((struct ts_key *)k)->netns);
			ts_report_ended(r, k, s, ended, "sweep");
		}
		if (sweep - s->seen_sweep > TS_FORGET_SWEEPS && ngone < 256)
			gone[ngone++] = *(struct ts_key *)k;
	}
	for (size_t i = 0; i < ngone; i++)
		nm_htab_del(r->socks, &gone[i]);
}

void ts_report_drop_netns(struct ts_report *r, unsigned long ino)
{
	struct ts_ns_stats **p = r->ns ? nm_htab_get(r->ns, &(uint64_t){ ino }) : NULL;
	struct ts_key gone[256];
	size_t ngone;

	if (p) {
		free(*p);
		nm_htab_del(r->ns, &(uint64_t){ ino });
	}
	/* its stalls that ended since the last report (the sweep missed their sockets) go too */
	ngone = 0;
	for (size_t i = 0; i < r->nended; i++)
		if (r->ended[i].key.netns != ino)
			r->ended[ngone++] = r->ended[i];
	r->nended = ngone;
	/* deleting moves entries: a walk collects, then deletes, until none is left */
	do {
		size_t pos = 0;
		void *k, *v;

		ngone = 0;
		while (ngone < 256 && nm_htab_next(r->socks, &pos, &k, &v))
			if (((struct ts_key *)k)->netns == ino)
				gone[ngone++] = *(struct ts_key *)k;
		for (size_t i = 0; i < ngone; i++)
			nm_htab_del(r->socks, &gone[i]);
	} while (ngone == 256);
}

size_t ts_report_drop_gone(struct ts_report *r, bool (*gone)(unsigned long ino, void *arg), void *arg)
{
	unsigned long inos[64];
	size_t n, dropped = 0;

	/* a few namespaces a pass: dropping one moves the table's entries */
	do {
		size_t pos = 0;
		void *k, *v;

		n = 0;
		while (n < 64 && nm_htab_next(r->socks, &pos, &k, &v)) {
			unsigned long ino = ((struct ts_key *)k)->netns;
			bool dup = false;

			for (size_t i = 0; i < n && !dup; i++)
				dup = inos[i] == ino;
			if (!dup && gone(ino, arg))
				inos[n++] = ino;
		}
		for (size_t i = 0; i < n; i++)
			ts_report_drop_netns(r, inos[i]);
		dropped += n;
	} while (n == 64);
	return dropped;
}

void ts_report_forget(struct ts_report *r, const unsigned long *gone, size_t n,
		      bool (*went)(unsigned long ino, void *arg), void *arg)
{
	for (size_t i = 0; i < n; i++)
		ts_report_drop_netns(r, gone[i]);
	if (went)
		ts_report_drop_gone(r, went, arg);
}

void ts_report_ended(struct ts_report *r, const struct ts_key *k, const struct ts_sock *s,
		     uint64_t dur_ns, const char *by)
{
	struct ts_ended *e;

	if (r->nended >= TS_REPORT_ENDED) {
		r->ended_dropped++;
		return;
	}
	e = &r->ended[r->nended++];
	e->key = *k;
	e->start_ns = s->last_start_ns;
	e->dur_ns = dur_ns;
	e->cause = s->cause;
	e->end = s->end;
	e->by = by;
}

void ts_report_flows_start(struct ts_report *r, uint64_t now_ns)
{
	r->since_ns = r->now_ns;
	r->now_ns = now_ns;
	r->nflows = 0;
	r->storms = r->cross = 0;
}

bool ts_report_flow(struct ts_report *r, const struct ts_acks *cur, const struct ts_acks *d,
		    uint32_t slot, uint32_t epoch)
{
	struct ts_flow *f;

	if (nm_grow(&r->flows, &r->capflows, r->nflows, sizeof(*r->flows), 256))
		return false;
	f = &r->flows[r->nflows++];
	f->key = cur->key;
	f->sk = cur->sk;
	f->slot = slot;
	f->delta = *d;
	ts_judge_acks(d, cur->defer, r->storm, &f->j);
	ts_judge_placement(d, epoch, r->storm->min_segs, &f->place);
	r->storms += f->j.storm;
	r->cross += f->place.cross_cpu;
	return true;
}

/* Forgets flows whose slot went to another socket, so the table never fills with the dead. */
static void prune_prev_acks(struct ts_report *r)
{
	uint64_t *gone = NULL;
	size_t pos = 0, n = 0, cap = 0;
	void *k, *v;

	while (nm_htab_next(r->prev_acks, &pos, &k, &v)) {
		if (((struct ts_prev_acks *)v)->report == r->reports)
			continue;
		if (nm_grow(&gone, &cap, n, sizeof(*gone), 256))
			break;
		gone[n++] = *(uint64_t *)k;
	}
	for (size_t i = 0; i < n; i++)
		nm_htab_del(r->prev_acks, &gone[i]);
	free(gone);
}

bool ts_report_acks(struct ts_report *r, const struct ts_acks *slots, uint32_t n, uint32_t epoch)
{
	struct ts_prev_acks *old;
	struct ts_acks cur, d;

	r->acks_present = 0;
	r->reports++;
	for (uint32_t i = 0; i < n; i++) {
		if (!ts_acks_read(&slots[i], &cur))
			continue;
		r->acks_present++;
		/* a netns that went drops its records quietly: its last ACKs too */
		if (r->gone && r->gone(cur.key.netns, r->gone_arg))
			continue;
		/* the table holds at most what the array holds: room is always there */
		old = nm_htab_upsert(r->prev_acks, &cur.sk, NULL);
		if (!old)
			continue;
		ts_acks_delta(&old->a, &cur, &d);
		old->a = cur;
		old->report = r->reports;
		r->acks_sent += d.acks_out;
		r->acks_owned += d.acks_owned;
		r->data_segments += d.segs_in;
		if (d.acks_out || d.segs_in) {
			struct ts_ns_stats *ns = ns_stats(r, cur.key.netns);

			if (ns) {
				ns->acks_sent += d.acks_out;
				ns->acks_owned += d.acks_owned;
				ns->data_segments += d.segs_in;
			}
		}
		if (!d.segs_in && !d.acks_out)
			continue;
		if (!ts_report_flow(r, &cur, &d, i, epoch))
			return false;
	}
	prune_prev_acks(r);
	return true;
}

const char *const ts_sort_names[TS_NR_SORTS] = {
	[TS_SORT_ACKS] = "acks", [TS_SORT_SEGS] = "segs", [TS_SORT_RATIO] = "ratio",
	[TS_SORT_OWNED] = "owned", [TS_SORT_DROPS] = "drops",
};

/* qsort order, most first */
static int cmp_desc(double x, double y)
{
	return x < y ? 1 : x > y ? -1 : 0;
}

/* f's value of key; a double holds the counts exactly up to 2^53 */
static double sort_value(const struct ts_flow *f, enum ts_sort key)
{
	switch (key) {
	case TS_SORT_SEGS:
		return f->delta.segs_in;
	case TS_SORT_RATIO:
		return f->j.acks_per_seg;
	case TS_SORT_OWNED:
		return f->j.owned_ratio;
	case TS_SORT_DROPS:
		return f->delta.backlog_drops;
	default:
		return f->delta.acks_out;
	}
}

/*
 * The flows' own order, for ties: qsort is not stable, and two flows with
 * equal counts must not change places from one report to the next.
 */
static int cmp_flow_keys(const struct ts_flow *x, const struct ts_flow *y)
{
	const struct ts_key *a = &x->key, *b = &y->key;
	int c;

	if (a->netns != b->netns)
		return a->netns < b->netns ? -1 : 1;
	if (a->family != b->family)
		return a->family < b->family ? -1 : 1;
	if ((c = memcmp(a->laddr, b->laddr, sizeof(a->laddr))))
		return c;
	if (a->lport != b->lport)
		return a->lport < b->lport ? -1 : 1;
	if ((c = memcmp(a->raddr, b->raddr, sizeof(a->raddr))))
		return c;
	if (a->rport != b->rport)
		return a->rport < b->rport ? -1 : 1;
	/* one 4-tuple in two slots: a socket closed and its ports reused in the interval */
	return x->slot < y->slot ? -1 : x->slot > y->slot;
}

static int cmp_flows(const void *a, const void *b, void *key)
{
	const struct ts_flow *x = a, *y = b;
	enum ts_sort k = *(const enum ts_sort *)key;
	int c;

	/* storms first whatever the key: the table's --top rows must not lose them */
	if (x->j.storm != y->j.storm)
		return y->j.storm - x->j.storm;
	c = cmp_desc(sort_value(x, k), sort_value(y, k));
	if (!c)
		c = cmp_desc(x->delta.acks_out, y->delta.acks_out);
	return c ? c : cmp_flow_keys(x, y);
}

void ts_report_rank(struct ts_report *r)
{
	if (r->nflows)
		qsort_r(r->flows, r->nflows, sizeof(*r->flows), cmp_flows, &r->sort);
}

bool ts_acks_read(const struct ts_acks *a, struct ts_acks *cur)
{
	uint64_t sk = __atomic_load_n(&a->sk, __ATOMIC_ACQUIRE);

	if (sk == TS_SLOT_FREE || sk == TS_SLOT_BUSY)
		return false;
	*cur = *a;
	__atomic_thread_fence(__ATOMIC_ACQUIRE);
	return __atomic_load_n(&a->sk, __ATOMIC_RELAXED) == sk && cur->sk == sk;
}

size_t ts_report_fix_flows(struct ts_report *r, const struct ts_acks *acks)
{
	size_t n = 0, pos = 0, cap = r->nflows + nm_htab_count(r->socks) + r->nended;
	struct ts_fix_flow *nf;
	void *k, *v;

	if (cap > r->capfix) {
		nf = realloc(r->fix, cap * sizeof(*nf));
		if (!nf)
			return 0;
		r->fix = nf;
		r->capfix = cap;
	}
	for (size_t i = 0; i < r->nflows; i++) {
		const struct ts_flow *f = &r->flows[i];
		struct ts_acks cur;

		if ((!f->j.storm && !f->place.cross_cpu) || !ts_acks_read(&acks[f->slot], &cur) ||
		    cur.sk != f->sk)
			continue;
		r->fix[n++] = (struct ts_fix_flow){ .key = f->key, .defer = cur.defer, .storm = f->j.storm,
			.quickack_route = f->delta.acks_quickack_route, .cross_cpu = f->place.cross_cpu,
			.rx_ifindex = cur.rx_ifindex };
	}
	while (nm_htab_next(r->socks, &pos, &k, &v) && n < cap)
		if (((struct ts_sock *)v)->stall_start_ns && ((struct ts_sock *)v)->cause == TS_TSQ_IDLE)
			r->fix[n++] = (struct ts_fix_flow){ .key = *(struct ts_key *)k, .tsq_idle = true };
	/* one that ended in the interval counts too: a 40-ms stall is rarely on at a report */
	for (size_t i = 0; i < r->nended && n < cap; i++)
		if (r->ended[i].cause == TS_TSQ_IDLE)
			r->fix[n++] = (struct ts_fix_flow){ .key = r->ended[i].key, .tsq_idle = true };
	return n;
}

bool ts_flow_matters(const struct ts_flow *f)
{
	return f->j.storm || f->place.cross_cpu || f->place.split_softirq;
}

static size_t report_top(const struct ts_report *r)
{
	return r->top ? r->top : TS_REPORT_TOP;
}

bool ts_report_flow_shown(const struct ts_report *r, size_t i)
{
	return r->all || i < report_top(r) || ts_flow_matters(&r->flows[i]);
}

/* A stall that ended at or after since_ns (the first report: any) ended in the interval. */
bool ts_report_socket_shown(const struct ts_report *r, const struct ts_sock *s)
{
	return r->all || s->stall_start_ns || (s->stalls && s->last_end_ns >= r->since_ns);
}

void ts_report_interval(const struct ts_report *r, struct ts_interval_row *ir)
{
	size_t pos = 0;
	void *key, *v;

	while (nm_htab_next(r->socks, &pos, &key, &v)) {
		const struct ts_sock *s = v;

		ir->sockets_not_shown += !ts_report_socket_shown(r, s);
		ir->sockets_stalled += !!s->stall_start_ns;
	}
	for (size_t i = 0; i < r->nflows; i++)
		ir->ack_flows_not_shown += !ts_report_flow_shown(r, i);
	ir->ack_flows = r->nflows;
	ir->ack_storm_flows = r->storms;
	ir->cross_cpu_flows = r->cross;
	memcpy(ir->samples, r->samples, sizeof(ir->samples));
	ir->stalls_ended = r->nended + r->ended_dropped;
	ir->stalls_unlisted = r->ended_dropped;
}

/* A netns row's totals, from tot and the ACK counts. */
static void ns_row_totals(struct ts_netns_row *row, const struct ts_totals *tot, uint64_t sent,
			  uint64_t owned, uint64_t segs)
{
	memcpy(row->stalls, tot->stalls, sizeof(row->stalls));
	memcpy(row->hist_us, tot->hist_us, sizeof(row->hist_us));
	for (int s = 0; s < TS_NSTATES; s++)
		row->stall_seconds[s] = tot->stall_ns[s] / 1e9;
	row->acks_sent = sent;
	row->acks_owned = owned;
	row->data_segments = segs;
}

/* With one netns: one row, of the report's totals. */
static size_t one_ns_row(struct ts_report *r, struct ts_netns_row *row)
{
	size_t pos = 0;
	void *k, *v;

	memset(row, 0, sizeof(*row));
	row->labelled = r->prom_netns;
	snprintf(row->netns, sizeof(row->netns), "%llu", (unsigned long long)r->self_ino);
	ns_row_totals(row, &r->tot, r->acks_sent, r->acks_owned, r->data_segments);
	while (nm_htab_next(r->socks, &pos, &k, &v))
		if (((struct ts_sock *)v)->stall_start_ns)
			row->stalled_now[((struct ts_sock *)v)->cause]++;
	row->ack_storm_flows = r->storms;
	row->cross_cpu_flows = r->cross;
	return 1;
}

static int cmp_ns_rows(const void *a, const void *b)
{
	return strcmp(((const struct ts_netns_row *)a)->netns, ((const struct ts_netns_row *)b)->netns);
}

/* Room for n rows: false when out of memory. */
static bool ns_rows_room(struct ts_report *r, size_t n)
{
	void *p;

	if (n <= r->capns_rows)
		return true;
	p = realloc(r->ns_rows, n * sizeof(*r->ns_rows));
	if (!p)
		return false;
	r->ns_rows = p;
	r->capns_rows = n;
	return true;
}

/* This report's sockets stalled now and storms, into each netns's stats. */
static void ns_now(struct ts_report *r)
{
	size_t pos = 0;
	void *k, *v;

	while (nm_htab_next(r->ns, &pos, &k, &v)) {
		struct ts_ns_stats *n = *(struct ts_ns_stats **)v;

		memset(n->stalled_now, 0, sizeof(n->stalled_now));
		n->storms = n->cross = 0;
	}
	pos = 0;
	while (nm_htab_next(r->socks, &pos, &k, &v)) {
		const struct ts_sock *s = v;
		struct ts_ns_stats *n;

		if (s->stall_start_ns && s->cause < TS_NSTATES &&
		    (n = ns_stats(r, ((struct ts_key *)k)->netns)))
			n->stalled_now[s->cause]++;
	}
	for (size_t i = 0; i < r->nflows; i++) {
		struct ts_ns_stats *n;

		const struct ts_flow *f = &r->flows[i];

		if ((f->j.storm || f->place.cross_cpu) && (n = ns_stats(r, f->key.netns))) {
			n->storms += f->j.storm;
			n->cross += f->place.cross_cpu;
		}
	}
}

size_t ts_report_ns_rows(struct ts_report *r)
{
	size_t pos = 0, n = 0;
	void *k, *v;

	if (!r->per_ns)
		return r->nns_rows = ns_rows_room(r, 1) ? one_ns_row(r, &r->ns_rows[0]) : 0;
	if (!r->ns)
		return 0;
	ns_now(r);
	/*
	 * No namespace has had a socket or a flow yet (a healthy, quiet host):
	 * one row of zeros for tcpstall's own, so that every series has a
	 * sample and a dashboard reads 0, not "No data".
	 */
	if (!nm_htab_count(r->ns)) {
		if (!ns_rows_room(r, 1))
			return r->nns_rows = 0;
		memset(&r->ns_rows[0], 0, sizeof(r->ns_rows[0]));
		r->ns_rows[0].labelled = true;
		ns_name(r, r->self_ino, r->ns_rows[0].netns, sizeof(r->ns_rows[0].netns));
		return r->nns_rows = 1;
	}
	if (!ns_rows_room(r, nm_htab_count(r->ns)))
		return 0;
	while (nm_htab_next(r->ns, &pos, &k, &v)) {
		const struct ts_ns_stats *s = *(struct ts_ns_stats **)v;
		struct ts_netns_row *row = &r->ns_rows[n++];

		memset(row, 0, sizeof(*row));
		row->labelled = true;
		ns_name(r, *(uint64_t *)k, row->netns, sizeof(row->netns));
		ns_row_totals(row, &s->tot, s->acks_sent, s->acks_owned, s->data_segments);
		memcpy(row->stalled_now, s->stalled_now, sizeof(row->stalled_now));
		row->ack_storm_flows = s->storms;
		row->cross_cpu_flows = s->cross;
	}
	/* the textfile's series in the same order each time (none: no array yet) */
	if (n)
		qsort(r->ns_rows, n, sizeof(*r->ns_rows), cmp_ns_rows);
	r->nns_rows = n;
	return n;
}

void ts_report_interval_row(const struct ts_report *r, const struct ts_interval_in *in,
			    struct ts_interval_row *ir)
{
	const struct ts_kick_stats *k = in->kicks;
	const uint64_t *c = in->counters;

	memset(ir, 0, sizeof(*ir));
	ts_report_interval(r, ir);
	ir->time = in->time;
	ir->sweeps = in->sweeps;
	ir->sweep_wait_ms = in->sweep_wait_ns / 1e6;
	ir->ack_untracked_events = in->ack_untracked;
	ir->episodes = in->episodes;
	if (in->episodes) {
		ir->tsq_episodes = c[TS_CNT_TSQ_EPISODES];
		ir->tsq_episodes_lost = c[TS_CNT_TSQ_LOST];
	}
	ir->kicker = in->kicker;
	if (in->kicker) {
		ir->kick_due = c[TS_CNT_KICK_DUE];
		ir->kick_due_lost = c[TS_CNT_KICK_DUE_LOST];
	}
	/* [0] all kicks, then one per result */
	for (int i = 0; i < TS_KICK_NRESULTS; i++) {
		ir->kicks[i + 1] = k->kicks[i];
		ir->kicks[0] += k->kicks[i];
	}
	ir->kick = in->kick;
	ir->kick_age_max_ms = k->age_max_ns / 1e6;
	ir->kick_age_mean_ms = k->aged ? k->age_sum_ns / 1e6 / k->aged : 0;
	/* with one netns labelled only when --prom-netns asks: most users want none */
	ir->prom_netns = in->prom_netns && !r->per_ns;
	ir->netns = in->netns;
	ir->netns_named = in->netns_named;
	ir->netns_swept = in->netns_swept;
	ir->netns_over = in->netns_over;
	ir->backlog_drops = c[TS_CNT_BACKLOG_DROPS];
	ir->kick_age_max_seconds = k->age_max_ns / 1e9;
}

void ts_report_first_what(const struct ts_start_row *r, bool fix, char *what, size_t len)
{
	bool diag = r->full_sweep_by && !strcmp(r->full_sweep_by, "sock_diag");

	snprintf(what, len, "sweep %llums (all sockets every %llums, senders tagged by %s%s), netns %s%s%s%s",
		 (unsigned long long)r->sweep_ms, (unsigned long long)r->full_sweep_ms,
		 r->senders_tagged_by,
		 diag ? "; full sweeps by sock_diag: no TSQ flags, pacing or Nagle state, so never tsq_idle or host_queue" : "",
		 r->netns ? r->netns : "", fix ? ", --fix" : "", r->kick ? ", kick at " : "",
		 r->kick ? r->kick_at : "");
}

/* ---- the sinks' rows, each made as it is written ---- */

/* The stalls that ended in the interval (when: CLOCK_MONOTONIC, and the wall clock in "time"). */
static const void *next_stall(void *ctx, size_t *pos, const struct nm_record **rec)
{
	static struct ts_stall_row row;
	const struct ts_report *r = ctx;
	const struct ts_ended *e;
	char ns[NM_NS_NAME];
	struct timespec rt;

	(void)rec;
	if (*pos >= r->nended)
		return NULL;
	e = &r->ended[(*pos)++];
	clock_gettime(CLOCK_REALTIME, &rt);
	ts_stall_row(&row, &e->key, ns_name(r, e->key.netns, ns, sizeof(ns)), e->start_ns, e->dur_ns,
		     e->cause, e->end, e->by, r->now_ns, rt.tv_sec + rt.tv_nsec / 1e9);
	return &row;
}

/* Sockets worth a line: stalled in the interval (ts_report_socket_shown). */
static const void *next_socket(void *ctx, size_t *pos, const struct nm_record **rec)
{
	static struct ts_socket_row row;
	const struct ts_report *r = ctx;
	char ns[NM_NS_NAME];
	void *k, *v;

	(void)rec;
	while (nm_htab_next(r->socks, pos, &k, &v)) {
		const struct ts_sock *s = v;

		if (!ts_report_socket_shown(r, s))
			continue;
		ts_socket_row(&row, k, ns_name(r, ((struct ts_key *)k)->netns, ns, sizeof(ns)), s,
			      nm_cgpaths_name(r->cgroups, s->last.cgroup_id, r->now_ns), r->now_ns,
			      r->threshold_ms);
		return &row;
	}
	return NULL;
}

/*
 * Each flow's ACKs, worst first, and with placed, its placement after
 * them when it is busy. Flow *pos / 2, its ACKs at even *pos.
 */
static const void *flow_rows(const struct ts_report *r, size_t *pos, const struct nm_record **rec,
			     bool placed)
{
	static struct ts_placement_row pr;
	static struct ts_acks_row ar;
	char ns[NM_NS_NAME];

	for (; *pos < 2 * r->nflows; (*pos)++) {
		const struct ts_flow *f = &r->flows[*pos / 2];

		if (!(*pos % 2) && !ts_report_flow_shown(r, *pos / 2)) {
			(*pos)++;	/* and the loop's: the next flow's ACKs */
			continue;
		}
		if (!(*pos % 2)) {
			*pos += placed ? 1 : 2;
			ts_acks_row(&ar, &f->key, ns_name(r, f->key.netns, ns, sizeof(ns)), &f->delta,
				    &f->j);
			return &ar;
		}
		if (!f->place.busy)
			continue;
		(*pos)++;
		*rec = &ts_placement_rec;
		ts_placement_row(&pr, &f->key, ns_name(r, f->key.netns, ns, sizeof(ns)), &f->delta,
				 &f->place);
		return &pr;
	}
	return NULL;
}

static const void *next_flow_placed(void *ctx, size_t *pos, const struct nm_record **rec)
{
	return flow_rows(ctx, pos, rec, true);
}

static const void *next_flow(void *ctx, size_t *pos, const struct nm_record **rec)
{
	return flow_rows(ctx, pos, rec, false);
}

/* -H: the ended stalls' durations, one histogram per cause that had any. */
static size_t stall_hists(struct ts_report *r)
{
	size_t n = 0;

	if (!r->hist)
		return 0;
	for (int s = 0; s < TS_NSTATES; s++) {
		struct nm_emit_hist *h = &r->hists[n];

		if (!r->tot.stalls[s])
			continue;
		snprintf(h->heading, sizeof(h->heading), "stall durations, %s:", ts_state_name(s));
		h->slots = r->tot.hist_us[s];
		h->nslots = NM_HIST_SLOTS;
		h->unit = "usecs";
		n++;
	}
	return n;
}

void ts_report_emit(struct ts_report *r, struct nm_emit *e, const struct ts_interval_row *ir)
{
	const struct nm_emit_rows socks = { .rec = &ts_socket_rec, .next = next_socket, .ctx = r };
	struct nm_emit_table *t = e->table;
	size_t nrows;

	e->json[0] = NM_EMIT_ROWS(&ts_interval_rec, ir, 1);
	e->json[1] = (struct nm_emit_rows){ .rec = &ts_stall_rec, .next = next_stall, .ctx = r };
	e->json[2] = socks;
	e->json[3] = (struct nm_emit_rows){ .rec = &ts_acks_rec, .next = next_flow_placed, .ctx = r };
	e->time = ir->time;
	/* the interval's summary line: the rows below, if any, say which */
	snprintf(t[0].heading, sizeof(t[0].heading),
		 "sockets stalled >= %u ms: %" PRIu64 ", ACK storms: %" PRIu64
		 ", cross-CPU flows: %" PRIu64, r->threshold_ms, ir->sockets_stalled,
		 ir->ack_storm_flows, ir->cross_cpu_flows);
	t[0].rows = socks;
	t[0].top = r->all ? 0 : report_top(r);
	snprintf(t[1].heading, sizeof(t[1].heading),
		 "ACKs in the last interval (storm: >= %.2f ACK/seg, and >= %.2f while owned)",
		 r->storm->min_acks_per_seg, r->storm->min_owned_ratio);
	t[1].rows = (struct nm_emit_rows){ .rec = &ts_acks_rec, .next = next_flow, .ctx = r };
	t[1].top = r->all ? 0 : report_top(r);
	e->hists = r->hists;
	e->nhists = stall_hists(r);
	/* a netns's metrics, then the others: the order they always had (rows first: a realloc) */
	nrows = ts_report_ns_rows(r);
	e->prom[0] = NM_EMIT_ROWS(&ts_netns_rec, r->ns_rows, nrows);
	e->prom[1] = e->json[0];
}

void ts_report_next(struct ts_report *r)
{
	memset(r->samples, 0, sizeof(r->samples));
	r->nended = 0;
	r->ended_dropped = 0;
}

void ts_report_free(struct ts_report *r)
{
	size_t pos = 0;
	void *k, *v;

	while (r->ns && nm_htab_next(r->ns, &pos, &k, &v))
		free(*(struct ts_ns_stats **)v);
	nm_htab_free(r->ns);
	r->ns = NULL;
	nm_cgpaths_close(r->cgroups);
	r->cgroups = NULL;
	free(r->ns_rows);
	r->ns_rows = NULL;
	r->nns_rows = r->capns_rows = 0;
	free(r->flows);
	free(r->fix);
	r->flows = NULL;
	r->fix = NULL;
	r->nflows = r->capflows = r->capfix = 0;
}
