// SPDX-License-Identifier: GPL-2.0
/*
 * make bench: empty programs, one per hook the CLIs use, as the baseline of
 * bpf_stats on the same hook in the same run (what the kernel charges for
 * calling a program at all, with stats on).
 */
#include "vmlinux.h"
#include <bpf/bpf_helpers.h>

SEC("tp_btf/net_dev_queue")
int e_ndq(void *ctx) { return 0; }

SEC("tp_btf/net_dev_start_xmit")
int e_xmit(void *ctx) { return 0; }

SEC("tp_btf/tcp_probe")
int e_tcp_probe(void *ctx) { return 0; }

SEC("tp_btf/sock_recv_length")
int e_recv_len(void *ctx) { return 0; }

SEC("tp_btf/sock_send_length")
int e_send_len(void *ctx) { return 0; }

SEC("tp_btf/kfree_skb")
int e_kfree_skb(void *ctx) { return 0; }

SEC("tp_btf/qdisc_dequeue")
int e_qdisc_deq(void *ctx) { return 0; }

SEC("tp_btf/qdisc_enqueue")
int e_qdisc_enq(void *ctx) { return 0; }

char LICENSE[] SEC("license") = "GPL";
