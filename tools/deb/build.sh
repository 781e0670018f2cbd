#!/usr/bin/env bash
# make deb: netmedic_VERSION_ARCH.deb in DEB_DIR. The CLIs are built in
# DEB_BUILD with Debian's flags (dpkg-buildflags, hardening=+all), staged by
# make install (PREFIX=/usr, units in /lib/systemd/system as Debian 12's
# packages have them), stripped; the man pages and the changelog gzipped
# (gzip -9n); Depends from dpkg-shlibdeps; the control file, Installed-Size
# included, from dpkg-gencontrol; the archive from dpkg-deb, owned by root
# whoever builds it. Then lintian, whose exit status is make deb's: the tags
# left are in tools/deb/lintian-overrides, each with its reason; any other
# tag, info and pedantic ones too, fails make deb.
# SOURCE_DATE_EPOCH (else the last commit's date) dates the changelog, the
# man pages and the archive's files.
set -eu
cd "$(dirname "$0")/../.."
: "${VERSION:?}" "${DEB_BUILD:?}" "${DEB_DIR:?}"
DEB_MAINTAINER=${DEB_MAINTAINER:-netmedic developers <dev@netmedic.invalid>}
if [ -z "${SOURCE_DATE_EPOCH:-}" ]; then
	SOURCE_DATE_EPOCH=$(git log -1 --format=%ct 2>/dev/null) || SOURCE_DATE_EPOCH=$(date +%s)
fi
export SOURCE_DATE_EPOCH
# shellcheck source=SCRIPTDIR/../tools.sh
. tools/tools.sh
units=$(for t in $(nm_programs); do printf '%s.service ' "$t"; done)

mkdir -p "$DEB_BUILD" "$DEB_DIR"
DEB_BUILD=$(cd "$DEB_BUILD" && pwd)
DEB_DIR=$(cd "$DEB_DIR" && pwd)
root=$DEB_BUILD/root
src=$DEB_BUILD/src
rm -rf "$root" "$src"
mkdir -p "$src/debian"

# the CLIs, as Debian builds C: make's own flags are appended to these
# (the environment's CFLAGS are make's "CFLAGS ?=")
eval "$(DEB_BUILD_MAINT_OPTIONS=hardening=+all dpkg-buildflags --export=sh)"
CFLAGS="$CFLAGS $CPPFLAGS" make --no-print-directory -s BUILD="$DEB_BUILD" SANITIZE= all
CFLAGS="$CFLAGS $CPPFLAGS" make --no-print-directory -s BUILD="$DEB_BUILD" SANITIZE= \
	DESTDIR="$root" PREFIX=/usr SYSTEMDUNITDIR=/lib/systemd/system install >/dev/null
for t in $(nm_programs); do
	strip --remove-section=.comment --remove-section=.note "$root/usr/sbin/$t"
done
gzip -9n "$root"/usr/share/man/man8/*.8

# make install put the docs the man pages name in /usr/share/doc/netmedic
# (the reference, the design, the fleet and kernel pages, as Markdown, not
# gzipped: the pages name them so, and their links point at each other)
# and the Prometheus rules, their tests and the dashboard in
# /usr/share/netmedic/prometheus; the package adds its own docs
doc=$root/usr/share/doc/netmedic
install -d "$root/usr/share/lintian/overrides"
tools/deb/readme.sh >"$DEB_BUILD/README.Debian"
install -m 0644 "$DEB_BUILD/README.Debian" tools/deb/copyright "$doc/"
install -m 0644 tools/deb/lintian-overrides "$root/usr/share/lintian/overrides/netmedic"

# a native package's changelog: this version, dated SOURCE_DATE_EPOCH
{
	printf 'netmedic (%s) unstable; urgency=medium\n\n' "$VERSION"
	printf '  * Release %s; the changes are in the git history.\n\n' "$VERSION"
	printf ' -- %s  %s\n' "$DEB_MAINTAINER" "$(date -u -R -d "@$SOURCE_DATE_EPOCH")"
} >"$src/debian/changelog"
install -m 0644 "$src/debian/changelog" "$doc/changelog"
gzip -9n "$doc/changelog"
sed "s|@MAINTAINER@|$DEB_MAINTAINER|" tools/deb/control >"$src/debian/control"

install -d -m 0755 "$root/DEBIAN"
for s in prerm postrm; do
	sed -e "s|@UNITS@|$units|" -e "s|@PROGRAMS@|$(nm_programs | paste -sd ' ')|" "tools/deb/$s" >"$root/DEBIAN/$s"
	chmod 0755 "$root/DEBIAN/$s"
done
(cd "$root" && find . -path ./DEBIAN -prune -o -type f -printf '%P\0' | LC_ALL=C sort -z |
	xargs -0 md5sum) >"$root/DEBIAN/md5sums"
chmod 0644 "$root/DEBIAN/md5sums"

# Depends from the libraries the CLIs link; control from debian/control
bins=()
for t in $(nm_programs); do bins+=("$root/usr/sbin/$t"); done
(cd "$src" && dpkg-shlibdeps -Tdebian/substvars "${bins[@]}" &&
	dpkg-gencontrol -pnetmedic -P"$root" -Tdebian/substvars -fdebian/files)
find "$root" -exec touch -h -d "@$SOURCE_DATE_EPOCH" {} +

arch=$(dpkg --print-architecture)
deb=$DEB_DIR/netmedic_${VERSION}_$arch.deb
dpkg-deb --root-owner-group -Zxz --build "$root" "$deb" >/dev/null
echo "deb: $deb"
# its scratch files (mldbm-elf-*) stay in DEB_BUILD, not in /tmp
mkdir -p "$DEB_BUILD/tmp"
TMPDIR=$DEB_BUILD/tmp lintian --pedantic --display-info --fail-on error,warning,info,pedantic "$deb"
echo "deb: lintian: clean but for the overrides (tools/deb/lintian-overrides)"
