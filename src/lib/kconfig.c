// SPDX-License-Identifier: GPL-2.0
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <zlib.h>
#include "lib/cli.h"
#include "lib/kconfig.h"

int nm_kconfig_line(const char *line, const char *name, long *v)
{
	size_t n = strlen(name);

	if (strncmp(line, name, n) || line[n] != '=')
		return -1;
	*v = strtol(line + n + 1, NULL, 0);
	return 0;
}

/* gzopen reads plain files too: one reader for both places */
static long from_file(const char *path, const char *name)
{
	char line[256];
	long v = -1;
	gzFile f = gzopen(path, "r");

	if (!f)
		return -1;
	while (gzgets(f, line, sizeof(line))) {
		if (!nm_kconfig_line(line, name, &v))
			break;
	}
	gzclose(f);
	return v;
}

long nm_kconfig_long(const char *name)
{
	char path[256];
	long v = from_file("/proc/config.gz", name);

	if (v >= 0)
		return v;
	snprintf(path, sizeof(path), "/boot/config-%s", nm_kernel_release());
	return from_file(path, name);
}
