#!/usr/bin/env bats
# xpsflap's scope (docs/reference/xpsflap.md SCOPE) against tools/lab/xpsflap.sh: a
# default run watches every netns and names each flow's namespace and
# device; --netns narrows it; two --netns refuse what needs one; without
# the names' privileges it runs on and says what it lost.
load helpers

XF=$LAB/xpsflap.sh
MID=${LAB_PREFIX}xf-mid
RCV=${LAB_PREFIX}xf-rcv
SND=${LAB_PREFIX}xf-snd

setup() {
	TMP=$(mktemp -d)
	BG_PID=
}

teardown() {
	stop_bg KILL
	"$XF" down
	xs_down
	rm -rf "$TMP"
}

# flow OUT DEV: the lab's bulk flow on DEV (iperf3's data connection), its
# busiest record; of the lab's namespaces only (lab_flows), as the files
# beside this one may run the same lab, under their own names, at once
flow() {
	lab_flows "$1" | jq -sc --arg d "$2" 'map(select(.proto == "tcp" and .dev == $d and
		(.dport == 5201 or .sport == 5201))) | max_by(.packets)'
}

# A default run: no --netns, no --dev. Started before the lab exists, so the
# namespaces and their devices are named as they come, not at start.
@test "xpsflap default run: the flapping flow is found in its own netns, by the device's name there" {
	start_bg "$TMP/out" "$BIN/xpsflap" --json --table -i 1 -c 14
	"$XF" up --queues 2 --xps on
	"$XF" traffic 4 >/dev/null
	wait_bg
	head -1 "$TMP/out.err"
	grep -q '^xpsflap: kernel .*, devices all, netns all$' "$TMP/out.err"
	[ "$(jq -r 'select(.type == "start") | .netns' "$TMP/out")" = all ]
	run flow "$TMP/out" xqm
	echo "$output"
	assert_success
	[ "$(echo "$output" | jq -r .netns)" = $MID ]
	[ "$(echo "$output" | jq .netns_ino)" = "$(ino $MID)" ]
	[ "$(echo "$output" | jq .switches)" -gt 0 ]
	[ "$(echo "$output" | jq '.queues | length')" -ge 2 ]
	# the ACKs leave by the receiver's device, in its own netns, by its own name
	run flow "$TMP/out" xq0
	echo "$output"
	[ "$(echo "$output" | jq -r .netns)" = $RCV ]
	[ "$(echo "$output" | jq .netns_ino)" = "$(ino $RCV)" ]
	# no device was left unnamed, nor named the old way (ifN@INODE)
	[ -z "$(jq -r 'select(.type == "flow") | .dev' "$TMP/out" | grep -E '^if[0-9]')" ]
	# the table's NETNS column
	grep -qE '^xqm +'"$(col10 "$MID")"' +[0-9,]+ ' "$TMP/out.err"
	[ "$(jq -s 'map(select(.type == "interval")) | last | .netns_named' "$TMP/out")" -ge 3 ]
	[ "$(jq -s 'map(select(.type == "interval")) | last | .out_of_scope_skbs' "$TMP/out")" = 0 ]
}

# Issue #18: a device's name is kept current. Renamed while xpsflap runs
# (down, renamed, up: RTM_NEWLINK in its netns; the bridge port and the XPS
# maps stay), the device of the flapping flow is named anew from the next
# report on, and never by its old name again.
@test "xpsflap default run: a device renamed mid-run is named by its new name from the next report on" {
	local off
	"$XF" up --queues 2 --xps on
	start_bg "$TMP/out" "$BIN/xpsflap" --json --table -i 1
	"$XF" traffic 3 >/dev/null
	run flow "$TMP/out" xqm
	echo "before: $output"
	[ "$(echo "$output" | jq -r .netns)" = $MID ]
	[ "$(echo "$output" | jq .switches)" -gt 0 ]
	ip -n $MID link set xqm down
	ip -n $MID link set xqm name xqr
	ip -n $MID link set xqr up
	off=$(stat -c %s "$TMP/out")
	"$XF" traffic 3 >/dev/null
	sleep 1.5
	stop_bg TERM
	# what was written after the rename, past the end of the report under way then
	tail -c +$((off + 1)) "$TMP/out" | awk 'on; /"type":"interval"/ { on = 1 }' >"$TMP/after"
	[ "$(grep -c '"type":"interval"' "$TMP/after")" -ge 3 ]
	run flow "$TMP/after" xqr
	echo "after: $output"
	assert_success
	[ "$(echo "$output" | jq -r .netns)" = $MID ]
	[ "$(echo "$output" | jq .netns_ino)" = "$(ino $MID)" ]
	[ "$(echo "$output" | jq .switches)" -gt 0 ]
	# flapping in some report under its new name (the last, once the
	# traffic ended, counts no switch in its interval)
	jq -e -s 'any(.[]; .type == "flow" and .dev == "xqr" and .flapping)' "$TMP/after" >/dev/null
	# never the old name again, nor none
	[ -z "$(lab_flows "$TMP/after" | jq -c 'select(.dev == "xqm")')" ]
	[ -z "$(lab_flows "$TMP/after" | jq -r .dev | grep -E '^if[0-9]')" ]
	# the table says it too
	grep -qE '^xqr +'"$(col10 "$MID")"' +[0-9,]+ ' "$TMP/out.err"
}

# lab_flows OUT: the flow records of the lab's three namespaces, one a line
lab_flows() {
	jq -c --argjson m "$(ino $MID || echo 0)" --argjson r "$(ino $RCV || echo 0)" --argjson s "$(ino $SND || echo 0)" \
		'select(.type == "flow" and (.netns_ino == $m or .netns_ino == $r or .netns_ino == $s))' "$1"
}

# The negative controls of xpsflap.bats, from a default run: host-wide,
# nothing in the lab's namespaces is reported flapping.
@test "xpsflap default run: negative control, one TX queue: no flow of the lab's namespaces tracked, none flapping" {
	"$XF" up --queues 1
	start_bg "$TMP/out" "$BIN/xpsflap" --json -i 7 -c 1
	"$XF" traffic 4 >/dev/null
	wait_bg
	cat "$TMP/out.err"
	jq -c 'select(.type == "interval")' "$TMP/out"
	# the bulk flow's packets were seen, and left at once: a single queue cannot flap
	[ "$(jq 'select(.type == "interval") | .one_queue_picks' "$TMP/out")" -gt 10000 ]
	# (by the lab's namespaces: the files beside this one may run the same
	# lab, its devices by the same names, at the same time)
	run lab_flows "$TMP/out"
	assert_success
	[ -z "$output" ]
}

@test "xpsflap default run: negative control, two queues without XPS maps: the lab's flow is found, not flapping" {
	"$XF" up --queues 2 --xps off
	start_bg "$TMP/out" "$BIN/xpsflap" --json -i 7 -c 1
	"$XF" traffic 4 >/dev/null
	wait_bg
	run flow "$TMP/out" xqm
	assert_success
	echo "$output"
	[ "$(echo "$output" | jq -r .netns)" = $MID ]
	[ "$(echo "$output" | jq .packets)" -gt 10000 ]
	# as in xpsflap.bats: one rehash on an RTO is a move, not flapping
	[ "$(echo "$output" | jq '.switches')" -le 2 ]
	[ "$(echo "$output" | jq '.flapping')" = false ]
	run lab_flows "$TMP/out"
	assert_success
	[ "$(echo "$output" | grep -c .)" -ge 1 ]
	[ -z "$(echo "$output" | jq -c 'select(.flapping)')" ]
}

@test "xpsflap default run: the per-device metrics carry the netns name" {
	"$XF" up --queues 2 --xps on
	start_bg "$TMP/out" "$BIN/xpsflap" -i 1 --prom-file "$TMP/xpsflap.prom"
	"$XF" traffic 3 >/dev/null
	sleep 1.5
	stop_bg TERM
	run promtool check metrics <"$TMP/xpsflap.prom"
	assert_success
	grep -E '^xpsflap_queue_switches_total\{device="xqm",netns="'"${LAB_PREFIX}"'xf-mid"\} [1-9]' "$TMP/xpsflap.prom"
	grep -E '^xpsflap_packets_total\{device="xq0",netns="'"${LAB_PREFIX}"'xf-rcv",queue="[01]"\} [1-9]' "$TMP/xpsflap.prom"
	# bounded: namespaces and devices label the metrics, flows never do
	! grep -E 'saddr|sport|198\.18\.' "$TMP/xpsflap.prom"
}

@test "xpsflap --netns A --netns B: only those namespaces' flows; the one outside is not tracked" {
	"$XF" up --queues 2 --xps on
	start_bg "$TMP/out" "$BIN/xpsflap" --netns $SND --netns $RCV --json -i 7 -c 1
	"$XF" traffic 4 >/dev/null
	wait_bg
	cat "$TMP/out.err"
	[ "$(jq -r 'select(.type == "start") | .netns' "$TMP/out")" = "$SND,$RCV" ]
	# the receiver's ACKs are in scope
	run flow "$TMP/out" xq0
	echo "$output"
	[ "$(echo "$output" | jq -r .netns)" = $RCV ]
	[ "$(echo "$output" | jq .packets)" -gt 1000 ]
	# the flapping flow's netns is not: none of its records, its skbs counted as left
	[ -z "$(jq -c "select(.type == \"flow\" and .netns_ino == $(ino $MID))" "$TMP/out")" ]
	[ -z "$(jq -c 'select(.type == "flow" and .dev == "xqm")' "$TMP/out")" ]
	[ "$(jq 'select(.type == "interval") | .out_of_scope_skbs' "$TMP/out")" -gt 10000 ]
	# the flows counted flapping are in scope: the receiver's ACKs may
	# move queue for real on a loaded host (a spurious retransmission
	# makes the receiver rethink its txhash: a CI pool saw 2 switches)
	[ "$(jq -s '(map(select(.type == "interval"))[0].flows_flapping) ==
		(map(select(.type == "flow" and .flapping and .netns != "'"$MID"'")) | length)' "$TMP/out")" = true ]
}

@test "xpsflap --netns given once: that netns only (it runs there), named by its /run/netns name" {
	"$XF" up --queues 2 --xps on
	start_bg "$TMP/out" "$BIN/xpsflap" --netns $RCV --json -i 7 -c 1
	"$XF" traffic 4 >/dev/null
	wait_bg
	run flow "$TMP/out" xq0
	[ "$(echo "$output" | jq -r .netns)" = $RCV ]
	[ -z "$(jq -c 'select(.type == "flow" and .dev == "xqm")' "$TMP/out")" ]
	[ "$(jq 'select(.type == "interval") | .out_of_scope_skbs' "$TMP/out")" -gt 10000 ]
}

@test "xpsflap: two --netns with --dev or --pin are refused, exit 2, nothing changed" {
	"$XF" up --queues 2 --xps on
	run --separate-stderr "$BIN/xpsflap" --netns $MID --netns $RCV --dev xqm -c 1
	assert_failure 2
	output=$stderr assert_usage_error xpsflap
	[[ $stderr == *"--dev needs exactly one --netns"* ]]
	run --separate-stderr "$BIN/xpsflap" --netns $MID --netns $RCV --dev xqm --pin -c 1
	assert_failure 2
	[[ $stderr == *"needs exactly one --netns"* ]]
	run --separate-stderr "$BIN/xpsflap" --netns $MID --netns $RCV --pin -c 1
	assert_failure 2
	[[ $stderr == *"--pin needs exactly one --netns"* ]]
	assert_equal "$(lab_xps_get xf-mid xqm 0)" 1
	assert_equal "$(lab_xps_get xf-mid xqm 1)" 2
	[ -z "$(ls "$RUN_DIR" 2>/dev/null | grep xpsflap)" ]
}

@test "xpsflap: a bad --netns is one line naming it and why, exit 2" {
	local a
	"$XF" up --queues 2 --xps on
	for a in "0:not a PID" "99999999:not a PID" "..:not a netns name" ":empty"; do
		run --separate-stderr "$BIN/xpsflap" --netns "${a%%:*}" -c 1
		assert_failure 2
		output=$stderr assert_usage_error xpsflap
		[[ $stderr == *"invalid --netns '${a%%:*}': ${a#*:}"* ]] || fail "$a: $stderr"
	done
	run --separate-stderr "$BIN/xpsflap" --netns $MID --netns $MID -c 1
	assert_failure 2
	[[ $stderr == *"invalid --netns '$MID': given twice"* ]]
	# the same netns by two names
	run --separate-stderr "$BIN/xpsflap" --netns $MID --netns /run/netns/$MID -c 1
	assert_failure 2
	output=$stderr assert_usage_error xpsflap
	[[ $stderr == *"--netns /run/netns/$MID: the same netns as --netns $MID"* ]]
	# one of two that is not a netns, or not there
	run --separate-stderr "$BIN/xpsflap" --netns $MID --netns /etc/passwd -c 1
	assert_failure 2
	[[ $stderr == *"/etc/passwd is not a network namespace"* ]]
	run --separate-stderr "$BIN/xpsflap" --netns $MID --netns nm-no-such-ns -c 1
	assert_failure 2
	[[ $stderr == *"--netns nm-no-such-ns: cannot open netns /run/netns/nm-no-such-ns"* ]]
	# nine
	run --separate-stderr "$BIN/xpsflap" $(for i in $(seq 9); do echo --netns $i; done) -c 1
	assert_failure 2
	[[ $stderr == *"invalid --netns '9': more than 8"* ]]
}

@test "xpsflap --netns PID: the namespace of that process" {
	local sleeper i
	"$XF" up --queues 2 --xps on
	# ip netns exec execs the command: its pid is the sleep, in the lab's netns
	ip netns exec $RCV sleep 60 &
	sleeper=$!
	for i in $(seq 50); do
		[ "$(stat -L -c %i /proc/$sleeper/ns/net)" = "$(ino $RCV)" ] && break
		sleep 0.1
	done
	start_bg "$TMP/out" "$BIN/xpsflap" --netns $sleeper --json -i 7 -c 1
	"$XF" traffic 4 >/dev/null
	wait_bg
	kill $sleeper
	wait $sleeper || true
	run flow "$TMP/out" xq0
	echo "$output"
	[ "$(echo "$output" | jq .netns_ino)" = "$(ino $RCV)" ]
	[ "$(echo "$output" | jq -r .netns)" = $RCV ]
	[ "$(echo "$output" | jq .packets)" -gt 1000 ]
}

# Without CAP_SYS_ADMIN (setns) the devices of other namespaces are ifN;
# the /run/netns names are still read (no ptrace needed); the run goes on
# and its first line says what it lost.
@test "xpsflap default run as nobody without the names' capabilities: runs on, names lost said" {
	local caps=bpf,perfmon admin=false lost
	"$XF" up --queues 2 --xps on
	# a kernel whose vmlinux lacks the pick's kfunc needs CAP_SYS_ADMIN to
	# load (xpsflap_cli.bats): there only the ptrace part can be lost
	if ! bpftool btf dump file /sys/kernel/btf/vmlinux format raw | grep -q "FUNC 'bpf_rdonly_cast'"; then
		caps=bpf,perfmon,sys_admin admin=true
	fi
	start_bg "$TMP/out" as_nobody $caps "$BIN/xpsflap" --json --table -i 7 -c 1 -v
	"$XF" traffic 4 >/dev/null
	wait_bg
	cat "$TMP/out.err"
	lost="names of other users' namespaces (no CAP_SYS_PTRACE: their inodes)"
	$admin || lost+=", device names in other namespaces (no CAP_SYS_ADMIN: ifN)"
	grep -qF ", netns all; lost: $lost" "$TMP/out.err"
	[ "$(jq -r 'select(.type == "start") | .names_lost' "$TMP/out")" = "$lost" ]
	run jq -sc --argjson i "$(ino $MID)" 'map(select(.type == "flow" and .netns_ino == $i and .dport == 5201)) | max_by(.packets)' "$TMP/out"
	echo "$output"
	[ "$(echo "$output" | jq .packets)" -gt 1000 ]
	# /run/netns names need no privilege
	[ "$(echo "$output" | jq -r .netns)" = $MID ]
	if $admin; then
		[ "$(echo "$output" | jq -r .dev)" = xqm ]
	else
		grep -q "$(caps_kept none)" "$TMP/out.err"
		[[ $(echo "$output" | jq -r .dev) =~ ^if[0-9]+$ ]]
	fi
}

# ---- device slots (per-queue totals are kept for 32 devices at once) ----

XS=${LAB_PREFIX}xs-		# the namespaces of the slot tests start with it

# xs_dev K NS: in netns NS, a two-queue veth pair cK/dK, up, cK with
# 198.19.64.0/18's /31 K and a static neighbour, and 5 datagrams out of cK
xs_dev() {
	local a="198.19.$((64 + $1 / 128)).$(($1 % 128 * 2))" p="198.19.$((64 + $1 / 128)).$(($1 % 128 * 2 + 1))"
	ip -n "$2" link add "c$1" numtxqueues 2 numrxqueues 2 type veth peer name "d$1" \
		numtxqueues 2 numrxqueues 2 || return 1
	printf 'addr add %s/31 dev c%d\nlink set c%d up\nlink set d%d up\nneigh add %s lladdr 02:00:00:00:00:01 dev c%d nud permanent\n' \
		"$a" "$1" "$1" "$1" "$p" "$1" | ip -n "$2" -batch - || return 1
	ip netns exec "$2" bash -c "for i in 1 2 3 4 5; do echo x >/dev/udp/$p/9; done"
}

# xs_series DEV NS: the textfile has a per-queue packet count of DEV in NS
xs_series() {
	grep -qsE "^xpsflap_packets_total\{device=\"$1\",netns=\"$2\",queue=\"[0-9]+\"\} [1-9]" "$TMP/xf.prom"
}

# xs_wait WHAT CMD...: until CMD succeeds, 10 s at most
xs_wait() {
	local what=$1 i
	shift
	for i in $(seq 100); do
		"$@" && return 0
		sleep 0.1
	done
	echo "not in 10 s: $what" >&2
	return 1
}

# xs_none ERE: no line of the textfile matches ERE
xs_none() { [ -e "$TMP/xf.prom" ] && ! grep -qE "$1" "$TMP/xf.prom"; }

# xs_rounds MODE: 4 rounds of 10 devices, each counted in the textfile and
# then gone: by their netns (MODE netns) or by ip link del in one netns
# that stays (MODE link). 40 devices in all, 10 at once; then one more
# device, which must still get its per-queue totals.
xs_rounds() {
	local r k ns ks
	for r in 0 1 2 3; do
		for k in $(seq $((r * 10)) $((r * 10 + 9))); do
			ns=${XS}keep
			[ "$1" = netns ] && ns=$XS$k && { ip netns add "$ns" || return 1; }
			xs_dev "$k" "$ns" || return 1
		done
		for k in $(seq $((r * 10)) $((r * 10 + 9))); do
			ns=${XS}keep
			[ "$1" = netns ] && ns=$XS$k
			xs_wait "c$k of $ns in the textfile" xs_series "c$k" "$ns" || return 1
			echo "c$k $ns" >>"$TMP/seen"
		done
		for k in $(seq $((r * 10)) $((r * 10 + 9))); do
			if [ "$1" = netns ]; then ip netns del "$XS$k"; else ip -n ${XS}keep link del "c$k"; fi
		done
		ks=$(seq -s '|' $((r * 10)) $((r * 10 + 9)))
		if [ "$1" = netns ]; then
			xs_wait "the round's namespaces out of the textfile" xs_none "netns=\"$XS($ks)\"" || return 1
		else
			xs_wait "the round's devices out of the textfile" xs_none "device=\"[cd]($ks)\"" || return 1
		fi
		# the JSON from here on was written after the textfile left them
		stat -c %s "$TMP/out" >"$TMP/off"
	done
	ip netns add ${XS}last || return 1
	xs_dev 100 ${XS}last || return 1
	xs_wait "c100 of ${XS}last in the textfile" xs_series c100 ${XS}last
}

xs_down() {
	local n
	for n in $(ip netns list | awk -v p="$XS" 'index($1, p) == 1 {print $1}'); do
		ip netns del "$n"
	done
}

xs_check() {
	cat "$TMP/out.err"
	# more devices than slots had totals, one after another (the textfile
	# is removed at exit: last.prom is the one written before)
	[ "$(sort -u "$TMP/seen" | wc -l)" -eq 40 ]
	grep -E '^xpsflap_packets_total\{device="c100"' "$TMP/last.prom"
	# never more than 32 at once: no flow found the slots full
	grep -qx 'xpsflap_dev_slot_misses_total 0' "$TMP/last.prom"
	[ "$(jq -s 'map(select(.type == "interval")) | last | .dev_slot_misses' "$TMP/out")" = 0 ]
	[ -z "$(grep 'devices with flows at once' "$TMP/out.err")" ]
	run promtool check metrics <"$TMP/last.prom"
	assert_success
}

# --all: 50 flows a round (5 datagrams of 10 devices), more than the default top 20
# bats test_tags=serial
@test "xpsflap: namespaces that go give their device slots back; 40 devices over time, the 41st counted" {
	start_bg "$TMP/out" "$BIN/xpsflap" --json -i 0.5 --all --prom-file "$TMP/xf.prom"
	run xs_rounds netns
	echo "$output"
	cp "$TMP/xf.prom" "$TMP/last.prom"
	xs_down
	stop_bg TERM
	[ "$status" = 0 ]
	xs_check
	# a gone netns's flows went with it: no report after the last round names one
	[ -z "$(tail -c +$(($(cat "$TMP/off") + 1)) "$TMP/out" | jq -r 'select(.type == "flow") | .netns' |
		grep -E "^$XS[0-9]+\$")" ]
	# not vacuous: the rounds' flows were reported while they lived
	jq -r 'select(.type == "flow") | .netns' "$TMP/out" | grep -qx "${XS}39"
}

# Deletions come by the netns's rtnetlink socket: the names' privileges
# (CAP_SYS_ADMIN to enter another netns).
# bats test_tags=root,serial
@test "xpsflap: deleted devices (RTM_DELLINK) give their slots back; 40 over time, the 41st counted" {
	ip netns add ${XS}keep
	start_bg "$TMP/out" "$BIN/xpsflap" --json -i 0.5 --prom-file "$TMP/xf.prom"
	run xs_rounds link
	echo "$output"
	cp "$TMP/xf.prom" "$TMP/last.prom"
	xs_down
	stop_bg TERM
	[ "$status" = 0 ]
	xs_check
}
