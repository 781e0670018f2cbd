#!/usr/bin/env bats
# qdiscstuck's scope (docs/reference/qdiscstuck.md SCOPE) against
# tools/lab/qdiscstuck.sh: a default run sweeps every netns and names each
# qdisc's namespace and device; the controls stay clean host-wide; --netns
# narrows it; a netns deleted mid-run goes quietly, its socket closed; the
# remedies act only in the netns qdiscstuck runs in.
load helpers

QS=$LAB/qdiscstuck.sh
NS=${LAB_PREFIX}qs-a
GONE=${LAB_PREFIX}qs-gone
OTHER=${LAB_PREFIX}qs-c
MOVED=${LAB_PREFIX}qs-d

setup() {
	TMP=$(mktemp -d)
	BG_PID=
}

teardown() {
	stop_bg KILL
	"$BIN/qdiscstuck" --cleanup >/dev/null 2>&1
	ip netns del $GONE 2>/dev/null || true
	ip netns del $OTHER 2>/dev/null || true
	ip netns del $MOVED 2>/dev/null || true
	"$QS" down
	rm -rf "$TMP"
}

# records OUT JQ-FILTER: the qdisc records matching the filter, one per line
records() { jq -c "select(.type == \"qdisc\") | select($2)" "$1"; }
# hold_stopped: the stopped queue stays stopped for good, for a test that
# runs the tool more than once on it: GRO turned off on the peer while the
# queue is stopped (LAB.md). Else the lab's 8 s gro_flush_timeout drains it,
# and on a loaded host the second run came after that (seen: qlen 0, ok).
hold_stopped() { lab_exec qs-b ethtool -K qb gro off >/dev/null; }
# lab_alarms OUT: the lab's qdiscs (its two namespaces) judged stuck or
# driver_stopped; a default run also sees the labs of the files beside this one
lab_alarms() {
	records "$1" ".netns_ino == $(ino $NS) or .netns_ino == $(ino ${LAB_PREFIX}qs-b)" |
		grep -E '"state":"(stuck|driver_stopped)"'
}
# tc's backlog in packets of the qdisc on PARENT ("root" or "1:2") of qa
tc_backlog() {
	lab_exec qs-a tc -s qdisc show dev qa | awk -v p="$1" '
		$1 == "qdisc" { cur = ($4 == "root" && p == "root") || ($4 == "parent" && $5 == p) }
		cur && $1 == "backlog" { sub("p", "", $3); print $3; exit }'
}
# queue_labels PROM: qa's series of the lab's netns, by name and labels, sorted
queue_labels() { grep -o "^qdiscstuck_[a-z_]*{device=\"qa\",netns=\"$NS\",queue=\"[^\"]*\"" "$1" | sort -u; }
# fds PID: the open file descriptors of PID
fds() { ls "/proc/$1/fd" | wc -l; }
# after OUT: what the run wrote past byte $off, from the end of the report
# under way then (a report begun before a change may still show it undone)
after() { tail -c +$((off + 1)) "$1" | awk 'on; /"type":"interval"/ { on = 1 }'; }
# seen OUT JQ-FILTER: such a qdisc record is in OUT within 5 s
seen() {
	local i
	for i in $(seq 50); do
		records "$1" "$2" | grep -q . && return 0
		sleep 0.1
	done
	echo "no record $2 in 5 s" >&2
	return 1
}

# The issue's example: a child pfifo_fast under mq, in another netns than
# qdiscstuck's, holding packets on a stopped queue. No --netns, no --dev.
@test "qdiscstuck default run: a stopped child of mq in another netns is driver_stopped, named" {
	"$QS" up mq
	start_bg "$TMP/out" "$BIN/qdiscstuck" --json --table -i 0.5 -c 6
	"$QS" burst 1000 1
	wait_bg
	head -1 "$TMP/out.err"
	grep -q '^qdiscstuck: kernel .*, threshold 100ms, devices all, netns all$' "$TMP/out.err"
	[ "$(jq -r 'select(.type == "start") | .netns' "$TMP/out")" = all ]
	last=$(records "$TMP/out" '.netns == "'$NS'" and .parent == "1:2"' | tail -1)
	echo "$last"
	[ "$(echo "$last" | jq -r .dev)" = qa ]
	[ "$(echo "$last" | jq .netns_ino)" = "$(ino $NS)" ]
	[ "$(echo "$last" | jq -r .kind)" = pfifo_fast ]
	[ "$(echo "$last" | jq .txq)" = 1 ]
	[ "$(echo "$last" | jq -r .state)" = driver_stopped ]
	[ "$(echo "$last" | jq -r .txq_state_names)" = DRV_XOFF ]
	[ "$(echo "$last" | jq .qlen)" -ge 500 ]
	[ "$(echo "$last" | jq .qlen)" = "$(tc_backlog 1:2)" ]
	# the table's NETNS column
	grep -qE '^qa +'"$(col10 "$NS")"' +[0-9a-f]+: +1:2 +pfifo_fast +1 ' "$TMP/out.err"
	# no device named the old way (ifN@INODE), none left unnamed in the lab's netns
	[ -z "$(records "$TMP/out" '.dev | test("@")' | grep .)" ]
	[ -z "$(records "$TMP/out" '.netns == "'$NS'" and (.dev | test("^if[0-9]"))' | grep .)" ]
	[ -z "$(grep '"state":"stuck"' "$TMP/out")" ]
	iv=$(jq -sc 'map(select(.type == "interval")) | last' "$TMP/out")
	echo "$iv"
	# the host's, the lab's two: swept, nothing over or failed
	[ "$(echo "$iv" | jq .netns_swept)" -ge 3 ]
	[ "$(echo "$iv" | jq '.netns_over + .netns_failed + .qdiscs_over')" = 0 ]
}

# Issue #18: a one-queue device in another netns than qdiscstuck's names
# its queue as it does when qdiscstuck runs in that netns. The backlog is
# frozen before qdiscstuck starts, so its qdisc has no event since (no BPF
# record), and sysfs shows qdiscstuck's netns only: the device's link
# message, read in its netns, says it has one queue.
@test "qdiscstuck default run: a one-queue device of another netns names its queue, as in its own" {
	local backlog last own
	"$QS" up stopped
	"$QS" burst 1000
	hold_stopped
	backlog=$(tc_backlog root)
	echo "backlog $backlog"
	[ "$backlog" -ge 500 ]
	start_bg "$TMP/out" "$BIN/qdiscstuck" --json --table -i 0.5 -c 3 --prom-file "$TMP/all.prom"
	wait_bg
	last=$(records "$TMP/out" '.netns == "'$NS'" and .dev == "qa" and .handle == "3e:"' | tail -1)
	echo "host-wide: $last"
	[ "$(echo "$last" | jq .txq)" = 0 ]
	[ "$(echo "$last" | jq .qlen)" -ge 500 ]
	grep -qE '^qa +'"$(col10 "$NS")"' +3e: +root +pfifo +0 ' "$TMP/out.err"
	grep -qE "^qdiscstuck_backlog_packets\{device=\"qa\",netns=\"$NS\",queue=\"0\"\} [0-9]+$" "$TMP/all.prom"
	[ -z "$(grep "device=\"qa\",netns=\"$NS\",queue=\"all\"" "$TMP/all.prom")" ]
	# run in that netns, qdiscstuck names the same queue, in the row and the metrics
	start_bg "$TMP/own" "$BIN/qdiscstuck" --netns $NS --json --table -i 0.5 -c 3 --prom-file "$TMP/own.prom"
	wait_bg
	own=$(records "$TMP/own" '.dev == "qa" and .handle == "3e:"' | tail -1)
	echo "--netns $NS: $own"
	assert_equal "$(echo "$last" | jq .txq)" "$(echo "$own" | jq .txq)"
	# and judges it as there: an alarm, the same one, on the same queue state
	[[ $(echo "$last" | jq -r .state) =~ ^(stuck|driver_stopped)$ ]]
	assert_equal "$(echo "$last" | jq -r .state)" "$(echo "$own" | jq -r .state)"
	assert_equal "$(echo "$last" | jq .txq_state)" "$(echo "$own" | jq .txq_state)"
	grep -qE '^qa +'"$(col10 "$NS")"' +3e: +root +pfifo +0 ' "$TMP/own.err"
	queue_labels "$TMP/own.prom" | tee "$TMP/own.labels"
	[ -s "$TMP/own.labels" ]
	assert_equal "$(queue_labels "$TMP/all.prom")" "$(cat "$TMP/own.labels")"
}

@test "qdiscstuck default run --prom-file: the queue metrics carry the netns name" {
	"$QS" up mq
	start_bg "$TMP/out" "$BIN/qdiscstuck" -i 0.5 -c 5 --prom-file "$TMP/qs.prom"
	"$QS" burst 1000 1
	wait_bg
	promtool check metrics <"$TMP/qs.prom"
	grep -qx "qdiscstuck_backlog_packets{device=\"qa\",netns=\"$NS\",queue=\"1\"} $(tc_backlog 1:2)" "$TMP/qs.prom"
	grep -qx "qdiscstuck_queue_state{device=\"qa\",netns=\"$NS\",queue=\"1\",state=\"driver_stopped\"} 1" "$TMP/qs.prom"
	grep -qx "qdiscstuck_events_total{device=\"qa\",netns=\"$NS\",state=\"driver_stopped\"} 1" "$TMP/qs.prom"
	# bounded: namespaces, devices and queues label the metrics, never more
	! grep -E '^qdiscstuck_[a-z_]+\{.*(handle|parent|ino)=' "$TMP/qs.prom"
}

# The negative controls, host-wide: every netns's qdiscs judged, none alarms.
# bats test_tags=serial
@test "qdiscstuck default run: the shaped and busy controls stay clean host-wide" {
	"$QS" up tbf
	start_bg "$TMP/out" "$BIN/qdiscstuck" --json -i 0.5 -c 6
	"$QS" burst 30 "" 1000
	wait_bg
	[ "$(records "$TMP/out" '.netns == "'$NS'" and .handle == "2:" and .qlen > 0 and .state == "shaped"' | wc -l)" -ge 3 ]
	[ -z "$(grep -E '"state":"(stuck|driver_stopped)"' "$TMP/out")" ]
	"$QS" down
	"$QS" up busy
	start_bg "$TMP/out" "$BIN/qdiscstuck" --json -i 1 -c 3
	"$QS" traffic 2 >/dev/null
	wait_bg
	[ "$(records "$TMP/out" '.netns == "'$NS'" and .dev == "qa" and .state == "ok" and .dequeue_rate > 1000' | wc -l)" -ge 1 ]
	! grep -qE '"state":"(stuck|driver_stopped|shaped)"' "$TMP/out"
}

@test "qdiscstuck default run: htb at 8 kbit: the leaf holding the backlog is shaped, in its netns, never stuck" {
	local leaf
	"$QS" up htb
	start_bg "$TMP/out" "$BIN/qdiscstuck" --json --table -i 0.5 -c 6
	"$QS" burst 30 "" 1000
	wait_bg
	leaf=$(records "$TMP/out" '.netns == "'$NS'" and .handle == "20:"' | tail -1)
	echo "$leaf"
	[ "$(echo "$leaf" | jq -r .dev)" = qa ]
	[ "$(echo "$leaf" | jq .netns_ino)" = "$(ino $NS)" ]
	[ "$(echo "$leaf" | jq -r .parent)" = 1:10 ]
	[ "$(echo "$leaf" | jq .qlen)" -gt 10 ]
	[ "$(echo "$leaf" | jq -r .state)" = shaped ]
	grep -qE '^qa +'"$(col10 "$NS")"' +20: +1:10 +pfifo ' "$TMP/out.err"
	[ -z "$(lab_alarms "$TMP/out")" ]
}

# Issue #18: a device's name is kept current. Renamed while qdiscstuck runs
# (down, renamed, up: RTM_NEWLINK in its netns; the tbf root stays), its
# qdiscs' rows carry the new name from the next report on, never the old.
@test "qdiscstuck default run: a device renamed mid-run: its rows carry the new name from the next report on" {
	local off
	"$QS" up tbf
	start_bg "$TMP/out" "$BIN/qdiscstuck" --json --table -i 0.5
	"$QS" burst 30 "" 1000
	seen "$TMP/out" '.netns == "'$NS'" and .dev == "qa" and .handle == "2:" and .state == "shaped"'
	ip -n $NS link set qa down
	ip -n $NS link set qa name qr
	ip -n $NS link set qr up
	# the down flushed qa's neighbours and its backlog: qb's entry again, so
	# the second burst waits on no ARP
	ip -n $NS neigh replace 198.18.2.2 dev qr nud permanent \
		lladdr "$(lab_exec qs-b cat /sys/class/net/qb/address)"
	off=$(stat -c %s "$TMP/out")
	"$QS" burst 30 "" 1000
	sleep 2
	stop_bg TERM
	after "$TMP/out" >"$TMP/after"
	[ "$(grep -c '"type":"interval"' "$TMP/after")" -ge 3 ]
	records "$TMP/after" '.netns == "'$NS'" and .handle == "2:"' | tail -1
	[ "$(records "$TMP/after" '.netns == "'$NS'" and .dev == "qr" and .handle == "2:" and .qlen > 0 and .state == "shaped"' | wc -l)" -ge 3 ]
	[ -z "$(records "$TMP/after" '.netns == "'$NS'" and .dev == "qa"')" ]
	[ -z "$(records "$TMP/after" '.netns == "'$NS'" and (.dev | test("^if[0-9]"))')" ]
	grep -qE '^qr +'"$(col10 "$NS")"' +2: +root +tbf ' "$TMP/out.err"
	[ -z "$(lab_alarms "$TMP/out")" ]
}

# A device moved to another netns while qdiscstuck runs (RTM_DELLINK in the
# old one, RTM_NEWLINK in the new, renamed on the way): its rows name the
# netns it is in now and its name there; none is left in the old one. A
# move shuts the device's qdiscs down: its new root is set there anew.
@test "qdiscstuck default run: a device moved to another netns mid-run is reported there, by its name there" {
	local off row
	ip netns add $OTHER
	ip -n $OTHER link add qm0 type veth peer name qm1
	ip -n $OTHER link set qm0 up
	ip -n $OTHER link set qm1 up
	ip netns exec $OTHER tc qdisc replace dev qm0 root handle 7: tbf rate 8kbit burst 1600 limit 10000
	start_bg "$TMP/out" "$BIN/qdiscstuck" --json --all -i 0.3
	seen "$TMP/out" '.netns == "'$OTHER'" and .dev == "qm0" and .handle == "7:"'
	ip netns add $MOVED
	ip -n $OTHER link set qm0 netns $MOVED name qn0
	ip -n $MOVED link set qn0 up
	ip netns exec $MOVED tc qdisc replace dev qn0 root handle 8: tbf rate 8kbit burst 1600 limit 10000
	off=$(stat -c %s "$TMP/out")
	seen "$TMP/out" '.netns == "'$MOVED'" and .dev == "qn0" and .handle == "8:"'
	sleep 1
	stop_bg TERM
	after "$TMP/out" >"$TMP/after"
	[ "$(grep -c '"type":"interval"' "$TMP/after")" -ge 3 ]
	row=$(records "$TMP/after" '.dev == "qn0" and .handle == "8:"' | tail -1)
	echo "$row"
	[ "$(echo "$row" | jq -r .netns)" = $MOVED ]
	[ "$(echo "$row" | jq .netns_ino)" = "$(ino $MOVED)" ]
	[ "$(echo "$row" | jq -r .kind)" = tbf ]
	# the old netns is still swept (its other end is there, by its name),
	# the moved device is not in it, nor by its old name or none in either
	records "$TMP/after" '.netns == "'$OTHER'" and .dev == "qm1"' | grep -q .
	[ -z "$(records "$TMP/after" '.netns == "'$OTHER'" and .dev != "qm1" and .dev != "lo"')" ]
	[ -z "$(records "$TMP/after" '(.netns == "'$OTHER'" or .netns == "'$MOVED'") and (.dev == "qm0" or .handle == "7:" or (.dev | test("^if[0-9]")))')" ]
	# quietly: not a line on stderr
	cat "$TMP/out.err"
	[ ! -s "$TMP/out.err" ]
}

@test "qdiscstuck --netns A --netns B: those namespaces only; a qdisc in a netns outside is not reported" {
	"$QS" up mq
	"$QS" burst 1000 1
	hold_stopped
	ip netns add $OTHER
	start_bg "$TMP/out" "$BIN/qdiscstuck" --netns ${LAB_PREFIX}qs-b --netns $OTHER --json --all -i 0.5 -c 3
	wait_bg
	cat "$TMP/out.err"
	[ "$(jq -r 'select(.type == "start") | .netns' "$TMP/out")" = "${LAB_PREFIX}qs-b,$OTHER" ]
	# neither is the one qdiscstuck runs in: its own qdiscs are not reported either
	[ -z "$(records "$TMP/out" '.netns == "host"')" ]
	# the two in scope are swept: qb's qdisc is there, by its own name
	records "$TMP/out" '.netns == "'"${LAB_PREFIX}"'qs-b" and .dev == "qb"' | grep -q .
	[ "$(jq -s 'map(select(.type == "interval")) | last | .netns_swept' "$TMP/out")" = 2 ]
	# the stopped child's netns is not: none of its qdiscs
	[ -z "$(records "$TMP/out" ".netns_ino == $(ino $NS) or .netns == \"$NS\"")" ]
	[ -z "$(grep '"state":"driver_stopped"' "$TMP/out")" ]
	# the same with the lab's netns in the set: found
	start_bg "$TMP/out" "$BIN/qdiscstuck" --netns $NS --netns ${LAB_PREFIX}qs-b --json -i 0.5 -c 3
	wait_bg
	records "$TMP/out" '.netns == "'$NS'" and .parent == "1:2" and .qlen > 0' | grep -q .
}

# A netns deleted while qdiscstuck runs: its records stop, nothing is said,
# and the sockets it held there (which keep a netns alive) are closed.
# bats test_tags=serial
@test "qdiscstuck default run: a netns deleted mid-run drops its records quietly, its socket closed" {
	local before during after n
	start_bg "$TMP/out" "$BIN/qdiscstuck" --json --all -i 0.3
	sleep 1
	before=$(fds "$BG_PID")
	ip netns add $GONE
	ip -n $GONE link add qg0 type veth peer name qg1
	ip -n $GONE link set qg0 up
	ip -n $GONE link set qg1 up
	ip netns exec $GONE tc qdisc replace dev qg0 root handle 7: tbf rate 8kbit burst 1600 limit 10000
	for n in $(seq 50); do
		records "$TMP/out" '.netns == "'$GONE'" and .dev == "qg0" and .handle == "7:"' | grep -q . && break
		sleep 0.1
	done
	records "$TMP/out" '.netns == "'$GONE'" and .dev == "qg0" and .kind == "tbf"' | grep -q .
	during=$(fds "$BG_PID")
	echo "fds: $before before, $during while $GONE is swept"
	[ "$during" -gt "$before" ]
	ip netns del $GONE
	sleep 1.5
	after=$(fds "$BG_PID")
	n=$(wc -l <"$TMP/out")
	sleep 1
	stop_bg TERM
	echo "fds: $after after"
	assert_equal "$after" "$before"
	# the reports after the deletion have none of its qdiscs
	[ -z "$(tail -n +$((n + 1)) "$TMP/out" | jq -c 'select(.type == "qdisc" and .netns == "'$GONE'")')" ]
	tail -n +$((n + 1)) "$TMP/out" | grep -q '"type":"interval"'
	# quietly: not a line on stderr (the first line is the start record here)
	cat "$TMP/out.err"
	[ ! -s "$TMP/out.err" ]
}

@test "qdiscstuck: remedies with two --netns are refused, exit 2, nothing changed" {
	local before
	"$QS" up mq
	before=$(lab_exec qs-a tc qdisc show dev qa)
	for opt in --fix=kick --fix=lock "--kick qa:1" "--lock qa:1"; do
		run --separate-stderr "$BIN/qdiscstuck" --netns $NS --netns ${LAB_PREFIX}qs-b $opt -c 1
		assert_failure 2
		[[ $stderr == *"${opt%%[= ]*} needs exactly one --netns: it acts in the netns qdiscstuck runs in"* ]] ||
			fail "$opt: $stderr"
	done
	run --separate-stderr "$BIN/qdiscstuck" --netns $NS --netns ${LAB_PREFIX}qs-b --dev qa -c 1
	assert_failure 2
	output=$stderr assert_usage_error qdiscstuck
	[[ $stderr == *"--dev needs exactly one --netns"* ]]
	assert_equal "$(lab_exec qs-a tc qdisc show dev qa)" "$before"
	[ -z "$(ls "$RUN_DIR" 2>/dev/null | grep qdiscstuck)" ]
}

# The issue's example as a user meets it: the queue froze before qdiscstuck
# started and nothing was enqueued since, so no event ever made its qdisc's
# entry. The seed (run once, after the attach) made it: the sampler reads
# the stopped queue from the first sweep on, and the verdict is the
# driver's, never the lockless race's.
@test "qdiscstuck default run: a backlog frozen before the start is driver_stopped, never stuck" {
	local backlog last
	"$QS" up mq
	"$QS" burst 1000 1
	backlog=$(tc_backlog 1:2)
	echo "backlog $backlog"
	[ "$backlog" -ge 500 ]
	start_bg "$TMP/out" "$BIN/qdiscstuck" --json -i 0.5 -c 4
	wait_bg
	head -1 "$TMP/out.err"
	[ "$(jq -r 'select(.type == "start") | .hooks.seed' "$TMP/out")" = raw_tp ]
	last=$(records "$TMP/out" '.netns == "'$NS'" and .parent == "1:2"' | tail -1)
	echo "$last"
	[ "$(echo "$last" | jq -r .state)" = driver_stopped ]
	[ "$(echo "$last" | jq -r .txq_state_names)" = DRV_XOFF ]
	[ "$(echo "$last" | jq .txq)" = 1 ]
	[ -z "$(records "$TMP/out" '.netns == "'$NS'" and .state == "stuck"' | grep .)" ]
	# the run only read: the backlog is as it was
	assert_equal "$(tc_backlog 1:2)" "$backlog"
}

# The same frozen backlog with the seed refused: the start record says
# what is lost, and the verdict is what it says: unknown, never stuck (no
# event, no sample: the queue's state is not known, and a stopped queue
# would look like the race).
@test "qdiscstuck default run, seed refused: the frozen backlog is unknown, never stuck, as the lost hook says" {
	"$QS" up mq
	"$QS" burst 1000 1
	NETMEDIC_REFUSE=qs_seed start_bg "$TMP/out" "$BIN/qdiscstuck" --json -i 0.5 -c 4
	wait_bg
	[ "$(jq -r 'select(.type == "start") | .lost.seed' "$TMP/out")" = "a qdisc with no event since the start has no TX queue state: its frozen backlog is unknown (stopped or stuck) until it dequeues" ]
	records "$TMP/out" '.netns == "'$NS'" and .parent == "1:2"' | tail -1
	records "$TMP/out" '.netns == "'$NS'" and .parent == "1:2" and .state == "unknown" and .txq_state == null' | grep -q .
	[ -z "$(records "$TMP/out" '.netns == "'$NS'" and .state == "stuck"' | grep .)" ]
	# counted as such in the interval record
	[ "$(jq -s 'map(select(.type == "interval") | .unknown) | max' "$TMP/out")" -ge 1 ]
}

# A stuck qdisc cannot be made on this kernel (the race is fixed): the
# frozen backlog of a stopped queue, unknown with the seed refused (above),
# is judged stuck with the test aid NETMEDIC_TEST_UNKNOWN=stuck, and stands
# in for one. --fix=kick would kick it in its own netns; in another one it
# is only reported, and said once.
@test "qdiscstuck --fix=kick default run: a stuck qdisc of another netns is not acted on, said once" {
	local backlog
	"$QS" up mq
	"$QS" burst 1000 1
	hold_stopped
	backlog=$(tc_backlog 1:2)
	NETMEDIC_REFUSE=qs_seed NETMEDIC_TEST_UNKNOWN=stuck start_bg "$TMP/out" "$BIN/qdiscstuck" --fix=kick --json -i 0.5 -c 6
	wait_bg
	cat "$TMP/out.err"
	records "$TMP/out" '.netns == "'$NS'" and .parent == "1:2"' | tail -1
	# stuck, as a kick's trigger wants
	records "$TMP/out" '.netns == "'$NS'" and .parent == "1:2" and .state == "stuck"' | grep -q .
	# once for this qdisc (a file beside this one may hold a stuck one of its
	# own in another netns, which is said too)
	[ "$(grep -c "in netns $NS: stuck, not acted on" "$TMP/out.err")" = 1 ]
	grep -qF "qdiscstuck: fix: qa tx-1 in netns $NS: stuck, not acted on: remedies act only in the netns qdiscstuck runs in (--netns $NS would)" "$TMP/out.err"
	[ -z "$(grep '"type":"kick"' "$TMP/out")" ]
	[ -z "$(grep "kick: qa" "$TMP/out.err")" ]
	# no frame joined the backlog
	assert_equal "$(tc_backlog 1:2)" "$backlog"
	# in its own netns the same run kicks it
	NETMEDIC_REFUSE=qs_seed NETMEDIC_TEST_UNKNOWN=stuck start_bg "$TMP/out" "$BIN/qdiscstuck" --netns $NS --fix=kick --json -i 0.5 -c 4
	wait_bg
	grep -q '"type":"kick".*"txq":1' "$TMP/out"
	! grep -q "not acted on" "$TMP/out.err"
}
