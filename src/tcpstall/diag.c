// SPDX-License-Identifier: GPL-2.0
#include <errno.h>
#include <stdio.h>
#include <time.h>
#include "tcpstall/judge.h"
#include "lib/cli.h"
#include "lib/netns.h"
#include "lib/sockdiag.h"
#include "tcpstall/diag.h"

/* the states src/tcpstall/tcpstall.bpf.c sweeps: those that can still hold data to send */
#define TS_DIAG_STATES	(NM_TCPF(NM_TCP_ESTABLISHED) | NM_TCPF(NM_TCP_CLOSE_WAIT) | \
			 NM_TCPF(NM_TCP_FIN_WAIT1) | NM_TCPF(NM_TCP_LAST_ACK) | \
			 NM_TCPF(NM_TCP_CLOSING))

struct diag_sweep {
	uint16_t port;
	uint32_t netns_ino;
	ts_diag_cb cb;
	void *arg;
};

static int diag_sock(const struct nm_diag_sock *d, void *arg)
{
	const struct diag_sweep *w = arg;
	struct ts_sample s;

	/* the kernel filtered already; this keeps the sweep's rules in one place */
	if (d->state >= 32 || !(TS_DIAG_STATES & NM_TCPF(d->state)))
		return 0;
	if (w->port && d->lport != w->port && d->rport != w->port)
		return 0;
	/* per socket, as the BPF sweep dates each: tcp_info was read just before */
	ts_sample_from_diag(d, nm_mono_ns(), w->netns_ino, &s);
	if (!s.unsent && !s.packets_out)
		return 0;	/* nothing to send: cannot be stalled */
	w->cb(&s, w->arg);
	return 0;
}

int ts_diag_sweep(struct mnl_socket *nl, uint16_t port, uint32_t netns_ino, ts_diag_cb cb,
		  void *arg, char *err, size_t errlen)
{
	struct diag_sweep w = { .port = port, .netns_ino = netns_ino, .cb = cb, .arg = arg };

	if (!w.netns_ino && !nl)
		w.netns_ino = nm_netns_inode(NULL);
	if (!w.netns_ino) {
		snprintf(err, errlen, "sock_diag sweep: cannot read this netns's inode");
		return -ENOENT;
	}
	if (nl)
		return nm_sockdiag_tcp_dump_on(nl, TS_DIAG_STATES, port, diag_sock, &w, err, errlen);
	return nm_sockdiag_tcp_dump(TS_DIAG_STATES, port, diag_sock, &w, err, errlen);
}
