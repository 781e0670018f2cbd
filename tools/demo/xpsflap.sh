#!/usr/bin/env bash
# Demo of xpsflap: the lab's flapping flow found, then pinned. Run by tools/demo.sh.
set -u
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
BIN=${NETMEDIC_BUILD:-$ROOT/build}
LAB=$ROOT/tools/lab
[ "$(id -u)" = 0 ] || { echo "demo: must run as root" >&2; exit 1; }
trap '"$LAB/xpsflap.sh" down; "$BIN/xpsflap" --cleanup >/dev/null 2>&1' EXIT
ofo() { ip netns exec nm-xf-rcv nstat -az TcpExtTCPOFOQueue | awk '/OFO/ {print $2}'; }

# run [--pin]: xpsflap over one 4-s iperf3 flow, and what the receiver saw out of order
run() {
	"$BIN/xpsflap" --netns nm-xf-mid --dev xqm -i 6 -c 1 "$@" &
	local pid=$! o
	sleep 1
	o=$(ofo)
	"$LAB/xpsflap.sh" traffic 4 | jq -r '"iperf3: \(.end.sum_sent.bits_per_second / 1e9 | floor) Gbit/s, \(.end.sum_sent.retransmits) retransmits"'
	echo "receiver: $(( $(ofo) - o )) segments queued out of order (TcpExtTCPOFOQueue)"
	wait $pid
}

say() { printf '\n\033[1m== %s\033[0m\n' "$*"; }

say "xpsflap: a bridged TCP flow leaves through a 2-queue veth whose XPS maps follow the CPU"
"$LAB/xpsflap.sh" up --queues 2 --xps on || exit 1
run

say "xpsflap --pin: XPS maps cleared while it runs, so each flow keeps its hashed queue"
run --pin
echo "XPS maps after exit: $(ip netns exec nm-xf-mid sh -c 'cat /sys/class/net/xqm/queues/tx-*/xps_cpus' | tr '\n' ' ')"
