// SPDX-License-Identifier: GPL-2.0
/* What tcpstall's loader collects into its report (tcpstall_collect.h). */
#include <errno.h>
#include <bpf/bpf.h>
#include "lib/cgpath.h"
#include "lib/cli.h"
#include "tcpstall/collect.h"

void ts_collect_settings(struct ts_report *rep, const struct ts_env *env)
{
	rep->threshold_ms = env->threshold_ms;
	rep->storm = &env->storm;
	rep->hist = env->hist;
	rep->all = env->view.all;
	rep->top = env->view.top;
	rep->sort = env->view.sort;
	/* one --netns: its metrics as they always were; else each netns's, by name */
	rep->per_ns = env->o.nnetns != 1;
	rep->prom_netns = env->prom_netns;
	rep->self_ino = env->o.netns_ino;
}

int ts_collect_report_init(struct ts_report *rep, const struct ts_env *env, struct nm_scope *scope)
{
	rep->socks = nm_htab_new(sizeof(struct ts_key), sizeof(struct ts_sock), TS_MAX_SOCKS);
	rep->prev_acks = nm_htab_new(sizeof(uint64_t), sizeof(struct ts_prev_acks), env->max_flows);
	if (!rep->socks || !rep->prev_acks || ts_report_init(rep))
		return -ENOMEM;
	ts_collect_settings(rep, env);
	rep->gone = ts_ns_went;
	rep->gone_arg = scope;
	rep->ns_name = ts_ns_name;
	rep->ns_arg = scope;
	/* the socket records' cgroup paths: a miss walks the cgroup2 tree, once an interval at most */
	rep->cgroups = nm_cgpaths_open(&env->o, NULL, (uint64_t)(env->o.interval * 1e9));
	return 0;
}

void ts_collect_episodes(const struct ts_collect *c, struct ts_report *rep)
{
	struct ts_episode e;

	while (!bpf_map_lookup_and_delete_elem(c->episodes_fd, NULL, &e))
		ts_report_episode(rep, &e.key, e.start_ns, e.end_ns);
}

void ts_collect_acks(struct ts_collect *c, struct ts_report *rep)
{
	uint32_t untracked = TS_CNT_ACK_UNTRACKED;
	uint32_t epoch = *c->epoch;

	c->acks_untracked = nm_percpu_u64(c->counters_fd, &untracked);
	/* CPU masks restart for the next interval */
	if (ts_report_acks(rep, c->acks, c->max_flows, epoch))
		*c->epoch = epoch + 1;
}

static uint64_t counter(const struct ts_collect *c, uint32_t idx)
{
	return nm_percpu_u64(c->counters_fd, &idx);
}

void ts_collect_scope_in(const struct nm_scope_counts *sc, size_t swept, unsigned long nss_over,
			 struct ts_interval_in *in)
{
	in->netns_named = sc->ns;
	in->netns_swept = swept;
	/* both caps leave a netns unswept: the registry's and the sweeps' */
	in->netns_over = sc->ns_over + nss_over;
}

void ts_collect_interval(const struct ts_collect *c, const struct nm_scope *scope,
			 const struct ts_nsset *nss, struct ts_interval_in *in)
{
	struct nm_scope_counts sc;

	nm_scope_counts(scope, &sc);
	ts_collect_scope_in(&sc, ts_nsset_ways(nss), nss->over, in);
	in->ack_untracked = c->acks_untracked;
	for (uint32_t i = 0; i < TS_CNT_MAX; i++)
		in->counters[i] = counter(c, i);
}

struct nm_emit_map ts_collect_acks_map(size_t present, uint32_t max_flows, uint64_t evicted,
				       uint64_t untracked)
{
	/* direct-mapped: an event whose slots were both held is counted, not stored */
	return (struct nm_emit_map){ .name = "acks", .entries = present, .max = max_flows,
				     .evictions = evicted, .direct = true, .untracked = untracked };
}

void ts_collect_emit(const struct ts_collect *c, struct ts_report *rep, struct nm_emit *e,
		     const struct ts_interval_row *ir, bool prom)
{
	ts_report_emit(rep, e, ir);
	if (!prom)
		return;
	e->map = ts_collect_acks_map(rep->acks_present, c->max_flows,
				     counter(c, TS_CNT_ACK_FLOWS_EVICTED), c->acks_untracked);
}
