// SPDX-License-Identifier: GPL-2.0
#include <errno.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <bpf/libbpf.h>
#include "lib/worker.h"

#define POLL_MS		100	/* how soon a stop request is seen */

struct nm_worker {
	pthread_t tid;
	struct ring_buffer *ring;	/* NULL: a timed worker */
	nm_worker_tick_fn tick;
	nm_worker_init_fn init;
	nm_worker_flush_fn flush;
	void *ctx;
	bool stop;		/* set by nm_worker_stop (atomic) */
	bool alive;		/* cleared by the thread when its ring fails (atomic) */
	char error[128];
	char priority[96];
};

/* A timed worker's wait: the ns its tick asked for, at most POLL_MS. */
static void tick_sleep(uint64_t ns)
{
	struct timespec ts;

	if (ns > POLL_MS * 1000000ULL)
		ns = POLL_MS * 1000000ULL;
	ts.tv_sec = ns / 1000000000ULL;
	ts.tv_nsec = ns % 1000000000ULL;
	clock_nanosleep(CLOCK_MONOTONIC, 0, &ts, NULL);
}

static void *worker_main(void *arg)
{
	struct nm_worker *w = arg;
	int n;

	if (w->init && w->init(w->ctx, w->error, sizeof(w->error))) {
		__atomic_store_n(&w->alive, false, __ATOMIC_RELEASE);
		return NULL;
	}
	while (!__atomic_load_n(&w->stop, __ATOMIC_ACQUIRE)) {
		if (!w->ring) {
			tick_sleep(w->tick(w->ctx));
			continue;
		}
		n = ring_buffer__poll(w->ring, POLL_MS);
		if (n > 0 && w->flush)
			w->flush(w->ctx);
		if (n < 0 && n != -EINTR) {
			snprintf(w->error, sizeof(w->error), "ring buffer poll: %s", strerror(-n));
			break;
		}
	}
	__atomic_store_n(&w->alive, false, __ATOMIC_RELEASE);
	return NULL;
}

/* SCHED_FIFO 1: above every normal task, below every real-time one. */
static void worker_priority(struct nm_worker *w)
{
	struct sched_param sp = { .sched_priority = 1 };
	int err = pthread_setschedparam(w->tid, SCHED_FIFO, &sp);

	if (!err)
		snprintf(w->priority, sizeof(w->priority), "SCHED_FIFO 1");
	else
		snprintf(w->priority, sizeof(w->priority), "normal (SCHED_FIFO: %s)", strerror(err));
}

int nm_thread_start(pthread_t *tid, void *(*fn)(void *), void *arg)
{
	sigset_t all, old;
	int e;

	sigfillset(&all);
	pthread_sigmask(SIG_BLOCK, &all, &old);
	e = pthread_create(tid, NULL, fn, arg);
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	return e;
}

/* w, with its ring or tick set, started: w, or NULL (w freed) with err. */
static struct nm_worker *worker_run(struct nm_worker *w, char *err, size_t len)
{
	int e;

	w->alive = true;
	e = nm_thread_start(&w->tid, worker_main, w);
	if (e) {
		snprintf(err, len, "thread: %s", strerror(e));
		ring_buffer__free(w->ring);
		free(w);
		return NULL;
	}
	worker_priority(w);
	return w;
}

struct nm_worker *nm_worker_start(int ring_fd, nm_worker_init_fn init, nm_worker_record_fn record,
				  nm_worker_flush_fn flush, void *ctx, char *err, size_t len)
{
	struct nm_worker *w = calloc(1, sizeof(*w));

	if (!w) {
		snprintf(err, len, "out of memory");
		return NULL;
	}
	w->ring = ring_buffer__new(ring_fd, record, ctx, NULL);
	if (!w->ring) {
		snprintf(err, len, "ring buffer: %s", strerror(errno));
		free(w);
		return NULL;
	}
	w->init = init;
	w->flush = flush;
	w->ctx = ctx;
	return worker_run(w, err, len);
}

struct nm_worker *nm_worker_start_timed(nm_worker_init_fn init, nm_worker_tick_fn tick, void *ctx, char *err,
					size_t len)
{
	struct nm_worker *w = calloc(1, sizeof(*w));

	if (!w) {
		snprintf(err, len, "out of memory");
		return NULL;
	}
	w->tick = tick;
	w->init = init;
	w->ctx = ctx;
	return worker_run(w, err, len);
}

bool nm_worker_alive(const struct nm_worker *w)
{
	return w && __atomic_load_n(&w->alive, __ATOMIC_ACQUIRE);
}

const char *nm_worker_error(const struct nm_worker *w)
{
	return w && !nm_worker_alive(w) ? w->error : "";
}

const char *nm_worker_priority(const struct nm_worker *w)
{
	return w ? w->priority : "none";
}

void nm_worker_stop(struct nm_worker *w)
{
	if (!w)
		return;
	__atomic_store_n(&w->stop, true, __ATOMIC_RELEASE);
	pthread_join(w->tid, NULL);
	ring_buffer__free(w->ring);
	free(w);
}
