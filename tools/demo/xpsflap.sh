#!/usr/bin/env bash
# Demo of xpsflap: the lab's flapping flow found, then pinned. Run by tools/demo.sh.
set -u
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
BIN=${NETMEDIC_BUILD:-$ROOT/build}
LAB=$ROOT/tools/lab
[ "$(id -u)" = 0 ] || { echo "demo: must run as root" >&2; exit 1; }
trap '"$LAB/xpsflap.sh" down; "$BIN/xpsflap" --cleanup >/dev/null 2>&1' EXIT
# packets the kernel sent on each TX queue of xqm: "N0 N1" (the mq classes 1:1 and 1:2)
queues() {
	ip netns exec nm-xf-mid tc -s class show dev xqm |
		awk '$1 == "class" {c = $3} $1 == "Sent" && c ~ /^1:[12]$/ {n[c] = $4} END {print n["1:1"] + 0, n["1:2"] + 0}'
}

# run [--pin]: xpsflap over one 4-s iperf3 flow, and the kernel's own count of
# what each queue sent meanwhile. The receiver's out-of-order count is not
# shown: plain veth also reorders a flow whose sender changes CPU, at its
# per-CPU backlogs before the bridge, and no queue choice can change that
# (the LAB notes); xpsflap's REORD counts what the queue switches did.
run() {
	"$BIN/xpsflap" --netns nm-xf-mid --dev xqm -i 6 -c 1 "$@" &
	local pid=$! q0 q1 a0 a1
	sleep 1
	read -r q0 q1 < <(queues)
	"$LAB/xpsflap.sh" traffic 4 | jq -r '"iperf3: \(.end.sum_sent.bits_per_second / 1e9 | floor) Gbit/s, \(.end.sum_sent.retransmits) retransmits"'
	read -r a0 a1 < <(queues)
	echo "kernel (tc -s class show dev xqm): tx-0 sent $((a0 - q0)) packets, tx-1 $((a1 - q1))"
	wait $pid
}

say() { printf '\n\033[1m== %s\033[0m\n' "$*"; }

say "xpsflap: a bridged TCP flow leaves through a 2-queue veth whose XPS maps follow the CPU"
"$LAB/xpsflap.sh" up --queues 2 --xps on || exit 1
run

say "xpsflap --pin: XPS maps cleared while it runs, so each flow keeps its hashed queue"
run --pin
echo "XPS maps after exit: $(ip netns exec nm-xf-mid sh -c 'cat /sys/class/net/xqm/queues/tx-*/xps_cpus' | tr '\n' ' ')"
