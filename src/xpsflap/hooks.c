// SPDX-License-Identifier: GPL-2.0
/* xpsflap's hook ladder (xpsflap_hooks.h): the rungs by program name. */
#include <stddef.h>
#include "xpsflap/hooks.h"

const struct nm_hook_decl xf_hook_decls[XF_NR_HOOKS] = {
	[XF_HOOK_PICK] = { "netdev_pick_tx", 0, {
		{ .progs = { "xf_pick_fexit" } },
		{ .progs = { "xf_pick_tp" }, .kfunc = "bpf_rdonly_cast" },
		{ .progs = { "xf_pick_tp_read" } },
		{ .progs = { "xf_pick_raw" } },
	} },
	[XF_HOOK_XMIT] = { "net_dev_xmit", 0, {
		{ .progs = { "xf_xmit_tp" } },
		{ .progs = { "xf_xmit_raw" } },
		{ .lost = "no reordering counts: queue switches only" },
	} },
	/* --pin only: without its program, clearing XPS leaves the queue to the kernel's flow hash */
	[XF_HOOK_PIN] = { "pin", XF_WANT_PIN, {
		{ .progs = { "xf_pin_tc" } },
		{ .lost = "--pin clears the XPS maps only: the kernel's flow hash picks the queue" },
	} },
};

/* every program of xpsflap.bpf.o sits on a rung above */
const char *const xf_hook_companions[] = { NULL };

const struct nm_hook_table xpsflap_hooks = {
	.tool = "xpsflap", .decls = xf_hook_decls, .n = XF_NR_HOOKS,
	.companions = xf_hook_companions,
};
