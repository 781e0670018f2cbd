// SPDX-License-Identifier: GPL-2.0
/*
 * nm-tcp: the lab's TCP endpoints, bounded in time.
 *
 *   nm-tcp recv ADDR PORT SECONDS [--chunk BYTES] [--dontneed] [--stop-ms MS]
 *                                 [--rcvbuf BYTES]
 *   nm-tcp send ADDR PORT SECONDS [--chunk BYTES] [--nodelay-file PATH]
 *   nm-tcp http ADDR PORT SECONDS [--seg BYTES] [--tail BYTES] [--nodelay] [--two]
 *   nm-tcp udp ADDR PORT SECONDS [--every-ms MS]
 *
 * recv accepts one connection and reads it in --chunk reads. --dontneed
 * reads into memory just given back with MADV_DONTNEED, so every read
 * page-faults while it owns the socket lock and arriving segments go to
 * the backlog (the ACK storm setting). --stop-ms stops reading after MS
 * but keeps the socket open: the sender's window fills (rwnd stall).
 * --rcvbuf fixes the receive buffer (SO_RCVBUF, no autotuning), so that
 * the window closes within moments of the stop whatever the path's speed:
 * an autotuned buffer of megabytes takes most of a short run to fill on a
 * starved CPU (TCG), and the stall is then cut to what is left of it.
 * --nodelay-file: the sender writes its socket's TCP_NODELAY ("0" or "1")
 * to PATH at least every 100 ms, as only the socket's owner can read it
 * (tests of tcpstall --fix=kick: is the old value back?).
 * Prints "bytes N" on exit.
 *
 * http serves HTTP/1.1 keep-alive GETs, a thread per connection, like the
 * servlet of the tcp_push() report: each response in three writes, the
 * headers, a --seg body part (one full segment by default) and a --tail
 * (200 bytes); --nodelay sets TCP_NODELAY, as Tomcat does by default. A
 * body part and headers below one MSS leave the client's ACK delayed;
 * --two writes the headers and the body part at once (two writes in all):
 * one short pushed segment, which a receiver in ping-pong mode ACKs only
 * when its delayed-ACK timer fires (two would be ACKed at its next read). With
 * autocorking on (the default), the tail waits while the
 * body is below TCP (a shaping qdisc holds it): the race's setting. Prints
 * "responses N" on exit.
 *
 * udp sends a one-byte datagram every --every-ms (200 by default) for
 * SECONDS, errors ignored (a route not up yet): a trickle of traffic that
 * costs one process, where a shell loop forks a sleep five times a second
 * (the namespace churn runs dozens of them at once).
 */
#include <pthread.h>
#include <arpa/inet.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
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

static int do_recv(struct sockaddr_in *sa, double secs, size_t chunk, int dontneed, double stop_ms,
		   int rcvbuf)
{
	int one = 1, ls = socket(AF_INET, SOCK_STREAM, 0), s;
	struct timeval tv = { .tv_sec = 1 };
	double t0, end;
	long long total = 0;
	char *buf;
	ssize_t n;

	setsockopt(ls, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
	/* set before listen(): the accepted socket inherits it */
	if (rcvbuf > 0 && setsockopt(ls, SOL_SOCKET, SO_RCVBUF, &rcvbuf, sizeof(rcvbuf)))
		return perror("nm-tcp recv: SO_RCVBUF"), 1;
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

/* The socket's TCP_NODELAY into path, replaced whole (rename). */
static void note_nodelay(int s, const char *path)
{
	char tmp[4096];
	socklen_t len = sizeof(int);
	int v = -1;
	FILE *f;

	if (!path)
		return;
	getsockopt(s, IPPROTO_TCP, TCP_NODELAY, &v, &len);
	snprintf(tmp, sizeof(tmp), "%s.tmp", path);
	f = fopen(tmp, "w");
	if (!f)
		return;
	fprintf(f, "%d\n", v);
	fclose(f);
	rename(tmp, path);
}

static int do_send(struct sockaddr_in *sa, double secs, size_t chunk, const char *nodelay_file)
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
	if (nodelay_file)
		tv = (struct timeval){ .tv_usec = 100000 };	/* a blocked write returns to note it */
	setsockopt(s, SOL_SOCKET, SO_SNDTIMEO, &tv, sizeof(tv));
	end = now() + secs;
	while (now() < end) {
		n = write(s, buf, chunk);
		if (n > 0)
			total += n;
		note_nodelay(s, nodelay_file);
	}
	printf("bytes %lld\n", total);
	close(s);
	free(buf);
	return 0;
}

static int do_udp(struct sockaddr_in *sa, double secs, double every_ms)
{
	int s = socket(AF_INET, SOCK_DGRAM, 0);
	struct timespec gap = {
		.tv_sec = (time_t)(every_ms / 1000),
		.tv_nsec = (long)((every_ms - (time_t)(every_ms / 1000) * 1000) * 1e6),
	};
	double end = now() + secs;

	if (s < 0)
		return perror("nm-tcp udp: socket"), 1;
	while (now() < end) {
		sendto(s, "x", 1, 0, (void *)sa, sizeof(*sa));
		nanosleep(&gap, NULL);
	}
	close(s);
	return 0;
}

struct http_conn {
	int fd;
	size_t seg, tail;
	int nodelay, two;
	double end;
};

static long long http_responses;

/* one request: up to the blank line; 0 at EOF, -1 on error */
static int http_read_request(int fd, char *buf, size_t len)
{
	size_t have = 0;
	ssize_t n;

	while (have < len - 1) {
		n = read(fd, buf + have, len - 1 - have);
		if (n <= 0)
			return n;
		have += n;
		buf[have] = 0;
		if (strstr(buf, "\r\n\r\n"))
			return 1;
	}
	return -1;
}

static int write_all(int fd, const char *p, size_t len)
{
	ssize_t n;

	while (len) {
		n = write(fd, p, len);
		if (n <= 0)
			return -1;
		p += n;
		len -= n;
	}
	return 0;
}

static void *http_conn(void *arg)
{
	struct http_conn *c = arg;
	struct timeval tv = { .tv_sec = 1 };
	char req[4096], *buf = malloc(160 + c->seg + c->tail), *body = buf + 160, *hdr;
	int hlen, r;

	memset(body, 'x', c->seg + c->tail);
	setsockopt(c->fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv));
	if (c->nodelay)
		setsockopt(c->fd, IPPROTO_TCP, TCP_NODELAY, &c->nodelay, sizeof(c->nodelay));
	hlen = snprintf(req, sizeof(req), "HTTP/1.1 200 OK\r\nContent-Type: text/plain\r\n"
			"Content-Length: %zu\r\n\r\n", c->seg + c->tail);
	/* the headers right before the body, so that --two is one write */
	hdr = body - hlen;
	memcpy(hdr, req, hlen);
	while (now() < c->end) {
		r = http_read_request(c->fd, req, sizeof(req));
		if (r < 0 && now() < c->end)
			continue;	/* SO_RCVTIMEO: look at the clock again */
		if (r <= 0)
			break;
		/* three writes: headers, one segment, the tail (--two: the first two at once) */
		if (c->two)
			r = write_all(c->fd, hdr, hlen + c->seg);
		else
			r = write_all(c->fd, hdr, hlen) || write_all(c->fd, body, c->seg);
		if (r || write_all(c->fd, body + c->seg, c->tail))
			break;
		__atomic_add_fetch(&http_responses, 1, __ATOMIC_RELAXED);
	}
	close(c->fd);
	free(buf);
	free(c);
	return NULL;
}

static int do_http(struct sockaddr_in *sa, double secs, size_t seg, size_t tail, int nodelay, int two)
{
	int one = 1, ls = socket(AF_INET, SOCK_STREAM, 0), s;
	struct timeval tv = { .tv_sec = 0, .tv_usec = 200000 };
	double end = now() + secs;
	pthread_t th;

	setsockopt(ls, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
	if (bind(ls, (void *)sa, sizeof(*sa)) || listen(ls, 128))
		return perror("nm-tcp http: bind/listen"), 1;
	setsockopt(ls, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv));
	while (now() < end) {
		struct http_conn *c;

		s = accept(ls, NULL, NULL);
		if (s < 0)
			continue;
		c = malloc(sizeof(*c));
		*c = (struct http_conn){ .fd = s, .seg = seg, .tail = tail, .nodelay = nodelay, .two = two, .end = end };
		if (pthread_create(&th, NULL, http_conn, c)) {
			close(s);
			free(c);
			continue;
		}
		pthread_detach(th);
	}
	close(ls);
	/* the connections see the end within their 1-s read timeout */
	usleep(1200000);
	printf("responses %lld\n", __atomic_load_n(&http_responses, __ATOMIC_RELAXED));
	return 0;
}

int main(int argc, char **argv)
{
	size_t chunk = 65536, seg = 1448, tail = 200;
	const char *nodelay_file = NULL;
	double stop_ms = -1, every_ms = 200;
	int dontneed = 0, nodelay = 0, two = 0, rcvbuf = 0;
	struct sockaddr_in sa;

	if (argc < 5 || addr_of(argv[2], argv[3], &sa)) {
		fprintf(stderr, "usage: nm-tcp recv|send|http|udp ADDR PORT SECONDS [--chunk B] [--dontneed] [--stop-ms MS]"
			" [--rcvbuf B] [--nodelay-file PATH]"
			" [--seg B] [--tail B] [--nodelay] [--two] [--every-ms MS]\n");
		return 2;
	}
	for (int i = 5; i < argc; i++) {
		if (!strcmp(argv[i], "--chunk") && i + 1 < argc)
			chunk = strtoul(argv[++i], NULL, 0);
		else if (!strcmp(argv[i], "--dontneed"))
			dontneed = 1;
		else if (!strcmp(argv[i], "--stop-ms") && i + 1 < argc)
			stop_ms = atof(argv[++i]);
		else if (!strcmp(argv[i], "--every-ms") && i + 1 < argc)
			every_ms = atof(argv[++i]);
		else if (!strcmp(argv[i], "--rcvbuf") && i + 1 < argc)
			rcvbuf = atoi(argv[++i]);
		else if (!strcmp(argv[i], "--seg") && i + 1 < argc)
			seg = strtoul(argv[++i], NULL, 0);
		else if (!strcmp(argv[i], "--tail") && i + 1 < argc)
			tail = strtoul(argv[++i], NULL, 0);
		else if (!strcmp(argv[i], "--nodelay"))
			nodelay = 1;
		else if (!strcmp(argv[i], "--two"))
			two = 1;
		else if (!strcmp(argv[i], "--nodelay-file") && i + 1 < argc)
			nodelay_file = argv[++i];
		else
			return fprintf(stderr, "nm-tcp: unknown option %s\n", argv[i]), 2;
	}
	if (!strcmp(argv[1], "recv"))
		return do_recv(&sa, atof(argv[4]), chunk, dontneed, stop_ms, rcvbuf);
	if (!strcmp(argv[1], "send"))
		return do_send(&sa, atof(argv[4]), chunk, nodelay_file);
	if (!strcmp(argv[1], "udp"))
		return do_udp(&sa, atof(argv[4]), every_ms);
	if (!strcmp(argv[1], "http"))
		return do_http(&sa, atof(argv[4]), seg, tail, nodelay, two);
	return 2;
}
