/* SPDX-License-Identifier: GPL-2.0 */
/*
 * A thread that sleeps on a BPF ring buffer and acts on its records as
 * they come (or on a clock, where the kernel has no timer to fill a
 * ring): for a remedy that must act within milliseconds of a kernel event
 * (tcpstall's kick must beat the peer's 40-ms delayed ACK), whatever the
 * main loop is doing: sweeping, reporting, waiting for the CPU.
 *
 * It runs at SCHED_FIFO 1 where the kernel allows it (the RT throttle,
 * sched_rt_runtime_us, still bounds it), else at the tool's priority, and
 * says which. It blocks every signal: the main thread takes them, and
 * stops it with nm_worker_stop() before undoing anything.
 */
#ifndef NETMEDIC_WORKER_H
#define NETMEDIC_WORKER_H

#include <pthread.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/*
 * pthread_create with every signal blocked in the new thread (it inherits
 * the mask): signals stay with the main thread, whose handler asks for the
 * exit. The worker's and lib/listen.c's threads. 0 or an errno.
 */
int nm_thread_start(pthread_t *tid, void *(*fn)(void *), void *arg);

struct nm_worker;

/* One record of the ring (libbpf's ring_buffer_sample_fn). */
typedef int (*nm_worker_record_fn)(void *ctx, void *data, size_t len);
/* After each wake-up, once the records it found are taken. */
typedef void (*nm_worker_flush_fn)(void *ctx);
/*
 * In the thread, before its first poll (may be NULL): capabilities are per
 * thread, so this is where it drops what the main thread drops. Non-zero:
 * the thread stops, with msg as its error.
 */
typedef int (*nm_worker_init_fn)(void *ctx, char *msg, size_t len);

/* One wake of a timed worker: its work done, the ns until the next wake. */
typedef uint64_t (*nm_worker_tick_fn)(void *ctx);

/*
 * Starts the thread on the ring buffer map ring_fd; its priority is set
 * from the calling thread, which needs CAP_SYS_NICE for SCHED_FIFO then.
 * NULL, with a one-line reason in err, when the ring or the thread cannot
 * be had.
 */
struct nm_worker *nm_worker_start(int ring_fd, nm_worker_init_fn init, nm_worker_record_fn record,
				  nm_worker_flush_fn flush, void *ctx, char *err, size_t len);
/*
 * As nm_worker_start, for work that a clock calls for rather than a ring:
 * tick runs at once, then each time the ns it returned have passed (at
 * most 100 ms: a stop request waits no longer).
 */
struct nm_worker *nm_worker_start_timed(nm_worker_init_fn init, nm_worker_tick_fn tick, void *ctx, char *err,
					size_t len);
/* False once the thread stopped on its own: its ring failed (nm_worker_error says how). */
bool nm_worker_alive(const struct nm_worker *w);
const char *nm_worker_error(const struct nm_worker *w);
/* "SCHED_FIFO 1", or "normal (SCHED_FIFO: <why>)" when the kernel refused it. */
const char *nm_worker_priority(const struct nm_worker *w);
/* Stops the thread, waits for it (at most one poll, 100 ms) and frees it. NULL is fine. */
void nm_worker_stop(struct nm_worker *w);

#endif
