// SPDX-License-Identifier: GPL-2.0
#ifndef _GNU_SOURCE
#define _GNU_SOURCE	/* setns */
#endif
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <sched.h>
#include <stdio.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <libmnl/libmnl.h>
#include <linux/gen_stats.h>
#include <linux/pkt_sched.h>
#include <linux/rtnetlink.h>
#include "lib/netns.h"
#include "lib/rtnl.h"

/* a dump message can be as large as a page of the kernel's (up to 32 KiB) */
#define NM_RTNL_DUMP_BUF	32768
/* a kept socket's reply, on a busy host */
#define NM_RTNL_DUMP_WAIT_MS	2000

/* two dumps in one second on one socket still differ */
static unsigned int nm_rtnl_seq;

#ifndef TCA_DUMP_INVISIBLE
#define TCA_DUMP_INVISIBLE 10
#endif

/*
 * The whole messages at the start of a received buffer, in bytes. libmnl
 * 1.0.4's mnl_nlmsg_ok() compares (int)nlmsg_len with what is left, so a
 * length of 2 GiB or more turns negative, passes, and the walk jumps far
 * past the buffer; its attribute walks go on to the aligned end of the
 * message. The kernel pads every message to NLMSG_ALIGNTO, so a message
 * is whole when its aligned length fits; the walk stops at the first that
 * does not, as a correct mnl_nlmsg_ok() would.
 */
static size_t whole_msgs(const void *buf, size_t n)
{
	size_t off = 0, len;

	while (n - off >= sizeof(struct nlmsghdr)) {
		const struct nlmsghdr *nlh = (const void *)((const char *)buf + off);

		len = nlh->nlmsg_len;
		if (len < sizeof(*nlh))
			break;
		len = (len + NLMSG_ALIGNTO - 1) & ~(size_t)(NLMSG_ALIGNTO - 1);
		if (len > n - off)
			break;
		off += len;
	}
	return off;
}

int nm_nl_run(const void *buf, size_t n, unsigned int seq, unsigned int portid, mnl_cb_t cb,
	      void *data)
{
	return mnl_cb_run(buf, whole_msgs(buf, n), seq, portid, cb, data);
}

static int stats2_attr(const struct nlattr *a, void *data)
{
	struct nm_qdisc_stats *q = data;

	switch (mnl_attr_get_type(a)) {
	case TCA_STATS_BASIC: {
		struct gnet_stats_basic b;

		if (mnl_attr_get_payload_len(a) < sizeof(b))
			return MNL_CB_ERROR;
		memcpy(&b, mnl_attr_get_payload(a), sizeof(b));
		q->bytes = b.bytes;
		if (!q->has_basic || q->packets < b.packets)
			q->packets = b.packets;
		q->has_basic = true;
		break;
	}
	case TCA_STATS_PKT64:
		if (mnl_attr_validate(a, MNL_TYPE_U64) < 0)
			return MNL_CB_ERROR;
		q->packets = mnl_attr_get_u64(a);
		break;
	case TCA_STATS_QUEUE: {
		struct gnet_stats_queue s;

		if (mnl_attr_get_payload_len(a) < sizeof(s))
			return MNL_CB_ERROR;
		memcpy(&s, mnl_attr_get_payload(a), sizeof(s));
		q->qlen = s.qlen;
		q->backlog = s.backlog;
		q->drops = s.drops;
		q->requeues = s.requeues;
		q->overlimits = s.overlimits;
		q->has_queue = true;
		break;
	}
	}
	return MNL_CB_OK;
}

static int qdisc_attr(const struct nlattr *a, void *data)
{
	struct nm_qdisc_stats *q = data;

	switch (mnl_attr_get_type(a)) {
	case TCA_KIND:
		if (mnl_attr_validate(a, MNL_TYPE_NUL_STRING) < 0)
			return MNL_CB_ERROR;
		snprintf(q->kind, sizeof(q->kind), "%s", mnl_attr_get_str(a));
		break;
	case TCA_STATS2:
		if (mnl_attr_validate(a, MNL_TYPE_NESTED) < 0)
			return MNL_CB_ERROR;
		if (mnl_attr_parse_nested(a, stats2_attr, q) < 0)
			return MNL_CB_ERROR;
		break;
	}
	return MNL_CB_OK;
}

int nm_rtnl_qdisc_parse(const struct nlmsghdr *nlh, struct nm_qdisc_stats *out)
{
	const struct tcmsg *tcm;

	if (nlh->nlmsg_type != RTM_NEWQDISC || nlh->nlmsg_len < mnl_nlmsg_size(sizeof(*tcm)))
		return -EINVAL;
	tcm = mnl_nlmsg_get_payload(nlh);
	memset(out, 0, sizeof(*out));
	out->ifindex = tcm->tcm_ifindex;
	out->handle = tcm->tcm_handle;
	out->parent = tcm->tcm_parent;
	if (mnl_attr_parse(nlh, sizeof(*tcm), qdisc_attr, out) < 0)
		return -EINVAL;
	return 0;
}

struct dump_ctx {
	unsigned int ifindex;
	nm_qdisc_cb cb;
	void *arg;
	int ret;
};

static int dump_msg(const struct nlmsghdr *nlh, void *data)
{
	struct dump_ctx *c = data;
	struct nm_qdisc_stats q;

	/* after the callback said stop: the rest of the dump is read, not judged */
	if (c->ret || nm_rtnl_qdisc_parse(nlh, &q))
		return MNL_CB_OK;	/* not ours to judge: skip what does not parse */
	if (c->ifindex && q.ifindex != c->ifindex)
		return MNL_CB_OK;
	c->ret = c->cb(&q, c->arg);
	return MNL_CB_OK;
}

/* One datagram of the reply; a non-blocking socket waits for it, bounded. */
static ssize_t dump_recv(struct mnl_socket *nl, void *buf, size_t len)
{
	struct pollfd p = { .fd = mnl_socket_get_fd(nl), .events = POLLIN };

	for (;;) {
		ssize_t n = mnl_socket_recvfrom(nl, buf, len);

		if (n >= 0 || errno != EAGAIN)
			return n;
		if (poll(&p, 1, NM_RTNL_DUMP_WAIT_MS) <= 0) {
			errno = ETIMEDOUT;
			return -1;
		}
	}
}

/*
 * One dump of type (RTM_GETQDISC, RTM_GETTFILTER) for ifindex (0: all) and
 * parent, each whole message of the reply to msg. 0, or -errno with err.
 */
static int rtnl_dump(struct mnl_socket *nl, int type, unsigned int ifindex, uint32_t parent,
		     mnl_cb_t msg, void *data, char *err, size_t errlen)
{
	static char buf[NM_RTNL_DUMP_BUF];
	unsigned int seq = (unsigned int)time(NULL) ^ ++nm_rtnl_seq, portid;
	const char *what = type == RTM_GETQDISC ? "RTM_GETQDISC" : "RTM_GETTFILTER";
	struct nlmsghdr *nlh;
	struct tcmsg *tcm;
	ssize_t n;
	int ret;

	portid = mnl_socket_get_portid(nl);
	nlh = mnl_nlmsg_put_header(buf);
	nlh->nlmsg_type = type;
	nlh->nlmsg_flags = NLM_F_REQUEST | NLM_F_DUMP;
	nlh->nlmsg_seq = seq;
	tcm = mnl_nlmsg_put_extra_header(nlh, sizeof(*tcm));
	tcm->tcm_family = AF_UNSPEC;
	tcm->tcm_ifindex = type == RTM_GETQDISC ? 0 : ifindex;
	tcm->tcm_parent = parent;
	if (type == RTM_GETQDISC)
		mnl_attr_put(nlh, TCA_DUMP_INVISIBLE, 0, NULL);
	if (mnl_socket_sendto(nl, nlh, nlh->nlmsg_len) < 0) {
		ret = -errno;
		snprintf(err, errlen, "%s: %s", what, strerror(errno));
		return ret;
	}
	/*
	 * To its end even when the callback stopped early: a socket that is
	 * kept must not hold the rest of this dump when the next one starts.
	 */
	ret = MNL_CB_OK;
	while (ret > MNL_CB_STOP) {
		n = dump_recv(nl, buf, sizeof(buf));
		if (n < 0) {
			ret = -errno;
			snprintf(err, errlen, "%s dump: %s", what, strerror(errno));
			return ret;
		}
		ret = nm_nl_run(buf, n, seq, portid, msg, data);
	}
	if (ret < 0) {
		ret = errno ? -errno : -EIO;
		snprintf(err, errlen, "%s dump: %s", what, strerror(-ret));
		return ret;
	}
	return 0;
}

int nm_rtnl_qdisc_dump_on(struct mnl_socket *nl, unsigned int ifindex, nm_qdisc_cb cb, void *arg,
			  char *err, size_t errlen)
{
	struct dump_ctx c = { .ifindex = ifindex, .cb = cb, .arg = arg };
	int ret = rtnl_dump(nl, RTM_GETQDISC, 0, 0, dump_msg, &c, err, errlen);

	return ret ? ret : c.ret;
}

static int count_filter(const struct nlmsghdr *nlh, void *data)
{
	if (nlh->nlmsg_type == RTM_NEWTFILTER)
		++*(int *)data;
	return MNL_CB_OK;
}

int nm_rtnl_filter_count(unsigned int ifindex, uint32_t parent, char *err, size_t errlen)
{
	struct mnl_socket *nl = nm_rtnl_open_in(NULL, 0, err, errlen);
	int n = 0, ret;

	if (!nl)
		return -errno;
	ret = rtnl_dump(nl, RTM_GETTFILTER, ifindex, parent, count_filter, &n, err, errlen);
	mnl_socket_close(nl);
	return ret ? ret : n;
}

static const char *bus_name(int bus)
{
	return bus == NETLINK_ROUTE ? "rtnetlink" : bus == NETLINK_SOCK_DIAG ? "sock_diag" : "netlink";
}

/* A socket to open, and where: its outcome (nl, or e and err). */
struct nl_open {
	int bus, flags;
	const char *ns_path;
	unsigned int groups;
	char *err;
	size_t len;
	struct mnl_socket *nl;
	int e;
};

/*
 * The socket made in ns_path's netns (it stays there, wherever it is used
 * from), on a visiting thread of its own (nm_netns_visit): this one enters
 * and need not come back. Without ns_path, in the caller's netns.
 */
static int nl_open(void *p)
{
	struct nl_open *o = p;
	int ns;

	if (o->ns_path) {
		ns = open(o->ns_path, O_RDONLY | O_CLOEXEC);
		if (ns < 0 || setns(ns, CLONE_NEWNET)) {
			o->e = errno;
			snprintf(o->err, o->len, "%s: %s", o->ns_path, strerror(o->e));
			if (ns >= 0)
				close(ns);
			return -o->e;
		}
		close(ns);
	}
	o->nl = mnl_socket_open2(o->bus, o->flags | SOCK_CLOEXEC);
	if (!o->nl || mnl_socket_bind(o->nl, o->groups, MNL_SOCKET_AUTOPID) < 0) {
		o->e = errno;
		snprintf(o->err, o->len, "%s socket%s%s: %s", bus_name(o->bus), o->ns_path ? " in " : "",
			 o->ns_path ? o->ns_path : "", strerror(o->e));
		if (o->nl)
			mnl_socket_close(o->nl);
		o->nl = NULL;
		return -o->e;
	}
	return 0;
}

struct mnl_socket *nm_nl_open_in(int bus, const char *ns_path, unsigned int groups, int flags,
				 char *err, size_t len)
{
	struct nl_open o = { .bus = bus, .flags = flags, .ns_path = ns_path, .groups = groups,
			     .err = err, .len = len };
	int ret = ns_path ? nm_netns_visit(nl_open, &o) : nl_open(&o);

	if (ret && !o.e) {
		/* no visiting thread */
		o.e = -ret;
		snprintf(err, len, "%s: no thread to enter it: %s", ns_path, strerror(o.e));
	}
	errno = o.e;
	return o.nl;
}

struct mnl_socket *nm_rtnl_open_in(const char *ns_path, unsigned int groups, char *err,
				   size_t len)
{
	return nm_nl_open_in(NETLINK_ROUTE, ns_path, groups, SOCK_NONBLOCK, err, len);
}

int nm_rtnl_qdisc_dump(unsigned int ifindex, nm_qdisc_cb cb, void *arg, char *err, size_t errlen)
{
	struct mnl_socket *nl = nm_rtnl_open_in(NULL, 0, err, errlen);
	int ret;

	if (!nl)
		return -errno;
	ret = nm_rtnl_qdisc_dump_on(nl, ifindex, cb, arg, err, errlen);
	mnl_socket_close(nl);
	return ret;
}
