#!/usr/bin/env bats
# qdiscstuck's conventions: bad input answered by one line and an exit
# code, nothing changed on the system; hook rungs reported honestly. What
# every tool shares is in common_cli.bats.

# the 6.1 guest runs these in its auto mode (tools/vm/suite.sh)
# bats file_tags=vm:auto
load helpers

QS=$LAB/qdiscstuck.sh

setup() {
	TMP=$(mktemp -d)
	BG_PID=
}

teardown() {
	stop_bg KILL
	"$QS" down
	rm -rf "$TMP"
}

# bad -i, -c, --hooks: common_cli.bats
# bats test_tags=userspace
@test "qdiscstuck: bad options -> exit 2, one line naming the option" {
	for a in "--threshold 0" "--threshold abc" "--threshold 99999999" "--fix=bogus" "--fix=" "--fix=kick,,lock" "--fix=,kick" \
		 "--kick eth0" "--kick :1" "--lock eth0:x"; do
		run --separate-stderr "$BIN/qdiscstuck" $a -c 1 -i 0.2
		assert_failure 2
		[[ $stderr == *invalid* ]]
	done
}

# bats test_tags=userspace
@test "qdiscstuck: bad --sort or --top -> one line naming it, exit 2" {
	run --separate-stderr "$BIN/qdiscstuck" --sort backlog -c 1
	assert_failure 2
	[[ $stderr == *"invalid --sort 'backlog': qlen, bytes, deq, ms or drops"* ]]
	for a in 0 -1 abc 4294967297; do
		run --separate-stderr "$BIN/qdiscstuck" --top "$a" -c 1
		assert_failure 2
		[[ $stderr == *"invalid --top '$a': 1 to 2147483647"* ]]
	done
}

# bats test_tags=userspace
@test "qdiscstuck: --kick with --fix -> exit 2" {
	run --separate-stderr "$BIN/qdiscstuck" --kick lo:0 --fix=kick
	assert_failure 2
	[[ $stderr == *"--kick is a one-shot action"* ]]
}

# #37: --cleanup --fix=lock undid a dead instance's lock and exited, --fix
# unsaid. A remedy with --cleanup or --list-fixes (neither runs one) is
# refused, one line naming both and why, before anything is undone.
# bats test_tags=userspace
@test "qdiscstuck: --cleanup or --list-fixes with --fix, --kick or --lock -> exit 2, one line naming both" {
	local a opt
	for a in "--cleanup --fix=lock" "--cleanup --fix=kick" "--lock lo:0 --cleanup" "--cleanup --kick lo:0" \
		"--list-fixes --fix=lock"; do
		opt=$(echo "$a" | grep -oE -- '--(fix|kick|lock)')
		run --separate-stderr "$BIN/qdiscstuck" $a
		assert_failure 2
		output=$stderr assert_usage_error qdiscstuck
		case $a in
		*--cleanup*) want="--cleanup and $opt: --cleanup undoes what a killed instance left, then exits: it runs no remedy" ;;
		*) want="--list-fixes and $opt: --list-fixes probes the remedies, then exits: it runs no remedy" ;;
		esac
		assert_equal "$stderr" "qdiscstuck: $want"
		[[ $stderr != *"cleanup: "* ]]
	done
}

# --dev's unknown device: common_cli.bats
@test "qdiscstuck: unknown device or queue -> exit 2, one line" {
	run --separate-stderr "$BIN/qdiscstuck" --kick nm-no-such-dev:0
	assert_failure 2
	output=$stderr assert_usage_error qdiscstuck
	[[ $stderr == *"unknown device 'nm-no-such-dev'"* ]]
	run --separate-stderr "$BIN/qdiscstuck" --lock lo:7
	assert_failure 2
	output=$stderr assert_usage_error qdiscstuck
	[[ $stderr == *"no tx-7"* ]]
}

@test "qdiscstuck: as nobody with CAP_BPF and CAP_PERFMON only, an observe run works and keeps nothing" {
	run --separate-stderr as_nobody bpf,perfmon "$BIN/qdiscstuck" -c 2 -i 0.2 -v --json
	echo "$stderr"
	assert_success
	# every report holds the host's qdiscs: netlink dumps and the sampler's test runs after the drop
	[ "$(echo "$output" | jq -s 'map(select(.type == "interval" and .qdiscs >= 1)) | length')" = 2 ]
	[[ $stderr == *"qdiscstuck: $(caps_kept none)"* ]]
}

@test "qdiscstuck: the one capability missing is named; --fix keeps what its remedies need" {
	run --separate-stderr as_nobody bpf,perfmon "$BIN/qdiscstuck" --fix=kick -c 1
	assert_failure 1
	output=$stderr assert_one_line_error
	# before 5.17 the kick's socket mark (SO_MARK) takes CAP_NET_ADMIN, named first
	if kernel_before 5 17; then
		[[ $stderr == *"--fix needs CAP_NET_ADMIN (tc, netlink, net sysctls); missing"* ]]
		run --separate-stderr as_nobody bpf,perfmon,net_admin "$BIN/qdiscstuck" --fix=kick -c 1
		assert_failure 1
	fi
	[[ $stderr == *"--fix needs CAP_NET_RAW (AF_PACKET frames); missing"* ]]
	run --separate-stderr as_nobody bpf,perfmon,net_raw "$BIN/qdiscstuck" --fix=kick,lock -c 1
	assert_failure 1
	[[ $stderr == *"--fix needs CAP_NET_ADMIN (tc, netlink, net sysctls); missing"* ]]
	run --separate-stderr "$BIN/qdiscstuck" --dev lo --fix=kick,lock -c 1 -i 0.2 -v
	assert_success
	[[ $stderr == *"qdiscstuck: $(caps_kept cap_net_admin,cap_net_raw "remedies")"* ]]
}

# #37: an idle run printed the table's header under each interval's
# summary, with no row: a unit at -i 15 wrote thousands of such lines a day
@test "qdiscstuck: an idle interval is its summary line alone, no empty table header" {
	"$QS" up mq
	run --separate-stderr "$BIN/qdiscstuck" --netns ${LAB_PREFIX}qs-a -c 3 -i 0.2
	assert_success
	echo "$output"
	# each interval: a blank line, then the time and the summary
	[ "$(grep -c '^[0-9][0-9]:[0-9][0-9]:[0-9][0-9]  qdiscs: 0 stuck, 0 driver_stopped, 0 unknown, 0 shaped, 0 ok, [0-9]* idle$' <<<"$output")" = 3 ]
	! grep -q '^DEV ' <<<"$output"
	[ "$(grep -c . <<<"$output")" = 4 ]	# the first line and the three summaries
}

@test "qdiscstuck: bad input with --lock changes nothing on the system" {
	"$QS" up mq
	before=$(lab_exec qs-a tc qdisc show dev qa)
	run "$BIN/qdiscstuck" --netns ${LAB_PREFIX}qs-a --lock qa:1 --prom-file "$TMP/missing/x.prom" -c 1
	assert_failure 2
	run "$BIN/qdiscstuck" --netns nm-no-such-ns --lock qa:1 -c 1
	assert_failure 2
	run "$BIN/qdiscstuck" --netns ${LAB_PREFIX}qs-a --lock qa:9 -c 1
	assert_failure 2
	assert_equal "$(lab_exec qs-a tc qdisc show dev qa)" "$before"
	! ls "$RUN_DIR" 2>/dev/null | grep -q qdiscstuck
}

@test "qdiscstuck --lock on a qdisc that is not lockless: exit 1, says why, changes nothing" {
	"$QS" up stopped
	before=$(lab_exec qs-a tc qdisc show dev qa)
	run --separate-stderr "$BIN/qdiscstuck" --netns ${LAB_PREFIX}qs-a --lock qa:0 -c 1
	assert_failure 1
	[[ $stderr == *"runs pfifo, which is not lockless"* ]]
	assert_equal "$(lab_exec qs-a tc qdisc show dev qa)" "$before"
	! ls "$RUN_DIR" 2>/dev/null | grep -q qdiscstuck
}

@test "qdiscstuck: the first line names the kernel, -v the hook rungs too; JSON too" {
	run "$BIN/qdiscstuck" -c 1 -i 0.2
	assert_success
	assert_line --index 0 --regexp "^qdiscstuck: kernel $(kernel_re), interval 0.2s, threshold "
	[[ ${lines[0]} != *"hooks "* && ${lines[0]} != *"refused: "* ]]
	# what this kernel gives (older kernels lose parts: the lines say which)
	run "$BIN/qdiscstuck" --list-hooks
	assert_success
	chosen=$(printf '%s\n' "${lines[@]}" | awk 'NF >= 4 && $2 ~ /^[0-9]+$/ && $4 ~ /^chosen/ { printf "%s%s=%s", n++ ? " " : "", $1, $3 }')
	lost=$(printf '%s\n' "${lines[@]}" | awk 'NF >= 4 && $2 ~ /^[0-9]+$/ && $3 == "none" && $4 ~ /^chosen/ { print $1 }' | sort | paste -sd' ' -)
	echo "chosen: $chosen; lost: ${lost:-nothing}"
	[[ $chosen == "__qdisc_run="*" qdisc_enqueue="*" qdisc_reset="*" kick_queue="*" sampler="*" seed="* ]]
	run --separate-stderr "$BIN/qdiscstuck" -c 1 -i 0.2 -v
	assert_success
	assert_line --index 0 --partial "qdiscstuck: kernel $(uname -r), hooks $chosen, interval 0.2s, threshold "
	run "$BIN/qdiscstuck" -c 1 -i 0.2 --json
	assert_success
	echo "${lines[0]}" | jq -e '.type == "start" and (.hooks | length == 6) and .threshold_ms == 100'
	[ "$(echo "${lines[0]}" | jq -r '.lost | keys | sort | join(" ")')" = "$lost" ]
}

@test "qdiscstuck: --hooks=fentry attaches __qdisc_run's fentry where allowed, else says why" {
	run "$BIN/qdiscstuck" --list-hooks
	assert_success
	echo "$output"
	assert_line --regexp '^__qdisc_run +1 +fentry/__qdisc_run'
	if echo "$output" | grep -qE '^__qdisc_run +1 +fentry/__qdisc_run +chosen'; then
		run --separate-stderr "$BIN/qdiscstuck" --hooks=fentry -c 1 -i 0.2 -v
		assert_success
		assert_line --index 0 --partial "__qdisc_run=fentry/__qdisc_run"
	else
		run --separate-stderr "$BIN/qdiscstuck" --hooks=fentry -c 1 -i 0.2
		assert_failure 1
		output=$stderr assert_one_line_error
		[[ $stderr == *"fentry/__qdisc_run"* ]]
		# auto falls back to the dequeue tracepoint
		run --separate-stderr "$BIN/qdiscstuck" --hooks=auto -c 1 -i 0.2 -v
		assert_success
		assert_line --index 0 --partial "__qdisc_run=tp_btf/qdisc_dequeue"
	fi
}

# bats test_tags=root
@test "qdiscstuck --list-fixes: kick, lock and the BPF qdisc lever, with this kernel's verdicts" {
	run "$BIN/qdiscstuck" --list-fixes
	assert_success
	assert_equal "${#lines[@]}" 4
	assert_line --index 1 --regexp '^kick +a frame on the stuck TX queue \(AF_PACKET\): the qdisc runs +allowed$'
	if command -v tc >/dev/null; then
		assert_line --index 2 --regexp '^lock +tc qdisc replace: pfifo \(locked\) for pfifo_fast +allowed$'
	fi
	# the struct_ops lever is there exactly when the kernel's BTF has its type
	if bpftool btf dump file /sys/kernel/btf/vmlinux | grep -q "STRUCT 'bpf_struct_ops_Qdisc_ops'"; then
		assert_line --index 3 --regexp '^lock-bpf .* allowed$'
	else
		assert_line --index 3 --regexp '^lock-bpf .* not allowed: bpf_struct_ops_Qdisc_ops: not in kernel BTF$'
	fi
}
