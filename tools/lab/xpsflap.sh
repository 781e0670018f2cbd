#!/usr/bin/env bash
# Lab: one forwarded TCP flow spread over two TX queues by XPS.
#
#   nm-xf-snd [xs0 198.18.0.1] -- [xsm] br0 [xqm] -- [xq0 198.18.0.2] nm-xf-rcv
#                                 nm-xf-mid
#
# xqm has two TX queues with XPS mapping CPU 0 to tx-0 and CPU 1 to tx-1, so
# the queue follows whichever CPU forwards each packet (skb->sk is NULL on
# the bridged path). TSO is off on xqm, so every segment is transmitted (and
# its order seen) at the device.
#
# --napi also turns GRO on at xq0, so the receiver runs NAPI on a 256-slot
# ring per queue (LAB.md: cleaner OFO/SACK figures at the receiver). On
# 6.18 that mode sometimes leaves a TX queue of xqm stopped for good with
# packets in its pfifo_fast (veth's ring backpressure): a flow pinned to
# that queue then stalls. The xpsflap tests do not use it; it reproduces
# qdiscstuck's driver_stopped state.
#
# usage: xpsflap.sh up [--queues 1|2] [--xps on|off] [--napi] [--tso on|off] | traffic SECONDS [IPERF3 OPTIONS] | down
#        xpsflap.sh env     (names for scripts: XF_NS, XF_DEV, ...)
set -u
. "$(dirname "$0")/lib.sh"

XF_NS_SND=xf-snd XF_NS_MID=xf-mid XF_NS_RCV=xf-rcv
XF_DEV=xqm XF_SRC=198.18.0.1 XF_DST=198.18.0.2

up() {
	local queues=2 xps=on napi=off tso=off
	while [ $# -gt 0 ]; do
		case $1 in
		--queues) queues=$2; shift ;;
		--xps) xps=$2; shift ;;
		--napi) napi=on ;;
		--tso) tso=$2; shift; case $tso in on | off) ;; *) lab_die "up: --tso on or off" ;; esac ;;
		*) lab_die "up: unknown option $1" ;;
		esac
		shift
	done
	lab_need_root
	lab_ns $XF_NS_SND
	lab_ns $XF_NS_MID
	lab_ns $XF_NS_RCV
	lab_veth $XF_NS_SND xs0 $XF_NS_MID xsm
	lab_veth $XF_NS_MID $XF_DEV $XF_NS_RCV xq0 "$queues"
	lab_bridge $XF_NS_MID br0 xsm $XF_DEV
	lab_addr $XF_NS_SND xs0 $XF_SRC/24
	lab_addr $XF_NS_RCV xq0 $XF_DST/24
	# TSO off: xqm segments, so every segment is a packet of its own on the
	# two queues (--tso on keeps veth's default: one GSO skb per 64 KiB)
	lab_exec $XF_NS_MID ethtool -K $XF_DEV tso $tso >/dev/null
	lab_exec $XF_NS_RCV ethtool -K xq0 gro $napi >/dev/null
	if [ "$queues" -gt 1 ]; then
		lab_exec $XF_NS_MID tc qdisc replace dev $XF_DEV root handle 1: mq
		if [ "$xps" = on ]; then
			lab_xps $XF_NS_MID $XF_DEV 0 1
			lab_xps $XF_NS_MID $XF_DEV 1 2
		else
			lab_xps $XF_NS_MID $XF_DEV 0 0
			lab_xps $XF_NS_MID $XF_DEV 1 0
		fi
	fi
	lab_wait_ping "$XF_NS_SND" $XF_DST
}

case ${1:-} in
up) shift; up "$@" ;;
down) lab_down xf- ;;
# traffic SECONDS [IPERF3 OPTIONS...]: the flow, with the client's extra options (-b RATE)
traffic) shift; lab_iperf $XF_NS_RCV $XF_DST $XF_NS_SND "${1:-5}" "${@:2}" ;;
# soak: the lab as make soak runs it (tools/soak/run.sh), and the netns it watches
soak) up --queues 2 --xps on >&2 && echo "$LAB_PREFIX$XF_NS_MID" ;;
# the soak's churn: one round of flows; its remedy's options; the state that
# remedy changes, which must be back after each of its runs
soak-flows) lab_iperf $XF_NS_RCV $XF_DST $XF_NS_SND 2 >/dev/null ;;
soak-remedy) echo "--netns $LAB_PREFIX$XF_NS_MID --dev $XF_DEV --pin -i 0.5" ;;
soak-state) for q in 0 1; do lab_exec $XF_NS_MID cat /sys/class/net/$XF_DEV/queues/tx-$q/xps_cpus; done ;;
env) echo "XF_NS=$LAB_PREFIX$XF_NS_MID XF_DEV=$XF_DEV XF_NS_RCV=$LAB_PREFIX$XF_NS_RCV XF_NS_SND=$LAB_PREFIX$XF_NS_SND" ;;
*) echo "usage: $0 up [--queues 1|2] [--xps on|off] [--napi] [--tso on|off] | traffic SECONDS [IPERF3 OPTIONS] | soak | soak-flows | soak-remedy | soak-state | down | env" >&2; exit 2 ;;
esac
