#!/usr/bin/env bash
# Lab: packets that sit in a qdisc, and the controls that must not alarm.
#
#   nm-qs-a [qa 198.18.2.1] ---- veth ---- [qb 198.18.2.2] nm-qs-b
#
# Scenarios (up SCENARIO):
#   stopped  qa: one TX queue, root "pfifo limit 5000" (handle 3e:). qb runs
#            NAPI (GRO on) with napi_defer_hard_irqs 1 and an 8 s
#            gro_flush_timeout, so once its 256-slot ring is full veth stops
#            qa's TX queue (DRV_XOFF) and nothing wakes it. `burst 1000`
#            leaves ~750 packets frozen in the pfifo (LAB.md).
#   mq       the same recipe on a 2-queue qa with an mq root (handle 1:) and
#            pfifo_fast (lockless) children; XPS sends CPU 0 to
#            tx-0 and CPU 1 to tx-1. `burst 1000 1` (from CPU 1) stops tx-1
#            only: the backlog sits in the child on parent 1:2, a child of
#            mq that root-only views miss.
#   tbf      qa root tbf at 8 kbit: `burst 30 "" 1000` is shaped (about one
#            1 kB packet a second).
#   htb      qa root htb, one class at 8 kbit with a pfifo leaf (handle 20:):
#            the backlog is in the leaf, the timer in the root.
#   busy     plain veth with a pfifo_fast root: `traffic SECONDS` is a healthy
#            bulk TCP flow (iperf3), the ok control.
#   busymq   qa with 8 TX queues, an mq root (handle 1:) and pfifo_fast
#            children, XPS cleared: `flows N` spreads N one-datagram flows
#            over the queues by their hash, so that more ok qdiscs than
#            --top carry traffic (#18). The peer is not frozen.
#
# usage: qdiscstuck.sh up SCENARIO | burst N [CPU] [SIZE] | flows N | traffic SECONDS | show | down | env
set -u
. "$(dirname "$0")/lib.sh"

QS_NS_A=qs-a QS_NS_B=qs-b
QS_DEV=qa QS_PEER=qb QS_SRC=198.18.2.1 QS_DST=198.18.2.2

# The LAB.md recipe: peer in NAPI mode whose poll is deferred for 8 s.
freeze_peer() {
	lab_exec $QS_NS_A ethtool -K $QS_DEV tso off >/dev/null
	lab_exec $QS_NS_B ethtool -K $QS_PEER gro on >/dev/null
	lab_exec $QS_NS_B sh -c "echo 1 > /sys/class/net/$QS_PEER/napi_defer_hard_irqs &&
		echo 8000000000 > /sys/class/net/$QS_PEER/gro_flush_timeout" ||
		lab_die "cannot set napi_defer_hard_irqs/gro_flush_timeout on $QS_PEER"
}

up() {
	local sc=${1:-} q=1
	lab_need_root
	case $sc in
	stopped|tbf|htb|busy) ;;
	mq) q=2 ;;
	busymq) q=8 ;;
	*) lab_die "up: unknown scenario '$sc' (stopped, mq, tbf, htb, busy, busymq)" ;;
	esac
	lab_ns $QS_NS_A
	lab_ns $QS_NS_B
	# no IPv6: its neighbour and MLD chatter would add packets the tests count
	lab_exec $QS_NS_A sysctl -qw net.ipv6.conf.default.disable_ipv6=1 net.ipv6.conf.all.disable_ipv6=1
	lab_exec $QS_NS_B sysctl -qw net.ipv6.conf.default.disable_ipv6=1 net.ipv6.conf.all.disable_ipv6=1
	lab_veth $QS_NS_A $QS_DEV $QS_NS_B $QS_PEER $q
	lab_addr $QS_NS_A $QS_DEV $QS_SRC/24
	lab_addr $QS_NS_B $QS_PEER $QS_DST/24
	# static neighbours both ways: the burst must not wait in the ARP queue,
	# and no ARP may cross later (qb's unicast probe ~5 s after the ping,
	# answered by qa, lands on a TX queue that the tests count)
	lab_exec $QS_NS_A ip neigh replace $QS_DST dev $QS_DEV nud permanent \
		lladdr "$(lab_exec $QS_NS_B cat /sys/class/net/$QS_PEER/address)"
	lab_exec $QS_NS_B ip neigh replace $QS_SRC dev $QS_PEER nud permanent \
		lladdr "$(lab_exec $QS_NS_A cat /sys/class/net/$QS_DEV/address)"
	lab_wait_ping $QS_NS_A $QS_DST
	case $sc in
	stopped)
		lab_exec $QS_NS_A tc qdisc replace dev $QS_DEV root handle 3e: pfifo limit 5000
		freeze_peer ;;
	mq)
		lab_exec $QS_NS_A tc qdisc replace dev $QS_DEV root handle 1: mq
		# pfifo_fast children by name: the default qdisc differs by
		# distribution (Debian's kernels default to fq_codel)
		lab_exec $QS_NS_A tc qdisc replace dev $QS_DEV parent 1:1 pfifo_fast
		lab_exec $QS_NS_A tc qdisc replace dev $QS_DEV parent 1:2 pfifo_fast
		lab_xps $QS_NS_A $QS_DEV 0 1
		lab_xps $QS_NS_A $QS_DEV 1 2
		freeze_peer ;;
	tbf)
		lab_exec $QS_NS_A tc qdisc replace dev $QS_DEV root handle 2: \
			tbf rate 8kbit burst 1600 limit 100000 ;;
	htb)
		lab_exec $QS_NS_A tc qdisc replace dev $QS_DEV root handle 1: htb default 10
		lab_exec $QS_NS_A tc class add dev $QS_DEV parent 1: classid 1:10 \
			htb rate 8kbit ceil 8kbit burst 1600 cburst 1600 quantum 1514
		lab_exec $QS_NS_A tc qdisc add dev $QS_DEV parent 1:10 handle 20: pfifo limit 1000 ;;
	busy)
		# a lockless root like most hosts have (veth itself defaults to noqueue)
		lab_exec $QS_NS_A tc qdisc replace dev $QS_DEV root pfifo_fast ;;
	busymq)
		lab_exec $QS_NS_A tc qdisc replace dev $QS_DEV root handle 1: mq
		for ((k = 0; k < q; k++)); do
			lab_exec $QS_NS_A tc qdisc replace dev $QS_DEV parent 1:$((k + 1)) pfifo_fast
			# no XPS: a socket's queue is its random tx hash's, not its CPU's
			lab_xps $QS_NS_A $QS_DEV $k 0
		done ;;
	esac
}

# flows N: N UDP datagrams, each from a socket of its own (its own tx hash,
# so its own pick of a TX queue); bounded by the timeout (10 s).
flows() {
	local n=${1:-100}
	lab_exec $QS_NS_A timeout 10 bash -c \
		"for ((i = 0; i < $n; i++)); do echo x >/dev/udp/$QS_DST/9; done" 2>/dev/null
	return 0
}

# burst N [CPU] [SIZE]: N UDP datagrams of SIZE bytes (default 1), as fast
# as bash writes them, pinned to CPU so that XPS picks that CPU's queue.
# An skb in the veth ring still counts against its socket's send buffer
# (~260 small datagrams), so the burst uses one socket per 250 datagrams;
# once a queue is stopped the writes block: the timeout bounds it (3 s).
burst() {
	local n=${1:-1000} cpu=${2:-} size=${3:-1} pin= k
	[ -n "$cpu" ] && pin="taskset -c $cpu"
	for ((k = 0; k < n; k += 250)); do
		local m=$((n - k < 250 ? n - k : 250))
		local cmd="p=\$(printf %${size}s .); exec 3>/dev/udp/$QS_DST/9; for ((i = 0; i < $m; i++)); do printf %s \"\$p\" >&3; done"
		lab_exec $QS_NS_A timeout 3 $pin bash -c "$cmd" 2>/dev/null &
	done
	wait
	return 0
}

case ${1:-} in
up) shift; up "$@" ;;
down) lab_down qs- ;;
burst) shift; burst "$@" ;;
flows) shift; flows "$@" ;;
traffic) lab_iperf $QS_NS_B $QS_DST $QS_NS_A "${2:-5}" ;;
show) lab_exec $QS_NS_A tc -s qdisc show dev $QS_DEV ;;
# soak: the lab as make soak runs it (tools/soak/run.sh), and the netns it watches
soak) up mq >&2 && echo "$LAB_PREFIX$QS_NS_A" ;;
# the soak's churn: no flows of its own (3); its remedy's options; the
# state that remedy changes (tx-1's lockless qdisc, its handle too), which
# must be back after each of its runs
soak-flows) exit 3 ;;
soak-remedy) echo "--netns $LAB_PREFIX$QS_NS_A --lock $QS_DEV:1 -i 0.3" ;;
soak-state) lab_exec $QS_NS_A tc qdisc show dev $QS_DEV | grep -E '^qdisc [^ ]+ [0-9a-f]+: parent 1:2 ' ;;
env) echo "QS_NS=$LAB_PREFIX$QS_NS_A QS_DEV=$QS_DEV QS_NS_B=$LAB_PREFIX$QS_NS_B QS_DST=$QS_DST" ;;
*) echo "usage: $0 up stopped|mq|tbf|htb|busy|busymq | burst N [CPU] [SIZE] | flows N | traffic SECONDS | show | soak | soak-flows | soak-remedy | soak-state | down | env" >&2
   exit 2 ;;
esac
