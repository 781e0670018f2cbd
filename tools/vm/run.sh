#!/usr/bin/env bash
# make vmtest: the integration suite inside qemu on Debian's 6.1 kernel.
# See docs/KERNELS.md. Env: NETMEDIC_BUILD (absolute build dir, required),
# VM_ARCH (x86 or arm64; default the host's: make vmtest ARCH=arm64 sets it),
# VM_KERNEL_PKG, VM_TIMEOUT (s), VM_MEM (MiB), VM_ACCEL (kvm|tcg), VM_MODE_BUDGET
# (s per hook mode, in the guest), VM_CMD (run that in the guest instead),
# VM_SMOKE (1: the arm64 guest runs its smoke part only, the tests tagged
# vm:arm64-smoke: tools/vm/suite.sh), VM_QEMU_ARGS (more qemu arguments,
# word-split: a NIC, say), VM_OUT (a host directory: what the guest leaves
# in /vmxfer/out is copied there), VM_NETNS
# (run qemu inside that network namespace, which the caller made and
# deletes: where a tap backend of VM_QEMU_ARGS lives, away from the host's
# network; unset: the host's, for slirp backends), VM_BTF_ONLY (a path: boot,
# copy the guest kernel's BTF there, run nothing else; make vmlinux ARCH=...).
set -u
# all in one function: bash has read the whole of it before it runs, so an
# edit of this file during a 10-minute run cannot derail that run
main() {
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
# shellcheck source=SCRIPTDIR/../tools.sh
. "$ROOT/tools/tools.sh"
: "${NETMEDIC_BUILD:?set NETMEDIC_BUILD to the (absolute) build directory}"
case $NETMEDIC_BUILD in /*) ;; *) NETMEDIC_BUILD=$ROOT/$NETMEDIC_BUILD ;; esac
HOST_ARCH=$(uname -m | sed -e 's/x86_64/x86/' -e 's/aarch64/arm64/')
VM_ARCH=${VM_ARCH:-$HOST_ARCH}
# Debian 12's generic 6.1 images (the -cloud- flavour has no 9p). The exact
# names: `apt-cache depends linux-image-amd64` (linux-image-arm64:arm64)
# named them when written. An arm64 guest on another host: TCG only, and a
# root of arm64 packages (tools/vm/userland.sh) instead of the host's.
case $VM_ARCH in
x86)
	KPKG=${VM_KERNEL_PKG:-linux-image-6.1.0-57-amd64-unsigned} DEBARCH=amd64
	QEMU=qemu-system-x86_64 QEMU_PKG=qemu-system-x86 MACHINE=() CONSOLE=ttyS0
	;;
arm64)
	KPKG=${VM_KERNEL_PKG:-linux-image-6.1.0-57-arm64-unsigned} DEBARCH=arm64
	QEMU=qemu-system-aarch64 QEMU_PKG=qemu-system-arm MACHINE=(-M virt) CONSOLE=ttyAMA0
	;;
*) echo "vmtest: FAILED: VM_ARCH=$VM_ARCH: x86 or arm64" >&2; exit 1 ;;
esac
CROSS=
[ "$VM_ARCH" = "$HOST_ARCH" ] || { CROSS=1; VM_ACCEL=tcg; }
VM_TIMEOUT=${VM_TIMEOUT:-1800}
VM_MEM=${VM_MEM:-3072}
VMDIR=$NETMEDIC_BUILD/vm

t0=$(date +%s)
# the last line, which is what a CI log's tail keeps: the counts, and why
# the guest gave none when it did not (the trace above has scrolled by)
closing() { echo "vmtest: $1 passed, $2 failed${3:+ ($3)}"; }
fail() { echo "vmtest: FAILED: $*" >&2; closing 0 1 "$*"; exit 1; }

[ "$(id -u)" = 0 ] || fail "needs root (apt-get, qemu's 9p export of /)"
if [ -n "${VM_BTF_ONLY:-}" ]; then
	# the BTF is wanted to build the tools: none is run, none need be built
	VM_CMD=true
else
	for t in $(nm_tools); do
		[ -x "$NETMEDIC_BUILD/$t" ] || fail "$NETMEDIC_BUILD/$t is not built (make all)"
	done
fi

# --- host packages: tools/deps.txt (and deps-ARCH.txt), installed by make deps
command -v "$QEMU" >/dev/null && command -v depmod >/dev/null &&
	dpkg -s busybox-static >/dev/null 2>&1 ||
	fail "$QEMU_PKG, busybox-static or kmod is not installed (make deps${CROSS:+ ARCH=$VM_ARCH}: tools/deps*.txt)"

mkdir -p "$VMDIR" || fail "cannot create $VMDIR"
exec 9>"$VMDIR/.lock"
flock 9 || fail "cannot lock $VMDIR"

# --- the kernel package, cached: build/vm/<pkg>/{boot,lib/modules}
KDIR=$VMDIR/$KPKG
if [ ! -d "$KDIR/boot" ]; then
	echo "vmtest: fetching $KPKG (apt-get download)"
	rm -rf "$VMDIR/dl" "$KDIR.tmp"
	mkdir -p "$VMDIR/dl" && chmod 0777 "$VMDIR/dl"
	( cd "$VMDIR/dl" && { apt-get download -q "$KPKG:$DEBARCH" >/dev/null 2>&1 ||
		{ apt-get update -q >/dev/null 2>&1; apt-get download -q "$KPKG:$DEBARCH" >/dev/null 2>&1; }; } ) ||
		fail "apt-get download $KPKG failed (apt-cache search linux-image-6.1 lists what exists; set VM_KERNEL_PKG)"
	deb=$(ls "$VMDIR"/dl/"${KPKG}"_*.deb 2>/dev/null | head -1)
	[ -n "$deb" ] || fail "apt-get download $KPKG left no .deb"
	dpkg -x "$deb" "$KDIR.tmp" || fail "dpkg -x $deb failed"
	kv=$(ls "$KDIR.tmp/lib/modules")
	depmod -b "$KDIR.tmp" "$kv" || fail "depmod for $kv failed"
	cp "$deb" "$KDIR.tmp/" && mv "$KDIR.tmp" "$KDIR" && rm -rf "$VMDIR/dl" || fail "cannot store $KDIR"
fi
KVER=$(ls "$KDIR/lib/modules")
VMLINUZ=$KDIR/boot/vmlinuz-$KVER
[ -r "$VMLINUZ" ] || fail "no $VMLINUZ"

# --- the guest's root: the host's own, or (another architecture) arm64
# packages unpacked under build/ (tools/vm/userland.sh), cached by their list
GROOT=/
if [ -n "$CROSS" ]; then
	GROOT=$("$ROOT/tools/vm/userland.sh" "$VM_ARCH" "$VMDIR") || fail "no $VM_ARCH root (tools/vm/userland.sh)"
fi
BUSYBOX=$GROOT/bin/busybox
[ -x "$BUSYBOX" ] || fail "no $BUSYBOX (busybox-static)"

# --- the initramfs: busybox-static, the virtio/9p/overlay modules, tools/vm/init
INITRD=$VMDIR/initramfs-$KVER.cpio.gz
# (run.sh too: an initramfs from before modules/order must not be kept)
if [ ! -s "$INITRD" ] || [ "$ROOT/tools/vm/init" -nt "$INITRD" ] || [ "$BUSYBOX" -nt "$INITRD" ] ||
   [ "$ROOT/tools/vm/run.sh" -nt "$INITRD" ]; then
	st=$(mktemp -d "$VMDIR/initrd.XXXXXX") || fail "mktemp"
	mkdir -p "$st/bin" "$st/modules"
	cp "$BUSYBOX" "$st/bin/busybox" && cp "$ROOT/tools/vm/init" "$st/init" && chmod 0755 "$st/init" ||
		fail "cannot stage the initramfs"
	# in dependency order (modinfo -F depends); /init loads them in the
	# order of modules/order. One built into the kernel (arm64's virtio) is
	# left out.
	for m in virtio_ring virtio virtio_pci_legacy_dev virtio_pci_modern_dev virtio_pci \
		 9pnet 9pnet_virtio netfs fscache 9p overlay; do
		f=$(find "$KDIR/lib/modules/$KVER" -name "$m.ko" | head -1)
		if [ -n "$f" ]; then
			cp "$f" "$st/modules/" && echo "$m" >>"$st/modules/order" || fail "cannot stage $m.ko"
		elif ! grep -q "/$m\.ko\$" "$KDIR/lib/modules/$KVER/modules.builtin"; then
			fail "module $m.ko is not in $KPKG, nor built in"
		fi
	done
	( cd "$st" && find . | busybox cpio -o -H newc 2>/dev/null | gzip -1 >"$INITRD.tmp" ) &&
		mv "$INITRD.tmp" "$INITRD" || fail "cannot build $INITRD"
	rm -rf "$st"
fi

# --- the BPF objects against this kernel's types: the committed vmlinux.h
# is 6.18's, so a field 6.1 lacks breaks only the build for 6.1, which no
# other test does. The BTF comes from the first boot that gets that far.
BTFDIR=$KDIR/btf
want_btf=
bmake() { MAKEFLAGS= MAKELEVEL= make -C "$ROOT" -s --no-print-directory -j"$(nproc)" ARCH="$VM_ARCH" "$@"; }
# core_check: make bpf-objs against a vmlinux.h dumped from $BTFDIR/vmlinux
core_check() {
	local out=$BTFDIR/check.log t=$(date +%s)
	if ! [ "$BTFDIR/vmlinux.h" -nt "$BTFDIR/vmlinux" ] &&
	   ! bmake VMLINUX_BTF="$BTFDIR/vmlinux" VMLINUX_H="$BTFDIR/vmlinux.h" vmlinux >"$out" 2>&1; then
		cat "$out" >&2
		rm -f "$BTFDIR/vmlinux" "$BTFDIR/vmlinux.h"
		echo "vmtest: FAILED: no vmlinux.h from $KVER's BTF (dropped; the next boot brings it again)" >&2
		return 1
	fi
	# -B: compiled every run, whatever make thinks is up to date
	if ! bmake -B BUILD="$BTFDIR/build" VMLINUX_H="$BTFDIR/vmlinux.h" bpf-objs >"$out" 2>&1; then
		# clang's error lines; its macro-expansion notes stay in the log
		grep -E 'error' "$out" >&2 || cat "$out" >&2
		echo "vmtest: FAILED: the BPF objects do not compile against $KVER's types" \
			"(make bpf-objs VMLINUX_H=$BTFDIR/vmlinux.h; all of clang's output: $out):" \
			"name what differs in bpf/core_fixes.bpf.h" >&2
		return 1
	fi
	echo "vmtest: the BPF objects compile against $KVER's types ($(( $(date +%s) - t )) s)"
}
if [ -n "${VM_BTF_ONLY:-}" ]; then
	want_btf=1
elif [ -s "$BTFDIR/vmlinux" ]; then
	# seconds: fail here rather than after the suite's ten minutes
	core_check || { closing 0 1; exit 1; }
else
	want_btf=1
	echo "vmtest: no BTF of $KVER kept yet: the guest brings it, then the objects are compiled against it"
fi
flock -u 9

# --- accelerator: KVM when /dev/kvm exists and qemu can open it, else TCG
if [ -z "${VM_ACCEL:-}" ]; then
	VM_ACCEL=tcg
	if [ -e /dev/kvm ] && ! [ -d /sys/module/kvm_intel ] && ! [ -d /sys/module/kvm_amd ]; then
		# e.g. PVM (kvm_pvm): /dev/kvm is there but runs only PVM-aware guests
		echo "vmtest: /dev/kvm is not backed by kvm_intel or kvm_amd ($(cd /sys/module && echo kvm*)): using TCG"
	elif [ -e /dev/kvm ] && echo quit | timeout 20 "$QEMU" -accel kvm -machine none -nodefaults \
		-display none -monitor stdio >/dev/null 2>&1; then
		VM_ACCEL=kvm
	fi
fi

# --- the run's exchange share: the stage-2 script, its env, the exit code
XFER=$(mktemp -d /tmp/netmedic-vmtest.XXXXXX) || fail "mktemp"
QPID=
cleanup() {
	# $QPID is timeout(1): TERM makes it stop qemu; -k 15 kills a stuck one
	[ -n "$QPID" ] && kill "$QPID" 2>/dev/null && wait "$QPID" 2>/dev/null
	rm -rf "$XFER"
}
trap cleanup EXIT
trap 'echo "vmtest: interrupted" >&2; exit 130' INT TERM
cp "$ROOT/tools/vm/guest.sh" "$XFER/guest.sh"
mkdir -p "$XFER/out"
{
	printf 'VM_ROOT=%q\n' "$ROOT"
	printf 'VM_MODULES=%q\n' "$KDIR/lib/modules/$KVER"
	printf 'VM_KCONFIG=%q\n' "$KDIR/boot/config-$KVER"
	printf 'VM_ACCEL=%q\n' "$VM_ACCEL"
	printf 'VM_ARCH=%q\n' "$VM_ARCH"
	printf 'VM_WANT_BTF=%q\n' "$want_btf"
	printf 'export NETMEDIC_BUILD=%q\n' "$NETMEDIC_BUILD"
	printf 'export NETMEDIC_TOOLS=%q\n' "$(nm_tools | paste -sd ' ')"
	for v in VM_CMD VM_MODE_BUDGET VM_SMOKE NM_JOBS; do
		[ -n "${!v:-}" ] && printf 'export %s=%q\n' "$v" "${!v}"
	done
} >"$XFER/env"

echo "vmtest: $KPKG ($KVER), $QEMU $VM_ACCEL, 2 vCPUs, ${VM_MEM} MiB, timeout ${VM_TIMEOUT} s"
if [ -n "$CROSS" ]; then
	echo "vmtest: $VM_ARCH root $GROOT and the tree $ROOT shared read-only (9p) under tmpfs overlays; binaries from $NETMEDIC_BUILD"
else
	echo "vmtest: host root $ROOT shared read-only (9p) under a tmpfs overlay; binaries from $NETMEDIC_BUILD"
fi
# the tree, at its own path, where the guest's root is not the host's (init: nm.project)
project=()
[ -n "$CROSS" ] && project=(-virtfs "local,path=$ROOT,mount_tag=project,security_model=none,readonly=on,multidevs=remap")
log=$XFER/console.log
tb=$(date +%s)
# boot ACCEL: start qemu in the background ($QPID is its timeout(1)), stream
# the console, and give up on a guest whose init has not spoken in $2 s.
boot() {
	local a=$1 window=$2 tpid i
	case $a in
	kvm) accel=(-accel kvm -cpu host) ;;
	tcg) accel=(-accel tcg,thread=multi -cpu max) ;;
	*) fail "VM_ACCEL=$a: kvm or tcg" ;;
	esac
	: >"$log"
	# softlockup_panic=0: under TCG a vCPU the host did not run for 20 s
	# looks to the guest like a CPU stuck in the kernel. CI once ended on
	# a guest panic (2026-12-04, a TCP send in the tcpstall tests; its
	# reason line not kept) that no run here repeated. A lockup that is
	# real hangs its test, and the mode's budget names it; an Oops still
	# panics (oops=panic).
	# ip netns exec execs timeout(1): $QPID stays the process to stop
	"${nsexec[@]}" timeout -k 15 "$VM_TIMEOUT" "$QEMU" "${MACHINE[@]}" "${accel[@]}" -smp 2 -m "$VM_MEM" \
		-nodefaults -no-user-config -display none -monitor none -serial "file:$log" -no-reboot \
		-kernel "$VMLINUZ" -initrd "$INITRD" \
		-append "console=$CONSOLE rdinit=/init panic=-1 oops=panic softlockup_panic=0 loglevel=4 mitigations=off${CROSS:+ nm.project=$ROOT}" \
		-virtfs local,path="$GROOT",mount_tag=hostroot,security_model=none,readonly=on,multidevs=remap \
		"${project[@]}" \
		-virtfs local,path="$XFER",mount_tag=xfer,security_model=none,multidevs=remap \
		${VM_QEMU_ARGS:-} </dev/null >"$XFER/qemu.err" 2>&1 &
	QPID=$!
	tail -n +1 -s 0.5 -f --pid="$QPID" "$log" 2>/dev/null | sed -u 's/\r$//' &
	tpid=$!
	for ((i = 0; i < window; i++)); do
		grep -q 'vmtest-init:' "$log" && break
		kill -0 "$QPID" 2>/dev/null || break
		sleep 1
	done
	if ! grep -q 'vmtest-init:' "$log" && kill -0 "$QPID" 2>/dev/null; then
		kill "$QPID" 2>/dev/null
		wait "$QPID" 2>/dev/null
		wait "$tpid" 2>/dev/null
		QPID=
		return 125
	fi
	wait "$QPID"
	qrc=$?
	wait "$tpid" 2>/dev/null
	QPID=
	return 0
}
nsexec=()
if [ -n "${VM_NETNS:-}" ]; then
	ip netns exec "$VM_NETNS" true 2>/dev/null || fail "VM_NETNS=$VM_NETNS: no such network namespace (ip netns add)"
	nsexec=(ip netns exec "$VM_NETNS")
	echo "vmtest: qemu runs in network namespace $VM_NETNS"
fi
qrc=
boot "$VM_ACCEL" "$([ "$VM_ACCEL" = kvm ] && echo 30 || echo 180)"
if [ $? = 125 ]; then
	if [ "$VM_ACCEL" = kvm ]; then
		# e.g. a PVM host (kvm_pvm): /dev/kvm opens but runs no ordinary guest
		echo "vmtest: KVM ran nothing for 30 s (a /dev/kvm that cannot run this guest); falling back to TCG"
		VM_ACCEL=tcg
		sed -i 's/^VM_ACCEL=.*/VM_ACCEL=tcg/' "$XFER/env"
		boot tcg 180
		[ $? = 125 ] && qrc=boot
	else
		qrc=boot
	fi
fi
[ -s "$XFER/qemu.err" ] && sed 's/^/qemu: /' "$XFER/qemu.err" >&2
tr -d '\r' <"$log" >"$log.txt" && mv "$log.txt" "$log"
secs=$(( $(date +%s) - tb ))

# --- the verdict: the guest's exit code, or why there is none
sum() { awk -v k="$1" '$1 == "vmtest-mode:" { s += $(k) } END { print s + 0 }' "$log"; }
pass=$(sum 3) failed=$(sum 5)
why=
if [ -r "$XFER/rc" ]; then
	rc=$(cat "$XFER/rc")
	echo "vmtest: guest exit code $rc after ${secs} s in qemu ($(( $(date +%s) - t0 )) s in all)"
elif [ "$qrc" = boot ]; then
	why="boot failure: the guest's init printed nothing within the boot window"
	tail -5 "$log" >&2
elif [ "$qrc" = 124 ] || [ "$qrc" = 137 ]; then
	why="timeout: the guest did not finish within VM_TIMEOUT=${VM_TIMEOUT} s"
elif grep -q 'Kernel panic' "$log"; then
	# the report, and panic()'s stack dump (console_verbose(): printed at
	# loglevel=4 too)
	awk '/BUG: |Oops|WARNING: |Kernel panic/ { on = 1 } on && n++ < 60' "$log" >&2
	why="guest kernel panic: $(grep -m1 -E 'BUG: |Oops|Kernel panic' "$log" | sed 's/^\[ *[0-9.]*\] //' | cut -c1-100)"
	why+="; after the test line: $(grep -E '^(ok|not ok) [0-9]+ ' "$log" | tail -1 | cut -c1-100)"
elif grep -q 'vmtest-init: FATAL' "$log"; then
	why="boot failure: $(grep -m1 'vmtest-init: FATAL' "$log")"
elif ! grep -q 'vmtest-guest: up' "$log"; then
	why="boot failure: the guest never reached the test stage (qemu exit $qrc)"
	tail -5 "$log" >&2
else
	why="the guest stopped without an exit code (qemu exit $qrc)"
fi
if [ -n "$why" ]; then
	echo "vmtest: FAILED: $why" >&2
	rc=1
fi
# said, not failed for (softlockup_panic=0 above): how many, and the first
if n=$(grep -c 'BUG: soft lockup' "$log") && [ "$n" -gt 0 ]; then
	echo "vmtest: note: the guest kernel reported $n soft lockup(s), first: $(grep -m1 'BUG: soft lockup' "$log" |
		sed 's/^\[ *[0-9.]*\] //' | cut -c1-100); at TCG's pace, see tools/vm/run.sh"
	awk '/BUG: soft lockup/ { on = 1 } on && n++ < 40' "$log"
fi
if [ -n "${VM_BTF_ONLY:-}" ]; then
	{ [ -s "$XFER/btf" ] && cp "$XFER/btf" "$VM_BTF_ONLY.tmp" && mv "$VM_BTF_ONLY.tmp" "$VM_BTF_ONLY"; } ||
		fail "the guest brought no BTF back (for $VM_BTF_ONLY)"
	echo "vmtest: $KVER's BTF ($VM_ARCH) in $VM_BTF_ONLY"
	exit "$rc"
elif [ -n "$want_btf" ] && [ -s "$XFER/btf" ]; then
	flock 9
	{ mkdir -p "$BTFDIR" && cp "$XFER/btf" "$BTFDIR/vmlinux.tmp" && mv "$BTFDIR/vmlinux.tmp" "$BTFDIR/vmlinux"; } ||
		fail "cannot keep the guest's BTF in $BTFDIR"
	core_check || { rc=1; failed=$((failed + 1)); }
	flock -u 9
elif [ -n "$want_btf" ]; then
	echo "vmtest: the guest brought no BTF back: no compile check against $KVER's types in this run" >&2
fi
if [ -n "${VM_OUT:-}" ]; then
	mkdir -p "$VM_OUT" && cp -r "$XFER/out/." "$VM_OUT/" || fail "cannot copy the guest's /vmxfer/out to $VM_OUT"
fi
[ "$rc" = 0 ] || [ "$failed" -gt 0 ] || failed=1
closing "$pass" "$failed" "$why"
exit "$rc"
}
main "$@"
