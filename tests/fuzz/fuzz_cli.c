// SPDX-License-Identifier: GPL-2.0
/*
 * The option values of the three CLIs, through the pure parsers their argp
 * callbacks call (no argp, no exit): -i, -c, the ranges of --threshold,
 * --max-flows, --top, --port, ..., the --fix lists of tcpstall and
 * qdiscstuck, --hooks, and qdiscstuck's DEV:QUEUE. Whatever is accepted
 * must be in range.
 */
#include <limits.h>
#include <net/if.h>
#include "qdiscstuck/judge.h"
#include "lib/cli.h"
#include "lib/hooks.h"
#include "fuzz.h"

static const char *const ts_fixes[] = { "defer", "autocork", "rfs", "routes", "kick" };
static const char *const qs_fixes[] = { "kick", "lock" };

static void numbers(const char *s)
{
	static const long ranges[][2] = { { 1, 3600000 }, { 64, 16777216 }, { 1, INT_MAX },
					  { 1, 1000000 }, { LONG_MIN, LONG_MAX } };
	unsigned long u;
	double d;
	long l;

	if (!nm_parse_interval(s, &d))
		FZ_CHECK(d >= 0.01 && d <= 86400);
	if (!nm_parse_count(s, &l))
		FZ_CHECK(l >= 1);
	for (size_t i = 0; i < sizeof(ranges) / sizeof(ranges[0]); i++)
		if (!nm_parse_long(s, ranges[i][0], ranges[i][1], &l))
			FZ_CHECK(l >= ranges[i][0] && l <= ranges[i][1]);
	if (!nm_parse_ulong(s, 1, 65535, &u))
		FZ_CHECK(u >= 1 && u <= 65535 && *s != '-');
	if (!nm_parse_ulong(s, 0, ULONG_MAX, &u))
		FZ_CHECK(*s && *s != '-');
}

static void names(const char *s)
{
	long m;

	m = nm_parse_names(s, ts_fixes, 5);
	FZ_CHECK(m == -1 || (m > 0 && m < 1 << 5));
	m = nm_parse_names(s, qs_fixes, 2);
	FZ_CHECK(m == -1 || (m > 0 && m < 1 << 2));
	/* an empty item never passes */
	if (m > 0)
		FZ_CHECK(*s != ',' && !strstr(s, ",,") && s[strlen(s) - 1] != ',');
}

static void dev_queue(const char *s)
{
	char dev[IF_NAMESIZE];
	unsigned int q;

	if (qs_parse_dev_queue(s, dev, sizeof(dev), &q))
		return;
	FZ_CHECK(*dev && strlen(dev) < sizeof(dev) && q <= 65535);
	FZ_CHECK(!strncmp(s, dev, strlen(dev)) && s[strlen(dev)] == ':');
}

/*
 * --port and --listen's port: digits are a number in 1-65535 written in at
 * most five of them, never a name; anything else is a service name, which
 * getservbyname finds only as a whole word of /etc/services (no space,
 * no control character in it).
 */
static void port(const char *s)
{
	unsigned int p = nm_parse_port(s);

	FZ_CHECK(p <= 65535);
	if (*s && strspn(s, "0123456789") == strlen(s)) {
		FZ_CHECK(p == (strlen(s) <= 5 && strtoul(s, NULL, 10) <= 65535 ? strtoul(s, NULL, 10) : 0));
		return;
	}
	for (const char *c = s; p && *c; c++)
		FZ_CHECK((unsigned char)*c > ' ' && *c != 0x7f);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *s = fz_str(data, size);
	enum nm_hook_mode mode;

	numbers(s);
	names(s);
	dev_queue(s);
	port(s);
	if (!nm_parse_hook_mode(s, &mode))
		FZ_CHECK(!strcmp(s, "auto") || !strcmp(s, "fentry") || !strcmp(s, "tracepoint"));
	free(s);
	return 0;
}
