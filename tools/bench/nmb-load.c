// SPDX-License-Identifier: GPL-2.0
/*
 * nmb-load OBJ SECONDS: load a BPF object, attach every program, print
 * "ready", and keep them attached until SIGTERM/SIGINT or SECONDS pass.
 * make bench uses it for the empty baseline programs (tools/bench/empty.bpf.c).
 */
#include <bpf/libbpf.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

static volatile sig_atomic_t stop;
static void on_sig(int s) { (void)s; stop = 1; }

int main(int argc, char **argv)
{
	struct bpf_object *obj;
	struct bpf_program *p;
	int secs, n = 0;

	if (argc != 3) {
		fprintf(stderr, "usage: nmb-load OBJ SECONDS\n");
		return 2;
	}
	secs = atoi(argv[2]);
	obj = bpf_object__open_file(argv[1], NULL);
	if (!obj || libbpf_get_error(obj) || bpf_object__load(obj)) {
		fprintf(stderr, "nmb-load: cannot load %s\n", argv[1]);
		return 1;
	}
	bpf_object__for_each_program(p, obj) {
		if (libbpf_get_error(bpf_program__attach(p))) {
			fprintf(stderr, "nmb-load: cannot attach %s\n", bpf_program__name(p));
			return 1;
		}
		n++;
	}
	signal(SIGTERM, on_sig);
	signal(SIGINT, on_sig);
	printf("ready %d\n", n);
	fflush(stdout);
	for (int i = 0; i < secs * 10 && !stop; i++)
		usleep(100000);
	bpf_object__close(obj);
	return 0;
}
