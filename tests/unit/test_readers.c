// SPDX-License-Identifier: GPL-2.0
/* Unit tests for the readers of system files: kernel config, mountinfo, sysfs. */
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

#include "lib/kconfig.h"
#include "lib/netns.h"
#include "lib/sysfs.h"

static void test_kconfig_line(void **state)
{
	long v = -7;

	(void)state;
	assert_int_equal(nm_kconfig_line("CONFIG_HZ=250\n", "CONFIG_HZ", &v), 0);
	assert_int_equal(v, 250);
	assert_int_equal(nm_kconfig_line("CONFIG_X=0x10\n", "CONFIG_X", &v), 0);
	assert_int_equal(v, 16);
	v = -7;
	/* a longer name with the same start is another option */
	assert_int_equal(nm_kconfig_line("CONFIG_HZ_250=y\n", "CONFIG_HZ", &v), -1);
	assert_int_equal(nm_kconfig_line("# CONFIG_HZ is not set\n", "CONFIG_HZ", &v), -1);
	assert_int_equal(nm_kconfig_line("CONFIG_H", "CONFIG_HZ", &v), -1);
	assert_int_equal(v, -7);
}

static void test_mountinfo_line(void **state)
{
	char mnt[NM_MOUNTINFO_PATH], longer[700];
	int id, parent;

	(void)state;
	assert_int_equal(nm_mountinfo_line("26 1 0:24 / /sys rw,nosuid - sysfs sysfs rw\n", &id,
					   &parent, mnt), 0);
	assert_int_equal(id, 26);
	assert_int_equal(parent, 1);
	assert_string_equal(mnt, "/sys");
	assert_int_equal(nm_mountinfo_line("26 1 0:24\n", &id, &parent, mnt), -1);
	assert_int_equal(nm_mountinfo_line("x 1 0:24 / /sys\n", &id, &parent, mnt), -1);
	/* a mount point longer than the buffer is cut, not overflowed */
	memcpy(longer, "1 2 0:1 / /", 11);
	memset(longer + 11, 'a', sizeof(longer) - 12);
	longer[sizeof(longer) - 1] = '\0';
	assert_int_equal(nm_mountinfo_line(longer, &id, &parent, mnt), 0);
	assert_int_equal(strlen(mnt), NM_MOUNTINFO_PATH - 1);
}

static void put(const char *dir, const char *name, const char *text)
{
	char path[256];
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	f = fopen(path, "w");
	assert_non_null(f);
	fputs(text, f);
	fclose(f);
}

static void test_sysfs(void **state)
{
	char dir[] = "/tmp/nm-test-sysfs.XXXXXX", path[256], buf[16];

	(void)state;
	assert_non_null(mkdtemp(dir));
	put(dir, "xps_cpus", "1,3\n");
	put(dir, "empty", "");
	put(dir, "long", "0123456789abcdefghij\n");
	put(dir, "tx_queue_len", "500\n");
	put(dir, "word", "abc\n");
	snprintf(path, sizeof(path), "%s/xps_cpus", dir);
	assert_int_equal(nm_sysfs_line(path, buf, sizeof(buf)), 0);
	assert_string_equal(buf, "1,3");
	snprintf(path, sizeof(path), "%s/empty", dir);
	assert_int_equal(nm_sysfs_line(path, buf, sizeof(buf)), 0);
	assert_string_equal(buf, "");
	/* cut to the buffer, still a string */
	snprintf(path, sizeof(path), "%s/long", dir);
	assert_int_equal(nm_sysfs_line(path, buf, sizeof(buf)), 0);
	assert_string_equal(buf, "0123456789abcde");
	snprintf(path, sizeof(path), "%s/absent", dir);
	assert_int_equal(nm_sysfs_line(path, buf, sizeof(buf)), -ENOENT);
	assert_int_equal(nm_sysfs_long(path, -1), -1);
	snprintf(path, sizeof(path), "%s/tx_queue_len", dir);
	assert_int_equal(nm_sysfs_long(path, -1), 500);
	snprintf(path, sizeof(path), "%s/word", dir);
	assert_int_equal(nm_sysfs_long(path, 1000), 1000);
	/* entries by prefix: a device's tx-N */
	snprintf(path, sizeof(path), "%s/q", dir);
	assert_int_equal(nm_dir_count(path, "tx-"), -ENOENT);
	assert_int_equal(mkdir(path, 0700), 0);
	put(path, "tx-0", "");
	put(path, "tx-1", "");
	put(path, "rx-0", "");
	assert_int_equal(nm_dir_count(path, "tx-"), 2);
	assert_int_equal(nm_dir_count(path, "rx-"), 1);
	assert_true(nm_dev_ntxq("nm-no-such-dev") < 0);
	snprintf(path, sizeof(path), "rm -rf %s", dir);
	assert_int_equal(system(path), 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_kconfig_line),
		cmocka_unit_test(test_mountinfo_line),
		cmocka_unit_test(test_sysfs),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
