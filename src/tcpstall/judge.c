// SPDX-License-Identifier: GPL-2.0
#include <arpa/inet.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "tcpstall/judge.h"
#include "lib/sockdiag.h"

#define TCP_NAGLE_OFF	1
#define TCP_NAGLE_CORK	2

const char *const ts_state_names[TS_NSTATES] = {
	[TS_SENDING] = "sending",
	[TS_APP_LIMITED] = "app_limited",
	[TS_RWND] = "rwnd_limited",
	[TS_CWND] = "cwnd_limited",
	[TS_PACING] = "pacing",
	[TS_NAGLE] = "nagle",
	[TS_HOST_QUEUE] = "host_queue",
	[TS_SNDBUF] = "sndbuf_limited",
	[TS_TSQ_IDLE] = "tsq_idle",
	[TS_UNKNOWN] = "unknown",
};

const char *ts_state_name(enum ts_state s)
{
	return s < TS_NSTATES ? ts_state_names[s] : "?";
}

const char *const ts_end_names[TS_END_GONE + 1] = { "none", "sent", "drained", "gone" };

const char *ts_end_name(enum ts_end e)
{
	return e <= TS_END_GONE ? ts_end_names[e] : "?";
}

bool ts_stalled(const struct ts_sample *s, uint32_t stall_ms)
{
	return s->unsent && s->send_age_ms >= stall_ms;
}

static bool rwnd_full(const struct ts_sample *s)
{
	uint32_t next = s->unsent < s->mss ? s->unsent : s->mss;

	return !s->snd_wnd || (uint64_t)s->in_flight + next > s->snd_wnd;
}

static bool nagle_hold(const struct ts_sample *s)
{
	if (!s->mss || s->unsent >= s->mss)
		return false;
	if (s->nonagle & TCP_NAGLE_CORK)
		return true;
	/* Nagle: a short segment waits while anything is unacknowledged */
	return !(s->nonagle & TCP_NAGLE_OFF) && s->packets_out;
}

/*
 * The netdev report's state: tcp_push() set TSQ_THROTTLED after tcp_wfree()
 * had already run, so nothing below TCP will ever clear it; TSQ_QUEUED is
 * clear (no handler pending), unsent data waits for the next ACK.
 */
static bool tsq_idle(const struct ts_sample *s, uint32_t stall_ms)
{
	return (s->tsq_flags & TS_TSQ_THROTTLED) && !(s->tsq_flags & TS_TSQ_QUEUED) &&
	       s->wmem_alloc < s->truesize1 && s->packets_out && s->send_age_ms >= stall_ms;
}

enum ts_state ts_classify(const struct ts_sample *s, uint32_t stall_ms)
{
	if (!s->unsent)
		return TS_APP_LIMITED;
	if (rwnd_full(s))
		return TS_RWND;
	if (s->packets_out >= s->snd_cwnd)
		return TS_CWND;
	if (s->pacing_status && s->wstamp_ns > s->now_ns)
		return TS_PACING;
	if (nagle_hold(s))
		return TS_NAGLE;
	if ((s->tsq_flags & TS_TSQ_THROTTLED) && s->wmem_alloc >= s->truesize1)
		return TS_HOST_QUEUE;
	if (tsq_idle(s, stall_ms))
		return TS_TSQ_IDLE;
	if (s->wmem_queued >= s->sndbuf)
		return TS_SNDBUF;
	return ts_stalled(s, stall_ms) ? TS_UNKNOWN : TS_SENDING;
}

/*
 * SKB_TRUESIZE(1) of 64-bit kernels without debug options: sk_buff (224 to
 * 248 bytes) and skb_shared_info (320, 17 frags), each rounded up to 64,
 * plus 1. sock_diag cannot size the running kernel's structs, and a lower
 * bound keeps the field's meaning: a data skb below TCP adds at least the
 * kernel's own SKB_TRUESIZE(1) to wmem_alloc, a pure ACK 2, so less than
 * this is still "no data below TCP".
 */
#define TS_DIAG_TRUESIZE1	577

static uint32_t clamp_u32(uint64_t v)
{
	return v > UINT32_MAX ? UINT32_MAX : (uint32_t)v;
}

/*
 * snd_nxt - snd_una in bytes, which tcp_info does not give. Two upper
 * bounds, the smaller wins:
 * - one MSS per unacknowledged segment (a short tail is less);
 * - the byte counters (4.19+): data sent for the first time (bytes_sent
 *   counts every transmit, bytes_retrans the repeats) less the data
 *   acknowledged. bytes_sent also counts a new skb that a local qdisc
 *   dropped (it is sent again later), so it drifts up for good after such
 *   drops; the active opener's bytes_acked counts its SYN (one byte short).
 */
static uint32_t diag_in_flight(const struct nm_diag_sock *d)
{
	const struct tcp_info *ti = &d->info;
	uint64_t segs = (uint64_t)ti->tcpi_unacked * ti->tcpi_snd_mss, fresh, bytes;

	if (!ti->tcpi_unacked)
		return 0;
	if (!NM_DIAG_HAS(d, tcpi_bytes_retrans))
		return clamp_u32(segs);
	fresh = ti->tcpi_bytes_sent - ti->tcpi_bytes_retrans;
	/* only a FIN out, with the SYN in acked: acked passes sent */
	bytes = fresh > ti->tcpi_bytes_acked ? fresh - ti->tcpi_bytes_acked : 0;
	return clamp_u32(bytes < segs ? bytes : segs);
}

/* One SK_MEMINFO_* entry, or unknown when the kernel gave fewer. */
static uint32_t diag_mem(const struct nm_diag_sock *d, unsigned int i, uint32_t unknown)
{
	return i < d->meminfo_len ? d->meminfo[i] : unknown;
}

/*
 * What sock_diag cannot see, and what the sample says instead:
 * - tsq_flags 0: sk_tsq_flags is not exported. So this rung never calls a
 *   socket host_queue or tsq_idle (both need TSQ_THROTTLED): such a socket
 *   shows as cwnd/rwnd/sndbuf limited when it is, else unknown once stalled.
 * - truesize1: a lower bound of SKB_TRUESIZE(1) (TS_DIAG_TRUESIZE1), not 0,
 *   which would say that something is below TCP whatever wmem_alloc says.
 * - pacing_status and wstamp_ns 0: tcpi_pacing_rate is there, the earliest
 *   departure time is not, so pacing is never detected.
 * - nonagle 0: TCP_NODELAY and TCP_CORK are not exported; 0 is the default
 *   (Nagle on), so a short tail of a TCP_NODELAY socket with packets out
 *   may be called nagle.
 * - snd_wnd: tcpi_snd_wnd is 5.4+; before that UINT32_MAX, a window that is
 *   never full, so that no rwnd_limited is made up.
 * - in_flight: an upper bound from the segments and byte counters
 *   (diag_in_flight()).
 * - unsent: tcpi_notsent_bytes (4.6+, else 0: only sockets with packets
 *   out are seen, and none of them stalled).
 * - pid, comm, tsq_mark_ns 0: the BPF hooks fill them.
 * The fields of the first tcp_info (up to tcpi_total_retrans) are in every
 * kernel's; without them the sample has nothing to send and is dropped.
 */
void ts_sample_from_diag(const struct nm_diag_sock *d, uint64_t now_ns, uint32_t netns_ino,
			 struct ts_sample *s)
{
	const struct tcp_info *ti = &d->info;

	/* the key is a hash key: its padding must be 0 */
	memset(s, 0, sizeof(*s));
	s->key.netns = netns_ino;
	s->key.family = d->family;
	s->key.lport = d->lport;
	s->key.rport = d->rport;
	memcpy(s->key.laddr, d->laddr, sizeof(s->key.laddr));
	memcpy(s->key.raddr, d->raddr, sizeof(s->key.raddr));
	s->now_ns = now_ns;
	s->state = d->state;
	s->cgroup_id = d->has_cgroup_id ? d->cgroup_id : 0;
	s->truesize1 = TS_DIAG_TRUESIZE1;
	/* SK_MEMINFO_WMEM_ALLOC is sk_wmem_alloc_get(): less the 1 the sweep counts */
	s->wmem_alloc = diag_mem(d, SK_MEMINFO_WMEM_ALLOC, 0) + 1;
	s->wmem_queued = diag_mem(d, SK_MEMINFO_WMEM_QUEUED, 0);
	/* unknown: a buffer that is never full, so that no sndbuf_limited is made up */
	s->sndbuf = diag_mem(d, SK_MEMINFO_SNDBUF, UINT32_MAX);
	s->snd_wnd = UINT32_MAX;
	if (!NM_DIAG_HAS(d, tcpi_total_retrans))
		return;
	s->ca_state = ti->tcpi_ca_state;
	s->packets_out = ti->tcpi_unacked;
	s->snd_cwnd = ti->tcpi_snd_cwnd;
	s->mss = ti->tcpi_snd_mss;
	s->send_age_ms = ti->tcpi_last_data_sent;
	s->in_flight = diag_in_flight(d);
	if (NM_DIAG_HAS(d, tcpi_notsent_bytes))
		s->unsent = ti->tcpi_notsent_bytes;
	if (NM_DIAG_HAS(d, tcpi_snd_wnd))
		s->snd_wnd = ti->tcpi_snd_wnd;
}

/* Counts one ended stall of st, from start to end, of st->cause. */
static void stall_count(struct ts_sock *st, uint64_t start, uint64_t end, enum ts_end how,
			struct ts_totals *tot, uint64_t *ended_ns)
{
	uint64_t d = end > start ? end - start : 0;

	st->stalls++;
	st->stall_ns_total += d;
	if (d > st->stall_ns_max)
		st->stall_ns_max = d;
	st->end = how;
	st->last_start_ns = start;
	st->last_end_ns = end > start ? end : start;
	if (tot && st->cause < TS_NSTATES) {
		tot->stalls[st->cause]++;
		tot->stall_ns[st->cause] += d;
		tot->hist_us[st->cause][nm_hist_slot(d / 1000)]++;
	}
	*ended_ns = d;
}

/* The open stall ends at now_ns. */
static void stall_end(struct ts_sock *st, uint64_t now_ns, enum ts_end end, struct ts_totals *tot,
		      uint64_t *ended_ns)
{
	stall_count(st, st->stall_start_ns, now_ns, end, tot, ended_ns);
	st->stall_start_ns = 0;
}

bool ts_track(struct ts_sock *st, const struct ts_sample *s, uint32_t stall_ms, uint64_t sweep,
	      struct ts_totals *tot, uint64_t *ended_ns)
{
	bool stalled = ts_stalled(s, stall_ms);
	uint64_t start = s->now_ns - (uint64_t)s->send_age_ms * 1000000;

	/* fexit/tcp_push saw the moment it went idle: better than lsndtime */
	if (s->tsq_mark_ns && s->tsq_mark_ns <= s->now_ns && ts_classify(s, stall_ms) == TS_TSQ_IDLE)
		start = s->tsq_mark_ns;

	bool ended = false;

	st->seen_sweep = sweep;
	st->last = *s;
	if (stalled) {
		/*
		 * It transmitted between two sweeps and stalled again: the old
		 * stall ended at that transmit at the latest.
		 */
		if (st->stall_start_ns && start > st->stall_start_ns + (uint64_t)stall_ms * 1000000) {
			stall_end(st, start, TS_END_SENT, tot, ended_ns);
			ended = true;
		}
		if (!st->stall_start_ns)
			st->stall_start_ns = start;
		st->cause = ts_classify(s, stall_ms);
		return ended;
	}
	if (!st->stall_start_ns)
		return false;
	/* transmitting again: the stall ended when it last sent */
	stall_end(st, start > st->stall_start_ns ? start : s->now_ns, s->unsent ? TS_END_SENT : TS_END_DRAINED,
		  tot, ended_ns);
	return true;
}

bool ts_track_episode(struct ts_sock *st, uint64_t start_ns, uint64_t end_ns, struct ts_totals *tot,
		      uint64_t *ended_ns)
{
	if (end_ns <= start_ns)
		return false;
	if (st->stall_start_ns && st->stall_start_ns <= end_ns) {
		st->cause = TS_TSQ_IDLE;
		if (start_ns < st->stall_start_ns)
			st->stall_start_ns = start_ns;
		stall_end(st, end_ns, TS_END_SENT, tot, ended_ns);
		return true;
	}
	if (st->stalls && st->last_start_ns <= end_ns && st->last_end_ns >= start_ns)
		return false;
	if (st->stall_start_ns) {
		/* a later stall is open: count this one beside it, leave that one alone */
		uint8_t cause = st->cause, how = st->end;

		st->cause = TS_TSQ_IDLE;
		stall_count(st, start_ns, end_ns, TS_END_SENT, tot, ended_ns);
		st->cause = cause;
		st->end = how;
		return true;
	}
	st->cause = TS_TSQ_IDLE;
	stall_count(st, start_ns, end_ns, TS_END_SENT, tot, ended_ns);
	return true;
}

bool ts_mark_stale(uint64_t start_ns, const struct ts_sock *s, uint64_t sweep, uint64_t now_ns)
{
	return now_ns > start_ns + TS_EPISODE_FORGET_NS && (!s || s->seen_sweep != sweep);
}

bool ts_track_gone(struct ts_sock *st, uint64_t now_ns, enum ts_end end, struct ts_totals *tot,
		   uint64_t *ended_ns)
{
	if (!st->stall_start_ns)
		return false;
	stall_end(st, now_ns, end, tot, ended_ns);
	return true;
}

void ts_acks_delta(const struct ts_acks *a, const struct ts_acks *b, struct ts_acks *out)
{
	/* counters only grow, from 0 at each claim of the slot: a new claim is all new */
	bool reset = b->gen != a->gen || b->segs_in < a->segs_in || b->acks_out < a->acks_out;

	*out = *b;
	if (reset)
		return;
	out->acks_out -= a->acks_out;
	out->acks_owned -= a->acks_owned;
	out->acks_quickack_route -= a->acks_quickack_route;
	out->acks_quick_mode -= a->acks_quick_mode;
	out->segs_in -= a->segs_in;
	out->segs_owned -= a->segs_owned;
	out->backlog_drops -= a->backlog_drops;
}

void ts_judge_acks(const struct ts_acks *d, uint8_t defer, const struct ts_storm_cfg *cfg,
		   struct ts_storm *out)
{
	memset(out, 0, sizeof(*out));
	out->acks_per_seg = d->segs_in ? (double)d->acks_out / d->segs_in : 0;
	out->owned_ratio = d->segs_owned ? (double)d->acks_owned / d->segs_owned : 0;
	out->storm = d->segs_in >= cfg->min_segs && out->acks_per_seg >= cfg->min_acks_per_seg &&
		     d->segs_owned && out->owned_ratio >= cfg->min_owned_ratio;
	/* causes are read from the kernel; they are named whether or not it storms */
	if (d->acks_quickack_route)
		out->causes[out->ncauses++] = "quickack_route";
	if (defer == 0)
		out->causes[out->ncauses++] = "backlog_ack_defer_off";
	else if (defer == TS_DEFER_ABSENT)
		out->causes[out->ncauses++] = "no_backlog_ack_defer";
	if (!d->acks_quickack_route && d->acks_out && d->acks_quick_mode * 2 > d->acks_out)
		out->causes[out->ncauses++] = "quickack_mode";
}

void ts_judge_placement(const struct ts_acks *d, uint32_t epoch, uint64_t min_segs,
			struct ts_placement *out)
{
	memset(out, 0, sizeof(*out));
	if (d->epoch == epoch) {
		out->softirq_cpus = d->softirq_cpus;
		out->app_cpus = d->app_cpus;
	}
	out->backlog_share = d->segs_in ? (double)d->segs_owned / d->segs_in : 0;
	out->busy = d->segs_in >= min_segs;
	if (!out->busy)
		return;
	out->cross_cpu = out->softirq_cpus && out->app_cpus && !(out->softirq_cpus & out->app_cpus);
	out->split_softirq = __builtin_popcountll(out->softirq_cpus) >= 2;
}

uint64_t ts_sweep_wait_ns(uint64_t period_ns, uint64_t took_ns, bool scheduled_full)
{
	uint64_t budget = took_ns * (100 - TS_SWEEP_BUDGET_PCT) / TS_SWEEP_BUDGET_PCT;

	if (scheduled_full || budget <= period_ns)
		return period_ns;
	return budget;
}

/* ---- --fix=kick ---- */

bool ts_kick_wanted(enum ts_state state, uint64_t stall_ns, uint64_t kicked_stall_ns,
		    uint64_t last_kick_ns, uint64_t now_ns, unsigned int queued,
		    const struct ts_kick_cfg *cfg)
{
	bool target = state == TS_TSQ_IDLE || (cfg->any_state && state != TS_APP_LIMITED);

	if (!target || queued >= cfg->batch)
		return false;
	if (stall_ns && stall_ns != kicked_stall_ns)
		return true;
	return !last_kick_ns || now_ns < last_kick_ns || now_ns - last_kick_ns >= cfg->gap_ns;
}

const char *ts_kick_result_name(enum ts_kick_result r)
{
	static const char *const n[TS_KICK_NRESULTS] = { "done", "failed", "skipped" };

	return r < TS_KICK_NRESULTS ? n[r] : "?";
}

enum ts_kick_result ts_kick_result(const struct ts_kick *k)
{
	switch (k->step) {
	case TS_KICK_STEP_DONE:
		return TS_KICK_DONE;
	case TS_KICK_STEP_NONE:
	case TS_KICK_STEP_CHANGED:
		return TS_KICK_SKIPPED;
	default:
		return TS_KICK_FAILED;
	}
}

void ts_kick_record(const struct ts_key *k, int nodelay, char bufs[TS_KICK_FIELDS][64],
		    const char *fields[TS_KICK_FIELDS + 1])
{
	int af = k->family == NM_AF_INET6 ? AF_INET6 : AF_INET;

	snprintf(bufs[0], 64, "tcp");
	snprintf(bufs[1], 64, "%u", k->netns);
	snprintf(bufs[2], 64, "%d", af == AF_INET6 ? 6 : 4);
	if (!inet_ntop(af, k->laddr, bufs[3], 64))
		snprintf(bufs[3], 64, "?");
	snprintf(bufs[4], 64, "%u", k->lport);
	if (!inet_ntop(af, k->raddr, bufs[5], 64))
		snprintf(bufs[5], 64, "?");
	snprintf(bufs[6], 64, "%u", k->rport);
	snprintf(bufs[7], 64, "TCP_NODELAY");
	snprintf(bufs[8], 64, "%d", nodelay);
	for (int i = 0; i < TS_KICK_FIELDS; i++)
		fields[i] = bufs[i];
	fields[TS_KICK_FIELDS] = NULL;
}

/* A decimal field within [0, max]. */
static int field_num(const char *s, unsigned long max, unsigned long *v)
{
	char *end;

	if (!*s || *s == '-')
		return -1;
	errno = 0;
	*v = strtoul(s, &end, 10);
	return errno || *end || *v > max ? -1 : 0;
}

int ts_kick_parse(const char *const *f, int nf, struct ts_key *k, int *nodelay)
{
	unsigned long netns, fam, lport, rport, nd;
	int af;

	memset(k, 0, sizeof(*k));
	if (nf != TS_KICK_FIELDS || strcmp(f[0], "tcp") || strcmp(f[7], "TCP_NODELAY") ||
	    field_num(f[1], UINT32_MAX, &netns) || field_num(f[2], 6, &fam) ||
	    (fam != 4 && fam != 6) || field_num(f[4], 65535, &lport) ||
	    field_num(f[6], 65535, &rport) || field_num(f[8], 1, &nd))
		return -EBADMSG;
	af = fam == 6 ? AF_INET6 : AF_INET;
	if (inet_pton(af, f[3], k->laddr) != 1 || inet_pton(af, f[5], k->raddr) != 1)
		return -EBADMSG;
	k->netns = netns;
	k->family = fam == 6 ? NM_AF_INET6 : NM_AF_INET;
	k->lport = lport;
	k->rport = rport;
	*nodelay = nd;
	return 0;
}

/* Splits an `ip route show` line into argv for `ip route replace`, without
 * the flags ip prints but does not take back, and with or without quickack. */
int ts_route_argv(char *line, const char **argv, bool keep_quickack)
{
	static const char *const flags[] = { "linkdown", "dead", "offload", "trap", "rt_offload",
					     "rt_trap", "offload_failed", "rt_offload_failed" };
	char *save, *w;
	int n = 0;

	argv[n++] = "ip";
	argv[n++] = "route";
	argv[n++] = "replace";
	for (w = strtok_r(line, " \t\n", &save); w && n < TS_ROUTE_WORDS - 2;
	     w = strtok_r(NULL, " \t\n", &save)) {
		bool skip = false;

		for (size_t i = 0; i < sizeof(flags) / sizeof(flags[0]); i++)
			skip |= !strcmp(w, flags[i]);
		if (!keep_quickack && !strcmp(w, "quickack")) {
			strtok_r(NULL, " \t\n", &save);	/* its value */
			continue;
		}
		if (!skip)
			argv[n++] = w;
	}
	argv[n] = NULL;
	return n;
}
