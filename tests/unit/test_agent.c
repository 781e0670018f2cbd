// SPDX-License-Identifier: GPL-2.0
/*
 * The agent's ladder from a detector's (lib/agent.h): the rungs of the
 * detector's own net_dev_queue programs become the agent's, in one order
 * for every detector, and nothing else moves.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <cmocka.h>

#include "lib/agent.h"

static const struct nm_shared_prog own[] = {
	{ "d_tp", NM_SHARED_TP_BTF },
	{ "d_tp_read", NM_SHARED_TP_BTF },
	{ "d_raw", NM_SHARED_RAW_TP },
	{ NULL, NM_SHARED_NONE },
};

static void assert_prog(const struct nm_rung_decl *r, const char *prog)
{
	assert_non_null(r->progs[0]);
	assert_string_equal(r->progs[0], prog);
	assert_null(r->progs[1]);
}

/* fexit first, then tp_btf with and without the kfunc, then raw_tp (xpsflap's pick_tx) */
static void test_own_rung_first(void **state)
{
	const struct nm_hook_decl in[] = {
		{ "pick", 0, {
			{ .progs = { "d_fexit" } },
			{ .progs = { "d_tp" }, .kfunc = "bpf_rdonly_cast" },
			{ .progs = { "d_tp_read" } },
			{ .progs = { "d_raw" } },
		} },
	};
	struct nm_hook_decl out[1];

	(void)state;
	assert_int_equal(nm_agent_decls(in, 1, own, out), 1);
	assert_string_equal(out[0].name, "pick");
	assert_prog(&out[0].rungs[0], "d_fexit");
	assert_prog(&out[0].rungs[1], "nm_queue_tp");
	assert_string_equal(out[0].rungs[1].kfunc, "bpf_rdonly_cast");
	assert_prog(&out[0].rungs[2], "nm_queue_tp_read");
	assert_null(out[0].rungs[2].kfunc);
	assert_prog(&out[0].rungs[3], "nm_queue_raw");
	assert_null(out[0].rungs[4].progs[0]);
	assert_null(out[0].rungs[4].lost);
}

/*
 * One tp_btf rung becomes both of the agent's, each with its can and when;
 * the lost rung stays last (tcpstall's ack_xmit, qdiscstuck's kick_queue).
 */
static void test_tp_then_lost(void **state)
{
	const struct nm_hook_decl in[] = {
		{ "ack", 4, {
			{ .progs = { "d_tp" }, .can = 8, .when = 2 },
			{ .progs = { "d_raw" }, .can = 1 },
			{ .lost = "acks not counted" },
		} },
	};
	struct nm_hook_decl out[1];

	(void)state;
	assert_int_equal(nm_agent_decls(in, 1, own, out), 1);
	assert_int_equal(out[0].when, 4);
	assert_prog(&out[0].rungs[0], "nm_queue_tp");
	assert_int_equal(out[0].rungs[0].can, 8);
	assert_int_equal(out[0].rungs[0].when, 2);
	assert_prog(&out[0].rungs[1], "nm_queue_tp_read");
	assert_int_equal(out[0].rungs[1].can, 8);
	assert_int_equal(out[0].rungs[1].when, 2);
	assert_prog(&out[0].rungs[2], "nm_queue_raw");
	assert_int_equal(out[0].rungs[2].can, 1);
	assert_null(out[0].rungs[3].progs[0]);
	assert_string_equal(out[0].rungs[3].lost, "acks not counted");
}

/* Hooks with none of the detector's shared programs, and absent hooks, are copied as they are. */
static void test_others_untouched(void **state)
{
	const struct nm_hook_decl in[] = {
		{ "run", 0, {
			{ .progs = { "d_fentry", "d_fexit" }, .can = 3 },
			{ .virt = "sock_diag" },
		} },
		{ NULL },
	};
	struct nm_hook_decl out[2];

	(void)state;
	assert_int_equal(nm_agent_decls(in, 2, own, out), 0);
	assert_memory_equal(&out[0], &in[0], sizeof(in[0]));
	assert_null(out[1].name);
}

/* A ladder that would outgrow NM_MAX_RUNGS is refused, not cut. */
static void test_too_many_rungs(void **state)
{
	const struct nm_hook_decl in[] = {
		{ "big", 0, {
			{ .progs = { "a" } },
			{ .progs = { "b" } },
			{ .progs = { "c" } },
			{ .progs = { "d_tp" } },
			{ .progs = { "d_raw" } },
		} },
	};
	struct nm_hook_decl out[1];

	(void)state;
	assert_int_equal(nm_agent_decls(in, 1, own, out), -1);
}

/* --opts refuses a common option, given or abbreviated as getopt takes it */
static void test_option_of(void **state)
{
	static const struct argp_option opts[] = {
		{ "interval", 'i', "SEC", 0, "", 0 },
		{ "json", 1001, NULL, 0, "", 0 },
		{ "prom-file", 1002, "PATH", 0, "", 0 },
		{},
	};

	(void)state;
	assert_ptr_equal(nm_agent_option_of(opts, "-i"), &opts[0]);
	assert_ptr_equal(nm_agent_option_of(opts, "-i5"), &opts[0]);
	assert_ptr_equal(nm_agent_option_of(opts, "--interval=5"), &opts[0]);
	assert_ptr_equal(nm_agent_option_of(opts, "--inter=5"), &opts[0]);
	assert_ptr_equal(nm_agent_option_of(opts, "--j"), &opts[1]);
	assert_ptr_equal(nm_agent_option_of(opts, "--prom"), &opts[2]);
	/* a detector's own, and what is no option's */
	assert_null(nm_agent_option_of(opts, "--top"));
	assert_null(nm_agent_option_of(opts, "--intervals"));
	assert_null(nm_agent_option_of(opts, "--"));
	assert_null(nm_agent_option_of(opts, "-x"));
	assert_null(nm_agent_option_of(opts, "5"));
}

static void test_split_name(void **state)
{
	char b[64];

	(void)state;
	assert_int_equal(nm_agent_split_name(b, sizeof(b), "/var/lib/ne/netmedic.prom", "xpsflap"), 0);
	assert_string_equal(b, "/var/lib/ne/netmedic-xpsflap.prom");
	assert_int_equal(nm_agent_split_name(b, sizeof(b), "out", "tcpstall"), 0);
	assert_string_equal(b, "out-tcpstall");
	/* a dot of a directory's name is not the file's */
	assert_int_equal(nm_agent_split_name(b, sizeof(b), "/d.prom/m", "qdiscstuck"), 0);
	assert_string_equal(b, "/d.prom/m-qdiscstuck");
	assert_int_equal(nm_agent_split_name(b, sizeof(b), "/d/.prom", "qdiscstuck"), 0);
	assert_string_equal(b, "/d/.prom-qdiscstuck");
	assert_int_equal(nm_agent_split_name(b, 12, "/var/lib/netmedic.prom", "xpsflap"), -ENAMETOOLONG);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_own_rung_first),
		cmocka_unit_test(test_tp_then_lost),
		cmocka_unit_test(test_others_untouched),
		cmocka_unit_test(test_too_many_rungs),
		cmocka_unit_test(test_option_of),
		cmocka_unit_test(test_split_name),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
