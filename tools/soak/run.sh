#!/usr/bin/env bash
# make soak: the tools run for a long time under churn, and what a user
# running them for weeks would check, checked at the end.
#
#   observers  every tool, each --json -i 1 --prom-file in its lab, set up
#              and named by `tools/lab/NAME.sh soak`, for the whole soak; their
#              RSS and open fds are sampled every 5 s, and every textfile
#              is read and checked (promtool check metrics) about twice a
#              second, as node_exporter would read it mid-rewrite
#   flows      each lab's round of flows (`NAME.sh soak-flows`: iperf3
#              runs of 2 s on the xpsflap and tcpstall labs, 4 flows each
#              on the latter), one lab after another: new ports, so new
#              flows and sockets all the time
#   netns      a namespace made, each tool run once in it (-c 1), deleted
#   remedies   each lab's remedy (`NAME.sh soak-remedy`: xpsflap --pin,
#              qdiscstuck --lock), ended at a random moment (0.2-3 s) by
#              kill -9 (then --cleanup) or SIGTERM; what it changes
#              (`NAME.sh soak-state`: the XPS maps, the lockless qdisc)
#              must be back every time
#
# At the end (exit 1 naming what failed): RSS flat (the last quarter's
# peak at most 5% + 1 MiB over the second quarter's), fd count flat (the
# last quarter's fewest not above the second quarter's most: a report
# holds one more for a moment), every textfile read parsed and none
# empty, no "error:" line from an observer or a netns run, every remedy
# cycle restored, no journal left in the run directory. The figures go to
# build/soak/summary.json and a table.
#
# Env: NETMEDIC_BUILD (required), SOAK_SECONDS (default 10800, 3 hours;
# CI runs 600), SOAK_OUT (default $NETMEDIC_BUILD/soak).
set -u
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
# shellcheck source=SCRIPTDIR/../tools.sh
. "$ROOT/tools/tools.sh"
: "${NETMEDIC_BUILD:?set NETMEDIC_BUILD to the (absolute) build directory}"
SECS=${SOAK_SECONDS:-10800}
OUT=${SOAK_OUT:-$NETMEDIC_BUILD/soak}
LAB=$ROOT/tools/lab
B=$NETMEDIC_BUILD
RUN_DIR=${NETMEDIC_RUN_DIR:-/run/netmedic}
case $SECS in '' | *[!0-9]*) echo "soak: SOAK_SECONDS must be a whole number of seconds" >&2; exit 2 ;; esac
[ "$SECS" -ge 60 ] || { echo "soak: SOAK_SECONDS must be at least 60" >&2; exit 2; }
[ "$(id -u)" = 0 ] || { echo "soak: must run as root" >&2; exit 1; }

say() { echo "soak: $*"; }
rm -rf "$OUT" && mkdir -p "$OUT" || exit 1
END=$(( $(date +%s) + SECS ))
PIDS=()
OBS=()

down() {
	for p in "${PIDS[@]}"; do kill "$p" 2>/dev/null; done
	wait 2>/dev/null
	for t in $(nm_tools); do "$B/$t" --cleanup >/dev/null 2>&1; done
	ip netns list 2>/dev/null | awk '$1 ~ /^nm-soak-/ { print $1 }' | xargs -r -n1 ip netns del
	for t in $(nm_tools); do "$LAB/$t.sh" down >/dev/null 2>&1; done
}
trap 'down; exit 1' INT TERM
running() { [ "$(date +%s)" -lt "$END" ]; }
bump() { echo 1 >>"$OUT/$1.count"; }
count() { [ -f "$OUT/$1.count" ] && wc -l <"$OUT/$1.count" || echo 0; }

# --- the labs: each tool's, as its lab script sets it up for a soak, and
# the netns its observer watches (tools/lab/NAME.sh soak)
declare -A WATCH
: >"$OUT/lab.log"
for t in $(nm_tools); do
	WATCH[$t]=$("$LAB/$t.sh" soak 2>>"$OUT/lab.log") && [ -n "${WATCH[$t]}" ] ||
		{ say "$t's lab set-up failed (see $OUT/lab.log)"; down; exit 1; }
done
# each lab's remedy (its options: soak-remedy) and the state it changes
# (soak-state), as the lab is now: after each run of the remedy it must
# be back
declare -A REMEDY STATE
for t in $(nm_tools); do
	REMEDY[$t]=$("$LAB/$t.sh" soak-remedy 2>>"$OUT/lab.log") || { say "$t's lab: no soak-remedy"; down; exit 1; }
	[ -n "${REMEDY[$t]}" ] || continue
	STATE[$t]=$("$LAB/$t.sh" soak-state 2>>"$OUT/lab.log")
	[ -n "${STATE[$t]}" ] || { say "$t's lab: no soak-state to check its remedy by"; down; exit 1; }
done

# --- observers
observe() { # NAME NETNS ARGS...
	local n=$1 ns=$2
	shift 2
	"$B/$n" --netns "$ns" --json -i 1 --prom-file "$OUT/$n.prom" "$@" >"$OUT/$n.json" 2>"$OUT/$n.err" &
	PIDS+=($!)
	OBS+=("$n:$!")
}
for t in $(nm_tools); do observe "$t" "${WATCH[$t]}"; done
sleep 3
for o in "${OBS[@]}"; do
	kill -0 "${o#*:}" 2>/dev/null || { say "${o%%:*} did not start (see $OUT/${o%%:*}.err)"; down; exit 1; }
done
say "${SECS} s: observers ${OBS[*]}, then flows, namespaces and remedies churned"

# --- samplers
sample() {
	local t0 now o p
	t0=$(date +%s)
	while running; do
		now=$(( $(date +%s) - t0 ))
		for o in "${OBS[@]}"; do
			p=${o#*:}
			[ -d "/proc/$p" ] || continue
			printf '%s\t%s\t%s\t%s\n' "$now" "${o%%:*}" \
				"$(awk '/^VmRSS:/ { print $2 }' "/proc/$p/status")" \
				"$(ls "/proc/$p/fd" | wc -l)" >>"$OUT/samples.tsv"
		done
		sleep 5
	done
}
textfiles() {
	local n f=$OUT/read.prom
	while running; do
		for n in $(nm_tools); do
			[ -e "$OUT/$n.prom" ] || continue
			cp "$OUT/$n.prom" "$f" 2>/dev/null || continue
			bump prom_reads
			if [ ! -s "$f" ]; then
				bump prom_empty
			elif ! promtool check metrics <"$f" >/dev/null 2>&1; then
				bump prom_bad
				cp "$f" "$OUT/bad-$n-$(count prom_bad).prom"
			fi
		done
		sleep 0.5
	done
}

# --- churn
# each lab's round of flows (soak-flows), one lab after another; a lab
# with none of its own says so (exit 3) and is left out from then on
flows() {
	local t rc left
	left=" $(nm_tools | paste -sd' ') "
	while running && [ -n "${left// /}" ]; do
		for t in $left; do
			rc=0
			"$LAB/$t.sh" soak-flows >/dev/null 2>&1 || rc=$?
			case $rc in
			0) bump "flows_$t" ;;
			3) left=${left/ $t / }; : >"$OUT/$t.noflows" ;;
			esac
		done
	done
}
namespaces() {
	local i=0 ns t
	while running; do
		ns=nm-soak-$((i++))
		ip netns add "$ns" && ip -n "$ns" link set lo up || { bump netns_failed; sleep 1; continue; }
		for t in $(nm_tools); do
			if ! "$B/$t" --netns "$ns" -c 1 -i 0.2 >/dev/null 2>"$OUT/netns.err"; then
				bump netns_failed
				sed "s/^/$t in $ns: /" "$OUT/netns.err" >>"$OUT/netns-failures.log"
			fi
			grep -q 'error:' "$OUT/netns.err" && sed "s/^/$t in $ns: /" "$OUT/netns.err" >>"$OUT/netns-errors.log"
		done
		ip netns del "$ns"
		bump netns
		sleep 1
	done
}
# remedy NAME CHECK CMD...: CMD ended at a random moment, then CHECK
remedy() {
	local name=$1 check=$2 p ms sig
	shift 2
	"$@" >/dev/null 2>>"$OUT/remedy-$name.err" &
	p=$!
	ms=$(( 200 + RANDOM % 2800 ))
	sleep "$(printf '%d.%03d' $((ms / 1000)) $((ms % 1000)))"
	if (( RANDOM % 2 )); then sig=KILL; else sig=TERM; fi
	kill -"$sig" "$p" 2>/dev/null
	wait "$p" 2>/dev/null
	[ "$sig" = KILL ] && "$B/$name" --cleanup >/dev/null 2>>"$OUT/remedy-$name.err"
	bump "remedy_$sig"
	if ! $check; then
		bump remedy_left
		echo "$(date +%T) $name after SIG$sig at ${ms} ms: not restored" >>"$OUT/remedy-failures.log"
	fi
}
# restored NAME: NAME's lab is as it was before its remedy ran
restored() { [ "$("$LAB/$1.sh" soak-state 2>/dev/null)" = "${STATE[$1]}" ]; }
remedies() {
	local t
	[ ${#STATE[@]} -gt 0 ] || return 0
	while running; do
		for t in $(nm_tools); do
			[ -n "${STATE[$t]:-}" ] || continue
			# shellcheck disable=SC2086 # the lab's options, word by word
			remedy "$t" "restored $t" "$B/$t" ${REMEDY[$t]}
		done
	done
}

sample & PIDS+=($!)
textfiles & PIDS+=($!)
flows & PIDS+=($!)
namespaces & PIDS+=($!)
remedies & PIDS+=($!)
while running; do sleep 5; done
# the churn loops end at their next turn
for p in "${PIDS[@]:3}"; do wait "$p" 2>/dev/null; done

# --- the end: observers stop as systemd stops them
obs_rc=0
for o in "${OBS[@]}"; do
	kill -TERM "${o#*:}" 2>/dev/null
	wait "${o#*:}" || { obs_rc=1; say "${o%%:*} exited $? on SIGTERM"; }
done
PIDS=()
sleep 1
journals=$(ls "$RUN_DIR" 2>/dev/null | grep -c '\.journal$')
errs=()
for t in $(nm_tools); do errs+=("$OUT/$t.err"); done
err_lines=$(cat "${errs[@]}" "$OUT"/netns-errors.log 2>/dev/null | grep -c 'error:')
down
trap - INT TERM

# flat: per tool, the second and last quarters' peaks of RSS (kB) and fds
flat=$(awk -F'\t' -v T="$SECS" '
	{ q = $1 < T / 2 ? ($1 >= T / 4 ? 2 : 0) : ($1 >= 3 * T / 4 ? 4 : 0) }
	q == 2 { if ($3 > r2[$2]) r2[$2] = $3; if ($4 > f2[$2]) f2[$2] = $4 }
	q == 4 { if ($3 > r4[$2]) r4[$2] = $3; if ($4 > f4[$2]) f4[$2] = $4
		 if (!($2 in m4) || $4 < m4[$2]) m4[$2] = $4 }
	{ n[$2]++ }
	END {
		s = ""
		for (t in n)
			s = s sprintf("%s\"%s\":{\"samples\":%d,\"rss_kb_q2\":%d,\"rss_kb_q4\":%d,\"fds_q2\":%d,\"fds_q4\":%d,\"fds_q4_min\":%d}",
				      s == "" ? "" : ",", t, n[t], r2[t], r4[t], f2[t], f4[t], m4[t])
		print "{" s "}"
	}' "$OUT/samples.tsv")
jq -n --argjson secs "$SECS" --argjson tools "$flat" \
	--argjson reads "$(count prom_reads)" --argjson empty "$(count prom_empty)" --argjson bad "$(count prom_bad)" \
	--argjson flows "$(for t in $(nm_tools); do
		[ -e "$OUT/$t.noflows" ] || printf '{"%s_runs":%d}' "$t" "$(count "flows_$t")"
	done | jq -s 'add // {}')" \
	--argjson ns "$(count netns)" --argjson nsf "$(count netns_failed)" \
	--argjson kill "$(count remedy_KILL)" --argjson term "$(count remedy_TERM)" --argjson left "$(count remedy_left)" \
	--argjson journals "$journals" --argjson errs "$err_lines" --argjson obs "$obs_rc" \
	--arg kernel "$(uname -r)" '
	{kernel: $kernel, seconds: $secs, tools: $tools,
	 textfile: {reads: $reads, empty: $empty, unparsable: $bad},
	 flows: $flows,
	 netns: {cycles: $ns, failed: $nsf},
	 remedies: {kill9_and_cleanup: $kill, sigterm: $term, not_restored: $left},
	 journals_left: $journals, error_lines: $errs, observers_exit_nonzero: $obs}' >"$OUT/summary.json"

s=$OUT/summary.json
j() { jq -r "$1" "$s"; }
echo "soak: kernel $(j .kernel), $(j .seconds) s"
printf '%-12s %8s %12s %12s %8s %8s\n' tool samples "rss_kB q2" "rss_kB q4" "fds q2" "fds q4"
for t in $(nm_tools); do
	printf '%-12s %8s %12s %12s %8s %8s\n' "$t" "$(j ".tools.$t.samples")" "$(j ".tools.$t.rss_kb_q2")" \
		"$(j ".tools.$t.rss_kb_q4")" "$(j ".tools.$t.fds_q2")" "$(j ".tools.$t.fds_q4")"
done
echo "textfile reads $(j .textfile.reads), empty $(j .textfile.empty), unparsable $(j .textfile.unparsable);" \
	"flow runs $(j '.flows | to_entries | map("\(.key | sub("_runs$"; "")) \(.value)") | join(", ")'); netns cycles $(j .netns.cycles) ($(j .netns.failed) failed);" \
	"remedies kill -9+cleanup $(j .remedies.kill9_and_cleanup), SIGTERM $(j .remedies.sigterm), not restored $(j .remedies.not_restored)"

miss=0
target() { # CONDITION(jq) TEXT
	if [ "$(jq -r "$1" "$s")" != true ]; then
		echo "soak: target missed: $2" >&2
		miss=1
	fi
}
for t in $(nm_tools); do
	target ".tools.$t.samples >= 8" "$t was sampled ($(j ".tools.$t.samples") samples)"
	target ".tools.$t.rss_kb_q4 <= .tools.$t.rss_kb_q2 * 1.05 + 1024" \
		"$t's RSS is flat ($(j ".tools.$t.rss_kb_q2") kB, then $(j ".tools.$t.rss_kb_q4") kB)"
	# a report opens a file or a socket for a moment: a leak is when even
	# the last quarter's fewest fds are more than the second quarter's most
	target ".tools.$t.fds_q4_min <= .tools.$t.fds_q2" \
		"$t's fd count is flat (at most $(j ".tools.$t.fds_q2"), then at least $(j ".tools.$t.fds_q4_min"))"
done
target '.textfile.reads > 0 and .textfile.empty == 0 and .textfile.unparsable == 0' \
	"every textfile read parses ($(j .textfile.unparsable) unparsable, $(j .textfile.empty) empty of $(j .textfile.reads))"
target '.netns.cycles > 0 and .netns.failed == 0' "every netns run exits 0 ($(j .netns.failed) of $(j .netns.cycles) failed)"
target '.remedies.kill9_and_cleanup + .remedies.sigterm > 0 and .remedies.not_restored == 0' \
	"every remedy cycle restored ($(j .remedies.not_restored) not)"
target '(.flows | length) > 0 and all(.flows[]; . > 0)' "flows were churned ($(j '.flows | keys | join(", ")'))"
target '.journals_left == 0' "no journal left ($(j .journals_left))"
target '.error_lines == 0' "no error lines ($(j .error_lines); see $OUT/*.err)"
target '.observers_exit_nonzero == 0' "each observer exits 0 on SIGTERM"
[ "$miss" = 0 ] && echo "soak: every target met"
exit $miss
