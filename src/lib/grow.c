// SPDX-License-Identifier: GPL-2.0
/* Arrays that grow by doubling (grow.h). */
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include "lib/grow.h"

int nm_grow(void *arr, size_t *cap, size_t n, size_t size, size_t first)
{
	void **p = arr;
	size_t want;
	void *np;

	if (n < *cap)
		return 0;
	want = *cap ? *cap : first;
	if (*cap && want > SIZE_MAX / 2)
		return -ENOMEM;
	if (*cap)
		want *= 2;
	if (want <= n)
		want = n + 1;
	if (!want || !size || want > SIZE_MAX / size)
		return -ENOMEM;
	np = realloc(*p, want * size);
	if (!np)
		return -ENOMEM;
	*p = np;
	*cap = want;
	return 0;
}
