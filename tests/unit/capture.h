/* SPDX-License-Identifier: GPL-2.0 */
/* Unit tests: what a sink writes to a FILE, captured in memory. Include after cmocka.h. */
#ifndef NETMEDIC_TEST_CAPTURE_H
#define NETMEDIC_TEST_CAPTURE_H

#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>
#include "lib/output.h"

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

/* The textfile p writes, through nm_prom_write_atomic as a tool's would be; caller frees. */
static inline char *cap_prom(struct nm_prom *p)
{
	char path[] = "/tmp/nm-test-prom.XXXXXX", err[256], *buf;
	FILE *f;
	long len;
	int fd = mkstemp(path);

	assert_true(fd >= 0);
	close(fd);
	assert_int_equal(nm_prom_write_atomic(p, path, err, sizeof(err)), 0);
	f = fopen(path, "r");
	assert_non_null(f);
	fseek(f, 0, SEEK_END);
	len = ftell(f);
	rewind(f);
	buf = calloc(1, len + 1);
	assert_non_null(buf);
	assert_int_equal(fread(buf, 1, len, f), (size_t)len);
	fclose(f);
	unlink(path);
	return buf;
}

#endif
