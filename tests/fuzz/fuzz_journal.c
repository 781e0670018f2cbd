// SPDX-License-Identifier: GPL-2.0
/*
 * The journal's text as --cleanup reads it back (nm_journal_parse), and
 * the sockopt plans tcpstall's executor reads from its records
 * (ts_kick_parse). Nothing is undone: the parse only.
 *
 * Beyond the sanitizers: what parses must come back the same when it is
 * written out again with the journal's escaping, and a sockopt record that
 * parses must survive ts_kick_record().
 */
#include "tcpstall/judge.h"
#include "lib/journal.h"
#include "fuzz.h"

/* The journal's escaping (journal.h), for the round trip. */
static size_t put_field(char *out, const char *s, int first)
{
	size_t n = 0;

	if (!first)
		out[n++] = '\t';
	for (; *s; s++) {
		const char *e = *s == '\\' ? "\\\\" : *s == '\t' ? "\\t" : *s == '\n' ? "\\n" :
				*s == '\r' ? "\\r" : NULL;

		if (e) {
			memcpy(out + n, e, 2);
			n += 2;
		} else {
			out[n++] = *s;
		}
	}
	return n;
}

static size_t put_line(char *out, const char *const *f, int nf)
{
	size_t n = 0;

	for (int i = 0; i < nf; i++)
		n += put_field(out + n, f[i], !i);
	out[n++] = '\n';
	return n;
}

/* Every field at most doubles, plus its tab and the newlines. */
static char *rewrite(const struct nm_journal_parsed *p, size_t size, size_t *len)
{
	char num[2][32], *out = malloc(2 * size + 64);
	const char *h[7] = { "netmedic-journal", "1", num[0], p->tool, p->key, p->netns, num[1] };
	size_t n = 0;

	FZ_CHECK(out);
	snprintf(num[0], sizeof(num[0]), "%ld", p->pid);
	snprintf(num[1], sizeof(num[1]), "%lu", p->ino);
	n += put_line(out, h, 7);
	for (int i = 0; i < p->n; i++)
		n += put_line(out + n, (const char *const *)p->r[i].f, p->r[i].nf);
	*len = n;
	return out;
}

static void same(const struct nm_journal_parsed *a, const struct nm_journal_parsed *b)
{
	FZ_CHECK(b->have_header && a->pid == b->pid && a->ino == b->ino);
	FZ_CHECK(!strcmp(a->tool, b->tool) && !strcmp(a->key, b->key) && !strcmp(a->netns, b->netns));
	FZ_CHECK(a->n == b->n);
	for (int i = 0; i < a->n; i++) {
		FZ_CHECK(a->r[i].nf == b->r[i].nf);
		for (int k = 0; k < a->r[i].nf; k++)
			FZ_CHECK(!strcmp(a->r[i].f[k], b->r[i].f[k]));
	}
}

static void check_sockopt(const struct nm_journal_rec *r)
{
	char bufs[TS_KICK_FIELDS][64];
	const char *f[TS_KICK_FIELDS + 1];
	struct ts_key k, k2;
	int nd, nd2;

	/* the executor gets the fields after the kind, as undo_plan() hands them */
	if (ts_kick_parse((const char *const *)r->f + 1, r->nf - 1, &k, &nd))
		return;
	FZ_CHECK(nd == 0 || nd == 1);
	ts_kick_record(&k, nd, bufs, f);
	FZ_CHECK(ts_kick_parse(f, TS_KICK_FIELDS, &k2, &nd2) == 0);
	FZ_CHECK(!memcmp(&k, &k2, sizeof(k)) && nd == nd2);
}

static void check(const struct nm_journal_parsed *p, size_t size)
{
	struct nm_journal_parsed again;
	size_t len;
	char *text;

	for (int i = 0; i < p->n; i++) {
		const struct nm_journal_rec *r = &p->r[i];

		FZ_CHECK(r->nf >= 2 && !r->f[r->nf]);
		FZ_CHECK(r->off > 0 && (size_t)r->off < size && (!i || r->off > p->r[i - 1].off));
		if (!strcmp(r->f[0], "sockopt"))
			check_sockopt(r);
	}
	if (!p->have_header)
		return;
	text = rewrite(p, size, &len);
	FZ_CHECK(nm_journal_parse(text, len, &again) == 0);
	same(p, &again);
	nm_journal_parsed_free(&again);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct nm_journal_parsed p;
	char *buf = malloc(size ? size : 1);

	FZ_CHECK(buf);
	memcpy(buf, data, size);
	/* no NUL after the text: the parse must not need one */
	if (nm_journal_parse(buf, size, &p) == 0)
		check(&p, size);
	else
		FZ_CHECK(!p.buf && !p.n && p.why[0]);
	nm_journal_parsed_free(&p);
	return 0;
}
