#!/usr/bin/env bats
# xpsflap's conventions: bad input answered by one line and an exit code,
# nothing changed on the system; hook rungs reported honestly.

# the 6.1 guest runs these in its auto mode (tools/vm/suite.sh)
# bats file_tags=vm:auto
load helpers

XF=$LAB/xpsflap.sh

setup() {
	TMP=$(mktemp -d)
}

teardown() {
	"$XF" down
	rm -rf "$TMP"
}

@test "xpsflap: unknown device -> exit 2, one line" {
	run --separate-stderr "$BIN/xpsflap" --dev nm-no-such-dev -c 1
	assert_failure 2
	output=$stderr assert_one_line_error
	[[ $stderr == *"unknown device 'nm-no-such-dev'"* ]]
}

@test "xpsflap: bad interval and count -> exit 2" {
	for a in "-i 0" "-i abc" "-i -1" "-c 0" "-c x" "--max-flows 3" "--hooks nope"; do
		run --separate-stderr "$BIN/xpsflap" $a
		assert_failure 2
		[[ $stderr == *invalid* ]]
	done
}

@test "xpsflap: --pin without --dev -> exit 2" {
	run --separate-stderr "$BIN/xpsflap" --pin -c 1
	assert_failure 2
	[[ $stderr == *"--pin needs --dev"* ]]
}

@test "xpsflap: not root, no capabilities -> exit 1, one line naming CAP_BPF" {
	run --separate-stderr as_nobody "" "$BIN/xpsflap" -c 1
	assert_failure 1
	output=$stderr assert_one_line_error
	[[ $stderr == *"loading BPF programs needs CAP_BPF (bpf()); missing"* ]]
}

# Where vmlinux BTF lacks the pick's kfunc (bpf_rdonly_cast, 6.2+), libbpf
# walks the modules' BTF for it, which takes CAP_SYS_ADMIN: xpsflap says so
@test "xpsflap: as nobody with CAP_BPF and CAP_PERFMON only, an observe run works and keeps nothing" {
	local caps=bpf,perfmon
	if ! bpftool btf dump file /sys/kernel/btf/vmlinux format raw | grep -q "FUNC 'bpf_rdonly_cast'"; then
		run --separate-stderr as_nobody bpf,perfmon "$BIN/xpsflap" -c 1 -i 0.2
		assert_failure 1
		output=$stderr assert_one_line_error
		[[ $stderr == *"loading BPF programs on this kernel needs CAP_SYS_ADMIN (libbpf searches the modules' BTF for a kfunc vmlinux lacks); missing"* ]]
		caps=bpf,perfmon,sys_admin
	fi
	run --separate-stderr as_nobody $caps "$BIN/xpsflap" -c 1 -i 0.2 -v
	echo "$stderr"
	assert_success
	assert_line --index 0 --regexp "^xpsflap: kernel $(uname -r), hooks "
	[[ $stderr == *"xpsflap: caps: kept none; no_new_privs"* ]]
}

@test "xpsflap: the one capability missing is named, with what needs it" {
	run --separate-stderr as_nobody bpf "$BIN/xpsflap" -c 1
	assert_failure 1
	output=$stderr assert_one_line_error
	[[ $stderr == *"loading BPF programs needs CAP_PERFMON (tracing programs); missing"* ]]
	run --separate-stderr as_nobody bpf,perfmon "$BIN/xpsflap" --netns nm-no-such-ns -c 1
	assert_failure 1
	output=$stderr assert_one_line_error
	[[ $stderr == *"xpsflap: error: --netns needs CAP_SYS_ADMIN (setns); missing"* ]]
	run --separate-stderr as_nobody bpf,perfmon,sys_admin "$BIN/xpsflap" --netns /proc/1/ns/net -c 1
	assert_failure 1
	[[ $stderr == *"--netns needs CAP_SYS_PTRACE (another process's /proc/PID/ns); missing"* ]]
	run --separate-stderr as_nobody bpf,perfmon "$BIN/xpsflap" --dev lo --pin -c 1
	assert_failure 1
	[[ $stderr == *"--pin needs CAP_NET_ADMIN (a tc BPF program); missing"* ]]
	run --separate-stderr as_nobody bpf,perfmon,net_admin "$BIN/xpsflap" --dev lo --pin -c 1
	assert_failure 1
	[[ $stderr == *"--pin needs CAP_DAC_OVERRIDE (sysfs files owned by root); missing"* ]]
	run --separate-stderr as_nobody bpf,perfmon "$BIN/xpsflap" --bpf-stats -c 1
	assert_failure 1
	[[ $stderr == *"--bpf-stats needs CAP_SYS_ADMIN (BPF_ENABLE_STATS); missing"* ]]
}

@test "xpsflap --print-caps: what this command line needs, as its user; nothing loaded or changed" {
	"$XF" up
	run --separate-stderr "$BIN/xpsflap" --print-caps
	assert_success
	assert_line --regexp $'^CAP_BPF\tloading BPF programs\t'
	assert_line --regexp $'^CAP_PERFMON\tloading BPF programs\t'
	refute_line --regexp '^CAP_NET_ADMIN'
	run --separate-stderr "$BIN/xpsflap" --netns nm-xf-mid --dev xqm --pin --print-caps
	assert_success
	assert_line --regexp $'^CAP_NET_ADMIN\t--pin\t'
	assert_line --regexp $'^CAP_SYS_ADMIN\t--netns\tsetns$'
	! ls "$RUN_DIR"/xpsflap-* 2>/dev/null
	# another user: root's sysfs files and journal directory
	run --separate-stderr as_nobody "" "$BIN/xpsflap" --netns nm-xf-mid --dev xqm --pin --print-caps
	assert_success
	assert_line --regexp $'^CAP_DAC_OVERRIDE\t--pin\tsysfs files owned by root$'
	run --separate-stderr as_nobody "" "$BIN/xpsflap" --cleanup --print-caps
	assert_success
	# no journal: nothing to undo needs nothing
	NETMEDIC_RUN_DIR=/nonexistent/run run --separate-stderr as_nobody "" "$BIN/xpsflap" --cleanup --print-caps
	assert_output none
}

# The run's user is the pass's: root, or nobody in tests/run-all.sh's nobody
# pass, where tests/as-nobody.sh runs every CLI (a guard on that pass).
@test "xpsflap: the suite's runs are root's, or nobody's in the nobody pass" {
	start_bg "$TMP/out" "$BIN/xpsflap" -i 1
	uid=$(awk '$1 == "Uid:" { print $3 }' "/proc/$BG_PID/status")
	stop_bg TERM
	[ "$uid" = "$([ -n "${NM_REAL_BUILD:-}" ] && echo 65534 || echo 0)" ]
}

# bats test_tags=root
@test "xpsflap: once attached, root holds no capability, not even in the bounding set; no_new_privs" {
	start_bg "$TMP/out" "$BIN/xpsflap" -i 1
	assert_equal "$(proc_status "$BG_PID" CapEff)" 0000000000000000
	assert_equal "$(proc_status "$BG_PID" CapPrm)" 0000000000000000
	assert_equal "$(proc_status "$BG_PID" CapBnd)" 0000000000000000
	assert_equal "$(proc_status "$BG_PID" NoNewPrivs)" 1
	stop_bg TERM
}

@test "xpsflap: no kernel BTF -> exit 1, one line" {
	NETMEDIC_BTF=/nonexistent/vmlinux run --separate-stderr "$BIN/xpsflap" -c 1
	assert_failure 1
	output=$stderr assert_one_line_error
	[[ $stderr == *"no kernel BTF at /nonexistent/vmlinux"* ]]
	NETMEDIC_BTF=/etc/passwd run --separate-stderr "$BIN/xpsflap" -c 1
	assert_failure 1
	output=$stderr assert_one_line_error
	[[ $stderr == *"NETMEDIC_BTF=/etc/passwd: not a BTF file"* ]]
}

@test "xpsflap: --prom-file in a missing or unwritable directory -> exit 2" {
	run --separate-stderr "$BIN/xpsflap" --prom-file "$TMP/missing/x.prom" -c 1
	assert_failure 2
	output=$stderr assert_one_line_error
	[[ $stderr == *"does not exist"* ]]
	run --separate-stderr "$BIN/xpsflap" --prom-file /proc/xpsflap.prom -c 1
	assert_failure 2
	output=$stderr assert_one_line_error
}

@test "xpsflap: --prom-file naming a device node or a symlink -> exit 2, one line, left as it was" {
	mknod "$TMP/null" c 1 3
	run --separate-stderr "$BIN/xpsflap" --prom-file "$TMP/null" -c 1 -i 0.2
	assert_failure 2
	output=$stderr assert_one_line_error
	[[ $stderr == *"$TMP/null is a character device, not a regular file"* ]]
	[ -c "$TMP/null" ]
	ln -s x.prom "$TMP/link.prom"
	run --separate-stderr "$BIN/xpsflap" --prom-file "$TMP/link.prom" -c 1 -i 0.2
	assert_failure 2
	output=$stderr assert_one_line_error
	[[ $stderr == *"$TMP/link.prom is a symbolic link"* ]]
	[ -L "$TMP/link.prom" ] && [ ! -e "$TMP/x.prom" ]
}

@test "xpsflap: bad input with --pin changes nothing on the system" {
	"$XF" up --queues 2 --xps on
	run "$BIN/xpsflap" --netns nm-xf-mid --dev xqm --pin --prom-file "$TMP/missing/x.prom" -c 1
	assert_failure 2
	run "$BIN/xpsflap" --netns nm-no-such-ns --dev xqm --pin -c 1
	assert_failure 2
	assert_equal "$(lab_xps_get xf-mid xqm 0)" 1
	assert_equal "$(lab_xps_get xf-mid xqm 1)" 2
	[ -z "$(ls "$RUN_DIR" 2>/dev/null | grep xpsflap)" ]
}

@test "xpsflap: the first line names the kernel and the hook rungs; JSON too" {
	run "$BIN/xpsflap" -c 1 -i 0.2
	assert_success
	assert_line --index 0 --regexp "^xpsflap: kernel $(uname -r), hooks netdev_pick_tx=[a-z_]+/[a-z_]+ net_dev_xmit=[a-z_]+/net_dev_start_xmit"
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
		run "$BIN/xpsflap" --hooks=fentry -c 1 -i 0.2
		assert_success
		assert_line --index 0 --partial "netdev_pick_tx=fexit/netdev_core_pick_tx"
	else
		run --separate-stderr "$BIN/xpsflap" --hooks=fentry -c 1 -i 0.2
		assert_failure 1
		output=$stderr assert_one_line_error
		[[ $stderr == *"fexit/netdev_core_pick_tx"* ]]
		# and auto falls back to the tracepoint rung
		run "$BIN/xpsflap" --hooks=auto -c 1 -i 0.2
		assert_success
		assert_line --index 0 --partial "netdev_pick_tx=tp_btf/net_dev_queue"
	fi
	run "$BIN/xpsflap" --hooks=tracepoint -c 1 -i 0.2
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
