// SPDX-License-Identifier: GPL-2.0
/*
 * nmb-flows DST NFLOWS SECONDS: send 1-byte UDP datagrams to DST over
 * NFLOWS distinct 5-tuples (source ports from several sockets times
 * destination ports 1024..), round after round, for SECONDS. Prints the
 * datagrams sent and the rounds completed.
 */
#include <arpa/inet.h>
#include <netinet/in.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#define PORTS 50000

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

int main(int argc, char **argv)
{
	struct sockaddr_in sa = { .sin_family = AF_INET };
	long n, sent = 0, rounds = 0;
	int k, *s;
	double end;

	if (argc != 4) {
		fprintf(stderr, "usage: nmb-flows DST NFLOWS SECONDS\n");
		return 2;
	}
	if (inet_pton(AF_INET, argv[1], &sa.sin_addr) != 1)
		return 2;
	n = atol(argv[2]);
	end = now() + atof(argv[3]);
	k = (n + PORTS - 1) / PORTS;
	s = calloc(k, sizeof(*s));
	for (int i = 0; i < k; i++)
		s[i] = socket(AF_INET, SOCK_DGRAM, 0);
	while (now() < end) {
		for (long f = 0; f < n; f++) {
			sa.sin_port = htons(1024 + f / k);
			if (sendto(s[f % k], "x", 1, 0, (void *)&sa, sizeof(sa)) == 1)
				sent++;
			if ((f & 1023) == 0 && now() >= end)
				goto out;
		}
		rounds++;
	}
out:
	printf("sent %ld rounds %ld\n", sent, rounds);
	return 0;
}
