// SPDX-License-Identifier: GPL-2.0
/*
 * run.c - the lifecycle every tool shares (run.h): the order of the checks,
 * the load, the change, the report loop and the undo, written once.
 */
#include <unistd.h>
#include "lib/journal.h"
#include "lib/run.h"
#include "lib/tcundo.h"
#include "lib/selfstats.h"

void nm_ticker_init(struct nm_ticker *k, double interval, long count, bool grid)
{
	*k = (struct nm_ticker){ .interval_ns = (uint64_t)(interval * 1e9), .count = count,
				 .grid = grid };
}

bool nm_ticker_more(const struct nm_ticker *k, bool exiting)
{
	return !exiting && (!k->count || k->done < k->count);
}

uint64_t nm_ticker_next(struct nm_ticker *k, uint64_t now)
{
	k->done++;
	if (!k->grid)
		return now + k->interval_ns;
	k->deadline = nm_next_deadline(k->deadline, k->interval_ns, now);
	return k->deadline;
}

int nm_run_report(const struct nm_tool *t, void *skel)
{
	const struct nm_emit_self self = { .tool = t->o->tool, .obj = nm_skel_obj(skel),
					   .hooks = t->hooks, .nhooks = t->skel->nhooks };
	struct nm_emit e = {};
	int ret = t->report(skel, &e);

	if (ret)
		return ret == NM_RUN_SKIP ? 0 : ret;
	nm_emit(t->o, &e, &self);
	if (t->after)
		t->after(skel);
	return 0;
}

/* The CLI's report when its tool's own loop has one due. */
static int due_report(const struct nm_due *d)
{
	return nm_run_report(d->tool, d->skel);
}

/* A signal cuts the interval short; its report is still made. */
static int interval_loop(const struct nm_tool *t, void *skel)
{
	struct nm_ticker k;
	int ret = 0;

	nm_ticker_init(&k, t->o->interval, t->o->count, t->grid);
	while (!ret && nm_ticker_more(&k, nm_exiting)) {
		nm_sleep_until(nm_ticker_next(&k, nm_mono_ns()));
		ret = nm_run_report(t, skel);
	}
	return ret;
}

/* An answer that ends the run (--cleanup, --list-fixes): its status, 0 too. */
static int done(int ret)
{
	return ret ? ret : NM_RUN_DONE;
}

int nm_run_conflict(const struct nm_tool *t)
{
	const char *remedy = t->remedy ? t->remedy() : NULL;
	char why[160];

	if (nm_opts_conflict(t->o, *t->list_fixes, remedy, why, sizeof(why)))
		return nm_err(t->o, NM_EXIT_USAGE, "%s", why);
	return 0;
}

/* Before the load: everything that answers without BPF, in this order. */
static int before_load(const struct nm_tool *t)
{
	int ret;

	nm_install_signals();	/* before anything is changed */
	/* the undo of tc records, at exit and in --cleanup, for every tool's journals */
	if (nm_tc_undo_register()) {
		fprintf(stderr, "%s: error: cannot register the undo of tc records\n", t->o->tool);
		return NM_EXIT_RUNTIME;
	}
	if (t->caps)
		t->caps(t->o);
	if ((ret = nm_run_conflict(t)))
		return ret;
	if (t->check && (ret = t->check()))
		return ret;
	if (t->o->cleanup)
		return done(t->cleanup ? t->cleanup(t->o, t->skel) : nm_cleanup_main(t->o));
	if (*t->list_fixes && t->list)
		return done(t->list(t->o, t->skel));
	ret = nm_setup(t->o);
	if (ret)
		return ret;
	if (*t->list_fixes) {
		if (t->o->json)
			nm_fixes_list_json(stdout, t->fixes, t->nfixes, t->o->tool);
		else
			nm_fixes_list(stdout, t->fixes, t->nfixes);
		return NM_RUN_DONE;
	}
	return t->setup ? t->setup() : 0;
}

/* The change (with its stop point) and the drop, in the tool's order. */
static int change_and_drop(const struct nm_tool *t, void *skel)
{
	int ret = 0;

	if (t->drop_before_change && (ret = nm_caps_after_attach(t->o)))
		return ret;
	if (t->changes && t->changes()) {
		nm_test_stop("change");
		ret = t->change(skel);
	}
	if (!ret && !t->drop_before_change)
		ret = nm_caps_after_attach(t->o);
	return ret;
}

/*
 * After the drop: the server's thread would otherwise start with the set
 * the main thread held, and --netns's unshare needs a single thread.
 */
static int listen_start(struct nm_opts *o)
{
	char err[160];

	if (!o->http || !nm_listen_start(o->http, err, sizeof(err)))
		return 0;
	return nm_err(o, NM_EXIT_RUNTIME, "--listen %s: %s", o->listen.text, err);
}

static int first_line(const struct nm_tool *t, void *skel)
{
	struct nm_first l = {};
	int ret;

	nm_emit_devices(t->o, l.devices, sizeof(l.devices));
	ret = t->first(skel, &l);
	if (ret)
		return ret == NM_RUN_SKIP ? 0 : ret;
	nm_emit_first(t->o, &l, t->hooks, t->skel->nhooks);
	return 0;
}

/* From the load on: what was loaded and changed is undone and freed here. */
static int run_loaded(const struct nm_tool *t, void *skel)
{
	int stats_fd = -1, ret = 0, stop;

	if (t->o->bpf_stats)
		stats_fd = nm_self_enable_stats(t->o);
	if (t->start)
		ret = t->start(skel);
	if (!ret)
		ret = change_and_drop(t, skel);
	if (!ret)
		ret = listen_start(t->o);
	if (!ret && t->first)
		ret = first_line(t, skel);
	if (!ret && t->ready)
		ret = t->ready(skel);
	if (!ret && t->loop)
		ret = nm_exiting ? 0 : t->loop(skel, &(const struct nm_due){ due_report, t, skel });
	else if (!ret)
		ret = interval_loop(t, skel);
	stop = t->stop ? t->stop() : 0;
	if (stop && ret <= 0)
		ret = stop;
	if (stats_fd >= 0)
		close(stats_fd);
	return ret;
}

static int run(const struct nm_tool *t)
{
	void *skel = NULL;
	int ret = before_load(t);

	if (ret)
		return ret;
	nm_test_stop("load");
	ret = nm_skel_load(t->o, t->skel, &skel, t->hooks);
	if (ret)
		ret = ret == NM_SKEL_LISTED ? NM_EXIT_OK : ret;
	else if (!nm_exiting || t->signal_in_load_goes_on)
		ret = run_loaded(t, skel);	/* else a signal during the load: nothing was changed */
	if (t->free)
		t->free(skel);
	if (skel)
		t->skel->destroy(skel);
	return ret;
}

int nm_run(const struct nm_tool *t)
{
	int ret = run(t);

	nm_listen_free(t->o->http);
	t->o->http = NULL;
	/* all undone by now: a reader that went away ends it as SIGPIPE would */
	return nm_out_exit_status(ret == NM_RUN_DONE ? NM_EXIT_OK : ret);
}

int nm_main(const struct nm_tool *t, int argc, char **argv)
{
	nm_journal_allow_cmd(t->undo_cmd);
	t->parse(argc, argv);
	return nm_run(t);
}
