#!/usr/bin/env bash
# make test: for each build directory given (plain, then sanitized), the
# unit tests and the integration suite; one closing line for everything.
set -u
here=$(cd "$(dirname "$0")" && pwd)
p=0 f=0
tally() {
	local line=$1
	p=$((p + $(echo "$line" | sed -n 's/.* \([0-9]*\) passed.*/\1/p')))
	f=$((f + $(echo "$line" | sed -n 's/.* \([0-9]*\) failed.*/\1/p')))
}
for b in "$@"; do
	b=$(cd "$b" && pwd) || { echo "no build directory $b"; f=$((f + 1)); continue; }
	echo "== unit tests ($b)"
	tally "$("$here/run-unit.sh" "$b"/tests/test_* | tee /dev/stderr | tail -1)"
	echo "== integration tests ($b)"
	tally "$(NETMEDIC_BUILD=$b "$here/run-integration.sh" | tee /dev/stderr | tail -1)"
done
echo "netmedic: $p passed, $f failed"
[ "$f" = 0 ]
