// SPDX-License-Identifier: GPL-2.0
/*
 * The agent's BPF object: every detector's maps, logic and programs on its
 * own hooks (the NAME.bpf.h headers, whose names are prefixed so that they
 * live side by side), and one program per tracepoint the detectors share.
 *
 * Why: a tracepoint pays its dispatch once per attached program, per
 * event. net_dev_queue runs for every skb a device queues, and the three
 * CLIs attach three programs to it; here one program calls each detector's
 * handler, in the order the CLIs would run.
 *
 * The scope (--netns) and --dev filter (common.bpf.h) are the agent's, one
 * for all its detectors.
 */
#include "tcpstall.bpf.h"
#include "qdiscstuck.bpf.h"
#include "xpsflap.bpf.h"

/*
 * Whose handler the net_dev_queue program calls, set by the loader from the
 * detectors it runs and the rungs they took (xpsflap's pick_tx on fexit
 * needs no net_dev_queue). All on by default, so that a load with no
 * loader (nm-verify) puts every handler through the verifier.
 */
const volatile bool nm_queue_ts = true;		/* tcpstall's ack_xmit */
const volatile bool nm_queue_qs = true;		/* qdiscstuck's kick_queue */
const volatile bool nm_queue_xf = true;		/* xpsflap's pick_tx */

static __always_inline void on_queue(struct sk_buff *skb, const bool btf, const bool cast)
{
	if (nm_queue_ts)
		ts_on_queue(skb, btf, cast);
	if (nm_queue_qs)
		qs_on_queue(skb, btf, cast);
	if (nm_queue_xf)
		xf_on_queue(skb, btf, cast);
}

/* Rung 1: tp_btf, xpsflap's gso_segs read through bpf_rdonly_cast() (6.2+). */
SEC("tp_btf/net_dev_queue")
int BPF_PROG(nm_queue_tp, struct sk_buff *skb)
{
	on_queue(skb, true, true);
	return 0;
}

/* Rung 2: tp_btf without the kfunc. */
SEC("tp_btf/net_dev_queue")
int BPF_PROG(nm_queue_tp_read, struct sk_buff *skb)
{
	on_queue(skb, true, false);
	return 0;
}

/* Rung 3: raw_tp, for kernels whose tracepoints cannot be attached as tp_btf. */
SEC("raw_tp/net_dev_queue")
int BPF_PROG(nm_queue_raw, struct sk_buff *skb)
{
	on_queue(skb, false, false);
	return 0;
}

char LICENSE[] SEC("license") = "GPL";
