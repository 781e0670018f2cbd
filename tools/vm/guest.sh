#!/bin/bash
# netmedic vmtest, stage 2: PID 1 inside the guest, on the overlay of the
# host's root. Mounts what the CLIs and the lab need, prints the rungs each
# CLI gets on this kernel, runs the integration suite once per hook mode
# (tools/vm/suite.sh says which files and tests), writes the exit code to
# the exchange share and powers the guest off.
set -u
X=/vmxfer
rc=1
finish() {
	echo "$rc" >"$X/rc.tmp" && mv "$X/rc.tmp" "$X/rc"
	sync
	echo o >/proc/sysrq-trigger
	sleep 30
}
trap finish EXIT
say() { echo "vmtest-guest: $*"; }

mount -t proc proc /proc
mount -t sysfs sys /sys
mount -t devtmpfs dev /dev
exec </dev/null >/dev/console 2>&1
mkdir -p /dev/pts /dev/shm
mount -t devpts -o gid=5,mode=620,ptmxmode=000 devpts /dev/pts
mount -t tmpfs -o mode=1777 shm /dev/shm
ln -sfn /proc/self/fd /dev/fd
ln -sfn /proc/self/fd/0 /dev/stdin
ln -sfn /proc/self/fd/1 /dev/stdout
ln -sfn /proc/self/fd/2 /dev/stderr
# fresh /run and /tmp: the host's (its /run/netmedic journals, its netns
# files) must not leak into the guest
mount -t tmpfs -o mode=0755 run /run
mount -t tmpfs -o mode=1777 tmp /tmp
mount -t bpf bpf /sys/fs/bpf
mount -t cgroup2 cgroup2 /sys/fs/cgroup
# shellcheck source=/dev/null
. "$X/env"
# the guest kernel's modules (veth, bridge, sch_*, cls_bpf...), loaded on demand
# A host with this kernel's headers installed (linux-headers-<kver>) has a
# real /lib/modules/<kver> holding their build link: ln -sfn would link
# inside it, and modprobe would find no modules. The root is an overlay on a
# read-only share, so removing it here leaves the host untouched.
mkdir -p /lib/modules
vm_mods=/lib/modules/$(uname -r)
[ -L "$vm_mods" ] || rm -rf "$vm_mods"
ln -sfn "$VM_MODULES" "$vm_mods"
# Debian's 6.1 has no /proc/config.gz (IKCONFIG is off): on a Debian install
# libbpf reads __kconfig externs from /boot/config-$(uname -r); put it there
mkdir -p /boot
ln -sfn "$VM_KCONFIG" "/boot/config-$(uname -r)"
hostname vmtest 2>/dev/null
ip link set lo up
export PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin HOME=/root TERM=dumb
cd "$VM_ROOT" || exit 1
say "up after $(cut -d' ' -f1 /proc/uptime) s: kernel $(uname -r), $(nproc) CPUs, accel $VM_ACCEL"
[ -r /sys/kernel/btf/vmlinux ] || { say "FATAL: no /sys/kernel/btf/vmlinux"; exit 1; }
# the host keeps this kernel's types, to compile the BPF objects against them
if [ -n "${VM_WANT_BTF:-}" ]; then
	cp /sys/kernel/btf/vmlinux "$X/btf.tmp" && mv "$X/btf.tmp" "$X/btf" || say "cannot copy the BTF out"
fi
if [ -n "${VM_CMD:-}" ]; then
	# debugging: VM_CMD='...' tools/vm/run.sh runs that instead of the suite
	say "VM_CMD: $VM_CMD"
	bash -c "$VM_CMD"
	rc=$?
else
	# shellcheck source=suite.sh
	. "$VM_ROOT/tools/vm/suite.sh"
	vm_suite
	rc=$?
fi
