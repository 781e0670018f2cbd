// SPDX-License-Identifier: GPL-2.0
/*
 * Unit tests for src/lib/fixes.c: the generic probes of --list-fixes
 * (files, commands, BTF types) and its lines. Temp files stand in for
 * sysctls; a missing BTF file stands in for a kernel without one.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <cmocka.h>

#include "lib/fixes.h"

static void test_probe_file(void **state)
{
	char dir[] = "/tmp/nm-fixes-test.XXXXXX", file[64], why[256];
	struct nm_fix f = { .name = "autocork", .probe = nm_fix_probe_file, .arg = file };
	FILE *fp;

	(void)state;
	assert_non_null(mkdtemp(dir));
	snprintf(file, sizeof(file), "%s/tcp_autocorking", dir);
	fp = fopen(file, "w");
	assert_non_null(fp);
	fclose(fp);
	assert_int_equal(nm_fix_probe_file(&f, why, sizeof(why)), 0);
	unlink(file);
	/* a sysctl this kernel has not (tcp_backlog_ack_defer before 6.7) */
	assert_int_equal(nm_fix_probe_file(&f, why, sizeof(why)), -ENOENT);
	assert_non_null(strstr(why, "tcp_autocorking: absent in this kernel or namespace"));
	/* a directory does not open for writing */
	f.arg = dir;
	assert_int_equal(nm_fix_probe_file(&f, why, sizeof(why)), -EISDIR);
	rmdir(dir);
}

/* A sysctl by its name: the file derived from it, named in the verdict. */
static void test_probe_sysctl(void **state)
{
	struct nm_fix f = { .name = "defer", .probe = nm_fix_probe_sysctl, .arg = "net.ipv4.netmedic_none" };
	char why[256];

	(void)state;
	assert_int_equal(nm_fix_probe_sysctl(&f, why, sizeof(why)), -ENOENT);
	assert_string_equal(why, "/proc/sys/net/ipv4/netmedic_none: absent in this kernel or namespace");
	f.arg = "net..ipv4";
	assert_int_equal(nm_fix_probe_sysctl(&f, why, sizeof(why)), -EINVAL);
	assert_string_equal(why, "net..ipv4: not a sysctl name");
}

static void test_probe_cmd(void **state)
{
	struct nm_fix f = { .name = "routes", .arg = "sh" };
	char why[256];

	(void)state;
	assert_int_equal(nm_fix_probe_cmd(&f, why, sizeof(why)), 0);
	f.arg = "netmedic-no-such-command";
	assert_int_equal(nm_fix_probe_cmd(&f, why, sizeof(why)), -ENOENT);
	assert_string_equal(why, "no netmedic-no-such-command command on PATH");
}

static void test_probe_btf_type(void **state)
{
	struct nm_fix f = { .name = "lock", .arg = "bpf_struct_ops_Qdisc_ops" };
	char why[256];

	(void)state;
	/* no BTF at all: said so, and not allowed */
	setenv("NETMEDIC_BTF", "/nonexistent/vmlinux", 1);
	assert_true(nm_fix_probe_btf_type(&f, why, sizeof(why)) < 0);
	assert_non_null(strstr(why, "cannot read kernel BTF"));
	unsetenv("NETMEDIC_BTF");
	/* the running kernel's BTF (netmedic needs it anyway): a type it has, one it has not */
	f.arg = "task_struct";
	assert_int_equal(nm_fix_probe_btf_type(&f, why, sizeof(why)), 0);
	f.arg = "bpf_struct_ops_netmedic_none";
	assert_int_equal(nm_fix_probe_btf_type(&f, why, sizeof(why)), -ENOENT);
	assert_string_equal(why, "bpf_struct_ops_netmedic_none: not in kernel BTF");
}

static int probe_no(const struct nm_fix *f, char *why, size_t len)
{
	snprintf(why, len, "%s: refused", f->arg);
	return -EPERM;
}

static void test_list(void **state)
{
	const struct nm_fix fixes[] = {
		{ .name = "always", .lever = "nothing at all" },
		{ .name = "kick", .lever = "iter/tcp + bpf_setsockopt(TCP_NODELAY)", .probe = probe_no,
		  .arg = "ts_kick" },
	};
	char *buf = NULL;
	size_t len = 0;
	FILE *out = open_memstream(&buf, &len);

	(void)state;
	assert_non_null(out);
	assert_int_equal(nm_fixes_list(out, fixes, 2), 1);
	fclose(out);
	assert_string_equal(buf,
		"FIX        LEVER                                                    VERDICT\n"
		"always     nothing at all                                           allowed\n"
		"kick       iter/tcp + bpf_setsockopt(TCP_NODELAY)                   not allowed: ts_kick: refused\n");
	free(buf);
}

static int probe_second_way(const struct nm_fix *f, char *why, size_t len)
{
	snprintf(why, len, "by pidfd_getfd (%s: refused)", f->arg);
	return 0;
}

/* A lever of two ways: the probe that allows it says which, after "allowed". */
static void test_list_allowed_how(void **state)
{
	const struct nm_fix fixes[] = {
		{ .name = "kick", .lever = "iter/tcp, else pidfd_getfd", .probe = probe_second_way,
		  .arg = "ts_kick" },
	};
	char *buf = NULL;
	size_t len = 0;
	FILE *out = open_memstream(&buf, &len);

	(void)state;
	assert_non_null(out);
	assert_int_equal(nm_fixes_list_json(out, fixes, 1, "tcpstall"), 1);
	fclose(out);
	assert_non_null(strstr(buf, "\"verdict\":\"allowed by pidfd_getfd (ts_kick: refused)\"}\n"));
	free(buf);
}

/*
 * The table is the record "fix"'s (as --list-hooks' are): a lever wider
 * than its column widens it, and the verdicts stay aligned (qdiscstuck's
 * lock-bpf lever pushed its verdict out of line).
 */
static void test_list_wide_lever(void **state)
{
	const struct nm_fix fixes[] = {
		{ .name = "kick", .lever = "a frame" },
		{ .name = "lock-bpf", .lever = "struct_ops Qdisc_ops: a BPF FIFO (6.16+; netmedic has none yet)",
		  .probe = probe_no, .arg = "bpf_struct_ops_Qdisc_ops" },
	};
	char *buf = NULL;
	size_t len = 0;
	FILE *out = open_memstream(&buf, &len);

	(void)state;
	assert_non_null(out);
	assert_int_equal(nm_fixes_list(out, fixes, 2), 1);
	fclose(out);
	assert_string_equal(buf,
		"FIX        LEVER                                                           VERDICT\n"
		"kick       a frame                                                         allowed\n"
		"lock-bpf   struct_ops Qdisc_ops: a BPF FIFO (6.16+; netmedic has none yet) "
		"not allowed: bpf_struct_ops_Qdisc_ops: refused\n");
	free(buf);
}

/* #37: with --json, a JSON line a remedy, its line's columns as keys, stamped as every record */
static void test_list_json(void **state)
{
	const struct nm_fix fixes[] = {
		{ .name = "always", .lever = "nothing at all" },
		{ .name = "kick", .lever = "iter/tcp", .probe = probe_no, .arg = "ts_kick" },
	};
	char *buf = NULL, want[512];
	size_t len = 0;
	FILE *out = open_memstream(&buf, &len);
	long now = time(NULL);

	(void)state;
	assert_non_null(out);
	assert_int_equal(nm_fixes_list_json(out, fixes, 2, "tcpstall"), 1);
	fclose(out);
	/* the time is the listing's: within a second of the call */
	for (long t = now; t <= now + 1; t++) {
		snprintf(want, sizeof(want),
			 "{\"type\":\"fix\",\"tool\":\"tcpstall\",\"time\":%ld,\"fix\":\"always\","
			 "\"lever\":\"nothing at all\",\"verdict\":\"allowed\"}\n"
			 "{\"type\":\"fix\",\"tool\":\"tcpstall\",\"time\":%ld,\"fix\":\"kick\","
			 "\"lever\":\"iter/tcp\",\"verdict\":\"not allowed: ts_kick: refused\"}\n", t, t);
		if (!strcmp(buf, want))
			break;
	}
	assert_string_equal(buf, want);
	free(buf);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_probe_file),
		cmocka_unit_test(test_list_json),
		cmocka_unit_test(test_probe_sysctl),
		cmocka_unit_test(test_probe_cmd),
		cmocka_unit_test(test_probe_btf_type),
		cmocka_unit_test(test_list),
		cmocka_unit_test(test_list_wide_lever),
		cmocka_unit_test(test_list_allowed_how),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
