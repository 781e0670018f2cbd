// SPDX-License-Identifier: GPL-2.0
/* qdiscstuck's records as field tables: JSON, table and textfile come from here. */
#include <stddef.h>
#include <stdio.h>
#include <string.h>

#include "lib/output.h"
#include "qdiscstuck/records.h"
#include "lib/selfstats.h"

#define S(f)	offsetof(struct qs_start_row, f)
#define I(f)	offsetof(struct qs_interval_row, f)
#define Q(f)	offsetof(struct qs_qdisc_row, f)
#define K(f)	offsetof(struct qs_kick_row, f)
#define D(f)	offsetof(struct qs_queue_row, f)

/* MS's mark: the state held when qdiscstuck first saw the qdisc */
static const char *const since_cells[] = { "", "+" };

static const struct nm_field start_fields[] = {
	{ .json = "tool", .type = NM_REC_STRP, .off = S(tool) },
	{ .json = "kernel", .type = NM_REC_STRP, .off = S(kernel) },
	NM_SELF_HOOK_FIELDS(struct qs_start_row),
	{ .json = "interval", .type = NM_REC_DOUBLE, .off = S(interval), .unit = "seconds" },
	{ .json = "threshold_ms", .type = NM_REC_U64, .off = S(threshold_ms) },
	{ .json = "devices", .type = NM_REC_STRP, .off = S(devices) },
	{ .json = "fix_kick", .type = NM_REC_BOOL, .off = S(fix_kick) },
	{ .json = "fix_lock", .type = NM_REC_BOOL, .off = S(fix_lock) },
	{ .json = "netns", .type = NM_REC_STRP, .off = S(netns) },
	{ .json = "names_lost", .type = NM_REC_STRP, .off = S(names_lost) },
};

static const struct nm_field interval_fields[] = {
	{ .json = "time", .type = NM_REC_U64, .off = I(time), .unit = "seconds" },
	/* the clock of the BPF side and of ktime_get_ns() */
	{ .json = "mono_ns", .type = NM_REC_U64, .off = I(mono_ns) },
	{ .json = "qdiscs", .type = NM_REC_U64, .off = I(qdiscs) },
	/* one key per state: "ok":3,"idle":1,... */
	{ .json = "", .type = NM_REC_U64_BY_NAME, .off = I(per_state), .names = qs_state_names,
	  .nnames = QS_NSTATES, .help = "Qdiscs in each state at the last report",
	  .prom = "qdiscstuck_qdiscs", .kind = NM_PROM_GAUGE, .label = "state" },
	/* ok qdiscs beyond --top; no metric, as xpsflap's flows_not_shown: the states count them */
	{ .json = "qdiscs_not_shown", .type = NM_REC_U64, .off = I(qdiscs_not_shown) },
	/* the scope's bounds: namespaces dumped, and what did not fit or failed */
	{ .json = "netns_swept", .type = NM_REC_U64, .off = I(netns_swept) },
	{ .json = "netns_over", .type = NM_REC_U64, .off = I(netns_over) },
	{ .json = "netns_failed", .type = NM_REC_U64, .off = I(netns_failed) },
	{ .json = "devices_over", .type = NM_REC_U64, .off = I(devices_over) },
	{ .json = "qdiscs_over", .type = NM_REC_U64, .off = I(qdiscs_over) },
};

static const struct nm_field qdisc_fields[] = {
	{ .json = "dev", .type = NM_REC_STR, .off = Q(dev), .col = "DEV", .colno = 1, .width = -8 },
	{ .json = "netns", .type = NM_REC_STR, .off = Q(netns), .col = "NETNS", .colno = 2,
	  .width = -10 },
	{ .json = "netns_ino", .type = NM_REC_U64, .off = Q(netns_ino) },
	{ .json = "handle", .type = NM_REC_STR, .off = Q(handle), .col = "HANDLE", .colno = 3,
	  .width = -6 },
	{ .json = "parent", .type = NM_REC_STR, .off = Q(parent), .col = "PARENT", .colno = 4,
	  .width = -6 },
	{ .json = "kind", .type = NM_REC_STR, .off = Q(kind), .col = "KIND", .colno = 5,
	  .width = -10 },
	{ .json = "txq", .type = NM_REC_I64, .off = Q(txq), .flags = NM_F_VALID,
	  .valid = Q(has_txq), .absent = "all", .col = "TXQ", .colno = 6, .width = -3 },
	{ .json = "qlen", .type = NM_REC_U64, .off = Q(qlen), .unit = "packets", .col = "QLEN",
	  .colno = 7, .width = 6, .flags = NM_COL_COUNT },
	{ .json = "backlog_bytes", .type = NM_REC_U64, .off = Q(backlog_bytes), .unit = "bytes",
	  .col = "BYTES", .colno = 8, .width = 8, .flags = NM_COL_COUNT },
	{ .json = "state", .type = NM_REC_ENUM, .off = Q(state), .names = qs_state_names,
	  .nnames = QS_NSTATES, .col = "STATE", .colno = 9, .width = -14 },
	{ .json = "state_ms", .type = NM_REC_U64, .off = Q(state_ms), .col = "MS", .colno = 10,
	  .width = 7 },
	/* "1860 +": at least that long, counted from qdiscstuck's first sight */
	{ .json = "state_since_start", .type = NM_REC_BOOL, .off = Q(state_since_start),
	  .names = since_cells, .nnames = 2, .colno = 11, .flags = NM_COL_JOIN },
	{ .json = "txq_state", .type = NM_REC_U64, .off = Q(txq_state), .flags = NM_F_VALID,
	  .valid = Q(txq_state_known) },
	{ .json = "txq_state_names", .type = NM_REC_STR, .off = Q(txq_state_names),
	  .flags = NM_F_VALID | NM_F_OMIT, .valid = Q(txq_state_known), .absent = "?",
	  .col = "TXQ_STATE", .colno = 13 },
	{ .json = "dequeue_rate", .type = NM_REC_DOUBLE, .off = Q(dequeue_rate), .col = "DEQ/S",
	  .colno = 12, .width = 7, .flags = NM_COL_FIXED, .prec = 0 },
	{ .json = "requeue_rate", .type = NM_REC_DOUBLE, .off = Q(requeue_rate) },
	{ .json = "packets", .type = NM_REC_U64, .off = Q(packets), .unit = "packets" },
	{ .json = "drops", .type = NM_REC_U64, .off = Q(drops), .unit = "packets" },
	{ .json = "requeues", .type = NM_REC_U64, .off = Q(requeues) },
	{ .json = "lockless", .type = NM_REC_BOOL, .off = Q(lockless) },
	{ .json = "events", .type = NM_REC_BOOL, .off = Q(events) },
	{ .json = "scheduled", .type = NM_REC_BOOL, .off = Q(scheduled),
	  .flags = NM_F_VALID | NM_F_OMIT, .valid = Q(sampled) },
	{ .json = "missed", .type = NM_REC_BOOL, .off = Q(missed), .flags = NM_F_VALID | NM_F_OMIT,
	  .valid = Q(sampled) },
	{ .json = "running", .type = NM_REC_BOOL, .off = Q(running),
	  .flags = NM_F_VALID | NM_F_OMIT, .valid = Q(sampled) },
	{ .json = "watchdog_ms", .type = NM_REC_I64, .off = Q(watchdog_ms), .flags = NM_F_VALID,
	  .valid = Q(has_watchdog) },
};

static const struct nm_field kick_fields[] = {
	{ .json = "mono_ns", .type = NM_REC_U64, .off = K(mono_ns) },
	{ .json = "dev", .type = NM_REC_STR, .off = K(dev) },
	{ .json = "txq", .type = NM_REC_U32, .off = K(txq) },
	{ .json = "reached", .type = NM_REC_BOOL, .off = K(reached) },
	{ .json = "attempts", .type = NM_REC_U64, .off = K(attempts) },
	{ .json = "stray", .type = NM_REC_U64, .off = K(stray) },
	{ .json = "why", .type = NM_REC_STRP, .off = K(why) },
};

/*
 * Kept per device and queue across sweeps: monotonic while qdiscs come and
 * go. Labels bounded by the host's namespaces and devices, in the order
 * node_exporter gives them (by name), so that a grep finds both.
 */
static const struct nm_field queue_fields[] = {
	{ .type = NM_REC_STR, .off = D(device), .prom = "device", .kind = NM_PROM_LABEL },
	{ .type = NM_REC_STR, .off = D(netns), .prom = "netns", .kind = NM_PROM_LABEL },
	{ .type = NM_REC_STR, .off = D(queue), .prom = "queue", .kind = NM_PROM_LABEL },
	{ .type = NM_REC_DOUBLE, .off = D(stuck_seconds), .unit = "seconds",
	  .help = "Seconds a qdisc of the queue held packets without progress (stuck, driver_stopped or unknown)",
	  .prom = "qdiscstuck_stuck_seconds_total", .kind = NM_PROM_COUNTER },
	{ .type = NM_REC_U64, .off = D(backlog_packets), .unit = "packets",
	  .help = "Packets queued in the queue's qdisc", .prom = "qdiscstuck_backlog_packets",
	  .kind = NM_PROM_GAUGE, .flags = NM_F_VALID, .valid = D(present) },
	{ .type = NM_REC_U64, .off = D(backlog_bytes), .unit = "bytes",
	  .help = "Bytes queued in the queue's qdisc", .prom = "qdiscstuck_backlog_bytes",
	  .kind = NM_PROM_GAUGE, .flags = NM_F_VALID, .valid = D(present) },
	{ .type = NM_REC_U64_BY_NAME, .off = D(entered), .names = qs_state_names,
	  .nnames = QS_NSTATES, .help = "Times a qdisc of the device entered a state",
	  .prom = "qdiscstuck_events_total", .kind = NM_PROM_COUNTER, .by = "device,netns",
	  .label = "state" },
	/* a state set: which queue is sick, for an alert that names it */
	{ .type = NM_REC_ENUM, .off = D(state), .names = qs_state_names, .nnames = QS_NSTATES,
	  .help = "1 for the state the TX queue is in now (the worst of its qdiscs)",
	  .prom = "qdiscstuck_queue_state", .kind = NM_PROM_GAUGE, .label = "state",
	  .flags = NM_F_VALID, .valid = D(present) },
};

const struct nm_record qs_start_rec = NM_RECORD("start", start_fields);
const struct nm_record qs_interval_rec = NM_RECORD("interval", interval_fields);
const struct nm_record qs_qdisc_rec = NM_RECORD("qdisc", qdisc_fields);
const struct nm_record qs_kick_rec = NM_RECORD("kick", kick_fields);
const struct nm_record qs_queue_rec = NM_RECORD("queue", queue_fields);
const struct nm_record *const qs_records[] = {
	&qs_start_rec, &qs_interval_rec, &qs_qdisc_rec, &qs_kick_rec, &qs_queue_rec,
};
const int qs_nrecords = sizeof(qs_records) / sizeof(qs_records[0]);

void qs_qdisc_row(struct qs_qdisc_row *r, const char *dev, const char *netns,
		  unsigned long netns_ino, const struct nm_qdisc_stats *nl,
		  const struct qs_track *t, const struct qs_qdisc *bpf, int txq, bool lockless,
		  uint64_t now_ns)
{
	memset(r, 0, sizeof(*r));
	snprintf(r->dev, sizeof(r->dev), "%s", dev);
	snprintf(r->netns, sizeof(r->netns), "%s", netns);
	r->netns_ino = netns_ino;
	qs_fmt_handle(nl->handle, r->handle, sizeof(r->handle));
	qs_fmt_parent(nl->parent, r->parent, sizeof(r->parent));
	snprintf(r->kind, sizeof(r->kind), "%s", nl->kind);
	r->has_txq = txq >= 0;
	r->txq = txq;
	r->qlen = nl->qlen;
	r->backlog_bytes = nl->backlog;
	r->state = t->state;
	r->state_ms = qs_state_ms(t, now_ns);
	r->state_since_start = qs_state_since_start(t);
	r->txq_state_known = t->txq_state_known;
	r->txq_state = t->txq_state;
	if (t->txq_state_known)
		qs_txq_state_str(t->txq_state, r->txq_state_names, sizeof(r->txq_state_names));
	r->dequeue_rate = t->deq_rate;
	r->requeue_rate = t->requeue_rate;
	r->packets = nl->packets;
	r->drops = nl->drops;
	r->requeues = nl->requeues;
	r->lockless = lockless;
	r->events = bpf;
	r->sampled = bpf && bpf->sample_ns;
	r->scheduled = r->sampled && (bpf->s_state & QS_Q_SCHED);
	r->missed = r->sampled && (bpf->s_state & QS_Q_MISSED);
	r->running = r->sampled && bpf->s_running;
	r->has_watchdog = bpf && bpf->wd_expires_ns;
	if (r->has_watchdog)
		r->watchdog_ms = ((int64_t)bpf->wd_expires_ns - (int64_t)now_ns) / 1000000;
}
