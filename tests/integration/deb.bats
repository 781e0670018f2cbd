#!/usr/bin/env bats
# make deb's package (tools/deb), end to end on this host: built from
# scratch in a directory of its own, lintian clean but for the overrides it
# explains, installed by apt without the network, its CLIs and man pages
# found, its units present and not enabled, nothing created beside its own
# files; then purged, and every path it created is gone.
# It installs a package: root (tag root, not in the pass as nobody), and
# once (tag deb: the first integration pass only, tests/run-all.sh; the
# package builds its own CLIs, whatever NETMEDIC_BUILD is). Not run in the
# 6.1 guest (tools/vm/suite.sh takes the tools' NAME.bats files only).
# A netmedic package installed before the test is someone's: the file fails
# and leaves it alone.

# bats file_tags=root,deb,plain
load helpers

# apt never reaches the network: no sources (every Depends is installed by
# make deps; --no-download cannot install a local .deb); it waits for a
# lock another apt holds
APT_OPTS=(-y -q --no-install-recommends -o Dir::Etc::SourceList=/dev/null
	-o Dir::Etc::SourceParts=/nonexistent -o APT::Sandbox::User=root -o DPkg::Lock::Timeout=300)
UNITS=$(nm_programs | sed "s/$/.service/")
export DEBIAN_FRONTEND=noninteractive

# the package's state in dpkg's database: installed, config-files, ... or
# nothing when dpkg does not know it
pkg_state() {
	dpkg-query -W -f='${db:Status-Status}' netmedic 2>/dev/null
}

setup_file() {
	DEB_TMP=$(mktemp -d)
	export DEB_TMP
	local s
	s=$(pkg_state) || true
	if [ -n "$s" ] && [ "$s" != not-installed ]; then
		echo "deb.bats: a netmedic package is on this host already (dpkg: $s)." >&2
		echo "deb.bats: it is not the test's to replace or purge; remove it (apt-get purge netmedic) and run again." >&2
		touch "$DEB_TMP/foreign"
		return 1
	fi
	# from scratch, in a directory of its own: nothing of build/ is used
	mkdir "$DEB_TMP/out"
	make -C "$ROOT" --no-print-directory deb DEB_BUILD="$DEB_TMP/build" DEB_DIR="$DEB_TMP/out" \
		>"$DEB_TMP/make.log" 2>&1
	echo $? >"$DEB_TMP/make.rc"
}

teardown_file() {
	# purge only what this file installed
	if [ -e "$DEB_TMP/installed" ] && [ ! -e "$DEB_TMP/foreign" ] && [ -n "$(pkg_state)" ] &&
		[ "$(pkg_state)" != not-installed ]; then
		apt-get purge "${APT_OPTS[@]}" netmedic >/dev/null 2>&1
	fi
	rm -rf "$DEB_TMP"
}

# unit_traces: what enabling or starting a unit of the package leaves: the
# runtime directory, wants/ links, deb-systemd-helper's enable state
unit_traces() {
	local u
	{
		ls -d /run/netmedic-unit /var/lib/systemd/deb-systemd-helper-enabled/*netmedic*
		for u in $UNITS; do ls -d /etc/systemd/system/*.wants/"$u"; done
	} 2>/dev/null || true
}

deb_file() {
	ls "$DEB_TMP"/out/netmedic_*.deb
}

@test "deb: make deb builds the package; lintian --pedantic reports no tag but the explained overrides" {
	cat "$DEB_TMP/make.log"
	assert_equal "$(cat "$DEB_TMP/make.rc")" 0
	run deb_file
	assert_success
	assert_output --regexp "/netmedic_[0-9][0-9.]*_$(dpkg --print-architecture)\.deb$"
	TMPDIR=$DEB_TMP run lintian --pedantic --display-info --fail-on error,warning,info,pedantic "$(deb_file)"
	echo "$output"
	assert_success
	run grep -E '^[EWIPX]: ' <<<"$output"
	assert_failure
	# the tags overridden, each in tools/deb/lintian-overrides with its
	# comment (lintian's status counts them with --show-overrides)
	TMPDIR=$DEB_TMP run lintian --pedantic --display-info --show-overrides "$(deb_file)"
	echo "$output"
	grep -q '^O: ' <<<"$output"
	while read -r tag; do
		grep -q "^$tag " "$ROOT/tools/deb/lintian-overrides"
		grep -B1 "^$tag " "$ROOT/tools/deb/lintian-overrides" | head -1 | grep -q '^#'
	done < <(sed -n 's/^O: netmedic: \([^ ]*\).*/\1/p' <<<"$output" | sort -u)
}

# #37: make deb installed all the packages of make deps, qemu, wrk,
# bpftrace and prometheus among them. It takes the build packages only.
@test "deb: make deb installs the build packages only, not the test, lab, VM or bench ones" {
	local p
	run "$ROOT/tools/deps.sh" --deb --list
	assert_success
	for p in make clang libbpf-dev bpftool libmnl-dev lowdown dpkg-dev lintian; do
		assert_line "$p"
	done
	for p in bats libcmocka-dev iperf3 prometheus wrk qemu-system-x86 bpftrace gnuplot-nox; do
		refute_line "$p"
	done
	# what make deb runs first: that list, not make deps'
	run make -C "$ROOT" -n --no-print-directory deb
	assert_success
	assert_line --regexp '^tools/deps.sh --deb *$'
	refute_line --regexp '^tools/deps.sh *$'
}

@test "deb: Depends names the package of every library the CLIs link, version from the Makefile" {
	local deb depends lib pkg t
	deb=$(deb_file)
	depends=$(dpkg-deb -f "$deb" Depends)
	echo "Depends: $depends"
	dpkg-deb -x "$deb" "$DEB_TMP/x"
	for t in $(nm_programs); do
		for lib in $(readelf -d "$DEB_TMP/x/usr/sbin/$t" | sed -n 's/.*(NEEDED).*\[\(.*\)\]/\1/p'); do
			pkg=$(dpkg -S "*/$lib" 2>/dev/null | sed -n '1s/:.*//p')
			[ -n "$pkg" ] || { echo "$t: no package holds $lib"; false; }
			[[ ", $depends," == *", ${pkg%%:*} ("* ]] || { echo "$t: $lib ($pkg) not in Depends"; false; }
		done
	done
	# shellcheck disable=SC2016 # $(VERSION) is make's
	assert_equal "$(dpkg-deb -f "$deb" Version)" "$(make -C "$ROOT" -s --no-print-directory -f Makefile \
		-f - print-version <<<'print-version: ; @echo $(VERSION)')"
}

@test "deb: apt installs it offline; CLIs, man pages and units are there, the units not enabled" {
	local deb t u before
	deb=$(deb_file)
	# which of the package's paths exist before it: the rest are its own
	dpkg-deb -c "$deb" | awk '{ print $6 }' | sed -e 's|^\./|/|' -e 's|/$||' | grep . |
		while read -r p; do [ -e "$p" ] || [ -L "$p" ] || echo "$p"; done >"$DEB_TMP/own"
	grep -qx /usr/sbin/tcpstall "$DEB_TMP/own"
	before=$(unit_traces)
	touch "$DEB_TMP/installed"
	run apt-get install "${APT_OPTS[@]}" "$deb"
	echo "$output"
	assert_success
	assert_equal "$(pkg_state)" installed
	for t in $(nm_programs); do
		run "/usr/sbin/$t" --version
		assert_success
		assert_output --regexp "^$t \(netmedic\) $(dpkg-query -W -f='${Version}' netmedic | sed 's/\./\\./g')$"
		run man -aw "$t"
		assert_success
		assert_line "/usr/share/man/man8/$t.8.gz"
		MANWIDTH=80 man "$t" 2>&1 | grep -q "^NAME"
		[ -f "/lib/systemd/system/$t.service" ]
		grep -qx "ExecStart=/usr/sbin/$t .*" "/lib/systemd/system/$t.service"
	done
	[ -f /usr/share/netmedic/prometheus/netmedic.rules.yml ]
	[ -f /usr/share/netmedic/prometheus/netmedic-dashboard.json ]
	[ -f /usr/share/doc/netmedic/prometheus/README.md ]
	[ -f /usr/share/doc/netmedic/copyright ]
	[ -f /usr/share/doc/netmedic/changelog.gz ]
	# what each man page's SEE ALSO names: the tool's reference and design
	for t in $(nm_tools); do
		[ -f "/usr/share/doc/netmedic/reference/$t.md" ]
		[ -f "/usr/share/doc/netmedic/design/$t.md" ]
	done
	# no unit enabled or started, no conffile, nothing outside the package's
	# files: no wants/ link, no enable state, no runtime directory
	for u in $UNITS; do
		run ls /etc/systemd/system/*.wants/"$u" /etc/systemd/system/"$u"
		assert_failure
	done
	assert_equal "$(unit_traces)" "$before"
	if [ -d /run/systemd/system ]; then
		for u in $UNITS; do
			run systemctl is-enabled "$u"
			assert_output disabled
			run systemctl is-active "$u"
			assert_output inactive
		done
	fi
	assert_equal "$(dpkg-query -W -f='${Conffiles}' netmedic)" ""
	# every file the package lists is there
	while read -r p; do
		[ -e "$p" ] || { echo "dpkg -L lists $p, not there"; false; }
	done < <(dpkg -L netmedic)
}

@test "deb: apt-get purge leaves nothing: every path the package created is gone" {
	[ "$(pkg_state)" = installed ] || { echo "not installed (the test before failed)"; false; }
	dpkg -L netmedic >"$DEB_TMP/listed"
	run apt-get purge "${APT_OPTS[@]}" netmedic
	echo "$output"
	assert_success
	local s
	s=$(pkg_state) || true
	[ -z "$s" ] || [ "$s" = not-installed ]
	# its files, and the directories it created, are gone
	while read -r p; do
		if [ -e "$p" ] || [ -L "$p" ]; then
			echo "left behind: $p"
			false
		fi
	done <"$DEB_TMP/own"
	# what dpkg listed that is not a directory: every one gone
	while read -r p; do
		[ -d "$p" ] && continue
		if [ -e "$p" ] || [ -L "$p" ]; then
			echo "left behind: $p"
			false
		fi
	done <"$DEB_TMP/listed"
	run ls -d /var/lib/dpkg/info/netmedic.* /etc/netmedic /usr/share/netmedic /usr/share/doc/netmedic \
		/usr/share/lintian/overrides/netmedic
	assert_failure
	run dpkg -l netmedic
	refute_output --regexp '^(ii|rc|iU|iF) +netmedic'
}
