// SPDX-License-Identifier: GPL-2.0
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <libmnl/libmnl.h>
#include <linux/inet_diag.h>
#include <linux/netlink.h>
#include "lib/rtnl.h"
#include "lib/sockdiag.h"

/*
 * The kernel sizes a dump's messages after the largest read it has seen,
 * up to 32 KiB: a smaller buffer would truncate them.
 */
#define NM_DIAG_DUMP_BUF	32768

static int diag_attr(const struct nlattr *a, void *data)
{
	struct nm_diag_sock *d = data;
	size_t len = mnl_attr_get_payload_len(a);

	switch (mnl_attr_get_type(a)) {
	case INET_DIAG_INFO:
		/* a newer kernel's tcp_info is longer: keep the part we know */
		d->info_len = len < sizeof(d->info) ? len : sizeof(d->info);
		memcpy(&d->info, mnl_attr_get_payload(a), d->info_len);
		break;
	case INET_DIAG_SKMEMINFO:
		len /= sizeof(d->meminfo[0]);
		d->meminfo_len = len < NM_DIAG_MEMINFO_MAX ? len : NM_DIAG_MEMINFO_MAX;
		memcpy(d->meminfo, mnl_attr_get_payload(a), d->meminfo_len * sizeof(d->meminfo[0]));
		break;
	case INET_DIAG_CGROUP_ID:
		if (mnl_attr_validate(a, MNL_TYPE_U64) < 0)
			return MNL_CB_ERROR;
		d->cgroup_id = mnl_attr_get_u64(a);
		d->has_cgroup_id = true;
		break;
	}
	return MNL_CB_OK;
}

int nm_sockdiag_parse(const struct nlmsghdr *nlh, struct nm_diag_sock *out)
{
	const struct inet_diag_msg *m;
	size_t alen;

	/* the answers of both requests are inet_diag_msg (put_request()) */
	if (nlh->nlmsg_type != SOCK_DIAG_BY_FAMILY && nlh->nlmsg_type != TCPDIAG_GETSOCK)
		return -EINVAL;
	if (nlh->nlmsg_len < mnl_nlmsg_size(sizeof(*m)))
		return -EINVAL;
	m = mnl_nlmsg_get_payload(nlh);
	if (m->idiag_family != AF_INET && m->idiag_family != AF_INET6)
		return -EINVAL;
	memset(out, 0, sizeof(*out));
	out->family = m->idiag_family;
	out->state = m->idiag_state;
	out->lport = ntohs(m->id.idiag_sport);
	out->rport = ntohs(m->id.idiag_dport);
	/* IPv4: the first word only, as the BPF side keys it */
	alen = m->idiag_family == AF_INET ? 4 : 16;
	memcpy(out->laddr, m->id.idiag_src, alen);
	memcpy(out->raddr, m->id.idiag_dst, alen);
	out->inode = m->idiag_inode;
	if (mnl_attr_parse(nlh, sizeof(*m), diag_attr, out) < 0)
		return -EINVAL;
	return 0;
}

/*
 * The kernel filter "sport == port || dport == port". Its audit walks the
 * yes branches only, so every op must be on that chain: S_EQ falls through
 * to a JMP whose no branch reaches the end (accept); a failed S_EQ skips
 * to D_EQ, whose no branch goes past the end (reject).
 */
static void put_port_filter(struct nlmsghdr *nlh, uint16_t port)
{
	struct inet_diag_bc_op bc[5] = {
		{ .code = INET_DIAG_BC_S_EQ, .yes = 8, .no = 12 },
		{ .no = port },
		{ .code = INET_DIAG_BC_JMP, .yes = 4, .no = 12 },
		{ .code = INET_DIAG_BC_D_EQ, .yes = 8, .no = 12 },
		{ .no = port },
	};

	mnl_attr_put(nlh, INET_DIAG_REQ_BYTECODE, sizeof(bc), bc);
}

struct dump_ctx {
	nm_diag_cb cb;
	void *arg;
	int ret;
	unsigned long socks;	/* handed to cb */
};

static int dump_msg(const struct nlmsghdr *nlh, void *data)
{
	struct dump_ctx *c = data;
	struct nm_diag_sock d;

	if (nm_sockdiag_parse(nlh, &d))
		return MNL_CB_OK;	/* not a socket we can read: skip it */
	c->socks++;
	c->ret = c->cb(&d, c->arg);
	return c->ret ? MNL_CB_STOP : MNL_CB_OK;
}

static int dump_fail(int ret, const char *fam, const char *what, char *err, size_t errlen)
{
	if (ret == -ENOENT)
		snprintf(err, errlen, "sock_diag %s %s: no inet_diag here (CONFIG_INET_DIAG, tcp_diag)",
			 fam, what);
	else
		snprintf(err, errlen, "sock_diag %s %s: %s", fam, what, strerror(-ret));
	return ret;
}

#define NM_DIAG_EXT	(1 << (INET_DIAG_INFO - 1) | 1 << (INET_DIAG_SKMEMINFO - 1))

/*
 * A dump request. AF_UNSPEC: the legacy TCPDIAG_GETSOCK one, whose family
 * is always AF_UNSPEC, so one walk of the kernel's hash tables gives both
 * families; SOCK_DIAG_BY_FAMILY takes one family a walk. The walk costs the
 * size of the established table, not the number of sockets (about 2 ms for
 * 256k buckets here): the legacy request halves it.
 */
static struct nlmsghdr *put_request(char *buf, uint8_t family, uint32_t states, uint16_t port,
				    uint32_t seq)
{
	struct nlmsghdr *nlh = mnl_nlmsg_put_header(buf);

	nlh->nlmsg_flags = NLM_F_REQUEST | NLM_F_DUMP;
	nlh->nlmsg_seq = seq;
	if (family == AF_UNSPEC) {
		struct inet_diag_req *req = mnl_nlmsg_put_extra_header(nlh, sizeof(*req));

		nlh->nlmsg_type = TCPDIAG_GETSOCK;
		req->idiag_ext = NM_DIAG_EXT;
		req->idiag_states = states;
	} else {
		struct inet_diag_req_v2 *req = mnl_nlmsg_put_extra_header(nlh, sizeof(*req));

		nlh->nlmsg_type = SOCK_DIAG_BY_FAMILY;
		req->sdiag_family = family;
		req->sdiag_protocol = IPPROTO_TCP;
		req->idiag_ext = NM_DIAG_EXT;
		req->idiag_states = states;
	}
	if (port)
		put_port_filter(nlh, port);
	return nlh;
}

/* One dump on nl; buf holds the request, then the answers. */
static int dump_one(struct mnl_socket *nl, char *buf, uint8_t family, uint32_t states,
		    uint16_t port, uint32_t seq, struct dump_ctx *c, char *err, size_t errlen)
{
	const char *fam = family == AF_INET ? "inet" : family == AF_INET6 ? "inet6" : "tcpdiag";
	unsigned int portid = mnl_socket_get_portid(nl);
	struct nlmsghdr *nlh = put_request(buf, family, states, port, seq);
	int ret = MNL_CB_OK;
	ssize_t n;

	if (mnl_socket_sendto(nl, nlh, nlh->nlmsg_len) < 0)
		return dump_fail(-errno, fam, "request", err, errlen);
	while (ret > MNL_CB_STOP) {
		n = mnl_socket_recvfrom(nl, buf, NM_DIAG_DUMP_BUF);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			return dump_fail(-errno, fam, "dump", err, errlen);
		errno = 0;
		ret = nm_nl_run(buf, n, seq, portid, dump_msg, c);
	}
	if (ret < 0)
		return dump_fail(errno ? -errno : -EIO, fam, "dump", err, errlen);
	return c->ret;
}

int nm_sockdiag_tcp_dump_on(struct mnl_socket *nl, uint32_t states, uint16_t port, nm_diag_cb cb,
			    void *arg, char *err, size_t errlen)
{
	static char buf[NM_DIAG_DUMP_BUF];
	/* a kept socket: each dump's answers by their own numbers, never an old dump's */
	static uint32_t seq;
	struct dump_ctx c = { .cb = cb, .arg = arg };
	int ret;

	seq += 3;
	ret = dump_one(nl, buf, AF_UNSPEC, states, port, seq, &c, err, errlen);
	/*
	 * A kernel without the legacy request refuses it before the dump
	 * starts: one dump per family then (SOCK_DIAG_BY_FAMILY refuses
	 * AF_UNSPEC, with ENOENT).
	 */
	if ((ret == -EOPNOTSUPP || ret == -EINVAL || ret == -ENOENT) && !c.socks) {
		ret = dump_one(nl, buf, AF_INET, states, port, seq + 1, &c, err, errlen);
		if (!ret)
			ret = dump_one(nl, buf, AF_INET6, states, port, seq + 2, &c, err, errlen);
	}
	return ret;
}

int nm_sockdiag_tcp_dump(uint32_t states, uint16_t port, nm_diag_cb cb, void *arg,
			 char *err, size_t errlen)
{
	struct mnl_socket *nl = nm_nl_open_in(NETLINK_SOCK_DIAG, NULL, 0, 0, err, errlen);
	int ret;

	if (!nl)
		return -errno;
	ret = nm_sockdiag_tcp_dump_on(nl, states, port, cb, arg, err, errlen);
	mnl_socket_close(nl);
	return ret;
}

struct nlmsghdr *nm_sockdiag_find_request(void *buf, const struct nm_diag_sock *id, uint32_t seq)
{
	struct nlmsghdr *nlh = mnl_nlmsg_put_header(buf);
	size_t alen = id->family == AF_INET ? 4 : 16;
	struct inet_diag_req_v2 *req;

	nlh->nlmsg_type = SOCK_DIAG_BY_FAMILY;
	/* no NLM_F_DUMP: the kernel looks the socket up (inet_diag_find_one_icsk) */
	nlh->nlmsg_flags = NLM_F_REQUEST;
	nlh->nlmsg_seq = seq;
	req = mnl_nlmsg_put_extra_header(nlh, sizeof(*req));
	req->sdiag_family = id->family;
	req->sdiag_protocol = IPPROTO_TCP;
	req->idiag_states = ~0U;
	req->id.idiag_sport = htons(id->lport);
	req->id.idiag_dport = htons(id->rport);
	memcpy(req->id.idiag_src, id->laddr, alen);
	memcpy(req->id.idiag_dst, id->raddr, alen);
	req->id.idiag_cookie[0] = INET_DIAG_NOCOOKIE;
	req->id.idiag_cookie[1] = INET_DIAG_NOCOOKIE;
	return nlh;
}

struct find_ctx {
	const struct nm_diag_sock *id;
	struct nm_diag_sock *out;
	bool found;
};

static bool same_flow(const struct nm_diag_sock *a, const struct nm_diag_sock *b)
{
	size_t alen = a->family == AF_INET ? 4 : 16;

	return a->family == b->family && a->lport == b->lport && a->rport == b->rport &&
	       !memcmp(a->laddr, b->laddr, alen) && !memcmp(a->raddr, b->raddr, alen);
}

static int find_msg(const struct nlmsghdr *nlh, void *data)
{
	struct find_ctx *c = data;

	/* a listener the lookup fell back to answers with its own, wildcard, peer */
	c->found = !nm_sockdiag_parse(nlh, c->out) && same_flow(c->id, c->out);
	return MNL_CB_STOP;
}

/* One request on nl, its one reply (the socket, or an error): 0, -ENOENT or -errno. */
static int find_on(struct mnl_socket *nl, const struct nm_diag_sock *id, struct nm_diag_sock *out)
{
	static const uint32_t seq = 1;	/* the socket is this lookup's alone */
	char buf[NM_DIAG_FIND_BUF] __attribute__((aligned(8)));
	struct nlmsghdr *nlh = nm_sockdiag_find_request(buf, id, seq);
	struct find_ctx c = { .id = id, .out = out };
	ssize_t n;

	if (mnl_socket_sendto(nl, nlh, nlh->nlmsg_len) < 0)
		return -errno;
	do
		n = mnl_socket_recvfrom(nl, buf, sizeof(buf));
	while (n < 0 && errno == EINTR);
	if (n < 0)
		return -errno;
	errno = 0;
	/* not found: an NLMSG_ERROR of -ENOENT, which mnl_cb_run says in errno */
	if (nm_nl_run(buf, n, seq, mnl_socket_get_portid(nl), find_msg, &c) < 0)
		return errno ? -errno : -EIO;
	return c.found ? 0 : -ENOENT;
}

int nm_sockdiag_tcp_find(const struct nm_diag_sock *id, struct nm_diag_sock *out, char *err,
			 size_t errlen)
{
	struct mnl_socket *nl = nm_nl_open_in(NETLINK_SOCK_DIAG, NULL, 0, 0, err, errlen);
	int ret;

	if (!nl)
		return -errno;
	ret = find_on(nl, id, out);
	mnl_socket_close(nl);
	if (ret && ret != -ENOENT)
		snprintf(err, errlen, "sock_diag lookup: %s", strerror(-ret));
	return ret;
}
