// SPDX-License-Identifier: GPL-2.0
/*
 * ts_sample_from_diag: tcpstall's sweep without BPF, on synthetic
 * sock_diag records: full and old-kernel (shorter) tcp_info, IPv6, and the
 * causes this rung must never claim (it cannot read the TSQ flags).
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <string.h>
#include <cmocka.h>
#include "tcpstall/judge.h"
#include "lib/sockdiag.h"

#define MS 1000000ULL
#define NETNS 4026532319U

/* The end of field f: a tcp_info that long stops right after it. */
#define INFO_UPTO(f) (offsetof(struct tcp_info, f) + sizeof(((struct tcp_info *)0)->f))

/* A bulk sender as a 6.x kernel reports it (numbers from ss -tmi in the lab). */
static struct nm_diag_sock sender(void)
{
	struct nm_diag_sock d;

	memset(&d, 0, sizeof(d));
	d.family = 2;
	d.state = NM_TCP_ESTABLISHED;
	d.lport = 55500;
	d.rport = 5201;
	memcpy(d.laddr, (uint8_t[]){ 198, 18, 200, 1 }, 4);
	memcpy(d.raddr, (uint8_t[]){ 198, 18, 200, 2 }, 4);
	d.inode = 4242;
	d.info_len = sizeof(d.info);
	d.info.tcpi_state = NM_TCP_ESTABLISHED;
	d.info.tcpi_ca_state = 0;
	d.info.tcpi_snd_mss = 1448;
	d.info.tcpi_unacked = 30;
	d.info.tcpi_snd_cwnd = 34;
	d.info.tcpi_last_data_sent = 4;
	d.info.tcpi_notsent_bytes = 1067176;
	d.info.tcpi_bytes_sent = 15047653;
	d.info.tcpi_bytes_retrans = 0;
	d.info.tcpi_bytes_acked = 15004214;	/* 30 segments less 1: the SYN */
	d.info.tcpi_snd_wnd = 1317888;
	d.meminfo_len = SK_MEMINFO_VARS;
	d.meminfo[SK_MEMINFO_WMEM_ALLOC] = 45104;
	d.meminfo[SK_MEMINFO_SNDBUF] = 1112832;
	d.meminfo[SK_MEMINFO_WMEM_QUEUED] = 1126424;
	d.has_cgroup_id = true;
	d.cgroup_id = 1;
	return d;
}

static void test_full_info(void **state)
{
	(void)state;
	struct nm_diag_sock d = sender();
	struct ts_sample s;
	struct ts_key k;

	ts_sample_from_diag(&d, 1000 * MS, NETNS, &s);
	/* the key as the BPF side builds it: padding and the unused address bytes 0 */
	memset(&k, 0, sizeof(k));
	k.netns = NETNS;
	k.family = 2;
	k.lport = 55500;
	k.rport = 5201;
	memcpy(k.laddr, (uint8_t[]){ 198, 18, 200, 1 }, 4);
	memcpy(k.raddr, (uint8_t[]){ 198, 18, 200, 2 }, 4);
	assert_memory_equal(&s.key, &k, sizeof(k));
	assert_int_equal(s.now_ns, 1000 * MS);
	assert_int_equal(s.state, NM_TCP_ESTABLISHED);
	assert_int_equal(s.unsent, 1067176);
	assert_int_equal(s.packets_out, 30);
	assert_int_equal(s.snd_cwnd, 34);
	assert_int_equal(s.snd_wnd, 1317888);
	assert_int_equal(s.in_flight, 30 * 1448 - 1);
	assert_int_equal(s.mss, 1448);
	assert_int_equal(s.send_age_ms, 4);
	assert_int_equal(s.wmem_alloc, 45105);	/* the refcount: bytes + 1 */
	assert_int_equal(s.wmem_queued, 1126424);
	assert_int_equal(s.sndbuf, 1112832);
	assert_int_equal(s.cgroup_id, 1);
	/* what sock_diag cannot see */
	assert_int_equal(s.tsq_flags, 0);
	assert_int_equal(s.pacing_status, 0);
	assert_int_equal(s.wstamp_ns, 0);
	assert_int_equal(s.nonagle, 0);
	assert_int_equal(s.pid, 0);
	assert_int_equal(s.tsq_mark_ns, 0);
	assert_true(s.truesize1 > 2);	/* more than a pure ACK below TCP */
	/* wmem_queued past sndbuf, as ss showed it (w1126424, tb1112832) */
	assert_int_equal(ts_classify(&s, 10), TS_SNDBUF);
}

static void test_in_flight(void **state)
{
	(void)state;
	struct nm_diag_sock d = sender();
	struct ts_sample s;

	/* a local qdisc dropped two new skbs: bytes_sent drifts up, the segments bound wins */
	d.info.tcpi_unacked = 16;
	d.info.tcpi_bytes_sent = 12067669;
	d.info.tcpi_bytes_acked = 11995270;
	ts_sample_from_diag(&d, 0, NETNS, &s);
	assert_int_equal(s.in_flight, 16 * 1448);
	/* a short tail: the counters are tighter than one MSS per segment */
	d = sender();
	d.info.tcpi_unacked = 3;
	d.info.tcpi_bytes_sent = 100000 + 3000;
	d.info.tcpi_bytes_retrans = 5000;
	d.info.tcpi_bytes_acked = 100000 - 5000 + 1;
	ts_sample_from_diag(&d, 0, NETNS, &s);
	assert_int_equal(s.in_flight, 2999);
	/* only a FIN out, the SYN counted in acked: not below 0 */
	d.info.tcpi_unacked = 1;
	d.info.tcpi_bytes_sent = 5000;
	d.info.tcpi_bytes_retrans = 0;
	d.info.tcpi_bytes_acked = 5001;
	ts_sample_from_diag(&d, 0, NETNS, &s);
	assert_int_equal(s.in_flight, 0);
	/* nothing unacknowledged */
	d = sender();
	d.info.tcpi_unacked = 0;
	ts_sample_from_diag(&d, 0, NETNS, &s);
	assert_int_equal(s.in_flight, 0);
}

/* Fields past info_len are garbage: a short tcp_info must not read them. */
static void poison_tail(struct nm_diag_sock *d)
{
	memset((char *)&d->info + d->info_len, 0xff, sizeof(d->info) - d->info_len);
}

static void test_old_kernel_info(void **state)
{
	(void)state;
	struct nm_diag_sock d = sender();
	struct ts_sample s;

	/* 4.19 to 5.3: byte counters, no tcpi_snd_wnd */
	d.info_len = INFO_UPTO(tcpi_reord_seen);
	poison_tail(&d);
	d.info.tcpi_snd_wnd = 0;	/* past the end: would read as a closed window */
	assert_false(NM_DIAG_HAS(&d, tcpi_snd_wnd));
	assert_true(NM_DIAG_HAS(&d, tcpi_bytes_retrans));
	ts_sample_from_diag(&d, 0, NETNS, &s);
	assert_int_equal(s.snd_wnd, UINT32_MAX);
	assert_int_equal(s.in_flight, 30 * 1448 - 1);
	assert_int_not_equal(ts_classify(&s, 10), TS_RWND);
	/* stalled, the window unknown: the next cause (the full buffer), not rwnd */
	d.info.tcpi_last_data_sent = 500;
	d.info.tcpi_snd_cwnd = 100;
	ts_sample_from_diag(&d, 0, NETNS, &s);
	assert_int_equal(ts_classify(&s, 10), TS_SNDBUF);

	/* 4.10 to 4.18: no byte counters of sent data, one MSS per segment */
	d = sender();
	d.info_len = INFO_UPTO(tcpi_sndbuf_limited);
	poison_tail(&d);
	ts_sample_from_diag(&d, 0, NETNS, &s);
	assert_int_equal(s.in_flight, 30 * 1448);
	assert_int_equal(s.unsent, 1067176);
	assert_int_equal(s.snd_wnd, UINT32_MAX);

	/* before 4.6: no tcpi_notsent_bytes, the unsent data is unknown */
	d = sender();
	d.info_len = INFO_UPTO(tcpi_segs_in);
	poison_tail(&d);
	ts_sample_from_diag(&d, 0, NETNS, &s);
	assert_int_equal(s.unsent, 0);
	assert_int_equal(s.packets_out, 30);

	/* shorter than any kernel's: nothing to send, the sweep drops it */
	d = sender();
	d.info_len = 8;
	poison_tail(&d);
	ts_sample_from_diag(&d, 0, NETNS, &s);
	assert_int_equal(s.unsent, 0);
	assert_int_equal(s.packets_out, 0);
	assert_int_equal(s.key.lport, 55500);
}

static void test_ipv6(void **state)
{
	(void)state;
	static const uint8_t l6[16] = { 0xfd, 0, 0x01, 0x98, 0, 0x18, [15] = 1 };
	static const uint8_t r6[16] = { 0xfd, 0, 0x01, 0x98, 0, 0x18, [15] = 2 };
	struct nm_diag_sock d = sender();
	struct ts_sample s;

	d.family = 10;
	d.lport = 35088;
	d.rport = 5202;
	memcpy(d.laddr, l6, 16);
	memcpy(d.raddr, r6, 16);
	d.info.tcpi_snd_mss = 1428;
	ts_sample_from_diag(&d, 0, NETNS, &s);
	assert_int_equal(s.key.family, 10);
	assert_int_equal(s.key.lport, 35088);
	assert_int_equal(s.key.rport, 5202);
	assert_memory_equal(s.key.laddr, l6, 16);
	assert_memory_equal(s.key.raddr, r6, 16);
	assert_int_equal(s.mss, 1428);
}

static void test_missing_meminfo_and_cgroup(void **state)
{
	(void)state;
	struct nm_diag_sock d = sender();
	struct ts_sample s;

	d.meminfo_len = 0;
	d.has_cgroup_id = false;
	d.cgroup_id = 77;
	d.info.tcpi_last_data_sent = 500;
	d.info.tcpi_snd_cwnd = 100;
	ts_sample_from_diag(&d, 0, NETNS, &s);
	assert_int_equal(s.wmem_alloc, 1);
	assert_int_equal(s.sndbuf, UINT32_MAX);
	assert_int_equal(s.cgroup_id, 0);
	/* an unknown buffer is not a full one */
	assert_int_equal(ts_classify(&s, 10), TS_UNKNOWN);
}

/*
 * The bug's signature (packets out, nothing below TCP, silent) and healthy
 * backpressure (data below TCP) over a grid of states: this rung cannot
 * read sk_tsq_flags, so neither tsq_idle nor host_queue may come out.
 */
static void test_never_tsq_causes(void **state)
{
	(void)state;
	static const uint32_t wmem[] = { 0, 1, 575, 576, 577, 131984, 1 << 24 };
	static const uint32_t age[] = { 0, 9, 10, 40, 5000 };
	static const uint32_t unsent[] = { 0, 100, 1448, 1067176 };
	static const uint32_t pout[] = { 0, 1, 30, 100 };
	struct nm_diag_sock d;
	struct ts_sample s;
	enum ts_state c;
	int n = 0;

	for (size_t w = 0; w < sizeof(wmem) / sizeof(wmem[0]); w++)
		for (size_t a = 0; a < sizeof(age) / sizeof(age[0]); a++)
			for (size_t u = 0; u < sizeof(unsent) / sizeof(unsent[0]); u++)
				for (size_t p = 0; p < sizeof(pout) / sizeof(pout[0]); p++) {
					d = sender();
					d.meminfo[SK_MEMINFO_WMEM_ALLOC] = wmem[w];
					d.info.tcpi_last_data_sent = age[a];
					d.info.tcpi_notsent_bytes = unsent[u];
					d.info.tcpi_unacked = pout[p];
					d.info.tcpi_snd_cwnd = 100;
					ts_sample_from_diag(&d, 0, NETNS, &s);
					c = ts_classify(&s, 10);
					assert_int_not_equal(c, TS_TSQ_IDLE);
					assert_int_not_equal(c, TS_HOST_QUEUE);
					n++;
				}
	assert_int_equal(n, 7 * 5 * 4 * 4);
	/* the same socket with the flags the BPF sweep would read is tsq_idle */
	d = sender();
	d.meminfo[SK_MEMINFO_WMEM_ALLOC] = 0;
	d.info.tcpi_last_data_sent = 40;
	d.info.tcpi_unacked = 10;
	d.info.tcpi_snd_cwnd = 100;
	ts_sample_from_diag(&d, 0, NETNS, &s);
	s.tsq_flags = TS_TSQ_THROTTLED;
	assert_int_equal(ts_classify(&s, 10), TS_TSQ_IDLE);
	/* and with data below TCP, host_queue: truesize1 keeps its meaning */
	s.wmem_alloc = 131985;
	assert_int_equal(ts_classify(&s, 10), TS_HOST_QUEUE);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_full_info),
		cmocka_unit_test(test_in_flight),
		cmocka_unit_test(test_old_kernel_info),
		cmocka_unit_test(test_ipv6),
		cmocka_unit_test(test_missing_meminfo_and_cgroup),
		cmocka_unit_test(test_never_tsq_causes),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
