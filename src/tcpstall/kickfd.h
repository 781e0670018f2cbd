/* SPDX-License-Identifier: GPL-2.0 */
/*
 * tcpstall_kickfd.h - --fix=kick's second rung: what the ts_kick iterator
 * does (src/tcpstall/tcpstall.bpf.c), done from userspace, for kernels whose
 * iter/tcp may not call bpf_setsockopt (before 5.15: 5.10, 5.14). The
 * socket is looked up by its 4-tuple (sock_diag), its holder found in
 * /proc, its descriptor taken with pidfd_getfd (lib/sockfd.h, 5.6+); then
 * the iterator's steps on it with getsockopt and setsockopt, and the
 * iterator's outcome, so that the accounting past it is the same.
 */
#ifndef NETMEDIC_LIB_TCPSTALL_KICKFD_H
#define NETMEDIC_LIB_TCPSTALL_KICKFD_H

#include <stdbool.h>
#include <stddef.h>
#include "tcpstall/tcpstall.h"
#include "lib/sockdiag.h"
#include "lib/sockfd.h"

/* the rung's label: the kick hook's, in the start record and --list-hooks */
#define TS_KICKFD_LABEL		"pidfd_getfd"

/*
 * The rung can kick here: pidfd_getfd exists (5.6+) and no policy forbids
 * it; NETMEDIC_REFUSE=pidfd_getfd (a test aid) refuses it as a kernel
 * would. 0, else -errno with why ("pidfd_getfd: ...").
 */
int ts_kickfd_probe(char *why, size_t len);

/*
 * One sock_diag lookup of no socket, made at the start: the kernel's
 * first TCP request loads tcp_diag where it is a module not yet loaded
 * (1.4 s in the 5.10 guest, under TCG), which the first kick then waited
 * for, past the delayed ACK of every stall meanwhile.
 */
void ts_kickfd_warm(void);

/* key's 4-tuple as a sock_diag lookup takes it (lib/sockdiag.h); its netns aside. */
void ts_kickfd_id(const struct ts_key *key, struct nm_diag_sock *id);

/*
 * The kick of k's request (mode, nodelay) on descriptor fd, as ts_kick's
 * kick_sock() makes it: TCP_NODELAY read (found), compared with the
 * journaled value (TS_KICK_PUSH), set to 1, which pushes the pending
 * frames, and back; halt: the test aid's stop after the set. k's step and
 * err (-errno of the failed call).
 */
void ts_kickfd_sock(int fd, bool halt, struct ts_kick *k);

/*
 * The kick of k's request on socket key: looked up in the calling
 * thread's netns, taken from the first process under proc ("/proc") that
 * holds it, this one aside (h, when not NULL, remembers the last holder:
 * lib/sockfd.h; hint, when not 0, is asked first). k's outcome as the iterator's: NONE when key
 * is of another netns, or the socket or any holder is gone (a socket no
 * process holds cannot be kicked this way); TAKE, with err, when it
 * cannot be taken (-EPERM: ptrace access denied; -EACCES: a process's
 * descriptors unreadable); else as ts_kickfd_sock.
 */
void ts_kickfd(const char *proc, struct nm_sock_holders *h, const struct ts_key *key, pid_t hint,
	       bool halt, struct ts_kick *k);

#endif
