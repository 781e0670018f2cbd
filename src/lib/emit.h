/* SPDX-License-Identifier: GPL-2.0 */
/*
 * emit.h - a report's sinks, written once: --json, the table (on stderr
 * beside --json, with --table) and --prom-file. A tool's report step
 * says what one report holds, as records and their rows (lib/record.h),
 * in a struct nm_emit; nm_emit() writes it to the sinks the options ask
 * for, in the order every tool keeps: JSON, table, textfile.
 */
#ifndef NETMEDIC_LIB_EMIT_H
#define NETMEDIC_LIB_EMIT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <time.h>
#include "lib/cli.h"
#include "lib/record.h"

/*
 * Rows of one record: n rows of stride bytes at rows, or, where they are
 * not kept as an array (a row made from a flow only when written), the
 * rows next returns from ctx until NULL. *pos starts at 0 and is next's
 * to move; *rec starts at rec, and next may name another record for the
 * row it returns (a flow's placement after its ACKs, say). Asked again
 * from 0, next gives the same rows: the table reads them twice, once to
 * size its columns.
 */
struct nm_emit_rows {
	const struct nm_record *rec;
	const void *rows;
	size_t n, stride;
	const void *(*next)(void *ctx, size_t *pos, const struct nm_record **rec);
	void *ctx;
};

/* The array form of nm_emit_rows, n rows of arr (an array or a pointer to its first). */
#define NM_EMIT_ROWS(r, arr, cnt)							\
	((struct nm_emit_rows){ .rec = (r), .rows = (arr), .n = (cnt),			\
				.stride = sizeof(*(arr)) })

/* A part of the table: its heading line, the column headers and up to top rows (0: all). */
struct nm_emit_table {
	char heading[256];
	struct nm_emit_rows rows;
	size_t top;
};

/*
 * The tool's BPF map of flows (or qdiscs) for the self metrics: its fill,
 * and for a direct-mapped table, the events that found no slot.
 */
struct nm_emit_map {
	const char *name;	/* NULL: none */
	uint64_t entries, max, evictions;
	bool direct;
	uint64_t untracked;
};

/*
 * A log2 histogram the table ends with (-H): its heading line, then its
 * slots as lib/hist.h prints them (nothing when all are empty).
 */
struct nm_emit_hist {
	char heading[128];
	const uint64_t *slots;
	int nslots;
	const char *unit;	/* "usecs" */
};

#define NM_EMIT_SETS	4
#define NM_EMIT_TABLES	2

struct nm_emit {
	/* --json: each set's rows, in order (the interval's record first) */
	struct nm_emit_rows json[NM_EMIT_SETS];
	/*
	 * The table: a blank line and the time (HH:MM:SS, local) before the
	 * first part's heading; then each part with a record, then the
	 * histograms (none: nhists 0), in order.
	 */
	time_t time;
	struct nm_emit_table table[NM_EMIT_TABLES];
	const struct nm_emit_hist *hists;
	size_t nhists;
	/* --prom-file: each set's families (arrays only), the self metrics, the map */
	struct nm_emit_rows prom[NM_EMIT_SETS];
	struct nm_emit_map map;
};

/*
 * What the self metrics name: the tool, its loaded object and its hooks
 * (none: obj and hooks NULL; the agent's detectors: obj NULL, the agent
 * names its object's programs once).
 */
struct nm_emit_self {
	const char *tool;
	const struct bpf_object *obj;
	const struct nm_hook *hooks;
	int nhooks;
};

/*
 * The first line: the start record in JSON, and the table's
 * "TOOL: kernel K, interval Is, WHAT[; lost: ...]"; with -v,
 * "TOOL: kernel K, hooks H, interval Is, WHAT[; refused: ...][; lost: ...]".
 * devices is --dev's devices, or "all", for the tool's row and its what.
 */
struct nm_first {
	const struct nm_record *rec;
	const void *row;
	char what[512];
	char devices[128];
	/* what the tool lost besides its hooks, "a (why), b (why)": after the hooks' under one "; lost:" */
	char lost[256];
};

/*
 * The first line's tail: the hooks' "[; refused: ...][; lost: ...]"
 * (nm_hooks_losses) with extra ("a (why), ..."; "" for none) joined to
 * its "; lost:" part, or made one. Into buf; returns it.
 */
const char *nm_emit_losses(const char *hooks_losses, const char *extra, char *buf, size_t len);

void nm_emit_first(const struct nm_opts *o, const struct nm_first *l, const struct nm_hook *hooks,
		   int nhooks);
/*
 * s, at most columns wide (0: no limit): where it would pass the edge it
 * breaks after a ", " or "; " and goes on indented, so that nothing is cut
 * (an item longer than a line passes it). The first line is written so.
 */
void nm_emit_wrapped(FILE *f, const char *s, int columns);
/* The table's first line alone, to the width of f's terminal. */
void nm_emit_first_line(FILE *f, const struct nm_opts *o, const struct nm_first *l,
			const struct nm_hook *hooks, int nhooks);
/* --dev's devices, comma-separated, or "all". */
const char *nm_emit_devices(const struct nm_opts *o, char *buf, size_t len);

/* One report to the sinks o asks for; a textfile not written is said, and the run goes on. */
void nm_emit(const struct nm_opts *o, const struct nm_emit *e, const struct nm_emit_self *self);

/* A textfile's content to --prom-file and the --listen server (the agent's, of every detector). */
void nm_emit_prom_out(const struct nm_opts *o, struct nm_prom *p);

/*
 * The sinks alone (nm_emit calls them; tests too). JSON: each line
 * stamped with tool and the report's time (nm_rec_json_at), in a CLI's
 * stream and in the agent's, where the tool tells its detectors apart.
 */
void nm_emit_json(FILE *f, const struct nm_emit *e, const char *tool);
/* The table, as wide as f's terminal allows (nm_out_columns); _in: columns wide (0: no limit). */
void nm_emit_table(FILE *f, const struct nm_emit *e);
void nm_emit_table_in(FILE *f, const struct nm_emit *e, int columns);
/* The textfile's content; with self, the self metrics after the records'. */
void nm_emit_prom(struct nm_prom *p, const struct nm_emit *e, const struct nm_emit_self *self);

#endif /* NETMEDIC_LIB_EMIT_H */
