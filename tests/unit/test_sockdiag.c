// SPDX-License-Identifier: GPL-2.0
/*
 * nm_sockdiag_parse on synthetic SOCK_DIAG_BY_FAMILY answers: tcp_info
 * shorter and longer than this header's, meminfo of other lengths, the
 * cgroup id, and messages that are not ours. The exact lookup's request,
 * and the lookup itself on loopback connections of this netns.
 */
#include <errno.h>
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <string.h>
#include <unistd.h>
#include <cmocka.h>
#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <sys/stat.h>
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

/* id's 4-tuple as the request carries it: no dump, network order, any cookie. */
static void check_request(const struct nlmsghdr *nlh, const struct nm_diag_sock *id, size_t alen)
{
	const struct inet_diag_req_v2 *req = mnl_nlmsg_get_payload(nlh);

	assert_int_equal(nlh->nlmsg_type, SOCK_DIAG_BY_FAMILY);
	assert_int_equal(nlh->nlmsg_flags, NLM_F_REQUEST);
	assert_int_equal(nlh->nlmsg_seq, 7);
	assert_int_equal(nlh->nlmsg_len, mnl_nlmsg_size(sizeof(*req)));
	assert_int_equal(req->sdiag_family, id->family);
	assert_int_equal(req->sdiag_protocol, IPPROTO_TCP);
	assert_int_equal(req->idiag_ext, 0);
	assert_int_equal(req->id.idiag_sport, htons(id->lport));
	assert_int_equal(req->id.idiag_dport, htons(id->rport));
	assert_memory_equal(req->id.idiag_src, id->laddr, alen);
	assert_memory_equal(req->id.idiag_dst, id->raddr, alen);
	assert_int_equal(req->id.idiag_if, 0);
	assert_int_equal(req->id.idiag_cookie[0], INET_DIAG_NOCOOKIE);
	assert_int_equal(req->id.idiag_cookie[1], INET_DIAG_NOCOOKIE);
}

static void test_find_request(void **state)
{
	struct nm_diag_sock v4 = { .family = AF_INET, .lport = 55500, .rport = 5201,
				   .laddr = { 198, 18, 200, 1 }, .raddr = { 198, 18, 200, 2 } };
	struct nm_diag_sock v6 = { .family = AF_INET6, .lport = 443, .rport = 40000,
				   .laddr = { 0xfd, 0, 1, [15] = 1 }, .raddr = { 0xfd, 0, 1, [15] = 2 } };
	const struct inet_diag_req_v2 *req;
	struct nlmsghdr *nlh;

	(void)state;
	memset(buf, 0xaa, sizeof(buf));
	nlh = nm_sockdiag_find_request(buf, &v4, 7);
	check_request(nlh, &v4, 4);
	/* IPv4: the first word; the rest of the address words are 0 */
	req = mnl_nlmsg_get_payload(nlh);
	assert_int_equal(req->id.idiag_src[0], htonl(0xc612c801));
	assert_int_equal(req->id.idiag_src[1] | req->id.idiag_dst[3], 0);
	memset(buf, 0xaa, sizeof(buf));
	check_request(nm_sockdiag_find_request(buf, &v6, 7), &v6, 16);
}

/* The 4-tuple of connected socket fd, as a lookup takes it. */
static struct nm_diag_sock flow_of(int fd)
{
	struct sockaddr_storage l, r;
	socklen_t ll = sizeof(l), rl = sizeof(r);
	struct nm_diag_sock id = {};

	assert_int_equal(getsockname(fd, (struct sockaddr *)&l, &ll), 0);
	assert_int_equal(getpeername(fd, (struct sockaddr *)&r, &rl), 0);
	id.family = l.ss_family;
	if (id.family == AF_INET) {
		id.lport = ntohs(((struct sockaddr_in *)&l)->sin_port);
		id.rport = ntohs(((struct sockaddr_in *)&r)->sin_port);
		memcpy(id.laddr, &((struct sockaddr_in *)&l)->sin_addr, 4);
		memcpy(id.raddr, &((struct sockaddr_in *)&r)->sin_addr, 4);
	} else {
		id.lport = ntohs(((struct sockaddr_in6 *)&l)->sin6_port);
		id.rport = ntohs(((struct sockaddr_in6 *)&r)->sin6_port);
		memcpy(id.laddr, &((struct sockaddr_in6 *)&l)->sin6_addr, 16);
		memcpy(id.raddr, &((struct sockaddr_in6 *)&r)->sin6_addr, 16);
	}
	return id;
}

static unsigned long inode_of(int fd)
{
	struct stat st;

	assert_int_equal(fstat(fd, &st), 0);
	return st.st_ino;
}

/* A connection on the loopback of family: 0, or -1 when the family is not there. */
static int loop_pair(int family, int fds[3])
{
	struct sockaddr_storage a = { .ss_family = family };
	socklen_t al = family == AF_INET ? sizeof(struct sockaddr_in) : sizeof(struct sockaddr_in6);

	if (family == AF_INET)
		((struct sockaddr_in *)&a)->sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	else
		((struct sockaddr_in6 *)&a)->sin6_addr = in6addr_loopback;
	fds[0] = socket(family, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (fds[0] < 0 || bind(fds[0], (struct sockaddr *)&a, al) || listen(fds[0], 1)) {
		if (fds[0] >= 0)
			close(fds[0]);
		return -1;
	}
	assert_int_equal(getsockname(fds[0], (struct sockaddr *)&a, &al), 0);
	fds[1] = socket(family, SOCK_STREAM | SOCK_CLOEXEC, 0);
	assert_int_equal(connect(fds[1], (struct sockaddr *)&a, al), 0);
	fds[2] = accept4(fds[0], NULL, NULL, SOCK_CLOEXEC);
	assert_true(fds[2] >= 0);
	return 0;
}

/*
 * The kernel's lookup, for real: each end of a loopback connection is
 * found with its inode; a 4-tuple with no socket is not, even though its
 * local port has a listener, which the kernel's lookup falls back to.
 */
static void find_loopback(int family)
{
	struct nm_diag_sock id, d;
	char err[160] = "";
	int fds[3] = { -1, -1, -1 };

	if (loop_pair(family, fds))
		skip();
	id = flow_of(fds[1]);
	assert_int_equal(nm_sockdiag_tcp_find(&id, &d, err, sizeof(err)), 0);
	assert_int_equal(d.inode, inode_of(fds[1]));
	assert_int_equal(d.state, NM_TCP_ESTABLISHED);
	id = flow_of(fds[2]);
	assert_int_equal(nm_sockdiag_tcp_find(&id, &d, err, sizeof(err)), 0);
	assert_int_equal(d.inode, inode_of(fds[2]));
	/* the listener's port, from a peer port that has no connection */
	id.rport = id.rport == 1 ? 2 : 1;
	assert_int_equal(nm_sockdiag_tcp_find(&id, &d, err, sizeof(err)), -ENOENT);
	close(fds[1]);
	close(fds[2]);
	close(fds[0]);
}

static void test_find_v4(void **state)
{
	(void)state;
	find_loopback(AF_INET);
}

static void test_find_v6(void **state)
{
	(void)state;
	find_loopback(AF_INET6);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_v4_attrs),
		cmocka_unit_test(test_info_lengths),
		cmocka_unit_test(test_v6_addresses),
		cmocka_unit_test(test_not_ours),
		cmocka_unit_test(test_walk_stops_at_bad_length),
		cmocka_unit_test(test_find_request),
		cmocka_unit_test(test_find_v4),
		cmocka_unit_test(test_find_v6),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
