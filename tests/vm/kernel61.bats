#!/usr/bin/env bats
# Run by `make vmtest` inside qemu on Debian's 6.1 kernel (tools/vm/), with
# NETMEDIC_HOOKS=fentry and then =auto. What the CLIs must do there that
# the host (6.18, fentry refused) cannot show: rung 1 (fentry/fexit)
# attached for every hook that has one, the same verdicts on those rungs,
# and plain words about what 6.1 lacks. Not for the host: it skips there.

# the 6.1 guest runs all of these in its fentry mode, the rung tests
# (test_tags vm:auto) in its auto mode too (tools/vm/suite.sh)
# and those tagged vm:arm64 in the arm64 guest too (make vmtest ARCH=arm64)
# bats file_tags=vm:fentry
load ../integration/helpers

setup_file() {
	[[ $(uname -r) == 6.1.* ]] || skip "the 6.1 VM's expectations (make vmtest)"
}

setup() {
	[[ $(uname -r) == 6.1.* ]] || skip "the 6.1 VM's expectations (make vmtest)"
	TMP=$(mktemp -d)
	BG_PID=
}

teardown() {
	[[ $(uname -r) == 6.1.* ]] || return 0
	stop_bg KILL
	for t in $(nm_tools); do "$BIN/$t" --cleanup >/dev/null 2>&1; done
	"$LAB/xpsflap.sh" down
	"$LAB/tcpstall.sh" down
	"$LAB/qdiscstuck.sh" down
	rm -rf "$TMP"
}

# rung61 HOOK: the rung 6.1 gives HOOK on this guest's architecture. x86's
# attaches fentry/fexit; arm64's 6.1 has no ftrace direct calls
# (DYNAMIC_FTRACE_WITH_DIRECT_CALLS, arm64 6.4+), so its BPF trampolines
# fail to attach to a kernel function (ENOTSUPP) and each hook takes its
# next rung (make vmtest ARCH=arm64, docs/KERNELS.md).
rung61() {
	case $(uname -m):$1 in
	aarch64:netdev_pick_tx) echo tp_btf/net_dev_queue ;;
	aarch64:__release_sock) echo kprobe/__release_sock ;;
	aarch64:__qdisc_run) echo tp_btf/qdisc_dequeue ;;
	*:netdev_pick_tx) echo fexit/netdev_core_pick_tx ;;
	*:__release_sock) echo fentry/__release_sock ;;
	*:__qdisc_run) echo fentry/__qdisc_run ;;
	esac
}

# rung1_chosen TOOL HOOK PROGRAM: --list-hooks says rung 1 of HOOK is PROGRAM, chosen,
# and every fentry/fexit rung 1 the tool declares is chosen
rung1_chosen() {
	run "$BIN/$1" --list-hooks
	assert_success
	echo "$output"
	assert_line --regexp "^$2 +1 +$3 +chosen\$"
	! echo "$output" | awk '$2 == 1 && $3 ~ /^(fentry|fexit)\// && $4 != "chosen"' | grep .
}

# bats test_tags=vm:auto
@test "6.1: rung 1 (fentry/fexit) is chosen for every hook that has one" {
	echo "NETMEDIC_HOOKS=${NETMEDIC_HOOKS:-unset}"
	rung1_chosen xpsflap netdev_pick_tx fexit/netdev_core_pick_tx
	rung1_chosen tcpstall __release_sock fentry/__release_sock
	rung1_chosen qdiscstuck __qdisc_run fentry/__qdisc_run
}

# refused_next TOOL HOOK PROGRAM NEXT: --list-hooks says rung 1 of HOOK,
# PROGRAM, is refused with ENOTSUPP and NEXT is chosen
refused_next() {
	run "$BIN/$1" --list-hooks
	assert_success
	echo "$output"
	assert_line --regexp "^$2 +1 +$3 +$3: Operation not supported \(ENOTSUPP\)\$"
	assert_line --regexp "^$2 +[0-9] +$4 +chosen\$"
}

# the arm64 guest's counterpart of the test above (vm:arm64-only: the x86
# guest's modes leave it out)
# bats test_tags=vm:arm64,vm:arm64-only,vm:arm64-smoke
@test "6.1 arm64: every fentry/fexit rung is refused (ENOTSUPP), the next rung is chosen" {
	refused_next xpsflap netdev_pick_tx fexit/netdev_core_pick_tx "$(rung61 netdev_pick_tx)"
	refused_next tcpstall __release_sock fentry/__release_sock "$(rung61 __release_sock)"
	# tcp_push's episodes on its kprobe pair instead (rung 3 with --fix=kick)
	refused_next tcpstall tcp_push fexit/tcp_push kprobe/tcp_push
	refused_next qdiscstuck __qdisc_run fentry/__qdisc_run "$(rung61 __qdisc_run)"
	# no tool chose any fentry/fexit rung
	for t in $(nm_tools); do
		run "$BIN/$t" --list-hooks
		assert_success
		[ -z "$(echo "$output" | awk '$3 ~ /^(fentry|fexit)\// && $4 == "chosen"' | grep .)" ]
	done
}

# bats test_tags=vm:auto,vm:arm64,vm:arm64-smoke
@test "6.1: rung report says what the kernel lacks (tp_btf/sock_recv_length)" {
	run "$BIN/tcpstall" --list-hooks
	assert_success
	assert_line --regexp 'tp_btf/sock_recv_length +tp_btf/sock_recv_length: not in kernel BTF$'
}

# bats test_tags=vm:auto,vm:arm64,vm:arm64-smoke
@test "6.1: -v's first line of each CLI names the rungs it attached (fentry/fexit on x86)" {
	run --separate-stderr "$BIN/xpsflap" -c 1 -i 0.2 -v
	assert_success
	assert_line --index 0 --partial "kernel $(uname -r), hooks netdev_pick_tx=$(rung61 netdev_pick_tx) "
	run --separate-stderr "$BIN/tcpstall" -c 1 -i 0.2 -v
	assert_success
	assert_line --index 0 --partial " __release_sock=$(rung61 __release_sock) "
	run --separate-stderr "$BIN/qdiscstuck" -c 1 -i 0.2 -v
	assert_success
	assert_line --index 0 --partial " __qdisc_run=$(rung61 __qdisc_run) "
	run "$BIN/qdiscstuck" -c 1 -i 0.2 --json
	assert_success
	echo "${lines[0]}" | jq -e --arg r "$(rung61 __qdisc_run)" '.hooks.__qdisc_run == $r'
}

# The agent on 6.1 (src/agent/netmedic.c): each detector on its own
# object, through its own ladder, takes the rungs its CLI takes there
# (the test above checks the CLIs' against rung61): xpsflap's pick on
# fexit, tcpstall's and qdiscstuck's net_dev_queue programs on tp_btf.
@test "6.1: the agent: each detector on its CLI's rungs, xpsflap's pick on fexit" {
	local t
	run --separate-stderr "$BIN/netmedic" --json -c 1 -i 0.5
	assert_success
	echo "$output" | jq -c 'select(.type == "start") | {tool, hooks}'
	hook() { echo "$output" | jq -r --arg t "$1" --arg h "$2" 'select(.type == "start" and .tool == $t) | .hooks[$h]'; }
	[ "$(hook xpsflap netdev_pick_tx)" = "$(rung61 netdev_pick_tx)" ]
	[ "$(hook tcpstall __release_sock)" = "$(rung61 __release_sock)" ]
	[ "$(hook qdiscstuck __qdisc_run)" = "$(rung61 __qdisc_run)" ]
	[ "$(hook xpsflap netdev_pick_tx)" = fexit/netdev_core_pick_tx ]
	for t in tcpstall qdiscstuck; do
		echo "$output" | jq -se --arg t $t 'map(select(.type == "start" and .tool == $t)) |
			length == 1 and (.[0].hooks | [.[]] | index("tp_btf/net_dev_queue") != null)'
	done
}

# 6.1 has no sock_send_length: without another tag a sender reaches the
# fast sweep only when a full sweep (1 s apart) finds it with data to send,
# and under TCG the iperf3 sender is often between writes (one guest run in
# six of tcpstall.bats's bulk test then had 0 samples).
# Under TCG a 3-s flow was once sampled 0 times on fexit/tcp_push too (a
# clean-clone CI run, 2026-12-05; every other run had dozens): as in
# tcpstall.bats's bulk_run, the flow runs again, 3 times at most, until the
# samples of all its runs pass 10; every sample of every run counts, and no
# run may have a tsq_idle one.
@test "6.1: a bulk sender is tagged by fexit/tcp_push, or by net_dev_queue without fentry, and sampled" {
	local mode want i
	"$LAB/tcpstall.sh" up --quickack off --defer 1
	for mode in fentry tracepoint; do
		want=tcp_push
		[ $mode = tracepoint ] && want=net_dev_queue
		start_bg "$TMP/out" env NETMEDIC_HOOKS=$mode "$BIN/tcpstall" --netns ${LAB_PREFIX}ts-snd --json -i 1
		for i in 1 2 3; do
			"$LAB/tcpstall.sh" bulk 3
			# the report that covers the flow's end
			sleep 1.2
			[ "$(jq -s 'map(select(.type == "interval") | .samples | add) | add // 0' "$TMP/out")" -gt 10 ] && break
			echo "$mode: run $i: $(jq -s 'map(select(.type == "interval") | .samples | add) | add // 0' "$TMP/out") samples"
		done
		end_bg
		echo "$mode: $(head -1 "$TMP/out" | jq -c '{senders_tagged_by, hooks}')"
		head -1 "$TMP/out" | jq -e --arg w $want '.senders_tagged_by == $w'
		run jq -sc 'map(select(.type == "interval") | .samples) |
			reduce .[] as $s ({}; reduce ($s | to_entries[]) as $e (.; .[$e.key] += $e.value))' "$TMP/out"
		echo "$output"
		[ "$(echo "$output" | jq 'add')" -gt 10 ]
		[ "$(echo "$output" | jq '.tsq_idle')" = 0 ]
	done
}

ts_acks() { jq -c 'select(.type == "acks" and .sport == 5301)' "$1"; }

# storm61 RUNG [REFUSE]: tcpstall on the receiver of the quickack storm,
# NETMEDIC_REFUSE=REFUSE, __release_sock on RUNG: the storm is flagged,
# owned, with 6.1's causes (no tcp_backlog_ack_defer: 6.7)
storm61() {
	local refuse=()
	[ -z "${2:-}" ] || refuse=(env NETMEDIC_REFUSE="$2")
	"$LAB/tcpstall.sh" up --quickack on --defer 0
	[ ! -e /proc/sys/net/ipv4/tcp_backlog_ack_defer ]
	start_bg "$TMP/out" "${refuse[@]}" "$BIN/tcpstall" --netns ${LAB_PREFIX}ts-rcv \
		--port 5301 --json -i 4 -c 1
	"$LAB/tcpstall.sh" storm 3 >/dev/null
	wait_bg
	head -1 "$TMP/out" | jq -e --arg r "$1" '.hooks.__release_sock == $r'
	run ts_acks "$TMP/out"
	echo "$output"
	[ "$(echo "$output" | jq .storm)" = true ]
	[ "$(echo "$output" | jq '.acks_per_seg >= 0.9 and .owned_ratio >= 0.9 and .segs_owned > 0')" = true ]
	[ "$(echo "$output" | jq '.causes | index("quickack_route") != null')" = true ]
	[ "$(echo "$output" | jq '.causes | index("no_backlog_ack_defer") != null')" = true ]
	[ "$(echo "$output" | jq '.causes | index("backlog_ack_defer_off") == null')" = true ]
}

# bats test_tags=vm:arm64,vm:arm64-smoke
@test "6.1: tcpstall on its 6.1 __release_sock rung: the quickack storm is flagged, cause no_backlog_ack_defer" {
	storm61 "$(rung61 __release_sock)"
}

# __release_sock's kprobe pair, rung 2: what arm64 takes where fentry
# cannot attach (its own guest runs the test above on it). Here fentry is
# refused by hand: the same backlog runs marked, the same storm.
@test "6.1: tcpstall's __release_sock on its kprobes where fentry is refused: the quickack storm is flagged" {
	storm61 kprobe/__release_sock ts_release_enter
}

# --fix=kick adds a rung above tcp_push's fexit pair: the same programs,
# and each tsq_idle episode arms its socket's kick timer (bpf_timer in a
# fexit program, 5.15+), so a stall is kicked at the threshold. Refused,
# the plain pair runs and the kicker thread walks the open episodes
# itself (every quarter threshold), as on 5.10 and 5.14.
@test "6.1: tcpstall --fix=kick arms its kick timer on fexit; refused, the kicker walks the episodes" {
	run --separate-stderr "$BIN/tcpstall" --fix=kick --json -c 1 -i 0.2
	assert_success
	echo "${lines[0]}"
	echo "${lines[0]}" | jq -e '.hooks.tcp_push == "fexit/tcp_push" and .kick_at == "threshold"'
	echo "${lines[0]}" | jq -e '.kicker == "SCHED_FIFO 1"'
	echo "${lines[1]}" | jq -e '.type == "interval" and .kick_due == 0 and .kick_due_lost == 0'
	run "$BIN/tcpstall" --fix=kick --list-hooks
	assert_success
	assert_line --regexp '^ts_push_exit_kick +tcp_push +1 +loaded'
	NETMEDIC_REFUSE=ts_push_exit_kick run --separate-stderr "$BIN/tcpstall" --fix=kick --json -c 1 -i 0.2
	assert_success
	echo "${lines[0]}"
	echo "${lines[0]}" | jq -e '.hooks.tcp_push == "fexit/tcp_push" and .kick_at == "threshold_walk" and .kicker == "SCHED_FIFO 1"'
	echo "${lines[0]}" | jq -e '.refused.ts_push_exit_kick | startswith("load")'
	echo "${lines[1]}" | jq -e 'has("kick_due") | not'
	run --separate-stderr "$BIN/tcpstall" --json -c 1 -i 0.2
	assert_success
	echo "${lines[0]}" | jq -e '.hooks.tcp_push == "fexit/tcp_push" and (has("kick_at") | not)'
	# capabilities are per thread. Host-wide, the main thread keeps what
	# names new namespaces and their devices (CAP_SYS_PTRACE, CAP_SYS_ADMIN:
	# 0x280000), as -v says; the kicker (SCHED_FIFO, policy 1) names
	# nothing and keeps none
	# no count: a run that ends while its tasks are read (TCG takes seconds
	# for this loop) joins its kicker, and fewer tasks prove nothing
	start_bg "$TMP/out" "$BIN/tcpstall" --fix=kick --json -i 1 -v
	# past the start (a slow TCG guest can take seconds): its first report is out
	for _ in $(seq 100); do
		grep -q '"type":"interval"' "$TMP/out" && break
		sleep 0.1
	done
	grep -q '"type":"interval"' "$TMP/out"
	local fifo=0 t want status stat rc=0
	local tasks=(/proc/$BG_PID/task/*)
	for t in "${tasks[@]}"; do
		# each read once, and named: a task that ends in between is said
		status=$(cat "$t/status" 2>/dev/null) && stat=$(cat "$t/stat" 2>/dev/null) || {
			echo "$t: ended while listed"
			return 1
		}
		echo "$t: $(cut -d' ' -f2 <<<"$stat")"
		grep -E '^(CapEff|CapPrm|NoNewPrivs)' <<<"$status"
		want=0000000000280000
		if [ "$(sed 's/.*) //' <<<"$stat" | awk '{ print $39 }')" = 1 ]; then
			fifo=$((fifo + 1))
			want=0000000000000000
		fi
		[ "$(awk '/^CapEff/ { print $2 }' <<<"$status")" = $want ]
		[ "$(awk '/^CapPrm/ { print $2 }' <<<"$status")" = $want ]
		[ "$(awk '/^NoNewPrivs/ { print $2 }' <<<"$status")" = 1 ]
	done
	# still running: the listing was of the live tool, not of its exit
	kill -0 "$BG_PID"
	[ "${#tasks[@]}" = 2 ]
	[ "$fifo" = 1 ]
	kill -INT "$BG_PID"
	wait "$BG_PID" || rc=$?
	BG_PID=
	assert_equal "$rc" 0
	grep -F 'tcpstall: caps: kept cap_sys_ptrace,cap_sys_admin (netns names); no_new_privs' "$TMP/out.err"
}

# Where fexit cannot attach (arm64 before 6.4), tcp_push's episodes come
# from a kprobe/kretprobe pair, tcp_push and tcp_wfree's. Here fexit is
# refused by hand: the pair loads and attaches, measures episodes (the
# kicker walks them: a kprobe arms no timer), and tags nothing, so the
# send path's tags come from net_dev_queue. (make faults with the same
# NETMEDIC_REFUSE measures its episodes against the injected stalls.)
@test "6.1: tcpstall's tcp_push on its kprobes where fexit is refused: episodes, the kicker walks" {
	local refuse=ts_push_exit_kick,ts_push_exit
	NETMEDIC_REFUSE=$refuse run --separate-stderr "$BIN/tcpstall" --fix=kick --json -c 1 -i 0.2
	assert_success
	echo "${lines[0]}"
	echo "${lines[0]}" | jq -e '.hooks.tcp_push == "kprobe/tcp_push" and .kick_at == "threshold_walk"'
	echo "${lines[1]}" | jq -e '.type == "interval" and .tsq_episodes == 0'
	NETMEDIC_REFUSE=$refuse run "$BIN/tcpstall" --list-hooks
	assert_success
	echo "$output"
	assert_line --regexp '^tcp_push +2 +kprobe/tcp_push +chosen$'
	for p in ts_push_kp ts_push_krp ts_wfree_kp ts_wfree_krp; do
		assert_line --regexp "^$p +tcp_push +2 +loaded"
	done
	NETMEDIC_REFUSE=$refuse run "$BIN/tcpstall" -v -c 1 -i 0.2
	assert_success
	assert_output --partial 'senders tagged by net_dev_queue'
}

@test "6.1: tcpstall --fix says the kernel has no tcp_backlog_ack_defer, changes nothing" {
	"$LAB/tcpstall.sh" up --quickack on --defer 0
	start_bg "$TMP/out" "$BIN/tcpstall" --netns ${LAB_PREFIX}ts-rcv --port 5301 --json -i 1.5 -c 2 --fix
	"$LAB/tcpstall.sh" storm 2 >/dev/null
	wait_bg
	cat "$TMP/out.err"
	grep -q "this kernel has no tcp_backlog_ack_defer (added in 6.7)" "$TMP/out.err"
	[ -z "$(grep "tcp_backlog_ack_defer 0 -> 1" "$TMP/out.err")" ]
	[ -z "$(ls /run/netmedic 2>/dev/null | grep tcpstall)" ]
}

# bats test_tags=vm:arm64
@test "6.1: qdiscstuck on its 6.1 __qdisc_run rung: 6.1's veth drains the lab burst (no stopped queue), never stuck" {
	"$LAB/qdiscstuck.sh" up stopped
	# timed by the CLI's reports, not a fixed -c: two after the burst
	start_bg "$TMP/out" "$BIN/qdiscstuck" --netns ${LAB_PREFIX}qs-a --dev qa --json -i 0.5
	"$LAB/qdiscstuck.sh" burst 1000
	wait_reports "$TMP/out" 2
	end_bg
	head -1 "$TMP/out" | jq -e --arg r "$(rung61 __qdisc_run)" '.hooks.__qdisc_run == $r'
	# the seed passes 6.1's verifier too (its one run is its check)
	head -1 "$TMP/out" | jq -e '.hooks.seed == "raw_tp" and .lost == {}'
	jq -c 'select(.type == "qdisc" and .handle == "3e:")' "$TMP/out" | tail -2
	lab_exec qs-a tc -s qdisc show dev qa
	# the burst went out: 1000 datagrams, less the odd write refused by an
	# ICMP port unreachable from qb (a connected UDP socket) or cut by the
	# burst's 3-s bound under TCG; the rung saw what tc counts
	sent=$(lab_exec qs-a tc -s qdisc show dev qa | awk '$1 == "Sent" { print $4; exit }')
	seen=$(jq -s 'map(select(.type == "qdisc" and .handle == "3e:") | .packets) | max' "$TMP/out")
	echo "tc sent $sent, qdiscstuck saw $seen"
	[ "$sent" -ge 900 ] && [ "$seen" -ge 900 ] && [ "$seen" -le "$sent" ]
	# 6.1's veth drops at a full peer ring instead of stopping its queue:
	# nothing is left queued and the TX queue was never stopped
	last=$(jq -c 'select(.type == "qdisc" and .handle == "3e:")' "$TMP/out" | tail -1)
	[ "$(echo "$last" | jq '.qlen == 0 and .txq_state == 0')" = true ]
	! grep -qE '"state":"(stuck|driver_stopped)"' "$TMP/out"
}

@test "6.1: qdiscstuck on fentry: tbf at 8 kbit is shaped with its watchdog seen due, never stuck" {
	"$LAB/qdiscstuck.sh" up tbf
	start_bg "$TMP/out" "$BIN/qdiscstuck" --netns ${LAB_PREFIX}qs-a --dev qa --json -i 0.5 -c 6
	"$LAB/qdiscstuck.sh" burst 30 "" 1000
	wait_bg
	head -1 "$TMP/out" | jq -e '.hooks.__qdisc_run == "fentry/__qdisc_run"'
	jq -c 'select(.type == "qdisc" and .handle == "2:")' "$TMP/out" | tail -3
	# rung 1 sees tbf arm its watchdog for the next packet, about a second
	# ahead (8 kbit, 1 kB): shaped by the timer, not by inference
	[ "$(jq -s 'map(select(.type == "qdisc" and .handle == "2:" and .qlen > 0 and .state == "shaped"
		and .watchdog_ms != null and .watchdog_ms > -1000 and .watchdog_ms < 2000)) | length' "$TMP/out")" -ge 3 ]
	! grep -qE '"state":"(stuck|driver_stopped)"' "$TMP/out"
}
