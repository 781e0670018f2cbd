/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The hook ladder: every logical hook (the kernel function the mission names)
 * has rungs, best first. The first rung whose programs load and attach on
 * this kernel wins; the programs of every other rung are not loaded.
 *
 * Every BPF program of a tool sits on a rung. A hook whose rungs are all
 * programs is core: the tool cannot run without one of them. A hook with a
 * virtual rung (served by what other programs read) or a "none" rung (the
 * feature is lost, and the rung says what the user loses) is optional:
 * whatever the kernel refuses, it ends on that rung and the tool runs on.
 */
#ifndef NETMEDIC_HOOKS_H
#define NETMEDIC_HOOKS_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <time.h>
#include <bpf/libbpf.h>
#include <bpf/btf.h>

#define NM_MAX_RUNGS		5
#define NM_RUNG_PROGS		4
#define NM_MAX_HOOKS		12	/* logical hooks per tool */

struct nm_record;

enum nm_hook_mode {
	NM_HOOKS_AUTO,
	NM_HOOKS_FENTRY,	/* function probes only (fentry/fexit, kprobe), where the hook has one */
	NM_HOOKS_TRACEPOINT,	/* no function probe: neither fentry/fexit nor kprobe */
};

/*
 * Programs the kernel refused in an earlier attempt (at load, attach or a
 * first run), or that NETMEDIC_REFUSE names. A loader keeps them across
 * the reopenings of its object, so each attempt skips their rungs.
 */
#define NM_MAX_REFUSED	32
struct nm_refusal {
	char prog[64];		/* program name */
	char sec[64];		/* its ELF section, e.g. "iter/bpf_sk_storage_map" */
	const char *stage;	/* "load", "attach", "run" */
	int err;		/* negative errno */
	bool injected;		/* NETMEDIC_REFUSE, not the kernel */
};

struct nm_refusals {
	struct nm_refusal r[NM_MAX_REFUSED];
	int n;
};

/* A helper some kernels lack in tracing programs (nm_probe_tracing_helper). */
struct nm_helper {
	int id;			/* enum bpf_func_id; 0: none */
	const char *name;	/* for the verdict: "bpf_sk_storage_get" */
};

struct nm_rung {
	struct bpf_program *progs[NM_RUNG_PROGS];	/* NULL-terminated */
	char label[64];		/* e.g. "fexit/netdev_core_pick_tx", filled in by nm_hooks_choose */
	const char *label_decl;	/* the declared label, in place of the section's name */
	const char *kfunc;	/* a kfunc its programs call: the rung needs it in kernel BTF */
	const char *enumval;	/* an enumerator its programs compare with: ... needs it too */
	struct nm_helper helper;	/* a helper its programs call: the kernel must allow it */
	const char *lost;	/* a "none" rung: what the user loses when it is the one left */
	const char *lost_base;	/* ... as declared, when the refusal is appended to it */
	char lost_buf[256];	/* lost_base: why the rung before was refused */
	char why[160];		/* why it was refused, if it was */
	/* the refusal of one of its programs at load, attach or run (the loader's list) */
	const struct nm_refusal *refused;
	unsigned int can;	/* what the rung can do: the tool's bits (nm_hook_can) */
};

struct nm_hook {
	const char *name;	/* logical hook, e.g. "netdev_pick_tx" */
	struct nm_rung rungs[NM_MAX_RUNGS];
	int nrungs;
	int chosen;		/* index into rungs, -1 before choosing */
};

/*
 * A tool declares its ladder as data: each hook's rungs, best first, name
 * their programs, or stand for them (virtual) or for their loss (none), and
 * say what they can do. Code then asks the chosen rung what it can do
 * (nm_hook_can), never which index won.
 */
struct nm_rung_decl {
	const char *progs[NM_RUNG_PROGS];	/* program names; none: virtual or lost */
	const char *virt;	/* a virtual rung's label ("sock_diag") */
	/* a program rung's label, where its section alone would not tell it from another rung's */
	const char *label;
	const char *lost;	/* the "none" rung: what the user loses */
	bool lost_why;		/* ... and why the rung before it was refused (a remedy asked for) */
	const char *kfunc;	/* a kfunc its programs call (nm_hook_rung_kfunc) */
	/*
	 * An enumerator of kernel BTF its programs compare with, by CO-RE
	 * (an argument that kernels without it do not pass): without it the
	 * rung is refused rather than loaded to see nothing.
	 */
	const char *enumval;
	/*
	 * A helper its programs call that older kernels do not give tracing
	 * programs: without it the rung is refused before the load, named.
	 */
	struct nm_helper helper;
	unsigned int can;	/* the tool's capability bits */
	unsigned int when;	/* declared only when the run wants all these bits; 0: always */
};

struct nm_hook_decl {
	const char *name;	/* the logical hook; NULL: the tool has no such hook */
	unsigned int when;	/* as the rung's: the hook only for these runs */
	struct nm_rung_decl rungs[NM_MAX_RUNGS];	/* ends at an empty one */
};

/*
 * A tool's ladder as data (src/NAME/hooks.c: NAME_hooks): its hooks, and
 * the programs of its object that sit on no rung (companions a rung's
 * programs need, loaded with them), NULL-ended.
 */
struct nm_hook_table {
	const char *tool;
	const struct nm_hook_decl *decls;
	int n;
	const char *const *companions;
};

/*
 * hooks[i] from decls[i], for the runs that want's bits select, with the
 * programs of obj by name. A name obj lacks is a tool's bug: its rung is
 * left out, stderr names it, and the count of such names is returned.
 */
int nm_hooks_declare(struct nm_hook *hooks, const struct nm_hook_decl *decls, int n,
		     const struct bpf_object *obj, unsigned int want);

/* The chosen rung can do all of can's bits (false before choosing). */
bool nm_hook_can(const struct nm_hook *h, unsigned int can);

/* Adds a rung of up to NM_RUNG_PROGS programs (NULL-terminated list) to hook. */
void nm_hook_rung(struct nm_hook *h, struct bpf_program *p0, struct bpf_program *p1);
/*
 * The hook's last rung calls kfunc (declared __weak): it is refused where
 * kernel BTF has no such function, and the next rung, without it, is taken.
 */
void nm_hook_rung_kfunc(struct nm_hook *h, const char *kfunc);
/*
 * A rung served by other programs (e.g. the owner bit read at a tracepoint
 * another hook attaches): always available, named by label.
 */
void nm_hook_rung_virtual(struct nm_hook *h, const char *label);

/*
 * The hook's last rung: the feature is lost. lost says what the user loses
 * ("backlog drops are not counted"); it makes the hook optional.
 */
void nm_hook_rung_none(struct nm_hook *h, const char *lost);
/*
 * The same, for a feature the user asked for (a remedy): when it is the
 * one left, its loss also says why the rung before it was refused:
 * "--fix=kick is not available on this kernel (ts_kick: load: ...)".
 */
void nm_hook_rung_none_why(struct nm_hook *h, const char *lost);
/* Once chosen (nm_hooks_choose calls it): the loss of such a rung gets the last refusal before it. */
void nm_hook_explain_loss(struct nm_hook *h);

/* Records that p was refused (err: negative errno). False when the list is full or p is in it. */
bool nm_refusal_add(struct nm_refusals *rf, const struct bpf_program *p, const char *stage,
		    int err, bool injected);
const struct nm_refusal *nm_refusal_find(const struct nm_refusals *rf, const char *prog);
/* "load: Operation not permitted (EPERM)", or "... by NETMEDIC_REFUSE" */
const char *nm_refusal_str(const struct nm_refusal *r, char *buf, size_t len);

/*
 * NETMEDIC_REFUSE=NAME[,NAME...] (a test aid, docs/KERNELS.md): true when
 * list names the program, by its name or by a prefix of its section
 * ("iter/bpf_sk_storage_map", "tp_btf/net_dev_queue", "fexit/").
 */
bool nm_refuse_match(const char *list, const char *prog, const char *sec);

/* What would make a refused program load, from its type and errno: one clause. */
const char *nm_refusal_hint(const struct nm_refusal *r);

/* btf has an enum (or enum64) with an enumerator of that name. */
bool nm_btf_has_enumerator(const struct btf *btf, const char *name);

/*
 * Whether a tp_btf program may call helper id (enum bpf_func_id) on the
 * running kernel: 1, 0, or a negative errno when the probe could not
 * tell (no kernel BTF, a policy refusing the program type). Kernels add
 * helpers to program types one by one (bpf_sk_storage_get in tracing
 * programs: 5.11); a loader clears the rodata flag that gates the calls.
 */
int nm_probe_tracing_helper(int id);

/* Why btf__parse() failed (errno), for a user: libbpf's own codes as words. */
const char *nm_btf_strerror(int e);

/*
 * Probes each rung with a minimal program of the same type and attach point,
 * skips the rungs holding a refused program (rf may be NULL), chooses one
 * per hook and turns autoload off for the programs of the other rungs.
 * Call between skeleton open and load. btf_path may be NULL (the running
 * kernel's). Returns 0, or -1 with a one-line reason in err naming the
 * core hook left with no rung, its last program, the errno and a hint.
 */
int nm_hooks_choose(struct nm_hook *hooks, int n, enum nm_hook_mode mode,
		    const char *btf_path, const struct nm_refusals *rf, char *err, size_t errlen);

/* The hook and rung that hold program p, chosen or not; NULL if none does. */
struct nm_hook *nm_hooks_find_prog(struct nm_hook *hooks, int n, const struct bpf_program *p,
				   int *rung);

/* The hook ends on its "none" rung: its feature is lost. */
bool nm_hook_lost(const struct nm_hook *h);
/* The hook has a virtual or none rung: the tool runs without its programs. */
bool nm_hook_optional(const struct nm_hook *h);

/*
 * What the kernel took away, for the first line: "" when nothing, else
 * "; refused: ts_sweep_tagged (load: Operation not permitted (EPERM));
 * lost: backlog_drop (backlog drops are not counted)". The programs
 * refused only with refusals: a refusal that a later rung makes up for
 * costs the user nothing, and -v shows it.
 */
const char *nm_hooks_losses(const struct nm_hook *hooks, int n, bool refusals, char *buf, size_t len);

/* Calls fn for each program refused at load, attach or run, once (rungs may share one). */
void nm_hooks_each_refusal(const struct nm_hook *hooks, int n,
			   void (*fn)(const struct nm_refusal *r, const struct nm_hook *h, void *arg),
			   void *arg);

/* "netdev_pick_tx=tp_btf/net_dev_queue net_dev_xmit=tp_btf/net_dev_start_xmit" */
const char *nm_hooks_summary(const struct nm_hook *hooks, int n, char *buf, size_t len);

/* Mode of the chosen rung for metrics/JSON: "fentry", "fexit", "tp_btf", "raw_tp", ... */
const char *nm_hook_mode_name(const struct nm_hook *h);
const char *nm_hook_label(const struct nm_hook *h);

/*
 * --list-hooks: every rung of every hook with its programs, and the
 * verdict: chosen, not needed, or why it was refused (the probe's, or the
 * kernel's errno at load or attach); then each program, the rung that
 * holds it and its state. Two tables, or with --json one JSON line a row
 * (records "rung" and "program", their columns as keys), stamped with
 * tool and time as every record is (nm_rec_json_at).
 */
struct nm_hook_rung_row {
	const char *hook;
	uint32_t rung;		/* from 1, best first */
	char program[96];	/* the rung's label, "+kfunc" when it needs one */
	char verdict[448];	/* chosen (": what is lost"), not needed, or why refused */
};

struct nm_hook_prog_row {
	const char *program, *hook;
	uint32_t rung;
	const char *state;	/* loaded, set aside, refused, rung refused, not allowed, not loaded */
};

extern const struct nm_record nm_hook_rung_rec, nm_hook_prog_rec;

void nm_hooks_list(FILE *f, const struct nm_hook *hooks, int n);
void nm_hooks_list_json(FILE *f, const struct nm_hook *hooks, int n, const char *tool, time_t time);

int nm_parse_hook_mode(const char *s, enum nm_hook_mode *mode);


#endif
