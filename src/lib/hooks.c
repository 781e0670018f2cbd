// SPDX-License-Identifier: GPL-2.0
/*
 * Hook ladder. A rung is probed by loading a two-instruction program of the
 * same program type and attach point and attaching it: that is what fails
 * where ftrace is locked down (fentry/fexit load with EPERM) or where a
 * function is inlined or absent from BTF. Probing before the skeleton load
 * keeps one failing rung from failing the whole object.
 */
#include <errno.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <linux/bpf.h>
#include <bpf/bpf.h>
#include <bpf/btf.h>
#include "lib/caps.h"
#include "lib/hooks.h"
#include "lib/record.h"

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

void nm_hook_rung_kfunc(struct nm_hook *h, const char *kfunc)
{
	if (h->nrungs)
		h->rungs[h->nrungs - 1].kfunc = kfunc;
}

void nm_hook_rung_virtual(struct nm_hook *h, const char *label)
{
	nm_hook_rung(h, NULL, NULL);
	snprintf(h->rungs[h->nrungs - 1].label, sizeof(h->rungs[0].label), "%s", label);
}

void nm_hook_rung_none(struct nm_hook *h, const char *lost)
{
	nm_hook_rung_virtual(h, "none");
	h->rungs[h->nrungs - 1].lost = lost;
}

void nm_hook_rung_none_why(struct nm_hook *h, const char *lost)
{
	nm_hook_rung_none(h, lost);
	h->rungs[h->nrungs - 1].lost_base = lost;
}

void nm_hook_explain_loss(struct nm_hook *h)
{
	struct nm_rung *r = &h->rungs[h->chosen < 0 ? 0 : h->chosen];
	const char *why = "every rung before it was refused";

	if (h->chosen < 0 || !r->lost_base)
		return;
	for (int i = 0; i < h->chosen; i++)
		if (h->rungs[i].why[0])
			why = h->rungs[i].why;
	snprintf(r->lost_buf, sizeof(r->lost_buf), "%s (%s)", r->lost_base, why);
	r->lost = r->lost_buf;
}

/* One declared rung onto h; -1 when a program name is not in obj. */
static int declare_rung(struct nm_hook *h, const struct nm_rung_decl *d, const struct bpf_object *obj)
{
	struct bpf_program *p[NM_RUNG_PROGS] = {};

	for (int i = 0; i < NM_RUNG_PROGS && d->progs[i]; i++) {
		p[i] = bpf_object__find_program_by_name(obj, d->progs[i]);
		if (!p[i]) {
			fprintf(stderr, "hook %s: no program %s in the object\n", h->name, d->progs[i]);
			return -1;
		}
	}
	if (p[0]) {
		nm_hook_rung(h, p[0], p[1]);
		h->rungs[h->nrungs - 1].progs[2] = p[2];
		h->rungs[h->nrungs - 1].progs[3] = p[3];
		nm_hook_rung_kfunc(h, d->kfunc);
		h->rungs[h->nrungs - 1].enumval = d->enumval;
		h->rungs[h->nrungs - 1].helper = d->helper;
		h->rungs[h->nrungs - 1].label_decl = d->label;
	} else if (d->lost && d->lost_why) {
		nm_hook_rung_none_why(h, d->lost);
	} else if (d->lost) {
		nm_hook_rung_none(h, d->lost);
	} else {
		nm_hook_rung_virtual(h, d->virt);
	}
	h->rungs[h->nrungs - 1].can = d->can;
	return 0;
}

static bool decl_empty(const struct nm_rung_decl *d)
{
	return !d->progs[0] && !d->virt && !d->lost;
}

int nm_hooks_declare(struct nm_hook *hooks, const struct nm_hook_decl *decls, int n,
		     const struct bpf_object *obj, unsigned int want)
{
	int bad = 0;

	memset(hooks, 0, sizeof(*hooks) * n);
	for (int i = 0; i < n; i++) {
		const struct nm_hook_decl *d = &decls[i];

		if (!d->name || (d->when & ~want))
			continue;
		hooks[i].name = d->name;
		hooks[i].chosen = -1;
		for (int r = 0; r < NM_MAX_RUNGS && !decl_empty(&d->rungs[r]); r++)
			if (!(d->rungs[r].when & ~want))
				bad -= declare_rung(&hooks[i], &d->rungs[r], obj);
	}
	return bad;
}

bool nm_hook_can(const struct nm_hook *h, unsigned int can)
{
	return h->chosen >= 0 && h->chosen < h->nrungs && (h->rungs[h->chosen].can & can) == can;
}

static bool rung_virtual(const struct nm_rung *r)
{
	return !r->progs[0];
}

bool nm_hook_optional(const struct nm_hook *h)
{
	for (int i = 0; i < h->nrungs; i++)
		if (rung_virtual(&h->rungs[i]))
			return true;
	return false;
}

bool nm_hook_lost(const struct nm_hook *h)
{
	return h->chosen >= 0 && h->rungs[h->chosen].lost;
}

/* ---- refusals ---- */

const struct nm_refusal *nm_refusal_find(const struct nm_refusals *rf, const char *prog)
{
	for (int i = 0; rf && i < rf->n; i++)
		if (!strcmp(rf->r[i].prog, prog))
			return &rf->r[i];
	return NULL;
}

bool nm_refusal_add(struct nm_refusals *rf, const struct bpf_program *p, const char *stage,
		    int err, bool injected)
{
	struct nm_refusal *r;

	if (rf->n >= NM_MAX_REFUSED || nm_refusal_find(rf, bpf_program__name(p)))
		return false;
	r = &rf->r[rf->n++];
	snprintf(r->prog, sizeof(r->prog), "%s", bpf_program__name(p));
	snprintf(r->sec, sizeof(r->sec), "%s", bpf_program__section_name(p));
	r->stage = stage;
	r->err = err < 0 ? err : -EINVAL;
	r->injected = injected;
	return true;
}

/* "Operation not permitted (EPERM)"; the kernel's own ENOTSUPP (524) has no libc name. */
static const char *errno_str(int err, char *buf, size_t len)
{
	const char *name = err == 524 ? "ENOTSUPP" : strerrorname_np(err);

	snprintf(buf, len, "%s (%s)", err == 524 ? "Operation not supported" : strerror(err),
		 name ? name : "?");
	return buf;
}

const char *nm_refusal_str(const struct nm_refusal *r, char *buf, size_t len)
{
	char e[64];

	snprintf(buf, len, "%s: %s%s", r->stage, errno_str(-r->err, e, sizeof(e)),
		 r->injected ? " by NETMEDIC_REFUSE" : "");
	return buf;
}

bool nm_refuse_match(const char *list, const char *prog, const char *sec)
{
	const char *p = list;

	while (p && *p) {
		size_t n = strcspn(p, ",");

		if (n && ((strlen(prog) == n && !strncmp(p, prog, n)) || !strncmp(sec, p, n)))
			return true;
		p += n + (p[n] == ',');
	}
	return false;
}

static const char *hint(int err, const char *stage, bool injected)
{
	if (injected)
		return "unset NETMEDIC_REFUSE";
	switch (-err) {
	case ENOENT:
	case ESRCH:
		return "the kernel's BTF lacks this attach point (inlined or absent function, or no CONFIG_DEBUG_INFO_BTF)";
	case EPERM:
		/* before 5.11, the likelier cause is a memory limit the tool could not raise */
		if (nm_caps_eperm_hint())
			return nm_caps_eperm_hint();
		return "the kernel's policy refuses this program type (lockdown, an LSM, a distribution patch): dmesg and /sys/kernel/security/lockdown tell which";
	case EACCES:
	case EINVAL:
		return strcmp(stage, "load") ? "this kernel cannot attach this program type here" :
					       "the verifier refused it: -v prints its log";
	case EOPNOTSUPP:
	case 524:
		return "this kernel does not support this program or attach type";
	case E2BIG:
	case ENOMEM:
		return "raise RLIMIT_MEMLOCK or free kernel memory";
	default:
		return "-v prints libbpf's log";
	}
}

const char *nm_refusal_hint(const struct nm_refusal *r)
{
	return hint(r->err, r->stage, r->injected);
}

/* ---- choosing ---- */

/*
 * A function probe: fentry/fexit, or the kprobes that stand in for them
 * where fexit cannot attach (arm64 before 6.4). --hooks=fentry takes these
 * only, --hooks=tracepoint none of them.
 */
static bool is_fentry_class(const struct bpf_program *p)
{
	enum bpf_attach_type t = bpf_program__expected_attach_type(p);

	if (bpf_program__type(p) == BPF_PROG_TYPE_KPROBE)
		return true;
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

/*
 * kprobes: the kernel's perf PMU for them (CONFIG_KPROBE_EVENTS), which
 * libbpf attaches through on every kernel netmedic runs on (4.17+). The
 * function itself is left to the attach: a missing one is refused there.
 */
#define NM_KPROBE_PMU	"/sys/bus/event_source/devices/kprobe/type"

static int probe_kprobe(void)
{
	return access(NM_KPROBE_PMU, F_OK) ? -EOPNOTSUPP : 0;
}

/* 0 when the program's kind of attachment works here; other types are left to the real load. */
static int probe_prog(const struct btf *btf, const struct bpf_program *p)
{
	enum bpf_prog_type pt = bpf_program__type(p);

	/* iterators attach to no kernel function: the load itself tells */
	if (pt == BPF_PROG_TYPE_TRACING && bpf_program__expected_attach_type(p) == BPF_TRACE_ITER)
		return 0;
	/* run by test-run or attached by hand: the load and the tool's own attach tell */
	if (!bpf_program__autoattach(p))
		return 0;
	if (pt == BPF_PROG_TYPE_TRACING)
		return probe_tracing(btf, bpf_program__expected_attach_type(p), sec_target(p));
	if (pt == BPF_PROG_TYPE_RAW_TRACEPOINT)
		return probe_raw_tp(sec_target(p));
	if (pt == BPF_PROG_TYPE_KPROBE)
		return probe_kprobe();
	return 0;
}

/* A program of the rung that an earlier attempt saw refused, if any. */
static const struct nm_refusal *rung_refusal(const struct nm_rung *r, const struct nm_refusals *rf)
{
	const struct nm_refusal *x;

	for (int i = 0; i < NM_RUNG_PROGS && r->progs[i]; i++) {
		x = nm_refusal_find(rf, bpf_program__name(r->progs[i]));
		if (x)
			return x;
	}
	return NULL;
}

/* A program rung's label: as declared, else its first program's section. */
static void label_prog_rung(struct nm_rung *r)
{
	snprintf(r->label, sizeof(r->label), "%s",
		 r->label_decl ? r->label_decl : bpf_program__section_name(r->progs[0]));
}

static int probe_rung(const struct btf *btf, struct nm_rung *r, const struct nm_refusals *rf,
		      int *errp)
{
	const struct nm_refusal *x;
	char e[96];
	int err;

	if (!r->progs[0])
		return 0;	/* virtual: its label was set when declared */
	label_prog_rung(r);
	x = rung_refusal(r, rf);
	if (x) {
		r->refused = x;
		snprintf(r->why, sizeof(r->why), "%s: %s", x->prog, nm_refusal_str(x, e, sizeof(e)));
		*errp = x->err;
		return x->err;
	}
	if (r->kfunc && btf__find_by_name_kind(btf, r->kfunc, BTF_KIND_FUNC) < 0) {
		snprintf(r->why, sizeof(r->why), "kfunc %s: not in kernel BTF", r->kfunc);
		*errp = -ENOENT;
		return -ENOENT;
	}
	if (r->enumval && !nm_btf_has_enumerator(btf, r->enumval)) {
		snprintf(r->why, sizeof(r->why), "enum value %s: not in kernel BTF", r->enumval);
		*errp = -ENOENT;
		return -ENOENT;
	}
	/* unknown (the probe could not tell): the load tells */
	if (r->helper.id && nm_probe_tracing_helper(r->helper.id) == 0) {
		snprintf(r->why, sizeof(r->why), "helper %s: not for tracing programs on this kernel",
			 r->helper.name);
		*errp = -EOPNOTSUPP;
		return -EOPNOTSUPP;
	}
	for (int i = 0; i < NM_RUNG_PROGS && r->progs[i]; i++) {
		err = probe_prog(btf, r->progs[i]);
		if (err) {
			const char *what = bpf_program__type(r->progs[i]) == BPF_PROG_TYPE_KPROBE ?
						   "this kernel has no kprobes (CONFIG_KPROBE_EVENTS)" :
					   err == -ENOENT ? "not in kernel BTF" : errno_str(-err, e, sizeof(e));

			snprintf(r->why, sizeof(r->why), "%s: %s", bpf_program__section_name(r->progs[i]),
				 what);
			*errp = err;
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
		      const struct nm_refusals *rf, char *err, size_t errlen)
{
	const char *last = "no rung allowed by --hooks", *stage = "attach";
	const struct nm_rung *lastr = NULL;
	int lasterr = 0;

	h->chosen = -1;
	for (int i = 0; i < h->nrungs; i++) {
		struct nm_rung *r = &h->rungs[i];

		if (!rung_allowed(h, r, mode)) {
			if (r->progs[0])
				label_prog_rung(r);
			snprintf(r->why, sizeof(r->why), "not allowed by --hooks");
			continue;
		}
		if (h->chosen < 0 && probe_rung(btf, r, rf, &lasterr) == 0) {
			h->chosen = i;
		} else if (h->chosen < 0) {
			last = r->why;
			lastr = r;
		} else if (r->progs[0])
			label_prog_rung(r);
	}
	if (h->chosen < 0) {
		if (lastr && lastr->refused)
			stage = lastr->refused->stage;
		snprintf(err, errlen, "hook %s: no rung left on this kernel: %s; %s", h->name, last,
			 lasterr ? hint(lasterr, stage, lastr && lastr->refused && lastr->refused->injected) :
				   "allow its fentry/fexit or tracepoint rungs (--hooks=auto)");
		return -1;
	}
	nm_hook_explain_loss(h);
	return 0;
}

/*
 * Off for every rung of every hook, then on for each chosen one: rungs
 * may share a program (qdiscstuck's __qdisc_run rung 1 and rung 2 both
 * hold qs_dequeue_tp), which loads when any chosen rung holds it.
 */
static void set_autoload(struct nm_hook *hooks, int n)
{
	for (int k = 0; k < n; k++)
		for (int i = 0; hooks[k].name && i < hooks[k].nrungs; i++)
			for (int j = 0; j < NM_RUNG_PROGS && hooks[k].rungs[i].progs[j]; j++)
				bpf_program__set_autoload(hooks[k].rungs[i].progs[j], false);
	for (int k = 0; k < n; k++) {
		const struct nm_hook *h = &hooks[k];

		for (int j = 0; h->name && h->chosen >= 0 && j < NM_RUNG_PROGS &&
				h->rungs[h->chosen].progs[j]; j++)
			bpf_program__set_autoload(h->rungs[h->chosen].progs[j], true);
	}
}

static bool enum_has(const struct btf *btf, const struct btf_type *t, const char *name)
{
	for (int i = 0; i < btf_vlen(t); i++) {
		__u32 off = btf_is_enum(t) ? btf_enum(t)[i].name_off : btf_enum64(t)[i].name_off;

		if (!strcmp(btf__name_by_offset(btf, off), name))
			return true;
	}
	return false;
}

bool nm_btf_has_enumerator(const struct btf *btf, const char *name)
{
	__u32 n = btf__type_cnt(btf);

	for (__u32 id = 1; id < n; id++) {
		const struct btf_type *t = btf__type_by_id(btf, id);

		if (btf_is_any_enum(t) && enum_has(btf, t, name))
			return true;
	}
	return false;
}

/* A tp_btf program that calls helper id with arguments of no type: only the verifier's answer matters. */
static int probe_helper_load(const struct btf *btf, int id)
{
	struct bpf_insn insns[] = {
		{ .code = BPF_ALU64 | BPF_MOV | BPF_K, .dst_reg = BPF_REG_1, .imm = 0 },
		{ .code = BPF_ALU64 | BPF_MOV | BPF_K, .dst_reg = BPF_REG_2, .imm = 0 },
		{ .code = BPF_ALU64 | BPF_MOV | BPF_K, .dst_reg = BPF_REG_3, .imm = 0 },
		{ .code = BPF_ALU64 | BPF_MOV | BPF_K, .dst_reg = BPF_REG_4, .imm = 0 },
		{ .code = BPF_JMP | BPF_CALL, .imm = id },
		{ .code = BPF_ALU64 | BPF_MOV | BPF_K, .dst_reg = BPF_REG_0, .imm = 0 },
		{ .code = BPF_JMP | BPF_EXIT },
	};
	char log[4096] = "";
	int tid = btf__find_by_name_kind(btf, "btf_trace_net_dev_queue", BTF_KIND_TYPEDEF), fd, err;

	if (tid < 0)
		return -ENOENT;
	LIBBPF_OPTS(bpf_prog_load_opts, opts, .expected_attach_type = BPF_TRACE_RAW_TP,
		    .attach_btf_id = tid, .log_buf = log, .log_size = sizeof(log), .log_level = 1);
	fd = bpf_prog_load(BPF_PROG_TYPE_TRACING, "nm_probe", "GPL", insns,
			   sizeof(insns) / sizeof(insns[0]), &opts);
	err = fd < 0 ? -errno : 0;
	if (fd >= 0) {
		close(fd);
		return 1;
	}
	/* the helper is looked up before its arguments are checked */
	if (strstr(log, "unknown func") || strstr(log, "invalid func"))
		return 0;
	/* refused over its arguments: the helper is there; no log: a policy, which tells nothing */
	return log[0] ? 1 : err;
}

int nm_probe_tracing_helper(int id)
{
	static struct {
		int id, ret;
	} memo[4];
	static int nmemo;
	struct btf *btf;
	int ret;

	for (int i = 0; i < nmemo; i++)
		if (memo[i].id == id)
			return memo[i].ret;
	btf = btf__load_vmlinux_btf();
	if (!btf)
		return -errno;
	ret = probe_helper_load(btf, id);
	btf__free(btf);
	if (nmemo < 4)
		memo[nmemo++] = (typeof(memo[0])){ id, ret };
	return ret;
}

const char *nm_btf_strerror(int e)
{
	e = e < 0 ? -e : e;
	/* libbpf's own codes (LIBBPF_ERRNO__*, 4000 up): the file is no BTF it can read */
	if (e >= 4000 && e < 4100)
		return "not a BTF file (raw BTF such as /sys/kernel/btf/vmlinux, or an ELF file with a .BTF section)";
	if (e == EINVAL || e == EPROTO)
		return "not a BTF file, or BTF this libbpf cannot read";
	return strerror(e);
}

int nm_hooks_choose(struct nm_hook *hooks, int n, enum nm_hook_mode mode,
		    const char *btf_path, const struct nm_refusals *rf, char *err, size_t errlen)
{
	struct btf *btf;
	int ret = 0;

	btf = btf_path ? btf__parse(btf_path, NULL) : btf__load_vmlinux_btf();
	if (!btf) {
		snprintf(err, errlen, "cannot read kernel BTF%s%s: %s", btf_path ? " at " : "",
			 btf_path ? btf_path : "", nm_btf_strerror(errno));
		return -1;
	}
	for (int i = 0; i < n && !ret; i++)
		if (hooks[i].name)
			ret = choose_one(btf, &hooks[i], mode, rf, err, errlen);
	btf__free(btf);
	if (!ret)
		set_autoload(hooks, n);
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

	if (nm_hook_lost(h))
		return "none";
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
		if (hooks[i].name)
			off += snprintf(buf + off, len - off, "%s%s=%s", off ? " " : "", hooks[i].name,
					nm_hook_label(&hooks[i]));
	return buf;
}

/*
 * loaded; set aside (loaded, but the tool took another rung after the
 * load); refused (the kernel, or NETMEDIC_REFUSE, refused this program);
 * rung refused (its probe, a missing kfunc, or another of its programs);
 * not allowed (--hooks); not loaded (a better rung was chosen).
 */
static const char *prog_state(const struct nm_hook *h, int j, const struct bpf_program *p)
{
	const struct nm_rung *r = &h->rungs[j];

	/* a hook not chosen for (an earlier core hook had no rung): nothing loaded */
	if (h->chosen < 0)
		return r->refused ? "refused" : "not loaded";
	if (bpf_program__autoload(p))
		return j == h->chosen ? "loaded" : "set aside";
	if (r->refused && !strcmp(r->refused->prog, bpf_program__name(p)))
		return "refused";
	if (!strcmp(r->why, "not allowed by --hooks"))
		return "not allowed";
	return r->why[0] ? "rung refused" : "not loaded";
}

#define RR(f)	offsetof(struct nm_hook_rung_row, f)
#define PR(f)	offsetof(struct nm_hook_prog_row, f)

/* --list-hooks' two tables, and its JSON lines (--json): the same columns, as keys */
static const struct nm_field rung_fields[] = {
	{ .json = "hook", .type = NM_REC_STRP, .off = RR(hook), .col = "HOOK", .colno = 1,
	  .width = -16 },
	{ .json = "rung", .type = NM_REC_U32, .off = RR(rung), .col = "RUNG", .colno = 2, .width = -4 },
	{ .json = "program", .type = NM_REC_STR, .off = RR(program), .col = "PROGRAM", .colno = 3,
	  .width = -36 },
	{ .json = "verdict", .type = NM_REC_STR, .off = RR(verdict), .col = "VERDICT", .colno = 4,
	  .width = -7 },
};

static const struct nm_field prog_fields[] = {
	{ .json = "program", .type = NM_REC_STRP, .off = PR(program), .col = "PROGRAM", .colno = 1,
	  .width = -24 },
	{ .json = "hook", .type = NM_REC_STRP, .off = PR(hook), .col = "HOOK", .colno = 2,
	  .width = -16 },
	{ .json = "rung", .type = NM_REC_U32, .off = PR(rung), .col = "RUNG", .colno = 3, .width = -4 },
	{ .json = "state", .type = NM_REC_STRP, .off = PR(state), .col = "STATE", .colno = 4,
	  .width = -5 },
};

const struct nm_record nm_hook_rung_rec = NM_RECORD("rung", rung_fields);
const struct nm_record nm_hook_prog_rec = NM_RECORD("program", prog_fields);

/* Every rung of h as a row: chosen (with what it loses), not needed, or why it was refused. */
static size_t rung_rows(const struct nm_hook *h, struct nm_hook_rung_row *rows)
{
	for (int j = 0; j < h->nrungs; j++) {
		const struct nm_rung *r = &h->rungs[j];
		struct nm_hook_rung_row *row = &rows[j];

		row->hook = h->name;
		row->rung = j + 1;
		snprintf(row->program, sizeof(row->program), "%s%s%s", r->label, r->kfunc ? "+" : "",
			 r->kfunc ? r->kfunc : "");
		if (j != h->chosen)
			snprintf(row->verdict, sizeof(row->verdict), "%s",
				 r->why[0] ? r->why : "not needed");
		else
			snprintf(row->verdict, sizeof(row->verdict), "chosen%s%s", r->lost ? ": " : "",
				 r->lost ? r->lost : "");
	}
	return h->nrungs;
}

/* Each program once, with the rung that holds it (the chosen one, if a shared program is). */
static size_t prog_rows(const struct nm_hook *hooks, int n, const struct nm_hook *h,
			struct nm_hook_prog_row *rows)
{
	size_t k = 0;

	for (int j = 0; j < h->nrungs; j++) {
		const struct nm_rung *r = &h->rungs[j];

		for (int p = 0; p < NM_RUNG_PROGS && r->progs[p]; p++) {
			const struct bpf_program *prog = r->progs[p];
			int rj = -1;

			/* a program shared by rungs: once, at the rung find_prog names */
			if (nm_hooks_find_prog((struct nm_hook *)hooks, n, prog, &rj) != h || rj != j)
				continue;
			rows[k++] = (struct nm_hook_prog_row){
				.program = bpf_program__name(prog), .hook = h->name, .rung = j + 1,
				.state = prog_state(h, j, prog),
			};
		}
	}
	return k;
}

/* Both tables' rows, of every hook: at most NM_MAX_RUNGS a hook, NM_RUNG_PROGS a rung */
struct listing {
	struct nm_hook_rung_row rungs[NM_MAX_HOOKS * NM_MAX_RUNGS];
	struct nm_hook_prog_row progs[NM_MAX_HOOKS * NM_MAX_RUNGS * NM_RUNG_PROGS];
	size_t nrungs, nprogs;
};

/* The rows of hooks[0, n); NULL when out of memory */
static struct listing *listing(const struct nm_hook *hooks, int n)
{
	struct listing *l = calloc(1, sizeof(*l));

	for (int i = 0; l && i < n && i < NM_MAX_HOOKS; i++) {
		if (!hooks[i].name)
			continue;
		l->nrungs += rung_rows(&hooks[i], &l->rungs[l->nrungs]);
		l->nprogs += prog_rows(hooks, n, &hooks[i], &l->progs[l->nprogs]);
	}
	return l;
}

void nm_hooks_list(FILE *f, const struct nm_hook *hooks, int n)
{
	struct listing *l = listing(hooks, n);

	if (!l)
		return;
	nm_rec_table(f, &nm_hook_rung_rec, l->rungs, sizeof(l->rungs[0]), l->nrungs, 0, NULL);
	fputc('\n', f);
	nm_rec_table(f, &nm_hook_prog_rec, l->progs, sizeof(l->progs[0]), l->nprogs, 0, NULL);
	free(l);
}

void nm_hooks_list_json(FILE *f, const struct nm_hook *hooks, int n, const char *tool, time_t time)
{
	struct listing *l = listing(hooks, n);

	if (!l)
		return;
	for (size_t i = 0; i < l->nrungs; i++)
		nm_rec_json_at(f, &nm_hook_rung_rec, &l->rungs[i], tool, time);
	for (size_t i = 0; i < l->nprogs; i++)
		nm_rec_json_at(f, &nm_hook_prog_rec, &l->progs[i], tool, time);
	free(l);
}

struct nm_hook *nm_hooks_find_prog(struct nm_hook *hooks, int n, const struct bpf_program *p,
				   int *rung)
{
	struct nm_hook *found = NULL;

	for (int i = 0; i < n; i++) {
		struct nm_hook *h = &hooks[i];

		for (int j = 0; h->name && j < h->nrungs; j++)
			for (int k = 0; k < NM_RUNG_PROGS && h->rungs[j].progs[k]; k++) {
				if (h->rungs[j].progs[k] != p)
					continue;
				/* the chosen rung, if it holds it; else the first */
				if (!found || j == h->chosen) {
					found = h;
					*rung = j;
				}
			}
	}
	return found;
}

void nm_hooks_each_refusal(const struct nm_hook *hooks, int n,
			   void (*fn)(const struct nm_refusal *r, const struct nm_hook *h, void *arg),
			   void *arg)
{
	const struct nm_refusal *seen[NM_MAX_REFUSED];
	int nseen = 0;

	for (int i = 0; i < n; i++)
		for (int j = 0; hooks[i].name && j < hooks[i].nrungs; j++) {
			const struct nm_refusal *r = hooks[i].rungs[j].refused;
			bool dup = false;

			for (int k = 0; r && k < nseen; k++)
				dup |= seen[k] == r;
			if (!r || dup || nseen >= NM_MAX_REFUSED)
				continue;
			seen[nseen++] = r;
			fn(r, &hooks[i], arg);
		}
}

struct losses {
	char *buf;
	size_t len, off;
	int n;
};

static void add_refusal(const struct nm_refusal *r, const struct nm_hook *h, void *arg)
{
	struct losses *l = arg;
	char e[96];

	(void)h;
	if (l->off >= l->len)
		return;
	l->off += snprintf(l->buf + l->off, l->len - l->off, "%s%s (%s)", l->n++ ? ", " : "; refused: ",
			   r->prog, nm_refusal_str(r, e, sizeof(e)));
}

const char *nm_hooks_losses(const struct nm_hook *hooks, int n, bool refusals, char *buf, size_t len)
{
	struct losses l = { .buf = buf, .len = len };
	int lost = 0;

	buf[0] = 0;
	if (refusals)
		nm_hooks_each_refusal(hooks, n, add_refusal, &l);
	for (int i = 0; i < n && l.off < len; i++)
		if (hooks[i].name && nm_hook_lost(&hooks[i]))
			l.off += snprintf(buf + l.off, len - l.off, "%s%s (%s)", lost++ ? ", " : "; lost: ",
					  hooks[i].name, hooks[i].rungs[hooks[i].chosen].lost);
	return buf;
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
