/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The hook ladder: every logical hook (the kernel function the mission names)
 * has rungs, best first. The first rung whose programs load and attach on
 * this kernel wins; the programs of every other rung are not loaded.
 */
#ifndef NETMEDIC_HOOKS_H
#define NETMEDIC_HOOKS_H

#include <stdbool.h>
#include <stdio.h>
#include <bpf/libbpf.h>

#define NM_MAX_RUNGS		4
#define NM_RUNG_PROGS		4
#define NM_MAX_HOOKS		8	/* logical hooks per tool */

enum nm_hook_mode {
	NM_HOOKS_AUTO,
	NM_HOOKS_FENTRY,	/* fentry/fexit rungs only, where the hook has one */
	NM_HOOKS_TRACEPOINT,	/* never fentry/fexit */
};

struct nm_rung {
	struct bpf_program *progs[NM_RUNG_PROGS];	/* NULL-terminated */
	char label[64];		/* e.g. "fexit/netdev_core_pick_tx", filled in by nm_hooks_choose */
	const char *kfunc;	/* a kfunc its programs call: the rung needs it in kernel BTF */
	char why[96];		/* why it was refused, if it was */
};

struct nm_hook {
	const char *name;	/* logical hook, e.g. "netdev_pick_tx" */
	struct nm_rung rungs[NM_MAX_RUNGS];
	int nrungs;
	int chosen;		/* index into rungs, -1 before choosing */
};

/* Adds a rung of up to NM_RUNG_PROGS programs (NULL-terminated list) to hook. */
void nm_hook_rung(struct nm_hook *h, struct bpf_program *p0, struct bpf_program *p1);
/* A rung of three programs (e.g. fentry + fexit + a tracepoint they need). */
void nm_hook_rung3(struct nm_hook *h, struct bpf_program *p0, struct bpf_program *p1,
		   struct bpf_program *p2);
/*
 * The hook's last rung calls kfunc (declared __weak): it is refused where
 * kernel BTF has no such function, and the next rung, without it, is taken.
 */
void nm_hook_rung_kfunc(struct nm_hook *h, const char *kfunc);
/* One more program in the hook's last rung (up to NM_RUNG_PROGS in all). */
void nm_hook_rung_add(struct nm_hook *h, struct bpf_program *p);
/*
 * A rung served by other programs (e.g. the owner bit read at a tracepoint
 * another hook attaches): always available, named by label.
 */
void nm_hook_rung_virtual(struct nm_hook *h, const char *label);

/*
 * Probes each rung with a minimal program of the same type and attach point,
 * chooses one per hook and turns autoload off for the programs of the other
 * rungs. Call between skeleton open and load. btf_path may be NULL (the
 * running kernel's). Returns 0, or -1 with a one-line reason in err.
 */
int nm_hooks_choose(struct nm_hook *hooks, int n, enum nm_hook_mode mode,
		    const char *btf_path, char *err, size_t errlen);

/* "netdev_pick_tx=tp_btf/net_dev_queue net_dev_xmit=tp_btf/net_dev_start_xmit" */
const char *nm_hooks_summary(const struct nm_hook *hooks, int n, char *buf, size_t len);

/* Mode of the chosen rung for metrics/JSON: "fentry", "fexit", "tp_btf", "raw_tp", ... */
const char *nm_hook_mode_name(const struct nm_hook *h);
const char *nm_hook_label(const struct nm_hook *h);

/* --list-hooks: every rung of every hook, with the verdict of the probe. */
void nm_hooks_list(FILE *f, const struct nm_hook *hooks, int n);

int nm_parse_hook_mode(const char *s, enum nm_hook_mode *mode);

/*
 * True when a chosen rung is fentry/fexit: the probe proved the attach
 * point, but the real programs may still fail the verifier of an older
 * kernel. Loaders then retry once with NM_HOOKS_TRACEPOINT (auto only).
 */
bool nm_hooks_any_fentry(const struct nm_hook *hooks, int n);

#endif
