// SPDX-License-Identifier: GPL-2.0
/*
 * Each tool's hook table (src/NAME/hooks.c) against its built object
 * (build/NAME.bpf.o, opened by libbpf, never loaded: no root): every
 * program a rung names is in the object, and every program of the object
 * is named by a rung or is one of the tool's known companions. A name
 * misspelled in a table, or a program added to the BPF side and put on no
 * rung, fails here, not at a user's first run.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include <cmocka.h>
#include <bpf/libbpf.h>

#include "lib/hooks.h"
#include "tcpstall/hooks.h"

/* every tool's table, NAME_hooks (src/NAME/hooks.c), from the Makefile's TOOLS */
#define X(NAME)	extern const struct nm_hook_table NAME##_hooks;
NM_TOOL_LIST
#undef X

/* build/NAME.bpf.o for build/tests/test_hooks_tables (build/san/... for SANITIZE=1's) */
static struct bpf_object *open_obj(const char *tool)
{
	char exe[4096], path[4300];
	ssize_t n = readlink("/proc/self/exe", exe, sizeof(exe) - 1);
	struct bpf_object *obj;
	char *slash;

	assert_true(n > 0);
	exe[n] = 0;
	slash = strrchr(exe, '/');
	assert_non_null(slash);
	*slash = 0;
	snprintf(path, sizeof(path), "%s/../%s.bpf.o", exe, tool);
	obj = bpf_object__open_file(path, NULL);
	if (!obj)
		fail_msg("cannot open %s (make builds it)", path);
	return obj;
}

/* The names of a table's rungs that obj has no program for, printed; their count. */
static int missing(const char *tool, const struct nm_hook_decl *d, int n, struct bpf_object *obj)
{
	int bad = 0;

	for (int i = 0; i < n; i++)
		for (int r = 0; d[i].name && r < NM_MAX_RUNGS; r++)
			for (int p = 0; p < NM_RUNG_PROGS && d[i].rungs[r].progs[p]; p++) {
				const char *name = d[i].rungs[r].progs[p];

				if (bpf_object__find_program_by_name(obj, name))
					continue;
				print_message("%s: hook %s names %s, not in %s.bpf.o\n", tool, d[i].name,
					      name, tool);
				bad++;
			}
	return bad;
}

static bool named(const char *prog, const struct nm_hook_decl *d, int n, const char *const *comp)
{
	for (int i = 0; i < n; i++)
		for (int r = 0; d[i].name && r < NM_MAX_RUNGS; r++)
			for (int p = 0; p < NM_RUNG_PROGS && d[i].rungs[r].progs[p]; p++)
				if (!strcmp(d[i].rungs[r].progs[p], prog))
					return true;
	for (; *comp; comp++)
		if (!strcmp(*comp, prog))
			return true;
	return false;
}

/* The programs of obj on no rung of the table and not companions, printed; their count. */
static int unnamed(const char *tool, const struct nm_hook_decl *d, int n, const char *const *comp,
		   struct bpf_object *obj)
{
	struct bpf_program *prog;
	int bad = 0;

	bpf_object__for_each_program(prog, obj) {
		if (named(bpf_program__name(prog), d, n, comp))
			continue;
		print_message("%s: %s is on no rung and no companion\n", tool, bpf_program__name(prog));
		bad++;
	}
	return bad;
}

/* How many programs the table names: a table of none would pass anything. */
static int nprogs(const struct nm_hook_decl *d, int n)
{
	int c = 0;

	for (int i = 0; i < n; i++)
		for (int r = 0; d[i].name && r < NM_MAX_RUNGS; r++)
			for (int p = 0; p < NM_RUNG_PROGS && d[i].rungs[r].progs[p]; p++)
				c++;
	return c;
}

static void check_tool(const char *tool, const struct nm_hook_decl *d, int n, const char *const *comp)
{
	struct bpf_object *obj = open_obj(tool);
	struct bpf_program *prog;
	int nobj = 0;

	bpf_object__for_each_program(prog, obj)
		nobj++;
	assert_true(nprogs(d, n) > 0);
	assert_true(nobj > 0);
	/* each companion is a program of the object, and on no rung */
	for (const char *const *c = comp; *c; c++) {
		assert_non_null(bpf_object__find_program_by_name(obj, *c));
		assert_false(named(*c, d, n, (const char *const []){ NULL }));
	}
	assert_int_equal(missing(tool, d, n, obj), 0);
	assert_int_equal(unnamed(tool, d, n, comp, obj), 0);
	bpf_object__close(obj);
}

/* Each tool's table against its object. */
static void test_tables(void **state)
{
	const struct nm_hook_table *const tables[] = {
#define X(NAME)	&NAME##_hooks,
		NM_TOOL_LIST
#undef X
	};

	(void)state;
	for (size_t i = 0; i < sizeof(tables) / sizeof(tables[0]); i++)
		check_tool(tables[i]->tool, tables[i]->decls, tables[i]->n, tables[i]->companions);
}

/* The checks themselves: a misspelled name and a program left off a rung are caught. */
static void test_checks_catch(void **state)
{
	struct nm_hook_decl bad[TS_NR_HOOKS];
	struct bpf_object *obj = open_obj("tcpstall");
	const char *const none[] = { NULL };
	const char *const comp[] = { "ts_kick", NULL };

	(void)state;
	memcpy(bad, ts_hook_decls, sizeof(bad));
	/* one letter off */
	bad[TS_HOOK_KICK].rungs[0].progs[0] = "ts_kikc";
	assert_int_equal(missing("test", bad, TS_NR_HOOKS, obj), 1);
	/* ... and the program it meant is now on no rung */
	assert_int_equal(unnamed("test", bad, TS_NR_HOOKS, none, obj), 1);
	/* unless it is a companion */
	assert_int_equal(unnamed("test", bad, TS_NR_HOOKS, comp, obj), 0);
	bpf_object__close(obj);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_tables),
		cmocka_unit_test(test_checks_catch),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
