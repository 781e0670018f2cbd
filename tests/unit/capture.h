/* SPDX-License-Identifier: GPL-2.0 */
/* Unit tests: what a sink writes to a FILE, captured in memory. Include after cmocka.h. */
#ifndef NETMEDIC_TEST_CAPTURE_H
#define NETMEDIC_TEST_CAPTURE_H

#include <stdio.h>

struct capture {
	FILE *f;
	char *buf;
	size_t len;
};

static inline void cap_open(struct capture *c)
{
	c->buf = NULL;
	c->len = 0;
	c->f = open_memstream(&c->buf, &c->len);
	assert_non_null(c->f);
}

/* Returns the captured text; caller frees. */
static inline char *cap_close(struct capture *c)
{
	fclose(c->f);
	return c->buf;
}

#endif
