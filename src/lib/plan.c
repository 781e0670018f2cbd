// SPDX-License-Identifier: GPL-2.0
/*
 * Plans and their executor. What a remedy changes is decided elsewhere,
 * by pure functions; here it is only journaled, made and logged, so that
 * every remedy written as a plan gets the same write-ahead undo and the
 * same lines.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <sched.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <bpf/libbpf.h>
#include "lib/cli.h"
#include "lib/grow.h"
#include "lib/plan.h"
#include "lib/tcundo.h"

int nm_sysctl_path(const char *root, const char *name, char *buf, size_t len)
{
	size_t n, at;

	if (!root)
		root = NM_SYSCTL_ROOT;
	n = snprintf(buf, len, "%s", root);
	if (n >= len)
		return -ENAMETOOLONG;
	if (!name || !*name)
		return -EINVAL;
	while (*name) {
		size_t c = strcspn(name, ".");

		if (!c)
			return -EINVAL;		/* "net..x", ".net", "net." */
		if (n + 1 + c >= len)
			return -ENAMETOOLONG;
		buf[n++] = '/';
		at = n;
		for (size_t i = 0; i < c; i++)
			buf[n++] = name[i] == '/' ? '.' : name[i];
		buf[n] = 0;
		if (!strcmp(buf + at, ".") || !strcmp(buf + at, ".."))
			return -EINVAL;
		name += c;
		if (*name == '.' && !*++name)
			return -EINVAL;
	}
	return 0;
}

static bool same(const struct nm_action *a, const struct nm_action *b)
{
	return a->kind == b->kind && (a->flags & NM_ACT_INIT_NS) == (b->flags & NM_ACT_INIT_NS) &&
	       !strcmp(a->target, b->target) && !strcmp(a->undo, b->undo) &&
	       (a->kind != NM_ACT_NOTE || !strcmp(a->what, b->what));
}

int nm_plan_add(struct nm_plan *p, const struct nm_action *a)
{
	for (size_t i = 0; i < p->n; i++)
		if (same(&p->a[i], a))
			return 1;
	if (nm_grow(&p->a, &p->cap, p->n, sizeof(*p->a), 8))
		return -ENOMEM;
	p->a[p->n++] = *a;
	return 0;
}

/* snprintf that says when it cut */
static int put(char *buf, size_t len, const char *s)
{
	return snprintf(buf, len, "%s", s ? s : "") >= (int)len ? -ENAMETOOLONG : 0;
}

int nm_plan_sysctl(struct nm_plan *p, unsigned int remedy, unsigned int flags, const char *tag,
		   const char *name, const char *val, unsigned long netns)
{
	struct nm_action a = { .kind = NM_ACT_SYSCTL, .flags = flags, .remedy = remedy, .tag = tag,
			       .netns = netns };
	char path[512];
	int err = nm_sysctl_path(NULL, name, path, sizeof(path));

	if (err || (err = put(a.target, sizeof(a.target), name)) || (err = put(a.val, sizeof(a.val), val)))
		return err;
	return nm_plan_add(p, &a);
}

int nm_plan_file(struct nm_plan *p, unsigned int remedy, const char *tag, const char *path,
		 const char *what, const char *val)
{
	struct nm_action a = { .kind = NM_ACT_FILE, .remedy = remedy, .tag = tag };
	int err;

	if ((err = put(a.target, sizeof(a.target), path)) || (err = put(a.what, sizeof(a.what), what)) ||
	    (err = put(a.val, sizeof(a.val), val)))
		return err;
	return nm_plan_add(p, &a);
}

static int join(char *buf, size_t len, const char *const *argv)
{
	size_t n = 0;

	if (!argv || !argv[0])
		return -EINVAL;
	buf[0] = 0;
	for (int i = 0; argv[i]; i++) {
		if (strchr(argv[i], '\t'))
			return -EINVAL;
		n += snprintf(buf + n, n < len ? len - n : 0, "%s%s", i ? "\t" : "", argv[i]);
		if (n >= len)
			return -ENAMETOOLONG;
	}
	return 0;
}

int nm_plan_cmd(struct nm_plan *p, unsigned int remedy, const char *tag, const char *const *do_argv,
		const char *const *undo_argv, const char *what, const char *val)
{
	struct nm_action a = { .kind = NM_ACT_CMD, .remedy = remedy, .tag = tag };
	int err;

	if ((err = join(a.target, sizeof(a.target), do_argv)) ||
	    (err = join(a.undo, sizeof(a.undo), undo_argv)) || (err = put(a.what, sizeof(a.what), what)) ||
	    (err = put(a.val, sizeof(a.val), val)))
		return err;
	return nm_plan_add(p, &a);
}

int nm_plan_note(struct nm_plan *p, unsigned int remedy, const char *tag, const char *fmt, ...)
{
	struct nm_action a = { .kind = NM_ACT_NOTE, .remedy = remedy, .tag = tag };
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vsnprintf(a.what, sizeof(a.what), fmt, ap);
	va_end(ap);
	if (n < 0 || n >= (int)sizeof(a.what))
		return -ENAMETOOLONG;
	return nm_plan_add(p, &a);
}

int nm_plan_call(struct nm_plan *p, unsigned int remedy, const char *tag, const char *const *words,
		 const char *const *undo_argv, const char *val, const void *data, size_t len)
{
	struct nm_action a = { .kind = NM_ACT_CALL, .remedy = remedy, .tag = tag };
	int err;

	if (len > sizeof(a.data))
		return -E2BIG;
	if (len)
		memcpy(a.data, data, len);
	if ((err = join(a.target, sizeof(a.target), words)) ||
	    (undo_argv && (err = join(a.undo, sizeof(a.undo), undo_argv))) ||
	    (err = put(a.val, sizeof(a.val), val)))
		return err;
	return nm_plan_add(p, &a);
}

int nm_plan_tc_bpf(struct nm_plan *p, unsigned int remedy, const char *tag, const char *dev,
		   unsigned int ifindex, bool ingress, unsigned int pref, unsigned int handle, int prog_fd)
{
	const char *dir = ingress ? "ingress" : "egress";
	char ifs[16], prefs[16], handles[16];
	const char *clsact[] = { "clsact", dev, ifs, NULL };
	const char *filter[] = { "filter", dev, ifs, dir, prefs, handles, NULL };
	/* their undo records (lib/tcundo.h): the kind, then the fields */
	const char *del_qdisc[] = { NM_TC_CLSACT_KIND, dev, ifs, NULL };
	const char *del_filter[] = { NM_TC_FILTER_KIND, dev, ifs, dir, prefs, handles, NULL };
	struct nm_action a = { .kind = NM_ACT_TC_CLSACT, .flags = NM_ACT_REQUIRED, .remedy = remedy,
			       .tag = tag, .tc = { .ifindex = ifindex, .ingress = ingress, .pref = pref,
						   .handle = handle, .prog_fd = -1 } };
	int ret;

	if (prog_fd < 0)
		return -EBADF;
	if (snprintf(a.tc.dev, sizeof(a.tc.dev), "%s", dev) >= (int)sizeof(a.tc.dev))
		return -ENAMETOOLONG;
	snprintf(ifs, sizeof(ifs), "%u", ifindex);
	snprintf(prefs, sizeof(prefs), "%u", pref);
	snprintf(handles, sizeof(handles), "0x%x", handle);
	if ((ret = join(a.target, sizeof(a.target), clsact)) ||
	    (ret = join(a.undo, sizeof(a.undo), del_qdisc)))
		return ret;
	ret = nm_plan_add(p, &a);
	if (ret < 0)
		return ret;
	a.kind = NM_ACT_TC_FILTER;
	if ((ret = join(a.target, sizeof(a.target), filter)) ||
	    (ret = join(a.undo, sizeof(a.undo), del_filter)))
		return ret;
	a.tc.prog_fd = prog_fd;
	return nm_plan_add(p, &a);
}

/* "0x5f", as nm_plan_tc_bpf writes a handle. 0, or -EINVAL. */
static int hex_of(const char *s, unsigned int *v)
{
	unsigned long n;
	char *end;

	if (strncmp(s, "0x", 2) || !s[2])
		return -EINVAL;
	errno = 0;
	n = strtoul(s + 2, &end, 16);
	if (errno || *end || n > UINT_MAX)
		return -EINVAL;
	*v = n;
	return 0;
}

int nm_tc_target(const struct nm_action *a, struct nm_tc_target *t)
{
	char words[sizeof(a->target)];
	const char *w[8];
	int n;

	memset(t, 0, sizeof(*t));
	t->prog_fd = -1;
	snprintf(words, sizeof(words), "%s", a->target);
	n = nm_plan_argv(words, w, 8);
	if (a->kind == NM_ACT_TC_CLSACT) {
		if (n != 3 || strcmp(w[0], "clsact"))
			return -EINVAL;
	} else if (a->kind == NM_ACT_TC_FILTER) {
		if (n != 6 || strcmp(w[0], "filter") || (strcmp(w[3], "egress") && strcmp(w[3], "ingress")) ||
		    nm_parse_uint(w[4], &t->pref) || hex_of(w[5], &t->handle))
			return -EINVAL;
		t->ingress = !strcmp(w[3], "ingress");
	} else {
		return -EINVAL;
	}
	if (snprintf(t->dev, sizeof(t->dev), "%s", w[1]) >= (int)sizeof(t->dev) ||
	    nm_parse_uint(w[2], &t->ifindex) || !t->ifindex)
		return -EINVAL;
	return 0;
}

int nm_plan_record(struct nm_plan *p, unsigned int remedy, const char *tag, const char *kind,
		   const char *const *fields, const char *what, const void *data, size_t len)
{
	struct nm_action a = { .kind = NM_ACT_RECORD, .remedy = remedy, .tag = tag };
	int err;

	if (len > sizeof(a.data))
		return -ENAMETOOLONG;
	if ((err = join(a.target, sizeof(a.target), fields)) || (err = put(a.undo, sizeof(a.undo), kind)) ||
	    (err = put(a.what, sizeof(a.what), what)))
		return err;
	if (len)
		memcpy(a.data, data, len);
	return nm_plan_add(p, &a);
}

int nm_plan_line(struct nm_plan *p, const char *fmt, ...)
{
	struct nm_action *a;
	va_list ap;
	int n;

	if (!p->n)
		return -EINVAL;
	a = &p->a[p->n - 1];
	va_start(ap, fmt);
	n = vsnprintf(a->line, sizeof(a->line), fmt, ap);
	va_end(ap);
	if (n < 0 || n >= (int)sizeof(a->line)) {
		a->line[0] = 0;
		return -ENAMETOOLONG;
	}
	return 0;
}

void nm_plan_truncate(struct nm_plan *p, size_t n)
{
	if (n < p->n)
		p->n = n;
}

void nm_plan_free(struct nm_plan *p)
{
	free(p->a);
	*p = (struct nm_plan){};
}

int nm_action_line(const struct nm_action *a, char *buf, size_t len)
{
	char ns[40] = "";
	int n;

	if (*a->line) {
		n = snprintf(buf, len, "%s", a->line);
	} else if (a->kind == NM_ACT_NOTE) {
		n = snprintf(buf, len, "%s%s%s", a->tag ? a->tag : "", a->tag ? ": " : "", a->what);
	} else if (a->flags & NM_ACT_BARE) {
		n = snprintf(buf, len, "%s%s%s -> %s", *a->what ? a->what : a->target, *a->old ? " " : "",
			     a->old, a->val);
	} else {
		if (a->netns)
			snprintf(ns, sizeof(ns), " in netns %lu", a->netns);
		n = snprintf(buf, len, "fix: %s%s%s -> %s%s (%srestored at exit)",
			     *a->what ? a->what : a->target, *a->old ? " " : "", a->old, a->val, ns,
			     a->flags & NM_ACT_INIT_NS ? "global; " : "");
	}
	return n < 0 || n >= (int)len ? -ENAMETOOLONG : 0;
}

int nm_plan_argv(char *words, const char **argv, int max)
{
	int n = 0;
	char *save, *w;

	for (w = strtok_r(words, "\t", &save); w && n < max - 1; w = strtok_r(NULL, "\t", &save))
		argv[n++] = w;
	argv[n] = NULL;
	return n;
}

static void say(const struct nm_exec *x, bool error, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

/* As nm_info and nm_err: "TOOL: [error: ]LINE" */
static void say(const struct nm_exec *x, bool error, const char *fmt, ...)
{
	va_list ap;

	fprintf(x->log, "%s: %s", x->tool, error ? "error: " : "");
	va_start(ap, fmt);
	vfprintf(x->log, fmt, ap);
	va_end(ap);
	fputc('\n', x->log);
	fflush(x->log);
}

#define NM_PLAN_WORDS	64

/* One change, in the journal j of the netns we are in. */
static int make(struct nm_exec *x, struct nm_journal *j, struct nm_action *a, char *err, size_t len)
{
	char path[640], words[640], undo[640];
	const char *do_argv[NM_PLAN_WORDS], *undo_argv[NM_PLAN_WORDS];
	int ret;

	switch (a->kind) {
	case NM_ACT_SYSCTL:
		ret = nm_sysctl_path(x->sysctl_root, a->target, path, sizeof(path));
		if (ret) {
			snprintf(err, len, "%s: not a sysctl name", a->target);
			return ret;
		}
		return nm_journal_set_file(j, path, a->val, a->old, sizeof(a->old), err, len);
	case NM_ACT_FILE:
		return nm_journal_set_file(j, a->target, a->val, a->old, sizeof(a->old), err, len);
	case NM_ACT_CMD:
		snprintf(words, sizeof(words), "%s", a->target);
		snprintf(undo, sizeof(undo), "%s", a->undo);
		nm_plan_argv(words, do_argv, NM_PLAN_WORDS);
		nm_plan_argv(undo, undo_argv, NM_PLAN_WORDS);
		return nm_journal_run(j, do_argv, undo_argv, err, len);
	default:
		snprintf(err, len, "unknown action kind %d", a->kind);
		return -EINVAL;
	}
}

/*
 * A change to the initial netns (rps_sock_flow_entries lives there only):
 * made from there, through a journal of its own, and back.
 */
static int make_global(struct nm_exec *x, struct nm_action *a)
{
	char err[256];
	int here = open("/proc/self/ns/net", O_RDONLY | O_CLOEXEC), ret;

	if (here < 0 || x->home_fd < 0 || setns(x->home_fd, CLONE_NEWNET)) {
		ret = -errno;
		say(x, true, "%s: cannot enter the initial netns: %s", a->tag, strerror(errno));
		goto out;
	}
	ret = x->global ? 0 : nm_journal_open(&x->global, x->tool, x->global_key, NULL, err, sizeof(err));
	if (!ret)
		ret = make(x, x->global, a, err, sizeof(err));
	if (ret)
		say(x, true, "%s: %s", a->tag, err);
	if (setns(here, CLONE_NEWNET)) {
		ret = -errno;
		say(x, true, "%s: cannot return to the netns: %s", a->tag, strerror(errno));
	}
out:
	if (here >= 0)
		close(here);
	return ret;
}

int nm_exec_tc(struct nm_exec *x, struct nm_action *a, char *err, size_t len)
{
	const struct nm_tc_target t = a->tc;
	int ret;

	(void)x;
	if (!t.ifindex) {
		snprintf(err, len, "not a tc action: %s", a->target);
		return -EINVAL;
	}
	LIBBPF_OPTS(bpf_tc_hook, hook, .ifindex = t.ifindex,
		    .attach_point = t.ingress ? BPF_TC_INGRESS : BPF_TC_EGRESS);
	LIBBPF_OPTS(bpf_tc_opts, tco, .handle = t.handle, .priority = t.pref, .prog_fd = t.prog_fd);
	if (a->kind == NM_ACT_TC_FILTER) {
		ret = bpf_tc_attach(&hook, &tco);
		if (ret)
			snprintf(err, len, "tc %s filter: %s", t.ingress ? "ingress" : "egress", strerror(-ret));
		return ret;
	}
	/* either direction's hook makes the one clsact qdisc that holds both */
	ret = bpf_tc_hook_create(&hook);
	if (ret == -EEXIST)
		return 1;
	if (ret)
		snprintf(err, len, "clsact: %s", strerror(-ret));
	return ret;
}

/* Whether a's change is made by a call (the tool's, or the executor's tc maker), not by make(). */
static bool by_call(const struct nm_action *a)
{
	return a->kind == NM_ACT_CALL || a->kind == NM_ACT_TC_CLSACT || a->kind == NM_ACT_TC_FILTER;
}

/* A call's change: its undo (when it has one) journaled first, taken back when the call fails. */
static int call(struct nm_exec *x, struct nm_journal *j, struct nm_action *a, char *err, size_t len)
{
	nm_exec_call_fn fn = a->kind == NM_ACT_CALL ? x->call : x->tc ? x->tc : nm_exec_tc;
	const char *undo_argv[NM_PLAN_WORDS];
	struct nm_journal_mark m;
	char undo[640];
	int ret;

	if (!fn) {
		snprintf(err, len, "nothing here makes that change");
		return -ENOSYS;
	}
	if (!*a->undo)
		return fn(x, a, err, len);
	snprintf(undo, sizeof(undo), "%s", a->undo);
	nm_plan_argv(undo, undo_argv, NM_PLAN_WORDS);
	nm_journal_mark(j, &m);
	/* a tc action's undo is a record (its kind first), a call's a command */
	if (a->kind == NM_ACT_CALL)
		ret = nm_journal_ahead(j, undo_argv, err, len);
	else
		ret = nm_journal_add(j, undo_argv[0], undo_argv + 1, err, len);
	if (ret)
		return ret;
	/* a test aid: a crash between the record and the change */
	nm_test_stop("ahead");
	ret = fn(x, a, err, len);
	/* a failed call changed nothing, nor one with nothing to do: no undo for them */
	if (ret && nm_journal_rewind(j, &m))
		say(x, true, "%s%scannot take back the journal record of a change not made: its undo runs at exit",
		    a->tag ? a->tag : "", a->tag ? ": " : "");
	return ret;
}

/* A note, and a call without an undo, are never journaled. */
static bool journaled(const struct nm_action *a)
{
	return a->kind != NM_ACT_NOTE && (!by_call(a) || *a->undo);
}

static int exec_here(struct nm_exec *x, struct nm_action *a, char *err, size_t len)
{
	if (!journaled(a))
		return call(x, NULL, a, err, len);
	if (!x->j && x->open) {
		int ret = x->open(x, a, err, len);

		if (ret || !x->j)
			return ret ? ret : -EBADF;
	}
	if (!x->j) {
		snprintf(err, len, "no journal open");
		return -EBADF;
	}
	return by_call(a) ? call(x, x->j, a, err, len) : make(x, x->j, a, err, len);
}

static int exec_one(struct nm_exec *x, struct nm_action *a)
{
	char line[1536], err[256] = "";
	int ret;

	if (a->kind == NM_ACT_NOTE) {
		nm_action_line(a, line, sizeof(line));
		say(x, false, "%s", line);
		return 0;
	}
	if (a->flags & NM_ACT_INIT_NS) {
		ret = make_global(x, a);
	} else {
		ret = exec_here(x, a, err, sizeof(err));
		/* a call's line says its outcome, made or not (a kick that missed) */
		if (ret < 0 && by_call(a) && *a->line)
			say(x, false, "%s", a->line);
		if (ret < 0 && *err)
			say(x, true, "%s%s%s", a->tag ? a->tag : "", a->tag ? ": " : "", err);
	}
	if (ret > 0) {
		/* a call that found nothing to make: its line, if any */
		if (*a->line)
			say(x, false, "%s", a->line);
		return 0;
	}
	if (!ret && (!by_call(a) || *a->line)) {
		nm_action_line(a, line, sizeof(line));
		say(x, false, "%s", line);
	}
	return ret;
}

/* The records of a batch, journaled in order; the first that cannot be written ends it. */
static size_t journal_batch(struct nm_exec *x, struct nm_action *a, size_t n)
{
	const char *f[NM_PLAN_WORDS];
	char words[640], err[256];
	size_t i;

	for (i = 0; i < n; i++) {
		snprintf(words, sizeof(words), "%s", a[i].target);
		nm_plan_argv(words, f, NM_PLAN_WORDS);
		if (nm_journal_add(x->j, a[i].undo, f, err, sizeof(err)))
			break;
	}
	if (i < n) {
		a[i].err = -EIO;
		say(x, true, "%s%s%s: not %s", a[i].tag ? a[i].tag : "", a[i].tag ? ": " : "", err, a[i].what);
	}
	return i;
}

/*
 * A run of NM_ACT_RECORD actions: journaled, made at once by the tool's
 * batch, their outcomes logged, and the records dropped unless the batch
 * left a change to undo. Returns how many actions it took.
 */
static size_t exec_batch(struct nm_exec *x, struct nm_action *a, size_t n)
{
	const char *tag = a->tag ? a->tag : "", *sep = a->tag ? ": " : "";
	struct nm_journal_mark m;
	char err[256] = "";
	size_t k, i;
	int keep;

	for (k = 1; k < n && a[k].kind == NM_ACT_RECORD && a[k].remedy == a->remedy; k++)
		;
	if (!x->j && x->open && x->open(x, a, err, sizeof(err))) {
		say(x, true, "%s%s%s", tag, sep, err);
		return k;
	}
	if (!x->j || !x->batch) {
		say(x, true, "%s%s%s", tag, sep, x->j ? "nothing here makes that change" : "no journal open");
		return k;
	}
	nm_journal_mark(x->j, &m);
	n = journal_batch(x, a, k);
	keep = n ? x->batch(x, a, n, err, sizeof(err)) : 0;
	if (keep < 0)
		say(x, true, "%s%s%s", tag, sep, err);
	for (i = 0; i < n; i++)
		if (*a[i].line)
			say(x, a[i].err < 0, "%s", a[i].line);
	if (!keep && nm_journal_rewind(x->j, &m))
		say(x, true, "%s%scannot drop the journal's records; they are undone at exit", tag, sep);
	return k;
}

int nm_exec_plan(struct nm_exec *x, struct nm_plan *p)
{
	int failed = 0;

	for (size_t i = 0; i < p->n; i++)
		p->a[i].err = -ECANCELED;
	for (size_t i = 0; i < p->n; i++) {
		struct nm_action *a = &p->a[i];

		if (a->kind == NM_ACT_RECORD) {
			size_t k = exec_batch(x, a, p->n - i);

			for (size_t j = i; j < i + k; j++)
				failed += !!p->a[j].err;
			i += k - 1;
			continue;
		}
		a->err = exec_one(x, a);
		failed += !!a->err;
		if (!a->err || !(a->flags & NM_ACT_REQUIRED))
			continue;
		/* the remedy's later actions need this one: left */
		while (i + 1 < p->n && p->a[i + 1].remedy == a->remedy)
			i++;
	}
	return failed;
}

int nm_exec_undo(struct nm_exec *x)
{
	int ret = 0, here;

	if (x->j) {
		if (nm_journal_count(x->j) && (!x->restoring || *x->restoring))
			say(x, false, "%s", x->restoring ? x->restoring : "fix: restoring");
		if (nm_journal_undo(x->j, x->log)) {
			if (!x->unrestored || *x->unrestored)
				say(x, true, "%s", x->unrestored ? x->unrestored : "fix: not fully restored (see above)");
			ret = -1;
		}
		x->j = NULL;
	}
	if (!x->global)
		return ret;
	/* undone where it was made: the initial netns */
	here = open("/proc/self/ns/net", O_RDONLY | O_CLOEXEC);
	if (here < 0 || setns(x->home_fd, CLONE_NEWNET)) {
		say(x, true, "fix: cannot enter the initial netns to restore; run %s --cleanup", x->tool);
		if (here >= 0)
			close(here);
		return -1;
	}
	if (nm_journal_undo(x->global, x->log)) {
		say(x, true, "fix: not fully restored (see above)");
		ret = -1;
	}
	x->global = NULL;
	if (setns(here, CLONE_NEWNET))
		ret = -1;
	close(here);
	return ret;
}
