// SPDX-License-Identifier: GPL-2.0
/*
 * An RTM_GETQDISC dump reply, as nm_rtnl_qdisc_dump() receives it: the
 * input is one recvfrom()'s buffer, walked by nm_nl_run() and each
 * message parsed by nm_rtnl_qdisc_parse() (TCA_KIND, TCA_STATS2 and its
 * nested stats). Sequence and port checks are off (0), so that every
 * message reaches the parser.
 */
#include <libmnl/libmnl.h>
#include "lib/rtnl.h"
#include "fuzz.h"

static int one_msg(const struct nlmsghdr *nlh, void *data)
{
	struct nm_qdisc_stats q;

	(void)data;
	if (nm_rtnl_qdisc_parse(nlh, &q))
		return MNL_CB_OK;	/* the dump skips what does not parse */
	FZ_CHECK(memchr(q.kind, '\0', sizeof(q.kind)));
	/* bytes come from TCA_STATS_BASIC only */
	FZ_CHECK(q.has_basic || !q.bytes);
	return MNL_CB_OK;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	/* a copy of the exact size: ASan sees any read past the reply */
	char *buf = malloc(size ? size : 1);

	FZ_CHECK(buf);
	memcpy(buf, data, size);
	nm_nl_run(buf, size, 0, 0, one_msg, NULL);
	free(buf);
	return 0;
}
