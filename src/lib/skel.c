// SPDX-License-Identifier: GPL-2.0
#include <errno.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>
#include "lib/skel.h"

#define RETRY	(-1000)

/* What every bpftool skeleton begins with. */
struct skel_head {
	struct bpf_object_skeleton *skeleton;
	struct bpf_object *obj;
};

static int load_once(const struct nm_opts *o, const struct nm_skel_ops *ops, void **skelp,
		     struct nm_hook *hooks, enum nm_hook_mode mode, bool last)
{
	LIBBPF_OPTS(bpf_object_open_opts, oo, .btf_custom_path = o->btf_path);
	struct skel_head *skel;
	char err[256];
	int ret;

	skel = ops->open(&oo);
	*skelp = skel;
	if (!skel)
		return nm_err(o, NM_EXIT_RUNTIME, "opening BPF object: %s", strerror(errno));
	ops->prepare(skel, hooks);
	ret = nm_hooks_choose(hooks, ops->nhooks, mode, o->btf_path, err, sizeof(err));
	if (o->list_hooks) {
		nm_hooks_list(stdout, hooks, ops->nhooks);
		return NM_SKEL_LISTED;
	}
	if (ret)
		return nm_err(o, NM_EXIT_RUNTIME, "%s", err);
	ret = bpf_object__load_skeleton(skel->skeleton);
	if (ret && !last && nm_hooks_any_fentry(hooks, ops->nhooks))
		return RETRY;
	if (ret)
		return nm_err(o, NM_EXIT_RUNTIME, "loading BPF programs: %s (try -v)", strerror(-ret));
	ret = bpf_object__attach_skeleton(skel->skeleton);
	if (ret && !last && nm_hooks_any_fentry(hooks, ops->nhooks))
		return RETRY;
	if (ret)
		return nm_err(o, NM_EXIT_RUNTIME, "attaching BPF programs: %s", strerror(-ret));
	return NM_EXIT_OK;
}

int nm_skel_load(const struct nm_opts *o, const struct nm_skel_ops *ops, void **skelp,
		 struct nm_hook *hooks)
{
	int ret = load_once(o, ops, skelp, hooks, o->hooks, o->hooks != NM_HOOKS_AUTO);

	if (ret != RETRY)
		return ret;
	ops->destroy(*skelp);
	*skelp = NULL;
	nm_info(o, "warning: the fentry/fexit programs did not load (-v says why): using the tracepoint rungs");
	return load_once(o, ops, skelp, hooks, NM_HOOKS_TRACEPOINT, true);
}

const void *nm_map_mmap(const struct bpf_map *m, size_t *len)
{
	size_t page = sysconf(_SC_PAGESIZE);
	void *p;

	*len = (size_t)bpf_map__max_entries(m) * bpf_map__value_size(m);
	*len = (*len + page - 1) / page * page;
	p = mmap(NULL, *len, PROT_READ, MAP_SHARED, bpf_map__fd(m), 0);
	return p == MAP_FAILED ? NULL : p;
}
