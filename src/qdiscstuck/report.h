/* SPDX-License-Identifier: GPL-2.0 */
/*
 * qdiscstuck_report.h - one sweep of qdiscstuck, as data: each qdisc of
 * the netlink dump joined with its BPF record, its history across sweeps,
 * the per-queue sums the metrics keep monotonic, and the rows the sinks
 * and the remedies read. Judging (qs_update), ranking and the rows are
 * here; qdiscstuck/collect.c collects (rtnetlink, the BPF maps,
 * sysfs) into it.
 *
 * Host-wide: a qdisc is known by its netns (inode) too, as ifindexes
 * repeat across namespaces; rows, histories and queues are keyed by it.
 *
 * No BPF and no I/O: a device's and a netns's names come from the
 * caller's functions.
 */
#ifndef NETMEDIC_QDISCSTUCK_REPORT_H
#define NETMEDIC_QDISCSTUCK_REPORT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <net/if.h>
#include "qdiscstuck/qdiscstuck.h"
#include "qdiscstuck/judge.h"
#include "qdiscstuck/plan.h"
#include "lib/emit.h"
#include "lib/nsreg.h"
#include "qdiscstuck/records.h"
#include "lib/rtnl.h"

/* qdiscs per sweep, histories, queues */
#define QS_SWEEP_MAX	QS_MAX_QDISCS
/* ok qdiscs shown besides the stuck, driver_stopped, unknown and shaped ones, when --top is not given */
#define QS_REPORT_TOP	20
/* TC_H_ROOT: a root qdisc's parent */
#define QS_TC_H_ROOT	0xffffffffU

/* One qdisc of the netlink dump, joined with its BPF record and its history. */
struct qs_row {
	unsigned long netns;	/* the inode of the netns its dump came from */
	struct nm_qdisc_stats nl;
	struct qs_qdisc bpf;	/* of the qdisc the TX queue runs (itself or an ancestor) */
	bool have_bpf, own_bpf;
	int txq;		/* -1: not one queue (root of a multiqueue device) */
	bool shaper, lockless;
	struct qs_track *t;
};

/* History per qdisc, kept across sweeps; matched by netns, device, parent, handle and kind. */
struct qs_track_ent {
	unsigned long netns;
	unsigned int ifindex;
	uint32_t parent, handle;
	char kind[16];
	bool seen;
	struct qs_fix_done fd;	/* the remedies' (last kick, driver_stopped told, not acted on) */
	struct qs_track t;
};

/* Per device and queue, monotonic for the metrics even when qdiscs come and go. */
struct qs_devq {
	unsigned long netns;
	unsigned int ifindex;
	int txq;
	double bad_s;
	uint64_t entered[QS_NSTATES];
	uint32_t qlen, backlog;
	enum qs_state state;	/* the worst of its qdiscs at this sweep */
	bool present;
};

struct qs_sweep {
	/* the loader's, set once: what the rows show */
	bool all;		/* --all: every tracked qdisc, idle ones too, none cut */
	size_t top;		/* --top: ok ones shown (0: QS_REPORT_TOP) */
	enum qs_sort sort;	/* --sort: the qdiscs of a state ranked by */
	struct qs_row *rows;
	size_t n;
	struct qs_track_ent *tracks;
	size_t ntracks;
	struct qs_devq *dq;
	size_t ndq;
	uint64_t now_ns;
	unsigned long self_ino;	/* the netns the tool runs in: the remedies act there only */
	bool unknown_is_stuck;	/* NETMEDIC_TEST_UNKNOWN=stuck, a test aid (qs_obs) */
	unsigned long over;	/* qdiscs of this sweep's dumps not added: QS_SWEEP_MAX */
	size_t per_state[QS_NSTATES];
	uint64_t counters[QS_CNT_MAX];
	size_t bpf_entries;
	/* what the sinks read: the interval, the qdiscs shown, every queue */
	struct qs_interval_row ival;
	struct qs_qdisc_row *out;
	size_t nout;
	struct qs_queue_row *qrows;
	struct qs_fix_row *fix;		/* the remedies' view of rows[] */
	char (*fix_dev)[IF_NAMESIZE + 8];
	char (*fix_ns)[NM_NS_NAME];
};

/* A device's own name in its own netns, for the rows and the lines (the loader's). */
typedef const char *(*qs_dev_name_fn)(unsigned long netns, unsigned int ifindex, char *buf,
				      size_t len);
/* A netns's name (the loader's: lib/scope.h). */
typedef const char *(*qs_ns_name_fn)(unsigned long netns, char *buf, size_t len);

/* QS_SWEEP_MAX of everything; NULL when out of memory. */
struct qs_sweep *qs_sweep_new(void);
void qs_sweep_free(struct qs_sweep *s);

/*
 * The next qdisc of netns's dump, zeroed but for nl (txq -1); NULL when
 * the sweep is full (counted in over).
 */
struct qs_row *qs_sweep_add(struct qs_sweep *s, unsigned long netns,
			    const struct nm_qdisc_stats *q);
/*
 * The qdisc of the same device (netns and ifindex) whose handle is the
 * major of r's parent; NULL: none (a root).
 */
struct qs_row *qs_sweep_parent(struct qs_sweep *s, const struct qs_row *r);

/*
 * Netns ino left the scope (its socket closed): its queues' metrics go
 * with it, so that a host whose containers come and go keeps its room.
 */
void qs_sweep_forget_ns(struct qs_sweep *s, unsigned long ino);

/* What qs_update sees of a joined row at now_ns. */
void qs_row_observe(const struct qs_row *r, uint64_t now_ns, struct qs_obs *o);

/*
 * Each qdisc judged against its history (threshold_ns), a mq root aside
 * (it only sums its children); the queues' sums moved on; the histories
 * of qdiscs gone forgotten.
 */
void qs_sweep_judge(struct qs_sweep *s, uint64_t threshold_ns);
/*
 * The judged rows worst first: stuck, driver_stopped, unknown, shaped, ok, idle;
 * within a state by the sort key, its ties by the default key's order
 * (qlen, bytes, deq), theirs by netns, ifindex, parent and handle. The
 * untracked rows (mq roots) last.
 */
void qs_sweep_rank(struct qs_sweep *s);

/*
 * The rows the sinks read, from the ranked sweep: the interval, the
 * qdiscs shown, every queue's. Shown: every stuck, driver_stopped, unknown
 * and shaped qdisc, and the first top of the others with a backlog or
 * traffic (ok); the interval counts those left out (qdiscs_not_shown).
 * With all: every tracked qdisc, idle ones too, and none is left out.
 */
void qs_sweep_rows(struct qs_sweep *s, qs_dev_name_fn dev, qs_ns_name_fn ns);
/* What a report holds: the interval, the qdiscs shown; for the textfile every queue's metrics. */
void qs_sweep_emit(const struct qs_sweep *s, struct nm_emit *e);
/*
 * The remedies' view of each row (s->fix, s->n of them), for
 * qs_act_remedies: a row of another netns than self_ino's is elsewhere.
 */
void qs_sweep_fix_rows(struct qs_sweep *s, qs_dev_name_fn dev, qs_ns_name_fn ns);

#endif
