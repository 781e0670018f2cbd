/* SPDX-License-Identifier: GPL-2.0 */
/*
 * tcpstall_hooks.h - tcpstall's hook ladder as data: its logical hooks,
 * each one's rungs keyed by program name (lib/hooks.h), what each rung can
 * do, and the questions the loader asks of the chosen rungs. The loader
 * binds the names to its skeleton (nm_hooks_declare); nothing here needs
 * one, so tests/unit/test_hooks_tables.c checks the table against the
 * built object.
 */
#ifndef NETMEDIC_TCPSTALL_HOOKS_H
#define NETMEDIC_TCPSTALL_HOOKS_H

#include <stdbool.h>
#include "lib/hooks.h"

enum {
	TS_HOOK_SWEEP, TS_HOOK_FAST, TS_HOOK_PUSH, TS_HOOK_RELEASE, TS_HOOK_RCV, TS_HOOK_ACK,
	TS_HOOK_DROP, TS_HOOK_APP, TS_HOOK_KICK, TS_NR_HOOKS
};

/* the runs a hook or rung is for (nm_hook_decl.when) */
#define TS_WANT_KICK	1u	/* --fix=kick */

/* What a rung can do (nm_hook_can). */
enum {
	TS_CAN_ITER	= 1u << 0,	/* the sweep is iter/tcp: TSQ flags, pacing, Nagle state */
	TS_CAN_DIAG	= 1u << 1,	/* ... sock_diag, no BPF: never tsq_idle or host_queue */
	TS_CAN_TAG_MAP	= 1u << 2,	/* the fast sweep walks the tagged sockets' storage map */
	TS_CAN_TAG_SWEEP = 1u << 3,	/* ... walks every socket and samples the tagged ones */
	TS_CAN_EXACT	= 1u << 4,	/* tcp_push/tcp_wfree run: tsq_idle episodes, measured */
	TS_CAN_KICK_TIMER = 1u << 5,	/* ... and each episode arms its socket's kick timer */
	TS_CAN_TAG	= 1u << 6,	/* tags sending sockets for the fast sweep */
	TS_CAN_OWNED	= 1u << 7,	/* owned = inside __release_sock, not the owner bit */
	TS_CAN_APP	= 1u << 8,	/* the reader's and writer's CPU at each read and write */
	TS_CAN_KICK	= 1u << 9,	/* --fix=kick's program */
	TS_CAN_KICK_FD	= 1u << 10,	/* ... or none: userspace kicks, through pidfd_getfd */
	TS_CAN_MISSABLE	= 1u << 11,	/* its exit is a kretprobe, which the kernel may miss */
};

extern const struct nm_hook_decl ts_hook_decls[TS_NR_HOOKS];
/*
 * The object's programs that sit on no rung (companions a rung's programs
 * need, loaded with them): NULL-terminated. tcpstall has none.
 */
extern const char *const ts_hook_companions[];
/* The table and companions above, by the tool's name (tests/unit/test_hooks_tables.c). */
extern const struct nm_hook_table tcpstall_hooks;

struct nm_tool;
/* The tool (main.c), for its CLI (cli.c) and the agent (src/agent). */
extern const struct nm_tool tcpstall_tool;

/* The runs --fix's mask wants (nm_hooks_declare's want). */
unsigned int ts_hooks_want(unsigned int fix);

/* How the chosen __release_sock rung tells owned (enum ts_release_rung). */
unsigned int ts_hooks_release(const struct nm_hook *hooks);
/* tcp_push/tcp_wfree run (a fexit rung): they measure tsq_idle episodes. */
bool ts_hooks_exact(const struct nm_hook *hooks);
/* ... and each episode arms its socket's kick timer (--fix=kick's first rung). */
bool ts_hooks_kick_timer(const struct nm_hook *hooks);
/* A rung that tags senders for the fast sweep: each write, each push, or its data skbs. */
bool ts_hooks_can_tag(const struct nm_hook *hooks);
/* --fix=kick kicks here, either way (the hook is declared with --fix=kick only). */
bool ts_hooks_kick(const struct nm_hook *hooks);
/* ... through its iterator, ts_kick (its first rung). */
bool ts_hooks_kick_iter(const struct nm_hook *hooks);
/* ... from userspace, on sockets taken with pidfd_getfd (tcpstall/kickfd.h). */
bool ts_hooks_kick_getfd(const struct nm_hook *hooks);

/*
 * With no tagger the fast sweep's hook ends on its "none" rung, each rung
 * before it saying why (the loader drops the link it attached).
 */
void ts_hooks_fast_aside(struct nm_hook *hooks);

/*
 * Where the kick hook's userspace rung was chosen but cannot kick (why:
 * ts_kickfd_probe's), the hook ends on its "none" rung, whose loss says
 * why each rung before it could not.
 */
void ts_hooks_kick_aside(struct nm_hook *hooks, const char *why);

/*
 * What tags a sending socket for the fast sweep, the first rung that runs:
 * each write (sock_send_length, 6.3+), each push (fexit/tcp_push), its data
 * skbs (tp_btf/net_dev_queue); "none" without a fast sweep (fast false).
 */
const char *ts_hooks_tag_source(const struct nm_hook *hooks, bool fast);

#endif
