// SPDX-License-Identifier: GPL-2.0
/*
 * The loader. It opens the object, chooses a rung per hook, loads and
 * attaches; when the kernel refuses a program, at load, at attach or at a
 * first run, it records the refusal, reopens the object and chooses again,
 * so that rung is skipped and the next one taken. Only a core hook with no
 * rung left ends the tool. libbpf loads an object whole and cannot load it
 * twice, hence the reopening; a refusal costs one more load.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <sys/mman.h>
#include <unistd.h>
#include <bpf/bpf.h>
#include "lib/skel.h"

#define RETRY	(-1000)

/* What every bpftool skeleton begins with. */
struct skel_head {
	struct bpf_object_skeleton *skeleton;
	struct bpf_object *obj;
};

struct bpf_object *nm_skel_obj(void *skel)
{
	return ((struct skel_head *)skel)->obj;
}

/* Kept across the reopenings, and for the life of the process: rungs point into it. */
static struct nm_refusals refusals;

/*
 * libbpf names the program (or map) it failed on in its warnings, and
 * stops at the first failure: the last one named is the one.
 */
static struct {
	libbpf_print_fn_t prev;
	char prog[64];
	char map[64];
	bool map_last;		/* the last warning named a map, not a program */
} cap;

static bool take_name(const char *line, const char *tag, char *dst, size_t len)
{
	const char *p = strstr(line, tag), *e;

	if (!p)
		return false;
	p += strlen(tag);
	e = strchr(p, '\'');
	if (!e || (size_t)(e - p) >= len)
		return false;
	snprintf(dst, len, "%.*s", (int)(e - p), p);
	return true;
}

static int capture(enum libbpf_print_level level, const char *fmt, va_list args)
{
	char line[512];
	va_list copy;

	if (level == LIBBPF_WARN) {
		va_copy(copy, args);
		vsnprintf(line, sizeof(line), fmt, copy);
		va_end(copy);
		/* "prog 'p': failed to bind map 'm'" is the program's */
		if (take_name(line, "prog '", cap.prog, sizeof(cap.prog)))
			cap.map_last = false;
		else if (take_name(line, "map '", cap.map, sizeof(cap.map)))
			cap.map_last = true;
	}
	return cap.prev ? cap.prev(level, fmt, args) : 0;
}

/* Load and attach under capture: 0, or the errno with the stage it failed at. */
static int load_attach(struct skel_head *skel, const char **stage)
{
	int ret;

	cap.prog[0] = cap.map[0] = 0;
	cap.map_last = false;
	cap.prev = libbpf_set_print(capture);
	*stage = "load";
	ret = bpf_object__load_skeleton(skel->skeleton);
	if (!ret) {
		*stage = "attach";
		ret = bpf_object__attach_skeleton(skel->skeleton);
	}
	libbpf_set_print(cap.prev);
	return ret;
}

/* NETMEDIC_REFUSE: the first program to load that it names, refused as the kernel would. */
static struct bpf_program *injected(struct bpf_object *obj)
{
	const char *list = getenv("NETMEDIC_REFUSE");
	struct bpf_program *p;

	if (!list || !*list)
		return NULL;
	bpf_object__for_each_program(p, obj)
		if (bpf_program__autoload(p) &&
		    nm_refuse_match(list, bpf_program__name(p), bpf_program__section_name(p)))
			return p;
	return NULL;
}

static int errno_name_err(const struct nm_opts *o, const char *what, const char *stage, int err)
{
	struct nm_refusal r = { .stage = stage, .err = err };
	char e[96];

	return nm_err(o, NM_EXIT_RUNTIME, "the kernel refused %s: %s; %s", what,
		      nm_refusal_str(&r, e, sizeof(e)), nm_refusal_hint(&r));
}

/*
 * Program p was refused: record it for the next attempt. A program on no
 * rung, or one refused again, has no fallback: that is an error.
 */
static int refuse(const struct nm_opts *o, struct nm_hook *hooks, int n, struct bpf_program *p,
		  const char *stage, int err, bool inj)
{
	char what[160];
	int rung;

	if (!nm_hooks_find_prog(hooks, n, p, &rung)) {
		snprintf(what, sizeof(what), "%s (%s), which is on no rung of the hook ladder",
			 bpf_program__name(p), bpf_program__section_name(p));
		return errno_name_err(o, what, stage, err);
	}
	if (!nm_refusal_add(&refusals, p, stage, err, inj)) {
		snprintf(what, sizeof(what), "%s (%s), refused again", bpf_program__name(p),
			 bpf_program__section_name(p));
		return errno_name_err(o, what, stage, err);
	}
	if (o->verbose)
		nm_info(o, "the kernel refused %s (%s) at %s: %s; trying the next rung",
			bpf_program__name(p), bpf_program__section_name(p), stage, strerror(-err));
	return RETRY;
}

/* After a failed load or attach: the program libbpf named, or an error naming what failed. */
static int refuse_named(const struct nm_opts *o, const struct nm_skel_ops *ops,
			struct skel_head *skel, struct nm_hook *hooks, const char *stage, int err)
{
	struct bpf_program *p = cap.prog[0] && !cap.map_last ?
				 bpf_object__find_program_by_name(skel->obj, cap.prog) : NULL;
	char what[96];

	if (p)
		return refuse(o, hooks, ops->nhooks, p, stage, err, false);
	if (cap.map[0])
		snprintf(what, sizeof(what), "map '%s'", cap.map);
	else
		snprintf(what, sizeof(what), "the object (libbpf named no program)");
	return errno_name_err(o, what, stage, err);
}

static int load_once(const struct nm_opts *o, const struct nm_skel_ops *ops, void **skelp,
		     struct nm_hook *hooks)
{
	LIBBPF_OPTS(bpf_object_open_opts, oo, .btf_custom_path = o->btf_path);
	struct bpf_program *p;
	struct skel_head *skel;
	const char *stage;
	char err[512];
	int ret;

	skel = ops->open(&oo);
	*skelp = skel;
	if (!skel)
		return nm_err(o, NM_EXIT_RUNTIME, "opening BPF object: %s", strerror(errno));
	ops->prepare(skel, hooks);
	ret = nm_hooks_choose(hooks, ops->nhooks, o->hooks, o->btf_path, &refusals, err, sizeof(err));
	if (ret)
		return nm_err(o, NM_EXIT_RUNTIME, "%s", err);
	p = injected(skel->obj);
	if (p)
		return refuse(o, hooks, ops->nhooks, p, "load", -EPERM, true);
	ret = load_attach(skel, &stage);
	if (ret)
		return refuse_named(o, ops, skel, hooks, stage, ret);
	if (ops->attach) {
		p = NULL;
		ret = ops->attach(skel, hooks, &p, &stage);
		if (ret && p)
			return refuse(o, hooks, ops->nhooks, p, stage, ret, false);
		if (ret)
			return errno_name_err(o, "a program attached by hand", stage, ret);
	}
	return NM_EXIT_OK;
}

int nm_skel_load(const struct nm_opts *o, const struct nm_skel_ops *ops, void **skelp,
		 struct nm_hook *hooks)
{
	int ret = RETRY;

	/* each attempt refuses one more program, or ends */
	for (int i = 0; i <= NM_MAX_REFUSED && ret == RETRY; i++) {
		if (*skelp)
			ops->destroy(*skelp);
		*skelp = NULL;
		ret = load_once(o, ops, skelp, hooks);
	}
	if (ret == RETRY)
		ret = nm_err(o, NM_EXIT_RUNTIME, "loading BPF programs: more than %d refused",
			     NM_MAX_REFUSED);
	if (o->list_hooks) {
		if (o->json)
			nm_hooks_list_json(stdout, hooks, ops->nhooks, o->tool, time(NULL));
		else
			nm_hooks_list(stdout, hooks, ops->nhooks);
		return ret ? ret : NM_SKEL_LISTED;
	}
	return ret;
}

/* An iterator's first run: attach, create, read once. 0 or -errno. */
int nm_iter_read(struct bpf_link *l)
{
	char buf[4096];
	int fd = bpf_iter_create(bpf_link__fd(l)), err = 0;

	if (fd < 0)
		return -errno;
	if (read(fd, buf, sizeof(buf)) < 0)
		err = -errno;
	close(fd);
	return err;
}

static int iter_run_once(struct bpf_program *p, const char **stage)
{
	struct bpf_link *l;
	int err;

	*stage = "attach";
	l = bpf_program__attach_iter(p, NULL);
	if (!l)
		return -errno;
	*stage = "run";
	err = nm_iter_read(l);
	bpf_link__destroy(l);
	return err;
}

static int probe_loaded(struct skel_head *skel, struct bpf_program *p, const char **stage)
{
	struct bpf_program *q;
	int err;

	bpf_object__for_each_program(q, skel->obj)
		bpf_program__set_autoload(q, q == p);
	if (nm_refuse_match(getenv("NETMEDIC_REFUSE"), bpf_program__name(p),
			    bpf_program__section_name(p)))
		return -EPERM;
	*stage = "load";
	err = bpf_object__load(skel->obj);
	if (err)
		return err;
	if (bpf_program__expected_attach_type(p) == BPF_TRACE_ITER)
		return iter_run_once(p, stage);
	return 0;
}

int nm_skel_probe_prog(const struct nm_skel_ops *ops, const char *name, char *why, size_t len)
{
	LIBBPF_OPTS(bpf_object_open_opts, oo, .btf_custom_path = getenv("NETMEDIC_BTF"));
	struct nm_refusal r = { .stage = "load" };
	struct skel_head *skel = ops->open(&oo);
	struct bpf_program *p;
	char e[96];

	if (!skel) {
		snprintf(why, len, "opening BPF object: %s", strerror(errno));
		return -errno;
	}
	p = bpf_object__find_program_by_name(skel->obj, name);
	if (!p)
		r.err = -ENOENT;
	else
		r.err = probe_loaded(skel, p, &r.stage);
	r.injected = r.err == -EPERM && !strcmp(r.stage, "load") &&
		     nm_refuse_match(getenv("NETMEDIC_REFUSE"), name, bpf_program__section_name(p));
	if (r.err)
		snprintf(why, len, "%s: %s", name, nm_refusal_str(&r, e, sizeof(e)));
	ops->destroy(skel);
	return r.err;
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
