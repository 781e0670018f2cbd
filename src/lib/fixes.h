/* SPDX-License-Identifier: GPL-2.0 */
/*
 * --list-fixes: a tool's remedies, the lever each pulls, and whether this
 * kernel allows it, probed for real (the sysctl file opens for writing, the
 * BPF program loads and runs, the command is there, the struct_ops type is
 * in the kernel's BTF). A tool declares a table; the probes and the
 * printer are the same for every tool.
 */
#ifndef NETMEDIC_FIXES_H
#define NETMEDIC_FIXES_H

#include <stddef.h>
#include <stdio.h>
#include "lib/skel.h"

/* The option, the same in every tool: add it to the tool's argp options. */
#define NM_LIST_FIXES_OPTION(key)							\
	{ "list-fixes", key, NULL, 0,							\
	  "Probe every remedy on this kernel: its lever and whether it is allowed, print, exit", 0 }

struct nm_fix {
	const char *name;	/* the --fix value or option: "kick", "--pin" */
	const char *lever;	/* what it changes: "sysctl net.ipv4.tcp_autocorking" */
	/* 0 when this kernel allows it (how, if it says, in why), else -errno with one clause in why */
	int (*probe)(const struct nm_fix *f, char *why, size_t len);
	const char *arg;	/* the probe's: a file, a command, a BTF type, a program */
	const struct nm_skel_ops *ops;	/* nm_fix_probe_prog: the skeleton holding arg */
};

/* arg: a sysctl or sysfs file that exists and opens for writing. */
int nm_fix_probe_file(const struct nm_fix *f, char *why, size_t len);
/* arg: a sysctl's name ("net.ipv4.tcp_autocorking"): its file, as above. */
int nm_fix_probe_sysctl(const struct nm_fix *f, char *why, size_t len);
/* arg: a command found on PATH and executable ("ip", "tc"). */
int nm_fix_probe_cmd(const struct nm_fix *f, char *why, size_t len);
/*
 * arg: a type in the kernel's BTF (NETMEDIC_BTF, else the running
 * kernel's): a struct_ops lever is there when its bpf_struct_ops_<ops>
 * type is, e.g. "bpf_struct_ops_Qdisc_ops" for BPF qdiscs (6.16+).
 */
int nm_fix_probe_btf_type(const struct nm_fix *f, char *why, size_t len);
/* arg: a program of ops' skeleton, loaded (and an iterator run once) alone. */
int nm_fix_probe_prog(const struct nm_fix *f, char *why, size_t len);

/*
 * Probes each remedy and prints one line per remedy under a header (the
 * record "fix"'s table):
 * "kick       iter/tcp + bpf_setsockopt(TCP_NODELAY)    allowed", or
 * "not allowed: <why>"; a probe that allows may say how in why: "allowed
 * <why>" ("allowed by iter/tcp"). Returns the number allowed. With --json
 * (nm_fixes_list_json), one JSON line a remedy instead, record "fix"
 * (fix, lever, verdict), stamped with tool and the time as every record is.
 */
int nm_fixes_list(FILE *out, const struct nm_fix *fixes, int n);
int nm_fixes_list_json(FILE *out, const struct nm_fix *fixes, int n, const char *tool);

#endif
