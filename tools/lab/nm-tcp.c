// SPDX-License-Identifier: GPL-2.0
/*
 * nm-tcp: the lab's TCP endpoints, bounded in time.
 *
 *   nm-tcp recv ADDR PORT SECONDS [--chunk BYTES] [--dontneed] [--stop-ms MS]
 *   nm-tcp send ADDR PORT SECONDS [--chunk BYTES]
 *
 * recv accepts one connection and reads it in --chunk reads. --dontneed
 * reads into memory just given back with MADV_DONTNEED, so every read
 * page-faults while it owns the socket lock and arriving segments go to
 * the backlog (the ACK storm setting). --stop-ms stops reading after MS
 * but keeps the socket open: the sender's window fills (rwnd stall).
 * Prints "bytes N" on exit.
 */
#include <arpa/inet.h>
#include <netinet/in.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

static int addr_of(const char *ip, const char *port, struct sockaddr_in *sa)
{
	memset(sa, 0, sizeof(*sa));
	sa->sin_family = AF_INET;
	sa->sin_port = htons(atoi(port));
	return inet_pton(AF_INET, ip, &sa->sin_addr) == 1 ? 0 : -1;
}

static int do_recv(struct sockaddr_in *sa, double secs, size_t chunk, int dontneed, double stop_ms)
{
	int one = 1, ls = socket(AF_INET, SOCK_STREAM, 0), s;
	struct timeval tv = { .tv_sec = 1 };
	double t0, end;
	long long total = 0;
	char *buf;
	ssize_t n;

	setsockopt(ls, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
	if (bind(ls, (void *)sa, sizeof(*sa)) || listen(ls, 1))
		return perror("nm-tcp recv: bind/listen"), 1;
	/* bounded: give up waiting for the sender after the run's length */
	tv.tv_sec = (long)secs + 5;
	setsockopt(ls, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv));
	s = accept(ls, NULL, NULL);
	if (s < 0)
		return perror("nm-tcp recv: accept"), 1;
	tv.tv_sec = 1;
	setsockopt(s, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv));
	buf = mmap(NULL, chunk, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (buf == MAP_FAILED)
		return perror("nm-tcp recv: mmap"), 1;
	t0 = now();
	end = t0 + secs;
	while (now() < end) {
		if (stop_ms >= 0 && (now() - t0) * 1000 >= stop_ms) {
			usleep(10000);
			continue;
		}
		if (dontneed)
			madvise(buf, chunk, MADV_DONTNEED);
		n = read(s, buf, chunk);
		if (n == 0)
			break;
		if (n > 0)
			total += n;
	}
	printf("bytes %lld\n", total);
	close(s);
	close(ls);
	return 0;
}

static int do_send(struct sockaddr_in *sa, double secs, size_t chunk)
{
	int s = socket(AF_INET, SOCK_STREAM, 0);
	struct timeval tv = { .tv_sec = 1 };
	long long total = 0;
	double end;
	char *buf = calloc(1, chunk);
	ssize_t n;

	for (int i = 0; i < 50; i++) {
		if (!connect(s, (void *)sa, sizeof(*sa)))
			break;
		if (i == 49)
			return perror("nm-tcp send: connect"), 1;
		close(s);
		s = socket(AF_INET, SOCK_STREAM, 0);
		usleep(100000);
	}
	setsockopt(s, SOL_SOCKET, SO_SNDTIMEO, &tv, sizeof(tv));
	end = now() + secs;
	while (now() < end) {
		n = write(s, buf, chunk);
		if (n > 0)
			total += n;
	}
	printf("bytes %lld\n", total);
	close(s);
	free(buf);
	return 0;
}

int main(int argc, char **argv)
{
	size_t chunk = 65536;
	double stop_ms = -1;
	int dontneed = 0;
	struct sockaddr_in sa;

	if (argc < 5 || addr_of(argv[2], argv[3], &sa)) {
		fprintf(stderr, "usage: nm-tcp recv|send ADDR PORT SECONDS [--chunk B] [--dontneed] [--stop-ms MS]\n");
		return 2;
	}
	for (int i = 5; i < argc; i++) {
		if (!strcmp(argv[i], "--chunk") && i + 1 < argc)
			chunk = strtoul(argv[++i], NULL, 0);
		else if (!strcmp(argv[i], "--dontneed"))
			dontneed = 1;
		else if (!strcmp(argv[i], "--stop-ms") && i + 1 < argc)
			stop_ms = atof(argv[++i]);
		else
			return fprintf(stderr, "nm-tcp: unknown option %s\n", argv[i]), 2;
	}
	if (!strcmp(argv[1], "recv"))
		return do_recv(&sa, atof(argv[4]), chunk, dontneed, stop_ms);
	if (!strcmp(argv[1], "send"))
		return do_send(&sa, atof(argv[4]), chunk);
	return 2;
}
