#!/usr/bin/env bats
# xpsflap's conventions: bad input answered by one line and an exit code,
# nothing changed on the system; hook rungs reported honestly. What every
# tool shares is in common_cli.bats.

# the 6.1 guest runs these in its auto mode (tools/vm/suite.sh)
# bats file_tags=vm:auto
load helpers

XF=$LAB/xpsflap.sh

setup() {
	TMP=$(mktemp -d)
	BG_PID=
}

teardown() {
	stop_bg KILL
	"$XF" down
	rm -rf "$TMP"
}

# bad -i, -c, --hooks: common_cli.bats
# bats test_tags=userspace
@test "xpsflap: bad --max-flows -> exit 2" {
	run --separate-stderr "$BIN/xpsflap" --max-flows 3
	assert_failure 2
	[[ $stderr == *invalid* ]]
}

# bats test_tags=userspace
@test "xpsflap: bad --sort or --top -> one line naming it, exit 2" {
	run --separate-stderr "$BIN/xpsflap" --sort worst -c 1
	assert_failure 2
	[[ $stderr == *"invalid --sort 'worst': switches, risky, reordered, packets, bytes or queues"* ]]
	run --separate-stderr "$BIN/xpsflap" --top 0 -c 1
	assert_failure 2
	[[ $stderr == *"invalid --top '0': 1 to 2147483647"* ]]
}

# bats test_tags=userspace
@test "xpsflap: --pin without --dev -> exit 2" {
	run --separate-stderr "$BIN/xpsflap" --pin -c 1
	assert_failure 2
	[[ $stderr == *"--pin needs --dev"* ]]
}

# #37: a remedy with --cleanup or --list-fixes, neither of which runs one
# bats test_tags=userspace
@test "xpsflap: --cleanup or --list-fixes with --pin -> exit 2, one line naming both" {
	run --separate-stderr "$BIN/xpsflap" --cleanup --pin --dev lo
	assert_failure 2
	output=$stderr assert_usage_error xpsflap
	assert_equal "$stderr" "xpsflap: --cleanup and --pin: --cleanup undoes what a killed instance left, then exits: it runs no remedy"
	run --separate-stderr "$BIN/xpsflap" --list-fixes --pin --dev lo
	assert_failure 2
	assert_equal "$stderr" "xpsflap: --list-fixes and --pin: --list-fixes probes the remedies, then exits: it runs no remedy"
}

# Where vmlinux BTF lacks the pick's kfunc (bpf_rdonly_cast, 6.2+), libbpf
# walks the modules' BTF for it, which takes CAP_SYS_ADMIN: xpsflap says so.
# Given it, the host-wide run keeps it to name the devices of namespaces
# that come later (setns).
@test "xpsflap: as nobody with CAP_BPF and CAP_PERFMON only, an observe run works and keeps nothing" {
	local caps=bpf,perfmon kept=none why=
	if ! bpftool btf dump file /sys/kernel/btf/vmlinux format raw | grep -q "FUNC 'bpf_rdonly_cast'"; then
		run --separate-stderr as_nobody bpf,perfmon "$BIN/xpsflap" -c 1 -i 0.2
		assert_failure 1
		output=$stderr assert_one_line_error
		[[ $stderr == *"loading BPF programs on this kernel needs CAP_SYS_ADMIN (libbpf searches the modules' BTF for a kfunc vmlinux lacks); missing"* ]]
		caps=bpf,perfmon,sys_admin
		kept=cap_sys_admin why="netns names"
	fi
	run --separate-stderr as_nobody $caps "$BIN/xpsflap" -c 1 -i 0.2 -v
	echo "$stderr"
	assert_success
	assert_line --index 0 --regexp "^xpsflap: kernel $(kernel_re), hooks "
	[[ $stderr == *"xpsflap: $(caps_kept $kept "$why")"* ]]
}

# the common options' (CAP_PERFMON, --netns, --bpf-stats): common_cli.bats
@test "xpsflap: the one capability --pin lacks is named, with what needs it" {
	run --separate-stderr as_nobody bpf,perfmon "$BIN/xpsflap" --dev lo --pin -c 1
	assert_failure 1
	[[ $stderr == *"--pin needs CAP_NET_ADMIN (a tc BPF program); missing"* ]]
	run --separate-stderr as_nobody bpf,perfmon,net_admin "$BIN/xpsflap" --dev lo --pin -c 1
	assert_failure 1
	[[ $stderr == *"--pin needs CAP_DAC_OVERRIDE (sysfs files owned by root); missing"* ]]
}

@test "xpsflap --print-caps: what this command line needs, as its user; nothing loaded or changed" {
	"$XF" up
	run --separate-stderr "$BIN/xpsflap" --print-caps
	assert_success
	assert_line --regexp $'^CAP_BPF\tloading BPF programs\t'
	assert_line --regexp $'^CAP_PERFMON\tloading BPF programs\t'
	refute_line --regexp '^CAP_NET_ADMIN'
	run --separate-stderr "$BIN/xpsflap" --netns ${LAB_PREFIX}xf-mid --dev xqm --pin --print-caps
	assert_success
	assert_line --regexp $'^CAP_NET_ADMIN\t--pin\t'
	assert_line --regexp $'^CAP_SYS_ADMIN\t--netns\tsetns$'
	[ -z "$(ls "$RUN_DIR"/xpsflap-* 2>/dev/null)" ]
	# another user: root's sysfs files and journal directory
	run --separate-stderr as_nobody "" "$BIN/xpsflap" --netns ${LAB_PREFIX}xf-mid --dev xqm --pin --print-caps
	assert_success
	assert_line --regexp $'^CAP_DAC_OVERRIDE\t--pin\tsysfs files owned by root$'
	run --separate-stderr as_nobody "" "$BIN/xpsflap" --cleanup --print-caps
	assert_success
	# no journal: nothing to undo needs nothing
	NETMEDIC_RUN_DIR=/nonexistent/run run --separate-stderr as_nobody "" "$BIN/xpsflap" --cleanup --print-caps
	assert_output none
}

@test "xpsflap: bad input with --pin changes nothing on the system" {
	"$XF" up --queues 2 --xps on
	run "$BIN/xpsflap" --netns ${LAB_PREFIX}xf-mid --dev xqm --pin --prom-file "$TMP/missing/x.prom" -c 1
	assert_failure 2
	run "$BIN/xpsflap" --netns nm-no-such-ns --dev xqm --pin -c 1
	assert_failure 2
	assert_equal "$(lab_xps_get xf-mid xqm 0)" 1
	assert_equal "$(lab_xps_get xf-mid xqm 1)" 2
	[ -z "$(ls "$RUN_DIR" 2>/dev/null | grep xpsflap)" ]
}

@test "xpsflap: the first line names the kernel, -v the hook rungs too; JSON too" {
	run "$BIN/xpsflap" -c 1 -i 0.2
	assert_success
	assert_line --index 0 --regexp "^xpsflap: kernel $(kernel_re), interval 0.2s, devices "
	[[ ${lines[0]} != *"hooks "* && ${lines[0]} != *"refused: "* ]]
	run --separate-stderr "$BIN/xpsflap" -c 1 -i 0.2 -v
	assert_success
	assert_line --index 0 --regexp "^xpsflap: kernel $(kernel_re), hooks netdev_pick_tx=[a-z_]+/[a-z_]+ net_dev_xmit=[a-z_]+/net_dev_start_xmit"
	run "$BIN/xpsflap" -c 1 -i 0.2 --json
	assert_success
	echo "${lines[0]}" | jq -e '.type == "start" and (.hooks | length == 2)'
}

@test "xpsflap: --hooks=fentry attaches fexit where the kernel allows, else says why" {
	run "$BIN/xpsflap" --list-hooks
	assert_success
	echo "$output"
	assert_line --regexp '^netdev_pick_tx +1 +fexit/netdev_core_pick_tx'
	if echo "$output" | grep -qE '^netdev_pick_tx +1 +fexit/netdev_core_pick_tx +chosen'; then
		run --separate-stderr "$BIN/xpsflap" --hooks=fentry -c 1 -i 0.2 -v
		assert_success
		assert_line --index 0 --partial "netdev_pick_tx=fexit/netdev_core_pick_tx"
	else
		run --separate-stderr "$BIN/xpsflap" --hooks=fentry -c 1 -i 0.2
		assert_failure 1
		output=$stderr assert_one_line_error
		[[ $stderr == *"fexit/netdev_core_pick_tx"* ]]
		# and auto falls back to the tracepoint rung
		run --separate-stderr "$BIN/xpsflap" --hooks=auto -c 1 -i 0.2 -v
		assert_success
		assert_line --index 0 --partial "netdev_pick_tx=tp_btf/net_dev_queue"
	fi
	run --separate-stderr "$BIN/xpsflap" --hooks=tracepoint -c 1 -i 0.2 -v
	assert_success
	assert_line --index 0 --partial "netdev_pick_tx=tp_btf/net_dev_queue"
}

@test "xpsflap: the tp_btf pick reads gso_segs through bpf_rdonly_cast where the kernel has it, else says why not" {
	run "$BIN/xpsflap" --hooks=tracepoint --list-hooks
	assert_success
	echo "$output"
	if grep -qa bpf_rdonly_cast /sys/kernel/btf/vmlinux; then
		assert_line --regexp '^netdev_pick_tx +2 +tp_btf/net_dev_queue\+bpf_rdonly_cast +chosen$'
	else
		assert_line --regexp '^netdev_pick_tx +2 +tp_btf/net_dev_queue\+bpf_rdonly_cast +kfunc bpf_rdonly_cast: not in kernel BTF$'
		assert_line --regexp '^netdev_pick_tx +3 +tp_btf/net_dev_queue +chosen$'
	fi
}

# bats test_tags=root
@test "xpsflap --list-fixes: --pin, its lever, and whether its program loads here" {
	run "$BIN/xpsflap" --list-fixes
	assert_success
	assert_equal "${#lines[@]}" 2
	assert_line --index 1 --regexp '^--pin +sysfs xps_cpus cleared \+ tc BPF egress picks the queue +(allowed|not allowed: .+)$'
	if "$BIN/xpsflap" --pin --dev lo --list-hooks | grep -qE '^xf_pin_tc +pin +1 +loaded$'; then
		assert_line --index 1 --regexp ' allowed$'
	else
		assert_line --index 1 --regexp ' not allowed: xf_pin_tc: '
	fi
	NETMEDIC_REFUSE=xf_pin_tc run "$BIN/xpsflap" --list-fixes
	assert_success
	assert_line --index 1 --regexp 'not allowed: xf_pin_tc: load: Operation not permitted \(EPERM\) by NETMEDIC_REFUSE$'
}

# journal DIR KEY RECORD...: a journal as a dead xpsflap leaves it, 0600
journal() {
	local dir=$1 key=$2 f
	shift 2
	f=$dir/xpsflap-$key.journal
	printf 'netmedic-journal\t1\t999999\txpsflap\t%s\t\t0\n' "$key" >"$f"
	printf '%s\n' "$@" >>"$f"
	chmod 0600 "$f"
}

@test "xpsflap --cleanup: a failed undo keeps its record and says what is left and how to retry" {
	mkdir -m 0700 "$TMP/run"
	bad=$(printf 'cmd\ttc\tqdisc\tdel\tdev\tnm-no-such-dev\tclsact')
	journal "$TMP/run" k "$bad" "$(printf 'cmd\ttc\t-V')"
	NETMEDIC_RUN_DIR=$TMP/run run --separate-stderr "$BIN/xpsflap" --cleanup
	echo "$stderr"
	assert_failure 1
	[[ $stderr == *"ran tc -V"* ]]
	[[ $stderr == *"$TMP/run/xpsflap-k.journal keeps 1 change(s) that could not be undone"* ]]
	[[ $stderr == *'run `xpsflap --cleanup`'* ]]
	[ "$(tail -n +2 "$TMP/run/xpsflap-k.journal")" = "$bad" ]
	# the retry finds it again
	NETMEDIC_RUN_DIR=$TMP/run run --separate-stderr "$BIN/xpsflap" --cleanup
	assert_failure 1
	[[ $stderr == *"keeps 1 change(s)"* ]]
}

# tc monitor never exits: a hung undo step must not hang --cleanup
@test "xpsflap --cleanup: an undo step that hangs is killed after its time, named, and kept" {
	mkdir -m 0700 "$TMP/run"
	hung=$(printf 'cmd\ttc\tmonitor')
	journal "$TMP/run" k "$hung" "$(printf 'cmd\ttc\t-V')"
	SECONDS=0
	NETMEDIC_RUN_DIR=$TMP/run run --separate-stderr timeout 60 "$BIN/xpsflap" --cleanup
	echo "$stderr"
	echo "took ${SECONDS}s"
	assert_failure 1
	[ "$SECONDS" -lt 30 ]
	[[ $stderr == *"tc monitor: timed out after 10 s (killed)"* ]]
	[[ $stderr == *"ran tc -V"* ]]
	[[ $stderr == *"keeps 1 change(s) that could not be undone"* ]]
	[ "$(tail -n +2 "$TMP/run/xpsflap-k.journal")" = "$hung" ]
	! pgrep -f '^tc monitor$'
}

# bats test_tags=root
@test "xpsflap --cleanup: runs no journal another user owns or may write, nor one in such a directory" {
	mkdir -m 0700 "$TMP/run"
	journal "$TMP/run" k "$(printf 'cmd\ttc\t-V')"
	f=$TMP/run/xpsflap-k.journal
	chmod 0666 "$f"
	NETMEDIC_RUN_DIR=$TMP/run run --separate-stderr "$BIN/xpsflap" --cleanup
	assert_failure 1
	[[ $stderr == *"$f is writable by group or others (mode 0666)"* ]]
	chmod 0600 "$f"
	chown 65534 "$f"
	NETMEDIC_RUN_DIR=$TMP/run run --separate-stderr "$BIN/xpsflap" --cleanup
	assert_failure 1
	[[ $stderr == *"$f is owned by uid 65534, not 0"* ]]
	chown 0 "$f"
	chmod 1777 "$TMP/run"
	NETMEDIC_RUN_DIR=$TMP/run run --separate-stderr "$BIN/xpsflap" --cleanup
	assert_failure 1
	[[ $stderr == *"run directory $TMP/run is writable by group or others (mode 1777)"* ]]
	[[ $stderr != *"ran tc"* ]]
	# the control: the same journal, trusted, is run
	chmod 0700 "$TMP/run"
	NETMEDIC_RUN_DIR=$TMP/run run --separate-stderr "$BIN/xpsflap" --cleanup
	assert_success
	[[ $stderr == *"ran tc -V"* ]]
}

@test "xpsflap --cleanup: a journal runs no command but tc, even root's" {
	mkdir -m 0700 "$TMP/run"
	journal "$TMP/run" k "$(printf 'cmd\tsh\t-c\ttouch %s' "$TMP/ran")"
	NETMEDIC_RUN_DIR=$TMP/run run --separate-stderr "$BIN/xpsflap" --cleanup
	assert_failure 1
	[[ $stderr == *"sh is not a command xpsflap undoes with (tc)"* ]]
	[ ! -e "$TMP/ran" ]
	[ -e "$TMP/run/xpsflap-k.journal" ]
}

@test "xpsflap --cleanup: a symlink or a directory in place of a journal is named, with what it is" {
	mkdir -m 0700 "$TMP/run"
	ln -s /etc/passwd "$TMP/run/xpsflap-l.journal"
	mkdir "$TMP/run/xpsflap-d.journal"
	NETMEDIC_RUN_DIR=$TMP/run run --separate-stderr "$BIN/xpsflap" --cleanup
	assert_failure 1
	[[ $stderr == *"$TMP/run/xpsflap-l.journal is a symbolic link"* ]]
	[[ $stderr == *"$TMP/run/xpsflap-d.journal is a directory, not a regular file"* ]]
}

# xf_flows OUT: the flow records of OUT's one report, in their order
xf_flows() { jq -sc 'map(select(.type == "flow"))' "$1"; }
xf_ival() { jq -c 'select(.type == "interval")' "$1"; }

# #18: by default a report carries the flapping flows and the --top others,
# and counts the rest; --all carries every active flow.
@test "xpsflap: more active flows than --top: the flapping ones and the top written, the rest counted; --all writes all" {
	"$XF" up --queues 2 --xps on
	start_bg "$TMP/out" "$BIN/xpsflap" --netns ${LAB_PREFIX}xf-mid --dev xqm --json -i 7 -c 1 --top 2
	# 30 UDP flows beside the bulk flow: one datagram to each of 30 ports
	# (each from a new socket; its ephemeral source port may repeat, the
	# destination port does not)
	lab_exec xf-snd bash -c 'for i in $(seq 30); do echo x >/dev/udp/198.18.0.2/$((7000 + i)); done'
	"$XF" traffic 4 >/dev/null
	wait_bg
	flows=$(xf_flows "$TMP/out")
	ival=$(xf_ival "$TMP/out")
	echo "$ival"
	echo "$flows" | jq -c '.[] | [.sport, .dport, .switches, .flapping]'
	active=$(echo "$ival" | jq .flows_active)
	[ "$active" -ge 31 ]
	[ "$(echo "$ival" | jq .flows_flapping)" -ge 1 ]
	# the top two, then only flapping ones: every flapping flow is written
	[ "$(echo "$flows" | jq '.[2:] | all(.flapping)')" = true ]
	[ "$(echo "$flows" | jq 'map(select(.flapping)) | length')" = "$(echo "$ival" | jq .flows_flapping)" ]
	# what was not written is counted, and that is most of them
	[ $(($(echo "$flows" | jq length) + $(echo "$ival" | jq .flows_not_shown))) = "$active" ]
	[ "$(echo "$ival" | jq .flows_not_shown)" -ge 28 ]

	start_bg "$TMP/all" "$BIN/xpsflap" --netns ${LAB_PREFIX}xf-mid --dev xqm --json -i 2 -c 1 --top 2 --all
	lab_exec xf-snd bash -c 'for i in $(seq 30); do echo x >/dev/udp/198.18.0.2/$((7000 + i)); done'
	wait_bg
	ival=$(xf_ival "$TMP/all")
	echo "$ival"
	[ "$(echo "$ival" | jq .flows_active)" -ge 30 ]
	[ "$(echo "$ival" | jq .flows_not_shown)" = 0 ]
	[ "$(xf_flows "$TMP/all" | jq length)" = "$(echo "$ival" | jq .flows_active)" ]
}

# lab_ll NS DEV: DEV's link-local IPv6 address in lab namespace NS, once
# duplicate address detection is done with it (nothing after 10 s)
lab_ll() {
	local i a
	for i in $(seq 50); do
		a=$(lab_exec "$1" ip -6 -o addr show dev "$2" scope link |
			awk '!/tentative/ { sub("/.*", "", $4); print $4; exit }')
		[ -n "$a" ] && { echo "$a"; return 0; }
		sleep 0.2
	done
	return 1
}

# #37: an IPv6 flow is never cut (the FLOW column stopped at 33 characters
# whatever the width). A link-local ICMPv6 flow over the lab's two-queue
# device (--link-local shows it), as long as its two addresses: whole in
# the table at 80 columns (COLUMNS), on a line of its own below its row,
# and without a terminal on its row's line; as --json names its ends.
# Only userspace lays the table out: the 6.1 guest would add nothing to
# the host's run.
# bats test_tags=vm:left-out
@test "xpsflap: an IPv6 flow is whole in the table, on a line of its own at 80 columns" {
	local src dst want
	"$XF" up --queues 2 --xps on
	src=$(lab_ll xf-snd xs0)
	dst=$(lab_ll xf-rcv xq0)
	echo "ping -6 from $src to $dst"
	for cols in 80 ""; do
		# a ping of its own each time, and two reports: side by side with
		# other files, one 1.5-s report once held no packet of a ping
		# started before the first run
		lab_exec xf-snd ping -6 -q -i 0.1 -w 10 "$dst%xs0" >/dev/null 2>&1 3>&- &
		ping_pid=$!
		COLUMNS=$cols run --separate-stderr "$BIN/xpsflap" --netns ${LAB_PREFIX}xf-mid --dev xqm \
			--all --link-local --json --table -i 1.5 -c 2
		kill "$ping_pid" 2>/dev/null || true
		wait "$ping_pid" 2>/dev/null || true
		echo "COLUMNS=$cols: $stderr"
		assert_success
		want=$(echo "$output" | jq -r --arg s "$src" --arg d "$dst" \
			'select(.type == "flow" and .proto == "icmp6" and .saddr == $s and .daddr == $d) |
			 "\(.proto) \(.saddr)>\(.daddr)"' | head -1)
		[ "$want" = "icmp6 $src>$dst" ]
		if [ -n "$cols" ]; then
			# its own line, indented; the rows before it within the 80 columns
			printf '%s\n' "$stderr" | grep -qxF "  $want"
			! printf '%s\n' "$stderr" | grep -E '^(xqm|DEV) ' | awk 'length > 80' | grep -q .
		else
			printf '%s\n' "$stderr" | grep -qE "^xqm .* $want\$"
		fi
	done
}

# ll_flows OUT: the link-local control flows of OUT's flow records, one a
# line: IGMP, and ICMPv6 (MLD behind its hop-by-hop header) of fe80:: or ff02::
ll_flows() {
	jq -r 'select(.type == "flow" and (.proto == "igmp" or ((.proto == "icmp6" or .proto == "hopopt")
		and ([.saddr, .daddr] | any(test("^(fe[89ab]|ff02:)")))))) | "\(.proto) \(.saddr)>\(.daddr)"' "$1"
}

# #37: the table listed every link's own noise beside its traffic:
# neighbour discovery, MLD, IGMP, and a ping of fe80::. Those flows are left
# out of the table, JSON and the flow counts, and counted apart, unless
# --link-local asks for them; the agent runs the CLI's detector, and does
# the same. Only userspace leaves them out: the 6.1 guest would add
# nothing to the host's run.
# bats test_tags=vm:left-out
@test "xpsflap: link-local ICMPv6 and IGMP flows are left out and counted, unless --link-local; the agent's too" {
	local dst run group=0 ival
	"$XF" up --queues 2 --xps on
	dst=$(lab_ll xf-rcv xq0)
	for run in "xpsflap --all" "xpsflap --all --link-local" "netmedic --detect=xpsflap --opts xpsflap=--all"; do
		group=$((group + 1))
		start_bg "$TMP/out" "$BIN/${run%% *}" --netns ${LAB_PREFIX}xf-mid --dev xqm --json -i 2 -c 1 \
			${run#* }
		# an IGMP report (a group joined behind the bridge), and a ping of fe80::
		lab_exec xf-snd ip addr add "239.1.2.$group/32" dev xs0 autojoin
		lab_exec xf-snd ping -6 -q -i 0.1 -c 10 "$dst%xs0" >/dev/null 2>&1 3>&-
		wait_bg
		ival=$(jq -c 'select(.type == "interval")' "$TMP/out")
		echo "$run: $ival"
		ll_flows "$TMP/out"
		if [[ $run == *--link-local* ]]; then
			ll_flows "$TMP/out" | grep -qxF "icmp6 $(lab_ll xf-snd xs0)>$dst"
			ll_flows "$TMP/out" | grep -q '^igmp '
			assert_equal "$(echo "$ival" | jq .flows_link_local)" 0
		else
			[ -z "$(ll_flows "$TMP/out")" ]
			# the ping and the report at least, counted apart; not active, so not flapping
			[ "$(echo "$ival" | jq .flows_link_local)" -ge 2 ]
			assert_equal "$(echo "$ival" | jq .flows_active)" "$(jq -s 'map(select(.type == "flow")) | length' "$TMP/out")"
		fi
	done
}
