// SPDX-License-Identifier: GPL-2.0
/*
 * The text netmedic reads from sysfs, procfs and the commands it runs:
 * XPS masks (xpsflap's xf_xps_mask_set, qdiscstuck's qs_xps_mask), kernel
 * config lines (nm_kconfig_line), /proc/self/mountinfo lines
 * (nm_mountinfo_line, and nm_cg_mountinfo_line for the cgroup2 mount)
 * and `ip route show` lines (ts_route_argv). Every
 * parser gets every line, cut as its caller's fgets() buffer would cut it.
 */
#include <ctype.h>
#include "qdiscstuck/judge.h"
#include "tcpstall/judge.h"
#include "xpsflap/judge.h"
#include "lib/cgpath.h"
#include "lib/kconfig.h"
#include "lib/netns.h"
#include "fuzz.h"

/* The first len - 1 bytes of line, as fgets(buf, len) gives them. */
static void cut(char *buf, size_t len, const char *line)
{
	snprintf(buf, len, "%s", line);
}

/* A set CPU bit needs a digit that is not 0, and that is what xpsflap tests. */
static void xps(const char *line)
{
	char buf[256];
	uint64_t mask;

	cut(buf, sizeof(buf), line);
	mask = qs_xps_mask(buf);
	cut(buf, sizeof(buf), line);
	FZ_CHECK(!mask || xf_xps_mask_set(buf));
}

static void route(const char *line, bool keep)
{
	const char *argv[TS_ROUTE_WORDS];
	char buf[512];
	int n;

	cut(buf, sizeof(buf), line);
	n = ts_route_argv(buf, argv, keep);
	/* "-6" is inserted after "ip" for IPv6: one slot must stay free */
	FZ_CHECK(n >= 3 && n <= TS_ROUTE_WORDS - 2 && !argv[n]);
	for (int i = 3; i < n; i++) {
		FZ_CHECK(*argv[i] && !strpbrk(argv[i], " \t\n"));
		FZ_CHECK(keep || strcmp(argv[i], "quickack"));
	}
}

/* A cgroup2 line gives a mount point and a root that fit, from a line that says so. */
static void cgroup2(const char *line)
{
	char buf[1024], mnt[64], root[32];

	cut(buf, sizeof(buf), line);
	if (nm_cg_mountinfo_line(buf, mnt, sizeof(mnt), root, sizeof(root)))
		return;
	FZ_CHECK(strlen(mnt) < sizeof(mnt) && strlen(root) < sizeof(root));
	FZ_CHECK(strstr(buf, "cgroup2") != NULL);
}

static void one_line(const char *line)
{
	char buf[1024], mnt[NM_MOUNTINFO_PATH];
	int id, parent;
	long v;

	xps(line);
	cut(buf, 256, line);
	if (!nm_kconfig_line(buf, "CONFIG_HZ", &v))
		FZ_CHECK(!strncmp(buf, "CONFIG_HZ=", 10));
	cut(buf, sizeof(buf), line);
	if (!nm_mountinfo_line(buf, &id, &parent, mnt))
		FZ_CHECK(strlen(mnt) < sizeof(mnt));
	cgroup2(line);
	route(line, false);
	route(line, true);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *text = fz_str(data, size), *line, *nl;

	for (line = text; line; line = nl ? nl + 1 : NULL) {
		nl = strchr(line, '\n');
		if (nl)
			*nl = '\0';
		one_line(line);
	}
	free(text);
	return 0;
}
