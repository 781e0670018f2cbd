bats_require_minimum_version 1.5.0
# shellcheck shell=bash
# Shared by the bats files: bats-support/assert, the lab, and running a CLI
# in the background until it has attached.
load '/usr/lib/bats/bats-support/load'
load '/usr/lib/bats/bats-assert/load'

ROOT=$(cd "$BATS_TEST_DIRNAME/../.." && pwd)
LAB=$ROOT/tools/lab
BIN=${NETMEDIC_BUILD:-$ROOT/build}

# file_id FILE: a short name of FILE among the .bats files of its folder,
# unique there: the initials of its name's words (tcpstall_scope: ts), and
# its place in the folder's list after them when an earlier file has the
# same initials. Short, so that a table's NETNS column stays narrow.
file_id() {
	local dir=${1%/*} name=${1##*/} f b w id mine= seen=" " n=0
	name=${name%.bats}
	for f in "$dir"/*.bats; do
		n=$((n + 1))
		b=${f##*/}
		b=${b%.bats}
		id=
		for w in ${b//_/ }; do id=$id${w:0:1}; done
		case $seen in *" $id "*) id=$id$n ;; esac
		seen="$seen$id "
		[ "$b" = "$name" ] && mine=$id
	done
	echo "${mine:-$name}"
}
# Every file has its own lab and its own journals, so that files can run
# side by side (tests/run-integration.sh, NM_JOBS): its lab namespaces are
# nm-ID-NAME (LAB_PREFIX, which tools/lab/*.sh take from the environment),
# and its tools' journals go to a folder ID of the suite's run directory
# (the nobody pass has its own). The tools make that folder, as the user
# they run as, the first time they journal.
# A pass's letter (NM_PASS_ID, tests/run-pass.sh) goes before the ID, as
# one file may run in two passes at the same moment.
FILE_ID=${NM_PASS_ID:-}$(file_id "$BATS_TEST_FILENAME")
export LAB_PREFIX=nm-$FILE_ID-
RUN_DIR=${NM_SUITE_RUN_DIR:-${NETMEDIC_RUN_DIR:-/run/netmedic}}/$FILE_ID
export NM_SUITE_RUN_DIR=${NM_SUITE_RUN_DIR:-${NETMEDIC_RUN_DIR:-/run/netmedic}}
export NETMEDIC_RUN_DIR=$RUN_DIR
# ino NAME: the inode of netns NAME (nothing, and a failure, when it is gone)
ino() { stat -L -c %i "/run/netns/$1" 2>/dev/null; }
# col10 NAME: NAME as a table's NETNS column shows it: whole, the column as
# wide as its longest name (#37; it was cut to 10 characters)
col10() { printf '%s' "$1"; }
# shellcheck source=../../tools/lab/lib.sh
. "$LAB/lib.sh"
# shellcheck source=../../tools/tools.sh
. "$ROOT/tools/tools.sh"

# free_port: a TCP port no socket of this host's namespace uses, listening
# or connected, below the ephemeral range (ip_local_port_range), so that no
# connecting socket of a test beside this one (curl, iperf3, a scrape)
# takes it between here and the bind
free_port() {
	local lo p
	read -r lo _ </proc/sys/net/ipv4/ip_local_port_range
	[ "$lo" -gt 21024 ] || lo=30000
	for p in $(shuf -i 20000-$((lo - 1)) -n 50); do
		ss -Htan "sport = :$p" | grep -q . || { echo "$p"; return 0; }
	done
	return 1
}

# start_bg OUT CMD...: run CMD in the background (stdout to OUT, stderr to
# OUT.err) and wait until it printed its first line, i.e. it has attached.
start_bg() {
	local out=$1 i
	shift
	# emptied here: the background shell truncates them only once it runs,
	# and a file of an earlier run must not pass for this one's first line
	: >"$out"
	: >"$out.err"
	"$@" >"$out" 2>"$out.err" &
	BG_PID=$!
	BG_OUT=$out
	for i in $(seq 1 100); do
		[ -s "$out" ] && return 0
		kill -0 "$BG_PID" 2>/dev/null || { cat "$out.err" >&2; return 1; }
		sleep 0.1
	done
	echo "start_bg: $* printed nothing in 10 s" >&2
	return 1
}

# wait_bg: wait for the background CLI, failing on a non-zero exit.
wait_bg() {
	local rc=0
	wait "$BG_PID" || rc=$?
	BG_PID=
	[ $rc = 0 ] || { echo "exit $rc" >&2; return 1; }
}

# stop_bg SIGNAL: signal the background CLI and wait for it.
stop_bg() {
	[ -n "${BG_PID:-}" ] || return 0
	local rc=0
	kill -"$1" "$BG_PID" 2>/dev/null
	wait "$BG_PID" 2>/dev/null || rc=$?
	echo "stop_bg: $1 -> exit $rc; its stderr:"
	cat "$BG_OUT.err"
	BG_PID=
}

# One line on stderr, and that line names the error.
assert_one_line_error() {
	assert_equal "$(printf '%s\n' "$output" | grep -c .)" 1
	assert_output --partial "error"
}

# assert_usage_error TOOL: bad input's one line on stderr, in the one format
# every usage error has (#37), getopt's own too: "TOOL: what is wrong", the
# tool's name and not the path it was run by, no "error:" (a runtime
# error's word) and no argp "Try `TOOL --help'..." line after it.
assert_usage_error() {
	assert_equal "$(printf '%s\n' "$output" | grep -c .)" 1
	[[ $output == "$1: "?* ]] || fail "not '$1: ...': $output"
	[[ $output != "$1: error: "* ]] || fail "a usage error says what is wrong, not 'error:': $output"
}

# signal_at POINT SIG CMD...: CMD as a script's background job (bash
# starts it with SIGINT ignored), stopped at POINT by NETMEDIC_TEST_STOP
# ("load": before the BPF load; "change": before its first change), sent
# SIG there, then continued. POINT "": SIG one second after CMD runs as
# itself (its /proc exe is CMD's name: the nobody pass's wrapper, a shell
# and setpriv, comes first, and on a loaded host takes more than a second).
# Prints its exit status; "alive" when it still ran 10 s after the signal
# (it is killed then); "never stopped" when it did not reach POINT.
signal_at() {
	NETMEDIC_TEST_STOP=$1 bash -c 'point=$1 sig=$2; shift 2; "$@" >/dev/null 2>&1 & p=$!
		st=
		if [ -n "$point" ]; then
			for _ in $(seq 200); do
				read -r _ _ st _ </proc/$p/stat 2>/dev/null || break
				[ "$st" = T ] && break
				sleep 0.05
			done
			[ "$st" = T ] || { kill -KILL $p 2>/dev/null; echo "never stopped"; exit 0; }
		else
			for _ in $(seq 200); do
				[ "$(basename "$(readlink /proc/$p/exe 2>/dev/null)")" = "$(basename "$1")" ] && break
				sleep 0.05
			done
			sleep 1
		fi
		kill -"$sig" $p
		kill -CONT $p
		for _ in $(seq 100); do
			kill -0 $p 2>/dev/null || { wait $p; echo $?; exit 0; }
			sleep 0.1
		done
		kill -KILL $p; echo alive' _ "$@"
}

# kernel_re: the running kernel's release as a regex that matches it
# literally: Debian's backports and unstable name theirs with a "+"
# (6.12.118+deb12-amd64), a regex operator
kernel_re() {
	uname -r | sed 's/[][\.*^$+?(){}|]/\\&/g'
}

# kernel_before MAJ MIN: the running kernel is older than MAJ.MIN (for the
# expectations that a kernel changes: what it lacks, what it charges)
kernel_before() {
	local a b
	IFS=. read -r a b _ <<<"$(uname -r)"
	[ "$a" -lt "$1" ] || { [ "$a" = "$1" ] && [ "${b%%[!0-9]*}" -lt "$2" ]; }
}

# caps_kept CAPS [WHY]: the -v line of a run that keeps CAPS ("none", or
# "cap_net_admin,cap_net_raw") for WHY. Before 5.19 the map reads of each
# interval keep cap_bpf too (bpf(2)'s map commands check it there).
caps_kept() {
	local caps=$1 why=${2:-}
	if kernel_before 5 19; then
		[ "$caps" = none ] && caps= || caps=$caps,
		caps=${caps}cap_bpf
		why=${why:+$why, }"map reads: a kernel before 5.19"
	fi
	printf 'caps: kept %s%s; no_new_privs' "$caps" "${why:+ ($why)}"
}

# chosen_rung TOOL HOOK [ARGS]: the rung --list-hooks says TOOL (run with
# ARGS: a remedy's hook is declared when asked for) takes for HOOK here
chosen_rung() {
	"$BIN/$1" "${@:3}" --list-hooks | awk -v h="$2" '$1 == h && $2 ~ /^[0-9]+$/ && $4 ~ /^chosen/ { print $3; exit }'
}

# caps_mask HEX: the CapEff of a run that keeps HEX, on this kernel (before
# 5.19, with CAP_BPF, 39, for the map reads: see caps_kept)
caps_mask() {
	local m=$((16#$1))
	kernel_before 5 19 && m=$((m | 1 << 39))
	printf '%016x' "$m"
}

# as_nobody CAPS CMD...: CMD as uid and gid 65534 (nobody), no groups,
# holding exactly CAPS (comma-separated: bpf,perfmon), inherited and ambient,
# so that they are its effective set; "" for none. It execs: use it in a
# subshell only (run, start_bg), where $BG_PID is then CMD's pid.
#
# Before 5.11 BPF memory is charged to RLIMIT_MEMLOCK: the run gets what
# the systemd units give (LimitMEMLOCK=infinity), as its user would.
as_nobody() {
	local caps=$1 lim=()
	shift
	kernel_before 5 11 && lim=(prlimit --memlock=unlimited:unlimited)
	if [ -z "$caps" ]; then
		exec "${lim[@]}" setpriv --reuid=65534 --regid=65534 --clear-groups "$@"
	fi
	caps=+${caps//,/,+}
	exec "${lim[@]}" setpriv --reuid=65534 --regid=65534 --clear-groups --inh-caps="$caps" --ambient-caps="$caps" "$@"
}

# proc_status PID FIELD: a field of /proc/PID/status (CapEff, NoNewPrivs, ...)
proc_status() {
	awk -v f="$2:" '$1 == f { print $2 }' "/proc/$1/status"
}

# nobody_run_dir DIR: a journal directory nobody owns, in a $TMP it can enter
nobody_run_dir() {
	chmod 0711 "$TMP"
	mkdir -m 0700 "$1"
	chown 65534:65534 "$1"
}

# qs_locked: qdiscstuck's lab holds its --lock (qa:1): a locked pfifo on
# 1:2, journaled. qs_unlocked: the lockless pfifo_fast back, no journal.
qs_locked() {
	lab_exec qs-a tc qdisc show dev qa | grep -q "qdisc pfifo [0-9a-f]*: parent 1:2 limit 1000p"
	ls "$RUN_DIR" | grep -q '^qdiscstuck-.*-lock.journal$'
}
qs_unlocked() {
	run lab_exec qs-a tc qdisc show dev qa
	echo "$output"
	assert_line --regexp '^qdisc pfifo_fast [0-9a-f]+: parent 1:2 '
	refute_line --regexp '^qdisc pfifo [0-9a-f]+: parent 1:2'
	! ls "$RUN_DIR" 2>/dev/null | grep -q qdiscstuck
}

# end_bg: end the background CLI as a user would, with SIGTERM, and wait
# for it, failing unless it exits 0. For a test that looks into the process
# while it runs (its BPF fds, its memory): with a fixed -c it could end
# under the look on a loaded host.
end_bg() {
	local rc=0
	kill -TERM "$BG_PID"
	wait "$BG_PID" || rc=$?
	BG_PID=
	[ $rc = 0 ] || { echo "exit $rc" >&2; return 1; }
}

# wait_reports OUT N: wait (30 s at most) until the background CLI has
# written N more interval records to OUT than it holds now. For a test whose
# lab must fall inside the CLI's reports: a fixed -c is a fixed time, and a
# loaded guest can start the lab late enough to leave it out.
wait_reports() {
	local want i
	want=$(($(reports "$1") + $2))
	for i in $(seq 1 300); do
		[ "$(reports "$1")" -ge $want ] && return 0
		kill -0 "$BG_PID" 2>/dev/null || break
		sleep 0.1
	done
	echo "wait_reports: $1 did not get $2 more reports" >&2
	return 1
}
# wait_line FILE REGEX: wait (30 s at most) until FILE has a line that
# matches REGEX (grep -E), while the background CLI runs: for a test that
# times its next step by what the CLI did (a remedy applied), not by a
# sleep that a loaded guest outruns.
wait_line() {
	local i
	for i in $(seq 1 300); do
		grep -qE "$2" "$1" && return 0
		kill -0 "$BG_PID" 2>/dev/null || break
		sleep 0.1
	done
	grep -qE "$2" "$1" && return 0
	echo "wait_line: no line matching '$2' in $1" >&2
	return 1
}
# netns_stop NS...: stop every process in each namespace (a lab's two
# ends). One that exits by itself between the list and the kill (a reader
# whose sender just went) is gone, which is what was asked.
netns_stop() {
	local ns pids
	for ns in "$@"; do
		pids=$(ip netns pids "$ns" 2>/dev/null) || continue
		[ -z "$pids" ] || kill $pids 2>/dev/null || true
	done
}
# reports OUT: how many interval records OUT holds (grep -c fails on none)
reports() { grep -c '"type":"interval"' "$1" || true; }

# assert_stamped FILE TOOL SINCE: every JSON record in FILE carries its
# tool (TOOL; "" for the agent: any detector's name) and its time, a Unix
# time in seconds from SINCE (date +%s before the run) to now; and each
# record of a report has its interval record's time (start, stall and
# kick records have their own). The bad records are printed.
assert_stamped() {
	local bad
	bad=$(jq -sc --arg tool "$2" --argjson t0 "$3" --argjson t1 "$(date +%s)" '
		def off: (.tool | type) != "string" or ($tool != "" and .tool != $tool)
			or (.time | type) != "number" or .time < $t0 - 1 or .time > $t1 + 1;
		reduce .[] as $r ({iv: {}, bad: map(select(off))};
			if $r.type == "interval" then .iv[$r.tool | tostring] = $r.time
			elif ($r.type | IN("start", "stall", "kick")) or .iv[$r.tool | tostring] == $r.time then .
			else .bad += [$r] end) | .bad[]' "$1")
	[ -z "$bad" ] || { echo "records without their tool or time:" >&2; echo "$bad" | head -5 >&2; return 1; }
	[ -s "$1" ]
}
