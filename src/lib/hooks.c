// SPDX-License-Identifier: GPL-2.0
/*
 * Hook ladder. A rung is probed by loading a two-instruction program of the
 * same program type and attach point and attaching it: that is what fails
 * where ftrace is locked down (fentry/fexit load with EPERM) or where a
 * function is inlined or absent from BTF. Probing before the skeleton load
 * keeps one failing rung from failing the whole object.
 */
#include <errno.h>
#include <string.h>
#include <unistd.h>
#include <linux/bpf.h>
#include <bpf/bpf.h>
#include <bpf/btf.h>
#include "lib/hooks.h"

void nm_hook_rung(struct nm_hook *h, struct bpf_program *p0, struct bpf_program *p1)
{
	struct nm_rung *r;

	if (h->nrungs >= NM_MAX_RUNGS)
		return;
	r = &h->rungs[h->nrungs++];
	memset(r, 0, sizeof(*r));
	r->progs[0] = p0;
	r->progs[1] = p1;
	h->chosen = -1;
}

void nm_hook_rung3(struct nm_hook *h, struct bpf_program *p0, struct bpf_program *p1,
		   struct bpf_program *p2)
{
	nm_hook_rung(h, p0, p1);
	h->rungs[h->nrungs - 1].progs[2] = p2;
}

void nm_hook_rung_kfunc(struct nm_hook *h, const char *kfunc)
{
	if (h->nrungs)
		h->rungs[h->nrungs - 1].kfunc = kfunc;
}

void nm_hook_rung_add(struct nm_hook *h, struct bpf_program *p)
{
	struct nm_rung *r;

	if (!h->nrungs)
		return;
	r = &h->rungs[h->nrungs - 1];
	for (int i = 0; i < NM_RUNG_PROGS; i++)
		if (!r->progs[i]) {
			r->progs[i] = p;
			return;
		}
}

void nm_hook_rung_virtual(struct nm_hook *h, const char *label)
{
	nm_hook_rung(h, NULL, NULL);
	snprintf(h->rungs[h->nrungs - 1].label, sizeof(h->rungs[0].label), "%s", label);
}

static bool is_fentry_class(const struct bpf_program *p)
{
	enum bpf_attach_type t = bpf_program__expected_attach_type(p);

	return t == BPF_TRACE_FENTRY || t == BPF_TRACE_FEXIT || t == BPF_MODIFY_RETURN;
}

static bool rung_is_fentry(const struct nm_rung *r)
{
	return r->progs[0] && is_fentry_class(r->progs[0]);
}

static bool hook_has_fentry(const struct nm_hook *h)
{
	for (int i = 0; i < h->nrungs; i++)
		if (rung_is_fentry(&h->rungs[i]))
			return true;
	return false;
}

/* The target after the first '/', e.g. "net_dev_queue" for "tp_btf/net_dev_queue". */
static const char *sec_target(const struct bpf_program *p)
{
	const char *s = strchr(bpf_program__section_name(p), '/');

	return s ? s + 1 : "";
}

/* Loads and attaches a minimal tracing program at the same BTF attach point. */
static int probe_tracing(const struct btf *btf, enum bpf_attach_type type, const char *target)
{
	struct bpf_insn insns[] = {
		{ .code = BPF_ALU64 | BPF_MOV | BPF_K, .dst_reg = BPF_REG_0, .imm = 0 },
		{ .code = BPF_JMP | BPF_EXIT },
	};
	char name[128];
	int id, fd, lfd, err;

	if (type == BPF_TRACE_RAW_TP) {
		snprintf(name, sizeof(name), "btf_trace_%s", target);
		id = btf__find_by_name_kind(btf, name, BTF_KIND_TYPEDEF);
	} else {
		id = btf__find_by_name_kind(btf, target, BTF_KIND_FUNC);
	}
	if (id < 0)
		return -ENOENT;
	LIBBPF_OPTS(bpf_prog_load_opts, opts, .expected_attach_type = type, .attach_btf_id = id);
	fd = bpf_prog_load(BPF_PROG_TYPE_TRACING, "nm_probe", "GPL", insns, 2, &opts);
	if (fd < 0)
		return -errno;
	lfd = bpf_raw_tracepoint_open(NULL, fd);
	err = lfd < 0 ? -errno : 0;
	if (lfd >= 0)
		close(lfd);
	close(fd);
	return err;
}

static int probe_raw_tp(const char *target)
{
	struct bpf_insn insns[] = {
		{ .code = BPF_ALU64 | BPF_MOV | BPF_K, .dst_reg = BPF_REG_0, .imm = 0 },
		{ .code = BPF_JMP | BPF_EXIT },
	};
	int fd, lfd, err;

	fd = bpf_prog_load(BPF_PROG_TYPE_RAW_TRACEPOINT, "nm_probe", "GPL", insns, 2, NULL);
	if (fd < 0)
		return -errno;
	lfd = bpf_raw_tracepoint_open(target, fd);
	err = lfd < 0 ? -errno : 0;
	if (lfd >= 0)
		close(lfd);
	close(fd);
	return err;
}

/* 0 when the program's kind of attachment works here; other types are left to the real load. */
static int probe_prog(const struct btf *btf, const struct bpf_program *p)
{
	enum bpf_prog_type pt = bpf_program__type(p);

	/* iterators attach to no kernel function: the load itself tells */
	if (pt == BPF_PROG_TYPE_TRACING && bpf_program__expected_attach_type(p) == BPF_TRACE_ITER)
		return 0;
	if (pt == BPF_PROG_TYPE_TRACING)
		return probe_tracing(btf, bpf_program__expected_attach_type(p), sec_target(p));
	if (pt == BPF_PROG_TYPE_RAW_TRACEPOINT)
		return probe_raw_tp(sec_target(p));
	return 0;
}

static int probe_rung(const struct btf *btf, struct nm_rung *r)
{
	int err;

	if (!r->progs[0])
		return 0;	/* virtual: its label was set when declared */
	snprintf(r->label, sizeof(r->label), "%s", bpf_program__section_name(r->progs[0]));
	if (r->kfunc && btf__find_by_name_kind(btf, r->kfunc, BTF_KIND_FUNC) < 0) {
		snprintf(r->why, sizeof(r->why), "kfunc %s: not in kernel BTF", r->kfunc);
		return -ENOENT;
	}
	for (int i = 0; i < NM_RUNG_PROGS && r->progs[i]; i++) {
		err = probe_prog(btf, r->progs[i]);
		if (err) {
			snprintf(r->why, sizeof(r->why), "%s: %s", bpf_program__section_name(r->progs[i]),
				 err == -ENOENT ? "not in kernel BTF" : strerror(-err));
			return err;
		}
	}
	return 0;
}

static bool rung_allowed(const struct nm_hook *h, const struct nm_rung *r, enum nm_hook_mode mode)
{
	if (mode == NM_HOOKS_TRACEPOINT)
		return !rung_is_fentry(r);
	if (mode == NM_HOOKS_FENTRY && hook_has_fentry(h))
		return rung_is_fentry(r);
	return true;
}

static int choose_one(const struct btf *btf, struct nm_hook *h, enum nm_hook_mode mode,
		      char *err, size_t errlen)
{
	const char *last = "no rung allowed";

	h->chosen = -1;
	for (int i = 0; i < h->nrungs; i++) {
		struct nm_rung *r = &h->rungs[i];

		if (!rung_allowed(h, r, mode)) {
			if (r->progs[0])
				snprintf(r->label, sizeof(r->label), "%s",
					 bpf_program__section_name(r->progs[0]));
			snprintf(r->why, sizeof(r->why), "not allowed by --hooks");
			continue;
		}
		if (h->chosen < 0 && probe_rung(btf, r) == 0)
			h->chosen = i;
		else if (h->chosen < 0)
			last = r->why;
		else if (r->progs[0])
			snprintf(r->label, sizeof(r->label), "%s", bpf_program__section_name(r->progs[0]));
	}
	if (h->chosen < 0) {
		snprintf(err, errlen, "hook %s: no rung can attach on this kernel (%s)", h->name, last);
		return -1;
	}
	/* off for every rung, then on for the chosen one: rungs may share a program */
	for (int i = 0; i < h->nrungs; i++)
		for (int j = 0; j < NM_RUNG_PROGS && h->rungs[i].progs[j]; j++)
			bpf_program__set_autoload(h->rungs[i].progs[j], false);
	for (int j = 0; j < NM_RUNG_PROGS && h->rungs[h->chosen].progs[j]; j++)
		bpf_program__set_autoload(h->rungs[h->chosen].progs[j], true);
	return 0;
}

int nm_hooks_choose(struct nm_hook *hooks, int n, enum nm_hook_mode mode,
		    const char *btf_path, char *err, size_t errlen)
{
	struct btf *btf;
	int ret = 0;

	btf = btf_path ? btf__parse(btf_path, NULL) : btf__load_vmlinux_btf();
	if (!btf) {
		snprintf(err, errlen, "cannot read kernel BTF%s%s: %s", btf_path ? " at " : "",
			 btf_path ? btf_path : "", strerror(errno));
		return -1;
	}
	for (int i = 0; i < n && !ret; i++)
		ret = choose_one(btf, &hooks[i], mode, err, errlen);
	btf__free(btf);
	return ret;
}

const char *nm_hook_label(const struct nm_hook *h)
{
	return h->chosen >= 0 ? h->rungs[h->chosen].label : "none";
}

const char *nm_hook_mode_name(const struct nm_hook *h)
{
	static char mode[32];
	const char *l = nm_hook_label(h);
	size_t n = strcspn(l, "/");

	/* a virtual rung: served by what another hook's program reads */
	if (h->chosen >= 0 && !h->rungs[h->chosen].progs[0])
		return "derived";

	snprintf(mode, sizeof(mode), "%.*s", (int)n, l);
	return mode;
}

const char *nm_hooks_summary(const struct nm_hook *hooks, int n, char *buf, size_t len)
{
	size_t off = 0;

	buf[0] = 0;
	for (int i = 0; i < n && off < len; i++)
		off += snprintf(buf + off, len - off, "%s%s=%s", i ? " " : "", hooks[i].name,
				nm_hook_label(&hooks[i]));
	return buf;
}

void nm_hooks_list(FILE *f, const struct nm_hook *hooks, int n)
{
	fprintf(f, "%-16s %-4s %-36s %s\n", "HOOK", "RUNG", "PROGRAM", "VERDICT");
	for (int i = 0; i < n; i++) {
		const struct nm_hook *h = &hooks[i];

		for (int j = 0; j < h->nrungs; j++) {
			const struct nm_rung *r = &h->rungs[j];
			const char *v = j == h->chosen ? "chosen" : r->why[0] ? r->why : "not needed";
			char prog[96];

			snprintf(prog, sizeof(prog), "%s%s%s", r->label, r->kfunc ? "+" : "",
				 r->kfunc ? r->kfunc : "");
			fprintf(f, "%-16s %-4d %-36s %s\n", h->name, j + 1, prog, v);
		}
	}
}

int nm_parse_hook_mode(const char *s, enum nm_hook_mode *mode)
{
	if (!strcmp(s, "auto"))
		*mode = NM_HOOKS_AUTO;
	else if (!strcmp(s, "fentry"))
		*mode = NM_HOOKS_FENTRY;
	else if (!strcmp(s, "tracepoint"))
		*mode = NM_HOOKS_TRACEPOINT;
	else
		return -1;
	return 0;
}

bool nm_hooks_any_fentry(const struct nm_hook *hooks, int n)
{
	for (int i = 0; i < n; i++)
		if (hooks[i].chosen >= 0 && rung_is_fentry(&hooks[i].rungs[hooks[i].chosen]))
			return true;
	return false;
}
