// SPDX-License-Identifier: GPL-2.0
#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <microhttpd.h>
#include "lib/caps.h"
#include "lib/cli.h"
#include "lib/listen.h"
#include "lib/worker.h"

#define POLL_MS		100	/* how soon a stop request is seen */
#define MAX_CONNS	32	/* scrapers are few; a flood gets no more */
#define CONN_TIMEOUT_S	10	/* an idle or slow client is closed after this */
#define BACKLOG		16

/* Prometheus' text exposition format, as node_exporter serves it */
#define CONTENT_TYPE	"text/plain; version=0.0.4; charset=utf-8"

struct nm_listen {
	int fd;
	int family;
	struct MHD_Daemon *d;
	pthread_t tid;
	bool started;
	bool stop;		/* atomic */
	bool dead;		/* atomic: the thread ended on its own */
	bool said;		/* publish has returned its -EIO once */
	char error[128];	/* why it ended */
	pthread_mutex_t lock;	/* body */
	char *body;		/* NULL until the first report */
	size_t len;
};

static int set_v4(struct nm_listen_addr *a, const char *host, unsigned int port)
{
	struct sockaddr_in *in = (struct sockaddr_in *)&a->ss;

	if (inet_pton(AF_INET, host, &in->sin_addr) != 1)
		return -EINVAL;
	in->sin_family = AF_INET;
	in->sin_port = htons(port);
	a->len = sizeof(*in);
	a->family = AF_INET;
	snprintf(a->text, sizeof(a->text), "%s:%u", host, port);
	return 0;
}

static int set_v6(struct nm_listen_addr *a, const char *host, unsigned int port)
{
	struct sockaddr_in6 *in6 = (struct sockaddr_in6 *)&a->ss;

	if (inet_pton(AF_INET6, host, &in6->sin6_addr) != 1)
		return -EINVAL;
	in6->sin6_family = AF_INET6;
	in6->sin6_port = htons(port);
	a->len = sizeof(*in6);
	a->family = AF_INET6;
	snprintf(a->text, sizeof(a->text), "[%s]:%u", host, port);
	return 0;
}

int nm_listen_parse(const char *arg, struct nm_listen_addr *a, char *err, size_t len)
{
	char host[INET6_ADDRSTRLEN + 2];
	const char *colon = strrchr(arg, ':'), *port_s = colon ? colon + 1 : arg;
	size_t hlen = colon ? (size_t)(colon - arg) : 0;
	bool v6 = hlen >= 2 && arg[0] == '[' && arg[hlen - 1] == ']';
	unsigned int port;

	memset(a, 0, sizeof(*a));
	port = nm_parse_port(port_s);
	if (!port) {
		snprintf(err, len, "port '%s' is not a number from 1 to 65535 nor a TCP service's "
			 "name (ADDR:PORT, [ADDR6]:PORT or PORT)", port_s);
		return -EINVAL;
	}
	a->port = port;
	if (!hlen)	/* PORT or :PORT: the host's own scraper */
		return set_v4(a, "127.0.0.1", port);
	if (hlen - (v6 ? 2 : 0) >= sizeof(host))
		goto bad_host;
	snprintf(host, sizeof(host), "%.*s", (int)(hlen - (v6 ? 2 : 0)), arg + (v6 ? 1 : 0));
	if (v6 ? !set_v6(a, host, port) : !set_v4(a, host, port))
		return 0;
bad_host:
	snprintf(err, len, "address '%.*s' is not a numeric IPv4 address or an IPv6 one in brackets",
		 (int)hlen, arg);
	return -EINVAL;
}

struct nm_listen *nm_listen_bind(const struct nm_listen_addr *a, char *err, size_t len)
{
	struct nm_listen *l = calloc(1, sizeof(*l));
	int one = 1;

	if (!l) {
		snprintf(err, len, "out of memory");
		return NULL;
	}
	l->family = a->family;
	pthread_mutex_init(&l->lock, NULL);
	l->fd = socket(a->family, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (l->fd < 0) {
		snprintf(err, len, "socket: %s", strerror(errno));
		goto fail;
	}
	/* a restart must not wait out the last run's TIME_WAIT */
	setsockopt(l->fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
	if (bind(l->fd, (const struct sockaddr *)&a->ss, a->len)) {
		snprintf(err, len, "bind: %s", strerror(errno));
		goto fail;
	}
	if (listen(l->fd, BACKLOG)) {
		snprintf(err, len, "listen: %s", strerror(errno));
		goto fail;
	}
	return l;
fail:
	nm_listen_free(l);
	return NULL;
}

static enum MHD_Result reply(struct MHD_Connection *c, unsigned int status, const char *body,
			     size_t len, const char *type)
{
	struct MHD_Response *r = MHD_create_response_from_buffer(len, (void *)body, MHD_RESPMEM_MUST_COPY);
	enum MHD_Result ret;

	if (!r)
		return MHD_NO;	/* out of memory: the connection is closed */
	MHD_add_response_header(r, MHD_HTTP_HEADER_CONTENT_TYPE, type);
	if (status == MHD_HTTP_METHOD_NOT_ALLOWED)
		MHD_add_response_header(r, MHD_HTTP_HEADER_ALLOW, "GET, HEAD");
	if (status == MHD_HTTP_SERVICE_UNAVAILABLE)
		MHD_add_response_header(r, MHD_HTTP_HEADER_RETRY_AFTER, "1");
	ret = MHD_queue_response(c, status, r);
	MHD_destroy_response(r);
	return ret;
}

static enum MHD_Result reply_text(struct MHD_Connection *c, unsigned int status, const char *msg)
{
	return reply(c, status, msg, strlen(msg), "text/plain; charset=utf-8");
}

static enum MHD_Result reply_metrics(struct nm_listen *l, struct MHD_Connection *c)
{
	enum MHD_Result ret;

	pthread_mutex_lock(&l->lock);
	if (l->body)
		ret = reply(c, MHD_HTTP_OK, l->body, l->len, CONTENT_TYPE);
	else
		ret = reply_text(c, MHD_HTTP_SERVICE_UNAVAILABLE, "no report yet: the first comes one interval after the start\n");
	pthread_mutex_unlock(&l->lock);
	return ret;
}

static enum MHD_Result answer(void *cls, struct MHD_Connection *c, const char *url, const char *method,
			      const char *version, const char *upload, size_t *upload_len, void **req)
{
	(void)version;
	(void)upload;
	(void)upload_len;
	(void)req;
	if (strcmp(method, MHD_HTTP_METHOD_GET) && strcmp(method, MHD_HTTP_METHOD_HEAD))
		return reply_text(c, MHD_HTTP_METHOD_NOT_ALLOWED, "GET /metrics\n");
	if (strcmp(url, "/metrics"))
		return reply_text(c, MHD_HTTP_NOT_FOUND, "not found: the metrics are at /metrics\n");
	return reply_metrics(cls, c);
}

static void *serve(void *arg)
{
	struct nm_listen *l = arg;
	char err[96];

	/* what a client sends meets no capability (the thread's own set) */
	if (nm_caps_drop(0, 0, err, sizeof(err))) {
		snprintf(l->error, sizeof(l->error), "dropping its capabilities: %s", err);
		goto out;
	}
	while (!__atomic_load_n(&l->stop, __ATOMIC_ACQUIRE))
		if (MHD_run_wait(l->d, POLL_MS) != MHD_YES) {
			snprintf(l->error, sizeof(l->error), "libmicrohttpd's poll failed");
			break;
		}
out:
	__atomic_store_n(&l->dead, true, __ATOMIC_RELEASE);
	return NULL;
}

static struct MHD_Daemon *daemon_start(struct nm_listen *l, unsigned int poll)
{
	unsigned int flags = poll | (l->family == AF_INET6 ? MHD_USE_IPv6 : 0);

	return MHD_start_daemon(flags, 0, NULL, NULL, answer, l,
				MHD_OPTION_LISTEN_SOCKET, l->fd,
				MHD_OPTION_CONNECTION_LIMIT, (unsigned int)MAX_CONNS,
				MHD_OPTION_CONNECTION_TIMEOUT, (unsigned int)CONN_TIMEOUT_S,
				MHD_OPTION_END);
}

int nm_listen_start(struct nm_listen *l, char *err, size_t len)
{
	int e;

	/*
	 * epoll: the socket may be past select's FD_SETSIZE (the tools hold a
	 * netns fd each); MHD takes poll() only with its own thread. Where its
	 * build has no epoll, what it deems best.
	 */
	l->d = daemon_start(l, MHD_USE_EPOLL);
	if (!l->d)
		l->d = daemon_start(l, MHD_USE_AUTO);
	if (!l->d) {
		snprintf(err, len, "libmicrohttpd refused to start");
		return -EINVAL;
	}
	e = nm_thread_start(&l->tid, serve, l);
	if (e) {
		snprintf(err, len, "thread: %s", strerror(e));
		return -e;
	}
	pthread_setname_np(l->tid, "nm-listen");
	l->started = true;
	return 0;
}

int nm_listen_publish(struct nm_listen *l, const char *text, size_t len)
{
	char *copy, *old;

	if (__atomic_load_n(&l->dead, __ATOMIC_ACQUIRE) && !l->stop) {
		if (l->said)
			return 0;
		l->said = true;
		return -EIO;
	}
	copy = malloc(len ? len : 1);
	if (!copy)
		return -ENOMEM;
	memcpy(copy, text, len);
	pthread_mutex_lock(&l->lock);
	old = l->body;
	l->body = copy;
	l->len = len;
	pthread_mutex_unlock(&l->lock);
	free(old);
	return 0;
}

const char *nm_listen_error(const struct nm_listen *l)
{
	return l->error;
}

void nm_listen_free(struct nm_listen *l)
{
	if (!l)
		return;
	if (l->started) {
		__atomic_store_n(&l->stop, true, __ATOMIC_RELEASE);
		pthread_join(l->tid, NULL);
	}
	if (l->d)
		MHD_stop_daemon(l->d);	/* it closes the listening socket it was given */
	else if (l->fd >= 0)
		close(l->fd);
	pthread_mutex_destroy(&l->lock);
	free(l->body);
	free(l);
}
