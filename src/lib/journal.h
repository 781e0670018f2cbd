/* SPDX-License-Identifier: GPL-2.0 */
/*
 * journal.h - undo journal for remedies that change system state.
 *
 * Every change (sysfs/sysctl file write, tc command) is recorded with its
 * undo information and fsync'ed before it is made, so that a normal exit,
 * a signal, or `TOOL --cleanup` after a kill -9 can put the system back.
 *
 * File format (RUN_DIR/<tool>-<key>.journal), one line per record, fields
 * separated by tabs; "\\", "\t", "\n" and "\r" inside fields are written as
 * backslash escapes:
 *   netmedic-journal  1  <pid>  <tool>  <key>  <netns path or "">  <netns inode>
 *   file  <path>  <old content, verbatim>
 *   cmd   <undo argv[0]>  <argv[1]> ...
 *   <kind>  <field> ...   (a plan: data that the tool's executor for <kind> undoes)
 * A last line without its newline is a torn write from a crash and ignored.
 */
#ifndef NETMEDIC_LIB_JOURNAL_H
#define NETMEDIC_LIB_JOURNAL_H

#include <stddef.h>
#include <stdbool.h>
#include <stdio.h>
#include <sys/stat.h>
#include <sys/types.h>

#define NM_JOURNAL_DIR		"/run/netmedic"
#define NM_JOURNAL_DIR_ENV	"NETMEDIC_RUN_DIR"

struct nm_journal;

/* The run directory: NETMEDIC_RUN_DIR, else NM_JOURNAL_DIR. */
const char *nm_journal_dir(void);

/*
 * Opens (creates) RUN_DIR/<tool>-<key>.journal and takes an exclusive non-blocking flock on it, held while the tool
 * runs (a kill -9 releases it, so a later --cleanup can tell a dead owner). key is sanitised to [A-Za-z0-9_.-].
 * netns: the netns path the changes are made in ("" or NULL for the tool's own), recorded in the journal so that
 * cleanup can re-enter it. Returns 0; -EBUSY when another live process holds it (err says "another <tool> instance
 * (pid N) is already changing <key>"); -EEXIST when a stale journal with entries is present (err tells the user to
 * run `<tool> --cleanup` first); other -errno. Creates RUN_DIR (mode 0700) when missing; an existing RUN_DIR or
 * journal must be owned by the euid (or root) and not writable by group or others (nm_journal_check_stat), else -EPERM
 * (-ELOOP for a symlink) and err names it and says why.
 * A stale journal without entries is simply taken over; one that cannot be parsed gives -EBADMSG.
 * A netns given but not found gives -ENOENT. On any error *jp is NULL.
 */
int nm_journal_open(struct nm_journal **jp, const char *tool, const char *key, const char *netns, char *err, size_t errlen);

/*
 * Reads the current content of a file (e.g. a sysfs or /proc/sys file; trailing newline stripped), appends a record with
 * the old value to the journal, fsyncs, then writes new_value to the file. On write failure the record is removed again
 * (the journal must not claim a change that did not happen). old_out (may be NULL) receives the old value. 0 or -errno.
 * new_value is written as is, in one write(); the journal keeps the old content verbatim (newline included) so that
 * undo restores it byte for byte. Regular files are truncated to the new value.
 */
int nm_journal_set_file(struct nm_journal *j, const char *path, const char *new_value, char *old_out, size_t oldlen, char *err, size_t errlen);

/*
 * Records an undo command (argv, NULL-terminated, run with execvp without a shell, e.g. {"tc","filter","del",...}),
 * fsyncs it, then runs do_argv (write-ahead: a crash at any point leaves the undo on disk). do_argv may be NULL when
 * the caller already did the change itself. 0 or -errno. A do_argv that exits non-zero or is killed gives -EIO, one
 * that cannot be executed the execvp errno (e.g. -ENOENT); either way its record is taken back (a command that
 * failed is taken not to have changed anything). With do_argv NULL, if the record cannot be written, the undo
 * command is run at once so that no unjournaled change is left behind.
 * Commands get stdin from /dev/null and share stdout/stderr with the tool.
 */
int nm_journal_run(struct nm_journal *j, const char *const *do_argv, const char *const *undo_argv, char *err, size_t errlen);

/*
 * Records an undo command (as nm_journal_run) ahead of a change the caller
 * is about to make itself, through libbpf say: write-ahead, so a crash
 * after the change leaves the undo on disk. Unlike nm_journal_run with
 * do_argv NULL, a record that cannot be written runs nothing: the change
 * is not made yet, and the undo could take away what someone else made
 * (a clsact qdisc that was there). Take the record back with
 * nm_journal_rewind when the change fails. 0 or -errno.
 */
int nm_journal_ahead(struct nm_journal *j, const char *const *undo_argv, char *err, size_t errlen);

/*
 * Undo every record in reverse order (restoring files to their old values, running undo commands), log one line per
 * undo to the FILE log (may be NULL) such as "restored /sys/.../xps_cpus to 00000001", then unlink the journal,
 * release the lock and free. Returns 0 or the first -errno (but still tries every record).
 * Each undone record is cut off the journal (fsync'ed), so a crash during undo leaves only what is still to do.
 * The records whose undo failed are kept: the journal is rewritten (atomically) with only those, and the log says
 * what is left and that `<tool> --cleanup` retries it.
 * Does not change netns: call it in the netns the changes were made in. NULL j is a no-op.
 */
int nm_journal_undo(struct nm_journal *j, FILE *log);

/*
 * A change that neither a file write nor a command undoes (e.g. a socket
 * option, set from BPF): the journal keeps it as data, a kind and its
 * fields, and the tool registers the one executor that applies such a
 * plan at undo time, at exit or in --cleanup. The journal stays a list of
 * plans, never of code.
 *
 * An executor undoes one record (fields[0] is the first field after the
 * kind; NULL-terminated, nfields of them). It writes one line for the log
 * into msg ("restored TCP_NODELAY of ... to 0", or why it failed) and
 * returns 0, or -errno when the change could not be undone.
 */
typedef int (*nm_journal_exec_fn)(const char *const *fields, int nfields, char *msg, size_t msglen,
				  void *arg);

#define NM_JOURNAL_KINDS	4	/* executors a process may register */

#define NM_JOURNAL_CMDS		12	/* commands a process may allow */

/*
 * Allows a `cmd` record to run argv0 at undo ("tc", "ip"; compared as
 * written, so "/sbin/tc" is another command). A record naming any other
 * command is not run: its undo fails with -EPERM and it is kept. Nothing
 * is allowed until the tool says so; call it before undo or cleanup.
 * 0, -ENOSPC when full, -EINVAL.
 */
int nm_journal_allow_cmd(const char *argv0);

/*
 * Registers (or replaces) the executor of kind, a lowercase word other
 * than "file" and "cmd". Call it before undo or cleanup. 0 or -errno.
 */
int nm_journal_exec(const char *kind, nm_journal_exec_fn fn, void *arg);

/*
 * Appends a record of kind (fields NULL-terminated, at least one) and
 * fsyncs it: call it before making the change it undoes. 0 or -errno.
 */
int nm_journal_add(struct nm_journal *j, const char *kind, const char *const *fields, char *err,
		   size_t errlen);

/* A point in a journal: the records added after it can be dropped at once. */
struct nm_journal_mark {
	long end;
	int count;
};

void nm_journal_mark(const struct nm_journal *j, struct nm_journal_mark *m);

/*
 * Drops every record added since m (fsync'ed): the caller has undone those
 * changes itself, e.g. a kick whose BPF program put the old value back.
 * 0 or -errno; -EINVAL for a mark past the end.
 */
int nm_journal_rewind(struct nm_journal *j, const struct nm_journal_mark *m);

/* Number of records so far (tests and logs use it). */
int nm_journal_count(const struct nm_journal *j);

/*
 * For --cleanup after a crash: for every RUN_DIR/<tool>-*.journal whose lock can be taken (owner dead), re-enter the
 * recorded netns in a forked child (using nm_netns_enter) when it is not the current one, undo as above, and remove
 * the journal. Journals held by a live process are left alone and reported. If the recorded netns no longer exists,
 * say so in the log and remove the journal (nothing left to restore); likewise when the path now names another netns
 * (a different inode). A recorded path that is not a netns at all is left in place. Returns the number of journals
 * undone, or -errno.
 * Only a RUN_DIR and journals that pass nm_journal_check_stat are read: anything else is refused with a line naming
 * it and why, and nothing it says is run. Failed undos keep their records, as nm_journal_undo.
 * -errno is also returned (after trying every journal) when some undo step failed or a journal could not be handled,
 * so that --cleanup can exit non-zero. A journal made in the tool's own netns (no path recorded) whose netns inode
 * differs from the current one is left alone: run --cleanup inside that netns.
 */
int nm_journal_cleanup(const char *tool, FILE *log);

/* A journal's text read back; fields point into buf. */
struct nm_journal_rec {
	char **f;		/* f[0] is the kind, NULL-terminated */
	int nf;
	off_t off;		/* start of the line: undo cuts back to it */
};

struct nm_journal_parsed {
	char *buf;
	bool have_header;
	long pid;
	const char *tool, *key, *netns;
	unsigned long ino;
	struct nm_journal_rec *r;
	int n;
	char why[160];		/* what is wrong, when nm_journal_parse says -EBADMSG */
};

/*
 * Parses a journal's text (the format above) without acting on any of it:
 * what --cleanup and open read back, split from what they do with it.
 * buf (malloc'd, len bytes; the parse writes into it) becomes p->buf, and
 * nm_journal_parsed_free(p) frees it; on error it is freed already. An
 * empty text, or a header still torn, is a journal with neither header
 * nor records; records are only the lines whose newline was written.
 * 0, -EBADMSG with p->why ("line 2: ..."), or -ENOMEM.
 */
int nm_journal_parse(char *buf, size_t len, struct nm_journal_parsed *p);
void nm_journal_parsed_free(struct nm_journal_parsed *p);

/*
 * Whether a run directory (want S_IFDIR) or a journal (S_IFREG) may be
 * trusted, from its lstat: of that type, not a symlink, owned by euid and
 * not writable by group or others (sshd's StrictModes). 0, or -errno with
 * the reason in why ("is owned by uid 65534, not 0").
 */
int nm_journal_check_stat(const struct stat *st, mode_t want, uid_t euid, char *why, size_t len);

#endif /* NETMEDIC_LIB_JOURNAL_H */
