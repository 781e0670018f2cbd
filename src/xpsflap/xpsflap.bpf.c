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
 * Per packet: a direct-mapped slot of an array, found through an index of
 * skb->hash (the verifier inlines array lookups: no hash map, no helper
 * call), a parse only on an index miss; no events; per-queue totals go to a
 * per-CPU array.
 */
#include "vmlinux.h"
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_tracing.h>
#include <bpf/bpf_core_read.h>
#include "common.bpf.h"
#include "flow.bpf.h"
#include "xpsflap/xpsflap.h"

/*
 * Bumped by userspace after each report: a flow's switches in the current
 * interval restart from 0 on its first pick of a new epoch, so "flapping
 * now" needs no per-interval reset of the map.
 */
__u32 xf_epoch = 0;

/* --max-flows - 1: the table size is a power of two */
const volatile __u32 xf_flow_mask = 65535;

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(map_flags, BPF_F_MMAPABLE);	/* userspace reads it in place */
	__uint(max_entries, 65536);		/* --max-flows, resized before load */
	__type(key, __u32);
	__type(value, struct xf_slot);
} flows SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, XF_DEV_SLOTS);
	__type(key, struct xf_dev_id);
	__type(value, __u32);			/* slot in dev_stats */
} devs SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, XF_DEV_SLOTS * XF_DEV_QUEUES);
	__type(key, __u32);
	__type(value, struct xf_dev_stats);
} dev_stats SEC(".maps");

/*
 * skb->hash (and ifindex) -> the flow's slot: finds the flow of an skb that
 * carries a hash with no parse at all. The slot's own hash and device are
 * checked; a miss (no hash, a new flow, a rehash) takes the parse and mends
 * the index. Two flows of one device with one 32-bit hash would be counted
 * as one.
 */
struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, 65536);		/* as flows */
	__type(key, __u32);
	__type(value, __u32);
} hidx SEC(".maps");

/*
 * Slots given out so far: where the next search for a never used slot
 * starts. A hint, written plainly: dev_slots_taken decides (dev_slot_new).
 */
__u32 dev_slots_used = 0;

/* the slots ever given out: a slot is the CPU's whose insert made its key */
struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, XF_DEV_SLOTS);
	__type(key, __u32);
	__type(value, __u32);
} dev_slots_taken SEC(".maps");

/* ... and those userspace gave back since (their device went) */
struct {
	__uint(type, BPF_MAP_TYPE_QUEUE);
	__uint(max_entries, XF_DEV_SLOTS);
	__type(value, __u32);
} free_dev_slots SEC(".maps");

NM_COUNTERS(xf, XF_CNT_MAX)
/* xf_claims: a flow slot is filled by one CPU at a time (flow_claim) */
NM_CLAIMS(xf)

/*
 * The flow's tuple from the skb; false when the device is not watched (its
 * --dev filter, else the scope's netns) or the skb is not IP. The device's
 * netns and ifindex are read only with a filter: a slot names its device
 * by address, and they are filled in when a slot is claimed. A flow out of
 * scope never gets a slot, so its skbs stop here, before the parse (the
 * hash index has nothing for them).
 */
static __always_inline bool flow_key(const struct sk_buff *skb, const struct net_device *dev,
				     struct xf_flow_key *k, struct nm_flow *f, const bool btf)
{
	if (targ_ndevs) {
		k->ifindex = RD(btf, dev, ifindex);
		k->netns = nm_dev_netns_x(dev, btf);
		if (!dev_watched(k->netns, k->ifindex))
			return false;
	} else if (targ_nscope) {
		k->netns = nm_dev_netns_x(dev, btf);
		if (!netns_in_scope(k->netns)) {
			xf_count(XF_CNT_OUT_OF_SCOPE);
			return false;
		}
	}
	if (nm_parse_skb_x(skb, f, btf)) {
		xf_count(XF_CNT_NOT_IP);
		return false;
	}
	xf_count(XF_CNT_PARSED);
	k->family = f->family;
	k->proto = f->proto;
	k->sport = f->sport;
	k->dport = f->dport;
	__builtin_memcpy(k->saddr, f->saddr, 16);
	__builtin_memcpy(k->daddr, f->daddr, 16);
	return true;
}

/* The tuple part of two keys (everything after netns and ifindex), as 5 words. */
static __always_inline bool tuple_eq(const struct xf_flow_key *a, const struct xf_flow_key *b)
{
	const __u64 *x = (const __u64 *)&a->family, *y = (const __u64 *)&b->family;

	return x[0] == y[0] && x[1] == y[1] && x[2] == y[2] && x[3] == y[3] && x[4] == y[4];
}

/*
 * The flow's first slot. The device's address is what a slot compares, but
 * the verifier allows no arithmetic on a kernel pointer: its ifindex and
 * netns (dev_id) go into the hash instead.
 */
static __always_inline __u32 flow_index(const struct xf_flow_key *k, __u32 dev_id)
{
	const __u32 *s = (const __u32 *)k->saddr, *d = (const __u32 *)k->daddr;
	__u32 h = dev_id ^ ((__u32)k->sport << 16 | k->dport) ^ k->proto;

	h ^= nm_mix32(s[0] ^ s[1] ^ s[2] ^ s[3]);
	h ^= d[0] ^ d[1] ^ d[2] ^ d[3];
	return nm_mix32(h) & xf_flow_mask;
}

/*
 * A never used slot of per-queue totals, or XF_DEV_SLOTS when all were
 * given out. Not a fetch-and-add of a counter (5.12, common.bpf.h): the
 * first slot from the hint on whose key this CPU inserts is its own; two
 * CPUs that read the same hint try the next one. New devices only.
 */
static __always_inline __u32 dev_slot_new(void)
{
	__u32 n = dev_slots_used, one = 1;

#pragma clang loop unroll(disable)
	for (__u32 i = 0; i < XF_DEV_SLOTS; i++, n++) {
		if (n >= XF_DEV_SLOTS)
			break;
		if (!bpf_map_update_elem(&dev_slots_taken, &n, &one, BPF_NOEXIST)) {
			dev_slots_used = n + 1;
			return n;
		}
	}
	return XF_DEV_SLOTS;
}

/*
 * The device's slot of per-queue totals, given out on first use: one given
 * back first (userspace empties the slot of a device that went, then
 * pushes it), else the next never used.
 */
static __always_inline __u32 dev_slot_get(__u32 netns, __u32 ifindex)
{
	struct xf_dev_id id = { .netns = netns, .ifindex = ifindex };
	__u32 *v = bpf_map_lookup_elem(&devs, &id), n;

	if (v)
		return *v;
	if (bpf_map_pop_elem(&free_dev_slots, &n)) {
		n = dev_slot_new();
		if (n >= XF_DEV_SLOTS) {
			xf_count(XF_CNT_DEVS_FULL);
			return XF_NO_DEV_SLOT;
		}
	}
	if (n < XF_DEV_SLOTS && !bpf_map_update_elem(&devs, &id, &n, BPF_NOEXIST))
		return n;
	/* another CPU gave it one meanwhile (or devs is full): slot n goes back */
	if (n < XF_DEV_SLOTS)
		bpf_map_push_elem(&free_dev_slots, &n, 0);
	v = bpf_map_lookup_elem(&devs, &id);
	return v ? *v : XF_NO_DEV_SLOT;
}

static __always_inline struct xf_dev_stats *dev_stats_get(const struct xf_slot *s, __u32 queue)
{
	__u32 i;

	if (s->dev_slot >= XF_DEV_SLOTS)
		return NULL;
	i = s->dev_slot * XF_DEV_QUEUES + (queue < XF_DEV_QUEUES ? queue : XF_DEV_QUEUES - 1);
	return bpf_map_lookup_elem(&dev_stats, &i);
}

/*
 * The flow leaves queue (a switch, or its slot goes to another flow): what
 * it queued there since it last left one goes into the queue's totals.
 * Until then userspace adds it from the flow (packets - packets_flushed),
 * so the common pick does not touch the per-CPU totals.
 */
static __always_inline void queue_flush(struct xf_slot *s, __u32 queue)
{
	struct xf_flow *fl = &s->val;
	struct xf_dev_stats *ds = dev_stats_get(s, queue);

	if (ds) {
		ds->packets += fl->packets - fl->packets_flushed;
		ds->bytes += fl->bytes - fl->bytes_flushed;
	}
	fl->packets_flushed = fl->packets;
	fl->bytes_flushed = fl->bytes;
}

/* A free slot, or one whose flow was not picked in this interval or the one before. */
static __always_inline bool slot_claimable(const struct xf_slot *s)
{
	__u64 dev = s->val.dev;

	return dev == XF_SLOT_FREE || (dev != XF_SLOT_BUSY && s->val.epoch + 1 < xf_epoch);
}

/*
 * Slot idx becomes the new flow's. One CPU at a time claims it (xf_claims,
 * in place of a compare-and-swap, common.bpf.h), and only if it is still
 * claimable then: another CPU may have given it to another flow of the
 * same device since flow_find looked. dev is BUSY while the slot is
 * filled, so no reader takes it for the old flow or the new one, and is
 * published last. Userspace frees a slot of a gone device by its own
 * compare-and-swap on dev: if the claim overwrites that, the slot is
 * simply taken.
 */
static __always_inline struct xf_slot *flow_claim(struct xf_slot *s, __u32 idx, struct xf_flow_key *k,
						  const struct net_device *dev, __u32 queue,
						  const bool btf)
{
	__u64 old;

	if (!xf_claim_take(idx))
		return NULL;
	if (!slot_claimable(s)) {
		xf_claim_drop(idx);
		return NULL;
	}
	old = s->val.dev;
	s->val.dev = XF_SLOT_BUSY;
	if (old != XF_SLOT_FREE) {
		xf_count(XF_CNT_EVICTED);
		queue_flush(s, s->val.last_queue);
	}
	s->key = *k;
	/* all but dev, which stays BUSY: the old flow's hash no longer leads here */
	__builtin_memset((char *)&s->val + sizeof(s->val.dev), 0, sizeof(s->val) - sizeof(s->val.dev));
	s->val.first_ns = bpf_ktime_get_ns();
	s->val.last_ns = s->val.first_ns;
	s->val.last_queue = queue;
	s->val.epoch = xf_epoch;
	s->dev_slot = dev_slot_get(k->netns, k->ifindex);
	xf_count(XF_CNT_FLOWS_CREATED);
	/* the address as a value: privileged programs may store pointers */
	s->val.dev = (__u64)dev;
	xf_claim_drop(idx);
	return s;
}

/* The flow's slot: its own of the two, else (create) a claimed one. */
static __always_inline struct xf_slot *flow_find(struct xf_flow_key *k, const struct net_device *dev,
						 bool create, __u32 queue, __u32 *idx, const bool btf)
{
	__u32 i0, i1;
	struct xf_slot *a, *b;

	if (!targ_ndevs) {
		k->ifindex = RD(btf, dev, ifindex);
		k->netns = nm_dev_netns_x(dev, btf);
	}
	i0 = flow_index(k, k->ifindex ^ k->netns);
	i1 = i0 ^ 1;
	a = bpf_map_lookup_elem(&flows, &i0);
	if (!a)
		return NULL;
	*idx = i0;
	if (a->val.dev == (__u64)dev && tuple_eq(&a->key, k))
		return a;
	b = bpf_map_lookup_elem(&flows, &i1);
	if (!b)
		return NULL;
	*idx = i1;
	if (b->val.dev == (__u64)dev && tuple_eq(&b->key, k))
		return b;
	if (!create)
		return NULL;
	*idx = i0;
	if (slot_claimable(a))
		return flow_claim(a, i0, k, dev, queue, btf);
	*idx = i1;
	if (slot_claimable(b))
		return flow_claim(b, i1, k, dev, queue, btf);
	xf_count(XF_CNT_UNTRACKED);
	return NULL;
}

/*
 * A flow's hash-index entry is per device: an ACK keeps its skb->hash
 * through veths and a bridge, and devices in two netns often share an
 * ifindex, so the netns goes in too (else the two devices would take the
 * entry from each other on every packet, and every packet would parse).
 */
static __always_inline __u32 hidx_index(__u32 hash, const struct net_device *dev, const bool btf)
{
	return (hash ^ nm_mix32(RD(btf, dev, ifindex) ^ nm_dev_netns_x(dev, btf))) & xf_flow_mask;
}

/* The flow of an skb with a hash, through the hash index: no parse. */
static __always_inline struct xf_slot *flow_by_hash(__u32 hash, const struct net_device *dev,
						    const bool btf)
{
	__u32 hi, *si;
	struct xf_slot *s;

	if (!hash)
		return NULL;
	hi = hidx_index(hash, dev, btf);
	si = bpf_map_lookup_elem(&hidx, &hi);
	if (!si)
		return NULL;
	s = bpf_map_lookup_elem(&flows, si);
	if (!s || s->val.dev != (__u64)dev || s->val.hash != hash)
		return NULL;
	return s;
}

/* After a parse found the flow's slot: the index points there for this hash. */
static __always_inline void hidx_set(struct xf_slot *s, __u32 idx, __u32 hash,
				     const struct net_device *dev, const struct nm_flow *f,
				     const bool btf)
{
	__u32 hi, *si;

	if ((f->proto == NM_IPPROTO_TCP || f->proto == NM_IPPROTO_UDP) &&
	    (f->payload || !s->val.hdr_ok)) {
		s->val.hdrlen = f->hdrlen;
		if (f->payload && !s->val.hdr_ok)
			s->val.hdr_ok = 1;
	}
	if (!hash)
		return;
	hi = hidx_index(hash, dev, btf);
	si = bpf_map_lookup_elem(&hidx, &hi);
	if (si && *si != idx)
		*si = idx;
	if (s->val.hash != hash)
		s->val.hash = hash;
}

/*
 * The flow the hash index found can give skb's payload without a parse:
 * its header length came from a data skb, or skb is no longer than the
 * header it knows (a pure ACK after the SYN).
 */
static __always_inline bool hdr_known(const struct xf_slot *s, __u32 len)
{
	return s->val.hdr_ok || len <= s->val.hdrlen;
}

/* TCP/UDP payload of skb from the header length its flow's last parse saw */
static __always_inline __u32 payload_of(const struct xf_slot *s, __u32 len)
{
	if (s->key.proto != NM_IPPROTO_TCP && s->key.proto != NM_IPPROTO_UDP)
		return 0;
	return len > s->val.hdrlen ? len - s->val.hdrlen : 0;
}

/*
 * A risky switch: the old queue still holds the flow's bytes, so segments
 * of the new queue may leave before them. Transmit tracks the sequence
 * from here; the highest sequence it kept before is stale (not tracked
 * while no window was open), so it starts again.
 */
static __always_inline void watch_open(struct xf_flow *fl)
{
	__u32 w = fl->watch;

	if (!w)
		fl->seq_valid = 0;
	fl->watch = w + 1 ? w + 1 : 1;
}

/* Nothing of the flow is in flight on a queue other than its current one. */
static __always_inline bool others_drained(const struct xf_flow *fl)
{
	__u32 cur = fl->last_queue & (XF_INFLIGHT_SLOTS - 1);

	for (__u32 i = 0; i < XF_INFLIGHT_SLOTS; i++)
		if (i != cur && fl->inflight[i])
			return false;
	return true;
}

/*
 * A device with one TX queue in use cannot flap: its packets cost this load
 * and a counter, nothing else. Most hosts' veths (containers) are such
 * devices. real_num_tx_queues sits in the TX path's hot fields of the device.
 */
static __always_inline bool one_queue(const struct net_device *dev, const bool btf)
{
	return RD(btf, dev, real_num_tx_queues) < 2;
}

/*
 * The queue was just picked for skb on dev: account the pick and any switch.
 * Only the in-flight count is atomic: pick and transmit of one flow run on
 * different CPUs. The other per-flow xf_counters are plain adds, exact unless
 * two CPUs pick for the same flow in the same instant. Per-queue totals are
 * per CPU: a switch counts there, and the flow's packets and bytes reach
 * them when it leaves the queue (queue_flush).
 */
static __always_inline void xf_on_pick(const struct sk_buff *skb, const struct net_device *dev,
				    const bool btf, const bool cast)
{
	struct xf_flow_key k = {};
	struct nm_flow f = {};
	struct xf_dev_stats *ds;
	struct xf_slot *s;
	struct xf_flow *fl;
	__u32 queue, segs, prev, len, hash, idx = 0, payload;
	bool risky = false;
	__u8 seen;

	if (one_queue(dev, btf)) {
		xf_count(XF_CNT_ONE_QUEUE);
		return;
	}
	queue = RD(btf, skb, queue_mapping);
	len = RD(btf, skb, len);
	hash = RD(btf, skb, hash);
	s = flow_by_hash(hash, dev, btf);
	if (s && hdr_known(s, len)) {
		payload = payload_of(s, len);
	} else {
		if (!flow_key(skb, dev, &k, &f, btf))
			return;
		s = flow_find(&k, dev, true, queue, &idx, btf);
		if (!s)
			return;
		hidx_set(s, idx, hash, dev, &f, btf);
		payload = f.payload;
	}
	fl = &s->val;
	/* only non-linear skbs can be GSO; gso_segs is past the skb (skb_shinfo) */
	if (!RD(btf, skb, data_len))
		segs = 1;
	else
		segs = cast ? nm_skb_segs_cast(skb) : nm_skb_segs_x(skb, btf);

	if (fl->epoch != xf_epoch) {
		/* idle a whole interval: nothing left in any queue (drops leak counts) */
		if (fl->epoch + 1 < xf_epoch) {
			__builtin_memset(fl->inflight, 0, sizeof(fl->inflight));
			fl->watch = 0;
		}
		fl->epoch = xf_epoch;
		fl->epoch_switches = 0;
		fl->last_ns = bpf_ktime_get_ns();
		/* refused a slot when all were taken: one may have been given back since */
		if (s->dev_slot == XF_NO_DEV_SLOT)
			s->dev_slot = dev_slot_get(s->key.netns, s->key.ifindex);
	}
	prev = fl->last_queue;
	if (prev != queue) {
		risky = fl->inflight[prev & (XF_INFLIGHT_SLOTS - 1)] > 0;
		queue_flush(s, prev);
		fl->last_queue = queue;
		fl->switches++;
		fl->epoch_switches++;
		if (risky) {
			fl->risky_switches++;
			watch_open(fl);
		}
		ds = dev_stats_get(s, queue);
		if (ds) {
			ds->switches++;
			if (risky)
				ds->risky_switches++;
		}
	}
	nm_set_bits(&fl->queues, 1ULL << (queue < XF_MAX_QUEUE_BIT ? queue : XF_MAX_QUEUE_BIT));
	nm_set_bits(&fl->cpus, 1ULL << (bpf_get_smp_processor_id() & 63));
	seen = RD(btf, skb, sk) ? XF_SEEN_WITH_SK : XF_SEEN_WITHOUT_SK;
	if (!(fl->has_sk & seen))
		fl->has_sk |= seen;
	if (payload)
		__sync_fetch_and_add(&fl->inflight[queue & (XF_INFLIGHT_SLOTS - 1)], payload);
	/*
	 * Atomic: a forwarded flow is picked on whichever CPU forwards it, and
	 * two picks at one instant lost an add each time (up to 9 skbs of 45
	 * segments in 2.3 million, measured), so per-queue totals fell short
	 * of the kernel's mq class counts. The line is written here anyway.
	 */
	__sync_fetch_and_add(&fl->packets, segs);
	__sync_fetch_and_add(&fl->bytes, len);
}

/*
 * Rungs 2 to 4 of pick_tx, on net_dev_queue. The raw_tp rung (btf false)
 * has no BTF pointer to read skb->dev through.
 */
static __always_inline void xf_on_queue(const struct sk_buff *skb, const bool btf, const bool cast)
{
	xf_on_pick(skb, btf ? skb->dev : BPF_CORE_READ(skb, dev), btf, cast);
}

/*
 * The driver is handed skb: it left its queue. Release its in-flight bytes
 * and see whether its data is below what this flow already transmitted.
 */
static __always_inline void on_xmit(const struct sk_buff *skb, const struct net_device *dev,
				    const bool btf)
{
	struct xf_flow_key k = {};
	struct nm_flow f = {};
	struct xf_dev_stats *ds;
	struct xf_slot *s;
	struct xf_flow *fl;
	__u32 queue, slot, end, *inflight, hash, idx = 0, payload, w, len;
	bool parsed = false;

	if (one_queue(dev, btf))
		return;
	queue = RD(btf, skb, queue_mapping);
	hash = RD(btf, skb, hash);
	len = RD(btf, skb, len);
	s = flow_by_hash(hash, dev, btf);
	if (s && hdr_known(s, len)) {
		payload = payload_of(s, len);
	} else {
		if (!flow_key(skb, dev, &k, &f, btf))
			return;
		s = flow_find(&k, dev, false, queue, &idx, btf);
		if (!s) {
			xf_count(XF_CNT_XMIT_NO_FLOW);
			return;
		}
		hidx_set(s, idx, hash, dev, &f, btf);
		payload = f.payload;
		parsed = true;
	}
	fl = &s->val;
	slot = queue & (XF_INFLIGHT_SLOTS - 1);
	inflight = &fl->inflight[slot];
	if (*inflight >= payload)
		__sync_fetch_and_add(inflight, -payload);
	else
		*inflight = 0;

	/*
	 * Reordering needs the sequence, so a parse: only inside a window that
	 * a risky switch opened. Outside one, every queue but the current one
	 * is empty of the flow, and a queue is FIFO: nothing can be reordered.
	 */
	w = fl->watch;
	if (!w || s->key.proto != NM_IPPROTO_TCP)
		return;
	if (!parsed && nm_parse_skb_x(skb, &f, btf))
		return;
	/*
	 * Closes the window it read, as a compare-and-swap of w to 0 did,
	 * with a plain atomic add (5.10 has no compare-and-swap): a switch
	 * that opened it again meanwhile (w + 1) leaves it open. Two CPUs
	 * closing it at once leave it open (-w) until the next drained
	 * transmit closes it: a few parses more, never a count.
	 */
	if (others_drained(fl))
		__sync_fetch_and_add(&fl->watch, -w);
	if (!f.payload)
		return;
	end = f.seq + f.payload;
	if (fl->seq_valid && nm_seq_before(f.seq, fl->max_seq_end) && fl->max_seq_queue != queue) {
		/* f.payload spans this skb's segments: count them */
		__u32 segs = RD(btf, skb, data_len) ? nm_skb_segs_x(skb, btf) : 1;

		__sync_fetch_and_add(&fl->reordered, segs);
		ds = dev_stats_get(s, queue);
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
	xf_on_pick(skb, dev, true, false);
	return 0;
}

SEC("tp_btf/net_dev_start_xmit")
int BPF_PROG(xf_xmit_tp, const struct sk_buff *skb, const struct net_device *dev)
{
	on_xmit(skb, dev, true);
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
			h = nm_mix32(h ^ words[i]);
	/*
	 * The kernel skips a queue_mapping store whose 64-bit register value
	 * is >= NO_QUEUE_MAPPING: mask so no stale upper bits survive the
	 * 64-bit arithmetic the compiler may use for h.
	 */
	skb->queue_mapping = ((h % *nq) + 1) & 0xffff;
	xf_count(XF_CNT_PINNED);
	return 0;
}

/*
 * Rung 2 of pick_tx: net_dev_queue fires right after the pick. It reads
 * gso_segs through bpf_rdonly_cast() (6.2+), an inline load, where the
 * probe read of rung 3 is a helper call: 7-14 ns less per event, measured
 * with both attached at once.
 */
SEC("tp_btf/net_dev_queue")
int BPF_PROG(xf_pick_tp, struct sk_buff *skb)
{
	xf_on_queue(skb, true, true);
	return 0;
}

/* Rung 3: the same without the kfunc. */
SEC("tp_btf/net_dev_queue")
int BPF_PROG(xf_pick_tp_read, struct sk_buff *skb)
{
	xf_on_queue(skb, true, false);
	return 0;
}

/* raw_tp rungs: for kernels whose tracepoints cannot be attached as tp_btf. */
SEC("raw_tp/net_dev_queue")
int BPF_PROG(xf_pick_raw, struct sk_buff *skb)
{
	xf_on_queue(skb, false, false);
	return 0;
}

char LICENSE[] SEC("license") = "GPL";
