// SPDX-License-Identifier: GPL-2.0
/* agent.c - what the agent does with its command line (agent.h). */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include "lib/agent.h"

const struct argp_option *nm_agent_option_of(const struct argp_option *opts, const char *tok)
{
	size_t n = strcspn(tok, "=");

	for (const struct argp_option *op = opts; op->name || op->key || op->doc; op++) {
		if (op->key > 0 && op->key < 256 && tok[0] == '-' && tok[1] == op->key)
			return op;
		if (op->name && n > 2 && !strncmp(tok, "--", 2) && n - 2 <= strlen(op->name) &&
		    !strncmp(tok + 2, op->name, n - 2))
			return op;
	}
	return NULL;
}

int nm_agent_split_name(char *buf, size_t len, const char *file, const char *name)
{
	const char *dot = strrchr(file, '.'), *slash = strrchr(file, '/');
	size_t base = strlen(file);

	/* a .prom of the file's name, not of a directory's */
	if (dot && !strcmp(dot, ".prom") && (!slash || dot > slash + 1))
		base = dot - file;
	if (snprintf(buf, len, "%.*s-%s%s", (int)base, file, name, file + base) >= (int)len)
		return -ENAMETOOLONG;
	return 0;
}
