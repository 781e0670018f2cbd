/* SPDX-License-Identifier: GPL-2.0 */
/*
 * A fixed-capacity open-addressing hash table for userspace state that
 * must outlive one BPF map read: previous counters (per-interval deltas),
 * per-socket stall episodes. Keys and values are fixed-size byte blobs.
 * Capacity is set at creation and never grows: a full table says so.
 */
#ifndef NETMEDIC_HTAB_H
#define NETMEDIC_HTAB_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct nm_htab;

/* capacity: entries at most (the slot array is twice that). NULL on ENOMEM. */
struct nm_htab *nm_htab_new(size_t key_size, size_t val_size, size_t capacity);
void nm_htab_free(struct nm_htab *h);
/* The value for key, or NULL. */
void *nm_htab_get(struct nm_htab *h, const void *key);
/* The value for key, inserted zeroed if missing; NULL when full. *created tells which (may be NULL). */
void *nm_htab_upsert(struct nm_htab *h, const void *key, bool *created);
/* Removes key; false if absent. */
bool nm_htab_del(struct nm_htab *h, const void *key);
size_t nm_htab_count(const struct nm_htab *h);
/*
 * Iteration: *pos starts at 0; returns the next entry's key and value, or
 * false at the end. Deleting moves entries: collect keys, delete after.
 */
bool nm_htab_next(struct nm_htab *h, size_t *pos, void **key, void **val);

#endif
