// SPDX-License-Identifier: GPL-2.0
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <bpf/bpf.h>
#include "lib/selfstats.h"

void nm_self_prom(struct nm_prom *p, const char *tool, const struct bpf_object *obj,
		  const struct nm_hook *hooks, int n)
{
	struct bpf_program *prog;

	nm_prom_family(p, "netmedic_hook_info", "gauge",
		       "Hook rung attached for each logical hook (value 1)");
	for (int i = 0; i < n; i++) {
		const char *l[] = { "tool", tool, "hook", hooks[i].name,
				    "mode", nm_hook_mode_name(&hooks[i]),
				    "program", nm_hook_label(&hooks[i]), NULL };

		nm_prom_sample(p, "netmedic_hook_info", l, 1);
	}
	/* two passes keep each family's samples together, as the format requires */
	for (int pass = 0; pass < 2; pass++) {
		if (pass == 0)
			nm_prom_family(p, "netmedic_bpf_prog_runs_total", "counter",
				       "Runs of each loaded BPF program (counted while BPF stats are enabled, by anyone)");
		else
			nm_prom_family(p, "netmedic_bpf_prog_run_seconds_total", "counter",
				       "Time spent in each loaded BPF program (while BPF stats are enabled)");
		bpf_object__for_each_program(prog, obj) {
			struct bpf_prog_info info = {};
			__u32 len = sizeof(info);
			int fd = bpf_program__fd(prog);
			const char *l[] = { "tool", tool, "program", bpf_program__name(prog), NULL };

			if (fd < 0 || bpf_obj_get_info_by_fd(fd, &info, &len))
				continue;
			if (pass == 0)
				nm_prom_sample(p, "netmedic_bpf_prog_runs_total", l, info.run_cnt);
			else
				nm_prom_sample(p, "netmedic_bpf_prog_run_seconds_total", l,
					       info.run_time_ns / 1e9);
		}
	}
}

void nm_self_prom_map(struct nm_prom *p, const char *tool, const char *map, uint64_t entries,
		      uint64_t max, uint64_t evictions)
{
	const char *l[] = { "tool", tool, "map", map, NULL };

	nm_prom_family(p, "netmedic_map_entries", "gauge", "Entries in a bounded BPF map");
	nm_prom_sample(p, "netmedic_map_entries", l, entries);
	nm_prom_family(p, "netmedic_map_max_entries", "gauge", "Capacity of a bounded BPF map");
	nm_prom_sample(p, "netmedic_map_max_entries", l, max);
	nm_prom_family(p, "netmedic_map_evictions_total", "counter",
		       "Entries a bounded BPF map gave up to make room for new ones");
	nm_prom_sample(p, "netmedic_map_evictions_total", l, evictions);
}

void nm_self_prom_map_untracked(struct nm_prom *p, const char *tool, const char *map,
				uint64_t events)
{
	const char *l[] = { "tool", tool, "map", map, NULL };

	nm_prom_family(p, "netmedic_map_untracked_total", "counter",
		       "Events of flows that found every slot they may take in a BPF table held");
	nm_prom_sample(p, "netmedic_map_untracked_total", l, events);
}

void nm_self_json_hooks(struct nm_json *j, const struct nm_hook *hooks, int n)
{
	const char *k[NM_MAX_HOOKS], *v[NM_MAX_HOOKS];

	if (n > NM_MAX_HOOKS)
		n = NM_MAX_HOOKS;
	for (int i = 0; i < n; i++) {
		k[i] = hooks[i].name;
		v[i] = nm_hook_label(&hooks[i]);
	}
	nm_json_str_map(j, "hooks", k, v, n);
}

int nm_self_enable_stats(const struct nm_opts *o)
{
	int fd = bpf_enable_stats(BPF_STATS_RUN_TIME);

	if (fd < 0)
		nm_info(o, "warning: --bpf-stats: the kernel refused BPF_ENABLE_STATS: %s",
			strerror(errno));
	return fd;
}
