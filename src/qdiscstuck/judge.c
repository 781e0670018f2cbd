// SPDX-License-Identifier: GPL-2.0
/*
 * qdiscstuck decisions. The order of the tests below is the order of the
 * questions an engineer asks: is there a backlog; can the driver take
 * packets at all; is a shaper holding them on purpose; did anything move;
 * and if not, will the kernel run this qdisc again on its own. Where the
 * TX queue's state could not be read, that last answer is not known, and
 * the state says so (unknown) rather than guess stuck.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "qdiscstuck/judge.h"

const char *const qs_state_names[QS_NSTATES] = {
	[QS_OK] = "ok",
	[QS_IDLE] = "idle",
	[QS_SHAPED] = "shaped",
	[QS_DRIVER_STOPPED] = "driver_stopped",
	[QS_STUCK] = "stuck",
	[QS_UNKNOWN] = "unknown",
};

const char *const qs_sort_names[QS_NR_SORTS] = {
	[QS_SORT_QLEN] = "qlen", [QS_SORT_BYTES] = "bytes", [QS_SORT_DEQ] = "deq",
	[QS_SORT_MS] = "ms", [QS_SORT_DROPS] = "drops",
};

enum qs_state qs_state_worse(enum qs_state a, enum qs_state b)
{
	static const int rank[QS_NSTATES] = {
		[QS_IDLE] = 0, [QS_OK] = 1, [QS_SHAPED] = 2, [QS_UNKNOWN] = 3, [QS_DRIVER_STOPPED] = 4,
		[QS_STUCK] = 5,
	};

	if (a >= QS_NSTATES)
		return b;
	if (b >= QS_NSTATES)
		return a;
	return rank[b] > rank[a] ? b : a;
}

const char *qs_state_name(enum qs_state s)
{
	return s < QS_NSTATES ? qs_state_names[s] : "?";
}

bool qs_kind_is_mq(const char *kind)
{
	return !strcmp(kind, "mq") || !strcmp(kind, "mqprio");
}

bool qs_kind_is_shaper(const char *kind)
{
	static const char *const shapers[] = { "tbf", "htb", "hfsc", "cbq", "fq", "netem", "cbs",
					       "taprio", "etf", "sfb", "cake", NULL };

	for (int i = 0; shapers[i]; i++)
		if (!strcmp(kind, shapers[i]))
			return true;
	return false;
}

const char *qs_locked_twin(const char *kind)
{
	/* pfifo_fast is the lockless default: pfifo keeps its FIFO order under the root lock */
	if (!strcmp(kind, "pfifo_fast"))
		return "pfifo";
	return NULL;
}

/*
 * When the counters moved with no newer dequeue: packets went by the
 * bypass (an empty qdisc sends without a dequeue), at some time since the
 * last sweep. A qdisc that holds packets now and was enqueued to after its
 * last dequeue has not been empty since that enqueue, so no bypass came
 * later: the enqueue dates the progress. Otherwise only the sweep does.
 */
static uint64_t bypass_progress_ns(const struct qs_track *t, const struct qs_obs *o)
{
	if (o->have_events && o->qlen && o->last_enq_ns > o->last_deq_ns &&
	    o->last_enq_ns > t->last_progress_ns && o->last_enq_ns < o->now_ns)
		return o->last_enq_ns;
	return o->now_ns;
}

/* Progress since the last sweep, from the counters or the dequeue events. */
static bool progressed(struct qs_track *t, const struct qs_obs *o)
{
	bool moved = o->packets != t->packets;	/* a replaced qdisc restarts its counter */

	if (o->have_events && o->last_deq_ns > t->last_progress_ns) {
		t->last_progress_ns = o->last_deq_ns;
		return true;
	}
	if (moved)
		t->last_progress_ns = bypass_progress_ns(t, o);
	return moved;
}

static void rates(struct qs_track *t, const struct qs_obs *o)
{
	double dt = (o->now_ns - t->last_sweep_ns) / 1e9;

	t->deq_rate = dt > 0 && o->packets >= t->packets ? (o->packets - t->packets) / dt : 0;
	t->requeue_rate = dt > 0 && o->requeues >= t->requeues ? (o->requeues - t->requeues) / dt : 0;
}

/*
 * The TX queue state to judge by: the sampler's, else the one the last
 * empty dequeue saw (a queue that was woken since would have run the
 * qdisc, and that dequeue would be newer).
 */
static void txq_state(struct qs_track *t, const struct qs_obs *o)
{
	t->txq_state_known = o->sampled || (o->have_events && o->last_was_null);
	t->txq_state = o->sampled ? o->txq_state : o->last_was_null ? o->null_txq_state : 0;
}

static enum qs_state classify(struct qs_track *t, const struct qs_obs *o, bool moved,
			      uint64_t threshold_ns)
{
	/* an event may be newer than the sweep's clock reading */
	uint64_t age = o->now_ns > t->last_progress_ns ? o->now_ns - t->last_progress_ns : 0;

	if (!o->qlen)
		return moved ? QS_OK : QS_IDLE;
	if (t->txq_state & QS_TXQ_STOPPED)
		return age >= threshold_ns ? QS_DRIVER_STOPPED : QS_OK;
	if (o->shaper) {
		/*
		 * Seen arming its watchdog (fentry rung): shaped while the timer
		 * is due, or due less than the threshold ago (its run may be
		 * late). A timer due long ago with no progress since means
		 * nothing ran the shaper when it fired: judged below.
		 */
		if (o->wd_expires_ns && o->now_ns < o->wd_expires_ns + threshold_ns)
			return QS_SHAPED;
		/*
		 * Without the timer in view: a shaper that answered its last
		 * dequeue with nothing, on a queue that can take packets, has
		 * armed its watchdog (what the kernel's timer shapers do when
		 * they hold a backlog).
		 */
		if (!o->wd_expires_ns && o->have_events && o->last_was_null)
			return QS_SHAPED;
		/*
		 * No dequeue of it seen yet (met by the seed, holding a backlog
		 * from before the start): a slow shaper's next one waits for its
		 * timer, 1.5 s a packet at 8 kbit, and is the first event there
		 * is to judge by. Presumed shaped until then, as after an empty
		 * one: stuck needs a dequeue that gave a packet, then silence.
		 */
		if (!o->wd_expires_ns && !o->deq_seen)
			return QS_SHAPED;
		if (age < threshold_ns)
			return QS_SHAPED;
	}
	if (age < threshold_ns)
		return QS_OK;
	/* scheduled or running: NET_TX will dequeue it (late, but not stuck) */
	if (o->sampled && ((o->q_state & QS_Q_SCHED) || o->running))
		return QS_OK;
	/*
	 * Neither sampled nor seen answering a dequeue with nothing: a driver
	 * that stopped its queue looks just like the lockless race, and to call
	 * it stuck would be a guess (a false alarm, and a kick to no purpose)
	 */
	if (!t->txq_state_known && !o->unknown_is_stuck)
		return QS_UNKNOWN;
	return QS_STUCK;
}

/* The states of a backlog that did not move for the threshold. */
static bool no_progress(enum qs_state s)
{
	return s == QS_STUCK || s == QS_DRIVER_STOPPED || s == QS_UNKNOWN;
}

enum qs_state qs_update(struct qs_track *t, const struct qs_obs *o, uint64_t threshold_ns)
{
	enum qs_state s;
	bool moved;

	if (!t->init) {
		/* first sight: nothing is known to have moved before now */
		memset(t, 0, sizeof(*t));
		t->first_ns = o->now_ns;
		t->first_deq_known = o->have_events && o->last_deq_ns;
		t->last_progress_ns = t->first_deq_known ? o->last_deq_ns : o->now_ns;
		t->last_sweep_ns = o->now_ns;
		t->packets = o->packets;
		t->requeues = o->requeues;
		moved = false;
	} else {
		moved = progressed(t, o);
		rates(t, o);
		if (no_progress(t->state))
			t->bad_ns += o->now_ns - t->last_sweep_ns;
	}
	txq_state(t, o);
	s = classify(t, o, moved, threshold_ns);
	if (!t->init || s != t->state) {
		/* a stopped or stuck state started when progress stopped, not at this sweep */
		if (no_progress(s))
			t->since_ns = t->last_progress_ns;
		else
			t->since_ns = o->now_ns;
		t->entered[s]++;
	}
	t->init = true;
	t->state = s;
	t->last_sweep_ns = o->now_ns;
	t->packets = o->packets;
	t->requeues = o->requeues;
	return s;
}

bool qs_kick_due(const struct qs_track *t, uint64_t last_kick_ns, uint64_t now_ns,
		 uint64_t retry_ns)
{
	if (!t->init || t->state != QS_STUCK)
		return false;
	/*
	 * since_ns of a stall is its last progress: a stall that began after
	 * the last kick is a new one (the kick worked, then the qdisc got
	 * stuck again), and waiting out the retry would leave it stuck for
	 * no reason.
	 */
	if (!last_kick_ns || t->since_ns > last_kick_ns)
		return true;
	return now_ns - last_kick_ns >= retry_ns;
}

uint64_t qs_state_ms(const struct qs_track *t, uint64_t now_ns)
{
	return now_ns > t->since_ns ? (now_ns - t->since_ns) / 1000000 : 0;
}

bool qs_state_since_start(const struct qs_track *t)
{
	return t->init && !t->first_deq_known && t->since_ns == t->first_ns;
}

const char *qs_txq_state_str(uint32_t state, char *buf, size_t len)
{
	static const char *const bits[] = { "DRV_XOFF", "STACK_XOFF", "FROZEN" };
	size_t off = 0;

	buf[0] = 0;
	for (int i = 0; i < 3; i++)
		if (state & (1U << i) && off < len)
			off += snprintf(buf + off, len - off, "%s%s", off ? "|" : "", bits[i]);
	if (!off)
		snprintf(buf, len, "-");
	return buf;
}

const char *qs_fmt_handle(uint32_t h, char *buf, size_t len)
{
	if (h & 0xffff)
		snprintf(buf, len, "%x:%x", h >> 16, h & 0xffff);
	else
		snprintf(buf, len, "%x:", h >> 16);
	return buf;
}

int qs_lock_cmds(struct qs_lock_cmd *c, const char *dev, uint32_t parent, uint32_t handle,
		 const char *kind, int limit)
{
	const char *twin = qs_locked_twin(kind);
	int d = 0, u = 0;

	if (!twin)
		return -EINVAL;
	qs_fmt_parent(parent, c->parent, sizeof(c->parent));
	qs_fmt_handle(handle, c->handle, sizeof(c->handle));
	snprintf(c->limit, sizeof(c->limit), "%d", limit);
	for (const char *const *w = (const char *const[]){ "tc", "qdisc", "replace", "dev", dev, NULL }; *w; w++)
		c->do_argv[d++] = c->undo_argv[u++] = *w;
	/* qs_fmt_parent says "root" for the root, and tc takes "root" alone */
	if (parent != 0xffffffffU)
		c->do_argv[d++] = c->undo_argv[u++] = "parent";
	c->do_argv[d++] = c->undo_argv[u++] = c->parent;
	c->do_argv[d++] = twin;
	c->do_argv[d++] = "limit";
	c->do_argv[d++] = c->limit;
	c->do_argv[d] = NULL;
	if (handle >> 16) {
		c->undo_argv[u++] = "handle";
		c->undo_argv[u++] = c->handle;
	}
	c->undo_argv[u++] = kind;
	c->undo_argv[u] = NULL;
	return 0;
}

const char *qs_fmt_parent(uint32_t p, char *buf, size_t len)
{
	if (p == 0xffffffffU)
		snprintf(buf, len, "root");
	else
		snprintf(buf, len, "%x:%x", p >> 16, p & 0xffff);
	return buf;
}

int qs_mq_child_queue(uint32_t parent, uint32_t mq_handle)
{
	if (parent == 0xffffffffU || (parent & 0xffff0000U) != (mq_handle & 0xffff0000U))
		return -1;
	return (parent & 0xffff) ? (int)(parent & 0xffff) - 1 : -1;
}

int qs_row_txq(const struct qs_txq_facts *f)
{
	int q = f->under_mq ? qs_mq_child_queue(f->mq_child_parent, f->mq_handle) : -1;

	if (q >= 0)
		return q;
	/* real_num_tx_queues is never more than num_tx_queues: either 1 says one queue */
	return f->num_txq == 1 || f->real_txq == 1 ? 0 : -1;
}

/*
 * The parent is the qdisc whose handle is the major of child_parent. A
 * device's default qdiscs have handle 0: the mq root (0:) and each child
 * it made (0:, parent 0:N). Only the root of them is a parent (the kernel
 * resolves major 0 to the root, and classless children have no classes);
 * matching by handle alone takes a sibling for the parent whenever it
 * comes first in the dump.
 */
bool qs_is_parent_qdisc(uint32_t handle, uint32_t parent, uint32_t child_parent)
{
	if (child_parent == 0xffffffffU || handle != (child_parent & 0xffff0000U))
		return false;
	return handle || parent == 0xffffffffU;
}

int qs_parse_dev_queue(const char *s, char *dev, size_t devlen, unsigned int *queue)
{
	const char *colon = strrchr(s, ':');
	char *end;
	long q;

	if (!colon || colon == s || (size_t)(colon - s) >= devlen || !colon[1])
		return -1;
	errno = 0;
	q = strtol(colon + 1, &end, 10);
	if (errno || *end || q < 0 || q > 65535)
		return -1;
	memcpy(dev, s, colon - s);
	dev[colon - s] = 0;
	*queue = q;
	return 0;
}

uint64_t qs_xps_mask(char *buf)
{
	uint64_t mask = 0;
	int shift = 0;
	char *c;

	/* "00000000,00000003": 32-bit words, most significant first */
	for (c = buf + strlen(buf); c > buf && shift < 64; shift += 32) {
		char *start = c;

		while (start > buf && start[-1] != ',')
			start--;
		mask |= (uint64_t)strtoul(start, NULL, 16) << shift;
		c = start > buf ? start - 1 : buf;
		if (c > buf)
			*c = 0;
	}
	return mask;
}
