// SPDX-License-Identifier: GPL-2.0
/*
 * sockfd.c - a socket's holder found in /proc, its descriptor lent by
 * pidfd_getfd. A walk of /proc reads one link per open descriptor of
 * every process until it finds the socket: fine once per remedy, not per
 * packet; the holder found is remembered (struct nm_sock_holders), so the
 * kicks of one server's sockets walk once.
 */
#include <ctype.h>
#include <stdbool.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include "lib/sockfd.h"

/* the same numbers on every architecture: the unified syscall table */
#ifndef SYS_pidfd_open
#define SYS_pidfd_open	434
#endif
#ifndef SYS_pidfd_getfd
#define SYS_pidfd_getfd	438
#endif

/* A name in /proc that is a process's (all digits): its pid, else 0. */
static pid_t pid_of(const char *name)
{
	char *end;
	long v;

	if (!isdigit((unsigned char)name[0]))
		return 0;
	errno = 0;
	v = strtol(name, &end, 10);
	return *end || errno || v <= 0 || v > INT_MAX ? 0 : (pid_t)v;
}

/* What a failed open or readlink says: -EACCES, denied; else -ENOENT, it went meanwhile. */
static int went_or_denied(int e)
{
	return e == EACCES || e == EPERM ? -EACCES : -ENOENT;
}

/* Process pid's descriptor linked to want: 0 with *fd; else -ENOENT or -EACCES. */
static int scan_fds(int procfd, pid_t pid, const char *want, int *fd)
{
	char path[32], link[64];
	struct dirent *de;
	int dfd, ret = -ENOENT;
	DIR *d;

	snprintf(path, sizeof(path), "%d/fd", (int)pid);
	dfd = openat(procfd, path, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (dfd < 0)
		return went_or_denied(errno);
	d = fdopendir(dfd);
	if (!d) {
		close(dfd);
		return -ENOENT;
	}
	while ((de = readdir(d))) {
		ssize_t n;

		if (de->d_name[0] == '.')
			continue;
		n = readlinkat(dirfd(d), de->d_name, link, sizeof(link) - 1);
		if (n < 0) {
			if (went_or_denied(errno) == -EACCES)
				ret = -EACCES;
			continue;
		}
		link[n] = '\0';
		if (!strcmp(link, want)) {
			*fd = atoi(de->d_name);
			ret = 0;
			break;
		}
	}
	closedir(d);
	return ret;
}

int nm_sock_holder(const char *proc, unsigned long ino, pid_t skip, pid_t *pid, int *fd)
{
	int procfd = open(proc, O_RDONLY | O_DIRECTORY | O_CLOEXEC), ret = -ENOENT;
	struct dirent *de;
	char want[40];
	DIR *d;

	if (procfd < 0)
		return -errno;
	d = fdopendir(procfd);
	if (!d) {
		ret = -errno;
		close(procfd);
		return ret;
	}
	snprintf(want, sizeof(want), "socket:[%lu]", ino);
	while ((de = readdir(d))) {
		pid_t p = pid_of(de->d_name);
		int r;

		if (!p || p == skip)
			continue;
		r = scan_fds(dirfd(d), p, want, fd);
		if (!r) {
			*pid = p;
			ret = 0;
			break;
		}
		/* a process we could not read may be the holder: not found is not known */
		if (r == -EACCES)
			ret = -EACCES;
	}
	closedir(d);
	return ret;
}

/* One socket descriptor of h's process learnt; false when there is no memory for it. */
static bool holders_add(struct nm_sock_holders *h, unsigned long ino, int fd)
{
	if (h->n == h->cap) {
		size_t cap = h->cap ? 2 * h->cap : 64;
		struct nm_sock_fd *m = realloc(h->fds, cap * sizeof(*m));

		if (!m)
			return false;
		h->fds = m;
		h->cap = cap;
	}
	h->fds[h->n++] = (struct nm_sock_fd){ .ino = ino, .fd = fd };
	return true;
}

/* h's process's socket descriptors read anew (under proc); 0, or -errno: it went or is unreadable. */
static int holders_read(struct nm_sock_holders *h, const char *proc)
{
	char path[PATH_MAX], link[64];
	struct dirent *de;
	unsigned long ino;
	DIR *d;

	h->n = 0;
	snprintf(path, sizeof(path), "%s/%d/fd", proc, (int)h->pid);
	d = opendir(path);
	if (!d)
		return went_or_denied(errno);
	while ((de = readdir(d))) {
		ssize_t n;

		if (de->d_name[0] == '.')
			continue;
		n = readlinkat(dirfd(d), de->d_name, link, sizeof(link) - 1);
		if (n < 0)
			continue;
		link[n] = '\0';
		if (sscanf(link, "socket:[%lu]", &ino) == 1 && !holders_add(h, ino, atoi(de->d_name)))
			break;
	}
	closedir(d);
	return 0;
}

/* ino among h's descriptors: 0 with *fd, else -ENOENT. */
static int holders_get(const struct nm_sock_holders *h, unsigned long ino, int *fd)
{
	for (size_t i = 0; i < h->n; i++) {
		if (h->fds[i].ino == ino) {
			*fd = h->fds[i].fd;
			return 0;
		}
	}
	return -ENOENT;
}

/* h learns process pid's descriptors: 0 with *fd when ino is among them, else -errno. */
static int holders_ask(struct nm_sock_holders *h, const char *proc, pid_t pid, unsigned long ino, int *fd)
{
	int ret;

	h->pid = pid;
	ret = holders_read(h, proc);
	if (ret)
		h->pid = 0;
	return ret ? ret : holders_get(h, ino, fd);
}

int nm_sock_holder_cached(struct nm_sock_holders *h, const char *proc, unsigned long ino, pid_t skip,
			  pid_t hint, pid_t *pid, int *fd)
{
	int ret;

	if (!h)
		return nm_sock_holder(proc, ino, skip, pid, fd);
	if (h->pid && h->pid != skip &&
	    (!holders_get(h, ino, fd) || (!holders_read(h, proc) && !holders_get(h, ino, fd)))) {
		*pid = h->pid;
		return 0;
	}
	/* the hinted process: one directory read instead of a walk of all */
	if (hint > 0 && hint != skip && hint != h->pid && !holders_ask(h, proc, hint, ino, fd)) {
		*pid = hint;
		return 0;
	}
	ret = nm_sock_holder(proc, ino, skip, pid, fd);
	if (!ret) {
		h->pid = *pid;
		holders_read(h, proc);
	}
	return ret;
}

void nm_sock_holders_forget(struct nm_sock_holders *h)
{
	if (!h)
		return;
	h->pid = 0;
	h->n = 0;
}

void nm_sock_holders_free(struct nm_sock_holders *h)
{
	if (!h)
		return;
	free(h->fds);
	*h = (struct nm_sock_holders){};
}

int nm_sock_getfd(pid_t pid, int fd, unsigned long ino)
{
	int pidfd = syscall(SYS_pidfd_open, pid, 0), got;
	struct stat st;

	if (pidfd < 0)
		return -errno;
	got = syscall(SYS_pidfd_getfd, pidfd, fd, 0);
	if (got < 0)
		got = -errno;
	close(pidfd);
	if (got < 0)
		return got;
	/* the walk read a number: its descriptor may have been closed and the number reused since */
	if (fstat(got, &st) || !S_ISSOCK(st.st_mode) || st.st_ino != ino) {
		close(got);
		return -ESTALE;
	}
	return got;
}

int nm_sock_getfd_probe(void)
{
	int pidfd = syscall(SYS_pidfd_open, getpid(), 0), ret;

	if (pidfd < 0)
		return -errno;
	/* on ourselves every check passes but the descriptor's own: -1 is none (EBADF) */
	ret = syscall(SYS_pidfd_getfd, pidfd, -1, 0);
	ret = ret < 0 && errno != EBADF ? -errno : 0;
	close(pidfd);
	return ret;
}
