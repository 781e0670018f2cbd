/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Arrays that grow by doubling, as the reports' rows and the plans'
 * actions do: one place for the doubling and its overflow check.
 */
#ifndef NETMEDIC_LIB_GROW_H
#define NETMEDIC_LIB_GROW_H

#include <stddef.h>

/*
 * Room for element n of an array of elements of size bytes: *arr (a
 * pointer to the array's pointer) holds *cap of them. When n has no room,
 * the array is reallocated to twice *cap (first when *cap is 0), or to
 * n + 1 if that is more. 0, or -ENOMEM with *arr and *cap unchanged (the
 * old array still valid), also when the size would overflow.
 */
int nm_grow(void *arr, size_t *cap, size_t n, size_t size, size_t first);

#endif
