// SPDX-License-Identifier: GPL-2.0
/* agent.c - the agent's ladder from each detector's (agent.h). */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include "lib/agent.h"

static enum nm_shared_kind kind_of(const struct nm_rung_decl *r, const struct nm_shared_prog *own)
{
	if (!r->progs[0])
		return NM_SHARED_NONE;
	for (; own && own->prog; own++)
		if (!strcmp(r->progs[0], own->prog))
			return own->kind;
	return NM_SHARED_NONE;
}

static bool rung_empty(const struct nm_rung_decl *r)
{
	return !r->progs[0] && !r->virt && !r->lost;
}

/* The agent's rungs for one kind, at out[*k]; false when they do not fit. */
static bool put_shared(struct nm_hook_decl *out, int *k, enum nm_shared_kind kind,
		       const struct nm_rung_decl *from)
{
	static const struct {
		enum nm_shared_kind kind;
		const char *prog, *kfunc;
	} agent[] = {
		{ NM_SHARED_TP_BTF, NM_AGENT_QUEUE_PREFIX "tp", "bpf_rdonly_cast" },
		{ NM_SHARED_TP_BTF, NM_AGENT_QUEUE_PREFIX "tp_read", NULL },
		{ NM_SHARED_RAW_TP, NM_AGENT_QUEUE_PREFIX "raw", NULL },
	};

	for (size_t i = 0; i < sizeof(agent) / sizeof(agent[0]); i++) {
		if (agent[i].kind != kind)
			continue;
		if (*k >= NM_MAX_RUNGS)
			return false;
		out->rungs[(*k)++] = (struct nm_rung_decl){
			.progs = { agent[i].prog }, .kfunc = agent[i].kfunc,
			.can = from->can, .when = from->when,
		};
	}
	return true;
}

/* One hook: 1 when it changed, 0 when not, -1 when it does not fit. */
static int one_hook(const struct nm_hook_decl *in, const struct nm_shared_prog *own,
		    struct nm_hook_decl *out)
{
	enum nm_shared_kind prev = NM_SHARED_NONE;
	int k = 0, changed = 0;

	*out = (struct nm_hook_decl){ .name = in->name, .when = in->when };
	for (int i = 0; i < NM_MAX_RUNGS && !rung_empty(&in->rungs[i]); i++) {
		enum nm_shared_kind kind = kind_of(&in->rungs[i], own);

		if (kind == NM_SHARED_NONE) {
			if (k >= NM_MAX_RUNGS)
				return -1;
			out->rungs[k++] = in->rungs[i];
		} else if (kind != prev && !put_shared(out, &k, kind, &in->rungs[i])) {
			return -1;
		}
		changed |= kind != NM_SHARED_NONE;
		prev = kind;
	}
	return changed;
}

int nm_agent_decls(const struct nm_hook_decl *in, int n, const struct nm_shared_prog *own,
		   struct nm_hook_decl *out)
{
	int changed = 0;

	for (int i = 0; i < n; i++) {
		int ret = in[i].name ? one_hook(&in[i], own, &out[i]) : 0;

		if (!in[i].name)
			out[i] = in[i];
		if (ret < 0)
			return -1;
		changed += ret;
	}
	return changed;
}

bool nm_agent_takes_queue(const struct nm_hook *hooks, int n)
{
	for (int i = 0; i < n; i++) {
		const struct nm_hook *h = &hooks[i];

		if (!h->name || h->chosen < 0)
			continue;
		for (int j = 0; j < NM_RUNG_PROGS && h->rungs[h->chosen].progs[j]; j++)
			if (!strncmp(bpf_program__name(h->rungs[h->chosen].progs[j]),
				     NM_AGENT_QUEUE_PREFIX, strlen(NM_AGENT_QUEUE_PREFIX)))
				return true;
	}
	return false;
}

const struct argp_option *nm_agent_option_of(const struct argp_option *opts, const char *tok)
{
	size_t n = strcspn(tok, "=");

	for (const struct argp_option *op = opts; op->name || op->key || op->doc; op++) {
		if (op->key > 0 && op->key < 256 && tok[0] == '-' && tok[1] == op->key)
			return op;
		if (op->name && n > 2 && !strncmp(tok, "--", 2) && n - 2 <= strlen(op->name) &&
		    !strncmp(tok + 2, op->name, n - 2))
			return op;
	}
	return NULL;
}

int nm_agent_split_name(char *buf, size_t len, const char *file, const char *name)
{
	const char *dot = strrchr(file, '.'), *slash = strrchr(file, '/');
	size_t base = strlen(file);

	/* a .prom of the file's name, not of a directory's */
	if (dot && !strcmp(dot, ".prom") && (!slash || dot > slash + 1))
		base = dot - file;
	if (snprintf(buf, len, "%.*s-%s%s", (int)base, file, name, file + base) >= (int)len)
		return -ENAMETOOLONG;
	return 0;
}
