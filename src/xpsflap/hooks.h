/* SPDX-License-Identifier: GPL-2.0 */
/*
 * xpsflap_hooks.h - xpsflap's hook ladder as data: its logical hooks and
 * each one's rungs keyed by program name (lib/hooks.h). The loader binds
 * the names to its skeleton (nm_hooks_declare);
 * tests/unit/test_hooks_tables.c checks the table against the built object.
 */
#ifndef NETMEDIC_XPSFLAP_HOOKS_H
#define NETMEDIC_XPSFLAP_HOOKS_H

#include "lib/hooks.h"

enum { XF_HOOK_PICK, XF_HOOK_XMIT, XF_HOOK_PIN, XF_NR_HOOKS };

/* the runs a hook or rung is for (nm_hook_decl.when) */
#define XF_WANT_PIN	1u	/* --pin */

extern const struct nm_hook_decl xf_hook_decls[XF_NR_HOOKS];
/* The object's programs on no rung: NULL-terminated. xpsflap has none. */
extern const char *const xf_hook_companions[];
/* The table and companions above, by the tool's name (tests/unit/test_hooks_tables.c). */
extern const struct nm_hook_table xpsflap_hooks;

struct nm_tool;
/* The tool (main.c), for its CLI (cli.c) and the agent (src/agent). */
extern const struct nm_tool xpsflap_tool;

#endif
