#!/usr/bin/env bash
# make faults: the headline bugs made real in the 6.1 guest. Builds the
# fault-injection modules against the guest kernel's headers, boots the
# guest (tools/vm/run.sh) with tools/faults/guest.sh, then writes
# build/faults/summary.json, prints it as a table and checks the targets
# (docs/design/tcpstall.md, "The race made real"). FAULTS_SHORT=1: CI's shorter
# runs, same checks. NETMEDIC_REFUSE goes into the guest: the same runs on a
# lower rung (ts_push_exit,ts_push_exit_kick: tcp_push on its kprobes).
set -uo pipefail
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
: "${NETMEDIC_BUILD:?set NETMEDIC_BUILD to the (absolute) build directory}"
fail() { echo "faults: FAILED: $*" >&2; exit 1; }
# KERNEL= (make's; VM_KERNEL here): 6.1 unless said, one of the matrix's
# pinned kernels, whose headers build the fault modules; ARCH=arm64 (make's;
# VM_ARCH here): arm64's 5.10 or 6.1, the modules cross-built
export VM_ARCH=${VM_ARCH:-x86}
KPKG=${VM_KERNEL_PKG:-}
if [ -z "$KPKG" ]; then
	DEBARCH=amd64
	[ "$VM_ARCH" = arm64 ] && DEBARCH=arm64
	# shellcheck source=../vm/debian.sh
	. "$ROOT/tools/vm/debian.sh"
	k=$(kernel_of "${VM_KERNEL:-6.1}") ||
		fail "KERNEL=${VM_KERNEL:-}: make faults runs on 5.10, 6.1 or 6.12 (x86), 5.10 or 6.1 (arm64)"
	read -r _ KPKG <<<"$k"
	[ "$KPKG" != - ] || fail "KERNEL=${VM_KERNEL}: unstable's kernel moves, and make faults builds its modules against a pinned kernel's headers: 5.10, 6.1 or 6.12"
fi
KVER=${KPKG#linux-image-}
KVER=${KVER%-unsigned}
OUT=$NETMEDIC_BUILD/faults

"$ROOT/tools/faults/build-modules.sh" "$KVER" "$OUT/modules" || exit 1
rm -rf "$OUT/out"
mkdir -p "$OUT/out"
qemu_args=
QM_NETNS=
# the qdisc parts where their module is built (x86: it skips a function from a kprobe)
if [ -r "$ROOT/tools/faults/qdisc.sh" ] && [ -e "$OUT/modules/nm_qdisc_inject.ko" ]; then
	# shellcheck source=/dev/null
	. "$ROOT/tools/faults/qdisc.sh"
	qemu_args=${QDISC_QEMU_ARGS:-}
	if [ -r "$ROOT/tools/faults/qdisc-mq.sh" ]; then
		# the multi-queue NIC's tap, in a namespace of its own, gone at exit
		# shellcheck source=/dev/null
		. "$ROOT/tools/faults/qdisc-mq.sh"
		trap qm_netns_down EXIT
		trap 'exit 130' INT TERM
		qm_netns_up || fail "cannot make the network namespace with the multi-queue tap (ip netns, ip tuntap; /dev/net/tun)"
		qemu_args="$qemu_args $QDISC_MQ_QEMU_ARGS"
	fi
fi
VM_KERNEL_PKG=$KPKG VM_CMD="FAULTS_SHORT=${FAULTS_SHORT:-} NETMEDIC_REFUSE=$(printf %q "${NETMEDIC_REFUSE:-}") bash tools/faults/guest.sh" VM_OUT="$OUT/out" \
	VM_QEMU_ARGS="$qemu_args" VM_NETNS="$QM_NETNS" VM_TIMEOUT=${FAULTS_TIMEOUT:-900} "$ROOT/tools/vm/run.sh" |
	grep -v '^vmtest: [0-9]* passed, [0-9]* failed$'
vrc=${PIPESTATUS[0]}
qm_netns_down 2>/dev/null
[ -s "$OUT/out/tsq.json" ] || fail "the guest wrote no tsq.json (guest exit $vrc; logs in $OUT/out)"
qd=null
[ -s "$OUT/out/qdisc.json" ] && qd=$(cat "$OUT/out/qdisc.json")
# the mq case, inside the qdisc object: .qdisc.mq
if [ -s "$OUT/out/qdisc-mq.json" ]; then
	qd=$(jq -c --argjson mq "$(cat "$OUT/out/qdisc-mq.json")" '(. // {}) + {mq: $mq}' <<<"$qd") ||
		fail "cannot read $OUT/out/qdisc-mq.json"
fi
jq -n --argjson tsq "$(cat "$OUT/out/tsq.json")" --argjson qdisc "$qd" \
	--arg kernel "$KVER" --arg arch "$VM_ARCH" --arg short "${FAULTS_SHORT:-}" \
	'{kernel: $kernel, arch: $arch, short: ($short != ""), tsq: $tsq, qdisc: $qdisc}' >"$OUT/summary.json" ||
	fail "cannot write $OUT/summary.json"
"$ROOT/tools/faults/table.sh" "$OUT/summary.json"
trc=$?
[ "$vrc" = 0 ] || fail "the guest's fault runs exited $vrc (logs in $OUT/out)"
[ "$trc" = 0 ] || fail "a target was missed (the lines above; $OUT/summary.json)"
