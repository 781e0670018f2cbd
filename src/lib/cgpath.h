/* SPDX-License-Identifier: GPL-2.0 */
/*
 * cgpath.h - a cgroup v2 id (the BPF side's sk_cgroup_id(), sock_diag's
 * INET_DIAG_CGROUP_ID) as the path /proc/PID/cgroup names: "/" for the
 * root, "/system.slice/nginx.service", a container's scope. On 64-bit
 * kernels the id is the inode number of the cgroup's directory on the
 * cgroup2 mount (kernfs), so the mount's tree names it.
 *
 * The names are kept in a bounded cache, id -> path (struct nm_cgcache,
 * no I/O), filled by walks of the tree: a miss asks for a walk, which
 * runs at most once per period, reads at most NM_CG_WALK_DIRS directories
 * and NM_CG_DEPTH levels, and keeps the cgroups it passes while there is
 * room, and those asked for (the misses since the last walk) in place of
 * the least recently used. An id that two walks did not find (its cgroup
 * removed while a socket holds it, out of the mount's view, too deep, a
 * path of NM_CG_PATH bytes or more) is given up. An id without a name is
 * no error: the caller reports the id alone, and so does a host without
 * a cgroup2 mount (said once, on -v).
 */
#ifndef NETMEDIC_LIB_CGPATH_H
#define NETMEDIC_LIB_CGPATH_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct nm_opts;
struct nm_htab;

#define NM_CG_PATH		256	/* a path's bytes, its NUL included; longer: no name */
#define NM_CG_DEPTH		16	/* levels below the mount's root a walk enters */
#define NM_CG_WALK_DIRS		16384	/* directories one walk reads at most */
#define NM_CG_CACHE		1024	/* ids cached, named or given up */
#define NM_CG_WANT		64	/* misses one walk looks for; more wait for the next */
#define NM_CG_TRIES		2	/* walks that miss an id before it is given up */

struct nm_cgcache {
	struct nm_htab *ids;		/* id -> struct nm_cg_entry */
	size_t cap;
	uint64_t clock;			/* ticks at every hit and insert: the LRU order */
	uint64_t want[NM_CG_WANT];	/* misses since the last walk */
	size_t nwant;
	size_t found;			/* ... found by the walk under way */
	uint64_t period_ns;		/* walks at least this far apart */
	uint64_t walk_ns;		/* the last walk's start (CLOCK_MONOTONIC) */
	bool walked;
	/* since the start */
	uint64_t walks, evicted, wants_dropped, given_up;
};

/* An empty cache of cap ids, walked at most once per period_ns: 0 or -ENOMEM. */
int nm_cgcache_init(struct nm_cgcache *c, size_t cap, uint64_t period_ns);
void nm_cgcache_free(struct nm_cgcache *c);
/*
 * id's path, or NULL: unknown (id 0), given up, or a miss, which the next
 * walk looks for (NM_CG_WANT of them at most, the others counted).
 */
const char *nm_cgcache_get(struct nm_cgcache *c, uint64_t id);
/* Whether a walk should run at now_ns: misses wait, and none ran in the last period. */
bool nm_cgcache_walk_due(const struct nm_cgcache *c, uint64_t now_ns);
/* A walk starts at now_ns. */
void nm_cgcache_walk_begin(struct nm_cgcache *c, uint64_t now_ns);
/*
 * The walk found the cgroup id at path: kept (or renamed) if it is cached,
 * asked for, or there is room. Returns whether the walk may still add
 * anything: false once the cache is full and every miss is found.
 */
bool nm_cgcache_offer(struct nm_cgcache *c, uint64_t id, const char *path);
/* The walk is over: a miss it did not find is tried again, NM_CG_TRIES walks in all. */
void nm_cgcache_walk_end(struct nm_cgcache *c);

/*
 * One line of /proc/self/mountinfo: 0 when it is a cgroup2 mount, with
 * its mount point and its root in the hierarchy ("/" but for a bind mount
 * of a subtree, or in another cgroup namespace), octal escapes decoded;
 * -1 for any other line, or one whose fields do not fit.
 */
int nm_cg_mountinfo_line(const char *line, char *mnt, size_t mlen, char *root, size_t rlen);

/* The cache and the cgroup2 mount it walks. */
struct nm_cgpaths;

/*
 * The cgroup2 mount of mountinfo (NULL: /proc/self/mountinfo), walked at
 * most once per period_ns. NULL when there is none, or no memory: said
 * once, on -v (o may be NULL: silent); nm_cgpaths_name() takes NULL.
 */
struct nm_cgpaths *nm_cgpaths_open(const struct nm_opts *o, const char *mountinfo,
				   uint64_t period_ns);
/* The cgroup2 directory mnt, whose root in the hierarchy is root ("/"). */
struct nm_cgpaths *nm_cgpaths_open_at(const struct nm_opts *o, const char *mnt, const char *root,
				      uint64_t period_ns);
void nm_cgpaths_close(struct nm_cgpaths *p);
/*
 * The path of cgroup id at now_ns (CLOCK_MONOTONIC), walking the tree for
 * it when the cache misses and a walk is due; NULL when it has none. The
 * string lasts until the next call.
 */
const char *nm_cgpaths_name(struct nm_cgpaths *p, uint64_t id, uint64_t now_ns);
/* The cache, for its counters. */
const struct nm_cgcache *nm_cgpaths_cache(const struct nm_cgpaths *p);

#endif
