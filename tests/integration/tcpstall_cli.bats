#!/usr/bin/env bats
# tcpstall's conventions: bad input answered by one line and an exit code.

load helpers

@test "tcpstall: bad options -> exit 2" {
	for a in "--threshold 0" "--sweep x" "--port 70000" "--fix=bogus" "-i 0" "-c -1" "--max-flows 1"; do
		run --separate-stderr "$BIN/tcpstall" $a
		assert_failure 2
		[[ $stderr == *invalid* ]]
	done
	run --separate-stderr "$BIN/tcpstall" --dev lo -c 1
	assert_failure 2
	output=$stderr assert_one_line_error
}

@test "tcpstall: not root, no BTF, unknown netns -> one line, non-zero" {
	run --separate-stderr setpriv --reuid=65534 --regid=65534 --clear-groups "$BIN/tcpstall" -c 1
	assert_failure 1
	output=$stderr assert_one_line_error
	NETMEDIC_BTF=/nonexistent run --separate-stderr "$BIN/tcpstall" -c 1
	assert_failure 1
	output=$stderr assert_one_line_error
	run --separate-stderr "$BIN/tcpstall" --netns nm-no-such-ns -c 1
	assert_failure 2
	output=$stderr assert_one_line_error
}

@test "tcpstall: first line names the hook rungs; --list-hooks says why fentry is refused" {
	run "$BIN/tcpstall" -c 1 -i 0.2
	assert_success
	assert_line --index 0 --regexp "^tcpstall: kernel $(uname -r), hooks sweep=iter/tcp fast_sweep=iter/[a-z_]+ tcp_push=iter/tcp __release_sock=[^ ]+ tcp_rcv=[a-z_]+/tcp_probe"
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
