#!/usr/bin/env bash
# make test: for each build directory given (plain, then sanitized), the
# unit tests and the integration suite; one closing line for everything.
# The integration suite runs once: each test in one pass, with one build,
# as the user that pass says (docs/RELIABILITY.md, "Which pass runs what"):
# - the sanitized build as nobody (every test not tagged root or plain):
#   every CLI holds exactly the capabilities its --print-caps names for that
#   command line (tests/as-nobody.sh), as a unit with DynamicUser would, and
#   ASan, UBSan and LSan watch it there (LSan works as nobody with ambient
#   capabilities, after the tools drop theirs). This is the pass that finds
#   most: a missing capability, a leak, undefined behaviour;
# - the sanitized build as root: the tests tagged root, about root itself
#   (what root keeps after attach, --list-fixes' verdicts for root, a journal
#   another user owns);
# - the plain build as root: the tests tagged plain, which need the build a
#   user runs or the whole host: the namespace churn (its RSS bound means
#   nothing under ASan's allocator), the end to end against a real
#   Prometheus, and the package (make deb builds its own CLIs);
# - then, with the plain build, the detections whose rungs the refusal
#   changes (tagged rungs: a verdict from a tracepoint program, from
#   qdiscstuck's sampler, or from tcpstall's sweep, which runs full sweeps
#   only once nothing can tag senders) again with every tp_btf program and
#   the sampler refused (NETMEDIC_REFUSE, docs/KERNELS.md): each must hold on
#   the raw_tp rungs a kernel without tp_btf would leave, and on qdisc events
#   without the sampler. Not again: a remedy's undo (tagged undo), and what
#   userspace alone does with the same records (--top, --sort and the
#   textfile's format).
# Within a pass, files run side by side, NM_JOBS at a time (2 unless set),
# and the tests tagged serial alone after them (tests/run-integration.sh).
# The Prometheus rules and dashboard are checked once, before the builds
# (tools/prometheus/check.sh).
# NETMEDIC_FUZZ (make test sets it): the fuzz harnesses, each run for 20 s
# (tests/fuzz/run.sh), NM_JOBS at once; a crash or a sanitizer report fails
# the run.
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
export NM_JOBS=${NM_JOBS:-2}
# once, whatever the build: the alerting rules, their promtool unit tests
# and the dashboard's exprs (tools/prometheus/check.sh, make check-rules)
echo "== Prometheus rules and dashboard (promtool)"
run "$here/../tools/prometheus/check.sh"
[ $# = 2 ] || { echo "usage: run-all.sh PLAIN_BUILD SANITIZED_BUILD"; echo "netmedic: 0 passed, 1 failed"; exit 1; }
plain=$(cd "$1" && pwd) || { echo "no build directory $1"; exit 1; }
san=$(cd "$2" && pwd) || { echo "no build directory $2"; exit 1; }
for b in "$plain" "$san"; do
	echo "== unit tests ($b)"
	run "$here/run-unit.sh" "$b"/tests/test_*
done
nb=$(as_nobody_build "$san") || { echo "integration: 0 passed, 1 failed"; f=$((f + 1)); nb=; }
# the journals in a directory of nobody's, as a unit's RuntimeDirectory= (tools/systemd)
[ -z "$nb" ] || { mkdir -m 0700 "$nb/run" && chown 65534:65534 "$nb/run"; }
# pass_nobody PHASES, pass_plain PHASES: those phases of the nobody pass and of the
# plain build's pass (tests/run-integration.sh, NM_PHASES)
pass_nobody() {
	[ -n "$nb" ] || return 0
	NM_PHASES=$1 NM_REAL_BUILD=$san BATS_FILTER_TAGS='!root,!plain' NETMEDIC_BUILD=$nb \
		NETMEDIC_RUN_DIR=$nb/run "$here/run-integration.sh"
}
pass_plain() {
	NM_PHASES=$1 BATS_FILTER_TAGS='plain' NETMEDIC_BUILD=$plain "$here/run-integration.sh"
}
# The two passes' side-by-side files at once: the plain pass is the end to
# end against Prometheus (6 minutes, nearly all of it waiting for rules'
# for: and scrapes) and the package, which the nobody pass's files overlap.
# Each pass's output is shown whole once both are done.
logs=$(mktemp -d)
echo "== side by side: the nobody pass's files and the plain build's ($san as nobody, $plain as root)"
pass_nobody parallel >"$logs/nobody" 2>&1 &
np=$!
pass_plain parallel >"$logs/plain" 2>&1 &
pp=$!
wait $np $pp
echo "== integration tests as nobody, with the capabilities each command line asks for ($san): side by side"
cat "$logs/nobody"
tally "$(tail -1 "$logs/nobody")"
echo "== integration tests of the plain build, as root ($plain): side by side"
cat "$logs/plain"
tally "$(tail -1 "$logs/plain")"
rm -rf "$logs"
echo "== integration tests as nobody ($san): those tagged serial, alone"
run pass_nobody serial
echo "== integration tests of the plain build, as root ($plain): those tagged serial, alone"
run pass_plain serial
[ -z "$nb" ] || rm -rf "$nb"
echo "== integration tests about root, as root ($san)"
BATS_FILTER_TAGS='root,!plain' NETMEDIC_BUILD=$san run "$here/run-integration.sh"
echo "== detections with every tp_btf program and the qdisc sampler refused (NETMEDIC_REFUSE=tp_btf/,qs_sample, $plain)"
NETMEDIC_REFUSE=tp_btf/,qs_sample BATS_FILTER_TAGS='rungs,!undo' NETMEDIC_BUILD=$plain \
	run "$here/run-integration.sh"
if [ -n "${NETMEDIC_FUZZ:-}" ]; then
	echo "== fuzz harnesses, 20 s each"
	# shellcheck disable=SC2086 # a list of paths without spaces
	FUZZ_SECONDS=20 run "$here/fuzz/run.sh" $NETMEDIC_FUZZ
fi
echo "netmedic: $p passed, $f failed"
[ "$f" = 0 ]
