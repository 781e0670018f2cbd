// SPDX-License-Identifier: GPL-2.0
/* Records as data: JSON, table and Prometheus output derived from field tables. */
#include <inttypes.h>
#include <math.h>
#include <string.h>

#include "lib/hist.h"
#include "lib/record.h"

#define MAX_BITS	64
#define MAX_LABELS	8

static const void *at(const void *row, size_t off)
{
	return (const char *)row + off;
}

static uint64_t get_u64(const struct nm_field *f, const void *row)
{
	switch (f->type) {
	case NM_REC_U64:
	case NM_REC_BITS:
		return *(const uint64_t *)at(row, f->off);
	case NM_REC_U32:
	case NM_REC_ENUM:
		return *(const uint32_t *)at(row, f->off);
	case NM_REC_I64:
		return *(const int64_t *)at(row, f->off);
	case NM_REC_BOOL:
		return *(const bool *)at(row, f->off);
	default:
		return 0;
	}
}

/* Whether the field has a value in row (NM_F_VALID). */
static bool has_value(const struct nm_field *f, const void *row)
{
	return !(f->flags & NM_F_VALID) || *(const bool *)at(row, f->valid);
}

static const char *enum_name(const struct nm_field *f, uint64_t v)
{
	return v < (uint64_t)f->nnames ? f->names[v] : "?";
}

static const char *get_str(const struct nm_field *f, const void *row)
{
	if (f->type == NM_REC_ENUM)
		return enum_name(f, get_u64(f, row));
	if (f->type == NM_REC_STRP)
		return *(const char *const *)at(row, f->off);
	return at(row, f->off);
}

/* The numbers in a BITS or U32_ARRAY field; returns how many. */
static int get_array(const struct nm_field *f, const void *row, const uint32_t **v,
		     uint32_t *buf)
{
	uint64_t mask;
	int n = 0;

	if (f->type == NM_REC_U32_ARRAY) {
		*v = at(row, f->off);
		return *(const uint32_t *)at(row, f->aux);
	}
	mask = get_u64(f, row);
	for (uint32_t b = 0; b < MAX_BITS; b++)
		if (mask & (UINT64_C(1) << b))
			buf[n++] = b;
	*v = buf;
	return n;
}

/* ---------------------------------------------------------------- JSON */

/* A key per name, prefixed by the field's key. */
static void json_by_name(struct nm_json *j, const struct nm_field *f, const void *row)
{
	const uint64_t *v = at(row, f->off);
	char key[64];

	for (int i = 0; i < f->nnames; i++) {
		snprintf(key, sizeof(key), "%s%s", f->json, f->names[i]);
		nm_json_u64(j, key, v[i]);
	}
}

static void json_field(struct nm_json *j, const struct nm_field *f, const void *row)
{
	uint32_t buf[MAX_BITS];
	const uint32_t *v;
	int n;

	if (!has_value(f, row)) {
		if (!(f->flags & NM_F_OMIT))
			nm_json_str(j, f->json, NULL);
		return;
	}
	switch (f->type) {
	case NM_REC_U64:
	case NM_REC_U32:
		nm_json_u64(j, f->json, get_u64(f, row));
		break;
	case NM_REC_I64:
		nm_json_i64(j, f->json, *(const int64_t *)at(row, f->off));
		break;
	case NM_REC_DOUBLE:
		if (f->flags & NM_F_JSON_FIXED)
			nm_json_fixed(j, f->json, *(const double *)at(row, f->off), f->prec);
		else
			nm_json_double(j, f->json, *(const double *)at(row, f->off));
		break;
	case NM_REC_BOOL:
		nm_json_bool(j, f->json, get_u64(f, row));
		break;
	case NM_REC_STR:
	case NM_REC_STRP:
	case NM_REC_ENUM:
		nm_json_str(j, f->json, get_str(f, row));
		break;
	case NM_REC_BITS:
	case NM_REC_U32_ARRAY:
		n = get_array(f, row, &v, buf);
		nm_json_u32_array(j, f->json, v, n);
		break;
	case NM_REC_OBJ:
		f->json_fn(j, f, row);
		break;
	case NM_REC_U64_BY_NAME:
		json_by_name(j, f, row);
		break;
	case NM_REC_U64_MAP:
		nm_json_u64_map(j, f->json, f->names, at(row, f->off), f->nnames);
		break;
	case NM_REC_STR_ARRAY:
		nm_json_str_array(j, f->json, at(row, f->off), *(const uint32_t *)at(row, f->aux));
		break;
	case NM_REC_LOG2_HIST:
		break;
	}
}

bool nm_rec_has_key(const struct nm_record *r, const char *key)
{
	for (int i = 0; i < r->nfields; i++)
		if (r->fields[i].json && !strcmp(r->fields[i].json, key))
			return true;
	return false;
}

void nm_rec_json(FILE *f, const struct nm_record *r, const void *row)
{
	nm_rec_json_at(f, r, row, NULL, 0);
}

void nm_rec_json_at(FILE *f, const struct nm_record *r, const void *row, const char *tool,
		    time_t time)
{
	struct nm_json j;

	nm_json_begin(&j, f, r->type);
	if (tool && !nm_rec_has_key(r, "tool"))
		nm_json_str(&j, "tool", tool);
	if (time && !nm_rec_has_key(r, "time"))
		nm_json_u64(&j, "time", (uint64_t)time);
	for (int i = 0; i < r->nfields; i++)
		if (r->fields[i].json)
			json_field(&j, &r->fields[i], row);
	nm_json_end(&j);
}

/* --------------------------------------------------------------- table */

static void list_cell(char *buf, size_t len, const uint32_t *v, int n)
{
	size_t off = 0;

	buf[0] = 0;
	for (int i = 0; i < n && off < len; i++)
		off += snprintf(buf + off, len - off, "%s%" PRIu32, i ? "," : "", v[i]);
}

static void str_list_cell(char *buf, size_t len, const struct nm_field *f, const void *row)
{
	const char *const *v = at(row, f->off);
	uint32_t n = *(const uint32_t *)at(row, f->aux);
	size_t off = 0;

	buf[0] = 0;
	for (uint32_t i = 0; i < n && off < len; i++)
		off += snprintf(buf + off, len - off, "%s%s", i ? "," : "", v[i]);
}

/* A cell is one line of the table: a control byte (in a netns's name, say) shows as '?'. */
static void printable(char *s)
{
	for (unsigned char *c = (unsigned char *)s; *c; c++)
		if (*c < 0x20 || *c == 0x7f)
			*c = '?';
}

static void cell_raw(char *buf, size_t len, const struct nm_field *f, const void *row)
{
	uint32_t bits[MAX_BITS];
	const uint32_t *v;
	double d;
	int n;

	if (!has_value(f, row)) {
		snprintf(buf, len, "%s", f->absent ? f->absent : "-");
		return;
	}
	switch (f->type) {
	case NM_REC_U64:
	case NM_REC_U32:
		if (f->flags & NM_COL_COUNT)
			nm_fmt_count(get_u64(f, row), buf, len);
		else
			snprintf(buf, len, "%" PRIu64, get_u64(f, row));
		break;
	case NM_REC_I64:
		snprintf(buf, len, "%" PRId64, *(const int64_t *)at(row, f->off));
		break;
	case NM_REC_DOUBLE:
		d = *(const double *)at(row, f->off);
		if (!isfinite(d))
			snprintf(buf, len, "-");
		else if (f->flags & NM_COL_FIXED)
			snprintf(buf, len, "%.*f", f->prec, d);
		else
			snprintf(buf, len, "%g", d);
		break;
	case NM_REC_BOOL:
		if (f->names)
			snprintf(buf, len, "%s", f->names[!!get_u64(f, row)]);
		else
			snprintf(buf, len, "%s", get_u64(f, row) ? "yes" : "no");
		break;
	case NM_REC_STR:
	case NM_REC_STRP:
	case NM_REC_ENUM:
		snprintf(buf, len, "%s", get_str(f, row) ? get_str(f, row) : "-");
		break;
	case NM_REC_BITS:
	case NM_REC_U32_ARRAY:
		/* get_array() sets v: called first, not as an argument beside
		 * it (the order arguments are evaluated in is unspecified;
		 * aarch64 gcc read v before the call) */
		n = get_array(f, row, &v, bits);
		list_cell(buf, len, v, n);
		break;
	case NM_REC_STR_ARRAY:
		str_list_cell(buf, len, f, row);
		break;
	case NM_REC_OBJ:
	case NM_REC_U64_BY_NAME:
	case NM_REC_U64_MAP:
	case NM_REC_LOG2_HIST:
		buf[0] = 0;
		break;
	}
}

static void cell(char *buf, size_t len, const struct nm_field *f, const void *row)
{
	cell_raw(buf, len, f, row);
	printable(buf);
}

/* The field in column pos (from 1), or NULL past the last. */
static const struct nm_field *column(const struct nm_record *r, int pos)
{
	for (int i = 0; i < r->nfields; i++)
		if ((r->fields[i].col || (r->fields[i].flags & NM_COL_JOIN)) &&
		    r->fields[i].colno == pos)
			return &r->fields[i];
	return NULL;
}

/*
 * Column pos's text in row: its cell, then each NM_COL_JOIN cell after it
 * that is not empty, one space before each. Its length.
 */
static int col_text(const struct nm_record *r, int pos, const void *row, char *buf, size_t len)
{
	const struct nm_field *c = column(r, pos);
	char more[256];
	size_t off;

	cell(buf, len, c, row);
	off = strlen(buf);
	while ((c = column(r, ++pos)) && (c->flags & NM_COL_JOIN)) {
		cell(more, sizeof(more), c, row);
		if (*more && off < len)
			off += snprintf(buf + off, len - off, " %s", more);
	}
	return off < len ? (int)off : (int)len - 1;
}

/* A column of its own: not one that continues the column before it. */
static bool own_column(const struct nm_field *c)
{
	return !(c->flags & NM_COL_JOIN);
}

static int iabs(int v)
{
	return v < 0 ? -v : v;
}

void nm_rec_layout_init(struct nm_rec_layout *l, const struct nm_record *r, int columns)
{
	const struct nm_field *c;

	memset(l, 0, sizeof(*l));
	l->columns = columns;
	l->lines = 1;
	for (int pos = 1; pos <= NM_REC_COLS && (c = column(r, pos)); pos++) {
		if (!own_column(c))
			continue;
		l->last = pos;
		l->width[pos] = iabs(c->width);
		if ((int)strlen(c->col) > l->width[pos])
			l->width[pos] = strlen(c->col);
	}
}

void nm_rec_layout_add(struct nm_rec_layout *l, const struct nm_record *r, const void *row)
{
	const struct nm_field *c;
	char buf[NM_REC_TEXT];
	int n;

	for (int pos = 1; pos <= l->last && (c = column(r, pos)); pos++) {
		if (!own_column(c))
			continue;
		n = col_text(r, pos, row, buf, sizeof(buf));
		if (n > l->width[pos])
			l->width[pos] = n;
	}
}

/*
 * A row that would pass the terminal's edge goes on more lines: each line
 * takes the columns that fit, in order, and the next starts indented. So
 * an address or a flow is never cut, and the columns of one line stay
 * aligned from row to row, whatever the width. (A column of its own has a
 * width: its header is never empty. A joined one has none.)
 */
void nm_rec_layout_fit(struct nm_rec_layout *l)
{
	int x = 0;

	memset(l->brk, 0, sizeof(l->brk));
	l->lines = 1;
	for (int pos = 1; pos <= l->last; pos++) {
		if (!l->width[pos])
			continue;
		if (!x) {
			x = l->width[pos];
		} else if (l->columns > 0 && x + 1 + l->width[pos] > l->columns) {
			l->brk[pos] = true;
			l->lines++;
			x = NM_REC_INDENT + l->width[pos];
		} else {
			x += 1 + l->width[pos];
		}
	}
}

/* The column ends a line of the row: the last, or the next starts a line. */
static bool line_end(const struct nm_rec_layout *l, int pos)
{
	while (++pos <= l->last)
		if (l->width[pos])
			return l->brk[pos];
	return true;
}

/*
 * A cell after a space, or at the start of a line of its own, indented;
 * padded to its column's width, on the left when right-aligned (a number),
 * and not at all when left-aligned at the end of a line, so that no line
 * ends in spaces. The last column alone on its line, empty, takes no line.
 */
static void put_cell(FILE *f, const struct nm_rec_layout *l, const struct nm_field *c, int pos,
		     const char *text)
{
	int width = l->width[pos];

	if (pos == l->last && l->brk[pos] && !*text)
		return;
	if (l->brk[pos])
		fprintf(f, "\n%*s", NM_REC_INDENT, "");
	else if (pos > 1)
		putc(' ', f);
	if (c->width <= 0 && line_end(l, pos))
		width = 0;
	fprintf(f, "%*s", c->width > 0 ? width : -width, text);
}

void nm_rec_layout_header(FILE *f, const struct nm_record *r, const struct nm_rec_layout *l)
{
	const struct nm_field *c;

	for (int pos = 1; pos <= l->last && (c = column(r, pos)); pos++)
		if (own_column(c))
			put_cell(f, l, c, pos, c->col);
	putc('\n', f);
}

void nm_rec_layout_row(FILE *f, const struct nm_record *r, const struct nm_rec_layout *l,
		       const void *row)
{
	const struct nm_field *c;
	char buf[NM_REC_TEXT];

	for (int pos = 1; pos <= l->last && (c = column(r, pos)); pos++) {
		if (!own_column(c))
			continue;
		col_text(r, pos, row, buf, sizeof(buf));
		put_cell(f, l, c, pos, buf);
	}
	putc('\n', f);
}

void nm_rec_table(FILE *f, const struct nm_record *r, const void *rows, size_t stride, size_t n,
		  int columns, struct nm_rec_layout *l)
{
	struct nm_rec_layout own;

	if (!l)
		l = &own;
	nm_rec_layout_init(l, r, columns);
	for (size_t i = 0; i < n; i++)
		nm_rec_layout_add(l, r, (const char *)rows + i * stride);
	nm_rec_layout_fit(l);
	nm_rec_layout_header(f, r, l);
	for (size_t i = 0; i < n; i++)
		nm_rec_layout_row(f, r, l, (const char *)rows + i * stride);
}

void nm_rec_table_header(FILE *f, const struct nm_record *r)
{
	struct nm_rec_layout l;

	nm_rec_layout_init(&l, r, 0);
	nm_rec_layout_header(f, r, &l);
}

void nm_rec_table_row(FILE *f, const struct nm_record *r, const void *row)
{
	struct nm_rec_layout l;

	nm_rec_layout_init(&l, r, 0);
	nm_rec_layout_row(f, r, &l, row);
}

/* ---------------------------------------------------------- Prometheus */

const char *nm_rec_prom_type(const struct nm_field *f)
{
	switch (f->kind) {
	case NM_PROM_GAUGE:
		return "gauge";
	case NM_PROM_COUNTER:
		return "counter";
	case NM_PROM_HISTOGRAM:
		return "histogram";
	default:
		return NULL;
	}
}

bool nm_rec_keeps_label(const struct nm_field *m, const struct nm_field *l)
{
	size_t len = strlen(l->prom);

	if (!m->by)
		return true;
	for (const char *s = m->by; *s; s += strcspn(s, ",") + (s[strcspn(s, ",")] == ',')) {
		if (strcspn(s, ",") == len && !strncmp(s, l->prom, len))
			return true;
	}
	return false;
}

/* Per-name metrics: one sample (or histogram) per name, in the label .label. */
static bool per_name(const struct nm_field *m)
{
	return m->type == NM_REC_ENUM || m->type == NM_REC_U64_BY_NAME ||
	       m->type == NM_REC_U64_MAP || m->type == NM_REC_LOG2_HIST;
}

/*
 * The kept labels of row as key, value, ..., NULL, in the fields' order
 * (vals holds numeric ones): for telling rows' label sets apart, and the
 * start of each sample's. Returns their count.
 */
static int labels(const struct nm_record *r, const struct nm_field *m, const void *row,
		  const char **l, char (*vals)[24])
{
	int n = 0;

	for (int i = 0; i < r->nfields && n < MAX_LABELS; i++) {
		const struct nm_field *f = &r->fields[i];

		if (f->kind != NM_PROM_LABEL || !nm_rec_keeps_label(m, f) || !has_value(f, row))
			continue;
		l[2 * n] = f->prom;
		if (f->type == NM_REC_STR || f->type == NM_REC_STRP || f->type == NM_REC_ENUM) {
			l[2 * n + 1] = get_str(f, row) ? get_str(f, row) : "";
		} else if (f->type == NM_REC_I64) {
			snprintf(vals[n], sizeof(vals[n]), "%" PRId64, *(const int64_t *)at(row, f->off));
			l[2 * n + 1] = vals[n];
		} else {
			snprintf(vals[n], sizeof(vals[n]), "%" PRIu64, get_u64(f, row));
			l[2 * n + 1] = vals[n];
		}
		n++;
	}
	l[2 * n] = NULL;
	return n;
}

/* Label sets may differ in their keys too: a label may be missing (NM_F_VALID). */
static bool same_labels(const char *const *a, const char *const *b)
{
	for (; *a && *b; a += 2, b += 2)
		if (strcmp(a[0], b[0]) || strcmp(a[1], b[1]))
			return false;
	return !*a && !*b;
}

/* How many samples a row gives per label set: one, or one per name. */
static int nvalues(const struct nm_field *m)
{
	return per_name(m) ? m->nnames : 1;
}

/* Value k of a metric: a count per name, a state set's 1 or 0, else the field. */
static uint64_t int_at(const struct nm_field *f, const void *row, int k)
{
	if (f->type == NM_REC_U64_BY_NAME || f->type == NM_REC_U64_MAP)
		return ((const uint64_t *)at(row, f->off))[k];
	if (f->type == NM_REC_ENUM)
		return get_u64(f, row) == (uint64_t)k;
	return get_u64(f, row);
}

static double value_at(const struct nm_field *f, const void *row, int k)
{
	if (f->type == NM_REC_DOUBLE)
		return *(const double *)at(row, f->off);
	if (f->type == NM_REC_I64)
		return *(const int64_t *)at(row, f->off);
	return int_at(f, row, k);
}

/* The kept labels, then the one a per-name metric expands into. */
static void labels_at(const struct nm_record *r, const struct nm_field *m, const void *row,
		      int k, const char **l, char (*vals)[24])
{
	int n = labels(r, m, row, l, vals);

	if (per_name(m)) {
		l[2 * n] = m->label;
		l[2 * n + 1] = m->names[k];
		l[2 * n + 2] = NULL;
	}
}

/* Name k's histogram of the rows from first that share its labels, summed. */
static void prom_hist(struct nm_prom *p, const struct nm_record *r, const struct nm_field *m,
		      const char *rows, size_t stride, size_t first, size_t n, int k)
{
	const char *l[2 * MAX_LABELS + 1], *o[2 * MAX_LABELS + 1], *sl[2 * MAX_LABELS + 3];
	char lv[MAX_LABELS][24], ov[MAX_LABELS][24], sv[MAX_LABELS][24];
	uint64_t slots[NM_HIST_SLOTS] = { 0 }, total = 0;
	double sum = 0;

	labels(r, m, rows + first * stride, l, lv);
	for (size_t i = first; i < n; i++) {
		const void *row = rows + i * stride;
		const uint64_t *h = (const uint64_t *)at(row, m->off) + (size_t)k * NM_HIST_SLOTS;

		if (!has_value(m, row))
			continue;
		labels(r, m, row, o, ov);
		if (!same_labels(l, o))
			continue;
		for (int s = 0; s < NM_HIST_SLOTS; s++) {
			slots[s] += h[s];
			total += h[s];
		}
		sum += ((const double *)at(row, m->aux))[k];
	}
	if (!total)
		return;
	labels_at(r, m, rows + first * stride, k, sl, sv);
	nm_prom_log2_hist(p, m->prom, sl, slots, NM_HIST_SLOTS, m->scale, sum);
}

/* Whether any row with a value has a count in any slot of histogram field m. */
static bool hist_any(const struct nm_field *m, const char *rows, size_t stride, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		const void *row = rows + i * stride;
		const uint64_t *h = (const uint64_t *)at(row, m->off);

		if (!has_value(m, row))
			continue;
		for (size_t s = 0; s < (size_t)nvalues(m) * NM_HIST_SLOTS; s++)
			if (h[s])
				return true;
	}
	return false;
}

/*
 * One sample per distinct label set (and name), at its first row with a
 * value: the value sums the rows that share it. Integers are summed as
 * integers, rounded to a double once.
 */
static void prom_metric(struct nm_prom *p, const struct nm_record *r, const struct nm_field *m,
			const char *rows, size_t stride, size_t n)
{
	const char *l[2 * MAX_LABELS + 1], *o[2 * MAX_LABELS + 1], *sl[2 * MAX_LABELS + 3];
	char lv[MAX_LABELS][24], ov[MAX_LABELS][24], sv[MAX_LABELS][24];
	bool exact = m->type != NM_REC_DOUBLE && m->type != NM_REC_I64;

	/* a histogram with no count has no series, and then no family either */
	if (m->type == NM_REC_LOG2_HIST && !hist_any(m, rows, stride, n))
		return;
	nm_prom_family(p, m->prom, nm_rec_prom_type(m), m->help);
	for (size_t i = 0; i < n; i++) {
		const void *row = rows + i * stride;
		bool first = true;

		if (!has_value(m, row))
			continue;
		labels(r, m, row, l, lv);
		for (size_t k = 0; k < i && first; k++) {
			if (!has_value(m, rows + k * stride))
				continue;
			labels(r, m, rows + k * stride, o, ov);
			first = !same_labels(l, o);
		}
		if (!first)
			continue;
		for (int v = 0; v < nvalues(m) && m->type == NM_REC_LOG2_HIST; v++)
			prom_hist(p, r, m, rows, stride, i, n, v);
		for (int v = 0; v < nvalues(m) && m->type != NM_REC_LOG2_HIST; v++) {
			uint64_t sum = int_at(m, row, v);
			double dsum = value_at(m, row, v);

			for (size_t k = i + 1; k < n; k++) {
				const void *other = rows + k * stride;

				if (!has_value(m, other))
					continue;
				labels(r, m, other, o, ov);
				if (!same_labels(l, o))
					continue;
				sum += int_at(m, other, v);
				dsum += value_at(m, other, v);
			}
			labels_at(r, m, row, v, sl, sv);
			nm_prom_sample(p, m->prom, sl, exact ? (double)sum : dsum);
		}
	}
}

void nm_rec_prom(struct nm_prom *p, const struct nm_record *r, const void *rows, size_t stride,
		 size_t n)
{
	for (int i = 0; i < r->nfields; i++)
		if (nm_rec_prom_type(&r->fields[i]))
			prom_metric(p, r, &r->fields[i], rows, stride, n);
}

/* ---------------------------------------------------------------- docs */

const char *nm_rec_json_type(const struct nm_field *f)
{
	switch (f->type) {
	case NM_REC_DOUBLE:
		return "number";
	case NM_REC_BOOL:
		return "boolean";
	case NM_REC_STR:
	case NM_REC_STRP:
	case NM_REC_ENUM:
		return "string";
	case NM_REC_BITS:
	case NM_REC_U32_ARRAY:
		return "array of integers";
	case NM_REC_STR_ARRAY:
		return "array of strings";
	case NM_REC_OBJ:
	case NM_REC_U64_MAP:
		return "object";
	default:
		return "integer";
	}
}
