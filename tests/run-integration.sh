#!/usr/bin/env bash
# Runs the bats integration suite against the real kernel. It needs root,
# kernel BTF and BPF: when any is missing it fails and says why (a silent
# skip would report a broken project as tested).
set -u
cd "$(dirname "$0")/integration" || exit 1
: "${NETMEDIC_BUILD:?set NETMEDIC_BUILD to the build directory}"
export NETMEDIC_BUILD

fail() { echo "integration: cannot run: $*" >&2; echo "integration: 0 passed, 1 failed"; exit 1; }
[ "$(id -u)" = 0 ] || fail "needs root (BPF programs, network namespaces)"
[ -r /sys/kernel/btf/vmlinux ] || fail "no kernel BTF at /sys/kernel/btf/vmlinux"
command -v bats >/dev/null || fail "bats is not installed (make deps)"
[ -d /usr/lib/bats/bats-assert ] || fail "bats-assert is not installed (make deps)"

files=${BATS_FILES:-$(ls ./*.bats)}
out=$(mktemp)
# TAP output keeps the count machine-readable; it is echoed as it comes.
# BATS_FILTER_TAGS: only the tests these tags select (bats --filter-tags;
# one list, its tags all required).
# NM_JOBS (1 if unset): with more, the files run that many at a time (bats
# --jobs, GNU parallel), the tests of one file one after another, as its
# lab and its run directory are its own (helpers.bash); then the tests
# tagged serial, one file at a time with nothing beside them: those that
# look at the whole host (a tool with no --netns whose checks count what it
# sees, the namespace churn) or measure something a sibling's load would
# change. docs/RELIABILITY.md lists them and says why.
tags=${BATS_FILTER_TAGS:-}
# NM_PHASES: which of the two to run, "parallel serial" unless set (a
# caller may run one phase alone)
# serial tests later, alone: tests/run-all.sh)
phases=${NM_PHASES:-parallel serial}
rc=0
: >"$out"
jobs=${NM_JOBS:-1}
if [ "$jobs" -le 1 ] && [ "$phases" = "parallel serial" ]; then
	bats --tap --timing ${tags:+--filter-tags "$tags"} $files | tee "$out"
	rc=${PIPESTATUS[0]}
else
	side=()
	if [ "$jobs" -gt 1 ]; then
		command -v parallel >/dev/null || fail "GNU parallel is not installed (make deps), and NM_JOBS=$jobs asks for it"
		side=(--jobs "$jobs" --no-parallelize-within-files)
	fi
	case " $phases " in *" parallel "*)
		echo "# side by side, $jobs files at a time: the tests not tagged serial"
		bats --tap --timing "${side[@]}" --filter-tags "${tags:+$tags,}!serial" $files | tee -a "$out"
		[ "${PIPESTATUS[0]}" = 0 ] || rc=1
	esac
	case " $phases " in *" serial "*)
		echo "# alone: the tests tagged serial"
		bats --tap --timing --filter-tags "${tags:+$tags,}serial" $files | tee -a "$out"
		[ "${PIPESTATUS[0]}" = 0 ] || rc=1
	esac
fi
# each file's journal folder (helpers.bash), if its tools left it empty;
# one that holds a journal stays, for a test's teardown or --cleanup missed it
rmdir "${NETMEDIC_RUN_DIR:-/run/netmedic}"/*/ 2>/dev/null
# a skipped test tested nothing: it is not counted as passed but as failed
skipped=$(grep -cE '^ok [0-9]+ .*# skip' "$out")
pass=$(( $(grep -c '^ok ' "$out") - skipped ))
failed=$(( $(grep -c '^not ok ' "$out") + skipped ))
rm -f "$out"
[ "$skipped" -gt 0 ] && echo "integration: $skipped test(s) skipped, counted as failed"
[ $rc -ne 0 ] && [ "$failed" = 0 ] && failed=1
echo "integration: $pass passed, $failed failed"
[ "$skipped" = 0 ] || rc=1
[ $rc = 0 ]
