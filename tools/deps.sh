#!/bin/sh
# Installs the Debian packages listed in tools/deps.txt that are missing.
# Runs apt-get only when something is missing, so `make test` stays quick.
# deps.sh ARCH (make deps ARCH=arm64): tools/deps-ARCH.txt too, the cross
# toolchain, ARCH's libraries and its qemu, after adding ARCH to dpkg's.
# deps.sh --deb [ARCH] (make deb): only what building the package takes,
# the lines of deps.txt marked "deb" (and ARCH's list, all of it build
# packages but its qemu), not the test, lab, VM and bench packages.
set -eu
cd "$(dirname "$0")"
# --list: print the packages, install nothing
only= list=
while [ $# -gt 0 ]; do
	case $1 in
	--deb) only=deb ;;
	--list) list=1 ;;
	*) break ;;
	esac
	shift
done
arch=${1:-}
# a line is a package, then the roles it is marked with
pkgs=$(grep -v "^#" deps.txt | awk -v only="$only" 'NF && (only == "" || $2 == only) { print $1 }')
if [ -n "$arch" ]; then
	# ARCH's cross toolchain and libraries, and its qemu (not for a package)
	more=$(grep -v "^#" "deps-$arch.txt" | awk 'NF { print $1 }')
	[ -z "$only" ] || more=$(printf '%s\n' "$more" | grep -v '^qemu-')
	pkgs="$pkgs $more"
fi
if [ -n "$list" ]; then
	printf '%s\n' $pkgs
	exit 0
fi
missing=""
for p in $pkgs; do
	dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'install ok installed' ||
		missing="$missing $p"
done
[ -z "$missing" ] && exit 0
if [ "$(id -u)" != 0 ]; then
	echo "deps: missing packages:$missing (run 'make deps${arch:+ ARCH=$arch}' as root)" >&2
	exit 1
fi
export DEBIAN_FRONTEND=noninteractive
if [ -n "$arch" ] && ! dpkg --print-foreign-architectures | grep -qx "$arch"; then
	echo "deps: dpkg --add-architecture $arch"
	dpkg --add-architecture "$arch"
fi
apt-get update -qq
if [ -n "$arch" ]; then
	# ARCH's -dev packages must be of the same versions as the host's
	# (Multi-Arch: same): apt may upgrade host packages for that, but
	# must remove none of them
	removed=$(apt-get install -s --no-install-recommends $missing | sed -n 's/^Remv \([^ ]*\).*/\1/p')
	if [ -n "$removed" ]; then
		echo "deps: installing$missing would remove these: $removed; not done; see apt-get install -s" >&2
		exit 1
	fi
fi
echo "deps: installing$missing"
apt-get install -y -qq --no-install-recommends $missing >/dev/null
