#!/usr/bin/env bash
# Demo of tcpstall: an ACK storm found with its causes and fixed in the same
# run; a reader that stops reading seen as an rwnd stall. Run by tools/demo.sh.
set -u
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
BIN=${NETMEDIC_BUILD:-$ROOT/build}
LAB=$ROOT/tools/lab/tcpstall.sh
[ "$(id -u)" = 0 ] || { echo "demo: must run as root" >&2; exit 1; }
trap '"$LAB" down; "$BIN/tcpstall" --cleanup >/dev/null 2>&1' EXIT

say() { printf '\n\033[1m== %s\033[0m\n' "$*"; }

say "tcpstall: the receiver's route has quickack 1, tcp_backlog_ack_defer=0, its reader page-faults while owning the socket"
"$LAB" up --quickack on --defer 0 || exit 1
"$BIN/tcpstall" --netns nm-ts-rcv --port 5301 -i 2 -c 3 --fix=defer &
pid=$!
sleep 0.5
"$LAB" storm 6 >/dev/null
wait $pid
echo "tcp_backlog_ack_defer after exit: $(ip netns exec nm-ts-rcv sysctl -n net.ipv4.tcp_backlog_ack_defer)"
"$LAB" down

say "tcpstall: the reader stops reading after 0.5 s; the sender's window fills"
"$LAB" up --quickack off --defer 1 || exit 1
"$BIN/tcpstall" --netns nm-ts-snd --port 5301 -i 2.5 -c 1 &
pid=$!
sleep 0.3
"$LAB" rwnd 2 >/dev/null
wait $pid
