#!/usr/bin/env bats
# tcpstall on the real kernel against tools/lab/tcpstall.sh: the ACK storm
# is found with its causes, the controls stay clean, --fix lowers the owned
# ratio in the same run and every change is undone; healthy, shaped and
# window-limited senders are classified, never tsq_idle.

# the 6.1 guest runs these in its fentry mode (tools/vm/suite.sh)
# and those tagged vm:arm64 in the arm64 guest too (make vmtest ARCH=arm64)
# bats file_tags=vm:fentry
load helpers

TS=$LAB/tcpstall.sh
RCV=${LAB_PREFIX}ts-rcv
SND=${LAB_PREFIX}ts-snd

setup() {
	TMP=$(mktemp -d)
	BG_PID=
	HOLD_PID=
}

teardown() {
	stop_bg KILL
	hold_end
	"$BIN/tcpstall" --cleanup >/dev/null 2>&1
	"$TS" down
	rm -rf "$TMP"
}

# acks OUT: the receiver socket's ACK records (local port 5301), one per interval
acks() { jq -c 'select(.type == "acks" and .sport == 5301)' "$1"; }
defer() { lab_exec ts-rcv sysctl -n net.ipv4.tcp_backlog_ack_defer; }

# bulk_run OUT [CC]: tcpstall on the sender during a 3-s bulk flow (its
# congestion control CC, the lab's cubic if not given); $output is its
# interval records summed (samples added; sweep_wait_ms the last), and the
# sweep must have seen the sender working.
# On a veth the ACKs come back in microseconds, so at a sweep's instant a
# bulk sender often has nothing unsent and nothing in flight, and is not
# sampled: 9 to 85 samples in about 190 sweeps (full sweeps alike), seen
# over 20 runs. So at least 5. Where the CPUs are shared (the 6.1 guest
# under TCG with a sibling file beside it) one flow was once sampled
# 0 times in 296 sweeps: the flow runs again, 3 times at most, until the
# sweep has seen it 5 times; every sample of every run counts below.
bulk_run() {
	local i
	start_bg "$1" "$BIN/tcpstall" --netns $SND --json -i 1
	for i in 1 2 3; do
		"$TS" bulk 3 1 ${2:-cubic}
		# the report that covers the flow's end
		sleep 1.2
		[ "$(bulk_samples "$1" | jq '.samples | add')" -ge 5 ] && break
	done
	end_bg
	run bulk_samples "$1"
	echo "runs: $i; $output"
	[ "$(echo "$output" | jq '.samples | add')" -ge 5 ]
}
# bulk_samples OUT: OUT's interval records as one (samples added per cause)
bulk_samples() {
	jq -s -c 'map(select(.type == "interval")) |
		{samples: (map(.samples) | reduce .[] as $s ({}; reduce ($s | to_entries[]) as $e (.; .[$e.key] += $e.value))),
		 sweep_wait_ms: (map(.sweep_wait_ms) | last), reports: length}' "$1"
}

# rwnd_run OUT: tcpstall on the sender while its reader stops reading; the
# sender's socket records must say rwnd_limited, for more than 100 ms in all.
# In all, not in one stall: in CI's 6.1 guest (two files at a time) the
# stall came as 6 of at most 45 ms, 205 ms in all, the last ended by a send.
# It reports until a report after the lab's end: with a fixed -i 2.5 -c 1
# a loaded guest once started the lab so late that 33 ms of it were seen.
rwnd_run() {
	local t0
	t0=$(date +%s)
	start_bg "$1" "$BIN/tcpstall" --netns $SND --json -i 0.5
	"$TS" rwnd 2 >/dev/null
	wait_reports "$1" 2
	end_bg
	assert_stamped "$1" tcpstall "$t0"
	run jq -sc 'map(select(.type == "socket" and .dport == 5301)) |
		{last_cause: last.last_cause, stalls: (map(.stalls) | max),
		 ms: (map(.stall_ms_total, .stalled_ms) | max)}' "$1"
	echo "$output"
	[ "$(echo "$output" | jq -r .last_cause)" = rwnd_limited ]
	[ "$(echo "$output" | jq '.ms > 100')" = true ]
}

# storm_run OUT SECONDS [tcpstall args]: tcpstall on the receiver during a slow-reader run
storm_run() {
	local out=$1 secs=$2
	shift 2
	start_bg "$out" "$BIN/tcpstall" --netns $RCV --port 5301 --json "$@"
	"$TS" storm "$secs" >/dev/null
	wait_bg
}

# Left out in the 6.1 guest: 6.1 has no tcp_backlog_ack_defer (6.7): the cause
# is no_backlog_ack_defer, not backlog_ack_defer_off
# bats test_tags=vm:left-out,rungs
@test "tcpstall: quickack route + tcp_backlog_ack_defer=0 is an ACK storm, with both causes" {
	"$TS" up --quickack on --defer 0
	storm_run "$TMP/out" 3 -i 4 -c 1
	run acks "$TMP/out"
	echo "$output"
	[ "$(echo "$output" | jq .storm)" = true ]
	[ "$(echo "$output" | jq '.acks_per_seg >= 0.9 and .owned_ratio >= 0.9 and .segs_owned > 0')" = true ]
	[ "$(echo "$output" | jq '.causes | index("quickack_route") != null')" = true ]
	[ "$(echo "$output" | jq '.causes | index("backlog_ack_defer_off") != null')" = true ]
	[ "$(jq 'select(.type == "interval") | .ack_storm_flows' "$TMP/out")" -ge 1 ]
}

# Left out in the 6.1 guest: the defer=1 control needs the 6.7 sysctl; on 6.1
# every backlog ACK is sent
# bats test_tags=vm:left-out,rungs,serial
@test "tcpstall: controls, tcp_backlog_ack_defer=1 and no quickack route, are not storms" {
	"$TS" up --quickack on --defer 1
	storm_run "$TMP/a" 3 -i 4 -c 1
	run acks "$TMP/a"
	echo "defer=1: $output"
	[ "$(echo "$output" | jq .storm)" = false ]
	[ "$(echo "$output" | jq '.segs_owned > 0')" = true ]
	[ "$(echo "$output" | jq '.causes | index("backlog_ack_defer_off") == null')" = true ]
	"$TS" up --quickack off --defer 0
	storm_run "$TMP/b" 3 -i 4 -c 1
	run acks "$TMP/b"
	echo "no quickack: $output"
	[ "$(echo "$output" | jq .storm)" = false ]
	[ "$(echo "$output" | jq '.causes | index("quickack_route") == null')" = true ]
}

# Left out in the 6.1 guest: --fix's lever is the 6.7 sysctl; on 6.1 tcpstall
# says it has none
# bats test_tags=vm:left-out,rungs,serial
@test "tcpstall --fix: the owned ratio falls in the same run; the sysctl is restored at exit" {
	"$TS" up --quickack on --defer 0
	storm_run "$TMP/out" 6 -i 1.5 -c 4 --fix
	run acks "$TMP/out"
	echo "$output"
	[ "$(echo "$output" | head -1 | jq .storm)" = true ]
	# every record after the fix is no storm, and in each the owned ratio is
	# below 0.9 times the one before the fix. Not near 0: with the defer on, each
	# backlog run still sends its one deferred ACK from release_cb, while
	# the socket is owned, so the ratio is about 1 / (segments per backlog
	# run), which the lab's timing varies (0.23 to 0.80 seen after the fix,
	# 1.04 before it)
	[ "$(echo "$output" | tail -n +2 | jq -s 'length > 0 and all(.storm == false)')" = true ]
	[ "$(echo "$output" | jq -s '.[0].owned_ratio as $r | .[1:] | all(.owned_ratio < 0.9 * $r)')" = true ]
	grep -q "tcp_backlog_ack_defer 0 -> 1" "$TMP/out.err"
	grep -q "the route to 198.18.1.1 has quickack 1" "$TMP/out.err"
	assert_equal "$(defer)" 0
}

# Left out in the 6.1 guest: no tcp_backlog_ack_defer on 6.1: nothing to journal
# or restore
# bats test_tags=vm:left-out,undo
@test "tcpstall --fix: after kill -9, --cleanup restores tcp_backlog_ack_defer" {
	"$TS" up --quickack on --defer 0
	start_bg "$TMP/out" "$BIN/tcpstall" --netns $RCV --port 5301 -i 0.5 --fix
	"$TS" storm 2 >/dev/null
	assert_equal "$(defer)" 1
	# a second --fix instance in the same netns is refused, nothing changed
	run "$BIN/tcpstall" --netns $RCV --fix -c 1
	assert_failure 1
	assert_output --partial "already"
	stop_bg KILL
	assert_equal "$(defer)" 1
	run "$BIN/tcpstall" --cleanup
	assert_success
	assert_output --partial "1 journal(s) undone"
	assert_equal "$(defer)" 0
}

# bats test_tags=vm:arm64,vm:matrix,rungs
@test "tcpstall: a healthy bulk sender is never tsq_idle" {
	"$TS" up --quickack off --defer 1
	# the sweep saw the sender working...
	bulk_run "$TMP/out"
	# ...and never in the bug's state
	[ "$(echo "$output" | jq '.samples.tsq_idle')" = 0 ]
	! grep -q tsq_idle <(jq -c 'select(.type == "socket")' "$TMP/out")
}

# 50 mbit, as the BBR test below: at 200 the 6.1 guest's (TCG) CPU, not
# tbf, was once the bottleneck, and no sample was host_queue (sending 68,
# nagle 8, in CI's rehearsal of 2026-12-04).
# bats test_tags=rungs
@test "tcpstall: a tbf-shaped sender is throttled with data below TCP, never tsq_idle" {
	"$TS" up --quickack off --defer 1 --tbf 50mbit
	bulk_run "$TMP/out"
	[ "$(echo "$output" | jq '.samples.host_queue')" -gt 0 ]
	[ "$(echo "$output" | jq '.samples.tsq_idle')" = 0 ]
	! grep -q tsq_idle <(jq -c 'select(.type == "socket")' "$TMP/out")
}

# BBR paces: tcp_write_xmit() waits for the pacing timer before the TSQ
# check, and so does the classification, so behind a shaper that is the
# path's bottleneck the sender is often pacing. How often depends on the
# kernel and the run, not on the tool: throttled with its data in the
# shaper (host_queue) or cwnd_limited share the rest. Seen: 87 pacing, 8
# host_queue, 177 cwnd_limited on the 6.18 host in one run; on 5.10,
# 40 and 12 pacing against 67 and 47 host_queue (two runs, TCG). 50 mbit, as the test
# above: the 6.1 guest (TCG) cannot carry 200 mbit, so there its
# CPU, not tbf, was the bottleneck and host_queue won half the runs (52 to
# 71 pacing samples against 63 to 88 host_queue). At 50 mbit, seen over 3
# runs: 88 to 130 against 14 to 32 in the guest, 90 to 168 against 4 to
# 18 on the host.
# bats test_tags=rungs,serial
@test "tcpstall: a BBR sender behind tbf is seen pacing, never tsq_idle" {
	"$TS" up --quickack off --defer 1 --tbf 50mbit
	bulk_run "$TMP/out" bbr
	[ "$(echo "$output" | jq '.samples.pacing')" -gt 0 ]
	[ "$(echo "$output" | jq '.samples.tsq_idle')" = 0 ]
}

# bats test_tags=rungs
@test "tcpstall: a reader that stops reading leaves the sender rwnd_limited" {
	"$TS" up --quickack off --defer 1
	rwnd_run "$TMP/out"
}

# Left out in the 6.1 guest: under TCG one sock_diag dump costs about 4 ms of
# CPU, so the sweeps' 5 % budget spaces them about 80 ms apart (40 ms on the
# host): the 2-s and 3-s flows are sampled too few times for the host's
# thresholds (seen: 4 samples of the bulk sender in 22 sweeps); the rung is the
# same code on both kernels
# bats test_tags=vm:left-out
@test "tcpstall on sock_diag (every iterator refused): the stopped reader's sender is rwnd_limited, a bulk sender is sampled" {
	"$TS" up --quickack off --defer 1
	NETMEDIC_REFUSE=iter/ rwnd_run "$TMP/out"
	jq -s -e 'map(select(.type == "start"))[0] | .hooks.sweep == "sock_diag" and .full_sweep_by == "sock_diag"' "$TMP/out"
	NETMEDIC_REFUSE=iter/ bulk_run "$TMP/out2"
	# sock_diag cannot read TSQ flags: it never says tsq_idle or host_queue
	[ "$(echo "$output" | jq '.samples.tsq_idle + .samples.host_queue')" = 0 ]
	# the budget: sweeps of the whole table wait at least 19 times their cost
	[ "$(echo "$output" | jq '.sweep_wait_ms >= 10')" = true ]
}

# bats test_tags=rungs
@test "tcpstall --max-flows 64: 128 flows fill at most 64 slots, the rest counted; closed sockets free theirs" {
	"$TS" up --quickack on --defer 0
	mkdir "$TMP/prom"
	# one report interval for the whole run, ended by SIGINT (a last report):
	# a slot stays its socket's for two intervals unless the socket closes,
	# so only the close hook can give the storm a slot. 30 s: the 6.1 guest
	# (TCG) takes 15-20 s for the two runs.
	start_bg "$TMP/out" "$BIN/tcpstall" --netns $RCV --max-flows 64 --json -i 30 \
		--prom-file "$TMP/prom/tcpstall.prom"
	"$TS" bulk 2 128
	"$TS" storm 3 >/dev/null
	stop_bg INT
	run jq -c 'select(.type == "interval")' "$TMP/out"
	echo "$output"
	# one report, before the 30 s were up
	[ "$(echo "$output" | grep -c .)" = 1 ]
	# the table is full of busy sockets: never more than its size...
	[ "$(echo "$output" | jq .ack_flows)" -gt 32 ]
	[ "$(echo "$output" | jq .ack_flows)" -le 64 ]
	# ...and the sockets that found no slot are counted, not silently lost
	[ "$(echo "$output" | jq .ack_untracked_events)" -gt 0 ]
	grep -E '^netmedic_map_max_entries\{tool="tcpstall",map="acks"\} 64$' "$TMP/prom/tcpstall.prom"
	grep -E '^netmedic_map_untracked_total\{tool="tcpstall",map="acks"\} [1-9]' "$TMP/prom/tcpstall.prom"
	# the 128 flows closed before the storm: it got a closed socket's slot
	run acks "$TMP/out"
	echo "storm: $output"
	[ "$(echo "$output" | jq -s 'map(select(.storm)) | length')" -ge 1 ]
}

# #18: JSON carries the flows that matter, not one record per flow per
# interval: past --top, only those in a storm or misplaced (their acks
# record says storm, or the placement after it cross_cpu or split_softirq).
@test "tcpstall --top 4: of 32 busy flows JSON has the top 4 and what matters, the rest counted; --all has all" {
	"$TS" up --quickack off --defer 1
	# one report over the whole lab, however late a loaded host starts it:
	# a long interval, cut short by SIGTERM (a signal's interval still reports)
	start_bg "$TMP/a" "$BIN/tcpstall" --netns $RCV --top 4 --json -i 60
	"$TS" bulk 2 32
	end_bg
	ir=$(jq -c 'select(.type == "interval")' "$TMP/a")
	echo "$ir"
	flows=$(echo "$ir" | jq .ack_flows)
	[ "$flows" -gt 8 ]
	# each acks record with the placement that follows it, in their order (one report)
	jq -sc 'reduce .[] as $r ([]; if $r.type == "acks" then . + [{a: $r}]
		elif $r.type == "placement" then .[-1].p = $r else . end)' "$TMP/a" >"$TMP/rows"
	shown=$(jq length "$TMP/rows")
	echo "shown $shown"
	[ "$shown" -ge 4 ]
	[ "$((shown + $(echo "$ir" | jq .ack_flows_not_shown)))" = "$flows" ]
	# past the top 4, each one matters
	jq -e '.[4:] | all(.a.storm or .p.cross_cpu == true or .p.split_softirq == true)' "$TMP/rows"
	start_bg "$TMP/b" "$BIN/tcpstall" --netns $RCV --all --json -i 60
	"$TS" bulk 2 32
	end_bg
	ir=$(jq -c 'select(.type == "interval")' "$TMP/b")
	echo "--all: $ir"
	[ "$(echo "$ir" | jq .ack_flows)" -gt 8 ]
	[ "$(echo "$ir" | jq .ack_flows_not_shown)" = 0 ]
	[ "$(jq -s 'map(select(.type == "acks")) | length' "$TMP/b")" = "$(echo "$ir" | jq .ack_flows)" ]
}

# #18: --sort picks the key of the top N. The acks records come storms
# first, then by that key, most first: here data segments, which on a bulk
# receiver need not follow the ACKs it sent (ACKs are delayed, coalesced).
@test "tcpstall --sort segs: the acks records by data segments after the storms; a bad key is refused" {
	run --separate-stderr "$BIN/tcpstall" --sort bytes -c 1
	assert_failure 2
	assert_equal "${stderr_lines[0]}" "tcpstall: invalid --sort 'bytes': acks, segs, ratio, owned or drops"
	[ "$(printf '%s\n' "$stderr" | grep -c invalid)" = 1 ]
	"$TS" up --quickack off --defer 1
	# one report over the whole lab (a long interval cut short by SIGTERM)
	start_bg "$TMP/a" "$BIN/tcpstall" --netns $RCV --sort segs --top 4 --json -i 60
	"$TS" bulk 2 32
	end_bg
	jq -sc 'map(select(.type == "acks"))' "$TMP/a" >"$TMP/rows"
	jq -c '.[] | [.storm, .data_segs_in, .acks_out]' "$TMP/rows"
	[ "$(jq length "$TMP/rows")" -ge 4 ]
	# storms first, then data segments never rising
	jq -e '[.[] | .storm] | . == (sort | reverse)' "$TMP/rows"
	jq -e 'map(select(.storm | not) | .data_segs_in) | . == (sort | reverse)' "$TMP/rows"
	# and the table's ACK rows in that order: SEGS (k, M: powers of 1000) never rising
	start_bg "$TMP/t" "$BIN/tcpstall" --netns $RCV --sort segs --all -i 60
	"$TS" bulk 2 8
	end_bg
	awk '/^ACKs in the last interval/ { on = 1; next } on && $1 == "-" {
		v = $3; m = v ~ /k$/ ? 1e3 : v ~ /M$/ ? 1e6 : v ~ /G$/ ? 1e9 : 1; print v * m }' \
		"$TMP/t" >"$TMP/segs"
	cat "$TMP/segs"
	[ "$(grep -c . "$TMP/segs")" -ge 4 ]
	sort -g -r "$TMP/segs" | diff - "$TMP/segs"
}

@test "tcpstall: Prometheus textfile passes promtool" {
	"$TS" up --quickack on --defer 0
	mkdir "$TMP/prom"
	# the textfile of one report over the whole storm (a long interval
	# cut short by SIGTERM): a late start on a loaded host leaves none out
	start_bg "$TMP/out" "$BIN/tcpstall" --netns $RCV --port 5301 --json -i 60 \
		--prom-file "$TMP/prom/tcpstall.prom"
	"$TS" storm 3 >/dev/null
	end_bg
	run promtool check metrics <"$TMP/prom/tcpstall.prom"
	echo "$output"
	assert_success
	grep -E '^tcpstall_ack_storm_flows [1-9]' "$TMP/prom/tcpstall.prom"
	grep -E '^tcpstall_acks_sent_total [1-9]' "$TMP/prom/tcpstall.prom"
	grep -E '^netmedic_hook_info\{tool="tcpstall",hook="tcp_rcv"' "$TMP/prom/tcpstall.prom"
}

# Left out in the 6.1 guest: the gauge is the report's, on no rung of its
# own, and the --fix=rfs test below flags the same flow there
# bats test_tags=vm:left-out,rungs,serial
@test "tcpstall: a cross-CPU flow is counted in tcpstall_cross_cpu_flows" {
	# RPS puts the receiver's softirq work on CPU 0; the reader runs on CPU 1
	"$TS" up --quickack off --defer 1 --rps 1
	mkdir "$TMP/prom"
	start_bg "$TMP/out" "$BIN/tcpstall" --netns $RCV --port 5301 --json -i 1 -c 4 \
		--prom-file "$TMP/prom/tcpstall.prom"
	"$TS" read 4 >/dev/null
	wait_bg
	jq -c 'select(.type == "interval") | .cross_cpu_flows' "$TMP/out"
	grep '^tcpstall_cross_cpu_flows' "$TMP/prom/tcpstall.prom"
	# the last report's: the JSON's count, in the one --netns's series
	want=$(jq -s 'map(select(.type == "interval")) | last | .cross_cpu_flows' "$TMP/out")
	[ "$want" -ge 1 ]
	grep -qx "tcpstall_cross_cpu_flows $want" "$TMP/prom/tcpstall.prom"
}

# bats test_tags=rungs,serial
@test "tcpstall --fix=rfs: a cross-CPU flow is flagged, RFS moves softirq to the reader's CPU, restored" {
	# RPS puts the receiver's softirq work on CPU 0; the reader runs on CPU 1
	"$TS" up --quickack off --defer 1 --rps 1
	flows=$(cat /proc/sys/net/core/rps_sock_flow_entries)
	start_bg "$TMP/out" "$BIN/tcpstall" --netns $RCV --port 5301 --json -i 1 -c 6 --fix=rfs
	"$TS" read 6 >/dev/null
	wait_bg
	run jq -c 'select(.type == "placement" and .sport == 5301)' "$TMP/out"
	echo "$output"
	# flagged while softirq ran on CPU 0 only and the reader on CPU 1 ...
	echo "$output" | jq -c 'select(.cross_cpu and .softirq_cpus == [0] and .app_cpus == [1])' | grep -q .
	# ... and once RFS steers, the flow's softirq work runs on the reader's CPU
	[ "$(echo "$output" | tail -1 | jq '.cross_cpu == false and .softirq_cpus == [1]')" = true ]
	grep -q "rps_flow_cnt 0 -> 4096" "$TMP/out.err"
	assert_equal "$(cat /proc/sys/net/core/rps_sock_flow_entries)" "$flows"
	assert_equal "$(lab_exec ts-rcv cat /sys/class/net/ts1/queues/rx-0/rps_flow_cnt)" 0
}

# bats test_tags=vm:arm64,vm:matrix,rungs
@test "tcpstall --fix=routes: the quickack route is dropped while it runs, the storm ends, the route is back" {
	"$TS" up --quickack on --defer 0
	# timed by what the CLI does, not by a fixed -c: the flow runs (30 s at
	# most) until the fix and two reports after it, however late a loaded
	# guest starts it, then its two ends are stopped
	start_bg "$TMP/out" "$BIN/tcpstall" --netns $RCV --port 5301 --json -i 1.5 --fix=routes
	"$TS" storm 30 >/dev/null &
	lab=$!
	wait_line "$TMP/out.err" "without quickack"
	wait_reports "$TMP/out" 2
	end_bg
	netns_stop $SND $RCV
	wait $lab || true
	run acks "$TMP/out"
	echo "$output"
	# the first interval with enough segments to judge (200; under TCG the
	# first one may hold only the flow's start) is a storm, the fix follows
	[ "$(echo "$output" | jq -s 'map(select(.data_segs_in >= 200)) | .[0].storm')" = true ]
	# and the last, with the flow still running, is none, without the route
	[ "$(echo "$output" | jq -s 'map(select(.data_segs_in >= 200)) | last |
		.storm == false and (.causes | index("quickack_route") == null)')" = true ]
	# who reads it: the lab's reader (where the kernel has sock_recv_length, 6.3+)
	if "$BIN/tcpstall" --list-hooks | grep -qE '^app_io +1 .* chosen$'; then
		[ "$(echo "$output" | jq -sr 'map(select(.data_segs_in >= 200)) | last | .comm')" = nm-tcp ]
	fi
	[[ $(lab_exec ts-rcv ip route show 198.18.1.1) == *"quickack 1"* ]]
	# --fix=routes leaves tcp_backlog_ack_defer alone (where the kernel has it: 6.7+)
	if [ -e /proc/sys/net/ipv4/tcp_backlog_ack_defer ]; then
		assert_equal "$(defer)" 0
	fi
}

# nodelay_becomes FILE V: the sender's TCP_NODELAY, as nm-tcp writes it, is V within 3 s
nodelay_becomes() {
	local i
	for i in $(seq 1 30); do
		[ "$(cat "$1" 2>/dev/null)" = "$2" ] && return 0
		sleep 0.1
	done
	echo "TCP_NODELAY of the sender: '$(cat "$1" 2>/dev/null)', not $2" >&2
	return 1
}

# hold_bg: a sender whose reader stops reading (unsent data, window
# closed), writing its TCP_NODELAY to $TMP/nodelay, until hold_end. It is
# ended, not timed: a fixed length (4, 6, 8, 10 and 15 s over time) was
# outlasted by tcpstall's start on a loaded machine (CI's 6.1 guest, two
# files at a time), and the flow ended inside the run. HOLD_S bounds it.
HOLD_S=60
hold_bg() {
	"$TS" hold $HOLD_S "$TMP/nodelay" >/dev/null &
	HOLD_PID=$!
	nodelay_becomes "$TMP/nodelay" 0
	sleep 0.7	# past the reader's stop: the sender holds unsent data
}

# hold_end: the held flow ends now: its sender and reader, the only
# processes in the lab's namespaces, are stopped
hold_end() {
	[ -n "${HOLD_PID:-}" ] || return 0
	netns_stop $SND $RCV
	# killed, the lab's run exits non-zero: what matters is that it ended
	wait "$HOLD_PID" 2>/dev/null || true
	HOLD_PID=
}

# kick_refuse RUNG: NETMEDIC_REFUSE for a --fix=kick run whose kick hook
# takes RUNG: the pass's own for iter/tcp (ts_kick, where the kernel allows
# it); ts_kick added for pidfd_getfd, the userspace rung of kernels before
# 5.15 (tcpstall/kickfd.c)
kick_refuse() {
	if [ "$1" = pidfd_getfd ]; then
		echo "${NETMEDIC_REFUSE:+$NETMEDIC_REFUSE,}ts_kick"
	else
		echo "${NETMEDIC_REFUSE:-}"
	fi
}

# kick_rung: the kick hook's rung on this kernel: iter/tcp, else (before
# 5.15, where iter/tcp may not call bpf_setsockopt) pidfd_getfd
kick_rung() {
	if kernel_before 5 15; then echo pidfd_getfd; else echo iter/tcp; fi
}

# kick_rung_listed RUNG: --list-hooks says the kick hook took RUNG
kick_rung_listed() {
	NETMEDIC_REFUSE=$(kick_refuse "$1") "$BIN/tcpstall" --fix=kick --list-hooks |
		grep -E "^kick +[0-9]+ +$1 +chosen$" || fail "--list-hooks: the kick hook did not take $1"
}

# kick_rung_is JSON RUNG: the start record of the JSON lines and --list-hooks say RUNG
kick_rung_is() {
	assert_equal "$(printf '%s\n' "$1" | jq -r 'select(.type == "start") | .hooks.kick')" "$2"
	kick_rung_listed "$2"
}

# kick_never RUNG: --fix=kick on RUNG never kicks a stalled sender that is not tsq_idle
kick_never() {
	local refuse
	refuse=$(kick_refuse "$1")
	"$TS" up --quickack off
	hold_bg
	NETMEDIC_REFUSE=$refuse run "$BIN/tcpstall" --netns $SND --port 5301 --fix=kick --json -i 1.5 -c 1
	assert_success
	hold_end
	kick_rung_is "$output" "$1"
	printf '%s\n' "$output" | jq -c 'select(.type == "socket")'
	[ "$(printf '%s\n' "$output" | jq -r 'select(.type == "socket") | .state')" = rwnd_limited ]
	assert_equal "$(printf '%s\n' "$output" | jq -c 'select(.type == "interval") | .kicks')" \
		'{"attempted":0,"done":0,"failed":0,"skipped":0}'
	# when it kicks follows the tcp_push rung: its timer, or a pass where only
	# fexit runs, or the kprobes (no timer: the walk), or a sweep
	printf '%s\n' "$output" | jq -se 'map(select(.type == "start"))[0] |
		if .hooks.tcp_push == "fexit/tcp_push" then .kick_at == "threshold" or .kick_at == "threshold_walk"
		elif .hooks.tcp_push == "kprobe/tcp_push" then .kick_at == "threshold_walk"
		else .kick_at == "next_sweep" and .kicker == "none" end'
	printf '%s\n' "$output" | jq -se 'map(select(.type == "interval")) | length > 0 and all(.kick_age_max_ms == 0)'
}

# kick_any RUNG: --fix=kick on RUNG, with the test aid that kicks any socket
# with unsent data: kicks done and counted in every sink, TCP_NODELAY back,
# no record left for --cleanup
kick_any() {
	local refuse prom=$TMP/ts.prom
	refuse=$(kick_refuse "$1")
	"$TS" up --quickack off
	hold_bg
	NETMEDIC_REFUSE=$refuse NETMEDIC_TEST_KICK=any run --separate-stderr "$BIN/tcpstall" --netns $SND \
		--port 5301 --fix=kick --json -i 1 -c 2 --prom-file "$prom"
	assert_success
	echo "$stderr"
	nodelay_becomes "$TMP/nodelay" 0
	hold_end
	kick_rung_is "$output" "$1"
	# what each interval saw, for a failure's log: how often it swept, what the sweeps sampled
	printf '%s\n' "$output" | jq -c 'select(.type == "interval") | {sweeps, sweep_wait_ms, samples, kicks}'
	kicks=$(printf '%s\n' "$output" | jq -c 'select(.type == "interval") | .kicks' | tail -1)
	echo "kicks: $kicks"
	sock=$(printf '%s\n' "$output" | jq -c 'select(.type == "socket" and .dport == 5301)' | tail -1)
	# one socket, once in each stall at once, then once per 200 ms at most:
	# 2 s of it. At least one kick more than the stalls: a repeat within a
	# stall, after the gap. An idle guest makes 10; a loaded one (CI's 6.1
	# guest, two files at a time) made 2, its sweeps stretched by their budget.
	stalls=$(echo "$sock" | jq '.stalls + (if .stalled then 1 else 0 end)')
	echo "stalls: $stalls"
	[ "$(echo "$kicks" | jq --argjson n "$stalls" \
		'.done >= 2 and .done > $n and .done <= 11 + $n and .failed == 0 and
		 .attempted == .done + .skipped')" = true ]
	[ "$(echo "$sock" | jq '.kicks >= 2 and .last_kick == "done"')" = true ]
	[[ $stderr == *"fix: kick: pushed the pending data of 198.18.1.1:"*">198.18.1.2:5301 (TCP_NODELAY 1, then back to 0)"* ]]
	grep -qE '^tcpstall_kicks_total\{result="done"\} [1-9][0-9]*$' "$prom"
	grep -qx 'tcpstall_kicks_total{result="failed"} 0' "$prom"
	# a kick of a stalled socket carries the stall's age, in both sinks. The
	# test aid also kicks sockets with unsent data that are in no stall (no
	# age), and on a loaded machine one interval may have had only those.
	printf '%s\n' "$output" | jq -c 'select(.type == "interval") | [.kick_age_max_ms, .kick_age_mean_ms]'
	printf '%s\n' "$output" | jq -se 'map(select(.type == "interval")) | length == 2 and
		any(.kick_age_max_ms > 0) and
		all(.kick_age_mean_ms >= 0 and .kick_age_mean_ms <= .kick_age_max_ms and
		    ((.kick_age_max_ms > 0) == (.kick_age_mean_ms > 0)))'
	# the textfile holds the last interval's figure
	last=$(printf '%s\n' "$output" | jq -s 'map(select(.type == "interval")) | last | .kick_age_max_ms')
	gauge=$(sed -n 's/^tcpstall_kick_age_max_seconds \([0-9.e+-]*\)$/\1/p' "$prom")
	echo "last interval: $last ms, gauge: $gauge s"
	[ -n "$gauge" ]
	# JSON carries 6 significant digits
	awk -v g="$gauge" -v l="$last" 'BEGIN { d = g * 1000 - l; t = l * 1e-5 + 0.001; exit !(d <= t && d >= -t) }'
	promtool check metrics <"$prom"
	# every record was dropped: there is nothing for --cleanup
	NETMEDIC_REFUSE=$refuse run "$BIN/tcpstall" --cleanup
	assert_success
	assert_output --partial "0 journal(s) undone"
}

# kick_crash RUNG: --fix=kick on RUNG killed between the set and the
# restore leaves the sender's socket with TCP_NODELAY 1 (proof that the
# kick reached it); --cleanup, on the same rung, puts it back
kick_crash() {
	local refuse
	refuse=$(kick_refuse "$1")
	"$TS" up --quickack off
	hold_bg
	kick_rung_listed "$1"
	# the test aid stops the first kick after TCP_NODELAY=1 and kills tcpstall (SIGKILL)
	NETMEDIC_REFUSE=$refuse NETMEDIC_TEST_KICK=crash run "$BIN/tcpstall" --netns $SND --port 5301 \
		--fix=kick -i 1 -c 3
	assert_failure 137
	# the kick was made and not undone: the sender's socket has TCP_NODELAY 1
	nodelay_becomes "$TMP/nodelay" 1
	NETMEDIC_REFUSE=$refuse run "$BIN/tcpstall" --cleanup
	assert_success
	echo "$output"
	assert_line --regexp '^restored TCP_NODELAY of 198\.18\.1\.1:[0-9]+>198\.18\.1\.2:5301 \(netns [0-9]+\) to 0 \(it was 1\)$'
	assert_output --partial "1 journal(s) undone"
	nodelay_becomes "$TMP/nodelay" 0
	NETMEDIC_REFUSE=$refuse run "$BIN/tcpstall" --cleanup
	assert_output --partial "0 journal(s) undone"
	hold_end
}

# In the arm64 guest too: there tcp_push has no fexit (arm64 6.1: ENOTSUPP),
# so its kick rung is the host's, a sweep's (kick_at next_sweep)
# bats test_tags=vm:arm64,rungs
@test "tcpstall --fix=kick: a stalled sender that is not tsq_idle is never kicked" {
	kick_never "$(kick_rung)"
}

# bats test_tags=vm:arm64,rungs
@test "tcpstall --fix=kick (NETMEDIC_TEST_KICK=any): kicks are made, counted, TCP_NODELAY is back, nothing left journaled" {
	kick_any "$(kick_rung)"
}

# bats test_tags=undo
@test "tcpstall --fix=kick: killed between the set and the restore, --cleanup puts the socket's TCP_NODELAY back" {
	kick_crash "$(kick_rung)"
}

# The kick hook's second rung, pidfd_getfd: where iter/tcp may not set
# socket options (5.10, 5.14), userspace takes the socket from its process
# and makes the same kick; ts_kick refused makes it the rung here.
# bats test_tags=rungs
@test "tcpstall --fix=kick on pidfd_getfd (ts_kick refused): a stalled sender that is not tsq_idle is never kicked" {
	kick_never pidfd_getfd
}

# bats test_tags=rungs
@test "tcpstall --fix=kick on pidfd_getfd (ts_kick refused, NETMEDIC_TEST_KICK=any): kicks are made, counted, TCP_NODELAY is back" {
	kick_any pidfd_getfd
}

# bats test_tags=undo
@test "tcpstall --fix=kick on pidfd_getfd (ts_kick refused): killed after the set, --cleanup puts TCP_NODELAY back the same way" {
	kick_crash pidfd_getfd
}

# #16.9: least privilege. nobody holding only what the run needs.
# bats test_tags=rungs
@test "tcpstall as nobody with CAP_BPF, CAP_PERFMON, CAP_SYS_ADMIN (--netns): the ACK storm is found" {
	"$TS" up --quickack on --defer 0
	start_bg "$TMP/out" as_nobody bpf,perfmon,sys_admin "$BIN/tcpstall" --netns $RCV --port 5301 --json -i 4 -c 1 -v
	"$TS" storm 3 >/dev/null
	wait_bg
	grep -q "$(caps_kept none)" "$TMP/out.err"
	run acks "$TMP/out"
	echo "$output"
	[ "$(echo "$output" | jq .storm)" = true ]
}

# Left out in the 6.1 guest: --fix=defer's lever is the 6.7 sysctl; on 6.1 there
# is nothing to set (tcpstall_cli.bats checks what --fix keeps there)
# bats test_tags=vm:left-out
@test "tcpstall --fix as nobody: keeps CAP_NET_ADMIN only, the sysctl is set and restored at exit" {
	"$TS" up --quickack on --defer 0
	nobody_run_dir "$TMP/run"
	NETMEDIC_RUN_DIR=$TMP/run start_bg "$TMP/out" as_nobody bpf,perfmon,sys_admin,net_admin \
		"$BIN/tcpstall" --netns $RCV --port 5301 --json -i 1.5 -c 4 --fix=defer -v
	"$TS" storm 6 >/dev/null
	wait_bg
	grep -q "$(caps_kept cap_net_admin "remedies")" "$TMP/out.err"
	grep -q "tcp_backlog_ack_defer 0 -> 1" "$TMP/out.err"
	assert_equal "$(defer)" 0
	[ -z "$(ls "$TMP/run")" ]
}
