// SPDX-License-Identifier: GPL-2.0
/* Unit tests for src/lib/record.c: JSON, table and Prometheus text from a field table. */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <cmocka.h>

#include "lib/hist.h"
#include "lib/record.h"
#include "capture.h"

struct row {
	char dev[16];
	uint32_t queue;
	const char *note;
	uint64_t packets;
	int64_t delta;
	double ratio;
	bool ok;
	uint64_t cpus;
	uint32_t ids[4];
	uint32_t nids;
};

#define R(f)	offsetof(struct row, f)

static void obj(struct nm_json *j, const struct nm_field *f, const void *row)
{
	const struct row *r = row;
	const char *k[] = { "q" };
	const uint64_t v[] = { r->queue };

	nm_json_u64_map(j, f->json, k, v, 1);
}

static const struct nm_field fields[] = {
	{ .json = "dev", .type = NM_REC_STR, .off = R(dev), .prom = "device", .kind = NM_PROM_LABEL,
	  .col = "DEV", .colno = 1, .width = -6 },
	{ .json = "queue", .type = NM_REC_U32, .off = R(queue), .prom = "queue",
	  .kind = NM_PROM_LABEL, .col = "Q", .colno = 3, .width = 2 },
	{ .json = "note", .type = NM_REC_STRP, .off = R(note) },
	{ .json = "packets", .type = NM_REC_U64, .off = R(packets), .help = "Packets \\ sent\nhere",
	  .prom = "t_packets_total", .kind = NM_PROM_COUNTER, .col = "PKTS", .colno = 2, .width = 6,
	  .flags = NM_COL_COUNT },
	{ .json = "delta", .type = NM_REC_I64, .off = R(delta), .prom = "t_delta",
	  .kind = NM_PROM_GAUGE, .by = "device", .help = "Delta" },
	{ .json = "ratio", .type = NM_REC_DOUBLE, .off = R(ratio), .prom = "t_ratio",
	  .kind = NM_PROM_GAUGE, .by = "", .help = "Ratio", .col = "RATIO", .colno = 4, .width = 5 },
	{ .json = "ok", .type = NM_REC_BOOL, .off = R(ok) },
	{ .json = "cpus", .type = NM_REC_BITS, .off = R(cpus), .col = "CPUS", .colno = 5,
	  .width = -4 },
	{ .json = "ids", .type = NM_REC_U32_ARRAY, .off = R(ids), .aux = R(nids) },
	{ .json = "obj", .type = NM_REC_OBJ, .json_fn = obj },
	/* table only, last: no padding */
	{ .type = NM_REC_STRP, .off = R(note), .col = "NOTE", .colno = 6 },
};

static const struct nm_record rec = NM_RECORD("t", fields);

static const struct row rows[] = {
	{ "eth0", 0, "a\"b", 150000, -3, 0.25, true, 0x5, { 7, 9 }, 2 },
	{ "eth0", 1, NULL, 7, 2, NAN, false, 0, { 0 }, 0 },
	{ "ve\"th\\1\n", 0, "long note", 1, 10, 1.5, false, UINT64_C(1) << 63, { 1 }, 1 },
};

static void test_json_of_a_row(void **state)
{
	struct capture c;
	char *got;

	(void)state;
	cap_open(&c);
	nm_rec_json(c.f, &rec, &rows[0]);
	nm_rec_json(c.f, &rec, &rows[1]);
	got = cap_close(&c);
	assert_string_equal(got,
		"{\"type\":\"t\",\"dev\":\"eth0\",\"queue\":0,\"note\":\"a\\\"b\",\"packets\":150000,"
		"\"delta\":-3,\"ratio\":0.25,\"ok\":true,\"cpus\":[0,2],\"ids\":[7,9],\"obj\":{\"q\":0}}\n"
		/* NaN is null, a NULL string null, an empty mask and array [] */
		"{\"type\":\"t\",\"dev\":\"eth0\",\"queue\":1,\"note\":null,\"packets\":7,"
		"\"delta\":2,\"ratio\":null,\"ok\":false,\"cpus\":[],\"ids\":[],\"obj\":{\"q\":1}}\n");
	free(got);
}

/*
 * Every record stamped: "tool" and "time" after "type", but never twice (a
 * record with its own tool field, an interval's own time).
 */
static void test_json_tool(void **state)
{
	static const struct nm_field own[] = {
		{ .json = "tool", .type = NM_REC_STRP, .off = R(note) },
	};
	static const struct nm_record with_tool = NM_RECORD("start", own);
	struct capture c;
	char *got;

	(void)state;
	cap_open(&c);
	nm_rec_json_at(c.f, &rec, &rows[1], "xpsflap", 1796177158);
	nm_rec_json_at(c.f, &with_tool, &rows[0], "xpsflap", 0);
	nm_rec_json_at(c.f, &with_tool, &rows[0], NULL, 0);
	got = cap_close(&c);
	assert_string_equal(got,
		"{\"type\":\"t\",\"tool\":\"xpsflap\",\"time\":1796177158,\"dev\":\"eth0\",\"queue\":1,"
		"\"note\":null,\"packets\":7,"
		"\"delta\":2,\"ratio\":null,\"ok\":false,\"cpus\":[],\"ids\":[],\"obj\":{\"q\":1}}\n"
		"{\"type\":\"start\",\"tool\":\"a\\\"b\"}\n"
		"{\"type\":\"start\",\"tool\":\"a\\\"b\"}\n");
	free(got);
}

static void test_json_escapes_strings(void **state)
{
	struct capture c;
	char *got;

	(void)state;
	cap_open(&c);
	nm_rec_json(c.f, &rec, &rows[2]);
	got = cap_close(&c);
	assert_non_null(strstr(got, "\"dev\":\"ve\\\"th\\\\1\\u000a\""));
	assert_non_null(strstr(got, "\"cpus\":[63]"));
	free(got);
}

/* A Unix time in seconds keeps its milliseconds in JSON; other doubles keep six digits. */
struct trow {
	double time, ratio;
};

static const struct nm_field tfields[] = {
	{ .json = "time", .type = NM_REC_DOUBLE, .off = offsetof(struct trow, time),
	  .flags = NM_F_JSON_FIXED, .prec = 3 },
	{ .json = "ratio", .type = NM_REC_DOUBLE, .off = offsetof(struct trow, ratio) },
};

static const struct nm_record trec = NM_RECORD("s", tfields);

static void test_json_fixed_time(void **state)
{
	const struct trow r[] = { { 1796165649.12345, 1796165649.12345 }, { NAN, 0.5 } };
	struct capture c;
	char *got;

	(void)state;
	cap_open(&c);
	nm_rec_json(c.f, &trec, &r[0]);
	nm_rec_json(c.f, &trec, &r[1]);
	/* a record's own time (a stall's end) is not stamped over */
	nm_rec_json_at(c.f, &trec, &r[0], "tcpstall", 1796165650);
	got = cap_close(&c);
	assert_string_equal(got, "{\"type\":\"s\",\"time\":1796165649.123,\"ratio\":1.79617e+09}\n"
				 "{\"type\":\"s\",\"time\":null,\"ratio\":0.5}\n"
				 "{\"type\":\"s\",\"tool\":\"tcpstall\",\"time\":1796165649.123,"
				 "\"ratio\":1.79617e+09}\n");
	free(got);
}

static void test_table_header_and_rows(void **state)
{
	struct capture c;
	char *got;

	(void)state;
	cap_open(&c);
	nm_rec_table(c.f, &rec, rows, sizeof(rows[0]), 3, 0, NULL);
	got = cap_close(&c);
	/*
	 * by .colno, not table order; each column as wide as its widest cell,
	 * none cut (a control byte as '?'); counts shortened, NaN as "-"
	 */
	assert_string_equal(got,
		"DEV        PKTS  Q RATIO CPUS NOTE\n"
		"eth0       150k  0  0.25 0,2  a\"b\n"
		"eth0          7  1     -      -\n"
		"ve\"th\\1?      1  0   1.5 63   long note\n");
	free(got);
	/* a row alone: the columns' own widths, a wider cell pushing the rest */
	cap_open(&c);
	nm_rec_table_row(c.f, &rec, &rows[2]);
	got = cap_close(&c);
	assert_string_equal(got, "ve\"th\\1?      1  0   1.5 63   long note\n");
	free(got);
}

static void test_prom_labels_sums_and_escaping(void **state)
{
	struct nm_prom *p = nm_prom_new();
	char *got;

	(void)state;
	nm_rec_prom(p, &rec, rows, sizeof(rows[0]), 3);
	got = cap_prom(p);
	assert_string_equal(got,
		"# HELP t_packets_total Packets \\\\ sent\\nhere\n"
		"# TYPE t_packets_total counter\n"
		"t_packets_total{device=\"eth0\",queue=\"0\"} 150000\n"
		"t_packets_total{device=\"eth0\",queue=\"1\"} 7\n"
		"t_packets_total{device=\"ve\\\"th\\\\1\\n\",queue=\"0\"} 1\n"
		/* by device: eth0's two queues are one sample, at the first */
		"# HELP t_delta Delta\n"
		"# TYPE t_delta gauge\n"
		"t_delta{device=\"eth0\"} -1\n"
		"t_delta{device=\"ve\\\"th\\\\1\\n\"} 10\n"
		/* no label: every row in one sample; NaN stays NaN */
		"# HELP t_ratio Ratio\n"
		"# TYPE t_ratio gauge\n"
		"t_ratio NaN\n");
	free(got);
	nm_prom_free(p);
}

static void test_prom_of_no_rows_has_the_families(void **state)
{
	struct nm_prom *p = nm_prom_new();
	char *got;

	(void)state;
	nm_rec_prom(p, &rec, rows, sizeof(rows[0]), 0);
	got = cap_prom(p);
	assert_string_equal(got,
		"# HELP t_packets_total Packets \\\\ sent\\nhere\n# TYPE t_packets_total counter\n"
		"# HELP t_delta Delta\n# TYPE t_delta gauge\n"
		"# HELP t_ratio Ratio\n# TYPE t_ratio gauge\n");
	free(got);
	nm_prom_free(p);
}

static void test_prom_sums_integers_exactly(void **state)
{
	/* 2^53 + 1 + 1: a sum of doubles would lose each 1, integers round once */
	const struct row big[] = {
		{ .dev = "a", .packets = UINT64_C(1) << 53 },
		{ .dev = "a", .packets = 1 },
		{ .dev = "a", .packets = 1 },
	};
	static const struct nm_field f[] = {
		{ .type = NM_REC_STR, .off = R(dev), .prom = "device", .kind = NM_PROM_LABEL },
		{ .type = NM_REC_U64, .off = R(packets), .prom = "t_total", .kind = NM_PROM_COUNTER,
		  .help = "T" },
	};
	const struct nm_record r = NM_RECORD("big", f);
	struct nm_prom *p = nm_prom_new();
	char *got;

	(void)state;
	nm_rec_prom(p, &r, big, sizeof(big[0]), 3);
	got = cap_prom(p);
	assert_string_equal(got, "# HELP t_total T\n# TYPE t_total counter\nt_total{device=\"a\"} 9007199254740994\n");
	free(got);
	nm_prom_free(p);
}

static void test_doc_types_and_labels(void **state)
{
	(void)state;
	assert_string_equal(nm_rec_json_type(&fields[0]), "string");
	assert_string_equal(nm_rec_json_type(&fields[1]), "integer");
	assert_string_equal(nm_rec_json_type(&fields[5]), "number");
	assert_string_equal(nm_rec_json_type(&fields[6]), "boolean");
	assert_string_equal(nm_rec_json_type(&fields[7]), "array of integers");
	assert_string_equal(nm_rec_json_type(&fields[8]), "array of integers");
	assert_string_equal(nm_rec_json_type(&fields[9]), "object");
	assert_string_equal(nm_rec_prom_type(&fields[3]), "counter");
	assert_string_equal(nm_rec_prom_type(&fields[4]), "gauge");
	assert_null(nm_rec_prom_type(&fields[0]));
	assert_true(nm_rec_keeps_label(&fields[3], &fields[0]));
	assert_true(nm_rec_keeps_label(&fields[3], &fields[1]));
	assert_true(nm_rec_keeps_label(&fields[4], &fields[0]));
	assert_false(nm_rec_keeps_label(&fields[4], &fields[1]));
	assert_false(nm_rec_keeps_label(&fields[5], &fields[0]));
}

/* ---- values that may be missing, names of an enum, counts per name ---- */

static const char *const colours[] = { "red", "green", "blue" };

struct vrow {
	char dev[8];
	int64_t txq;
	bool has_txq;
	double rate;
	uint32_t colour;
	bool sampled;
	bool hot;
	uint64_t per[3];
};

#define V(f)	offsetof(struct vrow, f)

static const struct nm_field vfields[] = {
	{ .json = "dev", .type = NM_REC_STR, .off = V(dev), .prom = "device", .kind = NM_PROM_LABEL,
	  .col = "DEV", .colno = 1, .width = -4 },
	{ .json = "txq", .type = NM_REC_I64, .off = V(txq), .flags = NM_F_VALID, .valid = V(has_txq),
	  .absent = "all", .col = "TXQ", .colno = 2, .width = -3 },
	{ .json = "rate", .type = NM_REC_DOUBLE, .off = V(rate), .col = "RATE", .colno = 4,
	  .width = 5, .flags = NM_COL_FIXED, .prec = 0 },
	{ .json = "colour", .type = NM_REC_ENUM, .off = V(colour), .names = colours, .nnames = 3,
	  .col = "COLOUR", .colno = 3, .width = -6, .prom = "t_colour", .kind = NM_PROM_GAUGE,
	  .label = "colour", .help = "Colour", .flags = NM_F_VALID, .valid = V(sampled) },
	{ .json = "hot", .type = NM_REC_BOOL, .off = V(hot), .flags = NM_F_VALID | NM_F_OMIT,
	  .valid = V(sampled) },
	{ .json = "n_", .type = NM_REC_U64_BY_NAME, .off = V(per), .names = colours, .nnames = 3,
	  .prom = "t_seen_total", .kind = NM_PROM_COUNTER, .label = "colour", .help = "Seen",
	  .by = "device" },
};

static const struct nm_record vrec = NM_RECORD("v", vfields);

static const struct vrow vrows[] = {
	{ "a", 3, true, 2.5, 1, true, true, { 1, 2, 3 } },
	{ "a", -1, false, 1234.4, 7, false, false, { 10, 20, 30 } },
	{ "b", 0, true, NAN, 2, true, false, { 0, 0, 5 } },
};

static void test_json_of_missing_values_and_names(void **state)
{
	struct capture c;
	char *got;

	(void)state;
	cap_open(&c);
	for (int i = 0; i < 3; i++)
		nm_rec_json(c.f, &vrec, &vrows[i]);
	got = cap_close(&c);
	assert_string_equal(got,
		"{\"type\":\"v\",\"dev\":\"a\",\"txq\":3,\"rate\":2.5,\"colour\":\"green\",\"hot\":true,"
		"\"n_red\":1,\"n_green\":2,\"n_blue\":3}\n"
		/* not valid: null, or no key at all with NM_F_OMIT */
		"{\"type\":\"v\",\"dev\":\"a\",\"txq\":null,\"rate\":1234.4,\"colour\":null,"
		"\"n_red\":10,\"n_green\":20,\"n_blue\":30}\n"
		"{\"type\":\"v\",\"dev\":\"b\",\"txq\":0,\"rate\":null,\"colour\":\"blue\",\"hot\":false,"
		"\"n_red\":0,\"n_green\":0,\"n_blue\":5}\n");
	free(got);
}

static void test_table_of_missing_values_and_names(void **state)
{
	struct vrow out_of_range = vrows[0];
	struct capture c;
	char *got;

	(void)state;
	out_of_range.colour = 3;
	cap_open(&c);
	nm_rec_table_header(c.f, &vrec);
	for (int i = 0; i < 3; i++)
		nm_rec_table_row(c.f, &vrec, &vrows[i]);
	nm_rec_table_row(c.f, &vrec, &out_of_range);
	got = cap_close(&c);
	/* .absent where no value, "-" by default; %.0f rounds; a name past the list is "?" */
	assert_string_equal(got,
		"DEV  TXQ COLOUR  RATE\n"
		"a    3   green      2\n"
		"a    all -       1234\n"
		"b    0   blue       -\n"
		"a    3   ?          2\n");
	free(got);
}

static void test_prom_state_sets_and_counts_per_name(void **state)
{
	struct nm_prom *p = nm_prom_new();
	char *got;

	(void)state;
	nm_rec_prom(p, &vrec, vrows, sizeof(vrows[0]), 3);
	got = cap_prom(p);
	assert_string_equal(got,
		/* a state set, and no sample for the row without a value */
		"# HELP t_colour Colour\n"
		"# TYPE t_colour gauge\n"
		"t_colour{device=\"a\",colour=\"red\"} 0\n"
		"t_colour{device=\"a\",colour=\"green\"} 1\n"
		"t_colour{device=\"a\",colour=\"blue\"} 0\n"
		"t_colour{device=\"b\",colour=\"red\"} 0\n"
		"t_colour{device=\"b\",colour=\"green\"} 0\n"
		"t_colour{device=\"b\",colour=\"blue\"} 1\n"
		/* a count per name, summed by device */
		"# HELP t_seen_total Seen\n"
		"# TYPE t_seen_total counter\n"
		"t_seen_total{device=\"a\",colour=\"red\"} 11\n"
		"t_seen_total{device=\"a\",colour=\"green\"} 22\n"
		"t_seen_total{device=\"a\",colour=\"blue\"} 33\n"
		"t_seen_total{device=\"b\",colour=\"red\"} 0\n"
		"t_seen_total{device=\"b\",colour=\"green\"} 0\n"
		"t_seen_total{device=\"b\",colour=\"blue\"} 5\n");
	free(got);
	nm_prom_free(p);
}

static void test_prom_sample_at_first_row_with_a_value(void **state)
{
	/* the first row of "a" has no value: the sample is the second's */
	const struct vrow r[] = {
		{ .dev = "a", .colour = 0, .sampled = false },
		{ .dev = "b", .colour = 2, .sampled = true },
		{ .dev = "a", .colour = 1, .sampled = true },
	};
	static const struct nm_field f[] = {
		{ .type = NM_REC_STR, .off = V(dev), .prom = "device", .kind = NM_PROM_LABEL },
		{ .type = NM_REC_U32, .off = V(colour), .prom = "t_c", .kind = NM_PROM_GAUGE,
		  .help = "C", .flags = NM_F_VALID, .valid = V(sampled) },
	};
	const struct nm_record rr = NM_RECORD("f", f);
	struct nm_prom *p = nm_prom_new();
	char *got;

	(void)state;
	nm_rec_prom(p, &rr, r, sizeof(r[0]), 3);
	got = cap_prom(p);
	assert_string_equal(got, "# HELP t_c C\n# TYPE t_c gauge\nt_c{device=\"b\"} 2\nt_c{device=\"a\"} 1\n");
	free(got);
	nm_prom_free(p);
}

static void test_doc_types_of_names(void **state)
{
	(void)state;
	assert_string_equal(nm_rec_json_type(&vfields[3]), "string");
	assert_string_equal(nm_rec_json_type(&vfields[5]), "integer");
}

/* ---- count maps, string arrays, joined cells, histograms per name ---- */

struct hrow {
	char dev[8];
	bool has_ns;
	uint64_t ns;
	uint64_t count[2];
	const char *why[3];
	uint32_t nwhy;
	bool hot;
	uint64_t hist[2][NM_HIST_SLOTS];
	double sum[2];
};

#define H(f)	offsetof(struct hrow, f)

static const char *const hnames[] = { "x", "y" };
static const char *const hot_cells[] = { "-", "HOT" };

static const struct nm_field hfields[] = {
	/* optional: where present, before the other labels, as the fields are */
	{ .type = NM_REC_U64, .off = H(ns), .prom = "ns", .kind = NM_PROM_LABEL,
	  .flags = NM_F_VALID, .valid = H(has_ns) },
	{ .json = "dev", .type = NM_REC_STR, .off = H(dev), .prom = "device", .kind = NM_PROM_LABEL,
	  .col = "DEV / WHY", .colno = 2 },
	{ .json = "count", .type = NM_REC_U64_MAP, .off = H(count), .names = hnames, .nnames = 2,
	  .help = "Count", .prom = "t_count_total", .kind = NM_PROM_COUNTER, .label = "name" },
	{ .json = "why", .type = NM_REC_STR_ARRAY, .off = H(why), .aux = H(nwhy), .colno = 3,
	  .flags = NM_COL_JOIN },
	{ .json = "hot", .type = NM_REC_BOOL, .off = H(hot), .names = hot_cells, .col = "HOT",
	  .colno = 1, .width = -4 },
	{ .type = NM_REC_LOG2_HIST, .off = H(hist), .aux = H(sum), .names = hnames, .nnames = 2,
	  .scale = 1e-6, .help = "Durations", .prom = "t_seconds", .kind = NM_PROM_HISTOGRAM,
	  .label = "name" },
};

static const struct nm_record hrec = NM_RECORD("h", hfields);

static const struct hrow hrows[] = {
	{ .dev = "a", .count = { 1, 2 }, .why = { "p", "q" }, .nwhy = 2, .hot = true,
	  .hist = { [1] = { [0] = 1, [2] = 2 } }, .sum = { 0, 0.5 } },
	{ .dev = "b", .has_ns = true, .ns = 42, .count = { 0, 7 } },
	/* a's again: summed into its samples */
	{ .dev = "a", .count = { 10, 0 }, .hist = { [1] = { [2] = 1 } }, .sum = { 0, 0.25 } },
	/* b with no ns: a label set of its own */
	{ .dev = "b", .count = { 3, 0 } },
};

static char *hjson(const struct hrow *r)
{
	struct capture c;

	cap_open(&c);
	nm_rec_json(c.f, &hrec, r);
	return cap_close(&c);
}

static void test_json_of_count_maps_and_string_arrays(void **state)
{
	char *got;

	(void)state;
	got = hjson(&hrows[0]);
	assert_string_equal(got, "{\"type\":\"h\",\"dev\":\"a\",\"count\":{\"x\":1,\"y\":2},"
				 "\"why\":[\"p\",\"q\"],\"hot\":true}\n");
	free(got);
	got = hjson(&hrows[1]);
	assert_string_equal(got, "{\"type\":\"h\",\"dev\":\"b\",\"count\":{\"x\":0,\"y\":7},"
				 "\"why\":[],\"hot\":false}\n");
	free(got);
}

/* the joined cell follows its column, and is not there at all when empty */
static void test_table_of_joined_cells_and_bool_names(void **state)
{
	struct capture c;
	char *got;

	(void)state;
	cap_open(&c);
	nm_rec_table_header(c.f, &hrec);
	nm_rec_table_row(c.f, &hrec, &hrows[0]);
	nm_rec_table_row(c.f, &hrec, &hrows[1]);
	got = cap_close(&c);
	assert_string_equal(got, "HOT  DEV / WHY\n"
				 "HOT  a p,q\n"
				 "-    b\n");
	free(got);
}

static void test_prom_of_count_maps_and_histograms(void **state)
{
	struct nm_prom *p = nm_prom_new();
	char *got;

	(void)state;
	nm_rec_prom(p, &hrec, hrows, sizeof(hrows[0]), 4);
	got = cap_prom(p);
	assert_string_equal(got,
		"# HELP t_count_total Count\n"
		"# TYPE t_count_total counter\n"
		"t_count_total{device=\"a\",name=\"x\"} 11\n"
		"t_count_total{device=\"a\",name=\"y\"} 2\n"
		/* the optional label in the fields' order, the name's last */
		"t_count_total{ns=\"42\",device=\"b\",name=\"x\"} 0\n"
		"t_count_total{ns=\"42\",device=\"b\",name=\"y\"} 7\n"
		"t_count_total{device=\"b\",name=\"x\"} 3\n"
		"t_count_total{device=\"b\",name=\"y\"} 0\n"
		/* no series for a name, or a label set, without a count */
		"# HELP t_seconds Durations\n"
		"# TYPE t_seconds histogram\n"
		"t_seconds_bucket{device=\"a\",name=\"y\",le=\"1e-06\"} 1\n"
		"t_seconds_bucket{device=\"a\",name=\"y\",le=\"3e-06\"} 1\n"
		"t_seconds_bucket{device=\"a\",name=\"y\",le=\"7e-06\"} 4\n"
		"t_seconds_bucket{device=\"a\",name=\"y\",le=\"+Inf\"} 4\n"
		"t_seconds_sum{device=\"a\",name=\"y\"} 0.75\n"
		"t_seconds_count{device=\"a\",name=\"y\"} 4\n");
	free(got);
	nm_prom_free(p);
}

static void test_doc_types_of_maps_arrays_and_histograms(void **state)
{
	(void)state;
	assert_string_equal(nm_rec_json_type(&hfields[2]), "object");
	assert_string_equal(nm_rec_json_type(&hfields[3]), "array of strings");
	assert_string_equal(nm_rec_prom_type(&hfields[5]), "histogram");
	assert_null(nm_rec_prom_type(&hfields[3]));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_json_of_a_row),
		cmocka_unit_test(test_json_tool),
		cmocka_unit_test(test_json_escapes_strings),
		cmocka_unit_test(test_json_fixed_time),
		cmocka_unit_test(test_table_header_and_rows),
		cmocka_unit_test(test_prom_labels_sums_and_escaping),
		cmocka_unit_test(test_prom_of_no_rows_has_the_families),
		cmocka_unit_test(test_prom_sums_integers_exactly),
		cmocka_unit_test(test_doc_types_and_labels),
		cmocka_unit_test(test_json_of_missing_values_and_names),
		cmocka_unit_test(test_table_of_missing_values_and_names),
		cmocka_unit_test(test_prom_state_sets_and_counts_per_name),
		cmocka_unit_test(test_prom_sample_at_first_row_with_a_value),
		cmocka_unit_test(test_doc_types_of_names),
		cmocka_unit_test(test_json_of_count_maps_and_string_arrays),
		cmocka_unit_test(test_table_of_joined_cells_and_bool_names),
		cmocka_unit_test(test_prom_of_count_maps_and_histograms),
		cmocka_unit_test(test_doc_types_of_maps_arrays_and_histograms),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
