/* SPDX-License-Identifier: GPL-2.0 */
/*
 * qdiscstuck_hooks.h - qdiscstuck's hook ladder as data: its logical
 * hooks, each one's rungs keyed by program name (lib/hooks.h), and what a
 * rung can do. The loader binds the names to its skeleton
 * (nm_hooks_declare); tests/unit/test_hooks_tables.c checks the table
 * against the built object.
 */
#ifndef NETMEDIC_QDISCSTUCK_HOOKS_H
#define NETMEDIC_QDISCSTUCK_HOOKS_H

#include "lib/hooks.h"

enum { QS_HOOK_RUN, QS_HOOK_ENQ, QS_HOOK_RESET, QS_HOOK_KICK, QS_HOOK_SAMPLE, QS_HOOK_SEED, QS_NR_HOOKS };

/* What a rung can do (nm_hook_can). */
#define QS_CAN_SAMPLE	1u	/* the sampler program, run by test-run each sweep */
#define QS_CAN_SEED	2u	/* the seed program, run by test-run once: entries for qdiscs with no event yet */
#define QS_CAN_SAMPLE_KEY 4u	/* the sampler runs once per tracked qdisc, its key the argument (before 5.13) */

extern const struct nm_hook_decl qs_hook_decls[QS_NR_HOOKS];
/* The object's programs on no rung: NULL-terminated. qdiscstuck has none. */
extern const char *const qs_hook_companions[];
/* The table and companions above, by the tool's name (tests/unit/test_hooks_tables.c). */
extern const struct nm_hook_table qdiscstuck_hooks;

struct nm_tool;
/* The tool (main.c), for its CLI (cli.c) and the agent (src/agent). */
extern const struct nm_tool qdiscstuck_tool;

#endif
