#!/usr/bin/env bash
# Lab: TCP between two hosts over a veth, for tcpstall.
#
#   nm-ts-snd [ts0 198.18.1.1] ---- [ts1 198.18.1.2] nm-ts-rcv
#
# usage: tcpstall.sh up [--quickack on|off] [--defer 0|1] [--tbf RATE] [--rps CPUMASK]
#        tcpstall.sh storm SECONDS     slow reader (page faults while owning the
#                                      socket lock) on CPU 1, sender on CPU 0
#        tcpstall.sh bulk SECONDS [N [CC]]
#                                      iperf3 bulk flow (healthy); N flows (-P N),
#                                      congestion control CC (default cubic)
#        tcpstall.sh rwnd SECONDS      the reader stops reading after 0.5 s; its
#                                      buffer fixed at 128 KiB, so the window
#                                      is shut moments later on any CPU
#        tcpstall.sh hold SECONDS FILE like rwnd, its buffer autotuned; the
#                                      sender writes its socket's TCP_NODELAY
#                                      to FILE every 100 ms
#        tcpstall.sh read SECONDS      a plain reader on CPU 1 (64 KiB reads)
#        tcpstall.sh down
# The ACK storm (LAB.md): the receiver's route back to the sender carries
# quickack 1 and tcp_backlog_ack_defer is 0, so every segment processed
# from the backlog is ACKed on its own while the reader owns the socket.
# The bulk flow names its congestion control rather than take the host's
# default, which a new netns inherits: with bbr (some hosts' default) the
# sender paces itself and rarely fills the tbf shaper.
set -u
. "$(dirname "$0")/lib.sh"
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
NMTCP=${NETMEDIC_BUILD:-$ROOT/build}/nm-tcp

TS_SND=ts-snd TS_RCV=ts-rcv TS_SRC=198.18.1.1 TS_DST=198.18.1.2 TS_PORT=5301

up() {
	local quickack=on defer=0 tbf= rps=
	while [ $# -gt 0 ]; do
		case $1 in
		--quickack) quickack=$2; shift ;;
		--defer) defer=$2; shift ;;
		--tbf) tbf=$2; shift ;;
		--rps) rps=$2; shift ;;
		*) lab_die "up: unknown option $1" ;;
		esac
		shift
	done
	lab_need_root
	lab_ns $TS_SND
	lab_ns $TS_RCV
	lab_veth $TS_SND ts0 $TS_RCV ts1
	lab_addr $TS_SND ts0 $TS_SRC/24
	lab_addr $TS_RCV ts1 $TS_DST/24
	if [ "$quickack" = on ]; then
		ip -n "$LAB_PREFIX$TS_RCV" route add $TS_SRC/32 dev ts1 quickack 1 ||
			lab_die "cannot add the quickack route"
	fi
	# absent before 6.7: then the kernel always ACKs from the backlog
	if [ -e /proc/sys/net/ipv4/tcp_backlog_ack_defer ]; then
		lab_exec $TS_RCV sysctl -qw net.ipv4.tcp_backlog_ack_defer="$defer"
	fi
	# RPS: received segments processed on the CPUs of this mask, not the sender's
	if [ -n "$rps" ]; then
		lab_exec $TS_RCV sh -c "echo $rps > /sys/class/net/ts1/queues/rx-0/rps_cpus"
	fi
	if [ -n "$tbf" ]; then
		lab_exec $TS_SND tc qdisc replace dev ts0 root tbf rate "$tbf" burst 64kb latency 50ms
	fi
	lab_wait_ping $TS_SND $TS_DST
}

# run SECONDS [recv options] [-- send options]: one bounded connection through nm-tcp
run() {
	local secs=$1 rpid send=() recv=()
	shift
	while [ $# -gt 0 ] && [ "$1" != -- ]; do recv+=("$1"); shift; done
	[ $# -gt 0 ] && shift
	send=("$@")
	set -- "${recv[@]}"
	[ -x "$NMTCP" ] || lab_die "$NMTCP is missing (make)"
	lab_exec $TS_RCV taskset -c 1 "$NMTCP" recv $TS_DST $TS_PORT "$secs" "$@" &
	rpid=$!
	sleep 0.2
	lab_exec $TS_SND taskset -c 0 "$NMTCP" send $TS_DST $TS_PORT "$secs" "${send[@]}" >/dev/null
	wait $rpid
}

case ${1:-} in
up) shift; up "$@" ;;
down) lab_down ts- ;;
storm) run "${2:-4}" --chunk 1048576 --dontneed ;;
rwnd) run "${2:-4}" --stop-ms 500 --rcvbuf 131072 ;;
hold) run "${2:-4}" --stop-ms 500 -- --nodelay-file "${3:?hold SECONDS FILE}" ;;
read) run "${2:-4}" ;;
bulk) lab_iperf $TS_RCV $TS_DST $TS_SND "${2:-4}" -P "${3:-1}" -C "${4:-cubic}" >/dev/null ;;
# soak: the lab as make soak runs it (tools/soak/run.sh), and the netns it watches
soak) up --quickack off >&2 && echo "$LAB_PREFIX$TS_SND" ;;
# the soak's churn: one round of flows (4 at once); no remedy of its own
soak-flows) lab_iperf $TS_RCV $TS_DST $TS_SND 2 -P 4 -C cubic >/dev/null ;;
soak-remedy | soak-state) ;;
env) echo "TS_NS_RCV=$LAB_PREFIX$TS_RCV TS_NS_SND=$LAB_PREFIX$TS_SND TS_PORT=$TS_PORT" ;;
*) echo "usage: $0 up [--quickack on|off] [--defer 0|1] [--tbf RATE] [--rps MASK] | storm S | bulk S [N [CC]] | rwnd S | hold S FILE | read S | soak | soak-flows | soak-remedy | soak-state | down" >&2; exit 2 ;;
esac
