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
# The passes' tests not tagged serial run side by side in one pool, a
# pass's file per job, NM_POOL jobs at a time (3 unless set), longest
# first; then the tests tagged serial, alone, pass by pass
# (tests/run-pass.sh runs a pass's files).
# The Prometheus rules and dashboard are checked once, before the builds
# (tools/prometheus/check.sh).
# NETMEDIC_FUZZ (make test sets it): the fuzz harnesses, each run for 20 s
# (tests/fuzz/run.sh), NM_JOBS at once (2 unless set: one per CPU here); a
# crash or a sanitizer report fails the run.
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
# The passes (tests/run-pass.sh reads them), each a user, a build and the
# tags of its tests (docs/RELIABILITY.md, "Which pass runs what"):
# n: nobody, the sanitized build; p: root, the plain build; r: root, the
# sanitized build; f: root, the plain build, tp_btf programs and the
# sampler refused.
export NM_PASS_n_TAGS='!root,!plain' NM_PASS_n_BUILD=$nb NM_PASS_n_RUN_DIR=$nb/run NM_PASS_n_REAL=$san
export NM_PASS_p_TAGS=plain NM_PASS_p_BUILD=$plain
export NM_PASS_r_TAGS='root,!plain' NM_PASS_r_BUILD=$san
export NM_PASS_f_TAGS='rungs,!undo' NM_PASS_f_BUILD=$plain NM_PASS_f_REFUSE=tp_btf/,qs_sample,qs_sample_key
passes="n p r f"
[ -n "$nb" ] || passes="p r f"
# integration_check: what every pass needs, or one failure that says why
# (a silent skip would report a broken project as tested)
integration_check() {
	local why=
	[ "$(id -u)" = 0 ] || why="needs root (BPF programs, network namespaces)"
	[ -r /sys/kernel/btf/vmlinux ] || why="no kernel BTF at /sys/kernel/btf/vmlinux"
	command -v bats >/dev/null || why="bats is not installed (make deps)"
	[ -d /usr/lib/bats/bats-assert ] || why="bats-assert is not installed (make deps)"
	command -v parallel >/dev/null || why="GNU parallel is not installed (make deps)"
	[ -z "$why" ] && return 0
	echo "integration: cannot run: $why"
	return 1
}
# has_tags FILE TAGS: whether FILE names, in its bats tags lines, each tag
# of TAGS that is required (not "!tag")
has_tags() {
	local t
	for t in ${2//,/ }; do
		case $t in !*) continue ;; esac
		grep -qE "^# bats (file|test)_tags=(.*,)?$t(,|$)" "$1" || return 1
	done
}
# pool_jobs PHASE: "SECONDS PASS FILE", one line per pass and file that has
# tests in PHASE, longest first (tests/integration/durations; 30 s unless
# listed)
pool_jobs() {
	local pass file t tags n
	for pass in $passes; do
		t="NM_PASS_${pass}_TAGS"
		tags=${!t}
		case $1 in side) tags="${tags:+$tags,}!serial" ;; alone) tags="${tags:+$tags,}serial" ;; esac
		for file in "$here"/integration/*.bats; do
			# bats --count takes 0.3 s a file: first, a file without
			# one of the tags the pass requires has none of its tests
			has_tags "$file" "$tags" || continue
			file=${file##*/}
			n=$(cd "$here/integration" && bats --count --filter-tags "$tags" "$file") || n=1
			[ "$n" -gt 0 ] || continue
			awk -v p="$pass" -v f="$file" 'BEGIN { s = 30 } $1 == p && $2 == f { s = $3 }
				END { print s, p, f }' "$here/integration/durations"
		done
	done | sort -k1,1nr -k2,2 -k3,3
}
# tally_tap FILE: FILE's TAP counted, a skipped test as failed (it tested
# nothing); failed at least 1 when rc (a job's exit) is not 0
tally_tap() {
	local skipped pass failed
	skipped=$(grep -cE '^ok [0-9]+ .*# skip' "$1")
	pass=$(($(grep -c '^ok ' "$1") - skipped))
	failed=$(($(grep -c '^not ok ' "$1") + skipped))
	[ "$skipped" -gt 0 ] && echo "integration: $skipped test(s) skipped, counted as failed"
	[ "$2" != 0 ] && [ "$failed" = 0 ] && failed=1
	echo "integration: $pass passed, $failed failed"
}
tap=$(mktemp)
if integration_check; then
	# Side by side: one pool of NM_POOL slots (3 unless set) over every
	# pass's files, each file of a pass one job, its tests one after
	# another (its lab and journal folder are its own: helpers.bash). The
	# pool keeps every slot busy to the end, where one phase per pass left
	# slots idle while its last file ran. Most of a test's time is waiting
	# (traffic windows, intervals), so three run on two CPUs.
	alone=$(mktemp)
	pool_jobs alone >"$alone" &
	echo "== side by side, ${NM_POOL:-3} at a time: every pass's tests not tagged serial (passes: $passes)"
	pool_jobs side | parallel --jobs "${NM_POOL:-3}" --group --colsep ' ' \
		'echo "# pass {2}: {3}"; '"$here"'/run-pass.sh {2} side {3}' | tee "$tap"
	rc=${PIPESTATUS[1]}
	line=$(tally_tap "$tap" "$rc")
	echo "$line"
	tally "$(echo "$line" | tail -1)"
	# Alone: the tests that look at the whole host or measure what a
	# sibling's load would change, one at a time with nothing beside them
	# (docs/RELIABILITY.md lists them and says why)
	wait
	for pass in $passes; do
		files=$(awk -v p="$pass" '$2 == p { print $3 }' "$alone" | sort)
		[ -n "$files" ] || continue
		echo "== alone: pass $pass's tests tagged serial"
		# shellcheck disable=SC2086 # file names without spaces
		"$here/run-pass.sh" "$pass" alone $files | tee "$tap"
		rc=${PIPESTATUS[0]}
		line=$(tally_tap "$tap" "$rc")
		echo "$line"
		tally "$(echo "$line" | tail -1)"
	done
	# each file's journal folder, if its tools left it empty; one that
	# holds a journal stays, for a test's teardown or --cleanup missed it
	rmdir /run/netmedic/*/ ${nb:+"$nb"/run/*/} 2>/dev/null
else
	echo "integration: 0 passed, 1 failed"
	f=$((f + 1))
fi
rm -f "$tap" "${alone:-}"
[ -z "$nb" ] || rm -rf "$nb"
if [ -n "${NETMEDIC_FUZZ:-}" ]; then
	echo "== fuzz harnesses, 20 s each"
	# shellcheck disable=SC2086 # a list of paths without spaces
	FUZZ_SECONDS=20 run "$here/fuzz/run.sh" $NETMEDIC_FUZZ
fi
echo "netmedic: $p passed, $f failed"
[ "$f" = 0 ]
