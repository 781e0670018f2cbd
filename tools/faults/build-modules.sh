#!/usr/bin/env bash
# Builds the fault-injection modules (tools/faults/modules/*.c, one module
# a file) for the vmtest guest's kernel, against Debian's headers package of
# that kernel: fetched with apt-get download and unpacked under build/vm/
# (dpkg -x, as tools/vm/run.sh does the image), so the host's /lib/modules
# and /usr/src stay untouched. Only the guest loads them; the host kernel
# loads none.
# Usage: build-modules.sh KVER OUTDIR   (NETMEDIC_BUILD: the build directory;
# VM_ARCH=arm64: cross-built, with the kbuild tools of the host's architecture)
set -euo pipefail
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
KVER=$1 OUT=$2
: "${NETMEDIC_BUILD:?set NETMEDIC_BUILD}"
VMDIR=$NETMEDIC_BUILD/vm
HPKG=linux-headers-$KVER
HDIR=$VMDIR/$HPKG
fail() { echo "faults: FAILED: $*" >&2; exit 1; }

# the kernel's suite, as tools/vm/run.sh fetched its image: apt on a
# private state per suite (tools/vm/debian.sh), the host's apt untouched
VM_ARCH=${VM_ARCH:-x86}
DEBARCH=amd64
[ "$VM_ARCH" = arm64 ] && DEBARCH=arm64
# shellcheck source=../vm/debian.sh
. "$ROOT/tools/vm/debian.sh"
headers_suite() {
	local s
	for s in bookworm bullseye; do
		apt_use "$s" || return 1
		if apt_has "$HPKG" || { apt_update; apt_has "$HPKG"; }; then
			suite=$s
			return 0
		fi
	done
	return 1
}

if [ ! -r "$HDIR/.ready" ]; then
	echo "faults: fetching $HPKG and what it needs (apt-get download)"
	rm -rf "$HDIR" "$VMDIR/hdl"
	mkdir -p "$VMDIR/hdl" && chmod 0777 "$VMDIR/hdl"
	headers_suite || fail "no package $HPKG in Debian 12 or 11 (the kernel's headers)"
	# the -common part and the kbuild tools of the same source version
	ver=$(apt-cache "${APTO[@]}" show "$HPKG" 2>/dev/null | sed -n 's/^Version: //p' | head -1)
	[ -n "$ver" ] || fail "no version of $HPKG"
	deps=$(apt-cache "${APTO[@]}" show "$HPKG=$ver" | sed -n 's/^Depends: //p' | head -1 | tr ',' '\n')
	common=$(sed -n 's/^ *\(linux-headers-[^ ]*-common\).*/\1/p' <<<"$deps")
	kbuild=$(sed -n 's/^ *\(linux-kbuild-[^ ]*\).*/\1/p' <<<"$deps")
	[ -n "$common" ] && [ -n "$kbuild" ] || fail "cannot read the -common and kbuild packages $HPKG depends on"
	( cd "$VMDIR/hdl" && apt-get download -q "${APTO[@]}" "$HPKG=$ver" "$common=$ver" >/dev/null 2>&1 ) ||
		fail "apt-get download $HPKG $common failed"
	# kbuild's tools (fixdep, modpost) run here: the host's architecture
	if [ "$DEBARCH" != amd64 ]; then
		DEBARCH=amd64
		apt_use "$suite" && { apt_has "$kbuild=$ver" || apt_update; } ||
			fail "no amd64 apt state for $suite"
	fi
	( cd "$VMDIR/hdl" && apt-get download -q "${APTO[@]}" "$kbuild=$ver" >/dev/null 2>&1 ) ||
		fail "apt-get download $kbuild failed"
	mkdir -p "$HDIR"
	for d in "$VMDIR"/hdl/*.deb; do dpkg -x "$d" "$HDIR" || fail "dpkg -x $d failed"; done
	# its Makefile includes the -common tree by an absolute /usr/src path
	mk=$HDIR/usr/src/$HPKG/Makefile
	[ -r "$mk" ] || fail "no $mk in $HPKG"
	sed -i "s|^include /usr/src/|include $HDIR/usr/src/|" "$mk"
	rm -rf "$VMDIR/hdl"
	touch "$HDIR/.ready"
fi

# the kernel's own compiler: its Makefile names gcc-<major> (Debian 12:
# gcc-12; Debian 11's 5.10: gcc-10, which Debian 12 does not have: then
# the host's gcc, said, as these modules use nothing a compiler changes)
cc=$(sed -n 's/^CC = .*\(gcc-[0-9]*\).*/\1/p' "$HDIR/usr/src/$HPKG/.kernelvariables" 2>/dev/null | head -1)
ccopt=()
if [ -n "$cc" ] && ! command -v "$cc" >/dev/null; then
	command -v gcc >/dev/null || fail "$HPKG is built with $cc, which is not installed, and there is no gcc"
	echo "faults: $HPKG is built with $cc, not installed here: the modules are built with $(gcc -dumpfullversion 2>/dev/null || echo gcc)"
	ccopt=(CC=gcc)
fi
rm -rf "$OUT/src" "$OUT"/*.ko
mkdir -p "$OUT/src"
cp "$ROOT"/tools/faults/modules/*.c "$OUT/src/"
# nm_qdisc_inject skips a function from a kprobe the x86 way (regs->ip,
# the return address at regs->sp): x86 only, and so are the qdisc parts
[ "$VM_ARCH" = x86 ] || rm -f "$OUT/src/nm_qdisc_inject.c"
: >"$OUT/src/Kbuild"
for f in "$OUT"/src/*.c; do
	echo "obj-m += $(basename "${f%.c}").o" >>"$OUT/src/Kbuild"
done
# arm64: the cross compiler (gcc-aarch64-linux-gnu, make deps ARCH=arm64)
if [ "$VM_ARCH" = arm64 ]; then
	command -v aarch64-linux-gnu-gcc >/dev/null || fail "no aarch64-linux-gnu-gcc (make deps ARCH=arm64)"
	ccopt=(ARCH=arm64 CROSS_COMPILE=aarch64-linux-gnu- CC=aarch64-linux-gnu-gcc)
fi
make -s -C "$HDIR/usr/src/$HPKG" M="$OUT/src" "${ccopt[@]}" modules >"$OUT/build.log" 2>&1 ||
	{ cat "$OUT/build.log" >&2; fail "the fault modules do not build against $HPKG (log: $OUT/build.log)"; }
cp "$OUT"/src/*.ko "$OUT/"
echo "faults: modules for $KVER: $(cd "$OUT" && ls ./*.ko | xargs -n1 basename | tr '\n' ' ')"
