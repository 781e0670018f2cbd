// SPDX-License-Identifier: GPL-2.0
/*
 * The agent's BPF object: every detector's maps, logic and programs on its
 * own hooks (the NAME.bpf.h headers, whose names are prefixed so that they
 * live side by side), and one program per tracepoint the detectors share.
 *
 * Why: a tracepoint pays its dispatch once per attached program, per
 * event. net_dev_queue runs for every skb a device queues, and each CLI
 * attaches a program of its own to it; here one program calls each
 * detector's handler, in the detectors' rank order (the order the CLIs
 * would run).
 *
 * The scope (--netns) and --dev filter (common.bpf.h) are the agent's, one
 * for all its detectors.
 *
 * The detectors are build/agent_tools.h's (tools/agent-tools.sh): each
 * one's src/NAME/NAME.bpf.h, and its handler PFX_on_queue(skb, btf, cast) there,
 * empty for a detector with nothing on net_dev_queue.
 */
#include "agent_tools.h"

/*
 * Whose handler the net_dev_queue program calls (nm_queue_PFX), set by the
 * loader from the detectors it runs and the rungs they took (xpsflap's
 * pick_tx on fexit needs no net_dev_queue). All on by default, so that a
 * load with no loader (nm-verify) puts every handler through the verifier.
 */
#define X(NAME, PFX)	const volatile bool nm_queue_##PFX = true;
NM_AGENT_TOOLS
#undef X

static __always_inline void on_queue(struct sk_buff *skb, const bool btf, const bool cast)
{
#define X(NAME, PFX)			\
	if (nm_queue_##PFX)		\
		PFX##_on_queue(skb, btf, cast);
	NM_AGENT_TOOLS
#undef X
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
