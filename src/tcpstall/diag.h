/* SPDX-License-Identifier: GPL-2.0 */
/*
 * tcpstall_diag.h - tcpstall's socket sweep without BPF: the samples of
 * a network namespace's TCP sockets read through sock_diag
 * (lib/sockdiag.h), for kernels that refuse BPF iterators.
 */
#ifndef NETMEDIC_LIB_TCPSTALL_DIAG_H
#define NETMEDIC_LIB_TCPSTALL_DIAG_H

#include <stddef.h>
#include <stdint.h>
#include "tcpstall/tcpstall.h"

/* Called per sample; s is valid during the call only. */
typedef void (*ts_diag_cb)(const struct ts_sample *s, void *arg);

struct mnl_socket;

/*
 * One sweep, with the BPF sweep's filters: the states that can hold data
 * to send (established, close_wait, fin_wait1, last_ack, closing), port 0
 * or that local or remote port, and only sockets with unsent data or
 * packets out. One netns is dumped: nl's, a sock_diag socket the caller
 * keeps (nm_nl_open_in), or with nl NULL the current one, through a
 * socket of this call's. netns_ino is its inode, put in each sample's key
 * (0 with nl NULL: looked up). Sample times are CLOCK_MONOTONIC, the
 * clock of bpf_ktime_get_ns(). See ts_sample_from_diag() for the fields
 * sock_diag cannot fill. 0, or -errno with a one-line reason in err.
 */
int ts_diag_sweep(struct mnl_socket *nl, uint16_t port, uint32_t netns_ino, ts_diag_cb cb,
		  void *arg, char *err, size_t errlen);

#endif
