// SPDX-License-Identifier: GPL-2.0
/*
 * Unit tests for the reports' stream whose reader went away (src/lib/
 * output.c: nm_out_flush, nm_out_exit_status): `TOOL --json | head -1`.
 * The state is the process's, once set: the tests that need it unset run
 * in a child, or first.
 */
#include <errno.h>
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/wait.h>
#include <cmocka.h>

#include "lib/cli.h"
#include "lib/output.h"

/* A stream on a pipe's write end; the read end in *rd. */
static FILE *pipe_stream(int *rd)
{
	int fds[2];
	FILE *f;

	assert_int_equal(pipe(fds), 0);
	f = fdopen(fds[1], "w");
	assert_non_null(f);
	*rd = fds[0];
	return f;
}

/* A child's end: its exit status, or 128 + the signal it died of. */
static int child_status(pid_t pid)
{
	int st;

	assert_int_equal(waitpid(pid, &st, 0), pid);
	return WIFSIGNALED(st) ? 128 + WTERMSIG(st) : WEXITSTATUS(st);
}

/* A reader that still reads: the line goes, nothing ends. */
static void test_open_pipe(void **state)
{
	char buf[16] = "";
	FILE *f;
	int rd;

	(void)state;
	f = pipe_stream(&rd);
	fputs("{\"a\":1}\n", f);
	assert_true(nm_out_flush(f));
	assert_int_equal(read(rd, buf, sizeof(buf) - 1), 8);
	assert_string_equal(buf, "{\"a\":1}\n");
	assert_false(nm_out_closed());
	assert_int_equal(nm_exiting, 0);
	assert_int_equal(nm_out_exit_status(0), 0);
	fclose(f);
	close(rd);
}

/*
 * A line longer than the stream's buffer: stdio writes it while it is
 * made, the EPIPE is the stream's error flag, and errno is long gone when
 * the flush comes; the pipe's own state still says its reader is gone.
 */
static void test_error_seen_before_the_flush(void **state)
{
	char line[200], sbuf[16];
	pid_t pid;

	(void)state;
	memset(line, 'x', sizeof(line) - 1);
	line[sizeof(line) - 1] = 0;
	pid = fork();
	assert_true(pid >= 0);
	if (!pid) {
		int rd;
		FILE *f = pipe_stream(&rd);

		signal(SIGPIPE, SIG_IGN);
		setvbuf(f, sbuf, _IOFBF, sizeof(sbuf));
		close(rd);
		fputs(line, f);
		errno = 0;
		_exit(!nm_out_flush(f) && nm_out_closed() && nm_exiting ? 0 : 1);
	}
	assert_int_equal(child_status(pid), 0);
}

/*
 * The reader closed its end: the flush fails with EPIPE, and the run is
 * asked to end as a signal asks it (nm_exiting), not killed: SIGPIPE is
 * ignored, as nm_install_signals has it.
 */
static void test_closed_pipe_ends_the_run(void **state)
{
	FILE *f;
	int rd;

	(void)state;
	signal(SIGPIPE, SIG_IGN);
	f = pipe_stream(&rd);
	close(rd);
	fputs("{\"type\":\"interval\"}\n", f);
	assert_false(nm_out_flush(f));
	assert_true(nm_out_closed());
	assert_int_equal(nm_exiting, 1);
	/* said again at the next write, never a crash */
	fputs("{\"type\":\"interval\"}\n", f);
	assert_false(nm_out_flush(f));
	fclose(f);
}

/* A failed undo says so (1), closed pipe or not; a clean end dies by SIGPIPE: 141 in the shell. */
static void test_exit_status(void **state)
{
	pid_t pid;

	(void)state;
	assert_true(nm_out_closed());
	assert_int_equal(nm_out_exit_status(NM_EXIT_RUNTIME), NM_EXIT_RUNTIME);
	assert_int_equal(nm_out_exit_status(NM_EXIT_USAGE), NM_EXIT_USAGE);
	pid = fork();
	assert_true(pid >= 0);
	if (!pid)
		_exit(nm_out_exit_status(NM_EXIT_OK) == 141 ? 3 : 4);	/* not reached */
	assert_int_equal(child_status(pid), 128 + SIGPIPE);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_open_pipe),
		cmocka_unit_test(test_error_seen_before_the_flush),
		cmocka_unit_test(test_closed_pipe_ends_the_run),
		cmocka_unit_test(test_exit_status),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
