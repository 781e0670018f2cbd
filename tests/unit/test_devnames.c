// SPDX-License-Identifier: GPL-2.0
/* Unit tests for device names per netns: link messages, and this netns's own devices. */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <cmocka.h>
#include <linux/rtnetlink.h>

#include "lib/devnames.h"

static struct nlmsghdr *link_msg(char *buf, uint16_t type, int ifindex, const char *name)
{
	struct nlmsghdr *nlh = mnl_nlmsg_put_header(buf);
	struct ifinfomsg *ifi;

	nlh->nlmsg_type = type;
	ifi = mnl_nlmsg_put_extra_header(nlh, sizeof(*ifi));
	ifi->ifi_index = ifindex;
	if (name)
		mnl_attr_put_strz(nlh, IFLA_IFNAME, name);
	mnl_attr_put_u32(nlh, IFLA_MTU, 1500);
	return nlh;
}

/* The TX queue count: said, not said, or said wrong (the name is kept). */
static void test_link_parse_ntxq(void **state)
{
	char buf[512];
	struct nm_link_msg m;
	struct nlmsghdr *nlh;

	(void)state;
	nlh = link_msg(buf, RTM_NEWLINK, 7, "qa");
	mnl_attr_put_u32(nlh, IFLA_NUM_TX_QUEUES, 2);
	assert_int_equal(nm_link_parse(nlh, &m), 0);
	assert_int_equal(m.ntxq, 2);
	assert_int_equal(nm_link_parse(link_msg(buf, RTM_NEWLINK, 7, "qa"), &m), 0);
	assert_int_equal(m.ntxq, 0);
	nlh = link_msg(buf, RTM_NEWLINK, 7, "qa");
	mnl_attr_put_u16(nlh, IFLA_NUM_TX_QUEUES, 1);
	assert_int_equal(nm_link_parse(nlh, &m), 0);
	assert_string_equal(m.name, "qa");
	assert_int_equal(m.ntxq, 0);
}

static void test_link_parse(void **state)
{
	char buf[512];
	struct nm_link_msg m;
	struct nlmsghdr *nlh;

	(void)state;
	assert_int_equal(nm_link_parse(link_msg(buf, RTM_NEWLINK, 7, "eth0"), &m), 0);
	assert_int_equal(m.ifindex, 7);
	assert_string_equal(m.name, "eth0");
	assert_false(m.gone);
	assert_int_equal(nm_link_parse(link_msg(buf, RTM_DELLINK, 7, "eth0"), &m), 0);
	assert_true(m.gone);
	/* a deletion names its index; a NEWLINK without a name is no news */
	assert_int_equal(nm_link_parse(link_msg(buf, RTM_DELLINK, 9, NULL), &m), 0);
	assert_int_equal(m.ifindex, 9);
	assert_int_equal(nm_link_parse(link_msg(buf, RTM_NEWLINK, 9, NULL), &m), -EINVAL);
	assert_int_equal(nm_link_parse(link_msg(buf, RTM_NEWADDR, 7, "eth0"), &m), -EINVAL);
	assert_int_equal(nm_link_parse(link_msg(buf, RTM_NEWLINK, 0, "eth0"), &m), -EINVAL);
	/* a name longer than IFNAMSIZ is not a device's */
	assert_int_equal(nm_link_parse(link_msg(buf, RTM_NEWLINK, 7, "a-name-of-twenty-chars"), &m),
			 -EINVAL);
	/* a message shorter than its header */
	nlh = link_msg(buf, RTM_NEWLINK, 7, "eth0");
	nlh->nlmsg_len = sizeof(*nlh) + 4;
	assert_int_equal(nm_link_parse(nlh, &m), -EINVAL);
}

/* The real kernel: this netns's loopback is named, and an unknown index is not. */
static void test_own_netns(void **state)
{
	struct nm_devnames *d = nm_devnames_new(4, 256);
	struct stat st;
	char err[256] = "";

	(void)state;
	assert_non_null(d);
	assert_int_equal(stat("/proc/self/ns/net", &st), 0);
	assert_int_equal(nm_devnames_add(d, st.st_ino, NULL, err, sizeof(err)), 0);
	assert_string_equal(nm_devnames_get(d, st.st_ino, 1), "lo");
	/* lo has one TX queue, which its link message says */
	assert_int_equal(nm_devnames_ntxq(d, st.st_ino, 1), 1);
	assert_int_equal(nm_devnames_ntxq(d, st.st_ino + 1, 1), 0);
	assert_null(nm_devnames_get(d, st.st_ino + 1, 1));
	assert_null(nm_devnames_get(d, st.st_ino, 0x7fffffff));
	/* following it twice is following it once */
	assert_int_equal(nm_devnames_add(d, st.st_ino, NULL, err, sizeof(err)), 0);
	nm_devnames_poll(d);
	assert_string_equal(nm_devnames_get(d, st.st_ino, 1), "lo");
	nm_devnames_drop(d, st.st_ino);
	assert_null(nm_devnames_get(d, st.st_ino, 1));
	nm_devnames_free(d);
}

static void test_bad_path(void **state)
{
	struct nm_devnames *d = nm_devnames_new(1, 16);
	char err[256] = "";

	(void)state;
	assert_int_equal(nm_devnames_add(d, 5, "/nonexistent/ns", err, sizeof(err)), -ENOENT);
	assert_non_null(strstr(err, "/nonexistent/ns"));
	/* bounded: one namespace, and the next is refused with a reason */
	assert_int_equal(nm_devnames_add(d, 6, NULL, err, sizeof(err)), 0);
	assert_int_equal(nm_devnames_add(d, 7, NULL, err, sizeof(err)), -ENOSPC);
	assert_non_null(strstr(err, "more than 1"));
	nm_devnames_free(d);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_link_parse),
		cmocka_unit_test(test_link_parse_ntxq),
		cmocka_unit_test(test_own_netns),
		cmocka_unit_test(test_bad_path),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
