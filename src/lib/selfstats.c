// SPDX-License-Identifier: GPL-2.0
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <bpf/bpf.h>
#include "lib/selfstats.h"

/* The optional parts (hooks with a "none" rung): 1 while a rung serves them. */
static void prom_features(struct nm_prom *p, const char *tool, const struct nm_hook *hooks, int n)
{
	nm_prom_family(p, "netmedic_feature_enabled", "gauge",
		       "Optional part of a tool: 1 while a hook rung serves it, 0 where the kernel refused every rung");
	for (int i = 0; i < n; i++) {
		const char *l[] = { "tool", tool, "feature", hooks[i].name, NULL };
		bool none = false;

		for (int j = 0; hooks[i].name && j < hooks[i].nrungs; j++)
			none |= hooks[i].rungs[j].lost != NULL;
		if (none)
			nm_prom_sample(p, "netmedic_feature_enabled", l, !nm_hook_lost(&hooks[i]));
	}
}

struct prom_arg {
	struct nm_prom *p;
	const char *tool;
};

static void prom_one_refusal(const struct nm_refusal *r, const struct nm_hook *h, void *arg)
{
	struct prom_arg *a = arg;
	const char *name = r->err == -524 ? "ENOTSUPP" : strerrorname_np(-r->err);
	const char *l[] = { "tool", a->tool, "hook", h->name, "program", r->prog, "stage", r->stage,
			    "errno", name ? name : "?", "source", r->injected ? "NETMEDIC_REFUSE" : "kernel",
			    NULL };

	nm_prom_sample(a->p, "netmedic_prog_refused_info", l, 1);
}

/* Programs the kernel refused at load, attach or run (their rungs were skipped). */
static void prom_refused(struct nm_prom *p, const char *tool, const struct nm_hook *hooks, int n)
{
	struct prom_arg a = { p, tool };

	nm_prom_family(p, "netmedic_prog_refused_info", "gauge",
		       "BPF program the kernel refused at load, attach or first run (value 1); the hook took its next rung");
	nm_hooks_each_refusal(hooks, n, prom_one_refusal, &a);
}

void nm_self_prom(struct nm_prom *p, const char *tool, const struct bpf_object *obj,
		  const struct nm_hook *hooks, int n)
{
	nm_self_prom_hooks(p, tool, hooks, n);
	nm_self_prom_progs(p, tool, &obj, 1);
}

void nm_self_prom_hooks(struct nm_prom *p, const char *tool, const struct nm_hook *hooks, int n)
{
	nm_prom_family(p, "netmedic_hook_info", "gauge",
		       "Hook rung attached for each logical hook (value 1)");
	for (int i = 0; i < n; i++) {
		const char *l[] = { "tool", tool, "hook", hooks[i].name,
				    "mode", nm_hook_mode_name(&hooks[i]),
				    "program", nm_hook_label(&hooks[i]), NULL };

		if (hooks[i].name)
			nm_prom_sample(p, "netmedic_hook_info", l, 1);
	}
	prom_features(p, tool, hooks, n);
	prom_refused(p, tool, hooks, n);
}

/* One family's samples (runs: pass 0; time: pass 1) of obj's loaded programs. */
static void prog_samples(struct nm_prom *p, int pass, const char *tool, const struct bpf_object *obj)
{
	struct bpf_program *prog;

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
			nm_prom_sample(p, "netmedic_bpf_prog_run_seconds_total", l, info.run_time_ns / 1e9);
	}
}

void nm_self_prom_progs(struct nm_prom *p, const char *tool, const struct bpf_object *const *objs,
			int nobjs)
{
	/* two passes keep each family's samples together, as the format requires */
	for (int pass = 0; pass < 2; pass++) {
		if (pass == 0)
			nm_prom_family(p, "netmedic_bpf_prog_runs_total", "counter",
				       "Runs of each loaded BPF program (counted while BPF stats are enabled, by anyone)");
		else
			nm_prom_family(p, "netmedic_bpf_prog_run_seconds_total", "counter",
				       "Time spent in each loaded BPF program (while BPF stats are enabled)");
		for (int o = 0; o < nobjs; o++)
			prog_samples(p, pass, tool, objs[o]);
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

struct json_refused {
	const char *k[NM_MAX_REFUSED], *v[NM_MAX_REFUSED];
	char buf[NM_MAX_REFUSED][96];
	int n;
};

static void json_one_refusal(const struct nm_refusal *r, const struct nm_hook *h, void *arg)
{
	struct json_refused *j = arg;

	(void)h;
	j->k[j->n] = r->prog;
	j->v[j->n] = nm_refusal_str(r, j->buf[j->n], sizeof(j->buf[0]));
	j->n++;
}

void nm_self_json_rungs(struct nm_json *j, const char *key, const struct nm_hook *hooks, int n)
{
	const char *k[NM_MAX_HOOKS], *v[NM_MAX_HOOKS];
	int m = 0;

	for (int i = 0; i < n && i < NM_MAX_HOOKS; i++) {
		if (!hooks[i].name)
			continue;
		k[m] = hooks[i].name;
		v[m++] = nm_hook_label(&hooks[i]);
	}
	nm_json_str_map(j, key, k, v, m);
}

void nm_self_json_refused(struct nm_json *j, const char *key, const struct nm_hook *hooks, int n)
{
	struct json_refused r = { .n = 0 };

	nm_hooks_each_refusal(hooks, n > NM_MAX_HOOKS ? NM_MAX_HOOKS : n, json_one_refusal, &r);
	nm_json_str_map(j, key, r.k, r.v, r.n);
}

void nm_self_json_lost(struct nm_json *j, const char *key, const struct nm_hook *hooks, int n)
{
	const char *lk[NM_MAX_HOOKS], *lv[NM_MAX_HOOKS];
	int nl = 0;

	for (int i = 0; i < n && i < NM_MAX_HOOKS; i++) {
		if (hooks[i].name && nm_hook_lost(&hooks[i])) {
			lk[nl] = hooks[i].name;
			lv[nl++] = hooks[i].rungs[hooks[i].chosen].lost;
		}
	}
	nm_json_str_map(j, key, lk, lv, nl);
}

static const struct nm_hook *row_hooks(const struct nm_field *f, const void *row, int *n)
{
	*n = *(const int *)((const char *)row + f->aux);
	return *(const struct nm_hook *const *)((const char *)row + f->off);
}

void nm_self_rec_rungs(struct nm_json *j, const struct nm_field *f, const void *row)
{
	int n;
	const struct nm_hook *h = row_hooks(f, row, &n);

	nm_self_json_rungs(j, f->json, h, n);
}

void nm_self_rec_refused(struct nm_json *j, const struct nm_field *f, const void *row)
{
	int n;
	const struct nm_hook *h = row_hooks(f, row, &n);

	nm_self_json_refused(j, f->json, h, n);
}

void nm_self_rec_lost(struct nm_json *j, const struct nm_field *f, const void *row)
{
	int n;
	const struct nm_hook *h = row_hooks(f, row, &n);

	nm_self_json_lost(j, f->json, h, n);
}

void nm_self_json_hooks(struct nm_json *j, const struct nm_hook *hooks, int n)
{
	nm_self_json_rungs(j, "hooks", hooks, n);
	nm_self_json_refused(j, "refused", hooks, n);
	nm_self_json_lost(j, "lost", hooks, n);
}

int nm_self_enable_stats(const struct nm_opts *o)
{
	int fd = bpf_enable_stats(BPF_STATS_RUN_TIME);

	if (fd < 0)
		nm_info(o, "warning: --bpf-stats: the kernel refused BPF_ENABLE_STATS: %s",
			strerror(errno));
	return fd;
}
