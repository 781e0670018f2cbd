/* SPDX-License-Identifier: GPL-2.0 */
/*
 * tcundo.h - the undo of a tc BPF filter and of its clsact qdisc, kept in
 * a journal as data (records "tc_clsact DEV IFINDEX" and "tc_filter DEV
 * IFINDEX DIR PREF HANDLE", written by the executor of lib/plan.h before
 * it makes the change) and carried out through libbpf.
 *
 * Why not a `tc ... del` command: the record is written before the change,
 * so a crash between the two leaves a record of a change never made, and
 * `tc qdisc del dev X clsact` then fails ("Invalid handle") at every
 * --cleanup, which keeps the journal and refuses every later run. The undo
 * here looks first: a device, qdisc or filter that is not there is
 * restored already.
 */
#ifndef NETMEDIC_LIB_TCUNDO_H
#define NETMEDIC_LIB_TCUNDO_H

#include <stdbool.h>

#define NM_TC_CLSACT_KIND	"tc_clsact"
#define NM_TC_FILTER_KIND	"tc_filter"

/* What the undo of a record does, from what is there now. */
enum nm_tc_undo_step {
	NM_TC_UNDO_DEV_GONE,	/* the device is gone, and its qdiscs and filters with it */
	NM_TC_UNDO_NO_CLSACT,	/* no clsact qdisc: nothing of it, nor its filters, is left */
	NM_TC_UNDO_NO_FILTER,	/* the filter is gone already */
	NM_TC_UNDO_IN_USE,	/* the clsact holds filters (not ours: ours went first): leave it */
	NM_TC_UNDO_DELETE,	/* there: delete it */
};

/*
 * The step for a record of the clsact qdisc (filter false) or of a filter
 * (filter true), given whether the device and a clsact qdisc on it are
 * there, for a filter whether it is, and for the clsact whether it holds
 * any filter (busy). A clsact that netmedic made can since hold another
 * program's filters (a CNI's): deleting it would delete them.
 */
enum nm_tc_undo_step nm_tc_undo_step(bool filter, bool dev, bool clsact, bool found, bool busy);

/*
 * Registers the executors of both record kinds (lib/journal.h), for the
 * undo at exit and for --cleanup. 0 or -errno.
 */
int nm_tc_undo_register(void);

#endif /* NETMEDIC_LIB_TCUNDO_H */
