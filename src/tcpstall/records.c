// SPDX-License-Identifier: GPL-2.0
/* tcpstall's records as field tables: JSON, table and textfile come from here. */
#include <stddef.h>
#include <stdio.h>
#include <string.h>

#include "lib/output.h"
#include "lib/selfstats.h"
#include "tcpstall/records.h"

#define S(f)	offsetof(struct ts_start_row, f)
#define I(f)	offsetof(struct ts_interval_row, f)
#define E(f)	offsetof(struct ts_stall_row, f)
#define K(f)	offsetof(struct ts_socket_row, f)
#define A(f)	offsetof(struct ts_acks_row, f)
#define P(f)	offsetof(struct ts_placement_row, f)
#define N(f)	offsetof(struct ts_netns_row, f)

/* detect/ names the results one by one (ts_kick_result_name): a test holds them equal */
const char *const ts_kick_count_names[TS_KICK_COUNTS] = { "attempted", "done", "failed",
							  "skipped" };

/* the table's cells for a storm's bool */
static const char *const storm_cells[] = { "-", "YES" };

/*
 * The keys every flow record begins with, the netns by name, then by
 * inode; its NETNS (column nscol of a table, 0: none) and FLOW are the
 * tables'.
 */
#define TS_FLOW_FIELDS(row_t, nscol)							\
	{ .json = "netns", .type = NM_REC_STR, .off = offsetof(row_t, flow.netns),	\
	  .col = (nscol) ? "NETNS" : NULL, .colno = (nscol), .width = -10 },	\
	{ .json = "netns_ino", .type = NM_REC_U64, .off = offsetof(row_t, flow.netns_ino) },	\
	{ .json = "saddr", .type = NM_REC_STR, .off = offsetof(row_t, flow.saddr) },	\
	{ .json = "daddr", .type = NM_REC_STR, .off = offsetof(row_t, flow.daddr) },	\
	{ .json = "sport", .type = NM_REC_U32, .off = offsetof(row_t, flow.sport) },	\
	{ .json = "dport", .type = NM_REC_U32, .off = offsetof(row_t, flow.dport) },	\
	{ .json = "proto", .type = NM_REC_STRP, .off = offsetof(row_t, flow.proto) }

static const struct nm_field start_fields[] = {
	{ .json = "tool", .type = NM_REC_STRP, .off = S(tool) },
	{ .json = "kernel", .type = NM_REC_STRP, .off = S(kernel) },
	NM_SELF_HOOK_FIELDS(struct ts_start_row),
	{ .json = "interval", .type = NM_REC_DOUBLE, .off = S(interval), .unit = "seconds" },
	{ .json = "netns", .type = NM_REC_STRP, .off = S(netns) },
	{ .json = "names_lost", .type = NM_REC_STRP, .off = S(names_lost) },
	{ .json = "threshold_ms", .type = NM_REC_U64, .off = S(threshold_ms) },
	{ .json = "sweep_ms", .type = NM_REC_U64, .off = S(sweep_ms) },
	{ .json = "full_sweep_ms", .type = NM_REC_U64, .off = S(full_sweep_ms) },
	{ .json = "full_sweep_by", .type = NM_REC_STRP, .off = S(full_sweep_by) },
	{ .json = "sweep_cpu_budget_pct", .type = NM_REC_U64, .off = S(sweep_cpu_budget_pct) },
	{ .json = "senders_tagged_by", .type = NM_REC_STRP, .off = S(senders_tagged_by) },
	{ .json = "kick_at", .type = NM_REC_STRP, .off = S(kick_at),
	  .flags = NM_F_VALID | NM_F_OMIT, .valid = S(kick) },
	{ .json = "kicker", .type = NM_REC_STRP, .off = S(kicker),
	  .flags = NM_F_VALID | NM_F_OMIT, .valid = S(kick) },
};

/*
 * A netns's tcpstall_ metrics (the textfile only): host-wide each series
 * has the label netns, the namespace's name; with one --netns, no label
 * of its own but its state, unless --prom-netns asks for netns="INODE".
 * Written before the interval's, in the fields' order.
 */
static const struct nm_field netns_fields[] = {
	/* first, as the other tools put it: netns="NAME",state="CAUSE" */
	{ .type = NM_REC_STR, .off = N(netns), .prom = "netns", .kind = NM_PROM_LABEL,
	  .flags = NM_F_VALID, .valid = N(labelled) },
	{ .type = NM_REC_U64_BY_NAME, .off = N(stalls), .names = ts_state_names,
	  .nnames = TS_NSTATES, .help = "Ended stalls by cause", .prom = "tcpstall_stalls_total",
	  .kind = NM_PROM_COUNTER, .label = "state" },
	{ .type = NM_REC_U64_BY_NAME, .off = N(stalled_now), .names = ts_state_names,
	  .nnames = TS_NSTATES, .help = "Sockets stalled now, by cause",
	  .prom = "tcpstall_sockets_stalled", .kind = NM_PROM_GAUGE, .label = "state" },
	{ .type = NM_REC_LOG2_HIST, .off = N(hist_us), .aux = N(stall_seconds),
	  .names = ts_state_names, .nnames = TS_NSTATES, .scale = 1e-6, .unit = "seconds",
	  .help = "Durations of ended stalls", .prom = "tcpstall_stall_seconds",
	  .kind = NM_PROM_HISTOGRAM, .label = "state" },
	{ .type = NM_REC_U64, .off = N(ack_storm_flows),
	  .help = "Flows in an ACK storm in the last interval", .prom = "tcpstall_ack_storm_flows",
	  .kind = NM_PROM_GAUGE },
	{ .type = NM_REC_U64, .off = N(cross_cpu_flows),
	  .help = "Flows whose softirq and application CPUs never met in the last interval",
	  .prom = "tcpstall_cross_cpu_flows", .kind = NM_PROM_GAUGE },
	{ .type = NM_REC_U64, .off = N(acks_sent), .help = "Pure ACKs transmitted by watched sockets",
	  .prom = "tcpstall_acks_sent_total", .kind = NM_PROM_COUNTER },
	{ .type = NM_REC_U64, .off = N(acks_owned),
	  .help = "Pure ACKs transmitted while the user thread owned the socket (backlog)",
	  .prom = "tcpstall_acks_owned_total", .kind = NM_PROM_COUNTER },
	{ .type = NM_REC_U64, .off = N(data_segments), .unit = "segments",
	  .help = "Data segments received by watched sockets", .prom = "tcpstall_data_segments_total",
	  .kind = NM_PROM_COUNTER },
};

/*
 * The report's JSON, and the tcpstall_ metrics that are no netns's: the
 * BPF side's drops and the kicks (made in the netns tcpstall runs in
 * only). The metrics' order is the fields' order, whatever the JSON's.
 */
static const struct nm_field interval_fields[] = {
	/* --prom-netns, for several instances in one directory: first, as in netns_fields */
	{ .type = NM_REC_U64, .off = I(netns), .prom = "netns", .kind = NM_PROM_LABEL,
	  .flags = NM_F_VALID, .valid = I(prom_netns) },
	{ .json = "time", .type = NM_REC_U64, .off = I(time), .unit = "seconds" },
	{ .json = "sweeps", .type = NM_REC_U64, .off = I(sweeps) },
	/* the budget stretches the sweeps of a large host: the period it came to */
	{ .json = "sweep_wait_ms", .type = NM_REC_DOUBLE, .off = I(sweep_wait_ms) },
	{ .json = "sockets_stalled", .type = NM_REC_U64, .off = I(sockets_stalled) },
	{ .json = "ack_flows", .type = NM_REC_U64, .off = I(ack_flows) },
	{ .json = "ack_untracked_events", .type = NM_REC_U64, .off = I(ack_untracked_events) },
	{ .json = "ack_storm_flows", .type = NM_REC_U64, .off = I(ack_storm_flows) },
	/* what the socket and ACK records left out: the sinks carry those that matter (--all) */
	{ .json = "sockets_not_shown", .type = NM_REC_U64, .off = I(sockets_not_shown) },
	{ .json = "ack_flows_not_shown", .type = NM_REC_U64, .off = I(ack_flows_not_shown) },
	{ .type = NM_REC_U64, .off = I(backlog_drops), .unit = "segments",
	  .help = "Segments dropped because a socket backlog was full (SKB_DROP_REASON_SOCKET_BACKLOG)",
	  .prom = "tcpstall_backlog_drops_total", .kind = NM_PROM_COUNTER },
	{ .json = "cross_cpu_flows", .type = NM_REC_U64, .off = I(cross_cpu_flows) },
	/* what the swept sockets were doing: samples by state over the interval */
	{ .json = "samples", .type = NM_REC_U64_MAP, .off = I(samples), .names = ts_state_names,
	  .nnames = TS_NSTATES },
	{ .json = "stalls_ended", .type = NM_REC_U64, .off = I(stalls_ended) },
	{ .json = "stalls_unlisted", .type = NM_REC_U64, .off = I(stalls_unlisted) },
	/* since the start: measured by the hooks; lost to a full queue */
	{ .json = "tsq_episodes", .type = NM_REC_U64, .off = I(tsq_episodes),
	  .flags = NM_F_VALID | NM_F_OMIT, .valid = I(episodes) },
	{ .json = "tsq_episodes_lost", .type = NM_REC_U64, .off = I(tsq_episodes_lost),
	  .flags = NM_F_VALID | NM_F_OMIT, .valid = I(episodes) },
	/* since the start: the kick timer's requests; lost to a full ring */
	{ .json = "kick_due", .type = NM_REC_U64, .off = I(kick_due),
	  .flags = NM_F_VALID | NM_F_OMIT, .valid = I(kicker) },
	{ .json = "kick_due_lost", .type = NM_REC_U64, .off = I(kick_due_lost),
	  .flags = NM_F_VALID | NM_F_OMIT, .valid = I(kicker) },
	{ .json = "kicks", .type = NM_REC_U64_MAP, .off = I(kicks), .names = ts_kick_count_names,
	  .nnames = TS_KICK_COUNTS },
	/* the same counts but their sum, "attempted" */
	{ .type = NM_REC_U64_BY_NAME, .off = I(kicks[1]), .names = ts_kick_count_names + 1,
	  .nnames = TS_KICK_NRESULTS, .help = "Kicks of tsq_idle sockets (--fix=kick) by result",
	  .prom = "tcpstall_kicks_total", .kind = NM_PROM_COUNTER, .label = "result" },
	/* the stalls' ages at their kicks, this interval: how soon the remedy acted */
	{ .json = "kick_age_max_ms", .type = NM_REC_DOUBLE, .off = I(kick_age_max_ms),
	  .flags = NM_F_VALID | NM_F_OMIT, .valid = I(kick) },
	{ .json = "kick_age_mean_ms", .type = NM_REC_DOUBLE, .off = I(kick_age_mean_ms),
	  .flags = NM_F_VALID | NM_F_OMIT, .valid = I(kick) },
	{ .type = NM_REC_DOUBLE, .off = I(kick_age_max_seconds), .unit = "seconds",
	  .help = "The oldest stall's age at its kick in the last interval (--fix=kick), 0 if none",
	  .prom = "tcpstall_kick_age_max_seconds", .kind = NM_PROM_GAUGE },
	/* the scope's bounds: namespaces named, swept in full, and what did not fit */
	{ .json = "netns_named", .type = NM_REC_U64, .off = I(netns_named) },
	{ .json = "netns_swept", .type = NM_REC_U64, .off = I(netns_swept) },
	{ .json = "netns_over", .type = NM_REC_U64, .off = I(netns_over) },
};

static const struct nm_field stall_fields[] = {
	TS_FLOW_FIELDS(struct ts_stall_row, 0),
	{ .json = "cause", .type = NM_REC_ENUM, .off = E(cause), .names = ts_state_names,
	  .nnames = TS_NSTATES },
	{ .json = "ms", .type = NM_REC_DOUBLE, .off = E(ms) },
	{ .json = "start_mono_ns", .type = NM_REC_U64, .off = E(start_mono_ns) },
	{ .json = "time", .type = NM_REC_DOUBLE, .off = E(time), .unit = "seconds",
	  .flags = NM_F_JSON_FIXED, .prec = 3 },
	{ .json = "end", .type = NM_REC_ENUM, .off = E(end), .names = ts_end_names,
	  .nnames = TS_END_GONE + 1 },
	{ .json = "by", .type = NM_REC_STRP, .off = E(by) },
};

/* NETNS before the flow, which comes last and whole (lib/record.h's layout) */
static const struct nm_field socket_fields[] = {
	TS_FLOW_FIELDS(struct ts_socket_row, 6),
	{ .json = "state", .type = NM_REC_ENUM, .off = K(state), .names = ts_state_names,
	  .nnames = TS_NSTATES, .col = "STATE", .colno = 1, .width = -14 },
	{ .json = "stalled", .type = NM_REC_BOOL, .off = K(stalled) },
	{ .json = "stalled_ms", .type = NM_REC_DOUBLE, .off = K(stalled_ms), .col = "NOW_MS",
	  .colno = 3, .width = 9, .flags = NM_COL_FIXED, .prec = 1 },
	{ .json = "stalls", .type = NM_REC_U64, .off = K(stalls), .col = "STALLS", .colno = 2,
	  .width = 6 },
	{ .json = "stall_ms_total", .type = NM_REC_DOUBLE, .off = K(stall_ms_total) },
	{ .json = "stall_ms_max", .type = NM_REC_DOUBLE, .off = K(stall_ms_max), .col = "MAX_MS",
	  .colno = 4, .width = 9, .flags = NM_COL_FIXED, .prec = 1 },
	{ .json = "last_cause", .type = NM_REC_ENUM, .off = K(last_cause), .names = ts_state_names,
	  .nnames = TS_NSTATES },
	{ .json = "last_end", .type = NM_REC_ENUM, .off = K(last_end), .names = ts_end_names,
	  .nnames = TS_END_GONE + 1 },
	{ .json = "unsent", .type = NM_REC_U64, .off = K(unsent), .unit = "bytes", .col = "UNSENT",
	  .colno = 5, .width = 8, .flags = NM_COL_COUNT },
	{ .json = "packets_out", .type = NM_REC_U64, .off = K(packets_out), .unit = "packets" },
	{ .json = "cwnd", .type = NM_REC_U64, .off = K(cwnd), .unit = "packets" },
	{ .json = "snd_wnd", .type = NM_REC_U64, .off = K(snd_wnd), .unit = "bytes" },
	{ .json = "tsq_flags", .type = NM_REC_U64, .off = K(tsq_flags) },
	{ .json = "wmem_alloc", .type = NM_REC_U64, .off = K(wmem_alloc), .unit = "bytes" },
	{ .json = "send_age_ms", .type = NM_REC_U64, .off = K(send_age_ms) },
	/* JSON only: a container's path does not fit the table, nor a label */
	{ .json = "cgroup", .type = NM_REC_STR, .off = K(cgroup) },
	{ .json = "cgroup_id", .type = NM_REC_U64, .off = K(cgroup_id) },
	{ .json = "pid", .type = NM_REC_U64, .off = K(pid) },
	{ .json = "comm", .type = NM_REC_STR, .off = K(comm) },
	{ .json = "kicks", .type = NM_REC_U64, .off = K(kicks) },
	{ .json = "last_kick", .type = NM_REC_STRP, .off = K(last_kick) },
	{ .type = NM_REC_STR, .off = K(flow.flow), .col = "FLOW", .colno = 7 },
};

static const struct nm_field acks_fields[] = {
	TS_FLOW_FIELDS(struct ts_acks_row, 7),
	{ .json = "acks_out", .type = NM_REC_U64, .off = A(acks_out), .col = "ACKS", .colno = 2,
	  .width = 7, .flags = NM_COL_COUNT },
	{ .json = "data_segs_in", .type = NM_REC_U64, .off = A(data_segs_in), .unit = "segments",
	  .col = "SEGS", .colno = 3, .width = 7, .flags = NM_COL_COUNT },
	{ .json = "acks_per_seg", .type = NM_REC_DOUBLE, .off = A(acks_per_seg), .col = "ACK/SG",
	  .colno = 4, .width = 6, .flags = NM_COL_FIXED, .prec = 2 },
	{ .json = "acks_owned", .type = NM_REC_U64, .off = A(acks_owned) },
	{ .json = "segs_owned", .type = NM_REC_U64, .off = A(segs_owned), .unit = "segments" },
	{ .json = "owned_ratio", .type = NM_REC_DOUBLE, .off = A(owned_ratio), .col = "OWNED",
	  .colno = 5, .width = 6, .flags = NM_COL_FIXED, .prec = 2 },
	{ .json = "backlog_drops", .type = NM_REC_U64, .off = A(backlog_drops), .unit = "segments",
	  .col = "DROPS", .colno = 6, .width = 5, .flags = NM_COL_COUNT },
	{ .json = "pid", .type = NM_REC_U64, .off = A(pid) },
	{ .json = "comm", .type = NM_REC_STR, .off = A(comm) },
	{ .json = "storm", .type = NM_REC_BOOL, .off = A(storm), .names = storm_cells,
	  .col = "STORM", .colno = 1, .width = -5 },
	{ .json = "causes", .type = NM_REC_STR_ARRAY, .off = A(causes), .aux = A(ncauses),
	  .colno = 9, .flags = NM_COL_JOIN },
	{ .type = NM_REC_STR, .off = A(flow.flow), .col = "FLOW / CAUSES", .colno = 8 },
};

static const struct nm_field placement_fields[] = {
	TS_FLOW_FIELDS(struct ts_placement_row, 0),
	{ .json = "data_segs_in", .type = NM_REC_U64, .off = P(data_segs_in), .unit = "segments" },
	{ .json = "softirq_cpus", .type = NM_REC_BITS, .off = P(softirq_cpus) },
	{ .json = "app_cpus", .type = NM_REC_BITS, .off = P(app_cpus) },
	{ .json = "backlog_share", .type = NM_REC_DOUBLE, .off = P(backlog_share) },
	{ .json = "cross_cpu", .type = NM_REC_BOOL, .off = P(cross_cpu) },
	{ .json = "split_softirq", .type = NM_REC_BOOL, .off = P(split_softirq) },
};

const struct nm_record ts_start_rec = NM_RECORD("start", start_fields);
const struct nm_record ts_interval_rec = NM_RECORD("interval", interval_fields);
const struct nm_record ts_stall_rec = NM_RECORD("stall", stall_fields);
const struct nm_record ts_socket_rec = NM_RECORD("socket", socket_fields);
const struct nm_record ts_acks_rec = NM_RECORD("acks", acks_fields);
const struct nm_record ts_placement_rec = NM_RECORD("placement", placement_fields);
const struct nm_record ts_netns_rec = NM_RECORD("netns", netns_fields);
const struct nm_record *const ts_records[] = {
	&ts_start_rec, &ts_interval_rec, &ts_stall_rec, &ts_socket_rec, &ts_acks_rec,
	&ts_placement_rec, &ts_netns_rec,
};
const int ts_nrecords = sizeof(ts_records) / sizeof(ts_records[0]);

void ts_flow_cols(struct ts_flow_cols *c, const struct ts_key *k, const char *netns)
{
	memset(c, 0, sizeof(*c));
	snprintf(c->netns, sizeof(c->netns), "%s", netns);
	c->netns_ino = k->netns;
	nm_fmt_addr(k->family, k->laddr, c->saddr, sizeof(c->saddr));
	nm_fmt_addr(k->family, k->raddr, c->daddr, sizeof(c->daddr));
	c->sport = k->lport;
	c->dport = k->rport;
	c->proto = "tcp";
	if (k->family == NM_AF_INET6)
		snprintf(c->flow, sizeof(c->flow), "[%s]:%u>[%s]:%u", c->saddr, k->lport, c->daddr,
			 k->rport);
	else
		snprintf(c->flow, sizeof(c->flow), "%s:%u>%s:%u", c->saddr, k->lport, c->daddr,
			 k->rport);
}

void ts_stall_row(struct ts_stall_row *r, const struct ts_key *k, const char *netns,
		  uint64_t start_ns, uint64_t dur_ns, enum ts_state cause, enum ts_end end,
		  const char *by, uint64_t now, double realtime)
{
	memset(r, 0, sizeof(*r));
	ts_flow_cols(&r->flow, k, netns);
	r->cause = cause;
	r->ms = dur_ns / 1e6;
	r->start_mono_ns = start_ns;
	r->time = realtime - (now - start_ns) / 1e9;
	r->end = end;
	r->by = by;
}

void ts_socket_row(struct ts_socket_row *r, const struct ts_key *k, const char *netns,
		   const struct ts_sock *s, const char *cgroup, uint64_t now, uint32_t threshold_ms)
{
	const struct ts_sample *x = &s->last;

	memset(r, 0, sizeof(*r));
	ts_flow_cols(&r->flow, k, netns);
	r->state = s->stall_start_ns ? s->cause : ts_classify(x, threshold_ms);
	r->stalled = s->stall_start_ns;
	if (s->stall_start_ns && now > s->stall_start_ns)
		r->stalled_ms = (now - s->stall_start_ns) / 1e6;
	r->stalls = s->stalls;
	r->stall_ms_total = s->stall_ns_total / 1e6;
	r->stall_ms_max = s->stall_ns_max / 1e6;
	r->last_cause = s->cause;
	r->last_end = s->end;
	r->unsent = x->unsent;
	r->packets_out = x->packets_out;
	r->cwnd = x->snd_cwnd;
	r->snd_wnd = x->snd_wnd;
	r->tsq_flags = x->tsq_flags;
	r->wmem_alloc = x->wmem_alloc;
	r->send_age_ms = x->send_age_ms;
	snprintf(r->cgroup, sizeof(r->cgroup), "%s", cgroup ? cgroup : "?");
	r->cgroup_id = x->cgroup_id;
	r->pid = x->pid;
	if (x->pid)
		snprintf(r->comm, sizeof(r->comm), "%.*s", (int)sizeof(x->comm), x->comm);
	r->kicks = s->kicks;
	r->last_kick = s->kicks ? ts_kick_result_name(s->last_kick) : "none";
}

void ts_acks_row(struct ts_acks_row *r, const struct ts_key *k, const char *netns,
		 const struct ts_acks *d, const struct ts_storm *j)
{
	memset(r, 0, sizeof(*r));
	ts_flow_cols(&r->flow, k, netns);
	r->acks_out = d->acks_out;
	r->data_segs_in = d->segs_in;
	r->acks_per_seg = j->acks_per_seg;
	r->acks_owned = d->acks_owned;
	r->segs_owned = d->segs_owned;
	r->owned_ratio = j->owned_ratio;
	r->backlog_drops = d->backlog_drops;
	r->pid = d->pid;
	if (d->pid)
		snprintf(r->comm, sizeof(r->comm), "%.*s", (int)sizeof(d->comm), d->comm);
	r->storm = j->storm;
	for (int i = 0; i < j->ncauses && i < 4; i++)
		r->causes[r->ncauses++] = j->causes[i];
}

void ts_placement_row(struct ts_placement_row *r, const struct ts_key *k, const char *netns,
		      const struct ts_acks *d, const struct ts_placement *p)
{
	memset(r, 0, sizeof(*r));
	ts_flow_cols(&r->flow, k, netns);
	r->data_segs_in = d->segs_in;
	r->softirq_cpus = p->softirq_cpus;
	r->app_cpus = p->app_cpus;
	r->backlog_share = p->backlog_share;
	r->cross_cpu = p->cross_cpu;
	r->split_softirq = p->split_softirq;
}
