/* SPDX-License-Identifier: GPL-2.0 */
/* xpsflap decisions from the BPF counters: pure functions, unit-tested. */
#ifndef NETMEDIC_XPSFLAP_DETECT_H
#define NETMEDIC_XPSFLAP_DETECT_H

#include <stdbool.h>
#include <stdint.h>
#include "xpsflap/xpsflap.h"

struct xf_entry {
	struct xf_flow_key key;
	struct xf_flow val;
	/* the verdicts, set once by xf_judge(): the sinks read them */
	uint32_t interval_switches;
	bool flapping;
	uint64_t in_flight;
};

/* Number of queues in a queue bitmap. */
int xf_nqueues(uint64_t queues);
/* Bit numbers set in mask, lowest first, at most max of them; returns how many. */
int xf_bits(uint64_t mask, uint32_t *out, int max);
/* Flow picked a queue since since_ns (monotonic ns, the BPF clock). */
bool xf_active(const struct xf_flow *f, uint64_t since_ns);
/*
 * Flapping: the flow switched queues at least min_switches times in the
 * report interval 'epoch'. One switch is a move (a socket rehash after an
 * RTO moves a flow on purpose); XPS flapping goes back and forth.
 */
#define XF_MIN_SWITCHES_DEFAULT	2
bool xf_flapping(const struct xf_flow *f, uint32_t epoch, uint32_t min_switches);
/* Switches in the report interval 'epoch'. */
uint32_t xf_interval_switches(const struct xf_flow *f, uint32_t epoch);
/* Payload bytes of the flow queued and not yet transmitted, over all its queues. */
uint64_t xf_in_flight(const struct xf_flow *f);
/*
 * What the flow queued on its current queue since it last left one, which
 * the per-queue totals do not hold yet. False for a slot read while a CPU
 * was claiming it (counts behind what was flushed).
 */
bool xf_unflushed(const struct xf_flow *f, uint64_t *packets, uint64_t *bytes);
/*
 * A per-queue total shown before (prev) and read now: totals and flows are
 * read apart, and a flush between the two reads takes a flow's part out of
 * one before the other has it, so a read can come out short. A counter
 * never goes back: it shows prev until the total passes it.
 */
uint64_t xf_monotonic(uint64_t prev, uint64_t now);
/* Fills e's verdicts for the report interval 'epoch'. */
void xf_judge(struct xf_entry *e, uint32_t epoch, uint32_t min_switches);
/* qsort order: most switches first, then risky switches, reordered, packets. */
int xf_cmp_worst(const void *a, const void *b);
/*
 * The keys --sort ranks by, each most first (queues: how many the flow
 * used); ties go by xf_cmp_worst. XF_SORT_SWITCHES is xf_cmp_worst itself.
 */
enum xf_sort {
	XF_SORT_SWITCHES,
	XF_SORT_RISKY,
	XF_SORT_REORDERED,
	XF_SORT_PACKETS,
	XF_SORT_BYTES,
	XF_SORT_QUEUES,
	XF_NR_SORTS,
};
extern const char *const xf_sort_names[XF_NR_SORTS];
/* qsort_r order by the key *(const enum xf_sort *)key, worst first. */
int xf_cmp_by(const void *a, const void *b, void *key);
/*
 * A link-local control flow, the noise of every link rather than traffic
 * (neighbour discovery, MLD, IGMP): IGMP, or ICMPv6 (behind a hop-by-hop
 * header too, as MLD is) from or to a link-local address, fe80::/10 or a
 * link-scope multicast group (ff02::1, ff02::1:ff00:0/104).
 */
bool xf_link_local(const struct xf_flow_key *k);
/* "tcp", "udp", or the protocol number. */
const char *xf_proto_name(uint8_t proto, char *buf, size_t len);
/* An XPS mask as sysfs prints it ("00000000,00000003"): true when any CPU bit is set. */
bool xf_xps_mask_set(const char *mask);

#endif
