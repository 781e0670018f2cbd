/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Records as data: a record type is a const table of fields, and its JSON
 * line, its table header and rows, and its Prometheus families are derived
 * from that table, so that a field is spelled out once. A row is a plain
 * struct the tool fills in its judge step, verdicts included: the sinks
 * only read it.
 */
#ifndef NETMEDIC_LIB_RECORD_H
#define NETMEDIC_LIB_RECORD_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <time.h>
#include "lib/output.h"

enum nm_rec_type {
	NM_REC_U64,		/* uint64_t */
	NM_REC_U32,		/* uint32_t */
	NM_REC_I64,		/* int64_t */
	NM_REC_DOUBLE,		/* double: NaN is null in JSON, NaN in Prometheus, "-" in the table */
	NM_REC_BOOL,		/* bool */
	NM_REC_STR,		/* char[]: NUL-terminated, in the row */
	NM_REC_STRP,		/* const char *: NULL is null in JSON */
	NM_REC_BITS,		/* uint64_t mask: the numbers of its set bits, [0,1] / "0,1" */
	NM_REC_U32_ARRAY,	/* uint32_t[], its count a uint32_t at .aux */
	NM_REC_OBJ,		/* JSON only, written by .json_fn (from .off and .aux, as it likes) */
	/*
	 * uint32_t, an index into .names: the name in JSON and the table; as a
	 * metric a state set, one sample per name labelled .label, 1 for the
	 * row's and 0 for the others
	 */
	NM_REC_ENUM,
	/*
	 * uint64_t[.nnames], a count per name: in JSON one key per name
	 * (prefixed by .json), as a metric one sample per name labelled
	 * .label; never in the table
	 */
	NM_REC_U64_BY_NAME,
	/*
	 * uint64_t[.nnames], a count per name: in JSON one object under .json,
	 * {"name":N,...}; as a metric like NM_REC_U64_BY_NAME
	 */
	NM_REC_U64_MAP,
	/* const char *[], its count a uint32_t at .aux: a JSON array, a cell "a,b" */
	NM_REC_STR_ARRAY,
	/*
	 * uint64_t[.nnames][NM_HIST_SLOTS], log2 slots per name, with a double
	 * per name at .aux, their sum in the metric's unit: a histogram per
	 * name labelled .label, its bucket bounds 2^(i+1)-1 times .scale;
	 * names with no count have no series. Metrics only.
	 */
	NM_REC_LOG2_HIST,
};

enum nm_rec_prom {
	NM_PROM_NONE,
	NM_PROM_GAUGE,
	NM_PROM_COUNTER,
	NM_PROM_LABEL,		/* .prom is a label name, for the record's metrics */
	NM_PROM_HISTOGRAM,
};

/* .flags */
#define NM_COL_COUNT	0x1	/* integers shortened for narrow columns (nm_fmt_count) */
#define NM_COL_FIXED	0x2	/* a double's cell with .prec digits after the point ("%.*f") */
/*
 * The field has a value only where the bool at .valid is true. Where it
 * is false: null in JSON (left out with NM_F_OMIT), .absent in the table
 * ("-" when NULL), and no sample for the row in its metric; a label
 * field without a value is left out of the row's labels.
 */
#define NM_F_VALID	0x4
#define NM_F_OMIT	0x8
/*
 * A cell that continues the column before it: no header of its own, one
 * space after that column's cell, and nothing at all when it is empty.
 */
#define NM_COL_JOIN	0x10
/*
 * A double written in JSON with .prec digits after the point, not six
 * significant ones: a Unix time in seconds ("%.6g" would say 1.79617e+09)
 */
#define NM_F_JSON_FIXED	0x40

struct nm_field {
	const char *json;	/* JSON key; NULL: not in JSON */
	enum nm_rec_type type;
	size_t off;		/* offsetof() in the row */
	size_t aux;		/* NM_REC_U32_ARRAY: offset of its count */
	const char *unit;	/* base unit ("bytes", "seconds", "segments"), or NULL */
	const char *help;	/* what it is: the metric's HELP */
	const char *prom;	/* metric name, or label name (NM_PROM_LABEL); NULL: none */
	enum nm_rec_prom kind;
	/*
	 * Metrics: the labels kept, comma-separated, NULL for every label of
	 * the record; rows with the same kept labels are summed into one
	 * sample (a per-queue count as a per-device metric).
	 */
	const char *by;
	const char *col;	/* table header; NULL: not in the table (but NM_COL_JOIN) */
	int colno;		/* its place in the table, from 1: JSON and table orders differ */
	/*
	 * The column's least width, negative to left-align: a wider cell
	 * widens it (struct nm_rec_layout), no cell is ever cut
	 */
	int width;
	unsigned int flags;
	size_t valid;		/* NM_F_VALID: offset of its bool */
	const char *absent;	/* NM_F_VALID: the cell where there is no value */
	int prec;		/* NM_COL_FIXED: digits after the point */
	/*
	 * NM_REC_ENUM, NM_REC_U64_BY_NAME, NM_REC_U64_MAP, NM_REC_LOG2_HIST;
	 * NM_REC_BOOL: the cells for false and true, in place of "no", "yes"
	 */
	const char *const *names;
	int nnames;
	const char *label;	/* the label a metric of those expands into */
	double scale;		/* NM_REC_LOG2_HIST: a slot's unit, in the metric's unit */
	void (*json_fn)(struct nm_json *j, const struct nm_field *f, const void *row);
};

struct nm_record {
	const char *type;	/* the JSON "type" */
	const struct nm_field *fields;
	int nfields;
};

#define NM_RECORD(t, f) { .type = (t), .fields = (f), .nfields = sizeof(f) / sizeof((f)[0]) }

/* Whether a field of r has JSON key key. */
bool nm_rec_has_key(const struct nm_record *r, const char *key);
/* One JSON line: {"type":TYPE, then every field with a key, in table order}. */
void nm_rec_json(FILE *f, const struct nm_record *r, const void *row);
/*
 * The same, stamped as every record a tool writes is: "tool":tool and
 * "time":time (Unix seconds, the report's) after "type", each unless the
 * record has a field of that key (the start record's tool, an interval's
 * time, a stall's own end) or it is NULL or 0. One report's records share
 * its interval record's time, so that a reader can group them by it.
 */
void nm_rec_json_at(FILE *f, const struct nm_record *r, const void *row, const char *tool,
		    time_t time);
/*
 * A table's layout: cells by .colno, one space apart, each column as wide
 * as its widest cell of the rows given (at least .width and its header),
 * so that no cell is cut and the columns stay aligned; the last column
 * (a flow, an address: the widest) is padded only when right-aligned.
 * Where the table may take columns characters (a terminal's width,
 * nm_out_columns; 0: no limit) and a row would pass that edge, the row
 * goes on as many lines as it needs, the columns that do not fit on one
 * line going on the next, indented, and the header the same way; a cell
 * is never cut. Only a single cell wider than the terminal passes it.
 * init, then add each row, then fit; then the header and each row.
 */
#define NM_REC_COLS	32	/* .colno at most */
#define NM_REC_TEXT	512	/* a column's text, its joined cells with it */
#define NM_REC_INDENT	2	/* a row's second and later lines */

struct nm_rec_layout {
	int columns;			/* the width the table may take; 0: no limit */
	int width[NM_REC_COLS + 1];	/* by .colno */
	bool brk[NM_REC_COLS + 1];	/* by .colno: the column starts a line of the row */
	int last;			/* the last column's .colno */
	int lines;			/* lines a row takes */
};

void nm_rec_layout_init(struct nm_rec_layout *l, const struct nm_record *r, int columns);
void nm_rec_layout_add(struct nm_rec_layout *l, const struct nm_record *r, const void *row);
void nm_rec_layout_fit(struct nm_rec_layout *l);
void nm_rec_layout_header(FILE *f, const struct nm_record *r, const struct nm_rec_layout *l);
/* A row, of r or of another record whose columns share r's places. */
void nm_rec_layout_row(FILE *f, const struct nm_record *r, const struct nm_rec_layout *l,
		       const void *row);
/*
 * A whole table of n rows of r, stride bytes apart, at most columns wide
 * (0: no limit): laid out over all of them (init, add, fit), then the
 * header and each row. The layout it chose goes to *l when l is not NULL.
 */
void nm_rec_table(FILE *f, const struct nm_record *r, const void *rows, size_t stride, size_t n,
		  int columns, struct nm_rec_layout *l);
/* The column headers, then a row, each alone: every column at its .width (or wider, never cut). */
void nm_rec_table_header(FILE *f, const struct nm_record *r);
void nm_rec_table_row(FILE *f, const struct nm_record *r, const void *row);
/*
 * For each metric field, its family and one sample per distinct set of its
 * labels over the n rows (rows of stride bytes each), in the order of the
 * rows; a set of no rows gives the families without samples.
 */
void nm_rec_prom(struct nm_prom *p, const struct nm_record *r, const void *rows, size_t stride,
		 size_t n);

/* A field's JSON type as the docs name it: "integer", "number", "array of integers"... */
const char *nm_rec_json_type(const struct nm_field *f);
/* A metric's type as Prometheus names it ("gauge", "counter"), NULL for a non-metric. */
const char *nm_rec_prom_type(const struct nm_field *f);
/* Whether metric field m keeps label field l. */
bool nm_rec_keeps_label(const struct nm_field *m, const struct nm_field *l);

#endif /* NETMEDIC_LIB_RECORD_H */
