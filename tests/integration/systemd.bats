#!/usr/bin/env bats
# The systemd units (tools/systemd): hardened to an exposure of at most 2.5
# (systemd-analyze security --offline), and their capabilities enough for
# their own command line, run as an unprivileged user holding just those.

load helpers

# a unit per CLI, and the agent's
UNITS="$(nm_tools) netmedic"

setup() {
	TMP=$(mktemp -d)
	BG_PID=
	for u in $UNITS; do
		sed "s|@SBINDIR@|$BIN|g" "$ROOT/tools/systemd/$u.service.in" >"$TMP/$u.service"
	done
}

teardown() {
	stop_bg KILL
	rm -rf "$TMP"
}

# unit_value UNIT KEY: the last KEY= of the rendered unit
unit_value() {
	sed -n "s/^$2=//p" "$TMP/$1.service" | tail -1
}

@test "systemd units: systemd-analyze security --offline rates each at most 2.5" {
	for u in $UNITS; do
		run systemd-analyze security --offline=yes --no-pager "$TMP/$u.service"
		assert_success
		line=$(printf '%s\n' "$output" | grep "Overall exposure level for $u.service:")
		echo "$line"
		level=$(echo "$line" | sed -n 's/.*: \([0-9][0-9]*\.[0-9]\).*/\1/p')
		[ -n "$level" ]
		awk -v l="$level" 'BEGIN { exit !(l <= 2.5) }'
		# the same, as systemd enforces it (0-100)
		run systemd-analyze security --offline=yes --no-pager --threshold=25 "$TMP/$u.service"
		assert_success
	done
}

@test "systemd units: not root, a bounding set of exactly their ambient capabilities" {
	for u in $UNITS; do
		assert_equal "$(unit_value $u DynamicUser)" yes
		assert_equal "$(unit_value $u NoNewPrivileges)" yes
		assert_equal "$(unit_value $u CapabilityBoundingSet)" "$(unit_value $u AmbientCapabilities)"
		run systemd-analyze verify --man=no "$TMP/$u.service"
		echo "$output"
		assert_success
	done
}

@test "systemd units: each ExecStart runs as nobody with the unit's capabilities, textfile in root's directory" {
	mkdir -m 0755 "$TMP/textfile"
	chmod 0711 "$TMP"
	for u in $UNITS; do
		caps=$(unit_value $u AmbientCapabilities | tr 'A-Z ' 'a-z,' | sed 's/cap_//g')
		cmd=$(unit_value $u ExecStart | sed "s|/var/lib/prometheus/node-exporter|$TMP/textfile|")
		echo "$u: as nobody with $caps: $cmd"
		run --separate-stderr as_nobody "$caps" $cmd -c 2 -i 0.3 -v
		echo "$stderr"
		assert_success
		[[ $stderr == *"$u: $(caps_kept cap_dac_override "--prom-file")"* ]]
		# written after the drop: CAP_DAC_OVERRIDE was kept for it (the agent's
		# hooks are its detectors', its object's programs its own)
		[ $u = netmedic ] && f=netmedic_bpf_prog_runs_total || f=netmedic_hook_info
		grep -q "^$f{tool=\"$u\"" "$TMP/textfile/$u.prom"
	done
}

# #37: README.Debian, the package's own page, said it installs "three CLIs"
# and a unit for each: the agent and its unit were not there. Each program
# the package installs (the Makefile's PROGRAMS) is named where it says what
# it installs, and the programs and units are counted right: in the file
# make deb installs (tools/deb/readme.sh fills in the Makefile's list).
@test "systemd units: README.Debian names every program the package installs, and counts them and the units right" {
	local words=(no one two three four five six seven eight nine) n t said
	n=$(nm_programs | wc -l)
	# the paragraph that says what the package installs, on one line
	said=$(awk '/installs/ { on = 1 } on && /^$/ { exit } on' <("$ROOT/tools/deb/readme.sh") | tr -s ' \n' '  ')
	echo "$said"
	for t in $(nm_programs); do
		[[ " $said " == *[\ \(]"$t"[,\ \)]* ]] || fail "README.Debian does not say it installs $t"
	done
	[[ $said == *"installs ${words[$n]} programs"* ]]
	[[ $said == *"${words[$n]} systemd units"* ]]
}
