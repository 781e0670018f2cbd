// SPDX-License-Identifier: GPL-2.0
/*
 * nm-verify OBJ...: load every program of each BPF object through this
 * kernel's verifier, fallback rungs included (the tools load only the rung
 * they choose, so a broken raw_tp variant would go unseen). fentry/fexit
 * programs are left out where the kernel refuses them (their probe says
 * so), and so is a program the kernel's policy refuses before the verifier
 * sees it (EPERM, 0 instructions processed), by name. Prints one line per
 * object; exit 1 if any program failed the verifier.
 *
 * nm-verify --only PROG[,PROG...] OBJ...: those programs only (the rest of
 * the object is still created: its maps, and the programs' subprograms).
 *
 * nm-verify --list OBJ...: "OBJ PROGRAM SECTION", one line per program.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <stdarg.h>
#include <bpf/bpf.h>
#include <bpf/btf.h>
#include <bpf/libbpf.h>

/* The last program libbpf named in a warning, and the instructions its verifier processed. */
static char failed_prog[64];
static long processed = -1;

static int print(enum libbpf_print_level level, const char *fmt, va_list ap)
{
	char line[1024];
	const char *p, *e;

	if (level != LIBBPF_WARN)
		return 0;
	vsnprintf(line, sizeof(line), fmt, ap);
	p = strstr(line, "prog '");
	if (p && (e = strchr(p + 6, '\'')) && e - p - 6 < (long)sizeof(failed_prog))
		snprintf(failed_prog, sizeof(failed_prog), "%.*s", (int)(e - p - 6), p + 6);
	p = strstr(line, "processed ");
	if (p && strstr(p, " insns"))
		processed = strtol(p + 10, NULL, 10);
	return fputs(line, stderr);
}

/* Can this kernel load any fentry program? (ftrace may be locked down) */
static bool fentry_allowed(void)
{
	struct bpf_insn insns[] = {
		{ .code = BPF_ALU64 | BPF_MOV | BPF_K, .dst_reg = BPF_REG_0 },
		{ .code = BPF_JMP | BPF_EXIT },
	};
	struct btf *btf = btf__load_vmlinux_btf();
	int id = btf ? btf__find_by_name_kind(btf, "tcp_v4_rcv", BTF_KIND_FUNC) : -1, fd;
	LIBBPF_OPTS(bpf_prog_load_opts, o, .expected_attach_type = BPF_TRACE_FENTRY,
		    .attach_btf_id = id);

	btf__free(btf);
	if (id < 0)
		return false;
	fd = bpf_prog_load(BPF_PROG_TYPE_TRACING, "nm_probe", "GPL", insns, 2, &o);
	if (fd >= 0)
		close(fd);
	return fd >= 0;
}

static int list(int argc, char **argv)
{
	for (int i = 2; i < argc; i++) {
		struct bpf_object *obj = bpf_object__open(argv[i]);
		struct bpf_program *p;

		if (!obj) {
			fprintf(stderr, "%s: cannot open\n", argv[i]);
			return 1;
		}
		bpf_object__for_each_program(p, obj)
			printf("%s %s %s\n", argv[i], bpf_program__name(p), bpf_program__section_name(p));
		bpf_object__close(obj);
	}
	return 0;
}

/*
 * Loads obj's programs but those in skip (a comma list, grown as the
 * kernel's policy refuses programs). 0, 1 (a verifier failure) or -1 (a
 * policy refusal added to skip: try again).
 */
static int load(const char *path, const char *only, bool fentry, char *skip, size_t len,
		int *n, int *nskip)
{
	struct bpf_object *obj = bpf_object__open(path);
	struct bpf_program *p;
	char me[80];
	int err;

	if (!obj)
		return 1;
	*n = *nskip = 0;
	bpf_object__for_each_program(p, obj) {
		enum bpf_attach_type t = bpf_program__expected_attach_type(p);

		snprintf(me, sizeof(me), ",%s,", bpf_program__name(p));
		if (only && !strstr(only, me)) {
			bpf_program__set_autoload(p, false);
		} else if (!fentry && (t == BPF_TRACE_FENTRY || t == BPF_TRACE_FEXIT)) {
			bpf_program__set_autoload(p, false);
			(*nskip)++;
		} else if (strstr(skip, me)) {
			bpf_program__set_autoload(p, false);
		} else {
			(*n)++;
		}
	}
	failed_prog[0] = 0;
	processed = -1;
	err = bpf_object__load(obj);
	bpf_object__close(obj);
	if (!err)
		return 0;
	/* refused before the verifier ran: the kernel's policy, not the program */
	if (err == -EPERM && processed <= 0 && failed_prog[0] && strlen(skip) + strlen(failed_prog) + 2 < len) {
		strcat(skip, failed_prog);
		strcat(skip, ",");
		return -1;
	}
	return 1;
}

int main(int argc, char **argv)
{
	char only[512] = "";
	bool fentry;
	int failed = 0, first = 1;

	libbpf_set_print(print);
	if (argc > 1 && !strcmp(argv[1], "--list"))
		return list(argc, argv);
	if (argc > 2 && !strcmp(argv[1], "--only")) {
		/* ",a,b," so that each name is matched whole */
		if (strlen(argv[2]) + 3 > sizeof(only)) {
			fprintf(stderr, "nm-verify: --only: the list is too long\n");
			return 2;
		}
		snprintf(only, sizeof(only), ",%s,", argv[2]);
		first = 3;
	}
	fentry = fentry_allowed();
	for (int i = first; i < argc; i++) {
		char skip[512] = ",";
		int n = 0, nskip = 0, ret;

		while ((ret = load(argv[i], only[0] ? only : NULL, fentry, skip, sizeof(skip), &n,
				   &nskip)) < 0)
			;
		skip[strlen(skip) - 1] = 0;
		printf("%s: %d programs %s, %d fentry/fexit %s%s%s%s\n", argv[i], n,
		       ret ? "FAILED to load" : "loaded", nskip,
		       fentry ? "loaded too" : "left out (refused by this kernel)",
		       skip[0] ? ", refused by this kernel's policy (EPERM before the verifier): " : "",
		       skip[0] ? skip + 1 : "", "");
		failed |= ret != 0;
	}
	return failed;
}
