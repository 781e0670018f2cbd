#!/usr/bin/env bash
# Demo of qdiscstuck: a TX queue the driver stopped, found in a child of mq
# that root-only views miss; a shaper beside it is not an alarm. Run by tools/demo.sh.
set -u
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
BIN=${NETMEDIC_BUILD:-$ROOT/build}
LAB=$ROOT/tools/lab/qdiscstuck.sh
[ "$(id -u)" = 0 ] || { echo "demo: must run as root" >&2; exit 1; }
trap '"$LAB" down; "$BIN/qdiscstuck" --cleanup >/dev/null 2>&1' EXIT

say() { printf '\n\033[1m== %s\033[0m\n' "$*"; }

say "qdiscstuck: 2-queue veth, mq root; the peer's NAPI poll is deferred 8 s, so a UDP burst from CPU 1 fills tx-1's ring"
"$LAB" up mq || exit 1
"$BIN/qdiscstuck" --netns nm-qs-a --dev qa -i 1 -c 3 --fix=kick &
pid=$!
sleep 0.5
"$LAB" burst 1000 1
wait $pid
say "tc -s qdisc, for comparison: the backlog sits in the pfifo_fast child on parent 1:2"
"$LAB" show
"$LAB" down

say "negative control: tbf at 8 kbit holds 30 packets on purpose: shaped, never stuck"
"$LAB" up tbf || exit 1
"$BIN/qdiscstuck" --netns nm-qs-a --dev qa -i 1 -c 2 &
pid=$!
sleep 0.5
"$LAB" burst 30 "" 1000
wait $pid
