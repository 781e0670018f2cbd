/* SPDX-License-Identifier: GPL-2.0 */
/* log2 histograms, as filled by the BPF side and printed by the tools. */
#ifndef NETMEDIC_LIB_HIST_H
#define NETMEDIC_LIB_HIST_H

#include <stdio.h>
#include <stdint.h>

#define NM_HIST_SLOTS 32

/*
 * floor(log2(v)), with nm_log2(0) == 0; used to pick a slot, clamped to
 * NM_HIST_SLOTS-1 by nm_hist_slot().
 */
unsigned int nm_log2(uint64_t v);
unsigned int nm_hist_slot(uint64_t v);

/*
 * Prints a libbpf-tools style log2 histogram ("     usecs : count    distribution" header, rows
 * "  [lo -> hi] : count |****    |"), trimmed to the last non-empty slot, star bar 40 wide
 * (20 wide with wider columns once a slot above 32 is shown). unit e.g. "usecs".
 * Prints nothing when all slots are empty, like libbpf-tools.
 */
void nm_hist_print_log2(FILE *f, const uint64_t *slots, int nslots, const char *unit);

#endif /* NETMEDIC_LIB_HIST_H */
