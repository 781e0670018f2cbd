/* SPDX-License-Identifier: GPL-2.0 */
/*
 * tcpstall_act.h - tcpstall's remedies carried out. tcpstall/plan.c
 * decides (ts_fix_plan at a report, ts_kick_plan for each socket --fix=kick
 * may kick); here the facts a plan asks for are read and lib/plan.c's
 * executor makes it: the sysctl, sysfs and route fixes, and the kick
 * passes of the ts_kick iterator, from the main loop or from the kicker
 * thread (lib/worker.c) that takes the kick timer's requests within the
 * threshold. What became of the kicks is counted for the report.
 *
 * Takes no skeleton: the loader hands the kick iterator's link and map
 * (ts_kick_prog), and the open episodes' map (ts_act_walk_marks); for
 * --cleanup, ts_kick is opened alone through the tool's skeleton ops
 * (lib/skel.h). What the loader decides of the remedies (their
 * capabilities, the kicks' context, the walk of the open episodes, when a
 * kick comes) is here, pure.
 */
#ifndef NETMEDIC_TCPSTALL_ACT_H
#define NETMEDIC_TCPSTALL_ACT_H

#include <pthread.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include "tcpstall/tcpstall.h"
#include "tcpstall/judge.h"
#include "tcpstall/plan.h"
#include "lib/cli.h"
#include "lib/fixes.h"
#include "lib/htab.h"
#include "lib/plan.h"
#include "lib/skel.h"
#include "lib/sockfd.h"
#include "tcpstall/opts.h"
#include "lib/worker.h"

struct bpf_link;

/* What became of the kicks, for the report's sinks. */
struct ts_kick_stats {
	uint64_t kicks[TS_KICK_NRESULTS];	/* since the start */
	uint64_t age_max_ns, age_sum_ns, aged;	/* the stalls' ages at their kicks, this interval */
};

/*
 * The kick iterator and its map: the running tool's, or loaded alone for
 * --cleanup; or, where it is refused, the kicks made from userspace
 * (getfd: tcpstall/kickfd.h).
 */
struct ts_kick_prog {
	struct bpf_link *link;	/* ts_kick (iter/tcp); NULL: none */
	int kicks_fd;		/* its kicks map */
	void *obj;		/* the skeleton, when --cleanup loaded one for this */
	bool getfd;		/* no iterator: the kick hook's pidfd_getfd rung */
	bool halt;		/* ... and NETMEDIC_TEST_KICK=crash (the iterator reads kick_halt) */
};

#define TS_ACT_NOTES	1024
/* objects of other namespaces said once (a socket, or a netns and a remedy): at most */
#define TS_ACT_ELSEWHERE	4096

/* An object of another netns that --fix did not act on, said once. */
struct ts_elsewhere {
	struct ts_key key;	/* the socket's (kick); else only its netns */
	uint32_t fix;		/* TS_FIX_ bit */
	uint32_t pad;
};

struct ts_act {
	/* the loader's, set before ts_act_fix_start */
	const struct nm_opts *o;
	unsigned int fix;		/* --fix's mask */
	struct ts_kick_ctx kx;		/* netns, threshold, ts_kick_cfg, the sockets' memory */
	struct ts_kick_prog kick;
	struct nm_exec fx;		/* home_fd: the netns the tool started in (RFS's global sysctl) */
	/* a netns's name, and the --netns value that would enter it ("": none known) */
	void (*ns_where)(void *arg, unsigned long ino, char *name, size_t nlen, char *opt, size_t olen);
	void *ns_arg;
	/* its own */
	struct ts_fix_done done;	/* the remedies made so far: each one once */
	struct nm_worker *kicker;	/* the kicker thread; NULL or dead: kicks wait for a pass */
	struct nm_plan kb;		/* the main loop's next kick pass */
	struct nm_plan kt;		/* the kicker thread's */
	/* the kicker without a kick timer (ts_act_poller_start): the open episodes it walks */
	struct ts_poll {
		int marks_fd;		/* tsq_marks; -1: the kicker takes the timer's requests */
		struct nm_htab *kicked;	/* ts_key -> struct ts_polled: each episode kicked once */
		uint64_t walk;		/* the walks so far */
	} poll;
	/* the kick passes, their outcomes and the journal: shared by the main loop and the kicker */
	pthread_mutex_t lock;
	struct nm_sock_holders holders;	/* pidfd_getfd's kicks: the last socket's process */
	struct ts_kick_stats kst;
	unsigned int kick_errors;	/* failure lines printed so far */
	bool kick_said;
	bool halted;			/* the test aid stopped a kick after its set */
	struct ts_kick_note {
		struct ts_key key;
		enum ts_kick_result r;
	} notes[TS_ACT_NOTES];		/* the kicks' sockets, for the next report */
	size_t nnotes;
	struct nm_htab *elsewhere;	/* struct ts_elsewhere said, main loop only */
	unsigned long elsewhere_over;	/* ... not said: the set was full */
};

#define TS_ACT_INIT { .lock = PTHREAD_MUTEX_INITIALIZER, .fx.home_fd = -1, .kick.kicks_fd = -1, .poll.marks_fd = -1 }

/* "198.18.0.1:80>198.18.0.2:5000" ("[::1]:80>[::1]:5000"), as the log and the table name a flow */
const char *ts_flow_str(const struct ts_key *k, char *buf, size_t len);

/*
 * A socket the main loop found (a sweep's sample, an open episode): into
 * its next pass; one of another netns it would kick is said, once.
 */
void ts_act_kick_want(struct ts_act *a, const struct ts_kick_cand *c);
/* The main loop's pass: its batch kicked, when it has one. */
void ts_act_kick_pass(struct ts_act *a);
/* At a report: the kicks since the last one noted on their sockets (kx.sock), the counters' copy. */
void ts_act_take_stats(struct ts_act *a, struct ts_kick_stats *out);

/*
 * Where the kick timer's rung loaded: the thread that kicks its requests
 * (the kick_due ring) as they come; said when there is none or it runs
 * without SCHED_FIFO. Once the journal is open, before the caps drop.
 */
struct nm_worker *ts_act_kicker_start(struct ts_act *a, int ring_fd);
/*
 * Where the episode hooks run without their kick timer (no bpf_timer in
 * fexit programs before 5.15): the kicker thread walks the open episodes
 * (the tsq_marks map, marks_fd) every quarter threshold, and kicks each
 * once when it is --threshold old, as the timer's request would. Said as
 * ts_act_kicker_start says.
 */
struct nm_worker *ts_act_poller_start(struct ts_act *a, int marks_fd);
/* One walk of the poller: the episodes due kicked; the ns until its next walk. */
uint64_t ts_act_poll(struct ts_act *a, uint64_t now_ns);
/*
 * The walk's steps. Episode k (mark m) into the kicker's batch when it is
 * due and not kicked yet (a full batch is kicked first); how soon it is
 * due, else UINT64_MAX.
 */
uint64_t ts_act_poll_mark(struct ts_act *a, const struct ts_key *k, const struct ts_mark *m, uint64_t now_ns);
/* After a walk: the kicked episodes it did not see (ended) forgotten. */
void ts_act_poll_done(struct ts_act *a);
/* Before anything is undone: no kick may run after. */
void ts_act_kicker_stop(struct ts_act *a);

/* The capabilities --fix's remedies (fix, TS_FIX_ bits) need, and --cleanup's. */
void ts_act_caps(struct nm_caps_run *c, unsigned int fix);

/* A socket's memory for the kick decision, made at first use (ts_kick_ctx.sock; socks: ts_key -> ts_sock). */
struct ts_sock *ts_act_sock(void *socks, const struct ts_key *k);

/*
 * a told what it acts on, before ts_act_fix_start: env's remedies, netns
 * and threshold, kick's iterator and map, the sockets' memory socks.
 */
void ts_act_setup(struct ts_act *a, const struct ts_env *env, const struct ts_kick_prog *kick,
		  struct nm_htab *socks);

/*
 * When --fix=kick acts on a stall (the first line's): at the threshold, by
 * the kicker on its timer's request (timer) or its own walk; else at a
 * loop pass after it, or a sweep.
 */
const char *ts_act_kick_at(bool kicker, bool timer, bool episodes);

/* the stale episodes one walk drops, at most: a walk cut short leaves the gate */
#define TS_MARKS_DROP	256

/*
 * One walk of the open tsq_idle episodes (tsq_marks), a mark at a time,
 * pure. forget, at each full sweep: the stale ones (ts_mark_stale) leave,
 * and the BPF side's gate (marks_open) is set to the open ones left,
 * since a closed socket or an LRU eviction never ends its episode. kick
 * (--fix=kick with no kicker thread): the open ones are the kicks'
 * candidates (ts_kick_plan queues those open for the threshold).
 */
struct ts_marks {
	bool forget, kick;
	uint64_t now_ns;
	uint64_t sweep;			/* the sweep just made */
	struct nm_htab *socks;		/* ts_key -> ts_sock: what the sweeps saw */
	/* the walk's */
	struct ts_key drop[TS_MARKS_DROP];
	size_t ndrop;
	int open;
};

/* Whether the walk goes on: fewer than TS_MARKS_DROP marks to drop. */
bool ts_marks_more(const struct ts_marks *w);
/* Mark m of socket k: to drop (stale, at a forget walk), else open; true: a kick's candidate. */
bool ts_marks_take(struct ts_marks *w, const struct ts_key *k, const struct ts_mark *m);
/* The gate (marks_open) after the walk: the open marks; -1: left as it is. */
int ts_marks_gate(const struct ts_marks *w);
/*
 * The walk of map fd (tsq_marks): each mark judged by w, the candidates
 * into the next kick pass, the stale ones deleted. ts_marks_gate's answer.
 */
int ts_act_walk_marks(struct ts_act *a, int fd, struct ts_marks *w);

/* --fix: the journal opened (its key the netns), a record a dead run kept undone. The exit code. */
int ts_act_fix_start(struct ts_act *a, const char *tool);
/*
 * A report's remedies: the plan of its flows, the facts it asks for read,
 * made; those a flow of another netns calls for said, once per netns.
 */
void ts_act_fixes(struct ts_act *a, const struct ts_fix_flow *fl, size_t n);
/* Everything undone: 0, or NM_EXIT_RUNTIME when something is not restored. */
int ts_act_fix_stop(struct ts_act *a);

/*
 * --list-fixes: each --fix value, its lever, and the probe of whether this
 * kernel allows it. kick's probe loads ts_kick, else tries pidfd_getfd,
 * and says which way: ts_kick's skeleton is the one ts_act_list_fixes is
 * given (here NULL).
 */
#define TS_NFIXES	5
extern const struct nm_fix ts_fixes[TS_NFIXES];

/*
 * --list-fixes, probed where tcpstall starts (o->netns ignored:
 * rps_sock_flow_entries is in the initial netns only), kick's probe
 * through ops' skeleton. The exit code.
 */
int ts_act_list_fixes(struct nm_opts *o, const struct nm_skel_ops *ops);

/*
 * --cleanup: the journals undone; a sockopt record through ts_kick, opened
 * alone from ops' skeleton (NULL: such a record cannot be undone), or
 * where it is refused from userspace (tcpstall/kickfd.h). The exit code.
 */
int ts_act_cleanup(struct nm_opts *o, const struct nm_skel_ops *ops);

#endif
