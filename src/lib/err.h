/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The one-line reasons the library hands its callers: a caller's buffer
 * (may be NULL or empty: then nothing is written) and the code to return.
 */
#ifndef NETMEDIC_LIB_ERR_H
#define NETMEDIC_LIB_ERR_H

#include <stddef.h>

/* Formats the reason into err (errlen bytes); returns rc, for `return nm_set_err(...)`. */
int nm_set_err(char *err, size_t errlen, int rc, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));

#endif
