// SPDX-License-Identifier: GPL-2.0
/*
 * Unit tests for src/lib/cgpath.c: the id -> path cache (misses wanted by
 * the next walk, walks a period apart, bounded, least recently used out,
 * ids given up after two walks), mountinfo's cgroup2 line, and the walks
 * themselves, on a tree of the tests' own in /tmp (a directory's inode
 * number stands for a cgroup's id, as on kernfs).
 */
#include <dirent.h>
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <cmocka.h>
#include "fake_proc.h"

#include "lib/cgpath.h"

#define SEC	1000000000ULL

/* ---- the cache ---- */

static void test_miss_is_wanted_then_found(void **state)
{
	struct nm_cgcache c;

	(void)state;
	assert_int_equal(nm_cgcache_init(&c, 8, SEC), 0);
	/* nothing asked for: no walk */
	assert_false(nm_cgcache_walk_due(&c, 0));
	assert_null(nm_cgcache_get(&c, 42));
	assert_null(nm_cgcache_get(&c, 42));
	assert_int_equal(c.nwant, 1);
	assert_true(nm_cgcache_walk_due(&c, 0));
	nm_cgcache_walk_begin(&c, 0);
	assert_true(nm_cgcache_offer(&c, 1, "/"));
	assert_true(nm_cgcache_offer(&c, 42, "/system.slice/nginx.service"));
	nm_cgcache_walk_end(&c);
	assert_string_equal(nm_cgcache_get(&c, 42), "/system.slice/nginx.service");
	/* one it passed without being asked, while there was room */
	assert_string_equal(nm_cgcache_get(&c, 1), "/");
	assert_int_equal(c.nwant, 0);
	assert_int_equal(c.walks, 1);
	nm_cgcache_free(&c);
}

/* id 0 is "unknown" (no cgroup data): never looked for */
static void test_id_zero_is_never_wanted(void **state)
{
	struct nm_cgcache c;

	(void)state;
	assert_int_equal(nm_cgcache_init(&c, 8, SEC), 0);
	assert_null(nm_cgcache_get(&c, 0));
	assert_false(nm_cgcache_walk_due(&c, 0));
	nm_cgcache_free(&c);
}

/* at most one walk a period, however many misses */
static void test_walks_a_period_apart(void **state)
{
	struct nm_cgcache c;

	(void)state;
	assert_int_equal(nm_cgcache_init(&c, 8, 2 * SEC), 0);
	assert_null(nm_cgcache_get(&c, 7));
	nm_cgcache_walk_begin(&c, 10 * SEC);
	nm_cgcache_walk_end(&c);
	assert_null(nm_cgcache_get(&c, 8));
	assert_false(nm_cgcache_walk_due(&c, 10 * SEC));
	assert_false(nm_cgcache_walk_due(&c, 12 * SEC - 1));
	assert_true(nm_cgcache_walk_due(&c, 12 * SEC));
	nm_cgcache_free(&c);
}

/*
 * Full: a walk keeps no more cgroups than there is room for, but an id
 * asked for takes the place of the least recently used one; and the walk
 * may stop once nothing more can be added. Twice, each with another id
 * used least lately.
 */
static void full_cache(uint64_t first, uint64_t second, uint64_t kept)
{
	static const char *const names[] = { "/a", "/b", "/c" };
	struct nm_cgcache c;
	char p[32];

	assert_int_equal(nm_cgcache_init(&c, 3, SEC), 0);
	assert_null(nm_cgcache_get(&c, 10));
	nm_cgcache_walk_begin(&c, 0);
	assert_true(nm_cgcache_offer(&c, 10, "/a"));
	assert_true(nm_cgcache_offer(&c, 11, "/b"));
	/* the third fills it, and the one miss is found: nothing more to add */
	assert_false(nm_cgcache_offer(&c, 12, "/c"));
	nm_cgcache_walk_end(&c);
	/* used last: kept */
	assert_non_null(nm_cgcache_get(&c, first));
	assert_non_null(nm_cgcache_get(&c, second));
	assert_null(nm_cgcache_get(&c, 20));
	assert_null(nm_cgcache_get(&c, 21));
	nm_cgcache_walk_begin(&c, SEC);
	for (int i = 0; i < 8; i++) {
		snprintf(p, sizeof(p), "/x%d", i);
		/* not asked for, no room: left out */
		assert_true(nm_cgcache_offer(&c, 100 + i, p));
	}
	assert_true(nm_cgcache_offer(&c, 20, "/d"));
	assert_false(nm_cgcache_offer(&c, 21, "/e"));
	nm_cgcache_walk_end(&c);
	assert_int_equal(c.evicted, 2);
	assert_string_equal(nm_cgcache_get(&c, 20), "/d");
	assert_string_equal(nm_cgcache_get(&c, 21), "/e");
	assert_string_equal(nm_cgcache_get(&c, kept), names[kept - 10]);
	for (uint64_t id = 10; id <= 12; id++)
		if (id != kept)
			assert_null(nm_cgcache_get(&c, id));
	assert_null(nm_cgcache_get(&c, 100));
	nm_cgcache_free(&c);
}

static void test_bounded_least_recently_used_goes(void **state)
{
	(void)state;
	/* 12, then 11 are the least recently used */
	full_cache(11, 10, 10);
	/* 10, then 11 */
	full_cache(11, 12, 12);
}

/*
 * An id the first walk did not find (a cgroup made during it) is looked
 * for once more: named if the second walk finds it, else given up.
 */
static void second_walk(bool finds)
{
	struct nm_cgcache c;

	assert_int_equal(nm_cgcache_init(&c, 8, SEC), 0);
	assert_null(nm_cgcache_get(&c, 99));
	nm_cgcache_walk_begin(&c, 0);
	nm_cgcache_walk_end(&c);
	assert_null(nm_cgcache_get(&c, 99));
	assert_int_equal(c.nwant, 1);
	nm_cgcache_walk_begin(&c, SEC);
	if (finds)
		nm_cgcache_offer(&c, 99, "/late");
	nm_cgcache_walk_end(&c);
	assert_int_equal(c.given_up, !finds);
	if (finds) {
		assert_string_equal(nm_cgcache_get(&c, 99), "/late");
	} else {
		assert_null(nm_cgcache_get(&c, 99));
		/* no more walks for it */
		assert_int_equal(c.nwant, 0);
		assert_false(nm_cgcache_walk_due(&c, 10 * SEC));
	}
	nm_cgcache_free(&c);
}

static void test_second_walk_names_or_gives_up(void **state)
{
	(void)state;
	second_walk(false);
	second_walk(true);
}

/* The misses one walk looks for are bounded; the others are asked for again later. */
static void test_wants_bounded(void **state)
{
	struct nm_cgcache c;

	(void)state;
	assert_int_equal(nm_cgcache_init(&c, 8, SEC), 0);
	for (uint64_t id = 1; id <= NM_CG_WANT + 6; id++)
		assert_null(nm_cgcache_get(&c, id));
	assert_int_equal(c.nwant, NM_CG_WANT);
	assert_int_equal(c.wants_dropped, 6);
	nm_cgcache_free(&c);
}

/* A walk that passes a cached cgroup under another name renames it; a path too long is none. */
static void test_renamed_and_too_long(void **state)
{
	char longp[NM_CG_PATH + 8];
	struct nm_cgcache c;

	(void)state;
	assert_int_equal(nm_cgcache_init(&c, 8, SEC), 0);
	nm_cgcache_get(&c, 5);
	nm_cgcache_walk_begin(&c, 0);
	nm_cgcache_offer(&c, 5, "/old");
	nm_cgcache_walk_end(&c);
	nm_cgcache_get(&c, 6);
	nm_cgcache_walk_begin(&c, SEC);
	nm_cgcache_offer(&c, 5, "/new");
	memset(longp, 'x', sizeof(longp) - 1);
	longp[0] = '/';
	longp[sizeof(longp) - 1] = '\0';
	nm_cgcache_offer(&c, 6, longp);
	nm_cgcache_walk_end(&c);
	assert_string_equal(nm_cgcache_get(&c, 5), "/new");
	assert_null(nm_cgcache_get(&c, 6));
	nm_cgcache_free(&c);
}

/* ---- mountinfo ---- */

static void test_mountinfo_lines(void **state)
{
	char mnt[64], root[64];

	(void)state;
	/* this host's hybrid layout */
	assert_int_equal(nm_cg_mountinfo_line("41 31 0:38 / /sys/fs/cgroup/unified rw,relatime - cgroup2 cgroup2 rw\n",
					      mnt, sizeof(mnt), root, sizeof(root)), 0);
	assert_string_equal(mnt, "/sys/fs/cgroup/unified");
	assert_string_equal(root, "/");
	/* systemd's unified layout, with an optional field */
	assert_int_equal(nm_cg_mountinfo_line("30 23 0:26 / /sys/fs/cgroup rw,nosuid,nodev,noexec,relatime shared:4 - cgroup2 cgroup2 rw,nsdelegate,memory_recursiveprot\n",
					      mnt, sizeof(mnt), root, sizeof(root)), 0);
	assert_string_equal(mnt, "/sys/fs/cgroup");
	/* a container's view of its own subtree; an escaped space */
	assert_int_equal(nm_cg_mountinfo_line("900 899 0:26 /kubepods/pod1 /mnt/my\\040cg ro master:4 shared:9 - cgroup2 cgroup rw",
					      mnt, sizeof(mnt), root, sizeof(root)), 0);
	assert_string_equal(mnt, "/mnt/my cg");
	assert_string_equal(root, "/kubepods/pod1");
	/* cgroup v1, other file systems, a type that only starts alike */
	assert_int_equal(nm_cg_mountinfo_line("40 31 0:37 / /sys/fs/cgroup/systemd rw,relatime - cgroup cgroup rw,name=systemd\n",
					      mnt, sizeof(mnt), root, sizeof(root)), -1);
	assert_int_equal(nm_cg_mountinfo_line("31 23 0:28 / /sys/fs/cgroup rw,relatime - tmpfs tmpfs rw,mode=755\n",
					      mnt, sizeof(mnt), root, sizeof(root)), -1);
	assert_int_equal(nm_cg_mountinfo_line("41 31 0:38 / /x rw - cgroup2x none rw\n",
					      mnt, sizeof(mnt), root, sizeof(root)), -1);
	/* cut short, no separator, nothing after it, a mount point too long to keep */
	assert_int_equal(nm_cg_mountinfo_line("41 31 0:38 / /sys/fs/cg", mnt, sizeof(mnt), root,
					      sizeof(root)), -1);
	assert_int_equal(nm_cg_mountinfo_line("41 31 0:38 / /a rw cgroup2 cgroup2 rw", mnt,
					      sizeof(mnt), root, sizeof(root)), -1);
	assert_int_equal(nm_cg_mountinfo_line("41 31 0:38 / /a rw - ", mnt, sizeof(mnt), root,
					      sizeof(root)), -1);
	assert_int_equal(nm_cg_mountinfo_line("", mnt, sizeof(mnt), root, sizeof(root)), -1);
	assert_int_equal(nm_cg_mountinfo_line("41 31 0:38 / /sys/fs/cgroup/unified rw - cgroup2 c rw",
					      mnt, 8, root, sizeof(root)), -1);
}

/* ---- the walks, on a tree in /tmp ---- */

static int setup(void **state)
{
	struct tree *t = tree_new("cg");

	if (!t)
		return -1;
	/* cgroups are directories; their files are not */
	sh("mkdir -p %s/cg/system.slice/nginx.service %s/cg/kubepods/pod1/ctr1 && touch %s/cg/cgroup.procs %s/cg/kubepods/cgroup.procs",
	   t->root, t->root, t->root, t->root);
	*state = t;
	return 0;
}

static uint64_t ino_of(const struct tree *t, const char *rel)
{
	char path[512];
	struct stat st;

	snprintf(path, sizeof(path), "%s/cg%s", t->root, rel);
	assert_int_equal(stat(path, &st), 0);
	return st.st_ino;
}

static struct nm_cgpaths *open_tree(const struct tree *t, const char *root, uint64_t period)
{
	char mnt[512];
	struct nm_cgpaths *p;

	snprintf(mnt, sizeof(mnt), "%s/cg", t->root);
	p = nm_cgpaths_open_at(NULL, mnt, root, period);
	assert_non_null(p);
	return p;
}

static int nfds(void)
{
	DIR *d = opendir("/proc/self/fd");
	int n = 0;

	assert_non_null(d);
	while (readdir(d))
		n++;
	closedir(d);
	return n;
}

static void test_walk_names_the_tree(void **state)
{
	struct tree *t = *state;
	struct nm_cgpaths *p;
	int fds = nfds();

	p = open_tree(t, "/", SEC);
	assert_string_equal(nm_cgpaths_name(p, ino_of(t, "/kubepods/pod1/ctr1"), 0),
			    "/kubepods/pod1/ctr1");
	/* one walk named the others it passed: no second walk for them */
	assert_string_equal(nm_cgpaths_name(p, ino_of(t, "/system.slice/nginx.service"), 0),
			    "/system.slice/nginx.service");
	assert_string_equal(nm_cgpaths_name(p, ino_of(t, ""), 0), "/");
	assert_int_equal(nm_cgpaths_cache(p)->walks, 1);
	/* a file is no cgroup */
	assert_null(nm_cgpaths_name(p, ino_of(t, "/cgroup.procs"), 0));
	/* a cgroup made since: named at the first walk a period later */
	sh("mkdir %s/cg/kubepods/pod2", t->root);
	assert_null(nm_cgpaths_name(p, ino_of(t, "/kubepods/pod2"), SEC / 2));
	assert_string_equal(nm_cgpaths_name(p, ino_of(t, "/kubepods/pod2"), SEC), "/kubepods/pod2");
	assert_int_equal(nm_cgpaths_cache(p)->walks, 2);
	nm_cgpaths_close(p);
	/* every directory the walks opened is closed, and the mount's too */
	assert_int_equal(nfds(), fds);
}

/* A mount of a subtree (or in another cgroup namespace): its root comes first. */
static void test_walk_below_a_subtree_root(void **state)
{
	struct tree *t = *state;
	struct nm_cgpaths *p = open_tree(t, "/machine.slice", SEC);

	assert_string_equal(nm_cgpaths_name(p, ino_of(t, "/kubepods/pod1"), 0),
			    "/machine.slice/kubepods/pod1");
	assert_string_equal(nm_cgpaths_name(p, ino_of(t, ""), 0), "/machine.slice");
	nm_cgpaths_close(p);
}

/* Levels 1 to NM_CG_DEPTH below the root are named, none deeper. */
static void test_walk_depth_bound(void **state)
{
	struct tree *t = *state;
	char rel[256] = "";
	uint64_t deep[NM_CG_DEPTH + 2];
	struct nm_cgpaths *p;

	for (int i = 1; i <= NM_CG_DEPTH + 1; i++) {
		snprintf(rel + strlen(rel), sizeof(rel) - strlen(rel), "/d");
		sh("mkdir %s/cg%s", t->root, rel);
		deep[i] = ino_of(t, rel);
	}
	p = open_tree(t, "/", SEC);
	/* the walk for it does not reach it */
	assert_null(nm_cgpaths_name(p, deep[NM_CG_DEPTH + 1], 0));
	assert_int_equal(nm_cgpaths_cache(p)->walks, 1);
	rel[2 * NM_CG_DEPTH] = '\0';
	assert_string_equal(nm_cgpaths_name(p, deep[NM_CG_DEPTH], 0), rel);
	nm_cgpaths_close(p);
}

static void test_open_from_mountinfo(void **state)
{
	struct tree *t = *state;
	char mi[512], line[1024];
	struct nm_cgpaths *p;
	FILE *f;

	snprintf(mi, sizeof(mi), "%s/mountinfo", t->root);
	/* a bind mount of a subtree, then the whole hierarchy: the whole one is walked */
	f = fopen(mi, "w");
	assert_non_null(f);
	fprintf(f, "31 23 0:28 / /sys/fs/cgroup rw,relatime - tmpfs tmpfs rw,mode=755\n");
	fprintf(f, "50 31 0:38 /system.slice /nowhere rw - cgroup2 cgroup2 rw\n");
	snprintf(line, sizeof(line), "41 31 0:38 / %s/cg rw,relatime - cgroup2 cgroup2 rw\n", t->root);
	fputs(line, f);
	fclose(f);
	p = nm_cgpaths_open(NULL, mi, SEC);
	assert_non_null(p);
	assert_string_equal(nm_cgpaths_name(p, ino_of(t, "/kubepods"), 0), "/kubepods");
	nm_cgpaths_close(p);

	/* no cgroup2 mount: no names, and nothing fails */
	f = fopen(mi, "w");
	assert_non_null(f);
	fprintf(f, "40 31 0:37 / /sys/fs/cgroup/systemd rw,relatime - cgroup cgroup rw,name=systemd\n");
	fclose(f);
	assert_null(nm_cgpaths_open(NULL, mi, SEC));
	assert_null(nm_cgpaths_name(NULL, 1, 0));
	assert_null(nm_cgpaths_cache(NULL));
	nm_cgpaths_close(NULL);
	/* a mount point that cannot be opened */
	assert_null(nm_cgpaths_open_at(NULL, "/nonexistent/cgroup", "/", SEC));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_miss_is_wanted_then_found),
		cmocka_unit_test(test_id_zero_is_never_wanted),
		cmocka_unit_test(test_walks_a_period_apart),
		cmocka_unit_test(test_bounded_least_recently_used_goes),
		cmocka_unit_test(test_second_walk_names_or_gives_up),
		cmocka_unit_test(test_wants_bounded),
		cmocka_unit_test(test_renamed_and_too_long),
		cmocka_unit_test(test_mountinfo_lines),
		cmocka_unit_test_setup_teardown(test_walk_names_the_tree, setup, teardown),
		cmocka_unit_test_setup_teardown(test_walk_below_a_subtree_root, setup, teardown),
		cmocka_unit_test_setup_teardown(test_walk_depth_bound, setup, teardown),
		cmocka_unit_test_setup_teardown(test_open_from_mountinfo, setup, teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
