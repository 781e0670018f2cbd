/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Output sinks: JSON lines, Prometheus textfile exposition, address
 * formatting.
 */
#ifndef NETMEDIC_LIB_OUTPUT_H
#define NETMEDIC_LIB_OUTPUT_H

#include <stdio.h>
#include <stdint.h>
#include <stdbool.h>
#include <stddef.h>

/*
 * JSON lines: one object per line, built field by field without per-call
 * allocation. Every object starts with a "type" field so that consumers can
 * dispatch on it. Keys and string values are escaped; bytes >= 0x80 are
 * passed through unchanged (callers are expected to hand in UTF-8).
 */
struct nm_json {
	FILE *f;
	int nfields;
};

void nm_json_begin(struct nm_json *j, FILE *f, const char *type);	/* writes {"type":"<type>" */
/* JSON-escaped (quotes, backslash, control chars as \u00XX); NULL val -> null */
void nm_json_str(struct nm_json *j, const char *key, const char *val);
void nm_json_u64(struct nm_json *j, const char *key, uint64_t v);
void nm_json_i64(struct nm_json *j, const char *key, int64_t v);
void nm_json_double(struct nm_json *j, const char *key, double v);	/* %.6g; NaN/Inf -> null */
/* v with prec digits after the point (a time in seconds); null when not finite. */
void nm_json_fixed(struct nm_json *j, const char *key, double v, int prec);
void nm_json_bool(struct nm_json *j, const char *key, bool v);
void nm_json_u32_array(struct nm_json *j, const char *key, const uint32_t *v, int n);
void nm_json_str_array(struct nm_json *j, const char *key, const char *const *v, int n);
/* "key":{"k0":"v0",...}: a flat object of strings (e.g. hook -> rung). */
void nm_json_str_map(struct nm_json *j, const char *key, const char *const *keys,
		     const char *const *vals, int n);
/* "key":{"k0":1,...}: counts by name (e.g. sockets by state). */
void nm_json_u64_map(struct nm_json *j, const char *key, const char *const *keys,
		     const uint64_t *vals, int n);
void nm_json_end(struct nm_json *j);	/* writes "}\n" and flushes (nm_out_flush) */

/*
 * The reader of the reports went away (`TOOL --json | head -1`): a write
 * to its stream failed with EPIPE, or poll says its pipe or socket has no
 * reader. SIGPIPE is ignored (nm_install_signals), so the tool hears it
 * here: nm_out_flush() flushes f and, when its reader is gone, sets
 * nm_exiting as SIGTERM does, so the run ends on its one exit path, every
 * remedy undone. false then (or after another error, which loses this
 * write only). nm_out_closed(): whether that happened.
 */
bool nm_out_flush(FILE *f);
bool nm_out_closed(void);
/*
 * A run's exit status, at its very end: status, unless the run ended because
 * its reader went away and nothing else failed; then the tool dies by the
 * SIGPIPE it ignored (the shell's 141), as cat, seq or bcc's tools do.
 */
int nm_out_exit_status(int status);

/*
 * The width a table of f may take, in columns: COLUMNS when it is a number
 * (the user's word, a terminal or not), else the terminal's (TIOCGWINSZ; 80
 * when it says 0), else 0: not a terminal, no limit. nm_out_columns_of is
 * the rule alone: env COLUMNS's value (or NULL), whether f is a terminal,
 * and the width the terminal gave (0: none).
 */
int nm_out_columns(FILE *f);
int nm_out_columns_of(const char *env, bool tty, int winsize);

/*
 * Prometheus text exposition format, built in memory, then written atomically
 * for node_exporter's textfile collector: temp file in the same directory,
 * fsync, rename, fsync the directory.
 */
struct nm_prom;		/* opaque; uses open_memstream */

struct nm_prom *nm_prom_new(void);	/* NULL on allocation failure */
void nm_prom_free(struct nm_prom *p);
/* Drops content and remembered families, to rebuild every interval. 0 or -errno. */
int nm_prom_reset(struct nm_prom *p);

/*
 * HELP and TYPE lines; type is "gauge", "counter" or "histogram". Emits each
 * family once even if called twice. Samples of one family must be emitted
 * right after its family line (the format requires them to be contiguous).
 */
void nm_prom_family(struct nm_prom *p, const char *name, const char *type,
		    const char *help);

/*
 * labels: NULL-terminated array of key, value, key, value, ..., NULL (may be
 * NULL for none). Label values are escaped per the format (backslash, double
 * quote, newline). Values are printed in the shortest form that round-trips;
 * NaN and infinities as NaN, +Inf, -Inf.
 */
void nm_prom_sample(struct nm_prom *p, const char *name,
		    const char *const *labels, double v);

/*
 * A cumulative histogram from log2 slots: slot i counts values v with
 * 2^i <= v < 2^(i+1) (slot 0 also holds 0), in some integer unit; 'scale'
 * turns that unit into the metric's base unit (e.g. 1e-6 for usec -> seconds).
 *
 * Emits name_bucket{...,le="<upper bound * scale>"} cumulative for each slot
 * up to the last non-empty one, then le="+Inf", name_sum (the given sum,
 * already in base units) and name_count. Because the values are integers and
 * le is inclusive, the upper bound of slot i is 2^(i+1) - 1 (le="1", "3",
 * "7", ... before scaling). The last slot (nslots - 1) is treated as an
 * overflow slot, as nm_hist_slot() and the BPF side clamp into it, so it only
 * shows up in le="+Inf". Call nm_prom_family(name, "histogram") first.
 */
void nm_prom_log2_hist(struct nm_prom *p, const char *name,
		       const char *const *labels, const uint64_t *slots,
		       int nslots, double scale, double sum);

/*
 * Returns 0, or -errno with a one-line reason in err (e.g. "directory /x does not exist"). The target must be
 * absent or a regular file: a device, FIFO or socket is refused (-EINVAL), and so is a symlink (-ELOOP), since
 * rename() would replace the link itself; nothing is written then.
 */
/* The text so far, its length in *len; NULL after an allocation failure. */
const char *nm_prom_text(struct nm_prom *p, size_t *len);
int nm_prom_write_atomic(struct nm_prom *p, const char *path, char *err,
			 size_t errlen);

/*
 * At startup: checks that the directory of path exists and that a file can be
 * created there (creates and removes a temp file, since root passes
 * access(2) checks), and that the target is absent or a regular file, as
 * nm_prom_write_atomic() requires. 0 or -errno with a one-line reason in err.
 */
int nm_prom_check_path(const char *path, char *err, size_t errlen);

/*
 * Address formatting for tables/JSON: family AF_INET or AF_INET6, addr points
 * to 4 or 16 bytes in network order. Returns buf ("" if len is 0); "?" for an
 * unknown family or a too small buffer. INET6_ADDRSTRLEN bytes are enough.
 */
const char *nm_fmt_addr(int family, const void *addr, char *buf, size_t len);

/* A count for narrow table columns: exact below 100000, then 123k, 4.5M, ... */
const char *nm_fmt_count(uint64_t v, char *buf, size_t len);

#endif /* NETMEDIC_LIB_OUTPUT_H */
