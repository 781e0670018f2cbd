// SPDX-License-Identifier: GPL-2.0
/* Unit tests for the line parsers of system files: kernel config, mountinfo. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <cmocka.h>

#include "lib/kconfig.h"
#include "lib/netns.h"

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

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_kconfig_line),
		cmocka_unit_test(test_mountinfo_line),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
