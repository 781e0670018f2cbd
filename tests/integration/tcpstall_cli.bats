#!/usr/bin/env bats
# tcpstall's conventions: bad input answered by one line and an exit code.
# What every tool shares is in common_cli.bats.

# the 6.1 guest runs these in its auto mode (tools/vm/suite.sh)
# bats file_tags=vm:auto
load helpers

teardown() {
	stop_bg KILL
	[ -z "${TMP:-}" ] || rm -rf "$TMP"
}

# bad -i, -c, --hooks, and --dev refused: common_cli.bats
# bats test_tags=userspace
@test "tcpstall: bad options -> exit 2" {
	for a in "--threshold 0" "--sweep x" "--port 70000" "--fix=bogus" "--fix=defer,,autocork" "--fix=kick," "--max-flows 1"; do
		run --separate-stderr "$BIN/tcpstall" $a -c 1 -i 0.2
		assert_failure 2
		[[ $stderr == *invalid* ]]
	done
}

# #37: --port http was refused. A port is a number or a TCP service's name,
# as ss and tcpdump take it; a name the services database lacks is one line.
@test "tcpstall --port: a service's name as well as a number; an unknown name -> exit 2, one line" {
	run --separate-stderr "$BIN/tcpstall" --port http --json -c 1 -i 0.2
	assert_success
	[ "$(printf '%s\n' "$output" | jq -s 'map(select(.type == "interval")) | length')" = 1 ]
	run --separate-stderr "$BIN/tcpstall" --port nm-no-such-service -c 1 -i 0.2
	assert_failure 2
	output=$stderr assert_usage_error tcpstall
	assert_equal "$stderr" "tcpstall: invalid --port 'nm-no-such-service': 1 to 65535, or a TCP service's name (/etc/services)"
}

# #37: a remedy with --cleanup or --list-fixes, neither of which runs one
# bats test_tags=userspace
@test "tcpstall: --cleanup or --list-fixes with --fix -> exit 2, one line naming both" {
	run --separate-stderr "$BIN/tcpstall" --cleanup --fix=defer
	assert_failure 2
	output=$stderr assert_usage_error tcpstall
	assert_equal "$stderr" "tcpstall: --cleanup and --fix: --cleanup undoes what a killed instance left, then exits: it runs no remedy"
	run --separate-stderr "$BIN/tcpstall" --fix --list-fixes
	assert_failure 2
	assert_equal "$stderr" "tcpstall: --list-fixes and --fix: --list-fixes probes the remedies, then exits: it runs no remedy"
}

# Left out in the 6.1 guest: asserts the host's tcp_push=iter/tcp; on 6.1
# tcp_push gets its fexit rung
# bats test_tags=vm:left-out
@test "tcpstall: -v's first line names the hook rungs; --list-hooks says why fentry is refused" {
	run "$BIN/tcpstall" -c 1 -i 0.2
	assert_success
	assert_line --index 0 --regexp "^tcpstall: kernel $(kernel_re), interval 0.2s, sweep "
	[[ ${lines[0]} != *"hooks "* && ${lines[0]} != *"refused: "* ]]
	run --separate-stderr "$BIN/tcpstall" -c 1 -i 0.2 -v
	assert_success
	assert_line --index 0 --regexp "^tcpstall: kernel $(kernel_re), hooks sweep=iter/tcp fast_sweep=iter/[a-z_]+ tcp_push=iter/tcp __release_sock=[^ ]+ tcp_rcv=[a-z_]+/tcp_probe"
	# 6.3+: each write tags the socket for the fast sweep
	assert_line --index 0 --partial "(all sockets every 1000ms, senders tagged by sock_send_length)"
	first=${lines[0]}
	run "$BIN/tcpstall" --list-hooks
	assert_success
	assert_line --regexp '^__release_sock +1 +fentry/__release_sock +(chosen|fentry/__release_sock: .+)$'
	# a kernel that refuses map iterators (EPERM at load): the fast sweep's
	# next rung runs, and the first line names what was refused
	if echo "$output" | grep -qE '^ts_sweep_tagged +fast_sweep +1 +refused$'; then
		assert_line --regexp '^fast_sweep +1 +iter/bpf_sk_storage_map +ts_sweep_tagged: load: .+ \(E[A-Z]+\)$'
		assert_line --regexp '^fast_sweep +2 +iter/tcp +chosen$'
		[[ $first == *"; refused: ts_sweep_tagged (load: "* ]]
	else
		assert_line --regexp '^fast_sweep +1 +iter/bpf_sk_storage_map +chosen$'
		[[ $first != *"refused: ts_sweep_tagged"* ]]
	fi
}

# fix_line OUT NAME: NAME's line of --list-fixes
fix_line() { printf '%s\n' "$1" | awk -v n="$2" '$1 == n'; }

# bats test_tags=root
@test "tcpstall --list-fixes: every remedy, its lever and this kernel's verdict" {
	run "$BIN/tcpstall" --list-fixes
	assert_success
	echo "$output"
	assert_equal "${#lines[@]}" 6	# a header, five remedies
	assert_line --index 0 --regexp '^FIX +LEVER +VERDICT$'
	# the sysctls: allowed where this kernel has them (tcp_backlog_ack_defer: 6.7+)
	for f in "defer tcp_backlog_ack_defer ipv4" "autocork tcp_autocorking ipv4"; do
		set -- $f
		l=$(fix_line "$output" "$1")
		[[ $l == *"sysctl net.$3.$2"* ]] || fail "$1: $l"
		if [ -w "/proc/sys/net/$3/$2" ]; then [[ $l == *" allowed" ]]; else [[ $l == *"not allowed: "*"absent"* ]]; fi
	done
	[[ $(fix_line "$output" routes) == *"ip route replace"*" allowed" ]]
	# kick: by its program exactly where it loads as the kick hook's rung, else from userspace
	l=$(fix_line "$output" kick)
	[[ $l == "kick "*"BPF iter/tcp + bpf_setsockopt(TCP_NODELAY) or pidfd_getfd"* ]]
	if "$BIN/tcpstall" --fix=kick --list-hooks | grep -qE '^ts_kick +kick +1 +loaded$'; then
		[[ $l == *" allowed by iter/tcp" ]]
	else
		[[ $l == *" allowed by pidfd_getfd (ts_kick: "* ]]
	fi
}

@test "tcpstall --fix=kick: the first line, JSON and --list-hooks name the kick rung" {
	# iter/tcp where its programs may call bpf_setsockopt (5.15+), else
	# pidfd_getfd (5.6+): a kick either way, never lost
	local rung
	rung=$(chosen_rung tcpstall kick --fix=kick)
	[[ $rung == iter/tcp || $rung == pidfd_getfd ]] || fail "kick's rung: $rung"
	run --separate-stderr "$BIN/tcpstall" --fix=kick -c 1 -i 0.2 --json --table -v
	assert_success
	first=$(printf '%s\n' "$stderr" | grep -m1 '^tcpstall: kernel ')
	[[ $first == *" kick=$rung, interval "* ]] || fail "first line: $first"
	[[ $first != *"lost: kick"* ]]
	assert_equal "$(printf '%s\n' "$output" | jq -r 'select(.type == "start") | .hooks.kick')" "$rung"
	run "$BIN/tcpstall" --fix=kick --list-hooks
	if [ "$rung" = iter/tcp ]; then
		assert_line --regexp '^kick +1 +iter/tcp +chosen$'
		assert_line --regexp '^ts_kick +kick +1 +loaded$'
	else
		assert_line --regexp '^kick +2 +pidfd_getfd +chosen$'
		assert_line --regexp '^ts_kick +kick +1 +refused$'
	fi
	# without --fix=kick there is no such hook, and its program is not loaded
	run "$BIN/tcpstall" --list-hooks
	refute_line --regexp '^kick '
	refute_output --partial ts_kick
}

# where iter/tcp may not set socket options (before 5.15), the kick hook's second rung kicks from userspace
@test "tcpstall --fix=kick with ts_kick refused (NETMEDIC_REFUSE): kicks from userspace, pidfd_getfd, and says so" {
	prom=$BATS_TEST_TMPDIR/k.prom
	NETMEDIC_REFUSE=ts_kick run --separate-stderr "$BIN/tcpstall" --fix=kick -c 1 -i 0.2 --json --table \
		--prom-file "$prom" -v
	assert_success
	first=$(printf '%s\n' "$stderr" | grep -m1 '^tcpstall: kernel ')
	[[ $first == *" kick=pidfd_getfd, interval "* ]] || fail "first line: $first"
	[[ $first == *"refused: "*"ts_kick (load: Operation not permitted (EPERM) by NETMEDIC_REFUSE)"* ]] ||
		fail "first line: $first"
	[[ $first != *"kick (--fix=kick is not available"* ]] || fail "first line: $first"
	start=$(printf '%s\n' "$output" | jq -c 'select(.type == "start")')
	assert_equal "$(echo "$start" | jq -r .hooks.kick)" pidfd_getfd
	assert_equal "$(echo "$start" | jq -c '.lost.kick')" null
	grep -qx 'netmedic_feature_enabled{tool="tcpstall",feature="kick"} 1' "$prom"
	NETMEDIC_REFUSE=ts_kick run "$BIN/tcpstall" --list-fixes
	assert_success
	assert_line --regexp '^kick +BPF iter/tcp .* allowed by pidfd_getfd \(ts_kick: load: Operation not permitted \(EPERM\) by NETMEDIC_REFUSE\)$'
	NETMEDIC_REFUSE=ts_kick run "$BIN/tcpstall" --fix=kick --list-hooks
	assert_line --regexp '^kick +1 +iter/tcp +ts_kick: load: Operation not permitted \(EPERM\) by NETMEDIC_REFUSE$'
	assert_line --regexp '^kick +2 +pidfd_getfd +chosen$'
	assert_line --regexp '^ts_kick +kick +1 +refused$'
}

# with pidfd_getfd refused too (NETMEDIC_REFUSE takes its name, as a kernel before 5.6 or a policy would)
@test "tcpstall --fix=kick with ts_kick and pidfd_getfd refused: it runs and says kick is lost, and why" {
	prom=$BATS_TEST_TMPDIR/k.prom
	NETMEDIC_REFUSE=ts_kick,pidfd_getfd run --separate-stderr "$BIN/tcpstall" --fix=kick -c 1 -i 0.2 --json --table \
		--prom-file "$prom" -v
	assert_success
	why='--fix=kick is not available on this kernel: tsq_idle sockets are not kicked (ts_kick: load: Operation not permitted (EPERM) by NETMEDIC_REFUSE; pidfd_getfd: Operation not permitted by NETMEDIC_REFUSE)'
	first=$(printf '%s\n' "$stderr" | grep -m1 '^tcpstall: kernel ')
	[[ $first == *" kick=none, interval "* ]] || fail "first line: $first"
	[[ $first == *"lost: "*"kick ($why)"* ]] || fail "first line: $first"
	start=$(printf '%s\n' "$output" | jq -c 'select(.type == "start")')
	assert_equal "$(echo "$start" | jq -r .lost.kick)" "$why"
	assert_equal "$(echo "$start" | jq -r .refused.ts_kick)" "load: Operation not permitted (EPERM) by NETMEDIC_REFUSE"
	# it ran: the interval record came, kicks all 0
	assert_equal "$(printf '%s\n' "$output" | jq -c 'select(.type == "interval") | .kicks')" \
		'{"attempted":0,"done":0,"failed":0,"skipped":0}'
	grep -qx 'netmedic_feature_enabled{tool="tcpstall",feature="kick"} 0' "$prom"
	grep -qx 'netmedic_hook_info{tool="tcpstall",hook="kick",mode="none",program="none"} 1' "$prom"
	NETMEDIC_REFUSE=ts_kick,pidfd_getfd run "$BIN/tcpstall" --list-fixes
	assert_success
	assert_line --regexp '^kick +BPF iter/tcp .* not allowed: ts_kick: load: Operation not permitted \(EPERM\) by NETMEDIC_REFUSE; pidfd_getfd: Operation not permitted by NETMEDIC_REFUSE$'
	NETMEDIC_REFUSE=ts_kick,pidfd_getfd run "$BIN/tcpstall" --fix=kick --list-hooks
	assert_line --regexp '^kick +2 +pidfd_getfd +pidfd_getfd: Operation not permitted by NETMEDIC_REFUSE$'
	assert_line --regexp "^kick +3 +none +chosen: --fix=kick is not available on this kernel"
}

# libbpf advises raising 'ulimit -l' for any EPERM at load; 5.11+ kernels
# charge BPF memory to the memory cgroup, so -v says what was refused instead.
# libbpf gives that advice only to root with a finite RLIMIT_MEMLOCK: the run
# is made so (no CAP_SYS_RESOURCE to lift the limit), as on a host whose
# limit is fixed, so the rewrite is checked wherever the kernel refuses a load.
# Before 5.11 the limit is the cause: the run fails, and its one line says
# what to raise, and how.
# bats test_tags=root
@test "tcpstall -v: 'ulimit -l' is named only where the kernel charges it (before 5.11)" {
	run --separate-stderr prlimit --memlock=8192:8192 \
		setpriv --bounding-set=-sys_resource "$BIN/tcpstall" -v --json -c 1 -i 0.2
	if kernel_before 5 11; then
		assert_failure 1
		echo "$stderr"
		[[ $(echo "$stderr" | grep '^tcpstall: error: ') == *"kernel $(uname -r) charges BPF maps and programs to RLIMIT_MEMLOCK (before 5.11), which is 8 KiB here and could not be raised (that needs CAP_SYS_RESOURCE): run under 'ulimit -l unlimited' or LimitMEMLOCK=infinity, as the systemd units do" ]]
		return 0
	fi
	assert_success
	echo "$stderr"
	refute [ -z "$(echo "${lines[0]}" | jq -r .kernel)" ]
	[[ $stderr != *"try raising 'ulimit -l'"* ]]
	# where the kernel itself refused a load with EPERM, the line that replaced libbpf's is there
	if echo "${lines[0]}" | jq -e '.refused | to_entries | any(.value | test("^load: .*EPERM\\)$"))' >/dev/null; then
		[[ $stderr == *"not a memory limit: this kernel ($(uname -r)) charges BPF memory to the memory cgroup"* ]]
	fi
}

@test "tcpstall: as nobody with CAP_BPF and CAP_PERFMON only, an observe run works and keeps nothing" {
	run --separate-stderr as_nobody bpf,perfmon "$BIN/tcpstall" -c 2 -i 0.3 -v --json
	echo "$stderr"
	assert_success
	[[ $stderr == *"tcpstall: $(caps_kept none)"* ]]
	# both reports: the sweeps (iter/tcp reads) and map reads ran after the drop
	[ "$(echo "$output" | jq -s 'map(select(.type == "interval")) | length')" = 2 ]
}

# bats test_tags=root
@test "tcpstall: the one capability missing is named; --fix keeps what its remedies need" {
	run --separate-stderr as_nobody bpf,perfmon "$BIN/tcpstall" --fix=defer -c 1
	assert_failure 1
	output=$stderr assert_one_line_error
	[[ $stderr == *"--fix needs CAP_NET_ADMIN (tc, netlink, net sysctls); missing"* ]]
	run --separate-stderr as_nobody bpf,perfmon,net_admin,dac_override "$BIN/tcpstall" --fix=rfs -c 1
	assert_failure 1
	[[ $stderr == *"--fix needs CAP_SYS_ADMIN (setns to the initial netns); missing"* ]]
	# --cleanup: nothing to undo needs nothing; a journal to undo needs what undoes it
	TMP=$(mktemp -d)
	nobody_run_dir "$TMP/run"
	NETMEDIC_RUN_DIR=$TMP/run run --separate-stderr as_nobody "" "$BIN/tcpstall" --cleanup
	assert_success
	[[ $stderr == *"cleanup: 0 journal(s) undone"* ]]
	printf '' > "$TMP/run/tcpstall-1.journal"
	chown 65534:65534 "$TMP/run/tcpstall-1.journal"
	NETMEDIC_RUN_DIR=$TMP/run run --separate-stderr as_nobody bpf,perfmon "$BIN/tcpstall" --cleanup
	assert_failure 1
	output=$stderr assert_one_line_error
	[[ $stderr == *"--cleanup needs CAP_NET_ADMIN (tc, net sysctls); missing"* ]]
	# --fix=rfs's rps_flow_cnt is root's, in sysfs
	NETMEDIC_RUN_DIR=$TMP/run run --separate-stderr as_nobody bpf,perfmon,net_admin,sys_admin "$BIN/tcpstall" --cleanup
	assert_failure 1
	[[ $stderr == *"--cleanup needs CAP_DAC_OVERRIDE (sysfs files owned by root); missing"* ]]
	NETMEDIC_RUN_DIR=$TMP/run run --separate-stderr as_nobody bpf,perfmon,net_admin,sys_admin,dac_override \
		"$BIN/tcpstall" --cleanup
	echo "$stderr"
	[[ $stderr != *"needs CAP_"* ]]
	# in the one netns it runs in: what the remedies need, no more
	run --separate-stderr "$BIN/tcpstall" --netns /proc/self/ns/net --port 1 --fix=defer -c 1 -i 0.2 -v
	assert_success
	[[ $stderr == *"tcpstall: $(caps_kept cap_net_admin "remedies")"* ]]
	run --separate-stderr "$BIN/tcpstall" --netns /proc/self/ns/net --port 1 --fix=rfs -c 1 -i 0.2 -v
	assert_success
	[[ $stderr == *"tcpstall: $(caps_kept cap_net_admin,cap_sys_admin "remedies")"* ]]
	# host-wide: and what the other namespaces' names and sweeps need
	run --separate-stderr "$BIN/tcpstall" --port 1 --fix=defer -c 1 -i 0.2 -v
	assert_success
	[[ $stderr == *"tcpstall: $(caps_kept cap_net_admin,cap_sys_ptrace,cap_sys_admin "remedies, netns names")"* ]]
}

@test "tcpstall --fix as nobody, journal directory root's 0700: CAP_DAC_OVERRIDE needed, kept, journal removed at exit" {
	TMP=$(mktemp -d)
	chmod 0711 "$TMP"
	mkdir -m 0700 "$TMP/run"
	export NETMEDIC_RUN_DIR=$TMP/run
	run --separate-stderr as_nobody bpf,perfmon,net_admin "$BIN/tcpstall" --port 1 --fix=defer -c 1 -i 0.2
	assert_failure 1
	output=$stderr assert_one_line_error
	[[ $stderr == *"--fix needs CAP_DAC_OVERRIDE (a journal directory this user cannot write); missing"* ]]
	run --separate-stderr as_nobody bpf,perfmon,net_admin,dac_override "$BIN/tcpstall" --port 1 --fix=defer -c 1 -i 0.2 -v
	echo "$stderr"
	assert_success
	[[ $stderr == *"$(caps_kept cap_dac_override,cap_net_admin "remedies")"* ]]
	# removed at exit, after the drop: nothing left for a root --cleanup to refuse
	[ -z "$(ls -A "$TMP/run")" ]
}
