#!/usr/bin/env bash
# userland.sh ARCH DIR: prints the path of a root filesystem for a guest of
# ARCH (Debian 12 packages of tools/vm/userland-ARCH.txt and everything
# they depend on, unpacked with dpkg -x), built under DIR when missing.
# The root is cached as DIR/root-<key>, the key a hash of the package list
# and of this script: a changed list builds a new root, the old ones go.
# No maintainer script runs (they are ARCH's binaries): what they would
# have made that the guest needs (passwd, group) is written here.
set -u
ARCH=$1 DIR=$2
HERE=$(cd "$(dirname "$0")" && pwd)
LIST=$HERE/userland-$ARCH.txt
die() { echo "userland: $*" >&2; exit 1; }
[ -r "$LIST" ] || die "no $LIST"
key=$(cat "$LIST" "$0" | sha256sum | cut -c1-12)
root=$DIR/root-$key
[ -e "$root/.done" ] && { echo "$root"; exit 0; }

pkgs=$(grep -v '^#' "$LIST" | grep .)
# apt as if on an ARCH machine with nothing installed: the closure of
# Depends and Pre-Depends (no Recommends) of the list, each package once
opts=(-o Dir::State::status=/dev/null -o APT::Architecture="$ARCH" -o APT::Architectures::="$ARCH")
t0=$(date +%s)
all=$(apt-get -s "${opts[@]}" install --no-install-recommends $pkgs 2>&1) ||
	die "apt-get cannot resolve $LIST for $ARCH (dpkg --add-architecture $ARCH; apt-get update; make deps ARCH=$ARCH):
$all"
all=$(echo "$all" | awk '$1 == "Inst" { print $2 }')
[ -n "$all" ] || die "apt-get resolved $LIST to nothing"
dl=$DIR/dl.$$
rm -rf "$dl" "$root.tmp"
mkdir -p "$dl" "$root.tmp" && chmod 0777 "$dl" || die "cannot create $dl"
trap 'rm -rf "$dl" "$root.tmp"' EXIT
# _apt downloads: the directory is writable for it (chmod above)
( cd "$dl" && apt-get -q "${opts[@]}" download $all >/dev/null ) ||
	die "apt-get download failed for $ARCH (apt-get update?)"
n=0
for deb in "$dl"/*.deb; do
	dpkg -x "$deb" "$root.tmp" || die "dpkg -x $deb failed"
	n=$((n + 1))
done
# the alternatives the postinsts would make that scripts call (awk: the
# lab and the tests; which)
ln -sfn gawk "$root.tmp/usr/bin/awk" && ln -sfn which.debianutils "$root.tmp/usr/bin/which" ||
	die "cannot link awk, which"
# what base-passwd's postinst would copy; nobody for the tests' unprivileged runs
mkdir -p "$root.tmp/etc" "$root.tmp/root" "$root.tmp/tmp" "$root.tmp/run" \
	"$root.tmp/proc" "$root.tmp/sys" "$root.tmp/dev" "$root.tmp/vmxfer" || die "mkdir"
printf '%s\n' 'root:x:0:0:root:/root:/bin/bash' 'nobody:x:65534:65534:nobody:/nonexistent:/usr/sbin/nologin' \
	>"$root.tmp/etc/passwd"
printf '%s\n' 'root:x:0:' 'nogroup:x:65534:' >"$root.tmp/etc/group"
echo "$all" >"$root.tmp/.packages"
touch "$root.tmp/.done"
for old in "$DIR"/root-*; do
	[ "$old" = "$root.tmp" ] || rm -rf "$old"
done
mv "$root.tmp" "$root" || die "cannot store $root"
echo "userland: $ARCH root of $n packages in $(( $(date +%s) - t0 )) s: $root" >&2
echo "$root"
