// SPDX-License-Identifier: GPL-2.0
/*
 * nm-docopts: the docs' OPTIONS from the option tables (lib/optdoc.h).
 *   nm-docopts TOOL             the region of docs/reference/TOOL.md ("common": README's)
 *   nm-docopts --brief TOOL     the region of docs/TOOL.md, the man page: --help's texts
 *   nm-docopts --update FILE... rewrite each file's regions (make docs)
 *   nm-docopts --check FILE...  exit 1, naming the first option that differs
 */
#include <stdio.h>
#include <string.h>
#include "lib/optdoc.h"

static int files(int argc, char **argv, bool update)
{
	char why[512];
	int ret = 0, n;

	for (int i = 2; i < argc; i++) {
		int rc = nm_optdoc_file(argv[i], update, &n, why, sizeof(why));

		if (rc)
			fprintf(stderr, "nm-docopts: %s\n", why);
		else if (!n)
			fprintf(stderr, "nm-docopts: %s: no <!-- options: NAME --> or <!-- options-brief: NAME --> region\n",
				argv[i]);
		if (rc || !n)
			ret = 1;
	}
	return ret;
}

int main(int argc, char **argv)
{
	if (argc >= 3 && (!strcmp(argv[1], "--update") || !strcmp(argv[1], "--check")))
		return files(argc, argv, !strcmp(argv[1], "--update"));
	if (argc == 2 && !strcmp(argv[1], "common")) {
		nm_optdoc_write_readme(stdout);
		return fflush(stdout) ? 1 : 0;
	}
	if (argc == 3 && !strcmp(argv[1], "--brief") && nm_optdoc_tool(argv[2])) {
		nm_optdoc_write_tool_brief(stdout, nm_optdoc_tool(argv[2]));
		return fflush(stdout) ? 1 : 0;
	}
	if (argc == 2 && nm_optdoc_tool(argv[1])) {
		nm_optdoc_write_tool(stdout, nm_optdoc_tool(argv[1]));
		return fflush(stdout) ? 1 : 0;
	}
	fprintf(stderr, "usage: nm-docopts TOOL|common | --brief TOOL | --update FILE... | --check FILE...\n");
	return 2;
}
