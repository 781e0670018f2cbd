// SPDX-License-Identifier: GPL-2.0
/*
 * cgroup v2 ids as paths: the cache (no I/O), mountinfo's cgroup2 line,
 * and the walks of the mount's tree that fill the cache.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include "lib/cgpath.h"
#include "lib/cli.h"
#include "lib/htab.h"

struct nm_cg_entry {
	uint64_t used;			/* the cache's clock at its last hit or insert */
	uint32_t tries;			/* walks that did not find it (no path) */
	bool named;
	char path[NM_CG_PATH];
};

/* ---- the cache ---- */

int nm_cgcache_init(struct nm_cgcache *c, size_t cap, uint64_t period_ns)
{
	memset(c, 0, sizeof(*c));
	c->cap = cap ? cap : 1;
	c->period_ns = period_ns;
	c->ids = nm_htab_new(sizeof(uint64_t), sizeof(struct nm_cg_entry), c->cap);
	return c->ids ? 0 : -ENOMEM;
}

void nm_cgcache_free(struct nm_cgcache *c)
{
	nm_htab_free(c->ids);
	c->ids = NULL;
}

/* The slot of id among the misses, or -1. */
static int wanted(const struct nm_cgcache *c, uint64_t id)
{
	for (size_t i = 0; i < c->nwant; i++)
		if (c->want[i] == id)
			return i;
	return -1;
}

const char *nm_cgcache_get(struct nm_cgcache *c, uint64_t id)
{
	struct nm_cg_entry *e;

	if (!id || !c->ids)
		return NULL;
	e = nm_htab_get(c->ids, &id);
	if (e && e->named) {
		e->used = ++c->clock;
		return e->path;
	}
	if (e && e->tries >= NM_CG_TRIES)
		return NULL;	/* given up */
	if (wanted(c, id) >= 0)
		return NULL;
	if (c->nwant < NM_CG_WANT)
		c->want[c->nwant++] = id;
	else
		c->wants_dropped++;	/* asked for again at a later miss */
	return NULL;
}

bool nm_cgcache_walk_due(const struct nm_cgcache *c, uint64_t now_ns)
{
	return c->nwant && (!c->walked || now_ns - c->walk_ns >= c->period_ns);
}

void nm_cgcache_walk_begin(struct nm_cgcache *c, uint64_t now_ns)
{
	c->walked = true;
	c->walk_ns = now_ns;
	c->walks++;
	c->found = 0;
}

/* Room for one more id: the least recently used one goes. */
static void evict(struct nm_cgcache *c)
{
	uint64_t old = 0, min = UINT64_MAX;
	size_t pos = 0;
	void *k, *v;

	while (nm_htab_next(c->ids, &pos, &k, &v)) {
		const struct nm_cg_entry *e = v;

		if (e->used < min) {
			min = e->used;
			old = *(uint64_t *)k;
		}
	}
	if (min != UINT64_MAX && nm_htab_del(c->ids, &old))
		c->evicted++;
}

/* id's entry, made (zeroed) if it may be: always when must, else only if there is room. */
static struct nm_cg_entry *entry(struct nm_cgcache *c, uint64_t id, bool must)
{
	struct nm_cg_entry *e = nm_htab_get(c->ids, &id);

	if (e)
		return e;
	if (nm_htab_count(c->ids) >= c->cap) {
		if (!must)
			return NULL;
		evict(c);
	}
	e = nm_htab_upsert(c->ids, &id, NULL);
	if (e)
		e->used = ++c->clock;
	return e;
}

bool nm_cgcache_offer(struct nm_cgcache *c, uint64_t id, const char *path)
{
	int w = wanted(c, id);
	struct nm_cg_entry *e;

	if (!id || !c->ids || strlen(path) >= NM_CG_PATH)
		goto more;
	e = entry(c, id, w >= 0);
	if (e) {
		e->named = true;
		e->tries = 0;
		snprintf(e->path, sizeof(e->path), "%s", path);
	}
	if (w >= 0) {
		/* found: this miss is not looked for again */
		c->want[w] = c->want[--c->nwant];
		c->found++;
	}
more:
	return c->nwant || nm_htab_count(c->ids) < c->cap;
}

void nm_cgcache_walk_end(struct nm_cgcache *c)
{
	for (size_t i = 0; i < c->nwant; i++) {
		struct nm_cg_entry *e = entry(c, c->want[i], true);

		if (e && ++e->tries >= NM_CG_TRIES)
			c->given_up++;
	}
	c->nwant = 0;
}

/* ---- mountinfo ---- */

/* The next space-separated field of *s, octal escapes (\040) decoded into out. */
static int field(const char **s, char *out, size_t len)
{
	const char *p = *s;
	size_t n = 0;

	while (*p == ' ')
		p++;
	if (!*p || *p == '\n')
		return -1;
	for (; *p && *p != ' ' && *p != '\n'; p++) {
		char ch = *p;

		if (ch == '\\' && p[1] >= '0' && p[1] <= '3' && p[2] >= '0' && p[2] <= '7' &&
		    p[3] >= '0' && p[3] <= '7') {
			ch = (char)((p[1] - '0') << 6 | (p[2] - '0') << 3 | (p[3] - '0'));
			p += 3;
		}
		if (n + 1 >= len)
			return -1;
		out[n++] = ch;
	}
	out[n] = '\0';
	*s = p;
	return 0;
}

int nm_cg_mountinfo_line(const char *line, char *mnt, size_t mlen, char *root, size_t rlen)
{
	const char *s = line, *sep;
	char f[64];

	/* mount id, parent id, major:minor, then the root and the mount point */
	for (int i = 0; i < 3; i++)
		if (field(&s, f, sizeof(f)))
			return -1;
	if (field(&s, root, rlen) || field(&s, mnt, mlen))
		return -1;
	/* options and optional fields (escaped: no " - " in them) up to the separator */
	sep = strstr(s, " - ");
	if (!sep)
		return -1;
	s = sep + 3;
	if (field(&s, f, sizeof(f)))
		return -1;
	return strcmp(f, "cgroup2") ? -1 : 0;
}

/* ---- the walks ---- */

struct nm_cgpaths {
	struct nm_cgcache c;
	int fd;				/* the mount's directory, opened once */
	char mnt[NM_CG_PATH];
	char root[NM_CG_PATH];		/* the mount's root in the hierarchy, "" for "/" */
	const struct nm_opts *o;
	bool said_cut;
};

struct walk {
	struct nm_cgcache *c;
	size_t dirs;
	bool cut;			/* a bound stopped it */
	bool done;			/* nothing more to add */
};

static bool dot(const char *n)
{
	return n[0] == '.' && (!n[1] || (n[1] == '.' && !n[2]));
}

/* The cgroups below directory fd (taken), at path (len bytes), depth levels down. */
static void walk_dir(struct walk *w, int fd, char *path, size_t len, int depth)
{
	DIR *d = fdopendir(fd);
	struct dirent *de;

	if (!d) {
		close(fd);
		return;
	}
	while (!w->done && (de = readdir(d))) {
		uint64_t ino = de->d_ino;
		struct stat st;
		int n, cfd;

		if (dot(de->d_name) || (de->d_type != DT_DIR && de->d_type != DT_UNKNOWN))
			continue;
		if (de->d_type == DT_UNKNOWN) {
			if (fstatat(dirfd(d), de->d_name, &st, AT_SYMLINK_NOFOLLOW) || !S_ISDIR(st.st_mode))
				continue;
			ino = st.st_ino;
		}
		if (w->dirs >= NM_CG_WALK_DIRS) {
			w->cut = w->done = true;
			break;
		}
		w->dirs++;
		n = snprintf(path + len, NM_CG_PATH - len, "/%s", de->d_name);
		if (n < 0 || (size_t)n >= NM_CG_PATH - len) {
			w->cut = true;	/* too long to name, so are those below it */
			continue;
		}
		w->done = !nm_cgcache_offer(w->c, ino, path);
		if (w->done)
			break;
		if (depth + 1 >= NM_CG_DEPTH) {
			w->cut = true;
			continue;
		}
		cfd = openat(dirfd(d), de->d_name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
		if (cfd >= 0)
			walk_dir(w, cfd, path, len + n, depth + 1);
	}
	path[len] = '\0';
	closedir(d);
}

static void walk(struct nm_cgpaths *p, uint64_t now_ns)
{
	struct walk w = { .c = &p->c };
	char path[NM_CG_PATH];
	struct stat st;
	int fd;

	nm_cgcache_walk_begin(&p->c, now_ns);
	fd = openat(p->fd, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (fd >= 0 && !fstat(fd, &st)) {
		w.done = !nm_cgcache_offer(&p->c, st.st_ino, p->root[0] ? p->root : "/");
		snprintf(path, sizeof(path), "%s", p->root);
		walk_dir(&w, fd, path, strlen(path), 0);
	} else if (fd >= 0) {
		close(fd);
	}
	nm_cgcache_walk_end(&p->c);
	if (w.cut && !p->said_cut && p->o && p->o->verbose) {
		p->said_cut = true;
		nm_info(p->o, "cgroups: a walk of %s stopped at a bound (%d directories, %d levels, paths of %d bytes): the cgroups past it are not named",
			p->mnt, NM_CG_WALK_DIRS, NM_CG_DEPTH, NM_CG_PATH - 1);
	}
}

struct nm_cgpaths *nm_cgpaths_open_at(const struct nm_opts *o, const char *mnt, const char *root,
				      uint64_t period_ns)
{
	struct nm_cgpaths *p = calloc(1, sizeof(*p));

	if (!p || nm_cgcache_init(&p->c, NM_CG_CACHE, period_ns)) {
		free(p);
		if (o && o->verbose)
			nm_info(o, "cgroups: out of memory: sockets' cgroups are not named (cgroup_id only)");
		return NULL;
	}
	p->o = o;
	snprintf(p->mnt, sizeof(p->mnt), "%s", mnt);
	snprintf(p->root, sizeof(p->root), "%s", strcmp(root, "/") ? root : "");
	p->fd = open(mnt, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (p->fd < 0) {
		if (o && o->verbose)
			nm_info(o, "cgroups: cannot open %s: %s: sockets' cgroups are not named (cgroup_id only)",
				mnt, strerror(errno));
		nm_cgcache_free(&p->c);
		free(p);
		return NULL;
	}
	return p;
}

struct nm_cgpaths *nm_cgpaths_open(const struct nm_opts *o, const char *mountinfo,
				   uint64_t period_ns)
{
	char line[4096], mnt[NM_CG_PATH], root[NM_CG_PATH], best[NM_CG_PATH] = "", broot[NM_CG_PATH];
	FILE *f = fopen(mountinfo ? mountinfo : "/proc/self/mountinfo", "re");

	while (f && fgets(line, sizeof(line), f)) {
		if (nm_cg_mountinfo_line(line, mnt, sizeof(mnt), root, sizeof(root)))
			continue;
		/* the whole hierarchy first: a bind mount of a subtree names less */
		if (!best[0] || (strcmp(broot, "/") && !strcmp(root, "/"))) {
			snprintf(best, sizeof(best), "%s", mnt);
			snprintf(broot, sizeof(broot), "%s", root);
		}
	}
	if (f)
		fclose(f);
	if (!best[0]) {
		if (o && o->verbose)
			nm_info(o, "cgroups: no cgroup2 mount in %s: sockets' cgroups are not named (cgroup_id only)",
				mountinfo ? mountinfo : "/proc/self/mountinfo");
		return NULL;
	}
	return nm_cgpaths_open_at(o, best, broot, period_ns);
}

void nm_cgpaths_close(struct nm_cgpaths *p)
{
	if (!p)
		return;
	close(p->fd);
	nm_cgcache_free(&p->c);
	free(p);
}

const char *nm_cgpaths_name(struct nm_cgpaths *p, uint64_t id, uint64_t now_ns)
{
	const char *path;

	if (!p)
		return NULL;
	path = nm_cgcache_get(&p->c, id);
	if (path || !nm_cgcache_walk_due(&p->c, now_ns))
		return path;
	walk(p, now_ns);
	return nm_cgcache_get(&p->c, id);
}

const struct nm_cgcache *nm_cgpaths_cache(const struct nm_cgpaths *p)
{
	return p ? &p->c : NULL;
}
