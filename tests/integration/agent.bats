#!/usr/bin/env bats
# The agent, netmedic (src/agent/netmedic.c; docs/FLEET.md): the three
# detectors in one process, each on its own BPF object. A default run
# finds each tool's lab pathology as its CLI does, each record with its
# "tool"; each detector attaches its CLI's programs (read from the
# process's own BPF file descriptors, not from what it says); --detect
# runs only those named; the one textfile holds every detector's metrics
# and passes promtool.
load helpers

TS=$LAB/tcpstall.sh
QS=$LAB/qdiscstuck.sh
XF=$LAB/xpsflap.sh

setup() {
	TMP=$(mktemp -d)
	BG_PID=
}

teardown() {
	stop_bg KILL
	"$TS" down
	"$QS" down
	"$XF" down
	rm -rf "$TMP"
}

# progs PID: the names of the BPF programs PID holds open, one per line
# (its fds' fdinfo names each program's id; bpftool names the id)
progs() {
	local fd id
	for fd in /proc/"$1"/fd/*; do
		[ "$(readlink "$fd")" = "anon_inode:bpf-prog" ] || continue
		id=$(awk '$1 == "prog_id:" { print $2 }' "/proc/$1/fdinfo/${fd##*/}")
		bpftool prog show id "$id" -j | jq -r .name
	done | sort
}

# memlock_kib PID: the kernel's memlock of the BPF maps PID holds open, KiB
memlock_kib() {
	local fd t=0 m
	for fd in /proc/"$1"/fd/*; do
		[ "$(readlink "$fd")" = "anon_inode:bpf-map" ] || continue
		m=$(awk '$1 == "memlock:" { print $2 }' "/proc/$1/fdinfo/${fd##*/}")
		t=$((t + m))
	done
	echo $((t / 1024))
}

# started PID OUT: PID's first interval record is in OUT, within 10 s
# (its start records came before it); PID names whose output OUT is
started() {
	local i
	for i in $(seq 100); do
		[ "$(jq -s 'map(select(.type == "interval")) | length' "$2")" -ge 1 ] && return 0
		sleep 0.1
	done
	return 1
}

@test "netmedic default run: the ACK storm is found by its tcpstall detector, named, its tool said" {
	"$TS" up --quickack on --defer 0
	t0=$(date +%s)
	start_bg "$TMP/out" "$BIN/netmedic" --json -i 4 -c 1
	"$TS" storm 3 >/dev/null
	wait_bg
	# every detector started and reported
	# every detector's records, in the detectors' order
	[ "$(jq -r 'select(.type == "start") | .tool' "$TMP/out" | paste -sd,)" = "$(nm_tools | paste -sd,)" ]
	[ "$(jq -r 'select(.type == "interval") | .tool' "$TMP/out" | sort -u | paste -sd,)" = "$(nm_tools | sort | paste -sd,)" ]
	# every line names its detector, and carries its report's time
	assert_stamped "$TMP/out" "" "$t0"
	# the lab's receiver, in its netns (a file beside this one may run the
	# same lab, under its own names, at the same time)
	run jq -c --argjson i "$(ino ${LAB_PREFIX}ts-rcv)" \
		'select(.type == "acks" and .sport == 5301 and .saddr == "198.18.1.2" and .netns_ino == $i)' "$TMP/out"
	echo "$output"
	[ "$(echo "$output" | jq -r .tool)" = tcpstall ]
	[ "$(echo "$output" | jq .storm)" = true ]
	[ "$(echo "$output" | jq -r .netns)" = ${LAB_PREFIX}ts-rcv ]
	[ "$(echo "$output" | jq '.causes | index("quickack_route") != null')" = true ]
}

@test "netmedic default run: the stopped child of mq is driver_stopped by its qdiscstuck detector, named" {
	"$QS" up mq
	start_bg "$TMP/out" "$BIN/netmedic" --json -i 0.5 -c 6
	"$QS" burst 1000 1
	wait_bg
	last=$(jq -c 'select(.type == "qdisc" and .netns == "'"${LAB_PREFIX}"'qs-a" and .parent == "1:2")' "$TMP/out" | tail -1)
	echo "$last"
	[ "$(echo "$last" | jq -r .tool)" = qdiscstuck ]
	[ "$(echo "$last" | jq -r .dev)" = qa ]
	[ "$(echo "$last" | jq -r .state)" = driver_stopped ]
	[ "$(echo "$last" | jq .qlen)" -ge 500 ]
	! grep -q '"state":"stuck"' "$TMP/out"
}

@test "netmedic default run: the flapping flow is found by its xpsflap detector, in its netns, by its device" {
	start_bg "$TMP/out" "$BIN/netmedic" --json -i 1 -c 14
	"$XF" up --queues 2 --xps on
	"$XF" traffic 4 >/dev/null
	wait_bg
	# the flow's records, report by report
	# (xpsflap's: another detector may write flow records of its own)
	run jq -sc --argjson i "$(ino ${LAB_PREFIX}xf-mid)" 'map(select(.type == "flow" and .tool == "xpsflap" and
		.proto == "tcp" and .dev == "xqm" and .netns_ino == $i and (.dport == 5201 or .sport == 5201)))' "$TMP/out"
	echo "$output" | jq -c '.[] | {packets, switches, interval_switches, flapping}'
	[ "$(echo "$output" | jq length)" -gt 0 ]
	[ "$(echo "$output" | jq -r 'max_by(.packets) | .netns')" = ${LAB_PREFIX}xf-mid ]
	[ "$(echo "$output" | jq 'max_by(.packets) | .switches')" -gt 0 ]
	# flagged in the reports of the flow's switches (not the last one's
	# only: a report holding the traffic's tail may hold no switch, and a
	# flow is flapping in an interval where it switched; CI once ended
	# with 0 there, after 129 switches)
	[ "$(echo "$output" | jq 'any(.[]; .flapping)')" = true ]
}

# The CLIs' negative controls (tcpstall_scope.bats, xpsflap_scope.bats), from a default run.
# bats test_tags=serial
@test "netmedic default run: negative controls stay clean (ACKs deferred: no storm; one TX queue: no flapping)" {
	"$TS" up --quickack on --defer 1
	start_bg "$TMP/a" "$BIN/netmedic" --json -i 4 -c 1
	"$TS" storm 3 >/dev/null
	wait_bg
	run jq -c 'select(.type == "acks" and .sport == 5301 and .saddr == "198.18.1.2")' "$TMP/a"
	echo "defer=1: $output"
	[ "$(echo "$output" | jq '.tool == "tcpstall" and .storm == false and .segs_owned > 0')" = true ]
	[ "$(jq -s 'map(select(.type == "acks" and .storm)) | length' "$TMP/a")" = 0 ]
	"$XF" up --queues 1
	start_bg "$TMP/b" "$BIN/netmedic" --json -i 7 -c 1
	"$XF" traffic 4 >/dev/null
	wait_bg
	jq -c 'select(.type == "interval" and .tool == "xpsflap")' "$TMP/b"
	[ "$(jq 'select(.type == "interval" and .tool == "xpsflap") | .one_queue_picks' "$TMP/b")" -gt 10000 ]
	[ -z "$(jq -c 'select(.type == "flow" and (.dev == "xqm" or .dev == "xq0"))' "$TMP/b")" ]
	[ "$(jq 'select(.type == "interval" and .tool == "xpsflap") | .flows_flapping' "$TMP/b")" = 0 ]
}

# Each detector on its own object, as its CLI: on net_dev_queue, each
# one's own program (one process shares no program between them: a shared
# one cost no less, docs/PERFORMANCE.md).
@test "netmedic: each detector's own programs, as its CLI's, on net_dev_queue too" {
	start_bg "$TMP/out" "$BIN/netmedic" --json -i 1
	started "$BG_PID" "$TMP/out"
	run progs "$BG_PID"
	echo "$output"
	[ "$(echo "$output" | grep -cE '^ts_queue_(tp|raw)$')" = 1 ]
	[ "$(echo "$output" | grep -cE '^qs_queue_(tp|raw)$')" = 1 ]
	[ "$(echo "$output" | grep -cE '^xf_pick_')" = 1 ]
	# each detector's other hooks are there too
	echo "$output" | grep -q '^ts_sweep$'
	echo "$output" | grep -q '^qs_dequeue_'
	echo "$output" | grep -q '^xf_xmit_'
	end_bg
	jq -c 'select(.type == "start") | {tool, hooks}' "$TMP/out"
	# tcpstall and qdiscstuck say their net_dev_queue hooks are there
	# (xpsflap's pick is on fexit where the kernel allows it: 6.0+ x86)
	for t in tcpstall qdiscstuck; do
		jq -se --arg t $t 'map(select(.type == "start" and .tool == $t)) | length == 1 and
			(.[0].hooks | [.[]] | map(select(test("net_dev_queue"))) | length >= 1)' "$TMP/out"
	done
}

@test "netmedic --list-hooks: each detector's hooks under its name, its own programs" {
	run "$BIN/netmedic" --list-hooks
	assert_success
	# the detectors in their order, each a section with both tables
	[ "$(echo "$output" | grep -E '^[a-z]+:$' | paste -sd ' ')" = "$(nm_tools | sed 's/$/:/' | paste -sd ' ')" ]
	[ "$(echo "$output" | grep -c '^HOOK ')" = "$(nm_tools | wc -l)" ]
	[ "$(echo "$output" | grep -c '^PROGRAM ')" = "$(nm_tools | wc -l)" ]
	# each section's own program on net_dev_queue, loaded
	echo "$output" | grep -qE '^ts_queue_(tp|raw) +ack_xmit .* loaded$'
	echo "$output" | grep -qE '^qs_queue_(tp|raw) +kick_queue .* loaded$'
	echo "$output" | grep -qE '^xf_pick_[a-z_]+ +netdev_pick_tx .* loaded$' 
	run "$BIN/netmedic" --list-hooks --detect=qdiscstuck
	assert_success
	[ "$(echo "$output" | grep -E '^[a-z]+:$')" = "qdiscstuck:" ]
	echo "$output" | grep -qE '^qs_queue_(tp|raw) +kick_queue .* loaded$'
	[ -z "$(echo "$output" | grep -E '^(ts|xf)_')" ]
}

# refuse.bats for the agent. Each detector loads its CLI's object through
# its CLI's ladder (refuse.bats refuses every program of each CLI); here,
# each program the agent loads, refused in turn, takes its own detector to
# the next rung and leaves the others as they were. (A program not loaded
# is not refused: nothing would change.)
@test "netmedic: any one program it loads refused, it starts, every detector reports, the loss is named" {
	local p out loaded all n
	all=$(nm_tools | sort | paste -sd,)
	n=$(nm_tools | wc -l)
	loaded=$("$BIN/netmedic" --opts 'tcpstall=--fix=kick' --list-hooks | awk 'NF == 4 && $4 == "loaded" { print $1 }')
	[ "$(echo "$loaded" | grep -c .)" -ge "$n" ]
	for p in $loaded; do
		out=$(NETMEDIC_REFUSE=$p "$BIN/netmedic" --opts 'tcpstall=--fix=kick' -c 1 -i 0.2 --json 2>"$TMP/err") ||
			fail "$p refused: exit $?: $(cat "$TMP/err")"
		[ "$(echo "$out" | jq -rs '[.[] | select(.type == "start") | .tool] | sort | join(",")')" = "$all" ] ||
			fail "$p refused: not every detector started: $out"
		[ "$(echo "$out" | jq -s '[.[] | select(.type == "interval") | .tool] | unique | length')" = "$n" ] ||
			fail "$p refused: not every detector reported"
		[ "$(echo "$out" | jq -s --arg p "$p" '[.[] | select(.type == "start") | .refused[$p] // empty] | length')" -ge 1 ] ||
			fail "$p refused: no start record names it"
	done
}

@test "netmedic --detect=xpsflap: only that detector's programs and records" {
	start_bg "$TMP/out" "$BIN/netmedic" --detect=xpsflap --json -i 1
	started "$BG_PID" "$TMP/out"
	run progs "$BG_PID"
	echo "$output"
	[ -n "$output" ]
	[ -z "$(echo "$output" | grep -vE '^xf_')" ]
	end_bg
	[ "$(jq -r .tool "$TMP/out" | sort -u | paste -sd,)" = xpsflap ]
}

# A detector not run opens no object: none of its tables is made
# (tcpstall's and xpsflap's flow tables are 16 MiB each by default).
@test "netmedic --detect=qdiscstuck: the detectors not run hold no table memory; as much as the CLI" {
	start_bg "$TMP/cli" "$BIN/qdiscstuck" --json -i 1
	started "$BG_PID" "$TMP/cli"
	cli=$(memlock_kib "$BG_PID")
	end_bg
	start_bg "$TMP/out" "$BIN/netmedic" --detect=qdiscstuck --json -i 1
	started "$BG_PID" "$TMP/out"
	agent=$(memlock_kib "$BG_PID")
	end_bg
	echo "memlock KiB: qdiscstuck $cli, netmedic --detect=qdiscstuck $agent"
	[ "$cli" -gt 0 ]
	[ "$agent" -le $((cli + 1024)) ]
	# all three: about the three CLIs' sum, which the agent's tables are
	start_bg "$TMP/all" "$BIN/netmedic" --json -i 1
	started "$BG_PID" "$TMP/all"
	all=$(memlock_kib "$BG_PID")
	end_bg
	echo "all three: $all"
	[ "$all" -gt $((agent + 16 * 1024)) ]
}

@test "netmedic --prom-file: one textfile of every detector's metrics, valid for promtool" {
	mkdir "$TMP/prom"
	run "$BIN/netmedic" -i 0.5 -c 2 --prom-file "$TMP/prom/netmedic.prom"
	assert_success
	promtool check metrics <"$TMP/prom/netmedic.prom"
	# each detector's metrics, and the self metrics: its hooks, every object's programs
	for t in $(nm_tools); do
		grep -q "^${t}_" "$TMP/prom/netmedic.prom"
		grep -q "^netmedic_hook_info{tool=\"$t\"," "$TMP/prom/netmedic.prom"
	done
	for p in ts_ qs_ xf_; do
		grep -q "^netmedic_bpf_prog_runs_total{tool=\"netmedic\",program=\"$p" "$TMP/prom/netmedic.prom"
	done
	# each family once
	[ "$(grep -c '^# TYPE netmedic_hook_info ' "$TMP/prom/netmedic.prom")" = 1 ]
}

# node_exporter's textfile collector reads every *.prom of its directory:
# the split files hold no sample twice, so that it can merge them.
@test "netmedic --prom-split: one textfile per detector and one of the object's programs, each valid, no sample twice" {
	local t f
	mkdir "$TMP/prom"
	run "$BIN/netmedic" -i 0.5 -c 2 --prom-file "$TMP/prom/netmedic.prom" --prom-split
	assert_success
	for t in $(nm_tools); do
		f=$TMP/prom/netmedic-$t.prom
		promtool check metrics <"$f"
		grep -q "^${t}_" "$f"
		grep -q "^netmedic_hook_info{tool=\"$t\"," "$f"
		# its own detector's samples only
		[ -z "$(grep -v '^#' "$f" | grep 'tool="' | grep -v "tool=\"$t\"")" ]
		[ -z "$(grep '^netmedic_bpf_prog_runs_total' "$f")" ]
	done
	promtool check metrics <"$TMP/prom/netmedic.prom"
	# the stats of programs of every detector's object
	for t in $(nm_tools); do
		"$BIN/nm-verify" --list "$BIN/$t.bpf.o" | awk '{ print "program=\"" $2 "\"" }' >"$TMP/progs"
		grep '^netmedic_bpf_prog_runs_total{tool="netmedic",' "$TMP/prom/netmedic.prom" |
			grep -qF -f "$TMP/progs" || fail "netmedic.prom: no program of $t's object"
	done
	[ -z "$(grep -v '^#' "$TMP/prom/netmedic.prom" | grep -v 'tool="netmedic"')" ]
	# one textfile per detector, and the programs' own
	[ "$(ls "$TMP/prom" | wc -l)" = $(($(nm_tools | wc -l) + 1)) ]
	[ -z "$(cat "$TMP"/prom/*.prom | grep -v '^#' | sed 's/ [^ ]*$//' | sort | uniq -d)" ]
	run "$BIN/netmedic" -c 1 --prom-split
	[ "$status" = 2 ]
	assert_usage_error netmedic
	assert_output --partial "--prom-split: splits --prom-file, which is not given"
}

@test "netmedic: a bad --detect names it and the detectors there are, exit 2" {
	run "$BIN/netmedic" --detect=tcpstall,bogus -c 1
	[ "$status" = 2 ]
	echo "$output"
	echo "$output" | grep -q "invalid --detect 'tcpstall,bogus'"
	run "$BIN/netmedic" --detect= -c 1
	[ "$status" = 2 ]
}

@test "netmedic --opts NAME=ARGS: a detector's own options, its CLI's parser reading them" {
	run --separate-stderr "$BIN/netmedic" --detect=xpsflap --opts 'xpsflap=--max-flows 128 --top 3' --json -c 1 -i 0.3
	assert_success
	[ "$(echo "$output" | jq -s 'map(select(.type == "start")) | .[0].max_flows')" = 128 ]
	[ "$(echo "$output" | jq -s 'map(select(.type == "interval")) | .[0].max_flows')" = 128 ]
	# its own option's bad value: its parser's line, exit 2
	run "$BIN/netmedic" --detect=xpsflap --opts 'xpsflap=--max-flows 3' -c 1
	[ "$status" = 2 ]
	echo "$output" | grep -q "invalid --max-flows '3'"
}

@test "netmedic --opts: a common option (abbreviated too), a one-shot, --list-fixes, an unknown or absent detector, twice: one line each, exit 2" {
	local args
	for args in 'tcpstall=-i 5|-i is the common option --interval' \
		'tcpstall=--json|--json is the common option --json' \
		'xpsflap=--inter=5|--inter=5 is the common option --interval' \
		'qdiscstuck=--kick qa:1|the agent does not run --kick; qdiscstuck --kick does' \
		'xpsflap=--list-fixes|the agent does not run --list-fixes; xpsflap --list-fixes does' \
		'bogus=--top 3|no detector of that name'; do
		run "$BIN/netmedic" --opts "${args%%|*}" -c 1
		echo "$output"
		[ "$status" = 2 ]
		echo "$output" | grep -qF -- "${args#*|}"
	done
	run "$BIN/netmedic" --detect=xpsflap --opts 'tcpstall=--top 3' -c 1
	[ "$status" = 2 ]
	assert_usage_error netmedic
	echo "$output" | grep -q 'tcpstall is not in --detect'
	run "$BIN/netmedic" --opts 'xpsflap=--top 1' --opts 'xpsflap=--top 2' -c 1
	[ "$status" = 2 ]
	echo "$output" | grep -q 'given twice'
}

# #37: --cleanup runs no remedy: one given to a detector with it is refused
# as its CLI refuses it, named by the detector; the agent's own options
# that cannot go together are named by the agent (common_cli.bats).
@test "netmedic --cleanup with a detector's remedy (--opts) -> exit 2, one line naming both" {
	run --separate-stderr "$BIN/netmedic" --cleanup --opts 'qdiscstuck=--fix=lock'
	assert_failure 2
	output=$stderr assert_usage_error qdiscstuck
	assert_equal "$stderr" "qdiscstuck: --cleanup and --fix: --cleanup undoes what a killed instance left, then exits: it runs no remedy"
	run --separate-stderr "$BIN/netmedic" --cleanup --opts 'xpsflap=--pin' --dev lo --detect=xpsflap
	assert_failure 2
	assert_equal "$stderr" "xpsflap: --cleanup and --pin: --cleanup undoes what a killed instance left, then exits: it runs no remedy"
}

# A detector's remedy in the agent is its CLI's: journaled under the
# detector's name (so that its CLI's --cleanup and the agent's find it),
# undone at exit. qdiscstuck's --lock comes after the drop of
# capabilities, xpsflap's --pin before it (agent: change_and_drop).
@test "netmedic --opts 'qdiscstuck=--lock' and 'xpsflap=--pin': made, journaled under the detector, undone on SIGTERM" {
	"$QS" up mq
	start_bg "$TMP/out" "$BIN/netmedic" --detect=qdiscstuck --netns ${LAB_PREFIX}qs-a --opts 'qdiscstuck=--lock qa:1' -i 0.3 --json
	started "$BG_PID" "$TMP/out"
	qs_locked
	stop_bg TERM
	qs_unlocked

	"$XF" up --queues 2 --xps on
	start_bg "$TMP/xf" "$BIN/netmedic" --detect=xpsflap --netns ${LAB_PREFIX}xf-mid --dev xqm --opts 'xpsflap=--pin' -i 0.3 --json
	started "$BG_PID" "$TMP/xf"
	[ "$(lab_xps_get xf-mid xqm 0)" = 0 ]
	ls "$RUN_DIR" | grep -q '^xpsflap-'
	stop_bg TERM
	[ "$(lab_xps_get xf-mid xqm 0)" = 1 ]
	[ "$(lab_xps_get xf-mid xqm 1)" = 2 ]
	[ -z "$(lab_exec xf-mid tc filter show dev xqm egress)" ]
	! ls "$RUN_DIR" 2>/dev/null | grep -q xpsflap
}

@test "netmedic --cleanup: after kill -9, undoes what its detectors left, as their CLIs' --cleanup would" {
	"$QS" up mq
	start_bg "$TMP/out" "$BIN/netmedic" --detect=qdiscstuck --netns ${LAB_PREFIX}qs-a --opts 'qdiscstuck=--lock qa:1' -i 0.3 --json
	started "$BG_PID" "$TMP/out"
	stop_bg KILL
	lab_exec qs-a tc qdisc show dev qa | grep -q "qdisc pfifo [0-9a-f]*: parent 1:2"
	run "$BIN/netmedic" --cleanup
	echo "$output"
	assert_success
	assert_output --partial "1 journal(s) undone"
	qs_unlocked
}
