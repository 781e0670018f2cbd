#!/usr/bin/env bats
# tcpstall's scope (docs/reference/tcpstall.md SCOPE) against tools/lab/tcpstall.sh:
# a default run watches every netns and names each record's namespace;
# the controls stay clean host-wide; --netns narrows it; a netns that goes
# mid-run drops its records and its way in, quietly; remedies act in the
# netns tcpstall runs in only, and two --netns refuse them; a socket
# record names its owner's cgroup, on either sweep rung.
load helpers

TS=$LAB/tcpstall.sh
RCV=${LAB_PREFIX}ts-rcv
SND=${LAB_PREFIX}ts-snd

setup() {
	TMP=$(mktemp -d)
	BG_PID=
	CG=
}

teardown() {
	stop_bg KILL
	"$BIN/tcpstall" --cleanup >/dev/null 2>&1
	"$TS" down
	cg_remove
	rm -rf "$TMP"
}

# The cgroup2 mount point (mountinfo's fifth field): /sys/fs/cgroup, or
# /sys/fs/cgroup/unified on a hybrid host such as this one.
cg2_mount() { awk '/ - cgroup2 / { print $5; exit }' /proc/self/mountinfo; }

# The test's cgroup, CG, emptied into its parent and removed.
cg_remove() {
	local pid
	[ -n "$CG" ] && [ -d "$CG" ] || return 0
	while read -r pid; do
		echo "$pid" >"$(dirname "$CG")/cgroup.procs" 2>/dev/null
	done <"$CG/cgroup.procs"
	rmdir "$CG"
}

# rcv_acks OUT [INO]: the lab receiver's ACK records (local port 5301), by
# its netns's inode (INO, for a netns that is gone by then): the files
# beside this one may run the same lab, under their own names, at once
rcv_acks() {
	jq -c --argjson i "${2:-$(ino $RCV)}" \
		'select(.type == "acks" and .sport == 5301 and .saddr == "198.18.1.2" and .netns_ino == $i)' "$1"
}

# sender OUT: the lab sender's socket records (to port 5301)
sender() {
	jq -c --argjson i "$(ino $SND)" \
		'select(.type == "socket" and .dport == 5301 and .saddr == "198.18.1.1" and .netns_ino == $i)' "$1"
}

@test "tcpstall default run: the ACK storm is found in the receiver's netns, by its name" {
	"$TS" up --quickack on --defer 0
	start_bg "$TMP/out" "$BIN/tcpstall" --json --table -i 4 -c 1
	"$TS" storm 3 >/dev/null
	wait_bg
	grep -q '^tcpstall: kernel .*, netns all' "$TMP/out.err"
	[ "$(jq -r 'select(.type == "start") | .netns' "$TMP/out")" = all ]
	run rcv_acks "$TMP/out"
	echo "$output"
	[ "$(echo "$output" | jq .storm)" = true ]
	[ "$(echo "$output" | jq -r .netns)" = $RCV ]
	[ "$(echo "$output" | jq .netns_ino)" = "$(ino $RCV)" ]
	[ "$(echo "$output" | jq '.causes | index("quickack_route") != null')" = true ]
	# the table's NETNS column
	grep -qE '^YES +[0-9.kM]+ +[0-9.kM]+ +[0-9.]+ +[0-9.]+ +[0-9]+ '"$(col10 "$RCV")"' +198\.18\.1\.2:5301>' "$TMP/out.err"
	# every netns in scope swept, none over a cap
	[ "$(jq 'select(.type == "interval") | .netns_swept >= 3 and .netns_over == 0' "$TMP/out")" = true ]
}

@test "tcpstall default run: the stopped reader's sender is rwnd_limited, in the sender's netns" {
	"$TS" up --quickack off --defer 1
	start_bg "$TMP/out" "$BIN/tcpstall" --json -i 2.5 -c 1
	"$TS" rwnd 2 >/dev/null
	wait_bg
	run sender "$TMP/out"
	echo "$output"
	[ "$(echo "$output" | jq -r .last_cause)" = rwnd_limited ]
	[ "$(echo "$output" | jq -r .netns)" = $SND ]
	[ "$(echo "$output" | jq .netns_ino)" = "$(ino $SND)" ]
	[ "$(echo "$output" | jq '.stall_ms_max > 100 or .stalled_ms > 100')" = true ]
}

# The sock_diag rung has a socket of its own in each netns: it finds the
# sender with no iterator at all (no fast sweep either).
@test "tcpstall default run on sock_diag (every iterator refused): the sender is rwnd_limited, in its netns" {
	"$TS" up --quickack off --defer 1
	NETMEDIC_REFUSE=iter/ start_bg "$TMP/out" "$BIN/tcpstall" --json -i 2.5 -c 1
	"$TS" rwnd 2 >/dev/null
	wait_bg
	jq -s -e 'map(select(.type == "start"))[0] | .hooks.sweep == "sock_diag" and .hooks.fast_sweep == "none"' "$TMP/out"
	run sender "$TMP/out"
	echo "$output"
	[ "$(echo "$output" | jq -r .last_cause)" = rwnd_limited ]
	[ "$(echo "$output" | jq -r .netns)" = $SND ]
	[ "$(jq 'select(.type == "interval") | .netns_swept >= 3' "$TMP/out")" = true ]
}

# sender_in_cgroup [ENV...]: the lab's stalled-reader run, started in a
# cgroup of the test's own (a socket belongs to the cgroup of the process
# that made it), seen by a default run with ENV; its socket record names
# that cgroup as /proc/PID/cgroup does, beside its id (the directory's inode).
sender_in_cgroup() {
	local mnt
	mnt=$(cg2_mount)
	[ -n "$mnt" ]
	CG=$mnt/nm-test-$$
	mkdir "$CG"
	"$TS" up --quickack off --defer 1
	start_bg "$TMP/out" env "$@" "$BIN/tcpstall" --json -i 2.5 -c 1
	sh -c 'echo $$ >"$1/cgroup.procs" && exec "$2" rwnd 2' sh "$CG" "$TS" >/dev/null
	wait_bg
	run sender "$TMP/out"
	echo "$output"
	[ "$(echo "$output" | jq -r .last_cause)" = rwnd_limited ]
	[ "$(echo "$output" | jq -r .cgroup)" = "/nm-test-$$" ]
	[ "$(echo "$output" | jq .cgroup_id)" = "$(stat -c %i "$CG")" ]
	cg_remove
	[ ! -d "$CG" ]
}

@test "tcpstall default run: the sender's socket record names the cgroup it runs in" {
	sender_in_cgroup NETMEDIC_UNUSED=1
}

@test "tcpstall default run on sock_diag (every iterator refused): the socket record names its cgroup" {
	sender_in_cgroup NETMEDIC_REFUSE=iter/
	jq -s -e 'map(select(.type == "start"))[0] | .hooks.sweep == "sock_diag"' "$TMP/out"
}

# Host-wide, whatever else the host runs: no storm anywhere, and a healthy
# bulk sender is never tsq_idle.
# bats test_tags=serial
@test "tcpstall default run: the controls stay clean host-wide" {
	"$TS" up --quickack on --defer 1
	start_bg "$TMP/a" "$BIN/tcpstall" --json -i 4 -c 1
	"$TS" storm 3 >/dev/null
	wait_bg
	run rcv_acks "$TMP/a"
	echo "defer=1: $output"
	[ "$(echo "$output" | jq -r .netns)" = $RCV ]
	[ "$(echo "$output" | jq '.storm == false and .segs_owned > 0')" = true ]
	[ "$(jq -s 'map(select(.type == "acks" and .storm)) | length' "$TMP/a")" = 0 ]
	[ "$(jq 'select(.type == "interval") | .ack_storm_flows' "$TMP/a")" = 0 ]
	"$TS" up --quickack off --defer 1
	start_bg "$TMP/b" "$BIN/tcpstall" --json -i 4 -c 1
	"$TS" bulk 3
	wait_bg
	run jq -c 'select(.type == "interval")' "$TMP/b"
	echo "bulk: $output"
	[ "$(echo "$output" | jq '.samples | add')" -ge 5 ]
	[ "$(echo "$output" | jq '.samples.tsq_idle')" = 0 ]
	! grep -q tsq_idle <(jq -c 'select(.type == "socket")' "$TMP/b")
}

# tcpstall.bats's shaped sender, host-wide: --port 5201 keeps the sweep's
# samples to the lab's iperf3 flows (the interval's samples are not kept
# by netns), and --all prints the sender's socket record, which names its
# netns, though it is not stalled.
@test "tcpstall default run: a tbf-shaped sender is throttled with data below TCP, in its netns, never tsq_idle" {
	local s
	"$TS" up --quickack off --defer 1 --tbf 200mbit
	start_bg "$TMP/out" "$BIN/tcpstall" --port 5201 --all --json -i 4 -c 1
	"$TS" bulk 3
	wait_bg
	run jq -c 'select(.type == "interval")' "$TMP/out"
	echo "$output"
	[ "$(echo "$output" | jq '.samples | add')" -ge 5 ]
	[ "$(echo "$output" | jq '.samples.host_queue')" -gt 0 ]
	[ "$(echo "$output" | jq '.samples.tsq_idle')" = 0 ]
	s=$(jq -sc 'map(select(.type == "socket" and .saddr == "198.18.1.1" and .dport == 5201)) | max_by(.unsent + .packets_out)' "$TMP/out")
	echo "sender: $s"
	[ "$(echo "$s" | jq -r .netns)" = $SND ]
	[ "$(echo "$s" | jq .netns_ino)" = "$(ino $SND)" ]
	[ "$(echo "$s" | jq -r .comm)" = iperf3 ]
	! grep -q tsq_idle <(jq -c 'select(.type == "socket")' "$TMP/out")
}

# tcpstall.bats's cross-CPU flow (RPS puts the receiver's softirq work on
# CPU 0, the reader runs on CPU 1), host-wide: flagged in the receiver's
# netns, and counted in that netns's series of the gauge only.
# bats test_tags=serial
@test "tcpstall default run: a cross-CPU flow is flagged in the receiver's netns and counted in its series" {
	local want
	"$TS" up --quickack off --defer 1 --rps 1
	start_bg "$TMP/out" "$BIN/tcpstall" --port 5301 --json -i 1 -c 4 --prom-file "$TMP/ts.prom"
	"$TS" read 4 >/dev/null
	wait_bg
	run jq -c 'select(.type == "placement" and .sport == 5301 and .saddr == "198.18.1.2")' "$TMP/out"
	echo "$output"
	echo "$output" | jq -c 'select(.cross_cpu and .softirq_cpus == [0] and .app_cpus == [1])' | grep -q .
	[ -z "$(echo "$output" | jq -c 'select(.netns != "'$RCV'" or .netns_ino != '"$(ino $RCV)"')')" ]
	grep '^tcpstall_cross_cpu_flows' "$TMP/ts.prom"
	# the last report's: the JSON's count, in the receiver's netns's series
	want=$(jq -s 'map(select(.type == "interval")) | last | .cross_cpu_flows' "$TMP/out")
	[ "$want" -ge 1 ]
	grep -qx "tcpstall_cross_cpu_flows{netns=\"$RCV\"} $want" "$TMP/ts.prom"
	grep -qx "tcpstall_cross_cpu_flows{netns=\"$SND\"} 0" "$TMP/ts.prom"
}

# The stopped reader's flow: its sender in scope is found stalled; its
# receiver, which keeps ACKing the data it got, is outside: never seen.
@test "tcpstall --netns A --netns B: only those namespaces' flows; the receiver's outside is not seen" {
	"$TS" up --quickack off --defer 1
	start_bg "$TMP/out" "$BIN/tcpstall" --netns $SND --netns /proc/self/ns/net --json -i 2.5 -c 1
	"$TS" rwnd 2 >/dev/null
	wait_bg
	cat "$TMP/out.err"
	[ "$(jq -r 'select(.type == "start") | .netns' "$TMP/out")" = "$SND,host" ]
	run sender "$TMP/out"
	echo "$output"
	[ "$(echo "$output" | jq -r .last_cause)" = rwnd_limited ]
	[ "$(echo "$output" | jq -r .netns)" = $SND ]
	# the receiver's netns is not in scope: none of its records
	[ -z "$(jq -c "select(.netns_ino == $(ino $RCV))" "$TMP/out")" ]
	[ -z "$(rcv_acks "$TMP/out")" ]
	[ "$(jq 'select(.type == "interval") | .netns_swept' "$TMP/out")" = 2 ]
}

# nsfds PID INO: the tool's fds on netns INO (the full sweep's way in; a
# /run/netns file reads as its path, so by inode)
nsfds() {
	local f n=0
	for f in /proc/$1/fd/*; do
		[ "$(stat -L -c %i "$f" 2>/dev/null)" = "$2" ] && n=$((n + 1))
	done
	echo $n
}

# ns_holders INO...: each name under /run/netns, and each process (and
# thread), whose netns is one of INO, for a failure's log
ns_holders() {
	local f ino
	for f in /run/netns/*; do
		ino=$(stat -L -c %i "$f" 2>/dev/null) || continue
		case " $* " in *" $ino "*) echo "netns $ino: still named $f" ;; esac
	done
	for f in /proc/[0-9]*/task/[0-9]*/ns/net; do
		ino=$(stat -L -c %i "$f" 2>/dev/null) || continue
		case " $* " in *" $ino "*)
			f=${f%/ns/net}
			echo "netns $ino: task ${f##*/} of $(cut -d/ -f3 <<<"$f") ($(cat "$f/comm" 2>/dev/null))" ;;
		esac
	done
}

# Alone (serial). Beside other files, the deleted netns stayed open:
# - once because xpsflap's main thread was inside it (a transient setns to
#   open a socket there, lib/rtnl.c), and the registry, which reads
#   /proc/*/ns/net, saw it alive again. Such visits are made on a thread of
#   their own now (nm_netns_visit; the next test);
# - and again after that fix (2026-12-06, the nobody pass, in the pool):
#   both fds open after 15 s while ns_holders named no process and no name.
#   That cause is not known yet.
# bats test_tags=serial
@test "tcpstall default run: a netns deleted mid-run drops its records quietly and its fds are closed" {
	local i rcv snd n
	"$TS" up --quickack on --defer 0
	rcv=$(ino $RCV)
	snd=$(ino $SND)
	start_bg "$TMP/out" "$BIN/tcpstall" --json -i 0.5
	"$TS" storm 2 >/dev/null
	# the full sweep holds a way into each lab netns
	for i in $(seq 20); do
		[ "$(nsfds "$BG_PID" "$rcv") $(nsfds "$BG_PID" "$snd")" = "1 1" ] && break
		sleep 0.2
	done
	assert_equal "$(nsfds "$BG_PID" "$rcv") $(nsfds "$BG_PID" "$snd")" "1 1"
	"$TS" down
	# within a few reports the scope says they are gone: closed. A netns
	# lives on while a process is in it (the registry reads /proc/*/ns/net):
	# on a loaded machine (CI, 3 files at a time) the fds were still open
	# after 6 s once; the wait is 15 s, and what held them is printed
	for i in $(seq 75); do
		[ "$(nsfds "$BG_PID" "$rcv") $(nsfds "$BG_PID" "$snd")" = "0 0" ] && break
		sleep 0.2
	done
	ns_holders "$rcv" "$snd"
	assert_equal "$(nsfds "$BG_PID" "$rcv") $(nsfds "$BG_PID" "$snd")" "0 0"
	n=$(grep -c '"type":"interval"' "$TMP/out")
	sleep 2
	kill -0 "$BG_PID"
	stop_bg TERM
	# the storm was seen there, by name...
	rcv_acks "$TMP/out" "$rcv" | jq -e -s 'map(select(.netns == "'"${LAB_PREFIX}"'ts-rcv" and .storm)) | length > 0'
	# ...and after the report that found the netns gone, none of its records:
	# by its inode, under its name or none (the kernel gives a freed inode
	# to the next netns made, and a file beside this one makes them: a
	# record under another lab's name is that one's)
	[ "$(grep -c '"type":"interval"' "$TMP/out")" -ge $((n + 3)) ]
	[ -z "$(awk -v n=$((n + 1)) '/"type":"interval"/ { i++ } i > n' "$TMP/out" |
		jq -c --arg p "$LAB_PREFIX" "select((.netns_ino == $rcv or .netns_ino == $snd) and
			((.netns // \"\" | tostring) as \$n | (\$n | startswith(\$p)) or (\$n | test(\"^[0-9]*\$\"))))")" ]
	# quietly: not a line on stderr
	cat "$TMP/out.err"
	[ ! -s "$TMP/out.err" ]
}

# Why a visit is made on a thread of its own (lib/netns.h): /proc/PID/ns/net
# is the main thread's, and ip netns identify, and every netmedic tool's
# registry, read a netns there as in use. strace: the sweeps' visits
# (setns) are made, by threads that are not the main one.
@test "tcpstall default run: its sweeps enter the lab's namespaces, never from its main thread" {
	"$TS" up --quickack on --defer 0
	local pid
	start_bg "$TMP/out" "$BIN/tcpstall" --json -i 0.5
	pid=$BG_PID
	# three full sweeps at least (one a second), each a trip to both namespaces
	timeout 4 strace -f -qq -p "$pid" -e trace=setns -o "$TMP/strace" || true
	kill -0 "$pid"
	stop_bg TERM
	echo "tcpstall: pid $pid"
	cat "$TMP/strace"
	[ "$(grep -c 'setns(.*CLONE_NEWNET' "$TMP/strace")" -ge 2 ]
	[ "$(grep -c "^$pid " "$TMP/strace")" = 0 ]
}

@test "tcpstall: two --netns with --fix are refused, exit 2, one line, nothing changed" {
	local f
	"$TS" up --quickack on --defer 0
	for f in --fix --fix=kick --fix=defer,routes; do
		run --separate-stderr "$BIN/tcpstall" --netns $RCV --netns $SND "$f" -c 1
		assert_failure 2
		output=$stderr assert_usage_error tcpstall
		[[ $stderr == *"--fix needs exactly one --netns: it changes the netns tcpstall runs in"* ]] ||
			fail "$f: $stderr"
	done
	assert_equal "$(lab_exec ts-rcv sysctl -n net.ipv4.tcp_backlog_ack_defer 2>/dev/null || echo absent)" \
		"$([ -e /proc/sys/net/ipv4/tcp_backlog_ack_defer ] && echo 0 || echo absent)"
	[ -z "$(ls "$RUN_DIR" 2>/dev/null | grep tcpstall)" ]
}

# Left out in the 6.1 guest: the storm's remedy is the 6.7 sysctl
# bats test_tags=vm:left-out
@test "tcpstall --fix in a default run: the storm in another netns is not acted on, and that is said once" {
	"$TS" up --quickack on --defer 0
	start_bg "$TMP/out" "$BIN/tcpstall" --port 5301 --json -i 1 -c 5 --fix=defer,routes
	"$TS" storm 5 >/dev/null
	wait_bg
	cat "$TMP/out.err"
	# seen, a storm, more than once...
	[ "$(rcv_acks "$TMP/out" | jq -s 'map(select(.storm and .netns == "'"${LAB_PREFIX}"'ts-rcv")) | length')" -ge 2 ]
	# ...said once per remedy, naming the --netns that would let it act
	[ "$(grep -c 'fix: defer: did not act on 198\.18\.1\.2:5301>198\.18\.1\.1:[0-9]* in netns '"${LAB_PREFIX}"'ts-rcv: tcpstall acts in its own (host) only; --netns '"${LAB_PREFIX}"'ts-rcv would let it$' "$TMP/out.err")" = 1 ]
	[ "$(grep -c 'fix: routes: did not act on .* in netns '"${LAB_PREFIX}"'ts-rcv: .* --netns '"${LAB_PREFIX}"'ts-rcv would let it$' "$TMP/out.err")" = 1 ]
	# ...and not done: the sysctl and the route as they were
	[ "$(grep -c 'tcp_backlog_ack_defer 0 -> 1' "$TMP/out.err")" = 0 ]
	if [ -e /proc/sys/net/ipv4/tcp_backlog_ack_defer ]; then
		assert_equal "$(lab_exec ts-rcv sysctl -n net.ipv4.tcp_backlog_ack_defer)" 0
	fi
	[[ $(lab_exec ts-rcv ip route show 198.18.1.1) == *"quickack 1"* ]]
}

@test "tcpstall default run: each netns's metrics carry its name; bounded, no flow in a label" {
	"$TS" up --quickack on --defer 0
	start_bg "$TMP/out" "$BIN/tcpstall" -i 1 --prom-file "$TMP/ts.prom"
	"$TS" storm 3 >/dev/null
	sleep 1.5
	stop_bg TERM
	run promtool check metrics <"$TMP/ts.prom"
	echo "$output"
	assert_success
	grep -E '^tcpstall_ack_storm_flows\{netns="'"${LAB_PREFIX}"'ts-rcv"\} [0-9]+$' "$TMP/ts.prom"
	grep -E '^tcpstall_acks_sent_total\{netns="'"${LAB_PREFIX}"'ts-rcv"\} [1-9]' "$TMP/ts.prom"
	grep -E '^tcpstall_data_segments_total\{netns="'"${LAB_PREFIX}"'ts-rcv"\} [1-9]' "$TMP/ts.prom"
	# the kicks and drops are no netns's
	grep -E '^tcpstall_backlog_drops_total [0-9]+$' "$TMP/ts.prom"
	! grep -E 'saddr|sport|198\.18\.' "$TMP/ts.prom"
}
