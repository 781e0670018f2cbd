// SPDX-License-Identifier: GPL-2.0
/* Unit tests for src/lib/output.c: JSON lines, Prometheus, addresses. */
#include <dirent.h>
#include <errno.h>
#include <limits.h>
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <arpa/inet.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <cmocka.h>

#include "lib/output.h"
#include "capture.h"

/* ------------------------------------------------------------- helpers */

static void assert_json(void (*emit)(struct nm_json *j), const char *want)
{
	struct nm_json j;
	struct capture c;
	char *got;

	cap_open(&c);
	nm_json_begin(&j, c.f, "t");
	emit(&j);
	nm_json_end(&j);
	got = cap_close(&c);
	assert_string_equal(got, want);
	free(got);
}

/* A scratch directory per test, removed (with its files) afterwards. */
static int tmpdir_setup(void **state)
{
	const char *base = getenv("TMPDIR");
	char *dir = malloc(PATH_MAX);

	if (!dir)
		return -1;
	snprintf(dir, PATH_MAX, "%s/nm-test-output.XXXXXX",
		 base && *base ? base : "/tmp");
	if (!mkdtemp(dir)) {
		free(dir);
		return -1;
	}
	*state = dir;
	return 0;
}

static int tmpdir_teardown(void **state)
{
	char *dir = *state, path[PATH_MAX];
	struct dirent *de;
	DIR *d = opendir(dir);

	while (d && (de = readdir(d))) {
		if (!strcmp(de->d_name, ".") || !strcmp(de->d_name, ".."))
			continue;
		snprintf(path, sizeof(path), "%s/%s", dir, de->d_name);
		unlink(path);
	}
	if (d)
		closedir(d);
	rmdir(dir);
	free(dir);
	return 0;
}

/* Number of entries in dir other than . and .. */
static int count_entries(const char *dir)
{
	struct dirent *de;
	DIR *d = opendir(dir);
	int n = 0;

	assert_non_null(d);
	while ((de = readdir(d)))
		if (strcmp(de->d_name, ".") && strcmp(de->d_name, ".."))
			n++;
	closedir(d);
	return n;
}

static char *slurp(const char *path)
{
	struct capture c;
	FILE *in = fopen(path, "r");
	int ch;

	assert_non_null(in);
	cap_open(&c);
	while ((ch = getc(in)) != EOF)
		putc(ch, c.f);
	fclose(in);
	return cap_close(&c);
}

static void spit(const char *path, const char *text)
{
	FILE *out = fopen(path, "w");

	assert_non_null(out);
	fputs(text, out);
	assert_int_equal(fclose(out), 0);
}

/* Renders p through the real atomic writer and returns the file's text. */
static char *render(const char *dir, struct nm_prom *p)
{
	char path[PATH_MAX], err[256] = "";

	snprintf(path, sizeof(path), "%s/out.prom", dir);
	assert_int_equal(nm_prom_write_atomic(p, path, err, sizeof(err)), 0);
	assert_string_equal(err, "");
	return slurp(path);
}

static void assert_prom(const char *dir, struct nm_prom *p, const char *want)
{
	char *got = render(dir, p);

	assert_string_equal(got, want);
	free(got);
}

/* ----------------------------------------------------------------- JSON */

static void emit_scalars(struct nm_json *j)
{
	nm_json_u64(j, "u", UINT64_MAX);
	nm_json_i64(j, "i", INT64_MIN);
	nm_json_bool(j, "yes", true);
	nm_json_bool(j, "no", false);
	nm_json_double(j, "d", 0.25);
	nm_json_str(j, "s", "eth0");
}

static void test_json_scalars(void **state)
{
	(void)state;
	assert_json(emit_scalars,
		    "{\"type\":\"t\",\"u\":18446744073709551615,"
		    "\"i\":-9223372036854775808,\"yes\":true,\"no\":false,"
		    "\"d\":0.25,\"s\":\"eth0\"}\n");
}

static void test_json_begin_end_only(void **state)
{
	struct nm_json j;
	struct capture c;
	char *got;

	(void)state;
	cap_open(&c);
	nm_json_begin(&j, c.f, "hello");
	nm_json_end(&j);
	got = cap_close(&c);
	assert_string_equal(got, "{\"type\":\"hello\"}\n");
	free(got);
}

static void emit_escapes(struct nm_json *j)
{
	nm_json_str(j, "q", "say \"hi\"");
	nm_json_str(j, "b", "C:\\dir\\");
	nm_json_str(j, "c", "a\nb\tc\rd\x01\x1f");
	nm_json_str(j, "utf8", "caf\xc3\xa9 /");
	nm_json_str(j, "k\"ey", "");
}

static void test_json_escaping(void **state)
{
	(void)state;
	assert_json(emit_escapes,
		    "{\"type\":\"t\","
		    "\"q\":\"say \\\"hi\\\"\","
		    "\"b\":\"C:\\\\dir\\\\\","
		    "\"c\":\"a\\u000ab\\u0009c\\u000dd\\u0001\\u001f\","
		    "\"utf8\":\"caf\xc3\xa9 /\","
		    "\"k\\\"ey\":\"\"}\n");
}

static void test_json_type_escaped(void **state)
{
	struct nm_json j;
	struct capture c;
	char *got;

	(void)state;
	cap_open(&c);
	nm_json_begin(&j, c.f, "a\"b\n");
	nm_json_end(&j);
	got = cap_close(&c);
	assert_string_equal(got, "{\"type\":\"a\\\"b\\u000a\"}\n");
	free(got);
}

static void emit_null_str(struct nm_json *j)
{
	nm_json_str(j, "comm", NULL);
}

static void test_json_null_string(void **state)
{
	(void)state;
	assert_json(emit_null_str, "{\"type\":\"t\",\"comm\":null}\n");
}

static void emit_doubles(struct nm_json *j)
{
	nm_json_double(j, "nan", NAN);
	nm_json_double(j, "inf", INFINITY);
	nm_json_double(j, "ninf", -INFINITY);
	nm_json_double(j, "tenth", 0.1);
	nm_json_double(j, "big", 1234567.0);
	nm_json_double(j, "neg", -2.5);
	nm_json_double(j, "zero", 0.0);
}

static void test_json_doubles(void **state)
{
	(void)state;
	assert_json(emit_doubles,
		    "{\"type\":\"t\",\"nan\":null,\"inf\":null,\"ninf\":null,"
		    "\"tenth\":0.1,\"big\":1.23457e+06,\"neg\":-2.5,"
		    "\"zero\":0}\n");
}

static void emit_empty_arrays(struct nm_json *j)
{
	nm_json_u32_array(j, "ports", NULL, 0);
	nm_json_str_array(j, "names", NULL, 0);
}

static void test_json_arrays_empty(void **state)
{
	(void)state;
	assert_json(emit_empty_arrays,
		    "{\"type\":\"t\",\"ports\":[],\"names\":[]}\n");
}

static void emit_arrays(struct nm_json *j)
{
	static const uint32_t one[] = { 7 };
	static const uint32_t ports[] = { 0, 443, UINT32_MAX };
	static const char *const names[] = { "lo", "we\"ird\\", NULL, "\t" };

	nm_json_u32_array(j, "one", one, 1);
	nm_json_u32_array(j, "ports", ports, 3);
	nm_json_str_array(j, "names", names, 4);
}

static void test_json_arrays(void **state)
{
	(void)state;
	assert_json(emit_arrays,
		    "{\"type\":\"t\",\"one\":[7],\"ports\":[0,443,4294967295],"
		    "\"names\":[\"lo\",\"we\\\"ird\\\\\",null,\"\\u0009\"]}\n");
}

static void emit_map(struct nm_json *j)
{
	static const char *const k[] = { "netdev_pick_tx", "x\"y" };
	static const char *const v[] = { "tp_btf/net_dev_queue", "a\\b" };

	nm_json_str_map(j, "hooks", k, v, 2);
	nm_json_str_map(j, "none", k, v, 0);
}

static void emit_u64_map(struct nm_json *j)
{
	static const char *const k[] = { "tsq_idle", "rwnd_limited" };
	static const uint64_t v[] = { 0, UINT64_MAX };

	nm_json_u64_map(j, "samples", k, v, 2);
}

static void test_json_u64_map(void **state)
{
	(void)state;
	assert_json(emit_u64_map,
		    "{\"type\":\"t\",\"samples\":{\"tsq_idle\":0,\"rwnd_limited\":18446744073709551615}}\n");
}

static void test_json_str_map(void **state)
{
	(void)state;
	assert_json(emit_map,
		    "{\"type\":\"t\",\"hooks\":{\"netdev_pick_tx\":\"tp_btf/net_dev_queue\","
		    "\"x\\\"y\":\"a\\\\b\"},\"none\":{}}\n");
}

static void test_fmt_count(void **state)
{
	char b[16];

	(void)state;
	assert_string_equal(nm_fmt_count(0, b, sizeof(b)), "0");
	assert_string_equal(nm_fmt_count(99999, b, sizeof(b)), "99999");
	assert_string_equal(nm_fmt_count(100000, b, sizeof(b)), "100k");
	assert_string_equal(nm_fmt_count(2189539, b, sizeof(b)), "2.2M");
	assert_string_equal(nm_fmt_count(UINT64_MAX, b, sizeof(b)), "18E");
}

/* Line-oriented consumers (jq, log shippers) need exactly one line. */
static void test_json_single_line(void **state)
{
	static const char *const v[] = { "x\ny", "\r\n" };
	struct nm_json j;
	struct capture c;
	char *got, *nl;

	(void)state;
	cap_open(&c);
	nm_json_begin(&j, c.f, "multi\nline");
	nm_json_str(&j, "msg", "first\nsecond\n");
	nm_json_str_array(&j, "arr", v, 2);
	nm_json_end(&j);
	got = cap_close(&c);
	nl = strchr(got, '\n');
	assert_non_null(nl);
	assert_ptr_equal(nl, got + strlen(got) - 1);
	assert_null(strchr(got, '\r'));
	free(got);
}

/* nm_json_end must flush: consumers follow the stream live. */
static void test_json_end_flushes(void **state)
{
	struct nm_json j;
	struct capture c;

	(void)state;
	cap_open(&c);
	nm_json_begin(&j, c.f, "ev");
	nm_json_u64(&j, "n", 1);
	nm_json_end(&j);
	/* open_memstream only publishes buf/len on fflush or fclose. */
	assert_int_equal(c.len, strlen("{\"type\":\"ev\",\"n\":1}\n"));
	assert_memory_equal(c.buf, "{\"type\":\"ev\",\"n\":1}\n", c.len);

	nm_json_begin(&j, c.f, "ev");
	nm_json_end(&j);
	assert_string_equal(c.buf, "{\"type\":\"ev\",\"n\":1}\n{\"type\":\"ev\"}\n");
	free(cap_close(&c));
}

/* ----------------------------------------------------------- Prometheus */

static void test_prom_family_once(void **state)
{
	struct nm_prom *p = nm_prom_new();

	assert_non_null(p);
	nm_prom_family(p, "nm_drops_total", "counter", "Packets dropped.");
	nm_prom_family(p, "nm_drops_total", "counter", "Packets dropped.");
	nm_prom_sample(p, "nm_drops_total", NULL, 3);
	nm_prom_family(p, "nm_up", "gauge", "Whether netmedic runs.");
	nm_prom_sample(p, "nm_up", NULL, 1);
	nm_prom_family(p, "nm_up", "gauge", "Whether netmedic runs.");
	assert_prom(*state, p,
		    "# HELP nm_drops_total Packets dropped.\n"
		    "# TYPE nm_drops_total counter\n"
		    "nm_drops_total 3\n"
		    "# HELP nm_up Whether netmedic runs.\n"
		    "# TYPE nm_up gauge\n"
		    "nm_up 1\n");
	nm_prom_free(p);
}

/*
 * A family given again after others (the agent: each detector's self
 * metrics in turn) gets its samples beside its first ones: the format
 * wants each family's lines in one group.
 */
static void test_prom_family_again_grouped(void **state)
{
	struct nm_prom *p = nm_prom_new();
	const char *a[] = { "tool", "a", NULL }, *b[] = { "tool", "b", NULL };

	assert_non_null(p);
	nm_prom_family(p, "nm_hook_info", "gauge", "Hooks.");
	nm_prom_sample(p, "nm_hook_info", a, 1);
	nm_prom_family(p, "nm_runs_total", "counter", "Runs.");
	nm_prom_sample(p, "nm_runs_total", a, 5);
	nm_prom_family(p, "nm_hook_info", "gauge", "Hooks.");
	nm_prom_sample(p, "nm_hook_info", b, 1);
	nm_prom_family(p, "nm_runs_total", "counter", "Runs.");
	nm_prom_sample(p, "nm_runs_total", b, 7);
	assert_prom(*state, p,
		    "# HELP nm_hook_info Hooks.\n"
		    "# TYPE nm_hook_info gauge\n"
		    "nm_hook_info{tool=\"a\"} 1\n"
		    "nm_hook_info{tool=\"b\"} 1\n"
		    "# HELP nm_runs_total Runs.\n"
		    "# TYPE nm_runs_total counter\n"
		    "nm_runs_total{tool=\"a\"} 5\n"
		    "nm_runs_total{tool=\"b\"} 7\n");
	nm_prom_free(p);
}

/* More families than the first allocation holds: each keeps its lines (ASan, valgrind). */
static void test_prom_many_families(void **state)
{
	struct nm_prom *p = nm_prom_new();
	char name[32], want[64];
	const char *text;
	size_t len;

	(void)state;
	assert_non_null(p);
	for (int i = 0; i < 40; i++) {
		snprintf(name, sizeof(name), "nm_f%d", i);
		nm_prom_family(p, name, "gauge", "F.");
		nm_prom_sample(p, name, NULL, i);
	}
	nm_prom_family(p, "nm_f0", "gauge", "F.");
	nm_prom_sample(p, "nm_f0", NULL, 100);
	text = nm_prom_text(p, &len);
	assert_non_null(text);
	assert_int_equal(strlen(text), len);
	assert_non_null(strstr(text, "# TYPE nm_f0 gauge\nnm_f0 0\nnm_f0 100\n# HELP nm_f1 F.\n"));
	snprintf(want, sizeof(want), "# TYPE nm_f39 gauge\nnm_f39 39\n");
	assert_non_null(strstr(text, want));
	assert_int_equal(strcmp(text + len - strlen(want), want), 0);
	nm_prom_free(p);
}

static void test_prom_help_escaping(void **state)
{
	struct nm_prom *p = nm_prom_new();

	nm_prom_family(p, "nm_x", "gauge", "back\\slash \"quoted\"\nnext");
	assert_prom(*state, p,
		    "# HELP nm_x back\\\\slash \"quoted\"\\nnext\n"
		    "# TYPE nm_x gauge\n");
	nm_prom_free(p);
}

static void test_prom_labels(void **state)
{
	static const char *const one[] = { "dev", "eth0", NULL };
	static const char *const two[] = { "dev", "eth0", "reason", "no_socket",
					   NULL };
	static const char *const esc[] = { "path", "C:\\x \"y\"\nz", NULL };
	static const char *const none[] = { NULL };
	struct nm_prom *p = nm_prom_new();

	nm_prom_family(p, "nm_d", "counter", "d");
	nm_prom_sample(p, "nm_d", NULL, 1);
	nm_prom_sample(p, "nm_d", none, 2);
	nm_prom_sample(p, "nm_d", one, 3);
	nm_prom_sample(p, "nm_d", two, 4);
	nm_prom_sample(p, "nm_d", esc, 5);
	assert_prom(*state, p,
		    "# HELP nm_d d\n"
		    "# TYPE nm_d counter\n"
		    "nm_d 1\n"
		    "nm_d 2\n"
		    "nm_d{dev=\"eth0\"} 3\n"
		    "nm_d{dev=\"eth0\",reason=\"no_socket\"} 4\n"
		    "nm_d{path=\"C:\\\\x \\\"y\\\"\\nz\"} 5\n");
	nm_prom_free(p);
}

static void test_prom_values(void **state)
{
	struct nm_prom *p = nm_prom_new();

	nm_prom_sample(p, "a", NULL, NAN);
	nm_prom_sample(p, "b", NULL, INFINITY);
	nm_prom_sample(p, "c", NULL, -INFINITY);
	nm_prom_sample(p, "d", NULL, 0.1);
	nm_prom_sample(p, "e", NULL, 1e-6);
	nm_prom_sample(p, "f", NULL, 18446744073709551616.0);
	nm_prom_sample(p, "g", NULL, 0.1 + 0.2);
	nm_prom_sample(p, "h", NULL, 123456789012.0);
	assert_prom(*state, p,
		    "a NaN\n"
		    "b +Inf\n"
		    "c -Inf\n"
		    "d 0.1\n"
		    "e 1e-06\n"
		    "f 1.8446744073709552e+19\n"
		    "g 0.30000000000000004\n"
		    "h 123456789012\n");
	nm_prom_free(p);
}

static void test_prom_hist_cumulative(void **state)
{
	static const char *const lbl[] = { "dev", "eth0", NULL };
	uint64_t slots[32] = { [0] = 1, [2] = 3, [3] = 2 };
	struct nm_prom *p = nm_prom_new();

	nm_prom_family(p, "nm_lat", "histogram", "Latency.");
	nm_prom_log2_hist(p, "nm_lat", lbl, slots, 32, 1.0, 42.5);
	/* slot i holds [2^i, 2^(i+1)-1]; le is inclusive */
	assert_prom(*state, p,
		    "# HELP nm_lat Latency.\n"
		    "# TYPE nm_lat histogram\n"
		    "nm_lat_bucket{dev=\"eth0\",le=\"1\"} 1\n"
		    "nm_lat_bucket{dev=\"eth0\",le=\"3\"} 1\n"
		    "nm_lat_bucket{dev=\"eth0\",le=\"7\"} 4\n"
		    "nm_lat_bucket{dev=\"eth0\",le=\"15\"} 6\n"
		    "nm_lat_bucket{dev=\"eth0\",le=\"+Inf\"} 6\n"
		    "nm_lat_sum{dev=\"eth0\"} 42.5\n"
		    "nm_lat_count{dev=\"eth0\"} 6\n");
	nm_prom_free(p);
}

static void test_prom_hist_scaled_no_labels(void **state)
{
	uint64_t slots[32] = { [1] = 5, [4] = 1 };
	struct nm_prom *p = nm_prom_new();

	nm_prom_family(p, "nm_rtt_seconds", "histogram", "RTT.");
	nm_prom_log2_hist(p, "nm_rtt_seconds", NULL, slots, 32, 1e-6,
			  0.000123);
	assert_prom(*state, p,
		    "# HELP nm_rtt_seconds RTT.\n"
		    "# TYPE nm_rtt_seconds histogram\n"
		    "nm_rtt_seconds_bucket{le=\"1e-06\"} 0\n"
		    "nm_rtt_seconds_bucket{le=\"3e-06\"} 5\n"
		    "nm_rtt_seconds_bucket{le=\"7e-06\"} 5\n"
		    "nm_rtt_seconds_bucket{le=\"1.5e-05\"} 5\n"
		    "nm_rtt_seconds_bucket{le=\"3.1e-05\"} 6\n"
		    "nm_rtt_seconds_bucket{le=\"+Inf\"} 6\n"
		    "nm_rtt_seconds_sum 0.000123\n"
		    "nm_rtt_seconds_count 6\n");
	nm_prom_free(p);
}

static void test_prom_hist_empty(void **state)
{
	uint64_t slots[32] = { 0 };
	struct nm_prom *p = nm_prom_new();

	nm_prom_log2_hist(p, "h", NULL, slots, 32, 1.0, 0);
	assert_prom(*state, p,
		    "h_bucket{le=\"+Inf\"} 0\n"
		    "h_sum 0\n"
		    "h_count 0\n");
	nm_prom_free(p);
}

/*
 * Values are clamped into the top slot, so it has no finite bound and only
 * counts in +Inf; the finite buckets still run up to the one below it so
 * that histogram_quantile() does not report 1 for a far larger value.
 */
static void test_prom_hist_overflow_slot(void **state)
{
	uint64_t slots[32] = { [0] = 1, [31] = 2 };
	struct nm_prom *p = nm_prom_new();
	char *got, *s;
	int nbuckets = 0;

	nm_prom_log2_hist(p, "h", NULL, slots, 32, 1.0, 1e10);
	got = render(*state, p);
	for (s = got; (s = strstr(s, "h_bucket{")); s++)
		nbuckets++;
	assert_int_equal(nbuckets, 31 + 1);
	assert_non_null(strstr(got, "h_bucket{le=\"1\"} 1\n"
				    "h_bucket{le=\"3\"} 1\n"));
	assert_non_null(strstr(got, "h_bucket{le=\"2147483647\"} 1\n"
				    "h_bucket{le=\"+Inf\"} 3\n"
				    "h_sum 10000000000\n"
				    "h_count 3\n"));
	assert_null(strstr(got, "4294967295"));
	free(got);
	nm_prom_free(p);
}

static void test_prom_reset(void **state)
{
	struct nm_prom *p = nm_prom_new();

	nm_prom_family(p, "nm_up", "gauge", "Up.");
	nm_prom_sample(p, "nm_up", NULL, 1);
	assert_int_equal(nm_prom_reset(p), 0);
	nm_prom_family(p, "nm_up", "gauge", "Up.");
	nm_prom_sample(p, "nm_up", NULL, 0);
	assert_prom(*state, p, "# HELP nm_up Up.\n# TYPE nm_up gauge\nnm_up 0\n");
	nm_prom_free(p);
}

static void test_prom_atomic_replaces(void **state)
{
	const char *dir = *state;
	char path[PATH_MAX], err[256] = "";
	struct nm_prom *p = nm_prom_new();
	struct stat st;
	char *got;

	snprintf(path, sizeof(path), "%s/m.prom", dir);
	spit(path, "old content that is longer than the new one\n");
	nm_prom_sample(p, "nm_up", NULL, 1);
	assert_int_equal(nm_prom_write_atomic(p, path, err, sizeof(err)), 0);
	got = slurp(path);
	assert_string_equal(got, "nm_up 1\n");
	free(got);
	/* no temp file left behind, target readable by node_exporter */
	assert_int_equal(count_entries(dir), 1);
	assert_int_equal(stat(path, &st), 0);
	assert_int_equal(st.st_mode & 0777, 0644);

	/* writing again (the periodic case) also replaces it */
	nm_prom_sample(p, "nm_up", NULL, 0);
	assert_int_equal(nm_prom_write_atomic(p, path, err, sizeof(err)), 0);
	got = slurp(path);
	assert_string_equal(got, "nm_up 1\nnm_up 0\n");
	free(got);
	assert_int_equal(count_entries(dir), 1);
	nm_prom_free(p);
}

static void test_prom_atomic_missing_dir(void **state)
{
	char path[PATH_MAX], want[PATH_MAX + 64], err[PATH_MAX + 64] = "";
	struct nm_prom *p = nm_prom_new();

	snprintf(path, sizeof(path), "%s/nope/m.prom", (char *)*state);
	snprintf(want, sizeof(want), "directory %s/nope does not exist",
		 (char *)*state);
	nm_prom_sample(p, "nm_up", NULL, 1);
	assert_int_equal(nm_prom_write_atomic(p, path, err, sizeof(err)),
			 -ENOENT);
	assert_string_equal(err, want);
	nm_prom_free(p);
}

static void test_prom_atomic_unwritable(void **state)
{
	char err[256] = "";
	struct nm_prom *p = nm_prom_new();

	(void)state;
	nm_prom_sample(p, "nm_up", NULL, 1);
	assert_true(nm_prom_write_atomic(p, "/proc/m.prom", err,
					 sizeof(err)) < 0);
	assert_non_null(strstr(err, "cannot create files in directory /proc"));
	nm_prom_free(p);
}

static void test_check_path_ok(void **state)
{
	const char *dir = *state;
	char path[PATH_MAX], err[256] = "";

	snprintf(path, sizeof(path), "%s/m.prom", dir);
	assert_int_equal(nm_prom_check_path(path, err, sizeof(err)), 0);
	assert_string_equal(err, "");
	/* the probe file is removed again and the target not created */
	assert_int_equal(count_entries(dir), 0);
}

static void test_check_path_missing_dir(void **state)
{
	char err[256] = "";

	(void)state;
	assert_int_equal(nm_prom_check_path("/proc/netmedic-x/m.prom", err,
					    sizeof(err)), -ENOENT);
	assert_string_equal(err, "directory /proc/netmedic-x does not exist");
}

static void test_check_path_cannot_create(void **state)
{
	char err[256] = "";
	int ret;

	(void)state;
	/*
	 * The directory exists, but procfs and sysfs refuse new files even
	 * for root, with an errno that misleads (#37: /proc's ENOENT said
	 * "No such file or directory" of a directory that is there): the
	 * reason is their file system's.
	 */
	ret = nm_prom_check_path("/proc/m.prom", err, sizeof(err));
	assert_true(ret < 0);
	assert_string_equal(err, "cannot create files in directory /proc: it is on a proc file "
				 "system, which takes no new files");
	ret = nm_prom_check_path("/sys/kernel/m.prom", err, sizeof(err));
	assert_true(ret < 0);
	assert_string_equal(err, "cannot create files in directory /sys/kernel: it is on a sysfs "
				 "file system, which takes no new files");
}

static void test_check_path_not_a_dir(void **state)
{
	char file[PATH_MAX], path[PATH_MAX + 16], want[PATH_MAX + 32];
	char err[PATH_MAX + 32] = "";

	snprintf(file, sizeof(file), "%s/plain", (char *)*state);
	spit(file, "x");
	snprintf(path, sizeof(path), "%s/m.prom", file);
	snprintf(want, sizeof(want), "%s is not a directory", file);
	assert_int_equal(nm_prom_check_path(path, err, sizeof(err)), -ENOTDIR);
	assert_string_equal(err, want);
}

static void test_check_path_target_is_dir(void **state)
{
	char path[PATH_MAX], err[PATH_MAX + 32] = "";

	/* rename() would fail on every interval; say so at startup */
	assert_int_equal(nm_prom_check_path(*state, err, sizeof(err)), -EISDIR);
	assert_non_null(strstr(err, "is a directory"));
	snprintf(path, sizeof(path), "%s/", (char *)*state);
	assert_int_equal(nm_prom_check_path(path, err, sizeof(err)), -EISDIR);
}

/* #16.1: a FIFO, a device or a symlink at the target is refused, never replaced. */
static void test_check_path_not_regular(void **state)
{
	const char *dir = *state;
	char fifo[PATH_MAX], link[PATH_MAX], err[PATH_MAX + 64] = "";
	struct nm_prom *p = nm_prom_new();
	struct stat st;

	snprintf(fifo, sizeof(fifo), "%s/fifo.prom", dir);
	assert_int_equal(mkfifo(fifo, 0600), 0);
	assert_int_equal(nm_prom_check_path(fifo, err, sizeof(err)), -EINVAL);
	assert_non_null(strstr(err, fifo));
	assert_non_null(strstr(err, "is a FIFO, not a regular file"));
	nm_prom_sample(p, "nm_up", NULL, 1);
	assert_int_equal(nm_prom_write_atomic(p, fifo, err, sizeof(err)), -EINVAL);
	assert_int_equal(lstat(fifo, &st), 0);
	assert_true(S_ISFIFO(st.st_mode));
	/* only the check: /dev/null must never be a write test's target */
	assert_int_equal(nm_prom_check_path("/dev/null", err, sizeof(err)), -EINVAL);
	assert_string_equal(err, "/dev/null is a character device, not a regular file");

	snprintf(link, sizeof(link), "%s/link.prom", dir);
	assert_int_equal(symlink("m.prom", link), 0);
	assert_int_equal(nm_prom_check_path(link, err, sizeof(err)), -ELOOP);
	assert_non_null(strstr(err, "is a symbolic link"));
	assert_int_equal(nm_prom_write_atomic(p, link, err, sizeof(err)), -ELOOP);
	assert_int_equal(lstat(link, &st), 0);
	assert_true(S_ISLNK(st.st_mode));
	assert_int_equal(count_entries(dir), 2);
	nm_prom_free(p);
}

static void test_check_path_null_err(void **state)
{
	(void)state;
	/* callers that don't want the message may pass NULL */
	assert_int_equal(nm_prom_check_path("/proc/netmedic-x/m.prom", NULL, 0),
			 -ENOENT);
}

/* ------------------------------------------------------------ Addresses */

static void test_fmt_addr_v4(void **state)
{
	const uint8_t a[4] = { 192, 0, 2, 1 };
	uint32_t any = htonl(INADDR_ANY);
	char buf[INET6_ADDRSTRLEN];

	(void)state;
	assert_string_equal(nm_fmt_addr(AF_INET, a, buf, sizeof(buf)),
			    "192.0.2.1");
	assert_string_equal(nm_fmt_addr(AF_INET, &any, buf, sizeof(buf)),
			    "0.0.0.0");
}

static void test_fmt_addr_v6(void **state)
{
	const uint8_t a[16] = { 0x20, 0x01, 0x0d, 0xb8, [15] = 1 };
	const uint8_t mapped[16] = { [10] = 0xff, [11] = 0xff, 10, 0, 0, 1 };
	const uint8_t lo[16] = { [15] = 1 };
	char buf[INET6_ADDRSTRLEN];

	(void)state;
	assert_string_equal(nm_fmt_addr(AF_INET6, a, buf, sizeof(buf)),
			    "2001:db8::1");
	assert_string_equal(nm_fmt_addr(AF_INET6, mapped, buf, sizeof(buf)),
			    "::ffff:10.0.0.1");
	assert_string_equal(nm_fmt_addr(AF_INET6, lo, buf, sizeof(buf)),
			    "::1");
}

static void test_fmt_addr_bad(void **state)
{
	const uint8_t a[16] = { 0x20, 0x01, 0x0d, 0xb8, [15] = 1 };
	char buf[INET6_ADDRSTRLEN], small[4];

	(void)state;
	assert_string_equal(nm_fmt_addr(AF_UNIX, a, buf, sizeof(buf)), "?");
	assert_string_equal(nm_fmt_addr(AF_INET6, a, small, sizeof(small)),
			    "?");
	assert_string_equal(nm_fmt_addr(AF_INET, a, buf, 0), "");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_json_scalars),
		cmocka_unit_test(test_json_begin_end_only),
		cmocka_unit_test(test_json_escaping),
		cmocka_unit_test(test_json_type_escaped),
		cmocka_unit_test(test_json_null_string),
		cmocka_unit_test(test_json_doubles),
		cmocka_unit_test(test_json_arrays_empty),
		cmocka_unit_test(test_json_arrays),
		cmocka_unit_test(test_json_str_map),
		cmocka_unit_test(test_json_u64_map),
		cmocka_unit_test(test_fmt_count),
		cmocka_unit_test(test_json_single_line),
		cmocka_unit_test(test_json_end_flushes),
#define T(fn) cmocka_unit_test_setup_teardown(fn, tmpdir_setup, tmpdir_teardown)
		T(test_prom_family_once),
		T(test_prom_family_again_grouped),
		T(test_prom_many_families),
		T(test_prom_help_escaping),
		T(test_prom_labels),
		T(test_prom_values),
		T(test_prom_hist_cumulative),
		T(test_prom_hist_scaled_no_labels),
		T(test_prom_hist_empty),
		T(test_prom_hist_overflow_slot),
		T(test_prom_reset),
		T(test_prom_atomic_replaces),
		T(test_prom_atomic_missing_dir),
		T(test_prom_atomic_unwritable),
		T(test_check_path_ok),
		T(test_check_path_not_a_dir),
		T(test_check_path_target_is_dir),
		T(test_check_path_not_regular),
#undef T
		cmocka_unit_test(test_check_path_missing_dir),
		cmocka_unit_test(test_check_path_cannot_create),
		cmocka_unit_test(test_check_path_null_err),
		cmocka_unit_test(test_fmt_addr_v4),
		cmocka_unit_test(test_fmt_addr_v6),
		cmocka_unit_test(test_fmt_addr_bad),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
