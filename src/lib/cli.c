// SPDX-License-Identifier: GPL-2.0
#include <dirent.h>
#include <errno.h>
#include <limits.h>
#include <math.h>
#include <netdb.h>
#include <net/if.h>
#include <arpa/inet.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/utsname.h>
#include <time.h>
#include <unistd.h>
#include <linux/capability.h>
#include <bpf/libbpf.h>
#include <bpf/bpf.h>
#include <bpf/btf.h>
#include "lib/cli.h"
#include "lib/journal.h"
#include "lib/netns.h"
#include "lib/optdoc.h"
#include "lib/output.h"

volatile sig_atomic_t nm_exiting;

enum {
	OPT_JSON = 0x1000,
	OPT_PROM,
	OPT_DEV,
	OPT_NETNS,
	OPT_HOOKS,
	OPT_LIST_HOOKS,
	OPT_CLEANUP,
	OPT_BPF_STATS,
	OPT_TABLE,
	OPT_PRINT_CAPS,
	OPT_LISTEN,
	OPT_USAGE,
};

/*
 * The common options, once for the tools that watch devices and once,
 * with --dev hidden (dev_flags), for one that watches none: it parses
 * --dev to refuse it with its reason, and does not list it.
 */
#define COMMON_OPTIONS(dev_flags) {								\
	{ "interval", 'i', "SEC", 0, "Seconds between reports (default 1)", 1 },		\
	{ "count", 'c', "N", 0, "Stop after N reports (default: until SIGINT/SIGTERM)", 1 },	\
	{ "json", OPT_JSON, NULL, 0, "One JSON object per line instead of the table", 1 },	\
	{ "table", OPT_TABLE, NULL, 0, "Print the table too with --json (on stderr)", 1 },	\
	{ "prom-file", OPT_PROM, "PATH", 0,							\
	  "Write a Prometheus textfile (atomically) every interval; PATH must be absent or a regular file (not a symlink)", 1 }, \
	{ "listen", OPT_LISTEN, "ADDR:PORT", 0,							\
	  "Serve the metrics over HTTP at /metrics; PORT alone listens on 127.0.0.1", 1 },	\
	{ "dev", OPT_DEV, "IFNAME", dev_flags, "Watch this device only (repeatable, up to 8)", 1 }, \
	{ "netns", OPT_NETNS, "NAME|PATH|PID", 0,						\
	  "Watch this network namespace (a name under /run/netns, a path, or a PID's); repeatable, up to " \
	  NM_STR(NM_MAX_NETNS) "; a single one is entered (the tool runs there)", 1 }, \
	{ "hooks", OPT_HOOKS, "MODE", 0,							\
	  "auto (default): best rung that attaches; fentry: function probes only; tracepoint: none", 1 }, \
	{ "list-hooks", OPT_LIST_HOOKS, NULL, 0, "Probe every hook rung on this kernel, print, exit", 1 }, \
	{ "print-caps", OPT_PRINT_CAPS, NULL, 0,						\
	  "Print the capabilities this command line needs as the user running it (one per line, with what needs it), then exit", 1 }, \
	{ "cleanup", OPT_CLEANUP, NULL, 0,							\
	  "Undo the changes of an instance that died (kill -9), then exit", 1 },		\
	{ "bpf-stats", OPT_BPF_STATS, NULL, 0,							\
	  "Measure program run time (BPF_ENABLE_STATS while running; off again at exit)", 1 }, \
	{ "verbose", 'v', NULL, 0, "Verbose: the hook rungs on the first line, libbpf's messages", 1 }, \
	{},											\
}

static const struct argp_option common_options[] = COMMON_OPTIONS(0);
static const struct argp_option common_options_nodev[] = COMMON_OPTIONS(OPTION_HIDDEN);

/*
 * The docs' text of each common option (docs/reference/NAME.md OPTIONS,
 * README), longer than --help's, which the man page (docs/NAME.md) gives;
 * a tool's own table may give its own text of one (lib/optdoc.h). Keyed
 * by the long option; test_optdoc checks that each option has one and
 * each entry an option.
 */
const struct nm_optdoc nm_common_docs[] = {
	{ "interval", "Seconds between reports (default 1), from 0.01 to 86400; fractions are "
	  "allowed.", NULL, NULL },
	{ "count", "Stop after N reports (default: until SIGINT/SIGTERM). N is a whole number of "
	  "at least 1.", NULL, NULL },
	{ "json", "One JSON object per line instead of the table (on standard output). See "
	  "**OUTPUT**.", NULL, NULL },
	{ "table", "Print the table too with **--json** (on stderr).", NULL, NULL },
	{ "prom-file", "Write a Prometheus textfile (atomically) every interval. The directory "
	  "must exist and be writable when {tool} starts, or it exits with status 2. Each write "
	  "goes to a hidden temporary file in the same directory, which is then renamed over "
	  "PATH with mode 0644. The file is left in place at exit. A later write error is "
	  "reported on standard error and {tool} keeps running. See **METRICS**. PATH must be "
	  "absent or a regular file: a device node, FIFO, socket, directory or symlink there is "
	  "refused at start with status 2, since the rename would replace it. A symlink is "
	  "refused rather than followed: the rename would replace the link, not its target, and "
	  "node_exporter's textfile directory holds regular files; give the real path.",
	  NULL, NULL },
	{ "listen", "Serve the metrics over HTTP: `GET /metrics` answers the text **--prom-file** "
	  "would hold (the last report's, in the same format), as `node_exporter` and "
	  "`ebpf_exporter` serve theirs; before the first report it answers 503. ADDR is "
	  "numeric; PORT a number, or a TCP service's name in the services database "
	  "(/etc/services): `9435` or `:9435` (127.0.0.1, the host's own scraper), "
	  "`0.0.0.0:9435`, `[::1]:9435`, `:http-alt`. The socket is bound at start, in "
	  "{tool}'s own network namespace even with **--netns**; an address in use, or one not on this host, exits with status 1 "
	  "before anything is loaded, and a bad value is a usage error (status 2). A port below "
	  "1024 needs `CAP_NET_BIND_SERVICE`. The server is libmicrohttpd, run by a thread that "
	  "holds no capability, with at most 32 connections and a 10-s timeout; any other path "
	  "answers 404 and any method but GET and HEAD 405. With **--prom-file** too, both get "
	  "each report.", NULL, NULL },
	{ "dev", "Watch this device only (repeatable, up to 8).", NULL, "repeatable" },
	{ "netns", "Watch this network namespace, and run in it: a name under /run/netns, a "
	  "path (such as `/run/netns/NAME` or `/proc/PID/ns/net`), or a PID, for the "
	  "namespace of that process (`/proc/PID/ns/net`). A value that is empty, too long, "
	  "`.`, `..` or a PID out of range, or one given twice, is a usage error (status 2) "
	  "that names it, and so is a namespace that does not exist. Repeatable (up to 8): "
	  "without **--netns** every namespace of the host is watched; with two or more, "
	  "those, and the tool runs in none of them (**SCOPE** says what needs one).",
	  NULL, "repeatable" },
	{ "hooks", "auto (default): best rung that attaches; fentry: function probes only "
	  "(fentry/fexit, or kprobes where fexit cannot attach); tracepoint: no function probe.",
	  "auto|fentry|tracepoint", NULL },
	{ "list-hooks", "Probe every hook rung on this kernel, print, exit: a table of the rungs "
	  "(`HOOK`, `RUNG`, `PROGRAM`, `VERDICT`), then one of the programs (`PROGRAM`, `HOOK`, "
	  "`RUNG`, `STATE`). With **--json**, one JSON line a row instead, the columns as keys: "
	  "records of type `rung` (`hook`, `rung`, `program`, `verdict`), then of type "
	  "`program` (`program`, `hook`, `rung`, `state`), each with the `tool` and `time` "
	  "every record has. "
	  "With **--cleanup**, **--list-fixes**, **-c**, **-i**, **--prom-file** or **--listen** "
	  "it is a usage error (status 2): it answers and exits, with no report. Like "
	  "monitoring, it needs `CAP_BPF` and `CAP_PERFMON` (**PRIVILEGES**); only **--help**, "
	  "**--usage** and **--version** need nothing.", NULL, NULL },
	{ "print-caps", "Print the capabilities this command line needs, as the user running it, "
	  "one a line (`CAP_NET_ADMIN<TAB>--fix<TAB>tc, netlink, net sysctls`), or `none`, then "
	  "exit 0 before anything is loaded or changed. It is what to put in a unit's "
	  "`AmbientCapabilities=` or give `setpriv --ambient-caps` for that command line; the "
	  "test suite runs every tool so, as nobody. See **PRIVILEGES**.",
	  NULL, "the capabilities a command line needs" },
	{ "cleanup", "Undo the changes of an instance that died (kill -9), then exit. With a "
	  "remedy option, **--list-hooks**, **--list-fixes**, **-c**, **-i**, **--prom-file** or "
	  "**--listen** it is a usage error (status 2).", NULL, NULL },
	{ "bpf-stats", "Measure program run time (BPF\\_ENABLE_STATS while running; off again at "
	  "exit). This fills `netmedic_bpf_prog_runs_total` and "
	  "`netmedic_bpf_prog_run_seconds_total`. The kernel keeps these statistics for every BPF "
	  "program while any process, or the sysctl `kernel.bpf_stats_enabled`, has them on.",
	  NULL, NULL },
	{ "verbose", "Verbose: the first line also names each hook's rung and every program this kernel "
	  "refused (where a later rung made up for it, nothing was lost; **--list-hooks** gives "
	  "the whole ladder), and libbpf's messages (load errors, the verifier's log) go to "
	  "standard error.", NULL, NULL },
	{},
};

static int parse_double(const char *s, double *v)
{
	char *end;

	errno = 0;
	*v = strtod(s, &end);
	return errno || end == s || *end || !isfinite(*v) ? -1 : 0;
}

static int parse_long(const char *s, long *v)
{
	char *end;

	errno = 0;
	*v = strtol(s, &end, 10);
	return errno || end == s || *end ? -1 : 0;
}

int nm_parse_interval(const char *s, double *sec)
{
	return parse_double(s, sec) || *sec < 0.01 || *sec > 86400 ? -1 : 0;
}

int nm_parse_count(const char *s, long *n)
{
	return parse_long(s, n) || *n < 1 ? -1 : 0;
}

int nm_parse_long(const char *s, long min, long max, long *v)
{
	return parse_long(s, v) || *v < min || *v > max ? -1 : 0;
}

int nm_parse_ulong(const char *s, unsigned long min, unsigned long max, unsigned long *v)
{
	char *end;

	/* strtoul takes "-1" as ULONG_MAX: a sign is refused, not wrapped */
	errno = 0;
	*v = strtoul(s, &end, 10);
	return errno || *end || !*s || *s == '-' || *v < min || *v > max ? -1 : 0;
}

unsigned int nm_parse_port(const char *s)
{
	struct servent *se;
	unsigned long v;

	/* digits are a number, never a name: "8080", not "70000" nor "000008080" */
	if (*s && strspn(s, "0123456789") == strlen(s))
		return strlen(s) > 5 || nm_parse_ulong(s, 1, 65535, &v) ? 0 : v;
	se = *s ? getservbyname(s, "tcp") : NULL;
	return se ? ntohs(se->s_port) : 0;
}

int nm_parse_uint(const char *s, unsigned int *v)
{
	unsigned long n;

	if (nm_parse_ulong(s, 0, UINT_MAX, &n))
		return -1;
	*v = n;
	return 0;
}

const char *nm_parse_netns(const char *arg, char *buf, size_t len, const char **why)
{
	long pid;

	if (!*arg) {
		*why = "empty";
		return NULL;
	}
	if (strspn(arg, "0123456789") == strlen(arg)) {
		/* PID_MAX_LIMIT: no pid is larger */
		if (nm_parse_long(arg, 1, 4194304, &pid)) {
			*why = "not a PID (1 to 4194304)";
			return NULL;
		}
		snprintf(buf, len, "/proc/%ld/ns/net", pid);
		return buf;
	}
	if (strlen(arg) >= (strchr(arg, '/') ? PATH_MAX : NAME_MAX)) {
		*why = "too long";
		return NULL;
	}
	if (!strcmp(arg, ".") || !strcmp(arg, "..")) {
		*why = "not a netns name";
		return NULL;
	}
	return arg;
}

const char *nm_netns_usage(const struct nm_opts *o, char *buf, size_t len)
{
	if (o->nnetns < 2)
		return NULL;
	if (!o->scope)
		snprintf(buf, len, "more than one --netns: %s watches one netns (yet)", o->tool);
	else if (o->ndevs)
		snprintf(buf, len, "--dev needs exactly one --netns: a device is named in the netns %s runs in",
			 o->tool);
	else
		return NULL;
	return buf;
}

/*
 * A bad --netns is one line, as one that does not exist is (nm_setup):
 * "TOOL: error: invalid --netns 'ARG': REASON", status 2.
 */
static void netns_usage(const struct nm_opts *o, const char *arg, const char *why)
{
	if (arg)
		nm_err(o, NM_EXIT_USAGE, "invalid --netns '%s': %s", arg, why);
	else
		nm_err(o, NM_EXIT_USAGE, "%s", why);
	exit(NM_EXIT_USAGE);
}

static void add_netns(struct nm_opts *o, const char *arg)
{
	const char *v, *why;
	char max[32];

	if (o->nnetns >= NM_MAX_NETNS) {
		snprintf(max, sizeof(max), "more than %d", NM_MAX_NETNS);
		netns_usage(o, arg, max);
	}
	v = nm_parse_netns(arg, o->netns_pid[o->nnetns], sizeof(o->netns_pid[0]), &why);
	if (!v)
		netns_usage(o, arg, why);
	for (int i = 0; i < o->nnetns; i++)
		if (!strcmp(o->netns_args[i], v))
			netns_usage(o, arg, "given twice");
	o->netns_args[o->nnetns++] = v;
	/* the one netns is entered; two or more, none */
	o->netns = o->nnetns == 1 ? v : NULL;
}

long nm_parse_names(const char *arg, const char *const *names, int n)
{
	long mask = 0;
	int i;

	/* strtok would skip empty items; a typo such as kick,,lock must not pass */
	for (const char *p = arg;; p++) {
		size_t len = strcspn(p, ",");

		for (i = 0; i < n && (strlen(names[i]) != len || strncmp(p, names[i], len)); i++)
			;
		if (!len || i == n)
			return -1;
		mask |= 1L << i;
		p += len;
		if (!*p)
			return mask;
	}
}

int nm_parse_name(const char *arg, const char *const *names, int n)
{
	for (int i = 0; i < n; i++)
		if (!strcmp(arg, names[i]))
			return i;
	return -1;
}

const char *nm_names_or(const char *const *names, int n, char *buf, size_t len)
{
	size_t off = 0;

	buf[0] = '\0';
	for (int i = 0; i < n && off < len; i++)
		off += snprintf(buf + off, len - off, "%s%s", i ? i == n - 1 ? " or " : ", " : "",
				names[i]);
	return buf;
}

error_t nm_view_arg(int key, const char *arg, struct argp_state *state,
		    const struct nm_view_spec *s, struct nm_view *v)
{
	char names[128];
	long n;

	switch (key) {
	case NM_OPT_TOP:
		/* into a long first: an int would wrap 4294967297 to 1 */
		if (nm_parse_long(arg, 1, s->top_max, &n))
			nm_usage(state, "invalid --top '%s': 1 to %ld", arg, s->top_max);
		v->top = n;
		return 0;
	case NM_OPT_SORT:
		if ((v->sort = nm_parse_name(arg, s->sort_names, s->nsorts)) < 0)
			nm_usage(state, "invalid --sort '%s': %s", arg,
				 nm_names_or(s->sort_names, s->nsorts, names, sizeof(names)));
		return 0;
	case NM_OPT_ALL:
		v->all = true;
		return 0;
	}
	return ARGP_ERR_UNKNOWN;
}

static error_t common_parse(int key, char *arg, struct argp_state *state)
{
	struct nm_opts *o = state->input;
	char err[160];

	switch (key) {
	case 'i':
		if (nm_parse_interval(arg, &o->interval))
			nm_usage(state, "invalid interval '%s': seconds from 0.01 to 86400", arg);
		o->interval_given = true;
		break;
	case 'c':
		if (nm_parse_count(arg, &o->count))
			nm_usage(state, "invalid count '%s': a whole number >= 1", arg);
		break;
	case OPT_JSON:
		o->json = true;
		break;
	case OPT_TABLE:
		o->table = true;
		break;
	case OPT_PROM:
		o->prom_file = arg;
		break;
	case OPT_LISTEN:
		if (nm_listen_parse(arg, &o->listen, err, sizeof(err)))
			nm_usage(state, "invalid --listen '%s': %s", arg, err);
		o->listen_on = true;
		break;
	case OPT_DEV:
		if (o->ndevs >= NM_MAX_DEVS)
			nm_usage(state, "too many --dev (at most %d)", NM_MAX_DEVS);
		if (!*arg || strlen(arg) >= IFNAMSIZ)
			nm_usage(state, "invalid device name '%s'", arg);
		o->devs[o->ndevs++] = arg;
		break;
	case OPT_NETNS:
		add_netns(o, arg);
		break;
	case OPT_HOOKS:
		if (nm_parse_hook_mode(arg, &o->hooks))
			nm_usage(state, "invalid --hooks '%s': auto, fentry or tracepoint", arg);
		break;
	case OPT_LIST_HOOKS:
		o->list_hooks = true;
		break;
	case OPT_PRINT_CAPS:
		o->print_caps = true;
		break;
	case OPT_CLEANUP:
		o->cleanup = true;
		break;
	case OPT_BPF_STATS:
		o->bpf_stats = true;
		break;
	case 'v':
		o->verbose++;
		break;
	case ARGP_KEY_END: {
		char why[160];

		if (nm_netns_usage(o, why, sizeof(why)))
			netns_usage(o, NULL, why);
		break;
	}
	default:
		return ARGP_ERR_UNKNOWN;
	}
	return 0;
}

const struct argp nm_common_argp = {
	.options = common_options,
	.parser = common_parse,
};

const struct argp nm_common_argp_nodev = {
	.options = common_options_nodev,
	.parser = common_parse,
};

/*
 * argp's own --help takes -? but not -h, which users try first: these
 * stand in for argp's (nm_argp_parse asks for none of its own), with the
 * same texts and output.
 */
static const struct argp_option help_options[] = {
	{ "help", 'h', NULL, 0, "Give this help list", -1 },
	{ NULL, '?', NULL, OPTION_ALIAS, NULL, -1 },
	{ "usage", OPT_USAGE, NULL, 0, "Give a short usage message", -1 },
	{ "version", 'V', NULL, 0, "Print program version", -1 },
	{},
};

static error_t help_parse(int key, char *arg, struct argp_state *state)
{
	(void)arg;
	switch (key) {
	case ARGP_KEY_INIT:
		/*
		 * getopt's own usage errors (an unknown option, a missing
		 * argument) are its one line, "TOOL: ...": argp would add
		 * "Try `TOOL --help'..." after it, which a NULL stream stops
		 * (nm_argp_parse then exits 2). The parsers' usage errors are
		 * nm_usage's, which prints its own line.
		 */
		state->err_stream = NULL;
		break;
	case 'h':
	case '?':
		argp_state_help(state, state->out_stream, ARGP_HELP_STD_HELP);
		break;
	case OPT_USAGE:
		argp_state_help(state, state->out_stream, ARGP_HELP_USAGE | ARGP_HELP_EXIT_OK);
		break;
	case 'V':
		fprintf(state->out_stream, "%s\n", argp_program_version);
		exit(NM_EXIT_OK);
	default:
		return ARGP_ERR_UNKNOWN;
	}
	return 0;
}

const struct argp nm_help_argp = {
	.options = help_options,
	.parser = help_parse,
};

void nm_argp_parse(const struct argp *argp, int argc, char **argv, void *input, const char *tool)
{
	/* getopt names the program by argv[0], as run ("./tcpstall"): the tool's name instead */
	if (argc > 0)
		argv[0] = (char *)tool;
	/* an error returned is getopt's, which has said what is wrong */
	if (argp_parse(argp, argc, argv, ARGP_NO_HELP, NULL, input))
		exit(NM_EXIT_USAGE);
}

void nm_usage(const struct argp_state *state, const char *fmt, ...)
{
	va_list ap;

	fprintf(stderr, "%s: ", state->name);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
	exit(NM_EXIT_USAGE);
}

/* The options that make a run do one job and exit: what each does, for the usage error */
static const struct {
	const char *opt, *what;
} answers[] = {
	{ "--cleanup", "undoes what a killed instance left" },
	{ "--list-fixes", "probes the remedies" },
	{ "--list-hooks", "probes the hooks" },
};

/* The i-th of those given (-1: none), in the order above. */
static int answer_given(const struct nm_opts *o, bool list_fixes, int i)
{
	bool given[] = { o->cleanup, list_fixes, o->list_hooks };

	for (int k = 0; k < 3; k++)
		if (given[k] && !i--)
			return k;
	return -1;
}

/* An option given that only a run of reports uses, and what it would be for (NULL: none). */
static const char *report_opt(const struct nm_opts *o, const char **what)
{
	static const char *const opts[] = { "-c", "-i", "--prom-file", "--listen" };
	static const char *const whats[] = { "no report to count", "no report to space",
					     "no metrics to write", "no metrics to serve" };
	bool given[] = { o->count, o->interval_given, o->prom_file, o->listen_on };

	for (int k = 0; k < 4; k++)
		if (given[k]) {
			*what = whats[k];
			return opts[k];
		}
	return NULL;
}

const char *nm_opts_conflict(const struct nm_opts *o, bool list_fixes, const char *remedy,
			     char *buf, size_t len)
{
	int a = answer_given(o, list_fixes, 0), b = answer_given(o, list_fixes, 1);
	const char *opt, *what;

	if (a < 0)
		return NULL;
	if (b >= 0)
		snprintf(buf, len, "%s and %s: each does its one job and exits; give one of them",
			 answers[a].opt, answers[b].opt);
	else if (remedy && !o->list_hooks)
		snprintf(buf, len, "%s and %s: %s %s, then exits: it runs no remedy", answers[a].opt,
			 remedy, answers[a].opt, answers[a].what);
	else if ((opt = report_opt(o, &what)))
		snprintf(buf, len, "%s and %s: %s %s, then exits: %s", answers[a].opt, opt,
			 answers[a].opt, answers[a].what, what);
	else
		return NULL;
	return buf;
}

void nm_opts_init(struct nm_opts *o, const char *tool)
{
	memset(o, 0, sizeof(*o));
	o->tool = tool;
	o->interval = 1;
	o->btf_path = getenv("NETMEDIC_BTF");
	/* the default rung policy; --hooks overrides it (the VM suite sets fentry) */
	if (getenv("NETMEDIC_HOOKS") && nm_parse_hook_mode(getenv("NETMEDIC_HOOKS"), &o->hooks))
		o->hooks = NM_HOOKS_AUTO;
	/* usage errors exit 2, as documented, not argp's 64 */
	argp_err_exit_status = NM_EXIT_USAGE;
}

int nm_err(const struct nm_opts *o, int code, const char *fmt, ...)
{
	va_list ap;

	/* bad input says what is wrong, as getopt's own lines do (nm_usage) */
	fprintf(stderr, code == NM_EXIT_USAGE ? "%s: " : "%s: error: ", o->tool);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
	return code;
}

void nm_info(const struct nm_opts *o, const char *fmt, ...)
{
	va_list ap;

	fprintf(stderr, "%s: ", o->tool);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
}

bool nm_libbpf_line_rewrite(const char *line, const char *rel, char *out, size_t len)
{
	int major = 0, minor = 0;

	if (!strstr(line, "try raising 'ulimit -l'") || sscanf(rel, "%d.%d", &major, &minor) != 2 ||
	    major < 5 || (major == 5 && minor < 11))
		return false;
	snprintf(out, len, "libbpf: not a memory limit: this kernel (%s) charges BPF memory to the memory cgroup, not to 'ulimit -l'; its policy refused the program (lockdown, an LSM, a distribution patch), as the refused line says\n",
		 rel);
	return true;
}

static int libbpf_print(enum libbpf_print_level level, const char *fmt, va_list args)
{
	char line[512], out[512];

	if (level == LIBBPF_DEBUG)
		return 0;
	vsnprintf(line, sizeof(line), fmt, args);
	if (nm_libbpf_line_rewrite(line, nm_kernel_release(), out, sizeof(out)))
		return fputs(out, stderr);
	return fputs(line, stderr);
}

static int libbpf_quiet(enum libbpf_print_level level, const char *fmt, va_list args)
{
	(void)level, (void)fmt, (void)args;
	return 0;
}

bool nm_kernel_too_old(const char *release, char *why, size_t len)
{
	/* what netmedic's programs cannot do without, and since when */
	static const struct {
		int maj, min;
		const char *what;
	} needs[] = {
		{ 5, 5, "tp_btf programs (5.5)" },
		{ 5, 8, "the BPF ring buffer (5.8)" },
		{ 5, 8, "BPF iterators (5.8)" },
	};
	size_t off;
	int n = 0;

	if (!nm_caps_release_before(release, NM_MIN_MAJOR, NM_MIN_MINOR))
		return false;
	off = snprintf(why, len, "kernel %s is older than %d.%d, the oldest netmedic runs on", release,
		       NM_MIN_MAJOR, NM_MIN_MINOR);
	for (size_t i = 0; i < sizeof(needs) / sizeof(needs[0]) && off < len; i++)
		if (nm_caps_release_before(release, needs[i].maj, needs[i].min))
			off += snprintf(why + off, len - off, "%s%s", n++ ? ", " : ": it lacks ",
					needs[i].what);
	if (!n && off < len)
		snprintf(why + off, len - off, ": its programs are not verified there (docs/KERNELS.md)");
	return true;
}

/*
 * First of all: a kernel below the minimum gets one line that says so, not
 * a verifier's error or a missing rung later. NETMEDIC_TEST_RELEASE (a test
 * aid) stands for the running kernel's release.
 */
static int check_kernel(struct nm_opts *o)
{
	const char *release = getenv("NETMEDIC_TEST_RELEASE");
	char why[256];

	if (!release || !*release)
		release = nm_kernel_release();
	if (nm_kernel_too_old(release, why, sizeof(why)))
		return nm_err(o, NM_EXIT_RUNTIME, "%s", why);
	return NM_EXIT_OK;
}

static int check_btf(struct nm_opts *o)
{
	const char *path = o->btf_path ? o->btf_path : "/sys/kernel/btf/vmlinux";
	struct btf *btf;

	if (access(path, R_OK))
		return nm_err(o, NM_EXIT_RUNTIME,
			      "no kernel BTF at %s: netmedic needs a kernel built with CONFIG_DEBUG_INFO_BTF",
			      path);
	if (!o->btf_path)
		return 0;
	/* Read it now: libbpf's own errors (4001...) mean nothing to a user later. */
	btf = btf__parse(path, NULL);
	if (!btf)
		return nm_err(o, NM_EXIT_RUNTIME, "NETMEDIC_BTF=%s: %s", path, nm_btf_strerror(errno));
	btf__free(btf);
	return 0;
}

static int resolve_devs(struct nm_opts *o)
{
	for (int i = 0; i < o->ndevs; i++) {
		o->ifindex[i] = if_nametoindex(o->devs[i]);
		if (!o->ifindex[i])
			return nm_err(o, NM_EXIT_USAGE, "unknown device '%s'%s%s", o->devs[i],
				      o->netns ? " in netns " : "", o->netns ? o->netns : "");
	}
	return 0;
}

/* --netns /proc/PID/ns/net of another process: ptrace-read access to it */
static bool other_proc(const char *netns)
{
	return netns && !strncmp(netns, "/proc/", 6) && strncmp(netns, "/proc/self/", 11) &&
	       strncmp(netns, "/proc/thread-self/", 18);
}

/* path's directory ("." or "/" too) into dir */
static bool dir_of(const char *path, char *dir, size_t len)
{
	char *slash;

	if (!path || snprintf(dir, len, "%s", path) >= (int)len)
		return false;
	slash = strrchr(dir, '/');
	if (!slash)
		snprintf(dir, len, ".");
	else if (slash == dir)
		dir[1] = 0;
	else
		*slash = 0;
	return true;
}

/* A directory its mode bits let euid write (no capability); absent: ENOENT in *err. */
static bool writable(const char *dir, int *err)
{
	struct stat st;

	*err = stat(dir, &st) ? errno : 0;
	/* a directory on a path this user may not search: CAP_DAC_OVERRIDE reaches it */
	if (*err)
		return *err != EACCES;	/* else not ours to judge: the caller's checks say what is wrong */
	return nm_caps_dir_writable(st.st_uid, st.st_mode, geteuid(),
				    st.st_gid == getegid() || group_member(st.st_gid));
}

/* Rewriting the --prom-file after the drop needs CAP_DAC_OVERRIDE. */
static bool prom_needs_dac(const char *path)
{
	char dir[PATH_MAX];
	int err;

	return dir_of(path, dir, sizeof(dir)) && !writable(dir, &err);
}

/* The journal directory, or its parent when it is to be created, needs CAP_DAC_OVERRIDE. */
static bool journal_needs_dac(void)
{
	const char *jd = nm_journal_dir();
	char parent[PATH_MAX];
	int err;

	if (!writable(jd, &err))
		return true;
	return err == ENOENT && dir_of(jd, parent, sizeof(parent)) && !writable(parent, &err);
}

/*
 * --print-caps: what the run would check, then exit before anything is
 * changed (nm_setup and --cleanup check first). A line a need:
 * "CAP_BPF<TAB>what<TAB>why"; "none" when the run needs none. It tells a
 * unit's AmbientCapabilities, or setpriv's --ambient-caps, for this command
 * line (tests/run-all.sh runs the integration suite so, as nobody).
 */
static void print_caps(const struct nm_cap_need *need, int n)
{
	char name[32];

	for (int i = 0; i < n; i++)
		printf("%s\t%s\t%s\n", nm_cap_name(need[i].cap, name, sizeof(name)), need[i].what,
		       need[i].why);
	if (!n)
		printf("none\n");
	exit(fflush(stdout) ? NM_EXIT_RUNTIME : NM_EXIT_OK);
}

/* The capabilities o->caps needs, in the effective set; else one line naming the first missing. */
static int check_caps(struct nm_opts *o)
{
	struct nm_cap_need need[NM_CAPS_MAX_NEEDS];
	char name[32];
	int n, i;

	o->caps.euid = geteuid();
	o->caps.no_cap_bpf = !nm_caps_kernel_has_bpf();
	o->caps.bpf_cmds_need_cap = nm_caps_release_before(nm_kernel_release(), 5, 19) &&
				    nm_caps_unpriv_bpf_disabled();
	n = nm_caps_needed(&o->caps, need, NM_CAPS_MAX_NEEDS);
	if (o->print_caps)
		print_caps(need, n);
	i = nm_caps_missing(need, n, nm_caps_effective());
	if (i < 0)
		return 0;
	return nm_err(o, NM_EXIT_RUNTIME, "%s needs %s (%s); missing", need[i].what,
		      nm_cap_name(need[i].cap, name, sizeof(name)), need[i].why);
}

int nm_kernel_has_func(const struct nm_opts *o, const char *name)
{
	/* quiet: a bad NETMEDIC_BTF is check_btf's to name, in one line */
	libbpf_print_fn_t prev = libbpf_set_print(NULL);
	struct btf *btf = o->btf_path ? btf__parse(o->btf_path, NULL) : btf__load_vmlinux_btf();
	int has;

	libbpf_set_print(prev);
	if (!btf)
		return -1;
	has = btf__find_by_name_kind(btf, name, BTF_KIND_FUNC) >= 0;
	btf__free(btf);
	return has;
}

int nm_caps_thread_drop(const struct nm_opts *o, char *err, size_t len)
{
	uint64_t keep = nm_caps_keep_worker(&o->caps);

	return nm_caps_drop(keep, nm_caps_ambient(&o->caps, keep), err, len);
}

int nm_caps_after_attach(const struct nm_opts *o)
{
	char kept[256], err[128];
	const char *why;
	uint64_t keep = nm_caps_keep(&o->caps, &why);

	if (nm_caps_drop(keep, nm_caps_ambient(&o->caps, keep), err, sizeof(err)))
		return nm_err(o, NM_EXIT_RUNTIME, "dropping capabilities: %s", err);
	if (o->verbose)
		nm_info(o, "caps: kept %s%s%s%s; no_new_privs", nm_caps_str(keep, kept, sizeof(kept)),
			why ? " (" : "", why ? why : "", why ? ")" : "");
	return NM_EXIT_OK;
}

/* Whether any --netns names another process's namespace (ptrace-read access). */
static bool any_other_proc(const struct nm_opts *o)
{
	if (o->netns)
		return other_proc(o->netns);
	for (int i = 0; o->nnetns > 1 && i < o->nnetns; i++)
		if (other_proc(o->netns_args[i]))
			return true;
	return false;
}

/*
 * Two or more --netns, entered by none: each must be a netns, and not
 * the same as another. One: the netns entered. The inodes, for the scope.
 */
static int resolve_netns(struct nm_opts *o)
{
	char path[PATH_MAX];
	int rc;

	if (o->nnetns == 1)
		o->netns_inos[0] = o->netns_ino;
	for (int i = 0; o->nnetns > 1 && i < o->nnetns; i++) {
		const char *a = o->netns_args[i];

		if (!nm_netns_path(a, path, sizeof(path)))
			return nm_err(o, NM_EXIT_USAGE, "--netns %s: invalid netns name", a);
		rc = nm_netns_check(path);
		if (rc == -EINVAL)
			return nm_err(o, NM_EXIT_USAGE, "--netns %s: %s is not a network namespace", a, path);
		if (rc)
			return nm_err(o, NM_EXIT_USAGE, "--netns %s: cannot open netns %s: %s", a, path,
				      strerror(-rc));
		o->netns_inos[i] = nm_netns_inode(path);
		for (int j = 0; j < i; j++)
			if (o->netns_inos[j] == o->netns_inos[i])
				return nm_err(o, NM_EXIT_USAGE, "--netns %s: the same netns as --netns %s",
					      a, o->netns_args[j]);
	}
	return 0;
}

/*
 * A scope of other namespaces than the tool's (every netns, or two and
 * more): their names need ptrace access to other users' processes and
 * setns. Optional: what the effective set has is kept for the run.
 */
static void names_caps(struct nm_opts *o)
{
	uint64_t eff;

	o->caps.names = o->scope && o->nnetns != 1;
	if (!o->caps.names)
		return;
	eff = nm_caps_effective();
	o->caps.names_ptrace = eff & NM_CAP(CAP_SYS_PTRACE);
	o->caps.names_setns = eff & NM_CAP(CAP_SYS_ADMIN);
}

/*
 * Before --netns enters another namespace: the socket stays in the tool's
 * own, where the host's scraper is. --list-hooks serves nothing.
 */
static int listen_bind(struct nm_opts *o)
{
	char err[160];

	if (!o->listen_on || o->list_hooks)
		return NM_EXIT_OK;
	o->http = nm_listen_bind(&o->listen, err, sizeof(err));
	if (!o->http)
		return nm_err(o, NM_EXIT_RUNTIME, "--listen %s: %s", o->listen.text, err);
	return NM_EXIT_OK;
}

int nm_setup(struct nm_opts *o)
{
	struct rlimit rl = { RLIM_INFINITY, RLIM_INFINITY };
	char err[256];
	int ret;

	/* the table goes to stdout, or to stderr beside --json when --table asks for it */
	o->table = !o->json || o->table;
	/* before check_btf: libbpf's own lines would make its error two */
	libbpf_set_print(o->verbose ? libbpf_print : libbpf_quiet);
	o->caps.load = true;
	o->caps.netns = o->netns || o->nnetns > 1;
	o->caps.netns_proc = any_other_proc(o);
	names_caps(o);
	o->caps.bpf_stats = o->bpf_stats;
	o->caps.prom_dac = prom_needs_dac(o->prom_file);
	o->caps.listen_low = o->listen_on && o->listen.port < 1024;
	o->caps.journal_dac = o->caps.journal && journal_needs_dac();
	ret = check_kernel(o);
	if (ret)
		return ret;
	ret = check_caps(o);
	if (ret)
		return ret;
	ret = check_btf(o);
	if (ret)
		return ret;
	ret = listen_bind(o);
	if (ret)
		return ret;
	if (o->netns && nm_netns_enter(o->netns, err, sizeof(err)))
		return nm_err(o, NM_EXIT_USAGE, "--netns %s: %s", o->netns, err);
	o->netns_ino = nm_netns_inode(NULL);
	ret = resolve_netns(o);
	if (ret)
		return ret;
	ret = resolve_devs(o);
	if (ret)
		return ret;
	if (o->prom_file && nm_prom_check_path(o->prom_file, err, sizeof(err)))
		return nm_err(o, NM_EXIT_USAGE, "--prom-file %s: %s", o->prom_file, err);
	setrlimit(RLIMIT_MEMLOCK, &rl);
	return NM_EXIT_OK;
}

static void on_signal(int sig)
{
	(void)sig;
	nm_exiting = 1;
}

/*
 * First thing in main, before anything is changed: a signal at any moment
 * then asks for an exit, and every change made by then is undone. SIGINT
 * is caught even when inherited ignored (a script's background job): for
 * a tool that holds changes, an interrupt means restore and exit, never
 * "run on". SA_RESTART: a signal during a load or a netlink dump must not
 * fail it; the sleeps (nanosleep, epoll) return EINTR regardless.
 */
void nm_install_signals(void)
{
	struct sigaction sa = { .sa_handler = on_signal, .sa_flags = SA_RESTART };

	sigemptyset(&sa.sa_mask);
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	sigaction(SIGHUP, &sa, NULL);
	/*
	 * No death mid-change: a write to a closed pipe (the undo commands',
	 * a --listen client's) returns EPIPE instead. A closed stdout then ends
	 * the run as SIGTERM does (lib/output.h, nm_out_flush), undo first.
	 */
	signal(SIGPIPE, SIG_IGN);
}

void nm_test_stop(const char *point)
{
	const char *t = getenv("NETMEDIC_TEST_STOP");

	if (t && !strcmp(t, point))
		raise(SIGSTOP);
}

void nm_sleep(double sec)
{
	struct timespec ts = { .tv_sec = (time_t)sec,
			       .tv_nsec = (long)((sec - (time_t)sec) * 1e9) };

	/* a signal interrupts nanosleep; go on sleeping only if nobody asked to exit */
	while (!nm_exiting && nanosleep(&ts, &ts) && errno == EINTR)
		;
}

uint64_t nm_mono_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000000000ULL + ts.tv_nsec;
}

uint64_t nm_next_deadline(uint64_t prev, uint64_t interval_ns, uint64_t now)
{
	uint64_t next = (prev ? prev : now) + interval_ns;

	return next > now ? next : now;
}

void nm_sleep_until(uint64_t deadline_ns)
{
	struct timespec ts = { .tv_sec = deadline_ns / 1000000000ULL,
			       .tv_nsec = deadline_ns % 1000000000ULL };

	/* clock_nanosleep returns the error, it does not set errno */
	while (!nm_exiting && clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &ts, NULL) == EINTR)
		;
}

const char *nm_kernel_release(void)
{
	static struct utsname u;

	if (!u.release[0])
		uname(&u);
	return u.release;
}

const char *nm_dev_name(const struct nm_opts *o, unsigned int netns, unsigned int ifindex,
			char *buf, size_t len)
{
	char name[IF_NAMESIZE];

	if (netns == o->netns_ino && if_indextoname(ifindex, name))
		snprintf(buf, len, "%s", name);
	else if (netns == o->netns_ino)
		snprintf(buf, len, "if%u", ifindex);
	else
		snprintf(buf, len, "if%u@%u", ifindex, netns);
	return buf;
}

/*
 * Whether the run directory may hold a journal of tool: one named
 * TOOL-*.journal, or a directory this user cannot list (cleanup says why).
 */
static bool may_have_journals(const char *tool)
{
	DIR *d = opendir(nm_journal_dir());
	size_t len = strlen(tool);
	struct dirent *de;
	bool found = false;

	if (!d)
		return errno != ENOENT;
	while (!found && (de = readdir(d))) {
		size_t n = strlen(de->d_name);

		found = n > len + 9 && !strncmp(de->d_name, tool, len) && de->d_name[len] == '-' &&
			!strcmp(de->d_name + n - 8, ".journal");
	}
	closedir(d);
	return found;
}

bool nm_cleanup_needs(struct nm_opts *o)
{
	o->caps.cleanup = true;
	o->caps.journal_dac = journal_needs_dac();
	return may_have_journals(o->tool);
}

int nm_cleanup_print_caps(struct nm_opts *o, struct nm_opts *const *tools, int n)
{
	memset(&o->caps, 0, sizeof(o->caps));
	for (int i = 0; i < n; i++)
		if (nm_cleanup_needs(tools[i]))
			nm_caps_run_merge(&o->caps, &tools[i]->caps);
	o->print_caps = true;
	if (o->caps.cleanup)
		check_caps(o);
	print_caps(NULL, 0);
	return NM_EXIT_RUNTIME;	/* not reached: print_caps exits */
}

int nm_cleanup_main(struct nm_opts *o)
{
	int ret;

	/* nothing to undo needs no privilege: a unit's ExecStopPost after a clean stop */
	ret = nm_cleanup_needs(o) ? check_caps(o) : 0;
	if (o->print_caps)
		print_caps(NULL, 0);
	if (ret)
		return ret;
	ret = nm_journal_cleanup(o->tool, stderr);
	/* Each journal not undone has said why, naming its file, above. */
	if (ret < 0)
		return nm_err(o, NM_EXIT_RUNTIME, "--cleanup: not every journal in %s was undone (see above)",
			      nm_journal_dir());
	nm_info(o, "cleanup: %d journal(s) undone", ret);
	return NM_EXIT_OK;
}

void nm_set_dev_filter(const struct nm_opts *o, volatile __u32 *ndevs, volatile __u32 *netns,
		       volatile __u32 *ifindex)
{
	*ndevs = o->ndevs;
	for (int i = 0; i < o->ndevs; i++) {
		ifindex[i] = o->ifindex[i];
		netns[i] = o->netns_ino;
	}
}

void nm_set_scope_filter(const struct nm_opts *o, volatile __u32 *n, volatile __u32 *netns)
{
	*n = o->nnetns;
	for (int i = 0; i < o->nnetns; i++)
		netns[i] = o->netns_inos[i];
}

uint64_t nm_percpu_u64(int map_fd, const void *key)
{
	int ncpu = libbpf_num_possible_cpus();
	uint64_t vals[ncpu > 0 ? ncpu : 1], sum = 0;

	if (ncpu <= 0 || bpf_map_lookup_elem(map_fd, key, vals))
		return 0;
	for (int c = 0; c < ncpu; c++)
		sum += vals[c];
	return sum;
}

long nm_table_size(long n)
{
	long size = 2;

	while (size < n)
		size <<= 1;
	return size;
}
