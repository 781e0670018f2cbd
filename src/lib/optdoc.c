// SPDX-License-Identifier: GPL-2.0
/*
 * The docs' OPTIONS from the option tables (optdoc.h): a definition list,
 * "`--name=ARG`" then ":   text", in --help's order, own options first.
 * The text is the doc table's (the reference), or argp's own (the man
 * page's brief region: what --help prints).
 */
#include <ctype.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "lib/cli.h"
#include "lib/optdoc.h"

#define WRAP		80	/* columns of a definition's lines, their indent included */
#define README_WRAP	100	/* README's lines are longer */
#define MAX_LISTED	64
#define START_MARK	"<!-- options"	/* then ": " (at length) or "-brief: " */
#define BRIEF_KIND	"-brief"
#define END_MARK	"<!-- end -->"

/*
 * The tools: the Makefile's TOOLS, as X(NAME) X(NAME)..., each NAME's
 * NAME_tool_doc in its src/NAME/opts.c; so a new tool is listed by being
 * built, not by an edit here.
 */
#ifndef NM_TOOL_LIST
#error "NM_TOOL_LIST: the Makefile's TOOLS as X(NAME) ..."
#endif
#define X(t) extern const struct nm_tool_doc t##_tool_doc;
NM_TOOL_LIST
#undef X
#define X(t) &t##_tool_doc,
const struct nm_tool_doc *const nm_tool_docs[] = { NM_TOOL_LIST NULL };
#undef X

/* The help options every tool has (lib/cli.c's, in place of argp's own) */
static const struct nm_optdoc help_docs[] = {
	{ "help", "Give this help list.", NULL, NULL },
	{ "usage", "Give a short usage message.", NULL, NULL },
	{ "version", "Print program version.", NULL, NULL },
	{},
};

const struct nm_tool_doc *nm_optdoc_tool(const char *tool)
{
	for (int i = 0; nm_tool_docs[i]; i++)
		if (!strcmp(nm_tool_docs[i]->tool, tool))
			return nm_tool_docs[i];
	return NULL;
}

const struct nm_optdoc *nm_optdoc_find(const struct nm_optdoc *docs, const char *name)
{
	for (; docs && docs->name; docs++)
		if (!strcmp(docs->name, name))
			return docs;
	return NULL;
}

bool nm_optdoc_listed(const struct argp_option *o)
{
	return o->name && !(o->flags & (OPTION_HIDDEN | OPTION_DOC | OPTION_ALIAS));
}

static bool has_short(const struct argp_option *o)
{
	return o->key > 0 && o->key < 128 && isprint(o->key);
}

/*
 * --help's order within a group: by the short option where there is one,
 * else the long name; a short option after the long names that start with
 * its letter (--cleanup, then -c, --count), as argp sorts them.
 */
static int help_cmp(const void *a, const void *b)
{
	const struct argp_option *x = *(const struct argp_option *const *)a;
	const struct argp_option *y = *(const struct argp_option *const *)b;
	char kx[3] = { (char)x->key, 0x7f }, ky[3] = { (char)y->key, 0x7f };

	return strcasecmp(has_short(x) ? kx : x->name, has_short(y) ? ky : y->name);
}

static int listed_sorted(const struct argp_option *opts, const struct argp_option **out)
{
	int n = 0;

	for (; opts && (opts->name || opts->key || opts->doc); opts++)
		if (nm_optdoc_listed(opts) && n < MAX_LISTED)
			out[n++] = opts;
	qsort(out, n, sizeof(*out), help_cmp);
	return n;
}

/* text with each "{tool}" replaced by tool; the caller frees it */
static char *expand(const char *text, const char *tool)
{
	size_t cap = strlen(text) * (strlen(tool) + 1) + 1, off = 0;
	char *out = malloc(cap);

	if (!out)
		abort();
	while (*text) {
		if (!strncmp(text, "{tool}", 6)) {
			off += snprintf(out + off, cap - off, "%s", tool);
			text += 6;
		} else {
			out[off++] = *text++;
		}
	}
	out[off] = 0;
	return out;
}

/* A word that would start a Markdown block at a line's start: not put there */
static bool block_start(const char *w, size_t n)
{
	size_t d = strspn(w, "0123456789");

	return (n == 1 && strchr("-+*>:=", w[0])) || w[0] == '#' ||
	       (d && d + 1 == n && (w[d] == '.' || w[d] == ')'));
}

/* One paragraph's words on lines of at most width columns, each line after the first after indent */
static void wrap(FILE *f, const char *p, size_t plen, const char *first, const char *indent,
		 int width)
{
	const char *end = p + plen;
	int col = fprintf(f, "%s", first), start = col;

	while (p < end) {
		size_t n;

		p += strspn(p, " \n");
		if (p >= end)
			break;
		n = strcspn(p, " \n");
		if (p + n > end)
			n = end - p;
		if (col > start && col + 1 + (int)n > width && !block_start(p, n))
			col = fprintf(f, "\n%s", indent);
		else if (col > start)
			col += fprintf(f, " ");
		col += fprintf(f, "%.*s", (int)n, p);
		p += n;
	}
	fputc('\n', f);
}

/* A definition's text: paragraphs, wrapped and indented; a ``` block as it is */
static void write_text(FILE *f, const char *text, const char *tool)
{
	char *t = expand(text, tool);

	for (char *p = t; *p;) {
		char *sep = strstr(p, "\n\n");
		size_t n = sep ? (size_t)(sep - p) : strlen(p);

		if (p != t)
			fputc('\n', f);
		if (!strncmp(p, "```", 3))
			fprintf(f, "%.*s\n", (int)n, p);
		else
			wrap(f, p, n, p == t ? ":   " : "    ", "    ", WRAP);
		p += n;
		p += strspn(p, "\n");
	}
	free(t);
}

/*
 * argp's doc of an option as Markdown, for a definition's text: what
 * --help prints, with every character Markdown would read as markup
 * escaped (an underscore pair would be emphasis: "tcp_backlog_ack_defer").
 */
static void write_brief_text(FILE *f, const char *doc)
{
	char *md = NULL;
	size_t len = 0;
	FILE *m = open_memstream(&md, &len);

	if (!m)
		abort();
	for (const char *c = doc ? doc : "(no doc: add one to the option table)"; *c; c++) {
		if (strchr("\\`*_[]<>|", *c))
			fputc('\\', m);
		fputc(*c, m);
	}
	fclose(m);
	wrap(f, md, len, ":   ", "    ", WRAP);
	free(md);
}

/* As --help prints it: its short options, those of the aliases after it too ("-h, -?, --help") */
static void write_term(FILE *f, const struct argp_option *o)
{
	fputc('`', f);
	if (has_short(o))
		fprintf(f, "-%c, ", o->key);
	for (const struct argp_option *a = o + 1; (a->flags & OPTION_ALIAS) && !a->name; a++)
		if (has_short(a))
			fprintf(f, "-%c, ", a->key);
	fprintf(f, "--%s", o->name);
	if (o->arg)
		fprintf(f, o->flags & OPTION_ARG_OPTIONAL ? "[=%s]" : "=%s", o->arg);
	fputs("`\n", f);
}

/*
 * The options of one table, in --help's order: each tool's doc, else the
 * fallback's; brief: argp's own doc, as --help prints it.
 */
static void write_group(FILE *f, const struct nm_tool_doc *t, const struct argp_option *opts,
			const struct nm_optdoc *fallback, bool brief)
{
	const struct argp_option *v[MAX_LISTED];
	int n = listed_sorted(opts, v);

	for (int i = 0; i < n; i++) {
		const struct nm_optdoc *d = nm_optdoc_find(t->docs, v[i]->name);

		if (!d)
			d = nm_optdoc_find(fallback, v[i]->name);
		write_term(f, v[i]);
		if (brief)
			write_brief_text(f, v[i]->doc);
		else
			write_text(f, d ? d->text : "(no doc: add one to the option tables)", t->tool);
		fputc('\n', f);
	}
}

static const struct argp_option *common_options_of(const struct nm_tool_doc *t)
{
	return t->argp->children && t->argp->children[0].argp ?
	       t->argp->children[0].argp->options : NULL;
}

static void write_tool(FILE *f, const struct nm_tool_doc *t, bool brief)
{
	fprintf(f, "\nOptions specific to %s:\n\n", t->tool);
	write_group(f, t, t->argp->options, NULL, brief);
	fprintf(f, "Common options:\n\n");
	write_group(f, t, common_options_of(t), nm_common_docs, brief);
	write_group(f, t, nm_help_argp.options, help_docs, brief);
}

void nm_optdoc_write_tool(FILE *f, const struct nm_tool_doc *t)
{
	write_tool(f, t, false);
}

void nm_optdoc_write_tool_brief(FILE *f, const struct nm_tool_doc *t)
{
	write_tool(f, t, true);
}

/* Whether tool t's --help lists the common option name */
static bool takes(const struct nm_tool_doc *t, const char *name)
{
	for (const struct argp_option *o = common_options_of(t); o && o->name; o++)
		if (!strcmp(o->name, name))
			return nm_optdoc_listed(o);
	return false;
}

/* "xpsflap and qdiscstuck only" for an option not every tool takes; "" if all do */
static void only_tools(const char *name, char *buf, size_t len)
{
	int n = 0, all = 0, off = 0, k = 0;

	for (int i = 0; nm_tool_docs[i]; i++, all++)
		n += takes(nm_tool_docs[i], name);
	buf[0] = 0;
	if (n == all)
		return;
	for (int i = 0; nm_tool_docs[i]; i++) {
		if (!takes(nm_tool_docs[i], name))
			continue;
		k++;
		off += snprintf(buf + off, len - off, "%s%s", k == 1 ? "" : k == n ? " and " : ", ",
				nm_tool_docs[i]->tool);
	}
	snprintf(buf + off, len - off, " only");
}

void nm_optdoc_write_readme(FILE *f)
{
	const struct argp_option *o = common_options_of(nm_tool_docs[0]);
	char *para = NULL, only[128];
	size_t plen = 0;
	FILE *m = open_memstream(&para, &plen);

	if (!m)
		abort();
	fprintf(m, "Common options (each tool's help lists those it takes, under that title):");
	for (; o && o->name; o++) {
		const struct nm_optdoc *d = nm_optdoc_find(nm_common_docs, o->name);
		const char *arg = d && d->readme_arg ? d->readme_arg : o->arg;
		const char *note = d && d->readme_note ? d->readme_note : "";

		only_tools(o->name, only, sizeof(only));
		fprintf(m, " `");
		if (has_short(o))
			fprintf(m, "-%c/", o->key);
		fprintf(m, "--%s%s%s`", o->name, arg ? " " : "", arg ? arg : "");
		if (*note || *only)
			fprintf(m, " (%s%s%s)", note, *note && *only ? "; " : "", only);
		fputc(o[1].name ? ',' : '.', m);
	}
	fclose(m);
	wrap(f, para, plen, "", "", README_WRAP);
	free(para);
}

/* The first option of want's lines from line i back: "--fix", or "the heading" */
static void option_at(char **lines, int i, char *buf, size_t len)
{
	for (; i >= 0; i--) {
		char *tick = lines[i][0] == '`' ? lines[i] : strchr(lines[i], '`');

		if (tick && strstr(tick, "--")) {
			char *s = strstr(tick, "--");

			snprintf(buf, len, "%.*s", (int)strcspn(s, "`=[ "), s);
			return;
		}
	}
	snprintf(buf, len, "the heading");
}

static int split_lines(char *s, char ***out)
{
	int n = 0, cap = 16;
	char **v = malloc(cap * sizeof(*v));

	for (char *p = s; v && *p;) {
		if (n == cap)
			v = realloc(v, (cap *= 2) * sizeof(*v));
		if (!v)
			break;
		v[n++] = p;
		p += strcspn(p, "\n");
		if (*p)
			*p++ = 0;
	}
	if (!v)
		abort();
	*out = v;
	return n;
}

/* Where have and want first differ, as a line of want's (its last when have is want's beginning) */
static void first_diff(const char *have, size_t hlen, char *want, char *opt, size_t len)
{
	char *h = strndup(have, hlen), **hl, **wl;
	int nh = split_lines(h, &hl), nw = split_lines(want, &wl), i = 0;

	while (i < nh && i < nw && !strcmp(hl[i], wl[i]))
		i++;
	option_at(wl, i < nw ? i : nw - 1, opt, len);
	free(hl), free(wl), free(h);
}

/*
 * The region's expected text for a marker's name and kind; -1 for a name
 * with no tables (README's "common" has no brief kind)
 */
static int expected(const char *name, bool brief, char **out, size_t *len)
{
	const struct nm_tool_doc *t = nm_optdoc_tool(name);
	FILE *m;

	if (!t && (brief || strcmp(name, "common")))
		return -1;
	m = open_memstream(out, len);
	if (!m)
		abort();
	if (t)
		write_tool(m, t, brief);
	else
		nm_optdoc_write_readme(m);
	fclose(m);
	return 0;
}

static char *read_all(const char *path, size_t *len)
{
	FILE *f = fopen(path, "r");
	char *buf = NULL;
	size_t cap = 0, n;

	*len = 0;
	if (!f)
		return NULL;
	do {
		char *nb = realloc(buf, cap += 65536);

		if (!nb)
			abort();
		buf = nb;
		n = fread(buf + *len, 1, cap - *len - 1, f);
		*len += n;
	} while (n && !ferror(f));
	buf[*len] = 0;
	if (ferror(f)) {
		free(buf);
		buf = NULL;
	}
	fclose(f);
	return buf;
}

static int write_all(const char *path, const char *s, size_t len, char *why, size_t wlen)
{
	char tmp[4096];
	FILE *f;

	snprintf(tmp, sizeof(tmp), "%s.tmp", path);
	f = fopen(tmp, "w");
	if (!f || fwrite(s, 1, len, f) != len || fclose(f) || rename(tmp, path)) {
		snprintf(why, wlen, "%s: %s", path, strerror(errno));
		if (f)
			unlink(tmp);
		return -1;
	}
	return 0;
}

int nm_optdoc_file(const char *path, bool update, int *regions, char *why, size_t len)
{
	size_t flen, olen = 0;
	char *src = read_all(path, &flen), *out = NULL, *p;
	FILE *o;
	int ret = 0;

	*regions = 0;
	if (!src) {
		snprintf(why, len, "%s: %s", path, strerror(errno));
		return -1;
	}
	o = open_memstream(&out, &olen);
	if (!o)
		abort();
	for (p = src; ret >= 0;) {
		char *start = p, *body, *end, name[64] = "", mark[80], *want = NULL;
		bool brief = false;
		size_t wlen;

		/* the next "<!-- options: NAME" or "<!-- options-brief: NAME" line; another is text */
		while ((start = strstr(start, "\n" START_MARK))) {
			const char *kind = start + 1 + strlen(START_MARK);

			brief = !strncmp(kind, BRIEF_KIND ": ", strlen(BRIEF_KIND) + 2);
			if (brief || !strncmp(kind, ": ", 2))
				break;
			start++;
		}
		if (!start)
			break;
		snprintf(mark, sizeof(mark), "%s%s: ", START_MARK, brief ? BRIEF_KIND : "");
		body = strchr(start + 1, '\n');
		end = body ? strstr(body, "\n" END_MARK "\n") : NULL;
		sscanf(start + 1 + strlen(mark), "%63[a-z]", name);
		if (!end) {
			snprintf(why, len, "%s: %s%s has no %s line after it", path, mark, name, END_MARK);
			ret = -1;
			break;
		}
		body++, end++;
		if (expected(name, brief, &want, &wlen)) {
			snprintf(why, len, "%s: %s%s: no option tables of that name", path, mark, name);
			ret = -1;
			break;
		}
		(*regions)++;
		fwrite(p, 1, body - p, o);
		fwrite(want, 1, wlen, o);
		if (!update && ret == 0 && (wlen != (size_t)(end - body) || memcmp(want, body, wlen))) {
			char opt[64];

			first_diff(body, end - body, want, opt, sizeof(opt));
			snprintf(why, len, "%s: %s's options%s differ from the option tables from %s on (make docs rewrites them)",
				 path, name, brief ? " (brief)" : "", opt);
			ret = 1;
		}
		free(want);
		p = end;
	}
	if (ret >= 0)
		fputs(p, o);
	fclose(o);
	if (update && ret == 0 && (olen != flen || memcmp(out, src, flen)))
		ret = write_all(path, out, olen, why, len);
	free(out);
	free(src);
	return ret;
}
