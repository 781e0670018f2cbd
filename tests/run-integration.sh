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
# BATS_FILTER_TAGS: only the tests these tags select (bats --filter-tags)
bats --tap ${BATS_FILTER_TAGS:+--filter-tags "$BATS_FILTER_TAGS"} $files | tee "$out"
rc=${PIPESTATUS[0]}
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
