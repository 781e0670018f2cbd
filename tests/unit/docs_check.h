/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Unit tests: that a tool's reference, docs/reference/NAME.md, documents
 * exactly the JSON keys, table columns and metrics that its field tables
 * define (lib/record.h), and that its JSON examples have their record's
 * keys in the table's order; and that its man page, docs/NAME.md, the
 * short form, names each record and column in its OUTPUT. Include after
 * cmocka.h.
 *
 * The doc's shape: under "### JSON", a line "`record`: ..." opens each
 * record, followed by "- `key`, `key2` (type): ..." bullets; under
 * "### The table", "- `COLUMN`: ..." bullets; under "## METRICS",
 * "- `prefix_name{label,label}` (type, ...): ..." bullets. netmedic_
 * self-metrics come from lib/selfstats.c, not from the tables.
 */
#ifndef NETMEDIC_TEST_DOCS_CHECK_H
#define NETMEDIC_TEST_DOCS_CHECK_H

#include <ctype.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>
#include "lib/record.h"

#define DOC_MAX_ITEMS	256

struct doc_spec {
	const char *path;		/* docs/reference/NAME.md */
	const char *man;		/* docs/NAME.md, the man page */
	const struct nm_record *const *records;
	int nrecords;
	const char *table_rec;		/* the record(s) the table shows: its columns' */
	const char *metric_prefix;	/* "xpsflap_" */
};

struct doc_item {
	char rec[32], name[64], type[64];
};

struct doc_items {
	struct doc_item v[DOC_MAX_ITEMS];
	int n;
};

static void doc_add(struct doc_items *s, const char *rec, const char *name, const char *type)
{
	assert_true(s->n < DOC_MAX_ITEMS);
	snprintf(s->v[s->n].rec, sizeof(s->v[0].rec), "%s", rec);
	snprintf(s->v[s->n].name, sizeof(s->v[0].name), "%s", name);
	snprintf(s->v[s->n].type, sizeof(s->v[0].type), "%s", type);
	s->n++;
}

static const struct doc_item *doc_find(const struct doc_items *s, const struct doc_item *it)
{
	for (int i = 0; i < s->n; i++)
		if (!strcmp(s->v[i].rec, it->rec) && !strcmp(s->v[i].name, it->name))
			return &s->v[i];
	return NULL;
}

/* "- `a`, `b` (type, ...): ..." -> each name with type; false if line is no such bullet */
static bool doc_bullet(const char *line, const char *rec, struct doc_items *out, bool metric)
{
	const char *p = line + 2, *paren = strstr(line, " (");
	char type[64], name[64];

	if (strncmp(line, "- `", 3) || !paren)
		return false;
	snprintf(type, sizeof(type), "%.*s", (int)strcspn(paren + 2, metric ? ",)" : ")"),
		 paren + 2);
	while (p < paren && (p = strchr(p, '`')) && p < paren) {
		size_t n = strcspn(p + 1, "`");

		snprintf(name, sizeof(name), "%.*s", (int)n, p + 1);
		doc_add(out, rec, name, type);
		p += n + 2;
	}
	return true;
}

/* "x_total{device,queue}" -> name, and labels "device,queue" into the type */
static void doc_split_metric(struct doc_item *it)
{
	char *brace = strchr(it->name, '{'), labels[64] = "";

	if (brace) {
		snprintf(labels, sizeof(labels), "%.*s", (int)strcspn(brace + 1, "}"), brace + 1);
		*brace = 0;
	}
	snprintf(it->type + strlen(it->type), sizeof(it->type) - strlen(it->type), " {%s}", labels);
}

static void doc_read(const struct doc_spec *d, struct doc_items *json, struct doc_items *cols,
		     struct doc_items *metrics)
{
	char line[1024], rec[32] = "", mark[40];
	enum { OTHER, TABLE, JSON, METRICS } sec = OTHER;
	FILE *f = fopen(d->path, "r");

	if (!f)
		fail_msg("cannot open %s", d->path);
	snprintf(mark, sizeof(mark), "- `%s", d->metric_prefix);
	while (fgets(line, sizeof(line), f)) {
		line[strcspn(line, "\n")] = 0;
		if (!strncmp(line, "## ", 3) || !strncmp(line, "### ", 4))
			sec = !strcmp(line, "### The table") ? TABLE : !strcmp(line, "### JSON") ? JSON :
			      !strcmp(line, "## METRICS") ? METRICS : OTHER;
		if (sec == JSON && line[0] == '`' && strstr(line, "`: "))
			snprintf(rec, sizeof(rec), "%.*s", (int)strcspn(line + 1, "`"), line + 1);
		else if (sec == JSON && rec[0])
			doc_bullet(line, rec, json, false);
		else if (sec == TABLE && !strncmp(line, "- `", 3) && isupper((unsigned char)line[3]))
			doc_add(cols, d->table_rec, strtok(line + 3, "` "), "");
		else if (sec == METRICS && !strncmp(line, mark, strlen(mark)))
			doc_bullet(line, "", metrics, true);
	}
	fclose(f);
	for (int i = 0; i < metrics->n; i++)
		doc_split_metric(&metrics->v[i]);
}

/* " {device,queue,state}": the labels a metric keeps, in order, then the one it expands into */
static void doc_labels_of(const struct nm_record *r, const struct nm_field *m, char *buf,
			  size_t len)
{
	size_t off = snprintf(buf, len, " {");

	for (int i = 0; i < r->nfields; i++) {
		const struct nm_field *l = &r->fields[i];

		/* a label that may be missing (NM_F_VALID) is the docs' prose, not the braces' */
		if (l->kind != NM_PROM_LABEL || !nm_rec_keeps_label(m, l) || (l->flags & NM_F_VALID))
			continue;
		off += snprintf(buf + off, len - off, "%s%s", buf[off - 1] == '{' ? "" : ",", l->prom);
	}
	if (m->label)
		off += snprintf(buf + off, len - off, "%s%s", buf[off - 1] == '{' ? "" : ",",
				m->label);
	snprintf(buf + off, len - off, "}");
}

/* A field's JSON keys: its own, or one per name (NM_REC_U64_BY_NAME). */
static int doc_json_keys_of(const struct nm_field *f, char (*keys)[64], int max)
{
	int n = 0;

	if (f->type != NM_REC_U64_BY_NAME) {
		snprintf(keys[0], sizeof(keys[0]), "%s", f->json);
		return 1;
	}
	for (int i = 0; i < f->nnames && n < max; i++)
		snprintf(keys[n++], sizeof(keys[0]), "%s%s", f->json, f->names[i]);
	return n;
}

static void doc_read_tables(const struct doc_spec *d, struct doc_items *json,
			    struct doc_items *cols, struct doc_items *metrics)
{
	char type[64], keys[16][64];

	for (int k = 0; k < d->nrecords; k++) {
		const struct nm_record *r = d->records[k];

		for (int i = 0; i < r->nfields; i++) {
			const struct nm_field *f = &r->fields[i];

			for (int j = 0, n = f->json ? doc_json_keys_of(f, keys, 16) : 0; j < n; j++)
				doc_add(json, r->type, keys[j], nm_rec_json_type(f));
			if (f->col) {
				snprintf(type, sizeof(type), "%.*s", (int)strcspn(f->col, " "), f->col);
				doc_add(cols, d->table_rec, type, "");
			}
			if (nm_rec_prom_type(f)) {
				size_t n = snprintf(type, sizeof(type), "%s", nm_rec_prom_type(f));

				doc_labels_of(r, f, type + n, sizeof(type) - n);
				doc_add(metrics, "", f->prom, type);
			}
		}
	}
}

/* Every item of a in b, with the same type; prints what differs. */
static int doc_compare(const struct doc_items *a, const char *in_a, const struct doc_items *b,
		       const char *in_b)
{
	int bad = 0;

	for (int i = 0; i < a->n; i++) {
		const struct doc_item *it = &a->v[i], *o = doc_find(b, it);

		if (!o) {
			print_error("%s %s `%s` (%s): not in %s\n", in_a, it->rec, it->name, it->type,
				    in_b);
			bad++;
		} else if (strcmp(it->type, o->type)) {
			print_error("%s `%s`: %s says %s, %s says %s\n", it->rec, it->name, in_a,
				    it->type, in_b, o->type);
			bad++;
		}
	}
	return bad;
}

/*
 * Both ways: the doc lists every key, column and metric of the tables,
 * and no other; min_* guard against a parse that found nothing.
 */
static void doc_check_exactly_the_tables(const struct doc_spec *d, int min_json, int ncols,
					 int min_metrics)
{
	static struct doc_items dj, dc, dm, tj, tc, tm;
	int bad = 0;

	memset(&dj, 0, sizeof(dj)), memset(&dc, 0, sizeof(dc)), memset(&dm, 0, sizeof(dm));
	memset(&tj, 0, sizeof(tj)), memset(&tc, 0, sizeof(tc)), memset(&tm, 0, sizeof(tm));
	doc_read(d, &dj, &dc, &dm);
	doc_read_tables(d, &tj, &tc, &tm);
	/* the parse found the sections: a renamed heading must not pass as agreement */
	assert_true(dj.n >= min_json);
	assert_int_equal(dc.n, ncols);
	assert_true(dm.n >= min_metrics);
	bad += doc_compare(&tj, "the tables", &dj, d->path);
	bad += doc_compare(&dj, d->path, &tj, "the tables");
	bad += doc_compare(&tc, "the tables", &dc, d->path);
	bad += doc_compare(&dc, d->path, &tc, "the tables");
	bad += doc_compare(&tm, "the tables", &dm, d->path);
	bad += doc_compare(&dm, d->path, &tm, "the tables");
	assert_int_equal(bad, 0);
}

/* The top-level keys of a JSON line, in order, as "k1,k2,..." (after "type"). */
static void doc_json_line_keys(const char *line, char *out, size_t len)
{
	int depth = 0, off = 0;

	out[0] = 0;
	for (const char *p = line; *p; p++) {
		if (*p == '"') {
			const char *end = p + 1;

			while (*end && *end != '"')
				end += *end == '\\' ? 2 : 1;
			if (depth == 1 && end[0] == '"' && end[1] == ':' && strncmp(p, "\"type\"", 6))
				off += snprintf(out + off, len - off, "%s%.*s", off ? "," : "",
						(int)(end - p - 1), p + 1);
			p = end;
		} else if (*p == '{' || *p == '[') {
			depth++;
		} else if (*p == '}' || *p == ']') {
			depth--;
		}
	}
}

/*
 * The keys r writes, in order, as "k1,k2,...": its stamp (tool, time, each
 * unless a field has that key), then its fields'; those of NM_F_OMIT
 * fields are left out where the example has not got them.
 */
static void doc_want_keys(const struct nm_record *r, const char *got, char *want, size_t len)
{
	char keys[16][64], pat[72];
	int off = 0;

	want[0] = 0;
	/* the stamp every record carries, as nm_rec_json_at writes it */
	for (int i = 0; i < 2; i++)
		if (!nm_rec_has_key(r, i ? "time" : "tool"))
			off += snprintf(want + off, len - off, "%s%s", off ? "," : "", i ? "time" : "tool");
	for (int i = 0; i < r->nfields; i++) {
		const struct nm_field *f = &r->fields[i];

		if (!f->json)
			continue;
		for (int j = 0, n = doc_json_keys_of(f, keys, 16); j < n; j++) {
			snprintf(pat, sizeof(pat), ",%s,", keys[j]);
			/* an omitted key may be absent from an example; any other key must be there */
			if ((f->flags & NM_F_OMIT) && !strstr(got, pat))
				continue;
			off += snprintf(want + off, len - off, "%s%s", off ? "," : "", keys[j]);
		}
	}
}

/* Every JSON line the doc shows has the keys of its record, in the table's order. */
static void doc_check_examples(const struct doc_spec *d, int min_examples)
{
	char line[4096], got[1024], padded[1030], want[1024], type[32];
	FILE *f = fopen(d->path, "r");
	int n = 0, bad = 0;

	if (!f)
		fail_msg("cannot open %s", d->path);
	while (fgets(line, sizeof(line), f)) {
		const struct nm_record *r = NULL;

		if (strncmp(line, "{\"type\":\"", 9))
			continue;
		snprintf(type, sizeof(type), "%.*s", (int)strcspn(line + 9, "\""), line + 9);
		for (int k = 0; k < d->nrecords; k++)
			if (!strcmp(d->records[k]->type, type))
				r = d->records[k];
		if (!r) {
			print_error("%s: an example of record \"%s\", which no table defines\n", d->path,
				    type);
			bad++;
			continue;
		}
		doc_json_line_keys(line, got, sizeof(got));
		snprintf(padded, sizeof(padded), ",%s,", got);
		doc_want_keys(r, padded, want, sizeof(want));
		if (strcmp(got, want)) {
			print_error("%s: %s example has keys %s\n  the table: %s\n", d->path, type, got,
				    want);
			bad++;
		}
		n++;
	}
	fclose(f);
	assert_true(n >= min_examples);
	assert_int_equal(bad, 0);
}

/*
 * The man page's OUTPUT names every JSON record type and every table
 * column of the tables, each as a code span ("`acks`", "`FLOW / CAUSES`"):
 * a record or column added to the tables must be named in the short form
 * too (the reference says what each holds). A record of metrics only (no
 * JSON key: xpsflap's dev_queue) is no JSON line, and not named.
 */
static void doc_check_man_names(const struct doc_spec *d, int min_names)
{
	char line[1024], out[16384] = "", want[80], head[80];
	FILE *f = fopen(d->man, "r");
	bool on = false;
	int n = 0, bad = 0;

	if (!f)
		fail_msg("cannot open %s", d->man);
	while (fgets(line, sizeof(line), f)) {
		if (!strncmp(line, "## ", 3))
			on = !strcmp(line, "## OUTPUT\n");
		else if (on)
			snprintf(out + strlen(out), sizeof(out) - strlen(out), "%s", line);
	}
	fclose(f);
	/* lines end at any word: one space between words, as the page reads */
	for (char *c = out; *c; c++)
		*c = *c == '\n' ? ' ' : *c;
	for (int k = 0; k < d->nrecords; k++) {
		const struct nm_record *r = d->records[k];
		bool json = false;

		for (int i = 0; i < r->nfields; i++)
			json |= r->fields[i].json != NULL;
		snprintf(want, sizeof(want), "`%s`", r->type);
		if (json && !strstr(out, want)) {
			print_error("%s: OUTPUT does not name record `%s`\n", d->man, r->type);
			bad++;
		}
		n++;
		for (int i = 0; i < r->nfields; i++) {
			const char *col = r->fields[i].col;

			if (!col)
				continue;
			/* the header whole; several words are one span */
			snprintf(want, sizeof(want), "`%s`", col);
			snprintf(head, sizeof(head), "`%.*s`", (int)strcspn(col, " "), col);
			if (!strstr(out, want) && !strstr(out, head)) {
				print_error("%s: OUTPUT does not name column `%s`\n", d->man, col);
				bad++;
			}
			n++;
		}
	}
	assert_true(n >= min_names);
	assert_int_equal(bad, 0);
}

#endif
