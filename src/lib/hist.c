// SPDX-License-Identifier: GPL-2.0
/* log2 histograms, as filled by the BPF side and printed by the tools. */
#include <inttypes.h>

#include "lib/hist.h"

unsigned int nm_log2(uint64_t v)
{
	/* __builtin_clzll(0) is undefined, and 0 shares slot 0 with 1. */
	if (!v)
		return 0;
	return 63 - __builtin_clzll(v);
}

unsigned int nm_hist_slot(uint64_t v)
{
	unsigned int s = nm_log2(v);

	return s < NM_HIST_SLOTS ? s : NM_HIST_SLOTS - 1;
}

/* val * width / max without overflowing for counts near 2^64. */
static int star_count(uint64_t val, uint64_t max, int width)
{
	if (max <= UINT64_MAX / (uint64_t)width)
		return val * width / max;
	return val / (max / width);
}

static void print_stars(FILE *f, uint64_t val, uint64_t max, int width)
{
	int stars = star_count(val, max, width);

	fprintf(f, "%.*s%*s", stars,
		"****************************************", width - stars, "");
}

void nm_hist_print_log2(FILE *f, const uint64_t *slots, int nslots,
			const char *unit)
{
	int i, last = -1, width, stars;
	uint64_t max = 0;

	if (nslots > 64)	/* slot 63 already reaches UINT64_MAX */
		nslots = 64;
	for (i = 0; i < nslots; i++) {
		if (slots[i])
			last = i;
		if (slots[i] > max)
			max = slots[i];
	}
	if (last < 0)
		return;

	/* Same geometry as libbpf-tools so output diffs cleanly against it. */
	width = last <= 32 ? 10 : 20;
	stars = last <= 32 ? 40 : 20;
	fprintf(f, "%*s%-*s : count    distribution\n", width - 5, "",
		width + 9, unit);
	for (i = 0; i <= last; i++) {
		uint64_t lo = i ? UINT64_C(1) << i : 0;
		uint64_t hi = i == 63 ? UINT64_MAX : (UINT64_C(1) << (i + 1)) - 1;

		fprintf(f, "%*" PRIu64 " -> %-*" PRIu64 " : %-8" PRIu64 " |",
			width, lo, width, hi, slots[i]);
		print_stars(f, slots[i], max, stars);
		fputs("|\n", f);
	}
}
