# shellcheck shell=bash
# Fault: a lockless qdisc left stuck, in the vmtest guest (Debian's 6.1).
#
# Sourced, it defines
#   QDISC_QEMU_ARGS  the guest's NIC: virtio-net on a slirp backend with
#                    restrict=on (no route to the host or anywhere else),
#                    its TX made slower than the guest's senders by qemu's
#                    TX timer (tx=timer: 8 packets every 20 ms, 400 pkt/s),
#                    so that its 256-slot ring fills, the TX queue stops
#                    (DRV_XOFF) and TX completion wakes it (virtio_net's TX
#                    NAPI poll: netif_tx_wake_queue).
#   faults_qdisc OUTDIR
#                    runs in the guest (root, cwd the repo, $NETMEDIC_BUILD
#                    with the CLIs and faults/modules/nm_qdisc_inject.ko):
#                    UDP bursts through the NIC's pfifo_fast root, first
#                    with the injection off under `qdiscstuck --json` (false
#                    positives: stuck records), then on under
#                    `qdiscstuck --json --fix=kick`, one lost wake per
#                    burst (the module's budget); each logged injection is
#                    matched to qdiscstuck's records (stuck within threshold
#                    plus one interval), to its kick and to the qdisc's next
#                    run. Writes OUTDIR/qdisc.json (the figures) and
#                    OUTDIR/qdisc.log (the details). FAULTS_SHORT=1: fewer
#                    rounds (CI).
# Addresses: 198.18.3.0/24 only, the peer a static neighbour that nothing
# answers; every burst is 1000 datagrams of one byte.

QDISC_MAC=52:54:00:6e:6d:51
QDISC_QEMU_ARGS="-netdev user,id=nmqd,restrict=on,net=198.18.3.0/24,host=198.18.3.2,dns=198.18.3.3,dhcpstart=198.18.3.15 -device virtio-net-pci,netdev=nmqd,mac=$QDISC_MAC,tx=timer,x-txtimer=20000000,x-txburst=8"
QDISC_SRC=198.18.3.1
QDISC_DST=198.18.3.9
QDISC_DST_MAC=02:6e:6d:00:00:09
QDISC_THRESHOLD_MS=200
QDISC_INTERVAL=1
QDISC_BURST=1000

qf_log() { echo "qdisc: $*" | tee -a "$QF_LOG"; }

# The virtio-net NIC of QDISC_QEMU_ARGS, by its MAC.
qf_dev() {
	local d

	for d in /sys/class/net/*; do
		[ "$(cat "$d/address" 2>/dev/null)" = "$QDISC_MAC" ] && { basename "$d"; return 0; }
	done
	return 1
}

qf_setup() {
	modprobe virtio_net 2>>"$QF_LOG" || { qf_log "modprobe virtio_net failed"; return 1; }
	for _ in $(seq 50); do QF_DEV=$(qf_dev) && break; sleep 0.1; done
	[ -n "${QF_DEV:-}" ] || { qf_log "no NIC with MAC $QDISC_MAC (QDISC_QEMU_ARGS not passed?)"; return 1; }
	# no IPv6: its neighbour and MLD packets would cross the qdisc too
	sysctl -qw "net.ipv6.conf.$QF_DEV.disable_ipv6=1" 2>/dev/null
	ip addr add "$QDISC_SRC/24" dev "$QF_DEV" && ip link set "$QF_DEV" up &&
		ip neigh replace "$QDISC_DST" dev "$QF_DEV" lladdr "$QDISC_DST_MAC" nud permanent ||
		{ qf_log "cannot set up $QF_DEV"; return 1; }
	# by name: Debian's kernels default to fq_codel
	tc qdisc replace dev "$QF_DEV" root pfifo_fast || { qf_log "no pfifo_fast on $QF_DEV"; return 1; }
	insmod "$NETMEDIC_BUILD/faults/modules/nm_qdisc_inject.ko" dev="$QF_DEV" enable=0 budget=0 ||
		{ qf_log "insmod nm_qdisc_inject failed"; return 1; }
	QF_P=/sys/module/nm_qdisc_inject/parameters
	qf_log "$QF_DEV: $(ethtool -i "$QF_DEV" | sed -n 's/^driver: //p'), $(ls -d /sys/class/net/"$QF_DEV"/queues/tx-* | wc -l) TX queue(s), TX ring $(ethtool -g "$QF_DEV" | awk '/^TX:/ { v = $2 } END { print v }'), qdisc $(tc qdisc show dev "$QF_DEV" | head -1)"
}

qf_teardown() {
	[ -d /sys/module/nm_qdisc_inject ] && echo 0 >"$QF_P/enable" && rmmod nm_qdisc_inject
	[ -n "${QF_DEV:-}" ] && ip link set "$QF_DEV" down && ip addr flush dev "$QF_DEV"
}

# UDP datagrams as fast as bash writes them: a socket per 250 (an skb in
# the ring still counts against its socket's send buffer); bounded by timeout.
qf_burst() {
	local n=$1 k pids=()

	for ((k = 0; k < n; k += 250)); do
		timeout 10 bash -c "exec 3>/dev/udp/$QDISC_DST/9; for ((i = 0; i < 250 && i < $n - $k; i++)); do printf . >&3; done" 2>/dev/null &
		pids+=($!)
	done
	wait "${pids[@]}"
}

qf_qlen() { tc -j -s qdisc show dev "$QF_DEV" | jq '.[0].qlen // 0'; }
qf_injected() { awk 'NR == 1 { for (i = 1; i < NF; i++) if ($i == "injected") print $(i + 1) }' /proc/nm_qdisc_inject; }
qf_now_ns() { awk '{ printf "%d\n", $1 * 1e9 }' /proc/uptime; }

# Waits until the qdisc is empty, at most $1 s; prints the wait in ms.
qf_wait_drained() {
	local t0 i

	t0=$(date +%s%N)
	for ((i = 0; i < $1 * 10; i++)); do
		[ "$(qf_qlen)" = 0 ] && break
		sleep 0.1
	done
	echo $(( ($(date +%s%N) - t0) / 1000000 ))
}

# qdiscstuck in the background, until qf_qs_stop; $1: output file, then options.
qf_qs_start() {
	local f=$1 i

	shift
	timeout 600 "$NETMEDIC_BUILD/qdiscstuck" --dev "$QF_DEV" --json -i "$QDISC_INTERVAL" \
		--threshold "$QDISC_THRESHOLD_MS" "$@" >"$f" 2>"$f.err" &
	QF_QS=$!
	# loading the BPF programs takes seconds under TCG: wait for its first report
	for ((i = 0; i < 300; i++)); do
		grep -q '"type":"interval"' "$f" && return 0
		kill -0 "$QF_QS" 2>/dev/null || break
		sleep 0.1
	done
	qf_log "qdiscstuck did not start: $(tail -3 "$f.err")"
	return 1
}

qf_qs_stop() {
	# one more interval: a stall that began last is reported too
	sleep $((QDISC_INTERVAL + 1))
	kill -INT "$QF_QS" 2>/dev/null
	wait "$QF_QS" 2>/dev/null
}

# The records of one qdiscstuck run as lines: "qdisc MONO STATE QLEN STATE_MS"
# (MONO: the sweep's, from its interval record), "kick MONO REACHED".
qf_records() {
	jq -n -r 'foreach inputs as $r (0;
		if $r.type == "interval" then $r.mono_ns else . end;
		if $r.type == "qdisc" then "qdisc \(.) \($r.state) \($r.qlen) \($r.state_ms)"
		elif $r.type == "kick" then "kick \($r.mono_ns) \($r.reached)"
		else empty end)' "$1"
}

# The traffic with the injection off: every stuck record is a false positive.
qf_phase_off() {
	local r ms

	qf_qs_start "$QF_OUT/qdisc.off.json" || return 1
	for ((r = 1; r <= QF_ROUNDS_OFF; r++)); do
		qf_burst "$QDISC_BURST"
		ms=$(qf_wait_drained 15)
		qf_log "off round $r: burst of $QDISC_BURST, backlog drained in $ms ms"
	done
	qf_qs_stop
}

# One lost wake per burst, under --fix=kick.
qf_phase_on() {
	local r n0 i ms

	echo 1 >"$QF_P/enable"
	qf_qs_start "$QF_OUT/qdisc.on.json" --fix=kick || return 1
	for ((r = 1; r <= QF_ROUNDS; r++)); do
		echo "$r" >"$QF_P/phase"
		n0=$(qf_injected)
		qf_burst "$QDISC_BURST"
		# armed once the senders are done: nothing but a kick enqueues after the lost wake
		echo 1 >"$QF_P/budget"
		for ((i = 0; i < 50; i++)); do
			[ "$(qf_injected)" != "$n0" ] && break
			sleep 0.1
		done
		echo 0 >"$QF_P/budget"
		ms=$(qf_wait_drained $((QDISC_THRESHOLD_MS / 1000 + QDISC_INTERVAL + 10)))
		qf_log "on round $r: injected $(( $(qf_injected) - n0 )), backlog empty $ms ms after the wake was armed"
	done
	qf_qs_stop
	echo 0 >"$QF_P/enable"
}

# Matches injections to stuck reports; prints the figures as JSON.
# qf_match INJECT ONREC FP_OFF ROUNDS ROUNDS_OFF: INJECT the module's
# records (/proc/nm_qdisc_inject less its first line), ONREC the records
# of the run with the injection (qf_records' lines, of one qdisc only).
# Per injection: the first stuck sweep after it, the first kick after
# that, and the qdisc's next run (end_ns); stuck sweeps no injection
# explains are counted too. The details go to $QF_LOG.
qf_match() {
	local win_ns=$(( (QDISC_THRESHOLD_MS + QDISC_INTERVAL * 1000) * 1000000 ))

	awk -v win="$win_ns" -v thr="$QDISC_THRESHOLD_MS" -v iv="$QDISC_INTERVAL" -v fp="$3" \
	    -v rounds="$4" -v off_rounds="$5" -v logf="$QF_LOG" '
	FILENAME == ARGV[1] { n++; st[n] = $2; en[n] = $3; ql[n] = $7; caller[n] = $10; next }
	$1 == "qdisc" && $3 == "stuck" { ns++; sm[ns] = $2; sq[ns] = $4; used[ns] = 0; next }
	$1 == "kick" { nk++; km[nk] = $2; kr[nk] = $3 }
	END {
		for (i = 1; i <= n; i++) {
			d = 0; k = 0
			for (j = 1; j <= ns; j++)
				if (sm[j] >= st[i] && (i == n || sm[j] < st[i + 1])) {
					used[j] = 1
					if (!d) d = j
				}
			lat = d ? (sm[d] - st[i]) / 1e6 : -1
			ok = d && sm[d] - st[i] <= win
			if (ok) det++
			if (d) for (j = 1; j <= nk; j++)
				if (km[j] >= sm[d] && kr[j] == "true" && (i == n || km[j] < st[i + 1])) { k = j; break }
			run = en[i] ? (en[i] - (k ? km[k] : st[i])) / 1e6 : -1
			# kicked: the kick reached the queue and the qdisc ran within 1 s of it
			kok = k && en[i] && en[i] >= km[k] && en[i] - km[k] < 1e9
			if (kok) kick++
			if (ok) { lats = lats (lats ? "," : "") sprintf("%.0f", lat); if (lat > lmax) lmax = lat }
			if (kok && run > rmax) rmax = run
			printf "injection %d: backlog %d, caller %s; stuck reported %s ms after (%s); kick %s; next run %s ms after the kick\n",
				i, ql[i], caller[i], d ? sprintf("%.0f", lat) : "never", ok ? "in time" : "LATE OR MISSED",
				k ? "reached" : "none", k && en[i] ? sprintf("%.0f", run) : "never" >> logf
		}
		for (j = 1; j <= ns; j++) if (!used[j]) unm++
		printf "{\"injected\":%d,\"detected\":%d,\"kicked\":%d,\"false_positives_off\":%d,", n, det, kick, fp
		printf "\"stuck_unmatched_on\":%d,\"rounds_on\":%d,\"rounds_off\":%d,", unm, rounds, off_rounds
		printf "\"threshold_ms\":%d,\"interval_s\":%d,\"detect_ms_max\":%.0f,\"detect_ms\":[%s],", thr, iv, lmax, lats
		printf "\"kick_to_run_ms_max\":%.0f}\n", rmax
	}' "$1" "$2"
}

# Matches the module's records to qdiscstuck's; writes qdisc.json.
qf_judge() {
	local fp_off

	qf_records "$QF_OUT/qdisc.off.json" >"$QF_OUT/qdisc.off.rec"
	qf_records "$QF_OUT/qdisc.on.json" >"$QF_OUT/qdisc.on.rec"
	tail -n +2 /proc/nm_qdisc_inject >"$QF_OUT/qdisc.inject"
	head -1 /proc/nm_qdisc_inject | tee -a "$QF_LOG"
	fp_off=$(awk '$1 == "qdisc" && $3 == "stuck"' "$QF_OUT/qdisc.off.rec" | wc -l)
	qf_match "$QF_OUT/qdisc.inject" "$QF_OUT/qdisc.on.rec" "$fp_off" "$QF_ROUNDS" "$QF_ROUNDS_OFF" \
		>"$QF_OUT/qdisc.json"
	qf_log "states off: $(awk '$1 == "qdisc" { c[$3]++ } END { for (s in c) printf "%s %d ", s, c[s] }' "$QF_OUT/qdisc.off.rec")"
	qf_log "states on: $(awk '$1 == "qdisc" { c[$3]++ } END { for (s in c) printf "%s %d ", s, c[s] }' "$QF_OUT/qdisc.on.rec")"
	qf_log "figures: $(cat "$QF_OUT/qdisc.json")"
}

faults_qdisc() {
	QF_OUT=$1
	QF_LOG=$QF_OUT/qdisc.log
	QF_ROUNDS=15 QF_ROUNDS_OFF=6
	[ "${FAULTS_SHORT:-}" = 1 ] && QF_ROUNDS=6 QF_ROUNDS_OFF=3
	mkdir -p "$QF_OUT" && : >"$QF_LOG"
	local rc=1

	qf_log "start: $QF_ROUNDS rounds with the injection, $QF_ROUNDS_OFF without; threshold $QDISC_THRESHOLD_MS ms, interval $QDISC_INTERVAL s"
	if qf_setup && qf_phase_off && qf_phase_on; then
		qf_judge && rc=0
	fi
	tc -s qdisc show dev "${QF_DEV:-lo}" >>"$QF_LOG" 2>&1
	cat /proc/nm_qdisc_inject >>"$QF_LOG" 2>/dev/null
	qf_teardown
	return $rc
}
