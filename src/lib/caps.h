/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Least privilege: which capabilities a run needs before it loads anything,
 * which it keeps once its programs are attached, and the calls that check
 * and drop them (raw capget/capset/prctl: no libcap).
 *
 * The decisions (nm_caps_needed, nm_caps_missing, nm_caps_keep) are pure
 * functions of what the options ask for; the rest reads or changes the
 * process.
 */
#ifndef NETMEDIC_LIB_CAPS_H
#define NETMEDIC_LIB_CAPS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/resource.h>
#include <sys/types.h>

#define NM_CAP(c)	(1ULL << (c))

/* What a run asks for, as far as privileges go. */
struct nm_caps_run {
	bool load;		/* loads BPF programs (every run but --cleanup) */
	bool netns;		/* --netns: setns, unshare(CLONE_NEWNS), a sysfs mount */
	bool netns_proc;	/* --netns /proc/PID/ns/net: another process's namespace */
	bool remedy;		/* changes state: tc, netlink, net sysctls (CAP_NET_ADMIN) */
	bool remedy_sysfs;	/* writes sysfs files (xps_cpus, rps_flow_cnt), owned by root */
	bool remedy_setns;	/* enters another netns to change or restore (tcpstall --fix=rfs) */
	bool remedy_exec;	/* runs tc or ip, which need CAP_NET_ADMIN in the child */
	bool raw;		/* AF_PACKET frames (qdiscstuck --fix=kick, --kick) */
	bool net_prog;		/* loads a tc program (sched_cls: CAP_NET_ADMIN) */
	bool bpf_stats;		/* BPF_ENABLE_STATS: CAP_SYS_ADMIN */
	/*
	 * The names of other namespaces than the tool's, and of their devices
	 * (a scope of every netns, or two and more: lib/scope.h): ptrace
	 * access to other users' /proc/PID/ns/net, setns to open a socket in
	 * each. Optional: without them the names are lost, the run goes on.
	 * names_ptrace and names_setns: the effective set has them (kept).
	 */
	bool names;
	bool names_ptrace, names_setns;
	/*
	 * A __weak kfunc of the object is not in vmlinux BTF (bpf_rdonly_cast
	 * before 6.2): libbpf then walks the modules' BTF for it
	 * (BPF_BTF_GET_NEXT_ID, CAP_SYS_ADMIN), for the whole object, whichever
	 * rung loads.
	 */
	bool module_btf;
	bool cleanup;		/* --cleanup: undoes journals (tc, sysctl, sysfs, their netns) */
	bool cleanup_bpf;	/* ... and loads a program to undo (tcpstall's sockopt records) */
	bool cleanup_sysfs;	/* ... and restores sysfs files, owned by root (xps_cpus, rps_flow_cnt) */
	/*
	 * Takes sockets of other processes (pidfd_getfd: ptrace access),
	 * found in their /proc/PID/fd (other users': CAP_DAC_READ_SEARCH),
	 * where no BPF program may change them (tcpstall --fix=kick before
	 * 5.15). Optional: without them such a remedy fails, and says so.
	 * getfd: the run may, cleanup_getfd: --cleanup may; getfd_keep: the
	 * load chose to (set before the drop), so the run keeps both.
	 */
	bool getfd, cleanup_getfd, getfd_keep;
	bool prom_dac;		/* the --prom-file directory is writable only with CAP_DAC_OVERRIDE */
	bool listen_low;	/* --listen on a port below 1024 (bound at start, not kept) */
	bool journal;		/* writes an undo journal (under nm_journal_dir()) */
	bool journal_dac;	/* ... in a directory (or parent, to create it) writable only with CAP_DAC_OVERRIDE */
	bool no_cap_bpf;	/* the kernel has no CAP_BPF/CAP_PERFMON (< 5.8): CAP_SYS_ADMIN */
	/*
	 * Every bpf() command, map reads on held fds too, asks for CAP_BPF
	 * while kernel.unprivileged_bpf_disabled is set: kernels before 5.19
	 * (c8644cd0efe7 kept the check for map creation and loads only).
	 */
	bool bpf_cmds_need_cap;
	uid_t euid;
	const char *remedy_opt;	/* named in the message: "--pin", "--fix" */
};

struct nm_cap_need {
	int cap;
	const char *what;	/* "--netns", "loading BPF programs" */
	const char *why;	/* "setns" */
	bool optional;		/* the run goes on without it, with less (--print-caps lists it) */
};

#define NM_CAPS_MAX_NEEDS 16

/*
 * Adds what from asks for to into (the agent: each detector's part of one
 * run). A field either asks for is asked for; remedy_opt is the first given.
 */
void nm_caps_run_merge(struct nm_caps_run *into, const struct nm_caps_run *from);

/* The capabilities the run needs, each with what needs it; their number. */
int nm_caps_needed(const struct nm_caps_run *r, struct nm_cap_need *need, int max);

/*
 * The index of the first need the effective set eff lacks, or -1; an
 * optional need is never missing. As in
 * the kernel (bpf_capable, perfmon_capable), CAP_SYS_ADMIN stands in for
 * CAP_BPF and CAP_PERFMON.
 */
int nm_caps_missing(const struct nm_cap_need *need, int n, uint64_t eff);

/*
 * What to keep once the programs are attached (maps and iterators are read
 * through fds the process holds, which needs no capability); *why says
 * what for ("remedies"), or NULL when nothing is kept.
 */
uint64_t nm_caps_keep(const struct nm_caps_run *r, const char **why);

/* What a worker thread keeps: nm_caps_keep's set less what only naming and --prom-file need. */
uint64_t nm_caps_keep_worker(const struct nm_caps_run *r);

/* Of the kept set, what must pass to the commands the run executes (ambient). */
uint64_t nm_caps_ambient(const struct nm_caps_run *r, uint64_t keep);

/*
 * Whether a directory of this owner and mode lets euid (in its group when
 * in_group) create and rename files without CAP_DAC_OVERRIDE.
 */
bool nm_caps_dir_writable(uid_t uid, mode_t mode, uid_t euid, bool in_group);

/* Whether a kernel release ("5.15.0-91-generic") is older than maj.min; false when unparsable. */
bool nm_caps_release_before(const char *release, int maj, int min);
/*
 * Before 5.11 the kernel charges BPF memory to RLIMIT_MEMLOCK, not to the
 * memory cgroup. nm_setup raises the limit to infinity, which a user
 * without CAP_SYS_RESOURCE cannot do past the hard limit: a map or program
 * then fails with EPERM, and "the kernel's policy" would mislead. Writes
 * what to do instead into buf for a kernel of release whose soft limit is
 * cur; false on 5.11+ or an infinite limit.
 */
bool nm_caps_memlock_hint(const char *release, rlim_t cur, char *buf, size_t len);
/* nm_caps_memlock_hint for this process and kernel, worked out once; NULL when it does not apply. */
const char *nm_caps_eperm_hint(void);
/* kernel.unprivileged_bpf_disabled is set (unreadable: assume it is). */
bool nm_caps_unpriv_bpf_disabled(void);

/* "CAP_NET_ADMIN" ("CAP_38" past the table). */
const char *nm_cap_name(int cap, char *buf, size_t len);
/* "cap_net_admin,cap_sys_admin", or "none". */
const char *nm_caps_str(uint64_t mask, char *buf, size_t len);

/*
 * The effective set (capget); 0 on error. It first raises the effective
 * set to the permitted one (a file capability without +e, for example),
 * which any process may do.
 */
uint64_t nm_caps_effective(void);
/* The kernel knows CAP_BPF (5.8+): /proc/sys/kernel/cap_last_cap >= 39. */
bool nm_caps_kernel_has_bpf(void);
/*
 * Keeps keep (permitted, effective; inheritable and ambient as ambient
 * says), drops the rest of the bounding set when CAP_SETPCAP allows, and
 * sets PR_SET_NO_NEW_PRIVS. Per thread: call it before any thread starts.
 * 0 or -errno, what failed in err.
 */
int nm_caps_drop(uint64_t keep, uint64_t ambient, char *err, size_t len);

#endif
