// SPDX-License-Identifier: GPL-2.0
/*
 * A sock_diag TCP dump reply (TCPDIAG_GETSOCK or SOCK_DIAG_BY_FAMILY), as
 * nm_sockdiag_tcp_dump() receives it: one recvfrom()'s buffer, walked by
 * nm_nl_run(), each message parsed by nm_sockdiag_parse() (inet_diag_msg,
 * INET_DIAG_INFO, SKMEMINFO, CGROUP_ID) and turned into a tcpstall sample
 * as the sock_diag sweep does (ts_sample_from_diag).
 */
#include <libmnl/libmnl.h>
#include "tcpstall/judge.h"
#include "lib/rtnl.h"
#include "lib/sockdiag.h"
#include "fuzz.h"

static int one_msg(const struct nlmsghdr *nlh, void *data)
{
	struct nm_diag_sock d;
	struct ts_sample s;

	(void)data;
	if (nm_sockdiag_parse(nlh, &d))
		return MNL_CB_OK;	/* the dump skips what does not parse */
	FZ_CHECK(d.family == AF_INET || d.family == AF_INET6);
	FZ_CHECK(d.info_len <= sizeof(d.info));
	FZ_CHECK(d.meminfo_len <= NM_DIAG_MEMINFO_MAX);
	ts_sample_from_diag(&d, 1000000000ULL, 4026531840U, &s);
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
