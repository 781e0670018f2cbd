// SPDX-License-Identifier: GPL-2.0
/*
 * --list-fixes. Each probe asks the kernel what the remedy itself would
 * need, so the verdict is what --fix would meet: a sysctl that is absent
 * in this kernel or read-only in this namespace, a program the verifier
 * or a policy refuses, a struct_ops type the kernel was not built with.
 */
#include <errno.h>
#include <fcntl.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <bpf/btf.h>
#include "lib/fixes.h"
#include "lib/plan.h"
#include "lib/record.h"

int nm_fix_probe_file(const struct nm_fix *f, char *why, size_t len)
{
	int fd = open(f->arg, O_WRONLY | O_CLOEXEC);

	if (fd >= 0) {
		close(fd);
		return 0;
	}
	if (errno == ENOENT)
		snprintf(why, len, "%s: absent in this kernel or namespace", f->arg);
	else
		snprintf(why, len, "%s: %s", f->arg, strerror(errno));
	return -errno;
}

int nm_fix_probe_sysctl(const struct nm_fix *f, char *why, size_t len)
{
	struct nm_fix file = *f;
	char path[512];

	if (nm_sysctl_path(NULL, f->arg, path, sizeof(path))) {
		snprintf(why, len, "%s: not a sysctl name", f->arg);
		return -EINVAL;
	}
	file.arg = path;
	return nm_fix_probe_file(&file, why, len);
}

int nm_fix_probe_cmd(const struct nm_fix *f, char *why, size_t len)
{
	const char *path = getenv("PATH");
	char buf[4096], dir[1024];

	while (path && *path) {
		size_t n = strcspn(path, ":");

		snprintf(dir, sizeof(dir), "%.*s", (int)n, path);
		snprintf(buf, sizeof(buf), "%s/%s", *dir ? dir : ".", f->arg);
		if (!access(buf, X_OK))
			return 0;
		path += n + (path[n] == ':');
	}
	snprintf(why, len, "no %s command on PATH", f->arg);
	return -ENOENT;
}

int nm_fix_probe_btf_type(const struct nm_fix *f, char *why, size_t len)
{
	const char *path = getenv("NETMEDIC_BTF");
	struct btf *btf = path ? btf__parse(path, NULL) : btf__load_vmlinux_btf();
	int id;

	if (!btf) {
		snprintf(why, len, "cannot read kernel BTF: %s", strerror(errno));
		return -errno;
	}
	id = btf__find_by_name(btf, f->arg);
	btf__free(btf);
	if (id > 0)
		return 0;
	snprintf(why, len, "%s: not in kernel BTF", f->arg);
	return -ENOENT;
}

int nm_fix_probe_prog(const struct nm_fix *f, char *why, size_t len)
{
	return nm_skel_probe_prog(f->ops, f->arg, why, len);
}

#define R(f)	offsetof(struct fix_row, f)

/* A remedy probed: its line of the table, or its JSON line, from the one field list */
struct fix_row {
	const char *fix, *lever;
	char verdict[272];
};

static const struct nm_field fix_fields[] = {
	{ .json = "fix", .type = NM_REC_STRP, .off = R(fix), .col = "FIX", .colno = 1, .width = -10 },
	{ .json = "lever", .type = NM_REC_STRP, .off = R(lever), .col = "LEVER", .colno = 2,
	  .width = -56 },
	{ .json = "verdict", .type = NM_REC_STR, .off = R(verdict), .col = "VERDICT", .colno = 3,
	  .width = -7 },
};

static const struct nm_record fix_rec = NM_RECORD("fix", fix_fields);

/* Each remedy probed: a table, or with tool a JSON line a remedy stamped with it. */
static int list(FILE *out, const struct nm_fix *fixes, int n, const char *tool)
{
	struct fix_row *rows = calloc(n > 0 ? n : 1, sizeof(*rows));
	time_t now = time(NULL);
	int allowed = 0;

	if (!rows)
		return -ENOMEM;
	for (int i = 0; i < n; i++) {
		struct fix_row *r = &rows[i];
		char why[256] = "";
		int err = fixes[i].probe ? fixes[i].probe(&fixes[i], why, sizeof(why)) : 0;

		*r = (struct fix_row){ .fix = fixes[i].name, .lever = fixes[i].lever };
		/* a lever of two ways: the probe that allows it may say which one ("by ...") */
		snprintf(r->verdict, sizeof(r->verdict), "%s%s%s", err ? "not allowed: " : "allowed",
			 !err && why[0] ? " " : "", why);
		if (tool)
			nm_rec_json_at(out, &fix_rec, r, tool, now);
		allowed += !err;
	}
	if (!tool)
		nm_rec_table(out, &fix_rec, rows, sizeof(*rows), n, 0, NULL);
	free(rows);
	fflush(out);
	return allowed;
}

int nm_fixes_list(FILE *out, const struct nm_fix *fixes, int n)
{
	return list(out, fixes, n, NULL);
}

int nm_fixes_list_json(FILE *out, const struct nm_fix *fixes, int n, const char *tool)
{
	return list(out, fixes, n, tool);
}
