/* SPDX-License-Identifier: GPL-2.0 */
/* Self-metrics every tool exports: hook rungs, BPF run time, map fill. */
#ifndef NETMEDIC_SELFSTATS_H
#define NETMEDIC_SELFSTATS_H

#include <stdint.h>
#include <bpf/libbpf.h>
#include "lib/cli.h"
#include "lib/hooks.h"
#include "lib/output.h"
#include "lib/record.h"

/* netmedic_hook_info{tool,hook,mode,program} 1, and per loaded program its run count and time
 * (the kernel counts only while BPF stats are enabled: --bpf-stats or kernel.bpf_stats_enabled). */
void nm_self_prom(struct nm_prom *p, const char *tool, const struct bpf_object *obj,
		  const struct nm_hook *hooks, int n);
/*
 * Its two halves: the hooks' rungs, features and refusals; the programs'
 * runs and time, of nobjs objects (the agent's: one per tool) under tool.
 */
void nm_self_prom_hooks(struct nm_prom *p, const char *tool, const struct nm_hook *hooks, int n);
void nm_self_prom_progs(struct nm_prom *p, const char *tool, const struct bpf_object *const *objs,
			int nobjs);
/* netmedic_map_entries / netmedic_map_max_entries / netmedic_map_evictions_total{tool,map} */
void nm_self_prom_map(struct nm_prom *p, const char *tool, const char *map, uint64_t entries,
		      uint64_t max, uint64_t evictions);
/*
 * netmedic_map_untracked_total{tool,map}: events of flows that found no
 * slot in a direct-mapped table (an LRU map always makes room instead).
 */
void nm_self_prom_map_untracked(struct nm_prom *p, const char *tool, const char *map,
				uint64_t events);
/* "hooks":{"netdev_pick_tx":"tp_btf/net_dev_queue",...}, "refused":{prog:"load: ..."}, "lost":{hook:what} */
void nm_self_json_hooks(struct nm_json *j, const struct nm_hook *hooks, int n);
/* Each of those three maps alone, under key (a record's field writes one). */
void nm_self_json_rungs(struct nm_json *j, const char *key, const struct nm_hook *hooks, int n);
void nm_self_json_refused(struct nm_json *j, const char *key, const struct nm_hook *hooks, int n);
void nm_self_json_lost(struct nm_json *j, const char *key, const struct nm_hook *hooks, int n);
/*
 * A start record's "hooks", "refused" and "lost" fields (lib/record.h), for
 * a row type whose member hooks points to its nhooks (int) hooks.
 */
void nm_self_rec_rungs(struct nm_json *j, const struct nm_field *f, const void *row);
void nm_self_rec_refused(struct nm_json *j, const struct nm_field *f, const void *row);
void nm_self_rec_lost(struct nm_json *j, const struct nm_field *f, const void *row);
#define NM_SELF_HOOK_FIELD(key, fn, row_t, what)					\
	{ .json = (key), .type = NM_REC_OBJ, .off = offsetof(row_t, hooks),		\
	  .aux = offsetof(row_t, nhooks), .json_fn = (fn), .help = (what) }
#define NM_SELF_HOOK_FIELDS(row_t)							\
	NM_SELF_HOOK_FIELD("hooks", nm_self_rec_rungs, row_t,				\
			   "The rung in use for each logical hook"),			\
	NM_SELF_HOOK_FIELD("refused", nm_self_rec_refused, row_t,			\
			   "Programs the kernel refused, and where"),			\
	NM_SELF_HOOK_FIELD("lost", nm_self_rec_lost, row_t,				\
			   "Optional hooks with no rung left, and what is lost")
/* Turns on run-time stats for as long as the returned fd is open (BPF_ENABLE_STATS):
 * nothing to restore if the tool dies. -1 with a warning when the kernel refuses. */
int nm_self_enable_stats(const struct nm_opts *o);

#endif
