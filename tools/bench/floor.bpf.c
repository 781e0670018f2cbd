// SPDX-License-Identifier: GPL-2.0
/*
 * make bench, throughput A/B: the tracepoints the three CLIs attach on a
 * kernel without fentry, each with an empty program, as many times as the
 * CLIs attach it. Run as the third arm, it is the throughput any tool
 * observing the same hooks pays before doing anything: the floor under
 * netmedic's own work.
 *
 * empty.bpf.c has one program per hook; net_dev_queue is attached by
 * xpsflap, tcpstall and qdiscstuck, so it gets two more here, and
 * qdiscstuck's qdisc_reset and qdisc_destroy and tcpstall's
 * inet_sock_set_state are added.
 */
#include "empty.bpf.c"

SEC("tp_btf/net_dev_queue")
int f_ndq_tcpstall(void *ctx) { return 0; }

SEC("tp_btf/net_dev_queue")
int f_ndq_qdiscstuck(void *ctx) { return 0; }

SEC("tp_btf/qdisc_reset")
int f_qdisc_reset(void *ctx) { return 0; }

SEC("tp_btf/qdisc_destroy")
int f_qdisc_destroy(void *ctx) { return 0; }

SEC("tp_btf/inet_sock_set_state")
int f_sock_state(void *ctx) { return 0; }
