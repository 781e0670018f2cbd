/* SPDX-License-Identifier: GPL-2.0 */
/*
 * CLI conventions shared by every netmedic tool: the common options (an argp
 * child), exit codes, error lines, and the checks every tool makes before it
 * loads anything.
 */
#ifndef NETMEDIC_CLI_H
#define NETMEDIC_CLI_H

#include <argp.h>
#include <signal.h>
#include <stdbool.h>
#include <stdint.h>
#include "lib/caps.h"
#include "lib/hooks.h"
#include "lib/listen.h"
#include "netmedic/common.h"

/* Exit codes: 0 ok, 1 runtime error, 2 usage error. */
#define NM_EXIT_OK	0
#define NM_EXIT_RUNTIME	1
#define NM_EXIT_USAGE	2

struct nm_opts {
	const char *tool;
	double interval;		/* seconds */
	long count;			/* intervals, 0 = until stopped */
	bool json;
	bool table;			/* set false by --json unless --table */
	const char *prom_file;
	/* --listen: where to serve the metrics, and the server (nm_setup binds it) */
	bool listen_on;
	struct nm_listen_addr listen;
	struct nm_listen *http;
	const char *devs[NM_MAX_DEVS];
	int ndevs;
	/*
	 * --netns, repeatable: each as given (a PID as /proc/PID/ns/net).
	 * netns is the one the tool enters: the only one given, else NULL
	 * (none, or two and more: then it enters none).
	 */
	const char *netns;
	const char *netns_args[NM_MAX_NETNS];
	int nnetns;
	char netns_pid[NM_MAX_NETNS][32];
	/*
	 * Set by a tool that watches a scope of namespaces (lib/scope.h)
	 * before the parse: it takes two or more --netns, and watches every
	 * netns without one. Another refuses two.
	 */
	bool scope;
	int verbose;
	bool interval_given;		/* -i was given: a run of reports is asked for */
	enum nm_hook_mode hooks;
	bool list_hooks;
	bool cleanup;
	bool print_caps;		/* --print-caps: print what check_caps would ask for, exit */
	bool bpf_stats;
	const char *btf_path;		/* NETMEDIC_BTF, for kernels without /sys/kernel/btf/vmlinux */
	/*
	 * What the run needs privileges for: the tool sets the remedy fields
	 * before nm_setup() (or nm_cleanup_main()), which sets the rest.
	 */
	struct nm_caps_run caps;
	/* resolved by nm_setup() */
	unsigned int ifindex[NM_MAX_DEVS];
	unsigned long netns_ino;	/* of the netns the tool runs in (after --netns) */
	unsigned long netns_inos[NM_MAX_NETNS];	/* of each --netns */
};

/* The metrics are asked for: a textfile, or a server (a report fills them then). */
static inline bool nm_opts_prom(const struct nm_opts *o)
{
	return o->prom_file || o->listen_on;
}

/*
 * The common options; add as a child of each tool's argp with input =
 * struct nm_opts *. nm_common_argp_nodev, for a tool that watches no
 * device: --dev is parsed, for the tool to refuse with its reason, but
 * --help, --usage and the docs (lib/optdoc.h) do not list it.
 */
extern const struct argp nm_common_argp;
extern const struct argp nm_common_argp_nodev;

/*
 * -h, -?, --help, --usage and -V, --version: argp's own are not used
 * (nm_argp_parse), as they cannot take -h. Its parser also makes argp's
 * own usage errors one line (lib/cli.c).
 */
extern const struct argp nm_help_argp;

/*
 * A CLI's argp, named argp: its options, parser and doc, the common
 * options (nm_common_argp or nm_common_argp_nodev) as its first child,
 * the help options as its second.
 */
#define NM_ARGP(opts, parser_fn, doc_str, common)				\
	static const struct argp_child nm_argp_children[] = {			\
		{ common, 0, "Common options:", 1 },				\
		{ &nm_help_argp, 0, NULL, 2 },					\
		{},								\
	};									\
	static const struct argp argp = {					\
		.options = opts,						\
		.parser = parser_fn,						\
		.doc = doc_str,							\
		.children = nm_argp_children,					\
	}

void nm_opts_init(struct nm_opts *o, const char *tool);

/*
 * The command line into input by argp (built with NM_ARGP), as tool: the
 * name every usage error starts with, getopt's too. A usage error exits
 * with status 2, after its one line.
 */
void nm_argp_parse(const struct argp *argp, int argc, char **argv, void *input, const char *tool);

/*
 * A usage error found by a parser: "TOOL: what is wrong" on stderr, one
 * line, as getopt's own are (an unknown option); exits with status 2.
 */
void nm_usage(const struct argp_state *state, const char *fmt, ...)
	__attribute__((noreturn, format(printf, 2, 3)));

/*
 * One line on stderr: "TOOL: error: ..."; for code NM_EXIT_USAGE, bad
 * input, "TOOL: ..." as every usage error is. Returns code for
 * `return nm_err(...)`.
 */
int nm_err(const struct nm_opts *o, int code, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
void nm_info(const struct nm_opts *o, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/*
 * Everything before load: the capabilities the run needs, kernel BTF, --netns, --dev names, the
 * --prom-file directory, memlock, libbpf logging. Returns NM_EXIT_OK or the
 * exit code after printing the reason; nothing is changed on failure.
 */
int nm_setup(struct nm_opts *o);

/*
 * The value parsers of the options, pure (argp_error is the caller's): 0,
 * or -1 for anything but the whole string as a number in range. -i: seconds
 * from 0.01 to 86400; -c: a whole number >= 1; nm_parse_long: base 10 from
 * min to max; nm_parse_ulong: the same, unsigned, no sign allowed.
 */
int nm_parse_interval(const char *s, double *sec);
int nm_parse_count(const char *s, long *n);
int nm_parse_long(const char *s, long min, long max, long *v);
int nm_parse_ulong(const char *s, unsigned long min, unsigned long max, unsigned long *v);
/* nm_parse_ulong for an unsigned int, 0 to UINT_MAX (words of a journal record). */
int nm_parse_uint(const char *s, unsigned int *v);

/*
 * A --netns value: a name under /run/netns, a path (it has a '/'), or a
 * PID (digits only: /proc/PID/ns/net, written into buf). The value to
 * use, or NULL with why (empty, too long, "." or "..", a PID out of range).
 */
const char *nm_parse_netns(const char *arg, char *buf, size_t len, const char **why);

/*
 * The --netns check made when the parse ends, pure: NULL, or the usage
 * error (more than one --netns for a tool without a scope, or with
 * --dev, which names devices in the one netns the tool runs in).
 */
const char *nm_netns_usage(const struct nm_opts *o, char *buf, size_t len);

/*
 * Options given together that cannot both be, pure: the first such pair's
 * usage error into buf, naming both and why, or NULL. Two of --cleanup,
 * --list-fixes and --list-hooks (each answers and exits); one of them with
 * -c, -i, --prom-file or --listen (they are for a run's reports); --cleanup
 * or --list-fixes with remedy, the tool's remedy option given (NULL: none).
 * --list-hooks takes a remedy: its hooks are listed with it.
 */
const char *nm_opts_conflict(const struct nm_opts *o, bool list_fixes, const char *remedy,
			     char *buf, size_t len);

/*
 * A port, as --port and --listen take it: 1 to 65535 in decimal digits,
 * or the name of a TCP service (getservbyname: "http" is 80), as ss and
 * tcpdump take them. 0 for anything else.
 */
unsigned int nm_parse_port(const char *s);

/*
 * A comma-separated list of names (--fix=kick,lock) as a mask: bit i for
 * names[i]. -1 for an empty list, an empty item ("kick,,lock", a leading or
 * trailing comma) or an unknown name.
 */
long nm_parse_names(const char *arg, const char *const *names, int n);
/*
 * One name of a choice (--sort packets): its index in names, or -1 for
 * any other word. nm_names_or writes the choices for the usage error,
 * "a, b or c", into buf and returns it, so that it names every one.
 */
int nm_parse_name(const char *arg, const char *const *names, int n);
const char *nm_names_or(const char *const *names, int n, char *buf, size_t len);

/* a number macro as a string: NM_STR(NM_MAX_NETNS) is "8" */
#define NM_STR_(x)	#x
#define NM_STR(x)	NM_STR_(x)

/*
 * What a report shows, an option group of every tool: --top N, --sort KEY
 * and --all. The help texts, the keys' words and --top's bound are the
 * tool's (struct nm_view_spec); parsing them and their usage errors are
 * this one.
 */
struct nm_view {
	unsigned int top;	/* --top (0: the tool's default) */
	int sort;		/* --sort: an index into the spec's words (0: the default) */
	bool all;		/* --all: every record, none cut by --top */
};

struct nm_view_spec {
	long top_max;
	const char *const *sort_names;
	int nsorts;
};

enum { NM_OPT_TOP = 0x1800, NM_OPT_SORT, NM_OPT_ALL };

#define NM_VIEW_OPTIONS(top_doc, sort_doc, all_doc)		\
	{ "top", NM_OPT_TOP, "N", 0, top_doc, 0 },		\
	{ "sort", NM_OPT_SORT, "KEY", 0, sort_doc, 0 },		\
	{ "all", NM_OPT_ALL, NULL, 0, all_doc, 0 }

/*
 * A tool's parser calls this first: 0 when key is one of the group's
 * (parsed into v; a bad value is the usage error, which exits), else
 * ARGP_ERR_UNKNOWN.
 */
error_t nm_view_arg(int key, const char *arg, struct argp_state *state,
		    const struct nm_view_spec *s, struct nm_view *v);

/*
 * Once everything is loaded and attached: keeps only what the rest of the
 * run needs (nm_caps_keep), sets no_new_privs, and says what it kept with
 * -v. The exit code. Capabilities are per thread: a worker thread drops to
 * its own set (nm_caps_keep_worker) with nm_caps_thread_drop (0 or -errno,
 * err says what).
 */
int nm_caps_after_attach(const struct nm_opts *o);
/* Kernel BTF (NETMEDIC_BTF's, or vmlinux) has function name: 1, 0, or -1 when unreadable. */
int nm_kernel_has_func(const struct nm_opts *o, const char *name);
int nm_caps_thread_drop(const struct nm_opts *o, char *err, size_t len);

/* --cleanup: undo the journals a dead instance of o->tool left; the exit code. */
int nm_cleanup_main(struct nm_opts *o);
/*
 * --cleanup's capabilities into o->caps (o->caps as the tool's options
 * set them): whether o->tool may have journals to undo, which need them.
 */
bool nm_cleanup_needs(struct nm_opts *o);
/*
 * --cleanup --print-caps of several tools at once (the agent's
 * detectors): the union of what each one's --cleanup needs, printed as
 * o's; exits.
 */
int nm_cleanup_print_caps(struct nm_opts *o, struct nm_opts *const *tools, int n);

/*
 * Writes the --dev filter into a skeleton's rodata (targ_ndevs, targ_netns,
 * targ_ifindex from bpf/common.bpf.h): pass those three fields' addresses.
 */
void nm_set_dev_filter(const struct nm_opts *o, volatile __u32 *ndevs, volatile __u32 *netns,
		       volatile __u32 *ifindex);

/*
 * Writes the scope's netns set into a skeleton's rodata (targ_nscope,
 * targ_scope from bpf/common.bpf.h): none for every netns.
 */
void nm_set_scope_filter(const struct nm_opts *o, volatile __u32 *n, volatile __u32 *netns);

/* Sum over CPUs of a per-CPU array/hash of u64 at key; 0 when absent. */
uint64_t nm_percpu_u64(int map_fd, const void *key);
/*
 * Slots of a two-way direct-mapped table for --max-flows n: the next power
 * of two (a slot is a hash masked by the size), and at least 2 (two ways).
 */
long nm_table_size(long n);

/* SIGINT/SIGTERM set this; main loops poll it. */
extern volatile sig_atomic_t nm_exiting;
void nm_install_signals(void);
/*
 * NETMEDIC_TEST_STOP=POINT (a test aid): the tool stops itself (SIGSTOP)
 * at POINT, "load" (before the BPF load) or "change" (before its first
 * change), so that a test can signal it exactly there, then SIGCONT it.
 */
void nm_test_stop(const char *point);
/* Sleeps up to sec seconds, returning early when a signal asks to exit. */
void nm_sleep(double sec);
/*
 * Report loops on a fixed grid: the deadline after prev (CLOCK_MONOTONIC
 * ns), one interval on, or now when that has passed (a late sweep is not
 * followed by catch-up sweeps). prev 0: the first, one interval from now.
 */
uint64_t nm_next_deadline(uint64_t prev, uint64_t interval_ns, uint64_t now);
/* CLOCK_MONOTONIC in ns: bpf_ktime_get_ns()'s clock, so BPF times compare with it. */
uint64_t nm_mono_ns(void);
/* Sleeps until that CLOCK_MONOTONIC time, returning early when a signal asks to exit. */
void nm_sleep_until(uint64_t deadline_ns);

/* "6.18.44-fc" */
const char *nm_kernel_release(void);

/*
 * The oldest kernel netmedic runs on: the oldest its objects are loaded on
 * and its tests pass on (docs/KERNELS.md, the matrix). Whether release is
 * older; then why, naming the kernel and what it lacks, into why.
 */
#define NM_MIN_MAJOR		5
#define NM_MIN_MINOR		10
bool nm_kernel_too_old(const char *release, char *why, size_t len);

/*
 * libbpf's "permission error while running as root; try raising 'ulimit
 * -l'?" (printed on any EPERM at load), for a kernel of release rel: on
 * 5.11+, which charges BPF memory to the memory cgroup, not to
 * RLIMIT_MEMLOCK, it misleads. Writes the line to print instead into out
 * and returns true; false for any other line, or an older kernel.
 */
bool nm_libbpf_line_rewrite(const char *line, const char *rel, char *out, size_t len);
/* ifindex -> name in the tool's netns (or "if<N>" / "if<N>@<netns>"). */
const char *nm_dev_name(const struct nm_opts *o, unsigned int netns, unsigned int ifindex,
			char *buf, size_t len);

#endif
