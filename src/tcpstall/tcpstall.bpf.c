// SPDX-License-Identifier: GPL-2.0
/*
 * tcpstall's BPF object: its maps, logic and the programs on its own hooks
 * are in tcpstall.bpf.h, which the agent's object (netmedic.bpf.c) includes
 * too. Here are its programs on the tracepoint the tools share,
 * net_dev_queue; in the agent, one program calls every detector's handler.
 */
#include "tcpstall.bpf.h"

/* ---- hook ack_xmit: the pure ACKs that leave (ts_on_queue) ---- */

SEC("tp_btf/net_dev_queue")
int BPF_PROG(ts_queue_tp, struct sk_buff *skb)
{
	ts_on_queue(skb, true, false);
	return 0;
}

SEC("raw_tp/net_dev_queue")
int BPF_PROG(ts_queue_raw, struct sk_buff *skb)
{
	ts_on_queue(skb, false, false);
	return 0;
}

char LICENSE[] SEC("license") = "GPL";
