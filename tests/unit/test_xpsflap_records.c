// SPDX-License-Identifier: GPL-2.0
/*
 * Unit tests for src/lib/xpsflap_records.c: a judged entry's row and its
 * output, and that docs/xpsflap.md documents exactly the JSON keys, table
 * columns and xpsflap_ metrics that the field tables define (netmedic_
 * self-metrics come from lib/selfstats.c, not from these tables).
 */
#include <ctype.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "lib/xpsflap_records.h"
#include "capture.h"

#ifndef NM_SRCDIR
#define NM_SRCDIR "."
#endif
#define DOC NM_SRCDIR "/docs/xpsflap.md"
#define MAX_DOC	256

static struct xf_entry entry(void)
{
	struct xf_entry e = {
		.key = { .netns = 4026532246, .ifindex = 3, .family = 2, .proto = 6, .sport = 42592,
			 .dport = 5201, .saddr = { 198, 18, 0, 1 }, .daddr = { 198, 18, 0, 2 } },
		.val = { .queues = 0x3, .cpus = 0x3, .last_queue = 1, .switches = 475,
			 .risky_switches = 132, .packets = 1952724, .bytes = 2817794605,
			 .reordered = 2559, .epoch = 9, .epoch_switches = 475 },
	};

	e.val.inflight[0] = 5;
	e.val.inflight[7] = 6;
	xf_judge(&e, 9, 2);
	return e;
}

static char *capture(void (*emit)(FILE *f, const void *arg), const void *arg)
{
	struct capture c;

	cap_open(&c);
	emit(c.f, arg);
	return cap_close(&c);
}

static void emit_json(FILE *f, const void *row)
{
	nm_rec_json(f, &xf_flow_rec, row);
}

static void emit_table(FILE *f, const void *row)
{
	nm_rec_table_header(f, &xf_flow_rec);
	nm_rec_table_row(f, &xf_flow_rec, row);
}

/* a lab run's bulk flow, as the loader wrote it before the tables */
static void test_flow_json_and_table(void **state)
{
	struct xf_entry e = entry();
	struct xf_flow_row r;
	char *got;

	(void)state;
	assert_true(e.flapping);
	assert_int_equal(e.interval_switches, 475);
	assert_int_equal(e.in_flight, 11);
	xf_flow_row(&r, &e, "xqm");
	got = capture(emit_json, &r);
	assert_string_equal(got,
		"{\"type\":\"flow\",\"dev\":\"xqm\",\"netns\":4026532246,\"saddr\":\"198.18.0.1\","
		"\"daddr\":\"198.18.0.2\",\"sport\":42592,\"dport\":5201,\"proto\":\"tcp\","
		"\"has_sk\":false,\"packets\":1952724,\"bytes\":2817794605,\"queues\":[0,1],"
		"\"last_queue\":1,\"switches\":475,\"risky_switches\":132,\"in_flight_bytes\":11,"
		"\"reordered\":2559,\"cpus\":[0,1],\"interval_switches\":475,\"flapping\":true}\n");
	free(got);
	got = capture(emit_table, &r);
	assert_string_equal(got,
		"DEV      QUEUE SWITCH  RISKY  REORD   PKTS CPUS FLOW (worst first)\n"
		"xqm      0,1      475    132   2559   2.0M 0,1  198.18.0.1:42592>198.18.0.2:5201\n");
	free(got);
}

static void test_flow_strings(void **state)
{
	struct xf_entry e = entry();
	struct xf_flow_row r;

	(void)state;
	e.key.proto = 17;
	xf_flow_row(&r, &e, "averylongdevicename");
	assert_string_equal(r.flow, "udp 198.18.0.1:42592>198.18.0.2:5201");
	e.key.family = 10;
	memset(e.key.saddr, 0, 16);
	memset(e.key.daddr, 0, 16);
	e.key.daddr[15] = 1;
	xf_flow_row(&r, &e, "x");
	assert_string_equal(r.flow, "udp [::]:42592>[::1]:5201");
	e.key.proto = 58;
	xf_flow_row(&r, &e, "x");
	assert_string_equal(r.flow, "icmp6 ::>::1");
	e.key.proto = 47;
	xf_flow_row(&r, &e, "x");
	assert_string_equal(r.proto, "47");
	/* the verdicts are the entry's: not judged again */
	e.flapping = false;
	xf_flow_row(&r, &e, "x");
	assert_false(r.flapping);
}

/* ---- the docs ---- */

struct item {
	char rec[32], name[64], type[64];
};

struct items {
	struct item v[MAX_DOC];
	int n;
};

static void add(struct items *s, const char *rec, const char *name, const char *type)
{
	assert_true(s->n < MAX_DOC);
	snprintf(s->v[s->n].rec, sizeof(s->v[0].rec), "%s", rec);
	snprintf(s->v[s->n].name, sizeof(s->v[0].name), "%s", name);
	snprintf(s->v[s->n].type, sizeof(s->v[0].type), "%s", type);
	s->n++;
}

static const struct item *find(const struct items *s, const struct item *it)
{
	for (int i = 0; i < s->n; i++)
		if (!strcmp(s->v[i].rec, it->rec) && !strcmp(s->v[i].name, it->name))
			return &s->v[i];
	return NULL;
}

/* "- `a`, `b` (type, ...): ..." -> each name with type; false if line is no such bullet */
static bool bullet(const char *line, const char *rec, struct items *out, bool metric)
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
		add(out, rec, name, type);
		p += n + 2;
	}
	return true;
}

/* "xpsflap_x_total{device,queue}" -> name, and labels "device,queue" into the type */
static void split_metric(struct item *it)
{
	char *brace = strchr(it->name, '{'), labels[64] = "";

	if (brace) {
		snprintf(labels, sizeof(labels), "%.*s", (int)strcspn(brace + 1, "}"), brace + 1);
		*brace = 0;
	}
	snprintf(it->type + strlen(it->type), sizeof(it->type) - strlen(it->type), " {%s}", labels);
}

static void read_doc(struct items *json, struct items *cols, struct items *metrics)
{
	char line[1024], rec[32] = "";
	enum { OTHER, TABLE, JSON, METRICS } sec = OTHER;
	FILE *f = fopen(DOC, "r");

	if (!f)
		fail_msg("cannot open %s", DOC);
	while (fgets(line, sizeof(line), f)) {
		line[strcspn(line, "\n")] = 0;
		if (!strncmp(line, "## ", 3) || !strncmp(line, "### ", 4))
			sec = !strcmp(line, "### The table") ? TABLE : !strcmp(line, "### JSON") ? JSON :
			      !strcmp(line, "## METRICS") ? METRICS : OTHER;
		if (sec == JSON && line[0] == '`' && strstr(line, "`: "))
			snprintf(rec, sizeof(rec), "%.*s", (int)strcspn(line + 1, "`"), line + 1);
		else if (sec == JSON && rec[0])
			bullet(line, rec, json, false);
		else if (sec == TABLE && !strncmp(line, "- `", 3) && isupper((unsigned char)line[3]))
			add(cols, "flow", strtok(line + 3, "`"), "");
		else if (sec == METRICS && !strncmp(line, "- `xpsflap_", 11))
			bullet(line, "", metrics, true);
	}
	fclose(f);
	for (int i = 0; i < metrics->n; i++)
		split_metric(&metrics->v[i]);
}

static void labels_of(const struct nm_record *r, const struct nm_field *m, char *buf, size_t len)
{
	size_t off = snprintf(buf, len, " {");

	for (int i = 0; i < r->nfields; i++)
		if (r->fields[i].kind == NM_PROM_LABEL && nm_rec_keeps_label(m, &r->fields[i]))
			off += snprintf(buf + off, len - off, "%s%s", buf[off - 1] == '{' ? "" : ",",
					r->fields[i].prom);
	snprintf(buf + off, len - off, "}");
}

static void read_tables(struct items *json, struct items *cols, struct items *metrics)
{
	char type[64];

	for (int k = 0; k < xf_nrecords; k++) {
		const struct nm_record *r = xf_records[k];

		for (int i = 0; i < r->nfields; i++) {
			const struct nm_field *f = &r->fields[i];

			if (f->json)
				add(json, r->type, f->json, nm_rec_json_type(f));
			if (f->col) {
				snprintf(type, sizeof(type), "%.*s", (int)strcspn(f->col, " "), f->col);
				add(cols, r->type, type, "");
			}
			if (nm_rec_prom_type(f)) {
				size_t n = snprintf(type, sizeof(type), "%s", nm_rec_prom_type(f));

				labels_of(r, f, type + n, sizeof(type) - n);
				add(metrics, "", f->prom, type);
			}
		}
	}
}

/* Every item of a in b, with the same type; prints what differs. */
static int compare(const struct items *a, const char *in_a, const struct items *b,
		   const char *in_b)
{
	int bad = 0;

	for (int i = 0; i < a->n; i++) {
		const struct item *it = &a->v[i], *o = find(b, it);

		if (!o) {
			print_error("%s %s `%s` (%s): not in %s\n", in_a, it->rec, it->name, it->type, in_b);
			bad++;
		} else if (strcmp(it->type, o->type)) {
			print_error("%s `%s`: %s says %s, %s says %s\n", it->rec, it->name, in_a, it->type,
				    in_b, o->type);
			bad++;
		}
	}
	return bad;
}

/* The top-level keys of a JSON line, in order, as "k1,k2,..." (after "type"). */
static void json_keys(const char *line, char *out, size_t len)
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

/* Every JSON line the doc shows has the keys of its record, in the table's order. */
static void test_doc_examples_have_the_tables_keys(void **state)
{
	char line[4096], got[1024], want[1024], type[32];
	FILE *f = fopen(DOC, "r");
	int n = 0, bad = 0;

	(void)state;
	if (!f)
		fail_msg("cannot open %s", DOC);
	while (fgets(line, sizeof(line), f)) {
		const struct nm_record *r = NULL;
		int off = 0;

		if (strncmp(line, "{\"type\":\"", 9))
			continue;
		snprintf(type, sizeof(type), "%.*s", (int)strcspn(line + 9, "\""), line + 9);
		for (int k = 0; k < xf_nrecords; k++)
			if (!strcmp(xf_records[k]->type, type))
				r = xf_records[k];
		if (!r) {
			print_error("%s: an example of record \"%s\", which no table defines\n", DOC, type);
			bad++;
			continue;
		}
		want[0] = 0;
		for (int i = 0; i < r->nfields; i++)
			if (r->fields[i].json)
				off += snprintf(want + off, sizeof(want) - off, "%s%s", off ? "," : "",
						r->fields[i].json);
		json_keys(line, got, sizeof(got));
		if (strcmp(got, want)) {
			print_error("%s: %s example has keys %s\n  the table: %s\n", DOC, type, got, want);
			bad++;
		}
		n++;
	}
	fclose(f);
	assert_true(n >= 3);
	assert_int_equal(bad, 0);
}

static void test_doc_documents_exactly_the_tables(void **state)
{
	static struct items dj, dc, dm, tj, tc, tm;
	int bad = 0;

	(void)state;
	read_doc(&dj, &dc, &dm);
	read_tables(&tj, &tc, &tm);
	/* the parse found the sections: a renamed heading must not pass as agreement */
	assert_true(dj.n >= 30);
	assert_int_equal(dc.n, 8);
	assert_true(dm.n >= 7);
	bad += compare(&tj, "the tables", &dj, DOC);
	bad += compare(&dj, DOC, &tj, "the tables");
	bad += compare(&tc, "the tables", &dc, DOC);
	bad += compare(&dc, DOC, &tc, "the tables");
	bad += compare(&tm, "the tables", &dm, DOC);
	bad += compare(&dm, DOC, &tm, "the tables");
	assert_int_equal(bad, 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_flow_json_and_table),
		cmocka_unit_test(test_flow_strings),
		cmocka_unit_test(test_doc_documents_exactly_the_tables),
		cmocka_unit_test(test_doc_examples_have_the_tables_keys),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
