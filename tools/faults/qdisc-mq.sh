# shellcheck shell=bash
# Fault: one child of mq left stuck, on a multi-queue virtio-net NIC in the
# vmtest guest (Debian's 6.1). Sourced after tools/faults/qdisc.sh, whose
# helpers it uses.
#
# On the host (tools/faults/run.sh):
#   qm_netns_up / qm_netns_down
#                    a network namespace of its own (QM_NETNS) holding a
#                    multi-queue tap (QDISC_MQ_TAP), up, with no address and
#                    no route: the NIC's backend, where the guest's frames
#                    end. qemu runs in that namespace (tools/vm/run.sh's
#                    VM_NETNS), so the host's own network is never touched.
#   QDISC_MQ_QEMU_ARGS
#                    the NIC: virtio-net with QDISC_MQ_QUEUES queue pairs
#                    (mq=on, vectors 2N+2) on that tap (vhost off), its TX
#                    made slow by qemu's TX timer as in qdisc.sh (8 packets
#                    every 20 ms per queue), so that each queue's ring fills,
#                    stops and is woken by its TX completion.
# In the guest:
#   faults_qdisc_mq OUTDIR
#                    net.core.default_qdisc=pfifo_fast (Debian's is
#                    fq_codel), so the NIC comes up with the default mq root
#                    (handle 0:) and a pfifo_fast child per TX queue. Each
#                    CPU's XPS map names one queue (CPU i: tx-i); the
#                    senders are pinned (taskset), so a burst from CPU i
#                    goes through the child of tx-i only. Every round sends
#                    a burst through each queue at once; nm_qdisc_inject
#                    (txq=QDISC_MQ_TXQ) loses one wake of the chosen queue
#                    only. Off, then on under --fix=kick, as in qdisc.sh;
#                    the chosen child must be reported stuck in time, under
#                    its mq parent and queue, and kicked there; its siblings,
#                    under the same load, never. Writes OUTDIR/qdisc-mq.json
#                    and OUTDIR/qdisc-mq.log. FAULTS_SHORT=1: fewer rounds.
# Addresses: 198.18.4.0/24 in the guest only; the peer a static neighbour.

QDISC_MQ_QUEUES=2
QDISC_MQ_TXQ=1
QDISC_MQ_MAC=52:54:00:6e:6d:52
QDISC_MQ_TAP=nmmq0
QDISC_MQ_QEMU_ARGS="-netdev tap,id=nmmq,ifname=$QDISC_MQ_TAP,queues=$QDISC_MQ_QUEUES,vhost=off,script=no,downscript=no -device virtio-net-pci,netdev=nmmq,mq=on,vectors=$((2 * QDISC_MQ_QUEUES + 2)),mac=$QDISC_MQ_MAC,tx=timer,x-txtimer=20000000,x-txburst=8"
QDISC_MQ_SRC=198.18.4.1
QDISC_MQ_DST=198.18.4.9

# ---- host side ----

qm_netns_down() {
	[ -n "${QM_NETNS:-}" ] && ip netns del "$QM_NETNS" 2>/dev/null
	QM_NETNS=
	return 0
}

# The tap is made persistent and up before qemu attaches its queues to it:
# one qemu creates is down, and nothing would bring it up in time.
qm_netns_up() {
	QM_NETNS=nm-faults-mq-$$
	ip netns add "$QM_NETNS" || { QM_NETNS=; return 1; }
	ip netns exec "$QM_NETNS" sysctl -qw net.ipv6.conf.all.disable_ipv6=1 net.ipv6.conf.default.disable_ipv6=1 &&
		ip -n "$QM_NETNS" tuntap add dev "$QDISC_MQ_TAP" mode tap multi_queue &&
		ip -n "$QM_NETNS" link set "$QDISC_MQ_TAP" up || { qm_netns_down; return 1; }
}

# ---- guest side ----

qm_dev() {
	local d

	for d in /sys/class/net/*; do
		[ "$(cat "$d/address" 2>/dev/null)" = "$QDISC_MQ_MAC" ] && { basename "$d"; return 0; }
	done
	return 1
}

# The qdisc rows of the NIC: "PARENT KIND QLEN", as tc prints them.
qm_rows() { tc -j -s qdisc show dev "$QF_DEV" | jq -r '.[] | "\(.parent // "root") \(.kind) \(.qlen // 0)"'; }

# The default qdiscs: mq at the root, a pfifo_fast child per TX queue.
qm_check_qdiscs() {
	local root n

	root=$(qm_rows | awk '$1 == "root" { print $2 }')
	n=$(qm_rows | awk '$1 != "root" && $2 == "pfifo_fast"' | wc -l)
	[ "$root" = mq ] && [ "$n" = "$QM_NTXQ" ] && return 0
	qf_log "$QF_DEV: root '$root' with $n pfifo_fast children, not mq with $QM_NTXQ: $(tc qdisc show dev "$QF_DEV" | tr '\n' ';')"
	return 1
}

qm_setup() {
	local q

	modprobe virtio_net 2>>"$QF_LOG" || { qf_log "modprobe virtio_net failed"; return 1; }
	for _ in $(seq 50); do QF_DEV=$(qm_dev) && break; sleep 0.1; done
	[ -n "${QF_DEV:-}" ] || { qf_log "no NIC with MAC $QDISC_MQ_MAC (QDISC_MQ_QEMU_ARGS not passed?)"; return 1; }
	QM_NTXQ=$(ls -d /sys/class/net/"$QF_DEV"/queues/tx-* | wc -l)
	[ "$QM_NTXQ" = "$QDISC_MQ_QUEUES" ] && [ "$(nproc)" -ge "$QM_NTXQ" ] ||
		{ qf_log "$QF_DEV has $QM_NTXQ TX queues and the guest $(nproc) CPUs: want $QDISC_MQ_QUEUES, one CPU each"; return 1; }
	# the default qdisc is attached when the device comes up: set it first
	QM_DFLT=$(sysctl -n net.core.default_qdisc)
	sysctl -qw net.core.default_qdisc=pfifo_fast || { qf_log "cannot set net.core.default_qdisc"; return 1; }
	sysctl -qw "net.ipv6.conf.$QF_DEV.disable_ipv6=1" 2>/dev/null
	# one CPU per queue: where a pinned sender's packets (and a kick) go
	for ((q = 0; q < QM_NTXQ; q++)); do
		printf '%x\n' $((1 << q)) >"/sys/class/net/$QF_DEV/queues/tx-$q/xps_cpus" ||
			{ qf_log "cannot write tx-$q's XPS map"; return 1; }
	done
	ip addr add "$QDISC_MQ_SRC/24" dev "$QF_DEV" && ip link set "$QF_DEV" up &&
		ip neigh replace "$QDISC_MQ_DST" dev "$QF_DEV" lladdr "$QDISC_DST_MAC" nud permanent ||
		{ qf_log "cannot set up $QF_DEV"; return 1; }
	qm_check_qdiscs || return 1
	insmod "$NETMEDIC_BUILD/faults/modules/nm_qdisc_inject.ko" dev="$QF_DEV" txq="$QDISC_MQ_TXQ" enable=0 budget=0 ||
		{ qf_log "insmod nm_qdisc_inject failed"; return 1; }
	QF_P=/sys/module/nm_qdisc_inject/parameters
	qf_log "$QF_DEV: $(ethtool -i "$QF_DEV" | sed -n 's/^driver: //p'), $QM_NTXQ TX queues (XPS: $(for ((q = 0; q < QM_NTXQ; q++)); do printf 'tx-%d cpus %s ' $q "$(cat "/sys/class/net/$QF_DEV/queues/tx-$q/xps_cpus")"; done)), qdiscs: $(tc qdisc show dev "$QF_DEV" | cut -d' ' -f2-5 | tr '\n' ';')"
}

qm_teardown() {
	qf_teardown
	[ -n "${QM_DFLT:-}" ] && sysctl -qw "net.core.default_qdisc=$QM_DFLT"
}

# qf_burst through one queue: the senders pinned to the CPU whose XPS map
# names it; a UDP socket keeps the queue of its first packet.
qm_burst_q() {
	local q=$1 k pids=()

	for ((k = 0; k < QDISC_BURST; k += 250)); do
		taskset -c "$q" timeout 10 bash -c "exec 3>/dev/udp/$QDISC_MQ_DST/9; for ((i = 0; i < 250 && i < $QDISC_BURST - $k; i++)); do printf . >&3; done" 2>/dev/null &
		pids+=($!)
	done
	wait "${pids[@]}"
}

# A burst through every queue at once.
qm_burst() {
	local q pids=()

	for ((q = 0; q < QM_NTXQ; q++)); do
		qm_burst_q "$q" &
		pids+=($!)
	done
	wait "${pids[@]}"
}

# Packets held by the child of queue $1 (tc's parent :N, N = queue + 1, hex).
qm_child_qlen() {
	qm_rows | awk -v m="$(printf '%x' $(($1 + 1)))" '$1 != "root" { split($1, p, ":"); if (p[2] == m) q = $3 } END { print q + 0 }'
}

# All the device holds (the mq root sums its children).
qm_qlen() { qm_rows | awk '$1 == "root" { print $3 }'; }

# Waits until $2 (a function printing a length) prints 0, at most $1 s; prints the wait in ms.
qm_wait_zero() {
	local t0 i

	t0=$(date +%s%N)
	for ((i = 0; i < $1 * 10; i++)); do
		[ "$("${@:2}")" = 0 ] && break
		sleep 0.1
	done
	echo $(( ($(date +%s%N) - t0) / 1000000 ))
}

qm_phase_off() {
	local r ms

	qf_qs_start "$QF_OUT/qdisc-mq.off.json" || return 1
	for ((r = 1; r <= QF_ROUNDS_OFF; r++)); do
		qm_burst
		ms=$(qm_wait_zero 15 qm_qlen)
		qf_log "off round $r: a burst of $QDISC_BURST through each of $QM_NTXQ queues, drained in $ms ms"
	done
	qf_qs_stop
}

# One lost wake of the chosen queue per round, under --fix=kick.
qm_phase_on() {
	local r n0 i ms

	echo 1 >"$QF_P/enable"
	qf_qs_start "$QF_OUT/qdisc-mq.on.json" --fix=kick || return 1
	for ((r = 1; r <= QF_ROUNDS; r++)); do
		echo "$r" >"$QF_P/phase"
		n0=$(qf_injected)
		qm_burst
		# armed once the senders are done: nothing but a kick enqueues after the lost wake
		echo 1 >"$QF_P/budget"
		for ((i = 0; i < 50; i++)); do
			[ "$(qf_injected)" != "$n0" ] && break
			sleep 0.1
		done
		echo 0 >"$QF_P/budget"
		ms=$(qm_wait_zero $((QDISC_THRESHOLD_MS / 1000 + QDISC_INTERVAL + 10)) qm_child_qlen "$QDISC_MQ_TXQ")
		qf_log "on round $r: injected $(( $(qf_injected) - n0 )), tx-$QDISC_MQ_TXQ's child empty $ms ms after the wake was armed; the device holds $(qm_qlen)"
		qm_wait_zero 15 qm_qlen >/dev/null
	done
	qf_qs_stop
	echo 0 >"$QF_P/enable"
}

# qf_records with the queue and parent of each record:
# "qdisc MONO STATE QLEN STATE_MS TXQ PARENT KIND", "kick MONO REACHED TXQ".
qm_records() {
	jq -n -r 'foreach inputs as $r (0;
		if $r.type == "interval" then $r.mono_ns else . end;
		if $r.type == "qdisc" then "qdisc \(.) \($r.state) \($r.qlen) \($r.state_ms) \($r.txq) \($r.parent) \($r.kind)"
		elif $r.type == "kick" then "kick \($r.mono_ns) \($r.reached) \($r.txq)"
		else empty end)' "$1"
}

# The chosen child's records only, matched by qf_match; the rest counted
# against qdiscstuck: stuck siblings, kicks of other queues, stuck records
# on the chosen queue under another name, injections of other queues.
qm_judge() {
	local t=$QDISC_MQ_TXQ parent fp_off fp_sib kick_other misnamed inj_other

	# qdiscstuck's name of the child's parent: the mq root's major, queue + 1
	parent=$(tc -j qdisc show dev "$QF_DEV" | jq -r '.[] | select(.parent == null) | .handle' | cut -d: -f1)
	parent=$parent:$(printf '%x' $((t + 1)))
	qm_records "$QF_OUT/qdisc-mq.off.json" >"$QF_OUT/qdisc-mq.off.rec"
	qm_records "$QF_OUT/qdisc-mq.on.json" >"$QF_OUT/qdisc-mq.on.rec"
	awk -v t="$t" -v p="$parent" '$1 == "kick" || ($6 == t && $7 == p && $8 == "pfifo_fast")' \
		"$QF_OUT/qdisc-mq.on.rec" >"$QF_OUT/qdisc-mq.on.chosen.rec"
	tail -n +2 /proc/nm_qdisc_inject >"$QF_OUT/qdisc-mq.inject.all"
	awk -v t="$t" '$6 == t' "$QF_OUT/qdisc-mq.inject.all" >"$QF_OUT/qdisc-mq.inject"
	head -1 /proc/nm_qdisc_inject | tee -a "$QF_LOG"
	fp_off=$(awk '$1 == "qdisc" && $3 == "stuck"' "$QF_OUT/qdisc-mq.off.rec" | wc -l)
	fp_sib=$(awk -v t="$t" '$1 == "qdisc" && $3 == "stuck" && $6 != t' "$QF_OUT/qdisc-mq.on.rec" | wc -l)
	misnamed=$(awk -v t="$t" -v p="$parent" '$1 == "qdisc" && $3 == "stuck" && $6 == t && ($7 != p || $8 != "pfifo_fast")' \
		"$QF_OUT/qdisc-mq.on.rec" | wc -l)
	kick_other=$(awk -v t="$t" '$1 == "kick" && $4 != t' "$QF_OUT/qdisc-mq.on.rec" | wc -l)
	inj_other=$(awk -v t="$t" '$6 != t' "$QF_OUT/qdisc-mq.inject.all" | wc -l)
	qf_match "$QF_OUT/qdisc-mq.inject" "$QF_OUT/qdisc-mq.on.chosen.rec" "$fp_off" "$QF_ROUNDS" "$QF_ROUNDS_OFF" |
		jq -c --argjson q "$QM_NTXQ" --argjson t "$t" --arg p "$parent" --argjson s "$fp_sib" \
			--argjson m "$misnamed" --argjson k "$kick_other" --argjson i "$inj_other" \
			'{queues: $q, txq: $t, parent: $p} + . + {false_positives_siblings: $s, misnamed: $m,
			  kicks_elsewhere: $k, injected_elsewhere: $i}' >"$QF_OUT/qdisc-mq.json"
	qf_log "states off (queue:state count): $(awk '$1 == "qdisc" { c[$6 ":" $3]++ } END { for (s in c) printf "%s %d ", s, c[s] }' "$QF_OUT/qdisc-mq.off.rec")"
	qf_log "states on (queue:state count): $(awk '$1 == "qdisc" { c[$6 ":" $3]++ } END { for (s in c) printf "%s %d ", s, c[s] }' "$QF_OUT/qdisc-mq.on.rec")"
	qf_log "figures: $(cat "$QF_OUT/qdisc-mq.json")"
}

faults_qdisc_mq() {
	QF_OUT=$1
	QF_LOG=$QF_OUT/qdisc-mq.log
	QF_DEV=
	QF_ROUNDS=15 QF_ROUNDS_OFF=6
	[ "${FAULTS_SHORT:-}" = 1 ] && QF_ROUNDS=4 QF_ROUNDS_OFF=2
	mkdir -p "$QF_OUT" && : >"$QF_LOG"
	local rc=1 t0=$SECONDS

	qf_log "start: mq, $QF_ROUNDS rounds with the injection on tx-$QDISC_MQ_TXQ, $QF_ROUNDS_OFF without; threshold $QDISC_THRESHOLD_MS ms, interval $QDISC_INTERVAL s"
	if qm_setup && qm_phase_off && qm_phase_on; then
		qm_judge && rc=0
	fi
	tc -s qdisc show dev "${QF_DEV:-lo}" >>"$QF_LOG" 2>&1
	cat /proc/nm_qdisc_inject >>"$QF_LOG" 2>/dev/null
	qm_teardown
	qf_log "mq part: $((SECONDS - t0)) s"
	return $rc
}
