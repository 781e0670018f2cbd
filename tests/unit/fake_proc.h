/* SPDX-License-Identifier: GPL-2.0 */
/*
 * fake_proc.h - a /proc and /run/netns of the tests' own, for the netns
 * registry and what is built on it (test_nsreg, test_scope,
 * test_tcpstall_ns): processes with a comm and a netns link.
 * Include after cmocka.h.
 */
#ifndef NETMEDIC_TESTS_FAKE_PROC_H
#define NETMEDIC_TESTS_FAKE_PROC_H

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/stat.h>

struct tree {
	char root[64], proc[96], run[96];
};

static void sh(const char *fmt, ...)
{
	char cmd[512];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(cmd, sizeof(cmd), fmt, ap);
	va_end(ap);
	assert_int_equal(system(cmd), 0);
}

/* A process pid, named comm, in the netns of inode ino. */
static inline void proc_add(const struct tree *t, int pid, const char *comm, unsigned long ino)
{
	sh("mkdir -p %s/%d/ns && printf '%%s\\n' '%s' > %s/%d/comm && ln -sf 'net:[%lu]' %s/%d/ns/net",
	   t->proc, pid, comm, t->proc, pid, ino, t->proc, pid);
}

/* An empty tree under /tmp/nm-TAG.XXXXXX; NULL when it cannot be made. */
static struct tree *tree_new(const char *tag)
{
	struct tree *t = calloc(1, sizeof(*t));

	if (!t)
		return NULL;
	snprintf(t->root, sizeof(t->root), "/tmp/nm-%s.XXXXXX", tag);
	if (!mkdtemp(t->root)) {
		free(t);
		return NULL;
	}
	snprintf(t->proc, sizeof(t->proc), "%s/proc", t->root);
	snprintf(t->run, sizeof(t->run), "%s/run", t->root);
	mkdir(t->proc, 0755);
	mkdir(t->run, 0755);
	return t;
}

static int teardown(void **state)
{
	struct tree *t = *state;

	sh("rm -rf %s", t->root);
	free(t);
	return 0;
}

#endif
