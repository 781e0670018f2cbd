// SPDX-License-Identifier: GPL-2.0
/*
 * Linear probing with backward-shift deletion: no tombstones, so lookups
 * stay short however long the tool runs.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include "lib/htab.h"

struct nm_htab {
	size_t key_size, val_size, slot_size;
	size_t nslots, count, capacity;
	unsigned char *used;
	unsigned char *slots;
};

struct nm_htab *nm_htab_new(size_t key_size, size_t val_size, size_t capacity)
{
	struct nm_htab *h = calloc(1, sizeof(*h));
	size_t n = 16;

	if (!h)
		return NULL;
	while (n < capacity * 2)
		n <<= 1;
	h->key_size = key_size;
	h->val_size = val_size;
	/* values start aligned to 8 so callers may cast them to their structs */
	h->slot_size = ((key_size + 7) & ~7UL) + ((val_size + 7) & ~7UL);
	h->nslots = n;
	h->capacity = capacity;
	h->used = calloc(n, 1);
	h->slots = calloc(n, h->slot_size);
	if (!h->used || !h->slots) {
		nm_htab_free(h);
		return NULL;
	}
	return h;
}

void nm_htab_free(struct nm_htab *h)
{
	if (!h)
		return;
	free(h->used);
	free(h->slots);
	free(h);
}

/* FNV-1a: keys are small structs; good enough and dependency-free */
static size_t hash(const struct nm_htab *h, const void *key)
{
	const unsigned char *p = key;
	uint64_t x = 1469598103934665603ULL;

	for (size_t i = 0; i < h->key_size; i++)
		x = (x ^ p[i]) * 1099511628211ULL;
	return (size_t)(x ^ (x >> 32)) & (h->nslots - 1);
}

static unsigned char *slot_key(const struct nm_htab *h, size_t i)
{
	return h->slots + i * h->slot_size;
}

static void *slot_val(const struct nm_htab *h, size_t i)
{
	return slot_key(h, i) + ((h->key_size + 7) & ~7UL);
}

/* Index of key, or of the empty slot where it would go. */
static size_t find(const struct nm_htab *h, const void *key)
{
	size_t i = hash(h, key);

	while (h->used[i] && memcmp(slot_key(h, i), key, h->key_size))
		i = (i + 1) & (h->nslots - 1);
	return i;
}

void *nm_htab_get(struct nm_htab *h, const void *key)
{
	size_t i = find(h, key);

	return h->used[i] ? slot_val(h, i) : NULL;
}

void *nm_htab_upsert(struct nm_htab *h, const void *key, bool *created)
{
	size_t i = find(h, key);

	if (created)
		*created = false;
	if (h->used[i])
		return slot_val(h, i);
	if (h->count >= h->capacity)
		return NULL;
	h->used[i] = 1;
	memcpy(slot_key(h, i), key, h->key_size);
	memset(slot_val(h, i), 0, h->val_size);
	h->count++;
	if (created)
		*created = true;
	return slot_val(h, i);
}

bool nm_htab_del(struct nm_htab *h, const void *key)
{
	size_t i = find(h, key), j, k, mask = h->nslots - 1;

	if (!h->used[i])
		return false;
	h->used[i] = 0;
	h->count--;
	/* shift back later entries of the run whose home lies at or before the hole */
	for (j = (i + 1) & mask; h->used[j]; j = (j + 1) & mask) {
		k = hash(h, slot_key(h, j));
		if ((j > i && (k <= i || k > j)) || (j < i && (k <= i && k > j))) {
			memcpy(slot_key(h, i), slot_key(h, j), h->slot_size);
			h->used[i] = 1;
			h->used[j] = 0;
			i = j;
		}
	}
	return true;
}

size_t nm_htab_count(const struct nm_htab *h)
{
	return h->count;
}

bool nm_htab_next(struct nm_htab *h, size_t *pos, void **key, void **val)
{
	size_t i = *pos;
	uint64_t w;

	/*
	 * Tools walk their tables once per sweep: skip free slots eight at a
	 * time (nslots is a multiple of 8), and an empty table at once.
	 */
	if (!h->count)
		i = h->nslots;
	for (; i < h->nslots; i++) {
		if (!(i & 7)) {
			memcpy(&w, h->used + i, sizeof(w));
			if (!w) {
				i += 7;
				continue;
			}
		}
		if (h->used[i]) {
			*key = slot_key(h, i);
			*val = slot_val(h, i);
			*pos = i + 1;
			return true;
		}
	}
	*pos = i;
	return false;
}
