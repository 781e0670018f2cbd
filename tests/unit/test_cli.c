// SPDX-License-Identifier: GPL-2.0
/* Unit tests for src/lib/cli.c: table sizes, report deadlines, option lists. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <cmocka.h>

#include "lib/cli.h"

static void test_table_size(void **state)
{
	(void)state;
	assert_int_equal(nm_table_size(65536), 65536);
	assert_int_equal(nm_table_size(65537), 131072);
	assert_int_equal(nm_table_size(100), 128);
	assert_int_equal(nm_table_size(64), 64);
	assert_int_equal(nm_table_size(1), 2);	/* two ways need two slots */
	assert_int_equal(nm_table_size(16777215), 16777216);
}

static void test_next_deadline(void **state)
{
	const uint64_t s = 1000000000ULL;

	(void)state;
	assert_true(nm_next_deadline(0, s, 5 * s) == 6 * s);
	/* a sweep that took 300 ms does not push the grid */
	assert_true(nm_next_deadline(6 * s, s, 6 * s + 300000000ULL) == 7 * s);
	/* more than an interval late: at once, and the grid starts there */
	assert_true(nm_next_deadline(7 * s, s, 8 * s + 500000000ULL) == 8 * s + 500000000ULL);
	assert_true(nm_next_deadline(8 * s + 500000000ULL, s, 8 * s + 600000000ULL) == 9 * s + 500000000ULL);
}

/* #16.8: --fix=kick,,lock was taken as kick,lock: an empty item is refused. */
static void test_parse_names(void **state)
{
	const char *const names[] = { "kick", "lock", "rfs" };

	(void)state;
	assert_int_equal(nm_parse_names("kick", names, 3), 1);
	assert_int_equal(nm_parse_names("lock,kick", names, 3), 3);
	assert_int_equal(nm_parse_names("rfs,rfs", names, 3), 4);
	assert_int_equal(nm_parse_names("kick,,lock", names, 3), -1);
	assert_int_equal(nm_parse_names(",kick", names, 3), -1);
	assert_int_equal(nm_parse_names("kick,", names, 3), -1);
	assert_int_equal(nm_parse_names(",", names, 3), -1);
	assert_int_equal(nm_parse_names("", names, 3), -1);
	assert_int_equal(nm_parse_names("kic", names, 3), -1);
	assert_int_equal(nm_parse_names("kick,lockx", names, 3), -1);
	assert_int_equal(nm_parse_names("Kick", names, 3), -1);
}

/* One name of a choice (--sort), and the choices as its usage error lists them. */
static void test_parse_name(void **state)
{
	const char *const names[] = { "acks", "segs", "drops" };
	char buf[32];

	(void)state;
	assert_int_equal(nm_parse_name("acks", names, 3), 0);
	assert_int_equal(nm_parse_name("drops", names, 3), 2);
	assert_int_equal(nm_parse_name("", names, 3), -1);
	assert_int_equal(nm_parse_name("seg", names, 3), -1);
	assert_int_equal(nm_parse_name("segsx", names, 3), -1);
	assert_int_equal(nm_parse_name("segs,acks", names, 3), -1);
	assert_int_equal(nm_parse_name("Acks", names, 3), -1);
	assert_string_equal(nm_names_or(names, 3, buf, sizeof(buf)), "acks, segs or drops");
	assert_string_equal(nm_names_or(names, 2, buf, sizeof(buf)), "acks or segs");
	assert_string_equal(nm_names_or(names, 1, buf, sizeof(buf)), "acks");
	/* cut, never past the buffer */
	assert_string_equal(nm_names_or(names, 3, buf, 8), "acks, s");
}

/* #16.10: libbpf advises 'ulimit -l' for any EPERM, which misleads on 5.11+. */
static void test_libbpf_line_rewrite(void **state)
{
	const char *ul = "permission error while running as root; try raising 'ulimit -l'? current value: 8.0 MiB\n";
	char out[512];

	(void)state;
	assert_true(nm_libbpf_line_rewrite(ul, "6.18.44-fc-v973", out, sizeof(out)));
	assert_non_null(strstr(out, "not a memory limit: this kernel (6.18.44-fc-v973) charges BPF memory"));
	assert_non_null(strstr(out, "refused line"));
	assert_true(nm_libbpf_line_rewrite(ul, "5.11.0", out, sizeof(out)));
	/* before 5.11 RLIMIT_MEMLOCK is the limit: libbpf's advice stands */
	assert_false(nm_libbpf_line_rewrite(ul, "5.10.200", out, sizeof(out)));
	assert_false(nm_libbpf_line_rewrite(ul, "4.19.0", out, sizeof(out)));
	assert_false(nm_libbpf_line_rewrite(ul, "garbage", out, sizeof(out)));
	assert_false(nm_libbpf_line_rewrite("prog 'x': BPF program load failed: Operation not permitted\n",
					    "6.18.0", out, sizeof(out)));
}

/* The option values: whole string, in range, no wrap. */
static void test_parse_values(void **state)
{
	unsigned long u;
	double d;
	long l;

	(void)state;
	assert_int_equal(nm_parse_interval("0.5", &d), 0);
	assert_true(d == 0.5);
	assert_int_equal(nm_parse_interval("0.001", &d), -1);
	assert_int_equal(nm_parse_interval("86401", &d), -1);
	assert_int_equal(nm_parse_interval("nan", &d), -1);
	assert_int_equal(nm_parse_interval("inf", &d), -1);
	assert_int_equal(nm_parse_interval("1s", &d), -1);
	assert_int_equal(nm_parse_interval("", &d), -1);
	assert_int_equal(nm_parse_count("3", &l), 0);
	assert_int_equal(l, 3);
	assert_int_equal(nm_parse_count("0", &l), -1);
	assert_int_equal(nm_parse_count("99999999999999999999", &l), -1);
	assert_int_equal(nm_parse_long("64", 64, 100, &l), 0);
	assert_int_equal(nm_parse_long("101", 64, 100, &l), -1);
	assert_int_equal(nm_parse_long("", 0, 100, &l), -1);
	/* xpsflap --top goes into an int: 2^32 + 1 must not pass as 1 */
	assert_int_equal(nm_parse_long("4294967297", 1, 2147483647, &l), -1);
	assert_int_equal(nm_parse_ulong("65535", 1, 65535, &u), 0);
	assert_int_equal(u, 65535);
	assert_int_equal(nm_parse_ulong("-1", 0, (unsigned long)-1, &u), -1);
	assert_int_equal(nm_parse_ulong("", 0, 10, &u), -1);
	assert_int_equal(nm_parse_ulong("0", 1, 10, &u), -1);
	assert_int_equal(nm_parse_ulong("7x", 1, 10, &u), -1);
}

/* --netns: a name, a path or a PID; bad ones named with the reason. */
static void test_parse_netns(void **state)
{
	const char *why = NULL;
	char buf[32], big[300];

	(void)state;
	assert_string_equal(nm_parse_netns("lab", buf, sizeof(buf), &why), "lab");
	assert_string_equal(nm_parse_netns("/run/netns/lab", buf, sizeof(buf), &why), "/run/netns/lab");
	assert_ptr_equal(nm_parse_netns("1234", buf, sizeof(buf), &why), buf);
	assert_string_equal(buf, "/proc/1234/ns/net");
	assert_null(nm_parse_netns("", buf, sizeof(buf), &why));
	assert_string_equal(why, "empty");
	assert_null(nm_parse_netns("0", buf, sizeof(buf), &why));
	assert_string_equal(why, "not a PID (1 to 4194304)");
	assert_null(nm_parse_netns("4194305", buf, sizeof(buf), &why));
	assert_null(nm_parse_netns("99999999999999999999", buf, sizeof(buf), &why));
	assert_null(nm_parse_netns("..", buf, sizeof(buf), &why));
	assert_string_equal(why, "not a netns name");
	assert_null(nm_parse_netns(".", buf, sizeof(buf), &why));
	/* a name is a file name under /run/netns */
	memset(big, 'a', 255);
	big[255] = 0;
	assert_null(nm_parse_netns(big, buf, sizeof(buf), &why));
	assert_string_equal(why, "too long");
	big[254] = 0;
	assert_string_equal(nm_parse_netns(big, buf, sizeof(buf), &why), big);
	/* a pid with a sign or a name with digits in it is a name */
	assert_string_equal(nm_parse_netns("-1", buf, sizeof(buf), &why), "-1");
	assert_string_equal(nm_parse_netns("pod1", buf, sizeof(buf), &why), "pod1");
}

/* Two --netns: only for a tool with a scope, and never with --dev. */
static void test_netns_usage(void **state)
{
	struct nm_opts o = { .tool = "qdiscstuck", .nnetns = 1 };
	char buf[160];

	(void)state;
	assert_null(nm_netns_usage(&o, buf, sizeof(buf)));
	o.ndevs = 1;
	assert_null(nm_netns_usage(&o, buf, sizeof(buf)));
	o.ndevs = 0;
	o.nnetns = 2;
	assert_string_equal(nm_netns_usage(&o, buf, sizeof(buf)),
			    "more than one --netns: qdiscstuck watches one netns (yet)");
	o.tool = "xpsflap";
	o.scope = true;
	assert_null(nm_netns_usage(&o, buf, sizeof(buf)));
	o.ndevs = 1;
	assert_string_equal(nm_netns_usage(&o, buf, sizeof(buf)),
			    "--dev needs exactly one --netns: a device is named in the netns xpsflap runs in");
	/* none: the scope is every netns, --dev the tool's own */
	o.nnetns = 0;
	assert_null(nm_netns_usage(&o, buf, sizeof(buf)));
}

/*
 * #37: options that cannot both be were taken silently (qdiscstuck
 * --cleanup --fix=lock undid, and forgot --fix). The first such pair is
 * named, with why; what goes together passes.
 */
static void test_opts_conflict(void **state)
{
	struct nm_opts o = { .tool = "qdiscstuck" };
	char buf[160];

	(void)state;
	/* a run, or one job alone, or --list-hooks with the remedy whose hooks it lists */
	assert_null(nm_opts_conflict(&o, false, "--fix", buf, sizeof(buf)));
	o.count = 3;
	assert_null(nm_opts_conflict(&o, false, NULL, buf, sizeof(buf)));
	o = (struct nm_opts){ .cleanup = true, .print_caps = true, .json = true };
	assert_null(nm_opts_conflict(&o, false, NULL, buf, sizeof(buf)));
	o = (struct nm_opts){ .list_hooks = true };
	assert_null(nm_opts_conflict(&o, false, "--fix", buf, sizeof(buf)));

	o = (struct nm_opts){ .cleanup = true };
	assert_string_equal(nm_opts_conflict(&o, false, "--fix", buf, sizeof(buf)),
			    "--cleanup and --fix: --cleanup undoes what a killed instance left, "
			    "then exits: it runs no remedy");
	assert_string_equal(nm_opts_conflict(&o, true, "--pin", buf, sizeof(buf)),
			    "--cleanup and --list-fixes: each does its one job and exits; give one "
			    "of them");
	o.list_hooks = true;
	assert_string_equal(nm_opts_conflict(&o, false, NULL, buf, sizeof(buf)),
			    "--cleanup and --list-hooks: each does its one job and exits; give one "
			    "of them");
	o = (struct nm_opts){ .list_hooks = true, .count = 2 };
	assert_string_equal(nm_opts_conflict(&o, false, NULL, buf, sizeof(buf)),
			    "--list-hooks and -c: --list-hooks probes the hooks, then exits: no "
			    "report to count");
	o = (struct nm_opts){ .interval_given = true };
	assert_string_equal(nm_opts_conflict(&o, true, "--lock", buf, sizeof(buf)),
			    "--list-fixes and --lock: --list-fixes probes the remedies, then exits: "
			    "it runs no remedy");
	assert_non_null(strstr(nm_opts_conflict(&o, true, NULL, buf, sizeof(buf)),
			       "--list-fixes and -i: "));
	o = (struct nm_opts){ .cleanup = true, .prom_file = "/x.prom" };
	assert_non_null(strstr(nm_opts_conflict(&o, false, NULL, buf, sizeof(buf)),
			       "--cleanup and --prom-file: "));
	o = (struct nm_opts){ .cleanup = true, .listen_on = true };
	assert_non_null(strstr(nm_opts_conflict(&o, false, NULL, buf, sizeof(buf)),
			       "--cleanup and --listen: "));
}

/* #37: a port is a number or a TCP service's name, as ss and tcpdump take it. */
static void test_parse_port(void **state)
{
	(void)state;
	assert_int_equal(nm_parse_port("5201"), 5201);
	assert_int_equal(nm_parse_port("65535"), 65535);
	assert_int_equal(nm_parse_port("08080"), 8080);
	assert_int_equal(nm_parse_port("http"), 80);
	assert_int_equal(nm_parse_port("ssh"), 22);
	/* digits are never a name: out of range is refused, not looked up */
	assert_int_equal(nm_parse_port("0"), 0);
	assert_int_equal(nm_parse_port("65536"), 0);
	assert_int_equal(nm_parse_port("000009435"), 0);
	assert_int_equal(nm_parse_port(""), 0);
	assert_int_equal(nm_parse_port("-1"), 0);
	assert_int_equal(nm_parse_port("+80"), 0);
	assert_int_equal(nm_parse_port("nm-no-such-service"), 0);
}

/* Below the minimum, one line naming the kernel and what it lacks; from 5.10 on, nothing. */
static void test_kernel_too_old(void **state)
{
	char why[256];

	(void)state;
	assert_true(nm_kernel_too_old("5.4.0-150-generic", why, sizeof(why)));
	assert_string_equal(why, "kernel 5.4.0-150-generic is older than 5.10, the oldest netmedic "
				 "runs on: it lacks tp_btf programs (5.5), the BPF ring buffer (5.8), "
				 "BPF iterators (5.8)");
	assert_true(nm_kernel_too_old("5.7.19", why, sizeof(why)));
	assert_non_null(strstr(why, ": it lacks the BPF ring buffer (5.8), BPF iterators (5.8)"));
	assert_true(nm_kernel_too_old("5.9.16", why, sizeof(why)));
	assert_non_null(strstr(why, "5.9.16 is older than 5.10, the oldest netmedic runs on: its "
				    "programs are not verified there"));
	assert_true(nm_kernel_too_old("4.19.0-27-amd64", why, sizeof(why)));
	assert_false(nm_kernel_too_old("5.10.0-32-amd64", why, sizeof(why)));
	assert_false(nm_kernel_too_old("6.1.0-41-arm64", why, sizeof(why)));
	assert_false(nm_kernel_too_old("7.2.13+deb14-amd64", why, sizeof(why)));
	/* a release it cannot read is not refused: the rungs say what loads */
	assert_false(nm_kernel_too_old("unknown", why, sizeof(why)));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_table_size),
		cmocka_unit_test(test_next_deadline),
		cmocka_unit_test(test_parse_names),
		cmocka_unit_test(test_parse_name),
		cmocka_unit_test(test_libbpf_line_rewrite),
		cmocka_unit_test(test_parse_values),
		cmocka_unit_test(test_parse_netns),
		cmocka_unit_test(test_netns_usage),
		cmocka_unit_test(test_kernel_too_old),
		cmocka_unit_test(test_opts_conflict),
		cmocka_unit_test(test_parse_port),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
