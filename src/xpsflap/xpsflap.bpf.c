// SPDX-License-Identifier: GPL-2.0
/*
 * xpsflap's BPF object: its maps, logic and the programs on its own hooks
 * are in xpsflap.bpf.h, which the agent's object (netmedic.bpf.c) includes
 * too. Here are its rungs of pick_tx on the tracepoint the tools share,
 * net_dev_queue; in the agent, one program calls every detector's handler.
 */
#include "xpsflap.bpf.h"

/*
 * Rung 2 of pick_tx: net_dev_queue fires right after the pick. It reads
 * gso_segs through bpf_rdonly_cast() (6.2+), an inline load, where the
 * probe read of rung 3 is a helper call: 7-14 ns less per event, measured
 * with both attached at once.
 */
SEC("tp_btf/net_dev_queue")
int BPF_PROG(xf_pick_tp, struct sk_buff *skb)
{
	xf_on_queue(skb, true, true);
	return 0;
}

/* Rung 3: the same without the kfunc. */
SEC("tp_btf/net_dev_queue")
int BPF_PROG(xf_pick_tp_read, struct sk_buff *skb)
{
	xf_on_queue(skb, true, false);
	return 0;
}

/* raw_tp rungs: for kernels whose tracepoints cannot be attached as tp_btf. */
SEC("raw_tp/net_dev_queue")
int BPF_PROG(xf_pick_raw, struct sk_buff *skb)
{
	xf_on_queue(skb, false, false);
	return 0;
}

char LICENSE[] SEC("license") = "GPL";
