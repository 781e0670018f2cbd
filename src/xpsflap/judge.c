// SPDX-License-Identifier: GPL-2.0
#include <stdio.h>
#include <string.h>
#include "xpsflap/judge.h"

int xf_nqueues(uint64_t queues)
{
	return __builtin_popcountll(queues);
}

int xf_bits(uint64_t mask, uint32_t *out, int max)
{
	int n = 0;

	for (uint32_t b = 0; b < 64 && n < max; b++)
		if (mask & (1ULL << b))
			out[n++] = b;
	return n;
}

bool xf_active(const struct xf_flow *f, uint64_t since_ns)
{
	return f->packets && f->last_ns >= since_ns;
}

uint32_t xf_interval_switches(const struct xf_flow *f, uint32_t epoch)
{
	return f->epoch == epoch ? f->epoch_switches : 0;
}

uint64_t xf_in_flight(const struct xf_flow *f)
{
	uint64_t n = 0;

	for (int i = 0; i < XF_INFLIGHT_SLOTS; i++)
		n += f->inflight[i];
	return n;
}

bool xf_unflushed(const struct xf_flow *f, uint64_t *packets, uint64_t *bytes)
{
	if (f->packets < f->packets_flushed || f->bytes < f->bytes_flushed)
		return false;
	*packets = f->packets - f->packets_flushed;
	*bytes = f->bytes - f->bytes_flushed;
	return true;
}

uint64_t xf_monotonic(uint64_t prev, uint64_t now)
{
	return now > prev ? now : prev;
}

bool xf_flapping(const struct xf_flow *f, uint32_t epoch, uint32_t min_switches)
{
	return xf_nqueues(f->queues) >= 2 && xf_interval_switches(f, epoch) >= min_switches &&
	       xf_interval_switches(f, epoch) > 0;
}

void xf_judge(struct xf_entry *e, uint32_t epoch, uint32_t min_switches)
{
	e->interval_switches = xf_interval_switches(&e->val, epoch);
	e->flapping = xf_flapping(&e->val, epoch, min_switches);
	e->in_flight = xf_in_flight(&e->val);
}

static int cmp_u64(uint64_t a, uint64_t b)
{
	return a < b ? 1 : a > b ? -1 : 0;
}

int xf_cmp_worst(const void *a, const void *b)
{
	const struct xf_flow *x = &((const struct xf_entry *)a)->val;
	const struct xf_flow *y = &((const struct xf_entry *)b)->val;
	int c;

	c = cmp_u64(x->switches, y->switches);
	if (!c)
		c = cmp_u64(x->risky_switches, y->risky_switches);
	if (!c)
		c = cmp_u64(x->reordered, y->reordered);
	if (!c)
		c = cmp_u64(x->packets, y->packets);
	return c;
}

const char *const xf_sort_names[XF_NR_SORTS] = {
	[XF_SORT_SWITCHES] = "switches", [XF_SORT_RISKY] = "risky",
	[XF_SORT_REORDERED] = "reordered", [XF_SORT_PACKETS] = "packets",
	[XF_SORT_BYTES] = "bytes", [XF_SORT_QUEUES] = "queues",
};

static uint64_t sort_key(const struct xf_flow *f, enum xf_sort key)
{
	switch (key) {
	case XF_SORT_RISKY:
		return f->risky_switches;
	case XF_SORT_REORDERED:
		return f->reordered;
	case XF_SORT_PACKETS:
		return f->packets;
	case XF_SORT_BYTES:
		return f->bytes;
	case XF_SORT_QUEUES:
		return xf_nqueues(f->queues);
	default:
		return f->switches;
	}
}

int xf_cmp_by(const void *a, const void *b, void *key)
{
	enum xf_sort k = *(const enum xf_sort *)key;
	int c = cmp_u64(sort_key(&((const struct xf_entry *)a)->val, k),
			sort_key(&((const struct xf_entry *)b)->val, k));

	return c ? c : xf_cmp_worst(a, b);
}

/* fe80::/10, or a multicast address of link scope (ffX2::/16) */
static bool v6_link_scope(const uint8_t *a)
{
	return (a[0] == 0xfe && (a[1] & 0xc0) == 0x80) || (a[0] == 0xff && (a[1] & 0x0f) == 2);
}

bool xf_link_local(const struct xf_flow_key *k)
{
	if (k->family == NM_AF_INET)
		return k->proto == 2;	/* IGMP */
	if (k->family != NM_AF_INET6 || (k->proto != 58 && k->proto != 0))
		return false;		/* not ICMPv6, nor MLD's hop-by-hop header */
	return v6_link_scope(k->saddr) || v6_link_scope(k->daddr);
}

const char *xf_proto_name(uint8_t proto, char *buf, size_t len)
{
	if (proto == 6)
		return "tcp";
	if (proto == 17)
		return "udp";
	if (proto == 1)
		return "icmp";
	if (proto == 58)
		return "icmp6";
	if (proto == 2)
		return "igmp";
	if (proto == 0)
		return "hopopt";	/* IPv6 hop-by-hop options header first (MLD) */
	snprintf(buf, len, "%u", proto);
	return buf;
}

bool xf_xps_mask_set(const char *mask)
{
	for (const char *p = mask; *p; p++)
		if (*p != '0' && *p != ',' && *p != '\n' && *p != ' ')
			return true;
	return false;
}
