/* SPDX-License-Identifier: GPL-2.0 */
/*
 * qdiscstuck's options: its own (--threshold, --fix, --kick, --lock, --top,
 * --sort, --all, --list-fixes) beside the common ones. The argp table is data a test can
 * read as well as --help (OPTIONS of docs/reference/qdiscstuck.md and
 * docs/qdiscstuck.md).
 */
#ifndef NETMEDIC_QDISCSTUCK_OPTS_H
#define NETMEDIC_QDISCSTUCK_OPTS_H

#include <stdbool.h>
#include "lib/cli.h"
#include "lib/optdoc.h"

struct qs_env {
	struct nm_opts o;
	long threshold_ms;
	int fix;		/* QS_FIX_ bits */
	struct nm_view view;	/* --top: ok qdiscs shown; --sort: enum qs_sort; --all: idle ones too */
	bool list_fixes;
	const char *kick;	/* --kick DEV:QUEUE */
	const char *lock;	/* --lock DEV:QUEUE */
};

/* The command line into e, defaults first; a usage error exits with status 2 (argp). */
void qs_opts_parse(struct qs_env *e, int argc, char **argv);
/* The remedy option given (--kick, --lock, --fix), for the usage errors naming it; or NULL */
const char *qs_remedy_opt(const struct qs_env *e);

/*
 * Its options and their docs: OPTIONS of docs/reference/qdiscstuck.md, and of
 * docs/qdiscstuck.md, the man page (make docs).
 */
extern const struct nm_tool_doc qdiscstuck_tool_doc;

#endif
