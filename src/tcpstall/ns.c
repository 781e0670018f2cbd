// SPDX-License-Identifier: GPL-2.0
/* The full sweep's way into each netns in scope (tcpstall_ns.h). */
#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/stat.h>
#include <bpf/bpf.h>
#include <bpf/libbpf.h>
#include <libmnl/libmnl.h>
#include <linux/netlink.h>
#include "tcpstall/judge.h"
#include "lib/netns.h"
#include "lib/rtnl.h"
#include "lib/skel.h"
#include "tcpstall/hooks.h"
#include "tcpstall/ns.h"
#include "tcpstall/report.h"

/* A netns file at path, checked to be netns ino (a /proc/PID path may be another's by now). */
static int open_ns(const char *path, unsigned long ino, char *err, size_t len)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	struct stat st;

	if (fd < 0) {
		snprintf(err, len, "%s: %s", path, strerror(errno));
		return -errno;
	}
	if (fstat(fd, &st) || st.st_ino != ino) {
		snprintf(err, len, "%s: no longer netns %lu", path, ino);
		close(fd);
		return -ESTALE;
	}
	return fd;
}

static int way_open(struct ts_nsset *s, struct ts_ns *ns, const char *path, char *err, size_t len)
{
	char fdpath[32];
	int fd;

	if (ns->self) {
		if (!s->diag)
			return 0;
		ns->diag = nm_nl_open_in(NETLINK_SOCK_DIAG, NULL, 0, 0, err, len);
		return ns->diag ? 0 : -errno;
	}
	fd = open_ns(path, ns->ino, err, len);
	if (fd < 0)
		return fd;
	if (!s->diag) {
		ns->fd = fd;
		return 0;
	}
	/* the socket holds the netns: its file is not kept */
	snprintf(fdpath, sizeof(fdpath), "/proc/self/fd/%d", fd);
	ns->diag = nm_nl_open_in(NETLINK_SOCK_DIAG, fdpath, 0, 0, err, len);
	close(fd);
	return ns->diag ? 0 : -errno;
}

static void way_close(struct ts_nsset *s, struct ts_ns *ns)
{
	(void)s;
	if (ns->fd >= 0)
		close(ns->fd);
	if (ns->diag)
		mnl_socket_close(ns->diag);
}

static const struct ts_ns_ops lib_ops = { .open = way_open, .close = way_close };

int ts_nsset_init(struct ts_nsset *s, bool diag, bool setns, size_t max_ns, size_t max_fds,
		  const struct ts_ns_ops *ops)
{
	memset(s, 0, sizeof(*s));
	s->diag = diag;
	s->setns = setns;
	s->max_ns = max_ns ? max_ns : TS_NS_MAX;
	s->max_fds = max_fds ? max_fds : TS_NS_FDS_MAX;
	s->ops = ops ? ops : &lib_ops;
	s->trips = !ops && !diag && setns;
	s->ns = calloc(s->max_ns, sizeof(*s->ns));
	s->gone = calloc(s->max_ns, sizeof(*s->gone));
	if (!s->ns || !s->gone) {
		ts_nsset_free(s);
		return -ENOMEM;
	}
	return 0;
}

/* Whether ns has its way in: a socket, or a netns file (ours needs none for iterators). */
static bool has_way(const struct ts_nsset *s, const struct ts_ns *ns)
{
	if (ns->self)
		return !s->diag || ns->diag;
	return ns->fd >= 0 || ns->diag;
}

static void close_way(struct ts_nsset *s, struct ts_ns *ns)
{
	if (!has_way(s, ns))
		return;
	s->ops->close(s, ns);
	if (!ns->self)
		s->fds--;
	ns->fd = -1;
	ns->diag = NULL;
}

void ts_nsset_free(struct ts_nsset *s)
{
	for (size_t i = 0; s->ns && i < s->n; i++)
		close_way(s, &s->ns[i]);
	free(s->ns);
	free(s->gone);
	s->ns = NULL;
	s->gone = NULL;
	s->n = s->ngone = 0;
}

/* Index of the first namespace with an inode >= ino. */
static size_t lower_bound(const struct ts_nsset *s, unsigned long ino)
{
	size_t lo = 0, hi = s->n;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (s->ns[mid].ino < ino)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

struct ts_ns *ts_nsset_find(struct ts_nsset *s, unsigned long ino)
{
	size_t i = lower_bound(s, ino);

	return i < s->n && s->ns[i].ino == ino ? &s->ns[i] : NULL;
}

/* ino followed from now on, its way in not opened yet; NULL when the set is full. */
static struct ts_ns *follow(struct ts_nsset *s, unsigned long ino, bool self)
{
	size_t i = lower_bound(s, ino);

	if (s->n >= s->max_ns)
		return NULL;
	memmove(&s->ns[i + 1], &s->ns[i], (s->n - i) * sizeof(*s->ns));
	s->n++;
	s->ns[i] = (struct ts_ns){ .ino = ino, .self = self, .fd = -1 };
	return &s->ns[i];
}

/* The way into ns, where it has none and may have one. */
static void open_way(struct ts_nsset *s, struct ts_ns *ns, const char *path)
{
	char err[256];

	if (has_way(s, ns))
		return;
	if (!ns->self && !s->setns) {
		s->unentered++;
		return;
	}
	if (!ns->self && s->fds >= s->max_fds) {
		s->over++;
		return;
	}
	if (s->ops->open(s, ns, path, err, sizeof(err)))
		s->failed++;
	else if (!ns->self)
		s->fds++;
}

void ts_nsset_sync(struct ts_nsset *s, const struct nm_scope *sc)
{
	struct nm_scope_ns e;
	size_t pos = 0, kept = 0;

	s->gen++;
	s->listed = s->over = s->failed = s->unentered = 0;
	s->ngone = 0;
	while (nm_scope_next(sc, &pos, &e)) {
		struct ts_ns *ns;

		/*
		 * A --netns the host no longer has (only our fd would hold
		 * it) is gone too; ours is always there.
		 */
		if (e.path && !nm_nsreg_find(&sc->reg, e.ino))
			continue;
		s->listed++;
		ns = ts_nsset_find(s, e.ino);
		if (!ns)
			ns = follow(s, e.ino, !e.path);
		if (!ns) {
			s->over++;
			continue;
		}
		ns->seen = s->gen;
		open_way(s, ns, e.path);
	}
	for (size_t i = 0; i < s->n; i++) {
		struct ts_ns *ns = &s->ns[i];

		if (ns->seen == s->gen) {
			s->ns[kept++] = *ns;
			continue;
		}
		s->gone[s->ngone++] = ns->ino;
		if (has_way(s, ns) && !ns->self)
			s->closed++;
		close_way(s, ns);
	}
	s->n = kept;
}

size_t ts_nsset_ways(const struct ts_nsset *s)
{
	size_t n = 0;

	for (size_t i = 0; i < s->n; i++)
		n += has_way(s, &s->ns[i]);
	return n;
}

bool ts_tag_fresh(bool marked, uint32_t mark, uint32_t epoch)
{
	return marked && mark + TS_TAG_EPOCHS_KEPT >= epoch;
}

uint32_t ts_tag_epoch(uint64_t sweep)
{
	return sweep / TS_TAG_EPOCH_SWEEPS + 1;
}

bool ts_ns_tagged(unsigned long ino, void *arg)
{
	const struct ts_tags *t = arg;
	__u64 key = ino;
	__u32 mark;
	bool marked = !bpf_map_lookup_elem(t->ns_tagged_fd, &key, &mark);

	return ts_tag_fresh(marked, mark, *t->epoch);
}

/* Whether the sweep walks ns: every one, without a want. */
static bool wanted(const struct ts_nsset_want *w, const struct ts_ns *ns)
{
	return !w || w->want(ns->ino, w->arg);
}

/* Our own netns's iterator, created and read here. */
static int iter_self(struct ts_nsset *s, int link_fd, const struct ts_nsset_want *w,
		     int (*read)(int fd, unsigned long ino, void *arg), void *arg)
{
	for (size_t i = 0; i < s->n; i++) {
		int fd, ret;

		if (!s->ns[i].self)
			continue;
		if (!wanted(w, &s->ns[i]))
			return 0;
		fd = bpf_iter_create(link_fd);
		if (fd < 0)
			return -errno;
		ret = read(fd, s->ns[i].ino, arg);
		close(fd);
		return ret;
	}
	return 0;
}

/* One trip: where it starts (*i), and what it made. */
struct trip {
	struct ts_nsset *s;
	size_t *i;
	int link_fd;
	const struct ts_nsset_want *w;
	int *fds;
	unsigned long *inos;
};

/*
 * From *i on, up to TS_NS_BATCH other namespaces entered in turn, an
 * iterator created in each (fds, inos): their number. On a visiting
 * thread (nm_netns_visit), which ends in the last one.
 */
static int trip_run(void *p)
{
	struct trip *t = p;
	struct ts_nsset *s = t->s;
	int n = 0;

	for (; *t->i < s->n && n < TS_NS_BATCH; (*t->i)++) {
		struct ts_ns *ns = &s->ns[*t->i];
		int fd;

		if (ns->self || ns->fd < 0 || !wanted(t->w, ns))
			continue;
		if (setns(ns->fd, CLONE_NEWNET)) {
			s->sweep_failed++;
			continue;
		}
		fd = bpf_iter_create(t->link_fd);
		if (fd < 0) {
			s->sweep_failed++;
			continue;
		}
		t->fds[n] = fd;
		t->inos[n++] = ns->ino;
	}
	return n;
}

/* trip_run from this thread's point of view: the number made, or -errno (no thread). */
static int iter_trip(struct ts_nsset *s, size_t *i, int link_fd, const struct ts_nsset_want *w,
		     int *fds, unsigned long *inos)
{
	struct trip t = { .s = s, .i = i, .link_fd = link_fd, .w = w, .fds = fds, .inos = inos };

	return nm_netns_visit(trip_run, &t);
}

int ts_nsset_iter(struct ts_nsset *s, int link_fd,
		  int (*read)(int fd, unsigned long ino, void *arg), void *arg)
{
	return ts_nsset_iter_some(s, link_fd, NULL, read, arg);
}

int ts_nsset_iter_some(struct ts_nsset *s, int link_fd, const struct ts_nsset_want *w,
		       int (*read)(int fd, unsigned long ino, void *arg), void *arg)
{
	int fds[TS_NS_BATCH], ret = iter_self(s, link_fd, w, read, arg);
	unsigned long inos[TS_NS_BATCH];
	size_t i = 0;

	if (ret || !s->trips)
		return ret;
	while (i < s->n) {
		int n = iter_trip(s, &i, link_fd, w, fds, inos);

		if (n < 0)
			return n;
		/* read here: the walk's netns was fixed at the iterator's creation */
		for (int k = 0; k < n; k++) {
			if (read(fds[k], inos[k], arg))
				s->sweep_failed++;
			close(fds[k]);
		}
	}
	return 0;
}

int ts_nsset_diag(struct ts_nsset *s, uint16_t port, ts_diag_cb cb, void *arg, char *err,
		  size_t len)
{
	for (size_t i = 0; i < s->n; i++) {
		struct ts_ns *ns = &s->ns[i];
		int ret;

		/* ours must be swept: a socket that could not be made is an error now */
		if (ns->self && !ns->diag && (ret = s->ops->open(s, ns, NULL, err, len)))
			return ret;
		if (!ns->diag)
			continue;
		ret = ts_diag_sweep(ns->diag, port, ns->ino, cb, arg, err, len);
		if (!ret)
			continue;
		if (ns->self)
			return ret;
		/* going, most likely: quietly, and a new socket at the next sync */
		s->sweep_failed++;
		close_way(s, ns);
	}
	return 0;
}

/* ---- the scope: names, and the namespaces that come and go ---- */

const char *ts_ns_name(void *scope, unsigned long ino, char *buf, size_t len)
{
	return nm_scope_ns_name(scope, ino, buf, len);
}

void ts_ns_where(void *scope, unsigned long ino, char *name, size_t nlen, char *opt, size_t olen)
{
	struct nm_scope *sc = scope;
	const struct nm_ns *ns = nm_nsreg_find(&sc->reg, ino);

	nm_scope_ns_name(sc, ino, name, nlen);
	if (!opt)
		return;
	if (ns && ns->named)
		snprintf(opt, olen, "%s", ns->name);
	else if (ns && (ns->live_pid || ns->pid))
		snprintf(opt, olen, "%d", ns->live_pid ? ns->live_pid : ns->pid);
	else
		opt[0] = '\0';
}

bool ts_ns_went(unsigned long ino, void *scope)
{
	return nm_scope_went(scope, ino, 0);
}

/* tcpstall names no device: without CAP_SYS_ADMIN it loses the full sweeps instead */
const char *ts_ns_lost(const struct nm_scope *sc, char *buf, size_t len)
{
	return nm_scope_lost_as(sc, "full sweeps of other namespaces (no CAP_SYS_ADMIN: their sockets "
				"only once a send tags them)", buf, len);
}

/* ---- the sweeps' iterators ---- */

const struct ts_iter *ts_iters_fast(const struct ts_iters *it, const struct nm_hook *hooks)
{
	if (nm_hook_can(&hooks[TS_HOOK_FAST], TS_CAN_TAG_MAP))
		return &it->tags;
	return nm_hook_can(&hooks[TS_HOOK_FAST], TS_CAN_TAG_SWEEP) ? &it->fast : NULL;
}

size_t ts_iters_runs(const struct ts_iters *it, const struct nm_hook *hooks, struct ts_iter *out)
{
	const struct ts_iter *fast = ts_iters_fast(it, hooks);
	size_t n = 0;

	if (nm_hook_can(&hooks[TS_HOOK_SWEEP], TS_CAN_ITER))
		out[n++] = it->full;
	if (fast && fast->link)
		out[n++] = *fast;
	if (ts_hooks_kick_iter(hooks))
		out[n++] = it->kick;
	return n;
}

int ts_iters_check(const struct ts_iters *it, const struct nm_hook *hooks,
		   struct bpf_program **failed, const char **stage)
{
	struct ts_iter run[TS_ITERS_RUNS];
	size_t n = ts_iters_runs(it, hooks, run);

	*stage = "run";
	for (size_t i = 0; i < n; i++) {
		int err = nm_iter_read(run[i].link);

		if (err) {
			*failed = run[i].prog;
			return err;
		}
	}
	return 0;
}

int ts_iters_attach(struct ts_iters *it, struct nm_hook *hooks, int map_fd,
		    struct bpf_program **failed, const char **stage)
{
	LIBBPF_OPTS(bpf_iter_attach_opts, opts);
	union bpf_iter_link_info li = {};
	int err;

	if (!ts_hooks_can_tag(hooks)) {
		ts_hooks_fast_aside(hooks);
		bpf_link__destroy(it->fast.link);
		it->fast.link = NULL;
	}
	if (!nm_hook_can(&hooks[TS_HOOK_FAST], TS_CAN_TAG_MAP))
		return ts_iters_check(it, hooks, failed, stage);
	li.map.map_fd = map_fd;
	opts.link_info = &li;
	opts.link_info_len = sizeof(li);
	it->tags.link = bpf_program__attach_iter(it->tags.prog, &opts);
	if (!it->tags.link) {
		*failed = it->tags.prog;
		*stage = "attach";
		return -errno;
	}
	err = ts_iters_check(it, hooks, failed, stage);
	if (err) {
		bpf_link__destroy(it->tags.link);
		it->tags.link = NULL;
	}
	return err;
}

enum ts_walk ts_walk_of(bool full, bool fast, bool tags, bool diag)
{
	if (!full && fast)
		return tags ? TS_WALK_TAGS : TS_WALK_FAST;
	return diag ? TS_WALK_DIAG : TS_WALK_FULL;
}

struct samples {
	ts_diag_cb cb;
	void *arg;
};

/* An iterator's samples, whichever netns it walks (ino). */
static int read_samples(int fd, unsigned long ino, void *arg)
{
	static struct ts_sample buf[256];
	const struct samples *c = arg;
	ssize_t n;

	(void)ino;
	while ((n = read(fd, buf, sizeof(buf))) > 0)
		for (size_t i = 0; i < (size_t)n / sizeof(buf[0]); i++)
			c->cb(&buf[i], c->arg);
	return n < 0 ? -errno : 0;
}

/* The socket storage map's iterator: the tagged sockets of every netns at once. */
static int sweep_tags(struct bpf_link *l, struct samples *c)
{
	int fd = bpf_iter_create(bpf_link__fd(l)), ret;

	if (fd < 0)
		return -errno;
	ret = read_samples(fd, 0, c);
	close(fd);
	return ret;
}

int ts_nsset_sweep(struct ts_nsset *s, enum ts_walk w, struct bpf_link *link,
		   const struct ts_nsset_want *want, uint16_t port, ts_diag_cb cb, void *arg,
		   char *err, size_t len)
{
	struct samples c = { .cb = cb, .arg = arg };

	switch (w) {
	case TS_WALK_TAGS:
		return sweep_tags(link, &c);
	case TS_WALK_DIAG:
		return ts_nsset_diag(s, port, cb, arg, err, len);
	case TS_WALK_FAST:
		/* iter/tcp walks the netns it was made in: one iterator each, where sockets are tagged */
		return ts_nsset_iter_some(s, bpf_link__fd(link), want, read_samples, &c);
	default:
		return ts_nsset_iter(s, bpf_link__fd(link), read_samples, &c);
	}
}

/* ---- the sweep loop's clock ---- */

void ts_sched_init(struct ts_sched *k, unsigned int sweep_ms, bool fast, double interval, long count)
{
	*k = (struct ts_sched){ .sweep_ns = sweep_ms * 1000000ULL, .fast = fast };
	nm_ticker_init(&k->reports, interval, count, true);
}

void ts_sched_start(struct ts_sched *k, uint64_t now)
{
	k->report_at = nm_ticker_next(&k->reports, now);
}

bool ts_sched_sweep_due(const struct ts_sched *k, uint64_t now)
{
	return now >= k->sweep_at;
}

bool ts_sched_full(const struct ts_sched *k, uint64_t now)
{
	return !k->fast || now >= k->full_at;
}

void ts_sched_swept(struct ts_sched *k, bool full, uint64_t t0, uint64_t cpu_ns, uint64_t now)
{
	if (full && k->fast)
		k->full_at = t0 + ts_sweep_wait_ns(TS_FULL_SWEEP_MS * 1000000ULL, cpu_ns, false);
	/*
	 * Beside fast sweeps a full one's cost is budgeted by full_at: the
	 * fast ones that follow it need not wait for it, on either rung (the
	 * map walks the tags alone, iter/tcp the namespaces with tags). At
	 * 200 namespaces a full sweep's wait put every sweep off by 10 s.
	 */
	k->wait_ns = ts_sweep_wait_ns(k->sweep_ns, cpu_ns, full && k->fast);
	k->sweep_at = now + k->wait_ns;
}

bool ts_sched_report_due(const struct ts_sched *k, uint64_t now)
{
	return now >= k->report_at;
}

bool ts_sched_reported(struct ts_sched *k, uint64_t now)
{
	if (!nm_ticker_more(&k->reports, false))
		return false;
	k->report_at = nm_ticker_next(&k->reports, now);
	return true;
}

uint64_t ts_sched_wake(const struct ts_sched *k)
{
	return k->sweep_at < k->report_at ? k->sweep_at : k->report_at;
}

uint64_t ts_thread_cpu_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
	return ts.tv_sec * 1000000000ULL + ts.tv_nsec;
}

uint64_t ts_sched_full_ms(const struct ts_sched *k)
{
	return k->fast ? TS_FULL_SWEEP_MS : k->sweep_ns / 1000000ULL;
}
