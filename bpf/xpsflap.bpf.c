// SPDX-License-Identifier: GPL-2.0
/*
 * xpsflap: count, per flow and device, the TX queues a flow is queued on,
 * the switches between them, and the segments that leave the device out of
 * sequence order.
 *
 * Why: an skb that has lost its socket (forwarded through a bridge or a
 * router, or crossing veth) gets its TX queue from the current CPU's XPS
 * map, so one flow follows whichever CPU happens to forward it. Sockets
 * keep a queue until ooo_okay says no packet is in flight; forwarded skbs
 * have no such guard, and the switch reorders the flow.
 *
 * Per packet: one LRU lookup and one per-CPU hash lookup, no events.
 */
#include "vmlinux.h"
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_tracing.h>
#include <bpf/bpf_core_read.h>
#include "common.bpf.h"
#include "flow.bpf.h"
#include "netmedic/xpsflap.h"

/*
 * Bumped by userspace after each report: a flow's switches in the current
 * interval restart from 0 on its first pick of a new epoch, so "flapping
 * now" needs no per-interval reset of the map.
 */
__u32 epoch = 0;

struct {
	__uint(type, BPF_MAP_TYPE_LRU_HASH);
	__uint(max_entries, 65536);	/* --max-flows, resized before load */
	__type(key, struct xf_flow_key);
	__type(value, struct xf_flow);
} flows SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_HASH);
	__uint(max_entries, XF_DEV_STATS_MAX);
	__type(key, struct xf_dev_key);
	__type(value, struct xf_dev_stats);
} dev_stats SEC(".maps");

NM_COUNTERS(XF_CNT_MAX)

/* Fills the key from the device and skb; false when not watched or not IP. */
static __always_inline bool flow_key(const struct sk_buff *skb, const struct net_device *dev,
				     struct xf_flow_key *k, struct nm_flow *f, const bool btf)
{
	k->ifindex = RD(btf, dev, ifindex);
	k->netns = nm_dev_netns_x(dev, btf);
	if (!dev_watched(k->netns, k->ifindex))
		return false;
	if (nm_parse_skb_x(skb, f, btf)) {
		count(XF_CNT_NOT_IP);
		return false;
	}
	k->family = f->family;
	k->proto = f->proto;
	k->sport = f->sport;
	k->dport = f->dport;
	__builtin_memcpy(k->saddr, f->saddr, 16);
	__builtin_memcpy(k->daddr, f->daddr, 16);
	return true;
}

static __always_inline struct xf_dev_stats *dev_stats_get(const struct xf_flow_key *k, __u32 queue)
{
	struct xf_dev_key dk = { .netns = k->netns, .ifindex = k->ifindex, .queue = queue };
	struct xf_dev_stats zero = {}, *ds;

	ds = bpf_map_lookup_elem(&dev_stats, &dk);
	if (ds)
		return ds;
	bpf_map_update_elem(&dev_stats, &dk, &zero, BPF_NOEXIST);
	return bpf_map_lookup_elem(&dev_stats, &dk);
}

static __always_inline struct xf_flow *flow_get(const struct xf_flow_key *k, __u64 now, __u32 queue)
{
	struct xf_flow *fl, init = {};

	fl = bpf_map_lookup_elem(&flows, k);
	if (fl)
		return fl;
	init.first_ns = now;
	init.last_ns = now;
	init.last_queue = queue;
	if (!bpf_map_update_elem(&flows, k, &init, BPF_NOEXIST))
		count(XF_CNT_FLOWS_CREATED);
	fl = bpf_map_lookup_elem(&flows, k);
	if (!fl)
		count(XF_CNT_FLOW_UPDATE_FAIL);
	return fl;
}

/* The queue was just picked for skb on dev: account the pick and any switch. */
static __always_inline void on_pick(const struct sk_buff *skb, const struct net_device *dev,
				    const bool btf)
{
	struct xf_flow_key k = {};
	struct nm_flow f = {};
	struct xf_dev_stats *ds;
	struct xf_flow *fl;
	__u32 queue, segs, prev;
	__u64 now;
	bool sw = false, risky = false;

	if (!flow_key(skb, dev, &k, &f, btf))
		return;
	queue = RD(btf, skb, queue_mapping);
	segs = nm_skb_segs_x(skb, btf);
	now = bpf_ktime_get_ns();
	fl = flow_get(&k, now, queue);
	if (!fl)
		return;

	/* a flow idle for long has no packet left in any queue (drops leak counts) */
	if (now - fl->last_ns > XF_IDLE_RESET_NS)
		__builtin_memset(fl->inflight, 0, sizeof(fl->inflight));
	prev = fl->last_queue;
	if (fl->packets && prev != queue) {
		sw = true;
		risky = fl->inflight[prev & (XF_INFLIGHT_SLOTS - 1)] > 0;
		__sync_fetch_and_add(&fl->switches, 1);
		if (risky)
			__sync_fetch_and_add(&fl->risky_switches, 1);
	}
	if (fl->epoch != epoch) {
		fl->epoch = epoch;
		fl->epoch_switches = 0;
	}
	if (sw)
		fl->epoch_switches++;
	fl->last_queue = queue;
	fl->last_ns = now;
	fl->queues |= 1ULL << (queue < XF_MAX_QUEUE_BIT ? queue : XF_MAX_QUEUE_BIT);
	fl->cpus |= 1ULL << (bpf_get_smp_processor_id() & 63);
	fl->has_sk |= RD(btf, skb, sk) ? XF_SEEN_WITH_SK : XF_SEEN_WITHOUT_SK;
	__sync_fetch_and_add(&fl->inflight[queue & (XF_INFLIGHT_SLOTS - 1)], segs);
	__sync_fetch_and_add(&fl->packets, segs);
	__sync_fetch_and_add(&fl->bytes, RD(btf, skb, len));

	ds = dev_stats_get(&k, queue);
	if (!ds)
		return;
	ds->packets += segs;
	ds->bytes += RD(btf, skb, len);
	if (sw)
		ds->switches++;
	if (risky)
		ds->risky_switches++;
}

/*
 * The driver is handed skb: it left its queue. Release its in-flight count
 * and see whether its data is below what this flow already transmitted.
 */
static __always_inline void on_xmit(const struct sk_buff *skb, const struct net_device *dev,
				    const bool btf)
{
	struct xf_flow_key k = {};
	struct nm_flow f = {};
	struct xf_dev_stats *ds;
	struct xf_flow *fl;
	__u32 queue, segs, slot, end;

	if (!flow_key(skb, dev, &k, &f, btf))
		return;
	fl = bpf_map_lookup_elem(&flows, &k);
	if (!fl) {
		count(XF_CNT_XMIT_NO_FLOW);
		return;
	}
	queue = RD(btf, skb, queue_mapping);
	segs = nm_skb_segs_x(skb, btf);
	slot = queue & (XF_INFLIGHT_SLOTS - 1);
	if (fl->inflight[slot] >= segs)
		__sync_fetch_and_add(&fl->inflight[slot], -segs);
	else
		fl->inflight[slot] = 0;

	if (f.proto != NM_IPPROTO_TCP || !f.payload)
		return;
	end = f.seq + f.payload;
	if (fl->seq_valid && nm_seq_before(f.seq, fl->max_seq_end) && fl->max_seq_queue != queue) {
		__sync_fetch_and_add(&fl->reordered, segs);
		ds = dev_stats_get(&k, queue);
		if (ds)
			ds->reordered += segs;
	}
	if (!fl->seq_valid || nm_seq_before(fl->max_seq_end, end)) {
		fl->max_seq_end = end;
		fl->max_seq_queue = queue;
		fl->seq_valid = 1;
	}
}

/* Rung 1 of pick_tx: the returned queue, where fexit is allowed. */
SEC("fexit/netdev_core_pick_tx")
int BPF_PROG(xf_pick_fexit, struct net_device *dev, struct sk_buff *skb,
	     struct net_device *sb_dev, struct netdev_queue *ret)
{
	on_pick(skb, dev, true);
	return 0;
}

/* Rung 2 of pick_tx: net_dev_queue fires right after the pick. */
SEC("tp_btf/net_dev_queue")
int BPF_PROG(xf_pick_tp, struct sk_buff *skb)
{
	on_pick(skb, skb->dev, true);
	return 0;
}

SEC("tp_btf/net_dev_start_xmit")
int BPF_PROG(xf_xmit_tp, const struct sk_buff *skb, const struct net_device *dev)
{
	on_xmit(skb, dev, true);
	return 0;
}

/* raw_tp rungs: for kernels whose tracepoints cannot be attached as tp_btf. */
SEC("raw_tp/net_dev_queue")
int BPF_PROG(xf_pick_raw, struct sk_buff *skb)
{
	on_pick(skb, BPF_CORE_READ(skb, dev), false);
	return 0;
}

SEC("raw_tp/net_dev_start_xmit")
int BPF_PROG(xf_xmit_raw, const struct sk_buff *skb, const struct net_device *dev)
{
	on_xmit(skb, dev, false);
	return 0;
}

/*
 * --pin, once the device's XPS maps are cleared: the queue becomes a function
 * of the 5-tuple alone. netdev_pick_tx() then falls back to skb_tx_hash(),
 * which takes a non-zero queue_mapping as a recorded RX queue (value - 1).
 * Without this, the socket's txhash would still move the flow on every
 * rehash (RTO), since forwarded skbs carry the sender's hash.
 */
struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, XF_PIN_DEVS);
	__type(key, __u32);	/* ifindex */
	__type(value, __u32);	/* real TX queues */
} pin_devs SEC(".maps");

static __always_inline __u32 mix32(__u32 h)
{
	/* murmur3 finaliser: spreads nearby ports over the queues */
	h ^= h >> 16;
	h *= 0x85ebca6b;
	h ^= h >> 13;
	h *= 0xc2b2ae35;
	h ^= h >> 16;
	return h;
}

SEC("tc")
int xf_pin_tc(struct __sk_buff *skb)
{
	__u32 ifindex = skb->ifindex, h = 0, words[10] = {}, nwords, i;
	__u8 proto, ihl;
	__u32 *nq, l4off, ports = 0;

	nq = bpf_map_lookup_elem(&pin_devs, &ifindex);
	if (!nq || *nq < 2)
		return 0;	/* TC_ACT_OK */
	if (skb->protocol == bpf_htons(NM_ETH_P_IP)) {
		if (bpf_skb_load_bytes_relative(skb, 0, &ihl, 1, BPF_HDR_START_NET) ||
		    bpf_skb_load_bytes_relative(skb, 9, &proto, 1, BPF_HDR_START_NET) ||
		    bpf_skb_load_bytes_relative(skb, 12, words, 8, BPF_HDR_START_NET))
			return 0;
		nwords = 2;
		l4off = (ihl & 0xf) * 4;
	} else if (skb->protocol == bpf_htons(NM_ETH_P_IPV6)) {
		if (bpf_skb_load_bytes_relative(skb, 6, &proto, 1, BPF_HDR_START_NET) ||
		    bpf_skb_load_bytes_relative(skb, 8, words, 32, BPF_HDR_START_NET))
			return 0;
		nwords = 8;
		l4off = 40;
	} else {
		return 0;
	}
	if (proto == NM_IPPROTO_TCP || proto == NM_IPPROTO_UDP)
		bpf_skb_load_bytes_relative(skb, l4off, &ports, 4, BPF_HDR_START_NET);
	words[8] = ports;
	words[9] = proto;
	for (i = 0; i < 10; i++)
		if (i < nwords || i >= 8)
			h = mix32(h ^ words[i]);
	/*
	 * The kernel skips a queue_mapping store whose 64-bit register value
	 * is >= NO_QUEUE_MAPPING: mask so no stale upper bits survive the
	 * 64-bit arithmetic the compiler may use for h.
	 */
	skb->queue_mapping = ((h % *nq) + 1) & 0xffff;
	count(XF_CNT_PINNED);
	return 0;
}

char LICENSE[] SEC("license") = "GPL";
