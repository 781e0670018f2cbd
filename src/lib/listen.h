/* SPDX-License-Identifier: GPL-2.0 */
/*
 * --listen ADDR:PORT: the Prometheus metrics over HTTP (GET /metrics), the
 * same text as --prom-file, as ebpf_exporter and node_exporter serve it.
 * The server is Debian's libmicrohttpd, driven by a thread of our own that
 * holds no capability and no signal, so that nothing a client sends meets
 * a privileged thread.
 *
 * The order is the run's: nm_listen_bind() in the tool's own namespace,
 * before --netns enters another (a scraper reaches the host's loopback) and
 * while the process still holds CAP_NET_BIND_SERVICE for a port below 1024;
 * nm_listen_start() once everything is attached and dropped (the thread
 * would otherwise keep the main thread's set, and --netns's unshare needs a
 * single thread); nm_listen_publish() after each report.
 */
#ifndef NETMEDIC_LIB_LISTEN_H
#define NETMEDIC_LIB_LISTEN_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/socket.h>

/* What --listen names, parsed. */
struct nm_listen_addr {
	struct sockaddr_storage ss;
	socklen_t len;
	int family;		/* AF_INET or AF_INET6 */
	unsigned int port;
	char text[64];		/* "127.0.0.1:9435", "[::1]:9435": as messages say it */
};

/*
 * PORT, :PORT, IPV4:PORT or [IPV6]:PORT; a numeric address (no resolver in
 * a daemon's start), a port as nm_parse_port takes it: a number, or a
 * service's name of the local services database (/etc/services). Without
 * an address, loopback (127.0.0.1): the metrics
 * name the host's sockets, and are for the host's scraper unless told
 * otherwise. 0, or -EINVAL with the reason in err ("port 0 is not a port").
 */
int nm_listen_parse(const char *arg, struct nm_listen_addr *a, char *err, size_t len);

struct nm_listen;

/* Socket, bind, listen. NULL on failure, err says which call and why. */
struct nm_listen *nm_listen_bind(const struct nm_listen_addr *a, char *err, size_t len);
/* The server and its thread, which drops every capability first. 0 or -errno. */
int nm_listen_start(struct nm_listen *l, char *err, size_t len);
/*
 * The body GET /metrics answers from now on (copied); before the first:
 * 503. 0, -ENOMEM, or -EIO once when the thread has ended on its own
 * (nm_listen_error says why).
 */
int nm_listen_publish(struct nm_listen *l, const char *text, size_t len);
const char *nm_listen_error(const struct nm_listen *l);
/* Stops the thread and the server, closes the socket; NULL is a no-op. */
void nm_listen_free(struct nm_listen *l);

#endif
