// SPDX-License-Identifier: GPL-2.0
#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <net/if.h>
#include "lib/sysfs.h"

int nm_sysfs_line(const char *path, char *buf, size_t len)
{
	FILE *f = fopen(path, "r");

	if (!f)
		return -errno;
	if (!fgets(buf, len, f))
		buf[0] = 0;
	fclose(f);
	buf[strcspn(buf, "\n")] = 0;
	return 0;
}

long nm_sysfs_long(const char *path, long dflt)
{
	FILE *f = fopen(path, "r");
	long v;

	if (!f)
		return dflt;
	if (fscanf(f, "%ld", &v) != 1)
		v = dflt;
	fclose(f);
	return v;
}

int nm_dir_count(const char *dir, const char *prefix)
{
	size_t len = strlen(prefix);
	struct dirent *de;
	DIR *d = opendir(dir);
	int n = 0;

	if (!d)
		return -errno;
	while ((de = readdir(d)))
		n += !strncmp(de->d_name, prefix, len);
	closedir(d);
	return n;
}

int nm_dev_ntxq(const char *dev)
{
	char dir[128];

	if (snprintf(dir, sizeof(dir), "/sys/class/net/%s/queues", dev) >= (int)sizeof(dir))
		return -ENAMETOOLONG;
	return nm_dir_count(dir, "tx-");
}

int nm_ifindex_ntxq(unsigned int ifindex)
{
	char name[IF_NAMESIZE];
	int n;

	if (!if_indextoname(ifindex, name))
		return 0;
	n = nm_dev_ntxq(name);
	return n > 0 ? n : 0;
}
