// SPDX-License-Identifier: GPL-2.0
/*
 * nmb-socks ADDR N SECONDS [PORT]: N established TCP connections to ADDR
 * (both ends in this process, so 2N sockets), idle, held for SECONDS, then
 * closed. Prints "ready N" once every connection is accepted. Listeners on
 * ports PORT.. (default 20000) take at most 20000 connections each. The
 * open-file limit is raised to what N needs, or to the hard limit when
 * raising that is not allowed (then start several processes).
 */
#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <unistd.h>

#define PER_PORT 20000

int main(int argc, char **argv)
{
	struct sockaddr_in sa = { .sin_family = AF_INET };
	int n, secs, nl, one = 1, done = 0, port = 20000;
	int *ls;
	struct rlimit rl;

	if (argc != 4 && argc != 5) {
		fprintf(stderr, "usage: nmb-socks ADDR N SECONDS [PORT]\n");
		return 2;
	}
	n = atoi(argv[2]);
	secs = atoi(argv[3]);
	if (argc == 5)
		port = atoi(argv[4]);
	if (inet_pton(AF_INET, argv[1], &sa.sin_addr) != 1)
		return 2;
	rl.rlim_cur = rl.rlim_max = 2 * (rlim_t)n + 256;
	if (setrlimit(RLIMIT_NOFILE, &rl)) {
		getrlimit(RLIMIT_NOFILE, &rl);
		if (rl.rlim_max < 2 * (rlim_t)n + 64) {
			fprintf(stderr, "nmb-socks: %d connections need %d files, the limit is %lu\n",
				n, 2 * n + 64, (unsigned long)rl.rlim_max);
			return 1;
		}
		rl.rlim_cur = rl.rlim_max;
		setrlimit(RLIMIT_NOFILE, &rl);
	}
	nl = (n + PER_PORT - 1) / PER_PORT;
	ls = calloc(nl, sizeof(*ls));
	for (int i = 0; i < nl; i++) {
		ls[i] = socket(AF_INET, SOCK_STREAM, 0);
		setsockopt(ls[i], SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
		sa.sin_port = htons(port + i);
		if (bind(ls[i], (void *)&sa, sizeof(sa)) || listen(ls[i], 4096)) {
			perror("nmb-socks: bind/listen");
			return 1;
		}
	}
	while (done < n) {
		int batch = n - done < 1000 ? n - done : 1000;

		for (int k = 0; k < batch; k++) {
			int c = socket(AF_INET, SOCK_STREAM, 0);

			sa.sin_port = htons(port + (done + k) / PER_PORT);
			if (c < 0 || connect(c, (void *)&sa, sizeof(sa))) {
				fprintf(stderr, "nmb-socks: connect %d: %s\n", done + k, strerror(errno));
				return 1;
			}
		}
		for (int k = 0; k < batch; k++)
			if (accept(ls[(done + k) / PER_PORT], NULL, NULL) < 0) {
				perror("nmb-socks: accept");
				return 1;
			}
		done += batch;
	}
	printf("ready %d\n", n);
	fflush(stdout);
	sleep(secs);
	return 0;
}
