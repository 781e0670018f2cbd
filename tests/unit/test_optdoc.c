// SPDX-License-Identifier: GPL-2.0
/*
 * Unit tests for src/lib/optdoc.c: every option --help lists has exactly
 * one doc text and every doc text an option, and the docs' OPTIONS regions
 * (docs/reference/NAME.md at length, docs/NAME.md as --help says it,
 * README.md) are what the tables make.
 */
#include <glob.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <cmocka.h>

#include "lib/cli.h"
#include "lib/optdoc.h"

#ifndef NM_SRCDIR
#define NM_SRCDIR "."
#endif

const char *argp_program_version = "netmedic test";

static int count_docs(const struct nm_optdoc *docs, const char *name)
{
	int n = 0;

	for (; docs->name; docs++)
		n += !strcmp(docs->name, name);
	return n;
}

static const struct argp_option *find_opt(const struct argp_option *o, const char *name)
{
	for (; o && (o->name || o->key || o->doc); o++)
		if (o->name && !strcmp(o->name, name))
			return o;
	return NULL;
}

static int nopts(const struct argp_option *o)
{
	int n = 0;

	for (; o && (o->name || o->key || o->doc); o++)
		n += nm_optdoc_listed(o);
	return n;
}

/* each common option has one common doc, each common doc an option */
static void test_common_docs(void **state)
{
	const struct argp_option *o = nm_common_argp.options;
	int n = 0;

	(void)state;
	for (; o->name; o++) {
		if (count_docs(nm_common_docs, o->name) != 1)
			fail_msg("common option --%s: %d doc entries in nm_common_docs", o->name,
				 count_docs(nm_common_docs, o->name));
		n++;
	}
	for (const struct nm_optdoc *d = nm_common_docs; d->name; d++)
		if (!find_opt(nm_common_argp.options, d->name))
			fail_msg("nm_common_docs: \"%s\" is no common option", d->name);
	/* the table was read: a parse that found nothing must not pass */
	assert_true(n >= 12);
}

/* The CLIs of the tree: its src/NAME/main.c files; each must have its doc. */
static int ntools_built(void)
{
	glob_t g;
	int n;

	if (glob(NM_SRCDIR "/src/*/main.c", 0, NULL, &g))
		fail_msg("no " NM_SRCDIR "/src/*/main.c");
	n = g.gl_pathc;
	for (size_t i = 0; i < g.gl_pathc; i++) {
		const char *p = g.gl_pathv[i] + strlen(NM_SRCDIR "/src/");
		char name[64];

		snprintf(name, sizeof(name), "%.*s", (int)(strchr(p, '/') - p), p);
		if (!nm_optdoc_tool(name))
			fail_msg("src/%s/main.c: no option docs for %s", name, name);
	}
	globfree(&g);
	return n;
}

/*
 * Each of a tool's own options has one doc; each of its docs names one of
 * its options or a common option its --help lists (its own text of it).
 */
static void test_tool_docs(void **state)
{
	int ntools = 0;

	(void)state;
	for (int i = 0; nm_tool_docs[i]; i++, ntools++) {
		const struct nm_tool_doc *t = nm_tool_docs[i];
		const struct argp_option *common = t->argp->children[0].argp->options;

		assert_true(nopts(t->argp->options) >= 4);
		for (const struct argp_option *o = t->argp->options; o->name; o++)
			if (nm_optdoc_listed(o) && count_docs(t->docs, o->name) != 1)
				fail_msg("%s --%s: %d doc entries", t->tool, o->name,
					 count_docs(t->docs, o->name));
		for (const struct nm_optdoc *d = t->docs; d->name; d++) {
			const struct argp_option *o = find_opt(t->argp->options, d->name);

			if (!o)
				o = find_opt(common, d->name);
			if (!o || !nm_optdoc_listed(o))
				fail_msg("%s: doc \"%s\" documents no option its --help lists", t->tool,
					 d->name);
			if (count_docs(t->docs, d->name) != 1)
				fail_msg("%s: doc \"%s\" is there %d times", t->tool, d->name,
					 count_docs(t->docs, d->name));
		}
	}
	/* one for each CLI, src/NAME/main.c (the Makefile's TOOLS) */
	assert_int_equal(ntools, ntools_built());
}

/* --dev: xpsflap and qdiscstuck list it; tcpstall parses it (to refuse it) but does not */
static void test_dev_per_tool(void **state)
{
	static const struct { const char *tool; bool listed; } want[] = {
		{ "xpsflap", true }, { "qdiscstuck", true }, { "tcpstall", false },
	};

	(void)state;
	for (size_t i = 0; i < sizeof(want) / sizeof(want[0]); i++) {
		const struct nm_tool_doc *t = nm_optdoc_tool(want[i].tool);
		const struct argp_option *dev;

		assert_non_null(t);
		dev = find_opt(t->argp->children[0].argp->options, "dev");
		assert_non_null(dev);
		assert_int_equal(nm_optdoc_listed(dev), want[i].listed);
	}
}

static char *written(void (*fn)(FILE *, const struct nm_tool_doc *), const struct nm_tool_doc *t)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *m = open_memstream(&buf, &len);

	assert_non_null(m);
	if (fn)
		fn(m, t);
	else
		nm_optdoc_write_readme(m);
	fclose(m);
	return buf;
}

/*
 * README's "`--dev IFNAME` (repeatable; ... only)": what the parentheses
 * hold after "repeatable; ". noinline: inlined beside written(), gcc 12
 * takes a pointer into open_memstream's buffer for one to written()'s
 * local (-Wdangling-pointer).
 */
static __attribute__((noinline)) void dev_only(const char *readme, char *only, size_t len)
{
	const char *at = strstr(readme, "`--dev IFNAME` (repeatable; ");
	size_t n;

	assert_non_null(at);
	at += strlen("`--dev IFNAME` (repeatable; ");
	n = strcspn(at, ")");
	assert_true(at[n] == ')' && n < len);
	memcpy(only, at, n);
	only[n] = 0;
}

/* the generated text: terms as --help prints them, --dev where a tool takes it */
static void test_written(void **state)
{
	char *xf = written(nm_optdoc_write_tool, nm_optdoc_tool("xpsflap"));
	char *ts = written(nm_optdoc_write_tool, nm_optdoc_tool("tcpstall"));
	char *brief = written(nm_optdoc_write_tool_brief, nm_optdoc_tool("tcpstall"));
	char *readme = written(NULL, NULL);
	char only[256] = "";

	(void)state;
	assert_non_null(strstr(xf, "\n`--dev=IFNAME`\n:   Watch this device only"));
	assert_non_null(strstr(xf, "\n`-i, --interval=SEC`\n"));
	assert_non_null(strstr(xf, "\n`-h, -?, --help`\n:   Give this help list.\n"));
	/* {tool} is the tool's name */
	assert_non_null(strstr(xf, "when xpsflap starts"));
	assert_null(strstr(xf, "{tool}"));
	assert_null(strstr(ts, "--dev="));
	assert_non_null(strstr(ts, "\n`--fix[=WHAT]`\n"));
	assert_non_null(strstr(ts, "\n`-H, --histogram`\n"));
	/* brief: the same terms, each with argp's doc, Markdown escaped */
	assert_non_null(strstr(brief, "\n`--sweep=MS`\n:   Socket sweep period (default 10)\n"));
	assert_non_null(strstr(brief, "\n`-H, --histogram`\n:   Print log2 histograms of stall durations\n"));
	assert_non_null(strstr(brief, "tcp\\_backlog\\_ack\\_defer=1"));
	assert_non_null(strstr(brief, "\nCommon options:\n"));
	assert_non_null(strstr(brief, "\n`-h, -?, --help`\n:   Give this help list\n"));
	assert_null(strstr(brief, "--dev="));
	assert_null(strstr(brief, "**REMEDIES**"));
	/* wherever the lines wrap */
	for (char *c = readme; *c; c++)
		*c = *c == '\n' ? ' ' : *c;
	/* the tools that take --dev, whichever others a new tool adds: never tcpstall */
	dev_only(readme, only, sizeof(only));
	assert_non_null(strstr(only, "qdiscstuck"));
	assert_non_null(strstr(only, "xpsflap"));
	assert_non_null(strstr(only, " and "));
	assert_null(strstr(only, "tcpstall"));
	assert_string_equal(only + strlen(only) - strlen(" only"), " only");
	assert_non_null(strstr(readme, "`--hooks auto|fentry|tracepoint`"));
	assert_non_null(strstr(readme, "`--listen ADDR:PORT`"));
	free(xf), free(ts), free(brief), free(readme);
}

static void check_file(const char *path)
{
	char why[512] = "";
	int regions, rc = nm_optdoc_file(path, false, &regions, why, sizeof(why));

	if (rc)
		fail_msg("%s", why);
	assert_int_equal(regions, 1);
}

/*
 * each doc's region is what the tables make (make docs rewrites them): the
 * reference's at length, the man page's as --help says it
 */
static void test_docs_agree(void **state)
{
	char path[512];

	(void)state;
	check_file(NM_SRCDIR "/README.md");
	for (int i = 0; nm_tool_docs[i]; i++) {
		snprintf(path, sizeof(path), NM_SRCDIR "/docs/%s.md", nm_tool_docs[i]->tool);
		check_file(path);
		snprintf(path, sizeof(path), NM_SRCDIR "/docs/reference/%s.md", nm_tool_docs[i]->tool);
		check_file(path);
	}
}

/*
 * A copy of doc with --sweep's text changed: the check names tcpstall,
 * --sweep and the region's kind, and --update puts the tables' text back.
 */
static void differs_named(const char *doc, const char *says)
{
	char tmpl[] = "/tmp/nm-optdoc-XXXXXX", why[512] = "", *s, *t;
	FILE *in = fopen(doc, "r");
	size_t len;
	int fd, regions;

	assert_non_null(in);
	s = calloc(1, 1 << 20);
	assert_non_null(s);
	len = fread(s, 1, (1 << 20) - 1, in);
	fclose(in);
	t = strstr(s, "\n`--sweep=MS`\n:   Socket sweep period");
	assert_non_null(t);
	memcpy(strstr(t, "Socket"), "Sweep ", 6);
	fd = mkstemp(tmpl);
	assert_true(fd >= 0);
	assert_int_equal(write(fd, s, len), (ssize_t)len);
	close(fd);
	assert_int_equal(nm_optdoc_file(tmpl, false, &regions, why, sizeof(why)), 1);
	assert_non_null(strstr(why, says));
	assert_non_null(strstr(why, "from --sweep on"));
	/* --update puts the tables' text back */
	assert_int_equal(nm_optdoc_file(tmpl, true, &regions, why, sizeof(why)), 0);
	assert_int_equal(nm_optdoc_file(tmpl, false, &regions, why, sizeof(why)), 0);
	unlink(tmpl);
	free(s);
}

static void test_differs_named(void **state)
{
	(void)state;
	differs_named(NM_SRCDIR "/docs/reference/tcpstall.md", "tcpstall's options differ");
	differs_named(NM_SRCDIR "/docs/tcpstall.md", "tcpstall's options (brief) differ");
}

/* a region of no tool's, or one without its end, is an error, not agreement */
static void test_bad_regions(void **state)
{
	static const char *const bad[] = {
		"x\n<!-- options: nosuchtool -->\n<!-- end -->\n",
		"x\n<!-- options: tcpstall -->\nno end\n",
		"x\n<!-- options-brief: tcpstall -->\nno end\n",
		/* README's paragraph has no brief kind */
		"x\n<!-- options-brief: common -->\n<!-- end -->\n",
	};
	char tmpl[32], why[512];
	int regions;

	(void)state;
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		int fd;

		snprintf(tmpl, sizeof(tmpl), "/tmp/nm-optdoc-XXXXXX");
		fd = mkstemp(tmpl);
		assert_true(fd >= 0);
		assert_int_equal(write(fd, bad[i], strlen(bad[i])), (ssize_t)strlen(bad[i]));
		close(fd);
		assert_int_equal(nm_optdoc_file(tmpl, false, &regions, why, sizeof(why)), -1);
		unlink(tmpl);
	}
}

/* a comment that only starts like a marker is text: no region, no error */
static void test_other_comment_is_text(void **state)
{
	static const char text[] = "x\n<!-- optionsy: tcpstall -->\n<!-- end -->\n";
	char tmpl[] = "/tmp/nm-optdoc-XXXXXX", why[512] = "";
	int fd, regions = -1;

	(void)state;
	fd = mkstemp(tmpl);
	assert_true(fd >= 0);
	assert_int_equal(write(fd, text, strlen(text)), (ssize_t)strlen(text));
	close(fd);
	assert_int_equal(nm_optdoc_file(tmpl, false, &regions, why, sizeof(why)), 0);
	assert_int_equal(regions, 0);
	unlink(tmpl);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_common_docs),
		cmocka_unit_test(test_tool_docs),
		cmocka_unit_test(test_dev_per_tool),
		cmocka_unit_test(test_written),
		cmocka_unit_test(test_docs_agree),
		cmocka_unit_test(test_differs_named),
		cmocka_unit_test(test_bad_regions),
		cmocka_unit_test(test_other_comment_is_text),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
