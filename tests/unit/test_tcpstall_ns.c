// SPDX-License-Identifier: GPL-2.0
/*
 * Unit tests for src/tcpstall/ns.c on a made-up /proc and /run/netns
 * (as in test_scope.c), with ways in that open nothing: each netns in
 * scope gets one once and keeps it, one that goes is told gone and its
 * way closed, the caps count, and without setns only ours is swept. Then
 * the loader's questions: the names and --netns values, the records of a
 * netns that went, what lost privileges lose, which iterator each rung
 * runs and which walk each sweep takes, and the loop's clock.
 */
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

#include "tcpstall/hooks.h"
#include "tcpstall/ns.h"
#include "tcpstall/report.h"

static int setup(void **state)
{
	struct tree *t = tree_new("tsns");

	if (!t)
		return -1;
	/* ours (the host), a pod, a named lab netns */
	proc_add(t, 1, "systemd", 10);
	proc_add(t, 2, "kthreadd", 10);
	proc_add(t, 300, "pause", 20);
	proc_add(t, 400, "iperf3", 40);
	sh("ln -s 'net:[40]' %s/lab", t->run);
	*state = t;
	return 0;
}

/* The ways opened and closed, by inode; opens of fail_ino fail. */
static struct fake {
	int opens, closes, open_fds;
	unsigned long fail_ino, last_open;
	char last_path[128];
	unsigned long gone[8];
	int ngone;
} fk;

static int fake_open(struct ts_nsset *s, struct ts_ns *ns, const char *path, char *err, size_t len)
{
	(void)s;
	fk.opens++;
	fk.last_open = ns->ino;
	snprintf(fk.last_path, sizeof(fk.last_path), "%s", path ? path : "");
	if (ns->ino == fk.fail_ino) {
		snprintf(err, len, "refused");
		return -EPERM;
	}
	if (!ns->self) {
		ns->fd = 1000 + (int)ns->ino;
		fk.open_fds++;
	}
	return 0;
}

static void fake_close(struct ts_nsset *s, struct ts_ns *ns)
{
	(void)s;
	fk.closes++;
	if (ns->fd >= 0)
		fk.open_fds--;
}

static const struct ts_ns_ops fake_ops = { .open = fake_open, .close = fake_close };

/* A sync, and the namespaces it dropped, as the loop reads them (s->gone) */
static void sync_told(struct ts_nsset *s, const struct nm_scope *sc)
{
	ts_nsset_sync(s, sc);
	for (size_t i = 0; i < s->ngone; i++)
		fk.gone[fk.ngone++] = s->gone[i];
}

static void scope_of(struct nm_scope *sc, const struct tree *t, bool setns)
{
	struct nm_scope_cfg cfg = { .self_ino = 10, .read_procs = true, .setns = setns,
				    .proc = t->proc, .run = t->run, .no_devnames = true };

	assert_int_equal(nm_scope_init(sc, &cfg), 0);
}

/* Each test's start: the fakes reset (fail_ino none). */
static int fresh(void **state)
{
	(void)state;
	memset(&fk, 0, sizeof(fk));
	return 0;
}

/* A set of iterators' ways (diag: sockets) on the fakes, bounds max_ns, max_fds, synced once with sc. */
static void synced(struct ts_nsset *s, const struct nm_scope *sc, bool diag, bool setns, size_t max_ns,
		   size_t max_fds)
{
	assert_int_equal(ts_nsset_init(s, diag, setns, max_ns, max_fds, &fake_ops), 0);
	sync_told(s, sc);
}

/* Host-wide: a way into each other netns, opened once; ours needs none (iterators). */
static void test_sync_opens_once(void **state)
{
	struct tree *t = *state;
	struct ts_nsset s;
	struct nm_scope sc;

	scope_of(&sc, t, true);
	synced(&s, &sc, false, true, 0, 0);
	assert_int_equal(s.n, 3);
	assert_int_equal(s.listed, 3);
	assert_true(ts_nsset_find(&s, 10)->self);
	assert_int_equal(ts_nsset_find(&s, 10)->fd, -1);
	assert_int_equal(ts_nsset_find(&s, 20)->fd, 1020);
	assert_int_equal(ts_nsset_find(&s, 40)->fd, 1040);
	assert_int_equal(fk.open_fds, 2);
	assert_int_equal(ts_nsset_ways(&s), 3);
	/* the lab's by its /run/netns path */
	assert_null(ts_nsset_find(&s, 30));
	/* again: nothing new opened, nothing closed */
	fk.opens = 0;
	nm_scope_refresh(&sc);
	sync_told(&s, &sc);
	assert_int_equal(fk.opens, 0);
	assert_int_equal(fk.closes, 0);
	assert_int_equal(fk.ngone, 0);
	ts_nsset_free(&s);
	assert_int_equal(fk.open_fds, 0);
	nm_scope_free(&sc);
}

/* A netns that goes: told gone, its way closed; one that comes: opened. */
static void test_sync_gone_and_new(void **state)
{
	struct tree *t = *state;
	struct ts_nsset s;
	struct nm_scope sc;

	scope_of(&sc, t, true);
	synced(&s, &sc, false, true, 0, 0);
	sh("rm -rf %s/300", t->proc);
	proc_add(t, 500, "sleep", 50);
	nm_scope_refresh(&sc);
	sync_told(&s, &sc);
	assert_int_equal(fk.ngone, 1);
	assert_int_equal(fk.gone[0], 20);
	assert_null(ts_nsset_find(&s, 20));
	assert_int_equal(s.closed, 1);
	assert_int_equal(ts_nsset_find(&s, 50)->fd, 1050);
	assert_non_null(strstr(fk.last_path, "/proc/500/ns/net"));
	assert_int_equal(fk.open_fds, 2);
	ts_nsset_free(&s);
	nm_scope_free(&sc);
	proc_add(t, 300, "pause", 20);
	sh("rm -rf %s/500", t->proc);
}

/* The caps: ways beyond max_fds, namespaces beyond max_ns, counted; a failed open retried. */
static void test_sync_bounds(void **state)
{
	struct tree *t = *state;
	struct ts_nsset s;
	struct nm_scope sc;

	scope_of(&sc, t, true);
	synced(&s, &sc, false, true, 0, 1);
	assert_int_equal(fk.open_fds, 1);
	assert_int_equal(s.over, 1);
	assert_int_equal(ts_nsset_ways(&s), 2);
	ts_nsset_free(&s);
	synced(&s, &sc, false, true, 2, 0);
	assert_int_equal(s.n, 2);
	assert_int_equal(s.over, 1);
	ts_nsset_free(&s);
	/* a failed open: counted, and tried again at the next sync */
	memset(&fk, 0, sizeof(fk));
	fk.fail_ino = 40;
	synced(&s, &sc, false, true, 0, 0);
	assert_int_equal(s.failed, 1);
	assert_int_equal(ts_nsset_find(&s, 40)->fd, -1);
	fk.fail_ino = 0;
	sync_told(&s, &sc);
	assert_int_equal(s.failed, 0);
	assert_int_equal(ts_nsset_find(&s, 40)->fd, 1040);
	ts_nsset_free(&s);
	nm_scope_free(&sc);
}

/* Without CAP_SYS_ADMIN: no other netns entered, said; ours only. */
static void test_no_setns(void **state)
{
	struct tree *t = *state;
	struct ts_nsset s;
	struct nm_scope sc;

	scope_of(&sc, t, false);
	synced(&s, &sc, true, false, 0, 0);
	assert_int_equal(s.unentered, 2);
	assert_int_equal(fk.opens, 1);
	assert_int_equal(fk.last_open, 10);
	assert_string_equal(fk.last_path, "");
	ts_nsset_free(&s);
	nm_scope_free(&sc);
}

/* Two --netns: those only; one the host no longer has is gone, though the scope lists it. */
static void test_netns_set(void **state)
{
	struct tree *t = *state;
	unsigned long inos[] = { 20, 40 };
	char p20[128], p40[128];
	const char *paths[] = { p20, p40 };
	struct nm_scope_cfg cfg = { .n = 2, .inos = inos, .paths = paths, .self_ino = 10,
				    .read_procs = true, .setns = true, .proc = t->proc, .run = t->run,
				    .no_devnames = true };
	struct ts_nsset s;
	struct nm_scope sc;

	snprintf(p20, sizeof(p20), "%s/300/ns/net", t->proc);
	snprintf(p40, sizeof(p40), "%s/lab", t->run);
	assert_int_equal(nm_scope_init(&sc, &cfg), 0);
	synced(&s, &sc, false, true, 0, 0);
	assert_int_equal(s.n, 2);
	assert_null(ts_nsset_find(&s, 10));
	sh("rm -rf %s/300", t->proc);
	nm_scope_refresh(&sc);
	sync_told(&s, &sc);
	assert_int_equal(fk.ngone, 1);
	assert_int_equal(fk.gone[0], 20);
	assert_int_equal(fk.open_fds, 1);
	ts_nsset_free(&s);
	nm_scope_free(&sc);
	proc_add(t, 300, "pause", 20);
}


/* The names, and the --netns that enters each: a /run/netns name, else a pid, else none. */
static void test_where(void **state)
{
	struct tree *t = *state;
	char name[64], opt[64];
	struct nm_scope sc;

	scope_of(&sc, t, true);
	ts_ns_where(&sc, 40, name, sizeof(name), opt, sizeof(opt));
	assert_string_equal(name, "lab");
	assert_string_equal(opt, "lab");
	ts_ns_where(&sc, 20, name, sizeof(name), opt, sizeof(opt));
	assert_string_equal(opt, "300");
	assert_string_equal(ts_ns_name(&sc, 20, name, sizeof(name)), name);
	/* one the registry does not know: its inode, and no way to name it to --netns */
	ts_ns_where(&sc, 99, name, sizeof(name), opt, sizeof(opt));
	assert_string_equal(name, "99");
	assert_string_equal(opt, "");
	/* the name alone */
	ts_ns_where(&sc, 40, name, sizeof(name), NULL, 0);
	assert_string_equal(name, "lab");
	nm_scope_free(&sc);
}

static void add_sock(struct ts_report *r, uint32_t netns, uint16_t lport)
{
	struct ts_key k = { .netns = netns, .lport = lport };

	assert_non_null(nm_htab_upsert(r->socks, &k, NULL));
}

/* The loop's step once a report (tcpstall/main.c): the set follows the scope, the report forgets. */
static void follow(struct ts_nsset *s, struct nm_scope *sc, struct ts_report *r)
{
	nm_scope_refresh(sc);
	ts_nsset_sync(s, sc);
	ts_report_forget(r, s->gone, s->ngone, nm_scope_any_went(sc) ? ts_ns_went : NULL, sc);
}

/* A netns that goes: its way closed, its sockets dropped, the others' kept. */
static void test_follow(void **state)
{
	struct tree *t = *state;
	static struct ts_report r;
	struct ts_nsset s;
	struct nm_scope sc;

	r.socks = nm_htab_new(sizeof(struct ts_key), sizeof(struct ts_sock), 64);
	assert_non_null(r.socks);
	assert_int_equal(ts_report_init(&r), 0);
	scope_of(&sc, t, true);
	synced(&s, &sc, false, true, 0, 0);
	add_sock(&r, 10, 1);
	add_sock(&r, 20, 2);
	add_sock(&r, 20, 3);
	add_sock(&r, 40, 4);
	/* nothing went: nothing dropped */
	follow(&s, &sc, &r);
	assert_int_equal(s.ngone, 0);
	assert_int_equal(nm_htab_count(r.socks), 4);
	assert_false(ts_ns_went(20, &sc));
	sh("rm -rf %s/300", t->proc);
	follow(&s, &sc, &r);
	assert_int_equal(s.ngone, 1);
	assert_int_equal(s.gone[0], 20);
	assert_true(ts_ns_went(20, &sc));
	assert_null(ts_nsset_find(&s, 20));
	assert_int_equal(s.closed, 1);
	assert_int_equal(nm_htab_count(r.socks), 2);
	assert_null(nm_htab_get(r.socks, &(struct ts_key){ .netns = 20, .lport = 2 }));
	assert_non_null(nm_htab_get(r.socks, &(struct ts_key){ .netns = 40, .lport = 4 }));
	ts_nsset_free(&s);
	nm_scope_free(&sc);
	ts_report_free(&r);
	nm_htab_free(r.socks);
	proc_add(t, 300, "pause", 20);
}

/* What lost privileges lose: nothing, the names, the full sweeps, both. */
static void test_lost(void **state)
{
	static struct nm_scope sc;
	char buf[256];

	(void)state;
	sc.read_procs = sc.setns = true;
	assert_string_equal(ts_ns_lost(&sc, buf, sizeof(buf)), "");
	sc.read_procs = false;
	assert_string_equal(ts_ns_lost(&sc, buf, sizeof(buf)),
			    "names of other users' namespaces (no CAP_SYS_PTRACE: their inodes)");
	sc.setns = false;
	assert_string_equal(ts_ns_lost(&sc, buf, sizeof(buf)),
			    "names of other users' namespaces (no CAP_SYS_PTRACE: their inodes), "
			    "full sweeps of other namespaces (no CAP_SYS_ADMIN: their sockets only "
			    "once a send tags them)");
	sc.read_procs = true;
	assert_string_equal(ts_ns_lost(&sc, buf, sizeof(buf)),
			    "full sweeps of other namespaces (no CAP_SYS_ADMIN: their sockets only "
			    "once a send tags them)");
}

/* Hooks with nothing chosen, then hook i on a rung that can do can. */
static void no_rungs(struct nm_hook *h)
{
	for (int i = 0; i < TS_NR_HOOKS; i++)
		h[i] = (struct nm_hook){ .chosen = -1 };
}

static void rung(struct nm_hook *h, int i, unsigned int can)
{
	h[i].nrungs = 1;
	h[i].chosen = 0;
	h[i].rungs[0].can = can;
}

/* Made-up links and programs: compared, never used. */
#define LINK(n)	((struct bpf_link *)(uintptr_t)(0x1000 + (n)))
#define PROG(n)	((struct bpf_program *)(uintptr_t)(0x2000 + (n)))

static const struct ts_iters iters = {
	.full = { LINK(1), PROG(1) }, .tags = { LINK(2), PROG(2) },
	.fast = { LINK(3), PROG(3) }, .kick = { LINK(4), PROG(4) },
};

/* The fast sweep's iterator by its rung: the tagged map's, the fast iter/tcp, or none. */
static void test_iters_fast(void **state)
{
	struct nm_hook h[TS_NR_HOOKS];

	(void)state;
	no_rungs(h);
	assert_null(ts_iters_fast(&iters, h));
	rung(h, TS_HOOK_FAST, TS_CAN_TAG_MAP);
	assert_ptr_equal(ts_iters_fast(&iters, h), &iters.tags);
	rung(h, TS_HOOK_FAST, TS_CAN_TAG_SWEEP);
	assert_ptr_equal(ts_iters_fast(&iters, h), &iters.fast);
	rung(h, TS_HOOK_FAST, 0);
	assert_null(ts_iters_fast(&iters, h));
}

/* The first runs: the full sweep's where it is iter/tcp, the fast one's where it has a link, the kick's. */
static void test_iters_runs(void **state)
{
	struct ts_iter run[TS_ITERS_RUNS];
	struct ts_iters it = iters;
	struct bpf_program *failed = NULL;
	const char *stage = NULL;
	struct nm_hook h[TS_NR_HOOKS];

	(void)state;
	no_rungs(h);
	assert_int_equal(ts_iters_runs(&it, h, run), 0);
	/* none to run: checked, nothing failed */
	assert_int_equal(ts_iters_check(&it, h, &failed, &stage), 0);
	assert_string_equal(stage, "run");
	assert_null(failed);
	rung(h, TS_HOOK_SWEEP, TS_CAN_ITER);
	rung(h, TS_HOOK_FAST, TS_CAN_TAG_SWEEP);
	rung(h, TS_HOOK_KICK, TS_CAN_KICK);
	assert_int_equal(ts_iters_runs(&it, h, run), 3);
	assert_ptr_equal(run[0].link, LINK(1));
	assert_ptr_equal(run[1].prog, PROG(3));
	assert_ptr_equal(run[2].link, LINK(4));
	/* the tagged map's, blamed on its own program */
	rung(h, TS_HOOK_FAST, TS_CAN_TAG_MAP);
	assert_int_equal(ts_iters_runs(&it, h, run), 3);
	assert_ptr_equal(run[1].link, LINK(2));
	assert_ptr_equal(run[1].prog, PROG(2));
	/* sock_diag sweeps: no full iterator; a fast rung whose link went: not run */
	rung(h, TS_HOOK_SWEEP, TS_CAN_DIAG);
	it.tags.link = NULL;
	assert_int_equal(ts_iters_runs(&it, h, run), 1);
	assert_ptr_equal(run[0].prog, PROG(4));
	/* kicks from userspace (pidfd_getfd): no kick iterator to run */
	rung(h, TS_HOOK_KICK, TS_CAN_KICK_FD);
	assert_int_equal(ts_iters_runs(&it, h, run), 0);
}

/* Each sweep's walk. */
static void test_walk(void **state)
{
	(void)state;
	/* no fast sweep: every one is full */
	assert_int_equal(ts_walk_of(false, false, false, false), TS_WALK_FULL);
	assert_int_equal(ts_walk_of(false, false, false, true), TS_WALK_DIAG);
	assert_int_equal(ts_walk_of(true, true, true, false), TS_WALK_FULL);
	assert_int_equal(ts_walk_of(true, true, false, true), TS_WALK_DIAG);
	assert_int_equal(ts_walk_of(false, true, true, true), TS_WALK_TAGS);
	assert_int_equal(ts_walk_of(false, true, false, true), TS_WALK_FAST);
}

#define MS	1000000ULL
#define SEC	1000000000ULL

/* Beside fast sweeps on the tagged map: a full one first, then every TS_FULL_SWEEP_MS. */
static void test_sched_fast(void **state)
{
	struct ts_sched k;
	uint64_t t = 100 * SEC;

	(void)state;
	ts_sched_init(&k, 10, true, 1.0, 0);
	assert_int_equal(ts_sched_full_ms(&k), TS_FULL_SWEEP_MS);
	ts_sched_start(&k, t);
	assert_true(ts_sched_sweep_due(&k, t));
	assert_true(ts_sched_full(&k, t));
	assert_false(ts_sched_report_due(&k, t));
	assert_int_equal(k.report_at, t + SEC);
	/* a full sweep of 1 ms (CPU), its pass over 2 ms after it began */
	ts_sched_swept(&k, true, t, 1 * MS, t + 2 * MS);
	assert_int_equal(k.full_at, t + TS_FULL_SWEEP_MS * MS);
	/* beside tag walks a scheduled full sweep is not stretched: 1 ms is over the 5% of 10 */
	assert_int_equal(k.wait_ns, 10 * MS);
	assert_int_equal(k.sweep_at, t + 12 * MS);
	assert_false(ts_sched_sweep_due(&k, t + 11 * MS));
	assert_true(ts_sched_sweep_due(&k, t + 12 * MS));
	assert_false(ts_sched_full(&k, t + 12 * MS));
	assert_int_equal(ts_sched_wake(&k), t + 12 * MS);
	/* a fast one that cost 2 ms waits 38 ms: sweeps keep to 5% of a CPU */
	ts_sched_swept(&k, false, t + 12 * MS, 2 * MS, t + 15 * MS);
	assert_int_equal(k.wait_ns, 38 * MS);
	assert_int_equal(k.sweep_at, t + 53 * MS);
	assert_true(ts_sched_full(&k, t + SEC));
	/* a full sweep of 100 ms: the next full one 2 s on, not 1 */
	ts_sched_swept(&k, true, t + SEC, 100 * MS, t + SEC + 100 * MS);
	assert_int_equal(k.full_at, t + SEC + 1900 * MS);
}

/* Fast sweeps by iter/tcp: a full one is stretched too; without fast sweeps each is full. */
static void test_sched_budget(void **state)
{
	struct ts_sched k;

	(void)state;
	/* rung 2 beside a full sweep of many namespaces: its 500 ms budget the full one's */
	ts_sched_init(&k, 10, true, 1.0, 0);
	ts_sched_start(&k, SEC);
	ts_sched_swept(&k, true, SEC, 500 * MS, SEC + 600 * MS);
	assert_int_equal(k.wait_ns, 10 * MS);
	assert_int_equal(k.sweep_at, SEC + 610 * MS);
	assert_int_equal(k.full_at, SEC + 9500 * MS);
	/* a fast sweep pays its own */
	ts_sched_swept(&k, false, SEC + 610 * MS, 1 * MS, SEC + 611 * MS);
	assert_int_equal(k.wait_ns, 19 * MS);
	ts_sched_init(&k, 50, false, 1.0, 0);
	assert_int_equal(ts_sched_full_ms(&k), 50);
	ts_sched_start(&k, SEC);
	ts_sched_swept(&k, true, SEC, 1 * MS, SEC + 1 * MS);
	assert_int_equal(k.full_at, 0);
	assert_true(ts_sched_full(&k, SEC + 2 * MS));
	assert_int_equal(k.wait_ns, 50 * MS);
}

/*
 * Reports keep their grid whatever a sweep's wait: a sweep of many
 * namespaces whose budget wait passes the interval does not put the next
 * report off (the scope churn saw 43 reports in 50 s at -i 0.5).
 */
static void test_sched_reports(void **state)
{
	struct ts_sched k;
	uint64_t t = 10 * SEC;

	(void)state;
	ts_sched_init(&k, 100, true, 0.5, 3);
	ts_sched_start(&k, t);
	/* 200 ms of CPU: 3.8 s before the next sweep */
	ts_sched_swept(&k, false, t, 200 * MS, t + 210 * MS);
	assert_int_equal(k.sweep_at, t + 210 * MS + 3800 * MS);
	assert_int_equal(ts_sched_wake(&k), t + 500 * MS);
	assert_true(ts_sched_report_due(&k, t + 500 * MS));
	assert_true(ts_sched_reported(&k, t + 501 * MS));
	assert_int_equal(k.report_at, t + SEC);
	/* a report made late: the next on the grid, or at once when that passed */
	assert_true(ts_sched_reported(&k, t + 2600 * MS));
	assert_int_equal(k.report_at, t + 2600 * MS);
	assert_int_equal(ts_sched_wake(&k), t + 2600 * MS);
	/* --count 3: the third was the last */
	assert_false(ts_sched_reported(&k, t + 2700 * MS));
	/* --count 0: no end */
	ts_sched_init(&k, 100, true, 0.5, 0);
	ts_sched_start(&k, t);
	for (int i = 0; i < 100; i++)
		assert_true(ts_sched_reported(&k, t + i * SEC));
}

/*
 * Rung 2 of the fast sweep walks a netns while it has tagged sockets: a
 * mark of this epoch or of the TS_TAG_EPOCHS_KEPT before it; none, or an
 * older one, and the netns is skipped.
 */
static void test_tag_fresh(void **state)
{
	(void)state;
	assert_false(ts_tag_fresh(false, 0, 1));
	assert_false(ts_tag_fresh(false, 7, 7));
	assert_true(ts_tag_fresh(true, 7, 7));
	assert_true(ts_tag_fresh(true, 7, 7 + TS_TAG_EPOCHS_KEPT));
	assert_false(ts_tag_fresh(true, 7, 8 + TS_TAG_EPOCHS_KEPT));
	/* a mark of a later epoch than userspace's (set before the sweep read it) */
	assert_true(ts_tag_fresh(true, 9, 8));
}

static void test_tag_epoch(void **state)
{
	(void)state;
	/* never 0, which is no mark */
	assert_int_equal(ts_tag_epoch(0), 1);
	assert_int_equal(ts_tag_epoch(1), 1);
	assert_int_equal(ts_tag_epoch(TS_TAG_EPOCH_SWEEPS - 1), 1);
	assert_int_equal(ts_tag_epoch(TS_TAG_EPOCH_SWEEPS), 2);
	assert_int_equal(ts_tag_epoch(3 * TS_TAG_EPOCH_SWEEPS + 1), 4);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup(test_sync_opens_once, fresh),
		cmocka_unit_test_setup(test_sync_gone_and_new, fresh),
		cmocka_unit_test_setup(test_sync_bounds, fresh),
		cmocka_unit_test_setup(test_no_setns, fresh),
		cmocka_unit_test_setup(test_netns_set, fresh),
		cmocka_unit_test_setup(test_where, fresh),
		cmocka_unit_test_setup(test_follow, fresh),
		cmocka_unit_test(test_lost),
		cmocka_unit_test(test_iters_fast),
		cmocka_unit_test(test_iters_runs),
		cmocka_unit_test(test_walk),
		cmocka_unit_test(test_sched_fast),
		cmocka_unit_test(test_sched_budget),
		cmocka_unit_test(test_sched_reports),
		cmocka_unit_test(test_tag_fresh),
		cmocka_unit_test(test_tag_epoch),
	};

	return cmocka_run_group_tests(tests, setup, teardown);
}
