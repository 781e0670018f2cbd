// SPDX-License-Identifier: GPL-2.0
/* Unit tests for src/lib/caps.c: what a run needs, what it keeps. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <sys/stat.h>
#include <cmocka.h>
#include <linux/capability.h>

#include "lib/caps.h"

#ifndef CAP_PERFMON
#define CAP_PERFMON	38
#endif
#ifndef CAP_BPF
#define CAP_BPF		39
#endif

#define C(x) NM_CAP(CAP_##x)

static uint64_t needed_mask(const struct nm_caps_run *r)
{
	struct nm_cap_need need[NM_CAPS_MAX_NEEDS];
	int n = nm_caps_needed(r, need, NM_CAPS_MAX_NEEDS);
	uint64_t m = 0;

	for (int i = 0; i < n; i++)
		m |= NM_CAP(need[i].cap);
	return m;
}

/* The first need the set lacks, as the error line names it. */
static const char *missing(const struct nm_caps_run *r, uint64_t eff, int *cap)
{
	static struct nm_cap_need need[NM_CAPS_MAX_NEEDS];
	int n = nm_caps_needed(r, need, NM_CAPS_MAX_NEEDS);
	int i = nm_caps_missing(need, n, eff);

	*cap = i < 0 ? -1 : need[i].cap;
	return i < 0 ? NULL : need[i].what;
}

static void test_observe(void **state)
{
	struct nm_caps_run r = { .load = true, .euid = 65534 };
	int cap;

	(void)state;
	assert_true(needed_mask(&r) == (C(BPF) | C(PERFMON)));
	assert_null(missing(&r, C(BPF) | C(PERFMON), &cap));
	assert_string_equal(missing(&r, C(BPF), &cap), "loading BPF programs");
	assert_int_equal(cap, CAP_PERFMON);
	missing(&r, C(PERFMON) | C(NET_ADMIN), &cap);
	assert_int_equal(cap, CAP_BPF);
	/* the kernel's bpf_capable()/perfmon_capable(): CAP_SYS_ADMIN does */
	assert_null(missing(&r, C(SYS_ADMIN), &cap));
	/* before 5.8 there is no CAP_BPF to name */
	r.no_cap_bpf = true;
	assert_true(needed_mask(&r) == C(SYS_ADMIN));
	missing(&r, C(NET_ADMIN), &cap);
	assert_int_equal(cap, CAP_SYS_ADMIN);
	/* nothing is kept */
	r.no_cap_bpf = false;
	assert_true(nm_caps_keep(&r, NULL) == 0);
	/* a weak kfunc vmlinux lacks: libbpf walks module BTF, which takes CAP_SYS_ADMIN */
	r.module_btf = true;
	assert_true(needed_mask(&r) == (C(BPF) | C(PERFMON) | C(SYS_ADMIN)));
	assert_string_equal(missing(&r, C(BPF) | C(PERFMON), &cap), "loading BPF programs on this kernel");
	assert_int_equal(cap, CAP_SYS_ADMIN);
	assert_null(missing(&r, C(BPF) | C(PERFMON) | C(SYS_ADMIN), &cap));
	assert_true(nm_caps_keep(&r, NULL) == 0);
}

static void test_netns(void **state)
{
	struct nm_caps_run r = { .load = true, .netns = true, .euid = 65534 };
	const char *why = "x";
	int cap;

	(void)state;
	assert_string_equal(missing(&r, C(BPF) | C(PERFMON), &cap), "--netns");
	assert_int_equal(cap, CAP_SYS_ADMIN);
	assert_null(missing(&r, C(BPF) | C(PERFMON) | C(SYS_ADMIN), &cap));
	r.netns_proc = true;
	missing(&r, C(BPF) | C(PERFMON) | C(SYS_ADMIN), &cap);
	assert_int_equal(cap, CAP_SYS_PTRACE);
	/* entered once, before attach: nothing to keep for it */
	assert_true(nm_caps_keep(&r, &why) == 0);
	assert_null(why);
}

/*
 * A scope of other namespaces (host-wide): their names need CAP_SYS_PTRACE
 * and CAP_SYS_ADMIN, listed but never missing; what is held is kept.
 */
static void test_scope_names(void **state)
{
	struct nm_caps_run r = { .load = true, .names = true, .euid = 65534 };
	struct nm_cap_need need[NM_CAPS_MAX_NEEDS];
	const char *why = "x";
	int n, cap;

	(void)state;
	assert_true(needed_mask(&r) == (C(BPF) | C(PERFMON) | C(SYS_PTRACE) | C(SYS_ADMIN)));
	n = nm_caps_needed(&r, need, NM_CAPS_MAX_NEEDS);
	assert_int_equal(n, 4);
	assert_false(need[0].optional);
	assert_true(need[2].optional && need[3].optional);
	assert_string_equal(need[2].what, "netns names");
	assert_string_equal(need[3].what, "device names");
	/* without them the run goes on */
	assert_null(missing(&r, C(BPF) | C(PERFMON), &cap));
	assert_string_equal(missing(&r, C(BPF), &cap), "loading BPF programs");
	/* none held: nothing kept */
	assert_true(nm_caps_keep(&r, &why) == 0);
	assert_null(why);
	r.names_ptrace = r.names_setns = true;
	assert_true(nm_caps_keep(&r, &why) == (C(SYS_PTRACE) | C(SYS_ADMIN)));
	assert_string_equal(why, "netns names");
	/* a worker thread names nothing: it keeps none of them */
	assert_true(nm_caps_keep_worker(&r) == 0);
	r.names_setns = false;
	r.prom_dac = true;
	assert_true(nm_caps_keep(&r, &why) == (C(SYS_PTRACE) | C(DAC_OVERRIDE)));
	assert_string_equal(why, "--prom-file, netns names");
	assert_true(nm_caps_keep_worker(&r) == 0);
	/* two --netns: setns is --netns's own need, not an optional one */
	r.netns = true;
	n = nm_caps_needed(&r, need, NM_CAPS_MAX_NEEDS);
	assert_int_equal(need[2].cap, CAP_SYS_ADMIN);
	assert_false(need[2].optional);
	assert_int_equal(need[3].cap, CAP_SYS_PTRACE);
	assert_true(need[3].optional);
	assert_int_equal(n, 5);	/* and CAP_DAC_OVERRIDE for --prom-file */
	/* the names unasked for: the flags alone keep nothing */
	r = (struct nm_caps_run){ .load = true, .names_ptrace = true, .names_setns = true };
	assert_true(nm_caps_keep(&r, NULL) == 0);
}

static void test_remedies(void **state)
{
	struct nm_caps_run pin = { .load = true, .remedy = true, .remedy_sysfs = true,
				   .remedy_exec = true, .net_prog = true, .euid = 65534,
				   .remedy_opt = "--pin" };
	uint64_t base = C(BPF) | C(PERFMON), keep;
	const char *why;
	int cap;

	(void)state;
	assert_string_equal(missing(&pin, base, &cap), "--pin");
	assert_int_equal(cap, CAP_NET_ADMIN);
	missing(&pin, base | C(NET_ADMIN), &cap);
	assert_int_equal(cap, CAP_DAC_OVERRIDE);
	keep = nm_caps_keep(&pin, &why);
	assert_true(keep == (C(NET_ADMIN) | C(DAC_OVERRIDE)));
	assert_string_equal(why, "remedies");
	/* tc, run for the undo, gets CAP_NET_ADMIN only */
	assert_true(nm_caps_ambient(&pin, keep) == C(NET_ADMIN));
	/* root owns the sysfs files: no CAP_DAC_OVERRIDE */
	pin.euid = 0;
	assert_true(needed_mask(&pin) == (base | C(NET_ADMIN)));
	assert_true(nm_caps_keep(&pin, NULL) == C(NET_ADMIN));

	/* tcpstall --fix=rfs goes back to the initial netns to restore */
	struct nm_caps_run rfs = { .load = true, .remedy = true, .remedy_sysfs = true,
				   .remedy_setns = true, .euid = 0, .remedy_opt = "--fix" };
	assert_true(nm_caps_keep(&rfs, NULL) == (C(NET_ADMIN) | C(SYS_ADMIN)));
	assert_true(nm_caps_ambient(&rfs, nm_caps_keep(&rfs, NULL)) == 0);

	/* a journal directory of root's: written and removed at exit with CAP_DAC_OVERRIDE */
	struct nm_caps_run defer = { .load = true, .remedy = true, .journal = true, .journal_dac = true,
				     .euid = 65534, .remedy_opt = "--fix" };
	assert_string_equal(missing(&defer, base | C(NET_ADMIN), &cap), "--fix");
	assert_int_equal(cap, CAP_DAC_OVERRIDE);
	assert_true(nm_caps_keep(&defer, NULL) == (C(NET_ADMIN) | C(DAC_OVERRIDE)));
	defer.journal_dac = false;
	assert_true(nm_caps_keep(&defer, NULL) == C(NET_ADMIN));
	/* tcpstall --fix=kick journals its sockopt records, and changes nothing else */
	struct nm_caps_run kickj = { .load = true, .journal = true, .journal_dac = true, .euid = 65534 };
	assert_true(nm_caps_keep(&kickj, &why) == C(DAC_OVERRIDE));
	assert_string_equal(why, "remedies");
	/* its kicker journals too, and map reads before 5.19 need CAP_BPF; names stay behind */
	kickj.names = kickj.names_ptrace = kickj.names_setns = kickj.prom_dac = true;
	kickj.bpf_cmds_need_cap = true;
	assert_true(nm_caps_keep(&kickj, NULL) ==
		    (C(DAC_OVERRIDE) | C(SYS_PTRACE) | C(SYS_ADMIN) | C(BPF)));
	assert_true(nm_caps_keep_worker(&kickj) == (C(DAC_OVERRIDE) | C(BPF)));

	/* qdiscstuck --fix=kick: frames only */
	struct nm_caps_run kick = { .load = true, .raw = true, .euid = 0 };
	missing(&kick, base, &cap);
	assert_int_equal(cap, CAP_NET_RAW);
	assert_true(nm_caps_keep(&kick, &why) == C(NET_RAW));
	assert_string_equal(why, "remedies");
}

static void test_stats_prom(void **state)
{
	struct nm_caps_run r = { .load = true, .bpf_stats = true, .prom_dac = true, .euid = 0 };
	uint64_t base = C(BPF) | C(PERFMON);
	const char *why;
	int cap;

	(void)state;
	assert_string_equal(missing(&r, base, &cap), "--bpf-stats");
	assert_int_equal(cap, CAP_SYS_ADMIN);
	assert_string_equal(missing(&r, base | C(SYS_ADMIN), &cap), "--prom-file");
	assert_int_equal(cap, CAP_DAC_OVERRIDE);
	/* the stats fd is held: CAP_SYS_ADMIN goes; the textfile is rewritten each interval */
	assert_true(nm_caps_keep(&r, &why) == C(DAC_OVERRIDE));
	assert_string_equal(why, "--prom-file");
}

static void test_cleanup(void **state)
{
	struct nm_caps_run r = { .cleanup = true, .load = true, .euid = 65534 };
	int cap;

	(void)state;
	assert_true(needed_mask(&r) == (C(NET_ADMIN) | C(SYS_ADMIN)));
	r.cleanup_bpf = true;
	assert_true(needed_mask(&r) == (C(NET_ADMIN) | C(SYS_ADMIN) | C(BPF) | C(PERFMON)));
	assert_string_equal(missing(&r, C(SYS_ADMIN), &cap), "--cleanup");
	assert_int_equal(cap, CAP_NET_ADMIN);
	/* restoring xps_cpus as another user than root; root's journal directory */
	r.cleanup_bpf = false;
	r.cleanup_sysfs = true;
	assert_true(needed_mask(&r) == (C(NET_ADMIN) | C(SYS_ADMIN) | C(DAC_OVERRIDE)));
	missing(&r, C(NET_ADMIN) | C(SYS_ADMIN), &cap);
	assert_int_equal(cap, CAP_DAC_OVERRIDE);
	r.euid = 0;
	assert_true(needed_mask(&r) == (C(NET_ADMIN) | C(SYS_ADMIN)));
	r.journal_dac = true;
	assert_true(needed_mask(&r) == (C(NET_ADMIN) | C(SYS_ADMIN) | C(DAC_OVERRIDE)));
}

/*
 * A socket taken from its process (tcpstall --fix=kick before 5.15):
 * listed, optional, as the run may need it; kept, main thread and worker,
 * only once the load chose that way.
 */
static void test_getfd(void **state)
{
	struct nm_caps_run r = { .load = true, .journal = true, .getfd = true, .remedy_opt = "--fix" };
	struct nm_cap_need need[NM_CAPS_MAX_NEEDS];
	int n = nm_caps_needed(&r, need, NM_CAPS_MAX_NEEDS), getfd = 0;
	const char *why;

	(void)state;
	for (int i = 0; i < n; i++)
		if (need[i].cap == CAP_SYS_PTRACE || need[i].cap == CAP_DAC_READ_SEARCH) {
			assert_true(need[i].optional);
			assert_string_equal(need[i].what, "--fix");
			getfd++;
		}
	assert_int_equal(getfd, 2);
	/* optional: a run without them goes on */
	assert_null(missing(&r, C(BPF) | C(PERFMON), &n));
	assert_true(nm_caps_keep(&r, NULL) == 0);
	r.getfd_keep = true;
	assert_true(nm_caps_keep(&r, &why) == (C(SYS_PTRACE) | C(DAC_READ_SEARCH)));
	assert_string_equal(why, "remedies");
	/* the kicker takes sockets too; it names no namespace */
	r.names = r.names_ptrace = true;
	assert_true(nm_caps_keep_worker(&r) == (C(SYS_PTRACE) | C(DAC_READ_SEARCH)));
	/* --cleanup may undo so */
	r = (struct nm_caps_run){ .cleanup = true, .cleanup_getfd = true, .euid = 0 };
	assert_true(needed_mask(&r) == (C(NET_ADMIN) | C(SYS_ADMIN) | C(SYS_PTRACE) | C(DAC_READ_SEARCH)));
	assert_null(missing(&r, C(NET_ADMIN) | C(SYS_ADMIN), &n));
}

static void test_needed_bounded(void **state)
{
	struct nm_caps_run r = { .load = true, .netns = true, .netns_proc = true, .remedy = true,
				 .remedy_sysfs = true, .remedy_setns = true, .raw = true,
				 .net_prog = true, .bpf_stats = true, .prom_dac = true, .euid = 1 };
	struct nm_cap_need need[3];

	(void)state;
	assert_int_equal(nm_caps_needed(&r, need, 3), 3);
	assert_true(nm_caps_needed(&r, need, 0) == 0);
}

static void test_dir_writable(void **state)
{
	(void)state;
	assert_true(nm_caps_dir_writable(0, S_IFDIR | 0755, 0, false));
	assert_false(nm_caps_dir_writable(0, S_IFDIR | 0755, 65534, false));
	assert_false(nm_caps_dir_writable(0, S_IFDIR | 0775, 65534, false));
	assert_true(nm_caps_dir_writable(0, S_IFDIR | 0775, 65534, true));
	assert_true(nm_caps_dir_writable(0, S_IFDIR | 01777, 65534, false));
	/* the owner's bits decide for the owner, even when others may write */
	assert_false(nm_caps_dir_writable(65534, S_IFDIR | 0577, 65534, false));
	assert_false(nm_caps_dir_writable(65534, S_IFDIR | 0600, 65534, false));
}

/* Before 5.19 a map read on a held fd asks for CAP_BPF too (unprivileged_bpf_disabled). */
static void test_old_kernel(void **state)
{
	struct nm_caps_run r = { .load = true, .bpf_cmds_need_cap = true, .euid = 0 };
	const char *why;

	(void)state;
	assert_true(nm_caps_keep(&r, &why) == C(BPF));
	assert_string_equal(why, "map reads: a kernel before 5.19");
	r.no_cap_bpf = true;
	assert_true(nm_caps_keep(&r, NULL) == C(SYS_ADMIN));
	r.remedy = true;
	assert_true(nm_caps_keep(&r, &why) == (C(SYS_ADMIN) | C(NET_ADMIN)));
	/* each reason is said: the remedies, and the map reads of a kernel before 5.19 */
	assert_string_equal(why, "remedies, map reads: a kernel before 5.19");
	assert_true(nm_caps_release_before("5.15.0-91-generic", 5, 19));
	assert_true(nm_caps_release_before("4.19.0", 5, 19));
	assert_false(nm_caps_release_before("5.19.0", 5, 19));
	assert_false(nm_caps_release_before("6.1.0-57-amd64", 5, 19));
	assert_false(nm_caps_release_before("6.18.44-fc-v973", 5, 19));
	assert_false(nm_caps_release_before("garbage", 5, 19));
	assert_false(nm_caps_release_before(NULL, 5, 19));
}

/* Before 5.11 an EPERM with a finite RLIMIT_MEMLOCK names the limit, not a policy. */
static void test_memlock_hint(void **state)
{
	char b[320];

	(void)state;
	assert_true(nm_caps_memlock_hint("5.10.0-46-amd64", 8 << 20, b, sizeof(b)));
	assert_non_null(strstr(b, "kernel 5.10.0-46-amd64 charges BPF maps and programs to RLIMIT_MEMLOCK"));
	assert_non_null(strstr(b, "8192 KiB"));
	assert_non_null(strstr(b, "ulimit -l unlimited"));
	/* raised: nothing to say */
	assert_false(nm_caps_memlock_hint("5.10.0-46-amd64", RLIM_INFINITY, b, sizeof(b)));
	/* 5.11+ charges the memory cgroup: the limit is not the cause */
	assert_false(nm_caps_memlock_hint("5.11.0", 64 << 10, b, sizeof(b)));
	assert_false(nm_caps_memlock_hint("6.18.44-fc-v1294", 64 << 10, b, sizeof(b)));
	assert_false(nm_caps_memlock_hint("garbage", 64 << 10, b, sizeof(b)));
}

static void test_names(void **state)
{
	char b[64];

	(void)state;
	assert_string_equal(nm_cap_name(CAP_NET_ADMIN, b, sizeof(b)), "CAP_NET_ADMIN");
	assert_string_equal(nm_cap_name(CAP_BPF, b, sizeof(b)), "CAP_BPF");
	assert_string_equal(nm_cap_name(63, b, sizeof(b)), "CAP_63");
	assert_string_equal(nm_caps_str(0, b, sizeof(b)), "none");
	assert_string_equal(nm_caps_str(C(NET_ADMIN) | C(SYS_ADMIN), b, sizeof(b)),
			    "cap_net_admin,cap_sys_admin");
	assert_string_equal(nm_caps_str(C(NET_RAW) | NM_CAP(60), b, sizeof(b)), "cap_net_raw,cap_60");
	/* cut short, never overrun */
	nm_caps_str(C(NET_ADMIN) | C(SYS_ADMIN), b, 8);
	assert_int_equal(strlen(b), 7);
}

/*
 * The agent's run asks for what any detector's asks for: every flag of
 * one side is in the merge (a flag added to the struct and not to the
 * merge fails here), none is made up, the first remedy named stays.
 */
static void test_merge(void **state)
{
	const size_t from = offsetof(struct nm_caps_run, load);
	const size_t to = offsetof(struct nm_caps_run, bpf_cmds_need_cap) + sizeof(bool);
	struct nm_caps_run a = {}, b = {}, m = {};

	(void)state;
	memset((char *)&b + from, 1, to - from);
	b.remedy_opt = "--pin";
	nm_caps_run_merge(&m, &b);
	for (size_t i = from; i < to; i++)
		assert_int_equal(((char *)&m)[i], ((char *)&b)[i]);
	assert_string_equal(m.remedy_opt, "--pin");
	/* nothing asked: nothing merged */
	memset(&m, 0, sizeof(m));
	nm_caps_run_merge(&m, &a);
	for (size_t i = from; i < to; i++)
		assert_int_equal(((char *)&m)[i], 0);
	/* one flag each side: both; the remedy named first stays */
	a.names = true;
	a.remedy_opt = "--fix";
	b = (struct nm_caps_run){ .raw = true, .remedy_opt = "--kick" };
	nm_caps_run_merge(&m, &a);
	nm_caps_run_merge(&m, &b);
	assert_true(m.names && m.raw && !m.remedy);
	assert_string_equal(m.remedy_opt, "--fix");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_observe),
		cmocka_unit_test(test_merge),
		cmocka_unit_test(test_netns),
		cmocka_unit_test(test_remedies),
		cmocka_unit_test(test_stats_prom),
		cmocka_unit_test(test_cleanup),
		cmocka_unit_test(test_getfd),
		cmocka_unit_test(test_needed_bounded),
		cmocka_unit_test(test_dir_writable),
		cmocka_unit_test(test_old_kernel),
		cmocka_unit_test(test_memlock_hint),
		cmocka_unit_test(test_names),
		cmocka_unit_test(test_scope_names),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
