// SPDX-License-Identifier: GPL-2.0
/*
 * nsreg.c - the host's network namespaces, found and named (nsreg.h).
 *
 * The array is kept sorted by inode: a scan looks each process's netns up
 * (thousands of processes, a few hundred namespaces), and the sinks list
 * namespaces in a stable order.
 */
#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/vfs.h>
#include <unistd.h>

#include "lib/netns.h"
#include "lib/nsreg.h"

#ifndef NSFS_MAGIC
#define NSFS_MAGIC	0x6e736673
#endif

int nm_nsreg_init(struct nm_nsreg *r, const char *proc, const char *run, size_t cap)
{
	memset(r, 0, sizeof(*r));
	r->proc = proc ? proc : "/proc";
	r->run = run ? run : NM_NETNS_RUN_DIR;
	r->cap = cap;
	r->ns = calloc(cap ? cap : 1, sizeof(*r->ns));
	return r->ns ? 0 : -ENOMEM;
}

void nm_nsreg_free(struct nm_nsreg *r)
{
	free(r->ns);
	r->ns = NULL;
	r->n = 0;
}

unsigned long nm_ns_link_ino(const char *text)
{
	unsigned long ino;
	char end;

	if (sscanf(text, "net:[%lu%c", &ino, &end) != 2 || end != ']' || text[strlen(text) - 1] != ']')
		return 0;
	return ino;
}

void nm_ns_proc_name(char *buf, size_t len, const char *comm, int pid)
{
	char c[17];
	size_t i;

	/* comm is the process's to set: it reaches table cells and metric labels */
	for (i = 0; i < sizeof(c) - 1 && comm[i] && comm[i] != '\n'; i++)
		c[i] = isprint((unsigned char)comm[i]) && comm[i] != '"' && comm[i] != '\\' ? comm[i] : '?';
	c[i] = '\0';
	snprintf(buf, len, "%s:%d", i ? c : "?", pid);
}

/* Index of ino in the sorted array, or where it would go (*found false). */
static size_t slot_of(const struct nm_nsreg *r, unsigned long ino, bool *found)
{
	size_t lo = 0, hi = r->n;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (r->ns[mid].ino < ino)
			lo = mid + 1;
		else
			hi = mid;
	}
	*found = lo < r->n && r->ns[lo].ino == ino;
	return lo;
}

const struct nm_ns *nm_nsreg_find(const struct nm_nsreg *r, unsigned long ino)
{
	bool found;
	size_t i = slot_of(r, ino, &found);

	return found ? &r->ns[i] : NULL;
}

/*
 * The netns inode behind path: a /proc link's text, or for a bind mount
 * under /run/netns the inode of the nsfs file itself. A leftover file
 * that is not a mount (ip netns del interrupted) is not a netns.
 */
static unsigned long path_ino(const char *path)
{
	char text[64];
	struct statfs sf;
	struct stat st;
	ssize_t n = readlink(path, text, sizeof(text) - 1);

	if (n > 0) {
		text[n] = '\0';
		return nm_ns_link_ino(text);
	}
	if (errno != EINVAL || statfs(path, &sf) || sf.f_type != NSFS_MAGIC || stat(path, &st))
		return 0;
	return st.st_ino;
}

static struct nm_ns *insert(struct nm_nsreg *r, unsigned long ino, bool *added)
{
	bool found;
	size_t i = slot_of(r, ino, &found);

	*added = false;
	if (found)
		return &r->ns[i];
	if (r->n == r->cap) {
		r->over++;
		return NULL;
	}
	memmove(&r->ns[i + 1], &r->ns[i], (r->n - i) * sizeof(*r->ns));
	memset(&r->ns[i], 0, sizeof(r->ns[i]));
	r->ns[i].ino = ino;
	r->n++;
	*added = true;
	return &r->ns[i];
}

static void name_after_pid(struct nm_nsreg *r, struct nm_ns *ns, int pid)
{
	char path[64], comm[32] = "";
	FILE *f;

	ns->pid = pid;
	if (ns->ino == r->init_ino) {
		/* whoever runs in it, the host's own netns is the host */
		snprintf(ns->name, sizeof(ns->name), NM_NS_HOST);
		return;
	}

	snprintf(path, sizeof(path), "%s/%d/comm", r->proc, pid);
	f = fopen(path, "re");
	if (f) {
		if (!fgets(comm, sizeof(comm), f))
			comm[0] = '\0';
		fclose(f);
	}
	nm_ns_proc_name(ns->name, sizeof(ns->name), comm, pid);
}

static bool is_pid(const char *s)
{
	if (!*s)
		return false;
	for (; *s; s++)
		if (!isdigit((unsigned char)*s))
			return false;
	return true;
}

static size_t scan_proc(struct nm_nsreg *r, DIR *d)
{
	size_t added = 0;
	struct dirent *e;

	while ((e = readdir(d))) {
		char path[300];
		struct nm_ns *ns;
		unsigned long ino;
		bool new;
		int pid;

		if (!is_pid(e->d_name))
			continue;
		snprintf(path, sizeof(path), "%s/%s/ns/net", r->proc, e->d_name);
		ino = path_ino(path);	/* a process that just exited: skipped */
		if (!ino || !(ns = insert(r, ino, &new)))
			continue;
		pid = atoi(e->d_name);
		if (new) {
			ns->born = r->gen;
			added++;
		}
		/* named after its lowest pid of the scan that found it, then kept */
		if (new || (!ns->named && ns->born == r->gen && pid < ns->pid))
			name_after_pid(r, ns, pid);
		if (ns->seen != r->gen || pid < ns->live_pid)
			ns->live_pid = pid;
		ns->seen = r->gen;
	}
	return added;
}

static size_t scan_run(struct nm_nsreg *r)
{
	DIR *d = opendir(r->run);
	size_t added = 0;
	struct dirent *e;

	if (!d)
		return 0;	/* no named namespaces */
	while ((e = readdir(d))) {
		char path[300];
		struct nm_ns *ns;
		unsigned long ino;
		bool new;

		if (e->d_name[0] == '.' || strlen(e->d_name) >= NM_NS_NAME)
			continue;
		snprintf(path, sizeof(path), "%s/%s", r->run, e->d_name);
		ino = path_ino(path);
		if (!ino || !(ns = insert(r, ino, &new)))
			continue;
		if (new) {
			ns->born = r->gen;
			added++;
		}
		if (ns->seen != r->gen)
			ns->live_pid = 0;	/* no process in it */
		/* the first name in readdir order, if a netns has two */
		if (!ns->named || ns->run_seen != r->gen) {
			snprintf(ns->name, sizeof(ns->name), "%s", e->d_name);
			snprintf(ns->path, sizeof(ns->path), "%s", path);
			ns->pid = 0;
			ns->named = true;
		}
		ns->run_seen = ns->seen = r->gen;
	}
	closedir(d);
	return added;
}

int nm_nsreg_scan(struct nm_nsreg *r, struct nm_nsreg_delta *d,
		  void (*gone)(const struct nm_ns *ns, void *arg), void *arg)
{
	DIR *p = opendir(r->proc);
	size_t i, kept = 0;

	memset(d, 0, sizeof(*d));
	if (!p)
		return -errno;
	r->gen++;
	r->over = 0;
	if (!r->init_ino) {
		char path[300];

		/* read until it can be: a run that gains ptrace access names it then */
		snprintf(path, sizeof(path), "%s/2/ns/net", r->proc);
		r->init_ino = path_ino(path);
	}
	d->added = scan_proc(r, p);
	closedir(p);
	d->added += scan_run(r);
	for (i = 0; i < r->n; i++) {
		struct nm_ns *ns = &r->ns[i];

		if (ns->seen != r->gen) {
			if (gone)
				gone(ns, arg);
			d->removed++;
			continue;
		}
		if (ns->named && ns->run_seen != r->gen)
			ns->named = false;	/* ip netns del, a process still in it */
		if (!ns->named)
			snprintf(ns->path, sizeof(ns->path), "%s/%d/ns/net", r->proc, ns->live_pid);
		r->ns[kept++] = *ns;
	}
	r->n = kept;
	return 0;
}
