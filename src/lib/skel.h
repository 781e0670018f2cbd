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
	/*
	 * After load and attach (may be NULL): attaches or first runs what the
	 * skeleton does not (a map iterator, a test-run program), and may set
	 * a hook aside to its "none" rung when what it needs is missing. On
	 * failure: the negative errno, *failed the program and *stage "attach"
	 * or "run", and the loader takes that program's next rung.
	 */
	int (*attach)(void *skel, struct nm_hook *hooks, struct bpf_program **failed,
		      const char **stage);
	int nhooks;
};

/* skel_ops for the skeleton NAME_bpf, with the tool's prepare and attach functions. */
#define NM_SKEL_OPS(NAME, PREPARE, ATTACH, NHOOKS)					\
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
		.attach = ATTACH,						\
		.nhooks = NHOOKS,						\
	}

/*
 * Opens, chooses the rungs (--hooks), loads and attaches. Whatever the
 * kernel refuses (the verifier, EPERM from a policy, a missing BTF id or
 * kfunc, an attach type it lacks), and whatever NETMEDIC_REFUSE names, the
 * program's rung is turned off and the next one taken; the rungs say what
 * was refused (nm_hooks_losses, --list-hooks). --list-hooks prints the
 * ladder after the load and returns NM_SKEL_LISTED. Otherwise NM_EXIT_OK,
 * or an exit code after one line on stderr: a core hook has no rung left.
 * *skelp is to be destroyed by the caller in every case.
 */
#define NM_SKEL_LISTED	(-1)
int nm_skel_load(const struct nm_opts *o, const struct nm_skel_ops *ops, void **skelp,
		 struct nm_hook *hooks);

/*
 * Whether program name of ops' skeleton loads here, alone, and an iterator
 * runs once (its first run is its check): 0, or -errno with "name: load:
 * ..." in why. NETMEDIC_REFUSE refuses it as the loader would.
 * For --list-fixes: a remedy whose lever is a BPF program.
 */
int nm_skel_probe_prog(const struct nm_skel_ops *ops, const char *name, char *why, size_t len);

/* A skeleton's bpf_object (every bpftool skeleton has it second). */
struct bpf_object *nm_skel_obj(void *skel);

/*
 * A loaded BPF_F_MMAPABLE array mapped read-only, to read in place with no
 * syscall per entry; *len for munmap. NULL with errno set on failure.
 */
const void *nm_map_mmap(const struct bpf_map *m, size_t *len);

/*
 * One read of an iterator's output (its programs run once over what it
 * walks; a kernel may allow the attach and refuse the run): 0 or -errno.
 */
int nm_iter_read(struct bpf_link *l);

#endif
