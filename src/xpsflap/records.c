// SPDX-License-Identifier: GPL-2.0
/* xpsflap's records as field tables: JSON, table and textfile come from here. */
#include <stddef.h>
#include <stdio.h>

#include "lib/output.h"
#include "lib/selfstats.h"
#include "xpsflap/records.h"

#define S(f)	offsetof(struct xf_start_row, f)
#define I(f)	offsetof(struct xf_interval_row, f)
#define F(f)	offsetof(struct xf_flow_row, f)
#define D(f)	offsetof(struct xf_dev_row, f)

static const struct nm_field start_fields[] = {
	{ .json = "tool", .type = NM_REC_STRP, .off = S(tool) },
	{ .json = "kernel", .type = NM_REC_STRP, .off = S(kernel) },
	NM_SELF_HOOK_FIELDS(struct xf_start_row),
	{ .json = "interval", .type = NM_REC_DOUBLE, .off = S(interval), .unit = "seconds" },
	{ .json = "devices", .type = NM_REC_STRP, .off = S(devices) },
	{ .json = "max_flows", .type = NM_REC_U64, .off = S(max_flows) },
	{ .json = "pin", .type = NM_REC_BOOL, .off = S(pin) },
	{ .json = "netns", .type = NM_REC_STRP, .off = S(netns) },
	{ .json = "names_lost", .type = NM_REC_STRP, .off = S(names_lost) },
};

static const struct nm_field interval_fields[] = {
	{ .json = "time", .type = NM_REC_U64, .off = I(time), .unit = "seconds" },
	{ .json = "flows_active", .type = NM_REC_U64, .off = I(flows_active),
	  .help = "Flows that queued packets in the last interval",
	  .prom = "xpsflap_flows_active", .kind = NM_PROM_GAUGE },
	{ .json = "flows_flapping", .type = NM_REC_U64, .off = I(flows_flapping),
	  .help = "Flows queued on more than one TX queue that switched queue in the last interval",
	  .prom = "xpsflap_flows_flapping", .kind = NM_PROM_GAUGE },
	/*
	 * What the output left out, not a state of the host: no metric (the
	 * textfile has no flows to leave out)
	 */
	{ .json = "flows_not_shown", .type = NM_REC_U64, .off = I(flows_not_shown) },
	/* ... and the link-local control flows it left out of every count (--link-local) */
	{ .json = "flows_link_local", .type = NM_REC_U64, .off = I(flows_link_local) },
	{ .json = "flows_tracked", .type = NM_REC_U64, .off = I(flows_tracked) },
	{ .json = "max_flows", .type = NM_REC_U64, .off = I(max_flows) },
	{ .json = "evictions", .type = NM_REC_U64, .off = I(evictions) },
	/* packets of flows the table had no slot for (both of their slots live) */
	{ .json = "untracked_picks", .type = NM_REC_U64, .off = I(untracked_picks) },
	/* the hot path's misses: a flow is found without a parse once indexed */
	{ .json = "parsed_skbs", .type = NM_REC_U64, .off = I(parsed_skbs) },
	/* packets on devices with one TX queue: they cannot flap, and are not tracked */
	{ .json = "one_queue_picks", .type = NM_REC_U64, .off = I(one_queue_picks) },
	/* skbs of devices outside the --netns scope: left before the parse */
	{ .json = "out_of_scope_skbs", .type = NM_REC_U64, .off = I(out_of_scope_skbs) },
	/* the scope's bounds: namespaces named, and what did not fit */
	{ .json = "netns_named", .type = NM_REC_U64, .off = I(netns_named) },
	{ .json = "netns_over", .type = NM_REC_U64, .off = I(netns_over) },
	{ .json = "devices_over", .type = NM_REC_U64, .off = I(devices_over) },
	/* per-queue totals are kept for XF_DEV_SLOTS devices at once */
	{ .json = "dev_slot_misses", .type = NM_REC_U64, .off = I(dev_slot_misses),
	  .help = "Times a flow found every device slot taken: its device has no per-queue totals",
	  .prom = "xpsflap_dev_slot_misses_total", .kind = NM_PROM_COUNTER },
};

/*
 * The flow comes last, never cut: an IPv6 flow is as long as its
 * addresses (lib/record.h's layout puts it on a line of its own where the
 * terminal is too narrow for it).
 */
static const struct nm_field flow_fields[] = {
	{ .json = "dev", .type = NM_REC_STR, .off = F(dev), .col = "DEV", .colno = 1, .width = -8 },
	{ .json = "netns", .type = NM_REC_STR, .off = F(netns), .col = "NETNS", .colno = 2,
	  .width = -10 },
	{ .json = "netns_ino", .type = NM_REC_U64, .off = F(netns_ino) },
	{ .json = "saddr", .type = NM_REC_STR, .off = F(saddr) },
	{ .json = "daddr", .type = NM_REC_STR, .off = F(daddr) },
	{ .json = "sport", .type = NM_REC_U32, .off = F(sport) },
	{ .json = "dport", .type = NM_REC_U32, .off = F(dport) },
	{ .json = "proto", .type = NM_REC_STR, .off = F(proto) },
	{ .json = "has_sk", .type = NM_REC_BOOL, .off = F(has_sk) },
	{ .json = "packets", .type = NM_REC_U64, .off = F(packets), .unit = "segments",
	  .col = "PKTS", .colno = 7, .width = 6, .flags = NM_COL_COUNT },
	{ .json = "bytes", .type = NM_REC_U64, .off = F(bytes), .unit = "bytes" },
	{ .json = "queues", .type = NM_REC_BITS, .off = F(queues), .col = "QUEUE", .colno = 3,
	  .width = -5 },
	{ .json = "last_queue", .type = NM_REC_U32, .off = F(last_queue) },
	{ .json = "switches", .type = NM_REC_U64, .off = F(switches), .col = "SWITCH", .colno = 4,
	  .width = 6, .flags = NM_COL_COUNT },
	{ .json = "risky_switches", .type = NM_REC_U64, .off = F(risky_switches), .col = "RISKY",
	  .colno = 5, .width = 6, .flags = NM_COL_COUNT },
	{ .json = "in_flight_bytes", .type = NM_REC_U64, .off = F(in_flight_bytes), .unit = "bytes" },
	{ .json = "reordered", .type = NM_REC_U64, .off = F(reordered), .unit = "segments",
	  .col = "REORD", .colno = 6, .width = 6, .flags = NM_COL_COUNT },
	{ .json = "cpus", .type = NM_REC_BITS, .off = F(cpus), .col = "CPUS", .colno = 8, .width = -4 },
	{ .json = "interval_switches", .type = NM_REC_U32, .off = F(interval_switches) },
	{ .json = "flapping", .type = NM_REC_BOOL, .off = F(flapping) },
	{ .type = NM_REC_STR, .off = F(flow), .col = "FLOW (worst first)", .colno = 9 },
};

/*
 * Labels bounded by the host's namespaces and devices, never by flows; in
 * the order node_exporter gives them (by name), so a grep finds both.
 */
static const struct nm_field dev_fields[] = {
	{ .type = NM_REC_STR, .off = D(device), .prom = "device", .kind = NM_PROM_LABEL },
	{ .type = NM_REC_STR, .off = D(netns), .prom = "netns", .kind = NM_PROM_LABEL },
	{ .type = NM_REC_U32, .off = D(queue), .prom = "queue", .kind = NM_PROM_LABEL },
	{ .type = NM_REC_U64, .off = D(packets), .unit = "segments",
	  .help = "Segments queued on a TX queue",
	  .prom = "xpsflap_packets_total", .kind = NM_PROM_COUNTER },
	{ .type = NM_REC_U64, .off = D(bytes), .unit = "bytes", .help = "Bytes queued on a TX queue",
	  .prom = "xpsflap_bytes_total", .kind = NM_PROM_COUNTER },
	{ .type = NM_REC_U64, .off = D(switches),
	  .help = "Times a flow was queued on another TX queue than its previous packet",
	  .prom = "xpsflap_queue_switches_total", .kind = NM_PROM_COUNTER, .by = "device,netns" },
	{ .type = NM_REC_U64, .off = D(risky_switches),
	  .help = "Queue switches while the previous queue still held packets of the flow",
	  .prom = "xpsflap_risky_switches_total", .kind = NM_PROM_COUNTER, .by = "device,netns" },
	{ .type = NM_REC_U64, .off = D(reordered), .unit = "segments",
	  .help = "TCP data segments transmitted below the highest sequence the flow already sent",
	  .prom = "xpsflap_reordered_segments_total", .kind = NM_PROM_COUNTER, .by = "device,netns" },
};

const struct nm_record xf_start_rec = NM_RECORD("start", start_fields);
const struct nm_record xf_interval_rec = NM_RECORD("interval", interval_fields);
const struct nm_record xf_flow_rec = NM_RECORD("flow", flow_fields);
const struct nm_record xf_dev_rec = NM_RECORD("dev_queue", dev_fields);
const struct nm_record *const xf_records[] = {
	&xf_start_rec, &xf_interval_rec, &xf_flow_rec, &xf_dev_rec,
};
const int xf_nrecords = sizeof(xf_records) / sizeof(xf_records[0]);

/* "198.18.0.1:40000>198.18.0.2:5201", prefixed by the protocol unless TCP */
static void flow_str(struct xf_flow_row *r, uint8_t proto, int family)
{
	char p[12] = "";

	if (proto != 6)
		snprintf(p, sizeof(p), "%s ", r->proto);
	if (proto != 6 && proto != 17)
		snprintf(r->flow, sizeof(r->flow), "%s%s>%s", p, r->saddr, r->daddr);
	else if (family == NM_AF_INET6)
		snprintf(r->flow, sizeof(r->flow), "%s[%s]:%u>[%s]:%u", p, r->saddr, r->sport,
			 r->daddr, r->dport);
	else
		snprintf(r->flow, sizeof(r->flow), "%s%s:%u>%s:%u", p, r->saddr, r->sport,
			 r->daddr, r->dport);
}

void xf_flow_row(struct xf_flow_row *r, const struct xf_entry *e, const char *dev,
		 const char *netns)
{
	const struct xf_flow *v = &e->val;
	char pb[8];

	snprintf(r->dev, sizeof(r->dev), "%s", dev);
	snprintf(r->netns, sizeof(r->netns), "%s", netns);
	r->netns_ino = e->key.netns;
	nm_fmt_addr(e->key.family, e->key.saddr, r->saddr, sizeof(r->saddr));
	nm_fmt_addr(e->key.family, e->key.daddr, r->daddr, sizeof(r->daddr));
	r->sport = e->key.sport;
	r->dport = e->key.dport;
	snprintf(r->proto, sizeof(r->proto), "%s", xf_proto_name(e->key.proto, pb, sizeof(pb)));
	r->has_sk = v->has_sk & XF_SEEN_WITH_SK;
	r->packets = v->packets;
	r->bytes = v->bytes;
	r->queues = v->queues;
	r->last_queue = v->last_queue;
	r->switches = v->switches;
	r->risky_switches = v->risky_switches;
	r->in_flight_bytes = e->in_flight;
	r->reordered = v->reordered;
	r->cpus = v->cpus;
	r->interval_switches = e->interval_switches;
	r->flapping = e->flapping;
	flow_str(r, e->key.proto, e->key.family);
}
