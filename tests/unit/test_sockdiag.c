// SPDX-License-Identifier: GPL-2.0
/*
 * nm_sockdiag_parse on synthetic SOCK_DIAG_BY_FAMILY answers: tcp_info
 * shorter and longer than this header's, meminfo of other lengths, the
 * cgroup id, and messages that are not ours.
 */
#include <errno.h>
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <string.h>
#include <cmocka.h>
#include <arpa/inet.h>
#include <libmnl/libmnl.h>
#include <linux/inet_diag.h>
#include "lib/rtnl.h"
#include "lib/sockdiag.h"

static char buf[8192] __attribute__((aligned(8)));

/* An answer for 198.18.200.1:55500 -> 198.18.200.2:5201 without attributes. */
static struct nlmsghdr *msg(uint8_t family)
{
	struct nlmsghdr *nlh = mnl_nlmsg_put_header(buf);
	struct inet_diag_msg *m;

	nlh->nlmsg_type = SOCK_DIAG_BY_FAMILY;
	m = mnl_nlmsg_put_extra_header(nlh, sizeof(*m));
	m->idiag_family = family;
	m->idiag_state = NM_TCP_ESTABLISHED;
	m->id.idiag_sport = htons(55500);
	m->id.idiag_dport = htons(5201);
	m->id.idiag_src[0] = htonl(0xc612c801);
	m->id.idiag_dst[0] = htonl(0xc612c802);
	m->idiag_inode = 4242;
	return nlh;
}

static void test_v4_attrs(void **state)
{
	(void)state;
	struct nlmsghdr *nlh = msg(AF_INET);
	uint32_t mem[SK_MEMINFO_VARS] = { [SK_MEMINFO_WMEM_ALLOC] = 45104,
					  [SK_MEMINFO_SNDBUF] = 1112832 };
	struct tcp_info ti = { .tcpi_snd_mss = 1448, .tcpi_notsent_bytes = 1067176 };
	struct nm_diag_sock d;

	mnl_attr_put(nlh, INET_DIAG_INFO, sizeof(ti), &ti);
	mnl_attr_put(nlh, INET_DIAG_SKMEMINFO, sizeof(mem), mem);
	mnl_attr_put_u64(nlh, INET_DIAG_CGROUP_ID, 1);
	assert_int_equal(nm_sockdiag_parse(nlh, &d), 0);
	assert_int_equal(d.family, AF_INET);
	assert_int_equal(d.state, NM_TCP_ESTABLISHED);
	assert_int_equal(d.lport, 55500);
	assert_int_equal(d.rport, 5201);
	assert_memory_equal(d.laddr, ((uint8_t[16]){ 198, 18, 200, 1 }), 16);
	assert_memory_equal(d.raddr, ((uint8_t[16]){ 198, 18, 200, 2 }), 16);
	assert_int_equal(d.inode, 4242);
	assert_int_equal(d.info_len, sizeof(ti));
	assert_int_equal(d.info.tcpi_snd_mss, 1448);
	assert_true(NM_DIAG_HAS(&d, tcpi_snd_wnd));
	assert_int_equal(d.meminfo_len, SK_MEMINFO_VARS);
	assert_int_equal(d.meminfo[SK_MEMINFO_WMEM_ALLOC], 45104);
	assert_int_equal(d.meminfo[SK_MEMINFO_SNDBUF], 1112832);
	assert_true(d.has_cgroup_id);
	assert_int_equal(d.cgroup_id, 1);
	/* the legacy request's answers (one dump for both families) are the same */
	nlh->nlmsg_type = TCPDIAG_GETSOCK;
	assert_int_equal(nm_sockdiag_parse(nlh, &d), 0);
	assert_int_equal(d.lport, 55500);
}

static void test_info_lengths(void **state)
{
	(void)state;
	char big[sizeof(struct tcp_info) + 48];
	struct tcp_info ti = { .tcpi_unacked = 7 };
	uint32_t mem[SK_MEMINFO_VARS + 2] = { 0 };
	struct nlmsghdr *nlh;
	struct nm_diag_sock d;
	size_t old = offsetof(struct tcp_info, tcpi_rcv_ooopack);

	/* an older kernel: shorter, snd_wnd unknown; an old meminfo too */
	nlh = msg(AF_INET);
	mnl_attr_put(nlh, INET_DIAG_INFO, old, &ti);
	mnl_attr_put(nlh, INET_DIAG_SKMEMINFO, 4 * sizeof(uint32_t), mem);
	assert_int_equal(nm_sockdiag_parse(nlh, &d), 0);
	assert_int_equal(d.info_len, old);
	assert_int_equal(d.info.tcpi_unacked, 7);
	assert_false(NM_DIAG_HAS(&d, tcpi_snd_wnd));
	assert_true(NM_DIAG_HAS(&d, tcpi_reord_seen));
	assert_int_equal(d.meminfo_len, 4);
	assert_false(d.has_cgroup_id);

	/* a newer kernel: longer than this header's, the known part kept */
	nlh = msg(AF_INET6);
	memset(big, 0xab, sizeof(big));
	memcpy(big, &ti, sizeof(ti));
	mnl_attr_put(nlh, INET_DIAG_INFO, sizeof(big), big);
	mnl_attr_put(nlh, INET_DIAG_SKMEMINFO, sizeof(mem), mem);
	assert_int_equal(nm_sockdiag_parse(nlh, &d), 0);
	assert_int_equal(d.family, AF_INET6);
	assert_int_equal(d.info_len, sizeof(struct tcp_info));
	assert_int_equal(d.info.tcpi_unacked, 7);
	assert_int_equal(d.meminfo_len, NM_DIAG_MEMINFO_MAX);
}

static void test_v6_addresses(void **state)
{
	(void)state;
	static const uint8_t l6[16] = { 0xfd, 0, 0x01, 0x98, 0, 0x18, [15] = 1 };
	struct nlmsghdr *nlh = msg(AF_INET6);
	struct inet_diag_msg *m = mnl_nlmsg_get_payload(nlh);
	struct nm_diag_sock d;

	memcpy(m->id.idiag_src, l6, 16);
	memset(m->id.idiag_dst, 0xee, 16);
	assert_int_equal(nm_sockdiag_parse(nlh, &d), 0);
	assert_memory_equal(d.laddr, l6, 16);
	assert_int_equal(d.raddr[15], 0xee);
	assert_int_equal(d.info_len, 0);
}

static void test_not_ours(void **state)
{
	(void)state;
	struct nlmsghdr *nlh;
	struct nm_diag_sock d;
	uint32_t bad = 1;

	/* AF_INET: only the first word of the addresses is the address */
	nlh = msg(AF_INET);
	((struct inet_diag_msg *)mnl_nlmsg_get_payload(nlh))->id.idiag_src[1] = 0xffffffff;
	assert_int_equal(nm_sockdiag_parse(nlh, &d), 0);
	assert_int_equal(d.laddr[4], 0);
	/* a unix socket's answer */
	nlh = msg(AF_UNIX);
	assert_int_equal(nm_sockdiag_parse(nlh, &d), -EINVAL);
	/* another message type */
	nlh = msg(AF_INET);
	nlh->nlmsg_type = NLMSG_DONE;
	assert_int_equal(nm_sockdiag_parse(nlh, &d), -EINVAL);
	/* shorter than inet_diag_msg */
	nlh = msg(AF_INET);
	nlh->nlmsg_len = mnl_nlmsg_size(8);
	assert_int_equal(nm_sockdiag_parse(nlh, &d), -EINVAL);
	/* a cgroup id that is not a u64 */
	nlh = msg(AF_INET);
	mnl_attr_put(nlh, INET_DIAG_CGROUP_ID, sizeof(bad), &bad);
	assert_int_equal(nm_sockdiag_parse(nlh, &d), -EINVAL);
}

static int count_msg(const struct nlmsghdr *nlh, void *data)
{
	struct nm_diag_sock d;

	if (!nm_sockdiag_parse(nlh, &d))
		(*(int *)data)++;
	return MNL_CB_OK;
}

/*
 * A reply whose second message claims 4 GiB: libmnl takes (int)nlmsg_len,
 * negative, as fitting, and jumped 4 GiB on (a fuzzer's SEGV). The walk
 * must end at it, after the first socket.
 */
static void test_walk_stops_at_bad_length(void **state)
{
	struct nlmsghdr *nlh = msg(AF_INET), *bad;
	size_t n;
	int socks = 0;

	(void)state;
	n = nlh->nlmsg_len;
	bad = (struct nlmsghdr *)(buf + n);
	memset(bad, 0, 64);
	/* what is left minus that, mod 2^32, is positive: libmnl walked on */
	bad->nlmsg_len = 0xffffff00;
	bad->nlmsg_type = SOCK_DIAG_BY_FAMILY;
	assert_int_equal(nm_nl_run(buf, n + 64, 0, 0, count_msg, &socks), MNL_CB_OK);
	assert_int_equal(socks, 1);
	/* and one whose aligned end is past the buffer is not walked */
	socks = 0;
	nlh->nlmsg_len -= 1;
	assert_int_equal(nm_nl_run(buf, n - 1, 0, 0, count_msg, &socks), MNL_CB_OK);
	assert_int_equal(socks, 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_v4_attrs),
		cmocka_unit_test(test_info_lengths),
		cmocka_unit_test(test_v6_addresses),
		cmocka_unit_test(test_not_ours),
		cmocka_unit_test(test_walk_stops_at_bad_length),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
