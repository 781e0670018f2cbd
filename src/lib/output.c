// SPDX-License-Identifier: GPL-2.0
/*
 * Output sinks: JSON lines, Prometheus textfile exposition, address
 * formatting.
 */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <limits.h>
#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <poll.h>
#include <signal.h>
#include <unistd.h>
#include <arpa/inet.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/statfs.h>
#include <linux/magic.h>

#include "lib/cli.h"
#include "lib/err.h"
#include "lib/output.h"

/* ---------------------------------------------------------------- JSON */

/*
 * Streams the escaped string straight into the FILE so that emitting an
 * event never allocates; JSON needs only '"', '\\' and C0 controls escaped.
 */
static void json_put_string(FILE *f, const char *s)
{
	const unsigned char *c;

	if (!s) {
		fputs("null", f);
		return;
	}
	putc('"', f);
	for (c = (const unsigned char *)s; *c; c++) {
		if (*c == '"' || *c == '\\') {
			putc('\\', f);
			putc(*c, f);
		} else if (*c < 0x20) {
			fprintf(f, "\\u%04x", *c);
		} else {
			putc(*c, f);
		}
	}
	putc('"', f);
}

static void json_key(struct nm_json *j, const char *key)
{
	if (j->nfields++)
		putc(',', j->f);
	json_put_string(j->f, key);
	putc(':', j->f);
}

void nm_json_begin(struct nm_json *j, FILE *f, const char *type)
{
	j->f = f;
	j->nfields = 0;
	putc('{', f);
	json_key(j, "type");
	json_put_string(f, type);
}

void nm_json_str(struct nm_json *j, const char *key, const char *val)
{
	json_key(j, key);
	json_put_string(j->f, val);
}

void nm_json_u64(struct nm_json *j, const char *key, uint64_t v)
{
	json_key(j, key);
	fprintf(j->f, "%" PRIu64, v);
}

void nm_json_i64(struct nm_json *j, const char *key, int64_t v)
{
	json_key(j, key);
	fprintf(j->f, "%" PRId64, v);
}

void nm_json_double(struct nm_json *j, const char *key, double v)
{
	json_key(j, key);
	/* JSON has no NaN/Infinity; null keeps the line parseable. */
	if (!isfinite(v))
		fputs("null", j->f);
	else
		fprintf(j->f, "%.6g", v);
}

void nm_json_fixed(struct nm_json *j, const char *key, double v, int prec)
{
	json_key(j, key);
	if (!isfinite(v))
		fputs("null", j->f);
	else
		fprintf(j->f, "%.*f", prec, v);
}

void nm_json_bool(struct nm_json *j, const char *key, bool v)
{
	json_key(j, key);
	fputs(v ? "true" : "false", j->f);
}

void nm_json_u32_array(struct nm_json *j, const char *key,
		       const uint32_t *v, int n)
{
	int i;

	json_key(j, key);
	putc('[', j->f);
	for (i = 0; i < n; i++)
		fprintf(j->f, i ? ",%" PRIu32 : "%" PRIu32, v[i]);
	putc(']', j->f);
}

void nm_json_str_array(struct nm_json *j, const char *key,
		       const char *const *v, int n)
{
	int i;

	json_key(j, key);
	putc('[', j->f);
	for (i = 0; i < n; i++) {
		if (i)
			putc(',', j->f);
		json_put_string(j->f, v[i]);
	}
	putc(']', j->f);
}

void nm_json_str_map(struct nm_json *j, const char *key, const char *const *keys,
		     const char *const *vals, int n)
{
	int i;

	json_key(j, key);
	putc('{', j->f);
	for (i = 0; i < n; i++) {
		if (i)
			putc(',', j->f);
		json_put_string(j->f, keys[i]);
		putc(':', j->f);
		json_put_string(j->f, vals[i]);
	}
	putc('}', j->f);
}

void nm_json_u64_map(struct nm_json *j, const char *key, const char *const *keys,
		     const uint64_t *vals, int n)
{
	json_key(j, key);
	putc('{', j->f);
	for (int i = 0; i < n; i++) {
		if (i)
			putc(',', j->f);
		json_put_string(j->f, keys[i]);
		fprintf(j->f, ":%llu", (unsigned long long)vals[i]);
	}
	putc('}', j->f);
}

void nm_json_end(struct nm_json *j)
{
	fputs("}\n", j->f);
	/* Consumers tail the stream live; don't let events sit in a buffer. */
	nm_out_flush(j->f);
}

/* ------------------------------------------------------- Output streams */

static volatile sig_atomic_t out_closed;

/*
 * Whether fd's reader is gone: poll says POLLERR for a pipe with no reader
 * left, POLLHUP or POLLERR for a socket its peer shut. For when errno was
 * lost: stdio set the stream's error while a long line filled its buffer,
 * and the flush after it found nothing left to write.
 */
static bool reader_gone(int fd)
{
	struct pollfd p = { .fd = fd, .events = POLLOUT };

	return fd >= 0 && poll(&p, 1, 0) == 1 && (p.revents & (POLLERR | POLLHUP));
}

bool nm_out_flush(FILE *f)
{
	int err = fflush(f) ? errno : 0;

	if (!err && !ferror(f))
		return true;
	clearerr(f);
	if (err == EPIPE || reader_gone(fileno(f))) {
		out_closed = 1;
		nm_exiting = 1;	/* the way SIGTERM ends a run: remedies undone */
	}
	return false;
}

bool nm_out_closed(void)
{
	return out_closed;
}

/*
 * 141, not 0: `set -o pipefail` scripts already take a producer's SIGPIPE
 * death in `| head` for what it is, from cat, seq and bcc's tools alike,
 * and systemd counts SIGPIPE a clean end. Dying by it, not exit(141), so
 * that a parent sees what a closed pipe does to any tool. Only once all
 * is undone, and never over a failure: an undo that failed says 1.
 */
int nm_out_exit_status(int status)
{
	sigset_t set;

	if (!out_closed || status != NM_EXIT_OK)
		return status;
	fflush(stderr);
	signal(SIGPIPE, SIG_DFL);
	sigemptyset(&set);
	sigaddset(&set, SIGPIPE);
	sigprocmask(SIG_UNBLOCK, &set, NULL);
	raise(SIGPIPE);
	return 128 + SIGPIPE;	/* not reached */
}

int nm_out_columns_of(const char *env, bool tty, int winsize)
{
	char *end;
	long n;

	if (env && *env) {
		errno = 0;
		n = strtol(env, &end, 10);
		if (!*end && !errno && n > 0 && n <= 100000)
			return (int)n;
	}
	if (!tty)
		return 0;
	return winsize > 0 ? winsize : 80;
}

int nm_out_columns(FILE *f)
{
	struct winsize ws = { 0 };
	int fd = fileno(f);
	bool tty = fd >= 0 && isatty(fd);

	if (tty && ioctl(fd, TIOCGWINSZ, &ws))
		ws.ws_col = 0;
	return nm_out_columns_of(getenv("COLUMNS"), tty, ws.ws_col);
}

/* ---------------------------------------------------------- Prometheus */

/*
 * Each family's lines go to a stream of its own, joined in the order the
 * families came when the text is taken: a family given again later (the
 * agent's self metrics, one set per detector) gets its samples beside its
 * first ones, as the format requires ("all lines for a given metric must
 * be provided as one single group"). p->f is the current family's stream,
 * the preamble's before the first family.
 */
struct prom_family {
	char *name;
	FILE *f;
	char *buf;
	size_t len;
};

struct nm_prom {
	FILE *f;		/* where lines go now */
	struct prom_family pre;	/* lines before any family */
	/* each on its own: a memstream keeps the addresses of its buf and len */
	struct prom_family **families;
	int nfamilies;
	int capfamilies;
	char *text;		/* the families joined (nm_prom_join) */
	size_t len;
	bool oom;		/* remembered so write_atomic can refuse */
};

static int fam_open(struct prom_family *fam)
{
	fam->buf = NULL;
	fam->len = 0;
	fam->f = open_memstream(&fam->buf, &fam->len);
	return fam->f ? 0 : -errno;
}

static void fam_close(struct prom_family *fam)
{
	if (fam->f)
		fclose(fam->f);
	free(fam->buf);
	free(fam->name);
	*fam = (struct prom_family){};
}

static int prom_open(struct nm_prom *p)
{
	int ret = fam_open(&p->pre);

	p->f = p->pre.f;
	return ret;
}

static void prom_forget_families(struct nm_prom *p)
{
	for (int i = 0; i < p->nfamilies; i++) {
		fam_close(p->families[i]);
		free(p->families[i]);
	}
	free(p->families);
	p->families = NULL;
	p->nfamilies = 0;
	p->capfamilies = 0;
	fam_close(&p->pre);
	free(p->text);
	p->text = NULL;
	p->len = 0;
	p->f = NULL;
}

struct nm_prom *nm_prom_new(void)
{
	struct nm_prom *p = calloc(1, sizeof(*p));

	if (!p)
		return NULL;
	if (prom_open(p)) {
		free(p);
		return NULL;
	}
	return p;
}

void nm_prom_free(struct nm_prom *p)
{
	if (!p)
		return;
	prom_forget_families(p);
	free(p);
}

int nm_prom_reset(struct nm_prom *p)
{
	prom_forget_families(p);
	p->oom = false;
	return prom_open(p);
}

/*
 * Makes name's stream the current one. Returns true if the family was not
 * seen before (and remembers it); on allocation failure, false with oom
 * set and the preamble's stream current (the text is refused then).
 */
static bool prom_family_new(struct nm_prom *p, const char *name)
{
	struct prom_family **a, *n;
	int i;

	for (i = 0; i < p->nfamilies; i++)
		if (!strcmp(p->families[i]->name, name)) {
			p->f = p->families[i]->f;
			return false;
		}
	if (p->nfamilies == p->capfamilies) {
		int cap = p->capfamilies ? 2 * p->capfamilies : 16;

		a = realloc(p->families, cap * sizeof(*a));
		if (!a)
			goto oom;
		p->families = a;
		p->capfamilies = cap;
	}
	n = calloc(1, sizeof(*n));
	if (!n)
		goto oom;
	n->name = strdup(name);
	if (!n->name || fam_open(n)) {
		fam_close(n);
		free(n);
		goto oom;
	}
	p->families[p->nfamilies++] = n;
	p->f = n->f;
	return true;
oom:
	/* Emitting it twice would make the whole file unparseable later. */
	p->oom = true;
	p->f = p->pre.f;
	return false;
}

/* The families' streams joined into p->text; false when a stream failed or memory ran out. */
static bool prom_join(struct nm_prom *p)
{
	FILE *out;
	bool ok = !p->oom;

	free(p->text);
	p->text = NULL;
	p->len = 0;
	out = open_memstream(&p->text, &p->len);
	if (!out)
		return false;
	for (int i = -1; i < p->nfamilies && ok; i++) {
		struct prom_family *fam = i < 0 ? &p->pre : p->families[i];

		ok = !fflush(fam->f) && !ferror(fam->f) && fwrite(fam->buf, 1, fam->len, out) == fam->len;
	}
	if (fclose(out))
		ok = false;
	return ok;
}

/* HELP text escapes only backslash and newline; label values also '"'. */
static void prom_put_escaped(FILE *f, const char *s, bool quote)
{
	for (; *s; s++) {
		if (*s == '\\')
			fputs("\\\\", f);
		else if (*s == '\n')
			fputs("\\n", f);
		else if (quote && *s == '"')
			fputs("\\\"", f);
		else
			putc(*s, f);
	}
}

/*
 * Shortest decimal that parses back to the same double: %.15g covers
 * typical gauges without noise like 0.10000000000000001, %.17g is exact.
 */
static void prom_put_value(FILE *f, double v)
{
	char buf[32];

	if (isnan(v)) {
		fputs("NaN", f);
		return;
	}
	if (isinf(v)) {
		fputs(v > 0 ? "+Inf" : "-Inf", f);
		return;
	}
	snprintf(buf, sizeof(buf), "%.15g", v);
	if (strtod(buf, NULL) != v)
		snprintf(buf, sizeof(buf), "%.17g", v);
	fputs(buf, f);
}

static void prom_put_labels(FILE *f, const char *const *labels,
			    const char *le)
{
	int n = 0;

	if ((!labels || !labels[0]) && !le)
		return;
	putc('{', f);
	for (; labels && labels[0] && labels[1]; labels += 2) {
		fprintf(f, "%s%s=\"", n++ ? "," : "", labels[0]);
		prom_put_escaped(f, labels[1], true);
		putc('"', f);
	}
	if (le)
		fprintf(f, "%sle=\"%s\"", n ? "," : "", le);
	putc('}', f);
}

void nm_prom_family(struct nm_prom *p, const char *name, const char *type,
		    const char *help)
{
	if (!prom_family_new(p, name))
		return;
	fprintf(p->f, "# HELP %s ", name);
	prom_put_escaped(p->f, help ? help : "", false);
	fprintf(p->f, "\n# TYPE %s %s\n", name, type);
}

void nm_prom_sample(struct nm_prom *p, const char *name,
		    const char *const *labels, double v)
{
	fputs(name, p->f);
	prom_put_labels(p->f, labels, NULL);
	putc(' ', p->f);
	prom_put_value(p->f, v);
	putc('\n', p->f);
}

static void prom_bucket(struct nm_prom *p, const char *name,
			const char *const *labels, const char *le,
			uint64_t cum)
{
	fprintf(p->f, "%s_bucket", name);
	prom_put_labels(p->f, labels, le);
	fprintf(p->f, " %" PRIu64 "\n", cum);
}

void nm_prom_log2_hist(struct nm_prom *p, const char *name,
		       const char *const *labels, const uint64_t *slots,
		       int nslots, double scale, double sum)
{
	uint64_t cum = 0, total = 0;
	int i, last = -1;
	char le[32];

	if (nslots > 64)	/* 2^64 - 1 is the largest representable bound */
		nslots = 64;
	for (i = 0; i < nslots; i++) {
		total += slots[i];
		if (slots[i])
			last = i;
	}
	/* The top slot is open-ended (values are clamped into it). */
	if (last > nslots - 2)
		last = nslots - 2;
	for (i = 0; i <= last; i++) {
		uint64_t hi = (UINT64_C(1) << (i + 1)) - 1;

		cum += slots[i];
		/* %.15g: the bound needs ~10 digits; drop 1e-6 rounding noise */
		snprintf(le, sizeof(le), "%.15g", (double)hi * scale);
		prom_bucket(p, name, labels, le, cum);
	}
	prom_bucket(p, name, labels, "+Inf", total);

	fprintf(p->f, "%s_sum", name);
	prom_put_labels(p->f, labels, NULL);
	putc(' ', p->f);
	prom_put_value(p->f, sum);
	fprintf(p->f, "\n%s_count", name);
	prom_put_labels(p->f, labels, NULL);
	fprintf(p->f, " %" PRIu64 "\n", total);
}

/* Splits path into its directory ("." if none) and base name. */
static int split_path(const char *path, char *dir, size_t dirlen,
		      const char **base)
{
	const char *slash = strrchr(path, '/');
	size_t n;

	if (!slash) {
		*base = path;
		n = snprintf(dir, dirlen, ".");
	} else if (slash == path) {
		*base = slash + 1;
		n = snprintf(dir, dirlen, "/");
	} else {
		*base = slash + 1;
		n = snprintf(dir, dirlen, "%.*s", (int)(slash - path), path);
	}
	if (n >= dirlen)
		return -ENAMETOOLONG;
	return **base ? 0 : -EISDIR;
}

static const char *file_kind(mode_t mode)
{
	switch (mode & S_IFMT) {
	case S_IFCHR: return "character device";
	case S_IFBLK: return "block device";
	case S_IFIFO: return "FIFO";
	case S_IFSOCK: return "socket";
	default: return "special file";
	}
}

/*
 * The target must be absent or a regular file: rename() replaces whatever
 * is there, so a --prom-file /dev/null would destroy the device node. A
 * symlink is refused too rather than followed: rename() replaces the link
 * itself, and the textfile collector reads the regular files of its own
 * directory, so the real path is what the user should give.
 */
static int check_file(const char *path, char *err, size_t errlen)
{
	struct stat st;

	if (lstat(path, &st)) {
		int ret = -errno;

		if (ret == -ENOENT)
			return 0;
		nm_set_err(err, errlen, 0, "cannot access %s: %s", path, strerror(-ret));
		return ret;
	}
	if (S_ISREG(st.st_mode))
		return 0;
	if (S_ISDIR(st.st_mode)) {
		nm_set_err(err, errlen, 0, "%s is a directory", path);
		return -EISDIR;
	}
	if (S_ISLNK(st.st_mode)) {
		nm_set_err(err, errlen, 0, "%s is a symbolic link; give the file it points to (the textfile is replaced by rename, which would replace the link)",
			path);
		return -ELOOP;
	}
	nm_set_err(err, errlen, 0, "%s is a %s, not a regular file", path, file_kind(st.st_mode));
	return -EINVAL;
}

/*
 * Validates the target and fills dir/base; the messages are what an operator
 * sees for a bad --prom-file, so name the exact directory.
 */
static int check_target(const char *path, char *dir, size_t dirlen,
			const char **base, char *err, size_t errlen)
{
	struct stat st;
	int ret;

	ret = split_path(path, dir, dirlen, base);
	if (ret == -EISDIR) {
		nm_set_err(err, errlen, 0, "%s: no file name given", path);
		return ret;
	}
	if (ret) {
		nm_set_err(err, errlen, 0, "%s: path too long", path);
		return ret;
	}
	if (stat(dir, &st)) {
		ret = -errno;
		if (ret == -ENOENT)
			nm_set_err(err, errlen, 0, "directory %s does not exist", dir);
		else
			nm_set_err(err, errlen, 0, "cannot access directory %s: %s",
				dir, strerror(-ret));
		return ret;
	}
	if (!S_ISDIR(st.st_mode)) {
		nm_set_err(err, errlen, 0, "%s is not a directory", dir);
		return -ENOTDIR;
	}
	return check_file(path, err, errlen);
}

/*
 * The kernel's own file systems: they hold the files the kernel makes and
 * take no new one, whoever asks, and the errno of a create there misleads
 * (ENOENT in /proc, EACCES in /sys, even for root).
 */
static const struct {
	long magic;
	const char *name;
} kernel_fs[] = {
	{ PROC_SUPER_MAGIC, "proc" }, { SYSFS_MAGIC, "sysfs" },
	{ CGROUP_SUPER_MAGIC, "cgroup" }, { CGROUP2_SUPER_MAGIC, "cgroup2" },
	{ DEBUGFS_MAGIC, "debugfs" }, { TRACEFS_MAGIC, "tracefs" },
	{ DEVPTS_SUPER_MAGIC, "devpts" }, { SECURITYFS_MAGIC, "securityfs" },
	{ BPF_FS_MAGIC, "bpf" },
};

/* The kernel file system dir is on, or NULL for any other */
static const char *kernel_fs_of(const char *dir)
{
	struct statfs sf;

	if (statfs(dir, &sf))
		return NULL;
	for (size_t i = 0; i < sizeof(kernel_fs) / sizeof(kernel_fs[0]); i++)
		if (sf.f_type == kernel_fs[i].magic)
			return kernel_fs[i].name;
	return NULL;
}

/* Why dir took no new file (err: the create's -errno): its file system's kind, or the errno's. */
static void create_err(const char *dir, int err, char *buf, size_t len)
{
	const char *fs = kernel_fs_of(dir);

	if (fs)
		nm_set_err(buf, len, 0, "cannot create files in directory %s: it is on a %s file "
			   "system, which takes no new files", dir, fs);
	else
		nm_set_err(buf, len, 0, "cannot create files in directory %s: %s", dir,
			   strerror(-err));
}

/*
 * The temp name starts with '.' and does not end in ".prom", so the textfile
 * collector never picks up a half-written file.
 */
static int create_temp(const char *dir, const char *base, char *tmp,
		       size_t tmplen, char *err, size_t errlen)
{
	int fd, ret;

	if ((size_t)snprintf(tmp, tmplen, "%s/.%s.XXXXXX", dir, base) >= tmplen) {
		nm_set_err(err, errlen, 0, "%s/%s: path too long", dir, base);
		return -ENAMETOOLONG;
	}
	fd = mkstemp(tmp);
	if (fd < 0) {
		ret = -errno;
		create_err(dir, ret, err, errlen);
		return ret;
	}
	/* mkstemp uses 0600; node_exporter usually runs as another user. */
	if (fchmod(fd, 0644)) {
		ret = -errno;
		nm_set_err(err, errlen, 0, "cannot chmod %s: %s", tmp, strerror(-ret));
		close(fd);
		unlink(tmp);
		return ret;
	}
	return fd;
}

static int write_all(int fd, const char *buf, size_t len)
{
	while (len) {
		ssize_t n = write(fd, buf, len);

		if (n < 0) {
			if (errno == EINTR)
				continue;
			return -errno;
		}
		buf += n;
		len -= n;
	}
	return 0;
}

/* Makes the rename itself durable, not just the file content. */
static int fsync_dir(const char *dir)
{
	int fd, ret = 0;

	fd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	if (fsync(fd))
		ret = -errno;
	close(fd);
	return ret;
}

const char *nm_prom_text(struct nm_prom *p, size_t *len)
{
	if (!prom_join(p))
		return NULL;
	*len = p->len;
	return p->text;
}

int nm_prom_write_atomic(struct nm_prom *p, const char *path, char *err,
			 size_t errlen)
{
	char dir[PATH_MAX], tmp[PATH_MAX];
	const char *base;
	int fd, ret;

	if (!prom_join(p)) {
		nm_set_err(err, errlen, 0, "out of memory building %s", path);
		return -ENOMEM;
	}
	ret = check_target(path, dir, sizeof(dir), &base, err, errlen);
	if (ret)
		return ret;
	fd = create_temp(dir, base, tmp, sizeof(tmp), err, errlen);
	if (fd < 0)
		return fd;

	ret = write_all(fd, p->text, p->len);
	if (ret) {
		nm_set_err(err, errlen, 0, "cannot write %s: %s", tmp, strerror(-ret));
		goto fail_close;
	}
	if (fsync(fd)) {
		ret = -errno;
		nm_set_err(err, errlen, 0, "cannot fsync %s: %s", tmp, strerror(-ret));
		goto fail_close;
	}
	/* close() can report deferred write errors (e.g. NFS quota). */
	if (close(fd)) {
		ret = -errno;
		nm_set_err(err, errlen, 0, "cannot close %s: %s", tmp, strerror(-ret));
		goto fail_unlink;
	}
	if (rename(tmp, path)) {
		ret = -errno;
		nm_set_err(err, errlen, 0, "cannot rename %s to %s: %s", tmp, path,
			strerror(-ret));
		goto fail_unlink;
	}
	ret = fsync_dir(dir);
	if (ret)
		nm_set_err(err, errlen, 0, "cannot fsync directory %s: %s", dir,
			strerror(-ret));
	return ret;

fail_close:
	close(fd);
fail_unlink:
	unlink(tmp);
	return ret;
}

int nm_prom_check_path(const char *path, char *err, size_t errlen)
{
	char dir[PATH_MAX], tmp[PATH_MAX];
	const char *base;
	int fd, ret;

	ret = check_target(path, dir, sizeof(dir), &base, err, errlen);
	if (ret)
		return ret;
	fd = create_temp(dir, base, tmp, sizeof(tmp), err, errlen);
	if (fd < 0)
		return fd;
	close(fd);
	unlink(tmp);
	return 0;
}

/* ------------------------------------------------------------- Addresses */

const char *nm_fmt_addr(int family, const void *addr, char *buf, size_t len)
{
	if (!buf || !len)
		return "";
	if ((family != AF_INET && family != AF_INET6) ||
	    !inet_ntop(family, addr, buf, len))
		snprintf(buf, len, "?");
	return buf;
}

const char *nm_fmt_count(uint64_t v, char *buf, size_t len)
{
	static const char unit[] = "kMGTPE";
	double d = v;
	int u = -1;

	if (v < 100000) {
		snprintf(buf, len, "%llu", (unsigned long long)v);
		return buf;
	}
	while (d >= 1000 && u < 5) {
		d /= 1000;
		u++;
	}
	snprintf(buf, len, d < 10 ? "%.1f%c" : "%.0f%c", d, unit[u]);
	return buf;
}
