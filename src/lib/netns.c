// SPDX-License-Identifier: GPL-2.0
/*
 * netns.c - entering network namespaces the way `ip netns exec` does.
 *
 * A netns switch alone is not enough for us: remedies write sysfs files
 * such as /sys/class/net/DEV/queues/tx-N/xps_cpus, and sysfs shows the
 * devices of the netns it was mounted in. So, like iproute2, we move to a
 * private mount namespace and mount a fresh sysfs over /sys there.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE	/* setns, unshare, open_tree, AT_RECURSIVE */
#endif
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <sched.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <unistd.h>

#include "lib/err.h"
#include "lib/netns.h"

#ifndef NS_GET_NSTYPE
#define NS_GET_NSTYPE	_IO(0xb7, 0x3)	/* linux/nsfs.h, 4.11 */
#endif

/* Mounts below /sys we try to keep (bpffs, tracefs, debugfs, cgroup, ...). */
#define NM_MAX_SUBMOUNTS 32

struct submount {
	char path[256];
	int fd;		/* detached clone from open_tree(), -1 if none */
};

const char *nm_netns_path(const char *name_or_path, char *buf, size_t len)
{
	int n;

	if (!name_or_path || !*name_or_path || !buf)
		return NULL;
	if (strchr(name_or_path, '/'))
		n = snprintf(buf, len, "%s", name_or_path);
	else
		n = snprintf(buf, len, NM_NETNS_RUN_DIR "/%s", name_or_path);
	if (n < 0 || (size_t)n >= len)
		return NULL;
	return buf;
}

unsigned long nm_netns_inode(const char *name_or_path)
{
	char path[4096];
	const char *p = "/proc/self/ns/net";
	struct stat st;

	if (name_or_path) {
		p = nm_netns_path(name_or_path, path, sizeof(path));
		if (!p)
			return 0;
	}
	if (stat(p, &st))
		return 0;
	return st.st_ino;
}

int nm_netns_check(const char *path)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK), type, rc = 0;

	if (fd < 0)
		return -errno;
	/* Only nsfs answers NS_GET_NSTYPE; any other file gets ENOTTY. */
	type = ioctl(fd, NS_GET_NSTYPE);
	if (type != CLONE_NEWNET)
		rc = type < 0 && errno != ENOTTY && errno != EINVAL ? -errno : -EINVAL;
	close(fd);
	return rc;
}

int nm_mountinfo_line(const char *line, int *id, int *parent, char mnt[NM_MOUNTINFO_PATH])
{
	/* the 511 is NM_MOUNTINFO_PATH - 1: sscanf cannot take it as an argument */
	return sscanf(line, "%d %d %*s %*s %511s", id, parent, mnt) == 3 ? 0 : -1;
}

/*
 * Find the mounts sitting directly on the visible /sys mount. The last
 * "/sys" line in mountinfo is the top of any stack of mounts there.
 */
static int find_submounts(struct submount *sm, int max)
{
	char line[1024], mnt[NM_MOUNTINFO_PATH];
	int id, parent, sys_id = -1, n = 0;
	FILE *f;

	f = fopen("/proc/self/mountinfo", "re");
	if (!f)
		return 0;
	while (fgets(line, sizeof(line), f)) {
		if (!nm_mountinfo_line(line, &id, &parent, mnt) && !strcmp(mnt, "/sys"))
			sys_id = id;
	}
	rewind(f);
	while (sys_id >= 0 && n < max && fgets(line, sizeof(line), f)) {
		if (nm_mountinfo_line(line, &id, &parent, mnt))
			continue;
		/* Octal escapes mean odd characters; not worth decoding. */
		if (parent != sys_id || strncmp(mnt, "/sys/", 5) || strchr(mnt, '\\'))
			continue;
		if (strlen(mnt) >= sizeof(sm[n].path))
			continue;
		strcpy(sm[n].path, mnt);
		sm[n].fd = -1;
		n++;
	}
	fclose(f);
	return n;
}

/*
 * `ip netns exec` simply loses /sys/fs/bpf, /sys/kernel/tracing etc. when
 * it replaces /sys, but libbpf needs them (tracepoint ids, pinned maps).
 * Clone them before /sys goes away; this is best effort, so errors
 * (e.g. kernels without open_tree) just leave that mount out.
 */
static void clone_submounts(struct submount *sm, int n)
{
	for (int i = 0; i < n; i++)
		sm[i].fd = open_tree(AT_FDCWD, sm[i].path,
				     OPEN_TREE_CLONE | OPEN_TREE_CLOEXEC | AT_RECURSIVE);
}

static void restore_submounts(struct submount *sm, int n)
{
	for (int i = 0; i < n; i++) {
		if (sm[i].fd < 0)
			continue;
		move_mount(sm[i].fd, "", AT_FDCWD, sm[i].path, MOVE_MOUNT_F_EMPTY_PATH);
		close(sm[i].fd);
		sm[i].fd = -1;
	}
}

static int remount_sys(char *err, size_t errlen)
{
	struct submount sm[NM_MAX_SUBMOUNTS];
	unsigned long flags = 0;
	struct statvfs vfs;
	int n, rc;

	n = find_submounts(sm, NM_MAX_SUBMOUNTS);
	clone_submounts(sm, n);
	if (umount2("/sys", MNT_DETACH) && statvfs("/sys", &vfs) == 0 &&
	    (vfs.f_flag & ST_RDONLY)) {
		/* Same as iproute2: a read-only sysfs can only be shadowed read-only. */
		flags = MS_RDONLY;
	}
	if (mount("sysfs", "/sys", "sysfs", flags, NULL)) {
		rc = -errno;
		restore_submounts(sm, n);
		return nm_set_err(err, errlen, rc, "cannot mount sysfs for the new netns: %s",
			       strerror(-rc));
	}
	restore_submounts(sm, n);
	return 0;
}

struct visit {
	int (*fn)(void *arg);
	void *arg;
	int ret;
};

static void *visit_run(void *p)
{
	struct visit *v = p;

	v->ret = v->fn(v->arg);
	return NULL;
}

int nm_netns_visit(int (*fn)(void *arg), void *arg)
{
	struct visit v = { .fn = fn, .arg = arg };
	pthread_t t;
	int rc = pthread_create(&t, NULL, visit_run, &v);

	if (rc)
		return -rc;
	pthread_join(t, NULL);
	return v.ret;
}

int nm_netns_enter(const char *name_or_path, char *err, size_t errlen)
{
	char path[4096];
	int fd, rc;

	if (!nm_netns_path(name_or_path, path, sizeof(path)))
		return nm_set_err(err, errlen, -EINVAL, "invalid netns name '%s'",
			       name_or_path ? name_or_path : "(null)");
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0) {
		rc = -errno;
		return nm_set_err(err, errlen, rc, "cannot open netns %s: %s", path, strerror(-rc));
	}
	rc = setns(fd, CLONE_NEWNET) ? -errno : 0;
	close(fd);
	/* setns says EINVAL for any file that is not a netns: say which. */
	if (rc == -EINVAL && nm_netns_check(path) == -EINVAL)
		return nm_set_err(err, errlen, rc, "%s is not a network namespace", path);
	if (rc)
		return nm_set_err(err, errlen, rc, "cannot enter netns %s: %s", path, strerror(-rc));

	if (unshare(CLONE_NEWNS)) {
		rc = -errno;
		return nm_set_err(err, errlen, rc, "cannot unshare mount namespace: %s", strerror(-rc));
	}
	/* Keep our /sys remount from propagating back into the host. */
	if (mount("", "/", NULL, MS_SLAVE | MS_REC, NULL)) {
		rc = -errno;
		return nm_set_err(err, errlen, rc, "cannot make mounts private: %s", strerror(-rc));
	}
	return remount_sys(err, errlen);
}
