// SPDX-License-Identifier: GPL-2.0
/* qdiscstuck's hook ladder (qdiscstuck_hooks.h): the rungs by program name. */
#include <stddef.h>
#include "qdiscstuck/hooks.h"

const struct nm_hook_decl qs_hook_decls[QS_NR_HOOKS] = {
	/*
	 * Rung 1: the runs (fentry/fexit), the dequeue tracepoint for what each
	 * dequeue gave, and the watchdog arms, which tell a shaper holding its
	 * backlog until a due time from one that nothing will run again.
	 */
	[QS_HOOK_RUN] = { "__qdisc_run", 0, {
		{ .progs = { "qs_run_fentry", "qs_run_fexit", "qs_dequeue_tp", "qs_wd_arm_fentry" } },
		{ .progs = { "qs_dequeue_tp" } },
		{ .progs = { "qs_dequeue_raw" } },
	} },
	[QS_HOOK_ENQ] = { "qdisc_enqueue", 0, {
		{ .progs = { "qs_enqueue_tp" } },
		{ .progs = { "qs_enqueue_raw" } },
		{ .lost = "a qdisc is tracked from its first dequeue, not its first enqueue" },
	} },
	[QS_HOOK_RESET] = { "qdisc_reset", 0, {
		{ .progs = { "qs_reset_tp", "qs_destroy_tp" } },
		{ .progs = { "qs_reset_raw", "qs_destroy_raw" } },
		{ .lost = "resets and deletions are not seen: a deleted qdisc's record stays until its slot is taken" },
	} },
	/* where the kick frames of --kick/--fix=kick are seen: their queue */
	[QS_HOOK_KICK] = { "kick_queue", 0, {
		{ .progs = { "qs_queue_tp" } },
		{ .progs = { "qs_queue_raw" } },
		{ .lost = "a kick's frame is not seen reaching its queue" },
	} },
	/* each sweep's scheduling state of every tracked qdisc, by test-run */
	[QS_HOOK_SAMPLE] = { "sampler", 0, {
		{ .progs = { "qs_sample" }, .can = QS_CAN_SAMPLE },
		/* before 5.13 (no bpf_for_each_map_elem): one test-run per qdisc, its key the argument */
		{ .progs = { "qs_sample_key" }, .label = "raw_tp+per_qdisc",
		  .can = QS_CAN_SAMPLE | QS_CAN_SAMPLE_KEY },
		{ .lost = "scheduling state is not sampled: judged by events alone" },
	} },
	/*
	 * once, after the attach: every queue's qdisc gets its entry, so that
	 * one whose backlog froze before the start is sampled too
	 */
	[QS_HOOK_SEED] = { "seed", 0, {
		{ .progs = { "qs_seed" }, .can = QS_CAN_SEED },
		{ .lost = "a qdisc with no event since the start has no TX queue state: its frozen backlog is unknown (stopped or stuck) until it dequeues" },
	} },
};

/* every program of qdiscstuck.bpf.o sits on a rung above */
const char *const qs_hook_companions[] = { NULL };

const struct nm_hook_table qdiscstuck_hooks = {
	.tool = "qdiscstuck", .decls = qs_hook_decls, .n = QS_NR_HOOKS,
	.companions = qs_hook_companions,
};
