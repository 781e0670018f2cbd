// SPDX-License-Identifier: GPL-2.0
/*
 * tcpstall's actuators (--fix): the plans of tcpstall/plan.c made
 * by lib/plan.c's executor, the facts they ask for read, and --fix=kick's
 * passes of the ts_kick iterator (or, where it is refused, of its
 * userspace twin, tcpstall/kickfd.c), from the main loop and the
 * kicker thread.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <net/if.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <bpf/bpf.h>
#include <bpf/libbpf.h>
#include "lib/journal.h"
#include "lib/netns.h"
#include "lib/output.h"
#include "lib/skel.h"
#include "lib/sysfs.h"
#include "tcpstall/act.h"
#include "tcpstall/kickfd.h"
#include "tcpstall/records.h"

/* The flow as the tables show it (its one definition: ts_flow_cols). */
const char *ts_flow_str(const struct ts_key *k, char *buf, size_t len)
{
	struct ts_flow_cols c;

	ts_flow_cols(&c, k, "");
	snprintf(buf, len, "%s", c.flow);
	return buf;
}

/* --fix's word of one TS_FIX_ bit */
static const char *fix_word(unsigned int bit)
{
	switch (bit) {
	case TS_FIX_DEFER: return "defer";
	case TS_FIX_AUTOCORK: return "autocork";
	case TS_FIX_RFS: return "rfs";
	case TS_FIX_ROUTES: return "routes";
	default: return "kick";
	}
}

/*
 * A remedy not made on k, of another netns: said once per object (its
 * socket for a kick, else its netns: a sysctl, a route table, a device
 * are the whole netns's), with the --netns that would let tcpstall act.
 */
static void say_elsewhere(struct ts_act *a, const struct ts_key *k, unsigned int bit)
{
	struct ts_elsewhere o = { .fix = bit };
	char name[NM_NS_NAME] = "", opt[NM_NS_NAME] = "", flow[128], self[NM_NS_NAME] = "";
	bool created;

	if (bit == TS_FIX_KICK)
		o.key = *k;
	else
		o.key.netns = k->netns;
	if (!a->elsewhere)
		a->elsewhere = nm_htab_new(sizeof(o), 1, TS_ACT_ELSEWHERE);
	if (!a->elsewhere || !nm_htab_upsert(a->elsewhere, &o, &created)) {
		a->elsewhere_over++;
		return;
	}
	if (!created)
		return;
	if (a->ns_where) {
		a->ns_where(a->ns_arg, k->netns, name, sizeof(name), opt, sizeof(opt));
		a->ns_where(a->ns_arg, a->kx.netns, self, sizeof(self), NULL, 0);
	} else {
		snprintf(name, sizeof(name), "%u", k->netns);
		snprintf(self, sizeof(self), "%lu", a->kx.netns);
	}
	if (opt[0])
		nm_info(a->o, "fix: %s: did not act on %s in netns %s: tcpstall acts in its own (%s) only; "
			"--netns %s would let it", fix_word(bit), ts_flow_str(k, flow, sizeof(flow)), name,
			self, opt);
	else
		nm_info(a->o, "fix: %s: did not act on %s in netns %s: tcpstall acts in its own (%s) only, "
			"and no --netns names that one (no process or /run/netns name found)", fix_word(bit),
			ts_flow_str(k, flow, sizeof(flow)), name, self);
}

/* ---- --fix=kick ---- */

/* What a socket that could not be taken from its process lacked, as far as errno tells. */
static const char *take_hint(const struct ts_kick *k)
{
	if (k->step != TS_KICK_STEP_TAKE)
		return "";
	switch (-k->err) {
	case EPERM:
		return " (ptrace access: CAP_SYS_PTRACE; Yama's ptrace_scope 3 or an LSM may forbid it)";
	case EACCES:
		return " (other users' /proc/PID/fd: CAP_DAC_READ_SEARCH, CAP_SYS_PTRACE)";
	case ENOSYS:
		return " (pidfd_getfd: 5.6+)";
	default:
		return "";
	}
}

/* What a kick's outcome says, for the log; bpf: the iterator's, whose calls are the helpers. */
static const char *kick_why(const struct ts_kick *k, bool bpf, char *buf, size_t len)
{
	static const char *const step[] = {
		[TS_KICK_STEP_NONE] = "socket not found",
		[TS_KICK_STEP_TAKE] = "taking it from its process (pidfd_getfd)",
		[TS_KICK_STEP_GET] = "getsockopt(TCP_NODELAY)",
		[TS_KICK_STEP_CHANGED] = "TCP_NODELAY changed since the sweep",
		[TS_KICK_STEP_SET] = "setsockopt(TCP_NODELAY, 1)",
		[TS_KICK_STEP_RESTORE] = "setsockopt(TCP_NODELAY, old value)",
		[TS_KICK_STEP_HALTED] = "stopped after the set (NETMEDIC_TEST_KICK=crash)",
		[TS_KICK_STEP_DONE] = "done",
	};
	bool helper = k->step == TS_KICK_STEP_GET || k->step == TS_KICK_STEP_SET ||
		      k->step == TS_KICK_STEP_RESTORE;

	snprintf(buf, len, "%s%s%s%s%s", bpf && helper ? "bpf_" : "",
		 k->step <= TS_KICK_STEP_DONE ? step[k->step] : "?", k->err ? ": " : "",
		 k->err ? strerror(-k->err) : "", take_hint(k));
	return buf;
}

/* One kick's outcome, under the lock: counted, noted for its socket, its line (the first done, failures). */
static void kick_outcome(struct ts_act *a, struct nm_action *act, const struct ts_kick *k, uint64_t now)
{
	const struct ts_kick_req *q = (const void *)act->data;
	enum ts_kick_result r = ts_kick_result(k);
	char flow[128], why[256];

	a->kst.kicks[r]++;
	if (a->nnotes < TS_ACT_NOTES)
		a->notes[a->nnotes++] = (struct ts_kick_note){ .key = q->key, .r = r };
	if (q->start_ns && now > q->start_ns) {
		/* the stall's age when its kick was done: how soon the remedy acts */
		a->kst.age_sum_ns += now - q->start_ns;
		a->kst.aged++;
		if (now - q->start_ns > a->kst.age_max_ns)
			a->kst.age_max_ns = now - q->start_ns;
	}
	act->err = r == TS_KICK_FAILED ? (k->err < 0 ? k->err : -EIO) : 0;
	ts_flow_str(&q->key, flow, sizeof(flow));
	if (r == TS_KICK_DONE && !a->kick_said) {
		a->kick_said = true;
		snprintf(act->line, sizeof(act->line),
			 "fix: kick: pushed the pending data of %s (TCP_NODELAY 1, then back to %d); later kicks are counted (kicks in JSON, tcpstall_kicks_total)",
			 flow, q->nodelay);
	} else if (r == TS_KICK_FAILED && a->kick_errors++ < 10) {
		snprintf(act->line, sizeof(act->line), "fix kick: %s: %s", flow,
			 kick_why(k, !a->kick.getfd, why, sizeof(why)));
	}
}

/* One kick's outcome taken (kick_outcome): whether its record stays, the socket maybe left with TCP_NODELAY 1. */
static bool kick_taken(struct ts_act *a, struct nm_action *act, const struct ts_kick *k, uint64_t now)
{
	kick_outcome(a, act, k, now);
	a->halted |= k->step == TS_KICK_STEP_HALTED;
	return k->step == TS_KICK_STEP_RESTORE || k->step == TS_KICK_STEP_HALTED;
}

/* kick_batch on the pidfd_getfd rung: each socket taken from its process and kicked, in turn. */
static int kick_batch_fd(struct ts_act *a, struct nm_action *act, size_t n)
{
	bool keep = false;

	for (size_t i = 0; i < n; i++) {
		const struct ts_kick_req *q = (const void *)act[i].data;
		struct ts_kick k = { .mode = TS_KICK_PUSH, .nodelay = q->nodelay };

		ts_kickfd("/proc", &a->holders, &q->key, q->holder, a->kick.halt, &k);
		keep |= kick_taken(a, &act[i], &k, nm_mono_ns());
	}
	return keep;
}

/*
 * nm_exec.batch of the kick records, journaled already: the sockets named
 * in the kicks map, kicked in one pass of the iterator (or from userspace,
 * where it is refused), and their records dropped (0) once every old value
 * is back.
 */
static int kick_batch(struct nm_exec *x, struct nm_action *act, size_t n, char *err, size_t len)
{
	struct ts_act *a = x->arg;
	int fd = a->kick.kicks_fd, ret;
	bool keep = false;
	size_t named = 0;
	uint64_t now;

	if (a->kick.getfd)
		return kick_batch_fd(a, act, n);

	for (; named < n; named++) {
		const struct ts_kick_req *q = (const void *)act[named].data;
		struct ts_kick k = { .mode = TS_KICK_PUSH, .nodelay = q->nodelay };

		if (bpf_map_update_elem(fd, &q->key, &k, BPF_ANY))
			break;
	}
	ret = named ? nm_iter_read(a->kick.link) : 0;
	if (ret)
		snprintf(err, len, "the kick iterator: %s", strerror(-ret));
	now = nm_mono_ns();
	for (size_t i = 0; i < named; i++) {
		const struct ts_kick_req *q = (const void *)act[i].data;
		struct ts_kick k = {};

		bpf_map_lookup_elem(fd, &q->key, &k);
		bpf_map_delete_elem(fd, &q->key);
		keep |= kick_taken(a, &act[i], &k, now);
	}
	return ret ? ret : keep;
}

/* One pass of a batch: its plan made, under the lock, and emptied. */
static void kick_pass(struct ts_act *a, struct nm_plan *p)
{
	pthread_mutex_lock(&a->lock);
	nm_exec_plan(&a->fx, p);
	if (a->halted) {
		/* the test aid: die as a crash would, the record on disk, the option not restored */
		fflush(NULL);
		raise(SIGKILL);
	}
	nm_plan_truncate(p, 0);
	pthread_mutex_unlock(&a->lock);
}

void ts_act_kick_want(struct ts_act *a, const struct ts_kick_cand *c)
{
	/* where the kicker runs, tsq_idle sockets are its own (the test aid aside) */
	a->kx.kicker = nm_worker_alive(a->kicker);
	if (ts_kick_elsewhere(&a->kx, c))
		say_elsewhere(a, &c->key, TS_FIX_KICK);
	ts_kick_plan(&a->kx, c, &a->kb);
}

void ts_act_kick_pass(struct ts_act *a)
{
	if (a->kb.n)
		kick_pass(a, &a->kb);
}

void ts_act_take_stats(struct ts_act *a, struct ts_kick_stats *out)
{
	pthread_mutex_lock(&a->lock);
	*out = a->kst;
	a->kst.age_max_ns = a->kst.age_sum_ns = a->kst.aged = 0;
	for (size_t i = 0; i < a->nnotes; i++) {
		struct ts_sock *s = a->kx.sock(a->kx.arg, &a->notes[i].key);

		if (s) {
			s->kicks++;
			s->last_kick = a->notes[i].r;
		}
	}
	a->nnotes = 0;
	pthread_mutex_unlock(&a->lock);
}

/*
 * The kicker thread: a request of the kick timer, an episode open at the
 * threshold. The timer fires once per episode, so each request is one
 * kick; a full batch is kicked first, so that a burst waits for nothing.
 */
static int kicker_record(void *ctx, void *data, size_t len)
{
	const struct ts_kick_due *d = data;
	struct ts_act *a = ctx;
	struct ts_kick_cand c;

	if (len < sizeof(*d))
		return 0;
	c = (struct ts_kick_cand){ .by = TS_KICK_BY_TIMER, .key = d->key, .start_ns = d->start_ns,
				   .nonagle = d->nonagle, .holder = (pid_t)d->tgid };
	if (ts_kick_plan(&a->kx, &c, &a->kt) == -ENOSPC) {
		kick_pass(a, &a->kt);
		ts_kick_plan(&a->kx, &c, &a->kt);
	}
	return 0;
}

/* In the kicker, before its first request: capabilities are per thread. */
static int kicker_init(void *ctx, char *msg, size_t len)
{
	struct ts_act *a = ctx;

	return nm_caps_thread_drop(a->o, msg, len);
}

static void kicker_flush(void *ctx)
{
	struct ts_act *a = ctx;

	if (a->kt.n)
		kick_pass(a, &a->kt);
}

/* The kicker's start said: none (err), or one without SCHED_FIFO. */
static struct nm_worker *kicker_said(struct ts_act *a, const char *err)
{
	if (!a->kicker)
		nm_info(a->o, "warning: --fix=kick: no kicker thread (%s): stalls are kicked at the next loop pass instead",
			err);
	else if (strncmp(nm_worker_priority(a->kicker), "SCHED_FIFO", 10))
		nm_info(a->o, "warning: --fix=kick: the kicker thread runs at %s: on a busy host a kick may come after the peer's delayed ACK",
			nm_worker_priority(a->kicker));
	return a->kicker;
}

/*
 * Measured in the 6.1 guest under wrk (make faults): kicked from the main
 * loop, about one stall in ten was still unkicked 30 ms after its start,
 * past the threshold by the loop's sweeps and the CPU it waited for; hence
 * a thread of its own, at SCHED_FIFO 1 where allowed.
 */
struct nm_worker *ts_act_kicker_start(struct ts_act *a, int ring_fd)
{
	char err[160];

	a->kicker = nm_worker_start(ring_fd, kicker_init, kicker_record, kicker_flush, a, err, sizeof(err));
	return kicker_said(a, err);
}

/* ---- the kicker without a kick timer: it walks the open episodes itself ---- */

/* An open episode the poller kicked, and the walk that last saw it. */
struct ts_polled {
	uint64_t start_ns;
	uint64_t walk;
};

/* the episodes past the threshold it remembers at once: past that, one waits for room */
#define TS_POLL_KICKED	4096
/* how soon after a walk the next one: a new episode is kicked by 1.25 thresholds */
#define TS_POLL_DIV	4
/* ... and how soon at least, whatever is due: no busy loop on a near one */
#define TS_POLL_MIN_NS	100000ULL

uint64_t ts_act_poll_mark(struct ts_act *a, const struct ts_key *k, const struct ts_mark *m, uint64_t now)
{
	uint64_t due = m->start_ns + a->kx.threshold_ns;
	struct ts_polled *e;
	struct ts_kick_cand c;

	if (due > now)
		return due - now;
	e = nm_htab_upsert(a->poll.kicked, k, NULL);
	if (!e)
		return UINT64_MAX;
	e->walk = a->poll.walk;
	if (e->start_ns == m->start_ns)
		return UINT64_MAX;
	e->start_ns = m->start_ns;
	/* what the timer's request would be: one kick per episode */
	c = (struct ts_kick_cand){ .by = TS_KICK_BY_TIMER, .key = *k, .start_ns = m->start_ns,
				   .nonagle = m->nonagle, .holder = (pid_t)m->tgid };
	if (ts_kick_plan(&a->kx, &c, &a->kt) == -ENOSPC) {
		kick_pass(a, &a->kt);
		ts_kick_plan(&a->kx, &c, &a->kt);
	}
	return UINT64_MAX;
}

void ts_act_poll_done(struct ts_act *a)
{
	struct ts_poll *p = &a->poll;
	struct ts_key gone[64];
	size_t pos = 0, n = 0;
	void *key, *val;

	do {
		pos = 0;
		n = 0;
		while (n < 64 && nm_htab_next(p->kicked, &pos, &key, &val))
			if (((struct ts_polled *)val)->walk != p->walk)
				gone[n++] = *(struct ts_key *)key;
		for (size_t i = 0; i < n; i++)
			nm_htab_del(p->kicked, &gone[i]);
	} while (n == 64);
	p->walk++;
}

uint64_t ts_act_poll(struct ts_act *a, uint64_t now)
{
	uint64_t next = a->kx.threshold_ns / TS_POLL_DIV, in;
	struct ts_key k, nk;
	bool first = true;
	struct ts_mark m;

	while (!bpf_map_get_next_key(a->poll.marks_fd, first ? NULL : &k, &nk)) {
		first = false;
		k = nk;
		if (bpf_map_lookup_elem(a->poll.marks_fd, &k, &m))
			continue;
		in = ts_act_poll_mark(a, &k, &m, now);
		if (in < next)
			next = in;
	}
	if (a->kt.n)
		kick_pass(a, &a->kt);
	ts_act_poll_done(a);
	return next < TS_POLL_MIN_NS ? TS_POLL_MIN_NS : next;
}

static uint64_t poller_tick(void *ctx)
{
	struct ts_act *a = ctx;

	return ts_act_poll(a, nm_mono_ns());
}

/*
 * Measured under wrk on 5.10 (make faults KERNEL=5.10): kicked from the
 * main loop, which walked the episodes every half threshold between its
 * sweeps, 453 of 958 long stalls were kicked before the peer's delayed
 * ACK; the walks waited for the sweeps. Hence the kicker thread here too.
 */
struct nm_worker *ts_act_poller_start(struct ts_act *a, int marks_fd)
{
	char err[160];

	a->poll.marks_fd = marks_fd;
	a->poll.kicked = nm_htab_new(sizeof(struct ts_key), sizeof(struct ts_polled), TS_POLL_KICKED);
	if (!a->poll.kicked)
		snprintf(err, sizeof(err), "out of memory");
	else
		a->kicker = nm_worker_start_timed(kicker_init, poller_tick, a, err, sizeof(err));
	return kicker_said(a, err);
}

void ts_act_kicker_stop(struct ts_act *a)
{
	if (a->kicker && !nm_worker_alive(a->kicker))
		nm_err(a->o, NM_EXIT_RUNTIME, "fix kick: the kicker thread stopped: %s", nm_worker_error(a->kicker));
	nm_worker_stop(a->kicker);
	a->kicker = NULL;
	nm_htab_free(a->poll.kicked);
	a->poll.kicked = NULL;
}

/* ---- the undo of a sockopt record: the kick iterator, in restore mode (or its userspace twin) ---- */

struct kick_exec {
	struct ts_kick_prog prog;	/* the running tool's, or opened here at first use */
	const struct nm_skel_ops *ops;	/* the tool's skeleton, to open ts_kick from */
	bool own;
};

/* The kick iterator alone: no other program, its maps small. 0, or -EIO with err. */
static int kick_open(const struct nm_skel_ops *ops, struct ts_kick_prog *k, char *err, size_t len)
{
	void *skel = ops->open(NULL);
	struct bpf_object *obj;
	struct bpf_program *p, *kick;

	*k = (struct ts_kick_prog){ .kicks_fd = -1 };
	if (!skel) {
		snprintf(err, len, "opening the BPF object: %s", strerror(errno));
		return -EIO;
	}
	obj = nm_skel_obj(skel);
	kick = bpf_object__find_program_by_name(obj, "ts_kick");
	bpf_object__for_each_program(p, obj)
		bpf_program__set_autoload(p, p == kick);
	/* the ACK flow table is sized by --max-flows: no run's size here */
	bpf_map__set_max_entries(bpf_object__find_map_by_name(obj, "acks"), 64);
	bpf_map__set_max_entries(bpf_object__find_map_by_name(obj, "ack_index"), 64);
	if (!kick) {
		snprintf(err, len, "loading ts_kick: %s", strerror(ENOENT));
	} else if (bpf_object__load_skeleton(*(struct bpf_object_skeleton **)skel)) {
		snprintf(err, len, "loading ts_kick: %s", strerror(errno));
	} else {
		k->link = bpf_program__attach_iter(kick, NULL);
		if (k->link) {
			k->kicks_fd = bpf_map__fd(bpf_object__find_map_by_name(obj, "kicks"));
			k->obj = skel;
			return 0;
		}
		snprintf(err, len, "attaching ts_kick: %s", strerror(errno));
	}
	ops->destroy(skel);
	return -EIO;
}

static void kick_close(const struct nm_skel_ops *ops, struct ts_kick_prog *k)
{
	bpf_link__destroy(k->link);
	ops->destroy(k->obj);
	*k = (struct ts_kick_prog){ .kicks_fd = -1 };
}

/*
 * The way the restores go: the running tool's kick rung, else ts_kick
 * opened alone at the first record, else (a kernel before 5.15) the
 * sockets taken from their processes. 0, or -errno with msg.
 */
static int kick_way(struct kick_exec *x, char *msg, size_t len)
{
	char why[192], getfd[96];
	int err;

	if (x->prog.link || x->prog.getfd)
		return 0;
	if (!x->ops) {
		snprintf(msg, len, "no kick iterator here");
		return -ENOSYS;
	}
	/* the test aid refuses it as a kernel would, as --list-fixes' probe does */
	if (nm_refuse_match(getenv("NETMEDIC_REFUSE"), "ts_kick", "iter/tcp")) {
		snprintf(why, sizeof(why), "loading ts_kick: refused by NETMEDIC_REFUSE");
	} else if (!kick_open(x->ops, &x->prog, why, sizeof(why))) {
		x->own = true;
		return 0;
	}
	err = ts_kickfd_probe(getfd, sizeof(getfd));
	if (err) {
		snprintf(msg, len, "%s; %s", why, getfd);
		return -EIO;
	}
	x->prog.getfd = true;
	return 0;
}

static int kick_restore(struct kick_exec *x, const struct ts_key *key, int nodelay,
			struct ts_kick *k, char *msg, size_t len)
{
	int err = kick_way(x, msg, len);

	if (err)
		return err;
	*k = (struct ts_kick){ .mode = TS_KICK_RESTORE, .nodelay = nodelay };
	if (x->prog.getfd) {
		ts_kickfd("/proc", NULL, key, 0, false, k);
		return 0;
	}
	if (bpf_map_update_elem(x->prog.kicks_fd, key, k, BPF_ANY)) {
		snprintf(msg, len, "kicks map: %s", strerror(errno));
		return -errno;
	}
	err = nm_iter_read(x->prog.link);
	bpf_map_lookup_elem(x->prog.kicks_fd, key, k);
	bpf_map_delete_elem(x->prog.kicks_fd, key);
	if (err)
		snprintf(msg, len, "the kick iterator: %s", strerror(-err));
	return err;
}

static int kick_exec_fn(const char *const *f, int nf, char *msg, size_t len, void *arg)
{
	struct kick_exec *x = arg;
	struct ts_key key;
	struct ts_kick k;
	char flow[128], why[256];
	int nodelay, err;

	if (ts_kick_parse(f, nf, &key, &nodelay)) {
		snprintf(msg, len, "not a socket option record");
		return -EBADMSG;
	}
	ts_flow_str(&key, flow, sizeof(flow));
	err = kick_restore(x, &key, nodelay, &k, msg, len);
	if (err)
		return err;
	if (k.step == TS_KICK_STEP_NONE) {
		snprintf(msg, len, "socket %s (netns %u) is gone: no TCP_NODELAY to restore", flow, key.netns);
		return 0;
	}
	if (k.step != TS_KICK_STEP_DONE) {
		snprintf(msg, len, "TCP_NODELAY of %s (netns %u): %s", flow, key.netns,
			 kick_why(&k, !x->prog.getfd, why, sizeof(why)));
		return k.err ? k.err : -EIO;
	}
	snprintf(msg, len, "restored TCP_NODELAY of %s (netns %u) to %d (it was %d)", flow, key.netns,
		 nodelay, k.found);
	return 0;
}

static struct kick_exec kick_exec;

static void kick_exec_free(void)
{
	if (kick_exec.own)
		kick_close(kick_exec.ops, &kick_exec.prog);
	kick_exec = (struct kick_exec){};
}

/* A dead --fix=kick may have left sockets with TCP_NODELAY 1. */
int ts_act_cleanup(struct nm_opts *o, const struct nm_skel_ops *ops)
{
	int ret;

	kick_exec = (struct kick_exec){ .prog.kicks_fd = -1, .ops = ops };
	nm_journal_exec("sockopt", kick_exec_fn, &kick_exec);
	ret = nm_cleanup_main(o);
	kick_exec_free();
	return ret;
}

/* ---- --list-fixes ---- */

/* kick: its program, else its userspace twin (pidfd_getfd); which one, in why. */
static int probe_kick(const struct nm_fix *f, char *why, size_t len)
{
	char refused[192], getfd[96];
	int err = nm_fix_probe_prog(f, refused, sizeof(refused));

	if (!err) {
		snprintf(why, len, "by iter/tcp");
		return 0;
	}
	err = ts_kickfd_probe(getfd, sizeof(getfd));
	if (err)
		snprintf(why, len, "%s; %s", refused, getfd);
	else
		snprintf(why, len, "by %s (%s)", TS_KICKFD_LABEL, refused);
	return err;
}

const struct nm_fix ts_fixes[TS_NFIXES] = {
	{ "defer", "sysctl net.ipv4.tcp_backlog_ack_defer (6.7+)", nm_fix_probe_sysctl,
	  "net.ipv4.tcp_backlog_ack_defer", NULL },
	{ "autocork", "sysctl net.ipv4.tcp_autocorking (the whole netns)", nm_fix_probe_sysctl,
	  "net.ipv4.tcp_autocorking", NULL },
	{ "rfs", "sysctl net.core.rps_sock_flow_entries, rps_flow_cnt", nm_fix_probe_sysctl,
	  "net.core.rps_sock_flow_entries", NULL },
	{ "routes", "ip route replace (the routes with quickack 1)", nm_fix_probe_cmd, "ip", NULL },
	{ "kick", "BPF iter/tcp + bpf_setsockopt(TCP_NODELAY) or pidfd_getfd, one socket",
	  probe_kick, "ts_kick", NULL },
};

int ts_act_list_fixes(struct nm_opts *o, const struct nm_skel_ops *ops)
{
	struct nm_fix f[TS_NFIXES];
	int ret;

	o->netns = NULL;
	ret = nm_setup(o);
	if (ret)
		return ret;
	memcpy(f, ts_fixes, sizeof(f));
	for (int i = 0; i < TS_NFIXES; i++)
		if (f[i].probe == probe_kick)
			f[i].ops = ops;
	if (o->json)
		nm_fixes_list_json(stdout, f, TS_NFIXES, o->tool);
	else
		nm_fixes_list(stdout, f, TS_NFIXES);
	return NM_EXIT_OK;
}

/* ---- the facts a plan asks for ---- */

/* TS_NEED_ROUTE_NAME: the route to the flow's remote address, as ip shows it */
static void read_route_name(const struct ts_key *k, struct ts_fix_facts *f)
{
	char cmd[160];
	FILE *p;

	nm_fmt_addr(k->family, k->raddr, f->route_addr, sizeof(f->route_addr));
	snprintf(cmd, sizeof(cmd), "ip -o route get %s 2>/dev/null", f->route_addr);
	p = popen(cmd, "r");
	if (!p)
		return;
	if (!fgets(f->route_line, sizeof(f->route_line), p))
		f->route_line[0] = 0;
	pclose(p);
}

/* TS_NEED_ROUTES: every route of the family, one line each; the caller frees */
static char **read_routes(uint8_t family, size_t *n)
{
	FILE *f = popen(family == NM_AF_INET6 ? "ip -6 route show" : "ip -4 route show", "r");
	char line[512], **v = NULL, **nv;

	*n = 0;
	while (f && fgets(line, sizeof(line), f)) {
		nv = realloc(v, (*n + 1) * sizeof(*v));
		if (!nv || !(nv[*n] = strdup(line))) {
			v = nv ? nv : v;
			break;
		}
		v = nv;
		(*n)++;
	}
	if (f)
		pclose(f);
	return v;
}

/*
 * rps_sock_flow_entries exists in the initial netns only: read from there.
 * false (said) when that netns cannot be entered or left.
 */
static bool read_flow_entries(const struct ts_act *a, long *v)
{
	int here = open("/proc/self/ns/net", O_RDONLY | O_CLOEXEC);
	bool ok = false;

	if (here < 0 || setns(a->fx.home_fd, CLONE_NEWNET)) {
		nm_err(a->o, NM_EXIT_RUNTIME, "fix rfs: cannot enter the initial netns: %s", strerror(errno));
		goto out;
	}
	*v = nm_sysfs_long("/proc/sys/net/core/rps_sock_flow_entries", -1);
	ok = !setns(here, CLONE_NEWNET);
	if (!ok)
		nm_err(a->o, NM_EXIT_RUNTIME, "fix rfs: cannot return to the netns: %s", strerror(errno));
out:
	if (here >= 0)
		close(here);
	return ok;
}

/* TS_NEED_RFS: the device, the global table, its RX queues' tables; *q freed by the caller */
static void read_rfs(const struct ts_act *a, unsigned int ifindex, struct ts_fix_facts *f, struct ts_rxq **q)
{
	char dir[256], path[512];
	struct ts_rxq *nq;
	struct dirent *de;
	DIR *d;

	if (!if_indextoname(ifindex, f->rfs_dev)) {
		f->rfs_dev[0] = 0;
		return;
	}
	f->rfs_unread = !read_flow_entries(a, &f->flow_entries);
	snprintf(dir, sizeof(dir), "/sys/class/net/%s/queues", f->rfs_dev);
	d = f->rfs_unread ? NULL : opendir(dir);
	while (d && (de = readdir(d))) {
		if (strncmp(de->d_name, "rx-", 3) || strlen(de->d_name) >= sizeof(nq->name))
			continue;
		nq = realloc(*q, (f->nrxq + 1) * sizeof(**q));
		if (!nq)
			break;
		*q = nq;
		snprintf(nq[f->nrxq].name, sizeof(nq->name), "%s", de->d_name);
		snprintf(path, sizeof(path), "%s/%s/rps_flow_cnt", dir, de->d_name);
		nq[f->nrxq++].flow_cnt = nm_sysfs_long(path, -1);
	}
	if (d)
		closedir(d);
	f->rxq = *q;
}

/* ---- --fix ---- */

/* The report's plan: asked for, the facts it needs read, made by the executor. */
static void fixes(struct ts_act *a, const struct ts_fix_flow *fl, size_t n)
{
	struct ts_fix_facts f = { .flow_entries = -1 };
	unsigned long netns = a->o->netns_ino;
	struct nm_plan p = {};
	struct ts_rxq *rxq = NULL;
	struct ts_fix_ask ask;
	char **routes = NULL;
	size_t nroutes = 0;

	f.have = ts_fix_plan(a->fix, netns, fl, n, NULL, &a->done, &ask, &p);
	if (f.have & TS_NEED_ROUTE_NAME)
		read_route_name(&fl[ask.route_flow].key, &f);
	if (f.have & TS_NEED_ROUTES)
		routes = read_routes(ask.routes_family, &nroutes);
	if (f.have & TS_NEED_RFS)
		read_rfs(a, fl[ask.rfs_flow].rx_ifindex, &f, &rxq);
	f.routes = (const char *const *)routes;
	f.nroutes = nroutes;
	if (!f.have || !ts_fix_plan(a->fix, netns, fl, n, &f, &a->done, &ask, &p))
		nm_exec_plan(&a->fx, &p);
	for (size_t i = 0; i < nroutes; i++)
		free(routes[i]);
	free(routes);
	free(rxq);
	nm_plan_free(&p);
}

void ts_act_fixes(struct ts_act *a, const struct ts_fix_flow *fl, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		unsigned int m = ts_fix_elsewhere(a->fix, a->o->netns_ino, &fl[i]);

		for (unsigned int bit = TS_FIX_DEFER; bit <= TS_FIX_ROUTES; bit <<= 1)
			if (m & bit)
				say_elsewhere(a, &fl[i].key, bit);
	}
	/* the journal is the kicker's too */
	pthread_mutex_lock(&a->lock);
	fixes(a, fl, n);
	pthread_mutex_unlock(&a->lock);
}

/* ---- what the loader asks: the caps, the kicks' context, the open episodes ---- */

void ts_act_caps(struct nm_caps_run *c, unsigned int fix)
{
	/* sysctls; rfs: sysfs and the initial netns; routes: ip */
	c->remedy = fix & (TS_FIX_DEFER | TS_FIX_AUTOCORK | TS_FIX_RFS | TS_FIX_ROUTES);
	c->remedy_sysfs = c->remedy_setns = fix & TS_FIX_RFS;
	c->remedy_exec = fix & TS_FIX_ROUTES;
	c->journal = fix;
	c->remedy_opt = "--fix";
	/* a sockopt record (--fix=kick) is undone by a program */
	c->cleanup_bpf = true;
	/*
	 * ... and a kick, where iter/tcp may not set socket options (before
	 * 5.15), is made and undone from userspace on the socket taken from
	 * its process: which way is known once loaded (lib/caps.h getfd_keep)
	 */
	c->getfd = fix & TS_FIX_KICK;
	c->cleanup_getfd = true;
	/* --fix=rfs: rps_flow_cnt */
	c->cleanup_sysfs = true;
}

struct ts_sock *ts_act_sock(void *socks, const struct ts_key *k)
{
	return nm_htab_upsert(socks, k, NULL);
}

void ts_act_setup(struct ts_act *a, const struct ts_env *env, const struct ts_kick_prog *kick,
		  struct nm_htab *socks)
{
	a->o = &env->o;
	a->fix = env->fix;
	a->kx = (struct ts_kick_ctx){ .netns = env->o.netns_ino,
				      .threshold_ns = env->threshold_ms * 1000000ULL,
				      .cfg = &env->kick, .sock = ts_act_sock, .arg = socks };
	a->kick = *kick;
	a->kick.halt = env->kick_halt;
}

const char *ts_act_kick_at(bool kicker, bool timer, bool episodes)
{
	if (kicker)
		return timer ? "threshold" : "threshold_walk";
	return episodes ? "next_pass" : "next_sweep";
}

bool ts_marks_more(const struct ts_marks *w)
{
	return w->ndrop < TS_MARKS_DROP;
}

bool ts_marks_take(struct ts_marks *w, const struct ts_key *k, const struct ts_mark *m)
{
	if (w->forget && ts_mark_stale(m->start_ns, nm_htab_get(w->socks, k), w->sweep, w->now_ns)) {
		w->drop[w->ndrop++] = *k;
		return false;
	}
	w->open++;
	return w->kick;
}

int ts_marks_gate(const struct ts_marks *w)
{
	/* a walk cut short at TS_MARKS_DROP drops counted too few: the next one sets it */
	return w->forget && w->ndrop < TS_MARKS_DROP ? w->open : -1;
}

int ts_act_walk_marks(struct ts_act *a, int fd, struct ts_marks *w)
{
	struct ts_key k, next;
	bool first = true;

	while (ts_marks_more(w) && !bpf_map_get_next_key(fd, first ? NULL : &k, &next)) {
		struct ts_mark m;

		first = false;
		k = next;
		if (bpf_map_lookup_elem(fd, &k, &m))
			continue;
		if (ts_marks_take(w, &k, &m))
			ts_act_kick_want(a, &(struct ts_kick_cand){ .by = TS_KICK_BY_MARK, .key = k,
					 .start_ns = m.start_ns, .now_ns = w->now_ns, .nonagle = m.nonagle,
					 .holder = (pid_t)m.tgid });
	}
	for (size_t i = 0; i < w->ndrop; i++)
		bpf_map_delete_elem(fd, &w->drop[i]);
	return ts_marks_gate(w);
}

int ts_act_fix_start(struct ts_act *a, const char *tool)
{
	char key[32], nspath[256], err[256];

	snprintf(key, sizeof(key), "%lu", a->o->netns_ino);
	if (nm_journal_open(&a->fx.j, tool, key,
			    a->o->netns ? nm_netns_path(a->o->netns, nspath, sizeof(nspath)) : NULL,
			    err, sizeof(err)))
		return nm_err(a->o, NM_EXIT_RUNTIME, "--fix: %s", err);
	a->fx.tool = tool;
	a->fx.log = stderr;
	a->fx.global_key = "rfs-global";
	a->fx.batch = kick_batch;
	a->fx.arg = a;
	/* a record a pass kept (its old value not put back) is undone at exit */
	kick_exec = (struct kick_exec){ .prog = a->kick };
	nm_journal_exec("sockopt", kick_exec_fn, &kick_exec);
	return 0;
}

int ts_act_fix_stop(struct ts_act *a)
{
	int ret = nm_exec_undo(&a->fx) ? NM_EXIT_RUNTIME : 0;

	nm_plan_free(&a->kb);
	nm_plan_free(&a->kt);
	nm_htab_free(a->elsewhere);
	a->elsewhere = NULL;
	nm_sock_holders_free(&a->holders);
	return ret;
}
