// SPDX-License-Identifier: GPL-2.0
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>
#include "lib/htab.h"

struct key { uint32_t a; uint16_t b; uint16_t pad; };

static void test_insert_get_delete_many(void **state)
{
	struct nm_htab *h = nm_htab_new(sizeof(struct key), sizeof(uint64_t), 5000);
	struct key k = {};
	bool created;

	(void)state;
	assert_non_null(h);
	for (uint32_t i = 0; i < 5000; i++) {
		k.a = i * 2654435761u;
		k.b = i;
		uint64_t *v = nm_htab_upsert(h, &k, &created);
		assert_non_null(v);
		assert_true(created);
		*v = i;
	}
	assert_int_equal(nm_htab_count(h), 5000);
	/* full: a new key is refused, an existing one is still found */
	k.a = 1;
	k.b = 60000;
	assert_null(nm_htab_upsert(h, &k, NULL));
	/* delete every third; the rest must all still be found (backward shift) */
	for (uint32_t i = 0; i < 5000; i += 3) {
		k.a = i * 2654435761u;
		k.b = i;
		assert_true(nm_htab_del(h, &k));
		assert_false(nm_htab_del(h, &k));
	}
	for (uint32_t i = 0; i < 5000; i++) {
		k.a = i * 2654435761u;
		k.b = i;
		uint64_t *v = nm_htab_get(h, &k);
		if (i % 3 == 0) {
			assert_null(v);
		} else {
			assert_non_null(v);
			assert_int_equal(*v, i);
		}
	}
	nm_htab_free(h);
}

static void test_upsert_existing_and_iterate(void **state)
{
	struct nm_htab *h = nm_htab_new(sizeof(struct key), 24, 8);
	struct key k = { .a = 7 };
	size_t pos = 0, n = 0;
	void *kp, *vp;
	bool created;

	(void)state;
	unsigned char *v = nm_htab_upsert(h, &k, &created);
	assert_true(created);
	v[23] = 0x5a;
	v = nm_htab_upsert(h, &k, &created);
	assert_false(created);
	assert_int_equal(v[23], 0x5a);
	k.a = 8;
	nm_htab_upsert(h, &k, NULL);
	while (nm_htab_next(h, &pos, &kp, &vp))
		n++;
	assert_int_equal(n, 2);
	/* values are 8-byte aligned for callers' structs */
	assert_int_equal((uintptr_t)vp % 8, 0);
	nm_htab_free(h);
}

/* The walk skips free slots by words: every entry of a sparse table, once; none of an empty one. */
static void test_iterate_sparse_and_empty(void **state)
{
	struct nm_htab *h = nm_htab_new(sizeof(struct key), sizeof(uint64_t), 4096);
	uint64_t seen[64] = {}, *v;
	struct key k = {}, *kp;
	size_t pos = 0, n = 0;

	(void)state;
	assert_false(nm_htab_next(h, &pos, (void **)&kp, (void **)&v));
	for (uint32_t i = 0; i < 64; i++) {
		k.a = i * 2654435761u;
		k.b = i;
		v = nm_htab_upsert(h, &k, NULL);
		*v = i;
	}
	pos = 0;
	while (nm_htab_next(h, &pos, (void **)&kp, (void **)&v)) {
		assert_int_equal(kp->b, *v);
		seen[*v]++;
		n++;
	}
	assert_int_equal(n, 64);
	for (int i = 0; i < 64; i++)
		assert_int_equal(seen[i], 1);
	for (uint32_t i = 0; i < 64; i++) {
		k.a = i * 2654435761u;
		k.b = i;
		nm_htab_del(h, &k);
	}
	pos = 0;
	assert_false(nm_htab_next(h, &pos, (void **)&kp, (void **)&v));
	nm_htab_free(h);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_insert_get_delete_many),
		cmocka_unit_test(test_upsert_existing_and_iterate),
		cmocka_unit_test(test_iterate_sparse_and_empty),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
