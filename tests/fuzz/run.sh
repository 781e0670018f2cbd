#!/usr/bin/env bash
# Runs each libFuzzer harness given (build/fuzz/fuzz_NAME) for FUZZ_SECONDS
# (default 300) from its committed seeds, tests/fuzz/corpus/NAME. What it
# finds goes to build/fuzz/corpus/NAME (the seeds stay as committed), a
# crash's input to build/fuzz/artifacts/NAME/, the full output to
# build/fuzz/NAME.log. Prints one line per harness, the reproducer of any
# crash, and "fuzz: N passed, N failed" (harnesses); fails if any failed.
# NM_JOBS harnesses run at once (1 unless set): each is one process on one
# CPU, so two on two CPUs each get the FUZZ_SECONDS of CPU they get alone.
set -u
here=$(cd "$(dirname "$0")" && pwd)
secs=${FUZZ_SECONDS:-300}
jobs=${NM_JOBS:-1}
res=$(mktemp -d)
trap 'rm -rf "$res"' EXIT

# fuzz_one BIN: runs one harness; its lines to stdout, its exit 0 or 1
fuzz_one() {
	local bin=$1 name out seeds work art log rc runs took cov files f
	name=$(basename "$bin")
	name=${name#fuzz_}
	out=$(dirname "$bin")
	seeds=$here/corpus/$name
	work=$out/corpus/$name
	art=$out/artifacts/$name
	log=$out/$name.log
	mkdir -p "$work" "$art"
	if [ ! -x "$bin" ] || [ ! -d "$seeds" ]; then
		echo "fuzz: $name: no harness $bin or no seeds in $seeds"
		return 1
	fi
	# -timeout: an input that takes 10 s is a hang, and fails as one
	"$bin" -max_total_time="$secs" -timeout=10 -print_final_stats=1 \
		-artifact_prefix="$art/" "$work" "$seeds" >"$log" 2>&1
	rc=$?
	runs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log" | tail -1)
	took=$(sed -n 's/^Done [0-9]* runs in \([0-9]*\) second.*/\1/p' "$log" | tail -1)
	# coverage: edges of netmedic's code (libmnl, libc are not instrumented)
	cov=$(sed -n 's/.*DONE *cov: \([0-9]*\).*/\1/p' "$log" | tail -1)
	files=$(find "$work" -type f | wc -l)
	if [ $rc = 0 ]; then
		echo "fuzz: $name: ${runs:-?} inputs in ${took:-$secs} s, ${cov:-?} edges covered, $files inputs kept in $work, no crash"
		return 0
	fi
	echo "fuzz: $name: FAILED (exit $rc) after ${runs:-?} inputs; the end of $log:"
	grep -E 'ERROR|SUMMARY|check failed|runtime error|#[0-9]+ 0x' "$log" | head -20
	for f in $(sed -n 's/.*Test unit written to \(.*\)$/\1/p' "$log"); do
		echo "fuzz: $name: reproducer saved as $f (replay: $bin $f)"
	done
	return 1
}

i=0
for bin in "$@"; do
	while [ "$(jobs -rp | wc -l)" -ge "$jobs" ]; do wait -n; done
	i=$((i + 1))
	{ fuzz_one "$bin" >"$res/$i" 2>&1; echo $? >"$res/$i.rc"; } &
done
wait
# in the order given, whatever order they ended in
pass=0 fail=0
for ((n = 1; n <= i; n++)); do
	cat "$res/$n"
	if [ "$(cat "$res/$n.rc")" = 0 ]; then pass=$((pass + 1)); else fail=$((fail + 1)); fi
done
echo "fuzz: $pass passed, $fail failed"
[ "$fail" = 0 ]
