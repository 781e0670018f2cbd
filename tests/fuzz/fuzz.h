/* SPDX-License-Identifier: GPL-2.0 */
/*
 * fuzz.h - what the libFuzzer harnesses share. A harness's own checks
 * call FZ_CHECK: a broken invariant aborts, and libFuzzer saves the input
 * as it does for a sanitizer report.
 */
#ifndef NETMEDIC_FUZZ_H
#define NETMEDIC_FUZZ_H

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define FZ_CHECK(cond)								\
	do {									\
		if (!(cond)) {							\
			fprintf(stderr, "%s:%d: check failed: %s\n", __FILE__,	\
				__LINE__, #cond);				\
			abort();						\
		}								\
	} while (0)

/* The input as a malloc'd C string (cut at its first NUL, as a C caller sees it). */
static inline char *fz_str(const uint8_t *data, size_t size)
{
	char *s = malloc(size + 1);

	FZ_CHECK(s);
	memcpy(s, data, size);
	s[size] = '\0';
	return s;
}

#endif
