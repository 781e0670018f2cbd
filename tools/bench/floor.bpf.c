// SPDX-License-Identifier: GPL-2.0
/*
 * make bench, throughput A/B: the tracepoints the three CLIs attach on a
 * kernel without fentry, each with an empty program, as many times as the
 * CLIs attach it (net_dev_queue: xpsflap, tcpstall and qdiscstuck). Run as
 * the third arm, it is the throughput any tool observing the same hooks
 * pays before doing anything: the floor under netmedic's own work.
 */
#include "vmlinux.h"
#include <bpf/bpf_helpers.h>

SEC("tp_btf/net_dev_queue")
int f_ndq_xpsflap(void *ctx) { return 0; }

SEC("tp_btf/net_dev_queue")
int f_ndq_tcpstall(void *ctx) { return 0; }

SEC("tp_btf/net_dev_queue")
int f_ndq_qdiscstuck(void *ctx) { return 0; }

SEC("tp_btf/net_dev_start_xmit")
int f_xmit(void *ctx) { return 0; }

SEC("tp_btf/tcp_probe")
int f_tcp_probe(void *ctx) { return 0; }

SEC("tp_btf/sock_recv_length")
int f_recv_len(void *ctx) { return 0; }

SEC("tp_btf/sock_send_length")
int f_send_len(void *ctx) { return 0; }

SEC("tp_btf/kfree_skb")
int f_kfree_skb(void *ctx) { return 0; }

SEC("tp_btf/qdisc_dequeue")
int f_qdisc_deq(void *ctx) { return 0; }

SEC("tp_btf/qdisc_enqueue")
int f_qdisc_enq(void *ctx) { return 0; }

SEC("tp_btf/qdisc_reset")
int f_qdisc_reset(void *ctx) { return 0; }

SEC("tp_btf/qdisc_destroy")
int f_qdisc_destroy(void *ctx) { return 0; }

char LICENSE[] SEC("license") = "GPL";
