// SPDX-License-Identifier: GPL-2.0
/*
 * devnames.c - device names in every netns, kept current (devnames.h).
 */
#include <errno.h>
#include <poll.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <linux/rtnetlink.h>

#include "lib/devnames.h"
#include "lib/htab.h"
#include "lib/rtnl.h"

#define DUMP_BUF	32768
#define DUMP_WAIT_MS	2000	/* a dump of thousands of links, on a busy host */

struct dev_key {
	uint64_t ino;
	uint32_t ifindex;
	uint32_t pad;
};

/* What is kept of a device: its link message's facts. */
struct dev_val {
	char name[IF_NAMESIZE];
	unsigned int ntxq;
};

struct ns_sock {
	unsigned long ino;
	struct mnl_socket *nl;
	unsigned int portid;
};

struct nm_devnames {
	struct nm_htab *names;	/* struct dev_key -> struct dev_val */
	struct ns_sock *ns;
	size_t nns, max_ns;
	unsigned long over;
	void (*deleted)(unsigned long ino, unsigned int ifindex, void *arg);
	void *deleted_arg;
};

struct take_ctx {
	struct nm_devnames *d;
	unsigned long ino;
	size_t changes;
};

static int link_attr(const struct nlattr *a, void *data)
{
	struct nm_link_msg *m = data;

	/* a count that does not validate is not said: the name still is */
	if (mnl_attr_get_type(a) == IFLA_NUM_TX_QUEUES) {
		if (mnl_attr_validate(a, MNL_TYPE_U32) >= 0)
			m->ntxq = mnl_attr_get_u32(a);
		return MNL_CB_OK;
	}
	if (mnl_attr_get_type(a) != IFLA_IFNAME)
		return MNL_CB_OK;
	if (mnl_attr_validate(a, MNL_TYPE_NUL_STRING) < 0 ||
	    mnl_attr_get_payload_len(a) > IF_NAMESIZE)
		return MNL_CB_ERROR;
	snprintf(m->name, sizeof(m->name), "%s", mnl_attr_get_str(a));
	return MNL_CB_OK;
}

int nm_link_parse(const struct nlmsghdr *nlh, struct nm_link_msg *out)
{
	const struct ifinfomsg *ifi;

	memset(out, 0, sizeof(*out));
	if ((nlh->nlmsg_type != RTM_NEWLINK && nlh->nlmsg_type != RTM_DELLINK) ||
	    nlh->nlmsg_len < mnl_nlmsg_size(sizeof(*ifi)))
		return -EINVAL;
	ifi = mnl_nlmsg_get_payload(nlh);
	if (ifi->ifi_index <= 0 ||
	    mnl_attr_parse(nlh, sizeof(*ifi), link_attr, out) != MNL_CB_OK)
		return -EINVAL;
	out->ifindex = ifi->ifi_index;
	out->gone = nlh->nlmsg_type == RTM_DELLINK;
	/* a RTM_NEWLINK without a name says nothing we keep */
	return out->name[0] || out->gone ? 0 : -EINVAL;
}

struct nm_devnames *nm_devnames_new(size_t max_ns, size_t max_devs)
{
	struct nm_devnames *d = calloc(1, sizeof(*d));

	if (!d)
		return NULL;
	d->names = nm_htab_new(sizeof(struct dev_key), sizeof(struct dev_val), max_devs);
	d->ns = calloc(max_ns ? max_ns : 1, sizeof(*d->ns));
	d->max_ns = max_ns;
	if (!d->names || !d->ns) {
		nm_devnames_free(d);
		return NULL;
	}
	return d;
}

static void forget_ns(struct nm_devnames *d, unsigned long ino)
{
	struct dev_key keys[64];
	size_t pos, n;
	void *k, *v;

	/* a deletion moves entries: collect a batch of keys, delete, again */
	do {
		pos = 0;
		n = 0;
		while (n < 64 && nm_htab_next(d->names, &pos, &k, &v))
			if (((struct dev_key *)k)->ino == ino)
				keys[n++] = *(struct dev_key *)k;
		for (size_t i = 0; i < n; i++)
			nm_htab_del(d->names, &keys[i]);
	} while (n == 64);
}

void nm_devnames_free(struct nm_devnames *d)
{
	if (!d)
		return;
	for (size_t i = 0; d->ns && i < d->nns; i++)
		mnl_socket_close(d->ns[i].nl);
	nm_htab_free(d->names);
	free(d->ns);
	free(d);
}

static int take_msg(const struct nlmsghdr *nlh, void *data)
{
	struct take_ctx *c = data;
	struct dev_key key = { .ino = c->ino };
	struct nm_link_msg m;
	struct dev_val *v;

	if (nm_link_parse(nlh, &m))
		return MNL_CB_OK;	/* another message, or one we cannot read */
	key.ifindex = m.ifindex;
	c->changes++;
	if (m.gone) {
		nm_htab_del(c->d->names, &key);
		if (c->d->deleted)
			c->d->deleted(c->ino, m.ifindex, c->d->deleted_arg);
		return MNL_CB_OK;
	}
	v = nm_htab_upsert(c->d->names, &key, NULL);
	if (!v) {
		c->d->over++;
		return MNL_CB_OK;
	}
	snprintf(v->name, sizeof(v->name), "%s", m.name);
	/* fixed for the device's life: a message that does not say it changes nothing */
	if (m.ntxq)
		v->ntxq = m.ntxq;
	return MNL_CB_OK;
}

/* Reads what is queued on s; with seq, until that dump is done. */
static int drain(struct nm_devnames *d, struct ns_sock *s, unsigned int seq, size_t *changes)
{
	static char buf[DUMP_BUF];
	struct take_ctx c = { .d = d, .ino = s->ino };
	struct pollfd p = { .fd = mnl_socket_get_fd(s->nl), .events = POLLIN };
	int ret = MNL_CB_OK;

	for (;;) {
		ssize_t n = mnl_socket_recvfrom(s->nl, buf, sizeof(buf));

		if (n < 0 && errno == EAGAIN && seq) {
			if (poll(&p, 1, DUMP_WAIT_MS) <= 0) {
				ret = -ETIMEDOUT;
				break;
			}
			continue;
		}
		if (n < 0) {
			ret = errno == EAGAIN ? 0 : -errno;
			break;
		}
		ret = nm_nl_run(buf, n, seq, s->portid, take_msg, &c);
		if (ret == MNL_CB_STOP && seq) {
			ret = 0;
			break;
		}
		if (ret < 0) {
			ret = -EIO;
			break;
		}
	}
	if (changes)
		*changes += c.changes;
	return ret;
}

static int dump(struct nm_devnames *d, struct ns_sock *s)
{
	char buf[MNL_SOCKET_BUFFER_SIZE];
	struct nlmsghdr *nlh = mnl_nlmsg_put_header(buf);
	struct ifinfomsg *ifi;
	unsigned int seq = (unsigned int)time(NULL) | 1;

	nlh->nlmsg_type = RTM_GETLINK;
	nlh->nlmsg_flags = NLM_F_REQUEST | NLM_F_DUMP;
	nlh->nlmsg_seq = seq;
	ifi = mnl_nlmsg_put_extra_header(nlh, sizeof(*ifi));
	ifi->ifi_family = AF_UNSPEC;
	if (mnl_socket_sendto(s->nl, nlh, nlh->nlmsg_len) < 0)
		return -errno;
	return drain(d, s, seq, NULL);
}

static struct ns_sock *ns_of(struct nm_devnames *d, unsigned long ino)
{
	for (size_t i = 0; i < d->nns; i++)
		if (d->ns[i].ino == ino)
			return &d->ns[i];
	return NULL;
}

int nm_devnames_add(struct nm_devnames *d, unsigned long ino, const char *path, char *err,
		    size_t len)
{
	struct ns_sock *s;
	int ret;

	if (ns_of(d, ino))
		return 0;
	if (d->nns == d->max_ns) {
		snprintf(err, len, "%s: more than %zu namespaces followed", path, d->max_ns);
		return -ENOSPC;
	}
	s = &d->ns[d->nns];
	s->ino = ino;
	s->nl = nm_rtnl_open_in(path, RTMGRP_LINK, err, len);
	if (!s->nl)
		return -errno;
	s->portid = mnl_socket_get_portid(s->nl);
	ret = dump(d, s);
	if (ret) {
		snprintf(err, len, "%s: RTM_GETLINK dump: %s", path, strerror(-ret));
		mnl_socket_close(s->nl);
		forget_ns(d, ino);
		return ret;
	}
	d->nns++;
	return 0;
}

void nm_devnames_drop(struct nm_devnames *d, unsigned long ino)
{
	struct ns_sock *s = ns_of(d, ino);

	if (!s)
		return;
	mnl_socket_close(s->nl);
	*s = d->ns[--d->nns];
	forget_ns(d, ino);
}

size_t nm_devnames_poll(struct nm_devnames *d)
{
	size_t changes = 0;

	for (size_t i = 0; i < d->nns; i++) {
		struct ns_sock *s = &d->ns[i];

		if (drain(d, s, 0, &changes) != -ENOBUFS)
			continue;
		/* events were lost: what was deleted meanwhile is only known by a new dump */
		forget_ns(d, s->ino);
		if (!dump(d, s))
			changes++;
	}
	return changes;
}

static struct dev_val *dev_of(struct nm_devnames *d, unsigned long ino, unsigned int ifindex)
{
	struct dev_key key = { .ino = ino, .ifindex = ifindex };

	return nm_htab_get(d->names, &key);
}

const char *nm_devnames_get(struct nm_devnames *d, unsigned long ino, unsigned int ifindex)
{
	struct dev_val *v = dev_of(d, ino, ifindex);

	return v ? v->name : NULL;
}

unsigned int nm_devnames_ntxq(struct nm_devnames *d, unsigned long ino, unsigned int ifindex)
{
	struct dev_val *v = dev_of(d, ino, ifindex);

	return v ? v->ntxq : 0;
}

void nm_devnames_on_deleted(struct nm_devnames *d,
			    void (*fn)(unsigned long ino, unsigned int ifindex, void *arg), void *arg)
{
	d->deleted = fn;
	d->deleted_arg = arg;
}

unsigned long nm_devnames_over(const struct nm_devnames *d)
{
	return d->over;
}
