// SPDX-License-Identifier: GPL-2.0
/*
 * journal.c - undo journal for remedies that change system state.
 *
 * Write-ahead rule: the old state is appended and fsync'ed before a file
 * is changed, so after any crash the journal holds at least every change
 * that happened. The flock on the journal tells a live owner from a dead
 * one: the kernel drops it when the owner dies, even on kill -9.
 *
 * Invariant that keeps open/cleanup race-free: a journal file is only
 * ever truncated or unlinked by whoever holds its lock, and a lock holder
 * checks that its fd is still the file at the path (see same_file()).
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <poll.h>
#include <signal.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include "lib/err.h"
#include "lib/journal.h"
#include "lib/netns.h"

#define NM_MAGIC	"netmedic-journal"
#define NM_VERSION	"1"
#define NM_SUFFIX	".journal"
#define NM_TOOL_MAX	64
#define NM_KEY_MAX	128
/* Old values come from sysfs/procfs files; anything bigger is not one. */
#define NM_VALUE_MAX	(1 << 20)
/* Child exit code meaning "could not enter the netns, nothing undone". */
#define NM_EXIT_NOENTER	255
#define NM_KIND_MAX	32

/* The executors of the plan records (nm_journal_exec), for this process. */
static struct {
	char kind[NM_KIND_MAX];
	nm_journal_exec_fn fn;
	void *arg;
} execs[NM_JOURNAL_KINDS];

/* The commands cmd records may run at undo (nm_journal_allow_cmd), for this process. */
static char allowed[NM_JOURNAL_CMDS][64];

struct nm_journal {
	int fd;
	int count;
	off_t end;		/* journal length: where the next record goes */
	char tool[NM_TOOL_MAX];
	char path[PATH_MAX];
	char dir[PATH_MAX];
};

/* Growable string; a failed allocation sticks in oom and is checked once. */
struct sbuf {
	char *p;
	size_t len, cap;
	bool oom;
};

/* ---- strings and escaping ---- */

static void sb_add(struct sbuf *b, const char *s, size_t n)
{
	size_t cap;
	char *p;

	if (b->oom)
		return;
	if (b->len + n + 1 > b->cap) {
		cap = (b->len + n + 1) * 2;
		p = realloc(b->p, cap);
		if (!p) {
			b->oom = true;
			return;
		}
		b->p = p;
		b->cap = cap;
	}
	memcpy(b->p + b->len, s, n);
	b->len += n;
	b->p[b->len] = '\0';
}

static void sb_puts(struct sbuf *b, const char *s)
{
	sb_add(b, s, strlen(s));
}

/* Append s so that it contains no tab or newline: one field of a line. */
static void sb_put_esc(struct sbuf *b, const char *s)
{
	for (; *s; s++) {
		switch (*s) {
		case '\\': sb_add(b, "\\\\", 2); break;
		case '\t': sb_add(b, "\\t", 2); break;
		case '\n': sb_add(b, "\\n", 2); break;
		case '\r': sb_add(b, "\\r", 2); break;
		default: sb_add(b, s, 1); break;
		}
	}
}

static void sb_field(struct sbuf *b, const char *s)
{
	sb_add(b, "\t", 1);
	sb_put_esc(b, s);
}

/* One record, without its newline: the kind, then each field escaped. */
static void sb_record(struct sbuf *b, const char *kind, const char *const *fields)
{
	sb_puts(b, kind);
	for (; *fields; fields++)
		sb_field(b, *fields);
}

static void sb_header(struct sbuf *b, long pid, const char *tool, const char *key,
		      const char *netns, unsigned long ino)
{
	char num[32];

	sb_puts(b, NM_MAGIC "\t" NM_VERSION);
	snprintf(num, sizeof(num), "%ld", pid);
	sb_field(b, num);
	sb_field(b, tool);
	sb_field(b, key);
	sb_field(b, netns);
	snprintf(num, sizeof(num), "%lu", ino);
	sb_field(b, num);
}

/* In place; returns false on an escape we never write (corruption). */
static bool unescape(char *s)
{
	char *d = s;

	for (; *s; s++) {
		if (*s != '\\') {
			*d++ = *s;
			continue;
		}
		switch (*++s) {
		case '\\': *d++ = '\\'; break;
		case 't': *d++ = '\t'; break;
		case 'n': *d++ = '\n'; break;
		case 'r': *d++ = '\r'; break;
		default: return false;
		}
	}
	*d = '\0';
	return true;
}

/* Replace anything outside [A-Za-z0-9_.-]: the name becomes a file name. */
static int sanitize(const char *in, char *out, size_t len)
{
	size_t i;

	if (!in || strlen(in) >= len)
		return -ENAMETOOLONG;
	for (i = 0; in[i]; i++)
		out[i] = (isalnum((unsigned char)in[i]) || strchr("_.-", in[i])) ? in[i] : '_';
	out[i] = '\0';
	return 0;
}

static void fmt_argv(const char *const *argv, char *buf, size_t len)
{
	size_t off = 0;
	int n;

	buf[0] = '\0';
	for (; *argv && off < len; argv++) {
		n = snprintf(buf + off, len - off, "%s%s", off ? " " : "", *argv);
		if (n < 0)
			break;
		off += n;
	}
}

/* One-line rendering of a value for the log. */
static void fmt_value(const char *v, char *buf, size_t len)
{
	struct sbuf b = { 0 };
	size_t n = strlen(v);

	if (n && v[n - 1] == '\n')
		n--;
	sb_add(&b, "", 0);
	for (size_t i = 0; i < n && !b.oom; i++) {
		char c[2] = { v[i], '\0' };

		sb_put_esc(&b, c);
	}
	snprintf(buf, len, "%s", b.oom ? "?" : b.p);
	free(b.p);
}

/* ---- file helpers ---- */

static int write_all(int fd, const char *p, size_t len, off_t off)
{
	ssize_t n;

	while (len) {
		n = off >= 0 ? pwrite(fd, p, len, off) : write(fd, p, len);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			return -errno;
		if (n == 0)
			return -EIO;
		p += n;
		len -= n;
		if (off >= 0)
			off += n;
	}
	return 0;
}

/* Read fd from offset 0 to EOF into a NUL-terminated malloc'd buffer. */
static int read_fd(int fd, char **out, size_t *outlen)
{
	size_t len = 0, cap = 4096;
	char *buf = malloc(cap), *p;
	ssize_t n;

	if (!buf)
		return -ENOMEM;
	for (;;) {
		if (len + 1 >= cap) {
			if (cap >= NM_VALUE_MAX * 64) {
				free(buf);
				return -EFBIG;
			}
			p = realloc(buf, cap * 2);
			if (!p) {
				free(buf);
				return -ENOMEM;
			}
			buf = p;
			cap *= 2;
		}
		n = pread(fd, buf + len, cap - len - 1, len);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0) {
			free(buf);
			return -errno;
		}
		if (n == 0)
			break;
		len += n;
	}
	buf[len] = '\0';
	*out = buf;
	*outlen = len;
	return 0;
}

static int read_value(const char *path, char **out)
{
	size_t len;
	int fd, rc;

	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	rc = read_fd(fd, out, &len);
	close(fd);
	if (rc)
		return rc;
	/* A C string cannot carry NULs, and no sysfs/sysctl text has any. */
	if (len > NM_VALUE_MAX || memchr(*out, '\0', len)) {
		free(*out);
		return len > NM_VALUE_MAX ? -EFBIG : -EINVAL;
	}
	return 0;
}

/*
 * Write val in one write() (sysfs takes a store per write()). *changed
 * tells the caller whether the file may differ from before, which decides
 * whether the journal record must stay.
 */
static int write_value(const char *path, const char *val, bool *changed)
{
	size_t len = strlen(val);
	struct stat st;
	int fd, rc = 0;

	*changed = false;
	fd = open(path, O_WRONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	if (fstat(fd, &st)) {
		rc = -errno;
		goto out;
	}
	if (len) {
		ssize_t n;

		do {
			n = write(fd, val, len);
		} while (n < 0 && errno == EINTR);
		if (n < 0) {
			rc = -errno;
			goto out;
		}
		*changed = true;
		if ((size_t)n < len)
			rc = write_all(fd, val + n, len - n, -1);
	}
	/* Stand-ins for sysfs in tests, or any plain file: drop the old tail. */
	if (!rc && S_ISREG(st.st_mode)) {
		*changed = true;
		if (ftruncate(fd, len))
			rc = -errno;
	}
out:
	close(fd);
	return rc;
}

static int fsync_dir(const char *dir)
{
	int fd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	int rc = 0;

	if (fd < 0)
		return -errno;
	if (fsync(fd))
		rc = -errno;
	close(fd);
	return rc;
}

int nm_journal_check_stat(const struct stat *st, mode_t want, uid_t euid, char *why, size_t len)
{
	mode_t type = st->st_mode & S_IFMT;

	if (type == S_IFLNK)
		return nm_set_err(why, len, -ELOOP, "is a symbolic link");
	if (type != want && want == S_IFDIR)
		return nm_set_err(why, len, -ENOTDIR, "is not a directory");
	if (type != want && type == S_IFDIR)
		return nm_set_err(why, len, -EISDIR, "is a directory, not a regular file");
	if (type != want)
		return nm_set_err(why, len, -EINVAL, "is not a regular file");
	/*
	 * Whoever else could write it could make us run what they like. Root
	 * is trusted by a non-root run (holding capabilities) too: root could
	 * do anything anyway, and a root-owned /run/netmedic is the usual one.
	 */
	if (st->st_uid != euid && st->st_uid != 0)
		return nm_set_err(why, len, -EPERM, "is owned by uid %u, not %u%s", (unsigned)st->st_uid,
			       (unsigned)euid, euid ? " nor root" : "");
	if (st->st_mode & (S_IWGRP | S_IWOTH))
		return nm_set_err(why, len, -EPERM, "is writable by group or others (mode %04o)",
			       (unsigned)(st->st_mode & 07777));
	return 0;
}

/* The run directory as found (lstat: a symlink there is refused too). */
static int check_path(const char *path, mode_t want, char *why, size_t len)
{
	struct stat st;

	if (lstat(path, &st))
		return nm_set_err(why, len, -errno, "cannot be read: %s", strerror(errno));
	return nm_journal_check_stat(&st, want, geteuid(), why, len);
}

/*
 * Creates what is missing (mode 0700) and accepts the directory only if
 * it may be trusted: an existing one of another owner or mode is refused,
 * never fixed up (why says what is wrong).
 */
static int mkdir_p(const char *dir, char *why, size_t len)
{
	char tmp[PATH_MAX];

	if (snprintf(tmp, sizeof(tmp), "%s", dir) >= (int)sizeof(tmp))
		return nm_set_err(why, len, -ENAMETOOLONG, "is too long a path");
	for (char *p = tmp + 1; ; p++) {
		if (*p != '/' && *p != '\0')
			continue;
		char c = *p;

		*p = '\0';
		if (mkdir(tmp, 0700) && errno != EEXIST)
			return nm_set_err(why, len, -errno, "cannot be created: %s", strerror(errno));
		*p = c;
		if (!c)
			break;
	}
	return check_path(dir, S_IFDIR, why, len);
}

const char *nm_journal_dir(void)
{
	const char *d = getenv(NM_JOURNAL_DIR_ENV);

	return d && *d ? d : NM_JOURNAL_DIR;
}

/* Is fd still the file at path? Someone may have unlinked it before we locked it. */
static bool same_file(int fd, const char *path)
{
	struct stat a, b;

	if (fstat(fd, &a) || lstat(path, &b))
		return false;
	return a.st_dev == b.st_dev && a.st_ino == b.st_ino && a.st_nlink > 0;
}

/* ---- parsing ---- */

void nm_journal_parsed_free(struct nm_journal_parsed *p)
{
	for (int i = 0; i < p->n; i++)
		free(p->r[i].f);
	free(p->r);
	free(p->buf);
	memset(p, 0, sizeof(*p));
}

/* Split a NUL-terminated line at tabs and unescape; NULL on corruption. */
static char **split_line(char *line, int *nf)
{
	int n = 1, i = 0;
	char **f, *s;

	for (s = line; *s; s++)
		n += *s == '\t';
	f = calloc(n + 1, sizeof(*f));
	if (!f)
		return NULL;
	for (s = line; ; s++) {
		if (*s != '\t' && *s != '\0')
			continue;
		bool last = *s == '\0';

		*s = '\0';
		f[i++] = line;
		line = s + 1;
		if (last)
			break;
	}
	for (i = 0; i < n; i++) {
		if (!unescape(f[i])) {
			free(f);
			return NULL;
		}
	}
	*nf = n;
	return f;
}

static int bad(struct nm_journal_parsed *p, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(p->why, sizeof(p->why), fmt, ap);
	va_end(ap);
	return -EBADMSG;
}

/* A decimal number from max down to min; strtoul alone wraps "-1" and saturates. */
static int parse_num(const char *s, unsigned long min, unsigned long max, unsigned long *v)
{
	char *end;

	if (!isdigit((unsigned char)*s))
		return -EINVAL;
	errno = 0;
	*v = strtoul(s, &end, 10);
	if (*end)
		return -EINVAL;
	return errno == ERANGE || *v < min || *v > max ? -ERANGE : 0;
}

static int parse_header(struct nm_journal_parsed *p, char **f, int nf)
{
	unsigned long pid;
	int rc;

	if (nf != 7 || strcmp(f[0], NM_MAGIC) || strcmp(f[1], NM_VERSION))
		return bad(p, "not a " NM_MAGIC " " NM_VERSION " header");
	/* A pid is a positive int (pid_t); anything else did not come from us. */
	rc = parse_num(f[2], 1, INT_MAX, &pid);
	if (rc)
		return bad(p, "pid '%s' is %s", f[2], rc == -ERANGE ? "out of range" : "not a number");
	p->pid = pid;
	p->tool = f[3];
	p->key = f[4];
	p->netns = f[5];
	rc = parse_num(f[6], 0, ULONG_MAX, &p->ino);
	if (rc)
		return bad(p, "netns inode '%s' is %s", f[6],
			   rc == -ERANGE ? "out of range" : "not a number");
	p->have_header = true;
	return 0;
}

/* A lowercase word, [a-z_]+, as an executor's kind must be. */
static bool kind_word(const char *k)
{
	if (!*k || strlen(k) >= NM_KIND_MAX)
		return false;
	for (; *k; k++)
		if (!islower((unsigned char)*k) && *k != '_')
			return false;
	return true;
}

static bool is_plan(const char *k)
{
	return strcmp(k, "file") && strcmp(k, "cmd") && kind_word(k);
}

static int add_record(struct nm_journal_parsed *p, char **f, int nf, off_t off)
{
	struct nm_journal_rec *r;

	if (!(nf == 3 && !strcmp(f[0], "file")) && !(nf >= 2 && !strcmp(f[0], "cmd")) &&
	    !(nf >= 2 && is_plan(f[0])))
		return bad(p, "not a record: kind '%.32s', %d field(s)", f[0], nf);
	r = realloc(p->r, (p->n + 1) * sizeof(*r));
	if (!r)
		return -ENOMEM;
	p->r = r;
	p->r[p->n++] = (struct nm_journal_rec){ .f = f, .nf = nf, .off = off };
	return 0;
}

int nm_journal_parse(char *buf, size_t len, struct nm_journal_parsed *p)
{
	char *line, *nl, **f, why[sizeof(p->why)];
	int nf = 0, rc = 0, lineno = 0;

	memset(p, 0, sizeof(*p));
	p->buf = buf;
	for (line = buf; (nl = memchr(line, '\n', len - (line - buf))); line = nl + 1) {
		lineno++;
		if (memchr(line, '\0', nl - line))
			rc = bad(p, "a NUL byte");
		*nl = '\0';
		f = rc ? NULL : split_line(line, &nf);
		if (!rc && !f)
			rc = bad(p, "an escape netmedic never writes (or no memory)");
		if (!rc && line == buf)
			rc = parse_header(p, f, nf);
		else if (!rc)
			rc = add_record(p, f, nf, line - buf);
		if (rc || line == buf)
			free(f);
		if (rc) {
			snprintf(why, sizeof(why), "line %d: %s", lineno, p->why);
			nm_journal_parsed_free(p);
			snprintf(p->why, sizeof(p->why), "%s", why);
			return rc;
		}
	}
	return 0;
}

/* Read a journal back: its whole text, parsed (nm_journal_parse). */
static int parse_journal(int fd, struct nm_journal_parsed *p)
{
	size_t len;
	char *buf;
	int rc;

	memset(p, 0, sizeof(*p));
	rc = read_fd(fd, &buf, &len);
	if (rc)
		return rc;
	return nm_journal_parse(buf, len, p);
}

/* ---- running commands ---- */

/*
 * A step that hangs (a wedged tc, or a command that never exits) must not
 * hang the tool, nor --cleanup: it is killed after this, and its record,
 * as any failed undo, is kept.
 */
#define NM_CMD_TIMEOUT_S	10

#ifndef SYS_pidfd_open
#define SYS_pidfd_open		434	/* the same on every architecture */
#endif

/* Waits for pid at most timeout_s; killed (SIGKILL) and reaped past it: -ETIMEDOUT. */
static int wait_bounded(pid_t pid, int *status, int timeout_s)
{
	int pfd = (int)syscall(SYS_pidfd_open, pid, 0), rc = 0;
	struct pollfd p = { .fd = pfd, .events = POLLIN };
	long left_ms = timeout_s * 1000L;

	while (left_ms > 0) {
		pid_t r = waitpid(pid, status, WNOHANG);

		if (r == pid)
			goto out;
		if (r < 0 && errno != EINTR) {
			rc = -errno;
			goto out;
		}
		/* a pidfd turns readable at the exit; without one (before 5.3), poll every 10 ms */
		if (pfd >= 0 && poll(&p, 1, (int)(left_ms < 100 ? left_ms : 100)) < 0 && errno != EINTR)
			break;
		if (pfd < 0)
			usleep(10000);
		left_ms -= pfd >= 0 ? 100 : 10;
	}
	if (waitpid(pid, status, WNOHANG) != pid) {
		kill(pid, SIGKILL);
		while (waitpid(pid, status, 0) < 0 && errno == EINTR)
			;
		rc = -ETIMEDOUT;
	}
out:
	if (pfd >= 0)
		close(pfd);
	return rc;
}

/*
 * fork+execvp with stdin from /dev/null. A CLOEXEC pipe carries the
 * execvp errno back, so "no such command" is told apart from a failure.
 */
static int run_cmd(const char *const *argv, char *err, size_t errlen)
{
	char cmd[512];
	int pfd[2], status, e = 0, rc;
	ssize_t n;
	pid_t pid;

	fmt_argv(argv, cmd, sizeof(cmd));
	if (pipe2(pfd, O_CLOEXEC))
		return nm_set_err(err, errlen, -errno, "cannot run %s: %s", cmd, strerror(errno));
	pid = fork();
	if (pid < 0) {
		rc = -errno;
		close(pfd[0]);
		close(pfd[1]);
		return nm_set_err(err, errlen, rc, "cannot run %s: %s", cmd, strerror(-rc));
	}
	if (pid == 0) {
		int nul = open("/dev/null", O_RDONLY);

		if (nul >= 0)
			dup2(nul, STDIN_FILENO);
		execvp(argv[0], (char *const *)argv);
		e = errno;
		n = write(pfd[1], &e, sizeof(e));
		_exit(127);
	}
	close(pfd[1]);
	do {
		n = read(pfd[0], &e, sizeof(e));
	} while (n < 0 && errno == EINTR);
	close(pfd[0]);
	rc = wait_bounded(pid, &status, NM_CMD_TIMEOUT_S);
	if (rc == -ETIMEDOUT)
		return nm_set_err(err, errlen, rc, "%s: timed out after %d s (killed)", cmd, NM_CMD_TIMEOUT_S);
	if (rc)
		return nm_set_err(err, errlen, rc, "cannot wait for %s: %s", cmd, strerror(-rc));
	if (n == (ssize_t)sizeof(e) && e)
		return nm_set_err(err, errlen, -e, "cannot run %s: %s", cmd, strerror(e));
	if (WIFEXITED(status) && WEXITSTATUS(status) == 0)
		return 0;
	if (WIFSIGNALED(status))
		return nm_set_err(err, errlen, -EIO, "%s: killed by signal %d", cmd, WTERMSIG(status));
	return nm_set_err(err, errlen, -EIO, "%s: exited with status %d", cmd, WEXITSTATUS(status));
}

/* ---- appending records ---- */

static int cut(struct nm_journal *j, off_t off)
{
	if (ftruncate(j->fd, off) || fsync(j->fd))
		return -errno;
	j->end = off;
	return 0;
}

/* Append one record and make it durable before the caller changes anything. */
static int append(struct nm_journal *j, struct sbuf *b)
{
	int rc;

	if (b->oom)
		return -ENOMEM;
	sb_add(b, "\n", 1);
	if (b->oom)
		return -ENOMEM;
	rc = write_all(j->fd, b->p, b->len, j->end);
	if (!rc && fsync(j->fd))
		rc = -errno;
	if (rc) {
		/* Best effort: a torn line is ignored when read back anyway. */
		if (ftruncate(j->fd, j->end) == 0)
			fsync(j->fd);
		return rc;
	}
	j->end += b->len;
	j->count++;
	return 0;
}

static int write_header(struct nm_journal *j, const char *key, const char *netns, unsigned long ino)
{
	struct sbuf b = { 0 };
	int rc;

	sb_header(&b, (long)getpid(), j->tool, key, netns, ino);
	j->end = 0;
	rc = ftruncate(j->fd, 0) ? -errno : append(j, &b);
	free(b.p);
	j->count = 0;
	/* The directory entry must survive a crash too, or cleanup finds nothing. */
	return rc ? rc : fsync_dir(j->dir);
}

/* ---- open ---- */

/* pid of the process holding fd's lock; its header may still be on the way. */
static long holder_pid(int fd)
{
	struct nm_journal_parsed p;
	long pid = 0;

	for (int i = 0; i < 50 && !pid; i++) {
		if (i)
			usleep(2000);
		if (parse_journal(fd, &p))
			continue;
		if (p.have_header)
			pid = p.pid;
		nm_journal_parsed_free(&p);
	}
	return pid;
}

/* The journal as opened: the same checks as its directory's. */
static int check_fd(int fd, char *why, size_t len)
{
	struct stat st;

	if (fstat(fd, &st))
		return nm_set_err(why, len, -errno, "cannot be read: %s", strerror(errno));
	return nm_journal_check_stat(&st, S_IFREG, geteuid(), why, len);
}

/* Open and lock path; retries when the file was unlinked under us. */
static int open_locked(const char *path, int *fdp)
{
	for (int tries = 0; tries < 100; tries++) {
		int fd = open(path, O_RDWR | O_CREAT | O_CLOEXEC | O_NOFOLLOW, 0600);

		if (fd < 0)
			return -errno;
		if (flock(fd, LOCK_EX | LOCK_NB)) {
			int rc = errno == EWOULDBLOCK ? -EBUSY : -errno;

			if (rc == -EBUSY) {
				*fdp = fd;	/* caller reads the holder's pid */
				return rc;
			}
			close(fd);
			return rc;
		}
		if (same_file(fd, path)) {
			*fdp = fd;
			return 0;
		}
		close(fd);
	}
	return -EAGAIN;
}

/* A journal left by a dead owner: refuse if it still has work for cleanup. */
static int check_stale(struct nm_journal *j, const char *key, char *err, size_t errlen)
{
	struct nm_journal_parsed p;
	int rc = parse_journal(j->fd, &p);

	if (rc == -EBADMSG)
		return nm_set_err(err, errlen, rc, "journal %s is corrupt (%s); inspect and remove it",
			       j->path, p.why);
	if (rc)
		return nm_set_err(err, errlen, rc, "cannot read journal %s: %s", j->path, strerror(-rc));
	if (p.n)
		rc = nm_set_err(err, errlen, -EEXIST,
			     "%s was left with %d unrestored change(s) to %s by %s (pid %ld), which died; run `%s --cleanup` first",
			     j->path, p.n, key, j->tool, p.pid, j->tool);
	nm_journal_parsed_free(&p);
	return rc;
}

static int journal_init(struct nm_journal *j, const char *tool, const char *key)
{
	char skey[NM_KEY_MAX];
	int rc;

	j->fd = -1;
	if (!tool || !*tool || !key || !*key)
		return -EINVAL;
	rc = sanitize(tool, j->tool, sizeof(j->tool));
	if (!rc)
		rc = sanitize(key, skey, sizeof(skey));
	if (rc)
		return rc;
	if (snprintf(j->dir, sizeof(j->dir), "%s", nm_journal_dir()) >= (int)sizeof(j->dir) ||
	    snprintf(j->path, sizeof(j->path), "%s/%s-%s" NM_SUFFIX, j->dir, j->tool, skey) >=
	    (int)sizeof(j->path))
		return -ENAMETOOLONG;
	return 0;
}

int nm_journal_open(struct nm_journal **jp, const char *tool, const char *key, const char *netns,
		    char *err, size_t errlen)
{
	struct nm_journal *j;
	unsigned long ino;
	char why[128];
	int rc;

	*jp = NULL;
	netns = netns ? netns : "";
	ino = nm_netns_inode(*netns ? netns : NULL);
	if (*netns && !ino)
		return nm_set_err(err, errlen, -ENOENT, "netns %s not found", netns);
	j = calloc(1, sizeof(*j));
	if (!j)
		return nm_set_err(err, errlen, -ENOMEM, "out of memory");
	rc = journal_init(j, tool, key);
	if (rc) {
		nm_set_err(err, errlen, rc, "bad journal name for %s/%s: %s", tool ? tool : "",
			key ? key : "", strerror(-rc));
		goto fail;
	}
	rc = mkdir_p(j->dir, why, sizeof(why));
	if (rc) {
		nm_set_err(err, errlen, rc, "run directory %s %s", j->dir, why);
		goto fail;
	}
	rc = open_locked(j->path, &j->fd);
	if (rc == -EBUSY) {
		nm_set_err(err, errlen, rc, "another %s instance (pid %ld) is already changing %s",
			j->tool, holder_pid(j->fd), key);
		goto fail;
	}
	if (rc == -ELOOP) {
		nm_set_err(err, errlen, rc, "journal %s is a symbolic link; remove it", j->path);
		goto fail;
	}
	if (rc) {
		nm_set_err(err, errlen, rc, "cannot lock %s: %s", j->path, strerror(-rc));
		goto fail;
	}
	rc = check_fd(j->fd, why, sizeof(why));
	if (rc) {
		nm_set_err(err, errlen, rc, "journal %s %s; remove it", j->path, why);
		goto fail;
	}
	rc = check_stale(j, key, err, errlen);
	if (rc)
		goto fail;
	rc = write_header(j, key, netns, ino);
	if (rc) {
		nm_set_err(err, errlen, rc, "cannot write journal %s: %s", j->path, strerror(-rc));
		unlink(j->path);
		goto fail;
	}
	*jp = j;
	return 0;
fail:
	if (j->fd >= 0)
		close(j->fd);
	free(j);
	return rc;
}

int nm_journal_count(const struct nm_journal *j)
{
	return j ? j->count : 0;
}

/* ---- recording changes ---- */

static void copy_old(const char *old, char *out, size_t len)
{
	size_t n = strlen(old);

	if (!out || !len)
		return;
	if (n && old[n - 1] == '\n')
		n--;
	if (n >= len)
		n = len - 1;
	memcpy(out, old, n);
	out[n] = '\0';
}

int nm_journal_set_file(struct nm_journal *j, const char *path, const char *new_value,
			char *old_out, size_t oldlen, char *err, size_t errlen)
{
	struct sbuf b = { 0 };
	bool changed;
	char *old = NULL;
	off_t off;
	int rc;

	if (!j || !path || !new_value)
		return nm_set_err(err, errlen, -EINVAL, "invalid argument");
	rc = read_value(path, &old);
	if (rc)
		return nm_set_err(err, errlen, rc, "cannot read %s: %s", path, strerror(-rc));
	sb_record(&b, "file", (const char *const[]){ path, old, NULL });
	off = j->end;
	rc = append(j, &b);
	free(b.p);
	if (rc) {
		free(old);
		return nm_set_err(err, errlen, rc, "cannot write journal %s: %s", j->path, strerror(-rc));
	}
	rc = write_value(path, new_value, &changed);
	if (rc && !changed && cut(j, off) == 0)
		j->count--;
	if (!rc)
		copy_old(old, old_out, oldlen);
	free(old);
	if (rc)
		return nm_set_err(err, errlen, rc, "cannot write %s: %s", path, strerror(-rc));
	return 0;
}

int nm_journal_ahead(struct nm_journal *j, const char *const *undo_argv, char *err, size_t errlen)
{
	struct sbuf b = { 0 };
	int rc;

	if (!j || !undo_argv || !undo_argv[0])
		return nm_set_err(err, errlen, -EINVAL, "invalid argument");
	sb_record(&b, "cmd", undo_argv);
	rc = append(j, &b);
	free(b.p);
	/* nothing was changed yet: nothing to take back when the record failed */
	if (rc)
		return nm_set_err(err, errlen, rc, "cannot write journal %s: %s", j->path, strerror(-rc));
	return 0;
}

int nm_journal_run(struct nm_journal *j, const char *const *do_argv, const char *const *undo_argv,
		   char *err, size_t errlen)
{
	struct sbuf b = { 0 };
	off_t off;
	int rc;

	if (!j || !undo_argv || !undo_argv[0] || (do_argv && !do_argv[0]))
		return nm_set_err(err, errlen, -EINVAL, "invalid argument");
	sb_record(&b, "cmd", undo_argv);
	off = j->end;
	rc = append(j, &b);
	free(b.p);
	if (rc) {
		/* Never leave a change behind that no journal knows about. */
		if (!do_argv)
			run_cmd(undo_argv, NULL, 0);
		return nm_set_err(err, errlen, rc, "cannot write journal %s: %s", j->path, strerror(-rc));
	}
	/* Write-ahead: the undo is on disk before the change is made. */
	rc = do_argv ? run_cmd(do_argv, err, errlen) : 0;
	if (rc && cut(j, off) == 0)
		j->count--;
	return rc;
}

int nm_journal_allow_cmd(const char *argv0)
{
	int i;

	if (!argv0 || !*argv0 || strlen(argv0) >= sizeof(allowed[0]))
		return -EINVAL;
	for (i = 0; i < NM_JOURNAL_CMDS && allowed[i][0] && strcmp(allowed[i], argv0); i++)
		;
	if (i == NM_JOURNAL_CMDS)
		return -ENOSPC;
	snprintf(allowed[i], sizeof(allowed[i]), "%s", argv0);
	return 0;
}

/* The journal says what to run; only what the tool itself undoes with is run. */
static bool cmd_allowed(const char *argv0, char *list, size_t len)
{
	size_t off = 0;

	list[0] = '\0';
	for (int i = 0; i < NM_JOURNAL_CMDS && allowed[i][0]; i++) {
		if (!strcmp(allowed[i], argv0))
			return true;
		if (off < len)
			off += snprintf(list + off, len - off, "%s%s", i ? ", " : "", allowed[i]);
	}
	return false;
}

int nm_journal_exec(const char *kind, nm_journal_exec_fn fn, void *arg)
{
	int i;

	if (!kind || !fn || !is_plan(kind))
		return -EINVAL;
	for (i = 0; i < NM_JOURNAL_KINDS && execs[i].fn && strcmp(execs[i].kind, kind); i++)
		;
	if (i == NM_JOURNAL_KINDS)
		return -ENOSPC;
	snprintf(execs[i].kind, sizeof(execs[i].kind), "%s", kind);
	execs[i].fn = fn;
	execs[i].arg = arg;
	return 0;
}

int nm_journal_add(struct nm_journal *j, const char *kind, const char *const *fields, char *err,
		   size_t errlen)
{
	struct sbuf b = { 0 };
	int rc;

	if (!j || !kind || !is_plan(kind) || !fields || !fields[0])
		return nm_set_err(err, errlen, -EINVAL, "invalid argument");
	sb_record(&b, kind, fields);
	rc = append(j, &b);
	free(b.p);
	if (rc)
		return nm_set_err(err, errlen, rc, "cannot write journal %s: %s", j->path, strerror(-rc));
	return 0;
}

void nm_journal_mark(const struct nm_journal *j, struct nm_journal_mark *m)
{
	m->end = j ? j->end : 0;
	m->count = j ? j->count : 0;
}

int nm_journal_rewind(struct nm_journal *j, const struct nm_journal_mark *m)
{
	int rc;

	if (!j || m->end > j->end || m->count > j->count)
		return -EINVAL;
	if (m->end == j->end)
		return 0;
	rc = cut(j, m->end);
	if (!rc)
		j->count = m->count;
	return rc;
}

/* ---- undo ---- */

static void jlog(FILE *log, const char *fmt, ...)
{
	va_list ap;

	if (!log)
		return;
	va_start(ap, fmt);
	vfprintf(log, fmt, ap);
	va_end(ap);
	fputc('\n', log);
	/* Undo may run in a forked child or right before a crash. */
	fflush(log);
}

/* A plan record: its kind's executor undoes it. */
static int undo_plan(const struct nm_journal_rec *r, FILE *log)
{
	char msg[512] = "";
	int rc, i;

	for (i = 0; i < NM_JOURNAL_KINDS && execs[i].fn && strcmp(execs[i].kind, r->f[0]); i++)
		;
	if (i == NM_JOURNAL_KINDS || !execs[i].fn) {
		jlog(log, "failed to undo a %s record: nothing here applies that kind", r->f[0]);
		return -ENOEXEC;
	}
	rc = execs[i].fn((const char *const *)r->f + 1, r->nf - 1, msg, sizeof(msg), execs[i].arg);
	if (rc)
		jlog(log, "failed to undo a %s record: %s", r->f[0], msg[0] ? msg : strerror(-rc));
	else
		jlog(log, "%s", msg[0] ? msg : "undone");
	return rc;
}

static int undo_one(const struct nm_journal_rec *r, const char *tool, FILE *log)
{
	char shown[256], msg[512];
	bool changed;
	int rc;

	if (is_plan(r->f[0]))
		return undo_plan(r, log);

	if (!strcmp(r->f[0], "file")) {
		fmt_value(r->f[2], shown, sizeof(shown));
		rc = write_value(r->f[1], r->f[2], &changed);
		if (rc)
			jlog(log, "failed to restore %s to %s: %s", r->f[1], shown, strerror(-rc));
		else
			jlog(log, "restored %s to %s", r->f[1], shown);
		return rc;
	}
	fmt_argv((const char *const *)r->f + 1, shown, sizeof(shown));
	if (!cmd_allowed(r->f[1], msg, sizeof(msg))) {
		jlog(log, "failed to undo with %s: %s is not a command %s undoes with (%s)", shown, r->f[1],
		     tool, msg[0] ? msg : "none");
		return -EPERM;
	}
	rc = run_cmd((const char *const *)r->f + 1, msg, sizeof(msg));
	if (rc)
		jlog(log, "failed to undo with %s", msg);
	else
		jlog(log, "ran %s", shown);
	return rc;
}

/* The journal being undone: its fd (locked) changes when it is rewritten. */
struct target {
	int fd;
	const char *path, *dir;
};

/*
 * The journal after failed undos: the header, the records not tried yet
 * (r[0..todo)), then the failed ones (indices newest first) in their
 * order. A locked temp file renamed over the journal: a crash leaves the
 * old or the new one, and nobody can take the new one before we let go.
 */
static int rewrite(struct target *t, const struct nm_journal_parsed *p, int todo, const int *failed, int nfailed)
{
	const char *base = strrchr(t->path, '/');
	struct sbuf b = { 0 };
	char tmp[PATH_MAX];
	int fd, rc;

	sb_header(&b, p->pid, p->tool, p->key, p->netns, p->ino);
	sb_add(&b, "\n", 1);
	for (int i = 0; i < todo + nfailed; i++) {
		const struct nm_journal_rec *r = &p->r[i < todo ? i : failed[nfailed - 1 - (i - todo)]];

		sb_record(&b, r->f[0], (const char *const *)r->f + 1);
		sb_add(&b, "\n", 1);
	}
	if (b.oom) {
		free(b.p);
		return -ENOMEM;
	}
	snprintf(tmp, sizeof(tmp), "%s/.%s.XXXXXX", t->dir, base ? base + 1 : t->path);
	fd = mkostemp(tmp, O_CLOEXEC);
	rc = fd < 0 ? -errno : 0;
	if (!rc && flock(fd, LOCK_EX))
		rc = -errno;
	if (!rc)
		rc = write_all(fd, b.p, b.len, 0);
	if (!rc && fsync(fd))
		rc = -errno;
	if (!rc && rename(tmp, t->path))
		rc = -errno;
	free(b.p);
	if (rc && fd >= 0) {
		unlink(tmp);
		close(fd);
	}
	if (rc)
		return rc;
	fsync_dir(t->dir);
	close(t->fd);
	t->fd = fd;
	return 0;
}

/* What a failed undo leaves, and how to retry it. */
static void log_kept(FILE *log, const struct target *t, const struct nm_journal_parsed *p, int nfailed, int rc)
{
	if (rc)
		jlog(log, "%s: cannot drop what was undone from it (%s): it keeps every change from the first that failed",
		     t->path, strerror(-rc));
	else
		jlog(log, "%s keeps %d change(s) that could not be undone (the failures above)", t->path,
		     nfailed);
	jlog(log, "%s: to retry, fix what failed and run `%s --cleanup`", t->path, p->tool);
}

/*
 * Undo newest first; each done record is cut off so a crash here loses
 * nothing, and one that failed is kept (rewrite) so that a retry can
 * still find it. 0 when all were undone, else the first -errno.
 */
static int undo_records(struct target *t, const struct nm_journal_parsed *p, FILE *log)
{
	int first = 0, nfailed = 0, wrc = 0, rc;
	int *failed = calloc(p->n ? p->n : 1, sizeof(*failed));

	if (!failed)
		return -ENOMEM;
	for (int i = p->n - 1; i >= 0; i--) {
		rc = undo_one(&p->r[i], p->tool, log);
		if (rc && !first)
			first = rc;
		if (rc)
			failed[nfailed++] = i;
		if (!nfailed && ftruncate(t->fd, p->r[i].off) == 0)
			fsync(t->fd);
		else if (nfailed)
			wrc = rewrite(t, p, i, failed, nfailed);
	}
	if (nfailed)
		log_kept(log, t, p, nfailed, wrc);
	free(failed);
	return first;
}

static void remove_journal(const char *path, const char *dir)
{
	unlink(path);
	/* Otherwise a crash could resurrect it and cleanup would undo twice. */
	fsync_dir(dir);
}

int nm_journal_undo(struct nm_journal *j, FILE *log)
{
	struct target t;
	struct nm_journal_parsed p;
	int rc;

	if (!j)
		return 0;
	t = (struct target){ .fd = j->fd, .path = j->path, .dir = j->dir };
	rc = parse_journal(t.fd, &p);
	if (rc) {
		/* Keep it: the next open refuses and someone can look at it. */
		jlog(log, "cannot read journal %s: %s; left in place", j->path,
		     rc == -EBADMSG ? p.why : strerror(-rc));
	} else {
		rc = undo_records(&t, &p, log);
		nm_journal_parsed_free(&p);
		if (!rc)
			remove_journal(j->path, j->dir);
	}
	close(t.fd);
	free(j);
	return rc;
}

/* ---- cleanup after a crash ---- */

/* Undo in the recorded netns from a child, so the caller's netns and mounts stay put. */
static int undo_in_netns(struct target *t, const struct nm_journal_parsed *p, FILE *log)
{
	char err[256];
	int status, rc;
	pid_t pid;

	if (log)
		fflush(log);
	pid = fork();
	if (pid < 0)
		return -errno;
	if (pid == 0) {
		rc = nm_netns_enter(p->netns, err, sizeof(err));
		if (rc) {
			jlog(log, "%s: %s", t->path, err);
			_exit(NM_EXIT_NOENTER);
		}
		rc = undo_records(t, p, log);
		_exit(-rc < NM_EXIT_NOENTER ? -rc : EIO);
	}
	while (waitpid(pid, &status, 0) < 0) {
		if (errno != EINTR)
			return -errno;
	}
	if (!WIFEXITED(status))
		return -EIO;
	if (WEXITSTATUS(status) == NM_EXIT_NOENTER)
		return -ENOEXEC;
	return -WEXITSTATUS(status);
}

enum where { NS_HERE, NS_THERE, NS_GONE, NS_REUSED, NS_NOT_NETNS, NS_ELSEWHERE };

/* Where to undo the changes of a journal made in p->netns (or in its own netns). */
static enum where netns_target(const struct nm_journal_parsed *p, unsigned long *ino)
{
	unsigned long cur = nm_netns_inode(NULL);
	int rc;

	*ino = 0;
	if (!*p->netns)
		return p->ino && cur && p->ino != cur ? NS_ELSEWHERE : NS_HERE;
	rc = nm_netns_check(p->netns);
	if (rc == -ENOENT)
		return NS_GONE;
	/* Other errors (EACCES...) are left to the entry, which names them. */
	if (rc == -EINVAL)
		return NS_NOT_NETNS;
	*ino = nm_netns_inode(p->netns);
	if (!*ino)
		return NS_GONE;
	/* A different inode: the name or pid now stands for another netns. */
	if (p->ino && *ino != p->ino)
		return NS_REUSED;
	return *ino == cur ? NS_HERE : NS_THERE;
}

static int cleanup_locked(struct target *t, const struct nm_journal_parsed *p, FILE *log)
{
	unsigned long ino;
	enum where where = netns_target(p, &ino);
	int rc;

	switch (where) {
	case NS_ELSEWHERE:
		jlog(log, "%s: changes were made in netns inode %lu, not this one (%lu); run --cleanup there",
		     t->path, p->ino, nm_netns_inode(NULL));
		return -EXDEV;
	case NS_NOT_NETNS:
		jlog(log, "%s: its netns %s is not a network namespace; left in place, inspect and remove it",
		     t->path, p->netns);
		return -EINVAL;
	case NS_GONE:
		jlog(log, "%s: netns %s no longer exists, nothing left to restore; removing journal",
		     t->path, p->netns);
		remove_journal(t->path, t->dir);
		return 0;
	case NS_REUSED:
		jlog(log, "%s: netns %s is now another netns (inode %lu, the changes were made in %lu, which that path no longer reaches): nothing to restore there; removing journal",
		     t->path, p->netns, ino, p->ino);
		remove_journal(t->path, t->dir);
		return 0;
	case NS_HERE:
	case NS_THERE:
		break;
	}
	jlog(log, "%s: undoing %d change(s) left by pid %ld%s%s", t->path, p->n, p->pid,
	     where == NS_THERE ? " in netns " : "", where == NS_THERE ? p->netns : "");
	rc = where == NS_THERE ? undo_in_netns(t, p, log) : undo_records(t, p, log);
	if (rc == -ENOEXEC) {
		jlog(log, "%s: left in place", t->path);
		return -ENOEXEC;
	}
	if (rc)
		return rc;	/* undo_records kept what failed, and said so */
	remove_journal(t->path, t->dir);
	return 1;
}

/* Only a regular file of ours that nobody else may write is ever run. */
static int trusted(const char *path, FILE *log)
{
	char why[128];
	int rc = check_path(path, S_IFREG, why, sizeof(why));

	if (rc && rc != -ENOENT)
		jlog(log, "%s %s; not run, left alone", path, why);
	return rc;
}

/* A journal held by a live process: say so, if it is ours. */
static void log_busy(int fd, const char *path, const char *tool, FILE *log)
{
	struct nm_journal_parsed p;

	if (parse_journal(fd, &p))
		return;
	/* "<tool>-*" also matches tools named "<tool>-x"; those are not ours. */
	if (!p.have_header || !strcmp(p.tool, tool))
		jlog(log, "%s: in use by running pid %ld, left alone", path, p.pid);
	nm_journal_parsed_free(&p);
}

/* 1 undone, 0 nothing to do here, -errno on failure. */
static int cleanup_one(const char *dir, const char *name, const char *tool, FILE *log)
{
	char path[PATH_MAX], why[128];
	struct target t = { .fd = -1, .path = path, .dir = dir };
	struct nm_journal_parsed p;
	int rc;

	if (snprintf(path, sizeof(path), "%s/%s", dir, name) >= (int)sizeof(path))
		return -ENAMETOOLONG;
	rc = trusted(path, log);
	if (rc)
		return rc == -ENOENT ? 0 : rc;
	t.fd = open(path, O_RDWR | O_CLOEXEC | O_NOFOLLOW | O_NONBLOCK);
	if (t.fd < 0) {
		rc = -errno;
		if (rc != -ENOENT)
			jlog(log, "%s: cannot open: %s", path, strerror(-rc));
		return rc == -ENOENT ? 0 : rc;
	}
	/* Swapped since the lstat? The open file is what counts. */
	rc = check_fd(t.fd, why, sizeof(why));
	if (rc) {
		jlog(log, "%s %s; not run, left alone", path, why);
		goto out;
	}
	if (flock(t.fd, LOCK_EX | LOCK_NB)) {
		rc = errno == EWOULDBLOCK ? 0 : -errno;
		if (!rc)
			log_busy(t.fd, path, tool, log);
		goto out;
	}
	if (!same_file(t.fd, path))
		goto out;
	rc = parse_journal(t.fd, &p);
	if (rc) {
		jlog(log, "%s: %s: %s; inspect and remove it", path,
		     rc == -EBADMSG ? "corrupt journal" : "cannot read journal",
		     rc == -EBADMSG ? p.why : strerror(-rc));
		goto out;
	}
	if (p.have_header && strcmp(p.tool, tool))
		rc = 0;		/* "<tool>-*" also matches a tool named "<tool>-x" */
	else if (!p.n)
		remove_journal(path, dir);	/* died before changing anything */
	else
		rc = cleanup_locked(&t, &p, log);
	nm_journal_parsed_free(&p);
out:
	close(t.fd);
	return rc;
}

static bool journal_name(const char *name, const char *tool)
{
	size_t n = strlen(name), t = strlen(tool), s = strlen(NM_SUFFIX);

	return n > t + 1 + s && !strncmp(name, tool, t) && name[t] == '-' &&
	       !strcmp(name + n - s, NM_SUFFIX);
}

int nm_journal_cleanup(const char *tool, FILE *log)
{
	char stool[NM_TOOL_MAX], why[128];
	const char *dir = nm_journal_dir();
	struct dirent **names;
	int n, rc, done = 0, first = 0;

	if (!tool || !*tool)
		return -EINVAL;
	rc = sanitize(tool, stool, sizeof(stool));
	if (rc)
		return rc;
	/* A missing dir just means nothing to do; one others may write is not ours to run. */
	rc = check_path(dir, S_IFDIR, why, sizeof(why));
	if (rc == -ENOENT)
		return 0;
	if (rc) {
		jlog(log, "run directory %s %s; no journal there is run", dir, why);
		return rc;
	}
	/* Sorted, so logs are stable. */
	n = scandir(dir, &names, NULL, alphasort);
	if (n < 0) {
		rc = -errno;
		jlog(log, "run directory %s cannot be read: %s", dir, strerror(-rc));
		return rc;
	}
	for (int i = 0; i < n; i++) {
		if (journal_name(names[i]->d_name, stool)) {
			rc = cleanup_one(dir, names[i]->d_name, stool, log);
			if (rc > 0)
				done++;
			else if (rc < 0 && !first)
				first = rc;
		}
		free(names[i]);
	}
	free(names);
	return first ? first : done;
}
