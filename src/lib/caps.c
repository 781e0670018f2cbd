// SPDX-License-Identifier: GPL-2.0
/*
 * caps.c - least privilege: the capabilities a run needs, those it keeps
 * after attach, and raw capget/capset/prctl to check and drop them.
 *
 * Capabilities are per thread: nm_caps_drop() runs before any thread
 * starts (tcpstall's kicker starts after it), and a worker drops further,
 * to nm_caps_keep_worker(), in its own first step.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/utsname.h>
#include <unistd.h>
#include <linux/capability.h>

#include "lib/caps.h"

#ifndef CAP_PERFMON
#define CAP_PERFMON	38
#endif
#ifndef CAP_BPF
#define CAP_BPF		39
#endif
#ifndef PR_CAP_AMBIENT
#define PR_CAP_AMBIENT		47
#define PR_CAP_AMBIENT_RAISE	2
#endif

static const char *const cap_names[] = {
	[CAP_CHOWN] = "chown", [CAP_DAC_OVERRIDE] = "dac_override",
	[CAP_DAC_READ_SEARCH] = "dac_read_search", [CAP_FOWNER] = "fowner",
	[CAP_FSETID] = "fsetid", [CAP_KILL] = "kill", [CAP_SETGID] = "setgid",
	[CAP_SETUID] = "setuid", [CAP_SETPCAP] = "setpcap",
	[CAP_LINUX_IMMUTABLE] = "linux_immutable", [CAP_NET_BIND_SERVICE] = "net_bind_service",
	[CAP_NET_BROADCAST] = "net_broadcast", [CAP_NET_ADMIN] = "net_admin",
	[CAP_NET_RAW] = "net_raw", [CAP_IPC_LOCK] = "ipc_lock", [CAP_IPC_OWNER] = "ipc_owner",
	[CAP_SYS_MODULE] = "sys_module", [CAP_SYS_RAWIO] = "sys_rawio",
	[CAP_SYS_CHROOT] = "sys_chroot", [CAP_SYS_PTRACE] = "sys_ptrace",
	[CAP_SYS_PACCT] = "sys_pacct", [CAP_SYS_ADMIN] = "sys_admin", [CAP_SYS_BOOT] = "sys_boot",
	[CAP_SYS_NICE] = "sys_nice", [CAP_SYS_RESOURCE] = "sys_resource",
	[CAP_SYS_TIME] = "sys_time", [CAP_SYS_TTY_CONFIG] = "sys_tty_config",
	[CAP_MKNOD] = "mknod", [CAP_LEASE] = "lease", [CAP_AUDIT_WRITE] = "audit_write",
	[CAP_AUDIT_CONTROL] = "audit_control", [CAP_SETFCAP] = "setfcap",
	[CAP_MAC_OVERRIDE] = "mac_override", [CAP_MAC_ADMIN] = "mac_admin",
	[CAP_SYSLOG] = "syslog", [CAP_WAKE_ALARM] = "wake_alarm",
	[CAP_BLOCK_SUSPEND] = "block_suspend", [CAP_AUDIT_READ] = "audit_read",
	[CAP_PERFMON] = "perfmon", [CAP_BPF] = "bpf", [40] = "checkpoint_restore",
};

#define NCAPS ((int)(sizeof(cap_names) / sizeof(cap_names[0])))

const char *nm_cap_name(int cap, char *buf, size_t len)
{
	size_t i;

	if (cap < 0 || cap >= NCAPS || !cap_names[cap]) {
		snprintf(buf, len, "CAP_%d", cap);
		return buf;
	}
	snprintf(buf, len, "CAP_%s", cap_names[cap]);
	for (i = 4; buf[i]; i++)
		if (buf[i] >= 'a' && buf[i] <= 'z')
			buf[i] -= 'a' - 'A';
	return buf;
}

const char *nm_caps_str(uint64_t mask, char *buf, size_t len)
{
	size_t off = 0;

	if (!len)
		return buf;
	buf[0] = 0;
	for (int c = 0; c < 64 && off < len; c++) {
		if (!(mask & NM_CAP(c)))
			continue;
		if (c < NCAPS && cap_names[c])
			off += snprintf(buf + off, len - off, "%scap_%s", off ? "," : "", cap_names[c]);
		else
			off += snprintf(buf + off, len - off, "%scap_%d", off ? "," : "", c);
	}
	if (!buf[0])
		snprintf(buf, len, "none");
	return buf;
}

static int add(struct nm_cap_need *need, int n, int max, int cap, const char *what, const char *why)
{
	if (n < max)
		need[n] = (struct nm_cap_need){ .cap = cap, .what = what, .why = why };
	return n + 1;
}

/* A capability the run does without, with less: listed, never missing. */
static int add_optional(struct nm_cap_need *need, int n, int max, int cap, const char *what,
			const char *why)
{
	n = add(need, n, max, cap, what, why);
	if (n <= max)
		need[n - 1].optional = true;
	return n;
}

static int add_bpf(const struct nm_caps_run *r, struct nm_cap_need *need, int n, int max,
		   const char *what)
{
	/* before 5.8 the kernel asks CAP_SYS_ADMIN for both */
	if (r->no_cap_bpf)
		return add(need, n, max, CAP_SYS_ADMIN, what, "bpf() and tracing, a kernel without CAP_BPF");
	n = add(need, n, max, CAP_BPF, what, "bpf()");
	return add(need, n, max, CAP_PERFMON, what, "tracing programs");
}

/* Another process's socket: optional, only some kernels need this way (nm_caps_run.getfd). */
static int add_getfd(struct nm_cap_need *need, int n, int max, const char *what)
{
	n = add_optional(need, n, max, CAP_SYS_PTRACE, what,
			 "pidfd_getfd: a socket taken from its process, where BPF may not change it");
	return add_optional(need, n, max, CAP_DAC_READ_SEARCH, what,
			    "other users' /proc/PID/fd: the process holding such a socket");
}

int nm_caps_needed(const struct nm_caps_run *r, struct nm_cap_need *need, int max)
{
	const char *opt = r->remedy_opt ? r->remedy_opt : "the remedy";
	int n = 0;

	if (r->cleanup) {
		n = add(need, n, max, CAP_NET_ADMIN, "--cleanup", "tc, net sysctls");
		n = add(need, n, max, CAP_SYS_ADMIN, "--cleanup", "entering a journal's netns");
		if (r->cleanup_sysfs && r->euid != 0)
			n = add(need, n, max, CAP_DAC_OVERRIDE, "--cleanup", "sysfs files owned by root");
		if (r->journal_dac)
			n = add(need, n, max, CAP_DAC_OVERRIDE, "--cleanup",
				"a journal directory this user cannot write");
		if (r->cleanup_bpf)
			n = add_bpf(r, need, n, max, "--cleanup");
		if (r->cleanup_getfd)
			n = add_getfd(need, n, max, "--cleanup");
		return n < max ? n : max;
	}
	if (r->load)
		n = add_bpf(r, need, n, max, "loading BPF programs");
	if (r->netns)
		n = add(need, n, max, CAP_SYS_ADMIN, "--netns", "setns");
	if (r->netns_proc)
		n = add(need, n, max, CAP_SYS_PTRACE, "--netns", "another process's /proc/PID/ns");
	if (r->net_prog)
		n = add(need, n, max, CAP_NET_ADMIN, opt, "a tc BPF program");
	if (r->remedy)
		n = add(need, n, max, CAP_NET_ADMIN, opt, "tc, netlink, net sysctls");
	if (r->remedy_sysfs && r->euid != 0)
		n = add(need, n, max, CAP_DAC_OVERRIDE, opt, "sysfs files owned by root");
	if (r->remedy_setns)
		n = add(need, n, max, CAP_SYS_ADMIN, opt, "setns to the initial netns");
	if (r->journal && r->journal_dac)
		n = add(need, n, max, CAP_DAC_OVERRIDE, opt, "a journal directory this user cannot write");
	if (r->raw)
		n = add(need, n, max, CAP_NET_RAW, opt, "AF_PACKET frames");
	if (r->getfd)
		n = add_getfd(need, n, max, opt);
	if (r->bpf_stats)
		n = add(need, n, max, CAP_SYS_ADMIN, "--bpf-stats", "BPF_ENABLE_STATS");
	if (r->names) {
		n = add_optional(need, n, max, CAP_SYS_PTRACE, "netns names",
				 "other users' /proc/PID/ns/net (else named by inode)");
		if (!r->netns)	/* else --netns asks for it already */
			n = add_optional(need, n, max, CAP_SYS_ADMIN, "device names",
					 "setns into other namespaces (else ifN)");
	}
	if (r->prom_dac)
		n = add(need, n, max, CAP_DAC_OVERRIDE, "--prom-file", "a directory this user cannot write");
	if (r->listen_low)
		n = add(need, n, max, CAP_NET_BIND_SERVICE, "--listen", "a port below 1024");
	/* last: what an option needs is named first, this only when nothing else lacks */
	if (r->load && r->module_btf)
		n = add(need, n, max, CAP_SYS_ADMIN, "loading BPF programs on this kernel",
			"libbpf searches the modules' BTF for a kfunc vmlinux lacks");
	return n < max ? n : max;
}

int nm_caps_missing(const struct nm_cap_need *need, int n, uint64_t eff)
{
	for (int i = 0; i < n; i++) {
		int c = need[i].cap;

		if (need[i].optional || (eff & NM_CAP(c)))
			continue;
		/* bpf_capable() and perfmon_capable() take CAP_SYS_ADMIN too */
		if ((c == CAP_BPF || c == CAP_PERFMON) && (eff & NM_CAP(CAP_SYS_ADMIN)))
			continue;
		return i;
	}
	return -1;
}

/* What the kept set is for, as -v says it: each reason, joined by ", ". */
static const char *keep_why(bool remedy, bool prom, bool names, bool maps)
{
	static const char *const part[] = { "remedies", "--prom-file", "netns names",
					    "map reads: a kernel before 5.19" };
	static char buf[128];
	bool on[] = { remedy, prom, names, maps };
	size_t off = 0;

	buf[0] = 0;
	for (size_t i = 0; i < sizeof(part) / sizeof(part[0]); i++)
		if (on[i] && off < sizeof(buf))
			off += snprintf(buf + off, sizeof(buf) - off, "%s%s", off ? ", " : "", part[i]);
	return buf[0] ? buf : NULL;
}

uint64_t nm_caps_keep(const struct nm_caps_run *r, const char **why)
{
	uint64_t keep = 0;
	bool has_remedy = r->remedy || r->raw || r->getfd_keep || (r->journal && r->journal_dac);

	if (r->remedy)
		keep |= NM_CAP(CAP_NET_ADMIN);
	if (r->remedy && r->remedy_sysfs && r->euid != 0)
		keep |= NM_CAP(CAP_DAC_OVERRIDE);
	if (r->remedy && r->remedy_setns)
		keep |= NM_CAP(CAP_SYS_ADMIN);
	/* the journal is written while the remedies are made, and removed at exit */
	if (r->journal && r->journal_dac)
		keep |= NM_CAP(CAP_DAC_OVERRIDE);
	if (r->raw)
		keep |= NM_CAP(CAP_NET_RAW);
	/* each remedy takes its socket again: the descriptor is not kept */
	if (r->getfd_keep)
		keep |= NM_CAP(CAP_SYS_PTRACE) | NM_CAP(CAP_DAC_READ_SEARCH);
	if (r->prom_dac)
		keep |= NM_CAP(CAP_DAC_OVERRIDE);
	/* each report names the namespaces that came since, and their devices */
	if (r->names && r->names_ptrace)
		keep |= NM_CAP(CAP_SYS_PTRACE);
	if (r->names && r->names_setns)
		keep |= NM_CAP(CAP_SYS_ADMIN);
	/* reading the maps, each interval, still needs it there */
	if (r->load && r->bpf_cmds_need_cap)
		keep |= NM_CAP(r->no_cap_bpf ? CAP_SYS_ADMIN : CAP_BPF);
	if (why)
		*why = keep_why(has_remedy, r->prom_dac, r->names && (r->names_ptrace || r->names_setns),
				r->load && r->bpf_cmds_need_cap);
	return keep;
}

/*
 * A worker thread (tcpstall's kicker) carries out plans and reads maps; it
 * names no namespace and writes no --prom-file, so the caps kept for those
 * stay with the main thread alone.
 */
uint64_t nm_caps_keep_worker(const struct nm_caps_run *r)
{
	struct nm_caps_run w = *r;

	w.names = false;
	w.prom_dac = false;
	return nm_caps_keep(&w, NULL);
}

uint64_t nm_caps_ambient(const struct nm_caps_run *r, uint64_t keep)
{
	return r->remedy_exec ? keep & NM_CAP(CAP_NET_ADMIN) : 0;
}

bool nm_caps_release_before(const char *release, int maj, int min)
{
	int a, b;

	if (!release || sscanf(release, "%d.%d", &a, &b) != 2)
		return false;
	return a < maj || (a == maj && b < min);
}

bool nm_caps_memlock_hint(const char *release, rlim_t cur, char *buf, size_t len)
{
	if (!nm_caps_release_before(release, 5, 11) || cur == RLIM_INFINITY)
		return false;
	snprintf(buf, len,
		 "kernel %s charges BPF maps and programs to RLIMIT_MEMLOCK (before 5.11), which is %llu KiB here and could not be raised (that needs CAP_SYS_RESOURCE): run under 'ulimit -l unlimited' or LimitMEMLOCK=infinity, as the systemd units do",
		 release, (unsigned long long)cur / 1024);
	return true;
}

const char *nm_caps_eperm_hint(void)
{
	static char buf[320];
	static int done;
	struct rlimit r;
	struct utsname u;

	if (!done) {
		done = 1;
		if (uname(&u) || getrlimit(RLIMIT_MEMLOCK, &r) ||
		    !nm_caps_memlock_hint(u.release, r.rlim_cur, buf, sizeof(buf)))
			buf[0] = 0;
	}
	return buf[0] ? buf : NULL;
}

bool nm_caps_unpriv_bpf_disabled(void)
{
	FILE *f = fopen("/proc/sys/kernel/unprivileged_bpf_disabled", "re");
	int v = 1;

	if (f) {
		if (fscanf(f, "%d", &v) != 1)
			v = 1;
		fclose(f);
	}
	return v != 0;
}

bool nm_caps_dir_writable(uid_t uid, mode_t mode, uid_t euid, bool in_group)
{
	/* the first class that matches decides, as in the kernel */
	if (uid == euid)
		return (mode & (S_IWUSR | S_IXUSR)) == (S_IWUSR | S_IXUSR);
	if (in_group)
		return (mode & (S_IWGRP | S_IXGRP)) == (S_IWGRP | S_IXGRP);
	return (mode & (S_IWOTH | S_IXOTH)) == (S_IWOTH | S_IXOTH);
}

/* ---- the process ---- */

static int caps_get(struct __user_cap_data_struct d[2])
{
	struct __user_cap_header_struct h = { .version = _LINUX_CAPABILITY_VERSION_3 };

	memset(d, 0, 2 * sizeof(*d));
	return syscall(SYS_capget, &h, d) ? -errno : 0;
}

static uint64_t word(uint32_t lo, uint32_t hi)
{
	return (uint64_t)hi << 32 | lo;
}

uint64_t nm_caps_effective(void)
{
	struct __user_cap_header_struct h = { .version = _LINUX_CAPABILITY_VERSION_3 };
	struct __user_cap_data_struct d[2];

	if (caps_get(d))
		return 0;
	if (d[0].effective != d[0].permitted || d[1].effective != d[1].permitted) {
		d[0].effective = d[0].permitted;
		d[1].effective = d[1].permitted;
		if (syscall(SYS_capset, &h, d) || caps_get(d))
			return 0;
	}
	return word(d[0].effective, d[1].effective);
}

static int last_cap(void)
{
	FILE *f = fopen("/proc/sys/kernel/cap_last_cap", "re");
	int c = -1;

	if (f) {
		if (fscanf(f, "%d", &c) != 1)
			c = -1;
		fclose(f);
	}
	return c;
}

bool nm_caps_kernel_has_bpf(void)
{
	int c = last_cap();

	/* unreadable (no /proc): assume a kernel of this decade */
	return c < 0 || c >= CAP_BPF;
}

int nm_caps_drop(uint64_t keep, uint64_t ambient, char *err, size_t len)
{
	struct __user_cap_header_struct h = { .version = _LINUX_CAPABILITY_VERSION_3 };
	struct __user_cap_data_struct d[2];
	uint64_t perm, inh;
	int rc, last = last_cap();

	rc = caps_get(d);
	if (rc) {
		snprintf(err, len, "capget: %s", strerror(-rc));
		return rc;
	}
	perm = word(d[0].permitted, d[1].permitted) & keep;
	ambient &= perm;
	inh = (word(d[0].inheritable, d[1].inheritable) & keep) | ambient;
	/* the bounding set too, while CAP_SETPCAP is still there (root) */
	if (word(d[0].effective, d[1].effective) & NM_CAP(CAP_SETPCAP)) {
		for (int c = 0; c <= (last < 0 ? 40 : last); c++)
			if (!(keep & NM_CAP(c)) && prctl(PR_CAPBSET_DROP, c, 0, 0, 0) && errno != EINVAL) {
				rc = -errno;
				snprintf(err, len, "PR_CAPBSET_DROP %d: %s", c, strerror(errno));
				return rc;
			}
	}
	d[0].permitted = d[0].effective = (uint32_t)perm;
	d[1].permitted = d[1].effective = (uint32_t)(perm >> 32);
	d[0].inheritable = (uint32_t)inh;
	d[1].inheritable = (uint32_t)(inh >> 32);
	if (syscall(SYS_capset, &h, d)) {
		rc = -errno;
		snprintf(err, len, "capset: %s", strerror(errno));
		return rc;
	}
	/* tc and ip, run for a remedy or its undo, get what they need (non-root) */
	for (int c = 0; c < 64; c++)
		if ((ambient & NM_CAP(c)) && prctl(PR_CAP_AMBIENT, PR_CAP_AMBIENT_RAISE, c, 0, 0)) {
			rc = -errno;
			snprintf(err, len, "PR_CAP_AMBIENT_RAISE %d: %s", c, strerror(errno));
			return rc;
		}
	if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0)) {
		rc = -errno;
		snprintf(err, len, "PR_SET_NO_NEW_PRIVS: %s", strerror(errno));
		return rc;
	}
	return 0;
}

void nm_caps_run_merge(struct nm_caps_run *into, const struct nm_caps_run *from)
{
#define OR(f)	(into->f = into->f || from->f)
	OR(load); OR(netns); OR(netns_proc); OR(remedy); OR(remedy_sysfs); OR(remedy_setns);
	OR(remedy_exec); OR(raw); OR(net_prog); OR(bpf_stats); OR(names); OR(names_ptrace);
	OR(names_setns); OR(module_btf); OR(cleanup); OR(cleanup_bpf); OR(cleanup_sysfs);
	OR(prom_dac); OR(listen_low); OR(journal); OR(journal_dac); OR(no_cap_bpf);
	OR(bpf_cmds_need_cap); OR(getfd); OR(cleanup_getfd); OR(getfd_keep);
#undef OR
	if (!into->remedy_opt)
		into->remedy_opt = from->remedy_opt;
}
