#!/usr/bin/env bash
# make vmtest: the integration suite inside qemu on Debian's 6.1 kernel, or
# another of the matrix (KERNEL=). See docs/KERNELS.md. Env: NETMEDIC_BUILD
# (absolute build dir, required), VM_ARCH (x86 or arm64; default the host's:
# make vmtest ARCH=arm64 sets it), VM_KERNEL (5.10, 6.1, 6.12 or newest;
# default 6.1; make's KERNEL=), VM_KERNEL_PKG (an exact package name instead),
# VM_MATRIX (all, or a list of VM_KERNEL values: the smoke part on each, one
# line per kernel and a total; make vmtest-matrix), VM_DEBIAN_MIRROR
# (default http://deb.debian.org), VM_TIMEOUT (s), VM_LOCKUP_S (s of one guest
# soft lockup that stop the run; 120), VM_LOGLEVEL (the guest console's; 4; 7
# shows a lockup's stacks), VM_TCG_THREAD (multi or single; x86: single, see
# below), VM_MEM (MiB), VM_ACCEL
# (kvm|tcg), VM_MODE_BUDGET (s per hook mode, in the guest), VM_CMD (run that
# in the guest instead), VM_SMOKE (1: the smoke part only: each CLI starts,
# and the tests tagged vm:arm64-smoke: tools/vm/suite.sh), VM_QEMU_ARGS (more qemu arguments,
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
# An arm64 guest on another host: TCG only, and a root of arm64 packages
# (tools/vm/userland.sh) instead of the host's.
case $VM_ARCH in
x86)
	DEBARCH=amd64 MATRIX="5.10 6.1 6.12 newest"
	QEMU=qemu-system-x86_64 QEMU_PKG=qemu-system-x86 MACHINE=() CONSOLE=ttyS0
	;;
arm64)
	DEBARCH=arm64 MATRIX="5.10 6.1"
	QEMU=qemu-system-aarch64 QEMU_PKG=qemu-system-arm MACHINE=(-M virt) CONSOLE=ttyAMA0
	;;
*) echo "vmtest: FAILED: VM_ARCH=$VM_ARCH: x86 or arm64" >&2; exit 1 ;;
esac
# kernel_of (which package each KERNEL is) and the apt functions
# shellcheck source=debian.sh
. "$ROOT/tools/vm/debian.sh"
KSUITE='' KPKG=${VM_KERNEL_PKG:-}
if [ -z "$KPKG" ] && [ -z "${VM_MATRIX:-}" ]; then
	kernel_of "${VM_KERNEL:-6.1}" >/dev/null || {
		echo "vmtest: FAILED: KERNEL=${VM_KERNEL:-}: not in the $VM_ARCH matrix ($MATRIX)" >&2
		echo "vmtest: 0 passed, 1 failed (KERNEL=${VM_KERNEL:-}: not in the $VM_ARCH matrix)"
		exit 1
	}
	read -r KSUITE KPKG <<<"$(kernel_of "${VM_KERNEL:-6.1}")"
fi
CROSS=
[ "$VM_ARCH" = "$HOST_ARCH" ] || { CROSS=1; VM_ACCEL=tcg; }
# (the matrix's bound per kernel is shorter: matrix)
MATRIX_TIMEOUT=${VM_TIMEOUT:-$([ "$VM_ARCH" = arm64 ] && echo 1500 || echo 900)}
VM_TIMEOUT=${VM_TIMEOUT:-1800}
VM_MEM=${VM_MEM:-3072}
VMDIR=$NETMEDIC_BUILD/vm

t0=$(date +%s)
# the last line, which is what a CI log's tail keeps: the counts, and why
# the guest gave none when it did not (the trace above has scrolled by)
closing() { echo "vmtest: $1 passed, $2 failed${3:+ ($3)}"; }
fail() { echo "vmtest: FAILED: $*" >&2; closing 0 1 "$*"; exit 1; }

[ "$(id -u)" = 0 ] || fail "needs root (apt-get, qemu's 9p export of /)"

# --- make vmtest-matrix: the smoke part on each kernel of the matrix, one
# run of this script each (its own fetch, check and qemu, bounded), then
# one line per kernel and the total, last: what a CI log's tail keeps
matrix() {
	local k list out line kv t rc=0 tp=0 tf=0 n=0 p f res=()
	list=$MATRIX
	[ "$VM_MATRIX" = all ] || list=$VM_MATRIX
	# the smoke part takes minutes: a kernel that hangs costs its bound only
	VM_TIMEOUT=$MATRIX_TIMEOUT
	out=$(mktemp) || fail "mktemp"
	for k in $list; do
		echo "=== vmtest-matrix: KERNEL=$k ($VM_ARCH), bounded to $VM_TIMEOUT s in qemu"
		t=$(date +%s)
		# --foreground: a ^C reaches the run, which stops its qemu; the
		# outer bound covers the fetch and the compile check too
		VM_MATRIX='' VM_KERNEL_PKG='' VM_KERNEL=$k VM_SMOKE=1 VM_TIMEOUT=$VM_TIMEOUT \
			timeout --foreground -k 30 $((VM_TIMEOUT + 600)) "$ROOT/tools/vm/run.sh" 2>&1 | tee "$out"
		[ "${PIPESTATUS[0]}" = 0 ] || rc=1
		line=$(sed -n 's/^vmtest: \([0-9]* passed, [0-9]* failed.*\)$/\1/p' "$out" | tail -1)
		kv=$(sed -n 's/^vmtest: linux-[^ ]* (\([^)]*\)), .*/\1/p' "$out" | head -1)
		[ -n "$line" ] || line="0 passed, 1 failed (no closing line: stopped by the bound?)"
		p=${line%% passed*} f=${line#* passed, }
		f=${f%% failed*}
		tp=$((tp + p)) tf=$((tf + f)) n=$((n + 1))
		res+=("$(printf 'vmtest-matrix: %-6s %-24s %s, %d s' "$k" "${kv:-?}" "$line" $(($(date +%s) - t)))")
	done
	rm -f "$out"
	printf '%s\n' "${res[@]}"
	echo "vmtest-matrix: total: $tp passed, $tf failed on $n kernels ($VM_ARCH, smoke part)"
	[ "$tf" = 0 ] || rc=1
	return "$rc"
}
if [ -n "${VM_MATRIX:-}" ]; then
	matrix
	exit
fi
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

# kernel_suite: set KSUITE to the suite whose lists name $KPKG (KERNEL's;
# for a VM_KERNEL_PKG bookworm's, bullseye's, then unstable's), their lists
# fetched when missing or when they do not name it yet
kernel_suite() {
	local s
	for s in ${KSUITE:-bookworm bullseye sid}; do
		apt_use "$s" || return 1
		# a suite that did not answer (apt says which) leaves the others'
		if apt_has "$KPKG" || { apt_update; apt_has "$KPKG"; }; then
			KSUITE=$s
			return 0
		fi
	done
	return 1
}
# newest_pkg: the image package unstable's linux-image-ARCH depends on
# today: its lists fetched at each run (the kept ones if that fails)
newest_pkg() {
	apt_use sid || return 1
	if ! apt_update; then
		apt_has "linux-image-$DEBARCH" || return 1
		echo "vmtest: note: unstable's package lists not refreshed: those of $(date -ur "$VMDIR/apt/sid-$DEBARCH/lists" '+%F %R UTC')" >&2
	fi
	apt-cache "${APTO[@]}" depends "linux-image-$DEBARCH" 2>/dev/null |
		awk '$1 == "Depends:" && $2 ~ /^linux-image-/ { print $2; exit }'
}
# kernel_layout DIR: unstable's split packages keep the kernel and its
# config in /usr/lib/modules/KVER; move them where Debian 11 and 12 have
# them (boot/vmlinuz-KVER, boot/config-KVER, lib/modules/KVER), which
# depmod -b, the rest of this script and the guest read
kernel_layout() {
	local d=$1 kv f
	if [ ! -d "$d/lib/modules" ] && [ -d "$d/usr/lib/modules" ]; then
		mkdir -p "$d/lib" && mv "$d/usr/lib/modules" "$d/lib/modules" || return 1
	fi
	kv=$(ls "$d/lib/modules" 2>/dev/null)
	case $kv in
	"" | *[[:space:]]*) echo "vmtest: $d/lib/modules: one kernel version expected, found: ${kv:-none}" >&2; return 1 ;;
	esac
	mkdir -p "$d/boot" || return 1
	for f in vmlinuz config System.map; do
		[ -e "$d/boot/$f-$kv" ] || [ ! -e "$d/lib/modules/$kv/$f" ] ||
			mv "$d/lib/modules/$kv/$f" "$d/boot/$f-$kv" || return 1
	done
}

# --- the kernel package, cached: build/vm/<pkg>/{boot,lib/modules}
if [ "$KPKG" = - ]; then
	KPKG=$(newest_pkg) && [ -n "$KPKG" ] ||
		fail "KERNEL=newest: no linux-image-* package named by unstable's linux-image-$DEBARCH (its lists from $MIRROR/debian sid: see above)"
	echo "vmtest: KERNEL=newest: unstable's linux-image-$DEBARCH depends on $KPKG"
fi
KDIR=$VMDIR/$KPKG
if [ ! -d "$KDIR/boot" ]; then
	kernel_suite ||
		fail "$KPKG is in none of Debian's ${KSUITE:-bookworm, bullseye and sid} suites at $MIRROR ($VM_ARCH; set KERNEL= or VM_KERNEL_PKG: docs/KERNELS.md)"
	echo "vmtest: fetching $KPKG (apt-get download from Debian's $KSUITE)"
	# unstable's image package is a metapackage: the kernel is in
	# linux-binary-*, the modules in linux-modules-*, their list of built-in
	# ones and the config in linux-base-*; Debian 11's and 12's hold all
	debs=$(apt-cache "${APTO[@]}" depends "$KPKG" 2>/dev/null |
		awk '$1 == "Depends:" && $2 ~ /^linux-(base|binary|modules)-/ { print $2 }' | paste -sd ' ')
	debs=${debs:-$KPKG}
	rm -rf "$VMDIR/dl" "$KDIR.tmp"
	mkdir -p "$VMDIR/dl" || fail "cannot create $VMDIR/dl"
	# shellcheck disable=SC2086 # package names, a word each
	( cd "$VMDIR/dl" && { apt-get -q "${APTO[@]}" download $debs >/dev/null 2>&1 ||
		{ apt_update; apt-get -q "${APTO[@]}" download $debs >/dev/null; }; } ) ||
		fail "apt-get download $debs failed (Debian's $KSUITE at $MIRROR)"
	for deb in "$VMDIR"/dl/*.deb; do
		dpkg -x "$deb" "$KDIR.tmp" || fail "dpkg -x $deb failed"
	done
	kernel_layout "$KDIR.tmp" || fail "cannot find the kernel in $debs"
	kv=$(ls "$KDIR.tmp/lib/modules")
	depmod -b "$KDIR.tmp" "$kv" || fail "depmod for $kv failed"
	cp "$VMDIR"/dl/*.deb "$KDIR.tmp/" && mv "$KDIR.tmp" "$KDIR" && rm -rf "$VMDIR/dl" || fail "cannot store $KDIR"
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
# the modules the 9p root and its overlay need (virtio_pci: the 9p shares
# are virtio PCI devices on both machines); init_modules adds what they need
INIT_MODULES="virtio_pci 9pnet_virtio 9p overlay"
MODDIR=$KDIR/lib/modules/$KVER
# init_modules: the path (under MODDIR) of each module /init loads, in
# load order, each once. depmod wrote modules.dep at the fetch: a module's
# line lists all it depends on, the one to load first last. Which there
# are differs: 6.1 has netfs and fscache, 5.10 no netfs nor
# virtio_pci_*_dev, 6.12 no fscache (in netfs) and its 9pnet needs netfs.
init_modules() {
	local m
	for m in $INIT_MODULES; do
		awk -v m="$m" '{ k = $1; sub(/:$/, "", k); n = k; sub(/.*\//, "", n); sub(/\.ko(\.[a-z]+)?$/, "", n) }
			n == m { for (i = NF; i > 1; i--) print $i; print k; exit }' "$MODDIR/modules.dep"
	done | awk '!seen[$0]++'
}
# unpack_module SRC DST: SRC as a plain .ko, whatever its compression
# (6.12's and unstable's are .ko.xz): decompressed here, so that /init's
# busybox insmod need not know xz or zstd
unpack_module() {
	case $1 in
	*.ko) cp "$1" "$2" ;;
	*.ko.xz) xz -dc "$1" >"$2" ;;
	*.ko.zst) zstd -qdc "$1" >"$2" ;;
	*.ko.gz) gzip -dc "$1" >"$2" ;;
	*) echo "vmtest: $1: not a module file (.ko, .ko.xz, .ko.zst, .ko.gz)" >&2; return 1 ;;
	esac
}
# (run.sh too: an initramfs from before modules/order must not be kept)
if [ ! -s "$INITRD" ] || [ "$ROOT/tools/vm/init" -nt "$INITRD" ] || [ "$BUSYBOX" -nt "$INITRD" ] ||
   [ "$ROOT/tools/vm/run.sh" -nt "$INITRD" ] || [ "$MODDIR/modules.dep" -nt "$INITRD" ]; then
	st=$(mktemp -d "$VMDIR/initrd.XXXXXX") || fail "mktemp"
	mkdir -p "$st/bin" "$st/modules" && : >"$st/modules/order"
	cp "$BUSYBOX" "$st/bin/busybox" && cp "$ROOT/tools/vm/init" "$st/init" && chmod 0755 "$st/init" ||
		fail "cannot stage the initramfs"
	# one built into the kernel (arm64's virtio, unstable's virtio_pci) is
	# left out: not in modules.dep, in modules.builtin
	for m in $INIT_MODULES; do
		grep -qE "/$m\.ko(\.[a-z]+)?:" "$MODDIR/modules.dep" ||
			grep -q "/$m\.ko\$" "$MODDIR/modules.builtin" ||
			fail "module $m is not in $KPKG ($KVER), nor built in (modules.dep, modules.builtin)"
	done
	# /init loads them in the order of modules/order
	for f in $(init_modules); do
		m=${f##*/}
		m=${m%%.ko*}
		unpack_module "$MODDIR/$f" "$st/modules/$m.ko" && echo "$m" >>"$st/modules/order" ||
			fail "cannot stage $f into the initramfs"
	done
	( cd "$st" && find . | busybox cpio -o -H newc 2>/dev/null | gzip -1 >"$INITRD.tmp" ) &&
		mv "$INITRD.tmp" "$INITRD" || fail "cannot build $INITRD"
	echo "vmtest: initramfs for $KVER: $(paste -sd ' ' "$st/modules/order" 2>/dev/null)"
	rm -rf "$st"
fi

# --- the BPF objects against this kernel's types: the committed vmlinux.h
# is 6.18's, so a field 6.1 lacks breaks only the build for 6.1, which no
# other test does. The BTF comes from the first boot that gets that far.
BTFDIR=$KDIR/btf
want_btf=
bmake() { MAKEFLAGS='' MAKELEVEL='' make -C "$ROOT" -s --no-print-directory -j"$(nproc)" ARCH="$VM_ARCH" "$@"; }
# core_check: make bpf-objs against a vmlinux.h dumped from $BTFDIR/vmlinux;
# CORE_WHY says which kernel and what failed, for the closing line
CORE_WHY=
core_check() {
	local out=$BTFDIR/check.log t names
	t=$(date +%s)
	if ! [ "$BTFDIR/vmlinux.h" -nt "$BTFDIR/vmlinux" ] &&
	   ! bmake VMLINUX_BTF="$BTFDIR/vmlinux" VMLINUX_H="$BTFDIR/vmlinux.h" vmlinux >"$out" 2>&1; then
		cat "$out" >&2
		rm -f "$BTFDIR/vmlinux" "$BTFDIR/vmlinux.h"
		CORE_WHY="no vmlinux.h from $KVER's BTF"
		echo "vmtest: FAILED: $CORE_WHY (dropped; the next boot brings it again)" >&2
		return 1
	fi
	# -B: compiled every run, whatever make thinks is up to date
	if ! bmake -B BUILD="$BTFDIR/build" VMLINUX_H="$BTFDIR/vmlinux.h" bpf-objs >"$out" 2>&1; then
		# clang's error lines; its macro-expansion notes stay in the log
		grep -E 'error' "$out" >&2 || cat "$out" >&2
		# what this kernel lacks, once each: clang's messages without file and line
		names=$(sed -n 's/.*error: //p' "$out" | sort -u | paste -sd '|' | sed 's/|/; /g')
		CORE_WHY="the BPF objects do not compile against $KVER's types ($VM_ARCH, $KPKG): ${names:-see $out}"
		echo "vmtest: FAILED: $CORE_WHY" >&2
		echo "vmtest: (make bpf-objs VMLINUX_H=$BTFDIR/vmlinux.h; all of clang's output: $out):" \
			"name what differs in bpf/core_fixes.bpf.h" >&2
		return 1
	fi
	echo "vmtest: the BPF objects compile against $KVER's types ($(( $(date +%s) - t )) s)"
}
core_failed=
if [ -n "${VM_BTF_ONLY:-}" ]; then
	want_btf=1
elif [ -s "$BTFDIR/vmlinux" ]; then
	# seconds: fail here rather than after the suite's ten minutes. A run of
	# VM_CMD (debugging) or of the smoke part boots all the same and fails
	# at the end: a kernel whose types the objects lack is one to look at
	if ! core_check; then
		[ -n "${VM_CMD:-}" ] || [ "${VM_SMOKE:-}" = 1 ] || { closing 0 1 "$CORE_WHY"; exit 1; }
		core_failed=1
		echo "vmtest: booting all the same (VM_CMD or VM_SMOKE): the run fails for the compile check at its end"
	fi
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

# TCG's threads: one per vCPU (multi), or one for all (single). An x86
# kernel patches live code with int3 (text_poke_bp: every fentry/fexit
# attach and detach, static keys), and multi-threaded TCG on this host's
# qemu (7.2) can go on running the int3 from a stale translation after
# the patch: the vCPU loops in the int3 handler. In the 6.1 guest, the
# tools attached and detached in a loop beside bulk iperf3 flows
# (2026-12-06): both vCPUs stuck at tcp_wfree+0 in asm_exc_int3, the
# bytes there already the nop, within 35 and 110 s, twice; single: 10
# rounds, none. CI's lockup that day, the panic of 2026-12-04, and 6.12's
# int3 panic were it. arm64 patches one instruction at a time, with no
# int3 dance: its guests keep multi.
[ "$VM_ARCH" = x86 ] && VM_TCG_THREAD=${VM_TCG_THREAD:-single}
VM_TCG_THREAD=${VM_TCG_THREAD:-multi}
echo "vmtest: $KPKG ($KVER), $QEMU $VM_ACCEL$([ "$VM_ACCEL" = tcg ] && echo " ($VM_TCG_THREAD-threaded)"), 2 vCPUs, ${VM_MEM} MiB, timeout ${VM_TIMEOUT} s"
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
	tcg) accel=(-accel "tcg,thread=$VM_TCG_THREAD" -cpu max) ;;
	*) fail "VM_ACCEL=$a: kvm or tcg" ;;
	esac
	: >"$log"
	# softlockup_panic=0: under TCG a vCPU the host did not run for 20 s
	# looks to the guest like a CPU stuck in the kernel; a lockup that
	# lasts VM_LOCKUP_S stops the run (locked_up); an Oops still panics
	# (oops=panic). CI's guest panic of 2026-12-04 (a TCP send in the
	# tcpstall tests) was most likely the stale int3 above.
	# ip netns exec execs timeout(1): $QPID stays the process to stop
	"${nsexec[@]}" timeout -k 15 "$VM_TIMEOUT" "$QEMU" "${MACHINE[@]}" "${accel[@]}" -smp 2 -m "$VM_MEM" \
		-nodefaults -no-user-config -display none -monitor none -serial "file:$log" -no-reboot \
		-kernel "$VMLINUZ" -initrd "$INITRD" \
		-append "console=$CONSOLE rdinit=/init panic=-1 oops=panic softlockup_panic=0 softlockup_all_cpu_backtrace=1 loglevel=${VM_LOGLEVEL:-4} mitigations=off${CROSS:+ nm.project=$ROOT}" \
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
	# a guest kernel locked up for VM_LOCKUP_S never comes back: stopped
	# then, not at VM_TIMEOUT (CI, 2026-12-06: both vCPUs stuck from 236 s
	# of uptime, the run stopped 1,570 s later)
	while kill -0 "$QPID" 2>/dev/null && ! locked_up; do
		sleep 5
	done
	if locked_up; then
		kill "$QPID" 2>/dev/null
		wait "$QPID" 2>/dev/null
		qrc=lockup
	else
		wait "$QPID"
		qrc=$?
	fi
	wait "$tpid" 2>/dev/null
	QPID=
	return 0
}
# locked_up: the console has a soft lockup report of VM_LOCKUP_S or more.
# Under TCG a vCPU the host did not run for a while is reported too, at
# 20-odd seconds (softlockup_panic=0 below); a CPU stuck for minutes of
# guest time is stuck.
locked_up() {
	awk -v lim="${VM_LOCKUP_S:-120}" 'match($0, /soft lockup - CPU#[0-9]+ stuck for [0-9]+s/) {
		n = substr($0, RSTART, RLENGTH); sub(/.* for /, "", n); if (n + 0 >= lim) f = 1 }
		END { exit !f }' "$log"
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
elif [ "$qrc" = lockup ]; then
	# the report and every CPU's stack (softlockup_all_cpu_backtrace)
	awk '/BUG: soft lockup/ { on = 1 } on && n++ < 120' "$log" >&2
	why="guest kernel lockup: $(grep 'BUG: soft lockup' "$log" | tail -1 | sed 's/^\[ *[0-9.]*\] //' | cut -c1-100)"
	why+=" (stopped at VM_LOCKUP_S=${VM_LOCKUP_S:-120} s of it); after the test line: $(grep -E '^(ok|not ok) [0-9]+ ' "$log" | tail -1 | cut -c1-100)"
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
	core_check || core_failed=1
	flock -u 9
elif [ -n "$want_btf" ]; then
	echo "vmtest: the guest brought no BTF back: no compile check against $KVER's types in this run" >&2
fi
if [ -n "$core_failed" ]; then
	rc=1 failed=$((failed + 1)) why=${why:+$why; }$CORE_WHY
fi
# each CLI's ladder as this kernel chose it (suite.sh), kept by kernel for
# docs/KERNELS.md's matrix (make kernels-doc)
if [ -s "$XFER/out/hooks.jsonl" ]; then
	mkdir -p "$VMDIR/hooks" && cp "$XFER/out/hooks.jsonl" "$VMDIR/hooks/$VM_ARCH-$KVER.jsonl" ||
		echo "vmtest: cannot keep the guest's --list-hooks in $VMDIR/hooks" >&2
fi
if [ -n "${VM_OUT:-}" ]; then
	mkdir -p "$VM_OUT" && cp -r "$XFER/out/." "$VM_OUT/" || fail "cannot copy the guest's /vmxfer/out to $VM_OUT"
fi
[ "$rc" = 0 ] || [ "$failed" -gt 0 ] || failed=1
closing "$pass" "$failed" "$why"
exit "$rc"
}
main "$@"
