#!/usr/bin/env bash
# Runs each cmocka unit-test binary given on the command line; prints
# "unit: N passed, N failed" (tests, not binaries) and fails if any failed.
set -u
pass=0 fail=0
for t in "$@"; do
	out=$("$t" 2>&1)
	rc=$?
	printf '%s\n' "$out"
	p=$(printf '%s\n' "$out" | sed -n 's/.*\[  PASSED  \] \([0-9]*\) test.*/\1/p' | tail -1)
	f=$(printf '%s\n' "$out" | sed -n 's/.*\[  FAILED  \] \([0-9]*\) test.*/\1/p' | tail -1)
	pass=$((pass + ${p:-0}))
	fail=$((fail + ${f:-0}))
	# a crash or a binary that ran nothing is a failure too
	if [ $rc -ne 0 ] && [ "${f:-0}" = 0 ]; then fail=$((fail + 1)); echo "unit: $t exited $rc"; fi
	if [ -z "$p" ] && [ -z "$f" ]; then fail=$((fail + 1)); echo "unit: $t ran no test"; fi
done
echo "unit: $pass passed, $fail failed"
[ "$fail" = 0 ]
