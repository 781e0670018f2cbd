// SPDX-License-Identifier: GPL-2.0
/*
 * nm-verify OBJ...: load every program of each BPF object through this
 * kernel's verifier, fallback rungs included (the tools load only the rung
 * they choose, so a broken raw_tp variant would go unseen). fentry/fexit
 * programs are left out where the kernel refuses them (their probe says
 * so). Prints one line per object; exit 1 if any failed to load.
 */
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include <stdarg.h>
#include <bpf/bpf.h>
#include <bpf/btf.h>
#include <bpf/libbpf.h>

static int print(enum libbpf_print_level level, const char *fmt, va_list ap)
{
	return level == LIBBPF_WARN ? vfprintf(stderr, fmt, ap) : 0;
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

int main(int argc, char **argv)
{
	bool fentry = fentry_allowed();
	int failed = 0;

	libbpf_set_print(print);
	for (int i = 1; i < argc; i++) {
		struct bpf_object *obj = bpf_object__open(argv[i]);
		struct bpf_program *p;
		int n = 0, skipped = 0, err;

		if (!obj) {
			printf("%s: cannot open\n", argv[i]);
			failed = 1;
			continue;
		}
		bpf_object__for_each_program(p, obj) {
			enum bpf_attach_type t = bpf_program__expected_attach_type(p);

			if (!fentry && (t == BPF_TRACE_FENTRY || t == BPF_TRACE_FEXIT)) {
				bpf_program__set_autoload(p, false);
				skipped++;
			} else {
				n++;
			}
		}
		err = bpf_object__load(obj);
		printf("%s: %d programs %s, %d fentry/fexit %s\n", argv[i], n,
		       err ? "FAILED to load" : "loaded", skipped,
		       fentry ? "loaded too" : "left out (refused by this kernel)");
		failed |= err != 0;
		bpf_object__close(obj);
	}
	return failed;
}
