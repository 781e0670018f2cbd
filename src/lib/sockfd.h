/* SPDX-License-Identifier: GPL-2.0 */
/*
 * sockfd.h - another process's socket, by its inode: the process holding
 * it found in /proc/PID/fd, its descriptor duplicated into this process
 * with pidfd_getfd (5.6+). For what a BPF program may not do to a socket
 * on some kernel, and userspace may through a descriptor of its own.
 *
 * Privileges: listing another user's /proc/PID/fd takes CAP_DAC_READ_SEARCH,
 * reading its links and pidfd_getfd take ptrace access (CAP_SYS_PTRACE;
 * Yama's ptrace_scope 3 or an LSM may forbid it still).
 */
#ifndef NETMEDIC_LIB_SOCKFD_H
#define NETMEDIC_LIB_SOCKFD_H

#include <sys/types.h>

/*
 * The first process under proc ("/proc", or a test's tree of PID/fd/N
 * links) other than skip with a descriptor on socket inode ino: 0 with
 * *pid and *fd. Processes and descriptors that go meanwhile are passed
 * over. -ENOENT when none has it, -EACCES when none readable has it and
 * some could not be read, -errno when proc cannot be read at all.
 */
int nm_sock_holder(const char *proc, unsigned long ino, pid_t skip, pid_t *pid, int *fd);

/*
 * What the last walk learnt, for the next: the process that held the
 * last socket found, and its socket descriptors as then read. A server
 * holds the sockets of all its connections, so a kick after the first
 * finds its socket here, without a walk of /proc (about 10 ms a kick in
 * a TCG guest under wrk). Zeroed: empty.
 */
struct nm_sock_holders {
	pid_t pid;
	size_t n, cap;
	struct nm_sock_fd {
		unsigned long ino;
		int fd;
	} *fds;
};

/*
 * nm_sock_holder, asking h first (its process's descriptors as last read,
 * then read again), then hint's when hint is not 0 (a process likely to
 * hold it: the one a BPF program saw use it); h learns the holder it
 * finds. A descriptor it gives may have been closed since: nm_sock_getfd
 * says so (-ESTALE, -EBADF, -ESRCH), and then nm_sock_holders_forget(h)
 * and a second ask walk anew. h may be NULL: nm_sock_holder.
 */
int nm_sock_holder_cached(struct nm_sock_holders *h, const char *proc, unsigned long ino, pid_t skip,
			  pid_t hint, pid_t *pid, int *fd);
void nm_sock_holders_forget(struct nm_sock_holders *h);
void nm_sock_holders_free(struct nm_sock_holders *h);

/*
 * Descriptor fd of process pid duplicated into this one (close-on-exec)
 * when it is still socket inode ino: the new descriptor, or -errno:
 * -ESRCH or -EBADF when the process or its descriptor went, -ESTALE when
 * the descriptor is another file now, -EPERM when ptrace access is denied,
 * -ENOSYS before 5.6.
 */
int nm_sock_getfd(pid_t pid, int fd, unsigned long ino);

/* pidfd_getfd exists here (5.6+) and no policy forbids it: 0, else -errno. */
int nm_sock_getfd_probe(void);

#endif
