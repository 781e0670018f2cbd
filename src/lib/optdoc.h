/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The OPTIONS of the docs and README's common options, made from the argp
 * tables that --help prints and a doc table beside each, keyed by the long
 * option: help and docs come from one place. make docs (build/nm-docopts)
 * rewrites the regions between a start line and "<!-- end -->"; a unit
 * test fails when a region differs. Two kinds, as a page has room:
 *   "<!-- options: NAME ... -->"        each option's doc text, at length
 *                                       (docs/reference/NAME.md; "common":
 *                                       README's paragraph)
 *   "<!-- options-brief: NAME ... -->"  each option's argp doc, what --help
 *                                       prints (docs/NAME.md, the man page)
 */
#ifndef NETMEDIC_OPTDOC_H
#define NETMEDIC_OPTDOC_H

#include <argp.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

/*
 * One option's doc: Markdown, paragraphs split by "\n\n", each wrapped and
 * indented as a definition's text; a paragraph that starts with ``` is a
 * code block, printed as it is. "{tool}" is the tool's name.
 */
struct nm_optdoc {
	const char *name;	/* the long option it documents */
	const char *text;
	/* README's common options only: the argument shown, when not argp's, and a note */
	const char *readme_arg;
	const char *readme_note;
};

/*
 * A tool's: its argp (the common options its child; those hidden are not
 * taken, or refused), the docs of its own options, and its own text of
 * the common options whose common text does not fit it.
 */
struct nm_tool_doc {
	const char *tool;
	const struct argp *argp;
	const struct nm_optdoc *docs;	/* ends with { NULL } */
};

/* The common options' docs (lib/cli.c), keyed as nm_common_argp's options. */
extern const struct nm_optdoc nm_common_docs[];

/* Every tool's (their src/NAME/opts.c), NULL-terminated; README's paragraph names them in this order. */
extern const struct nm_tool_doc *const nm_tool_docs[];

/* The tool's entry of nm_tool_docs, or NULL. */
const struct nm_tool_doc *nm_optdoc_tool(const char *tool);

/* The doc entry named name in docs (ends with { NULL }), or NULL. */
const struct nm_optdoc *nm_optdoc_find(const struct nm_optdoc *docs, const char *name);

/* The options --help lists (not hidden, not a doc line) of an argp table. */
bool nm_optdoc_listed(const struct argp_option *o);

/* Writes the region of docs/reference/TOOL.md: its own options, then the common ones it takes. */
void nm_optdoc_write_tool(FILE *f, const struct nm_tool_doc *t);
/* The same options, each with the text --help prints: the man page's (docs/TOOL.md). */
void nm_optdoc_write_tool_brief(FILE *f, const struct nm_tool_doc *t);
/* Writes README's region: the common options, and which tools take those not all take. */
void nm_optdoc_write_readme(FILE *f);

/*
 * Each region of the file at path, compared with what the tables make, or
 * rewritten (update). 0 when all agree (or were rewritten), 1 when one
 * differs (why names the file, the tool and the first option that
 * differs), -1 on an error (why says which); regions counts them.
 */
int nm_optdoc_file(const char *path, bool update, int *regions, char *why, size_t len);

#endif
