// SPDX-License-Identifier: GPL-2.0
/*
 * Unit tests for the pure parts of src/lib/hooks.c: NETMEDIC_REFUSE
 * matching, how a refusal is named, and what the first line says was lost;
 * a ladder declared as data, against a built object (never loaded).
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <cmocka.h>
#include <bpf/libbpf.h>

#include "lib/hooks.h"

static void test_refuse_match(void **state)
{
	(void)state;
	/* by name: the whole name, never a prefix of it */
	assert_true(nm_refuse_match("ts_sweep", "ts_sweep", "iter/tcp"));
	assert_false(nm_refuse_match("ts_sweep", "ts_sweep_fast", "iter/tcp"));
	assert_true(nm_refuse_match("a,ts_sweep_fast,b", "ts_sweep_fast", "iter/tcp"));
	/* by section prefix */
	assert_true(nm_refuse_match("iter/bpf_sk_storage_map", "ts_sweep_tagged", "iter/bpf_sk_storage_map"));
	assert_true(nm_refuse_match("fexit/", "xf_pick_fexit", "fexit/netdev_core_pick_tx"));
	assert_true(nm_refuse_match("x,tp_btf/net_dev_queue", "ts_queue_tp", "tp_btf/net_dev_queue"));
	assert_false(nm_refuse_match("tp_btf/net_dev_queue", "ts_rcv_tp", "tp_btf/tcp_probe"));
	assert_false(nm_refuse_match("raw_tp/", "ts_queue_tp", "tp_btf/net_dev_queue"));
	/* empty entries and lists refuse nothing */
	assert_false(nm_refuse_match("", "ts_sweep", "iter/tcp"));
	assert_false(nm_refuse_match(",,", "ts_sweep", "iter/tcp"));
	assert_false(nm_refuse_match(NULL, "ts_sweep", "iter/tcp"));
}

static void test_refusal_str_and_hint(void **state)
{
	struct nm_refusal k = { .prog = "ts_sweep_tagged", .stage = "load", .err = -EPERM };
	struct nm_refusal v = { .prog = "p", .stage = "load", .err = -EACCES };
	struct nm_refusal a = { .prog = "p", .stage = "attach", .err = -524 };
	struct nm_refusal i = { .prog = "p", .stage = "load", .err = -EPERM, .injected = true };
	char buf[128];

	(void)state;
	assert_string_equal(nm_refusal_str(&k, buf, sizeof(buf)), "load: Operation not permitted (EPERM)");
	assert_non_null(strstr(nm_refusal_hint(&k), "lockdown"));
	assert_non_null(strstr(nm_refusal_hint(&v), "verifier"));
	/* the kernel's own ENOTSUPP has no libc name */
	assert_string_equal(nm_refusal_str(&a, buf, sizeof(buf)), "attach: Operation not supported (ENOTSUPP)");
	assert_non_null(strstr(nm_refusal_hint(&a), "does not support"));
	assert_string_equal(nm_refusal_str(&i, buf, sizeof(buf)),
			    "load: Operation not permitted (EPERM) by NETMEDIC_REFUSE");
	assert_string_equal(nm_refusal_hint(&i), "unset NETMEDIC_REFUSE");
}

static void test_optional_and_losses(void **state)
{
	struct nm_refusal r = { .prog = "ts_sweep_tagged", .stage = "load", .err = -EPERM };
	struct nm_hook h[3] = {};
	char buf[512];

	(void)state;
	/* a hook of programs only is core; a virtual or none rung makes it optional */
	h[0].name = "core";
	nm_hook_rung(&h[0], NULL, NULL);	/* stands for a rung of programs */
	h[0].rungs[0].progs[0] = (struct bpf_program *)&r;
	h[1].name = "fast_sweep";
	nm_hook_rung_virtual(&h[1], "iter/tcp");
	nm_hook_rung_none(&h[1], "every sweep samples every socket");
	h[2].name = "derived";
	nm_hook_rung_virtual(&h[2], "sk_lock.owned@tcp_probe");
	assert_false(nm_hook_optional(&h[0]));
	assert_true(nm_hook_optional(&h[1]));
	assert_true(nm_hook_optional(&h[2]));

	/* nothing refused or lost: nothing said */
	h[0].chosen = 0, h[1].chosen = 0, h[2].chosen = 0;
	assert_string_equal(nm_hooks_losses(h, 3, true, buf, sizeof(buf)), "");
	assert_false(nm_hook_lost(&h[1]));

	/* a refused program (named once, though two rungs hold it) and a lost feature */
	h[1].rungs[0].refused = &r;
	h[0].rungs[0].refused = &r;
	h[1].chosen = 1;
	assert_true(nm_hook_lost(&h[1]));
	assert_string_equal(nm_hook_mode_name(&h[1]), "none");
	assert_string_equal(nm_hooks_losses(h, 3, true, buf, sizeof(buf)),
			    "; refused: ts_sweep_tagged (load: Operation not permitted (EPERM)); "
			    "lost: fast_sweep (every sweep samples every socket)");
	/* a hook not declared (no name) is left out */
	h[1].name = NULL;
	assert_string_equal(nm_hooks_losses(h, 3, true, buf, sizeof(buf)),
			    "; refused: ts_sweep_tagged (load: Operation not permitted (EPERM))");
}

/* A remedy's none rung says why the kernel took it: the refusal of the rung before. */
static void test_loss_explained(void **state)
{
	struct nm_hook h = { .name = "kick" };
	char buf[512];

	(void)state;
	nm_hook_rung_virtual(&h, "iter/tcp");	/* stands for the kick program's rung */
	nm_hook_rung_none_why(&h, "--fix=kick is not available on this kernel");
	snprintf(h.rungs[0].why, sizeof(h.rungs[0].why), "ts_kick: load: Operation not permitted (EPERM)");
	h.chosen = 1;
	nm_hook_explain_loss(&h);
	assert_string_equal(h.rungs[1].lost,
			    "--fix=kick is not available on this kernel (ts_kick: load: Operation not permitted (EPERM))");
	assert_string_equal(nm_hooks_losses(&h, 1, true, buf, sizeof(buf)),
			    "; lost: kick (--fix=kick is not available on this kernel (ts_kick: load: Operation not permitted (EPERM)))");
	/* chosen again (a reopening): composed from the text as declared, not twice */
	nm_hook_explain_loss(&h);
	assert_string_equal(h.rungs[1].lost,
			    "--fix=kick is not available on this kernel (ts_kick: load: Operation not permitted (EPERM))");
	/* a plain none rung keeps its text */
	struct nm_hook p = { .name = "backlog_drop" };

	nm_hook_rung_none(&p, "backlog drops are not counted");
	p.chosen = 0;
	nm_hook_explain_loss(&p);
	assert_string_equal(p.rungs[0].lost, "backlog drops are not counted");
}

/* What --list-hooks writes of a ladder into a string (json: as --json does); caller frees */
static char *listed(const struct nm_hook *h, int n, bool json)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	assert_non_null(f);
	if (json)
		nm_hooks_list_json(f, h, n, "tcpstall", 1796000000);
	else
		nm_hooks_list(f, h, n);
	fclose(f);
	return buf;
}

/*
 * #37: --list-hooks --json printed the text tables. It writes a JSON line
 * a row, the tables' columns as keys, with the tool and time every record
 * has; the tables stay as they were.
 */
static void test_list_hooks_json(void **state)
{
	struct nm_hook h = { .name = "kick" };
	char *got;

	(void)state;
	nm_hook_rung_virtual(&h, "iter/tcp");
	nm_hook_rung_none_why(&h, "--fix=kick is not available on this kernel");
	snprintf(h.rungs[0].why, sizeof(h.rungs[0].why), "ts_kick: load: Operation not permitted (EPERM)");
	h.chosen = 1;
	nm_hook_explain_loss(&h);
	got = listed(&h, 1, true);
	assert_string_equal(got,
		"{\"type\":\"rung\",\"tool\":\"tcpstall\",\"time\":1796000000,\"hook\":\"kick\","
		"\"rung\":1,\"program\":\"iter/tcp\",\"verdict\":\"ts_kick: load: Operation not "
		"permitted (EPERM)\"}\n"
		"{\"type\":\"rung\",\"tool\":\"tcpstall\",\"time\":1796000000,\"hook\":\"kick\","
		"\"rung\":2,\"program\":\"none\",\"verdict\":\"chosen: --fix=kick is not available "
		"on this kernel (ts_kick: load: Operation not permitted (EPERM))\"}\n");
	free(got);
	got = listed(&h, 1, false);
	assert_string_equal(got,
		"HOOK             RUNG PROGRAM                              VERDICT\n"
		"kick             1    iter/tcp                             ts_kick: load: Operation not permitted (EPERM)\n"
		"kick             2    none                                 chosen: --fix=kick is not available on this kernel (ts_kick: load: Operation not permitted (EPERM))\n"
		"\n"
		"PROGRAM                  HOOK             RUNG STATE\n");
	free(got);
}

/* The object beside this test's directory: build/xpsflap.bpf.o for build/tests/test_hooks. */
static struct bpf_object *open_obj(void)
{
	char exe[4096], path[4200];
	ssize_t n = readlink("/proc/self/exe", exe, sizeof(exe) - 1);
	char *slash;

	assert_true(n > 0);
	exe[n] = 0;
	slash = strrchr(exe, '/');
	assert_non_null(slash);
	*slash = 0;
	snprintf(path, sizeof(path), "%s/../xpsflap.bpf.o", exe);
	return bpf_object__open_file(path, NULL);
}

enum { T_PICK, T_XMIT, T_PIN, T_UNUSED, T_N };
#define T_WANT_PIN	1u
#define T_WANT_MORE	2u
#define T_CAN_A		1u
#define T_CAN_B		2u

static const struct nm_hook_decl decls[T_N] = {
	[T_PICK] = { "pick", 0, {
		{ .progs = { "xf_pick_fexit" }, .can = T_CAN_A | T_CAN_B },
		{ .progs = { "xf_pick_tp" }, .kfunc = "bpf_rdonly_cast", .can = T_CAN_B,
		  .helper = { 107, "bpf_sk_storage_get" } },
		{ .progs = { "xf_no_such_prog" } },
		{ .progs = { "xf_pick_raw", "xf_xmit_raw" }, .when = T_WANT_MORE },
		{ .virt = "elsewhere" },
	} },
	[T_XMIT] = { "xmit", 0, {
		{ .progs = { "xf_xmit_tp" }, .enumval = "SKB_DROP_REASON_SOCKET_BACKLOG" },
		{ .lost = "no reordering", .lost_why = true },
	} },
	[T_PIN] = { "pin", T_WANT_PIN, {
		{ .progs = { "xf_pin_tc" } },
		{ .lost = "pin lost" },
	} },
};

static void test_declare(void **state)
{
	struct bpf_object *obj = open_obj();
	struct nm_hook h[T_N];

	(void)state;
	assert_non_null(obj);
	/* the unknown name's rung is left out, and counted */
	assert_int_equal(nm_hooks_declare(h, decls, T_N, obj, 0), 1);
	assert_string_equal(h[T_PICK].name, "pick");
	assert_int_equal(h[T_PICK].nrungs, 3);	/* no T_WANT_MORE rung, no unknown one */
	assert_string_equal(bpf_program__name(h[T_PICK].rungs[0].progs[0]), "xf_pick_fexit");
	assert_null(h[T_PICK].rungs[0].progs[1]);
	assert_string_equal(h[T_PICK].rungs[1].kfunc, "bpf_rdonly_cast");
	assert_null(h[T_PICK].rungs[1].enumval);
	assert_int_equal(h[T_PICK].rungs[1].helper.id, 107);
	assert_string_equal(h[T_PICK].rungs[1].helper.name, "bpf_sk_storage_get");
	assert_int_equal(h[T_PICK].rungs[0].helper.id, 0);
	assert_string_equal(h[T_XMIT].rungs[0].enumval, "SKB_DROP_REASON_SOCKET_BACKLOG");
	assert_string_equal(h[T_PICK].rungs[2].label, "elsewhere");
	assert_null(h[T_PICK].rungs[2].progs[0]);
	assert_true(nm_hook_optional(&h[T_PICK]));
	/* a none rung with the refusal before it */
	assert_int_equal(h[T_XMIT].nrungs, 2);
	assert_string_equal(h[T_XMIT].rungs[1].lost_base, "no reordering");
	/* the hook and rungs of other runs are not declared */
	assert_null(h[T_PIN].name);
	assert_int_equal(h[T_PIN].nrungs, 0);
	assert_null(h[T_UNUSED].name);
	/* what a rung can do, asked of the chosen one only */
	assert_false(nm_hook_can(&h[T_PICK], T_CAN_B));
	h[T_PICK].chosen = 0;
	assert_true(nm_hook_can(&h[T_PICK], T_CAN_A | T_CAN_B));
	h[T_PICK].chosen = 1;
	assert_true(nm_hook_can(&h[T_PICK], T_CAN_B));
	assert_false(nm_hook_can(&h[T_PICK], T_CAN_A));
	assert_false(nm_hook_can(&h[T_PICK], T_CAN_A | T_CAN_B));
	h[T_PICK].chosen = 2;
	assert_false(nm_hook_can(&h[T_PICK], T_CAN_B));
	assert_false(nm_hook_can(&h[T_PIN], 0));	/* not declared: nothing chosen */

	assert_int_equal(nm_hooks_declare(h, decls, T_N, obj, T_WANT_PIN | T_WANT_MORE), 1);
	assert_int_equal(h[T_PICK].nrungs, 4);
	assert_string_equal(bpf_program__name(h[T_PICK].rungs[2].progs[1]), "xf_xmit_raw");
	assert_string_equal(h[T_PIN].name, "pin");
	assert_int_equal(h[T_PIN].nrungs, 2);
	assert_string_equal(h[T_PIN].rungs[1].lost, "pin lost");
	assert_null(h[T_PIN].rungs[1].lost_base);
	bpf_object__close(obj);
}

/*
 * A rung that needs an enumerator (kfree_skb's drop reasons, 5.17+: 5.10
 * has no such enum) looks for it in every enum of kernel BTF, 64-bit
 * enums too; here a BTF made by hand.
 */
static void test_btf_enumerator(void **state)
{
	struct btf *btf = btf__new_empty();

	(void)state;
	assert_non_null(btf);
	assert_false(nm_btf_has_enumerator(btf, "SKB_DROP_REASON_SOCKET_BACKLOG"));
	assert_true(btf__add_int(btf, "int", 4, BTF_INT_SIGNED) > 0);
	assert_true(btf__add_enum(btf, "skb_drop_reason", 4) > 0);
	assert_int_equal(btf__add_enum_value(btf, "SKB_NOT_DROPPED_YET", 0), 0);
	assert_int_equal(btf__add_enum_value(btf, "SKB_DROP_REASON_SOCKET_BACKLOG", 12), 0);
	assert_true(btf__add_enum64(btf, "wide", 8, false) > 0);
	assert_int_equal(btf__add_enum64_value(btf, "WIDE_ONE", 1ULL << 40), 0);
	assert_true(nm_btf_has_enumerator(btf, "SKB_DROP_REASON_SOCKET_BACKLOG"));
	assert_true(nm_btf_has_enumerator(btf, "WIDE_ONE"));
	/* a type's name is not an enumerator's */
	assert_false(nm_btf_has_enumerator(btf, "skb_drop_reason"));
	assert_false(nm_btf_has_enumerator(btf, "SKB_DROP_REASON_SOCKET"));
	btf__free(btf);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_refuse_match),
		cmocka_unit_test(test_refusal_str_and_hint),
		cmocka_unit_test(test_optional_and_losses),
		cmocka_unit_test(test_loss_explained),
		cmocka_unit_test(test_list_hooks_json),
		cmocka_unit_test(test_declare),
		cmocka_unit_test(test_btf_enumerator),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
