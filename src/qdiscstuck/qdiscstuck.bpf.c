// SPDX-License-Identifier: GPL-2.0
/*
 * qdiscstuck's BPF object: its maps, logic and the programs on its own
 * hooks are in qdiscstuck.bpf.h, which the agent's object (netmedic.bpf.c)
 * includes too. Here are its programs on the tracepoint the tools share,
 * net_dev_queue; in the agent, one program calls every detector's handler.
 */
#include "qdiscstuck.bpf.h"

/* ---- hook kick_queue: net_dev_queue, for the kick frames ---- */

SEC("tp_btf/net_dev_queue")
int BPF_PROG(qs_queue_tp, struct sk_buff *skb)
{
	qs_on_queue(skb, true, false);
	return 0;
}

SEC("raw_tp/net_dev_queue")
int BPF_PROG(qs_queue_raw, struct sk_buff *skb)
{
	qs_on_queue(skb, false, false);
	return 0;
}

char LICENSE[] SEC("license") = "GPL";
