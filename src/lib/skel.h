/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Opening, loading and attaching a tool's skeleton through the hook ladder,
 * the same way for every tool. A bpftool skeleton starts with its
 * struct bpf_object_skeleton pointer, so the generic libbpf skeleton calls
 * serve every tool; only open/destroy and the tool's own set-up differ.
 */
#ifndef NETMEDIC_SKEL_H
#define NETMEDIC_SKEL_H

#include <bpf/libbpf.h>
#include "lib/cli.h"
#include "lib/hooks.h"

struct nm_skel_ops {
	void *(*open)(const struct bpf_object_open_opts *opts);	/* NAME_bpf__open_opts */
	void (*destroy)(void *skel);				/* NAME_bpf__destroy */
	/* before load: rodata, map sizes, autoload/autoattach; fills hooks[] */
	void (*prepare)(void *skel, struct nm_hook *hooks);
	int nhooks;
};

/* skel_ops for the skeleton NAME_bpf, with the tool's prepare function. */
#define NM_SKEL_OPS(NAME, PREPARE, NHOOKS)					\
	static void *NAME##_skel_open(const struct bpf_object_open_opts *oo)	\
	{									\
		return NAME##_bpf__open_opts(oo);				\
	}									\
	static void NAME##_skel_destroy(void *skel)				\
	{									\
		NAME##_bpf__destroy(skel);					\
	}									\
	static const struct nm_skel_ops skel_ops = {				\
		.open = NAME##_skel_open,					\
		.destroy = NAME##_skel_destroy,					\
		.prepare = PREPARE,						\
		.nhooks = NHOOKS,						\
	}

/*
 * Opens, chooses the rungs (--hooks), loads and attaches. With auto, if
 * fentry/fexit programs pass the attach probe but the verifier refuses them
 * (an older kernel), it reopens with the tracepoint rungs and says so.
 * --list-hooks prints the ladder and returns NM_SKEL_LISTED. Otherwise
 * NM_EXIT_OK, or an exit code after one line on stderr. *skelp is to be
 * destroyed by the caller in every case.
 */
#define NM_SKEL_LISTED	(-1)
int nm_skel_load(const struct nm_opts *o, const struct nm_skel_ops *ops, void **skelp,
		 struct nm_hook *hooks);

/*
 * A loaded BPF_F_MMAPABLE array mapped read-only, to read in place with no
 * syscall per entry; *len for munmap. NULL with errno set on failure.
 */
const void *nm_map_mmap(const struct bpf_map *m, size_t *len);

#endif
