// SPDX-License-Identifier: GPL-2.0
/* One rtnetlink socket per netns in scope, kept across sweeps (qdiscstuck_ns.h). */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include "qdiscstuck/ns.h"

int qs_ns_init(struct qs_ns_socks *t, size_t max, qs_ns_open_fn open, qs_ns_close_fn close,
	       void *arg)
{
	memset(t, 0, sizeof(*t));
	t->max = max ? max : QS_NS_SOCKS_MAX;
	/* one more: the tool's own netns is never refused for the cap */
	t->s = calloc(t->max + 1, sizeof(*t->s));
	t->gone = calloc(t->max + 1, sizeof(*t->gone));
	if (!t->s || !t->gone) {
		free(t->s);
		free(t->gone);
		return -ENOMEM;
	}
	t->open = open;
	t->close = close;
	t->arg = arg;
	return 0;
}

void qs_ns_free(struct qs_ns_socks *t)
{
	for (size_t i = 0; i < t->n; i++)
		t->close(t->s[i].sock, t->arg);
	free(t->s);
	free(t->gone);
	memset(t, 0, sizeof(*t));
}

void qs_ns_begin(struct qs_ns_socks *t)
{
	t->over = t->failed = t->closed = 0;
	t->ngone = 0;
	for (size_t i = 0; i < t->n; i++)
		t->s[i].wanted = false;
}

static struct qs_ns_sock *find(struct qs_ns_socks *t, unsigned long ino)
{
	for (size_t i = 0; i < t->n; i++)
		if (t->s[i].ino == ino)
			return &t->s[i];
	return NULL;
}

/* Sockets held for other namespaces than the tool's own. */
static size_t others(const struct qs_ns_socks *t)
{
	size_t n = 0;

	for (size_t i = 0; i < t->n; i++)
		n += !t->s[i].own;
	return n;
}

void *qs_ns_want(struct qs_ns_socks *t, unsigned long ino, const char *path)
{
	struct qs_ns_sock *e = find(t, ino);
	void *sock;

	if (e) {
		e->wanted = true;
		return e->sock;
	}
	/* the own netns (no path) has the spare slot */
	if (path && others(t) >= t->max) {
		t->over++;
		return NULL;
	}
	sock = t->open(path, t->arg);
	if (!sock) {
		t->failed++;
		return NULL;
	}
	t->s[t->n++] = (struct qs_ns_sock){ .ino = ino, .sock = sock, .wanted = true,
				    .own = !path };
	return sock;
}

void qs_ns_end(struct qs_ns_socks *t)
{
	size_t n = 0;

	for (size_t i = 0; i < t->n; i++) {
		if (!t->s[i].wanted) {
			t->close(t->s[i].sock, t->arg);
			t->closed++;
			t->gone[t->ngone++] = t->s[i].ino;
			continue;
		}
		t->s[n++] = t->s[i];
	}
	t->n = n;
}
