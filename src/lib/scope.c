// SPDX-License-Identifier: GPL-2.0
/*
 * scope.c - the network namespaces a tool watches, and their names (scope.h).
 */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/resource.h>

#include "lib/cli.h"
#include "lib/htab.h"
#include "lib/netns.h"
#include "lib/scope.h"

static size_t or_default(size_t v, size_t def)
{
	return v ? v : def;
}

rlim_t nm_scope_nofile(rlim_t soft, rlim_t hard, rlim_t want)
{
	if (soft == RLIM_INFINITY || soft >= want)
		return soft;
	return hard == RLIM_INFINITY || hard >= want ? want : hard;
}

/*
 * A host-wide run holds a socket per netns for the device names, and a
 * tool may hold one more of its own (qdiscstuck's dumps, tcpstall's
 * sock_diag): with the cap of each, more than the usual soft limit of
 * 1024 files. Raise the soft limit toward the hard one (unprivileged, as
 * systemd's LimitNOFILE= leaves it): a netns over it is counted, not
 * fatal, either way.
 */
static void raise_nofile(size_t socks)
{
	struct rlimit r;

	if (getrlimit(RLIMIT_NOFILE, &r))
		return;
	r.rlim_cur = nm_scope_nofile(r.rlim_cur, r.rlim_max, 2 * socks + 256);
	setrlimit(RLIMIT_NOFILE, &r);
}

/* A netns (ifindex 0) or a device remembered gone. */
struct gone_key {
	uint64_t ino;
	uint32_t ifindex;
	uint32_t pad;
};

/* Remembered from this refresh on; one over the cap is counted, not remembered. */
static void gone_add(struct nm_scope *s, unsigned long ino, unsigned int ifindex)
{
	struct gone_key k = { .ino = ino, .ifindex = ifindex };
	unsigned int *gen;

	if (!s->gone)
		return;
	gen = nm_htab_upsert(s->gone, &k, NULL);
	if (!gen) {
		s->gone_over++;
		return;
	}
	*gen = s->gen;
}

void nm_scope_dev_deleted(struct nm_scope *s, unsigned long ino, unsigned int ifindex)
{
	if (ifindex)
		gone_add(s, ino, ifindex);
}

static void on_deleted(unsigned long ino, unsigned int ifindex, void *arg)
{
	nm_scope_dev_deleted(arg, ino, ifindex);
}

/* Whether a gone one is back (its inode a live netns's, its ifindex a device's) or old. */
static bool gone_over(const struct nm_scope *s, const struct gone_key *k, unsigned int gen)
{
	if (gen + NM_SCOPE_GONE_SCANS <= s->gen)
		return true;
	if (!k->ifindex)
		return nm_nsreg_find(&s->reg, k->ino) != NULL;
	return s->dev && nm_devnames_get(s->dev, k->ino, k->ifindex);
}

/* After a refresh: what is back, or was gone long enough, is forgotten. */
static void gone_expire(struct nm_scope *s)
{
	struct gone_key keys[64];
	size_t pos, n;
	void *k, *v;

	if (!s->gone)
		return;
	/* a deletion moves entries: collect a batch of keys, delete, again */
	do {
		pos = 0;
		n = 0;
		while (n < 64 && nm_htab_next(s->gone, &pos, &k, &v))
			if (gone_over(s, k, *(unsigned int *)v))
				keys[n++] = *(struct gone_key *)k;
		for (size_t i = 0; i < n; i++)
			nm_htab_del(s->gone, &keys[i]);
	} while (n == 64);
}

bool nm_scope_any_gone(const struct nm_scope *s)
{
	return s->gone && nm_htab_count(s->gone);
}

bool nm_scope_gone(const struct nm_scope *s, unsigned long ino, unsigned int ifindex)
{
	struct gone_key k = { .ino = ino };

	if (!nm_scope_any_gone(s))
		return false;
	if (nm_htab_get(s->gone, &k))
		return true;
	k.ifindex = ifindex;
	return ifindex && nm_htab_get(s->gone, &k);
}

int nm_scope_init(struct nm_scope *s, const struct nm_scope_cfg *cfg)
{
	int ret;

	memset(s, 0, sizeof(*s));
	s->n = cfg->n < NM_MAX_NETNS ? cfg->n : NM_MAX_NETNS;
	for (int i = 0; i < s->n; i++) {
		s->ino[i] = cfg->inos[i];
		snprintf(s->path[i], sizeof(s->path[i]), "%s",
			 cfg->paths && cfg->paths[i] ? cfg->paths[i] : "");
		snprintf(s->arg[i], sizeof(s->arg[i]), "%s",
			 cfg->args && cfg->args[i] ? cfg->args[i] : "");
	}
	s->self_ino = cfg->self_ino;
	s->read_procs = cfg->read_procs;
	s->setns = cfg->setns;
	ret = nm_nsreg_init(&s->reg, cfg->proc, cfg->run, or_default(cfg->max_ns, NM_SCOPE_NS_MAX));
	if (ret)
		return ret;
	s->gone = nm_htab_new(sizeof(struct gone_key), sizeof(unsigned int), NM_SCOPE_GONE_MAX);
	if (!s->gone) {
		nm_nsreg_free(&s->reg);
		return -ENOMEM;
	}
	if (!cfg->no_devnames) {
		raise_nofile(or_default(cfg->max_ns_socks, NM_SCOPE_SOCKS_MAX));
		s->dev = nm_devnames_new(or_default(cfg->max_ns_socks, NM_SCOPE_SOCKS_MAX),
					 or_default(cfg->max_devs, NM_SCOPE_DEVS_MAX));
		if (!s->dev) {
			nm_scope_free(s);
			return -ENOMEM;
		}
		nm_devnames_on_deleted(s->dev, on_deleted, s);
	}
	nm_scope_refresh(s);
	return 0;
}

/* The scope of o's --netns; devnames: with the device names of each netns. */
static int from_opts(struct nm_scope *s, const struct nm_opts *o, bool devnames)
{
	struct nm_scope_cfg cfg = {
		.n = o->nnetns, .inos = o->netns_inos, .args = o->netns_args,
		.self_ino = o->netns_ino, .no_devnames = !devnames,
		/* without a scope of others (one --netns) nothing is lost */
		.read_procs = !o->caps.names || o->caps.names_ptrace,
		.setns = !o->caps.names || o->caps.names_setns,
	};
	char paths[NM_MAX_NETNS][PATH_MAX];
	const char *p[NM_MAX_NETNS] = {};

	/* the one --netns is the tool's own: no path, no setns */
	for (int i = 0; o->nnetns > 1 && i < o->nnetns; i++)
		p[i] = nm_netns_path(o->netns_args[i], paths[i], sizeof(paths[i]));
	cfg.paths = p;
	return nm_scope_init(s, &cfg);
}

int nm_scope_from_opts(struct nm_scope *s, const struct nm_opts *o)
{
	return from_opts(s, o, true);
}

int nm_scope_from_opts_nodev(struct nm_scope *s, const struct nm_opts *o)
{
	return from_opts(s, o, false);
}

void nm_scope_free(struct nm_scope *s)
{
	nm_devnames_free(s->dev);
	s->dev = NULL;
	nm_htab_free(s->gone);
	s->gone = NULL;
	nm_nsreg_free(&s->reg);
}

bool nm_scope_has(const struct nm_scope *s, unsigned long ino)
{
	if (!s->n)
		return true;
	for (int i = 0; i < s->n; i++)
		if (s->ino[i] == ino)
			return true;
	return false;
}

/* Index of ino in the --netns set, or -1. */
static int arg_of(const struct nm_scope *s, unsigned long ino)
{
	for (int i = 0; i < s->n; i++)
		if (s->ino[i] == ino)
			return i;
	return -1;
}

/*
 * Opens the device names of netns ino, entered by path ("" or NULL: the
 * tool's own). Counts what could not be named; a failure is retried at
 * the next refresh (a netns can be mid-creation).
 */
static void follow(struct nm_scope *s, unsigned long ino, const char *path)
{
	char err[256];
	int ret;

	if (!s->dev)
		return;
	if (ino == s->self_ino)
		path = NULL;
	else if (!s->setns || !path || !*path)
		return;	/* its devices are "ifN": nm_scope_lost says why */
	ret = nm_devnames_add(s->dev, ino, path, err, sizeof(err));
	if (ret == -ENOSPC)
		s->socks_over++;
	else if (ret)
		s->socks_failed++;
}

static void on_gone(const struct nm_ns *ns, void *arg)
{
	struct nm_scope *s = arg;

	/* a --netns socket is held for the run: at most NM_MAX_NETNS */
	if (s->dev && arg_of(s, ns->ino) < 0)
		nm_devnames_drop(s->dev, ns->ino);
	gone_add(s, ns->ino, 0);
}

void nm_scope_refresh(struct nm_scope *s)
{
	struct nm_nsreg_delta d;

	s->gen++;
	/* /proc unreadable: the registry stays as it was, names too */
	nm_nsreg_scan(&s->reg, &d, on_gone, s);
	s->socks_over = s->socks_failed = 0;
	if (s->n) {
		for (int i = 0; i < s->n; i++)
			follow(s, s->ino[i], s->path[i]);
	} else {
		for (size_t i = 0; i < s->reg.n; i++)
			follow(s, s->reg.ns[i].ino, s->reg.ns[i].path);
	}
	if (s->dev)
		nm_devnames_poll(s->dev);
	gone_expire(s);
}

const char *nm_scope_ns_name(const struct nm_scope *s, unsigned long ino, char *buf, size_t len)
{
	const struct nm_ns *ns = nm_nsreg_find(&s->reg, ino);
	int i = arg_of(s, ino);

	if (ns)
		snprintf(buf, len, "%s", ns->name);
	else if (i >= 0 && s->arg[i][0])
		snprintf(buf, len, "%s", s->arg[i]);
	else
		snprintf(buf, len, "%lu", ino);
	return buf;
}

const char *nm_scope_dev_name(const struct nm_scope *s, unsigned long ino, unsigned int ifindex,
			      char *buf, size_t len)
{
	const char *name = s->dev ? nm_devnames_get(s->dev, ino, ifindex) : NULL;

	if (name)
		snprintf(buf, len, "%s", name);
	else
		snprintf(buf, len, "if%u", ifindex);
	return buf;
}

unsigned int nm_scope_dev_ntxq(const struct nm_scope *s, unsigned long ino, unsigned int ifindex)
{
	return s->dev ? nm_devnames_ntxq(s->dev, ino, ifindex) : 0;
}

bool nm_scope_next(const struct nm_scope *s, size_t *pos, struct nm_scope_ns *out)
{
	const struct nm_ns *ns;

	if (s->n) {
		size_t i = *pos;

		if (i >= (size_t)s->n)
			return false;
		(*pos)++;
		out->ino = s->ino[i];
		nm_scope_ns_name(s, s->ino[i], out->name, sizeof(out->name));
		out->path = s->ino[i] == s->self_ino || !s->path[i][0] ? NULL : s->path[i];
		return true;
	}
	if (*pos >= s->reg.n)
		return false;
	ns = &s->reg.ns[(*pos)++];
	out->ino = ns->ino;
	snprintf(out->name, sizeof(out->name), "%s", ns->name);
	out->path = ns->ino == s->self_ino ? NULL : ns->path;
	return true;
}

const char *nm_scope_str(const struct nm_scope *s, char *buf, size_t len)
{
	size_t off = 0;

	snprintf(buf, len, "all");
	for (int i = 0; i < s->n && off < len; i++) {
		char name[NM_NS_NAME];

		off += snprintf(buf + off, len - off, "%s%s", i ? "," : "",
				nm_scope_ns_name(s, s->ino[i], name, sizeof(name)));
	}
	return buf;
}

const char *nm_scope_lost_as(const struct nm_scope *s, const char *setns_lost, char *buf, size_t len)
{
	buf[0] = '\0';
	if (!s->read_procs)
		snprintf(buf, len, "names of other users' namespaces (no CAP_SYS_PTRACE: their inodes)");
	if (!s->setns)
		snprintf(buf + strlen(buf), len - strlen(buf), "%s%s", buf[0] ? ", " : "", setns_lost);
	return buf;
}

const char *nm_scope_lost(const struct nm_scope *s, char *buf, size_t len)
{
	return nm_scope_lost_as(s, "device names in other namespaces (no CAP_SYS_ADMIN: ifN)", buf, len);
}

void nm_scope_counts(const struct nm_scope *s, struct nm_scope_counts *c)
{
	size_t pos = 0;
	struct nm_scope_ns ns;

	*c = (struct nm_scope_counts){ .ns_over = s->reg.over, .socks_over = s->socks_over,
				       .socks_failed = s->socks_failed,
				       .devs_over = s->dev ? nm_devnames_over(s->dev) : 0 };
	while (nm_scope_next(s, &pos, &ns))
		c->ns += !s->n || nm_nsreg_find(&s->reg, ns.ino);
}

bool nm_scope_went(const struct nm_scope *s, unsigned long ino, unsigned int ifindex)
{
	if (nm_scope_gone(s, ino, ifindex))
		return true;
	/* a registry over its cap at the last scan left live namespaces out: unknown says nothing */
	return !s->n && s->read_procs && !s->reg.over && ino != s->self_ino &&
	       !nm_nsreg_find(&s->reg, ino);
}

bool nm_scope_any_went(const struct nm_scope *s)
{
	return nm_scope_any_gone(s) || (!s->n && s->read_procs && !s->reg.over);
}
