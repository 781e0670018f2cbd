#!/usr/bin/env bash
# make test: for each build directory given (plain, then sanitized), the
# unit tests and the integration suite; one closing line for everything.
# With the first build, the detection suites run a second time with every
# tp_btf program and qdiscstuck's sampler refused (NETMEDIC_REFUSE,
# docs/KERNELS.md): each detection must hold on the raw_tp rungs a kernel
# without tp_btf would leave, and on qdisc events without the sampler.
# With the other builds (the sanitized one), the integration suite runs as
# nobody: every CLI the tests run holds exactly the capabilities its
# --print-caps names for that command line (tests/as-nobody.sh), as a unit
# with DynamicUser would, and ASan, UBSan and LSan watch it there (LSan
# works as nobody with ambient capabilities, after the tools drop theirs).
# One pass for both: a plain pass as nobody and a sanitized pass as root
# took 12 and 13 minutes of CI's 90. Tests tagged root are about root
# itself (what root keeps after attach, --list-fixes' verdicts for root, a
# journal another user owns): they run as root, in a short pass after. Those
# tagged prometheus (the end to end against a real Prometheus) and deb (make
# deb's package, installed and purged: it builds its own CLIs) run once,
# with the first build.
# The Prometheus rules and dashboard are checked once, before the builds
# (tools/prometheus/check.sh); the end-to-end run against a real
# Prometheus is an integration test (prometheus.bats).
# NETMEDIC_FUZZ (make test sets it): the fuzz harnesses, each run for 20 s
# (tests/fuzz/run.sh); a crash or a sanitizer report fails the run.
set -u
here=$(cd "$(dirname "$0")" && pwd)
# shellcheck source=SCRIPTDIR/../tools/tools.sh
. "$here/../tools/tools.sh"
p=0 f=0
res=$(mktemp)
trap 'rm -f "$res"' EXIT
# run CMD...: its output on stdout as it comes, its closing line counted.
# (tee to a file, not tee /dev/stderr: when stderr is a log file,
# reopening it through /dev/stderr truncates what was written before)
run() {
	"$@" | tee "$res"
	tally "$(tail -1 "$res")"
}
tally() {
	local line=$1
	p=$((p + $(echo "$line" | sed -n 's/.* \([0-9]*\) passed.*/\1/p')))
	f=$((f + $(echo "$line" | sed -n 's/.* \([0-9]*\) failed.*/\1/p')))
}
# as_nobody_build DIR: a build directory beside DIR's, each CLI there
# tests/as-nobody.sh (the agent too), the rest links to DIR's; its path. Under /var/tmp, on a
# path that nobody may search, as the real build's must be.
as_nobody_build() {
	local d f
	d=$(mktemp -d /var/tmp/netmedic-nobody.XXXXXX) && chmod 0755 "$d" || return 1
	for f in "$1"/*; do
		ln -s "$f" "$d/"
	done
	for f in $(nm_programs); do
		rm -f "$d/$f"
		ln -s "$here/as-nobody.sh" "$d/$f"
	done
	echo "$d"
}
# The namespace churn (scope_churn.bats) runs 1,000 cycles in the first
# pass, about 3.5 minutes; the sanitized pass as nobody looks for what
# differs there (an error line as nobody, a sanitizer report or a leak at
# exit), which 200 cycles show as well: an fd leaked a netns would still be
# 200 fds. The RSS bound (8 MiB) tells a per-netns leak over 1,000 cycles,
# so it counts in the first pass (ASan checks leaks with LSan instead).
CHURN_AGAIN=${NM_CHURN_CYCLES_AGAIN:-200}
# once, whatever the build: the alerting rules, their promtool unit tests
# and the dashboard's exprs (tools/prometheus/check.sh, make check-rules)
echo "== Prometheus rules and dashboard (promtool)"
run "$here/../tools/prometheus/check.sh"
for b in "$@"; do
	b=$(cd "$b" && pwd) || { echo "no build directory $b"; f=$((f + 1)); continue; }
	echo "== unit tests ($b)"
	run "$here/run-unit.sh" "$b"/tests/test_*
	# the end to end against Prometheus (6 min) checks the rules on real
	# parts: once, with the first build; the others' textfiles are checked
	# by each tool's own tests (promtool check metrics). The package (deb)
	# too: make deb builds its CLIs itself, whatever the build directory.
	if [ "$b" = "$(cd "$1" && pwd)" ]; then
		echo "== integration tests ($b)"
		NETMEDIC_BUILD=$b run "$here/run-integration.sh"
		# the tests tagged undo check a remedy's undo (signals, kill -9 and
		# --cleanup, journals), which no rung changes: not again here
		echo "== detection tests with every tp_btf program and the qdisc sampler refused (NETMEDIC_REFUSE=tp_btf/,qs_sample, $b)"
		NETMEDIC_REFUSE=tp_btf/,qs_sample BATS_FILES=$(for t in $(nm_tools); do printf '%s.bats ' "$t"; done) \
			BATS_FILTER_TAGS='!undo' NETMEDIC_BUILD=$b run "$here/run-integration.sh"
		continue
	fi
	echo "== integration tests as nobody, with the capabilities each command line asks for ($b)"
	nb=$(as_nobody_build "$b") || { echo "integration: 0 passed, 1 failed"; f=$((f + 1)); continue; }
	# the journals in a directory of nobody's, as a unit's RuntimeDirectory= (tools/systemd)
	mkdir -m 0700 "$nb/run" && chown 65534:65534 "$nb/run"
	NM_REAL_BUILD=$b BATS_FILTER_TAGS='!root,!prometheus,!deb' NETMEDIC_BUILD=$nb NETMEDIC_RUN_DIR=$nb/run \
		NM_CHURN_CYCLES=$CHURN_AGAIN run "$here/run-integration.sh"
	rm -rf "$nb"
	echo "== integration tests about root, as root ($b)"
	BATS_FILTER_TAGS='root,!prometheus,!deb' NETMEDIC_BUILD=$b run "$here/run-integration.sh"
done
if [ -n "${NETMEDIC_FUZZ:-}" ]; then
	echo "== fuzz harnesses, 20 s each"
	# shellcheck disable=SC2086 # a list of paths without spaces
	FUZZ_SECONDS=20 run "$here/fuzz/run.sh" $NETMEDIC_FUZZ
fi
echo "netmedic: $p passed, $f failed"
[ "$f" = 0 ]
