#!/usr/bin/env bash
# make test: unit tests, then integration tests; one closing line for both.
set -u
here=$(dirname "$0")
u=$("$here/run-unit.sh" "$@" | tee /dev/stderr | tail -1)
i=$("$here/run-integration.sh" | tee /dev/stderr | tail -1)
count() { echo "$1" | sed -n "s/.* \([0-9]*\) $2.*/\1/p"; }
p=$(( $(count "$u" passed) + $(count "$i" passed) ))
f=$(( $(count "$u" failed) + $(count "$i" failed) ))
echo "netmedic: $p passed, $f failed"
[ "$f" = 0 ]
