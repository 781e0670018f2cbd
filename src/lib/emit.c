// SPDX-License-Identifier: GPL-2.0
/*
 * emit.c - a report's sinks (emit.h): the same JSON lines, table and
 * textfile for every tool, from its records' rows.
 */
#include <errno.h>
#include "lib/emit.h"
#include "lib/hist.h"
#include "lib/selfstats.h"

/* Row *pos of s, and its record in *rec; NULL after the last. */
static const void *next_row(const struct nm_emit_rows *s, size_t *pos, const struct nm_record **rec)
{
	*rec = s->rec;
	if (s->next)
		return s->next(s->ctx, pos, rec);
	if (*pos >= s->n)
		return NULL;
	return (const char *)s->rows + (*pos)++ * s->stride;
}

void nm_emit_json(FILE *f, const struct nm_emit *e, const char *tool)
{
	const struct nm_record *rec;
	const void *row;

	for (int i = 0; i < NM_EMIT_SETS; i++) {
		size_t pos = 0;

		if (!e->json[i].rec)
			continue;
		while ((row = next_row(&e->json[i], &pos, &rec)))
			nm_rec_json_at(f, rec, row, tool, e->time);
	}
}

/* The part's first top rows (all: top 0): printed, or measured into l; how many. */
static size_t part_rows(FILE *f, const struct nm_emit_table *t, struct nm_rec_layout *l, bool print)
{
	const struct nm_record *rec;
	const void *row;
	size_t pos = 0, shown;

	for (shown = 0; !t->top || shown < t->top; shown++) {
		if (!(row = next_row(&t->rows, &pos, &rec)))
			break;
		if (print)
			nm_rec_layout_row(f, rec, l, row);
		else
			nm_rec_layout_add(l, rec, row);
	}
	return shown;
}

/*
 * Its rows read twice: once to size the columns to them, once to print.
 * A part with no row prints nothing, not even its header, and a part
 * after the first not even its heading: the first heading, on the
 * interval's time line, already says there is nothing (an idle unit at
 * -i 15 wrote headers every interval, thousands of lines a day that said
 * nothing).
 */
static void table_part(FILE *f, const struct nm_emit_table *t, int columns, const char *ts)
{
	char heading[sizeof(t->heading) + 16];
	struct nm_rec_layout l;

	/* the first part's heading is the interval's summary, on its time line */
	snprintf(heading, sizeof(heading), "%s%s%s", ts ? ts : "", ts ? "  " : "", t->heading);
	nm_rec_layout_init(&l, t->rows.rec, columns);
	if (!part_rows(f, t, &l, false)) {
		if (ts)
			nm_emit_wrapped(f, heading, columns);
		return;
	}
	nm_emit_wrapped(f, heading, columns);
	nm_rec_layout_fit(&l);
	nm_rec_layout_header(f, t->rows.rec, &l);
	part_rows(f, t, &l, true);
}

void nm_emit_table(FILE *f, const struct nm_emit *e)
{
	nm_emit_table_in(f, e, nm_out_columns(f));
}

void nm_emit_table_in(FILE *f, const struct nm_emit *e, int columns)
{
	bool first = true;
	char ts[16];

	strftime(ts, sizeof(ts), "%H:%M:%S", localtime(&e->time));
	putc('\n', f);
	for (int i = 0; i < NM_EMIT_TABLES; i++) {
		if (!e->table[i].rows.rec)
			continue;
		table_part(f, &e->table[i], columns, first ? ts : NULL);
		first = false;
	}
	for (size_t i = 0; i < e->nhists; i++) {
		fprintf(f, "%s\n", e->hists[i].heading);
		nm_hist_print_log2(f, e->hists[i].slots, e->hists[i].nslots, e->hists[i].unit);
	}
	nm_out_flush(f);
}

void nm_emit_prom(struct nm_prom *p, const struct nm_emit *e, const struct nm_emit_self *self)
{
	const struct nm_emit_map *m = &e->map;

	for (int i = 0; i < NM_EMIT_SETS; i++)
		if (e->prom[i].rec)
			nm_rec_prom(p, e->prom[i].rec, e->prom[i].rows, e->prom[i].stride, e->prom[i].n);
	if (!self)
		return;
	if (self->obj)
		nm_self_prom(p, self->tool, self->obj, self->hooks, self->nhooks);
	else if (self->hooks)	/* the agent's detector: its object's programs are the agent's */
		nm_self_prom_hooks(p, self->tool, self->hooks, self->nhooks);
	if (!m->name)
		return;
	nm_self_prom_map(p, self->tool, m->name, m->entries, m->max, m->evictions);
	if (m->direct)
		nm_self_prom_map_untracked(p, self->tool, m->name, m->untracked);
}

/* --listen: out of memory, the last report's text is still served. */
static void publish(const struct nm_opts *o, struct nm_prom *p)
{
	const char *text;
	size_t len;
	int ret;

	text = nm_prom_text(p, &len);
	if (!text)
		return;
	ret = nm_listen_publish(o->http, text, len);
	if (ret == -EIO)
		nm_err(o, NM_EXIT_RUNTIME, "--listen %s: the server stopped (%s): no more metrics served",
		       o->listen.text, nm_listen_error(o->http));
}

/* Out of memory: no textfile this time, the last one stays. */
static void write_prom(const struct nm_opts *o, const struct nm_emit *e,
		       const struct nm_emit_self *self)
{
	struct nm_prom *p = nm_prom_new();

	if (!p)
		return;
	nm_emit_prom(p, e, self);
	nm_emit_prom_out(o, p);
	nm_prom_free(p);
}

void nm_emit_prom_out(const struct nm_opts *o, struct nm_prom *p)
{
	char err[256];

	if (o->prom_file && nm_prom_write_atomic(p, o->prom_file, err, sizeof(err)))
		nm_err(o, NM_EXIT_RUNTIME, "--prom-file: %s", err);
	if (o->http)
		publish(o, p);
}

void nm_emit(const struct nm_opts *o, const struct nm_emit *e, const struct nm_emit_self *self)
{
	/* its reader gone, the run ends (nm_out_flush): the last report goes to the textfile only */
	if (o->json && !nm_out_closed())
		nm_emit_json(stdout, e, o->tool);
	if (o->table && !nm_out_closed())
		nm_emit_table(o->json ? stderr : stdout, e);
	if (o->prom_file || o->http)
		write_prom(o, e, self);
}

const char *nm_emit_devices(const struct nm_opts *o, char *buf, size_t len)
{
	size_t off = 0;

	snprintf(buf, len, "all");
	for (int i = 0; i < o->ndevs && off < len; i++)
		off += snprintf(buf + off, len - off, "%s%s", i ? "," : "", o->devs[i]);
	return buf;
}

const char *nm_emit_losses(const char *hooks_losses, const char *extra, char *buf, size_t len)
{
	/* the hooks' "; lost:" part is their string's last: extra goes after it */
	snprintf(buf, len, "%s%s%s", hooks_losses,
		 !*extra ? "" : strstr(hooks_losses, "; lost: ") ? ", " : "; lost: ", extra);
	return buf;
}

void nm_emit_wrapped(FILE *f, const char *s, int columns)
{
	int x = 0;

	while (*s) {
		const char *e = s;
		int n;

		/* the next item, its comma or semicolon with it */
		while (*e && !((*e == ',' || *e == ';') && e[1] == ' '))
			e++;
		n = (int)(e - s) + !!*e;
		if (x && columns > 0 && x + 1 + n > columns) {
			fprintf(f, "\n%*s", NM_REC_INDENT, "");
			x = NM_REC_INDENT;
		} else if (x) {
			x += fprintf(f, " ");
		}
		x += fprintf(f, "%.*s", n, s);
		s += n + (*e ? 1 : 0);
	}
	putc('\n', f);
}

void nm_emit_first_line(FILE *f, const struct nm_opts *o, const struct nm_first *l,
			const struct nm_hook *hooks, int nhooks)
{
	char sum[512], loss[1024], all[1280], line[3072];
	size_t off;

	/* the rungs and the refusals are for -v (and --list-hooks): a user first needs what is lost */
	nm_hooks_losses(hooks, nhooks, o->verbose, loss, sizeof(loss));
	off = snprintf(line, sizeof(line), "%s: kernel %s, ", o->tool, nm_kernel_release());
	if (o->verbose && off < sizeof(line))
		off += snprintf(line + off, sizeof(line) - off, "hooks %s, ",
				nm_hooks_summary(hooks, nhooks, sum, sizeof(sum)));
	if (off < sizeof(line))
		snprintf(line + off, sizeof(line) - off, "interval %gs, %s%s", o->interval, l->what,
			 nm_emit_losses(loss, l->lost, all, sizeof(all)));
	nm_emit_wrapped(f, line, nm_out_columns(f));
	nm_out_flush(f);
}

void nm_emit_first(const struct nm_opts *o, const struct nm_first *l, const struct nm_hook *hooks,
		   int nhooks)
{
	if (o->json)
		nm_rec_json_at(stdout, l->rec, l->row, o->tool, time(NULL));
	if (o->table)
		nm_emit_first_line(o->json ? stderr : stdout, o, l, hooks, nhooks);
}
