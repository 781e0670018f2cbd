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

/* Sets bit in *mask, atomically, and only when unset (no locked op per event). */
static __always_inline void nm_set_bits(__u64 *mask, __u64 bit)
{
	if (!(*mask & bit))
		__sync_fetch_and_or(mask, bit);
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
