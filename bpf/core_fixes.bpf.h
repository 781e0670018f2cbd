/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Kernel types and fields that differ between the kernels netmedic runs on.
 *
 * The objects compile against one committed vmlinux.h (bpf/vmlinux/), but
 * load on kernels older and newer than it. A field that only some kernels
 * have is named here through a flavour, struct NAME___SUFFIX: libbpf
 * matches it against the running kernel's NAME (the suffix is dropped), so
 * the code compiles whether or not the committed header has the field, and
 * bpf_core_field_exists() or bpf_core_type_exists() on the flavour tells at
 * load time whether this kernel has it. Only the fields the code reads are
 * declared; their offsets come from the running kernel.
 */
#ifndef NETMEDIC_CORE_FIXES_BPF_H
#define NETMEDIC_CORE_FIXES_BPF_H

#include "vmlinux.h"
#include <bpf/bpf_core_read.h>

/*
 * net.ipv4.tcp_backlog_ack_defer: 6.7 (133c4c0d3717) defers the ACKs a
 * backlog run would send to tcp_release_cb; 6.1 has no such sysctl and
 * sends each of them.
 */
struct netns_ipv4___ack_defer {
	u8 sysctl_tcp_backlog_ack_defer;
} __attribute__((preserve_access_index));

/* &net->ipv4, seen as the flavour that may have the 6.7 sysctl */
static __always_inline struct netns_ipv4___ack_defer *
netns_ipv4_ack_defer(struct net *net)
{
	return (struct netns_ipv4___ack_defer *)&net->ipv4;
}

#endif
