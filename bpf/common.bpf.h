/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What every netmedic BPF object has: self-counters in a per-CPU array,
 * the --dev filter, resolved to (netns inode, ifindex) before load, and
 * the scope's (lib/scope.h): the --netns inodes.
 */
#ifndef NETMEDIC_COMMON_BPF_H
#define NETMEDIC_COMMON_BPF_H

#include "vmlinux.h"
#include <bpf/bpf_helpers.h>
#include "netmedic/common.h"

/*
 * Defines the tool's counters map, PFX_counters with n slots, and
 * PFX_count(idx): prefixed, since the agent's object holds every tool's.
 */
#define NM_COUNTERS(PFX, n)						\
	struct {							\
		__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);		\
		__uint(max_entries, n);					\
		__type(key, __u32);					\
		__type(value, __u64);					\
	} PFX##_counters SEC(".maps");					\
									\
	static __always_inline void PFX##_count(__u32 idx)		\
	{								\
		__u64 *v = bpf_map_lookup_elem(&PFX##_counters, &idx);	\
									\
		if (v)							\
			*v += 1;					\
	}

/*
 * The instruction set every object keeps to, so that one build loads on
 * 5.10 (Debian 11) as on 6.x (docs/KERNELS.md, "One build for 5.10"):
 * atomics are plain adds whose result is not used (`lock +=`, BPF_XADD,
 * there since 3.18). The fetching ones (a fetch-and-add whose value is
 * used, compare-and-swap, exchange) and the other operations (or, and,
 * xor) came in 5.12, and 5.10's verifier refuses a program that holds
 * one anywhere, even on a branch that never runs: it checks every
 * instruction before it follows a single path (resolve_pseudo_ldimm64,
 * "BPF_STX uses reserved fields"). The Makefile refuses such an object.
 * Where a claim must be exclusive, a hash map insert with BPF_NOEXIST is
 * the compare-and-swap (NM_CLAIMS below).
 */

/*
 * Sets bit in *mask when unset: a plain or, no locked op per event. Two
 * CPUs setting two new bits of one mask at the same instant may lose one;
 * its next event sets it again (the test sees it unset). Masks are
 * written once per CPU or queue and interval, so that is rare, and it can
 * only leave a bit out for a moment, never add one.
 */
static __always_inline void nm_set_bits(__u64 *mask, __u64 bit)
{
	if (!(*mask & bit))
		*mask |= bit;
}

/* A claim held this long was left by a program that could not delete it: it is taken over. */
#define NM_CLAIM_STALE_NS	1000000000ULL

/*
 * Defines PFX_claims, the slots being claimed now, and
 * PFX_claim_take(idx) / PFX_claim_drop(idx): a slot of a direct-mapped
 * table is filled by one CPU at a time. The insert with BPF_NOEXIST is
 * atomic (the bucket's lock): the CPU whose insert succeeds holds the
 * slot until it deletes the key; the others give up, as a failed
 * compare-and-swap would. Two helper calls per claim, none per event.
 */
#define NM_CLAIMS(PFX)							\
	struct {							\
		__uint(type, BPF_MAP_TYPE_HASH);			\
		__uint(max_entries, 256);	/* claims at once: a few per CPU */ \
		__type(key, __u32);					\
		__type(value, __u64);		/* when it was taken */	\
	} PFX##_claims SEC(".maps");					\
									\
	static __always_inline bool PFX##_claim_take(__u32 idx)	\
	{								\
		__u64 now = bpf_ktime_get_ns(), *t;			\
									\
		if (!bpf_map_update_elem(&PFX##_claims, &idx, &now, BPF_NOEXIST)) \
			return true;					\
		t = bpf_map_lookup_elem(&PFX##_claims, &idx);		\
		if (t && now > *t + NM_CLAIM_STALE_NS)		\
			bpf_map_delete_elem(&PFX##_claims, &idx);	\
		return false;						\
	}								\
									\
	static __always_inline void PFX##_claim_drop(__u32 idx)	\
	{								\
		bpf_map_delete_elem(&PFX##_claims, &idx);		\
	}

/* --dev: set by the loader (nm_set_dev_filter); none means every device */
const volatile __u32 targ_ndevs = 0;
const volatile __u32 targ_netns[NM_MAX_DEVS] = {};
const volatile __u32 targ_ifindex[NM_MAX_DEVS] = {};

static __always_inline bool dev_watched(__u32 netns, __u32 ifindex)
{
	__u32 i;

	if (!targ_ndevs)
		return true;
	for (i = 0; i < NM_MAX_DEVS; i++) {
		if (i >= targ_ndevs)
			break;
		if (targ_ifindex[i] == ifindex && targ_netns[i] == netns)
			return true;
	}
	return false;
}

/* the scope: set by the loader (nm_set_scope_filter); none means every netns */
const volatile __u32 targ_nscope = 0;
const volatile __u32 targ_scope[NM_MAX_NETNS] = {};

static __always_inline bool netns_in_scope(__u32 netns)
{
	__u32 i;

	if (!targ_nscope)
		return true;
	for (i = 0; i < NM_MAX_NETNS; i++) {
		if (i >= targ_nscope)
			break;
		if (targ_scope[i] == netns)
			return true;
	}
	return false;
}

#endif
