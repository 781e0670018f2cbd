// SPDX-License-Identifier: GPL-2.0
/* tcpstall's hook ladder (tcpstall_hooks.h): the rungs by program name, and what they can do. */
#include <stdio.h>
#include <linux/bpf.h>
#include "tcpstall/plan.h"
#include "tcpstall/hooks.h"
#include "tcpstall/kickfd.h"
#include "tcpstall/tcpstall.h"

#define TS_HELPER_STORAGE	{ BPF_FUNC_sk_storage_get, "bpf_sk_storage_get" }

const struct nm_hook_decl ts_hook_decls[TS_NR_HOOKS] = {
	/* the stall side's data: every socket with something to send, every second */
	[TS_HOOK_SWEEP] = { "sweep", 0, {
		{ .progs = { "ts_sweep" }, .can = TS_CAN_ITER },
		/*
		 * Where iterators are refused: sock_diag, no BPF. It cannot read TSQ
		 * flags, pacing or Nagle state (ts_sample_from_diag), so it never says
		 * tsq_idle or host_queue, and it walks the whole socket table.
		 */
		{ .virt = "sock_diag", .can = TS_CAN_DIAG },
	} },
	/*
	 * Between full sweeps, every --sweep ms: the sockets tagged as senders.
	 * Rung 1 walks the tags themselves; rung 2, where map iterators are
	 * refused, walks every socket and samples the tagged ones.
	 */
	[TS_HOOK_FAST] = { "fast_sweep", 0, {
		/* the tags are socket storage, which iterators may use since 5.11 */
		{ .progs = { "ts_sweep_tagged" }, .can = TS_CAN_TAG_MAP, .helper = TS_HELPER_STORAGE },
		{ .progs = { "ts_sweep_fast" }, .can = TS_CAN_TAG_SWEEP, .helper = TS_HELPER_STORAGE },
		{ .lost = "every sweep samples every socket" },
	} },
	/*
	 * Where fexit is allowed, tcp_push/tcp_wfree date a tsq_idle stall
	 * exactly, else its start comes from lsndtime.
	 */
	[TS_HOOK_PUSH] = { "tcp_push", 0, {
		/* --fix=kick: the same, and each episode arms its kick timer (bpf_timer: 5.15+) */
		{ .progs = { "ts_push_exit_kick", "ts_wfree_exit_kick" },
		  .can = TS_CAN_EXACT | TS_CAN_KICK_TIMER | TS_CAN_TAG, .when = TS_WANT_KICK },
		{ .progs = { "ts_push_exit", "ts_wfree_exit" }, .can = TS_CAN_EXACT | TS_CAN_TAG },
		/* no fexit (arm64 before 6.4): kprobes, which neither tag nor arm a timer */
		{ .progs = { "ts_push_kp", "ts_push_krp", "ts_wfree_kp", "ts_wfree_krp" },
		  .can = TS_CAN_EXACT },
		{ .virt = "iter/tcp" },
	} },
	[TS_HOOK_RELEASE] = { "__release_sock", 0, {
		{ .progs = { "ts_release_enter", "ts_release_exit" }, .can = TS_CAN_OWNED },
		/* no fentry (arm64 before 6.4): a kretprobe may be missed, so a mark ages out */
		{ .progs = { "ts_release_kp", "ts_release_krp" }, .can = TS_CAN_OWNED | TS_CAN_MISSABLE },
		{ .virt = "sk_lock.owned@tcp_probe" },
	} },
	/* with it, a closing socket gives its ACK slot back */
	[TS_HOOK_RCV] = { "tcp_rcv", 0, {
		{ .progs = { "ts_rcv_tp", "ts_state_tp" } },
		{ .progs = { "ts_rcv_raw", "ts_state_raw" } },
		{ .lost = "received segments are not counted: no ACK storm or CPU placement verdicts" },
	} },
	[TS_HOOK_ACK] = { "ack_xmit", 0, {
		/* tp_btf/net_dev_queue: it reaches the socket's storage, to tag it */
		{ .progs = { "ts_queue_tp" }, .can = TS_CAN_TAG },
		{ .progs = { "ts_queue_raw" } },
		{ .lost = "pure ACKs are not counted: no ACK storm verdicts" },
	} },
	[TS_HOOK_DROP] = { "backlog_drop", 0, {
		/* the drop reason: kfree_skb's third argument, 5.17+ (5.10 has neither) */
		{ .progs = { "ts_drop_tp" }, .enumval = "SKB_DROP_REASON_SOCKET_BACKLOG" },
		{ .lost = "backlog drops are not counted" },
	} },
	/* the reader's CPU; before 6.3 only backlog runs tell it */
	[TS_HOOK_APP] = { "app_io", 0, {
		{ .progs = { "ts_recv_len_tp", "ts_send_len_tp" }, .can = TS_CAN_APP | TS_CAN_TAG },
		{ .virt = "sk_lock.owned@tcp_probe" },
	} },
	/* --fix=kick only, as xpsflap's pin: the remedy's companion program */
	[TS_HOOK_KICK] = { "kick", TS_WANT_KICK, {
		{ .progs = { "ts_kick" }, .can = TS_CAN_KICK },
		/*
		 * Where iter/tcp may not set socket options (before 5.15): the
		 * same steps from userspace, on the socket taken from the process
		 * that holds it (5.6+, CAP_SYS_PTRACE). A socket no process holds
		 * cannot be kicked so.
		 */
		{ .virt = TS_KICKFD_LABEL, .can = TS_CAN_KICK_FD },
		{ .lost = "--fix=kick is not available on this kernel: tsq_idle sockets are not kicked",
		  .lost_why = true },
	} },
};

/* every program of tcpstall.bpf.o sits on a rung above */
const char *const ts_hook_companions[] = { NULL };

const struct nm_hook_table tcpstall_hooks = {
	.tool = "tcpstall", .decls = ts_hook_decls, .n = TS_NR_HOOKS,
	.companions = ts_hook_companions,
};

unsigned int ts_hooks_want(unsigned int fix)
{
	return fix & TS_FIX_KICK ? TS_WANT_KICK : 0;
}

unsigned int ts_hooks_release(const struct nm_hook *hooks)
{
	const struct nm_hook *h = &hooks[TS_HOOK_RELEASE];

	if (!nm_hook_can(h, TS_CAN_OWNED))
		return TS_RELEASE_OWNER_BIT;
	return nm_hook_can(h, TS_CAN_MISSABLE) ? TS_RELEASE_MISSABLE : TS_RELEASE_EXIT;
}

bool ts_hooks_exact(const struct nm_hook *hooks)
{
	return nm_hook_can(&hooks[TS_HOOK_PUSH], TS_CAN_EXACT);
}

bool ts_hooks_kick_timer(const struct nm_hook *hooks)
{
	return nm_hook_can(&hooks[TS_HOOK_PUSH], TS_CAN_KICK_TIMER);
}

bool ts_hooks_can_tag(const struct nm_hook *hooks)
{
	return nm_hook_can(&hooks[TS_HOOK_APP], TS_CAN_TAG) ||
	       nm_hook_can(&hooks[TS_HOOK_PUSH], TS_CAN_TAG) ||
	       nm_hook_can(&hooks[TS_HOOK_ACK], TS_CAN_TAG);
}

bool ts_hooks_kick(const struct nm_hook *hooks)
{
	return ts_hooks_kick_iter(hooks) || ts_hooks_kick_getfd(hooks);
}

bool ts_hooks_kick_iter(const struct nm_hook *hooks)
{
	return nm_hook_can(&hooks[TS_HOOK_KICK], TS_CAN_KICK);
}

bool ts_hooks_kick_getfd(const struct nm_hook *hooks)
{
	return nm_hook_can(&hooks[TS_HOOK_KICK], TS_CAN_KICK_FD);
}

/*
 * With no tagger (the raw_tp rungs cannot reach socket storage), the fast
 * sweep would follow only what a full sweep happened to catch with data
 * to send, and a sender between its writes then goes unsampled for whole
 * intervals: every sweep is a full one instead.
 */
void ts_hooks_fast_aside(struct nm_hook *hooks)
{
	struct nm_hook *h = &hooks[TS_HOOK_FAST];

	for (int i = 0; i < h->nrungs - 1; i++)
		if (!h->rungs[i].why[0])
			snprintf(h->rungs[i].why, sizeof(h->rungs[i].why),
				 "no program tags senders here (sock_send_length, fexit/tcp_push, tp_btf/net_dev_queue)");
	h->chosen = h->nrungs - 1;
}

void ts_hooks_kick_aside(struct nm_hook *hooks, const char *why)
{
	struct nm_hook *h = &hooks[TS_HOOK_KICK];
	struct nm_rung *none = &h->rungs[h->nrungs - 1];

	for (int i = 0; i < h->nrungs - 1; i++)
		if (h->rungs[i].can & TS_CAN_KICK_FD)
			snprintf(h->rungs[i].why, sizeof(h->rungs[i].why), "%s", why);
	h->chosen = h->nrungs - 1;
	if (!none->lost_base)
		return;
	/* both: why the program was refused, and why userspace cannot stand in for it */
	snprintf(none->lost_buf, sizeof(none->lost_buf), "%s (%s; %s)", none->lost_base,
		 h->rungs[0].why[0] ? h->rungs[0].why : "refused", why);
	none->lost = none->lost_buf;
}

const char *ts_hooks_tag_source(const struct nm_hook *hooks, bool fast)
{
	if (!fast)
		return "none";
	if (nm_hook_can(&hooks[TS_HOOK_APP], TS_CAN_APP))
		return "sock_send_length";
	/* fexit's; the kprobe pair measures episodes but reaches no socket storage */
	if (nm_hook_can(&hooks[TS_HOOK_PUSH], TS_CAN_TAG))
		return "tcp_push";
	return "net_dev_queue";	/* else skel_attach set the fast sweep aside */
}
