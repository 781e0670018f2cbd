// SPDX-License-Identifier: GPL-2.0
/* The collection of one qdiscstuck sweep (qdiscstuck_collect.h). */
#include <errno.h>
#include <string.h>
#include <bpf/bpf.h>
#include "qdiscstuck/qdiscstuck.h"
#include "qdiscstuck/collect.h"
#include "lib/rtnl.h"
#include "lib/sysfs.h"

bool qs_dev_selected(const struct nm_opts *o, unsigned long netns, unsigned int ifindex)
{
	if (!o->ndevs)
		return true;
	if (netns != o->netns_ino)
		return false;
	for (int i = 0; i < o->ndevs; i++)
		if (o->ifindex[i] == ifindex)
			return true;
	return false;
}

struct collect_ctx {
	const struct nm_opts *o;
	struct qs_sweep *s;
	unsigned long netns;
};

static int collect(const struct nm_qdisc_stats *q, void *arg)
{
	struct collect_ctx *c = arg;

	/* ingress and clsact hold no packets (parent ffff:fff1) */
	if (q->parent == 0xfffffff1U || !qs_dev_selected(c->o, c->netns, q->ifindex))
		return 0;
	qs_sweep_add(c->s, c->netns, q);
	return 0;
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
 * What the kernel says of the TX queues of r's device, for qs_row_txq:
 * num_tx_queues from its link messages, which the scope's socket in its
 * netns reads whatever netns that is; real_num_tx_queues from sysfs in
 * the tool's netns (sysfs is per netns: another's devices are not in it),
 * else from the BPF record, which a qdisc has only once it had an event
 * since the start (a backlog frozen before it has none). No sysfs read
 * when the rest names the queue already (a child of mq, one queue).
 */
static void dev_txqs(const struct qs_collect *c, const struct qs_row *r,
		     struct qs_txq_facts *f)
{
	f->num_txq = nm_scope_dev_ntxq(c->scope, r->netns, r->nl.ifindex);
	if (qs_row_txq(f) >= 0)
		return;
	if (r->netns == c->o->netns_ino)
		f->real_txq = nm_ifindex_ntxq(r->nl.ifindex);
	if (!f->real_txq && r->have_bpf)
		f->real_txq = r->bpf.dev_ntxq;
}

/*
 * Walks up from r to the qdisc its TX queue runs (a child of mq, or the
 * root): that one has the events; the leaves of a classful qdisc have
 * none of their own. A shaper anywhere on the way makes the backlog shaped.
 */
void qs_join_row(struct qs_sweep *s, struct qs_row *r, struct nm_htab *idx,
		 struct qs_txq_facts *f)
{
	struct qs_qdisc_key k = { .netns = r->netns };
	struct qs_row *p = r, *up;
	struct qs_qdisc *v;

	r->lockless = !strcmp(r->nl.kind, "pfifo_fast");
	for (int depth = 0; p && depth < 8; depth++, p = up) {
		r->shaper |= qs_kind_is_shaper(p->nl.kind);
		up = qs_sweep_parent(s, p);
		if (up && qs_kind_is_mq(up->nl.kind))
			*f = (struct qs_txq_facts){ .under_mq = true,
						    .mq_child_parent = p->nl.parent,
						    .mq_handle = up->nl.handle };
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
}

static void join(struct qs_collect *c, struct qs_sweep *s)
{
	struct nm_htab *idx = index_bpf(c->qdiscs_fd);

	if (!idx)
		nm_info(c->o, "warning: out of memory: qdiscs judged without their events");
	for (size_t i = 0; i < s->n; i++) {
		struct qs_row *r = &s->rows[i];
		struct qs_txq_facts f = {};

		qs_join_row(s, r, idx, &f);
		dev_txqs(c, r, &f);
		r->txq = qs_row_txq(&f);
	}
	nm_htab_free(idx);
}

static void read_counters(int fd, struct qs_sweep *s)
{
	for (uint32_t i = 0; i < QS_CNT_MAX; i++)
		s->counters[i] = nm_percpu_u64(fd, &i);
}

static void *sock_open(const char *path, void *arg)
{
	struct qs_collect *c = arg;
	char err[256];
	struct mnl_socket *nl = nm_rtnl_open_in(path, 0, err, sizeof(err));

	/* another netns can be gone by now: counted, retried while in scope */
	if (!nl && !path)
		nm_err(c->o, NM_EXIT_RUNTIME, "qdisc statistics: %s", err);
	return nl;
}

/* Its netns left the scope: the socket, which holds it alive, goes. */
static void sock_close(void *sock, void *arg)
{
	(void)arg;
	mnl_socket_close(sock);
}

int qs_collect_init(struct qs_collect *c)
{
	return qs_ns_init(&c->socks, 0, sock_open, sock_close, c);
}

void qs_collect_free(struct qs_collect *c)
{
	if (c->socks.s)
		qs_ns_free(&c->socks);
}

/*
 * One netns's qdiscs into the sweep. A failed dump adds none of them:
 * the tool's own is said (the sweep fails, as before), another's counted.
 */
static int dump_ns(struct qs_collect *c, struct qs_sweep *s, unsigned long ino,
		   const char *path)
{
	struct collect_ctx cc = { .o = c->o, .s = s, .netns = ino };
	struct mnl_socket *nl;
	size_t n0 = s->n;
	char err[256];
	int ret;

	/* --dev devices are the tool's netns's; without CAP_SYS_ADMIN no other is entered */
	if (path && (c->o->ndevs || !c->scope->setns)) {
		s->ival.netns_failed += !c->o->ndevs;
		return 0;
	}
	nl = qs_ns_want(&c->socks, ino, path);
	if (!nl)
		return path ? 0 : NM_EXIT_RUNTIME;
	ret = nm_rtnl_qdisc_dump_on(nl, 0, collect, &cc, err, sizeof(err));
	if (!ret) {
		s->ival.netns_swept++;
		return 0;
	}
	s->n = n0;
	if (path) {
		s->ival.netns_failed++;
		return 0;
	}
	return nm_err(c->o, NM_EXIT_RUNTIME, "qdisc statistics: %s", err);
}

/*
 * Every netns in scope: the tool's own first when the scope is every
 * netns (whether or not the registry lists it), then the others; the
 * sockets of namespaces gone are closed.
 */
static int dump_scope(struct qs_collect *c, struct qs_sweep *s)
{
	struct nm_scope *scope = c->scope;
	unsigned long self = c->o->netns_ino;
	struct nm_scope_counts cnt;
	struct nm_scope_ns ns;
	size_t pos = 0;
	int ret = 0;

	nm_scope_refresh(scope);
	qs_ns_begin(&c->socks);
	s->ival.netns_swept = s->ival.netns_failed = 0;
	if (!scope->n)
		ret = dump_ns(c, s, self, NULL);
	while (!ret && nm_scope_next(scope, &pos, &ns))
		if (scope->n || ns.ino != self)
			ret = dump_ns(c, s, ns.ino, ns.path);
	if (ret)
		return ret;	/* no socket closed on a failed walk */
	qs_ns_end(&c->socks);
	nm_scope_counts(scope, &cnt);
	s->ival.netns_over = c->socks.over + cnt.ns_over;
	s->ival.netns_failed += c->socks.failed;
	s->ival.devices_over = cnt.devs_over;
	return 0;
}

int qs_collect_sweep(struct qs_collect *c, struct qs_sweep *s)
{
	s->n = 0;
	s->over = 0;
	s->now_ns = nm_mono_ns();
	if (dump_scope(c, s))
		return NM_EXIT_RUNTIME;
	s->ival.qdiscs_over = s->over;
	join(c, s);
	read_counters(c->counters_fd, s);
	s->bpf_entries = s->counters[QS_CNT_SAMPLED];
	return 0;
}
